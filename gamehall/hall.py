"""The hall: users, the shared lobby, the tables, and their persistence."""
from __future__ import annotations

import os
import random
import socket
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from twisted.internet.defer import Deferred, gatherResults, inlineCallbacks
from zope.interface import implementer

from gamehall.identity import Allowances
from gamehall.interfaces import ITableHost
from gamehall.lobby import MAX_NAME, Lobby, LobbyError, NameTaken, User, check_nickname, normal_name
from gamehall.logger import SharedLogger
from gamehall.players import Players, RegisteredName, split_key
from gamehall.ratings import rating_lines
from gamehall.seat_ratings import SeatRatings
from gamehall.table import PLAYING, STALL_REFUSAL, Table, TableError
from gamehall.text import lookalike_keys


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


# Not a plain Logger(): its events would carry the hall, and events kept before logging
# begins (tests) would keep whole halls alive (see gamehall.logger).
_log = SharedLogger(namespace="gamehall.hall")
#: the store setting that keeps the highest table number given (see Hall._take_id)
NUMBERS_SETTING = "hall"

#: seconds a table's store write may wait, while another table's fails, before it stalls too
STUCK_AFTER = 1.0


@implementer(ITableHost)
class Hall:
    """Owns the lobby and the tables; front ends and the admin console call into it."""

    log = _log

    def __init__(self, clock, store, games: dict | None = None, frontends: dict | None = None, *,
                 seat_hold: float = 120.0, bot_delay: float = 0.5, idle_timeout: float = 1800.0,
                 max_per_peer: int = 20, rng: random.Random | None = None,
                 max_output: int = 1 << 20, rate: float = 0.0, burst: int = 200,
                 turn_timeouts: dict | None = None) -> None:
        self.clock = clock
        self.store = store
        self.games = dict(games or {})           # name -> IGame
        self.frontends = dict(frontends or {})   # name -> IFrontEnd (those listening)
        self.seat_hold = seat_hold
        self.bot_delay = bot_delay
        self.idle_timeout = idle_timeout
        self.max_per_peer = max_per_peer
        # per-connection limits, applied by gamehall.connection (rate 0: input not limited)
        self.max_output, self.rate, self.burst = max_output, rate, burst
        self.lobby = Lobby(clock=clock)
        self.lobby.commands["rating"] = self.rating_command
        self.tables: dict[int, Table] = {}
        self.stats = Stats(started=clock.seconds())
        self._rng = rng or random.SystemRandom()
        self._next_table = 1
        self.shutdown_hook = None                # set by the service: stops the process
        # --turn-timeout: game name (or None for every game) -> seconds for new tables (0: none)
        self.turn_timeouts = dict(turn_timeouts or {})
        self.allowances = Allowances(clock)      # the operator's `allow NICK`
        self.stalled: dict[int, Table] = {}      # tables whose store writes fail, by id
        self._stuck_call = None                  # next look for tables stuck behind them
        self.set_aside: dict[int, str] = {}      # store ids of unfinished tables not restored -> why
        # what the store keeps beyond tables (IStore.save_setting), loaded by restore():
        # the operator's defaults of the games, the highest table number given
        self.settings: dict[str, dict] = {}
        # registered names (gamehall.players), loaded by restore()
        self.players = Players(clock, store)
        # the ratings the tables' seats show, read from the store without waiting
        self.seat_ratings = SeatRatings(self)
        # the multi-process layer (gamehall.cluster): the bus of a hall run by several
        # processes (None: a one-process hall), and this process's name among them
        self.bus = None
        self.process_id = f"{socket.gethostname()}:{os.getpid()}"
        # one process of a hall of several (gamehall.cluster.hallwide.HallCluster: users,
        # names and chat across processes, the tables of the others, ownership, forwarding),
        # or None: a hall of one process, which never looks further
        self.cluster = None
        # each game's state and hooks in this hall (IGame.attach), by game name: made last,
        # so that a service may read the hall's settings and clock
        self.services = {name: game.attach(self) for name, game in self.games.items()}

    # -- users ---------------------------------------------------------
    def login(self, nickname: str, frontend: str, sink, address: str = "", *, key: str | None = None,
              signed_in=None) -> User:
        """Register a connected user in the shared lobby. Raises LobbyError, e.g. for a
        nickname that looks like a logged-in user's or one whose seat is held, or a
        registered name (or one like it) without its key.

        A registered name comes in with its key, given as ``key`` or typed after the name
        (``alice+KEY``, stripped here: gamehall.players), or ``signed_in`` (the web's Player,
        whose password was checked); the user is then ``registered``."""
        if key is None:
            nickname, key = split_key(nickname)
        nickname = check_nickname(nickname)
        player = self.players.admit(nickname, key, address, signed_in)
        if player is not None:
            nickname = player.name                  # as registered
            if self.lobby.find(nickname) is not None:
                raise RegisteredName(f"Duplicate user Nickname {nickname}: {nickname} is logged in already (a "
                                f"registered name lets one connection in at a time; if that is not you, "
                                f"revoke your keys and change your password on the web page)", duplicate=True)
        self._refuse_lookalike_of_held_seat(nickname)
        user = User(nickname=nickname, frontend=frontend, sink=sink, address=address,
                    connected_at=self.clock.seconds(), registered=player is not None)
        user = self.lobby.add(user)
        if player is not None and key is not None:
            self.players.used(player, key)
        if player is not None:
            self.seat_ratings.prefetch(player.name)
        if self.cluster is not None:     # the name is claimed hall-wide; a lost claim undoes this
            self.cluster.user_logged_in(user)
        return user

    def _refuse_lookalike_of_held_seat(self, nickname: str) -> None:
        keys = lookalike_keys(nickname)
        key = nickname.casefold()
        for table in self.tables.values():
            if table.state != PLAYING:
                continue
            for seat in table.seats:
                if (seat.user is None and seat.name.casefold() != key
                        and table.held_seat(seat.name) is not None
                        and not keys.isdisjoint(lookalike_keys(seat.name))):
                    raise NameTaken(f"Nickname {nickname} looks too much like {seat.name}, "
                                    f"whose seat at game #{table.id} is held")

    def logout(self, user: User) -> None:
        """The user's connection is gone: hold its seat, leave the lobby."""
        if user.table is not None:
            user.table.user_disconnected(user)
        self.lobby.remove(user)
        if self.cluster is not None:
            self.cluster.user_logged_out(user)

    def held_table(self, nickname: str) -> Table | None:
        """The playing table holding a seat for ``nickname``, for an automatic reconnect."""
        nickname = normal_name(nickname)           # as the seat keeps it
        for table in self.tables.values():
            if table.state == PLAYING and table.held_seat(nickname) is not None:
                return table
        return None

    # -- seat identity -------------------------------------------------
    def allow(self, nickname: str) -> float:
        """Operator: the next reclaim of ``nickname``'s seat succeeds from anywhere (one use,
        expires after ALLOW_TTL); returns the expiry time."""
        return self.allowances.grant(nickname)

    def check_claim(self, table: Table, index: int, address: str, secret: str | None = None) -> None:
        """Raise TableError unless the player at ``address`` may take seat ``index`` of
        ``table`` back: the seat's own rule (Table.claim_refusal), else an operator's ``allow``."""
        refusal = table.claim_refusal(index, address, secret)
        if refusal is None:
            return
        name = table.seats[index].name
        if self.allowances.take(name):
            self.log.info("{name} takes the seat at game #{id} back from {address} (allowed by the operator)",
                          name=name, id=table.id, address=address or "?")
            return
        self.log.info("{name} from {address}: held seat at game #{id} not given back", name=name,
                      address=address or "?", id=table.id)
        raise TableError(refusal)

    def check_return(self, user: User, address: str, secret: str | None = None) -> None:
        """A front end that keeps a disconnected user logged in (Windward) asks whether a
        new connection from ``address`` may become ``user`` again: the same rule as a held
        seat, applied to the seat the user has (or the address it logged in from).
        Raises TableError saying why not; on success the new address is remembered."""
        table = user.table
        index = table.seat_of(user) if isinstance(table, Table) else None
        if index is not None:
            if table.stalled:               # what it would be shown holds unsaved moves
                raise TableError(f"{STALL_REFUSAL}; try again shortly")
            self.check_claim(table, index, address, secret)
            table.claimed(index, address, secret)
        elif user.address and user.address != address and not self.allowances.take(user.nickname):
            raise TableError(f"{user.nickname} is held for its player; reconnect from the same address "
                             f"or ask the operator to `allow {user.nickname}`")
        user.address = address

    def rating_command(self, user: User, argument: str) -> None:
        """Lobby chat ``/rating [NAME]``: the player's ratings and places, to the asker only."""
        name = normal_name(argument)[:MAX_NAME] or user.nickname
        d = self.store.player_ratings(name)
        d.addCallback(lambda rows: rating_lines(name, rows))

        def failed(failure) -> list[str]:
            self.log.failure("ratings of {name} could not be read", failure, name=name)
            return ["The ratings cannot be read right now; try again later."]

        d.addErrback(failed)
        d.addCallback(lambda lines: self.lobby.tell(user, lines))

    def say(self, text: str) -> int:
        """An operator's announcement to every lobby, every protocol."""
        return self.lobby.chat("*", text)

    def kick(self, nickname: str, reason: str = "Kicked by the operator") -> User:
        """Disconnect ``nickname``; the User.  A user of another process of the hall is
        kicked there: a Deferred firing with the User once it is done (or failing with a
        LobbyError saying why not)."""
        user = self.lobby.find(nickname)
        if user is None:
            raise LobbyError(f"No user called {nickname}")
        if user.process is not None:
            return self.cluster.kick(user, reason)
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

    def service(self, name: str):
        """The service (IGameService) of the game called ``name`` in this hall."""
        try:
            return self.services[name]
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
        options = dict(options or {})
        timeout = self.turn_timeouts.get(game, self.turn_timeouts.get(None))
        if timeout is not None:
            options.setdefault("turn_timeout", timeout)
        table = Table(hall=self, id=self._take_id(), game=plugin, variant=variant, max_seats=max_seats,
                      creator=creator.nickname if creator else None, options=options)
        self.tables[table.id] = table
        if self.cluster is not None:
            self.cluster.tables.hosting(table)
        self.lobby.table_notice("table_added", table)
        if creator is not None:
            table.join(creator)
        return table

    def _take_id(self) -> int:
        if self.cluster is not None:         # numbers hall-wide: from this process's block
            return self.cluster.tables.take_id()
        table_id, self._next_table = self._next_table, self._next_table + 1
        # a waiting table has no store row until it starts: the number is kept apart, so
        # that after a restart it is not given again (to a new table or a Windward series)
        self.save_setting(NUMBERS_SETTING, {"last_table": table_id})
        return table_id

    def save_setting(self, key: str, value: dict) -> None:
        """Keep ``value`` under ``key`` in ``settings`` and in the store, for after a restart
        (a failed write is logged)."""
        self.settings[key] = value
        self.store.save_setting(key, value).addErrback(
            lambda f: self.log.failure("the store could not keep setting {key}", failure=f, key=key))

    def table(self, table_id: int) -> Table:
        try:
            return self.tables[int(table_id)]
        except (KeyError, ValueError, TypeError):
            raise TableError(f"No game #{table_id}") from None

    def awaits_table(self, table_id, again) -> bool:
        """A request naming table ``table_id`` (to join or watch it) that is not listed here:
        in a hall of several processes it may have been made on another one a moment ago.
        True when the hall looks for it and calls ``again()`` (the request, done again) once
        it is listed or known to be nowhere; False: go on now (``table`` says "No game #N")."""
        number = _table_number(table_id)
        return self.cluster is not None and number is not None and self.cluster.tables.awaits(number, again)

    def when_listed(self, table_id, then: Callable[[], Any]) -> Any:
        """``then()`` at once, or a Deferred of it once the hall has looked for table
        ``table_id`` when it is not listed here (as ``awaits_table``, for a command that
        answers with its result: the console's, a game's admin commands)."""
        number = _table_number(table_id)
        if self.cluster is None or number is None or number in self.tables or self.cluster.tables.stopped:
            return then()
        return self.cluster.tables.find(number).addCallback(lambda _: then())

    def remove_table(self, table: Table) -> None:
        if self.tables.pop(table.id, None) is not None:
            self.lobby.table_notice("table_removed", table)
            if self.cluster is not None:
                self.cluster.table_changed(table)
                self.cluster.tables.removed(table)

    def table_changed(self, table: Table) -> None:
        if table.id in self.tables:      # told with others in the lobby's window (Lobby.table_notice)
            self.lobby.table_notice("table_changed", table)
            self.seat_ratings.table_changed(table)
            if self.cluster is not None:  # who sits or watches where, and the table, for the others
                self.cluster.table_changed(table)
                self.cluster.tables.changed(table)

    def table_finished(self, table: Table) -> None:
        self.seat_ratings.table_finished(table)
        self.remove_table(table)

    def table_removed(self, table: Table) -> None:
        self.remove_table(table)

    def table_fenced(self, table: Table) -> None:
        """Another process of the hall runs the table now: it has stopped; drop it here."""
        self.log.info("table {id} dropped: another process of the hall runs it now", id=table.id)
        self.stalled.pop(table.id, None)
        self.remove_table(table)

    def action_applied(self, table: Table) -> None:
        self.stats.actions += 1

    def name_in_use(self, nickname: str) -> bool:
        return self.lobby.find(nickname) is not None

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

    def table_stalled(self, table: Table) -> None:
        """A table's store writes started or stopped failing (for the admin console).

        The store is shared: while one table's write fails, another whose write has waited
        for the store STUCK_AFTER seconds is stuck as well, so it is stalled and its players
        told too (``Table.stall_waiting``), now and then every STUCK_AFTER seconds while any
        table is stalled; each goes on when its own write is stored."""
        if table.stalled:
            self.stalled[table.id] = table
            self._stall_stuck()
        else:
            self.stalled.pop(table.id, None)
        self.table_changed(table)

    def _stall_stuck(self) -> None:
        if self._stuck_call is not None and self._stuck_call.active():
            self._stuck_call.cancel()
        self._stuck_call = None
        if not self.stalled:
            return
        reason = next(iter(self.stalled.values())).stall_reason
        now = self.clock.seconds()
        for other in list(self.tables.values()):
            since = other.writing_since
            if since is not None and not other.stalled and now - since >= STUCK_AFTER:
                other.stall_waiting(reason)
        self._stuck_call = self.clock.callLater(STUCK_AFTER, self._stall_stuck)

    def new_seed(self) -> int:
        return self._rng.randrange(2**63)

    # -- persistence ---------------------------------------------------
    @inlineCallbacks
    def restore(self) -> Deferred:
        """Bring back every unfinished table of the store (after a crash or restart).

        A table that cannot be rebuilt (a row the store could not decode, seats that do
        not validate, an action the engine refuses, a game not installed) is set aside:
        one log line names it, it stays in the store as it is (a later version or the
        operator may still bring it back), and the other tables come back."""
        yield self.players.load()
        rows = yield self.store.load_unfinished()
        # numbers above every table ever stored: none is given twice
        self._next_table = max(self._next_table, (yield self.store.last_table_id()) + 1)
        self.settings = dict((yield self.store.load_settings()))
        mark = self.settings.get(NUMBERS_SETTING, {}).get("last_table")
        if isinstance(mark, int):       # waiting tables' numbers too (they were never stored)
            self._next_table = max(self._next_table, mark + 1)
        restored = 0
        for row in rows:
            if row.get("state") != PLAYING:
                continue                     # a waiting table had nobody playing yet
            if self.cluster is not None:
                # its lease taken first, then read again: the row as its last owner left it
                row = yield self.cluster.tables.claim(row)
                if row is None:
                    continue                 # another process of the hall runs it
            if self.restore_row(row) is not None:
                restored += 1
        if restored:
            self.log.info("restored {n} unfinished tables", n=restored)
        return restored

    def restore_row(self, row: dict) -> Table | None:
        """Bring back one unfinished table from its store row (``restore``; a process of the
        hall taking over a table whose owner is gone): the table, or None when set aside."""
        why = row.get("error")
        if why is None and row.get("game") not in self.games:
            why = f"game {row.get('game')!r} is not installed"
        table = None
        if why is None:
            # its number from before the restart (its store id: see Table._store_create)
            number = row["id"] if row["id"] not in self.tables else self._take_id()
            table = Table(hall=self, id=number, game=self.games[row["game"]],
                          variant=row["variant"], max_seats=max(1, len(row.get("seats") or ())))
            try:
                table.restore(row)
            except Exception as exc:
                table.drop_timers()
                why = f"replay failed: {type(exc).__name__}: {exc}"
        if why is not None:
            self.set_aside[row["id"]] = why
            self.log.error("stored table {id} set aside, not restored ({why}); it is left in the "
                           "store as it is", id=row["id"], why=why)
            return None
        self.tables[table.id] = table
        if self.cluster is not None:
            self.cluster.tables.hosting(table)
        try:                     # e.g. Windward rebuilds the table's series
            self.service(table.game.name).table_restored(table)
        except Exception:
            self.log.failure("table {id}: the game's restore hook failed", id=table.id)
        table.play_on()
        return table

    def quiesce(self) -> Deferred:
        """Stop every table where it stands and wait for its queued store writes
        (before the store closes at shutdown; a restart replays from there)."""
        for table in self.tables.values():
            if table.state == PLAYING and not table.remote:      # (another process runs it)
                table.pause()
        return gatherResults([table.flush() for table in self.tables.values()])

    # -- admin views ---------------------------------------------------
    def who(self) -> list[User]:
        return sorted(self.lobby.users.values(), key=lambda u: u.key)

    def uptime(self) -> float:
        return self.clock.seconds() - self.stats.started

    def shutdown(self) -> None:
        for user in list(self.lobby.users.values()):
            if user.process is None:     # the other processes of a hall go on
                user.sink.disconnect("The hall is shutting down")
        if self.shutdown_hook is not None:
            self.shutdown_hook()


def _table_number(table_id) -> int | None:
    """A table number a user named (an int or its digits), or None when it is none."""
    try:
        number = int(table_id)
    except (ValueError, TypeError):
        return None
    return number if number > 0 else None
