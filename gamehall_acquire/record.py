"""JSON game records for Acquire: rebuild a game by replaying them, or report on them.

A record (``Game.record()``) is::

    {"game": "acquire", "variant": "classic", "players": ["ann", "bob"],
     "tile_bag": [all 108 tiles in draw order, position tiles first],
     "actions": [{"player": "ann", "play_tile": "2D"}, ...],
     "seed": 42}          # optional, informative; "rules": {...} only for non-default rules

Replaying the actions on ``Game.new(players, tile_bag=...)`` rebuilds the game
exactly.  Chain names in actions may be aliases, in any case.
"""
from __future__ import annotations

import json
from typing import Any

from gamehall.tools import RecordError, apply_player_action, dumps_record, replay_actions

from .rules import Game, rules_for


def start_from_record(record: dict, game_class: type[Game] = Game) -> Game:
    """The game as it was before its first action."""
    if not isinstance(record, dict):
        raise RecordError(None, None, "a record must be a JSON object")
    if record.get("game", "acquire") != "acquire":
        raise RecordError(None, None, f"not an Acquire record: game {record.get('game')!r}")
    try:
        rules = rules_for(record.get("variant", "classic"), record.get("rules"))
        return game_class.new(record["players"], seed=record.get("seed"),
                              tile_bag=record["tile_bag"], rules=rules)
    except KeyError as exc:
        raise RecordError(None, None, f"record has no {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        raise RecordError(None, None, str(exc)) from None


def apply_record_action(game: Game, index: int, entry: Any) -> list[dict]:
    """Apply one record entry ({"player": name, ...action}); RecordError if illegal."""
    return apply_player_action(game, index, entry)


def game_from_record(record: dict, game_class: type[Game] = Game) -> Game:
    """Replay every action of ``record``; raise RecordError at the first illegal one."""
    return replay_actions(start_from_record(record, game_class), record, apply_record_action)


def replay_report(record: dict) -> dict:
    """Replay ``record`` and report the outcome, or the first illegal action.

    ``{"players": [...], "cash": [final cash per seat], "scores": {name: cash},
    "winners": [names], "reason": end_reason, "over": bool}`` -- for a game not
    yet over, cash is the current cash, winners is empty and reason None --
    or ``{"error": {"index", "action", "reason"}}``.
    """
    try:
        game = game_from_record(record)
    except RecordError as exc:
        return {"error": exc.as_dict()}
    over = game.is_over()
    winners = [game.players[s] for s in game.result()["winners"]] if over else []
    return {"players": list(game.players), "cash": list(game.cash),
            "scores": dict(zip(game.players, game.cash)), "winners": winners,
            "reason": game.end_reason, "over": over}


dumps = dumps_record


def loads(text: str) -> dict:
    return json.loads(text)
