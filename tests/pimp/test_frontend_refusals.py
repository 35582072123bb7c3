"""The front end names the refused message: an action the table refuses (its game is over)
gets ERROR_UNEXPECTED_MESSAGE with that message's own code, as the protocol text says
("Unexpected message type X"), not 0xFE (seen on the wire after PLAYER_WON in the e2e test)."""
from gamehall_pimp.wire.protocol import rooms_of
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


def test_the_reserved_type_0xff_is_answered_like_an_unassigned_code_and_the_connection_stays():
    # the reference server: ERROR_UNEXPECTED_MESSAGE(0xFF), connection kept (as for 0x17)
    hall, factory = setup()
    kerz = WireClient("kerz")
    conn = Conn(factory, kerz, 4110)
    run(hall, [conn])
    assert kerz.me == 1
    conn.proto.dataReceived(bytes([0xFF, 0, 0xFF, 2, 1, 2, 0x17, 0]))
    assert conn.transport.value() == bytes([0xFE, 1, 0xFF, 0xFE, 1, 0xFF, 0xFE, 1, 0x17])
    assert not conn.transport.disconnecting
    conn.transport.clear()
    conn.proto.dataReceived(bytes([0x11, 0]))          # still spoken to: a state dump
    assert conn.transport.value()[:3] == bytes([0x12, 1, 0])
    # payload length 255 still cannot be framed: ERROR_UNPARSEABLE and closed
    conn.transport.clear()
    conn.proto.dataReceived(bytes([0x21, 0xFF]))
    assert conn.transport.value() == bytes([0xFD, 0]) and conn.transport.disconnecting
