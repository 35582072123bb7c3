"""Monopoly across processes: PIMP clients connected to two processes of one hall join the
hall's one current table and play one game (issue 22), over the PIMP wire (StringTransport)."""
from __future__ import annotations

from gamehall.cluster.replica import ReplicaTable
from gamehall_pimp.game import PimpGame
from gamehall_pimp.wire.protocol import build_factory, monopoly_command, rooms_of
from tests.cluster.harness import Cluster
from tests.pimp.test_frontend import Conn
from tests.pimp.wireclient import WireClient, frame, u32


def pimp_cluster(**kw):
    return Cluster({"pimp": PimpGame()}, **kw)


def run(c, conns, seconds=10.0, until=None, rounds=200_000):
    """Pump bytes both ways; when nobody talks let the clock run (the bus, bots, holds)."""
    idle = 0.0
    for _ in range(rounds):
        if until is not None and until():
            return
        busy = False
        for conn in conns:
            busy = conn.pump() or busy
        c.settle(3)
        if busy:
            idle = 0.0
            continue
        c.clock.advance(0.1)
        idle += 0.1
        if idle > seconds:
            return
    raise AssertionError("did not settle")


def owned(hall):
    return [t for t in hall.tables.values() if t.game.name == "pimp" and not t.remote]


def test_pimp_clients_on_two_processes_play_one_game():
    c = pimp_cluster()
    a, b = c.halls["a"], c.halls["b"]
    fa, fb = build_factory(a), build_factory(b)
    kerz, pavlov, ann = WireClient("kerz", piece=1), WireClient("pavlov", piece=2), WireClient("ann", piece=3)
    ca = Conn(fa, kerz, 4001)
    run(c, [ca], seconds=1)                      # A opens the current table; B hears of it
    table = rooms_of(a).current()
    replica = b.tables[table.id]
    assert isinstance(replica, ReplicaTable) and rooms_of(b).current() is replica
    cb, cc = Conn(fb, pavlov, 4002), Conn(fb, ann, 4003)
    conns = [ca, cb, cc]
    run(c, conns, seconds=1, until=lambda: len(replica.seats) == 3 and all(s.user for s in replica.seats))
    for conn in conns:                            # (what was sent by then, read)
        conn.pump()
    assert (kerz.me, {pavlov.me, ann.me}) == (1, {2, 3})
    assert owned(b) == []                         # one table for the hall
    # B's players are seated at A's table, and shown on B's replica
    assert [s.user.nickname for s in table.seats] == ["kerz", "pavlov", "ann"]
    assert [s.user.nickname for s in replica.seats] == ["kerz", "pavlov", "ann"]
    assert [s.user.process for s in table.seats] == [None, "b", "b"]
    for engine in (table.engine, replica.engine):  # (a shorter game; both engines, which must agree)
        engine.game.options["max_turns"] = 150
    assert pavlov.password and table.engine.game.check_password(pavlov.me, pavlov.password)
    g = table.engine.game
    run(c, conns, until=g.is_over)
    run(c, conns, seconds=3)
    assert g.is_over() and g.winner and all(cl.winner == g.winner for cl in (kerz, pavlov, ann))
    # every client heard the same game: the same cash for everyone
    for cl in (kerz, pavlov, ann):
        assert cl.cash == {pid: u.cash for pid, u in g.users.items() if pid in cl.cash}
    assert b.stats.actions == 0                   # every move was A's
    assert {u.nickname for u in b.who()} >= {"kerz", "pavlov", "ann"}


def kerz_on_a_pavlov_on_b():
    """kerz's table made on A, pavlov joined through B; the game waits at pavlov's first turn."""
    c = pimp_cluster(seat_hold=10_000)
    a, b = c.halls["a"], c.halls["b"]
    fa, fb = build_factory(a), build_factory(b)
    kerz, pavlov = WireClient("kerz"), WireClient("pavlov")
    pavlov.on_START_OF_TURN = lambda *args: None
    ca = Conn(fa, kerz, 4001)
    run(c, [ca], seconds=1)
    cb = Conn(fb, pavlov, 4002)
    run(c, [ca, cb], seconds=2)
    return c, a, b, fa, fb, kerz, pavlov, ca, cb


def test_a_pimp_client_on_b_rejoins_with_its_password_and_the_current_table_is_one():
    c, a, b, fa, fb, kerz, pavlov, ca, cb = kerz_on_a_pavlov_on_b()
    table = rooms_of(a).current()
    assert pavlov.me == 2 and owned(b) == []
    # the operator of B opens a new current table: A's next client joins it, on B
    out = monopoly_command(b, "new")
    new = rooms_of(b).current()
    c.run(0.5)
    assert rooms_of(a).current().id == new.id != table.id
    ann = WireClient("ann")
    cc = Conn(fa, ann, 4003)
    run(c, [ca, cb, cc], seconds=2)
    assert ann.me == 1 and new.seats[0].name == "ann" and "open and current" in out
    # pavlov drops; a new connection to A rejoins seat 2 of A's first table with the password
    cb.proto.connectionLost(None)
    run(c, [ca, cc], seconds=1)
    assert table.seats[1].user is None
    again = WireClient("x")
    again.outbox = [frame("HANDSHAKE", b"\x01"), frame("REJOIN", bytes([2]) + u32(pavlov.password ^ 7))]
    again.me = -1
    again.on_START_OF_TURN = lambda *args: None
    cd = Conn(fa, again, 4004)
    run(c, [ca, cc, cd], seconds=1)
    assert "ERROR_WRONG_PASSWORD" in again.names()
    again.send("REJOIN", bytes([2]) + u32(pavlov.password))
    run(c, [ca, cc, cd], seconds=1)
    assert ("WELCOME_BACK", 2, table.engine.game.users[2].piece, "pavlov", True) in again.received
    assert table.seats[1].user is not None and table.seats[1].user.nickname == "pavlov"
    again.send("THROW_DICE")
    run(c, [ca, cc, cd], seconds=1)
    assert "DICE_ROLLED" in again.names() and "DICE_ROLLED" in kerz.names()


def test_pimp_connections_of_b_rejoin_when_b_takes_over_a_dead_processes_table():
    c, a, b, fa, fb, kerz, pavlov, ca, cb = kerz_on_a_pavlov_on_b()
    table_id = rooms_of(a).current().id
    assert pavlov.me == 2
    c.kill("a")
    c.run(30)                                     # B sees A gone and takes its table over
    table = b.tables[table_id]
    assert not table.remote and table.state == "playing"
    assert cb.transport.disconnecting             # its connection showed A's replica: closed
    cb.proto.connectionLost(None)
    again = WireClient("x")
    again.outbox = [frame("HANDSHAKE", b"\x01"), frame("REJOIN", bytes([2]) + u32(pavlov.password))]
    again.me = -1
    again.on_START_OF_TURN = lambda *args: None
    cd = Conn(fb, again, 4004)
    run(c, [cd], seconds=1)
    assert ("WELCOME_BACK", 2, table.engine.game.users[2].piece, "pavlov", True) in again.received
    again.send("THROW_DICE")
    run(c, [cd], seconds=1)
    assert "DICE_ROLLED" in again.names()


def live(hall):
    return [t for t in hall.tables.values() if t.game.name == "pimp" and t.state == "playing"]


def test_first_connections_at_two_processes_at_once_open_one_table_for_the_hall():
    """No live table anywhere; the first PIMP connections reach A and B in the same turn:
    one process opens the table (the one that claims it on the bus), the other waits until
    it is listed and sends its connection there: one game, both players at it."""
    c = pimp_cluster()
    a, b = c.halls["a"], c.halls["b"]
    kerz, pavlov = WireClient("kerz", piece=1), WireClient("pavlov", piece=2)
    for client in (kerz, pavlov):                 # (the game waits at the first turn)
        client.on_START_OF_TURN = lambda *args: None
    ca, cb = Conn(build_factory(a), kerz, 4001), Conn(build_factory(b), pavlov, 4002)
    ca.pump(), cb.pump()                          # both handshakes in the same turn
    conns = [ca, cb]
    run(c, conns, seconds=2, until=lambda: kerz.me and pavlov.me)
    assert len(owned(a)) + len(owned(b)) == 1     # one table for the hall
    table = (owned(a) + owned(b))[0]
    assert [t.id for t in live(a)] == [t.id for t in live(b)] == [table.id]
    acks = [m for m in kerz.received + pavlov.received if m[0] == "HANDSHAKE_ACKNOWLEDGE"]
    assert len(acks) == 2 and acks[0] == acks[1]  # the same game number for both
    assert {kerz.me, pavlov.me} == {1, 2}
    run(c, conns, seconds=1, until=lambda: len(table.seats) == 2 and all(s.user for s in table.seats))
    assert sorted(s.user.nickname for s in table.seats) == ["kerz", "pavlov"]
    assert rooms_of(a).current().id == rooms_of(b).current().id == table.id


def test_a_first_connection_waiting_for_a_process_that_died_holding_the_claim_opens_the_table():
    """The process that claimed the opening died before its table was listed: the claim
    lapses (never renewed) and the waiting process opens the table itself."""
    from gamehall.cluster.firstjoin import OPEN_CLAIM_TTL
    c = pimp_cluster()
    a, b = c.halls["a"], c.halls["b"]
    won = a.cluster.node.bus.claim("open.pimp", "a", OPEN_CLAIM_TTL)   # A claims, then dies
    c.settle()
    assert won.result is True
    c.kill("a")
    pavlov = WireClient("pavlov")
    cb = Conn(build_factory(b), pavlov, 4002)
    run(c, [cb], seconds=1)
    assert not pavlov.me and not live(b)          # waiting for A's table
    run(c, [cb], seconds=OPEN_CLAIM_TTL + 1, until=lambda: pavlov.me)
    assert pavlov.me == 1 and len(owned(b)) == 1


def test_with_the_bus_down_a_first_connection_opens_the_table_at_once_and_says_so(logged):
    from twisted.logger import formatEvent
    c = pimp_cluster()
    b = c.halls["b"]
    b.cluster.node.bus.stop()                     # the bus out of reach from B
    pavlov = WireClient("pavlov")
    cb = Conn(build_factory(b), pavlov, 4002)
    run(c, [cb], seconds=1, until=lambda: pavlov.me)
    assert pavlov.me == 1 and len(owned(b)) == 1
    assert any("could not be asked who opens the hall's pimp table" in formatEvent(e)
               and "another process may open one too" in formatEvent(e) for e in logged)

def test_pimp_connections_of_a_third_process_play_on_when_another_takes_a_dead_owners_table_over():
    """A runs the table, pavlov plays through B and ann through C; A dies and one of B and C
    takes the table over.  The connection of the other one (the third process) stays open
    and plays on: its process follows the new owner."""
    c = pimp_cluster(names=("a", "b", "c"), seat_hold=10_000)
    a, b, cc_hall = c.halls["a"], c.halls["b"], c.halls["c"]
    kerz, pavlov, ann = WireClient("kerz"), WireClient("pavlov"), WireClient("ann")
    pavlov.on_START_OF_TURN = lambda *args: None   # the game waits at pavlov's first turn
    ca = Conn(build_factory(a), kerz, 4001)
    run(c, [ca], seconds=1)
    cb = Conn(build_factory(b), pavlov, 4002)
    cc = Conn(build_factory(cc_hall), ann, 4003)
    run(c, [ca, cb, cc], seconds=2)
    table_id = rooms_of(a).current().id
    assert (kerz.me, pavlov.me, ann.me) == (1, 2, 3)
    c.kill("a")
    c.run(30)                                     # B or C sees A gone and takes its table over
    taker, third = (b, cc_hall) if not b.tables[table_id].remote else (cc_hall, b)
    table = taker.tables[table_id]
    assert not table.remote and table.state == "playing" and third.tables[table_id].remote
    assert third.tables[table_id].owner == taker.cluster.node.process_id
    (taken_conn, taken_client), (third_conn, third_client) = (
        ((cb, pavlov), (cc, ann)) if taker is b else ((cc, ann), (cb, pavlov)))
    assert taken_conn.transport.disconnecting      # PIMP has no word for a move: closed, to REJOIN
    assert not third_conn.transport.disconnecting  # the third process's connection plays on
    taken_conn.proto.connectionLost(None)
    again = WireClient("x")
    again.outbox = [frame("HANDSHAKE", b"\x01"),
                    frame("REJOIN", bytes([taken_client.me]) + u32(taken_client.password))]
    again.me = -1
    again.on_START_OF_TURN = lambda *args: None
    cd = Conn(build_factory(taker), again, 4004)
    run(c, [cd, third_conn], seconds=1)
    assert any(m[0] == "WELCOME_BACK" for m in again.received)
    # pavlov's turn (through the taker after a REJOIN, or through the third process all along)
    heard_before = third_client.names().count("DICE_ROLLED")
    (again if taker is b else pavlov).send("THROW_DICE")
    run(c, [cd, third_conn], seconds=2)
    assert "DICE_ROLLED" in again.names()
    assert third_client.names().count("DICE_ROLLED") > heard_before   # the third hears the new owner
    assert table.seq > 0 and third.tables[table_id].seq == table.seq
