"""The windward service over time: no series outlives its games and clients, takeover bots,
refusals counted, and the operator's commands on finished series."""
from __future__ import annotations

import gc
import weakref

from gamehall_acquire.windward.wire.codec import encode_join
from gamehall_acquire.windward.wire.contestant import Contestant
from gamehall_acquire.windward.wire.match import Match
from gamehall_acquire.windward.wire.service import KEEP_FINISHED
from tests.windward.test_wire_protocol import Harness, next_query, started_one_client, table_of


def live(cls) -> int:
    gc.collect()
    return sum(isinstance(o, cls) for o in gc.get_objects())


# -- no leak ---------------------------------------------------------------------------
def test_join_and_close_cycles_leave_no_live_series():
    h = Harness()
    before = live(Match), live(Contestant)
    refs = []
    for i in range(200):
        c = h.join(f"P{i}")
        refs.append(weakref.ref(h.service.contestants[f"p{i}"].match))
        c.drop()
    gc.collect()
    assert [r for r in refs if r() is not None] == []
    after = live(Match), live(Contestant)
    assert after[0] <= before[0] and after[1] <= before[1]   # (earlier tests' objects may go meanwhile)
    assert h.service.tables == {} and h.service.matches == {} and h.hall.tables == {}


def test_finished_series_are_kept_only_up_to_the_limit():
    h = Harness(turn_timeout=0.05)
    contestants = live(Contestant)
    refs = []
    for i in range(KEEP_FINISHED + 5):
        c = h.join(f"P{i}")
        refs.append(weakref.ref(h.service.contestants[f"p{i}"].match))
        h.admin("ww-start")
        c.drop()                                # gone: its queries get the default at once
        h.run([])
    gc.collect()
    kept = [r() for r in refs if r() is not None]
    assert kept == h.service.finished and len(kept) == KEEP_FINISHED
    assert set(h.service.tables) == {t for m in kept for t in m.table_ids}
    assert live(Contestant) <= contestants + KEEP_FINISHED     # each kept series' player, for ww-view


def test_a_hall_and_its_series_go_away_together():
    h = Harness()
    h.join("Ann")
    hall = weakref.ref(h.hall)
    del h
    gc.collect()
    assert hall() is None


def test_a_refused_join_opens_no_series():
    h = Harness()
    for i in range(20):
        assert h.join("Bad,name").refused()
    assert h.service.matches == {} and h.hall.tables == {}


# -- takeover bots -----------------------------------------------------------------------
def test_a_kicked_players_seat_goes_to_the_series_fill_bot():
    h = Harness(games=2)                         # fill_bot: simple (the series' AIs)
    c = started_one_client(h)
    next_query(h, c)
    table = table_of(h)
    assert table.options["fill_bot"] == "simple"
    h.hall.kick("Ann")
    assert table.seats[0].kind == "bot" and table.seats[0].bot == "simple" and table.seats[0].name == "Ann"
    h.run([])
    (match,) = h.service.finished
    assert match.series.played == 2


def test_the_operators_bot_command_without_a_bot_name_uses_the_fill_bot():
    h = Harness(fill_bot="simple")
    started_one_client(h)
    table = table_of(h)
    h.admin(f"bot {table.id} 1")
    assert table.seats[0].kind == "bot" and table.seats[0].bot == "simple"


# -- restored series -----------------------------------------------------------------------
def restart(h: Harness) -> Harness:
    """A new hall on the same store, as after a restart; its unfinished tables restored."""
    new = Harness.__new__(Harness)
    new.__dict__.update(Harness(seed=h.service.settings.seed).__dict__)
    new.store = h.store
    new.hall.store = h.store
    new.hall.seat_hold = 30.0
    done = []
    new.hall.restore().addCallback(done.append)
    assert done == [1]
    return new


def test_a_restored_series_resumes_and_its_player_gets_the_seat_back():
    h = Harness(games=3)
    c = started_one_client(h)
    for _ in range(20000):                      # play into game 2
        if h.service.matches[1].game_index >= 1 and table_of(h).seq > 10:
            break
        c.pump()
        h.clock.advance(0.01)
    match = h.service.matches[1]
    game1 = match.series.scores[0]
    guid = match.guids[0]
    next_query(h, c)                             # Ann's turn is pending when the hall goes down

    h2 = restart(h)
    (m2,) = h2.service.matches.values()
    table = table_of(h2)
    assert m2.game_index == 1 and m2.series.scores == [game1] and m2.names == match.names
    assert h2.service.tables[table.id] is m2 and table.seats[5].kind == "human"   # game 2 starts with seat 1
    assert table.seats[5].name == "Ann" and table.seats[5].user is None            # held for her
    back = h2.join("Ann")
    back.name = "Ann"
    ms = back.messages()
    assert ms[0].tag == "setup" and ms[0].get("my-guid") == guid
    me = ms[0].find("players")[0]
    assert me.get("name") == "Ann" and me.findtext("scoreboard") == f"{game1[0]};"
    assert table.seats[5].user is h2.hall.lobby.find("Ann")
    h2.finish([back])
    (done,) = h2.service.finished
    assert done is m2 and done.state == "finished" and done.series.played == 3
    assert done.series.scores[0] == game1
    assert back.received[-1].tag == "exit"
    assert len([m for m in back.received if m.tag == "setup"]) == 2       # game 2 (again) and game 3



def test_table_and_series_numbers_survive_a_restart_and_are_never_reused():
    # after a restart #6 became #2 and a new series took a number an earlier one had had,
    # so `ww-view N` showed another series than before
    h = Harness(games=3)
    h.join("Zed").drop()                          # a waiting series that went away: table #1
    c = started_one_client(h)                     # series 2 at table #2
    for _ in range(20000):                        # play into game 2 (table #3)
        if h.service.matches[2].game_index >= 1 and table_of(h).seq > 10:
            break
        c.pump()
        h.clock.advance(0.01)
    match = h.service.matches[2]
    assert match.table_ids == [2, 3]
    before = h.admin("ww-view 3").splitlines()[0]
    h2 = restart(h)
    (m2,) = h2.service.matches.values()
    assert m2.number == 2 and m2.table.id == 3 and m2.table_ids == [2, 3]
    assert h2.admin("ww-view 3").splitlines()[0] == before             # the same series, same game
    assert h2.admin("ww-view 2").startswith("Windward series 2, game 2/3")   # its first game's number too
    assert "series 2: playing" in h2.admin("ww-list") and "tables #2 #3" in h2.admin("ww-list")
    h2.join("Bob")                                # a new series: numbers above every one used
    new = next(m for m in h2.service.matches.values() if m is not m2)
    assert new.table.id == 4 and new.number == 4


def test_a_restored_players_seat_goes_to_the_fill_bot_after_the_hold_and_back_later():
    h = Harness(games=3)
    c = started_one_client(h)
    next_query(h, c)
    h2 = restart(h)
    table = table_of(h2)
    # (the restored series keeps its own settings: its stored bot delay, 0, unless changed here)
    table.options["bot_delay"] = h2.service.matches[1].settings.bot_delay = 0.01
    h2.clock.advance(29.9)
    assert table.seats[0].kind == "human"
    h2.clock.advance(0.2)                        # the hold runs out: the series' AI plays meanwhile
    assert table.seats[0].kind == "bot" and table.seats[0].bot == "simple"
    for _ in range(20000):                       # into game 2: an AI under Ann's name
        m = next(iter(h2.service.matches.values()))
        if m.game_index >= 1:
            break
        h2.clock.advance(0.01)
    t2 = m.table
    assert t2 is not table and t2.seats[5].name == "Ann" and t2.seats[5].kind == "bot"
    back = h2.join("Ann")
    assert not back.closed and t2.seats[5].kind == "human"
    assert [x.tag for x in back.messages()][:1] == ["setup"]


def test_a_kick_survives_a_restart():
    # after a restart the kicked player joined again, got its seat back and played on
    h = Harness(games=2)
    c = started_one_client(h)
    next_query(h, c)
    table = table_of(h)
    h.hall.kick("Ann")
    assert table.seats[0].kind == "bot"
    h2 = restart(h)
    (m2,) = h2.service.matches.values()
    t2 = table_of(h2)
    assert t2.id == table.id and t2.seats[0].kind == "bot" and t2.seats[0].name == "Ann"
    back = h2.join("Ann")
    assert [m.tag for m in back.messages()] == ["exit"]                      # refused, told to exit
    assert t2.seats[0].kind == "bot" and h2.hall.lobby.find("Ann") is None
    assert "kicked: Ann (1 join refused since)" in h2.admin("ww-list")
    assert back.refused()
    h2.run([])                                   # the series plays on without Ann; game 2 too
    (done,) = h2.service.finished
    assert done is m2 and done.series.played == 2
    again = h2.join("Ann")                       # the series is over: Ann may join a new one
    assert not again.refused() and h2.hall.lobby.find("Ann") is not None


def test_a_waiting_series_number_is_not_given_again_after_a_restart():
    h = Harness(games=3)
    c = started_one_client(h)                     # series 1 at table #1
    next_query(h, c)
    h.join("Bob")                                 # series 2 waits at table #2 (never stored)
    assert sorted(h.service.matches) == [1, 2]
    h2 = restart(h)
    h2.join("Cy")
    new = next(m for m in h2.service.matches.values() if m.number != 1)
    assert new.number == 3 and new.table.id == 3


def test_ww_speed_survives_a_restart():
    h = Harness(games=2, bot_delay=0.5)
    c = started_one_client(h)
    next_query(h, c)
    table = table_of(h)
    h.admin(f"ww-speed {table.id} 4")
    assert table.options["bot_delay"] == 0.25
    table.flush()
    h2 = restart(h)
    (m2,) = h2.service.matches.values()
    t2 = table_of(h2)
    assert t2.options["bot_delay"] == 0.25 and m2.speed == 4
    for _ in range(20000):                       # game 2 keeps the operator's speed
        if m2.game_index >= 1:
            break
        h2.clock.advance(0.01)
    assert m2.table is not t2 and m2.table.options["bot_delay"] == 0.25


def test_ww_set_values_survive_a_restart():
    h = Harness(fill_bot="simple")
    h.admin("ww-set games 4")
    h.admin("ww-set fill-bot strong")
    h.admin("ww-set turn-timeout 7")
    h2 = restart_without_tables(h)
    assert h2.admin("ww-set").splitlines() == ["games 4", "turn-timeout 7.0", "ready-grace 2.0", "fill-bot strong"]
    h2.join("Ann")
    (m,) = h2.service.matches.values()
    assert m.games == 4 and m.settings.fill_bot == "strong" and m.settings.turn_timeout == 7.0


def restart_without_tables(h: Harness) -> Harness:
    new = Harness.__new__(Harness)
    new.__dict__.update(Harness(seed=h.service.settings.seed).__dict__)
    new.store = new.hall.store = h.store
    done = []
    new.hall.restore().addCallback(done.append)
    assert done == [0]
    return new


# -- what the runner and the operator see ------------------------------------------------
def test_a_reply_after_the_timeout_is_told_as_late():
    h = Harness(turn_timeout=0.25)
    events = []
    h.service.on_client = lambda event, c, detail: events.append((event, detail))
    c = started_one_client(h)
    q = next_query(h, c)
    h.clock.advance(0.3)
    c.reply(q, card=0)
    c.send(b'<reply cmd="query-card" msg-id="no-such-query"/>')
    stats = h.service.contestants["ann"].stats
    assert stats["timeouts"] == 1 and stats["late"] == 1 and stats["stale"] == 2
    (late,) = [d for e, d in events if e == "late"]
    from gamehall_acquire.windward.rules import QUERY_OF_KIND
    assert QUERY_OF_KIND[late["kind"]] == q.tag
    assert abs(late["after"] - 0.3) < 1e-6
    assert [e for e, _ in events if e in ("timeout", "late", "stale")] == ["timeout", "late", "stale"]


def test_refused_joins_are_counted_in_the_hall_stats():
    h = Harness(allow=("Ann",))
    before = h.hall.stats.refused["windward"]
    assert h.join("Bob").refused()               # not listed
    h.join("Ann")
    assert h.join("Ann").refused()               # duplicate
    c = h.connect()
    c.send(b"<ready/>")                          # no join first
    assert c.refused()
    assert h.hall.stats.refused["windward"] == before + 3
    assert "windward 3" in h.admin("stats")


def test_operator_commands_on_a_finished_series_say_so():
    h = Harness(games=1)
    c = started_one_client(h)
    table = table_of(h)
    h.finish([c])
    (match,) = h.service.finished
    for command in ("ww-pause", "ww-resume", "ww-step", "ww-stop"):
        assert h.admin(f"{command} {table.id}") == f"error: Windward series 1 is over (finished); nothing to " \
            + command[3:]
    assert h.admin(f"ww-speed {table.id} 5").startswith("error: Windward series 1 is over (finished)")
    assert match.state == "finished"


def test_ww_view_shows_an_earlier_game_of_the_series():
    h = Harness(games=3)
    c = started_one_client(h)
    for _ in range(20000):
        if h.service.matches[1].game_index >= 2:
            break
        c.pump()
        h.clock.advance(0.01)
    match = h.service.matches[1]
    first = match.table_ids[0]
    view = h.admin(f"ww-view {match.table.id} 1")
    assert view.startswith(f"Windward series 1, game 1/3: Table #{first} (finished)")
    assert "Game over (" in view and "series:" not in view
    assert f"score {match.series.scores[0][0]}" in view.split("Ann: ")[1].split("\n")[0]
    view2 = h.admin(f"ww-view {first} 2 tiles")
    assert view2.startswith("Windward series 1, game 2/3:") and view2.count("tiles: ") == 6
    assert f"series: {match.series.scores[0][0]}; total" in view2
    assert h.admin(f"ww-view {first} 3").startswith(f"Windward series 1, game 3/3: Table #{match.table.id}")
    assert h.admin(f"ww-view {first} 4") == "error: series 1 has games 1 to 3"
    assert h.admin(f"ww-view {first} x").startswith("error: GAME must be")


def test_ww_commands_that_change_things_are_audited():
    from twisted.logger import formatEvent, globalLogPublisher
    h = Harness()
    started_one_client(h)
    table = table_of(h)
    seen = []
    globalLogPublisher.addObserver(seen.append)
    try:
        h.admin(f"ww-pause {table.id}")
        h.admin(f"ww-view {table.id}")
        h.admin("ww-set games 3")
        h.admin(f"ww-stop {table.id}")
    finally:
        globalLogPublisher.removeObserver(seen.append)
    lines = [formatEvent(e) for e in seen if e.get("log_format", "").startswith("admin ")]
    assert lines == [f"admin admin (): ww-pause {table.id}", "admin admin (): ww-set games 3",
                     f"admin admin (): ww-stop {table.id}"]


# -- one write per event -------------------------------------------------------------------
def record_writes(client) -> list:
    """Each transport write of ``client``'s connection, as the list of the frames' root tags."""
    import xml.etree.ElementTree as ET

    from gamehall_acquire.windward.wire.framing import WindwardFramer
    writes, framer, write = [], WindwardFramer(), client.transport.write

    def recording(data):
        frames = framer.feed(data)
        assert frames and not framer._buf, "a write ends with a whole frame"
        writes.append([ET.fromstring(f).tag for f in frames])
        write(data)
    client.transport.write = recording
    return writes


def test_a_rejoin_gets_setup_and_its_pending_query_in_one_write():
    h = Harness()
    c = started_one_client(h)
    next_query(h, c)
    c.drop()
    again = h.connect()
    writes = record_writes(again)
    for _ in range(200):                         # until it is Ann's turn again
        if table_of(h).engine.pending_seat() == 0:
            break
        h.clock.advance(0.01)
    assert table_of(h).engine.pending_seat() == 0
    again.send(encode_join("Ann"))
    assert len(writes) == 1 and writes[0][0] == "setup"
    assert writes[0][1:] in (["query-card"], ["query-tile-purchase"], ["query-tile"], ["query-merge"])


def test_the_first_player_of_a_later_game_gets_setup_and_query_in_one_write():
    h = Harness(games=2)
    clients, writes = [], []
    for name in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo"):
        c = h.connect()
        c.name = name
        writes.append(record_writes(c))
        c.send(encode_join(name))
        clients.append(c)
    h.finish(clients)
    (match,) = h.service.finished
    bob = writes[1]                              # game 2 starts with series seat 1
    setups = [w for w in bob if w[0] == "setup"]
    assert len(setups) == 2 and setups[0] == ["setup"]      # game 1: play waits for every ready
    assert setups[1][0] == "setup" and setups[1][1] in ("query-card", "query-tile-purchase")
    assert all(len(w) == 1 for w in bob if w[0] != "setup")


# -- a series keeps the settings it was created with ------------------------------------------
def test_ww_set_changes_only_series_created_later():
    # a series started on simple had all five AI seats on strong from its next game after
    # `ww-set fill-bot strong`; one created before the change and started after it mixed both
    h = Harness(games=2, fill_bot="simple", turn_timeout=3.0, bot_delay=0.5)
    started = []
    h.service.on_game_started = lambda match, k: started.append((match.number, match.table))
    c = started_one_client(h)
    next_query(h, c)
    h.admin("ww-set fill-bot strong")
    h.admin("ww-set turn-timeout 7")
    h.join("Bob")                                           # series 2: created after the change...
    h.admin("ww-set fill-bot simple")                       # ...and started after another one
    h.admin("ww-set turn-timeout 9")
    running = h.service.matches[1]
    for _ in range(20000):
        if running.state == "finished":
            break
        c.pump()
        h.clock.advance(0.01)
    assert running.series.played == 2
    h.admin("ww-start")
    assert [n for n, _ in started] == [1, 1, 2]
    for number, table in started:
        want = ("simple", 3.0) if number == 1 else ("strong", 7.0)
        assert (table.options["fill_bot"], table.options["turn_timeout"]) == want
        assert table.options["bot_delay"] == 0.5
        assert {s.bot for s in table.seats if s.kind == "bot"} == {want[0]}


def test_a_client_refused_at_each_reconnect_is_slowed_down_and_logged_in_summary():
    # a client joining with a name already playing was refused and reconnected about 18
    # times a second, each refusal a log line (146 lines in 8 s)
    from twisted.logger import globalLogPublisher

    from gamehall_acquire.windward.wire.protocol import REFUSAL_DELAY
    lines = []

    def observer(event):
        if "refused" in str(event.get("log_format", "")):
            lines.append(event)

    h = Harness()
    h.join("Ann")
    globalLogPublisher.addObserver(observer)
    try:
        attempts, open_, t = 0, None, 0.0
        while t < 8.0:                           # the client reconnects as soon as it is closed
            if open_ is None or open_.closed:
                open_ = h.join("Ann")
                attempts += 1
                assert not open_.closed          # not closed at once: the client waits
            h.clock.advance(0.05)
            t += 0.05
        assert attempts <= 8.0 / REFUSAL_DELAY + 1
        assert len(lines) == 1                   # the first refusal; the rest in the next summary
        h.clock.advance(60)
        assert len(lines) == 2
        summary = lines[1]["summary"]
        assert summary.startswith(f"{attempts - 1} x duplicate (e.g. Ann from ")
    finally:
        globalLogPublisher.removeObserver(observer)
    assert h.hall.stats.refused["windward"] == attempts
