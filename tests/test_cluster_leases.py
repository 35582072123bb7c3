"""gamehall.cluster.leases.LeaseKeeper on a task.Clock and a memory store whose calls can be
made to fail or to hang (a store that cannot be reached)."""
from __future__ import annotations

from twisted.internet.defer import Deferred, fail
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from gamehall.cluster.leases import LeaseKeeper, new_owner_name
from gamehall.store import MemoryStore, StoreError

SEATS = [{"name": "a", "kind": "human", "bot": None}]
TTL = 30.0


class ReachableStore:
    """A MemoryStore's lease calls, counted, that fail (``down``) or never answer
    (``hanging``) on demand."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self.down = False
        self.hanging: list[Deferred] | None = None
        self.calls: list[str] = []

    def __getattr__(self, name):
        method = getattr(self.store, name)

        def call(*args, **kwargs):
            self.calls.append(name)
            if self.down:
                return fail(StoreError("database error: cannot reach the store"))
            if self.hanging is not None:
                d = Deferred()
                self.hanging.append(d)
                return d
            return method(*args, **kwargs)

        return call


class LeaseKeeperTests(TestCase):
    def setUp(self):
        self.clock = Clock()
        self.clock.advance(1000)
        self.memory = MemoryStore(self.clock)
        self.memory.open()
        self.store = ReachableStore(self.memory)
        self.events = []
        self.keeper = LeaseKeeper(self.clock, self.store, "me", TTL,
                                  lost=lambda t, e: self.events.append(("lost", t, e)),
                                  regained=lambda t, e: self.events.append(("regained", t, e)))
        self.addCleanup(self.keeper.stop)
        self.tables = [self.new_table() for _ in range(3)]
        self.keeper.start()

    def new_table(self):
        d = self.memory.create_table("acquire", "standard", 1, SEATS, {}, lease=("me", TTL))
        table_id = self.successResultOf(d)
        self.successResultOf(self.memory.update_table(table_id, state="playing"))
        self.keeper.hold(table_id, 1)
        return table_id

    def other_takes(self, table_id):
        return self.successResultOf(self.memory.take_lease(table_id, "other", TTL))

    def test_owner_names_differ_per_process_run(self):
        self.assertNotEqual(new_owner_name(), new_owner_name())

    def test_renews_all_in_one_call_every_third_of_the_ttl(self):
        for _ in range(30):                       # ten ttls
            self.clock.advance(TTL / 3)
        self.assertEqual(self.store.calls, ["renew_leases"] * 30)
        self.assertEqual(self.keeper.leases, dict.fromkeys(self.tables, 1))
        self.assertEqual(self.events, [])
        for table_id in self.tables:
            self.assertIsNone(self.other_takes(table_id))

    def test_a_lease_another_process_took_is_reported_lost(self):
        t0, t1, t2 = self.tables
        # (as if its lease had lapsed: the store frees it behind the keeper's back)
        self.successResultOf(self.memory.release_lease(t1, "me", 1))
        self.assertEqual(self.other_takes(t1), 2)
        self.clock.advance(TTL / 3)
        self.assertEqual(self.events, [("lost", t1, 1)])
        self.assertEqual(self.keeper.leases, {t0: 1, t2: 1})
        self.clock.advance(TTL)
        self.assertEqual(self.events, [("lost", t1, 1)])       # nothing reclaimed: not ours

    def test_an_unreachable_store_fences_every_lease_before_it_can_lapse(self):
        self.clock.advance(TTL / 3)               # renewed at 1010: the leases last until 1040
        self.store.down = True
        self.clock.advance(TTL / 3)               # 1020: fails
        self.assertEqual(self.events, [])
        self.clock.advance(TTL / 3 - 0.001)
        self.assertEqual(self.events, [])
        self.clock.advance(0.001)                 # 1030: two thirds of the ttl since 1010
        self.assertEqual(sorted(self.events), [("lost", t, 1) for t in self.tables])
        self.assertEqual(self.keeper.leases, {})
        # given up while still held in the store: nobody can have taken them yet
        self.assertEqual(self.successResultOf(self.memory.lapsed_tables()), [])
        for table_id in self.tables:
            self.assertIsNone(self.other_takes(table_id))

    def test_a_store_that_hangs_fences_as_well(self):
        self.store.hanging = []
        self.clock.pump([TTL / 3, TTL / 3])       # the renewal at ttl/3 never answered
        self.assertEqual(sorted(self.events), [("lost", t, 1) for t in self.tables])
        self.clock.pump([TTL / 3] * 3)
        self.assertEqual(self.store.calls.count("renew_leases"), 1)   # no pile-up of renewals
        self.store.hanging[0].callback(self.tables)            # a late answer changes nothing
        self.assertEqual(self.keeper.leases, {})
        self.assertEqual(len(self.events), 3)

    def test_fenced_leases_are_taken_back_at_a_new_epoch_when_the_store_answers(self):
        t0, t1, t2 = self.tables
        self.store.down = True
        self.clock.advance(2 * TTL / 3)
        self.assertEqual(len(self.events), 3)
        self.clock.advance(TTL)                   # the store still down: tried, in vain
        self.assertEqual(len(self.events), 3)
        self.assertEqual(self.other_takes(t1), 2)              # meanwhile another takes one
        self.store.down = False
        self.events.clear()
        self.clock.advance(TTL / 3)
        self.assertEqual(sorted(self.events), [("regained", t0, 2), ("regained", t2, 2)])
        self.assertEqual(self.keeper.leases, {t0: 2, t2: 2})
        # the old epoch is fenced: whatever the stopped table still sends is refused
        self.failureResultOf(self.memory.append_action(t0, 0, 0, {}, epoch=1), StoreError)
        self.successResultOf(self.memory.append_action(t0, 0, 0, {}, epoch=2))
        self.clock.advance(TTL * 3)
        self.assertEqual(len(self.events), 2)                  # held and renewed since

    def test_fenced_leases_not_yet_lapsed_are_taken_back_at_a_new_epoch_too(self):
        self.keeper.stop()
        self.clock.advance(5)
        self.keeper.start()                       # ticks at 1015, 1025; held since 1000
        self.store.down = True
        self.clock.pump([10, 5])                  # 1015: fails; 1020: fenced; the store's leases last until 1030
        self.assertEqual(len(self.events), 3)
        self.store.down = False
        self.events.clear()
        self.clock.advance(5)                     # 1025: the store answers, the leases unexpired
        self.assertEqual(sorted(self.events), [("regained", t, 2) for t in self.tables])
        self.failureResultOf(self.memory.append_action(self.tables[0], 0, 0, {}, epoch=1), StoreError)

    def test_take_forget_and_release(self):
        t0, t1, t2 = self.tables
        new = self.successResultOf(self.memory.create_table("et", "basic", 1, SEATS, {}))
        self.assertEqual(self.successResultOf(self.keeper.take(new)), 1)
        self.assertEqual(self.keeper.epoch(new), 1)
        self.keeper.forget(t0)
        self.assertTrue(self.successResultOf(self.keeper.release(t1)))
        self.assertEqual(self.successResultOf(self.memory.lapsed_tables()), [t1])
        self.assertEqual(self.keeper.leases, {t2: 1, new: 1})
        self.assertEqual(self.successResultOf(self.keeper.release_all()), [True, True])
        self.assertEqual(self.successResultOf(self.memory.lapsed_tables()), [t1, t2, new])
        self.clock.advance(TTL * 2)
        self.assertEqual(self.events, [])       # nothing held: nothing renewed or lost
        self.assertEqual(self.store.calls.count("renew_leases"), 0)


    def test_a_takeover_scan_takes_the_lapsed_tables_nobody_holds(self):
        t0, t1, t2 = self.tables
        dead = LeaseKeeper(self.clock, self.memory, "dead", TTL)
        orphans = []
        for _ in range(3):
            table_id = self.successResultOf(self.memory.create_table(
                "acquire", "standard", 1, SEATS, {}, lease=("dead", TTL)))
            orphans.append(table_id)
        self.successResultOf(self.memory.finish_table(orphans[2], "finished", None, None))
        free = self.successResultOf(self.memory.create_table("et", "basic", 1, SEATS, {}))
        self.assertEqual(self.successResultOf(self.keeper.take_lapsed()), {free: 1})
        self.clock.pump([TTL / 3] * 3)            # "dead" renews nothing: its leases lapse
        self.assertEqual(self.successResultOf(self.keeper.take_lapsed()), {orphans[0]: 2, orphans[1]: 2})
        self.assertEqual(self.keeper.leases, {t0: 1, t1: 1, t2: 1, free: 1, orphans[0]: 2, orphans[1]: 2})
        self.assertIsNone(self.successResultOf(dead.take(orphans[0])))
        self.clock.pump([TTL / 3] * 6)
        self.assertEqual(self.events, [])         # all renewed since
        self.assertEqual(self.successResultOf(self.keeper.take_lapsed()), {})
