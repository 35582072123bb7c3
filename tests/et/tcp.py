"""Blocking et clients over TCP against a real ``twistd -n gamehall``, for the end-to-end tests."""
from __future__ import annotations

import socket

from gamehall.plugins import find_frontends
from tests.helpers import EXAMPLE, install_example_plugin
from tests.wireclient import Hall, free_port, run_sockets_until


class SocketPlayer:
    """One connection; every line received goes to ``client.feed`` (the client sends with ``send``)."""

    def __init__(self, port: int, make_client):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""
        self.client = make_client(self.send)
        self.lines: list[str] = []

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")

    def feed(self, data: bytes) -> None:
        *done, self.buffer = (self.buffer + data).split(b"\r\n")
        for raw in done:
            line = raw.decode()
            self.lines.append(line)
            self.client.feed(line)

    def close(self) -> None:
        self.sock.close()


def run_until(players, done, timeout=60.0):
    run_sockets_until(players, done, timeout, lambda p: str(p.lines[-3:]))


def start_hall(tmp_path, *extra: str):
    """A hall with every front end on a free loopback port; ``extra``: more twistd options."""
    install_example_plugin()     # the child has the example game on its path: its front end gets a port too
    ports = {name: free_port() for name in find_frontends()}
    args = ["--db", str(tmp_path / "hall.sqlite"), "--admin", f"tcp:{free_port()}:interface=127.0.0.1",
            "--bot-delay", "0.01", "--rate", "0", *extra]
    for name, port in ports.items():
        args += ["--listen", f"{name}=tcp:{port}:interface=127.0.0.1"]
    return Hall(args, tmp_path, expect=list(ports), extra_path=[str(EXAMPLE)]), ports


def named(players):
    """Name the players p0, p1, ... and wait until each has its id and its name confirmed."""
    for i, p in enumerate(players):
        p.send(f"name p{i}")
    run_until(players, lambda: all(p.client.my_id is not None and any(
        line.startswith("name ") and line.endswith(f" p{i}") for line in p.lines) for i, p in enumerate(players)))


def start_game(players):
    """The first player asks the others (in order: they get seats 1, 2, 3); all accept."""
    ids = [p.client.my_id for p in players[1:]]
    players[0].send(f"ask {' '.join(str(i) for i in ids + ['-'] * (3 - len(ids)))} e+t")
    run_until(players, lambda: all(any(line.startswith("state asked") for line in p.lines)
                                   for p in players[1:]))
    for p in players[1:]:
        p.send("accept")
