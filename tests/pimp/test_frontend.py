"""The pimp front end in process (StringTransport, a Clock): wire clients play through the hall,
every action is stored before it is told, users appear in the lobby, rejoin after a drop."""
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

from gamehall_pimp.game import PimpGame
from gamehall_pimp.wire.protocol import build_factory, rooms_of
from tests.helpers import make_hall
from tests.pimp.model import check_invariants
from tests.pimp.wireclient import WireClient, frame, u32


class Writes(StringTransport):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.writes = []

    def write(self, data):
        self.writes.append(data)
        super().write(data)


class Conn:
    def __init__(self, factory, client: WireClient, port: int):
        address = IPv4Address("TCP", "127.0.0.1", port)
        self.proto = factory.buildProtocol(address)
        self.transport = Writes(peerAddress=address)
        self.client = client
        self.proto.makeConnection(self.transport)

    def pump(self) -> bool:
        busy = False
        data = self.transport.value()
        if data:
            self.transport.clear()
            self.client.feed(data)
            busy = True
        out = self.client.take()
        if out and not self.transport.disconnecting:
            self.proto.dataReceived(out)
            busy = True
        return busy


def setup(**kw):
    kw.setdefault("idle_timeout", 0)
    hall = make_hall(games={"pimp": PimpGame()}, **kw)
    return hall, build_factory(hall)


def stored(hall) -> bool:
    """Every table's writes stored (on a real store, by its thread); was any waiting?"""
    from tests.hallstores import drain, flush
    waiting = [t for t in hall.tables.values() if t.writing_since is not None and not t.stalled]
    if not waiting:
        return False
    flush(*waiting)
    drain(hall.store)
    return True


def run(hall, conns, rounds=300_000, idle_seconds=10, until=None):
    """Pump bytes both ways; when nobody talks let the clock run (bots, holds), up to
    ``idle_seconds`` of silence (or until ``until()``)."""
    idle = 0
    for _ in range(rounds):
        if until is not None and until():
            return
        busy = False
        for c in conns:
            busy = c.pump() or busy
        if busy:
            idle = 0
            continue
        if stored(hall):                    # a real store's writes answered: told now
            continue
        hall.clock.advance(0.5)
        idle += 0.5
        if idle > idle_seconds:
            return
    raise AssertionError("did not settle")


def test_wire_clients_play_a_whole_game_through_the_hall_and_are_in_the_lobby():
    hall, factory = setup()
    clients = [WireClient(n, piece=i + 1) for i, n in enumerate(["kerz", "pavlov", "ann"])]
    conns = [Conn(factory, c, 4000 + i) for i, c in enumerate(clients)]
    run(hall, conns[:1])
    table = rooms_of(hall).current()
    table.engine.game.options["max_turns"] = 200
    g = table.engine.game
    run(hall, conns, until=g.is_over)
    run(hall, conns)
    assert g.is_over() and all(c.winner == g.winner for c in clients)
    check_invariants(g)
    assert {u.nickname for u in hall.who()} == {"kerz", "pavlov", "ann"}
    assert [s.name for s in table.seats] == ["kerz", "pavlov", "ann"]
    # stored before told: the store holds every action the engine applied
    assert table.seq == len(g.log)
    for c in clients:
        assert c.cash == {pid: u.cash for pid, u in g.users.items() if pid in c.cash}


def test_rejoin_after_a_drop_with_the_password_and_errors_on_the_wire():
    hall, factory = setup(seat_hold=10_000)
    a, b = WireClient("kerz"), WireClient("pavlov")
    b.on_START_OF_TURN = lambda *args: None          # the game waits at pavlov's first turn
    ca, cb = Conn(factory, a, 4001), Conn(factory, b, 4002)
    run(hall, [ca, cb])
    table = rooms_of(hall).current()
    assert b.me == 2
    cb.proto.dataReceived(bytes([0x17, 0]) + bytes([0x60, 1, 0]) + frame("TRANSACTION_AGREE", u32(99)))
    assert cb.transport.value() == bytes([0xFE, 1, 0x17, 0xFD, 0, 0xFC, 1, 0x76])
    cb.transport.clear()
    cb.proto.connectionLost(None)
    assert "pavlov" not in {u.nickname for u in hall.who()}
    again = WireClient("x")
    again.outbox = [frame("HANDSHAKE", b"\x01"), frame("REJOIN", bytes([2]) + u32(b.password ^ 7))]
    again.me = -1                                       # do not JOIN on the acknowledgement
    again.on_START_OF_TURN = lambda *args: None
    cc = Conn(factory, again, 4003)
    run(hall, [ca, cc])
    assert "ERROR_WRONG_PASSWORD" in again.names()
    again.send("REJOIN", bytes([2]) + u32(b.password))
    run(hall, [ca, cc])
    piece = table.engine.game.users[2].piece
    assert ("WELCOME_BACK", 2, piece, "pavlov", True) in again.received
    assert "pavlov" in {u.nickname for u in hall.who()}
    assert table.seats[1].user is not None and table.seats[1].user.nickname == "pavlov"
    # the rejoined client plays on
    again.send("THROW_DICE")
    run(hall, [ca, cc])
    assert "DICE_ROLLED" in again.names()


def test_one_write_per_event():
    hall, factory = setup()
    a, b = WireClient("kerz"), WireClient("pavlov")
    ca, cb = Conn(factory, a, 4001), Conn(factory, b, 4002)
    b.on_START_OF_TURN = lambda *args: None
    run(hall, [ca, cb])
    ca.transport.writes.clear()
    cb.transport.writes.clear()
    b.send("THROW_DICE")
    cb.pump()
    assert len(ca.transport.writes) == 1 and len(cb.transport.writes) == 1


def test_a_dropped_player_is_played_by_a_server_bot_after_the_hold_and_restore_replays():
    hall, factory = setup(seat_hold=5)
    a, b = WireClient("kerz"), WireClient("pavlov")
    ca, cb = Conn(factory, a, 4001), Conn(factory, b, 4002)
    b.on_START_OF_TURN = lambda *args: None
    run(hall, [ca, cb])
    table = rooms_of(hall).current()
    table.engine.game.options["max_turns"] = 60
    cb.proto.connectionLost(None)
    g = table.engine.game
    run(hall, [ca], idle_seconds=30, until=g.is_over)
    assert table.seats[1].kind == "bot"
    assert g.is_over() and g.turns >= 60
    # the store holds the whole game: a restored hall replays it to the same state
    from gamehall_pimp.record import game_from_record
    assert game_from_record(g.record()).to_dict() == g.to_dict()


def test_the_operator_opens_tables_makes_one_current_and_adds_bots():
    from gamehall_pimp.wire.protocol import monopoly_command
    hall, factory = setup()
    assert monopoly_command(hall, "") == "no Monopoly tables"
    first = int(monopoly_command(hall, "new").split("#")[1].split()[0])
    bot_name = monopoly_command(hall, f"bot {first} strong").split()[0]
    g = hall.table(first).engine.game
    g.options["max_turns"] = 40
    a = WireClient("kerz")
    ca = Conn(factory, a, 4001)
    run(hall, [ca], until=g.is_over)
    ca.pump()
    assert a.me == 2                          # the bot was there first and voted kerz in
    assert [s for s in g.log if s[1] == "ACCEPT_JOIN"] == [[1, "ACCEPT_JOIN", [2]]]
    assert g.users[1].name == bot_name
    # the server bot played its turns (and claims, bids, pays) against kerz to the end
    assert g.is_over() and a.winner == g.winner
    assert any(entry[0] == 1 and entry[1] == "THROW_DICE" for entry in g.log)
    second = int(monopoly_command(hall, "new classic+no-pot").split("#")[1].split()[0])
    b = WireClient("pavlov")
    cb = Conn(factory, b, 4002)
    run(hall, [cb])
    assert b.me == 1 and hall.table(second).engine.game.options["pot"] is False
    third = int(monopoly_command(hall, "new").split("#")[1].split()[0])
    assert "* #%d" % third in monopoly_command(hall, "")
    monopoly_command(hall, f"current {second}")
    assert "* #%d" % second in monopoly_command(hall, "")
    t2 = hall.table(second)
    t2.engine.game.options["max_turns"] = 40      # pavlov and ann then play: a bounded game
    c = WireClient("ann")
    cc = Conn(factory, c, 4003)
    run(hall, [cb, cc])
    assert c.me == 2 and t2.seats[1].name == "ann"


def test_a_new_table_with_server_bots_plays_by_itself():
    from gamehall_pimp.wire.protocol import monopoly_command
    hall, factory = setup()
    answer = monopoly_command(hall, "new classic+single-go 2")
    assert answer.endswith("with StrongBot1, StrongBot2")
    table = hall.table(int(answer.split("#")[1].split()[0]))
    g = table.engine.game
    g.options["max_turns"] = 30
    assert g.phase == "roll" and [s.kind for s in table.seats] == ["bot", "bot"]
    for _ in range(2000):
        if g.is_over():
            break
        hall.clock.advance(0.5)
    assert g.is_over() and g.winner
    import pytest
    from gamehall.table import TableError
    with pytest.raises(ValueError):
        monopoly_command(hall, "new classic 9")
    with pytest.raises(TableError):
        monopoly_command(hall, "current 99")


def test_after_a_restart_the_game_is_replayed_and_a_rejoin_finds_it(hall_store):
    from gamehall.hall import Hall
    from gamehall_pimp.wire.protocol import build_factory as build
    from tests.hallstores import settle
    hall, factory = setup(store=hall_store.open())
    a, b = WireClient("kerz"), WireClient("pavlov")
    b.on_START_OF_TURN = lambda *args: None
    ca, cb = Conn(factory, a, 4001), Conn(factory, b, 4002)
    run(hall, [ca, cb])
    b.send("THROW_DICE")
    run(hall, [ca, cb])
    before = rooms_of(hall).current().engine.game.to_dict()
    # a new hall on the same store (as after SIGKILL and a restart)
    store = hall_store.restart(hall.store)
    hall2 = Hall(hall.clock, store, {"pimp": PimpGame()}, seat_hold=30.0, idle_timeout=0)
    hall2.create_table("pimp")        # so the restored table gets another hall table number
    settle(hall2.restore())
    table = rooms_of(hall2).current()
    after = table.engine.game.to_dict()
    assert after["users"] == before["users"] and after["owner"] == before["owner"]
    assert after["log"] == before["log"]
    back = WireClient("again")
    back.me = -1
    back.on_START_OF_TURN = lambda *args: None
    back.outbox = [frame("HANDSHAKE", b"\x01"), frame("REJOIN", bytes([2]) + u32(b.password))]
    cc = Conn(build(hall2), back, 4003)
    run(hall2, [cc])
    assert any(m[0] == "WELCOME_BACK" and m[1] == 2 for m in back.received)
    assert "pavlov" in {u.nickname for u in hall2.who()}
    # the handshake names the same game before and after the restart
    numbers = [next(m[1] for m in client.received if m[0] == "HANDSHAKE_ACKNOWLEDGE") for client in (a, back)]
    assert numbers[0] == numbers[1] != 0


def test_a_whole_game_is_played_with_the_rate_limit_holding_input_back(logged):
    """Frames a rate-limited connection holds back (``FramedProtocol``'s held bytes) are
    read later, and the front end's own waiting frames are another thing: a soak's PIMP
    clients, faster than the limit, each got an AttributeError when the two shared a name."""
    from twisted.logger import LogLevel
    hall, factory = setup(rate=4, burst=1)
    clients = [WireClient(n, piece=i + 1) for i, n in enumerate(["kerz", "pavlov"])]
    conns = [Conn(factory, c, 4000 + i) for i, c in enumerate(clients)]
    run(hall, conns[:1])
    table = rooms_of(hall).current()
    table.engine.game.options["max_turns"] = 40
    g = table.engine.game
    run(hall, conns, until=g.is_over, idle_seconds=60)
    run(hall, conns)
    assert g.is_over() and all(c.winner == g.winner for c in clients)
    assert not [e for e in logged if e.get("log_level") in (LogLevel.error, LogLevel.critical)]
    assert all(c.proto._pacer is not None for c in conns)     # input went through the limit
