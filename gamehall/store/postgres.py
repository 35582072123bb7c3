"""``IStore`` on PostgreSQL (psycopg 3 with psycopg-pool), with SQLiteStore's promises.

Every call is queued on the reactor side and run by one store thread, in call order:
an append issued after another is written after it, and a read sees every write
called before it.  Each write is committed before its Deferred fires (so nothing is
told to a player before it is stored).  Writes found queued together share one
transaction (group commit), each in a savepoint so a refused one fails alone; their
Deferreds fire after the COMMIT, in call order.

The connection comes from a psycopg-pool pool of one, checked before use.  A server
that cannot be reached, or a connection lost mid-transaction, fails the Deferreds of
the writes concerned with ``StoreError`` (the hall stalls those tables and retries);
the pool connects again in the background, and the calls after the server is back
succeed.  Nothing of the database work runs on the reactor.

The schema lives in tables named ``gamehall_*`` (the database may hold others), is
created and migrated by ``open()`` under an advisory lock, and its version is the one
row of ``gamehall_schema``.
"""
from __future__ import annotations

import logging
from typing import Any

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure
from zope.interface import implementer

from .interface import IPlayerStore, IStore, StoreError
from .leases import ILeaseStore
from .sqltables import SQLPlayersMixin, SQLTablesStore, player_tables
from .validation import check_dict, check_epoch, check_int, refused

#: Key of the advisory lock held while the schema is created or migrated.
_MIGRATION_LOCK = 0x6761_6D65  # 'game'


# ---------------------------------------------------------------------------
# Schema migrations: MIGRATIONS[i] upgrades a database from version i to i + 1.
# Never edit a shipped migration: append.

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the base schema (SQLiteStore's, in gamehall_* names).  The lease columns hold a
    # table's lease (gamehall.store.leases: which process runs a live table, the epoch of
    # that holding, and when it expires, in the database clock's epoch seconds); NULL / 0
    # in a hall of one process.
    (
        """CREATE TABLE gamehall_tables (
            id BIGINT PRIMARY KEY,
            game TEXT NOT NULL,
            variant TEXT NOT NULL,
            seed BIGINT NOT NULL,
            options TEXT NOT NULL,
            seats TEXT NOT NULL,
            state TEXT NOT NULL
                CHECK (state IN ('waiting', 'playing', 'finished', 'aborted')),
            created DOUBLE PRECISION NOT NULL,
            updated DOUBLE PRECISION NOT NULL,
            lease_owner TEXT,
            lease_epoch BIGINT NOT NULL DEFAULT 0,
            lease_expires DOUBLE PRECISION)""",
        # Ids the store gives; an id the hall gives moves it on (never given twice).
        "CREATE SEQUENCE gamehall_tables_id_seq",
        """CREATE TABLE gamehall_actions (
            table_id BIGINT NOT NULL REFERENCES gamehall_tables(id),
            seq INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            action TEXT NOT NULL,
            PRIMARY KEY (table_id, seq))""",
        """CREATE TABLE gamehall_results (
            table_id BIGINT PRIMARY KEY REFERENCES gamehall_tables(id),
            result TEXT,
            record TEXT,
            finished DOUBLE PRECISION NOT NULL)""",
        "CREATE INDEX gamehall_tables_state_updated ON gamehall_tables (state, updated)",
        # The admin console's passwords (no file beside a PostgreSQL database holds them).
        """CREATE TABLE gamehall_admin (
            username TEXT PRIMARY KEY,
            password TEXT NOT NULL)""",
    ),
    # 2: settings kept across restarts (save_setting / load_settings), as SQLite's 3.
    (
        """CREATE TABLE gamehall_settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL)""",
    ),
    # 3: registered players and their keys (IPlayerStore), as SQLite's 4.
    player_tables("gamehall_", "DOUBLE PRECISION"),
    # 4: ratings and the rated games' events (gamehall.store.rating_sql), as SQLite's 6.
    (
        """CREATE TABLE gamehall_ratings (
            rating_key TEXT NOT NULL,
            player TEXT NOT NULL,
            name TEXT NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            rating DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL,
            places TEXT NOT NULL,
            last_played DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (rating_key, player))""",
        "CREATE INDEX gamehall_ratings_standings ON gamehall_ratings (rating_key, rating DESC)",
        "CREATE INDEX gamehall_ratings_player ON gamehall_ratings (player)",
        """CREATE TABLE gamehall_rating_events (
            table_id BIGINT NOT NULL REFERENCES gamehall_tables(id),
            seat INTEGER NOT NULL,
            rating_key TEXT NOT NULL,
            player TEXT NOT NULL,
            name TEXT NOT NULL,
            place INTEGER NOT NULL,
            players INTEGER NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL,
            seq BIGINT NOT NULL,
            finished DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (table_id, seat))""",
        "CREATE INDEX gamehall_rating_events_player ON gamehall_rating_events (player, seq)",
        "CREATE INDEX gamehall_rating_events_seq ON gamehall_rating_events (seq)",
    ),
    # 5: a live table's ``updated`` in no index, as SQLite's 7: (state, updated) made every
    # append's touch an index update as well (and never a heap-only one).
    (
        "DROP INDEX gamehall_tables_state_updated",
        "CREATE INDEX gamehall_tables_live ON gamehall_tables (state) WHERE state IN ('waiting', 'playing')",
        "CREATE INDEX gamehall_tables_finished ON gamehall_tables (updated, id) WHERE state = 'finished'",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


def migrate_schema(conn: Any) -> int:
    """Bring the database to SCHEMA_VERSION in one transaction, under an advisory lock
    (two halls starting at once: one migrates, the other then finds it done)."""
    conn.execute("BEGIN")
    try:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS gamehall_schema (version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM gamehall_schema").fetchone()
        version = 0 if row is None else row[0]
        if row is None:
            conn.execute("INSERT INTO gamehall_schema (version) VALUES (0)")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"database schema version {version} is newer than this code knows "
                f"({SCHEMA_VERSION}); upgrade gamehall or use another database")
        while version < SCHEMA_VERSION:
            for statement in MIGRATIONS[version]:
                conn.execute(statement)
            version += 1
        conn.execute("UPDATE gamehall_schema SET version = %s", (version,))
        conn.execute("COMMIT")
    except BaseException:
        _rollback_quietly(conn)
        raise
    return version


def _rollback_quietly(conn: Any) -> None:
    try:
        if not conn.closed:
            conn.execute("ROLLBACK")
    except Exception:
        pass


def _dead(conn: Any) -> bool:
    """True when the connection is lost (not merely in a failed transaction)."""
    return conn is None or conn.closed or conn.broken


@implementer(IStore, IPlayerStore, ILeaseStore)
class PostgresStore(SQLPlayersMixin, SQLTablesStore):
    """``IStore`` on a PostgreSQL database named by ``url`` (``postgresql://...``).

    ``reactor`` must provide ``callFromThread`` (the real reactor); ``clock``
    (default: the reactor) supplies the created/updated/finished times.  A call
    waits at most ``connect_timeout`` seconds for a connection before it fails.
    Table leases expire by the database server's clock (``clock_timestamp()``), which
    every process of a hall shares whatever its own clock says; ``lease_clock``
    (IReactorTime) replaces it, for tests.
    """

    #: Default ``connect_timeout``, seconds.
    CONNECT_TIMEOUT = 5.0
    #: Seconds a statement waits for a lock another session holds (``gamehall-store
    #: copy``, an operator's transaction), then fails, as SQLiteStore's BUSY_TIMEOUT: the
    #: table whose write it was stalls, tells its players and retries (without it the
    #: tables froze, nobody told, for as long as the lock was held).
    LOCK_TIMEOUT = 10.0
    THREAD_NAME = "gamehall-store-postgres"
    BEGIN_READ = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    TOUCH_SQL = "UPDATE gamehall_tables SET updated = %s WHERE id = %s"
    PREFIX = "gamehall_"
    PARAM = "%s"
    LOCK_ROW = " FOR UPDATE"
    LOCK_ROWS = " FOR UPDATE"
    SAVE_SETTING_SQL = ("INSERT INTO {settings} (key, value) VALUES (?, ?)"
                        " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")

    def __init__(
        self, url: str, reactor: Any = None, clock: IReactorTime | None = None,
        connect_timeout: float | None = None, lease_clock: IReactorTime | None = None,
    ) -> None:
        super().__init__(reactor, clock)
        self.lease_clock = lease_clock
        self.url = url
        self.connect_timeout = self.CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
        self._pool: Any = None                  # psycopg_pool.ConnectionPool, store thread only

    # -- connection ----------------------------------------------------------
    def _open_in_thread(self) -> None:
        try:
            import psycopg  # noqa: F401
            from psycopg_pool import ConnectionPool
        except ImportError as e:
            raise StoreError(f"a PostgreSQL store needs psycopg and psycopg-pool ({e})") from None
        # The pool warns (stdlib logging, to stderr under twistd) at every failed
        # reconnection attempt; the hall already says once that a table stalls and once
        # that it recovers.  (Left alone if the operator set a level.)
        pool_log = logging.getLogger("psycopg.pool")
        if pool_log.level == logging.NOTSET:
            pool_log.setLevel(logging.ERROR)
        pool = ConnectionPool(
            self.url, min_size=1, max_size=1, open=False, name="gamehall-store",
            timeout=self.connect_timeout,
            # Give up a failing reconnection soon: the next call then starts a new one at
            # once, rather than after the pool's growing back-off.
            reconnect_timeout=max(2 * self.connect_timeout, 1.0),
            check=ConnectionPool.check_connection,
            configure=self._configure,
            kwargs={"autocommit": True, "connect_timeout": max(1, round(self.connect_timeout))},
        )
        self._pool = pool
        try:
            pool.open(wait=True, timeout=self.connect_timeout)
        except Exception as e:
            raise StoreError(f"cannot connect to the PostgreSQL store: {self._why_not(e)}") from None
        with pool.connection() as conn:
            migrate_schema(conn)

    def _configure(self, conn: Any) -> None:
        """Each new connection of the pool: a lock waited for fails after LOCK_TIMEOUT."""
        conn.execute("SELECT set_config('lock_timeout', %s, false)",
                     (f"{max(1, round(self.LOCK_TIMEOUT * 1000))}ms",))

    def _why_not(self, error: Exception) -> str:
        """Why the pool could not connect: the server's own words (the pool says only
        that it timed out), with the URL's password hidden."""
        import psycopg

        from gamehall.store.url import shown
        try:
            psycopg.connect(self.url, connect_timeout=max(1, round(self.connect_timeout))).close()
        except psycopg.Error as e:
            error = e
        return _reason(error).replace(self.url, shown(self.url))

    def _close_in_thread(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    # -- plumbing (ThreadedStore's hooks) ----------------------------------------
    #
    # The connection is taken once per batch (_Session).  If a group transaction fails
    # while the connection lives, it is rolled back and its writes rerun one
    # transaction each; if the connection is lost, every write of the group fails
    # (none was committed, or, for a COMMIT cut off, the retry of an append finds it
    # stored and counts as done).

    def _session(self) -> _Session:
        return _Session(self)

    def _errors(self) -> tuple[type[BaseException], type[BaseException]]:
        import psycopg
        return psycopg.Error, psycopg.IntegrityError

    def _reason(self, error: BaseException) -> str:
        return _reason(error)

    def _append_broke(self, conn: Any, mark: Any) -> bool:
        return conn.info.transaction_status != _intrans()

    def _write_broke(self, conn: Any) -> bool:
        return _dead(conn)

    def _rolled_back(self, session: Any, conn: Any) -> None:
        _rollback_quietly(conn)
        if _dead(conn):
            session.lost()

    def _rollback_group(self, conn: Any) -> None:
        _rollback_quietly(conn)

    def _lost(self, session: Any, conn: Any, error: BaseException) -> Failure | None:
        if not _dead(conn):
            return None
        session.lost()
        return Failure(StoreError(f"database error: {_reason(error)}"))

    def _executemany(self, conn: Any, sql: str, rows: list[tuple]) -> None:
        with conn.cursor() as cur:
            cur.executemany(sql, rows)

    def _limit(self, limit: int) -> Any:
        return limit if limit >= 0 else None  # (SQLite's LIMIT -1; PostgreSQL's LIMIT NULL)

    # -- writes --------------------------------------------------------------

    @refused
    def create_table(
        self, game: str, variant: str, seed: int, seats: list[dict], options: dict,
        table_id: int | None = None, lease: tuple[str, float] | None = None,
    ) -> Deferred[int]:
        """Record a new table in state 'waiting'; fires with its id (``table_id`` if free),
        with its lease held at epoch 1 when ``lease=(owner, ttl)``."""
        row, now, lease_sql, lease_params = self._new_table(game, variant, seed, seats, options, table_id, lease)
        insert_sql = self._sql(
            "INSERT INTO gamehall_tables (id, game, variant, seed, options, seats, state,"
            " created, updated, lease_owner, lease_epoch, lease_expires)"
            " VALUES (?, ?, ?, ?, ?, ?, 'waiting', ?, ?, " + lease_sql + ")")

        def insert(conn: Any) -> int:
            new_id = table_id
            if new_id is None or new_id < 1 or conn.execute(
                    "SELECT 1 FROM gamehall_tables WHERE id = %s", (new_id,)).fetchone() is not None:
                new_id = _next_id(conn)
            else:
                note_id(conn, new_id)
            conn.execute(insert_sql, (new_id, *row, now, now, *lease_params))
            return new_id

        return self._write(insert)

    def last_table_id(self) -> Deferred[int]:
        """The highest table id ever recorded or given (0 if none)."""
        return self._read(_last_id)

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
        now = self._clock.seconds()
        if epoch is None:
            sql, params = _APPEND, (seq, seat, encoded, table_id, table_id, seq)
        else:
            sql, params = _APPEND_FENCED, (seq, seat, encoded, table_id, epoch, table_id, seq)

        def append(conn: Any) -> None:
            # One statement checks the table and the sequence (and the lease epoch) and
            # inserts (one round trip); only when it inserts nothing is the reason looked up.
            # Nothing changes before the INSERT (see the plumbing); ``updated`` is set once
            # per table per group.
            if conn.execute(sql, params).fetchone() is not None:
                self._touch(conn, table_id, now)
                return
            expected = self._append_expected(conn, table_id, seq, seat, encoded, epoch)
            if expected is not None:     # (the INSERT found it next, yet inserted nothing)
                raise StoreError(f"table {table_id}: action seq {seq} refused, expected {expected}")

        return self._append_write(append)

    # -- leases (the rest is SQLTablesStore's) --------------------------------

    def _lease_now(self) -> tuple[str, tuple]:
        if self.lease_clock is not None:
            return "?::float8", (self.lease_clock.seconds(),)
        return "extract(epoch FROM clock_timestamp())::float8", ()

    def _renew_sql(self, now: str) -> str:
        # The leases come as two arrays (ids, epochs), joined by id.
        return ("UPDATE {tables} t SET lease_expires = n.at + ?"
                " FROM (SELECT " + now + " AS at) AS n,"
                " unnest(?::bigint[], ?::bigint[]) AS l(tid, tepoch)"
                " WHERE t.id = l.tid AND t.lease_epoch = l.tepoch"
                " AND t.lease_owner = ? AND t.state IN ('waiting', 'playing')"
                " RETURNING t.id")

    def _lease_rows(self, leases: dict[int, int]) -> tuple:
        return (list(leases), list(leases.values()))

    # -- admin console credentials --------------------------------------------

    def admin_password(self, username: str) -> Deferred[str | None]:
        """The admin console password kept for ``username``, or None."""

        def load(conn: Any) -> str | None:
            row = conn.execute("SELECT password FROM gamehall_admin WHERE username = %s",
                               (username,)).fetchone()
            return None if row is None else row[0]

        return self._read(load)

    def ensure_admin_password(self, username: str, password: str) -> Deferred[bool]:
        """Keep ``password`` for ``username`` unless one is kept already; True if kept now."""

        def store(conn: Any) -> bool:
            cur = conn.execute(
                "INSERT INTO gamehall_admin (username, password) VALUES (%s, %s)"
                " ON CONFLICT (username) DO NOTHING", (username, password))
            return cur.rowcount == 1

        return self._write(store)


_APPEND = (
    "INSERT INTO gamehall_actions (table_id, seq, seat, action)"
    " SELECT t.id, %s, %s, %s FROM gamehall_tables t"
    " WHERE t.id = %s AND t.state IN ('waiting', 'playing')"
    " AND COALESCE((SELECT MAX(seq) FROM gamehall_actions WHERE table_id = %s), -1) + 1 = %s"
    " RETURNING 1")
# The same with the lease epoch checked.  FOR UPDATE: a lease taken while this runs waits
# for its commit (the taker then loads this action), or this sees the new epoch and
# inserts nothing (READ COMMITTED re-checks a row it waited for).
_APPEND_FENCED = (
    "INSERT INTO gamehall_actions (table_id, seq, seat, action)"
    " SELECT t.id, %s, %s, %s FROM gamehall_tables t"
    " WHERE t.id = %s AND t.state IN ('waiting', 'playing') AND t.lease_epoch = %s"
    " AND COALESCE((SELECT MAX(seq) FROM gamehall_actions WHERE table_id = %s), -1) + 1 = %s"
    " FOR UPDATE OF t"
    " RETURNING 1")


class _Session:
    """The store thread's connection for one batch: taken from the pool on first use,
    given back at the end; once taking it failed or it was lost, the rest of the batch
    fails at once with the same reason (no second wait for a server that is down)."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self.conn: Any = None
        self.error: StoreError | None = None

    def connection(self) -> Any:
        if self.error is not None:
            raise self.error
        if self.conn is None:
            pool = self.store._pool
            if pool is None:
                raise StoreError("store is not open")
            try:
                self.conn = pool.getconn()
            except Exception as e:
                self.error = StoreError(f"database error: cannot reach the PostgreSQL store: {_reason(e)}")
                raise self.error from None
        return self.conn

    def lost(self) -> None:
        """The connection died: give it back (the pool replaces it); later calls of this
        batch fail at once."""
        self.error = StoreError("database error: the connection to the PostgreSQL store was lost")
        self.release()

    def release(self) -> None:
        conn, self.conn = self.conn, None
        pool = self.store._pool
        if conn is not None and pool is not None:
            try:
                pool.putconn(conn)
            except Exception:
                pass


def _intrans() -> Any:
    from psycopg.pq import TransactionStatus
    return TransactionStatus.INTRANS


def _reason(e: BaseException) -> str:
    """One line saying why: the first line of a psycopg message."""
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


def _last_id(conn: Any) -> int:
    top = conn.execute("SELECT MAX(id) FROM gamehall_tables").fetchone()[0] or 0
    seq = conn.execute(
        "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM gamehall_tables_id_seq"
    ).fetchone()[0]
    return max(int(top), int(seq))


def _next_id(conn: Any) -> int:
    """A new id above every id used (the sequence may lag an id the hall gave)."""
    while True:
        new_id = conn.execute("SELECT nextval('gamehall_tables_id_seq')").fetchone()[0]
        if conn.execute("SELECT 1 FROM gamehall_tables WHERE id = %s", (new_id,)).fetchone() is None:
            return int(new_id)


def note_id(conn: Any, table_id: int) -> None:
    """Move the sequence past an id the hall gave, so the store never gives it again."""
    conn.execute(
        "SELECT setval('gamehall_tables_id_seq', %s) FROM gamehall_tables_id_seq"
        " WHERE NOT is_called OR last_value < %s", (table_id, table_id))
