"""Series: rotation of the first player, per-game scores, totals, determinism, state."""
from __future__ import annotations

import json

import pytest

from gamehall_acquire.windward.bots import make_bot
from gamehall_acquire.windward.series import Series, SeriesError

from .scenario import NAMES6


def simple_bots(seed=0):
    return [make_bot("simple", seed * 10 + i) for i in range(6)]


def test_first_player_rotates_each_game():
    s = Series(NAMES6, games=8, seed=4)
    firsts = []
    bots = simple_bots()
    while not s.is_over():
        g = s.new_game()
        firsts.append(g.pending_seat())
        assert g.rules.first_seat == s.first_seat(s.played)
        while not g.is_over():
            seat = g.pending_seat()
            g.apply(seat, bots[seat].choose(g, seat))
        s.finish_game()
    assert firsts == [0, 1, 2, 3, 4, 5, 0, 1]


def test_scores_totals_scoreboard_and_results_file():
    s = Series(NAMES6, games=3, seed=11)
    s.play(simple_bots(1))
    assert s.is_over() and s.played == 3 and len(s.records) == 3
    assert s.totals == [sum(g[seat] for g in s.scores) for seat in range(6)]
    assert s.scoreboard(2) == [g[2] for g in s.scores]
    assert s.winner == max(range(6), key=lambda seat: (s.totals[seat], -seat))
    assert s.standings()[0] == s.winner and sorted(s.standings()) == list(range(6))
    xml = s.results_xml()
    assert xml.startswith("<players><player name=\"ann\">") and xml.count("<player ") == 6
    assert f"{s.scores[0][0]};{s.scores[1][0]};{s.scores[2][0]};</player>" in xml
    # each game's scores are its result, and the records replay to them
    assert [g.result()["scores"] for g in s.replay()] == s.scores


def test_series_winner_is_the_highest_total_ties_to_the_earlier_seat():
    s = Series(NAMES6, games=2, seed=1)
    s.scores = [[5, 7, 9, 0, 0, 0], [6, 7, 3, 0, 0, 0]]
    assert s.totals == [11, 14, 12, 0, 0, 0] and s.winner == 1 and s.winners == [1]
    s.scores = [[5, 7, 7, 0, 0, 0]]
    assert s.winner == 1 and s.winners == [1, 2]


def test_deterministic_from_the_seed():
    a, b, c = (Series(NAMES6, games=2, seed=seed) for seed in (5, 5, 6))
    for s in (a, b, c):
        s.play(simple_bots(2))
    assert a.scores == b.scores and a.game_seeds == b.game_seeds
    assert a.scores != c.scores


def test_misuse_is_refused():
    s = Series(NAMES6, games=1, seed=3)
    with pytest.raises(SeriesError):
        s.finish_game()
    s.new_game()
    with pytest.raises(SeriesError):
        s.new_game()
    with pytest.raises(SeriesError):
        s.finish_game()                     # not over yet
    s.play(simple_bots())
    with pytest.raises(SeriesError):
        s.new_game()
    with pytest.raises(ValueError):
        Series(NAMES6[:5], games=1, seed=1)
    with pytest.raises(ValueError):
        Series(NAMES6, games=0, seed=1)


def test_state_round_trip_mid_game():
    s = Series(NAMES6, games=2, seed=9)
    bots = simple_bots(3)
    g = s.new_game()
    while not g.is_over():
        seat = g.pending_seat()
        g.apply(seat, bots[seat].choose(g, seat))
    s.finish_game()
    g = s.new_game()
    for _ in range(40):
        seat = g.pending_seat()
        g.apply(seat, bots[seat].choose(g, seat))
    d = json.loads(json.dumps(s.to_dict()))
    t = Series.from_dict(d)
    assert t.to_dict() == s.to_dict()
    t.play(simple_bots(4))
    assert t.is_over() and t.game is None and t.scores[0] == s.scores[0] and len(t.scores) == 2
