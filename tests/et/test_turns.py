"""Monuments, treasures, discarding, turns and refills, the end and the final score."""
from __future__ import annotations

import json

import pytest

from gamehall.interfaces import IEngine, IllegalAction
from gamehall_et import board as B
from gamehall_et.engine import Game
from gamehall_et.scoring import final_ranking, with_treasures
from zope.interface.verify import verifyObject

from .helpers import add, at, blank, draw, give, leader, tile, types

PASS = {"pass": {}}


def ladd(colour, x, y):
    return {"leaderadd": {"colour": colour, "x": x, "y": y}}


def build(x, y, a, b):
    return {"build": {"x": x, "y": y, "colours": [a, b]}}


def finish_turn(g):
    while g.pending_seat() == g.active and g.phase == "action":
        g.apply(g.active, PASS)
        if g.action_no == 1:
            break


# ------------------------------------------------------------------ monuments
def square_position():
    g = blank(hands=[{"black": 2}])
    draw(g, 4, 4, "kk", "k")
    draw(g, 10, 10, "ttt")
    draw(g, 2, 4, "r")                                    # the black leader's temple
    leader(g, 0, "black", 3, 4)
    leader(g, 0, "red", 6, 4)
    draw(g, 7, 4, "r")
    return g


def test_monument_question_after_a_square_of_one_colour():
    g = square_position()
    g.apply(0, tile("black", 5, 5))
    d = g.pending()
    assert (d.seat, d.kind) == (0, "monument")
    assert d.options["colour"] == "black" and (d.options["x"], d.options["y"]) == (5, 5)
    assert [c["colours"] for c in d.options["choices"]] == [["black", "red"], ["black", "green"],
                                                           ["black", "blue"]]
    assert {(c["x"], c["y"]) for c in d.options["choices"]} == {(4, 4)}


def test_monument_build_flips_tiles_and_scores_at_end_of_turn():
    g = square_position()
    g.apply(0, tile("black", 5, 5))
    with pytest.raises(IllegalAction, match="top-left"):
        g.apply(0, build(5, 5, "black", "red"))
    with pytest.raises(IllegalAction, match="must be of that colour"):
        g.apply(0, build(4, 4, "green", "red"))
    ev = g.apply(0, build(4, 4, "red", "black"))
    assert ev[0] == {"type": "monument_built", "seat": 0, "x": 4, "y": 4, "colours": ["black", "red"]}
    assert all(at(g, x, y)[0] is None for x in (4, 5) for y in (4, 5))
    assert g.pos.monuments == {2: (B.cell(4, 4), "k")}
    ev = g.apply(0, PASS)                                 # end of turn: 1 black + 1 red
    mon = [e for e in ev if e["type"] == "scored" and e["why"] == "monument"]
    assert [(e["colour"], e["points"]) for e in mon] == [("red", 1), ("black", 1)]


def test_monument_declined_and_a_used_monument_is_unavailable():
    g = square_position()
    g.apply(0, tile("black", 5, 5))
    g.apply(0, {"decline": {}})
    assert g.pos.monuments == {} and at(g, 5, 5)[0] == "k"
    g = square_position()
    g.pos.place_monument(2, B.cell(8, 9), "r")            # black-red is taken
    g.apply(0, tile("black", 5, 5))
    with pytest.raises(IllegalAction, match="not available"):
        g.apply(0, build(4, 4, "black", "red"))
    assert len(g.pending().options["choices"]) == 2


def test_no_monument_question_when_none_with_that_colour_is_left():
    g = square_position()
    for i, (a, b) in enumerate(B.MONUMENTS):
        if "k" in (a, b):
            g.pos.monuments[i] = (B.cell(0, 0), a)        # marked as built (elsewhere)
    g.apply(0, tile("black", 5, 5))
    assert g.pending().kind == "action"


def test_flipped_temples_are_no_longer_temples():
    g = blank(hands=[{"red": 1}])
    draw(g, 4, 4, "rr", "r")
    draw(g, 10, 10, "ttt")
    g.apply(0, tile("red", 5, 5))
    g.apply(0, build(4, 4, "red", "blue"))
    with pytest.raises(IllegalAction, match="next to a red temple"):
        g.apply(0, ladd("black", 4, 3))



def temple_square_position():
    """A red square about to be completed at (4,4)-(5,5): seat 1's king stands next to (4,4)
    only; seat 0's farmer next to (5,4) and to a temple at (7,4) that the monument leaves."""
    g = blank(hands=[{"red": 1}])
    draw(g, 4, 4, "rr", "r")
    draw(g, 7, 4, "r")
    draw(g, 10, 10, "ttt")
    leader(g, 1, "black", 3, 4)
    leader(g, 0, "blue", 6, 4)
    return g


def test_a_monument_over_a_leaders_last_temple_withdraws_it_at_once():
    g = temple_square_position()
    g.apply(0, tile("red", 5, 5))
    ev = g.apply(0, build(4, 4, "red", "blue"))
    assert types(ev)[:2] == ["monument_built", "leader_withdrawn"]
    assert ev[1] == {"type": "leader_withdrawn", "seat": 1, "colour": "black", "x": 3, "y": 4,
                     "why": "monument"}
    assert at(g, 3, 4)[1] is None and "k" in g.leaders_in_hand(1)     # back to its owner
    assert at(g, 6, 4)[1] == (0, "b")                     # (7,4) is still its temple
    assert [e for e in ev if e["type"] == "leader_withdrawn"] == [ev[1]]
    assert g.pending().kind == "action" and g.action_no == 2


def test_after_a_monument_a_catastrophe_elsewhere_withdraws_nobody():
    # only a catastrophe's own cell cuts leaders off: one far away takes no leader with it
    g = temple_square_position()
    g.apply(0, tile("red", 5, 5))
    g.apply(0, build(4, 4, "red", "blue"))
    g.apply(0, PASS)
    ev = g.apply(1, {"catastrophe": {"x": 12, "y": 9}})
    assert "leader_withdrawn" not in types(ev)
    assert at(g, 6, 4)[1] == (0, "b")


# ------------------------------------------------------------------ treasures
def test_trader_takes_all_but_one_corner_treasures_first():
    g = blank(hands=[{}])
    draw(g, 4, 4, "tct")
    draw(g, 10, 10, "t")
    g.apply(0, ladd("green", 5, 5))
    d = g.pending()
    assert (d.seat, d.kind) == (0, "treasure") and d.options["cells"] == [{"x": 5, "y": 4}]
    with pytest.raises(IllegalAction, match="corner treasures"):
        g.apply(0, {"take": {"x": 4, "y": 4}})
    with pytest.raises(IllegalAction, match="no treasure"):
        g.apply(0, {"take": {"x": 10, "y": 10}})
    ev = g.apply(0, {"take": {"x": 5, "y": 4}})
    assert ev == [{"type": "treasure_taken", "seat": 0, "x": 5, "y": 4}]
    assert g.pending().options["cells"] == [{"x": 4, "y": 4}, {"x": 6, "y": 4}]
    g.apply(0, {"take": {"x": 6, "y": 4}})
    assert g.wild[0] == 2 and g.pos.treasure[B.cell(4, 4)] == 1
    assert g.pending().kind == "action" and g.action_no == 2


def test_treasure_goes_to_the_trader_owner_not_the_active_player():
    g = blank(hands=[{"red": 1}, {}])
    draw(g, 4, 4, "t.t")
    draw(g, 10, 10, "ttt")
    leader(g, 1, "green", 4, 5)
    g.apply(0, tile("red", 5, 4))                         # joins the region holding (6,4)
    assert g.pending_seat() == 1 and g.pending().kind == "treasure"
    g.apply(1, {"take": {"x": 6, "y": 4}})
    assert g.wild == [0, 1] and g.pending_seat() == 0


# ------------------------------------------------------------------ discarding and turns
def test_discard_draws_replacements_at_once():
    g = blank(hands=[{"red": 3, "green": 1}])
    left = g.bag_left
    with pytest.raises(IllegalAction, match="at least one"):
        g.apply(0, {"discard": {"red": 0, "green": 0, "blue": 0, "black": 0}})
    with pytest.raises(IllegalAction, match="only 1 green"):
        g.apply(0, {"discard": {"red": 0, "green": 2, "blue": 0, "black": 0}})
    with pytest.raises(IllegalAction, match="needs"):
        g.apply(0, {"discard": {"red": 1}})
    ev = g.apply(0, {"discard": {"red": 2, "green": 0, "blue": 0, "black": 0}})
    assert types(ev)[:2] == ["discarded", "drew"] and ev[0]["count"] == 2
    assert g.hand_size(0) == 4 and g.bag_left == left - 2 and g.out["r"] == 2


def test_two_actions_then_every_player_refills_to_six():
    g = Game.new(["a", "b", "c"], seed=5)
    left = g.bag_left
    for _ in range(2):
        act = next(a for a in g.legal_actions() if "tile" in a)
        g.apply(0, act)
        while g.phase != "action" and not g.is_over():
            g.apply(g.pending_seat(), g.timeout_action(g.pending_seat()))
    assert g.active == 1 and g.action_no == 1
    assert [g.hand_size(s) for s in range(3)] == [6, 6, 6]
    assert g.bag_left == left - 2


def test_refill_after_a_conflict_the_active_player_first():
    g = Game.new(["a", "b"], seed=2)
    g.pos = blank().pos
    draw(g, 4, 4, "rrr")
    draw(g, 10, 10, "ttt")
    leader(g, 1, "black", 4, 5)
    give(g, 0, red=3, green=3, blue=0, black=0)
    give(g, 1, red=3, green=3, blue=0, black=0)
    g.apply(0, ladd("black", 6, 3))
    g.apply(0, add("red", 2))
    g.apply(1, add("red", 3))
    ev = g.apply(0, PASS)
    draws = [(e["seat"], e["count"]) for e in ev if e["type"] == "drew"]
    assert draws == [(0, 2), (1, 3)]
    assert g.hand_size(0) == g.hand_size(1) == 6


# ------------------------------------------------------------------ the end
def test_game_ends_at_end_of_turn_with_two_treasures_left():
    g = blank()
    draw(g, 10, 10, "ttt")
    g.apply(0, PASS)
    g.apply(0, PASS)
    assert not g.is_over()
    g = blank()
    draw(g, 10, 10, "tt")
    g.apply(0, PASS)
    assert not g.is_over()                                # only at the end of the turn
    ev = g.apply(0, PASS)
    assert g.is_over() and g.end_reason == "treasures" and ev[-1]["type"] == "game_over"
    assert g.pending_seat() is None and g.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        g.apply(0, PASS)


def test_game_ends_at_once_when_a_draw_needs_more_than_the_bag():
    g = blank(hands=[{"red": 3}])
    draw(g, 10, 10, "ttt")
    g._bag_pos = len(g._bag) - 2
    g.apply(0, {"discard": {"red": 2, "green": 0, "blue": 0, "black": 0}})   # exactly empties it
    assert not g.is_over() and g.bag_left == 0
    ev = g.apply(0, {"discard": {"red": 1, "green": 0, "blue": 0, "black": 0}})
    assert g.is_over() and g.end_reason == "bag_empty" and ev[-1]["type"] == "game_over"


def test_a_discard_the_bag_cannot_replace_draws_what_is_left_then_ends_the_game():
    # the tiles left were not drawn: the discarding hand ended 2 short of what the bag still held
    g = blank(hands=[{"red": 3, "green": 2}])
    draw(g, 10, 10, "ttt")
    g._bag_pos = len(g._bag) - 2
    before = g.hand_size(0)
    ev = g.apply(0, {"discard": {"red": 3, "green": 0, "blue": 0, "black": 0}})
    assert types(ev)[:2] == ["discarded", "drew"] and ev[1] == {"type": "drew", "seat": 0, "count": 2}
    assert g.hand_size(0) == before - 3 + 2 and g.bag_left == 0
    assert g.is_over() and g.end_reason == "bag_empty" and ev[-1]["type"] == "game_over"


def test_refill_that_cannot_be_drawn_ends_the_game():
    g = blank(hands=[{"red": 6}, {"red": 6}])
    draw(g, 10, 10, "ttt")
    g._bag_pos = len(g._bag)
    g.apply(0, tile("red", 4, 4))
    g.apply(0, PASS)
    assert g.is_over() and g.end_reason == "bag_empty"


# ------------------------------------------------------------------ final score
def test_treasures_go_one_at_a_time_to_the_weakest_colour():
    assert with_treasures({"r": 3, "g": 1, "b": 5, "k": 2}, 0) == [1, 2, 3, 5]
    assert with_treasures({"r": 3, "g": 1, "b": 5, "k": 2}, 2) == [2, 3, 3, 5]
    assert with_treasures({"r": 0, "g": 0, "b": 0, "k": 0}, 5) == [1, 1, 1, 2]


def test_weakest_colour_wins_ties_broken_by_the_next_and_shared_when_equal():
    s = [{"r": 4, "g": 2, "b": 9, "k": 3},     # 2 3 4 9
         {"r": 2, "g": 5, "b": 2, "k": 2},     # 2 2 2 5
         {"r": 3, "g": 2, "b": 4, "k": 9},     # 2 3 4 9: ties with seat 0
         {"r": 1, "g": 1, "b": 1, "k": 1}]     # + 2 treasures: 1 1 2 2
    vectors, positions = final_ranking(s, [0, 0, 0, 2])
    assert positions == [1, 3, 1, 4]
    assert vectors[3] == [1, 1, 2, 2]


def test_game_over_reports_final_scores_and_winners():
    g = blank()
    draw(g, 10, 10, "tt")
    g.scores[0].update(r=3, g=3, b=3, k=2)
    g.scores[1].update(r=5, g=5, b=1, k=5)
    g.wild[1] = 2
    g.apply(0, PASS)
    ev = g.apply(0, PASS)
    over = ev[-1]
    assert over["winners"] == [1]                        # seat 1: blue 1 + 2 treasures = 3
    assert [f["score"] for f in over["final"]] == [2, 3]
    assert over["final"][0]["vector"] == [2, 3, 3, 3] and over["final"][1]["vector"] == [3, 5, 5, 5]
    assert over["final"][1]["colours"] == {"red": 5, "green": 5, "blue": 1, "black": 5}
    assert g.result() == {"scores": [2, 3], "winners": [1], "positions": [2, 1], "reason": "treasures"}


# ------------------------------------------------------------------ interface, state, records
def test_engine_provides_iengine():
    assert verifyObject(IEngine, Game.new(["a", "b"], seed=1))


def test_state_round_trip_in_the_middle_of_a_war():
    from .test_conflicts import one_colour_war
    g = one_colour_war()
    g.apply(0, tile("green", 7, 4))
    g.apply(0, {"resolve": {"colour": "green"}})
    g.apply(1, add("green", 1))
    d = json.loads(json.dumps(g.to_dict()))
    h = Game.from_dict(d)
    assert h.to_dict() == g.to_dict()
    assert h.apply(2, add("green", 0)) == g.apply(2, add("green", 0))
    assert h.to_dict() == g.to_dict()
