"""Table leases and fenced writes (gamehall.store.leases): the same behaviour on the memory,
SQLite and PostgreSQL stores.

Expiry is driven by a task.Clock: the memory and SQLite stores judge leases by their
clock, the PostgreSQL store by the ``lease_clock`` it is given here (by the server's
clock otherwise: ``PostgresServerClockTests``)."""
from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import threading

from twisted.internet import defer, reactor, task, threads
from twisted.trial.unittest import TestCase
from zope.interface.verify import verifyObject

from gamehall.store import ILeaseStore, MemoryStore, SQLiteStore, StoreError, StoreFenced
from tests import pgserver
from tests.helpers import hold_store_thread

SEATS = [{"name": "alice", "kind": "human", "bot": None}, {"name": "Bot", "kind": "bot", "bot": "b"}]
TTL = 30.0


def temp_path(case: TestCase) -> str:
    """A new file name in a directory of its own, removed after the test (not trial's
    mktemp, which writes under the working directory when run by pytest)."""
    folder = tempfile.mkdtemp(prefix="gamehall-leases-")
    case.addCleanup(shutil.rmtree, folder, ignore_errors=True)
    return os.path.join(folder, "store.sqlite")


class LeaseBehaviour:
    """What every ILeaseStore does.  Subclasses provide ``make_store()`` (a store whose
    leases expire by ``self.clock``)."""

    @defer.inlineCallbacks
    def setUp(self):
        self.clock = task.Clock()
        self.clock.advance(1000)
        self.store = self.make_store()
        yield self.store.open()
        self.addCleanup(lambda: self.store.close())

    @defer.inlineCallbacks
    def playing(self, lease=None):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {}, lease=lease)
        yield s.update_table(tid, state="playing")
        return tid

    def test_provides_interface(self):
        self.assertTrue(verifyObject(ILeaseStore, self.store))

    @defer.inlineCallbacks
    def test_take_renew_expire_and_take_over(self):
        s = self.store
        tid = yield self.playing()
        self.assertEqual((yield s.lapsed_tables()), [tid])          # no lease yet
        self.assertEqual((yield s.take_lease(tid, "a", TTL)), 1)
        self.assertEqual((yield s.lapsed_tables()), [])
        self.assertIsNone((yield s.take_lease(tid, "b", TTL)))      # a holds it
        self.assertEqual((yield s.take_lease(tid, "a", TTL)), 1)    # a renews: same epoch
        self.clock.advance(TTL - 1)
        self.assertIsNone((yield s.take_lease(tid, "b", TTL)))      # renewed above: not expired
        self.assertEqual((yield s.renew_leases("a", {tid: 1}, TTL)), [tid])
        self.clock.advance(TTL - 1)
        self.assertEqual((yield s.lapsed_tables()), [])
        self.clock.advance(1)                                       # expired now
        self.assertEqual((yield s.lapsed_tables()), [tid])
        self.assertEqual((yield s.take_lease(tid, "b", TTL)), 2)    # changes hands: epoch + 1
        self.assertEqual((yield s.renew_leases("a", {tid: 1}, TTL)), [])
        self.assertIsNone((yield s.take_lease(tid, "a", TTL)))
        self.assertFalse((yield s.release_lease(tid, "a", 1)))      # not a's to release

    @defer.inlineCallbacks
    def test_an_owner_whose_lease_expired_takes_it_at_a_new_epoch(self):
        s = self.store
        tid = yield self.playing(lease=("a", TTL))
        self.clock.advance(TTL)
        self.assertEqual((yield s.take_lease(tid, "a", TTL)), 2)
        yield self.assertFailure(s.append_action(tid, 0, 0, {}, epoch=1), StoreFenced)
        yield s.append_action(tid, 0, 0, {}, epoch=2)

    @defer.inlineCallbacks
    def test_an_expired_lease_nobody_took_is_renewed(self):
        s = self.store
        tid = yield self.playing(lease=("a", TTL))
        self.clock.advance(TTL + 5)
        self.assertEqual((yield s.renew_leases("a", {tid: 1}, TTL)), [tid])
        self.assertIsNone((yield s.take_lease(tid, "b", TTL)))

    @defer.inlineCallbacks
    def test_create_table_with_its_lease_held(self):
        s = self.store
        tid = yield self.playing(lease=("a", TTL))
        self.assertIsNone((yield s.take_lease(tid, "b", TTL)))
        self.assertEqual((yield s.lapsed_tables()), [])
        yield s.append_action(tid, 0, 0, {"x": 1}, epoch=1)
        self.clock.advance(TTL)
        self.assertEqual((yield s.lapsed_tables()), [tid])

    @defer.inlineCallbacks
    def test_release_frees_the_lease_at_once(self):
        s = self.store
        tid = yield self.playing(lease=("a", TTL))
        self.assertFalse((yield s.release_lease(tid, "a", 2)))      # wrong epoch: kept
        self.assertIsNone((yield s.take_lease(tid, "b", TTL)))
        self.assertTrue((yield s.release_lease(tid, "a", 1)))
        self.assertEqual((yield s.lapsed_tables()), [tid])
        self.assertEqual((yield s.take_lease(tid, "b", TTL)), 2)
        self.assertEqual((yield s.renew_leases("a", {tid: 1}, TTL)), [])

    @defer.inlineCallbacks
    def test_renew_many_in_one_call_keeps_only_those_still_held(self):
        s = self.store
        tids = []
        for _ in range(5):
            tids.append((yield self.playing(lease=("a", TTL))))
        yield s.release_lease(tids[1], "a", 1)
        yield s.take_lease(tids[1], "b", TTL)                       # b's now
        yield s.finish_table(tids[2], "finished", None, None)       # not live
        held = {tid: 1 for tid in tids}
        held[tids[3]] = 7                                           # a stale epoch
        self.clock.advance(TTL - 1)
        self.assertEqual((yield s.renew_leases("a", held, TTL)), [tids[0], tids[4]])
        self.clock.advance(2)    # a's renewed ones hold; b's (not renewed) and the stale one lapse
        self.assertEqual((yield s.lapsed_tables()), [tids[1], tids[3]])
        self.assertEqual((yield s.renew_leases("a", {}, TTL)), [])

    @defer.inlineCallbacks
    def test_lapsed_tables_are_live_ones_only_and_limited(self):
        s = self.store
        tids = []
        for _ in range(4):
            tids.append((yield self.playing()))
        yield s.finish_table(tids[0], "aborted", None, None)
        waiting = yield s.create_table("et", "basic", 2, SEATS, {})
        self.assertEqual((yield s.lapsed_tables()), tids[1:] + [waiting])
        self.assertEqual((yield s.lapsed_tables(limit=2)), tids[1:3])
        self.assertIsNone((yield s.take_lease(tids[0], "a", TTL)))   # a finished table
        self.assertIsNone((yield s.take_lease(9999, "a", TTL)))      # no such table

    @defer.inlineCallbacks
    def test_two_owners_racing_one_wins(self):
        s = self.store
        tid = yield self.playing()
        got = yield defer.gatherResults([s.take_lease(tid, owner, TTL) for owner in "abcd"])
        self.assertEqual(sorted(got, key=lambda e: e or 0), [None, None, None, 1])

    @defer.inlineCallbacks
    def test_fenced_writes_are_refused_and_write_nothing(self):
        s = self.store
        tid = yield self.playing(lease=("a", TTL))
        yield s.append_action(tid, 0, 0, {"n": 0}, epoch=1)
        self.clock.advance(TTL)
        self.assertEqual((yield s.take_lease(tid, "b", TTL)), 2)
        before = yield s.load_table(tid)
        err = yield self.assertFailure(s.append_action(tid, 1, 0, {"n": 1}, epoch=1), StoreFenced)
        self.assertEqual(str(err), f"table {tid} is run by another process now")
        self.assertIsInstance(err, StoreError)
        yield self.assertFailure(s.update_table(tid, seats=SEATS[:1], epoch=1), StoreFenced)
        yield self.assertFailure(s.finish_table(tid, "finished", {"w": 1}, None, epoch=1), StoreFenced)
        self.assertEqual((yield s.load_table(tid)), before)
        # the holder writes; a write without an epoch (one process) is not checked
        yield s.append_action(tid, 1, 1, {"n": 1}, epoch=2)
        yield s.append_action(tid, 2, 1, {"n": 2})
        yield s.finish_table(tid, "finished", {"w": 1}, None, epoch=2)
        self.assertEqual(len((yield s.load_table(tid))["actions"]), 3)

    @defer.inlineCallbacks
    def test_bad_arguments_refused(self):
        s = self.store
        tid = yield self.playing()
        for bad in (s.take_lease(tid, "", TTL), s.take_lease(tid, "a", 0),
                    s.take_lease(tid, None, TTL), s.renew_leases("a", [tid], TTL),
                    s.renew_leases("a", {tid: "1"}, TTL), s.release_lease(tid, "a", None),
                    s.lapsed_tables("3"), s.append_action(tid, 0, 0, {}, epoch="1"),
                    s.create_table("acquire", "standard", 1, SEATS, {}, lease=("a", -1)),
                    s.create_table("acquire", "standard", 1, SEATS, {}, lease="a")):
            yield self.assertFailure(bad, StoreError)


class TwoProcessesBehaviour:
    """Two stores on one database (two processes of a hall): of two takes of one lease at
    the same moment, exactly one wins.  ``second_store()``: another store on the same data."""

    @defer.inlineCallbacks
    def test_two_processes_racing_for_many_tables_one_wins_each(self):
        other = self.second_store()
        yield other.open()
        self.addCleanup(other.close)
        tids = []
        for _ in range(40):
            tids.append((yield self.playing()))
        mine = [self.store.take_lease(tid, "a", TTL) for tid in tids]
        theirs = [other.take_lease(tid, "b", TTL) for tid in tids]
        mine, theirs = yield defer.gatherResults([defer.gatherResults(mine), defer.gatherResults(theirs)])
        for a, b in zip(mine, theirs):
            self.assertEqual(sorted([a, b], key=lambda e: e or 0), [None, 1])
        held_a = {tid: 1 for tid, a in zip(tids, mine) if a}
        held_b = {tid: 1 for tid, b in zip(tids, theirs) if b}
        self.assertEqual((yield self.store.renew_leases("a", {tid: 1 for tid in tids}, TTL)), sorted(held_a))
        self.assertEqual((yield other.renew_leases("b", {tid: 1 for tid in tids}, TTL)), sorted(held_b))


class MemoryLeaseTests(LeaseBehaviour, TestCase):
    def make_store(self):
        return MemoryStore(clock=self.clock)


class SQLiteLeaseTests(LeaseBehaviour, TwoProcessesBehaviour, TestCase):
    def make_store(self):
        self.path = temp_path(self)
        return SQLiteStore(self.path, reactor, clock=self.clock)

    def second_store(self):
        return SQLiteStore(self.path, reactor, clock=self.clock)


def _pg_store(url, clock, **kw):
    from gamehall.store.postgres import PostgresStore
    return PostgresStore(url, reactor, clock=clock, **kw)


class PostgresLeaseTests(LeaseBehaviour, TwoProcessesBehaviour, TestCase):
    def make_store(self):
        self.url = pgserver.new_database_url()
        return _pg_store(self.url, self.clock, lease_clock=self.clock)

    def second_store(self):
        return _pg_store(self.url, self.clock, lease_clock=self.clock)

    @defer.inlineCallbacks
    def test_a_fenced_append_in_flight_holds_a_takeover_until_it_commits(self):
        """The fenced append's one statement locks the table row until its commit: another
        process's take waits for it (then loads that action), never slips in between the
        check and the insert."""
        import psycopg

        from gamehall.store.postgres import _APPEND_FENCED
        s = self.store
        tid = yield self.playing(lease=("a", TTL))
        gate, entered = threading.Event(), threading.Event()

        def append_then_wait(conn):      # the store's own statement, then no commit yet
            self.assertIsNotNone(conn.execute(_APPEND_FENCED, (0, 0, "{}", tid, 1, tid, 0)).fetchone())
            entered.set()
            gate.wait(10)

        d = s._write(append_then_wait)
        self.addCleanup(gate.set)
        self.assertTrue((yield threads.deferToThread(entered.wait, 10)))

        def take():
            with psycopg.connect(self.url, autocommit=True) as conn:
                conn.execute("SET lock_timeout = '300ms'")
                try:
                    conn.execute("UPDATE gamehall_tables SET lease_owner = 'b',"
                                 " lease_epoch = lease_epoch + 1 WHERE id = %s", (tid,))
                except psycopg.errors.LockNotAvailable:
                    return "waited"
                return "took it"

        self.assertEqual((yield threads.deferToThread(take)), "waited")
        gate.set()
        yield d
        self.assertEqual((yield s.load_table(tid))["actions"], [(0, {})])


class PostgresServerClockTests(TestCase):
    """Without a lease_clock, the PostgreSQL store judges expiry by the server's clock,
    not the hall's (whose clock here says 1970)."""

    @defer.inlineCallbacks
    def test_expiry_is_judged_by_the_database_clock(self):
        import psycopg
        clock = task.Clock()
        url = pgserver.new_database_url()
        s = _pg_store(url, clock)
        yield s.open()
        self.addCleanup(s.close)
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {}, lease=("a", TTL))
        yield s.update_table(tid, state="playing")
        with psycopg.connect(url, autocommit=True) as conn:
            expires, server_now = conn.execute(
                "SELECT lease_expires, extract(epoch FROM clock_timestamp())::float8"
                " FROM gamehall_tables WHERE id = %s", (tid,)).fetchone()
        self.assertTrue(TTL - 5 < expires - server_now <= TTL, expires - server_now)
        self.assertIsNone((yield s.take_lease(tid, "b", TTL)))
        self.assertEqual((yield s.lapsed_tables()), [])
        with psycopg.connect(url, autocommit=True) as conn:      # as if TTL had passed
            conn.execute("UPDATE gamehall_tables SET lease_expires = lease_expires - %s", (TTL + 1,))
        self.assertEqual((yield s.lapsed_tables()), [tid])
        self.assertEqual((yield s.take_lease(tid, "b", TTL)), 2)


class GroupFencingBehaviour:
    """In a group commit, only the fenced write fails; the others commit together."""

    @defer.inlineCallbacks
    def test_one_fenced_write_in_a_group_fails_alone(self):
        s = self.store
        mine = yield s.create_table("acquire", "standard", 1, SEATS, {}, lease=("a", TTL))
        lost = yield s.create_table("acquire", "standard", 2, SEATS, {}, lease=("a", TTL))
        for tid in (mine, lost):
            yield s.update_table(tid, state="playing", epoch=1)
        self.clock.advance(TTL)
        self.assertEqual((yield s.renew_leases("a", {mine: 1}, TTL)), [mine])
        self.assertEqual((yield s.take_lease(lost, "b", TTL)), 2)

        release = hold_store_thread(self, s)
        before = s.commits
        ds = [
            s.append_action(mine, 0, 0, {"a": 0}, epoch=1),
            s.append_action(lost, 0, 0, {"x": 0}, epoch=1),          # fenced
            s.update_table(lost, seats=SEATS[:1], epoch=1),          # fenced
            s.append_action(mine, 1, 1, {"a": 1}, epoch=1),
            s.finish_table(lost, "aborted", None, None, epoch=1),    # fenced
            s.append_action(lost, 0, 1, {"b": 0}, epoch=2),          # b's, in the same group
            s.finish_table(mine, "finished", {"w": 0}, None, epoch=1),
        ]
        release()
        results = yield defer.DeferredList(ds, consumeErrors=True)
        self.assertEqual(s.commits - before, 1)
        self.assertEqual([ok for ok, _ in results], [True, False, False, True, False, True, True])
        for ok, value in results:
            if not ok:
                value.trap(StoreFenced)
        t = yield s.load_table(mine)
        self.assertEqual((t["state"], t["actions"]), ("finished", [(0, {"a": 0}), (1, {"a": 1})]))
        t = yield s.load_table(lost)
        self.assertEqual((t["state"], t["seats"], t["actions"]), ("playing", SEATS, [(1, {"b": 0})]))


class SQLiteGroupFencingTests(GroupFencingBehaviour, TestCase):
    @defer.inlineCallbacks
    def setUp(self):
        self.clock = task.Clock()
        self.clock.advance(1000)
        self.store = SQLiteStore(temp_path(self), reactor, clock=self.clock)
        yield self.store.open()
        self.addCleanup(self.store.close)


class PostgresGroupFencingTests(GroupFencingBehaviour, TestCase):
    @defer.inlineCallbacks
    def setUp(self):
        self.clock = task.Clock()
        self.clock.advance(1000)
        self.store = _pg_store(pgserver.new_database_url(), self.clock, lease_clock=self.clock)
        yield self.store.open()
        self.addCleanup(self.store.close)


class SQLiteLeaseMigrationTests(TestCase):
    def test_a_version_3_file_gains_the_lease_columns(self):
        from gamehall.store.sqlite_file import MIGRATIONS, migrate
        path = temp_path(self)
        conn = sqlite3.connect(path, isolation_level=None)
        for version, step in enumerate(MIGRATIONS[:3]):
            step(conn)
        conn.execute("PRAGMA user_version = 3")
        conn.execute("INSERT INTO tables (game, variant, seed, options, seats, state, created, updated)"
                     " VALUES ('acquire', 'standard', 1, '{}', '[]', 'playing', 0, 0)")
        self.assertEqual(migrate(conn), len(MIGRATIONS))
        self.assertEqual(conn.execute("SELECT lease_owner, lease_epoch, lease_expires FROM tables").fetchall(),
                         [(None, 0, None)])
        conn.close()


class SQLiteRenewPlanTests(TestCase):
    def test_renewal_looks_each_lease_up_by_id(self):
        """Not one scan of the leases per live table (the state index would make the
        renewal of n leases cost n * n)."""
        from gamehall.store.sqlite_file import migrate
        conn = sqlite3.connect(temp_path(self), isolation_level=None)
        migrate(conn)
        store = SQLiteStore(":memory:")
        plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + store._renew_sql("?"),
                                               (TTL, 0.0, "{}", "a"))]
        conn.close()
        self.assertIn("SEARCH tables USING INTEGER PRIMARY KEY (rowid=?)", plan)
