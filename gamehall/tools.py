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
import sys
from typing import Any, Callable, TextIO


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


# --------------------------------------------------------------------- main
def run_command(prog: str, args: argparse.Namespace) -> int:
    """Run the parsed subcommand on the real streams; 130 on Ctrl-C, without a traceback."""
    try:
        return args.func(args, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
