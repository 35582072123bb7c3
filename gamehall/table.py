"""Tables: a game with seats (human, bot, empty), spectators, turn timers and persistence.

A table knows nothing about any particular game: it talks to the engine only
through ``IEngine`` and to its users only through ``IUserSink.table_event``.
Every applied action is written to the store before anyone hears of it, so a
player never sees a move that a crash could take back.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from twisted.internet.defer import Deferred, maybeDeferred, succeed
from twisted.logger import Logger

from gamehall.lobby import User

if TYPE_CHECKING:  # pragma: no cover
    from gamehall.hall import Hall

WAITING, PLAYING, FINISHED, ABORTED = "waiting", "playing", "finished", "aborted"


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

    def describe(self) -> dict:
        return {"name": self.name, "kind": self.kind, "bot": self.bot}


@dataclass(eq=False)
class Table:
    hall: "Hall"
    id: int
    game: object                      # IGame
    variant: str
    max_seats: int
    creator: str | None = None
    options: dict = field(default_factory=dict)
    seats: list[Seat] = field(default_factory=list)
    spectators: list[User] = field(default_factory=list)
    state: str = WAITING
    seed: int | None = None
    engine: object | None = None
    store_id: int | None = None
    seq: int = 0                      # actions applied so far
    log = Logger()

    def __post_init__(self) -> None:
        self._tail: Deferred = succeed(None)   # serialises store writes and what follows them
        self._timer = None                     # turn timer (IDelayedCall)
        self._bot_call = None
        self.paused = False                    # operator's pause: nobody is asked to decide
        self._steps = 0                        # decisions still allowed while paused (single step)

    # -- who is here ---------------------------------------------------
    @property
    def clock(self):
        return self.hall.clock

    def seat_of(self, user: User) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user is user:
                return index
        return None

    def players(self) -> list[str]:
        return [seat.name for seat in self.seats]

    def audience(self) -> list[User]:
        return [s.user for s in self.seats if s.user is not None] + list(self.spectators)

    def summary(self) -> dict:
        return {
            "id": self.id, "game": self.game.name, "variant": self.variant, "state": self.state,
            "seats": [s.describe() for s in self.seats], "max_seats": self.max_seats,
            "spectators": [u.nickname for u in self.spectators], "creator": self.creator,
        }

    def emit(self, event: str, detail: dict, users: list[User] | None = None) -> None:
        for user in self.audience() if users is None else users:
            try:
                user.sink.table_event(self, event, detail)
            except Exception:
                self.log.failure("table_event {event} failed for {nick}", event=event, nick=user.nickname)

    def _changed(self) -> None:
        self.hall.table_changed(self)

    # -- joining and leaving -------------------------------------------
    def join(self, user: User) -> int:
        """Seat ``user``; during play only a held seat of the same name can be taken back."""
        if user.table is not None:
            raise TableError(f"You are already at game #{user.table.id}")
        if self.state == PLAYING:
            return self.reconnect(user)
        if self.state != WAITING:
            raise TableError(f"Game #{self.id} is over")
        if len(self.seats) >= self.max_seats:
            raise TableError(f"Player limit exceeded: game #{self.id} has {self.max_seats} players")
        if any(s.name.casefold() == user.key for s in self.seats):
            raise TableError(f"{user.nickname} is already seated at game #{self.id}")
        self.seats.append(Seat(name=user.nickname, kind="human", user=user))
        user.table, user.watching = self, False
        self.emit("joined", {"seat": len(self.seats) - 1, "nickname": user.nickname})
        self._changed()
        return len(self.seats) - 1

    def chat(self, user: User, text: str) -> None:
        """Table chat: to everyone seated or watching here."""
        self.emit("chat", {"nickname": user.nickname, "text": text})

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
        self.spectators.append(user)
        user.table, user.watching = self, True
        self.emit("joined", {"seat": None, "nickname": user.nickname})
        self._changed()

    def leave(self, user: User) -> None:
        """The user leaves on purpose: a waiting seat is freed, a playing seat goes to a bot."""
        self._detach(user, hold=False)

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
                self.hall.remove_table(self)
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

    def reconnect(self, user: User) -> int:
        """Give a held (or bot-played) seat back to the human of the same name."""
        index = self.held_seat(user.nickname) if self.state == PLAYING else None
        if index is None:
            raise TableError(f"Game #{self.id} has started and has no seat held for {user.nickname}")
        seat = self.seats[index]
        if seat.hold is not None and seat.hold.active():
            seat.hold.cancel()
        seat.hold = None
        seat.kind, seat.user, seat.bot, seat.brain = "human", user, None, None
        user.table, user.watching = self, False
        self.emit("seat_changed", {"seat": index, "nickname": user.nickname, "kind": "human"})
        self._persist_seats()
        self._changed()
        if self.engine.pending_seat() == index:
            self._cancel_bot_call()
            self._advance()
        return index

    def _hold_expired(self, index: int) -> None:
        self.seats[index].hold = None
        if self.state == PLAYING and self.seats[index].user is None:
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
            while f"{bot.title()}Bot{number}".casefold() in taken or self.hall.lobby.find(f"{bot.title()}Bot{number}"):
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
            return self.game.bots[0]
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
        if self.engine.pending_seat() == index:
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
        self.engine = self.game.new_engine(self.variant, self.players(), self.seed)
        self.state = PLAYING
        self._queue(self._store_create)
        self._queue(lambda: (self.emit("started", {"players": self.players()}), self._changed(), self._advance()))

    def _store_create(self):
        d = self.hall.store.create_table(self.game.name, self.variant, self.seed,
                                         [s.describe() for s in self.seats], self.options)
        d.addCallback(lambda store_id: setattr(self, "store_id", store_id))
        d.addCallback(lambda _: self.hall.store.update_table(self.store_id, state=PLAYING))
        return d

    def act(self, user: User, action: dict) -> list:
        """Apply ``action`` for ``user``'s seat. Raises IllegalAction/TableError with a reason."""
        index = self.seat_of(user)
        if self.state != PLAYING or index is None:
            raise TableError("You are not playing at this table")
        if self.engine.pending_seat() != index:
            raise TableError("It is not your turn")
        return self._apply(index, action)

    def _apply(self, index: int, action: dict) -> list:
        events = self.engine.apply(index, action)     # IllegalAction propagates, nothing changed
        self._cancel_timer()
        seq, self.seq = self.seq, self.seq + 1
        self._queue(lambda: self.hall.store.append_action(self.store_id, seq, index, action))
        self.hall.stats.actions += 1
        self._queue(lambda: self._after_apply(index, events))
        return events

    def _after_apply(self, index: int, events: list) -> None:
        self.emit("game", {"seat": index, "events": events})
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
        """How fast bots move here: None or 0 means at full speed (no delay)."""
        self.options["bot_delay"] = 1.0 / turns_per_second if turns_per_second else 0.0

    @property
    def bot_delay(self) -> float:
        return self.options.get("bot_delay", self.hall.bot_delay)

    def _advance(self) -> None:
        """Ask whoever must decide next; finish the game when the engine says it is over."""
        if self.state != PLAYING:
            return
        if self.engine.is_over():
            self._finish()
            return
        if self.paused:
            if self._steps <= 0:
                return
            self._steps -= 1
        index = self.engine.pending_seat()
        seat = self.seats[index]
        if seat.kind == "bot":
            if self._bot_call is None or not self._bot_call.active():
                self._bot_call = self.clock.callLater(self.bot_delay, self._bot_move, index, self.seq)
        elif seat.user is not None:
            self.emit("decision", {"seat": index}, [seat.user])
            timeout = self.options.get("turn_timeout", self.game.turn_timeout)
            if timeout:
                self._cancel_timer()
                self._timer = self.clock.callLater(timeout, self._turn_timed_out, index, self.seq)
        # a held seat waits for its human or for the hold to expire

    def _bot_move(self, index: int, seq: int) -> None:
        self._bot_call = None
        if self.state != PLAYING or seq != self.seq or self.engine.pending_seat() != index:
            return
        seat = self.seats[index]
        if seat.kind != "bot":
            return
        try:
            action = seat.brain.choose(self.engine, index)
            self._apply(index, action)
        except Exception:
            # A faulty bot must not stall the game: fall back on the passive default.
            self.log.failure("bot {bot} failed at game {id}", bot=seat.bot, id=self.id)
            self._apply(index, self.engine.timeout_action(index))

    def _turn_timed_out(self, index: int, seq: int) -> None:
        self._timer = None
        if self.state == PLAYING and seq == self.seq and self.engine.pending_seat() == index:
            user = self.seats[index].user
            if user is not None:
                self.emit("timeout", {"seat": index}, [user])
            self._apply(index, self.engine.timeout_action(index))

    def _cancel_timer(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None

    def _cancel_bot_call(self) -> None:
        if self._bot_call is not None and self._bot_call.active():
            self._bot_call.cancel()
        self._bot_call = None

    def _cancel_timer_for(self, index: int) -> None:
        if self.engine is not None and self.engine.pending_seat() == index:
            self._cancel_timer()

    def _finish(self) -> None:
        self.state = FINISHED
        self._cancel_timer()
        result = self.engine.result()
        record = self.engine.record() if hasattr(self.engine, "record") else None
        self._queue(lambda: self.hall.store.finish_table(self.store_id, FINISHED, result, record))
        self.emit("finished", {"result": result})
        self._release_all()
        self.hall.table_finished(self)

    def abort(self, reason: str) -> None:
        """Stop the table for good (operator's close); players are told why."""
        if self.state in (FINISHED, ABORTED):
            return
        was_playing = self.state == PLAYING
        self.state = ABORTED
        self._cancel_timer()
        if was_playing:
            self._queue(lambda: self.hall.store.finish_table(self.store_id, ABORTED, None, None))
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
        for seat in self.seats:
            seat.user = None

    # -- persistence ---------------------------------------------------
    def _persist_seats(self) -> None:
        if self.store_id is not None or self.state == PLAYING:
            self._queue(lambda: self.hall.store.update_table(self.store_id, seats=[s.describe() for s in self.seats]))

    def flush(self) -> Deferred:
        """Fires once every store write queued so far has completed."""
        done = Deferred()
        self._queue(lambda: done.callback(None))
        return done

    def _queue(self, step: Callable[[], object]) -> None:
        """Run ``step`` after every earlier store write has completed, in order."""
        self._tail.addCallback(lambda _: maybeDeferred(step))
        self._tail.addErrback(self._store_failed)

    def _store_failed(self, failure) -> None:
        self.log.failure("table {id}: store or follow-up failed", failure, id=self.id)

    def restore(self, row: dict) -> None:
        """Rebuild a table from the store: replay its actions, hold its humans' seats."""
        self.store_id, self.seed, self.variant = row["id"], row["seed"], row["variant"]
        self.options = dict(row.get("options") or {})
        self.seats = [Seat(name=s["name"], kind=s["kind"], bot=s.get("bot")) for s in row["seats"]]
        self.engine = self.game.new_engine(self.variant, self.players(), self.seed)
        for seat_index, action in row["actions"]:
            self.engine.apply(seat_index, action)
        self.seq = len(row["actions"])
        self.state = PLAYING
        for index, seat in enumerate(self.seats):
            if seat.kind == "bot":
                seat.brain = self._new_brain(seat.bot, index)
            elif seat.kind == "human":
                seat.hold = self.clock.callLater(self.hall.seat_hold, self._hold_expired, index)
