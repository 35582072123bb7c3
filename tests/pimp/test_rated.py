"""Monopoly (PIMP) rated through the hall: a registered player comes in with ``NAME+KEY`` over
the real wire, plays a whole game against the hall's bots, and the game's end rates them (one
rating per variant, any number of players), the bots under ``bot:pimp:LEVEL``; places from
PIMP's result (the last player standing first, the others by net worth, the bankrupt sharing
the last place); the rebuild gives the same ratings."""
from __future__ import annotations

from gamehall.ratings import places_from_result, rate_game
from gamehall.table import FINISHED
from tests.pimp.test_frontend import Conn, run, setup
from tests.pimp.test_hall_bots import new_table, run_clock
from tests.pimp.wireclient import WireClient
from tests.test_players_wire import register


def test_a_registered_player_and_the_bots_are_rated_when_a_monopoly_game_ends():
    hall, factory = setup(rng=__import__("random").Random(7))
    key = register(hall, "kerz")
    table = new_table(hall, "classic 2")
    g = table.engine.game
    g.options["max_turns"] = 150
    client = WireClient("kerz+" + key)
    conns = [Conn(factory, client, 4300)]
    run(hall, conns, until=lambda: client.me > 0 or g.is_over())
    seat = client.me - 1
    assert table.seats[seat].name == "kerz" and table.seats[seat].registered
    run(hall, conns, until=g.is_over)
    run_clock(hall, g.is_over)
    assert table.state == FINISHED
    result = hall.store.load_table(table.store_id).result["result"]
    places = places_from_result(result)
    assert len(places) == len(table.seats) == 3
    assert sorted(places)[0] == 1
    key_name = f"pimp/{table.variant}"
    rows = {r["player"]: r for r in hall.store.standings(key_name).result}
    bots = {f"bot:pimp:{s.bot}" for i, s in enumerate(table.seats) if i != seat}
    assert set(rows) == {"kerz"} | bots
    names = ["kerz" if i == seat else f"bot:pimp:{s.bot}" for i, s in enumerate(table.seats)]
    want = rate_game({}, names, places)
    for name, rating in want.items():
        assert abs(rows[name]["mu"] - rating.mu) < 1e-9 and rows[name]["games"] == 1
    before = {k: (r["mu"], r["sigma"]) for k, r in rows.items()}
    hall.store.rebuild_ratings()
    after = {r["player"]: (r["mu"], r["sigma"]) for r in hall.store.standings(key_name).result}
    assert after == before
