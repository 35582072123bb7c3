"""Cost of rating finished games (gamehall/ratings.py, openskill Plackett-Luce).

    .venv/bin/python bench/ratings.py [--games 100000] [--players 200] [--seed 1]

Makes a seeded random history: each game has 2 to 7 seats drawn from --players names, random
places with ties, and one of four rating keys.  Prints the time to rate one finished game
(median and 99th percentile over the first 2,000 games, per seat count), then the time to
recompute every rating from the whole history (what the rebuild command will cost).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from gamehall.ratings import rate_game, recompute  # noqa: E402

KEYS = ["acquire/classic/2p", "acquire/classic/3p", "acquire/classic/4+p", "daide/standard"]


def history(games: int, players: int, seed: int) -> list:
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(players)]
    out = []
    for _ in range(games):
        n = rng.randint(2, 7)
        out.append((rng.choice(KEYS), rng.sample(names, n), [rng.randint(1, n) for _ in range(n)]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    games = history(args.games, args.players, args.seed)

    by_seats: dict[int, list[float]] = {}
    table: dict = {}
    for key, seats, places in games[:2000]:
        ratings = table.setdefault(key, {})
        t0 = time.perf_counter()
        ratings.update(rate_game(ratings, seats, places))
        by_seats.setdefault(len(seats), []).append(time.perf_counter() - t0)
    print("rate one finished game (microseconds):")
    for n in sorted(by_seats):
        ts = sorted(by_seats[n])
        print(f"  {n} seats: median {statistics.median(ts) * 1e6:7.1f}  "
              f"p99 {ts[int(len(ts) * 0.99)] * 1e6:7.1f}  ({len(ts)} games)")

    t0 = time.perf_counter()
    result = recompute(games)
    elapsed = time.perf_counter() - t0
    rated = sum(len(r) for r in result.values())
    print(f"recompute {len(games)} games ({rated} ratings): {elapsed:.2f} s, "
          f"{len(games) / elapsed:.0f} games/s")


if __name__ == "__main__":
    main()
