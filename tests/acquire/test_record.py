"""Game records: replay, reports, errors, aliases."""
from __future__ import annotations

import json
import random

import pytest

from gamehall_acquire import record as R
from gamehall_acquire import tiles as T
from gamehall_acquire.rules import Game, Rules


def finished_game(seed=5, n=4, claims=True):
    g = Game.new([f"p{i}" for i in range(n)], seed=seed)
    rnd = random.Random(seed)
    while not g.is_over():
        legal = g.legal_actions()
        if not claims:
            legal = [a for a in legal if not a.get("end_game")]
        g.apply(g.pending_seat(), rnd.choice(legal))
    return g


def test_record_format():
    g = finished_game()
    rec = g.record()
    assert rec["game"] == "acquire" and rec["variant"] == "classic"
    assert rec["players"] == ["p0", "p1", "p2", "p3"]
    assert sorted(rec["tile_bag"]) == sorted(T.NAMES) and len(rec["tile_bag"]) == 108
    assert rec["seed"] == 5
    assert "rules" not in rec
    assert all(a["player"] in rec["players"] for a in rec["actions"])
    kinds = {k for a in rec["actions"] for k in a if k != "player"}
    assert kinds <= {"play_tile", "found_chain", "choose_survivor", "choose_defunct", "dispose",
                     "purchase", "end_game"}
    assert json.loads(json.dumps(rec)) == rec


def test_replay_rebuilds_the_exact_game():
    for seed, claims in ((5, True), (6, False), (7, False)):
        g = finished_game(seed, 2 + seed % 5, claims)
        again = R.game_from_record(json.loads(json.dumps(g.record())))
        assert again.to_dict() == g.to_dict()
        assert again.result() == g.result()


def test_new_with_the_bag_plus_apply_rebuilds_the_game():
    g = finished_game(8)
    rec = g.record()
    h = Game.new(rec["players"], tile_bag=rec["tile_bag"])
    for a in rec["actions"]:
        seat = rec["players"].index(a["player"])
        h.apply(seat, {k: v for k, v in a.items() if k != "player"})
    assert h.cash == g.cash and h.end_reason == g.end_reason


def test_replay_of_a_game_in_progress():
    g = Game.new(["a", "b", "c"], seed=11)
    for _ in range(25):
        g.apply(g.pending_seat(), g.timeout_action(g.pending_seat()))
    again = R.game_from_record(g.record())
    assert again.to_dict() == g.to_dict()
    rep = R.replay_report(g.record())
    assert rep["over"] is False and rep["reason"] is None and rep["winners"] == []
    assert rep["cash"] == g.cash


def test_replay_report():
    g = finished_game(9)
    rep = R.replay_report(g.record())
    res = g.result()
    assert rep["cash"] == res["scores"]
    assert rep["scores"] == dict(zip(g.players, res["scores"]))
    assert rep["winners"] == [g.players[s] for s in res["winners"]]
    assert rep["reason"] == res["reason"] and rep["over"] is True


def test_records_accept_chain_aliases():
    bag = None
    g = Game.new(["ann", "bob"], seed=21)
    while True:
        d = g.pending()
        if d.kind == "found_chain":
            break
        g.apply(d.seat, g.timeout_action(d.seat))
    bag = g.record()
    aliases = {"Luxor": "SACKSON", "Tower": "zeta", "American": "America", "Festival": "fusion",
               "Worldwide": "Hydra", "Continental": "quantum", "Imperial": "Phoenix"}
    chain = d.options["chains"][0]
    g.apply(d.seat, {"found_chain": chain})
    d2 = g.pending()
    if d2 is not None and d2.kind == "purchase" and d2.options["chains"].get(chain):
        g.apply(d2.seat, {"purchase": {chain: 1}, "end_game": False})
    rec = g.record()
    for a in rec["actions"][len(bag["actions"]):]:
        if "found_chain" in a:
            a["found_chain"] = aliases[a["found_chain"]]
        if a.get("purchase"):
            a["purchase"] = {aliases[k]: v for k, v in a["purchase"].items()}
    again = R.game_from_record(rec)
    assert again.to_dict()["chain_tiles"] == g.to_dict()["chain_tiles"]
    assert again.shares == g.shares
    # the rebuilt game records canonical names
    assert again.record()["actions"] == g.record()["actions"]


def test_first_illegal_action_is_reported():
    g = finished_game(12)
    rec = g.record()
    bad = json.loads(json.dumps(rec))
    index = next(i for i, a in enumerate(bad["actions"]) if "play_tile" in a and i > 10)
    bad["actions"][index]["play_tile"] = "13Z"
    with pytest.raises(R.RecordError) as info:
        R.game_from_record(bad)
    err = info.value
    assert err.index == index and err.action == bad["actions"][index]
    assert "13Z" in err.reason
    rep = R.replay_report(bad)
    assert rep == {"error": {"index": index, "action": bad["actions"][index], "reason": err.reason}}
    # an action for the wrong player
    bad = json.loads(json.dumps(rec))
    a0 = bad["actions"][0]
    a0["player"] = next(p for p in bad["players"] if p != a0["player"])
    assert R.replay_report(bad)["error"]["index"] == 0
    # an unknown player, a non-object
    bad = json.loads(json.dumps(rec))
    bad["actions"][3]["player"] = "nobody"
    assert "unknown player" in R.replay_report(bad)["error"]["reason"]
    bad["actions"][3] = "play 1A"
    assert R.replay_report(bad)["error"]["index"] == 3
    # an action after the end
    bad = json.loads(json.dumps(rec))
    bad["actions"].append(dict(bad["actions"][-1]))
    assert R.replay_report(bad)["error"]["index"] == len(rec["actions"])


def test_bad_headers():
    rec = Game.new(["a", "b"], seed=1).record()
    for change in ({"game": "chess"}, {"variant": "nonsense"}, {"tile_bag": rec["tile_bag"][:-1]},
                   {"players": ["a"]}, {"players": ["a", "a"]}):
        bad = dict(rec, **change)
        with pytest.raises(R.RecordError) as info:
            R.game_from_record(bad)
        assert info.value.index is None
        assert "error" in R.replay_report(bad)
    no_bag = {k: v for k, v in rec.items() if k != "tile_bag"}
    assert "tile_bag" in R.replay_report(no_bag)["error"]["reason"]


def test_custom_rules_travel_in_the_record():
    g = Game.new(["a", "b"], seed=3, rules=Rules(start_cash=7000))
    rec = g.record()
    assert rec["rules"]["start_cash"] == 7000
    assert R.game_from_record(rec).cash == [7000, 7000]


def test_dumps_loads_round_trip():
    rec = finished_game(13).record()
    text = R.dumps(rec)
    assert R.loads(text) == rec
    assert text.count("\n") >= len(rec["actions"])


def test_nonsense_rules_in_a_record_header_are_a_record_error():
    import pytest

    from gamehall_acquire.record import RecordError, start_from_record
    from gamehall_acquire.rules import Game
    rec = Game.new(["a", "b"], seed=3).record()
    for bad in [{"max_buy": "three"}, {"start_cash": "x"}, {"safe_size": None}, {"start_cash": -5},
                {"rack_size": 0}, {"min_players": 5, "max_players": 2}]:
        with pytest.raises(RecordError):
            start_from_record(dict(rec, rules=bad))
