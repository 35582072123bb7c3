"""One browser connection: the JSON protocol over a WebSocket (docs/web.md).

A ``WebSession`` is both the ``WebSocketProtocol`` of ``twisted.web.websocket``
and, once signed in, the ``IUserSink`` of its hall user.  It speaks JSON
objects with a ``type``; every refusal is an ``error`` message with a
readable reason, never a traceback.  The hall's limits apply as on every
front end (``gamehall.connection``): a cap on one message, an input rate limit
(over it the socket is not read, a persistent flooder is dropped), a cap on
output the browser leaves unread, the idle timeout and the per-address cap.

What a table shows comes from the game's ``IGameView``; what every spectator
of a table is sent is made once per event and shared (``WebHall.shared``).
"""
from __future__ import annotations

import hmac
import json
import re
import secrets
import unicodedata
from collections import deque

from twisted.internet.defer import maybeDeferred
from twisted.logger import Logger
from wsproto.utilities import LocalProtocolError

from gamehall.interfaces import IllegalAction
from gamehall.lobby import LobbyError, check_nickname
from gamehall.identity import secret_matches
from gamehall.players import KEY_SEPARATOR
from gamehall.table import ABORTED, FINISHED, PLAYING, WAITING, TableError
from gamehall_web.frames import FrameGuard
from gamehall_web.records import ReplayError
from gamehall_web.standings import StandingsRequests
from gamehall.connection import (DEFAULT_MAX_OUTPUT, MAX_HELD_INPUT, FramedProtocol, GuardedTransport, Pacer, _nothing,
                           client_text, hall_setting, release_limits, tune_tcp)

MAX_MESSAGE = 16 * 1024        # bytes (UTF-8) of one client message, checked at each frame header
MAX_TEXT = 1000                # characters of a chat line passed on
MAX_RECORDS = 200              # finished games listed at once
MAX_REPLAY = 20_000            # actions of a record replayed in the browser
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")
CATCH_UP_EVERY = 0.5           # seconds between looks at a spectator left behind
LOBBY_CHUNK = 32 * 1024        # bytes of table lines in one lobby snapshot (the rest follow, paced)
LOBBY_USERS = 300              # users in one lobby snapshot or users message (the rest follow, paced)
TABLE_CHANGES = ("joined", "left", "seat_changed", "creator")   # a table state brings them all
RELOAD_GRACE = 5.0             # seconds a signed-in browser's user outlives its connection (a reload)
CLOSE_IDLE, CLOSE_MOVED, CLOSE_TOO_BIG, CLOSE_FLOOD, CLOSE_OVERFLOW = 4000, 4001, 1009, 4002, 4003
_log = Logger(namespace="gamehall_web.session")


class RequestError(ValueError):
    """A request refused; ``str(exc)`` is the reason, for the browser."""


def dumps(message: dict) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, default=str)


def chat_field(value, what: str = "text") -> str:
    """A request's chat line checked and trimmed: a string, controls dropped, at most
    MAX_TEXT, not empty (RequestError otherwise).  The hall then cleans it once more for
    every receiver (``gamehall.text.clean_text``)."""
    if not isinstance(value, str):
        raise RequestError(f"'{what}' must be a string")
    text = "".join(c for c in value if unicodedata.category(c) not in ("Cc", "Cf") or c == " ")
    text = text.strip()[:MAX_TEXT]
    if not text:
        raise RequestError(f"'{what}' is empty")
    return text


def _field(message: dict, name: str, kinds: tuple, what: str, default=None, required: bool = False):
    value = message.get(name, default)
    if value is None:
        if required:
            raise RequestError(f"'{name}' is missing")
        return None
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise RequestError(f"'{name}' must be {what}")
    return value


def _int(message: dict, name: str, default=None, required: bool = False) -> int | None:
    return _field(message, name, (int,), "an integer", default, required)


def _str(message: dict, name: str, default=None, required: bool = False) -> str | None:
    return _field(message, name, (str,), "a string", default, required)


def _bool(message: dict, name: str, default: bool) -> bool:
    value = message.get(name, default)
    if not isinstance(value, bool):
        raise RequestError(f"'{name}' must be true or false")
    return value


def _sat_at(row: dict, nickname: str, token: str) -> bool:
    """Whether the stored table ``row`` had a seat of ``nickname`` taken with ``token``."""
    key = nickname.casefold()
    for seat in row.get("seats") or ():
        if isinstance(seat, dict) and str(seat.get("name", "")).casefold() == key:
            secret = seat.get("secret")
            return isinstance(secret, str) and secret_matches(secret, token)
    return False


class _ClosingTransport(GuardedTransport):
    """The session's guarded transport, which also tells the session when the websocket
    starts closing it: Twisted's websocket has no callback for a close frame received, but
    answers one by ending its byte transport at once."""

    def __init__(self, transport, limit: int, overflow, closing) -> None:
        super().__init__(transport, limit, overflow)
        self._closing = closing

    def loseConnection(self, *args) -> None:
        self._closing()
        super().loseConnection(*args)

    def detach(self) -> None:
        super().detach()
        self._closing = _nothing


class WebSession(StandingsRequests):
    """A browser's WebSocket: requests in, lobby and table messages out."""

    def __init__(self, web, peer: str) -> None:
        self.web, self.peer = web, peer
        self.hall = web.hall
        self.user = None
        self.player = None                 # gamehall.players.Player: signed in with its password
        self.token: str | None = None
        self.lobby_on = False
        self.closing = False
        self.wire = None
        self._pacer: Pacer | None = None
        self._held: deque[str] = deque()
        self._held_size = 0
        self._idle = None
        self._replay = None                # (record id, ReplayCursor)
        self._replay_busy = False          # a replay request of this session in flight
        self._replay_next = None           # the step asked for meanwhile (the latest wins)
        self.viewing = None                # the table watched without a nickname (Table.viewers)
        self.peer_counted = True           # in the site's per-peer count (until session_closed)
        self._skipped = 0                  # game events a spectator left behind was not sent
        self._stale = False                # seat changes it was not sent either
        self._reseating = False            # taking a held seat back at sign-in (which sends the state)
        self._catch_up_call = None
        # lobby messages held while the browser is not keeping up, in order; a table's
        # lines replace each other (only its latest is sent)
        self._outbox: dict = {}
        self._outbox_n = 0
        self._outbox_call = None
        self.channel = None                # the HTTP channel upgraded to this websocket (site.py)
        self._linger = None                # IDelayedCall: sign-out after RELOAD_GRACE

    # -- WebSocketProtocol ---------------------------------------------------
    def negotiationStarted(self, wire) -> None:
        """``wire``: the websocket transport; guard its byte transport with the hall's
        output cap and pace its input with the hall's rate limit."""
        self.wire = wire
        channel = self.channel
        if channel is not None and channel.dataReceived == wire.dataReceived:
            # the upgrade has just routed the channel's bytes to the websocket: the size cap
            # goes in front of it, so a frame over the cap is refused before it is read
            channel.dataReceived = FrameGuard(wire.dataReceived, MAX_MESSAGE, self.refuse_too_big)
        tcp = wire.transport
        try:
            tcp.unregisterProducer()       # the HTTP channel's (TCP or TLS): no more requests to pace
        except Exception:
            pass
        wire.transport = _ClosingTransport(tcp, hall_setting(self.hall, "max_output", DEFAULT_MAX_OUTPUT),
                                           self.output_overflow, self.peer_closing)
        tune_tcp(wire.transport)
        self._pacer = Pacer.for_hall(self.hall, wire.transport, self._drain, self.input_flooded)

    def negotiationFinished(self) -> None:
        stats = self.hall.stats
        stats.connections["web"] += 1
        stats.connections_total["web"] += 1
        self.reset_idle()
        self.send({"type": "hello", "server": "gamehall", "protocol": 1,
                   "limits": {"max_message": MAX_MESSAGE, "max_text": MAX_TEXT,
                              "rate": hall_setting(self.hall, "rate", 0),
                              "burst": hall_setting(self.hall, "burst", 0)}})

    def pongReceived(self, payload: bytes) -> None:
        pass

    def bytesMessageReceived(self, data) -> None:
        self.reset_idle()
        self.error("Send JSON as text messages, not binary ones")

    def textMessageReceived(self, text: str) -> None:
        self.reset_idle()
        if self.closing:
            return
        if len(text) > MAX_MESSAGE:           # (over a socket FrameGuard has refused it already)
            self.refuse_too_big(len(text.encode("utf-8")))
            return
        if self._pacer is None:
            self.handle(text)
            return
        self._held.append(text)
        self._held_size += len(text)
        if self._held_size > MAX_HELD_INPUT:
            self.input_flooded()
            return
        self._drain()

    def _drain(self) -> None:
        while self._held and not self.closing:
            if not self._pacer.allow(len(self._held) > 1):
                return
            text = self._held.popleft()
            self._held_size -= len(text)
            self.handle(text)

    def connectionLost(self, reason=None) -> None:
        if self.wire is not None and not getattr(self, "_counted_out", False):
            self._counted_out = True
            self.hall.stats.connections["web"] -= 1
        self.closing = True
        wire, self.wire = self.wire, None
        release_limits(self._idle, self._pacer, getattr(wire, "transport", None))
        self._idle = None
        self._held.clear()
        self._replay = None
        if self._catch_up_call is not None and self._catch_up_call.active():
            self._catch_up_call.cancel()
        if self._outbox_call is not None and self._outbox_call.active():
            self._outbox_call.cancel()
        self._outbox.clear()
        # cycles that only the collector's full passes (rare in the hall,
        # gamehall.tap.settle_collector) would free: the websocket holds this session, and
        # its guarded transport the session's callbacks; the HTTP channel the websocket; and
        # the upgraded request its channel (Twisted's upgrade takes the channel's
        # connectionLost over, which would have told the request)
        channel, self.channel = self.channel, None
        requests = getattr(channel, "requests", None)
        if isinstance(requests, list):
            requests.clear()
        self._stop_viewing()
        self.hall.lobby.observers.discard(self)
        self.web.session_closed(self)
        if self.user is not None and self.web.sessions.get(self.user.key) is self:
            # a reload comes back within moments with the same token and takes this user over
            # (do_hello): nobody is told of a leave and an entry; otherwise it signs out then
            self._linger = self.hall.clock.callLater(RELOAD_GRACE, self.sign_out)
        else:
            self.sign_out()

    def peer_closing(self) -> None:
        """The websocket is ending its byte transport (it answered the browser's close frame,
        or sent ours): from now on it refuses every message, so none is sent;
        ``connectionLost`` follows and signs out."""
        self.closing = True
        if self._pacer is not None:
            self._pacer.stop()

    # -- limits -------------------------------------------------------------
    def refuse_too_big(self, size: int) -> None:
        self.hall.stats.refused["web"] += 1
        self.error(f"Message too long ({size} bytes; at most {MAX_MESSAGE})")
        self.close(CLOSE_TOO_BIG, "message too big")

    def input_flooded(self) -> None:
        _log.info("web: {peer} kept sending faster than {rate:g} messages/s; disconnected",
                  peer=self.peer, rate=hall_setting(self.hall, "rate", 0))
        self.abort()

    def output_overflow(self) -> None:
        _log.info("web: {peer} left over {limit} bytes unread; disconnected", peer=self.peer,
                  limit=hall_setting(self.hall, "max_output", DEFAULT_MAX_OUTPUT))
        self.abort()

    # the idle timeout as on every front end: FramedProtocol's, on this session's fields
    reset_idle = FramedProtocol.reset_idle
    _idle_fired = FramedProtocol._idle_fired

    def busy(self) -> bool:
        """At a table (playing or watching, signed in or not): never closed for idleness."""
        if self.user is None:
            table = self.viewing
            return (table is not None and table.state in (WAITING, PLAYING)
                    and self.hall.tables.get(table.id) is table)
        return self.user.table is not None

    def idle_timed_out(self) -> None:
        self.send({"type": "closing", "reason": "idle"})
        self.close(CLOSE_IDLE, "idle")

    def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closing or self.wire is None:
            return
        self.closing = True
        if self._pacer is not None:
            self._pacer.stop()
        try:
            self.wire.loseConnection(code, reason)
        except Exception:        # already gone
            self.abort()

    def abort(self) -> None:
        self.closing = True
        if self._pacer is not None:
            self._pacer.stop()
        transport = getattr(self.wire, "transport", None)
        if transport is not None:
            transport.abortConnection()

    # -- output -------------------------------------------------------------
    def send(self, message: dict) -> None:
        self.send_text(dumps(message))

    def send_text(self, text: str) -> None:
        if self.closing or self.wire is None:
            return
        try:
            self.wire.sendTextMessage(text)
        except LocalProtocolError as e:
            # the websocket closed under us in a way we were not told of: one socket that can
            # no longer be written must not fail a table's or the lobby's fan-out to the rest
            _log.info("web: {peer} closed; message not sent ({why})", peer=self.peer, why=e)
            self.peer_closing()
            return
        self.hall.stats.messages_out["web"] += 1

    def error(self, message: str, request: str | None = None) -> None:
        self.send({"type": "error", "message": message, "request": request})

    # -- input --------------------------------------------------------------
    def handle(self, text: str) -> None:
        self.hall.stats.messages_in["web"] += 1
        try:
            message = json.loads(text)
        except ValueError as exc:
            self.hall.stats.refused["web"] += 1
            self.error(f"Not JSON: {exc}")
            return
        except RecursionError:             # [[[[... deeper than the parser's stack
            self.hall.stats.refused["web"] += 1
            self.error("Not JSON: nested too deeply")
            return
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            self.error('Each message is a JSON object with a "type" (docs/web.md)')
            return
        kind = message["type"]
        handler = getattr(self, "do_" + kind, None) if kind.isidentifier() else None
        if handler is None:
            self.error(f"Unknown message type {client_text(kind, 40)!r}; known: {', '.join(REQUESTS)}", kind)
            return
        self._dispatch(kind, handler, message)

    def _dispatch(self, kind: str, handler, message: dict) -> None:
        try:
            handler(message)
        except (RequestError, LobbyError, TableError, IllegalAction) as exc:
            self.error(str(exc), kind)
        except Exception:
            _log.failure("web: error handling {kind} from {peer}", kind=kind, peer=self.peer)
            self.error("The hall failed on this request; it is logged", kind)

    def _again(self, kind: str, handler, message: dict) -> None:
        """A request held while the hall looked for the table it names, done now."""
        if not self.closing:
            self._dispatch(kind, handler, message)

    def signed_in(self):
        if self.user is None:
            raise RequestError("Sign in first (hello with a nickname): without one you may "
                               "only look (lobby, watch, records)")
        return self.user

    def at_table(self):
        table = self.signed_in().table
        if table is None:
            raise RequestError("You are not at a table")
        return table

    # -- requests: sign in, lobby -----------------------------------------
    def do_ping(self, message: dict) -> None:
        self.send({"type": "pong", "time": self.hall.clock.seconds()})

    def do_hello(self, message: dict) -> None:
        nickname, token, last_table = self._hello_fields(message)
        self._enter(nickname, token, last_table)

    def _hello_fields(self, message: dict) -> tuple:
        if self.user is not None:
            raise RequestError(f"You are signed in as {self.user.nickname}")
        nickname = check_nickname(_str(message, "nickname", required=True))
        token = _str(message, "token")
        if token is None:
            token = secrets.token_urlsafe(24)
        elif not TOKEN.fullmatch(token):
            raise RequestError("'token' must be 16 to 128 letters, digits, - or _")
        return nickname, token, _int(message, "table")

    # -- registered names (gamehall.players): the password's Argon2 runs in a thread --
    def do_register(self, message: dict) -> None:
        """Register the nickname with a password, then sign in with it."""
        nickname, token, last_table = self._hello_fields(message)
        password = _str(message, "password", required=True)
        self._signing_in(self.hall.players.register(nickname, password, self.peer), "register",
                         token, last_table)

    def do_sign_in(self, message: dict) -> None:
        """Sign in with a registered nickname's password."""
        nickname, token, last_table = self._hello_fields(message)
        password = _str(message, "password", required=True)
        self._signing_in(self.hall.players.sign_in(nickname, password, self.peer), "sign_in",
                         token, last_table)

    def _signing_in(self, d, request: str, token: str, last_table) -> None:
        def proved(player) -> None:
            if self.closing or self.user is not None:
                return
            if request == "register":
                self.send({"type": "registered", "nickname": player.name})
            self.player = player
            try:
                self._enter(player.name, token, last_table, player)
            except LobbyError as exc:
                self.player = None
                self.error(str(exc) + (" (the name is registered to you now: sign in when it is free)"
                                       if request == "register" else ""), request)

        def refused(failure) -> None:
            if not self.closing:
                self.error(str(failure.value) if failure.check(LobbyError) else
                           "The hall failed on this request; it is logged", request)
            if not failure.check(LobbyError):
                _log.failure("web: {request} from {peer} failed", failure, request=request, peer=self.peer)

        d.addCallbacks(proved, refused)

    def _player(self):
        """The signed-in registered player (their account requests)."""
        self.signed_in()
        player = self.player
        if player is None or self.hall.players.get(player.name) is not player:
            raise RequestError("Sign in with your registered name's password first")
        return player

    def send_account(self, player, request: str = "account", **more) -> None:
        self.send({"type": "account", "request": request, "nickname": player.name,
                   "keys": [k.public() for k in player.keys.values()], **more})

    def do_account(self, message: dict) -> None:
        self.send_account(self._player())

    def do_new_key(self, message: dict) -> None:
        player = self._player()
        label = _str(message, "label")

        def made(key: str) -> None:
            if not self.closing:
                # shown once: only its hash is kept
                self.send_account(player, "new_key", key=key, typed=f"{player.name}{KEY_SEPARATOR}{key}")

        self._account_call(self.hall.players.make_key(player, label), made, "new_key")

    def do_revoke_key(self, message: dict) -> None:
        player = self._player()
        key_id = _str(message, "id", required=True)
        self._account_call(self.hall.players.revoke_key(player, key_id),
                           lambda _: self.send_account(player, "revoke_key"), "revoke_key")

    def do_change_password(self, message: dict) -> None:
        player = self._player()
        old = _str(message, "old", required=True)
        new = _str(message, "new", required=True)
        self._account_call(self.hall.players.change_password(player, old, new, self.peer),
                           lambda _: self.send({"type": "password_changed"}), "change_password")

    def _account_call(self, d, done, request: str) -> None:
        def refused(failure) -> None:
            if not failure.check(LobbyError):
                _log.failure("web: {request} from {peer} failed", failure, request=request, peer=self.peer)
            if not self.closing:
                self.error(str(failure.value) if failure.check(LobbyError) else
                           "The hall failed on this request; it is logged", request)

        d.addCallbacks(lambda result: None if self.closing else done(result), refused)

    def _enter(self, nickname: str, token: str, last_table, player=None) -> None:
        """Sign in as ``nickname`` (a registered ``player`` proved by its password)."""
        other = self.web.sessions.get(nickname.casefold())
        user = None
        if other is not None and other is not self and other.user is not None:
            if self.hall.lobby.find(nickname) is not other.user:
                other.sign_out()           # kicked meanwhile: nothing left to take over
            elif other.token is not None and hmac.compare_digest(other.token, token):
                user = other.hand_over(self)   # the same browser again (a reload, a second tab)
            elif other.closing:
                other.sign_out()           # gone, and another browser: its seat is held as before
        if user is None:
            user = self.hall.login(nickname, "web", self, address=self.peer, signed_in=player)
        self.user = user
        self.token = token
        self.web.sessions[self.user.key] = self
        self.hall.lobby.observers.discard(self)        # a user of the lobby now
        viewed = self.viewing
        self._stop_viewing()
        if player is None and user.registered:         # the same browser again: still theirs
            self.player = self.hall.players.get(user.nickname)
        self.send({"type": "welcome", "nickname": self.user.nickname, "token": token,
                   "registered": user.registered})
        if user.table is not None:                     # taken over at its table: as it is now
            self.send_table_state(user.table)
            return
        if last_table is not None and viewed is None and self.hall.awaits_table(
                last_table, lambda: self._back_at(user, token, last_table)):
            return                         # run by another process of the hall, not listed here yet?
        self._back_at(user, token, last_table, viewed)

    def _back_at(self, user, token: str, last_table, viewed=None) -> None:
        """After a sign-in: the seat held for the user (its table shown), else the table it
        watched as a visitor, else the result of the game ``last_table`` if it has ended."""
        if self.closing or self.user is not user or user.table is not None:
            return
        table = self.hall.held_table(self.user.nickname)
        if table is not None:
            self._reseating = True
            try:
                table.reconnect(self.user, token)
            except TableError as exc:
                self.error(str(exc), "hello")
            else:
                self.send_table_state(table)
                return
            finally:
                self._reseating = False
        if viewed is not None and viewed.state in (WAITING, PLAYING):
            viewed.watch(self.user)                    # watched as a visitor: now by name
            self.send_table_state(viewed)
        elif last_table is not None and last_table not in self.hall.tables:
            # the game this browser sat at ended while it was away (even across a restart of
            # the hall): its result, if it was this player's seat (its name and token)
            self.tell_over(last_table, None, (self.user.nickname, token))

    def hand_over(self, session):
        """The same browser signed in again (same token): a reload after this connection
        ended, or another tab while it is open.  Its hall user, with its seat or place at a
        table, goes on as ``session``'s, without leaving the lobby: nobody is told of a
        leave and an entry.  An open connection is told why it closes."""
        self._cancel_linger()
        user, self.user = self.user, None
        if self.web.sessions.get(user.key) is self:
            del self.web.sessions[user.key]
        user.sink, user.address = session, session.peer
        if not self.closing:
            self.send({"type": "closing", "reason": "moved",
                       "message": "You signed in again in another tab or window"})
            self.close(CLOSE_MOVED, "signed in elsewhere")
        return user

    @property
    def seat_secret(self) -> str | None:
        """The secret this browser's seats are taken with (its token): a process of the hall
        that seats its user again by itself (``ReplicaTable.seat_players_back``) gives it."""
        return self.token

    def _cancel_linger(self) -> None:
        if self._linger is not None and self._linger.active():
            self._linger.cancel()
        self._linger = None

    def sign_out(self) -> None:
        self._cancel_linger()
        user, self.user, self.player = self.user, None, None
        if user is None:
            return
        if self.web.sessions.get(user.key) is self:
            del self.web.sessions[user.key]
        self.hall.logout(user)

    def do_lobby(self, message: dict) -> None:
        """The lobby, for anyone: a visitor without a nickname hears it as an observer."""
        self.lobby_on = _bool(message, "on", True)
        if self.user is None:
            if self.lobby_on:
                self.hall.lobby.observers.add(self)
            else:
                self.hall.lobby.observers.discard(self)
        if self.lobby_on:
            self.send_lobby()
        else:
            self._outbox.clear()

    def send_lobby(self) -> None:
        """The lobby snapshot, in pieces a browser that keeps up takes without being dropped
        for unread output: at most LOBBY_USERS users and LOBBY_CHUNK bytes of table lines in
        the ``lobby`` message; the rest follows as ``users`` and ``lobby_table`` messages, sent
        while the socket drains (``_flush_outbox``)."""
        self._outbox.clear()
        snapshot = self.web.lobby_snapshot()
        users, tables = snapshot["users"], snapshot["tables"]
        snapshot["users"], snapshot["tables"] = users[:LOBBY_USERS], []
        size = 0
        for n, line in enumerate(tables):
            size += len(dumps(line))
            if size > LOBBY_CHUNK and snapshot["tables"]:
                for rest in tables[n:]:
                    self._hold(("table", rest.get("id")), ("line", rest))
                break
            snapshot["tables"].append(line)
        for start in range(LOBBY_USERS, len(users), LOBBY_USERS):
            self._hold(None, ("text", dumps({"type": "users", "joined": users[start:start + LOBBY_USERS],
                                             "left": []})))
        self.send(snapshot)
        self._flush_outbox()

    def _hold(self, key, item) -> None:
        if key is None:
            key, self._outbox_n = ("n", self._outbox_n), self._outbox_n + 1
        self._outbox[key] = item           # a table's key keeps its place; its latest line wins

    def _flush_outbox(self) -> None:
        self._outbox_call = None
        if self.closing or not self.lobby_on:
            self._outbox.clear()
            return
        while self._outbox and not self._behind():
            key = next(iter(self._outbox))
            kind, value = self._outbox.pop(key)
            if kind == "text":
                self.send_text(value)
            elif kind == "line":
                self.send({"type": "lobby_table", "table": value})
            else:                          # a lobby change as the hall told it
                text = self.web.lobby_change_text(kind, value)
                if text is not None:
                    self.send_text(text)
        if self._outbox and self._outbox_call is None:
            self._outbox_call = self.hall.clock.callLater(CATCH_UP_EVERY, self._flush_outbox)

    def do_chat(self, message: dict) -> None:
        user = self.signed_in()
        self.hall.lobby.chat(user.nickname, chat_field(message.get("text")))

    # -- requests: tables ---------------------------------------------------
    def do_create(self, message: dict) -> None:
        user = self.signed_in()
        game = self.hall.game(_str(message, "game", required=True))
        variant = _str(message, "variant")
        seats = _int(message, "seats")
        bots = message.get("bots", [])
        if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
            raise RequestError("'bots' must be a list of bot names")
        for bot in bots:
            if bot not in game.bots:
                raise RequestError(f"Unknown bot {bot!r}; {game.title} has: {', '.join(game.bots)}")
        if seats is not None and not game.min_seats <= seats <= game.max_seats:
            raise RequestError(f"'seats' must be {game.min_seats} to {game.max_seats} for {game.title}")
        join, start = _bool(message, "join", True), _bool(message, "start", False)
        if not join and not start:
            raise RequestError("A table you do not sit at must start at once ('start': true)")
        if len(bots) + join > (game.max_seats if seats is None else seats):
            raise RequestError(f"{len(bots) + join} players do not fit {seats or game.max_seats} seats")
        self._leave_watching()
        if user.table is not None:
            raise RequestError(f"You are already playing at game #{user.table.id}")
        table = self.hall.create_table(game.name, variant, seats, creator=user if join else None)
        try:
            if join and table.seat_of(user) is not None:
                table.set_secret(table.seat_of(user), self.token)
            for bot in bots:
                table.add_bot(bot)
            if start:
                table.start(user if join else None)
        except TableError:
            if table.state != PLAYING:
                if user.table is table:
                    table.leave(user)
                self.hall.remove_table(table)
            raise
        if not join:
            table.watch(user)
        self.send({"type": "created", "table": table.id})
        self.send_table_state(table)

    def _leave_watching(self) -> None:
        user = self.user
        if user is not None and user.table is not None and user.watching:
            user.table.leave(user)

    def do_join(self, message: dict) -> None:
        user = self.signed_in()
        table_id = _int(message, "table", required=True)
        if self.hall.awaits_table(table_id, lambda: self._again("join", self.do_join, message)):
            return                               # made on another process of the hall a moment ago?
        table = self.hall.table(table_id)
        if user.table is table and not user.watching:
            self.send_table_state(table)
            return
        if user.table is not None and not user.watching:
            raise RequestError(f"You are already playing at game #{user.table.id}")
        watched = user.table if user.watching else None
        if watched is not None:
            watched.leave(user)
        try:
            table.join(user, self.token)
        except TableError:
            if watched is not None and watched.state in ("waiting", PLAYING):
                watched.watch(user)
            raise
        self.send_table_state(table)

    def do_watch(self, message: dict) -> None:
        table_id = _int(message, "table", required=True)
        if self.hall.awaits_table(table_id, lambda: self._again("watch", self.do_watch, message)):
            return
        if table_id not in self.hall.tables:
            self.tell_over(table_id, "watch")          # a finished game's address: its result
            return
        table = self.hall.table(table_id)
        user = self.user
        if user is None:                   # a visitor: watches without a nickname
            if self.viewing is not table:
                table.add_viewer(self)
                self._stop_viewing()
                self.viewing = table
            self.send_table_state(table)
            return
        if user.table is table:
            self.send_table_state(table)
            return
        if user.table is not None and not user.watching:
            raise RequestError(f"You are playing at game #{user.table.id}; leave it first")
        self._leave_watching()
        table.watch(user)
        self.send_table_state(table)

    def _stop_viewing(self) -> None:
        table, self.viewing = self.viewing, None
        if table is not None:
            table.remove_viewer(self)

    def do_leave(self, message: dict) -> None:
        if self.user is None and self.viewing is not None:
            table = self.viewing
            self._stop_viewing()
            self.send({"type": "left_table", "table": table.id})
            return
        table = self.at_table()
        table.leave(self.user, release=True)     # a seat given up stays the bot's
        self.send({"type": "left_table", "table": table.id})

    def tell_over(self, table_id: int, request: str | None, player: tuple | None = None) -> None:
        """A table not in play: ``table_over`` with its stored result and record when it has
        finished (or was stopped), else "No game #N".  ``player`` (nickname, token): only if
        that player sat there with that token, and no error otherwise."""
        def loaded(row) -> None:
            if row is None or row.get("state") not in (FINISHED, ABORTED) or (
                    player is not None and not _sat_at(row, *player)):
                if request is not None:
                    self.error(f"No game #{table_id}", request)
                return
            self.send({"type": "table_over", "table": table_id, "state": row["state"],
                       "record": self.web.record_summary(row), "players": [
                           s.get("name") for s in row.get("seats") or () if isinstance(s, dict)]})
        d = self.hall.store.load_table(table_id)
        d.addCallback(loaded)
        d.addErrback(self._store_failed, request)

    def _creator_only(self, table) -> None:
        if self.user.watching:
            raise RequestError("Spectators cannot change the table")
        if table.creator and table.creator != self.user.nickname:
            raise RequestError(f"Only the table's creator ({table.creator}) can do that")

    def do_add_bot(self, message: dict) -> None:
        table = self.at_table()
        self._creator_only(table)
        table.add_bot(_str(message, "bot"))

    def do_remove_bot(self, message: dict) -> None:
        table = self.at_table()
        self._creator_only(table)
        table.remove_bot(_int(message, "seat", required=True))

    def do_start(self, message: dict) -> None:
        table = self.at_table()
        if self.user.watching:
            raise RequestError("Spectators cannot start the game")
        if _bool(message, "fill", False):              # bots in the seats still needed
            self._creator_only(table)
            if table.state != WAITING:
                raise RequestError(f"Game #{table.id} has already started")
            if table.remote:         # run by another process: it adds them (seats shown as it does)
                table.fill_and_start(self.user)
                return
            while len(table.seats) < table.game.min_seats:
                table.add_bot()
        table.start(self.user)

    def do_act(self, message: dict) -> None:
        table = self.at_table()
        action = message.get("action")
        if not isinstance(action, dict):
            raise RequestError("'action' must be a JSON object (one of the decision's choices)")
        if self.user.watching:
            raise RequestError("Spectators cannot play")
        try:
            table.act(self.user, action)
        except (IllegalAction, TableError) as exc:
            # the page hid the choices when it sent this one: the refusal, then the pending
            # decision again (with its timer), once what is shown of it is stored
            self.error(str(exc), "act")
            seat = table.seat_of(self.user)
            if seat is not None:
                table.after_stored(lambda: self._decision_again(table, seat))

    def _decision_again(self, table, seat: int) -> None:
        if self.user is not None and self.user.table is table and table.seat_of(self.user) == seat:
            self.send_decision(table, seat)

    def do_say(self, message: dict) -> None:
        table = self.at_table()
        table.chat(self.user, chat_field(message.get("text")))

    def do_state(self, message: dict) -> None:
        """Send the state of the table the user is at again (a client that lost track)."""
        if self.user is None and self.viewing is not None:
            self.send_table_state(self.viewing)
            return
        self.send_table_state(self.at_table())

    # -- requests: records --------------------------------------------------
    def do_records(self, message: dict) -> None:
        game = _str(message, "game")
        limit = _int(message, "limit", 50)
        if not 1 <= limit <= MAX_RECORDS:
            raise RequestError(f"'limit' must be 1 to {MAX_RECORDS}")
        d = self.hall.store.finished_games(game, limit)
        d.addCallback(lambda rows: self.send({
            "type": "records", "game": game, "records": [self.web.record_summary(r) for r in rows],
            "games": [self.web.game_info(g) for _, g in sorted(self.hall.games.items())]}))
        d.addErrback(self._store_failed, "records")

    def do_replay(self, message: dict) -> None:
        """A record's replay, computed off the reactor (a 1,259-move Monopoly game takes half a
        second): its store read on the store's thread, its engine on the hall's replay threads;
        one request in flight per session, REPLAYS_AT_ONCE in the hall, recent ones cached."""
        record = _int(message, "id", required=True)
        self._replay_next = None
        cached = self.web.cached_replay(record)
        self._replay_start()
        if cached is not None:
            d = self.web.compute(_open_replay, cached)
        else:
            d = maybeDeferred(self.hall.store.load_table, record)
            d.addCallback(lambda row: self.web.compute(_open_replay, self.web.replay_cursor, row, record))
        d.addCallback(self._replay_opened)
        self._replay_end(d, "replay")

    def _replay_start(self) -> None:
        if self._replay_busy:
            raise RequestError("Your last replay request is still being computed; one at a time")
        if not self.web.replay_slot():
            raise RequestError("The hall is busy replaying other games; try again in a moment")
        self._replay_busy = True

    def _replay_end(self, d, request: str) -> None:
        d.addErrback(self._replay_failed, request)
        d.addBoth(self._replay_finished)

    def _replay_opened(self, result) -> None:
        cursor, summary, state = result
        self.web.keep_replay(cursor)
        if not self.closing:
            self._replay = (cursor.id, cursor)
            self.send_text(summary)
            self.send_text(state)

    def _replay_failed(self, failure, request: str) -> None:
        if failure.check(RequestError, ReplayError):
            self.error(str(failure.value), request)
        else:
            _log.failure("web: {request} failed", failure, request=request)
            self.error("The hall could not replay that record right now", request)

    def _replay_finished(self, _) -> None:
        self._replay_busy = False
        self.web.replay_done()
        step, self._replay_next = self._replay_next, None
        if step is not None and not self.closing and self._replay is not None:
            try:
                self._replay_step(self._replay[1], step)
            except RequestError as exc:
                self.error(str(exc), "replay_step")

    def do_replay_step(self, message: dict) -> None:
        record = _int(message, "id", required=True)
        step = _int(message, "step", required=True)
        if self._replay is None or self._replay[0] != record:
            raise RequestError(f"Open record #{record} first (replay)")
        cursor = self._replay[1]
        if not 0 <= step <= cursor.length:
            raise RequestError(f"'step' must be 0 to {cursor.length}")
        if self._replay_busy:
            self._replay_next = step       # a slider sends many: only the latest is computed
            return
        self._replay_step(cursor, step)

    def _replay_step(self, cursor, step: int) -> None:
        self._replay_start()
        d = self.web.compute(_replay_state, cursor, step)
        d.addCallback(lambda text: None if self.closing or self._replay is None
                      or self._replay[1] is not cursor else self.send_text(text))
        self._replay_end(d, "replay_step")

    def _store_failed(self, failure, request: str) -> None:
        _log.failure("web: store read for {request} failed", failure, request=request)
        self.error("The hall could not read its records right now", request)

    # -- table state ----------------------------------------------------------
    def send_table_state(self, table) -> None:
        """The whole table, once every action applied so far is stored (nothing unsaved
        is shown: the engine may be ahead of the store for a moment)."""
        def send() -> None:
            if self.user is not None and self.user.table is table:
                self._skipped, self._stale = 0, False     # the whole state: nothing to catch up
                self.send(self.web.table_state(table, table.seat_of(self.user)))
            elif self.user is None and self.viewing is table:
                self._skipped, self._stale = 0, False
                self.send(self.web.table_state(table, None))
        table.after_stored(send)

    # -- IUserSink -------------------------------------------------------------
    def lobby_chat(self, sender: str, text: str) -> None:
        if self.lobby_on:
            self.send_text(self.web.lobby_chat_text(sender, text))

    def lobby_changed(self, event: str, detail: dict) -> None:
        """A lobby change; while the browser is not keeping up (or the snapshot is still
        going out) it waits in order, and a table changed many times is sent once: one
        request (a table filled with 254 bots) must not drop every lobby reader."""
        if not self.lobby_on:
            return
        if self._outbox or self._behind():
            if event == "tables_changed":        # held table by table: each table's latest wins
                for summary in detail.get("added", []) + detail.get("changed", []):
                    self._hold(("table", summary.get("id")), ("table_changed", summary))
                for table in detail.get("removed", []):
                    self._hold(("table", table), ("table_removed", {"id": table}))
            else:
                table = detail.get("id") if event.startswith("table_") else None
                self._hold(None if table is None else ("table", table), (event, detail))
            self._flush_outbox()
            return
        text = self.web.lobby_change_text(event, detail)
        if text is not None:
            self.send_text(text)

    def table_event(self, table, event: str, detail: dict) -> None:
        user = self.user
        if user is None:
            if table is self.viewing:      # a visitor sees what every spectator sees
                self.spectator_event(table, event, detail)
            return
        seat = table.seat_of(user)
        if event == "left" and detail.get("replaced_by_bot") and detail.get("nickname") == user.nickname:
            self.send({"type": "left_table", "table": table.id,
                       "message": "A bot plays your seat now"})
            return
        if seat is None or event in ("joined", "left", "seat_changed", "creator", "chat",
                                     "finished", "aborted"):
            self.spectator_event(table, event, detail)
            if seat is not None and event == "seat_changed" and detail.get("seat") == seat and not self._reseating:
                # its own seat given back (a process that took the table over seats it again):
                # the whole table as it is, moves it was not sent included
                self.send_table_state(table)
            elif seat is not None and event in ("seat_changed", "left"):
                self.send_decision(table, seat)
            return
        if event == "decision":
            self.send_decision(table, seat)
        else:
            message = self.web.table_message(table, event, detail, seat)
            if message is not None:
                self.send_text(message)

    def spectator_event(self, table, event: str, detail: dict) -> None:
        """What every spectator is sent (made once, ``WebHall.shared``); but a spectator whose
        browser is not keeping up needs only the latest state, not every move: while its
        socket buffer is full its game events are skipped, and once it has emptied one
        ``table_state`` (with ``skipped``) brings the page up to date."""
        if event in ("game", *TABLE_CHANGES) and (self._skipped or self._stale or self._behind()):
            if event == "game":
                self._skipped += 1
            else:
                self._stale = True         # (a table filled with 254 bots: one state, not 254 lines)
            if self._catch_up_call is None:
                self._catch_up_call = self.hall.clock.callLater(CATCH_UP_EVERY, self._catch_up, table)
            return
        text = self.web.shared(table, detail, lambda: self.web.table_message(table, event, detail, None))
        if text is not None:
            self.send_text(text)

    def _behind(self) -> bool:
        return bool(getattr(getattr(self.wire, "transport", None), "behind", False))

    def _catch_up(self, table) -> None:
        self._catch_up_call = None
        if self.closing or not (self._skipped or self._stale):
            return
        if self._behind():
            self._catch_up_call = self.hall.clock.callLater(CATCH_UP_EVERY, self._catch_up, table)
            return
        skipped, self._skipped, self._stale = self._skipped, 0, False
        watching = self.viewing if self.user is None else self.user.table
        if watching is table:
            def send() -> None:
                if (self.viewing if self.user is None else self.user and self.user.table) is table:
                    state = self.web.table_state(table, table.seat_of(self.user) if self.user else None)
                    state["skipped"] = skipped
                    self.send(state)
            table.after_stored(send)

    def send_decision(self, table, seat: int) -> None:
        self.send(self.web.decision_message(table, seat))

    def disconnect(self, reason: str) -> None:
        self.send({"type": "closing", "reason": "hall", "message": reason})
        self.close(1001, reason[:100])


def _open_replay(make, *args) -> tuple:
    """(On a replay thread.)  A cursor (``make``: a computed one, or what computes it from a
    stored row) with its ``replay`` and last ``replay_state`` texts."""
    cursor = make(*args) if args else make
    return cursor, dumps(cursor.summary()), dumps(cursor.state(cursor.length))


def _replay_state(cursor, step: int) -> str:
    """(On a replay thread.)  The ``replay_state`` text of ``step``."""
    return dumps(cursor.state(step))


REQUESTS = sorted(name[3:] for name in dir(WebSession) if name.startswith("do_"))
