"""Rating a finished game inside the store's write of its end, the same way in every store.

``finish_table(..., rated=...)`` hands the store ``{"key": rating key, "names": [name or
None per seat], "places": [place per seat]}`` (``gamehall.ratings.rated_game``); the store
reads the current ratings of the named players, computes the new ones here (pure, with
``gamehall.ratings.rate_game``) and writes them with the result, in one transaction.
A name None is a guest: rated at a fresh default rating, nothing of theirs kept.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gamehall.ratings import Rating, player_key, rate_game, rated_game

from .interface import END_STATES, StoreError
from .validation import check_dict, check_epoch, dumps


@dataclass(frozen=True)
class Rated:
    """A checked ``rated`` argument."""

    key: str
    names: tuple[str | None, ...]
    places: tuple[int, ...]

    @property
    def players(self) -> list[str]:
        """The keys of the named players, sorted (the order rows are locked in)."""
        return sorted({player_key(n) for n in self.names if n is not None})


def check_rated(rated: Any) -> Rated:
    """``rated`` checked, or StoreError saying what is wrong with it."""
    if not isinstance(rated, dict):
        raise StoreError("rated must be a dict")
    key, names, places = rated.get("key"), rated.get("names"), rated.get("places")
    if not isinstance(key, str) or not key:
        raise StoreError("rated key must be a non-empty str")
    if not isinstance(names, (list, tuple)) or not isinstance(places, (list, tuple)):
        raise StoreError("rated names and places must be lists")
    if len(names) != len(places) or len(names) < 2:
        raise StoreError("rated needs as many names as places, 2 or more")
    if not all(n is None or (isinstance(n, str) and player_key(n)) for n in names):
        raise StoreError("rated names are non-empty strs or None (a guest)")
    if not all(isinstance(p, int) and not isinstance(p, bool) and p >= 1 for p in places):
        raise StoreError("rated places are ints of 1 or more")
    if not any(n is not None for n in names):
        raise StoreError("rated names nobody to keep a rating for")
    return Rated(key, tuple(names), tuple(places))


def check_finish(state: Any, result: Any, record: Any, rated: Any,
                 epoch: Any) -> tuple[str | None, str | None, Rated | None]:
    """``finish_table``'s arguments checked, the same in every store: the result and the
    record as JSON text (None when not given) and the checked ``rated`` (None: not rated)."""
    check_epoch(epoch)
    if state not in END_STATES:
        raise StoreError(f"finish_table state must be one of {END_STATES}")
    checked = None
    if rated is not None:
        if state != "finished":
            raise StoreError("only a finished table is rated")
        checked = check_rated(rated)
    result_json = None if result is None else check_dict("result", result)
    record_json = None if record is None else check_dict("record", record)
    return result_json, record_json, checked


@dataclass
class Standing:
    """One player's stored rating row for one key."""

    name: str
    rating: Rating
    places: dict[str, int]


def rate(rated: Rated, current: dict[str, Standing], now: float) -> tuple[list[tuple], list[tuple]]:
    """The rows to write for one rated game, given the named players' current rows
    (player key -> Standing; a player missing has none yet).

    Returns ``(ratings rows, event rows)``: ratings rows are ``(player, name, mu, sigma,
    rating, games, places JSON, last played)``, one per named player; event rows are
    ``(seat, player, name, place, players, mu, sigma, games)``, one per named seat."""
    # Guests are one player each, never found in ``current``: a fresh rating every game.
    seats = [player_key(n) if n is not None else f"\x00guest {i}" for i, n in enumerate(rated.names)]
    prior = {p: current[p].rating for p in rated.players if p in current}   # (the seated only)
    new = rate_game(prior, seats, list(rated.places))
    rows = []
    for player in rated.players:
        standing = current.get(player)
        places = dict(standing.places) if standing else {}
        # the best place of the player's seats (a bot level in two seats counts one game)
        place = min(p for s, p in zip(seats, rated.places) if s == player)
        places[str(place)] = places.get(str(place), 0) + 1
        name = next(n for s, n in zip(seats, rated.names) if s == player)
        r = new[player]
        rows.append((player, name, r.mu, r.sigma, r.display, r.games,
                     dumps(dict(sorted(places.items(), key=lambda kv: int(kv[0])))), now))
    events = []
    for seat, (player, name, place) in enumerate(zip(seats, rated.names, rated.places)):
        if name is None:
            continue
        r = new[player]
        events.append((seat, player, name, place, len(seats), r.mu, r.sigma, r.games))
    return rows, events


def rebuilt(games: list[tuple], seqs: dict[int, int]) -> tuple[list[tuple], list[tuple], dict]:
    """Every rating recomputed from the stored finished games, ``(table id, game, variant,
    seats JSON, options JSON, result JSON, finished)`` each, through the same ``rated_game``
    as the hall.  Games are replayed in the order they finished (ties: the order they were
    rated in live, ``seqs``: table id -> seq, then table id), so the result is
    deterministic and, for games rated live, equal to the live ratings.

    Returns ``(ratings rows, event rows, counts)``: rows as the stores keep them
    (``rating_key, player, name, mu, sigma, rating, games, places, last_played`` and
    ``table_id, seat, rating_key, player, name, place, players, mu, sigma, games, seq,
    finished``); counts of games rated, games skipped (a result the rules cannot place)
    and ratings kept."""
    games = sorted(games, key=lambda g: (g[6], seqs.get(g[0], 0), g[0]))
    standings: dict[str, dict[str, Standing]] = {}
    last_played: dict[tuple[str, str], float] = {}
    events: list[tuple] = []
    rated_count = skipped = 0
    for table_id, game, variant, seats, options, result, finished in games:
        try:
            options = json.loads(options)
            rated = rated_game(game, variant, json.loads(seats), json.loads(result),
                               options.get("humans", ()) if isinstance(options, dict) else ())
            if rated is None:
                continue
            checked = check_rated(rated)
        except (ValueError, TypeError, KeyError, AttributeError, StoreError):
            skipped += 1
            continue
        rated_count += 1
        current = standings.setdefault(checked.key, {})
        rows, game_events = rate(checked, current, finished)
        for player, name, mu, sigma, _rating, played, places, _last in rows:
            current[player] = Standing(name, Rating(mu, sigma, played), json.loads(places))
            last_played[checked.key, player] = finished
        events += [(table_id, seat, checked.key, player, name, place, n, mu, sigma, played,
                    rated_count, finished)
                   for seat, player, name, place, n, mu, sigma, played in game_events]
    rows = [(key, player, s.name, s.rating.mu, s.rating.sigma, s.rating.display, s.rating.games,
             dumps(s.places), last_played[key, player])
            for key, players in sorted(standings.items()) for player, s in sorted(players.items())]
    return rows, events, {"games": rated_count, "skipped": skipped, "ratings": len(rows)}
