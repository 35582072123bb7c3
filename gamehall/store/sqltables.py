"""The ``IStore`` methods SQLiteStore and PostgresStore run with the same statements, but
for their table names and parameter marks.

The statements are written once, SQLite's way (``?`` marks, names in braces:
``{tables}``, ``{actions}``, ``{results}``, ``{settings}``, ``{players}``,
``{player_keys}``), and ``_sql`` gives a
store its own (``PREFIX`` before each name, ``PARAM`` for each mark).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Sequence

from twisted.internet.defer import Deferred

from .interface import END_STATES, STATES, StoreError
from .leases import StoreFenced
from .rated import check_finish
from .rating_sql import RatingSQL
from .threaded import ThreadedStore
from .validation import (
    broken_row, check_dict, check_epoch, check_int, check_label, check_lease, check_leases, check_owner_ttl, check_seats,
    check_setting, check_text, decoded_or_error, refused, update_changes,
)

_NAMES = ("tables", "actions", "results", "settings", "players", "player_keys")


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
    #: After the SELECT of a table row a fenced write checks: lock the row until the commit
    #: (PostgreSQL: a lease taken meanwhile waits for the write, or the write sees it).
    LOCK_ROW = ""
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

    def _live_state(self, conn: Any, table_id: int, epoch: int | None = None) -> str:
        """The state of a live table; refused when it is not live, or (``epoch`` given)
        with ``StoreFenced`` when it no longer carries that lease epoch."""
        if epoch is None:
            row = conn.execute(self._sql("SELECT state FROM {tables} WHERE id = ?"), (table_id,)).fetchone()
        else:
            row = conn.execute(self._sql("SELECT state, lease_epoch FROM {tables} WHERE id = ?"
                                         + self.LOCK_ROW), (table_id,)).fetchone()
            if row is not None and row[1] != epoch:
                raise StoreFenced(table_id)
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
        epoch: int | None = None,
    ) -> Deferred[None]:
        """Change a live table; terminal states go through ``finish_table``."""
        check_epoch(epoch)
        changes = update_changes(seats, state, options)
        changes.append(("updated", self._clock.seconds()))
        sets = ", ".join(f"{column} = ?" for column, _ in changes)
        values = [value for _, value in changes]
        sql = self._sql("UPDATE {tables} SET " + sets + " WHERE id = ?")

        def update(conn: Any) -> None:
            self._live_state(conn, table_id, epoch)
            conn.execute(sql, (*values, table_id))

        return self._write(update)

    @refused
    def finish_table(
        self, table_id: int, state: str, result: dict | None, record: dict | None,
        rated: dict | None = None,
        epoch: int | None = None,
    ) -> Deferred[None]:
        """End a live table; a results row is written when a result or record is given;
        ``rated``: the game's ratings are updated in the same transaction."""
        result_json, record_json, checked = check_finish(state, result, record, rated, epoch)
        now = self._clock.seconds()

        def finish(conn: Any) -> None:
            self._live_state(conn, table_id, epoch)
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

    # -- leases (ILeaseStore) -------------------------------------------------
    #
    # "Now" for a lease is ``_lease_now()``: SQL and its parameters, the database's clock
    # where it has one.  It is computed once per statement, in a one-row subquery (``n.at``).

    def _lease_now(self) -> tuple[str, tuple]:
        """The time leases are judged by: an SQL expression and its parameters."""
        return "?", (self._clock.seconds(),)

    @refused
    def take_lease(self, table_id: int, owner: str, ttl: float) -> Deferred[int | None]:
        """The table's lease for ``owner``: its epoch, or None if another holds it
        (one UPDATE: two processes racing for it cannot both win)."""
        check_int("table_id", table_id)
        ttl = check_owner_ttl(owner, ttl)
        now, now_params = self._lease_now()
        sql = self._sql(
            "UPDATE {tables} SET lease_epoch = CASE WHEN lease_owner = ? AND lease_expires > n.at"
            " THEN lease_epoch ELSE lease_epoch + 1 END, lease_owner = ?, lease_expires = n.at + ?"
            " FROM (SELECT " + now + " AS at) AS n"
            " WHERE id = ? AND state IN ('waiting', 'playing')"
            " AND (lease_owner IS NULL OR lease_expires <= n.at OR lease_owner = ?)"
            " RETURNING lease_epoch")

        def take(conn: Any) -> int | None:
            row = conn.execute(sql, (owner, owner, ttl, *now_params, table_id, owner)).fetchone()
            return None if row is None else int(row[0])

        return self._write(take)

    def _renew_sql(self, now: str) -> str:
        """``renew_leases``' one statement; parameters: ttl, now's, leases
        (``_lease_rows``), owner; returns the renewed ids."""
        raise NotImplementedError

    def _lease_rows(self, leases: dict[int, int]) -> tuple:
        """``{table_id: epoch}`` as ``_renew_sql``'s parameters."""
        raise NotImplementedError

    @refused
    def renew_leases(self, owner: str, leases: dict[int, int], ttl: float) -> Deferred[list[int]]:
        """Extend the leases ``owner`` still holds at their epochs (one statement for all);
        fires with their ids, ascending."""
        ttl = check_owner_ttl(owner, ttl)
        check_leases(leases)
        if not leases:
            return self._write(lambda conn: [])
        now, now_params = self._lease_now()
        sql = self._sql(self._renew_sql(now))
        params = (ttl, *now_params, *self._lease_rows(leases), owner)

        def renew(conn: Any) -> list[int]:
            return sorted(int(row[0]) for row in conn.execute(sql, params).fetchall())

        return self._write(renew)

    @refused
    def release_lease(self, table_id: int, owner: str, epoch: int) -> Deferred[bool]:
        """Free the lease ``owner`` holds at ``epoch``; True if it did."""
        check_int("table_id", table_id)
        check_int("epoch", epoch)
        sql = self._sql("UPDATE {tables} SET lease_owner = NULL, lease_expires = NULL"
                        " WHERE id = ? AND lease_owner = ? AND lease_epoch = ?")

        def release(conn: Any) -> bool:
            return conn.execute(sql, (table_id, owner, epoch)).rowcount == 1

        return self._write(release)

    @refused
    def lapsed_tables(self, limit: int = 100) -> Deferred[list[int]]:
        """Live tables whose lease is free or expired, ascending, at most ``limit`` (a
        plain read: it takes no lock)."""
        check_int("limit", limit)
        now, now_params = self._lease_now()
        sql = self._sql(
            "SELECT id FROM {tables}, (SELECT " + now + " AS at) AS n"
            " WHERE state IN ('waiting', 'playing')"
            " AND (lease_owner IS NULL OR lease_expires <= n.at) ORDER BY id LIMIT ?")

        def load(conn: Any) -> list[int]:
            return [int(row[0]) for row in conn.execute(sql, (*now_params, max(limit, 0)))]

        return self._read(load)

    def _append_expected(self, conn: Any, table_id: int, seq: int, seat: int, encoded: str,
                         epoch: int | None) -> int | None:
        """Why action ``seq`` may or may not be appended, the same in both databases: None
        when the very same action is stored as ``seq`` already (a retried write that did
        commit); else the seq expected next, which ``seq`` is; StoreError (StoreFenced for
        another epoch) saying why not otherwise."""
        row = conn.execute(self._sql(
            "SELECT state, (SELECT MAX(seq) FROM {actions} WHERE table_id = ?), lease_epoch"
            " FROM {tables} WHERE id = ?"), (table_id, table_id)).fetchone()
        if row is None:
            raise StoreError(f"no table {table_id}")
        if epoch is not None and row[2] != epoch:
            raise StoreFenced(table_id)
        if row[0] in END_STATES:
            raise StoreError(f"table {table_id} is {row[0]}")
        expected = 0 if row[1] is None else row[1] + 1
        if seq < expected:
            stored = conn.execute(self._sql("SELECT seat, action FROM {actions} WHERE table_id = ? AND seq = ?"),
                                  (table_id, seq)).fetchone()
            if stored is not None and tuple(stored) == (seat, encoded):
                return None
        if seq != expected:
            raise StoreError(f"table {table_id}: action seq {seq} refused, expected {expected}")
        return expected

    def _new_table(self, game: str, variant: str, seed: int, seats: list[dict], options: dict,
                   table_id: int | None, lease: tuple[str, float] | None) -> tuple[tuple, float, str, tuple]:
        """``create_table``'s arguments checked, the same in both databases: the row's
        (game, variant, seed, options, seats), the time, and the lease columns' SQL and
        parameters (``_lease_values``)."""
        check_int("seed", seed)
        if table_id is not None:
            check_int("table_id", table_id)
        row = (game, variant, seed, check_dict("options", options), check_seats(seats))
        return (row, self._clock.seconds(), *self._lease_values(lease))

    def _lease_values(self, lease: tuple[str, float] | None) -> tuple[str, tuple]:
        """A new table's lease columns ``lease_owner, lease_epoch, lease_expires``: SQL
        for their VALUES and its parameters (``create_table``'s ``lease``)."""
        if lease is None:
            return "NULL, 0, NULL", ()
        owner, ttl = check_lease(lease)
        now, now_params = self._lease_now()
        return f"?, 1, ({now}) + ?", (owner, *now_params, ttl)

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


class SQLPlayersMixin:
    """``IPlayerStore`` in SQL both databases share (tables ``players`` and ``player_keys``)."""

    @refused
    def register_player(self, name: str, name_key: str, password_hash: str) -> Deferred[float]:
        for arg, value in (("name", name), ("name_key", name_key), ("password_hash", password_hash)):
            check_text(arg, value)
        now = self._clock.seconds()

        def insert(conn: Any) -> float:
            if conn.execute(self._sql("SELECT 1 FROM {players} WHERE name_key = ?"), (name_key,)).fetchone():
                raise StoreError(f"the name {name!r} is registered already")
            conn.execute(self._sql("INSERT INTO {players} (name_key, name, password_hash, created, updated)"
                                   " VALUES (?, ?, ?, ?, ?)"), (name_key, name, password_hash, now, now))
            return now

        return self._write(insert)

    def load_players(self) -> Deferred[list[dict]]:
        def load(conn: Any) -> list[dict]:
            players = {
                row[0]: {"name_key": row[0], "name": row[1], "password_hash": row[2], "created": row[3],
                         "updated": row[4], "keys": []}
                for row in conn.execute(self._sql(
                    "SELECT name_key, name, password_hash, created, updated FROM {players} ORDER BY name_key"))
            }
            for row in conn.execute(self._sql(
                    "SELECT name_key, key_hash, label, created, last_used, revoked FROM {player_keys}"
                    " ORDER BY created, key_hash")):
                player = players.get(row[0])
                if player is not None:
                    player["keys"].append({"key_hash": row[1], "label": row[2], "created": row[3],
                                           "last_used": row[4], "revoked": row[5]})
            return list(players.values())

        return self._read(load)

    def _player_write(self, name_key: str, statement: str, params: tuple) -> Deferred[None]:
        check_text("name_key", name_key)

        def write(conn: Any) -> None:
            if not conn.execute(self._sql("SELECT 1 FROM {players} WHERE name_key = ?"), (name_key,)).fetchone():
                raise StoreError(f"no registered name {name_key!r}")
            conn.execute(self._sql(statement), params)

        return self._write(write)

    @refused
    def set_password(self, name_key: str, password_hash: str) -> Deferred[None]:
        check_text("password_hash", password_hash)
        return self._player_write(name_key, "UPDATE {players} SET password_hash = ?, updated = ? WHERE name_key = ?",
                                  (password_hash, self._clock.seconds(), name_key))

    @refused
    def add_key(self, name_key: str, key_hash: str, label: str | None) -> Deferred[float]:
        check_text("key_hash", key_hash)
        check_label(label)
        check_text("name_key", name_key)
        now = self._clock.seconds()

        def insert(conn: Any) -> float:
            if not conn.execute(self._sql("SELECT 1 FROM {players} WHERE name_key = ?"), (name_key,)).fetchone():
                raise StoreError(f"no registered name {name_key!r}")
            if conn.execute(self._sql("SELECT 1 FROM {player_keys} WHERE key_hash = ?"), (key_hash,)).fetchone():
                raise StoreError("that key is kept already")
            conn.execute(self._sql("INSERT INTO {player_keys} (key_hash, name_key, label, created)"
                                   " VALUES (?, ?, ?, ?)"), (key_hash, name_key, label, now))
            return now

        return self._write(insert)

    @refused
    def key_used(self, key_hash: str, when: float) -> Deferred[None]:
        check_text("key_hash", key_hash)

        def update(conn: Any) -> None:
            conn.execute(self._sql("UPDATE {player_keys} SET last_used = ? WHERE key_hash = ?"),
                         (float(when), key_hash))

        return self._write(update)

    @refused
    def revoke_key(self, name_key: str, key_hash: str) -> Deferred[float]:
        check_text("name_key", name_key)
        check_text("key_hash", key_hash)
        now = self._clock.seconds()

        def revoke(conn: Any) -> float:
            row = conn.execute(self._sql("SELECT revoked FROM {player_keys} WHERE key_hash = ? AND name_key = ?"),
                               (key_hash, name_key)).fetchone()
            if row is None or row[0] is not None:
                raise StoreError("no such live key for that name")
            conn.execute(self._sql("UPDATE {player_keys} SET revoked = ? WHERE key_hash = ?"), (now, key_hash))
            return now

        return self._write(revoke)

    @refused
    def reset_player(self, name_key: str) -> Deferred[bool]:
        check_text("name_key", name_key)

        def reset(conn: Any) -> bool:
            conn.execute(self._sql("DELETE FROM {player_keys} WHERE name_key = ?"), (name_key,))
            cur = conn.execute(self._sql("DELETE FROM {players} WHERE name_key = ?"), (name_key,))
            return cur.rowcount > 0

        return self._write(reset)


#: The two tables, in the SQL both databases take (``_dialect`` names them).
PLAYER_TABLES = (
    """CREATE TABLE {players} (
        name_key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        created REAL NOT NULL,
        updated REAL NOT NULL)""",
    """CREATE TABLE {player_keys} (
        key_hash TEXT PRIMARY KEY,
        name_key TEXT NOT NULL,
        label TEXT,
        created REAL NOT NULL,
        last_used REAL,
        revoked REAL)""",
    "CREATE INDEX {player_keys}_name_key ON {player_keys} (name_key)",
)


def player_tables(prefix: str, real: str = "REAL") -> tuple[str, ...]:
    """PLAYER_TABLES with ``prefix`` before each table name and ``real`` for REAL (PostgreSQL's
    REAL is 4 bytes, too few for a time in seconds: it takes DOUBLE PRECISION)."""
    return tuple(_dialect(sql, prefix, "?").replace(" REAL", " " + real) for sql in PLAYER_TABLES)
