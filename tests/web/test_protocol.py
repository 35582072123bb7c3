"""The web front end's JSON protocol, driven without a socket on a Clock (docs/web.md)."""
from __future__ import annotations

import json

import pytest

from gamehall_web.session import CLOSE_MOVED, CLOSE_TOO_BIG, MAX_MESSAGE, RELOAD_GRACE, REQUESTS
from tests.helpers import RecordingSink
from tests.test_wire_limits import TrickleSocket
from tests.web.webharness import Client, FakeWire, Jobs, make_web, playing, watching, with_netacquire_user


@pytest.fixture
def web():
    return make_web()


def no_traceback(client: Client) -> None:
    for text in client.wire.sent:
        assert "Traceback" not in text and 'File "' not in text


def test_hello_then_welcome_with_a_token(web):
    hall, site, _ = web
    ann = Client(site)
    hello = ann.messages[0]
    assert hello["type"] == "hello" and hello["limits"]["max_message"] == MAX_MESSAGE
    welcome = ann.sign_in("Ann")
    assert welcome["nickname"] == "Ann" and len(welcome["token"]) >= 16
    assert hall.lobby.find("Ann").frontend == "web"


@pytest.mark.parametrize("nickname, reason", [
    ("", "empty"), ("a*b", "may not contain"), ("x" * 40, "longer than"), ("bad\u202ename", "invisible"),
])
def test_nicknames_follow_the_hall_rules(web, nickname, reason):
    _, site, _ = web
    ann = Client(site)
    ann.send({"type": "hello", "nickname": nickname})
    assert reason in ann.errors()[-1]
    assert not ann.of("welcome")


def test_a_nickname_in_use_on_another_protocol_is_refused(web):
    hall, site, _ = web
    hall.login("Bob", "netacquire", RecordingSink())
    bob = Client(site)
    bob.send({"type": "hello", "nickname": "bob"})
    assert "Duplicate" in bob.errors()[-1]


@pytest.mark.parametrize("text, reason", [
    ("{not json", "Not JSON"),
    ("[1, 2]", 'JSON object with a "type"'),
    ('{"kind": "hello"}', 'JSON object with a "type"'),
    ('{"type": "launch_missiles"}', "Unknown message type 'launch_missiles'"),
    ('{"type": "__class__"}', "Unknown message type"),
    ('{"type": "watch"}', "'table' is missing"),
    ('{"type": "say", "text": "hi"}', "Sign in first"),
    ('{"type": "chat", "text": "hi"}', "Sign in first"),
    ('{"type": "create", "game": "nim"}', "Sign in first"),
    ('{"type": "join", "table": 1}', "Sign in first"),
])
def test_bad_messages_get_a_clear_error_never_a_traceback(web, text, reason):
    _, site, _ = web
    ann = Client(site)
    ann.send(text)
    error = ann.last("error")
    assert reason in error["message"]
    no_traceback(ann)
    assert ann.wire.closed is None


def test_unknown_type_lists_the_known_ones(web):
    _, site, _ = web
    ann = Client(site)
    ann.send({"type": "nope"})
    for name in ("hello", "act", "watch", "replay"):
        assert name in ann.errors()[-1]
    assert "hello" in REQUESTS and "act" in REQUESTS


@pytest.mark.parametrize("message, reason", [
    ({"type": "watch", "table": "seven"}, "'table' must be an integer"),
    ({"type": "watch"}, "'table' is missing"),
    ({"type": "watch", "table": 99}, "No game #99"),
    ({"type": "chat", "text": 5}, "'text' must be a string"),
    ({"type": "chat", "text": "   "}, "'text' is empty"),
    ({"type": "create", "game": "chess"}, "No game called 'chess'"),
    ({"type": "create", "game": "nim", "bots": ["deep blue"]}, "Unknown bot"),
    ({"type": "create", "game": "nim", "join": False}, "must start at once"),
    ({"type": "act", "action": {"take": 1}}, "not at a table"),
    ({"type": "records", "limit": 0}, "'limit' must be"),
])
def test_field_errors_name_the_field(web, message, reason):
    _, site, _ = web
    ann = Client(site)
    ann.sign_in("Ann")
    ann.send(message)
    assert reason in ann.errors()[-1], ann.errors()
    no_traceback(ann)


def test_a_message_over_the_cap_is_refused_and_the_connection_closed(web):
    _, site, _ = web
    ann = Client(site)
    ann.send(json.dumps({"type": "chat", "text": "x" * MAX_MESSAGE}))
    assert "too long" in ann.errors()[-1]
    assert ann.wire.closed[0] == CLOSE_TOO_BIG


def test_binary_messages_are_refused_politely(web):
    _, site, _ = web
    ann = Client(site)
    ann.session.bytesMessageReceived(b"\x00\x01")
    assert "text messages" in ann.errors()[-1]


def test_input_over_the_rate_waits_for_the_clock():
    hall, site, _ = make_web(rate=2.0, burst=2)
    ann = Client(site)
    for _ in range(4):
        ann.send({"type": "ping"})
    assert len(ann.of("pong")) == 2                 # the burst; the rest is held, the socket paused
    assert ann.wire.transport.producerState == "paused"
    hall.clock.advance(1.0)
    assert len(ann.of("pong")) == 4
    assert ann.wire.transport.producerState == "producing"


def test_output_left_unread_past_the_cap_drops_the_connection():
    hall, site, _ = make_web(max_output=2000)
    ann = Client(site)
    ann.sign_in("Ann")
    guard = ann.session.wire.transport
    guard._meter.pauseProducing()                   # the socket's buffer is full: the peer does not read
    # (FakeWire does not write through the guard: count what a real wire would write)
    for _ in range(50):
        guard.write(b"x" * 100)
    assert guard.overflowed
    assert ann.wire.transport.disconnecting or ann.session.closing


class SocketWire(FakeWire):
    """A wire that writes each message through its (guarded) byte transport, as the real one
    does, onto a socket with Twisted's own buffering."""

    def __init__(self) -> None:
        super().__init__()
        self.transport = TrickleSocket()

    def sendTextMessage(self, text: str) -> None:
        super().sendTextMessage(text)
        self.transport.write(text.encode())


def test_a_spectator_that_keeps_reading_is_never_dropped_for_unread_output():
    # the hall log once said "web: 127.0.0.1 left over 1048576 bytes unread" of a browser
    # watching a Monopoly game for two minutes: every byte sent since the socket buffer was
    # first full was counted, never what the browser had read since
    hall, site, _ = make_web(max_output=200_000)
    ann, table = playing(hall, site)
    wes = Client(site, wire=SocketWire())
    wes.sign_in("Wes")
    wes.send({"type": "watch", "table": table.id})
    sock = wes.wire.transport.wrapped
    line = "a move of a big game " * 45
    for i in range(80):                             # past Twisted's 64 KiB: the buffer is full
        table.chat(ann.session.user, line)
    assert sock.producerPaused
    for i in range(3000):                           # 3 MB more, read as fast as it comes
        table.chat(ann.session.user, line)
        sock.read(1000)
    assert not wes.session.closing and not sock.aborted
    assert sock.unsent() > sock.bufferSize          # the buffer never emptied meanwhile
    for i in range(200):                            # the browser stops reading: dropped at the cap
        table.chat(ann.session.user, line)
    assert wes.session.closing and sock.aborted and sock.unsent() <= 200_000


def test_a_spectator_left_behind_is_sent_the_latest_state_not_every_move():
    hall, site, _ = make_web(max_output=10_000_000)
    wanda = Client(site)
    wanda.sign_in("Wanda")
    wanda.send({"type": "create", "game": "nim", "bots": ["perfect", "perfect"], "join": False, "start": True})
    table = hall.tables[wanda.last("created")["table"]]
    wes = Client(site, wire=SocketWire())
    wes.send({"type": "watch", "table": table.id})       # a visitor, on a socket it does not read
    sock = wes.wire.transport.wrapped
    for _ in range(80):                                   # the hall's buffer for it is full
        table.chat(wanda.session.user, "x" * 1000)
    assert wes.session.wire.transport.behind
    games = lambda client: [m for m in client.of("table") if m["event"] == "game"]
    seen, behind_from = len(games(wes)), table.seq
    for _ in range(3):
        hall.clock.advance(0.5)                           # bots move: Wanda sees every move...
    assert len(games(wanda)) >= 3 and len(games(wes)) == seen   # ...the one left behind none
    sock.read(10_000_000)                                 # it reads everything: the buffer empties
    assert not wes.session.wire.transport.behind
    hall.clock.advance(0.5)                               # the catch-up look: the latest state
    state = wes.last("table_state")
    assert state["skipped"] >= 3 and state["seq"] >= behind_from + 3 and state["view"]["pile"] is not None
    for _ in range(3):
        hall.clock.advance(0.5)
    after = [m["seq"] for m in wes.messages[wes.messages.index(state):] if m.get("event") == "game"]
    assert after == list(range(state["seq"] + 1, table.seq + 1)) and after   # every move again, as they come


def test_lobby_chat_goes_both_ways_with_other_protocols(web):
    hall, site, _ = web
    ann, sink = with_netacquire_user(hall, site)
    ann.send({"type": "lobby"})
    ann.send({"type": "chat", "text": "hello <b>all</b>"})
    assert ("Ann", "hello <b>all</b>") in sink.chat
    hall.lobby.chat("Nate", "hi from the old client")
    assert {"type": "chat", "from": "Nate", "text": "hi from the old client"} in ann.messages


def test_chat_text_loses_control_characters_and_is_capped(web):
    hall, site, _ = web
    ann, sink = with_netacquire_user(hall, site)
    ann.send({"type": "chat", "text": "a\x00b\u202ec" + "y" * 2000})
    sender, text = sink.chat[-1]
    assert text.startswith("abc") and len(text) == 1000


def test_lobby_snapshot_and_live_changes(web):
    hall, site, _ = web
    nate = hall.login("Nate", "netacquire", RecordingSink())
    ann = Client(site)
    ann.sign_in("Ann")
    ann.send({"type": "lobby"})
    lobby = ann.last("lobby")
    assert {"nickname": "Nate", "frontend": "netacquire", "where": "in lobby"} in lobby["users"]
    assert lobby["games"][0]["name"] == "nim" and lobby["games"][0]["bots"] == ["perfect"]
    # (a table nobody is at is not listed: test_page_fixes.py)
    table = hall.create_table("nim", creator=nate)
    hall.clock.advance(1)                         # (and table changes: made, then joined)
    added = ann.table_lines()[-1]
    assert added["id"] == table.id and added["title"] == "Nim" and added["spectator_count"] == 0
    hall.clock.advance(2)
    hall.login("Zed", "et", RecordingSink())
    hall.clock.advance(2)                         # (the lobby gathers join notices for a second)
    joined = [u for m in ann.of("users") for u in m["joined"]]
    assert {"nickname": "Zed", "frontend": "et"} in joined
    ann.send({"type": "lobby", "on": False})
    before = len(ann.messages)
    hall.create_table("nim")
    assert len(ann.messages) == before            # not on the lobby page: no lobby pushes


def test_a_second_of_table_changes_is_one_lobby_tables_message(web):
    hall, site, _ = web
    nate = hall.login("Nate", "netacquire", RecordingSink())
    ann, bob = Client(site), Client(site)
    for client, name in ((ann, "Ann"), (bob, "Bob")):
        client.sign_in(name)
        client.send({"type": "lobby"})
    hall.clock.advance(10)
    ann.new()
    first = hall.create_table("nim", creator=nate)    # told at once (nobody seated yet: hidden)
    others = [hall.create_table("nim") for _ in range(5)]
    for table in others:
        table.add_bot("perfect")
    gone = hall.create_table("nim")
    gone.add_bot("perfect")
    hall.close_table(gone.id)
    assert [m["type"] for m in ann.new()] == ["lobby_table_removed"]
    hall.clock.advance(1)
    batch = ann.new()
    # one message for 13 changes, each table once as it is now (one per change before)
    assert [m["type"] for m in batch] == ["lobby_tables"]
    assert [(t["id"], len(t["seats"])) for t in batch[0]["tables"]] == [(t.id, 1) for t in others + [first]]
    assert batch[0]["removed"] == [gone.id]
    assert bob.messages[-1] == batch[0]


def play_to_the_end(hall, client, table_id) -> None:
    for _ in range(200):
        table = hall.tables.get(table_id)
        if table is None:
            return
        decision = client.of("decision")[-1] if client.of("decision") else None
        if decision and decision["decision"] and table.engine.pending_seat() == table.seat_of(client.session.user):
            client.send({"type": "act", "action": decision["decision"]["choices"][0]["action"]})
        hall.clock.advance(1)
    raise AssertionError("the game did not end")


def test_create_with_bots_play_and_finish(web):
    hall, site, view = web
    ann = Client(site)
    ann.sign_in("Ann")
    ann.send({"type": "create", "game": "nim", "bots": ["perfect"], "start": True})
    table_id = ann.last("created")["table"]
    state = ann.last("table_state")
    assert state["seat"] == 0 and state["table"]["seats"][1]["kind"] == "bot"
    assert state["view"]["secret"] == "seat 0 only"
    assert state["decision"]["choices"][0]["action"] == {"take": 1}
    play_to_the_end(hall, ann, table_id)
    games = [m for m in ann.of("table") if m["event"] == "game"]
    assert games and all("secret" in m["view"] for m in games if "view" in m)
    assert any("takes" in line for m in games for line in m["lines"])
    finished = [m for m in ann.of("table") if m["event"] == "finished"][-1]
    assert finished["result"]["reason"] == "last stone taken"
    no_traceback(ann)


def test_an_illegal_action_is_refused_with_the_engines_reason(web):
    hall, site, _ = web
    ann, _ = playing(hall, site)
    ann.send({"type": "act", "action": {"take": 7}})
    assert "Take 1 to 3 stones" in ann.errors()[-1]
    ann.send({"type": "act", "action": "take 1"})
    assert "'action' must be a JSON object" in ann.errors()[-1]


def test_spectators_share_one_message_made_once_per_event(web):
    hall, site, view = web
    owner = Client(site)
    owner.sign_in("Owner")
    owner.send({"type": "create", "game": "nim", "bots": ["perfect", "perfect"], "join": False, "start": True})
    table_id = owner.last("created")["table"]
    watchers = [Client(site) for _ in range(5)]
    for n, w in enumerate(watchers):
        w.sign_in(f"W{n}")
        w.send({"type": "watch", "table": table_id})
    for w in [owner, *watchers]:
        w.new()
    calls = view.spectator_calls
    hall.clock.advance(0.5)                         # one bot move
    texts = {w.wire.sent[-1] for w in [owner, *watchers]}
    assert len(texts) == 1                         # the same serialized text for all six
    message = json.loads(texts.pop())
    assert message["event"] == "game" and "secret" not in message["view"]
    assert view.spectator_calls == calls + 1      # computed once, not six times


def test_spectators_never_get_a_seat_view_or_a_decision(web):
    hall, site, _ = web
    ann, table = playing(hall, site)
    wes = watching(site, table)
    table_id = table.id
    play_to_the_end(hall, ann, table_id)
    assert not wes.of("decision")
    assert all("secret" not in json.dumps(m) for m in wes.messages)
    wes.send({"type": "act", "action": {"take": 1}})
    assert "not at a table" in wes.errors()[-1] or "Spectators" in wes.errors()[-1]


def test_the_turn_timer_is_told_with_the_decision(web):
    hall, site, _ = web
    ann, _ = playing(hall, site)
    assert ann.last("table_state")["deadline_in"] == 60.0
    hall.clock.advance(10)
    ann.send({"type": "state"})
    assert ann.last("table_state")["deadline_in"] == 50.0


def test_reload_gets_the_seat_back_with_the_token(web):
    hall, site, _ = web
    ann, table = playing(hall, site)
    token = ann.last("welcome")["token"]
    ann.lose()                                      # the connection drops, for longer than a reload
    hall.clock.advance(RELOAD_GRACE)
    assert table.held_seat("Ann") == 0
    again = Client(site)
    again.sign_in("Ann", token)
    state = again.last("table_state")
    assert state["seat"] == 0 and state["table"]["id"] == table.id
    assert table.seats[0].user is again.session.user


def test_a_held_seat_is_not_given_to_another_browser(web):
    hall, site, _ = web
    ann, table = playing(hall, site)
    ann.lose()
    thief = Client(site)
    thief.sign_in("Ann", "another-browser-token-123")
    assert "held for its player" in thief.errors()[-1]
    assert table.seats[0].user is None


def test_a_second_tab_takes_over_and_the_first_is_told(web):
    hall, site, _ = web
    first, table = playing(hall, site)
    token = first.last("welcome")["token"]
    second = Client(site)
    second.sign_in("Ann", token)
    assert first.last("closing")["reason"] == "moved" and first.wire.closed[0] == CLOSE_MOVED
    assert second.last("table_state")["seat"] == 0
    assert table.seats[0].user is second.session.user
    assert hall.lobby.find("Ann").sink is second.session


def test_a_web_player_and_another_protocols_player_at_one_table(web):
    hall, site, _ = web
    sink = RecordingSink()
    nate = hall.login("Nate", "netacquire", sink)
    ann = Client(site)
    ann.sign_in("Ann")
    ann.send({"type": "create", "game": "nim"})
    table = hall.tables[ann.last("created")["table"]]
    table.join(nate)
    ann.send({"type": "start"})
    assert table.state == "playing"
    assert ann.last("table_state")["decision"] is not None
    ann.send({"type": "act", "action": {"take": 2}})
    assert ("game", 1) in [(e, d.get("seq")) for _, e, d in sink.events] or any(
        e == "game" for _, e, _ in sink.events)
    table.act(nate, {"take": 1})
    lines = [line for m in ann.of("table") if m["event"] == "game" for line in m["lines"]]
    assert lines[-2:] == [f"Ann takes 2, {table.engine.pile + 1} left", f"Nate takes 1, {table.engine.pile} left"]


def test_only_the_creator_changes_the_table(web):
    hall, site, _ = web
    ann, bob = Client(site), Client(site)
    ann.sign_in("Ann")
    bob.sign_in("Bob")
    ann.send({"type": "create", "game": "nim"})
    table_id = ann.last("created")["table"]
    bob.send({"type": "join", "table": table_id})
    bob.send({"type": "add_bot"})
    assert "creator" in bob.errors()[-1]
    bob.send({"type": "start"})
    assert "creator" in bob.errors()[-1]
    ann.send({"type": "add_bot"})
    assert [s.kind for s in hall.tables[table_id].seats] == ["human", "human", "bot"]


def test_table_chat_reaches_the_table(web):
    hall, site, _ = web
    ann, wes = Client(site), Client(site)
    ann.sign_in("Ann")
    wes.sign_in("Wes")
    ann.send({"type": "create", "game": "nim"})
    wes.send({"type": "watch", "table": ann.last("created")["table"]})
    ann.send({"type": "say", "text": "<script>x</script>"})
    assert wes.last("table_chat")["text"] == "<script>x</script>"    # text: the page shows it as text


def test_records_list_and_replay_with_scores_per_step(web):
    hall, site, _ = web
    ann, table = playing(hall, site)
    table_id, store_id = table.id, table.store_id
    play_to_the_end(hall, ann, table_id)
    ann.send({"type": "records", "game": "nim"})
    assert ann.last("records")["games"][0]["name"] == "nim"
    records = ann.last("records")["records"]
    assert [r["id"] for r in records] == [store_id]
    assert records[0]["seats"][0] == {"name": "Ann", "kind": "human", "bot": None}
    assert "secret" not in json.dumps(records) and "address" not in json.dumps(records)
    ann.send({"type": "replay", "id": store_id})
    replay = ann.last("replay")
    assert replay["length"] == len(replay["scores"]) - 1 == len(replay["actors"]) > 0
    assert replay["scores"][-1] == [0.0, 0.0]                    # the tiny view's score: the pile
    assert ann.last("replay_state")["step"] == replay["length"]
    ann.send({"type": "replay_step", "id": store_id, "step": 0})
    first = ann.last("replay_state")
    assert first["view"]["pile"] == replay["scores"][0][0]
    ann.send({"type": "replay_step", "id": store_id, "step": 2})
    assert ann.last("replay_state")["view"]["pile"] == replay["scores"][2][0]
    ann.send({"type": "replay_step", "id": store_id, "step": 10_000})
    assert "'step' must be 0 to" in ann.errors()[-1]
    ann.send({"type": "replay", "id": 424242})
    assert "No record #424242" in ann.errors()[-1]


def test_idle_lobby_connections_close_but_not_at_a_table():
    hall, site, _ = make_web(idle_timeout=60)
    lobby, watcher = Client(site), Client(site)
    lobby.sign_in("Lou")
    watcher.sign_in("Wes")
    watcher.send({"type": "create", "game": "nim", "bots": ["perfect", "perfect"], "join": False, "start": True})
    visitor, looker = Client(site), Client(site)          # no nickname: one watches, one sees the lobby
    visitor.send({"type": "watch", "table": watcher.last("created")["table"]})
    looker.send({"type": "lobby"})
    hall.clock.advance(61)
    assert lobby.wire.closed is not None and lobby.last("closing")["reason"] == "idle"
    assert looker.wire.closed is not None
    assert watcher.wire.closed is None and visitor.wire.closed is None


def test_connection_lost_signs_out(web):
    hall, site, _ = web
    ann = Client(site)
    ann.sign_in("Ann")
    ann.lose()
    assert hall.stats.connections["web"] == 0
    hall.clock.advance(RELOAD_GRACE)                # not back as a reload would be
    assert hall.lobby.find("Ann") is None and "ann" not in site.sessions
    assert hall.stats.connections["web"] == 0


def test_a_game_without_a_view_shows_its_plain_events_and_takes_json_actions():
    from gamehall_web.site import WebHall
    hall, _, _ = make_web()
    site = WebHall(hall, {})                       # no IGameView for nim
    ann, table = playing(hall, site)
    wes = watching(site, table)
    table_id = table.id
    state = ann.last("table_state")
    assert state["script"] is None and state["view"] == {"players": ["Ann", "PerfectBot1"]}
    assert state["decision"]["raw"] is True
    ann.send({"type": "act", "action": {"take": 2}})
    line = [m for m in wes.of("table") if m["event"] == "game"][-1]["lines"][0]
    assert line.startswith("took: ") and '"take": 2' in line


def test_the_output_cap_takes_over_from_the_http_channels_producer(web):
    from gamehall_web.session import WebSession
    from tests.web.webharness import FakeWire
    hall, site, _ = web
    wire = FakeWire()
    channel = object()                              # the HTTP channel registers itself (TCP or TLS)
    wire.transport.registerProducer(channel, True)
    session = WebSession(site, "127.0.0.1")
    session.negotiationStarted(wire)
    guard = wire.transport
    assert guard._registered and guard.wrapped.producer is guard._meter


# -- visitors without a nickname ---------------------------------------------------------
def test_a_visitor_without_a_nickname_sees_the_lobby_live_but_cannot_speak(web):
    hall, site, _ = web
    eve = Client(site)
    eve.send({"type": "lobby"})
    lobby = eve.last("lobby")
    assert lobby["users"] == [] and lobby["tables"] == [] and [g["name"] for g in lobby["games"]] == ["nim"]
    assert hall.who() == []                            # a visitor is no user: not listed, no nickname taken
    nate = RecordingSink()
    hall.login("Nate", "netacquire", nate)
    hall.lobby.flush()
    assert any(m["type"] == "users" and m["joined"][0]["nickname"] == "Nate" for m in eve.messages)
    hall.lobby.chat("Nate", "hello from NetAcquire")
    assert eve.last("chat") == {"type": "chat", "from": "Nate", "text": "hello from NetAcquire"}
    ann, table = playing(hall, site)
    hall.lobby.flush()
    assert eve.table_lines()[-1]["id"] == table.id
    for request in ({"type": "chat", "text": "hi"}, {"type": "create", "game": "nim"},
                    {"type": "join", "table": table.id}):
        eve.send(request)
        assert "Sign in first" in eve.errors()[-1]
    assert [line for line in nate.chat if line[0] != "*"] == [("Nate", "hello from NetAcquire")]
    eve.send({"type": "lobby", "on": False})
    hall.lobby.chat("Nate", "not for eve")
    assert eve.last("chat")["text"] == "hello from NetAcquire"
    eve.lose()
    assert not hall.lobby.observers


def test_a_visitor_watches_a_table_live_and_never_sees_a_seat_s_secrets(web):
    hall, site, view = web
    ann, table = playing(hall, site)
    eve = Client(site)
    eve.send({"type": "watch", "table": table.id})
    state = eve.last("table_state")
    assert state["seat"] is None and state["view"]["pile"] == table.engine.pile and "secret" not in state["view"]
    assert table.summary()["visitors"] == 1 and table.spectators == []
    wes = watching(site, table)
    before = view.spectator_calls
    choice = ann.session.web.decision_message(table, 0)["decision"]["choices"][0]["action"]
    ann.send({"type": "act", "action": choice})
    game = [m for m in eve.of("table") if m["event"] == "game"]
    assert game and "secret" not in game[-1].get("view", {}) and not eve.of("decision")
    assert wes.wire.sent[-1] in eve.wire.sent          # the same shared text as a named spectator
    assert view.spectator_calls - before <= len(game)   # made once per event, not per spectator
    ann.send({"type": "leave"})                        # a bot plays Ann's seat to the end
    for _ in range(100):
        hall.clock.advance(1)
    assert table.state == "finished" and not eve.session.closing
    assert [m for m in eve.of("table") if m["event"] == "finished"]
    eve.send({"type": "say", "text": "hi"})
    assert "Sign in first" in eve.errors()[-1]
    no_traceback(eve)


def test_a_visitor_who_signs_in_keeps_watching_by_name_and_may_then_speak(web):
    hall, site, _ = web
    ann = Client(site)
    ann.sign_in("Ann")
    ann.send({"type": "create", "game": "nim"})          # waiting: Ann may start it later
    table = hall.tables[ann.last("created")["table"]]
    eve = Client(site)
    eve.send({"type": "watch", "table": table.id})
    assert table.viewers == [eve.session]
    eve.sign_in("Eve")
    assert table.viewers == [] and table.spectators == [eve.session.user]
    assert eve.last("table_state")["table"]["spectators"] == ["Eve"]
    eve.send({"type": "say", "text": "hello"})
    assert ann.last("table_chat")["from"] == "Eve"
    eve.send({"type": "join", "table": table.id})
    assert table.seat_of(eve.session.user) == 1


def test_a_visitor_leaves_or_goes_to_another_table_and_is_forgotten(web):
    hall, site, _ = web
    _, one = playing(hall, site, "Ann")
    _, two = playing(hall, site, "Bob")
    eve = Client(site)
    eve.send({"type": "watch", "table": one.id})
    eve.send({"type": "watch", "table": two.id})
    assert one.viewers == [] and two.viewers == [eve.session]
    eve.send({"type": "leave"})
    assert eve.last("left_table")["table"] == two.id and two.viewers == []
    eve.send({"type": "watch", "table": one.id})
    eve.lose()
    assert one.viewers == [] and hall.tables[one.id].summary()["visitors"] == 0


def a_finished_record(hall, site) -> int:
    ann, table = playing(hall, site)
    store_id = table.store_id
    play_to_the_end(hall, ann, table.id)
    ann.lose()
    return store_id


def test_a_replay_is_computed_off_the_reactor_one_per_session_and_few_in_the_hall():
    # each replay was computed on the reactor thread: 450-620 ms for a 1,259-move Monopoly
    # game, and ten visitors asking twice made another user wait 2.7 s for a ping
    from gamehall_web.site import REPLAYS_AT_ONCE
    jobs = Jobs(held=True)
    hall, site, view = make_web(jobs)
    record = a_finished_record(hall, site)
    vic = Client(site)                                     # a visitor: no name needed
    vic.send({"type": "replay", "id": record})
    assert vic.of("replay") == [] and len(jobs.waiting) == 1   # nothing computed on the reactor
    vic.send({"type": "ping"})
    assert vic.last("pong")                                # the hall answers meanwhile
    vic.send({"type": "replay", "id": record})             # a second one while the first runs
    assert "one at a time" in vic.errors()[-1] and len(jobs.waiting) == 1
    others = [Client(site) for _ in range(REPLAYS_AT_ONCE)]
    for other in others:
        other.send({"type": "replay", "id": record})
    assert "busy" in others[-1].errors()[-1]               # the hall's cap: one too many
    assert len(jobs.waiting) == REPLAYS_AT_ONCE
    jobs.run()
    replay = vic.last("replay")
    assert replay["id"] == record and vic.last("replay_state")["step"] == replay["length"]
    assert all(o.of("replay") for o in others[:-1])
    assert site.replays_busy == 0


def test_replay_steps_are_computed_off_the_reactor_and_only_the_latest_while_busy():
    jobs = Jobs(held=True)
    hall, site, _ = make_web(jobs)
    record = a_finished_record(hall, site)
    vic = Client(site)
    vic.send({"type": "replay", "id": record})
    jobs.run()
    length = vic.last("replay")["length"]
    vic.send({"type": "replay_step", "id": record, "step": 0})
    assert len(jobs.waiting) == 1 and vic.last("replay_state")["step"] == length
    for step in (1, 2, 3):                                 # a slider dragged meanwhile
        vic.send({"type": "replay_step", "id": record, "step": step})
    assert len(jobs.waiting) == 1
    jobs.run()                                             # step 0, then only the latest: 3
    assert len(jobs.waiting) == 1 and vic.last("replay_state")["step"] == 0
    jobs.run()
    assert [m["step"] for m in vic.of("replay_state")] == [length, 0, 3] and not jobs.waiting


def test_a_replay_asked_again_comes_from_the_cache_with_an_engine_of_its_own():
    jobs = Jobs(held=True)
    hall, site, _ = make_web(jobs)
    record = a_finished_record(hall, site)
    reads = []
    load = hall.store.load_table
    hall.store.load_table = lambda n: reads.append(n) or load(n)
    first, second = Client(site), Client(site)
    first.send({"type": "replay", "id": record})
    jobs.run()
    second.send({"type": "replay", "id": record})
    jobs.run()
    assert reads == [record]                               # read and computed once
    assert second.last("replay") == first.last("replay")
    first.send({"type": "replay_step", "id": record, "step": 1})
    second.send({"type": "replay_step", "id": record, "step": 2})
    jobs.run()
    assert first.session._replay[1]._engine is not second.session._replay[1]._engine
    assert first.last("replay_state")["view"]["pile"] == first.last("replay")["scores"][1][0]
    assert second.last("replay_state")["view"]["pile"] == second.last("replay")["scores"][2][0]


def test_a_visitor_gone_before_its_replay_is_computed_is_sent_nothing(web):
    jobs = Jobs(held=True)
    hall, site, _ = make_web(jobs)
    record = a_finished_record(hall, site)
    vic = Client(site)
    vic.send({"type": "replay", "id": record})
    vic.lose()
    jobs.run()
    assert vic.of("replay") == [] and site.replays_busy == 0


def big_nim():
    """Nim for up to 255 players (as PIMP's Monopoly declares 0 to 255 seats)."""
    from tests.helpers import install_example_plugin
    install_example_plugin()
    from twisted.plugins.gamehall_nim_plugin import nim
    game = type("BigNim", (type(nim),), {"name": "big", "title": "Big Nim", "max_seats": 255})()
    return {"nim": nim, "big": game}


def keep_reading(hall, *clients) -> None:
    """Browsers that read whatever they are sent, as the clock goes by."""
    for _ in range(20):
        for client in clients:
            client.wire.transport.wrapped.read(10_000_000)
        hall.clock.advance(0.5)


def test_one_request_filling_a_table_with_254_bots_drops_no_reader_that_keeps_up():
    # create with 255 seats and 254 bots wrote over 1 MiB at once: the creator and a visitor
    # reading the lobby were both dropped
    hall, site, _ = make_web(games=big_nim())
    ann = Client(site, wire=SocketWire())
    ann.sign_in("Ann")
    vic = Client(site, wire=SocketWire())
    vic.send({"type": "lobby"})
    ann.send({"type": "create", "game": "big", "seats": 300, "bots": ["perfect"]})
    assert ann.errors()[-1] == "'seats' must be 2 to 255 for Big Nim"
    ann.send({"type": "create", "game": "big", "seats": 255, "bots": ["perfect"] * 254})
    keep_reading(hall, ann, vic)
    for client in (ann, vic):
        assert not client.session.closing and not client.wire.transport.wrapped.aborted
    table = ann.last("created")["table"]
    assert len(ann.last("table_state")["table"]["seats"]) == 255
    lines = [line for line in vic.table_lines() if line["id"] == table]
    assert len(lines[-1]["seats"]) == 255 and len(lines) < 254      # the latest line, not every one
    sent = sum(map(len, vic.wire.sent))
    assert sent < 1_048_576


def test_a_lobby_snapshot_bigger_than_the_output_cap_comes_in_pieces():
    hall, site, _ = make_web(games=big_nim(), max_output=200_000)
    for n in range(20):                               # 20 tables of 255 seats: 300 kB of lines
        table = hall.create_table("big", max_seats=255)
        for _ in range(255):
            table.add_bot("perfect")
    for n in range(700):
        hall.login(f"User{n}", "netacquire", RecordingSink())
    vic = Client(site, wire=SocketWire())
    vic.send({"type": "lobby"})
    keep_reading(hall, vic)
    assert not vic.session.closing and not vic.wire.transport.wrapped.aborted
    first = vic.last("lobby")
    assert len(json.dumps(first)) < 64 * 1024
    tables = {t["id"] for t in first["tables"]} | {m["table"]["id"] for m in vic.of("lobby_table")}
    assert tables == set(hall.tables)
    users = {u["nickname"] for u in first["users"]} | {u["nickname"] for m in vic.of("users") for u in m["joined"]}
    assert users == {u.nickname for u in hall.who()}
