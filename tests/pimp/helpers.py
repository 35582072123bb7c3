"""Hand-made positions for the rule tests: fixed dice, chosen owners, cash and squares."""
from __future__ import annotations

import json

import pytest

from gamehall_pimp.game import Monopoly, with_players
from gamehall_pimp.state import PimpError


def fresh(n: int = 3, turn: int = 1, **options) -> Monopoly:
    """``n`` players (users 1..n, 1500 each), nothing owned, user ``turn`` about to roll."""
    g = with_players([f"p{i}" for i in range(1, n + 1)], seed=5)
    g.options.update(options)
    if not options.get("pot", True):
        g.pot = 0
    for u in g.users.values():
        u.passed_go = True
    g.ev = []
    g._start_turn(turn)
    g.ev = []
    return g


def dice(g: Monopoly, *rolls) -> None:
    """Make the next rolls ``rolls`` ((d1, d2) pairs) instead of random ones."""
    seq = list(rolls)

    def roll():
        g.dice = seq.pop(0)
        return g.dice
    g._roll = roll


def do(g: Monopoly, pid, msg: str, *args) -> list:
    return g.apply(pid, {"msg": msg, "args": list(args)})


def refused(g: Monopoly, pid, msg: str, *args) -> list:
    """The error replies of a refused action (and check that it changed nothing)."""
    before = json.dumps(g.to_dict(), sort_keys=True)
    with pytest.raises(PimpError) as info:
        do(g, pid, msg, *args)
    assert json.dumps(g.to_dict(), sort_keys=True) == before
    return [(m.name, *m.args) for m in info.value.replies]


def names(msgs) -> list[str]:
    return [m.name for m in msgs]


def seen(msgs, pid=None) -> list[tuple]:
    """(name, *args) of the messages user ``pid`` receives (all broadcast ones when None)."""
    return [(m.name, *m.args) for m in msgs if m.to is None or (pid is not None and pid in m.to)]


def own(g: Monopoly, pid: int, *props: int) -> None:
    for p in props:
        g.owner[p] = pid


def place(g: Monopoly, pid: int, square: int) -> None:
    g.users[pid].square = square
