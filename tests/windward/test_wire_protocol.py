"""The windward front end over StringTransport with a Clock: joins, setup/ready, queries, replies,
msg-id matching, garbage, timeouts, rejoins, series, and the operator's ww-* commands."""
from __future__ import annotations

import base64
import random
import xml.etree.ElementTree as ET

from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from gamehall.admin import Console
from gamehall.hall import Hall
from gamehall.store import MemoryStore
from gamehall.table import FINISHED, PLAYING, WAITING
from gamehall_acquire.windward.game import WindwardAcquireGame
from gamehall_acquire.windward.rules import game_from_record
from gamehall_acquire.windward.wire.codec import encode_join, encode_reply
from gamehall_acquire.windward.wire.framing import WindwardFramer
from gamehall_acquire.windward.wire.match import AI_NAMES
from gamehall_acquire.windward.wire.service import Settings
from gamehall_acquire.windward.wire.protocol import REFUSAL_DELAY, build_factory
from tests.windward.wire_client import AVATAR, QUERIES, WireClient


class Harness:
    def __init__(self, **settings):
        self.clock = Clock()
        self.store = MemoryStore(self.clock)
        self.store.open()
        self.game = WindwardAcquireGame()
        self.hall = Hall(self.clock, self.store, {"windward": self.game}, {}, bot_delay=0.0, idle_timeout=0,
                         rng=random.Random(1))
        settings.setdefault("seed", 42)
        settings.setdefault("bot_delay", 0.0)
        self.factory = build_factory(self.hall, Settings(**settings))
        self.service = self.factory.service
        self.ports = iter(range(40000, 50000))
        self.console = Console(self.hall)

    def connect(self) -> "Client":
        return Client(self, next(self.ports))

    def join(self, name, **kw) -> "Client":
        c = self.connect()
        c.send(encode_join(name, **kw))
        return c

    def admin(self, line: str) -> str:
        d = self.console.execute(line)
        out = []
        d.addCallback(out.append)
        return out[0]

    def run(self, clients, limit=20000, answer=True):
        """Let the clock run, answering every query like a sample client, until the service is idle."""
        for _ in range(limit):
            if not self.service.matches:
                return
            for c in clients:
                c.pump(answer)
            self.clock.advance(0.01)
        raise AssertionError("the series did not end")

    def finish(self, clients, **kw):
        self.run(clients, **kw)
        for c in clients:
            c.messages()


class Client:
    def __init__(self, harness: Harness, port: int):
        self.h = harness
        self.transport = StringTransport(peerAddress=IPv4Address("TCP", "127.0.0.1", port))
        self.protocol = harness.factory.buildProtocol(self.transport.getPeer())
        self.protocol.makeConnection(self.transport)
        self.framer = WindwardFramer()
        self.player = None
        self.received: list = []
        self.frames: list[bytes] = []

    def send(self, payload: bytes) -> None:
        self.protocol.dataReceived(WindwardFramer().encode(payload))

    def messages(self) -> list:
        raw = self.transport.value()
        self.transport.clear()
        # zero-length frames are never sent: a frame's length is never 0
        pos = 0
        while pos + 4 <= len(raw):
            n = int.from_bytes(raw[pos:pos + 4], "little", signed=True)
            assert n > 0
            pos += 4 + n
        frames = self.framer.feed(raw)
        self.frames += frames
        out = [ET.fromstring(f) for f in frames]
        self.received += out
        return out

    def drop(self) -> None:
        self.transport.loseConnection()
        self.protocol.connectionLost(None)

    @property
    def closed(self) -> bool:
        return self.transport.disconnecting

    def refused(self) -> bool:
        """A refused connection: open (its input ignored) for REFUSAL_DELAY, then closed."""
        if self.closed:
            return False
        self.h.clock.advance(REFUSAL_DELAY)
        return self.closed

    def reply(self, query, **attrs) -> None:
        self.send(encode_reply(query.tag, query.get("msg-id"), **attrs))

    def sample(self, name: str) -> WireClient:
        if self.player is None:
            self.player = WireClient(name, 0, seed=3)
        return self.player

    def pump(self, answer=True) -> None:
        for m in self.messages():
            if m.tag == "setup":
                self.sample(self.name).my_guid = m.get("my-guid")
                self.send(b"<ready/>")
            elif m.tag in QUERIES and answer:
                reply = self.sample(self.name).reply_for(m)
                self.send(encode_reply(m.tag, m.get("msg-id"), **{k.replace("-", "_"): v for k, v in reply.items()}))


def six(h: Harness, names=("Ann", "Bob", "Cy", "Di", "Ed", "Flo")) -> list[Client]:
    clients = []
    for n in names:
        c = h.join(n)
        c.name = n
        clients.append(c)
    return clients


def logged(table, index):
    """The engine's logged action number ``index`` (without the player's name)."""
    action = table.engine.record()["actions"][index]
    return {k: v for k, v in action.items() if k != "player"}


def table_of(h: Harness):
    (table,) = [t for t in h.hall.tables.values() if t.game.name == "windward"]
    return table


# -- joining ---------------------------------------------------------------------------
def test_a_join_logs_in_to_the_shared_lobby_and_waits_at_the_windward_table():
    h = Harness()
    c = h.join("Anders Hejlsberg", school="Windward", language="Python")
    user = h.hall.lobby.find("Anders Hejlsberg")
    assert user is not None and user.frontend == "windward"
    table = table_of(h)
    assert table.state == WAITING and table.players() == ["Anders Hejlsberg"]
    assert c.messages() == []                  # nothing until joins close
    d = h.join("Bob")
    assert table_of(h) is table and table.players() == ["Anders Hejlsberg", "Bob"]
    assert not c.closed and not d.closed


def test_six_joins_close_joins_send_setup_and_play_starts_when_all_are_ready():
    h = Harness()
    clients = six(h)
    table = table_of(h)
    assert table.state == PLAYING and table.paused
    setups = [c.messages() for c in clients]
    assert [[m.tag for m in ms] for ms in setups] == [["setup"]] * 6
    guids = [ms[0].get("my-guid") for ms in setups]
    assert len(set(guids)) == 6
    for ms in setups:
        assert [p.get("name") for p in ms[0].iter("player")] == ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]
        assert [p.get("guid") for p in ms[0].iter("player")] == guids
    for c in clients[:5]:
        c.send(b"<ready/>")
    assert all(c.messages() == [] for c in clients)
    clients[5].send(b'<?xml version="1.0" encoding="UTF-8"?>\n<ready/>')
    first = clients[0].messages()
    assert [m.tag for m in first] in (["query-card"], ["query-tile-purchase"])


def test_joins_close_on_the_operator_start_and_ais_fill_the_seats_after_the_ready_grace():
    h = Harness()
    a, b = h.join("Ann"), h.join("Bob")
    out = h.admin("ww-start")
    assert "started" in out and "Sheldon Cooper" in out
    table = table_of(h)
    assert table.players() == ["Ann", "Bob", *AI_NAMES[:4]]
    assert [s.kind for s in table.seats] == ["human", "human", "bot", "bot", "bot", "bot"]
    assert [m.tag for m in a.messages()] == ["setup"] and [m.tag for m in b.messages()] == ["setup"]
    a.send(b"<ready/>")
    h.clock.advance(1.9)
    assert a.messages() == [] and table.seq == 0          # Bob has not answered: still waiting
    h.clock.advance(0.2)                                  # SECONDS_WAIT_READY = 2
    assert [m.tag for m in a.messages()] in (["query-card"], ["query-tile-purchase"])


def test_refused_joins_close_the_socket():
    h = Harness()
    ann = h.join("Ann")
    assert h.join("Ann").refused()                           # duplicate of a connected player
    assert h.join("").refused()                              # no name
    c = h.connect()
    c.send(b"<ready/>")                                      # the first message must be a join
    assert c.refused()
    c = h.connect()
    c.send(b"<join name='x'")                                # unparseable from an unknown connection
    assert c.refused()
    c = h.connect()
    c.send(b"\xff\xff\xff\xff")                              # not XML either
    assert c.refused()
    c = h.connect()
    c.protocol.dataReceived(b"\xff\xff\xff\xff")                # a negative length poisons the stream
    assert c.closed                                          # at once: not a refusal, a broken stream
    assert not ann.closed and table_of(h).players() == ["Ann"]


def test_join_accepts_a_java_avatar_with_line_breaks_and_no_school():
    h = Harness()
    b64 = base64.b64encode(AVATAR).decode()
    b64 = "\r\n".join(b64[i:i + 76] for i in range(0, len(b64), 76))
    c = h.connect()
    c.send(('<?xml version="1.0" encoding="UTF-8"?>\n<join name="JavaBot1" language="Java">'
            f"<avatar>{b64}</avatar></join>").encode())
    assert not c.closed
    player = h.service.contestants["javabot1"]
    assert player.avatar == AVATAR and player.school == ""


def test_a_player_leaving_before_the_start_frees_its_seat():
    h = Harness()
    a, b = h.join("Ann"), h.join("Bob")
    a.drop()
    assert table_of(h).players() == ["Bob"] and h.hall.lobby.find("Ann") is None
    b.drop()
    assert h.hall.tables == {} and h.service.matches == {}
    assert table_of_new(h, "Cy").players() == ["Cy"]


def table_of_new(h, name):
    h.join(name)
    return table_of(h)


# -- queries and replies ---------------------------------------------------------------
def started_one_client(h, name="Ann"):
    c = h.join(name)
    c.name = name
    h.admin("ww-start")
    c.messages()
    c.send(b"<ready/>")
    return c


def next_query(h, c, limit=2000):
    for _ in range(limit):
        ms = [m for m in c.messages() if m.tag in QUERIES]
        if ms:
            assert len(ms) == 1
            return ms[0]
        h.clock.advance(0.01)
    raise AssertionError("no query")


def test_each_query_kind_is_answered_and_the_normalised_reply_applied():
    h = Harness(games=2)
    clients = six(h)
    for c in clients:
        c.messages()
        c.send(b"<ready/>")
    table = table_of(h)
    seen = set()
    applied = 0
    for _ in range(3000):
        if not h.service.matches:
            break
        for c in clients:
            for m in c.messages():
                if m.tag == "setup":
                    c.sample(c.name).my_guid = m.get("my-guid")
                    continue
                assert m.tag in QUERIES
                seen.add(m.tag)
                table = h.service.tables[max(h.service.tables)].table
                seat = table.seat_of(h.hall.lobby.find(c.name))
                assert table.engine.pending_seat() == seat
                reply = c.sample(c.name).reply_for(m)
                attrs = {"cmd": m.tag, "msg-id": m.get("msg-id"), **{k: str(v) for k, v in reply.items()}}
                expected = table.engine.normalise(seat, attrs)
                before = table.seq
                c.send(encode_reply(m.tag, m.get("msg-id"), **{k.replace("-", "_"): v for k, v in reply.items()}))
                assert table.seq == before + 1
                assert logged(table, before) == expected
                applied += 1
        h.clock.advance(0.01)
    assert seen == set(QUERIES) and applied > 150
    (match,) = h.service.finished
    assert match.state == "finished" and match.series.played == 2


def test_replies_are_matched_by_msg_id_only():
    h = Harness()
    c = started_one_client(h)
    q = next_query(h, c)
    table = table_of(h)
    seq = table.seq
    c.send(encode_reply(q.tag, "not-" + q.get("msg-id"), card=0))
    assert table.seq == seq                                          # stale: ignored
    c.send(encode_reply("query-card", q.get("msg-id"), keep=1))       # wrong cmd, right msg-id: applied
    assert table.seq == seq + 1
    c.send(encode_reply(q.tag, q.get("msg-id")))                     # answered already: stale
    assert table.seq == seq + 1
    player = h.service.contestants["ann"]
    assert player.stats["stale"] == 2 and player.stats["replies"] == 1


def test_an_empty_reply_means_the_server_chooses():
    h = Harness()
    c = started_one_client(h)
    q = next_query(h, c)
    table = table_of(h)
    expected = table.engine.normalise(0, {})
    c.send(f'<reply msg-id="{q.get("msg-id")}"/>'.encode())
    assert logged(table, -1) == expected


def test_garbage_is_ignored_and_the_turn_timeout_plays_the_default():
    h = Harness()
    c = started_one_client(h)
    q = next_query(h, c)
    table = table_of(h)
    seq = table.seq
    for junk in [b"\x00\x01garbage", b"<reply msg-id='x'", b'<!DOCTYPE r [<!ENTITY a "a">]><r>&a;</r>',
                 b"<status/>", encode_join("Ann")]:
        c.send(junk)
    assert table.seq == seq and not c.closed
    expected = table.engine.timeout_action(0)
    h.clock.advance(4.99)
    assert table.seq == seq
    h.clock.advance(0.02)                                   # the game's 5 s turn timeout
    assert table.seq == seq + 1
    assert logged(table, seq) == expected
    c.send(encode_reply(q.tag, q.get("msg-id"), card=5))    # too late: stale
    assert h.service.contestants["ann"].stats == {**h.service.contestants["ann"].stats, "malformed": 3,
                                                  "unexpected": 2, "timeouts": 1, "stale": 1}


def test_the_table_option_overrides_the_turn_timeout():
    h = Harness(turn_timeout=0.25)
    c = started_one_client(h)
    next_query(h, c)
    table = table_of(h)
    seq = table.seq
    h.clock.advance(0.26)
    assert table.seq == seq + 1


def test_a_client_that_never_replies_cannot_stall_the_series():
    h = Harness(games=2, turn_timeout=0.5)
    c = h.join("Silent")
    h.admin("ww-start")
    for _ in range(200000):
        if not h.service.matches:
            break
        c.messages()
        h.clock.advance(0.05)
    c.messages()
    (match,) = h.service.finished
    assert match.state == "finished" and match.series.played == 2
    assert c.closed and c.received[-1].tag == "exit"
    assert h.hall.lobby.find("Silent") is None


def test_a_dropped_client_is_played_by_defaults_and_a_rejoin_gets_setup_and_the_query_again():
    h = Harness(bot_delay=0.01)
    c = started_one_client(h)
    next_query(h, c)
    guid = [m for m in c.received if m.tag == "setup"][0].get("my-guid")
    table = table_of(h)
    seq = table.seq
    c.drop()
    h.clock.advance(0)                                    # queries to a lost connection fail at once
    assert table.seq > seq and table.engine.pending_seat() != 0
    assert h.service.contestants["ann"].stats["defaults"] == table.seq - seq
    assert h.hall.lobby.find("Ann") is not None and table.seats[0].kind == "human"
    # play on until it is Ann's turn again, then she rejoins
    for _ in range(100):
        h.clock.advance(0.01)
    c2 = h.join("Ann")
    ms = c2.messages()
    assert ms[0].tag == "setup" and ms[0].get("my-guid") == guid and ms[0].get("game-start") == "true"
    assert ms[0].find("map").findall("column") == []
    if table.engine.pending_seat() == 0:
        assert ms[1].tag in QUERIES
    else:
        assert next_query(h, c2).tag in QUERIES
    assert h.service.contestants["ann"].stats["joins"] == 2
    assert h.join("Ann").refused()                         # connected again: a duplicate is refused


def test_a_series_rotates_the_first_player_and_sends_the_scoreboard():
    h = Harness(games=3)
    c = started_one_client(h)
    c.name = "Ann"
    h.finish([c])
    (match,) = h.service.finished
    setups = [m for m in c.received if m.tag == "setup"]
    assert len(setups) == 3 and c.received[-1].tag == "exit" and c.closed
    for k, s in enumerate(setups):
        assert [p.get("name") for p in s.iter("player")] == match.names      # series order, every game
        me = s.find("players")[0]
        assert me.findtext("scoreboard", "") == "".join(f"{v};" for v in match.series.scoreboard(0)[:k])
    records = match.series.records
    for k, rec in enumerate(records):
        assert rec["players"][0] == match.names[k % 6]                      # game k starts with seat k
        replayed = game_from_record(rec).result()["scores"]
        assert [replayed[rec["players"].index(n)] for n in match.names] == match.series.scores[k]
    assert h.hall.lobby.find("Ann") is None and h.hall.tables == {}


def test_each_game_is_stored_as_a_hall_table():
    h = Harness(games=2)
    c = started_one_client(h)
    c.name = "Ann"
    h.finish([c])
    (match,) = h.service.finished
    stored = []
    for table_id in match.table_ids:
        d = h.store.load_table(table_id)
        d.addCallback(stored.append)
    assert [t["state"] for t in stored] == [FINISHED, FINISHED]
    assert [t["record"]["players"] for t in stored] == [r["players"] for r in match.series.records]
    series = stored[1]["options"]["series"]         # what a restart needs to resume the series
    assert {k: series[k] for k in ("number", "game", "games")} == {"number": 1, "game": 2, "games": 2}
    assert series["names"] == match.names and series["scores"] == match.series.scores[:1]
    assert series["humans"] == ["Ann"] and stored[1]["options"]["fill_bot"] == "simple"


def test_names_are_echoed_exactly():
    h = Harness()
    c = h.join("Zoë O'Brien-李")
    c.name = "Zoë O'Brien-李"
    h.admin("ww-start")
    (setup,) = c.messages()
    assert setup.find("players")[0].get("name") == "Zoë O'Brien-李"


def test_kicked_player_is_replaced_by_a_bot_under_its_name():
    h = Harness(games=2)
    c = started_one_client(h)
    next_query(h, c)
    h.hall.kick("Ann")
    assert c.closed
    table = table_of(h)
    assert table.seats[0].kind == "bot" and table.seats[0].name == "Ann"
    h.run([])
    (match,) = h.service.finished
    assert match.state == "finished" and match.series.played == 2


# -- the operator -------------------------------------------------------------------------
def test_operator_commands_pause_step_resume_speed_view_stop():
    h = Harness(games=2)
    c = started_one_client(h)
    table = table_of(h)
    assert "series 1: playing" in h.admin("ww-list")
    assert h.admin(f"ww-pause {table.id}") == f"Table #{table.id} paused."
    for _ in range(50):
        c.pump()
        h.clock.advance(0.05)
    seq = table.seq
    c.pump()
    h.clock.advance(1)
    assert table.seq == seq
    h.admin(f"ww-step #{table.id}")
    for _ in range(10):
        c.pump()
        h.clock.advance(0.05)
    assert table.seq == seq + 1
    assert h.admin(f"ww-speed {table.id} 4") == f"Table #{table.id}: 4 turns per second."
    assert table.options["bot_delay"] == 0.25
    view = h.admin(f"ww-view {table.id}")
    assert "Players:" in view and "Ann: cash" in view and "score" in view and "tiles:" not in view
    assert "     1  2  3" in view and "\n  I  " in view
    tiles = h.admin(f"ww-view {table.id} tiles")
    assert tiles.count("tiles: ") == 6
    assert h.admin(f"ww-resume {table.id}") == f"Table #{table.id} resumed."
    assert h.admin("ww-speed 999 full").startswith("error: No game #999")
    assert h.admin(f"ww-speed {table.id} full") == f"Table #{table.id}: full speed."
    assert table.options["bot_delay"] == 0.0
    assert h.admin(f"ww-stop {table.id}") == f"Windward series 1 stopped (table #{table.id})."
    h.clock.advance(0.01)
    c.messages()
    assert c.received[-1].tag == "exit" and c.closed
    assert h.service.matches == {} and h.hall.tables == {}
    assert "stopped" in h.admin("ww-list")


def test_operator_start_with_no_players_runs_an_all_ai_series_and_settings_apply():
    h = Harness()
    assert h.admin("ww-set games 2") == "games 2 (for series created from now on; running and waiting ones keep theirs)."
    assert "games 2" in h.admin("ww-set")
    assert h.admin("ww-set games zero").startswith("error:")
    out = h.admin("ww-start")
    assert out.endswith("(2 games).")
    h.run([])
    (match,) = h.service.finished
    assert match.names == list(AI_NAMES[:6]) and match.series.played == 2


def test_operator_errors_are_one_line():
    h = Harness()
    assert h.admin("ww-view").startswith("error: usage")
    assert h.admin("ww-pause abc").startswith("error: TABLE must be")
    h.join("Ann")
    table = table_of(h)
    assert "Waiting for players: Ann (1/6)" in h.admin(f"ww-view {table.id}")
    h.admin(f"ww-start {table.id} 3")
    assert h.admin(f"ww-start {table.id}").startswith("error:")


def test_operator_close_of_a_series_table_ends_the_series_with_exit():
    h = Harness(games=3)
    c = started_one_client(h)
    next_query(h, c)
    h.hall.close_table(table_of(h).id, "closed")
    h.clock.advance(0.01)
    c.messages()
    assert c.received[-1].tag == "exit" and c.closed
    (match,) = h.service.finished
    assert match.state == "stopped"


def test_windward_in_the_hall_lobby_like_every_game():
    h = Harness()
    h.join("Ann")
    assert h.hall.lobby.find("Ann").where() == f"waiting at game #{table_of(h).id}"   # not started yet
    assert table_of(h).summary()["game"] == "windward"
    assert "windward" in h.admin("plugins") and "Acquire (Windward code war)" in h.admin("plugins")


def test_a_rejoin_before_play_begins_gets_setup_but_no_query():
    h = Harness()
    a, b = h.join("Ann"), h.join("Bob")
    h.admin("ww-start")
    a.messages(), b.messages()
    a.drop()
    a2 = h.join("Ann")
    assert [m.tag for m in a2.messages()] == ["setup"]
    a2.send(b"<ready/>")
    assert a2.messages() == []                          # Bob has not answered setup yet
    b.send(b"<ready/>")
    assert [m.tag for m in a2.messages()] in (["query-card"], ["query-tile-purchase"])


def test_a_kicked_player_whose_client_reconnects_is_told_and_so_is_the_operator():
    # it used to sit quietly in a new waiting series under the same name
    from twisted.logger import globalLogPublisher
    lines = []

    def observer(event):
        if "kicked from series" in str(event.get("log_format", "")):
            lines.append(event)

    h = Harness(games=2)
    c = started_one_client(h)
    next_query(h, c)
    h.hall.kick("Ann")
    globalLogPublisher.addObserver(observer)
    try:
        again = h.join("Ann")                             # its client reconnects by itself
        assert [m.tag for m in again.messages()] == ["exit"]
    finally:
        globalLogPublisher.removeObserver(observer)
    assert len(lines) == 1 and lines[0]["name"] == "Ann" and lines[0]["n"] == 1
    assert [m.number for m in h.service.matches.values()] == [1]      # no new series for it
    assert "kicked: Ann (1 join refused since)" in h.admin("ww-list")
    assert again.refused()
    h.run([])                                             # its series ends: Ann may play again
    back = h.join("Ann")
    (new,) = h.service.matches.values()
    assert not back.closed and new.number == new.table.id != 1          # a new series


def test_a_series_no_longer_kept_leaves_no_cycle_for_the_collector(monkeypatch):
    """A finished series dropped from the kept ones (KEEP_FINISHED) is freed by reference
    counting: its referee and contestants held it as it holds them, a cycle with its tables'
    records for the collector's full passes, which the hall makes rare
    (gamehall.tap.settle_collector)."""
    import gc
    import weakref

    from gamehall_acquire.windward.wire import service as service_module

    monkeypatch.setattr(service_module, "KEEP_FINISHED", 1)
    h = Harness(games=1)
    c = started_one_client(h)
    h.finish([c])
    c.drop()
    (first,) = h.service.finished
    gone = weakref.ref(first)
    del first
    enabled = gc.isenabled()
    gc.disable()
    try:
        c = started_one_client(h, "Bob")
        h.finish([c])
        c.drop()
        assert len(h.service.finished) == 1 and gone() is None
    finally:
        if enabled:
            gc.enable()
