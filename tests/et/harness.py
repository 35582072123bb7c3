"""In-process et connections over StringTransport, for wire tests."""
from __future__ import annotations

import random

from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from gamehall_et.game import EuphratesTigrisGame
from gamehall_et.wire.codec import decode_server
from gamehall_et.wire.protocol import build_factory
from tests.helpers import make_hall


def et_hall(**kw):
    kw.setdefault("idle_timeout", 0)
    kw.setdefault("rng", random.Random(0))          # table seeds: the same games every run
    return make_hall(games={"et": EuphratesTigrisGame()}, **kw)


class Conn:
    """One client: ``send`` a line, ``lines()`` what came back since the last call."""

    _port = 40000

    def __init__(self, factory, host: str = "127.0.0.1"):
        Conn._port += 1
        address = IPv4Address("TCP", host, Conn._port)
        self.proto = factory.buildProtocol(address)
        self.transport = StringTransport(peerAddress=address)
        self.proto.makeConnection(self.transport)
        self.seen: list[str] = []
        self._buf = b""
        self.id = decode_server(self.lines()[0]).args["id"]

    def send(self, line: str) -> list[str]:
        self.proto.dataReceived(line.encode() + b"\r\n")
        return self.lines()

    def lines(self) -> list[str]:
        data = self._buf + self.transport.value()
        self.transport.clear()
        *done, self._buf = data.split(b"\r\n")
        out = [d.decode() for d in done]
        self.seen += out
        return out

    def messages(self):
        return [decode_server(line) for line in self.lines()]

    def drop(self):
        self.proto.connectionLost(None)
