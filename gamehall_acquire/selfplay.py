"""Bot-against-bot Acquire games in process, and their statistics.

Used by ``gamehall-acquire selfplay`` and ``bench/engine_speed.py``; kept out
of the CLI so that tests and benchmarks can call it without parsing output.
Everything is derived from one seed: the same arguments give the same games,
records and figures (except timings).
"""
from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .bots import make_bot


def lineup(bots: list[str], players: int) -> list[str]:
    """Bot name for each seat: the names repeated in turn (strong, random -> s r s r)."""
    return [bots[i % len(bots)] for i in range(players)]


def seats_for_game(slots: list[str], index: int) -> list[str]:
    """The lineup rotated by the game's index, so every bot sits in every seat in turn."""
    k = len(slots)
    return [slots[(j + index) % k] for j in range(k)]


def game_seeds(seed: int, index: int, players: int) -> tuple[int, list[int]]:
    """(game seed, one bot seed per seat) for game ``index`` of a run seeded ``seed``."""
    rng = random.Random(f"gamehall-acquire-selfplay:{seed}:{index}")
    return rng.getrandbits(63), [rng.getrandbits(63) for _ in range(players)]


def new_engine(variant: str, players: list[str], seed: int) -> Any:
    """An engine through the hall's own game plugin, so selfplay runs what the hall runs."""
    from .game import AcquireGame
    return AcquireGame().new_engine(variant, players, seed)


def play_game(engine: Any, bots: list[Any]) -> int:
    """Play ``engine`` to its end with one bot per seat; return the number of actions."""
    n = 0
    pending_seat, apply = engine.pending_seat, engine.apply
    seat = pending_seat()
    while seat is not None:
        apply(seat, bots[seat].choose(engine, seat))
        n += 1
        seat = pending_seat()
    return n


@dataclass
class BotStats:
    """Final cash of every seat a bot played, and its share of the wins."""

    cash: list[int] = field(default_factory=list)
    wins: float = 0.0

    def summary(self) -> dict:
        cash = self.cash
        seats = len(cash)
        return {
            "seats": seats,
            "mean": round(statistics.fmean(cash), 1) if cash else None,
            "median": float(statistics.median(cash)) if cash else None,
            "stdev": round(statistics.stdev(cash), 1) if seats > 1 else 0.0,
            "wins": round(self.wins, 3),
            "win_rate": round(self.wins / seats, 4) if seats else None,
        }


def run(games: int, players: int, seed: int, bots: list[str], variant: str = "classic",
        on_game: Callable[[int, Any], None] | None = None) -> dict:
    """Play ``games`` games and return the figures (see ``gamehall-acquire selfplay --help``).

    ``on_game(index, engine)`` is called after each game (progress, records).
    Wins are shared among tied winners; ``win_rate`` is wins per seat played,
    so an even field gives 1 / players.
    """
    slots = lineup(bots, players)
    stats: dict[str, BotStats] = {name: BotStats() for name in dict.fromkeys(slots)}
    reasons: dict[str, int] = {}
    actions = 0
    start = time.perf_counter()
    for index in range(games):
        names = seats_for_game(slots, index)
        game_seed, bot_seeds = game_seeds(seed, index, players)
        engine = new_engine(variant, [f"{name}-{j + 1}" for j, name in enumerate(names)], game_seed)
        actions += play_game(engine, [make_bot(name, s) for name, s in zip(names, bot_seeds)])
        result = engine.result()
        winners = result["winners"]
        for j, name in enumerate(names):
            st = stats[name]
            st.cash.append(result["scores"][j])
            if j in winners:
                st.wins += 1 / len(winners)
        reasons[result["reason"]] = reasons.get(result["reason"], 0) + 1
        if on_game is not None:
            on_game(index, engine)
    seconds = time.perf_counter() - start
    return {
        "games": games,
        "players": players,
        "seed": seed,
        "variant": variant,
        "lineup": slots,
        "actions_per_game": round(actions / games, 1) if games else 0.0,
        "end_reasons": dict(sorted(reasons.items())),
        "bots": {name: st.summary() for name, st in stats.items()},
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds, 2) if seconds > 0 else None,
    }
