"""Bot-against-bot Euphrates & Tigris games in process, and their statistics.

Used by ``gamehall-et selfplay`` and ``bench/et_engine.py``.  Everything is
derived from one seed: the same arguments give the same games and figures
(except timings).  Seats rotate from game to game so every bot sits in every
seat; wins are shared among players tied for first place.
"""
from __future__ import annotations

import statistics
import time
from typing import Any, Callable

from gamehall.tools import game_seeds as _game_seeds, lineup, play_game, seats_for_game

from .bots import make_bot
from .game import EuphratesTigrisGame


def game_seeds(seed: int, index: int, players: int) -> tuple[int, list[int]]:
    """(game seed, one bot seed per seat) for game ``index`` of a run seeded ``seed``."""
    return _game_seeds("gamehall-et-selfplay", seed, index, players)


def run(games: int, players: int, seed: int, bots: list[str],
        on_game: Callable[[int, Any], None] | None = None) -> dict:
    """Play ``games`` games; per bot: seats, mean and median final score, wins, win rate."""
    slots = lineup(bots, players)
    scores: dict[str, list[int]] = {name: [] for name in dict.fromkeys(slots)}
    wins: dict[str, float] = {name: 0.0 for name in scores}
    reasons: dict[str, int] = {}
    actions = 0
    start = time.perf_counter()
    cpu = time.process_time()
    plugin = EuphratesTigrisGame()
    for index in range(games):
        names = seats_for_game(slots, index)
        game_seed, bot_seeds = game_seeds(seed, index, players)
        engine = plugin.new_engine("standard", [f"{n}-{j + 1}" for j, n in enumerate(names)], game_seed)
        actions += play_game(engine, [make_bot(n, s) for n, s in zip(names, bot_seeds)])
        result = engine.result()
        for j, name in enumerate(names):
            scores[name].append(result["scores"][j])
            if j in result["winners"]:
                wins[name] += 1 / len(result["winners"])
        reasons[result["reason"]] = reasons.get(result["reason"], 0) + 1
        if on_game is not None:
            on_game(index, engine)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    figures = {}
    for name, sc in scores.items():
        figures[name] = {"seats": len(sc), "mean": round(statistics.fmean(sc), 2),
                         "median": float(statistics.median(sc)), "wins": round(wins[name], 3),
                         "win_rate": round(wins[name] / len(sc), 4)}
    return {"games": games, "players": players, "seed": seed, "lineup": slots,
            "actions": actions, "actions_per_game": round(actions / games, 1),
            "end_reasons": dict(sorted(reasons.items())), "bots": figures,
            "seconds": round(seconds, 3), "cpu_seconds": round(cpu, 3),
            "games_per_cpu_second": round(games / cpu, 2) if cpu > 0 else None}
