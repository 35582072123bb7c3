"""What lies on the board's cells: tiles, monuments, leaders, catastrophes, treasures.

A monument covers four flipped tiles: those cells hold no face-up colour (they
are neither temples nor counted in conflicts) but still join kingdoms, and a
treasure on one of them stays there.
"""
from __future__ import annotations

from .board import MONUMENTS, N_CELLS, RED, START_TEMPLES, WIDTH, cell, xy


class Position:
    __slots__ = ("tile", "monument", "leader", "catastrophe", "treasure", "monuments")

    def __init__(self):
        self.tile: list[str | None] = [None] * N_CELLS        # face-up civilisation tile colour
        self.monument: list[int | None] = [None] * N_CELLS    # index into MONUMENTS of a covering monument
        self.leader: list[tuple[int, str] | None] = [None] * N_CELLS   # (seat, colour)
        self.catastrophe: list[bool] = [False] * N_CELLS
        self.treasure: list[int] = [0] * N_CELLS              # 0, or the treasure's priority
        self.monuments: dict[int, tuple[int, str]] = {}       # monument index -> (top-left cell,
        #                                                       colour of its four flipped tiles)

    @classmethod
    def standard(cls) -> "Position":
        pos = cls()
        for c, priority in START_TEMPLES.items():
            pos.tile[c] = RED
            pos.treasure[c] = priority
        return pos

    def copy(self) -> "Position":
        new = Position.__new__(Position)
        new.tile = self.tile[:]
        new.monument = self.monument[:]
        new.leader = self.leader[:]
        new.catastrophe = self.catastrophe[:]
        new.treasure = self.treasure[:]
        new.monuments = dict(self.monuments)
        return new

    def occupied(self, c: int) -> bool:
        """Whether the cell belongs to a kingdom or region (a tile, monument or leader)."""
        return self.tile[c] is not None or self.monument[c] is not None or self.leader[c] is not None

    def empty(self, c: int) -> bool:
        return not self.catastrophe[c] and not self.occupied(c)

    def is_temple(self, c: int) -> bool:
        return self.tile[c] == RED

    def leader_cell(self, seat: int, colour: str) -> int | None:
        want = (seat, colour)
        for c, who in enumerate(self.leader):
            if who == want:
                return c
        return None

    def treasures_left(self) -> int:
        return sum(1 for t in self.treasure if t)

    def available_monuments(self) -> list[int]:
        return [i for i in range(len(MONUMENTS)) if i not in self.monuments]

    # ------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        return {
            "tiles": {f"{x},{y}": self.tile[c] for c in range(N_CELLS) if self.tile[c]
                      for x, y in [xy(c)]},
            "leaders": {f"{x},{y}": list(self.leader[c]) for c in range(N_CELLS) if self.leader[c]
                        for x, y in [xy(c)]},
            "catastrophes": [list(xy(c)) for c in range(N_CELLS) if self.catastrophe[c]],
            "treasures": {f"{x},{y}": self.treasure[c] for c in range(N_CELLS) if self.treasure[c]
                          for x, y in [xy(c)]},
            "monuments": {"".join(MONUMENTS[i]): [*xy(tl), main] for i, (tl, main) in sorted(self.monuments.items())},
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Position":
        pos = cls()

        def at(key: str) -> int:
            x, y = key.split(",")
            return cell(int(x), int(y))
        for k, v in d["tiles"].items():
            pos.tile[at(k)] = v
        for k, v in d["leaders"].items():
            pos.leader[at(k)] = (int(v[0]), v[1])
        for x, y in d["catastrophes"]:
            pos.catastrophe[cell(x, y)] = True
        for k, v in d["treasures"].items():
            pos.treasure[at(k)] = int(v)
        names = ["".join(m) for m in MONUMENTS]
        for name, (x, y, main) in d["monuments"].items():
            pos.place_monument(names.index(name), cell(x, y), main)
        return pos

    def place_monument(self, index: int, top_left: int, main: str) -> None:
        """Flip the 2x2 square of ``main`` tiles at ``top_left`` and stand monument ``index`` on it."""
        for c in (top_left, top_left + 1, top_left + WIDTH, top_left + WIDTH + 1):
            self.tile[c] = None
            self.monument[c] = index
        self.monuments[index] = (top_left, main)
