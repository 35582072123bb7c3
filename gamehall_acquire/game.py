"""Acquire as a hall game (``IGame``): engines, bots, and their settings."""
from __future__ import annotations

from zope.interface import implementer

from gamehall.interfaces import IGame
from gamehall.service import GameService


@implementer(IGame)
class AcquireGame:
    name = "acquire"
    title = "Acquire"
    min_seats, max_seats = 2, 6
    variants = ("classic",)
    bots = ("strong", "random")
    # A human who walks away must not stall five others: after this many
    # seconds the passive default is played (first playable tile, keep shares,
    # buy nothing).  NetAcquire itself had no timer; operators can change it.
    turn_timeout = 300

    def new_engine(self, variant: str, players: list[str], seed: int):
        from gamehall_acquire.rules import Game
        if variant not in self.variants:
            raise ValueError(f"Acquire has no variant {variant!r}")
        return Game.new(players, seed=seed)

    def new_bot(self, name: str, seed: int):
        from gamehall_acquire.bots import make_bot
        return make_bot(name, seed)

    def attach(self, hall) -> GameService:
        return GameService(hall, self)       # no state of its own in a hall
