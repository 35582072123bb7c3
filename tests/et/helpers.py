"""Hand-made Euphrates & Tigris positions for rule tests.

``blank(n)`` is a fresh game whose board holds nothing (not even the starting
temples) and whose hands are empty, seat 0 to play its first action; the bag
is the seeded one, so refills still work.  Draw pieces on it with ``draw``
(rows of characters from a top-left corner) and ``leader``.
"""
from __future__ import annotations

from gamehall_et.board import COLOURS, COLOUR_CODES, cell
from gamehall_et.engine import Game
from gamehall_et.position import Position

#: draw() characters: tiles, and red temples holding a treasure (t) or a corner treasure (c)
_TILES = {"r": ("r", 0), "g": ("g", 0), "b": ("b", 0), "k": ("k", 0), "t": ("r", 1), "c": ("r", 2)}


def blank(n: int = 2, seed: int = 1, hands: list[dict] | None = None) -> Game:
    g = Game.new([f"p{i}" for i in range(n)], seed=seed)
    g.pos = Position()
    g.hands = [dict.fromkeys(COLOURS, 0) for _ in range(n)]
    for seat, h in enumerate(hands or []):
        give(g, seat, **h)
    return g


def give(g: Game, seat: int, **counts: int) -> None:
    """Set ``seat``'s hand counts by colour name (red=2, blue=1)."""
    for name, k in counts.items():
        g.hands[seat][COLOUR_CODES[name]] = k


def draw(g: Game, x0: int, y0: int, *rows: str) -> None:
    for dy, row in enumerate(rows):
        for dx, ch in enumerate(row):
            if ch in ". ":
                continue
            c = cell(x0 + dx, y0 + dy)
            colour, treasure = _TILES[ch]
            g.pos.tile[c] = colour
            g.pos.treasure[c] = treasure


def leader(g: Game, seat: int, colour: str, x: int, y: int) -> None:
    g.pos.leader[cell(x, y)] = (seat, COLOUR_CODES[colour])


def tile(colour: str, x: int, y: int) -> dict:
    return {"tile": {"colour": colour, "x": x, "y": y}}


def add(colour: str, n: int) -> dict:
    return {"add": {"colour": colour, "n": n}}


def at(g: Game, x: int, y: int):
    """(tile colour, leader) at a cell, for short assertions."""
    c = cell(x, y)
    return g.pos.tile[c], g.pos.leader[c]


def points(g: Game, seat: int) -> dict:
    return {name: g.scores[seat][code] for name, code in COLOUR_CODES.items()}


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]
