"""The multi-process layer: one hall run by several processes on one store and one bus.

A one-process hall (SQLite, no ``--bus``) uses none of it.  With ``--bus`` (and a
PostgreSQL store) each process is a ``ClusterNode`` (gamehall.cluster.node): it has an id,
an inbox on the bus, and asks other processes for things (requests with replies) or
tells the whole hall (broadcasts).  The layers above it are built on the node alone.
"""
