"""Many concurrent four-player NetAcquire games against a real ``twistd -n gamehall``, on loopback.

The hall runs in its own process (its own temporary --db, --max-per-peer 0,
--idle-timeout 0, every front end but netacquire disabled).  The clients are
wire-level bots (Twisted protocols) spread over --clients-processes worker
processes, each running its own reactor (Twisted's epoll reactor less its log context
per socket event, ``install_bench_reactor``: the clients take less of the machine).
Every group of four bots plays one game after another: one creates it (SG;4), the three others join (JG;n,-1),
the creator starts it (PG) once the three have joined, and every request is
answered at once with a quick legal-ish choice:

- GT: a random playable tile of the rack (the rack is kept from AT/SB/SV);
- GC: the first chain offered;
- GD: keep everything (MD;0,0);
- GP: nothing, or one random affordable share (prices and availability are
  kept from the score sheet captions), and end the game when allowed;

when a game ends every bot sends LV, and once all four have, the next of them
(in turn) creates the next game.

    python bench/netacquire_load.py [--games 250] [--seconds 30] [--clients-processes 1] [--warmup 10]
                                    [--think-ms 0|MEAN|LOW-HIGH] [--probe] [--timeline] [--hall-args "..."]
                                    [--hall-cpus 0]

Printed, for the measured window (after --warmup seconds over which the first games start): games
finished, directives per second (received plus sent, counted at the clients),
the p50/p90/p99/p99.9/max turnaround from a client's answer to a request
(GT/GP/GC/GD) to the first data it receives after that answer, and the hall's
CPU seconds over the window.  Never asserted.  With --think-ms 0 every game
is a closed loop with no pause, so the hall runs flat out and the latency is
about games / answers per second (Little's law); --think-ms 500-1000 makes
each bot wait 0.5 to 1 s before answering, a load closer to people playing
(the issue's scenario: --games 250 --think-ms 500-1000 --warmup 20
--clients-processes 4; one client process adds its own delays to the tail).  --probe runs the
hall under bench/hallbench.py's probe and adds its reactor lag, GC pauses and
the stacks the reactor stalled in.  Also printed: the share of the machine its host took
(steal: on a virtual machine, cores taken away; a run with more than 1% is not the hall's
tail alone, and one with 5 to 25% has a p99 of 0.1 to 1 s whatever the hall does), and with
--timeline the same figures second by second.  The hall and every worker are stopped at the end (SIGTERM, then
SIGKILL after a few seconds); they also die with this process (Linux
PR_SET_PDEATHSIG) and the workers stop when their stdin closes.
"""
from __future__ import annotations

import argparse
import heapq
import itertools
import json
import math
import os
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from collections import Counter

import hallbench
from hallbench import (Hall, bench_env, child_setup, cpu_pressure, histogram_quantile, machine_cpu_ticks,
                       raise_nofile, steal_percent, stop, thread_core_waits, thread_cpu_seconds)

COLOURS = [b"255", b"65535", b"16711680", b"65280", b"16512", b"16776960", b"16711935"]   # Luxor .. Imperial
PLAYABLE = {12632256, 12648384}            # plain tile, tile that would join a neighbour
BUCKET_US = 10                             # latency histogram resolution (microseconds)
#: The score sheet captions a bot keeps (chain shares available 9-15, prices 25-31), by the
#: two bytes after "SV;frmScoreSheet,lblData,".
SHEET_INDEX = {b"9,": 9, **{b"%d" % i: i for i in (*range(10, 16), *range(25, 32))}}
#: The directives a bot acts on, up to their ";:" (a ";" followed by anything else is inside
#: one): a market caption (group 1, its SHEET_INDEX key) or a directive of its handlers' codes
#: (of SV only the rack's tiles) as a whole (group 2).
_ACTED_ON = (rb'(?:SV;frmScoreSheet,lblData,(9,|1[0-5]|2[5-9]|3[01])[^;]*(?:;(?!:)[^;]*)*)'
             rb'|((?:G[TCDP]|AT|SB|M;|S[PS]|PI|SV;frmTileRack,cmdTile,)[^;]*(?:;(?!:)[^;]*)*)')
ACTED_ON = re.compile(rb';:(' + _ACTED_ON + rb')')   # every one after the first of a read
ACTED_ON_FIRST = re.compile(_ACTED_ON)
#: The game messages a bot counts as refused answers (Bot.on_GM).
REFUSED = (b"Not accepted", b"not your turn", b"not what the game")


# -- helpers shared by the parent and the workers -------------------------------------------

def percentile(hist: Counter, q: float) -> float:
    """The q-quantile (0..1) of a histogram of BUCKET_US buckets, in milliseconds."""
    return histogram_quantile(hist, q, BUCKET_US / 1000.0)


def think_range(text: str) -> tuple[float, float]:
    """--think-ms: "750" (0.5x to 1.5x of it) or "500-1000" (uniform in that range), in seconds."""
    low, sep, high = text.partition("-")
    if sep:
        lo, hi = float(low) / 1000, float(high) / 1000
    else:
        lo, hi = float(low) / 2000, float(low) * 3 / 2000
    if lo < 0 or hi < lo:
        raise argparse.ArgumentTypeError(f"bad think time {text!r}")
    return lo, hi


# -- the worker: bots on one reactor --------------------------------------------------------

class Stats:
    def __init__(self) -> None:
        self.counting = False
        self.rx = 0                 # directives received (all the time; the window is a difference)
        self.tx = 0
        self.hist: Counter = Counter()
        self.finished = 0           # games that ended inside the window
        self.started = 0            # games started (PG sent) inside the window
        self.refused = 0            # "Not accepted" / "not your turn" game messages
        self.errors = 0             # M;"E;..." message boxes
        self.closed = 0             # connections closed before the end
        self.last_error = ""
        #: --timeline: per wall-clock second (int(time.monotonic()), shared by every process on
        #: the machine): turnarounds by tenths of a ms, and the process's CPU seconds at that second
        self.timeline = None               # dict second -> Counter, or None without --timeline
        self.cpu_at: dict = {}


class Group:
    """Four bots playing game after game; ``turn`` picks the next creator."""

    def __init__(self, index: int, stats: Stats, rng: random.Random) -> None:
        self.index = index
        self.stats = stats
        self.rng = rng
        self.bots: list = []                 # make_bot_class()'s Bot protocols
        self.turn = index % 4
        self.creator = None                  # one of self.bots, or None
        self.joined = 0
        self.ended = 0
        self.running = False
        self.last_activity = 0.0
        self.games_finished = 0

    def new_game(self) -> None:
        if not self.running:
            return
        self.creator = self.bots[self.turn % 4]
        self.turn += 1
        self.joined = 0
        self.ended = 0
        for bot in self.bots:
            bot.reset()
        self.creator.send(b"SG;4")

    def created(self, number: bytes) -> None:
        for bot in self.bots:
            if bot is not self.creator:
                bot.send(b"JG;" + number + b",-1")

    def someone_joined(self) -> None:
        self.joined += 1
        if self.joined == 3:
            if self.stats.counting:
                self.stats.started += 1
            self.creator.send(b"PG;")

    def game_ended(self) -> None:
        self.ended += 1
        if self.ended == 4:
            self.games_finished += 1
            if self.stats.counting:
                self.stats.finished += 1
            self.new_game()


LOGIN_DEADLINE = 15.0                      # seconds from connect to SS;3 before a bot connects again
THINK = [0.0, 0.0]                         # range of seconds a bot waits before answering (--think-ms)


def install_bench_reactor() -> None:
    """Install (before anything imports ``twisted.internet.reactor``) Twisted's epoll reactor
    without the log context it sets around every read or write event (``log.callWithLogger``:
    about 5 us an event on a shared machine, a large share of a bot's CPU per answer), and
    with a TCP client connection's plain read done in line (what ``tcp.Connection.doRead``
    does, without its four calls).  An exception in a protocol is still logged and drops its
    connection, only without the connection's log prefix; an error, the end of a connection
    or any other event goes through Twisted's own handling.  Elsewhere than Linux: the
    default reactor."""
    if "twisted.internet.reactor" in sys.modules:       # one is running already
        return
    try:
        from select import EPOLLIN

        from twisted.internet.epollreactor import EPollReactor
    except ImportError:
        return
    from twisted.internet.main import installReactor
    from twisted.internet.tcp import Client
    from twisted.python import log

    class BenchReactor(EPollReactor):
        def doPoll(self, timeout):
            events = self._poller.poll(-1 if timeout is None else timeout, len(self._selectables))
            selectables, reads, handle = self._selectables, self._reads, self._doReadOrWrite
            for fd, event in events:
                selectable = selectables.get(fd)
                if selectable is None:
                    continue
                if event == EPOLLIN and type(selectable) is Client and fd in reads:
                    try:
                        data = selectable.socket.recv(selectable.bufferSize)
                    except OSError:
                        data = None
                    if data:
                        try:
                            selectable.protocol.dataReceived(data)
                        except BaseException as e:
                            log.err()
                            self._disconnectSelectable(selectable, e, True)
                        continue
                    # nothing, the end or an error: Twisted's doRead reads (and says) which
                handle(selectable, fd, event)

        doIteration = doPoll

    installReactor(BenchReactor())


def make_bot_class():
    from twisted.internet import reactor
    from twisted.internet.protocol import Protocol
    from twisted.internet.tcp import Client as TCPClient

    # The answers waiting for their think time: one heap of tuples (compared in C) under one
    # reactor timer, due with the earliest, rather than a DelayedCall each in the reactor's heap
    # (compared by a Python method); each answer is sent when its time comes as before.
    thinking: list = []
    timer = [None, math.inf]              # the DelayedCall, its time
    order = itertools.count()

    def arm(due: float) -> None:
        if timer[0] is not None and timer[0].active():
            timer[0].cancel()
        timer[0], timer[1] = reactor.callLater(max(0.0, due - reactor.seconds()), answers_due), due

    def answers_due() -> None:
        now = max(reactor.seconds(), timer[1])           # the timer's time, whatever the rounding
        timer[0], timer[1] = None, math.inf
        try:
            while thinking and thinking[0][0] <= now:
                _, _, bot, directive = heapq.heappop(thinking)
                bot.answer_now(directive)
        finally:
            if thinking:
                arm(thinking[0][0])

    class Bot(Protocol):
        """One wire-level NetAcquire client."""

        def __init__(self, name: str, group: Group, on_ready) -> None:
            self.name = name.encode()
            self.group = group
            self.stats = group.stats
            self.rng = group.rng
            self.on_ready = on_ready
            self.buf = b""
            self.answered_at = 0.0
            self.logged_in = False
            self.lost = False
            self.rack: dict[bytes, tuple[bytes, int]] = {}     # slot -> (tile id, colour)
            self.sheet: dict[int, bytes] = {}                   # market captions 9-15, 25-31 (directives)

        def reset(self) -> None:
            self.rack.clear()
            self.sheet.clear()

        def send(self, directive: bytes) -> None:
            self.stats.tx += 1
            self.transport.write(directive + b";:")

        def answer(self, directive: bytes) -> None:
            if THINK[1] > 0:
                due = reactor.seconds() + self.rng.uniform(*THINK)
                heapq.heappush(thinking, (due, next(order), self, directive))
                if due < timer[1]:
                    arm(due)
            else:
                self.answer_now(directive)

        def answer_now(self, directive: bytes) -> None:
            if self.lost:
                return
            self.stats.tx += 1
            data = directive + b";:"
            t = self.transport
            # Straight to the socket when nothing waits in Twisted's buffer (as the hall's
            # gamehall.connection.send_now): no epoll writer registration, reactor pass and
            # deregistration per answer.  The turnaround counts from the hand-over.
            self.answered_at = time.perf_counter()
            if type(t) is TCPClient and t.connected and not (t.disconnecting or t.dataBuffer or t._tempDataBuffer):
                try:
                    sent = t.socket.send(data)
                except OSError:
                    sent = 0                 # full or failing: Twisted's write and doWrite handle it
                if sent < len(data):
                    t.write(data[sent:])
            else:
                t.write(data)

        def connectionLost(self, reason=None) -> None:
            self.lost = True
            if self.group.running:
                self.stats.closed += 1

        def dataReceived(self, data: bytes) -> None:
            if self.answered_at:
                waited = time.perf_counter() - self.answered_at
                if self.stats.counting:
                    self.stats.hist[int(waited * 1e6) // BUCKET_US] += 1
                if self.stats.timeline is not None:
                    self.stats.timeline.setdefault(int(time.monotonic()), Counter())[int(waited * 1e4)] += 1
                self.answered_at = 0.0
            self.group.last_activity = time.monotonic()
            data = self.buf + data if self.buf else data
            # Most of an update is score sheet captions, board cells and game messages a bot
            # does not act on: when every ";:" ends a directive (none inside quotes), the
            # directives are counted, and the ones a bot acts on found, by C-level scans
            # (ACTED_ON) without a Python object per directive.  Otherwise (a quoted ";:",
            # a quote open at the end, a refusal to count, a game being set up by this
            # bot), directive by directive.
            last = data.rfind(b";:")
            if last < 0:
                self.buf = data
                return
            if (self is self.group.creator and self.group.joined < 3) \
                    or (b"ot " in data and any(text in data for text in REFUSED)):
                self.directives(data)
                return
            if b'"' in data:
                quoted = data.split(b'"')                       # odd items: inside quotes
                if not len(quoted) & 1 or b";:" in b'"'.join(quoted[1::2]):
                    self.directives(data)
                    return
            self.buf = data[last + 2:]
            self.stats.rx += data.count(b";:", 0, last + 2)
            handlers = self.handlers
            sheet = self.sheet
            first = ACTED_ON_FIRST.match(data, 0, last)        # the one no ";:" comes before
            if first is not None:
                if first[1]:
                    sheet[SHEET_INDEX[first[1]]] = first[0]
                else:
                    handlers[first[0][:2]](first[0])
            for part, key, other in ACTED_ON.findall(data, 0, last):
                if key:                                         # read when buying (sheet_figure)
                    sheet[SHEET_INDEX[key]] = part
                else:
                    handlers[other[:2]](other)

        def directives(self, data: bytes) -> None:
            """``data`` (the buffered bytes and the new) split into directives and every one looked at."""
            parts = data.split(b";:")
            self.buf = parts.pop()
            self.stats.rx += len(parts)
            carry = None
            handlers = self.handlers
            for part in parts:
                if carry is not None:                 # a ";:" inside quotes: glue back
                    part = carry + b";:" + part
                    carry = None
                    self.stats.rx -= 1
                if b'"' in part and part.count(b'"') % 2:
                    carry = part
                    continue
                handler = handlers.get(part[:2])
                if handler is not None:
                    handler(part)
            if carry is not None:
                self.buf = carry + b";:" + self.buf
                self.stats.rx -= 1

        def on_SV(self, part: bytes) -> None:
            if part.startswith(b"SV;frmScoreSheet,lblData,"):
                index = SHEET_INDEX.get(part[25:27])       # "9," .. "15", "25" .. "31": the market
                if index is not None:
                    self.sheet[index] = part
            elif part.startswith(b"SV;frmTileRack,cmdTile,") and part.endswith(b",Visible,0"):
                self.rack.pop(part.split(b",")[2], None)

        def on_AT(self, part: bytes) -> None:
            slot, tile, colour = part[3:].split(b",")[:3]
            self.rack[slot] = (tile, int(colour))

        def on_SB(self, part: bytes) -> None:
            if self.rack:
                tile = part[3:].split(b",", 1)[0]
                for slot, (t, _) in list(self.rack.items()):
                    if t == tile:
                        del self.rack[slot]

        def on_GT(self, part: bytes) -> None:
            slots = [s for s, (_, colour) in self.rack.items() if colour in PLAYABLE] or list(self.rack)
            self.answer(b"PT;" + (self.rng.choice(slots) if slots else b"1"))

        def on_GC(self, part: bytes) -> None:
            params = part[3:].split(b",")
            self.answer(b"CS;" + COLOURS[int(params[1]) - 1] + b"," + params[0])

        def on_GD(self, part: bytes) -> None:
            self.answer(b"MD;0,0")

        def on_GP(self, part: bytes) -> None:
            self.answer(self.purchase(part[3:].split(b",")))

        def on_GM(self, part: bytes) -> None:
            if any(text in part for text in REFUSED):
                self.stats.refused += 1
            elif self is self.group.creator and self.group.joined < 3:
                if part.endswith(b' joined the game."'):
                    self.group.someone_joined()
                elif b" created for up to " in part:
                    number = part.split(b"#", 1)[1].split(b" ", 1)[0]
                    self.group.created(number)

        def on_M(self, part: bytes) -> None:
            if part.startswith(b'M;"I;Game ended;'):
                self.send(b"LV;")
                self.group.game_ended()
            elif part.startswith(b'M;"E;'):
                self.stats.errors += 1
                self.stats.last_error = f"{self.name.decode()}: {part[2:].decode(errors='replace')}"

        def on_SP(self, part: bytes) -> None:
            self.send(b"PL;" + self.name + b",2,0,x")

        def on_SS(self, part: bytes) -> None:
            if not self.logged_in and part == b"SS;3":
                self.logged_in = True
                self.on_ready(self)

        def on_PI(self, part: bytes) -> None:
            self.send(b"PR;" + part[3:])

        @property
        def handlers(self) -> dict:
            """First two bytes of a directive -> this bot's handler (made once per bot; ACTED_ON
            finds the directives of these codes, so a code added here is added there too)."""
            table = self.__dict__.get("_handlers")
            if table is None:
                table = self._handlers = {
                    b"SV": self.on_SV, b"AT": self.on_AT, b"SB": self.on_SB, b"GT": self.on_GT,
                    b"GC": self.on_GC, b"GD": self.on_GD, b"GP": self.on_GP, b"GM": self.on_GM,
                    b"M;": self.on_M, b"SP": self.on_SP, b"SS": self.on_SS, b"PI": self.on_PI}
            return table

        def sheet_figure(self, index: int) -> int:
            """The figure of the last score sheet caption ``index`` (0 before any)."""
            part = self.sheet.get(index)
            if part is None:
                return 0
            value = part.split(b",", 4)[4].strip(b'" -')
            return int(value) if value else 0

        def purchase(self, params: list[bytes]) -> bytes:
            can_end, cash = params[0] == b"-1", int(params[1])
            counts = [b"0"] * 7
            if self.rng.random() < 0.5:
                figure = self.sheet_figure
                options = [c for c in range(7) if figure(9 + c) > 0 and 0 < figure(25 + c) * 100 <= cash]
                if options:
                    counts[self.rng.choice(options)] = b"1"
            return b"P;" + b",".join(counts) + (b",1" if can_end else b",0")

    return Bot


def worker(options) -> None:
    """Connect this worker's share of the bots, say "ready", play on "go", report JSON, exit."""
    install_bench_reactor()
    from twisted.internet import reactor
    from twisted.internet.protocol import ClientFactory

    from twisted.logger import (FilteringLogObserver, LogLevel, LogLevelFilterPredicate, globalLogBeginner,
                                textFileLogObserver)
    globalLogBeginner.beginLoggingTo([FilteringLogObserver(
        textFileLogObserver(sys.stderr), [LogLevelFilterPredicate(defaultLogLevel=LogLevel.warn)])],
        redirectStandardIO=False)
    THINK[:] = think_range(options.think_ms)
    Bot = make_bot_class()
    raise_nofile(4 * options.groups + 256)
    stats = Stats()
    rng = random.Random(options.worker_id)
    groups = [Group(i, stats, rng) for i in range(options.groups)]
    names = [(g, f"w{options.worker_id}g{g.index}p{k}") for g in groups for k in range(4)]
    pending = list(reversed(names))
    ready = []
    state = {"connecting": 0}

    class Factory(ClientFactory):
        def __init__(self, name, group):
            self.name, self.group = name, group
            self.bot = None

        def buildProtocol(self, addr):
            self.bot = bot = Bot(self.name, self.group, logged_in)
            bot.factory = self
            self.group.bots.append(bot)
            return bot

        def clientConnectionFailed(self, connector, reason):
            print(f"worker {options.worker_id}: connection failed: {reason.getErrorMessage()}",
                  file=sys.stderr, flush=True)
            state["connecting"] -= 1
            connect_more()

    def connect_more() -> None:
        # A few handshakes in flight (the hall's listen backlog is Twisted's 50, shared by
        # every worker): an overflowing accept queue can leave the client's side of a
        # connection established while the hall never accepted it, and as the hall speaks
        # first (SP) that bot would wait for ever.  A login that takes too long is retried.
        while state["connecting"] < options.in_flight and pending:
            group, name = item = pending.pop()
            state["connecting"] += 1
            factory = Factory(name, group)
            connector = reactor.connectTCP("127.0.0.1", options.port, factory, timeout=30)
            reactor.callLater(LOGIN_DEADLINE, check_login, item, factory, connector)

    def check_login(item, factory, connector) -> None:
        bot = factory.bot
        if bot is not None and bot.logged_in:
            return
        print(f"worker {options.worker_id}: {factory.name} not logged in after {LOGIN_DEADLINE:g} s; again",
              file=sys.stderr, flush=True)
        if bot is not None:
            factory.group.bots.remove(bot)
            bot.on_ready = lambda bot: None
        factory.clientConnectionFailed = lambda *_: None
        connector.disconnect()
        state["connecting"] -= 1
        pending.append(item)
        connect_more()

    def logged_in(bot) -> None:
        ready.append(bot)
        state["connecting"] -= 1
        if len(ready) == len(names):
            print("ready", flush=True)
        else:
            connect_more()

    def go(warmup: float, seconds: float) -> None:
        if options.timeline:
            stats.timeline = {}

            def note_cpu() -> None:
                stats.cpu_at[int(time.monotonic())] = time.process_time()
                reactor.callLater(1.0 - time.monotonic() % 1.0, note_cpu)
            note_cpu()
        for g in groups:
            g.bots.sort(key=lambda b: b.name)
            g.running = True
            g.last_activity = time.monotonic()
            # first games spread over most of the warm-up: steady play, not one burst of starts
            reactor.callLater(rng.uniform(0, 0.8 * warmup), g.new_game)
        reactor.callLater(warmup, begin, seconds)

    def begin(seconds: float) -> None:
        stats.counting = True
        state["t0"], state["rx0"], state["tx0"] = time.perf_counter(), stats.rx, stats.tx
        state["cpu0"] = time.process_time()
        reactor.callLater(seconds, end)

    def end() -> None:
        stats.counting = False
        elapsed = time.perf_counter() - state["t0"]
        now = time.monotonic()
        stalled = sum(1 for g in groups if now - g.last_activity > 5.0)
        report = {
            "worker": options.worker_id, "elapsed": elapsed, "groups": len(groups),
            "rx": stats.rx - state["rx0"], "tx": stats.tx - state["tx0"],
            "finished": stats.finished, "started": stats.started, "refused": stats.refused,
            "errors": stats.errors, "last_error": stats.last_error, "closed": stats.closed,
            "stalled": stalled, "hist": {str(k): v for k, v in stats.hist.items()},
            "cpu": time.process_time(), "cpu_window": time.process_time() - state["cpu0"],
        }
        if stats.timeline is not None:
            report["timeline"] = {second: dict(hist) for second, hist in stats.timeline.items()}
            report["cpu_at"] = stats.cpu_at
        for g in groups:
            g.running = False
        sys.stdout.write("result " + json.dumps(report) + "\n")
        sys.stdout.flush()
        for g in groups:
            for bot in g.bots:
                if bot.transport is not None and not bot.lost:
                    bot.transport.abortConnection()
        reactor.callLater(0.2, stop_reactor)

    def read_stdin() -> None:
        """"go WARMUP SECONDS" starts the games; EOF (the parent is gone) stops the worker."""
        for line in sys.stdin:
            words = line.split()
            if words[:1] == ["go"]:
                reactor.callFromThread(go, float(words[1]), float(words[2]))
        reactor.callFromThread(stop_reactor)

    def stop_reactor() -> None:
        if not state.get("stopping"):            # once: the end of the window or stdin's EOF
            state["stopping"] = True
            reactor.stop()

    def progress() -> None:
        """Every 10 s until all are in the lobby: how far the logins got (a stuck run says where)."""
        if len(ready) < len(names):
            print(f"worker {options.worker_id}: {len(ready)}/{len(names)} logged in, "
                  f"{state['connecting']} connecting", file=sys.stderr, flush=True)
            reactor.callLater(10, progress)

    threading.Thread(target=read_stdin, daemon=True).start()
    # SIGTERM (the parent's last word) stops once, like stdin's EOF: Twisted's own handler
    # would stop a reactor that EOF stopped already (a ReactorNotRunning traceback)
    signal.signal(signal.SIGTERM, lambda *_: reactor.callFromThread(stop_reactor))
    reactor.callWhenRunning(connect_more)
    reactor.callLater(10, progress)
    reactor.run(installSignalHandlers=False)


# -- the parent: the hall, the workers, the figures -----------------------------------------

def session_setup(nice: int = 0):
    """preexec_fn: ``child_setup(nice)``, and a session of its own even at nice 0.

    A daemonized twistd runs in a session of its own, hence (Linux autogroup
    scheduling) in a scheduling group of its own, with a fair share of the
    cores against other sessions' work.  Run in the bench's session, the hall
    shared one group with the client processes: on a busy shared machine that
    group's share was less than hall and clients needed together, and the hall
    waited for a core for half the window (--shared-session: that way)."""
    setup = child_setup(nice)

    def run() -> None:
        setup()
        try:
            os.setsid()
        except OSError:               # child_setup made one already (a nice value)
            pass
    return run


def forward_lines(proc: subprocess.Popen, lines: queue.Queue) -> None:
    for line in proc.stdout:
        lines.put((proc, line))
    lines.put((proc, None))


def expect(lines: queue.Queue, workers: list, prefix: str, deadline: float) -> list[str]:
    """One line starting with ``prefix`` from every worker before ``deadline``, or RuntimeError."""
    got: dict = {}
    while len(got) < len(workers):
        try:
            proc, line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            raise RuntimeError(f"{len(workers) - len(got)} worker(s) did not say {prefix.strip()!r} in time") from None
        if line is None:
            raise RuntimeError(f"a worker exited (status {proc.wait()}) before saying {prefix.strip()!r}")
        if line.startswith(prefix):
            got[proc] = line
    return [got[w] for w in workers]


def user_system(pid: int) -> tuple[float, float]:
    """User and system CPU seconds of a process (Linux /proc; NaN elsewhere)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / tick, int(fields[12]) / tick
    except (OSError, IndexError, ValueError):
        return float("nan"), float("nan")


def sample_pressure(into: list, seconds: float) -> None:
    """Every 10 s of the window (at least once): the machine's CPU pressure (other helpers share the cores)."""
    step = min(10.0, seconds)
    end = time.monotonic() + seconds
    while time.monotonic() + step <= end + 0.5:
        time.sleep(step)
        into.append(cpu_pressure())


def sample_each_second(pid: int, into: dict, seconds: float) -> None:
    """At every whole second of ``time.monotonic()`` for ``seconds``: the hall's threads' CPU
    seconds and run-queue waits, and the machine's /proc/stat CPU line, into ``into[second]``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(1.0 - time.monotonic() % 1.0 + 0.002)
        into[int(time.monotonic())] = (thread_cpu_seconds(pid), thread_core_waits(pid), machine_cpu_ticks())


def main_and_others(then: dict, now: dict) -> tuple[float, float]:
    """Per-thread figures (``thread_cpu_seconds``, ``thread_core_waits``) from ``then`` to
    ``now``: the main thread's, and all the others' together."""
    main = now.get("main", 0.0) - then.get("main", 0.0)
    return main, sum(v - then.get(k, 0.0) for k, v in now.items()) - main


def timeline_report(reports: list, machine: dict, start: float, end: float) -> list[str]:
    """--timeline's table: one line a second (see the option's help); then the turnaround
    over the window's seconds in which the host took under 1% of the machine."""
    seconds = sorted(machine)
    calm: Counter = Counter()
    calm_seconds = window_seconds = 0
    out = ["  timeline (s from the first sample; turnaround ms; CPU us per answer; waits ms; steal and idle % of the machine):",
           "     s  answers    p50    p99    max  clients   main  others  main-wait  others-wait  steal  idle"]
    for before, second in zip(seconds, seconds[1:]):
        hist: Counter = Counter()
        clients = 0.0
        for r in reports:
            hist.update({int(ms): n for ms, n in r.get("timeline", {}).get(str(before), {}).items()})
            cpu = r.get("cpu_at", {})
            if str(before) in cpu and str(second) in cpu:
                clients += cpu[str(second)] - cpu[str(before)]
        answers = sum(hist.values())
        (cpu0, wait0, stat0), (cpu1, wait1, stat1) = machine[before], machine[second]
        main, others = main_and_others(cpu0, cpu1)
        main_wait, others_wait = main_and_others(wait0, wait1)
        steal = steal_percent(stat0, stat1)
        delta = [b - a for a, b in zip(stat0, stat1)]
        idle = (delta[3] + delta[4]) / max(1, sum(delta[:8])) * 100        # idle + iowait
        per = 1e6 / max(answers, 1)
        ms = [histogram_quantile(hist, q, 0.1) for q in (0.5, 0.99, 1.0)]
        if start <= before and second <= end + 1:
            window_seconds += 1
            if steal < 1.0:
                calm_seconds += 1
                calm.update(hist)
        out.append(f"  {second - seconds[0]:4d}  {answers:7d}  {ms[0]:5.1f}  {ms[1]:5.0f}  {ms[2]:5.0f}  {clients * per:7.0f}  {main * per:5.0f}  {others * per:6.0f}  "
                   f"{main_wait * 1e3:9.0f}  {others_wait * 1e3:11.0f}  {steal:5.1f}  {idle:4.0f}")
    if calm:
        q = [histogram_quantile(calm, x, 0.1) for x in (0.5, 0.99, 0.999)]
        out.append(f"  turnaround over the {calm_seconds} of the window's {window_seconds} seconds with steal "
                   f"under 1%: p50 {q[0]:.1f} ms  p99 {q[1]:.1f} ms  p99.9 {q[2]:.1f} ms")
    return out


def run(options) -> None:
    connections = 4 * options.games
    clients_nice = options.nice if options.clients_nice is None else options.clients_nice
    soft, _ = raise_nofile(connections + 512)           # inherited by the hall and the workers
    if soft < connections + 64:
        print(f"warning: open-file limit {soft} is low for {connections} connections", file=sys.stderr)
    env = bench_env()
    hall_env = bench_env(options.hall_root) if options.hall_root else env
    if not options.shared_session:
        hallbench.child_setup = session_setup       # what Hall.start runs in the hall's child
    hall = Hall(["netacquire"], extra=options.hall_args.split(), probe=options.probe, env=hall_env,
                nice=options.nice, cpus=options.hall_cpus)
    workers: list[subprocess.Popen] = []
    try:
        hall.start()
        port = hall.ports["netacquire"]
        k = max(1, min(options.clients_processes, options.games))
        shares = [options.games // k + (1 if i < options.games % k else 0) for i in range(k)]
        for i, groups in enumerate(shares):
            w = subprocess.Popen([sys.executable, __file__, "--worker-id", str(i), "--groups", str(groups),
                                  "--port", str(port), "--think-ms", options.think_ms,
                                  "--in-flight", str(max(4, 40 // k))] + (["--timeline"] if options.timeline else []),
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                 preexec_fn=(child_setup if options.shared_session else session_setup)(clients_nice))
            workers.append(w)
        lines: queue.Queue = queue.Queue()
        for w in workers:
            threading.Thread(target=forward_lines, args=(w, lines), daemon=True).start()
        started = time.monotonic()
        expect(lines, workers, "ready", started + 60 + options.games / 10)   # every bot is in the lobby
        connect_time = time.monotonic() - started
        for w in workers:
            w.stdin.write(f"go {options.warmup} {options.seconds}\n")
            w.stdin.flush()
        machine: dict = {}
        if options.timeline:
            threading.Thread(target=sample_each_second, args=(hall.pid, machine, options.warmup + options.seconds + 2),
                             daemon=True).start()
        # the window starts --warmup seconds after "go": sample the hall then
        time.sleep(options.warmup)
        window_start = time.monotonic()
        hall_cpu0, times0, wait0, probe0, pressure = hall.cpu(), user_system(hall.pid), hall.core_wait(), hall.probe(), []
        threads0, ticks0 = thread_cpu_seconds(hall.pid), machine_cpu_ticks()
        if options.probe and os.environ.get("PROBE_GC_GARBAGE"):
            os.kill(hall.pid, signal.SIGUSR1)       # the cyclic garbage of 3 s (diagnosis: two full collections)
        pressure_sampler = threading.Thread(target=sample_pressure, args=(pressure, options.seconds), daemon=True)
        pressure_sampler.start()
        reports = expect(lines, workers, "result ", time.monotonic() + options.seconds + 60)
        hall_cpu, probe1, waited = hall.cpu() - hall_cpu0, hall.probe(), hall.core_wait() - wait0
        user, system = (b - a for a, b in zip(times0, user_system(hall.pid)))
        threads = {name: cpu - threads0.get(name, 0.0) for name, cpu in thread_cpu_seconds(hall.pid).items()}
        steal = steal_percent(ticks0, machine_cpu_ticks())
        census = hall.census() if options.probe else ""
        garbage = Path(str(hall.probe_path) + ".garbage") if options.probe else None
        garbage = garbage.read_text() if garbage is not None and garbage.exists() else ""
        reports = [json.loads(line[len("result "):]) for line in reports]
        window_log = hall.log()
        for w in workers:
            w.stdin.close()
        deadline = time.monotonic() + 10
        for w in workers:
            try:
                w.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
    finally:
        stop(workers)
        hall.stop()

    hist: Counter = Counter()
    for r in reports:
        hist.update({int(k): v for k, v in r["hist"].items()})
    elapsed = max(r["elapsed"] for r in reports)
    rx, tx = sum(r["rx"] for r in reports), sum(r["tx"] for r in reports)
    finished = sum(r["finished"] for r in reports)
    think = f", bots think {options.think_ms} ms" if options.think_ms != "0" else ", bots answer at once"
    print(f"netacquire load: {options.games} concurrent games ({connections} connections), "
          f"{len(reports)} client process(es){think}, {options.seconds:.0f} s measured after "
          f"{options.warmup:.0f} s warm-up (connecting took {connect_time:.1f} s)"
          + (f"; hall args: {options.hall_args}" if options.hall_args else "")
          + (f"; hall at nice {options.nice}, clients at nice {clients_nice}" if options.nice or clients_nice else "")
          + (f"; the hall's code from {options.hall_root}" if options.hall_root else ""))
    print(f"  games finished: {finished} ({finished / elapsed:.2f}/s); "
          f"games started: {sum(r['started'] for r in reports)}")
    print(f"  directives/s:   {(rx + tx) / elapsed:,.0f} (received {rx / elapsed:,.0f}, sent {tx / elapsed:,.0f})")
    print(f"  answers timed:  {sum(hist.values()):,} ({sum(hist.values()) / elapsed:,.0f}/s)")
    print(f"  turnaround, answer -> next server data: p50 {percentile(hist, 0.50):.2f} ms  "
          f"p90 {percentile(hist, 0.90):.2f} ms  p99 {percentile(hist, 0.99):.2f} ms  "
          f"p99.9 {percentile(hist, 0.999):.2f} ms  max {percentile(hist, 1.0):.2f} ms")
    cpu = ", ".join(f"{r['cpu']:.1f}" for r in reports)
    clients_cpu = sum(r["cpu_window"] for r in reports)
    answers = sum(hist.values())
    print(f"  CPU: hall {hall_cpu:.1f} s over the {elapsed:.1f} s window ({hall_cpu / elapsed * 100:.0f}% of one core; "
          f"user {user:.1f} s, system {system:.1f} s), {hall_cpu / max(answers, 1) * 1000:.2f} ms per answer timed; "
          f"client process(es) total CPU s since they started: {cpu}")
    print(f"  clients' CPU over the window: {clients_cpu:.1f} s ({clients_cpu / elapsed:.2f} cores, "
          f"{clients_cpu / max(answers, 1) * 1e6:.0f} us per answer timed)")
    print("  hall CPU by thread: " + ", ".join(
        f"{name} {cpu:.2f} s ({cpu / max(answers, 1) * 1e6:.0f} us per answer)"
        for name, cpu in sorted(threads.items(), key=lambda item: -item[1]) if cpu > 0))
    print(f"  machine: the hall's reactor thread waited {waited:.1f} s for a core over the window; CPU pressure "
          f"(some task waiting for a core) averaged {sum(pressure) / max(1, len(pressure)):.0f}%; the host took "
          f"{steal:.1f}% of the machine (steal{': above 1%, the tail is not the hall alone' if steal > 1 else ''})")
    if probe1 is not None:
        print("\n".join((probe1 - probe0).report()))
        lines = census.splitlines()
        owners = [line for line in lines[1:] if not line.lstrip()[:1].isdigit()]
        print("  hall objects at the end of the window: " + "\n    ".join(lines[:12] + owners))
        if garbage:
            print("  cyclic garbage: " + "\n    ".join(garbage.splitlines()[:25]))
    print(f"  refused answers: {sum(r['refused'] for r in reports)}, error boxes: {sum(r['errors'] for r in reports)}, "
          f"connections lost: {sum(r['closed'] for r in reports)}, "
          f"groups silent > 5 s at the end: {sum(r['stalled'] for r in reports)}")
    for r in reports:
        if r["last_error"]:
            print(f"  last error box (worker {r['worker']}): {r['last_error'][:200]}")
    if options.timeline:
        print("\n".join(timeline_report(reports, machine, window_start, window_start + options.seconds)))
    tracebacks = window_log.count("Traceback")
    if tracebacks:
        print(f"  the hall logged {tracebacks} traceback(s) while the clients played; the last lines of its log:")
        print("    " + "\n    ".join(window_log.strip().splitlines()[-15:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=250, help="concurrent games of four clients (default 250)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured duration (default 30)")
    parser.add_argument("--warmup", type=float, default=10.0,
                        help="seconds before measuring, over which the first games start (default 10)")
    parser.add_argument("--clients-processes", type=int, default=1,
                        help="spread the clients over this many processes (default 1)")
    parser.add_argument("--think-ms", default="0",
                        help="delay before a bot answers a request, in ms: MEAN (0.5x to 1.5x of it) or LOW-HIGH "
                             "(uniform), e.g. 500-1000 (default 0: at once)")
    parser.add_argument("--probe", action="store_true",
                        help="run the hall under bench/hallbench.py's probe: reactor lag, GC pauses, stall stacks")
    parser.add_argument("--nice", type=int, default=0,
                        help="run the hall and the clients at this nice value (negative: ahead of other work "
                             "on a shared machine; needs root)")
    parser.add_argument("--clients-nice", type=int, default=None,
                        help="run the client processes at this nice value instead (e.g. 0 with --nice -10: the "
                             "hall ahead of the bots, which stand in for players on other machines)")
    parser.add_argument("--shared-session", action="store_true",
                        help="run the hall and the clients in this script's session (one scheduling group "
                             "under Linux autogroup), not each in a session of its own as a daemon would be")
    parser.add_argument("--hall-root", default=None,
                        help="run the hall from another checkout (e.g. a git worktree of an earlier commit)")
    parser.add_argument("--hall-args", default="", help="extra twistd gamehall options, space-separated")
    parser.add_argument("--hall-cpus", type=lambda text: {int(n) for n in text.split(",")}, default=None,
                        help="the cores the hall may run on, comma-separated (as `taskset -c` would): "
                             "its threads then share one core's caches instead of handing the GIL "
                             "between cores")
    parser.add_argument("--timeline", action="store_true",
                        help="print every second from the start of play: answers, turnaround p50/p99/max, "
                             "the clients' and the hall's threads' CPU per answer, the hall's threads' waits "
                             "for a core, the machine's steal and idle time")
    parser.add_argument("--worker-id", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--groups", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--in-flight", type=int, default=40, help=argparse.SUPPRESS)
    options = parser.parse_args()
    think_range(options.think_ms)
    if options.worker_id is not None:
        worker(options)
    else:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))     # run the clean-up in run()'s finally
        run(options)


if __name__ == "__main__":
    main()
