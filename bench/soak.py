"""A soak of mixed NetAcquire and Windward games against a real ``twistd -n gamehall``, printing its memory.

    python bench/soak.py [--minutes 60] [--netacquire-games 6] [--windward-series 2]
                         [--think-ms 20-80] [--max-games N] [--every SECONDS]

The hall runs in its own process with its own temporary database and
loopback ports (netacquire and windward front ends only).  This process runs
the clients, in slots that each play one game after another with *new*
connections and new nicknames every time, so users keep joining and leaving:

- a NetAcquire slot connects four wire bots (bench/netacquire_load.py's),
  one of them says a unique line in the lobby, they create, join and start a
  four-player game, answer every request bot-like after a think time, say a
  unique line in the game room every few answers, leave the game (LV) when
  it ends, and disconnect;
- a Windward slot connects six clients that join the waiting series, answer
  every query as bench/windward_load.py's clients do, and disconnect at
  ``<exit/>`` (a series of one game, the hall's default).

A slot silent for 60 s is counted as stuck, dropped and started afresh.
Every minute (--every SECONDS; and at the start and the end) it prints the
hall's RSS (VmRSS from /proc/PID/status), the sizes of its database file and
of the database's write-ahead log, its CPU over that minute, games finished so
far, chat lines sent, slots stuck, and the machine's CPU pressure (the share
of time some task waited for a core: other work on a shared machine).  It stops by itself after --minutes (or --max-games
finished games): the slots stop, every client disconnects, and after 15 s
of quiet the hall's RSS is printed once more.  Figures only; nothing is
asserted.  Keep the concurrency low on a shared machine: the defaults use
well under one core in all (the hall and the clients).
"""
from __future__ import annotations

import argparse
import random
import signal
import sys
import time
import xml.etree.ElementTree as ET

from hallbench import Hall, cpu_pressure
from netacquire_load import Group, Stats, THINK, make_bot_class, think_range
from windward_load import answer as windward_answer

STUCK_AFTER = 60.0


class Counters:
    def __init__(self) -> None:
        self.netacquire_games = 0
        self.windward_games = 0
        self.chat_lines = 0
        self.stuck = 0
        self.connect_failures = 0
        self.windward_queries = 0

    @property
    def games(self) -> int:
        return self.netacquire_games + self.windward_games


class NetAcquireSlot(Group):
    """Four fresh bots per game: log in, chat, play one game, leave, disconnect; again."""

    def __init__(self, soak: "Soak", index: int) -> None:
        super().__init__(index, soak.na_stats, soak.rng)
        self.soak = soak
        self.generation = 0
        self.connected = 0

    def begin(self) -> None:
        """Connect four new bots (new nicknames)."""
        if not self.soak.going:
            return
        self.generation += 1
        self.bots, self.ready, self.closed_count, self.failed = [], 0, 0, 0
        self.running = True
        self.last_activity = time.monotonic()
        for k in range(4):
            self.soak.connect("netacquire", netacquire_factory(self, f"na{self.index}g{self.generation}p{k}"))

    def bot_ready(self, bot) -> None:
        self.ready += 1
        if self.ready == 4:
            self.bots.sort(key=lambda b: b.name)
            self.bots[0].send(b'BM;Lobby,"' + self.soak.chat_line("lobby") + b'"')
            self.new_game()

    def game_ended(self) -> None:
        self.ended += 1
        if self.ended == 4:
            self.soak.counters.netacquire_games += 1
            self.finish()

    def finish(self) -> None:
        """Leave: every bot disconnects; the next game starts when all have gone."""
        self.running = False
        for bot in self.bots:
            if bot.transport is not None and not bot.lost:
                bot.transport.loseConnection()

    def bot_lost(self) -> None:
        self.closed_count += 1
        if self.closed_count == len(self.bots) and not self.running:
            self.soak.reactor.callLater(0.1, self.begin)

    def check(self, now: float) -> None:
        if self.running and now - self.last_activity > STUCK_AFTER:
            self.soak.counters.stuck += 1
            self.finish()
            for bot in self.bots:
                if bot.transport is not None and not bot.lost:
                    bot.transport.abortConnection()
            if self.closed_count == len(self.bots):      # nobody connected at all
                self.soak.reactor.callLater(0.1, self.begin)


def netacquire_factory(slot: NetAcquireSlot, name: str):
    """A client factory for one named bot of a NetAcquire slot."""
    from twisted.internet.protocol import ClientFactory
    Bot = slot.soak.na_bot_class

    class Factory(ClientFactory):
        def buildProtocol(self, addr):
            bot = Bot(name, slot, slot.bot_ready)
            bot.factory = self
            slot.bots.append(bot)
            return bot

        def clientConnectionFailed(self, connector, reason):
            slot.soak.counters.connect_failures += 1
            slot.failed += 1

    return Factory()


def make_soak_bot_class(soak: "Soak"):
    """bench/netacquire_load.py's bot, plus game room chat and a clean leave."""
    Base = make_bot_class()

    class SoakBot(Base):
        answers = 0

        def answer_now(self, directive: bytes) -> None:
            super().answer_now(directive)
            self.answers += 1
            if not self.lost and self.answers % soak.chat_every == 0:
                self.send(b'BM;Game Room,"' + soak.chat_line("game") + b'"')

        def connectionLost(self, reason=None) -> None:
            was_lost, self.lost = self.lost, True
            if not was_lost:
                self.group.bot_lost()

    return SoakBot


class WindwardSlot:
    """Six fresh clients per series: join, answer every query, leave at <exit/>; again."""

    def __init__(self, soak: "Soak", index: int) -> None:
        self.soak, self.index = soak, index
        self.generation = 0
        self.clients: list = []
        self.closed = 0
        self.running = False
        self.last_activity = 0.0
        self.exits = 0

    def begin(self) -> None:
        if not self.soak.going:
            return
        self.generation += 1
        self.clients, self.closed, self.exits = [], 0, 0
        self.running = True
        self.last_activity = time.monotonic()
        for k in range(6):
            self.soak.connect("windward", self.soak.windward_factory(self, f"ww{self.index}g{self.generation}p{k}"))

    def client_lost(self, exited: bool) -> None:
        self.closed += 1
        self.exits += exited
        if self.closed == 6:
            if self.exits == 6:
                self.soak.counters.windward_games += 1
            self.running = False
            self.soak.reactor.callLater(0.1, self.begin)

    def check(self, now: float) -> None:
        if self.running and now - self.last_activity > STUCK_AFTER:
            self.soak.counters.stuck += 1
            self.last_activity = now
            for client in self.clients:
                if client.transport is not None and not client.gone:
                    client.transport.abortConnection()


def make_windward_factory(soak: "Soak"):
    from twisted.internet.protocol import ClientFactory, Protocol

    from gamehall.framing import WindwardFramer
    from gamehall_acquire.windward.wire.xmlcodec import encode_join, encode_reply

    framer_out = WindwardFramer()

    class Client(Protocol):
        def __init__(self, slot: WindwardSlot, name: str) -> None:
            self.slot, self.name = slot, name
            self.rng = random.Random(name)
            self.framer = WindwardFramer()
            self.my_guid = None
            self.gone = False
            self.exited = False

        def connectionMade(self) -> None:
            self.transport.write(framer_out.encode(encode_join(self.name, "Soak U", "Python")))

        def dataReceived(self, data: bytes) -> None:
            self.slot.last_activity = time.monotonic()
            for frame in self.framer.feed(data):
                root = ET.fromstring(frame)
                if root.tag == "exit":
                    self.exited = True
                    self.transport.loseConnection()
                elif root.tag == "setup":
                    self.my_guid = root.get("my-guid")
                    self.transport.write(framer_out.encode(b"<ready/>"))
                else:
                    soak.counters.windward_queries += 1
                    reply = encode_reply(root.tag, root.get("msg-id"), **windward_answer(root, self.my_guid, self.rng))
                    soak.reactor.callLater(self.rng.uniform(*THINK), self.reply, reply)

        def reply(self, payload: bytes) -> None:
            if not self.gone:
                self.transport.write(framer_out.encode(payload))

        def connectionLost(self, reason=None) -> None:
            if not self.gone:
                self.gone = True
                self.slot.client_lost(self.exited)

    def factory(slot: WindwardSlot, name: str):
        class Factory(ClientFactory):
            def buildProtocol(self, addr):
                client = Client(slot, name)
                client.factory = self
                slot.clients.append(client)
                return client

            def clientConnectionFailed(self, connector, reason):
                soak.counters.connect_failures += 1
                slot.client_lost(False)

        return Factory()

    return factory


class Soak:
    def __init__(self, options, hall: Hall) -> None:
        from twisted.internet import reactor
        self.reactor, self.options, self.hall = reactor, options, hall
        self.rng = random.Random(1)
        self.counters = Counters()
        self.na_stats = Stats()
        self.going = True
        self.chat_every = options.chat_every
        self.na_bot_class = make_soak_bot_class(self)
        self.windward_factory = make_windward_factory(self)
        self.slots: list = [NetAcquireSlot(self, i) for i in range(options.netacquire_games)]
        self.slots += [WindwardSlot(self, i) for i in range(options.windward_series)]
        self.started = time.monotonic()
        self.minute_cpu = (self.started, hall.cpu(), time.process_time())
        self.minute_games = 0
        self.rows: list[str] = []
        self.largest_wal = 0

    def chat_line(self, where: str) -> bytes:
        self.counters.chat_lines += 1
        return f"{where} line {self.counters.chat_lines} {self.rng.getrandbits(64):016x}".encode()

    def connect(self, frontend: str, factory) -> None:
        self.reactor.connectTCP("127.0.0.1", self.hall.ports[frontend], factory, timeout=30)

    def run(self) -> None:
        from twisted.internet.task import LoopingCall
        THINK[:] = think_range(self.options.think_ms)
        self.row("start")
        for i, slot in enumerate(self.slots):
            self.reactor.callLater(0.2 * i, slot.begin)       # not all at once
        LoopingCall(self.watch).start(5.0, now=False)
        self.reactor.callLater(self.options.every, self.every_minute)
        self.reactor.callLater(self.options.minutes * 60.0, self.wind_down)
        self.reactor.run()

    def watch(self) -> None:
        now = time.monotonic()
        for slot in self.slots:
            slot.check(now)
        if self.going and self.options.max_games and self.counters.games >= self.options.max_games:
            self.wind_down()

    def every_minute(self) -> None:
        if self.going:
            self.row(f"{(time.monotonic() - self.started) / 60:.1f}")
            self.reactor.callLater(self.options.every, self.every_minute)

    def row(self, label: str) -> None:
        now, cpu, mine = time.monotonic(), self.hall.cpu(), time.process_time()
        t0, cpu0, mine0 = self.minute_cpu
        share = (cpu - cpu0) / (now - t0) * 100 if now > t0 + 1 else 0.0
        clients = (mine - mine0) / (now - t0) * 100 if now > t0 + 1 else 0.0
        self.minute_cpu = (now, cpu, mine)
        c = self.counters
        db, wal = self.hall.db_sizes()
        self.largest_wal = max(self.largest_wal, wal)
        line = (f"{label:>6} {self.hall.rss_kb() / 1024:8.1f} {db / 2**20:7.1f} {wal / 2**20:7.1f} "
                f"{share:8.0f}% {clients:10.0f}% "
                f"{c.netacquire_games:8d} {c.windward_games:8d} "
                f"{c.games - self.minute_games:10d} {c.chat_lines:8d} {c.stuck:6d} {cpu_pressure():11.0f}%")
        self.minute_games = c.games
        self.rows.append(line)
        print(line, flush=True)

    def wind_down(self) -> None:
        if not self.going:
            return
        self.going = False
        self.row("end")
        for slot in self.slots:
            slot.running = False
            for client in getattr(slot, "bots", []) + getattr(slot, "clients", []):
                if client is not None and client.transport is not None:
                    client.transport.loseConnection()
        self.reactor.callLater(15.0, self.after_quiet)

    def after_quiet(self) -> None:
        self.row("quiet")
        self.reactor.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="how long to run (default 60)")
    parser.add_argument("--netacquire-games", type=int, default=6, help="concurrent NetAcquire games (default 6)")
    parser.add_argument("--windward-series", type=int, default=2,
                        help="concurrent Windward series of six clients (default 2)")
    parser.add_argument("--think-ms", default="20-80",
                        help="a client's delay before each answer, ms: LOW-HIGH or MEAN (default 20-80)")
    parser.add_argument("--chat-every", type=int, default=5,
                        help="a NetAcquire bot says a unique game room line every N answers (default 5)")
    parser.add_argument("--max-games", type=int, default=0, help="also stop after this many games (0: no limit)")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between rows (default 60)")
    options = parser.parse_args()
    think_range(options.think_ms)
    hall = Hall(["netacquire", "windward"], extra=["--bot-delay", "0"])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        hall.start()
        print(f"soak: {options.netacquire_games} NetAcquire games and {options.windward_series} Windward series at a "
              f"time, new clients for every game, think {options.think_ms} ms, for {options.minutes:g} min; "
              f"hall pid {hall.pid}", flush=True)
        print("minute  RSS(MB)  DB(MB) WAL(MB)  hall CPU  clients CPU  NA games WW games  games/min  chat   stuck  CPU pressure",
              flush=True)
        soak = Soak(options, hall)
        soak.run()
    finally:
        log = hall.log()
        hall.stop()
    c = soak.counters
    elapsed = (time.monotonic() - soak.started) / 60
    print(f"finished: {c.games} games ({c.netacquire_games} NetAcquire, {c.windward_games} Windward series) in "
          f"{elapsed:.1f} min, {c.chat_lines} unique chat lines, {c.windward_queries} Windward queries answered, "
          f"{soak.na_stats.refused} refused NetAcquire answers, {soak.na_stats.errors} error boxes, "
          f"{c.stuck} slots stuck, {c.connect_failures} failed connections; "
          f"largest write-ahead log seen {soak.largest_wal / 2**20:.1f} MB; "
          f"the hall logged {log.count('Traceback')} traceback(s)")


if __name__ == "__main__":
    main()
