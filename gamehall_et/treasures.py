"""Treasures: a kingdom with a green leader (trader) and two or more treasures
gives the trader's owner all but one, the corner treasures first.
"""
from __future__ import annotations

from .board import GREEN
from .kingdoms import Groups
from .position import Position


def claims(pos: Position, order: list[int], active: int) -> list[tuple[int, list[int]]]:
    """(seat, treasure cells) of each kingdom owing treasures now: the active player's first,
    then in play order."""
    groups = Groups(pos)
    found = []
    for g in groups.kingdoms():
        trader = groups.leaders[g].get(GREEN)
        if trader is None:
            continue
        cells = [c for c in groups.cells[g] if pos.treasure[c]]
        if len(cells) >= 2:
            found.append((pos.leader[trader][0], cells))
    n = len(order)
    rank = {order[(order.index(active) + i) % n]: i for i in range(n)}
    found.sort(key=lambda sc: (rank[sc[0]], min(sc[1])))
    return found


def takeable(pos: Position, cells: list[int]) -> list[int]:
    """The treasures among ``cells`` that may be taken next: those of the highest priority."""
    top = max(pos.treasure[c] for c in cells)
    return [c for c in cells if pos.treasure[c] == top]
