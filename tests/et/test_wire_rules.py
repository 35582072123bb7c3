"""Each conflict, monument, treasure and catastrophe message through the wire, on hand-made positions.

The game is started over the wire, then its engine is swapped for a position
from the rule tests (same player names), and the clients play it by commands.
"""
from __future__ import annotations

from gamehall_et.wire.protocol import build_factory

from . import test_conflicts as TC
from . import test_turns as TT
from .harness import Conn, et_hall
from .helpers import blank, draw, leader


def game_of(n, engine_factory):
    hall = et_hall()
    factory = build_factory(hall)
    conns = [Conn(factory) for _ in range(n)]
    for i, c in enumerate(conns):
        c.send(f"name p{i}")
    ids = [str(c.id) for c in conns[1:]] + ["-"] * (4 - n)
    conns[0].send(f"ask {' '.join(ids)} e+t")
    for c in conns[1:]:
        c.send("accept")
    table = next(iter(hall.tables.values()))
    table.engine = engine_factory()
    assert table.engine.players == table.players()
    for c in conns:
        c.lines()
    return hall, table, conns


def test_revolt_over_the_wire():
    hall, table, (a, b) = game_of(2, TC.revolt_position)
    out_a = a.send("leaderadd black 6 3")
    assert "state internal 0 1 black" in out_a and out_a[-1] == "ask add red"
    assert "state internal 0 1 black" in b.lines()
    assert a.send("add black 1")[0].startswith("ERROR")         # a revolt takes red
    a.send("add red 1")
    out_b = b.lines()
    assert "state internaldef 0 1 black 1" in out_b and out_b[-1] == "ask add red"
    b.send("add red 1")
    out_a = a.lines()
    assert any("wins the revolt" in line for line in out_a)
    assert "board! 6 3 .-.." in out_a                         # the attacker's king withdrawn
    assert "state playeraction 0 2" in out_a and out_a[-1] == "ask action"
    assert any(line.startswith("otherscore+ 1 wild 0 red 1 ") for line in out_a)


def test_war_over_two_colours_with_the_order_chosen_over_the_wire():
    hall, table, (a, b, c) = game_of(3, TC.two_colour_war)
    out = a.send("tile red 5 4")
    assert "board! 5 4 =r.." in out and out[-1] == "ask external blue black"
    out = a.send("resolve black")
    assert "state external 1 2 black" in out
    assert b.lines()[-1] == "ask add black"
    b.send("add black 0")
    out_c = c.lines()
    assert "state externaldef 1 2 black 0" in out_c and out_c[-1] == "ask add black"
    c.send("add black 0")
    assert a.lines()[-1] == "ask external blue"
    a.send("resolve blue")
    b.send("add blue 0")
    c.send("add blue 0")
    out = a.lines()
    assert "board! 5 4 #r0-" in out                           # the uniting tile, no longer in conflict
    assert out[-1] == "ask action"


def test_catastrophe_monument_and_treasure_over_the_wire():
    def position():
        g = TT.square_position()
        draw(g, 9, 2, "t.c")
        draw(g, 12, 10, "t")
        leader(g, 1, "blue", 9, 1)
        return g
    hall, table, (a, b) = game_of(2, position)
    out = a.send("tile black 5 5")
    assert out[-1] == "ask monument black 5 5 red green blue"
    out = a.send("build 5 5 black red")
    assert out[0].startswith("ERROR") and out[-1] == "ask monument black 5 5 red green blue"
    out = a.send("build 4 4 black red")
    assert "board! 4 4 ^kr0" in out and "board! 5 5 ^kr0" in out and out[-1] == "ask action"
    out = a.send("leaderadd green 10 2")                       # between two treasures
    assert "state treasureask 0" in out and out[-1] == "ask treasure"
    out = a.send("take 9 2")
    assert out[0].startswith("ERROR") and out[-1] == "ask treasure"   # the corner one first
    out = a.send("take 11 2")
    assert "board! 11 2 #r0-" in out
    assert any(line.startswith("score wild 1 ") for line in out)
    b.lines()
    out = b.send("catastrophe 9 2")
    assert out[0].startswith("ERROR")                          # a treasure
    table.engine.pos.treasure[2 * 16 + 9] = 0                  # (as if taken) to show the withdrawal
    out = b.send("catastrophe 9 2")
    assert "board! 9 2 !..." in out and "board! 9 1 .-.." in out   # its own farmer cut off


def test_operator_puts_a_bot_into_an_et_seat():
    hall, table, (a, b) = game_of(2, lambda: blank())
    hall.put_bot(table.id, 2)
    assert table.seats[1].kind == "bot"
    assert any("bot now plays" in line for line in a.lines())
