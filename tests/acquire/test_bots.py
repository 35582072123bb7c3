"""Acquire bots: always legal, deterministic, blind to hidden tiles, and strong beats random."""
from __future__ import annotations

import random
import time

import pytest
from zope.interface.verify import verifyObject

from gamehall.interfaces import IBot
from gamehall_acquire import selfplay
from gamehall_acquire.bots import BOTS, RandomBot, StrongBot, exact_bonuses, make_bot
from gamehall_acquire.game import AcquireGame
from gamehall_acquire.rules import Game
from tests.acquire.test_rules import craft


def play(game: Game, bots: list, check=None) -> Game:
    """Play to the end; ``check(game, seat, action)`` sees every action before it is applied."""
    while not game.is_over():
        seat = game.pending_seat()
        action = bots[seat].choose(game, seat)
        if check is not None:
            check(game, seat, action)
        game.apply(seat, action)
    return game


def assert_legal(game, seat, action):
    assert action in game.legal_actions(), (game.pending(), action)


# ------------------------------------------------------------ make_bot
def test_make_bot_knows_the_hall_bots_and_refuses_others():
    assert tuple(BOTS) == AcquireGame.bots           # "strong" first: the hall's default
    assert isinstance(make_bot("strong", 1), StrongBot)
    assert isinstance(make_bot("random", 1), RandomBot)
    for name in BOTS:
        verifyObject(IBot, make_bot(name, 3))
    assert isinstance(AcquireGame().new_bot("strong", 5), StrongBot)
    for bad in ("Strong", "", "expert", None):
        with pytest.raises(ValueError, match="unknown Acquire bot"):
            make_bot(bad, 1)


# ------------------------------------------------------------ legality
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_both_bots_play_only_legal_actions_in_whole_games(players):
    kinds = set()

    def check(game, seat, action):
        assert_legal(game, seat, action)
        kinds.add(game.pending().kind)

    for seed in range(8):
        rnd = random.Random(seed)
        bots = [make_bot(rnd.choice(["strong", "random"]), seed * 10 + s) for s in range(players)]
        bots[seed % players] = make_bot("strong", seed)           # at least one strong seat
        g = play(Game.new([f"p{i}" for i in range(players)], seed=1000 * players + seed), bots, check)
        assert g.is_over()
    assert {"play_tile", "found_chain", "dispose", "purchase"} <= kinds


def test_strong_bot_alone_is_legal_in_every_kind_of_decision():
    kinds: dict[str, int] = {}

    def check(game, seat, action):
        assert_legal(game, seat, action)
        k = game.pending().kind
        kinds[k] = kinds.get(k, 0) + 1

    for seed in range(30):
        play(Game.new(["a", "b", "c", "d"], seed=seed), [StrongBot(seed + s) for s in range(4)], check)
    assert set(kinds) == {"play_tile", "found_chain", "choose_survivor", "choose_defunct",
                          "dispose", "purchase"}, kinds


def test_strong_bot_legal_in_crafted_corners():
    # a merger with no survivor shares left to trade for, and buying with little cash
    g, _ = craft(4, chains={"Tower": ["1A", "2A", "3A"], "Imperial": ["5A", "6A"]},
                 racks={0: ["4A"]}, cash=[250, 6000, 6000, 6000],
                 shares={0: {"Imperial": 3, "Tower": 12}, 1: {"Imperial": 2, "Tower": 13}})
    bots = [StrongBot(s) for s in range(4)]
    for _ in range(12):
        if g.is_over():
            break
        seat = g.pending_seat()
        action = bots[seat].choose(g, seat)
        assert_legal(g, seat, action)
        g.apply(seat, action)


# ------------------------------------------------------------ determinism
def test_same_seeds_same_game_and_different_bot_seeds_differ():
    def record(bot_seed):
        bots = [make_bot("strong", bot_seed), make_bot("random", bot_seed + 1),
                make_bot("strong", bot_seed + 2), make_bot("random", bot_seed + 3)]
        return play(Game.new(["a", "b", "c", "d"], seed=77), bots).record()

    assert record(5) == record(5)
    assert record(5)["actions"] != record(6)["actions"]


def test_selfplay_run_is_reproducible():
    a = selfplay.run(4, 3, 11, ["strong", "random"])
    b = selfplay.run(4, 3, 11, ["strong", "random"])
    for r in (a, b):
        r.pop("seconds"), r.pop("games_per_second")
    assert a == b


def test_strong_bot_ignores_hidden_tiles():
    """Its choice depends on its own rack only: shuffling the bag and the other racks changes nothing."""
    g = Game.new(["a", "b", "c", "d"], seed=3)
    bots = [StrongBot(s) for s in range(4)]
    rnd = random.Random(0)
    compared = 0
    while not g.is_over():
        seat = g.pending_seat()
        d = g.to_dict()
        hidden = list(d["tile_bag"][d["bag_pos"]:])
        slots = [(s, i) for s, rack in enumerate(d["racks"]) if s != seat
                 for i, t in enumerate(rack) if t is not None]
        hidden += [d["racks"][s][i] for s, i in slots]
        rnd.shuffle(hidden)
        for s, i in slots:
            d["racks"][s][i] = hidden.pop()
        d["tile_bag"] = d["tile_bag"][:d["bag_pos"]] + hidden
        other = Game.from_dict(d)
        assert other.racks[seat] == g.racks[seat] and other.racks != g.racks
        assert StrongBot(seat + 100).choose(other, seat) == StrongBot(seat + 100).choose(g, seat)
        compared += 1
        g.apply(seat, bots[seat].choose(g, seat))
    assert compared > 50


# ------------------------------------------------------------ play quality
def test_exact_bonuses_match_the_engine():
    rnd = random.Random(2)
    for _ in range(300):
        n = rnd.randint(2, 6)
        col = [rnd.choice([0, 0, 1, 2, 3, 5, 8]) for _ in range(n)]
        if sum(col) > 25:
            continue
        g, _ = craft(n, chains={"American": ["1A", "2A", "3A"]},
                     shares={s: {"American": h} for s, h in enumerate(col)})
        got = exact_bonuses(col, g.price("American"), 10, 5, 100)
        assert {s: a for s, a in enumerate(got) if a} == g.bonuses("American")


def test_strong_bot_claims_the_end_exactly_when_it_would_win():
    """When it may end the game it does so iff ending after its purchase makes it the sole winner."""
    seen = {True: 0, False: 0}
    for seed in range(12):
        g = Game.new(["a", "b", "c", "d"], seed=500 + seed)
        bots = [StrongBot(seed * 4 + s) if s % 2 == 0 else RandomBot(seed * 4 + s) for s in range(4)]
        while not g.is_over():
            seat = g.pending_seat()
            action = bots[seat].choose(g, seat)
            d = g.pending()
            if isinstance(bots[seat], StrongBot) and d.kind == "purchase" and d.options["can_end"]:
                trial = Game.from_dict(g.to_dict())
                trial.apply(seat, {"purchase": action["purchase"], "end_game": True})
                wins = trial.result()["winners"] == [seat]
                assert action["end_game"] == wins
                seen[wins] += 1
            g.apply(seat, action)
    assert seen[True] and seen[False]


def test_strong_bot_founds_the_chain_that_pays_most():
    # founding: all else equal, the dearest chain; but a chain in which it kept shares first
    def founded(shares):
        g, _ = craft(2, lone=["1A"], racks={0: ["2A"]}, shares=shares)
        g.apply(0, {"play_tile": "2A"})
        assert g.pending().kind == "found_chain"
        return StrongBot(1).choose(g, 0)["found_chain"]

    assert founded({}) in ("Continental", "Imperial")
    assert founded({0: {"Luxor": 4}}) == "Luxor"
    assert founded({1: {"Continental": 5, "Imperial": 5}, 0: {}}) not in ("Continental", "Imperial")


def test_strong_bot_buys_to_take_or_keep_the_majority():
    # Tower: it trails bob by one; Luxor: nobody holds any -- it buys Tower to pass bob
    g, _ = craft(2, chains={"Tower": ["1A", "2A", "3A"], "Luxor": ["9I", "10I"]},
                 shares={0: {"Tower": 3}, 1: {"Tower": 4}}, racks={0: ["12A"]})
    g.apply(0, {"play_tile": "12A"})
    action = StrongBot(1).choose(g, 0)
    assert action["purchase"].get("Tower", 0) >= 2
    assert action["end_game"] is False


def test_strong_bot_merges_when_it_pays_and_picks_the_survivor_it_owns():
    # Tower and Imperial, 3 tiles each; it is Imperial's only shareholder and second
    # in Tower.  Playing 4A merges them (a simple tile is the alternative); keeping
    # Imperial pays it the second Tower bonus now and grows the chain it owns,
    # where the other way round would pay it Imperial's bonus but hand bob the big chain.
    g, _ = craft(2, chains={"Tower": ["1A", "2A", "3A"], "Imperial": ["5A", "6A", "7A"]},
                 racks={0: ["4A", "12I"]}, shares={0: {"Imperial": 5, "Tower": 2}, 1: {"Tower": 6}})
    bot = StrongBot(1)
    assert bot.choose(g, 0) == {"play_tile": "4A"}
    g.apply(0, {"play_tile": "4A"})
    assert g.pending().kind == "choose_survivor"
    assert bot.choose(g, 0) == {"choose_survivor": "Imperial"}


def test_strong_bot_trades_into_a_good_survivor_and_sells_into_a_poor_one():
    def disposal(chains, shares, n=2):
        g, _ = craft(n, chains=chains, racks={0: ["4A"]}, shares=shares)
        g.apply(0, {"play_tile": "4A"})
        assert g.pending().kind == "dispose"
        return StrongBot(1).choose(g, 0)["dispose"]

    # Luxor ($200) into a 12-tile Imperial ($900): one Imperial share beats two Luxor
    big = [f"{c}{r}" for c in (1, 2, 3) for r in "ABC"]
    assert disposal({"Imperial": big, "Luxor": ["5A", "6A"]},
                    {0: {"Luxor": 4}, 1: {"Imperial": 1}}) == {"sell": 0, "trade": 4}
    # Continental (5 tiles, $700) into Tower (12 tiles, $700) where two rivals hold 10
    # and 8 shares: a Tower share is worth half of what two Continental fetch, no bonus
    # is in reach, so it sells
    assert disposal({"Tower": ["1A", "2A", "3A", "1B", "2B", "3B"],
                     "Continental": ["5A", "6A", "7A", "8A", "9A"]},
                    {0: {"Continental": 4}, 1: {"Tower": 10}, 2: {"Tower": 8}}, n=3) == \
        {"sell": 4, "trade": 0}


def test_strong_beats_random():
    """1 strong vs 3 random, seats rotating, 40 games: a clear, seed-fixed margin."""
    res = selfplay.run(40, 4, 2024, ["strong", "random", "random", "random"])
    strong, rand = res["bots"]["strong"], res["bots"]["random"]
    assert strong["seats"] == 40 and rand["seats"] == 120
    assert strong["mean"] > rand["mean"]
    assert strong["win_rate"] > 0.4


def test_strong_bot_is_fast():
    """Aim: well under 1 ms a decision; a loose bound so that a slow CI machine passes."""
    bots = [StrongBot(s) for s in range(4)]
    spent, decisions = 0.0, 0
    for seed in range(5):
        g = Game.new(["a", "b", "c", "d"], seed=seed)
        while not g.is_over():
            seat = g.pending_seat()
            t = time.perf_counter()
            action = bots[seat].choose(g, seat)
            spent += time.perf_counter() - t
            decisions += 1
            g.apply(seat, action)
    assert spent / decisions < 0.005
