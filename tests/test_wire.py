"""Limits every front end gets from gamehall.connection: frame size, garbage, idle timeout, per-peer cap."""
import random

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from gamehall.connection import FramedProtocol, FrontEndFactory
from gamehall.framing import FrameTooLong
from tests.helpers import FRAMERS, make_hall


def echo_protocol(framer_name):
    class Echo(FramedProtocol):
        framer_class = FRAMERS[framer_name]
        errors = 0

        def frame_received(self, frame):
            self.send_frame(frame)

        def frame_error(self, error):
            self.errors += 1
            if not isinstance(error, FrameTooLong) or self.framer.poisoned:
                return super().frame_error(error)
            if framer_name == "line":
                self.send_frame(b"ERR " + str(error).encode())

    return Echo


def connect(factory, host="127.0.0.1", port=5000):
    proto = factory.buildProtocol(IPv4Address("TCP", host, port))
    transport = StringTransport(peerAddress=IPv4Address("TCP", host, port))
    proto.makeConnection(transport)
    return proto, transport


def lose(proto, transport):
    transport.loseConnection()
    proto.connectionLost(None)


SAMPLES = {
    "line": b"hello\r\n",
    "netacquire": b'LM;"a;:b";:',
    "pimp": bytes([3, 2]) + b"hi",
    "windward": (5).to_bytes(4, "little") + b"<a/>!",
    "daide": bytes([2, 0, 0, 2]) + b"\x00\x01",
}


@pytest.mark.parametrize("name", sorted(FRAMERS))
def test_garbage_gets_an_error_or_a_clean_disconnect_and_others_go_on(name):
    hall = make_hall()
    factory = FrontEndFactory(hall, name, echo_protocol(name))
    good, good_t = connect(factory, port=1)
    rng = random.Random(name)
    for attempt in range(50):
        bad, bad_t = connect(factory, port=100 + attempt)
        garbage = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 70000)))
        for start in range(0, len(garbage), 4096):
            if bad.closing:
                break
            bad.dataReceived(garbage[start:start + 4096])
        assert bad.framer.buffered <= bad.framer.max_frame + 8
        lose(bad, bad_t)
    for byte in SAMPLES[name]:
        good.dataReceived(bytes([byte]))
    assert good_t.value() == SAMPLES[name]
    assert not good.closing and hall.stats.connections[name] == 1


@pytest.mark.parametrize("name", sorted(FRAMERS))
def test_oversize_frame_is_refused(name):
    hall = make_hall()
    factory = FrontEndFactory(hall, name, echo_protocol(name))
    proto, transport = connect(factory)
    limit = proto.framer.max_frame
    header = {"line": b"", "netacquire": b"", "pimp": bytes([1, 255]),
              "windward": (limit + 1).to_bytes(4, "little"), "daide": bytes([2, 0, 255, 254])}[name]
    proto.dataReceived(header + b"x" * (limit + 10) + b"\n;:")
    assert proto.errors >= 1 or name == "daide"
    if proto.framer.poisoned:
        assert transport.disconnecting
    elif name == "line":
        assert transport.value().startswith(b"ERR ")


def test_idle_connections_are_closed_on_the_injected_clock():
    hall = make_hall(idle_timeout=60)
    factory = FrontEndFactory(hall, "line", echo_protocol("line"))
    proto, transport = connect(factory)
    hall.clock.advance(59)
    proto.dataReceived(b"still here\n")
    hall.clock.advance(59)
    assert not transport.disconnecting
    hall.clock.advance(1)
    assert transport.disconnecting


def test_connections_per_peer_are_capped():
    hall = make_hall(max_per_peer=2)
    factory = FrontEndFactory(hall, "line", echo_protocol("line"), farewell=b"too many\r\n")
    first = connect(factory, "10.0.0.1", 1)
    connect(factory, "10.0.0.1", 2)
    refused, transport = connect(factory, "10.0.0.1", 3)
    assert transport.value() == b"too many\r\n" and transport.disconnecting
    other, other_t = connect(factory, "10.0.0.2", 1)
    assert not other_t.disconnecting
    lose(*first)
    again, again_t = connect(factory, "10.0.0.1", 4)
    assert not again_t.disconnecting
    assert hall.stats.refused["line"] == 1
