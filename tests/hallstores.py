"""Hall tests on every store: the ``hall_store`` fixture (tests/conftest.py) runs a test
once per store kind (memory, SQLite, PostgreSQL) with a fresh database of that kind.

The memory store answers at once; the real stores answer from their store thread, so a
test waits for what it needs with ``settle`` (which turns the real reactor until a Deferred
has fired) and moves the hall's Clock with ``advance`` (which lets every table's write of
each step be stored before the next, as bots and timers wait for them).  PostgreSQL runs on
tests/pgserver.py's throwaway server (one per test process), in a new database per test;
without PostgreSQL its runs are skipped, except under CI (``CI=true``), where they fail."""
from __future__ import annotations

from twisted.internet import defer, reactor
from twisted.python.failure import Failure

KINDS = ("memory", "sqlite", "postgresql")
#: The kinds that keep their data in a database a restarted hall opens again.
REAL = ("sqlite", "postgresql")


def settle(d, seconds: float = 60.0):
    """``d``'s result once it has fired (its failure raised), turning the real reactor."""
    if not isinstance(d, defer.Deferred):
        return d
    done: list = []
    d.addBoth(done.append)
    turns = int(seconds / 0.001)
    while not done and turns:
        reactor.iterate(0.001)
        turns -= 1
    if not done:
        raise AssertionError(f"{d!r} did not fire within {seconds} s")
    if isinstance(done[0], Failure):
        done[0].raiseException()
    return done[0]


def flush(*tables) -> None:
    """Every write of these tables stored (or failed, for a stalled table), those that
    a stored write led to as well (a started table's first actions, say)."""
    for _ in range(1000):
        settle(defer.gatherResults([t.flush() for t in tables], consumeErrors=True))
        if not any(t.writing_since is not None and not t.stalled for t in tables):
            return
    raise AssertionError(f"the writes of {tables!r} never ended")


def drain(store) -> None:
    """Every call made to ``store`` so far answered (a stalled table's retry too, which
    its flush does not wait for): the store runs calls in order."""
    settle(store.stats().addErrback(lambda _: None))


def advance(hall, seconds: float, step: float = 0.5) -> None:
    """The hall's clock moved on by ``seconds``, ``step`` at a time, each table's writes
    stored after every step (as they would be between two turns of a real reactor)."""
    while seconds > 1e-9:
        dt = min(step, seconds)
        hall.clock.advance(dt)
        seconds -= dt
        flush(*hall.tables.values())
        drain(hall.store)


class HallStore:
    """A fresh database of one kind, and the stores a test opens on it."""

    def __init__(self, kind: str, folder) -> None:
        self.kind = kind
        self.opened: list = []
        self.path = self.url = None
        self.down = False
        self._locker = None
        if kind == "sqlite":
            self.path = str(folder / "hall.sqlite")
        elif kind == "postgresql":
            from tests import pgserver
            self.url = pgserver.new_database_url()

    def __repr__(self) -> str:
        return f"<HallStore {self.kind}>"

    def open(self, clock=None, lock_wait: float | None = None):
        """A store on this database, open (for memory: a new, empty store); ``lock_wait``:
        the seconds a write waits for another connection's lock before it fails."""
        if self.kind == "memory":
            from gamehall.store import MemoryStore
            store = MemoryStore(clock)
        elif self.kind == "sqlite":
            from gamehall.store import SQLiteStore
            store = SQLiteStore(self.path, reactor, clock=clock)
            if lock_wait is not None:
                store.BUSY_TIMEOUT = lock_wait
        else:
            from gamehall.store.postgres import PostgresStore
            store = PostgresStore(self.url, reactor, clock=clock, connect_timeout=1)
            if lock_wait is not None:
                store.LOCK_TIMEOUT = lock_wait
        settle(store.open())
        self.opened.append(store)
        return store

    def restart(self, store):
        """The store of a hall started again on the same database: what ``store`` wrote
        is stored, then it is closed and a new one opened (memory: the same store)."""
        if self.kind == "memory":
            return store
        settle(store.close())
        return self.open(store._clock)

    def go_down(self, how: str = "locked") -> None:
        """A real failure of the database.  "locked": another connection holds the write
        lock (SQLite: BEGIN EXCLUSIVE; PostgreSQL: the tables locked as ``gamehall-store
        copy`` locks them), so writes wait, then fail.  "stopped" (PostgreSQL): the server
        stopped as if killed, so every call fails."""
        assert self.kind in REAL and not self.down
        if self.kind == "sqlite":
            import sqlite3
            assert how == "locked"
            self._locker = sqlite3.connect(self.path, isolation_level=None)
            self._locker.execute("BEGIN EXCLUSIVE")
        elif how == "locked":
            import psycopg
            self._locker = psycopg.connect(self.url, autocommit=True)
            self._locker.execute("BEGIN")
            self._locker.execute("LOCK TABLE gamehall_tables, gamehall_actions, gamehall_results"
                                 " IN EXCLUSIVE MODE")
        else:
            from tests import pgserver
            pgserver.server().stop("immediate")
        self.down = True

    def come_back(self) -> None:
        """The lock released, the server started again."""
        if not self.down:
            return
        locker, self._locker = self._locker, None
        if locker is not None:
            locker.execute("ROLLBACK")
            locker.close()
        else:
            from tests import pgserver
            pgserver.server()                   # starts it again
        self.down = False

    def close_all(self) -> None:
        self.come_back()
        for store in self.opened:
            if self.kind != "memory":
                settle(store.close())
