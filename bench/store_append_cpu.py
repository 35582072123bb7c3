"""CPU per stored action, on the reactor thread and on the store thread, per store.

    .venv/bin/python bench/store_append_cpu.py [--tables 20] [--rounds 300] [--repeat 3]
        [--stores memory,sqlite,postgresql] [--fenced]

Drives the path a table's action takes to the store as the hall does (``Table._apply``):
per table a ``TableWrites`` queue, ``write`` of ``append_action`` then a queued step
(the one that tells the players), on the real reactor.  Each round, every table
appends one action in the same reactor turn and the round ends when every table's
step has run (so a round is one group commit in a threaded store); the next round
starts on the next turn.  Measured in thread CPU time over the rounds (best of
--repeat): the reactor thread (the whole thread: the queue, the store call, the
reactor's own loop and the wake-ups from the store thread) and the store thread, each
divided by the appends.  With --fenced every append carries the table's lease epoch.
``--busy-us N``: while a round waits for the store, the reactor thread runs N us of pure
Python per reactor turn (as a busy hall answers other connections meanwhile: the store
thread then waits for the GIL after each of its SQLite statements); that work is not
counted.  The call -> fired latency of each append (from the store call to its step
running, as the hall tells the players) is printed as p50/p99 over the best repeat's
rounds; with --busy-us it shows the store thread's waits for the GIL.  The GIL switch
interval is the hall's (gamehall/tap.py) unless --switch-interval says otherwise.
PostgreSQL is a throwaway server (tests/pgserver.py).  Thread CPU time is little
moved by other processes on the machine; the median wall time of a round is printed
too (moved by them: a relative figure, for the wait on the GIL with --busy-us).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from twisted.internet import defer, reactor, task  # noqa: E402

from gamehall.table_writes import TableWrites  # noqa: E402
from hallbench import for_each_store  # noqa: E402

OWNER, TTL = "bench", 600.0
ACTIONS = ({"play_tile": "5C"}, {"purchase": ["Tower", "Tower", "Festival"], "end_game": False},
           {"merger_sell": 2, "merger_trade": 4})


def store_thread_time(store) -> float:
    threads = getattr(store, "_threads", None)
    thread = getattr(threads, "_thread", None)
    if thread is None:
        return 0.0
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def burn(us: float) -> float:
    """Run pure Python for ``us`` microseconds of this thread's CPU; the CPU it took."""
    t0 = time.thread_time()
    end = t0 + us / 1e6
    while time.thread_time() < end:
        sum(range(50))
    return time.thread_time() - t0


def rounds(store, queues, ids, first_seq, count, epoch, busy_us, burnt, walls, latencies=None):
    """``count`` rounds of one write per table; fires when the last round's steps ran."""
    done = defer.Deferred()
    state = {"round": 0, "left": 0, "started": 0.0}

    def step_ran():
        if latencies is not None:
            latencies.append(time.perf_counter() - state["started"])
        state["left"] -= 1
        if state["left"] == 0:
            walls.append(time.perf_counter() - state["started"])
            state["round"] += 1
            if state["round"] == count:
                done.callback(None)
            else:
                reactor.callLater(0, one_round)

    def one_round():
        state["started"] = time.perf_counter()
        seq = first_seq + state["round"]
        action = ACTIONS[seq % len(ACTIONS)]
        state["left"] = len(ids)
        for writes, table_id in zip(queues, ids):
            writes.write(f"action {seq}", lambda table_id=table_id: store.append_action(
                table_id, seq, 0, action, **epoch))
            writes.queue(step_ran)
        if busy_us:
            reactor.callLater(0, busy, state["round"])

    def busy(round_number):
        if state["round"] == round_number and not done.called:
            burnt[0] += burn(busy_us)
            reactor.callLater(0, busy, round_number)

    reactor.callLater(0, one_round)
    return done


def trace_statements(store):
    """A list the SQLite store's connection adds each statement it runs to (each hands
    the GIL over); fires with None for another store."""
    if getattr(store, "_conn", None) is None:
        return defer.succeed(None)
    statements = []
    return store._call(lambda: store._conn.set_trace_callback(statements.append)).addCallback(
        lambda _: statements)


def percentiles(latencies):
    """p50 and p99 of ``latencies`` (seconds), in ms."""
    ordered = sorted(latencies)
    return tuple(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3 for q in (0.5, 0.99))


@defer.inlineCallbacks
def measure(name, store, args):
    yield store.open()
    try:
        lease = {"lease": (OWNER, TTL)} if args.fenced else {}
        epoch = {"epoch": 1} if args.fenced else {}
        ids = yield defer.gatherResults([store.create_table("acquire", "standard", n, [], {}, **lease)
                                         for n in range(args.tables)])

        def failed(failure):
            raise RuntimeError(f"a store write failed: {failure.getErrorMessage()}")

        queues = [TableWrites(reactor, stalled=failed, resumed=lambda since: None,
                              step_failed=lambda f: f.printTraceback()) for _ in ids]
        seq = 0
        yield rounds(store, queues, ids, seq, 20, epoch, 0.0, [0.0], [])     # warm up
        seq += 20
        statements = yield trace_statements(store)
        best = None
        for _ in range(args.repeat):
            burnt, walls, latencies = [0.0], [], []
            r0, s0 = time.thread_time(), store_thread_time(store)
            yield rounds(store, queues, ids, seq, args.rounds, epoch, args.busy_us, burnt, walls,
                         latencies)
            r1, s1 = time.thread_time(), store_thread_time(store)
            seq += args.rounds
            appends = args.tables * args.rounds
            if statements is not None:
                per_round = len(statements) / args.rounds
                del statements[:]
            figures = ((r1 - r0 - burnt[0]) / appends * 1e6, (s1 - s0) / appends * 1e6,
                       statistics.median(walls) * 1e3, *percentiles(latencies))
            if best is None or sum(figures[:2]) < sum(best[:2]):
                best = figures
        label = name + (" fenced" if args.fenced else "") + (f" busy {args.busy_us:g}" if args.busy_us else "")
        print(f"{label:18s} per append: reactor thread {best[0]:6.1f} us, store thread "
              f"{best[1]:6.1f} us, both {best[0] + best[1]:6.1f} us; round {best[2]:6.2f} ms  ({args.tables} tables x "
              f"{args.rounds} rounds, best of {args.repeat})")
        print(f"{'':18s} call -> fired p50 {best[3]:6.2f} ms, p99 {best[4]:6.2f} ms"
              + (f"; {per_round:.1f} SQLite statements a round" if statements is not None else ""))
    finally:
        yield store.close()


def main(args):
    return for_each_store(args.stores, reactor, lambda name, store: measure(name, store, args))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--stores", type=lambda text: text.split(","), default=["memory", "sqlite"])
    parser.add_argument("--fenced", action="store_true", help="every append carries the lease epoch")
    parser.add_argument("--busy-us", type=float, default=0.0,
                        help="pure Python the reactor thread runs after each write (not counted)")
    parser.add_argument("--switch-interval", type=float, default=None,
                        help="sys.setswitchinterval seconds (default: the hall's)")
    options = parser.parse_args()
    from gamehall.tap import GIL_SWITCH_SECONDS
    sys.setswitchinterval(GIL_SWITCH_SECONDS if options.switch_interval is None else options.switch_interval)
    task.react(lambda _reactor: main(options))
