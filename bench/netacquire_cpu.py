"""The hall's CPU per NetAcquire answer, in process and deterministic: no sockets, no other processes.

Whole four-player games (seeds 1..--games) through the NetAcquire front end
with the test suite's in-process clients (tests/netacquire: StringTransport,
the hall on a task.Clock, MemoryStore): what the hall does for an answer
(decode, engine, store call, rendering for every client, one write each)
runs inside the answering connection's ``dataReceived``, which is timed in
thread CPU time.  The clients' own work is not counted (but their allocations
count towards the collector's thresholds, so the collections started while
the hall answers are a relative figure).  Printed: answers,
hall CPU per answer (best of --rounds), and with --profile the functions
that cost most.  What it leaves out is the real reactor, the sockets and the
store thread (bench/netacquire_load.py has them all); what it gives is a
figure that other work on a shared machine hardly moves.

    python bench/netacquire_cpu.py [--games 6] [--rounds 3] [--profile] [--sort cumulative]
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.netacquire.harness import Conn  # noqa: E402
from tests.netacquire.test_game import play_to_the_end, setup_game  # noqa: E402


def one_round(games: int, profiler: cProfile.Profile | None) -> tuple[int, float]:
    spent = [0.0]
    answers = [0]
    collections = [0]
    send = Conn.send

    def timed_send(self, text):
        before = gc.get_stats()[0]["collections"]
        t0 = time.thread_time()
        if profiler is not None:
            profiler.enable()
        try:
            send(self, text)
        finally:
            if profiler is not None:
                profiler.disable()
            spent[0] += time.thread_time() - t0
            answers[0] += 1
            collections[0] += gc.get_stats()[0]["collections"] - before

    for seed in range(1, games + 1):
        hall, _, table, conns, _ = setup_game(["Ann", "Bob", "Cy", "Dee"], seed)
        Conn.send = timed_send
        try:
            play_to_the_end(hall, table, conns, check=False)
        finally:
            Conn.send = send
    return answers[0], spent[0], collections[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--sort", default="tottime", help="profile order (tottime, cumulative, ...)")
    options = parser.parse_args()
    profiler = cProfile.Profile(time.thread_time) if options.profile else None
    best = None
    for _ in range(options.rounds):
        answers, spent, collections = one_round(options.games, profiler)
        per = spent / answers * 1e6
        best = per if best is None else min(best, per)
        print(f"  {answers} answers (every directive a client sent while playing), "
              f"hall CPU {spent:.3f} s, {per:.0f} us per answer; {collections} collections of the "
              f"young generation during answers (any generation; the clients allocate too)")
    print(f"netacquire_cpu: {options.games} four-player games, best of {options.rounds}: {best:.0f} us per answer")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats(options.sort).print_stats(40)


if __name__ == "__main__":
    main()
