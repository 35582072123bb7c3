"""Diplomacy across processes: DAIDE clients connected to two processes of one hall find
the one open table and play one game together (issue 22: a competition's bots behind a
load balancer)."""
from __future__ import annotations

import random

from gamehall.cluster.replica import ReplicaTable
from gamehall.table import PLAYING
from gamehall_daide.wire.protocol import build_factory
from tests.cluster.harness import Cluster
from tests.daide.client import Client
from tests.daide.wire import Link, pump


def diplomacy_cluster():
    from twisted.plugins.gamehall_daide_plugin import diplomacy
    return Cluster({"diplomacy": diplomacy}, rng=random.Random(11), bot_delay=0.0)


def pump_all(c, links, rounds=400):
    for _ in range(rounds):
        moved = False
        for _ in range(3):
            moved = any([link.pump() for link in links]) or moved
        c.run(0.05)
        if not moved and all(l.client.closed_by_server for l in links if not l.client.observer):
            return


def test_seven_daide_clients_on_two_processes_play_one_game():
    c = diplomacy_cluster()
    a, b = c.halls["a"], c.halls["b"]
    fa, fb = build_factory(a), build_factory(b)
    links = []
    for i in range(7):                           # as a load balancer spreads them
        link = Link(fa if i % 2 == 0 else fb, Client(f"bot{i}", seed=i, draw_year=1903))
        links.append(link)
        pump([link])
        c.run(0.5)                               # (the open table is known hall-wide by then)
    watcher = Link(fb, Client("watcher", observer=True))
    pump_all(c, links + [watcher], rounds=2)
    tables = [t for t in a.tables.values() if not t.remote] + [t for t in b.tables.values() if not t.remote]
    played = [t for t in tables if t.state == PLAYING or t.engine is not None]
    assert len(played) == 1                      # one game for all seven
    table = played[0]
    owner, other = (a, b) if table in a.tables.values() else (b, a)
    replica = other.tables[table.id]
    assert isinstance(replica, ReplicaTable)
    pump_all(c, links + [watcher])
    powers = {l.client.power for l in links}
    assert len(powers) == 7 and None not in powers
    first = links[0].client
    assert "HLO" in first.names() and "ORD" in first.names()
    # every client saw every ORD, whichever process it is connected to
    assert all(l.client.all("ORD") == first.all("ORD") for l in links)
    seen = watcher.client.all("ORD")               # an observer on B from the first move on
    assert seen and first.all("ORD")[-len(seen):] == seen
    assert all(l.client.closed_by_server for l in links)
    assert table.state == "finished" and other.stats.actions == 0


def test_two_processes_opening_a_table_at_once_gather_their_clients_into_one_game():
    c = diplomacy_cluster()
    a, b = c.halls["a"], c.halls["b"]
    fa, fb = build_factory(a), build_factory(b)
    links = [Link(fa if i % 2 == 0 else fb, Client(f"bot{i}", seed=i, draw_year=1902)) for i in range(7)]
    pump(links)                                  # all at once: each process opens a table
    opened = [t for h in (a, b) for t in h.tables.values() if not t.remote]
    assert len(opened) == 2
    pump_all(c, links)
    powers = {l.client.power for l in links}
    assert len(powers) == 7 and None not in powers       # one game of seven
    first = links[0].client
    assert all(l.client.all("ORD") == first.all("ORD") for l in links)
    assert all(l.client.closed_by_server for l in links)
    played = [t for h in (a, b) for t in h.tables.values() if not t.remote and t.engine is not None]
    assert not played                            # (finished: gone from the lists)
