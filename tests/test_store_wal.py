"""The SQLite store's write-ahead log stays bounded under sustained writes (issue 15).

With SQLite's own checkpoints off (they would run inside a COMMIT) and only the
background PASSIVE checkpoint, the WAL grew without limit under load: a PASSIVE
checkpoint never catches up with a writer that keeps appending, so the log was never
restarted, and a restarted log keeps its size on disk anyway.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile

from twisted.internet import defer, reactor, task
from twisted.trial.unittest import TestCase

from gamehall.store import SQLiteStore

SEATS = [{"name": "alice", "kind": "human", "bot": None}]
# Bytes: small, so that a test's few thousand writes pass it often.  One group (an append to
# each of 20 tables) writes some 30 pages of log (1 KB each in a new file, 4 KB in one made
# before schema 7: SQLiteStore.PAGE_SIZE); the truncation follows the group
# that passed the limit, once its callers have their answers, so one or two groups more may
# be seen before it.
LIMIT = 512 * 1024


class WalBoundTests(TestCase):
    @defer.inlineCallbacks
    def setUp(self):
        self.clock = task.Clock()
        folder = tempfile.mkdtemp(prefix="gamehall-wal-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "hall.sqlite")
        self.store = SQLiteStore(self.path, reactor, clock=self.clock)
        self.store.wal_limit = LIMIT
        yield self.store.open()
        self.addCleanup(lambda: self.store.close())

    def wal_size(self) -> int:
        try:
            return os.path.getsize(self.path + "-wal")
        except FileNotFoundError:
            return 0

    @defer.inlineCallbacks
    def sustained_writes(self, rounds: int, tables: int = 20):
        """``rounds`` reactor turns, each appending one action to every table (one group)."""
        s = self.store
        tids = yield defer.gatherResults(
            [s.create_table("acquire", "standard", i, SEATS, {}) for i in range(tables)])
        largest = 0
        payload = {"play_tile": "1A", "pad": "x" * 200}
        for seq in range(rounds):
            yield defer.gatherResults([s.append_action(t, seq, 0, payload) for t in tids])
            largest = max(largest, self.wal_size())
        return tids, largest

    @defer.inlineCallbacks
    def test_wal_stays_under_its_limit_under_sustained_writes(self):
        commits_before = self.store.commits
        tids, largest = yield self.sustained_writes(300)        # 6,000 actions, ~1.5 MB of rows
        self.assertLess(largest, 2 * LIMIT)
        self.assertLess(self.store.commits - commits_before, 300 * 2)   # still grouped
        self.assertGreater(self.store.wal_truncations, 5)
        table = yield self.store.load_table(tids[-1])
        self.assertEqual(len(table["actions"]), 300)
        yield self.store.close()
        conn = sqlite3.connect(self.path)
        try:
            count = conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
        finally:
            conn.close()
        self.assertEqual(count, 300 * 20)

    @defer.inlineCallbacks
    def test_a_reader_holding_the_log_delays_the_truncation_without_stalling_writes(self):
        reader = sqlite3.connect(self.path, isolation_level=None)
        self.addCleanup(reader.close)
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM tables").fetchone()     # a snapshot pins the log
        _, pinned = yield self.sustained_writes(40)
        self.assertGreater(pinned, LIMIT)            # it cannot be restarted under a reader
        reader.execute("COMMIT")
        self.store._wal_retry_at = 0.0              # no need to wait out the back-off here
        _, largest = yield self.sustained_writes(10)
        self.assertLess(self.wal_size(), 2 * LIMIT)  # truncated once the reader let go
