"""gamehall.cluster.binding: one store and one bus are one hall; mismatches are refused."""
from __future__ import annotations

import pytest
from twisted.internet.task import Clock
from twisted.logger import formatEvent

from gamehall.bus.localbus import LocalBus, LocalHub
from gamehall.cluster import binding
from gamehall.cluster.binding import BindingRefused, bind
from gamehall.store.memory import MemoryStore


def result(d):
    out = []
    d.addBoth(out.append)
    assert out, "the Deferred has not fired"
    if hasattr(out[0], "raiseException"):
        out[0].raiseException()
    return out[0]


class World:
    """Stores and buses (each its own LocalHub, as separate Redis servers would be) on one clock."""

    def __init__(self):
        self.clock = Clock()
        self.clock.advance(1_000_000)

    def store(self):
        store = MemoryStore(self.clock)
        result(store.open())
        return store

    def bus(self, hub=None):
        bus = LocalBus(self.clock, hub or LocalHub(self.clock))
        result(bus.start())
        return bus


def test_a_fresh_store_and_bus_are_tied_and_later_processes_accepted():
    w = World()
    store, bus = w.store(), w.bus()
    first = result(bind(store, bus, w.clock, "redis://a:6379/0"))
    other_process = LocalBus(w.clock, bus.hub)
    result(other_process.start())
    assert result(bind(store, other_process, w.clock, "redis://a:6379/0"))["hall"] == first["hall"]
    kept = result(store.load_settings())[binding.SETTING]
    assert (kept["hall"], kept["bus"]) == (first["hall"], first["bus"])


def test_one_bus_shared_by_two_stores_is_refused():
    w = World()
    bus = w.bus()
    result(bind(w.store(), bus, w.clock, "redis://a:6379/0"))
    d = bind(w.store(), bus, w.clock, "redis://a:6379/0")     # a fresh store: waits a moment first
    w.clock.pump([0.25] * int(binding.SETTLE / 0.25 + 1))
    with pytest.raises(BindingRefused, match="belongs to another hall"):
        result(d)
    used = w.store()
    result(used.save_setting(binding.SETTING, {"hall": "h2", "bus": "t", "seen": 0}))
    with pytest.raises(BindingRefused, match="belongs to another hall"):   # a used store: at once
        result(bind(used, bus, w.clock, "redis://a:6379/0"))


def test_two_fresh_processes_of_one_hall_racing_agree():
    """Both find the store empty; the one that lost the race on the bus waits for the
    winner to write the store, rather than refusing its own hall."""
    w = World()
    store, bus_a = w.store(), w.bus()
    bus_b = LocalBus(w.clock, bus_a.hub)
    result(bus_b.start())
    # the winner has taken the bus but not yet written the store
    a_bus_value = result(bus_a.hall_id("hallA/tokenA"))
    loser = bind(store, bus_b, w.clock, "redis://a:6379/0")
    w.clock.advance(0.5)
    result(store.save_setting(binding.SETTING, {"hall": "hallA", "bus": "tokenA", "seen": w.clock.seconds()}))
    w.clock.pump([0.25, 0.25])
    assert result(loser)["hall"] == "hallA" and a_bus_value == "hallA/tokenA"


def test_one_store_on_a_second_bus_is_refused_while_the_hall_runs_on_the_first():
    w = World()
    store = w.store()
    result(bind(store, w.bus(), w.clock, "redis://a:6379/0"))
    w.clock.advance(binding.LIVE_WINDOW - 1)
    with pytest.raises(BindingRefused) as refused:
        result(bind(store, w.bus(), w.clock, "redis://b:6379/0"))
    assert "runs on another bus (redis://a:6379/0" in str(refused.value)
    assert "--move-bus" in str(refused.value)


def test_the_hall_moves_to_another_bus_once_nothing_runs_on_the_old_one(logged):
    """An emptied Redis (restarted without persistence) is another bus to the hall: taken
    over when no process has been alive on the old one lately."""
    w = World()
    store = w.store()
    old = result(bind(store, w.bus(), w.clock, "redis://a:6379/0"))
    w.clock.advance(binding.LIVE_WINDOW + 1)
    new_bus = w.bus()
    new = result(bind(store, new_bus, w.clock, "redis://b:6379/0"))
    assert new["hall"] == old["hall"] and new["bus"] != old["bus"]
    assert result(new_bus.hall_id("x")) == f"{new['hall']}/{new['bus']}"
    assert "the hall moves from the bus at redis://a:6379/0 to the bus at redis://b:6379/0" in \
        [formatEvent(e) for e in logged]


def test_move_bus_takes_the_new_bus_at_once():
    w = World()
    store = w.store()
    result(bind(store, w.bus(), w.clock, "redis://a:6379/0"))
    moved = result(bind(store, w.bus(), w.clock, "redis://b:6379/0", move=True))
    assert result(store.load_settings())[binding.SETTING]["bus_url"] == "redis://b:6379/0"
    # ... and the old bus is now refused while the hall runs on the new one
    old_bus_again = w.bus()
    result(old_bus_again.hall_id(f"{moved['hall']}/stale"))
    with pytest.raises(BindingRefused, match="runs on another bus"):
        result(bind(store, old_bus_again, w.clock, "redis://a:6379/0"))
