"""``HallWide``: what makes a ``Hall`` one process of a hall of several (``hall.cluster``).

It composes the parts built on the process's ``ClusterNode``: ``tables``
(gamehall.cluster.tables: the tables of other processes in ``hall.tables``, ownership,
forwarding, take-over).  A one-process hall has ``hall.cluster is None`` and none of this.
"""
from __future__ import annotations

from twisted.internet.defer import inlineCallbacks

from gamehall.cluster.tables import ClusterTables


class HallWide:
    def __init__(self, hall, node) -> None:
        self.hall, self.node = hall, node
        self.tables = ClusterTables(hall, node)

    @inlineCallbacks
    def start(self):
        """Join the hall: the node on the bus, then this process's block of table numbers
        (before ``hall.restore``, which then takes the unfinished tables nobody runs)."""
        yield self.node.start()
        yield self.tables.start()

    def stop(self):
        self.tables.stop()
        return self.node.stop()


def attach(hall, node) -> HallWide:
    """Make ``hall`` a process of the hall ``node`` is on; ``start()`` the result."""
    hall.cluster = HallWide(hall, node)
    return hall.cluster
