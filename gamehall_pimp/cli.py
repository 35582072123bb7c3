"""``gamehall-pimp``: check Monopoly (PIMP) game records and pit bots against each other.

    gamehall-pimp replay FILE
    gamehall-pimp selfplay --games N --players K --seed S [--bot strong --bot random] [--json]

``replay`` prints JSON: each user's cash and net worth, the winner and why the
game ended, or the first action that is not legal and why.  Exit status: 0 for
a legal record, 1 for an illegal one, 2 for a file that cannot be read as JSON.

``selfplay`` plays bot games in this process and prints, per bot, the win rate
(seats cycle through the bots and rotate from game to game), the end reasons
and the games per second.  A bot game that is not decided after --max-turns
turns is won by the richest player (net worth).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import TextIO

from gamehall.tools import (add_replay_command, add_selfplay_command, add_selfplay_outputs, positive_int,
                            replay_command, run_command, save_record)

from . import record as _record
from . import selfplay as _selfplay
from .bots import BOTS

PROG = "gamehall-pimp"


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return replay_command(PROG, args.file, out, err, _record.replay_report, lambda r: "error" not in r)


def format_selfplay(res: dict, seconds: float) -> str:
    lines = [f"{res['games']} games of {res['players']} players (seed {res['seed']}), "
             f"{res['games'] / seconds:.1f} games/s, mean {res['mean_turns']:.0f} turns"]
    for name, rate in res["win_rate"].items():
        seat_share = res["seats"][name] / (res["games"] * res["players"])
        lines.append(f"  {name:8s} win rate {rate:6.1%}  (holds {seat_share:.0%} of the seats)")
    lines.append("  ended: " + ", ".join(f"{k} {v}" for k, v in sorted(res["reasons"].items())))
    return "\n".join(lines)


def cmd_selfplay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    bots = args.bot or ["strong", "random"]
    started = time.perf_counter()
    save = args.save_records

    def on_game(index, g):
        if save:
            save_record(save, index, _record.dumps(g.record()))
        if not args.quiet and (index + 1) % max(1, args.games // 20) == 0:
            print(f"{index + 1}/{args.games}", file=err, flush=True)

    if save:
        os.makedirs(save, exist_ok=True)
    res = _selfplay.run(args.games, args.players, args.seed, bots, args.max_turns, on_game)
    seconds = max(time.perf_counter() - started, 1e-9)
    if args.json:
        print(json.dumps(dict(res, seconds=seconds)), file=out)
    else:
        print(format_selfplay(res, seconds), file=out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_replay_command(sub, cmd_replay)
    p = add_selfplay_command(sub, cmd_selfplay)
    p.add_argument("--players", type=int, default=4, choices=range(2, 9), metavar="K",
                   help="players per game, 2-8 (default 4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    p.add_argument("--bot", action="append", choices=BOTS, metavar="NAME",
                   help=f"bot for the next seat, repeatable: {', '.join(BOTS)} (default: strong, random)")
    p.add_argument("--max-turns", type=positive_int, default=_selfplay.DEFAULT_MAX_TURNS,
                   help=f"turns before the richest player wins (default {_selfplay.DEFAULT_MAX_TURNS})")
    add_selfplay_outputs(p, "--quiet", "no progress lines")
    return parser


def main(argv: list[str] | None = None) -> int:
    return run_command(PROG, build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
