"""gamehall.ratings: places from engine results, openskill ratings for 2 to 7 players with ties,
determinism, and recomputation from the records equal to the live ratings."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from gamehall.ratings import (MU, PROVISIONAL_GAMES, SIGMA, Rating, bot_name, places_from_result,
                              rate_game, rating_key, recompute)


# ------------------------------------------------------------------ places
def test_places_acquire_shared_top_cash():
    assert places_from_result({"scores": [6000, 9100, 9100, 2000], "winners": [1, 2],
                               "reason": "end"}) == [3, 1, 1, 4]


def test_places_equal_scores_below_the_winner_share():
    assert places_from_result({"scores": [500, 0, 0, 0], "winners": [0]}) == [1, 2, 2, 2]


def test_places_diplomacy_draw_shares_first_whatever_the_centres():
    result = {"scores": [3, 0, 0, 12, 3, 1, 15], "winners": [3, 6], "reason": "draw"}
    assert places_from_result(result) == [3, 6, 6, 1, 3, 5, 1]


def test_places_diplomacy_solo():
    result = {"scores": [18, 4, 4, 4, 2, 2, 0], "winners": [0], "reason": "solo AUS"}
    assert places_from_result(result) == [1, 2, 2, 2, 5, 5, 7]


def test_places_monopoly_without_winner_by_net_worth():
    assert places_from_result({"scores": [1200, 3400, 0], "winners": []}) == [2, 1, 3]


def test_places_et_positions_used_as_given():
    # E&T's own tie-break (treasures, next colours) can order equal lowest scores.
    result = {"scores": [7, 7, 5], "winners": [1], "positions": [2, 1, 3]}
    assert places_from_result(result) == [2, 1, 3]


@pytest.mark.parametrize("result", [{"scores": []}, {"scores": [1, 2], "winners": [2]},
                                    {"scores": [1], "positions": [0]}])
def test_places_bad_results_refused(result):
    with pytest.raises(ValueError):
        places_from_result(result)


# ------------------------------------------------------------------ keys and names
def test_rating_keys_split_acquire_by_players_only():
    assert rating_key("acquire", "classic", 2) == "acquire/classic/2p"
    assert rating_key("acquire", "classic", 3) == "acquire/classic/3p"
    assert rating_key("acquire", "classic", 4) == rating_key("acquire", "classic", 6) == "acquire/classic/4+p"
    assert rating_key("windward", None, 5) == "windward/4+p"
    assert rating_key("et", None, 2) == rating_key("et", None, 4) == "et"
    assert rating_key("pimp", None, 3) == "pimp"
    assert rating_key("daide", "standard", 7) == "daide/standard"
    with pytest.raises(ValueError):
        rating_key("acquire", "classic", 1)


def test_bot_names_fixed_per_level_and_game():
    assert bot_name("acquire", 2) == bot_name("acquire", "2") == "bot:acquire:2"
    assert bot_name("acquire", 2) != bot_name("acquire", 3) != bot_name("et", 3)
    with pytest.raises(ValueError):
        bot_name("acquire", "")


# ------------------------------------------------------------------ Rating
def test_new_rating_displays_zero_and_is_provisional():
    r = Rating()
    assert (r.mu, r.sigma, r.games) == (MU, SIGMA, 0)
    assert r.display == pytest.approx(0.0)
    assert r.provisional
    assert not Rating(games=PROVISIONAL_GAMES).provisional
    assert Rating(30.0, 2.0, 40).display == pytest.approx(24.0)


# ------------------------------------------------------------------ rate_game
def _seats(n):
    return [f"p{i}" for i in range(n)]


@pytest.mark.parametrize("n", range(2, 8))
def test_winner_gains_last_loses(n):
    seats = _seats(n)
    new = rate_game({}, seats, list(range(1, n + 1)))
    assert set(new) == set(seats)
    assert new["p0"].mu > MU > new[f"p{n - 1}"].mu
    mus = [new[s].mu for s in seats]
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == n
    assert all(r.games == 1 and r.sigma <= SIGMA for r in new.values())


@pytest.mark.parametrize("n", range(2, 8))
def test_tie_gives_equal_changes_to_equal_priors(n):
    seats = _seats(n)
    places = [1, 1] + list(range(3, n + 1))          # the first two share first place
    new = rate_game({}, seats, places)
    assert new["p0"] == new["p1"]
    if n > 2:
        assert new["p0"].mu > MU > new[f"p{n - 1}"].mu
    # and a tie in the middle: seats 1 and 2 share second place
    if n >= 4:
        places = [1, 2, 2] + list(range(4, n + 1))
        new = rate_game({}, seats, places)
        assert new["p1"] == new["p2"]
        assert new["p0"].mu > new["p1"].mu > new[f"p{n - 1}"].mu


def test_all_tied_between_equals_changes_no_mean():
    new = rate_game({}, _seats(5), [1] * 5)
    assert all(r.mu == pytest.approx(MU) for r in new.values())


def test_upset_moves_more_than_expected_result():
    strong, weak = Rating(35.0, 3.0, 30), Rating(20.0, 3.0, 30)
    expected = rate_game({"s": strong, "w": weak}, ["s", "w"], [1, 2])
    upset = rate_game({"s": strong, "w": weak}, ["s", "w"], [2, 1])
    assert upset["w"].mu - weak.mu > expected["s"].mu - strong.mu > 0


def test_only_seated_players_are_returned_and_input_untouched():
    ratings = {"a": Rating(30.0, 5.0, 3), "z": Rating(10.0, 2.0, 9)}
    before = dict(ratings)
    new = rate_game(ratings, ["a", "b", "c"], [2, 1, 3])
    assert set(new) == {"a", "b", "c"} and ratings == before
    assert new["b"].games == 1 and new["a"].games == 4


def test_name_in_two_seats_counts_one_game():
    bot = bot_name("acquire", 1)
    new = rate_game({}, [bot, "ann", bot], [1, 2, 3])
    assert set(new) == {bot, "ann"} and new[bot].games == 1
    alone = rate_game({}, ["x", "ann", "y"], [1, 2, 3])
    assert new[bot].mu == pytest.approx((alone["x"].mu + alone["y"].mu) / 2)


@pytest.mark.parametrize("seats, places", [(["a"], [1]), (["a", "b"], [1]), (["a", "b"], [0, 1])])
def test_bad_games_refused(seats, places):
    with pytest.raises(ValueError):
        rate_game({}, seats, places)


def test_deterministic():
    games = [("k", _seats(4), [1, 2, 2, 4]), ("k", ["p3", "p1", "p0"], [1, 3, 2]),
             ("j", _seats(7), [3, 6, 6, 1, 3, 5, 1])]
    assert recompute(games) == recompute(list(games))


# ------------------------------------------------------------------ recompute vs live
def _live(games):
    """What the hall does as games finish: look the key up, rate, store the seated players."""
    table = {}
    for key, seats, places in games:
        ratings = table.setdefault(key, {})
        for name, rating in rate_game(ratings, seats, places).items():
            ratings[name] = rating
    return table


names = st.sampled_from(["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal", bot_name("acquire", 1)])


@st.composite
def games(draw):
    n = draw(st.integers(2, 7))
    seats = draw(st.lists(names, min_size=n, max_size=n))
    places = draw(st.lists(st.integers(1, n), min_size=n, max_size=n))
    return draw(st.sampled_from(["acquire/classic/3p", "daide/standard"])), seats, places


@settings(max_examples=60, deadline=None)
@given(st.lists(games(), max_size=40))
def test_recompute_equals_live_and_ratings_stay_sane(sequence):
    live = _live(sequence)
    assert recompute(iter(sequence)) == live
    for key in live:
        played = [g for g in sequence if g[0] == key]
        # games conserved: one per distinct seated name per game
        assert sum(r.games for r in live[key].values()) == sum(len(set(g[1])) for g in played)
    # sigma never grows, every number stays finite
    table = {}
    for key, seats, places in sequence:
        ratings = table.setdefault(key, {})
        for name, rating in rate_game(ratings, seats, places).items():
            before = ratings.get(name, Rating())
            assert math.isfinite(rating.mu) and math.isfinite(rating.sigma) and rating.sigma > 0
            assert rating.sigma <= before.sigma + 1e-12
            ratings[name] = rating


def test_settled_rating_does_not_grow_uncertain():
    # tau adds spread before each game; for a settled player that would outweigh what one game
    # teaches, and sigma would creep up game after game: limit_sigma keeps it from growing.
    ratings = {"old": Rating(30.0, 0.05, 500), "new": Rating()}
    for places in ([1, 2], [2, 1], [1, 1]):
        assert rate_game(ratings, ["old", "new"], places)["old"].sigma <= 0.05


def test_a_real_acquire_game_rated_from_its_result_and_record():
    from gamehall_acquire import selfplay
    finished = []
    selfplay.run(1, 4, 7, [selfplay.bot_names("classic")[0]], on_game=lambda i, e: finished.append(e))
    engine, = finished
    result, record = engine.result(), engine.record()
    places = places_from_result(result)
    cash = result["scores"]
    assert all(places[s] == 1 for s in result["winners"])
    assert all((places[a] < places[b]) == (cash[a] > cash[b]) for a in range(4) for b in range(4))
    key = rating_key(record["game"], record["variant"], len(record["players"]))
    assert key == "acquire/classic/4+p"
    table = recompute([(key, record["players"], places)])
    best = min(range(4), key=places.__getitem__)
    worst = max(range(4), key=places.__getitem__)
    assert table[key][record["players"][best]].mu > MU > table[key][record["players"][worst]].mu


# ------------------------------------------------------------------ who a finished game rates
from gamehall.ratings import player_key, rated_game  # noqa: E402


def _reg(name, kind="human", bot=None):
    return {"name": name, "kind": kind, "bot": bot, "address": "10.0.0.1", "registered": True}


def _guest(name, kind="human", bot=None):
    return {"name": name, "kind": kind, "bot": bot, "address": "10.0.0.2"}


def _hall_bot(level):
    return {"name": f"{level.title()}Bot1", "kind": "bot", "bot": level}


def test_rated_game_registered_bots_guests_and_shared_places():
    seats = [_reg("Ann"), _guest("gus"), _hall_bot("strong"), _reg("Bob"), _hall_bot("strong")]
    result = {"scores": [5, 9, 9, 1, 0], "winners": [1, 2]}
    assert rated_game("acquire", "classic", seats, result, ["Ann", "gus", "Bob"]) == {
        "key": "acquire/classic/4+p",
        "names": ["Ann", None, "bot:acquire:strong", "Bob", "bot:acquire:strong"],
        "places": [3, 1, 1, 4, 5]}


@pytest.mark.parametrize("seats", [
    [_hall_bot("strong"), _hall_bot("random")],                       # bots only
    [_guest("a"), _hall_bot("strong")],                               # a guest and a bot
    [_guest("a"), _guest("b"), _guest("c")],                          # guests only
    [_reg("Ann")],                                                    # one seat
])
def test_no_registered_player_no_rating(seats):
    result = {"scores": list(range(len(seats))), "winners": [0]}
    assert rated_game("acquire", "classic", seats, result, [s["name"] for s in seats if s["kind"] == "human"]) is None


def test_a_seat_a_bot_finished_places_its_player_last_whatever_the_bot_did():
    # Ann left; the bot playing her seat won.  Cy (a guest) left too.  Those who stayed keep their order.
    seats = [_reg("Ann", "bot", "strong"), _reg("Bob"), _guest("Cy", "bot", "strong"), _reg("Dee")]
    result = {"scores": [9, 5, 7, 5], "winners": [0]}
    assert rated_game("et", "standard", seats, result, ["Ann", "Bob", "Cy", "Dee"]) == {
        "key": "et/standard", "names": ["Ann", "Bob", None, "Dee"], "places": [3, 1, 3, 1]}
    # a guest seat a bot finished after the guest released it is not the hall's bot: it has an address
    released = _guest("Eve", "bot", "strong")
    assert rated_game("et", "standard", [_reg("Ann"), released], {"scores": [1, 2], "winners": [1]}, ["Ann"]) == {
        "key": "et/standard", "names": ["Ann", None], "places": [1, 2]}


@pytest.mark.parametrize("n", range(2, 8))
def test_rated_game_for_two_to_seven_players_with_ties(n):
    seats = [_reg(f"P{i}") for i in range(n)]
    scores = [i // 2 for i in range(n)]          # pairs tie
    rated = rated_game("diplomacy", "standard", seats, {"scores": scores, "winners": []}, [])
    assert rated["places"] == places_from_result({"scores": scores, "winners": []})
    assert len(set(rated["places"])) == (n + 1) // 2
    new = rate_game({}, [player_key(x) for x in rated["names"]], rated["places"])
    tied = [player_key(s["name"]) for s, p in zip(seats, rated["places"]) if p == rated["places"][0]]
    assert len({round(new[t].mu, 9) for t in tied}) == 1


def test_a_result_that_does_not_fit_the_seats_is_refused():
    with pytest.raises(ValueError):
        rated_game("acquire", "classic", [_reg("A"), _reg("B")], {"scores": [1, 2, 3], "winners": [0]}, [])


def test_player_key_is_the_lobbys_comparison():
    assert player_key(" Ａnn ") == player_key("ANN") == "ann"
