"""Windward Acquire rules, one or more tests per rule of the rules text and protocol 8.x."""
from __future__ import annotations

import json

import pytest

from gamehall.interfaces import IllegalAction
from gamehall_acquire import rules as classic
from gamehall_acquire import tiles as T
from gamehall_acquire.windward.rules import (BUY_5, CARDS, CHAINS, DRAW_5, FREE_3, NONE, PLACE_4,
                                             TRADE_2, WindwardGame, WindwardRules, game_from_record,
                                             tile_xy, xy_tile)

from .scenario import NAMES6, account, by_type, col, row, scenario

#: seven 2-tile chains that touch neither each other nor rows F-I
SEVEN = {c: row(r, c1, c1 + 1) for c, (r, c1) in zip(CHAINS, [("A", 1), ("A", 4), ("A", 7), ("A", 10),
                                                               ("C", 1), ("C", 4), ("C", 7)])}


def tp(tile=None, card=NONE, buy=(), trade=(), **extra):
    return {"tile_purchase": {"tile": tile, "card": card, "buy": [list(b) for b in buy],
                              "trade": [list(t) for t in trade], **extra}}


# ----------------------------------------------------------------- constants and setup
@pytest.mark.parametrize("chains, start", [(("Amazon", "Google"), 200),
                                           (("JetBrains", "Microsoft", "salesforce.com"), 300),
                                           (("Hewlett-Packard", "Windward"), 400)])
def test_price_tiers_of_the_rules_text(chains, start):
    rules = WindwardRules()
    steps = {2: 0, 3: 1, 4: 2, 5: 3, 6: 4, 10: 4, 11: 5, 20: 5, 21: 6, 30: 6, 31: 7, 40: 7, 41: 8, 108: 8}
    for name in chains:
        c = CHAINS.index(name)
        assert rules.start_price(c) == start
        assert rules.price(c, 0) == rules.price(c, 1) == 0
        for size, k in steps.items():
            assert rules.price(c, size) == start + 100 * k, (name, size)


def test_inactive_chain_shows_its_start_price_and_no_bonus():
    g, _ = scenario(chains={"Google": ["1A", "1B"]}, hands={0: ["12I"]}, cards={})
    hotels = {h["name"]: h for h in g.view(0)["hotels"]}
    assert [h["name"] for h in g.view(0)["hotels"]] == list(CHAINS)
    assert hotels["Windward"]["stock_price"] == 400 and hotels["Windward"]["first_majority"] == 0
    assert hotels["Google"]["stock_price"] == 200
    assert hotels["Google"]["first_majority"] == 2000 and hotels["Google"]["second_majority"] == 1000
    assert hotels["Google"]["is_active"] and not hotels["Google"]["is_safe"]


def test_setup_six_seats_cash_tiles_cards():
    g = WindwardGame.new(NAMES6, seed=3)
    assert g.rules.variant == "windward"
    assert g.cash == [6000] * 6
    assert all(len(h) == 6 for h in g.hands)
    assert all(g.cards(s) == list(CARDS[1:]) for s in range(6))
    assert sorted(account(g)) == sorted(T.NAMES)
    assert not g.board
    assert g.pending_seat() == 0
    for bad in (NAMES6[:5], NAMES6 + ["gus"]):
        with pytest.raises(ValueError):
            WindwardGame.new(bad, seed=1)


def test_first_seat_rotates_and_is_recorded():
    g = WindwardGame.new(NAMES6, seed=3, first=4)
    assert g.pending_seat() == 4
    rec = g.record()
    assert rec["variant"] == "windward" and rec["rules"]["first_seat"] == 4
    assert game_from_record(rec).pending_seat() == 4


def test_tile_coordinates():
    assert tile_xy("1A") == (0, 0) and tile_xy("6D") == (5, 3) and tile_xy("12I") == (11, 8)
    assert xy_tile(5, 3) == "6D"
    with pytest.raises(ValueError):
        xy_tile(12, 0)


def test_registered_variant_and_classic_record_replay():
    assert classic.rules_for("windward") == WindwardRules()
    from gamehall_acquire.record import game_from_record as classic_replay
    g = WindwardGame.new(NAMES6, seed=9)
    for _ in range(30):
        g.apply(g.pending_seat(), g.timeout_action(g.pending_seat()))
    again = classic_replay(json.loads(json.dumps(g.record())), WindwardGame)
    assert again.to_dict() == g.to_dict()


# ----------------------------------------------------------------- the card query
def test_card_query_only_with_a_playable_tile_and_a_pre_turn_card():
    g, _ = scenario(hands={0: ["1A"]}, cards={0: [FREE_3, DRAW_5]})
    assert g.pending().kind == "card" and g.pending().options["cards"] == [NONE, DRAW_5]
    g, _ = scenario(hands={0: ["1A"]}, cards={0: [FREE_3]})
    assert g.pending().kind == "tile_purchase"
    # only temporarily unplayable tiles (7 chains on the board) and nothing to draw: no card query
    g, _ = scenario(chains=SEVEN, lone=["6I"], hands={0: ["5I", "7I", "6H"], 1: ["12I"]}, pile_empty=True)
    assert g.pending().kind == "tile_purchase" and g.pending().options["tiles"] == []


def test_card_query_rejects_other_cards_and_spent_ones():
    g, _ = scenario(hands={0: ["1A"]}, cards={0: [FREE_3, PLACE_4]})
    before = g.to_dict()
    for bad in (FREE_3, DRAW_5, "nonsense", 5):
        with pytest.raises(IllegalAction):
            g.apply(0, {"card": bad})
        assert g.to_dict() == before


def test_draw_5_draws_five_and_no_refill_until_below_six():
    g, _ = scenario(hands={0: row("A", 1, 6)}, cards={0: [DRAW_5]}, pile=row("I", 1, 12))
    ev = g.apply(0, {"card": DRAW_5})
    assert by_type(ev, "card_played") == [{"type": "card_played", "seat": 0, "card": DRAW_5}]
    assert len(g.hand(0)) == 11 and g.hand(0)[6:] == row("I", 1, 5)
    assert DRAW_5 not in g.cards(0)
    g.apply(0, tp("1A"))
    assert len(g.hand(0)) == 10                        # placed one, no refill
    while g.pending_seat() != 0:
        g.apply(g.pending_seat(), g.timeout_action(g.pending_seat()))
    assert len(g.hand(0)) == 10                        # nor at the start of the next turn
    # seat 0's next turns: 10, 9, ... until below 6, then back to 6
    g2, _ = scenario(hands={0: row("A", 1, 5) + row("C", 1, 1)}, cards={}, pile=["12I", "11I"])
    g2.apply(0, tp("1A"))
    assert len(g2.hand(0)) == 6 and "12I" in g2.hand(0)


def test_draw_5_with_a_short_pile_draws_what_is_left():
    g, _ = scenario(hands={0: ["1A"]}, cards={0: [DRAW_5]}, pile_empty=True)
    g.apply(0, {"card": DRAW_5})
    assert g.hand(0) == ["1A"]


def test_place_4_three_tile_queries_then_tile_purchase():
    g, _ = scenario(hands={0: ["1A", "3A", "5A", "7A", "9A", "11A"]}, cards={0: [PLACE_4, FREE_3]})
    g.apply(0, {"card": PLACE_4})
    for i in (1, 2, 3):
        d = g.pending()
        assert d.kind == "tile" and d.seat == 0 and d.options["placement"] == i and d.options["placements"] == 4
        with pytest.raises(IllegalAction):                 # no buying in query-tile
            g.apply(0, {"tile": {"tile": d.options["tiles"][0], "buy": [["Amazon", 1]]}})
        g.apply(0, {"tile": {"tile": d.options["tiles"][0]}})
    d = g.pending()
    assert d.kind == "tile_purchase" and d.options["placement"] == 4
    assert d.options["cards"] == [NONE, FREE_3]          # the pre-turn card does not bar a purchase card
    g.apply(0, tp(d.options["tiles"][0]))
    assert set(g.board) == {"1A", "3A", "5A", "7A"}
    assert len(g.hand(0)) == 6                            # refilled at the end of the turn
    assert g.pending_seat() == 1


def test_place_4_founds_and_merges_between_placements():
    # 1A-2A lone pair? no: lone 2A; Google 4A-5A; placing 3A merges... build step by step
    g, _ = scenario(chains={"Google": ["5A", "6A"], "Amazon": ["8A", "9A", "10A"]}, lone=["2A"],
                    hands={0: ["1A", "4A", "7A", "12I", "12H", "12G"]},
                    shares={0: {"Google": 2}, 1: {"Google": 1}}, cards={0: [PLACE_4]})
    g.apply(0, {"card": PLACE_4})
    ev = g.apply(0, {"tile": {"tile": "1A", "created_hotel": "Windward"}})    # founds, free share
    assert by_type(ev, "chain_founded")[0]["free_share"] and g.shares[0]["Windward"] == 1
    assert g.pending().kind == "tile"
    ev = g.apply(0, {"tile": {"tile": "7A"}})          # merges Google (2) into Amazon (3)
    assert by_type(ev, "merger")[0]["survivor"] == "Amazon"
    d = g.pending()
    assert d.kind == "merge" and d.seat == 0 and d.options["defunct"] == "Google"
    g.apply(0, {"merge": {"keep": 0, "sell": 2, "trade": 0}})
    assert g.pending().kind == "merge" and g.pending_seat() == 1
    g.apply(1, {"merge": {"keep": 1, "sell": 0, "trade": 0}})
    d = g.pending()                                     # merge resolved before the next tile
    assert d.kind == "tile" and d.seat == 0 and d.options["placement"] == 3
    assert g.chain_size("Amazon") == 6 and g.chain_size("Google") == 0
    g.apply(0, {"tile": {"tile": "4A"}})               # 4A touches 5A: grows Amazon
    assert g.chain_size("Amazon") == 7
    assert g.pending().kind == "tile_purchase"


def test_place_4_without_playable_tiles_left_goes_to_the_purchase():
    g, _ = scenario(hands={0: ["1A", "3A"]}, cards={0: [PLACE_4]}, pile_empty=True)
    g.apply(0, {"card": PLACE_4})
    g.apply(0, {"tile": {"tile": "1A"}})
    g.apply(0, {"tile": {"tile": "3A"}})
    d = g.pending()
    assert d.kind == "tile_purchase" and d.options["tiles"] == []
    g.apply(0, tp(None))
    assert g.hand(0) == []


def test_one_pre_turn_card_per_turn_and_each_card_once():
    g, _ = scenario(hands={0: row("A", 1, 6), 1: ["12I"]}, cards={0: [DRAW_5, PLACE_4, FREE_3], 1: []})
    g.apply(0, {"card": DRAW_5})
    assert g.pending().kind == "tile_purchase"         # no second pre-turn card this turn
    g.apply(0, tp("1A", FREE_3))
    with pytest.raises(IllegalAction):
        g.apply(1, tp("12I", FREE_3))                   # seat 1 never held it
    g.apply(1, tp("12I"))
    # seat 0's next turns: PLACE_4 still offered, DRAW_5 and FREE_3 gone for good
    for s in range(2, 6):
        g.apply(s, g.timeout_action(s))
    assert g.pending_seat() == 0 and g.pending().options["cards"] == [NONE, PLACE_4]
    g.apply(0, {"card": NONE})
    assert g.pending().options["cards"] == [NONE]


def test_purchase_card_must_be_held_and_of_the_purchase_group():
    g, _ = scenario(chains={"Google": ["1A", "1B"]}, hands={0: ["12I"]}, cards={0: [FREE_3]})
    before = g.to_dict()
    for bad in (BUY_5, DRAW_5, PLACE_4, "x"):
        with pytest.raises(IllegalAction):
            g.apply(0, tp("12I", bad))
        assert g.to_dict() == before


# ----------------------------------------------------------------- buying
def test_buy_three_at_the_current_price_in_order_clipped_by_cash():
    g, _ = scenario(chains={"Google": row("A", 1, 6), "Windward": ["1I", "2I"]}, hands={0: ["12E"]},
                    cash={0: 1000}, cards={})
    ev = g.apply(0, tp("12E", buy=[("Windward", 1), ("Google", 2)]))
    p = by_type(ev, "purchased")[0]
    assert p["shares"] == [["Windward", 1], ["Google", 1]] and p["cost"] == 400 + 600
    assert g.cash[0] == 0


def test_at_most_three_shares_without_buy_5():
    g, _ = scenario(chains={"Google": ["1A", "1B"]}, hands={0: ["12I"]}, cards={0: [BUY_5]})
    with pytest.raises(IllegalAction):
        g.apply(0, tp("12I", buy=[("Google", 4)]))
    with pytest.raises(IllegalAction):
        g.apply(0, tp("12I", BUY_5, buy=[("Google", 6)]))
    ev = g.apply(0, tp("12I", BUY_5, buy=[("Google", 3), ("Google", 2)]))
    assert by_type(ev, "purchased")[0]["shares"] == [["Google", 5]] and g.cash[0] == 5000


def test_buy_only_chains_on_the_board_after_the_placement():
    g, _ = scenario(chains={"Google": ["1A", "1B"]}, lone=["5E"], hands={0: ["5F", "12I"]}, cards={})
    with pytest.raises(IllegalAction):
        g.apply(0, tp("12I", buy=[("Amazon", 1)]))
    ev = g.apply(0, tp("5F", created_hotel="Amazon", buy=[("Amazon", 3)]))   # found and buy at once
    assert g.shares[0]["Amazon"] == 4 and g.cash[0] == 6000 - 3 * 200
    assert by_type(ev, "chain_founded")[0]["tiles"] == ["5E", "5F"]


def test_buy_clipped_to_shares_left():
    g, _ = scenario(chains={"Google": ["1A", "1B"]}, hands={0: ["12I"]}, shares={1: {"Google": 24}}, cards={})
    g.apply(0, tp("12I", buy=[("Google", 3)]))
    assert g.shares[0]["Google"] == 1 and g.available("Google") == 0 and g.cash[0] == 5800


def test_free_3_is_the_purchase_and_costs_nothing():
    g, _ = scenario(chains={"Windward": row("A", 1, 11), "Google": ["1I", "2I"]}, hands={0: ["12I"]},
                    cash={0: 0}, cards={0: [FREE_3]})
    with pytest.raises(IllegalAction):
        g.apply(0, tp("12I", FREE_3, buy=[("Windward", 4)]))
    ev = g.apply(0, tp("12I", FREE_3, buy=[("Windward", 3)]))
    p = by_type(ev, "purchased")[0]
    assert p["free"] and p["cost"] == 0 and g.cash[0] == 0 and g.shares[0]["Windward"] == 3
    assert FREE_3 not in g.cards(0)


def test_start_price_charge_switch():
    rules = WindwardRules(charge_start_price=True)
    g, _ = scenario(chains={"Windward": row("A", 1, 11), "Google": ["1I", "2I"]}, hands={0: ["12I"]},
                    cards={}, rules=rules)
    g.apply(0, tp("12I", buy=[("Windward", 2)]))
    assert g.cash[0] == 6000 - 2 * 400


def test_trade_2_up_to_three_trades_besides_the_purchase():
    g, _ = scenario(chains={"Google": ["1A", "1B"], "Windward": row("I", 1, 6)}, hands={0: ["12A"]},
                    shares={0: {"Google": 7}}, cards={0: [TRADE_2]})
    with pytest.raises(IllegalAction):
        g.apply(0, tp("12A", buy=[("Google", 1)], trade=[("Google", "Windward")]))     # no card
    with pytest.raises(IllegalAction):
        g.apply(0, tp("12A", TRADE_2, trade=[("Google", "Windward")] * 4))
    ev = g.apply(0, tp("12A", TRADE_2, buy=[("Google", 1), ("Windward", 2)],
                       trade=[("Google", "Windward")] * 3))
    assert by_type(ev, "traded")[0]["trades"] == [["Google", "Windward"]] * 3
    assert g.shares[0]["Google"] == 7 + 1 - 6 and g.shares[0]["Windward"] == 2 + 3
    assert g.available("Google") == 25 - 2 and g.available("Windward") == 25 - 5
    assert g.cash[0] == 6000 - 200 - 2 * 800


def test_trade_skipped_without_two_shares_or_stock_left():
    g, _ = scenario(chains={"Google": ["1A", "1B"], "Windward": row("I", 1, 6)}, hands={0: ["12A"]},
                    shares={0: {"Google": 3}, 1: {"Windward": 24}}, cards={0: [TRADE_2]})
    ev = g.apply(0, tp("12A", TRADE_2, trade=[("Google", "Windward"), ("Google", "Windward"),
                                              ("Windward", "Google")]))
    assert by_type(ev, "traded")[0]["trades"] == [["Google", "Windward"]]
    assert g.shares[0] == {**{c: 0 for c in CHAINS}, "Google": 1, "Windward": 1}


# ----------------------------------------------------------------- placing and founding
def test_founding_picks_up_neighbouring_singles_and_needs_a_free_chain_name():
    g, _ = scenario(lone=["5D", "6E"], hands={0: ["6D"]}, cards={})
    before = g.to_dict()
    for bad in ({}, {"created_hotel": "Nope"}):
        with pytest.raises(IllegalAction):
            g.apply(0, tp("6D", **bad))
        assert g.to_dict() == before
    ev = g.apply(0, tp("6D", created_hotel="JetBrains"))
    assert by_type(ev, "chain_founded")[0]["tiles"] == ["5D", "6D", "6E"]
    assert g.chain_size("JetBrains") == 3 and g.shares[0]["JetBrains"] == 1


def test_no_free_share_when_none_is_left():
    g, _ = scenario(lone=["5D"], hands={0: ["6D"]}, shares={1: {"Amazon": 25}}, cards={})
    ev = g.apply(0, tp("6D", created_hotel="Amazon"))
    assert not by_type(ev, "chain_founded")[0]["free_share"] and g.shares[0]["Amazon"] == 0


def test_a_tile_joining_a_chain_and_a_single_adds_two_tiles():
    g, _ = scenario(chains={"Google": ["1A", "2A"]}, lone=["4A"], hands={0: ["3A"]}, cards={})
    ev = g.apply(0, tp("3A"))
    assert by_type(ev, "chain_grew")[0]["tiles"] == ["3A", "4A"] and g.chain_size("Google") == 4


# ----------------------------------------------------------------- merges, bonuses, disposal
def test_protocol_worked_example_section_10():
    """Protocol section 10, with 6 seats (the 3 extra hold nothing) and both purchase charges."""
    for as_coded, alice_cash in ((True, 4800), (False, 4000)):
        rules = WindwardRules(charge_start_price=as_coded)
        g, _ = scenario(chains={"Windward": ["3D", "4D", "5D"], "Google": ["7D", "8D"]}, lone=["10H"],
                        hands={0: ["6D", "1A", "12I", "2G", "9I", "11B"]},
                        cash={0: 4200, 1: 5000, 2: 5500},
                        shares={0: {"Windward": 3, "Google": 2}, 1: {"Google": 4}, 2: {"Windward": 1}},
                        cards={0: list(CARDS[1:]), 1: [FREE_3, BUY_5, TRADE_2, PLACE_4], 2: list(CARDS[1:])},
                        rules=rules)
        assert [g.score(s) for s in range(3)] == [12100, 7800, 8500]
        assert g.pending().kind == "card"
        g.apply(0, g.normalise(0, {"cmd": "query-card", "card": "0"}))
        reply = {"cmd": "query-tile-purchase", "card": "0", "tile-x": "5", "tile-y": "3",
                 "merge-survivor": "Windward", "buy": "Windward:2;"}
        ev = g.apply(0, g.normalise(0, reply))
        assert {(e["seat"], e["amount"]) for e in by_type(ev, "bonus")} == {(1, 2000), (0, 1000)}
        assert g.cash[:3] == [5200, 7000, 5500]
        d = g.pending()
        assert (d.kind, d.seat, d.options["survivor"], d.options["defunct"]) == ("merge", 0, "Windward", "Google")
        v = g.view(0)
        hotels = {h["name"]: h for h in v["hotels"]}
        assert hotels["Windward"]["num_tiles"] == 3 and hotels["Windward"]["stock_price"] == 500
        assert hotels["Google"]["num_tiles"] == 2 and hotels["Google"]["num_avail_shares"] == 19
        assert v["map"]["columns"][5][3] == (2, "Windward")
        assert g.score(0) == 13100 and g.score(1) == 9800
        g.apply(0, g.normalise(0, {"cmd": "query-card", "keep": "0", "sell": "0", "trade": "1"}))
        assert g.cash[0] == 5600 and g.shares[0]["Google"] == 0
        assert g.pending_seat() == 1 and g.score(1) == 10800
        g.apply(1, g.normalise(1, {"cmd": "query-merge", "keep": "1", "sell": "1", "trade": "2"}))
        assert g.cash[1] == 7200 and g.shares[1]["Google"] == 1 and g.shares[1]["Windward"] == 1
        assert g.chain_size("Windward") == 6 and g.price("Windward") == 800 and g.chain_size("Google") == 0
        assert g.cash[0] == alice_cash and g.shares[0]["Windward"] == 5
        assert g.hand(0) == ["1A", "12I", "2G", "9I", "11B", g.hand(0)[5]]
        scores = [g.score(s) for s in range(3)]
        assert scores == [alice_cash + 5 * 800 + 8000, 10000, 8300]
        if as_coded:
            assert scores[0] == 16800


def test_bonus_integer_split_no_rounding():
    # three holders tied for first: each first//3 + second//3
    g, _ = scenario(chains={"Google": ["1A", "1B"]}, hands={0: ["12I"]},
                    shares={0: {"Google": 2}, 1: {"Google": 2}, 2: {"Google": 2}, 3: {"Google": 1}}, cards={})
    assert g.bonuses("Google") == {0: 666 + 333, 1: 999, 2: 999}
    # one first, three tied for second: second//3
    g, _ = scenario(chains={"Google": ["1A", "1B"]}, hands={0: ["12I"]},
                    shares={0: {"Google": 3}, 1: {"Google": 1}, 2: {"Google": 1}, 3: {"Google": 1}}, cards={})
    assert g.bonuses("Google") == {0: 2000, 1: 333, 2: 333, 3: 333}
    # a sole holder takes both
    g, _ = scenario(chains={"Google": ["1A", "1B"]}, hands={0: ["12I"]}, shares={4: {"Google": 1}}, cards={})
    assert g.bonuses("Google") == {4: 3000}


def test_disposal_player_by_player_from_the_current_player():
    # Windward (4) absorbs Google (2) and Amazon (3) through 4E; current player seat 3
    chains = {"Windward": col(4, "A", "D"), "Amazon": row("E", 1, 3), "Google": ["5E", "6E"]}
    g, _ = scenario(chains=chains, hands={3: ["4E"]},
                    shares={0: {"Google": 1, "Amazon": 1}, 2: {"Amazon": 2}, 4: {"Google": 3, "Amazon": 1},
                            5: {"Google": 1}},
                    current=3, cards={})
    ev = g.apply(3, tp("4E"))
    m = by_type(ev, "merger")[0]
    assert m["survivor"] == "Windward" and m["defunct"] == ["Amazon", "Google"]   # larger first
    order = []
    while g.pending().kind == "merge":
        d = g.pending()
        order.append((d.seat, d.options["defunct"]))
        g.apply(d.seat, g.timeout_action(d.seat))
    assert order == [(4, "Amazon"), (4, "Google"), (5, "Google"), (0, "Amazon"), (0, "Google"), (2, "Amazon")]
    assert g.chain_size("Windward") == 4 + 3 + 2 + 1


def test_bonuses_of_every_defunct_chain_are_paid_before_any_disposal_at_pre_merge_prices():
    chains = {"Windward": col(4, "A", "D"), "Amazon": row("E", 1, 3), "Google": ["5E", "6E"]}
    g, _ = scenario(chains=chains, hands={0: ["4E"]},
                    shares={1: {"Google": 2, "Amazon": 1}, 2: {"Amazon": 3}}, cards={})
    ev = g.apply(0, tp("4E"))
    assert [(e["chain"], e["seat"], e["amount"]) for e in by_type(ev, "bonus")] == [
        ("Amazon", 2, 3000), ("Amazon", 1, 1500), ("Google", 1, 3000)]
    assert g.pending().kind == "merge" and g.pending().options["price"] == 300


def test_tied_merge_needs_a_survivor_and_defaults_in_neighbour_order():
    chains = {"Google": ["1E", "2E"], "Amazon": ["4E", "5E"]}
    g, _ = scenario(chains=chains, hands={0: ["3E"]}, cards={})
    assert g.pending().options["survivor"] == {"3E": ["Google", "Amazon"]}
    with pytest.raises(IllegalAction):
        g.apply(0, tp("3E"))
    assert g.normalise(0, {"tile": "3E"})["tile_purchase"]["merge_survivor"] == "Google"   # x-1 first
    assert g.normalise(0, {"tile": "3E", "merge_survivor": "Windward"})["tile_purchase"]["merge_survivor"] == "Google"
    g.apply(0, tp("3E", merge_survivor="Amazon"))
    assert g.chain_size("Amazon") == 5 and g.chain_size("Google") == 0


def test_merge_reply_must_account_for_every_share():
    chains = {"Google": ["1E", "2E", "3E"], "Amazon": ["5E", "6E"]}
    g, _ = scenario(chains=chains, hands={0: ["4E"]}, shares={0: {"Amazon": 5}}, cards={})
    g.apply(0, tp("4E"))
    before = g.to_dict()
    for bad in ({"keep": 1, "sell": 1, "trade": 0}, {"sell": 1, "trade": 3, "keep": 1},
                {"sell": -1, "trade": 6}, {"sell": 5, "trade": 0, "keep": 0, "x": 1}):
        with pytest.raises(IllegalAction):
            g.apply(0, {"merge": bad})
        assert g.to_dict() == before
    g.apply(0, {"merge": {"sell": 1, "trade": 4}})      # keep may be omitted
    assert g.shares[0]["Google"] == 2 and g.cash[0] == 6000 + 3000 + 200


# ----------------------------------------------------------------- dead and unplayable tiles
def test_dead_tiles_are_set_aside_and_replaced():
    safe = {"Google": row("A", 1, 11), "Amazon": row("C", 1, 11), "Windward": ["1I", "2I"]}
    g, ev = scenario(chains=safe, hands={0: ["5B", "12I"]}, cards={}, pile=["12H"])
    assert "5B" in g.dead and "5B" not in g.hand(0)
    assert [e["tile"] for e in by_type(ev, "tile_dead") if e["seat"] == 0] == ["5B"]
    assert g.hand(0)[:2] == ["12I", "12H"]
    assert g.view(0)["map"]["columns"][4][1] == (4, "")
    with pytest.raises(IllegalAction):
        g.apply(0, tp("5B"))


def test_dead_tiles_in_the_pile_are_skipped():
    safe = {"Google": row("A", 1, 11), "Amazon": row("C", 1, 11), "Windward": ["1I", "2I"]}
    g, _ = scenario(chains=safe, hands={0: ["12I"]}, cards={}, pile=["4B", "12H"])
    assert g.hand(0)[:2] == ["12I", "12H"] and "4B" in g.dead
    assert sorted(account(g)) == sorted(T.NAMES)


def test_temporarily_unplayable_tiles_stay_and_a_hopeless_hand_draws_more():
    hand = ["5I", "7I", "6H", "4H", "3G", "5G"]
    g, _ = scenario(chains=SEVEN, lone=["6I", "4G"], hands={0: hand}, pile=["8I", "12A", "12B"], cards={})
    # 5I, 7I, 6H touch 6I; 4H, 3G, 5G touch 4G; 8I touches 7I (in hand, not on the board) only
    assert g.hand(0) == hand + ["8I"]
    assert g.pending().options["tiles"] == ["8I"]
    assert g.view(0)["map"]["columns"][4][8] == (5, "")
    with pytest.raises(IllegalAction):
        g.apply(0, tp("5I", created_hotel="Amazon"))
    g.apply(0, tp("8I"))
    assert len(g.hand(0)) == 6 and "5I" in g.hand(0)


def test_no_playable_tile_still_buys():
    g, ev = scenario(chains=SEVEN, lone=["6I"], hands={0: ["5I", "7I"], 1: ["12I"]}, pile_empty=True, cards={})
    assert by_type(ev, "no_playable_tile") and g.pending().kind == "tile_purchase"
    assert g.pending().options["tiles"] == []
    with pytest.raises(IllegalAction):
        g.apply(0, tp("5I"))
    g.apply(0, tp(None, buy=[("Amazon", 2)]))
    assert g.shares[0]["Amazon"] == 2


# ----------------------------------------------------------------- the end
def test_end_is_checked_before_each_turn_all_safe():
    g, _ = scenario(chains={"Google": row("A", 1, 11), "Amazon": row("C", 1, 10)},
                    hands={0: ["11C"], 1: ["12I"]}, shares={0: {"Amazon": 2}, 1: {"Google": 1}}, cards={})
    assert not g.is_over()
    ev = g.apply(0, tp("11C", buy=[("Amazon", 1)]))
    assert g.is_over() and g.end_reason == "all_safe" and g.pending() is None
    over = by_type(ev, "game_over")[0]
    assert over["scores"] == g.result()["scores"] == [g.score(s) for s in range(6)]
    assert g.result()["scores"][0] == 6000 - 700 + 3 * 700 + 7000 + 3500


def test_end_41_and_not_in_the_middle_of_a_turn():
    big = row("A", 1, 12) + row("B", 1, 12) + row("C", 1, 12) + row("D", 1, 4)    # 40 tiles
    g, _ = scenario(chains={"Windward": big, "Google": ["1I", "2I"]},
                    hands={0: ["5D", "6D", "7D", "8D", "12I", "11I"]}, cards={0: [PLACE_4]})
    g.apply(0, {"card": PLACE_4})
    g.apply(0, {"tile": {"tile": "5D"}})               # 41 tiles: the turn goes on
    assert g.chain_size("Windward") == 41 and not g.is_over()
    g.apply(0, {"tile": {"tile": "6D"}})
    g.apply(0, {"tile": {"tile": "7D"}})
    g.apply(0, tp("8D"))
    assert g.is_over() and g.end_reason == "chain_41"


def test_no_end_without_a_chain_on_the_board():
    g, _ = scenario(hands={0: ["1A"]}, cards={})
    assert not g.is_over()


def test_safety_end_when_nobody_can_ever_place_a_tile():
    safe = {"Google": row("A", 1, 11), "Amazon": row("C", 1, 11), "Windward": ["1I", "2I"]}
    g, _ = scenario(chains=safe, hands={0: ["12I"], 1: ["6B"]}, pile_empty=True, cards={})
    assert g.pending_seat() == 0
    g.apply(0, tp("12I"))
    assert g.is_over() and g.end_reason == "blocked"
    assert sorted(account(g)) == sorted(T.NAMES)


def test_score_formula_and_defunct_shares_worth_nothing():
    g, _ = scenario(chains={"Google": row("A", 1, 6), "Windward": ["1I", "2I"]}, hands={0: ["12E"]},
                    cash={0: 1000, 1: 2000}, shares={0: {"Google": 3, "Amazon": 5}, 1: {"Google": 2, "Windward": 1}},
                    cards={})
    assert g.score(0) == 1000 + 3 * 600 + 6000                       # first in Google; Amazon off the board
    assert g.score(1) == 2000 + 2 * 600 + 3000 + 400 + 4000 + 2000   # second in Google; alone in Windward
    assert g.net_worth(1) == g.score(1)
    assert [p["score"] for p in g.view(0)["players"]] == [g.score(s) for s in range(6)]


def test_result_winners_and_tie_break():
    g, _ = scenario(chains={"Google": row("A", 1, 11)}, hands={0: ["12I"]}, start=False, cards={})
    g._start_turn(0, [])
    assert g.is_over()
    res = g.result()
    assert res["winners"] == [0, 1, 2, 3, 4, 5] and res["winner"] == 0 and res["reason"] == "all_safe"


# ----------------------------------------------------------------- timeouts and legality
def test_timeout_actions_are_concrete_recorded_and_deterministic():
    g, _ = scenario(chains={"Google": ["1A", "1B"]}, hands={0: ["5E", "7G", "9C", "12I"]}, cards={0: [DRAW_5]})
    assert g.timeout_action(0) == {"card": NONE}
    g.apply(0, {"card": NONE})
    a = g.timeout_action(0)
    assert a == g.timeout_action(0) == WindwardGame.from_dict(g.to_dict()).timeout_action(0)
    p = a["tile_purchase"]
    assert p["tile"] in g.playable_tiles(0) and p["buy"] == [] and p["card"] == NONE
    g.apply(0, a)
    assert g.record()["actions"][-1] == {"player": "ann", **a}
    picks = set()
    for seed in range(12):
        h = WindwardGame.new(NAMES6, seed=seed)
        while h.pending().kind == "card":
            h.apply(h.pending_seat(), {"card": NONE})
        picks.add(h.hand(h.pending_seat()).index(h.timeout_action(h.pending_seat())["tile_purchase"]["tile"]))
    assert len(picks) > 1                               # random, not always the first tile
    with pytest.raises(IllegalAction):
        g.timeout_action(0)


def test_timeout_on_a_merge_sells_everything():
    g, _ = scenario(chains={"Google": ["1E", "2E", "3E"], "Amazon": ["5E", "6E"]}, hands={0: ["4E"]},
                    shares={2: {"Amazon": 3}}, cards={})
    g.apply(0, tp("4E"))
    assert g.pending_seat() == 2 and g.timeout_action(2) == {"merge": {"keep": 0, "sell": 3, "trade": 0}}


def test_illegal_actions_change_nothing():
    g = WindwardGame.new(NAMES6, seed=5)
    seat = g.pending_seat()
    if g.pending().kind == "card":
        g.apply(seat, {"card": NONE})
    before = g.to_dict()
    for bad in ([], {"tile_purchase": 3}, {"card": NONE, "x": 1}, {"merge": {}},
                tp("1A" if "1A" not in g.hand(seat) else "2A"), {"tile_purchase": {"tile": "zz"}}):
        with pytest.raises(IllegalAction):
            g.apply(seat, bad)
        assert g.to_dict() == before
    with pytest.raises(IllegalAction):
        g.apply((seat + 1) % 6, g.timeout_action(seat))


def test_legal_actions_are_legal():
    g = WindwardGame.new(NAMES6, seed=21)
    for _ in range(200):
        if g.is_over():
            break
        legal = g.legal_actions()
        assert g.timeout_action(g.pending_seat()) in legal
        for a in legal[:8]:
            g.clone().apply(g.pending_seat(), a)
        g.apply(g.pending_seat(), legal[len(legal) // 2])
