"""ClusterNode: requests, refusals, timeouts, broadcasts and peers, on the in-memory bus."""
from __future__ import annotations

import pytest
from twisted.internet import task
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure

from gamehall.bus.localbus import LocalBus, LocalHub
from gamehall.cluster.node import HEARTBEAT, ClusterNode, NoAnswer, RemoteRefusal


class Refused(ValueError):
    pass


def outcome(d):
    box = []
    d.addBoth(box.append)
    return box


@pytest.fixture
def hall():
    clock = task.Clock()
    hub = LocalHub(clock)
    nodes = []

    def node(name):
        bus = LocalBus(clock, hub)
        bus.start()
        n = ClusterNode(clock, bus, name, info={"name": name})
        n.start()
        clock.advance(0)
        nodes.append(n)
        return n

    def settle():
        for _ in range(5):
            clock.advance(0)

    return clock, node, settle


def test_request_reaches_the_handler_and_its_answer_comes_back(hall):
    clock, node, settle = hall
    a, b = node("a"), node("b")
    seen = []
    b.on_request("add", lambda sender, body: (seen.append(sender), {"sum": body["x"] + body["y"]})[1])
    box = outcome(a.request("b", "add", {"x": 2, "y": 3}))
    settle()
    assert box == [{"sum": 5}] and seen == ["a"]


def test_a_deferred_answer_is_waited_for(hall):
    clock, node, settle = hall
    a, b = node("a"), node("b")
    later = Deferred()
    b.on_request("slow", lambda sender, body: later)
    box = outcome(a.request("b", "slow", {}))
    settle()
    assert box == []
    later.callback("done")
    settle()
    assert box == ["done"]


def test_a_refusal_keeps_its_text_and_type(hall):
    clock, node, settle = hall
    a, b = node("a"), node("b")

    def refuse(sender, body):
        raise Refused("It is not your turn")
    b.on_request("act", refuse)
    box = outcome(a.request("b", "act", {}))
    settle()
    assert isinstance(box[0], Failure) and box[0].check(RemoteRefusal)
    assert str(box[0].value) == "It is not your turn" and box[0].value.kind == "Refused"


def test_an_internal_error_is_logged_there_and_refused_here_without_its_details(hall):
    clock, node, settle = hall
    a, b = node("a"), node("b")
    b.on_request("boom", lambda sender, body: {}["missing"])
    box = outcome(a.request("b", "boom", {}))
    settle()
    assert box[0].check(RemoteRefusal) and "internal error" in str(box[0].value)
    assert "missing" not in str(box[0].value)


def test_an_unknown_request_is_refused(hall):
    clock, node, settle = hall
    a, b = node("a"), node("b")
    box = outcome(a.request("b", "nothing", {}))
    settle()
    assert box[0].check(RemoteRefusal)


def test_no_reply_in_time_fails_with_no_answer(hall):
    clock, node, settle = hall
    a = node("a")
    box = outcome(a.request("nobody", "add", {}, timeout=3))
    settle()
    assert box == []
    clock.advance(3)
    assert box[0].check(NoAnswer)


def test_broadcast_reaches_every_other_process_not_the_sender(hall):
    clock, node, settle = hall
    a, b, c = node("a"), node("b"), node("c")
    heard = []
    for n in (a, b, c):
        n.on_message("chat", lambda sender, body, n=n: heard.append((n.process_id, sender, body["text"])))
    a.broadcast("chat", {"text": "hi"})
    settle()
    assert sorted(heard) == [("b", "a", "hi"), ("c", "a", "hi")]


def test_tell_reaches_one_process_in_order(hall):
    clock, node, settle = hall
    a, b, c = node("a"), node("b"), node("c")
    heard = []
    b.on_message("n", lambda sender, body: heard.append(body["i"]))
    c.on_message("n", lambda sender, body: heard.append(("c", body["i"])))
    for i in range(5):
        a.tell("b", "n", {"i": i})
    settle()
    assert heard == [0, 1, 2, 3, 4]


def test_peers_join_and_a_killed_one_is_gone_after_its_announcement_lapses(hall):
    clock, node, settle = hall
    a, b = node("a"), node("b")
    gone, joined = [], []
    a.on_peer_gone.append(gone.append)
    a.on_peer_joined.append(lambda pid, info: joined.append((pid, info["name"])))
    clock.advance(HEARTBEAT)
    settle()
    assert joined == [("b", "b")] and set(a.peers) == {"b"}
    pending = outcome(a.request("b", "slow", {}, timeout=60))
    b.bus.stop()                    # killed: no bye, its announcement runs out
    b._running = False
    for _ in range(4):
        clock.advance(HEARTBEAT)
        settle()
    assert gone == ["b"] and a.peers == {}
    assert pending[0].check(NoAnswer)       # a request to a dead process fails at once


def test_a_clean_stop_is_heard_at_once(hall):
    clock, node, settle = hall
    a, b = node("a"), node("b")
    clock.advance(HEARTBEAT)
    settle()
    gone = []
    a.on_peer_gone.append(gone.append)
    b.stop()
    settle()
    assert gone == ["b"]
