"""What the bench scripts share: a real ``twistd -n gamehall`` in a child process, its CPU and RSS,
and an optional in-process probe of its reactor.

``Hall`` starts the hall with its own temporary database and loopback ports,
every front end but the wanted ones disabled, and stops it (SIGTERM, then
SIGKILL).  ``cpu_seconds``/``rss_kb`` read /proc.

With ``probe=True`` the hall runs under this module (``python hallbench.py
probe FILE -- TWISTD-ARGS``), which adds, in the hall's own process:

- a lag probe: a timer due every 5 ms; how late each one fires is a
  histogram of reactor stalls (0.1 ms buckets);
- the garbage collector's pauses per generation (``gc.callbacks``);
- a watchdog thread that, when the reactor has not ticked for 20 ms, takes
  the reactor thread's stack (a few frames) and counts it, so a stall can be
  told from its cause;

written as JSON to FILE every second (``Probe.read``).  Measurement only:
the hall's code is the same with or without it.
"""
from __future__ import annotations

import gc
import inspect
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAG_BUCKET_MS = 0.1


# -- processes ----------------------------------------------------------------------------------

def raise_nofile(wanted: int) -> tuple[int, int]:
    """Raise the soft open-file limit towards ``wanted`` (up to the hard limit; more if allowed)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return soft, hard
    for new_soft, new_hard in ((wanted, max(hard, wanted)), (min(wanted, hard), hard)):
        if new_hard != resource.RLIM_INFINITY and new_soft > new_hard:
            continue
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new_soft, new_hard))
            break
        except (ValueError, OSError):
            continue
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def die_with_parent() -> None:
    """preexec_fn: the child gets SIGKILL when the bench process dies (Linux only; else a no-op)."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)      # PR_SET_PDEATHSIG
    except Exception:
        pass


def child_setup(nice: int = 0):
    """preexec_fn: die with the parent, and run at ``nice`` (a negative one needs root).

    With Linux's autogroup scheduling a nice value counts only within its session's
    group, so the child also gets a session (and group) of its own at that nice: the
    way to run a measurement ahead of other people's work on a shared machine."""
    def setup() -> None:
        die_with_parent()
        if nice:
            try:
                os.setsid()
                with open("/proc/self/autogroup", "w") as f:
                    f.write(str(nice))
            except OSError:
                pass
            try:
                os.setpriority(os.PRIO_PROCESS, 0, nice)
            except OSError:
                pass
    return setup


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _per_thread(pid: int, read) -> dict[str, float]:
    """``read(task folder)`` for each thread of a process (Linux /proc; {} elsewhere), by
    name: "main" for the main (reactor) thread, "thread TID" for the others (Python 3.11
    does not name OS threads; in the hall the busiest other one is the store thread).  A
    thread that ends meanwhile is left out."""
    out: dict[str, float] = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            value = read(task)
        except (OSError, IndexError, ValueError):
            continue
        out["main" if task.name == str(pid) else f"thread {task.name}"] = value
    return out


def thread_cpu_seconds(pid: int) -> dict[str, float]:
    """User + system CPU seconds of each thread of a process (see ``_per_thread``)."""
    tick = os.sysconf("SC_CLK_TCK")

    def cpu(task: Path) -> float:
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick
    return _per_thread(pid, cpu)


def thread_core_waits(pid: int) -> dict[str, float]:
    """Seconds each thread of a process has waited on a run queue for a core (schedstat;
    see ``_per_thread``)."""
    return _per_thread(pid, lambda task: int((task / "schedstat").read_text().split()[1]) / 1e9)


def rss_kb(pid: int) -> int:
    """Resident set size (VmRSS) of a process in kB, or -1."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return -1


def core_wait_seconds(pid: int) -> float:
    """Seconds the process's main thread has waited on a run queue for a core (Linux schedstat)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


def cpu_pressure() -> float:
    """The machine's CPU pressure: share of time some task waited for a core, last 10 s (%)."""
    try:
        return float(Path("/proc/pressure/cpu").read_text().split()[1].split("=")[1])
    except (OSError, IndexError, ValueError):
        return float("nan")


def machine_cpu_ticks() -> list[int]:
    """The machine's CPU time by kind, in ticks (/proc/stat's "cpu" line: user, nice, system,
    idle, iowait, irq, softirq, steal, ...; [] elsewhere)."""
    try:
        return [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return []


def steal_percent(before: list[int], after: list[int]) -> float:
    """Share of the machine's time between two ``machine_cpu_ticks`` that its host gave to
    others (steal): a virtual machine's cores taken away, which no program here can help."""
    delta = [b - a for a, b in zip(before, after)]
    return delta[7] / max(1, sum(delta[:8])) * 100 if len(delta) > 7 else float("nan")


def bench_env(root: Path | str | None = None) -> dict:
    """The environment for a hall: the project at ``root`` (default: this checkout) first on the path."""
    first = str(root or ROOT)
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [first, os.environ.get("PYTHONPATH")] if p))


def installed_frontends(env: dict | None = None) -> list[str]:
    code = "from gamehall.plugins import find_frontends; print(' '.join(sorted(find_frontends())))"
    out = subprocess.run([sys.executable, "-c", code], env=env or bench_env(), cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.split()


def stop(procs: list, grace: float = 5.0) -> None:
    """SIGTERM each process still running, wait up to ``grace`` seconds, then SIGKILL."""
    for proc in procs:
        if proc.poll() is None:
            try:
                proc.terminate()
            except OSError:
                pass
    deadline = time.monotonic() + grace
    for proc in procs:
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def for_each_store(names, reactor, measure, url: str | None = None):
    """``measure(name, store)`` (a Deferred) for each unopened ``bench_store`` in turn, their
    files in a temporary folder removed at the end; fires when the last is measured."""
    from twisted.internet import defer

    @defer.inlineCallbacks
    def run():
        folder = tempfile.mkdtemp(prefix="gamehall-bench-")
        try:
            for name in names:
                yield measure(name, bench_store(name, folder, reactor, url))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return run()


def bench_store(name: str, folder: str, reactor, url: str | None = None):
    """An unopened store for a store bench: ``memory``, ``sqlite`` (a file in ``folder``) or
    ``postgresql`` (``url``, else a throwaway server: tests/pgserver.py)."""
    if name == "memory":
        from gamehall.store import MemoryStore
        return MemoryStore(clock=reactor)
    if name == "sqlite":
        from gamehall.store import SQLiteStore
        return SQLiteStore(os.path.join(folder, "b.sqlite"), reactor)
    if name == "postgresql":
        from gamehall.store.postgres import PostgresStore
        if url is None:
            from tests import pgserver
            url = pgserver.new_database_url()
        return PostgresStore(url, reactor)
    raise SystemExit(f"unknown store {name!r}")


class Hall:
    """A ``twistd -n gamehall`` child: ``Hall(["netacquire"]).start()``; ``ports[name]``; ``stop()``."""

    def __init__(self, frontends: list[str], extra: list[str] = (), probe: bool = False,
                 env: dict | None = None, nice: int = 0, cpus: set[int] | None = None) -> None:
        self.env = env or bench_env()
        self.nice = nice
        self.cpus = cpus            # the cores the hall (every thread of it) may run on
        self.tmp = tempfile.TemporaryDirectory(prefix="gamehall-bench-")
        self.dir = Path(self.tmp.name)
        self.log_path = self.dir / "hall.log"
        self.probe_path = self.dir / "probe.json" if probe else None
        self.ports = {name: free_port() for name in frontends}
        self.admin_port = free_port()
        self.db_path = self.dir / "hall.sqlite"
        self.args = ["-n", "--pidfile=", "gamehall", "--db", str(self.db_path),
                     "--max-per-peer", "0", "--idle-timeout", "0",
                     "--admin", f"tcp:{self.admin_port}:interface=127.0.0.1"]
        for name, port in self.ports.items():
            self.args += ["--listen", f"{name}=tcp:{port}:interface=127.0.0.1"]
        for name in installed_frontends(self.env):
            if name not in self.ports:
                self.args += ["--disable", name]
        self.args += list(extra)
        self.proc: subprocess.Popen | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def start(self, timeout: float = 60.0) -> "Hall":
        if self.probe_path is not None:
            cmd = [sys.executable, __file__, "probe", str(self.probe_path), "--"] + self.args
        else:
            cmd = [str(Path(sys.executable).parent / "twistd")] + self.args
        setup, cpus = child_setup(self.nice), self.cpus

        def preexec() -> None:
            setup()
            if cpus:
                os.sched_setaffinity(0, cpus)    # (inherited by the threads it starts)

        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=self.env, cwd=str(self.dir), preexec_fn=preexec)
        deadline = time.monotonic() + timeout
        markers = [f"{name} listening" for name in self.ports]
        while time.monotonic() < deadline:
            text = self.log()
            if all(m in text for m in markers):
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("the hall did not start:\n" + self.log()[-3000:])

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def rss_kb(self) -> int:
        return rss_kb(self.pid)

    def core_wait(self) -> float:
        return core_wait_seconds(self.pid)

    def db_sizes(self) -> tuple[int, int]:
        """Bytes of the hall's database file and of its write-ahead log (0 if absent)."""
        def size(path: Path) -> int:
            try:
                return path.stat().st_size
            except FileNotFoundError:
                return 0
        return size(self.db_path), size(Path(str(self.db_path) + "-wal"))

    def probe(self) -> "Probe | None":
        return Probe.read(self.probe_path) if self.probe_path is not None else None

    def census(self, timeout: float = 10.0) -> str:
        """With the probe: the objects the hall's gc tracks, by type (most first)."""
        target = Path(str(self.probe_path) + ".census")
        target.unlink(missing_ok=True)
        os.kill(self.pid, signal.SIGUSR2)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if target.exists() and target.read_text().endswith("\n"):
                time.sleep(0.2)
                return target.read_text()
            time.sleep(0.1)
        return "(no census)"

    def stop(self) -> None:
        if self.proc is not None:
            stop([self.proc], grace=10.0)
        self.tmp.cleanup()


# -- the probe (read side) ------------------------------------------------------------------------

class Probe:
    """One snapshot of the probe's counters; ``later - earlier`` covers a window."""

    def __init__(self, data: dict) -> None:
        self.lag = Counter({int(k): v for k, v in data.get("lag", {}).items()})
        self.gc = {int(g): tuple(v) for g, v in data.get("gc", {}).items()}       # gen -> (count, seconds, max)
        self.gc_long = Counter({int(k): v for k, v in data.get("gc_long", {}).items()})   # ms bucket -> count
        self.stalls = Counter(data.get("stalls", {}))
        self.late_kind = Counter(data.get("late_kind", {}))
        self.gc_sizes = {int(g): v for g, v in data.get("gc_sizes", {}).items()}
        self.young_types = data.get("young_types", {})
        self.long_stalls = data.get("long_stalls", [])      # since the hall started
        self.store_wait = Counter({int(k): v for k, v in data.get("store_wait", {}).items()})
        self.store_run = Counter({int(k): v for k, v in data.get("store_run", {}).items()})
        self.store_groups = Counter({int(k): v for k, v in data.get("store_groups", {}).items()})
        #: the store thread's log truncations (SQLiteStore._bound_wal), by 0.1 ms of their time
        self.wal_truncate = Counter({int(k): v for k, v in data.get("wal_truncate", {}).items()})
        #: a write's wait in three parts, 0.1 ms buckets: queued (call -> its group begins),
        #: its group's run, back (the group's end -> the Deferred fired on the reactor)
        self.store_parts = {part: Counter({int(k): v for k, v in data.get("store_parts", {}).get(part, {}).items()})
                            for part in STORE_PARTS}
        self.promoted = data.get("promoted", {})                                 # since the hall started

    @classmethod
    def read(cls, path: Path) -> "Probe":
        try:
            return cls(json.loads(path.read_text()))
        except (OSError, ValueError):
            return cls({})

    def __sub__(self, other: "Probe") -> "Probe":
        out = Probe({})
        out.lag = self.lag - other.lag
        out.gc = {g: (c - other.gc.get(g, (0, 0, 0))[0], s - other.gc.get(g, (0, 0, 0))[1], m)
                  for g, (c, s, m) in self.gc.items()}
        out.gc_long = self.gc_long - other.gc_long
        out.stalls = self.stalls - other.stalls
        out.late_kind = self.late_kind - other.late_kind
        out.young_types = self.young_types
        out.gc_sizes = {g: [n - other.gc_sizes.get(g, [0, 0])[0], t - other.gc_sizes.get(g, [0, 0])[1]]
                        for g, (n, t) in self.gc_sizes.items()}
        out.long_stalls = self.long_stalls
        if self.promoted.get("sampled"):
            types = Counter(self.promoted["types"]) - Counter(other.promoted.get("types", {}))
            out.promoted = {"sampled": self.promoted["sampled"] - other.promoted.get("sampled", 0),
                            "objects": self.promoted["objects"] - other.promoted.get("objects", 0),
                            "types": dict(types.most_common(25))}
        out.store_wait = self.store_wait - other.store_wait
        out.store_run = self.store_run - other.store_run
        out.store_groups = self.store_groups - other.store_groups
        out.wal_truncate = self.wal_truncate - other.wal_truncate
        out.store_parts = {part: self.store_parts[part] - other.store_parts[part] for part in STORE_PARTS}
        return out

    def lag_ms(self, q: float) -> float:
        return histogram_quantile(self.lag, q, LAG_BUCKET_MS)

    def report(self, indent: str = "  ") -> list[str]:
        lines = [f"{indent}reactor lag (timer due every 5 ms, {sum(self.lag.values()):,} ticks): "
                 f"p50 {self.lag_ms(0.5):.2f} ms  p99 {self.lag_ms(0.99):.2f} ms  "
                 f"p99.9 {self.lag_ms(0.999):.2f} ms  max {self.lag_ms(1.0):.1f} ms; "
                 f"ticks late > 20 ms: {sum(v for k, v in self.lag.items() if k * LAG_BUCKET_MS > 20)} "
                 f"(reactor busy: {self.late_kind['busy']}, waiting for a core or the GIL: "
                 f"{self.late_kind['waiting']})"]
        gcs = ", ".join(f"gen{g} {c} x {s / max(c, 1) * 1000:.2f} ms" for g, (c, s, m) in sorted(self.gc.items()) if c)
        lines.append(f"{indent}gc pauses (CPU time): {gcs or 'none'}; pauses > 10 ms: "
                     f"{sum(v for k, v in self.gc_long.items() if k >= 10)}")
        if self.gc_sizes:
            lines.append(f"{indent}objects walked per collection: " + ", ".join(
                f"gen{g} {t / n:,.0f}" for g, (n, t) in sorted(self.gc_sizes.items()) if n)
                + "; young objects by type (sampled): "
                + ", ".join(f"{name} {n}" for name, n in self.young_types.items()))
        if self.promoted.get("sampled"):
            p = self.promoted
            lines.append(f"{indent}moved to the old generation per sampled gen1 collection: "
                         f"{p['objects'] / p['sampled']:,.0f}; by type: " + ", ".join(
                             f"{name} {n / p['sampled']:.0f}" for name, n in p["types"].items()))
        if self.store_wait:
            q = lambda h, p: histogram_quantile(h, p, 1.0) - 0.5        # 1 ms buckets, lower edges
            groups = sum(self.store_groups.values())
            lines.append(f"{indent}store: {sum(self.store_wait.values()):,} writes, call -> fired p50 "
                         f"{q(self.store_wait, .5):.0f} ms p99 {q(self.store_wait, .99):.0f} ms max "
                         f"{q(self.store_wait, 1):.0f} ms; {groups:,} group transactions of "
                         f"{sum(k * v for k, v in self.store_groups.items()) / max(groups, 1):.1f} writes, "
                         f"each p50 {q(self.store_run, .5):.0f} ms p99 {q(self.store_run, .99):.0f} ms "
                         f"max {q(self.store_run, 1):.0f} ms")
            if self.wal_truncate:
                lines.append(f"{indent}write-ahead log truncated {sum(self.wal_truncate.values())} times by the "
                             "store thread, each p50 / max " + " / ".join(
                                 f"{histogram_quantile(self.wal_truncate, p, 0.1):.1f}" for p in (.5, 1)) + " ms")
            if any(self.store_parts.values()):
                lines.append(f"{indent}store wait in parts (p50 / p99 / max): " + "; ".join(
                    f"{part} " + " / ".join(f"{histogram_quantile(hist, p, 0.1):.1f}" for p in (.5, .99, 1)) + " ms"
                    for part, hist in self.store_parts.items()))
        for stack, n in self.stalls.most_common(5):
            lines.append(f"{indent}stalled {n}x in: {stack}")
        for ms, stacks in self.long_stalls[:6]:
            lines.append(f"{indent}a {ms} ms stall (one of the longest since the start), sampled in: "
                         + " | ".join(f"{n}x {stack}" for stack, n in stacks))
        return lines


STORE_PARTS = ("queued", "run", "back")


def histogram_quantile(hist: Counter, q: float, bucket: float) -> float:
    """The q-quantile (0..1) of a histogram of ``bucket``-wide buckets, at bucket centres."""
    total = sum(hist.values())
    if not total:
        return float("nan")
    rank = max(1, int(q * total + 0.999999))
    seen = 0
    for key in sorted(hist):
        seen += hist[key]
        if seen >= rank:
            return (key + 0.5) * bucket
    return max(hist) * bucket


# -- the probe (in the hall's process) ------------------------------------------------------------

def _short_stack(frame, depth: int = 6) -> str:
    entries = traceback.extract_stack(frame)[-depth:]
    return " < ".join(f"{Path(e.filename).name}:{e.lineno} {e.name}" for e in reversed(entries))


def _label(o) -> str:
    """A type name, or a function's own name (closures and callbacks tell more by it)."""
    if inspect.isfunction(o):
        return f"function {o.__module__}.{o.__qualname__}"
    if inspect.ismethod(o):
        return f"method {type(o.__self__).__qualname__}.{o.__func__.__name__}"
    return type(o).__qualname__


def _install_probe(path: str) -> None:
    from twisted.internet import reactor

    lag: Counter = Counter()
    late_kind: Counter = Counter()
    gc_stats = {g: [0, 0.0, 0.0] for g in range(3)}
    gc_long: Counter = Counter()
    stalls: Counter = Counter()
    state = {"beat": time.perf_counter(), "gc_start": 0.0}
    main_id = threading.get_ident()
    period = 0.005

    state["cpu"] = time.thread_time()

    def tick(due: float) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        late = max(0.0, now - due)
        state["beat"] = now
        lag[int(late * 1000 / LAG_BUCKET_MS)] += 1
        if late > 0.050 and current:
            long_stalls.append((round(late * 1000), current.most_common(3)))
            long_stalls.sort(key=lambda e: -e[0])
            del long_stalls[12:]
        current.clear()
        if late > 0.020:
            # busy: the reactor thread ran most of the late interval; else it waited (other
            # processes had the cores, or another thread had the GIL)
            busy = (cpu - state["cpu"]) >= 0.5 * (late + period)
            late_kind["busy" if busy else "waiting"] += 1
        state["cpu"] = cpu
        reactor.callLater(period, tick, now + period)

    def census(*_) -> None:
        counts = Counter(f"DelayedCall {_label(getattr(o, 'func', None))}" if type(o).__name__ == "DelayedCall"
                         else type(o).__qualname__ for o in gc.get_objects())   # (called/cancelled: no func)
        with open(path + ".census", "w") as f:
            f.write(f"{sum(counts.values())} objects tracked by the gc; gc counts {gc.get_count()}, "
                    f"thresholds {gc.get_threshold()}, frozen {gc.get_freeze_count()}\n")
            for name, n in counts.most_common(40):
                f.write(f"{n:10d} {name}\n")
            if os.environ.get("PROBE_GC_OWNERS"):
                f.write(_owners())

    def on_gc(phase: str, info: dict) -> None:
        if threading.get_ident() != main_id:
            return
        if phase == "start":                     # CPU time: what the collector costs, not preemption
            if sizes is not None:
                g = info["generation"]
                young = sum(len(gc.get_objects(k)) for k in range(g + 1))
                sizes[g][0] += 1
                sizes[g][1] += young
                if g == 0 and sizes[0][0] % 20 == 1:        # what the young objects are, now and then
                    young_types.update(type(o).__qualname__ for o in gc.get_objects(0))
            if promoted is not None and info["generation"] == 1:
                promoted["gen1"] += 1
                if promoted["gen1"] % 4 == 1:     # what a gen1 collection moves to the old generation
                    promoted["young"] = {id(o): o for k in (0, 1) for o in gc.get_objects(k)}
            state["gc_start"] = time.thread_time()
        else:
            if promoted is not None and promoted.get("young") is not None:
                young, promoted["young"] = promoted["young"], None
                old = [young[i] for i in map(id, gc.get_objects(2)) if i in young]
                promoted["sampled"] += 1
                promoted["objects"] += len(old)
                promoted_types.update(_label(o) for o in old)
                del young, old
            took = time.thread_time() - state["gc_start"]
            entry = gc_stats[info["generation"]]
            entry[0] += 1
            entry[1] += took
            entry[2] = max(entry[2], took)
            gc_long[int(took * 1000)] += 1

    current: Counter = Counter()              # stacks sampled during the stall in progress
    long_stalls: list = []                    # (ms, the stacks sampled during it), the longest ones

    # PROBE_GC_SIZES=1: how many objects each collection walks (diagnosis only: costs time)
    sizes = {g: [0, 0] for g in range(3)} if os.environ.get("PROBE_GC_SIZES") else None
    young_types: Counter = Counter()
    # PROBE_GC_PROMOTED=1: what every 4th gen1 collection moves to the old generation, by type
    # (diagnosis only: holds the young objects during the collection and walks the old generation)
    promoted = {"gen1": 0, "sampled": 0, "objects": 0, "young": None} if os.environ.get("PROBE_GC_PROMOTED") else None
    promoted_types: Counter = Counter()

    def watchdog() -> None:
        seen_beat = 0.0
        while True:
            time.sleep(0.005)
            beat = state["beat"]
            if time.perf_counter() - beat > 0.020:
                frame = sys._current_frames().get(main_id)
                if frame is not None:
                    stack = _short_stack(frame, 9)
                    current[stack] += 1
                    if beat != seen_beat:
                        seen_beat = beat          # counted once per stall
                        stalls[_short_stack(frame)] += 1

    def dump() -> None:
        data = {"lag": lag, "late_kind": late_kind, "long_stalls": long_stalls, "gc": gc_stats, "gc_long": gc_long, "stalls": dict(stalls.most_common(40)),
                "gc_sizes": sizes or {}, "young_types": dict(young_types.most_common(12)), "store_wait": store_wait, "store_run": store_run, "store_groups": store_groups, "store_parts": store_parts, "wal_truncate": wal_truncate,
                "promoted": {"sampled": promoted["sampled"], "objects": promoted["objects"],
                             "types": dict(promoted_types.most_common(60))} if promoted else {}}
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(json.dumps(data))     # (json.dump's encoder is closures in a cycle: garbage of its own)
        os.replace(tmp, path)
        reactor.callLater(1.0, dump)

    store_wait: Counter = Counter()          # ms bucket: a write's call -> its Deferred firing
    store_parts = {part: Counter() for part in STORE_PARTS}     # Probe.store_parts
    store_run: Counter = Counter()           # ms bucket: one transaction (group) on the store thread
    store_groups: Counter = Counter()        # writes per transaction
    wal_truncate: Counter = Counter()        # 0.1 ms bucket: one truncation of the log (Probe.wal_truncate)
    try:
        from gamehall.store import SQLiteStore
    except ImportError:
        SQLiteStore = None
    if SQLiteStore is not None:
        enqueue, run_group = SQLiteStore._enqueue, SQLiteStore._run_group

        def timed_enqueue(self, kind, fn, args):
            d = enqueue(self, kind, fn, args)
            if kind != "call":
                t0 = time.perf_counter()

                def fired(result):
                    now = time.perf_counter()
                    store_wait[int((now - t0) * 1000)] += 1
                    began, ended = getattr(d, "probe_group", (None, None))
                    if began is not None:
                        for part, seconds in zip(STORE_PARTS, (began - t0, ended - began, now - ended)):
                            store_parts[part][int(seconds * 1e4)] += 1
                    return result
                d.addBoth(fired)
            return d

        def timed_group(self, session, ops, *more, **options):
            t0 = time.perf_counter()
            try:
                return run_group(self, session, ops, *more, **options)
            finally:
                t1 = time.perf_counter()
                store_run[int((t1 - t0) * 1000)] += 1
                for op in ops:
                    op[3].probe_group = (t0, t1)
                store_groups[len(ops)] += 1

        SQLiteStore._enqueue, SQLiteStore._run_group = timed_enqueue, timed_group
        bound_wal = SQLiteStore._bound_wal

        def timed_bound_wal(self):
            t0, before = time.perf_counter(), self.wal_truncations
            try:
                return bound_wal(self)
            finally:
                if self.wal_truncations != before:
                    wal_truncate[int((time.perf_counter() - t0) * 1e4)] += 1
        SQLiteStore._bound_wal = timed_bound_wal

    gc.callbacks.append(on_gc)
    def garbage(seconds: float = 3.0) -> None:
        """Keep what the collector frees for a few seconds and count it by type: the
        reference cycles the hall makes (each costs collector time)."""
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)

        def count() -> None:
            gc.collect()
            kept = Counter(f"function {o.__module__}.{o.__qualname__}" if inspect.isfunction(o)
                           else type(o).__qualname__ for o in gc.garbage)
            gc.set_debug(0)
            del gc.garbage[:]
            with open(path + ".garbage", "w") as f:
                f.write(f"{sum(kept.values())} objects in reference cycles freed in {seconds:g} s\n")
                for name, n in kept.most_common(30):
                    f.write(f"{n:10d} {name}\n")
        reactor.callLater(seconds, count)

    signal.signal(signal.SIGUSR2, lambda *_: reactor.callFromThread(census))
    signal.signal(signal.SIGUSR1, lambda *_: reactor.callFromThread(garbage))
    _experiments()
    threading.Thread(target=watchdog, name="lag-watchdog", daemon=True).start()
    reactor.callWhenRunning(lambda: reactor.callLater(period, tick, time.perf_counter() + period))
    reactor.callWhenRunning(dump)


#: where _owners stops: one of these is an owner of its own, shared or counted apart
_OWNER_TYPES = {"Server", "Table", "User", "Hall", "Lobby"}


def _owners(samples: int = 3) -> str:
    """PROBE_GC_OWNERS=1 (in the census): what a connection (a TCP ``Server`` and what only
    it reaches) and a table keep tracked by the collector, by type and path, for a few of
    each: the objects a full collection walks per connection and per table.  Frozen objects
    (not in any generation) and other owners are not entered."""
    tracked = {id(o): o for o in gc.get_objects()}
    roots: dict = {}
    for o in tracked.values():
        name = type(o).__name__
        if name in ("Server", "Table", "User") and len(roots.setdefault(name, [])) < samples:
            roots[name].append(o)

    def walk(root) -> dict:
        seen = {id(root): (root, type(root).__name__)}
        todo = [(root, type(root).__name__)]
        while todo and len(seen) < 20000:
            obj, path = todo.pop()
            for ref in gc.get_referents(obj):
                if id(ref) in seen or id(ref) not in tracked or type(ref).__name__ in _OWNER_TYPES:
                    continue
                step = path
                if isinstance(obj, dict):
                    key = next((k for k, v in obj.items() if v is ref), None)
                    step = f"{path}[{key!r:.30}]" if key is not None else f"{path}{{}}"
                elif type(obj).__name__ not in ("list", "tuple", "deque", "set", "frozenset"):
                    step = f"{path}>{type(ref).__name__}"
                seen[id(ref)] = (ref, step)
                todo.append((ref, step))
        return seen

    lines = [f"owners sampled: {', '.join(f'{len(v)} {k}' for k, v in sorted(roots.items()))}"]
    for name, objs in sorted(roots.items()):
        walks = [walk(o) for o in objs]
        for i, mine in enumerate(walks):
            others = set().union(*(w.keys() for j, w in enumerate(walks) if j != i))
            own = {k: v for k, v in mine.items() if k not in others}
            by_type = Counter(type(o).__qualname__ for o, _ in own.values())
            lines.append(f"{name} #{i}: {len(own)} tracked objects of its own (reached {len(mine)}): "
                         + ", ".join(f"{n} {t}" for t, n in by_type.most_common(14)))
            if i == 0:
                paths = Counter(f"{type(o).__qualname__} at {p}" for o, p in own.values())
                lines += [f"    {p}: {n}" for p, n in paths.most_common(70)]
    return "".join(line + "\n" for line in lines)


def _experiments() -> None:
    """Knobs to try a change before making it in the hall (environment variables)."""
    from twisted.internet import reactor

    def knobs() -> None:          # after the hall's own settings (gamehall.tap.settle_collector)
        if os.environ.get("PROBE_SWITCH_INTERVAL"):
            sys.setswitchinterval(float(os.environ["PROBE_SWITCH_INTERVAL"]))
        if os.environ.get("PROBE_GC_THRESHOLD"):
            gc.set_threshold(*(int(x) for x in os.environ["PROBE_GC_THRESHOLD"].split(",")))
    reactor.callWhenRunning(lambda: reactor.callLater(0.5, knobs))
    if os.environ.get("PROBE_GC_UNFREEZE"):          # undo the hall's gc.freeze() (to measure what it does)
        reactor.callWhenRunning(lambda: reactor.callLater(1.0, gc.unfreeze))
    if os.environ.get("PROBE_MAX_EVENTS") and hasattr(reactor, "_poller"):
        # at most this many ready sockets handled per reactor iteration (epoll's maxevents)
        cap, poller = int(os.environ["PROBE_MAX_EVENTS"]), reactor._poller

        class CappedPoller:
            def __getattr__(self, name):
                return getattr(poller, name)

            def poll(self, timeout=-1, maxevents=-1):
                return poller.poll(timeout, cap if maxevents < 0 else min(cap, maxevents))
        reactor._poller = CappedPoller()
    if os.environ.get("PROBE_NO_AUTOCHECKPOINT"):
        from gamehall.store import SQLiteStore
        opened = SQLiteStore._open_in_thread

        def open_in_thread(self):
            opened(self)
            self._conn.execute("PRAGMA wal_autocheckpoint=0")
        SQLiteStore._open_in_thread = open_in_thread


def _probe_main(argv: list[str]) -> None:
    path, rest = argv[0], argv[1:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    sys.path.remove(str(Path(__file__).resolve().parent))     # gamehall from PYTHONPATH (bench_env)
    _install_probe(path)
    from twisted.scripts.twistd import run
    sys.argv = ["twistd"] + rest
    run()


if __name__ == "__main__":
    if sys.argv[1:2] == ["probe"]:
        _probe_main(sys.argv[2:])
    else:
        sys.exit("usage: hallbench.py probe FILE -- TWISTD-ARGS (used by the bench scripts)")
