"""Whole random games: uniformly random legal actions, invariants checked after every action."""
from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gamehall_acquire import tiles as T
from gamehall_acquire.record import game_from_record
from gamehall_acquire.rules import Game

SAFE = 11


def check_invariants(g: Game, before: dict[str, int]) -> dict[str, int]:
    board, dead, racks, bag = g.board, g.dead, g.racks, g.bag
    rack_tiles = [t for r in racks for t in r if t is not None]
    every = list(board) + list(dead) + rack_tiles + bag
    assert len(every) == 108 and set(every) == set(T.NAMES)
    assert all(len(r) == 6 for r in racks)
    shares = g.shares
    for chain in g.rules.chains:
        assert g.available(chain) >= 0
        assert g.available(chain) + sum(s[chain] for s in shares) == 25
    assert all(c >= 0 for c in g.cash)
    sizes = {c: 0 for c in g.rules.chains}
    for chain in board.values():
        if chain is not None:
            sizes[chain] += 1
    for chain, n in sizes.items():
        assert g.chain_size(chain) == n
        assert (chain in g.chains_on_board()) == (n > 0)
        assert n == 0 or n >= 2
    assert len(g.chains_on_board()) <= 7
    # a chain never touches a lone tile or another chain, once a merger is complete
    if g.pending() is None or g.pending().kind not in ("choose_survivor", "choose_defunct", "dispose"):
        for tile, chain in board.items():
            if chain is not None:
                for n in T.neighbours(tile):
                    assert board.get(n, chain) == chain, (tile, n)
    # safe chains never disappear or shrink
    for chain, n in before.items():
        if n >= SAFE:
            assert sizes[chain] >= n, (chain, n, sizes[chain])
    # full state round trip, through JSON
    d = g.to_dict()
    assert Game.from_dict(json.loads(json.dumps(d))).to_dict() == d
    return sizes


def play_random(seed: int, n: int, choice_seed: int, allow_claims: bool = True) -> Game:
    g = Game.new([f"p{i}" for i in range(n)], seed=seed)
    rnd = random.Random(choice_seed)
    sizes = check_invariants(g, {})
    steps = 0
    while not g.is_over():
        seat = g.pending_seat()
        legal = g.legal_actions()
        assert legal
        assert g.timeout_action(seat) in legal
        if not allow_claims:
            legal = [a for a in legal if not a.get("end_game")]
        g.apply(seat, rnd.choice(legal))
        sizes = check_invariants(g, sizes)
        steps += 1
        assert steps < 5000
    res = g.result()
    assert res["reason"] in ("claimed", "no_tiles", "no_playable_tiles")
    assert res["scores"] == g.cash
    assert res["winners"] == [s for s, c in enumerate(g.cash) if c == max(g.cash)]
    assert all(g.net_worth(s) == g.cash[s] for s in range(n))
    replayed = game_from_record(json.loads(json.dumps(g.record())))
    assert replayed.cash == g.cash and replayed.result() == res
    assert replayed.to_dict() == g.to_dict()
    return g


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(2, 6), choice_seed=st.integers(0, 2 ** 32 - 1))
def test_random_games_keep_the_invariants(seed, n, choice_seed):
    play_random(seed, n, choice_seed)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), n=st.integers(2, 6), choice_seed=st.integers(0, 2 ** 32 - 1))
def test_random_games_played_to_the_last_tile(seed, n, choice_seed):
    g = play_random(seed, n, choice_seed, allow_claims=False)
    assert g.end_reason in ("no_tiles", "no_playable_tiles")


def test_many_quick_games_end_properly():
    """Cheaper check of many more games: passive play, only the end state verified."""
    reasons = set()
    for seed in range(40):
        g = Game.new([f"p{i}" for i in range(2 + seed % 5)], seed=seed)
        rnd = random.Random(seed)
        while not g.is_over():
            seat = g.pending_seat()
            g.apply(seat, rnd.choice(g.legal_actions()) if seed % 2 else g.timeout_action(seat))
        reasons.add(g.end_reason)
        check_invariants(g, {})
        assert game_from_record(g.record()).cash == g.cash
    assert {"claimed", "no_tiles"} <= reasons
