"""Lobby chat ``/rating [NAME]`` over the old clients' real wires (NetAcquire, E&T, DAIDE): the
player's ratings and places, told to the asker only, from one implementation in the lobby."""
from __future__ import annotations

from gamehall.ratings import rated_game, rating_lines
from gamehall.store import StoreError
from gamehall_et.wire.protocol import build_factory as et_factory
from tests.et.harness import Conn as EtConn
from tests.et.harness import et_hall
from tests.netacquire.harness import acquire_hall, connect, pump_all


def rated(store, names, winner, game="acquire", variant="classic"):
    seats = [{"name": n, "kind": "human", "bot": None, "registered": True} for n in names]
    tid = store.create_table(game, variant, 1, seats, {}).result
    store.update_table(tid, state="playing")
    result = {"scores": [1 if i == winner else 0 for i in range(len(names))], "winners": [winner]}
    store.finish_table(tid, "finished", result, None, rated_game(game, variant, seats, result))


def test_rating_lines_say_rating_games_provisional_and_places():
    rows = [{"rating_key": "acquire/classic/2p", "name": "Ann", "rating": 3.25, "games": 12,
             "places": {"2": 4, "1": 8}, "last_played": 86400.0 * 365}]
    assert rating_lines("ann", rows) == [
        "Ratings of Ann (mean - 3 deviations):",
        "acquire/classic/2p: 3.2 after 12 games; places 1st 8, 2nd 4; last played 1971-01-01"]
    rows[0]["games"] = 1
    assert "after 1 game, provisional;" in rating_lines("ann", rows)[1]
    assert rating_lines("Zed", []) == [
        "Zed has no rating yet: ratings count finished games with a registered player."]


def test_netacquire_rating_command_answers_the_asker_only():
    hall = acquire_hall()
    rated(hall.store, ["Ann", "Bob"], 0)
    rated(hall.store, ["Ann", "Bob", "Cy"], 2)
    _, (ann, bob) = connect(hall, ["Ann", "Bob"])
    ann.send('BM;Lobby,"/rating"')
    ann.send('BM;Lobby,"/rating bob"')
    ann.send('BM;Lobby,"/rating Nobody"')
    ann.send('BM;Lobby,"/help"')
    pump_all([ann, bob])
    said = [line for line in ann.logic.lm if line.startswith("*** ")]
    assert said[0] == "*** Ratings of Ann (mean - 3 deviations):"
    assert said[1].startswith("*** acquire/classic/2p: ") and "places 1st 1;" in said[1]
    assert said[2].startswith("*** acquire/classic/3p: ") and "places 2nd 1;" in said[2]
    assert said[3] == "*** Ratings of Bob (mean - 3 deviations):"
    assert "places 2nd 1;" in said[4] and "places 2nd 1;" in said[5]
    assert said[6] == ("*** Nobody has no rating yet: ratings count finished games with a "
                       "registered player.")
    assert any(line.startswith("/rating [NAME]") for line in ann.logic.lm)
    assert not any("Ratings of" in line or "/rating" in line for line in bob.logic.lm)


def test_et_rating_command_answers_the_asker_only():
    hall = et_hall()
    factory = et_factory(hall)
    a, b = EtConn(factory), EtConn(factory)
    a.send("name p0")
    b.send("name p1")
    hall.clock.advance(factory.window)
    a.lines(), b.lines()
    rated(hall.store, ["p0", "p1"], 1, game="et", variant="standard")
    out = a.send("say /rating p1")
    assert out[0] == "note *** Ratings of p1 (mean - 3 deviations):"
    assert out[1].startswith("note *** et/standard: ") and "places 1st 1;" in out[1]
    assert b.lines() == []
    b.send("say hello")                          # other chat still goes to everyone
    assert a.lines() == [f"say {b.id} p1: hello"]


def test_a_store_that_cannot_answer_says_so_and_the_lobby_goes_on():
    hall = acquire_hall()
    _, (ann,) = connect(hall, ["Ann"])

    def fails(name):
        from twisted.internet.defer import fail
        return fail(StoreError("database error: gone"))

    hall.store.player_ratings = fails
    ann.send('BM;Lobby,"/rating"')
    ann.send('BM;Lobby,"still here"')
    pump_all([ann])
    lines = [line for line in ann.logic.lm if not line.startswith("#")]
    assert "*** The ratings cannot be read right now; try again later." in lines
    assert lines[-1] == "Ann: still here"


def test_daide_adm_rating_answers_the_asker_only():
    from tests.daide.client import Client
    from tests.daide.wire import Link, daide_hall, factory_of, pump
    hall = daide_hall()
    factory = factory_of(hall)
    ann, bob = Link(factory, Client("Ann", play=False)), Link(factory, Client("Bob", play=False))
    pump([ann, bob])
    rated(hall.store, ["Ann", "Bob"], 0, game="diplomacy", variant="standard")
    ann.client.send("ADM ( 'Ann' ) ( '/rating' )")
    pump([ann, bob])
    said = [m[2][0] for m in ann.client.all("ADM")]
    assert said[0] == "'Ratings of Ann (mean - 3 deviations):'"
    assert said[1].startswith("'diplomacy/standard: ") and "places 1st 1;" in said[1]
    assert not any("Ratings of" in str(m) for m in bob.client.all("ADM"))
