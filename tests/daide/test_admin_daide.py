"""The operator's ``daide`` command: tables, options, defaults, bots; kick; a hall bot plays a
seat next to DAIDE clients; a restored game's deadline runs again."""
import pytest

from gamehall.table import FINISHED, PLAYING, WAITING
from gamehall_daide.admin import daide_command, parse_options
from gamehall_daide.wire.protocol import options_of, rooms_of
from tests.daide.client import Client
from tests.daide.test_server_game import seven
from tests.daide.wire import Link, daide_hall, factory_of, pump


def test_parse_options():
    assert parse_options(["LVL=10", "mtl=600", "DSD", "-npb", "fixed", "max_year=1910"]) == {
        "LVL": 10, "MTL": 600, "DSD": True, "NPB": False, "fixed": True, "max_year": 1910}
    for bad in (["XYZ=1"], ["LVL=ten"], ["DSD=1"], ["LVL=9000"], ["AOA=1"]):
        with pytest.raises(ValueError):
            parse_options(bad)


def test_new_set_defaults_and_list():
    hall = daide_hall()
    assert daide_command(hall, "") == "no Diplomacy tables"
    out = daide_command(hall, "new LVL=10 MTL=300 NPR")
    table = next(iter(hall.tables.values()))
    assert f"#{table.id}" in out and options_of(table)["MTL"] == 300 and options_of(table)["NPR"]
    daide_command(hall, f"set {table.id} BTL=60 -NPR")
    assert options_of(table)["BTL"] == 60 and not options_of(table)["NPR"]
    assert "MTL=300" in daide_command(hall, "")
    daide_command(hall, "defaults RTL=45")
    assert options_of(rooms_of(hall).new_table())["RTL"] == 45
    with pytest.raises(ValueError):
        daide_command(hall, "frobnicate")


def test_bots_fill_a_waiting_table_and_start_it_then_play_with_clients():
    hall = daide_hall()
    factory = factory_of(hall)
    links = [Link(factory, Client(f"c{i}", seed=i, draw_year=1902)) for i in range(5)]
    pump(links)
    table = rooms_of(hall).open_table()
    assert table.state == WAITING and len(table.seats) == 5
    daide_command(hall, f"bot {table.id} random")
    assert "starts" in daide_command(hall, f"bot {table.id} hold")
    assert table.state == PLAYING
    for _ in range(400):
        pump(links)
        hall.clock.advance(0.1)
        if table.state != PLAYING:
            break
    # the hold bot never draws, so the game runs on; the clients saw bots' orders in ORD
    assert table.engine.turn()[1] >= 1902 or table.state == FINISHED
    bot_powers = {table.engine.powers[i] for i, s in enumerate(table.seats) if s.kind == "bot"}
    ords = links[0].client.all("ORD")
    assert bot_powers <= {m[2][0][0] if isinstance(m[2][0], list) else m[2][0] for m in ords}


def test_put_a_bot_in_a_seat_in_play_and_kick():
    hall = daide_hall()
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=range(7))
    table = next(t for t in hall.tables.values() if t.state == PLAYING)
    power = links[2].client.power
    daide_command(hall, f"bot {table.id} {power} hold")
    pump(links)
    assert table.seats[2].kind == "bot" and links[2].client.names()[-1] == "OFF" and links[2].closed
    hall.kick(links[4].client.name)
    pump(links)
    assert links[4].closed and "OFF" in links[4].client.names()
    assert table.seats[4].kind == "bot"
    with pytest.raises(ValueError):
        daide_command(hall, f"bot {table.id} XXX")
    with pytest.raises(ValueError):
        daide_command(hall, f"set {table.id} LVL=10")       # only time limits during play


def test_a_restored_game_runs_its_deadline_again(hall_store):
    from tests.hallstores import flush, settle
    hall = daide_hall(store=hall_store.open(), seat_hold=3600.0)
    rooms_of(hall).default_options.update({"MTL": 60})
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=range(7))
    flush(*hall.tables.values())
    for link in links:
        link.lose()
    hall2 = daide_hall(store=hall_store.restart(hall.store), seat_hold=3600.0)
    settle(hall2.restore())
    table = next(t for t in hall2.tables.values() if t.state == PLAYING)
    assert rooms_of(hall2).room(table).deadline.remaining() == 60
    hall2.clock.advance(60)
    assert table.engine.turn() == ("FAL", 1901)


def test_humans_preset():
    assert parse_options(["humans", "MTL=900"]) == {"MTL": 900, "RTL": 600, "BTL": 600, "DSD": True}


def test_a_vanished_player_is_held_then_played_by_a_bot_then_taken_back_with_iam():
    hall = daide_hall(seat_hold=30.0)
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=range(7))
    table = next(t for t in hall.tables.values() if t.state == PLAYING)
    power, code = links[5].client.power, links[5].client.passcode
    links[5].lose()
    rest = links[:5] + links[6:]
    hall.clock.advance(29)
    pump(rest)
    assert table.engine.turn() == ("SPR", 1901) and table.seats[5].kind == "human"
    hall.clock.advance(1)                      # the hold runs out: a bot plays the seat
    for _ in range(20):
        hall.clock.advance(0.1)
        pump(rest)
    assert table.seats[5].kind == "bot" and 5 not in table.engine.pending_seats()   # the bot ordered
    assert ["NOT", ["CCD", [power]]] in links[0].client.received
    back = Link(factory, Client("back", rejoin=(power, code), play=False))
    pump([back])
    assert back.client.received[0] == ["YES", ["IAM", [power], [code]]]
    assert table.seats[5].kind == "human" and table.seats[5].user is not None


def solo_game(seed: int):
    """Six DAIDE clients that only hold against the hall's strong bot, to 1925 at the most."""
    import random
    hall = daide_hall(rng=random.Random(seed))
    rooms_of(hall).default_options.update({"max_year": 1925})
    factory = factory_of(hall)
    links = [Link(factory, Client(f"h{i}", seed=i, moves=False)) for i in range(6)]
    pump(links)
    table = rooms_of(hall).open_table()
    daide_command(hall, f"bot {table.id} strong")
    for _ in range(20000):
        pump(links)
        hall.clock.advance(0.01)
        if table.state != PLAYING:
            break
    pump(links)                                   # what the last action told
    return table, links


def test_a_solo_is_slo_then_smr_now_off():
    """The strong bot takes more than half the centres (in most such games: up to three are
    played); every client hears the last ORDs, SCO, SLO, SMR, NOW, then OFF."""
    for seed in (1, 2, 3):
        table, links = solo_game(seed)
        assert table.state == FINISHED
        if table.engine.result()["reason"].startswith("solo"):
            break
    else:
        raise AssertionError("the strong bot never soloed against six holding clients")
    bot_power = table.engine.powers[6]
    c = links[0].client
    names = c.names()
    assert c.last("SLO") == ["SLO", [bot_power]]
    assert names[-5:] == ["SCO", "SLO", "SMR", "NOW", "OFF"] or names[-4:] == ["SLO", "SMR", "NOW", "OFF"]
    smr = c.last("SMR")
    entry = next(e for e in smr[2:] if e[0] == bot_power)
    assert entry[2] == ["'strong'"] and entry[3] >= 18
