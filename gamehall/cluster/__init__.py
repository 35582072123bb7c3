"""The multi-process layer: one hall run by several processes on one store and one bus,
each live table run by exactly one of them.

A one-process hall (SQLite, no ``--bus``) uses none of it.  With ``--bus`` (and a
PostgreSQL store) each process is a ``ClusterNode`` (``node``): it has an id, an inbox on
the bus, and asks other processes for things (requests with replies) or tells the whole
hall (broadcasts).  ``leases`` (``LeaseKeeper``): this process's table leases, renewed in
one store call, each loss reported, all of them given up before they can lapse when the
store cannot be reached, and the takeover scan of tables whose lease lapsed (the store
side of a lease is ``gamehall.store.leases``).
"""
