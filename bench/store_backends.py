"""Appends a second and commit latency of the hall's stores: SQLite and PostgreSQL.

    .venv/bin/python bench/store_backends.py [--tables 50] [--rounds 200] [--url postgresql://...]

Each round, every table appends one action in the same reactor turn (as a busy hall does:
one action per table per turn), and the round waits for all of them, so a round is one
group commit.  Prints, per store, appends a second and the median / 99th percentile
round time.  Without --url, PostgreSQL is a throwaway server (tests/pgserver.py, fsync
off, so its figures leave out the disk flush; SQLite's WAL commit does not flush either:
synchronous=NORMAL).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from twisted.internet import defer, reactor  # noqa: E402


@defer.inlineCallbacks
def measure(name, store, tables, rounds):
    yield store.open()
    ids = []
    for n in range(tables):
        ids.append((yield store.create_table("acquire", "standard", n, [], {})))
    times = []
    start = time.perf_counter()
    for seq in range(rounds):
        t0 = time.perf_counter()
        yield defer.gatherResults([store.append_action(i, seq, 0, {"play_tile": "1A", "n": seq}) for i in ids])
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    commits = store.commits
    yield store.close()
    times.sort()
    print(f"{name:10s} {tables * rounds / total:9,.0f} appends/s  round median "
          f"{statistics.median(times) * 1000:6.2f} ms  p99 {times[int(len(times) * 0.99) - 1] * 1000:6.2f} ms  "
          f"({commits} commits for {rounds} rounds of {tables})")


@defer.inlineCallbacks
def main(args):
    from gamehall.store import SQLiteStore
    from gamehall.store.postgres import PostgresStore
    folder = tempfile.mkdtemp(prefix="gamehall-bench-")
    try:
        yield measure("sqlite", SQLiteStore(os.path.join(folder, "b.sqlite"), reactor), args.tables, args.rounds)
        url = args.url
        if url is None:
            from tests import pgserver
            url = pgserver.new_database_url()
        yield measure("postgresql", PostgresStore(url, reactor), args.tables, args.rounds)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--url", help="a PostgreSQL database to use (its gamehall_* tables get written)")
    options = parser.parse_args()

    def run():
        d = main(options)
        d.addErrback(lambda f: f.printTraceback())
        d.addBoth(lambda _: reactor.stop())

    reactor.callWhenRunning(run)
    reactor.run()
