"""Issue 15, Monopoly tables in the hall (a Clock, a memory store): bots settle what the rules
put to them and move at the table's bot delay, requests that change nothing are not stored,
games of bots alone and games whose seats a bot takes over mid-game end, and a finished
game's server is dropped once its players are gone."""
from __future__ import annotations

import gc
import weakref

from hypothesis import given, settings
from hypothesis import strategies as st

from gamehall.table import PLAYING
from gamehall_pimp.state import AGREED, FINISHED
from gamehall_pimp.wire.protocol import EMPTY_TABLE_AFTER, monopoly_command, rooms_of
from tests.pimp.test_frontend import Conn, run, setup
from tests.pimp.wireclient import WireClient


def new_table(hall, words: str):
    answer = monopoly_command(hall, "new " + words)
    return hall.table(int(answer.split("#")[1].split()[0]))


def stored_actions(hall, table) -> list:
    import json
    return [json.loads(action) for _, action in hall.store._actions[table.store_id]]


def kerz_and_pavlov(port: int, **kw) -> tuple:
    """A hall where kerz and pavlov play; the game stands at pavlov's first turn."""
    hall, factory = setup(**kw)
    kerz, pavlov = WireClient("kerz"), WireClient("pavlov")
    pavlov.on_START_OF_TURN = lambda *a: None
    conns = [Conn(factory, kerz, port), Conn(factory, pavlov, port + 1)]
    run(hall, conns)
    return hall, (kerz, pavlov), conns, rooms_of(hall).current()


def run_clock(hall, until, seconds: float = 20_000.0, step: float = 0.5) -> None:
    for _ in range(int(seconds / step)):
        if until():
            return
        hall.clock.advance(step)
    raise AssertionError("did not happen in time")


def test_a_debt_held_up_by_a_seat_a_bot_takes_over_is_settled_and_nothing_idle_is_stored():
    """The stall seen live: bots hold every live seat, one of them taken over from a player who
    left; a $200 tax owed with $75 in cash, behind two rent debts that wait for their creditor
    to agree.  Nothing asked the bot that took the seat over, and the debtor bot sent
    REQUEST_STATE at every bot delay, each stored as an action.  Now the game waits for the
    creditor's seat, whose bot agrees once it takes over; nothing idle is stored."""
    hall, factory = setup(seat_hold=30)
    table = new_table(hall, "classic 2")
    g = table.engine.game
    g.options["max_turns"] = 60
    kerz = WireClient("kerz")
    conn = Conn(factory, kerz, 4100)
    run(hall, [conn], until=lambda: kerz.me > 0)
    debtor = 1
    g.turn, g.phase = debtor, "moved"
    g.users[debtor].cash = 125
    debts = [g._open_debt("rent", debtor, kerz.me, 25) for _ in range(2)]
    for tx in debts:                      # the debtor agreed again after a reopening
        tx.stage[tx.a], tx.stage[tx.b] = AGREED, FINISHED
    g._fine(debtor, 4, 200)               # 75 < 200: a square debt that holds up the game
    g._settle()
    assert g.phase == "wait" and g.users[debtor].cash == 125
    g.ev = []
    conn.proto.connectionLost(None)       # kerz leaves; a bot takes his seat after 30 s
    stored = len(stored_actions(hall, table))
    hall.clock.advance(0.5)
    table._advance()
    for _ in range(40):
        hall.clock.advance(0.5)
    assert len(stored_actions(hall, table)) == stored      # the game waits; nothing is stored
    run_clock(hall, lambda: all(tx.id not in g.transactions for tx in debts), seconds=60)
    assert table.seats[kerz.me - 1].kind == "bot"
    run_clock(hall, g.is_over)
    assert all(a["msg"] != "REQUEST_STATE" for a in stored_actions(hall, table))
    assert len(stored_actions(hall, table)) == len(g.log)


def test_server_bots_move_one_move_per_bot_delay():
    """`monopoly new classic 2`: two bots finished a whole game within one bot delay (bursts of
    200 moves); now each move waits for the delay, so people can join and follow."""
    hall, _ = setup()
    table = new_table(hall, "classic 2")
    g = table.engine.game
    before = len(g.log)
    for _ in range(10):
        hall.clock.advance(0.5)
    moves = len(g.log) - before
    assert 1 <= moves <= 2 * 10 + 1         # the table's pending bot and one out of turn per delay
    assert not g.is_over()


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2 ** 16), bots=st.integers(2, 4), human=st.booleans(),
       drop_after=st.sampled_from([5.0, 60.0, 300.0]), kind=st.sampled_from(["strong", "random"]))
def test_hall_games_of_bots_and_seats_taken_over_mid_game_end(seed, bots, human, drop_after, kind):
    """Whole games at a hall table: bots alone, or with a wire client who drops mid-game and
    whose seat a bot takes over after the hold (30 s); every game ends, and only real actions
    are stored."""
    hall, factory = setup(rng=__import__("random").Random(seed))
    table = new_table(hall, f"classic {bots}")
    g = table.engine.game
    g.options["max_turns"] = 150
    for seat in table.seats:
        if seat.brain is not None:
            seat.bot = kind
    conns = []
    if human:
        client = WireClient("kerz")
        conns.append(Conn(factory, client, 4200))
        run(hall, conns, until=lambda: client.me > 0 or g.is_over())
        run_clock(hall, lambda: g.is_over() or hall.clock.seconds() >= drop_after)
        conns[0].proto.connectionLost(None)
    run_clock(hall, g.is_over)
    assert g.is_over() and g.winner
    assert len(stored_actions(hall, table)) == len(g.log)
    if human and client.me > 0 and hall.clock.seconds() > drop_after + hall.seat_hold:
        assert table.seats[client.me - 1].kind == "bot"


def test_a_finished_games_server_is_dropped_once_its_players_are_gone():
    hall, factory = setup()
    rooms = rooms_of(hall)
    refs = []
    for n in range(3):
        table = new_table(hall, "classic 2")
        table.engine.game.options["max_turns"] = 30
        refs.append(weakref.ref(table.engine.game))
        run_clock(hall, table.engine.game.is_over)
    # a game with a connection: kept while it is connected (PIMP says nothing after PLAYER_WON)
    kerz, pavlov = WireClient("kerz"), WireClient("pavlov")
    conns = [Conn(factory, kerz, 4301), Conn(factory, pavlov, 4302)]
    run(hall, conns[:1])
    table = rooms.current()
    g = table.engine.game
    g.options["max_turns"] = 30
    run(hall, conns, until=g.is_over)
    run(hall, conns)
    hall.clock.advance(1)
    assert table.id in rooms.servers
    refs.append(weakref.ref(g))
    del g, table
    for c in conns:
        c.proto.connectionLost(None)
    hall.clock.advance(1)
    assert rooms.servers == {} and rooms._bots_call == {} and rooms._mine == {}
    assert not [t for t in hall.tables.values() if t.game.name == "pimp"]
    gc.collect()
    assert [r() for r in refs] == [None] * 4


def test_names_follow_the_halls_nickname_rules():
    hall, factory = setup()
    first = WireClient("kerz")
    conns = [Conn(factory, first, 4400)]
    run(hall, conns)
    g = rooms_of(hall).current().engine.game
    for bad in ("evil\x1b[2J", "nul\x00", "abc\u202edcba", "a:b"):
        c = WireClient(bad)
        conns.append(Conn(factory, c, 4401 + len(conns)))
        run(hall, conns)
        assert c.received[-1][0] in ("ERROR_NAME_IN_USE", "0xF2") and not c.me   # 0xF2
    assert [u.name for u in g.users.values()] == ["kerz"]
    assert all("QUERY_JOIN_PLAY" not in m[0] for m in first.received)
    ok = WireClient("Zoë")
    for c in (first, ok):
        c.on_START_OF_TURN = lambda *a: None      # no game played here
    conns.append(Conn(factory, ok, 4450))
    run(hall, conns)
    assert ok.me == 2 and g.users[2].name == "Zoë"


def test_the_operator_closing_a_table_closes_its_pimp_connections():
    hall, _, conns, table = kerz_and_pavlov(4501, seat_hold=10_000)
    hall.close_table(table.id)
    assert all(c.transport.disconnecting for c in conns)
    for c in conns:
        c.proto.connectionLost(None)
    assert table.id not in rooms_of(hall).servers


def test_a_seat_given_to_a_bot_closes_its_players_connection_and_the_bot_plays():
    hall, _, conns, table = kerz_and_pavlov(4601, seat_hold=10_000)
    g = table.engine.game
    g.options["max_turns"] = 40
    hall.put_bot(table.id, 2)
    assert conns[1].transport.disconnecting and not conns[0].transport.disconnecting
    conns[1].proto.connectionLost(None)
    run(hall, conns[:1], until=g.is_over, idle_seconds=600)
    assert g.is_over() and table.seats[1].kind == "bot"


def test_an_empty_table_expires_and_a_used_one_does_not():
    hall, factory = setup()
    empty = new_table(hall, "")
    bots = new_table(hall, "classic 2")
    hall.clock.advance(EMPTY_TABLE_AFTER + 1)
    assert empty.id not in hall.tables and empty.state != PLAYING
    assert bots.id in hall.tables or bots.engine.is_over()
    assert "#%d" % empty.id not in monopoly_command(hall, "")


def test_say_counts_only_users_it_reached():
    from gamehall.admin import _cmd_say

    class Console:
        def __init__(self, hall):
            self.hall = hall

        def audit(self, *a, **kw):
            pass
    hall, factory = setup()
    kerz = WireClient("kerz")
    run(hall, [Conn(factory, kerz, 4701)])
    assert "kerz" in {u.nickname for u in hall.who()}
    assert _cmd_say(Console(hall), "hello") == "Announcement sent to 0 users."


def test_a_state_request_is_answered_and_not_stored():
    hall, (kerz, pavlov), conns, table = kerz_and_pavlov(4801)
    rows = len(stored_actions(hall, table))
    pavlov.received.clear()
    for _ in range(5):
        pavlov.send("REQUEST_STATE")
    run(hall, conns)
    assert [m[0] for m in pavlov.received].count("STATE_BOARD") == 5
    assert len(stored_actions(hall, table)) == rows == table.seq


def test_closing_a_table_of_bots_drops_its_server():
    hall, _ = setup()
    table = new_table(hall, "classic 3")
    for _ in range(5):
        hall.clock.advance(0.5)
    assert table.id in rooms_of(hall).servers
    hall.close_table(table.id)
    hall.clock.advance(1)
    assert rooms_of(hall).servers == {}


def test_monopoly_new_with_bots_on_a_store_that_writes_later_logs_no_error():
    """`monopoly new classic 2` on SQLite logged a critical 'name in use' every time: the
    table's admission of its seated players runs once the new table is stored, and by then
    the command had seated its bots, which were admitted a second time."""
    from twisted.internet.defer import Deferred
    from twisted.logger import globalLogPublisher

    from gamehall.store import MemoryStore
    from tests.pimp.test_frontend import setup as pimp_setup

    class LaterStore(MemoryStore):
        clock = None

        def create_table(self, *args, **kw):
            d = super().create_table(*args, **kw)
            if self.clock is None:
                return d
            later = Deferred()
            d.addCallback(lambda result: self.clock.callLater(0.01, later.callback, result))
            return later

    store = LaterStore()
    events = []
    globalLogPublisher.addObserver(events.append)
    try:
        hall, _ = pimp_setup(store=store)
        store.clock = hall.clock
        table = new_table(hall, "classic 2")
        for _ in range(20):
            hall.clock.advance(0.5)
    finally:
        globalLogPublisher.removeObserver(events.append)
    bad = [e for e in events if e.get("log_level") is not None and e["log_level"].name in ("error", "critical")]
    assert bad == []
    g = table.engine.game
    assert [(p, u.name) for p, u in g.users.items()] == [(1, "StrongBot1"), (2, "StrongBot2")]
    assert [s.name for s in table.seats] == ["StrongBot1", "StrongBot2"] and g.turns >= 1
