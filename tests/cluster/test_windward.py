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


def five_on_a_and_flo_on_b(c):
    """Five contestants join through A, which opens and runs the series; Flo, the sixth,
    through B.  The sides, the series, Flo and all six clients."""
    a, b = Side(c, "a"), Side(c, "b")
    first = [a.join(n) for n in ("Ann", "Bob", "Cy", "Di", "Ed")]
    c.run(0.5)
    match = next(iter(a.service.matches.values()))
    flo = b.join("Flo")
    return a, b, match, flo, first + [flo]


def test_a_contestant_of_b_dropped_mid_series_comes_back_through_a():
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0)
    a, b, match, flo, clients = five_on_a_and_flo_on_b(c)
    first = clients[:-1]                         # the five through A
    run(c, clients, until=lambda: match.state == "playing" and len(flo.received) > 3)
    flo.drop()
    c.run(0.5)
    contestant = a.service.contestants["flo"]
    assert not contestant.connected              # its seat stays; queries get the default
    back = a.join("Flo")
    run(c, first + [back], until=lambda: any(m.tag == "setup" for m in back.received))
    assert contestant.connected and contestant.protocol is back.protocol
    run(c, first + [back], until=lambda: match.state == "finished")


def series(side: Side) -> list:
    return list(side.service.matches.values())


def test_first_joins_at_two_processes_at_once_make_one_series():
    """No series anywhere; three contestants join at A and three at B in the same turn: one
    process claims the opening on the bus and opens the series, the other waits until it is
    listed and sends its joins there: one series of six, which starts and plays."""
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0)
    a, b = Side(c, "a"), Side(c, "b")
    clients = []
    for n in range(3):                          # interleaved, all before the clock turns
        clients += [a.join(f"A{n}"), b.join(f"B{n}")]
    every = lambda: series(a) + series(b)      # noqa: E731
    run(c, clients, until=lambda: len(every()) == 1 and every()[0].state != "joining")
    (match,) = every()
    assert match.joined_names() == {"A0", "A1", "A2", "B0", "B1", "B2"}
    assert sorted(s.user.nickname for s in match.table.seats) == ["A0", "A1", "A2", "B0", "B1", "B2"]

    def set_up() -> bool:
        for client in clients:
            client.messages()
        return all(any(m.tag == "setup" for m in client.received) for client in clients)
    run(c, clients, until=set_up)                 # each is sent the game's setup where it connected
    assert len(every()) == 1


def test_two_first_joins_at_once_with_the_bus_down_each_open_a_series_and_are_not_locked_out(logged):
    from twisted.logger import formatEvent
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0)
    a, b = Side(c, "a"), Side(c, "b")
    for hall in c.halls.values():
        hall.cluster.node.bus.stop()
    a.join("Ann"), b.join("Bob")
    c.run(0.5)
    assert [m.joined_names() for m in series(a) + series(b)] == [{"Ann"}, {"Bob"}]
    said = [formatEvent(e) for e in logged]
    assert sum("who opens the hall's windward table" in line for line in said) == 2


def test_first_joins_at_two_processes_while_a_full_series_plays_make_one_new_series():
    """A's series is full and playing (B lists it, but it takes no new contestant): a join at
    B, which A turns down, and one at A a moment later (before anything B opens can be listed
    at A) open one new series between them, not one each."""
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0)
    a, b = Side(c, "a"), Side(c, "b")
    first = [a.join(n) for n in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo")]
    (playing,) = series(a)
    run(c, first, until=lambda: playing.state == "playing" and b.service.relay.owners() == ["a"]
        and all(t.state == "playing" for t in c.halls["b"].tables.values()))
    hal = b.join("Hal")
    c.settle()                                   # A has said no to Hal: no series waits there
    gus = a.join("Gus")                          # before B's new series can be listed at A
    clients = first + [gus, hal]
    run(c, clients, until=lambda: [m.joined_names() for m in series(a) + series(b) if m is not playing]
        == [{"Gus", "Hal"}])
    c.run(1.0)
    assert [m.joined_names() for m in series(a) + series(b) if m is not playing] == [{"Gus", "Hal"}]


def test_a_join_waiting_for_a_process_that_died_holding_the_opening_claim_opens_the_series():
    from gamehall.cluster.firstjoin import OPEN_CLAIM_TTL
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0)
    Side(c, "a")                                  # A has its Windward front end too
    b = Side(c, "b")
    won = c.halls["a"].cluster.node.bus.claim("open.windward", "a", OPEN_CLAIM_TTL)
    c.settle()
    assert won.result is True
    c.kill("a")                                   # A dies before its series is listed
    zed = b.join("Zed")
    c.run(1.0)
    assert not series(b)                          # waiting for A's series
    run(c, [zed], until=lambda: series(b))
    assert series(b)[0].joined_names() == {"Zed"}
    assert c.clock.seconds() <= OPEN_CLAIM_TTL + 1

def test_when_the_process_running_a_series_dies_another_takes_it_over_and_its_contestants_come_back():
    """A runs the series (Flo's connection to B is relayed to it); A dies mid-series.  B takes
    the table over and rebuilds the series from it as after a restart; Flo's relayed
    connection is closed, and every contestant joining again through B gets the seat back;
    the series ends there."""
    c = Cluster({"windward": WindwardAcquireGame()}, bot_delay=0.0, seat_hold=10_000)
    _, b, match, flo, clients = five_on_a_and_flo_on_b(c)
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
