"""Cost of ratings in the store (gamehall/store/rating_sql.py) at 100,000 stored games.

    .venv/bin/python bench/ratings_store.py [--games 100000] [--players 1000] [--finishes 300]
                                            [--queries 200] [--url postgresql://...] [--only sqlite]

For SQLite (WAL, synchronous=NORMAL, as SQLiteStore) and PostgreSQL (without --url a
throwaway local server, tests/pgserver.py, fsync off): stores --games finished games
(seeded: 2 to 7 seats from --players registered names, some guests and bots, Acquire by
player count, E&T, Diplomacy), rebuilds every rating from them (timed: what `gamehall-store
ratings rebuild` costs), then times

- the write of a game's end as the store thread runs it (one transaction: state, result),
  without and with its rating (read and lock the players' rows, compute, write the ratings
  and the events), --finishes games each;
- the reads of the pages: one page of standings (100 rows), deep in the list too, the rating
  keys, a player's page (ratings, history, last 100 games) and head to head, --queries each.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gamehall.ratings import rated_game  # noqa: E402
from gamehall.store.rated import check_rated  # noqa: E402
from gamehall.store.rating_sql import RatingSQL  # noqa: E402

GAMES = [("acquire", "classic", 2, 6), ("et", "standard", 2, 4), ("diplomacy", "standard", 7, 7)]


def random_game(rng: random.Random, names: list[str]) -> tuple[str, str, list[dict], dict]:
    game, variant, low, high = rng.choice(GAMES)
    seats = []
    for name in rng.sample(names, rng.randint(low, high)):
        r = rng.random()
        seats.append({"name": name, "kind": "human", "bot": None, "registered": True} if r < .8 else
                     {"name": name, "kind": "human", "bot": None, "address": "10.0.0.1"} if r < .9 else
                     {"name": "StrongBot1", "kind": "bot", "bot": "strong"})
    seats[0] = dict(seats[0], kind="human", registered=True, bot=None)
    scores = [rng.randrange(0, 20) for _ in seats]
    return game, variant, seats, {"scores": scores, "winners": [scores.index(max(scores))]}


class Backend:
    def __init__(self, name: str, conn, sql: RatingSQL, param: str, prefix: str) -> None:
        self.name, self.conn, self.sql, self.param, self.prefix = name, conn, sql, param, prefix

    def q(self, text: str) -> str:
        return text.format(t=self.prefix).replace("?", self.param)

    def many(self, text: str, rows: list) -> None:
        self.sql._executemany(self.conn, self.q(text), rows)


def fill(b: Backend, games: int, names: list[str], seed: int) -> None:
    rng = random.Random(seed)
    b.conn.execute("BEGIN")
    tables, results = [], []
    for i in range(1, games + 1):
        game, variant, seats, result = random_game(rng, names)
        humans = [s["name"] for s in seats if s["kind"] == "human"]
        tables.append((i, game, variant, i, json.dumps({"humans": humans}), json.dumps(seats), float(i), float(i)))
        results.append((i, json.dumps(result), float(i)))
    b.many("INSERT INTO {t}tables (id, game, variant, seed, options, seats, state, created, updated)"
           " VALUES (?, ?, ?, ?, ?, ?, 'finished', ?, ?)", tables)
    b.many("INSERT INTO {t}results (table_id, result, record, finished) VALUES (?, ?, NULL, ?)", results)
    b.conn.execute("COMMIT")


def finishes(b: Backend, first_id: int, n: int, names: list[str], rated: bool, seed: int) -> list[float]:
    rng = random.Random(seed)
    times = []
    for i in range(first_id, first_id + n):
        game, variant, seats, result = random_game(rng, names)
        b.conn.execute("BEGIN")
        b.conn.execute(b.q("INSERT INTO {t}tables (id, game, variant, seed, options, seats, state, created,"
                           " updated) VALUES (?, ?, ?, 1, '{{}}', ?, 'playing', 0, 0)"),
                       (i, game, variant, json.dumps(seats)))
        b.conn.execute("COMMIT")
        checked = check_rated(rated_game(game, variant, seats, result))
        t0 = time.perf_counter()
        b.conn.execute(b.begin_write)
        b.conn.execute(b.q("UPDATE {t}tables SET state = 'finished', updated = ? WHERE id = ?"), (1e9 + i, i))
        b.conn.execute(b.q("INSERT INTO {t}results (table_id, result, record, finished) VALUES (?, ?, NULL, ?)"),
                       (i, json.dumps(result), 1e9 + i))
        if rated:
            b.sql.record(b.conn, i, checked, 1e9 + i)
        b.conn.execute("COMMIT")
        times.append(time.perf_counter() - t0)
    return times


def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def show(label: str, times: list[float]) -> None:
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * .99))]
    print(f"  {label:<44} median {statistics.median(times) * 1e3:7.2f} ms   p99 {p99 * 1e3:7.2f} ms")


def run(b: Backend, args) -> None:
    names = [f"player{i}" for i in range(args.players)]
    t0 = time.perf_counter()
    fill(b, args.games, names, args.seed)
    print(f"{b.name}: {args.games:,} finished games stored in {time.perf_counter() - t0:.1f} s")
    t0, c0 = time.perf_counter(), time.process_time()
    b.conn.execute(b.begin_write)
    counts = b.sql.rebuild(b.conn)
    b.conn.execute("COMMIT")
    print(f"  rebuild: {counts['games']:,} rated games, {counts['ratings']:,} ratings in "
          f"{time.perf_counter() - t0:.1f} s wall ({time.process_time() - c0:.1f} s CPU of this process)")
    show("end of a game, not rated", finishes(b, args.games + 1, args.finishes, names, False, 11))
    show("end of a game with its rating", finishes(b, args.games + args.finishes + 1, args.finishes, names, True, 12))
    keys = b.sql.rating_keys(b.conn)
    biggest = max(keys, key=lambda k: k["players"])
    print(f"  rating keys: {len(keys)}; the largest, {biggest['key']}, ranks {biggest['players']:,} players")
    c = b.conn
    show("standings, first 100", timed(lambda: b.sql.standings(c, biggest["key"], 100, 0), args.queries))
    show("standings, 100 from the middle", timed(
        lambda: b.sql.standings(c, biggest["key"], 100, biggest["players"] // 2), args.queries))
    show("rating keys (the filter)", timed(lambda: b.sql.rating_keys(c), args.queries))
    show("a player's page (ratings, history, games)", timed(lambda: (
        b.sql.player_ratings(c, "player7"), b.sql.rating_history(c, "player7", None, 1000),
        b.sql.player_games(c, "player7", 100)), args.queries))
    show("head to head", timed(lambda: b.sql.head_to_head(c, "player7", "player8"), args.queries))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--finishes", type=int, default=300)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", help="a PostgreSQL database to use (emptied)")
    parser.add_argument("--only", choices=["sqlite", "postgresql"])
    args = parser.parse_args()
    if args.only != "postgresql":
        from gamehall.store.sqlite_file import migrate
        folder = tempfile.mkdtemp(prefix="gamehall-bench-")
        conn = sqlite3.connect(os.path.join(folder, "hall.sqlite"), isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        migrate(conn)
        b = Backend("SQLite", conn, RatingSQL(), "?", "")
        b.begin_write = "BEGIN IMMEDIATE"
        run(b, args)
        conn.close()
    if args.only != "sqlite":
        import psycopg

        from gamehall.store.postgres import PostgresStore, migrate_schema
        url = args.url
        if url is None:
            from tests import pgserver
            url = pgserver.new_database_url()
        conn = psycopg.connect(url, autocommit=True)
        migrate_schema(conn)
        for table in ("rating_events", "ratings", "results", "actions", "tables"):
            conn.execute(f"DELETE FROM gamehall_{table}")
        sql = RatingSQL(PostgresStore.PREFIX, PostgresStore.PARAM, PostgresStore.LOCK_ROWS,
                        lambda c, text, rows: c.cursor().executemany(text, rows))
        b = Backend("PostgreSQL", conn, sql, "%s", "gamehall_")
        b.begin_write = "BEGIN"
        run(b, args)
        conn.execute("ANALYZE")
        conn.close()


if __name__ == "__main__":
    main()
