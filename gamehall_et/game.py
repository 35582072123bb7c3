"""Euphrates & Tigris as a hall game (``IGame``): engines, bots, and their settings."""
from __future__ import annotations

from zope.interface import implementer

from gamehall.interfaces import IGame
from gamehall.service import GameService


@implementer(IGame)
class EuphratesTigrisGame:
    name = "et"
    title = "Euphrates & Tigris"
    min_seats, max_seats = 2, 4
    variants = ("standard",)
    bots = ("strong", "random")
    # A decision (an action, a commitment in a conflict, a treasure) waits this
    # long for a human; then the passive default (pass, add 0, decline, the
    # first treasure allowed) is played so three others are never stalled.
    turn_timeout = 300

    def new_engine(self, variant: str, players: list[str], seed: int):
        from .engine import Game
        if variant not in self.variants:
            raise ValueError(f"Euphrates & Tigris has no variant {variant!r}")
        return Game.new(players, seed=seed)

    def new_bot(self, name: str, seed: int):
        from .bots import make_bot
        return make_bot(name, seed)

    def attach(self, hall) -> GameService:
        return GameService(hall, self)       # no state of its own in a hall
