"""``gamehall-daide``: Diplomacy records, bot games and the DATC.

    gamehall-daide replay FILE
    gamehall-daide selfplay --games N --seed S [--bot strong --bot random] [--max-year Y] [--json]
    gamehall-daide datc [--set parlance|diplomacy|both] [--verbose]

``replay`` prints JSON: each power's centres and units, the turn, and how the
game ended, or the first action that is not legal and why.  Exit status: 0
for a legal record, 1 for an illegal one, 2 for a file that cannot be read.

``selfplay`` plays seven-power bot games in this process (seats get the bots
in turn, rotated each game) and prints, per bot, the solo rate, the share of
wins (a draw shared by its survivors), how often it ended with the most
centres, its mean centres, and the games per second.

``datc`` runs the DATC case files shipped with the package and prints
passed/failed/differs/not applicable by section ("differs": a documented
difference of notation, with its reason); exit status 1 if any case failed.
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

from . import datc as _datc
from . import record as _record
from . import selfplay as _selfplay
from .bots import BOTS

PROG = "gamehall-daide"


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return replay_command(PROG, args.file, out, err, _record.replay_report, lambda r: "error" not in r)


def format_selfplay(res: dict, seconds: float) -> str:
    lines = [f"{res['games']} games, lineup {' '.join(res['lineup'])} (seed {res['seed']}, year limit "
             f"{res['max_year']}), {res['games'] / seconds:.2f} games/s, mean {res['mean_years']:.1f} years"]
    for name in sorted(res["solo_rate"]):
        lines.append(f"  {name:8s} solo {res['solo_rate'][name]:6.1%}  win share {res['win_share'][name]:6.1%}  "
                     f"most centres {res['top_rate'][name]:6.1%}  mean centres {res['mean_centres'][name]:5.2f}  "
                     f"({res['seats'][name]} seats)")
    lines.append("  ended: " + ", ".join(f"{k} {v}" for k, v in sorted(res["reasons"].items())))
    return "\n".join(lines)


def cmd_selfplay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    bots = args.bot or ["strong", "random"]
    started = time.perf_counter()
    save = args.save_records

    def on_game(index, engine, actions):
        if save:
            save_record(save, index, _record.dumps(_record.record_of(engine, actions)))
        if not args.quiet and (index + 1) % max(1, args.games // 20) == 0:
            print(f"{index + 1}/{args.games}", file=err, flush=True)

    if save:
        os.makedirs(save, exist_ok=True)
    res = _selfplay.run(args.games, args.seed, bots, args.max_year, on_game)
    seconds = max(time.perf_counter() - started, 1e-9)
    if args.json:
        print(json.dumps(dict(res, seconds=seconds)), file=out)
    else:
        print(format_selfplay(res, seconds), file=out)
    return 0


def cmd_datc(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    sets = ["parlance", "diplomacy"] if args.set == "both" else [args.set]
    failed_any = False
    for name in sets:
        outcomes = _datc.run_all(name)
        by_section: dict[str, dict[str, int]] = {}
        for o in outcomes:
            counts = by_section.setdefault(o.section, {"passed": 0, "failed": 0, "differs": 0,
                                                       "not applicable": 0})
            counts[o.status] += 1
        print(f"{name}: {_datc.FILES[name]}", file=out)
        for section in sorted(by_section):
            c = by_section[section]
            print(f"  {section:6s} passed {c['passed']:3d}  failed {c['failed']:3d}  differs {c['differs']:3d}  "
                  f"not applicable {c['not applicable']:3d}", file=out)
        total = {k: sum(c[k] for c in by_section.values())
                 for k in ("passed", "failed", "differs", "not applicable")}
        print(f"  total  passed {total['passed']:3d}  failed {total['failed']:3d}  differs {total['differs']:3d}  "
              f"not applicable {total['not applicable']:3d}", file=out)
        for o in outcomes:
            if o.status in ("failed", "differs") or (args.verbose and o.status == "not applicable"):
                print(f"  {o.status.upper()} {o.case}: {o.detail}", file=out)
        failed_any = failed_any or total["failed"] > 0
    return 1 if failed_any else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_replay_command(sub, cmd_replay)
    p = add_selfplay_command(sub, cmd_selfplay)
    p.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    p.add_argument("--bot", action="append", choices=BOTS, metavar="NAME",
                   help=f"bot for the next seat, repeatable, repeated over the 7 seats: {', '.join(BOTS)} "
                        "(default: strong, random)")
    p.add_argument("--max-year", type=positive_int, default=_selfplay.DEFAULT_MAX_YEAR,
                   help=f"after this year's adjustments a game is a draw (default {_selfplay.DEFAULT_MAX_YEAR})")
    add_selfplay_outputs(p, "--quiet", "no progress lines")
    d = sub.add_parser("datc", help="run the DATC case files and print passed/failed by section")
    d.add_argument("--set", choices=("parlance", "diplomacy", "both"), default="both",
                   help="which case file (default both)")
    d.add_argument("--verbose", "-v", action="store_true", help="also list the cases not applicable")
    d.set_defaults(func=cmd_datc, parser=d)
    return parser


def main(argv: list[str] | None = None) -> int:
    return run_command(PROG, build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
