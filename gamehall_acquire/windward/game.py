"""Acquire, Windward code-war edition, as a hall game (``IGame`` named ``"windward"``).

Six seats always (the ``windward`` front end fills empty seats with the
server's AIs), one variant, the bots of :mod:`.bots`, a 5-second turn timeout
(a table's ``options["turn_timeout"]`` overrides it), and the operator's
``ww-*`` console commands (:mod:`.admin`).
"""
from __future__ import annotations

from zope.interface import implementer

from gamehall.interfaces import IGame


@implementer(IGame)
class WindwardAcquireGame:
    name = "windward"
    title = "Acquire (Windward code war)"
    min_seats, max_seats = 6, 6
    variants = ("windward",)
    bots = ("strong", "simple")
    # The original's reply timeout is unknown (protocol §11.1); its clients warn
    # after 0.8 s and answer in milliseconds.  Tables may set options["turn_timeout"].
    turn_timeout = 5

    def new_engine(self, variant: str, players: list[str], seed: int):
        from .rules import WindwardGame
        if variant not in self.variants:
            raise ValueError(f"Windward Acquire has no variant {variant!r}")
        return WindwardGame.new(players, seed=seed)

    def new_bot(self, name: str, seed: int):
        from .bots import make_bot
        return make_bot(name, seed)

    def attach(self, hall):
        """The hall's ``WindwardService``: the series, the operator's commands, a restore."""
        from .wire.service import WindwardService
        return WindwardService(hall, self)
