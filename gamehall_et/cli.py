"""``gamehall-et``: check Euphrates & Tigris game records and pit bots against each other.

    gamehall-et replay FILE
    gamehall-et selfplay [--games N] [--players K] [--seed S] [--bot NAME ...] [--json]

``replay`` prints JSON: each player's colour scores, treasures, final score
and place, the winners and why the game ended -- or the first action that
is not legal and why.  Exit status: 0 for a legal record, 1 for an illegal
one, 2 for a file that cannot be read as JSON.

``selfplay`` plays bot games in this process and prints, per bot, the mean
and median final score (weakest colour with treasures) and the win rate.
With several ``--bot`` the seats cycle through them and rotate from game to
game; ``--bot strong --bot random --bot random --bot random`` is one strong
bot against three random ones.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TextIO

from gamehall.tools import (add_replay_command, add_selfplay_command, add_selfplay_outputs, replay_command,
                            run_command, save_record)

from . import record as _record
from . import selfplay as _selfplay
from .bots import BOTS
from .game import EuphratesTigrisGame

PROG = "gamehall-et"

END_REASONS = {
    "treasures": "a turn ended with at most two treasures left on the board",
    "bag_empty": "a player had to draw more tiles than the bag held",
}


def replay_summary(rec) -> dict:
    try:
        report = _record.replay_report(rec)
    except Exception as exc:        # noqa: BLE001 -- a malformed record is reported, never a traceback
        report = {"error": {"index": None, "action": None,
                            "reason": f"the record cannot be replayed ({type(exc).__name__}: {exc})"}}
    if "error" in report:
        err = report["error"]
        where = "the record's header" if err["index"] is None else f"action {err['index']}"
        return {"legal": False, "error": err, "message": f"{where} is not legal: {err['reason']}"}
    out = {"legal": True, **report}
    if report["over"]:
        out["why"] = END_REASONS.get(report["reason"], report["reason"])
    else:
        out["why"] = "the record stops before the end of the game: scores so far"
    return out


def cmd_replay(args, out: TextIO, err: TextIO) -> int:
    return replay_command(PROG, args.file, out, err, replay_summary, lambda s: s["legal"])


def format_selfplay(res: dict) -> str:
    lines = [f"selfplay: {res['games']} games, {res['players']} players, seed {res['seed']}, "
             f"seats {' '.join(res['lineup'])} (rotating)",
             f"{res['games_per_cpu_second']} games per CPU second ({res['cpu_seconds']} s CPU, "
             f"{res['seconds']} s wall), {res['actions_per_game']} actions per game",
             f"{'bot':<10}{'seats':>7}{'mean':>8}{'median':>8}{'wins':>9}{'win rate':>10}"]
    for name, b in res["bots"].items():
        lines.append(f"{name:<10}{b['seats']:>7}{b['mean']:>8.2f}{b['median']:>8.1f}{b['wins']:>9.1f}"
                     f"{b['win_rate'] * 100:>9.1f}%")
    lines.append("end reasons: " + ", ".join(f"{k} {v}" for k, v in res["end_reasons"].items()))
    return "\n".join(lines)


def cmd_selfplay(args, out: TextIO, err: TextIO) -> int:
    bots = args.bot or [next(iter(BOTS))]
    if args.save_records:
        os.makedirs(args.save_records, exist_ok=True)

    def on_game(index: int, engine) -> None:
        if args.save_records:
            save_record(args.save_records, index + 1, _record.dumps(engine.record()))
        if args.progress:
            err.write(f"\r{index + 1}/{args.games} games")
            err.flush()

    res = _selfplay.run(args.games, args.players, args.seed, bots, on_game)
    if args.progress:
        err.write("\n")
    print(json.dumps(res, indent=2) if args.json else format_selfplay(res), file=out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_replay_command(sub, cmd_replay)
    game = EuphratesTigrisGame
    p = add_selfplay_command(sub, cmd_selfplay)
    p.add_argument("--players", type=int, default=4, choices=range(game.min_seats, game.max_seats + 1),
                   metavar="K", help=f"players per game, {game.min_seats}-{game.max_seats} (default 4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    p.add_argument("--bot", action="append", metavar="NAME", choices=list(BOTS),
                   help=f"bot for the next seat, repeatable: {', '.join(BOTS)} (default {next(iter(BOTS))})")
    add_selfplay_outputs(p, "--progress", "count games on standard error")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gamehall-et`` console script; returns the exit status."""
    return run_command(PROG, build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
