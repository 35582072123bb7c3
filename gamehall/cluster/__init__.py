"""The multi-process layer: one hall run by several processes on one store and one bus.

A one-process hall (SQLite, no ``--bus``) uses none of it.  With ``--bus`` (and a
PostgreSQL store) each process is tied to its hall's bus at start-up and announces
itself on it (gamehall.cluster.binding, gamehall.cluster.process); ``--workers N``
starts N such processes on one machine, sharing the listening ports the main process
opened (gamehall.cluster.workers).
"""
