"""Rent: by colour group and buildings, railroads owned, utilities and dice; the card variants.

Pure functions of the board and the ownership tables (``owner[p]`` user id or
0, ``level[p]`` 0-4 houses or 5 for a hotel).
"""
from __future__ import annotations

from .board import COLOUR, RAILROAD, Board

#: how a card sent the player: None, or the card's rent rule
NEAREST_RAILROAD = "nearest_railroad"      # twice the railroad rent
NEAREST_UTILITY = "nearest_utility"        # 10x a fresh roll, whatever is owned


def owns_group(board: Board, owner: list, prop: int) -> bool:
    who = owner[prop]
    return who != 0 and all(owner[q] == who for q in board.groups[board.properties[prop].group])


def count_owned(board: Board, owner: list, prop: int) -> int:
    """How many of ``prop``'s group its owner holds (railroads and utilities count this way)."""
    who = owner[prop]
    return sum(1 for q in board.groups[board.properties[prop].group] if owner[q] == who)


def rent(board: Board, owner: list, level: list, prop: int, dice_total: int,
         card_rule: str | None = None) -> int:
    p = board.properties[prop]
    if p.kind == COLOUR:
        if level[prop]:
            return p.rents[level[prop]]
        base = p.rents[0]
        # an unimproved complete group pays double
        return base * 2 if owns_group(board, owner, prop) else base
    n = count_owned(board, owner, prop)
    if p.kind == RAILROAD:
        r = p.rents[n - 1]
        return r * 2 if card_rule == NEAREST_RAILROAD else r
    if card_rule == NEAREST_UTILITY:
        return 10 * dice_total
    return p.rents[n - 1] * dice_total
