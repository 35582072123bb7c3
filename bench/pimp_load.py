"""Concurrent four-client Monopoly games over real PIMP sockets against a ``twistd -n gamehall`` child.

The hall runs in its own process (its own temporary --db, only the pimp front
end), pinned to one core (``--hall-cpu``, all its threads).  The clients run
in ``--procs`` worker processes pinned to the other cores, each driving its
share of the games from one epoll loop.  A client is ``tests/pimp/wireclient.py``'s
``WireClient`` (written from the protocol text: it rolls, buys or sends the
property to auction, passes in auctions, claims rent and salary, pays its
debts or goes bankrupt) with a lean frame reader: it does little more than
read frames and answer, so the clients are not what is measured.

PIMP puts every new connection into the hall's current game, so a worker
opens a table on the admin console (``monopoly new``) and connects its four
clients while it holds a lock shared by the workers (released once all four
have the table's number in their HANDSHAKE_ACKNOWLEDGE).  A game is played
for --rolls-per-game rolls, then three players quit (TRANSFER to the bank)
and the fourth wins; a new game replaces it.

    python bench/pimp_load.py [--games 40] [--procs 4] [--seconds 30] [--rolls-per-game 300]

Printed: dice rolls per second (DICE_ROLLED messages), p50/p99 of the time
from a client's THROW_DICE / JAIL_ROLL_DICE to its next START_OF_TURN or
ROLL_AGAIN, games won, the hall's CPU seconds (user + system, all threads,
/proc/PID/stat) per 1,000 rolls and its share of its core, and from these the
hall's one-core capacity: rolls per hall CPU-second, a figure that does not
depend on how fast the clients are.  ``--py-spy FILE`` also samples the hall
with py-spy during the measurement (collapsed stacks; costs the hall time, so
use it for profiles, not figures).  Never asserted.  The reference point
(issue 7): monopd, about 230 rolls/s with 10 games of 4 bots; the target is
5x that, 1,150 rolls/s, on one core.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import select
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from hallbench import Hall, bench_env, child_setup, cpu_pressure, cpu_seconds  # noqa: E402
from tests.pimp.wireclient import LAYOUTS, WireClient, parse  # noqa: E402

MONOPD_ROLLS_PER_SECOND = 230
TARGET = 5 * MONOPD_ROLLS_PER_SECOND
WARMUP, MEASURE, STOP = 0, 1, 2
ROLL_CODES = (0x21, 0x4C)                 # THROW_DICE, JAIL_ROLL_DICE
DICE_ROLLED = 0x22


class LeanClient(WireClient):
    """``WireClient``'s play with a cheap reader: frames are cut in place and handed to
    their ``on_`` method (no log of everything received, no per-frame lookups by name)."""

    def __init__(self, name: str, game: "Game"):
        super().__init__(name)
        self.game = game
        self.ack = 0                              # the table number of the handshake
        self.t0 = 0.0
        self.handlers = {}
        for code, (msg, layout) in LAYOUTS.items():
            method = getattr(self, "on_" + msg, None)
            if method is not None:
                self.handlers[code] = (method, layout)
        self.buf = bytearray()

    def send(self, name: str, payload: bytes = b"") -> None:
        super().send(name, payload)
        if name in ("THROW_DICE", "JAIL_ROLL_DICE"):
            self.t0 = time.perf_counter()

    def feed(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        pos, end, handlers = 0, len(buf), self.handlers
        while end - pos >= 2 and end - pos >= 2 + buf[pos + 1]:
            code, n = buf[pos], buf[pos + 1]
            entry = handlers.get(code)
            if entry is not None:
                method, layout = entry
                method(*parse(layout, bytes(buf[pos + 2:pos + 2 + n])))
            pos += 2 + n
        del buf[:pos]

    def _turn_moved(self) -> None:
        if self.t0:
            self.game.latency(time.perf_counter() - self.t0)
            self.t0 = 0.0

    def on_HANDSHAKE_ACKNOWLEDGE(self, game):
        self.ack = game
        super().on_HANDSHAKE_ACKNOWLEDGE(game)

    def on_START_OF_TURN(self, pid, throw):
        self._turn_moved()
        super().on_START_OF_TURN(pid, throw)

    def on_ROLL_AGAIN(self, pid):
        self._turn_moved()
        super().on_ROLL_AGAIN(pid)

    def on_DICE_ROLLED(self, pid, a, b):
        if self is self.game.clients[0]:
            self.game.rolled()


class Game:
    """Four clients on one table, driven by a ``Worker`` (or bench/soak.py's PIMP slot: it has the
    same ``index``, ``rolls_per_game``, ``phase``, ``latencies`` and ``rolled()``)."""

    def __init__(self, worker: "Worker", number: int, prefix: str = ""):
        self.worker = worker
        self.rolls = 0
        self.quitting = False
        prefix = prefix or f"w{worker.index}"
        self.clients = [LeanClient(f"{prefix}g{number}p{i}", self) for i in range(4)]

    def rolled(self) -> None:
        self.rolls += 1
        self.worker.rolled()
        if self.rolls >= self.worker.rolls_per_game and not self.quitting:
            self.quitting = True
            for c in self.clients[1:]:
                c.quit = True

    def latency(self, seconds: float) -> None:
        if self.worker.phase.value == MEASURE:
            self.worker.latencies.append(seconds)

    @property
    def acknowledged(self) -> bool:
        return all(c.ack for c in self.clients)

    @property
    def joined(self) -> bool:
        return all(c.me for c in self.clients)


class Admin:
    """One logged-in console session (kept open: a login per table would cost the hall too)."""

    def __init__(self, port: int, credentials: str):
        user, _, password = credentials.strip().partition(":")
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        for prompt, answer in [(b"sername", user), (b"assword", password)]:
            self._until(prompt)
            self.sock.sendall(answer.encode() + b"\r\n")
        self._until(b">")

    def _until(self, marker: bytes) -> str:
        seen = b""
        while marker not in seen:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError(f"the admin console closed: {seen!r}")
            seen += chunk
        return seen.decode("utf-8", "replace")

    def command(self, line: str) -> str:
        self.sock.sendall(line.encode() + b"\r\n")
        return self._until(b">")


class Worker:
    """One client process: its games, one epoll loop; a new game replaces a finished one."""

    def __init__(self, index, games, hall_port, admin_port, credentials, rolls_per_game,
                 lock, phase, counters, results):
        self.index, self.games_wanted, self.hall_port = index, games, hall_port
        self.rolls_per_game, self.lock, self.phase = rolls_per_game, lock, phase
        self.counters, self.results = counters, results     # counters[2*index]: rolls, [2*index+1]: won
        self.admin = Admin(admin_port, credentials)
        self.poll = select.epoll()
        self.by_fd: dict[int, tuple] = {}
        self.live: list[Game] = []
        self.opening: Game | None = None            # the game holding the lock
        self.numbered = 0
        self.latencies: list[float] = []
        self.progress = time.monotonic()

    def rolled(self) -> None:
        self.counters[2 * self.index] += 1
        self.progress = time.monotonic()

    def open_game(self) -> bool:
        """Open a table and connect four clients, if no other worker is doing so now."""
        if not self.lock.acquire(block=False):
            return False
        self.admin.command("monopoly new")
        self.numbered += 1
        game = self.opening = Game(self, self.numbered)
        for c in game.clients:
            s = socket.create_connection(("127.0.0.1", self.hall_port))
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.by_fd[s.fileno()] = (s, c)
            self.poll.register(s.fileno(), select.EPOLLIN)
            s.sendall(c.take())
        return True

    def step(self, timeout: float) -> None:
        for fd, _ in self.poll.poll(timeout):
            entry = self.by_fd.get(fd)
            if entry is None:
                continue
            s, c = entry
            data = s.recv(65536)
            if not data:
                self.poll.unregister(fd)
                del self.by_fd[fd]
                continue
            c.feed(data)
            if c.outbox:
                s.sendall(c.take())
        game = self.opening
        if game is not None and game.acknowledged:
            if len({c.ack for c in game.clients}) != 1:
                raise RuntimeError(f"the clients of one new table joined {[c.ack for c in game.clients]}")
            self.opening = None
            self.lock.release()
            self.live.append(game)

    def close(self, game: Game) -> None:
        for fd, (s, c) in list(self.by_fd.items()):
            if c.game is game:
                self.poll.unregister(fd)
                del self.by_fd[fd]
                s.close()

    def run(self) -> None:
        while len(self.live) < self.games_wanted:
            if self.opening is None:
                self.open_game()
            self.step(0.05)
        while not all(g.joined for g in self.live):
            self.step(0.05)
        self.results.put(("ready", self.index))
        while self.phase.value != STOP:
            self.step(0.1)
            for game in [g for g in self.live if g.clients[0].winner]:
                self.live.remove(game)
                self.close(game)
                self.counters[2 * self.index + 1] += 1
            if len(self.live) < self.games_wanted and self.opening is None:
                self.open_game()
            if time.monotonic() - self.progress > 20:
                raise RuntimeError(f"worker {self.index}: no roll for 20 s")
        self.results.put(("done", self.index, self.latencies))


def worker_main(cpus, nice, *args) -> None:
    if cpus:
        os.sched_setaffinity(0, cpus)
    if nice:
        child_setup(nice)()
    results = args[-1]
    try:
        Worker(*args).run()
    except Exception as exc:            # the parent reports it and stops
        results.put(("error", args[0], f"{type(exc).__name__}: {exc}"))


def pin(pid: int, cpus: set[int]) -> None:
    """Pin every thread of ``pid`` (threads started later inherit the main thread's mask)."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(tid), cpus)


def quantile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] * 1000 if values else float("nan")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games at once (default 40)")
    parser.add_argument("--procs", type=int, default=4, help="client processes (default 4)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds (default 30)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds played before measuring")
    parser.add_argument("--rolls-per-game", type=int, default=300)
    parser.add_argument("--hall-cpu", type=int, default=0, help="the hall's core (-1: no pinning)")
    parser.add_argument("--py-spy", metavar="FILE", help="sample the hall with py-spy (collapsed stacks)")
    parser.add_argument("--rate", type=float, default=1000.0,
                        help="the hall's --rate (frames a second a connection may send; default 1000: the "
                             "limit is checked on every frame but bots at machine speed are not slowed "
                             "down as a person sending that fast would be; 50 is the hall's default)")
    parser.add_argument("--nice", type=int, default=0, help="run the hall and the clients at this nice "
                        "value (a negative one, as root, puts the measurement ahead of other work)")
    parser.add_argument("--root", help="run the hall from this checkout (e.g. a git worktree of an "
                        "older commit, for A/B rounds)")
    args = parser.parse_args(argv)
    cpus = sorted(os.sched_getaffinity(0))
    hall_cpus = {args.hall_cpu} if args.hall_cpu >= 0 and len(cpus) > 1 else None
    client_cpus = set(cpus) - hall_cpus if hall_cpus else None

    hall = Hall(["pimp"], extra=["--bot-delay", "0", "--rate", str(args.rate)], env=bench_env(args.root),
                nice=args.nice).start()
    ctx = mp.get_context("fork")
    lock, phase = ctx.Lock(), ctx.RawValue("i", WARMUP)
    counters, results = ctx.RawArray("q", 2 * args.procs), ctx.Queue()
    procs = []
    try:
        if hall_cpus:
            pin(hall.pid, hall_cpus)
        credentials = (hall.dir / "hall.sqlite.admin").read_text()
        shares = [args.games // args.procs + (i < args.games % args.procs) for i in range(args.procs)]
        for i, share in enumerate(shares):
            p = ctx.Process(target=worker_main, daemon=True, args=(
                client_cpus, args.nice, i, share, hall.ports["pimp"], hall.admin_port, credentials,
                args.rolls_per_game, lock, phase, counters, results))
            p.start()
            procs.append(p)

        def expect(kind: str) -> list:
            got = []
            while len(got) < len(procs):
                msg = results.get(timeout=600)
                if msg[0] == "error":
                    raise SystemExit(f"client process {msg[1]} failed: {msg[2]}\n" + hall.log()[-2000:])
                got.append(msg)
            return got

        expect("ready")
        time.sleep(args.warmup)
        spy = None
        if args.py_spy:
            spy = subprocess.Popen([shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy"),
                                    "record", "-p", str(hall.pid), "-r", "200", "-d", str(int(args.seconds)),
                                    "-f", "raw", "-o", args.py_spy], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        rolls0, won0 = sum(counters[0::2]), sum(counters[1::2])
        cpu0, wait0, t0 = hall.cpu(), hall.core_wait(), time.monotonic()
        client0 = sum(cpu_seconds(p.pid) for p in procs)
        phase.value = MEASURE
        time.sleep(args.seconds)
        phase.value = STOP
        rolls, won = sum(counters[0::2]) - rolls0, sum(counters[1::2]) - won0
        elapsed = time.monotonic() - t0
        cpu, wait = hall.cpu() - cpu0, hall.core_wait() - wait0
        client_cpu = sum(cpu_seconds(p.pid) for p in procs) - client0
        latencies = sorted(x for msg in expect("done") for x in msg[2])
        if spy is not None:
            spy.wait(60)
    finally:
        phase.value = STOP
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
        hall.stop()

    pinned = (f"hall pinned to CPU {args.hall_cpu} (all threads), clients to CPUs "
              f"{','.join(map(str, sorted(client_cpus)))}" if hall_cpus else "no pinning")
    if args.nice:
        pinned += f"; hall and clients at nice {args.nice}"
    capacity = rolls / cpu if cpu else float("nan")
    print(f"{args.games} games at once in {args.procs} client processes ({pinned}; hall --rate {args.rate:g}); "
          f"{os.cpu_count()} CPUs, CPU pressure {cpu_pressure():.0f}%")
    print(f"{rolls} rolls in {elapsed:.1f} s: {rolls / elapsed:.0f} rolls/s; roll to next turn "
          f"p50 {quantile(latencies, 0.5):.2f} ms, p99 {quantile(latencies, 0.99):.2f} ms; {won} games won")
    print(f"hall CPU {cpu:.2f} s ({cpu / elapsed:.2f} of its core; waited {wait:.2f} s for it): "
          f"{cpu / max(rolls, 1) * 1e6:.0f} ms per 1,000 rolls; capacity {capacity:.0f} rolls per hall "
          f"CPU-second ({capacity / MONOPD_ROLLS_PER_SECOND:.1f}x monopd's {MONOPD_ROLLS_PER_SECOND}; target "
          f"{TARGET}: {'met' if capacity >= TARGET else 'not met'}); clients CPU {client_cpu:.2f} s "
          f"({client_cpu / max(rolls, 1) * 1e6:.0f} ms per 1,000 rolls)")


if __name__ == "__main__":
    main()
