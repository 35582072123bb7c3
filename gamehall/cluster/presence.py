"""The hall-wide lobby: every process's users, one namespace of nicknames, one lobby chat.

Each process of the hall keeps, in its own ``Lobby``, the users of every other process as
``User``\\ s whose ``process`` names theirs and whose sink (``RemoteSink``) shows nothing:
their own process tells them what happens.  So every front end's user list, the console's
``who``, the web page and the lookalike check at login see the whole hall unchanged, and the
local users hear of the others coming and going in the lobby's usual notices (batched by
its window).

What goes on the bus (``ClusterNode`` broadcasts on the ``hall`` channel, in order per
sender; every presence message carries the sender's running number ``n``, so a receiver
that sees a gap, at-most-once delivery having lost one, asks for a snapshot):

- ``presence.join`` / ``presence.leave``: one user of the sender (nickname, front end,
  where it is); ``presence.moved``: users of the sender who sat down, watch or left a
  table; ``presence.snapshot``: all the sender's users, sent when a peer appears, when asked
  (``presence.want``) and when the bus is back after an outage; broadcast like the rest
  (not told to the one peer that needs it), so that it stays in order with the joins and
  leaves around it.
- ``presence.chat``: a lobby chat line said on the sender, told there to its own users; an
  operator's ``say`` carries a number, and each process tells the sender
  (``presence.reached``) how many users it reached.
- Requests: ``presence.kick`` (kick a user of the process asked; the console's other
  requests are gamehall.cluster.operator's).

A process that is gone (``ClusterNode.on_peer_gone``: killed, its heartbeat lapsed, or
stopped) takes its users out of every other lobby.

Names.  ``Hall.login`` checks the local lobby at once (it mirrors the other processes).  Two
processes may still admit one name (or lookalikes) at the same moment, before either hears
of the other: so each login also claims the nickname's lookalike keys on the bus
(``IBus.claim``, key ``nick:<key>``, owner the process id, ``claim_ttl`` seconds, renewed
every ``renew_every``), one key after another in sorted order, so that of two lookalike
logins exactly one gets them all.  A login is announced to the other processes only once
its claims are held; one that loses a claim is undone: the user is disconnected with the
protocol's duplicate-name message (``sink.disconnect``) and logged out.  A key held by a
process that is no longer alive (``IBus.processes``) is freed and claimed again, so a
killed process's users can log in elsewhere at once, not a TTL later.  A key held by a
process listed alive that has never spoken to this one (no numbered presence message from
it) is tried again every heartbeat, up to ``STALE_WAIT`` of them, before the login is
undone: a process started after another was killed finds the dead one's announcement
alive for up to 3 heartbeats, and it never hears from it; a live holder speaks within a
heartbeat of seeing this process (its snapshot), and then its claim stands.

The bus down.  Nobody is locked out: a login checks the local lobby only (which still
lists the other processes' users as they were) and is admitted, its claims left to make.
Each renewal (and ``bus_state(True)``) tries again; once the bus answers, the claims of
every user admitted meanwhile are made, and if two processes admitted lookalikes during
the outage, the one whose claim loses is disconnected as a duplicate.  The process then
sends its snapshot and asks the others for theirs, since messages of the outage are lost.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from twisted.internet.defer import Deferred, gatherResults, inlineCallbacks, succeed
from twisted.internet.task import deferLater
from zope.interface import implementer

from gamehall.bus import BusUnavailable
from gamehall.interfaces import IChatlessSink, IUserSink
from gamehall.lobby import LobbyError, User, check_nickname
from gamehall.logger import SharedLogger
from gamehall.text import clean_text, lookalike_keys

from .node import NoAnswer, RemoteRefusal

CLAIM_TTL = 30.0        # seconds a nickname claim lives without a renewal
RENEW_EVERY = 10.0      # seconds between renewals (and retries while the bus is down)
SAY_WAIT = 5.0          # seconds an operator's `say` waits for the other processes' counts
# heartbeats a login waits when its name is held by a process listed alive that this one has
# never heard (a killed process's announcement lives 3 heartbeats): one more to see it lapse
STALE_WAIT = 4
WAIT = "wait"           # _take_stale: not known yet, look again a heartbeat later

_log = SharedLogger(namespace="gamehall.cluster.presence")

# a local user's claim on its name
CLAIMING, HELD, UNCLAIMED, LOST = "claiming", "held", "unclaimed", "lost"


def duplicate_reason(nickname: str) -> str:
    """What a user whose login lost the hall-wide claim is told as it is disconnected."""
    return (f"Duplicate user Nickname {nickname}: that name, or one that looks like it, was taken "
            f"at the same moment on another server of this hall. Choose another one.")


@implementer(IUserSink)
class RemoteSink:
    """The sink of a user of another process: it shows nothing (that process tells the user
    what happens) and cannot be disconnected from here (``Hall.kick`` asks that process)."""

    def lobby_chat(self, sender: str, text: str) -> None:
        pass

    def lobby_changed(self, event: str, detail: dict) -> None:
        pass

    def table_event(self, table, event: str, detail: dict) -> None:
        pass

    def disconnect(self, reason: str) -> None:
        pass


REMOTE_SINK = RemoteSink()


@dataclass(frozen=True)
class RemotePlace:
    """The table a user of another process sits or watches at, as user lists show it
    (``User.where``, NetAcquire's LU): its number and state."""

    id: int
    state: str


def place_of(user: User) -> list | None:
    """Where ``user`` is, as the bus carries it: None (lobby) or [table id, state, watching]."""
    table = user.table
    if table is None:
        return None
    return [table.id, str(getattr(table, "state", "")), bool(user.watching)]


class _Mine:
    """A user of this process: its lookalike keys, which of them this process holds on the
    bus, whether the others were told of it, and where it was last said to be."""

    __slots__ = ("user", "keys", "got", "state", "announced", "place")

    def __init__(self, user: User) -> None:
        self.user = user
        self.keys = sorted(lookalike_keys(user.nickname))
        self.got: list[str] = []
        self.state = CLAIMING
        self.announced = False
        self.place = place_of(user)


class Presence:
    """This process's side of the hall-wide lobby (see the module docstring)."""

    log = _log

    def __init__(self, hall, node, *, claim_ttl: float = CLAIM_TTL, renew_every: float = RENEW_EVERY,
                 say_wait: float = SAY_WAIT) -> None:
        self.hall, self.node = hall, node
        self.clock, self.bus = node.clock, node.bus
        self.claim_ttl, self.renew_every, self.say_wait = claim_ttl, renew_every, say_wait
        self.mine: dict[str, _Mine] = {}                 # user key -> a local user
        self.held: dict[str, _Mine] = {}                 # lookalike key held on the bus -> its user
        self.releasing: set[str] = set()                 # keys to free (a release that failed)
        self.remote: dict[str, dict[str, User]] = {}     # process -> user key -> its user here
        self.waiting: dict[tuple[str, str], User] = {}   # remote users whose name clashes, for now
        self._seq = itertools.count(1)
        self._seq_in: dict[str, int] = {}                # process -> its last presence number
        self._asked: set[str] = set()                    # processes asked for a snapshot
        self._at: dict[int, set[str]] = {}               # table id -> local users last said there
        self._says: dict[int, dict[str, tuple[Deferred, object]]] = {}
        self._say_numbers = itertools.count(1)
        self._tick_call = None
        self._down = False                               # an operation failed: the bus is down
        self._unknown: set[str] = set()                  # processes with users here, not peers
        self._running = False

    @property
    def process_id(self) -> str:
        return self.node.process_id

    # -- life ------------------------------------------------------------
    def start(self) -> None:
        """Listen (before the node starts, so that the first peers seen get a snapshot)."""
        node = self.node
        for kind, handler in (("presence.join", self._on_join), ("presence.leave", self._on_leave),
                              ("presence.moved", self._on_moved), ("presence.snapshot", self._on_snapshot),
                              ("presence.want", self._on_want), ("presence.chat", self._on_chat),
                              ("presence.reached", self._on_reached)):
            node.on_message(kind, handler)
        node.on_request("presence.kick", self._on_kick)
        node.on_peer_joined.append(self._peer_joined)
        node.on_peer_gone.append(self._peer_gone)
        self.hall.lobby.relay = self.relay_chat
        self._running = True
        for user in list(self.hall.lobby.users.values()):     # logged in before the cluster began
            if user.process is None and user.key not in self.mine:
                self.user_logged_in(user)
        self._tick_call = self.clock.callLater(self.renew_every, self._tick)

    def stop(self) -> Deferred:
        """Free this process's names (its users are gone from the others with the node's bye)."""
        self._running = False
        if self._tick_call is not None and self._tick_call.active():
            self._tick_call.cancel()
        self._tick_call = None
        self.hall.lobby.relay = None
        for waits in list(self._says.values()):
            for pid in list(waits):
                self._said(waits, pid, None)
        keys, self.held = list(self.held), {}
        return gatherResults([self._release(key) for key in keys])

    # -- local users: claims ------------------------------------------------
    def user_logged_in(self, user: User) -> None:
        """``Hall.login`` admitted ``user`` (the local check passed): claim its name hall-wide."""
        mine = _Mine(user)
        self.mine[user.key] = mine
        self._claim(mine)

    def _claim(self, mine: _Mine) -> None:
        mine.state = CLAIMING
        d = self._claim_keys(mine)
        d.addCallbacks(self._claimed, self._not_claimed, callbackArgs=(mine,), errbackArgs=(mine,))

    @inlineCallbacks
    def _claim_keys(self, mine: _Mine):
        """Claim each key not held yet, in order; None when all are held, else the key lost."""
        for key in mine.keys:
            if self.held.get(key) is mine:
                continue
            waited = 0.0
            while True:
                won = yield self.bus.claim("nick:" + key, self.process_id, self.claim_ttl)
                if not won:
                    won = yield self._take_stale(key, mine)
                if won is not WAIT:
                    break
                # held by a process listed alive that never spoke to this one: a killed
                # process whose announcement has not lapsed yet (this one started after it
                # died), or a live one whose snapshot is on its way; a heartbeat later we know
                if waited >= STALE_WAIT or self.mine.get(mine.user.key) is not mine:
                    won = False
                    break
                yield deferLater(self.clock, self.node.heartbeat, lambda: None)
                waited += 1
            if not won:
                return key
            self.releasing.discard(key)
            self.held[key] = mine
            mine.got.append(key)
        return None

    @inlineCallbacks
    def _take_stale(self, key: str, mine: _Mine):
        """A claim refused: take the key all the same when its holder is this process with
        no user on it (a release that did not get through) or a process no longer alive;
        WAIT when its holder is listed alive but has never spoken to this process."""
        name = "nick:" + key
        owner = yield self.bus.owner(name)
        if owner is None:                                    # freed in between
            return (yield self.bus.claim(name, self.process_id, self.claim_ttl))
        if owner == self.process_id:
            holder = self.held.get(key)
            if holder is not None and holder is not mine and holder.user.key in self.mine:
                return False
            kept = yield self.bus.renew([name], self.process_id, self.claim_ttl)
            return bool(kept)
        alive = yield self.bus.processes()
        if owner in alive:
            # known alive (it told this process its users): its claim stands; never heard
            # of: it may be a dead process whose announcement lives on for a while
            return False if owner in self._seq_in else WAIT
        self.log.info("nickname key {key!r} was held by {owner}, which is gone: freed", key=key, owner=owner)
        yield self.bus.release(name, owner)
        return (yield self.bus.claim(name, self.process_id, self.claim_ttl))

    def _claimed(self, lost: str | None, mine: _Mine) -> None:
        if self.mine.get(mine.user.key) is not mine:          # logged out meanwhile
            self._release_all(mine)
            return
        if lost is None:
            mine.state = HELD
            if not mine.announced:
                mine.announced = True
                mine.place = place_of(mine.user)
                self._broadcast("presence.join", {"u": self._info(mine)})
            return
        self.log.info("{nick}: the name lost its hall-wide claim ({key!r}): undone",
                      nick=mine.user.nickname, key=lost)
        self._release_all(mine)
        mine.state = LOST                 # never claimed again: undone on the next turn
        # not inside Hall.login: the front end first finishes the login it started
        self.clock.callLater(0, self._undo, mine)

    def _not_claimed(self, failure, mine: _Mine) -> None:
        if not failure.check(BusUnavailable):
            self.log.failure("claiming {nick} failed", failure, nick=mine.user.nickname)
        else:
            self._bus_down(failure)
        if self.mine.get(mine.user.key) is not mine:
            self._release_all(mine)
            return
        mine.state = UNCLAIMED            # admitted on the local check; claimed when the bus is back

    def _undo(self, mine: _Mine) -> None:
        user = mine.user
        if self.mine.get(user.key) is not mine:
            return
        try:
            user.sink.disconnect(duplicate_reason(user.nickname))
        except Exception:
            self.log.failure("disconnecting {nick} failed", nick=user.nickname)
        finally:
            self.hall.logout(user)

    def user_logged_out(self, user: User) -> None:
        """``Hall.logout``: the others forget the user, its name is free."""
        mine = self.mine.get(user.key)
        if mine is None or mine.user is not user:
            return
        del self.mine[user.key]
        if mine.announced:
            self._broadcast("presence.leave", {"nick": user.nickname})
        self._release_all(mine)
        self._seat_waiting()

    def _release_all(self, mine: _Mine) -> None:
        got, mine.got = mine.got, []
        for key in got:
            if self.held.get(key) is mine:
                del self.held[key]
                self._release(key)

    def _release(self, key: str) -> Deferred:
        self.releasing.add(key)

        def done(_):
            if key not in self.held:
                self.releasing.discard(key)
        d = self.bus.release("nick:" + key, self.process_id)
        d.addCallbacks(done, self._bus_down)
        return d

    # -- the renewal tick: claims kept, retried after an outage -----------------
    def _tick(self) -> Deferred:
        self._tick_call = None
        d = self._renew()
        d.addErrback(self._bus_down)
        d.addBoth(self._next_tick)
        return d

    def _next_tick(self, _) -> None:
        if self._running and self._tick_call is None:
            self._tick_call = self.clock.callLater(self.renew_every, self._tick)

    def bus_state(self, up: bool) -> None:
        """The bus says it is down or back (``IBus.on_state``): back, renew and reclaim now."""
        if not up:
            self._down = True
        elif self._running:
            if self._tick_call is not None and self._tick_call.active():
                self._tick_call.cancel()
            self._tick_call = None
            self._tick()

    @inlineCallbacks
    def _renew(self):
        for key in [k for k in self.releasing if k not in self.held]:
            yield self.bus.release("nick:" + key, self.process_id)
            self.releasing.discard(key)
        held = dict(self.held)
        kept = set()
        if held:
            renewed = yield self.bus.renew(["nick:" + k for k in held], self.process_id, self.claim_ttl)
            kept = {k[len("nick:"):] for k in renewed}
        for key, mine in held.items():
            # lapsed (the bus was away longer than a claim lives) or taken: claimed again below
            if key not in kept and self.held.get(key) is mine:
                del self.held[key]
                if key in mine.got:
                    mine.got.remove(key)
                if mine.state == HELD:
                    mine.state = UNCLAIMED
        self._forget_unknown()
        if self._down:
            self._down = False
            self.log.info("the bus is back: names claimed again, users announced again")
            self._broadcast("presence.snapshot", {"users": self._snapshot()})
            self._broadcast("presence.want", {})
        for mine in list(self.mine.values()):
            if mine.state == UNCLAIMED and self.mine.get(mine.user.key) is mine:
                self._claim(mine)

    def _forget_unknown(self) -> None:
        """Users of a process that spoke before the heartbeat showed it and was never seen
        alive since (it died at once: no on_peer_gone will come) leave at the second look."""
        unknown = {pid for pid in self.remote if pid not in self.node.peers}
        for pid in unknown & self._unknown:
            self._peer_gone(pid)
        self._unknown = unknown

    def _bus_down(self, failure) -> None:
        if failure.check(BusUnavailable):
            if not self._down:
                self.log.warn("the bus is down ({why}): nicknames are checked on this process only "
                              "until it is back", why=failure.getErrorMessage())
            self._down = True
        else:
            self.log.failure("presence: a bus operation failed", failure)

    # -- telling the others ----------------------------------------------------
    def _broadcast(self, kind: str, body: dict) -> None:
        body["n"] = next(self._seq)          # a lost one shows as a gap at the receivers
        self.node.broadcast(kind, body).addErrback(self._bus_down)

    def _info(self, mine: _Mine) -> dict:
        return {"nick": mine.user.nickname, "fe": mine.user.frontend, "at": mine.place}

    def _snapshot(self) -> list[dict]:
        """The users the others may list: claimed, or announced and not (yet) found to have
        lost their name (one whose claim lapsed in an outage is claimed again after this)."""
        users = []
        for mine in self.mine.values():
            if mine.state == HELD or (mine.announced and mine.state != LOST):
                mine.announced = True
                mine.place = place_of(mine.user)
                users.append(self._info(mine))
        return users

    def table_changed(self, table) -> None:
        """A table's seats or spectators changed (or it is gone): the others hear where the
        local users at it are now."""
        audience = getattr(table, "audience", None)
        now = {u.key for u in audience() if u.process is None} if audience is not None else set()
        before = self._at.pop(table.id, set())
        if now and table.id in self.hall.tables:
            self._at[table.id] = now
        moved = []
        for key in now | before:
            mine = self.mine.get(key)
            if mine is None or not mine.announced:
                continue
            place = place_of(mine.user)
            if place != mine.place:
                mine.place = place
                moved.append({"nick": mine.user.nickname, "at": place})
        if moved:
            self._broadcast("presence.moved", {"users": moved})

    def _peer_joined(self, pid: str, info: dict) -> None:
        self._broadcast("presence.snapshot", {"users": self._snapshot()})

    def _on_want(self, pid: str, body: dict) -> None:
        self._in_order(pid, body)        # (a broadcast want is numbered; a told one is not)
        self._broadcast("presence.snapshot", {"users": self._snapshot()})

    # -- hearing the others ----------------------------------------------------
    def _in_order(self, pid: str, body: dict, snapshot: bool = False) -> None:
        n = body.get("n")
        if not isinstance(n, int):
            return
        last = self._seq_in.get(pid)
        self._seq_in[pid] = n
        if snapshot:
            self._asked.discard(pid)
        elif last is not None and n != last + 1 and pid not in self._asked:
            self.log.info("presence from {pid}: {lost} message(s) lost; asking for its users",
                          pid=pid, lost=n - last - 1)
            self._asked.add(pid)
            self.node.tell(pid, "presence.want", {}).addErrback(self._bus_down)

    def _on_join(self, pid: str, body: dict) -> None:
        self._in_order(pid, body)
        self._add_remote(pid, body.get("u"))

    def _on_leave(self, pid: str, body: dict) -> None:
        self._in_order(pid, body)
        nick = body.get("nick")
        if isinstance(nick, str):
            self._remove_remote(pid, nick.casefold())

    def _on_moved(self, pid: str, body: dict) -> None:
        self._in_order(pid, body)
        theirs = self.remote.get(pid, {})
        for entry in body.get("users") or ():
            if isinstance(entry, dict) and isinstance(entry.get("nick"), str):
                user = theirs.get(entry["nick"].casefold())
                if user is not None:
                    _place(user, entry.get("at"))

    def _on_snapshot(self, pid: str, body: dict) -> None:
        self._in_order(pid, body, snapshot=True)
        users = [u for u in body.get("users") or () if isinstance(u, dict) and isinstance(u.get("nick"), str)]
        listed = {u["nick"].casefold() for u in users}
        for key in [k for k in self.remote.get(pid, {}) if k not in listed]:
            self._remove_remote(pid, key)
        for info in users:
            self._add_remote(pid, info)

    def _add_remote(self, pid: str, info) -> None:
        if not isinstance(info, dict):
            return
        try:
            nickname = check_nickname(str(info.get("nick", "")))
        except LobbyError:
            return                                    # not a name any process admits
        theirs = self.remote.setdefault(pid, {})
        user = theirs.get(nickname.casefold())
        if user is None:
            user = User(nickname=nickname, frontend=str(info.get("fe") or "?")[:32], sink=REMOTE_SINK,
                        process=pid, connected_at=self.clock.seconds())
            theirs[user.key] = user
            _place(user, info.get("at"))
            self._seat(user)
        else:
            _place(user, info.get("at"))

    def _seat(self, user: User) -> None:
        try:
            self.hall.lobby.add(user)
        except LobbyError:
            # the name clashes with a user here or of a third process: two logins at the same
            # moment, settled by the claims; listed once the loser is gone
            self.waiting[(user.process, user.key)] = user
        else:
            self.waiting.pop((user.process, user.key), None)

    def _seat_waiting(self) -> None:
        for user in list(self.waiting.values()):
            if self.remote.get(user.process, {}).get(user.key) is user:
                self._seat(user)
            else:
                self.waiting.pop((user.process, user.key), None)

    def _remove_remote(self, pid: str, key: str) -> None:
        user = self.remote.get(pid, {}).pop(key, None)
        if user is None:
            return
        self.waiting.pop((pid, key), None)
        self.hall.lobby.remove(user)
        self._seat_waiting()

    def _peer_gone(self, pid: str) -> None:
        """A process is gone (killed or stopped): its users leave this lobby."""
        theirs = self.remote.pop(pid, {})
        for user in theirs.values():
            self.waiting.pop((pid, user.key), None)
            self.hall.lobby.remove(user)
        self._seq_in.pop(pid, None)
        self._asked.discard(pid)
        for waits in list(self._says.values()):
            if pid in waits:
                self._said(waits, pid, None)
        if theirs:
            self.log.info("process {pid} is gone: {n} of its users left the lobby", pid=pid, n=len(theirs))
            self._seat_waiting()

    # -- chat -------------------------------------------------------------------
    def relay_chat(self, sender: str, text: str) -> None:
        """``Lobby.relay``: a line said here goes to the other processes' users."""
        self.node.broadcast("presence.chat", {"s": sender, "t": text}).addErrback(self._bus_down)

    def _on_chat(self, pid: str, body: dict) -> None:
        sender, text = body.get("s"), body.get("t")
        if not isinstance(sender, str) or not isinstance(text, str):
            return
        told = self.reached(self.hall.lobby.chat_here(sender, text))
        number = body.get("say")
        if isinstance(number, int):
            self.node.tell(pid, "presence.reached", {"say": number, "n": told}).addErrback(self._bus_down)

    def reached(self, told: int) -> int:
        """Of ``told`` local users, those who see chat (PIMP's do not: IChatlessSink)."""
        return told - sum(1 for user in self.hall.lobby.users.values()
                          if user.process is None and IChatlessSink.providedBy(user.sink))

    def say(self, text: str) -> Deferred:
        """An operator's announcement to the whole hall: a Deferred of (users reached here,
        {process: users reached there, or None when it did not answer within ``say_wait``})."""
        text = clean_text(text)
        here = self.reached(self.hall.lobby.chat_here("*", text))
        peers = sorted(self.node.peers)
        if not peers:
            return succeed((here, {}))
        number = next(self._say_numbers)
        waits: dict[str, tuple[Deferred, object]] = {}
        for pid in peers:
            waits[pid] = (Deferred(), self.clock.callLater(self.say_wait, self._said_late, number, pid))
        results = [waits[pid][0] for pid in peers]
        self._says[number] = waits

        def not_sent(failure):
            self._bus_down(failure)
            for pid in list(waits):
                self._said(waits, pid, None)
        self.node.broadcast("presence.chat", {"s": "*", "t": text, "say": number}).addErrback(not_sent)
        d = gatherResults(results)
        d.addCallback(lambda counts: (here, dict(zip(peers, counts))))
        return d

    def _on_reached(self, pid: str, body: dict) -> None:
        waits = self._says.get(body.get("say"))
        n = body.get("n")
        if waits is not None and pid in waits and isinstance(n, int):
            self._said(waits, pid, n)

    def _said_late(self, number: int, pid: str) -> None:
        waits = self._says.get(number)
        if waits is not None and pid in waits:
            self._said(waits, pid, None)

    def _said(self, waits: dict, pid: str, count: int | None) -> None:
        done, call = waits.pop(pid)
        if call.active():
            call.cancel()
        if not waits:
            for number in [n for n, w in self._says.items() if w is waits]:
                del self._says[number]
        done.callback(count)

    # -- the console's requests ----------------------------------------------
    def kick(self, user: User, reason: str) -> Deferred:
        """``Hall.kick`` of a user of another process: that process kicks; a Deferred of the
        User, or a LobbyError saying why not."""
        pid = user.process
        d = self.node.request(pid, "presence.kick", {"nick": user.nickname, "reason": reason})
        d.addCallback(lambda _: user)

        def failed(failure):
            if failure.check(RemoteRefusal):
                raise LobbyError(failure.getErrorMessage())
            if failure.check(NoAnswer, BusUnavailable):
                raise LobbyError(f"{user.nickname} is on process {pid}, which did not answer "
                                 f"({failure.getErrorMessage()})")
            return failure
        d.addErrback(failed)
        return d

    def _on_kick(self, pid: str, body: dict) -> dict:
        nick = body.get("nick")
        user = self.hall.lobby.find(nick) if isinstance(nick, str) else None
        if user is None or user.process is not None:
            raise LobbyError(f"No user called {nick} on process {self.process_id}")
        reason = body.get("reason") if isinstance(body.get("reason"), str) else "Kicked by the operator"
        self.hall.kick(user.nickname, reason)
        self.log.info("{nick} kicked at the request of process {pid}", nick=user.nickname, pid=pid)
        return {"nick": user.nickname, "fe": user.frontend}


def _place(user: User, at) -> None:
    if isinstance(at, list) and len(at) == 3 and isinstance(at[0], int) and not isinstance(at[0], bool):
        user.table, user.watching = RemotePlace(at[0], str(at[1])), bool(at[2])
    else:
        user.table, user.watching = None, False
