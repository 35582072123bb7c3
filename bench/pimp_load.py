"""Concurrent four-client Monopoly games over real PIMP sockets against a ``twistd -n gamehall`` child.

The hall runs in its own process (its own temporary --db, only the pimp front
end).  Four wire clients per game (``tests/pimp/wireclient.py``: written from
the protocol text; they roll, buy, pass in auctions, claim rent and salary, pay
or go bankrupt) play in this process, all games at once from one select loop.
PIMP puts every new connection into the hall's current game, so before each
group of four connects the bench opens a new table on the admin console
(``monopoly new``).  A game is played for --rolls-per-game rolls, then three
players quit (TRANSFER to the bank) and the fourth wins; a new game replaces it.

    python bench/pimp_load.py [--games 10] [--seconds 30] [--rolls-per-game 300]

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


def admin(hall: Hall, command: str) -> str:
    """Run one console command (log in with the credentials the hall wrote)."""
    user, _, password = (hall.dir / "hall.sqlite.admin").read_text().strip().partition(":")
    sock = socket.create_connection(("127.0.0.1", hall.admin_port), timeout=10)
    seen = b""
    for prompt, answer in [(b"sername", user), (b"assword", password), (b">", command)]:
        while prompt not in seen:
            seen += sock.recv(65536)
        seen = b""
        sock.sendall(answer.encode() + b"\r\n")
    while b">" not in seen:
        seen += sock.recv(65536)
    sock.close()
    return seen.decode("utf-8", "replace")


class Game:
    """Four clients on one new table."""

    def __init__(self, hall: Hall, number: int, latencies: list):
        admin(hall, "monopoly new")
        self.clients = [TimedClient(f"g{number}p{i}", latencies=latencies) for i in range(4)]
        self.socks = {}
        for c in self.clients:
            s = socket.create_connection(("127.0.0.1", hall.ports["pimp"]))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.socks[s] = c
        self.quitting = False

    @property
    def joined(self) -> bool:
        return all(c.me for c in self.clients)

    @property
    def rolls(self) -> int:
        return self.clients[0].names().count("DICE_ROLLED")

    def close(self) -> None:
        for s in self.socks:
            s.close()


def pump(games: list, timeout: float = 0.2) -> None:
    socks = {}
    for game in games:
        for s, c in game.socks.items():
            data = c.take()
            if data:
                s.sendall(data)
            socks[s] = c
    ready, _, _ = select.select(list(socks), [], [], timeout)
    for s in ready:
        data = s.recv(65536)
        if data:
            socks[s].feed(data)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games at once (default 10)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rolls-per-game", type=int, default=300)
    args = parser.parse_args(argv)
    hall = Hall(["pimp"], extra=["--bot-delay", "0"]).start()
    try:
        latencies: list[float] = []
        live, number = [], 0
        for _ in range(args.games):
            number += 1
            game = Game(hall, number, latencies)
            while not game.joined:               # the next table opens once these four are in
                pump(live + [game])
            live.append(game)
        latencies.clear()
        rolls = games = 0
        cpu0, t0 = hall.cpu(), time.monotonic()
        deadline = t0 + args.seconds
        start_rolls = {id(g): g.rolls for g in live}
        while time.monotonic() < deadline:
            pump(live)
            for game in list(live):
                if not game.quitting and game.rolls >= args.rolls_per_game:
                    game.quitting = True
                    for c in game.clients[1:]:
                        c.quit = True
                if game.clients[0].winner:
                    rolls += game.rolls - start_rolls.pop(id(game), 0)
                    games += 1
                    game.close()
                    live.remove(game)
                    number += 1
                    fresh = Game(hall, number, latencies)
                    while not fresh.joined:
                        pump(live + [fresh])
                    live.append(fresh)
                    start_rolls[id(fresh)] = fresh.rolls
        rolls += sum(g.rolls - start_rolls.get(id(g), 0) for g in live)
        for game in live:
            game.close()
        elapsed = time.monotonic() - t0
        cpu = hall.cpu() - cpu0
        latencies.sort()
        q = (lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000) if latencies else (lambda p: 0)
        print(f"{args.games} games at once, {rolls} rolls in {elapsed:.1f} s: {rolls / elapsed:.0f} rolls/s; "
              f"roll to next turn p50 {q(0.5):.2f} ms, p99 {q(0.99):.2f} ms; "
              f"{games} games won; hall CPU {cpu / elapsed:.2f} s/s")
    finally:
        hall.stop()


if __name__ == "__main__":
    main()
