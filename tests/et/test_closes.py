"""Connections closing cost the others one write per notice window, not one line per close, and a
stopping front end tells nobody (1,000 closes took 2.8 s of CPU, and a SIGTERM after them 11.5 s)."""
from __future__ import annotations

from gamehall_et.wire.protocol import build_factory
from tests.helpers import RecordingSink

from .harness import Conn, et_hall


def counted(conns):
    """Count the writes each connection's transport takes from now on."""
    counts = {}
    for conn in conns:
        write = conn.proto.transport.write

        def tally(data, conn=conn, write=write):
            counts[conn] = counts.get(conn, 0) + 1
            write(data)
        conn.proto.transport.write = tally
    return counts


def crowd(n):
    hall = et_hall()
    factory = build_factory(hall)
    factory.doStart()
    conns = [Conn(factory, host=f"10.0.{i // 256}.{i % 256}") for i in range(n)]
    hall.clock.advance(3 * factory.window)
    for c in conns:
        c.lines()
    return hall, factory, conns


def test_a_crowd_closing_costs_each_other_connection_one_or_two_writes():
    hall, factory, conns = crowd(400)
    leaving, staying = conns[:200], conns[200:]
    writes = counted(staying)
    for c in leaving:
        c.drop()
    hall.clock.advance(factory.window)
    # every staying connection is told of every close...
    for c in staying:
        assert sorted(c.lines()) == sorted(f"outconn {gone.id}" for gone in leaving)
    # ...in one write, or two (the first at once when the front end was quiet), not 200
    assert set(writes) == set(staying) and max(writes.values()) <= 2
    assert hall.stats.messages_out["et"] >= 200 * 200      # (lines are still counted as lines)


def test_a_connection_that_comes_and_goes_within_the_window_is_not_announced():
    hall, factory, conns = crowd(50)
    writes = counted(conns)
    hall.clock.advance(3 * factory.window)
    first = Conn(factory, host="10.9.0.1")          # told at once: the front end was quiet
    churn = [Conn(factory, host=f"10.9.1.{i}") for i in range(100)]
    for c in churn:
        c.send("name passer")
        c.drop()
    first.drop()
    hall.clock.advance(3 * factory.window)
    for c in conns:
        assert c.lines() == [f"newconn {first.id}", f"outconn {first.id}"]
    assert max(writes.values()) == 2


def test_a_stopping_front_end_tells_nobody_of_the_connections_it_drops():
    hall, factory, conns = crowd(300)
    writes = counted(conns)
    factory.doStop()                      # the port stops listening (stopService)
    for c in conns:                       # then the reactor drops every connection
        c.drop()
    hall.clock.advance(3 * factory.window)
    assert writes == {} and not hall.lobby.users


def test_every_et_connection_hears_of_another_front_end_user_leaving():
    """The id of another front end's user was forgotten as the first et connection was told
    it left: the others never got its outconn."""
    hall, factory, conns = crowd(5)
    web = hall.login("Wendy", "web", RecordingSink())
    hall.clock.advance(3 * factory.window)
    joined = [c.lines() for c in conns]
    uid = int(joined[0][0].split()[1])
    assert all(lines == [f"newconn {uid}", f"name {uid} Wendy"] for lines in joined)
    hall.logout(web)
    hall.clock.advance(3 * factory.window)
    assert all(c.lines() == [f"outconn {uid}"] for c in conns)
