"""Tests for gamehall.store: both IStore implementations behave alike; SQLite persists."""
from __future__ import annotations

import os
import select
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

from twisted.internet import defer, reactor, task, threads
from twisted.trial.unittest import TestCase
from zope.interface.verify import verifyObject

from gamehall.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    IPlayerStore,
    IStore,
    MemoryStore,
    SQLiteStore,
    StoreError,
)

SEATS = [
    {"name": "alice", "kind": "human", "bot": None},
    {"name": "Bot 1", "kind": "bot", "bot": "greedy"},
    {"name": "", "kind": "empty", "bot": None},
]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class StoreBehaviour:
    """Behaviour every IStore must show.  Subclasses provide make_store/reopen."""

    def make_store(self):
        raise NotImplementedError

    def reopen(self, store):
        """Close ``store`` and fire with a store reading the same data."""
        raise NotImplementedError

    @defer.inlineCallbacks
    def setUp(self):
        self.clock = task.Clock()
        self.clock.advance(1000)
        self.store = self.make_store()
        yield self.store.open()
        self.addCleanup(lambda: self.store.close())

    def test_provides_interface(self):
        self.assertTrue(verifyObject(IStore, self.store))

    @defer.inlineCallbacks
    def test_round_trip(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 42, SEATS, {"timer": 30})
        other = yield s.create_table("et", "basic", 7, SEATS[:2], {})
        self.assertNotEqual(tid, other)
        self.clock.advance(5)
        yield s.update_table(tid, state="playing", seats=SEATS[:2])
        yield s.append_action(tid, 0, 0, {"play_tile": "2D"})
        yield s.append_action(tid, 1, 1, {"buy": ["Tower", "Tower"]})
        yield s.append_action(other, 0, 1, {"say": "hi"})

        unfinished = yield s.load_unfinished()
        self.assertEqual([t["id"] for t in unfinished], [tid, other])
        t = unfinished[0]
        self.assertEqual(
            {k: t[k] for k in ("game", "variant", "seed", "options", "seats", "state")},
            {"game": "acquire", "variant": "standard", "seed": 42,
             "options": {"timer": 30}, "seats": SEATS[:2], "state": "playing"},
        )
        self.assertEqual(
            [tuple(a) for a in t["actions"]],
            [(0, {"play_tile": "2D"}), (1, {"buy": ["Tower", "Tower"]})],
        )
        self.assertEqual((t["created"], t["updated"]), (1000, 1005))
        self.assertEqual(unfinished[1]["state"], "waiting")
        self.assertEqual([tuple(a) for a in unfinished[1]["actions"]], [(1, {"say": "hi"})])

        loaded = yield s.load_table(tid)
        self.assertEqual(loaded["actions"], t["actions"])
        self.assertIsNone(loaded["result"])
        self.assertIsNone(loaded["record"])
        self.assertIsNone((yield s.load_table(9999)))

    @defer.inlineCallbacks
    def test_stored_values_are_copies(self):
        """Mutating a dict after handing it over must not change what was stored."""
        s = self.store
        seats = [dict(seat) for seat in SEATS]
        action = {"play_tile": "1A"}
        tid = yield s.create_table("acquire", "standard", 1, seats, {})
        d = s.append_action(tid, 0, 0, action)
        action["play_tile"] = "9I"
        seats[0]["name"] = "mallory"
        yield d
        t = yield s.load_table(tid)
        self.assertEqual(t["actions"][0][1], {"play_tile": "1A"})
        self.assertEqual(t["seats"][0]["name"], "alice")

    @defer.inlineCallbacks
    def test_many_appends_fired_without_waiting_keep_order(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 3, SEATS, {})
        n = 300
        yield defer.gatherResults(
            [s.append_action(tid, i, i % 3, {"n": i}) for i in range(n)], consumeErrors=True
        )
        t = yield s.load_table(tid)
        self.assertEqual([tuple(a) for a in t["actions"]], [(i % 3, {"n": i}) for i in range(n)])
        self.assertEqual((yield s.stats())["actions"], n)

    @defer.inlineCallbacks
    def test_seq_gap_and_duplicate_refused(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 3, SEATS, {})
        yield self.assertFailure(s.append_action(tid, 1, 0, {"a": 1}), StoreError)  # gap at 0
        yield s.append_action(tid, 0, 0, {"a": 0})
        yield self.assertFailure(s.append_action(tid, 0, 0, {"a": 9}), StoreError)  # another action
        yield self.assertFailure(s.append_action(tid, 0, 1, {"a": 0}), StoreError)  # another seat
        yield s.append_action(tid, 0, 0, {"a": 0})  # the same row again: a retry, counts as done
        yield self.assertFailure(s.append_action(tid, 2, 0, {"a": 2}), StoreError)  # gap
        yield s.append_action(tid, 1, 1, {"a": 1})  # still accepts the right one
        t = yield s.load_table(tid)
        self.assertEqual([tuple(a) for a in t["actions"]], [(0, {"a": 0}), (1, {"a": 1})])

    @defer.inlineCallbacks
    def test_refusals(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 3, SEATS, {})
        bad = [
            s.append_action(12345, 0, 0, {}),  # no such table
            s.update_table(12345, state="playing"),
            s.finish_table(12345, "finished", None, None),
            s.update_table(tid, state="finished"),  # terminal states via finish_table
            s.finish_table(tid, "playing", None, None),
            s.append_action(tid, 0, 0, {"x": object()}),  # not JSON
            s.append_action(tid, 0, 0, ["not", "a", "dict"]),
            s.create_table("acquire", "standard", 1, [{"name": "x", "kind": "robot"}], {}),
            s.create_table("acquire", "standard", "seed", SEATS, {}),
        ]
        for d in bad:
            yield self.assertFailure(d, StoreError)
        self.assertEqual((yield s.load_table(tid))["actions"], [])

    @defer.inlineCallbacks
    def test_closed_store_refuses(self):
        yield self.store.close()
        yield self.assertFailure(self.store.load_unfinished(), StoreError)
        yield self.assertFailure(
            self.store.create_table("acquire", "standard", 1, SEATS, {}), StoreError
        )
        yield self.store.close()  # idempotent

    @defer.inlineCallbacks
    def test_finish_and_history(self):
        s = self.store
        a = yield s.create_table("acquire", "standard", 1, SEATS, {})
        b = yield s.create_table("acquire", "tournament", 2, SEATS, {})
        c = yield s.create_table("et", "basic", 3, SEATS, {})
        d = yield s.create_table("acquire", "standard", 4, SEATS, {})
        yield s.update_table(a, state="playing")
        yield s.append_action(a, 0, 0, {"play_tile": "5E"})
        result_a = {"scores": [6000, 5000, 0], "winners": [0], "reason": "end declared"}
        record_a = {"events": [["play", 0, "5E"]], "players": ["alice", "Bot 1", ""]}
        self.clock.advance(10)
        yield s.finish_table(a, "finished", result_a, record_a)
        self.clock.advance(10)
        yield s.finish_table(c, "finished", {"winners": [1]}, None)
        self.clock.advance(10)
        yield s.finish_table(b, "finished", {"winners": [2]}, {"r": "b"})
        yield s.finish_table(d, "aborted", None, None)

        games = yield s.finished_games()
        self.assertEqual([g["id"] for g in games], [b, c, a])  # newest first, no aborted
        self.assertEqual(games[2], {
            "id": a, "game": "acquire", "variant": "standard", "seats": SEATS,
            "result": result_a, "finished": 1010,
        })
        self.assertEqual([g["id"] for g in (yield s.finished_games("acquire"))], [b, a])
        self.assertEqual([g["id"] for g in (yield s.finished_games(limit=1))], [b])
        self.assertEqual((yield s.finished_games("chess")), [])

        self.assertEqual((yield s.get_record(a)), record_a)
        self.assertIsNone((yield s.get_record(c)))  # result but no record
        self.assertIsNone((yield s.get_record(d)))
        loaded = yield s.load_table(a)
        self.assertEqual(loaded["state"], "finished")
        self.assertEqual((loaded["result"], loaded["record"]), (result_a, record_a))
        self.assertEqual([tuple(x) for x in loaded["actions"]], [(0, {"play_tile": "5E"})])
        self.assertEqual((yield s.load_table(d))["state"], "aborted")

        self.assertEqual((yield s.load_unfinished()), [])
        self.assertEqual(
            (yield s.stats()),
            {"tables": {"waiting": 0, "playing": 0, "finished": 3, "aborted": 1}, "actions": 1},
        )
        # A finished table is immutable: its log is what a review replays.
        yield self.assertFailure(s.append_action(a, 1, 0, {}), StoreError)
        yield self.assertFailure(s.finish_table(a, "aborted", None, None), StoreError)
        yield self.assertFailure(s.update_table(a, seats=SEATS[:1]), StoreError)

    @defer.inlineCallbacks
    def test_reopen_keeps_everything(self):
        s = self.store
        live = yield s.create_table("acquire", "standard", 11, SEATS, {"o": 1})
        done = yield s.create_table("acquire", "standard", 12, SEATS, {})
        yield s.update_table(live, state="playing")
        for i in range(5):
            yield s.append_action(live, i, i % 2, {"i": i})
        yield s.append_action(done, 0, 0, {"i": 0})
        yield s.finish_table(done, "finished", {"winners": [0]}, {"log": [1, 2]})
        before = (yield s.load_unfinished()), (yield s.load_table(done)), (yield s.stats())

        self.store = yield self.reopen(s)
        s = self.store
        after = (yield s.load_unfinished()), (yield s.load_table(done)), (yield s.stats())
        self.assertEqual(after, before)
        # The sequence carries on where it stopped, and ids are not reused.
        yield s.append_action(live, 5, 0, {"i": 5})
        yield self.assertFailure(s.append_action(live, 5, 1, {"i": 5}), StoreError)
        self.assertGreater((yield s.create_table("et", "basic", 1, SEATS, {})), done)


    @defer.inlineCallbacks
    def test_close_runs_queued_writes_first(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        appends = [s.append_action(tid, i, 0, {"i": i}) for i in range(50)]
        closed = [s.close(), s.close()]
        yield self.assertFailure(s.append_action(tid, 50, 0, {}), StoreError)
        yield defer.gatherResults(appends + closed, consumeErrors=True)
        self.store = yield self.reopen(s)
        self.assertEqual(len((yield self.store.load_table(tid))["actions"]), 50)

    @defer.inlineCallbacks
    def test_settings_are_kept_replaced_and_survive_a_reopen(self):
        s = self.store
        self.assertEqual((yield s.load_settings()), {})
        value = {"games": 3, "fill_bot": "strong"}
        d = s.save_setting("windward", value)
        value["games"] = 9                      # a copy was kept
        yield d
        yield s.save_setting("hall", {"last_table": 4})
        yield s.save_setting("hall", {"last_table": 7})
        want = {"windward": {"games": 3, "fill_bot": "strong"}, "hall": {"last_table": 7}}
        self.assertEqual((yield s.load_settings()), want)
        yield self.assertFailure(s.save_setting("", {}), StoreError)
        yield self.assertFailure(s.save_setting(3, {}), StoreError)
        yield self.assertFailure(s.save_setting("x", [1]), StoreError)
        yield self.assertFailure(s.save_setting("x", {"f": object()}), StoreError)
        self.store = yield self.reopen(s)
        self.assertEqual((yield self.store.load_settings()), want)

    # -- registered players (IPlayerStore) ----------------------------------------

    @defer.inlineCallbacks
    def test_players_registered_keyed_changed_revoked_reset_and_kept(self):
        s = self.store
        self.assertTrue(verifyObject(IPlayerStore, s))
        self.assertEqual((yield s.load_players()), [])
        created = yield s.register_player("Alice", "alice", "$argon2id$one")
        self.assertEqual(created, 1000)
        yield self.assertFailure(s.register_player("ALICE", "alice", "$argon2id$two"), StoreError)
        self.clock.advance(5)
        yield s.register_player("bob", "bob", "$argon2id$bob")
        self.assertEqual((yield s.add_key("alice", "h1", "laptop")), 1005)
        self.clock.advance(1)
        yield s.add_key("alice", "h2", None)
        yield self.assertFailure(s.add_key("alice", "h1", "again"), StoreError)     # a hash is kept once
        yield self.assertFailure(s.add_key("carol", "h3", None), StoreError)       # nobody registered
        yield s.key_used("h1", 1010.5)
        self.clock.advance(4)
        yield s.set_password("alice", "$argon2id$new")
        yield self.assertFailure(s.set_password("carol", "$argon2id$x"), StoreError)
        self.assertEqual((yield s.revoke_key("alice", "h2")), 1010)
        yield self.assertFailure(s.revoke_key("alice", "h2"), StoreError)          # revoked already
        yield self.assertFailure(s.revoke_key("bob", "h1"), StoreError)            # not bob's
        yield self.assertFailure(s.register_player("", "", "x"), StoreError)
        yield self.assertFailure(s.add_key("alice", "h9", 3), StoreError)
        want = [
            {"name": "Alice", "name_key": "alice", "password_hash": "$argon2id$new", "created": 1000,
             "updated": 1010, "keys": [
                 {"key_hash": "h1", "label": "laptop", "created": 1005, "last_used": 1010.5, "revoked": None},
                 {"key_hash": "h2", "label": None, "created": 1006, "last_used": None, "revoked": 1010}]},
            {"name": "bob", "name_key": "bob", "password_hash": "$argon2id$bob", "created": 1005,
             "updated": 1005, "keys": []},
        ]
        self.assertEqual((yield s.load_players()), want)
        self.store = s = yield self.reopen(s)
        self.assertEqual((yield s.load_players()), want)
        self.assertTrue((yield s.reset_player("alice")))
        self.assertFalse((yield s.reset_player("alice")))
        self.assertEqual((yield s.load_players()), want[1:])
        # a reset name may be registered again, and its old key hashes are gone with it
        yield s.register_player("alice", "alice", "$argon2id$three")
        yield s.add_key("alice", "h1", None)
        self.assertEqual([k["key_hash"] for k in (yield s.load_players())[0]["keys"]], ["h1"])


class MemoryStoreTests(StoreBehaviour, TestCase):
    def make_store(self):
        return MemoryStore(clock=self.clock)

    @defer.inlineCallbacks
    def reopen(self, store):
        yield store.close()
        yield store.open()
        return store

    def test_deferreds_already_fired(self):
        d = self.store.create_table("acquire", "standard", 1, SEATS, {})
        self.assertEqual(self.successResultOf(d), 1)
        self.failureResultOf(self.store.append_action(1, 3, 0, {}), StoreError)


class SQLiteStoreTests(StoreBehaviour, TestCase):
    def make_store(self):
        self.path = os.path.abspath(self.mktemp())  # the child runs elsewhere
        return SQLiteStore(self.path, reactor, clock=self.clock)

    @defer.inlineCallbacks
    def reopen(self, store):
        yield store.close()
        new = SQLiteStore(self.path, reactor, clock=self.clock)
        yield new.open()
        return new

    def _pragma(self, name):
        conn = sqlite3.connect(self.path)
        try:
            return conn.execute(f"PRAGMA {name}").fetchone()[0]
        finally:
            conn.close()

    def test_schema_version_and_pragmas(self):
        self.assertEqual(self._pragma("user_version"), SCHEMA_VERSION)
        self.assertEqual(self._pragma("journal_mode"), "wal")

    @defer.inlineCallbacks
    def test_wal_is_checkpointed_by_its_own_thread_not_in_commits(self):
        store = self.store
        autocheckpoint = yield store._call(lambda: store._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
        self.assertEqual(autocheckpoint, 0)             # no COMMIT copies the log back
        checkpointer = store._checkpointer
        checkpointer.interval = 0.01
        table = yield store.create_table("acquire", "standard", 1, SEATS, {})
        for seq in range(20):
            yield store.append_action(table, seq, 0, {"play_tile": "1A"})

        def checkpointed():                             # in a thread: the checkpointer's pace
            deadline = time.monotonic() + 30
            while checkpointer.checkpoints == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
            return checkpointer.checkpoints
        self.assertGreater((yield threads.deferToThread(checkpointed)), 0)
        yield store.close()
        self.assertFalse(checkpointer._thread.is_alive())
        self.assertEqual(self._pragma("user_version"), SCHEMA_VERSION)

    @defer.inlineCallbacks
    def test_newer_schema_refused(self):
        yield self.store.close()
        conn = sqlite3.connect(self.path)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        conn.close()
        store = SQLiteStore(self.path, reactor, clock=self.clock)
        err = yield self.assertFailure(store.open(), StoreError)
        self.assertIn("newer", str(err))
        # A failed open leaves nothing running and can be retried/closed safely.
        self.assertIsNone(store._pool)
        yield store.close()
        self.assertEqual(self._pragma("user_version"), SCHEMA_VERSION + 1)

    @defer.inlineCallbacks
    def test_migrates_old_file(self):
        """A version-1 file (base schema, no index) is upgraded and keeps its data."""
        yield self.store.close()
        path = self.path = self.mktemp()
        conn = sqlite3.connect(path, isolation_level=None)
        MIGRATIONS[0](conn)
        conn.execute("PRAGMA user_version = 1")
        conn.execute(
            "INSERT INTO tables (game, variant, seed, options, seats, state, created, updated)"
            " VALUES ('acquire', 'standard', 5, '{}', '[]', 'playing', 1, 2)"
        )
        conn.execute("INSERT INTO actions VALUES (1, 0, 0, '{\"play_tile\": \"3C\"}')")
        conn.close()

        self.store = SQLiteStore(path, reactor, clock=self.clock)
        yield self.store.open()
        self.assertEqual(self._pragma("user_version"), SCHEMA_VERSION)
        conn = sqlite3.connect(path)
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        conn.close()
        self.assertIn("tables_state_updated", indexes)
        (t,) = yield self.store.load_unfinished()
        self.assertEqual((t["seed"], t["actions"]), (5, [(0, {"play_tile": "3C"})]))
        yield self.store.append_action(t["id"], 1, 0, {"play_tile": "4C"})

    @defer.inlineCallbacks
    def test_committed_writes_survive_sigkill(self):
        """Everything whose Deferred fired is on disk after the process is killed."""
        yield self.store.close()
        n = 200
        child = textwrap.dedent(
            f"""
            import sys
            from twisted.internet import defer, reactor
            from gamehall.store import SQLiteStore

            store = SQLiteStore({self.path!r}, reactor)

            @defer.inlineCallbacks
            def main():
                yield store.open()
                tid = yield store.create_table("acquire", "standard", 1, [], {{}})
                yield store.update_table(tid, state="playing")
                yield defer.gatherResults(
                    [store.append_action(tid, i, 0, {{"n": i}}) for i in range({n})])
                print("ok", tid, flush=True)
                i = {n}
                while True:  # keep writing until killed, mid-transaction or not
                    yield store.append_action(tid, i, 0, {{"n": i}})
                    i += 1

            def failed(reason):
                print("failed", reason.getTraceback(), flush=True)
                reactor.stop()

            reactor.callWhenRunning(lambda: main().addErrback(failed))
            reactor.run()
            """
        )
        env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.Popen(
            [sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=REPO,
        )
        try:
            ready, _, _ = select.select([proc.stdout], [], [], 20)
            line = proc.stdout.readline().decode() if ready else ""
            if not line.startswith("ok"):
                proc.kill()
                self.fail(f"child did not report: {line!r} {proc.stdout.read().decode()}")
            select.select([], [], [], 0.1)  # let it write some more, then kill it
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        self.assertEqual(proc.returncode, -signal.SIGKILL)

        tid = int(line.split()[1])
        self.store = SQLiteStore(self.path, reactor, clock=self.clock)
        yield self.store.open()
        t = yield self.store.load_table(tid)
        self.assertEqual(t["state"], "playing")
        count = len(t["actions"])
        self.assertGreaterEqual(count, n)
        self.assertEqual(t["actions"], [(0, {"n": i}) for i in range(count)])
        yield self.store.append_action(tid, count, 0, {"n": count})


class GroupCommitBehaviour:
    """Writes queued while the store thread is busy share one transaction: what every
    store on the threaded base promises (gamehall.store.threaded).  A subclass provides
    ``make_store()``, ``spoil_finish(table_id)`` (a stray results row that makes
    finish_table fail after its UPDATE) and ``queue_breaking_write()`` (queues a write
    that leaves the group's transaction unusable; its Deferred)."""

    @defer.inlineCallbacks
    def setUp(self):
        self.clock = task.Clock()
        self.clock.advance(1000)
        self.store = self.make_store()
        yield self.store.open()
        self.addCleanup(lambda: self.store.close())

    def hold_thread(self):
        """Keep the store thread busy until the returned release() is called."""
        import threading

        entered, gate = threading.Event(), threading.Event()

        def hold():
            entered.set()
            gate.wait(10)

        self.store._call(hold)
        self.addCleanup(gate.set)
        self.assertTrue(entered.wait(10))  # nothing queued from now on joins its batch
        return gate.set

    def fired_in(self, ds):
        order = []
        for i, d in enumerate(ds):
            d.addBoth(lambda r, i=i: (order.append(i), r)[1])
        return order

    @defer.inlineCallbacks
    def test_queued_appends_share_one_commit_and_fire_in_order(self):
        s = self.store
        tids = []
        for i in range(3):
            tids.append((yield s.create_table("acquire", "standard", i, SEATS, {})))
        release = self.hold_thread()
        before = s.commits
        ds = [s.append_action(tids[k % 3], k // 3, 0, {"k": k}) for k in range(300)]
        order = self.fired_in(ds)
        release()
        yield defer.gatherResults(ds)
        self.assertEqual(s.commits - before, 1)
        self.assertEqual(order, list(range(300)))
        for j, tid in enumerate(tids):
            t = yield s.load_table(tid)
            self.assertEqual(t["actions"], [(0, {"k": k}) for k in range(j, 300, 3)])

    @defer.inlineCallbacks
    def test_failing_writes_in_a_group_fail_alone(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        other = yield s.create_table("acquire", "standard", 2, SEATS, {})
        yield s.update_table(other, state="playing")
        # A results row for a live table makes finish_table fail *after* its
        # UPDATE has run: the savepoint must undo that UPDATE only.
        self.spoil_finish(other)

        release = self.hold_thread()
        before = s.commits
        ds = [
            s.append_action(tid, 0, 0, {"a": 0}),
            s.append_action(tid, 0, 0, {"dup": 0}),        # duplicate seq
            s.append_action(tid, 1, 1, {"a": 1}),
            s.append_action(tid, 3, 1, {"gap": 3}),        # gap
            s.finish_table(other, "finished", {"w": 1}, None),  # fails mid-write
            s.update_table(tid, state="playing"),
            s.append_action(9999, 0, 0, {}),               # no such table
            s.append_action(tid, 2, 0, {"a": 2}),
        ]
        order = self.fired_in(ds)
        release()
        results = yield defer.DeferredList(ds, consumeErrors=True)
        self.assertEqual(s.commits - before, 1)
        self.assertEqual(order, list(range(len(ds))))
        self.assertEqual([ok for ok, _ in results],
                         [True, False, True, False, False, True, False, True])
        for ok, value in results:
            if not ok:
                self.assertIsInstance(value.value, StoreError)
        t = yield s.load_table(tid)
        self.assertEqual(t["actions"], [(0, {"a": 0}), (1, {"a": 1}), (0, {"a": 2})])
        self.assertEqual(t["state"], "playing")
        self.assertEqual((yield s.load_table(other))["state"], "playing")  # rolled back

    @defer.inlineCallbacks
    def test_broken_group_transaction_reruns_writes_one_by_one(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        release = self.hold_thread()
        ds = [s.append_action(tid, 0, 0, {}), self.queue_breaking_write(),
              s.append_action(tid, 1, 0, {})]
        release()
        results = yield defer.DeferredList(ds, consumeErrors=True)
        self.assertEqual([ok for ok, _ in results], [True, False, True])
        self.assertIsInstance(results[1][1].value, StoreError)
        self.assertEqual(len((yield s.load_table(tid))["actions"]), 2)


class SQLiteGroupCommitTests(GroupCommitBehaviour, TestCase):
    """The group commit on SQLite, and its SQLite-only bound on a group's size."""

    def make_store(self):
        self.path = os.path.abspath(self.mktemp())
        return SQLiteStore(self.path, reactor, clock=self.clock)

    def spoil_finish(self, table_id):
        conn = sqlite3.connect(self.path)
        conn.execute("INSERT INTO results VALUES (?, NULL, NULL, 0)", (table_id,))
        conn.commit()
        conn.close()

    def queue_breaking_write(self):
        def breaks(conn):
            conn.execute("ROLLBACK")  # as an I/O error might: the transaction is gone
            raise sqlite3.OperationalError("simulated")

        return self.store._write(breaks)

    @defer.inlineCallbacks
    def test_big_queue_is_split_into_bounded_groups(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        release = self.hold_thread()
        before = s.commits
        n = 2 * SQLiteStore.MAX_GROUP + 1
        ds = [s.append_action(tid, i, 0, {}) for i in range(n)]
        release()
        yield defer.gatherResults(ds)
        self.assertEqual(s.commits - before, 3)
        self.assertEqual((yield s.stats())["actions"], n)

    @defer.inlineCallbacks
    def test_updated_and_reads_keep_call_order_in_a_group(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        release = self.hold_thread()
        self.clock.advance(5)
        a0 = s.append_action(tid, 0, 0, {})
        read = s.load_table(tid)
        a1 = s.append_action(tid, 1, 0, {})
        self.clock.advance(5)
        done = s.finish_table(tid, "finished", {"w": 0}, None)
        self.clock.advance(5)
        late = s.append_action(tid, 2, 0, {})  # refused: finished
        release()
        yield defer.gatherResults([a0, a1, done])
        yield self.assertFailure(late, StoreError)
        seen = yield read
        self.assertEqual((len(seen["actions"]), seen["updated"]), (1, 1005))  # a0, not a1
        (game,) = yield s.finished_games()
        self.assertEqual(game["finished"], 1010)  # the group's append did not overwrite it
