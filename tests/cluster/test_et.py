"""Euphrates & Tigris in a hall of several processes: what its protocol allows (issue 22).
An E&T game is formed by invitations between connections of one process (``ask`` names
this process's connection ids); a user of another process is named and refused in words,
and the game a process runs is in every process's list of tables."""
from __future__ import annotations

import random

from gamehall.cluster.replica import ReplicaTable
from gamehall.table import PLAYING
from gamehall_et.game import EuphratesTigrisGame
from gamehall_et.wire.protocol import build_factory
from tests.cluster.harness import Cluster
from tests.et.harness import Conn


def test_an_invitation_to_a_player_of_another_process_is_refused_in_words_and_games_are_listed_hall_wide():
    c = Cluster({"et": EuphratesTigrisGame()}, rng=random.Random(0), bot_delay=0.0)
    a, b = c.halls["a"], c.halls["b"]
    fa, fb = build_factory(a), build_factory(b)
    ann, eve = Conn(fa), Conn(fb)
    ann.send("name Ann")
    eve.send("name Eve")
    c.run(2)                                     # (the lobby's notice window)
    ann.lines()
    uid = fa.id_of(a.lobby.find("Eve"))
    assert a.lobby.find("Eve").process == "b"
    reply = ann.send(f"ask {uid} - - e+t")
    assert reply == ["ERROR Eve is connected to another process of the hall: invite players "
                     "connected to this one"]
    assert "state commence" in ann.send("ask 0 - - e+t")      # a game with a bot, on A
    c.run(1)
    table = next(t for t in a.tables.values() if t.game.name == "et")
    assert table.state == PLAYING
    replica = b.tables[table.id]
    assert isinstance(replica, ReplicaTable) and replica.seats[0].name == "Ann"
