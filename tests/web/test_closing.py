"""A browser that closes (a close frame, or its connection lost) while the hall still has
things to tell it: nothing is written after its close, nothing is logged as a failure, and
everyone else at the table and in the lobby still hears everything (the soak's
``table_event left failed for web...`` / wsproto ``LocalProtocolError`` tracebacks)."""
from __future__ import annotations

import pytest
from twisted.logger import LogLevel, globalLogPublisher
from wsproto.events import CloseConnection
from wsproto.utilities import LocalProtocolError

from gamehall_web.session import RELOAD_GRACE
from gamehall_web.site import build_site
from tests.helpers import make_hall
from tests.web.test_protocol_http import WsClient, upgrade
from tests.web.webharness import NimView


@pytest.fixture
def logged():
    events: list[dict] = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


def failures(events: list[dict]) -> list[dict]:
    return [e for e in events if e.get("log_failure") is not None
            or e.get("log_level") in (LogLevel.error, LogLevel.critical)]


def connect(hall, site, nickname: str) -> tuple[WsClient, object, object]:
    _, proto, transport = upgrade(hall, None, site)
    client = WsClient(proto, transport)
    client.send({"type": "hello", "nickname": nickname})
    client.send({"type": "lobby"})
    return client, proto, transport


def kinds(client: WsClient) -> list[str]:
    client.pump()
    return [m["type"] for m in client.received]


def a_table_with_two_watchers(hall, site):
    """Ann plays Nim against a bot (not started); Wes and Val watch it, all in the lobby."""
    ann = connect(hall, site, "Ann")[0]
    ann.send({"type": "create", "game": "nim", "bots": ["perfect"]})
    table = [m for m in ann.received if m["type"] == "created"][-1]["table"]
    watchers = []
    for nickname in ("Wes", "Val"):
        client, proto, transport = connect(hall, site, nickname)
        client.send({"type": "watch", "table": table})
        watchers.append((client, proto, transport))
    return ann, table, watchers


def the_hall_goes_on(hall, ann: WsClient, val: WsClient) -> None:
    """Lobby chat, table chat, a started game, the player leaving (the soak's ``left``) and a
    newcomer in the lobby, all fanned out while one socket is closing: Val, still open,
    hears each of them."""
    before = len(kinds(val))
    ann.send({"type": "chat", "text": "hello lobby"})
    ann.send({"type": "say", "text": "hello table"})
    ann.send({"type": "start"})
    hall.clock.advance(60)                       # the game's first moves
    ann.send({"type": "leave"})                  # a bot takes Ann's seat
    hall.clock.advance(1)
    connect(hall, build_site(hall, {"nim": NimView()}), "Newcomer")
    val.pump()
    heard = {(m["type"], m.get("event")) for m in val.received[before:]}
    assert {("chat", None), ("table_chat", None), ("table", "game"), ("table", "left"),
            ("users", None)} <= heard, heard
    # the table's changes: alone, or gathered with others within a second (Lobby.table_notice)
    assert heard & {("lobby_table", None), ("lobby_tables", None)}, heard


def test_a_close_frame_stops_every_send_to_that_session(logged):
    hall = make_hall()
    site = build_site(hall, {"nim": NimView()})
    ann, _, [(wes, wes_proto, wes_transport), (val, _, _)] = a_table_with_two_watchers(hall, site)
    # Wes's browser sends its close frame; the server answers it, the TCP close is to come
    wes_proto.dataReceived(wes.conn.send(CloseConnection(1000)))
    wes.pump()
    assert wes.closed == 1000 and wes_transport.disconnecting
    assert hall.lobby.find("Wes").sink.closing   # told at once, before anything is sent to it
    the_hall_goes_on(hall, ann, val)
    assert wes_transport.value() == b""          # nothing written after the close
    assert failures(logged) == [], [e.get("log_format") for e in failures(logged)]
    # and when the connection does end, Wes leaves quietly
    wes_proto.connectionLost(None)
    hall.clock.advance(RELOAD_GRACE)             # not back as a reload would be
    assert hall.lobby.find("Wes") is None
    ann.send({"type": "chat", "text": "bye"})
    assert failures(logged) == []


def test_a_connection_lost_abruptly_is_never_written_to(logged):
    hall = make_hall()
    site = build_site(hall, {"nim": NimView()})
    ann, _, [(wes, wes_proto, wes_transport), (val, _, _)] = a_table_with_two_watchers(hall, site)
    wes.pump()
    wes_proto.connectionLost(None)               # no close frame: the TCP connection just went
    hall.clock.advance(RELOAD_GRACE)             # not back as a reload would be
    assert hall.lobby.find("Wes") is None
    the_hall_goes_on(hall, ann, val)
    assert wes_transport.value() == b""
    assert failures(logged) == [], [e.get("log_format") for e in failures(logged)]


def test_a_send_the_websocket_refuses_is_dropped_not_raised(logged):
    """Belt and braces: should the websocket refuse a message all the same (its peer closed
    in a way the session was not told of), the send is dropped and the session marked closing;
    the table's fan-out goes on to everyone else."""
    hall = make_hall()
    site = build_site(hall, {"nim": NimView()})
    ann, _, [(wes, wes_proto, wes_transport), (val, _, _)] = a_table_with_two_watchers(hall, site)
    session = hall.lobby.find("Wes").sink

    def refuse(text):
        raise LocalProtocolError("Event TextMessage cannot be sent in state ConnectionState.CLOSED")
    session.wire.sendTextMessage = refuse
    the_hall_goes_on(hall, ann, val)
    assert session.closing
    assert failures(logged) == [], [e.get("log_format") for e in failures(logged)]


@pytest.mark.parametrize("close_frame", [True, False])
def test_a_closed_session_leaves_no_cycle_for_the_collector(close_frame):
    """A browser's session, its websocket and its HTTP channel, once closed and signed out,
    hold no reference cycle (its guarded transport kept the session's callbacks): sessions
    that come and go would otherwise leave garbage for the collector's full passes, which
    the hall makes rare (gamehall.tap.settle_collector)."""
    import gc

    from twisted.internet.error import ConnectionDone
    from twisted.python.failure import Failure

    hall = make_hall(rate=50, burst=200)
    site = build_site(hall, {"nim": NimView()})
    ann, _, [(wes, wes_proto, wes_transport), (val, _, _)] = a_table_with_two_watchers(hall, site)
    wes.send({"type": "chat", "text": "hi"})
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        if close_frame:
            wes_proto.dataReceived(wes.conn.send(CloseConnection(1000)))
        wes_proto.connectionLost(Failure(ConnectionDone()))
        hall.clock.advance(RELOAD_GRACE)             # not back: signed out
        assert hall.lobby.find("Wes") is None
        del wes, wes_proto, wes_transport
        gc.collect()
        left = sorted({type(o).__qualname__ for o in gc.garbage
                       if type(o).__module__.startswith(("gamehall", "twisted", "wsproto"))})
    finally:
        gc.set_debug(0)
        del gc.garbage[:]
    assert left == []
