"""What SQLiteStore and PostgresStore share: one store thread, calls run in call order,
group commit, Deferreds fired after the commit.

Calls are queued (reactor side) and run by one drain job on the store thread, in call
order: an append issued after another is written after it, and a read sees every write
called before it.  Consecutive writes found queued together form a *group*: one
transaction for all of them (group commit), each write but an append in its own
SAVEPOINT so a refused one is rolled back alone (an append changes nothing before its
one modifying statement, which the database undoes by itself if it fails).  Every
Deferred of a group fires after its COMMIT, in call order.  If the group transaction
itself fails (BEGIN, COMMIT, or an error that ends the transaction), it is rolled back
and its writes rerun one transaction each, exactly as they would have run ungrouped,
unless the subclass says the connection is lost (``_lost``): then they all fail.

A subclass supplies the connection (``_session``: one per batch of queued calls, from
``connection()``, given back by ``release()``), what opening and closing it mean
(``_open_in_thread``/``_close_in_thread``), the BEGIN statements, its database's error
classes, and how to tell that a failed statement left the group transaction unusable.
"""
from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Protocol, TypeVar

from twisted.internet.defer import Deferred, fail, succeed
from twisted.internet.interfaces import IReactorCore, IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from .interface import StoreError

_T = TypeVar("_T")

#: The kinds of queued call that join a group.
_WRITES = ("write", "append")


class _GroupBroken(Exception):
    """A write failed in a way that leaves its group transaction unusable."""


class Session(Protocol):
    """The store thread's connection for one batch of queued calls."""

    def connection(self) -> Any: ...

    def lost(self) -> None: ...

    def release(self) -> None: ...


class StoreThread:
    """The store's one thread: runs what ``callInThread`` is given, in call order.

    Not Twisted's ThreadPool, whose ``callInThread`` wraps each call in a closure that
    refers to itself (``inContext``): a reference cycle per call, which only the
    collector's full passes free once it has aged; the store hands its thread a job for
    most reactor turns that write."""

    log = Logger()

    def __init__(self, name: str) -> None:
        self.name = name
        self._jobs: queue.SimpleQueue[Callable[[], object] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self.name)
        self._thread.start()

    def callInThread(self, job: Callable[[], object]) -> None:
        self._jobs.put(job)

    def stop(self) -> None:
        """Run what is queued, then end the thread (joined unless called on it)."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._jobs.put(None)
            if thread is not threading.current_thread():
                thread.join()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                job()
            except BaseException:
                self.log.failure("a store thread job failed")
            del job


class ThreadedStore:
    """The store thread, its call-order queue and group commit; see the module docstring.

    ``reactor`` must provide ``callFromThread`` (the real reactor); ``clock``
    (default: the reactor) supplies the created/updated/finished times.
    """

    log = Logger()

    #: Most writes committed together; bounds the wait of the first in a group.
    MAX_GROUP = 500
    #: Name of the store thread.
    THREAD_NAME = "gamehall-store"
    #: Statements starting a read transaction and a write transaction.
    BEGIN_READ = "BEGIN"
    BEGIN_WRITE = "BEGIN"
    #: Sets a table's ``updated`` (two parameters: the time, the table id).
    TOUCH_SQL = ""

    def __init__(self, reactor: Any = None, clock: IReactorTime | None = None) -> None:
        if reactor is None:
            from twisted.internet import reactor as _reactor

            reactor = _reactor
        self._reactor = reactor
        self._clock = clock if clock is not None else reactor
        self._threads: StoreThread | None = None
        self._closing: Deferred[None] | None = None
        self._close_waiters: list[Deferred[None]] = []
        self._trigger: Any = None
        # Calls waiting for the store thread, in call order (guarded by _lock),
        # and whether a drain job is queued or running on the thread.
        self._lock = threading.Lock()
        self._queue: list[tuple[str, Callable[..., Any], tuple, Deferred[Any]]] = []
        self._draining = False
        self._kick_due = False          # a _kick is scheduled on the reactor
        self._touched: dict[int, float] | None = None  # store thread only
        #: Write transactions committed (a group of writes counts once).
        self.commits = 0

    # -- what a subclass supplies ---------------------------------------------

    def _open_in_thread(self) -> None:
        """Store thread: connect, create or migrate the schema."""
        raise NotImplementedError

    def _close_in_thread(self) -> None:
        """Store thread: close the connection(s)."""
        raise NotImplementedError

    def _session(self) -> Session:
        """Store thread: the connection for the batch about to run."""
        raise NotImplementedError

    def _errors(self) -> tuple[type[BaseException], type[BaseException]]:
        """The database's (error, integrity error) exception classes."""
        raise NotImplementedError

    def _reason(self, error: BaseException) -> str:
        """How a database error is told in a StoreError."""
        return str(error)

    def _change_mark(self, conn: Any) -> Any:
        """Taken before an append in a group, for ``_append_broke``."""
        return None

    def _append_broke(self, conn: Any, mark: Any) -> bool:
        """After an append failed in a group: is the group transaction unusable?"""
        raise NotImplementedError

    def _write_broke(self, conn: Any) -> bool:
        """After a write failed in its savepoint: is the group transaction unusable?"""
        raise NotImplementedError

    def _rolled_back(self, session: Session, conn: Any) -> None:
        """After a single transaction failed: roll it back (when still open)."""
        raise NotImplementedError

    def _rollback_group(self, conn: Any) -> None:
        """After a group failed: roll it back, quietly."""
        raise NotImplementedError

    def _lost(self, session: Session, conn: Any, error: BaseException) -> Failure | None:
        """After a group failed: the failure of all its writes when the connection is
        lost, or None to rerun them one by one."""
        return None

    def _write_began(self, conn: Any) -> None:
        """Store thread: a write transaction (a group's or a single write's) has begun."""

    def _other_write(self) -> None:
        """Store thread: a write that is not an append is about to run (what appends know
        from the ones before them may no longer hold)."""

    def _executemany(self, conn: Any, sql: str, rows: list[tuple]) -> None:
        conn.executemany(sql, rows)

    def _after_fire(self) -> None:
        """Store thread: after a group's (or a call's) Deferreds are sent to the reactor."""

    def _committed(self) -> None:
        self.commits += 1

    # -- lifecycle ---------------------------------------------------------

    def open(self) -> Deferred[None]:
        """Start the store thread, connect, and create or migrate the schema.

        With a reactor that has system event triggers, the store also closes
        itself before reactor shutdown, so nothing queued is lost.
        """
        if self._threads is not None:
            return fail(StoreError("store is already open"))
        threads = StoreThread(self.THREAD_NAME)
        threads.start()
        self._threads = threads
        d = self._call(self._open_in_thread)

        def opened(_: Any) -> None:
            # (Unless close() was called while opening.)
            if self._threads is threads and self._closing is None and IReactorCore.providedBy(
                self._reactor
            ):
                self._trigger = self._reactor.addSystemEventTrigger(
                    "before", "shutdown", self._before_shutdown
                )

        def failed(reason: Failure) -> Deferred[Any]:
            # Leave nothing behind (thread, connection), then report why.
            return self._shut_down().addBoth(lambda _: reason)

        return d.addCallbacks(opened, failed)

    def close(self) -> Deferred[None]:
        """Run everything already queued, close the connection, stop the thread."""
        if self._closing is not None:
            waiter: Deferred[None] = Deferred()
            self._close_waiters.append(waiter)
            return waiter
        if self._threads is None:
            return succeed(None)
        if self._trigger is not None:
            self._reactor.removeSystemEventTrigger(self._trigger)
            self._trigger = None
        return self._shut_down()

    def _shut_down(self) -> Deferred[None]:
        threads = self._threads
        assert threads is not None
        # Queued behind every call made so far, so they all run first.
        self._closing = d = self._enqueue("call", self._close_in_thread, ())

        def stop(result: Any) -> Any:
            threads.stop()  # the thread is idle now: joins at once
            self._threads = None
            self._closing = None
            waiters, self._close_waiters = self._close_waiters, []
            for waiter in waiters:
                waiter.callback(None)
            return result

        return d.addBoth(stop)

    def _before_shutdown(self) -> Deferred[None]:
        self._trigger = None

        def report(reason: Failure) -> None:
            self.log.failure("closing the store at shutdown failed", reason)

        return self.close().addErrback(report)

    # -- queue -------------------------------------------------------------

    def _call(self, fn: Callable[..., _T], *args: Any) -> Deferred[_T]:
        """Run ``fn(*args)`` on the store thread, after everything queued before it."""
        return self._submit("call", fn, args)

    def _write(self, fn: Callable[..., _T], *args: Any) -> Deferred[_T]:
        """Run ``fn(conn, *args)`` in a committed write transaction (maybe shared)."""
        return self._submit("write", fn, args)

    def _append_write(self, fn: Callable[..., _T], *args: Any) -> Deferred[_T]:
        """Like ``_write`` for a write needing no savepoint in a group: ``fn``
        changes nothing before its one modifying statement, which the database
        undoes by itself if it fails."""
        return self._submit("append", fn, args)

    def _read(self, fn: Callable[..., _T], *args: Any) -> Deferred[_T]:
        """Run ``fn(conn, *args)`` in one read transaction (a consistent snapshot)."""
        return self._submit("read", fn, args)

    def _submit(self, kind: str, fn: Callable[..., Any], args: tuple) -> Deferred[Any]:
        if self._threads is None or self._closing is not None:
            return fail(StoreError("store is not open"))
        return self._enqueue(kind, fn, args)

    def _enqueue(self, kind: str, fn: Callable[..., Any], args: tuple) -> Deferred[Any]:
        assert self._threads is not None
        d: Deferred[Any] = Deferred()
        with self._lock:
            self._queue.append((kind, fn, args, d))
            if self._draining:
                return d
            if kind in _WRITES:
                # Start at the end of this reactor turn, so the writes the turn makes (one
                # per action; a turn handles several connections) share one transaction,
                # and the thread is woken once, not once per write.
                if not self._kick_due:
                    self._kick_due = True
                    self._reactor.callLater(0, self._kick)
                return d
            self._draining = True
        self._threads.callInThread(self._drain)
        return d

    def _kick(self) -> None:
        with self._lock:
            self._kick_due = False
            if self._draining or not self._queue or self._threads is None:
                return
            self._draining = True
        self._threads.callInThread(self._drain)

    # -- store thread --------------------------------------------------------

    def _drain(self) -> None:
        """Store thread: run everything queued, group by group, until idle."""
        while True:
            with self._lock:
                if not self._queue:
                    self._draining = False
                    return
                batch, self._queue = self._queue, []
            session = self._session()
            try:
                i = 0
                while i < len(batch):
                    if batch[i][0] in _WRITES:
                        j = i + 1
                        while j < len(batch) and batch[j][0] in _WRITES and j - i < self.MAX_GROUP:
                            j += 1
                        ops = batch[i:j]
                        i = j
                        try:
                            outcomes = self._run_group(session, ops)
                        except BaseException:  # a bug here must not hang callers
                            failure = Failure()
                            outcomes = [(op[3], False, failure) for op in ops]
                    else:
                        kind, fn, args, d = batch[i]
                        i += 1
                        outcomes = [self._outcome(d, self._run_single, session, kind, fn, *args)]
                    self._reactor.callFromThread(self._fire, outcomes)
                    self._after_fire()
            finally:
                session.release()

    @staticmethod
    def _fire(outcomes: list[tuple[Deferred[Any], bool, Any]]) -> None:
        for d, ok, value in outcomes:
            if ok:
                d.callback(value)
            else:
                d.errback(value)

    def _outcome(
        self, d: Deferred[Any], fn: Callable[..., Any], *args: Any
    ) -> tuple[Deferred[Any], bool, Any]:
        try:
            return (d, True, self._guarded(fn, *args))
        except BaseException:
            return (d, False, Failure())

    def _guarded(self, fn: Callable[..., _T], *args: Any) -> _T:
        error, integrity = self._errors()
        try:
            return fn(*args)
        except StoreError:
            raise
        except integrity as e:
            raise StoreError(f"refused by the database: {self._reason(e)}") from e
        except error as e:
            # Not logged here: the caller reports it (a stalled table logs once, not per retry).
            raise StoreError(f"database error: {self._reason(e)}") from e

    def _run_single(self, session: Session, kind: str, fn: Callable[..., _T], *args: Any) -> _T:
        if kind == "call":
            return fn(*args)
        conn = session.connection()
        try:
            if kind == "read":
                conn.execute(self.BEGIN_READ)
            else:
                conn.execute(self.BEGIN_WRITE)
                self._write_began(conn)
                if kind == "write":
                    self._other_write()
            value = fn(conn, *args)
            conn.execute("COMMIT")
        except BaseException:
            self._rolled_back(session, conn)
            raise
        if kind != "read":
            self._committed()
        return value

    def _run_group(self, session: Session, ops: list[tuple]) -> list[tuple[Deferred[Any], bool, Any]]:
        """Run consecutive writes in one transaction; one outcome per write, in order."""
        if len(ops) == 1:
            return [self._outcome(d, self._run_single, session, kind, fn, *args)
                    for kind, fn, args, d in ops]
        try:
            conn = session.connection()
        except BaseException:
            failure = Failure()
            return [(op[3], False, failure) for op in ops]
        outcomes: list[tuple[Deferred[Any], bool, Any]] = []
        self._touched = {}
        try:
            conn.execute(self.BEGIN_WRITE)
            self._write_began(conn)
            i, count = 0, len(ops)
            while i < count:
                kind, fn, args, d = ops[i]
                if kind == "append":
                    j = i + 1
                    while j < count and ops[j][0] == "append":
                        j += 1
                    self._run_appends(conn, ops[i:j], outcomes)
                    i = j
                    continue
                i += 1
                self._flush_touched(conn)  # keep `updated` writes in call order
                self._other_write()
                conn.execute("SAVEPOINT w")
                try:
                    value = self._guarded(fn, conn, *args)
                except Exception:
                    outcomes.append((d, False, Failure()))
                    if self._write_broke(conn):
                        raise _GroupBroken from None
                    conn.execute("ROLLBACK TO SAVEPOINT w")
                    conn.execute("RELEASE SAVEPOINT w")
                else:
                    conn.execute("RELEASE SAVEPOINT w")
                    outcomes.append((d, True, value))
            self._flush_touched(conn)
            conn.execute("COMMIT")
        except BaseException as e:
            self._touched = None
            self._rollback_group(conn)
            if not isinstance(e, (_GroupBroken, self._errors()[0])):
                raise
            lost = self._lost(session, conn, e)
            if lost is not None:
                return [(op[3], False, lost) for op in ops]
            # Nothing of the group is committed: run it again, one by one.
            self.log.warn("group commit failed ({error}); retrying its writes one by one",
                          error=repr(e))
            return [self._outcome(d, self._run_single, session, kind, fn, *args)
                    for kind, fn, args, d in ops]
        self._touched = None
        self._committed()
        return outcomes

    def _run_appends(self, conn: Any, ops: list[tuple],
                     outcomes: list[tuple[Deferred[Any], bool, Any]]) -> None:
        """Consecutive appends of a group, each in turn; an outcome per append to
        ``outcomes``; _GroupBroken when a failed one left the transaction unusable."""
        for _kind, fn, args, d in ops:
            mark = self._change_mark(conn)
            try:
                outcomes.append((d, True, self._guarded(fn, conn, *args)))
            except Exception:
                outcomes.append((d, False, Failure()))
                if self._append_broke(conn, mark):
                    raise _GroupBroken from None

    def _touch(self, conn: Any, table_id: int, now: float) -> None:
        """Set a table's ``updated``: at once, or (in a group) once per table later."""
        if self._touched is not None:
            self._touched[table_id] = now
        else:
            conn.execute(self.TOUCH_SQL, (now, table_id))

    def _flush_touched(self, conn: Any) -> None:
        touched = self._touched
        if touched:
            self._executemany(conn, self.TOUCH_SQL,
                              [(now, table_id) for table_id, now in touched.items()])
            touched.clear()
