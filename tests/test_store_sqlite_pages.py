"""What an append costs the SQLite file's write-ahead log, and the indexes that keep it small.

Every commit writes each page it changed to the log whole, so the log grows by the
pages an append changes times the page size; past ``wal_limit`` the store thread
truncates it, and the writes queued meanwhile wait (at 1,000 NetAcquire games, once a
second for about 18 ms: docs/measurements.md).  An append changes its table's last
actions page and the table's row (``updated``); it used to move the table's entry in
the (state, updated) index as well, on 4 KB pages.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile

from twisted.internet import defer, reactor, task
from twisted.trial.unittest import TestCase

from gamehall.store import SQLiteStore
from gamehall.store.sqlite_file import MIGRATIONS, SCHEMA_VERSION

SEATS = [{"name": "alice", "kind": "human", "bot": None}]
FRAME_HEADER = 24          # bytes before each page in the log


class _NoCheckpoints(SQLiteStore):
    # No background checkpoint: it could restart the log between two measurements.
    # (SQLite's own comes at 1,000 pages, more than these tests write.)
    CHECKPOINT_INTERVAL = None


class PageTests(TestCase):
    @defer.inlineCallbacks
    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehall-pages-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "hall.sqlite")
        self.store = _NoCheckpoints(self.path, reactor, clock=task.Clock())
        yield self.store.open()
        self.addCleanup(lambda: self.store.close())

    def sql(self, statement: str) -> list:
        conn = sqlite3.connect(self.path)
        try:
            return conn.execute(statement).fetchall()
        finally:
            conn.close()

    def wal_size(self) -> int:
        try:
            return os.path.getsize(self.path + "-wal")
        except FileNotFoundError:
            return 0

    def test_a_new_file_has_1_kb_pages(self):
        self.assertEqual(self.sql("PRAGMA page_size"), [(1024,)])

    @defer.inlineCallbacks
    def test_an_append_to_a_live_table_adds_about_two_pages_to_the_log(self):
        s = self.store
        tids = yield defer.gatherResults([s.create_table("acquire", "standard", i, SEATS, {}) for i in range(10)])
        for t in tids:
            yield s.update_table(t, state="playing")
        seq = {t: 0 for t in tids}
        for t in tids:                          # every table's first actions page exists
            yield s.append_action(t, 0, 0, {"play_tile": "1A"})
            seq[t] = 1
        before, appends = self.wal_size(), 0
        for _ in range(4):
            for t in tids:                      # one commit each: nothing shared between them
                yield s.append_action(t, seq[t], 0, {"play_tile": "2B"})
                seq[t] += 1
                appends += 1
        per_append = (self.wal_size() - before) / appends
        # its table's last actions page and its row, 1 KB each (before: those and two pages
        # of the (state, updated) index, 4 KB each: some 12 KB)
        self.assertLessEqual(per_append, 2.2 * (1024 + FRAME_HEADER))
        self.assertGreaterEqual(per_append, 1024 + FRAME_HEADER)
        t = yield s.load_table(tids[0])
        self.assertEqual(len(t["actions"]), 5)

    @defer.inlineCallbacks
    def test_the_table_lists_read_the_partial_indexes(self):
        s = self.store
        tids = yield defer.gatherResults([s.create_table("acquire", "standard", i, SEATS, {}) for i in range(3)])
        yield s.update_table(tids[0], state="playing")
        yield s.finish_table(tids[1], "finished", {"winner": 0}, None)
        self.assertEqual({r[0] for r in self.sql("SELECT name FROM sqlite_master WHERE type = 'index'"
                                                 " AND tbl_name = 'tables'")},
                         {"tables_live", "tables_finished"})
        plan = " ".join(str(row) for row in self.sql(
            "EXPLAIN QUERY PLAN SELECT id FROM tables t WHERE t.state = 'finished'"
            " ORDER BY t.updated DESC, t.id DESC LIMIT 10"))
        self.assertIn("tables_finished", plan)
        self.assertNotIn("TEMP B-TREE", plan)       # newest first without sorting them all
        plan = " ".join(str(row) for row in self.sql(
            "EXPLAIN QUERY PLAN SELECT id FROM tables WHERE state IN ('waiting', 'playing') ORDER BY id"))
        self.assertIn("tables_live", plan)
        unfinished = yield s.load_unfinished()
        self.assertEqual(sorted(t["id"] for t in unfinished), [tids[0], tids[2]])
        finished = yield s.finished_games()
        self.assertEqual([g["id"] for g in finished], [tids[1]])


class OlderFileTests(TestCase):
    @defer.inlineCallbacks
    def test_a_file_of_schema_6_on_4_kb_pages_keeps_them_and_loses_the_old_index(self):
        folder = tempfile.mkdtemp(prefix="gamehall-pages-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "hall.sqlite")
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("PRAGMA page_size = 4096")
        conn.execute("PRAGMA journal_mode = WAL")
        for version, migration in enumerate(MIGRATIONS[:6], start=1):
            migration(conn)
            conn.execute(f"PRAGMA user_version = {version}")
        conn.execute("INSERT INTO tables (game, variant, seed, options, seats, state, created, updated)"
                     " VALUES ('acquire', 'standard', 5, '{}', '[]', 'finished', 1, 2)")
        conn.close()
        store = SQLiteStore(path, reactor, clock=task.Clock())
        yield store.open()
        self.addCleanup(lambda: store.close())
        conn = sqlite3.connect(path)
        try:
            self.assertEqual(conn.execute("PRAGMA user_version").fetchone()[0], SCHEMA_VERSION)
            self.assertEqual(conn.execute("PRAGMA page_size").fetchone()[0], 4096)
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        finally:
            conn.close()
        self.assertNotIn("tables_state_updated", names)
        self.assertTrue({"tables_live", "tables_finished"} <= names)
        finished = yield store.finished_games()
        self.assertEqual([g["id"] for g in finished], [1])
