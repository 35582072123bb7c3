"""Regions and kingdoms: groups of orthogonally connected tiles, monuments and leaders.

A group holding at least one leader is a kingdom; one without is a region.
Catastrophes and empty cells separate groups.
"""
from __future__ import annotations

from .board import N_CELLS, NEIGHBOURS
from .position import Position


class Groups:
    """A labelling of the board's groups: ``label[c]`` is the index into ``cells``, or -1 for an
    empty cell (or the skipped one)."""

    __slots__ = ("label", "cells", "leaders")

    def __init__(self, pos: Position, skip: int = -1):
        """Group the occupied cells; ``skip`` is a cell treated as empty (a uniting tile)."""
        tile, monument, leader = pos.tile, pos.monument, pos.leader
        # -1: occupied, not yet labelled; -2: empty (or the skipped cell)
        label = [-1 if (tile[c] is not None or monument[c] is not None or leader[c] is not None)
                 else -2 for c in range(N_CELLS)]
        if skip >= 0:
            label[skip] = -2
        groups: list[list[int]] = []
        leaders: list[dict[str, int]] = []
        neighbours = NEIGHBOURS
        for start in range(N_CELLS):
            if label[start] != -1:
                continue
            g = len(groups)
            label[start] = g
            members = [start]
            found: dict[str, int] = {}
            for c in members:                   # grows while it is walked: a breadth-first fill
                who = leader[c]
                if who is not None:
                    found[who[1]] = c
                for n in neighbours[c]:
                    if label[n] == -1:
                        label[n] = g
                        members.append(n)
            groups.append(members)
            leaders.append(found)
        for c in range(N_CELLS):
            if label[c] == -2:
                label[c] = -1
        self.label = label
        self.cells = groups
        self.leaders = leaders        # per group: leader colour -> its cell (one per colour at most)

    def is_kingdom(self, g: int) -> bool:
        return bool(self.leaders[g])

    def adjacent(self, c: int) -> set[int]:
        """Labels of the groups orthogonally next to cell ``c``."""
        label = self.label
        return {label[n] for n in NEIGHBOURS[c] if label[n] >= 0}

    def adjacent_kingdoms(self, c: int) -> list[int]:
        return sorted(g for g in self.adjacent(c) if self.leaders[g])

    def kingdoms(self) -> list[int]:
        return [g for g, ls in enumerate(self.leaders) if ls]


def leaders_by_group(pos: Position, groups: Groups, g: int) -> dict[str, tuple[int, int]]:
    """Colour -> (seat, cell) of the leaders in group ``g``."""
    return {colour: (pos.leader[c][0], c) for colour, c in groups.leaders[g].items()}


def treasures_in(pos: Position, groups: Groups, g: int) -> list[int]:
    return [c for c in groups.cells[g] if pos.treasure[c]]


def count_colour(pos: Position, cells, colour: str) -> int:
    """Face-up tiles of ``colour`` among ``cells``."""
    tile = pos.tile
    return sum(1 for c in cells if tile[c] == colour)


def duplicate_leaders(pos: Position) -> list[tuple[int, str]]:
    """(group, colour) for every group holding two leaders of one colour: never legal at rest."""
    groups = Groups(pos)
    out = []
    for g, members in enumerate(groups.cells):
        seen = set()
        for c in members:
            who = pos.leader[c]
            if who is not None:
                if who[1] in seen:
                    out.append((g, who[1]))
                seen.add(who[1])
    return out
