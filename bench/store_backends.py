"""Appends a second and commit latency of the hall's stores: SQLite and PostgreSQL; the
cost of table leases (renewing many in one call, fenced appends).

    .venv/bin/python bench/store_backends.py [--tables 50] [--rounds 200] [--url postgresql://...]
        [--leases 1000,10000] [--single 300]

Each round, every table appends one action in the same reactor turn (as a busy hall does:
one action per table per turn), and the round waits for all of them, so a round is one
group commit.  Prints, per store, appends a second and the median / 99th percentile
round time.  Without --url, PostgreSQL is a throwaway server (tests/pgserver.py, fsync
off, so its figures leave out the disk flush; SQLite's WAL commit does not flush either:
synchronous=NORMAL).

Then, per store: the same rounds with every append fenced (``epoch=``, the lease epoch
checked in the append's transaction); one append at a time (each awaited before the next,
``--single`` of them), plain and fenced, median and p99; and for each count of
``--leases``, that many tables created with their lease held, the time of one
``renew_leases`` call renewing them all (median of 5) and of a ``lapsed_tables`` scan
(none lapsed: the whole set of live tables is read).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from twisted.internet import defer, reactor, task  # noqa: E402

from hallbench import for_each_store  # noqa: E402


OWNER, TTL = "bench", 60.0


def _p99(times):
    times = sorted(times)
    return times[max(0, int(len(times) * 0.99) - 1)]


@defer.inlineCallbacks
def measure(name, store, tables, rounds, fenced=False):
    """Rounds of one append per table, all in one reactor turn (plain or fenced)."""
    lease = {"lease": (OWNER, TTL)} if fenced else {}
    epoch = {"epoch": 1} if fenced else {}
    ids = yield defer.gatherResults([store.create_table("acquire", "standard", n, [], {}, **lease)
                                     for n in range(tables)])
    times = []
    commits = store.commits
    start = time.perf_counter()
    for seq in range(rounds):
        t0 = time.perf_counter()
        yield defer.gatherResults([store.append_action(i, seq, 0, {"play_tile": "1A", "n": seq}, **epoch)
                                   for i in ids])
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    commits = store.commits - commits
    label = name + (" fenced" if fenced else "")
    print(f"{label:17s} {tables * rounds / total:9,.0f} appends/s  round median "
          f"{statistics.median(times) * 1000:6.2f} ms  p99 {_p99(times) * 1000:6.2f} ms  "
          f"({commits} commits for {rounds} rounds of {tables})")


@defer.inlineCallbacks
def measure_single(name, store, count):
    """One append at a time on one table, each awaited: plain, then fenced."""
    for fenced in (False, True):
        lease = {"lease": (OWNER, TTL)} if fenced else {}
        epoch = {"epoch": 1} if fenced else {}
        table_id = yield store.create_table("acquire", "standard", 1, [], {}, **lease)
        times = []
        for seq in range(count):
            t0 = time.perf_counter()
            yield store.append_action(table_id, seq, 0, {"play_tile": "1A", "n": seq}, **epoch)
            times.append(time.perf_counter() - t0)
        label = name + (" fenced" if fenced else " plain")
        print(f"{label:17s} one append at a time: median {statistics.median(times) * 1000:6.3f} ms"
              f"  p99 {_p99(times) * 1000:6.3f} ms  ({count} appends)")


@defer.inlineCallbacks
def measure_leases(name, store, counts, reps=5):
    """One renew_leases call for ``n`` leases, and a lapsed_tables scan, per count."""
    for n in counts:
        owner = f"{OWNER}-{n}"
        ids = yield defer.gatherResults([store.create_table("acquire", "standard", i, [], {},
                                                            lease=(owner, TTL)) for i in range(n)])
        held = dict.fromkeys(ids, 1)
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            renewed = yield store.renew_leases(owner, held, TTL)
            times.append(time.perf_counter() - t0)
            assert len(renewed) == n, (len(renewed), n)
        live = (yield store.stats())["tables"]["waiting"]
        t0 = time.perf_counter()
        lapsed = yield store.lapsed_tables(limit=100)
        scan = time.perf_counter() - t0
        print(f"{name:17s} renew {n:6,d} leases in one call: median {statistics.median(times) * 1000:8.1f} ms"
              f"  (max {max(times) * 1000:.1f} ms); lapsed_tables over {live:,} live tables "
              f"({len(lapsed)} lapsed): {scan * 1000:.1f} ms")


@defer.inlineCallbacks
def measure_store(name, store, args):
    yield store.open()
    try:
        yield measure(name, store, args.tables, args.rounds)
        yield measure(name, store, args.tables, args.rounds, fenced=True)
        yield measure_single(name, store, args.single)
        yield measure_leases(name, store, args.leases)
    finally:
        yield store.close()


def main(args):
    return for_each_store(("sqlite", "postgresql"), reactor,
                          lambda name, store: measure_store(name, store, args), args.url)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--url", help="a PostgreSQL database to use (its gamehall_* tables get written)")
    parser.add_argument("--single", type=int, default=300, help="appends one at a time, plain and fenced")
    parser.add_argument("--leases", type=lambda text: [int(n) for n in text.split(",")], default=[1000, 10000],
                        help="counts of leases renewed in one call (comma-separated)")
    options = parser.parse_args()
    task.react(lambda _reactor: main(options))
