"""The multi-process layer: one hall run by several processes on one store and one bus,
each live table run by exactly one of them.

A one-process hall (SQLite, no ``--bus``) uses none of it.  With ``--bus`` (and a
PostgreSQL store) each process is tied to its hall's bus at start-up and announces itself
on it (``binding``, ``process``); ``--workers N`` starts N such processes on one machine,
sharing the listening ports the main process opened (``workers``).  Each process is a
``ClusterNode`` (``node``): an id, an inbox on the bus, requests to other processes with
replies, broadcasts to the whole hall.  On it: ``presence`` (users, nicknames, chat, the
console across processes; ``hallwide`` composes the parts for the hall) and ``leases``
(``LeaseKeeper``: this process's table leases, renewed in one store call, all of them given
up before they can lapse when the store cannot be reached; the takeover scan of tables
whose lease lapsed; the store side is ``gamehall.store.leases``).
"""
