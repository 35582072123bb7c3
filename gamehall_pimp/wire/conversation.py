"""One PIMP game as the protocol sees it, without I/O: connections in, bytes out.

PIMP has one game per connection: the handshake's acknowledgement names the
game, then the connection joins (by vote), rejoins with its player number and
password, or stays silent.  ``PimpServer`` keeps which connection is which
user (or join candidate), turns decoded frames into engine actions, routes the
engine's messages to the right connections and answers errors with the
protocol's own codes (the state dump a connection is sent is ``render``'s).
Each call returns ``{connection: bytes}``: everything one event sends a
connection goes out in one write (PIMP clients stall on delayed
acknowledgements otherwise).  The Twisted front end owns the sockets,
the timers (ping, link dead) and persistence; this module owns the rules of
the conversation.

Connections are any hashable objects chosen by the caller.
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Hashable

from gamehall.interfaces import IllegalAction

from ..messages import SPECS
from ..state import PimpError
from .codec import DecodeError, decode, encode
from .render import state_reply, welcome_back

PROTOCOL_VERSION = 1

NEW, GREETED, CANDIDATE, USER = "new", "greeted", "candidate", "user"


class _Conn:
    __slots__ = ("state", "user", "candidate", "ping")

    def __init__(self):
        self.state, self.user, self.candidate, self.ping = NEW, 0, 0, None


class PimpServer:
    def __init__(self, engine: Any, game_number: int,
                 apply: Callable[[int | None, dict], list] | None = None, route_users: bool = True,
                 check_name: Callable[[str, Hashable], str] | None = None):
        if not 0 < game_number < 2 ** 32:
            raise ValueError("a PIMP game number is 1..2**32-1")
        self.engine = engine
        self.game_number = game_number
        self.apply = apply or engine.apply
        self.conns: dict[Hashable, _Conn] = {}
        self.by_user: dict[int, Hashable] = {}
        self.by_candidate: dict[int, Hashable] = {}
        self.to_close: list[Hashable] = []       # connections the caller should close now
        # False: messages for users are delivered by the caller (the hall tells a table's
        # users once an action is stored); only candidates' messages and replies come back
        self.route_users = route_users
        self.admitted: list[tuple[Hashable, int]] = []     # (connection, user) since last asked
        # the hall's nickname rule (``gamehall.lobby.check_nickname``): returns the name to use or
        # raises ValueError; a refused name gets ERROR_NAME_IN_USE ("also used if the name is
        # inappropriate"), so no control or direction character reaches the other players
        self.check_name = check_name
        # True where the game runs in another process of the hall (a replica's engine):
        # ``apply`` only asks for the action, whose messages come later through ``route``
        # (with everyone else's, in the owner's order); a JOIN's candidate is then known by
        # its name (``joins``)
        self.deferred = False
        self.joins: dict[str, Hashable] = {}     # casefolded name -> connection (deferred JOIN)
        self.acting: Hashable | None = None      # the connection whose message is being applied

    # -- connections ---------------------------------------------------------
    def connect(self, conn: Hashable) -> None:
        self.conns[conn] = _Conn()

    def adopt(self, conn: Hashable) -> None:
        """A connection that shook hands elsewhere (e.g. with another game of the hall)."""
        c = self.conns[conn] = _Conn()
        c.state = GREETED

    def forget(self, conn: Hashable) -> None:
        """Drop a greeted connection without a trace (it moves to another game)."""
        c = self.conns.get(conn)
        if c is not None and c.state == GREETED:
            del self.conns[conn]

    def disconnect(self, conn: Hashable) -> dict:
        """The connection is gone: a candidate leaves the queue; a user stays (may rejoin)."""
        c = self.conns.pop(conn, None)
        if c is None:
            return {}
        if c.state == USER and self.by_user.get(c.user) == conn:
            del self.by_user[c.user]
        if c.state == CANDIDATE and not c.candidate:
            self.joins = {k: v for k, v in self.joins.items() if v != conn}
        if c.state == CANDIDATE and c.candidate and self.by_candidate.get(c.candidate) == conn:
            del self.by_candidate[c.candidate]
            return self._route(self.apply(None, {"msg": "CANDIDATE_GONE", "args": [c.candidate]}))
        return {}

    def user_of(self, conn: Hashable) -> int:
        c = self.conns.get(conn)
        return c.user if c is not None and c.state == USER else 0

    # -- input -----------------------------------------------------------------
    def receive(self, conn: Hashable, code: int, payload: bytes) -> dict:
        """One frame from ``conn``: what to send to whom."""
        c = self.conns[conn]
        out: dict = {}
        try:
            name, args = decode(code, payload, "c")
        except DecodeError as exc:
            return self._reply(conn, [exc.reply])
        if c.state == USER and name != "AFK":
            self._not_afk(c.user)
        if name == "HANDSHAKE":
            if args[0] != PROTOCOL_VERSION:
                return self._reply(conn, [("ERROR_UNKNOWN_PROTOCOL",)])
            if c.state == NEW:
                c.state = GREETED
            return self._reply(conn, [("HANDSHAKE_ACKNOWLEDGE", self.game_number)])
        if c.state == NEW:
            return self._reply(conn, [("ERROR_UNEXPECTED_MESSAGE", code)])
        if name == "REJOIN":
            return self._rejoin(conn, c, *args)
        if name == "PONG":
            if c.ping is None or c.ping != args[0]:
                return self._reply(conn, [("ERROR_UNEXPECTED_MESSAGE", code)])
            c.ping = None
            return out
        if name == "JOIN":
            if c.state != GREETED:
                return self._reply(conn, [("ERROR_UNEXPECTED_MESSAGE", code)])
            if self.check_name is not None:
                try:
                    args = (args[0], args[1], self.check_name(args[2], conn))
                except ValueError:
                    return self._reply(conn, [("ERROR_NAME_IN_USE",)])
            return self._act(conn, None, name, args, join=True)
        if c.state != USER:
            return self._reply(conn, [("ERROR_UNEXPECTED_MESSAGE", code)])
        if name == "REQUEST_STATE":
            # it changes nothing: answered here rather than applied (and stored) as an action
            return {conn: state_reply(self.engine, c.user)}
        return self._act(conn, c.user, name, args)

    def _not_afk(self, pid: int) -> None:
        """A message from an AFK user ends AFK, "including PIMP_PONG!" (pimp-protocol.txt), also one
        the engine never sees (PONG, REJOIN, HANDSHAKE) or refuses: told to the engine as NOT_AFK,
        an action like any other, so the store has it and a restart counts the same voters."""
        u = self.engine.users.get(pid)
        if u is not None and u.afk:
            try:
                self.apply(None, {"msg": "NOT_AFK", "args": [pid]})
            except IllegalAction:
                pass            # the table takes no more actions (the game is over)

    def _act(self, conn, user, name: str, args, join: bool = False) -> dict:
        engine = self.engine
        self.acting = conn
        try:
            msgs = self.apply(user, {"msg": name, "args": list(args)})
        except PimpError as exc:
            return self._reply(conn, [(m.name, *m.args) for m in exc.replies])
        except IllegalAction:
            return self._reply(conn, [("ERROR_INVALID_PAYLOAD", SPECS[name].code)])
        finally:
            self.acting = None
        if self.deferred:
            if join:                             # its candidate number comes with its messages
                c = self.conns[conn]
                c.state, c.candidate = CANDIDATE, 0
                self.joins[args[2].casefold()] = conn
            return {}
        if join:
            c = self.conns[conn]
            cid = engine.last_candidate
            c.state, c.candidate = CANDIDATE, cid
            self.by_candidate[cid] = conn
        return self._route(msgs)

    def _rejoin(self, conn, c: _Conn, pid: int, password: int) -> dict:
        if c.state not in (GREETED, USER) or not self.engine.check_password(pid, password):
            return self._reply(conn, [("ERROR_WRONG_PASSWORD",)])
        old = self.by_user.get(pid)
        if old is not None and old != conn:
            self.conns.pop(old, None)
            self.to_close.append(old)
        c.state, c.user = USER, pid
        self.by_user[pid] = conn
        self._not_afk(pid)
        return {conn: welcome_back(self.engine, pid)}

    # -- timers (driven by the front end) --------------------------------------
    def route(self, msgs) -> dict:
        """Route engine messages caused by something else (a bot, a timer)."""
        return self._route(msgs)

    def ping(self, conn: Hashable, number: int) -> dict:
        c = self.conns.get(conn)
        if c is None:
            return {}
        c.ping = number
        return {conn: encode("PING", (number,))}

    def ping_outstanding(self, conn: Hashable) -> bool:
        c = self.conns.get(conn)
        return c is not None and c.ping is not None

    def link_dead(self, conn: Hashable) -> dict:
        """``conn`` did not answer a ping in time: everyone is told (nothing else changes)."""
        pid = self.user_of(conn)
        return self._route_raw([("LINK_DEAD", (pid,), None)]) if pid else {}

    # -- output ------------------------------------------------------------------
    def _reply(self, conn, messages) -> dict:
        return {conn: b"".join(encode(name, args) for name, *args in messages)}

    def _route(self, msgs) -> dict:
        return self._route_raw(msgs)

    def refused(self, conn: Hashable, pid: int | None, action: dict, reason: str) -> dict:
        """(Deferred.)  The game's owner refused what ``conn`` sent (another message came
        first there): the protocol's error for it, as the engine here, caught up by now,
        gives it; a JOIN's candidate greeted again."""
        c = self.conns.get(conn)
        if c is None:
            return {}
        name = action.get("msg")
        if name == "JOIN" and c.state == CANDIDATE and not c.candidate:
            self.joins = {k: v for k, v in self.joins.items() if v != conn}
            c.state = GREETED
            if "too many" in reason:
                return self._reply(conn, [("ERROR_TOO_MANY_USERS",)])
            return self._reply(conn, [("ERROR_NAME_IN_USE",)])
        code = SPECS[name].code if name in SPECS else 0xFE
        try:
            copy.deepcopy(self.engine).apply(pid, action)
        except PimpError as exc:
            return self._reply(conn, [(m.name, *m.args) for m in exc.replies])
        except IllegalAction:
            return self._reply(conn, [("ERROR_INVALID_PAYLOAD", code)])
        return self._reply(conn, [("ERROR_UNEXPECTED_MESSAGE", code)])

    def _match_joins(self, msgs) -> None:
        """(Deferred.)  Our JOINs' candidates, by name, once the engine has applied them."""
        by_name = {c.name.casefold(): c.id for c in self.engine.candidates}
        for name, args, to in msgs:
            if name == "_ADMITTED":
                u = self.engine.users.get(args[1])
                if u is not None:
                    by_name.setdefault(u.name.casefold(), args[0])
        for key in [k for k in self.joins if k in by_name]:
            conn = self.joins.pop(key)
            c = self.conns.get(conn)
            if c is not None and c.state == CANDIDATE and not c.candidate:
                c.candidate = by_name[key]
                self.by_candidate[c.candidate] = conn

    def _route_raw(self, msgs) -> dict:
        """``msgs``: (name, args, to) each (engine Msgs are such tuples)."""
        if self.joins:
            msgs = list(msgs)
            self._match_joins(msgs)
        chunks: dict = {}
        everyone = None                     # the users' connections, once a message is for all
        for name, args, to in msgs:
            if name == "_ADMITTED":
                cid, pid = args
                conn = self.by_candidate.pop(cid, None)
                if conn is not None and conn in self.conns:
                    c = self.conns[conn]
                    c.state, c.user, c.candidate = USER, pid, 0
                    self.by_user[pid] = conn
                    self.admitted.append((conn, pid))
                    everyone = None
                continue
            if name == "_REFUSED":
                conn = self.by_candidate.pop(args[0], None)
                if conn is not None and conn in self.conns:
                    self.conns[conn].state, self.conns[conn].candidate = GREETED, 0
                continue
            if not self.route_users and (to is None or to[0] > 0):
                continue
            frame = encode(name, args)
            if to is None:
                if everyone is None:
                    everyone = list(self.by_user.values())
                targets = everyone
            else:
                targets = [self.by_user.get(t) if t > 0 else self.by_candidate.get(-t) for t in to]
            for conn in targets:
                if conn is not None:
                    frames = chunks.get(conn)
                    if frames is None:
                        chunks[conn] = [frame]
                    else:
                        frames.append(frame)
        return {conn: frames[0] if len(frames) == 1 else b"".join(frames) for conn, frames in chunks.items()}
