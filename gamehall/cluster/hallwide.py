"""One process's cluster parts composed for its hall: ``hall.cluster``.

``join_hall(hall, bus)`` makes this process's ``ClusterNode`` on ``bus`` and the parts built
on it (``attach(hall, node)`` for a node already made), sets ``hall.cluster``, and returns
the ``HallCluster``: start it before ``hall.restore`` (which then takes only the
unfinished tables no other process runs), stop it before the bus closes.  The parts:
``presence`` (users, nicknames, chat), ``registry`` (registered names: each change carried to
the others, gamehall.cluster.registry), ``operator`` (the console's requests to other
processes) and ``tables`` (gamehall.cluster.tables: the tables of other processes in
``hall.tables``, ownership, forwarding, take-over).  The hall calls the hooks below only when
``hall.cluster`` is set, so a hall of one process (no bus) runs without any of this.

Hooks the hall calls (gamehall/hall.py): ``user_logged_in(user)`` after ``Hall.login``
admitted a user, ``user_logged_out(user)`` after ``Hall.logout``, ``table_changed(table)``
when a table's seats or spectators changed or it left ``hall.tables``, ``kick(user,
reason)`` for a user of another process.  The lobby calls ``Presence.relay_chat`` through
``Lobby.relay``.  The console uses ``process_id``, ``say``, ``peer_stats`` and
``operator`` (close and bot on another process's table).
"""
from __future__ import annotations

from twisted.internet.defer import Deferred, inlineCallbacks

from .node import ClusterNode
from .operator import OperatorRequests
from .presence import Presence
from .registry import RegistrySync
from .tables import ClusterTables


class HallCluster:
    """This process's part in a hall of several: the node and what is built on it."""

    def __init__(self, hall, node: ClusterNode, **presence_options) -> None:
        self.hall, self.node = hall, node
        self.presence = Presence(hall, node, **presence_options)
        self.operator = OperatorRequests(hall, node)
        self.tables = ClusterTables(hall, node)
        self.registry = RegistrySync(hall, node)

    @property
    def process_id(self) -> str:
        return self.node.process_id

    @inlineCallbacks
    def start(self):
        """Join the hall: listening before the first peers are seen, then the node on the bus,
        then this process's block of table numbers."""
        self.presence.start()
        self.operator.start()
        self.registry.start()
        yield self.node.start()
        yield self.tables.start()

    def stop(self) -> Deferred:
        """Leave the hall (after ``Hall.quiesce``): the tables run here are handed over (their
        leases released first, so the others take them at once), then the registry, presence
        and the node."""
        d = self.tables.stop()
        d.addBoth(lambda _: self.registry.stop())
        d.addBoth(lambda _: self.presence.stop())
        d.addBoth(lambda _: self.node.stop())
        return d

    def bus_state(self, up: bool) -> None:
        """``IBus.on_state``: the bus went down or came back."""
        self.presence.bus_state(up)
        self.registry.bus_state(up)

    # -- the hall's hooks --------------------------------------------------
    def user_logged_in(self, user) -> None:
        self.presence.user_logged_in(user)

    def user_logged_out(self, user) -> None:
        self.presence.user_logged_out(user)

    def table_changed(self, table) -> None:
        self.presence.table_changed(table)

    def kick(self, user, reason: str) -> Deferred:
        return self.presence.kick(user, reason)

    # -- the console's -----------------------------------------------------
    def say(self, text: str) -> Deferred:
        return self.presence.say(text)

    def peer_stats(self) -> Deferred:
        return self.operator.peer_stats()


def join_hall(hall, bus, process_id: str | None = None, *, info: dict | None = None,
              node_options: dict | None = None, **presence_options) -> HallCluster:
    """Make ``hall`` one process of the hall on ``bus`` (``hall.cluster``); not started."""
    info = dict(info or {})
    info.setdefault("frontends", sorted(hall.frontends))
    node = ClusterNode(hall.clock, bus, process_id, info=info, **(node_options or {}))
    cluster = attach(hall, node, **presence_options)
    before = bus.on_state

    def on_state(up: bool) -> None:
        if before is not None:
            before(up)
        cluster.bus_state(up)
    bus.on_state = on_state
    return cluster


def attach(hall, node: ClusterNode, **presence_options) -> HallCluster:
    """Make ``hall`` a process of the hall ``node`` is on (``hall.cluster``); not started."""
    hall.cluster = HallCluster(hall, node, **presence_options)
    return hall.cluster
