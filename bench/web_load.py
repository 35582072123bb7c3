"""Many WebSocket spectators of live bot tables through the web front end, on loopback.

The hall runs in its own process (``twistd -n gamehall``, only the web front end, its own
temporary --db, --max-per-peer 0, --idle-timeout 0, --bot-delay as given) under a small
measuring hook (``serve`` below): every action a table applies is stamped with the wall
clock (``time.time()``) by table id and action number, and written to a file on SIGUSR1.
The hall's code is the same; the hook only records.

Clients are spread over --client-processes worker processes, each an asyncio loop of
``websockets`` connections (the ``bench`` extra).  The first --tables of them each create a
table of four bots (``create`` with ``join: false, start: true``: they watch it); the rest
watch one of the tables their worker's creators made (``n`` modulo their number).  Every ``game`` message a spectator receives is stamped on
arrival with its table and action number (read from the message's first bytes; the rest is
not parsed), so the delay from the engine's action to its arrival at each spectator is
``arrival - applied``.  Printed for the measured window: arrivals, delay p50/p90/p99/max, the
hall's RSS per connected spectator (RSS with every spectator connected minus RSS with only
the table creators, over the others), and the hall's CPU share of one core.  Never asserted.

    python bench/web_load.py [--spectators 1000] [--tables 100] [--seconds 30] [--bot-delay 0.5]
                             [--client-processes 2]

The delays include the clients' own queueing (Python clients on the same 2 cores); the
hall and every worker are stopped at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import hallbench  # noqa: E402
from hallbench import Hall, child_setup, raise_nofile, stop  # noqa: E402

GAME_MESSAGE = re.compile(r'^\{"type":"table","event":"game","table":(\d+),"seq":(\d+)')


# -- the hall's side: stamp every applied action -------------------------------------------------

def serve(stamp_path: str, twistd_args: list[str]) -> None:
    """Run twistd with Table._apply wrapped to stamp each action; SIGUSR1 writes the stamps."""
    from gamehall import table as table_module
    stamps: dict[str, float] = {}
    original = table_module.Table._apply

    def stamped(self, index, action):
        events = original(self, index, action)
        stamps[f"{self.id}:{self.seq}"] = time.time()      # self.seq: actions applied, this one included
        return events

    table_module.Table._apply = stamped
    told: dict[str, float] = {}
    original_emit = table_module.Table.emit

    def emit(self, event, detail, users=None):
        if event == "game":
            told[f"{self.id}:{detail.get('seq')}"] = time.time()   # stored: now told to the table
        return original_emit(self, event, detail, users)

    table_module.Table.emit = emit

    def dump(signum, frame):
        tmp = stamp_path + ".tmp"
        with open(tmp, "w") as out:
            json.dump({"applied": stamps, "told": told}, out)
        os.replace(tmp, stamp_path)

    signal.signal(signal.SIGUSR1, dump)
    from twisted.scripts.twistd import run
    sys.argv = ["twistd", *twistd_args]
    run()


# -- a worker: many spectators ------------------------------------------------------------------------

def spectator_connection(port: int):
    """A spectator's WebSocket to the hall's web front end at ``port`` (``async with``)."""
    from websockets.asyncio.client import connect
    return connect(f"ws://127.0.0.1:{port}/ws", max_size=None, compression=None, ping_interval=None,
                   open_timeout=60)


async def sign_in(ws, nickname: str) -> None:
    """Read the hall's hello and sign in (bench/soak.py's spectators too)."""
    await ws.recv()                                                # hello
    await ws.send(json.dumps({"type": "hello", "nickname": nickname}))


async def spectator(port: int, number: int, tables: int, creator: bool, phase, arrivals: list, errors: list):
    async with spectator_connection(port) as ws:
        await sign_in(ws, f"spec{number:05d}")
        # the tables this worker's creators made (a hall of several processes numbers its
        # tables by blocks, not from 1); before any, the first numbers of a fresh hall
        made = sorted(phase["made"])
        table = made[number % len(made)] if made else number % tables + 1
        if creator:
            await ws.send(json.dumps({"type": "create", "game": "acquire", "bots": ["strong"] * 4,
                                      "join": False, "start": True}))
        else:
            await ws.send(json.dumps({"type": "watch", "table": table}))
        watching = False
        phase["connected"] += 1
        async for text in ws:
            if not watching:
                if text.startswith('{"type":"table_state"'):
                    watching = True
                    if creator:
                        phase["made"].append(json.loads(text)["table"]["id"])
                    phase["watching"] += 1
                elif text.startswith('{"type":"error"') and not creator:
                    errors.append(text[:200])
                    await asyncio.sleep(0.2)                       # the table may not exist yet
                    await ws.send(json.dumps({"type": "watch", "table": table}))
                continue
            if phase["recording"]:
                match = GAME_MESSAGE.match(text)
                if match:
                    arrivals.append((int(match.group(1)), int(match.group(2)), time.time()))


async def worker_main(port: int, numbers: list[int], tables: int) -> None:
    phase = {"connected": 0, "watching": 0, "recording": False, "made": []}
    arrivals: list = []
    errors: list = []
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    creators = [n for n in numbers if n < tables]
    others = [n for n in numbers if n >= tables]
    tasks = [asyncio.create_task(spectator(port, n, tables, True, phase, arrivals, errors)) for n in creators]
    while phase["watching"] < len(creators):
        await asyncio.sleep(0.05)
    print("tables", flush=True)
    await reader.readline()                                         # "more"
    for start in range(0, len(others), 50):                         # connect in small waves
        for n in others[start:start + 50]:
            tasks.append(asyncio.create_task(spectator(port, n, tables, False, phase, arrivals, errors)))
        await asyncio.sleep(0.05)
    while phase["watching"] < len(numbers):
        await asyncio.sleep(0.05)
        for task in tasks:
            if task.done() and task.exception() is not None:
                print(json.dumps({"error": repr(task.exception())}), flush=True)
                return
    print("ready", flush=True)
    await reader.readline()                                         # "go"
    phase["recording"] = True
    await reader.readline()                                         # "stop"
    phase["recording"] = False
    print(json.dumps({"arrivals": arrivals, "errors": errors[:5]}), flush=True)
    for task in tasks:
        task.cancel()


# -- the parent ----------------------------------------------------------------------------------------

def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--bot-delay", type=float, default=0.5)
    parser.add_argument("--client-processes", type=int, default=2)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    if args.tables > args.spectators:
        parser.error("--tables cannot exceed --spectators (each table's creator watches it)")
    raise_nofile(args.spectators + 200)

    hall = Hall(["web"], ["--bot-delay", str(args.bot_delay), "--seed", "1", "--rate", "0"])
    stamp_path = str(hall.dir / "stamps.json")
    workers: list[subprocess.Popen] = []
    try:
        twistd_args = hall.args
        env = dict(hall.env)
        with open(hall.log_path, "wb") as log:
            hall.proc = subprocess.Popen([sys.executable, __file__, "serve", stamp_path, "--", *twistd_args],
                                         stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=env, cwd=str(hall.dir), preexec_fn=child_setup())
        deadline = time.monotonic() + 60
        while "web listening" not in hall.log():
            if hall.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the hall did not start:\n" + hall.log()[-3000:])
            time.sleep(0.05)
        rss_start = hall.rss_kb()
        port = hall.ports["web"]
        shares = [list(range(i, args.spectators, args.client_processes)) for i in range(args.client_processes)]
        for share in shares:
            workers.append(subprocess.Popen(
                [sys.executable, __file__, "client", str(port), str(args.tables), json.dumps(share)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, preexec_fn=child_setup()))

        def expect(word: str, timeout: float = 300.0) -> None:
            for w in workers:
                line = w.stdout.readline().strip()
                if line != word:
                    raise RuntimeError(f"worker said {line!r}, not {word!r}\n" + hall.log()[-2000:])

        def tell(word: str) -> None:
            for w in workers:
                w.stdin.write(word + "\n")
                w.stdin.flush()

        expect("tables")
        time.sleep(1.0)
        rss_tables = hall.rss_kb()
        started = time.monotonic()
        tell("more")
        expect("ready")
        connect_seconds = time.monotonic() - started
        time.sleep(1.0)
        rss_all = hall.rss_kb()
        cpu0, t0 = hall.cpu(), time.monotonic()
        tell("go")
        time.sleep(args.seconds)
        tell("stop")
        cpu1, t1 = hall.cpu(), time.monotonic()
        results = [json.loads(w.stdout.readline()) for w in workers]
        os.kill(hall.proc.pid, signal.SIGUSR1)
        for _ in range(100):
            if os.path.exists(stamp_path):
                break
            time.sleep(0.05)
        with open(stamp_path) as src:
            dumped = json.load(src)
        stamps, told = dumped["applied"], dumped["told"]
    finally:
        stop(workers)
        hall.stop()

    delays, stored, sent = [], [], []
    missing = 0
    for result in results:
        for table, seq, arrived in result["arrivals"]:
            key = f"{table}:{seq}"
            applied, emitted = stamps.get(key), told.get(key)
            if applied is None or emitted is None:
                missing += 1
            else:
                delays.append((arrived - applied) * 1000)
                stored.append((emitted - applied) * 1000)
                sent.append((arrived - emitted) * 1000)
    window = t1 - t0
    others = args.spectators - args.tables
    print(f"load average before: {load_before:.1f} (other work on the machine adds to the tail)")
    print(f"web_load: {args.spectators} spectators over {args.tables} live Acquire bot tables "
          f"(4 strong bots, --bot-delay {args.bot_delay}), {args.client_processes} client processes, "
          f"{window:.1f} s measured")
    print(f"  connected the {others} watchers in {connect_seconds:.1f} s")
    print(f"  game messages received: {len(delays)} ({len(delays) / window:.0f}/s; {missing} without a stamp)")
    print(f"  engine action -> arrival at each spectator: p50 {quantile(delays, 0.5):.1f} ms, "
          f"p90 {quantile(delays, 0.9):.1f} ms, p99 {quantile(delays, 0.99):.1f} ms, max {max(delays, default=float('nan')):.1f} ms")
    print(f"    of which action -> stored and told (the store write): p50 {quantile(stored, 0.5):.1f} ms, "
          f"p99 {quantile(stored, 0.99):.1f} ms; told -> arrival (encode, send, client): "
          f"p50 {quantile(sent, 0.5):.1f} ms, p99 {quantile(sent, 0.99):.1f} ms")
    print(f"  hall RSS: {rss_start / 1024:.1f} MB at start, {rss_tables / 1024:.1f} MB with {args.tables} tables "
          f"and their creators, {rss_all / 1024:.1f} MB with all; "
          f"{(rss_all - rss_tables) / max(1, others):.1f} kB per further spectator")
    print(f"  hall CPU: {cpu1 - cpu0:.1f} s over {window:.1f} s = {100 * (cpu1 - cpu0) / window:.0f}% of one core")
    errors = [e for r in results for e in r.get("errors", [])]
    if errors:
        print(f"  (retried watches, e.g. {errors[0]})")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[4:])
    elif len(sys.argv) > 1 and sys.argv[1] == "client":
        import asyncio
        raise_nofile(20000)
        asyncio.run(worker_main(int(sys.argv[2]), json.loads(sys.argv[4]), int(sys.argv[3])))
    else:
        main()
