"""Players' ratings kept in memory for the tables' seat lists.

A table shows each registered player's rating to the others (docs/players.md).  Reading it
from the store while drawing a seat list would block or wait, so the hall keeps each
player's ratings here: ``get`` answers at once with what is cached (None for a player not
read yet, whose read it starts), ``on_loaded`` hears when a read arrives (the hall then
says the player's tables changed), and ``refresh`` reads again the players of a game whose
ratings were just stored (on every process of the hall: gamehall.cluster.registry).
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable

from gamehall.logger import SharedLogger
from gamehall.ratings import player_key

_log = SharedLogger(namespace="gamehall.rating_cache")

LIMIT = 10_000          # players kept; the least recently asked for goes first
RETRY_AFTER = 30.0      # seconds before a failed read is tried again (a store that is down)


class RatingCache:
    log = _log

    def __init__(self, store, clock, limit: int = LIMIT) -> None:
        self.store, self.clock, self.limit = store, clock, limit
        self._failed: dict[str, float] = {}         # player key -> when its last read failed
        self._rows: OrderedDict[str, dict[str, dict]] = OrderedDict()   # player key -> rating key -> row
        self._reading: dict[str, int] = {}          # player key -> number of the read under way
        self._reads = 0
        #: called with a player's name once a read of their ratings arrived
        self.on_loaded: list[Callable[[str], object]] = []

    def get(self, name: str) -> dict[str, dict] | None:
        """The player's ratings (rating key -> the store's ``player_ratings`` row; {} for none
        yet), or None while they are being read (the read is started here; never waited for)."""
        key = player_key(name)
        rows = self._rows.get(key)
        if rows is not None:
            self._rows.move_to_end(key)
            return rows
        failed = self._failed.get(key)
        if key not in self._reading and (failed is None or self.clock.seconds() - failed >= RETRY_AFTER):
            self._read(name, key)
        return self._rows.get(key)           # (a store that answered at once)

    def rating(self, name: str, rating_key: str) -> dict | None:
        """``{"rating", "games", "provisional"}`` of the player under ``rating_key`` (a
        newcomer's: 0 after 0 games), or None while not read yet."""
        rows = self.get(name)
        if rows is None:
            return None
        row = rows.get(rating_key)
        if row is None:
            return {"rating": 0.0, "games": 0, "provisional": True}
        return {"rating": round(float(row["rating"]), 1), "games": int(row["games"]),
                "provisional": bool(row.get("provisional"))}

    def clear(self) -> None:
        """Forget every rating kept (each is read again when next asked for): the hall's bus
        came back, and the games rated elsewhere meanwhile were not heard of."""
        self._rows.clear()
        self._reading.clear()                     # (reads under way: their answers are dropped)
        self._failed.clear()

    def refresh(self, names) -> None:
        """Read these players' ratings again (a game of theirs was rated); players not kept
        here are left alone (their first ``get`` reads them)."""
        for name in names:
            key = player_key(name)
            if key in self._rows or key in self._reading:
                self._read(name, key)

    def _read(self, name: str, key: str) -> None:
        self._reads += 1
        number = self._reading[key] = self._reads      # a newer read makes this one's answer stale

        def read(rows) -> None:
            if self._reading.get(key) != number:
                return
            del self._reading[key]
            self._failed.pop(key, None)
            self._rows[key] = {row["rating_key"]: row for row in rows}
            self._rows.move_to_end(key)
            while len(self._rows) > self.limit:
                self._rows.popitem(last=False)
            for callback in list(self.on_loaded):
                try:
                    callback(name)
                except Exception:
                    self.log.failure("after reading the ratings of {name}", name=name)

        def failed(failure) -> None:
            if self._reading.get(key) == number:
                del self._reading[key]             # a get after RETRY_AFTER tries again
                self._failed[key] = self.clock.seconds()
            self.log.warn("the ratings of {name} could not be read: {why}", name=name,
                          why=failure.getErrorMessage())

        self.store.player_ratings(name).addCallbacks(read, failed)
