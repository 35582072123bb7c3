"""Revolts and wars, each rule on a small hand-made position."""
from __future__ import annotations

import pytest

from gamehall.interfaces import IllegalAction
from gamehall_et import board as B
from gamehall_et.conflicts import attacker_first

from .helpers import add, at, blank, draw, leader, points, tile, types


def ladd(colour, x, y):
    return {"leaderadd": {"colour": colour, "x": x, "y": y}}


def revolt_position():
    """Seat 1's king at (4,5) next to one temple; seat 0 brings its king next to (6,4)."""
    g = blank(hands=[{"red": 2, "black": 1}, {"red": 1}])
    draw(g, 4, 4, "rrr")
    leader(g, 1, "black", 4, 5)
    return g


# ------------------------------------------------------------------ revolts
def test_revolt_starts_when_a_leader_enters_a_kingdom_with_its_colour():
    g = revolt_position()
    ev = g.apply(0, ladd("black", 6, 3))
    assert ev[-1] == {"type": "revolt", "attacker": 0, "defender": 1, "colour": "black", "x": 6, "y": 3}
    d = g.pending()
    assert (d.seat, d.kind) == (0, "add")
    assert d.options["colour"] == "red" and d.options["conflict"] == "revolt" and d.options["max"] == 2


def test_revolt_commits_red_tiles_whatever_the_leader_colour():
    g = revolt_position()
    g.apply(0, ladd("black", 6, 3))
    with pytest.raises(IllegalAction, match="red tiles"):
        g.apply(0, add("black", 1))
    with pytest.raises(IllegalAction, match="only 2"):
        g.apply(0, add("red", 3))
    with pytest.raises(IllegalAction, match="not your decision"):
        g.apply(1, add("red", 0))


def test_revolt_tie_goes_to_the_defender_and_committed_tiles_are_discarded():
    g = revolt_position()
    g.apply(0, ladd("black", 6, 3))                       # 1 temple each
    ev = g.apply(0, add("red", 1))
    assert ev == [{"type": "committed", "seat": 0, "colour": "red", "n": 1, "attacker": True}]
    assert g.pending_seat() == 1 and g.pending().options["attacker_added"] == 1
    ev = g.apply(1, add("red", 1))                        # 2 - 2
    won = next(e for e in ev if e["type"] == "conflict_won")
    assert won["winner"] == 1 and won["strength"] == [2, 2]
    assert at(g, 6, 3)[1] is None and at(g, 4, 5)[1] == (1, "k")
    assert "k" in g.leaders_in_hand(0)
    assert points(g, 1)["red"] == 1 and points(g, 0)["red"] == 0
    assert g.hands[0]["r"] == 1 and g.hands[1]["r"] == 0 and g.out["r"] == 2


def test_revolt_strength_counts_temples_next_to_each_leader():
    g = revolt_position()
    g.apply(0, ladd("black", 5, 3))                       # next to (5,4) only: 1 temple
    g.apply(0, add("red", 2))                             # 3
    ev = g.apply(1, add("red", 1))                        # 1 + 1 = 2
    won = next(e for e in ev if e["type"] == "conflict_won")
    assert won["winner"] == 0 and won["strength"] == [3, 2]
    assert at(g, 4, 5)[1] is None and at(g, 5, 3)[1] == (0, "k")
    assert points(g, 0)["red"] == 1
    g = blank()
    draw(g, 4, 4, "r", "r")                                # two temples beside (5,4)?  no: beside (3,4)
    from gamehall_et.conflicts import revolt_strength
    assert revolt_strength(g.pos, B.cell(3, 4)) == 1 and revolt_strength(g.pos, B.cell(3, 5)) == 1
    draw(g, 2, 4, "r")
    assert revolt_strength(g.pos, B.cell(3, 4)) == 2


def test_moving_a_leader_into_a_kingdom_with_its_colour_is_a_revolt():
    g = revolt_position()
    draw(g, 9, 4, "r")
    leader(g, 0, "black", 9, 5)
    ev = g.apply(0, {"leadermove": {"x": 9, "y": 5, "to_x": 6, "to_y": 3}})
    assert ev[-1]["type"] == "revolt" and g.pending().kind == "add"


# ------------------------------------------------------------------ wars
def one_colour_war():
    """Seat 1's trader (2 green on its side) against seat 2's (1 green); seat 0 unites them."""
    g = blank(n=3, hands=[{"green": 1}, {"green": 2}, {"green": 1}])
    draw(g, 4, 4, "rgg.rg")
    leader(g, 1, "green", 4, 5)
    leader(g, 2, "green", 8, 5)
    return g


def test_war_attacker_is_first_in_play_order_from_the_active_player():
    assert attacker_first((2, 1), [0, 1, 2], 0) == (1, 2)
    assert attacker_first((2, 1), [0, 1, 2], 2) == (2, 1)
    assert attacker_first((0, 1), [0, 1, 2, 3], 2) == (0, 1)


def test_war_asks_the_active_player_even_for_one_colour_then_attacker_then_defender():
    g = one_colour_war()
    ev = g.apply(0, tile("green", 7, 4))
    assert ev[0]["unites"] and "scored" not in types(ev)
    assert ev[-1] == {"type": "war_pending", "seat": 0, "colours": ["green"]}
    assert g.pending().kind == "resolve" and g.pending().options == {"colours": ["green"]}
    with pytest.raises(IllegalAction, match="not in conflict"):
        g.apply(0, {"resolve": {"colour": "red"}})
    ev = g.apply(0, {"resolve": {"colour": "green"}})
    assert ev == [{"type": "war", "attacker": 1, "defender": 2, "colour": "green"}]
    assert g.strengths() == (2, 1)                        # the uniting tile counts for nobody
    assert g.pending_seat() == 1 and g.pending().options["colour"] == "green"


def test_war_defender_wins_ties_loser_loses_leader_and_tiles_winner_scores_them():
    g = one_colour_war()
    g.apply(0, tile("green", 7, 4))
    g.apply(0, {"resolve": {"colour": "green"}})
    g.apply(1, add("green", 0))
    ev = g.apply(2, add("green", 1))                      # 2 - 2: the defender (seat 2) wins
    removed = sorted((e["x"], e["y"]) for e in ev if e["type"] == "tile_removed")
    assert removed == [(5, 4), (6, 4)]
    assert at(g, 4, 5)[1] is None and at(g, 8, 5)[1] == (2, "g")
    assert at(g, 7, 4)[0] == "g"                          # the uniting tile stays
    assert at(g, 4, 4)[0] == "r"                          # other colours stay
    assert points(g, 2)["green"] == 3                     # 2 tiles + the leader
    assert g.pending().kind == "action" and g.action_no == 2


def test_war_attacker_win():
    g = one_colour_war()
    g.apply(0, tile("green", 7, 4))
    g.apply(0, {"resolve": {"colour": "green"}})
    g.apply(1, add("green", 1))
    ev = g.apply(2, add("green", 1))                      # 3 - 2
    assert next(e for e in ev if e["type"] == "conflict_won")["winner"] == 1
    assert at(g, 9, 4)[0] is None and at(g, 8, 5)[1] is None
    assert points(g, 1)["green"] == 2


def two_colour_war():
    g = blank(n=3, hands=[{"red": 1}, {}, {}])
    draw(g, 3, 4, "kr.rb")
    leader(g, 1, "black", 4, 5)
    leader(g, 1, "blue", 4, 3)
    leader(g, 2, "black", 6, 5)
    leader(g, 2, "blue", 6, 3)
    return g


def test_war_over_two_colours_in_the_order_the_active_player_chooses():
    g = two_colour_war()
    ev = g.apply(0, tile("red", 5, 4))
    assert ev[-1]["colours"] == ["blue", "black"]
    g.apply(0, {"resolve": {"colour": "black"}})
    g.apply(1, add("black", 0))
    ev = g.apply(2, add("black", 0))                      # 1 - 0: seat 1 wins black
    assert at(g, 6, 5)[1] is None and points(g, 1)["black"] == 1
    assert ev[-1] == {"type": "war_pending", "seat": 0, "colours": ["blue"]}
    g.apply(0, {"resolve": {"colour": "blue"}})
    g.apply(1, add("blue", 0))
    g.apply(2, add("blue", 0))                            # 0 - 1: seat 2 wins blue
    assert at(g, 4, 3)[1] is None and points(g, 2)["blue"] == 1
    assert g.pending().kind == "action" and g.war is None


def test_red_war_keeps_treasure_temples_and_temples_touching_another_leader_and_cuts_off():
    """Seat 1 loses the red war: (3,4) keeps its treasure, (2,4) touches seat 1's trader and
    stays, (4,4) goes; the trader is then cut off and the green war is not fought."""
    g = blank(n=3, hands=[{"black": 1}, {}, {"red": 1}])
    draw(g, 2, 4, "rtr.rr")
    leader(g, 1, "green", 2, 3)            # next to (2,4): another leader than the loser
    leader(g, 1, "red", 4, 5)
    leader(g, 2, "red", 6, 5)
    leader(g, 2, "green", 7, 3)
    g.apply(0, tile("black", 5, 4))
    assert g.pending().options["colours"] == ["red", "green"]
    g.apply(0, {"resolve": {"colour": "red"}})
    assert g.strengths() == (3, 2)
    g.apply(1, add("red", 0))
    ev = g.apply(2, add("red", 1))                        # 3 - 3: seat 2 defends
    assert [(e["x"], e["y"]) for e in ev if e["type"] == "tile_removed"] == [(4, 4)]
    assert at(g, 2, 4)[0] == "r" and at(g, 3, 4)[0] == "r" and g.pos.treasure[B.cell(3, 4)]
    assert points(g, 2)["red"] == 2
    # (4,4) is gone, so seat 1's trader no longer touches the uniting tile: no green war
    assert "war_pending" not in types(ev) and g.war is None
    assert at(g, 2, 3)[1] == (1, "g")
    assert g.pending().kind == "action"


def test_a_war_tile_may_still_complete_a_monument():
    g = blank(n=2, hands=[{"green": 1}, {}])
    draw(g, 4, 4, "rg", ".gg")
    leader(g, 0, "green", 3, 4)
    draw(g, 6, 3, "r")
    leader(g, 1, "green", 6, 2)
    g.apply(0, tile("green", 6, 4))
    assert g.pending().kind == "resolve"
    g.apply(0, {"resolve": {"colour": "green"}})
    g.apply(0, add("green", 0))
    g.apply(1, add("green", 0))                           # 3 - 0: seat 0 wins, nothing of its lost
    assert g.pending().kind == "monument"
    assert {c["x"] for c in g.pending().options["choices"]} == {5}
