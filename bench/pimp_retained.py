"""Memory a hall keeps per finished PIMP game, in process: games of wire clients through the
pimp front end (a Clock, a memory store), one after another, each client disconnecting after
PLAYER_WON; prints the Python heap (tracemalloc, after a full collection) every few games and
the bytes retained per game.  Figures only.

    python bench/pimp_retained.py [--games 40] [--players 3] [--max-turns 60] [--root DIR]

``--root DIR`` measures another checkout (e.g. ``git archive`` of an older commit), for A/B.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import tracemalloc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--max-turns", type=int, default=60)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = ap.parse_args()
    sys.path.insert(0, args.root)
    from gamehall_pimp.wire.protocol import rooms_of
    from tests.pimp.test_frontend import Conn, run, setup
    from tests.pimp.wireclient import WireClient

    hall, factory = setup()
    rooms = rooms_of(hall)
    port = 10_000
    tracemalloc.start()
    base = None
    for game in range(1, args.games + 1):
        clients = [WireClient(f"p{game}x{i}") for i in range(args.players)]
        conns = []
        for c in clients:
            port += 1
            conns.append(Conn(factory, c, port))
        run(hall, conns[:1])
        g = rooms.current().engine.game
        g.options["max_turns"] = args.max_turns
        run(hall, conns, until=g.is_over)
        run(hall, conns)
        for c in conns:
            c.proto.connectionLost(None)
        del conns, clients, g
        hall.clock.advance(1)
        if game == 1 or game % args.every == 0:
            gc.collect()
            now = tracemalloc.get_traced_memory()[0]
            if base is None:
                base = (game, now)
            per = (now - base[1]) / (game - base[0]) if game > base[0] else 0.0
            print(f"games {game:4d}  heap {now / 1e6:7.2f} MB  retained per game since game {base[0]}: "
                  f"{per / 1e3:6.1f} KB  servers kept {len(rooms.servers)}", flush=True)


if __name__ == "__main__":
    main()
