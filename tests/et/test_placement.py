"""Board data, setup, and where leaders, tiles and catastrophes may go."""
from __future__ import annotations

import pytest

from gamehall.interfaces import IllegalAction
from gamehall_et import board as B
from gamehall_et.engine import Game, standard_bag
from gamehall_et.kingdoms import Groups

from .helpers import at, blank, draw, leader, points, tile, types


def refused(g, seat, action, reason):
    before = g.to_dict()
    with pytest.raises(IllegalAction, match=reason):
        g.apply(seat, action)
    assert g.to_dict() == before            # nothing changed


def ladd(colour, x, y):
    return {"leaderadd": {"colour": colour, "x": x, "y": y}}


# ------------------------------------------------------------------ the board and setup
def test_standard_board_rivers_temples_and_treasures():
    assert (B.WIDTH, B.HEIGHT) == (16, 11)
    temples = [B.xy(c) for c in B.START_TEMPLES]
    assert temples == [(10, 0), (1, 1), (15, 1), (5, 2), (13, 4), (8, 6), (1, 7), (14, 8), (5, 9), (10, 10)]
    assert sorted(B.xy(c) for c in B.CORNER_TEMPLES) == [(1, 1), (1, 7), (14, 8), (15, 1)]
    assert B.cell(4, 0) in B.RIVER and B.cell(9, 0) not in B.RIVER and B.cell(12, 8) in B.RIVER
    assert not B.RIVER & set(B.START_TEMPLES)
    assert len(B.RIVER) == 41


def test_pieces_153_tiles_143_in_the_bag_and_six_monuments():
    assert B.N_TILES == 153
    bag = standard_bag()
    assert len(bag) == 143 and bag.count("r") == 47 and bag.count("b") == 36
    assert bag.count("g") == 30 and bag.count("k") == 30
    assert len(B.MONUMENTS) == 6 and len(set(map(frozenset, B.MONUMENTS))) == 6


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_hands_leaders_catastrophes(n):
    g = Game.new([f"p{i}" for i in range(n)], seed=3)
    assert [g.hand_size(s) for s in range(n)] == [6] * n
    assert g.bag_left == 143 - 6 * n
    assert all(g.leaders_in_hand(s) == ["r", "g", "b", "k"] for s in range(n))
    assert g.catastrophes == [2] * n
    assert g.pos.treasures_left() == 10
    assert sum(1 for c in range(B.N_CELLS) if g.pos.tile[c] == "r") == 10
    assert g.pending().kind == "action" and g.pending_seat() == 0 and g.action_no == 1


@pytest.mark.parametrize("n", [1, 5])
def test_two_to_four_players(n):
    with pytest.raises(ValueError):
        Game.new([f"p{i}" for i in range(n)], seed=1)


def test_same_seed_same_game():
    a, b = Game.new(["a", "b"], seed=9), Game.new(["a", "b"], seed=9)
    assert a.to_dict() == b.to_dict()
    assert Game.new(["a", "b"], seed=10).to_dict() != a.to_dict()


# ------------------------------------------------------------------ leaders
def test_leader_goes_on_empty_land_next_to_a_red_temple():
    g = blank()
    draw(g, 4, 3, "r")
    refused(g, 0, ladd("black", 8, 4), "next to a red temple")
    refused(g, 0, ladd("black", 4, 3), "not empty")
    refused(g, 0, ladd("black", 3, 3), "land")          # (3,3) is river, next to the temple
    refused(g, 0, ladd("purple", 5, 3), "unknown colour")
    refused(g, 0, ladd("black", 16, 3), "not on the board")
    ev = g.apply(0, ladd("black", 5, 3))
    assert at(g, 5, 3)[1] == (0, "k") and "leader_placed" in types(ev)
    assert g.leaders_in_hand(0) == ["r", "g", "b"]
    refused(g, 0, ladd("black", 4, 4), "already on the board")


def test_leader_may_not_unite_two_kingdoms_but_may_join_a_region():
    g = blank()
    draw(g, 4, 4, "r.r")
    leader(g, 1, "black", 4, 3)
    leader(g, 1, "red", 6, 3)
    refused(g, 0, ladd("green", 5, 4), "unite two kingdoms")
    g = blank()
    draw(g, 4, 4, "r.r")
    leader(g, 1, "black", 4, 3)                         # (6,4) is a region
    g.apply(0, ladd("green", 5, 4))
    groups = Groups(g.pos)
    assert groups.label[B.cell(4, 3)] == groups.label[B.cell(6, 4)]


def test_leader_move_follows_placement_rules():
    g = blank()
    draw(g, 4, 4, "r...r")
    leader(g, 0, "blue", 4, 5)
    leader(g, 1, "red", 3, 4)
    refused(g, 0, {"leadermove": {"x": 3, "y": 4, "to_x": 8, "to_y": 5}}, "no leader there")
    refused(g, 0, {"leadermove": {"x": 4, "y": 5, "to_x": 6, "to_y": 5}}, "next to a red temple")
    refused(g, 0, {"leadermove": {"x": 4, "y": 5, "to_x": 4, "to_y": 5}}, "already there")
    ev = g.apply(0, {"leadermove": {"x": 4, "y": 5, "to_x": 8, "to_y": 5}})
    assert at(g, 4, 5)[1] is None and at(g, 8, 5)[1] == (0, "b")
    assert types(ev)[0] == "leader_moved"


def test_leader_withdrawn_to_hand():
    g = blank()
    draw(g, 4, 4, "r")
    leader(g, 0, "green", 4, 5)
    refused(g, 0, {"leadertake": {"x": 4, "y": 4}}, "no leader there")
    ev = g.apply(0, {"leadertake": {"x": 4, "y": 5}})
    assert at(g, 4, 5)[1] is None and "g" in g.leaders_in_hand(0)
    assert ev[0] == {"type": "leader_withdrawn", "seat": 0, "colour": "green", "x": 4, "y": 5, "why": "taken"}


# ------------------------------------------------------------------ tiles
def test_blue_only_on_rivers_other_colours_only_on_land():
    g = blank(hands=[{"blue": 2, "red": 1}])
    refused(g, 0, tile("blue", 5, 5), "rivers only")
    refused(g, 0, tile("red", 3, 3), "only blue tiles go on the rivers")
    refused(g, 0, tile("green", 5, 5), "no green tile")
    g.apply(0, tile("blue", 3, 3))
    g.apply(0, tile("red", 5, 5))
    assert at(g, 3, 3)[0] == "b" and at(g, 5, 5)[0] == "r"


def test_tile_may_not_unite_three_kingdoms():
    g = blank(hands=[{"red": 2}])
    draw(g, 5, 3, "r")
    leader(g, 0, "black", 5, 2)
    draw(g, 4, 4, "r.r")
    leader(g, 1, "black", 3, 4)
    leader(g, 0, "red", 7, 4)
    refused(g, 0, tile("red", 5, 4), "three kingdoms")
    refused(g, 0, tile("red", 5, 3), "not empty")


def test_tile_scores_for_same_colour_leader_else_king_else_nobody():
    g = blank(n=2, hands=[{"green": 2, "red": 1}])
    draw(g, 4, 4, "r")
    leader(g, 1, "green", 5, 4)
    leader(g, 0, "black", 4, 5)
    ev = g.apply(0, tile("green", 6, 4))                 # seat 1's trader scores it
    assert [e for e in ev if e["type"] == "scored"] == [
        {"type": "scored", "seat": 1, "colour": "green", "points": 1, "why": "tile"}]
    g.apply(0, tile("red", 4, 3))                        # no priest: the king (seat 0) scores it
    assert points(g, 0)["red"] == 1 and points(g, 1)["green"] == 1
    # a region scores nobody; a kingdom with neither that leader nor a king neither
    g = blank(hands=[{"green": 2}])
    draw(g, 8, 4, "r")
    leader(g, 1, "red", 8, 5)
    ev = g.apply(0, tile("green", 4, 9)) + g.apply(0, tile("green", 9, 4))
    assert "scored" not in types(ev)


def test_tile_joining_two_kingdoms_scores_nothing_even_without_war():
    g = blank(hands=[{"red": 1}])
    draw(g, 4, 4, "r.r")
    leader(g, 0, "red", 4, 5)
    leader(g, 1, "blue", 6, 5)
    ev = g.apply(0, tile("red", 5, 4))
    assert ev[0]["unites"] is True
    assert "scored" not in types(ev) and "war_pending" not in types(ev)
    assert g.pending().kind == "action" and g.action_no == 2


# ------------------------------------------------------------------ catastrophes
def test_catastrophe_destroys_a_tile_and_cuts_off_leaders():
    g = blank()
    draw(g, 4, 4, "rgr")
    leader(g, 1, "black", 4, 5)           # next to (4,4) only
    leader(g, 1, "red", 6, 5)             # next to (6,4)
    ev = g.apply(0, {"catastrophe": {"x": 4, "y": 4}})
    assert ev[0] == {"type": "catastrophe", "seat": 0, "x": 4, "y": 4, "removed": "red"}
    assert ev[1]["type"] == "leader_withdrawn" and ev[1]["why"] == "catastrophe"
    assert at(g, 4, 5)[1] is None and at(g, 6, 5)[1] == (1, "r")
    assert g.pos.catastrophe[B.cell(4, 4)] and g.out["r"] == 1 and g.catastrophes[0] == 1


def test_catastrophe_splits_a_kingdom_and_blocks_its_cell():
    g = blank(hands=[{"green": 1}])
    draw(g, 4, 4, "rgr")
    leader(g, 1, "black", 4, 5)
    leader(g, 1, "red", 6, 5)
    groups = Groups(g.pos)
    assert groups.label[B.cell(4, 5)] == groups.label[B.cell(6, 5)]
    g.apply(0, {"catastrophe": {"x": 5, "y": 4}})
    groups = Groups(g.pos)
    assert groups.label[B.cell(4, 5)] != groups.label[B.cell(6, 5)]
    assert len(groups.kingdoms()) == 2
    refused(g, 0, tile("green", 5, 4), "not empty")


def test_catastrophe_never_on_treasure_leader_monument_or_catastrophe_and_only_two():
    g = blank()
    draw(g, 4, 4, "t")
    leader(g, 1, "black", 4, 5)
    g.pos.place_monument(0, B.cell(8, 4), "r")
    draw(g, 10, 10, "ttt")                  # enough treasures for the game to go on
    refused(g, 0, {"catastrophe": {"x": 4, "y": 4}}, "treasure")
    refused(g, 0, {"catastrophe": {"x": 4, "y": 5}}, "leader")
    refused(g, 0, {"catastrophe": {"x": 9, "y": 5}}, "monument")
    g.apply(0, {"catastrophe": {"x": 3, "y": 3}})         # an empty river cell is fine
    refused(g, 0, {"catastrophe": {"x": 3, "y": 3}}, "already")
    g.apply(0, {"catastrophe": {"x": 2, "y": 3}})
    # seat 0's turn is over; come back to it with no catastrophes left
    while g.pending_seat() != 0:
        g.apply(g.pending_seat(), {"pass": {}})
    refused(g, 0, {"catastrophe": {"x": 1, "y": 3}}, "no catastrophe")
