"""A throwaway redis-server for tests, and a way to wait on the real reactor.

``redis_server`` (one per pytest session, so one per xdist worker) and ``fresh_redis_server``
(one per test, for tests that kill it) run Debian's ``/usr/bin/redis-server`` on a free
loopback port, without persistence, in a temporary directory; stopped at the end.  Without
the binary the tests are skipped with the reason, except under CI (``CI=true``), where they
fail: CI installs it (.ci/run).
"""
from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

import pytest

from tests.wireclient import free_port

REDIS_SERVER = os.environ.get("REDIS_SERVER", "/usr/bin/redis-server")


def require_redis() -> None:
    if os.path.exists(REDIS_SERVER):
        return
    why = f"{REDIS_SERVER} is missing (apt-get install redis-server)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"the Redis bus tests must run under CI: {why}")
    pytest.skip(why)


class RedisServer:
    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="gamehall-redis-")
        self.port = 0
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start (again, on the same port once it has one); returns once it accepts."""
        for _ in range(5):
            port = self.port or free_port()
            process = subprocess.Popen(
                [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                 "--appendonly", "no", "--dir", self.dir, "--daemonize", "no"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if self._wait_ready(process):
                self.port, self.process = port, process
                return
            process.kill()
            process.wait()
            if self.port:  # our own port is taken: nothing else to try
                break
        raise RuntimeError(f"redis-server would not start in {self.dir}")

    @staticmethod
    def _wait_ready(process, limit: float = 20.0) -> bool:
        """Read the server's log until it says it is ready (or it exits, e.g. port in use)."""
        deadline = time.monotonic() + limit
        out = process.stdout
        buffered = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([out], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(out.fileno(), 4096)
            if not chunk:
                return False  # exited
            buffered += chunk
            if b"Ready to accept connections" in buffered:
                # keep draining its log so it never blocks on a full pipe
                threading.Thread(target=out.read, daemon=True).start()
                return True
        return False

    def kill(self) -> None:
        """Kill it as a crash would (SIGKILL): clients see their connections reset."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.process = None

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def call(self, *args):
        """One command over a plain blocking socket (test set-up only): its reply."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            payload = b"*%d\r\n" % len(args)
            for a in args:
                a = a if isinstance(a, bytes) else str(a).encode()
                payload += b"$%d\r\n%s\r\n" % (len(a), a)
            s.sendall(payload)
            return _read_reply(s.makefile("rb"))

    def advance(self, seconds: float) -> None:
        """Make ``seconds`` pass for every key with a TTL (the server's clock is real time;
        shrinking TTLs is what the passing of time does to keys)."""
        self.call("EVAL", """
            local ms = tonumber(ARGV[1])
            for _, k in ipairs(redis.call('KEYS', '*')) do
              local left = redis.call('PTTL', k)
              if left > 0 then
                if left <= ms then redis.call('DEL', k) else redis.call('PEXPIRE', k, left - ms) end
              end
            end
            return 0""", 0, int(seconds * 1000))


def _read_reply(f):
    line = f.readline().rstrip(b"\r\n")
    kind, rest = line[:1], line[1:]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        raise RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)[:-2]
        return data.decode()
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [_read_reply(f) for _ in range(n)]
    raise RuntimeError(f"unexpected reply {line!r}")


@pytest.fixture(scope="session")
def redis_server():
    require_redis()
    server = RedisServer()
    server.start()
    yield server
    server.close()


@pytest.fixture
def fresh_redis_server():
    """A server of this test's own, which it may kill and start again."""
    require_redis()
    server = RedisServer()
    server.start()
    yield server
    server.close()


def spin(reactor, done, limit: float = 10.0) -> bool:
    """Run the real reactor until ``done()`` is true (real sockets need it); False after
    ``limit`` seconds.  Waits on I/O, never sleeps."""
    deadline = time.monotonic() + limit
    while not done():
        if time.monotonic() > deadline:
            return False
        reactor.iterate(0.01)
    return True
