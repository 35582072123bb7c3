"""A table's store writes and the steps that wait for them, run in order.

Every step a table queues (a store write, or what must follow the writes queued
before it: telling players, asking the next seat) runs after every earlier
step has completed, in order: at once when nothing is pending.  A step that
returns a Deferred holds up the steps after it until it fires; a step that
fails is reported and the next one runs.  It is a plain queue, not a chain of
Deferreds: several steps run per action, and a chain would cost a Deferred and
a callback frame each.

A write that fails *stalls* the queue: nothing after it runs, its owner is
told (``stalled``), and the same write is retried on the clock (``RETRY_FIRST``
seconds, doubling up to ``RETRY_MAX``) until it succeeds; then the owner is
told again (``resumed``) and the queue goes on by itself.  ``flush`` fires
once what is queued has run, or as soon as the queue stalls; ``after_stored``
(a step) never before the writes queued ahead of it have succeeded.

A write refused with ``StoreFenced`` (another process of the hall runs the table now)
is not retried: the queue is *fenced* (``fence``): what is queued is dropped, nothing
queued later runs, and its owner is told (``fenced``).

The queue knows no table: ``gamehall.table.Table`` owns one and reacts to its
stalls (pausing the game, telling the players and the hall).
"""
from __future__ import annotations

from collections import deque
from typing import Callable

from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from gamehall.store.leases import StoreFenced

RETRY_FIRST, RETRY_MAX = 1.0, 30.0        # seconds between retries of a failed store write


class StoreWaiting(Exception):
    """Why a queue whose own write has not failed is stalled: the store cannot write."""


class TableWrites:
    """One table's queue of store writes and of the steps that follow them.

    ``clock`` (IReactorTime) times the retries; ``stalled(what)`` is called when a
    write first fails (``stalled_since`` and ``stall_reason`` already set),
    ``resumed(since)`` when it has finally succeeded (``stalled_since`` cleared;
    ``since`` is when the stall began), ``step_failed(failure)`` for a step that raised,
    ``fenced(failure)`` when a write was refused with ``StoreFenced`` (the queue is fenced).
    """

    def __init__(self, clock, stalled: Callable[[str], object], resumed: Callable[[float], object],
                 step_failed: Callable[[Failure], object],
                 fenced: Callable[[Failure], object] | None = None) -> None:
        self.clock = clock
        self._stalled, self._resumed, self._step_failed = stalled, resumed, step_failed
        self._fenced = fenced
        #: True once fenced: nothing queued runs any more.
        self.fenced = False
        # steps, and writes as (what, write) pairs
        self._queued: deque[Callable[[], object] | tuple[str, Callable[[], Deferred]]] = deque()
        self._stepping = False                 # _run_steps is on the stack
        self._waiting = False                  # a step's Deferred holds up the rest
        self.stalled_since: float | None = None    # a store write is failing since then
        self.stall_reason = ""
        self._retry_call = None                # IDelayedCall: next attempt of the failing write
        self.writing_since: float | None = None    # a store write is in flight since then
        # The write the queue waits for (one at a time: nothing runs until it has succeeded)
        # and its next retry delay; cleared once stored (the write refers to the owner).
        self._write_what = ""
        self._write_call: Callable[[], Deferred] | None = None
        self._write_delay = RETRY_FIRST
        self._flushes: list[Deferred] = []

    @property
    def stalled(self) -> bool:
        """True while a store write fails (or waits on a store that fails others')."""
        return self.stalled_since is not None

    @property
    def retry_due(self) -> bool:
        """True while a failed write waits for its next attempt."""
        return self._retry_call is not None

    def queue(self, step: Callable[[], object]) -> None:
        """Run ``step`` after every step queued before it (see the module docstring); once
        fenced, never."""
        if self.fenced:
            return
        self._queued.append(step)
        if not self._stepping and not self._waiting:
            self._run_steps()

    def write(self, what: str, write: Callable[[], Deferred]) -> None:
        """Queue a store write; nothing queued after it runs until it has succeeded.
        ``what`` names it in the stall report."""
        self.queue((what, write))    # type: ignore[arg-type]   (_run_steps tells them apart)

    def flush(self) -> Deferred:
        """Fires once every step queued so far has completed, or as soon as the queue
        stalls on a write (what follows a failing write waits for it); at once when fenced."""
        done: Deferred = Deferred()
        if self.fenced:
            done.callback(None)
            return done
        self._flushes.append(done)
        self.queue(lambda: self._fire_flush(done))
        if self.stalled:
            self._fire_flush(done)
        return done

    def stall_waiting(self, reason: str) -> None:
        """The store cannot write (another table's write failed with ``reason``) and this
        queue's write is still waiting for it: stall as if it had failed, and go on when
        the write is stored."""
        if self.stalled or self.fenced or self.writing_since is None:
            return
        self._stall("pending write", Failure(StoreWaiting(f"waiting for the store ({reason})")))

    def fence(self) -> None:
        """Stop for good (another process runs the table now): drop what is queued, retry
        nothing, run nothing queued later; fire the flushes waiting.  A write in flight
        may still complete; nothing waits for it."""
        if self.fenced:
            return
        self.fenced = True
        self._queued.clear()
        if self._retry_call is not None and self._retry_call.active():
            self._retry_call.cancel()
        self._retry_call = None
        self._write_call = None      # not attempted again (one in flight may still complete)
        self.stalled_since = None
        for done in list(self._flushes):
            self._fire_flush(done)

    def _fire_flush(self, done: Deferred) -> None:
        if done in self._flushes:
            self._flushes.remove(done)
            done.callback(None)

    def _run_steps(self) -> None:
        self._stepping = True
        try:
            while self._queued and not self._waiting:
                step = self._queued.popleft()
                if type(step) is tuple:
                    # a write: the queue waits until it is stored (_stored calls _step_done)
                    self._waiting = True
                    self._write_what, self._write_call = step
                    self._write_delay = RETRY_FIRST
                    self._attempt()
                    continue
                try:
                    result = step()
                except Exception:
                    self._step_failed(Failure())
                    continue
                if isinstance(result, Deferred):
                    self._waiting = True
                    result.addBoth(self._step_done)      # may fire at once
        finally:
            self._stepping = False

    def _step_done(self, result) -> None:
        if isinstance(result, Failure):
            self._step_failed(result)
        self._waiting = False
        if not self._stepping:
            self._run_steps()

    # The write the queue waits for runs until it succeeds: a failure stalls the queue, and
    # the same write is retried after 1 s, 2 s, 4 s... (at most RETRY_MAX apart) on the clock.
    # Its callbacks are the queue's own methods: no Deferred or closures of its own per write.

    def _attempt(self) -> None:
        self._retry_call = None
        self.writing_since = self.clock.seconds()
        try:
            written = self._write_call()
        except BaseException:
            self._write_failed(Failure())
            return
        if isinstance(written, Deferred):
            written.addCallbacks(self._stored, self._write_failed)
        else:
            self._stored(written)

    def _stored(self, _) -> None:
        self._write_call = None
        self.writing_since = None
        if self.stalled:
            since, self.stalled_since = self.stalled_since, None
            self._resumed(since)
        self._step_done(None)

    def _write_failed(self, failure: Failure) -> None:
        self.writing_since = None
        if self.fenced or failure.check(StoreFenced):
            # not retried: another process runs the table (or it was stopped meanwhile)
            told = self.fenced
            self.fence()
            self._write_call = None
            self._step_done(None)
            if not told and self._fenced is not None:
                self._fenced(failure)
            return
        if not self.stalled:
            self._stall(self._write_what, failure)
        self._retry_call = self.clock.callLater(self._write_delay, self._attempt)
        self._write_delay = min(self._write_delay * 2, RETRY_MAX)

    def _stall(self, what: str, failure: Failure) -> None:
        self.stalled_since, self.stall_reason = self.clock.seconds(), failure.getErrorMessage()
        self._stalled(what)
        for done in list(self._flushes):
            self._fire_flush(done)
