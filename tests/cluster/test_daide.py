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


def test_deadlines_reach_clients_on_other_processes_and_an_iam_loads_the_game_there():
    from twisted.plugins.gamehall_daide_plugin import diplomacy
    from gamehall_daide.wire.protocol import rooms_of
    c = Cluster({"diplomacy": diplomacy}, names=("a", "b", "c"), rng=random.Random(5), bot_delay=0.0)
    a, b, third = c.halls["a"], c.halls["b"], c.halls["c"]
    rooms_of(a).default_options.update({"MTL": 600, "RTL": 600, "BTL": 600})
    fa, fb, fc = build_factory(a), build_factory(b), build_factory(third)
    links = [Link(fa, Client(f"bot{i}", seed=i, moves=False)) for i in range(6)]
    pump(links)
    c.run(0.5)
    far = Link(fb, Client("bot6", seed=6, moves=False))        # on B: A runs the game
    for _ in range(40):
        pump(links + [far])
        c.run(0.1)
    table = next(t for t in a.tables.values() if not t.remote and t.state == PLAYING)
    assert isinstance(b.tables[table.id], ReplicaTable)
    assert all(l.client.last("HLO") for l in links + [far])
    # the phase's time left, on B as on A (the owner's deadline fires on A alone)
    assert links[0].client.last("TME") == ["TME", [600]]
    assert far.client.last("TME") == ["TME", [600]]
    # a player of A drops, and comes back through C, where nobody shows the game
    gone = links[0].client
    links[0].lose()
    c.run(0.5)
    assert not third.tables[table.id].shown
    back = Link(fc, Client("back", rejoin=(gone.power, gone.passcode), play=False))
    for _ in range(40):
        pump([back] + links[1:] + [far])
        c.run(0.1)
    assert back.client.received[0] == ["YES", ["IAM", [gone.power], [gone.passcode]]]
    assert back.client.last("NOW") is not None
    seat = table.seats[table.engine.powers.index(gone.power)]
    assert seat.user is not None and seat.user.process == "c"
    # a wrong passcode is still refused
    wrong = Link(fc, Client("wrong", rejoin=(gone.power, gone.passcode + 1), play=False))
    pump([wrong])
    c.run(1)
    pump([wrong])
    assert wrong.client.received[0][0] == "REJ"
    # the deadline runs out on A: the phase moves on for everyone, on every process
    turn = links[1].client.last("NOW")
    for _ in range(61):
        c.run(10)
        pump([back] + links[1:] + [far])
    assert links[1].client.last("NOW") != turn
    assert far.client.last("NOW") == links[1].client.last("NOW") == back.client.last("NOW")
