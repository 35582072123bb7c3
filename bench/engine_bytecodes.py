"""Bytecodes the interpreter executes per game of the classic Acquire engine.

    python bench/engine_bytecodes.py [--against REF] [--games 100] [--top 15]

Plays the seeded random games of ``engine_speed.py --against`` (at every decision
``random.choice`` of ``legal_actions()``) under a ``sys.settrace`` hook that counts
every bytecode executed (``f_trace_opcodes``), and prints the count per game and
per action, the engine's own share, and the functions that execute the most.
``--against REF`` (a git commit or another checkout, as in ``engine_speed.py``)
counts that engine on the same games and prints the ratio.

Why a third figure next to CPU time and valgrind's instructions: on CPython 3.11
the CPU-time ratio between two versions of this engine follows the ratio of
bytecodes executed much more closely than the ratio of machine instructions,
because each bytecode costs a dispatch (an indirect jump) whatever it does
(against c4bd5c5: 1.55x fewer bytecodes, 1.62x less CPU time, 1.94x fewer
instructions).  Work moved from bytecodes into C builtins is not free, though: a
``_classify`` reading its neighbours with an ``itemgetter`` and sets executed 5%
fewer bytecodes a game and ran 4% slower.  The count says where bytecodes go;
only ``engine_speed.py --against`` says what is faster.
Tracing slows the games about 70-fold (100 games take about 12 s); counts are
exact and repeatable.
"""
from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import engine_speed  # noqa: E402  (its workload and its loader of another engine)
from engine_instructions import play  # noqa: E402  (the same games, played the same way)


def count(game_class, seeds: list[int]) -> tuple[collections.Counter, int]:
    """(bytecodes per (file, function), actions) for the games of ``seeds``."""
    counts: collections.Counter = collections.Counter()

    def trace(frame, event, arg):
        frame.f_trace_opcodes = True
        if event == "opcode":
            code = frame.f_code
            counts[code.co_filename, code.co_qualname] += 1
        return trace

    sys.settrace(trace)
    try:
        actions = play(game_class, seeds)
    finally:
        sys.settrace(None)
    return counts, actions


def report(label: str, game_class, seeds: list[int], top: int) -> float:
    """Print the figures of one engine; return its bytecodes per game."""
    counts, actions = count(game_class, seeds)
    total = sum(counts.values())
    engine = sum(n for (path, _), n in counts.items() if "gamehall_acquire" in path)
    games = len(seeds)
    print(f"{label}: {total / games:,.0f} bytecodes per game, {total / actions:,.0f} per action "
          f"({actions / games:.1f} actions per game); the engine's own: {engine / games:,.0f} "
          f"({100 * engine / total:.0f}%)")
    for (path, name), n in counts.most_common(top):
        print(f"  {n / games:9,.0f}  {100 * n / total:4.1f}%  {Path(path).name}:{name}")
    return total / games


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", metavar="REF", help="another commit or checkout of the engine")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--top", type=int, default=15, help="functions listed per engine")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    seeds = [rng.getrandbits(63) for _ in range(args.games)]
    ours = report("this checkout", engine_speed.Game, seeds, args.top)
    if args.against:
        other, label = engine_speed.load_engine(args.against)
        theirs = report(label, other, seeds, args.top)
        print(f"ratio of bytecodes per game ({label} / this checkout): {theirs / ours:.2f}")


if __name__ == "__main__":
    main()
