"""A web player who takes the last seat of a table of waiting DAIDE clients starts it, as
a seventh DAIDE client does (the clients are not left waiting for a Start button)."""
from gamehall_daide.wire.protocol import build_factory
from gamehall.table import PLAYING, WAITING
from gamehall_web.site import WebHall
from gamehall_web.views import find_views
from tests.daide.client import Client as DaideClient
from tests.daide.wire import Link, daide_hall, pump
from tests.web.webharness import Client, Jobs


def test_a_web_player_taking_the_last_seat_of_six_daide_clients_starts_the_game():
    hall = daide_hall()
    web = WebHall(hall, find_views(), compute=Jobs())
    links = [Link(build_factory(hall), DaideClient(f"bot{i}", seed=i)) for i in range(6)]
    pump(links)
    hall.clock.advance(0.5)
    [table] = [t for t in hall.tables.values() if t.game.name == "diplomacy" and len(t.seats) == 6]
    assert table.state == WAITING
    bob = Client(web, peer="10.0.0.2")
    bob.sign_in("Bob")
    bob.send({"type": "join", "table": table.id})
    hall.clock.advance(0)
    pump(links)
    assert not bob.errors(), bob.errors()
    assert table.state == PLAYING and [s.name for s in table.seats][-1] == "Bob"
    assert all(link.client.all("HLO") for link in links)        # the DAIDE clients were told


def test_a_table_of_web_players_only_still_waits_for_its_start():
    hall = daide_hall()
    web = WebHall(hall, find_views(), compute=Jobs())
    players = []
    for i in range(7):
        c = Client(web, peer=f"10.0.1.{i}")
        c.sign_in(f"W{i}")
        players.append(c)
    players[0].send({"type": "create", "game": "diplomacy"})
    [table] = [t for t in hall.tables.values() if t.creator == "W0"]
    for c in players[1:]:
        c.send({"type": "join", "table": table.id})
    hall.clock.advance(1)
    assert len(table.seats) == 7 and table.state == WAITING
