"""Several Halls in one test process: one hall of several processes on LocalBuses sharing one
LocalHub, one task.Clock and one store (CLUSTER_DESIGN.md)."""
from __future__ import annotations

from twisted.internet.task import Clock

from gamehall.bus.localbus import LocalBus, LocalHub
from gamehall.cluster.hallwide import attach
from gamehall.cluster.node import ClusterNode
from gamehall.hall import Hall
from gamehall.store import MemoryStore


class Cluster:
    def __init__(self, games: dict, names=("a", "b"), **hall_kw) -> None:
        self.clock = Clock()
        self.hub = LocalHub(self.clock)
        self.store = MemoryStore(self.clock)
        self.store.open()
        self.games = games
        self.hall_kw = dict(hall_kw)
        self.hall_kw.setdefault("seat_hold", 30.0)
        self.hall_kw.setdefault("bot_delay", 0.5)
        self.hall_kw.setdefault("idle_timeout", 0)
        self.halls: dict[str, Hall] = {}
        for name in names:
            self.add(name)

    def add(self, name: str, store=None) -> Hall:
        """A process joins (``store``: its own way to the shared store, default the store)."""
        hall = Hall(self.clock, store if store is not None else self.store, self.games, **self.hall_kw)
        bus = LocalBus(self.clock, self.hub)
        bus.start()
        attach(hall, ClusterNode(self.clock, bus, name))
        hall.cluster.start()
        hall.restore()
        self.halls[name] = hall
        self.settle()
        return hall

    def kill(self, name: str) -> None:
        """The process dies (SIGKILL): its bus goes silent, its timers stop mattering."""
        hall = self.halls.pop(name)
        hall.cluster.tables.halt()                # no renewal, no release: its leases lapse
        node = hall.cluster.node
        node._running = False
        if node._beat is not None and node._beat.active():
            node._beat.cancel()
        for table in hall.tables.values():
            table.relay = None
            table.drop_timers()
            table.pause()
        node.bus.stop()

    def settle(self, rounds: int = 20) -> None:
        for _ in range(rounds):
            self.clock.advance(0)

    def run(self, seconds: float, step: float = 0.05) -> None:
        elapsed = 0.0
        while elapsed < seconds:
            self.clock.advance(step)
            self.settle(3)
            elapsed += step


def bot_table(hall):
    """A two-seat Acquire table of two hall bots on ``hall``, started."""
    table = hall.create_table("acquire", max_seats=2)
    table.add_bot()
    table.add_bot()
    table.start()
    return table
