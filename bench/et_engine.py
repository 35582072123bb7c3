"""Speed of the Euphrates & Tigris engine in process: random-workload games and actions per second.

The workload: a fresh shuffled bag per game (``Game.new`` with a new seed),
four players; at every decision one action picked uniformly among all those
``Game.legal_actions()`` lists (every tile on every legal cell, every leader
on every legal cell, every leader move and withdrawal, every catastrophe,
every non-empty discard, pass; every commitment 0..hand in a conflict; every
war colour; every monument or declining; every treasure allowed).  So each
action costs one enumeration of the legal actions plus one ``apply``.  Then
the same with four ``strong`` bots (one board look per decision, no
enumeration of every action).

    python bench/et_engine.py [--seconds 10] [--runs 3]

Times are CPU time of this process (``time.process_time``), so other work on
the machine disturbs them less; the median of ``--runs`` timed runs is
printed.  Figures only: nothing is asserted.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from gamehall_et.bots import make_bot
from gamehall_et.engine import Game
from gamehall_et.selfplay import play_game


def random_game(seed: int) -> int:
    g = Game.new(["a", "b", "c", "d"], seed=seed)
    rnd = random.Random(seed)
    n = 0
    while not g.is_over():
        seat = g.pending_seat()
        g.apply(seat, rnd.choice(g.legal_actions()))
        n += 1
    return n


def strong_game(seed: int) -> int:
    g = Game.new(["a", "b", "c", "d"], seed=seed)
    return play_game(g, [make_bot("strong", seed + i) for i in range(4)])


def measure(play, seconds: float, seed: int) -> tuple[float, float]:
    """(games/s, actions/s) of CPU time, playing whole games for about ``seconds``."""
    games = actions = 0
    start = time.process_time()
    while True:
        actions += play(seed + games)
        games += 1
        spent = time.process_time() - start
        if spent >= seconds:
            return games / spent, actions / spent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per timed run (default 10)")
    p.add_argument("--runs", type=int, default=3, help="timed runs, the median is printed (default 3)")
    args = p.parse_args(argv)
    random_game(0)                                       # warm-up
    for label, play in (("random workload", random_game), ("four strong bots", strong_game)):
        runs = [measure(play, args.seconds, 1000 * (r + 1)) for r in range(args.runs)]
        gps = statistics.median(r[0] for r in runs)
        aps = statistics.median(r[1] for r in runs)
        print(f"{label}: {gps:.2f} games/s, {aps:.0f} actions/s (CPU time, median of {args.runs} "
              f"runs of {args.seconds:g} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
