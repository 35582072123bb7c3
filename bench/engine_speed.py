"""Speed of the classic Acquire engine: whole 4-player games per second on one core.

The workload, exactly: a fresh shuffled tile bag per game (``Game.new`` with a
new seed); at every decision, one action picked uniformly among all the legal
ones, as ``Game.legal_actions()`` enumerates them: a playable rack tile; an
available chain to found; a survivor among the tied largest; the next defunct
chain; every (trade, sell) pair with trade even, trade / 2 at most the
survivor's available shares and trade + sell at most the shares owned; every
multiset of 0 to 3 affordable, available shares of chains on the board, each
listed twice (end the game: no / yes) when ending is allowed.  ``--check N``
first compares ``legal_actions()`` with an independent enumeration of that
description at every decision of N games.

For scale: a reference TypeScript engine plays ~1,000 such games per second
(~150 actions per game) on one core of this machine.

    python bench/engine_speed.py [--seconds 10] [--runs 3] [--check 0]
    python bench/engine_speed.py --against REF [--seconds 10] [--runs 3]

Prints games/s and actions/s (the median of ``--runs`` timed runs of
``--seconds`` each, after a warm-up), then games/s of selfplay with four
``strong`` bots.  Times are CPU time of this process (``time.process_time``),
so other work on the machine disturbs them less.  Figures only: nothing is
asserted.

``--against REF`` compares this checkout's engine with another one, side by
side in this one process: REF is a git commit (its ``gamehall_acquire``
package is extracted with ``git archive`` into a temporary directory) or the
path of another checkout.  REF's package is imported under another module
name (both share this checkout's ``gamehall`` package).  Each round plays the
same seeded games on both engines, one after the other (the order alternating
between rounds); the summed CPU times give both rates and their ratio, and the
final records of the two engines are compared game by game.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import io
import itertools
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamehall_acquire import selfplay  # noqa: E402
from gamehall_acquire.bots import make_bot  # noqa: E402
from gamehall_acquire.rules import Game  # noqa: E402
from gamehall_acquire.tiles import neighbours  # noqa: E402

PLAYERS = ["p1", "p2", "p3", "p4"]


def play(g, choice) -> int:
    """Play game ``g`` to its end, ``choice`` picking each action among ``legal_actions()``;
    the number of actions."""
    actions = 0
    pending_seat, legal, apply = g.pending_seat, g.legal_actions, g.apply
    seat = pending_seat()
    while seat is not None:
        apply(seat, choice(legal()))
        actions += 1
        seat = pending_seat()
    return actions


def random_games(seconds: float, rng: random.Random, game_class=Game) -> tuple[int, int, float]:
    """(games, actions, CPU seconds) for whole random games played until ``seconds`` pass."""
    games = actions = 0
    choice = rng.choice
    getrandbits = rng.getrandbits
    new = game_class.new
    clock = time.process_time
    start = clock()
    deadline = start + seconds
    now = start
    while now < deadline:
        actions += play(new(PLAYERS, seed=getrandbits(63)), choice)
        games += 1
        now = clock()
    return games, actions, now - start


def seeded_games(seeds: list[int], game_class, digests: list) -> tuple[int, float]:
    """(actions, CPU seconds) for the random games of ``seeds`` (the game's seed also
    seeds its action picker); appends a digest of each final record to ``digests``.

    Only the games are timed: each game's picker is made before its clock starts,
    and its digest is taken (and the game dropped) after the clock stops.  Keeping
    every finished game alive until the end of the batch made the collector walk a
    growing heap: it cost both engines the same absolute time (13% of this
    engine's), which hid part of the difference between them.
    """
    actions = 0
    clock = time.process_time
    elapsed = 0.0
    for seed in seeds:
        choice = random.Random(seed).choice
        start = clock()
        g = game_class.new(PLAYERS, seed=seed)
        actions += play(g, choice)
        elapsed += clock() - start
        digests.append(hashlib.sha256(json.dumps([g.record(), g.cash]).encode()).hexdigest())
    return actions, elapsed


def strong_games(seconds: float, seed: int) -> tuple[int, float]:
    """(games, CPU seconds) for 4-player games of the strong bot against itself."""
    games = 0
    clock = time.process_time
    start = clock()
    deadline = start + seconds
    now = start
    while now < deadline:
        game_seed, bot_seeds = selfplay.game_seeds(seed, games, 4)
        engine = selfplay.new_engine("classic", PLAYERS, game_seed)
        selfplay.play_game(engine, [make_bot("strong", s) for s in bot_seeds])
        games += 1
        now = time.process_time()
    return games, now - start


# ------------------------------------------------------------ another engine
def load_engine(ref: str):
    """The ``Game`` class of another checkout of the engine: a directory (a checkout's
    root, or its ``gamehall_acquire`` package) or a git commit of this repository."""
    path = Path(ref)
    if path.is_dir():
        package = path / "gamehall_acquire" if (path / "gamehall_acquire").is_dir() else path
        if not (package / "rules.py").is_file():
            raise SystemExit(f"--against: {ref} holds no gamehall_acquire package")
        label = str(path)
    else:
        try:
            tar = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref, "gamehall_acquire"],
                                 check=True, capture_output=True).stdout
            commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", ref],
                                    check=True, capture_output=True, text=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError) as exc:
            err = getattr(exc, "stderr", b"") or b""
            raise SystemExit(f"--against: {ref} is neither a directory nor a commit "
                             f"({err.decode(errors='replace').strip() or exc})") from None
        tmp = Path(tempfile.mkdtemp(prefix="acquire-engine-"))
        with tarfile.open(fileobj=io.BytesIO(tar)) as t:
            t.extractall(tmp, filter="data")
        package = tmp / "gamehall_acquire"
        label = f"{ref} ({commit})"
    name = "acquire_engine_" + hashlib.sha1(str(package.resolve()).encode()).hexdigest()[:10]
    spec = importlib.util.spec_from_file_location(name, package / "__init__.py",
                                                  submodule_search_locations=[str(package)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return importlib.import_module(name + ".rules").Game, label


def compare(ref: str, seconds: float, runs: int, seed: int) -> None:
    """Both engines on the same games, interleaved, in ``runs`` rounds of about ``seconds``
    of CPU time per engine; prints both rates and the ratio."""
    other, label = load_engine(ref)
    rng = random.Random(seed)
    engines = [("this checkout", Game), (label, other)]
    warm: list = []
    for _, cls in engines:                                      # warm-up (caches, imports)
        seeded_games([rng.getrandbits(63) for _ in range(20)], cls, warm)
    # games per round: enough for ``seconds`` on the slower engine, measured once
    probe = [rng.getrandbits(63) for _ in range(20)]
    per_game = max(seeded_games(probe, cls, [])[1] for _, cls in engines) / len(probe)
    batch = max(10, int(seconds / max(per_game, 1e-6)))
    totals = {id(cls): [0, 0, 0.0] for _, cls in engines}      # games, actions, CPU s
    digests = {id(cls): [] for _, cls in engines}
    ratios = []
    for r in range(runs):
        seeds = [rng.getrandbits(63) for _ in range(batch)]
        rates = {}
        for _, cls in (engines if r % 2 == 0 else engines[::-1]):
            actions, elapsed = seeded_games(seeds, cls, digests[id(cls)])
            t = totals[id(cls)]
            t[0] += len(seeds)
            t[1] += actions
            t[2] += elapsed
            rates[id(cls)] = len(seeds) / elapsed
        ratios.append(rates[id(Game)] / rates[id(other)])
        print(f"round {r + 1}: {batch} games each: this checkout {rates[id(Game)]:.0f} games/s, "
              f"{label} {rates[id(other)]:.0f} games/s, ratio {ratios[-1]:.2f}")
    for name, cls in engines:
        games, actions, elapsed = totals[id(cls)]
        print(f"{name}: {games / elapsed:.0f} games/s, {actions / elapsed:.0f} actions/s "
              f"({games} games, {elapsed:.1f} CPU s)")
    ours, theirs = totals[id(Game)], totals[id(other)]
    ratio = (ours[0] / ours[2]) / (theirs[0] / theirs[2])
    same = sum(a == b for a, b in zip(digests[id(Game)], digests[id(other)]))
    print(f"ratio (this checkout / {label}): {ratio:.2f} overall, rounds "
          f"{min(ratios):.2f}-{max(ratios):.2f}; identical final records: {same} of {ours[0]} games")


# ----------------------------------------------------- independent enumeration
def expected_actions(g: Game) -> list[dict]:
    """The legal actions as the module docstring describes them, from public views only."""
    d = g.pending()
    seat, kind, o = d.seat, d.kind, d.options
    rules = g.rules
    if kind == "play_tile":
        return [{"play_tile": t} for t in g.racks[seat]
                if t is not None and g.tile_status(t) in ("playable", "found", "grow", "merge")]
    if kind == "found_chain":
        return [{"found_chain": c} for c in rules.chains if g.chain_size(c) == 0]
    if kind in ("choose_survivor", "choose_defunct"):
        board = g.board
        merger = [t for t, c in board.items() if c is None
                  and len({board.get(n) for n in neighbours(t)} - {None}) >= 2]
        assert len(merger) == 1, merger
        chains = {board.get(n) for n in neighbours(merger[0])} - {None}
        big = max(g.chain_size(c) for c in chains)
        if kind == "choose_defunct":
            # replay the ordering from the record: survivor, then largest first,
            # ties as chosen since the merging tile was played
            actions = g.record()["actions"]
            last = max(i for i, a in enumerate(actions) if "play_tile" in a)
            since = actions[last + 1:]
            survivor = next((a["choose_survivor"] for a in since if "choose_survivor" in a), None)
            if survivor is None:
                (survivor,) = [c for c in chains if g.chain_size(c) == big]
            chosen = [a["choose_defunct"] for a in since if "choose_defunct" in a]
            rem = chains - {survivor}
            while True:
                top = max(g.chain_size(c) for c in rem)
                tied = [c for c in rules.chains if c in rem and g.chain_size(c) == top]
                if len(tied) > 1:
                    if not chosen:
                        return [{"choose_defunct": c} for c in tied]
                    pick = chosen.pop(0)
                    assert pick in tied
                else:
                    pick = tied[0]
                rem.discard(pick)
        return [{"choose_survivor": c} for c in rules.chains if c in chains and g.chain_size(c) == big]
    if kind == "dispose":
        owned, avail = g.shares[seat][o["chain"]], g.available(o["survivor"])
        return [{"dispose": {"sell": s, "trade": t}}
                for t in range(0, owned + 1, 2) if t // 2 <= avail
                for s in range(owned + 1) if t + s <= owned]
    assert kind == "purchase"
    cash = g.cash[seat]
    on = [c for c in rules.chains if g.chain_size(c) > 0 and g.available(c) > 0]
    combos = []
    for counts in itertools.product(*[range(min(g.available(c), rules.max_buy) + 1) for c in on]):
        buy = {ch: n for ch, n in zip(on, counts) if n}
        if sum(counts) <= rules.max_buy and sum(n * g.price(ch) for ch, n in buy.items()) <= cash:
            combos.append(buy)
    sizes = [g.chain_size(c) for c in g.chains_on_board()]
    can_end = bool(sizes) and (max(sizes) >= rules.end_size or min(sizes) >= rules.safe_size)
    return [{"purchase": b, "end_game": e} for b in combos for e in ((False, True) if can_end else (False,))]


def check(games: int, seed: int) -> int:
    """Compare legal_actions() with expected_actions() at every decision; return mismatches."""
    rng = random.Random(seed)
    bad = 0
    for _ in range(games):
        g = Game.new(PLAYERS, seed=rng.getrandbits(63))
        while not g.is_over():
            got = g.legal_actions()
            keys = sorted(json.dumps(a, sort_keys=True) for a in got)
            want = sorted(json.dumps(a, sort_keys=True) for a in expected_actions(g))
            if keys != want or len(set(keys)) != len(keys):
                bad += 1
                if bad <= 3:
                    print(f"mismatch at {g.pending()}: got {len(keys)}, expected {len(want)}")
            g.apply(g.pending_seat(), rng.choice(got))
    return bad


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="length of each timed run")
    ap.add_argument("--runs", type=int, default=3, help="timed runs; the median is printed")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", type=int, default=0, metavar="N",
                    help="first compare legal_actions() with an independent enumeration in N games")
    ap.add_argument("--against", metavar="REF",
                    help="compare with another engine: a git commit or the path of another checkout")
    args = ap.parse_args(argv)
    if args.against:
        compare(args.against, args.seconds, args.runs, args.seed)
        return
    if args.check:
        bad = check(args.check, args.seed)
        print(f"legal_actions() vs independent enumeration: {args.check} games, {bad} mismatching decisions")
    rng = random.Random(args.seed)
    random_games(min(2.0, args.seconds / 5), rng)                 # warm-up
    runs = [random_games(args.seconds, rng) for _ in range(args.runs)]
    gps = statistics.median(g / t for g, _, t in runs)
    aps = statistics.median(a / t for _, a, t in runs)
    apg = sum(a for _, a, _ in runs) / sum(g for g, _, _ in runs)
    print(f"random legal actions, 4 players: {gps:.0f} games/s, {aps:.0f} actions/s "
          f"({apg:.0f} actions per game; median of {args.runs} runs of {args.seconds:g} s, one core)")
    strong_games(min(2.0, args.seconds / 5), args.seed)          # warm-up
    sruns = [strong_games(args.seconds, args.seed + i) for i in range(args.runs)]
    sgps = statistics.median(g / t for g, t in sruns)
    print(f"selfplay, 4 strong bots: {sgps:.1f} games/s (median of {args.runs} runs of {args.seconds:g} s)")


if __name__ == "__main__":
    main()
