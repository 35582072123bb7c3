"""JSON game records: rebuild a game by replaying them, or report on them.

A record (``Monopoly.record()``) is::

    {"game": "pimp", "board": 0, "seed": 42, "options": {...},
     "actions": [{"user": null, "msg": "JOIN", "args": [0, true, "ann"]},
                 {"user": 1, "msg": "THROW_DICE", "args": []}, ...]}

The dice, the decks and the passwords all come from the seed, so replaying the
actions on ``Monopoly(seed, options)`` rebuilds the game exactly.
"""
from __future__ import annotations

import json
from typing import Any

from gamehall.interfaces import IllegalAction

from .game import Monopoly


class RecordError(ValueError):
    """The first problem found in a record (``index`` None for its header)."""

    def __init__(self, index: int | None, action: Any, reason: str):
        super().__init__(f"action {index}: {reason}" if index is not None else reason)
        self.index, self.action, self.reason = index, action, reason

    def as_dict(self) -> dict:
        return {"index": self.index, "action": self.action, "reason": self.reason}


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
    g = start_from_record(record)
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError(None, None, "\"actions\" must be a list")
    for index, entry in enumerate(actions):
        apply_record_action(g, index, entry)
    return g


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


def dumps(record: dict) -> str:
    """A record as compact, one-action-per-line JSON text."""
    head = {k: v for k, v in record.items() if k != "actions"}
    lines = [json.dumps(a, separators=(",", ":")) for a in record.get("actions", [])]
    return json.dumps(head)[:-1] + ', "actions": [\n' + ",\n".join(lines) + "\n]}\n"
