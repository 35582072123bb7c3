"""Board 0 (the standard US board) loaded from ``board0.json``: squares, properties, cards.

The numbers are data, not code; this module only gives them names and a few
derived tables (group members, nearest railroad / utility).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

COLOUR, RAILROAD, UTILITY = "colour", "railroad", "utility"
HOTEL = 5            # a building level: 0-4 houses, 5 = a hotel


@dataclass(frozen=True)
class Property:
    id: int
    name: str
    square: int
    group: str
    kind: str            # colour | railroad | utility
    price: int
    rents: tuple         # colour: base, 1-4 houses, hotel; railroad: 1-4 owned; utility: x dice for 1, 2 owned
    house_cost: int
    mortgage: int

    @property
    def unmortgage_cost(self) -> int:
        """The mortgage plus 10% interest, rounded down (int(1.1 x value))."""
        return self.mortgage * 11 // 10


@dataclass(frozen=True)
class Card:
    id: int
    deck: str            # chance | chest
    kind: str
    arg: object
    text: str


@dataclass(frozen=True)
class Board:
    number: int
    squares: tuple               # (kind, property id or None) per square
    properties: tuple            # Property per id
    groups: dict                 # group name -> tuple of property ids
    cards: tuple                 # Card per id
    start_cash: int
    salary: int
    bail: int
    jail_square: int
    go_to_jail_square: int
    free_parking_square: int
    max_jail_turns: int
    houses: int
    hotels: int
    pot_reset: int
    luxury_tax: int
    income_tax_flat: int

    @property
    def n_squares(self) -> int:
        return len(self.squares)

    def property_at(self, square: int) -> int | None:
        return self.squares[square][1]

    def deck_cards(self, deck: str) -> list[int]:
        return [c.id for c in self.cards if c.deck == deck]

    def nearest(self, square: int, kind: str) -> int:
        """The first square at or after ``square + 1`` (going round) holding a ``kind`` property."""
        n = self.n_squares
        for step in range(1, n + 1):
            s = (square + step) % n
            pid = self.squares[s][1]
            if pid is not None and self.properties[pid].kind == kind:
                return s
        raise ValueError(f"no {kind} on the board")


@lru_cache(maxsize=None)
def board0() -> Board:
    data = json.loads(resources.files("gamehall_pimp").joinpath("board0.json").read_text("utf-8"))
    props = tuple(
        Property(i, name, square, group, data["groups"][group], price, tuple(rents), house, mortgage)
        for i, (name, square, group, price, rents, house, mortgage) in enumerate(data["properties"]))
    groups: dict[str, tuple] = {}
    for p in props:
        groups[p.group] = groups.get(p.group, ()) + (p.id,)
    squares = tuple((s[0], s[1] if len(s) > 1 else None) for s in data["squares"])
    cards = tuple(Card(i, deck, kind, tuple(arg) if isinstance(arg, list) else arg, text)
                  for i, deck, kind, arg, text in data["cards"])
    for p in props:
        assert squares[p.square] == ("property", p.id), p
    assert [c.id for c in cards] == list(range(len(cards)))
    keys = ("start_cash", "salary", "bail", "jail_square", "go_to_jail_square", "free_parking_square",
            "max_jail_turns", "houses", "hotels", "pot_reset", "luxury_tax", "income_tax_flat")
    return Board(data["board"], squares, props, groups, cards, **{k: data[k] for k in keys})
