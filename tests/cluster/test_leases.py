"""Table ownership through the store's leases (issue 22): halls on one LocalHub, one clock,
one shared store.  The owner killed, cut off from the store, cut off from the bus, stopped
cleanly: each time exactly one other process runs the table, from the store, and the game
goes on to its end with every stored action once."""
from __future__ import annotations

import random

from twisted.internet.defer import Deferred

from gamehall.cluster.replica import ReplicaTable
from gamehall.cluster.tables import BUS_CUT_LIMIT, LEASE_TTL, SCAN_INTERVAL
from gamehall.store.leases import StoreFenced
from gamehall.table import PLAYING
from tests.cluster.harness import Cluster, bot_table
from tests.cluster.test_tables import BotSink, acquire_cluster, play, stored
from tests.helpers import RecordingSink
from tests.netacquire.harness import acquire_game


class CutStore:
    """One process's way to the shared store, which can be cut (``cut``: every call hangs,
    as when the database cannot be reached) and mended (``mend``: the hung calls reach the
    store only then, late; those it refuses as fenced are kept in ``fenced``)."""

    def __init__(self, store) -> None:
        self.store = store
        self.hanging: list | None = None
        self.fenced: list[tuple[str, dict]] = []

    def __getattr__(self, name):
        method = getattr(self.store, name)
        if not callable(method):
            return method

        def call(*args, **kwargs):
            if self.hanging is None:
                return method(*args, **kwargs)
            d = Deferred()
            self.hanging.append((name, method, args, kwargs, d))
            return d
        return call

    def cut(self) -> None:
        self.hanging = []

    def mend(self) -> None:
        hung, self.hanging = self.hanging, None
        for name, method, args, kwargs, d in hung:

            def seen(failure, name=name, kwargs=kwargs):
                if failure.check(StoreFenced):
                    self.fenced.append((name, kwargs))
                return failure
            method(*args, **kwargs).addErrback(seen).chainDeferred(d)


def run_until(c, condition, limit: float, step: float = 0.1) -> float:
    """Run the clock until ``condition()``; fails after ``limit`` seconds: the time it took."""
    start = c.clock.seconds()
    while not condition():
        assert c.clock.seconds() - start <= limit, "never happened"
        c.run(step)
    return c.clock.seconds() - start


def owners(c, table_id) -> list[str]:
    """The processes running the table (not a replica of it)."""
    return [name for name, hall in c.halls.items()
            if table_id in hall.tables and not hall.tables[table_id].remote]


def lease(c, table):
    """(the process holding the table's lease, its epoch), as the store has them."""
    row = c.store._tables[table.store_id]
    owner = row["lease_owner"]
    return None if owner is None else owner.split("#")[0], row["lease_epoch"]


def check_stored_game(c, taken):
    """The store holds the game each action once, in order: replayed, it ends as it did."""
    row = stored(c, taken.id)
    assert row["state"] == "finished" and len(row["actions"]) == taken.seq
    engine = acquire_game().new_engine(row["variant"], [s["name"] for s in row["seats"]], row["seed"])
    for seat, action in row["actions"]:
        engine.apply(seat, action)
    assert row["result"] == engine.result() == taken.engine.result()


def play_to_the_end(c, taken, owner):
    """Play on; nobody but ``owner`` ever runs the table."""
    for _ in range(40000):
        if taken.state != PLAYING:
            return
        c.run(0.05)
        assert owners(c, taken.id) in ([owner], [])
    raise AssertionError("the game never ended")


def test_the_owner_killed_mid_game_one_other_process_takes_the_table_within_the_lease_time():
    c = acquire_cluster(names=("a", "b", "c"))
    a, hall_c = c.halls["a"], c.halls["c"]
    table = bot_table(a)
    c.run(0.5)
    wes = RecordingSink()
    user = hall_c.login("Wes", "test", wes)
    hall_c.tables[table.id].watch(user)
    play(c, table, [], [], lambda: table.seq >= 10 and table._told == table.seq)
    c.run(0.2)
    told = max(d["seq"] for _, e, d in wes.events if e == "game")
    assert lease(c, table) == ("a", 1)
    c.kill("a")                                  # SIGKILL: no goodbye, its leases lapse
    run_until(c, lambda: owners(c, table.id), LEASE_TTL + SCAN_INTERVAL + 0.2)
    [owner] = owners(c, table.id)                # exactly one
    taken = c.halls[owner].tables[table.id]
    assert lease(c, table) == (owner, 2) and taken.lease_epoch == 2
    assert taken.seq >= told                     # every action told is there
    c.run(1)
    other = "c" if owner == "b" else "b"
    assert c.halls[other].tables[table.id].owner == owner   # the other follows the new owner
    play_to_the_end(c, taken, owner)
    check_stored_game(c, taken)
    seqs = [d["seq"] for _, e, d in wes.events if e == "game"]
    assert seqs == sorted(set(seqs)) and seqs[-1] == taken.seq   # nothing shown twice, to the end
    assert "finished" in wes.names()


def test_a_process_cut_off_from_the_store_stops_before_its_lease_lapses_and_its_late_write_is_refused():
    c = Cluster({"acquire": acquire_game()}, names=("b",), rng=random.Random(3))
    to_store = CutStore(c.store)
    a = c.add("a", store=to_store)
    b = c.halls["b"]
    table = bot_table(a)
    c.run(0.5)
    play(c, table, [], [], lambda: table.seq >= 6)
    to_store.cut()                               # A's store calls hang from here on
    run_until(c, lambda: table.fenced, 2 * LEASE_TTL / 3 + 0.2)
    # A stopped its table while its lease still held in the store: nobody could take it yet
    owner, epoch = lease(c, table)
    assert (owner, epoch) == ("a", 1) and c.store._tables[table.store_id]["lease_expires"] > c.clock.seconds()
    assert owners(c, table.id) == [] and table.id not in a.tables
    assert any(name == "append_action" for name, *_ in to_store.hanging)     # a move in flight
    run_until(c, lambda: owners(c, table.id), LEASE_TTL + SCAN_INTERVAL)
    assert owners(c, table.id) == ["b"] and lease(c, table) == ("b", 2)
    taken = b.tables[table.id]
    c.run(2)                                     # B plays on
    assert taken.seq > table.seq - 1
    to_store.mend()                              # A's late calls reach the store now
    c.settle()
    assert ("append_action", {"epoch": 1}) in [(n, {"epoch": kw.get("epoch")}) for n, kw in to_store.fenced]
    c.run(LEASE_TTL)                             # A's keeper tries to take its lease back: B holds it
    assert owners(c, table.id) == ["b"] and a.cluster.tables.leases.leases == {}
    assert isinstance(a.tables[table.id], ReplicaTable) and a.tables[table.id].owner == "b"
    play_to_the_end(c, taken, "b")
    check_stored_game(c, taken)


def test_a_process_cut_off_from_the_bus_hands_its_tables_over_and_takes_none_until_it_is_back():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    table = a.create_table("acquire", max_seats=2)
    table.add_bot()
    c.run(0.5)
    bob = BotSink(c.clock)
    bob.user = b.login("Bob", "test", bob)
    b.tables[table.id].join(bob.user)
    c.run(0.5)
    table.start()
    ann = RecordingSink()
    table.watch(a.login("Ann", "test", ann))     # a spectator on A
    play(c, table, [], [], lambda: table.seq >= 6)
    bus_a = a.cluster.node.bus
    bus_a.stop()                                 # A is cut off from the bus, not from the store
    run_until(c, lambda: table.fenced, BUS_CUT_LIMIT + a.cluster.node.heartbeat + 0.1)
    assert a.cluster.tables.bus_cut
    assert any(e == "chat" and d.get("notice") == "moved" for _, e, d in ann.events)   # told to reconnect
    # its lease was released: B takes it at its next scan, without waiting for it to lapse
    run_until(c, lambda: owners(c, table.id), SCAN_INTERVAL + 0.1)
    assert owners(c, table.id) == ["b"] and lease(c, table) == ("b", 2)
    taken = b.tables[table.id]
    assert taken.seats[1].user is bob.user       # Bob sits at it again, on B
    c.run(LEASE_TTL)
    assert owners(c, table.id) == ["b"]          # A takes nothing while cut off
    bus_a.start()                                # the bus is back: A lists B's table
    c.run(3)
    assert not a.cluster.tables.bus_cut
    assert isinstance(a.tables[table.id], ReplicaTable) and a.tables[table.id].owner == "b"
    play_to_the_end(c, taken, "b")
    check_stored_game(c, taken)
    assert "finished" in bob.names()


def test_a_clean_stop_releases_the_leases_so_another_process_takes_over_at_once():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    table = bot_table(a)
    c.run(0.5)
    wes = RecordingSink()
    user = b.login("Wes", "test", wes)
    b.tables[table.id].watch(user)
    play(c, table, [], [], lambda: table.seq >= 6)
    a.quiesce()
    a.cluster.stop()                             # released, then "bye": B takes it at once
    del c.halls["a"]
    c.settle()
    a.cluster.node.bus.stop()
    # (told to nobody on B: its replica follows the new owner, nothing to reconnect)
    assert table.fenced and not any(e == "chat" and d.get("notice") == "moved" for _, e, d in wes.events)
    run_until(c, lambda: owners(c, table.id), 0.5, step=0.05)   # at once, not after the lease time
    taken = b.tables[table.id]
    assert lease(c, table) == ("b", 2) and user in taken.spectators
    play_to_the_end(c, taken, "b")
    check_stored_game(c, taken)
    assert "finished" in wes.names()


def test_a_stored_table_whose_start_never_completed_is_aborted_by_the_take_over_scan():
    c = acquire_cluster(names=("b",))
    # a process stored the table with its lease, then died before its state was written
    table_id = c.store.create_table("acquire", "standard", 1, [{"name": "x", "kind": "bot", "bot": "random"}],
                                    {}, table_id=900, lease=("gone", LEASE_TTL)).result
    c.run(LEASE_TTL + SCAN_INTERVAL + 0.1)
    row = stored(c, table_id)
    assert row["state"] == "aborted" and table_id not in c.halls["b"].tables
    assert c.halls["b"].cluster.tables.leases.leases == {}


def test_a_process_whose_store_answers_again_before_anyone_took_its_table_takes_it_back():
    c = Cluster({"acquire": acquire_game()}, names=("b",), rng=random.Random(3))
    to_store = CutStore(c.store)
    a = c.add("a", store=to_store)
    b = c.halls["b"]
    table = bot_table(a)
    c.run(0.5)
    wes = RecordingSink()
    user = b.login("Wes", "test", wes)
    b.tables[table.id].watch(user)
    play(c, table, [], [], lambda: table.seq >= 6)
    to_store.cut()
    run_until(c, lambda: table.fenced, 2 * LEASE_TTL / 3 + 0.2)
    to_store.mend()                              # back before the lease could lapse
    run_until(c, lambda: owners(c, table.id), LEASE_TTL / 3 + 0.2)
    assert owners(c, table.id) == ["a"] and lease(c, table) == ("a", 2)   # taken back, a new epoch
    again = a.tables[table.id]
    assert again is not table and again.lease_epoch == 2
    c.run(1)
    assert b.tables[table.id].owner == "a"
    play_to_the_end(c, again, "a")
    check_stored_game(c, again)
    assert "finished" in wes.names() and user.table is None
