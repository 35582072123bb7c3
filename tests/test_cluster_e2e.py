"""One hall on two real ``twistd -n gamehall`` processes (issue 22): one PostgreSQL store,
one Redis bus, each process on its own ports; users on real sockets, each in its own
protocol's words (NetAcquire, E&T's lines, the web's JSON over WebSocket)."""
from __future__ import annotations

import json
import os
import re
import signal
import time

import pytest

from gamehall.plugins import find_frontends
from gamehall_acquire.record import game_from_record
from tests.helpers import EXAMPLE
from tests.netacquire.naclient import PlayerLogic, SocketClient
from tests.redisserver import fresh_redis_server  # noqa: F401 (fixture)
from tests.wireclient import Hall, LineClient, free_port, run_sockets_until
from tests.wsclient import WebSocketClient


class Process:
    """One hall process: its twistd child and its ports by front end."""

    def __init__(self, folder, store, bus, *extra):
        folder.mkdir(exist_ok=True)
        self.ports = {name: free_port() for name in [*find_frontends(), "nim"]}
        args = ["--store", store, "--bus", bus, "--bot-delay", "0", "--seat-hold", "60",
                "--admin", f"tcp:{free_port()}:interface=127.0.0.1", *extra]
        for name, port in self.ports.items():
            args += ["--listen", f"{name}=tcp:{port}:interface=127.0.0.1"]
        self.hall = Hall(args, folder, expect=list(self.ports), extra_path=[str(EXAMPLE)])

    def log(self) -> str:
        return "".join(self.hall.output)

    def stop(self, sig=signal.SIGTERM) -> None:
        if self.hall.proc.poll() is None:
            self.hall.kill(sig)


class WebUser(WebSocketClient):
    """A browser signed in on the web front end that answers every decision it is shown with
    its first choice (the latest shown: an older one is gone)."""

    def __init__(self, port, nickname, token=None, table=None):
        super().__init__(port, name=nickname)
        self.answering = True
        self.send({"type": "hello", "nickname": nickname,
                   **({"token": token} if token else {}), **({"table": table} if table else {})})

    def feed(self, data: bytes) -> None:
        before = len(self.messages)
        super().feed(data)
        decision = None
        for message in self.messages[before:]:
            self.seq = message.get("seq", getattr(self, "seq", 0))
            kind = message["type"]
            if kind in ("error", "table_chat") or kind == "table" and message.get("event") != "game":
                self.answered = None            # refused, or seated again: asked again, answer again
            if "decision" in message and message["type"] in ("decision", "table", "table_state"):
                decision = message["decision"]
        # each decision once (it may come with a move and again alone), as a person clicks
        key = (self.seq, json.dumps(decision, sort_keys=True))
        if decision and self.answering and key != getattr(self, "answered", None):
            self.answered = key
            self.send({"type": "act", "action": decision["choices"][0]["action"]})

    def games(self) -> list[dict]:
        return [m for m in self.messages if m["type"] == "table" and m.get("event") == "game"]

    def report(self) -> str:
        return f"{self.name}: {[m['type'] for m in self.messages[-8:]]} {self.messages[-2:]}"


def _said(client, text):
    """The E&T chat line carrying ``text`` (skipping the others)."""
    for _ in range(50):
        line = client.until("say ")
        if line.endswith(text):
            return line
    raise AssertionError(f"no say line with {text!r}")


def listed(web):
    """The table ids a web user's lobby lists by now."""
    tables = set()
    for m in web.messages:
        kind = m["type"]
        if kind == "lobby":
            tables = {t["id"] for t in m["tables"]}
        elif kind == "lobby_table":
            tables.add(m["table"]["id"])
        elif kind == "lobby_table_removed":
            tables.discard(m["id"])
        elif kind == "lobby_tables":
            tables |= {t["id"] for t in m["tables"]}
            tables -= set(m["removed"])
    return tables


def report(client) -> str:
    if isinstance(client, WebUser):
        return client.report()
    return f"{client.logic.name}: {client.logic.log[-4:]}"


def run(clients, done, timeout=30.0):
    run_sockets_until(clients, done, timeout, report)


def netacquire(port, name, seed):
    return SocketClient(port, PlayerLogic(name, seed=seed, end_game=False))


def comes_back(port, name, seed, others, within=20.0):
    """A NetAcquire player logging in again and again (each refusal is a fresh connection, as
    a person would click Connect again) until admitted or ``within`` seconds have passed."""
    deadline = time.monotonic() + within
    while True:
        client = netacquire(port, name, seed)
        run([client, *others], lambda: 3 in client.logic.states or client.logic.boxes)
        if 3 in client.logic.states:
            return client
        client.close()
        assert time.monotonic() < deadline, f"{name} refused for {within}s: {client.logic.boxes}"
        wake = time.monotonic() + 0.5          # the others read on meanwhile (no sleep)
        run(others, lambda: time.monotonic() >= wake, timeout=5)


def user_list(client, clients):
    """A NetAcquire lobby user's LU answer: the names listed."""
    client.logic.lm.clear()
    client.send("LU;")
    run(clients, lambda: "# End of user list." in client.logic.lm)
    return [m.group(1) for line in client.logic.lm for m in [re.match(r"# -> (.+?) (in lobby|\()", line)] if m]


def stored(store_url, table_id):
    """The table's row, actions and result as the PostgreSQL store holds them."""
    import psycopg
    with psycopg.connect(store_url) as db:
        state, = db.execute("SELECT state FROM gamehall_tables WHERE id = %s", (table_id,)).fetchone()
        actions = db.execute("SELECT seq, seat, action FROM gamehall_actions WHERE table_id = %s "
                             "ORDER BY seq", (table_id,)).fetchall()
        result = db.execute("SELECT result, record FROM gamehall_results WHERE table_id = %s",
                            (table_id,)).fetchone()
    return state, actions, result


@pytest.fixture
def store():
    from tests import pgserver
    return pgserver.new_database_url()


@pytest.fixture
def processes(tmp_path, store, fresh_redis_server):
    started = []

    def start(name, *extra):
        started.append(Process(tmp_path / name, store, fresh_redis_server.url, *extra))
        return started[-1]

    yield start
    for process in started:
        process.stop()


def test_users_on_two_processes_see_each_other_chat_refuse_a_lookalike_and_play_one_table(processes, store):
    a, b = processes("a"), processes("b")
    ann = netacquire(a.ports["netacquire"], "Ann", seed=1)
    run([ann], lambda: ann.logic.states[-1:] == [3])
    bob = WebUser(b.ports["web"], "Bob")
    bob.send({"type": "lobby"})
    clients = [ann, bob]
    # B's lobby lists Ann (NetAcquire, on A); A's user list has Bob (the web, on B)
    run(clients, lambda: any(u["nickname"] == "Ann" for m in bob.of("lobby") for u in m["users"])
        or any(u["nickname"] == "Ann" for m in bob.of("users") for u in m["joined"]))
    run(clients, lambda: "# Bob has entered the lobby." in ann.logic.lm)
    assert "Bob" in user_list(ann, clients)
    # chat both ways, each in its protocol's words
    ann.send('BM;Lobby,"hello from A"')
    run(clients, lambda: {"type": "chat", "from": "Ann", "text": "hello from A"} in bob.messages)
    bob.send({"type": "chat", "text": "hello from B"})
    run(clients, lambda: "Bob: hello from B" in ann.logic.lm)
    # an E&T user on B too: its `who` lists Ann and Bob, and chat goes both ways
    eve = LineClient(b.ports["et"])
    eve.until("welcome")
    eve.send("name Eve")
    run(clients, lambda: any("Eve" in line and "entered the lobby" in line for line in ann.logic.lm))
    eve.send("who")
    assert {"Ann", "Bob", "Eve"} <= set(eve.until("who ").split()[1:])
    eve.send("say hi from E&T")
    run(clients, lambda: "Eve: hi from E&T" in ann.logic.lm)
    ann.send('BM;Lobby,"hi Eve"')
    assert re.fullmatch(r"say \d+ Ann:? hi Eve", _said(eve, "hi Eve"))
    eve.close()
    # a lookalike of Ann (a Cyrillic A) is refused on B, and so is Bob's name on A
    fake = WebUser(b.ports["web"], "\u0410nn")
    run([fake], lambda: fake.of("error") or fake.of("welcome"))
    assert not fake.of("welcome") and "looks too much like Ann" in fake.of("error")[0]["message"]
    fake.close()
    bobby = netacquire(a.ports["netacquire"], "B0b", seed=9)
    run([bobby], lambda: bobby.logic.boxes)
    assert bobby.logic.boxes == ["E;Duplicate user Nickname;The nickname B0b is already in use. "
                                 "Choose another one."] and 3 not in bobby.logic.states
    bobby.close()

    # Bob (B) makes a 3-seat Acquire table with a bot; Ann (A) joins it over NetAcquire
    lobby = bob.of("lobby")[0]
    bot = next(g for g in lobby["games"] if g["name"] == "acquire")["bots"][0]
    bob.send({"type": "create", "game": "acquire", "seats": 3, "bots": [bot]})
    run(clients, lambda: bob.of("created"))
    table = bob.of("created")[0]["table"]
    run(clients, lambda: any(f"Game #{table}" in line for line in ann.logic.lm))
    ann.send(f"JG;{table},-1")
    run(clients, lambda: "Ann" in ann.logic.names())
    bob.send({"type": "start"})
    run(clients, lambda: ann.logic.ended and bob.of("table_over") or any(
        m["type"] == "table" and m.get("event") == "finished" for m in bob.messages), timeout=60)
    run(clients, lambda: ann.logic.ended, timeout=30)
    finished = next(m for m in bob.messages if m["type"] == "table" and m.get("event") == "finished")
    # each saw the other's moves: Bob every one in order, Ann's score sheet the final cash
    seqs = [m["seq"] for m in bob.games()]
    assert seqs == list(range(1, seqs[-1] + 1)), seqs
    assert {m["actor"] for m in bob.games()} == {0, 1, 2}
    a.stop(), b.stop()          # (the end is told once the last move is stored, with its write)
    state, actions, result = stored(store, table)
    assert state == "finished" and [seq + 1 for seq, _, _ in actions] == seqs   # stored from 0
    game = game_from_record(json.loads(result[1]))
    assert game.is_over() and game.players == finished["players"]
    assert ann.logic.cash() == game.cash == finished["result"]["scores"]
    for client in clients:
        client.close()


def test_sigkill_of_the_owner_mid_game_the_other_process_goes_on_and_its_user_comes_back(processes, store):
    a, b = processes("a"), processes("b")
    ann = netacquire(a.ports["netacquire"], "Ann", seed=2)
    run([ann], lambda: ann.logic.states[-1:] == [3])
    ann.send("SG;3")
    ann.send('BM;Game Room,"/bot random"')
    run([ann], lambda: ann.logic.states[-1:] == [5] and len(ann.logic.names()) == 2)
    table = int(re.search(r"Game #(\d+)", next(line for line in ann.logic.gm if "Game #" in line)).group(1))
    bob = WebUser(b.ports["web"], "Bob")
    clients = [ann, bob]
    bob.send({"type": "lobby"})
    run(clients, lambda: table in listed(bob))      # A's table, listed on B
    bob.send({"type": "join", "table": table})
    run(clients, lambda: ann.logic.names() == ["Ann", "RandomBot1", "Bob"])
    ann.send("PG;")
    run(clients, lambda: len(bob.games()) >= 15)
    a.stop(signal.SIGKILL)                          # mid-game, no goodbye
    ann.close()
    told = [(m["seq"], m["actor"]) for m in bob.games()]
    # Ann comes back on B's port: her name is A's until B sees A gone (three missed
    # heartbeats), so she tries again as a player would, and is put back into her seat
    ann = comes_back(b.ports["netacquire"], "Ann", seed=3, others=[bob])
    clients = [ann, bob]
    run(clients, lambda: 6 in ann.logic.states and len(ann.logic.board) > 0, timeout=40)
    run(clients, lambda: ann.logic.ended, timeout=60)
    run(clients, lambda: any(m["type"] == "table" and m.get("event") == "finished" for m in bob.messages))
    finished = next(m for m in bob.messages if m["type"] == "table" and m.get("event") == "finished")
    b.stop()                    # (the end is told once the last move is stored, with its write)
    state, actions, result = stored(store, table)
    assert state == "finished"
    # every action Bob was told of before the kill is stored, as told; the store has each
    # move once; Bob was shown each move at most once, in order, and the last one
    assert [seq for seq, _, _ in actions] == list(range(len(actions)))
    by_seq = {seq + 1: seat for seq, seat, _ in actions}
    assert all(by_seq.get(seq) == actor for seq, actor in told), told
    seen = [(m["seq"], m["actor"]) for m in bob.games()]
    assert [seq for seq, _ in seen] == sorted({seq for seq, _ in seen}) and seen[-1][0] == len(actions)
    assert all(by_seq.get(seq) == actor for seq, actor in seen)
    game = game_from_record(json.loads(result[1]))
    assert game.is_over() and ann.logic.cash() == game.cash == finished["result"]["scores"]
    for client in clients:
        client.close()


def test_sigkill_of_the_owning_worker_of_one_port_its_player_comes_back_to_the_same_port(
        tmp_path, store, fresh_redis_server):
    """--workers 2: Ann (NetAcquire) makes a table on the worker her connection reached, Bob
    (web) plays at it from the other; that worker is killed (SIGKILL, and started again by its
    supervisor); once the other has taken the table over, Ann connects to the same port
    again, reaching either worker, and gets her seat; the game ends."""
    from tests.test_cluster_workers import READY, admin_password, hall_args, on_another_worker, wait_for
    args = hall_args(store, fresh_redis_server.url, workers=2) + ["--seat-hold", "60"]
    admin = int(args[args.index("--admin") + 1].split(":")[1])
    port = {a.split("=")[0]: int(a.split(":")[1]) for a in args if "=tcp:" in a}
    hall = Hall(args, tmp_path, expect=["admin"], extra_path=[str(EXAMPLE)])
    clients = []

    try:
        wait_for(hall, READY, 2)
        password = admin_password(store)
        ann = netacquire(port["netacquire"], "Ann", seed=4)
        clients.append(ann)
        run(clients, lambda: ann.logic.states[-1:] == [3])
        ann.send("SG;3")
        ann.send('BM;Game Room,"/bot random"')
        run(clients, lambda: ann.logic.states[-1:] == [5] and len(ann.logic.names()) == 2)
        table = int(re.search(r"Game #(\d+)", next(line for line in ann.logic.gm if "Game #" in line)).group(1))
        bob, where = on_another_worker(admin, password, "Ann", lambda n: WebUser(port["web"], f"Bob{n}"), clients,
                                       lambda fresh: run(clients, lambda: all(w.of("welcome") for w in fresh)))
        owner = int(where["Ann"].rpartition(":")[2])
        for client in clients[1:]:               # the web users not needed: gone
            if client is not bob:
                client.close()
        clients = [ann, bob]
        bob.send({"type": "lobby"})
        run(clients, lambda: table in listed(bob))
        bob.send({"type": "join", "table": table})
        run(clients, lambda: ann.logic.names() == ["Ann", "RandomBot1", bob.name])
        ann.send("PG;")
        run(clients, lambda: len(bob.games()) >= 15)
        os.kill(owner, signal.SIGKILL)
        ann.close()
        clients = [bob]
        told = [(m["seq"], m["actor"]) for m in bob.games()]
        # the other worker takes the table over: Bob, seated again there, is shown it whole
        before = len(bob.messages)
        run(clients, lambda: any(m["type"] == "table_state" for m in bob.messages[before:]), timeout=40)
        # Ann connects to the same port again and gets her seat on whichever worker she reaches
        # (the one left, or the one started again).  Known limit: a sign-in on the worker
        # started again in the moment before it hears of the take-over finds no seat there
        # (docs/cluster.md); she then connects again, as a player would
        deadline = time.monotonic() + 30
        while True:
            ann = comes_back(port["netacquire"], "Ann", seed=5, others=clients)
            wake = time.monotonic() + 3
            run([*clients, ann], lambda: 6 in ann.logic.states or time.monotonic() >= wake, timeout=10)
            if 6 in ann.logic.states:
                break
            ann.close()
            assert time.monotonic() < deadline, "Ann never got her seat back"
        clients.append(ann)
        run(clients, lambda: 6 in ann.logic.states and len(ann.logic.board) > 0, timeout=40)
        run(clients, lambda: ann.logic.ended, timeout=60)
        run(clients, lambda: any(m["type"] == "table" and m.get("event") == "finished" for m in bob.messages))
    finally:
        for client in clients:
            client.close()
        hall.kill(signal.SIGTERM)               # (stops the workers, their store writes done)
    state, actions, result = stored(store, table)
    assert state == "finished"
    assert [seq for seq, _, _ in actions] == list(range(len(actions)))
    by_seq = {seq + 1: seat for seq, seat, _ in actions}
    assert all(by_seq.get(seq) == actor for seq, actor in told), told
    game = game_from_record(json.loads(result[1]))
    assert game.is_over() and ann.logic.cash() == game.cash
