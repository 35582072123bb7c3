"""The hall's persistence: tables, their action logs, results and records.

A game is stored as its construction arguments (game, variant, seed, options,
seats) plus the ordered list of applied ``(seat, action)`` pairs.  Replaying
those actions from the seed rebuilds the game exactly, so this log is all a
restart, a review or a statistic needs.

The hall talks only to ``IStore``, so another database can stand in later.
Three implementations live in this package:

- ``SQLiteStore``: the standard library ``sqlite3`` on one dedicated
  single-thread pool, so the reactor never blocks on the disk and writes are
  applied in the order they were issued.  Every write is committed before its
  Deferred fires; writes queued together share one commit.
- ``PostgresStore`` (``postgres``, imported on demand: psycopg is loaded only
  for a ``postgresql://`` store): the same promises on PostgreSQL, for a hall
  whose store is a server.
- ``MemoryStore``: the same behaviour in memory, with already-fired Deferreds,
  for hall unit tests.

Every method returns a Deferred.  Refused operations (unknown table, a gap
or duplicate in the action sequence, a change to a finished table, a schema
newer than this code) fail with ``StoreError``.

Modules: ``interface`` (``IStore``, states, ``StoreError``), ``leases`` (``ILeaseStore``:
which process of a many-process hall runs a table, and ``StoreFenced``), ``validation`` (what
every store refuses, shared), ``threaded`` (``ThreadedStore``, the base of the SQLite and
PostgreSQL stores: the one store thread, calls run in call order, group commit, Deferreds
fired after the commit), ``sqltables`` (``SQLTablesStore``: the ``IStore`` methods the two run
with the same SQL but for table names and parameter marks), ``sqlite_file`` (start-up check, migrations, WAL
checkpointer), ``sqlite`` (``SQLiteStore``), ``memory`` (``MemoryStore``), ``postgres`` (``PostgresStore``),
``url`` (``--store URL``), ``cli`` (``gamehall-store``: copy, admin), ``admin`` (the admin
console's password kept in a PostgreSQL store).
"""
from .interface import END_STATES, LIVE_STATES, SEAT_KINDS, STATES, IPlayerStore, IStore, StoreError
from .leases import ILeaseStore, StoreFenced
from .memory import MemoryStore
from .sqlite import SQLiteStore
from .threaded import ThreadedStore
from .sqlite_file import SCHEMA_VERSION, SIBLINGS, Checkpointer, MIGRATIONS, check_database, migrate, statements
from .validation import (
    broken_row, check_dict, check_int, check_seats, check_setting, decoded_or_error, dumps, refused,
)

__all__ = [
    "STATES", "LIVE_STATES", "END_STATES", "SEAT_KINDS", "StoreError", "IStore", "IPlayerStore",
    "ILeaseStore", "StoreFenced",
    "SQLiteStore", "MemoryStore", "ThreadedStore", "check_database", "MIGRATIONS", "SCHEMA_VERSION",
    "dumps", "check_seats", "check_dict", "broken_row", "decoded_or_error", "check_setting",
    "check_int", "refused", "migrate", "statements", "Checkpointer", "SIBLINGS",
]
