"""Table leases across processes on PostgreSQL: two halls, each with its own PostgresStore
on one database (two processes' connections), on one LocalHub and one task.Clock; the
store's threads run on the real reactor (tests/pgserver.py; skipped without PostgreSQL,
except under CI).  A clean stop hands the table over at once, and the old owner's write
under its old epoch is refused by the database."""
from __future__ import annotations

import random
import time

from twisted.internet import defer, reactor, task
from twisted.trial.unittest import TestCase

from gamehall.store.leases import StoreFenced
from gamehall.table import PLAYING
from tests import pgserver
from tests.cluster.harness import Cluster
from tests.netacquire.harness import acquire_game


class PostgresLeaseTests(TestCase):
    timeout = 120

    @defer.inlineCallbacks
    def setUp(self):
        from gamehall.store.postgres import PostgresStore
        url = pgserver.new_database_url()
        self.c = Cluster({"acquire": acquire_game()}, names=(), rng=random.Random(3))
        self.stores = {}
        for name in ("a", "b"):
            store = PostgresStore(url, reactor, clock=self.c.clock)
            yield store.open()
            self.addCleanup(store.close)
            self.stores[name] = store
            self.c.add(name, store=store)
            yield self.until(lambda: self.c.halls[name].cluster.tables._ids)

    @defer.inlineCallbacks
    def until(self, condition, seconds=30.0, step=0.05):
        """Run the fake clock (and let the store's threads answer) until ``condition()``."""
        deadline = time.monotonic() + seconds
        while not condition():
            self.assertLess(time.monotonic(), deadline, "never happened")
            self.c.clock.advance(step)
            self.c.settle(3)
            yield task.deferLater(reactor, 0.002, lambda: None)

    @defer.inlineCallbacks
    def test_a_clean_stop_hands_the_table_over_at_once_and_the_old_epoch_is_refused(self):
        a, b = self.c.halls["a"], self.c.halls["b"]
        table = a.create_table("acquire", max_seats=2)
        table.add_bot()
        table.add_bot()
        table.start()
        yield self.until(lambda: table.lease_epoch == 1 and table.seq >= 4 and table._told == table.seq)
        rows = yield self.stores["b"].lapsed_tables()
        self.assertEqual(rows, [])                   # held by A, renewed
        a.quiesce()
        yield a.cluster.stop()                       # released, then "bye"
        del self.c.halls["a"]
        a.cluster.node.bus.stop()
        yield self.until(lambda: table.id in b.tables and not b.tables[table.id].remote, seconds=10)
        taken = b.tables[table.id]
        self.assertEqual(taken.lease_epoch, 2)
        self.assertTrue(table.fenced)
        # the database refuses A's late move under epoch 1
        seq = taken.seq
        late = self.stores["a"].append_action(table.store_id, seq, 0, {"late": True}, epoch=1)
        yield self.assertFailure(late, StoreFenced)
        # B plays on under epoch 2
        yield self.until(lambda: taken.seq >= seq + 3 or taken.state != PLAYING)
        row = yield self.stores["b"].load_table(table.store_id)
        self.assertEqual(len(row["actions"]), taken.seq)
        self.assertNotIn({"late": True}, [action for _, action in row["actions"]])
