"""A failing store stalls the table: nobody hears of an unsaved action, nothing more is
accepted, players are told, the write is retried on the hall clock, and play resumes."""
from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile

import pytest
from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import TestCase

from gamehall.admin import Console
from gamehall.hall import Hall
from gamehall.store import MemoryStore, SQLiteStore, StoreError
from gamehall.table import FINISHED, PLAYING, RESUMED_TEXT, STALLED_TEXT, TableError
from tests.hallstores import REAL, advance, flush, settle
from tests.helpers import RecordingSink, make_hall


class FaultyStore(MemoryStore):
    """A MemoryStore whose next writes can be made to fail, as a full disk would."""

    WRITES = ("create_table", "update_table", "append_action", "finish_table")

    def __init__(self, clock=None) -> None:
        super().__init__(clock)
        self.failures: dict[str, int] = {}
        self.attempts: list[tuple] = []

    def fail(self, method: str, times: int) -> None:
        self.failures[method] = times

    def __getattribute__(self, name):
        attr = super().__getattribute__(name)
        if name in FaultyStore.WRITES:
            def write(*args, **kw):
                self.attempts.append((name, args))
                if self.failures.get(name, 0) > 0:
                    self.failures[name] -= 1
                    return defer.fail(StoreError("database error: database or disk is full"))
                return attr(*args, **kw)
            return write
        return attr


@pytest.fixture
def logged():
    events = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


def stall_lines(events):
    return [e for e in events if "stalled:" in e.get("log_format", "")]


def recover_lines(events):
    return [e for e in events if "recovered:" in e.get("log_format", "")]


def login(hall, name, address="10.0.0.1"):
    sink = RecordingSink()
    return hall.login(name, "nim", sink, address), sink


def nim_game(store):
    hall = make_hall(store=store)
    ann, a = login(hall, "Ann")
    bob, b = login(hall, "Bob")
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    table.start(ann)
    return hall, table, (ann, a), (bob, b)


def run(clock, seconds, step=0.5):
    """Advance a Clock in steps (Clock.advance runs a call scheduled during it only if it
    is due at the *new* time, so one big advance would skip retries scheduled meanwhile)."""
    for _ in range(int(seconds / step)):
        clock.advance(step)


def mover(table):
    return table.seats[table.engine.pending_seat()].user


def test_a_failing_append_stalls_the_table_and_it_resumes_when_the_write_succeeds(logged):
    store = FaultyStore()
    hall, table, (ann, a), (bob, b) = nim_game(store)
    first = mover(table)
    other = bob if first is ann else ann
    a.events.clear(), b.events.clear()
    store.fail("append_action", 3)
    table.act(first, {"take": 1})

    # nothing of the unsaved action reaches anyone; the players are told why the game waits
    for sink in (a, b):
        assert "game" not in sink.names() and "decision" not in sink.names()
        assert (table.id, "chat", {"nickname": "*", "text": STALLED_TEXT, "notice": "stalled"}) in sink.events
    assert table.stalled and hall.stalled == {table.id: table}
    assert len(stall_lines(logged)) == 1 and "disk is full" in stall_lines(logged)[0]["reason"]
    with pytest.raises(TableError, match="cannot save moves right now; the game is paused"):
        table.act(other, {"take": 1})          # the engine's turn, but not told yet: refused
    assert table.seq == 1
    console, out = Console(hall), []
    console.execute("stats").addCallback(out.append)
    console.execute("tables").addCallback(out.append)
    assert "Stalled (store writes failing): 1" in out[0]
    assert f"#{table.id} nim for 0:00:00: database error: database or disk is full" in out[0]
    assert "playing (stalled)" in out[1]

    # retried after 1 s, 2 s, 4 s on the hall clock: the third retry succeeds
    hall.clock.advance(1)
    hall.clock.advance(2)
    assert table.stalled and "game" not in a.names()
    hall.clock.advance(3.9)
    assert table.stalled
    hall.clock.advance(0.1)
    assert not table.stalled and hall.stalled == {}
    appends = [args for name, args in store.attempts if name == "append_action"]
    assert len(appends) == 4 and all(x == appends[0] for x in appends)   # the same write each time
    for sink in (a, b):
        assert sink.names().count("game") == 1                # told now
        assert (table.id, "chat", {"nickname": "*", "text": RESUMED_TEXT, "notice": "resumed"}) in sink.events
    assert "decision" in (a if other is ann else b).names()
    assert len(stall_lines(logged)) == 1 and len(recover_lines(logged)) == 1
    console.execute("stats").addCallback(out.append)
    assert "Stalled (store writes failing): 0" in out[-1]
    # play goes on and the store holds exactly what was played
    for _ in range(100):
        if table.state != PLAYING:
            break
        table.act(mover(table), {"take": 1})
    assert table.state == FINISHED
    stored = store.load_table(table.store_id).result
    assert stored["state"] == FINISHED and len(stored["actions"]) == table.seq


def test_a_stalled_table_replays_nothing_either(logged):
    """Table.replay (a front end restarting a stored game) is refused like act() while a
    write fails: nothing runs on unsaved."""
    store = FaultyStore()
    hall, table, _, _ = nim_game(store)
    store.fail("append_action", 1)
    table.act(mover(table), {"take": 1})
    assert table.stalled
    pile, seat = table.engine.pile, table.engine.pending_seat()
    with pytest.raises(TableError, match="cannot save moves right now; the game is paused"):
        table.replay([(seat, {"take": 1})])
    assert (table.engine.pile, table.seq) == (pile, 1)
    hall.clock.advance(1)                   # the retry succeeds
    assert not table.stalled
    table.replay([(seat, {"take": 1})])
    assert (table.engine.pile, table.seq) == (pile - 1, 2)


def test_nothing_is_told_before_it_is_stored():
    """Every 'game' event a player gets is of an action the store already holds."""
    store = FaultyStore()
    hall, table, (ann, a), (bob, b) = nim_game(store)
    seen = []

    def check(tid, event, detail):
        if event == "game":
            stored = store.load_table(table.store_id).result["actions"]
            seen.append((len(stored), table.seq))
            assert len(stored) == table.seq
    a.table_event = lambda t, e, d: (check(t.id, e, d), RecordingSink.table_event(a, t, e, d))
    for n in range(3):
        store.fail("append_action", 1 + n % 2)
        table.act(mover(table), {"take": 1})
        run(hall.clock, 30)
    assert len(seen) == 3


def test_a_stalled_bot_table_does_not_move_and_finishes_after_recovery():
    store = FaultyStore()
    hall = make_hall(store=store)
    ann, a = login(hall, "Ann")
    table = hall.create_table("nim", max_seats=3, creator=ann)
    table.add_bot(), table.add_bot()
    table.start(ann)
    hall.put_bot(table.id, 1)
    hall.clock.advance(hall.bot_delay)
    store.fail("append_action", 50)
    for _ in range(5):
        hall.clock.advance(hall.bot_delay)
    seq = table.seq
    assert table.stalled
    run(hall.clock, 600)                      # retries every 30 s at most; still failing
    assert table.seq == seq and table.stalled
    store.failures.clear()
    run(hall.clock, 30)
    assert not table.stalled
    for _ in range(200):
        if table.state != PLAYING:
            break
        hall.clock.advance(hall.bot_delay)
    assert table.state == FINISHED
    assert len(store.load_table(table.store_id).result["actions"]) == table.seq


def test_a_failing_create_or_seat_write_stalls_too_and_timers_wait():
    store = FaultyStore()
    hall = make_hall(store=store)
    ann, a = login(hall, "Ann")
    bob, b = login(hall, "Bob")
    eve, e = login(hall, "Eve")
    table = hall.create_table("nim", max_seats=3, creator=ann)
    table.join(bob), table.join(eve)
    store.fail("update_table", 1)              # the 'playing' state right after the create
    table.start(ann)
    assert table.stalled and "started" not in a.names()
    hall.clock.advance(1)
    assert not table.stalled and "started" in a.names()
    assert len([n for n, _ in store.attempts if n == "create_table"]) == 1   # created once
    first = mover(table)
    assert first is ann
    # a seat change that cannot be saved stalls the table: the turn timer and holds wait
    hall.logout(eve)                           # held for 30 s
    store.fail("update_table", 10**6)
    hall.put_bot(table.id, 2)                  # the operator puts a bot in Bob's seat
    assert table.stalled
    with pytest.raises(TableError, match="paused"):
        table.act(ann, {"take": 1})
    a.events.clear()
    run(hall.clock, 300)                       # longer than the turn timer and the hold
    assert table.seq == 0 and table.seats[2].kind == "human" and table.seats[2].user is None
    eve2, _ = login(hall, "Eve")
    with pytest.raises(TableError, match="paused"):
        table.reconnect(eve2)                  # the game shown would hold unsaved moves
    store.failures.clear()
    for _ in range(60):                        # the next retry comes within 30 s
        if not table.stalled:
            break
        hall.clock.advance(0.5)
    assert not table.stalled
    assert a.names().count("decision") == 1    # Ann is asked again, her timer starts again
    assert table.seats[2].user is None and table.seats[2].kind == "human"   # held again
    table.reconnect(eve2)
    hall.clock.advance(59)
    assert table.seq == 0
    hall.clock.advance(1)
    assert table.seq == 1                      # the turn timer played for her
    stored = store.load_table(table.store_id).result
    assert [s["kind"] for s in stored["seats"]] == ["human", "bot", "human"]
    assert len(stored["actions"]) == 1


def test_quiesce_does_not_wait_for_a_stalled_table():
    store = FaultyStore()
    hall, table, (ann, _), (bob, _) = nim_game(store)
    store.fail("append_action", 1000)
    table.act(mover(table), {"take": 1})
    done = hall.quiesce()
    assert done.called and table.stalled


def test_restart_after_a_write_that_never_succeeded_matches_what_players_saw():
    store = FaultyStore()
    hall, table, (ann, a), _ = nim_game(store)
    table.act(mover(table), {"take": 2})
    store.fail("append_action", 10**6)
    table.act(mover(table), {"take": 3})       # never stored, never told
    told = [d for _, e, d in a.events if e == "game"]
    again = make_hall(store=store)
    assert again.restore().result == 1
    (new,) = again.tables.values()
    assert new.seq == len(told) == 1
    assert new.engine.pile == told[-1]["events"][-1]["pile"]


class SQLiteFullDiskTests(TestCase):
    """A real SQLite failure: the file reaches its max_page_count, then may grow again."""

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehall-test-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "hall.sqlite")
        conn = sqlite3.connect(self.path)      # small pages, so a few actions need a new one
        conn.execute("PRAGMA page_size = 512")
        conn.execute("CREATE TABLE t (x)")
        conn.execute("DROP TABLE t")
        conn.commit()
        conn.close()

    def on_store(self, store, sql):
        return store._call(lambda: store._conn.execute(sql).fetchone())

    @defer.inlineCallbacks
    def test_disk_full_stalls_then_resumes_and_the_game_completes(self):
        from tests.netacquire.harness import acquire_game
        clock = Clock()
        store = SQLiteStore(self.path, reactor, clock=clock)
        yield store.open()
        self.addCleanup(store.close)
        hall = Hall(clock, store, {"acquire": acquire_game()}, seat_hold=30.0, bot_delay=0.0)
        table = hall.create_table("acquire", max_seats=4)
        for _ in range(4):
            table.add_bot()
        spectator = RecordingSink()
        table.watch(hall.login("Eve", "nim", spectator, "10.0.0.5"))
        table.start()
        yield table.flush()
        (pages,) = yield self.on_store(store, "PRAGMA page_count")
        yield self.on_store(store, f"PRAGMA max_page_count = {pages}")
        for _ in range(2000):                    # bots play until an append needs a page
            clock.advance(0)
            yield table.flush()
            if table.stalled or table.state != PLAYING:
                break
        self.assertTrue(table.stalled)
        self.assertIn("full", table.stall_reason)
        told = sum(1 for _, e, _ in spectator.events if e == "game")
        stored = yield store.load_table(table.store_id)
        self.assertEqual(len(stored["actions"]), told)
        self.assertEqual(table.seq, told + 1)   # applied in memory, neither stored nor told
        clock.advance(1)                         # a retry: still full
        yield store.stats()                      # (the store runs calls in order)
        self.assertTrue(table.stalled)
        self.assertEqual(sum(1 for _, e, _ in spectator.events if e == "game"), told)
        yield self.on_store(store, f"PRAGMA max_page_count = {pages * 100}")
        clock.advance(2)
        yield store.stats()
        self.assertFalse(table.stalled)
        for _ in range(5000):
            if table.state != PLAYING:
                break
            clock.advance(0)
            yield table.flush()
        self.assertEqual(table.state, FINISHED)
        yield table.flush()
        stored = yield store.load_table(table.store_id)
        self.assertEqual(stored["state"], FINISHED)
        self.assertEqual(len(stored["actions"]), table.seq)
        self.assertEqual(sum(1 for _, e, _ in spectator.events if e == "game"), table.seq)


def test_netacquire_players_see_the_pause_and_the_game_goes_on():
    from tests.netacquire.harness import acquire_hall, connect, pump_all
    store = FaultyStore()
    store.open()
    hall = acquire_hall(store=store)
    factory, conns = connect(hall, ["Ann", "Bob"], seed=3)
    conns[0].send("SG;2")
    conns[1].send("JG;1,-1")
    pump_all(conns)
    table = hall.tables[1]
    conns[0].send("PG;")
    pump_all(conns, hall, until=lambda: table.seq >= 4)
    store.fail("append_action", 3)
    pump_all(conns, hall, until=lambda: table.stalled)
    seq = table.seq
    for conn in conns:
        conn.pump()
        assert any(STALLED_TEXT in line for line in conn.logic.gm)
    run(hall.clock, 10)                        # the retries at 1, 3 and 7 s: the last succeeds
    assert not table.stalled
    pump_all(conns, hall, until=lambda: table.seq > seq + 3)
    for conn in conns:
        assert any(RESUMED_TEXT in line for line in conn.logic.gm) and not conn.closed
    assert len(store.load_table(table.store_id).result["actions"]) == table.seq


def test_an_empty_store_file_starts_an_empty_hall_with_a_warning(tmp_path, logged):
    """A 0-byte file (a truncated store, or one made with touch) is opened as an empty store,
    not refused (there is nothing in it to protect), and the log says so clearly."""
    from twisted.logger import LogLevel, formatEvent

    from gamehall.store import check_database
    path = tmp_path / "gamehall.sqlite"
    path.write_bytes(b"")
    check_database(str(path))
    warnings = [formatEvent(e) for e in logged if e.get("log_level") == LogLevel.warn]
    assert len(warnings) == 1
    assert "empty (0-byte)" in warnings[0] and "EMPTY hall" in warnings[0] and str(path) in warnings[0]
    assert path.stat().st_size == 0                    # looked at, not written
    logged.clear()
    fresh = tmp_path / "new.sqlite"                    # no file yet: a new store, nothing to say
    check_database(str(fresh))
    assert not [e for e in logged if e.get("log_level") == LogLevel.warn]


class LockedStore(MemoryStore):
    """A MemoryStore under another process's write lock: while ``locked``, every write waits
    (its Deferred held) until ``unlock``; ``give_up`` fails the writes waiting, as the SQLite
    store does when its busy timeout runs out."""

    def __init__(self, clock=None) -> None:
        super().__init__(clock)
        self.locked = False
        self.held: list[tuple[defer.Deferred, object]] = []

    def __getattribute__(self, name):
        attr = super().__getattribute__(name)
        if name in FaultyStore.WRITES:
            def write(*args, **kw):
                if not self.locked:
                    return attr(*args, **kw)
                d = defer.Deferred()
                self.held.append((d, lambda: attr(*args, **kw)))
                return d
            return write
        return attr

    def give_up(self, count: int) -> None:
        for d, _ in self.held[:count]:
            d.errback(StoreError("database is locked"))
        del self.held[:count]

    def unlock(self) -> None:
        self.locked = False
        held, self.held = self.held, []
        for d, run in held:
            defer.maybeDeferred(run).chainDeferred(d)


def test_a_store_that_cannot_write_stalls_every_table_waiting_for_it(logged):
    """Under a write lock only the table whose write failed was stalled and told; the others,
    their writes waiting for the same store, froze without a word."""
    store = LockedStore()
    hall = make_hall(store=store)
    tables, sinks = [], []
    for i in range(4):
        ann, a = login(hall, f"Ann{i}")
        bob, b = login(hall, f"Bob{i}")
        table = hall.create_table("nim", max_seats=2, creator=ann)
        table.join(bob)
        table.start(ann)
        tables.append(table)
        sinks.append((a, b))
    store.locked = True
    for table in tables[:3]:                                  # three moves wait for the store
        table.act(mover(table), {"take": 1})
    for a, b in sinks:
        a.events.clear(), b.events.clear()
    hall.clock.advance(25)                                    # a 25 s lock...
    store.give_up(1)                                          # ...and the first write gives up
    stalled_notice = {"nickname": "*", "text": STALLED_TEXT, "notice": "stalled"}
    for table, (a, b) in zip(tables[:3], sinks):
        assert table.stalled, table.id
        for sink in (a, b):
            assert (table.id, "chat", stalled_notice) in sink.events
            assert "game" not in sink.names()                 # the waiting move is not told
    assert set(hall.stalled) == {t.id for t in tables[:3]}
    assert "waiting for the store (database is locked)" in tables[1].stall_reason
    assert not tables[3].stalled and not sinks[3][0].events   # nothing waits there: not stalled
    # a move made at the fourth table now waits too: it is stalled once it has waited a while
    tables[3].act(mover(tables[3]), {"take": 1})
    assert not tables[3].stalled
    hall.clock.advance(1)
    assert tables[3].stalled and (tables[3].id, "chat", stalled_notice) in sinks[3][0].events
    # the lock goes: the waiting writes are stored, and every table goes on and says so
    store.unlock()
    hall.clock.advance(1)                                     # the failed write's retry
    resumed = {"nickname": "*", "text": RESUMED_TEXT, "notice": "resumed"}
    for table, (a, b) in zip(tables, sinks):
        assert not table.stalled, table.id
        for sink in (a, b):
            assert (table.id, "chat", resumed) in sink.events
            assert sink.names().count("game") == 1
    assert hall.stalled == {}
    for table in tables:                                      # and the store holds what was played
        assert len(store.load_table(table.store_id).result["actions"]) == table.seq == 1


@pytest.mark.parametrize("hall_store, how", [("sqlite", "locked"), ("postgresql", "stopped"),
                                             ("postgresql", "locked")], indirect=["hall_store"])
def test_the_database_goes_down_tables_stall_tell_their_players_and_go_on_when_it_is_back(
        hall_store, how, logged):
    """A real failure of a real store (another connection holds the write lock past the
    store's lock wait, or the PostgreSQL server is stopped as if killed): every table that
    moves stalls and tells its players, nothing unsaved is told, the retries fail while
    the database is down, and once it is back each table says so and its game goes on to
    the end, the store holding every move told."""
    hall = make_hall(store=hall_store.open(lock_wait=0.2))
    games = []
    for n in range(2):
        ann, a = login(hall, f"Ann{n}")
        bob, b = login(hall, f"Bob{n}", "10.0.0.2")
        table = hall.create_table("nim", max_seats=2, creator=ann)
        table.join(bob)
        table.start(ann)
        table.act(mover(table), {"take": 1})
        games.append((table, a, b))
    flush(*[t for t, _, _ in games])
    assert all(s.names().count("game") == 1 for _, a, b in games for s in (a, b))
    hall_store.go_down(how)
    for table, _, _ in games:
        table.act(mover(table), {"take": 1})
    flush(*[t for t, _, _ in games])
    stalled = {"nickname": "*", "text": STALLED_TEXT, "notice": "stalled"}
    for table, a, b in games:
        assert table.stalled and table.stall_reason, table.id
        assert how != "locked" or "lock" in table.stall_reason
        assert table.seq == 2
        for sink in (a, b):
            assert (table.id, "chat", stalled) in sink.events
            assert sink.names().count("game") == 1       # the unsaved move is not told
        with pytest.raises(TableError, match="paused"):
            table.act(mover(table), {"take": 1})
    assert set(hall.stalled) == {t.id for t, _, _ in games}
    assert len(stall_lines(logged)) == 2
    advance(hall, 2)                                       # retries while it is still down
    assert all(t.stalled for t, _, _ in games)
    hall_store.come_back()
    for _ in range(120):                                   # up to the next retry (30 s apart at most)
        if not hall.stalled:
            break
        advance(hall, 0.5)
    assert hall.stalled == {}
    resumed = {"nickname": "*", "text": RESUMED_TEXT, "notice": "resumed"}
    for table, a, b in games:
        for sink in (a, b):
            assert (table.id, "chat", resumed) in sink.events
            assert sink.names().count("game") == 2       # the saved move, told once
        for _ in range(30):
            if table.state != PLAYING:
                break
            table.act(mover(table), {"take": 1})
            flush(table)
        assert table.state == FINISHED
        stored = settle(hall.store.load_table(table.store_id))
        assert (stored["state"], len(stored["actions"])) == (FINISHED, table.seq)
        assert a.names().count("game") == table.seq
    assert len(recover_lines(logged)) == 2


@pytest.mark.parametrize("hall_store, how", [("sqlite", "locked"), ("postgresql", "stopped")],
                         indirect=["hall_store"])
def test_a_hall_stopped_while_its_table_is_stalled_restarts_as_the_players_saw_it(hall_store, how):
    """The move that could not be saved was told to nobody; the hall is stopped before its
    retry, and the restarted hall (the database back) replays exactly what was told."""
    hall, table, (ann, a), _ = nim_game(hall_store.open(lock_wait=0.2))
    table.act(mover(table), {"take": 2})
    flush(table)
    hall_store.go_down(how)
    table.act(mover(table), {"take": 3})
    flush(table)
    assert table.stalled and table.seq == 2
    told = [d for _, e, d in a.events if e == "game"]
    hall_store.come_back()
    again = make_hall(store=hall_store.restart(hall.store))
    assert settle(again.restore()) == 1
    (new,) = again.tables.values()
    assert new.seq == len(told) == 1
    assert new.engine.pile == told[-1]["events"][-1]["pile"]
