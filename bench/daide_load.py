"""Concurrent seven-power Diplomacy games over real sockets against ``twistd -n gamehall``.

The hall runs in its own process (a temporary --db, --rate 0, only the ``daide``
front end).  This process plays --games games at once, seven DAIDE wire clients
each (``tests/daide/client.py``, the protocol-text client of the tests: it orders
random legal-looking moves from the map's adjacencies after every NOW, answers
MIS in builds, and sends DRW from --draw-year on), over one select loop; when
all seven of a game have been told OFF, seven new clients start the next game,
until --seconds have passed.

Printed: games finished, phases processed per second (NOW messages of the
first client of each game), messages sent per second, and the p50/p90/p99/max
reply latency: from a client's message to the first message it receives after
it.  Figures only: nothing is asserted.

    python bench/daide_load.py [--games 8] [--seconds 30] [--draw-year 1904]
"""
from __future__ import annotations

import argparse
import select
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamehall.plugins import find_frontends  # noqa: E402
from tests.daide.client import Client  # noqa: E402
from tests.wireclient import Hall, free_port  # noqa: E402


class Conn:
    def __init__(self, port: int, client: Client, stats: dict) -> None:
        self.client = client
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.stats = stats
        self.sent_at: float | None = None
        self.done = False

    def flush(self) -> None:
        data = self.client.take()
        if data:
            self.sock.setblocking(True)
            self.sock.sendall(data)
            self.sock.setblocking(False)
            self.stats["sent"] += 1
            if self.sent_at is None:
                self.sent_at = time.perf_counter()

    def read(self) -> None:
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return
        except ConnectionResetError:
            data = b""
        if not data:
            self.done = True
            return
        if self.sent_at is not None:
            self.stats["latency"].append(time.perf_counter() - self.sent_at)
            self.sent_at = None
        before = len(self.client.received)
        self.client.feed(data)
        if self.client.closed_by_server:
            self.done = True
        self.stats["phases"] += sum(1 for m in self.client.received[before:] if m[0] == "NOW") / 7

    def close(self) -> None:
        self.sock.close()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--draw-year", type=int, default=1904)
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="daide_load_"))
    port = free_port()
    others = [a for name in find_frontends() if name != "daide" for a in ("--disable", name)]
    hall = Hall(["--db", str(tmp / "hall.sqlite"), "--admin", f"tcp:{free_port()}:interface=127.0.0.1",
                 "--listen", f"daide=tcp:{port}:interface=127.0.0.1", "--rate", "0",
                 "--max-per-peer", "0", *others], tmp, expect=["daide"], timeout=60)
    stats = {"sent": 0, "phases": 0.0, "latency": [], "games": 0}
    seed = 0
    tables: list[list[Conn]] = []
    try:
        def new_game() -> list[Conn]:
            nonlocal seed
            game = []
            for _ in range(7):
                seed += 1
                game.append(Conn(port, Client(f"b{seed}", seed=seed, draw_year=args.draw_year), stats))
            return game

        # players join one game at a time: the hall's open table takes them in order
        for _ in range(args.games):
            tables.append(new_game())
        start = time.perf_counter()
        stop = start + args.seconds
        while time.perf_counter() < stop:
            for game in tables:
                for conn in game:
                    if not conn.done:
                        conn.flush()
            socks = {conn.sock: conn for game in tables for conn in game if not conn.done}
            ready, _, _ = select.select(list(socks), [], [], 0.05)
            for sock in ready:
                socks[sock].read()
            for i, game in enumerate(tables):
                if all(conn.done for conn in game):
                    stats["games"] += 1
                    for conn in game:
                        conn.close()
                    tables[i] = new_game()
        elapsed = time.perf_counter() - start
    finally:
        for game in tables:
            for conn in game:
                conn.close()
        hall.kill(15)
    lat = sorted(stats["latency"])

    def q(p: float) -> float:
        return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else float("nan")

    print(f"{args.games} concurrent games x 7 DAIDE clients for {elapsed:.1f} s (draw from {args.draw_year})")
    print(f"games finished:        {stats['games']}")
    print(f"phases processed:      {stats['phases']:.0f}  ({stats['phases'] / elapsed:.1f} per second)")
    print(f"client messages:       {stats['sent']}  ({stats['sent'] / elapsed:.0f} per second)")
    print(f"reply latency ms:      p50 {q(0.5):.1f}  p90 {q(0.9):.1f}  p99 {q(0.99):.1f}  "
          f"max {lat[-1] * 1000 if lat else float('nan'):.1f}  (n={len(lat)}, mean "
          f"{statistics.mean(lat) * 1000 if lat else float('nan'):.1f})")


if __name__ == "__main__":
    main()
