"""The strong bot withdraws a leader (``leadertake``) from a war it expects to lose, and only then.

The positions are hand-made on a blank board (two players, so an opponent's
point counts in full).  Seat 0's trader stands in a small kingdom (a temple,
two green tiles) one empty cell from seat 1's kingdom: a temple, seat 1's
trader and five green tiles.  A tile on that cell starts a war over green
that seat 0 loses unless it holds green tiles: its trader goes back to its
hand either way, but seat 1 would score its two green tiles and the trader
(three points).  Seat 0's other leaders stand in two closed corners (no free
cell beside their temples), so a move of the trader has nowhere safe to go
unless a test adds a temple.
"""
from __future__ import annotations

from gamehall_et.board import cell
from gamehall_et.bots import StrongBot
from gamehall_et.kingdoms import Groups
from gamehall_et.selfplay import run

from .helpers import add, blank, draw, give, leader, tile

SEEDS = range(5)


def war_position(mine_green: int = 0, theirs: str = "ggggg"):
    g = blank()
    draw(g, 2, 4, "ggr")                        # seat 0's side: (2,4) (3,4) green, temple (4,4)
    leader(g, 0, "green", 5, 4)
    leader(g, 1, "green", 7, 4)                 # (6,4) between them is empty
    draw(g, 8, 4, "r" + theirs)                 # seat 1's temple and green tiles
    draw(g, 0, 10, "r")                         # closed corners for seat 0's other leaders
    leader(g, 0, "red", 0, 9)
    leader(g, 0, "blue", 1, 10)
    draw(g, 14, 10, "kr")
    leader(g, 0, "black", 15, 9)
    give(g, 0, green=mine_green)
    g.catastrophes = [0, 0]
    return g


def choices(g, seat: int = 0) -> list[dict]:
    return [StrongBot(s).choose(g, seat) for s in SEEDS]


def test_withdraws_a_leader_from_a_war_it_cannot_win():
    g = war_position()
    assert choices(g) == [{"leadertake": {"x": 5, "y": 4}}] * len(SEEDS)
    ev = g.apply(0, choices(g)[0])
    assert any(e["type"] == "leader_withdrawn" and e["why"] == "taken" for e in ev)
    assert g.pos.leader[cell(5, 4)] is None and "g" in g.leaders_in_hand(0)


def test_the_withdrawal_denies_the_war_points():
    """What it saves: the same uniting tile with the trader left in place scores 3 for seat 1."""
    stay = war_position()
    stay.turn_pos, stay.action_no = 1, 1                  # seat 1 to play
    give(stay, 1, red=1)
    stay.apply(1, tile("red", 6, 4))
    stay.apply(1, {"resolve": {"colour": "green"}})
    stay.apply(1, add("green", 0))
    stay.apply(0, add("green", 0))
    assert stay.scores[1]["g"] == 3 and stay.pos.leader[cell(5, 4)] is None
    gone = war_position()
    gone.apply(0, {"leadertake": {"x": 5, "y": 4}})
    gone.turn_pos, gone.action_no = 1, 1                  # seat 1 to play
    give(gone, 1, red=1)
    gone.apply(1, tile("red", 6, 4))                      # unites, no war
    assert gone.scores[1]["g"] == 0
    assert gone.pos.tile[cell(2, 4)] == "g" and gone.pos.tile[cell(3, 4)] == "g"   # its tiles stay


def test_keeps_the_leader_when_its_hand_wins_the_war():
    g = war_position(mine_green=4)                        # 2 + 4 against 5 + what seat 1 holds
    assert all("leadertake" not in a for a in choices(g))


def test_keeps_the_leader_when_the_other_side_is_weak():
    g = war_position(theirs="g")                          # 2 against 1 + a guess at seat 1's hand
    assert all("leadertake" not in a for a in choices(g))


def test_keeps_the_leader_when_no_tile_can_unite_the_kingdoms():
    g = war_position()
    g.pos.catastrophe[cell(6, 4)] = True                  # the only cell between them is gone
    assert all("leadertake" not in a for a in choices(g))
    assert all(a == {"pass": {}} for a in choices(g))      # it scores nothing there, but nothing is gained


def test_does_not_withdraw_from_a_revolt_worth_one_point():
    """A revolt costs only the red point the winner scores: not worth a leader's place."""
    g = war_position()
    g.pos.catastrophe[cell(6, 4)] = True                  # no war
    draw(g, 3, 5, "r", ".r")                              # (4,5): three temples beside it, ours has one
    (p, points, _), = StrongBot(0)._threats(g, 0, Groups(g.pos)).values()
    assert points == 1 and p > 0                          # it sees the revolt coming
    assert all("leadertake" not in a for a in choices(g))


def test_moves_the_threatened_leader_to_a_safe_place_rather_than_withdrawing_it():
    g = war_position()
    draw(g, 3, 9, "r")                                    # a temple out of the war's reach
    for a in choices(g):
        assert "leadermove" in a, a
        m = a["leadermove"]
        assert (m["x"], m["y"]) == (5, 4)
        assert abs(m["to_x"] - 3) + abs(m["to_y"] - 9) == 1


def test_still_withdraws_when_the_only_other_places_face_a_lost_war_too():
    g = war_position()
    draw(g, 10, 6, "r")            # every cell beside it is one empty cell from seat 1's green tiles
    assert choices(g) == [{"leadertake": {"x": 5, "y": 4}}] * len(SEEDS)


def test_a_scoring_tile_comes_first_then_the_withdrawal():
    g = war_position()
    give(g, 0, black=1)                                   # beside its king at (15,9) it scores
    first = StrongBot(0).choose(g, 0)
    assert "tile" in first and (first["tile"]["x"], first["tile"]["y"]) in ((14, 9), (15, 8), (13, 10))
    assert any(e["type"] == "scored" and e["seat"] == 0 for e in g.apply(0, first))
    assert StrongBot(0).choose(g, 0) == {"leadertake": {"x": 5, "y": 4}}


def test_the_war_counts_for_less_among_three_opponents():
    """One opponent of three would score the points: withdrawing is worth less, but with nothing
    better to do it still beats a pass."""
    g2 = war_position()
    g4 = blank(4)
    g4.pos, g4.hands[0], g4.catastrophes = g2.pos, g2.hands[0], [0] * 4

    def take_value(g):
        bot = StrongBot(0)
        moves = bot._leader_moves(g, 0, bot._weights(g, 0), bot._threats(g, 0, Groups(g.pos)))
        (value,) = [v for at, to, v in moves if to is None]
        return value

    assert 0.05 < take_value(g4) < take_value(g2)
    assert StrongBot(0).choose(g4, 0) == {"leadertake": {"x": 5, "y": 4}}


def test_does_not_put_the_withdrawn_leader_back_into_the_war():
    g = war_position()
    bot = StrongBot(0)
    g.apply(0, bot.choose(g, 0))                          # the withdrawal
    again = bot.choose(g, 0)
    assert again != {"leaderadd": {"colour": "green", "x": 5, "y": 4}}   # where it was doomed


def test_strong_bots_chasing_each_others_leaders_still_end_the_game():
    """Two-player game 5 of seed 1 once never ended: each bot fled the other's threat in turn
    (and took a leader back to put it down again), so no tile was drawn.  A bot now leaves a
    threat at most once per draw from the bag."""
    res = run(5, 2, 1, ["strong"])
    assert res["games"] == 5 and res["actions"] < 5 * 400


def test_draws_a_new_tile_rather_than_pass():
    """Two strong bots with nothing worth doing once passed for ever (two-player game 22 of
    seed 2 against the bot before): no tile was drawn, so the game never ended."""
    g = war_position()
    g.pos.catastrophe[cell(6, 4)] = True
    give(g, 0, blue=1)                                    # a blue tile scores nothing anywhere here
    assert StrongBot(0).choose(g, 0) == {"discard": {"red": 0, "green": 0, "blue": 1, "black": 0}}
