"""The ratings' SQL, shared by SQLiteStore, PostgresStore and ``gamehall-store ratings``.

Two tables (names as in SQLite; PostgreSQL's carry the ``gamehall_`` prefix):

- ``ratings``: one row per rating key and player (the player's key, ``player_key``): the
  name as last seated, openskill's ``mu`` and ``sigma``, the conservative ``rating``
  (mu - 3 sigma, a column so that the standings read an index in order), ``games``, the
  ``places`` record (JSON: place -> count) and ``last_played``.
- ``rating_events``: one row per rated seat of a rated game (guests have none): its table,
  seat (a name may sit twice: two bots of one level), rating key, player, place, number of
  players, the rating after the game, the player's games so far, and ``seq``, the order
  games were rated in (a player's history; ``rebuild`` replays ties in it).

Every function takes a DB-API connection already in a transaction (the store's write or
read, or the command line's own).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Callable

from gamehall.ratings import PROVISIONAL_GAMES, Rating, player_key

from .rated import Rated, Standing, rate, rebuilt

_NAMES = ("tables", "results", "ratings", "rating_events")

RATING_COLUMNS = "rating_key, player, name, mu, sigma, rating, games, places, last_played"
EVENT_COLUMNS = ("table_id, seat, rating_key, player, name, place, players, mu, sigma, games,"
                  " seq, finished")


@lru_cache(maxsize=None)
def _dialect(text: str, prefix: str, param: str) -> str:
    return text.format(**{name: prefix + name for name in _NAMES}).replace("?", param)


def _marks(n: int) -> str:
    return ", ".join("?" * n)


class RatingSQL:
    """The ratings' statements for one database: ``prefix`` before table names, ``param``
    for a parameter mark, ``lock`` after a SELECT whose rows the transaction will update
    (PostgreSQL's `` FOR UPDATE``: two halls finishing games of one player at once
    would otherwise both read the same rating and one update would be lost)."""

    def __init__(self, prefix: str = "", param: str = "?", lock: str = "",
                 executemany: Callable[[Any, str, list], None] | None = None) -> None:
        self.prefix, self.param, self.lock = prefix, param, lock
        self._executemany = executemany or (lambda conn, sql, rows: conn.executemany(sql, rows))

    def sql(self, text: str) -> str:
        return _dialect(text, self.prefix, self.param)

    # -- the write of a game's end -----------------------------------------------

    def record(self, conn: Any, table_id: int, rated: Rated, now: float) -> None:
        """Rate one finished game: read the named players' ratings (locked), write the new
        ones and the game's events."""
        players = rated.players
        # A row for each player first, so that a newcomer's row exists to be locked: two
        # halls rating a newcomer's first two games at once then take turns.
        self._executemany(conn, self.sql(
            f"INSERT INTO {{ratings}} ({RATING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, 0, '{{{{}}}}', ?)"
            " ON CONFLICT DO NOTHING"),
            [(rated.key, p, p, Rating().mu, Rating().sigma, Rating().display, now) for p in players])
        current = {
            player: Standing(name, Rating(mu, sigma, games), json.loads(places))
            for player, name, mu, sigma, games, places in conn.execute(self.sql(
                "SELECT player, name, mu, sigma, games, places FROM {ratings}"
                f" WHERE rating_key = ? AND player IN ({_marks(len(players))})"
                " ORDER BY player" + self.lock), (rated.key, *players)).fetchall()
        }
        rows, events = rate(rated, current, now)
        seq = conn.execute(self.sql("SELECT COALESCE(MAX(seq), 0) + 1 FROM {rating_events}")).fetchone()[0]
        self._executemany(conn, self.sql(
            "UPDATE {ratings} SET name = ?, mu = ?, sigma = ?, rating = ?, games = ?, places = ?,"
            " last_played = ? WHERE rating_key = ? AND player = ?"),
            [(*row[1:], rated.key, row[0]) for row in rows])
        self._executemany(conn, self.sql(
            f"INSERT INTO {{rating_events}} ({EVENT_COLUMNS}) VALUES ({_marks(12)})"),
            [(table_id, seat, rated.key, player, name, place, n, mu, sigma, games, seq, now)
             for seat, player, name, place, n, mu, sigma, games in events])

    # -- reads ---------------------------------------------------------------

    def standings(self, conn: Any, rating_key: str, limit: int = 100, offset: int = 0) -> list[dict]:
        rows = conn.execute(self.sql(
            f"SELECT {RATING_COLUMNS} FROM {{ratings}} WHERE rating_key = ? AND games > 0"
            " ORDER BY rating DESC, player LIMIT ? OFFSET ?"), (rating_key, limit, offset)).fetchall()
        return [dict(_rating_dict(row), rank=offset + i + 1) for i, row in enumerate(rows)]

    def rating_keys(self, conn: Any) -> list[dict]:
        return [{"key": key, "players": int(n)} for key, n in conn.execute(self.sql(
            "SELECT rating_key, COUNT(*) FROM {ratings} WHERE games > 0"
            " GROUP BY rating_key ORDER BY rating_key")).fetchall()]

    def player_ratings(self, conn: Any, name: str) -> list[dict]:
        return [_rating_dict(row) for row in conn.execute(self.sql(
            f"SELECT {RATING_COLUMNS} FROM {{ratings}} WHERE player = ? AND games > 0"
            " ORDER BY rating_key"), (player_key(name),)).fetchall()]

    def rating_history(self, conn: Any, name: str, rating_key: str | None = None,
                       limit: int = 1000) -> list[dict]:
        where, params = "player = ?", [player_key(name)]
        if rating_key is not None:
            where, params = where + " AND rating_key = ?", params + [rating_key]
        rows = conn.execute(self.sql(
            "SELECT table_id, rating_key, place, players, mu, sigma, games, finished"
            " FROM {rating_events} WHERE " + where + " ORDER BY seq DESC, seat LIMIT ?"),
            (*params, limit)).fetchall()
        out, seen = [], set()
        for table_id, key, place, players, mu, sigma, games, finished in rows:
            if table_id in seen:
                continue    # a second seat of the same game (a bot level twice): one game
            seen.add(table_id)
            out.append({"table_id": table_id, "rating_key": key, "place": place, "players": players,
                        "mu": mu, "sigma": sigma, "rating": mu - 3.0 * sigma, "games": games,
                        "finished": finished})
        out.reverse()
        return out

    def player_games(self, conn: Any, name: str, limit: int = 100) -> list[dict]:
        """The player's last ``limit`` rated games, newest first."""
        return list(reversed(self.rating_history(conn, name, None, limit)))

    def head_to_head(self, conn: Any, name: str, other: str, limit: int = 100) -> dict:
        """The rated games ``name`` and ``other`` played together: how often ``name``
        placed better, worse, equal, and the last ``limit`` of them, newest first."""
        rows = conn.execute(self.sql(
            "SELECT a.table_id, a.rating_key, MIN(a.place), MIN(b.place), a.finished, a.seq"
            " FROM {rating_events} a JOIN {rating_events} b ON b.table_id = a.table_id AND b.player = ?"
            " WHERE a.player = ? GROUP BY a.table_id, a.rating_key, a.finished, a.seq"
            " ORDER BY a.seq DESC"), (player_key(other), player_key(name))).fetchall()
        wins = sum(1 for r in rows if r[2] < r[3])
        losses = sum(1 for r in rows if r[2] > r[3])
        return {
            "games": len(rows), "wins": wins, "losses": losses, "ties": len(rows) - wins - losses,
            "last": [{"table_id": r[0], "rating_key": r[1], "place": r[2], "other_place": r[3],
                      "finished": r[4]} for r in rows[:limit]],
        }

    # -- rebuild -------------------------------------------------------------

    def rebuild(self, conn: Any) -> dict:
        """Recompute every rating from the stored finished games (their seats, options and
        results, through the same ``rated_game`` as the hall), replacing both tables.
        Games are replayed in the order they finished (ties: the order they were rated in,
        then table id), so the result is deterministic and, for games rated live, equal to
        the live ratings.  Returns counts: games rated, games skipped (a result the rules
        cannot place), ratings kept."""
        seqs = dict(conn.execute(self.sql(
            "SELECT table_id, MIN(seq) FROM {rating_events} GROUP BY table_id")).fetchall())
        games = conn.execute(self.sql(
            "SELECT t.id, t.game, t.variant, t.seats, t.options, r.result, r.finished"
            " FROM {tables} t JOIN {results} r ON r.table_id = t.id"
            " WHERE t.state = 'finished' AND r.result IS NOT NULL")).fetchall()
        rows, events, counts = rebuilt(games, seqs)
        conn.execute(self.sql("DELETE FROM {rating_events}"))
        conn.execute(self.sql("DELETE FROM {ratings}"))
        self._executemany(conn, self.sql(f"INSERT INTO {{ratings}} ({RATING_COLUMNS}) VALUES ({_marks(9)})"), rows)
        self._executemany(conn, self.sql(f"INSERT INTO {{rating_events}} ({EVENT_COLUMNS}) VALUES ({_marks(12)})"),
                          events)
        return counts


def _rating_dict(row: Any) -> dict:
    key, player, name, mu, sigma, rating, games, places, last_played = row
    return {"rating_key": key, "player": player, "name": name, "mu": mu, "sigma": sigma,
            "rating": rating, "games": games, "provisional": games < PROVISIONAL_GAMES,
            "places": json.loads(places), "last_played": last_played}
