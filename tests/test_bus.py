"""The bus contract, run against LocalBus (in memory, task.Clock) and RedisBus (a real
throwaway redis-server); then what is RedisBus's own: Redis going away and coming back."""
from __future__ import annotations

import pytest
from twisted.application.internet import backoffPolicy
from twisted.internet import reactor, task
from twisted.logger import globalLogPublisher
from twisted.python.failure import Failure
from zope.interface.verify import verifyObject

from gamehall.bus import BusUnavailable, IBus, parse_bus_url
from gamehall.bus.localbus import LocalBus, LocalHub
from gamehall.bus.redisbus import RedisBus
from tests.redisserver import fresh_redis_server, redis_server, spin  # noqa: F401 (fixtures)


def _outcome(d):
    box = []
    d.addBoth(box.append)
    return box


def _unwrap(box):
    value = box[0]
    if isinstance(value, Failure):
        value.raiseException()
    return value


class LocalHarness:
    """Several "processes" of one hall in memory; time on a task.Clock."""

    def __init__(self):
        self.clock = task.Clock()
        self.hub = LocalHub(self.clock)
        self.buses = []

    def bus(self):
        b = LocalBus(self.clock, self.hub)
        self.result(b.start())
        self.buses.append(b)
        return b

    def result(self, d):
        box = _outcome(d)
        self.clock.advance(0)
        assert box, "the Deferred never fired"
        return _unwrap(box)

    def until(self, done):
        for _ in range(100):
            if done():
                return
            self.clock.advance(0)
        raise AssertionError("never happened")

    def advance(self, seconds):
        self.clock.advance(seconds)

    def close(self):
        for b in self.buses:
            b.stop()


class RedisHarness:
    """Several processes' buses on one real redis-server, on the real reactor."""

    def __init__(self, server):
        self.server = server
        server.call("FLUSHALL")
        self.buses = []

    def bus(self):
        b = RedisBus(self.server.url, reactor)
        self.result(b.start())
        self.buses.append(b)
        return b

    def result(self, d):
        box = _outcome(d)
        assert spin(reactor, lambda: box), "the Deferred never fired"
        return _unwrap(box)

    def until(self, done):
        assert spin(reactor, done), "never happened"

    def advance(self, seconds):
        self.server.advance(seconds)

    def close(self):
        for b in self.buses:
            self.result(b.stop())


@pytest.fixture(params=["local", "redis"])
def hall(request):
    if request.param == "local":
        h = LocalHarness()
    else:
        h = RedisHarness(request.getfixturevalue("redis_server"))
    yield h
    h.close()


class Inbox:
    def __init__(self):
        self.got = []

    def __call__(self, channel, message):
        self.got.append((channel, message))


# -- the contract --

def test_both_provide_the_interface(hall):
    assert verifyObject(IBus, hall.bus())


def test_messages_from_one_publisher_arrive_in_order_at_every_subscriber(hall):
    a, b = hall.bus(), hall.bus()
    at_a, at_b = Inbox(), Inbox()
    hall.result(a.subscribe("lobby", at_a))
    hall.result(b.subscribe("lobby", at_b))
    counts = [hall.result(a.publish("lobby", {"n": n, "text": "héllo"})) for n in range(50)]
    assert counts == [2] * 50  # both processes' subscriptions, its own included
    hall.until(lambda: len(at_a.got) == 50 and len(at_b.got) == 50)
    expected = [("lobby", {"n": n, "text": "héllo"}) for n in range(50)]
    assert at_a.got == expected and at_b.got == expected


def test_channels_are_apart_and_patterns_match_many(hall):
    a, b = hall.bus(), hall.bus()
    lobby, tables, marker = Inbox(), Inbox(), Inbox()
    hall.result(b.subscribe("lobby", lobby))
    hall.result(b.psubscribe("table:*", tables))
    hall.result(b.subscribe("marker", marker))
    hall.result(a.publish("table:7", {"move": 1}))
    hall.result(a.publish("table:12", {"move": 2}))
    hall.result(a.publish("tables", {"no": "match"}))
    hall.result(a.publish("marker", {}))
    hall.until(lambda: marker.got)
    assert lobby.got == []
    assert tables.got == [("table:7", {"move": 1}), ("table:12", {"move": 2})]


def test_unsubscribe_stops_delivery_to_that_callback_only(hall):
    a = hall.bus()
    one, two, marker = Inbox(), Inbox(), Inbox()
    hall.result(a.subscribe("chat", one))
    hall.result(a.subscribe("chat", two))
    hall.result(a.subscribe("marker", marker))
    hall.result(a.unsubscribe("chat", one))
    assert hall.result(a.publish("chat", {"x": 1})) == 1
    hall.result(a.publish("marker", {}))
    hall.until(lambda: marker.got)
    assert one.got == [] and two.got == [("chat", {"x": 1})]
    hall.result(a.unsubscribe("chat", two))
    assert hall.result(a.publish("chat", {"x": 2})) == 0


def test_a_message_must_be_a_json_dict(hall):
    a = hall.bus()
    with pytest.raises(TypeError):
        hall.result(a.publish("lobby", ["not", "a", "dict"]))
    with pytest.raises(TypeError):
        hall.result(a.publish("lobby", {"x": object()}))


def test_two_owners_race_for_a_key_and_one_wins(hall):
    a, b = hall.bus(), hall.bus()
    first, second = a.claim("nick:alice", "proc-a", 30), b.claim("nick:alice", "proc-b", 30)
    won = [hall.result(first), hall.result(second)]
    assert sorted(won) == [False, True]
    winner = "proc-a" if won[0] else "proc-b"
    assert hall.result(a.owner("nick:alice")) == winner
    assert hall.result(b.owner("nick:bob")) is None
    # held by itself is refused too: a claim is not a renewal
    assert hall.result(a.claim("nick:alice", winner, 30)) is False


def test_a_claim_expires_unless_renewed(hall):
    a, b = hall.bus(), hall.bus()
    assert hall.result(a.claim("k1", "a", 5)) is True
    assert hall.result(a.claim("k2", "a", 5)) is True
    hall.advance(3)
    assert hall.result(a.renew(["k1"], "a", 5)) == ["k1"]
    hall.advance(3)  # 6s since the claims: k2 has expired, k1 was renewed at 3s
    assert hall.result(b.claim("k1", "b", 5)) is False
    assert hall.result(b.claim("k2", "b", 5)) is True
    assert hall.result(a.owner("k1")) == "a"
    # renewing reports which keys are no longer ours
    assert hall.result(a.renew(["k1", "k2", "k3"], "a", 5)) == ["k1"]
    assert hall.result(b.owner("k2")) == "b"  # a's renewal did not touch b's claim
    assert hall.result(a.renew([], "a", 5)) == []


def test_release_is_for_the_owner_only(hall):
    a, b = hall.bus(), hall.bus()
    assert hall.result(a.claim("table:3", "a", 30)) is True
    assert hall.result(b.release("table:3", "b")) is False
    assert hall.result(b.owner("table:3")) == "a"
    assert hall.result(a.release("table:3", "a")) is True
    assert hall.result(a.release("table:3", "a")) is False
    assert hall.result(b.claim("table:3", "b", 30)) is True


def test_presence_expires_with_a_dead_process(hall):
    a, b = hall.bus(), hall.bus()
    hall.result(a.process_alive("p1", {"users": 3, "pid": 101}, 5))
    hall.result(b.process_alive("p2", {"users": 0, "pid": 202}, 20))
    assert hall.result(a.processes()) == {"p1": {"users": 3, "pid": 101},
                                          "p2": {"users": 0, "pid": 202}}
    hall.advance(6)  # p1 stopped renewing (killed)
    assert hall.result(b.processes()) == {"p2": {"users": 0, "pid": 202}}
    hall.result(b.process_alive("p2", {"users": 1, "pid": 202}, 20))
    assert hall.result(a.processes()) == {"p2": {"users": 1, "pid": 202}}
    hall.result(b.process_gone("p2"))
    assert hall.result(a.processes()) == {}


def test_the_first_hall_id_sticks(hall):
    a, b = hall.bus(), hall.bus()
    assert hall.result(a.hall_id("hall-1")) == "hall-1"
    assert hall.result(b.hall_id("hall-2")) == "hall-1"
    assert hall.result(a.hall_id("hall-1")) == "hall-1"


def test_a_stopped_bus_refuses_operations(hall):
    a = hall.bus()
    hall.result(a.stop())
    assert a.is_up is False
    for op in (lambda: a.publish("x", {}), lambda: a.claim("k", "a", 1),
               lambda: a.processes(), lambda: a.hall_id("h")):
        with pytest.raises(BusUnavailable):
            hall.result(op())


# -- what is RedisBus's own --

def test_bus_urls():
    a = parse_bus_url("redis://cache.example:6380/3")
    assert (a.host, a.port, a.db, a.password) == ("cache.example", 6380, 3, None)
    a = parse_bus_url("redis://:s%40cret@127.0.0.1")
    assert (a.host, a.port, a.db, a.password) == ("127.0.0.1", 6379, 0, "s@cret")
    assert str(a) == "redis://127.0.0.1:6379/0"  # no password in what gets logged
    for bad in ("http://h:1/0", "redis://h:1/x", "redis:///0", "redis://h:99999/0",
                "redis://h:1/0?ssl=1"):
        with pytest.raises(ValueError, match="--bus"):
            parse_bus_url(bad)


def test_channels_of_different_databases_do_not_mix(redis_server):
    h = RedisHarness(redis_server)
    a = h.bus()
    other = RedisBus(redis_server.url[:-1] + "1", reactor)
    h.result(other.start())
    h.buses.append(other)
    mine, theirs = Inbox(), Inbox()
    h.result(a.subscribe("lobby", mine))
    h.result(other.subscribe("lobby", theirs))
    h.result(other.publish("lobby", {"from": "db1"}))
    h.result(a.publish("lobby", {"from": "db0"}))
    h.until(lambda: mine.got and theirs.got)
    assert mine.got == [("lobby", {"from": "db0"})]
    assert theirs.got == [("lobby", {"from": "db1"})]
    assert h.result(other.hall_id("b")) == "b" and h.result(a.hall_id("a")) == "a"
    h.close()


def test_a_foreign_message_that_is_not_json_is_dropped_with_a_warning(redis_server):
    h = RedisHarness(redis_server)
    a = h.bus()
    inbox = Inbox()
    events = []
    globalLogPublisher.addObserver(events.append)
    try:
        h.result(a.subscribe("lobby", inbox))
        redis_server.call("PUBLISH", "gamehall:0:lobby", "not json")
        redis_server.call("PUBLISH", "gamehall:0:lobby", '{"ok": 1}')
        h.until(lambda: inbox.got)
    finally:
        globalLogPublisher.removeObserver(events.append)
    assert inbox.got == [("lobby", {"ok": 1})]
    assert any("not a JSON object" in e.get("log_format", "") for e in events)
    h.close()


def test_start_without_a_server_fails_clearly_and_stops_trying():
    from tests.wireclient import free_port
    clock = task.Clock()
    bus = RedisBus(f"redis://127.0.0.1:{free_port()}/0", reactor, clock)
    box = _outcome(bus.start())
    assert spin(reactor, lambda: box)
    assert isinstance(box[0], Failure) and box[0].check(BusUnavailable)
    assert "cannot reach the bus at redis://127.0.0.1:" in str(box[0].value)
    assert "refused" in str(box[0].value).lower()
    assert clock.getDelayedCalls() == []  # no retry left scheduled, no start deadline
    assert bus.is_up is False


def test_start_with_a_password_the_server_does_not_take_fails_clearly(redis_server):
    bus = RedisBus(f"redis://:wrong@127.0.0.1:{redis_server.port}/0", reactor)
    box = _outcome(bus.start())
    assert spin(reactor, lambda: box)
    assert box[0].check(BusUnavailable)
    assert "auth" in str(box[0].value).lower()
    assert str(box[0].value).startswith(f"the bus at redis://127.0.0.1:{redis_server.port}/0: ")
    assert "wrong" not in str(box[0].value)


def test_start_with_a_database_the_server_does_not_have_fails_clearly(redis_server):
    bus = RedisBus(f"redis://127.0.0.1:{redis_server.port}/99", reactor)
    box = _outcome(bus.start())
    assert spin(reactor, lambda: box)
    assert box[0].check(BusUnavailable)
    assert "could not set dbid=99: ERR DB index is out of range" in str(box[0].value)


def test_a_server_that_never_answers_fails_start_at_the_deadline():
    """A port that accepts but never replies (a hung server, a wrong service)."""
    from twisted.internet.protocol import Factory, Protocol
    silent = reactor.listenTCP(0, Factory.forProtocol(Protocol), interface="127.0.0.1")
    clock = task.Clock()
    try:
        bus = RedisBus(f"redis://127.0.0.1:{silent.getHost().port}/0", reactor, clock)
        box = _outcome(bus.start())
        assert not spin(reactor, lambda: box, limit=0.3)  # connected, waiting for SELECT
        clock.advance(bus.connect_timeout + bus.command_timeout)
        assert spin(reactor, lambda: box)
        assert box[0].check(BusUnavailable)
        assert "did not answer within 10s" in str(box[0].value)
    finally:
        silent.stopListening()


def test_redis_going_away_and_coming_back(fresh_redis_server):
    """Killed mid-use: on_state(False), operations fail at once with a clear error and no
    traceback is logged; started again: on_state(True) and the subscriptions work again."""
    server = fresh_redis_server
    clock = task.Clock()  # the backoff's clock: retries happen when the test says
    bus = RedisBus(server.url, reactor, clock, retry=backoffPolicy(0.5, 10, 2, jitter=lambda: 0))
    states = []
    bus.on_state = states.append
    h = RedisHarness(server)
    h.result(bus.start())
    inbox = Inbox()
    h.result(bus.subscribe("lobby", inbox))
    h.result(bus.psubscribe("table:*", inbox))
    assert h.result(bus.claim("nick:a", "p1", 60)) is True

    events = []
    globalLogPublisher.addObserver(events.append)
    try:
        server.kill()
        h.until(lambda: states == [False])
        assert bus.is_up is False
        for op in (lambda: bus.publish("lobby", {}), lambda: bus.claim("nick:b", "p1", 60),
                   lambda: bus.renew(["nick:a"], "p1", 60), lambda: bus.processes()):
            with pytest.raises(BusUnavailable, match="lost the connection to the bus at redis://"):
                h.result(op())
        # both connections retry, with a growing delay while it stays down
        delays = []
        for _ in range(3):
            h.until(lambda: len(clock.getDelayedCalls()) == 2)  # last attempts failed
            delays.append(sorted(c.getTime() - clock.seconds() for c in clock.getDelayedCalls()))
            clock.advance(max(delays[-1]))
        assert delays == [[1, 1], [2, 2], [4, 4]]

        h.until(lambda: len(clock.getDelayedCalls()) == 2)
        server.start()  # same port, empty (no persistence)
        clock.advance(max(c.getTime() for c in clock.getDelayedCalls()) - clock.seconds())
        h.until(lambda: states == [False, True])
        assert bus.is_up is True
    finally:
        globalLogPublisher.removeObserver(events.append)
    assert not [e for e in events if "log_failure" in e], "a traceback was logged"
    assert any("reconnecting" in e.get("log_format", "") for e in events)

    other = h.bus()
    h.result(other.publish("lobby", {"back": True}))
    h.result(other.publish("table:9", {"move": 3}))
    h.until(lambda: len(inbox.got) == 2)
    assert inbox.got == [("lobby", {"back": True}), ("table:9", {"move": 3})]
    # the server lost its keys: the hall claims its names again after on_state(True)
    assert h.result(bus.claim("nick:a", "p1", 60)) is True
    h.result(bus.stop())
    assert states == [False, True]  # a stop is not reported as the bus going down
    h.close()


def test_a_command_without_an_answer_fails_and_drops_the_connection(fresh_redis_server):
    server = fresh_redis_server
    clock = task.Clock()
    bus = RedisBus(server.url, reactor, clock, command_timeout=2)
    states = []
    bus.on_state = states.append
    h = RedisHarness(server)
    h.result(bus.start())
    server.process.send_signal(19)  # SIGSTOP: the server hangs, the connection stays open
    try:
        box = _outcome(bus.claim("k", "p", 5))
        assert not spin(reactor, lambda: box, limit=0.2)
        clock.advance(2)
        assert spin(reactor, lambda: box)
        assert box[0].check(BusUnavailable)
        assert "did not answer within 2s" in str(box[0].value)
        h.until(lambda: states == [False])
    finally:
        server.process.send_signal(18)  # SIGCONT
    h.result(bus.stop())


def test_a_subscription_made_while_one_connection_is_down_is_live_once_back(redis_server):
    """Only the command connection drops (the subscriber one stays): a subscribe meanwhile
    must still be sent once the bus is up again, not wait for a subscriber reconnection."""
    clock = task.Clock()
    bus = RedisBus(redis_server.url, reactor, clock)
    states = []
    bus.on_state = states.append
    h = RedisHarness(redis_server)
    h.result(bus.start())
    bus._ready["command"].transport.abortConnection()
    h.until(lambda: states == [False])
    inbox = Inbox()
    subscribed = _outcome(bus.subscribe("late", inbox))
    assert subscribed == []  # waits for the bus
    with pytest.raises(BusUnavailable):
        h.result(bus.publish("late", {}))
    clock.advance(max(c.getTime() for c in clock.getDelayedCalls()) - clock.seconds())
    h.until(lambda: states == [False, True] and subscribed)
    other = h.bus()
    assert h.result(other.publish("late", {"n": 1})) == 1
    h.until(lambda: inbox.got)
    assert inbox.got == [("late", {"n": 1})]
    h.result(bus.stop())
    with pytest.raises(BusUnavailable, match="stopped"):
        h.result(bus.subscribe("after", Inbox()))
    h.close()


def test_an_idle_bus_notices_a_hung_server_by_its_heartbeat(fresh_redis_server):
    server = fresh_redis_server
    clock = task.Clock()
    bus = RedisBus(server.url, reactor, clock, command_timeout=2, heartbeat=5)
    states = []
    bus.on_state = states.append
    h = RedisHarness(server)
    h.result(bus.start())
    clock.advance(5)  # a heartbeat answered: still up
    h.until(lambda: not any(c.getTime() == 7 for c in clock.getDelayedCalls()))
    assert states == [] and bus.is_up
    server.process.send_signal(19)  # SIGSTOP: hung, its connections open
    try:
        clock.advance(5)  # the next PING goes out...
        assert not spin(reactor, lambda: states, limit=0.2)
        clock.advance(2)  # ...and gets no answer in time
        h.until(lambda: states == [False])
    finally:
        server.process.send_signal(18)
    h.result(bus.stop())
    assert clock.getDelayedCalls() == []
