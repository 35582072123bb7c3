"""Property tests: random legal order sets and whole random games."""
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from gamehall_daide import mapdata
from gamehall_daide.bots import RandomBot, make_bot
from gamehall_daide.game import DiplomacyEngine, POWERS
from gamehall_daide.mapdata import province
from gamehall_daide.position import Position
from gamehall_daide.selfplay import play

G = mapdata.load()
PLAYERS = [f"p{i}" for i in range(7)]


def check_possible(pos: Position) -> None:
    """No impossible position: one unit per province, on the map, fleets on water/coasts, armies on land."""
    for prov, (power, utype, loc) in pos.units.items():
        assert power in POWERS
        assert province(loc) == prov and prov in G.army_adj
        assert G.can_stand(utype, loc), (utype, loc)
    for prov, (power, utype, loc, options) in pos.dislodged.items():
        assert province(loc) == prov and G.can_stand(utype, loc)
        for o in options:
            assert province(o) not in pos.units and G.adjacent(utype, loc, o)
    assert set(pos.owners) <= G.centres
    assert all(p in POWERS for p in pos.owners.values())


def random_position(seed: int, phases: int) -> DiplomacyEngine:
    """A position reached by random bots after some phases."""
    e = DiplomacyEngine("standard", PLAYERS, seed)
    bots = [RandomBot(seed * 7 + i) for i in range(7)]
    for _ in range(phases):
        if e.is_over():
            break
        for seat in e.pending_seats():
            if seat in e.pending_seats():
                e.apply(seat, bots[seat].choose(e, seat))
        if e.pending_seats():
            e.apply(-1, {"deadline": f"{e.turn()[0]} {e.turn()[1]}"})
    return e


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 12), st.integers(0, 2**32))
def test_random_order_sets_are_possible_and_repeatable(seed, phases, choice_seed):
    e = random_position(seed, phases)
    if e.is_over():
        return
    rng = random.Random(choice_seed)
    for power in POWERS:
        for key, opts in e.legal_orders(power).items():
            if key in ("builds", "removals"):
                for text in rng.sample(opts, min(len(opts), 3)):
                    e.pos.submit(power, text)
            else:
                note, _ = e.pos.submit(power, rng.choice(opts))
                assert note == "MBV"
    twin = Position.from_dict(G, e.pos.to_dict())
    first = e.pos.process()
    second = twin.process()
    assert first == second
    assert e.pos.to_dict() == twin.to_dict()
    check_possible(e.pos)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 16), st.integers(0, 2**32))
def test_adjudication_does_not_depend_on_decision_order(seed, phases, choice_seed):
    from gamehall_daide.adjudicator import adjudicate_movement
    from gamehall_daide.position import MOVEMENT
    e = random_position(seed, phases)
    if e.is_over() or e.pos.phase != MOVEMENT:
        return
    rng = random.Random(choice_seed)
    for power in POWERS:
        for opts in e.legal_orders(power).values():
            e.pos.submit(power, rng.choice(opts))
    units, orders = e.pos.units, e.pos.orders
    base = adjudicate_movement(G, units, orders)
    provs = list(units)
    rng.shuffle(provs)
    other = adjudicate_movement(G, units, dict(reversed(list(orders.items()))), provs)
    assert (other.results, other.moved, other.dislodged, other.standoffs) == \
        (base.results, base.moved, base.dislodged, base.standoffs)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["random", "strong", "mixed"]))
def test_whole_games_end_with_centres_conserved(seed, kind):
    names = {"random": ["random"] * 7, "strong": ["strong"] * 7,
             "mixed": ["strong", "random", "hold", "random", "strong", "hold", "random"]}[kind]
    e = DiplomacyEngine("standard", PLAYERS, seed, options={"max_year": 1915})
    bots = [make_bot(n, seed + i) for i, n in enumerate(names)]
    phases = 0
    while not e.is_over():
        turn = e.turn()
        play_one = e.pending_seats()
        for seat in play_one:
            if e.turn() == turn and seat in e.pending_seats():
                e.apply(seat, bots[seat].choose(e, seat))
        if e.turn() == turn and not e.is_over():
            e.apply(-1, {"deadline": f"{turn[0]} {turn[1]}"})
        check_possible(e.pos)
        owned = sum(e.pos.centres(p) for p in POWERS)
        neutral = sum(1 for c in G.centres if c not in e.pos.owners)
        assert owned + neutral == 34
        phases += 1
        assert phases < 200
    r = e.result()
    assert r["reason"] in ("draw", "year limit") or r["reason"].startswith("solo ")
    assert sum(r["scores"]) <= 34
    if r["reason"].startswith("solo"):
        assert max(r["scores"]) >= 18


def test_selfplay_record_replays_exactly():
    from gamehall_daide import record
    e = DiplomacyEngine("standard", PLAYERS, 3, options={"max_year": 1905})
    actions = play(e, [make_bot(b, i) for i, b in enumerate(["strong", "random"] * 3 + ["hold"])])
    again = record.game_from_record(record.record_of(e, actions))
    assert again.to_dict() == e.to_dict()


_TOKENS = ["ENG", "FRA", "AMY", "FLT", "LON", "NTH", "STP", "NCS", "SCS", "MTO", "SUP", "CVY", "CTO", "VIA",
           "HLD", "RTO", "DSB", "BLD", "REM", "WVE", "XXX", "SPA", "BUL", "PAR", "EDI", "LVP", "YOR"]
_tree = st.recursive(st.one_of(st.sampled_from(_TOKENS), st.integers(-9, 9)),
                     lambda inner: st.lists(inner, max_size=5), max_leaves=14)


@settings(max_examples=300, deadline=None)
@given(st.lists(_tree, min_size=1, max_size=6), st.sampled_from(["SPR", "SUM", "WIN"]))
def test_any_order_tree_gets_a_note_never_an_exception(tree, season):
    from gamehall_daide.text import render
    e = DiplomacyEngine("standard", PLAYERS, 1, powers=list(POWERS))
    e.pos.season = season
    note, order = e.pos.submit("ENG", tree)
    assert isinstance(note, str) and len(note) == 3
    assert (note == "MBV") == (order is not None)
    events = e.apply(1, {"submit": [render(tree)]})
    assert events[0]["type"] == "thx"
    e.apply(1, {"cancel": [render(tree)]})
