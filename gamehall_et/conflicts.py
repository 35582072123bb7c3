"""Revolts (internal conflicts) and wars (external conflicts): who fights, strengths, losses.

Revolt: a leader placed into a kingdom that holds a leader of its colour.
Strength: red temples orthogonally next to each leader, plus red tiles
committed from hand.  War: a tile unites two kingdoms holding leaders of one
colour (possibly several colours, fought one at a time in the order the
active player chooses).  Strength: face-up tiles of that colour in the
leader's own kingdom before the union (the uniting tile excluded), plus
tiles of that colour committed.  The defender wins ties in both.
"""
from __future__ import annotations

from .board import COLOURS, NEIGHBOURS, RED
from .kingdoms import Groups, count_colour
from .position import Position


def revolt_defender(pos: Position, groups: Groups, c: int, colour: str) -> int | None:
    """The cell of the leader a ``colour`` leader placed at ``c`` would revolt against."""
    for g in groups.adjacent_kingdoms(c):
        other = groups.leaders[g].get(colour)
        if other is not None and other != c:
            return other
    return None


def revolt_strength(pos: Position, c: int) -> int:
    """Red temples next to the leader at ``c``."""
    tile = pos.tile
    return sum(1 for n in NEIGHBOURS[c] if tile[n] == RED)


def war_colours(pos: Position, uniting: int) -> dict[str, tuple[int, int]]:
    """Colours in conflict across the tile at ``uniting``: colour -> (leader cell, leader cell).

    Kingdoms are taken without the uniting tile; a colour is in conflict when
    two of the kingdoms it touches hold a leader of that colour.
    """
    groups = Groups(pos, skip=uniting)
    seen: dict[str, list[int]] = {}
    for g in groups.adjacent_kingdoms(uniting):
        for colour, c in groups.leaders[g].items():
            seen.setdefault(colour, []).append(c)
    return {colour: (cs[0], cs[1]) for colour in COLOURS if len(cs := seen.get(colour, [])) == 2}


def attacker_first(seats: tuple[int, int], order: list[int], active: int) -> tuple[int, int]:
    """(attacker, defender): the first of ``seats`` in play order from the active player."""
    n = len(order)
    start = order.index(active)
    for i in range(n):
        s = order[(start + i) % n]
        if s in seats:
            return (s, seats[1] if s == seats[0] else seats[0])
    raise ValueError("neither seat is in the play order")


def war_side(pos: Position, uniting: int, leader_cell: int) -> list[int]:
    """The cells of the leader's own kingdom, the uniting tile excluded."""
    groups = Groups(pos, skip=uniting)
    return groups.cells[groups.label[leader_cell]]


def war_strength(pos: Position, uniting: int, leader_cell: int, colour: str) -> int:
    return count_colour(pos, war_side(pos, uniting, leader_cell), colour)


def war_losses(pos: Position, uniting: int, loser_cell: int, colour: str) -> list[int]:
    """Cells of the loser's tiles of ``colour`` removed by the defeat (the leader not included).

    Red temples survive if they hold a treasure or touch a leader other than
    the losing one.  The uniting tile is never removed (it is not on either side).
    """
    side = war_side(pos, uniting, loser_cell)
    tile, treasure, leader = pos.tile, pos.treasure, pos.leader
    out = []
    for c in side:
        if tile[c] != colour:
            continue
        if colour == RED:
            if treasure[c]:
                continue
            if any(leader[n] is not None and n != loser_cell for n in NEIGHBOURS[c]):
                continue
        out.append(c)
    return sorted(out)
