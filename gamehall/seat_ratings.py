"""The ratings a table's seats show (docs/players.md, "At the table").

Per seat: the registered player's rating under the rating the game counts for (its game,
variant and number of seats), or a hall bot's (``bot:GAME:LEVEL``); None for a guest.  The
web page draws them in its seat list (``for_table``).  The old clients' seat lists carry
only names, so a rating there would change the name players address each other by: those
players are told the ratings in one line when the game starts (a table notice "ratings",
which each protocol shows in its own words where it has words for text).

Nothing here waits for the store: ratings come from the hall's ``RatingCache``; a table whose
players are not read yet is drawn without them and redrawn (``Lobby.table_notice``) once they
are; the start's line waits for them.  When a rated game ends, its players' ratings are read
again once the end is stored (after the table's write), here and on the hall's other
processes.
"""
from __future__ import annotations

from gamehall.logger import SharedLogger
from gamehall.rating_cache import RatingCache
from gamehall.ratings import bot_name, hall_bot_seat, player_key, rating_key

_log = SharedLogger(namespace="gamehall.seat_ratings")


def rated_name(table, seat) -> str | None:
    """Who ``seat`` is rated as: its registered player, the hall's bot, or None (a guest)."""
    if getattr(seat, "registered", False):
        return seat.name
    if seat.kind == "bot" and seat.bot is not None:
        humans = (getattr(table, "options", None) or {}).get("humans", ())
        try:
            if hall_bot_seat(seat.stored(), humans):
                return bot_name(table.game.name, seat.bot)
        except ValueError:
            return None
    return None


def table_rating_key(table) -> str | None:
    try:
        return rating_key(table.game.name, table.variant, max(2, len(table.seats)))
    except ValueError:
        return None


def rating_text(name: str, rating: dict) -> str:
    """``Ann 12.3`` (``Ann 0.0 provisional`` for their first games)."""
    return f"{name} {rating['rating']:.1f}{' provisional' if rating['provisional'] else ''}"


class SeatRatings:
    log = _log

    def __init__(self, hall) -> None:
        self.hall = hall
        self.cache = RatingCache(hall.store, hall.clock)
        self.cache.on_loaded.append(self._loaded)
        self._to_tell: dict[int, object] = {}          # started tables whose line waits for reads
        self._told: set[int] = set()

    def prefetch(self, name: str) -> None:
        """A registered player logged in: have their ratings ready before they sit down."""
        self.cache.get(name)

    def for_table(self, table) -> list[dict | None]:
        """Per seat: ``{"rating", "games", "provisional"}``, or None (a guest, a rating not read
        yet, a game the hall does not rate)."""
        key = table_rating_key(table)
        out = []
        for seat in table.seats:
            name = rated_name(table, seat) if key is not None else None
            out.append(None if name is None else self.cache.rating(name, key))
        return out

    # -- the hall's hooks --------------------------------------------------------------
    def table_changed(self, table) -> None:
        """A playing table is told its ratings once (at the start, or after a restore)."""
        if table.remote:                    # the process that runs it tells its players
            return
        if table.state == "playing" and table.id not in self._told and table.id not in self._to_tell:
            self._to_tell[table.id] = table
            self._tell(table)

    def table_finished(self, table) -> None:
        self._to_tell.pop(table.id, None)
        self._told.discard(table.id)
        if table.remote:                    # its owner has the ratings read again hall-wide
            return
        names = [name for name in (rated_name(table, seat) for seat in table.seats) if name is not None]
        if not names or table.state != "finished":
            return
        writes = getattr(table, "writes", None)
        if writes is not None:
            writes.queue(lambda: self.rated(names, tell_others=True))    # once the end is stored
        else:
            self.rated(names, tell_others=True)

    def rated(self, names, tell_others: bool = False) -> None:
        """A game of these players was rated: read their ratings again (and have the hall's
        other processes do so)."""
        self.cache.refresh(names)
        cluster = self.hall.cluster
        if tell_others and cluster is not None:
            cluster.registry.rated(names)

    # -- internals ---------------------------------------------------------------------
    def _loaded(self, name: str) -> None:
        key = player_key(name)
        for table in list(self.hall.tables.values()):
            if any(player_key(rated_name(table, s) or "") == key for s in table.seats):
                if table.id in self._to_tell:
                    self._tell(table)
                if table.id in self.hall.tables:
                    self.hall.lobby.table_notice("table_changed", table)

    def _tell(self, table) -> None:
        """The start's line, once every rated seat's rating is read."""
        if table.state != "playing" or table.id not in self.hall.tables:
            self._to_tell.pop(table.id, None)
            return
        key = table_rating_key(table)
        if key is None or not any(getattr(s, "registered", False) for s in table.seats):
            self._to_tell.pop(table.id, None)       # not rated: nothing to tell
            self._told.add(table.id)
            return
        ratings = self.for_table(table)
        if table.id not in self._to_tell:
            return                                   # told meanwhile (a read that answered at once)
        parts = []
        for seat, rating in zip(table.seats, ratings):
            name = rated_name(table, seat)
            if name is None:
                continue
            if rating is None:
                return                               # still being read: told when it arrives
            parts.append(rating_text(seat.name if seat.registered else f"{seat.name} ({name})", rating))
        self._to_tell.pop(table.id, None)
        self._told.add(table.id)
        table.emit("chat", {"nickname": "*", "notice": "ratings",
                            "text": f"Ratings at this table ({key}, mean - 3 deviations): {', '.join(parts)}"})
