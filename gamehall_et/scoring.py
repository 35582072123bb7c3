"""Scoring: a placed tile's point, and the final score.

A tile scores 1 point of its colour for the owner of the same-colour leader in
its kingdom; failing that, for the owner of the king (black leader); failing
that, for nobody.  The final score of a player is his weakest colour once his
treasures (wild) are added, one at a time, to whichever colour is weakest at
that moment; players are compared on their weakest colour, then the next
weakest, and so on; players still tied share the place.
"""
from __future__ import annotations

from .board import BLACK, COLOURS
from .kingdoms import Groups
from .position import Position


def tile_scorer(pos: Position, groups: Groups, c: int, colour: str) -> int | None:
    """The seat scoring the tile of ``colour`` at ``c`` (in the labelling ``groups``), or None."""
    g = groups.label[c]
    if g < 0:
        return None
    leaders = groups.leaders[g]
    lc = leaders.get(colour)
    if lc is None:
        lc = leaders.get(BLACK)
    return None if lc is None else pos.leader[lc][0]


def with_treasures(score: dict[str, int], wild: int) -> list[int]:
    """The colour scores after adding ``wild`` treasures one at a time to the weakest, sorted."""
    values = sorted(score[c] for c in COLOURS)
    for _ in range(wild):
        values[0] += 1
        values.sort()
    return values


def final_ranking(scores: list[dict[str, int]], wild: list[int]) -> tuple[list[list[int]], list[int]]:
    """(sorted colour vector per seat, position per seat: 1 is first, ties share)."""
    vectors = [with_treasures(s, w) for s, w in zip(scores, wild)]
    positions = [1 + sum(1 for other in vectors if other > mine) for mine in vectors]
    return vectors, positions
