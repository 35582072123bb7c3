"""``IStore`` in memory, for hall unit tests."""
from __future__ import annotations

import json
from typing import Any

from twisted.internet.defer import Deferred, fail, succeed
from twisted.internet.interfaces import IReactorTime
from zope.interface import implementer

from gamehall.ratings import PROVISIONAL_GAMES, Rating, player_key

from .interface import END_STATES, LIVE_STATES, STATES, IPlayerStore, IStore, StoreError
from .leases import ILeaseStore, StoreFenced
from .rated import Standing, check_finish, rate, rebuilt
from .validation import (
    check_dict, check_epoch, check_int, check_label, check_lease, check_leases, check_owner_ttl, check_seats,
    check_setting, check_text, decoded_or_error, refused, update_changes,
)


@implementer(IStore, IPlayerStore, ILeaseStore)
class MemoryStore:
    """``IStore`` and ``ILeaseStore`` in memory, for hall unit tests: every Deferred has
    already fired.  Leases expire by ``clock``.

    It refuses exactly what ``SQLiteStore`` refuses and stores JSON text, so
    callers see the same decoded, fresh values.  Data survives ``close()`` and
    a later ``open()`` of the same instance, like a file would.
    """

    def __init__(self, clock: IReactorTime | None = None) -> None:
        if clock is None:
            from twisted.internet import reactor as clock  # type: ignore[assignment]
        self._clock = clock
        self._open = False
        self._next_id = 1
        self._tables: dict[int, dict[str, Any]] = {}
        self._actions: dict[int, list[tuple[int, str]]] = {}
        self._results: dict[int, tuple[str | None, str | None, float]] = {}
        self._settings: dict[str, str] = {}
        self._players: dict[str, dict[str, Any]] = {}     # name_key -> players row
        self._keys: dict[str, dict[str, Any]] = {}        # key_hash -> player_keys row
        # (rating key, player) -> (name, mu, sigma, rating, games, places JSON, last played)
        self._ratings: dict[tuple[str, str], tuple] = {}
        # (table_id, seat, rating_key, player, name, place, players, mu, sigma, games, seq,
        # finished), in the order rated
        self._rating_events: list[tuple] = []

    def _check_open(self) -> None:
        if not self._open:
            raise StoreError("store is not open")

    def _live(self, table_id: int, epoch: int | None = None) -> dict[str, Any]:
        row = self._tables.get(table_id)
        if row is None:
            raise StoreError(f"no table {table_id}")
        if epoch is not None and row["lease_epoch"] != epoch:
            raise StoreFenced(table_id)
        if row["state"] in END_STATES:
            raise StoreError(f"table {table_id} is {row['state']}")
        return row

    @staticmethod
    def _decoded(row: dict[str, Any], actions: list[tuple[int, str]]) -> dict:
        return {
            "id": row["id"],
            "game": row["game"],
            "variant": row["variant"],
            "seed": row["seed"],
            "options": json.loads(row["options"]),
            "seats": json.loads(row["seats"]),
            "state": row["state"],
            "created": row["created"],
            "updated": row["updated"],
            "actions": [(seat, json.loads(action)) for seat, action in actions],
        }

    def open(self) -> Deferred[None]:
        """Make the store usable."""
        if self._open:
            return fail(StoreError("store is already open"))
        self._open = True
        return succeed(None)

    def close(self) -> Deferred[None]:
        """Make the store unusable until ``open()``; the data stays."""
        self._open = False
        return succeed(None)

    @refused
    def create_table(
        self, game: str, variant: str, seed: int, seats: list[dict], options: dict,
        table_id: int | None = None, lease: tuple[str, float] | None = None,
    ) -> Deferred[int]:
        """Record a new table in state 'waiting'; fires with its id (``table_id`` if free),
        with its lease held at epoch 1 when ``lease=(owner, ttl)``."""
        self._check_open()
        check_int("seed", seed)
        ttl = None if lease is None else check_lease(lease)[1]
        if table_id is not None:
            check_int("table_id", table_id)
        options_json = check_dict("options", options)
        seats_json = check_seats(seats)
        now = self._clock.seconds()
        if table_id is None or table_id < 1 or table_id in self._tables:
            table_id = self._next_id
        self._next_id = max(self._next_id, table_id + 1)
        self._tables[table_id] = {
            "id": table_id, "game": game, "variant": variant, "seed": seed,
            "options": options_json, "seats": seats_json, "state": "waiting",
            "created": now, "updated": now,
            "lease_owner": None if lease is None else lease[0],
            "lease_epoch": 0 if lease is None else 1,
            "lease_expires": None if ttl is None else now + ttl,
        }
        self._actions[table_id] = []
        return succeed(table_id)

    def last_table_id(self) -> Deferred[int]:
        self._check_open()
        return succeed(self._next_id - 1)

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
        self._check_open()
        check_epoch(epoch)
        changes: dict[str, Any] = dict(update_changes(seats, state, options))
        changes["updated"] = self._clock.seconds()
        self._live(table_id, epoch).update(changes)
        return succeed(None)

    @refused
    def append_action(
        self, table_id: int, seq: int, seat: int, action: dict, epoch: int | None = None
    ) -> Deferred[None]:
        """Append action ``seq``; a gap or a duplicate is refused."""
        self._check_open()
        check_epoch(epoch)
        check_int("seq", seq)
        check_int("seat", seat)
        encoded = check_dict("action", action)
        now = self._clock.seconds()
        row = self._live(table_id, epoch)
        actions = self._actions[table_id]
        if 0 <= seq < len(actions) and actions[seq] == (seat, encoded):
            return succeed(None)  # already there: a retry of a write that did commit
        if seq != len(actions):
            raise StoreError(
                f"table {table_id}: action seq {seq} refused, expected {len(actions)}"
            )
        actions.append((seat, encoded))
        row["updated"] = now
        return succeed(None)

    @refused
    def finish_table(
        self, table_id: int, state: str, result: dict | None, record: dict | None,
        rated: dict | None = None,
        epoch: int | None = None,
    ) -> Deferred[None]:
        """End a live table, keeping its result and record; ``rated``: its ratings with it."""
        self._check_open()
        result_json, record_json, checked = check_finish(state, result, record, rated, epoch)
        now = self._clock.seconds()
        row = self._live(table_id, epoch)
        # Everything is computed before anything changes: a failure leaves no half behind.
        ratings, events = ({}, []) if checked is None else self._rated_rows(table_id, checked, now)
        self._commit_ratings(ratings, events)
        row["state"] = state
        row["updated"] = now
        if result_json is not None or record_json is not None:
            self._results[table_id] = (result_json, record_json, now)
        return succeed(None)

    def _rated_rows(self, table_id: int, checked, now: float) -> tuple[dict, list]:
        current = {}
        for player in checked.players:
            kept = self._ratings.get((checked.key, player))
            if kept is not None:
                name, mu, sigma, _, games, places, _ = kept
                current[player] = Standing(name, Rating(mu, sigma, games), json.loads(places))
        rows, events = rate(checked, current, now)
        seq = 1 + max((e[10] for e in self._rating_events), default=0)
        return ({(checked.key, r[0]): r[1:] for r in rows},
                [(table_id, seat, checked.key, *rest, seq, now) for seat, *rest in events])

    def _commit_ratings(self, ratings: dict, events: list) -> None:
        """The one step that changes the ratings (tests break it to check atomicity)."""
        self._ratings.update(ratings)
        self._rating_events.extend(events)

    @refused
    def rebuild_ratings(self) -> Deferred[dict]:
        """Recompute every rating from the stored finished games."""
        self._check_open()
        seqs: dict[int, int] = {}
        for event in self._rating_events:
            seqs.setdefault(event[0], event[10])
        games = [(tid, row["game"], row["variant"], row["seats"], row["options"],
                  self._results[tid][0], self._results[tid][2])
                 for tid, row in self._tables.items()
                 if row["state"] == "finished" and tid in self._results and self._results[tid][0] is not None]
        rows, events, counts = rebuilt(games, seqs)
        self._ratings = {(r[0], r[1]): r[2:] for r in rows}
        self._rating_events = list(events)
        return succeed(counts)

    # -- ratings' reads (as gamehall.store.rating_sql's) ---------------------

    def _rating_dict(self, key: tuple[str, str]) -> dict:
        name, mu, sigma, rating, games, places, last = self._ratings[key]
        return {"rating_key": key[0], "player": key[1], "name": name, "mu": mu, "sigma": sigma,
                "rating": rating, "games": games, "provisional": games < PROVISIONAL_GAMES,
                "places": json.loads(places), "last_played": last}

    @refused
    def standings(self, rating_key: str, limit: int = 100, offset: int = 0) -> Deferred[list[dict]]:
        """The players rated under ``rating_key``, best first."""
        self._check_open()
        check_int("limit", limit)
        check_int("offset", offset)
        offset, limit = max(offset, 0), max(limit, 0)
        keys = sorted((k for k, v in self._ratings.items() if k[0] == rating_key and v[4] > 0),
                      key=lambda k: (-self._ratings[k][3], k[1]))
        return succeed([dict(self._rating_dict(k), rank=offset + i + 1)
                        for i, k in enumerate(keys[offset:offset + limit])])

    @refused
    def rating_keys(self) -> Deferred[list[dict]]:
        """Every rating key with rated players, and how many."""
        self._check_open()
        counts: dict[str, int] = {}
        for (key, _), row in self._ratings.items():
            if row[4] > 0:
                counts[key] = counts.get(key, 0) + 1
        return succeed([{"key": k, "players": n} for k, n in sorted(counts.items())])

    @refused
    def player_ratings(self, name: str) -> Deferred[list[dict]]:
        """A player's rating under every key they have played."""
        self._check_open()
        player = player_key(name)
        return succeed([self._rating_dict(k) for k in sorted(self._ratings)
                        if k[1] == player and self._ratings[k][4] > 0])

    @refused
    def rating_history(self, name: str, rating_key: str | None = None, limit: int = 1000) -> Deferred[list[dict]]:
        """A player's rating after each of their last ``limit`` rated games, oldest first."""
        self._check_open()
        check_int("limit", limit)
        return succeed(self._history(name, rating_key, max(limit, 0)))

    def _history(self, name: str, rating_key: str | None, limit: int) -> list[dict]:
        player = player_key(name)
        out, seen = [], set()
        for e in sorted(self._rating_events, key=lambda e: (-e[10], e[1])):
            if e[3] != player or (rating_key is not None and e[2] != rating_key) or e[0] in seen:
                continue
            if len(seen) == limit:
                break
            seen.add(e[0])
            out.append({"table_id": e[0], "rating_key": e[2], "place": e[5], "players": e[6],
                        "mu": e[7], "sigma": e[8], "rating": e[7] - 3.0 * e[8], "games": e[9],
                        "finished": e[11]})
        out.reverse()
        return out

    @refused
    def player_games(self, name: str, limit: int = 100) -> Deferred[list[dict]]:
        """A player's last ``limit`` rated games, newest first."""
        self._check_open()
        check_int("limit", limit)
        return succeed(list(reversed(self._history(name, None, max(limit, 0)))))

    @refused
    def head_to_head(self, name: str, other: str, limit: int = 100) -> Deferred[dict]:
        """The rated games of ``name`` with ``other``: wins, losses, ties, the last ones."""
        self._check_open()
        check_int("limit", limit)
        me, them = player_key(name), player_key(other)
        games: dict[int, list] = {}
        for e in self._rating_events:
            if e[3] in (me, them):
                g = games.setdefault(e[0], [e[2], None, None, e[11], e[10]])
                i = 1 if e[3] == me else 2
                g[i] = e[5] if g[i] is None else min(g[i], e[5])
        rows = sorted(((tid, *g) for tid, g in games.items() if g[1] is not None and g[2] is not None),
                      key=lambda r: -r[5])
        wins = sum(1 for r in rows if r[2] < r[3])
        losses = sum(1 for r in rows if r[2] > r[3])
        return succeed({
            "games": len(rows), "wins": wins, "losses": losses, "ties": len(rows) - wins - losses,
            "last": [{"table_id": r[0], "rating_key": r[1], "place": r[2], "other_place": r[3],
                      "finished": r[4]} for r in rows[:max(limit, 0)]],
        })

    @refused
    def load_unfinished(self) -> Deferred[list[dict]]:
        """Every waiting or playing table with its actions, ordered by id."""
        self._check_open()
        return succeed(
            [
                decoded_or_error(lambda r: self._decoded(r, self._actions[r["id"]]), row)
                for _, row in sorted(self._tables.items())
                if row["state"] in LIVE_STATES
            ]
        )

    @refused
    def load_table(self, table_id: int) -> Deferred[dict | None]:
        """One table in any state with its actions, result and record."""
        self._check_open()
        row = self._tables.get(table_id)
        if row is None:
            return succeed(None)
        table = self._decoded(row, self._actions[table_id])
        result, record, _ = self._results.get(table_id, (None, None, 0.0))
        table["result"] = None if result is None else json.loads(result)
        table["record"] = None if record is None else json.loads(record)
        return succeed(table)

    @refused
    def finished_games(self, game: str | None = None, limit: int = 100) -> Deferred[list[dict]]:
        """Tables in state 'finished', newest first, at most ``limit``."""
        self._check_open()
        check_int("limit", limit)
        rows = [
            row
            for row in self._tables.values()
            if row["state"] == "finished" and (game is None or row["game"] == game)
        ]
        rows.sort(key=lambda row: (row["updated"], row["id"]), reverse=True)
        if limit >= 0:
            rows = rows[:limit]
        out = []
        for row in rows:
            result = self._results.get(row["id"], (None, None, 0.0))[0]
            out.append(
                {
                    "id": row["id"],
                    "game": row["game"],
                    "variant": row["variant"],
                    "seats": json.loads(row["seats"]),
                    "result": None if result is None else json.loads(result),
                    "finished": row["updated"],
                }
            )
        return succeed(out)

    @refused
    def get_record(self, table_id: int) -> Deferred[dict | None]:
        """The record stored by ``finish_table``, or None."""
        self._check_open()
        record = self._results.get(table_id, (None, None, 0.0))[1]
        return succeed(None if record is None else json.loads(record))

    @refused
    def stats(self) -> Deferred[dict]:
        """Counts of tables by state (every state present) and of actions."""
        self._check_open()
        tables = dict.fromkeys(STATES, 0)
        for row in self._tables.values():
            tables[row["state"]] += 1
        return succeed(
            {"tables": tables, "actions": sum(len(a) for a in self._actions.values())}
        )

    @refused
    def save_setting(self, key: str, value: dict) -> Deferred[None]:
        """Keep ``value`` under ``key``, replacing what was there."""
        self._check_open()
        self._settings[key] = check_setting(key, value)
        return succeed(None)

    @refused
    def load_settings(self) -> Deferred[dict]:
        """Every kept setting, ``{key: value}``."""
        self._check_open()
        return succeed({key: json.loads(value) for key, value in self._settings.items()})


    # -- registered players (IPlayerStore) ----------------------------------------

    @refused
    def register_player(self, name: str, name_key: str, password_hash: str) -> Deferred[float]:
        self._check_open()
        for arg, value in (("name", name), ("name_key", name_key), ("password_hash", password_hash)):
            check_text(arg, value)
        if name_key in self._players:
            raise StoreError(f"the name {name!r} is registered already")
        now = self._clock.seconds()
        self._players[name_key] = {"name": name, "name_key": name_key, "password_hash": password_hash,
                                   "created": now, "updated": now}
        return succeed(now)

    @refused
    def load_players(self) -> Deferred[list[dict]]:
        self._check_open()
        out = []
        for key, row in sorted(self._players.items()):
            keys = sorted((k for k in self._keys.values() if k["name_key"] == key),
                          key=lambda k: (k["created"], k["key_hash"]))
            out.append({**row, "keys": [{f: k[f] for f in ("key_hash", "label", "created", "last_used", "revoked")}
                                        for k in keys]})
        return succeed(out)

    def _player(self, name_key: str) -> dict:
        check_text("name_key", name_key)
        row = self._players.get(name_key)
        if row is None:
            raise StoreError(f"no registered name {name_key!r}")
        return row

    @refused
    def set_password(self, name_key: str, password_hash: str) -> Deferred[None]:
        self._check_open()
        check_text("password_hash", password_hash)
        row = self._player(name_key)
        row["password_hash"], row["updated"] = password_hash, self._clock.seconds()
        return succeed(None)

    @refused
    def add_key(self, name_key: str, key_hash: str, label: str | None) -> Deferred[float]:
        self._check_open()
        check_text("key_hash", key_hash)
        check_label(label)
        self._player(name_key)
        if key_hash in self._keys:
            raise StoreError("that key is kept already")
        now = self._clock.seconds()
        self._keys[key_hash] = {"key_hash": key_hash, "name_key": name_key, "label": label,
                                "created": now, "last_used": None, "revoked": None}
        return succeed(now)

    @refused
    def key_used(self, key_hash: str, when: float) -> Deferred[None]:
        self._check_open()
        check_text("key_hash", key_hash)
        row = self._keys.get(key_hash)
        if row is not None:
            row["last_used"] = float(when)
        return succeed(None)

    @refused
    def revoke_key(self, name_key: str, key_hash: str) -> Deferred[float]:
        self._check_open()
        check_text("key_hash", key_hash)
        row = self._keys.get(key_hash)
        if row is None or row["name_key"] != name_key or row["revoked"] is not None:
            raise StoreError("no such live key for that name")
        row["revoked"] = now = self._clock.seconds()
        return succeed(now)

    @refused
    def reset_player(self, name_key: str) -> Deferred[bool]:
        self._check_open()
        check_text("name_key", name_key)
        if self._players.pop(name_key, None) is None:
            return succeed(False)
        for key_hash in [h for h, k in self._keys.items() if k["name_key"] == name_key]:
            del self._keys[key_hash]
        return succeed(True)

    # -- leases (ILeaseStore) -------------------------------------------------

    def _lapsed(self, row: dict[str, Any], now: float) -> bool:
        return row["lease_owner"] is None or row["lease_expires"] <= now

    @refused
    def take_lease(self, table_id: int, owner: str, ttl: float) -> Deferred[int | None]:
        """The table's lease for ``owner``: its epoch, or None if another holds it."""
        self._check_open()
        check_int("table_id", table_id)
        ttl = check_owner_ttl(owner, ttl)
        now = self._clock.seconds()
        row = self._tables.get(table_id)
        if row is None or row["state"] not in LIVE_STATES:
            return succeed(None)
        if not self._lapsed(row, now) and row["lease_owner"] != owner:
            return succeed(None)
        if self._lapsed(row, now):
            row["lease_epoch"] += 1
        row["lease_owner"], row["lease_expires"] = owner, now + ttl
        return succeed(row["lease_epoch"])

    @refused
    def renew_leases(self, owner: str, leases: dict[int, int], ttl: float) -> Deferred[list[int]]:
        """Extend the leases ``owner`` still holds at their epochs; fires with their ids."""
        self._check_open()
        ttl = check_owner_ttl(owner, ttl)
        check_leases(leases)
        now = self._clock.seconds()
        renewed = []
        for table_id, epoch in sorted(leases.items()):
            row = self._tables.get(table_id)
            if (row is not None and row["state"] in LIVE_STATES and row["lease_owner"] == owner
                    and row["lease_epoch"] == epoch):
                row["lease_expires"] = now + ttl
                renewed.append(table_id)
        return succeed(renewed)

    @refused
    def release_lease(self, table_id: int, owner: str, epoch: int) -> Deferred[bool]:
        """Free the lease ``owner`` holds at ``epoch``; True if it did."""
        self._check_open()
        check_int("table_id", table_id)
        check_int("epoch", epoch)
        row = self._tables.get(table_id)
        if row is None or row["lease_owner"] != owner or row["lease_epoch"] != epoch:
            return succeed(False)
        row["lease_owner"], row["lease_expires"] = None, None
        return succeed(True)

    @refused
    def lapsed_tables(self, limit: int = 100) -> Deferred[list[int]]:
        """Live tables whose lease is free or expired, ascending, at most ``limit``."""
        self._check_open()
        check_int("limit", limit)
        now = self._clock.seconds()
        lapsed = [table_id for table_id, row in sorted(self._tables.items())
                  if row["state"] in LIVE_STATES and self._lapsed(row, now)]
        return succeed(lapsed[:max(limit, 0)])
