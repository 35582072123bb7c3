"""Blocking socket helpers for end-to-end tests against a real twistd process."""
from __future__ import annotations

import os
import random
import selectors
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TWISTD = str(Path(sys.executable).parent / "twistd")


def run_sockets_until(clients, done, timeout: float, report) -> None:
    """Let every client (``.sock``, ``.feed(bytes)``) read and react until ``done()``.
    ``report(client)`` names a client and its last messages for the failures: AssertionError
    after ``timeout`` seconds, EOFError when the hall closes a connection."""
    sel = selectors.DefaultSelector()
    for client in clients:
        sel.register(client.sock, selectors.EVENT_READ, client)
    deadline = time.monotonic() + timeout
    try:
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("timed out; last: " + "; ".join(report(c) for c in clients))
            for key, _ in sel.select(min(left, 1.0)):
                client = key.data
                data = client.sock.recv(65536)
                if not data:
                    raise EOFError(f"connection closed: {report(client)}")
                client.feed(data)
    finally:
        sel.close()


_HANDED_OUT: set[int] = set()
_PICK = random.SystemRandom()      # not the global random, which tests seed


def _ephemeral_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def port_slice(worker: str | None = None, count: str | None = None) -> range:
    """This process's ports: below the kernel's ephemeral range (which the kernel hands out
    for outgoing connections and ``bind(0)``, so a port taken from it may be in use before
    the hall binds it), cut into one slice per pytest-xdist worker, so no two workers of a
    run ever pick the same port in the window between picking and binding it."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0") if worker is None else worker
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") if count is None else count
    index, workers = int(worker.removeprefix("gw") or 0), max(1, int(count))
    low, high = 20000, max(_ephemeral_start(), 21000)
    size = (high - low) // workers
    return range(low + index * size, low + (index + 1) * size)


def free_port() -> int:
    """A port nothing listens on, from this worker's slice (``port_slice``); never one this
    process handed out before (two front ends of one hall would then collide). Drawn at
    random, so concurrent test runs on one machine rarely try the same port."""
    ports = port_slice()
    for _ in range(4 * len(ports)):
        port = _PICK.choice(ports)
        if port in _HANDED_OUT:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _HANDED_OUT.add(port)
        return port
    raise RuntimeError(f"no free port left in {ports} (more workers than ports?)")


class Hall:
    """A ``twistd -n gamehall`` child process; waits until every front end listens.

    A thread drains the child's output all along, so a chatty log can never
    fill the pipe and block the hall.
    """

    def __init__(self, args: list[str], cwd: Path, expect: list[str], extra_path: list[str] = (), timeout=30):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([*extra_path, str(ROOT), env.get("PYTHONPATH", "")])
        self.proc = subprocess.Popen(
            [TWISTD, "-n", "--pidfile=", "gamehall", *args], cwd=cwd, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.output: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        waiting = {f"{name} listening on" for name in expect}
        with self._changed:
            if not self._changed.wait_for(
                    lambda: self.proc.poll() is not None or all(any(w in line for line in self.output) for w in waiting),
                    timeout):
                raise AssertionError("hall did not start:\n" + "".join(self.output))
        if self.proc.poll() is not None:
            raise AssertionError("hall exited:\n" + "".join(self.output))

    def _drain(self) -> None:
        for raw in self.proc.stdout:
            with self._changed:
                self.output.append(raw.decode("utf-8", "replace"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def kill(self, sig=9) -> None:
        self.proc.send_signal(sig)
        self.proc.wait(timeout=30)
        self._reader.join(timeout=10)
        self.proc.stdout.close()


class LineClient:
    """A CRLF line client with a receive timeout."""

    def __init__(self, port: int, timeout: float = 10.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buffer = b""

    def send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")

    def line(self) -> str:
        while b"\n" not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("connection closed; had " + repr(self.buffer))
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.rstrip(b"\r").decode()

    def until(self, prefix: str, limit: int = 500) -> str:
        for _ in range(limit):
            line = self.line()
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no line starting with {prefix!r}")

    def close(self) -> None:
        self.sock.close()
