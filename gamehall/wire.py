"""Twisted glue shared by every front end: a framed connection with the hall's limits.

A front end subclasses ``FramedProtocol`` (choosing a framer and implementing
``frame_received`` / ``frame_error``) and ``FrontEndFactory`` builds it.  The
limits live here so that every protocol gets them: maximum frame size (the
framer's), idle timeout (through the hall's injected clock), and a cap on
simultaneous connections per peer address.
"""
from __future__ import annotations

from collections import Counter

from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger

from gamehall.framing import FrameError


class FramedProtocol(Protocol):
    """One connection: bytes -> framer -> frames, with idle timeout and counters."""

    framer_class: type = None       # set by subclasses
    log = Logger()

    def __init__(self) -> None:
        self.framer = self.framer_class()
        self._idle = None
        self.closing = False

    # subclasses implement these two
    def frame_received(self, frame) -> None:
        raise NotImplementedError

    def frame_error(self, error: FrameError) -> None:
        """Default: a clean disconnect; protocols with an error reply override this."""
        self.close()

    @property
    def hall(self):
        return self.factory.hall

    def connectionMade(self) -> None:
        self.reset_idle()

    def dataReceived(self, data: bytes) -> None:
        self.reset_idle()
        for item in self.framer.feed(data):
            if self.closing:
                return
            if isinstance(item, FrameError):
                self.hall.stats.refused[self.factory.name] += 1
                self.frame_error(item)
                if self.framer.poisoned:   # a binary stream cannot be resynchronised
                    self.close()
                    return
                continue
            self.hall.stats.messages_in[self.factory.name] += 1
            try:
                self.frame_received(item)
            except Exception:
                # A bug handling one frame must cost at most this connection.
                self.log.failure("{frontend}: error handling a frame; closing", frontend=self.factory.name)
                self.close()
                return

    def send_frame(self, frame) -> None:
        if self.closing or self.transport is None:
            return
        self.hall.stats.messages_out[self.factory.name] += 1
        self.transport.write(self.framer.encode(frame))

    def close(self) -> None:
        if not self.closing and self.transport is not None:
            self.closing = True
            self.transport.loseConnection()

    def reset_idle(self) -> None:
        timeout = self.hall.idle_timeout
        if not timeout:
            return
        if self._idle is not None and self._idle.active():
            self._idle.reset(timeout)
        else:
            self._idle = self.hall.clock.callLater(timeout, self.idle_timed_out)

    def idle_timed_out(self) -> None:
        self._idle = None
        self.log.info("{frontend}: idle connection closed", frontend=self.factory.name)
        self.close()

    def connectionLost(self, reason=None) -> None:
        self.closing = True
        if self._idle is not None and self._idle.active():
            self._idle.cancel()
        self._idle = None
        self.factory.connection_closed(self)
        self.connection_gone()

    def connection_gone(self) -> None:
        """Subclasses: log the user out of the hall."""


class _Refuse(Protocol):
    """Sent to a peer over its connection cap: an optional last word, then close."""

    def __init__(self, farewell: bytes) -> None:
        self.farewell = farewell

    def connectionMade(self) -> None:
        if self.farewell:
            self.transport.write(self.farewell)
        self.transport.loseConnection()


class FrontEndFactory(Factory):
    """Builds a front end's protocols and enforces the per-peer connection cap."""

    log = Logger()

    def __init__(self, hall, name: str, protocol: type, farewell: bytes = b"") -> None:
        self.hall, self.name, self.protocol = hall, name, protocol
        self.farewell = farewell          # the protocol's own words for "too many connections"
        self.per_peer: Counter = Counter()

    def buildProtocol(self, addr):
        host = getattr(addr, "host", str(addr))
        if self.hall.max_per_peer and self.per_peer[host] >= self.hall.max_per_peer:
            self.hall.stats.refused[self.name] += 1
            self.log.info("{frontend}: refused {host}: over the per-peer cap", frontend=self.name, host=host)
            return _Refuse(self.farewell)
        proto = Factory.buildProtocol(self, addr)
        proto.peer = host
        self.per_peer[host] += 1
        self.hall.stats.connections[self.name] += 1
        self.hall.stats.connections_total[self.name] += 1
        return proto

    def connection_closed(self, proto) -> None:
        self.per_peer[proto.peer] -= 1
        if self.per_peer[proto.peer] <= 0:
            del self.per_peer[proto.peer]
        self.hall.stats.connections[self.name] -= 1
