"""In-process NetAcquire connections over StringTransport, driven by tests/netacquire/naclient.py."""
from __future__ import annotations

from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from gamehall_acquire.wire.protocol import build_factory
from tests.helpers import make_hall
from tests.netacquire.naclient import PlayerLogic, parse, split_directives


def acquire_game():
    """The plugin object of the Acquire dropin (or the same game class if the dropin is missing)."""
    try:
        from twisted.plugins.gamehall_acquire_plugin import acquire
    except ImportError:          # the dropin is being edited in the shared tree
        from gamehall_acquire.game import AcquireGame
        acquire = AcquireGame()
    return acquire


def acquire_hall(**kw):
    acquire = acquire_game()
    kw.setdefault("idle_timeout", 0)
    return make_hall(games={"acquire": acquire}, **kw)


class CountingTransport(StringTransport):
    """A StringTransport that remembers every ``write`` (one event should be one write)."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)
        super().write(data)


class Conn:
    """One client connection; ``answer`` False makes it record requests without answering."""

    def __init__(self, factory, name: str, port: int, seed: int = 0, login: bool = True, answer: bool = True,
                 host: str = "127.0.0.1", **logic_kw) -> None:
        address = IPv4Address("TCP", host, port)
        self.proto = factory.buildProtocol(address)
        self.transport = CountingTransport(peerAddress=address)
        self.logic = PlayerLogic(name, seed, **logic_kw)
        self.buffer = b""
        self.answer = True
        self.bytewise = False
        self.on_request = None
        self.logic.auto_login = login
        self.raw = b""
        self.proto.makeConnection(self.transport)
        self.pump()                 # SP -> PL
        self.answer = answer
        self.pump()

    @property
    def closed(self) -> bool:
        return self.transport.disconnecting

    def send(self, text: str | bytes) -> None:
        if isinstance(text, str):
            self.logic.sent(text)
        data = text if isinstance(text, bytes) else text.encode("ascii") + b";:"
        if self.bytewise:
            for i in range(len(data)):
                self.proto.dataReceived(data[i:i + 1])
        else:
            self.proto.dataReceived(data)

    def read(self) -> list[tuple[str, list[str]]]:
        """What the host sent since the last read, parsed, without reacting (but recorded)."""
        data = self.transport.value()
        self.transport.clear()
        self.raw += data
        directives, self.buffer = split_directives(self.buffer + data)
        parsed = [parse(text) for text in directives]
        for code, params in parsed:
            self.logic.receive(code, params)
        return parsed

    def pump(self, check=None) -> bool:
        """Read what the host sent and react; True if there was anything.

        ``check(conn)`` runs after everything was read and before any answer is sent.
        """
        data = self.transport.value()
        self.transport.clear()
        if not data:
            return False
        self.raw += data
        directives, self.buffer = split_directives(self.buffer + data)
        replies = []
        for text in directives:
            code, params = parse(text)
            replies += self.logic.receive(code, params)
            if code in ("GT", "GC", "GD", "GP") and self.on_request is not None:
                self.on_request(self, code, params)
        if check is not None:
            check(self)
        if self.answer:
            for reply in replies:
                self.send(reply)
        return True

    def codes(self) -> list[str]:
        return [code for code, _ in self.logic.log]

    def drop(self) -> None:
        self.transport.loseConnection()
        self.proto.connectionLost(None)


def pump_all(conns, hall=None, until=None, limit: int = 200000, check=None) -> None:
    """Pump every connection (and the hall's clock, for bots) until ``until()`` or quiet."""
    for _ in range(limit):
        if until is not None and until():
            return
        busy = False
        for conn in conns:
            busy = conn.pump(check) or busy
        if not busy:
            if hall is not None and hall.clock.getDelayedCalls() and until is not None:
                hall.clock.advance(hall.bot_delay)
                continue
            if until is None:
                return
            raise AssertionError("nothing happens any more and the condition is not met")
    raise AssertionError("pump limit reached")


def connect(hall, names, seed: int = 0, **logic_kw):
    factory = build_factory(hall)
    conns = [Conn(factory, name, 1000 + i, seed=seed + i, **logic_kw) for i, name in enumerate(names)]
    pump_all(conns)
    return factory, conns
