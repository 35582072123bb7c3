"""The front end names the refused message: an action the table refuses (its game is over)
gets ERROR_UNEXPECTED_MESSAGE with that message's own code, as the protocol text says
("Unexpected message type X"), not 0xFE (seen on the wire after PLAYER_WON in the e2e test)."""
from gamehall_pimp.protocol import rooms_of
from tests.pimp.test_frontend import Conn, run, setup
from tests.pimp.wireclient import WireClient, u32


def test_an_action_after_the_game_is_over_is_refused_with_its_own_code():
    hall, factory = setup()
    clients = [WireClient(n, piece=i + 1) for i, n in enumerate(["kerz", "pavlov"])]
    conns = [Conn(factory, c, 4100 + i) for i, c in enumerate(clients)]
    run(hall, conns[:1])
    g = rooms_of(hall).current().engine.game
    g.options["max_turns"] = 20
    run(hall, conns, until=g.is_over)
    run(hall, conns)
    kerz = clients[0]
    assert kerz.winner
    kerz.received.clear()
    kerz.send("THROW_DICE")
    kerz.send("TRANSACTION_AGREE", u32(1))
    run(hall, conns)
    errors = [m for m in kerz.received if m[0].startswith("ERROR")]
    assert errors == [("ERROR_UNEXPECTED_MESSAGE", 0x21), ("ERROR_UNEXPECTED_MESSAGE", 0x76)]
