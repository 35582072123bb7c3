"""NetAcquire front end: handshake, lobby directives, chat across protocols, game rooms."""
import re

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from gamehall_acquire.wire.protocol import build_factory
from tests.helpers import RecordingSink
from tests.netacquire.harness import Conn, acquire_hall, connect, pump_all


def bots_available() -> bool:
    try:
        import gamehall_acquire.bots  # noqa: F401
    except ImportError:
        return False
    return True


needs_bots = pytest.mark.skipif(not bots_available(), reason="gamehall_acquire/bots.py (make_bot) is not written yet")


def test_handshake():
    hall = acquire_hall()
    factory = build_factory(hall)
    conn = Conn(factory, "Champion", 1, login=False)
    assert conn.raw == b"SP;2,0,4,gamehall;:"
    conn.send("PL;Champion,2,0,3")
    conn.pump()
    assert conn.logic.log[1] == ("SS", ["3"])
    lobby_lines = conn.logic.lm
    assert lobby_lines[0] == "Welcome to gamehall, Champion!"
    assert any("1 user connected, 0 games" in line for line in lobby_lines)
    assert hall.lobby.find("champion").frontend == "netacquire"


def test_duplicate_and_bad_nicknames_are_refused_and_closed():
    hall = acquire_hall()
    hall.login("Frank", "nim", RecordingSink())           # taken in another protocol
    factory = build_factory(hall)
    dup = Conn(factory, "FRANK", 1)
    assert dup.logic.boxes[0].startswith("E;Duplicate user Nickname;")
    assert dup.closed
    bad = Conn(factory, "n" * 40, 2)
    assert bad.logic.boxes[0].startswith("E;Invalid Nickname;") and bad.closed
    assert set(hall.lobby.users) == {"frank"}


def test_anything_before_pl_is_an_error_but_ping_works():
    hall = acquire_hall()
    conn = Conn(build_factory(hall), "Ann", 1, login=False)
    conn.send("LU;")
    conn.send("PI;6:08:41 PM")
    conn.send("PR;6:08:41 PM")
    conn.send("ZZ;1")
    conn.pump()
    assert conn.logic.boxes[0] == "E;Not logged in;Send PL with your nickname first."
    assert ("PR", ["6:08:41 PM"]) in conn.logic.log
    assert conn.codes().count("SP") == 3                  # connect, and after each error
    assert not conn.closed
    conn.send("PL;Ann,2,0,x")
    conn.pump()
    assert conn.logic.states == [3]


def test_pl_twice_and_unknown_directives_get_an_error_and_the_state():
    hall = acquire_hall()
    _, (ann,) = connect(hall, ["Ann"])
    for bad in ["PL;Other,2,0,3", "ZZ;1", 'BM;Lobby,"a"b', "\x01\x02"]:
        ann.send(bad)
    ann.send(b"LU;\xff;:")                                # non-ASCII: refused by the framer
    ann.pump()
    assert [box.split(";")[1] for box in ann.logic.boxes] == ["Bad directive", "Unknown directive",
                                                            "Bad directive", "Bad directive", "Bad directive"]
    assert ann.logic.states == [3] * 6
    assert not ann.closed and hall.lobby.find("Ann").nickname == "Ann"


def test_lu_and_lg_formats():
    hall = acquire_hall()
    _, (ann, bob, cy) = connect(hall, ["Ann", "Bob", "Cy"])
    ann.send("SG;4")
    bob.send("JG;1,0")
    pump_all([ann, bob, cy])
    cy.logic.lm.clear()
    cy.send("LU;")
    cy.send("LG;")
    cy.pump()
    assert cy.logic.lm == [
        "# Users: 3 ...",
        "# -> Ann (playing in game #1) ...",
        "# -> Bob (watching game #1) ...",
        "# -> Cy in lobby ...",
        "# End of user list.",
        "# Active games: 1 ...",
        "# ->   Game #1-> 1 player, 1 spectator, Waiting for players (limit 4)",
        "# End of game list.",
    ]


def test_the_user_list_matches_the_java_clients_parser():
    # the patterns of the NetAcquire Java client's user list presenter
    start = re.compile(r"\A# Users: \d*? \.\.\.\Z")
    entry = re.compile(r"\A# -> (.+?) (in lobby|\(playing in game #(\d*?)\)|\(watching game #(\d*?)\)) \.\.\.\Z")
    hall = acquire_hall()
    _, (ann, bob, cy) = connect(hall, ["Ann", "Bob", "Cy"])
    ann.send("SG;4")
    bob.send("JG;1,0")
    pump_all([ann, bob, cy])
    cy.logic.lm.clear()
    cy.send("LU;")
    cy.pump()
    first, *entries, last = cy.logic.lm
    assert start.match(first) and last == "# End of user list."
    assert [entry.match(line).group(1) for line in entries] == ["Ann", "Bob", "Cy"]


def test_lobby_chat_reaches_every_protocol_and_back():
    hall = acquire_hall()
    _, (ann, bob) = connect(hall, ["Ann", "Bob"])
    sink = RecordingSink()
    hall.login("Nimmy", "nim", sink)
    ann.send('BM;Lobby,"Hello, ""everyone"";:"')
    ann.send('BM;Lobby,"Ann: prefixed by the client"')
    hall.lobby.chat("Nimmy", "hi from nim")
    hall.say("maintenance")
    pump_all([ann, bob])
    assert sink.chat == [("Ann", 'Hello, "everyone";:'), ("Ann", "prefixed by the client"),
                         ("Nimmy", "hi from nim"), ("*", "maintenance")]
    expected = ['Ann: Hello, "everyone";:', "Ann: prefixed by the client", "Nimmy: hi from nim", "*** maintenance"]
    for conn in (ann, bob):
        assert [line for line in conn.logic.lm if not line.startswith("#")][-4:] == expected


def test_game_room_chat_goes_to_the_table_only_and_lobby_notices_only_to_the_lobby():
    hall = acquire_hall()
    _, (ann, bob, cy) = connect(hall, ["Ann", "Bob", "Cy"])
    ann.send("SG;2")
    bob.send("JG;1,-1")
    pump_all([ann, bob, cy])
    ann.send('BM;Game Room,"good luck"')
    pump_all([ann, bob, cy])
    assert ann.logic.gm[-1] == bob.logic.gm[-1] == "Ann: good luck"
    assert "Ann: good luck" not in cy.logic.gm + cy.logic.lm
    notices = len(ann.logic.lm)
    hall.login("Dee", "nim", RecordingSink())
    hall.clock.advance(1)                                # the lobby batches user notices for a second
    pump_all([ann, bob, cy])
    assert cy.logic.lm[-1] == "# Dee has entered the lobby."
    assert len(ann.logic.lm) == notices                  # in a game room: no lobby notices
    cy.send('BM;Game Room,"nobody hears"')
    cy.pump()
    assert cy.logic.boxes[-1].startswith("E;Bad directive;BM: you are not in a game room")
    assert cy.logic.states[-1] == 3


def test_create_join_watch_and_start_states():
    hall = acquire_hall()
    _, (ann, bob, cy, dee) = connect(hall, ["Ann", "Bob", "Cy", "Dee"])
    conns = [ann, bob, cy, dee]
    ann.send("SG;7")
    ann.pump()
    assert ann.logic.boxes[-1].startswith("E;Player limit exceeded;") and ann.logic.states[-1] == 3
    ann.send("SG;1")
    ann.send("SG;x")
    ann.pump()
    assert ann.logic.boxes[-2].startswith("E;Player limit exceeded;")
    assert not hall.tables
    ann.send("SG;2")
    ann.pump()
    assert ann.logic.states[-1] == 5 and ann.logic.sheet[1] == "Ann"
    bob.send("JG;1,-1")
    pump_all(conns)
    assert bob.logic.states[-1] == 4
    assert ann.logic.names() == bob.logic.names() == ["Ann", "Bob"]
    cy.send("JG;99,-1")                                  # no such game
    cy.pump()
    assert cy.logic.boxes == ["E;Request refused;No game #99"] and cy.logic.states[-1] == 3
    cy.send("JG;1,-1")                                   # full: NetAcquire lets Cy kibitz, and says so
    pump_all(conns)
    assert cy.logic.boxes[-1] == ("E;Player limit exceeded;The maximum number of players for this game "
                                  "has been reached, you may only kibitz.")
    assert cy.logic.states[-1] == 4 and cy.logic.log[-1][0] == "M"           # the box comes in the game room
    assert hall.lobby.find("Cy").watching and hall.tables[1].players() == ["Ann", "Bob"]
    for conn in conns:
        conn.answer = False
    bob.send("PG;")
    bob.pump()
    assert "creator" in bob.logic.gm[-1] and bob.logic.states[-1] == 4      # at a table: in the game room
    ann.send("PG;")
    pump_all(conns)
    for conn in (ann, bob, cy):
        assert conn.logic.states[-1] == 6
    table = hall.tables[1]
    first = table.players()[table.engine.current]
    assert ann.logic.gm[-2:] == [f"*** {first}'s turn.", f"*Waiting for {first} to play tile."]
    assert sum(len(c.logic.rack) for c in (ann, bob)) == 12 and not cy.logic.rack
    hall.clock.advance(hall.lobby.window)                # lobby notices gathered in the second
    dee.pump()
    assert dee.logic.lm[-1] == "# Game #1 has started."
    dee.send("JG;1,-1")                                  # no seat held for Dee: a spectator, as NetAcquire does
    dee.pump()
    assert dee.logic.boxes == ["I;Spectating game forced;The game has already started, you cannot join as a player."]
    assert dee.logic.states[-2:] == [4, 6] and dee.logic.log[-1][0] == "M"       # the box comes in the game room
    assert dee.logic.board and dee.logic.names() == ["Ann", "Bob"] and not dee.logic.rack
    assert hall.lobby.find("Dee").watching and table.players() == ["Ann", "Bob"]


def test_leaving_a_waiting_table_changes_the_rows_in_place_and_keeps_the_game_room_text():
    # The Java client clears its game room window (chat included) on SS;3: a player leaving
    # a waiting room once sent everyone there through SS;3 and back.  The names are now
    # changed in place (SV captions); clients count players by the name captions they were
    # sent ("" counts) until SS;3, so the blank row left over goes when the game starts.
    hall = acquire_hall()
    _, (ann, bob, cy, wes) = connect(hall, ["Ann", "Bob", "Cy", "Wes"])
    ann.send("SG;3")
    bob.send("JG;1,-1")
    cy.send("JG;1,-1")
    wes.send("JG;1,0")
    pump_all([ann, bob, cy, wes])
    cy.send('BM;Game Room,"hello all"')
    pump_all([ann, bob, cy, wes])
    assert ann.logic.names() == wes.logic.names() == ["Ann", "Bob", "Cy"]
    states = {c: list(c.logic.states) for c in (ann, cy, wes)}
    bob.send("LV;")
    pump_all([ann, bob, cy, wes])
    assert bob.logic.states[-1] == 3
    assert hall.tables[1].players() == ["Ann", "Cy"]
    for conn in (ann, cy, wes):
        assert conn.logic.states == states[conn]              # no SS round trip
        assert conn.logic.names() == ["Ann", "Cy", ""]        # in place: the freed row blank
        assert "Cy: hello all" in conn.logic.room and conn.logic.room[-1] == "Bob left the game."
    ann.send("PG;")
    pump_all([ann, cy, wes], until=lambda: hall.tables[1].engine is not None and ann.logic.states[-1] == 6)
    for conn in (ann, cy, wes):
        assert conn.logic.names() == ["Ann", "Cy"]             # no blank player in the game


def test_a_game_started_with_a_freed_row_left_blank_keeps_the_game_room_text():
    # the blank row left by a player who left the waiting room (nobody took it) is reset
    # with SS;3 at the start, which cleared everyone's game room window (Java client):
    # chat and notices typed while waiting were gone when the game began
    hall = acquire_hall()
    _, (ann, bob, cy) = connect(hall, ["Ann", "Bob", "Cy"])
    ann.send("SG;3")
    bob.send("JG;1,-1")
    cy.send("JG;1,-1")
    pump_all([ann, bob, cy])
    cy.send('BM;Game Room,"hello all"')
    pump_all([ann, bob, cy])
    bob.send("LV;")
    pump_all([ann, bob, cy])
    before = {c: list(c.logic.room) for c in (ann, cy)}
    assert all("Cy: hello all" in r and r[-1] == "Bob left the game." for r in before.values())
    ann.send("PG;")
    pump_all([ann, cy], until=lambda: hall.tables[1].engine is not None and ann.logic.states[-1] == 6)
    for conn in (ann, cy):
        assert conn.logic.names() == ["Ann", "Cy"]             # the blank row is gone...
        assert conn.logic.room[:len(before[conn])] == before[conn]     # ...and the text is still there
        assert conn.logic.states[-1] == 6


def test_bot_command_syntax_and_permissions():
    hall = acquire_hall()
    _, (ann, bob) = connect(hall, ["Ann", "Bob"])
    ann.send('BM;Lobby,"/bot"')
    ann.pump()
    assert "Create a game first" in ann.logic.boxes[-1]
    ann.send('BM;Lobby,"/help"')
    ann.pump()
    assert any(line.startswith("/bot [strong|random]") for line in ann.logic.lm)
    ann.send("SG;6")
    bob.send("JG;1,-1")
    pump_all([ann, bob])
    ann.send('BM;Game Room,"/bot"')
    ann.send('BM;Game Room,"/bot random"')
    ann.send('BM;Game Room,"/bot genius"')
    bob.send('BM;Game Room,"/bot"')
    ann.send('BM;Game Room,"/frobnicate"')
    pump_all([ann, bob])
    assert hall.tables[1].players() == ["Ann", "Bob", "StrongBot1", "RandomBot1"]
    assert bob.logic.names() == ["Ann", "Bob", "StrongBot1", "RandomBot1"]
    assert "Unknown bot" in "".join(ann.logic.gm)
    assert bob.logic.gm[-1] == "Request refused: Only the game's creator can add computer players"
    assert len(ann.logic.boxes) == 1 and not bob.logic.boxes          # only the lobby's error was a box
    assert ann.logic.gm[-1] == "Unknown command /frobnicate. Type /help for the list."
    assert all("/bot" not in line for line in bob.logic.gm)         # commands are not broadcast


@needs_bots
def test_a_human_and_bots_play_to_the_end():
    hall = acquire_hall(bot_delay=0.01)
    _, (ann,) = connect(hall, ["Ann"])
    ann.send("SG;3")
    ann.send('BM;Game Room,"/bot"')
    ann.send('BM;Game Room,"/bot random"')
    ann.send("PG;")
    table = hall.tables[1]
    pump_all([ann], hall, until=lambda: ann.logic.ended)
    assert ann.logic.cash() == table.engine.result()["scores"]


def test_per_peer_cap_farewell_is_an_error_box():
    hall = acquire_hall(max_per_peer=1)
    factory = build_factory(hall)
    Conn(factory, "Ann", 1)
    refused = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 2))
    transport = StringTransport()
    refused.makeConnection(transport)
    assert re.fullmatch(rb'M;"E;Too many connections;[^";]+";:', transport.value())
    assert transport.disconnecting


def test_kick_and_shutdown_say_why():
    hall = acquire_hall()
    _, (ann, bob) = connect(hall, ["Ann", "Bob"])
    hall.kick("Ann", "Be nice")
    ann.pump()
    assert ann.logic.boxes[-1] == "E;Disconnected;Be nice" and ann.closed
    assert hall.lobby.find("Ann") is None


def test_no_ping_is_ever_sent_and_only_idle_lobby_users_are_closed():
    # Deployed clients do not all answer PI ("Unhandled command: PI"): the host never sends it.
    hall = acquire_hall(idle_timeout=60)
    _, (player, watcher, chatty, quiet) = connect(hall, ["Player", "Watcher", "Chatty", "Quiet"])
    player.send("SG;4")
    watcher.send("JG;1,0")
    pump_all([player, watcher])
    for _ in range(5):
        hall.clock.advance(59)
        chatty.send("LU;")
        for conn in (player, watcher, chatty, quiet):
            conn.pump()
    for conn in (player, watcher, chatty, quiet):
        assert "PI" not in conn.codes()
    assert not player.closed and not watcher.closed and not chatty.closed
    assert quiet.closed and quiet.logic.boxes[-1].startswith("E;Idle connection;")
    assert not any(b"PI;" in c.raw for c in (player, watcher, chatty, quiet))


def test_long_and_non_ascii_chat_from_other_protocols_is_made_sendable():
    hall = acquire_hall()
    _, (ann,) = connect(hall, ["Ann"])
    hall.lobby.chat("Zoë", "x" * 20000)
    hall.lobby.chat("Zoë", "naïve ☕")
    ann.pump()
    assert ann.logic.lm[-2] == "Zo?: " + "x" * 1000
    assert ann.logic.lm[-1] == "Zo?: na?ve ?"


def test_a_game_started_before_login_is_not_announced_as_starting_at_its_next_change():
    hall = acquire_hall()
    _, (ann, bob, cy) = connect(hall, ["Ann", "Bob", "Cy"])
    for conn in (ann, bob):
        conn.answer = False
    ann.send("SG;3")                                     # game 1: waiting
    pump_all([ann, bob, cy])
    bob.send("SG;2")                                     # game 2: will be playing
    cy.send("JG;2,-1")
    pump_all([ann, bob, cy])
    bob.send("PG;")
    pump_all([ann, bob, cy])
    factory, (late,) = connect(hall, ["Late"])
    late.logic.lm.clear()
    hall.tables[2].watch(hall.login("Watcher", "nim", RecordingSink()))     # game 2 changes, still playing
    hall.tables[1].add_bot()                             # game 1 changes, still waiting
    hall.tables[2].abort("test")                         # game 2 ends
    late.pump()
    hall.clock.advance(hall.lobby.window)                # lobby notices gathered in the second
    late.pump()
    notices = [line for line in late.logic.lm if line.startswith("# Game")]
    assert not any("has started" in line for line in notices), notices
    assert "# Game #2 is over." in notices
    hall.tables[1].add_bot()
    hall.tables[1].start()
    late.pump()
    hall.clock.advance(hall.lobby.window)
    late.pump()
    assert late.logic.lm[-1] == "# Game #1 has started."


def test_unique_chat_lines_do_not_grow_the_wire_cache():
    from gamehall_acquire.wire import encoded
    from gamehall_acquire.wire.render import caption, d
    hall = acquire_hall()
    _, (ann, bob) = connect(hall, ["Ann", "Bob"])
    ann.send("SG;2")
    pump_all([ann, bob])
    before = dict(encoded.WIRE_CACHE)
    for i in range(3000):
        ann.send(f'BM;Lobby,"lobby line number {i}"')
        ann.send(f'BM;Game Room,"game room line number {i}"')
        hall.lobby.chat("Nimmy", f"from another protocol {i}")
    pump_all([ann, bob])
    assert bob.logic.lm[-1] == "Nimmy: from another protocol 2999"
    assert ann.logic.gm[-1] == "Ann: game room line number 2999"
    assert dict(encoded.WIRE_CACHE) == before
    # recurring directives are cached, but only so many, the least recently used dropped first
    board = d("SB", 1, 255)
    for value in range(3 * encoded.WIRE_CACHE_SIZE):
        assert encoded.wire(caption(82, value)) == f"SV;frmScoreSheet,lblData,82,Caption,{value};:".encode()
        encoded.wire(board)
    assert len(encoded.WIRE_CACHE) == encoded.WIRE_CACHE_SIZE
    assert next(reversed(encoded.WIRE_CACHE))[0] == "SB"        # used all along: still there


def test_a_burst_of_games_is_worked_out_once_for_every_lobby_user_and_not_for_players(monkeypatch):
    from gamehall_acquire.wire.lobby import LobbyNotices
    worked = []
    texts = LobbyNotices._texts
    monkeypatch.setattr(LobbyNotices, "_texts", lambda self, event, detail: (
        worked.append(event), texts(self, event, detail))[1])
    hall = acquire_hall()
    _, conns = connect(hall, [f"User{i}" for i in range(20)])      # 20: the per-address cap
    hall.clock.advance(10)
    players, lobby = conns[:10], conns[10:]
    for conn in conns:
        conn.answer = False
    pump_all(conns)
    for conn in players:
        conn.logic.lm.clear()
    worked.clear()
    for i in range(0, 10, 2):                # five games made, joined and started
        table = hall.create_table("acquire", max_seats=2, creator=hall.lobby.find(f"User{i}"))
        table.join(hall.lobby.find(f"User{i + 1}"))
        table.start()
    pump_all(conns)
    hall.clock.advance(hall.lobby.window)
    pump_all(conns)
    # one notice at once (game 1 made), the rest in one batch: worked out once each,
    # against 20 changes x 20 users (and 10 writes per lobby user) one by one
    assert worked == ["table_added", "tables_changed"]
    expected = ["# Game #1 was created by User0."]           # at once; the batch: games made, then changed
    for n in range(2, 6):
        expected += [f"# Game #{n} was created by User{2 * n - 2}.", f"# Game #{n} has started."]
    expected.append("# Game #1 has started.")
    for conn in lobby:
        assert [line for line in conn.logic.lm if line.startswith("# Game")] == expected
    # in a game: no lobby notices (game 1 was made, and told at once, before they sat down)
    for conn in players:
        assert conn.logic.lm == ["# Game #1 was created by User0."]


def test_a_user_in_a_batch_of_arrivals_is_not_told_of_itself():
    hall = acquire_hall()
    _, (ann,) = connect(hall, ["Ann"])                    # told at once: the window opens
    _, (bob, cy) = connect(hall, ["Bob", "Cy"])
    hall.clock.advance(hall.lobby.window)
    pump_all([ann, bob, cy])
    assert ann.logic.lm[-2:] == ["# Bob has entered the lobby.", "# Cy has entered the lobby."]
    assert bob.logic.lm[-1] == "# Cy has entered the lobby."
    assert cy.logic.lm[-1] == "# Bob has entered the lobby."
