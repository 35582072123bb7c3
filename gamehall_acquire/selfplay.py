"""Bot-against-bot Acquire games in process, and their statistics.

Variant ``"classic"`` plays :mod:`gamehall_acquire.bots` on the classic engine;
variant ``"windward"`` plays :mod:`gamehall_acquire.windward.bots` (6 seats)
in :class:`~gamehall_acquire.windward.series.Series` of ``series`` games each
(the first player rotating within a series), scored by ``result()["scores"]``.

Used by ``gamehall-acquire selfplay`` and ``bench/engine_speed.py``; kept out
of the CLI so that tests and benchmarks can call it without parsing output.
Everything is derived from one seed: the same arguments give the same games,
records and figures (except timings).
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from gamehall.tools import game_seeds as _game_seeds, lineup, play_game, seats_for_game

from .bots import make_bot


def game_seeds(seed: int, index: int, players: int) -> tuple[int, list[int]]:
    """(game seed, one bot seed per seat) for game ``index`` of a run seeded ``seed``."""
    return _game_seeds("gamehall-acquire-selfplay", seed, index, players)


#: seats a Windward game always has
WINDWARD_PLAYERS = 6


def new_engine(variant: str, players: list[str], seed: int) -> Any:
    """An engine through the hall's own game plugin, so selfplay runs what the hall runs."""
    if variant == "windward":
        from .windward.game import WindwardAcquireGame
        return WindwardAcquireGame().new_engine(variant, players, seed)
    from .game import AcquireGame
    return AcquireGame().new_engine(variant, players, seed)


def new_bot(variant: str, name: str, seed: int) -> Any:
    """Bot ``name`` of ``variant``'s bot set."""
    if variant == "windward":
        from .windward.bots import make_bot as make_windward_bot
        return make_windward_bot(name, seed)
    return make_bot(name, seed)


def bot_names(variant: str) -> tuple[str, ...]:
    """The bot names ``variant`` knows, the default first."""
    if variant == "windward":
        from .windward.bots import BOTS as WINDWARD_BOTS
        return tuple(WINDWARD_BOTS)
    from .bots import BOTS
    return tuple(BOTS)


def _tally(result: dict, names: list[str], stats: dict, reasons: dict) -> None:
    """Add one finished game to the per-bot figures (wins shared on ties) and the end reasons."""
    winners = result["winners"]
    for j, name in enumerate(names):
        st = stats[name]
        st.cash.append(result["scores"][j])
        if j in winners:
            st.wins += 1 / len(winners)
    reasons[result["reason"]] = reasons.get(result["reason"], 0) + 1


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
        on_game: Callable[[int, Any], None] | None = None, series: int = 1) -> dict:
    """Play ``games`` games and return the figures (see ``gamehall-acquire selfplay --help``).

    ``on_game(index, engine)`` is called after each game (progress, records).
    Wins are shared among tied winners; ``win_rate`` is wins per seat played,
    so an even field gives 1 / players.  ``series`` (games per series) is for
    Windward only: see :func:`run_windward`.
    """
    if variant == "windward":
        return run_windward(games, players, seed, bots, series, on_game)
    if series != 1:
        raise ValueError("series of games are for variant windward only")
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
        _tally(engine.result(), names, stats, reasons)
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


def run_windward(games: int, players: int, seed: int, bots: list[str], series: int = 1,
                 on_game: Callable[[int, Any], None] | None = None) -> dict:
    """Windward selfplay: ``games // series`` series of ``series`` games each.

    Within a series the seats stay and the first player rotates (game k starts
    with seat k mod 6); from series to series the lineup rotates as classic
    games do.  Per bot: the figures of :func:`run` over the games' scores
    (``result()["scores"]``), plus ``series`` (series seats), ``series_mean``
    (mean total per series seat), ``series_wins`` (shared among tied top
    totals) and ``series_win_rate``.
    """
    from .windward.series import Series
    if players != WINDWARD_PLAYERS:
        raise ValueError(f"a Windward game seats exactly {WINDWARD_PLAYERS} players, not {players}")
    if series < 1 or games % series:
        raise ValueError(f"{games} games do not make whole series of {series}")
    slots = lineup(bots, players)
    stats: dict[str, BotStats] = {name: BotStats() for name in dict.fromkeys(slots)}
    totals: dict[str, list[int]] = {name: [] for name in stats}
    series_wins: dict[str, float] = {name: 0.0 for name in stats}
    reasons: dict[str, int] = {}
    actions = 0
    index = 0
    start = time.perf_counter()
    for k in range(games // series):
        names = seats_for_game(slots, k)
        series_seed, bot_seeds = game_seeds(seed, k, players)
        sr = Series([f"{name}-{j + 1}" for j, name in enumerate(names)], games=series, seed=series_seed)
        seat_bots = [new_bot("windward", name, s) for name, s in zip(names, bot_seeds)]
        while not sr.is_over():
            engine = sr.new_game()
            actions += play_game(engine, seat_bots)
            result = engine.result()
            sr.finish_game()
            _tally(result, names, stats, reasons)
            if on_game is not None:
                on_game(index, engine)
            index += 1
        winners = sr.winners
        for j, name in enumerate(names):
            totals[name].append(sr.totals[j])
            if j in winners:
                series_wins[name] += 1 / len(winners)
    seconds = time.perf_counter() - start
    figures = {}
    for name, st in stats.items():
        n = len(totals[name])
        figures[name] = {**st.summary(), "series": n,
                         "series_mean": round(statistics.fmean(totals[name]), 1) if n else None,
                         "series_wins": round(series_wins[name], 3),
                         "series_win_rate": round(series_wins[name] / n, 4) if n else None}
    return {
        "games": games,
        "players": players,
        "seed": seed,
        "variant": "windward",
        "series": games // series,
        "games_per_series": series,
        "lineup": slots,
        "actions_per_game": round(actions / games, 1) if games else 0.0,
        "end_reasons": dict(sorted(reasons.items())),
        "bots": figures,
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds, 2) if seconds > 0 else None,
    }
