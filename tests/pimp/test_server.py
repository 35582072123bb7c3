"""The PIMP conversation without sockets: wire clients (written from the protocol text) play
whole games against PimpServer; handshake, joining by vote, rejoin, errors."""
from gamehall_pimp.game import Monopoly
from gamehall_pimp.wire.conversation import PimpServer
from tests.pimp.model import check_invariants
from tests.pimp.wireclient import WireClient, u32


class Hub:
    """Delivers bytes between clients and the server until nobody has anything to say."""

    def __init__(self, server: PimpServer):
        self.server = server
        self.clients: dict[str, WireClient] = {}
        self.writes = 0

    def add(self, client: WireClient) -> WireClient:
        self.clients[client.name] = client
        self.server.connect(client.name)
        return client

    def deliver(self, out: dict) -> None:
        for conn, data in out.items():
            self.writes += 1
            if conn in self.clients:
                self.clients[conn].feed(data)

    def run(self, limit: int = 200_000) -> None:
        for _ in range(limit):
            busy = False
            for name, client in list(self.clients.items()):
                data = client.take()
                if not data:
                    continue
                busy = True
                pos = 0
                while pos < len(data):
                    code, n = data[pos], data[pos + 1]
                    self.deliver(self.server.receive(name, code, data[pos + 2:pos + 2 + n]))
                    pos += 2 + n
            if not busy:
                return
        raise AssertionError("the conversation did not settle")


def _hub(max_turns=300, **options):
    g = Monopoly(seed=21, options=dict(max_turns=max_turns, **options))
    return g, Hub(PimpServer(g, 0xA93F910E))


def test_four_wire_clients_play_a_whole_game_to_a_winner():
    g, hub = _hub()
    clients = [hub.add(WireClient(n, piece=i + 1)) for i, n in enumerate(["kerz", "pavlov", "ann", "bob"])]
    hub.run()
    clients[2].bid_once = True
    for c in clients:
        hub.run()
    hub.run()
    assert g.is_over() and g.winner
    check_invariants(g)
    for c in clients:
        assert c.winner == g.winner
        assert c.cash == {pid: u.cash for pid, u in g.users.items() if pid in c.cash}
    names = set().union(*(c.names() for c in clients))
    for seen in ("DICE_ROLLED", "PROPERTY_SALE", "TRANSACTION_RENT_REQUESTED", "GOT_CARD", "PLAYER_WON",
                 "PROPERTY_AUCTION"):
        assert seen in names


def test_handshake_join_vote_refusal_and_errors():
    g, hub = _hub()
    a = hub.add(WireClient("kerz"))
    stray = "stray"
    hub.server.connect(stray)
    out = hub.server.receive(stray, 0x21, b"")                 # before the handshake
    assert out == {stray: bytes([0xFE, 1, 0x21])}
    assert hub.server.receive(stray, 0x00, b"\x02") == {stray: bytes([0xF0, 0])}
    assert hub.server.receive(stray, 0x00, b"\x01") == {stray: bytes([0x01, 4, 0xA9, 0x3F, 0x91, 0x0E])}
    assert hub.server.receive(stray, 0x17, b"") == {stray: bytes([0xFE, 1, 0x17])}
    assert hub.server.receive(stray, 0x60, b"\x00") == {stray: bytes([0xFD, 0])}
    hub.run()
    assert a.me == 1 and "JOIN_PENDING" not in a.names()
    b = hub.add(WireClient("nobody"))
    a.vote = False
    hub.run()
    assert "ERROR_NOT_WELCOME" in b.names() and ("JOIN_REFUSED", 2, "nobody") in a.received
    a.vote = True
    c = hub.add(WireClient("pavlov"))
    c.on_START_OF_TURN = lambda *args: None      # keep the game at its first turn
    hub.run()
    assert c.me == 2 and "JOIN_PENDING" in c.names() and a.names().count("START_OF_TURN") >= 1
    # an id that is not valid, a trade with oneself
    assert hub.server.receive("pavlov", 0x50, b"\x02") == {"pavlov": bytes([0xFC, 1, 0x50])}
    assert hub.server.receive("pavlov", 0x3B, b"\x63") == {"pavlov": bytes([0xFC, 1, 0x3B])}
    # a longer payload than needed is accepted
    assert hub.server.receive("pavlov", 0x11, b"junk")["pavlov"][:3] == bytes([0x12, 1, 0])


def test_rejoin_with_the_password_closes_the_old_connection():
    g, hub = _hub()
    a = hub.add(WireClient("kerz"))
    b = hub.add(WireClient("pavlov"))
    hub.run()
    hub.server.connect("again")
    hub.server.receive("again", 0x00, b"\x01")
    wrong = hub.server.receive("again", 0x0A, bytes([b.me]) + u32(b.password ^ 1))
    assert wrong == {"again": bytes([0xF4, 0])}
    back = WireClient("again")
    back.feed(hub.server.receive("again", 0x0A, bytes([b.me]) + u32(b.password))["again"])
    assert back.received[0] == ("WELCOME_BACK", b.me, b.piece or back.received[0][2], "pavlov", True)
    assert back.names()[-1] in ("STATE_POT", "START_OF_TURN", "JAIL_PAY_OR_ROLL") and "STATE_POT" in back.names()
    assert hub.server.to_close == ["pavlov"] and hub.server.user_of("again") == b.me


def test_a_candidate_who_disconnects_leaves_the_queue_and_pong_rules():
    g, hub = _hub()
    a = hub.add(WireClient("kerz"))
    hub.run()
    hub.add(WireClient("ann"))
    hub.add(WireClient("bob"))
    a.vote = None
    a.send = lambda *args: None          # kerz does not vote
    hub.run()
    out = hub.server.disconnect("ann")
    assert b"bob" in out["kerz"]         # the next candidate is put to the vote
    assert hub.server.receive("kerz", 0xD1, u32(5)) == {"kerz": bytes([0xFE, 1, 0xD1])}
    hub.server.ping("kerz", 5)
    assert hub.server.receive("kerz", 0xD1, u32(5)) == {}
    assert hub.server.link_dead("kerz") == {"kerz": bytes([0xD2, 1, 1])}
