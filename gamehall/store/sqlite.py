"""``IStore`` on a SQLite file (the standard library ``sqlite3``), on one thread of its own."""
from __future__ import annotations

import functools
import os
import sqlite3
import time
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from zope.interface import implementer

from .interface import IPlayerStore, IStore, StoreError
from .leases import ILeaseStore
from .sqlite_file import Checkpointer, migrate
from .sqltables import SQLPlayersMixin, SQLTablesStore
from .threaded import StoreThread, _GroupBroken
from .validation import check_dict, check_epoch, check_int, dumps, refused


@functools.lru_cache(maxsize=None)
def _insert_sql(rows: int) -> str:
    """Appends ``rows`` actions: (table_id, seq, seat, action) per row."""
    return "INSERT INTO actions (table_id, seq, seat, action) VALUES " + ", ".join(
        ["(?, ?, ?, ?)"] * rows)


@functools.lru_cache(maxsize=None)
def _touch_sql(rows: int) -> str:
    """Sets ``updated`` of ``rows`` tables: (id, time) per table, then the ids."""
    return ("UPDATE tables SET updated = CASE id" + " WHEN ? THEN ?" * rows + " END"
            " WHERE id IN (" + ", ".join(["?"] * rows) + ")")


class _OwnConnection:
    """The session of every batch: the one connection the store thread owns."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def connection(self) -> sqlite3.Connection:
        conn = self.store._conn
        if conn is None:
            raise StoreError("store is not open")
        return conn

    def lost(self) -> None:
        pass

    def release(self) -> None:
        pass


@implementer(IStore, IPlayerStore, ILeaseStore)
class SQLiteStore(SQLPlayersMixin, SQLTablesStore):
    """``IStore`` on a SQLite file, all work on one dedicated thread.

    One thread owns the connection, so calls run one at a time in the order
    they were made (an append issued after another is written after it), and
    each write commits before its Deferred fires.  Writes that queue up while
    the thread is busy are committed together in one transaction (group
    commit, each in its own savepoint so a refused one fails alone); their
    Deferreds fire after that commit, in call order (``ThreadedStore``).
    ``commits`` counts write transactions.  WAL with synchronous=NORMAL makes
    a commit survive a killed process (not necessarily a power cut).  The log
    is checkpointed into the database by a thread of its own (``Checkpointer``),
    not inside a commit; when the log file passes ``wal_limit`` bytes all the
    same (that PASSIVE checkpoint never catches up with a writer that keeps
    appending, so the log is never restarted), the store thread truncates it
    after the commit that passed the limit (``_bound_wal``; its size is looked at
    after as few commits as could not add half the room left, ``_wal_pace``), once
    that commit's Deferreds are on their way.

    ``reactor`` must provide ``callFromThread`` (the real reactor); ``clock``
    (default: the reactor) supplies the created/updated/finished times, and the time
    table leases expire by (every process on the file is on one machine, one clock).
    """

    #: Seconds between WAL checkpoints while writes come (None: SQLite's own, in the COMMIT).
    CHECKPOINT_INTERVAL: float | None = 1.0
    #: Page size of a new file (an existing one keeps its own: a WAL file cannot change it).
    #: Every commit writes each page it changed to the log whole: an append changes about
    #: two (its table's last actions page and its row in ``tables``), so 1 KB pages make the
    #: log grow about a quarter as fast as SQLite's default 4 KB, and its truncations
    #: (``_bound_wal``, which hold up the writes behind them) a quarter as often and shorter.
    PAGE_SIZE = 1024
    #: Default ``wal_limit``: bytes of log past which the store thread truncates it.
    WAL_LIMIT = 16 * 1024 * 1024
    #: Most commits between two looks at the log's size (``_wal_pace``).
    WAL_CHECK_EVERY = 32
    #: Seconds the truncating checkpoint waits for readers to leave the log.
    WAL_READER_WAIT = 0.05
    #: Seconds a statement waits for a lock held by another connection.
    BUSY_TIMEOUT = 10.0
    # A group's BEGIN IMMEDIATE takes the write lock at once (no deadlock on upgrade).
    BEGIN_WRITE = "BEGIN IMMEDIATE"
    TOUCH_SQL = "UPDATE tables SET updated = ? WHERE id = ?"
    #: Most rows one statement appends (or touches) in a group; every count up to it is
    #: a statement of its own in the connection's cache.
    INSERT_ROWS = 32
    SAVE_SETTING_SQL = "INSERT OR REPLACE INTO {settings} (key, value) VALUES (?, ?)"

    def __init__(
        self, path: str, reactor: Any = None, clock: IReactorTime | None = None,
        wal_limit: int | None = None,
    ) -> None:
        super().__init__(reactor, clock)
        self.path = path
        self._conn: sqlite3.Connection | None = None  # touched only in the store thread
        self._checkpointer: Checkpointer | None = None  # store thread only
        #: Bytes of write-ahead log past which a commit is followed by a TRUNCATE checkpoint.
        self.wal_limit = self.WAL_LIMIT if wal_limit is None else wal_limit
        self._wal_check_due = False     # store thread: _bound_wal to look after this commit
        self._wal_unchecked = 0         # store thread: commits since the last look at the log
        self._wal_check_in = 1          # store thread: commits between looks (_wal_pace)
        self._wal_size = 0              # store thread: bytes of log at the last look
        self._wal_growth = 64 * 1024    # store thread: most bytes a commit was seen to add
        self._wal_retry_at = 0.0        # store thread: monotonic time of the next try
        self._wal_backoff = 0.0         # store thread: seconds, doubled per failed try
        #: Times the log was truncated (``_bound_wal``).
        self.wal_truncations = 0
        # Store thread: per table, (seq, lease epoch or None) of the last action this
        # connection appended, kept while nothing else can have changed the table: no
        # other write of ours since (``_other_write``), nothing rolled back, and no other
        # connection's commit (``PRAGMA data_version``, read as each write transaction
        # begins, with the write lock held).  An append that follows it needs no query.
        self._appended: dict[int, tuple[int, int | None]] = {}
        self._data_version: int | None = None

    @property
    def _pool(self) -> StoreThread | None:
        """The store thread's pool (its name before ``ThreadedStore``)."""
        return self._threads

    # -- connection ----------------------------------------------------------

    def _open_in_thread(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=self.BUSY_TIMEOUT,
                               cached_statements=256)
        self._conn = conn
        self._forget_appended()
        conn.execute(f"PRAGMA page_size={self.PAGE_SIZE:d}")     # (before WAL mode: new files only)
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
        self._forget_appended()
        checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:
            checkpointer.stop()
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _session(self) -> _OwnConnection:
        return _OwnConnection(self)

    def _errors(self) -> tuple[type[BaseException], type[BaseException]]:
        return sqlite3.Error, sqlite3.IntegrityError

    def _change_mark(self, conn: sqlite3.Connection) -> int:
        return conn.total_changes

    def _append_broke(self, conn: sqlite3.Connection, mark: int) -> bool:
        return conn.total_changes != mark or not conn.in_transaction

    def _write_broke(self, conn: sqlite3.Connection) -> bool:
        return not conn.in_transaction

    def _rolled_back(self, session: Any, conn: sqlite3.Connection) -> None:
        self._forget_appended()
        if conn.in_transaction:
            conn.execute("ROLLBACK")

    def _rollback_group(self, conn: sqlite3.Connection) -> None:
        self._forget_appended()
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def _write_began(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:     # another connection committed meanwhile
            self._forget_appended()
            self._data_version = version

    def _other_write(self) -> None:
        self._appended.clear()

    def _forget_appended(self) -> None:
        self._appended.clear()
        self._data_version = None

    def _committed(self) -> None:
        self.commits += 1
        if self._checkpointer is not None:
            self._checkpointer.committed()
            self._wal_unchecked += 1
            if self._wal_unchecked >= self._wal_check_in:
                self._wal_check_due = True

    def _after_fire(self) -> None:
        if self._wal_check_due:      # after the callers have their answers
            self._wal_check_due = False
            self._bound_wal()

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
        if time.monotonic() < self._wal_retry_at:
            return              # (looked at again after the next commit)
        try:
            size = os.path.getsize(self.path + "-wal")
        except OSError:
            return
        self._wal_pace(size)
        if size <= self.wal_limit:
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

    def _wal_pace(self, size: int) -> None:
        """When to look at the log's size next: a look (a system call, which hands the GIL
        over) after every commit cost the writes of a busy hall more than the rest of it.
        The commits until the next look are as many as could add half the room left below
        wal_limit at the most a commit was seen to add (one at least, WAL_CHECK_EVERY at
        most), so the limit is still passed by one commit, as a rule, before the log is
        truncated."""
        unchecked, self._wal_unchecked = self._wal_unchecked, 0
        if size > self._wal_size and unchecked:
            self._wal_growth = max(self._wal_growth, (size - self._wal_size) // unchecked)
        self._wal_size = size
        room = self.wal_limit - size
        self._wal_check_in = max(1, min(self.WAL_CHECK_EVERY, room // (2 * self._wal_growth)))



    # -- writes --------------------------------------------------------------

    @refused
    def create_table(
        self, game: str, variant: str, seed: int, seats: list[dict], options: dict,
        table_id: int | None = None, lease: tuple[str, float] | None = None,
    ) -> Deferred[int]:
        """Record a new table in state 'waiting'; fires with its id (``table_id`` if free),
        with its lease held at epoch 1 when ``lease=(owner, ttl)``."""
        row, now, lease_sql, lease_params = self._new_table(game, variant, seed, seats, options, table_id, lease)

        def insert(conn: sqlite3.Connection) -> int:
            if table_id is not None and table_id > 0 and conn.execute(
                    "SELECT 1 FROM tables WHERE id = ?", (table_id,)).fetchone() is None:
                cur = conn.execute(
                    "INSERT INTO tables (id, game, variant, seed, options, seats, state,"
                    " created, updated, lease_owner, lease_epoch, lease_expires)"
                    f" VALUES (?, ?, ?, ?, ?, ?, 'waiting', ?, ?, {lease_sql})",
                    (table_id, *row, now, now, *lease_params),
                )
            else:
                cur = conn.execute(
                    "INSERT INTO tables (game, variant, seed, options, seats, state,"
                    " created, updated, lease_owner, lease_epoch, lease_expires)"
                    f" VALUES (?, ?, ?, ?, ?, 'waiting', ?, ?, {lease_sql})",
                    (*row, now, now, *lease_params),
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
    def append_action(
        self, table_id: int, seq: int, seat: int, action: dict, epoch: int | None = None
    ) -> Deferred[None]:
        """Append action ``seq``; a gap or a duplicate would corrupt a replay, so is refused;
        with ``epoch``, so is an append the table's lease epoch no longer allows."""
        check_epoch(epoch)
        check_int("seq", seq)
        check_int("seat", seat)
        encoded = check_dict("action", action)
        return self._append_write(self._append_one, table_id, seq, seat, encoded, epoch,
                                  self._clock.seconds())

    def _append_one(self, conn: sqlite3.Connection, table_id: int, seq: int, seat: int,
                    encoded: str, epoch: int | None, now: float) -> None:
        """Store thread: append one action (alone, or in a group after a batch failed)."""
        # Nothing changes before the INSERT (see _append_write); ``updated`` is set once
        # per table per group.  (The write lock is this transaction's: no lease
        # changes until it commits.)
        appended = self._appended
        if not self._follows(table_id, seq, epoch):
            # One query checks the table and the sequence; the primary key still
            # refuses a duplicate should one slip past.
            if self._append_expected(conn, table_id, seq, seat, encoded, epoch) is None:
                return  # already there: a retry of a write that did commit
        # else: this connection appended seq - 1 (at that epoch, to the live table) and
        # nothing has changed the table since (see _appended)
        try:
            conn.execute(_insert_sql(1), (table_id, seq, seat, encoded))
        except BaseException:
            appended.pop(table_id, None)
            raise
        appended[table_id] = (seq, epoch)
        self._touch(conn, table_id, now)

    def _follows(self, table_id: int, seq: int, epoch: int | None) -> bool:
        """Action ``seq`` follows this connection's last append to the table (at ``epoch``,
        if given) and nothing has changed the table since (see ``_appended``)."""
        last = self._appended.get(table_id)
        return last is not None and last[0] == seq - 1 and (epoch is None or last[1] == epoch)

    def _run_appends(self, conn: sqlite3.Connection, ops: list[tuple],
                     outcomes: list[tuple[Deferred[Any], bool, Any]]) -> None:
        """A group's consecutive appends: those that follow this connection's last append
        to their table (``_appended``: no query needed) are inserted by one statement per
        run of them, the rest one by one in call order (``ThreadedStore._run_appends``).
        Every SQLite statement hands the GIL over, and with a busy reactor each took up to
        a switch interval to get it back."""
        appended = self._appended
        known: list[tuple] = []        # ops known to follow, not yet inserted
        for op in ops:
            table_id, seq, _seat, _encoded, epoch, _now = op[2]
            if self._follows(table_id, seq, epoch):
                known.append(op)
                appended[table_id] = (seq, epoch)
                continue
            if known:
                self._insert_known(conn, known, outcomes)
                known = []
            super()._run_appends(conn, [op], outcomes)
        if known:
            self._insert_known(conn, known, outcomes)

    def _insert_known(self, conn: sqlite3.Connection, ops: list[tuple],
                      outcomes: list[tuple[Deferred[Any], bool, Any]]) -> None:
        """Insert appends known to follow (``_run_appends``), ``INSERT_ROWS`` per statement.
        Should a statement fail (it changes nothing then), its appends and the ones after
        it are run one by one, each checked by a query, so only a faulty one fails."""
        touched = self._touched
        assert touched is not None
        for start in range(0, len(ops), self.INSERT_ROWS):
            chunk = ops[start:start + self.INSERT_ROWS]
            params: list[Any] = []
            for op in chunk:
                params += op[2][:4]
            mark = conn.total_changes
            try:
                conn.execute(_insert_sql(len(chunk)), params)
            except sqlite3.Error:
                if self._append_broke(conn, mark):
                    raise _GroupBroken from None
                rest = ops[start:]
                for op in rest:
                    self._appended.pop(op[2][0], None)
                super()._run_appends(conn, rest, outcomes)
                return
            for op in chunk:
                args = op[2]
                touched[args[0]] = args[5]
                outcomes.append((op[3], True, None))

    def _flush_touched(self, conn: sqlite3.Connection) -> None:
        """Set the group's tables' ``updated``: one statement (per ``INSERT_ROWS`` tables)."""
        touched = self._touched
        if not touched:
            return
        items = list(touched.items())
        touched.clear()
        for start in range(0, len(items), self.INSERT_ROWS):
            chunk = items[start:start + self.INSERT_ROWS]
            params: list[Any] = []
            for table_id, now in chunk:
                params += (table_id, now)
            params += (table_id for table_id, _ in chunk)
            conn.execute(_touch_sql(len(chunk)), params)

    # -- leases (the rest is SQLTablesStore's) --------------------------------

    def _renew_sql(self, now: str) -> str:
        # The leases come as one JSON object {"id": epoch}, each looked up by id (the unary
        # + keeps the planner off the state index, which would scan the JSON once per table).
        return ("UPDATE tables SET lease_expires = n.at + ?"
                " FROM (SELECT " + now + " AS at) AS n,"
                " (SELECT CAST(key AS INTEGER) AS tid, value AS tepoch FROM json_each(?)) AS l"
                " WHERE tables.id = l.tid AND tables.lease_epoch = l.tepoch"
                " AND tables.lease_owner = ? AND +tables.state IN ('waiting', 'playing')"
                " RETURNING id")

    def _lease_rows(self, leases: dict[int, int]) -> tuple:
        return (dumps({str(table_id): epoch for table_id, epoch in leases.items()}),)
