"""JSON game records for Euphrates & Tigris: rebuild a game by replaying them, or report on them.

A record (``Game.record()``) is::

    {"game": "et", "players": ["ann", "bob"],
     "tile_bag": "rkbg...",          # the 143 tiles of the bag in draw order
     "actions": [{"player": "ann", "tile": {"colour": "red", "x": 4, "y": 4}}, ...],
     "seed": 42}                     # optional, informative

Replaying the actions on ``Game.new(players, tile_bag=...)`` rebuilds the game exactly.
"""
from __future__ import annotations

from typing import Any

from gamehall.tools import RecordError, apply_player_action, dumps_record, replay_actions

from .engine import Game


def start_from_record(record: dict) -> Game:
    """The game as it was before its first action."""
    if not isinstance(record, dict):
        raise RecordError(None, None, "a record must be a JSON object")
    if record.get("game", "et") != "et":
        raise RecordError(None, None, f"not a Euphrates & Tigris record: game {record.get('game')!r}")
    try:
        players, bag = record["players"], record["tile_bag"]
        if not isinstance(players, list) or not isinstance(bag, (str, list)):
            raise ValueError("players must be a list and tile_bag a string")
        return Game.new(players, seed=record.get("seed"), tile_bag=bag)
    except KeyError as exc:
        raise RecordError(None, None, f"record has no {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        raise RecordError(None, None, str(exc)) from None


def apply_record_action(game: Game, index: int, entry: Any) -> list[dict]:
    """Apply one record entry ({"player": name, verb: {...}}); RecordError if illegal."""
    return apply_player_action(game, index, entry)


def game_from_record(record: dict) -> Game:
    """Replay every action of ``record``; raise RecordError at the first illegal one."""
    return replay_actions(start_from_record(record), record, apply_record_action)


def replay_report(record: dict) -> dict:
    """Replay ``record``: final scores, positions, winners and the end reason, or the first error.

    ``{"players", "over", "reason", "scores": {name: {colour: n}}, "treasures": {name: n},
    "final": {name: score} (when over), "positions": {name: n}, "winners": [names]}``
    or ``{"error": {"index", "action", "reason"}}``.
    """
    try:
        game = game_from_record(record)
    except RecordError as exc:
        return {"error": exc.as_dict()}
    from .board import COLOUR_NAMES, COLOURS
    names = game.players
    out = {"players": list(names), "over": game.is_over(), "reason": game.end_reason,
           "actions": len(record.get("actions", [])),
           "scores": {n: {COLOUR_NAMES[c]: game.scores[s][c] for c in COLOURS} for s, n in enumerate(names)},
           "treasures": dict(zip(names, game.wild))}
    if game.is_over():
        res = game.result()
        out["final"] = dict(zip(names, res["scores"]))
        out["positions"] = dict(zip(names, res["positions"]))
        out["winners"] = [names[s] for s in res["winners"]]
    return out


dumps = dumps_record
