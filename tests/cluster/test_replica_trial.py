"""A replica checks its players' moves on a second engine before they go to the owner
(issue 22's cost per action): kept in step with the replica's engine, not copied anew at
every move, and never out of step with it (a move the owner refused, another move first)."""
from __future__ import annotations

import copy
import pickle

from gamehall.cluster import replica as replica_module
from gamehall.table import PLAYING
from tests.cluster.test_tables import acquire_cluster, play, two_player_table


class Counted:
    """A module standing in for ``copy`` or ``pickle`` in gamehall.cluster.replica, counting
    the engine copies made there (deepcopy, or pickle's loads)."""

    def __init__(self, module, name) -> None:
        self.module, self.name, self.calls = module, name, 0

    def __getattr__(self, attr):
        value = getattr(self.module, attr)
        if attr != self.name:
            return value

        def counted(*args, **kw):
            self.calls += 1
            return value(*args, **kw)
        return counted


def count_copies(monkeypatch) -> list[Counted]:
    counters = [Counted(copy, "deepcopy"), Counted(pickle, "loads")]
    monkeypatch.setattr(replica_module, "copy", counters[0])
    monkeypatch.setattr(replica_module, "pickle", counters[1], raising=False)
    return counters


def spare_in_step(replica) -> bool:
    """The spare engine, when it stands for the replica's engine now, is in its state."""
    spare = getattr(replica, "_spare", None)
    if spare is None or spare[0] is not replica.engine or spare[1] != replica.seq:
        return False
    assert spare[2] is not replica.engine
    assert spare[2].to_dict() == replica.engine.to_dict()
    return True


def bobs_turn_with_a_spare(c, table, replica, ann, bob) -> None:
    """Played until Bob's move was tried and played once (a spare engine is kept), then
    until Bob is asked again and does not answer, the replica up to date."""
    play(c, table, [ann], [bob], lambda: replica._spare is not None)
    bob.answer = False
    play(c, table, [ann], [bob], lambda: table.engine.pending_seat() == 1 and table._told == table.seq
         and replica.seq == table.seq)
    bob.pump()
    assert spare_in_step(replica)


def test_a_replicas_players_moves_are_tried_on_a_spare_engine_not_a_copy_each(monkeypatch):
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    replica = b.tables[table.id]
    counters = count_copies(monkeypatch)
    forwarded = []
    forward = b.cluster.tables.forward
    b.cluster.tables.forward = lambda t, op, *rest: (forwarded.append(op), forward(t, op, *rest))
    in_step = []

    def until():
        in_step.append(spare_in_step(replica))
        return table.state != PLAYING
    play(c, table, [ann], [bob], until, limit=20000)
    c.run(0.5)
    assert table.state == "finished"
    assert forwarded.count("act") > 20
    # one copy for Bob's first move; from then on the spare follows the replica's engine
    assert sum(counter.calls for counter in counters) <= 2
    assert in_step.count(True) > 20
    assert replica.engine.result() == table.engine.result()


def test_after_another_move_came_first_the_next_move_is_tried_on_the_engine_as_it_is(monkeypatch):
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    replica = b.tables[table.id]
    bobs_turn_with_a_spare(c, table, replica, ann, bob)
    decision = [m for m in bob.client.messages if m.get("decision")][-1]["decision"]
    seq = table.seq
    # Bob's move is tried on the spare; the owner's turn timer plays for him first, another move
    choices = [choice["action"] for choice in decision["choices"]]
    timed = table.engine.timeout_action(1)
    mine = next(action for action in choices if action != timed)
    bob.client.send({"type": "act", "action": mine})
    assert replica._tried is not None and replica._spare is None
    table._turn_timed_out(1, table.seq)
    c.run(0.5)
    assert table.seq > seq and replica.seq == table.seq
    # the spare, ahead with Bob's move, was dropped: not taken for the replica's engine
    assert replica._tried is None
    assert replica._spare is None or spare_in_step(replica)
    counters = count_copies(monkeypatch)
    bob.answer = True
    play(c, table, [ann], [bob], lambda: table.state != PLAYING, limit=20000)
    c.run(0.5)
    assert table.state == "finished"
    assert replica.engine.result() == table.engine.result()
    assert sum(counter.calls for counter in counters) >= 1     # a new copy after the drop


def test_an_illegal_move_leaves_the_spare_engine_in_step():
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    replica = b.tables[table.id]
    bobs_turn_with_a_spare(c, table, replica, ann, bob)
    bob.client.send({"type": "act", "action": {"play_tile": "no such tile"}})
    assert bob.client.last("error")["request"] == "act"
    assert spare_in_step(replica)                 # refused by the engine: changed nothing
    bob.answer = True
    play(c, table, [ann], [bob], lambda: table.state != PLAYING, limit=20000)
    c.run(0.5)
    assert replica.engine.result() == table.engine.result()



def test_a_move_and_the_decision_after_it_go_to_the_replica_as_one_bus_message(monkeypatch):
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    sent = []
    publish = a.cluster.node.bus.publish

    def recorded(channel, message):
        if channel == f"table.{table.id}":
            sent.append(message)
        return publish(channel, message)
    monkeypatch.setattr(a.cluster.node.bus, "publish", recorded)
    play(c, table, [ann], [bob], lambda: table.state != PLAYING, limit=20000)
    c.run(0.5)
    carried = [m for message in sent for m in (message["m"] if message["t"] == "many" else [message])]
    acts = [m["seq"] for m in carried if m["t"] == "act"]
    assert acts == list(range(acts[0], table.seq + 1))          # every move, in order
    decisions = [m for m in carried if m["t"] == "to" and m["event"] == "decision"]
    assert len(decisions) > 10
    # Bob's decisions came with the move before them, not in a bus message of their own
    assert all(message["t"] == "many" for message in sent if any(
        m["t"] == "to" and m["event"] == "decision" for m in (message["m"] if message["t"] == "many" else [message])))
    assert len(sent) < len(carried) - 10
    assert b.tables.get(table.id) is None and ann.proto.user.table is None
