"""The SQLite file under ``SQLiteStore``: the start-up check, the schema migrations and
the thread that checkpoints the write-ahead log."""
from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any, Callable

from twisted.logger import Logger

from .interface import StoreError
from .sqltables import player_tables

# ---------------------------------------------------------------------------
# Start-up checks: refuse a file the hall could not write, or one that lost its data.

#: Files that, when not empty beside an empty database file, mean it lost its data.
SIBLINGS = ("-wal", "-journal", ".bak", ".backup", ".old", "~")


def check_database(path: str, timeout: float = 2.0) -> None:
    """Raise StoreError with a one-line reason unless the hall can write ``path``.

    Refused: a missing directory, a directory, a file another connection holds
    locked (after ``timeout`` seconds), a read-only file, and an empty (0-byte)
    file beside a non-empty write-ahead log, journal or backup of it: SQLite
    would quietly open that as a new, empty store, and the games in the log or
    the backup would be lost (see the README, "Persistence and restarts").  An
    empty file alone is opened as an empty store, with a warning in the log.
    """
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise StoreError(f"the database {path!r} is a directory, not a file")
    if not os.path.isdir(folder):
        raise StoreError(f"the database {path!r} cannot be created: directory {folder!r} does not exist")
    if os.path.isfile(path) and os.path.getsize(path) == 0:
        for suffix in SIBLINGS:
            beside = path + suffix
            if os.path.isfile(beside) and os.path.getsize(beside) > 0:
                raise StoreError(
                    f"the database {path!r} is empty (0 bytes) but {beside!r} holds "
                    f"{os.path.getsize(beside):,} bytes: the file was probably truncated or "
                    f"replaced; restore it from a backup, or move {beside!r} away to start "
                    f"with an empty store")
        # Nothing beside it to lose: SQLite takes an empty file for a new store.  Start (there is
        # no data left in it to protect, and a file made with touch is a fair way to create one)
        # but say so loudly: more often it is a store truncated by a full disk or a bad copy.
        Logger(namespace="gamehall.store").warn(
            "the database {path!r} is an empty (0-byte) file: starting with an EMPTY hall (no "
            "stored games). If it held games, it was truncated: stop the hall and restore it "
            "from a backup before new games are written to it.", path=path)
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=timeout)
    except sqlite3.Error as e:
        raise StoreError(f"the database {path!r} cannot be opened: {e}") from None
    try:
        # A real write, rolled back: a lock, a read-only file or file system all fail here.
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("CREATE TABLE gamehall_write_check (x)")
        conn.execute("ROLLBACK")
    except sqlite3.Error as e:
        raise StoreError(f"the database {path!r} cannot be written: {e}") from None
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# Schema migrations.  MIGRATIONS[i] upgrades a file from version i to i + 1;
# the version is PRAGMA user_version.  Never edit a shipped migration: append.


def statements(*sql: str) -> Callable[[sqlite3.Connection], None]:
    def migrate(conn: sqlite3.Connection) -> None:
        for statement in sql:
            conn.execute(statement)

    return migrate


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    # 1: the base schema.
    statements(
        """CREATE TABLE tables (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            game TEXT NOT NULL,
            variant TEXT NOT NULL,
            seed INTEGER NOT NULL,
            options TEXT NOT NULL,
            seats TEXT NOT NULL,
            state TEXT NOT NULL
                CHECK (state IN ('waiting', 'playing', 'finished', 'aborted')),
            created REAL NOT NULL,
            updated REAL NOT NULL)""",
        """CREATE TABLE actions (
            table_id INTEGER NOT NULL REFERENCES tables(id),
            seq INTEGER NOT NULL,
            seat INTEGER NOT NULL,
            action TEXT NOT NULL,
            PRIMARY KEY (table_id, seq)) WITHOUT ROWID""",
        """CREATE TABLE results (
            table_id INTEGER PRIMARY KEY REFERENCES tables(id),
            result TEXT,
            record TEXT,
            finished REAL NOT NULL)""",
    ),
    # 2: lobby queries select by state (unfinished, finished newest first).
    statements("CREATE INDEX tables_state_updated ON tables (state, updated)"),
    # 3: settings kept across restarts (save_setting / load_settings).
    statements("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID"),
    # 4: registered players and their keys (IPlayerStore).
    statements(*player_tables("")),
    # 5: table leases (gamehall.store.leases): which process runs a live table, the
    # epoch of that holding, and when it expires (the store clock's seconds).
    statements(
        "ALTER TABLE tables ADD COLUMN lease_owner TEXT",
        "ALTER TABLE tables ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE tables ADD COLUMN lease_expires REAL",
    ),
    # 6: ratings and the rated games' events (gamehall.store.rating_sql).
    statements(
        """CREATE TABLE ratings (
            rating_key TEXT NOT NULL,
            player TEXT NOT NULL,
            name TEXT NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            rating REAL NOT NULL,
            games INTEGER NOT NULL,
            places TEXT NOT NULL,
            last_played REAL NOT NULL,
            PRIMARY KEY (rating_key, player)) WITHOUT ROWID""",
        "CREATE INDEX ratings_standings ON ratings (rating_key, rating DESC)",
        "CREATE INDEX ratings_player ON ratings (player)",
        """CREATE TABLE rating_events (
            table_id INTEGER NOT NULL REFERENCES tables(id),
            seat INTEGER NOT NULL,
            rating_key TEXT NOT NULL,
            player TEXT NOT NULL,
            name TEXT NOT NULL,
            place INTEGER NOT NULL,
            players INTEGER NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            games INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            finished REAL NOT NULL,
            PRIMARY KEY (table_id, seat)) WITHOUT ROWID""",
        "CREATE INDEX rating_events_player ON rating_events (player, seq)",
        "CREATE INDEX rating_events_seq ON rating_events (seq)",
    ),
    # 7: a live table's ``updated`` (set by every append) in no index: (state, updated)
    # moved the table's entry at every append, two more pages written per append to the
    # log.  The live tables are looked up by state, and only finished ones listed by time.
    statements(
        "DROP INDEX tables_state_updated",
        "CREATE INDEX tables_live ON tables (state) WHERE state IN ('waiting', 'playing')",
        "CREATE INDEX tables_finished ON tables (updated, id) WHERE state = 'finished'",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the file to SCHEMA_VERSION, one transaction per migration."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"database schema version {version} is newer than this code knows "
            f"({SCHEMA_VERSION}); upgrade gamehall or use another file"
        )
    while version < SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read under the write lock: another process may have migrated.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version < SCHEMA_VERSION:
                MIGRATIONS[version](conn)
                version += 1
                conn.execute(f"PRAGMA user_version = {version:d}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return version


# ---------------------------------------------------------------------------


class Checkpointer:
    """Copies the write-ahead log back into the database on a thread of its own.

    SQLite's automatic checkpoint runs inside the COMMIT that takes the WAL
    past 1,000 pages: that COMMIT copies the pages and syncs twice (5-25 ms
    on a quiet disk, 1 % of commits under load), and every write grouped
    into it waits, hence the players whose actions they were.  With it off
    on the store's connection, this thread runs a PASSIVE checkpoint on a
    second connection (it never waits for, nor blocks, the writer) at most
    every ``interval`` seconds while commits happen.  The durability of a
    commit is unchanged (WAL, synchronous=NORMAL); a checkpoint that fails
    is logged and tried again after the next commits.
    """

    log = Logger()

    def __init__(self, path: str, reactor: Any, interval: float) -> None:
        self.path, self.reactor, self.interval = path, reactor, interval
        self._due = threading.Event()
        self._stopping = threading.Event()
        self._failed = False
        self.checkpoints = 0
        #: Held while this thread checkpoints; the store thread takes it for its own
        #: (TRUNCATE) checkpoint, which SQLite would refuse at once during this one's.
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="gamehall-store-checkpoint", daemon=True)
        self._thread.start()

    def committed(self) -> None:
        """Store thread: a commit added to the log."""
        if not self._due.is_set():
            self._due.set()

    def stop(self) -> None:
        """Finish the checkpoint in progress, if any, and end the thread (the store's
        connection checkpoints what is left when it closes)."""
        self._stopping.set()
        self._due.set()
        self._thread.join()

    def _run(self) -> None:
        conn = None
        while True:
            self._due.wait()
            if self._stopping.wait(self.interval):      # commits of the next moments: one checkpoint
                break
            self._due.clear()
            try:
                if conn is None:
                    conn = sqlite3.connect(self.path, isolation_level=None, timeout=0)
                with self.lock:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                self.checkpoints += 1
                self._failed = False
            except sqlite3.Error as e:
                if not self._failed:           # once per failing spell
                    self._failed = True
                    self.reactor.callFromThread(
                        self.log.warn, "store: WAL checkpoint failed ({error}); tried again later",
                        error=repr(e))
        if conn is not None:
            conn.close()

