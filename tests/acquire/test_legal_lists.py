"""Legal-action lists built as they are read behave as the plain lists they stand for."""
from __future__ import annotations

import copy
import itertools
import json
import pickle
import random

import pytest

from gamehall_acquire import chains as C
from gamehall_acquire.legal import LegalActions
from gamehall_acquire.purchases import combos, purchase_actions
from gamehall_acquire.rules import Game, _dispose_actions


def _make(n=5):
    return LegalActions(n, lambda data, i: {"x": i, "data": data}, "d")


def _plain(n=5):
    return [{"x": i, "data": "d"} for i in range(n)]


def test_lazy_list_reads_like_the_plain_list():
    a = _make()
    assert len(a) == 5 and a and not LegalActions(0, None)
    assert a[1] == {"x": 1, "data": "d"} and a[-1] == {"x": 4, "data": "d"}
    assert a[2] is a[2]                     # an item read once is kept
    kept = a[3]
    assert list(a) == _plain() and a[3] is kept and list(a)[3] is kept
    with pytest.raises(IndexError):
        _make()[5]
    with pytest.raises(IndexError):
        _make()[-6]
    assert _make() == _plain() and _plain() == _make() and _make() == _make()
    assert _make() != _plain(4) and not (_make() != _plain())
    assert json.dumps(_make()) == json.dumps(_plain())
    assert json.dumps(_make(), indent=1) == json.dumps(_plain(), indent=1)
    assert repr(_make()) == repr(_plain())
    assert {"x": 2, "data": "d"} in _make() and _make().index({"x": 2, "data": "d"}) == 2
    assert _make()[1:3] == _plain()[1:3] and list(reversed(_make())) == _plain()[::-1]
    assert [0] + _make() == [0] + _plain() and _make() + [0] == _plain() + [0]
    assert sorted(_make(), key=lambda d: -d["x"]) == sorted(_plain(), key=lambda d: -d["x"])
    assert tuple(_make()) == tuple(_plain()) and _make().count({"x": 0, "data": "d"}) == 1
    assert pickle.loads(pickle.dumps(_make())) == _plain()
    assert copy.copy(_make()) == _plain() and copy.deepcopy(_make()) == _plain()
    assert isinstance(_make(), list)
    b = _make()
    b.append(9)
    b[0] = 7
    assert b == [7] + _plain()[1:] + [9] and len(b) == 6
    assert random.Random(1).choice(_make()) == random.Random(1).choice(_plain())


def test_dispose_actions_match_the_plain_enumeration():
    for owned in range(0, 16):
        for top in range(0, owned + 1):
            want = [{"dispose": {"sell": s, "trade": t}}
                    for t in range(0, top + 1, 2) for s in range(owned - t + 1)]
            got = _dispose_actions(owned, top)
            assert len(got) == len(want)
            assert [got[i] for i in range(len(want))] == want
            assert _dispose_actions(owned, top) == want


def test_purchase_actions_match_the_plain_enumeration():
    """Every offer shape, max_buy, cash and end flag: same actions, same order, by index too."""
    rnd = random.Random(9)
    prices = [200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200]
    for _ in range(3000):
        max_buy = rnd.choice([0, 1, 2, 3, 3, 3, 4])
        picked = sorted(rnd.sample(range(7), rnd.randint(0, 7)))
        offer = [(C.CHAINS[c], rnd.choice(prices) if rnd.random() > 0.02 else 5_000_000,
                  rnd.randint(1, max_buy) if max_buy else 0) for c in picked]
        cash = rnd.choice([0, 100, 700, 1500, 2500, 3600, 10 ** 7, rnd.randrange(0, 6000, 100)])
        can_end = rnd.random() < 0.3
        want = [{"purchase": c, "end_game": e} for c in combos(offer, max_buy, cash)
                for e in ((False, True) if can_end else (False,))]
        got = purchase_actions(offer, max_buy, cash, can_end)
        assert len(got) == len(want)
        for i in rnd.sample(range(len(want)), min(4, len(want))):
            assert got[i] == want[i]
        assert got == want


def test_combos_are_every_affordable_multiset():
    rnd = random.Random(4)
    for _ in range(300):
        max_buy = rnd.choice([0, 1, 2, 3, 3, 4])
        offer = [(C.CHAINS[i], rnd.choice([200, 300, 500, 900, 1200]), rnd.randint(1, max(1, max_buy)))
                 for i in range(rnd.randint(0, 7))]
        cash = rnd.choice([0, 100, 500, 1000, 2500, 6000, 10 ** 6])
        got = combos(offer, max_buy, cash)
        expected = [{o[0]: n for n, o in zip(counts, offer) if n}
                    for counts in itertools.product(*[range(cap + 1) for _, _, cap in offer])
                    if sum(counts) <= max_buy and sum(n * o[1] for n, o in zip(counts, offer)) <= cash]
        assert sorted(sorted(d.items()) for d in got) == sorted(sorted(d.items()) for d in expected)


def test_legal_actions_are_new_each_call_and_read_as_lists():
    g = Game.new(["a", "b", "c", "d"], seed=5)
    rnd = random.Random(5)
    seen = set()
    while not g.is_over():
        legal = g.legal_actions()
        seen.add(g.pending().kind)
        first = legal[rnd.randrange(len(legal))]
        assert first in g.legal_actions() and json.loads(json.dumps(legal)) == g.legal_actions()
        g.apply(g.pending_seat(), first)
    assert {"purchase", "dispose", "play_tile"} <= seen


def test_first_read_of_any_index_is_the_listed_action():
    """The buy and disposal lists build their first item read in __getitem__ itself:
    whichever index is read first, it is the plain list's item (and kept)."""
    for owned in range(0, 9):
        for top in range(0, owned + 1):
            want = [{"dispose": {"sell": s, "trade": t}}
                    for t in range(0, top + 1, 2) for s in range(owned - t + 1)]
            for i in range(-len(want), len(want)):
                got = _dispose_actions(owned, top)
                first = got[i]
                assert first == want[i] and got[i] is first and got == want
    rnd = random.Random(21)
    for _ in range(300):
        max_buy = rnd.choice([1, 2, 3, 3, 4])
        picked = sorted(rnd.sample(range(7), rnd.randint(0, 7)))
        offer = [(C.CHAINS[c], rnd.choice([200, 500, 900, 1200]), rnd.randint(1, max_buy)) for c in picked]
        cash = rnd.choice([0, 700, 2500, 10 ** 6])
        can_end = rnd.random() < 0.5
        want = [{"purchase": c, "end_game": e} for c in combos(offer, max_buy, cash)
                for e in ((False, True) if can_end else (False,))]
        for i in rnd.sample(range(-len(want), len(want)), min(6, 2 * len(want))):
            got = purchase_actions(offer, max_buy, cash, can_end)
            first = got[i]
            assert first == want[i] and got[i] is first and got == want
