"""The Acquire board: 108 tiles named "1A".."12I" (columns 1-12, rows A-I).

Internally a tile is an int index 0..107 in column-major order, so that
index order is the official "nearest to 1A" order (column, then row:
1B before 2A).  The NetAcquire Tile-ID is that index plus one:
1A=1, 1B=2, .. 1I=9, 2A=10, .. 12I=108.
"""
from __future__ import annotations

import random

COLUMNS = 12
ROWS = "ABCDEFGHI"
N_ROWS = len(ROWS)
N_TILES = COLUMNS * N_ROWS

#: tile names by index (column-major)
NAMES: tuple[str, ...] = tuple(f"{c}{r}" for c in range(1, COLUMNS + 1) for r in ROWS)

_INDEX: dict[str, int] = {}
for _i, _n in enumerate(NAMES):
    _INDEX[_n] = _i
    _INDEX[_n.lower()] = _i
del _i, _n
#: tile name ("1A" or "1a") -> index, for a lookup without a call; tile_index() for any other spelling
INDEX = _INDEX


def _neighbours(i: int) -> tuple[int, ...]:
    col, row = divmod(i, N_ROWS)
    out = []
    if row > 0:
        out.append(i - 1)
    if row < N_ROWS - 1:
        out.append(i + 1)
    if col > 0:
        out.append(i - N_ROWS)
    if col < COLUMNS - 1:
        out.append(i + N_ROWS)
    return tuple(out)


#: orthogonal neighbours of each tile index
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(i) for i in range(N_TILES))


def tile_index(name: str) -> int:
    """0-based index of a tile name ("1A" -> 0); ValueError for a bad name."""
    if type(name) is str:           # the usual exact spelling: no strip() needed
        i = _INDEX.get(name)
        if i is not None:
            return i
    try:
        return _INDEX[name.strip()]
    except (KeyError, AttributeError):
        raise ValueError(f"not a tile: {name!r}") from None


def tile_id(name: str) -> int:
    """NetAcquire Tile-ID (1A=1, 1B=2, .. 2A=10, .. 12I=108)."""
    return tile_index(name) + 1


def tile_name(tile_id_: int) -> str:
    """Tile name of a NetAcquire Tile-ID (1..108)."""
    if isinstance(tile_id_, bool) or not isinstance(tile_id_, int) or not 1 <= tile_id_ <= N_TILES:
        raise ValueError(f"not a tile id: {tile_id_!r}")
    return NAMES[tile_id_ - 1]


def canonical(name: str) -> str:
    """The canonical spelling of a tile name ("1a" -> "1A")."""
    return NAMES[tile_index(name)]


def column(name: str) -> int:
    """Column number 1..12."""
    return tile_index(name) // N_ROWS + 1


def row(name: str) -> str:
    """Row letter A..I."""
    return ROWS[tile_index(name) % N_ROWS]


def sort_key(name: str) -> int:
    """Key for sorting tile names nearest-to-1A first."""
    return tile_index(name)


def all_tiles() -> list[str]:
    """All 108 tile names, 1A first, in column-major order."""
    return list(NAMES)


def neighbours(name: str) -> list[str]:
    """Names of the orthogonal neighbours of a tile."""
    return [NAMES[j] for j in NEIGHBOURS[tile_index(name)]]


def _shuffled(seed: int) -> list[int]:
    """Tile indexes 0..107 shuffled as ``random.Random(seed).shuffle`` shuffles them.

    The same Fisher-Yates walk and the same rejection sampling on
    ``getrandbits`` as CPython's ``Random.shuffle`` / ``_randbelow``, without a
    method call per step (this is most of the cost of a new game).
    """
    bag = list(range(N_TILES))
    getrandbits = random.Random(seed).getrandbits
    for i, n, k in _STEPS:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        bag[i], bag[j] = bag[j], bag[i]
    return bag


#: the steps of that walk: (i, i + 1, bits of i + 1)
_STEPS = tuple((i, i + 1, (i + 1).bit_length()) for i in range(N_TILES - 1, 0, -1))


def _shuffled_by_random(seed: int) -> list[int]:
    bag = list(range(N_TILES))
    random.Random(seed).shuffle(bag)
    return bag


def _same_as_random() -> bool:
    """Whether :func:`_shuffled` matches this Python's ``Random.shuffle`` (checked once)."""
    return all(_shuffled(s) == _shuffled_by_random(s) for s in (0, 1, 2 ** 62 + 12345))


#: the tile bag of a seed: ``random.Random(seed).shuffle`` of the 108 tile indexes.
#: Should a Python change its shuffle, the plain call is used, so a seed always
#: gives this Python's shuffle.
shuffled_tiles = _shuffled if _same_as_random() else _shuffled_by_random
