"""A player of a process that died signs in again before the dead process's tables are
taken over: on the process that takes them over, and on a process started meanwhile
(``--workers`` starts a new worker 1 s after one died).  bench/cluster_load.py found
tables waiting for such players after a worker was killed under load."""
from __future__ import annotations

from gamehall.cluster.replica import ReplicaTable
from gamehall.table import PLAYING, Table
from gamehall_acquire.wire.protocol import build_factory
from tests.cluster.test_tables import acquire_cluster, play, two_player_table
from tests.netacquire.harness import Conn


def test_a_player_back_before_the_take_over_gets_the_seat_at_the_take_over():
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    play(c, table, [ann], [bob], lambda: table.seq >= 10 and table._told == table.seq)
    c.kill("a")                                  # SIGKILL: no goodbye, its claims lapse
    c.run(0.5)
    assert isinstance(b.tables[table.id], ReplicaTable)     # not taken over yet
    ann_again = Conn(build_factory(b), "Ann", 1002, seed=1)  # through the load balancer, to B
    ann_again.spectator = False
    c.settle()
    c.run(20)                                    # gone after 3 heartbeats; the claim lapses after 3 more
    taken = b.tables[table.id]
    assert isinstance(taken, Table) and not isinstance(taken, ReplicaTable)
    assert taken.seats[0].user is ann_again.proto.user       # her seat, without signing in again
    play(c, taken, [ann_again], [bob], lambda: taken.state != PLAYING, limit=20000)
    assert taken.state == "finished"


def test_a_player_back_on_a_restarted_process_before_the_take_over_gets_the_seat():
    # --workers starts a new worker 1 s after one died: a player who reconnects lands there
    # while another process has not yet taken the dead one's tables over
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    play(c, table, [ann], [bob], lambda: table.seq >= 10 and table._told == table.seq)
    c.kill("a")
    c.run(1)
    fresh = c.add("a2")
    # her name is free once a2 sees that A's claim on it belongs to no live process: she
    # signs in again until she is in, as a client does
    for attempt in range(20):
        ann_again = Conn(build_factory(fresh), "Ann", 1002 + attempt, seed=1)
        ann_again.spectator = False
        c.settle()
        if fresh.lobby.find("Ann") is not None:
            break
        c.run(0.5)
    assert fresh.lobby.find("Ann") is not None
    c.run(20)
    taken = b.tables[table.id]
    assert isinstance(taken, Table) and not isinstance(taken, ReplicaTable)
    assert taken.seats[0].user is not None and taken.seats[0].user.nickname == "Ann"   # seated through a2
    play(c, taken, [ann_again], [bob], lambda: taken.state != PLAYING, limit=20000)
    assert taken.state == "finished"
