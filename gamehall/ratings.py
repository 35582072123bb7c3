"""Player ratings from finished games: pure functions over openskill's Plackett-Luce model.

Why openskill (6.2.0, MIT, maintained) and not trueskill (0.4.5, last released 2018):
openskill rates any number of players in one game, with shared places (ties), in closed
form (no factor-graph iteration), so it is fast and exactly repeatable; trueskill's free-for-all
with many players is slower and the package is no longer maintained.

The model and every parameter are pinned in ``MODEL`` so that ratings are a function of the
game sequence alone: ``recompute`` over the stored records equals the live ratings.

No Twisted, no store: the hall feeds finished games in and keeps what comes out.
"""

from __future__ import annotations

import math
import time
import unicodedata
from dataclasses import dataclass
from typing import Iterable

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = MU / 3.0
# Pinned: beta (skill spread per game), kappa (floor on variance), tau (sigma added before each
# game, so a rating keeps moving), limit_sigma (a game never makes a player less certain; with
# tau alone a long-idle player's sigma would creep up game after game).
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=MU / 6.0, kappa=0.0001, tau=MU / 300.0,
                     limit_sigma=True, balance=False)

# A player's first PROVISIONAL_GAMES games are provisional: measured on random 2-, 4- and 7-player
# histories, a newcomer's sigma falls from 8.3 to about 5 by the tenth game (about 4 by the
# twentieth), so by then the conservative number rests more on results than on the prior.
PROVISIONAL_GAMES = 10


@dataclass(frozen=True)
class Rating:
    """One player's rating for one rating key: the model's mean and deviation, and how many
    rated games it rests on."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def display(self) -> float:
        """The conservative number shown: mean minus three deviations (starts at 0)."""
        return self.mu - 3.0 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def places_from_result(result: dict) -> list[int]:
    """Final places per seat (1 is first; equals share a place, the next place is skipped:
    1, 1, 3) from an engine's ``result()``.

    - ``positions`` when the engine gives them (E&T: its tie-broken ranking, ties shared).
    - Otherwise winners come first, sharing first place (Acquire's and Windward's top cash,
      a Diplomacy draw's powers or solo, Monopoly's last player standing); the others follow by
      score, higher better, equal scores sharing (Acquire cash, Diplomacy supply centres,
      Monopoly net worth, where every bankrupt player scores 0 and so shares the last place).
    """
    if "positions" in result:
        places = list(result["positions"])
        if not places or not all(isinstance(p, int) and 1 <= p <= len(places) for p in places):
            raise ValueError(f"bad positions: {places!r}")
        return places
    scores = list(result["scores"])
    winners = set(result.get("winners", ()))
    if not scores:
        raise ValueError("a result without seats")
    if not all(isinstance(w, int) and 0 <= w < len(scores) for w in winners):
        raise ValueError(f"winners {sorted(winners)!r} are not seats of {len(scores)}")
    # Winners share first place whatever their scores (a Diplomacy draw of 10 and 8 centres).
    keys = [(True, 0) if seat in winners else (False, score) for seat, score in enumerate(scores)]
    return [1 + sum(1 for other in keys if other > mine) for mine in keys]


# Games whose rating depends on the number of players: Acquire (and Windward, the same game on
# another server) plays very differently with 2, 3 and 4 or more players, so each has its own
# rating; 4 to 6 players share one ("4+").  E&T (2-4) is rated as one game: its ratings would be
# too thin if split.  Diplomacy always has 7 powers; Monopoly's play barely changes with count.
_SPLIT_BY_PLAYERS = {"acquire": (2, 3, 4), "windward": (2, 3, 4)}


def rating_key(game: str, variant: str | None, player_count: int) -> str:
    """The name of the rating a game counts for: ``game``, ``/variant`` when the game has one,
    and ``/Np`` (``/4+p`` for the largest bucket) for games split by player count."""
    if not game or "/" in game or (variant is not None and "/" in variant):
        raise ValueError(f"bad game or variant: {game!r}, {variant!r}")
    if player_count < 2:
        raise ValueError(f"a rated game has 2 players or more, not {player_count}")
    key = game if not variant else f"{game}/{variant}"
    buckets = _SPLIT_BY_PLAYERS.get(game)
    if buckets is None:
        return key
    if player_count >= buckets[-1]:
        return f"{key}/{buckets[-1]}+p"
    return f"{key}/{player_count}p"


def bot_name(game: str, bot_level: int | str) -> str:
    """The fixed name the hall's bot of ``bot_level`` is rated under in ``game``.  The colon
    keeps it apart from players' names."""
    game, level = str(game), str(bot_level)
    if not game or not level or ":" in game or ":" in level:
        raise ValueError(f"bad game or bot level: {game!r}, {bot_level!r}")
    return f"bot:{game}:{level}"


def rate_game(ratings: dict[str, Rating], seats: list[str], places: list[int]) -> dict[str, Rating]:
    """The new ratings of the players seated in one finished game (only theirs are returned;
    a name missing from ``ratings`` starts at the default).

    Each seat is one player to the model; a name in several seats (two bots of one level) gets
    the mean of its seats' new ratings and counts one game.
    """
    if len(seats) != len(places) or len(seats) < 2:
        raise ValueError(f"{len(seats)} seats and {len(places)} places: a rated game needs 2 or more of each")
    if not all(isinstance(p, int) and p >= 1 for p in places):
        raise ValueError(f"places are 1 or more: {places!r}")
    prior = {name: ratings.get(name, Rating()) for name in seats}
    teams = [[MODEL.rating(mu=prior[name].mu, sigma=prior[name].sigma)] for name in seats]
    rated = MODEL.rate(teams, ranks=list(places))
    new: dict[str, list] = {}
    for name, (player,) in zip(seats, rated):
        new.setdefault(name, []).append(player)
    out = {}
    for name, players in new.items():
        mu = math.fsum(p.mu for p in players) / len(players)
        sigma = math.fsum(p.sigma for p in players) / len(players)
        out[name] = Rating(mu, sigma, prior[name].games + 1)
    return out


def recompute(results: Iterable[tuple[str, list[str], list[int]]]) -> dict[str, dict[str, Rating]]:
    """Every rating from the finished games in the order played: ``(rating key, seats,
    places)`` each; returns rating key -> name -> Rating.  Deterministic, and equal to applying
    ``rate_game`` game by game as they finish."""
    table: dict[str, dict[str, Rating]] = {}
    for key, seats, places in results:
        ratings = table.setdefault(key, {})
        ratings.update(rate_game(ratings, seats, places))
    return table


def player_key(name: str) -> str:
    """The key a player's ratings are kept under: the name as the lobby compares names
    (stripped, NFKC, case-folded), so "Alice" and "ALICE" are one player."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def hall_bot_seat(seat: dict, humans: Iterable[str]) -> bool:
    """A seat the hall's bot played from the start: a bot seat nobody sat in (no
    registration, no address or secret of a human, not among the humans at the start)."""
    return (seat.get("kind") == "bot" and seat.get("registered") is not True
            and seat.get("address") is None and seat.get("secret") is None
            and seat.get("name") not in set(humans))


def rated_game(game: str, variant: str | None, seats: list[dict], result: dict,
               humans: Iterable[str] = ()) -> dict | None:
    """Who a finished game rates, and at what places: ``{"key", "names", "places"}``
    (one entry per seat; a name None is a guest), or None when the game is not rated.

    ``seats`` are the table's stored seats at the end (``Seat.stored()``), ``result`` the
    engine's, ``humans`` the names that sat down as people at the start (``options["humans"]``).

    - A seat with ``"registered": true`` is its registered player, under their name.
    - A seat the hall's bot played from the start is rated as ``bot_name(game, level)``.
    - Any other seat is a guest: in the computation at a fresh default rating (so beating
      a guest counts like beating a newcomer), nothing of theirs kept.
    - A seat whose human left and a bot finished (kind "bot" now, not the hall's bot from
      the start) counts as a resignation: that player places last, shared with every other
      seat so finished, below every seat played to the end, whatever the bot made of the
      seat (leaving can never earn more than playing on).
    - No registered human at the table: not rated (bots alone, guests and bots).
    """
    humans = tuple(humans)
    if len(seats) < 2 or not any(s.get("registered") is True for s in seats):
        return None
    places = places_from_result(result)
    if len(places) != len(seats):
        raise ValueError(f"{len(places)} places for {len(seats)} seats")
    names: list[str | None] = []
    left: list[bool] = []
    for seat in seats:
        if seat.get("registered") is True:
            names.append(seat["name"])
            left.append(seat.get("kind") != "human")
        elif hall_bot_seat(seat, humans):
            names.append(bot_name(game, seat["bot"]))
            left.append(False)
        else:
            names.append(None)
            left.append(seat.get("kind") != "human")
    stayers = [place for place, gone in zip(places, left) if not gone]
    final = [1 + len(stayers) if gone else 1 + sum(1 for other in stayers if other < place)
             for place, gone in zip(places, left)]
    return {"key": rating_key(game, variant, len(seats)), "names": names, "places": final}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def rating_lines(name: str, rows: list[dict]) -> list[str]:
    """A player's ratings (the store's ``player_ratings`` rows) as lines of plain text, for
    the old clients' lobby chat (``/rating NAME``)."""
    if not rows:
        return [f"{name} has no rating yet: ratings count finished games with a registered player."]
    lines = [f"Ratings of {rows[0]['name']} (mean - 3 deviations):"]
    for row in rows:
        places = ", ".join(f"{ordinal(int(p))} {n}" for p, n in
                           sorted(row["places"].items(), key=lambda kv: int(kv[0])))
        day = time.strftime("%Y-%m-%d", time.gmtime(row["last_played"]))
        flag = ", provisional" if row["games"] < PROVISIONAL_GAMES else ""
        lines.append(f"{row['rating_key']}: {row['rating']:.1f} after {row['games']} "
                     f"game{'s' if row['games'] != 1 else ''}{flag}; places {places}; last played {day}")
    return lines
