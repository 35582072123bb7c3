"""normalise(): any reply becomes a legal action, as protocol section 7 treats replies."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamehall.interfaces import IllegalAction
from gamehall_acquire.windward.rules import (BUY_5, DRAW_5, FREE_3, NONE, PLACE_4, TRADE_2, WindwardGame,
                                             normalise)

from .scenario import NAMES6, row, scenario


def purchase(g, raw, seat=0):
    return g.normalise(seat, raw)["tile_purchase"]


def test_card_query_codes_names_and_junk():
    g, _ = scenario(hands={0: ["1A"]}, cards={0: [DRAW_5, FREE_3]})
    n = lambda raw: g.normalise(0, raw)
    assert n({"card": "4"}) == {"card": DRAW_5}
    assert n({"cmd": "query-card", "card": 4}) == {"card": DRAW_5}
    assert n({"card": "CARD.DRAW_5_TILES"}) == {"card": DRAW_5}
    assert n({"card": DRAW_5}) == {"card": DRAW_5}
    assert n({"card": 5}) == {"card": NONE}            # not held
    assert n({"card": 1}) == {"card": NONE}            # a purchase card: NONE (not wasted)
    assert n({"card": "-3"}) == {"card": NONE}
    for junk in (None, [], "x", {"card": "x"}, {"card": 4.5}, {"card": True}, {}):
        assert n(junk) == {"card": NONE}
    with pytest.raises(IllegalAction):
        g.normalise(1, {})


def test_tile_not_in_hand_or_not_playable_becomes_the_first_playable():
    chains = {"Google": row("A", 1, 11), "Amazon": row("C", 1, 11), "Windward": ["1I", "2I"]}
    g, _ = scenario(chains=chains, hands={0: ["9F", "7G", "12I"]}, cards={})
    first = g.hand(0)[0]
    assert first == "9F"
    for raw in ({"tile-x": "11", "tile-y": "0"},          # on the board
                {"tile-x": 3, "tile-y": 8},               # not in the hand
                {"tile-x": "abc", "tile-y": "1"}, {"tile-x": "6"}, {"tile-x": -1, "tile-y": 0},
                {"tile": "99Z"}, {"tile": None}, {}):
        assert purchase(g, raw)["tile"] == first, raw
    assert purchase(g, {"tile-x": "6", "tile-y": "6"})["tile"] == "7G"
    assert purchase(g, {"tile_x": 11, "tile_y": 8})["tile"] == "12I"
    assert purchase(g, {"tile": [6, 6]})["tile"] == "7G"
    assert purchase(g, {"tile": "7g"})["tile"] == "7G"


def test_created_hotel_and_survivor_defaults():
    g, _ = scenario(chains={"Amazon": ["1A", "2A"]}, lone=["5E"], hands={0: ["5F"]}, cards={})
    assert purchase(g, {"tile": "5F", "created-hotel": "Amazon"})["created_hotel"] == "Google"   # active
    assert purchase(g, {"tile": "5F", "created-hotel": "Apple"})["created_hotel"] == "Google"    # unknown
    assert purchase(g, {"tile": "5F", "created-hotel": "Windward"})["created_hotel"] == "Windward"
    assert purchase(g, {"tile": "5F"})["created_hotel"] == "Google"
    g, _ = scenario(chains={"Amazon": ["1A", "2A"]}, hands={0: ["12I"]}, cards={})
    p = purchase(g, {"tile": "12I", "created-hotel": "Windward", "merge-survivor": "Amazon"})
    assert "created_hotel" not in p and "merge_survivor" not in p                                 # not needed


def test_buy_entries_skipped_clamped_and_clipped():
    g, _ = scenario(chains={"Google": ["1A", "1B"], "Windward": row("I", 1, 3)}, hands={0: ["12A"]},
                    cards={0: [BUY_5]})
    p = purchase(g, {"buy": "Windward:2;Google:-3;Nope:1;Amazon:1;Google:x;;:;Google:2;"})
    assert p["buy"] == [["Windward", 2], ["Google", 1]]   # negative, unknown, inactive, junk dropped; 3 max
    p = purchase(g, {"card": "2", "buy": "Google:4;Windward:3;"})
    assert p["card"] == BUY_5 and p["buy"] == [["Google", 4], ["Windward", 1]]
    p = purchase(g, {"buy": {"Google": 9}})
    assert p["buy"] == [["Google", 3]]
    p = purchase(g, {"buy": [["Google", "2"], ["Windward"], 7]})
    assert p["buy"] == [["Google", 2]]
    g.apply(0, g.normalise(0, {"buy": "Google:3;Windward:3;"}))
    assert g.shares[0]["Google"] == 3 and g.shares[0]["Windward"] == 0


def test_purchase_cards_and_trades():
    g, _ = scenario(chains={"Google": ["1A", "1B"], "Windward": row("I", 1, 3)}, hands={0: ["12A"]},
                    cards={0: [TRADE_2, PLACE_4]}, shares={0: {"Google": 8}})
    g.apply(0, {"card": NONE})
    p = purchase(g, {"card": "5", "trade": "Google:Windward;"})
    assert p["card"] == NONE and p["trade"] == []         # a pre-turn card here: NONE; no trades without 3
    p = purchase(g, {"card": "1"})
    assert p["card"] == NONE                              # not held
    p = purchase(g, {"card": "3", "trade": "Google:HotelChain Windward;Google:Windward;Amazon:Google;"
                                           "Google:Windward;Google:Windward;Google:Windward;"})
    assert p["card"] == TRADE_2 and p["trade"] == [["Google", "Windward"]] * 3
    g.apply(0, g.normalise(0, {"card": "3", "trade": "Google:Windward;" * 3}))
    assert g.shares[0]["Windward"] == 3 and g.shares[0]["Google"] == 2


def test_merge_reply_as_the_server_computed_it():
    chains = {"Google": ["1E", "2E", "3E"], "Amazon": ["5E", "6E"]}

    def merging(held, taken=0):
        shares = {0: {"Amazon": held}}
        if taken:
            shares[1] = {"Google": 25 - taken}
        g, _ = scenario(chains=chains, hands={0: ["4E"]}, shares=shares, cards={})
        g.apply(0, g.normalise(0, {"tile": "4E"}))
        assert g.pending().kind == "merge"
        return g

    g = merging(5)
    n = lambda raw: g.normalise(0, raw)["merge"]
    assert n({"keep": "-5", "trade": "-3", "sell": "9"}) == {"keep": 0, "sell": 5, "trade": 0}
    assert n({"trade": 9}) == {"keep": 0, "sell": 1, "trade": 4}         # min(trade, held), odd share sold
    assert n({"keep": 9, "trade": 2}) == {"keep": 3, "sell": 0, "trade": 2}
    assert n({"keep": "x", "trade": 3, "sell": 0}) == {"keep": 0, "sell": 3, "trade": 2}
    assert n(None) == {"keep": 0, "sell": 5, "trade": 0}
    assert n({"merge": {"keep": 1, "sell": 2, "trade": 2}}) == {"keep": 1, "sell": 2, "trade": 2}
    g = merging(6, taken=1)                                                # 1 Google share left
    assert g.normalise(0, {"trade": 6})["merge"] == {"keep": 0, "sell": 4, "trade": 2}


def test_module_level_spelling():
    g = WindwardGame.new(NAMES6, seed=2)
    assert normalise(g, g.pending_seat(), None) == g.normalise(g.pending_seat(), None)


def test_legal_actions_pass_through_unchanged():
    g = WindwardGame.new(NAMES6, seed=8)
    for _ in range(150):
        if g.is_over():
            break
        seat = g.pending_seat()
        legal = g.legal_actions()
        for a in legal[:: max(1, len(legal) // 5)]:
            assert g.normalise(seat, a) == a
        g.apply(seat, g.timeout_action(seat))


_junk = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 6, 10 ** 6) | st.floats(allow_nan=True)
    | st.text(max_size=12) | st.sampled_from(["Google", "Windward", "google", "4", "-2", "Amazon:3;", "1A"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=10)
_keys = st.sampled_from(["card", "tile", "tile-x", "tile-y", "tile_x", "created-hotel", "merge-survivor",
                         "created_hotel", "merge_survivor", "buy", "trade", "keep", "sell", "cmd",
                         "tile_purchase", "merge"])
_replies = st.one_of(_junk, st.dictionaries(_keys, _junk, max_size=8))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), steps=st.integers(0, 120), replies=st.lists(_replies, min_size=1, max_size=6))
def test_normalise_never_raises_and_is_always_legal(seed, steps, replies):
    g = WindwardGame.new(NAMES6, seed=seed)
    for i in range(steps):
        if g.is_over():
            return
        g.apply(g.pending_seat(), g.timeout_action(g.pending_seat()))
    for raw in replies:
        if g.is_over():
            return
        seat = g.pending_seat()
        g.apply(seat, g.normalise(seat, raw))
