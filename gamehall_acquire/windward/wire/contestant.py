"""A Windward player in the hall (:class:`Contestant`): the per-player conversation of a
series (setup, queries, replies, the timeout default) that outlives the player's connections;
see :mod:`.match` for the model.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zope.interface import implementer

from gamehall.interfaces import IUserSink
from gamehall.logger import SharedLogger
from gamehall.lobby import User
from gamehall.table import PLAYING

from . import render
from .codec import Join, Reply

if TYPE_CHECKING:
    from .match import Match
    from .service import WindwardService

__all__ = ["Contestant", "Pending"]

# a SharedLogger, not a plain Logger class attribute: see match._log
_log = SharedLogger()


@dataclass
class Pending:
    table: object
    seq: int
    msg_id: str
    kind: str
    sent: float


@implementer(IUserSink)
class Contestant:
    """A Windward player: its hall user, its series, its current connection (or None)."""

    log = _log

    def __init__(self, service: "WindwardService", join: Join) -> None:
        self.service = service
        self.name = join.name
        self.school = join.school
        self.language = join.language
        self.avatar = join.avatar
        self.user: User | None = None
        self.match: Match | None = None
        self.protocol = None
        self.pending: Pending | None = None
        self.kicked = False                 # the operator kicked it: a bot plays its seat
        self.ready = False                  # answered the last setup
        self.seating = False                # taking a restored seat: setup goes out before any query
        # stale: replies matching no pending query, of which late: to a query that timed out
        self.stats = {"queries": 0, "replies": 0, "stale": 0, "late": 0, "malformed": 0, "unexpected": 0,
                      "timeouts": 0, "defaults": 0, "joins": 1}
        self.timed_out: deque = deque(maxlen=8)     # Pending of the last queries that timed out

    # -- connection ------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self.protocol is not None and not self.protocol.closing

    @property
    def key(self) -> str:
        return self.name.casefold()

    def attach(self, protocol) -> None:
        self.protocol = protocol
        protocol.contestant = self

    def send(self, payload: bytes) -> None:
        if self.protocol is not None:
            self.protocol.send_payload(payload)

    def send_all(self, payloads: list) -> None:
        """Several messages of one event in one write: the clients' delayed ACKs
        would otherwise hold the second one back (Nagle on their side)."""
        if self.protocol is not None and payloads:
            self.protocol.send_payloads(payloads)

    def close(self) -> None:
        proto, self.protocol = self.protocol, None
        if proto is not None:
            proto.contestant = None
            proto.close()

    def connection_lost(self, protocol) -> None:
        if protocol is not self.protocol:
            return
        self.protocol = None
        self.service.notify("lost", self, None)
        m = self.match
        if m is None or m.state == "joining":
            # before joins close, a dropped player simply leaves the waiting table
            self.service.forget(self)
            if self.user is not None:
                user, self.user = self.user, None
                self.service.hall.logout(user)
            if m is not None:
                m.contestant_left(self)
            return
        # in a series: the seat stays; a pending query fails now (§7)
        if m.state == "ready-wait":
            m.contestant_ready(self)
        p = self.pending
        if p is not None:
            self.pending = None
            self._default_later(p.table, p.seq)

    def rejoined(self, protocol) -> None:
        """The same name joined again: attach, then ``setup`` (and the pending query) again."""
        self.attach(protocol)
        self.stats["joins"] += 1
        self.service.notify("rejoined", self, None)
        m = self.match
        if m is None:
            return
        table = m.table
        if table is not None and table.state == PLAYING and self.user is not None and self.user.table is table:
            out: list = []
            self.send_setup(table, out)
            if m.state == "playing" and not table.paused:
                self.ask(table, force=True, out=out)    # (a paused table asks again when it resumes)
            self.send_all(out)

    # -- messages in -----------------------------------------------------
    def on_ready(self) -> None:
        self.ready = True
        self.service.notify("ready", self, None)
        if self.match is not None:
            self.match.contestant_ready(self)

    def on_reply(self, reply: Reply) -> None:
        p = self.pending
        if p is None or reply.msg_id != p.msg_id:
            self.stats["stale"] += 1
            late = next((q for q in self.timed_out if q.msg_id == reply.msg_id), None)
            if late is not None:
                self.stats["late"] += 1
                self.service.notify("late", self, {"kind": late.kind, "reply": reply,
                                                   "after": self.service.hall.clock.seconds() - late.sent})
            else:
                self.service.notify("stale", self, reply)
            return
        self.pending = None
        self.stats["replies"] += 1
        self.service.notify("reply", self, reply)
        table = p.table
        if table.state != PLAYING or table.seq != p.seq or self.user is None:
            return
        seat = table.seat_of(self.user)
        if seat is None or table.engine.pending_seat() != seat:
            return
        try:
            action = table.engine.normalise(seat, reply.attrs)
        except Exception:
            self.log.failure("windward: normalise failed for {name}; the turn timer decides", name=self.name)
            return
        try:
            table.act(self.user, action)
        except Exception:
            self.log.failure("windward: {name}'s normalised reply was refused; default played", name=self.name)
            self._play_default(table, p.seq)

    def malformed(self, reason: str, frame: bytes) -> None:
        self.stats["malformed"] += 1
        if self.protocol is not None:          # summed up in one log line a minute (gamehall.connection)
            self.protocol.count_bad("unreadable message", reason)
        self.service.notify("malformed", self, reason)

    def unexpected(self, msg) -> None:
        self.stats["unexpected"] += 1
        if self.protocol is not None:
            self.protocol.count_bad("unexpected message", repr(msg))
        self.service.notify("unexpected", self, msg)

    # -- messages out ----------------------------------------------------
    def send_setup(self, table, out: list | None = None) -> None:
        """``setup`` for ``table`` (appended to ``out`` instead when given)."""
        if not self.connected or table is None or table.engine is None or self.user is None:
            return
        seat = table.seat_of(self.user)
        if seat is None:
            return
        self.ready = False
        msg_id = self.match.rng.randrange(2**31)
        payload = render.setup(table.engine, seat, self.match.seating(table), msg_id)
        self.send(payload) if out is None else out.append(payload)

    def ask(self, table, force: bool = False, out: list | None = None) -> None:
        """Send the query for this player's pending decision (or play the default if offline);
        with ``out`` the query is appended to it instead of sent."""
        if table.state != PLAYING or self.user is None:
            return
        seat = table.seat_of(self.user)
        if seat is None or table.engine.pending_seat() != seat:
            return
        p = self.pending
        if not force and p is not None and p.table is table and p.seq == table.seq:
            return                              # already asked (the hall may advance twice)
        if not self.connected:
            self.pending = None
            self._default_later(table, table.seq)
            return
        kind = table.engine.pending().kind
        msg_id = self.match.new_guid()
        self.pending = Pending(table, table.seq, msg_id, kind, self.service.hall.clock.seconds())
        self.stats["queries"] += 1
        payload = render.query(table.engine, seat, self.match.seating(table), msg_id)
        self.send(payload) if out is None else out.append(payload)

    def _default_later(self, table, seq: int) -> None:
        self.service.hall.clock.callLater(0, self._play_default, table, seq)

    def _play_default(self, table, seq: int) -> None:
        if table.state != PLAYING or table.seq != seq or self.user is None:
            return
        seat = table.seat_of(self.user)
        if seat is None or table.engine.pending_seat() != seat:
            return
        if self.pending is not None and self.pending.table is table and self.pending.seq == seq and self.connected:
            return                              # asked again meanwhile (a rejoin)
        self.stats["defaults"] += 1
        try:
            table.act(self.user, table.engine.timeout_action(seat))
        except Exception:
            self.log.failure("windward: default move for {name} failed", name=self.name)

    # -- IUserSink ---------------------------------------------------------
    def lobby_chat(self, sender: str, text: str) -> None:
        pass                                    # the protocol has no chat

    def lobby_changed(self, event: str, detail: dict) -> None:
        pass

    def table_event(self, table, event: str, detail: dict) -> None:
        if event == "started":
            out: list = []
            self.send_setup(table, out)
            m = self.match
            if out and m is not None and m.state == "playing" and not table.paused:
                self.ask(table, out=out)        # the first decision is ours: with the setup, one write
            self.send_all(out)
        elif event == "decision":
            if not self.seating and detail.get("seat") == table.seat_of(self.user):
                self.ask(table)
        elif event == "timeout":
            self.stats["timeouts"] += 1
            p, self.pending = self.pending, None     # a late reply is stale
            if p is not None:
                self.timed_out.append(p)
            self.service.notify("timeout", self, {"kind": p.kind if p is not None else None,
                                                  "after": self.service.hall.clock.seconds() - p.sent
                                                  if p is not None else None})
        elif event == "aborted":
            if self.match is not None:
                self.match.table_aborted(table, detail.get("reason", ""))

    def disconnect(self, reason: str) -> None:
        """The hall closes this user (kick, shutdown): no more queries; the socket closes.
        Its client may reconnect by itself: its joins are refused while the series lasts."""
        self.kicked = True
        self.pending = None
        self.service.forget(self)
        if self.match is not None:
            self.match.kicked_out(self)
        self.close()
        if self.match is not None and self.match.state == "joining":
            self.match.contestant_left(self)
