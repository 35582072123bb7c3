"""Classic Acquire rules, one or more tests per rule.

Positions are forced either with an explicit tile bag (``make_bag``) or, for
situations that would take dozens of turns to reach (safe chains, seven chains
on the board), by editing a fresh game's ``to_dict()`` and loading it back
(``craft``).
"""
from __future__ import annotations

import json

import pytest

from gamehall.interfaces import IEngine, IllegalAction
from gamehall_acquire import chains as C
from gamehall_acquire import tiles as T
from gamehall_acquire.rules import Game, Rules

CHAINS = list(C.CHAINS)


# ----------------------------------------------------------------- helpers
def make_bag(positions, racks, then=()):
    """A full tile bag: position tiles by seat, racks by seat (padded), then the next draws.

    Padding and the rest of the bag come from the far corner (12I, 12H, ...),
    away from the tiles the tests use.
    """
    n = len(positions)
    first = min(range(n), key=lambda s: T.tile_index(positions[s]))
    order = [(first + i) % n for i in range(n)]
    named = set(positions) | set(then) | {t for r in racks for t in r}
    filler = [t for t in reversed(T.NAMES) if t not in named]
    bag = list(positions)
    for seat in order:
        rack = list(racks[seat])
        while len(rack) < 6:
            rack.append(filler.pop(0))
        bag += rack
    bag += list(then) + filler
    assert sorted(bag) == sorted(T.NAMES)
    return bag


def rect(c0, c1, rows):
    """Tiles of columns c0..c1 (inclusive) in the given rows, e.g. rect(1, 4, "ABC")."""
    return [f"{c}{r}" for c in range(c0, c1 + 1) for r in rows]


def craft(n_players=2, chains=None, lone=(), racks=None, cash=None, shares=None, bag=None,
          empty_bag=False, current=0, order=None, fill=None):
    """A game at the start of ``current``'s turn in a made-up position.

    ``bag``: the next draws (the rest of the tiles follow, or are set aside as
    dead when ``empty_bag``).  Racks are padded (unless ``fill`` is false; by
    default only when the bag is not empty) with tiles that touch nothing on
    the board.  Returns (game, events of the turn start).
    """
    players = ["ann", "bob", "cy", "dee", "eve", "fay"][:n_players]
    d = Game.new(players, seed=1).to_dict()
    chains = chains or {}
    racks = racks or {}
    bag = list(bag or [])
    if fill is None:
        fill = not empty_bag
    on_board = {t for ts in chains.values() for t in ts} | set(lone)
    named = on_board | {t for r in racks.values() for t in r} | set(bag)
    fillers = [t for t in reversed(T.NAMES) if t not in named
               and not any(n in on_board for n in T.neighbours(t))]
    rack_lists = []
    for s in range(n_players):
        rack = list(racks.get(s, []))
        while len(rack) < 6:
            rack.append(fillers.pop(0) if fill else None)
        rack_lists.append(rack)
    used = [t for ts in chains.values() for t in ts] + list(lone) + [t for r in rack_lists for t in r if t]
    rest = [t for t in reversed(T.NAMES) if t not in set(used) | set(bag)]
    assert len(set(used)) == len(used)
    dead = rest if empty_bag else []
    remaining = bag if empty_bag else bag + rest
    d["tile_bag"] = used + dead + remaining
    d["bag_pos"] = len(used) + len(dead)
    d["chain_tiles"] = {c: sorted(ts, key=T.tile_index) for c, ts in chains.items()}
    d["lone"] = sorted(lone, key=T.tile_index)
    d["dead"] = sorted(dead, key=T.tile_index)
    d["racks"] = rack_lists
    d["cash"] = list(cash) if cash is not None else [6000] * n_players
    held = [[0] * 7 for _ in range(n_players)]
    for seat, hs in (shares or {}).items():
        for chain, k in hs.items():
            held[seat][CHAINS.index(chain)] = k
    d["shares"] = held
    d["order"] = list(order) if order is not None else list(range(n_players))
    d["turn_pos"] = d["order"].index(current)
    d["phase"] = None
    d["tile"] = None
    d["merge"] = None
    d["actions"] = []
    g = Game.from_dict(d)
    ev: list = []
    g._start_turn(d["turn_pos"], ev)
    return g, ev


def types(events):
    return [e["type"] for e in events]


def of_type(events, kind):
    return [e for e in events if e["type"] == kind]


def check_accounting(g):
    tiles = list(g.board) + list(g.dead) + [t for r in g.racks for t in r if t] + g.bag
    assert sorted(tiles) == sorted(T.NAMES)
    for c in CHAINS:
        assert g.available(c) + sum(s[c] for s in g.shares) == 25


def buy_nothing(g):
    d = g.pending()
    assert d.kind == "purchase"
    return g.apply(d.seat, {"purchase": {}, "end_game": False})


# ------------------------------------------------------------ tiles, chains
def test_tile_ids_are_column_major():
    assert T.tile_id("1A") == 1
    assert T.tile_id("1B") == 2
    assert T.tile_id("1I") == 9
    assert T.tile_id("2A") == 10
    assert T.tile_id("12I") == 108
    assert T.tile_id("1a") == 1
    assert [T.tile_name(i) for i in range(1, 109)] == T.all_tiles()
    assert all(T.tile_id(T.tile_name(i)) == i for i in range(1, 109))
    assert len(set(T.all_tiles())) == 108
    for bad in ("0A", "13A", "1J", "", "A1", None):
        with pytest.raises(ValueError):
            T.tile_id(bad)
    for bad in (0, 109, "1", True):
        with pytest.raises(ValueError):
            T.tile_name(bad)
    assert sorted(T.neighbours("1A")) == ["1B", "2A"]
    assert sorted(T.neighbours("5E")) == ["4E", "5D", "5F", "6E"]


def test_chain_order_and_aliases():
    assert CHAINS == ["Luxor", "Tower", "American", "Festival", "Worldwide", "Continental", "Imperial"]
    pairs = {"Sackson": "Luxor", "Zeta": "Tower", "America": "American", "Fusion": "Festival",
             "Hydra": "Worldwide", "Quantum": "Continental", "Phoenix": "Imperial"}
    for alias, chain in pairs.items():
        assert C.canonical(alias) == chain
        assert C.canonical(alias.upper()) == chain
        assert C.canonical(alias.lower()) == chain
        assert C.canonical(chain.lower()) == chain
    assert [C.netacquire_index(c) for c in CHAINS] == [1, 2, 3, 4, 5, 6, 7]
    with pytest.raises(IllegalAction):
        C.canonical("Hilton")
    with pytest.raises(ValueError):
        C.canonical("")


def test_price_table_and_rules_object():
    base = {2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 10: 6, 11: 7, 20: 7, 21: 8, 30: 8, 31: 9, 40: 9, 41: 10, 108: 10}
    premium = {"Luxor": 0, "Tower": 0, "American": 1, "Festival": 1, "Worldwide": 1,
               "Continental": 2, "Imperial": 2}
    for chain, p in premium.items():
        assert C.price(chain, 0) == 0
        assert C.price(chain, 1) == 0
        for size, b in base.items():
            assert C.price(chain, size) == 100 * (b + p)
    r = Rules()
    assert r.start_cash == 6000 and r.rack_size == 6 and r.shares_per_chain == 25
    assert r.safe_size == 11 and r.end_size == 41 and r.max_buy == 3
    assert r.price(CHAINS.index("Imperial"), 41) == 1200
    assert Rules.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    custom = Rules(start_cash=8000, chains=("A", "B"), premiums=(0, 1), aliases={"x": "A"})
    assert custom.canonical("X") == "A"
    assert Rules.from_dict(custom.to_dict()) == custom


def test_rules_parameters_drive_the_game():
    r = Rules(start_cash=9000, rack_size=5)
    g = Game.new(["a", "b"], seed=3, rules=r)
    assert g.cash == [9000, 9000]
    assert all(len(rack) == 5 for rack in g.racks)


# ------------------------------------------------------------------ setup
def test_two_to_six_players():
    for n in (2, 6):
        g = Game.new([f"p{i}" for i in range(n)], seed=1)
        assert len(g.players) == n
        assert IEngine.providedBy(g)
    for n in (0, 1, 7):
        with pytest.raises(ValueError):
            Game.new([f"p{i}" for i in range(n)], seed=1)
    with pytest.raises(ValueError):
        Game.new(["a", "a"], seed=1)


def test_start_state():
    g = Game.new(["a", "b", "c"], seed=9)
    assert g.cash == [6000] * 3
    assert all(g.available(c) == 25 for c in CHAINS)
    assert g.chains_on_board() == []
    assert all(all(t is not None for t in rack) and len(rack) == 6 for rack in g.racks)
    assert len(g.board) == 3 and set(g.board.values()) == {None}
    check_accounting(g)


def test_seed_determinism_and_bag_is_a_permutation():
    a = Game.new(["a", "b", "c"], seed=123)
    b = Game.new(["a", "b", "c"], seed=123)
    c = Game.new(["a", "b", "c"], seed=124)
    assert a.to_dict() == b.to_dict()
    assert a.record()["tile_bag"] != c.record()["tile_bag"]
    assert sorted(a.record()["tile_bag"]) == sorted(T.NAMES)
    same = Game.new(["a", "b", "c"], tile_bag=a.record()["tile_bag"])
    assert same.racks == a.racks and same.board == a.board and same.order == a.order
    with pytest.raises(ValueError):
        Game.new(["a", "b"], tile_bag=T.all_tiles()[:-1] + ["1A"])


def test_position_tiles_decide_play_order():
    # 1B is nearer 1A than 2A (column first, then row)
    bag = make_bag(["2A", "1B", "7E"], [[], [], []])
    g = Game.new(["ann", "bob", "cy"], tile_bag=bag)
    assert g.order == [1, 2, 0]
    assert g.current == 1 and g.pending().seat == 1 and g.pending().kind == "play_tile"
    assert g.board == {"2A": None, "1B": None, "7E": None}
    # racks are drawn in play order: bob, cy, ann
    assert g.racks[1] == bag[3:9]
    assert g.racks[2] == bag[9:15]
    assert g.racks[0] == bag[15:21]
    assert g.bag == bag[21:]
    ev = g.initial_events
    assert of_type(ev, "position_tile")[1] == {"type": "position_tile", "seat": 1, "tile": "1B"}
    assert ev[-1] == {"type": "turn", "seat": 1}
    drawn = of_type(ev, "tile_drawn")
    assert [(e["seat"], e["slot"]) for e in drawn[:7]] == [(1, i) for i in range(6)] + [(2, 0)]


def test_adjacent_position_tiles_stay_lone():
    bag = make_bag(["3C", "3D", "4C"], [[], [], []])
    g = Game.new(["a", "b", "c"], tile_bag=bag)
    assert g.board == {"3C": None, "3D": None, "4C": None}
    assert g.chains_on_board() == []
    assert g.order == [0, 1, 2]


# ----------------------------------------------------------- a whole sequence
def sequence_game():
    """ann founds Luxor, bob founds Tower, both grow, ann merges them (3 v 3)."""
    bag = make_bag(["1A", "5A"], [["1B", "2A", "3A"], ["5B", "4A"]],
                   then=["10A", "10C", "10E", "10G", "10I"])
    return Game.new(["ann", "bob"], tile_bag=bag)


def test_found_grow_and_tied_merger_through_the_bag():
    g = sequence_game()
    assert g.order == [0, 1]
    assert g.tile_status("1B") == "found"
    ev = g.apply(0, {"play_tile": "1B"})
    assert ev == [{"type": "tile_played", "seat": 0, "tile": "1B", "slot": 0}]
    d = g.pending()
    assert d.kind == "found_chain" and d.options == {"chains": CHAINS}
    ev = g.apply(0, {"found_chain": "sackson"})                  # alias
    assert ev == [{"type": "chain_founded", "seat": 0, "chain": "Luxor", "tiles": ["1A", "1B"],
                   "free_share": True}]
    assert g.shares[0]["Luxor"] == 1 and g.available("Luxor") == 24
    assert g.board["1A"] == g.board["1B"] == "Luxor"
    assert g.pending().options == {"can_end": False, "cash": 6000, "chains": {"Luxor": 3},
                                   "prices": {"Luxor": 200}}
    ev = g.apply(0, {"purchase": {"Luxor": 2}, "end_game": False})
    assert ev[0] == {"type": "purchased", "seat": 0, "shares": {"Luxor": 2}, "cost": 400, "cash": 5600}
    # refill: the played slot is refilled (private draw), then bob's turn
    assert ev[1] == {"type": "tile_drawn", "seat": 0, "slot": 0, "tile": "10A"}
    assert ev[-1] == {"type": "turn", "seat": 1}
    assert g.racks[0][0] == "10A"

    g.apply(1, {"play_tile": "5B"})
    g.apply(1, {"found_chain": "Tower"})
    buy_nothing(g)
    assert g.chains_on_board() == ["Luxor", "Tower"]

    assert g.tile_status("2A") == "grow"
    g.apply(0, {"play_tile": "2A"})
    ev = buy_nothing(g)
    g.apply(1, {"play_tile": "4A"})
    buy_nothing(g)
    assert g.chain_size("Luxor") == 3 and g.chain_size("Tower") == 3

    assert g.tile_status("3A") == "merge"
    g.apply(0, {"play_tile": "3A"})
    d = g.pending()
    assert d.kind == "choose_survivor" and d.options == {"chains": ["Luxor", "Tower"]}
    ev = g.apply(0, {"choose_survivor": "Zeta"})
    assert ev[0] == {"type": "merger", "seat": 0, "tile": "3A", "survivor": "Tower",
                     "defunct": ["Luxor"], "sizes": {"Luxor": 3, "Tower": 3}}
    # ann holds all 3 Luxor shares: sole holder takes both bonuses (price 300)
    assert ev[1] == {"type": "bonus", "chain": "Luxor", "seat": 0, "amount": 4500, "kind": "both"}
    d = g.pending()
    assert d.kind == "dispose"
    assert d.options == {"chain": "Luxor", "survivor": "Tower", "shares": 3, "survivor_available": 24,
                         "merger_seat": 0, "price": 300}
    ev = g.apply(0, {"dispose": {"sell": 1, "trade": 2}})
    assert ev[0] == {"type": "disposed", "seat": 0, "chain": "Luxor", "sold": 1, "traded": 2,
                     "kept": 0, "received": 1, "cash": 5600 + 4500 + 300}
    assert ev[1] == {"type": "merger_done", "survivor": "Tower",
                     "tiles": ["1A", "1B", "2A", "3A", "4A", "5A", "5B"]}
    assert g.chains_on_board() == ["Tower"]
    assert g.shares[0]["Tower"] == 1 and g.shares[1]["Tower"] == 1
    assert g.available("Luxor") == 25 and g.available("Tower") == 23
    assert g.pending().kind == "purchase"
    check_accounting(g)


# ------------------------------------------------------------- founding
def test_founding_without_shares_left_gives_no_free_share():
    g, _ = craft(chains={"Luxor": ["1A", "2A"]}, lone=["5E"], racks={0: ["5F"]},
                 shares={1: {"Tower": 25}})
    g.apply(0, {"play_tile": "5F"})
    assert g.pending().options["chains"] == CHAINS[1:]
    ev = g.apply(0, {"found_chain": "Tower"})
    assert ev[0]["free_share"] is False
    assert g.shares[0]["Tower"] == 0 and g.available("Tower") == 0
    # the buy step still happens: Luxor is buyable
    assert g.pending().options["chains"] == {"Luxor": 3}


def test_founding_takes_all_connected_lone_tiles():
    g, _ = craft(lone=["5E", "5D", "7F"], racks={0: ["6F"]})
    # 6F touches 7F, which is alone; 5E/5D are not connected to 6F
    g.apply(0, {"play_tile": "6F"})
    ev = g.apply(0, {"found_chain": "Imperial"})
    assert ev[0]["tiles"] == ["6F", "7F"]
    g2, _ = craft(lone=["5E", "5D", "7E"], racks={0: ["6E"]})
    g2.apply(0, {"play_tile": "6E"})
    ev = g2.apply(0, {"found_chain": "Imperial"})
    assert ev[0]["tiles"] == ["5D", "5E", "6E", "7E"]
    assert g2.chain_size("Imperial") == 4 and g2.price("Imperial") == 600


def test_found_chain_refuses_chain_on_board():
    g, _ = craft(chains={"Luxor": ["1A", "2A"]}, lone=["5E"], racks={0: ["5F"]})
    g.apply(0, {"play_tile": "5F"})
    before = g.to_dict()
    for bad in ("Luxor", "sackson", "Hilton", 3, None):
        with pytest.raises(IllegalAction):
            g.apply(0, {"found_chain": bad})
    assert g.to_dict() == before


def test_simple_tile_and_buy_step_skipped_without_chains():
    g, _ = craft(racks={0: ["5E"]})
    assert g.tile_status("5E") == "playable"
    ev = g.apply(0, {"play_tile": "5E"})
    # no chain on the board: no buy step, straight to refill (a 6-slot rack) and bob's turn
    assert types(ev) == ["tile_played", "tile_drawn", "turn"]
    assert g.pending().seat == 1 and g.pending().kind == "play_tile"


# ---------------------------------------------------------------- growing
def test_grow_takes_played_tile_and_connected_lone_tiles():
    g, _ = craft(chains={"Festival": ["1A", "2A"]}, lone=["3B", "4B"], racks={0: ["3A"]})
    assert g.tile_status("3A") == "grow"
    ev = g.apply(0, {"play_tile": "3A"})
    assert ev[1] == {"type": "chain_grew", "seat": 0, "chain": "Festival", "tiles": ["3A", "3B", "4B"]}
    assert g.chain_size("Festival") == 5 and g.price("Festival") == 600
    assert g.chain_tiles("Festival") == ["1A", "2A", "3A", "3B", "4B"]


# ---------------------------------------------------------- unplayable tiles
SEVEN = {"Luxor": ["1A", "2A"], "Tower": ["1C", "2C"], "American": ["1E", "2E"],
         "Festival": ["1G", "2G"], "Worldwide": ["1I", "2I"], "Continental": ["5A", "6A"],
         "Imperial": ["5C", "6C"]}


def test_eighth_chain_tile_is_held_not_dead():
    g, _ = craft(chains=SEVEN, lone=["10E"], racks={0: ["10F", "12A"]})
    assert g.tile_status("10F") == "unplayable_now"
    assert "10F" not in g.pending().options["tiles"] and "12A" in g.pending().options["tiles"]
    before = g.to_dict()
    with pytest.raises(IllegalAction, match="eighth"):
        g.apply(0, {"play_tile": "10F"})
    assert g.to_dict() == before
    g.apply(0, {"play_tile": "12A"})
    buy_nothing(g)
    assert "10F" in g.racks[0] and "10F" not in g.dead


def test_no_playable_tile_still_buys():
    rack = ["10D", "10F", "9E", "11E", "12F", "12H"]
    g, ev = craft(chains=SEVEN, lone=["10E", "12G"], racks={0: rack})
    assert all(g.tile_status(t) == "unplayable_now" for t in rack)
    assert types(ev) == ["turn", "no_playable_tile"]
    d = g.pending()
    assert d.seat == 0 and d.kind == "purchase"
    ev = g.apply(0, {"purchase": {"Imperial": 1}, "end_game": False})
    assert g.shares[0]["Imperial"] == 1 and g.cash[0] == 6000 - 400
    assert ev[-1] == {"type": "turn", "seat": 1}
    assert g.racks[0] == rack                                  # nothing drawn: rack full


SAFE2 = {"Luxor": rect(1, 4, "ABC"), "Tower": rect(6, 9, "ABC")}     # 12 tiles each


def test_tile_merging_two_safe_chains_is_dead():
    g, _ = craft(chains=SAFE2, racks={0: ["5B", "12I"]})
    assert g.is_safe("Luxor") and g.is_safe("Tower")
    assert g.tile_status("5B") == "dead"
    assert "5B" not in g.pending().options["tiles"]
    assert g.pending().options["tiles"][0] == "12I"
    with pytest.raises(IllegalAction, match="never"):
        g.apply(0, {"play_tile": "5B"})


def test_tile_merging_safe_and_unsafe_chain_is_playable():
    chains = {"Luxor": rect(1, 4, "ABC"), "Tower": ["6B", "7B"]}
    g, _ = craft(chains=chains, racks={0: ["5B"]}, shares={1: {"Tower": 1}})
    assert g.tile_status("5B") == "merge"
    ev = g.apply(0, {"play_tile": "5B"})
    assert of_type(ev, "merger")[0]["survivor"] == "Luxor"


def test_dead_tiles_replaced_in_slot_order_after_the_turn():
    rack = ["10G", "5A", "10I", "5B", "12E", "12G"]
    g, _ = craft(chains=SAFE2, racks={0: rack}, bag=["11A", "5C", "12A", "12C"])
    assert [g.tile_status(t) for t in rack[1::2]] == ["dead", "dead", "playable"]
    g.apply(0, {"play_tile": "10G"})
    ev = buy_nothing(g)
    assert [(e["type"], e.get("slot"), e.get("tile")) for e in ev[1:-1]] == [
        ("tile_drawn", 0, "11A"),
        ("tile_dead", 1, "5A"), ("tile_drawn", 1, "5C"),        # the replacement is dead too
        ("tile_dead", 1, "5C"), ("tile_drawn", 1, "12A"),
        ("tile_dead", 3, "5B"), ("tile_drawn", 3, "12C"),
    ]
    assert g.racks[0] == ["11A", "12A", "10I", "12C", "12E", "12G"]
    assert g.dead == {"5A", "5B", "5C"}
    assert g.tile_status("5A") == "dead"
    check_accounting(g)


def test_dead_tiles_set_aside_even_when_the_bag_is_empty():
    g, _ = craft(chains=SAFE2, racks={0: ["10G", "5A"], 1: ["12A"]}, empty_bag=True)
    g.apply(0, {"play_tile": "10G"})
    ev = buy_nothing(g)
    assert ("tile_dead", 1, "5A") in [(e["type"], e.get("slot"), e.get("tile")) for e in ev]
    assert g.racks[0] == [None] * 6
    assert g.pending().seat == 1


# ------------------------------------------------------------------ mergers
def merger_game():
    chains = {"Luxor": ["1A", "2A", "3A"], "Tower": ["5A", "6A"]}
    shares = {0: {"Tower": 2, "Luxor": 20}, 1: {"Tower": 2, "Luxor": 3}, 2: {"Tower": 1, "Luxor": 1}}
    return craft(3, chains=chains, lone=["4B"], racks={1: ["4A", "12A"]}, shares=shares, current=1)


def test_two_way_merger_bonuses_disposal_order_and_trade_limit():
    g, _ = merger_game()
    ev = g.apply(1, {"play_tile": "4A"})
    assert types(ev) == ["tile_played", "merger", "bonus", "bonus"]
    assert ev[1] == {"type": "merger", "seat": 1, "tile": "4A", "survivor": "Luxor",
                     "defunct": ["Tower"], "sizes": {"Luxor": 3, "Tower": 2}}
    # ann and bob tie for first in Tower (price 200): split 2000+1000
    assert ev[2:] == [
        {"type": "bonus", "chain": "Tower", "seat": 0, "amount": 1500, "kind": "split_first"},
        {"type": "bonus", "chain": "Tower", "seat": 1, "amount": 1500, "kind": "split_first"},
    ]
    # disposal starts with the merging player (bob), then cy, then ann
    d = g.pending()
    assert (d.seat, d.kind) == (1, "dispose")
    assert d.options == {"chain": "Tower", "survivor": "Luxor", "shares": 2, "survivor_available": 1,
                         "merger_seat": 1, "price": 200}
    assert g.legal_actions() == [{"dispose": {"sell": 0, "trade": 0}}, {"dispose": {"sell": 1, "trade": 0}},
                                 {"dispose": {"sell": 2, "trade": 0}}, {"dispose": {"sell": 0, "trade": 2}}]
    before = g.to_dict()
    for bad in ({"sell": 3}, {"trade": 1}, {"trade": 4}, {"sell": 1, "trade": 2}, {"sell": -1},
                {"sell": "1"}, {"swap": 1}, [1, 0]):
        with pytest.raises(IllegalAction):
            g.apply(1, {"dispose": bad})
    with pytest.raises(IllegalAction, match="not your decision"):
        g.apply(0, {"dispose": {"sell": 0, "trade": 0}})
    assert g.to_dict() == before
    ev = g.apply(1, {"dispose": {"trade": 2}})
    assert ev == [{"type": "disposed", "seat": 1, "chain": "Tower", "sold": 0, "traded": 2, "kept": 0,
                   "received": 1, "cash": 7500}]
    d = g.pending()
    assert d.seat == 2 and d.options["survivor_available"] == 0
    with pytest.raises(IllegalAction):
        g.apply(2, {"dispose": {"trade": 2}})
    ev = g.apply(2, {"dispose": {"sell": 1}})
    assert ev[0]["cash"] == 6200 and ev[0]["kept"] == 0
    d = g.pending()
    assert d.seat == 0 and d.options["shares"] == 2
    with pytest.raises(IllegalAction, match="only 0 Luxor"):
        g.apply(0, {"dispose": {"trade": 2}})
    ev = g.apply(0, {"dispose": {"sell": 0, "trade": 0}})
    assert ev[0] == {"type": "disposed", "seat": 0, "chain": "Tower", "sold": 0, "traded": 0, "kept": 2,
                     "received": 0, "cash": 7500}
    assert ev[1] == {"type": "merger_done", "survivor": "Luxor",
                     "tiles": ["1A", "2A", "3A", "4A", "4B", "5A", "6A"]}
    # the lone tile 4B joined; Luxor has no shares left and nothing else is on the board:
    # bob's buy step is skipped, cy's turn begins
    assert ev[-1] == {"type": "turn", "seat": 2}
    assert g.shares[1]["Luxor"] == 4 and g.shares[0]["Tower"] == 2
    assert g.cash == [7500, 7500, 6200]
    assert g.chains_on_board() == ["Luxor"] and g.price("Tower") == 0
    check_accounting(g)


def test_merger_state_survives_a_json_round_trip():
    g, _ = merger_game()
    g.apply(1, {"play_tile": "4A"})
    g.apply(1, {"dispose": {"trade": 2}})
    d = json.loads(json.dumps(g.to_dict()))
    g2 = Game.from_dict(d)
    assert g2.to_dict() == g.to_dict()
    assert g2.pending() == g.pending()
    assert g2.apply(2, {"dispose": {"sell": 1}}) == g.apply(2, {"dispose": {"sell": 1}})


def three_way():
    chains = {"Continental": ["1E", "2E", "3E", "4E"], "Tower": ["5C", "5D"], "American": ["5F", "5G"]}
    shares = {0: {"Tower": 1, "American": 2}, 1: {"Tower": 3, "American": 2}}
    return craft(chains=chains, racks={0: ["5E"]}, shares=shares)


def test_three_way_merger_defunct_tie_order_chosen_and_all_bonuses_first():
    g, _ = three_way()
    ev = g.apply(0, {"play_tile": "5E"})
    assert types(ev) == ["tile_played"]
    d = g.pending()
    assert d.kind == "choose_defunct" and d.options == {"chains": ["Tower", "American"]}
    before = g.to_dict()
    for bad in ("Continental", "Luxor", "Nowhere"):
        with pytest.raises(IllegalAction):
            g.apply(0, {"choose_defunct": bad})
    with pytest.raises(IllegalAction):
        g.apply(0, {"choose_survivor": "Tower"})
    assert g.to_dict() == before
    ev = g.apply(0, {"choose_defunct": "america"})
    assert ev[0]["defunct"] == ["American", "Tower"] and ev[0]["survivor"] == "Continental"
    assert ev[1:] == [
        # American, price 300: tie for first, (3000 + 1500) / 2 = 2250 -> 2300
        {"type": "bonus", "chain": "American", "seat": 0, "amount": 2300, "kind": "split_first"},
        {"type": "bonus", "chain": "American", "seat": 1, "amount": 2300, "kind": "split_first"},
        {"type": "bonus", "chain": "Tower", "seat": 1, "amount": 2000, "kind": "first"},
        {"type": "bonus", "chain": "Tower", "seat": 0, "amount": 1000, "kind": "second"},
    ]
    seq = []
    while g.pending().kind == "dispose":
        d = g.pending()
        seq.append((d.options["chain"], d.seat))
        g.apply(d.seat, {"dispose": {"sell": d.options["shares"]}})
    assert seq == [("American", 0), ("American", 1), ("Tower", 0), ("Tower", 1)]
    assert g.cash == [6000 + 3300 + 600 + 200, 6000 + 4300 + 600 + 600]
    assert g.chain_size("Continental") == 9
    check_accounting(g)


def test_three_way_tie_survivor_then_defunct_choice():
    chains = {"Luxor": ["5C", "5D"], "Tower": ["5F", "5G"], "Festival": ["3E", "4E"]}
    g, _ = craft(chains=chains, racks={0: ["5E"]}, shares={1: {"Luxor": 1, "Tower": 1, "Festival": 1}})
    g.apply(0, {"play_tile": "5E"})
    d = g.pending()
    assert d.kind == "choose_survivor" and d.options == {"chains": ["Luxor", "Tower", "Festival"]}
    with pytest.raises(IllegalAction):
        g.apply(0, {"choose_survivor": "Imperial"})
    assert g.apply(0, {"choose_survivor": "Festival"}) == []
    assert g.pending().options == {"chains": ["Luxor", "Tower"]}
    ev = g.apply(0, {"choose_defunct": "Tower"})
    assert ev[0]["defunct"] == ["Tower", "Luxor"]
    # sole holder of each defunct chain takes both bonuses; bob disposes although ann merged
    assert [(e["chain"], e["seat"], e["amount"], e["kind"]) for e in ev[1:]] == [
        ("Tower", 1, 3000, "both"), ("Luxor", 1, 3000, "both")]
    assert g.pending().seat == 1 and g.pending().options["chain"] == "Tower"


def test_merger_larger_chain_survives_without_a_choice_and_defunct_largest_first():
    chains = {"Luxor": ["5C", "5D"], "Tower": ["5F", "5G", "5H"], "Imperial": rect(1, 4, "E")}
    g, _ = craft(chains=chains, racks={0: ["5E"]})
    ev = g.apply(0, {"play_tile": "5E"})
    assert ev[1]["survivor"] == "Imperial" and ev[1]["defunct"] == ["Tower", "Luxor"]
    # nobody holds shares: no bonus, no disposal
    assert types(ev)[:3] == ["tile_played", "merger", "merger_done"]
    assert g.chain_size("Imperial") == 10


def test_bonus_rules():
    # American (price 300): first 3000, second 1500
    def bonuses(shares, n=4, chain="American"):
        g, _ = craft(n, chains={chain: ["1A", "2A"]}, shares=shares)
        return g.bonuses(chain)

    assert bonuses({}) == {}                                             # no holder, no bonus
    assert bonuses({2: {"American": 1}}) == {2: 4500}                    # sole holder: both
    assert bonuses({0: {"American": 5}, 1: {"American": 2}}) == {0: 3000, 1: 1500}
    assert bonuses({0: {"American": 5}, 1: {"American": 2}, 2: {"American": 2}}) == \
        {0: 3000, 1: 800, 2: 800}                                        # 1500/2 = 750 -> 800
    assert bonuses({0: {"American": 2}, 1: {"American": 2}, 3: {"American": 1}}) == \
        {0: 2300, 1: 2300}                                               # 4500/2 -> 2300, no second
    assert bonuses({s: {"American": 4} for s in range(3)}) == {0: 1500, 1: 1500, 2: 1500}
    # Tower (price 200): 4-way tie for first: 3000/4 = 750 -> 800; 3-way second 1000/3 -> 400
    assert bonuses({s: {"Tower": 3} for s in range(4)}, chain="Tower") == {s: 800 for s in range(4)}
    assert bonuses({0: {"Tower": 9}, 1: {"Tower": 1}, 2: {"Tower": 1}, 3: {"Tower": 1}},
                   chain="Tower") == {0: 2000, 1: 400, 2: 400, 3: 400}


def test_net_worth_counts_cash_shares_and_bonuses():
    g, _ = craft(chains={"American": ["1A", "2A"]}, shares={0: {"American": 2}, 1: {"American": 1}},
                 cash=[1000, 2000])
    assert g.net_worth(0) == 1000 + 600 + 3000
    assert g.net_worth(1) == 2000 + 300 + 1500


# ---------------------------------------------------------------- buying
def buying_game(cash=None):
    chains = {"Luxor": ["1A", "2A"], "Continental": ["5A", "6A"]}
    g, _ = craft(chains=chains, racks={0: ["10E"]}, cash=cash, shares={1: {"Continental": 24}})
    g.apply(0, {"play_tile": "10E"})
    return g


def test_purchase_rules():
    g = buying_game()
    d = g.pending()
    assert d.options == {"can_end": False, "cash": 6000, "chains": {"Luxor": 3, "Continental": 1},
                         "prices": {"Luxor": 200, "Continental": 400}}
    before = g.to_dict()
    for bad in ({"Luxor": 4}, {"Luxor": 2, "Sackson": 2}, {"Continental": 2}, {"Tower": 1},
                {"Hilton": 1}, {"Luxor": -1}, {"Luxor": 1.0}, {"Luxor": True}, ["Luxor"]):
        with pytest.raises(IllegalAction):
            g.apply(0, {"purchase": bad, "end_game": False})
    with pytest.raises(IllegalAction, match="cannot be ended"):
        g.apply(0, {"purchase": {}, "end_game": True})
    with pytest.raises(IllegalAction):
        g.apply(0, {"purchase": {}, "end_game": "yes"})
    with pytest.raises(IllegalAction):
        g.apply(0, {"play_tile": "10E"})
    with pytest.raises(IllegalAction):
        g.apply(0, {"purchase": {}, "extra": 1})
    assert g.to_dict() == before
    # alias and canonical name add up; at the price of the moment
    ev = g.apply(0, {"purchase": {"sackson": 1, "Luxor": 1, "Quantum": 1}})
    assert ev[0] == {"type": "purchased", "seat": 0, "shares": {"Luxor": 2, "Continental": 1},
                     "cost": 800, "cash": 5200}
    assert g.shares[0]["Luxor"] == 2 and g.available("Continental") == 0
    assert g.record()["actions"][-1] == {"player": "ann", "purchase": {"Luxor": 2, "Continental": 1},
                                         "end_game": False}


def test_purchase_cash_must_cover_the_total():
    g = buying_game(cash=[500, 6000])
    assert g.pending().options["chains"] == {"Luxor": 2, "Continental": 1}
    with pytest.raises(IllegalAction, match="cost"):
        g.apply(0, {"purchase": {"Luxor": 1, "Continental": 1}})
    legal = g.legal_actions()
    assert {"purchase": {"Luxor": 1, "Continental": 1}, "end_game": False} not in legal
    assert sorted(json.dumps(a["purchase"], sort_keys=True) for a in legal) == sorted(
        json.dumps(x, sort_keys=True) for x in
        [{}, {"Luxor": 1}, {"Luxor": 2}, {"Continental": 1}])
    g.apply(0, {"purchase": {"Luxor": 2}})
    assert g.cash[0] == 100


def test_legal_purchases_enumerate_multisets():
    g = buying_game()
    legal = g.legal_actions()
    # Luxor up to 3, Continental up to 1 (available), at most 3 in all
    assert len(legal) == 1 + 2 + 2 + 2
    for a in legal:
        g2 = Game.from_dict(g.to_dict())
        g2.apply(0, a)


def test_buy_step_skipped_when_nothing_is_affordable():
    g, _ = craft(chains={"Luxor": ["1A", "2A"]}, racks={0: ["10E"]}, cash=[100, 6000])
    ev = g.apply(0, {"play_tile": "10E"})
    assert types(ev) == ["tile_played", "tile_drawn", "turn"]
    assert g.pending().seat == 1


def test_buy_step_skipped_when_no_share_is_available():
    g, _ = craft(chains={"Luxor": ["1A", "2A"]}, racks={0: ["10E"]}, shares={1: {"Luxor": 25}})
    ev = g.apply(0, {"play_tile": "10E"})
    assert types(ev)[-1] == "turn" and g.pending().seat == 1


def test_buy_step_kept_when_the_game_can_be_ended():
    g, _ = craft(chains={"Luxor": rect(1, 5, T.ROWS)}, racks={0: ["10E"]}, cash=[0, 6000])
    g.apply(0, {"play_tile": "10E"})
    d = g.pending()
    assert d.kind == "purchase" and d.options == {"can_end": True, "cash": 0, "chains": {"Luxor": 0},
                                                  "prices": {"Luxor": 1000}}
    assert g.legal_actions() == [{"purchase": {}, "end_game": False}, {"purchase": {}, "end_game": True}]


# ---------------------------------------------------------------- the end
def test_claim_end_with_a_41_tile_chain_and_final_scoring():
    chains = {"Luxor": rect(1, 5, T.ROWS), "Tower": ["8A", "9A"]}
    shares = {0: {"Luxor": 3, "Tower": 1}, 1: {"Luxor": 3}, 2: {"Tower": 2}}
    g, _ = craft(3, chains=chains, racks={0: ["12I"]}, shares=shares)
    assert g.chain_size("Luxor") == 45 and g.price("Luxor") == 1000
    g.apply(0, {"play_tile": "12I"})
    assert g.pending().options["can_end"] is True
    ev = g.apply(0, {"purchase": {"Tower": 1}, "end_game": True})
    assert types(ev) == ["purchased"] + ["final_bonus"] * 4 + ["game_over"]
    assert of_type(ev, "final_bonus") == [
        {"type": "final_bonus", "chain": "Luxor", "seat": 0, "amount": 7500, "kind": "split_first"},
        {"type": "final_bonus", "chain": "Luxor", "seat": 1, "amount": 7500, "kind": "split_first"},
        # ann bought her second Tower share: 2 v 2 with cy, (2000 + 1000) / 2 each
        {"type": "final_bonus", "chain": "Tower", "seat": 0, "amount": 1500, "kind": "split_first"},
        {"type": "final_bonus", "chain": "Tower", "seat": 2, "amount": 1500, "kind": "split_first"},
    ]
    over = ev[-1]
    cash0 = 6000 - 200 + 7500 + 1500 + 3000 + 2 * 200
    cash1 = 6000 + 7500 + 3000
    cash2 = 6000 + 1500 + 400
    assert over == {"type": "game_over", "reason": "claimed", "scores": [cash0, cash1, cash2],
                    "winners": [0],
                    "final": [{"seat": 0, "cash": cash0, "bonuses": 9000, "sales": 3400},
                              {"seat": 1, "cash": cash1, "bonuses": 7500, "sales": 3000},
                              {"seat": 2, "cash": cash2, "bonuses": 1500, "sales": 400}]}
    assert g.is_over() and g.pending() is None and g.pending_seat() is None
    assert g.result() == {"scores": [cash0, cash1, cash2], "winners": [0], "reason": "claimed"}
    assert g.end_reason == "claimed"
    assert g.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        g.apply(1, {"play_tile": "1A"})
    check_accounting(g)


def test_claim_end_when_all_chains_safe():
    g, _ = craft(chains=dict(SAFE2), racks={0: ["12I"]})
    g.apply(0, {"play_tile": "12I"})
    assert g.pending().options["can_end"] is True
    chains = dict(SAFE2, American=["12A", "12B"])
    g2, _ = craft(chains=chains, racks={0: ["10I"]})
    g2.apply(0, {"play_tile": "10I"})
    assert g2.pending().options["can_end"] is False
    with pytest.raises(IllegalAction):
        g2.apply(0, {"purchase": {}, "end_game": True})


def test_winners_tie_and_shares_of_defunct_chains_are_worthless():
    g, _ = craft(chains={"Luxor": rect(1, 5, T.ROWS)}, racks={0: ["12I"]},
                 shares={1: {"Tower": 5}}, cash=[7000, 6000])
    g.apply(0, {"play_tile": "12I"})
    g.apply(0, {"purchase": {}, "end_game": True})
    assert g.result() == {"scores": [7000, 6000], "winners": [0], "reason": "claimed"}
    g, _ = craft(chains={"Luxor": rect(1, 5, T.ROWS)}, racks={0: ["12I"]}, cash=[6000, 6000])
    g.apply(0, {"play_tile": "12I"})
    g.apply(0, {"purchase": {}, "end_game": True})
    assert g.result()["winners"] == [0, 1]


def test_game_ends_when_no_tile_is_left():
    g, _ = craft(chains={"Luxor": ["1A", "2A"]}, racks={0: ["12A"], 1: []}, empty_bag=True,
                 shares={0: {"Luxor": 1}})
    ev = g.apply(0, {"play_tile": "12A"})
    assert g.pending().kind == "purchase"
    ev = buy_nothing(g)
    assert types(ev) == ["purchased", "final_bonus", "game_over"]
    assert ev[-1]["reason"] == "no_tiles"
    assert g.result() == {"scores": [6000 + 3000 + 200, 6000], "winners": [0], "reason": "no_tiles"}
    check_accounting(g)


def test_a_rack_of_dead_tiles_still_gets_its_turn_before_the_end():
    # The bag is empty; ann plays the last playable tile.  bob holds only dead
    # tiles (each would merge the two safe chains): they are set aside only at
    # the end of his turn, so the game goes on to that turn, where he may buy.
    g, _ = craft(3, chains=SAFE2, racks={0: ["12A"], 1: ["5B", "5A"], 2: []}, empty_bag=True,
                 shares={1: {"Luxor": 2}})
    assert g.tile_status("5B") == "dead" and g.tile_status("5A") == "dead"
    g.apply(0, {"play_tile": "12A"})
    ev = buy_nothing(g)
    assert types(ev) == ["purchased", "turn", "no_playable_tile"]
    assert not g.is_over() and g.pending().seat == 1 and g.pending().kind == "purchase"
    ev = g.apply(1, {"purchase": {"Luxor": 3}, "end_game": False})
    # his tiles are set aside at the end of his turn; then no tile is left anywhere
    assert types(ev) == ["purchased", "tile_dead", "tile_dead", "final_bonus", "game_over"]
    assert of_type(ev, "tile_dead") == [{"type": "tile_dead", "seat": 1, "slot": 0, "tile": "5B"},
                                        {"type": "tile_dead", "seat": 1, "slot": 1, "tile": "5A"}]
    over = ev[-1]
    assert over["reason"] == "no_tiles"
    # bob: 5 Luxor shares (2 + 3 bought at $700): sole holder, first + second bonus
    cash1 = 6000 - 3 * 700 + 7000 + 3500 + 5 * 700
    assert over["scores"] == [6000, cash1, 6000] and over["winners"] == [1]
    assert g.racks[1] == [None] * 6 and {"5A", "5B"} <= g.dead
    # cy (an empty rack) gets no turn: the game ended once nothing was left to play
    assert [e["seat"] for e in of_type(ev, "turn")] == []
    check_accounting(g)


def test_game_does_not_end_while_a_rack_still_holds_a_dead_tile():
    # ann's own dead tile is set aside at the end of her turn; bob's is not
    # yet, so the game goes on to bob's turn even though no tile can be played.
    g, _ = craft(chains=SAFE2, racks={0: ["12A", "5C"], 1: ["5B"]}, empty_bag=True)
    g.apply(0, {"play_tile": "12A"})
    ev = buy_nothing(g)
    assert types(ev) == ["purchased", "tile_dead", "turn", "no_playable_tile"]
    ev = buy_nothing(g)
    assert types(ev) == ["purchased", "tile_dead", "game_over"]
    assert ev[-1]["reason"] == "no_tiles"


def test_last_tile_drawn_announces_empty_bag_and_players_go_on_with_empty_slots():
    g, _ = craft(chains={"Luxor": ["1A", "2A"]}, racks={0: ["12A"], 1: ["10E", "10G"]},
                 bag=["8E"], empty_bag=True)
    g.apply(0, {"play_tile": "12A"})
    ev = buy_nothing(g)
    assert types(ev) == ["purchased", "tile_drawn", "bag_empty", "turn"]
    g.apply(1, {"play_tile": "10E"})
    ev = buy_nothing(g)
    assert ev[-1] == {"type": "turn", "seat": 0}
    assert g.racks[1] == [None, "10G", None, None, None, None]


STUCK = ([ "10A", "10C", "9B", "11B", "10D", "10F"], ["9E", "11E", "10G", "10I", "9H", "11H"])
STUCK_LONE = ["10B", "10E", "10H", "12B", "12E", "12H"]


def test_round_without_a_playable_tile_gives_one_purchase_round_then_ends():
    g, ev = craft(chains=SEVEN, lone=STUCK_LONE, racks={0: STUCK[0], 1: STUCK[1]})
    assert types(ev) == ["turn", "no_playable_tile"]
    ev = buy_nothing(g)
    assert types(ev) == ["purchased", "turn", "no_playable_tile"]
    ev = g.apply(1, {"purchase": {"Luxor": 1}, "end_game": False})
    # a whole round passed without a tile played: one more turn each, purchases only
    assert types(ev) == ["purchased", "last_round", "turn"]
    assert g.pending().seat == 0 and g.pending().kind == "purchase"
    ev = buy_nothing(g)
    assert types(ev) == ["purchased", "turn"]
    ev = buy_nothing(g)
    assert types(ev) == ["purchased"] + ["final_bonus"] + ["game_over"]
    assert ev[-1]["reason"] == "no_playable_tiles"
    assert g.result()["reason"] == "no_playable_tiles"
    assert g.cash == [6000, 6000 - 200 + 3000 + 200]


def test_stuck_game_without_cash_ends_on_its_own():
    g, ev = craft(chains=SEVEN, lone=STUCK_LONE, racks={0: STUCK[0], 1: STUCK[1]}, cash=[0, 0])
    assert types(ev).count("turn") == 4 and "last_round" in types(ev)
    assert ev[-1]["type"] == "game_over" and ev[-1]["reason"] == "no_playable_tiles"
    assert g.is_over()


def test_a_tile_played_resets_the_round_count():
    racks = {0: STUCK[0], 1: STUCK[1][:5] + ["8A"]}
    g, _ = craft(chains=SEVEN, lone=STUCK_LONE, racks=racks, bag=["12D"])
    buy_nothing(g)                       # ann cannot play
    g.apply(1, {"play_tile": "8A"})      # bob can, and draws 12D, which he cannot play
    ev = buy_nothing(g)
    assert "last_round" not in types(ev)
    ev = buy_nothing(g)                  # ann again: 1 turn without play
    assert "last_round" not in types(ev)
    ev = buy_nothing(g)                  # bob: 2 in a row -> last round
    assert "last_round" in types(ev)


# -------------------------------------------------------- illegal actions
def test_illegal_actions_change_nothing():
    g = sequence_game()
    attempts = [
        (1, {"play_tile": "5B"}),                   # not bob's turn
        (0, {"play_tile": "5B"}),                   # not in ann's rack
        (0, {"play_tile": "13Z"}),                  # not a tile
        (0, {"play_tile": None}),
        (0, {"found_chain": "Luxor"}),              # wrong kind of decision
        (0, {}),
        (0, "1B"),
        (0, {"play_tile": "1B", "found_chain": "Luxor"}),
        (7, {"play_tile": "1B"}),
    ]
    before = json.dumps(g.to_dict(), sort_keys=True)
    for seat, action in attempts:
        with pytest.raises(IllegalAction) as info:
            g.apply(seat, action)
        assert str(info.value)
        assert json.dumps(g.to_dict(), sort_keys=True) == before
    g.apply(0, {"play_tile": "1B"})
    before = json.dumps(g.to_dict(), sort_keys=True)
    for seat, action in [(0, {"found_chain": "Hilton"}), (0, {"purchase": {}}), (1, {"found_chain": "Tower"})]:
        with pytest.raises(IllegalAction):
            g.apply(seat, action)
        assert json.dumps(g.to_dict(), sort_keys=True) == before


def test_timeout_action_is_legal_and_passive_in_every_phase():
    g, _ = three_way()
    seen = set()
    while not g.is_over() and len(seen) < 5:
        d = g.pending()
        a = g.timeout_action(d.seat)
        assert a in g.legal_actions()
        seen.add(d.kind)
        if d.kind == "dispose":
            assert a == {"dispose": {"sell": 0, "trade": 0}}
        if d.kind == "purchase":
            assert a == {"purchase": {}, "end_game": False}
        g.apply(d.seat, a)
    assert {"play_tile", "choose_defunct", "dispose", "purchase"} <= seen
    with pytest.raises(IllegalAction):
        g.timeout_action(1 - g.pending_seat())


def test_tile_status_of_board_and_unknown_tiles():
    g, _ = craft(chains={"Luxor": ["1A", "2A"]}, racks={0: ["3A"]})
    assert g.tile_status("1A") == "on_board"
    assert g.tile_status("3a") == "grow"
    with pytest.raises(IllegalAction):
        g.tile_status("0Q")


def test_purchase_enumeration_matches_brute_force_for_any_max_buy():
    import itertools
    import random

    from gamehall_acquire.purchases import combos as _purchase_combos

    rnd = random.Random(4)
    for _ in range(300):
        max_buy = rnd.choice([0, 1, 2, 3, 3, 4])
        offer = [(CHAINS[i], rnd.choice([200, 300, 500, 900, 1200]), rnd.randint(1, max(1, max_buy)))
                 for i in range(rnd.randint(0, 7))]
        cash = rnd.choice([0, 100, 500, 1000, 2500, 6000, 10 ** 6])
        got = _purchase_combos(offer, max_buy, cash)
        expected = [{o[0]: n for n, o in zip(counts, offer) if n}
                    for counts in itertools.product(*[range(cap + 1) for _, _, cap in offer])
                    if sum(counts) <= max_buy and sum(n * o[1] for n, o in zip(counts, offer)) <= cash]

        def key(d):
            return sorted(d.items())

        assert sorted(map(key, got)) == sorted(map(key, expected))
        assert len(got) == len(expected)


def test_max_buy_is_a_rule():
    g = Game.new(["a", "b"], seed=2, rules=Rules(max_buy=2))
    while g.pending().kind != "purchase":
        d = g.pending()
        g.apply(d.seat, g.timeout_action(d.seat))
    assert max(sum(a["purchase"].values()) for a in g.legal_actions()) == 2
    chain = g.chains_on_board()[0]
    with pytest.raises(IllegalAction, match="at most 2"):
        g.apply(g.pending_seat(), {"purchase": {chain: 3}})
