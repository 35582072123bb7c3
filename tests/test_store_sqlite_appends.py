"""SQLiteStore's appends that follow its own (no query for the sequence: ``_appended``) still
refuse whatever changed the table meanwhile: another connection's commit, the store's own
other writes, a rolled-back group."""
from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile

from twisted.internet import defer, reactor, task
from twisted.trial.unittest import TestCase

from gamehall.store import SQLiteStore, StoreError, StoreFenced
from tests.helpers import hold_store_thread

SEATS = [{"name": "alice", "kind": "human", "bot": None}]


class KnownAppendsTests(TestCase):
    @defer.inlineCallbacks
    def setUp(self):
        self.clock = task.Clock()
        self.clock.advance(1000)
        folder = tempfile.mkdtemp(prefix="gamehall-test-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "store.sqlite")
        self.store = SQLiteStore(self.path, reactor, clock=self.clock)
        yield self.store.open()
        self.addCleanup(lambda: self.store.close())

    @defer.inlineCallbacks
    def table_with_actions(self, count, lease=None):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {},
                                   **({"lease": lease} if lease else {}))
        yield s.update_table(tid, state="playing")
        for seq in range(count):
            yield s.append_action(tid, seq, 0, {"n": seq}, **({"epoch": 1} if lease else {}))
        return tid

    @defer.inlineCallbacks
    def tables_with_actions(self, tables, count):
        """``tables`` tables of ``count`` actions each; their ids."""
        tids = []
        for _ in range(tables):
            tids.append((yield self.table_with_actions(count)))
        return tids

    def other_connection(self, sql, params):
        conn = sqlite3.connect(self.path)
        try:
            conn.execute(sql, params)
            conn.commit()
        finally:
            conn.close()

    @defer.inlineCallbacks
    def actions(self, tid):
        return (yield self.store.load_table(tid))["actions"]

    @defer.inlineCallbacks
    def test_a_table_another_connection_ended_refuses_the_next_append(self):
        tid = yield self.table_with_actions(2)
        self.other_connection("UPDATE tables SET state = 'finished' WHERE id = ?", (tid,))
        err = yield self.assertFailure(self.store.append_action(tid, 2, 0, {"n": 2}), StoreError)
        self.assertIn("finished", str(err))
        self.assertEqual(len((yield self.actions(tid))), 2)

    @defer.inlineCallbacks
    def test_an_action_another_connection_appended_is_seen(self):
        tid = yield self.table_with_actions(2)
        self.other_connection("INSERT INTO actions (table_id, seq, seat, action) VALUES (?, 2, 1, ?)",
                              (tid, '{"theirs":2}'))
        err = yield self.assertFailure(self.store.append_action(tid, 2, 0, {"n": 2}), StoreError)
        self.assertIn("expected 3", str(err))
        yield self.store.append_action(tid, 3, 0, {"n": 3})
        self.assertEqual((yield self.actions(tid))[2:], [(1, {"theirs": 2}), (0, {"n": 3})])

    @defer.inlineCallbacks
    def test_a_lease_another_process_took_fences_the_next_append(self):
        tid = yield self.table_with_actions(2, lease=("a", 60.0))
        self.other_connection("UPDATE tables SET lease_owner = 'b', lease_epoch = 2 WHERE id = ?", (tid,))
        yield self.assertFailure(self.store.append_action(tid, 2, 0, {"n": 2}, epoch=1), StoreFenced)
        self.assertEqual(len((yield self.actions(tid))), 2)

    @defer.inlineCallbacks
    def test_a_table_finished_in_the_same_group_refuses_the_appends_after_it(self):
        s = self.store
        tid = yield self.table_with_actions(2)
        release = hold_store_thread(self, s)
        before = s.commits
        first = s.append_action(tid, 2, 0, {"n": 2})
        finish = s.finish_table(tid, "finished", {"winner": 0}, None)
        after = s.append_action(tid, 3, 0, {"n": 3})
        release()
        yield first
        yield finish
        err = yield self.assertFailure(after, StoreError)
        self.assertIn("finished", str(err))
        self.assertEqual(s.commits - before, 1)          # one group
        self.assertEqual(len((yield self.actions(tid))), 3)

    @defer.inlineCallbacks
    def test_a_lease_taken_by_the_store_in_the_same_group_fences_the_appends_after_it(self):
        s = self.store
        tid = yield self.table_with_actions(2, lease=("a", 60.0))
        self.clock.advance(120)                          # the lease has expired
        release = hold_store_thread(self, s)
        first = s.append_action(tid, 2, 0, {"n": 2}, epoch=1)
        taken = s.take_lease(tid, "b", 60.0)
        after = s.append_action(tid, 3, 0, {"n": 3}, epoch=1)
        release()
        yield first
        self.assertEqual((yield taken), 2)
        yield self.assertFailure(after, StoreFenced)
        self.assertEqual(len((yield self.actions(tid))), 3)

    @defer.inlineCallbacks
    def test_an_append_whose_commit_failed_is_not_taken_as_stored(self):
        s = self.store
        tid = yield self.table_with_actions(2)
        # action 2's INSERT succeeds, its COMMIT fails (a deferred foreign key it breaks)
        conn = sqlite3.connect(self.path)
        conn.executescript(
            "CREATE TABLE parent (id INTEGER PRIMARY KEY);"
            "CREATE TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);"
            "CREATE TRIGGER spoil AFTER INSERT ON actions WHEN new.seq = 2"
            " BEGIN INSERT INTO child VALUES (42); END;")
        conn.close()
        yield self.assertFailure(s.append_action(tid, 2, 0, {"n": 2}), StoreError)
        err = yield self.assertFailure(s.append_action(tid, 3, 0, {"n": 3}), StoreError)
        self.assertIn("expected 2", str(err))
        self.assertEqual(len((yield self.actions(tid))), 2)

    @defer.inlineCallbacks
    def test_known_appends_of_a_group_are_one_insert_and_one_touch(self):
        s = self.store
        tids = yield self.tables_with_actions(4, 2)
        for tid in tids:     # (creating a table is another write: known from here on)
            yield s.append_action(tid, 2, 0, {"n": 2})
        statements = []
        yield s._call(lambda: s._conn.set_trace_callback(statements.append))
        self.addCleanup(lambda: s._call(lambda: s._conn.set_trace_callback(None)))
        before = s.commits
        release = hold_store_thread(self, s)
        self.clock.advance(5)
        appends = [s.append_action(tid, 3, 0, {"n": 3}) for tid in tids]
        release()
        yield defer.gatherResults(appends)
        self.assertEqual(s.commits - before, 1)
        self.assertEqual(sum(1 for sql in statements if sql.startswith("INSERT INTO actions")), 1)
        self.assertEqual(sum(1 for sql in statements if sql.startswith("UPDATE tables")), 1)
        self.assertFalse([sql for sql in statements if sql.startswith("SELECT")])
        for tid in tids:
            self.assertEqual(len((yield self.actions(tid))), 4)
            self.assertEqual((yield s.load_table(tid))["updated"], 1005)

    @defer.inlineCallbacks
    def test_a_known_append_refused_in_a_group_fails_alone(self):
        s = self.store
        tids = yield self.tables_with_actions(3, 2)
        self.other_connection(
            "CREATE TRIGGER refuse BEFORE INSERT ON actions"
            f" WHEN new.table_id = {tids[1]:d} AND new.seq = 3"
            " BEGIN SELECT RAISE(ABORT, 'not this one'); END", ())
        for tid in tids:     # seen the other connection's commit: known again
            yield s.append_action(tid, 2, 0, {"n": 2})
        before = s.commits
        release = hold_store_thread(self, s)
        appends = [s.append_action(tid, 3, 0, {"n": 3}) for tid in tids]
        follow = s.append_action(tids[2], 4, 0, {"n": 4})
        release()
        yield appends[0]
        err = yield self.assertFailure(appends[1], StoreError)
        self.assertIn("not this one", str(err))
        yield appends[2]
        yield follow
        self.assertEqual(s.commits - before, 1)
        counts = []
        for tid in tids:
            counts.append(len((yield self.actions(tid))))
        self.assertEqual(counts, [4, 3, 5])
        err = yield self.assertFailure(s.append_action(tids[1], 4, 0, {"n": 4}), StoreError)
        self.assertIn("expected 3", str(err))
