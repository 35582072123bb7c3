"""This process in a hall of several: its id, its inbox, its peers, and how it talks to them.

Every message on the bus is an envelope ``{"k": kind, "f": sender's process id, "b": body}``
(a request adds ``"r"``, its number; a reply is kind ``"reply"`` with ``"r"``, ``"ok"`` and
``"b"`` or ``"e"``/``"t"``: the refusal's text and type).  Three ways to speak:

- ``tell(process, kind, body)``: one message to one process's inbox (``proc.<id>``);
- ``broadcast(kind, body)``: one message to every process (channel ``hall``), the sender
  not included;
- ``request(process, kind, body)``: a Deferred fired with the handler's answer there, or
  failed with ``RemoteRefusal`` (the handler refused: a ``ValueError`` there, e.g. a
  TableError, whose text is for the user) or ``NoAnswer`` (no reply within the timeout:
  the process is gone, or the bus is down).

Handlers are registered per kind (``on_request``, ``on_message``).  Messages from one
process reach another in the order they were sent on one channel; inbox and broadcast are
two channels, with no order between them.

Peers: the node announces itself (``IBus.process_alive``) every ``heartbeat`` seconds with
a time to live of three heartbeats, and reads who else is alive at the same pace;
``on_peer_gone(process_id)`` callbacks hear of a process that stopped announcing itself
(killed: its announcement lapsed) or left cleanly, ``on_peer_joined`` of a new one.
"""
from __future__ import annotations

import itertools
import socket
import os
import uuid
from typing import Callable

from twisted.internet.defer import Deferred, maybeDeferred, succeed
from twisted.python.failure import Failure

from gamehall.bus import BusUnavailable
from gamehall.logger import SharedLogger

HALL_CHANNEL = "hall"
HEARTBEAT = 2.0            # seconds between announcements (a peer is gone 3 of them after its last)
REQUEST_TIMEOUT = 10.0     # seconds a request waits for its reply

_log = SharedLogger(namespace="gamehall.cluster.node")


def inbox(process_id: str) -> str:
    """The bus channel of one process's inbox."""
    return f"proc.{process_id}"


def new_process_id() -> str:
    """``host:pid:xxxx``: readable in the console and in logs, unique across restarts."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:4]}"


class RemoteRefusal(ValueError):
    """The other process refused the request; ``str()`` is its reason, for a user, and
    ``kind`` the name of the exception it raised (TableError, IllegalAction, LobbyError...)."""

    def __init__(self, reason: str, kind: str = "ValueError") -> None:
        super().__init__(reason)
        self.kind = kind


class NoAnswer(BusUnavailable):
    """A request had no reply in time (the process is gone, or the bus is down)."""


class ClusterNode:
    """One process of the hall on the bus (see the module docstring)."""

    log = _log

    def __init__(self, clock, bus, process_id: str | None = None, *, info: dict | None = None,
                 heartbeat: float = HEARTBEAT, request_timeout: float = REQUEST_TIMEOUT) -> None:
        self.clock, self.bus = clock, bus
        self.process_id = process_id or new_process_id()
        self.info = dict(info or {})            # announced with the heartbeat (front ends, start time)
        self.heartbeat, self.request_timeout = heartbeat, request_timeout
        self.peers: dict[str, dict] = {}        # other live processes -> their announced info
        self.on_peer_gone: list[Callable[[str], object]] = []
        self.on_peer_joined: list[Callable[[str, dict], object]] = []
        self._requests: dict[str, Callable] = {}
        self._messages: dict[str, Callable] = {}
        self._pending: dict[int, tuple[Deferred, object, str]] = {}   # number -> (done, timeout, to)
        self._numbers = itertools.count(1)
        self._beat = None
        self._running = False
        self.before_publish: Callable[[], object] | None = None   # called before each message sent

    # -- life ------------------------------------------------------------
    def start(self) -> Deferred:
        """Listen on the inbox and the hall channel, announce this process, learn the peers."""
        self._running = True
        d = self.bus.subscribe(inbox(self.process_id), self._received)
        d.addCallback(lambda _: self.bus.subscribe(HALL_CHANNEL, self._received))
        d.addCallback(lambda _: self._heartbeat())
        return d

    def stop(self) -> Deferred:
        """Withdraw at a clean stop: peers forget this process at once."""
        self._running = False
        if self._beat is not None and self._beat.active():
            self._beat.cancel()
        self._beat = None
        for d, call, _ in list(self._pending.values()):
            call.cancel()
            d.errback(NoAnswer("the process is stopping"))
        self._pending.clear()
        d = self.broadcast("bye", {})
        d.addBoth(lambda _: self.bus.process_gone(self.process_id))
        d.addErrback(lambda f: None)
        return d

    def _heartbeat(self) -> Deferred:
        self._beat = None
        if not self._running:
            return succeed(None)
        d = self.bus.process_alive(self.process_id, self.info, self.heartbeat * 3)
        d.addCallback(lambda _: self.bus.processes())
        d.addCallback(self._peers_seen)
        d.addErrback(lambda f: self.log.warn("heartbeat: {why}", why=f.getErrorMessage()))
        d.addBoth(self._next_beat)
        return d

    def _next_beat(self, _) -> None:
        if self._running:
            self._beat = self.clock.callLater(self.heartbeat, self._heartbeat)

    def _peers_seen(self, alive: dict) -> None:
        alive = {pid: info for pid, info in alive.items() if pid != self.process_id}
        for pid in [p for p in self.peers if p not in alive]:
            self._peer_gone(pid)
        for pid, info in alive.items():
            if pid not in self.peers:
                self.peers[pid] = info
                self._call_each(self.on_peer_joined, pid, info)
            else:
                self.peers[pid] = info

    def _peer_gone(self, pid: str) -> None:
        if self.peers.pop(pid, None) is None:
            return
        self.log.info("process {pid} is gone", pid=pid)
        for number in [n for n, (_, _, to) in self._pending.items() if to == pid]:
            done, call, _ = self._pending.pop(number)
            call.cancel()
            done.errback(NoAnswer(f"process {pid} is gone"))
        self._call_each(self.on_peer_gone, pid)

    def _call_each(self, callbacks, *args) -> None:
        for callback in list(callbacks):
            try:
                callback(*args)
            except Exception:
                self.log.failure("peer callback failed")

    # -- handlers ----------------------------------------------------------
    def on_request(self, kind: str, handler: Callable[[str, dict], object]) -> None:
        """``handler(sender, body)`` answers requests of ``kind``: a JSON-able value (or a
        Deferred of one); a ValueError it raises is a refusal with its text."""
        self._requests[kind] = handler

    def on_message(self, kind: str, handler: Callable[[str, dict], object]) -> None:
        """``handler(sender, body)`` hears told and broadcast messages of ``kind``."""
        self._messages[kind] = handler

    # -- speaking ----------------------------------------------------------
    def tell(self, process_id: str, kind: str, body: dict) -> Deferred:
        return self._publish(inbox(process_id), {"k": kind, "f": self.process_id, "b": body})

    def broadcast(self, kind: str, body: dict) -> Deferred:
        return self._publish(HALL_CHANNEL, {"k": kind, "f": self.process_id, "b": body})

    def request(self, process_id: str, kind: str, body: dict, timeout: float | None = None) -> Deferred:
        number = next(self._numbers)
        done: Deferred = Deferred()
        call = self.clock.callLater(self.request_timeout if timeout is None else timeout,
                                    self._timed_out, number, process_id, kind)
        self._pending[number] = (done, call, process_id)
        sent = self._publish(inbox(process_id), {"k": kind, "f": self.process_id, "b": body, "r": number})
        sent.addErrback(self._not_sent, number)
        return done

    def _publish(self, channel: str, message: dict) -> Deferred:
        if self.before_publish is not None:
            self.before_publish()               # (what is held to publish goes first)
        try:
            return self.bus.publish(channel, message)
        except BusUnavailable as exc:          # a bus may refuse at once rather than fail later
            return _failed(exc)

    def _not_sent(self, failure: Failure, number: int) -> None:
        entry = self._pending.pop(number, None)
        if entry is not None:
            entry[1].cancel()
            entry[0].errback(NoAnswer(f"the bus could not carry the request: {failure.getErrorMessage()}"))

    def _timed_out(self, number: int, process_id: str, kind: str) -> None:
        entry = self._pending.pop(number, None)
        if entry is not None:
            entry[0].errback(NoAnswer(f"process {process_id} did not answer {kind} in time"))

    # -- hearing -----------------------------------------------------------
    def _received(self, channel: str, message: dict) -> None:
        kind, sender = message.get("k"), message.get("f")
        if not isinstance(kind, str) or not isinstance(sender, str) or sender == self.process_id:
            return                               # our own broadcast, or not one of ours
        body = message.get("b")
        if kind == "reply":
            self._reply_received(message)
        elif kind == "bye":
            self._peer_gone(sender)
        elif "r" in message:
            self._answer(sender, kind, body if isinstance(body, dict) else {}, message["r"])
        else:
            handler = self._messages.get(kind)
            if handler is None:
                return
            try:
                handler(sender, body if isinstance(body, dict) else {})
            except Exception:
                self.log.failure("handling {kind} from {sender} failed", kind=kind, sender=sender)

    def _answer(self, sender: str, kind: str, body: dict, number) -> None:
        handler = self._requests.get(kind)
        if handler is None:
            d = _failed(RemoteRefusal(f"this process does not answer {kind!r}"))
        else:
            d = maybeDeferred(handler, sender, body)

        def ok(result) -> None:
            self.tell_reply(sender, {"r": number, "ok": True, "b": result})

        def refused(failure: Failure) -> None:
            if failure.check(ValueError):
                reason, what = failure.getErrorMessage(), type(failure.value).__name__
                if isinstance(failure.value, RemoteRefusal):
                    what = failure.value.kind
            else:
                self.log.failure("answering {kind} from {sender} failed", failure, kind=kind, sender=sender)
                reason, what = "the hall could not do that (an internal error, logged)", "RuntimeError"
            self.tell_reply(sender, {"r": number, "ok": False, "e": reason, "t": what})

        d.addCallbacks(ok, refused)

    def tell_reply(self, process_id: str, reply: dict) -> None:
        message = {"k": "reply", "f": self.process_id, **reply}
        self._publish(inbox(process_id), message).addErrback(
            lambda f: self.log.warn("a reply to {pid} was lost: {why}", pid=process_id, why=f.getErrorMessage()))

    def _reply_received(self, message: dict) -> None:
        entry = self._pending.pop(message.get("r"), None)
        if entry is None:
            return                               # timed out already
        done, call, _ = entry
        call.cancel()
        if message.get("ok"):
            done.callback(message.get("b"))
        else:
            done.errback(RemoteRefusal(str(message.get("e") or "refused"), str(message.get("t") or "ValueError")))


def _failed(exc: Exception) -> Deferred:
    d: Deferred = Deferred()
    d.errback(exc)
    return d
