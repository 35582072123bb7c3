"""End to end: a real ``twistd -n gamehall``; four NetAcquire players and a spectator on real sockets.

The clients (tests/netacquire/naclient.py) are written from the protocol text
and the notes, not from the front end's code.  After the game, the engine is
rebuilt from the record the hall stored in its SQLite file, and every client's
final score sheet must show exactly the engine's final cash.
"""
import json
import re
import sqlite3
import time

from gamehall.plugins import find_frontends
from tests.helpers import EXAMPLE
from gamehall_acquire.record import game_from_record
from tests.netacquire.naclient import PlayerLogic, SocketClient, run_until
from tests.wireclient import Hall, free_port


def start_hall(tmp_path):
    # "nim" too: the child has the example plugin on its path even when this worker has not
    # loaded it, and would otherwise listen on its fixed default tcp:7070
    ports = {name: free_port() for name in {*find_frontends(), "nim"}}
    args = ["--db", str(tmp_path / "hall.sqlite"), "--admin", f"tcp:{free_port()}:interface=127.0.0.1",
            "--bot-delay", "0.01"]
    for name, port in ports.items():
        args += ["--listen", f"{name}=tcp:{port}:interface=127.0.0.1"]
    # the example plugin may be on this process's plugin path (other tests): give the child the same
    return Hall(args, tmp_path, expect=list(ports), extra_path=[str(EXAMPLE)]), ports


def test_four_players_and_a_spectator_play_a_whole_game(tmp_path):
    started = time.monotonic()
    hall, ports = start_hall(tmp_path)
    clients = []
    try:
        names = ["Ann", "Bob", "Cy", "Dee"]
        for i, name in enumerate(names + ["Wes"]):
            clients.append(SocketClient(ports["netacquire"], PlayerLogic(name, seed=i, end_game=False)))
        players, watcher = clients[:4], clients[4]
        run_until(clients, lambda: all(c.logic.states[-1:] == [3] for c in clients))
        assert players[0].logic.log[0] == ("SP", ["2", "0", "4", "gamehall"])

        ann = players[0]
        ann.send("SG;4")
        run_until(clients, lambda: any("created for up to 4 players" in line for line in ann.logic.gm))
        number = re.search(r"Game #(\d+)", ann.logic.gm[-1]).group(1)
        assert ann.logic.states[-1] == 5
        for client in players[1:]:
            client.send(f"JG;{number},-1")
        watcher.send(f"JG;{number},0")
        run_until(clients, lambda: all(c.logic.states[-1] == 4 for c in clients[1:])
                  and ann.logic.names() == names)
        ann.send("PG;")
        run_until(clients, lambda: all(c.logic.ended for c in clients), timeout=25)

        finals = [c.logic.cash() for c in clients]
        assert all(f == finals[0] for f in finals)
        assert all(c.logic.names() == names for c in clients)
        assert not {"AT", "GT", "GC", "GD", "GP"} & {code for code, _ in watcher.logic.log}
        assert {"SB", "SV"} <= {code for code, _ in watcher.logic.log}
    finally:
        for client in clients:
            client.close()
        hall.kill(15)

    with sqlite3.connect(tmp_path / "hall.sqlite") as db:
        (text,) = db.execute("SELECT record FROM results").fetchone()
    game = game_from_record(json.loads(text))
    assert game.is_over()
    assert game.players == names
    assert game.cash == finals[0]
    for client in clients:
        winners = [f"***** {names[s]} has won with ${game.cash[s]}!" for s in game.result()["winners"]]
        assert client.logic.gm[-len(winners):] == winners
    assert time.monotonic() - started < 30


def test_players_come_back_after_sigkill_and_finish_the_game(tmp_path):
    names = ["Ann", "Bob", "Cy"]
    hall, ports = start_hall(tmp_path)
    clients = []
    try:
        clients = [SocketClient(ports["netacquire"], PlayerLogic(name, seed=10 + i, end_game=False))
                   for i, name in enumerate(names)]
        run_until(clients, lambda: all(c.logic.states[-1:] == [3] for c in clients))
        clients[0].send("SG;3")
        run_until(clients, lambda: clients[0].logic.states[-1:] == [5])
        for client in clients[1:]:
            client.send("JG;1,-1")
        run_until(clients, lambda: clients[0].logic.names() == names)
        clients[0].send("PG;")
        run_until(clients, lambda: len(clients[0].logic.board) > 20)
    finally:
        hall.kill(9)
        for client in clients:
            client.close()

    hall, ports = start_hall(tmp_path)
    clients = []
    try:
        clients = [SocketClient(ports["netacquire"], PlayerLogic(name, seed=20 + i, end_game=False))
                   for i, name in enumerate(names)]
        # each is put straight back into its seat: lobby, then the game with its board
        run_until(clients, lambda: all(c.logic.states[:2] == [3, 6] for c in clients))
        run_until(clients, lambda: all(len(c.logic.board) > 20 for c in clients))
        run_until(clients, lambda: all(c.logic.ended for c in clients), timeout=25)
        finals = [c.logic.cash() for c in clients]
    finally:
        for client in clients:
            client.close()
        hall.kill(15)
    with sqlite3.connect(tmp_path / "hall.sqlite") as db:
        (text,) = db.execute("SELECT record FROM results").fetchone()
    game = game_from_record(json.loads(text))
    assert all(f == game.cash for f in finals)
