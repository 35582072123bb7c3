"""NetAcquire output over a real loopback socket: a table event's directives go to the socket
at once (no epoll writer registration and reactor pass per write, a large share of the
hall's CPU per answer), the same bytes; a peer that stops reading is still capped."""
from __future__ import annotations

import socket

from gamehall_acquire.wire.encoded import wire
from gamehall_acquire.wire.protocol import build_factory
from gamehall_acquire.wire.render import gm
from tests.helpers import make_hall, iterate_until as _iterate




def _serve(reactor, hall):
    made: list = []
    factory = build_factory(hall)
    build = factory.buildProtocol

    def tracked(addr):
        proto = build(addr)
        made.append(proto)
        return proto

    factory.buildProtocol = tracked
    port = reactor.listenTCP(0, factory, interface="127.0.0.1")
    client = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    return made, port, client


def _read_now(client, size: int) -> bytes:
    client.setblocking(False)
    got = b""
    try:
        while len(got) < size:
            chunk = client.recv(65536)
            if not chunk:
                break
            got += chunk
    except BlockingIOError:
        pass
    return got


def test_an_events_directives_reach_the_socket_without_a_reactor_pass():
    from twisted.internet import reactor
    hall = make_hall()
    made, port, client = _serve(reactor, hall)
    try:
        client.connect(("127.0.0.1", port.getHost().port))
        assert _iterate(reactor, lambda: made)
        server = made[0]
        tcp = server.transport.wrapped
        assert _iterate(reactor, lambda: not tcp.dataBuffer and not tcp._tempDataBuffer)   # the greeting
        _read_now(client, 1 << 20)
        writers_before = set(reactor.getWriters())
        server.table_event(None, "chat", {"nickname": "Ann", "text": "played 5C"})    # a table event
        expected = wire(gm("Ann: played 5C"))
        # no reactor iteration: the bytes are on the socket already, none in Twisted's buffer
        assert not tcp.dataBuffer and not tcp._tempDataBuffer
        assert tcp not in set(reactor.getWriters()) - writers_before
        got = b""
        for _ in range(200):
            got += _read_now(client, len(expected))
            if len(got) >= len(expected):
                break
        assert got == expected
    finally:
        client.close()
        port.stopListening()
        _iterate(reactor, lambda: False, steps=20)


def test_a_peer_that_stops_reading_is_still_dropped_at_the_output_cap():
    from twisted.internet import reactor
    hall = make_hall(max_output=64 * 1024)
    made, port, client = _serve(reactor, hall)
    try:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.connect(("127.0.0.1", port.getHost().port))
        assert _iterate(reactor, lambda: made)
        server = made[0]
        tcp = server.transport.wrapped
        most = 0
        for i in range(20000):                        # the hall writes; the client never reads
            if server.closing:
                break
            server.send(gm(f"line {i} " + "x" * 1000))
            reactor.iterate(0)
            most = max(most, len(tcp.dataBuffer) - tcp.offset + tcp._tempDataLen)
        assert server.closing
        assert most <= 64 * 1024 + tcp.bufferSize + 2048
    finally:
        client.close()
        port.stopListening()
        _iterate(reactor, lambda: False, steps=20)
