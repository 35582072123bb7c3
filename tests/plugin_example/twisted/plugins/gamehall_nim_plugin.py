"""Dropin: the Nim game and its line front end."""
from twisted.plugin import IPlugin
from zope.interface import implementer

from gamehall.interfaces import IFrontEnd, IGame
from gamehall.service import GameService


@implementer(IPlugin, IGame)
class NimGame:
    name, title = "nim", "Nim"
    min_seats, max_seats = 2, 4
    variants, bots = ("classic",), ("perfect",)
    turn_timeout = 60

    def new_engine(self, variant, players, seed):
        from gamehall_nim.rules import Nim
        return Nim(players, seed)

    def new_bot(self, name, seed):
        from gamehall_nim.rules import PerfectBot
        return PerfectBot()

    def attach(self, hall):
        return GameService(hall, self)   # Nim keeps nothing of its own per hall


@implementer(IPlugin, IFrontEnd)
class NimFrontEnd:
    name, description = "nim", "Nim over CRLF lines"
    default_endpoint = "tcp:7070"

    def build_factory(self, hall):
        from gamehall_nim.frontend import build_factory
        return build_factory(hall)


nim = NimGame()
nimFrontEnd = NimFrontEnd()
