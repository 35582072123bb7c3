"""The hall-wide lobby over a real redis-server: two Halls in one test process, each on its own
RedisBus (its own connections, as two processes would have), NetAcquire users over
StringTransport.  The halls' time is a task.Clock; the bus's sockets run on the real reactor."""
from __future__ import annotations

from twisted.internet import reactor
from twisted.internet.task import Clock

from gamehall.admin.commands import Console
from gamehall.bus.redisbus import RedisBus
from gamehall.store import MemoryStore
from tests.redisserver import redis_server, spin  # noqa: F401 (fixture)
from tests.test_cluster_presence import HEARTBEAT, Process, lobby_chat


def wait(done, what: str) -> None:
    assert spin(reactor, done), f"never happened: {what}"


def started(url: str) -> RedisBus:
    bus = RedisBus(url, reactor)
    box = []
    bus.start().addBoth(box.append)
    wait(lambda: box, "the bus started")
    assert box == [None], box
    return bus


def test_two_processes_on_redis_share_users_names_chat_and_the_console(redis_server):
    redis_server.call("FLUSHALL")
    clock = Clock()
    store = MemoryStore()
    store.open()
    a = Process("A", clock, None, store, bus=started(redis_server.url))
    b = Process("B", clock, None, store, bus=started(redis_server.url))
    try:
        wait(lambda: "A" in b.cluster.node.peers, "B sees A")
        clock.advance(HEARTBEAT)                       # A's next heartbeat: it sees B
        wait(lambda: "B" in a.cluster.node.peers, "A sees B")

        ann = a.netacquire("Ann")
        wait(lambda: b.hall.lobby.find("Ann") is not None, "Ann listed on B")
        assert b.hall.lobby.find("Ann").process == "A"
        dup = b.netacquire("ANN")
        assert dup.logic.boxes[0].startswith("E;Duplicate user Nickname;") and dup.closed

        # one name on both at once: the claims on Redis keep one
        zed_a, zed_b = a.netacquire("Zed"), b.netacquire("zed")
        clock.advance(0)

        def one_undone() -> bool:
            clock.advance(0)            # (the undo is on the hall's clock's next turn)
            return zed_a.closed or zed_b.closed
        wait(one_undone, "one Zed undone")
        clock.advance(0)
        assert zed_a.closed != zed_b.closed
        loser = zed_a if zed_a.closed else zed_b
        loser.pump()
        assert "Duplicate user Nickname" in loser.logic.boxes[-1]

        bob = b.netacquire("Bob")
        wait(lambda: a.hall.lobby.find("Bob") is not None, "Bob listed on A")
        ann.send('BM;Lobby,"hello from A"')
        wait(lambda: "Ann: hello from A" in lobby_chat(bob), "chat reaches B")

        results = []
        Console(b.hall).execute("kick Ann").addCallback(results.append)
        wait(lambda: results, "kick answered")
        assert results == ["Kicked Ann (netacquire) on process A."]
        ann.pump()
        assert ann.closed and ann.logic.boxes[-1] == "E;Disconnected;Kicked by the operator"
        wait(lambda: b.hall.lobby.find("Ann") is None, "Ann gone from B")
    finally:
        for p in (a, b):
            box = []
            p.cluster.stop().addBoth(lambda _: p.bus.stop()).addBoth(box.append)
            wait(lambda: box, "stopped")
