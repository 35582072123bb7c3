"""Pure rules: one pile; take 1 to 3 stones; whoever takes the last stone wins."""
import random

from zope.interface import implementer

from gamehall.interfaces import IBot, IEngine, IllegalAction


@implementer(IEngine)
class Nim:
    def __init__(self, players, seed):
        self.players = list(players)
        self.pile = random.Random(seed).randint(15, 25)
        self.turn, self.winner = 0, None

    def pending_seat(self):
        return None if self.is_over() else self.turn

    def apply(self, seat, action):
        take = action.get("take")
        if seat != self.pending_seat():
            raise IllegalAction("It is not your turn")
        if type(take) is not int or not 1 <= take <= min(3, self.pile):
            raise IllegalAction(f"Take 1 to {min(3, self.pile)} stones")
        self.pile -= take
        if self.pile == 0:
            self.winner = seat
        self.turn = (self.turn + 1) % len(self.players)
        return [{"type": "took", "seat": seat, "take": take, "pile": self.pile}]

    def is_over(self):
        return self.winner is not None

    def result(self):
        scores = [int(seat == self.winner) for seat in range(len(self.players))]
        return {"scores": scores, "winners": [self.winner], "reason": "last stone taken"}

    def timeout_action(self, seat):
        return {"take": 1}


@implementer(IBot)
class PerfectBot:
    """Leaves a multiple of four stones whenever it can."""

    def choose(self, engine, seat):
        return {"take": engine.pile % 4 or 1}
