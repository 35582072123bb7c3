"""Many NetAcquire users logging in to a real ``twistd -n gamehall``, and a newcomer's ping meanwhile.

    .venv/bin/python bench/logins.py [--users 3000] [--wave 200]

The hall runs in its own process (temporary --db, --max-per-peer 0,
--idle-timeout 0, only the netacquire front end).  This process opens
``--users`` connections in waves of ``--wave``, each answering ``SP`` with
``PL`` and counting as logged in at ``SS;3``; every client reads everything
it is sent (lobby notices included).  Meanwhile a probe connection that
logged in first sends ``PI`` every 0.1 s and times the ``PR``.  Printed: the
time for all logins, logins per second, the probe's ping latency during the
logins (p50 / max), the lobby lines each client received, and a last
user's pings after everything settled (the clients run in this one process,
so their own reading is part of every latency).  Figures only; nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_hall(port: int) -> subprocess.Popen:
    twistd = str(Path(sys.executable).parent / "twistd")
    tmp = Path(tempfile.mkdtemp())
    args = [twistd, "-n", "--pidfile=", "gamehall", "--db", str(tmp / "hall.sqlite"), "--max-per-peer", "0",
            "--idle-timeout", "0", "--admin", f"tcp:{free_port()}:interface=127.0.0.1",
            "--listen", f"netacquire=tcp:{port}:interface=127.0.0.1:backlog=1024"]
    sys.path.insert(0, str(ROOT))
    from gamehall.plugins import find_frontends
    for name in find_frontends():
        if name != "netacquire":
            args += ["--disable", name]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    seen = []
    for line in proc.stdout:
        seen.append(line.decode(errors="replace"))
        if b"netacquire listening" in line:
            return proc
    raise RuntimeError("the hall did not start:\n" + "".join(seen))


class Client:
    def __init__(self, name: str, port: int, sel: selectors.BaseSelector) -> None:
        self.name = name
        self.sock = socket.socket()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.sock.connect_ex(("127.0.0.1", port))
        self.buffer = b""
        self.logged_in = False
        self.lobby_lines = 0
        self.pongs: list[float] = []
        self.ping_sent: float | None = None
        self.closed = False
        sel.register(self.sock, selectors.EVENT_READ, self)

    def send(self, text: str) -> None:
        try:
            self.sock.sendall(text.encode() + b";:")
        except BlockingIOError:
            pass

    def ping(self) -> None:
        if self.ping_sent is None:
            self.ping_sent = time.perf_counter()
            self.send("PI;probe")

    def readable(self) -> None:
        try:
            data = self.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b";:")
        for line in lines:
            line = line.strip()
            if line.startswith(b"SP;"):
                self.send(f"PL;{self.name},2,0,4")
            elif line == b"SS;3":
                self.logged_in = True
            elif line.startswith(b"LM;"):
                self.lobby_lines += 1
            elif line.startswith(b"PR;") and self.ping_sent is not None:
                self.pongs.append(time.perf_counter() - self.ping_sent)
                self.ping_sent = None


def pump(sel: selectors.BaseSelector, timeout: float) -> None:
    for key, _ in sel.select(timeout):
        key.data.readable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=3000)
    parser.add_argument("--wave", type=int, default=200, help="connections opened before waiting for their logins")
    options = parser.parse_args()
    port = free_port()
    hall = start_hall(port)
    sel = selectors.DefaultSelector()
    try:
        probe = Client("Probe", port, sel)
        while not probe.logged_in:
            pump(sel, 0.1)
        clients: list[Client] = []
        begin = time.perf_counter()
        next_ping = begin
        during: list[float] = []
        while len(clients) < options.users or not all(c.logged_in for c in clients[-options.wave:]):
            if len(clients) < options.users and all(c.logged_in for c in clients[-options.wave:]):
                for _ in range(min(options.wave, options.users - len(clients))):
                    clients.append(Client(f"U{len(clients)}", port, sel))
            now = time.perf_counter()
            if now >= next_ping:
                probe.ping()
                next_ping = now + 0.1
            pump(sel, 0.01)
            if probe.pongs:
                during += probe.pongs
                probe.pongs.clear()
        elapsed = time.perf_counter() - begin
        while probe.ping_sent is not None:          # the last ping of the run
            pump(sel, 0.01)
        during += probe.pongs
        probe.pongs.clear()
        settle = time.perf_counter() + 2
        while time.perf_counter() < settle:        # batched notices arrive within a second
            pump(sel, 0.05)
        last = Client("Latecomer", port, sel)
        while not last.logged_in:
            pump(sel, 0.05)
        for _ in range(5):                          # (this process also reads what the 5,000 get)
            last.ping()
            while last.ping_sent is not None:
                pump(sel, 0.01)
            pause = time.perf_counter() + 0.3
            while time.perf_counter() < pause:
                pump(sel, 0.05)
        closed = sum(c.closed for c in clients)
        lines = [c.lobby_lines for c in clients]
        print(f"{options.users} NetAcquire logins in waves of {options.wave}: {elapsed:.1f} s "
              f"({options.users / elapsed:,.0f} logins/s); connections lost: {closed}")
        if during:
            print(f"  a logged-in user's ping during the logins: p50 {1000 * statistics.median(during):.1f} ms, "
                  f"max {1000 * max(during):.1f} ms ({len(during)} pings)")
        print(f"  lobby lines per client: mean {statistics.mean(lines):.1f}, max {max(lines)} "
              f"(the probe got {probe.lobby_lines})")
        print(f"  a new user's pings afterwards: median {1000 * statistics.median(last.pongs):.1f} ms, "
              f"first {1000 * last.pongs[0]:.1f} ms")
    finally:
        hall.terminate()
        hall.wait()


if __name__ == "__main__":
    main()
