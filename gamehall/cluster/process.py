"""One process of a hall on a bus: connected before it serves anyone, tied to its store
(gamehall.cluster.binding), announced on the bus while it runs."""
from __future__ import annotations

import os

from twisted.internet import defer, task
from twisted.logger import Logger

from gamehall.cluster import binding as binding_module
from gamehall.cluster.binding import bind, still_bound

#: seconds between announcements; an announcement lives ``3 * ANNOUNCE`` (a process that
#: stops announcing, killed or cut off, drops out of ``IBus.processes`` by then)
ANNOUNCE = 5.0


class ClusterProcess:
    """The hall's link to the other processes: ``connect`` (the bus), ``bind`` (once the
    store is open), ``announce`` (once it serves), ``stop``."""

    log = Logger()

    def __init__(self, hall, bus, clock, bus_url: str, frontends: dict, *, move_bus: bool = False,
                 announce_every: float = ANNOUNCE) -> None:
        self.hall, self.bus, self.clock = hall, bus, clock
        self.bus_url = bus_url
        self.frontends = dict(frontends)        # name -> [endpoint descriptions]
        self.move_bus = move_bus
        self.every = announce_every
        self.binding: dict | None = None
        self._loop: task.LoopingCall | None = None
        self._last_refresh = 0.0

    def connect(self):
        return self.bus.start()

    def bind(self):
        d = bind(self.hall.store, self.bus, self.clock, self.bus_url, move=self.move_bus)

        def bound(binding):
            self.binding = binding
            self._last_refresh = self.clock.seconds()
            self.log.info("process {id} of hall {hall} on the bus at {bus}",
                          id=self.hall.process_id, hall=binding["hall"], bus=self.bus_url)

        return d.addCallback(bound)

    def info(self) -> dict:
        return {"pid": os.getpid(), "hall": self.binding["hall"] if self.binding else None,
                "frontends": self.frontends, "started": self.hall.stats.started}

    def announce(self) -> None:
        before = self.bus.on_state           # the hall-wide layer's (join_hall), if any: kept

        def on_state(up: bool) -> None:
            if before is not None:
                before(up)
            self._bus_state(up)
        self.bus.on_state = on_state
        self._loop = task.LoopingCall(self._tick)
        self._loop.clock = self.clock
        self._loop.start(self.every, now=True)

    def _tick(self):
        if self.hall.cluster is not None:
            # the hall-wide layer's node announces the process, on its own shorter heartbeat
            # (peers see a killed process gone sooner): it carries these figures
            self.hall.cluster.node.info.update(self.info())
        else:
            d = self.bus.process_alive(self.hall.process_id, self.info(), 3 * self.every)
            d.addErrback(lambda f: self.log.warn("bus: cannot announce process {id}: {why}",
                                                 id=self.hall.process_id, why=f.getErrorMessage()))
        if self.clock.seconds() - self._last_refresh >= binding_module.REFRESH:
            self._last_refresh = self.clock.seconds()
            self.binding = dict(self.binding, seen=self.clock.seconds())
            self.hall.store.save_setting(binding_module.SETTING, self.binding).addErrback(
                lambda f: self.log.warn("cannot note in the store that the hall is alive: {why}",
                                        why=f.getErrorMessage()))
        return None                               # a failed announcement must not stop the loop

    def _bus_state(self, up: bool) -> None:
        if not up or self.binding is None:
            return
        # Redis may have come back empty: keep the bus ours, say we are alive at once.
        expected = still_bound(self.binding)

        def check(value):
            if value != expected:
                self.log.critical("the bus at {bus} now belongs to another hall ({value}); "
                                  "this process keeps serving its players but is cut off from "
                                  "the rest of its hall", bus=self.bus_url, value=value)

        self.bus.hall_id(expected).addCallbacks(check, lambda f: None)
        self._tick()

    def stop(self):
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        d = defer.succeed(None)
        if self._loop is not None and self.bus.is_up:
            d = self.bus.process_gone(self.hall.process_id).addErrback(lambda f: None)
        return d.addCallback(lambda _: self.bus.stop())
