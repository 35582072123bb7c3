"""gamehall.cluster.process: a hall process announced on the bus while it runs."""
from __future__ import annotations

import os
import socket

from twisted.internet.task import Clock

from gamehall.bus.localbus import LocalBus
from gamehall.cluster import binding
from gamehall.cluster.process import ClusterProcess
from gamehall.hall import Hall
from gamehall.store.memory import MemoryStore
from tests.test_cluster_binding import result


def running_process():
    clock = Clock()
    clock.advance(1_000_000)
    hall = Hall(clock, MemoryStore(clock))
    bus = LocalBus(clock)
    hall.bus = bus
    process = ClusterProcess(hall, bus, clock, "redis://x:6379/0", {"nim": ["tcp:7070"]}, announce_every=5)
    result(process.connect())
    result(hall.store.open())
    result(process.bind())
    process.announce()
    return clock, hall, bus, process


def test_a_process_is_announced_while_it_runs_and_withdrawn_at_a_clean_stop():
    clock, hall, bus, process = running_process()
    assert hall.process_id == f"{socket.gethostname()}:{os.getpid()}"
    info = result(bus.processes())[hall.process_id]
    assert info["frontends"] == {"nim": ["tcp:7070"]} and info["hall"] == process.binding["hall"]
    clock.pump([1] * 60)                         # far past one announcement's life: renewed
    assert hall.process_id in result(bus.processes())
    # ... and the store hears the hall is alive (what refuses a second bus meanwhile)
    assert result(hall.store.load_settings())[binding.SETTING]["seen"] >= clock.seconds() - binding.REFRESH
    result(process.stop())
    assert bus.is_up is False
    other = LocalBus(clock, bus.hub)
    result(other.start())
    assert result(other.processes()) == {}


def test_a_killed_process_drops_out_by_itself():
    clock, hall, bus, process = running_process()
    process._loop.stop()                         # as if killed: no more announcements
    clock.advance(3 * 5 + 1)
    assert result(bus.processes()) == {}


def test_after_a_reconnection_the_bus_is_claimed_again_and_the_process_announced():
    """Redis restarted empty while the hall ran: the bus is made the hall's again at once."""
    clock, hall, bus, process = running_process()
    bus.hub.delete("hall-id")
    bus.hub.delete("proc:" + hall.process_id)
    assert bus.hub.get("hall-id") is None and result(bus.processes()) == {}
    bus.on_state(True)
    assert result(bus.hall_id("someone else")) == binding.still_bound(process.binding)
    assert hall.process_id in result(bus.processes())
