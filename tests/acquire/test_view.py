"""The web views of Acquire and Windward Acquire: who may see what, and decisions that are legal.

Over many positions of seeded random games: a spectator never sees a rack or
the bag, a seat sees its own rack and nobody else's (checked on the JSON text
and by shuffling every hidden tile: the view must not change), every choice
offered applies to a copy of the engine, and everything serialises.
"""
from __future__ import annotations

import json
import random

import pytest

from gamehall.interfaces import IGameView
from gamehall_acquire.rules import Game
from gamehall_acquire.tiles import NAMES
from gamehall_acquire.view import AcquireView
from gamehall_acquire.windward.rules import WindwardGame
from gamehall_acquire.windward.view import WindwardView

CASES = [(Game, AcquireView(), 4), (Game, AcquireView(), 2), (WindwardGame, WindwardView(), 6)]
IDS = ["classic-4", "classic-2", "windward-6"]


def strings(obj) -> set[str]:
    """Every string in a JSON-able structure, dict keys included."""
    out: set[str] = set()
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.add(str(k))
            out |= strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out |= strings(v)
    return out


def racks(g) -> list[list[str]]:
    return [[t for t in r if t is not None] for r in g.racks]


def positions(cls, players: int, games: int, every: int, seed: int = 0):
    """Positions of seeded random games (uniform among the engine's legal actions), every few actions."""
    for i in range(games):
        rng = random.Random(seed * 1000 + i)
        g = cls.new([f"p{k}" for k in range(players)], seed=rng.randrange(2 ** 32))
        n = 0
        events: list = list(g.initial_events)
        while not g.is_over():
            if n % every == 0:
                yield g, events
            s = g.pending_seat()
            events = g.apply(s, rng.choice(g.legal_actions()))
            n += 1
        yield g, events


def shuffled_hidden(g, keep: int | None, rng: random.Random):
    """A copy of ``g`` whose hidden tiles (the bag, every rack but ``keep``'s) are shuffled among them."""
    d = g.to_dict()
    key = "hands" if "hands" in d else "racks"
    slots = [(s, i) for s, r in enumerate(d[key]) if s != keep for i, t in enumerate(r) if t is not None]
    bag_slots = list(range(d["bag_pos"], len(d["tile_bag"])))
    hidden = [d[key][s][i] for s, i in slots] + [d["tile_bag"][j] for j in bag_slots]
    rng.shuffle(hidden)
    for (s, i), t in zip(slots, hidden):
        d[key][s][i] = t
    for j, t in zip(bag_slots, hidden[len(slots):]):
        d["tile_bag"][j] = t
    return type(g).from_dict(d)


def test_views_provide_the_interface():
    for _, view, _ in CASES:
        assert IGameView.providedBy(view)
    assert AcquireView.game == "acquire" and WindwardView.game == "windward"


@pytest.mark.parametrize("cls,view,players", CASES, ids=IDS)
def test_nobody_sees_another_rack_or_the_bag(cls, view, players):
    rng = random.Random(7)
    checked = 0
    for g, events in positions(cls, players, games=4, every=9):
        hidden_all = set(g.bag) | {t for r in racks(g) for t in r}
        spectator = view.spectator(g)
        text = json.dumps(spectator)
        assert not strings(spectator) & hidden_all, "a spectator sees a rack or bag tile"
        assert "rack" not in spectator and "tile_bag" not in text
        assert not strings(view.describe(g, None, events)) & hidden_all
        assert json.loads(json.dumps(view.describe(g, None, events))) is not None
        for s in range(players):
            mine = view.seat(g, s)
            own = set(racks(g)[s])
            assert [r["tile"] for r in mine["rack"]] == racks(g)[s]
            assert not strings(mine) & (hidden_all - own), f"seat {s} sees another's tile"
            lines = view.describe(g, s, events)
            assert not strings(lines) & (hidden_all - own)
            d = view.decision(g, s)
            if d is not None:
                assert not strings(d) & (hidden_all - own)
        # shuffling what seat 0 cannot see changes nothing seat 0 or a spectator is shown
        other = shuffled_hidden(g, 0, rng)
        assert view.seat(other, 0) == view.seat(g, 0)
        assert view.decision(other, 0) == view.decision(g, 0)
        assert view.spectator(shuffled_hidden(g, None, rng)) == spectator
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("cls,view,players", CASES, ids=IDS)
def test_every_choice_is_legal_and_serialises(cls, view, players):
    kinds = set()
    for g, events in positions(cls, players, games=5, every=3, seed=1):
        json.dumps(view.spectator(g))
        assert len(view.scores(g)) == players
        if g.is_over():
            assert all(view.decision(g, s) is None for s in range(players))
            assert view.scores(g) == [float(x) for x in g.result()["scores"]]
            continue
        pending = g.pending_seat()
        for s in range(players):
            if s != pending:
                assert view.decision(g, s) is None
        before = g.to_dict()
        d = view.decision(g, pending)
        view.seat(g, pending), view.spectator(g)
        assert g.to_dict() == before, "a view changed the game"
        json.dumps(d)
        assert d["prompt"] and d["choices"], d
        kinds.add(d["kind"])
        for c in d["choices"]:
            assert c["label"] and (c["key"] is None or c["key"].isdigit())
            copy = type(g).from_dict(g.to_dict())
            copy.apply(pending, c["action"])          # raises IllegalAction if not legal
        for t in d.get("tiles", ()):
            assert t in racks(g)[pending]
    expected = {"play_tile", "found_chain", "purchase", "dispose"} if cls is Game else \
        {"card", "tile_purchase"}
    assert expected <= kinds, kinds


def test_purchase_and_disposal_forms_carry_the_engine_limits():
    seen = set()
    for g, _ in positions(Game, 4, games=6, every=1, seed=2):
        d = g.pending()
        if d is None or d.kind not in ("purchase", "dispose"):
            continue
        form = AcquireView().decision(g, d.seat)["form"]
        legal = list(g.legal_actions())
        if d.kind == "purchase":
            seen.add("buy")
            assert form["chains"] == d.options["chains"] and form["can_end"] == d.options["can_end"]
            # what the form lets one ask for at most, one chain at a time, is legal
            for chain, most in form["chains"].items():
                if most:
                    assert {"purchase": {chain: most}, "end_game": False} in legal
        else:
            seen.add("dispose")
            assert form["held"] == d.options["shares"]
            assert {"dispose": {"sell": 0, "trade": form["max_trade"]}} in legal
    assert seen == {"buy", "dispose"}


def test_private_draws_reach_only_their_seat():
    g = Game.new(["a", "b", "c"], seed=5)
    drawn = [e for e in g.initial_events if e["type"] == "tile_drawn"]
    assert drawn
    view = AcquireView()
    for s in range(3):
        lines = view.describe(g, s, g.initial_events)
        mine = [e["tile"] for e in drawn if e["seat"] == s]
        assert [ln for ln in lines if ln.startswith("you draw")] == [f"you draw {t}" for t in mine]
    assert not any(ln.startswith("you draw") for ln in view.describe(g, None, g.initial_events))


def test_windward_cards_are_public_and_hands_are_not():
    g = WindwardGame.new([f"p{i}" for i in range(6)], seed=3)
    view = WindwardView()
    spectator = view.spectator(g)
    assert all(p["cards"] == g.cards(p["seat"]) for p in spectator["players"])
    assert all(p["tiles"] == len(g.hand(p["seat"])) for p in spectator["players"])
    hands = g.hands
    for s in range(6):
        mine = view.seat(g, s)
        assert [r["tile"] for r in mine["rack"]] == hands[s]
        others = {t for o in range(6) if o != s for t in hands[o]}
        assert not strings(mine) & others
    assert set(NAMES) >= {t for h in hands for t in h}
