"""Bot-against-bot Diplomacy games in process, and their statistics.

Used by ``gamehall-daide selfplay``, the tests and the docs' figures.  Everything
comes from one seed: the same arguments give the same games and figures.  A
game not decided by a solo ends in a draw among the survivors after the year
``max_year`` (default 1930: thirty game years).
"""
from __future__ import annotations

import statistics
from typing import Callable

from gamehall.tools import game_seeds as _game_seeds
from gamehall.tools import seats_for_game

from .bots import make_bot
from .game import DiplomacyEngine

DEFAULT_MAX_YEAR = 1930


class Stuck(RuntimeError):
    """The bots made no progress although the game is not over: an engine or bot bug."""


def play(engine: DiplomacyEngine, bots: list, max_actions: int = 100_000) -> list[dict]:
    """Let one bot per seat play ``engine`` to its end; the actions, as a record holds them."""
    actions: list[dict] = []
    while not engine.is_over():
        seats = engine.pending_seats()
        if not seats:                      # complete but held back (no GOF): the deadline comes
            action = {"deadline": f"{engine.turn()[0]} {engine.turn()[1]}"}
            engine.apply(-1, action)
            actions.append(dict(action, seat=-1))
            continue
        before = engine.turn()
        for seat in seats:
            if engine.is_over() or engine.turn() != before:
                break
            action = bots[seat].choose(engine, seat)
            engine.apply(seat, action)
            actions.append(dict(action, seat=seat))
        if engine.turn() == before and engine.pending_seats() == seats and not engine.is_over():
            # the bots left orders missing: the deadline fills them in
            action = {"deadline": f"{before[0]} {before[1]}"}
            engine.apply(-1, action)
            actions.append(dict(action, seat=-1))
        if len(actions) > max_actions:
            raise Stuck(f"more than {max_actions} actions")
    return actions


def game_seeds(seed: int, index: int) -> tuple[int, list[int]]:
    return _game_seeds("gamehall-daide-selfplay", seed, index, 7)


def run(games: int, seed: int, bots: list[str], max_year: int = DEFAULT_MAX_YEAR,
        on_game: Callable[[int, DiplomacyEngine, list], None] | None = None) -> dict:
    """Play ``games`` games; the seats get ``bots`` repeated (strong, random -> s r s r s r s),
    rotated by one seat each game so every bot plays every power in turn."""
    slots = [bots[i % len(bots)] for i in range(7)]
    names = sorted(set(bots))
    solos = {n: 0 for n in names}
    shared = {n: 0.0 for n in names}        # a draw is shared by its survivors
    top = {n: 0.0 for n in names}           # most centres at the end (ties shared)
    centres = {n: 0 for n in names}
    seats = {n: 0 for n in names}
    reasons: dict[str, int] = {}
    years = []
    for index in range(games):
        lineup = seats_for_game(slots, index)
        game_seed, bot_seeds = game_seeds(seed, index)
        engine = DiplomacyEngine("standard", [f"{b}{i + 1}" for i, b in enumerate(lineup)], game_seed,
                                 options={"max_year": max_year})
        actions = play(engine, [make_bot(b, s) for b, s in zip(lineup, bot_seeds)])
        res = engine.result()
        reason = res["reason"].split()[0]
        reasons[reason] = reasons.get(reason, 0) + 1
        for s, b in enumerate(lineup):
            seats[b] += 1
            centres[b] += res["scores"][s]
        if reason == "solo":
            solos[lineup[res["winners"][0]]] += 1
        for s in res["winners"]:
            shared[lineup[s]] += 1 / len(res["winners"])
        best = max(res["scores"])
        leaders = [s for s, c in enumerate(res["scores"]) if c == best]
        for s in leaders:
            top[lineup[s]] += 1 / len(leaders)
        years.append(engine.turn()[1] - 1901)
        if on_game is not None:
            on_game(index, engine, actions)
    return {"games": games, "seed": seed, "lineup": slots, "max_year": max_year,
            "solo_rate": {n: solos[n] / games for n in names},
            "win_share": {n: shared[n] / games for n in names},
            "top_rate": {n: top[n] / games for n in names},
            "mean_centres": {n: centres[n] / seats[n] if seats[n] else 0.0 for n in names},
            "seats": seats, "reasons": reasons, "mean_years": statistics.fmean(years) if years else 0.0}
