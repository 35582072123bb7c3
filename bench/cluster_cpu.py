"""The CPU of one hall on two processes per stored action, by process and by part: in process.

Two ``Hall``s in one Python process, as the cluster tests have them (tests/cluster/harness.py):
each on its own ``task.Clock`` and ``LocalBus`` (one ``LocalHub``), one ``MemoryStore``
shared (it stands in for PostgreSQL).  Whole four-player Acquire games are played by
NetAcquire clients over StringTransport (tests/netacquire: the test suite's client logic);
with ``--procs 2`` (the default) seats 0 and 2 sign in on one process and seats 1 and 3 on
the other, the game made on each process in turn, so that every game runs on its owner and
has a replica on the other, as in ``bench/cluster_load.py`` where a load balancer spreads
the clients.  ``--procs 1`` puts every client on one process (the one-process figure, the
hall still on the bus).

The work is attributed to a process by where it starts: a client's data arriving at that
process's protocol, or that process's clock (its bus deliveries, announcements, timers):
thread CPU time, so other work on a shared machine hardly moves it.  Within, the time is
split by part (exclusive: a part's own time, less the parts called from it):

- ``render``: the NetAcquire front end telling its users (``table_event``, lobby notices);
- ``engine``: the rules engine's ``apply`` (the owner's, the replica's, the replica's check);
- ``table``: a move at the table that runs it (``Table.act``, less engine, store, render);
- ``store``: the MemoryStore calls (PostgreSQL's client work is not in it);
- ``bus.publish``: encoding and publishing a bus message; ``bus.receive``: decoding and
  dispatching one (LocalBus, ClusterNode, the table channel);
- ``relay``: the owner turning its table's events into table-channel messages;
- ``replica``: the replica taking in the owner's messages (less engine and render);
- ``forward``: a move of a user on the replica's process: checked there (the engine copy),
  asked of the owner, answered (both sides, less the table's own work);
- ``list``: table-list announcements (made, received, mirrored);
- ``other``: the rest (the NetAcquire protocol's parsing, the table's own logic...).

    python bench/cluster_cpu.py [--games 6] [--procs 1|2|both] [--rounds 2] [--profile a|b] [--sizes]
    CLUSTER_CPU_ROOT=DIR python bench/cluster_cpu.py ...     (another checkout's hall: before/after)

Also ``--redis``: the RedisBus client's CPU per message published and received, against a
throwaway redis-server (tests/redisserver.py), with messages like the table channel's.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(os.environ.get("CLUSTER_CPU_ROOT") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))

from twisted.internet.task import Clock  # noqa: E402

from gamehall.bus import encode_message  # noqa: E402
from gamehall.bus.localbus import LocalBus, LocalHub  # noqa: E402
from gamehall.cluster import node as node_module  # noqa: E402
from gamehall.cluster import replica as replica_module  # noqa: E402
from gamehall.cluster import tables as tables_module  # noqa: E402
from gamehall.cluster.hallwide import attach  # noqa: E402
from gamehall.cluster.node import ClusterNode  # noqa: E402
from gamehall.hall import Hall  # noqa: E402
from gamehall.store import MemoryStore  # noqa: E402
from gamehall.table import Table  # noqa: E402
from gamehall_acquire.rules import Game  # noqa: E402
from gamehall_acquire.wire.protocol import NetAcquireProtocol, build_factory  # noqa: E402
from tests.netacquire.harness import Conn, acquire_game  # noqa: E402

PARTS = ("render", "engine", "table", "store", "bus.publish", "bus.receive", "relay", "replica", "forward",
         "list", "other")


class Meter:
    """Exclusive thread CPU time by (process, part); a process is set by an entry point."""

    def __init__(self) -> None:
        self.totals: dict[tuple[str, str], float] = defaultdict(float)
        self.calls: dict[tuple[str, str], int] = defaultdict(int)
        self.stack: list[list] = []          # [process, part, start, children]
        self.profiles: dict[str, cProfile.Profile] = {}
        self.messages: dict[str, int] = defaultdict(int)        # channel:kind -> published
        self.message_bytes: dict[str, int] = defaultdict(int)
        self.sizes = False

    def enter(self, proc: str | None, part: str) -> None:
        if proc is None:
            proc = self.stack[-1][0] if self.stack else "?"
        if not self.stack and proc in self.profiles:
            self.profiles[proc].enable()
        self.stack.append([proc, part, time.thread_time(), 0.0])

    def leave(self) -> None:
        now = time.thread_time()
        proc, part, start, children = self.stack.pop()
        spent = now - start
        self.totals[(proc, part)] += spent - children
        self.calls[(proc, part)] += 1
        if self.stack:
            self.stack[-1][3] += spent
        elif proc in self.profiles:
            self.profiles[proc].disable()

    def wrap(self, owner, name: str, part: str, proc=None) -> None:
        """Time ``owner.name`` as ``part``; ``proc(args)`` names the process (an entry
        point), else it is the caller's."""
        original = getattr(owner, name)
        if getattr(original, "_metered", False):
            return
        meter = self

        def metered(*args, **kw):
            if not meter.stack and proc is None:
                return original(*args, **kw)     # (outside the game: set-up)
            meter.enter(proc(args) if proc is not None else None, part)
            try:
                return original(*args, **kw)
            finally:
                meter.leave()
        metered._metered = True
        metered.__wrapped__ = original
        setattr(owner, name, metered)


def instrument(meter: Meter, hall_of_proto) -> list:
    """Wrap the parts; a list of (owner, name, original) to undo it."""
    undo = []

    def wrap(owner, name, part, proc=None):
        undo.append((owner, name, getattr(owner, name)))
        meter.wrap(owner, name, part, proc)

    # entry points: a client's data, a process's clock
    wrap(NetAcquireProtocol, "dataReceived", "other", lambda args: hall_of_proto(args[0]))
    for name in ("table_event", "lobby_changed", "lobby_chat"):
        wrap(NetAcquireProtocol, name, "render")
    wrap(Game, "apply", "engine")
    for name in ("act", "act_for"):
        wrap(Table, name, "table")
    for name in ("append_action", "create_table", "update_table", "finish_table", "load_table",
                 "take_lease", "renew_leases", "release_lease", "lapsed_tables"):
        if hasattr(MemoryStore, name):
            wrap(MemoryStore, name, "store")
    wrap(LocalBus, "publish", "bus.publish")
    wrap(LocalBus, "_deliver", "bus.receive")
    wrap(node_module.ClusterNode, "_received", "bus.receive")
    wrap(tables_module.ClusterTables, "_on_table_message", "bus.receive")
    for name in ("table_told", "tell_one", "_publish"):
        wrap(tables_module.ClusterTables, name, "relay")
    for name in ("received", "_apply_owned", "_event", "_personal", "loaded"):
        wrap(replica_module.ReplicaTable, name, "replica")
    wrap(replica_module.ReplicaTable, "_act", "forward")
    wrap(replica_module.ReplicaTable, "request_done", "forward")
    for name in ("forward", "_request", "_do"):
        wrap(tables_module.ClusterTables, name, "forward")
    for name in ("request", "_answer", "tell_reply", "_reply_received"):
        wrap(node_module.ClusterNode, name, "forward")
    for name in ("_flush_announcements", "_announced", "mirror", "state_of"):
        wrap(tables_module.ClusterTables, name, "list")
    return undo


class TwoProcesses:
    """Halls ``a`` and ``b``, each on its own clock and LocalBus, on one hub and one store."""

    def __init__(self, meter: Meter, names=("a", "b"), seed: int = 1) -> None:
        self.meter = meter
        self.hub_clock = Clock()
        self.hub = LocalHub(self.hub_clock)
        self.store = MemoryStore(self.hub_clock)
        self.store.open()
        self.clocks: dict[str, Clock] = {}
        self.halls: dict[str, Hall] = {}
        self.factories = {}
        games = {"acquire": acquire_game()}
        for name in names:
            clock = Clock()
            hall = Hall(clock, self.store, games, rng=random.Random(seed), seat_hold=30.0, bot_delay=0.5,
                        idle_timeout=0)
            bus = LocalBus(clock, self.hub)
            bus.start()
            attach(hall, ClusterNode(clock, bus, name))
            self.clocks[name], self.halls[name] = clock, hall
            hall.cluster.start()
            hall.restore()
            self.factories[name] = build_factory(hall)
            self.advance(0)
        self.advance(0.5)

    def advance(self, seconds: float) -> None:
        self.hub_clock.advance(seconds)
        for name, clock in self.clocks.items():
            self.meter.enter(name, "other")
            try:
                clock.advance(seconds)
            finally:
                self.meter.leave()

    def due(self) -> bool:
        return any(call.getTime() <= clock.seconds() for clock in self.clocks.values()
                   for call in clock.getDelayedCalls())

    def run(self, conns, until, limit: int = 200000) -> None:
        for _ in range(limit):
            if until():
                return
            busy = False
            for conn in conns:
                busy = conn.pump() or busy
            if self.due():
                self.advance(0)
            elif not busy:
                self.advance(0.05)
        raise AssertionError("the games did not end")


def play(procs: int, games: int, meter: Meter) -> int:
    """Play ``games`` four-player games; the number of actions stored."""
    names = ("a", "b")
    hall_of = {}
    c = TwoProcesses(meter, names[:procs])
    for name, hall in c.halls.items():
        hall_of[id(hall)] = name
    undo = instrument(meter, lambda proto: hall_of[id(proto.factory.hall)])
    stored = [0]
    append = MemoryStore.append_action
    publish = LocalBus.publish

    def counted_publish(self, channel, message):
        if meter.stack:
            kind = channel.split(".")[0] + ":" + str(message.get("t") or message.get("k"))
            meter.messages[kind] += 1
            if meter.sizes:       # (encoded once more: off by default, it would count as the caller's)
                meter.message_bytes[kind] += len(encode_message(message))
        return publish(self, channel, message)
    LocalBus.publish = counted_publish

    def counted(self, *args, **kw):
        d = append(self, *args, **kw)
        stored[0] += 1
        return d
    MemoryStore.append_action = counted
    try:
        for g in range(games):
            homes = [names[(g + i) % procs] for i in range(4)]
            conns = [Conn(c.factories[home], f"P{g}x{i}", 2000 + 4 * g + i, seed=100 * g + i)
                     for i, home in enumerate(homes)]
            for conn in conns:
                conn.spectator = False
            c.run(conns, lambda: True)
            conns[0].send("SG;4")
            for _ in range(20):
                c.advance(0.05)
                for conn in conns:
                    conn.pump()
            table_id = max(c.halls[homes[0]].tables)
            for conn in conns[1:]:
                conn.send(f"JG;{table_id},-1")
            for _ in range(20):
                c.advance(0.05)
                for conn in conns:
                    conn.pump()
            conns[0].send("PG;")
            c.run(conns, lambda: all(conn.logic.ended for conn in conns))
            for conn in conns:
                conn.drop()
            c.advance(0.5)
    finally:
        MemoryStore.append_action = append
        LocalBus.publish = publish
        for owner, name, original in reversed(undo):
            setattr(owner, name, original)
    return stored[0]


def report(procs: int, games: int, rounds: int, profile: str | None, sizes: bool = False) -> None:
    best = None
    for _ in range(rounds):
        meter = Meter()
        meter.sizes = sizes
        if profile:
            meter.profiles[profile] = cProfile.Profile(time.thread_time)
        actions = play(procs, games, meter)
        total = sum(meter.totals.values())
        if best is None or total / actions < best[0]:
            best = (total / actions, meter, actions)
    _, meter, actions = best
    names = sorted({proc for proc, _ in meter.totals})
    print(f"cluster_cpu: {procs} process{'es' if procs > 1 else ''}, {games} games, {actions} actions stored; "
          f"hall CPU per stored action, us (best of {rounds}):")
    print(f"{'part':<12}" + "".join(f"{name:>9}" for name in names) + f"{'all':>9}")
    for part in PARTS:
        row = [meter.totals.get((name, part), 0.0) / actions * 1e6 for name in names]
        print(f"{part:<12}" + "".join(f"{v:9.0f}" for v in row) + f"{sum(row):9.0f}")
    row = [sum(v for (p, _), v in meter.totals.items() if p == name) / actions * 1e6 for name in names]
    print(f"{'total':<12}" + "".join(f"{v:9.0f}" for v in row) + f"{sum(row):9.0f}")
    publishes = sum(n for (p, part), n in meter.calls.items() if part == "bus.publish")
    print(f"bus messages published per action: {publishes / actions:.2f}: " + ", ".join(
        f"{kind} {n / actions:.2f}" + (f" ({meter.message_bytes[kind] / n:.0f} B)" if meter.sizes else "")
        for kind, n in sorted(meter.messages.items(), key=lambda kv: -kv[1])))
    for name, profiler in meter.profiles.items():
        print(f"\nprofile of process {name}:")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--procs", default="both", choices=("1", "2", "both"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", default=None, help="cProfile the work of process a or b")
    parser.add_argument("--sizes", action="store_true", help="the bus messages' sizes too (adds to the CPU)")
    parser.add_argument("--redis", action="store_true", help="the RedisBus client's CPU per message")
    options = parser.parse_args()
    if options.redis:
        redis_figures()
        return
    for procs in ((1, 2) if options.procs == "both" else (int(options.procs),)):
        report(procs, options.games, options.rounds, options.profile, options.sizes)


# bus messages as the table channel and a forwarded move have them (sizes as counted above)
ACT = {"t": "act", "seq": 57, "seat": 2, "action": {"play_tile": "5F"}}
ASK = {"k": "table", "f": "host:1234:ab12", "r": 812, "b": {"seat": 1, "action": {"buy": ["Tower", "Tower"]},
       "seq": 57, "nick": "P3x1", "frontend": "netacquire", "address": "127.0.0.1", "id": 1004, "op": "act"}}


def redis_figures(count: int = 4000, batch: int = 8) -> None:
    """The RedisBus client's CPU per message: ``count`` messages published ``batch`` at a
    time (each batch once the last is answered), first to nobody (the publishing side:
    encode, PUBLISH, its reply), then to a subscriber in this process too (the difference:
    the receiving side, decode and dispatch); thread CPU of the reactor's thread."""
    from twisted.internet import defer, reactor, task

    from gamehall.bus.redisbus import RedisBus
    from tests.redisserver import RedisServer

    server = RedisServer()
    server.start()
    heard = [0]

    def hear(channel, message) -> None:
        heard[0] += 1

    @defer.inlineCallbacks
    def run():
        sender, receiver = RedisBus(server.url, reactor), RedisBus(server.url, reactor)
        yield sender.start()
        yield receiver.start()
        try:
            for name, message in (("table channel act", ACT), ("forwarded move", ASK)):
                spent = {}
                for subscribed in (False, True):
                    if subscribed:
                        yield receiver.subscribe("bench", hear)
                    heard[0] = 0
                    yield task.deferLater(reactor, 0.2, lambda: None)
                    t0 = time.thread_time()
                    for _ in range(count // batch):
                        yield defer.gatherResults([sender.publish("bench", message) for _ in range(batch)])
                    while subscribed and heard[0] < count:
                        yield task.deferLater(reactor, 0.001, lambda: None)
                    spent[subscribed] = (time.thread_time() - t0) / count * 1e6
                    if subscribed:
                        yield receiver.unsubscribe("bench", hear)
                print(f"RedisBus, {name} ({len(encode_message(message))} B), {count} messages {batch} at a "
                      f"time: publishing {spent[False]:.0f} us a message, receiving "
                      f"{spent[True] - spent[False]:.0f} us")
        finally:
            yield sender.stop()
            yield receiver.stop()

    try:
        task.react(lambda _: run())
    except SystemExit:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    main()
