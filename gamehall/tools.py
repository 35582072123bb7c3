"""Pieces shared by the game packages' command-line tools (``gamehall-acquire``,
``gamehall-pimp``, ``gamehall-et``): argument types, reading and writing game
record files, the ``replay`` command's plumbing and the common ``main`` wrapper.

Game rules stay in the game packages; this module only knows that a record is
a JSON file and that a replay summary is printed as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from typing import Any, Callable, TextIO

from gamehall.interfaces import IllegalAction


def positive_int(text: str) -> int:
    """argparse type: a whole number of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {value}")
    return value


# ------------------------------------------------------------------ records
def read_record(path: str) -> Any:
    """The JSON record in ``path`` ('-' for stdin); OSError/ValueError with a plain message."""
    if path == "-":
        text = sys.stdin.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ValueError("not JSON this program can read: nested too deeply") from None


class RecordError(ValueError):
    """The first problem found in a game record.

    ``index`` is the position of the offending action in ``record["actions"]``
    (None for a problem in the record's header), ``action`` that action.
    """

    def __init__(self, index: int | None, action: Any, reason: str):
        super().__init__(f"action {index}: {reason}" if index is not None else reason)
        self.index = index
        self.action = action
        self.reason = reason

    def as_dict(self) -> dict:
        return {"index": self.index, "action": self.action, "reason": self.reason}


def apply_player_action(game: Any, index: int, entry: Any) -> list:
    """Apply one ``{"player": name, ...action}`` record entry; RecordError if it is not legal."""
    if not isinstance(entry, dict) or "player" not in entry:
        raise RecordError(index, entry, "an action must be an object with a \"player\"")
    try:
        seat = game.players.index(entry["player"])
    except ValueError:
        raise RecordError(index, entry, f"unknown player {entry['player']!r}") from None
    action = {k: v for k, v in entry.items() if k != "player"}
    try:
        return game.apply(seat, action)
    except IllegalAction as exc:
        raise RecordError(index, entry, str(exc)) from None


def replay_actions(game: Any, record: dict, apply_action: Callable[[Any, int, Any], Any]) -> Any:
    """Apply ``record["actions"]`` to ``game`` one by one with ``apply_action(game, index, entry)``
    (which raises RecordError at an illegal one); the game."""
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError(None, None, "\"actions\" must be a list")
    for index, entry in enumerate(actions):
        apply_action(game, index, entry)
    return game


def dumps_record(record: dict) -> str:
    """A record as compact, one-action-per-line JSON text (easy to diff and to read)."""
    head = {k: v for k, v in record.items() if k != "actions"}
    lines = [json.dumps(a, separators=(",", ":")) for a in record.get("actions", [])]
    return json.dumps(head)[:-1] + ', "actions": [\n' + ",\n".join(lines) + "\n]}\n"


def save_record(directory: str, number: int, text: str) -> str:
    """Write one game's record text to ``directory/game-NNNNN.json``; its path."""
    path = os.path.join(directory, f"game-{number:05d}.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


# ------------------------------------------------------------------- replay
def add_replay_command(sub: Any, func: Callable, description: str | None = None) -> argparse.ArgumentParser:
    """The ``replay FILE`` subcommand, run by ``func(args, out, err)``."""
    p = sub.add_parser("replay", help="check a game record and print its outcome as JSON",
                       description=description)
    p.add_argument("file", metavar="FILE", help="record file ('-' for standard input)")
    p.set_defaults(func=func, parser=p)
    return p


def add_selfplay_command(sub: Any, func: Callable, description: str | None = None) -> argparse.ArgumentParser:
    """The ``selfplay`` subcommand with its ``--games``; the tool adds its own seat options,
    then :func:`add_selfplay_outputs`."""
    p = sub.add_parser("selfplay", help="play bot games in process and print statistics",
                       description=description)
    p.add_argument("--games", type=positive_int, default=100, help="games to play (default 100)")
    p.set_defaults(func=func, parser=p)
    return p


def add_selfplay_outputs(p: argparse.ArgumentParser, progress_flag: str, progress_help: str) -> None:
    """``--json``, the tool's progress switch (a store_true flag) and ``--save-records DIR``."""
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(progress_flag, action="store_true", help=progress_help)
    p.add_argument("--save-records", metavar="DIR", help="write each game's record to DIR/game-NNNNN.json")


def replay_command(prog: str, path: str, out: TextIO, err: TextIO,
                   summarise: Callable[[Any], dict], is_legal: Callable[[dict], bool]) -> int:
    """Read the record in ``path``, print ``summarise(record)`` as JSON.

    Exit status: 0 for a legal record, 1 for an illegal one, 2 for a file that
    cannot be read as JSON (with the reason on ``err``).
    """
    try:
        rec = read_record(path)
    except (OSError, ValueError) as exc:
        msg = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        print(f"{prog}: cannot read {path}: {msg}", file=err)
        return 2
    summary = summarise(rec)
    print(json.dumps(summary, indent=2), file=out)
    return 0 if is_legal(summary) else 1


# ----------------------------------------------------------------- selfplay
def lineup(bots: list[str], players: int) -> list[str]:
    """Bot name for each seat: the names repeated in turn (strong, random -> s r s r)."""
    return [bots[i % len(bots)] for i in range(players)]


def seats_for_game(slots: list[str], index: int) -> list[str]:
    """The lineup rotated by the game's index, so every bot sits in every seat in turn."""
    k = len(slots)
    return [slots[(j + index) % k] for j in range(k)]


def game_seeds(tag: str, seed: int, index: int, players: int) -> tuple[int, list[int]]:
    """(game seed, one bot seed per seat) for game ``index`` of a run seeded ``seed``;
    ``tag`` keeps each tool's seeds its own (and its recorded runs reproducible)."""
    rng = random.Random(f"{tag}:{seed}:{index}")
    return rng.getrandbits(63), [rng.getrandbits(63) for _ in range(players)]


def play_game(engine: Any, bots: list[Any]) -> int:
    """Play ``engine`` to its end with one bot per seat; return the number of actions."""
    n = 0
    pending_seat, apply = engine.pending_seat, engine.apply     # bound once: the loop is hot
    seat = pending_seat()
    while seat is not None:
        apply(seat, bots[seat].choose(engine, seat))
        n += 1
        seat = pending_seat()
    return n


# --------------------------------------------------------------------- main
def run_command(prog: str, args: argparse.Namespace) -> int:
    """Run the parsed subcommand on the real streams; 130 on Ctrl-C, without a traceback."""
    try:
        return args.func(args, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
