"""Twisted glue shared by every front end: a framed connection with the hall's limits.

A front end subclasses ``FramedProtocol`` (choosing a framer and implementing
``frame_received`` / ``frame_error``) and ``FrontEndFactory`` builds it.  The
limits live here so that every protocol gets them, all on the hall's injected
clock and configured on the hall (``twistd gamehall`` options in brackets):

- maximum frame size (the framer's);
- pending output (``hall.max_output``, ``--max-output``): the transport is
  wrapped in a ``GuardedTransport`` that counts every byte written while the
  transport reports its buffer full; past the cap the connection is dropped
  with one log line, so a peer that stops reading cannot grow the hall;
- input rate (``hall.rate`` frames a second, bursts of ``hall.burst``:
  ``--rate``, ``--burst``; 0 is no limit): over it the connection is simply
  not read until the token bucket refills, so a flooder only slows itself;
  one that keeps more input waiting for ``FLOOD_GRACE`` seconds, or more than
  ``MAX_HELD_INPUT`` bytes, is dropped with one log line;
- idle timeout (``hall.idle_timeout``), except for a user at a table;
- simultaneous connections per peer address (``hall.max_per_peer``); refused
  connections are logged as one line per peer address per ``REFUSED_LOG_INTERVAL``
  with a count (``RepeatLog``), not one line each.

Sockets get TCP_NODELAY and TCP keepalive (dead peers are found without
application pings) and, on Linux, TCP_QUICKACK re-armed after each read.

Hooks for front ends
--------------------
``busy()``
    True when the connection's user sits or watches at a table; such a
    connection is never closed for idleness alone (``idle_timed_out`` is not
    even called).  The default looks at ``self.user.table``; a front end
    whose user lives elsewhere overrides it.
``count_bad(what, sample)``
    Count one piece of unusable input (an unknown directive, a malformed
    frame...) instead of logging it: one summary line per connection at most
    every ``BAD_LOG_INTERVAL`` seconds, and one when the connection closes.
``client_text(value)``
    Every piece of client-supplied text in a log line goes through it.
"""
from __future__ import annotations

import socket
import sys
from collections import Counter, deque

from twisted.internet.tcp import Server as TCPServer
from twisted.internet.interfaces import IPushProducer, ITCPTransport
from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger
from twisted.protocols.policies import ProtocolWrapper
from zope.interface import directlyProvides, implementer, providedBy

from gamehall.framing import FrameError

DEFAULT_MAX_OUTPUT = 1 << 20     # bytes a peer may leave unread beyond the transport's own buffer
DEFAULT_RATE = 50.0              # frames a second (twistd default; a Hall built in code has no limit)
DEFAULT_BURST = 200
FLOOD_GRACE = 30.0               # seconds of held-back input before a flooder is dropped
MAX_HELD_INPUT = 256 * 1024      # bytes read but not yet handled, while throttled
BAD_LOG_INTERVAL = 60.0          # seconds between bad-input summary lines of one connection
REFUSED_LOG_INTERVAL = 60.0      # seconds between refused-connection summary lines of one peer
CLIENT_TEXT = 200                # characters of client text in a log line
_SLICE = 4096                    # bytes handed to the framer at a time while rate limited

# Linux's TCP_QUICKACK (12) is not named by every Python build.
TCP_QUICKACK = getattr(socket, "TCP_QUICKACK", 12) if sys.platform.startswith("linux") else None


def client_text(value, limit: int = CLIENT_TEXT) -> str:
    """``value`` (text or bytes from a client) made fit for one log line:
    non-printable characters escaped, at most ``limit`` characters plus a note of the length."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        text = bytes(value[:limit * 4]).decode("utf-8", "backslashreplace")
        total = len(value)
    else:
        text = str(value)
        total = len(text)
    out = []
    size = 0
    for char in text:
        piece = char if char.isprintable() else ascii(char)[1:-1]
        size += len(piece)
        if size > limit:
            break
        out.append(piece)
    result = "".join(out)
    if size > limit:
        result += f"...[{total} in all]"
    return result


class RepeatLog:
    """Events that may come by the thousand (connections refused to one address), logged
    as counts: per key, the first at once, then the ones that follow as one line per
    ``interval`` seconds while they go on (as ``count_bad`` does for bad input).
    ``emit(key, count, first)`` writes a line: ``first`` for the one at once.  A key
    quiet for a whole interval is forgotten."""

    def __init__(self, clock, interval: float, emit) -> None:
        self.clock, self.interval, self.emit = clock, interval, emit
        self.pending: dict = {}          # key -> [count since the last line, its IDelayedCall]

    def note(self, key) -> None:
        entry = self.pending.get(key)
        if entry is not None:
            entry[0] += 1
            return
        self.pending[key] = [0, self.clock.callLater(self.interval, self._flush, key)]
        self.emit(key, 1, True)

    def _flush(self, key) -> None:
        entry = self.pending[key]
        if not entry[0]:
            del self.pending[key]
            return
        self.emit(key, entry[0], False)
        entry[:] = [0, self.clock.callLater(self.interval, self._flush, key)]

    def stop(self) -> None:
        """Write the counts still pending and forget every key."""
        pending, self.pending = self.pending, {}
        for key, (count, call) in pending.items():
            if call.active():
                call.cancel()
            if count:
                self.emit(key, count, False)


class TokenBucket:
    """``rate`` tokens a second on ``clock``, holding at most ``burst``; starts full."""

    def __init__(self, clock, rate: float, burst: float) -> None:
        self.clock = clock
        self.rate = float(rate)
        self.burst = max(1.0, float(burst))
        self.tokens = self.burst
        self._stamp = clock.seconds()

    def _refill(self) -> None:
        now = self.clock.seconds()
        if now > self._stamp:
            self.tokens = min(self.burst, self.tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    @property
    def full(self) -> bool:
        self._refill()
        return self.tokens >= self.burst - 1e-6

    def take(self) -> bool:
        self._refill()
        if self.tokens >= 1 - 1e-6:       # clock sums of 0.1 s are not exact
            self.tokens -= 1
            return True
        return False

    def delay(self) -> float:
        """Seconds until ``take()`` can succeed."""
        self._refill()
        return max(0.0, (1 - self.tokens) / self.rate)


class Pacer:
    """Holds one connection's input to a token bucket by not reading from it.

    The owner asks ``allow(more_waiting)`` before handling each unit of input
    (a frame, a line).  When the bucket is empty the transport is paused and
    ``resume()`` (the owner's) is called once a token is back; the owner
    handles what it holds, and reading starts again unless the bucket ran dry
    once more.  A request/response client (nothing waiting behind the unit)
    is only slowed; one with input waiting at every refusal for ``grace``
    seconds since the bucket was last full is a flooder: ``flooded()``.
    """

    def __init__(self, clock, rate: float, burst: float, transport, resume, flooded,
                 grace: float = FLOOD_GRACE) -> None:
        self.clock = clock
        self.bucket = TokenBucket(clock, rate, burst)
        self.transport = transport
        self.resume, self.flooded, self.grace = resume, flooded, grace
        self.paused = False
        self.stopped = False
        self.flood_since: float | None = None
        self._wake_call = None

    @classmethod
    def for_hall(cls, hall, transport, resume, flooded) -> "Pacer | None":
        """The hall's input limit (``--rate``/``--burst``) for one connection; None when off."""
        rate = hall_setting(hall, "rate", 0)
        if not rate or rate <= 0:
            return None
        return cls(hall.clock, rate, hall_setting(hall, "burst", DEFAULT_BURST), transport, resume, flooded)

    def allow(self, more_waiting: bool) -> bool:
        if self.stopped:
            return False
        if self.flood_since is not None and self.bucket.full:
            self.flood_since = None            # quiet long enough: start afresh
        if self.bucket.take():
            return True
        if more_waiting:
            now = self.clock.seconds()
            if self.flood_since is None:
                self.flood_since = now
            elif now - self.flood_since >= self.grace:
                flooded = self.flooded          # (stop forgets it)
                self.stop()
                flooded()
                return False
        if not self.paused:
            self.paused = True
            self.transport.pauseProducing()
        if self._wake_call is None:
            self._wake_call = self.clock.callLater(self.bucket.delay(), self._wake)
        return False

    def _wake(self) -> None:
        self._wake_call = None
        if self.stopped or getattr(self.transport, "disconnecting", False):
            return
        self.resume()
        if self.stopped or getattr(self.transport, "disconnecting", False):
            return
        if self._wake_call is None and self.paused:     # not throttled again: read again
            self.paused = False
            self.transport.resumeProducing()

    def stop(self) -> None:
        """The connection is closing: no more waking up, and no more reference to its
        protocol (which holds this pacer: a cycle the collector would have to free)."""
        self.stopped = True
        if self._wake_call is not None and self._wake_call.active():
            self._wake_call.cancel()
        self._wake_call = None
        self.resume = self.flooded = _nothing


def _nothing(*_) -> None:
    """What a closed connection's pacer and transport call back instead of its protocol."""


@implementer(IPushProducer)
class _OutputMeter:
    """Registered as the transport's streaming producer: it learns when the
    transport's buffer is full (paused) and when it has drained (resumed)."""

    def __init__(self) -> None:
        self.full = False
        self.backlog = 0          # bytes written since the transport said it was full

    def pauseProducing(self) -> None:
        if not self.full:
            self.full, self.backlog = True, 0

    def resumeProducing(self) -> None:
        self.full, self.backlog = False, 0

    def stopProducing(self) -> None:
        self.full, self.backlog = False, 0


class GuardedTransport:
    """A protocol's view of its transport, with a cap on output the peer leaves unread.

    While the transport reports a full buffer, a write that would take what it
    holds unsent (``unsent_bytes``; for a transport that does not say, what was
    written since it was full) past ``limit`` bytes is not made, and
    ``overflow()`` is called instead (once).  Everything else is the wrapped
    transport's.  ``loseConnection`` unregisters the meter first: a paused
    streaming producer would keep Twisted from closing the connection.
    """

    def __init__(self, transport, limit: int, overflow) -> None:
        self._transport = transport
        self._limit = limit
        self._overflow = overflow
        self._meter = _OutputMeter()
        self.overflowed = False
        directlyProvides(self, providedBy(transport))
        self._registered = False
        if limit and getattr(transport, "producer", None) is None:
            try:
                transport.registerProducer(self._meter, True)
                self._registered = True
            except Exception:            # a transport with its own producer: no cap rather than no connection
                pass

    @property
    def wrapped(self):
        return self._transport

    @property
    def backlog(self) -> int:
        return self._meter.backlog if self._meter.full else 0

    @property
    def behind(self) -> bool:
        """The peer is not keeping up: the transport's buffer is full (its producer paused)
        and has not emptied since."""
        return self._registered and self._meter.full

    def write(self, data: bytes) -> None:
        if self._admit(len(data)):
            self._transport.write(data)

    def writeSequence(self, chunks) -> None:
        chunks = list(chunks)
        if self._admit(sum(map(len, chunks))):
            self._transport.writeSequence(chunks)

    def _admit(self, size: int) -> bool:
        if self.overflowed:
            return False
        meter = self._meter
        if self._registered and meter.full:
            # Twisted resumes the meter only once its buffer is empty: a peer that reads as
            # fast as it is sent may keep it from emptying for ever, so what a socket still
            # holds unsent is the backlog; bytes written since the pause only where unknown
            unsent = unsent_bytes(self._transport)
            if (meter.backlog if unsent is None else unsent) + size > self._limit:
                self.overflowed = True
                self._release()
                self._overflow()
                return False
            meter.backlog += size
        return True

    def _release(self) -> None:
        if self._registered:
            self._registered = False
            try:
                self._transport.unregisterProducer()
            except Exception:
                pass

    def loseConnection(self, *args) -> None:
        self._release()
        self._transport.loseConnection(*args)

    def detach(self) -> None:
        """The connection is gone: forget the protocol's overflow callback (the protocol
        holds this transport: a cycle the collector would have to free)."""
        self._overflow = _nothing

    def abortConnection(self) -> None:
        self._release()
        abort = getattr(self._transport, "abortConnection", None)
        (abort or self._transport.loseConnection)()

    def registerProducer(self, producer, streaming) -> None:
        self._release()            # the protocol's own producer takes over the transport
        self._transport.registerProducer(producer, streaming)

    # pauseProducing / resumeProducing are the transport's (stop / start reading)
    def pauseProducing(self) -> None:
        self._transport.pauseProducing()

    def resumeProducing(self) -> None:
        self._transport.resumeProducing()

    def __getattr__(self, name):
        return getattr(self._transport, name)


def release_limits(idle, pacer, transport) -> None:
    """What a closed connection lets go of: its idle timer (cancelled), its pacer (stopped)
    and its ``GuardedTransport`` (detached: it holds the connection's overflow callback, a
    cycle otherwise).  Each may be None."""
    if idle is not None and idle.active():
        idle.cancel()
    if pacer is not None:
        pacer.stop()
    detach = getattr(transport, "detach", None)
    if detach is not None:
        detach()


def unsent_bytes(transport) -> int | None:
    """Bytes a socket transport (Twisted's ``FileDescriptor``, found under ours and TLS)
    holds that the peer has not taken yet, or None for a transport that does not say."""
    for _ in range(8):
        if isinstance(transport, GuardedTransport):
            transport = transport.wrapped
        elif isinstance(transport, ProtocolWrapper):       # TLS: its socket's buffer
            transport = transport.transport
        else:
            break
    try:
        return len(transport.dataBuffer) - transport.offset + transport._tempDataLen
    except (AttributeError, TypeError):
        return None


def tcp_transport(transport):
    """The TCP transport under a protocol's transport (through ours and TLS), or None."""
    for _ in range(8):
        if isinstance(transport, GuardedTransport):
            transport = transport.wrapped
        elif isinstance(transport, ProtocolWrapper):       # TLS
            transport = transport.transport
        else:
            break
    return transport if transport is not None and ITCPTransport.providedBy(transport) else None


def send_now(guarded, data: bytes) -> bool:
    """Send ``data`` on a plain TCP socket at once when nothing waits in Twisted's buffer;
    what the socket does not take is buffered behind it.  False: write as usual.

    For a protocol whose write is one event's whole output for one connection (PIMP's
    events, NetAcquire's ``one_write`` batches): nothing is gained there by Twisted's
    coalescing, and going through it costs an epoll registration, a wake-up and a
    deregistration per write, a large share of the hall's time per answer.  The bytes are
    the same; only a turn's several writes to one connection may leave as several
    segments.  (Not in ``GuardedTransport`` for every front end: a line protocol that
    writes an event line by line relies on that coalescing for one segment per event.)"""
    t = getattr(guarded, "wrapped", None)
    if (type(t) is not TCPServer or t.TLS or guarded.overflowed or not t.connected
            or t.disconnecting or t._writeDisconnected or t.dataBuffer or t._tempDataBuffer):
        return False
    try:
        sent = t.socket.send(data)
    except OSError:
        return False                 # full or failing: Twisted's write and doWrite handle it
    if sent < len(data):
        t.write(data[sent:])
    return True


def tune_tcp(transport):
    """TCP_NODELAY and keepalive (probes after 5 idle minutes) on; return the socket, or None."""
    tcp = tcp_transport(transport)
    if tcp is None:
        return None
    try:
        tcp.setTcpNoDelay(True)
        tcp.setTcpKeepAlive(True)
        sock = tcp.getHandle()
    except Exception:             # already closed, or not a socket after all
        return None
    for name, value in (("TCP_KEEPIDLE", 300), ("TCP_KEEPINTVL", 60), ("TCP_KEEPCNT", 5)):
        option = getattr(socket, name, None)
        if option is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, option, value)
            except (OSError, AttributeError):
                pass
    return sock


def quickack(sock) -> None:
    """Linux turns delayed ACKs back on after a while: re-arm TCP_QUICKACK (after a read)."""
    if sock is None or TCP_QUICKACK is None:
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, TCP_QUICKACK, 1)
    except (OSError, AttributeError, ValueError):
        pass


def hall_setting(hall, name: str, default):
    """A limit configured on the hall (an older or a stand-in hall may lack it)."""
    value = getattr(hall, name, None)
    return default if value is None else value


class FramedProtocol(Protocol):
    """One connection: bytes -> framer -> frames, with the hall's limits and counters."""

    framer_class: type = None       # set by subclasses
    log = Logger()

    def __init__(self) -> None:
        self.framer = self.framer_class()
        self._idle = None
        self.closing = False
        self._pacer: Pacer | None = None
        self._unread = b""            # bytes read but not yet framed (only while rate limited)
        self._frames: deque = deque()
        self._socket = None
        self._bad: Counter | None = None      # made at the first bad input (few objects per connection)
        self._bad_sample: dict[str, str] = {}
        self._bad_logged_at: float | None = None

    # subclasses implement these two
    def frame_received(self, frame) -> None:
        raise NotImplementedError

    def frame_error(self, error: FrameError) -> None:
        """Default: a clean disconnect; protocols with an error reply override this."""
        self.close()

    def busy(self) -> bool:
        """True when this connection's user sits or watches at a table (never idle-closed)."""
        user = getattr(self, "user", None)
        return user is not None and getattr(user, "table", None) is not None

    @property
    def hall(self):
        return self.factory.hall

    @property
    def frontend(self) -> str:
        factory = getattr(self, "factory", None)
        return getattr(factory, "name", "?")

    def makeConnection(self, transport) -> None:
        limit = hall_setting(self.hall, "max_output", DEFAULT_MAX_OUTPUT)
        Protocol.makeConnection(self, GuardedTransport(transport, limit, self.output_overflow))

    def connectionMade(self) -> None:
        self._socket = tune_tcp(self.transport)
        self._pacer = Pacer.for_hall(self.hall, self.transport, self._drain, self.input_flooded)
        self.reset_idle()

    # -- input -------------------------------------------------------------
    def dataReceived(self, data: bytes) -> None:
        self.reset_idle()
        quickack(self._socket)
        if self.closing:
            return
        if self._pacer is None:
            for item in self.framer.feed(data):
                if self.closing or not self._handle(item):
                    return
            return
        self._unread = self._unread + data if self._unread else data
        if len(self._unread) > MAX_HELD_INPUT:
            self.input_flooded()
            return
        self._drain()

    def _drain(self) -> None:
        """Handle held frames while the rate limit allows (called again by the pacer)."""
        frames = self._frames
        while not self.closing:
            if not frames:
                if not self._unread:
                    return
                unread = self._unread
                if len(unread) <= _SLICE:            # the usual read: one slice, no copies
                    chunk, self._unread = unread, b""
                else:
                    chunk, self._unread = unread[:_SLICE], unread[_SLICE:]
                frames.extend(self.framer.feed(chunk))
                continue
            if not self._pacer.allow(len(frames) > 1 or bool(self._unread)):
                return
            if not self._handle(frames.popleft()):
                return

    def _handle(self, item) -> bool:
        """One frame or framing error; False when the connection is being closed."""
        if isinstance(item, FrameError):
            self.hall.stats.refused[self.frontend] += 1
            self.count_bad("bad frame", str(item))
            self.frame_error(item)
            if self.framer.poisoned:   # a binary stream cannot be resynchronised
                self.close()
                return False
            return not self.closing
        factory = self.factory           # (not the hall/frontend properties: once per frame)
        factory.hall.stats.messages_in[getattr(factory, "name", "?")] += 1
        try:
            self.frame_received(item)
        except Exception:
            # A bug handling one frame must cost at most this connection.
            self.log.failure("{frontend}: error handling a frame; closing", frontend=self.frontend)
            self.close()
            return False
        return not self.closing

    def input_flooded(self) -> None:
        self.log.info("{frontend}: {peer} kept sending faster than {rate:g} frames/s; disconnected",
                      frontend=self.frontend, peer=getattr(self, "peer", "?"),
                      rate=hall_setting(self.hall, "rate", 0))
        self.abort()

    def output_overflow(self) -> None:
        self.log.info("{frontend}: {peer} left over {limit} bytes unread; disconnected",
                      frontend=self.frontend, peer=getattr(self, "peer", "?"),
                      limit=hall_setting(self.hall, "max_output", DEFAULT_MAX_OUTPUT))
        self.abort()

    # -- bad input, counted ------------------------------------------------
    def count_bad(self, what: str, sample=None) -> None:
        """Count one piece of unusable input; logged as a summary, not one line each."""
        if self._bad is None:
            self._bad = Counter()
        self._bad[what] += 1
        if sample is not None and what not in self._bad_sample:
            self._bad_sample[what] = client_text(sample, 80)
        now = self.hall.clock.seconds()
        if self._bad_logged_at is None or now - self._bad_logged_at >= BAD_LOG_INTERVAL:
            self._bad_logged_at = now
            self._log_bad()

    def _log_bad(self) -> None:
        if not self._bad:
            return
        parts = []
        for what, n in sorted(self._bad.items()):
            sample = self._bad_sample.get(what)
            parts.append(f"{n} x {what}" + (f" (e.g. {sample})" if sample is not None else ""))
        self._bad.clear()
        self._bad_sample.clear()
        self.log.info("{frontend}: bad input from {peer}: {summary}", frontend=self.frontend,
                      peer=getattr(self, "peer", "?"), summary="; ".join(parts))

    # -- output --------------------------------------------------------------
    def send_frame(self, frame) -> None:
        if self.closing or self.transport is None:
            return
        factory = self.factory           # (not the hall/frontend properties: this runs once per recipient)
        factory.hall.stats.messages_out[getattr(factory, "name", "?")] += 1
        self.transport.write(self.framer.encode(frame))

    def close(self) -> None:
        if not self.closing and self.transport is not None:
            self.closing = True
            if self._pacer is not None:
                self._pacer.stop()
            self.transport.loseConnection()

    def abort(self) -> None:
        """Drop the connection now, without flushing (a flooder, a peer that does not read)."""
        if self.transport is not None and not getattr(self, "_aborted", False):
            self._aborted = True
            self.closing = True
            if self._pacer is not None:
                self._pacer.stop()
            self.transport.abortConnection()

    # -- idleness -------------------------------------------------------------
    def reset_idle(self) -> None:
        timeout = self.hall.idle_timeout
        if not timeout:
            return
        if self._idle is not None and self._idle.active():
            self._idle.reset(timeout)
        else:
            self._idle = self.hall.clock.callLater(timeout, self._idle_fired)

    def _idle_fired(self) -> None:
        self._idle = None
        if self.closing:
            return
        if self.busy():
            self.reset_idle()      # at a table: TCP keepalive finds a dead peer, not silence
            return
        self.idle_timed_out()

    def idle_timed_out(self) -> None:
        self.log.info("{frontend}: idle connection closed", frontend=self.frontend)
        self.close()

    def connectionLost(self, reason=None) -> None:
        self.closing = True
        release_limits(self._idle, self._pacer, self.transport)
        self._idle = None
        self._unread = b""
        self._frames.clear()
        self._log_bad()
        self.factory.connection_closed(self)
        self.connection_gone()

    def connection_gone(self) -> None:
        """Subclasses: log the user out of the hall."""


class Refuse(Protocol):
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
        self.refusals = RepeatLog(hall.clock, REFUSED_LOG_INTERVAL, self._log_refused)

    def buildProtocol(self, addr):
        host = getattr(addr, "host", str(addr))
        if self.hall.max_per_peer and self.per_peer[host] >= self.hall.max_per_peer:
            self.hall.stats.refused[self.name] += 1
            self.refusals.note(host)
            return Refuse(self.farewell)
        proto = Factory.buildProtocol(self, addr)
        proto.peer = host
        self.per_peer[host] += 1
        self.hall.stats.connections[self.name] += 1
        self.hall.stats.connections_total[self.name] += 1
        return proto

    def _log_refused(self, host: str, count: int, first: bool) -> None:
        self.log.info("{frontend}: refused {count} connection(s) from {host}{when}: over the per-peer "
                      "cap of {cap}", frontend=self.name, count=count, host=host, cap=self.hall.max_per_peer,
                      when="" if first else f" in the last {REFUSED_LOG_INTERVAL:g} s")

    def stopFactory(self) -> None:
        self.refusals.stop()

    def connection_closed(self, proto) -> None:
        self.per_peer[proto.peer] -= 1
        if self.per_peer[proto.peer] <= 0:
            del self.per_peer[proto.peer]
        self.hall.stats.connections[self.name] -= 1
