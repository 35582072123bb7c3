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


def test_a_web_player_on_b_takes_the_last_seat_of_daide_clients_game_on_a_and_plays_it():
    from gamehall_daide.wire.protocol import build_factory
    from tests.daide.client import Client as DaideClient
    from tests.daide.wire import Link, pump
    c, a, b, web_a, web_b = web_cluster(bot_delay=0.0)
    links = [Link(build_factory(a), DaideClient(f"bot{i}", seed=i)) for i in range(6)]
    pump(links)
    c.run(0.5)
    [line] = [t for t in web_b_lobby(web_b) if t["game"] == "diplomacy"]    # listed once seated
    table = a.tables[line["id"]]
    bob = WebPlayer(web_b, "Bob", "10.0.0.2")
    bob.client.send({"type": "join", "table": table.id})
    wes = Client(web_b, peer="10.0.0.3")
    wes.send({"type": "watch", "table": table.id})
    c.run(0.5)
    assert [s.name for s in table.seats][-1] == "Bob"
    # Bob's seat was the last: the owner starts the game for its DAIDE clients, no Start asked
    for _ in range(400):
        pump(links, rounds=5)
        c.run(0.1, step=0.1)
        bob.pump()
        if bob.moves >= 6:
            break
    assert table.state == PLAYING and bob.moves >= 6
    for _ in range(20):                       # (the last phase's orders in)
        pump(links, rounds=5)
        c.run(0.1, step=0.1)
    power = table.engine.powers[6]
    assert all(link.client.power in table.engine.powers[:6] for link in links)
    # the DAIDE clients were told the phases Bob's orders moved on, with his units in them
    nows = links[0].client.all("NOW")
    assert len(nows) >= 3 and all(power in str(now) for now in nows)
    check_shown(c, a, b, web_b, table, bob, wes, 6)


def web_b_lobby(web) -> list[dict]:
    visitor = Client(web, peer="10.0.0.9")
    visitor.send({"type": "lobby"})
    return visitor.last("lobby")["tables"]


def test_a_pimp_client_on_b_is_voted_into_a_web_made_monopoly_table_on_a_and_plays_with_the_web_players():
    from gamehall_pimp.wire.protocol import build_factory, rooms_of
    from tests.pimp.test_frontend import Conn
    from tests.pimp.wireclient import WireClient
    c, a, b, web_a, web_b = web_cluster()
    ann = WebPlayer(web_a, "Ann", "10.0.0.1")
    ann.client.send({"type": "create", "game": "pimp", "bots": ["strong"]})
    table = a.tables[ann.client.last("created")["table"]]
    c.run(0.5)
    bob = WebPlayer(web_b, "Bob", "10.0.0.2")
    bob.client.send({"type": "join", "table": table.id})
    wes = Client(web_b, peer="10.0.0.3")
    wes.send({"type": "watch", "table": table.id})
    c.run(0.5)
    ann.client.send({"type": "start"})
    c.run(0.5)
    assert rooms_of(b).current() is b.tables[table.id]        # the hall's current table, on B too
    kerz = WireClient("kerz", piece=5)
    conn = Conn(build_factory(b), kerz, 4001)
    game = table.engine.game
    for _ in range(4000):
        conn.pump()
        c.run(0.1, step=0.1)
        ann.pump()
        bob.pump()
        if "kerz" in [u.name for u in game.users.values()] and min(ann.moves, bob.moves) >= 10 \
                and kerz.names().count("DICE_ROLLED") >= 8:
            break
    else:
        raise AssertionError(f"{table.seq} actions; {[u.name for u in game.users.values()]}")
    assert [u.name for u in game.users.values()] == ["Ann", "StrongBot1", "Bob", "kerz"]
    assert table.seats[3].name == "kerz" and table.seats[3].user.process == "b"
    kerz_seat = 3
    assert kerz_seat in {m["actor"] for m in game_messages(bob.client)}   # the web is shown kerz's moves
    check_shown(c, a, b, web_b, table, bob, wes, 2)
    # kerz (PIMP, on B) was told the web players' cash as A's game has it
    conn.pump()
    assert kerz.cash == {pid: u.cash for pid, u in game.users.items() if pid in kerz.cash}


def test_web_users_on_b_watch_an_et_game_an_et_client_plays_on_a_to_its_end():
    from gamehall_et.wire.protocol import build_factory
    from tests.et.harness import Conn, Player
    c, a, b, web_a, web_b = web_cluster(bot_delay=0.0)
    ann = Conn(build_factory(a))
    ann.send("name Ann")
    assert "state commence" in ann.send("ask 0 - - e+t")      # Ann and a bot, on A
    player = Player(ann, seed=1)
    table = next(t for t in a.tables.values() if t.game.name == "et")
    c.run(0.5)
    wes = WebPlayer(web_b, "Wes", "10.0.0.3")                 # signed in; and a visitor
    wes.client.send({"type": "watch", "table": table.id})
    vic = Client(web_b, peer="10.0.0.4")
    vic.send({"type": "watch", "table": table.id})
    c.run(0.5)
    assert wes.client.last("table_state")["seat"] is None and vic.last("table_state")["table"]["id"] == table.id
    for _ in range(40_000):
        moved = player.pump()
        c.settle(3)
        if player.client.over and table.state != PLAYING:
            break
        if not moved:
            c.clock.advance(0.05)
    else:
        raise AssertionError("the game did not end")
    c.run(1)
    assert table.state == FINISHED
    for client in (wes.client, vic):
        started = client.of("table_state")[0]["seq"]
        assert [m["seq"] for m in game_messages(client)] == list(range(started + 1, table.seq + 1))
        assert {m["actor"] for m in game_messages(client)} == {0, 1}
        finished = [m for m in client.of("table") if m.get("event") == "finished"]
        assert finished and finished[-1]["result"] == table.engine.result()
        assert not client.errors()
    assert wes.moves == 0 and b.stats.actions == 0 and table.id not in b.tables


def test_a_web_player_on_b_fills_a_daide_table_of_a_with_bots_and_starts_it():
    """"Start, bots in the empty seats" from B: the owner adds the bots and starts (B's
    replica gets its seats from the owner, later: it used to add bots for ever)."""
    from gamehall_daide.wire.protocol import build_factory
    from tests.daide.client import Client as DaideClient
    from tests.daide.wire import Link, pump
    c, a, b, web_a, web_b = web_cluster(bot_delay=0.0)
    links = [Link(build_factory(a), DaideClient(f"bot{i}", seed=i)) for i in range(2)]
    pump(links)
    c.run(0.5)
    table = next(t for t in a.tables.values() if t.game.name == "diplomacy")
    bob = WebPlayer(web_b, "Bob", "10.0.0.2")
    bob.client.send({"type": "join", "table": table.id})
    c.run(0.5)
    bob.client.send({"type": "start", "fill": True})
    for _ in range(20):
        pump(links, rounds=5)
        c.run(0.1, step=0.1)
    assert not bob.client.errors(), bob.client.errors()
    assert table.state == PLAYING and len(table.seats) == 7
    assert [s.kind for s in table.seats] == ["human"] * 3 + ["bot"] * 4
    assert b.tables[table.id].state == PLAYING and len(b.tables[table.id].seats) == 7
    state = [m for m in bob.client.of("table_state") if m["table"]["state"] == PLAYING]
    assert state and state[-1]["seat"] == 2 and state[-1]["decision"] is not None
    # a second fill at a table that has started is refused in the web's words
    bob.client.send({"type": "start", "fill": True})
    assert bob.client.errors() == [f"Game #{table.id} has already started"]
