"""Table with a simultaneous engine (``ISimultaneousEngine.pending_seats``): every pending
seat is asked, bots move one after the other, a held seat and a human's reconnect, and the
game service's ``table_event`` sees every broadcast."""
from zope.interface import implementer

from gamehall.interfaces import IBot, IGame, IllegalAction, IOutOfTurnEngine, ISimultaneousEngine
from gamehall.service import GameService
from gamehall.table import FINISHED, PLAYING
from tests.helpers import RecordingSink, make_hall


@implementer(ISimultaneousEngine, IOutOfTurnEngine)
class Rounds:
    """Each round every seat picks a number; after ``rounds`` rounds the highest total wins."""

    def __init__(self, players, seed, rounds=3):
        self.players, self.rounds = list(players), rounds
        self.picks: dict[int, int] = {}
        self.totals = [0] * len(players)
        self.round = 0

    def pending_seats(self):
        return [] if self.is_over() else [s for s in range(len(self.players)) if s not in self.picks]

    def pending_seat(self):
        pending = self.pending_seats()
        return pending[0] if pending else None

    def may_act(self, seat):
        return seat in self.pending_seats()

    def apply(self, seat, action):
        if seat not in self.pending_seats() or type(action.get("pick")) is not int:
            raise IllegalAction("no")
        self.picks[seat] = action["pick"]
        events = [{"type": "picked", "seat": seat}]
        if len(self.picks) == len(self.players):
            for s, n in self.picks.items():
                self.totals[s] += n
            self.picks, self.round = {}, self.round + 1
            events.append({"type": "round", "round": self.round})
        return events

    def is_over(self):
        return self.round >= self.rounds

    def result(self):
        best = max(self.totals)
        return {"scores": self.totals, "winners": [s for s, t in enumerate(self.totals) if t == best],
                "reason": "rounds"}

    def timeout_action(self, seat):
        return {"pick": 0}


@implementer(IBot)
class Picker:
    def choose(self, engine, seat):
        return {"pick": seat + 1}


class RoundsService(GameService):
    def table_event(self, table, event, detail):
        self.game.seen.append(event)


@implementer(IGame)
class RoundsGame:
    name, title = "rounds", "Rounds"
    min_seats, max_seats = 2, 4
    variants, bots = ("plain",), ("picker",)
    turn_timeout = 5

    def __init__(self):
        self.seen = []

    def new_engine(self, variant, players, seed):
        return Rounds(players, seed)

    def new_bot(self, name, seed):
        return Picker()

    def attach(self, hall):
        return RoundsService(hall, self)


def setup(bots=2):
    game = RoundsGame()
    hall = make_hall(games={"rounds": game})
    sinks = {}
    users = []
    for name in ("Ann", "Bob"):
        sinks[name] = RecordingSink()
        users.append(hall.login(name, "test", sinks[name]))
    table = hall.create_table("rounds", max_seats=2 + bots, creator=users[0])
    table.join(users[1])
    for _ in range(bots):
        table.add_bot()
    table.start(users[0])
    return hall, game, table, users, sinks


def test_every_pending_human_is_asked_and_bots_move_one_after_another():
    hall, game, table, (ann, bob), sinks = setup()
    assert [e for e in sinks["Ann"].names() if e == "decision"] and [e for e in sinks["Bob"].names() if e == "decision"]
    hall.clock.advance(hall.bot_delay)
    assert table.engine.pending_seats() == [0, 1, 3]          # one bot moved
    hall.clock.advance(hall.bot_delay)
    assert table.engine.pending_seats() == [0, 1]             # then the other
    table.act(bob, {"pick": 5})                               # any pending seat, in any order
    table.act(ann, {"pick": 1})
    assert table.engine.round == 1
    for _ in range(2):
        hall.clock.advance(hall.bot_delay)
        hall.clock.advance(hall.bot_delay)
        table.act(ann, {"pick": 1})
        table.act(bob, {"pick": 5})
    assert table.state == FINISHED and table.engine.totals == [3, 15, 9, 12]
    assert "game" in game.seen and "started" in game.seen and "finished" in game.seen


def test_no_turn_timer_for_a_simultaneous_engine():
    hall, game, table, (ann, bob), sinks = setup(bots=0)
    hall.clock.advance(60)
    assert table.engine.round == 0 and table.state == PLAYING
    assert "timeout" not in sinks["Ann"].names()


def test_a_bot_call_made_stale_by_a_human_still_moves_the_other_bots():
    hall, game, table, (ann, bob), sinks = setup()
    table.act(ann, {"pick": 1})               # seq moves while the bot call waits
    hall.clock.advance(hall.bot_delay)
    hall.clock.advance(hall.bot_delay)
    assert table.engine.pending_seats() == [1]


def test_held_seat_taken_by_a_bot_while_others_wait():
    hall, game, table, (ann, bob), sinks = setup(bots=0)
    table.act(ann, {"pick": 2})
    hall.logout(bob)                          # held for seat_hold seconds, then a bot plays it
    hall.clock.advance(hall.seat_hold)
    hall.clock.advance(hall.bot_delay)
    assert table.engine.round == 1 and table.seats[1].kind == "bot"


def test_reconnect_to_a_pending_seat():
    hall, game, table, (ann, bob), sinks = setup(bots=0)
    hall.logout(bob)
    bob2 = hall.login("Bob", "test", RecordingSink())
    table.reconnect(bob2)
    table.act(bob2, {"pick": 3})
    table.act(ann, {"pick": 1})
    assert table.engine.round == 1


def test_the_end_is_told_after_the_action_that_caused_it_with_a_slow_store():
    """Two actions applied while the first one's write is pending: the table must not finish
    (and say so) before the events of the action that ended the game are told."""
    from twisted.internet.defer import Deferred
    game = RoundsGame()
    hall = make_hall(games={"rounds": game})
    sink = RecordingSink()
    ann = hall.login("Ann", "test", sink)
    bob = hall.login("Bob", "test", RecordingSink())
    table = hall.create_table("rounds", max_seats=2, creator=ann)
    table.join(bob)
    table.start(ann)
    table.engine.rounds = 1
    pending = []
    real = hall.store.append_action

    def slow(*args):
        d = Deferred()
        pending.append((d, args))
        return d
    hall.store.append_action = slow
    table.act(ann, {"pick": 1})
    table.act(bob, {"pick": 2})                   # ends the game while Ann's write is pending
    assert table.engine.is_over()
    while pending:
        d, args = pending.pop(0)
        real(*args)
        d.callback(None)
    names = [n for n in sink.names() if n in ("game", "finished")]
    assert names == ["game", "game", "finished"]
    last_game = [d for _, e, d in sink.events if e == "game"][-1]
    assert {"type": "round", "round": 1} in last_game["events"]
    assert table.state == FINISHED
