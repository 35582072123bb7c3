"""JSON game records: rebuild a game by replaying them, or report on them.

A record (``Monopoly.record()``) is::

    {"game": "pimp", "board": 0, "seed": 42, "options": {...},
     "actions": [{"user": null, "msg": "JOIN", "args": [0, true, "ann"]},
                 {"user": 1, "msg": "THROW_DICE", "args": []}, ...]}

The dice, the decks and the passwords all come from the seed, so replaying the
actions on ``Monopoly(seed, options)`` rebuilds the game exactly.
"""
from __future__ import annotations

from typing import Any

from gamehall.interfaces import IllegalAction
from gamehall.tools import RecordError, dumps_record, replay_actions

from .game import Monopoly


def start_from_record(record: Any) -> Monopoly:
    if not isinstance(record, dict):
        raise RecordError(None, None, "a record must be a JSON object")
    if record.get("game") != "pimp":
        raise RecordError(None, None, f"not a Monopoly (PIMP) record: game {record.get('game')!r}")
    if record.get("board", 0) != 0:
        raise RecordError(None, None, f"unknown board {record.get('board')!r}")
    seed = record.get("seed")
    if not isinstance(seed, int):
        raise RecordError(None, None, "record has no integer \"seed\"")
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise RecordError(None, None, "\"options\" must be an object")
    try:
        return Monopoly(seed, options)
    except (TypeError, ValueError) as exc:
        raise RecordError(None, None, str(exc)) from None


def apply_record_action(g: Monopoly, index: int, entry: Any) -> list:
    if not isinstance(entry, dict) or "msg" not in entry:
        raise RecordError(index, entry, "an action must be an object with a \"msg\"")
    user = entry.get("user")
    if user is not None and not isinstance(user, int):
        raise RecordError(index, entry, "\"user\" must be a user number or null")
    try:
        return g.apply(user, {"msg": entry["msg"], "args": entry.get("args", [])})
    except IllegalAction as exc:
        raise RecordError(index, entry, str(exc)) from None


def game_from_record(record: Any) -> Monopoly:
    return replay_actions(start_from_record(record), record, apply_record_action)


def replay_report(record: Any) -> dict:
    """The outcome of replaying ``record``, or its first illegal action."""
    try:
        g = game_from_record(record)
    except RecordError as exc:
        return {"error": exc.as_dict()}
    return {"players": {u.name: {"playing": u.playing, "cash": u.cash, "net_worth": g.net_worth(pid)}
                        for pid, u in g.users.items()},
            "over": g.is_over(), "winner": g.users[g.winner].name if g.winner else None,
            "reason": g.end_reason or None, "turns": g.turns, "actions": len(g.log)}


dumps = dumps_record
