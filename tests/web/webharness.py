"""Test harness for the web front end's JSON protocol: a hall on a Clock with the
example Nim game and a tiny view of its own, and sessions driven without a socket."""
from __future__ import annotations

import json

from twisted.internet.address import IPv4Address
from twisted.internet.defer import Deferred
from twisted.internet.testing import StringTransport

from gamehall_web.session import WebSession
from gamehall_web.site import WebHall
from tests.helpers import make_hall


class NimView:
    """A tiny IGameView for the example Nim game: the pile for all, a 'secret' for a seat."""

    game = "nim"
    script = None

    def __init__(self) -> None:
        self.spectator_calls = 0

    def spectator(self, engine) -> dict:
        self.spectator_calls += 1
        return {"pile": engine.pile, "players": list(engine.players)}

    def seat(self, engine, seat: int) -> dict:
        return {"pile": engine.pile, "players": list(engine.players), "secret": f"seat {seat} only"}

    def decision(self, engine, seat: int):
        if engine.pending_seat() != seat:
            return None
        return {"prompt": "Take stones",
                "choices": [{"label": f"Take {n}", "action": {"take": n}, "key": str(n)}
                            for n in range(1, min(3, engine.pile) + 1)]}

    def describe(self, engine, seat, events: list) -> list[str]:
        return [f"{engine.players[e['seat']]} takes {e['take']}, {e['pile']} left" for e in events]

    def scores(self, engine) -> list[float]:
        return [float(engine.pile)] * len(engine.players)


class FakeWire:
    """What ``twisted.web.websocket`` hands a WebSocketProtocol: text out, a byte transport."""

    def __init__(self) -> None:
        self.transport = StringTransport(peerAddress=IPv4Address("TCP", "127.0.0.1", 5000))
        self.sent: list[str] = []
        self.closed: tuple | None = None

    def sendTextMessage(self, text: str) -> None:
        self.sent.append(text)

    def loseConnection(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)


class Client:
    """One browser connection, driven by hand."""

    def __init__(self, web: WebHall, peer: str = "127.0.0.1", wire: FakeWire | None = None) -> None:
        self.wire = wire or FakeWire()
        self.session = WebSession(web, peer)
        web.session_opened(self.session)
        self.session.negotiationStarted(self.wire)
        self.session.negotiationFinished()
        self.seen = 0

    def send(self, message) -> None:
        self.session.textMessageReceived(message if isinstance(message, str) else json.dumps(message))

    @property
    def messages(self) -> list[dict]:
        return [json.loads(t) for t in self.wire.sent]

    def new(self) -> list[dict]:
        """Messages since the last call."""
        out = self.messages[self.seen:]
        self.seen = len(self.wire.sent)
        return out

    def of(self, kind: str) -> list[dict]:
        return [m for m in self.messages if m["type"] == kind]

    def last(self, kind: str) -> dict:
        found = self.of(kind)
        assert found, f"no {kind} message; got {[m['type'] for m in self.messages]}"
        return found[-1]

    def table_lines(self) -> list[dict]:
        """Every table line the lobby pushed, in order: alone (``lobby_table``) or gathered
        within a second (``lobby_tables``)."""
        return [line for m in self.messages if m["type"] in ("lobby_table", "lobby_tables")
                for line in ([m["table"]] if m["type"] == "lobby_table" else m["tables"])]

    def errors(self) -> list[str]:
        return [m["message"] for m in self.of("error")]

    def sign_in(self, nickname: str, token: str | None = None) -> dict:
        self.send({"type": "hello", "nickname": nickname, **({"token": token} if token else {})})
        return self.last("welcome")

    def lose(self) -> None:
        self.session.connectionLost(None)


class Jobs:
    """``WebHall``'s ``compute`` for tests: the work it would do on its replay threads, held
    until the test runs it (``held``), or done at once (the default)."""

    def __init__(self, held: bool = False) -> None:
        self.held = held
        self.waiting: list = []
        self.done = 0

    def __call__(self, fn, *args):
        d = Deferred()
        self.waiting.append((fn, args, d))
        if not self.held:
            self.run()
        return d

    def run(self, count: int | None = None) -> None:
        for _ in range(len(self.waiting) if count is None else count):
            fn, args, d = self.waiting.pop(0)
            self.done += 1
            try:
                result = fn(*args)
            except Exception:
                d.errback()
            else:
                d.callback(result)


def make_web(jobs: Jobs | None = None, **hall_options):
    hall = make_hall(**hall_options)          # the example Nim game
    view = NimView()
    return hall, WebHall(hall, {"nim": view}, compute=jobs or Jobs()), view


def playing(hall, web: WebHall, nickname: str = "Ann") -> tuple[Client, object]:
    """A signed-in client seated at a started Nim table against one bot: (client, table)."""
    client = Client(web)
    client.sign_in(nickname)
    client.send({"type": "create", "game": "nim", "bots": ["perfect"], "start": True})
    return client, hall.tables[client.last("created")["table"]]


def with_netacquire_user(hall, web: WebHall) -> tuple[Client, object]:
    """Nate on another protocol (a RecordingSink) and Ann signed in on the web: (ann, nate's sink)."""
    from tests.helpers import RecordingSink
    sink = RecordingSink()
    hall.login("Nate", "netacquire", sink)
    ann = Client(web)
    ann.sign_in("Ann")
    return ann, sink


def watching(web: WebHall, table, nickname: str = "Wes") -> Client:
    """A signed-in client watching ``table``."""
    client = Client(web)
    client.sign_in(nickname)
    client.send({"type": "watch", "table": table.id})
    return client
