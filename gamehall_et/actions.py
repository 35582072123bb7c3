"""Where pieces may go: the placement rules of tiles, leaders and catastrophes.

Each ``*_refusal`` returns None when the placement is legal, or the reason
(for a user) why not.  ``groups`` is the labelling of the position the piece
goes into (for a moving leader: with that leader already lifted).
"""
from __future__ import annotations

from .board import BLUE, COLOUR_NAMES, N_CELLS, NEIGHBOURS, RED, RIVER
from .kingdoms import Groups
from .position import Position


def tile_refusal(pos: Position, groups: Groups, colour: str, c: int) -> str | None:
    if pos.catastrophe[c] or pos.occupied(c):
        return "that cell is not empty"
    if colour == BLUE:
        if c not in RIVER:
            return "blue tiles go on the rivers only"
    elif c in RIVER:
        return f"only blue tiles go on the rivers, not {COLOUR_NAMES[colour]}"
    if len(groups.adjacent_kingdoms(c)) >= 3:
        return "a tile may not unite three kingdoms"
    return None


def next_to_temple(pos: Position, c: int) -> bool:
    tile = pos.tile
    for n in NEIGHBOURS[c]:
        if tile[n] == RED:
            return True
    return False


def leader_refusal(pos: Position, groups: Groups, c: int) -> str | None:
    if pos.catastrophe[c] or pos.occupied(c):
        return "that cell is not empty"
    if c in RIVER:
        return "leaders stand on land, not on the rivers"
    if not next_to_temple(pos, c):
        return "a leader must stand next to a red temple"
    if len(groups.adjacent_kingdoms(c)) >= 2:
        return "a leader may not unite two kingdoms"
    return None


def catastrophe_refusal(pos: Position, c: int) -> str | None:
    if pos.catastrophe[c]:
        return "there is a catastrophe there already"
    if pos.leader[c] is not None:
        return "a catastrophe may not fall on a leader"
    if pos.monument[c] is not None:
        return "a catastrophe may not fall on a monument"
    if pos.treasure[c]:
        return "a catastrophe may not fall on a treasure"
    return None


_RIVER_CELLS = tuple(sorted(RIVER))
_LAND_CELLS = tuple(c for c in range(N_CELLS) if c not in RIVER)


def _free(pos: Position, cells) -> list[int]:
    tile, monument, leader, cat = pos.tile, pos.monument, pos.leader, pos.catastrophe
    return [c for c in cells if tile[c] is None and monument[c] is None and leader[c] is None and not cat[c]]


def _kingdoms_next_to(label: list[int], kingdom: list[bool], c: int) -> int:
    """How many distinct kingdoms touch cell ``c`` (0-4)."""
    found = []
    for n in NEIGHBOURS[c]:
        g = label[n]
        if g >= 0 and kingdom[g] and g not in found:
            found.append(g)
    return len(found)


def tile_cells(pos: Position, groups: Groups, colour: str) -> list[int]:
    """Every cell where a tile of ``colour`` may go (same rules as tile_refusal, faster)."""
    label, kingdom = groups.label, [bool(ls) for ls in groups.leaders]
    cells = _free(pos, _RIVER_CELLS if colour == BLUE else _LAND_CELLS)
    return [c for c in cells if _kingdoms_next_to(label, kingdom, c) < 3]


def leader_cells(pos: Position, groups: Groups) -> list[int]:
    """Every cell where a leader may go (empty land next to a temple, uniting nothing)."""
    label, kingdom = groups.label, [bool(ls) for ls in groups.leaders]
    return [c for c in _free(pos, _LAND_CELLS)
            if next_to_temple(pos, c) and _kingdoms_next_to(label, kingdom, c) < 2]


def catastrophe_cells(pos: Position) -> list[int]:
    return [c for c in range(N_CELLS) if catastrophe_refusal(pos, c) is None]


def leaders_cut_off(pos: Position) -> list[int]:
    """Cells of the leaders with no red temple next to them (to be withdrawn)."""
    return [c for c in range(N_CELLS) if pos.leader[c] is not None and not next_to_temple(pos, c)]
