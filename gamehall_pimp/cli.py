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

from . import record as _record
from . import selfplay as _selfplay
from .bots import BOTS

PROG = "gamehall-pimp"


def _read(path: str) -> dict:
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    return json.loads(text)


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    try:
        rec = _read(args.file)
    except (OSError, ValueError) as exc:
        print(f"{PROG}: cannot read {args.file}: {exc}", file=err)
        return 2
    report = _record.replay_report(rec)
    print(json.dumps(report, indent=2), file=out)
    return 1 if "error" in report else 0


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
            with open(os.path.join(save, f"game-{index:05d}.json"), "w", encoding="utf-8") as f:
                f.write(_record.dumps(g.record()))
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


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("replay", help="check a game record and print its outcome as JSON")
    p.add_argument("file", metavar="FILE", help="record file ('-' for standard input)")
    p.set_defaults(func=cmd_replay)
    p = sub.add_parser("selfplay", help="play bot games in process and print statistics")
    p.add_argument("--games", type=positive_int, default=100, help="games to play (default 100)")
    p.add_argument("--players", type=int, default=4, choices=range(2, 9), metavar="K",
                   help="players per game, 2-8 (default 4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    p.add_argument("--bot", action="append", choices=BOTS, metavar="NAME",
                   help=f"bot for the next seat, repeatable: {', '.join(BOTS)} (default: strong, random)")
    p.add_argument("--max-turns", type=positive_int, default=_selfplay.DEFAULT_MAX_TURNS,
                   help=f"turns before the richest player wins (default {_selfplay.DEFAULT_MAX_TURNS})")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--save-records", metavar="DIR", help="write each game's record to DIR/game-NNNNN.json")
    p.set_defaults(func=cmd_selfplay)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
