"""Table leases: which process of a many-process hall runs a live table (``ILeaseStore``),
and the error a write from a process that lost it gets (``StoreFenced``).

A lease is three columns of the table's row: its owner (a name unique to one process
run), its epoch and when it expires.  The epoch grows by one each time the lease changes
hands, so it names one holding: a write made with an epoch (``append_action``,
``update_table``, ``finish_table``'s ``epoch=``) is refused with ``StoreFenced`` unless the
row still carries that epoch, checked in the write's own transaction.  A process whose
lease was taken over can therefore never append another action to the table, whatever it
believes in memory.  Expiry is judged by the database's clock (PostgreSQL's; SQLite's and
the memory store's own clock), so processes whose clocks disagree agree on it.
"""
from __future__ import annotations

from twisted.internet.defer import Deferred
from zope.interface import Interface

from .interface import StoreError


class StoreFenced(StoreError):
    """A write made under a lease epoch the table no longer carries: another process runs
    the table now (or its lease lapsed and was taken again).  Retrying cannot help."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"table {table_id} is run by another process now")
        self.table_id = table_id


class ILeaseStore(Interface):
    """Leases on live tables, for a hall of many processes on one store.

    ``create_table(..., lease=(owner, ttl))`` (``IStore``'s, with this keyword) creates a
    table with its lease held by ``owner`` at epoch 1, in the same transaction.
    """

    def take_lease(table_id: int, owner: str, ttl: float) -> Deferred[int | None]:
        """Take the lease of a live table for ``ttl`` seconds: fires with its epoch, or
        None when another owner holds an unexpired lease (or the table is not live).

        A free, released or expired lease is taken at the next epoch (one more than the
        last), even when the expired lease was ``owner``'s own (what it wrote under the
        old epoch is fenced).  A lease ``owner`` holds unexpired is renewed: same epoch."""

    def renew_leases(owner: str, leases: dict[int, int], ttl: float) -> Deferred[list[int]]:
        """Extend by ``ttl`` seconds, in one statement, every lease of ``leases``
        (``{table_id: epoch}``) that ``owner`` still holds at that epoch on a live table
        (expired but not taken by another counts: the epoch says nobody did); fires with
        their ids, ascending.  The others are lost."""

    def release_lease(table_id: int, owner: str, epoch: int) -> Deferred[bool]:
        """Give the lease up (a clean shutdown): the next taker need not wait for it to
        expire.  True if ``owner`` held it at ``epoch``; a lease it no longer holds is
        left alone (False)."""

    def lapsed_tables(limit: int = 100) -> Deferred[list[int]]:
        """Up to ``limit`` live tables (waiting or playing) whose lease is free or expired,
        ascending: what a takeover scan tries ``take_lease`` on.  A plain read: it locks
        nothing, so it never holds up another process's writes."""
