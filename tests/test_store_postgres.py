"""PostgresStore passes the store contract that SQLiteStore passes (tests/test_store.py's
StoreBehaviour, tests/test_restore.py's restore tests), groups its writes, refuses a newer
schema, and survives its server going away: writes fail (the table stalls, nobody is
told) and succeed again once the server is back (the table resumes, the game goes on).

Each test gets a fresh database on the process's throwaway server (tests/pgserver.py);
the tests that stop a server run one of their own."""
from __future__ import annotations


from twisted.internet import defer, reactor, task
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

import tests.test_restore as restore_tests
import tests.test_store as store_tests
from gamehall.hall import Hall
from gamehall.store import StoreError
from gamehall.table import FINISHED, PLAYING
from tests import pgserver
from tests.helpers import RecordingSink, install_example_plugin

SEATS = store_tests.SEATS


def _connect(url):
    import psycopg
    return psycopg.connect(url, autocommit=True)


def _store(url, clock, **kw):
    from gamehall.store.postgres import PostgresStore
    return PostgresStore(url, reactor, clock=clock, **kw)


class PostgresStoreTests(store_tests.StoreBehaviour, TestCase):
    """The same assertions as MemoryStoreTests and SQLiteStoreTests."""

    def make_store(self):
        self.url = pgserver.new_database_url()
        return _store(self.url, self.clock)

    @defer.inlineCallbacks
    def reopen(self, store):
        yield store.close()
        new = _store(self.url, self.clock)
        yield new.open()
        return new

    def break_rating_write(self):
        # fails the events' INSERT, after the ratings' UPDATE in the same transaction
        with _connect(self.url) as conn:
            conn.execute("CREATE FUNCTION gamehall_fail() RETURNS trigger LANGUAGE plpgsql AS"
                         " $$ BEGIN RAISE EXCEPTION 'injected'; END $$")
            conn.execute("CREATE TRIGGER fail_rating BEFORE INSERT ON gamehall_rating_events"
                         " FOR EACH ROW EXECUTE FUNCTION gamehall_fail()")

    def mend_rating_write(self):
        with _connect(self.url) as conn:
            conn.execute("DROP TRIGGER fail_rating ON gamehall_rating_events")

    def test_schema_version(self):
        from gamehall.store.postgres import SCHEMA_VERSION
        with _connect(self.url) as conn:
            self.assertEqual(conn.execute("SELECT version FROM gamehall_schema").fetchall(),
                             [(SCHEMA_VERSION,)])

    @defer.inlineCallbacks
    def test_open_twice_and_second_hall_migrates_nothing(self):
        """A second store on the same database (a restart, another hall) finds the schema."""
        other = _store(self.url, self.clock)
        yield other.open()
        tid = yield self.store.create_table("acquire", "standard", 1, SEATS, {})
        self.assertEqual((yield other.load_table(tid))["seed"], 1)
        yield other.close()

    @defer.inlineCallbacks
    def test_newer_schema_refused(self):
        yield self.store.close()
        with _connect(self.url) as conn:
            conn.execute("UPDATE gamehall_schema SET version = version + 1")
        store = _store(self.url, self.clock)
        err = yield self.assertFailure(store.open(), StoreError)
        self.assertIn("newer", str(err))
        self.assertIsNone(store._threads)        # a failed open leaves nothing running
        yield store.close()

    @defer.inlineCallbacks
    def test_unreachable_server_fails_open_with_one_line(self):
        store = _store(f"postgresql://nobody@127.0.0.1:{pgserver.free_port()}/none", self.clock,
                       connect_timeout=1)
        err = yield self.assertFailure(store.open(), StoreError)
        self.assertIn("cannot connect to the PostgreSQL store", str(err))
        self.assertNotIn("\n", str(err))
        self.assertIsNone(store._threads)

    @defer.inlineCallbacks
    def test_ids_given_by_the_hall_are_never_given_again(self):
        s = self.store
        self.assertEqual((yield s.last_table_id()), 0)
        self.assertEqual((yield s.create_table("et", "basic", 1, SEATS, {}, table_id=7)), 7)
        self.assertEqual((yield s.last_table_id()), 7)
        self.assertEqual((yield s.create_table("et", "basic", 1, SEATS, {}, table_id=7)), 8)
        self.assertEqual((yield s.create_table("et", "basic", 1, SEATS, {})), 9)
        self.assertEqual((yield s.create_table("et", "basic", 1, SEATS, {}, table_id=3)), 3)
        self.assertEqual((yield s.create_table("et", "basic", 1, SEATS, {})), 10)


class PostgresGroupCommitTests(store_tests.GroupCommitBehaviour, TestCase):
    """tests/test_store.py's group commit tests, on PostgreSQL."""

    def make_store(self):
        self.url = pgserver.new_database_url()
        return _store(self.url, self.clock)

    def spoil_finish(self, table_id):
        with _connect(self.url) as conn:
            conn.execute("INSERT INTO gamehall_results VALUES (%s, NULL, NULL, 0)", (table_id,))

    def queue_breaking_write(self):
        def breaks(conn):
            conn.execute("SELECT 1/0")          # a database error: the group's transaction aborts

        return self.store._append_write(breaks)


class TwoHallsRateOnePlayerTests(TestCase):
    """Two halls on one database finish games of the same player at once: the rating rows
    are locked (FOR UPDATE), so the second rates from the first's result, not from the
    rating both read before (a lost update)."""

    @defer.inlineCallbacks
    def test_concurrent_finishes_both_count(self):
        from gamehall.ratings import rated_game, recompute
        url = pgserver.new_database_url()
        clock = Clock()
        clock.advance(1000)
        one, two = _store(url, clock), _store(url, clock)
        yield one.open()
        self.addCleanup(one.close)
        yield two.open()
        self.addCleanup(two.close)
        people = [{"name": n, "kind": "human", "bot": None, "registered": True} for n in ("Ann", "Bob", "Cy")]
        first = {"scores": [9, 1], "winners": [0]}
        tid = yield one.create_table("acquire", "classic", 1, people[:2], {})
        yield one.update_table(tid, state="playing")
        yield one.finish_table(tid, "finished", first, None,
                               rated_game("acquire", "classic", people[:2], first))
        tables = []
        for store, pair in ((one, [people[0], people[1]]), (two, [people[0], people[2]])):
            t = yield store.create_table("acquire", "classic", 1, pair, {})
            yield store.update_table(t, state="playing")
            tables.append(t)
        # Another transaction holds Ann's row while both halls finish a game of hers.
        holder = _connect(url)
        self.addCleanup(holder.close)
        holder.execute("BEGIN")
        holder.execute("SELECT * FROM gamehall_ratings WHERE player = 'ann' FOR UPDATE")
        won = {"scores": [1, 9], "winners": [1]}
        finishes = [one.finish_table(tables[0], "finished", won, None,
                                     rated_game("acquire", "classic", [people[0], people[1]], won)),
                    two.finish_table(tables[1], "finished", won, None,
                                     rated_game("acquire", "classic", [people[0], people[2]], won))]
        watcher = _connect(url)
        self.addCleanup(watcher.close)
        for _ in range(1000):           # until both halls wait (on the lock, or with a lost update, later)
            waiting = watcher.execute(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'").fetchone()[0]
            if waiting >= 2 or any(d.called for d in finishes):
                break
            yield task.deferLater(reactor, 0.01, lambda: None)
        holder.execute("COMMIT")
        yield defer.gatherResults(finishes)
        ann = [r for r in (yield one.standings("acquire/classic/2p")) if r["player"] == "ann"][0]
        self.assertEqual(ann["games"], 3)
        history = yield one.rating_history("ann")
        order = [h["table_id"] for h in history]
        self.assertEqual(sorted(order[1:]), sorted(tables))
        opponent = {tables[0]: "bob", tables[1]: "cy"}
        want = recompute([("k", ["ann", "bob"], [1, 2])] +
                         [("k", ["ann", opponent[t]], [2, 1]) for t in order[1:]])["k"]["ann"]
        self.assertAlmostEqual(ann["mu"], want.mu, places=9)
        self.assertAlmostEqual(ann["sigma"], want.sigma, places=9)


class PostgresRestoreTests(restore_tests.SQLiteRestoreTests):
    """tests/test_restore.py's restart tests, on PostgreSQL."""

    def new_store(self, path, clock):
        if not hasattr(self, "url"):
            self.url = pgserver.new_database_url()
        return _store(self.url, clock)

    def spoil(self, path, table, column, value, table_id):
        key = "id" if table == "tables" else "table_id"
        with _connect(self.url) as conn:
            conn.execute(f"UPDATE gamehall_{table} SET {column} = %s WHERE {key} = %s", (value, table_id))


class ServerGoesAwayTests(TestCase):
    """A real failure: the server is stopped as if killed, then started again."""

    def setUp(self):
        self.server = pgserver.PrivateServer()
        self.addCleanup(self.server.remove)
        self.server.start()
        self.url = self.server.new_database()

    @defer.inlineCallbacks
    def test_writes_fail_while_the_server_is_down_and_succeed_when_it_is_back(self):
        store = _store(self.url, Clock(), connect_timeout=1)
        yield store.open()
        self.addCleanup(store.close)
        tid = yield store.create_table("acquire", "standard", 1, SEATS, {})
        yield store.append_action(tid, 0, 0, {"n": 0})
        self.server.stop("immediate")
        err = yield self.assertFailure(store.append_action(tid, 1, 0, {"n": 1}), StoreError)
        self.assertIn("database error", str(err))
        self.assertNotIn("\n", str(err))
        yield self.assertFailure(store.load_table(tid), StoreError)
        self.server.start()
        for attempt in range(20):               # as a stalled table retries the same write
            try:
                yield store.append_action(tid, 1, 0, {"n": 1})
                break
            except StoreError:
                continue
        else:
            self.fail("the store did not come back with the server")
        self.assertLessEqual(attempt, 3)
        t = yield store.load_table(tid)
        self.assertEqual(t["actions"], [(0, {"n": 0}), (0, {"n": 1})])

    @defer.inlineCallbacks
    def test_the_table_stalls_and_plays_on_when_the_server_is_back(self):
        install_example_plugin()
        from twisted.plugins.gamehall_nim_plugin import nim
        clock = Clock()
        store = _store(self.url, clock, connect_timeout=1)
        yield store.open()
        self.addCleanup(store.close)
        hall = Hall(clock, store, {"nim": nim}, seat_hold=30.0, bot_delay=0.0)
        sinks = [RecordingSink(), RecordingSink()]
        ann = hall.login("Ann", "nim", sinks[0], "10.0.0.1")
        bob = hall.login("Bob", "nim", sinks[1], "10.0.0.2")
        table = hall.create_table("nim", max_seats=2, creator=ann)
        table.join(bob)
        table.start(ann)

        def mover():
            return table.seats[table.engine.pending_seat()].user

        def told():
            return sinks[0].names().count("game")

        table.act(mover(), {"take": 1})
        yield table.flush()
        self.assertEqual(told(), 1)
        self.server.stop("immediate")
        table.act(mover(), {"take": 1})
        yield table.flush()                     # fires once the write has failed
        self.assertTrue(table.stalled)
        self.assertIn("database error", table.stall_reason)
        self.assertEqual((told(), table.seq), (1, 2))      # applied, neither stored nor told
        clock.advance(1)                        # a retry while the server is still down
        yield store.stats().addErrback(lambda _: None)      # (the store runs calls in order)
        self.assertTrue(table.stalled)
        self.server.start()
        for _ in range(20):
            if not table.stalled:
                break
            for _ in range(60):                 # up to the next retry (at most 30 s apart)
                clock.advance(0.5)
                if not table.writes.retry_due:
                    break
            yield store.stats().addErrback(lambda _: None)
        self.assertFalse(table.stalled)
        self.assertEqual(told(), 2)
        for _ in range(100):
            if table.state != PLAYING:
                break
            table.act(mover(), {"take": 1})
            yield table.flush()
        self.assertEqual(table.state, FINISHED)
        clock.advance(0)
        yield table.flush()
        stored = yield store.load_table(table.store_id)
        self.assertEqual((stored["state"], len(stored["actions"])), (FINISHED, table.seq))
