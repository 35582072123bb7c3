"""The et codec: every message of the protocol text, both directions, exact spelling and order."""
from __future__ import annotations

import pytest

from gamehall_et import board as B
from gamehall_et.position import Position
from gamehall_et.wire import codec as C

# (line as on the wire, kind, fields) -- one or more per server message of the protocol text
SERVER_LINES = [
    ("welcome 7", "welcome", {"id": 7}),
    ("newconn 8", "newconn", {"id": 8}),
    ("name 8 bob", "name", {"id": 8, "name": "bob"}),
    ("who 2 7 ann 8 bob", "who", {"users": [(7, "ann"), (8, "bob")]}),
    ("who 0", "who", {"users": []}),
    ("say 8 bob: hello, all of you", "say", {"id": 8, "name": "bob", "text": "hello, all of you"}),
    ("note bob takes a treasure", "note", {"text": "bob takes a treasure"}),
    ("ERROR that cell is not empty", "ERROR", {"text": "that cell is not empty"}),
    ("outconn 8", "outconn", {"id": 8}),
    ("password-confirm s3cret", "password-confirm", {"pwd": "s3cret"}),
    ("takeover-confirm 7", "takeover-confirm", {"id": 7}),
    ("state asked 3 7 ann 8 bob 9 cy", "state asked", {"users": [(7, "ann"), (8, "bob"), (9, "cy")]}),
    ("state connected", "state connected", {}),
    ("state accepted", "state accepted", {}),
    ("accepts 8 bob", "accepts", {"id": 8, "name": "bob"}),
    ("declines 9 cy", "declines", {"id": 9, "name": "cy"}),
    ("state commence", "state commence", {}),
    ("playorder 8 7 9", "playorder", {"ids": [8, 7, 9]}),
    ("board! 3 4 #r0-", "board!", {"x": 3, "y": 4, "cell": "#r0-"}),
    ("hand tile red 2 green 1 blue 0 black 3 leader red 1 green 1 blue 0 black 1 catastrophe 2", "hand",
     {"red": 2, "green": 1, "blue": 0, "black": 3, "leader_red": 1, "leader_green": 1, "leader_blue": 0,
      "leader_black": 1, "catastrophe": 2}),
    ("score wild 1 red 4 green 2 blue 0 black 5", "score",
     {"wild": 1, "red": 4, "green": 2, "blue": 0, "black": 5}),
    ("otherhand 2 tile 6 leader red 0 green 1 blue 1 black 1 catastrophe 1", "otherhand",
     {"player": 2, "tiles": 6, "red": 0, "green": 1, "blue": 1, "black": 1, "catastrophes": 1}),
    ("otherscore+ 1 wild 0 red 0 green 3 blue 0 black 0", "otherscore+",
     {"player": 1, "wild": 0, "red": 0, "green": 3, "blue": 0, "black": 0}),
    ("state playeraction 1 2", "state playeraction", {"player": 1, "action": 2}),
    ("ask action", "ask action", {}),
    ("state internal 0 2 black", "state internal", {"attacker": 0, "defender": 2, "colour": "black"}),
    ("ask add red", "ask add", {"colour": "red"}),
    ("state internaldef 0 2 black 3", "state internaldef",
     {"attacker": 0, "defender": 2, "colour": "black", "added": 3}),
    ("ask external blue black", "ask external", {"colours": ["blue", "black"]}),
    ("state external 1 2 green", "state external", {"attacker": 1, "defender": 2, "colour": "green"}),
    ("state externaldef 1 2 green 0", "state externaldef",
     {"attacker": 1, "defender": 2, "colour": "green", "added": 0}),
    ("ask monument black 5 5 red green blue", "ask monument",
     {"colour": "black", "x": 5, "y": 5, "colours": ["red", "green", "blue"]}),
    ("state treasureask 3", "state treasureask", {"player": 3}),
    ("ask treasure", "ask treasure", {}),
    ("state gameover", "state gameover", {}),
    ("finalscore player 2 wild 1 red 4 green 5 blue 6 black 7 position 1", "finalscore",
     {"player": 2, "wild": 1, "red": 4, "green": 5, "blue": 6, "black": 7, "position": 1}),
]

CLIENT_LINES = [
    ("name ann", "name", {"name": "ann"}),
    ("who", "who", {}),
    ("say hello there", "say", {"text": "hello there"}),
    ("quit", "quit", {}),
    ("password s3cret", "password", {"pwd": "s3cret"}),
    ("takeover 7 s3cret", "takeover", {"id": 7, "pwd": "s3cret"}),
    ("ask 8 9 - e+t", "ask", {"a": 8, "b": 9, "c": None}),
    ("ask 8 - - e+t restore 12", "ask", {"a": 8, "b": None, "c": None, "game": "12"}),
    ("accept", "accept", {}),
    ("decline", "decline", {}),
    ("board", "board", {}),
    ("ansiboard", "ansiboard", {}),
    ("hand", "hand", {}),
    ("score", "score", {}),
    ("abort", "abort", {}),
    ("pass", "pass", {}),
    ("discard red 1 green 0 blue 2 black 0", "discard", {"red": 1, "green": 0, "blue": 2, "black": 0}),
    ("leaderadd green 4 5", "leaderadd", {"colour": "green", "x": 4, "y": 5}),
    ("leadermove 4 5 8 5", "leadermove", {"x": 4, "y": 5, "to_x": 8, "to_y": 5}),
    ("leadertake 8 5", "leadertake", {"x": 8, "y": 5}),
    ("catastrophe 3 3", "catastrophe", {"x": 3, "y": 3}),
    ("tile blue 3 3", "tile", {"colour": "blue", "x": 3, "y": 3}),
    ("add red 2", "add", {"colour": "red", "n": 2}),
    ("resolve black", "resolve", {"colour": "black"}),
    ("build 4 4 black red", "build", {"x": 4, "y": 4, "colour1": "black", "colour2": "red"}),
    ("take 5 4", "take", {"x": 5, "y": 4}),
]


@pytest.mark.parametrize("line, kind, fields", SERVER_LINES)
def test_every_server_message_both_ways(line, kind, fields):
    assert C.decode_server(line) == C.Message(kind, fields)
    assert C.encode_server(kind, **fields) == line


@pytest.mark.parametrize("line, kind, fields", CLIENT_LINES)
def test_every_client_command_both_ways(line, kind, fields):
    assert C.decode_client(line) == C.Message(kind, fields)
    assert C.encode_client(kind, **fields) == line


def test_every_template_is_exercised():
    assert {k for _, k, _ in SERVER_LINES} | {"board"} == set(C.SERVER)
    assert {k for _, k, _ in CLIENT_LINES} == set(C.CLIENT)


@pytest.mark.parametrize("line, why", [
    ("", "empty"), ("fly 3", "unknown client command"), ("tile purple 3 4", "red, green, blue or black"),
    ("tile red 3", "missing y"), ("tile red 3 4 5", "too many words"), ("tile red -3 4", "whole number"),
    ("ask 3 e+t", "connection id"), ("ask 3 4 5 chess", r"expected 'e\+t'"),
    ("discard red 1 green 2", "expected 'blue'"), ("add red many", "whole number"),
    ("say \x1b[2J", "control characters"), ("x" * 600, "too long"), ("leadermove 1 2 3", "missing to_y"),
    ("Tile red 3 4", "unknown client command"),
])
def test_bad_client_lines_get_a_reason(line, why):
    with pytest.raises(C.CodecError, match=why):
        C.decode_client(line)


def test_encode_refuses_what_cannot_be_sent():
    with pytest.raises(C.CodecError):
        C.encode_server("note", text="two\r\nlines")
    with pytest.raises(C.CodecError):
        C.encode_server("ask add", colour="purple")
    with pytest.raises(C.CodecError):
        C.encode_server("welcome", id=-1)
    with pytest.raises(C.CodecError):
        C.encode_server("who", users=[(1, "two words")])
    with pytest.raises(C.CodecError):
        C.encode_server("nonsense")


# ------------------------------------------------------------------ board cells
def test_cell_codes_of_every_kind():
    pos = Position.standard()
    cell = B.cell
    assert C.cell_code(pos, cell(0, 0)) == ".-.."
    assert C.cell_code(pos, cell(4, 0)) == ".b.."
    assert C.cell_code(pos, cell(10, 0)) == "#r1-"
    assert C.cell_code(pos, cell(1, 1)) == "#r2-"                  # a corner treasure
    pos.tile[cell(3, 3)] = "b"
    assert C.cell_code(pos, cell(3, 3)) == "#b0b"
    pos.leader[cell(2, 2)] = (3, "g")
    assert C.cell_code(pos, cell(2, 2)) == "&g3."
    pos.catastrophe[cell(0, 5)] = True
    assert C.cell_code(pos, cell(0, 5)) == "!..."
    pos.tile[cell(9, 9)] = "k"
    assert C.cell_code(pos, cell(9, 9), conflict_cell=cell(9, 9)) == "=k.."
    for c in (cell(6, 3), cell(7, 3), cell(6, 4), cell(7, 4)):
        pos.tile[c] = "k"
    pos.treasure[cell(7, 4)] = 1
    pos.place_monument(2, cell(6, 3), "k")                         # red-black, on black tiles
    assert C.cell_code(pos, cell(6, 3)) == "^kr0" and C.cell_code(pos, cell(7, 4)) == "^kr1"


def test_board_message_of_the_standard_board_round_trips():
    pos = Position.standard()
    cells = C.board_cells(pos)
    assert len(cells) == 4 * 16 * 11
    line = C.encode_server("board", width=16, height=11, cells=cells)
    msg = C.decode_server(line)
    rows = C.parse_board(msg.args["width"], msg.args["height"], msg.args["cells"])
    assert rows[0][10] == {"kind": "tile", "colour": "red", "treasure": 1, "space": "-"}
    assert rows[0][4] == {"kind": "empty", "space": "b"}
    temples = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c["kind"] == "tile"]
    assert len(temples) == 10
    with pytest.raises(C.CodecError):
        C.parse_board(16, 11, cells[:-4])
    with pytest.raises(C.CodecError):
        C.parse_cell("#x0-")


def test_a_refused_line_leaves_no_cycle_for_the_collector():
    """The error kept from the templates tried (the last form's usage) is raised from a frame
    that held it: exception -> traceback -> frame -> exception, a cycle per refused line for
    the collector's full passes, which the hall makes rare (gamehall.tap.settle_collector)."""
    import gc

    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for line in ("tile purple 3 4", "tile red 3", "add red many"):
            try:
                C.decode_client(line)
            except C.CodecError:
                pass
        gc.collect()
        left = [type(o).__qualname__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        del gc.garbage[:]
    assert left == []
