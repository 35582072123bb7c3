"""A soak of mixed games on every front end against a real ``twistd -n gamehall``, printing its memory.

    python bench/soak.py [--minutes 60] [--netacquire-games 6] [--windward-series 2]
                         [--pimp-games 2] [--pimp-rolls 150] [--et-games 2]
                         [--daide-games 1] [--daide-draw-year 1904] [--web-spectators 3]
                         [--think-ms 20-80] [--census MINUTES] [--hall-log FILE]
                         [--max-games N] [--every SECONDS]

The hall runs in its own process with its own temporary database and
loopback ports (only the front ends with slots).  This process runs the
clients, in slots that each play one game after another with *new*
connections and new nicknames every time, so users keep joining and leaving:

- a NetAcquire slot connects four wire bots (bench/netacquire_load.py's),
  one of them says a unique line in the lobby, they create, join and start a
  four-player game, answer every request bot-like after a think time, say a
  unique line in the game room every few answers, leave the game (LV) when
  it ends, and disconnect;
- a Windward slot connects six clients that join the waiting series, answer
  every query as bench/windward_load.py's clients do, and disconnect at
  ``<exit/>`` (a series of one game, the hall's default);
- a PIMP slot opens a Monopoly table on the admin console (``monopoly new``)
  and connects four of bench/pimp_load.py's clients (its ``Game``), which
  play --pimp-rolls rolls; then three quit, the fourth wins, all disconnect;
- an E&T slot connects four of bench/et_load.py's clients
  (tests/et/etclient.py): they take names, one invites the others, and they
  play the game through and disconnect;
- a DAIDE slot connects seven of bench/daide_load.py's clients
  (tests/daide/client.py): random orders every phase, a draw proposed from
  --daide-draw-year; a game counts when all seven got its summary (SMR);
- a web slot is one WebSocket spectator (bench/web_load.py's connection and
  sign-in; the ``websockets`` package of the ``bench`` extra): it takes the
  lobby, watches a table of another front end being played, and leaves when
  that game has finished; then a new connection and nickname.

PIMP and DAIDE put a new connection into their one open table, so their
slots seat their players one slot at a time.  Every client answers after a
think time (--think-ms).  A slot silent for 60 s is counted as stuck,
dropped and started afresh.
Every minute (--every SECONDS; and at the start and the end) it prints the
hall's RSS (VmRSS from /proc/PID/status), the sizes of its database file and
of the database's write-ahead log, its CPU over that minute, games finished so
far per front end, chat lines sent, slots stuck, and the machine's CPU pressure (the share
of time some task waited for a core: other work on a shared machine).  It stops by itself after --minutes (or --max-games
finished games): the slots stop, every client disconnects, and after 15 s
of quiet the hall's RSS is printed once more.  Figures only; nothing is
asserted.  Keep the concurrency low on a shared machine.
"""
from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import signal
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from collections import Counter
from types import SimpleNamespace

from twisted.internet.defer import DeferredLock
from twisted.internet.protocol import ClientFactory, Protocol
from twisted.internet.threads import deferToThread
from twisted.protocols.basic import LineReceiver

from et_load import Client as EtPlayer, asked, game_over, invitation
from gamehall_acquire.windward.wire.codec import encode_join, encode_reply
from gamehall_acquire.windward.wire.framing import WindwardFramer
from hallbench import Hall, cpu_pressure
from netacquire_load import Group, Stats, THINK, make_bot_class, think_range
from pimp_load import WARMUP, Admin, Game
from tests.daide.client import Client as DaidePlayer
from web_load import sign_in, spectator_connection
from windward_load import answer as windward_answer

STUCK_AFTER = 60.0
KINDS = {"netacquire": "NA", "windward": "WW", "pimp": "PIMP", "et": "E&T", "daide": "DAIDE",   # front end: column
         "web": "web"}


class Counters:
    def __init__(self) -> None:
        self.games: Counter = Counter()          # front end -> games finished
        self.stuck_by: Counter = Counter()       # front end -> slots counted stuck
        self.chat_lines = 0
        self.stuck = 0
        self.connect_failures = 0
        self.windward_queries = 0
        self.pimp_rolls = 0
        self.pimp_split = 0                      # PIMP clients of one slot on different tables
        self.client_errors = 0
        self.daide_phases = 0                    # NOW messages of the finished games (one player's)
        self.web_watched: Counter = Counter()    # game -> tables a web spectator watched to the end
        self.web_messages = 0                    # game messages the web spectators received
        self.web_aborted = 0
        self.daide_unfinished = 0                # DAIDE games whose players were told OFF without a result

    @property
    def total(self) -> int:
        return sum(self.games.values())


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
            self.soak.counters.games["netacquire"] += 1
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
            self.soak.counters.stuck_by["netacquire"] += 1
            self.finish()
            for bot in self.bots:
                if bot.transport is not None and not bot.lost:
                    bot.transport.abortConnection()
            if self.closed_count == len(self.bots):      # nobody connected at all
                self.soak.reactor.callLater(0.1, self.begin)


def netacquire_factory(slot: NetAcquireSlot, name: str):
    """A client factory for one named bot of a NetAcquire slot."""
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


class Slot:
    """One game after another of fresh connections to one front end (``kind``).

    ``start()`` opens this game's connections with ``connect``; their protocols call
    ``heard()`` on every input and ``client_lost()`` once when closed; ``won()`` counts
    the game and closes them; once all are gone the next game begins.  Where the front end
    puts a new connection into its one open table (PIMP, DAIDE), ``joins_alone``: the slots
    of that kind open their games one at a time, each holding ``Soak.join_locks[kind]``
    until it calls ``release()`` (its players are seated); the wait is not silence."""

    kind = ""
    joins_alone = False

    def __init__(self, soak: "Soak", index: int) -> None:
        self.soak, self.index = soak, index
        self.generation = 0
        self.clients: list = []               # this game's connections (protocols)
        self.expected = self.closed = 0
        self.running = self.over = False
        self.waiting = self.holding = False
        self.last_activity = 0.0

    def begin(self) -> None:
        if not self.soak.going:
            return
        self.generation += 1
        self.clients, self.expected, self.closed = [], 0, 0
        self.running, self.over = True, False
        self.heard()
        if self.joins_alone:
            self.waiting = True
            self.soak.join_locks[self.kind].acquire().addCallback(self.locked)
        else:
            self.start()

    def locked(self, _) -> None:
        self.waiting, self.holding = False, True
        self.heard()
        if self.soak.going:
            self.start()
        else:
            self.release()

    def release(self) -> None:
        if self.holding:
            self.holding = False
            self.soak.join_locks[self.kind].release()

    def start(self) -> None:
        raise NotImplementedError

    def connect(self, build) -> None:
        """Open one connection to the slot's front end; ``build()`` makes its protocol."""
        self.expected += 1
        self.soak.connect(self.kind, SlotFactory(self, build))

    def heard(self) -> None:
        self.last_activity = time.monotonic()

    def won(self) -> None:
        if not self.over:
            self.over = True
            self.soak.counters.games[self.kind] += 1
            self.finish()

    def finish(self) -> None:
        for client in self.clients:
            if client.transport is not None and not client.gone:
                client.transport.loseConnection()

    def client_lost(self) -> None:
        self.closed += 1
        if self.closed == self.expected:
            self.running = False
            self.release()
            self.all_gone()
            self.soak.reactor.callLater(0.1, self.begin)

    def all_gone(self) -> None:
        pass

    def check(self, now: float) -> None:
        if self.running and not self.waiting and now - self.last_activity > STUCK_AFTER:
            self.soak.counters.stuck += 1
            self.soak.counters.stuck_by[self.kind] += 1
            self.last_activity = now
            for client in self.clients:
                if client.transport is not None and not client.gone:
                    client.transport.abortConnection()


class SlotFactory(ClientFactory):
    def __init__(self, slot: Slot, build) -> None:
        self.slot, self.build = slot, build

    def buildProtocol(self, addr):
        client = self.build()
        client.factory = self
        self.slot.clients.append(client)
        return client

    def clientConnectionFailed(self, connector, reason) -> None:
        self.slot.soak.counters.connect_failures += 1
        self.slot.client_lost()


class SlotClient:
    """Protocol mix-in: tells its slot once when the connection is gone."""

    slot: Slot
    gone = False

    def connectionLost(self, reason=None) -> None:
        if not self.gone:
            self.gone = True
            self.slot.client_lost()

    def later(self, send, *args) -> None:
        """Call ``send(*args)`` after a think time, unless the connection is gone by then."""
        def go() -> None:
            if not self.gone:
                send(*args)
        self.slot.soak.reactor.callLater(self.slot.soak.rng.uniform(*THINK), go)


class WindwardSlot(Slot):
    """Six fresh clients per series: join, answer every query, leave at <exit/>; again."""

    kind = "windward"

    def start(self) -> None:
        self.exits = 0
        for k in range(6):
            name = f"ww{self.index}g{self.generation}p{k}"
            self.connect(lambda name=name: WindwardClient(self, name))

    def all_gone(self) -> None:
        if self.exits == 6:
            self.won()


class WindwardClient(SlotClient, Protocol):
    """Joins the waiting series and answers every query as bench/windward_load.py's clients do."""

    framer_out = WindwardFramer()

    def __init__(self, slot: WindwardSlot, name: str) -> None:
        self.slot, self.name = slot, name
        self.rng = random.Random(name)
        self.framer = WindwardFramer()
        self.my_guid = None

    def connectionMade(self) -> None:
        self.transport.write(self.framer_out.encode(encode_join(self.name, "Soak U", "Python")))

    def dataReceived(self, data: bytes) -> None:
        self.slot.heard()
        for frame in self.framer.feed(data):
            root = ET.fromstring(frame)
            if root.tag == "exit":
                self.slot.exits += 1
                self.transport.loseConnection()
            elif root.tag == "setup":
                self.my_guid = root.get("my-guid")
                self.transport.write(self.framer_out.encode(b"<ready/>"))
            else:
                self.slot.soak.counters.windward_queries += 1
                reply = encode_reply(root.tag, root.get("msg-id"), **windward_answer(root, self.my_guid, self.rng))
                self.later(self.transport.write, self.framer_out.encode(reply))


class PimpSlot(Slot):
    """Four fresh PIMP clients per game (bench/pimp_load.py's ``Game`` of ``LeanClient``s) on a
    table opened on the admin console: they play --pimp-rolls rolls, then three quit and the
    fourth wins; they disconnect and a new table follows.  A new PIMP connection joins the
    hall's current table, so the slots open theirs one at a time (until all four have the
    table's number)."""

    kind = "pimp"
    joins_alone = True
    phase = SimpleNamespace(value=WARMUP)     # pimp_load's Game keeps latencies only when measuring

    def __init__(self, soak: "Soak", index: int) -> None:
        super().__init__(soak, index)
        self.rolls_per_game = soak.options.pimp_rolls
        self.latencies: list[float] = []
        self.game = None

    def rolled(self) -> None:
        self.soak.counters.pimp_rolls += 1

    def start(self) -> None:
        d = deferToThread(self.soak.admin_command, "monopoly new")
        d.addCallbacks(self.table_opened, self.admin_failed)

    def table_opened(self, _) -> None:
        self.game = Game(self, self.generation, prefix=f"pm{self.index}")
        for lean in self.game.clients:
            self.connect(lambda lean=lean: SansIOClient(self, lean))

    def admin_failed(self, failure) -> None:
        print(f"soak: monopoly new failed: {failure.getErrorMessage()}", file=sys.stderr, flush=True)
        self.soak.counters.connect_failures += 1
        self.release()
        self.running = False
        self.soak.reactor.callLater(5.0, self.begin)

    def progressed(self) -> None:
        game = self.game
        if self.holding and game.acknowledged:     # all four on the new table: the next slot may open one
            self.release()
            if len({c.ack for c in game.clients}) != 1:       # the lock should make this impossible
                self.soak.counters.pimp_split += 1
                self.finish()
        if any(c.winner for c in game.clients):
            self.won()

    def all_gone(self) -> None:
        self.game = None


class SansIOClient(SlotClient, Protocol):
    """Carries a sans-IO client's bytes (``feed(data)``, ``outbox``, ``take()``: PIMP's
    ``LeanClient``, DAIDE's test client), its answers after a think time."""

    def __init__(self, slot: Slot, client) -> None:
        self.slot, self.client = slot, client
        self.flush_due = False

    def connectionMade(self) -> None:
        self.transport.setTcpNoDelay(True)
        self.transport.write(self.client.take())

    def dataReceived(self, data: bytes) -> None:
        self.slot.heard()
        self.client.feed(data)
        if self.client.outbox and not self.flush_due:
            self.flush_due = True
            self.later(self.flush)
        self.slot.progressed()

    def flush(self) -> None:
        self.flush_due = False
        self.transport.write(self.client.take())


class DaideSlot(Slot):
    """Seven fresh DAIDE clients per game (bench/daide_load.py's: tests/daide/client.py's
    ``Client``, random legal-looking orders after every NOW, a draw proposed from
    --daide-draw-year): they join the open table (one slot at a time, until all seven have
    their power), play until the game ends (SMR, then OFF), and disconnect."""

    kind = "daide"
    joins_alone = True

    def start(self) -> None:
        for k in range(7):
            client = DaidePlayer(f"dd{self.index}g{self.generation}p{k}", seed=self.soak.rng.getrandbits(32),
                                 draw_year=self.soak.options.daide_draw_year)
            self.connect(lambda client=client: SansIOClient(self, client))

    def progressed(self) -> None:
        players = [c.client for c in self.clients]
        if len(players) < 7:
            return
        if self.holding and all(p.power is not None for p in players):
            self.release()
        if all(p.last("OFF") is not None for p in players):
            if all(p.last("SMR") is not None for p in players):
                if not self.over:
                    self.soak.counters.daide_phases += len(players[0].all("NOW"))
                self.won()
            elif not self.over:                  # told OFF without a result: not a finished game
                self.over = True
                self.soak.counters.daide_unfinished += 1
                self.finish()


class EtSlot(Slot):
    """Four fresh E&T clients per game (bench/et_load.py's: tests/et/etclient.py's ``Client``):
    they take names, the first invites the others, they accept and play the game through,
    answering every ``ask`` after a think time, and disconnect when it is over."""

    kind = "et"

    def start(self) -> None:
        self.invited = False
        for k in range(4):
            name = f"et{self.index}g{self.generation}p{k}"
            self.connect(lambda name=name: EtClient(self, name, self.soak.rng.getrandbits(32)))

    def progressed(self, conn: "EtClient") -> None:
        if self.over:
            return
        ordered = sorted(self.clients, key=lambda c: c.name)
        clients = [c.client for c in ordered]
        if not self.invited and len(clients) == 4 and all(c.my_id is not None for c in clients):
            self.invited = True
            for c in ordered:
                c.say(f"name {c.name}")
            ordered[0].say(invitation(clients))
        if conn is not ordered[0] and not conn.accepted and asked(conn.client):
            conn.accepted = True
            conn.later(conn.say, "accept")
        if self.invited and len(clients) == 4 and game_over(clients):
            self.won()


class EtClient(SlotClient, LineReceiver):
    delimiter = b"\r\n"
    MAX_LENGTH = 1 << 16

    def __init__(self, slot: EtSlot, name: str, seed: int) -> None:
        self.slot, self.name = slot, name
        self.client = EtPlayer(seed, lambda line: self.later(self.say, line))
        self.accepted = False

    def say(self, line: str) -> None:
        self.sendLine(line.encode())

    def lineReceived(self, line: bytes) -> None:
        self.slot.heard()
        try:
            self.client.feed(line.decode())
        except Exception as exc:        # a line the protocol-text client cannot read: counted, said once
            self.slot.soak.counters.client_errors += 1
            if self.slot.soak.counters.client_errors == 1:
                print(f"soak: an E&T client could not read {line[:200]!r}: {exc!r}", file=sys.stderr, flush=True)
        self.slot.progressed(self)


def slot_counts(options) -> dict[str, int]:
    """Front end -> the number of its slots (games at a time)."""
    return {"netacquire": options.netacquire_games, "windward": options.windward_series,
            "pimp": options.pimp_games, "et": options.et_games, "daide": options.daide_games,
            "web": options.web_spectators}


class WebSlot(Slot):
    """One WebSocket spectator at a time (bench/web_load.py's connection and sign-in), a new
    connection and nickname for each table: it takes the lobby, watches a table of another
    front end's game that is being played (the games in turn), and leaves when that game
    has finished (counted) or was aborted."""

    kind = "web"

    def start(self) -> None:
        spectator = WebSpectator(self, f"web{self.index}g{self.generation}")
        self.expected += 1
        self.clients.append(spectator)
        spectator.task = self.soak.loop.create_task(spectator.run())

    def choose(self, tables: dict) -> dict | None:
        playing = [t for t in tables.values() if t.get("state") == "playing"]
        games = sorted({t["game"] for t in playing})
        if not games:
            return None
        game = games[(self.index + self.generation) % len(games)]
        return self.soak.rng.choice([t for t in playing if t["game"] == game])


class WebSpectator:
    """A WebSocket client on the soak's asyncio loop; ``transport`` closes it as the other slots' do."""

    def __init__(self, slot: WebSlot, name: str) -> None:
        self.slot, self.name = slot, name
        self.transport = self
        self.gone = False
        self.task = None

    def loseConnection(self) -> None:
        if self.task is not None:
            self.task.cancel()

    abortConnection = loseConnection

    async def run(self) -> None:
        soak = self.slot.soak
        try:
            async with spectator_connection(soak.hall.ports["web"]) as ws:
                await sign_in(ws, self.name)
                await ws.send(json.dumps({"type": "lobby"}))
                tables: dict = {}
                watching = None
                async for text in ws:
                    self.slot.heard()
                    msg = json.loads(text)
                    kind = msg.get("type")
                    if watching is None:
                        if kind == "lobby":
                            tables = {t["id"]: t for t in msg["tables"]}
                        elif kind == "lobby_table":
                            tables[msg["table"]["id"]] = msg["table"]
                        elif kind == "lobby_table_removed":
                            tables.pop(msg["id"], None)
                        watching = self.slot.choose(tables)
                        if watching is not None:
                            await ws.send(json.dumps({"type": "lobby", "on": False}))
                            await ws.send(json.dumps({"type": "watch", "table": watching["id"]}))
                    elif kind == "table":
                        event = msg.get("event")
                        if event == "game":
                            soak.counters.web_messages += 1
                        elif event == "finished":
                            soak.counters.web_watched[watching["game"]] += 1
                            self.slot.won()
                            break
                        elif event == "aborted":
                            soak.counters.web_aborted += 1
                            break
                    elif kind in ("error", "left_table"):      # the table ended before the watch: another
                        watching = None
                        await ws.send(json.dumps({"type": "lobby"}))
        except asyncio.CancelledError:
            pass
        except Exception as exc:
            soak.counters.client_errors += 1
            if soak.counters.client_errors == 1:
                print(f"soak: a web spectator failed: {exc!r}", file=sys.stderr, flush=True)
        finally:
            self.gone = True
            self.slot.client_lost()


class Soak:
    def __init__(self, options, hall: Hall, loop=None) -> None:
        from twisted.internet import reactor
        self.reactor, self.options, self.hall = reactor, options, hall
        self.loop = loop                         # the asyncio loop under the reactor (web spectators)
        self.rng = random.Random(1)
        self.counters = Counters()
        self.na_stats = Stats()
        self.going = True
        self.chat_every = options.chat_every
        self.na_bot_class = make_soak_bot_class(self)
        self.join_locks = {kind: DeferredLock() for kind in KINDS}
        self.admin = None
        self.counts = slot_counts(options)
        self.kinds = [kind for kind in KINDS if self.counts[kind]]
        classes = {"netacquire": NetAcquireSlot, "windward": WindwardSlot, "pimp": PimpSlot, "et": EtSlot,
                   "daide": DaideSlot, "web": WebSlot}
        self.slots: list = [classes[kind](self, i) for kind in self.kinds for i in range(self.counts[kind])]
        self.started = time.monotonic()
        self.minute_cpu = (self.started, hall.cpu(), time.process_time())
        self.minute_games = 0
        self.rows: list[str] = []
        self.censuses: list[str] = []
        self.garbage: list[str] = []             # the probe's cyclic garbage of 3 s, at each census
        self.hall_exit = None                    # the hall's exit code, when it ended before the soak
        self.largest_wal = 0

    def chat_line(self, where: str) -> bytes:
        self.counters.chat_lines += 1
        return f"{where} line {self.counters.chat_lines} {self.rng.getrandbits(64):016x}".encode()

    def admin_command(self, line: str) -> str:
        """One admin console command (in a thread: ``Admin`` is blocking; one session, kept open)."""
        if self.admin is None:
            credentials = (self.hall.dir / "hall.sqlite.admin").read_text()
            self.admin = Admin(self.hall.admin_port, credentials)
        return self.admin.command(line)

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
        if self.going and self.options.max_games and self.counters.total >= self.options.max_games:
            self.wind_down()
        if self.going and self.hall.proc.poll() is not None:      # killed, or it stopped: say so, stop
            self.hall_exit = self.hall.proc.returncode
            print(f"soak: the hall exited (code {self.hall_exit}) at minute "
                  f"{(time.monotonic() - self.started) / 60:.1f}", file=sys.stderr, flush=True)
            self.wind_down()

    def every_minute(self) -> None:
        if self.going:
            minutes = (time.monotonic() - self.started) / 60
            self.row(f"{minutes:.1f}")
            if self.options.census is not None and not self.censuses and minutes >= self.options.census:
                self.take_census()
            self.reactor.callLater(self.options.every, self.every_minute)

    def take_census(self):
        """The hall's live gc-tracked objects by type: the probe's full collection (SIGUSR1), then
        its census (in a thread: both wait)."""
        def census() -> str:
            os.kill(self.hall.pid, signal.SIGUSR1)
            time.sleep(4.0)                      # the probe collects at once and again 3 s later
            garbage = Path(str(self.hall.probe_path) + ".garbage")
            if garbage.exists():                 # what that second collection freed: cycles
                self.garbage.append(garbage.read_text())
            return self.hall.census()
        return deferToThread(census).addCallback(self.censuses.append)

    def census_growth(self) -> str:
        """The types whose count grew most from the first census to the last."""
        def parse(text: str) -> Counter:
            counts = Counter()
            for line in text.splitlines()[1:]:
                number, _, name = line.strip().partition(" ")
                if number.isdigit():
                    counts[name] = int(number)
            return counts
        def total(text: str) -> int:      # tracked plus frozen (the hall freezes long-lived objects)
            words = text.split()
            return int(words[0]) + int(words[words.index("frozen") + 1]) if "frozen" in words else int(words[0])
        first, last = parse(self.censuses[0]), parse(self.censuses[-1])
        growth = sorted(((last[name] - first[name], name) for name in set(first) | set(last)), reverse=True)
        return (f"all gc objects (tracked and frozen) {total(self.censuses[0])} -> {total(self.censuses[-1])}; "
                "of the 40 commonest unfrozen types: "
                + ", ".join(f"{name} {delta:+d} ({last[name]})" for delta, name in growth[:12] if delta))

    def row(self, label: str) -> None:
        now, cpu, mine = time.monotonic(), self.hall.cpu(), time.process_time()
        t0, cpu0, mine0 = self.minute_cpu
        share = (cpu - cpu0) / (now - t0) * 100 if now > t0 + 1 else 0.0
        clients = (mine - mine0) / (now - t0) * 100 if now > t0 + 1 else 0.0
        self.minute_cpu = (now, cpu, mine)
        c = self.counters
        db, wal = self.hall.db_sizes()
        self.largest_wal = max(self.largest_wal, wal)
        games = "".join(f"{c.games[kind]:>{max(5, len(KINDS[kind]))}d} " for kind in self.kinds)
        line = (f"{label:>6} {self.hall.rss_kb() / 1024:8.1f} {db / 2**20:7.1f} {wal / 2**20:7.1f} "
                f"{share:8.0f}% {clients:10.0f}%  {games}"
                f"{c.total - self.minute_games:10d} {c.chat_lines:8d} {c.stuck:6d} {cpu_pressure():11.0f}%")
        self.minute_games = c.total
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
        if self.admin is not None:
            self.admin.sock.close()
        if self.censuses:
            self.take_census().addBoth(lambda _: self.reactor.stop())
        else:
            self.reactor.stop()

    def header(self) -> str:
        games = "".join(f"{KINDS[kind]:>{max(5, len(KINDS[kind]))}} " for kind in self.kinds)
        return (f"minute  RSS(MB)  DB(MB) WAL(MB)  hall CPU  clients CPU  {games}"
                f" games/min     chat  stuck  CPU pressure")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="how long to run (default 60)")
    parser.add_argument("--netacquire-games", type=int, default=6, help="concurrent NetAcquire games (default 6)")
    parser.add_argument("--windward-series", type=int, default=2,
                        help="concurrent Windward series of six clients (default 2)")
    parser.add_argument("--pimp-games", type=int, default=2,
                        help="concurrent Monopoly games of four PIMP clients (default 2)")
    parser.add_argument("--pimp-rolls", type=int, default=150,
                        help="dice rolls per PIMP game before three players quit (default 150)")
    parser.add_argument("--et-games", type=int, default=2,
                        help="concurrent Euphrates & Tigris games of four clients (default 2)")
    parser.add_argument("--daide-games", type=int, default=1,
                        help="concurrent Diplomacy games of seven DAIDE clients (default 1)")
    parser.add_argument("--daide-draw-year", type=int, default=1904,
                        help="the DAIDE clients propose a draw from this year on (default 1904)")
    parser.add_argument("--web-spectators", type=int, default=3,
                        help="WebSocket spectators at a time, each watching a live table to its end (default 3)")
    parser.add_argument("--think-ms", default="20-80",
                        help="a client's delay before each answer, ms: LOW-HIGH or MEAN (default 20-80)")
    parser.add_argument("--chat-every", type=int, default=5,
                        help="a NetAcquire bot says a unique game room line every N answers (default 5)")
    parser.add_argument("--census", type=float, metavar="MINUTES",
                        help="run the hall under bench/hallbench.py's probe and print which of its objects "
                             "(gc-tracked, by type) grew from this minute to the quiet end (costs the hall time)")
    parser.add_argument("--hall-log", metavar="FILE", help="keep the hall's log in FILE")
    parser.add_argument("--max-games", type=int, default=0, help="also stop after this many games (0: no limit)")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between rows (default 60)")
    options = parser.parse_args()
    think_range(options.think_ms)
    counts = slot_counts(options)
    loop = None
    if counts["web"] and importlib.util.find_spec("websockets") is None:
        parser.error("the web spectators need the websockets package (pip install -e '.[bench]'); "
                     "or --web-spectators 0")
    if counts["web"]:                # the web spectators are asyncio clients: the reactor runs on asyncio
        from twisted.internet import asyncioreactor
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        asyncioreactor.install(loop)
    hall = Hall([kind for kind in KINDS if counts[kind]], extra=["--bot-delay", "0"], probe=options.census is not None)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        hall.start()
        soak = Soak(options, hall, loop)
        at_once = ", ".join(f"{counts[kind]} {KINDS[kind]}" for kind in soak.kinds)
        print(f"soak: games at a time: {at_once}; new clients for every game, think {options.think_ms} ms, "
              f"for {options.minutes:g} min; hall pid {hall.pid}", flush=True)
        print(soak.header(), flush=True)
        soak.run()
    finally:
        log = hall.log()
        hall.stop()
        if options.hall_log:
            with open(options.hall_log, "w") as out:
                out.write(log)
    c = soak.counters
    elapsed = (time.monotonic() - soak.started) / 60
    per_kind = ", ".join(f"{c.games[kind]} {KINDS[kind]}" for kind in soak.kinds)
    stuck = ", ".join(f"{c.stuck_by[kind]} {KINDS[kind]}" for kind in soak.kinds)
    print(f"finished: {c.total} games ({per_kind}) in {elapsed:.1f} min, {c.chat_lines} unique chat lines, "
          f"{c.windward_queries} Windward queries answered, {c.pimp_rolls} PIMP rolls, {c.daide_phases} DAIDE phases, "
          f"{soak.na_stats.refused} refused NetAcquire answers, {soak.na_stats.errors} error boxes, "
          f"{c.stuck} slots stuck ({stuck}), {c.connect_failures} failed connections, "
          f"{c.pimp_split} PIMP games split over tables, {c.daide_unfinished} DAIDE games ended without a result, "
          f"{c.client_errors} client errors (unreadable lines, failed web spectators); "
          f"web spectators watched {sum(c.web_watched.values())} tables to the end "
          f"({', '.join(f'{n} {game}' for game, n in sorted(c.web_watched.items())) or 'none'}; "
          f"{c.web_messages} game messages, {c.web_aborted} aborted); "
          f"largest write-ahead log seen {soak.largest_wal / 2**20:.1f} MB; "
          f"the hall logged {log.count('Traceback')} traceback(s)"
          + ("" if soak.hall_exit is None else f"; THE HALL EXITED EARLY (code {soak.hall_exit})"))
    if len(soak.censuses) == 2:
        print(f"hall objects grown from minute {options.census:g} to the quiet end (now): {soak.census_growth()}")
        print("at the end: " + " | ".join(soak.censuses[-1].splitlines()[:16]))
    for text in soak.garbage:
        print("cyclic garbage: " + " | ".join(text.splitlines()[:16]))


if __name__ == "__main__":
    main()
