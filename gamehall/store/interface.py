"""What the hall asks of a store: ``IStore``, its table states and its one error."""
from __future__ import annotations

from twisted.internet.defer import Deferred
from zope.interface import Interface

#: Table states; the last two are terminal.
STATES = ("waiting", "playing", "finished", "aborted")
LIVE_STATES = ("waiting", "playing")
END_STATES = ("finished", "aborted")
SEAT_KINDS = ("human", "bot", "empty")


class StoreError(Exception):
    """A store operation refused or failed; ``str(exc)`` says why."""



class IStore(Interface):
    """Persistence for the hall.  Every method returns a Deferred.

    Tables are dicts shaped like::

        {"id": int, "game": str, "variant": str, "seed": int,
         "options": dict, "seats": [{"name", "kind", "bot"}...],
         "state": str, "created": float, "updated": float,
         "actions": [(seat, action_dict), ...]}          # in seq order

    JSON values come back decoded, as fresh objects (tuples become lists).
    """

    def open() -> Deferred[None]:
        """Make the store usable (create or migrate the schema)."""

    def close() -> Deferred[None]:
        """Finish pending work and release resources; idempotent."""

    def create_table(
        game: str, variant: str, seed: int, seats: list[dict], options: dict, table_id: int | None = None,
        lease: tuple[str, float] | None = None,
    ) -> Deferred[int]:
        """Record a new table in state 'waiting'; fires with its id: ``table_id`` (the
        hall's number for it) when given and no table has it yet, else one of the store's.
        ``lease=(owner, ttl)``: the table is created with its lease held by ``owner`` for
        ``ttl`` seconds, at epoch 1 (``gamehall.store.leases``)."""

    def last_table_id() -> Deferred[int]:
        """The highest table id ever recorded (0 if none): the hall numbers its tables
        above it after a restart, so a number is never given twice."""

    def update_table(
        table_id: int,
        *,
        seats: list[dict] | None = None,
        state: str | None = None,
        options: dict | None = None,
        epoch: int | None = None,
    ) -> Deferred[None]:
        """Change a live table's seats, state ('waiting'/'playing') or options.

        ``epoch`` (here, in ``append_action`` and in ``finish_table``): the lease epoch the
        writer holds the table at; the write is refused with ``StoreFenced`` unless the
        table still carries it, checked in the write's transaction.  None (a hall of one
        process): no check."""

    def append_action(
        table_id: int, seq: int, seat: int, action: dict, epoch: int | None = None
    ) -> Deferred[None]:
        """Append the action numbered ``seq``, which must be the next one (0, 1, ...).

        The very same ``(seat, action)`` already stored as ``seq`` counts as success (a
        retried write whose first try did commit); a different one is refused."""

    def finish_table(
        table_id: int, state: str, result: dict | None, record: dict | None,
        rated: dict | None = None,
        epoch: int | None = None,
    ) -> Deferred[None]:
        """End a live table as 'finished' or 'aborted', keeping its result/record.

        ``rated`` (a finished table only): ``{"key": rating key, "names": [a name, or None
        for a guest, per seat], "places": [place per seat]}`` (``gamehall.ratings.rated_game``):
        in the same transaction, the named players' ratings under ``key`` are read (locked
        against another hall's update) and replaced by the ones the game gives
        (``gamehall.store.rated``), and the game's rating events are kept.  Either the table
        ends and is rated, or neither."""

    def rebuild_ratings() -> Deferred[dict]:
        """Recompute every rating from the stored finished games, replacing the kept ones;
        fires with counts ``{"games", "skipped", "ratings"}``."""

    def standings(rating_key: str, limit: int = 100, offset: int = 0) -> Deferred[list[dict]]:
        """The players rated under ``rating_key``, best rating first (ties: by player key):
        ``{"rank", "rating_key", "player", "name", "mu", "sigma", "rating", "games",
        "provisional", "places": {place: count}, "last_played"}`` each."""

    def rating_keys() -> Deferred[list[dict]]:
        """Every rating key with rated players: ``{"key", "players"}`` each, by key."""

    def player_ratings(name: str) -> Deferred[list[dict]]:
        """The player's rating under every key they played (as ``standings`` rows, no rank)."""

    def rating_history(name: str, rating_key: str | None = None, limit: int = 1000) -> Deferred[list[dict]]:
        """The player's last ``limit`` rated games, oldest first, with the rating after each:
        ``{"table_id", "rating_key", "place", "players", "mu", "sigma", "rating", "games",
        "finished"}``."""

    def player_games(name: str, limit: int = 100) -> Deferred[list[dict]]:
        """The player's last ``limit`` rated games, newest first (rows as ``rating_history``)."""

    def head_to_head(name: str, other: str, limit: int = 100) -> Deferred[dict]:
        """The rated games both played: ``{"games", "wins", "losses", "ties", "last": [{"table_id",
        "rating_key", "place", "other_place", "finished"}...]}`` (``name``'s wins: a better place)."""

    def load_unfinished() -> Deferred[list[dict]]:
        """Every waiting or playing table, with its actions, by id.

        A table whose row cannot be decoded comes back as ``{"id", "game", "state",
        "error": why}`` instead of failing the whole load."""

    def load_table(table_id: int) -> Deferred[dict | None]:
        """One table in any state, plus 'result' and 'record' (None if absent)."""

    def finished_games(game: str | None = None, limit: int = 100) -> Deferred[list[dict]]:
        """Finished games, newest first: id, game, variant, seats, result, finished."""

    def get_record(table_id: int) -> Deferred[dict | None]:
        """The record kept with a finished table, or None."""

    def stats() -> Deferred[dict]:
        """``{"tables": {state: count for every state}, "actions": count}``."""

    def save_setting(key: str, value: dict) -> Deferred[None]:
        """Keep ``value`` (a JSON object) under ``key`` (a non-empty str), replacing any
        value kept there: what the hall and its games must remember across a restart
        beyond tables (the operator's defaults, the highest table number given)."""

    def load_settings() -> Deferred[dict]:
        """Every kept setting: ``{key: value}``."""



class IPlayerStore(Interface):
    """Registered players (``gamehall.players``): a name, its password's Argon2id hash,
    and the keys its owner types after the name in clients without a password field
    (kept as SHA-256 hashes).  Every method returns a Deferred; a refusal fails with
    StoreError.

    ``name_key`` is ``gamehall.lobby.normal_name(name).casefold()``: one registration
    per key (the hall refuses lookalikes before it asks the store)."""

    def register_player(name: str, name_key: str, password_hash: str) -> Deferred[float]:
        """Keep a new registration; fires with its creation time.  Refused if
        ``name_key`` is registered already."""

    def load_players() -> Deferred[list[dict]]:
        """Every registration, by name_key: ``{"name", "name_key", "password_hash",
        "created", "updated", "keys": [{"key_hash", "label", "created", "last_used",
        "revoked"}...]}`` (keys by creation, revoked ones included)."""

    def set_password(name_key: str, password_hash: str) -> Deferred[None]:
        """Replace the password hash of a registration (refused if there is none)."""

    def add_key(name_key: str, key_hash: str, label: str | None) -> Deferred[float]:
        """Keep a new key's hash for a registration; fires with its creation time.
        Refused if there is no such registration or the hash is kept already."""

    def key_used(key_hash: str, when: float) -> Deferred[None]:
        """Note that a key let its owner in at ``when``."""

    def revoke_key(name_key: str, key_hash: str) -> Deferred[float]:
        """Revoke one of the registration's keys; fires with the time.  Refused if the
        registration has no such live key."""

    def reset_player(name_key: str) -> Deferred[bool]:
        """Forget a registration and its keys (the operator's reset); True if there was one."""
