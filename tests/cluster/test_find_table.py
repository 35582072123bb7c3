"""Joining or watching a table by its number on a process that has not heard of it yet (issue
22): a table made on A a moment ago, its announcement not yet at B, is looked for (the holder
of its block of numbers is asked) and then joined; "No game #N" only when it is nowhere."""
from __future__ import annotations

import random

from gamehall.cluster.replica import ReplicaTable
from gamehall_acquire.wire.protocol import build_factory
from gamehall_web.site import WebHall
from gamehall_web.views import find_views
from tests.cluster.harness import Cluster, bot_table
from tests.netacquire.harness import Conn, acquire_game
from tests.helpers import RecordingSink
from tests.web.webharness import Client, Jobs


def acquire_cluster(names=("a", "b")):
    return Cluster({"acquire": acquire_game()}, names=names, rng=random.Random(4))


def errors(conn) -> list[str]:
    """The texts of the host's error messages (M;"E;...") a NetAcquire client was sent."""
    return [params[0] for code, params in conn.logic.log if code == "M" and params and params[0].startswith("E;")]


def test_a_netacquire_join_of_a_table_just_made_on_another_process_seats_the_player():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    ann = Conn(build_factory(b), "Ann", 1001, seed=2)
    table = a.create_table("acquire", max_seats=3)
    table.add_bot()
    assert table.id not in b.tables                  # B has not heard of it yet
    ann.send(f"JG;{table.id},-1")
    c.run(0.5)
    ann.pump()
    assert not any("No game" in e for e in errors(ann)), errors(ann)
    assert [s.name for s in table.seats][1:] == ["Ann"]
    assert isinstance(b.tables[table.id], ReplicaTable) and ann.proto.user.table is b.tables[table.id]


def test_a_netacquire_watch_of_a_table_just_made_on_another_process_watches_it():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    ann = Conn(build_factory(b), "Ann", 1001, seed=2)
    table = a.create_table("acquire", max_seats=3)
    ann.send(f"JG;{table.id},0")
    c.run(0.5)
    ann.pump()
    assert not errors(ann)
    assert ann.proto.user.watching and ann.proto.user.table is b.tables[table.id]
    assert [u.nickname for u in table.spectators] == ["Ann"]


def test_a_number_nobody_made_is_no_game_at_once_and_a_later_join_is_not_held():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    ann = Conn(build_factory(b), "Ann", 1001, seed=2)
    made = a.create_table("acquire", max_seats=3)
    c.run(0.5)
    for number in (made.id + 1, made.id + 50000):   # in A's block; in nobody's
        ann.send(f"JG;{number},-1")
        c.settle()                                  # no wait for FIND_WAIT: asked and answered
        ann.pump()
        assert errors(ann)[-1] == f"E;Request refused;No game #{number}"
    assert ann.proto.user.table is None and not b.cluster.tables._finding


def test_web_join_and_watch_of_a_table_just_made_on_another_process():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    web_b = WebHall(b, find_views(), compute=Jobs())
    bob = Client(web_b, peer="10.0.0.2")
    bob.sign_in("Bob")
    visitor = Client(web_b, peer="10.0.0.3")
    first = a.create_table("acquire", max_seats=3)
    bob.send({"type": "join", "table": first.id})
    second = a.create_table("acquire", max_seats=3)
    visitor.send({"type": "watch", "table": second.id})
    c.run(0.5)
    assert not bob.errors() and not visitor.errors(), (bob.errors(), visitor.errors())
    assert [s.name for s in first.seats] == ["Bob"]
    assert bob.last("table_state")["table"]["id"] == first.id
    assert visitor.last("table_state")["table"]["id"] == second.id


def test_a_table_taken_over_is_found_by_a_process_that_never_listed_it():
    """C starts after A died, while B runs A's table: the store has it unfinished and the
    holder of its block is gone, so every process is asked."""
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    table = bot_table(a)
    c.run(0.5)
    c.kill("a")
    c.run(12)
    assert not isinstance(b.tables.get(table.id), ReplicaTable) and table.id in b.tables
    hall_c = c.add("c")
    hall_c.tables.pop(table.id, None)                # as if B's list had not reached C yet
    ann = Conn(build_factory(hall_c), "Ann", 1001, seed=2)
    ann.send(f"JG;{table.id},0")
    c.run(0.5)
    ann.pump()
    assert not errors(ann)
    assert ann.proto.user.watching and ann.proto.user.table is hall_c.tables[table.id]


def console(hall, line: str) -> list[str]:
    from gamehall.admin.commands import Console
    out: list[str] = []
    Console(hall).execute(line).addCallback(out.append)
    return out


def test_the_consoles_close_and_bot_of_a_table_just_made_on_another_process_act_on_it():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    first = bot_table(a)
    second = a.create_table("acquire", max_seats=2)
    ann = a.login("Ann", "test", RecordingSink())
    second.join(ann)
    second.add_bot()
    second.start(ann)
    assert first.id not in b.tables and second.id not in b.tables     # B has not heard of them yet
    bot = console(b, f"bot {second.id} 1")
    closed = console(b, f"close {first.id}")
    c.run(0.5)
    assert closed == [f"Closed game #{first.id} on process a."]
    assert first.state == "aborted" and first.id not in a.tables
    assert bot == [f"Game #{second.id} seat 1 (Ann) is now played by bot strong on process a."]
    assert second.seats[0].kind == "bot" and ann.table is None
    # a number that is nowhere is refused as before, at once
    nowhere = console(b, f"close {second.id + 50000}")
    c.settle()
    assert nowhere == [f"error: No game #{second.id + 50000}"]


def test_a_web_sign_in_naming_its_table_not_listed_yet_gets_its_held_seat_back():
    """Bob (web, on B) plays A's table; his browser comes back through C, which has not
    listed the table yet (a process just started): his held seat, with his token."""
    c = acquire_cluster(names=("a", "b", "c"))
    a, b, third = c.halls["a"], c.halls["b"], c.halls["c"]
    table = a.create_table("acquire", max_seats=2)
    table.add_bot()
    c.run(0.5)
    bob = Client(WebHall(b, find_views(), compute=Jobs()), peer="10.0.0.2")
    token = bob.sign_in("Bob")["token"]
    bob.send({"type": "join", "table": table.id})
    c.run(0.5)
    table.start()
    c.run(0.5)
    assert table.seats[1].name == "Bob" and table.seats[1].user is not None
    bob.lose()
    c.run(8)                                          # past the reload grace: signed out, seat held
    assert table.seats[1].user is None and table.state == "playing"
    third.tables.pop(table.id, None)                 # as if A's list had not reached C yet
    back = Client(WebHall(third, find_views(), compute=Jobs()), peer="10.0.0.9")
    back.send({"type": "hello", "nickname": "Bob", "token": token, "table": table.id})
    c.run(0.5)
    assert not back.errors(), back.errors()
    assert back.last("table_state")["seat"] == 1 and back.last("table_state")["table"]["id"] == table.id
    assert table.seats[1].user is not None and table.seats[1].user.process == "c"


def test_the_consoles_monopoly_current_of_a_table_just_made_on_another_process_makes_it_current():
    from gamehall_pimp.game import PimpGame
    from gamehall_pimp.wire.protocol import build_factory as pimp_factory, monopoly_command, rooms_of
    c = Cluster({"pimp": PimpGame()})
    a, b = c.halls["a"], c.halls["b"]
    pimp_factory(a), pimp_factory(b)
    monopoly_command(a, "new")
    first = rooms_of(a).current()
    monopoly_command(a, "new")                       # the newer one is current...
    assert first.id not in b.tables
    out = console(b, f"monopoly current {first.id}")   # ...until B's operator names the first
    c.run(0.5)
    assert out == [f"Monopoly table #{first.id} is current"]
    assert rooms_of(a).current() is first and rooms_of(b).current() is b.tables[first.id]


def test_the_consoles_daide_set_and_bot_of_a_table_another_process_runs():
    """``daide set`` from B is kept where the table runs (it used to change B's copy only);
    ``daide bot`` of A's waiting table says where to seat bots (it failed with an IndexError);
    a table made on A a moment ago is looked for first."""
    from twisted.plugins.gamehall_daide_plugin import diplomacy
    from gamehall_daide.wire.protocol import rooms_of
    c = Cluster({"diplomacy": diplomacy}, rng=random.Random(11), bot_delay=0.0)
    a, b = c.halls["a"], c.halls["b"]
    rooms_of(b)
    table = rooms_of(a).new_table()
    assert table.id not in b.tables
    out = console(b, f"daide set {table.id} MTL=600 DSD")
    c.run(0.5)
    assert out and out[0].startswith(f"#{table.id}: [") and "MTL=600" in out[0], out
    assert table.options["daide"]["MTL"] == 600 and table.options["daide"]["DSD"] is True
    assert b.tables[table.id].options["daide"]["MTL"] == 600
    stored = []
    c.store.load_table(table.id).addCallback(stored.append)
    c.settle()
    assert stored[0] is None or stored[0]["options"]["daide"]["MTL"] == 600    # (a waiting table: no row yet)
    out = console(b, f"daide bot {table.id}")
    c.settle()
    assert out == [f"error: game #{table.id} is run by process a: seat its bots there"]
    assert table.seats == []
