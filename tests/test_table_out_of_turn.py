"""Table with an engine where anyone may act (``IOutOfTurnEngine.may_act``, like PIMP's Monopoly): a move out
of turn while a bot's call waits must not leave the seat pending after it unasked."""
from zope.interface import implementer

from gamehall.interfaces import IBot, IGame, IOutOfTurnEngine
from gamehall.service import GameService
from gamehall.table import FINISHED
from tests.helpers import RecordingSink, make_hall


@implementer(IOutOfTurnEngine)
class Relay:
    """Seats 1 and 2 pass a baton in turn; anyone (seat 0 too) may pass it at any time, as a
    Monopoly player claims rent or agrees to a deal out of turn. Over after ``legs`` passes."""

    def __init__(self, players, seed, legs=6):
        self.players, self.legs, self.passes = list(players), legs, 0

    def pending_seat(self):
        return None if self.is_over() else 1 + self.passes % 2

    def may_act(self, seat):
        return True

    def apply(self, seat, action):
        self.passes += 1
        return [{"type": "passed", "seat": seat}]

    def is_over(self):
        return self.passes >= self.legs

    def result(self):
        return {"scores": [0] * len(self.players), "winners": [], "reason": "relay"}

    def timeout_action(self, seat):
        return {"pass": True}


@implementer(IBot)
class Passer:
    def choose(self, engine, seat):
        return {"pass": True}


@implementer(IGame)
class RelayGame:
    name, title = "relay", "Relay"
    min_seats, max_seats = 3, 3
    variants, bots = ("plain",), ("passer",)
    turn_timeout = 5

    def new_engine(self, variant, players, seed):
        return Relay(players, seed)

    def new_bot(self, name, seed):
        return Passer()

    def attach(self, hall):
        return GameService(hall, self)


def test_a_move_out_of_turn_while_a_bot_call_waits_still_asks_the_seat_pending_after_it():
    hall = make_hall(games={"relay": RelayGame()})
    ann = hall.login("Ann", "test", RecordingSink())
    table = hall.create_table("relay", creator=ann)
    table.add_bot()
    table.add_bot()
    table.start(ann)
    assert table.engine.pending_seat() == 1          # bot 1 is asked: its call waits bot_delay
    table.act_for(0, {"pass": True})                 # Ann passes out of turn: bot 2 is pending
    assert table.engine.pending_seat() == 2
    for _ in range(20):                              # bot 1's call comes, stale: bot 2 is asked
        hall.clock.advance(hall.bot_delay)
    assert table.state == FINISHED and table.engine.passes == 6, (table.state, table.engine.passes)
