"""In-process et connections over StringTransport, for wire tests; protocol-text clients that play
whole games over them."""
from __future__ import annotations

import random

from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from gamehall_et.game import EuphratesTigrisGame
from gamehall_et.wire.codec import decode_server
from gamehall_et.wire.protocol import build_factory
from tests.helpers import make_hall

from .etclient import Client


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


class Player:
    """A connection driven by the protocol-text client (tests/et/etclient.py)."""

    #: more lines than any game needs (whole games send a few hundred): a client and server
    #: that keep answering each other are stopped and reported instead of spinning for ever
    MAX_SENT = 5000

    def __init__(self, conn: Conn, seed: int):
        self.conn = conn
        self.client = Client(seed, self._send)
        self.client.my_id = conn.id
        self._out: list[str] = []
        self.sent = 0

    def _send(self, line: str) -> None:
        self._out.append(line)

    def pump(self) -> bool:
        moved = False
        for line in self.conn.lines():
            self.client.feed(line)
        while self._out:
            line = self._out.pop(0)
            moved = True
            self.sent += 1
            if self.sent > self.MAX_SENT:
                raise AssertionError(f"seat {self.client.player} sent {self.MAX_SENT} lines; last: {self.conn.seen[-4:]}")
            for reply in self.conn.send(line):
                self.client.feed(reply)
        return moved


def play_out(hall, players, limit=20000):
    """Let the players play until every one of them saw the game end (the hall's clock moves
    on whenever nobody has anything to say)."""
    for _ in range(limit):
        moved = any([p.pump() for p in players])
        if all(p.client.over for p in players):
            return
        if not moved:
            hall.clock.advance(1)
    raise AssertionError("the game did not end")
