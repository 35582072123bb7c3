"""The hall's CPU per NetAcquire answer, in process and deterministic: no sockets, no other processes.

Whole four-player games (seeds 1..--games) through the NetAcquire front end
with the test suite's in-process clients (tests/netacquire: StringTransport,
the hall on a task.Clock, MemoryStore): what the hall does for an answer
(decode, engine, store call, rendering for every client, one write each)
runs inside the answering connection's ``dataReceived``, which is timed in
thread CPU time.  The clients' own work is not counted (but their allocations
count towards the collector's thresholds, so the collections started while
the hall answers are a relative figure).  Printed: answers,
hall CPU per answer (best of --rounds), and with --profile the functions
that cost most.  What it leaves out is the real reactor, the sockets and the
store thread (bench/netacquire_load.py has them all); what it gives is a
figure that other work on a shared machine hardly moves.

    python bench/netacquire_cpu.py [--games 6] [--rounds 3] [--profile] [--sort cumulative]
    python bench/netacquire_cpu.py --instructions [--games 2] [--warmup 1] [--root DIR]

``--instructions`` counts the machine instructions the hall executes per answer
instead, with valgrind's callgrind (needs valgrind, its headers and a C compiler):
collection is switched on only inside the answering connection's
``dataReceived`` (a client request from a small library compiled on the fly),
with the collector off and ``PYTHONHASHSEED=0``, so the figure is the same from
run to run whatever else the machine does.  ``--root`` measures another
checkout's hall (its tests' harness too), for a before/after.  About a minute
per game.
"""
from __future__ import annotations

import argparse
import cProfile
import ctypes
import gc
import os
import pstats
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(os.environ.get("NETACQUIRE_CPU_ROOT") or Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))

from tests.netacquire.harness import Conn  # noqa: E402
from tests.netacquire.test_game import play_to_the_end, setup_game  # noqa: E402


def one_round(games: int, profiler: cProfile.Profile | None) -> tuple[int, float]:
    spent = [0.0]
    answers = [0]
    collections = [0]
    send = Conn.send

    def timed_send(self, text):
        before = gc.get_stats()[0]["collections"]
        t0 = time.thread_time()
        if profiler is not None:
            profiler.enable()
        try:
            send(self, text)
        finally:
            if profiler is not None:
                profiler.disable()
            spent[0] += time.thread_time() - t0
            answers[0] += 1
            collections[0] += gc.get_stats()[0]["collections"] - before

    for seed in range(1, games + 1):
        hall, _, table, conns, _ = setup_game(["Ann", "Bob", "Cy", "Dee"], seed)
        Conn.send = timed_send
        try:
            play_to_the_end(hall, table, conns, check=False)
        finally:
            Conn.send = send
    return answers[0], spent[0], collections[0]


TOGGLE_C = "#include <valgrind/callgrind.h>\nvoid toggle(void) { CALLGRIND_TOGGLE_COLLECT; }\n"


def counted_games(games: int, library: str, warmup: int = 0) -> None:
    """Under callgrind: play the games with collection on only while the hall answers
    (after ``warmup`` games not counted: the first game fills the hall's caches)."""
    real_toggle = ctypes.CDLL(library).toggle
    send = Conn.send
    answers = [0]
    counting = [False]

    def toggle():
        if counting[0]:
            real_toggle()

    def counted_send(self, text):
        toggle()
        try:
            send(self, text)
        finally:
            toggle()
            answers[0] += 1

    gc.disable()
    for seed in range(1, warmup + games + 1):
        counting[0] = seed > warmup
        hall, _, table, conns, _ = setup_game(["Ann", "Bob", "Cy", "Dee"], seed)
        Conn.send = counted_send
        try:
            play_to_the_end(hall, table, conns, check=False)
        finally:
            Conn.send = send
        if not counting[0]:
            answers[0] = 0
    print(f"answers {answers[0]}")


def instructions(games: int, root: str | None, warmup: int = 0) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        library = os.path.join(tmp, "toggle.so")
        source = os.path.join(tmp, "toggle.c")
        Path(source).write_text(TOGGLE_C)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, source], check=True)
        env = dict(os.environ, PYTHONHASHSEED="0")
        if root:
            env["NETACQUIRE_CPU_ROOT"] = str(Path(root).resolve())
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={tmp}/out",
             sys.executable, __file__, "--counted", library, "--games", str(games), "--warmup", str(warmup)],
            env=env, capture_output=True, text=True, check=True)
    answers = int(re.search(r"answers (\d+)", run.stdout).group(1))
    collected = int(re.search(r"Collected\s*:\s*([\d,]+)", run.stderr).group(1).replace(",", ""))
    warm = f" after {warmup} not counted" if warmup else ""
    print(f"netacquire_cpu: {games} four-player games{warm}{f' (hall of {root})' if root else ''}, {answers} answers: "
          f"{collected:,} instructions in the hall's answers, {collected // answers:,} per answer "
          "(callgrind, collector off)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--sort", default="tottime", help="profile order (tottime, cumulative, ...)")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions per answer under callgrind instead (default --games 2)")
    parser.add_argument("--root", default=None, help="with --instructions: another checkout's hall")
    parser.add_argument("--warmup", type=int, default=0,
                        help="with --instructions: games played first and not counted (the first game "
                             "fills the hall's caches: with --warmup 1 the figures are a warm hall's)")
    parser.add_argument("--counted", default=None, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.counted:
        counted_games(options.games, options.counted, options.warmup)
        return
    if options.instructions:
        instructions(options.games if "--games" in sys.argv else 2, options.root, options.warmup)
        return
    profiler = cProfile.Profile(time.thread_time) if options.profile else None
    best = None
    for _ in range(options.rounds):
        answers, spent, collections = one_round(options.games, profiler)
        per = spent / answers * 1e6
        best = per if best is None else min(best, per)
        print(f"  {answers} answers (every directive a client sent while playing), "
              f"hall CPU {spent:.3f} s, {per:.0f} us per answer; {collections} collections of the "
              f"young generation during answers (any generation; the clients allocate too)")
    print(f"netacquire_cpu: {options.games} four-player games, best of {options.rounds}: {best:.0f} us per answer")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats(options.sort).print_stats(40)


if __name__ == "__main__":
    main()
