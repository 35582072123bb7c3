"""Euphrates & Tigris in a hall of several processes (issue 22): a player connected to one
process invites, by the id ``who`` shows, a player connected to another; the invitee is asked,
accepts or declines in the protocol's words; the game is run by the inviter's process and the
invitee plays it through its own process's replica, over the real ``et`` wire (StringTransport)."""
from __future__ import annotations

import random

import pytest
from twisted.internet.defer import Deferred

from gamehall.cluster.replica import ReplicaTable
from gamehall.store import MemoryStore
from gamehall.table import PLAYING
from gamehall_et.game import EuphratesTigrisGame
from gamehall_et.wire.codec import decode_server
from gamehall_et.wire.protocol import build_factory
from gamehall_et.wire.render import board_line
from tests.cluster.harness import Cluster
from tests.helpers import RecordingSink
from tests.et.harness import Conn, Player


def et_cluster(names=("a", "b"), **kw):
    kw.setdefault("rng", random.Random(0))
    kw.setdefault("bot_delay", 0.0)
    c = Cluster({"et": EuphratesTigrisGame()}, names=names, **kw)
    factories = {name: build_factory(hall) for name, hall in c.halls.items()}
    return c, factories


def signed_in(c, factory, name):
    conn = Conn(factory)
    conn.send(f"name {name}")
    return conn


def kinds(lines):
    return [decode_server(line).kind for line in lines]


def who_ids(conn):
    """name -> id as ``who`` tells this connection."""
    [line] = [line for line in conn.send("who") if line.startswith("who ")]
    users = decode_server(line).args["users"]
    return {name: i for i, name in users}


def two_players(**kw):
    c, f = et_cluster(**kw)
    ann, eve = signed_in(c, f["a"], "Ann"), signed_in(c, f["b"], "Eve")
    c.run(2)                                 # (the lobby's notice window; each hears of the other)
    ann.lines(), eve.lines()
    return c, f, ann, eve


def owned_et(hall):
    return [t for t in hall.tables.values() if t.game.name == "et" and not t.remote]


def test_users_of_another_process_are_announced_with_newconn_and_name_and_who_lists_them():
    c, f = et_cluster()
    ann = signed_in(c, f["a"], "Ann")
    ann.lines()
    signed_in(c, f["b"], "Eve")
    c.run(2)
    lines = ann.lines()
    uid = who_ids(ann)["Eve"]
    assert f"newconn {uid}" in lines and f"name {uid} Eve" in lines
    c.halls["b"].logout(c.halls["b"].lobby.find("Eve"))
    c.run(2)
    assert f"outconn {uid}" in ann.lines()


def test_an_invitation_across_processes_is_accepted_and_the_game_played_from_both_sides_to_its_end():
    c, f, ann, eve = two_players()
    a, b = c.halls["a"], c.halls["b"]
    eve_at_a, ann_at_b = who_ids(ann)["Eve"], who_ids(eve)["Ann"]
    assert ann.send(f"ask {eve_at_a} - - e+t") == []         # Eve's process asks her first
    c.settle()
    assert eve.lines() == [f"state asked 2 {ann_at_b} Ann {eve.id} Eve"]
    assert ann.lines() == [f"state asked 2 {ann.id} Ann {eve_at_a} Eve", "state accepted"]
    players = [Player(ann, seed=1), Player(eve, seed=2)]    # protocol-text clients from here on
    players[0].client.my_id, players[1].client.my_id = ann.id, eve.id
    assert eve.send("accept") == ["state accepted"]
    players[1].client.feed("state accepted")
    c.settle()
    [table] = owned_et(a)
    assert owned_et(b) == []                                 # one table, the inviter's process's
    c.run(1)
    for p in players:
        p.pump()
    at_a = ann.seen[ann.seen.index("state accepted") + 1:]
    at_b = eve.seen[eve.seen.index("state accepted") + 1:]
    assert at_a[:3] == [f"accepts {eve_at_a} Eve", "state commence", f"playorder {ann.id} {eve_at_a}"]
    assert at_b[:2] == ["state commence", f"playorder {ann_at_b} {eve.id}"]
    assert "ask action" in at_a and "ask action" not in at_b
    assert "board" in kinds(at_b) and "hand" in kinds(at_b) and "state playeraction 0 1" in at_b
    replica = b.tables[table.id]
    assert isinstance(replica, ReplicaTable) and replica.state == PLAYING
    assert [s.name for s in table.seats] == ["Ann", "Eve"] and table.seats[1].user.process == "b"
    assert replica.seats[1].user is b.lobby.find("Eve") and b.lobby.find("Eve").table is replica
    # both play, each in its own process's words, to the end of the game
    for _ in range(40000):
        moved = any([p.pump() for p in players])
        c.settle(3)
        if all(p.client.over for p in players):
            break
        if not moved:
            c.clock.advance(0.05)
    else:
        raise AssertionError("the game did not end")
    assert table.engine.is_over() and replica.seq == table.seq
    assert board_line(replica.engine) == board_line(table.engine)
    assert b.stats.actions == 0 and a.stats.actions == table.seq
    assert players[0].client.final == players[1].client.final != []
    turns = [line for line in eve.seen if line.startswith("state playeraction 1 ")]
    assert len(turns) > 20                                   # Eve played her turns
    for p in players:                                        # (rules refusals are the client's tries)
        assert "it is not your turn" not in p.client.errors
        assert not [n for n in p.client.notes if n.startswith("Not done")]
    c.run(1)
    assert "state connected" in eve.seen[-3:] and "state connected" in ann.seen[-3:]
    assert b.lobby.find("Eve").table is None and table.id not in b.tables


def asked(c, ann, eve):
    eve_at_a = who_ids(ann)["Eve"]
    ann.send(f"ask {eve_at_a} - - e+t")
    c.settle()
    assert kinds(eve.lines()) == ["state asked"]
    assert ann.lines()[-1] == "state accepted"
    return eve_at_a


def test_the_invitee_of_another_process_declines():
    c, f, ann, eve = two_players()
    eve_at_a = asked(c, ann, eve)
    assert eve.send("decline") == [f"declines {eve.id} Eve", "state connected"]
    c.settle()
    assert ann.lines() == [f"declines {eve_at_a} Eve", "state connected"]
    assert eve.send("accept") == ["ERROR nobody has invited you"]
    # both free again: Eve invites Ann the other way round
    ann_at_b = who_ids(eve)["Ann"]
    eve.send(f"ask {ann_at_b} - - e+t")
    c.settle()
    assert ann.lines() == [f"state asked 2 {eve_at_a} Eve {ann.id} Ann"]


def test_the_inviter_declines_or_leaves_and_the_invitee_of_another_process_is_told():
    c, f, ann, eve = two_players()
    asked(c, ann, eve)
    ann_at_b = who_ids(eve)["Ann"]
    assert ann.send("decline") == [f"declines {ann.id} Ann", "state connected"]
    c.settle()
    assert eve.lines() == [f"declines {ann_at_b} Ann", "state connected"]
    asked(c, ann, eve)
    ann.drop()                                               # the inviter's connection closes
    c.settle()
    assert "state connected" in eve.lines()
    assert eve.send("accept") == ["ERROR nobody has invited you"]
    assert not f["a"].across.invitations


def test_an_invitee_of_another_process_who_leaves_ends_the_invitation():
    c, f, ann, eve = two_players()
    asked(c, ann, eve)
    eve.drop()
    c.settle()
    assert ann.lines()[0] == "state connected"
    assert not f["a"].across.invitations and ann.proto.invitation is None


def test_an_accepting_invitee_whose_process_dies_ends_the_invitation_and_a_busy_one_is_refused():
    c, f = et_cluster(names=("a", "b", "c"))
    ann, eve, bob = signed_in(c, f["a"], "Ann"), signed_in(c, f["b"], "Eve"), signed_in(c, f["c"], "Bob")
    c.run(2)
    for conn in (ann, eve, bob):
        conn.lines()
    ids = who_ids(ann)
    ann.send(f"ask {ids['Eve']} {ids['Bob']} - e+t")
    c.settle()
    assert ann.lines()[-1] == "state accepted" and kinds(eve.lines()) == ["state asked"]
    assert kinds(bob.lines()) == ["state asked"]
    # Bob is busy with it: a second invitation to him is refused in words
    carl = signed_in(c, f["a"], "Carl")
    c.settle()
    carl.lines()
    c.run(2)
    for conn in (ann, eve, bob, carl):
        conn.lines()
    assert carl.send(f"ask {ids['Bob']} - - e+t") == []
    c.settle()
    assert carl.lines() == ["ERROR Bob is busy"]
    # a user of another protocol on another process is no E&T connection, as on this one
    c.halls["b"].login("Webby", "web", RecordingSink())
    c.run(2)
    ann.lines(), eve.lines()
    webby = who_ids(carl)["Webby"]
    assert carl.send(f"ask {webby} - - e+t") == [f"ERROR there is no E&T connection {webby}"]
    assert eve.send("accept") == ["state accepted"]
    c.settle()
    assert ann.lines() == [f"accepts {ids['Eve']} Eve"]
    c.kill("c")                                              # Bob's process dies meanwhile
    c.run(10)
    assert "state connected" in ann.lines() and "state connected" in eve.lines()
    assert ann.proto.invitation is None and eve.proto.invitation is None
    assert not [t for t in c.halls["a"].tables.values() if t.game.name == "et"]


def test_an_invitation_whose_inviters_process_dies_is_over_for_the_invitee():
    c, f, ann, eve = two_players()
    asked(c, ann, eve)
    c.kill("a")
    c.run(10)
    assert "state connected" in eve.lines()
    assert eve.send("accept") == ["ERROR nobody has invited you"]


def test_an_invitation_of_users_of_one_process_and_bots_is_unchanged_and_games_are_listed_hall_wide():
    c, f, ann, eve = two_players()
    a, b = c.halls["a"], c.halls["b"]
    assert "state commence" in ann.send("ask 0 - - e+t")      # a game with a bot, on A
    c.run(1)
    table = next(t for t in a.tables.values() if t.game.name == "et")
    assert table.state == PLAYING
    replica = b.tables[table.id]
    assert isinstance(replica, ReplicaTable) and replica.seats[0].name == "Ann"


def started_across(c, ann, eve):
    eve_at_a = asked(c, ann, eve)
    eve.send("accept")
    c.run(1)
    return eve_at_a


def playing_with_a_password():
    """Ann on A and Eve on B (password sesame) playing the game A runs, seats held long."""
    c, f, ann, eve = two_players(seat_hold=10_000)
    eve.send("password sesame")
    started_across(c, ann, eve)
    [table] = owned_et(c.halls["a"])
    return c, f, ann, eve, table


def test_a_player_of_another_process_drops_and_signs_in_again_and_gets_the_game_back():
    c, f, ann, eve, table = playing_with_a_password()
    b = c.halls["b"]
    ann.lines()
    eve.drop()
    c.run(1)
    assert table.seats[1].user is None                      # held for her, at the owner
    assert "note Eve dropped; the seat is held for a while" in ann.lines()
    again = Conn(f["b"])
    again.send("password sesame")
    lines = again.send("name Eve")
    c.run(1)
    lines += again.lines()
    assert table.seats[1].user is not None and table.seats[1].user.process == "b"
    assert f"playorder {who_ids(again)['Ann']} {again.id}" in lines and "board" in kinds(lines)
    assert "note Eve is back" in ann.lines()
    # Ann plays; Eve, on B, sees the move
    ann_player = Player(ann, seed=3)
    ann_player.client.my_id, ann_player.client.player = ann.id, 0
    for line in ann.seen:
        ann_player.client.feed(line)
    ann_player.pump()
    c.run(1)
    assert table.seq >= 1 and b.tables[table.id].seq == table.seq
    assert any(line.startswith("note Ann places") for line in again.lines())


def play_some(c, players, actions, table):
    for _ in range(5000):
        if table.seq >= actions:
            return
        moved = any([p.pump() for p in players])
        c.settle(3)
        if not moved:
            c.clock.advance(0.05)
    raise AssertionError("no moves")


class SlowStore(MemoryStore):
    """Action writes that finish later (as PostgreSQL's do): a replica may follow the table's
    channel before the replayed actions are stored and published."""

    def append_action(self, *args, **kw):
        d = super().append_action(*args, **kw)
        later = Deferred()
        d.addCallback(lambda result: self._clock.callLater(0.3, later.callback, result))
        return later


@pytest.mark.parametrize("slow", [False, True])
def test_a_game_across_processes_aborted_is_restored_across_processes(slow):
    c, f = et_cluster(names=(), rng=random.Random(0))
    if slow:
        c.store = SlowStore(c.clock)
        c.store.open()
    for name in ("a", "b"):
        f[name] = build_factory(c.add(name))
    ann, eve = signed_in(c, f["a"], "Ann"), signed_in(c, f["b"], "Eve")
    c.run(2)
    a, b = c.halls["a"], c.halls["b"]
    players = [Player(ann, seed=1), Player(eve, seed=2)]
    players[0].client.my_id, players[1].client.my_id = ann.id, eve.id
    eve_at_a = who_ids(ann)["Eve"]
    ann.send(f"ask {eve_at_a} - - e+t")
    c.settle()
    eve.send("accept")
    c.run(1)
    a, b = c.halls["a"], c.halls["b"]
    [table] = owned_et(a)
    play_some(c, players, 6, table)
    c.run(1)
    for p in players:
        p.pump()
    ann_at_b = who_ids(eve)["Ann"]
    eve.send("abort")
    c.run(1)
    stopped_at = table.seq
    assert stopped_at >= 6
    # each is told, in its process's ids, after the game's end, as at a local table
    assert eve.lines()[-3:] == ["note the game is stopped: Eve aborted the game", "state connected",
                               f"note game {table.store_id} is stopped; to go on later: ask {ann_at_b} - - "
                               f"e+t restore {table.store_id}"]
    assert ann.lines()[-3:] == ["note the game is stopped: Eve aborted the game", "state connected",
                                f"note game {table.store_id} is stopped; to go on later: ask {eve_at_a} - - "
                                f"e+t restore {table.store_id}"]
    # Eve asks Ann (the other way round) to go on with it: Eve's process runs it now
    eve.lines(), ann.lines()
    eve.send(f"ask {ann_at_b} - - e+t restore {table.store_id}")
    c.run(1)
    assert ann.lines() == [f"state asked 2 {eve_at_a} Eve {ann.id} Ann"]
    ann.send("accept")
    c.run(10)
    [again] = owned_et(b)
    assert again.seq == stopped_at and owned_et(a) == []
    lines = ann.lines()
    assert lines[:3] == ["state commence", f"note game {table.store_id} restored as game {again.store_id}: "
                         f"{stopped_at} stored actions replayed", f"playorder {ann.id} {eve_at_a}"]
    assert not any(line.startswith("note Ann places") for line in lines)   # no replay told move by move
    replica = a.tables[again.id]
    assert replica.seq == again.seq and board_line(replica.engine) == board_line(again.engine)


def test_a_player_of_another_process_drops_and_signs_in_on_the_tables_process_and_gets_the_game_back():
    c, f, ann, eve, table = playing_with_a_password()
    eve.drop()
    c.run(2)
    again = Conn(f["a"])                                     # (the load balancer sent her to A)
    again.send("password wrong")
    lines = again.send("name Eve")
    assert table.seats[1].user is None and any("was not given back" in line for line in lines)
    again.send("name Eve2")
    again.send("password sesame")
    lines = again.send("name Eve")
    assert table.seats[1].user is again.proto.user
    assert f"playorder {ann.id} {again.id}" in lines and "board" in kinds(lines)


def test_an_invitee_who_leaves_as_the_game_is_made_has_the_seat_held_and_a_dead_process_is_not_waited_for():
    c, f, ann, eve = two_players(seat_hold=10_000)
    a = c.halls["a"]
    asked(c, ann, eve)
    eve.send("accept")
    eve.drop()                                  # before her process hears the game is made
    c.run(1)
    [table] = owned_et(a)
    assert table.seats[1].name == "Eve" and table.seats[1].user is None   # held, not "connected"
    assert "note Eve dropped; the seat is held for a while" in ann.lines()
    # an invitee whose process is gone (not noticed yet): the inviter is told, not left waiting
    c2, f2, ann2, eve2 = two_players()
    c2.kill("b")
    eve_at_a = who_ids(ann2)["Eve"]
    assert ann2.send(f"ask {eve_at_a} - - e+t") == []
    c2.run(10)
    lines = ann2.lines()
    assert any(line.startswith("ERROR no answer from the process of the hall Eve is connected to") for line in lines), lines
    assert ann2.proto.invitation is None and not f2["a"].across.invitations
