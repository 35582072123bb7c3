"""Tables: a game with seats (human, bot, empty), spectators, turn timers and persistence.

A table knows nothing about any particular game: it talks to the engine only
through ``IEngine`` and to its users only through ``IUserSink.table_event``.
Every applied action is written to the store before anyone hears of it, so a
player never sees a move that a crash could take back.  When a write fails
(disk full, read-only file, a lock) the table *stalls*: nothing after that
write is told or accepted, the players are told the game is paused, and the
write is retried on the hall clock (1 s, doubling up to 30 s) until it
succeeds; then play goes on by itself.  A table whose write is only waiting
for a store that fails another table's writes stalls the same way
(``stall_waiting``, called by the hall).

In a hall of many processes a table runs under a lease (``lease_epoch``; see
``gamehall.store.leases``): its writes carry the epoch, and a write the store refuses
because another process runs the table now (``StoreFenced``) is not retried: the table
stops at once (``fence``: no more writes, bot moves or timers), its players are told to
reconnect, and the host drops it (``table_fenced``).  In a hall of one process the epoch
is None and none of this happens.

A human seat remembers who sat in it (the address, and a hashed secret for
protocols with passwords), so a held seat goes back only to its own player:
see ``claim_refusal``.
"""
from __future__ import annotations

import random
import weakref
from dataclasses import dataclass, field
from typing import Callable

from twisted.internet.defer import Deferred, succeed

from gamehall.identity import hash_secret, secret_matches
from gamehall.interfaces import IOutOfTurnEngine, IRecordingEngine, ISimultaneousEngine, ITableHost
from gamehall.lobby import User
from gamehall.ratings import rated_game
from gamehall.logger import SharedLogger
from gamehall.table_writes import TableWrites
from gamehall.text import clean_text

WAITING, PLAYING, FINISHED, ABORTED = "waiting", "playing", "finished", "aborted"
STALLED_TEXT = "The hall cannot save moves right now; the game is paused until it can."
STALL_REFUSAL = "the hall cannot save moves right now; the game is paused"
RESUMED_TEXT = "Moves are being saved again; the game goes on."
FENCED_TEXT = "This game moved to another process of the hall; reconnect to continue."
FENCED_REFUSAL = "this game moved to another process of the hall; reconnect to continue"


class TableError(ValueError):
    """A table request refused; ``str(exc)`` is the reason for the user."""


@dataclass(eq=False)
class Seat:
    name: str = ""
    kind: str = "empty"               # "human", "bot" or "empty"
    user: User | None = None          # None for a bot, or a human who is disconnected
    bot: str | None = None            # bot name when kind == "bot"
    brain: object | None = None       # the IBot playing this seat
    hold: object | None = None        # IDelayedCall: bot takeover of a disconnected human
    address: str | None = None        # where the human who sat here came from (None: unknown)
    secret: str | None = None         # hash of the front end's password for this seat, if any
    registered: bool = False          # its player logged in as a registered name (rated)

    def describe(self) -> dict:
        """What anyone may see of the seat (lobby, admin); ``registered`` only when it is."""
        row = {"name": self.name, "kind": self.kind, "bot": self.bot}
        if self.registered:
            row["registered"] = True
        return row

    def stored(self) -> dict:
        """What the store keeps: the description plus who sat here."""
        row = self.describe()
        if self.address is not None:
            row["address"] = self.address
        if self.secret is not None:
            row["secret"] = self.secret
        return row


# Not a plain Logger(): its events would carry the table, and events kept before logging
# begins (tests) would keep whole halls alive (see gamehall.logger).
_log = SharedLogger(namespace="gamehall.table")


@dataclass(eq=False)
class Table:
    hall: ITableHost                  # the Hall; the table knows no more of it than this
    id: int
    game: object                      # IGame
    variant: str
    max_seats: int
    creator: str | None = None
    options: dict = field(default_factory=dict)
    seats: list[Seat] = field(default_factory=list)
    spectators: list[User] = field(default_factory=list)
    #: sinks (IUserSink.table_event) that watch without being users: the web front end's
    #: visitors without a nickname; told every broadcast, counted in the summary, never named
    viewers: list = field(default_factory=list)
    state: str = WAITING
    seed: int | None = None
    engine: object | None = None
    store_id: int | None = None
    seq: int = 0                      # actions applied so far
    #: what the game's code keeps per table in this process: derived data (NetAcquire's last
    #: rendered snapshot, keyed by the name of what keeps it), never stored, gone with the table
    cache: dict = field(default_factory=dict)
    #: the lease epoch this process runs the table at, passed with every store write (None:
    #: a hall of one process, no lease); set by the host, or by the start under ``lease``
    lease_epoch: int | None = None
    #: (owner, ttl): the store row a start creates holds its lease (epoch 1) for this owner
    lease: tuple[str, float] | None = None
    log = _log
    #: True for a table run by another process of the hall (gamehall.cluster.replica)
    remote = False

    def __post_init__(self) -> None:
        # store writes and the steps that follow them, in order (gamehall.table_writes)
        # (the queue holds the table weakly: what it has queued holds it strongly while it
        # waits, and a finished table is then freed by reference counting, not left to the
        # collector's full passes as a table <-> queue cycle with its whole game)
        # (one weak reference for the four: few objects for the collector per table)
        me = weakref.ref(self)
        self.writes = TableWrites(self.hall.clock, _WeakCall(me, "_stalled"), _WeakCall(me, "_resumed"),
                                  _WeakCall(me, "_step_failed"), fenced=_WeakCall(me, "_fenced_by_store"))
        self._timer = None                     # turn timer's call (IDelayedCall), kept from turn to turn
        self._timer_for = None                 # (seat, seq) it counts for; None: parked (_park_timer)
        self._bot_call = None
        self.paused = False                    # operator's pause: nobody is asked to decide
        self._steps = 0                        # decisions still allowed while paused (single step)
        self._interrupted = False              # a decision was held back by a stall
        self._rehold: set[int] = set()         # seats whose hold ran out during a stall
        self._told = 0                         # actions whose events have been emitted
        self._fence_told = False               # fence() has run
        # a hall of several processes (gamehall.cluster.tables): told every event after the
        # local sinks, to carry it to the table's replicas on other processes; None: one process
        self.relay = None

    # -- who is here ---------------------------------------------------
    @property
    def clock(self):
        return self.hall.clock

    @property
    def service(self):
        """The game's service in this hall (IGameService): its hooks for this table."""
        return self.hall.service(self.game.name)

    def seat_of(self, user: User) -> int | None:
        # (by index: no enumerate, iterator or pair objects; front ends ask per update)
        seats = self.seats
        for index in range(len(seats)):
            if seats[index].user is user:
                return index
        return None

    def players(self) -> list[str]:
        return [seat.name for seat in self.seats]

    def audience(self) -> list[User]:
        # (a loop: no comprehension function and one list, not three; every broadcast asks)
        users = []
        for seat in self.seats:
            if seat.user is not None:
                users.append(seat.user)
        users += self.spectators
        return users

    def summary(self) -> dict:
        return {
            "id": self.id, "game": self.game.name, "variant": self.variant, "state": self.state,
            "seats": [s.describe() for s in self.seats], "max_seats": self.max_seats,
            "spectators": [u.nickname for u in self.spectators], "creator": self.creator,
            "visitors": len(self.viewers),
        }

    def emit(self, event: str, detail: dict, users: list[User] | None = None,
             action: tuple[int, dict] | None = None) -> None:
        """Tell ``event`` to ``users`` (None: everyone here, viewers and the game's service);
        ``action``: the (seat, action) a "game" event is the outcome of, for the relay."""
        self.tell_here(event, detail, users)
        if self.relay is not None:
            self.relay.table_told(self, event, detail, users, action)

    def tell_here(self, event: str, detail: dict, users: list[User] | None = None) -> None:
        """``emit`` in this process only: its users, viewers and the game's service."""
        for user in self.audience() if users is None else users:
            try:
                user.sink.table_event(self, event, detail)
            except Exception:
                self.log.failure("table_event {event} failed for {nick}", event=event, nick=user.nickname)
        for sink in list(self.viewers) if users is None else ():
            try:
                sink.table_event(self, event, detail)
            except Exception:
                self.log.failure("table_event {event} failed for a viewer", event=event)
        if users is None:
            # the game's service sees every broadcast, with or without anyone connected
            # (Diplomacy's front end runs its deadlines and renders each event once from it)
            try:
                self.service.table_event(self, event, detail)
            except Exception:
                self.log.failure("the game's table_event {event} failed", event=event)

    def _changed(self) -> None:
        self.hall.table_changed(self)

    # -- joining and leaving -------------------------------------------
    def join(self, user: User, secret: str | None = None) -> int:
        """Seat ``user``; during play only a held seat of the same name can be taken back
        (see ``reconnect``).  ``secret``: the front end's password for this player, if its
        protocol has one; only its hash is kept, to check a later reconnect."""
        if user.table is not None:
            raise TableError(f"You are already at game #{user.table.id}")
        if self.state == PLAYING:
            return self.reconnect(user, secret)
        self.check_seat_free(user)
        self.seats.append(Seat(name=user.nickname, kind="human", user=user, address=user.address,
                               secret=hash_secret(secret) if secret else None, registered=user.registered))
        user.table, user.watching = self, False
        self.emit("joined", {"seat": len(self.seats) - 1, "nickname": user.nickname})
        self._changed()
        return len(self.seats) - 1

    def check_seat_free(self, user: User) -> None:
        """Raise TableError unless ``user`` may take a new seat at this waiting table."""
        if self.state != WAITING:
            raise TableError(f"Game #{self.id} is over")
        if len(self.seats) >= self.max_seats:
            raise TableError(f"Player limit exceeded: game #{self.id} has {self.max_seats} players")
        if any(s.name.casefold() == user.key for s in self.seats):
            raise TableError(f"{user.nickname} is already seated at game #{self.id}")

    def chat(self, user: User, text: str) -> None:
        """Table chat: to everyone seated or watching here, cleaned for every receiver."""
        self.emit("chat", {"nickname": user.nickname, "text": clean_text(text)})

    def remove_bot(self, index: int) -> None:
        """Take a bot off a waiting table (e.g. added by mistake)."""
        if self.state != WAITING:
            raise TableError("Bots can be removed only before the game starts")
        if not 0 <= index < len(self.seats) or self.seats[index].kind != "bot":
            raise TableError(f"Seat {index + 1} of game #{self.id} is not a bot")
        seat = self.seats.pop(index)
        self.emit("left", {"seat": index, "nickname": seat.name, "bot": seat.bot})
        self._changed()

    def watch(self, user: User) -> None:
        if user.table is not None:
            raise TableError(f"You are already at game #{user.table.id}")
        if self.state not in (WAITING, PLAYING):
            raise TableError(f"Game #{self.id} is over")
        self._check_not_stalled()
        self.spectators.append(user)
        user.table, user.watching = self, True
        self.emit("joined", {"seat": None, "nickname": user.nickname})
        self._changed()

    def add_viewer(self, sink) -> None:
        """Watch without a nickname (``viewers``): told every broadcast, as a spectator is."""
        if self.state not in (WAITING, PLAYING):
            raise TableError(f"Game #{self.id} is over")
        if sink not in self.viewers:
            self.viewers.append(sink)
            self._changed()

    def remove_viewer(self, sink) -> None:
        if sink in self.viewers:
            self.viewers.remove(sink)
            self._changed()

    def leave(self, user: User, release: bool = False) -> None:
        """The user leaves on purpose: a waiting seat is freed, a playing seat goes to a bot.
        ``release``: the player gives the seat up for good, so neither an automatic reconnect
        (``held_seat``) nor its password or address takes it back from the bot (the web
        front end's "Leave the table"); without it a player may come back to it later."""
        index = self.seat_of(user) if release and self.state == PLAYING else None
        self._detach(user, hold=False)
        if index is not None and user.nickname in self.options.get("humans", ()):
            self.options["humans"] = [n for n in self.options["humans"] if n != user.nickname]
            self._write("options", lambda: self.hall.store.update_table(
                self.store_id, options=dict(self.options), **self._epoch()))

    def user_disconnected(self, user: User) -> None:
        """The connection dropped: a playing seat is held for a reconnect, then a bot takes it."""
        self._detach(user, hold=True)

    def _detach(self, user: User, hold: bool) -> None:
        user.table, user.watching = None, False
        if user in self.spectators:
            self.spectators.remove(user)
            self.emit("left", {"seat": None, "nickname": user.nickname})
            self._changed()
            return
        index = self.seat_of(user)
        if index is None:
            return
        seat = self.seats[index]
        if self.state == WAITING:
            del self.seats[index]
            self.emit("left", {"seat": index, "nickname": user.nickname})
            humans = [s for s in self.seats if s.kind == "human"]
            if not humans:
                self.hall.table_removed(self)
                return
            if self.creator == user.nickname:
                # the next human inherits the Start button, or nobody could start
                self.creator = humans[0].name
                self.emit("creator", {"nickname": self.creator})
            self._changed()
            return
        seat.user = None
        self.emit("left", {"seat": index, "nickname": user.nickname, "held": hold and self.state == PLAYING})
        if self.state == PLAYING:
            if hold and self.hall.seat_hold > 0:
                seat.hold = self.clock.callLater(self.hall.seat_hold, self._hold_expired, index)
                self._cancel_timer_for(index)
            else:
                self.bot_takeover(index)
        self._changed()

    def held_seat(self, nickname: str) -> int | None:
        """The seat this nickname may take back: held for it, or taken over by a bot from it."""
        key = nickname.casefold()
        for index, seat in enumerate(self.seats):
            if seat.name.casefold() == key and seat.user is None and (
                    seat.kind == "human" or seat.name in self.options.get("humans", ())):
                return index
        return None

    def claim_refusal(self, index: int, address: str, secret: str | None = None) -> str | None:
        """Why the player at ``address`` (with ``secret``) may not take seat ``index`` back,
        or None when it may: the seat's secret matches, or (a seat without a secret) the
        address is the one the seat was taken from, or the seat's player is unknown (a
        database from before this rule).  The operator's ``allow`` is checked by the hall."""
        seat = self.seats[index]
        if seat.secret is not None:
            if secret is not None and secret_matches(seat.secret, secret):
                return None
            how = "with its password"
        else:
            if seat.address is None or seat.address == address:
                return None
            how = "from the same address"
        return (f"the seat of {seat.name} at game #{self.id} is held for its player; "
                f"reconnect {how} or ask the operator to `allow {seat.name}`")

    def claimed(self, index: int, address: str, secret: str | None = None) -> None:
        """The seat's player is back, maybe from elsewhere: remember where (and its secret)."""
        seat = self.seats[index]
        changed = seat.address != address or (secret and seat.secret is None)
        seat.address = address
        if secret and seat.secret is None:
            seat.secret = hash_secret(secret)
        if changed and seat.user is not None:
            self._persist_seats()

    def set_secret(self, index: int, secret: str | None) -> None:
        """A front end with passwords: from now on seat ``index`` goes back only with
        ``secret`` (or the operator's ``allow``); None removes it."""
        if not 0 <= index < len(self.seats):
            raise TableError(f"Game #{self.id} has no seat {index + 1}")
        self.seats[index].secret = hash_secret(secret) if secret else None
        self._persist_seats()

    def reconnect(self, user: User, secret: str | None = None, vouched: bool = False) -> int:
        """Give a held (or bot-played) seat back to its human: same name, and the identity
        rule of ``claim_refusal`` (or the operator's ``allow``). Raises TableError saying why not.
        ``vouched``: the hall knows it is the seat's player, connected all along (a process
        taking over the table of a process that is gone re-seats its own users)."""
        index = self.held_seat(user.nickname) if self.state == PLAYING else None
        if index is None:
            raise TableError(f"Game #{self.id} has started and has no seat held for {user.nickname}")
        self._check_not_stalled()
        if not vouched:
            self.hall.check_claim(self, index, user.address, secret)
        seat = self.seats[index]
        if seat.hold is not None and seat.hold.active():
            seat.hold.cancel()
        seat.hold = None
        seat.kind, seat.user, seat.bot, seat.brain = "human", user, None, None
        seat.address = user.address
        seat.registered = seat.registered or user.registered
        if secret and seat.secret is None:
            seat.secret = hash_secret(secret)
        user.table, user.watching = self, False
        self.emit("seat_changed", {"seat": index, "nickname": user.nickname, "kind": "human"})
        self._persist_seats()
        self._changed()
        if self._pending(index):
            self._cancel_bot_call()
            self._advance()
        return index

    def _hold_expired(self, index: int) -> None:
        seat = self.seats[index]
        seat.hold = None
        if self.stalled:
            # the player could not come back while the table was stalled: a new hold after it
            self._rehold.add(index)
            return
        if self.state == PLAYING and seat.user is None:
            self.bot_takeover(index)

    # -- bots ----------------------------------------------------------
    def _new_brain(self, bot: str, index: int):
        # one seed per seat, so two bots of one kind at a table do not play alike
        seed = random.Random(f"{self.seed}:{bot}:{index}").randrange(2**32)
        return self.game.new_bot(bot, seed)

    def add_bot(self, bot: str | None = None, name: str | None = None) -> int:
        """Seat a bot before the start; ``name`` is generated (e.g. StrongBot2) when not given."""
        if self.state != WAITING:
            raise TableError("Bots can be added only before the game starts")
        if len(self.seats) >= self.max_seats:
            raise TableError(f"Player limit exceeded: game #{self.id} has {self.max_seats} players")
        bot = self._check_bot(bot)
        taken = {s.name.casefold() for s in self.seats}
        if name is None:
            number = 1
            while f"{bot.title()}Bot{number}".casefold() in taken or self.hall.name_in_use(f"{bot.title()}Bot{number}"):
                number += 1
            name = f"{bot.title()}Bot{number}"
        elif name.casefold() in taken:
            raise TableError(f"{name} is already seated at game #{self.id}")
        self.seats.append(Seat(name=name, kind="bot", bot=bot))
        self.emit("joined", {"seat": len(self.seats) - 1, "nickname": name, "bot": bot})
        self._changed()
        return len(self.seats) - 1

    def _check_bot(self, bot: str | None) -> str:
        if bot is None:
            # the table's own choice for seats filled without a name (kick, hold, operator)
            fill = self.options.get("fill_bot")
            return fill if fill in self.game.bots else self.game.bots[0]
        if bot not in self.game.bots:
            raise TableError(f"Unknown bot {bot!r}; this game has: {', '.join(self.game.bots)}")
        return bot

    def bot_takeover(self, index: int, bot: str | None = None) -> None:
        """A bot plays seat ``index`` from now on (leaving player, expired hold, operator)."""
        if not 0 <= index < len(self.seats):
            raise TableError(f"Game #{self.id} has no seat {index + 1}")
        if self.state != PLAYING:
            raise TableError(f"Game #{self.id} is not being played")
        seat = self.seats[index]
        bot = self._check_bot(bot)
        if seat.user is not None:
            user, seat.user = seat.user, None
            user.table, user.watching = None, False
            try:
                user.sink.table_event(self, "left", {"seat": index, "nickname": user.nickname, "replaced_by_bot": True})
            except Exception:
                self.log.failure("sink failed")
        if seat.hold is not None and seat.hold.active():
            seat.hold.cancel()
        seat.hold = None
        seat.kind, seat.bot, seat.brain = "bot", bot, self._new_brain(bot, index)
        self.emit("seat_changed", {"seat": index, "nickname": seat.name, "kind": "bot", "bot": bot})
        self._persist_seats()
        self._changed()
        if self._pending(index):
            self._advance()

    # -- playing -------------------------------------------------------
    def start(self, user: User | None = None) -> None:
        if self.state != WAITING:
            raise TableError(f"Game #{self.id} has already started")
        if user is not None and self.creator and user.nickname != self.creator:
            raise TableError("Only the game's creator can start it")
        if not self.game.min_seats <= len(self.seats) <= self.game.max_seats:
            raise TableError(f"{self.game.title} needs {self.game.min_seats} to {self.game.max_seats} players")
        self.seed = self.hall.new_seed() if self.seed is None else self.seed
        self.options["humans"] = [s.name for s in self.seats if s.kind == "human"]
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot":
                seat.brain = self._new_brain(seat.bot, index)
        self.engine = self._new_engine()
        self.state = PLAYING
        self._write("the new table", self._store_create)
        self._queue(lambda: (self.emit("started", {"players": self.players()}), self._changed(), self._advance()))
        self._queue(self._admit_seated)

    def _admit_seated(self) -> None:
        # a game whose engine starts empty and admits players during play (PIMP's Monopoly,
        # open seating) is handed the players seated before the start, bots and people, so
        # that a table made with bots (the web lobby's) starts and plays
        if self.state == PLAYING and self.seats:
            self.service.admit_seated(self)

    def _new_engine(self):
        # the same call at start and at restore (IGameService.new_engine_for_table)
        return self.service.new_engine_for_table(self)

    def _store_create(self) -> Deferred:
        # (a retry after the create went through only sets the state)
        if self.store_id is None:
            # stored under the hall's number for it, so that it keeps it after a restart
            leased = {} if self.lease is None else {"lease": self.lease}
            sent = self.clock.seconds()       # the lease runs at least ttl from here
            d = self.hall.store.create_table(self.game.name, self.variant, self.seed,
                                             [s.stored() for s in self.seats], self.options, table_id=self.id,
                                             **leased)
            d.addCallback(self._created, sent)
        else:
            d = succeed(None)
        d.addCallback(lambda _: self.hall.store.update_table(self.store_id, state=PLAYING, **self._epoch()))
        return d

    def _created(self, store_id: int, sent: float | None = None) -> None:
        self.store_id = store_id
        if self.lease is not None:
            self.lease_epoch = 1          # created with its lease held (ILeaseStore)
            if self.relay is not None:    # the host keeps it renewed (gamehall.cluster.tables)
                self.relay.lease_held(self, sent)

    def act(self, user: User, action: dict) -> list:
        """Apply ``action`` for ``user``'s seat. Raises IllegalAction/TableError with a reason."""
        index = self.seat_of(user)
        if self.state != PLAYING or index is None:
            raise TableError("You are not playing at this table")
        if not self._may_act(index):
            raise TableError("It is not your turn")
        self._check_not_stalled()
        return self._apply(index, action)

    def _may_act(self, index: int) -> bool:
        """Turn order, unless the engine says who may act now (IOutOfTurnEngine: games like
        PIMP's Monopoly, where bids, claims and deals come from anyone)."""
        if IOutOfTurnEngine.providedBy(self.engine):
            return self.engine.may_act(index)
        return self.engine.pending_seat() == index

    def act_for(self, index: int, action: dict) -> list:
        """Apply ``action`` for seat ``index`` (-1: someone without a seat yet, e.g. a join
        request) on an IOutOfTurnEngine; stored before told like every action.
        For front ends and bots of such games. Raises IllegalAction/TableError."""
        if self.state != PLAYING or not IOutOfTurnEngine.providedBy(self.engine):
            raise TableError(f"Game #{self.id} takes no actions out of turn")
        if not self._may_act(index):
            raise TableError("It is not your turn")
        self._check_not_stalled()
        return self._apply(index, action)

    def replay(self, actions) -> None:
        """Apply earlier actions [(seat, action)] in order, each stored like a new one and
        told to the table; for a front end that restarts a stored game in a new table (its
        turn order is the engine's, not the seated users'). Raises IllegalAction on one the
        engine refuses, with those before it applied; TableError, like act(), while the
        table is stalled on a failing store write."""
        if self.state != PLAYING:
            raise TableError(f"Game #{self.id} is not being played")
        self._check_not_stalled()
        for index, action in actions:
            self._apply(index, action)

    def seat_user(self, index: int, user: User, secret: str | None = None) -> None:
        """Open seating (an engine that admits players during play, see ``_seat_newcomers``):
        the front end puts the connected ``user`` its engine just admitted on seat ``index``."""
        seat = self.seats[index] if 0 <= index < len(self.seats) else None
        if seat is None or seat.kind != "human" or seat.user is not None or user.table is not None:
            raise TableError(f"Seat {index + 1} of game #{self.id} is not free for {user.nickname}")
        seat.user, seat.address = user, user.address
        seat.registered = user.registered
        if secret:
            seat.secret = hash_secret(secret)
        user.table, user.watching = self, False
        self.emit("seat_changed", {"seat": index, "nickname": seat.name, "kind": "human"})
        self._persist_seats()
        self._changed()

    def _seat_newcomers(self) -> None:
        """An engine that admits players during play (its ``players`` grew): one seat each,
        empty until a front end puts the user on it (``seat_user``)."""
        names = self.engine.players
        if len(names) > len(self.seats):
            self.seats.extend(Seat(name=name, kind="human") for name in names[len(self.seats):])
            self._persist_seats()
            self._changed()

    def _apply(self, index: int, action: dict) -> list:
        events = self.engine.apply(index, action)     # IllegalAction propagates, nothing changed
        self._park_timer()
        seq, self.seq = self.seq, self.seq + 1
        applied = _Applied(self, index, action, events, seq)
        self._write(f"action {seq}", applied)
        self.hall.action_applied(self)
        self._seat_newcomers()
        self._queue(applied.tell)
        return events

    def _after_apply(self, index: int, events: list, told: int, action: dict | None = None) -> None:
        # told: actions applied once this one is (a front end that reads the engine compares
        # it with self.seq: the engine may already be ahead, on an action not yet stored)
        self._told = told
        self.emit("game", {"seat": index, "events": events, "seq": told}, action=(index, action))
        self._advance()

    # -- operator control (pause, single step, speed) --------------------
    def pause(self) -> None:
        self.paused, self._steps = True, 0
        self._cancel_bot_call()
        self._cancel_timer()

    def resume(self) -> None:
        self.paused, self._steps = False, 0
        self._advance()

    def step(self) -> None:
        """While paused: let exactly one more decision be taken."""
        self.paused, self._steps = True, self._steps + 1
        self._advance()

    def set_speed(self, turns_per_second: float | None) -> None:
        """How fast bots move here: None or 0 means at full speed (no delay); stored
        with the options, so a restart keeps it."""
        self.options["bot_delay"] = 1.0 / turns_per_second if turns_per_second else 0.0
        self.persist_options()

    def persist_options(self) -> None:
        """Store the options as they stand now (changed during play: a speed, a game's own
        state kept there), so that a restart restores them; before the start they go into
        the store with the new table, and a finished table's stay as they were."""
        if self.state == PLAYING:
            self._write("options", lambda: self.hall.store.update_table(
                self.store_id, options=self.options, **self._epoch()))

    @property
    def bot_delay(self) -> float:
        return self.options.get("bot_delay", self.hall.bot_delay)

    def _advance(self) -> None:
        """Ask whoever must decide next; finish the game when the engine says it is over."""
        if self.state != PLAYING or self.fenced:
            return
        if self.stalled:
            self._interrupted = True          # asked again once the store works
            return
        if self.engine.is_over():
            if self._told < self.seq:
                return        # the action that ended it is not told yet (a store write ahead): it finishes
            self._finish()
            return
        if self.paused:
            if self._steps <= 0:
                return
            self._steps -= 1
        if ISimultaneousEngine.providedBy(self.engine):
            # a simultaneous game (Diplomacy): every pending seat is asked; its bots move one
            # after the other (one _bot_call), and its deadlines are the front end's, not the turn timer
            for index in self.engine.pending_seats():
                self._ask(index, timed=False)
            return
        index = self.engine.pending_seat()
        if index is None:
            return                            # waiting for nobody in particular (e.g. players to join)
        self._ask(index)

    def _ask(self, index: int, timed: bool = True) -> None:
        seat = self.seats[index]
        if seat.kind == "bot":
            if self._bot_call is None or not self._bot_call.active():
                self._bot_call = self.clock.callLater(self.bot_delay, self._bot_move, index, self.seq)
        elif seat.user is not None:
            # the timer first, so that a front end asked for the decision can show its deadline
            timeout = self.options.get("turn_timeout", self.game.turn_timeout) if timed else None
            if timeout:
                self._arm_timer(timeout, index)
            self.emit("decision", {"seat": index}, [seat.user])
        # a held seat waits for its human or for the hold to expire

    def _pending(self, index: int) -> bool:
        """Whether the engine waits for seat ``index`` (one of several in a simultaneous game)."""
        if ISimultaneousEngine.providedBy(self.engine):
            return index in self.engine.pending_seats()
        return self.engine.pending_seat() == index

    def _bot_asked_still(self, index: int, seq: int) -> bool:
        """Whether the bot call made for seat ``index`` at ``seq`` still stands: the game waits
        for that seat and, turn by turn, nobody has acted since (out of turn, e.g. Monopoly's
        claims and bids); in a simultaneous game others' orders do not matter."""
        if self.state != PLAYING or not self._pending(index):
            return False
        return seq == self.seq or ISimultaneousEngine.providedBy(self.engine)

    def _bot_move(self, index: int, seq: int) -> None:
        self._bot_call = None
        if not self._bot_asked_still(index, seq):
            # ask whoever is pending now, whom _ask did not call while this call was set (or
            # the bot waits for a call that never comes); in a simultaneous game the next
            # pending bot waits for this one call
            self._advance()
            return
        if self.stalled:
            self._interrupted = True
            return
        seat = self.seats[index]
        if seat.kind != "bot":
            # a human took the seat back: in a simultaneous game the other pending bots are
            # still to be called (one call for them all); turn by turn the human is asked
            if ISimultaneousEngine.providedBy(self.engine):
                self._advance()
            return
        try:
            action = seat.brain.choose(self.engine, index)
            if action is None:
                return      # nothing to do now (an engine like PIMP's): asked again after the next move
            self._apply(index, action)
        except Exception:
            # A faulty bot must not stall the game: fall back on the passive default.
            self.log.failure("bot {bot} failed at game {id}", bot=seat.bot, id=self.id)
            action = self.engine.timeout_action(index)
            if action is not None:
                self._apply(index, action)

    def _arm_timer(self, timeout: float, index: int) -> None:
        """Start the turn timer of seat ``index`` for the decision pending now.

        The previous turn's call is moved (``reset``) rather than a new one made: a
        cancelled call waits in the reactor's heap until the heap is pruned (about as many
        cancelled as pending calls), long enough at hundreds of answers a second to reach
        the collector's old generation with its bound methods, and that makes full
        collections (a pause of every table) come sooner."""
        self._timer_for = (index, self.seq)
        if self._timer is not None and self._timer.active():
            self._timer.reset(timeout)
        else:
            self._timer = self.clock.callLater(timeout, self._turn_timer_fired)

    def _park_timer(self) -> None:
        """The decision was taken: the turn timer stops counting, but its call stays
        scheduled for the next ``_arm_timer``; if it comes due first, it does nothing."""
        self._timer_for = None

    def _timer_armed(self) -> bool:
        return self._timer_for is not None and self._timer is not None and self._timer.active()

    def _turn_timer_fired(self) -> None:
        timer_for, self._timer, self._timer_for = self._timer_for, None, None
        if timer_for is not None:
            self._turn_timed_out(*timer_for)

    def _turn_timed_out(self, index: int, seq: int) -> None:
        if self.stalled:
            self._interrupted = True
            return
        if self.state == PLAYING and seq == self.seq and self.engine.pending_seat() == index:
            user = self.seats[index].user
            action = self.engine.timeout_action(index)
            if action is None:
                return      # nothing to do for the seat (nothing to store either)
            if user is not None:
                self.emit("timeout", {"seat": index}, [user])
            self._apply(index, action)

    def turn_deadline(self) -> float | None:
        """When (hall clock) the pending human decision's turn timer runs out, or None."""
        return self._timer.getTime() if self._timer_armed() else None

    def _cancel_timer(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = self._timer_for = None

    def _cancel_bot_call(self) -> None:
        if self._bot_call is not None and self._bot_call.active():
            self._bot_call.cancel()
        self._bot_call = None

    def _cancel_timer_for(self, index: int) -> None:
        if self.engine is not None and self._pending(index):
            self._cancel_timer()

    def _finish(self) -> None:
        self.state = FINISHED
        self._cancel_timer()
        result = self.engine.result()
        record = self.engine.record() if IRecordingEngine.providedBy(self.engine) else None
        # rated (or not) in the same store write as the end (gamehall.ratings.rated_game)
        rated = self._rated(result)
        extra = {} if rated is None else {"rated": rated}
        self._write("result", lambda: self.hall.store.finish_table(
            self.store_id, FINISHED, result, record, **self._epoch(), **extra))
        self.emit("finished", {"result": result})
        self._release_all()
        self.hall.table_finished(self)

    def _rated(self, result: dict) -> dict | None:
        """Who this finished game rates and at what places (None: not rated), from the seats
        as stored and the engine's result: the same input ``gamehall-store ratings rebuild``
        reads back, so a rebuild gives the live ratings."""
        try:
            return rated_game(self.game.name, self.variant, [s.stored() for s in self.seats], result,
                              self.options.get("humans", ()))
        except ValueError as e:
            self.log.warn("game {id} is not rated: {why}", id=self.id, why=str(e))
            return None

    def abort(self, reason: str) -> None:
        """Stop the table for good (operator's close); players are told why."""
        if self.state in (FINISHED, ABORTED):
            return
        was_playing = self.state == PLAYING
        self.state = ABORTED
        self._cancel_timer()
        if was_playing:
            self._write("end", lambda: self.hall.store.finish_table(
                self.store_id, ABORTED, None, None, **self._epoch()))
        self.emit("aborted", {"reason": reason})
        self._release_all()
        self.hall.table_finished(self)

    def _release_all(self) -> None:
        for seat in self.seats:
            if seat.hold is not None and seat.hold.active():
                seat.hold.cancel()
            seat.hold = None
        self._cancel_bot_call()
        for user in self.audience():
            user.table, user.watching = None, False
        self.spectators.clear()
        self.viewers.clear()
        for seat in self.seats:
            seat.user = None

    # -- persistence ---------------------------------------------------
    @property
    def stalled(self) -> bool:
        """True while a store write of this table fails (see the module docstring)."""
        return self.writes.stalled

    @property
    def stalled_since(self) -> float | None:
        """When the failing store write first failed (None: not stalled)."""
        return self.writes.stalled_since

    @property
    def stall_reason(self) -> str:
        return self.writes.stall_reason

    @property
    def writing_since(self) -> float | None:
        """When the store write of this table now in flight was issued (None: none is)."""
        return self.writes.writing_since

    @property
    def fenced(self) -> bool:
        """True once the table stopped because another process runs it now (``fence``)."""
        return self.writes.fenced

    def fence(self) -> None:
        """Stop at once, for good: another process of the hall runs this table now (a write
        was refused with ``StoreFenced``, or the host's lease on it was lost).  Nothing more
        is written, asked or timed here; the players are told to reconnect (they find the
        game where it runs now), and the host drops the table (``table_fenced``)."""
        if self._fence_told:
            return
        self._fence_told = True
        self.writes.fence()
        self.log.warn("table {id} (store #{store}, lease epoch {epoch}) stopped: another process "
                      "of the hall runs it now", id=self.id, store=self.store_id, epoch=self.lease_epoch)
        self._cancel_timer()
        self.emit("chat", {"nickname": "*", "text": FENCED_TEXT, "notice": "moved"})
        self._release_all()
        self.hall.table_fenced(self)

    def _epoch(self) -> dict:
        """A store write's lease keyword: none in a hall of one process."""
        return {} if self.lease_epoch is None else {"epoch": self.lease_epoch}

    def _check_not_stalled(self) -> None:
        if self.fenced:
            raise TableError(FENCED_REFUSAL)
        if self.stalled:
            raise TableError(STALL_REFUSAL)

    def _persist_seats(self) -> None:
        if self.store_id is not None or self.state == PLAYING:
            self._write("seats", lambda: self.hall.store.update_table(
                self.store_id, seats=[s.stored() for s in self.seats], **self._epoch()))

    def flush(self) -> Deferred:
        """Fires once every store write queued so far has completed, or as soon as the
        table stalls on one (what follows a failing write waits for it; see quiesce)."""
        return self.writes.flush()

    def after_stored(self, step: Callable[[], object]) -> None:
        """Run ``step`` once every store write queued so far has succeeded: unlike
        ``flush``, never earlier, even while the table is stalled (a reply that would
        reveal an unsaved action waits for the write)."""
        self.writes.queue(step)

    def _queue(self, step: Callable[[], object]) -> None:
        """Run ``step`` after every earlier store write has completed, in order."""
        self.writes.queue(step)

    def _write(self, what: str, write: Callable[[], Deferred]) -> None:
        """Queue a store write; nothing queued after it runs until it has succeeded."""
        self.writes.write(what, write)

    def stall_waiting(self, reason: str) -> None:
        """The store cannot write (another table's write failed with ``reason``) and this
        table's write is still waiting for it: stall as if it had failed (its players are told
        now, not only once the store gives up on it), and go on when the write is stored."""
        self.writes.stall_waiting(reason)

    def _fenced_by_store(self, failure) -> None:
        self.fence()

    def _step_failed(self, failure) -> None:
        self.log.failure("table {id}: a step after a store write failed", failure, id=self.id)

    def _stalled(self, what: str) -> None:
        """The write queue stalled on a failing write (retried by the queue): pause the game."""
        self.log.error("table {id} (store #{store}) stalled: cannot save its {what}: {reason}; "
                       "the game is paused and the write retried", id=self.id, store=self.store_id,
                       what=what, reason=self.stall_reason)
        if self._timer_armed() or (self._bot_call is not None and self._bot_call.active()):
            self._interrupted = True
        self._cancel_timer()
        self._cancel_bot_call()
        self.hall.table_stalled(self)
        self.emit("chat", {"nickname": "*", "text": STALLED_TEXT, "notice": "stalled"})

    def _resumed(self, since: float) -> None:
        """The failing write has been stored: the game goes on."""
        self.log.info("table {id} (store #{store}) recovered: its writes succeed again after {s:.0f} s",
                      id=self.id, store=self.store_id, s=self.clock.seconds() - since)
        self.hall.table_stalled(self)
        self.emit("chat", {"nickname": "*", "text": RESUMED_TEXT, "notice": "resumed"})
        self._queue(self._resume_interrupted)

    def _resume_interrupted(self) -> None:
        # after the steps that waited for the write (which may have asked already)
        if self.stalled:
            return
        for index in sorted(self._rehold):
            seat = self.seats[index]
            if self.state == PLAYING and seat.kind == "human" and seat.user is None and seat.hold is None:
                seat.hold = self.clock.callLater(self.hall.seat_hold, self._hold_expired, index)
        self._rehold.clear()
        if self._interrupted:
            self._interrupted = False
            self._advance()

    def restore(self, row: dict) -> None:
        """Rebuild a table from the store: replay its actions, hold its humans' seats.
        Raises ValueError (or the engine's IllegalAction) for a row that does not make sense."""
        self.store_id, self.seed, self.variant = row["id"], row["seed"], row["variant"]
        options = row.get("options")
        if not isinstance(options, dict):
            raise ValueError("options are not a JSON object")
        self.options = dict(options)
        self.seats = [self._stored_seat(i, s) for i, s in enumerate(_list(row.get("seats"), "seats"))]
        if not self.game.min_seats <= len(self.seats) <= self.game.max_seats:
            raise ValueError(f"{len(self.seats)} seats; {self.game.title} takes "
                             f"{self.game.min_seats} to {self.game.max_seats}")
        if self.variant not in self.game.variants:
            raise ValueError(f"{self.game.title} has no variant {self.variant!r}")
        self.engine = self._new_engine()
        for n, entry in enumerate(_list(row.get("actions"), "actions")):
            seat_index, action = entry
            try:
                self.engine.apply(seat_index, action)
            except Exception as exc:
                raise ValueError(f"action {n} ({action!r} by seat {seat_index}) refused: {exc}") from None
        self.seq = self._told = len(row["actions"])
        self.state = PLAYING
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot":
                seat.brain = self._new_brain(seat.bot, index)
        for index, seat in enumerate(self.seats):
            if seat.kind == "human":
                seat.hold = self.clock.callLater(self.hall.seat_hold, self._hold_expired, index)

    def play_on(self) -> None:
        """After ``restore`` (and the game's restore hook): ask whoever the game waits for."""
        self._advance()

    def _stored_seat(self, index: int, row) -> Seat:
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            raise ValueError(f"seat {index} is not an object with a name")
        kind = row.get("kind")
        if kind not in ("human", "bot"):
            raise ValueError(f"seat {index} ({row['name']!r}) has kind {kind!r}")
        if kind == "bot" and row.get("bot") not in self.game.bots:
            raise ValueError(f"seat {index} ({row['name']!r}) is played by unknown bot {row.get('bot')!r}")
        address, secret = row.get("address"), row.get("secret")
        if not isinstance(address, (str, type(None))) or not isinstance(secret, (str, type(None))):
            raise ValueError(f"seat {index} ({row['name']!r}) has a malformed address or secret")
        return Seat(name=row["name"], kind=kind, bot=row.get("bot"), address=address, secret=secret,
                    registered=row.get("registered") is True)

    def drop_timers(self) -> None:
        """Cancel whatever this table has scheduled (a restore that failed half-way)."""
        for seat in self.seats:
            if seat.hold is not None and seat.hold.active():
                seat.hold.cancel()
            seat.hold = None
        self._cancel_timer()
        self._cancel_bot_call()


class _Applied:
    """An applied action's store write (called) and, once it is stored, its telling
    (``tell``): two objects for the collector per action, not two closures over five
    cells (nine)."""

    __slots__ = ("table", "index", "action", "events", "seq")

    def __init__(self, table: Table, index: int, action: dict, events: list, seq: int) -> None:
        self.table, self.index, self.action, self.events, self.seq = table, index, action, events, seq

    def __call__(self) -> Deferred:
        table = self.table
        epoch = table.lease_epoch        # (the store id and epoch as they are when the write runs)
        if epoch is None:
            return table.hall.store.append_action(table.store_id, self.seq, self.index, self.action)
        return table.hall.store.append_action(table.store_id, self.seq, self.index, self.action, epoch=epoch)

    def tell(self) -> None:
        self.table._after_apply(self.index, self.events, self.seq + 1, self.action)


class _WeakCall:
    """The method ``name`` of the object ``ref`` (a weak reference) refers to, called through
    it; nothing happens once the object is gone.  (Not a ``weakref.WeakMethod`` in a
    closure: that is ten objects for the collector to walk, this is one.)"""

    __slots__ = ("ref", "name")

    def __init__(self, ref: weakref.ref, name: str) -> None:
        self.ref, self.name = ref, name

    def __call__(self, *args):
        target = self.ref()
        if target is not None:
            return getattr(target, self.name)(*args)


def _list(value, what: str) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{what} are not a JSON list")
    return value
