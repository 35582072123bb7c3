"""The hall: users, the shared lobby, the tables, and their persistence."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from twisted.internet.defer import Deferred, gatherResults, inlineCallbacks
from twisted.logger import Logger

from gamehall.lobby import Lobby, LobbyError, User
from gamehall.table import PLAYING, Table, TableError


@dataclass
class Stats:
    """Counters for the admin console's ``stats``."""

    started: float = 0.0
    connections: Counter = field(default_factory=Counter)        # open, per front end
    connections_total: Counter = field(default_factory=Counter)
    messages_in: Counter = field(default_factory=Counter)
    messages_out: Counter = field(default_factory=Counter)
    refused: Counter = field(default_factory=Counter)            # per-peer cap, bad frames
    actions: int = 0


class Hall:
    """Owns the lobby and the tables; front ends and the admin console call into it."""

    log = Logger()

    def __init__(self, clock, store, games: dict | None = None, frontends: dict | None = None, *,
                 seat_hold: float = 120.0, bot_delay: float = 0.5, idle_timeout: float = 1800.0,
                 max_per_peer: int = 20, rng: random.Random | None = None,
                 max_output: int = 1 << 20, rate: float = 0.0, burst: int = 200) -> None:
        self.clock = clock
        self.store = store
        self.games = dict(games or {})           # name -> IGame
        self.frontends = dict(frontends or {})   # name -> IFrontEnd (those listening)
        self.seat_hold = seat_hold
        self.bot_delay = bot_delay
        self.idle_timeout = idle_timeout
        self.max_per_peer = max_per_peer
        # per-connection limits, applied by gamehall.wire (rate 0: input not limited)
        self.max_output, self.rate, self.burst = max_output, rate, burst
        self.lobby = Lobby(clock=clock)
        self.tables: dict[int, Table] = {}
        self.stats = Stats(started=clock.seconds())
        self._rng = rng or random.SystemRandom()
        self._next_table = 1
        self.shutdown_hook = None                # set by the service: stops the process

    # -- users ---------------------------------------------------------
    def login(self, nickname: str, frontend: str, sink, address: str = "") -> User:
        """Register a connected user in the shared lobby. Raises LobbyError."""
        user = User(nickname=nickname, frontend=frontend, sink=sink, address=address,
                    connected_at=self.clock.seconds())
        return self.lobby.add(user)

    def logout(self, user: User) -> None:
        """The user's connection is gone: hold its seat, leave the lobby."""
        if user.table is not None:
            user.table.user_disconnected(user)
        self.lobby.remove(user)

    def held_table(self, nickname: str) -> Table | None:
        """The playing table holding a seat for ``nickname``, for an automatic reconnect."""
        for table in self.tables.values():
            if table.state == PLAYING and table.held_seat(nickname) is not None:
                return table
        return None

    def say(self, text: str) -> int:
        """An operator's announcement to every lobby, every protocol."""
        return self.lobby.chat("*", text)

    def kick(self, nickname: str, reason: str = "Kicked by the operator") -> User:
        user = self.lobby.find(nickname)
        if user is None:
            raise LobbyError(f"No user called {nickname}")
        if user.table is not None:
            user.table.leave(user)        # a kicked player does not get a held seat back
        try:
            user.sink.disconnect(reason)
        finally:
            self.logout(user)
        return user

    # -- tables --------------------------------------------------------
    def game(self, name: str):
        try:
            return self.games[name]
        except KeyError:
            raise TableError(f"No game called {name!r}; this hall has: {', '.join(sorted(self.games))}") from None

    def create_table(self, game: str, variant: str | None = None, max_seats: int | None = None,
                     creator: User | None = None, options: dict | None = None) -> Table:
        plugin = self.game(game)
        variant = variant or plugin.variants[0]
        if variant not in plugin.variants:
            raise TableError(f"{plugin.title} has no variant {variant!r}")
        max_seats = plugin.max_seats if max_seats is None else max_seats
        if not plugin.min_seats <= max_seats <= plugin.max_seats:
            raise TableError(f"{plugin.title} takes {plugin.min_seats} to {plugin.max_seats} players")
        table = Table(hall=self, id=self._take_id(), game=plugin, variant=variant, max_seats=max_seats,
                      creator=creator.nickname if creator else None, options=dict(options or {}))
        self.tables[table.id] = table
        self.lobby.notify("table_added", table.summary())
        if creator is not None:
            table.join(creator)
        return table

    def _take_id(self) -> int:
        table_id, self._next_table = self._next_table, self._next_table + 1
        return table_id

    def table(self, table_id: int) -> Table:
        try:
            return self.tables[int(table_id)]
        except (KeyError, ValueError, TypeError):
            raise TableError(f"No game #{table_id}") from None

    def remove_table(self, table: Table) -> None:
        if self.tables.pop(table.id, None) is not None:
            self.lobby.notify("table_removed", {"id": table.id})

    def table_changed(self, table: Table) -> None:
        if table.id in self.tables:
            self.lobby.notify("table_changed", table.summary())

    def table_finished(self, table: Table) -> None:
        self.remove_table(table)

    def close_table(self, table_id: int, reason: str = "Closed by the operator") -> Table:
        table = self.table(table_id)
        table.abort(reason)
        self.remove_table(table)
        return table

    def put_bot(self, table_id: int, seat_number: int, bot: str | None = None) -> Table:
        """Operator: a bot plays seat ``seat_number`` (1-based) of a running table."""
        table = self.table(table_id)
        table.bot_takeover(seat_number - 1, bot)
        return table

    def new_seed(self) -> int:
        return self._rng.randrange(2**63)

    # -- persistence ---------------------------------------------------
    @inlineCallbacks
    def restore(self) -> Deferred:
        """Bring back every unfinished table of the store (after a crash or restart)."""
        rows = yield self.store.load_unfinished()
        restored = 0
        for row in rows:
            if row["state"] != PLAYING or row["game"] not in self.games:
                if row["state"] == PLAYING:
                    self.log.warn("table {id}: game {game} is not installed; left as it is", id=row["id"], game=row["game"])
                continue
            table = Table(hall=self, id=self._take_id(), game=self.games[row["game"]], variant=row["variant"],
                          max_seats=len(row["seats"]))
            try:
                table.restore(row)
            except Exception:
                self.log.failure("table {id}: replay failed; aborted", id=row["id"])
                yield self.store.finish_table(row["id"], "aborted", None, None)
                continue
            self.tables[table.id] = table
            restored += 1
            table._advance()
        if restored:
            self.log.info("restored {n} unfinished tables", n=restored)
        return restored

    def quiesce(self) -> Deferred:
        """Stop every table where it stands and wait for its queued store writes
        (before the store closes at shutdown; a restart replays from there)."""
        for table in self.tables.values():
            if table.state == PLAYING:
                table.pause()
        return gatherResults([table.flush() for table in self.tables.values()])

    # -- admin views ---------------------------------------------------
    def who(self) -> list[User]:
        return sorted(self.lobby.users.values(), key=lambda u: u.key)

    def uptime(self) -> float:
        return self.clock.seconds() - self.stats.started

    def shutdown(self) -> None:
        for user in list(self.lobby.users.values()):
            user.sink.disconnect("The hall is shutting down")
        if self.shutdown_hook is not None:
            self.shutdown_hook()
