"""Whole Acquire games through the NetAcquire front end, with in-process clients.

The clients (tests/netacquire/naclient.py) know only what the host sent them:
they keep their rack from AT/SB/SV Visible and the score sheet from SV
captions, and answer GT/GC/GD/GP from that.  After every read, each client's
view is compared with the engine.
"""
import json
import random
import re

import pytest

from gamehall_acquire.record import game_from_record
from gamehall_acquire.tiles import tile_id
from tests.netacquire.harness import Conn, acquire_hall, connect, pump_all
from tests.netacquire.naclient import COLOURS, NAMES

RACK_COLOUR = {"playable": 12632256, "found": 12648384, "grow": 12648384, "merge": 12648384,
               "unplayable_now": 6316128, "dead": 8421504}
WAITING = re.compile(r"\*Waiting for (.+) to (play tile|make purchase|select chain to merge|select merger survivor"
                     r"|select new chain|dispose of (Luxor|Tower|American|Festival|Worldwide|Continental|Imperial)"
                     r" shares)\.")


def setup_game(names, seed, watchers=(), start=True, end_game=True, limit=None, **hall_kw):
    hall = acquire_hall(rng=random.Random(seed), **hall_kw)
    factory, conns = connect(hall, list(names) + list(watchers), seed=seed, end_game=end_game)
    players, spectators = conns[:len(names)], conns[len(names):]
    players[0].send(f"SG;{limit or len(names)}")
    for conn in players[1:]:
        conn.send("JG;1,-1")
    for conn in spectators:
        conn.send("JG;1,0")
    pump_all(conns)
    table = hall.tables[1]
    if start:
        players[0].send("PG;")
    return hall, factory, table, players, spectators


def check_view(table):
    """A check for Conn.pump: what the client was shown equals the engine's state."""
    game = table.engine

    def check(conn):
        logic = conn.logic
        if game is None or logic.states[-1] != 6:
            return
        assert logic.board == {tile_id(t): (12632256 if c is None else COLOURS[NAMES.index(c)])
                               for t, c in game.board.items()}
        assert logic.names() == game.players
        shares = game.shares
        for c, chain in enumerate(NAMES):
            assert logic.value(9 + c) == game.available(chain)
            assert logic.value(17 + c) == game.chain_size(chain)
            assert logic.value(25 + c) * 100 == game.price(chain)
            for seat in range(len(game.players)):
                assert logic.value(33 + 7 * c + seat) == shares[seat][chain]
        assert logic.cash() == game.cash
        for seat in range(len(game.players)):
            highlighted = not game.is_over() and seat == game.current
            assert logic.colours[1 + seat] == (12632319 if highlighted else 16777215)
        if logic.name in game.players and not conn.spectator:
            rack = game.racks[game.players.index(logic.name)]
            shown = {slot: tile for slot, tile in logic.rack.items() if logic.visible.get(slot)}
            expected = {slot + 1: (tile_id(t), RACK_COLOUR[game.tile_status(t)])
                        for slot, t in enumerate(rack) if t is not None}
            assert shown == expected
            # no board cell stays marked "in my rack" for a tile that left it (set aside)
            assert logic.marked == {tile_id(t) for t in rack if t is not None}
        else:
            assert "AT" not in conn.codes() and not logic.rack
    return check


def play_to_the_end(hall, table, conns, check=True, limit=100000):
    checker = check_view(table) if check else None
    pump_all(conns, hall, until=lambda: all(c.logic.ended for c in conns), check=checker, limit=limit)


def check_end(hall, table, conns):
    scores = table.engine.result()["scores"]
    for conn in conns:
        assert conn.logic.cash() == scores
        assert conn.logic.boxes[-1] == "I;Game ended;The game has ended, click OK to view final game results."
        winners = [f"***** {table.players()[s]} has won with ${scores[s]}!" for s in table.engine.result()["winners"]]
        assert conn.logic.gm[-len(winners):] == winners
    record = hall.store.get_record(table.store_id).result
    assert game_from_record(record).cash == scores
    if table.engine.end_reason == "claimed":          # the end message says who ended the game
        claimer = record["actions"][-1]["player"]
        for conn in conns:
            assert f"The game is over: {claimer} ended it." in conn.logic.gm


def check_waiting_messages(conn):
    """Every request came right after a '*Waiting for <me> to <what it asks>.' message."""
    last = None
    words = {("GT", None): "play tile", ("GP", None): "make purchase", ("GC", "4"): "select new chain",
             ("GC", "6"): "select merger survivor", ("GC", "8"): "select chain to merge"}
    for code, params in conn.logic.log:
        if code == "GM" and params[0].startswith("*Waiting"):
            assert WAITING.fullmatch(params[0]), params[0]
            last = WAITING.fullmatch(params[0])
        elif code in ("GT", "GC", "GD", "GP"):
            assert last is not None and last.group(1) == conn.logic.name
            if code == "GD":
                assert last.group(2) == f"dispose of {params[1]} shares"
            else:
                assert last.group(2) == words[(code, params[0] if code == "GC" else None)]


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 2), (4, 3), (4, 4), (6, 5)])
def test_whole_games_end_with_the_engines_cash(players, seed):
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"][:players]
    hall, _, table, conns, watchers = setup_game(names, seed, watchers=["Wes"])
    for conn in conns:
        conn.spectator = False
    watchers[0].spectator = True
    play_to_the_end(hall, table, conns + watchers)
    check_end(hall, table, conns + watchers)
    for conn in conns:
        check_waiting_messages(conn)
        assert {code for code, _ in conn.logic.requests} <= {"GT", "GC", "GD", "GP"}
    # racks are private: no tile was ever shown to two players
    shown = [{int(p[1]) for code, p in conn.logic.log if code == "AT"} for conn in conns]
    assert sum(map(len, shown)) == len(set().union(*shown))
    assert not [line for line in watchers[0].logic.gm if "You drew" in line]
    assert {code for code, _ in watchers[0].logic.log} >= {"SB", "SV", "GM", "SS"}
    assert not {"AT", "GT", "GC", "GD", "GP"} & set(watchers[0].codes())


@pytest.mark.parametrize("seed", [21, 22])
def test_games_nobody_ends_run_out_of_tiles(seed):
    hall, _, table, conns, _ = setup_game(["Ann", "Bob", "Cy", "Dee"], seed, end_game=False)
    for conn in conns:
        conn.spectator = False
    play_to_the_end(hall, table, conns)
    check_end(hall, table, conns)
    assert table.engine.end_reason in ("no_tiles", "no_playable_tiles")
    assert any("I;No playable tile;It is your turn and you have no playable tile." in c.logic.boxes for c in conns)
    for conn in conns:
        assert "I;Tile bag empty;The last tile has been drawn from the tile bag." in conn.logic.boxes
        if table.engine.end_reason == "no_playable_tiles":
            assert conn.logic.boxes.count("W;Last round, game end forced;Nobody has a playable tile, "
                                          "everyone gets one more turn forpurchases.") == 1


def test_a_spectator_joining_mid_game_gets_board_and_sheet_but_no_rack():
    hall, factory, table, conns, _ = setup_game(["Ann", "Bob"], 7)
    for conn in conns:
        conn.spectator = False
    pump_all(conns, hall, until=lambda: len(table.engine.board) > 8)
    late = Conn(factory, "Late", 50)
    late.spectator = True
    late.send("JG;1,0")
    late.pump()
    assert late.logic.states[-2:] == [4, 6]
    check_view(table)(late)
    assert len(late.logic.board) == len(table.engine.board)
    play_to_the_end(hall, table, conns + [late])
    check_end(hall, table, conns + [late])
    assert not {"AT", "GT", "GC", "GD", "GP"} & set(late.codes())


def bad_answers(code, params, logic, table):
    """Answers a careless client might send, each of which must be refused."""
    if code == "GT":
        bad = ["PT;0", "PT;7", "PT;x", "PT;", "MD;0,0", "P;0,0,0,0,0,0,0,0"]
        bad += [f"PT;{slot}" for slot, (_, colour) in logic.rack.items() if colour in (6316128, 8421504)]
        return bad
    if code == "GC":
        kind, offered = params[0], [int(p) for p in params[1:]]
        bad = [f"CS;12345,{kind}", f"CS;abc,{kind}", "CS;", "PT;1"]
        bad += [f"CS;{COLOURS[i - 1]},{kind}" for i in range(1, 8) if i not in offered][:2]
        return bad
    if code == "GD":
        holding, available = int(params[2]), int(params[3])
        bad = ["MD;-1,0", f"MD;{holding + 1},0", "MD;x,0", "MD;0", "MD;0,-2", "PT;1"]
        if holding >= 1:
            bad.append("MD;0,1")
        if 2 * (available + 1) <= holding:
            bad.append(f"MD;0,{2 * (available + 1)}")
        return bad
    if code == "GP":
        can_end, cash = params[0] == "-1", int(params[1])
        bad = ["P;4,0,0,0,0,0,0,0", "P;1,1", "P;a,0,0,0,0,0,0,0", "P;-1,0,0,0,0,0,0,0", "PT;2",
               "P;2,2,0,0,0,0,0,0"]
        off_board = [c for c in range(7) if logic.value(25 + c) == 0]
        if off_board:
            counts = [0] * 7
            counts[off_board[0]] = 1
            bad.append("P;" + ",".join(map(str, counts)) + ",0")
        if not can_end:
            bad.append("P;0,0,0,0,0,0,0,1")
        dear = [c for c in range(7) if logic.value(9 + c) >= 3 and 3 * logic.value(25 + c) * 100 > cash
                and logic.value(25 + c)]
        if dear:
            counts = [0] * 7
            counts[dear[0]] = 3
            bad.append("P;" + ",".join(map(str, counts)) + ",0")
        return bad
    raise AssertionError(code)


def words(table):
    from gamehall_acquire.wire.render import waiting_words
    return waiting_words(table.engine.pending())


def test_illegal_answers_get_a_reason_and_the_same_request_again():
    hall, _, table, conns, _ = setup_game(["Ann", "Bob", "Cy"], 11)
    seen = set()
    for conn in conns:
        conn.spectator = False

    def heckle(conn, code, params):
        seen.add(code)
        before, seq = json.dumps(table.engine.to_dict(), sort_keys=True), table.seq
        for bad in bad_answers(code, params, conn.logic, table):
            conn.send(bad)
            out = conn.read()
            if bad[:2] != {"GT": "PT", "GC": "CS", "GD": "MD", "GP": "P;"}[code]:
                # an answer to another request: stale, told so, no second request
                assert out[0] == ("GM", [f"That is not what the game is waiting for: {words(table)}."])
                if bad.startswith("PT;"):            # and the clicked rack button comes back
                    slot = int(bad.split(";")[1])
                    seat = table.players().index(conn.logic.name)
                    if table.engine.racks[seat][slot - 1] is None:     # played from, not refilled yet
                        assert out[1:] == [("SV", ["frmTileRack", "cmdTile", str(slot), "Visible", "0"])]
                    else:
                        assert [(c, p[0]) for c, p in out[1:]] == [("AT", str(slot)), ("SV", "frmTileRack")]
                else:
                    assert len(out) == 1
            else:
                assert any(c == "GM" and p[0].startswith("Not accepted") for c, p in out), (bad, out)
                assert out[-1] == (code, params), (bad, out)
            assert table.seq == seq
            assert json.dumps(table.engine.to_dict(), sort_keys=True) == before
        # someone else answering out of turn
        other = next(c for c in conns if c is not conn)
        other.send("PT;1")
        other.send("P;0,0,0,0,0,0,0,0")
        assert [p[0] for c, p in other.read() if c == "GM"][-2:] == ["It is not your turn."] * 2
        assert table.seq == seq

    for conn in conns:
        conn.on_request = heckle
    play_to_the_end(hall, table, conns)
    check_end(hall, table, conns)
    assert seen == {"GT", "GC", "GD", "GP"}


def garbage(rng):
    """Bytes with no letters and no quotes (so no directive code, no open quote), then ';:'."""
    alphabet = [b for b in range(256) if not chr(b).isalpha() and b != ord('"')]
    return bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 60))) + b";:"


def test_garbage_and_malformed_directives_do_not_disturb_the_game():
    hall, _, table, conns, _ = setup_game(["Ann", "Bob", "Cy"], 12)
    rng = random.Random(12)
    for conn in conns:
        conn.spectator = False
    crafted = [b"ZZ;1;:", b"P;;:", b"\x00;:", b"LU;\xc3\xa9;:", b"A" * 9000 + b";:", b"PT;\"1\"x;:",
               b"MD;;:", b"CS;;:", b"JG;;:", b"SG;;:", b";:", b"BM;;:"]
    hits = []

    def pester(conn, code, params):
        if rng.random() < 0.3:
            data = rng.choice(crafted) if rng.random() < 0.5 else garbage(rng)
            seq = table.seq
            conn.send(data)
            out = conn.read()
            hits.append(data)
            assert table.seq == seq
            assert out, data
            sent = data.partition(b";")[0].strip().upper()
            answer = {"GT": b"PT", "GC": b"CS", "GD": b"MD", "GP": b"P"}[code]
            if out[-1][0] == "GM" and out[-1][1][0].startswith("That is not what"):
                assert sent in (b"PT", b"CS", b"MD", b"P") and sent != answer      # a stale answer: told so
                assert [c for c, _ in out if c in ("GT", "GC", "GD", "GP")] == []
            elif sent == answer:
                assert out[-1] == (code, params), (data, out)    # a refused answer: the same request again
            else:
                # an error line in the game room (not a box, which clients show in the lobby),
                # the state again, and no second request (that would open a second dialog)
                assert out == [("GM", out[0][1]), ("SS", ["6"])], (data, out)
                assert re.match(r"(Bad|Unknown) directive: ", out[0][1][0])
            assert "M" not in [c for c, _ in out]

    for conn in conns:
        conn.on_request = pester
    play_to_the_end(hall, table, conns)
    check_end(hall, table, conns)
    assert len(hits) > 20 and not any(c.closed for c in conns)


def test_byte_by_byte_delivery():
    hall, _, table, conns, _ = setup_game(["Ann", "Bob"], 13)
    for conn in conns:
        conn.bytewise = True
        conn.spectator = False
    play_to_the_end(hall, table, conns)
    check_end(hall, table, conns)


@pytest.mark.parametrize("whose_turn", [True, False])
def test_disconnect_and_reconnect_to_the_held_seat(whose_turn):
    hall, factory, table, conns, _ = setup_game(["Ann", "Bob", "Cy"], 14)
    for conn in conns:
        conn.spectator = False
    pump_all(conns, hall, until=lambda: len(table.engine.board) > 10
             and (table.players()[table.engine.pending_seat()] == "Bob") == whose_turn)
    bob = conns[1]
    bob.read()                  # whatever was sent to Bob is lost with the connection
    bob.drop()
    assert hall.held_table("Bob") is table
    others = [conns[0], conns[2]]
    # the others play on until the game waits for Bob
    pump_all(others, until=lambda: table.players()[table.engine.pending_seat()] == "Bob")
    for conn in others:
        conn.pump()             # nothing to answer: the game waits for Bob
    assert table.players()[table.engine.pending_seat()] == "Bob"
    assert any("Bob lost the connection" in line for line in conns[0].logic.gm)
    again = Conn(factory, "Bob", 77, seed=99, answer=False)
    again.spectator = False
    assert again.logic.states[:2] == [3, 6]
    check_view(table)(again)
    assert again.logic.requests                               # the pending request came with the state
    assert any(line.startswith("*Waiting for Bob to") for line in again.logic.gm)
    again.answer = True
    again.send(again.logic.answer(*again.logic.requests[-1]))
    play_to_the_end(hall, table, [conns[0], again, conns[2]])
    check_end(hall, table, [conns[0], again, conns[2]])


def test_a_player_leaving_a_waiting_table_and_a_start_with_too_few():
    hall, factory, table, conns, _ = setup_game(["Ann", "Bob"], 15, start=False)
    conns[1].send("LV;")
    pump_all(conns)
    assert conns[1].logic.states[-1] == 3 and table.players() == ["Ann"]
    conns[0].send("PG;")
    conns[0].pump()
    assert "needs 2 to 6 players" in conns[0].logic.gm[-1] and conns[0].logic.states[-1] == 5


def test_game_status_lines():
    hall, _, table, conns, _ = setup_game(["Ann", "Bob"], 16)
    for conn in conns:
        conn.answer = False
    pump_all(conns)
    conns[1].send("GS;")
    lines = [p[0] for c, p in conns[1].read() if c == "GM"]
    game = table.engine
    assert lines[0] == "Game #1: 2 of 2 players, 0 watching, playing."
    assert lines[1] == f"  1. Ann: ${game.cash[0]} cash, net worth ${game.net_worth(0)}"
    assert lines[3] == f"Tiles left in the bag: {len(game.bag)}."
    assert WAITING.fullmatch(lines[4])


def test_the_turn_timer_plays_the_default_and_the_late_answer_is_refused():
    hall, _, table, conns, _ = setup_game(["Ann", "Bob"], 17)
    for conn in conns:
        conn.answer = False
        conn.spectator = False
    pump_all(conns)
    seat = table.engine.pending_seat()
    late = conns[seat]
    request = late.logic.requests[-1]
    assert request[0] == "GT"
    hall.clock.advance(table.game.turn_timeout)
    pump_all(conns)
    assert "Time is up: the host made the default move for you." in late.logic.gm
    assert table.seq == 1
    answer = late.logic.answer(*request)             # the answer comes too late
    slot = int(answer.split(";")[1])
    late.send(answer)
    assert late.logic.visible[slot] is False          # the client hid the button it clicked
    out = late.read()
    assert out and out[0][0] == "GM" and table.seq == 1
    # the refused play gives the button back (with the tile now in that slot), nothing else
    tile = table.engine.racks[seat][slot - 1]
    assert out[1:] == [("AT", [str(slot), str(tile_id(tile)), str(RACK_COLOUR[table.engine.tile_status(tile)])]),
                       ("SV", ["frmTileRack", "cmdTile", str(slot), "Visible", "1"])]
    check_view(table)(late)
    for conn in conns:
        conn.answer = True
    for conn in conns:                               # answer what is pending now
        if conn.logic.requests and table.engine.pending_seat() == conns.index(conn):
            conn.send(conn.logic.answer(*conn.logic.requests[-1]))
    play_to_the_end(hall, table, conns)
    check_end(hall, table, conns)


def test_operator_close_sends_everyone_back_to_the_lobby():
    hall, _, table, conns, watchers = setup_game(["Ann", "Bob"], 18, watchers=["Wes"])
    for conn in conns:
        conn.answer = False
    pump_all(conns + watchers)
    hall.close_table(table.id, "Closed by the operator")
    pump_all(conns + watchers)
    for conn in conns + watchers:
        assert conn.logic.boxes[-1] == "I;Game aborted;Game #1 was stopped: Closed by the operator."
        assert conn.logic.states[-1] == 3
    conns[0].send("SG;2")                            # and they can start again
    conns[0].pump()
    assert conns[0].logic.states[-1] == 5


def test_a_normal_game_logs_nothing_at_info_or_above():
    from twisted.logger import LogLevel, globalLogPublisher
    events = []

    def observer(event):
        if event.get("log_level", LogLevel.debug) >= LogLevel.info:
            events.append(event)

    globalLogPublisher.addObserver(observer)
    try:
        hall, _, table, conns, _ = setup_game(["Ann", "Bob", "Cy"], 19)
        play_to_the_end(hall, table, conns, check=False)
    finally:
        globalLogPublisher.removeObserver(observer)
    assert events == []


def _bots_available() -> bool:
    try:
        import gamehall_acquire.bots  # noqa: F401
    except ImportError:
        return False
    return True


needs_bots = pytest.mark.skipif(not _bots_available(),
                                reason="gamehall_acquire/bots.py (make_bot) is not written yet")


@needs_bots
def test_leaving_during_play_hands_the_seat_to_a_bot_and_jg_takes_it_back():
    hall, factory, table, conns, _ = setup_game(["Ann", "Bob", "Cy"], 20, bot_delay=0.01)
    for conn in conns:
        conn.spectator = False
    pump_all(conns, hall, until=lambda: len(table.engine.board) > 6)
    bob = conns[1]
    bob.send("LV;")
    bob.read()
    assert bob.logic.states[-1] == 3 and table.seats[1].kind == "bot"
    others = [conns[0], conns[2]]
    pump_all(others, hall, until=lambda: table.seq > 20)
    for conn in others:
        conn.pump()
    assert any("Bob is now played by the computer" in line for line in conns[0].logic.gm)
    bob.logic.rack.clear()
    bob.logic.board.clear()
    bob.send("JG;1,-1")                              # the seat is still Bob's to take back
    bob.read()
    assert bob.logic.states[-1] == 6 and table.seats[1].kind == "human"
    play_to_the_end(hall, table, conns)
    check_end(hall, table, conns)


@needs_bots
def test_a_human_with_two_bots_plays_a_whole_game():
    hall, factory, table, conns, _ = setup_game(["Ann"], 21, start=False, limit=3, bot_delay=0.01)
    ann = conns[0]
    ann.spectator = False
    ann.send('BM;Game Room,"/bot"')
    ann.send('BM;Game Room,"/bot random"')
    ann.send("PG;")
    play_to_the_end(hall, table, [ann])
    check_end(hall, table, [ann])


def test_one_event_one_write():
    """Everything the host says about one event (a table event, one incoming directive) is one write."""
    hall, _, table, conns, watchers = setup_game(["Ann", "Bob", "Cy"], 23, watchers=["Wes"])
    writes_per_call = []

    def counted(conn, name):
        method = getattr(conn.proto, name)

        def wrapper(*args, **kw):
            before = len(conn.transport.writes)
            result = method(*args, **kw)
            writes_per_call.append((name, len(conn.transport.writes) - before))
            return result
        setattr(conn.proto, name, wrapper)

    for conn in conns + watchers:
        conn.spectator = conn in watchers
        for name in ("table_event", "frame_received", "lobby_changed", "lobby_chat"):
            counted(conn, name)

    def heckle(conn, code, params):
        conn.send("ZZ;1")                                # an error box, the state and nothing else
        conn.send("PT;9" if code == "GT" else "PT;1")    # a refused or stale answer
        conn.send('BM;Game Room,"hello"')
        conn.read()

    for conn in conns:
        conn.on_request = heckle
    play_to_the_end(hall, table, conns + watchers)
    check_end(hall, table, conns + watchers)
    assert {name for name, _ in writes_per_call} >= {"table_event", "frame_received"}
    assert max(n for _, n in writes_per_call) == 1
    assert sum(n for _, n in writes_per_call) > 100
    for conn in conns + watchers:
        assert all(chunk.endswith(b";:") for chunk in conn.transport.writes)


def test_errors_at_a_table_go_to_the_game_room_and_resend_only_a_refused_answers_request():
    hall, _, table, conns, _ = setup_game(["Ann", "Bob"], 24)
    for conn in conns:
        conn.spectator = False
    pump_all(conns, until=lambda: table.engine.pending() is not None and table.engine.pending().kind == "purchase")
    buyer = conns[table.engine.pending_seat()]
    buyer.answer = False
    pump_all(conns)
    assert buyer.logic.requests[-1][0] == "GP"
    buyer.send('BM;Game Room,"/bot"')                # refused, but not an answer to GP
    buyer.send("ZZ;1")
    buyer.send(b"LU;\xff;:")                           # refused by the framer
    out = buyer.read()
    assert out[:4] == [("GM", [out[0][1][0]]),
                       ("SS", ["6"]),
                       ("GM", ["Unknown directive: The host does not understand ZZ directives."]), ("SS", ["6"])]
    assert out[0][1][0].startswith("Request refused: ") and "computer players" in out[0][1][0]
    assert out[4][0] == "GM" and out[4][1][0].startswith("Bad directive: ") and out[5:] == [("SS", ["6"])]
    assert not buyer.logic.boxes                     # no message box: clients would show it in the lobby
    buyer.send('P;"1"x,0,0,0,0,0,0,0')               # a malformed answer to GP: refused, GP again
    out = buyer.read()
    assert out[0][0] == "GM" and out[0][1][0].startswith("Bad directive: Malformed directive")
    assert out[-1] == buyer.logic.requests[-2] and out[-1][0] == "GP"
    assert "M" not in [c for c, _ in out]
    buyer.answer = True
    buyer.send(buyer.logic.answer(*buyer.logic.requests[-1]))
    play_to_the_end(hall, table, conns)
    check_end(hall, table, conns)


def test_joining_a_game_in_progress_makes_a_spectator_unless_it_is_ones_own_held_seat():
    hall, factory, table, conns, _ = setup_game(["Ann", "Bob"], 25)
    for conn in conns:
        conn.answer = False
    pump_all(conns)
    forced = "I;Spectating game forced;The game has already started, you cannot join as a player."
    late = Conn(factory, "Late", 60)
    late.spectator = True
    late.send("JG;1,-1")
    late.pump()
    assert late.logic.boxes == [forced] and late.logic.states[-2:] == [4, 6]
    check_view(table)(late)
    assert hall.lobby.find("Late").watching
    # Bob's connection drops: his seat is held; an impostor from elsewhere only watches
    conns[1].drop()
    other = Conn(factory, "Bob", 61, host="10.9.9.9")
    assert other.logic.states == [3]                   # not put back into the game at login
    other.send("JG;1,-1")
    other.pump()
    assert other.logic.boxes == [forced]
    assert "held for its player" in other.logic.gm[-1]
    assert table.seats[1].user is None and hall.lobby.find("Bob").watching
    other.send("LV;")
    other.drop()
    # the real Bob, from his own address, gets the seat back
    bob = Conn(factory, "Bob", 62, answer=False)
    bob.spectator = False
    assert bob.logic.states[:2] == [3, 6] and not bob.logic.boxes
    check_view(table)(bob)


def test_joining_a_new_game_from_a_finished_games_window_starts_a_clean_sheet():
    hall, factory, table, conns, _ = setup_game(["Ann", "Bob", "Cy"], 26)
    for conn in conns:
        conn.spectator = False
    play_to_the_end(hall, table, conns)
    ann, bob = conns[0], conns[1]
    assert ann.logic.states[-1] == 6 and len(ann.logic.names()) == 3      # still in the finished game's window
    bob.send("SG;2")                                   # Bob leaves that window for a new game...
    pump_all(conns)
    ann.send("JG;2,-1")                                # ...and Ann joins it straight from hers
    pump_all(conns)
    assert ann.logic.states[-2:] == [3, 4]
    assert ann.logic.names() == bob.logic.names() == ["Bob", "Ann"]
    assert not ann.logic.board and not ann.logic.rack


def _answer_until(conns, table, want, limit=2000):
    """Answer every request by hand until ``want(conn, request)`` holds for the pending one."""
    for _ in range(limit):
        pump_all(conns)
        seat = table.engine.pending_seat()
        conn = conns[seat]
        request = conn.logic.requests[-1]
        if want(conn, request):
            return conn, request
        conn.send(conn.logic.answer(*request))
    raise AssertionError("no such request came")


def test_a_dialog_left_open_by_the_turn_timer_is_not_taken_for_the_next_requests_answer():
    # A purchase dialog open when the timer played, answered on the player's next turn, was
    # accepted as the answer to that turn's purchase (it showed 20 shares when 17 were left).
    hall, _, table, conns, _ = setup_game(["Ann", "Bob"], 17)
    for conn in conns:
        conn.answer = False
        conn.spectator = False
    on_board = lambda conn, request: request[0] == "GP" and any(  # noqa: E731
        table.engine.chain_size(c) for c in NAMES)
    late, request = _answer_until(conns, table, on_board)
    stale = late.logic.answer(*request)               # what its dialog will say, filled in now
    hall.clock.advance(table.game.turn_timeout)       # the timer buys nothing for it
    pump_all(conns)
    assert "Time is up: the host made the default move for you." in late.logic.gm
    purchases = len(late.logic.requests)
    _answer_until(conns, table, lambda conn, req: conn is late and req[0] == "GP"
                  and len(late.logic.requests) > purchases)
    seq = table.seq
    late.send(stale)                                  # the old dialog is answered at last
    out = late.read()
    assert table.seq == seq and table.engine.pending().kind == "purchase"
    assert [p[0] for c, p in out if c == "GM"] == [
        "Not accepted: that answer was to the earlier purchase request, which the turn timer answered "
        "for you; it is not taken as the answer to a later request."]
    assert not [c for c, _ in out if c == "GP"]       # its current dialog is open already
    late.send(late.logic.answer(*late.logic.requests[-1]))
    late.read()
    assert table.seq == seq + 1                       # the current dialog's answer is taken
    for conn in conns:
        conn.answer = True
    play_to_the_end(hall, table, conns)


REQUEST = re.compile(rb"(?:^|;:)(GT|GC|GD|GP);")


def test_a_deciders_update_and_its_request_go_out_in_one_write():
    """The "game" update and the request the table sends right after it (its "decision")
    are one write to the decider, the request once; a paused table asks nobody."""
    hall, _, table, conns, watchers = setup_game(["Ann", "Bob", "Cy"], 31, watchers=["Wes"])
    names = {conn: conn.logic.name.encode() for conn in conns}
    pump_all(conns + watchers, hall, until=lambda: table.seq >= 40)
    with_update = 0
    for conn in conns:
        for chunk in conn.transport.writes:
            requests = REQUEST.findall(chunk)
            assert len(requests) <= 1, chunk                  # never a request twice
            if requests and b"*Waiting for " + names[conn] in chunk and b"SV;frmScoreSheet" in chunk:
                with_update += 1
    assert with_update >= 30
    # paused: the decider's update comes, its request only when the table goes on
    for conn in conns + watchers:
        conn.read()                                            # whatever is in flight, unanswered
    table.pause()
    engine = table.engine
    seat = engine.pending_seat()
    decision = engine.pending()
    decider = next(c for c in conns if c.logic.name == engine.players[seat])
    if decision.kind == "play_tile":
        reply = f"PT;{engine.racks[seat].index(decision.options['tiles'][0]) + 1}"
    elif decision.kind == "purchase":
        reply = "P;0,0,0,0,0,0,0,0"
    elif decision.kind == "dispose":
        reply = "MD;0,0"
    else:
        reply = f"CS;{CHAIN_CODES[decision.options['chains'][0]]}"
    before = {c: len(c.transport.writes) for c in conns}
    seq = table.seq
    decider.send(reply)
    assert table.seq == seq + 1
    nxt = engine.pending_seat()
    for c in conns:
        assert len(c.transport.writes) == before[c] + 1               # the update
        assert not REQUEST.search(c.transport.writes[-1])             # and no request
    table.resume()
    asked = [c for c in conns if any(REQUEST.search(w) for w in c.transport.writes[before[c] + 1:])]
    assert [c.logic.name for c in asked] == [engine.players[nxt]]


CHAIN_CODES = {"Luxor": 255, "Tower": 65535, "American": 16711680, "Festival": 65280,
               "Worldwide": 16512, "Continental": 16776960, "Imperial": 16711935}
