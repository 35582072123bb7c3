"""The hall-wide lobby (gamehall/cluster/presence.py): two or three Halls in one test process,
each a process of one hall on LocalBuses sharing one LocalHub and one Clock, with users over
the real NetAcquire, E&T and web protocols."""
from __future__ import annotations

import random

import pytest
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock
from twisted.python.failure import Failure

from gamehall.admin.commands import Console
from gamehall.bus.localbus import LocalBus, LocalHub
from gamehall.cluster.hallwide import join_hall
from gamehall.cluster.presence import RemotePlace
from gamehall.hall import Hall
from gamehall.lobby import LobbyError
from gamehall.store import MemoryStore
from gamehall_acquire.wire.protocol import build_factory as netacquire_factory
from gamehall_et.game import EuphratesTigrisGame
from gamehall_et.wire.protocol import build_factory as et_factory
from tests.et.harness import Conn as EtConn
from tests.helpers import RecordingSink, install_example_plugin
from tests.netacquire.harness import Conn as NaConn
from tests.netacquire.harness import acquire_game

HEARTBEAT = 2.0


class Process:
    """One process of the hall: its Hall, bus, cluster and front-end factories."""

    def __init__(self, name: str, clock, hub, store, bus_class=LocalBus, bus=None) -> None:
        install_example_plugin()
        from twisted.plugins.gamehall_nim_plugin import nim
        games = {"nim": nim, "acquire": acquire_game(), "et": EuphratesTigrisGame()}
        self.name = name
        self.hall = Hall(clock, store, games, seat_hold=30.0, bot_delay=0.5, idle_timeout=0,
                         rng=random.Random(0))
        if bus is None:
            bus = bus_class(clock, hub)
            bus.start()
        self.bus = bus
        self.cluster = join_hall(self.hall, self.bus, name, node_options={"heartbeat": HEARTBEAT})
        self.cluster.start()
        self.na = netacquire_factory(self.hall)
        self.et = et_factory(self.hall)
        self._port = 0

    def netacquire(self, nickname: str) -> NaConn:
        self._port += 1
        return NaConn(self.na, nickname, self._port)

    def console(self, line: str) -> str:
        results = []
        Console(self.hall).execute(line).addCallback(results.append)
        settle(self.hall.clock)
        assert results, f"{line!r} on {self.name} got no answer"
        return results[0]

    def kill(self) -> None:
        """SIGKILL: the bus connection is gone, nothing is said, the claims stay until they lapse."""
        self.bus.stop()
        self.cluster.presence._running = False
        self.cluster.node._running = False


def et_user(p: Process, name: str) -> EtConn:
    conn = EtConn(p.et)
    conn.send(f"name {name}")
    return conn


def settle(clock, seconds: float = 0.0) -> None:
    """Deliver what is on the bus (delivery is callLater(0)), then let ``seconds`` pass, in
    steps as a reactor would (a leap over several heartbeats would let announcements lapse)."""
    for _ in range(20):
        clock.advance(0)
    while seconds > 0:
        step = min(seconds, 0.5)
        seconds -= step
        clock.advance(step)
        for _ in range(20):
            clock.advance(0)


class RoundTripBus(LocalBus):
    """A bus that answers as a server across a network would: each operation is done at
    once (atomically, as Redis does it) and its answer comes on a later turn of the clock,
    so the claims of logins on two processes interleave."""

    def _op(self, f, *args):
        answer = Deferred()
        super()._op(f, *args).addBoth(lambda result: self.clock.callLater(0, _fire, answer, result))
        return answer


def _fire(d: Deferred, result) -> None:
    if isinstance(result, Failure):
        d.errback(result)
    else:
        d.callback(result)


_bus_class = [LocalBus]


@pytest.fixture(autouse=True, params=[LocalBus, RoundTripBus], ids=["answers-at-once", "round-trips"])
def each_bus(request):
    """Every test on a bus that answers at once and on one that answers a turn later."""
    _bus_class[0] = request.param
    yield
    _bus_class[0] = LocalBus


def hall_of(*names: str, bus_class=None):
    bus_class = bus_class or _bus_class[0]
    clock = Clock()
    hub = LocalHub(clock)
    store = MemoryStore()
    store.open()
    processes = [Process(name, clock, hub, store, bus_class) for name in names]
    settle(clock, HEARTBEAT)            # every process has seen every other
    for p in processes:
        assert set(p.cluster.node.peers) == set(names) - {p.name}
    return clock, processes


def lobby_chat(conn: NaConn) -> list[str]:
    conn.pump()
    return [line for line in conn.logic.lm if not line.startswith("#")]


def lu(conn: NaConn) -> list[str]:
    conn.pump()
    conn.logic.lm.clear()
    conn.send("LU;")
    conn.pump()
    return conn.logic.lm


# -- one list of users -----------------------------------------------------------------

def test_a_user_on_one_process_is_in_the_others_user_lists_with_its_protocol():
    clock, (a, b) = hall_of("A", "B")
    eve = et_user(b, "Eve")                   # on B before Ann comes: told of her like a local user
    settle(clock, 2)
    eve.lines()
    ann = a.netacquire("Ann")
    settle(clock, 2)                          # (the lobby's notice window)
    remote = b.hall.lobby.find("ann")
    assert remote.nickname == "Ann" and remote.frontend == "netacquire" and remote.process == "A"
    assert remote.address == "" and remote.sink is not ann.proto
    uid = b.et.id_of(remote)
    assert eve.lines() == [f"newconn {uid}", f"name {uid} Ann"]
    assert eve.send("who") == [f"who 2 {uid} Ann {eve.id} Eve"]
    bob = b.netacquire("Bob")
    assert lu(bob) == ["# Users: 3 ...", "# -> Ann in lobby ...", "# -> Bob in lobby ...",
                       "# -> Eve in lobby ...", "# End of user list."]
    # where she is goes with her: B's lists show her at her table on A
    ann.send("SG;4")
    settle(clock)
    assert remote.table == RemotePlace(1, "waiting") and remote.where() == "waiting at game #1"
    assert "# -> Ann (playing in game #1) ..." in lu(bob)
    # A sees B's users the same way
    assert a.hall.lobby.find("Bob").process == "B" and a.hall.lobby.find("Eve").frontend == "et"
    assert a.hall.lobby.find("Ann").process is None


def test_leaving_goes_to_every_lobby_and_the_local_users_are_told():
    clock, (a, b) = hall_of("A", "B")
    bob = b.netacquire("Bob")
    ann = a.netacquire("Ann")
    settle(clock, 2)
    bob.pump()
    ann.drop()
    settle(clock, 2)
    assert a.hall.lobby.find("Ann") is None and b.hall.lobby.find("Ann") is None
    assert lu(bob)[0] == "# Users: 1 ..."


def test_the_web_page_on_another_process_shows_the_whole_hall():
    from gamehall_web.site import WebHall
    from tests.web.webharness import Client, Jobs, NimView
    clock, (a, b) = hall_of("A", "B")
    site = WebHall(b.hall, {"nim": NimView()}, compute=Jobs())
    wes = Client(site)
    wes.sign_in("Wes")
    wes.send({"type": "lobby"})
    clock.advance(5)
    ann = a.netacquire("Ann")
    settle(clock, 2)
    joined = [u for m in wes.of("users") for u in m["joined"]] + \
        [m["user"] for m in wes.of("user_joined") if "user" in m]
    wes.send({"type": "lobby"})
    users = wes.last("lobby")["users"]
    assert {"nickname": "Ann", "frontend": "netacquire", "where": "in lobby"} in users
    assert {"nickname": "Wes", "frontend": "web", "where": "in lobby"} in users
    assert any("Ann" in str(m) for m in wes.messages[:-1]), joined   # told as she came
    ann.send("SG;4")
    settle(clock)
    wes.send({"type": "lobby"})
    assert {"nickname": "Ann", "frontend": "netacquire", "where": "waiting at game #1"} in wes.last("lobby")["users"]
    assert a.hall.lobby.find("Wes").frontend == "web"


# -- one namespace of nicknames -------------------------------------------------------------

def test_a_name_or_a_lookalike_logged_in_on_one_process_is_refused_on_the_other():
    clock, (a, b) = hall_of("A", "B")
    a.netacquire("Ann")
    settle(clock)
    dup = b.netacquire("ANN")
    assert dup.logic.boxes[0].startswith("E;Duplicate user Nickname;") and dup.closed
    for name in ("Ánn", "Аnn", "Ａnn", "aNN"):      # an accent, a Cyrillic А, full width, case
        with pytest.raises(LobbyError, match="Duplicate user|looks too much like Ann"):
            b.hall.login(name, "web", RecordingSink())
    assert [u.nickname for u in b.hall.lobby.users.values()] == ["Ann"]


def test_the_same_name_logged_in_on_two_processes_at_once_stays_on_one():
    clock, (a, b) = hall_of("A", "B")
    first = a.netacquire("Zed")               # both admitted by their own lobby: neither has heard
    second = b.netacquire("zed")              # of the other yet
    assert not first.closed and not second.closed
    settle(clock, 2)
    second.pump()
    assert second.closed and second.logic.boxes[-1].startswith("E;Disconnected;Duplicate user Nickname zed")
    assert not first.closed
    for p in (a, b):
        zeds = [u for u in p.hall.lobby.users.values() if u.key == "zed"]
        assert [(u.nickname, u.process) for u in zeds] == [("Zed", None if p is a else "A")]
    assert b.hall.lobby.find("zed").process == "A"        # listed once the loser is gone


def test_lookalikes_logged_in_at_once_on_two_processes_keep_one():
    clock, (a, b) = hall_of("A", "B")
    one = b.hall.login("Kim", "nim", RecordingSink())
    other_sink = RecordingSink()
    other = a.hall.login("Кim", "nim", other_sink)        # Cyrillic К: looks the same
    settle(clock, 2)
    assert other_sink.disconnected.startswith("Duplicate user Nickname Кim")
    assert a.hall.lobby.find("Кim") is None and b.hall.lobby.find("Кim") is None
    assert a.hall.lobby.find("Kim").process == "B" and b.hall.lobby.find("Kim") is one
    assert other.nickname == "Кim"


def test_a_name_of_a_killed_process_is_free_at_once_on_another():
    clock, (a, b) = hall_of("A", "B")
    a.netacquire("Ann")
    settle(clock)
    a.kill()
    settle(clock, 3 * HEARTBEAT + 1)       # its heartbeat lapses; its claims would last 30 s
    assert b.hall.lobby.find("Ann") is None
    back = b.netacquire("Ann")             # the same player, reconnecting to B
    settle(clock)
    assert not back.closed and b.hall.lobby.find("Ann").process is None


def test_a_killed_process_users_leave_the_other_lobbies_after_the_heartbeat_lapses():
    clock, (a, b, c) = hall_of("A", "B", "C")
    a.netacquire("Ann")
    a.hall.login("Nim Player", "nim", RecordingSink())
    bob = b.netacquire("Bob")
    cy = c.hall.login("Cy", "nim", RecordingSink())
    settle(clock, 2)
    assert len(b.hall.lobby.users) == len(c.hall.lobby.users) == 4
    a.kill()
    settle(clock, HEARTBEAT)
    assert b.hall.lobby.find("Ann") is not None          # not yet: one beat is not a lapse
    settle(clock, 3 * HEARTBEAT)
    for p in (b, c):
        assert sorted(p.hall.lobby.users) == ["bob", "cy"], p.name
    assert lu(bob)[0] == "# Users: 2 ..."
    assert cy.sink.lobby[-1][0] in ("user_left", "users_changed")


# -- one lobby chat -----------------------------------------------------------------------

def test_chat_from_one_process_reaches_every_users_once_in_order_in_their_words():
    clock, (a, b) = hall_of("A", "B")
    ann = a.netacquire("Ann")
    bob = b.netacquire("Bob")
    eve = et_user(b, "Eve")
    settle(clock, 2)
    eve.lines()
    for line in ("one", "two", "three"):
        ann.send(f'BM;Lobby,"{line}"')
    settle(clock)
    uid = b.et.id_of(b.hall.lobby.find("Ann"))
    assert eve.lines() == [f"say {uid} Ann: one", f"say {uid} Ann: two", f"say {uid} Ann: three"]
    assert lobby_chat(bob)[-3:] == ["Ann: one", "Ann: two", "Ann: three"]
    assert lobby_chat(ann)[-3:] == ["Ann: one", "Ann: two", "Ann: three"]   # once, not echoed back
    eve.send("say and back from et")
    settle(clock)
    assert lobby_chat(ann)[-1] == "Eve: and back from et"
    assert lobby_chat(ann).count("Eve: and back from et") == 1
    assert lobby_chat(bob)[-1] == "Eve: and back from et"


def test_an_operators_say_reaches_the_whole_hall_and_counts_every_process():
    clock, (a, b, c) = hall_of("A", "B", "C")
    ann = a.netacquire("Ann")
    bob = b.netacquire("Bob")
    sinks = [c.hall.login(n, "nim", RecordingSink()).sink for n in ("Cy", "Di")]
    settle(clock, 2)
    assert b.console("say maintenance at noon") == \
        "Announcement sent to 4 users (1 on this process, 3 on the others)."
    assert lobby_chat(ann)[-1] == "*** maintenance at noon" and lobby_chat(bob)[-1] == "*** maintenance at noon"
    assert all(sink.chat == [("*", "maintenance at noon")] for sink in sinks)
    c.kill()                                # still listed: its heartbeat has not lapsed yet
    results = []
    Console(b.hall).execute("say again").addCallback(results.append)
    settle(clock)
    assert not results                      # waiting for C's count
    settle(clock, 5)
    assert results == ["Announcement sent to 2 users (1 on this process, 1 on the others). "
                       "No count from C (their users may have it)."]


# -- the console ------------------------------------------------------------------------------

def test_who_lists_every_user_of_the_hall_with_its_process():
    clock, (a, b) = hall_of("A", "B")
    ann = a.netacquire("Ann")
    b.hall.login("Bob", "nim", RecordingSink(), address="10.0.0.2:4000")
    ann.send("SG;4")
    settle(clock)
    lines = b.console("who").splitlines()
    assert lines[0].split() == ["NICKNAME", "FRONT", "END", "ADDRESS", "WHERE", "PROCESS"]
    assert lines[1].split() == ["Ann", "netacquire", "-", "waiting", "at", "game", "#1", "A"]
    assert lines[2].split() == ["Bob", "nim", "10.0.0.2:4000", "in", "lobby", "B", "(this)"]
    assert lines[3] == "2 users (1 on this process)"
    # shutting B down disconnects B's users only: A's go on
    console = Console(b.hall)
    assert console.execute("shutdown").result == "Shut the hall down and disconnect 1 user? Type yes to confirm."
    console.execute("yes")
    assert b.hall.lobby.find("Bob").sink.disconnected == "The hall is shutting down"
    ann.pump()
    assert not ann.closed


def test_kick_of_a_user_on_another_process_is_done_there():
    clock, (a, b) = hall_of("A", "B")
    ann = a.netacquire("Ann")
    settle(clock)
    assert b.console("kick ann") == "Kicked Ann (netacquire) on process A."
    ann.pump()
    assert ann.logic.boxes[-1] == "E;Disconnected;Kicked by the operator" and ann.closed
    settle(clock)
    assert a.hall.lobby.find("Ann") is None and b.hall.lobby.find("Ann") is None
    assert b.console("kick Ann") == "error: No user called Ann"


def test_kick_across_processes_says_why_it_could_not_be_done():
    clock, (a, b) = hall_of("A", "B")
    a.netacquire("Ann")
    settle(clock)
    # gone from A between B's look and A's turn: A refuses, with the reason
    a.hall.lobby.find("Ann").sink.transport.loseConnection()
    a.hall.logout(a.hall.lobby.find("Ann"))
    assert b.hall.lobby.find("Ann") is not None
    assert b.console("kick Ann") == "error: No user called Ann on process A"
    a.netacquire("Ann")
    settle(clock)
    a.kill()
    results = []
    Console(b.hall).execute("kick Ann").addCallback(results.append)
    settle(clock, 10)
    assert results and results[0].startswith("error: Ann is on process A, which did not answer")


def test_stats_show_this_process_and_each_other():
    clock, (a, b, c) = hall_of("A", "B", "C")
    a.netacquire("Ann")
    b.netacquire("Bob")
    settle(clock)
    text = b.console("stats")
    assert text.startswith("This process (B):\n  Uptime 0:00:0")
    assert "  Users: 1 on this process, 1 on the others" in text
    assert "Process A:\n  Uptime" in text and "Process C:\n  Uptime" in text
    a_part = text.split("Process A:\n", 1)[1].split("Process C:", 1)[0]
    assert "netacquire  1" in a_part
    c.kill()
    results = []
    Console(b.hall).execute("stats").addCallback(results.append)
    settle(clock, 11)
    assert results and results[0].endswith("Process C: no answer")


# -- losses and the bus down ----------------------------------------------------------------------

def test_a_lost_presence_message_is_noticed_and_mended_by_a_snapshot():
    clock, (a, b) = hall_of("A", "B")
    b.bus.is_up = False                   # B misses what is delivered now (at most once)
    a.hall.login("Ann", "nim", RecordingSink())
    settle(clock)
    b.bus.is_up = True
    assert b.hall.lobby.find("Ann") is None
    a.hall.login("Abe", "nim", RecordingSink())     # the next one shows the gap
    settle(clock)
    assert b.hall.lobby.find("Ann").process == "A" and b.hall.lobby.find("Abe").process == "A"


def test_the_bus_down_locks_nobody_out_and_names_are_claimed_again_when_it_is_back():
    clock, (a, b) = hall_of("A", "B")
    a.hall.login("Ann", "nim", RecordingSink())
    settle(clock)
    b.bus.stop()                                   # B is cut off from the bus
    lee = b.netacquire("Lee")                      # admitted on B's own check
    kim_b = b.netacquire("Kim")
    with pytest.raises(LobbyError):                # what B still knows of A is still refused
        b.hall.login("ann", "nim", RecordingSink())
    settle(clock)
    assert not lee.closed and not kim_b.closed
    kim_a = a.netacquire("kim")                    # A does not know of B's Kim: admitted, claimed
    settle(clock, 4 * HEARTBEAT)
    assert a.hall.lobby.find("Lee") is None        # B's users left A's lobby with its heartbeat
    assert b.hall.lobby.find("Ann") is not None    # B keeps what it knew
    b.bus.start()                                  # back: B claims its names, tells and asks
    b.bus.on_state(True)
    settle(clock, HEARTBEAT)
    kim_b.pump()
    assert kim_b.closed and "Duplicate user Nickname Kim" in kim_b.logic.boxes[-1]
    assert not kim_a.closed and not lee.closed
    assert a.hall.lobby.find("Lee").process == "B"
    assert b.hall.lobby.find("kim").process == "A"
    assert sorted(a.hall.lobby.users) == sorted(b.hall.lobby.users) == ["ann", "kim", "lee"]


def test_without_on_state_the_renewal_finds_the_bus_back():
    clock, (a, b) = hall_of("A", "B")
    b.bus.stop()
    b.hall.login("Lee", "nim", RecordingSink())
    settle(clock, 4 * HEARTBEAT)
    b.bus.start()
    settle(clock, 10)                              # the next renewal (every 10 s)
    settle(clock, HEARTBEAT)
    assert a.hall.lobby.find("Lee").process == "B"
    assert b.bus.hub.get("claim:nick:lee") == "B"


def test_a_claim_is_renewed_while_logged_in_and_released_at_logout():
    clock, (a, b) = hall_of("A", "B")
    user = a.hall.login("Ann", "nim", RecordingSink())
    settle(clock, 100)
    assert a.bus.hub.get("claim:nick:ann") == "A"
    a.hall.logout(user)
    settle(clock)
    assert a.bus.hub.get("claim:nick:ann") is None
    assert b.hall.login("ann", "nim", RecordingSink()).process is None


def test_one_process_without_a_bus_has_no_cluster_and_chat_stays_local():
    from tests.helpers import make_hall
    hall = make_hall()
    assert hall.cluster is None and hall.lobby.relay is None
    sink = RecordingSink()
    hall.login("Ann", "nim", sink)
    assert hall.say("hello") == 1 and sink.chat == [("*", "hello")]
    assert Console(hall).execute("who").result.splitlines()[0].split() == \
        ["NICKNAME", "FRONT", "END", "ADDRESS", "WHERE"]


class OwnedElsewhere:
    """How ``hall.tables`` lists a table another process runs (the cluster's table part):
    here only what the console reads to forward a command, its number and its owner."""

    def __init__(self, table_id: int, owner: str) -> None:
        self.id, self.owner = table_id, owner


def test_close_and_bot_on_a_table_another_process_runs_are_done_by_it():
    clock, (a, b) = hall_of("A", "B")
    alice_sink, bob_sink = RecordingSink(), RecordingSink()
    alice = a.hall.login("alice", "nim", alice_sink)
    bob = a.hall.login("bob", "nim", bob_sink)
    table = a.hall.create_table("nim", creator=alice)
    table.join(bob)
    table.start(alice)
    settle(clock)
    b.hall.tables[table.id] = OwnedElsewhere(table.id, "A")
    assert b.console(f"bot {table.id} 2 perfect") == \
        f"Game #{table.id} seat 2 (bob) is now played by bot perfect on process A."
    assert table.seats[1].kind == "bot" and bob.table is None
    assert b.console(f"bot {table.id} 5") == f"error: Game #{table.id} has no seat 5 (on process A)"
    assert b.console(f"close #{table.id}") == f"Closed game #{table.id} on process A."
    assert table.id not in a.hall.tables and alice_sink.names()[-1] == "aborted"
    b.hall.tables[99] = OwnedElsewhere(99, "A")          # A does not run it (any more)
    assert b.console("close 99") == "error: No game #99 (on process A)"
    a.kill()
    results = []
    Console(b.hall).execute("close 99").addCallback(results.append)
    settle(clock, 11)
    assert results and results[0].startswith("error: process A, which runs it, did not answer")


def test_names_claimed_over_a_bus_with_round_trips_keep_one_of_each_lookalike_group():
    clock, (a, b, c) = hall_of("A", "B", "C", bus_class=RoundTripBus)
    sinks = {}
    for p, name in ((a, "Kim"), (b, "kim"), (c, "Кim"),           # one look, three processes
                    (a, "Lou"), (b, "Max"), (c, "Ned")):          # and three different names
        sinks[p.name, name] = RecordingSink()
        p.hall.login(name, "nim", sinks[p.name, name])
    settle(clock, 2)
    stayed = [key for key, sink in sinks.items() if sink.disconnected is None]
    assert len([key for key in stayed if key[1].casefold() in ("kim", "кim")]) == 1
    assert {name for _, name in stayed} >= {"Lou", "Max", "Ned"}
    for key, sink in sinks.items():
        if key not in stayed:
            assert sink.disconnected.startswith(f"Duplicate user Nickname {key[1]}")
    for p in (a, b, c):
        assert sorted(u.nickname for u in p.hall.lobby.users.values()) == sorted(name for _, name in stayed)


def test_a_user_gone_before_its_claim_is_answered_leaves_no_claim_and_is_never_announced():
    clock, (a, b) = hall_of("A", "B", bus_class=RoundTripBus)
    quick = a.hall.login("Quick", "nim", RecordingSink())
    a.hall.logout(quick)
    settle(clock, 2)
    assert a.bus.hub.get("claim:nick:quick") is None
    assert b.hall.lobby.find("Quick") is None and not b.cluster.presence.remote.get("A")
    assert b.hall.login("quick", "nim", RecordingSink()).process is None


def test_users_from_before_a_long_outage_are_listed_again_and_keep_their_names():
    clock, (a, b) = hall_of("A", "B")
    old = b.netacquire("Old")
    settle(clock)
    assert a.hall.lobby.find("Old").process == "B"
    b.bus.stop()
    settle(clock, 45)                     # longer than a claim lives: B's claims lapse
    assert a.hall.lobby.find("Old") is None and a.bus.hub.get("claim:nick:old") is None
    b.bus.start()
    b.bus.on_state(True)
    settle(clock, HEARTBEAT)
    assert a.hall.lobby.find("Old").process == "B" and not old.closed
    assert a.bus.hub.get("claim:nick:old") == "B"
    with pytest.raises(LobbyError):
        a.hall.login("OLD", "nim", RecordingSink())


def test_users_of_other_processes_come_in_the_lobbys_batched_notices():
    clock, (a, b) = hall_of("A", "B")
    watcher = RecordingSink()
    b.hall.login("Watcher", "nim", watcher)
    settle(clock, 5)
    watcher.lobby.clear()
    for name in ("U1", "U2", "U3", "U4"):
        a.hall.login(name, "netacquire", RecordingSink())
    settle(clock, 2)
    assert watcher.lobby[0] == ("user_joined", {"nickname": "U1", "frontend": "netacquire"})
    assert watcher.lobby[1] == ("users_changed", {"joined": [{"nickname": n, "frontend": "netacquire"}
                                                             for n in ("U2", "U3", "U4")], "left": []})
    assert len(watcher.lobby) == 2


def test_a_process_stopped_cleanly_takes_its_users_and_names_away_at_once():
    clock, (a, b) = hall_of("A", "B")
    b.netacquire("Bob")
    settle(clock)
    assert a.hall.lobby.find("Bob").process == "B"
    b.cluster.stop()
    settle(clock)                          # no heartbeat needs to lapse
    assert a.hall.lobby.find("Bob") is None and "B" not in a.cluster.node.peers
    assert a.bus.hub.get("claim:nick:bob") is None
    assert b.hall.lobby.relay is None
