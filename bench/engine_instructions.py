"""Instructions per game of the classic Acquire engine, counted by valgrind: a figure free
of the machine's noise, next to the CPU times of ``engine_speed.py``.

    python bench/engine_instructions.py [--against REF] [--games 40] [--warm 100] [--cache]

Runs the random workload of ``engine_speed.py`` (the same seeded games: at every
decision ``random.choice`` of ``legal_actions()``) under ``valgrind --tool=callgrind``,
once with no measured game and once with ``--games`` of them, each after ``--warm``
warm-up games (GC off, ``PYTHONHASHSEED=0``), and prints the difference per game: the
interpreter's start and the warm-up cancel out.  ``--against REF`` (a git commit or the
path of another checkout, as in ``engine_speed.py``) counts that engine too and prints
the ratio.  ``--cache`` runs cachegrind's cache and branch simulation instead and also
prints first-level cache misses and mispredicted branches per game, which is where
instruction counts and CPU time part.  Needs valgrind; about a minute per engine.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import engine_speed  # noqa: E402  (its workload: the same games)

#: what each valgrind tool prints at the end, per counter we keep
COUNTERS = {
    "callgrind": {"instructions": r"Collected\s*:\s*([\d,]+)"},
    "cachegrind": {"instructions": r"I\s+refs:\s*([\d,]+)",
                   "I1 misses": r"I1\s+misses:\s*([\d,]+)",
                   "D1 misses": r"D1\s+misses:\s*([\d,]+)",
                   "mispredicted branches": r"Mispredicts:\s*([\d,]+)"},
}


def play(game_class, seeds) -> int:
    """The games of ``seeds`` as engine_speed.py's --against plays them; the number of actions."""
    return sum(engine_speed.play(game_class.new(engine_speed.PLAYERS, seed=s), random.Random(s).choice)
               for s in seeds)


def child(package_root: str, games: int, warm: int) -> None:
    """In valgrind: load the engine under ``package_root``, warm up, play ``games``."""
    package = Path(package_root) / "gamehall_acquire"
    spec = importlib.util.spec_from_file_location("measured_engine", package / "__init__.py",
                                                  submodule_search_locations=[str(package)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["measured_engine"] = module
    spec.loader.exec_module(module)
    game_class = importlib.import_module("measured_engine.rules").Game
    play(game_class, range(10 ** 6, 10 ** 6 + warm))
    gc.collect()
    gc.disable()
    play(game_class, range(games))


def count(package_root: Path, games: int, warm: int, tool: str) -> dict[str, int]:
    """The tool's counters for ``games`` measured games (after ``warm``), per game."""
    def run(n: int) -> dict[str, int]:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = ["valgrind", f"--tool={tool}", f"--{tool}-out-file={tmp}/out"]
            if tool == "cachegrind":
                cmd += ["--cache-sim=yes", "--branch-sim=yes"]
            cmd += [sys.executable, __file__, "--child", str(package_root), str(n), str(warm)]
            env = dict(os.environ, PYTHONHASHSEED="0")
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if proc.returncode:
            raise SystemExit(f"valgrind failed:\n{proc.stderr[-2000:]}")
        found = {}
        for name, pattern in COUNTERS[tool].items():
            m = re.search(pattern, proc.stderr)
            if m is None:
                raise SystemExit(f"no '{name}' in valgrind's output:\n{proc.stderr[-2000:]}")
            found[name] = int(m.group(1).replace(",", ""))
        return found
    base, measured = run(0), run(games)
    return {name: (measured[name] - base[name]) // games for name in base}


def engine_root(ref: str) -> tuple[Path, str]:
    """The directory holding REF's ``gamehall_acquire`` (extracted when REF is a commit)."""
    game_class, label = engine_speed.load_engine(ref)
    return Path(sys.modules[game_class.__module__].__file__).resolve().parent.parent, label


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1], int(argv[2]), int(argv[3]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", metavar="REF", help="also count another engine: a commit or a checkout")
    ap.add_argument("--games", type=int, default=40, help="measured games")
    ap.add_argument("--warm", type=int, default=100, help="warm-up games before them")
    ap.add_argument("--cache", action="store_true",
                    help="cachegrind's cache and branch simulation (slower) instead of callgrind")
    args = ap.parse_args(argv)
    tool = "cachegrind" if args.cache else "callgrind"
    engines = [(ROOT, "this checkout")]
    if args.against:
        engines.append(engine_root(args.against))
    results = []
    for root, label in engines:
        figures = count(root, args.games, args.warm, tool)
        results.append(figures)
        shown = ", ".join(f"{value / 1e6:.2f} M {name}" if name == "instructions" else f"{value:,} {name}"
                          for name, value in figures.items())
        print(f"{label}: {shown} per game ({args.games} games after {args.warm} warm-up, {tool})")
    if len(results) == 2:
        ours, theirs = results
        ratios = ", ".join(f"{name} {theirs[name] / ours[name]:.2f}x" for name in ours if ours[name])
        print(f"ratio ({engines[1][1]} / this checkout): {ratios}")


if __name__ == "__main__":
    main()
