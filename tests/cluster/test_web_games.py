"""The web front end across processes for every game besides Acquire (issue 22): a web user
on process B sits at or watches a table run by process A, made there by a web user or by
that game's own protocol's clients, and plays it over the web's JSON protocol, with moves
from both sides; each side is shown every move, from its own process's engine."""
from __future__ import annotations

import json
import random

import pytest

from gamehall.cluster.replica import ReplicaTable
from gamehall.plugins import find_games
from gamehall.table import FINISHED, PLAYING
from gamehall_web.site import WebHall
from gamehall_web.views import find_views
from tests.cluster.harness import Cluster
from tests.web.webharness import Client, Jobs

GAMES = find_games()


class WebPlayer:
    """A browser that answers the latest decision it is shown with its first choice."""

    def __init__(self, web, nickname, peer):
        self.client = Client(web, peer=peer)
        self.client.sign_in(nickname)
        self.read = 0
        self.moves = 0

    def pump(self) -> None:
        new = [json.loads(text) for text in self.client.wire.sent[self.read:]]    # (only the new ones)
        self.read += len(new)
        decision = None
        for message in new:
            if message["type"] in ("decision", "table", "table_state") and "decision" in message:
                decision = message["decision"]
        if decision and decision.get("choices"):
            self.client.send({"type": "act", "action": decision["choices"][0]["action"]})
            self.moves += 1


def web_cluster(seed=5, **kw):
    c = Cluster(dict(GAMES), rng=random.Random(seed), **kw)
    a, b = c.halls["a"], c.halls["b"]
    return c, a, b, WebHall(a, find_views(), compute=Jobs()), WebHall(b, find_views(), compute=Jobs())


def game_messages(client) -> list[dict]:
    return [m for m in client.messages if m["type"] == "table" and m.get("event") == "game"]


def check_shown(c, a, b, web_b, table, bob, wes, bob_seat):
    """What B showed its web users of A's table: every move in order, from B's own engine,
    which is A's; B applied no action itself."""
    c.run(0.5)
    replica = b.tables.get(table.id)
    for client in (bob.client, wes):
        # the state at the start (with what the start did: PIMP admits the seated), then each move
        started = [m["seq"] for m in client.of("table_state") if m["table"]["state"] == PLAYING][0]
        assert [m["seq"] for m in game_messages(client)] == list(range(started + 1, table.seq + 1))
    shown = game_messages(bob.client)
    actors = {m["actor"] for m in shown}
    assert bob_seat in actors and len(actors) > 1               # Bob's moves and the others'
    assert b.stats.actions == 0 and a.stats.actions == table.seq
    if replica is not None:                                    # (an ended game leaves the list)
        assert isinstance(replica, ReplicaTable) and replica.seq == table.seq
        view = web_b.view(table.game)
        assert view.spectator(replica.engine) == view.spectator(table.engine)
        assert view.seat(replica.engine, bob_seat) == view.seat(table.engine, bob_seat)
    assert not bob.client.errors() and not wes.errors(), (bob.client.errors(), wes.errors())
    assert not [m for m in bob.client.of("table_chat") if m.get("notice") == "refused"]


#: game -> (bots at the table, moves each web player makes at least; None: to the game's end)
WEB_MADE = {"et": (["strong"], None), "windward": (["strong"] * 4, None),
            "pimp": (["strong"], 12), "diplomacy": (["strong"] * 5, 6)}


@pytest.mark.parametrize("name", sorted(WEB_MADE))
def test_a_web_player_on_b_plays_a_table_a_web_player_made_on_a(name):
    bots, moves = WEB_MADE[name]
    c, a, b, web_a, web_b = web_cluster()
    ann = WebPlayer(web_a, "Ann", "10.0.0.1")
    ann.client.send({"type": "create", "game": name, "bots": bots})
    table = a.tables[ann.client.last("created")["table"]]
    c.run(0.5)
    bob = WebPlayer(web_b, "Bob", "10.0.0.2")
    bob.client.send({"type": "join", "table": table.id})
    wes = Client(web_b, peer="10.0.0.3")                       # a visitor, no nickname
    wes.send({"type": "watch", "table": table.id})
    c.run(0.5)
    assert [s.name for s in table.seats] == ["Ann", *[s.name for s in table.seats[1:-1]], "Bob"]
    assert bob.client.last("table_state")["seat"] == len(bots) + 1
    ann.client.send({"type": "start"})
    c.run(0.5)
    assert table.state == PLAYING and b.tables[table.id].state == PLAYING
    for _ in range(40_000):
        if table.state != PLAYING or (moves is not None and min(ann.moves, bob.moves) >= moves):
            break
        c.run(0.1, step=0.1)
        ann.pump()
        bob.pump()
    else:
        raise AssertionError(f"{name}: {table.seq} actions, {ann.moves} and {bob.moves} web moves")
    if moves is None:
        assert table.state == FINISHED, table.state
        for client in (bob.client, wes):
            finished = [m for m in client.of("table") if m.get("event") == "finished"]
            assert finished and finished[-1]["result"] == table.engine.result()
    check_shown(c, a, b, web_b, table, bob, wes, len(bots) + 1)
