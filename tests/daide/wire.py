"""In-process DAIDE connections for the tests: the front end on a StringTransport, a hall
on a Clock, and the test client (tests/daide/client.py) pumped against it."""
from __future__ import annotations

from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from gamehall_daide.wire.protocol import build_factory
from tests.daide.client import Client
from tests.helpers import make_hall

_PORTS = iter(range(40000, 60000))


def daide_hall(**kw):
    from twisted.plugins.gamehall_daide_plugin import diplomacy
    kw.setdefault("bot_delay", 0.0)
    return make_hall(games={"diplomacy": diplomacy}, **kw)


class Link:
    """One connection: the server's protocol and, optionally, a test client."""

    def __init__(self, factory, client: Client | None = None, host: str = "127.0.0.1") -> None:
        addr = IPv4Address("TCP", host, next(_PORTS))
        self.proto = factory.buildProtocol(addr)
        self.transport = StringTransport(peerAddress=addr)
        self.proto.makeConnection(self.transport)
        self.client = client

    def raw(self, data: bytes) -> bytes:
        """Feed bytes to the server; return what it wrote back."""
        self.proto.dataReceived(data)
        return self.out()

    def out(self) -> bytes:
        data = self.transport.value()
        self.transport.clear()
        return data

    @property
    def closed(self) -> bool:
        return self.transport.disconnecting

    def pump(self) -> bool:
        """Exchange whatever is pending both ways; True if anything moved."""
        moved = False
        if self.client is not None:
            data = self.client.take()
            if data and not self.closed:
                self.proto.dataReceived(data)
                moved = True
            back = self.out()
            if back:
                self.client.feed(back)
                moved = True
        return moved

    def lose(self) -> None:
        from twisted.python.failure import Failure
        from twisted.internet.error import ConnectionDone
        self.proto.connectionLost(Failure(ConnectionDone()))


def pump(links, rounds: int = 200) -> None:
    for _ in range(rounds):
        if not any([link.pump() for link in links]):
            return


def factory_of(hall):
    return build_factory(hall)
