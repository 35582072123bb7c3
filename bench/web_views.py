"""What the game views cost: CPU time per call and JSON size, over seeded bot games.

The web front end calls ``spectator`` (or ``seat``) and ``decision`` after every
action for every browser at the table, so these figures bound how many
watchers a table can feed.  Usage::

    python bench/web_views.py [--games 3] [--seed 1]

Prints, per game: calls timed, mean and worst CPU milliseconds of each call,
and the mean and largest JSON size of a state.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from statistics import mean

from gamehall.interfaces import IllegalAction


def acquire_positions(games: int, seed: int):
    from gamehall_acquire.bots import make_bot
    from gamehall_acquire.rules import Game
    from gamehall_acquire.view import AcquireView
    for i in range(games):
        g = Game.new([f"p{k}" for k in range(4)], seed=seed + i)
        bots = [make_bot("strong", seed + k) for k in range(4)]
        events = list(g.initial_events)
        while not g.is_over():
            yield AcquireView(), g, g.pending_seat(), events
            s = g.pending_seat()
            events = g.apply(s, bots[s].choose(g, s))


def windward_positions(games: int, seed: int):
    from gamehall_acquire.windward.bots import make_bot
    from gamehall_acquire.windward.rules import WindwardGame
    from gamehall_acquire.windward.view import WindwardView
    for i in range(games):
        g = WindwardGame.new([f"p{k}" for k in range(6)], seed=seed + i)
        bots = [make_bot("strong", seed + k) for k in range(6)]
        events = list(g.initial_events)
        while not g.is_over():
            yield WindwardView(), g, g.pending_seat(), events
            s = g.pending_seat()
            events = g.apply(s, bots[s].choose(g, s))


def et_positions(games: int, seed: int):
    from gamehall_et.bots import make_bot
    from gamehall_et.engine import Game
    from gamehall_et.view import EuphratesTigrisView
    for i in range(games):
        g = Game.new([f"p{k}" for k in range(4)], seed=seed + i)
        bots = [make_bot("strong", seed + k) for k in range(4)]
        events = list(g.initial_events)
        while not g.is_over():
            yield EuphratesTigrisView(), g, g.pending_seat(), events
            s = g.pending_seat()
            events = g.apply(s, bots[s].choose(g, s))


def pimp_positions(games: int, seed: int):
    from gamehall_pimp.bots import make_bot
    from gamehall_pimp.game import HallEngine, with_players
    from gamehall_pimp.view import PimpView
    for i in range(games):
        g = with_players([f"p{k}" for k in range(4)], seed=seed + i, options={"max_turns": 200})
        e = HallEngine(g)
        bots = {pid: make_bot("strong", seed + pid) for pid in g.users}
        rng = random.Random(seed + i)
        idle = 0
        while not g.is_over() and idle < 50:
            acted = False
            for pid in list(g.users):
                action = bots[pid].choose(g, pid)
                if action is None:
                    continue
                try:
                    events = g.apply(pid, action)
                except IllegalAction:
                    continue
                acted = True
                if rng.random() < 0.25:          # a sample of positions: Monopoly games are long
                    yield PimpView(), e, pid - 1, events
            idle = 0 if acted else idle + 1


def measure(positions) -> dict:
    times = {"spectator": [], "seat": [], "decision": [], "describe": []}
    sizes = []
    clock = time.process_time
    for view, engine, seat, events in positions:
        for name, call in (("spectator", lambda: view.spectator(engine)),
                           ("seat", lambda: view.seat(engine, seat)),
                           ("decision", lambda: view.decision(engine, seat)),
                           ("describe", lambda: view.describe(engine, seat, events))):
            start = clock()
            out = call()
            times[name].append(clock() - start)
            if name == "seat":
                sizes.append(len(json.dumps(out)))
    return {"calls": len(sizes), "times": times, "sizes": sizes}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"{'game':9} {'positions':>9}  " + "  ".join(f"{n + ' ms':>18}" for n in
                                                      ("spectator", "seat", "decision", "describe"))
          + f"  {'state bytes':>16}")
    print(f"{'':9} {'':>9}  " + "  ".join(f"{'mean / worst':>18}" for _ in range(4)) + f"  {'mean / max':>16}")
    for name, positions in (("acquire", acquire_positions), ("windward", windward_positions),
                            ("et", et_positions), ("pimp", pimp_positions)):
        r = measure(positions(args.games, args.seed))
        cells = [f"{mean(v) * 1000:8.3f} / {max(v) * 1000:7.2f}" for v in r["times"].values()]
        print(f"{name:9} {r['calls']:>9}  " + "  ".join(f"{c:>18}" for c in cells)
              + f"  {mean(r['sizes']):7.0f} / {max(r['sizes']):6d}")


if __name__ == "__main__":
    main()
