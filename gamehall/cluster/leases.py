"""``LeaseKeeper``: the table leases one process of the hall holds, kept alive.

A process runs a table only while it holds the table's lease (``gamehall.store.leases``):
the keeper renews every lease it holds in one store call (``renew_leases``) every
``ttl / 3`` seconds and reports through ``lost(table_id, epoch)`` each lease that call
did not renew (another process took it, the table ended): the host stops that table.

Self-fencing: a lease renewed by a call *sent* at ``t`` lasts in the store at least until
``t + ttl`` (the store adds ttl when it runs the call, later).  When no call has renewed a
lease for ``2 * ttl / 3`` (the store is unreachable or too slow to answer), the keeper
reports it lost at once, a third of the ttl before anyone else may take it: the host stops
the table before another process can start it, so no table ever has two owners.  Such
self-fenced leases are taken back once the store answers again (``release_lease`` then
``take_lease``: always a new epoch, so nothing the stopped table still had in flight can
be written under it), and each one regained is reported through ``regained(table_id,
epoch)`` (the host loads the table from the store and runs it again); one another process
took meanwhile is forgotten.

Taking tables over from a process that died is ``take_lapsed``: a scan of the live tables
whose lease is free or expired, each taken at the next epoch (the host loads and runs the
ones it got); when and how often to scan is the host's choice.
"""
from __future__ import annotations

import os
import socket
import uuid
from typing import Callable

from twisted.internet.defer import Deferred, gatherResults, succeed
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from gamehall.store.interface import StoreError


def new_owner_name() -> str:
    """A lease owner name for this process run: host, pid and a random part, so a restarted
    process (the same host and maybe pid) is never taken for its former self."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class LeaseKeeper:
    """This process's leases ``{table_id: epoch}``, renewed and watched; see the module
    docstring.  ``store`` provides ``ILeaseStore``; ``owner`` names this process run
    (``new_owner_name``); ``ttl`` is the lease length in seconds.  ``lost`` and
    ``regained`` (attributes, may be set later) are called with ``(table_id, epoch)``.
    """

    log = Logger()

    def __init__(
        self, clock: IReactorTime, store, owner: str, ttl: float,
        lost: Callable[[int, int], object] | None = None,
        regained: Callable[[int, int], object] | None = None,
    ) -> None:
        self.clock, self.store, self.owner, self.ttl = clock, store, owner, float(ttl)
        self.lost = lost
        self.regained = regained
        #: Seconds between renewals.
        self.interval = self.ttl / 3
        #: Seconds after the last renewal sent that succeeded when a lease is given up.
        self.fence_after = 2 * self.ttl / 3
        self._held: dict[int, tuple[int, float]] = {}   # table id -> (epoch, renewed by a call sent then)
        self._fenced: dict[int, int] = {}                # self-fenced, to take back: id -> old epoch
        self._tick_call = None
        self._fence_call = None
        self._renewing = False
        self._reclaiming = False
        self.renewals = 0                                # renewal calls that succeeded

    # -- what the host asks ---------------------------------------------------

    @property
    def leases(self) -> dict[int, int]:
        """The leases held now, ``{table_id: epoch}`` (a copy)."""
        return {table_id: epoch for table_id, (epoch, _) in self._held.items()}

    def epoch(self, table_id: int) -> int | None:
        """The epoch this process holds ``table_id`` at, or None."""
        held = self._held.get(table_id)
        return None if held is None else held[0]

    def start(self) -> None:
        """Renew every ``interval`` seconds from now on (and watch the leases held)."""
        if self._tick_call is None:
            self._tick_call = self.clock.callLater(self.interval, self._tick)
            self._watch(rescan=True)

    def stop(self) -> None:
        """Stop renewing and watching (the leases then lapse, unless released)."""
        for call in (self._tick_call, self._fence_call):
            if call is not None and call.active():
                call.cancel()
        self._tick_call = self._fence_call = None

    def hold(self, table_id: int, epoch: int, since: float | None = None) -> None:
        """Keep a lease taken elsewhere (``create_table(lease=...)``) by a call sent at
        ``since`` (default: now)."""
        self._fenced.pop(table_id, None)
        self._held[table_id] = (epoch, self.clock.seconds() if since is None else since)
        self._watch()

    def take(self, table_id: int) -> Deferred[int | None]:
        """Take a table's lease (a takeover): fires with its epoch, now held, or None
        when another process holds it."""
        sent = self.clock.seconds()

        def taken(epoch: int | None) -> int | None:
            if epoch is not None:
                self.hold(table_id, epoch, sent)
            return epoch

        return self.store.take_lease(table_id, self.owner, self.ttl).addCallback(taken)

    def take_lapsed(self, limit: int = 100) -> Deferred[dict[int, int]]:
        """A takeover scan: try to take every live table whose lease is free or expired (at
        most ``limit``); fires with those taken, ``{table_id: epoch}``, now held (the host
        loads and runs them).  One another process took first is skipped."""

        def scanned(table_ids: list[int]) -> Deferred[dict[int, int]]:
            ids = [table_id for table_id in table_ids if table_id not in self._fenced]
            d = gatherResults([self.take(table_id) for table_id in ids], consumeErrors=True)
            return d.addCallback(lambda epochs: {t: e for t, e in zip(ids, epochs) if e is not None})

        return self.store.lapsed_tables(limit).addCallback(scanned)

    def forget(self, table_id: int) -> None:
        """Stop keeping a lease (its table ended: a finished table needs none)."""
        self._held.pop(table_id, None)
        self._fenced.pop(table_id, None)

    def release(self, table_id: int) -> Deferred[bool]:
        """Give a lease up in the store (a clean shutdown: the next taker need not wait)."""
        held = self._held.pop(table_id, None)
        self._fenced.pop(table_id, None)
        if held is None:
            return succeed(False)
        return self.store.release_lease(table_id, self.owner, held[0])

    def release_all(self) -> Deferred[list[bool]]:
        """Stop, and give every lease up (a clean shutdown)."""
        self.stop()
        return gatherResults([self.release(table_id) for table_id in list(self._held)],
                             consumeErrors=True)

    # -- renewing -------------------------------------------------------------

    def _tick(self) -> None:
        self._tick_call = self.clock.callLater(self.interval, self._tick)
        self.renew()
        self._reclaim()

    def renew(self) -> Deferred[None]:
        """Renew every lease held, in one call (unless one is in flight); fires when done."""
        if self._renewing or not self._held:
            return succeed(None)
        self._renewing = True
        sent = self.clock.seconds()
        asked = {table_id: epoch for table_id, (epoch, _) in self._held.items()}

        def renewed(ids: list[int]) -> None:
            self.renewals += 1
            kept = set(ids)
            for table_id, epoch in asked.items():
                if self.epoch(table_id) != epoch:
                    continue                  # released, forgotten or fenced meanwhile
                if table_id in kept:
                    self._held[table_id] = (epoch, sent)
                else:
                    del self._held[table_id]
                    self.log.warn("table {id}: lease (epoch {epoch}) lost to another process",
                                  id=table_id, epoch=epoch)
                    self._report(self.lost, table_id, epoch)
            self._watch(rescan=True)

        def failed(failure: Failure) -> None:
            if not failure.check(StoreError):
                self.log.failure("lease renewal failed", failure)
                return
            self.log.warn("lease renewal failed ({why}); {n} leases are given up {s:.1f} s after "
                          "their last renewal", why=failure.getErrorMessage(), n=len(asked),
                          s=self.fence_after)

        def done(result):
            self._renewing = False
            return result

        return self.store.renew_leases(self.owner, asked, self.ttl).addCallbacks(
            renewed, failed).addBoth(done)

    # -- self-fencing ---------------------------------------------------------

    def _watch(self, rescan: bool = False) -> None:
        """Have ``_fence_due`` called when the oldest renewal reaches ``fence_after``."""
        if self._fence_call is not None and self._fence_call.active():
            if not rescan:
                return                        # a lease just held is not the oldest
            self._fence_call.cancel()
        self._fence_call = None
        if self._held:
            oldest = min(since for _, since in self._held.values())
            delay = max(0.0, oldest + self.fence_after - self.clock.seconds())
            self._fence_call = self.clock.callLater(delay, self._fence_due)

    def _fence_due(self) -> None:
        self._fence_call = None
        now = self.clock.seconds()
        late = [(table_id, epoch) for table_id, (epoch, since) in self._held.items()
                if now - since >= self.fence_after]
        if late:
            self.log.error("no lease renewal for {s:.1f} s: {n} tables given up before their "
                           "leases can lapse (taken back once the store answers)",
                           s=self.fence_after, n=len(late))
        for table_id, epoch in late:
            del self._held[table_id]
            self._fenced[table_id] = epoch
            self._report(self.lost, table_id, epoch)
        self._watch(rescan=True)

    def _reclaim(self) -> Deferred[None]:
        """Take the self-fenced leases back, each at a new epoch (release, then take)."""
        if self._reclaiming or not self._fenced:
            return succeed(None)
        self._reclaiming = True
        fenced = dict(self._fenced)

        def one(table_id: int, old: int) -> Deferred[None]:
            sent = self.clock.seconds()

            def taken(epoch: int | None) -> None:
                if self._fenced.get(table_id) != old:
                    return                    # forgotten or held again meanwhile
                del self._fenced[table_id]
                if epoch is None:
                    self.log.info("table {id}: another process runs it now", id=table_id)
                    return
                self.hold(table_id, epoch, sent)
                self.log.info("table {id}: lease taken back (epoch {epoch})", id=table_id, epoch=epoch)
                self._report(self.regained, table_id, epoch)

            d = self.store.release_lease(table_id, self.owner, old)
            d.addCallback(lambda _: self.store.take_lease(table_id, self.owner, self.ttl))
            return d.addCallback(taken).addErrback(untaken, table_id)

        def untaken(failure: Failure, table_id: int) -> None:
            if not failure.check(StoreError):
                self.log.failure("table {id}: taking its lease back failed", failure, id=table_id)

        def done(result):
            self._reclaiming = False
            return None

        return gatherResults([one(t, e) for t, e in fenced.items()], consumeErrors=True).addBoth(done)

    def _report(self, callback, table_id: int, epoch: int) -> None:
        if callback is None:
            return
        try:
            callback(table_id, epoch)
        except Exception:
            self.log.failure("table {id}: the lease callback failed", id=table_id)
