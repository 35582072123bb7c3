"""Bot-against-bot Monopoly games in process, and their statistics.

Used by ``gamehall-pimp selfplay``, the tests and the benchmarks.  Everything
comes from one seed: the same arguments give the same games and figures.
"""
from __future__ import annotations

import statistics
from typing import Any, Callable

from gamehall.interfaces import IllegalAction
from gamehall.tools import game_seeds as _game_seeds

from .bots import make_bot
from .game import Monopoly, with_players

#: bot games end by net worth after this many turns (a Monopoly game need not end)
DEFAULT_MAX_TURNS = 1000


class Stuck(RuntimeError):
    """No bot could act although the game is not over: an engine or bot bug."""


def play_game(g: Monopoly, bots: dict[int, Any], max_actions: int = 500_000,
              after: Callable[[int, dict, list], None] | None = None) -> dict:
    """Let the bots (by user id) play ``g`` to the end; counts of actions and refusals by user.

    ``after(user, action, messages)`` is called after every accepted action.
    """
    applied: dict[int, int] = {pid: 0 for pid in bots}
    refused: dict[int, int] = {pid: 0 for pid in bots}
    total = idle = 0
    while not g.is_over():
        acted = False
        for pid in list(g.users):
            bot = bots.get(pid)
            if bot is None or g.is_over():
                continue
            action = bot.choose(g, pid)
            if action is None:
                continue
            total += 1
            try:
                msgs = g.apply(pid, action)
            except IllegalAction:
                refused[pid] += 1
                continue
            applied[pid] += 1
            acted = True
            if after is not None:
                after(pid, action, msgs)
        # a random bot's refused move is not a stall; many rounds without any move are
        idle = 0 if acted else idle + 1
        if idle > 50:
            raise Stuck(f"nobody can act in phase {g.phase} (turn {g.turn})")
        if total > max_actions:
            raise Stuck(f"more than {max_actions} actions")
    return {"applied": applied, "refused": refused}


def game_seeds(seed: int, index: int, players: int) -> tuple[int, list[int]]:
    return _game_seeds("gamehall-pimp-selfplay", seed, index, players)


def new_game(names: list[str], seed: int, max_turns: int = DEFAULT_MAX_TURNS) -> Monopoly:
    g = with_players(names, seed)
    g.options["max_turns"] = max_turns
    return g


def run(games: int, players: int, seed: int, bots: list[str], max_turns: int = DEFAULT_MAX_TURNS,
        on_game: Callable[[int, Monopoly], None] | None = None) -> dict:
    """Play ``games`` games; seat i gets ``bots[i % len(bots)]``, rotated by one each game."""
    wins = {name: 0.0 for name in bots}
    seats = {name: 0 for name in bots}
    reasons: dict[str, int] = {}
    turns = []
    for index in range(games):
        lineup = [bots[(i + index) % len(bots)] for i in range(players)]
        game_seed, bot_seeds = game_seeds(seed, index, players)
        names = [f"{name}{i + 1}" for i, name in enumerate(lineup)]
        g = new_game(names, game_seed, max_turns)
        play_game(g, {i + 1: make_bot(lineup[i], bot_seeds[i]) for i in range(players)})
        for name in lineup:
            seats[name] += 1
        wins[lineup[g.winner - 1]] += 1
        reasons[g.end_reason] = reasons.get(g.end_reason, 0) + 1
        turns.append(g.turns)
        if on_game is not None:
            on_game(index, g)
    return {"games": games, "players": players, "seed": seed,
            "win_rate": {n: wins[n] / games for n in bots},
            "seats": seats, "wins": wins, "reasons": reasons,
            "mean_turns": statistics.fmean(turns) if turns else 0.0}
