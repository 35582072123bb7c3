"""The hall's CPU per PIMP roll, in process and deterministic: no sockets, no other processes.

Whole four-player Monopoly games (seeds 1..--games, each --turns turns at
most) through the PIMP front end with the tests' in-process wire clients
(tests/pimp: ``WireClient`` over StringTransport, the hall on a task.Clock,
MemoryStore).  What the hall does for a client's frames (decode, engine,
store call, encoding and routing every event, the writes) runs inside the
connection's ``dataReceived`` and, for the bots' and timers' turns, inside
``clock.advance``; both are timed in thread CPU time.  The clients' parsing
is not counted.  Printed: rolls (DICE_ROLLED seen by the first client),
hall CPU per roll (best of --rounds), and with --profile the functions that
cost most.  It leaves out the reactor, the sockets and the store thread
(bench/pimp_load.py has them); what it gives is a figure that other work on
a shared machine hardly moves, and one that can be taken at an older
commit: ``PYTHONPATH=/path/to/old/checkout python bench/pimp_cpu.py`` runs
that checkout's hall and harness.

    python bench/pimp_cpu.py [--games 3] [--turns 150] [--rounds 3] [--profile]
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.pimp import test_frontend as fe  # noqa: E402
from tests.pimp.wireclient import WireClient  # noqa: E402


def one_game(seed: int, turns: int, spent: list, profiler) -> int:
    from gamehall_pimp.wire.protocol import rooms_of

    hall, factory = fe.setup()
    hall.new_seed = lambda: seed            # the table's game from this seed (dice, decks)
    clients = [WireClient(n, piece=i + 1) for i, n in enumerate(["kerz", "pavlov", "ann", "bob"])]
    conns = [fe.Conn(factory, c, 4000 + i) for i, c in enumerate(clients)]
    fe.run(hall, conns[:1])
    table = rooms_of(hall).current()
    game = table.engine.game
    game.options["max_turns"] = turns

    def timed(fn):
        def wrapper(*args):
            t0 = time.thread_time()
            if profiler is not None:
                profiler.enable()
            try:
                return fn(*args)
            finally:
                if profiler is not None:
                    profiler.disable()
                spent[0] += time.thread_time() - t0
        return wrapper

    for c in conns:
        c.proto.dataReceived = timed(c.proto.dataReceived)
    hall.clock.advance = timed(hall.clock.advance)
    fe.run(hall, conns, until=game.is_over)
    fe.run(hall, conns)
    return sum(1 for m in clients[0].received if m[0] == "DICE_ROLLED")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    profiler = cProfile.Profile(time.thread_time) if options.profile else None
    best = None
    for _ in range(options.rounds):
        spent, rolls = [0.0], 0
        for seed in range(1, options.games + 1):
            rolls += one_game(seed, options.turns, spent, profiler)
        per = spent[0] / max(rolls, 1) * 1e6
        best = per if best is None else min(best, per)
        print(f"  {rolls} rolls, hall CPU {spent[0]:.3f} s, {per:.0f} us per roll")
    print(f"pimp_cpu: {options.games} four-player games of at most {options.turns} turns, "
          f"best of {options.rounds}: {best:.0f} us per roll")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
