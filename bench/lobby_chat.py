"""Lobby chat through the hall against a bare Twisted broadcast chat server, on loopback.

N clients each send a chat line and wait until their own line comes back
before sending the next (a closed loop).  Every line is broadcast to every
connected client, by the hall (its lobby chat: every lobby user of every
protocol) and by the bare server (a Twisted line protocol that writes each
line it receives to every connection, nothing else): the same fan-out and
the same client load.  Each server runs in its own process, one after the
other in the same run; the clients share this one.

    python bench/lobby_chat.py [--clients 50] [--seconds 10] [--protocol nim|netacquire]

Prints, for each server: round trips and lines delivered per second, p50/p99
round-trip latency, the server process's CPU seconds over the window
(/proc/PID/stat utime+stime), and lines delivered per server CPU-second; then
the hall's lines per CPU-second as a ratio to the bare server's (the hall's
overhead as one figure).  The hall runs with --rate 0: the per-connection
input limit is a policy, and a closed loop of fast clients would only measure
its throttling.  Never asserted.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from twisted.internet import defer, protocol, reactor, task
from twisted.protocols.basic import LineReceiver

from hallbench import ROOT, Hall, bench_env, child_setup, cpu_seconds, free_port, stop

EXAMPLE = ROOT / "tests" / "plugin_example"
DELIMITERS = {"nim": b"\r\n", "netacquire": b";:"}
BROADCAST_SERVER = """
import sys
from twisted.internet import reactor, protocol
from twisted.protocols.basic import LineReceiver

class Chat(LineReceiver):
    delimiter = sys.argv[2].encode().decode("unicode_escape").encode("latin-1")
    MAX_LENGTH = 1 << 16

    def connectionMade(self):
        self.factory.clients.append(self)

    def connectionLost(self, reason):
        self.factory.clients.remove(self)

    def lineReceived(self, line):
        for client in self.factory.clients:
            client.sendLine(line)

factory = protocol.Factory.forProtocol(Chat)
factory.clients = []
reactor.listenTCP(int(sys.argv[1]), factory, interface="127.0.0.1", backlog=1024)
print("listening", flush=True)
reactor.run()
"""


class Client(LineReceiver):
    """Sends its next line when its previous one comes back."""

    MAX_LENGTH = 1 << 20

    def __init__(self, run, name: str, dialect: str, bare: bool) -> None:
        self.run, self.name, self.dialect, self.bare = run, name, dialect, bare
        self.delimiter = DELIMITERS[dialect]
        self.sent_at = 0.0
        self.seq = 0
        self.ready = defer.Deferred()

    def connectionMade(self) -> None:
        if self.bare:
            self.ready.callback(self)
        elif self.dialect == "nim":
            self.sendLine(f"NICK {self.name}".encode())

    def lineReceived(self, line: bytes) -> None:
        line = line.strip()
        if not self.ready.called:
            if line.startswith(b"SP;"):
                self.sendLine(f"PL;{self.name},2,0,x".encode())
            elif line.startswith(b"OK welcome") or line.startswith(b"SS;3"):
                self.ready.callback(self)
            return
        if not self.run.going:
            return
        self.run.delivered += 1
        if self.marker() in line:
            self.run.latencies.append(time.perf_counter() - self.sent_at)
            self.run.round_trips += 1
            self.send_next()

    def marker(self) -> bytes:
        return f"{self.name}#{self.seq}|".encode()

    def send_next(self) -> None:
        self.seq += 1
        text = f"{self.name}#{self.seq}| hello everyone in the lobby"
        self.sent_at = time.perf_counter()
        if self.dialect == "nim":
            self.sendLine(f"SAY {text}".encode())
        else:
            self.sendLine(f'BM;Lobby,"{text}"'.encode())


class Run:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.round_trips = 0
        self.delivered = 0
        self.going = False


@defer.inlineCallbacks
def measure(port: int, pid: int, dialect: str, bare: bool, clients: int, seconds: float):
    run = Run()
    conns = []
    for i in range(clients):
        creator = protocol.ClientCreator(reactor, Client, run, f"u{i}", dialect, bare)
        conns.append((yield creator.connectTCP("127.0.0.1", port)))
    yield defer.gatherResults([c.ready for c in conns])
    yield task.deferLater(reactor, 1.5, lambda: None)     # let join notices settle
    cpu0 = cpu_seconds(pid)
    run.going = True
    started = time.perf_counter()
    for c in conns:
        c.send_next()
    yield task.deferLater(reactor, seconds, lambda: None)
    run.going = False
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu0
    for c in conns:
        c.transport.loseConnection()
    yield task.deferLater(reactor, 0.3, lambda: None)
    lat = sorted(run.latencies)
    return {
        "round_trips_per_s": run.round_trips / elapsed,
        "delivered_per_s": run.delivered / elapsed,
        "cpu": cpu, "elapsed": elapsed,
        "per_cpu_s": run.delivered / cpu if cpu > 0 else float("nan"),
        "p50_ms": 1000 * lat[len(lat) // 2] if lat else float("nan"),
        "p99_ms": 1000 * lat[int(len(lat) * 0.99)] if lat else float("nan"),
    }


def start_bare(port: int, delimiter: bytes) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", BROADCAST_SERVER, str(port),
                             delimiter.decode("latin-1").encode("unicode_escape").decode()],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=child_setup())
    line = proc.stdout.readline()
    if b"listening" not in line:
        raise RuntimeError("the broadcast server did not start: " + line.decode(errors="replace"))
    return proc


@defer.inlineCallbacks
def main(args):
    env = bench_env()
    env["PYTHONPATH"] = str(EXAMPLE) + ":" + env["PYTHONPATH"]
    hall = Hall([args.protocol], extra=["--rate", "0"], env=env)
    hall.start()
    try:
        through_hall = yield measure(hall.ports[args.protocol], hall.pid, args.protocol, False,
                                     args.clients, args.seconds)
    finally:
        hall.stop()
    bare_port = free_port()
    bare_server = start_bare(bare_port, DELIMITERS[args.protocol])
    try:
        bare = yield measure(bare_port, bare_server.pid, args.protocol, True, args.clients, args.seconds)
    finally:
        stop([bare_server])
    print(f"lobby chat, {args.clients} clients in a closed loop, every line to every client, "
          f"{args.seconds:.0f} s each, protocol {args.protocol}")
    for name, r in (("hall", through_hall), ("bare", bare)):
        print(f"  {name:4}: {r['round_trips_per_s']:7.0f} round trips/s {r['delivered_per_s']:9.0f} lines delivered/s"
              f"  p50 {r['p50_ms']:6.2f} ms  p99 {r['p99_ms']:6.2f} ms  server CPU {r['cpu']:5.2f} s"
              f" ({r['cpu'] / r['elapsed'] * 100:3.0f}%)  {r['per_cpu_s']:9.0f} lines per server CPU-second")
    print(f"  hall / bare broadcast server: lines per server CPU-second {through_hall['per_cpu_s'] / bare['per_cpu_s']:.2f}, "
          f"lines delivered per second {through_hall['delivered_per_s'] / bare['delivered_per_s']:.2f}")


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
