"""A table run by another process of the hall, as this process shows it: ``ReplicaTable``.

Every live table of the hall is in every process's ``hall.tables``; the tables of other
processes are replicas.  A replica mirrors its owner's state (seats, spectators, state,
options) from the owner's announcements, and, while a user or viewer of this process is at
the table, keeps an engine of its own: built from the store (the table's stored actions
replayed, as a restore does), then fed the owner's applied actions in ``seq`` order; a gap
(a message lost on the bus) is filled from the store, an old action ignored.  The engines
are deterministic, so the replica's engine is the owner's and every front end renders from
it as from a local table, events included (the replica's engine gives them).

What a user here asks of the table (join, act, chat...) is checked here as far as the
replica can (seat, turn, the action's legality on a copy of the engine) and refused at once
like a local table would, else forwarded to the owner (``ClusterTables.forward``), which
applies it to the real table; its outcome reaches this process as the owner's broadcast,
after the owner stored it.  A refusal that only the owner could see (another move came
first) comes back later: the user is told in a table chat notice and asked again.
"""
from __future__ import annotations

import copy
import pickle

from twisted.internet.defer import succeed
from zope.interface import implementer

from gamehall.interfaces import IllegalAction, IOutOfTurnEngine, IUserSink
from gamehall.lobby import User
from gamehall.table import FINISHED, ABORTED, PLAYING, WAITING, Seat, Table, TableError

#: told to a player whose move finds the table between two owners (the old one is gone)
MOVING_TEXT = ("The server running this game is gone; another one takes it over in a moment and "
               "asks you again")

#: events the owner tells one user alone (Table.emit with users=[...], bot_takeover's "left")
PERSONAL = ("decision", "timeout")


def seat_players_back(table: Table, asking=()) -> None:
    """Give ``table``'s held seats back to their players in this process's lobby at no
    table (not those ``asking`` for it already): they signed in here before this process
    showed or ran the table (a replica just listed; a table just taken over), and get the
    seat as at a sign-in, with the secret their front end keeps (a browser's token)."""
    if table.state != PLAYING:
        return
    for index, seat in enumerate(table.seats):
        user = table.hall.lobby.find(seat.name)
        if (user is not None and user.process is None and user.table is None
                and user.key not in asking and table.held_seat(seat.name) == index):
            try:
                table.reconnect(user, getattr(user.sink, "seat_secret", None))
            except TableError as exc:
                table.log.info("{nick} not given the seat at game #{id}: {why}", nick=user.nickname,
                               id=table.id, why=exc)


def trial_copy(engine):
    """A copy of ``engine`` to try an action on, the engine left as it is: pickled and read
    back, which takes a fifth of ``copy.deepcopy``'s time for an engine's plain data, and
    shares nothing with the host; or deepcopy for an engine that does not pickle."""
    kind = type(engine)
    if kind not in _UNPICKLED:
        try:
            return pickle.loads(pickle.dumps(engine, pickle.HIGHEST_PROTOCOL))
        except (pickle.PicklingError, TypeError, AttributeError):
            _UNPICKLED.add(kind)
    return copy.deepcopy(engine)


_UNPICKLED: set[type] = set()      # engine classes that do not pickle: copied by deepcopy


def personal(event: str, detail: dict) -> bool:
    return event in PERSONAL or (event == "left" and bool(detail.get("replaced_by_bot")))


@implementer(IUserSink)
class Elsewhere:
    """The sink of a player connected to another process, on a replica's seat: told nothing
    here (its own process tells it)."""

    def lobby_chat(self, sender, text) -> None:
        pass

    def lobby_changed(self, event, detail) -> None:
        pass

    def table_event(self, table, event, detail) -> None:
        pass

    def disconnect(self, reason) -> None:
        pass


ELSEWHERE = Elsewhere()


class ReplicaTable(Table):
    """A table whose owner is another process (``owner``); see the module docstring.
    Made by ``ClusterTables`` (``cluster``: it), never by front ends."""

    remote = True

    def __post_init__(self) -> None:
        super().__post_init__()
        self.owner: str = ""
        self.owner_epoch = 0                  # the owner's lease epoch: a lower one is a former owner's
        self.cluster = None                   # the ClusterTables that keeps it
        self.version = -1                     # of the last owner state applied
        self.connected: list[bool] = []       # per seat: the owner has its player connected
        self.spectator_names: list[str] = []  # everyone watching, hall-wide
        self.visitors = 0
        self.pending: dict[str, User] = {}    # key -> local user whose join the owner decides
        self.secrets: dict[str, str | None] = {}   # key -> the secret a pending user gave
        self.owner_lost = False               # its owner is gone; the new one is not known yet
        self._state: dict = {"summary": {"seats": []}}   # the owner's last state applied
        self._elsewhere: dict[str, User] = {}  # key -> stand-in of a player connected elsewhere
        self.deadline: tuple[int, float] | None = None  # (seq, owner's clock) of our decision
        self.loading = False
        self.backlog: list[dict] = []
        self.shown = False                    # subscribed to the owner's table channel
        self.subscribed = None                # the subscription's Deferred
        self.recheck = False                  # after a bus cut: ask our players again if need be
        self.asked: dict[str, int] = {}       # user key -> seq of the owner's last decision for it
        self.inflight = 0                     # requests to the owner not answered yet
        self.waiting_steps: list = []         # after_stored steps waiting for them
        self.on_loaded: list = []             # one-shot callables once the engine is built here
        # moves of users here are tried on a second engine before they go to the owner; it is
        # kept in step with ``engine`` rather than copied at every move: (engine, seq, spare)
        # while it is ``engine`` at seq, and (engine, seq, seat, action, spare) once that move
        # was tried on it (it is ``engine`` at seq + 1 if the owner plays that move)
        self._spare: tuple | None = None
        self._tried: tuple | None = None

    # -- the owner's state -------------------------------------------------
    def apply_state(self, state: dict) -> None:
        """The owner's state (``ClusterTables.state_of``), if newer than the one we have."""
        if state.get("v", -1) <= self.version and state.get("owner") == self.owner:
            return
        if self.owner and state.get("owner") and state["owner"] != self.owner:
            self._owner_changed(state)
            return
        self.version = state.get("v", -1)
        self.owner = state.get("owner") or self.owner
        summary = state["summary"]
        self.state, self.variant = summary["state"], summary["variant"]
        self.max_seats, self.creator = summary["max_seats"], summary["creator"]
        self.seed, self.options, self.store_id = state.get("seed"), dict(state.get("options") or {}), state.get("store_id")
        self.spectator_names, self.visitors = list(summary.get("spectators") or ()), summary.get("visitors", 0)
        self.connected = list(state.get("connected") or [])
        self._state = state
        self._rebuild()

    def _rebuild(self) -> None:
        """The seats as the owner has them, with this process's users on theirs; a seat a
        user here asked for and the owner has not given yet is shown as taken (the owner's
        word on it comes later: ``pending``)."""
        local = {seat.name.casefold(): seat.user for seat in self.seats if self._here(seat.user)}
        seats = []
        for index, row in enumerate(self._state["summary"]["seats"]):
            seat = Seat(name=row["name"], kind=row["kind"], bot=row.get("bot"),
                        registered=row.get("registered") is True)
            key = seat.name.casefold()
            connected = index < len(self.connected) and self.connected[index]
            user = local.get(key) if connected and seat.kind == "human" else None
            if key in self.pending:
                user = self.pending.pop(key) if connected else self.pending[key]
            if user is not None:
                seat.user = user
                user.table, user.watching = self, False
            elif connected and seat.kind == "human":
                # its player is connected elsewhere: shown connected, as front ends show seats
                seat.user = self._elsewhere.get(key) or User(nickname=seat.name, frontend="elsewhere",
                                                             sink=ELSEWHERE)
                self._elsewhere[key] = seat.user
            seats.append(seat)
        if self.state == WAITING:
            for key, user in self.pending.items():
                if not any(s.name.casefold() == key for s in seats):
                    seats.append(Seat(name=user.nickname, kind="human", user=user))
                    user.table, user.watching = self, False
        for key, user in local.items():          # gone from the owner's table: no longer here
            if not any(s.user is user for s in seats) and user.table is self and not user.watching:
                user.table = None
        self.seats = seats

    def seated_by_owner(self, users: dict) -> None:
        """Users of this process whom the owner seated itself (an E&T invitation accepted
        here, the game made on the inviter's process): ``users`` maps each to its seat's
        secret.  Shown on their seats until the owner's state names them, as a join is."""
        for user, secret in users.items():
            self.pending[user.key] = user
            self.secrets[user.key] = secret
        self._rebuild()
        self._changed()

    def _here(self, user: User | None) -> bool:
        """Whether ``user`` is a user of this process (not a stand-in for one elsewhere)."""
        return user is not None and user.sink is not ELSEWHERE

    def audience(self) -> list[User]:
        return [s.user for s in self.seats if self._here(s.user)] + list(self.spectators)

    def local_seated(self) -> list[tuple[int, User]]:
        return [(i, s.user) for i, s in enumerate(self.seats) if self._here(s.user)]

    def _unpend(self, user: User) -> None:
        """The owner did not give ``user`` the seat it asked for (shown taken here): it is
        taken back, with a "left" event to that user."""
        index = self.seat_of(user)
        if self.pending.pop(user.key, None) is not None:
            self._rebuild()
            if user.table is self and not user.watching:
                user.table = None
            if index is not None:
                try:
                    user.sink.table_event(self, "left", {"seat": index, "nickname": user.nickname})
                except Exception:
                    self.log.failure("sink failed")

    def owner_gone(self) -> None:
        """Its owner's process is gone; a process will take the table over from the store.
        The players connected there are not any more: one who logs in here meanwhile is
        given its held seat (``reconnect``), asked of the new owner once there is one."""
        self.owner_lost = True
        self.connected = [bool(c) and i < len(self.seats) and self._here(self.seats[i].user)
                          for i, c in enumerate(self.connected)]
        self._rebuild()

    def _owner_changed(self, state: dict) -> None:
        """Another process took the table over (its owner is gone): it held every seat, as a
        restore does; the users here who sat or watched ask for theirs again (those whose
        seat the old owner had not given yet ask for it as a join does, with their secret)."""
        seated = [s.user for s in self.seats if self._here(s.user)]
        asked = {key: self.secrets.get(key) for key in self.pending}
        self.owner_lost = False
        self.owner, self.version = state["owner"], -1
        self.apply_state(state)
        for user in seated:
            self.pending[user.key] = user
        self._rebuild()                      # (they keep their seats here meanwhile)
        for user in seated:

            def refused(reason, user=user):
                self._unpend(user)
                self._refused(user, reason)
            if user.key in asked:
                self._forward("join", user, {"secret": asked[user.key]}, refused)
            else:
                self._forward("rejoin", user, {}, refused)
        for user in list(self.spectators):
            self._forward("watch", user, {})
        self.seat_players_back()

    def seat_players_back(self) -> None:
        """Players of this process, in its lobby and at no table, whose seat here is held: a
        player of a dead owner who signed in on this process before it knew the table (a
        worker started in place of the dead one) asks for the seat now, as at a sign-in."""
        seat_players_back(self, asking=self.pending)

    def summary(self) -> dict:
        summary = super().summary()
        summary["spectators"] = list(self.spectator_names)
        summary["visitors"] = self.visitors
        return summary

    def held_seat(self, nickname: str) -> int | None:
        key = nickname.casefold()
        for index, seat in enumerate(self.seats):
            connected = index < len(self.connected) and self.connected[index]
            if seat.name.casefold() == key and not connected and (
                    seat.kind == "human" or seat.name in self.options.get("humans", ())):
                return index
        return None

    def turn_deadline(self) -> float | None:
        if self.deadline is not None and self.deadline[0] == self.seq:
            return self.deadline[1]
        return None

    def emit(self, event: str, detail: dict, users: list[User] | None = None, action=None) -> None:
        # the audience here; the game's service here renders broadcasts for its connections
        # (what only the table's owner does, deadlines, it leaves to the owner: ``remote``);
        # nothing is relayed: the owner relays
        self.tell_here(event, detail, users)

    def local_audience(self) -> bool:
        """Whether anyone of this process is at the table (or asking to be)."""
        return bool(self.pending or self.viewers or self.audience())

    # -- forwarded requests ------------------------------------------------
    def _forward(self, op: str, user: User | None, body: dict | None = None, on_refusal=None) -> None:
        self.cluster.forward(self, op, user, body or {}, on_refusal)

    def _refused(self, user: User | None, reason: str) -> None:
        """The owner refused what ``user`` asked: tell it at the table, as the hall speaks."""
        self._notice(user, f"Not done: {reason}", "refused")

    def _notice(self, user: User | None, text: str, notice: str) -> None:
        if user is None:
            return
        try:
            user.sink.table_event(self, "chat", {"nickname": "*", "text": text, "notice": notice})
        except Exception:
            self.log.failure("sink failed")

    def join(self, user: User, secret: str | None = None) -> int:
        if user.table is not None:
            raise TableError(f"You are already at game #{user.table.id}")
        if self.state == PLAYING:
            return self.reconnect(user, secret)
        self.check_seat_free(user)           # what the owner would refuse, refused here at once
        return self._ask_seat(user, secret, len(self.seats))

    def reconnect(self, user: User, secret: str | None = None) -> int:
        index = self.held_seat(user.nickname) if self.state == PLAYING else None
        if index is None:
            raise TableError(f"Game #{self.id} has started and has no seat held for {user.nickname}")
        return self._ask_seat(user, secret, index)

    def _ask_seat(self, user: User, secret: str | None, index: int) -> int:
        self.pending[user.key] = user
        self.secrets[user.key] = secret
        self._rebuild()                      # seated here at once; the owner's word follows
        if self.owner_lost:                  # asked of the new owner (ClusterTables._restore)
            return index

        def refused(reason):
            self._unpend(user)
            self._refused(user, reason)
            self.cluster.unshow_if_unseen(self)
        self._forward("join", user, {"secret": secret}, refused)
        return index

    def watch(self, user: User) -> None:
        if user.table is not None:
            raise TableError(f"You are already at game #{user.table.id}")
        if self.state not in (WAITING, PLAYING):
            raise TableError(f"Game #{self.id} is over")
        self.spectators.append(user)
        user.table, user.watching = self, True

        def refused(reason):
            if user in self.spectators:
                self.spectators.remove(user)
                user.table, user.watching = None, False
            self._refused(user, reason)
            self.cluster.unshow_if_unseen(self)
        self._forward("watch", user, {}, refused)

    def add_viewer(self, sink) -> None:
        new = sink not in self.viewers
        super().add_viewer(sink)
        if new:
            self.cluster.show(self)            # followed from now on, while anyone here watches

    def remove_viewer(self, sink) -> None:
        if sink in self.viewers:
            super().remove_viewer(sink)
            self.cluster.unshow_if_unseen(self)

    def leave(self, user: User, release: bool = False) -> None:
        self._detach_local(user)
        self._forward("leave", user, {"release": release})

    def user_disconnected(self, user: User) -> None:
        self._detach_local(user)
        self._forward("disconnected", user)

    def _detach_local(self, user: User) -> None:
        user.table, user.watching = None, False
        if self.pending.pop(user.key, None) is not None:
            self._rebuild()
        if user in self.spectators:
            self.spectators.remove(user)
        for seat in self.seats:
            if seat.user is user:
                seat.user = None
        self.cluster.unshow_if_unseen(self)

    def chat(self, user: User, text: str) -> None:
        self._forward("chat", user, {"text": text}, lambda reason: self._refused(user, reason))

    def start(self, user: User | None = None) -> None:
        self._ask_start(user, fill=False)

    def fill_and_start(self, user: User | None) -> None:
        """Bots in the seats still needed, then the start: one request, as the owner's seats
        reach this replica only later (a front end's "fill" loop would wait for them here)."""
        self._ask_start(user, fill=True)

    def _ask_start(self, user: User | None, fill: bool) -> None:
        if self.state != WAITING:
            raise TableError(f"Game #{self.id} has already started")
        if user is not None and self.creator and user.nickname != self.creator:
            raise TableError("Only the game's creator can start it")
        if not fill and not self.game.min_seats <= len(self.seats) <= self.game.max_seats:
            raise TableError(f"{self.game.title} needs {self.game.min_seats} to {self.game.max_seats} players")
        self._forward("start", user, {"fill": True} if fill else {}, lambda reason: self._refused(user, reason))

    def add_bot(self, bot: str | None = None, name: str | None = None) -> int:
        if self.state != WAITING:
            raise TableError("Bots can be added only before the game starts")
        if len(self.seats) >= self.max_seats:
            raise TableError(f"Player limit exceeded: game #{self.id} has {self.max_seats} players")
        self._check_bot(bot)
        asker = next(iter(self.audience()), None)
        self._forward("add_bot", None, {"bot": bot, "name": name}, lambda reason: self._refused(asker, reason))
        return len(self.seats)

    def remove_bot(self, index: int) -> None:
        if self.state != WAITING:
            raise TableError("Bots can be removed only before the game starts")
        if not 0 <= index < len(self.seats) or self.seats[index].kind != "bot":
            raise TableError(f"Seat {index + 1} of game #{self.id} is not a bot")
        self._forward("remove_bot", None, {"index": index})

    def set_secret(self, index: int, secret: str | None) -> None:
        if not 0 <= index < len(self.seats):
            raise TableError(f"Game #{self.id} has no seat {index + 1}")
        self._forward("set_secret", None, {"index": index, "secret": secret})

    def claimed(self, index: int, address: str, secret: str | None = None) -> None:
        self._forward("claimed", None, {"index": index, "address": address, "secret": secret})

    def act(self, user: User, action: dict) -> list:
        index = self.seat_of(user)
        if self.state != PLAYING or index is None:
            raise TableError("You are not playing at this table")
        return self._act(index, action, user)

    def act_for(self, index: int, action: dict) -> list:
        if self.state != PLAYING or self.engine is None or not IOutOfTurnEngine.providedBy(self.engine):
            raise TableError(f"Game #{self.id} takes no actions out of turn")
        return self._act(index, action, None)

    def forward_act(self, index: int, action: dict, on_refusal) -> list:
        """``act_for`` for a front end that renders every move from the owner's broadcast
        (PIMP): checked here on a copy of the engine (its events returned, to be told to
        nobody), then asked of the owner; ``on_refusal(reason)`` if the owner refuses it."""
        if self.state != PLAYING or self.engine is None or not IOutOfTurnEngine.providedBy(self.engine):
            raise TableError(f"Game #{self.id} takes no actions out of turn")
        return self._act(index, action, None, on_refusal)

    def ask_service(self, user: User | None, body: dict, on_refusal=None) -> None:
        """What the game's service must do where the table runs (its ``cluster_request``,
        e.g. PIMP putting a user of this process on its seat)."""
        self._forward("service", user, {"request": body}, on_refusal)

    def _act(self, index: int, action: dict, user: User | None, on_refusal=None) -> list:
        if self.engine is None or self.loading:
            raise TableError("The game is still being loaded here; try again in a moment")
        if not self._may_act(index):
            raise TableError("It is not your turn")
        # the owner's engine is ours at this seq: an illegal action is refused here, at once
        seq = self.seq
        trial = self._trial_engine()
        # (an engine that does not pickle may hold the host's callbacks, PIMP's on_move: no
        # spare of it is kept, to play every move there too)
        keep = type(self.engine) not in _UNPICKLED
        try:
            events = trial.apply(index, action)
        except IllegalAction:
            if keep:
                self._spare = (self.engine, seq, trial)     # unchanged by a refused action (IEngine.apply)
            raise
        if keep:
            self._tried = (self.engine, seq, index, action, trial)
        if self.owner_lost and user is not None:
            # its owner is gone and the new one is not known yet: sent nowhere (the new owner
            # asks again when this user's seat is asked of it: _owner_changed)
            self._notice(user, MOVING_TEXT, "moved")
            return events

        def refused(reason):
            if on_refusal is not None:
                on_refusal(reason)
                return
            # another move came first (a turn timer, a bid): say so, and ask again if still ours
            self._refused(user, reason)
            if user is not None and self.seat_of(user) == index and self.engine is not None \
                    and self._pending(index) and self.seq >= seq:
                self.emit("decision", {"seat": index}, [user])
        # (no user: an action for a seat, act_for's, e.g. a PIMP join request for seat -1)
        self._forward("act" if user is not None else "act_for", user,
                      {"seat": index, "action": action, "seq": seq}, refused)
        return events

    def replay(self, actions) -> None:
        raise TableError(f"Game #{self.id} is run by another process of the hall")

    def seat_user(self, index: int, user: User, secret: str | None = None) -> None:
        raise TableError(f"Game #{self.id} is run by another process of the hall")

    def bot_takeover(self, index: int, bot: str | None = None) -> None:
        if not 0 <= index < len(self.seats):
            raise TableError(f"Game #{self.id} has no seat {index + 1}")
        self._forward("bot_takeover", None, {"index": index, "bot": bot})

    def abort(self, reason: str) -> None:
        self._forward("abort", None, {"reason": reason})

    def pause(self) -> None:
        self._forward("pause", None)

    def resume(self) -> None:
        self._forward("resume", None)

    def step(self) -> None:
        self._forward("step", None)

    def set_speed(self, turns_per_second: float | None) -> None:
        self._forward("speed", None, {"tps": turns_per_second})

    def play_on(self) -> None:
        pass

    def flush(self):
        return succeed(None)                 # (a replica writes nothing)

    def after_stored(self, step) -> None:
        """``step`` once the owner has stored what this process asked of it so far (each
        request is answered after the owner's store write), at once if nothing is asked."""
        if self.inflight:
            self.waiting_steps.append(step)
        else:
            step()

    def request_done(self) -> None:
        self.inflight -= 1
        if not self.inflight:
            steps, self.waiting_steps = self.waiting_steps, []
            for step in steps:
                try:
                    step()
                except Exception:
                    self.log.failure("table {id}: a step after the owner's answer failed", id=self.id)

    def merge_options(self, options: dict) -> None:
        """A front end keeps something in the table's options (DAIDE's client names): where
        the table runs (dict values merged: another process may add its own)."""
        self._forward("merge_options", None, {"options": options})

    def persist_options(self) -> None:
        pass                                 # (the owner stores its options)

    # -- the owner's messages ----------------------------------------------
    def received(self, message: dict) -> None:
        """One message of the owner's table channel (``ClusterTables``), in order."""
        if self.loading:
            self.backlog.append(message)
            return
        kind = message.get("t")
        if kind == "act":
            self._action(message)
        elif kind == "ev":
            self._event(message)
        elif kind == "to":
            self._personal(message)
        elif kind == "many":                 # (ClusterTables.publish_held: several, in order)
            for one in message.get("m") or ():
                self.received(one)

    def _action(self, message: dict) -> None:
        seq = message["seq"]
        if self.engine is None:
            if self.state == PLAYING and self.shown:
                self.backlog.append(message)
                self.cluster.load(self)
            return
        if seq <= self.seq:
            return                           # had it already (from the store)
        if seq > self.seq + 1:               # one was lost on the bus: the store has it
            self.backlog.append(message)
            self.cluster.load(self)
            return
        self._apply_owned(message["seat"], message["action"])

    def _trial_engine(self):
        """An engine to try a move of a user here on, in the state of ours: the spare one
        kept in step with it (``_apply_owned``), else a copy."""
        spare, self._spare = self._spare, None
        if spare is not None and spare[0] is self.engine and spare[1] == self.seq:
            return spare[2]
        return trial_copy(self.engine)

    def _apply_owned(self, index: int, action: dict) -> None:
        seq, engine = self.seq, self.engine
        events = engine.apply(index, action)
        self.seq = self._told = seq + 1
        # the spare engine follows ours: the move tried on it was this one (the owner played
        # the move asked of it: no copy at the next move tried here), or it is played there too
        tried, spare, self._tried, self._spare = self._tried, self._spare, None, None
        if tried is not None and tried[0] is engine and tried[1] == seq and tried[2] == index \
                and tried[3] == action:
            self._spare = (engine, seq + 1, tried[4])
        elif spare is not None and spare[0] is engine and spare[1] == seq:
            try:
                spare[2].apply(index, action)
            except Exception:
                self.log.failure("table {id}: the spare engine refused the owner's move", id=self.id)
            else:
                self._spare = (engine, seq + 1, spare[2])
        self.emit("game", {"seat": index, "events": events, "seq": self.seq})

    def _event(self, message: dict) -> None:
        state, event, detail = message["state"], message["event"], message["detail"]
        if self.state == PLAYING and self.engine is not None and state.get("seq", 0) > self.seq:
            self.backlog.append(message)     # actions before it were lost: the store has them
            self.cluster.load(self)
            return
        self.apply_state(state)
        if self.state == PLAYING and self.engine is None and self.shown:
            self.backlog.append(message)     # started (or first seen playing): build the engine first
            self.cluster.load(self)
            return
        if event in ("finished", "aborted") or self.state in (FINISHED, ABORTED):
            self.end(event if event in ("finished", "aborted") else "aborted", detail)
            return
        self.emit(event, detail)
        self._changed()

    def end(self, event: str, detail: dict) -> None:
        """The game is over at its owner ("finished" or "aborted"): told here, then gone
        (the engine stays with the object, for a front end that draws the final board)."""
        self.state = FINISHED if event == "finished" else ABORTED
        self.emit(event, detail)
        self._release_all()
        self.pending.clear()
        self.hall.remove_table(self)
        self.cluster.unfollow(self)

    def _personal(self, message: dict) -> None:
        if message.get("pid") != self.cluster.node.process_id:
            return
        key, event, detail = message["nick"].casefold(), message["event"], message["detail"]
        user = next((u for _, u in self.local_seated() if u.key == key), None)
        if user is None:
            return
        if event == "decision":
            self.asked[key] = message.get("seq", self.seq)
            if message.get("deadline") is not None:
                self.deadline = (message.get("seq", self.seq), message["deadline"])
        if event == "left":
            for seat in self.seats:
                if seat.user is user:
                    seat.user = None
            user.table, user.watching = None, False
        try:
            user.sink.table_event(self, event, detail)
        except Exception:
            self.log.failure("table_event {event} failed for {nick}", event=event, nick=user.nickname)
        if event == "left":
            self.cluster.unshow_if_unseen(self)

    def loaded(self, row: dict) -> None:
        """The store's row of the table: build the engine (first time) or catch up (a gap)."""
        actions = row.get("actions") or []
        if self.engine is None:
            mirrored = self.seats
            self.seed, self.variant, self.options = row["seed"], row["variant"], dict(row.get("options") or {})
            self.store_id = row["id"]
            self.seats = [Seat(name=s["name"], kind=s["kind"], bot=s.get("bot")) for s in row["seats"]]
            try:
                self.engine = self._new_engine()
                for seat, action in actions:
                    self.engine.apply(seat, action)
            finally:
                self.seats = mirrored
            self.seq = self._told = len(actions)
        else:
            for seat, action in actions[self.seq:]:
                self._apply_owned(seat, action)
        self.loading = False
        backlog, self.backlog = self.backlog, []
        for message in backlog:
            self.received(message)
        if self.recheck and not self.loading:
            self.recheck = False
            self._ask_again()
        if self.engine is not None and not self.loading:
            hooks, self.on_loaded = self.on_loaded, []
            for hook in hooks:
                try:
                    hook()
                except Exception:
                    self.log.failure("table {id}: a step after the replica's load failed", id=self.id)

    def _ask_again(self) -> None:
        """The owner's decision for a player here may have been lost with the bus: ask it
        again from the replica's engine (the owner's), unless it came for this very move."""
        if self.state != PLAYING or self.engine is None or self.engine.is_over():
            return
        for index, user in self.local_seated():
            if self._pending(index) and self.asked.get(user.key) != self.seq:
                self.asked[user.key] = self.seq
                self.emit("decision", {"seat": index}, [user])

    def drop_engine(self) -> None:
        """Nobody here shows the table any more: no engine to keep up."""
        self.engine, self.seq, self._told = None, 0, 0
        self._spare = self._tried = None
        self.backlog.clear()
        self.cache.clear()
