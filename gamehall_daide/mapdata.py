"""A Diplomacy map read from its DAIDE files (MDF, NOW, SCO); nothing of the map is code.

Locations are strings: a province token (``"LON"``) for armies and for fleets
in one-coast provinces, ``"STP/NCS"`` for a fleet on a named coast.  All the
adjacency is precomputed into dicts of frozensets keyed by location so the
adjudicator never parses anything.
"""
from __future__ import annotations

import functools
import os
from collections import deque

from .text import parse

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def loc_text(loc: str) -> str:
    """DAIDE text of a location: ``LON`` or ``( STP NCS )``."""
    if "/" in loc:
        prov, coast = loc.split("/")
        return f"( {prov} {coast} )"
    return loc


def loc_item(loc: str):
    """A location as a tree item: ``"LON"`` or ``["STP", "NCS"]``."""
    return loc.split("/") if "/" in loc else loc


def item_loc(item) -> str | None:
    """The location string of a tree item, or None if it is not of the right shape."""
    if isinstance(item, str):
        return item
    if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
        return f"{item[0]}/{item[1]}"
    return None


def province(loc: str) -> str:
    return loc.split("/", 1)[0]


class GameMap:
    """Provinces, coasts, adjacencies by unit type, supply centres, home centres, start position."""

    def __init__(self, mdf: str, now: str, sco: str):
        tree = parse(mdf)
        if not tree or tree[0] != "MDF" or len(tree) != 4:
            raise ValueError("not an MDF message")
        self.powers: tuple[str, ...] = tuple(tree[1])
        centres_part, others = tree[2]
        self.homes: dict[str, tuple[str, ...]] = {p: () for p in self.powers}
        centres: list[str] = []
        for group in centres_part:
            owners, provs = group[0], group[1:]
            owner_list = owners if isinstance(owners, list) else [owners]
            for prov in provs:
                centres.append(prov)
                for owner in owner_list:
                    if owner != "UNO":
                        self.homes[owner] = self.homes[owner] + (prov,)
        self.centres: frozenset[str] = frozenset(centres)
        self.provinces: tuple[str, ...] = tuple(sorted(set(centres) | set(others)))
        army: dict[str, set[str]] = {p: set() for p in self.provinces}
        fleet: dict[str, set[str]] = {}
        coasts: dict[str, list[str]] = {p: [] for p in self.provinces}
        land, water = set(), set()
        for entry in tree[3]:
            prov = entry[0]
            for adj in entry[1:]:
                kind, dests = adj[0], adj[1:]
                targets = {item_loc(d) for d in dests}
                if kind == "AMY":
                    land.add(prov)
                    army[prov] |= targets
                else:
                    loc = prov if kind == "FLT" else f"{prov}/{kind[1]}"
                    if loc != prov:
                        coasts[prov].append(loc)
                    water.add(prov)
                    fleet.setdefault(loc, set()).update(targets)
        self.army_adj: dict[str, frozenset[str]] = {p: frozenset(v) for p, v in army.items()}
        self.fleet_adj: dict[str, frozenset[str]] = {p: frozenset(v) for p, v in fleet.items()}
        # every location a fleet can stand on, per province ([] for inland)
        self.fleet_locs: dict[str, tuple[str, ...]] = {}
        for p in self.provinces:
            if coasts[p]:
                self.fleet_locs[p] = tuple(coasts[p])
            elif p in fleet:
                self.fleet_locs[p] = (p,)
            else:
                self.fleet_locs[p] = ()
        self.is_land = frozenset(land)                   # armies may stand here
        self.is_sea = frozenset(water - land)            # fleets only: convoys happen here
        self.is_coastal = frozenset(water & land)
        self.bicoastal = frozenset(p for p in self.provinces if coasts[p])
        # fleet adjacency by province (any coast), used by supports and convoys
        self.fleet_reach: dict[str, frozenset[str]] = {}
        for p in self.provinces:
            self.fleet_reach[p] = frozenset(province(t) for loc in self.fleet_locs[p] for t in self.fleet_adj[loc])
        # location -> its province, without splitting strings while adjudicating
        self.prov_of: dict[str, str] = {p: p for p in self.provinces}
        for p in self.provinces:
            for loc in self.fleet_locs[p]:
                self.prov_of[loc] = p
        # fleet location -> provinces it can move to (coasts dropped)
        self.fleet_reach_loc: dict[str, frozenset[str]] = {
            loc: frozenset(province(t) for t in targets) for loc, targets in self.fleet_adj.items()}
        # distance graphs for civil disorder (DATC 4.D.8): fleets by fleet moves; armies by land
        # and through sea areas, each sea area adding one (DATC 6.J.11 preference)
        self.distance_adj: dict[str, dict[str, frozenset[str]]] = {
            "FLT": self.fleet_reach,
            "AMY": {p: self.army_adj[p] | frozenset(s for s in self.fleet_reach[p] if s in self.is_sea)
                    if p not in self.is_sea else self.fleet_reach[p] for p in self.provinces},
        }
        self.start_units, self.start_turn = self._read_now(now)
        self.start_owners = self._read_sco(sco)
        self._distance_cache: dict[tuple[str, str], dict[str, int]] = {}

    # ---------------------------------------------------------------- files
    def _read_now(self, now: str):
        tree = parse(now)
        if not tree or tree[0] != "NOW":
            raise ValueError("not a NOW message")
        season, year = tree[1]
        units = []
        for u in tree[2:]:
            power, utype, where = u[0], u[1], item_loc(u[2])
            units.append((power, utype, where))
        return units, (season, year)

    def _read_sco(self, sco: str) -> dict[str, str]:
        tree = parse(sco)
        if not tree or tree[0] != "SCO":
            raise ValueError("not a SCO message")
        owners = {}
        for group in tree[1:]:
            if group[0] != "UNO":
                for prov in group[1:]:
                    owners[prov] = group[0]
        return owners

    # -------------------------------------------------------------- queries
    def can_stand(self, utype: str, loc: str) -> bool:
        """May a unit of this type stand on this location (a fleet needs its coast)?"""
        if utype == "AMY":
            return loc in self.is_land
        return loc in self.fleet_adj and not (loc in self.bicoastal)

    def adjacent(self, utype: str, loc: str, dest: str) -> bool:
        if utype == "AMY":
            return dest in self.army_adj.get(loc, ())
        return dest in self.fleet_adj.get(loc, ())

    def home_distance(self, power: str, prov: str, utype: str) -> int:
        """Moves a unit of ``utype`` in ``prov`` needs to reach one of ``power``'s home centres."""
        key = (power, utype)
        d = self._distance_cache.get(key)
        if d is None:
            adj = self.distance_adj[utype]
            homes = self.homes.get(power, ())
            d = {h: 0 for h in homes}
            queue = deque(homes)
            while queue:
                p = queue.popleft()
                for q in adj[p]:
                    if q not in d:
                        d[q] = d[p] + 1
                        queue.append(q)
            self._distance_cache[key] = d
        return d.get(prov, 99)


def _read(name: str) -> str:
    with open(os.path.join(DATA_DIR, name), encoding="ascii") as f:
        return f.read()


@functools.lru_cache(maxsize=None)
def load(variant: str = "standard") -> GameMap:
    """The map of ``variant`` from the package's data files (only ``standard`` is shipped)."""
    if variant.lower() != "standard":
        raise ValueError(f"unknown variant {variant!r}")
    return GameMap(_read("STANDARD.MDF"), _read("STANDARD.NOW"), _read("STANDARD.SCO"))
