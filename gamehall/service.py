"""The plain per-hall service of a game (``IGameService``), for games to attach or subclass."""
from __future__ import annotations

from types import MappingProxyType

from zope.interface import implementer

from gamehall.interfaces import IGameService


@implementer(IGameService)
class GameService:
    """A game's service with the plain behaviour: engines from ``game.new_engine``, no console
    commands, nothing to do at a start, an event or a restore.  A game with state of its own
    in a hall (the open table, a waiting series) subclasses it and keeps that state here."""

    admin_commands = MappingProxyType({})

    def __init__(self, hall, game) -> None:
        self.hall = hall
        self.game = game

    def new_engine_for_table(self, table):
        return self.game.new_engine(table.variant, table.players(), table.seed)

    def admit_seated(self, table) -> None:
        pass

    def table_event(self, table, event: str, detail: dict) -> None:
        pass

    def table_restored(self, table) -> None:
        pass
