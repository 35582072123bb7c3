"""``IStore`` on a SQLite file (the standard library ``sqlite3``), on one thread of its own."""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from typing import Any, Callable, Sequence, TypeVar

from twisted.internet.defer import Deferred, fail, succeed
from twisted.internet.interfaces import IReactorCore, IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.python.threadpool import ThreadPool
from zope.interface import implementer

from .interface import END_STATES, LIVE_STATES, STATES, IStore, StoreError
from .sqlite_file import Checkpointer, migrate
from .validation import (
    broken_row, check_dict, check_int, check_seats, check_setting, decoded_or_error, refused,
)

_T = TypeVar("_T")


class _GroupBroken(Exception):
    """A write failed in a way that leaves its group transaction unusable."""



@implementer(IStore)
class SQLiteStore:
    """``IStore`` on a SQLite file, all work on one dedicated thread.

    One thread owns the connection, so calls run one at a time in the order
    they were made (an append issued after another is written after it), and
    each write commits before its Deferred fires.  Writes that queue up while
    the thread is busy are committed together in one transaction (group
    commit, each in its own savepoint so a refused one fails alone); their
    Deferreds fire after that commit, in call order.  ``commits`` counts write
    transactions.  WAL with synchronous=NORMAL makes a commit survive a killed
    process (not necessarily a power cut).  The log is checkpointed into the
    database by a thread of its own (``Checkpointer``), not inside a commit;
    when the log file passes ``wal_limit`` bytes all the same (that PASSIVE
    checkpoint never catches up with a writer that keeps appending, so the log
    is never restarted), the store thread truncates it after the commit that
    passed the limit (``_bound_wal``), once that commit's Deferreds are on their way.

    ``reactor`` must provide ``callFromThread`` (the real reactor); ``clock``
    (default: the reactor) supplies the created/updated/finished times.
    """

    log = Logger()

    def __init__(
        self, path: str, reactor: Any = None, clock: IReactorTime | None = None,
        wal_limit: int | None = None,
    ) -> None:
        if reactor is None:
            from twisted.internet import reactor as _reactor

            reactor = _reactor
        self.path = path
        self._reactor = reactor
        self._clock = clock if clock is not None else reactor
        self._pool: ThreadPool | None = None
        self._conn: sqlite3.Connection | None = None  # touched only in the pool thread
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
        self._checkpointer: Checkpointer | None = None  # store thread only
        #: Bytes of write-ahead log past which a commit is followed by a TRUNCATE checkpoint.
        self.wal_limit = self.WAL_LIMIT if wal_limit is None else wal_limit
        self._wal_check_due = False     # store thread: a commit since the last _bound_wal
        self._wal_retry_at = 0.0        # store thread: monotonic time of the next try
        self._wal_backoff = 0.0         # store thread: seconds, doubled per failed try
        #: Write transactions committed (a group of writes counts once).
        self.commits = 0
        #: Times the log was truncated (``_bound_wal``).
        self.wal_truncations = 0

    # -- lifecycle ---------------------------------------------------------

    def open(self) -> Deferred[None]:
        """Start the store thread, connect, and create or migrate the schema.

        With a reactor that has system event triggers, the store also closes
        itself before reactor shutdown, so nothing queued is lost.
        """
        if self._pool is not None:
            return fail(StoreError("store is already open"))
        pool = ThreadPool(1, 1, name="gamehall-store")
        pool.start()
        self._pool = pool
        d = self._call(self._open_in_thread)

        def opened(_: Any) -> None:
            # (Unless close() was called while opening.)
            if self._pool is pool and self._closing is None and IReactorCore.providedBy(
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
        if self._pool is None:
            return succeed(None)
        if self._trigger is not None:
            self._reactor.removeSystemEventTrigger(self._trigger)
            self._trigger = None
        return self._shut_down()

    def _shut_down(self) -> Deferred[None]:
        pool = self._pool
        assert pool is not None
        # Queued behind every call made so far, so they all run first.
        self._closing = d = self._enqueue("call", self._close_in_thread, ())

        def stop(result: Any) -> Any:
            pool.stop()  # the thread is idle now: joins at once
            self._pool = None
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

    def _open_in_thread(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=self.BUSY_TIMEOUT)
        self._conn = conn
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode.lower() not in ("wal", "memory"):
            raise StoreError(f"could not put {self.path!r} in WAL mode (got {mode!r})")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        # A log restarted by a checkpoint that caught up keeps its size on disk unless
        # this says otherwise.
        conn.execute(f"PRAGMA journal_size_limit={int(self.wal_limit):d}")
        migrate(conn)
        if mode.lower() == "wal" and self.CHECKPOINT_INTERVAL is not None:
            conn.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpointer = Checkpointer(self.path, self._reactor, self.CHECKPOINT_INTERVAL)

    def _close_in_thread(self) -> None:
        checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:
            checkpointer.stop()
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _committed(self) -> None:
        self.commits += 1
        if self._checkpointer is not None:
            self._checkpointer.committed()
            self._wal_check_due = True

    def _bound_wal(self) -> None:
        """Store thread, after a commit whose Deferreds are sent to the reactor, before the
        next transaction: truncate the log once it passes wal_limit.

        A TRUNCATE checkpoint copies what the background PASSIVE one has not yet
        copied (little, as a rule), waits for readers to leave the log, and empties
        the file.  Run here, by the one writer, it never waits for a write lock, and
        group commit is untouched: the writes queued meanwhile wait for it, then share
        the next transaction.  It waits for a reader at most WAL_READER_WAIT; a reader
        that holds the log longer (a snapshot kept open by another program) makes it
        fail, and it is tried again after a back-off (doubling up to 5 s), so the
        writer is not slowed by a reader it cannot move.
        """
        try:
            size = os.path.getsize(self.path + "-wal")
        except OSError:
            return
        if size <= self.wal_limit or time.monotonic() < self._wal_retry_at:
            return
        conn, checkpointer = self._conn, self._checkpointer
        assert conn is not None and checkpointer is not None
        conn.execute(f"PRAGMA busy_timeout={int(self.WAL_READER_WAIT * 1000):d}")
        try:
            with checkpointer.lock:      # (waits for a PASSIVE checkpoint in progress: brief)
                busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        except sqlite3.Error as e:
            busy, error = 1, repr(e)
        else:
            error = "a reader holds the log" if busy else ""
        finally:
            conn.execute(f"PRAGMA busy_timeout={int(self.BUSY_TIMEOUT * 1000):d}")
        if not busy:
            self.wal_truncations += 1
            self._wal_retry_at, self._wal_backoff = 0.0, 0.0
            return
        # Warn once per spell that lasts, i.e. when the back-off reaches 1 s.
        self._wal_backoff = min(5.0, max(0.05, 2 * self._wal_backoff))
        if 1.0 <= self._wal_backoff < 2.0:
            self._reactor.callFromThread(
                self.log.warn, "store: write-ahead log at {size} bytes, over its limit of "
                "{limit}, cannot be truncated ({error}); tried again later",
                size=size, limit=self.wal_limit, error=error)
        self._wal_retry_at = time.monotonic() + self._wal_backoff

    # -- plumbing ----------------------------------------------------------
    #
    # Calls are queued (reactor side) and run by one drain job on the store
    # thread, in call order.  Consecutive writes found queued together form a
    # *group*: one BEGIN IMMEDIATE ... COMMIT for all of them (group commit),
    # each write inside its own SAVEPOINT so a failing one is rolled back alone.
    # Every Deferred of a group fires after its COMMIT, in call order.  If the
    # group transaction itself fails (BEGIN, COMMIT, or an error that ends the
    # transaction), it is rolled back and its writes are rerun one transaction
    # each, exactly as they would have run ungrouped.

    #: Most writes committed together; bounds the wait of the first in a group.
    MAX_GROUP = 500
    #: Seconds between WAL checkpoints while writes come (None: SQLite's own, in the COMMIT).
    CHECKPOINT_INTERVAL: float | None = 1.0
    #: Default ``wal_limit``: bytes of log past which the store thread truncates it.
    WAL_LIMIT = 16 * 1024 * 1024
    #: Seconds the truncating checkpoint waits for readers to leave the log.
    WAL_READER_WAIT = 0.05
    #: Seconds a statement waits for a lock held by another connection.
    BUSY_TIMEOUT = 10.0

    def _call(self, fn: Callable[..., _T], *args: Any) -> Deferred[_T]:
        """Run ``fn(*args)`` on the store thread, after everything queued before it."""
        return self._submit("call", fn, args)

    def _write(self, fn: Callable[..., _T], *args: Any) -> Deferred[_T]:
        """Run ``fn(conn, *args)`` in a committed write transaction (maybe shared)."""
        return self._submit("write", fn, args)

    def _append_write(self, fn: Callable[..., _T], *args: Any) -> Deferred[_T]:
        """Like ``_write`` for a write needing no savepoint in a group: ``fn``
        changes nothing before its one modifying statement, which SQLite undoes
        by itself if it fails."""
        return self._submit("append", fn, args)

    def _read(self, fn: Callable[..., _T], *args: Any) -> Deferred[_T]:
        """Run ``fn(conn, *args)`` in one read transaction (a consistent snapshot)."""
        return self._submit("read", fn, args)

    def _submit(self, kind: str, fn: Callable[..., Any], args: tuple) -> Deferred[Any]:
        if self._pool is None or self._closing is not None:
            return fail(StoreError("store is not open"))
        return self._enqueue(kind, fn, args)

    def _enqueue(self, kind: str, fn: Callable[..., Any], args: tuple) -> Deferred[Any]:
        assert self._pool is not None
        d: Deferred[Any] = Deferred()
        with self._lock:
            self._queue.append((kind, fn, args, d))
            if self._draining:
                return d
            if kind in ("write", "append"):
                # Start at the end of this reactor turn, so the writes the turn makes (one
                # per action; a turn handles several connections) share one transaction,
                # and the thread is woken once, not once per write.
                if not self._kick_due:
                    self._kick_due = True
                    self._reactor.callLater(0, self._kick)
                return d
            self._draining = True
        self._pool.callInThread(self._drain)
        return d

    def _kick(self) -> None:
        with self._lock:
            self._kick_due = False
            if self._draining or not self._queue or self._pool is None:
                return
            self._draining = True
        self._pool.callInThread(self._drain)

    def _drain(self) -> None:
        """Store thread: run everything queued, group by group, until idle."""
        while True:
            with self._lock:
                if not self._queue:
                    self._draining = False
                    return
                batch, self._queue = self._queue, []
            i = 0
            while i < len(batch):
                if batch[i][0] in ("write", "append"):
                    j = i + 1
                    while (
                        j < len(batch)
                        and batch[j][0] in ("write", "append")
                        and j - i < self.MAX_GROUP
                    ):
                        j += 1
                    ops = batch[i:j]
                    i = j
                    try:
                        outcomes = self._run_group(ops)
                    except BaseException:  # a bug here must not hang callers
                        failure = Failure()
                        outcomes = [(op[3], False, failure) for op in ops]
                else:
                    kind, fn, args, d = batch[i]
                    i += 1
                    outcomes = [self._outcome(d, self._run_single, kind, fn, *args)]
                self._reactor.callFromThread(self._fire, outcomes)
                if self._wal_check_due:      # after the callers have their answers
                    self._wal_check_due = False
                    self._bound_wal()

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

    def _run_single(self, kind: str, fn: Callable[..., _T], *args: Any) -> _T:
        if kind == "call":
            return fn(*args)
        begin = "BEGIN" if kind == "read" else "BEGIN IMMEDIATE"
        return self._transaction(begin, fn, *args)

    def _run_group(self, ops: list[tuple]) -> list[tuple[Deferred[Any], bool, Any]]:
        """Run consecutive writes in one transaction; one outcome per write, in order."""
        conn = self._conn
        if conn is None or len(ops) == 1:
            return [self._outcome(d, self._run_single, kind, fn, *args)
                    for kind, fn, args, d in ops]
        outcomes: list[tuple[Deferred[Any], bool, Any]] = []
        self._touched = {}
        try:
            conn.execute("BEGIN IMMEDIATE")
            for kind, fn, args, d in ops:
                if kind == "append":
                    before = conn.total_changes
                    try:
                        outcomes.append((d, True, self._guarded(fn, conn, *args)))
                    except Exception:
                        outcomes.append((d, False, Failure()))
                        if conn.total_changes != before or not conn.in_transaction:
                            raise _GroupBroken from None
                    continue
                self._flush_touched(conn)  # keep `updated` writes in call order
                conn.execute("SAVEPOINT w")
                try:
                    value = self._guarded(fn, conn, *args)
                except Exception:
                    outcomes.append((d, False, Failure()))
                    if not conn.in_transaction:
                        raise _GroupBroken from None
                    conn.execute("ROLLBACK TO w")
                    conn.execute("RELEASE w")
                else:
                    conn.execute("RELEASE w")
                    outcomes.append((d, True, value))
            self._flush_touched(conn)
            conn.execute("COMMIT")
        except BaseException as e:
            self._touched = None
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            if not isinstance(e, (_GroupBroken, sqlite3.Error)):
                raise
            # Nothing of the group is committed: run it again, one by one.
            self.log.warn("group commit failed ({error}); retrying its writes one by one",
                          error=repr(e))
            return [self._outcome(d, self._run_single, kind, fn, *args)
                    for kind, fn, args, d in ops]
        self._touched = None
        self._committed()
        return outcomes

    def _touch(self, conn: sqlite3.Connection, table_id: int, now: float) -> None:
        """Set a table's ``updated``: at once, or (in a group) once per table later."""
        if self._touched is not None:
            self._touched[table_id] = now
        else:
            conn.execute("UPDATE tables SET updated = ? WHERE id = ?", (now, table_id))

    def _flush_touched(self, conn: sqlite3.Connection) -> None:
        touched = self._touched
        if touched:
            conn.executemany(
                "UPDATE tables SET updated = ? WHERE id = ?",
                [(now, table_id) for table_id, now in touched.items()],
            )
            touched.clear()

    def _guarded(self, fn: Callable[..., _T], *args: Any) -> _T:
        try:
            return fn(*args)
        except StoreError:
            raise
        except sqlite3.IntegrityError as e:
            raise StoreError(f"refused by the database: {e}") from e
        except sqlite3.Error as e:
            # Not logged here: the caller reports it (a stalled table logs once, not per retry).
            raise StoreError(f"database error: {e}") from e

    def _transaction(self, begin: str, fn: Callable[..., _T], *args: Any) -> _T:
        conn = self._conn
        if conn is None:
            raise StoreError("store is not open")
        conn.execute(begin)
        try:
            value = fn(conn, *args)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if begin != "BEGIN":
            self._committed()
        return value

    @staticmethod
    def _live_state(conn: sqlite3.Connection, table_id: int) -> str:
        row = conn.execute("SELECT state FROM tables WHERE id = ?", (table_id,)).fetchone()
        if row is None:
            raise StoreError(f"no table {table_id}")
        if row[0] in END_STATES:
            raise StoreError(f"table {table_id} is {row[0]}")
        return row[0]

    # -- writes --------------------------------------------------------------

    @refused
    def create_table(
        self, game: str, variant: str, seed: int, seats: list[dict], options: dict,
        table_id: int | None = None,
    ) -> Deferred[int]:
        """Record a new table in state 'waiting'; fires with its id (``table_id`` if free)."""
        check_int("seed", seed)
        if table_id is not None:
            check_int("table_id", table_id)
        row = (game, variant, seed, check_dict("options", options), check_seats(seats))
        now = self._clock.seconds()

        def insert(conn: sqlite3.Connection) -> int:
            if table_id is not None and table_id > 0 and conn.execute(
                    "SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone() is None:
                cur = conn.execute(
                    "INSERT INTO tables (id, game, variant, seed, options, seats, state,"
                    " created, updated) VALUES (?, ?, ?, ?, ?, ?, 'waiting', ?, ?)",
                    (table_id, *row, now, now),
                )
            else:
                cur = conn.execute(
                    "INSERT INTO tables (game, variant, seed, options, seats, state,"
                    " created, updated) VALUES (?, ?, ?, ?, ?, 'waiting', ?, ?)",
                    (*row, now, now),
                )
            return int(cur.lastrowid)

        return self._write(insert)

    def last_table_id(self) -> Deferred[int]:
        """The highest table id ever recorded (AUTOINCREMENT's, deleted rows included), 0 if none."""

        def load(conn: sqlite3.Connection) -> int:
            top = conn.execute("SELECT MAX(id) FROM tables").fetchone()[0] or 0
            seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'tables'").fetchone()
            return max(int(top), int(seq[0]) if seq else 0)

        return self._read(load)

    @refused
    def update_table(
        self,
        table_id: int,
        *,
        seats: list[dict] | None = None,
        state: str | None = None,
        options: dict | None = None,
    ) -> Deferred[None]:
        """Change a live table; terminal states go through ``finish_table``."""
        changes: list[tuple[str, Any]] = []
        if seats is not None:
            changes.append(("seats", check_seats(seats)))
        if state is not None:
            if state not in LIVE_STATES:
                raise StoreError(f"update_table state must be one of {LIVE_STATES}")
            changes.append(("state", state))
        if options is not None:
            changes.append(("options", check_dict("options", options)))
        changes.append(("updated", self._clock.seconds()))
        sets = ", ".join(f"{column} = ?" for column, _ in changes)
        values = [value for _, value in changes]

        def update(conn: sqlite3.Connection) -> None:
            self._live_state(conn, table_id)
            conn.execute(f"UPDATE tables SET {sets} WHERE id = ?", (*values, table_id))

        return self._write(update)

    @refused
    def append_action(self, table_id: int, seq: int, seat: int, action: dict) -> Deferred[None]:
        """Append action ``seq``; a gap or a duplicate would corrupt a replay, so is refused."""
        check_int("seq", seq)
        check_int("seat", seat)
        encoded = check_dict("action", action)
        now = self._clock.seconds()

        def append(conn: sqlite3.Connection) -> None:
            # One query checks the table and the sequence; the primary key
            # still refuses a duplicate should one slip past.  Nothing changes
            # before the INSERT (see _append_write); ``updated`` is set once per
            # table per group.
            row = conn.execute(
                "SELECT state, (SELECT MAX(seq) FROM actions WHERE table_id = ?)"
                " FROM tables WHERE id = ?",
                (table_id, table_id),
            ).fetchone()
            if row is None:
                raise StoreError(f"no table {table_id}")
            if row[0] in END_STATES:
                raise StoreError(f"table {table_id} is {row[0]}")
            expected = 0 if row[1] is None else row[1] + 1
            if seq < expected:
                stored = conn.execute(
                    "SELECT seat, action FROM actions WHERE table_id = ? AND seq = ?",
                    (table_id, seq),
                ).fetchone()
                if stored == (seat, encoded):
                    return  # already there: a retry of a write that did commit
            if seq != expected:
                raise StoreError(
                    f"table {table_id}: action seq {seq} refused, expected {expected}"
                )
            conn.execute(
                "INSERT INTO actions (table_id, seq, seat, action) VALUES (?, ?, ?, ?)",
                (table_id, seq, seat, encoded),
            )
            self._touch(conn, table_id, now)

        return self._append_write(append)

    @refused
    def finish_table(
        self, table_id: int, state: str, result: dict | None, record: dict | None
    ) -> Deferred[None]:
        """End a live table; a results row is written when a result or record is given."""
        if state not in END_STATES:
            raise StoreError(f"finish_table state must be one of {END_STATES}")
        result_json = None if result is None else check_dict("result", result)
        record_json = None if record is None else check_dict("record", record)
        now = self._clock.seconds()

        def finish(conn: sqlite3.Connection) -> None:
            self._live_state(conn, table_id)
            conn.execute(
                "UPDATE tables SET state = ?, updated = ? WHERE id = ?",
                (state, now, table_id),
            )
            if result_json is not None or record_json is not None:
                conn.execute(
                    "INSERT INTO results (table_id, result, record, finished)"
                    " VALUES (?, ?, ?, ?)",
                    (table_id, result_json, record_json, now),
                )

        return self._write(finish)

    # -- reads ---------------------------------------------------------------

    _TABLE_COLUMNS = "id, game, variant, seed, options, seats, state, created, updated"

    @staticmethod
    def _table_dict(row: Sequence[Any]) -> dict:
        return {
            "id": row[0],
            "game": row[1],
            "variant": row[2],
            "seed": row[3],
            "options": json.loads(row[4]),
            "seats": json.loads(row[5]),
            "state": row[6],
            "created": row[7],
            "updated": row[8],
            "actions": [],
        }

    def load_unfinished(self) -> Deferred[list[dict]]:
        """Every waiting or playing table with its actions, ordered by id (for restart)."""

        def load(conn: sqlite3.Connection) -> list[dict]:
            tables = {
                row[0]: decoded_or_error(self._table_dict, row)
                for row in conn.execute(
                    f"SELECT {self._TABLE_COLUMNS} FROM tables"
                    " WHERE state IN ('waiting', 'playing') ORDER BY id"
                )
            }
            for table_id, seq, seat, action in conn.execute(
                "SELECT a.table_id, a.seq, a.seat, a.action FROM actions a"
                " JOIN tables t ON t.id = a.table_id"
                " WHERE t.state IN ('waiting', 'playing') ORDER BY a.table_id, a.seq"
            ):
                table = tables[table_id]
                if "error" in table:
                    continue
                try:
                    table["actions"].append((seat, json.loads(action)))
                except ValueError as e:
                    tables[table_id] = broken_row(table, f"action {seq} is not JSON ({e})")
            return list(tables.values())

        return self._read(load)

    def load_table(self, table_id: int) -> Deferred[dict | None]:
        """One table in any state with its actions, result and record (for review)."""

        def load(conn: sqlite3.Connection) -> dict | None:
            row = conn.execute(
                f"SELECT {self._TABLE_COLUMNS} FROM tables WHERE id = ?", (table_id,)
            ).fetchone()
            if row is None:
                return None
            table = self._table_dict(row)
            table["actions"] = [
                (seat, json.loads(action))
                for seat, action in conn.execute(
                    "SELECT seat, action FROM actions WHERE table_id = ? ORDER BY seq",
                    (table_id,),
                )
            ]
            res = conn.execute(
                "SELECT result, record FROM results WHERE table_id = ?", (table_id,)
            ).fetchone()
            table["result"] = json.loads(res[0]) if res and res[0] is not None else None
            table["record"] = json.loads(res[1]) if res and res[1] is not None else None
            return table

        return self._read(load)

    @refused
    def finished_games(self, game: str | None = None, limit: int = 100) -> Deferred[list[dict]]:
        """Tables in state 'finished' (not aborted), newest first, at most ``limit``."""
        check_int("limit", limit)

        def load(conn: sqlite3.Connection) -> list[dict]:
            where = "t.state = 'finished'" + (" AND t.game = ?" if game is not None else "")
            params: tuple[Any, ...] = (game,) if game is not None else ()
            rows = conn.execute(
                "SELECT t.id, t.game, t.variant, t.seats, r.result, t.updated"
                " FROM tables t LEFT JOIN results r ON r.table_id = t.id"
                f" WHERE {where} ORDER BY t.updated DESC, t.id DESC LIMIT ?",
                (*params, limit),
            )
            return [
                {
                    "id": row[0],
                    "game": row[1],
                    "variant": row[2],
                    "seats": json.loads(row[3]),
                    "result": json.loads(row[4]) if row[4] is not None else None,
                    "finished": row[5],
                }
                for row in rows
            ]

        return self._read(load)

    def get_record(self, table_id: int) -> Deferred[dict | None]:
        """The record stored by ``finish_table``, or None."""

        def load(conn: sqlite3.Connection) -> dict | None:
            row = conn.execute(
                "SELECT record FROM results WHERE table_id = ?", (table_id,)
            ).fetchone()
            return json.loads(row[0]) if row and row[0] is not None else None

        return self._read(load)

    def stats(self) -> Deferred[dict]:
        """Counts of tables by state (every state present) and of actions."""

        def load(conn: sqlite3.Connection) -> dict:
            tables = dict.fromkeys(STATES, 0)
            tables.update(conn.execute("SELECT state, COUNT(*) FROM tables GROUP BY state"))
            actions = conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
            return {"tables": tables, "actions": actions}

        return self._read(load)

    @refused
    def save_setting(self, key: str, value: dict) -> Deferred[None]:
        """Keep ``value`` under ``key``, replacing what was there."""
        encoded = check_setting(key, value)

        def save(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, encoded))

        return self._write(save)

    def load_settings(self) -> Deferred[dict]:
        """Every kept setting, ``{key: value}``."""

        def load(conn: sqlite3.Connection) -> dict:
            return {key: json.loads(value) for key, value in conn.execute("SELECT key, value FROM settings")}

        return self._read(load)

