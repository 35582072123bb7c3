"""Four-client Monopoly games over real PIMP sockets against a ``twistd -n gamehall`` child.

The hall runs in its own process (its own temporary --db, only the pimp front
end).  Four wire clients (``tests/pimp/wireclient.py``: written from the
protocol text; they roll, buy, pass in auctions, claim rent and salary, pay or
go bankrupt) play one game after another in this process: each game is played
for --rolls-per-game rolls, then the players quit one by one (TRANSFER to the
bank) until one wins, and four new connections start the next game.  PIMP puts
every new connection into the hall's current game, so the games run one at a
time: many concurrent games need the operator's "open another Monopoly table"
(not wired to the admin console yet).

    python bench/pimp_load.py [--seconds 30] [--rolls-per-game 300]

Printed: dice rolls per second (DICE_ROLLED messages), p50/p99 of the time from
a client's THROW_DICE / JAIL_ROLL_DICE to its next START_OF_TURN or ROLL_AGAIN,
games finished, and the hall's CPU seconds per second.  Never asserted.  The
reference point (issue 7): monopd, about 230 rolls/s with 10 games of 4 bots.
"""
from __future__ import annotations

import argparse
import select
import socket
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from hallbench import Hall  # noqa: E402
from tests.pimp.wireclient import WireClient  # noqa: E402


class TimedClient(WireClient):
    def __init__(self, *a, latencies: list, **kw):
        super().__init__(*a, **kw)
        self.latencies = latencies
        self.t0 = None

    def send(self, name: str, payload: bytes = b"") -> None:
        if name in ("THROW_DICE", "JAIL_ROLL_DICE"):
            self.t0 = time.perf_counter()
        super().send(name, payload)

    def _turn_moved(self):
        if self.t0 is not None:
            self.latencies.append(time.perf_counter() - self.t0)
            self.t0 = None

    def on_START_OF_TURN(self, pid, throw):
        self._turn_moved()
        super().on_START_OF_TURN(pid, throw)

    def on_ROLL_AGAIN(self, pid):
        self._turn_moved()
        super().on_ROLL_AGAIN(pid)


def play_one(port: int, rolls_per_game: int, latencies: list, deadline: float) -> tuple[int, bool]:
    clients = [TimedClient(f"p{i}", latencies=latencies) for i in range(4)]
    socks = {}
    for c in clients:
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        socks[c] = s
    watcher = clients[0]
    quitting = False
    try:
        while not watcher.winner and time.monotonic() < deadline:
            for c, s in socks.items():
                data = c.take()
                if data:
                    s.sendall(data)
            ready, _, _ = select.select(list(socks.values()), [], [], 0.5)
            for c, s in socks.items():
                if s in ready:
                    data = s.recv(65536)
                    if data:
                        c.feed(data)
            if not quitting and watcher.names().count("DICE_ROLLED") >= rolls_per_game:
                quitting = True
                for c in clients[1:]:
                    c.quit = True
        return watcher.names().count("DICE_ROLLED"), bool(watcher.winner)
    finally:
        for s in socks.values():
            s.close()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rolls-per-game", type=int, default=300)
    args = parser.parse_args(argv)
    hall = Hall(["pimp"]).start()
    try:
        latencies: list[float] = []
        rolls = games = 0
        cpu0, t0 = hall.cpu(), time.monotonic()
        deadline = t0 + args.seconds
        while time.monotonic() < deadline:
            n, won = play_one(hall.ports["pimp"], args.rolls_per_game, latencies, deadline)
            rolls += n
            games += won
        elapsed = time.monotonic() - t0
        cpu = hall.cpu() - cpu0
        latencies.sort()
        q = (lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000) if latencies else (lambda p: 0)
        print(f"{rolls} rolls in {elapsed:.1f} s: {rolls / elapsed:.0f} rolls/s; "
              f"roll to next turn p50 {q(0.5):.2f} ms, p99 {q(0.99):.2f} ms; "
              f"{games} games won; hall CPU {cpu / elapsed:.2f} s/s")
    finally:
        hall.stop()


if __name__ == "__main__":
    main()
