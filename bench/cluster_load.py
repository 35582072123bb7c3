"""One hall on PostgreSQL and Redis, run as one process and as two (``--workers 2``), under
the same mixed load: NetAcquire games plus web spectators; then a worker killed under load.

Everything runs on this machine: a throwaway PostgreSQL (tests/pgserver.py, fsync off,
with pg_stat_statements) and redis-server (tests/redisserver.py), unless --store /
--redis-url name servers; the hall (``twistd -n gamehall --store ... --bus ... [--workers 2]``, one
NetAcquire port and one web port however many processes serve them, so the load sees one
address); the load generators.  For each configuration (a fresh database and bus
database each):

- web spectators (bench/web_load.py's client workers): --spectators WebSockets watching
  --bot-tables tables of four hall bots (--bot-delay), connected first and kept watching;
- NetAcquire games ramped through --steps: the games of bench/netacquire_load.py (four
  wire-level clients a game, human-like: each answers after --think-ms), added step by
  step by more client processes; after each step's --warmup, a --seconds window measured
  on every client: answers/s, games finished, turnaround p50/p99 (a client's answer to the
  next data it gets).  A load is sustained while its p99 is at most --p99-ms (20); the ramp
  ends after a step whose p99 is past --stop-p99-ms (1000).

Per window: the CPU of the hall's processes (and of their non-reactor threads: the
store's), PostgreSQL's (every server process), Redis's and the load generators'; the
actions stored; statements and transactions on PostgreSQL (pg_stat_statements,
pg_stat_database) and commands, PUBLISHes and bytes on Redis (INFO) per action.

With two processes, then (unless --no-failover): at the last step's load, the Redis
ownership claims of the tables are read, one worker is killed (SIGKILL), and the clients
keep playing (a client whose connection dropped connects again and signs in under its
name: its seat is held for it).  Printed: for the tables the killed worker owned, the time
from the kill to the first decision asked again at each (the failover time is the
largest; requests in the first 0.1 s are data already on its way), and after --settle
seconds the check of every game against the store: each table's stored actions replayed
through the engine from its seed; a tile a client saw placed on the board but not on the
replayed board is an action lost (told, not stored); a stored action the engine refuses,
or a tile played twice, is an action applied twice.

    python bench/cluster_load.py [--configs 1,2] [--steps 25,50,100,200] [--think-ms 500-1000]
        [--spectators 100] [--bot-tables 10] [--warmup 15] [--seconds 15] [--settle 40]
        [--nice -10] [--no-failover] [--keep-log PATH] [--store postgresql://...] [--redis-url redis://host:port]

(--store: one configuration per run, its database is written; --redis-url: databases 1, 2...
of that server; --nice -10 runs every process of the run ahead of other work, as root.)
Everything (PostgreSQL, Redis, every hall process and every load generator) shares this
machine's cores, which the figures printed say; nothing is asserted.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hallbench  # noqa: E402
import netacquire_load as na  # noqa: E402
from hallbench import (ROOT, bench_env, cpu_pressure, cpu_seconds,  # noqa: E402
                       raise_nofile, stop, thread_cpu_seconds)

HERE = Path(__file__).resolve()
WEB_LOAD = HERE.parent / "web_load.py"
EMPTY_CELL = 12648447            # NetAcquire's colour of an empty board cell
NICE = [0]                       # --nice: every process of the run (needs root when negative)
RECONNECT_AFTER = 0.5            # seconds before a dropped client connects again (doubling to 4 s)


# -- the NetAcquire client worker: netacquire_load's bots, that reconnect and record ---------------

def client_worker(options) -> None:
    """netacquire_load's groups of four bots, plus: a bot whose connection drops connects
    again under its name; every tile a bot sees placed is recorded by game number; each
    group's decisions asked are timed around a kill.  Commands on stdin: ``go WARMUP``,
    ``window SECONDS`` (-> ``result {...}``), ``killed T`` (wall clock), ``report``
    (-> ``seen {...}``); EOF stops."""
    na.install_bench_reactor()
    from twisted.internet import reactor
    from twisted.internet.protocol import ClientFactory
    from twisted.logger import (FilteringLogObserver, LogLevel, LogLevelFilterPredicate, globalLogBeginner,
                                textFileLogObserver)
    globalLogBeginner.beginLoggingTo([FilteringLogObserver(
        textFileLogObserver(sys.stderr), [LogLevelFilterPredicate(defaultLogLevel=LogLevel.warn)])],
        redirectStandardIO=False)
    na.THINK[:] = na.think_range(options.think_ms)
    Bot = na.make_bot_class()
    raise_nofile(4 * options.groups + 256)
    stats = na.Stats()
    rng = random.Random(options.worker_id)
    state = {"connecting": 0, "kill": None, "reconnects": 0, "join_retries": 0, "stopping": False, "back": []}

    class Group(na.Group):
        def __init__(self, *args) -> None:
            super().__init__(*args)
            self.game = None                     # the game number being played
            self.seen: dict[int, set] = defaultdict(set)      # game -> tile ids seen placed
            self.after_kill = None               # first decision asked after the kill (wall clock)
            self.game_at_kill = None
            self.silent_at_kill = False

        def created(self, number: bytes) -> None:
            self.game = int(number)
            super().created(number)

        def asked(self) -> None:
            kill = state["kill"]
            if kill is not None and self.after_kill is None:
                now = time.time()
                if now > kill + 0.1:
                    self.after_kill = now

    class ClusterBot(Bot):
        def __init__(self, name, group, on_ready, slot) -> None:
            super().__init__(name, group, on_ready)
            self.slot = slot                     # index in group.bots
            self.retry = RECONNECT_AFTER

        # netacquire_load's bots look at a directive through a handler per two-byte code:
        # these add what the failover check needs to those of the board, requests and messages
        def on_SB(self, part: bytes) -> None:
            if self.group.game is not None:
                tile, _, colour = part[3:].partition(b",")
                if colour.split(b",", 1)[0] != str(EMPTY_CELL).encode():
                    self.group.seen[self.group.game].add(int(tile))
            super().on_SB(part)

        def _asked(self, handler, part: bytes) -> None:
            if part[2:3] == b";":
                self.group.asked()
            handler(part)

        def on_GT(self, part: bytes) -> None:
            self._asked(super().on_GT, part)

        def on_GP(self, part: bytes) -> None:
            self._asked(super().on_GP, part)

        def on_GC(self, part: bytes) -> None:
            self._asked(super().on_GC, part)

        def on_GD(self, part: bytes) -> None:
            self._asked(super().on_GD, part)

        def on_M(self, part: bytes) -> None:
            if part.startswith(b'M;"E;') and b"No game #" in part and self.group.game is not None \
                    and self is not self.group.creator and self.group.joined < 3:
                # a game made on another process, not yet heard of on this one (its
                # announcement is on its way): a person would look again; so does the bot
                state["join_retries"] += 1
                reactor.callLater(0.3, self.send, b"JG;%d,-1" % self.group.game)
                return
            super().on_M(part)

        def connectionLost(self, reason=None) -> None:
            super().connectionLost(reason)
            if self.group.running:
                state["reconnects"] += 1
                reactor.callLater(self.retry, connect, self.name.decode(), self.group, self.slot,
                                  min(4.0, self.retry * 2))

    groups = [Group(i, stats, rng) for i in range(options.groups)]
    pending = [(g, f"w{options.worker_id}g{g.index}p{k}", k) for g in groups for k in range(4)]
    pending.reverse()
    for g in groups:
        g.bots = [None] * 4
    ready: list = []

    class Factory(ClientFactory):
        def __init__(self, name, group, slot, retry, first) -> None:
            self.name, self.group, self.slot, self.retry, self.first = name, group, slot, retry, first

        def buildProtocol(self, addr):
            bot = ClusterBot(self.name, self.group, logged_in if self.first else back, self.slot)
            bot.retry = self.retry
            old = self.group.bots[self.slot]
            if old is not None and self.group.creator is old:
                self.group.creator = bot
            self.group.bots[self.slot] = bot
            return bot

        def clientConnectionFailed(self, connector, reason):
            if self.first:
                state["connecting"] -= 1
                pending.append((self.group, self.name, self.slot))
                reactor.callLater(0.5, connect_more)
            elif self.group.running:
                reactor.callLater(self.retry, connect, self.name, self.group, self.slot, min(4.0, self.retry * 2))

    def connect(name, group, slot, retry=RECONNECT_AFTER, first=False) -> None:
        reactor.connectTCP("127.0.0.1", options.port, Factory(name, group, slot, retry, first), timeout=30)

    def connect_more() -> None:
        while state["connecting"] < options.in_flight and pending:
            group, name, slot = pending.pop()
            state["connecting"] += 1
            connect(name, group, slot, first=True)

    def logged_in(bot) -> None:
        ready.append(bot)
        state["connecting"] -= 1
        if len(ready) == 4 * len(groups):
            print("ready", flush=True)
        else:
            connect_more()

    def back(bot) -> None:
        bot.retry = RECONNECT_AFTER               # its held seat comes back with the sign-in
        if state["kill"] is not None:
            state["back"].append(time.time() - state["kill"])

    def go(warmup: float) -> None:
        for g in groups:
            g.running = True
            g.last_activity = time.monotonic()
            reactor.callLater(rng.uniform(0, 0.8 * warmup), g.new_game)

    def window(seconds: float) -> None:
        stats.counting = True
        stats.hist.clear()
        stats.finished = stats.started = 0
        t0, rx0, tx0, cpu0, closed0 = time.perf_counter(), stats.rx, stats.tx, time.process_time(), stats.closed

        def end() -> None:
            stats.counting = False
            now = time.monotonic()
            report = {"elapsed": time.perf_counter() - t0, "rx": stats.rx - rx0, "tx": stats.tx - tx0,
                      "finished": stats.finished, "started": stats.started, "refused": stats.refused,
                      "errors": stats.errors, "last_error": stats.last_error, "closed": stats.closed - closed0,
                      "stalled": sum(1 for g in groups if now - g.last_activity > 5.0),
                      "join_retries": state["join_retries"],
                      "hist": {str(k): v for k, v in stats.hist.items()}, "cpu": time.process_time() - cpu0}
            print("result " + json.dumps(report), flush=True)
        reactor.callLater(seconds, end)

    def report() -> None:
        out = {"reconnects": state["reconnects"], "join_retries": state["join_retries"],
               "back": sorted(state["back"]), "groups": [
            {"game": g.game_at_kill, "after_kill": g.after_kill, "silent_at_kill": g.silent_at_kill, "games_finished": g.games_finished,
             "silent": time.monotonic() - g.last_activity,
             "seen": {str(game): sorted(tiles) for game, tiles in g.seen.items()}} for g in groups]}
        print("seen " + json.dumps(out), flush=True)

    def read_stdin() -> None:
        for line in sys.stdin:
            words = line.split()
            if words[:1] == ["go"]:
                reactor.callFromThread(go, float(words[1]))
            elif words[:1] == ["window"]:
                reactor.callFromThread(window, float(words[1]))
            elif words[:1] == ["killed"]:
                state["kill"] = float(words[1])
                for g in groups:
                    g.game_at_kill = g.game
                    g.silent_at_kill = time.monotonic() - g.last_activity > 5.0
            elif words[:1] == ["report"]:
                reactor.callFromThread(report)
        reactor.callFromThread(stop_once)

    def stop_once() -> None:
        if not state["stopping"] and reactor.running:
            state["stopping"] = True
            reactor.stop()

    threading.Thread(target=read_stdin, daemon=True).start()
    # SIGTERM (the parent's last word) stops once, like stdin's EOF: Twisted's own handler
    # would stop a reactor that EOF stopped already (a ReactorNotRunning traceback)
    signal.signal(signal.SIGTERM, lambda *_: reactor.callFromThread(stop_once))
    reactor.callWhenRunning(connect_more)
    reactor.run(installSignalHandlers=False)


# -- the servers ------------------------------------------------------------------------------------

def start_postgres():
    """A throwaway PostgreSQL server (tests/pgserver.py) with pg_stat_statements loaded."""
    sys.path.insert(0, str(ROOT))
    from tests import pgserver

    class Server(pgserver.PrivateServer):
        def start(self) -> None:
            self._watch()
            opts = (f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
                    "-c full_page_writes=off -c max_connections=200 "
                    "-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all")
            self._run("pg_ctl", "-D", self.data, "-o", opts, "-l", os.path.join(self.folder, "log"),
                      "-w", "-t", "60", "start")
            self.running = True

    server = Server()
    server.start()
    if NICE[0]:                  # pg_ctl gives the server a session (a scheduling group) of its own
        try:
            prioritize(int(Path(server.data, "postmaster.pid").read_text().split()[0]), NICE[0])
        except (OSError, ValueError, IndexError):
            pass
    return server


def prioritize(pid: int | str, nice: int) -> None:
    """``nice`` for the scheduling group (Linux autogroup: the session) of ``pid`` and for it."""
    try:
        with open(f"/proc/{pid}/autogroup", "w") as f:
            f.write(str(nice))
    except OSError:
        pass
    try:
        os.setpriority(os.PRIO_PROCESS, 0 if pid == "self" else int(pid), nice)
    except OSError:
        pass


def start_redis():
    sys.path.insert(0, str(ROOT))
    from tests.redisserver import RedisServer
    server = RedisServer()
    server.start()
    return server


class Counters:
    """What the servers have done so far: PostgreSQL (statements, commits, CPU) and Redis."""

    def __init__(self, store_url: str, redis, pg_data: str | None) -> None:
        import psycopg
        self.conn = psycopg.connect(store_url, autocommit=True)
        self.redis = redis
        self.pg_pid = None
        if pg_data:
            try:
                self.pg_pid = int(Path(pg_data, "postmaster.pid").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                pass
        try:
            self.conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            self.statements = True
        except Exception:
            self.statements = False

    def pg_cpu(self) -> float:
        """CPU seconds of the postmaster and every server process (live ones, and the reaped)."""
        if self.pg_pid is None:
            return float("nan")
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if entry.name == str(self.pg_pid):
                total += sum(int(f) for f in fields[11:15]) / tick      # own and reaped children's
            elif int(fields[1]) == self.pg_pid:
                total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def snapshot(self) -> dict:
        c = self.conn
        snap = {"pg_cpu": self.pg_cpu(), "time": time.monotonic()}
        snap["actions"] = c.execute("SELECT count(*) FROM gamehall_actions").fetchone()[0]
        snap["commits"] = c.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
                                    ).fetchone()[0]
        if self.statements:
            snap["calls"] = c.execute(
                "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE dbid = "
                "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                "AND query NOT LIKE '%pg_stat%' AND query NOT LIKE 'SELECT count(*) FROM gamehall_actions%'"
            ).fetchone()[0]
        info = redis_info(self.redis)
        snap["redis_cpu"] = float(info.get("used_cpu_user", 0)) + float(info.get("used_cpu_sys", 0))
        snap["redis_cmds"] = int(info.get("total_commands_processed", 0))
        snap["redis_in"] = int(info.get("total_net_input_bytes", 0))
        snap["redis_out"] = int(info.get("total_net_output_bytes", 0))
        snap["publish"] = command_calls(info, "publish")
        snap["eval"] = command_calls(info, "eval") + command_calls(info, "evalsha")
        return snap

    def close(self) -> None:
        self.conn.close()


def redis_info(redis) -> dict:
    text = redis.call("INFO", "all")
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            out[key.strip()] = value.strip()
    return out


def command_calls(info: dict, name: str) -> int:
    entry = info.get(f"cmdstat_{name}", "")
    match = re.search(r"calls=(\d+)", entry)
    return int(match.group(1)) if match else 0


# -- the hall -------------------------------------------------------------------------------------

READY = re.compile(r"worker (\d+) \[pid (\d+)\] \[gamehall\.tap\.HallService\] admin listening on")


class ClusterHall(hallbench.Hall):
    """``twistd -n gamehall --store URL --bus URL [--workers N]``: netacquire and web only."""

    def __init__(self, store: str, bus: str, workers: int, extra: list[str]) -> None:
        super().__init__(["netacquire", "web"], extra=extra)
        at = self.args.index("--db")
        del self.args[at:at + 2]
        self.args += ["--store", store, "--bus", bus]
        if workers > 1:
            self.args += ["--workers", str(workers)]
        self.workers = workers
        self.worker_pids: dict[int, int] = {}

    def start(self, timeout: float = 120.0) -> "ClusterHall":
        cmd = [str(Path(sys.executable).parent / "twistd")] + self.args
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=self.env, cwd=str(self.dir), preexec_fn=na.session_setup(NICE[0]))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log()
            if self.workers > 1:
                self.worker_pids = {int(m.group(1)): int(m.group(2)) for m in READY.finditer(text)}
                if len(self.worker_pids) >= self.workers:
                    return self
            elif "netacquire listening" in text and "web listening" in text and "admin listening" in text:
                self.worker_pids = {0: self.proc.pid}
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("the hall did not start:\n" + self.log()[-3000:])

    def pids(self) -> list[int]:
        """The hall's processes: the workers and, with --workers, their supervisor."""
        return sorted({self.proc.pid, *self.worker_pids.values()})

    def cpu(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids())

    def other_threads_cpu(self) -> float:
        """CPU of every thread but the reactor's, over the processes (the store's, mostly)."""
        return sum(cpu for pid in self.pids() for name, cpu in thread_cpu_seconds(pid).items() if name != "main")


# -- the parent -------------------------------------------------------------------------------------

class Clients:
    """The load generator's processes: NetAcquire client workers and web spectator workers."""

    def __init__(self, options, env) -> None:
        self.options, self.env = options, env
        self.lines: queue.Queue = queue.Queue()
        self.na: list[subprocess.Popen] = []
        self.web: list[subprocess.Popen] = []
        self.games = 0

    def spawn(self, cmd: list[str]) -> subprocess.Popen:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=self.env,
                                preexec_fn=na.session_setup(NICE[0]))
        threading.Thread(target=na.forward_lines, args=(proc, self.lines), daemon=True).start()
        return proc

    def tell(self, procs, line: str) -> None:
        for p in procs:
            p.stdin.write(line + "\n")
            p.stdin.flush()

    def expect(self, procs, prefix: str, timeout: float) -> list[str]:
        """One line starting with ``prefix`` from each of ``procs``; other lines are shown."""
        got: dict = {}
        deadline = time.monotonic() + timeout
        while len(got) < len(procs):
            try:
                proc, line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError(f"{len(procs) - len(got)} client process(es) did not say {prefix!r} "
                                   f"within {timeout:g} s") from None
            if line is None:
                raise RuntimeError(f"a client process exited ({proc.wait()}) before saying {prefix!r}")
            if line.startswith(prefix) and proc in procs:
                got[proc] = line
            else:
                print(f"    (client: {line.strip()[:300]})", file=sys.stderr, flush=True)
        return [got[p] for p in procs]

    def start_spectators(self, port: int) -> None:
        o = self.options
        if not o.spectators:
            return
        k = max(1, o.web_processes)
        for i in range(k):
            share = list(range(i, o.spectators, k))
            self.web.append(self.spawn([sys.executable, str(WEB_LOAD), "client", str(port), str(o.bot_tables),
                                        json.dumps(share)]))
        self.expect(self.web, "tables", 120)
        self.tell(self.web, "more")
        self.expect(self.web, "ready", 120)
        self.tell(self.web, "go")                      # they record arrivals from now on

    def spectator_arrivals(self) -> int:
        if not self.web:
            return 0
        self.tell(self.web, "stop")
        got = self.expect(self.web, "{", 60)
        return sum(len(json.loads(line)["arrivals"]) for line in got)

    def add_games(self, port: int, games: int) -> None:
        """``games`` more NetAcquire games, on new client processes (up to 100 games each)."""
        o = self.options
        new = []
        while games > 0:
            groups = min(games, o.games_per_process)
            new.append(self.spawn([sys.executable, str(HERE), "--client-worker", str(len(self.na) + len(new)),
                                   "--groups", str(groups), "--port", str(port), "--think-ms", o.think_ms,
                                   "--in-flight", "20"]))
            games -= groups
            self.games += groups
        self.expect(new, "ready", 120 + 4 * o.games_per_process)
        self.tell(new, f"go {o.warmup}")
        self.na += new

    def window(self, seconds: float) -> list[dict]:
        self.tell(self.na, f"window {seconds}")
        got = self.expect(self.na, "result ", seconds + 60)
        return [json.loads(line[len("result "):]) for line in got]

    def stop(self) -> None:
        for p in self.na + self.web:
            try:
                p.stdin.close()
            except OSError:
                pass
        stop(self.na + self.web)


def measure_step(hall: ClusterHall, clients: Clients, counters: Counters, seconds: float) -> dict:
    before = counters.snapshot()
    hall_cpu0, threads0, pressure0 = hall.cpu(), hall.other_threads_cpu(), cpu_pressure()
    reports = clients.window(seconds)
    after = counters.snapshot()
    hist: Counter = Counter()
    for r in reports:
        hist.update({int(k): v for k, v in r["hist"].items()})
    elapsed = max(r["elapsed"] for r in reports)
    step = {
        "games": clients.games, "elapsed": elapsed, "answers": sum(hist.values()),
        "finished": sum(r["finished"] for r in reports), "started": sum(r["started"] for r in reports),
        "p50": na.percentile(hist, 0.50), "p99": na.percentile(hist, 0.99), "max": na.percentile(hist, 1.0),
        "hall_cpu": hall.cpu() - hall_cpu0, "store_threads_cpu": hall.other_threads_cpu() - threads0,
        "client_cpu": sum(r["cpu"] for r in reports), "pressure": (pressure0 + cpu_pressure()) / 2,
        "errors": sum(r["errors"] for r in reports), "closed": sum(r["closed"] for r in reports),
        "stalled": sum(r["stalled"] for r in reports), "join_retries": sum(r["join_retries"] for r in reports),
        "last_error": next((r["last_error"] for r in reports if r["last_error"]), ""),
    }
    for key in ("actions", "commits", "calls", "redis_cmds", "redis_in", "redis_out", "publish", "eval"):
        if key in after:
            step[key] = after[key] - before[key]
    step["pg_cpu"] = after["pg_cpu"] - before["pg_cpu"]
    step["redis_cpu"] = after["redis_cpu"] - before["redis_cpu"]
    return step


def print_step(step: dict) -> None:
    e = step["elapsed"]
    actions = max(1, step.get("actions", 0))
    print(f"  {step['games']:4d} games: {step['answers'] / e:7.1f} answers/s, {step['finished'] / e:.2f} games "
          f"finished/s ({step['started']} started), turnaround p50 {step['p50']:.1f} ms p99 {step['p99']:.1f} ms "
          f"max {step['max']:.0f} ms; {step.get('actions', 0) / e:.0f} actions stored/s", flush=True)
    print(f"        CPU over {e:.1f} s: hall {step['hall_cpu']:.1f} s (non-reactor threads "
          f"{step['store_threads_cpu']:.1f}), PostgreSQL {step['pg_cpu']:.1f}, Redis {step['redis_cpu']:.1f}, "
          f"load generators {step['client_cpu']:.1f} (NetAcquire clients); CPU pressure {step['pressure']:.0f}%",
          flush=True)
    per = lambda key: step.get(key, float("nan")) / actions                                       # noqa: E731
    print(f"        per action stored: hall {step['hall_cpu'] / actions * 1e3:.2f} ms CPU (store threads "
          f"{step['store_threads_cpu'] / actions * 1e3:.2f}), PostgreSQL {step['pg_cpu'] / actions * 1e3:.2f} ms "
          f"CPU, {per('calls'):.2f} statements, {per('commits'):.2f} commits; Redis "
          f"{step['redis_cpu'] / actions * 1e3:.2f} ms CPU, {per('redis_cmds'):.2f} commands "
          f"({per('publish'):.2f} PUBLISH, {per('eval'):.2f} EVAL), {per('redis_in'):.0f} bytes in, "
          f"{per('redis_out'):.0f} bytes out", flush=True)
    if step["join_retries"]:
        print(f"        joins asked again after 'No game #N' (a game made on another process, not yet heard of "
              f"here): {step['join_retries']} since the start", flush=True)
    if step["errors"] or step["closed"] or step["stalled"]:
        print(f"        error boxes {step['errors']}, connections lost {step['closed']}, groups silent > 5 s "
              f"{step['stalled']} {step['last_error'][:150]}", flush=True)


def redis_call(redis, db: int, *commands: tuple) -> list:
    """Commands on database ``db`` over one blocking connection (the bus keeps its keys there)."""
    import socket
    from tests.redisserver import _read_reply
    with socket.create_connection(("127.0.0.1", redis.port), timeout=10) as s:
        replies = s.makefile("rb")
        out = []
        for args in [("SELECT", db), *commands]:
            payload = b"*%d\r\n" % len(args)
            for a in args:
                a = str(a).encode()
                payload += b"$%d\r\n%s\r\n" % (len(a), a)
            s.sendall(payload)
            out.append(_read_reply(replies))
        return out[1:]


def table_owners(store_url: str) -> dict[int, str]:
    """table id -> the process whose lease in the store holds the playing table now (a lease
    owner is the process id, ``host:pid``, and a part of its own after ``#``)."""
    import psycopg
    with psycopg.connect(store_url) as conn:
        rows = conn.execute("SELECT id, lease_owner FROM gamehall_tables WHERE state = 'playing'"
                            " AND lease_owner IS NOT NULL"
                            " AND lease_expires > extract(epoch FROM clock_timestamp())").fetchall()
    return {table_id: owner.split("#", 1)[0] for table_id, owner in rows}


def check_store(store_url: str, games: dict[int, set]) -> dict:
    """Each game's stored actions replayed from its seed: tiles seen but not stored (lost),
    actions the engine refuses or tiles played twice (applied twice)."""
    import psycopg
    sys.path.insert(0, str(ROOT))
    from gamehall_acquire.game import AcquireGame
    from gamehall_acquire.tiles import tile_name
    game_class = AcquireGame()
    out = {"tables": 0, "actions": 0, "lost": 0, "twice": 0, "missing_tables": 0, "examples": []}
    with psycopg.connect(store_url) as conn:
        for table_id, seen in sorted(games.items()):
            row = conn.execute("SELECT variant, seed, seats FROM gamehall_tables WHERE id = %s",
                               (table_id,)).fetchone()
            if row is None:
                out["missing_tables"] += 1
                out["lost"] += len(seen)
                continue
            variant, seed, seats = row[0], row[1], json.loads(row[2])
            actions = conn.execute("SELECT seat, action FROM gamehall_actions WHERE table_id = %s ORDER BY seq",
                                   (table_id,)).fetchall()
            out["tables"] += 1
            out["actions"] += len(actions)
            engine = game_class.new_engine(variant, [s.get("name") or f"seat{i}" for i, s in enumerate(seats)], seed)
            played = Counter()
            for seat, text in actions:
                action = json.loads(text)
                if "play_tile" in action:
                    played[action["play_tile"]] += 1
                try:
                    engine.apply(seat, action)
                except Exception as exc:                 # refused on replay: applied twice (or out of order)
                    out["twice"] += 1
                    out["examples"].append(f"table {table_id}: stored {action} refused on replay: {exc}")
            out["twice"] += sum(n - 1 for n in played.values() if n > 1)
            board = engine.board
            lost = [t for t in seen if tile_name(t) not in board]
            out["lost"] += len(lost)
            if lost:
                out["examples"].append(f"table {table_id}: seen but not stored: {[tile_name(t) for t in lost]}")
    return out


def failover(hall: ClusterHall, clients: Clients, redis, db: int, store_url: str, settle: float) -> None:
    owners = table_owners(store_url)
    number, pid = sorted(hall.worker_pids.items())[0]
    process_ids = Counter(owners.values())
    victim = next((p for p in process_ids if p.endswith(f":{pid}")), None)
    doomed = {t for t, p in owners.items() if p == victim}
    print(f"  failover: tables leased per process {dict(process_ids)}; SIGKILL worker {number} (pid {pid}), "
          f"which owns {len(doomed)} tables", flush=True)
    killed_at = time.time()
    os.kill(pid, signal.SIGKILL)
    clients.tell(clients.na, f"killed {killed_at}")
    taken = {}
    deadline = time.monotonic() + settle
    while time.monotonic() < deadline and len(taken) < len(doomed):
        for t, p in table_owners(store_url).items():
            if t in doomed and t not in taken and p != victim:
                taken[t] = time.time() - killed_at
        time.sleep(0.2)
    time.sleep(max(0.0, deadline - time.monotonic()))
    clients.tell(clients.na, "report")
    got = clients.expect(clients.na, "seen ", 60)
    reports = [json.loads(line[len("seen "):]) for line in got]
    groups = [g for r in reports for g in r["groups"]]
    stuck = sum(1 for g in groups if g["silent_at_kill"])
    if stuck:
        print(f"  failover: {stuck} games were already silent for 5 s at the kill (left out below)", flush=True)
    groups = [g for g in groups if not g["silent_at_kill"]]
    affected = [g for g in groups if g["game"] in doomed]
    gaps = [g["after_kill"] - killed_at for g in affected if g["after_kill"] is not None]
    never = sum(1 for g in affected if g["after_kill"] is None)
    print(f"  failover: leases taken by the other process for {len(taken)} of {len(doomed)} tables, the last "
          f"{max(taken.values(), default=float('nan')):.1f} s after the kill", flush=True)
    print(f"  failover: the killed worker's tables asking a decision again: {len(gaps)} of {len(affected)} "
          f"games, first after {min(gaps, default=float('nan')):.1f} s, median "
          f"{sorted(gaps)[len(gaps) // 2] if gaps else float('nan'):.1f} s, all after (failover time) "
          f"{max(gaps, default=float('nan')):.1f} s; {never} not asking again within {settle:.0f} s; "
          f"connections dropped or refused {sum(r['reconnects'] for r in reports)} times", flush=True)
    back = sorted(t for r in reports for t in r["back"])
    if back:
        print(f"  failover: clients signed in again: {len(back)}, the first {back[0]:.1f} s after the kill, the "
              f"median {back[len(back) // 2]:.1f} s, the last {back[-1]:.1f} s", flush=True)
    others = [g["after_kill"] - killed_at for g in groups if g["game"] not in doomed and g["after_kill"]]
    if others:
        print(f"  failover: the other tables asked again within {max(others):.1f} s (their players on the "
              f"killed worker reconnect)", flush=True)
    seen: dict[int, set] = defaultdict(set)
    for g in groups:
        for game, tiles in g["seen"].items():
            seen[int(game)].update(tiles)
    checked = check_store(store_url, seen)
    print(f"  store check over {checked['tables']} games ({checked['actions']} stored actions): "
          f"actions lost (seen by a client, not stored) {checked['lost']}, applied twice {checked['twice']}"
          + (f", games not in the store {checked['missing_tables']}" if checked["missing_tables"] else ""), flush=True)
    for line in checked["examples"][:5]:
        print("    " + line, flush=True)


def run_config(workers: int, options, pg, redis, db_index: int) -> list[dict]:
    if options.store:
        store_url = options.store
    else:
        name = f"bench_{workers}w_{os.getpid()}"
        pg.admin(f"CREATE DATABASE {name}")
        store_url = pg.url(name)
    bus_url = f"{options.redis_url or redis.url.rsplit('/', 1)[0]}/{db_index}"
    extra = ["--bot-delay", str(options.bot_delay), "--rate", "0", "--seed", "1"]
    hall = ClusterHall(store_url, bus_url, workers, extra)
    clients = Clients(options, bench_env())
    steps = []
    print(f"{'one process' if workers == 1 else f'{workers} processes (--workers {workers})'}: "
          f"store {store_url.split('@')[-1]}, bus {bus_url}", flush=True)
    try:
        hall.start()
        counters = Counters(store_url, redis, pg.data if pg is not None else None)
        t0 = time.monotonic()
        clients.start_spectators(hall.ports["web"])
        if clients.web:
            print(f"  {options.spectators} web spectators watching {options.bot_tables} bot tables "
                  f"(--bot-delay {options.bot_delay}) connected in {time.monotonic() - t0:.1f} s", flush=True)
        for games in options.steps:
            clients.add_games(hall.ports["netacquire"], games - clients.games)
            time.sleep(options.warmup)
            step = measure_step(hall, clients, counters, options.seconds)
            steps.append(step)
            print_step(step)
            if step["p99"] > options.stop_p99_ms:
                break
        if workers > 1 and not options.no_failover:
            failover(hall, clients, redis, db_index, store_url, options.settle)
        arrivals = clients.spectator_arrivals()
        if clients.web:
            print(f"  web spectators received {arrivals} game messages while recorded", flush=True)
        if counters.statements:
            rows = counters.conn.execute(
                "SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) FROM pg_stat_statements WHERE dbid = "
                "(SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat%' "
                "ORDER BY calls DESC LIMIT 6").fetchall()
            print("  PostgreSQL statements by calls, whole run: " + "; ".join(f"{n} x {q}" for n, q in rows),
                  flush=True)
        per_game = counters.conn.execute(
            "SELECT avg(n), count(*) FROM (SELECT count(*) AS n FROM gamehall_actions a JOIN gamehall_tables t "
            "ON t.id = a.table_id WHERE t.state = 'finished' GROUP BY a.table_id) AS f").fetchone()
        if per_game[1]:
            for step in steps:
                step["actions_per_game"] = float(per_game[0])
            print(f"  a finished game stored {float(per_game[0]):.0f} actions on average ({per_game[1]} finished "
                  f"games): games/s = actions stored/s / {float(per_game[0]):.0f}", flush=True)
        counters.close()
        tracebacks = hall.log().count("Traceback")
        if tracebacks:
            print(f"  the hall logged {tracebacks} traceback(s); its last lines:\n    "
                  + "\n    ".join(hall.log().strip().splitlines()[-10:]), flush=True)
    finally:
        clients.stop()
        if options.keep_log:
            Path(f"{options.keep_log}.{workers}").write_text(hall.log())
        hall.stop()
    return steps


def summary(results: dict[int, list[dict]], limit: float) -> None:
    best = {}
    for workers, steps in results.items():
        ok = [s for s in steps if s["p99"] <= limit]
        best[workers] = max(ok, key=lambda s: s["answers"] / s["elapsed"]) if ok else None
        if ok:
            s = best[workers]
            games = (f"{s['actions'] / s['elapsed'] / s['actions_per_game']:.2f} games/s"
                     if s.get("actions_per_game") and "actions" in s else "games/s not known")
            print(f"sustained with p99 <= {limit:g} ms, {workers} process(es): {s['games']} games, "
                  f"{s['answers'] / s['elapsed']:.1f} answers/s, {s.get('actions', 0) / s['elapsed']:.0f} actions "
                  f"stored/s ({games}; p99 {s['p99']:.1f} ms)")
        else:
            print(f"sustained with p99 <= {limit:g} ms, {workers} process(es): no step met it")
    if best.get(1) and best.get(2):
        ratio = (best[2]["answers"] / best[2]["elapsed"]) / (best[1]["answers"] / best[1]["elapsed"])
        print(f"two processes / one: {ratio:.2f}x the answers per second at p99 <= {limit:g} ms (goal 1.6x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", default="1,2", help="processes per run, comma-separated (default 1,2)")
    parser.add_argument("--steps", default="25,50,100,200", help="NetAcquire games at each step (cumulative)")
    parser.add_argument("--think-ms", default="500-1000", help="a client's time to answer (as netacquire_load)")
    parser.add_argument("--spectators", type=int, default=100)
    parser.add_argument("--bot-tables", type=int, default=10)
    parser.add_argument("--bot-delay", type=float, default=0.5)
    parser.add_argument("--web-processes", type=int, default=1)
    parser.add_argument("--games-per-process", type=int, default=100)
    parser.add_argument("--warmup", type=float, default=15.0)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--p99-ms", type=float, default=20.0, help="the p99 a load must keep to count as sustained")
    parser.add_argument("--stop-p99-ms", type=float, default=1000.0, help="end the ramp after a step past this p99")
    parser.add_argument("--settle", type=float, default=40.0, help="seconds after the kill before the check")
    parser.add_argument("--no-failover", action="store_true")
    parser.add_argument("--keep-log", help="write each configuration's hall log to this path + .1 / .2")
    parser.add_argument("--nice", type=int, default=0,
                        help="run PostgreSQL, Redis, the hall and the clients at this nice value (negative: "
                             "ahead of other work on a shared machine; needs root)")
    parser.add_argument("--store", help="a PostgreSQL URL to use instead of a throwaway server (one config only)")
    parser.add_argument("--redis-url", help="redis://host:port of a server to use (databases 1, 2, ...)")
    parser.add_argument("--client-worker", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--groups", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--in-flight", type=int, default=20, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.spectators and importlib.util.find_spec("websockets") is None:
        parser.error("the web spectators need the websockets package (pip install -e '.[bench]'); "
                     "or run with --spectators 0")
    if options.client_worker is not None:
        options.worker_id = options.client_worker
        client_worker(options)
        return
    options.steps = [int(n) for n in options.steps.split(",")]
    configs = [int(n) for n in options.configs.split(",")]
    raise_nofile(4 * max(options.steps) + options.spectators + 1024)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    NICE[0] = options.nice
    if options.nice:             # inherited by Redis, the hall and every client process
        prioritize("self", options.nice)
    print(f"cluster_load: {os.cpu_count()} cores shared by PostgreSQL, Redis, the hall's processes and the load "
          f"generators (and whatever else runs here: load average {os.getloadavg()[0]:.1f}); NetAcquire clients "
          f"answer after {options.think_ms} ms; {options.warmup:g} s warm-up and {options.seconds:g} s measured "
          f"per step" + (f"; every process of the run at nice {options.nice}" if options.nice else ""), flush=True)
    pg = None if options.store else start_postgres()
    redis = None
    try:
        if options.redis_url:
            from tests.redisserver import RedisServer
            redis = RedisServer()
            redis.port = int(options.redis_url.rsplit(":", 1)[1].split("/")[0])
        else:
            redis = start_redis()
        results = {}
        for i, workers in enumerate(configs):
            results[workers] = run_config(workers, options, pg, redis, i + 1)
        summary(results, options.p99_ms)
    finally:
        if redis is not None and not options.redis_url:
            redis.close()
        if pg is not None:
            pg.remove()


if __name__ == "__main__":
    main()
