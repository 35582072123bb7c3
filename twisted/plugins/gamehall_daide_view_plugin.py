"""Dropin: the web view of Diplomacy (game ``diplomacy``), beside the DAIDE package's own dropin.

A file of its own so that it merges without touching ``gamehall_daide_plugin.py``;
it provides nothing where the Diplomacy package is not installed.
"""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IGameView

try:
    from gamehall_daide.view import DiplomacyView
except ImportError:         # no Diplomacy package here: no view either
    DiplomacyView = None

if DiplomacyView is not None:
    @implementer(IPlugin, IGameView)
    class _DiplomacyViewPlugin(DiplomacyView):
        pass

    diplomacyView = _DiplomacyViewPlugin()
