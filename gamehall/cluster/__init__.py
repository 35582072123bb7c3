"""The multi-process layer of the hall: one hall run as many processes on one store and one
bus, each live table run by exactly one of them.

Modules: ``leases`` (``LeaseKeeper``: this process's table leases, renewed in one store
call, each loss reported, all of them given up before they can lapse when the store
cannot be reached, and the takeover scan of tables whose lease lapsed).  The store side of a lease is ``gamehall.store.leases``.
"""
