"""Bots: legal, deterministic, and the strong bot's choices on small positions."""
from __future__ import annotations

import pytest

from gamehall_et import board as B
from gamehall_et.bots import RandomBot, StrongBot, make_bot
from gamehall_et.game import EuphratesTigrisGame
from gamehall_et.selfplay import play_game, run

from .helpers import add, blank, draw, leader, tile


@pytest.mark.parametrize("names", [["strong", "random"], ["random", "strong", "random"],
                                   ["strong", "strong", "strong", "strong"]])
def test_bots_play_whole_games_with_legal_actions(names):
    plugin = EuphratesTigrisGame()
    engine = plugin.new_engine("standard", [f"p{i}" for i in range(len(names))], 7)
    n = play_game(engine, [plugin.new_bot(name, i) for i, name in enumerate(names)])
    assert engine.is_over() and n > 20


def test_bots_are_deterministic_for_a_seed():
    a = run(2, 3, 11, ["strong", "random"])
    b = run(2, 3, 11, ["strong", "random"])
    for key in ("bots", "actions", "end_reasons"):
        assert a[key] == b[key]


def test_unknown_bot():
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("clever", 1)
    assert isinstance(make_bot("random", 1), RandomBot)


def test_strong_places_a_tile_where_it_scores_for_its_own_leader():
    g = blank(hands=[{"green": 1}])
    draw(g, 4, 4, "r", "", "", "", "r")
    leader(g, 0, "green", 5, 4)
    leader(g, 1, "green", 5, 8)
    g.catastrophes = [0, 0]
    act = StrongBot(1).choose(g, 0)
    assert "tile" in act
    ev = g.apply(0, act)
    assert any(e["type"] == "scored" and e["seat"] == 0 for e in ev)


def test_strong_defender_commits_just_enough_and_attacker_nothing_hopeless():
    from .test_conflicts import revolt_position
    g = revolt_position()
    g.hands[0]["r"] = 3
    g.hands[1]["r"] = 3
    g.apply(0, {"leaderadd": {"colour": "black", "x": 6, "y": 3}})
    g.apply(0, add("red", 2))                             # 1 + 2 = 3 against 1
    assert StrongBot(1).choose(g, 1) == add("red", 2)      # 1 + 2 = 3: the tie is the defender's
    g = revolt_position()
    g.hands[1]["r"] = 5
    g.apply(0, {"leaderadd": {"colour": "black", "x": 6, "y": 3}})
    g.apply(0, add("red", 2))
    g.hands[1]["r"] = 1                                   # cannot reach 3: keeps its tiles
    assert StrongBot(1).choose(g, 1) == add("red", 0)


def test_strong_builds_a_monument_its_leaders_collect_from_and_takes_treasures():
    from .test_turns import square_position
    g = square_position()
    g.apply(0, tile("black", 5, 5))
    act = StrongBot(1).choose(g, 0)
    assert act["build"]["colours"] == ["black", "red"]      # it has the king and the priest there
    g = blank()
    draw(g, 4, 4, "tct")
    draw(g, 10, 10, "t")
    g.apply(0, {"leaderadd": {"colour": "green", "x": 5, "y": 5}})
    assert StrongBot(1).choose(g, 0) == {"take": {"x": 5, "y": 4}}


def test_strong_sends_its_trader_to_treasures():
    g = blank()
    draw(g, 4, 4, "t.t")
    g.catastrophes = [0, 0]
    act = StrongBot(3).choose(g, 0)
    assert act == {"leaderadd": {"colour": "green", "x": 5, "y": 4}}


def test_strong_beats_random():
    res = run(4, 4, 5, ["strong", "random", "random", "random"])
    assert res["bots"]["strong"]["win_rate"] >= 0.75


def test_strong_moves_its_trader_to_treasures_and_not_back():
    g = blank()
    draw(g, 4, 4, "t.t")
    draw(g, 1, 9, "r")
    leader(g, 0, "green", 2, 9)
    g.catastrophes = [0, 0]
    act = StrongBot(3).choose(g, 0)
    assert act == {"leadermove": {"x": 2, "y": 9, "to_x": 5, "to_y": 4}}
    g.apply(0, act)
    g.apply(0, StrongBot(3).choose(g, 0))                  # the treasure it came for
    assert g.wild[0] == 1 and g.pending().kind == "action"
    assert "leadermove" not in StrongBot(3).choose(g, 0)


def test_strong_moves_a_leader_a_catastrophe_could_cut_off_beside_more_temples():
    g = blank()
    draw(g, 1, 9, "r")                                     # one temple, no treasure
    draw(g, 8, 4, "r.r", ".r.")                            # three temples round (9, 4)
    draw(g, 11, 9, "r.r", ".r.")
    leader(g, 0, "red", 2, 9)
    for colour, x, y in (("green", 12, 9), ("blue", 11, 10), ("black", 13, 10)):
        leader(g, 0, colour, x, y)                         # nothing left in hand to place
    g.catastrophes = [0, 2]
    assert StrongBot(1).choose(g, 0) == {"leadermove": {"x": 2, "y": 9, "to_x": 9, "to_y": 4}}
    g.catastrophes = [0, 0]                                # no catastrophe can come: it stays
    assert "leadermove" not in StrongBot(1).choose(g, 0)


def test_strong_declines_a_monument_that_would_send_its_own_leader_home():
    from .test_turns import temple_square_position
    g = temple_square_position()
    g.pos.leader[B.cell(3, 4)] = (0, "k")                 # its own king, on (4,4) as its only temple
    g.pos.leader[B.cell(6, 4)] = None
    g.apply(0, tile("red", 5, 5))
    assert g.pending().kind == "monument"
    assert StrongBot(1).choose(g, 0) == {"decline": {}}
