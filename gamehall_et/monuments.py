"""Monuments: a 2x2 square of face-up tiles of one colour may become a monument
of that colour and another, one of the six pairs, each built at most once.

At the end of the active player's turn he scores 1 point in each colour of
each monument whose kingdom holds his leader of that colour.
"""
from __future__ import annotations

from .board import HEIGHT, MONUMENTS, NEIGHBOURS, RED, WIDTH, xy
from .kingdoms import Groups
from .position import Position


def squares(pos: Position, c: int) -> list[int]:
    """Top-left cells of the 2x2 squares holding ``c`` whose four tiles are face up and alike."""
    colour = pos.tile[c]
    if colour is None:
        return []
    x, y = xy(c)
    out = []
    for tx in (x - 1, x):
        for ty in (y - 1, y):
            if 0 <= tx < WIDTH - 1 and 0 <= ty < HEIGHT - 1:
                tl = ty * WIDTH + tx
                if all(pos.tile[k] == colour for k in (tl, tl + 1, tl + WIDTH, tl + WIDTH + 1)):
                    out.append(tl)
    return sorted(out)


def choices(pos: Position, c: int) -> list[tuple[int, str, str]]:
    """(top-left, main colour, other colour) of every monument the tile at ``c`` lets be built."""
    sq = squares(pos, c)
    if not sq:
        return []
    colour = pos.tile[c]
    out = []
    for tl in sq:
        for i in pos.available_monuments():
            pair = MONUMENTS[i]
            if colour in pair:
                out.append((tl, colour, pair[1] if pair[0] == colour else pair[0]))
    return out


def leaders_cut_by(pos: Position, top_left: int) -> list[int]:
    """Cells of the leaders a monument on the square at ``top_left`` leaves without a red
    temple next to them (its four tiles turn over and stop being temples): they go home."""
    square = (top_left, top_left + 1, top_left + WIDTH, top_left + WIDTH + 1)
    around = sorted({n for s in square for n in NEIGHBOURS[s]}.difference(square))
    tile, leader = pos.tile, pos.leader
    return [c for c in around if leader[c] is not None
            and not any(tile[n] == RED for n in NEIGHBOURS[c] if n not in square)]


def monument_index(a: str, b: str) -> int | None:
    for i, pair in enumerate(MONUMENTS):
        if set(pair) == {a, b} and a != b:
            return i
    return None


def monument_points(pos: Position, seat: int) -> list[tuple[int, str]]:
    """(monument index, colour) of each point ``seat`` scores for monuments at the end of his turn."""
    if not pos.monuments:
        return []
    groups = Groups(pos)
    out = []
    for i, (tl, _) in sorted(pos.monuments.items()):
        g = groups.label[tl]
        for colour in MONUMENTS[i]:
            lc = groups.leaders[g].get(colour)
            if lc is not None and pos.leader[lc][0] == seat:
                out.append((i, colour))
    return out
