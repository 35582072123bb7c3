"""JSON game records: rebuild a Diplomacy game by replaying one, or report on it.

A record is::

    {"game": "daide", "variant": "standard", "seed": 42, "players": [7 names],
     "powers": ["FRA", ...], "options": {"max_year": 1930},
     "actions": [{"seat": 3, "submit": ["( FRA AMY PAR ) MTO BUR", ...]},
                 {"seat": -1, "deadline": "SPR 1901"}, ...]}

Seat -1 is the deadline.  The engine is deterministic, so replaying the
actions on a new engine with the same header rebuilds the game exactly.
"""
from __future__ import annotations

from typing import Any

from gamehall.interfaces import IllegalAction
from gamehall.tools import RecordError, dumps_record, replay_actions

from .game import DiplomacyEngine


def record_of(engine: DiplomacyEngine, actions: list[dict]) -> dict:
    return {"game": "daide", "variant": engine.variant, "seed": engine.seed, "players": list(engine.players),
            "powers": list(engine.powers), "options": dict(engine.options), "actions": list(actions)}


def start_from_record(record: Any) -> DiplomacyEngine:
    if not isinstance(record, dict):
        raise RecordError(None, None, "a record must be a JSON object")
    if record.get("game") != "daide":
        raise RecordError(None, None, f"not a Diplomacy (daide) record: game {record.get('game')!r}")
    seed = record.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RecordError(None, None, "record has no integer \"seed\"")
    players, powers, options = record.get("players"), record.get("powers"), record.get("options", {})
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError(None, None, "\"players\" must be a list of names")
    if powers is not None and not isinstance(powers, list):
        raise RecordError(None, None, "\"powers\" must be a list of power tokens")
    if not isinstance(options, dict):
        raise RecordError(None, None, "\"options\" must be an object")
    try:
        return DiplomacyEngine(str(record.get("variant", "standard")), players, seed, powers=powers,
                               options=options)
    except (TypeError, ValueError) as exc:
        raise RecordError(None, None, str(exc)) from None


def apply_record_action(engine: DiplomacyEngine, index: int, entry: Any) -> list:
    if not isinstance(entry, dict) or not isinstance(entry.get("seat"), int) or isinstance(entry.get("seat"), bool):
        raise RecordError(index, entry, "an action must be an object with an integer \"seat\"")
    action = {k: v for k, v in entry.items() if k != "seat"}
    try:
        return engine.apply(entry["seat"], action)
    except IllegalAction as exc:
        raise RecordError(index, entry, str(exc)) from None


def game_from_record(record: Any) -> DiplomacyEngine:
    return replay_actions(start_from_record(record), record, apply_record_action)


def replay_report(record: Any) -> dict:
    """The outcome of replaying ``record``, or its first illegal action."""
    try:
        e = game_from_record(record)
    except RecordError as exc:
        return {"error": exc.as_dict()}
    season, year = e.turn()
    return {"powers": {p: {"player": e.players[i], "centres": e.pos.centres(p), "units": e.pos.unit_count(p),
                           "eliminated": e.eliminated_in.get(p)} for i, p in enumerate(e.powers)},
            "turn": f"{season} {year}", "over": e.is_over(), "reason": e.over_reason,
            "winners": [e.powers[s] for s in e.result()["winners"]] if e.is_over() else [],
            "actions": len(record.get("actions", []))}


dumps = dumps_record
