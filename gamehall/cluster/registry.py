"""Registered names across the processes of one hall.

Every process keeps the whole registry in memory (gamehall.players.Players: ``Hall.login``
checks names and keys synchronously).  A change made on one process (a name registered or
reset, a key made or revoked, a password changed) is stored first, then broadcast on the
``hall`` channel as ``players.changed`` with the player's row as the store keeps it (None:
no registration any more); every other process applies it at once, so a revoked key or a
reset name is refused everywhere from then on and a key or password works on any process.

The bus is at most once: each message carries the sender's running number ``n``; a receiver
that sees a gap reloads the registry from the store, and so does every process when the bus
comes back after an outage (the changes of the outage are in the store, not on the bus).
Messages arriving while a reload is under way are applied after it, so an older read never
undoes a newer change.

The store keeps one registration per name, not per lookalike: so that two processes do not
register lookalikes (``Alice`` here, ``AIice`` there) at the same moment, a registration
first claims every lookalike key of the name on the bus (``reg:<key>``, one after another in
sorted order, as presence claims nicknames), and keeps the claims for ``REGISTER_CLAIM_TTL``
seconds, by when every process has applied it; a registration refused or failed releases
them.  With the bus down nobody can register (the answer says to try again shortly).
"""
from __future__ import annotations

import itertools

from twisted.internet.defer import Deferred, inlineCallbacks, succeed

from gamehall.bus import BusUnavailable
from gamehall.logger import SharedLogger
from gamehall.players import PlayerError

_log = SharedLogger(namespace="gamehall.cluster.registry")

REGISTER_CLAIM_TTL = 30.0     # seconds a registration's claims on its lookalike keys are kept


class RegistrySync:
    """This process's side of the hall-wide registry (see the module docstring)."""

    log = _log

    def __init__(self, hall, node) -> None:
        self.hall, self.node = hall, node
        self.players = hall.players
        self._seq = itertools.count(1)
        self._last: dict[str, int] = {}           # sender -> last number seen
        self._reloading: Deferred | None = None
        self._queued: list[tuple[str, dict | None]] = []
        self.reloads = 0                          # how many times the store was read again

    def start(self) -> None:
        self.players.claims = self
        self.players.on_change.append(self._changed)
        self.node.on_message("players.changed", self._on_changed)
        self.node.on_message("players.rated", self._on_rated)
        self.node.on_peer_gone.append(self._peer_gone)

    def stop(self) -> None:
        if self.players.claims is self:
            self.players.claims = None
        if self._changed in self.players.on_change:
            self.players.on_change.remove(self._changed)

    # -- registrations: lookalikes claimed hall-wide -----------------------------------
    @inlineCallbacks
    def claim(self, keys):
        """Claim each lookalike key of a name being registered; True when all are held (kept
        REGISTER_CLAIM_TTL seconds), False (none kept) when another process has one."""
        got = []
        try:
            for key in keys:
                won = yield self.node.bus.claim("reg:" + key, self.node.process_id, REGISTER_CLAIM_TTL)
                if not won:
                    self.release(got)
                    return False
                got.append(key)
        except BusUnavailable:
            self.release(got)
            raise PlayerError("Registration is not possible right now (the hall's processes cannot "
                              "reach each other); try again shortly")
        return True

    def release(self, keys) -> None:
        for key in keys:
            self.node.bus.release("reg:" + key, self.node.process_id).addErrback(lambda f: None)

    # -- this process's changes ----------------------------------------------------
    def _changed(self, key: str) -> None:
        player = self.players.by_key.get(key)
        body = {"key": key, "row": None if player is None else self.players.row(player), "n": next(self._seq)}
        d = self.node.broadcast("players.changed", body)
        # a lost broadcast shows as a gap at the others (the next number), or the bus's
        # return makes them reload: the store has the change either way
        d.addErrback(lambda f: self.log.warn("registry change of {key} not sent: {why}", key=key,
                                             why=f.getErrorMessage()))

    def rated(self, names) -> None:
        """A game of these players was rated here: the others read their ratings again (what
        their tables' seats show).  A lost message leaves a seat's rating one game old."""
        self.node.broadcast("players.rated", {"names": list(names)}).addErrback(
            lambda f: self.log.warn("players.rated not sent: {why}", why=f.getErrorMessage()))

    def _on_rated(self, pid: str, body: dict) -> None:
        names = body.get("names")
        if isinstance(names, list) and all(isinstance(n, str) for n in names):
            self.hall.seat_ratings.rated(names)

    # -- the others' ---------------------------------------------------------------
    def _on_changed(self, pid: str, body: dict) -> None:
        n = body.get("n")
        last = self._last.get(pid)
        self._last[pid] = n
        key, row = body.get("key"), body.get("row")
        if not isinstance(key, str) or not (row is None or isinstance(row, dict)):
            self.log.warn("a bad players.changed from {pid} ignored", pid=pid)
            return
        if self._reloading is not None:
            self._queued.append((key, row))
            return
        if last is not None and isinstance(n, int) and n != last + 1:
            self.log.info("registry changes from {pid} lost ({last} then {n}): reloading", pid=pid,
                          last=last, n=n)
            self._queued.append((key, row))
            self.reload()
            return
        self.players.apply(key, row)

    def _peer_gone(self, pid: str) -> None:
        self._last.pop(pid, None)

    def bus_state(self, up: bool) -> None:
        """The bus is back: what was said during the outage is lost; the store has it."""
        if up:
            self.reload()
            self.hall.seat_ratings.cache.clear()      # games rated elsewhere meanwhile

    def reload(self) -> Deferred:
        """Read the registry from the store again (messages meanwhile are applied after it)."""
        if self._reloading is not None:
            return succeed(None)
        self.reloads += 1
        self._reloading = d = self.players.load()

        def done(result):
            self._reloading = None
            queued, self._queued = self._queued, []
            for key, row in queued:
                self.players.apply(key, row)
            return result

        def failed(failure):
            self.log.failure("the registry could not be reloaded from the store", failure)
            return None

        d.addBoth(done)
        d.addErrback(failed)
        return d
