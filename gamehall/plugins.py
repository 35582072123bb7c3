"""Finding games and front ends: ``twisted.plugin`` dropins in ``twisted/plugins/``."""
from __future__ import annotations

from twisted.plugin import getPlugins

from gamehall.interfaces import IFrontEnd, IGame


def _plugins_package():
    # Imported late so that a test (or an operator's PYTHONPATH) extending
    # twisted.plugins.__path__ before discovery is honoured.
    import twisted.plugins
    return twisted.plugins


def find_games() -> dict:
    """Every installed game, by name."""
    return {game.name: game for game in getPlugins(IGame, _plugins_package())}


def find_frontends() -> dict:
    """Every installed wire front end, by name."""
    return {front.name: front for front in getPlugins(IFrontEnd, _plugins_package())}
