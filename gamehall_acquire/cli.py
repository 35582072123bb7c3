"""``gamehall-acquire``: check Acquire game records and pit bots against each other.

    gamehall-acquire replay FILE
    gamehall-acquire selfplay --games N --players K --seed S [--bot NAME ...] [--json]
    gamehall-acquire selfplay --variant windward --games N [--series G] [--bot strong --bot simple]

``replay`` prints JSON: each player's final cash, the winners and why the game
ended -- or the first action that is not legal and why.  Exit status: 0 for a
legal record, 1 for an illegal one, 2 for a file that cannot be read as JSON.

``selfplay`` plays bot games in this process and prints games per second and,
per bot, the distribution of final cash and the win rate.  With ``--variant
windward`` it plays the Windward bots (6 seats), scores by the engine's final
scores, and with ``--series G`` plays series of G games (first player
rotating) and adds, per bot, the mean series total and the series wins.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, TextIO

from gamehall.tools import (add_replay_command, add_selfplay_command, add_selfplay_outputs, positive_int,
                            replay_command, run_command, save_record)

from . import record as _record
from . import selfplay as _selfplay
from .bots import BOTS
from .game import AcquireGame

PROG = "gamehall-acquire"

#: variants selfplay can play (classic: gamehall_acquire.bots; windward: gamehall_acquire.windward.bots)
SELFPLAY_VARIANTS = ("classic", "windward")

END_REASONS = {
    "no_tiles": "every tile was on the board or set aside (the bag and every rack were empty)",
    "no_playable_tiles": "nobody could play a tile for a whole round; after one more round of "
                         "purchases the game ended",
}


# ------------------------------------------------------------------ replay
def _why_claimed(game: Any) -> str:
    rules = game.rules
    on_board = game.chains_on_board()
    big = [c for c in on_board if game.chain_size(c) >= rules.end_size]
    if big:
        why = f"{big[0]} had {game.chain_size(big[0])} tiles ({rules.end_size} or more)"
    else:
        why = f"every chain on the board was safe ({rules.safe_size} tiles or more)"
    actions = game.record()["actions"]
    who = actions[-1]["player"] if actions else "a player"
    return f"{who} ended the game in the buy step: {why}"


def replay_summary(rec: Any) -> dict:
    """The report printed by ``replay``: built on record.replay_report, plus the why."""
    try:
        report = _record.replay_report(rec)
    except Exception as exc:        # noqa: BLE001 -- e.g. a "rules" header of the wrong types,
        # which the engine does not validate: still a bad record, reported, never a traceback
        report = {"error": {"index": None, "action": None,
                            "reason": f"the record cannot be replayed ({type(exc).__name__}: {exc})"}}
    n_actions = len(rec.get("actions", [])) if isinstance(rec, dict) and \
        isinstance(rec.get("actions"), list) else None
    if "error" in report:
        err = report["error"]
        where = "the record's header" if err["index"] is None else f"action {err['index']}"
        return {"legal": False, "actions": n_actions, "error": err,
                "message": f"{where} is not legal: {err['reason']}"}
    out = {"legal": True, "over": report["over"], "actions": n_actions,
           "cash": report["scores"], "winners": report["winners"], "reason": report["reason"]}
    if report["over"]:
        if report["reason"] == "claimed":
            game = _record.game_from_record(rec)
            out["why"] = _why_claimed(game)
        else:
            out["why"] = END_REASONS.get(report["reason"], report["reason"])
    else:
        out["why"] = "the record stops before the end of the game: cash so far"
    return out


def cmd_replay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    return replay_command(PROG, args.file, out, err, replay_summary, lambda s: s["legal"])


# ---------------------------------------------------------------- selfplay
class Progress:
    """A plain-text progress bar on a terminal, redrawn at most ten times a second."""

    def __init__(self, stream: TextIO, total: int, enabled: bool):
        self.stream, self.total, self.enabled = stream, total, enabled
        self.start = self.last = time.monotonic()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done < self.total and now - self.last < 0.1:
            return
        self.last = now
        width = 30
        filled = width * done // max(1, self.total)
        rate = done / (now - self.start) if now > self.start else 0.0
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} games"
                          f"  {rate:.1f} games/s ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def format_selfplay(res: dict) -> str:
    """The human-readable selfplay report."""
    lines = [f"selfplay: {res['games']} games, {res['players']} players, variant {res['variant']}, "
             f"seed {res['seed']}, seats {' '.join(res['lineup'])} (rotating)",
             f"{res['games_per_second']} games/s ({res['seconds']} s), "
             f"{res['actions_per_game']} actions per game",
             f"{'bot':<10}{'seats':>7}{'mean':>10}{'median':>10}{'stdev':>10}{'wins':>10}{'win rate':>10}"]
    for name, b in res["bots"].items():
        lines.append(f"{name:<10}{b['seats']:>7}{b['mean']:>10.0f}{b['median']:>10.0f}{b['stdev']:>10.0f}"
                     f"{b['wins']:>10.1f}{b['win_rate'] * 100:>9.1f}%")
    lines.append("end reasons: " + ", ".join(f"{k} {v}" for k, v in res["end_reasons"].items()))
    return "\n".join(lines)


def format_selfplay_windward(res: dict) -> str:
    """The human-readable report of a Windward selfplay (scores, and series)."""
    lines = [f"selfplay: {res['games']} games ({res['series']} series of {res['games_per_series']}), "
             f"{res['players']} players, variant {res['variant']}, seed {res['seed']}, "
             f"seats {' '.join(res['lineup'])} (rotating)",
             f"{res['games_per_second']} games/s ({res['seconds']} s), "
             f"{res['actions_per_game']} actions per game",
             f"{'bot':<10}{'seats':>7}{'mean':>10}{'median':>10}{'stdev':>10}{'wins':>10}{'win rate':>10}"
             f"{'series':>8}{'s. mean':>10}{'s. wins':>10}{'s. rate':>10}"]
    for name, b in res["bots"].items():
        lines.append(f"{name:<10}{b['seats']:>7}{b['mean']:>10.0f}{b['median']:>10.0f}{b['stdev']:>10.0f}"
                     f"{b['wins']:>10.1f}{b['win_rate'] * 100:>9.1f}%"
                     f"{b['series']:>8}{b['series_mean']:>10.0f}{b['series_wins']:>10.1f}"
                     f"{b['series_win_rate'] * 100:>9.1f}%")
    lines.append("end reasons: " + ", ".join(f"{k} {v}" for k, v in res["end_reasons"].items()))
    return "\n".join(lines)


def cmd_selfplay(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    bots = args.bot or [_selfplay.bot_names(args.variant)[0]]
    progress = Progress(err, args.games, not args.quiet and err.isatty())
    if args.save_records:
        os.makedirs(args.save_records, exist_ok=True)

    def on_game(index: int, engine: Any) -> None:
        if args.save_records:
            save_record(args.save_records, index + 1, _record.dumps(engine.record()))
        progress.update(index + 1)

    try:
        res = _selfplay.run(args.games, args.players, args.seed, bots, args.variant, on_game,
                            series=args.series or 1)
    finally:
        progress.close()
    if args.json:
        print(json.dumps(res, indent=2), file=out)
    elif args.variant == "windward":
        print(format_selfplay_windward(res), file=out)
    else:
        print(format_selfplay(res), file=out)
    return 0


# -------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    add_replay_command(sub, cmd_replay,
                       description="Replay an Acquire game record (JSON) and print each player's "
                                   "final cash, the winners and why the game ended, or the first "
                                   "illegal action and why. Exit 0 legal, 1 illegal, 2 unreadable.")

    game = AcquireGame
    p = add_selfplay_command(sub, cmd_selfplay,
                             description="Play bot games in this process. With one --bot every seat uses "
                                         "it; with several, seats cycle through them, and the seats "
                                         "rotate from game to game. Deterministic for a seed.")
    p.add_argument("--players", type=int, default=None, choices=range(game.min_seats, game.max_seats + 1),
                   metavar="K", help=f"players per game, {game.min_seats}-{game.max_seats} (default 4; "
                                     f"windward: always {_selfplay.WINDWARD_PLAYERS})")
    p.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    p.add_argument("--bot", action="append", metavar="NAME",
                   help=f"bot for the next seat, repeatable: {', '.join(BOTS)} (default {next(iter(BOTS))}); "
                        f"windward: {', '.join(_selfplay.bot_names('windward'))} "
                        f"(default {_selfplay.bot_names('windward')[0]})")
    p.add_argument("--variant", default=SELFPLAY_VARIANTS[0],
                   help=f"rules variant: {', '.join(SELFPLAY_VARIANTS)} (default {SELFPLAY_VARIANTS[0]})")
    p.add_argument("--series", type=positive_int, default=None, metavar="G",
                   help="windward only: play series of G games each, the first player rotating "
                        "(--games must be a multiple of G; default 1)")
    add_selfplay_outputs(p, "--quiet", "no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gamehall-acquire`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "selfplay":
        if args.variant not in SELFPLAY_VARIANTS:
            args.parser.error(f"variant {args.variant!r} is not supported by selfplay "
                         f"(supported: {', '.join(SELFPLAY_VARIANTS)})")
        if args.variant == "windward":
            known = _selfplay.bot_names("windward")
            for name in args.bot or []:
                if name not in known:
                    args.parser.error(f"unknown bot {name!r} for variant windward (known: {', '.join(known)})")
            need = _selfplay.WINDWARD_PLAYERS
            if args.players is None:
                args.players = need
            elif args.players != need:
                args.parser.error(f"--players: a Windward game seats exactly {need} players, not {args.players}")
            series = args.series or 1
            if args.games % series:
                args.parser.error(f"--games {args.games} is not a whole number of series of {series} "
                                  f"(--series {series})")
        else:
            for name in args.bot or []:
                if name not in BOTS:
                    args.parser.error(f"unknown bot {name!r} (known: {', '.join(BOTS)})")
            if args.series is not None and args.series != 1:
                args.parser.error("--series is for --variant windward only")
            if args.players is None:
                args.players = 4
    try:
        return run_command(PROG, args)
    except BrokenPipeError:
        # the reader went away (| head): say nothing more, and let the interpreter's
        # final flush of stdout go to /dev/null instead of failing again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
