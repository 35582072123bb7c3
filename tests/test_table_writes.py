"""gamehall.table_writes.TableWrites on its own: order, holding steps, stalls and retries."""
from __future__ import annotations

from twisted.internet.defer import Deferred, fail, succeed
from twisted.internet.task import Clock

from gamehall.table_writes import RETRY_FIRST, RETRY_MAX, TableWrites


class Owner:
    """Records what the queue tells its owner."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.told: list = []
        self.writes = TableWrites(self.clock, self.stalled, self.resumed, self.step_failed)

    def stalled(self, what: str) -> None:
        self.told.append(("stalled", what, self.writes.stalled, self.writes.stall_reason))

    def resumed(self, since: float) -> None:
        self.told.append(("resumed", since, self.writes.stalled))

    def step_failed(self, failure) -> None:
        self.told.append(("step failed", failure.getErrorMessage()))


class FlakyWrite:
    """A store write that fails ``failures`` times, then succeeds."""

    def __init__(self, failures: int, why: str = "disk full") -> None:
        self.failures, self.why, self.attempts = failures, why, []

    def __call__(self, clock: Clock) -> Deferred:
        self.attempts.append(clock.seconds())
        if len(self.attempts) <= self.failures:
            return fail(OSError(self.why))
        return succeed(None)


def test_steps_run_at_once_and_in_order():
    owner, ran = Owner(), []
    owner.writes.queue(lambda: ran.append(1))
    assert ran == [1]                                # nothing pending: at once
    owner.writes.queue(lambda: (ran.append(2), owner.writes.queue(lambda: ran.append(4))))
    owner.writes.queue(lambda: ran.append(3))
    assert ran == [1, 2, 4, 3]                       # a step queued by a step runs before later ones


def test_a_pending_deferred_holds_the_steps_after_it():
    owner, ran = Owner(), []
    held: Deferred = Deferred()
    owner.writes.queue(lambda: held)
    owner.writes.queue(lambda: ran.append("after"))
    assert ran == []
    held.callback(None)
    assert ran == ["after"]


def test_a_failing_step_is_reported_and_the_next_one_runs():
    owner, ran = Owner(), []
    owner.writes.queue(lambda: 1 / 0)
    owner.writes.queue(lambda: fail(ValueError("bad reply")))
    owner.writes.queue(lambda: ran.append("next"))
    assert ran == ["next"]
    assert owner.told == [("step failed", "division by zero"), ("step failed", "bad reply")]
    assert not owner.writes.stalled                  # a step is not a write: no stall


def test_a_failing_write_stalls_retries_with_back_off_and_resumes():
    owner, ran = Owner(), []
    write = FlakyWrite(failures=7)
    owner.writes.write("action 3", lambda: write(owner.clock))
    owner.writes.queue(lambda: ran.append("told"))
    assert owner.told == [("stalled", "action 3", True, "disk full")]
    assert owner.writes.stalled_since == 0.0
    assert ran == []                                 # nothing after a failing write runs
    while len(write.attempts) < 8:
        owner.clock.advance(1)
    gaps = [b - a for a, b in zip(write.attempts, write.attempts[1:])]
    assert gaps[:5] == [RETRY_FIRST, 2.0, 4.0, 8.0, 16.0]
    assert all(gap <= RETRY_MAX for gap in gaps) and RETRY_MAX in gaps
    assert owner.told[1:] == [("resumed", 0.0, False)]       # told once each way
    assert not owner.writes.stalled and ran == ["told"]


def test_flush_fires_on_a_stall_but_a_queued_step_waits_for_the_write():
    owner, ran = Owner(), []
    write = FlakyWrite(failures=1)
    owner.writes.write("seats", lambda: write(owner.clock))
    flushed = []
    owner.writes.flush().addCallback(flushed.append)
    owner.writes.queue(lambda: ran.append("reply"))
    assert flushed == [None] and ran == []
    late = []
    owner.writes.flush().addCallback(late.append)    # asked during the stall: fires at once
    assert late == [None]
    owner.clock.advance(RETRY_FIRST)
    assert ran == ["reply"]


def test_flush_waits_for_a_write_in_flight():
    owner = Owner()
    pending: Deferred = Deferred()
    owner.writes.write("end", lambda: pending)
    flushed = []
    owner.writes.flush().addCallback(flushed.append)
    assert flushed == [] and owner.writes.writing_since == 0.0
    pending.callback(None)
    assert flushed == [None] and owner.writes.writing_since is None


def test_stall_waiting_stalls_only_a_write_in_flight():
    owner = Owner()
    owner.writes.stall_waiting("database is locked")
    assert not owner.writes.stalled and owner.told == []     # nothing in flight: nothing to stall
    pending: Deferred = Deferred()
    owner.writes.write("action 0", lambda: pending)
    owner.clock.advance(2)
    owner.writes.stall_waiting("database is locked")
    assert owner.told == [("stalled", "pending write", True,
                           "waiting for the store (database is locked)")]
    owner.writes.stall_waiting("again")                      # already stalled: told once
    assert len(owner.told) == 1
    pending.callback(None)
    assert owner.told[-1] == ("resumed", 2.0, False)


def test_a_flush_waiting_on_a_write_fires_when_that_write_fails():
    owner = Owner()
    pending: Deferred = Deferred()
    owner.writes.write("action 0", lambda: pending)
    flushed = []
    owner.writes.flush().addCallback(flushed.append)
    assert flushed == []
    pending.errback(OSError("read-only file"))
    assert flushed == [None] and owner.writes.stall_reason == "read-only file"


def test_a_fenced_write_is_not_retried_and_the_queue_stops_for_good():
    from gamehall.store import StoreFenced
    fenced = []
    owner, ran = Owner(), []
    owner.writes = TableWrites(owner.clock, owner.stalled, owner.resumed, owner.step_failed,
                               fenced=lambda failure: fenced.append(failure.getErrorMessage()))
    attempts = []
    owner.writes.write("action 3", lambda: (attempts.append(1), fail(StoreFenced(7)))[1])
    owner.writes.queue(lambda: ran.append("told"))
    assert fenced == ["table 7 is run by another process now"]
    assert owner.writes.fenced and not owner.writes.stalled and owner.told == []
    owner.clock.advance(RETRY_MAX * 10)
    assert attempts == [1] and ran == []              # never retried; what followed never runs
    owner.writes.queue(lambda: ran.append("later"))
    owner.writes.write("action 4", lambda: (attempts.append(2), succeed(None))[1])
    assert attempts == [1] and ran == []
    assert owner.writes.flush().called                # nothing will ever run: at once


def test_fence_drops_what_is_queued_cancels_the_retry_and_fires_the_flushes():
    owner, ran = Owner(), []
    flaky = FlakyWrite(5)
    owner.writes.write("action 0", lambda: flaky(owner.clock))
    owner.writes.queue(lambda: ran.append("told"))
    assert owner.writes.stalled and owner.writes.retry_due
    flushed = owner.writes.flush()
    owner.writes.fence()
    assert flushed.called and not owner.writes.stalled and not owner.writes.retry_due
    owner.clock.advance(RETRY_MAX * 10)
    assert len(flaky.attempts) == 1 and ran == []
    owner.writes.writing_since = owner.clock.seconds()       # as if a write were in flight
    owner.writes.stall_waiting("another table's write fails")
    assert len(owner.told) == 1 and not owner.writes.stalled   # only the first stall
