"""``gamehall-store``: move a hall's store, show its admin credentials.

    gamehall-store copy sqlite:gamehall.sqlite postgresql://user:pass@host/db
    gamehall-store admin postgresql://user:pass@host/db

``copy`` moves a hall from SQLite to PostgreSQL: every table (in every state, under
its own number), action, result and record, and the admin console password kept in
``<db>.admin``, in one transaction, then says what it copied.  The hall must be
stopped while it runs; started on the new store, it goes on with the unfinished
games.  A destination that already holds tables is refused unless ``--replace`` is
given (which empties it first).

``admin`` prints the admin console credentials kept for a store without ``--auth``
(``user:password`` lines, as in ``<db>.admin``).

``ratings rebuild URL`` recomputes every rating from the store's finished games (their
seats and results, by the rules the hall rates with now), replacing the kept ratings, in
one transaction; deterministic, and for the games the hall rated, equal to its ratings.
The hall may keep running (a game finishing meanwhile is rated after the rebuild).
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from typing import Any, Sequence, TextIO

from gamehall.store import SCHEMA_VERSION as SQLITE_SCHEMA_VERSION
from gamehall.store import STATES, StoreError
from gamehall.store.rating_sql import EVENT_COLUMNS, RATING_COLUMNS, RatingSQL
from gamehall.store.url import StoreURL, parse


def _read_sqlite(path: str) -> dict[str, Any]:
    """Everything in a SQLite store, read in one transaction."""
    if not os.path.isfile(path):
        raise StoreError(f"no SQLite store at {path!r}")
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            raise StoreError(f"{path!r} is not a gamehall store (it has no gamehall schema)")
        if version > SQLITE_SCHEMA_VERSION:
            raise StoreError(f"{path!r} has schema version {version}, newer than this code knows "
                             f"({SQLITE_SCHEMA_VERSION}); upgrade gamehall first")
        conn.execute("BEGIN")
        data = {
            "tables": conn.execute(
                "SELECT id, game, variant, seed, options, seats, state, created, updated"
                " FROM tables ORDER BY id").fetchall(),
            "actions": conn.execute(
                "SELECT table_id, seq, seat, action FROM actions ORDER BY table_id, seq").fetchall(),
            "results": conn.execute(
                "SELECT table_id, result, record, finished FROM results ORDER BY table_id").fetchall(),
        }
        # Settings (kept from schema 3 on): the Windward series' settings, the last table number given.
        data["settings"] = (conn.execute("SELECT key, value FROM settings ORDER BY key").fetchall()
                            if version >= 3 else [])
        # Ratings (from schema 4 on).
        data["ratings"] = (conn.execute(f"SELECT {RATING_COLUMNS} FROM ratings").fetchall()
                           if version >= 4 else [])
        data["rating_events"] = (conn.execute(f"SELECT {EVENT_COLUMNS} FROM rating_events").fetchall()
                                 if version >= 4 else [])
        top = conn.execute("SELECT MAX(id) FROM tables").fetchone()[0] or 0
        seq = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'tables'").fetchone()
        data["last_id"] = max(int(top), int(seq[0]) if seq else 0)
        conn.execute("COMMIT")
    except sqlite3.Error as e:
        raise StoreError(f"cannot read {path!r}: {e}") from None
    finally:
        conn.close()
    data["admin"] = _admin_file(path + ".admin")
    return data


def _admin_file(path: str) -> list[tuple[str, str]]:
    """The ``user:password`` lines of a ``<db>.admin`` file (none if it is missing)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return []
    pairs = []
    for line in lines:
        user, sep, password = line.partition(":")
        if sep and user:
            pairs.append((user, password))
    return pairs


def copy(src: StoreURL, dst: StoreURL, replace: bool = False) -> dict[str, Any]:
    """Copy a SQLite store into a PostgreSQL one; the counts copied."""
    if src.kind != "sqlite" or dst.kind != "postgresql":
        raise StoreError("copy moves a SQLite store (sqlite:PATH) into PostgreSQL (postgresql://...)")
    data = _read_sqlite(src.target)
    import psycopg

    from gamehall.store.postgres import migrate_schema, note_id
    try:
        conn = psycopg.connect(dst.target, autocommit=True, connect_timeout=10)
    except psycopg.Error as e:
        raise StoreError(f"cannot connect to {dst}: {str(e).splitlines()[0]}") from None
    try:
        with conn:
            migrate_schema(conn)
            conn.execute("BEGIN")
            # No hall may write meanwhile (one that tried would wait, then find the copy).
            conn.execute("LOCK TABLE gamehall_tables, gamehall_actions, gamehall_results IN EXCLUSIVE MODE")
            held = conn.execute("SELECT COUNT(*) FROM gamehall_tables").fetchone()[0]
            if held and not replace:
                raise StoreError(f"{dst} already holds {held} tables; give --replace to empty it first")
            if held:
                conn.execute("DELETE FROM gamehall_rating_events")
                conn.execute("DELETE FROM gamehall_ratings")
                conn.execute("DELETE FROM gamehall_results")
                conn.execute("DELETE FROM gamehall_actions")
                conn.execute("DELETE FROM gamehall_tables")
                conn.execute("DELETE FROM gamehall_settings")
            with conn.cursor() as cur:
                with cur.copy("COPY gamehall_tables (id, game, variant, seed, options, seats, state,"
                              " created, updated) FROM STDIN") as out:
                    for row in data["tables"]:
                        out.write_row(row)
                with cur.copy("COPY gamehall_actions (table_id, seq, seat, action) FROM STDIN") as out:
                    for row in data["actions"]:
                        out.write_row(row)
                with cur.copy("COPY gamehall_results (table_id, result, record, finished) FROM STDIN") as out:
                    for row in data["results"]:
                        out.write_row(row)
                with cur.copy(f"COPY gamehall_ratings ({RATING_COLUMNS}) FROM STDIN") as out:
                    for row in data["ratings"]:
                        out.write_row(row)
                with cur.copy(f"COPY gamehall_rating_events ({EVENT_COLUMNS}) FROM STDIN") as out:
                    for row in data["rating_events"]:
                        out.write_row(row)
            if data["last_id"]:
                note_id(conn, data["last_id"])
            for key, value in data["settings"]:
                conn.execute("INSERT INTO gamehall_settings (key, value) VALUES (%s, %s)", (key, value))
            for user, password in data["admin"]:
                conn.execute("INSERT INTO gamehall_admin (username, password) VALUES (%s, %s)"
                             " ON CONFLICT (username) DO UPDATE SET password = EXCLUDED.password",
                             (user, password))
            counts = _counts(conn)
            expected = {
                "states": {s: sum(1 for t in data["tables"] if t[6] == s) for s in STATES},
                "actions": len(data["actions"]),
                "results": len(data["results"]),
                "records": sum(1 for r in data["results"] if r[2] is not None),
            }
            if {k: counts[k] for k in expected} != expected:
                raise StoreError(f"the copy does not match its source ({counts} != {expected}); nothing kept")
            conn.execute("COMMIT")
    except psycopg.Error as e:
        raise StoreError(f"copy into {dst} failed, nothing kept: {str(e).splitlines()[0]}") from None
    counts["admin"] = len(data["admin"])
    counts["ratings"] = len(data["ratings"])
    counts["settings"] = len(data["settings"])
    counts["last_id"] = data["last_id"]
    return counts


def _counts(conn: Any) -> dict[str, Any]:
    states = dict.fromkeys(STATES, 0)
    states.update((s, int(n)) for s, n in
                  conn.execute("SELECT state, COUNT(*) FROM gamehall_tables GROUP BY state"))
    return {
        "states": states,
        "actions": conn.execute("SELECT COUNT(*) FROM gamehall_actions").fetchone()[0],
        "results": conn.execute("SELECT COUNT(*) FROM gamehall_results").fetchone()[0],
        "records": conn.execute(
            "SELECT COUNT(*) FROM gamehall_results WHERE record IS NOT NULL").fetchone()[0],
    }


def report(src: StoreURL, dst: StoreURL, counts: dict[str, Any]) -> str:
    states = counts["states"]
    lines = [
        f"copied {src} to {dst}:",
        f"  tables: {sum(states.values()):,} ("
        + ", ".join(f"{states[s]:,} {s}" for s in STATES) + ")",
        f"  actions: {counts['actions']:,}",
        f"  results: {counts['results']:,} ({counts['records']:,} with a record)",
        f"  settings: {counts['settings']}",
        f"  ratings: {counts['ratings']:,}",
        f"  admin passwords: {counts['admin']}",
        f"  new tables are numbered from {counts['last_id'] + 1}",
    ]
    return "\n".join(lines)


def admin_lines(url: StoreURL) -> list[str]:
    """The admin console's ``user:password`` pairs kept for a store without --auth."""
    if url.kind == "sqlite":
        return [f"{u}:{p}" for u, p in _admin_file(url.target + ".admin")]
    import psycopg
    try:
        with psycopg.connect(url.target, autocommit=True, connect_timeout=10) as conn:
            rows = conn.execute("SELECT username, password FROM gamehall_admin ORDER BY username").fetchall()
    except psycopg.errors.UndefinedTable:
        return []
    except psycopg.Error as e:
        raise StoreError(f"cannot read {url}: {str(e).splitlines()[0]}") from None
    return [f"{u}:{p}" for u, p in rows]


def rebuild_ratings(url: StoreURL) -> dict[str, int]:
    """``ratings rebuild``: recompute every rating in the store at ``url``; the counts."""
    if url.kind == "sqlite":
        from gamehall.store.sqlite_file import migrate
        if not os.path.isfile(url.target):
            raise StoreError(f"no SQLite store at {url.target!r}")
        conn = sqlite3.connect(url.target, isolation_level=None, timeout=10)
        try:
            migrate(conn)
            conn.execute("BEGIN IMMEDIATE")
            counts = RatingSQL().rebuild(conn)
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            raise StoreError(f"cannot rebuild the ratings of {url}: {e}") from None
        finally:
            conn.close()
        return counts
    import psycopg

    from gamehall.store.postgres import PostgresStore, migrate_schema
    try:
        with psycopg.connect(url.target, autocommit=True, connect_timeout=10) as conn:
            migrate_schema(conn)
            with conn.transaction():
                # a game finishing meanwhile waits, then is rated on top of the rebuilt ratings
                conn.execute("LOCK TABLE gamehall_ratings, gamehall_rating_events IN EXCLUSIVE MODE")
                sql = RatingSQL(PostgresStore.PREFIX, PostgresStore.PARAM, PostgresStore.LOCK_ROWS,
                                lambda c, text, rows: c.cursor().executemany(text, rows))
                return sql.rebuild(conn)
    except psycopg.Error as e:
        raise StoreError(f"cannot rebuild the ratings of {url}: {str(e).splitlines()[0]}") from None


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="gamehall-store", description="Move a hall's store; show its admin credentials; rebuild its ratings.")
    commands = parser.add_subparsers(dest="command", required=True)
    cp = commands.add_parser("copy", help="copy a SQLite store into PostgreSQL (stop the hall first)")
    cp.add_argument("src", metavar="SRC_URL", help="sqlite:PATH")
    cp.add_argument("dst", metavar="DST_URL", help="postgresql://user:pass@host/db")
    cp.add_argument("--replace", action="store_true", help="empty a destination that holds tables first")
    ad = commands.add_parser("admin", help="print the admin console credentials kept for a store")
    ad.add_argument("url", metavar="URL")
    ra = commands.add_parser("ratings", help="recompute every rating from the stored games")
    ra.add_argument("action", choices=["rebuild"])
    ra.add_argument("url", metavar="URL", help="sqlite:PATH or postgresql://user:pass@host/db")
    args = parser.parse_args(argv)
    try:
        if args.command == "copy":
            src, dst = parse(args.src), parse(args.dst)
            out.write(report(src, dst, copy(src, dst, args.replace)) + "\n")
        elif args.command == "ratings":
            url = parse(args.url)
            counts = rebuild_ratings(url)
            out.write(f"rebuilt the ratings of {url}: {counts['games']:,} rated games, "
                      f"{counts['ratings']:,} ratings; {counts['skipped']:,} games skipped "
                      "(a result the rules cannot place)\n")
        else:
            lines = admin_lines(parse(args.url))
            if not lines:
                raise StoreError(f"no admin credentials are kept for {args.url}")
            out.write("\n".join(lines) + "\n")
    except StoreError as e:
        sys.stderr.write(f"gamehall-store: error: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
