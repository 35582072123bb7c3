"""The ``IStore`` methods SQLiteStore and PostgresStore run with the same statements, but
for their table names and parameter marks.

The statements are written once, SQLite's way (``?`` marks, names in braces:
``{tables}``, ``{actions}``, ``{results}``, ``{settings}``), and ``_sql`` gives a
store its own (``PREFIX`` before each name, ``PARAM`` for each mark).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Sequence

from twisted.internet.defer import Deferred

from .interface import END_STATES, STATES, StoreError
from .rated import check_rated
from .rating_sql import RatingSQL
from .threaded import ThreadedStore
from .validation import broken_row, check_dict, check_int, check_setting, decoded_or_error, refused, update_changes

_NAMES = ("tables", "actions", "results", "settings")


@lru_cache(maxsize=None)
def _dialect(text: str, prefix: str, param: str) -> str:
    return text.format(**{name: prefix + name for name in _NAMES}).replace("?", param)


class SQLTablesStore(ThreadedStore):
    """``ThreadedStore`` plus the ``IStore`` methods whose SQL both databases share."""

    #: Before each table name.
    PREFIX = ""
    #: A parameter mark.
    PARAM = "?"
    #: Keeps a setting, replacing what was there (parameters: key, value).
    SAVE_SETTING_SQL = ""
    #: After a SELECT of rating rows the transaction updates (PostgreSQL: `` FOR UPDATE``).
    LOCK_ROWS = ""

    @property
    def ratings_sql(self) -> RatingSQL:
        """The ratings' statements in this store's dialect (gamehall.store.rating_sql)."""
        return RatingSQL(self.PREFIX, self.PARAM, self.LOCK_ROWS, self._executemany)

    def _sql(self, text: str) -> str:
        return _dialect(text, self.PREFIX, self.PARAM)

    def _limit(self, limit: int) -> Any:
        """``finished_games``' limit as a LIMIT parameter (negative: no limit)."""
        return limit

    def _live_state(self, conn: Any, table_id: int) -> str:
        row = conn.execute(self._sql("SELECT state FROM {tables} WHERE id = ?"), (table_id,)).fetchone()
        if row is None:
            raise StoreError(f"no table {table_id}")
        if row[0] in END_STATES:
            raise StoreError(f"table {table_id} is {row[0]}")
        return row[0]

    # -- writes --------------------------------------------------------------

    @refused
    def update_table(
        self,
        table_id: int,
        *,
        seats: list[dict] | None = None,
        state: str | None = None,
        options: dict | None = None,
    ) -> Deferred[None]:
        """Change a live table; terminal states go through ``finish_table``."""
        changes = update_changes(seats, state, options)
        changes.append(("updated", self._clock.seconds()))
        sets = ", ".join(f"{column} = ?" for column, _ in changes)
        values = [value for _, value in changes]
        sql = self._sql("UPDATE {tables} SET " + sets + " WHERE id = ?")

        def update(conn: Any) -> None:
            self._live_state(conn, table_id)
            conn.execute(sql, (*values, table_id))

        return self._write(update)

    @refused
    def finish_table(
        self, table_id: int, state: str, result: dict | None, record: dict | None,
        rated: dict | None = None,
    ) -> Deferred[None]:
        """End a live table; a results row is written when a result or record is given;
        ``rated``: the game's ratings are updated in the same transaction."""
        if state not in END_STATES:
            raise StoreError(f"finish_table state must be one of {END_STATES}")
        checked = None
        if rated is not None:
            if state != "finished":
                raise StoreError("only a finished table is rated")
            checked = check_rated(rated)
        result_json = None if result is None else check_dict("result", result)
        record_json = None if record is None else check_dict("record", record)
        now = self._clock.seconds()

        def finish(conn: Any) -> None:
            self._live_state(conn, table_id)
            conn.execute(
                self._sql("UPDATE {tables} SET state = ?, updated = ? WHERE id = ?"),
                (state, now, table_id),
            )
            if result_json is not None or record_json is not None:
                conn.execute(
                    self._sql("INSERT INTO {results} (table_id, result, record, finished)"
                              " VALUES (?, ?, ?, ?)"),
                    (table_id, result_json, record_json, now),
                )
            if checked is not None:
                self.ratings_sql.record(conn, table_id, checked, now)

        return self._write(finish)

    @refused
    def rebuild_ratings(self) -> Deferred[dict]:
        """Recompute every rating from the stored finished games (``RatingSQL.rebuild``)."""
        return self._write(self.ratings_sql.rebuild)

    @refused
    def save_setting(self, key: str, value: dict) -> Deferred[None]:
        """Keep ``value`` under ``key``, replacing what was there."""
        encoded = check_setting(key, value)

        def save(conn: Any) -> None:
            conn.execute(self._sql(self.SAVE_SETTING_SQL), (key, encoded))

        return self._write(save)

    # -- reads ---------------------------------------------------------------

    _TABLE_COLUMNS = "id, game, variant, seed, options, seats, state, created, updated"

    @staticmethod
    def _table_dict(row: Sequence[Any]) -> dict:
        return {
            "id": row[0],
            "game": row[1],
            "variant": row[2],
            "seed": row[3],
            "options": json.loads(row[4]),
            "seats": json.loads(row[5]),
            "state": row[6],
            "created": row[7],
            "updated": row[8],
            "actions": [],
        }

    def load_unfinished(self) -> Deferred[list[dict]]:
        """Every waiting or playing table with its actions, ordered by id (for restart)."""

        def load(conn: Any) -> list[dict]:
            tables = {
                row[0]: decoded_or_error(self._table_dict, row)
                for row in conn.execute(self._sql(
                    f"SELECT {self._TABLE_COLUMNS} FROM {{tables}}"
                    " WHERE state IN ('waiting', 'playing') ORDER BY id"
                ))
            }
            for table_id, seq, seat, action in conn.execute(self._sql(
                "SELECT a.table_id, a.seq, a.seat, a.action FROM {actions} a"
                " JOIN {tables} t ON t.id = a.table_id"
                " WHERE t.state IN ('waiting', 'playing') ORDER BY a.table_id, a.seq"
            )):
                table = tables[table_id]
                if "error" in table:
                    continue
                try:
                    table["actions"].append((seat, json.loads(action)))
                except ValueError as e:
                    tables[table_id] = broken_row(table, f"action {seq} is not JSON ({e})")
            return list(tables.values())

        return self._read(load)

    def load_table(self, table_id: int) -> Deferred[dict | None]:
        """One table in any state with its actions, result and record (for review)."""

        def load(conn: Any) -> dict | None:
            row = conn.execute(
                self._sql(f"SELECT {self._TABLE_COLUMNS} FROM {{tables}} WHERE id = ?"), (table_id,)
            ).fetchone()
            if row is None:
                return None
            table = self._table_dict(row)
            table["actions"] = [
                (seat, json.loads(action))
                for seat, action in conn.execute(
                    self._sql("SELECT seat, action FROM {actions} WHERE table_id = ? ORDER BY seq"),
                    (table_id,),
                )
            ]
            res = conn.execute(
                self._sql("SELECT result, record FROM {results} WHERE table_id = ?"), (table_id,)
            ).fetchone()
            table["result"] = json.loads(res[0]) if res and res[0] is not None else None
            table["record"] = json.loads(res[1]) if res and res[1] is not None else None
            return table

        return self._read(load)

    @refused
    def finished_games(self, game: str | None = None, limit: int = 100) -> Deferred[list[dict]]:
        """Tables in state 'finished' (not aborted), newest first, at most ``limit``
        (a negative limit: all)."""
        check_int("limit", limit)

        def load(conn: Any) -> list[dict]:
            where = "t.state = 'finished'" + (" AND t.game = ?" if game is not None else "")
            params: tuple[Any, ...] = (game,) if game is not None else ()
            rows = conn.execute(
                self._sql("SELECT t.id, t.game, t.variant, t.seats, r.result, t.updated"
                          " FROM {tables} t LEFT JOIN {results} r ON r.table_id = t.id"
                          " WHERE " + where + " ORDER BY t.updated DESC, t.id DESC LIMIT ?"),
                (*params, self._limit(limit)),
            )
            return [
                {
                    "id": row[0],
                    "game": row[1],
                    "variant": row[2],
                    "seats": json.loads(row[3]),
                    "result": json.loads(row[4]) if row[4] is not None else None,
                    "finished": row[5],
                }
                for row in rows
            ]

        return self._read(load)

    def get_record(self, table_id: int) -> Deferred[dict | None]:
        """The record stored by ``finish_table``, or None."""

        def load(conn: Any) -> dict | None:
            row = conn.execute(
                self._sql("SELECT record FROM {results} WHERE table_id = ?"), (table_id,)
            ).fetchone()
            return json.loads(row[0]) if row and row[0] is not None else None

        return self._read(load)

    def stats(self) -> Deferred[dict]:
        """Counts of tables by state (every state present) and of actions."""

        def load(conn: Any) -> dict:
            tables = dict.fromkeys(STATES, 0)
            tables.update(
                (state, int(n)) for state, n in
                conn.execute(self._sql("SELECT state, COUNT(*) FROM {tables} GROUP BY state")))
            actions = conn.execute(self._sql("SELECT COUNT(*) FROM {actions}")).fetchone()[0]
            return {"tables": tables, "actions": int(actions)}

        return self._read(load)

    def load_settings(self) -> Deferred[dict]:
        """Every kept setting, ``{key: value}``."""

        def load(conn: Any) -> dict:
            rows = conn.execute(self._sql("SELECT key, value FROM {settings}")).fetchall()
            return {key: json.loads(value) for key, value in rows}

        return self._read(load)

    # -- ratings (gamehall.store.rating_sql) ---------------------------------

    @refused
    def standings(self, rating_key: str, limit: int = 100, offset: int = 0) -> Deferred[list[dict]]:
        """The players rated under ``rating_key``, best first."""
        check_int("limit", limit)
        check_int("offset", offset)
        return self._read(self.ratings_sql.standings, rating_key, max(limit, 0), max(offset, 0))

    def rating_keys(self) -> Deferred[list[dict]]:
        """Every rating key with rated players, and how many."""
        return self._read(self.ratings_sql.rating_keys)

    def player_ratings(self, name: str) -> Deferred[list[dict]]:
        """A player's rating under every key they have played."""
        return self._read(self.ratings_sql.player_ratings, name)

    @refused
    def rating_history(self, name: str, rating_key: str | None = None, limit: int = 1000) -> Deferred[list[dict]]:
        """A player's rating after each of their last ``limit`` rated games, oldest first."""
        check_int("limit", limit)
        return self._read(self.ratings_sql.rating_history, name, rating_key, max(limit, 0))

    @refused
    def player_games(self, name: str, limit: int = 100) -> Deferred[list[dict]]:
        """A player's last ``limit`` rated games, newest first."""
        check_int("limit", limit)
        return self._read(self.ratings_sql.player_games, name, max(limit, 0))

    @refused
    def head_to_head(self, name: str, other: str, limit: int = 100) -> Deferred[dict]:
        """The rated games of ``name`` with ``other``: wins, losses, ties, the last ones."""
        check_int("limit", limit)
        return self._read(self.ratings_sql.head_to_head, name, other, max(limit, 0))
