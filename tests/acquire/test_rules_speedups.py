"""The engine's speed-ups change nothing observable.

``DIGEST`` was computed with the engine as it was before any optimisation.
Every game below is seeded (tile bag and action picker), so the digest covers,
byte for byte (dict key order included): every event, every decision and its
options, every ``legal_actions()`` list in order, the reason of every illegal
action tried, the read-only views, and the final record, result and state.

Besides the uniformly picked legal action, about half the steps first try a
*mutated* action: an illegal one (wrong seat, bad tile, too many shares, odd
trade, bad keys...) or a legal one spelled differently (aliases, other case,
omitted zero keys).  Illegal ones must raise ``IllegalAction`` and leave the
state untouched; legal ones are applied.  So validation outside the fast path
for actions that come straight from ``legal_actions()`` is covered too.
"""
from __future__ import annotations

import hashlib
import json
import random

import pytest

from gamehall.interfaces import IllegalAction
from gamehall_acquire import chains as C
from gamehall_acquire import tiles as T
from gamehall_acquire.rules import Game

N_GAMES = 200
DIGEST = "8529fd047148d84f59515fe4115f02c0cb087a4148eb0e97bd66b748bfb9eba3"

_ALIAS_OF = {chain: alias for alias, chain in C.ALIASES.items()}


def _respell_chain(rng: random.Random, name: str):
    """Another spelling of a chain name that means the same chain."""
    return rng.choice([name.lower(), name.upper(), f" {name} ", _ALIAS_OF[name],
                       _ALIAS_OF[name].lower()])


def _respell(rng: random.Random, phase: str, action: dict) -> dict:
    """A legal action spelled differently: same meaning, other text."""
    arg = action[phase]
    if phase == "play_tile":
        return {phase: rng.choice([arg.lower(), f" {arg}"])}
    if phase in ("found_chain", "choose_survivor", "choose_defunct"):
        return {phase: _respell_chain(rng, arg)}
    if phase == "dispose":
        return {phase: {k: v for k, v in reversed(arg.items()) if v or rng.random() < 0.5}}
    buy = {}
    for chain, n in arg.items():
        if n == 2 and rng.random() < 0.5:       # split over two spellings of one chain
            buy[chain] = 1
            buy[_respell_chain(rng, chain)] = 1
        else:
            buy[_respell_chain(rng, chain)] = n
    if rng.random() < 0.3:
        buy[rng.choice(C.CHAINS)] = 0 if not buy else buy.get(rng.choice(C.CHAINS), 0)
    out = {phase: buy}
    if action["end_game"] or rng.random() < 0.5:
        out["end_game"] = action["end_game"]
    return out


def _break(rng: random.Random, g: Game, phase: str, action: dict) -> dict:
    """A mutation of ``action`` that is (almost always) illegal."""
    arg = action[phase]
    generic = [
        lambda: [phase, arg],
        lambda: {},
        lambda: {**action, "extra": 1},
        lambda: {"play_tile" if phase != "play_tile" else "purchase": arg},
    ]
    specific = []
    if phase == "play_tile":
        rack = [t for t in g.racks[g.pending_seat()] if t is not None]
        specific = [
            lambda: {phase: rng.choice(T.NAMES)},
            lambda: {phase: rng.choice(rack)},
            lambda: {phase: rng.choice(rack)},
            lambda: {phase: "13A"},
            lambda: {phase: 5},
            lambda: {phase: None},
        ]
    elif phase in ("found_chain", "choose_survivor", "choose_defunct"):
        specific = [
            lambda: {phase: rng.choice(C.CHAINS)},
            lambda: {phase: "Nowhere"},
            lambda: {phase: 3},
            lambda: {phase: [arg]},
        ]
    elif phase == "dispose":
        sell, trade = arg["sell"], arg["trade"]
        left = g.pending().options["survivor_available"]
        specific = [
            lambda: {phase: {"sell": 0, "trade": 2 * left + 2}},
            lambda: {phase: {"sell": sell, "trade": trade + 1}},
            lambda: {phase: {"sell": sell + 1 + rng.randrange(3), "trade": trade}},
            lambda: {phase: {"sell": sell, "trade": trade + 2 * (1 + rng.randrange(12))}},
            lambda: {phase: {"sell": -1, "trade": trade}},
            lambda: {phase: {"sell": True, "trade": trade}},
            lambda: {phase: {"sell": sell, "trade": 2.0}},
            lambda: {phase: {"sell": sell, "trade": trade, "keep": 0}},
            lambda: {phase: [sell, trade]},
        ]
    else:
        buy = dict(arg)
        on_board = g.chains_on_board() or list(C.CHAINS)
        specific = [
            lambda: {phase: {rng.choice(on_board): rng.randrange(1, 4)}},
            lambda: {phase: {**buy, rng.choice(on_board): 1 + buy.get(rng.choice(on_board), 0)}},
            lambda: {phase: {**buy, rng.choice(C.CHAINS): rng.randrange(1, 4)}, "end_game": False},
            lambda: {phase: buy, "end_game": True},
            lambda: {phase: buy, "end_game": 1},
            lambda: {phase: {rng.choice(C.CHAINS): 4}},
            lambda: {phase: {rng.choice(C.CHAINS): -1}},
            lambda: {phase: {rng.choice(C.CHAINS): True}},
            lambda: {phase: {rng.choice(C.CHAINS): 1.0}},
            lambda: {phase: {"Nowhere": 1}},
            lambda: {phase: {7: 1}},
            lambda: {phase: list(buy)},
        ]
    return rng.choice(generic + specific * 2)()


def _views(g: Game) -> list:
    racks = g.racks
    n = len(g.players)
    return [
        g.board, sorted(g.dead), racks, g.shares, g.cash, g.can_end(), g.chains_on_board(),
        [g.playable_tiles(s) for s in range(n)],
        [g.net_worth(s) for s in range(n)],
        [g.tile_status(t) for r in racks for t in r if t is not None],
        {c: [g.available(c), g.chain_size(c), g.price(c), g.is_safe(c), g.bonuses(c)]
         for c in g.rules.chains},
    ]


def _state(g: Game) -> str:
    return json.dumps(g.to_dict())


def _cheap_state(g: Game) -> str:
    return json.dumps([g.board, g.racks, g.cash, g.shares, g.pending(), len(g.bag)], default=repr)


def play_and_hash(seed: int, h) -> None:
    n = 2 + seed % 5 if seed % 4 else 4
    g = Game.new([f"p{i}" for i in range(n)], seed=seed)
    rng = random.Random(seed * 7919 + 1)

    def add(*items):
        h.update(json.dumps(items, default=repr).encode())
        h.update(b"\n")

    add(g.initial_events)
    steps = 0
    while not g.is_over():
        steps += 1
        assert steps < 5000
        seat = g.pending_seat()
        d = g.pending()
        legal = g.legal_actions()
        add(seat, d.seat, d.kind, d.options, legal, g.timeout_action(seat))
        if steps % 10 == 0:
            add(_views(g))
        action = rng.choice(legal)
        roll = rng.random()
        if roll < 0.5:
            if roll < 0.1:
                who, tried = seat, _respell(rng, d.kind, action)
            elif roll < 0.15:
                who, tried = (seat + 1) % n, action
            else:
                who, tried = seat, _break(rng, g, d.kind, action)
            snapshot = _cheap_state if steps % 4 else _state    # to_dict() is slow-ish
            before = snapshot(g)
            try:
                events = g.apply(who, tried)
            except IllegalAction as exc:
                add("illegal", str(exc))
                assert snapshot(g) == before, tried
            else:
                add("applied", tried, events)
                continue
        add("chosen", g.apply(seat, action))
    add(g.result(), g.record(), g.to_dict(), _views(g))


def test_seeded_games_are_unchanged():
    h = hashlib.sha256()
    for seed in range(N_GAMES):
        play_and_hash(seed, h)
    assert h.hexdigest() == DIGEST


BENCH_DIGEST = "0ba3ec6d624863e353ddeef399dc40f8a82f0443fbd2bc677ac417ece9c40f30"


def test_benchmark_workload_is_unchanged():
    """The benchmark's own loop (4 players, uniform over legal_actions()): same records and cash."""
    h = hashlib.sha256()
    for seed in range(100):
        g = Game.new(["a", "b", "c", "d"], seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            g.apply(g.pending_seat(), rng.choice(g.legal_actions()))
        h.update(json.dumps([g.record(), g.cash, g.result()]).encode())
    assert h.hexdigest() == BENCH_DIGEST


def test_purchase_actions_are_fresh_dicts():
    """Purchase combos are cached between calls; what legal_actions() returns must not be
    the cache: changing a returned action changes nothing for the next call."""
    g = Game.new(["a", "b", "c", "d"], seed=3)
    rng = random.Random(3)
    checked = 0
    while not g.is_over() and checked < 20:
        seat = g.pending_seat()
        if g.pending().kind == "purchase":
            first = g.legal_actions()
            expected = json.dumps(first)
            for a in first:
                a["purchase"]["Nowhere"] = 99
                a["end_game"] = None
            assert json.dumps(g.legal_actions()) == expected
            checked += 1
        g.apply(seat, rng.choice(g.legal_actions()))
    assert checked == 20


def _fresh_offer(g: Game) -> list:
    """The buy offer worked out from scratch: (chain, price, shares to buy at most)."""
    max_buy = g.rules.max_buy
    return [(c, g.price(c), min(g.available(c), max_buy)) for c in g.rules.chains
            if g.chain_size(c) and g.available(c)]


def test_kept_statuses_and_offer_match_the_board():
    """What the engine keeps between decisions (the statuses of rack tiles, the buy
    offer) always equals what the board says now, in games that reach the end."""
    checked = 0
    for seed in range(40):
        g = Game.new([f"p{i}" for i in range(2 + seed % 5)], seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            for rack in g._racks:
                for t in rack:
                    if t is not None and g._tstat[t] >= 0:
                        assert g._tstat[t] == g._classify(t), (seed, T.NAMES[t])
                        checked += 1
            kind = g.pending().kind
            if kind == "purchase":
                assert g._offer.entries == _fresh_offer(g)
            legal = g.legal_actions()
            if kind == "purchase" and seed % 2:         # never claim: play to the last tile
                legal = [a for a in legal if not a["end_game"]]
            g.apply(g.pending_seat(), rng.choice(legal))
    assert checked > 10_000


def test_offer_lists_match_purchase_actions_at_any_cash():
    """An offer serves several buy steps (other players, other cash): each list is the plain one."""
    from gamehall_acquire.purchases import Offer, purchase_actions
    rnd = random.Random(12)
    prices = [200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200]
    for _ in range(400):
        max_buy = rnd.choice([1, 2, 3, 3, 3, 4])
        picked = sorted(rnd.sample(range(7), rnd.randint(0, 7)))
        entries = [(C.CHAINS[c], rnd.choice(prices), rnd.randint(1, max_buy)) for c in picked]
        offer = Offer(entries, max_buy)
        for cash in rnd.sample([0, 100, 700, 1500, 2500, 3600, 6000, 10 ** 6], 4):
            can_end = rnd.random() < 0.3
            assert offer.actions(cash, can_end) == purchase_actions(entries, max_buy, cash, can_end)


def test_the_tile_bag_is_random_shuffle():
    """shuffled_tiles(seed) is what random.Random(seed).shuffle makes of the 108 tiles."""
    for seed in list(range(300)) + [2 ** 63 - 1, 2 ** 40 + 7]:
        bag = list(range(T.N_TILES))
        random.Random(seed).shuffle(bag)
        assert T.shuffled_tiles(seed) == bag


def test_a_subclass_with_its_own_pending_seat_is_asked_at_every_action():
    """apply() skips pending_seat() outside the queued phase only for classes that say
    which phase that is; a subclass that changes pending_seat() is always asked."""

    class Asked(Game):
        asked = 0

        def pending_seat(self):
            Asked.asked += 1
            return super().pending_seat()

    assert Asked._queue_phase is None and Game._queue_phase == "dispose"
    g = Asked.new(["a", "b", "c"], seed=4)
    seat = g.current
    with pytest.raises(IllegalAction):
        g.apply((seat + 1) % 3, g.legal_actions()[0])
    before = Asked.asked
    g.apply(seat, g.legal_actions()[0])
    assert Asked.asked > before


def _rack_statuses_and_chain_figures_checked(g, rng):
    while not g.is_over():
        if rng.random() < 0.7:              # not after every action: the kept statuses must hold
            for seat in range(len(g.players)):
                expected = [None if t is None else g.tile_status(t) for t in g.racks[seat]]
                assert g.rack_statuses(seat) == expected
            chains, available, sizes, prices = g.chain_figures()
            assert chains == g.rules.chains
            assert available == [g.available(c) for c in chains]
            assert sizes == [g.chain_size(c) for c in chains]
            assert prices == [g.price(c) for c in chains]
            # the views' compact state: the same facts as ints, in one tuple each
            cells = g.cells()
            assert {T.NAMES[t]: (chains[v] if v >= 0 else None) for t, v in enumerate(cells) if v != -1} == g.board
            assert [[None if t is None else T.NAMES[t] for t in rack] for rack in g.rack_codes()] == g.racks
            held = tuple(tuple(g.shares_of(seat)) for seat in range(len(g.players)))
            assert g.sheet_figures() == (tuple(available), tuple(sizes), tuple(prices), held, tuple(g.cash))
        g.apply(g.pending_seat(), rng.choice(g.legal_actions()))


@pytest.mark.parametrize("seed", range(1, 31))
def test_rack_statuses_and_chain_figures_are_the_one_by_one_answers(seed):
    """``rack_statuses`` (a whole rack at once, from the statuses the turn keeps) and
    ``chain_figures`` (the score sheet's figures at once) give what ``tile_status``,
    ``available``, ``chain_size`` and ``price`` give one at a time, at every step of
    whole games of 2 to 6 players; ``cells``, ``rack_codes`` and ``sheet_figures`` are
    ``board``, ``racks`` and the score sheet's numbers as ints."""
    rng = random.Random(seed)
    g = Game.new([f"P{i}" for i in range(2 + seed % 5)], seed=seed)
    _rack_statuses_and_chain_figures_checked(g, rng)


@pytest.mark.parametrize("seed", [1, 2])
def test_windwards_rack_statuses_are_the_one_by_one_answers(seed):
    """The Windward engine (a subclass) does not keep the classic turn's statuses: its
    ``rack_statuses`` must still be ``tile_status`` of each slot."""
    from gamehall_acquire.windward.rules import WindwardGame
    rng = random.Random(seed)
    g = WindwardGame.new([f"P{i}" for i in range(6)], seed=seed)
    _rack_statuses_and_chain_figures_checked(g, rng)
