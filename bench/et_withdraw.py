"""The E&T strong bot that withdraws leaders against the one before it.

    .venv/bin/python bench/et_withdraw.py selfplay --games 300 --players 4 --seed 1 --bot strong --bot old
    .venv/bin/python bench/et_withdraw.py compare --games 300 --players 4 --seeds 1 2

Both register ``old`` (``StrongBot`` with ``withdraws = False``: no ``leadertake``, no move
valued for a threat; the same decisions as the bot before) among the bots.  ``selfplay``
is then ``gamehall-et selfplay`` with the arguments given.  ``compare`` plays the same games
(``gamehall_et.selfplay.run`` with ``--bot strong --bot old``: seats alternate and rotate
from game to game, so each game has two of each in four-player games) for each seed and
prints, per bot, wins and mean final score, with standard errors from the per-game
figures: the strong side's share of the game's win, and the difference of the two sides'
mean scores in a game.  It prints figures and asserts nothing.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys

from gamehall_et import bots, cli
from gamehall_et import selfplay as _selfplay


class OldStrongBot(bots.StrongBot):
    """The strong bot before it withdrew leaders."""

    withdraws = False


bots.BOTS["old"] = OldStrongBot


def compare(games: int, players: int, seeds: list[int]) -> None:
    shares, diffs, means = [], [], {"strong": [], "old": []}
    cpu = 0.0
    for seed in seeds:
        def on_game(index, engine, seed=seed):
            names = _selfplay.seats_for_game(_selfplay.lineup(["strong", "old"], players), index)
            result = engine.result()
            winners = result["winners"]
            shares.append(sum(1 for j in winners if names[j] == "strong") / len(winners))
            side = {n: [s for j, s in enumerate(result["scores"]) if names[j] == n] for n in means}
            for n, sc in side.items():
                means[n].extend(sc)
            diffs.append(statistics.fmean(side["strong"]) - statistics.fmean(side["old"]))

        res = _selfplay.run(games, players, seed, ["strong", "old"], on_game)
        cpu += res["cpu_seconds"]
        print(f"seed {seed}: {res['games']} games, " + ", ".join(
            f"{n} wins {b['wins']:.1f} mean {b['mean']:.2f}" for n, b in res["bots"].items())
            + f", {res['games_per_cpu_second']} games per CPU second")
    n = len(shares)
    wins = sum(shares)
    se_wins = statistics.stdev(shares) * math.sqrt(n)
    se_diff = statistics.stdev(diffs) / math.sqrt(n)
    print(f"{n} games: strong wins {wins:.1f} (se {se_wins:.1f}), old {n - wins:.1f}; "
          f"mean score strong {statistics.fmean(means['strong']):.3f}, old {statistics.fmean(means['old']):.3f}, "
          f"difference {statistics.fmean(diffs):+.3f} (se {se_diff:.3f}); {n / cpu:.2f} games per CPU second")


def main(argv: list[str]) -> int:
    if argv[:1] != ["compare"]:
        return cli.main(argv)
    p = argparse.ArgumentParser(prog="et_withdraw.py compare")
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    a = p.parse_args(argv[1:])
    compare(a.games, a.players, a.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
