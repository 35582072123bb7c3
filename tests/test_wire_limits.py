"""Per-connection limits of gamehall.connection: output cap, input rate, bad-input log summaries,
idleness at a table, TCP options; over fake transports and one real loopback socket."""
from __future__ import annotations

import socket
from types import SimpleNamespace

import pytest
from twisted.internet.abstract import FileDescriptor
from twisted.internet.address import IPv4Address
from twisted.internet.testing import MemoryReactor, StringTransport
from twisted.logger import LogLevel

from gamehall.connection import FLOOD_GRACE, MAX_HELD_INPUT, FramedProtocol, FrontEndFactory, client_text
from gamehall.framing import LineFramer
from tests.helpers import make_hall, self_signed_pem, iterate_until as _iterate


class Echo(FramedProtocol):
    framer_class = LineFramer

    def frame_received(self, frame):
        self.send_frame(frame)


class SlowTransport(StringTransport):
    """Like a TCP transport, pauses its streaming producer once more than
    ``buffer_size`` bytes wait unread; ``drain()`` is the peer reading them."""

    def __init__(self, buffer_size: int = 4096, **kw) -> None:
        super().__init__(**kw)
        self.buffer_size = buffer_size

    def write(self, data):
        super().write(data)
        if self.producer is not None and self.streaming and len(self.value()) > self.buffer_size:
            self.producer.pauseProducing()

    def drain(self) -> bytes:
        data = self.value()
        self.clear()
        if self.producer is not None:
            self.producer.resumeProducing()
        return data


def messages(events, level=LogLevel.info) -> list[str]:
    from twisted.logger import formatEvent
    return [formatEvent(e) for e in events if e.get("log_level", LogLevel.info) >= level]


def connect(hall, protocol=Echo, transport=None, port=5000):
    factory = FrontEndFactory(hall, "line", protocol)
    address = IPv4Address("TCP", "127.0.0.1", port)
    proto = factory.buildProtocol(address)
    transport = transport or StringTransport(peerAddress=address)
    proto.makeConnection(transport)
    return proto, transport


# -- output cap -------------------------------------------------------------------
def test_a_peer_that_stops_reading_is_dropped_at_the_cap(logged):
    hall = make_hall(max_output=10_000)
    proto, transport = connect(hall, transport=SlowTransport(4096))
    for _ in range(1000):
        proto.send_frame(b"x" * 98)
    assert transport.disconnected and proto.closing            # aborted, not flushed
    assert len(transport.value()) <= 4096 + 100 + 10_000
    dropped = [m for m in messages(logged) if "unread" in m]
    assert len(dropped) == 1 and "10000 bytes" in dropped[0]


def test_a_peer_that_reads_is_never_dropped_whatever_it_is_sent():
    hall = make_hall(max_output=10_000)
    proto, transport = connect(hall, transport=SlowTransport(4096))
    received = 0
    for i in range(5000):
        proto.send_frame(b"y" * 98)
        if i % 50 == 0:
            received += len(transport.drain())
    received += len(transport.drain())
    assert received == 5000 * 100 and not transport.disconnecting and not proto.closing


def test_front_ends_writing_to_the_transport_directly_are_capped_too():
    # NetAcquire writes with self.transport.write(...), not send_frame.
    from gamehall_acquire.wire.protocol import build_factory
    from tests.netacquire.harness import acquire_hall
    hall = acquire_hall(max_output=20_000)
    factory = build_factory(hall)
    address = IPv4Address("TCP", "127.0.0.1", 7000)
    proto = factory.buildProtocol(address)
    transport = SlowTransport(4096, peerAddress=address)
    proto.makeConnection(transport)
    proto.dataReceived(b"PL;Sleepy,2,0,3;:")
    assert hall.lobby.find("Sleepy") is not None
    for i in range(2000):
        hall.lobby.chat("Chatty", f"line {i} " + "z" * 80)
    assert transport.disconnected
    assert len(transport.value()) <= 4096 + 20_000 + 200
    proto.connectionLost(None)
    assert hall.lobby.find("Sleepy") is None


def test_closing_while_the_peer_is_behind_releases_the_transport():
    # A paused streaming producer would keep a Twisted TCP transport from ever closing.
    hall = make_hall()
    proto, transport = connect(hall, transport=SlowTransport(100))
    proto.send_frame(b"w" * 200)
    assert transport.producer is not None
    proto.close()
    assert transport.producer is None and transport.disconnecting


# -- input rate -----------------------------------------------------------------------
def lines(n: int, start: int = 0) -> bytes:
    return b"".join(b"L%d\n" % i for i in range(start, start + n))


def echoed(transport) -> list[bytes]:
    return transport.value().replace(b"\r\n", b"\n").split(b"\n")[:-1]


def test_a_burst_within_the_limit_is_handled_at_once():
    hall = make_hall(rate=10, burst=20)
    proto, transport = connect(hall)
    proto.dataReceived(lines(20))
    assert len(echoed(transport)) == 20 and transport.producerState == "producing"


def test_a_flooder_is_read_at_the_rate_and_not_served_at_once():
    hall = make_hall(rate=10, burst=20)
    proto, transport = connect(hall)
    proto.dataReceived(lines(100))
    assert len(echoed(transport)) == 20 and transport.producerState == "paused"
    for _ in range(10):
        hall.clock.advance(0.1)
    hall.clock.advance(0.01)                  # sums of 0.1 s fall short of 1 s
    assert len(echoed(transport)) == 30
    for _ in range(70):
        hall.clock.advance(0.1)
    assert echoed(transport) == [b"L%d" % i for i in range(100)]     # in order, none lost
    assert transport.producerState == "producing" and not transport.disconnecting


class Peer:
    """A client whose bytes reach the hall only while the hall reads (as over TCP)."""

    def __init__(self, proto, transport) -> None:
        self.proto, self.transport, self.pending, self.sent = proto, transport, b"", 0

    def send(self, data: bytes) -> None:
        self.pending += data
        self.deliver()

    def deliver(self) -> None:
        if self.pending and self.transport.producerState == "producing" and not self.transport.disconnecting:
            data, self.pending = self.pending, b""
            self.proto.dataReceived(data)


def test_a_persistent_flooder_is_disconnected_with_one_log_line(logged):
    hall = make_hall(rate=10, burst=20)
    proto, transport = connect(hall)
    peer = Peer(proto, transport)
    elapsed = 0.0
    while not transport.disconnecting and elapsed < 3 * FLOOD_GRACE:
        peer.send(lines(10))                 # 100 lines a second against 10 allowed
        hall.clock.advance(0.1)
        elapsed += 0.1
        peer.deliver()
    assert transport.disconnecting and FLOOD_GRACE <= elapsed <= FLOOD_GRACE + 3
    assert len(echoed(transport)) <= 20 + 10 * (elapsed + 1)     # it got no more than its share
    assert len([m for m in messages(logged) if "faster than" in m]) == 1


def test_a_request_response_client_at_twice_the_rate_is_slowed_never_dropped():
    hall = make_hall(rate=10, burst=20)
    proto, transport = connect(hall)
    peer = Peer(proto, transport)
    asked = 0
    for _ in range(int(4 * FLOOD_GRACE / 0.05)):
        if len(echoed(transport)) == asked:        # its answer came: it asks again at once
            peer.send(b"Q%d\n" % asked)
            asked += 1
        hall.clock.advance(0.05)                   # 20 questions a second if served at once
        peer.deliver()
    seconds = 4 * FLOOD_GRACE
    assert not transport.disconnecting
    assert 10 * seconds * 0.9 <= len(echoed(transport)) <= 20 + 10 * seconds + 1


def test_a_flood_then_quiet_starts_afresh():
    hall = make_hall(rate=10, burst=20)
    proto, transport = connect(hall)
    peer = Peer(proto, transport)
    for _ in range(2):
        for _ in range(int(FLOOD_GRACE * 0.6 / 0.1)):        # flood for 60% of the grace time
            peer.send(lines(10))
            hall.clock.advance(0.1)
            peer.deliver()
        peer.pending = b""
        hall.clock.advance(300)                               # quiet: everything handled, bucket full
        peer.deliver()
    assert not transport.disconnecting


def test_input_held_while_throttled_is_bounded():
    hall = make_hall(rate=1, burst=1)
    proto, transport = connect(hall)
    proto.dataReceived(b"a\nb\n")
    assert transport.producerState == "paused"
    for _ in range(MAX_HELD_INPUT // 8192 + 2):               # a transport that keeps delivering anyway
        if transport.disconnecting:
            break
        proto.dataReceived(b"x" * 8191 + b"\n")
    assert transport.disconnecting
    assert len(proto._unread) == 0 or len(proto._unread) <= MAX_HELD_INPUT + 8192


def test_no_limit_when_the_rate_is_zero():
    hall = make_hall(rate=0)
    proto, transport = connect(hall)
    proto.dataReceived(lines(5000))
    assert len(echoed(transport)) == 5000 and transport.producerState == "producing"


# -- logs stay small -----------------------------------------------------------------
def test_client_text():
    assert client_text("hello") == "hello"
    assert client_text(b"a\x00b\x1b[2J") == "a\\x00b\\x1b[2J"
    assert client_text("a\u202eb\u200b") == "a\\u202eb\\u200b"
    long = client_text("x" * 10_000)
    assert long.startswith("x" * 200) and len(long) < 230 and "10000" in long
    assert len(client_text(b"\x01" * 5000, limit=100)) < 130


def test_a_flood_of_unknown_directives_is_summed_up_not_logged_line_by_line(logged):
    from gamehall_acquire.wire.protocol import build_factory
    from tests.netacquire.harness import acquire_hall
    hall = acquire_hall()
    factory = build_factory(hall)
    proto = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 7001))
    transport = StringTransport()
    proto.makeConnection(transport)
    proto.dataReceived(b"PL;Flood,2,0,3;:")
    for second in range(10):
        proto.dataReceived(b"ZZ;:" * 2000 + b"Q" * 3000 + b";:" + b'"unterminated;:')
        transport.clear()
        hall.clock.advance(1)
    proto.connectionLost(None)
    everything = messages(logged, LogLevel.debug)
    bad = [m for m in everything if "bad input" in m]
    assert len(bad) == 2                           # the first at once, the rest when it closed
    assert len(everything) <= 4 and all(len(m) < 600 for m in everything)
    assert "1 x unknown directive (e.g. ZZ)" in bad[0]
    assert "1999 x unknown directive (e.g. ZZ)" in bad[1] and "bad frame" in bad[1]


def test_long_nicknames_are_cut_in_the_log(logged):
    from gamehall_acquire.wire.protocol import build_factory
    from tests.netacquire.harness import acquire_hall
    hall = acquire_hall()
    proto = build_factory(hall).buildProtocol(IPv4Address("TCP", "127.0.0.1", 7002))
    proto.makeConnection(StringTransport())
    proto.dataReceived(b"PL;" + b"N" * 5000 + b",2,0,3;:")
    refused = [m for m in messages(logged) if "refused" in m]
    assert len(refused) == 1 and len(refused[0]) < 400


# -- idleness -------------------------------------------------------------------------
def test_a_user_at_a_table_is_never_closed_for_silence():
    hall = make_hall(idle_timeout=60)
    proto, transport = connect(hall)
    proto.user = SimpleNamespace(table=object())     # seated or watching
    hall.clock.advance(60 * 20)
    assert not transport.disconnecting
    proto.user.table = None                          # back in the lobby: idleness counts again
    hall.clock.advance(60)
    assert transport.disconnecting


def test_a_netacquire_spectator_who_never_answers_pings_stays():
    from tests.netacquire.harness import acquire_hall
    from tests.netacquire.harness import connect as na_connect
    from tests.netacquire.harness import pump_all
    hall = acquire_hall(idle_timeout=60)
    _, (ann, bob) = na_connect(hall, ["Ann", "Bob"])
    ann.send("SG;4")
    bob.send("JG;1,0")                              # watches game 1
    pump_all([ann, bob])
    ann.answer = bob.answer = False                 # the Java client cannot answer PI
    for _ in range(10):
        hall.clock.advance(60)
        ann.read()
        bob.read()
    assert not ann.closed and not bob.closed


# -- TCP over a real loopback socket ---------------------------------------------------


def test_real_socket_nodelay_keepalive_and_the_output_cap(logged):
    from twisted.internet import reactor
    hall = make_hall(max_output=64 * 1024)
    made: list = []

    class Tracked(Echo):
        def connectionMade(self):
            super().connectionMade()
            made.append(self)

        def connectionLost(self, reason=None):
            self.lost = True
            super().connectionLost(reason)

    port = reactor.listenTCP(0, FrontEndFactory(hall, "line", Tracked), interface="127.0.0.1")
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.connect(("127.0.0.1", port.getHost().port))
        assert _iterate(reactor, lambda: made)
        server = made[0]
        sock = server.transport.getHandle()
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) != 0
        tcp = server.transport.wrapped
        most = 0
        for _ in range(5000):                     # the hall writes; the client never reads
            if server.closing:
                break
            server.send_frame(b"x" * 1023)
            reactor.iterate(0)
            most = max(most, len(tcp.dataBuffer) - tcp.offset + tcp._tempDataLen)
        assert server.closing and len([m for m in messages(logged) if "unread" in m]) == 1
        assert most <= 64 * 1024 + tcp.bufferSize + 1024
        assert _iterate(reactor, lambda: getattr(server, "lost", False))
        assert hall.stats.connections["line"] == 0
    finally:
        client.close()
        port.stopListening()
        _iterate(reactor, lambda: False, steps=20)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")       # Twisted's own use of pyOpenSSL
def test_real_tls_socket_nodelay_and_the_output_cap(logged):
    import ssl
    import threading

    from twisted.internet import reactor
    from twisted.internet.ssl import PrivateCertificate
    hall = make_hall(max_output=64 * 1024)
    made: list = []

    class Tracked(Echo):
        def connectionMade(self):
            super().connectionMade()
            made.append(self)

        def connectionLost(self, reason=None):
            self.lost = True
            super().connectionLost(reason)

    options = PrivateCertificate.loadPEM(self_signed_pem()).options()
    port = reactor.listenSSL(0, FrontEndFactory(hall, "line", Tracked), options, interface="127.0.0.1")
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    shaken = threading.Event()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE

    def handshake():                                # blocking, so off the reactor's thread
        try:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            raw.connect(("127.0.0.1", port.getHost().port))
            tls = context.wrap_socket(raw)
            handshake.tls = tls
        finally:
            shaken.set()

    thread = threading.Thread(target=handshake, daemon=True)
    thread.start()
    try:
        assert _iterate(reactor, lambda: made and shaken.is_set(), steps=5000)
        server = made[0]
        sock = server.transport.wrapped.transport.getHandle()      # TLS, then TCP underneath
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) != 0
        for _ in range(5000):                     # the hall writes; the client never reads
            if server.closing:
                break
            server.send_frame(b"x" * 1023)
            reactor.iterate(0)
        assert server.closing and len([m for m in messages(logged) if "unread" in m]) == 1
        assert _iterate(reactor, lambda: getattr(server, "lost", False))
    finally:
        raw.close()
        port.stopListening()
        _iterate(reactor, lambda: False, steps=20)


def test_twistd_options_for_the_limits():
    from gamehall.tap import Options
    defaults = Options()
    defaults.parseOptions([])
    assert (defaults["max-output"], defaults["rate"], defaults["burst"]) == (1 << 20, 50.0, 200)
    chosen = Options()
    chosen.parseOptions(["--max-output", "4096", "--rate", "0", "--burst", "7"])
    assert (chosen["max-output"], chosen["rate"], chosen["burst"]) == (4096, 0.0, 7)
    with pytest.raises(SystemExit, match="cannot be negative"):
        Options().parseOptions(["--rate", "-1"])


@pytest.mark.skipif(not socket.__dict__.get("TCP_QUICKACK") and not __import__("sys").platform.startswith("linux"),
                    reason="TCP_QUICKACK is Linux's")
def test_quickack_is_rearmed_after_each_read():
    hall = make_hall()
    proto, _ = connect(hall)
    calls = []
    proto._socket = SimpleNamespace(setsockopt=lambda *args: calls.append(args))
    proto.dataReceived(b"one\n")
    proto.dataReceived(b"two\n")
    assert calls == [(socket.IPPROTO_TCP, 12, 1)] * 2


def test_real_socket_nodelay_on_the_netacquire_front_end():
    from twisted.internet import reactor

    from gamehall_acquire.wire.protocol import build_factory
    from tests.netacquire.harness import acquire_hall
    hall = acquire_hall()
    factory = build_factory(hall)
    port = reactor.listenTCP(0, factory, interface="127.0.0.1")
    client = socket.create_connection(("127.0.0.1", port.getHost().port))
    try:
        client.setblocking(False)
        got = []

        def greeted():
            try:
                got.append(client.recv(100))
            except BlockingIOError:
                pass
            return got

        assert _iterate(reactor, greeted) and got[0].startswith(b"SP;")
        (server,) = [p for p in reactor.getReaders() if getattr(p, "protocol", None) is not None
                     and getattr(p.protocol, "factory", None) is factory]
        assert server.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
        assert server.socket.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) != 0
    finally:
        client.close()
        port.stopListening()
        _iterate(reactor, lambda: hall.stats.connections["netacquire"] == 0)


# -- issue 15: connections refused over the per-peer cap are summarised ------------------
def test_refused_connections_are_one_log_line_per_peer_per_minute(logged):
    from gamehall.connection import REFUSED_LOG_INTERVAL
    hall = make_hall(max_per_peer=1)
    factory = FrontEndFactory(hall, "line", Echo)
    factory.buildProtocol(IPv4Address("TCP", "10.0.0.1", 1))       # at the cap from now on
    factory.buildProtocol(IPv4Address("TCP", "10.0.0.2", 1))
    for i in range(4000):                                            # ~4.4 a second for 15 minutes
        factory.buildProtocol(IPv4Address("TCP", "10.0.0.1", 1000 + i))
        if i % 10 == 0:
            factory.buildProtocol(IPv4Address("TCP", "10.0.0.2", 1000 + i))
        hall.clock.advance(0.225)
    hall.clock.advance(REFUSED_LOG_INTERVAL)                         # the last minute's count
    refused = [m for m in messages(logged) if "refused" in m]
    one = [m for m in refused if "10.0.0.1" in m]
    two = [m for m in refused if "10.0.0.2" in m]
    minutes = 4000 * 0.225 / REFUSED_LOG_INTERVAL
    assert minutes <= len(one) <= minutes + 2 and minutes <= len(two) <= minutes + 2
    counted = sum(int(m.split("refused ")[1].split()[0]) for m in one)
    assert counted == 4000 == hall.stats.refused["line"] - 400
    assert "over the per-peer cap of 1" in one[0] and all(len(m) < 200 for m in refused)
    hall.clock.advance(REFUSED_LOG_INTERVAL * 3)                     # quiet: nothing more, nothing kept
    assert len([m for m in messages(logged) if "refused" in m]) == len(refused)
    assert not factory.refusals.pending


class TrickleSocket(FileDescriptor):
    """Twisted's own socket buffering (a ``FileDescriptor``: it pauses its streaming producer
    past ``bufferSize`` bytes and resumes it only once its buffer is empty) over a peer that
    reads ``read(n)`` bytes at a time."""

    def __init__(self) -> None:
        super().__init__(MemoryReactor())
        self.connected, self.allowance, self.received, self.aborted = 1, 0, 0, False

    def writeSomeData(self, data) -> int:
        n = min(len(data), self.allowance)
        self.allowance -= n
        self.received += n
        return n

    def read(self, n: int) -> None:
        self.allowance += n
        self.doWrite()

    def unsent(self) -> int:
        return len(self.dataBuffer) - self.offset + self._tempDataLen

    def abortConnection(self) -> None:
        self.aborted = True

    def getPeer(self):
        return IPv4Address("TCP", "127.0.0.1", 5000)

    def getHost(self):
        return IPv4Address("TCP", "127.0.0.1", 7000)


def test_a_peer_that_reads_as_fast_as_it_is_sent_is_never_dropped_though_the_buffer_never_empties(logged):
    # a browser that keeps up with a live table but never quite empties the hall's socket
    # buffer: Twisted resumes the meter only when the buffer is empty, so what counts is the
    # bytes still unsent, not every byte written since the buffer was first full
    hall = make_hall(max_output=100_000)
    sock = TrickleSocket()
    proto, _ = connect(hall, transport=sock)
    for _ in range(70):                        # fill the buffer past Twisted's 64 KiB once
        proto.send_frame(b"f" * 999)
    assert sock.producerPaused
    for _ in range(3000):                      # 3 MB more, read as fast as it is written
        proto.send_frame(b"s" * 999)
        sock.read(1000)
    assert not proto.closing and not sock.aborted, [m for m in messages(logged) if "unread" in m]
    assert sock.producerPaused and sock.unsent() > sock.bufferSize   # never emptied
    for _ in range(100):                       # then the peer stops reading: dropped at the cap
        proto.send_frame(b"x" * 999)
    assert proto.closing and sock.unsent() <= 100_000


@pytest.mark.parametrize("rate", [None, 10])
def test_a_closed_connection_is_freed_without_the_collector(rate):
    """A closed connection's protocol, transport wrapper and pacer hold no cycle: churn
    (reconnects, scanners) would otherwise leave garbage for the collector's full passes,
    which the hall makes rare (gamehall.tap.settle_collector)."""
    import gc
    import weakref

    from tests.netacquire.harness import acquire_hall, connect

    hall = acquire_hall(**({"rate": rate, "burst": 20} if rate else {}))
    _, conns = connect(hall, ["Ann"])
    enabled = gc.isenabled()
    gc.disable()
    try:
        conns[0].drop()
        gone = weakref.ref(conns[0].proto)
        del conns
        assert gone() is None
    finally:
        if enabled:
            gc.enable()
