"""Whole random Windward games, invariants checked after every action."""
from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gamehall_acquire import tiles as T
from gamehall_acquire.windward.bots import make_bot
from gamehall_acquire.windward.rules import (CARDS, CHAINS, PRE_TURN_CARDS, PURCHASE_CARDS, WindwardGame,
                                             game_from_record)

from .scenario import NAMES6

ALL_CARDS = set(CARDS[1:])


class Tracker:
    """What must hold across actions: card use, per-turn card limits, safe chains."""

    def __init__(self):
        self.played = [[] for _ in range(6)]
        self.turn_cards: list[str] = []
        self.safe: dict[str, int] = {}

    def events(self, ev):
        for e in ev:
            if e["type"] == "turn":
                self.turn_cards = []
            elif e["type"] == "card_played":
                self.played[e["seat"]].append(e["card"])
                self.turn_cards.append(e["card"])
                assert sum(c in PRE_TURN_CARDS for c in self.turn_cards) <= 1
                assert sum(c in PURCHASE_CARDS for c in self.turn_cards) <= 1


def check(g: WindwardGame, tr: Tracker, full: bool) -> None:
    board, dead, hands, bag = g.board, g.dead, g.hands, g.bag
    every = list(board) + list(dead) + [t for h in hands for t in h] + bag
    assert len(every) == 108 and set(every) == set(T.NAMES), "108 tiles accounted for"
    shares = g.shares
    for chain in CHAINS:
        assert g.available(chain) >= 0
        assert g.available(chain) + sum(s[chain] for s in shares) == 25, chain
    assert all(c >= 0 for c in g.cash), g.cash
    sizes = {c: 0 for c in CHAINS}
    for chain in board.values():
        if chain is not None:
            sizes[chain] += 1
    for chain, n in sizes.items():
        assert g.chain_size(chain) == n and (n == 0 or n >= 2)
        if tr.safe.get(chain, 0) >= 11:
            assert n >= tr.safe[chain], "a safe chain shrank"
    tr.safe = dict(sizes)
    for seat in range(6):
        used = tr.played[seat]
        assert len(used) == len(set(used)), "a card played twice"
        assert set(used) | set(g.cards(seat)) == ALL_CARDS and not set(used) & set(g.cards(seat))
    d = g.pending()
    if d is None or d.kind != "merge":
        for tile, chain in board.items():
            if chain is not None:
                for n in T.neighbours(tile):
                    assert board.get(n, chain) == chain, (tile, n)
    if d is not None:
        legal = g.legal_actions()
        assert legal and g.timeout_action(d.seat) in legal
    if full:
        s = g.to_dict()
        assert WindwardGame.from_dict(json.loads(json.dumps(s))).to_dict() == s


def junk_reply(g: WindwardGame, rng: random.Random) -> dict:
    """A protocol-ish reply, often wrong: random tiles, cards, buys, trades, merge numbers."""
    names = list(CHAINS) + ["Apple", "google", ""]
    return {
        "card": rng.choice([0, 0, 0, 1, 2, 3, 4, 5, "5", "x", -1]),
        "tile-x": rng.randrange(-1, 13), "tile-y": rng.randrange(-1, 10),
        "created-hotel": rng.choice(names), "merge-survivor": rng.choice(names),
        "buy": "".join(f"{rng.choice(names)}:{rng.randint(-2, 6)};" for _ in range(rng.randint(0, 3))),
        "trade": "".join(f"{rng.choice(names)}:{rng.choice(names)};" for _ in range(rng.randint(0, 4))),
        "keep": rng.randint(-2, 8), "sell": rng.randint(-2, 8),
    } if rng.random() < 0.9 else rng.choice([None, {}, [], "garbage"])


def play(seed: int, kinds: list[str], choice_seed: int) -> WindwardGame:
    g = WindwardGame.new(NAMES6, seed=seed, first=choice_seed % 6)
    rng = random.Random(choice_seed)
    bots = {s: make_bot(k, choice_seed + s) for s, k in enumerate(kinds) if k in ("simple", "strong")}
    tr = Tracker()
    check(g, tr, True)
    steps = 0
    while not g.is_over():
        seat = g.pending_seat()
        kind = kinds[seat]
        if kind in bots:
            action = bots[seat].choose(g, seat)
        elif kind == "junk":
            raw = junk_reply(g, rng)
            if isinstance(raw, dict) and g.pending().kind == "merge":
                raw["trade"] = rng.randint(-2, 8)
            action = g.normalise(seat, raw)
        elif kind == "legal":
            action = rng.choice(g.legal_actions())
        else:
            action = g.timeout_action(seat)
        tr.events(g.apply(seat, action))
        steps += 1
        check(g, tr, steps % 7 == 0)
        assert steps < 3000
    res = g.result()
    assert res["reason"] in ("all_safe", "chain_41", "blocked")
    assert res["scores"] == [g.score(s) for s in range(6)]
    assert res["winners"] == [s for s, v in enumerate(res["scores"]) if v == max(res["scores"])]
    again = game_from_record(json.loads(json.dumps(g.record())))
    assert again.to_dict() == g.to_dict()
    return g


_kinds = st.lists(st.sampled_from(["simple", "junk", "junk", "legal", "timeout", "strong"]), min_size=6, max_size=6)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), kinds=_kinds, choice_seed=st.integers(0, 2 ** 32 - 1))
def test_random_games_keep_the_invariants(seed, kinds, choice_seed):
    play(seed, kinds, choice_seed)


def test_many_quick_games_end_properly():
    reasons = set()
    for seed in range(30):
        g = WindwardGame.new(NAMES6, seed=seed)
        while not g.is_over():
            g.apply(g.pending_seat(), g.timeout_action(g.pending_seat()))
        reasons.add(g.end_reason)
        assert game_from_record(g.record()).to_dict() == g.to_dict()
    assert {"all_safe", "chain_41"} <= reasons
