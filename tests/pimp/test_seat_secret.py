"""A PIMP seat keeps the player's password as the hall keeps seat secrets (a salted hash that
``secret_matches`` checks), made once per seat, not once per (re)join."""
from gamehall.identity import secret_matches
from gamehall_pimp.wire.protocol import rooms_of
from tests.pimp.test_frontend import Conn, run, setup
from tests.pimp.wireclient import WireClient


def test_each_seat_holds_a_hash_of_its_players_password():
    hall, factory = setup()
    clients = [WireClient(n, piece=i + 1) for i, n in enumerate(["kerz", "pavlov"])]
    conns = [Conn(factory, c, 4100 + i) for i, c in enumerate(clients)]
    run(hall, conns, until=lambda: all(c.me for c in clients))
    table = rooms_of(hall).current()
    for client in clients:
        seat = table.seats[client.me - 1]
        assert seat.user is not None and seat.secret is not None
        assert secret_matches(seat.secret, str(client.password))
        assert not secret_matches(seat.secret, str(client.password ^ 1))
