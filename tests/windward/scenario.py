"""Build Windward positions for tests: a board, hands, holdings, cash and cards, then a turn."""
from __future__ import annotations

from gamehall_acquire import tiles as T
from gamehall_acquire.windward.rules import CARDS, CHAINS, WindwardGame, WindwardRules

NAMES6 = ["ann", "bob", "cy", "di", "ed", "flo"]


def row(r: str, c1: int, c2: int) -> list[str]:
    """Tiles of row ``r`` from column c1 to c2 (inclusive)."""
    return [f"{c}{r}" for c in range(c1, c2 + 1)]


def col(c: int, r1: str, r2: str) -> list[str]:
    rows = T.ROWS
    return [f"{c}{rows[i]}" for i in range(rows.index(r1), rows.index(r2) + 1)]


def scenario(chains: dict | None = None, lone=(), hands: dict | None = None, shares: dict | None = None,
             cash: dict | None = None, cards: dict | None = None, current: int = 0, pile=(),
             pile_empty: bool = False, dead=(), rules: WindwardRules | None = None,
             start: bool = True, seed: int = 1) -> tuple[WindwardGame, list]:
    """A game in the given position (``cards`` None: everyone holds all five; a dict: the seats
    not in it hold none); with ``start`` the current seat's turn is begun as the
    engine begins any turn (end checks, tidy, card query).  Returns (game, events)."""
    chains = chains or {}
    hands = {s: list(h) for s, h in (hands or {}).items()}
    base = WindwardGame.new(NAMES6, seed=seed, rules=rules).to_dict()
    board = [t for ts in chains.values() for t in ts] + list(lone)
    in_hands = [t for s in range(6) for t in hands.get(s, [])]
    used = board + in_hands + list(dead)
    assert len(set(used)) == len(used), "a tile is used twice"
    rest = [t for t in T.NAMES if t not in set(used) and t not in set(pile)]
    pile = list(pile)
    extra_dead = []
    if pile_empty:
        extra_dead, rest, pile = rest + pile, [], []
    bag = used + extra_dead + pile + rest
    held = [[0] * 7 for _ in range(6)]
    for s, d in (shares or {}).items():
        for name, n in d.items():
            held[s][CHAINS.index(name)] = n
    d = dict(base)
    d.update({
        "tile_bag": bag, "bag_pos": len(used) + len(extra_dead),
        "order": list(range(6)), "turn_pos": current,
        "chain_tiles": {k: list(v) for k, v in chains.items()}, "lone": list(lone),
        "dead": list(dead) + extra_dead,
        "hands": [hands.get(s, []) for s in range(6)],
        "cash": [(cash or {}).get(s, 6000) for s in range(6)],
        "shares": held,
        "cards": [list(CARDS[1:]) if cards is None else list(cards.get(s, [])) for s in range(6)],
        "phase": "tile_purchase", "placement": 1, "placements": 1, "tile": None,
        "merge": None, "purchase": None, "end_reason": None, "scores": None, "actions": [],
    })
    g = WindwardGame.from_dict(d)
    ev: list = []
    if start:
        g._start_turn(current, ev)
    return g, ev


def account(g: WindwardGame) -> list[str]:
    """Every tile, wherever it is: board + set aside + hands + still to draw."""
    return list(g.board) + list(g.dead) + [t for h in g.hands for t in h] + g.bag


def by_type(events: list, kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]
