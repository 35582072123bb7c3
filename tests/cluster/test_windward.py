"""Windward across processes: contestants connected to two processes of one hall join the
hall's one waiting series and play it (issue 22), over the Windward wire (StringTransport)."""
from __future__ import annotations

from gamehall.table import FINISHED
from gamehall_acquire.windward.game import WindwardAcquireGame
from gamehall_acquire.windward.wire.codec import encode_join
from gamehall_acquire.windward.wire.protocol import build_factory
from gamehall_acquire.windward.wire.service import Settings
from tests.cluster.harness import Cluster
from tests.windward.test_wire_protocol import Client


class Side:
    """What tests.windward's Client needs of its harness: a factory and the clock."""

    def __init__(self, cluster: Cluster, name: str) -> None:
        self.clock = cluster.clock
        self.factory = build_factory(cluster.halls[name], Settings(seed=42, bot_delay=0.0))
        self.service = self.factory.service
        self.ports = iter(range(41000 + 1000 * ord(name[0]), 42000 + 1000 * ord(name[0])))

    def join(self, name: str) -> Client:
        c = Client(self, next(self.ports))
        c.name = name
        c.send(encode_join(name))
        return c


def run(c: Cluster, clients, until, limit=40000):
    for _ in range(limit):
        if until():
            return
        for client in clients:
            client.pump()
        c.clock.advance(0.01)
        c.settle(3)
    raise AssertionError("did not happen")


def test_contestants_on_two_processes_play_one_series():
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0)
    a, b = Side(c, "a"), Side(c, "b")
    first = [a.join(n) for n in ("Ann", "Bob", "Cy")]
    c.run(0.5)                                    # the waiting series is known hall-wide
    assert len(a.service.matches) == 1
    match = next(iter(a.service.matches.values()))
    assert b.service.relay.owners() == ["a"]
    later = [b.join(n) for n in ("Di", "Ed", "Flo")]
    clients = first + later
    run(c, clients, until=lambda: match.state != "joining")
    assert not b.service.matches                  # one series for the hall, on A
    assert match.joined_names() == {"Ann", "Bob", "Cy", "Di", "Ed", "Flo"}
    table = match.table
    assert [s.user.nickname for s in table.seats] == ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]
    run(c, clients, until=lambda: match.state == "finished")
    assert table.state == FINISHED
    c.run(0.5)
    for client in clients:
        client.messages()
    for client in clients:                        # each played through its own process
        tags = [m.tag for m in client.received]
        assert "setup" in tags and "exit" in tags, (client.name, tags[:5])
        assert any(t in ("query-card", "query-tile", "query-card-play", "query-purchase") or t.startswith("query")
                   for t in tags)
    assert all(cl.closed for cl in clients)
    assert c.halls["b"].stats.actions == 0


def test_a_join_nobody_waits_for_opens_a_series_there_and_the_other_process_sends_joins_to_it():
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0)
    a, b = Side(c, "a"), Side(c, "b")
    solo = b.join("Zed")                         # no series anywhere: B opens one
    c.run(0.5)
    assert len(b.service.matches) == 1 and not a.service.matches
    other = a.join("Yan")                        # A sends it to B's waiting series
    run(c, [solo, other], until=lambda: len(next(iter(b.service.matches.values())).joined_names()) == 2)
    assert not a.service.matches
    other.drop()                                 # before joins close: it leaves the waiting table
    run(c, [solo], until=lambda: next(iter(b.service.matches.values())).joined_names() == {"Zed"})


def test_a_contestant_of_b_dropped_mid_series_comes_back_through_a():
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0)
    a, b = Side(c, "a"), Side(c, "b")
    first = [a.join(n) for n in ("Ann", "Bob", "Cy", "Di", "Ed")]
    c.run(0.5)
    match = next(iter(a.service.matches.values()))
    flo = b.join("Flo")
    clients = first + [flo]
    run(c, clients, until=lambda: match.state == "playing" and len(flo.received) > 3)
    flo.drop()
    c.run(0.5)
    contestant = a.service.contestants["flo"]
    assert not contestant.connected              # its seat stays; queries get the default
    back = a.join("Flo")
    run(c, first + [back], until=lambda: any(m.tag == "setup" for m in back.received))
    assert contestant.connected and contestant.protocol is back.protocol
    run(c, first + [back], until=lambda: match.state == "finished")


def test_when_the_process_running_a_series_dies_another_takes_it_over_and_its_contestants_come_back():
    """A runs the series (Flo's connection to B is relayed to it); A dies mid-series.  B takes
    the table over and rebuilds the series from it as after a restart; Flo's relayed
    connection is closed, and every contestant joining again through B gets the seat back;
    the series ends there."""
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0, seat_hold=10_000)
    a, b = Side(c, "a"), Side(c, "b")
    first = [a.join(n) for n in ("Ann", "Bob", "Cy", "Di", "Ed")]
    c.run(0.5)
    match = next(iter(a.service.matches.values()))
    flo = b.join("Flo")
    clients = first + [flo]
    run(c, clients, until=lambda: match.state == "playing" and match.table.seq > 10)
    table_id = match.table.id
    c.kill("a")
    run(c, [flo], until=lambda: table_id in c.halls["b"].tables and not c.halls["b"].tables[table_id].remote)
    c.run(0.5)
    flo.pump()
    assert flo.closed                             # relayed to a process that is gone
    (resumed,) = b.service.matches.values()
    table = c.halls["b"].tables[table_id]
    assert b.service.tables[table_id] is resumed and resumed.names == match.names
    assert sorted(s.name for s in table.seats if s.kind == "human") == ["Ann", "Bob", "Cy", "Di", "Ed", "Flo"]
    back = [b.join(n) for n in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")]
    run(c, back, until=lambda: all(any(m.tag == "setup" for m in cl.received) for cl in back))
    assert all(s.user is not None for s in table.seats if s.kind == "human")
    run(c, back, until=lambda: resumed.state == "finished")
    assert table.state == FINISHED and c.halls["b"].stats.actions > 0
    for client in back:
        client.messages()
        assert client.received[-1].tag == "exit", (client.name, [m.tag for m in client.received][-3:])
