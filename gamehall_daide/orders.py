"""Orders: DAIDE order trees read into :class:`Order` and checked as DAIDE's THX notes say.

A refused order gets its note (FAR, NSP, NSU, NAS, NSF, NSA, NYU, NRN, NRS,
NVR, YSC, ESC, HSC, NSC, CST, NMB, NMR) and is not stored; MBV means stored.
Coasts follow the DATC preferences: a fleet move to a two-coast province
without a coast is taken to the only coast it can reach, and refused if both
are reachable (4.B.1/4.B.2); a wrong coast is refused (4.B.3); a coast on a
one-coast province or in a support is ignored (4.B.5/4.B.6); orders that are
impossible in the position are refused ("illegal", 4.E.1).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .mapdata import GameMap, item_loc, loc_text, province

MOVE_KINDS = frozenset({"HLD", "MTO", "SUP", "CVY", "CTO"})
RETREAT_KINDS = frozenset({"RTO", "DSB"})
BUILD_KINDS = frozenset({"BLD", "REM", "WVE"})


class OrderError(ValueError):
    """An order refused with a DAIDE note (``note``)."""

    def __init__(self, note: str):
        super().__init__(note)
        self.note = note


@dataclass(frozen=True, slots=True)
class Order:
    kind: str                     # HLD MTO SUP CVY CTO RTO DSB BLD REM WVE
    power: str
    utype: str = ""               # AMY/FLT (empty for WVE)
    loc: str = ""                 # the ordered unit's location (with coast)
    dest: str = ""                # MTO/RTO/BLD location, CTO/CVY/SUP-MTO province
    target: str = ""              # SUP/CVY: the other unit's province
    target_unit: tuple = ()       # SUP/CVY: (power, utype, loc) of the other unit
    via: tuple = ()               # CTO: the sea provinces named
    _text: str = field(default="", compare=False, repr=False)   # text() computed once

    @property
    def prov(self) -> str:
        return province(self.loc)

    def unit_text(self) -> str:
        return f"( {self.power} {self.utype} {loc_text(self.loc)} )"

    def text(self) -> str:
        """Canonical DAIDE text, as in SUB/THX/ORD."""
        if not self._text:
            object.__setattr__(self, "_text", self._make_text())
        return self._text

    def _make_text(self) -> str:
        k = self.kind
        if k == "WVE":
            return f"{self.power} WVE"
        u = self.unit_text()
        if k in ("HLD", "DSB", "BLD", "REM"):
            return f"{u} {k}"
        if k in ("MTO", "RTO"):
            return f"{u} {k} {loc_text(self.dest)}"
        if k == "CTO":
            return f"{u} CTO {self.dest}" + (f" VIA ( {' '.join(self.via)} )" if self.via else "")
        tp, tt, tl = self.target_unit
        other = f"( {tp} {tt} {loc_text(tl)} )"
        if k == "SUP":
            return f"{u} SUP {other}" + (f" MTO {loc_text(self.dest)}" if self.dest else "")
        return f"{u} CVY {other} CTO {self.dest}"


def _unit(gmap: GameMap, item) -> tuple[str, str, str]:
    """(power, type, location) of a unit item; OrderError(NSP/NSU) when malformed."""
    if not isinstance(item, list) or len(item) != 3:
        raise OrderError("NSU")
    power, utype, where = item
    if power not in gmap.powers or utype not in ("AMY", "FLT"):
        raise OrderError("NSU")
    loc = item_loc(where)
    if loc is None:
        raise OrderError("NSP")
    if province(loc) not in gmap.army_adj:
        raise OrderError("NSP")
    return power, utype, loc


def _province(gmap: GameMap, item) -> str:
    if not isinstance(item, str) or item not in gmap.army_adj:
        raise OrderError("NSP")
    return item


def _location(gmap: GameMap, item) -> str:
    loc = item_loc(item)
    if loc is None or province(loc) not in gmap.army_adj:
        raise OrderError("NSP")
    if "/" in loc and loc not in gmap.fleet_adj and loc.split("/")[1] not in ("NCS", "SCS", "ECS", "WCS", "NEC", "SEC", "NWC", "SWC"):
        raise OrderError("NSP")
    return loc


def parse_order(gmap: GameMap, tree: list) -> Order:
    """The Order of a tree as inside SUB ( ... ); OrderError for shapes that are not orders."""
    if not isinstance(tree, list) or len(tree) < 2:
        raise OrderError("NSU")
    if tree[1] == "WVE" and len(tree) == 2:
        if tree[0] not in gmap.powers:
            raise OrderError("NSU")
        return Order("WVE", tree[0])
    power, utype, loc = _unit(gmap, tree[0])
    kind = tree[1]
    rest = tree[2:]
    if kind in ("HLD", "DSB", "BLD", "REM") and not rest:
        return Order(kind, power, utype, loc)
    if kind in ("MTO", "RTO") and len(rest) == 1:
        return Order(kind, power, utype, loc, dest=_location(gmap, rest[0]))
    if kind == "SUP" and len(rest) in (1, 3):
        tp, tt, tl = _unit(gmap, rest[0])
        dest = ""
        if len(rest) == 3:
            if rest[1] != "MTO":
                raise OrderError("NSU")
            dest = _location(gmap, rest[2])        # a coast here must match the mover's (DATC 6.B.9)
        return Order("SUP", power, utype, loc, dest=dest, target=province(tl), target_unit=(tp, tt, tl))
    if kind == "CVY" and len(rest) == 3 and rest[1] == "CTO":
        tp, tt, tl = _unit(gmap, rest[0])
        return Order("CVY", power, utype, loc, dest=_province(gmap, rest[2]), target=province(tl),
                     target_unit=(tp, tt, tl))
    if kind == "CTO" and len(rest) in (1, 3):
        via: tuple = ()
        if len(rest) == 3:
            if rest[1] != "VIA" or not isinstance(rest[2], list) or not rest[2]:
                raise OrderError("NSU")
            via = tuple(_province(gmap, p) for p in rest[2])
        return Order("CTO", power, utype, loc, dest=_province(gmap, rest[0]), via=via)
    raise OrderError("NSU")


# ------------------------------------------------------------------ checks
def fleet_move_dest(gmap: GameMap, loc: str, dest: str) -> str | None:
    """Where a fleet at ``loc`` ordered to ``dest`` goes (coast resolved), or None if it cannot."""
    adj = gmap.fleet_adj.get(loc, ())
    prov = province(dest)
    coasts = gmap.fleet_locs.get(prov, ())
    if prov in gmap.bicoastal:
        if "/" in dest:
            return dest if dest in adj else None              # wrong coast fails (4.B.3)
        reachable = [c for c in coasts if c in adj]
        return reachable[0] if len(reachable) == 1 else None  # 4.B.1 / 4.B.2
    return prov if prov in adj else None                       # a coast on a one-coast province is ignored (4.B.5)


def convoy_reach(gmap: GameMap, fleets_at: set[str], start: str) -> set[str]:
    """Sea provinces holding a fleet reachable from coastal ``start`` through fleet-held seas."""
    seen: set[str] = set()
    frontier = [s for s in gmap.fleet_reach.get(start, ()) if s in fleets_at]
    seen.update(frontier)
    while frontier:
        s = frontier.pop()
        for t in gmap.fleet_reach[s]:
            if t in fleets_at and t not in seen:
                seen.add(t)
                frontier.append(t)
    return seen


def convoy_seas(gmap: GameMap, fleets_at: set[str], src: str, dest: str, limit: int = 20000) -> set[str]:
    """The seas (holding fleets) that lie on some simple convoy route from ``src`` to ``dest``."""
    if src == dest or src not in gmap.is_coastal or dest not in gmap.is_coastal:
        return set()
    reach = gmap.fleet_reach
    on_route: set[str] = set()
    path: list[str] = []
    budget = [limit]

    def walk(s: str) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            return
        path.append(s)
        if dest in reach[s]:
            on_route.update(path)
        for t in reach[s]:
            if t in fleets_at and t not in path:
                walk(t)
        path.pop()

    for s in sorted(reach[src]):
        if s in fleets_at:
            walk(s)
    return on_route


def convoy_possible(gmap: GameMap, fleets_at: set[str], src: str, dest: str, through: str | None = None) -> bool:
    """Could an army in ``src`` be convoyed to ``dest`` by fleets in the seas ``fleets_at``
    (through the sea ``through`` if given)?"""
    if through is None:
        if src == dest or src not in gmap.is_coastal or dest not in gmap.is_coastal:
            return False
        a = convoy_reach(gmap, fleets_at, src)
        return bool(a) and any(dest in gmap.fleet_reach[s] for s in a)
    return through in convoy_seas(gmap, fleets_at, src, dest)


def supporter_reaches(gmap: GameMap, utype: str, loc: str, prov: str) -> bool:
    if utype == "AMY":
        return prov in gmap.army_adj.get(loc, ())
    return any(province(t) == prov for t in gmap.fleet_adj.get(loc, ()))


def unit_can_reach(gmap: GameMap, fleets_at: set[str], utype: str, loc: str, prov: str) -> bool:
    """Could this unit move to ``prov`` this turn (by land, by sea, or by some convoy)?"""
    if utype == "FLT":
        return any(province(t) == prov for t in gmap.fleet_adj.get(loc, ()))
    return prov in gmap.army_adj.get(loc, ()) or convoy_possible(gmap, fleets_at, loc, prov)
