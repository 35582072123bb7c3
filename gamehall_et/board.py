"""The standard Euphrates & Tigris board and its pieces, as data, plus cell geometry.

Cells are numbered ``y * WIDTH + x`` with (0, 0) top left, x the column
(0-15) and y the row (0-10), as in the protocol's ``board`` message.
"""
from __future__ import annotations

WIDTH, HEIGHT = 16, 11
N_CELLS = WIDTH * HEIGHT

#: ``.`` land, ``R`` river, ``T`` land with a starting red temple and a
#: treasure, ``C`` the same in a corner position (its treasure is taken first)
STANDARD_MAP = (
    "....RRRRR.T.R...",
    ".C..R.......R..C",
    "...RRT......RR..",
    "RRRR.........RRR",
    ".............TRR",
    "..............R.",
    "RRRR....T...RRR.",
    ".C.RRRR.....R...",
    "......RRRRRRR.C.",
    ".....T..........",
    "..........T.....",
)

RED, GREEN, BLUE, BLACK = "r", "g", "b", "k"
#: the protocol's order of colours (hand, score, discard messages)
COLOURS = (RED, GREEN, BLUE, BLACK)
COLOUR_NAMES = {RED: "red", GREEN: "green", BLUE: "blue", BLACK: "black"}
COLOUR_CODES = {name: code for code, name in COLOUR_NAMES.items()}
#: leaders by colour: red priest, green trader, blue farmer, black king
LEADER_TITLES = {RED: "priest", GREEN: "trader", BLUE: "farmer", BLACK: "king"}

#: 153 civilisation tiles; the 10 starting temples are red tiles already on the board
TILE_COUNTS = {RED: 57, GREEN: 30, BLUE: 36, BLACK: 30}
N_TILES = sum(TILE_COUNTS.values())

#: the six monuments, one per pair of colours, in the protocol's colour order
MONUMENTS = tuple((a, b) for i, a in enumerate(COLOURS) for b in COLOURS[i + 1:])

HAND_SIZE = 6
CATASTROPHES = 2
ACTIONS_PER_TURN = 2
MIN_PLAYERS, MAX_PLAYERS = 2, 4
#: the game ends at the end of a turn with at most this many treasures on the board
END_TREASURES = 2
#: treasure priorities on the wire (``#r2-``): corner ones must be taken first
TREASURE_NORMAL, TREASURE_CORNER = 1, 2


def cell(x: int, y: int) -> int:
    return y * WIDTH + x


def xy(c: int) -> tuple[int, int]:
    return c % WIDTH, c // WIDTH


def on_board(x, y) -> bool:
    return (isinstance(x, int) and isinstance(y, int) and not isinstance(x, bool)
            and not isinstance(y, bool) and 0 <= x < WIDTH and 0 <= y < HEIGHT)


def _neighbours(c: int) -> tuple[int, ...]:
    x, y = xy(c)
    return tuple(cell(a, b) for a, b in ((x, y - 1), (x - 1, y), (x + 1, y), (x, y + 1))
                 if 0 <= a < WIDTH and 0 <= b < HEIGHT)


#: orthogonal neighbours of each cell
NEIGHBOURS = tuple(_neighbours(c) for c in range(N_CELLS))


def _parse_map(rows: tuple[str, ...]):
    if len(rows) != HEIGHT or any(len(r) != WIDTH for r in rows):
        raise ValueError("a board map is 11 rows of 16 cells")
    river, temples = set(), {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            c = cell(x, y)
            if ch == "R":
                river.add(c)
            elif ch == "T":
                temples[c] = TREASURE_NORMAL
            elif ch == "C":
                temples[c] = TREASURE_CORNER
            elif ch != ".":
                raise ValueError(f"unknown map character {ch!r} at ({x},{y})")
    return frozenset(river), temples


RIVER, START_TEMPLES = _parse_map(STANDARD_MAP)
#: cells of the starting temples -> treasure priority
START_TEMPLES = dict(sorted(START_TEMPLES.items()))
CORNER_TEMPLES = frozenset(c for c, p in START_TEMPLES.items() if p == TREASURE_CORNER)
