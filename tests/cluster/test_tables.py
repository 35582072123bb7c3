"""Tables across processes (issue 22): two Halls on one LocalHub, one clock, one store; a
table is run by one of them and played, watched and listed from the other, each user in
its own protocol's words."""
from __future__ import annotations

import random


from gamehall.cluster.replica import ReplicaTable
from gamehall.table import PLAYING, Table
from gamehall_web.site import WebHall
from gamehall_web.views import find_views
from tests.cluster.harness import Cluster, bot_table
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
        """Answer the latest decision shown since the last pump (a newer message without one
        means it is gone: answered by the turn timer, or not ours)."""
        new = self.client.messages[self.read:]
        self.read += len(new)
        decision = None
        for message in new:
            if message["type"] in ("decision", "table", "table_state") and "decision" in message:
                decision = message["decision"]
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
    # B lists A's table (as a replica) and Bob joins it there
    assert isinstance(b.tables[table.id], ReplicaTable) and b.tables[table.id].owner == "a"
    bob.client.send({"type": "join", "table": table.id})
    assert not bob.client.of("table_state")      # told once the owner has answered...
    c.settle()
    assert bob.client.last("table_state")["seat"] == 1      # ...with Bob in his seat
    c.run(0.5)
    assert [s.name for s in table.seats] == ["Ann", "Bob"]
    assert [s.name for s in b.tables[table.id].seats] == ["Ann", "Bob"]
    # Ann is shown connected on B (a stand-in: told nothing there), and B tells only Bob
    assert b.tables[table.id].seats[0].user.nickname == "Ann"
    assert [u.nickname for u in b.tables[table.id].audience()] == ["Bob"]
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
    # the owner's turn timer is shown on B: the deadline came with each decision
    deadlines = [m["deadline_in"] for m in bob.client.messages if m["type"] == "decision" and m["decision"]]
    assert deadlines and all(d is not None and 0 < d <= 300 for d in deadlines)
    last_view = [m for m in games if "view" in m][-1]["view"]
    assert last_view == web_b.view(table.game).seat(table.engine, 1)
    # Ann (NetAcquire) saw Bob's moves: the check_view above held after every read
    assert "GO" in ann.codes() or any(code == "GD" for code in ann.codes())
    # the store's record is the one a one-process game of these actions makes
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


def two_player_table(c, seed=1):
    """Ann (NetAcquire, on A) makes a 2-player table; Bob (web, on B) joins it; started."""
    a, b = c.halls["a"], c.halls["b"]
    ann = Conn(build_factory(a), "Ann", 1001, seed=seed)
    ann.spectator = False
    web_b = WebHall(b, find_views(), compute=Jobs())
    bob = WebPlayer(web_b, "Bob")
    ann.send("SG;2")
    c.run(0.5)
    ann.pump()
    table = next(iter(a.tables.values()))
    bob.client.send({"type": "join", "table": table.id})
    c.run(0.5)
    ann.pump()
    ann.send("PG;")
    c.run(0.5)
    return a, b, ann, web_b, bob, table


def play(c, table, conns, web_players, until, limit=4000):
    for _ in range(limit):
        if until():
            return
        c.run(0.05)
        for conn in conns:
            conn.pump(check_view(table))
        for player in web_players:
            player.pump()
    raise AssertionError("the condition was never met")


def test_a_table_of_a_is_in_bs_lists_and_goes_when_it_is_over():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    sink = RecordingSink()
    ann = a.login("Ann", "test", sink)
    table = a.create_table("acquire", max_seats=3, creator=ann)
    web_b = WebHall(b, find_views(), compute=Jobs())
    carl = Client(web_b, peer="10.0.0.3")
    carl.sign_in("Carl")
    carl.send({"type": "lobby"})
    c.run(1.5)
    assert b.tables[table.id].summary() == table.summary()
    assert table.id in [line["id"] for line in carl.table_lines()]       # B's web lobby lists it
    table.add_bot()
    c.run(1.5)
    assert b.tables[table.id].summary()["seats"] == table.summary()["seats"]
    a.close_table(table.id)
    c.run(1.5)
    assert table.id not in b.tables
    assert table.id in [r for m in carl.messages if m["type"] in ("lobby_tables", "lobby_table_removed")
                        for r in m.get("removed", [m.get("id")])]


def test_a_spectator_on_b_sees_the_game_and_bots_and_timers_run_only_on_the_owner():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    sink = RecordingSink()
    ann = a.login("Ann", "test", sink)
    table = a.create_table("acquire", max_seats=3, creator=ann, options={"turn_timeout": 5})
    table.leave(ann)
    table = a.create_table("acquire", max_seats=3, options={"turn_timeout": 5})
    table.add_bot()
    table.add_bot()
    table.start()
    c.run(0.5)
    web_b = WebHall(b, find_views(), compute=Jobs())
    wes = Client(web_b, peer="10.0.0.4")
    wes.sign_in("Wes")
    wes.send({"type": "watch", "table": table.id})
    replica = b.tables[table.id]
    play(c, table, [], [], lambda: table.state != PLAYING)
    games = [m for m in wes.messages if m["type"] == "table" and m.get("event") == "game"]
    assert games and games[-1]["seq"] == table.seq
    assert [m["seq"] for m in games] == list(range(games[0]["seq"], table.seq + 1))
    assert wes.of("table_state")[0]["seat"] is None
    assert all("decision" not in m for m in games)
    assert [m for m in wes.messages if m.get("event") == "finished"]
    # every move was the owner's: B applied none, made no bot and set no timer
    assert b.stats.actions == 0 and a.stats.actions == table.seq
    assert all(seat.brain is None for seat in replica.seats)
    assert replica._bot_call is None and replica._timer is None


def test_an_illegal_move_from_b_is_refused_at_once_in_the_webs_words():
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    bob.answer = False
    play(c, table, [ann], [bob], lambda: table.engine.pending_seat() == 1)
    bob.pump()
    seq = table.seq
    bob.client.send({"type": "act", "action": {"play_tile": "no such tile"}})
    error = bob.client.last("error")
    assert error["request"] == "act" and error["message"]
    c.run(0.5)
    assert table.seq == seq                      # nothing reached the owner
    decision = bob.client.last("decision")
    assert decision["decision"] is not None and decision["seat"] == 1


def test_a_move_the_owner_refuses_after_the_fact_is_told_and_asked_again():
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    bob.answer = False
    play(c, table, [ann], [bob], lambda: table.engine.pending_seat() == 1 and table._told == table.seq)
    bob.pump()
    choice = bob.client.last("decision")["decision"] if bob.client.of("decision") else None
    decision = [m for m in bob.client.messages if m.get("decision")][-1]["decision"]
    replica = b.tables[table.id]
    seq = table.seq
    bob.client.send({"type": "act", "action": decision["choices"][0]["action"]})
    # the owner's turn timer plays for Bob before Bob's move reaches it
    table._turn_timed_out(1, table.seq)
    c.run(0.5)
    assert table.seq == seq + 1                  # the timer's move, not Bob's too
    notices = [m for m in bob.client.messages if m["type"] == "table_chat" and m["from"] == "*"]
    assert notices and "another move came first" in notices[-1]["text"]
    del choice, replica


def carried(message: dict) -> list[dict]:
    """The table-channel messages one bus message carries (several in a "many")."""
    return message["m"] if message.get("t") == "many" else [message]


def test_a_move_lost_on_the_bus_is_filled_from_the_store():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    tables_b = b.cluster.tables
    dropped = []
    original = tables_b._on_table_message

    def lossy(channel, message):
        if any(m.get("t") == "act" and m["seq"] == 5 for m in carried(message)) and not dropped:
            dropped.append(message)              # the bus was cut for this one
            return
        original(channel, message)
    tables_b._on_table_message = lossy
    sink = RecordingSink()
    table = a.create_table("acquire", max_seats=3)
    table.add_bot()
    table.add_bot()
    table.start()
    c.run(0.5)
    bob = b.login("Bob", "test", sink)
    b.tables[table.id].watch(bob)
    play(c, table, [], [], lambda: table.seq >= 12)
    c.run(1)
    assert dropped
    replica = b.tables[table.id]
    seqs = [d["seq"] for _, e, d in sink.events if e == "game"]
    assert seqs == list(range(seqs[0], seqs[-1] + 1)) and 5 in seqs
    assert replica.seq == table.seq and replica.engine.result() == table.engine.result() \
        if table.engine.is_over() else replica.engine.cash == table.engine.cash
    assert replica.engine.board == table.engine.board


def test_one_process_hall_has_no_cluster():
    from tests.helpers import make_hall
    hall = make_hall()
    assert hall.cluster is None
    table = hall.create_table("nim")
    assert table.relay is None


def test_when_the_owner_dies_another_process_takes_the_table_over_from_the_store():
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    play(c, table, [ann], [bob], lambda: table.seq >= 10 and table._told == table.seq)
    told = table.seq
    c.kill("a")                                  # SIGKILL: no goodbye, its claims lapse
    bob.pump()
    c.run(20)                                    # gone after 3 heartbeats; the claim lapses after 3 more
    taken = b.tables[table.id]
    assert isinstance(taken, Table) and not isinstance(taken, ReplicaTable)
    assert taken.relay is b.cluster.tables
    assert taken.seq >= told                     # every told action is there
    assert taken.seats[1].user is not None and taken.seats[1].user.nickname == "Bob"   # seated again
    # Ann's seat is held for her: she reconnects (through the load balancer, to B) and has it
    assert taken.seats[0].user is None and taken.held_seat("Ann") == 0
    ann_again = Conn(build_factory(b), "Ann", 1002, seed=1)
    ann_again.spectator = False
    c.settle()
    assert taken.seats[0].user is ann_again.proto.user
    play(c, taken, [ann_again], [bob], lambda: taken.state != PLAYING, limit=20000)
    assert taken.state == "finished" and taken.seats[0].kind == "human"
    assert "GO" in ann_again.codes() or "GD" in ann_again.codes()
    box = []
    c.store.load_table(table.id).addCallback(box.append)
    c.settle()
    row = box[0]
    engine = acquire_game().new_engine(row["variant"], [s["name"] for s in row["seats"]], row["seed"])
    for seat, action in row["actions"]:
        engine.apply(seat, action)
    assert row["state"] == "finished" and row["result"] == engine.result()


def test_a_process_stopping_does_not_take_over_the_tables_of_one_gone():
    """Both workers of a hall stop together: the one that sees the other leave first is
    stopping too, and takes none of its tables (its store is closing; the next start, or a
    process staying, restores them)."""
    c = acquire_cluster()
    a, b, ann, web_b, bob, table = two_player_table(c)
    play(c, table, [ann], [bob], lambda: table.seq >= 6)
    b.cluster.tables.stop()                      # B is stopping (HallService.stopService)
    c.kill("a")
    c.run(20)
    assert isinstance(b.tables[table.id], ReplicaTable)


def test_after_a_take_over_the_other_processes_follow_the_new_owner():
    c = acquire_cluster(names=("a", "b", "c"))
    a, b, hall_c = c.halls["a"], c.halls["b"], c.halls["c"]
    table = a.create_table("acquire", max_seats=3, options={"turn_timeout": 5})
    c.run(0.5)
    bob, carl = RecordingSink(), RecordingSink()
    user_b = b.login("Bob", "test", bob, "10.0.0.2")
    user_c = hall_c.login("Carl", "test", carl, "10.0.0.3")
    b.tables[table.id].join(user_b)
    c.run(0.5)
    table.add_bot()
    table.start()
    c.run(0.5)
    hall_c.tables[table.id].watch(user_c)
    play(c, table, [], [], lambda: table.seq >= 6)
    c.kill("a")
    c.run(20)
    owners = [h for h in (b, hall_c) if not isinstance(h.tables[table.id], ReplicaTable)]
    assert len(owners) == 1                      # one owner, never two
    owner = owners[0]
    other = hall_c if owner is b else b
    replica = other.tables[table.id]
    assert replica.owner == owner.cluster.node.process_id
    taken = owner.tables[table.id]
    seat = taken.seats[[s.name for s in taken.seats].index("Bob")]
    assert seat.user is not None                 # Bob sits again, on whichever process runs it
    assert [u.nickname for u in taken.spectators] == ["Carl"]
    before = len([e for _, e, _ in carl.events if e == "game"])
    play(c, taken, [], [], lambda: taken.state != PLAYING, limit=40000)
    seqs = [d["seq"] for _, e, d in carl.events if e == "game"]
    assert len(seqs) > before and seqs[-1] == taken.seq
    assert "finished" in carl.names() and "finished" in bob.names()


def test_a_netacquire_player_on_b_plays_a_table_run_by_a_against_its_bot():
    c = acquire_cluster(seed=5)
    a, b = c.halls["a"], c.halls["b"]
    table = a.create_table("acquire", max_seats=2)
    table.add_bot()
    c.run(0.5)
    ann = Conn(build_factory(b), "Ann", 1001, seed=2)
    ann.spectator = False
    ann.send(f"JG;{table.id},-1")
    c.run(0.5)
    ann.pump()
    replica = b.tables[table.id]
    assert [s.name for s in table.seats] == [table.seats[0].name, "Ann"] and replica.seat_of(ann.proto.user) == 1
    forwarded = []
    forward = b.cluster.tables.forward
    b.cluster.tables.forward = lambda t, op, *rest: (forwarded.append(op), forward(t, op, *rest))
    ann.send("PG;")
    c.run(0.5)
    assert table.state == PLAYING
    for _ in range(20000):
        c.run(0.05)
        busy = ann.pump(check_view(replica))      # what Ann sees is the replica's engine...
        if table.state != PLAYING and not busy:
            break
    assert table.state == "finished"
    assert replica.engine is not None and replica.engine.result() == table.engine.result()   # ...the owner's
    assert replica.seq == table.seq and b.stats.actions == 0
    assert forwarded.count("act") > 10 and "start" in forwarded    # Ann's moves went to A
    assert "GO" in ann.codes() or "GD" in ann.codes()
    assert table.id not in b.tables and ann.proto.user.table is None


def test_two_processes_seating_one_last_seat_at_once_one_gets_it_the_other_is_told():
    c = acquire_cluster(names=("a", "b", "c"))
    a, b, hall_c = c.halls["a"], c.halls["b"], c.halls["c"]
    table = a.create_table("acquire", max_seats=2)
    table.add_bot()
    c.run(0.5)
    bob, carl = RecordingSink(), RecordingSink()
    user_b = b.login("Bob", "test", bob)
    user_c = hall_c.login("Carl", "test", carl)
    assert b.tables[table.id].join(user_b) == 1          # both shown seated at once...
    assert hall_c.tables[table.id].join(user_c) == 1
    assert hall_c.tables[table.id].seat_of(user_c) == 1
    c.run(0.5)
    assert [s.name for s in table.seats][1] == "Bob"     # ...the owner seated the first asked
    assert user_b.table is b.tables[table.id] and b.tables[table.id].seat_of(user_b) == 1
    assert user_c.table is None and hall_c.tables[table.id].seat_of(user_c) is None
    assert [s.name for s in hall_c.tables[table.id].seats] == [table.seats[0].name, "Bob"]
    assert ("left" in carl.names() and
            [d["text"] for _, e, d in carl.events if e == "chat" and d["nickname"] == "*"][-1].startswith("Not done: Player limit"))


class BotSink(RecordingSink):
    """A player that answers each decision it is told with a bot's choice, from the table it
    was told of (a replica: its engine)."""

    def __init__(self, clock, delay=0.2):
        super().__init__()
        self.clock, self.delay, self.user = clock, delay, None
        self.bot = acquire_game().new_bot("random", 1)

    def table_event(self, table, event, detail):
        super().table_event(table, event, detail)
        if event == "decision":
            self.clock.callLater(self.delay, self.answer, table, detail["seat"], table.seq)

    def answer(self, table, seat, seq):
        if table.seq == seq and self.user.table is table and table.engine.pending_seat() == seat:
            table.act(self.user, self.bot.choose(table.engine, seat))


def test_after_a_bus_cut_the_replica_reads_what_it_missed_and_asks_its_player_again():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    table = a.create_table("acquire", max_seats=2)
    table.add_bot()
    c.run(0.5)
    bob = BotSink(c.clock)
    bob.user = b.login("Bob", "test", bob)
    replica = b.tables[table.id]
    replica.join(bob.user)
    c.run(0.5)
    table.start()
    play(c, table, [], [], lambda: table.seq >= 6 and table.engine.pending_seat() == 0
         and table._told == table.seq and table._bot_call is not None)
    bus_b = b.cluster.node.bus
    bus_b.stop()                                 # B is cut off from the bus (the bot is to move)...
    cut_at = table.seq
    bob_acts = len(bob.events)
    play(c, table, [], [], lambda: table.seq > cut_at and table.engine.pending_seat() == 1
         and table._told == table.seq)
    c.run(0.5)
    assert replica.seq < table.seq               # ...and missed moves, and Bob's decision
    assert len(bob.events) == bob_acts
    bus_b.start()
    bus_b.on_state(True)                         # the bus is back
    c.run(0.5)
    assert replica.seq >= table.seq - 1
    play(c, table, [], [], lambda: table.state != PLAYING, limit=20000)
    assert table.state == "finished" and replica.seq == table.seq
    seqs = [d["seq"] for _, e, d in bob.events if e == "game"]
    assert seqs == list(range(seqs[0], table.seq + 1))        # every move shown, in order
    assert "finished" in bob.names()


def test_the_owner_publishes_a_tables_moves_only_while_another_process_shows_it():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    published = []
    publish = a.cluster.node.bus.publish
    a.cluster.node.bus.publish = lambda channel, message: (published.append(channel), publish(channel, message))[1]
    table = bot_table(a)
    play(c, table, [], [], lambda: table.seq >= 10)
    channel = f"table.{table.id}"
    assert published.count(channel) == 1         # the first, heard by nobody, and then none
    wes = RecordingSink()
    user = b.login("Wes", "test", wes)
    b.tables[table.id].watch(user)
    c.run(0.5)
    before, seq = published.count(channel), table.seq
    play(c, table, [], [], lambda: table.seq >= seq + 5)
    assert published.count(channel) >= before + 5
    assert [d["seq"] for _, e, d in wes.events if e == "game"][-1] == table.seq
    b.tables[table.id].leave(user)
    play(c, table, [], [], lambda: table.seq >= seq + 10)
    after = published.count(channel)
    play(c, table, [], [], lambda: table.seq >= seq + 15)
    assert published.count(channel) == after     # nobody follows it again: quiet


def test_a_lost_end_of_game_is_read_from_the_store_when_the_table_leaves_the_list():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    tables_b = b.cluster.tables
    original = tables_b._on_table_message
    lost = []

    def lossy(channel, message):
        if any(m.get("t") == "ev" and m["event"] == "finished" or lost and m.get("t") == "act"
               for m in carried(message)):
            lost.append(message)             # the bus was cut from here on
            return
        original(channel, message)
    tables_b._on_table_message = lossy
    table = bot_table(a)
    c.run(0.5)
    wes = RecordingSink()
    user = b.login("Wes", "test", wes)
    b.tables[table.id].watch(user)
    play(c, table, [], [], lambda: table.state != PLAYING, limit=40000)
    c.run(2)
    assert lost and table.id not in b.tables and user.table is None
    finished = [d for _, e, d in wes.events if e == "finished"]
    assert finished == [{"result": table.engine.result()}]
    assert [d["seq"] for _, e, d in wes.events if e == "game"][-1] == table.seq


def test_the_operator_on_b_closes_a_table_of_a_and_bs_users_are_told():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    table = bot_table(a)
    c.run(0.5)
    wes = RecordingSink()
    user = b.login("Wes", "test", wes)
    b.tables[table.id].watch(user)
    c.run(1)
    b.close_table(table.id, "Closed by the operator")
    c.run(1)
    assert table.state == "aborted" and table.id not in a.tables and table.id not in b.tables
    assert ("aborted" in wes.names()) and user.table is None


def test_a_process_stopping_pauses_only_its_own_tables():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    table = bot_table(a)
    c.run(0.5)
    mine = bot_table(b)
    c.run(0.5)
    b.quiesce()
    c.run(0.5)
    assert mine.paused and not table.paused
    seq = table.seq
    c.run(3)
    assert table.seq > seq


def test_an_owner_whose_lease_was_taken_stops_at_once_and_the_taker_runs_the_table():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    table = bot_table(a)
    c.run(1)
    assert table.lease_epoch == 1 and a.cluster.tables.leases.leases == {table.store_id: 1}
    # its lease is freed in the store behind A's back (as when it lapsed), and B takes it
    # before A's next renewal (as its scan would)
    assert c.store.release_lease(table.store_id, a.cluster.tables.lease_owner, 1).result is True
    b.cluster.tables._take_now(table.store_id)
    c.settle()
    taken = b.tables[table.id]
    assert not taken.remote and taken.lease_epoch == 2
    c.run(a.cluster.tables.leases.interval)     # A's next renewal: its lease is lost, it stops
    assert table.fenced and table.seq <= taken.seq
    assert isinstance(a.tables[table.id], ReplicaTable) and a.tables[table.id].owner == "b"
    seq = table.seq
    play(c, taken, [], [], lambda: taken.state != PLAYING, limit=40000)
    assert table.seq == seq                      # no more moves from A
    row = stored(c, table.id)
    assert row["state"] == "finished" and len(row["actions"]) == taken.seq
    engine = acquire_game().new_engine(row["variant"], [s["name"] for s in row["seats"]], row["seed"])
    for seat, action in row["actions"]:
        engine.apply(seat, action)               # each action once, in order
    assert row["result"] == engine.result() == taken.engine.result()


def stored(c, table_id):
    box = []
    c.store.load_table(table_id).addCallback(box.append)
    c.settle()
    return box[0]


def test_processes_starting_on_one_store_restore_each_unfinished_table_once():
    c = acquire_cluster(names=("a",))
    a = c.halls["a"]
    tables = []
    for _ in range(3):
        table = bot_table(a)
        tables.append(table)
    c.run(3)
    c.kill("a")                                  # the whole hall stops; then two processes start
    c.run(10)                                    # (a's claims lapse)
    b = c.add("b")
    hall_c = c.add("c")
    c.run(1)
    for table in tables:
        runs = [h for h in (b, hall_c) if table.id in h.tables and not h.tables[table.id].remote]
        assert len(runs) == 1                    # one owner each, never two
        other = hall_c if runs[0] is b else b
        assert other.tables[table.id].remote and other.tables[table.id].owner == runs[0].cluster.node.process_id
    owned = [h.tables[t.id] for t in tables for h in (b, hall_c) if not h.tables[t.id].remote]
    seqs = [t.seq for t in owned]
    c.run(3)
    assert all(t.seq > seq or t.state != PLAYING for t, seq in zip(owned, seqs))   # bots play on there


def test_a_web_visitor_on_b_watches_a_table_of_a_and_stops_following_it_when_gone():
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    table = bot_table(a)
    c.run(1)
    web_b = WebHall(b, find_views(), compute=Jobs())
    visitor = Client(web_b, peer="10.0.0.9")          # no nickname: a viewer
    visitor.send({"type": "watch", "table": table.id})
    c.run(0.5)
    replica = b.tables[table.id]
    assert replica.shown and replica.viewers and replica.engine is not None
    assert visitor.last("table_state")["seat"] is None
    target = table.seq + 5
    play(c, table, [], [], lambda: table.seq >= target)
    c.run(0.5)
    games = [m for m in visitor.messages if m["type"] == "table" and m.get("event") == "game"]
    assert games and games[-1]["seq"] == table.seq == replica.seq
    visitor.send({"type": "leave"})
    c.run(0.5)
    assert not replica.shown and replica.engine is None      # nobody here shows it: no engine kept


def test_a_block_of_numbers_lost_in_a_bus_cut_is_not_numbered_from_again():
    """A's block of table numbers lapsed on the bus (a cut longer than its claim) and B took
    it: A moves to a new block, so no number is given by both."""
    c = acquire_cluster()
    a, b = c.halls["a"], c.halls["b"]
    tables_a = a.cluster.tables
    key = tables_a._blocks[0]
    first = a.create_table("acquire", max_seats=3).id
    c.hub.delete("claim:" + key)                        # lapsed while A was cut off...
    taken = []
    b.cluster.node.bus.claim(key, "b-thief", 60).addCallback(taken.append)
    c.settle()
    assert taken == [True]                              # ...and taken by another
    c.run(a.cluster.node.heartbeat * 1.5)               # A's renewal finds it gone
    assert key not in tables_a._blocks
    later = a.create_table("acquire", max_seats=3).id
    assert later // 1000 != first // 1000, (first, later)
