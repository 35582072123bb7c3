"""The web front end over HTTP on a StringTransport: pages from package data, nothing
else served, and the WebSocket upgrade (Origin check, per-address cap, real frames)."""
from __future__ import annotations

import json

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport
from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import CloseConnection, TextMessage
from zope.interface import implementer

from gamehall.interfaces import IScriptDataView
from gamehall_web.session import RELOAD_GRACE
from gamehall_web.site import HTTP_IDLE, build_site
from tests.helpers import make_hall
from tests.web.webharness import NimView

KEY = b"dGhlIHNhbXBsZSBub25jZQ=="


def channel(hall, site=None):
    site = site or build_site(hall, {"nim": NimView()})
    proto = site.buildProtocol(IPv4Address("TCP", "127.0.0.1", 4321))
    proto.callLater = hall.clock.callLater         # the HTTP channel's timeouts on the test clock
    transport = StringTransport(peerAddress=IPv4Address("TCP", "127.0.0.1", 4321),
                                hostAddress=IPv4Address("TCP", "127.0.0.1", 8080))
    proto.makeConnection(transport)
    return site, proto, transport


def get(hall, path: bytes, headers: dict | None = None, site=None):
    site, proto, transport = channel(hall, site)
    lines = [b"GET " + path + b" HTTP/1.1", b"Host: 127.0.0.1:8080"]
    lines += [k + b": " + v for k, v in (headers or {}).items()]
    proto.dataReceived(b"\r\n".join(lines) + b"\r\n\r\n")
    return site, proto, transport


def status(transport) -> int:
    return int(transport.value().split(b" ", 2)[1])


@pytest.fixture
def hall():
    return make_hall()


@pytest.mark.parametrize("path", [b"/", b"/table/7", b"/records", b"/records/3"])
def test_every_page_is_the_shell_with_a_strict_policy(hall, path):
    _, _, transport = get(hall, path)
    response = transport.value()
    assert status(transport) == 200
    assert b"/static/gamehall.js" in response
    assert b"script-src 'self'" in response and b"X-Frame-Options: DENY" in response


@pytest.mark.parametrize("path, kind", [(b"/static/gamehall.js", b"text/javascript"),
                                        (b"/static/gamehall.css", b"text/css"),
                                        (b"/static/icon.svg", b"image/svg+xml")])
def test_assets_come_from_the_package(hall, path, kind):
    _, _, transport = get(hall, path)
    assert status(transport) == 200 and kind in transport.value()


@pytest.mark.parametrize("path", [b"/static/", b"/static/../session.py", b"/static/nope.js", b"/admin",
                                  b"/views/", b"/views/chess.js", b"/table/1/2", b"/ws/x", b"/.git/config"])
def test_nothing_else_is_served(hall, path):
    _, _, transport = get(hall, path)
    assert status(transport) == 404


def test_a_views_script_is_served_by_game_name(hall):
    class WithScript(NimView):
        script = ("gamehall_web", "static/icon.svg")      # any package file will do for the route
    site = build_site(hall, {"nim": WithScript()})
    _, _, transport = get(hall, b"/views/nim.js", site=site)
    assert status(transport) == 200 and b"<svg" in transport.value()


def test_a_views_unchanging_data_comes_once_in_front_of_its_script(hall):
    @implementer(IScriptDataView)
    class WithData(NimView):
        script = ("gamehall_web", "static/icon.svg")

        @staticmethod
        def script_data():
            return {"board": [1, 2], "note": "</script><b>"}

    class Broken(WithData):
        @staticmethod
        def script_data():
            raise ValueError("no layout")
    site = build_site(hall, {"nim": WithData()})
    _, _, transport = get(hall, b"/views/nim.js", site=site)
    body = transport.value().split(b"\r\n\r\n", 1)[1]
    head, rest = body.split(b";\n", 1)
    prefix = b'(GameHall.viewData = GameHall.viewData || {})["nim"] = '
    assert head.startswith(prefix) and b"</" not in head
    assert json.loads(head[len(prefix):]) == {"board": [1, 2], "note": "</script><b>"}
    assert rest.startswith(b"<svg")
    # data that cannot be made: the script is not served (logged), the rest of the site is
    site = build_site(hall, {"nim": Broken()})
    _, _, transport = get(hall, b"/views/nim.js", site=site)
    assert status(transport) == 404
    assert status(get(hall, b"/", site=site)[2]) == 200


def upgrade(hall, origin: bytes | None, site=None):
    headers = {b"Upgrade": b"websocket", b"Connection": b"Upgrade", b"Sec-WebSocket-Key": KEY,
               b"Sec-WebSocket-Version": b"13"}
    if origin is not None:
        headers[b"Origin"] = origin
    return get(hall, b"/ws", headers, site)


@pytest.mark.parametrize("origin", [b"http://evil.example", b"http://127.0.0.1:9999", b"null",
                                    b"file://", b"https://127.0.0.1:8080.evil.example"])
def test_a_websocket_from_another_origin_is_refused(hall, origin):
    _, _, transport = upgrade(hall, origin)
    assert status(transport) == 403
    assert b"cross-origin" in transport.value()


class WsClient:
    """The client side of a real WebSocket over the test transport (wsproto, masked frames)."""

    def __init__(self, proto, transport) -> None:
        self.proto, self.transport = proto, transport
        head, _, rest = transport.value().partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        transport.clear()
        self.conn = Connection(ConnectionType.CLIENT)
        self.received: list[dict] = []
        self.closed = None
        self._read(rest)

    def _read(self, data: bytes) -> None:
        self.conn.receive_data(data)
        for event in self.conn.events():
            if isinstance(event, TextMessage):
                self.received.append(json.loads(event.data))
            elif isinstance(event, CloseConnection):
                self.closed = event.code

    def send(self, message) -> None:
        text = message if isinstance(message, str) else json.dumps(message)
        self.proto.dataReceived(self.conn.send(TextMessage(text)))
        self.pump()

    def pump(self) -> None:
        data = self.transport.value()
        self.transport.clear()
        self._read(data)


@pytest.mark.parametrize("origin", [b"http://127.0.0.1:8080", None])
def test_same_origin_or_no_origin_upgrades_and_speaks_json(hall, origin):
    _, proto, transport = upgrade(hall, origin)
    client = WsClient(proto, transport)
    assert client.received[0]["type"] == "hello"
    client.send({"type": "hello", "nickname": "Ann"})
    assert client.received[-1]["type"] == "welcome"
    assert hall.lobby.find("Ann").frontend == "web"
    client.send("{oops")
    assert client.received[-1] == {"type": "error", "message": client.received[-1]["message"], "request": None}
    assert "Not JSON" in client.received[-1]["message"]


def test_a_frame_over_the_cap_closes_with_1009(hall):
    _, proto, transport = upgrade(hall, None)
    client = WsClient(proto, transport)
    client.send(json.dumps({"type": "chat", "text": "x" * 20000}))
    assert "too long" in client.received[-1]["message"]
    assert client.closed == 1009 or transport.disconnecting


def test_the_per_address_cap_counts_websockets(hall):
    hall.max_per_peer = 2
    site = build_site(hall, {"nim": NimView()})
    for _ in range(2):
        _, proto, transport = upgrade(hall, None, site)
        WsClient(proto, transport)
    _, _, transport = upgrade(hall, None, site)
    assert status(transport) == 429


def test_closing_the_socket_signs_out(hall):
    _, proto, transport = upgrade(hall, None)
    client = WsClient(proto, transport)
    client.send({"type": "hello", "nickname": "Ann"})
    proto.connectionLost(None)
    hall.clock.advance(RELOAD_GRACE)            # not back as a reload would be
    assert hall.lobby.find("Ann") is None


def test_the_address_a_newcomer_is_told_to_open():
    from gamehall_web.site import address_for_people
    assert address_for_people("tcp:8080") == "http://localhost:8080/"
    assert address_for_people("tcp:8080:interface=127.0.0.1") == "http://localhost:8080/"
    assert address_for_people("tcp:80:interface=10.1.2.3") == "http://10.1.2.3:80/"
    assert address_for_people("ssl:8443:privateKey=k.pem:certKey=c.pem") == "https://localhost:8443/"
    assert address_for_people("unix:/tmp/hall.sock") is None
    assert address_for_people("tcp:0") is None


def frame_header(length: int, opcode: int = 0x1, fin: bool = True) -> bytes:
    """A client's (masked) frame header declaring ``length`` payload bytes."""
    first = (0x80 if fin else 0) | opcode
    if length < 126:
        size = bytes([0x80 | length])
    elif length < 1 << 16:
        size = bytes([0x80 | 126]) + length.to_bytes(2, "big")
    else:
        size = bytes([0x80 | 127]) + length.to_bytes(8, "big")
    return bytes([first]) + size + b"\x01\x02\x03\x04"


def the_wire(proto):
    """The websocket wire protocol the upgraded channel feeds (through the size guard)."""
    received = proto._channel.dataReceived
    deliver = getattr(received, "deliver", received)
    return deliver.__self__


def test_a_frame_declaring_more_than_the_cap_is_refused_at_its_header(hall):
    # one 100 MB frame took 100 MB and a minute before the cap applied to the whole message
    _, proto, transport = upgrade(hall, None)
    client = WsClient(proto, transport)
    wire = the_wire(proto)
    proto.dataReceived(frame_header(100_000_000))
    client.pump()
    assert "too long" in client.received[-1]["message"] and "100000000" in client.received[-1]["message"]
    assert client.closed == 1009 and transport.disconnecting
    for _ in range(64):                               # its payload, 1 MiB of it, is never read
        proto.dataReceived(b"x" * 16384)
    assert wire._textBuffer.data == "" and len(wire._wsconn._proto._frame_decoder.buffer) == 0
    assert hall.stats.refused["web"] == 1


def test_a_fragmented_message_is_refused_when_its_frames_add_up_past_the_cap(hall):
    _, proto, transport = upgrade(hall, None)
    client = WsClient(proto, transport)
    wire = the_wire(proto)
    mask = lambda data: bytes(b ^ (1, 2, 3, 4)[i % 4] for i, b in enumerate(data))
    part = b'{"type":"chat","text":"' + b"y" * 10_000
    proto.dataReceived(frame_header(len(part), fin=False) + mask(part))
    proto.dataReceived(frame_header(2, opcode=0x9) + mask(b"hi"))     # a ping between fragments
    proto.dataReceived(frame_header(10_000, opcode=0x0, fin=False)[:3])  # the header in pieces
    proto.dataReceived(frame_header(10_000, opcode=0x0, fin=False)[3:] + b"z" * 5000)
    client.pump()
    assert client.closed == 1009 and "20023" in client.received[-1]["message"]
    assert "z" not in wire._textBuffer.data


def test_frames_under_the_cap_pass_in_any_pieces(hall):
    _, proto, transport = upgrade(hall, None)
    client = WsClient(proto, transport)
    data = client.conn.send(TextMessage(json.dumps({"type": "ping", "pad": "p" * 16000})))
    data += client.conn.send(TextMessage('{"type": "ping"}'))
    for i in range(0, len(data), 7):
        proto.dataReceived(data[i:i + 7])
    client.pump()
    assert [m["type"] for m in client.received[1:]] == ["pong", "pong"] and client.closed is None


def test_deeply_nested_json_gets_the_bad_json_reply_and_the_connection_stays(hall):
    _, proto, transport = upgrade(hall, None)
    client = WsClient(proto, transport)
    client.send("[" * 5000)
    assert "Not JSON" in client.received[-1]["message"]
    client.send({"type": "ping"})
    assert client.received[-1]["type"] == "pong" and client.closed is None and not transport.disconnecting


def test_plain_http_connections_count_against_the_per_address_cap(hall, logged):
    # 1,500 idle sockets from one address were held for 60 s, one log line each
    hall.max_per_peer = 3
    site = build_site(hall, {"nim": NimView()})
    held = [channel(hall, site) for _ in range(3)]
    refused = [channel(hall, site)[2] for _ in range(5)]
    for transport in refused:
        assert status(transport) == 429 and transport.disconnecting
    assert b"too many connections" in refused[0].value()
    assert hall.stats.refused["web"] == 5
    lines = [e for e in logged if "refused" in str(e.get("log_format", ""))]
    assert len(lines) == 1 and lines[0]["count"] == 1              # at once: the first
    hall.clock.advance(60)
    lines = [e for e in logged if "refused" in str(e.get("log_format", ""))]
    assert len(lines) == 2 and lines[1]["count"] == 4              # then the rest as one line
    held[0][1].connectionLost(None)                                # one goes: one more may come
    _, _, transport = channel(hall, site)
    assert transport.value() == b"" and not transport.disconnecting


def test_a_websocket_counts_until_it_closes_and_its_refusals_are_logged(hall, logged):
    hall.max_per_peer = 1
    site = build_site(hall, {"nim": NimView()})
    _, proto, transport = upgrade(hall, None, site)
    WsClient(proto, transport)
    assert site.per_peer["127.0.0.1"] == 1
    assert status(upgrade(hall, None, site)[2]) == 429
    assert any("refused" in str(e.get("log_format", "")) for e in logged)
    proto.connectionLost(None)
    assert site.per_peer == {} and status(upgrade(hall, None, site)[2]) == 101


def test_idle_http_connections_are_closed_sooner_and_logged_as_a_count(hall, logged):
    site = build_site(hall, {"nim": NimView()})
    idle = [channel(hall, site)[2] for _ in range(4)]
    before = len(logged)
    hall.clock.advance(HTTP_IDLE + 0.1)
    assert all(t.disconnecting for t in idle)
    lines = [e for e in logged[before:] if "HTTP connection" in str(e.get("log_format", ""))
             or "Timing out" in str(e.get("log_format", ""))]
    assert len(lines) == 1 and lines[0]["count"] == 1
    hall.clock.advance(60)
    lines = [e for e in logged[before:] if "HTTP connection" in str(e.get("log_format", ""))]
    assert len(lines) == 2 and lines[1]["count"] == 3
