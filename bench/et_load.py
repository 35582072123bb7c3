"""Concurrent four-player Euphrates & Tigris games over real sockets against ``twistd -n gamehall``.

The hall runs in its own process (a temporary --db, --rate 0, --bot-delay 0,
only the ``et`` front end).  This process plays --games games at once, four
wire clients each (``tests/et/etclient.py``, the protocol-text client of the
tests: it answers every ``ask`` at once with a plausible command and another
after each ``ERROR``), over one selector; a finished game is followed by a
new one of the same four until --seconds have passed.

Printed: games finished, commands per second (answers sent by the clients),
and the p50/p90/p99/max turnaround from a client's answer to the first line
it receives after it.  Figures only: nothing is asserted.

    python bench/et_load.py [--games 8] [--seconds 30]
"""
from __future__ import annotations

import argparse
import selectors
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.et.etclient import Client  # noqa: E402
from tests.wireclient import Hall, free_port  # noqa: E402


class Player:
    def __init__(self, port: int, seed: int, stats: dict):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.stats = stats
        self.sent_at: float | None = None
        self.client = Client(seed, self.answer)
        self.lines = 0

    def answer(self, line: str) -> None:
        self.sent_at = time.perf_counter()
        self.stats["commands"] += 1
        self.sock.sendall(line.encode() + b"\r\n")

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")

    def readable(self) -> bool:
        data = self.sock.recv(65536)
        if not data:
            return False
        if self.sent_at is not None:
            self.stats["latency"].append(time.perf_counter() - self.sent_at)
            self.sent_at = None
        *done, self.buffer = (self.buffer + data).split(b"\r\n")
        for raw in done:
            self.lines += 1
            self.client.feed(raw.decode())
        return True


def invitation(clients: list[Client]) -> str:
    """The first player's line inviting the other three to a game (and each client set for a new one)."""
    for c in clients:
        c.over = False
    return "ask " + " ".join(str(c.my_id) for c in clients[1:]) + " e+t"


def asked(client: Client) -> bool:
    """Whether the client's last state is an invitation (an invited player then sends ``accept``)."""
    return bool(client.states) and client.states[-1].startswith("state asked")


def game_over(clients: list[Client]) -> bool:
    """Whether a game of these clients is over and all are back in the lobby."""
    return all(c.over and c.states[-1] == "state connected" for c in clients)


def pump(sel, until, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise TimeoutError("no progress")
        for key, _ in sel.select(0.5):
            if not key.data.readable():
                raise EOFError("the hall closed a connection")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=8, help="games played at once (default 8)")
    p.add_argument("--seconds", type=float, default=30.0, help="how long to play (default 30)")
    args = p.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="et-load-"))
    port = free_port()
    hall = Hall(["--db", str(tmp / "hall.sqlite"), "--admin", f"tcp:{free_port()}:interface=127.0.0.1",
                 "--listen", f"et=tcp:{port}:interface=127.0.0.1", "--rate", "0", "--bot-delay", "0",
                 "--max-per-peer", "0"], tmp, expect=["et"])
    stats = {"commands": 0, "latency": [], "games": 0}
    sel = selectors.DefaultSelector()
    try:
        groups = []
        for g in range(args.games):
            group = [Player(port, 100 * g + i, stats) for i in range(4)]
            for i, pl in enumerate(group):
                pl.inviter = i == 0
                sel.register(pl.sock, selectors.EVENT_READ, pl)
            groups.append(group)
        everyone = [pl for group in groups for pl in group]
        pump(sel, lambda: all(pl.client.my_id is not None for pl in everyone), 30)
        for g, group in enumerate(groups):
            for i, pl in enumerate(group):
                pl.send(f"name g{g}p{i}")

        def invite(group):
            group[0].send(invitation([pl.client for pl in group]))

        start = time.perf_counter()
        stats["commands"], stats["latency"] = 0, []
        for group in groups:
            invite(group)
        accepted = set()
        end = start + args.seconds
        while time.perf_counter() < end:
            for key, _ in sel.select(0.5):
                pl = key.data
                if not pl.readable():
                    raise EOFError("the hall closed a connection")
                if not pl.inviter and asked(pl.client) and id(pl) not in accepted:
                    accepted.add(id(pl))
                    pl.send("accept")
            for group in groups:
                if game_over([pl.client for pl in group]):
                    stats["games"] += 1
                    for pl in group:
                        accepted.discard(id(pl))
                        pl.client.states.append("waiting")
                    invite(group)
        elapsed = time.perf_counter() - start
    finally:
        sel.close()
        hall.kill(15)
    lat = sorted(stats["latency"])

    def q(f):
        return lat[min(len(lat) - 1, int(f * len(lat)))] * 1000 if lat else float("nan")
    print(f"{args.games} concurrent games, {elapsed:.1f} s: {stats['games']} games finished, "
          f"{stats['commands'] / elapsed:.0f} commands/s")
    print(f"turnaround ms: p50 {q(0.5):.1f}  p90 {q(0.9):.1f}  p99 {q(0.99):.1f}  max {lat[-1] * 1000 if lat else 0:.1f}"
          f"  (mean {statistics.fmean(lat) * 1000 if lat else 0:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
