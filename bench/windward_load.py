"""Load on the windward front end: many concurrent series of six wire clients on loopback.

    .venv/bin/python bench/windward_load.py [--series 20] [--games 2] [--strong-games 20]

A server process runs a hall with the windward front end (in-memory store,
bots at full speed: as in ``gamehall-windward``, but seating any number of
series, six joins each); this process runs ``--series`` x 6 Twisted clients
that answer like the sample clients (a random tile of their hand that the
map shows playable, a random purchase).  Printed: games per second, queries
per second, and the server's turnaround: the time from a client's reply to
the next query of the same series (p50 / p99), which is what a contest
feels; and CPU per query of the server (with its cyclic GC share) and of the
clients, which unlike queries/s does not depend on what else the machine runs
(``WINDWARD_BENCH_PROFILE=FILE`` writes the server's cProfile stats).  Then,
in process and without any wire, six-player Windward games per second with
the strong bots.  Figures only; nothing is asserted.

    .venv/bin/python bench/windward_load.py --split-writes [--games 3] [--clients 1] [--pause 0.001]

``--split-writes``: one series whose ``--clients`` clients send each message
as the real sample clients do -- the 4-byte length in one ``send()``, the
XML body in another ``--pause`` seconds later, on a socket with Nagle's
algorithm on (neither sample sets TCP_NODELAY) -- while the server's AIs
play the other seats.  Without QUICKACK on the server the body waits for the
delayed ACK of the length (~40 ms on Linux), on every reply.  Printed: the
series' wall time, seconds per game and per query, and the turnaround
(reply sent -> next query to that client) p50 / p99.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


# ----------------------------------------------------------------- the server process
def serve(port: int, games: int, allow: tuple | None = None) -> None:
    from twisted.internet import reactor
    from twisted.internet.endpoints import TCP4ServerEndpoint

    from gamehall.hall import Hall
    from gamehall.store import MemoryStore
    from gamehall_acquire.windward.game import WindwardAcquireGame
    from gamehall_acquire.windward.wire.service import Settings
    from gamehall_acquire.windward.wire.protocol import build_factory

    store = MemoryStore(reactor)
    store.open()
    hall = Hall(reactor, store, {"windward": WindwardAcquireGame()}, {}, bot_delay=0.0, idle_timeout=0,
                max_per_peer=0)
    if allow:           # one series: these clients, the server's AIs in the other seats
        settings = Settings(games=games, bot_delay=0.0, seed=1, allow=allow, single=True)
    else:
        settings = Settings(games=games, bot_delay=0.0, seed=1)
    factory = build_factory(hall, settings)

    def listening(p):
        print(f"listening {p.getHost().port}", flush=True)

    TCP4ServerEndpoint(reactor, port, backlog=1024, interface="127.0.0.1").listen(factory).addCallback(listening)
    import gc
    import resource
    gc_time = [0.0, 0, None]               # seconds in the cyclic GC, collections, start of the current one

    def gc_timer(phase, info):
        if phase == "start":
            gc_time[2] = time.perf_counter()
        elif gc_time[2] is not None:
            gc_time[0] += time.perf_counter() - gc_time[2]
            gc_time[1] += 1
    gc.callbacks.append(gc_timer)
    profile = os.environ.get("WINDWARD_BENCH_PROFILE")     # a file for the server's cProfile stats
    if profile:
        import cProfile
        cProfile.runctx("reactor.run()", globals(), {"reactor": reactor}, profile)
    else:
        reactor.run()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"server cpu {usage.ru_utime + usage.ru_stime:.3f} gc {gc_time[0]:.3f} {gc_time[1]} "
          f"maxrss {usage.ru_maxrss}", flush=True)


# ----------------------------------------------------------------- the clients
class Tracker:
    """One series as its clients see it: the last reply sent, and the turnarounds."""

    def __init__(self):
        self.last_reply: float | None = None


def answer(root, my_guid: str, rng: random.Random) -> dict:
    """A sample client's answer: a random tile of its hand that the map shows playable, a random purchase."""
    if root.tag == "query-card":
        return {"card": 0}
    me = next(p for p in root.iter("player") if p.get("guid") == my_guid)
    if root.tag == "query-merge":
        stock = dict(e.split(":") for e in (me.findtext("stock") or "").split(";") if e)
        n = int(stock.get(root.get("defunct"), 0))
        return {"keep": 0, "sell": n - 2 * (n // 4), "trade": 2 * (n // 4)}
    cols = [c.text.split(";") for c in root.find("map").findall("column")]
    tiles = [tuple(map(int, t.split(":"))) for t in (me.findtext("tiles") or "").split(";") if t]
    playable = [(x, y) for x, y in tiles if cols[x][y].startswith("1:")]
    out = {}
    if playable:
        x, y = rng.choice(playable)
        out.update(tile_x=x, tile_y=y)
    if root.tag == "query-tile-purchase":
        active = [h.get("name") for h in root.find("hotels") if h.get("is-active") == "true"]
        if active:
            out["buy"] = f"{rng.choice(active)}:{rng.randrange(1, 4)};"
    return out


def run_clients(port: int, series: int, games: int) -> dict:
    from twisted.internet import reactor
    from twisted.internet.protocol import ClientFactory, Protocol

    from gamehall_acquire.windward.wire.codec import encode_join, encode_reply
    from gamehall_acquire.windward.wire.framing import WindwardFramer

    framer_out = WindwardFramer()
    trackers: dict[frozenset, Tracker] = {}
    stats = {"queries": 0, "setups": 0, "exits": 0, "latency": [], "lost": 0}
    total = series * 6
    done = [0]
    clock = time.perf_counter

    class Client(Protocol):
        def __init__(self, name: str, seed: int):
            self.name, self.rng = name, random.Random(seed)
            self.framer = WindwardFramer()
            self.tracker: Tracker | None = None
            self.my_guid = None

        def connectionMade(self):
            self.transport.write(framer_out.encode(encode_join(self.name, "Bench U", "Python")))

        def dataReceived(self, data):
            for frame in self.framer.feed(data):
                now = clock()
                root = ET.fromstring(frame)
                tag = root.tag
                if tag == "exit":
                    stats["exits"] += 1
                    self.transport.loseConnection()
                    continue
                if tag == "setup":
                    stats["setups"] += 1
                    self.my_guid = root.get("my-guid")
                    key = frozenset(p.get("name") for p in root.iter("player"))
                    self.tracker = trackers.setdefault(key, Tracker())
                    self.tracker.last_reply = None
                    self.transport.write(framer_out.encode(b"<ready/>"))
                    continue
                stats["queries"] += 1
                t = self.tracker
                if t is not None and t.last_reply is not None:
                    stats["latency"].append(now - t.last_reply)
                reply = encode_reply(tag, root.get("msg-id"), **answer(root, self.my_guid, self.rng))
                self.transport.write(framer_out.encode(reply))
                if t is not None:
                    t.last_reply = clock()

        def connectionLost(self, reason=None):
            done[0] += 1
            if done[0] == total:
                reactor.stop()

    class Factory(ClientFactory):
        def __init__(self):
            self.n = 0

        def buildProtocol(self, addr):
            self.n += 1
            p = Client(f"bench{self.n}", self.n)
            p.factory = self
            return p

        def clientConnectionFailed(self, connector, reason):
            stats["lost"] += 1
            done[0] += 1
            if done[0] == total:
                reactor.stop()

    factory = Factory()
    start = clock()
    for _ in range(total):
        reactor.connectTCP("127.0.0.1", port, factory)
    reactor.run()
    stats["seconds"] = clock() - start
    return stats


def server_figures(server) -> dict:
    """The figures the server prints when it stops (CPU seconds, cyclic GC time, max RSS)."""
    for line in server.stdout.read().splitlines():
        if line.startswith("server cpu "):
            w = line.split()
            return {"cpu": float(w[2]), "gc": float(w[4]), "collections": int(w[5]), "maxrss": int(w[7])}
    return {}


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


# ----------------------------------------------------------------- split writes (the real clients' pattern)
def split_client(name: str, port: int, pause: float, seed: int, out: dict) -> None:
    """One client on a blocking socket: length and body in two send() calls, Nagle on."""
    import socket
    import struct

    from gamehall_acquire.windward.wire.codec import encode_join, encode_reply

    clock = time.perf_counter
    rng = random.Random(seed)
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)

    def send(body: bytes) -> None:
        sock.sendall(struct.pack("<i", len(body)))
        if pause:
            time.sleep(pause)
        sock.sendall(body)

    def recv_exact(n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = sock.recv(n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    my_guid, sent_at = None, None
    latency, queries, setups = [], 0, 0
    send(encode_join(name, "Bench U", "Java"))
    try:
        while True:
            (n,) = struct.unpack("<i", recv_exact(4))
            root = ET.fromstring(recv_exact(n))
            now = clock()
            if root.tag == "exit":
                break
            if root.tag == "setup":
                setups += 1
                my_guid, sent_at = root.get("my-guid"), None
                send(b"<ready/>")
                continue
            queries += 1
            if sent_at is not None:
                latency.append(now - sent_at)
            send(encode_reply(root.tag, root.get("msg-id"), **answer(root, my_guid, rng)))
            sent_at = clock()
    except (EOFError, ConnectionError):
        pass
    finally:
        sock.close()
    out[name] = {"queries": queries, "setups": setups, "latency": latency}


def run_split(args) -> None:
    import threading
    names = [f"split{i + 1}" for i in range(args.clients)]
    server = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", "--games", str(args.games),
                               "--allow", ",".join(names)], stdout=subprocess.PIPE, text=True)
    results: dict = {}
    try:
        port = int(server.stdout.readline().split()[1])
        start = time.perf_counter()
        threads = [threading.Thread(target=split_client, args=(n, port, args.pause, i, results))
                   for i, n in enumerate(names)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(30)
    queries = sum(r["queries"] for r in results.values())
    lat = [x for r in results.values() for x in r["latency"]]
    print(f"windward split writes: 1 series x {args.games} games, {args.clients} client(s) writing length and "
          f"body apart ({args.pause * 1000:g} ms), Nagle on; the server's AIs in the other seats")
    print(f"  series             {seconds:8.2f} s   ({seconds / args.games:.2f} s per game)")
    print(f"  queries            {queries:8d}   ({queries / seconds:.0f} queries/s, "
          f"{seconds / max(queries, 1) * 1000:.1f} ms per query)")
    print(f"  reply -> next query to that client: p50 {pct(lat, 50) * 1000:.2f} ms, "
          f"p99 {pct(lat, 99) * 1000:.2f} ms")


# ----------------------------------------------------------------- soak: memory over many series
def run_soak(cycles: int) -> None:
    """In process, on a Clock: ``cycles`` times, a client joins and leaves (a waiting table
    opened and dropped), then a client plays a one-game series against five AIs and the
    series ends.  Printed after each quarter: the traced heap (the store forgets finished
    games) and the live series."""
    import gc
    import tracemalloc

    from twisted.internet.address import IPv4Address
    from twisted.internet.task import Clock
    from twisted.internet.testing import StringTransport

    from gamehall.hall import Hall
    from gamehall.store import MemoryStore
    from gamehall_acquire.windward.game import WindwardAcquireGame
    from gamehall_acquire.windward.wire.codec import encode_join, encode_reply
    from gamehall_acquire.windward.wire.framing import WindwardFramer
    from gamehall_acquire.windward.wire.match import Match
    from gamehall_acquire.windward.wire.protocol import build_factory
    from gamehall_acquire.windward.wire.service import Settings

    class ForgetfulStore(MemoryStore):
        """Forgets finished games (the in-memory store keeps every game by design), so
        the heap shows what the front end keeps."""

        def finish_table(self, table_id, *args, **kw):
            d = super().finish_table(table_id, *args, **kw)
            for rows in (self._tables, self._actions, self._results):
                rows.pop(table_id, None)
            return d

    clock = Clock()
    store = ForgetfulStore(clock)
    store.open()

    hall = Hall(clock, store, {"windward": WindwardAcquireGame()}, {}, bot_delay=0.0, idle_timeout=0,
                max_per_peer=0)
    factory = build_factory(hall, Settings(games=1, bot_delay=0.0, seed=1, ready_grace=0.01))
    service = factory.service
    framer = WindwardFramer()

    def connect(port):
        t = StringTransport(peerAddress=IPv4Address("TCP", "127.0.0.1", port))
        proto = factory.buildProtocol(t.getPeer())
        proto.makeConnection(t)
        return t, proto, WindwardFramer()

    def cycle(i):
        t, proto, _ = connect(2 * i)
        proto.dataReceived(framer.encode(encode_join(f"drop{i}")))
        t.loseConnection()
        proto.connectionLost(None)
        t, proto, rx = connect(2 * i + 1)
        proto.dataReceived(framer.encode(encode_join(f"play{i}")))
        service.start()
        while service.matches:
            for frame in rx.feed(t.value()):
                root = ET.fromstring(frame)
                if root.tag == "setup":
                    proto.dataReceived(framer.encode(b"<ready/>"))
                elif root.tag.startswith("query"):
                    proto.dataReceived(framer.encode(encode_reply(root.tag, root.get("msg-id"))))
            t.clear()
            clock.advance(0.01)
        proto.connectionLost(None)

    def live_series():
        gc.collect()
        return sum(isinstance(o, Match) for o in gc.get_objects())

    def heap() -> float:
        gc.collect()
        return tracemalloc.get_traced_memory()[0] / 1e6

    tracemalloc.start()
    for i in range(25):                  # warm up: past the kept finished series (20)
        cycle(i)
    base = heap()
    print(f"windward soak: {cycles} join-and-leave cycles and {cycles} one-game series (one client, five AIs)")
    print(f"  after warm-up      heap +0.00 MB, live series {live_series()}")
    start = time.perf_counter()
    for i in range(25, 25 + cycles):
        cycle(i)
        done = i - 24
        if done % max(1, cycles // 4) == 0 or done == cycles:
            print(f"  after {done:5d}        heap {heap() - base:+.2f} MB, live series {live_series()}, "
                  f"service.tables {len(service.tables)}, hall tables {len(hall.tables)}")
    print(f"  {cycles / (time.perf_counter() - start):.1f} cycles/s (traced)")


def strong_in_process(games: int) -> tuple[float, float]:
    from gamehall_acquire.windward.bots import make_bot
    from gamehall_acquire.windward.series import Series
    series = Series([f"s{i}" for i in range(6)], games=games, seed=1)
    actions = [0]
    start = time.perf_counter()
    series.play([make_bot("strong", i) for i in range(6)], on_events=lambda k, ev: actions.__setitem__(0, actions[0] + 1))
    seconds = time.perf_counter() - start
    return games / seconds, actions[0] / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", type=int, default=20, help="concurrent series of six clients (default 20)")
    parser.add_argument("--games", type=int, default=2, help="games per series (default 2)")
    parser.add_argument("--strong-games", type=int, default=20, help="in-process strong-bot games (default 20)")
    parser.add_argument("--split-writes", action="store_true",
                        help="one series with clients that write length and body apart (the real clients)")
    parser.add_argument("--clients", type=int, default=1, help="--split-writes: clients in the series (default 1)")
    parser.add_argument("--pause", type=float, default=0.001,
                        help="--split-writes: seconds between the length and the body (default 0.001)")
    parser.add_argument("--soak", type=int, metavar="N",
                        help="in process: N join-and-leave cycles and N one-game series; heap and live series")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--allow", default="", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.port, args.games, tuple(n for n in args.allow.split(",") if n) or None)
        return
    if args.split_writes:
        run_split(args)
        return
    if args.soak:
        run_soak(args.soak)
        return
    server = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", "--games", str(args.games)],
                              stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        port = int(line.split()[1])
        stats = run_clients(port, args.series, args.games)
    finally:
        server.terminate()
        server.wait(30)
    cpu = server_figures(server)
    seconds = stats["seconds"]
    games = stats["setups"] / 6
    lat = stats["latency"]
    print(f"windward wire load: {args.series} concurrent series x {args.games} games, 6 clients each "
          f"({args.series * 6} connections), {seconds:.2f} s")
    print(f"  games/s            {games / seconds:8.1f}   ({games:.0f} games, exits {stats['exits']}, "
          f"failed connects {stats['lost']})")
    print(f"  queries/s          {stats['queries'] / seconds:8.0f}   ({stats['queries']} queries)")
    print(f"  reply -> next query of the series: p50 {pct(lat, 50) * 1000:.2f} ms, "
          f"p99 {pct(lat, 99) * 1000:.2f} ms, max {max(lat) * 1000 if lat else float('nan'):.2f} ms")
    if cpu:
        import resource
        mine = resource.getrusage(resource.RUSAGE_SELF)
        client_cpu = mine.ru_utime + mine.ru_stime
        print(f"  cpu per query      server {cpu['cpu'] / stats['queries'] * 1000:.2f} ms "
              f"(of which cyclic GC {cpu['gc'] / stats['queries'] * 1000:.2f} ms, {cpu['collections']} collections), "
              f"clients {client_cpu / stats['queries'] * 1000:.2f} ms; server max RSS {cpu['maxrss'] // 1024} MB")
    gps, aps = strong_in_process(args.strong_games)
    print(f"in process, six strong bots: {gps:.1f} games/s ({aps:.0f} decisions/s, {args.strong_games} games)")


if __name__ == "__main__":
    main()
