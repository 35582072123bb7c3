"""Lobby chat through the hall versus a bare Twisted line echo server, on loopback.

N clients each send a chat line and wait until their own line comes back
before sending the next (a closed loop).  Through the hall the line is
broadcast to every lobby user, so each round trip also delivers N-1 lines
to the others; the echo server only returns it to the sender.  Both servers
run in their own process; the clients share this one.

    python bench/lobby_chat.py [--clients 50] [--seconds 10] [--protocol nim|netacquire]

Prints round trips per second, lines delivered per second and p50/p99
round-trip latency for both servers, and their ratio.  Never asserted.
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from twisted.internet import defer, protocol, reactor, task
from twisted.protocols.basic import LineReceiver

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "tests" / "plugin_example"
ECHO_SERVER = """
import sys
from twisted.internet import reactor, protocol
from twisted.protocols.basic import LineReceiver
class Echo(LineReceiver):
    def lineReceived(self, line):
        self.sendLine(line)
f = protocol.Factory.forProtocol(Echo)
reactor.listenTCP(int(sys.argv[1]), f, interface="127.0.0.1")
print("listening", flush=True)
reactor.run()
"""


def installed_frontends() -> list[str]:
    sys.path[:0] = [str(EXAMPLE), str(ROOT)]
    import twisted.plugins
    twisted.plugins.__path__.append(str(EXAMPLE / "twisted" / "plugins"))
    from gamehall.plugins import find_frontends
    return list(find_frontends())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(args: list[str], marker: str, env=None) -> subprocess.Popen:
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=tempfile.mkdtemp())
    seen = []
    for line in proc.stdout:
        seen.append(line.decode(errors="replace"))
        if marker.encode() in line:
            return proc
    raise RuntimeError("server did not start: " + " ".join(args) + "\n" + "".join(seen))


class Client(LineReceiver):
    """Sends its next line when its previous one comes back."""

    delimiter = b"\r\n"
    MAX_LENGTH = 1 << 20

    def __init__(self, run, name: str, dialect: str) -> None:
        self.run, self.name, self.dialect = run, name, dialect
        self.sent_at = 0.0
        self.seq = 0
        self.ready = defer.Deferred()

    def connectionMade(self) -> None:
        if self.dialect == "nim":
            self.sendLine(f"NICK {self.name}".encode())
        elif self.dialect == "netacquire":
            self.delimiter = b";:"
        else:
            self.ready.callback(self)

    def dataReceived(self, data: bytes) -> None:
        if self.dialect == "netacquire":
            data = data.replace(b";:", b";:\r\n").replace(b"\r\n\r\n", b"\r\n")
        super().dataReceived(data)

    def lineReceived(self, line: bytes) -> None:
        line = line.strip()
        if self.dialect == "netacquire" and line.startswith(b"SP;"):
            self.transport.write(f"PL;{self.name},2,0,x;:".encode())
            return
        if not self.ready.called and (line.startswith(b"OK welcome") or line.startswith(b"SS;3")):
            self.ready.callback(self)
            return
        self.run.delivered += 1
        if self.marker() in line:
            self.run.latencies.append(time.perf_counter() - self.sent_at)
            self.run.round_trips += 1
            if self.run.going:
                self.send_next()

    def marker(self) -> bytes:
        return f"{self.name}#{self.seq}|".encode()

    def send_next(self) -> None:
        self.seq += 1
        text = f"{self.name}#{self.seq}| hello everyone in the lobby"
        self.sent_at = time.perf_counter()
        if self.dialect == "nim":
            self.sendLine(f"SAY {text}".encode())
        elif self.dialect == "netacquire":
            self.transport.write(f'BM;Lobby,"{text}";:'.encode())
        else:
            self.sendLine(text.encode())


class Run:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.round_trips = 0
        self.delivered = 0
        self.going = False


@defer.inlineCallbacks
def measure(port: int, dialect: str, clients: int, seconds: float):
    run = Run()
    conns = []
    for i in range(clients):
        endpoint = protocol.ClientCreator(reactor, Client, run, f"u{i}", dialect)
        proto = yield endpoint.connectTCP("127.0.0.1", port)
        conns.append(proto)
    yield defer.gatherResults([c.ready for c in conns])
    yield task.deferLater(reactor, 0.5, lambda: None)     # let joins settle
    run.going = True
    started = time.perf_counter()
    for c in conns:
        c.send_next()
    yield task.deferLater(reactor, seconds, lambda: None)
    run.going = False
    elapsed = time.perf_counter() - started
    for c in conns:
        c.transport.loseConnection()
    yield task.deferLater(reactor, 0.3, lambda: None)
    lat = sorted(run.latencies)
    return {
        "round_trips_per_s": run.round_trips / elapsed,
        "delivered_per_s": run.delivered / elapsed,
        "p50_ms": 1000 * lat[len(lat) // 2] if lat else float("nan"),
        "p99_ms": 1000 * lat[int(len(lat) * 0.99)] if lat else float("nan"),
    }


@defer.inlineCallbacks
def main(args):
    hall_port, echo_port = free_port(), free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(EXAMPLE), str(ROOT)]))
    twistd = str(Path(sys.executable).parent / "twistd")
    db = Path(tempfile.mkdtemp()) / "bench.sqlite"
    hall = start([twistd, "-n", "--pidfile=", "gamehall", "--db", str(db), "--max-per-peer", "0",
                  "--admin", f"tcp:{free_port()}:interface=127.0.0.1",
                  "--listen", f"{args.protocol}=tcp:{hall_port}:interface=127.0.0.1"]
                 + [a for name in installed_frontends() if name != args.protocol
                    for a in ("--disable", name)],
                 f"{args.protocol} listening", env)
    echo = start([sys.executable, "-c", ECHO_SERVER, str(echo_port)], "listening")
    try:
        through_hall = yield measure(hall_port, args.protocol, args.clients, args.seconds)
        bare = yield measure(echo_port, "echo", args.clients, args.seconds)
    finally:
        hall.terminate(), echo.terminate()
        hall.wait(), echo.wait()
    print(f"lobby chat, {args.clients} clients, {args.seconds:.0f} s each, protocol {args.protocol}")
    for name, r in (("hall", through_hall), ("bare echo", bare)):
        print(f"  {name:9}: {r['round_trips_per_s']:9.0f} round trips/s  {r['delivered_per_s']:10.0f} lines delivered/s"
              f"  p50 {r['p50_ms']:6.2f} ms  p99 {r['p99_ms']:6.2f} ms")
    print(f"  ratio hall/echo: round trips {through_hall['round_trips_per_s'] / bare['round_trips_per_s']:.3f}, "
          f"lines delivered {through_hall['delivered_per_s'] / bare['delivered_per_s']:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--protocol", choices=["nim", "netacquire"], default="nim")
    options = parser.parse_args()
    def go():
        d = main(options)
        d.addErrback(lambda f: f.printTraceback())
        d.addBoth(lambda _: reactor.stop())
    reactor.callWhenRunning(go)
    reactor.run()
