"""A Diplomacy position and its phases: orders in, adjudication, retreats, adjustments.

This is the rules state without seats, players or deadlines (``game.py`` adds
those).  Seasons follow DAIDE: SPR and FAL are movement, SUM and AUT retreats,
WIN adjustments.  Builds and removals are checked one by one as they come
(DATC 4.D.4/4.D.6 preferred); missing removals at the deadline are made by
civil disorder: farthest from home first (distance over any unit's moves, a
sea area counting one, DATC 4.D.8), fleets before armies, then alphabetically.
"""
from __future__ import annotations

from dataclasses import replace

from .adjudicator import adjudicate_movement, retreat_options
from .mapdata import GameMap, loc_text, province
from .orders import (BUILD_KINDS, MOVE_KINDS, RETREAT_KINDS, Order, OrderError, convoy_possible, fleet_move_dest,
                     parse_order, supporter_reaches, unit_can_reach)
from .text import TextError, parse

SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")
MOVEMENT, RETREATS, ADJUSTMENTS = "M", "R", "A"
#: notes an order is accepted despite under AOA: it is the power's own unit, only impossible
AOA_NOTES = frozenset({"FAR", "NSF", "NAS", "NSA"})
PHASE_OF = {"SPR": MOVEMENT, "FAL": MOVEMENT, "SUM": RETREATS, "AUT": RETREATS, "WIN": ADJUSTMENTS}


def unit_text(power: str, utype: str, loc: str) -> str:
    return f"{power} {utype} {loc_text(loc)}"


class Position:
    """Units, dislodged units, centre ownership, the turn and this phase's orders."""

    def __init__(self, gmap: GameMap):
        self.gmap = gmap
        self.season, self.year = gmap.start_turn
        self.units: dict[str, tuple[str, str, str]] = {}
        for power, utype, loc in gmap.start_units:
            self.units[province(loc)] = (power, utype, loc)
        self.owners: dict[str, str] = dict(gmap.start_owners)
        # province -> (power, type, loc, retreat options)
        self.dislodged: dict[str, tuple[str, str, str, tuple[str, ...]]] = {}
        self.orders: dict[str, Order] = {}           # movement/retreats: province -> order
        self.builds: dict[str, list[Order]] = {}     # adjustments: power -> orders in submission order
        # DAIDE's AOA ("any orders accepted"): movement orders that are impossible in the position
        # are accepted (THX MBV) but adjudicated as holds, with the result NSO (DATC 4.E.1)
        self.aoa = False
        self.waive_unplaceable = True    # WVE for builds with no free home centre too (DAIDE)
        self.void: set[str] = set()                  # provinces whose stored order is such an order

    # ------------------------------------------------------------ state
    @property
    def phase(self) -> str:
        return PHASE_OF[self.season]

    def to_dict(self) -> dict:
        return {"season": self.season, "year": self.year,
                "units": [[p, u, l] for p, u, l in (self.units[k] for k in sorted(self.units))],
                "owners": dict(sorted(self.owners.items())),
                "dislodged": [[p, u, l, list(opts)] for p, u, l, opts in
                              (self.dislodged[k] for k in sorted(self.dislodged))],
                "orders": [o.text() for _, o in sorted(self.orders.items())],
                "aoa": self.aoa, "void": sorted(self.void),
                "builds": [o.text() for p in sorted(self.builds) for o in self.builds[p]]}

    @classmethod
    def from_dict(cls, gmap: GameMap, d: dict) -> "Position":
        pos = cls(gmap)
        pos.season, pos.year = d["season"], d["year"]
        pos.units = {province(l): (p, u, l) for p, u, l in d["units"]}
        pos.owners = dict(d["owners"])
        pos.dislodged = {province(l): (p, u, l, tuple(opts)) for p, u, l, opts in d["dislodged"]}
        for text in d.get("orders", []) + d.get("builds", []):
            order = parse_order(gmap, parse(text))
            pos.store(order)
        pos.aoa = bool(d.get("aoa", False))
        pos.void = set(d.get("void", []))
        return pos

    def centres(self, power: str) -> int:
        return sum(1 for o in self.owners.values() if o == power)

    def unit_count(self, power: str) -> int:
        return sum(1 for u in self.units.values() if u[0] == power)

    def alive(self) -> list[str]:
        return [p for p in self.gmap.powers if self.centres(p) or self.unit_count(p)]

    def build_room(self, power: str) -> int:
        """Builds owed (positive), removals owed (negative) this adjustment phase, before orders."""
        diff = self.centres(power) - self.unit_count(power)
        if diff > 0:
            free = sum(1 for h in self.gmap.homes[power] if self.owners.get(h) == power and h not in self.units)
            return min(diff, free)
        return diff

    # ----------------------------------------------------------- orders
    def submit(self, power: str, text_or_tree) -> tuple[str, Order | None]:
        """Check one order for ``power``; store it when valid.  (note, order)."""
        try:
            tree = parse(text_or_tree) if isinstance(text_or_tree, str) else text_or_tree
        except TextError:
            return "NSU", None
        try:
            order = parse_order(self.gmap, tree)
        except OrderError as exc:
            return exc.note, None
        try:
            order = self.check(power, order)
        except OrderError as exc:
            if not (self.aoa and exc.note in AOA_NOTES and self.phase == MOVEMENT):
                return exc.note, None
            self.store(order)
            self.void.add(order.prov)
            return "MBV", order
        self.store(order)
        return "MBV", order

    def store(self, order: Order) -> None:
        order.text()                       # computed now, not while adjudicating
        if order.kind in BUILD_KINDS:
            mine = self.builds.setdefault(order.power, [])
            if order.kind != "REM" or order not in mine:
                mine.append(order)
        else:
            self.orders[order.prov] = order
            self.void.discard(order.prov)

    def cancel(self, power: str, text: str | None = None) -> bool:
        """Withdraw one order (by text) or all of ``power``'s orders; was anything withdrawn?"""
        if text is None:
            had = bool(self.builds.pop(power, None))
            for p in [p for p, o in self.orders.items() if o.power == power]:
                del self.orders[p]
                self.void.discard(p)
                had = True
            return had
        try:
            order = parse_order(self.gmap, parse(text))
        except (TextError, OrderError):
            return False
        try:
            order = self.check(power, order)          # the form it was stored in (coasts resolved)
        except OrderError:
            pass
        if order.kind in BUILD_KINDS:
            lst = self.builds.get(power, [])
            if order in lst:
                lst.remove(order)
                return True
            return False
        stored = self.orders.get(order.prov)
        if order.power == power and stored is not None and stored.text() == order.text():
            del self.orders[order.prov]
            self.void.discard(order.prov)
            return True
        return False

    def check(self, power: str, o: Order) -> Order:
        """The order as it will be adjudicated (coasts resolved); OrderError with the note if refused."""
        phase = self.phase
        kinds = MOVE_KINDS if phase == MOVEMENT else RETREAT_KINDS if phase == RETREATS else BUILD_KINDS
        if o.kind not in kinds:
            raise OrderError("NRS")
        if phase == MOVEMENT:
            return self._check_move(power, o)
        if phase == RETREATS:
            return self._check_retreat(power, o)
        return self._check_build(power, o)

    def _own_unit(self, power: str, o: Order, units: dict) -> Order:
        """The order with the unit as on the board: a wrong coast for the ordered fleet's own
        location is corrected (DATC 6.B.10 preference)."""
        u = units.get(o.prov)
        if u is None or u[:2] != (o.power, o.utype):
            raise OrderError("NSU")
        if o.power != power:
            raise OrderError("NYU")
        if u[2] != o.loc:
            o = replace(o, loc=u[2])
        return o

    def _fleets_at_sea(self) -> set[str]:
        sea = self.gmap.is_sea
        return {p for p, u in self.units.items() if u[1] == "FLT" and p in sea}

    def _check_move(self, power: str, o: Order) -> Order:
        g = self.gmap
        o = self._own_unit(power, o, self.units)
        k = o.kind
        if k == "HLD":
            return o
        if k == "MTO":
            if o.utype == "AMY":
                if "/" in o.dest:                                   # an army ignores a coast (4.B.5)
                    o = Order("MTO", o.power, o.utype, o.loc, dest=province(o.dest))
                if o.dest not in g.army_adj[o.loc]:
                    raise OrderError("FAR")
                return o
            dest = fleet_move_dest(g, o.loc, o.dest)
            if dest is None:
                raise OrderError("FAR")
            return Order("MTO", o.power, o.utype, o.loc, dest=dest)
        if k == "SUP":
            t = self.units.get(o.target)
            if t is None or t != o.target_unit:
                raise OrderError("NSU")
            if o.target == o.prov:
                raise OrderError("FAR")
            aim = province(o.dest) or o.target
            if aim == o.prov or not supporter_reaches(g, o.utype, o.loc, aim):
                raise OrderError("FAR")
            if o.dest and not unit_can_reach(g, self._fleets_at_sea(), t[1], t[2], aim):
                raise OrderError("FAR")
            return o
        if k == "CVY":
            if o.utype != "FLT":
                raise OrderError("NSF")
            if o.prov not in g.is_sea:
                raise OrderError("NAS")
            t = self.units.get(o.target)
            if t is None or t != o.target_unit:
                raise OrderError("NSU")
            if t[1] != "AMY":
                raise OrderError("NSA")
            if not convoy_possible(g, self._fleets_at_sea(), o.target, o.dest, through=o.prov):
                raise OrderError("FAR")
            return o
        # CTO
        if o.utype != "AMY":
            raise OrderError("NSA")
        fleets = self._fleets_at_sea()
        if o.via:
            chain = (o.prov,) + o.via + (o.dest,)
            for sea in o.via:
                u = self.units.get(sea)
                if u is None or u[1] != "FLT":
                    raise OrderError("NSF")
                if sea not in g.is_sea:
                    raise OrderError("NAS")
            for a, b in zip(chain, chain[1:]):
                if b not in g.fleet_reach[a] and a not in g.fleet_reach.get(b, ()):
                    raise OrderError("FAR")
            if o.dest == o.prov or o.dest not in g.is_coastal:
                raise OrderError("FAR")
            return o
        if not convoy_possible(g, fleets, o.prov, o.dest):
            raise OrderError("FAR")
        return o

    def _check_retreat(self, power: str, o: Order) -> Order:
        d = self.dislodged.get(o.prov)
        if d is None or d[:3] != (o.power, o.utype, o.loc):
            if o.prov in self.units and self.units[o.prov] == (o.power, o.utype, o.loc):
                raise OrderError("NRN")
            raise OrderError("NSU")
        if o.power != power:
            raise OrderError("NYU")
        if o.kind == "DSB":
            return o
        options = d[3]
        dest = o.dest
        if dest not in options:
            if o.utype == "AMY" and province(dest) in options:
                dest = province(dest)
            elif o.utype == "FLT" and "/" not in dest:
                matches = [x for x in options if province(x) == dest]
                if len(matches) != 1:
                    raise OrderError("NVR")
                dest = matches[0]
            else:
                raise OrderError("NVR")
        return Order("RTO", o.power, o.utype, o.loc, dest=dest)

    def _check_build(self, power: str, o: Order) -> Order:
        g = self.gmap
        if o.power != power:
            raise OrderError("NYU")
        room = self.build_room(power)
        mine = self.builds.get(power, [])
        if o.kind == "REM":
            u = self.units.get(o.prov)
            if u is None or u != (o.power, o.utype, o.loc):
                raise OrderError("NSU")
            if o in mine:                    # the same removal twice is one removal (DATC 6.J.2)
                return o
            if room >= 0 or sum(1 for x in mine if x.kind == "REM") >= -room:
                raise OrderError("NMR")
            return o
        # every unused build is waived, even one that cannot be placed (no free home centre):
        # WVE counts against the builds owed by centres, BLD also against the usable ones
        owed = self.centres(power) - self.unit_count(power) if self.waive_unplaceable else room
        if owed <= 0 or sum(1 for x in mine if x.kind in ("BLD", "WVE")) >= owed:
            raise OrderError("NMB")
        if o.kind == "WVE":
            return o
        if room <= 0 or sum(1 for x in mine if x.kind == "BLD") >= room:
            raise OrderError("NMB")
        prov = o.prov
        if prov not in g.centres:
            raise OrderError("NSC")
        if prov not in g.homes[power]:
            raise OrderError("HSC")
        if self.owners.get(prov) != power:
            raise OrderError("YSC")
        if prov in self.units or any(x.kind == "BLD" and x.prov == prov for x in mine):
            raise OrderError("ESC")
        if o.utype == "AMY":
            if "/" in o.loc or prov not in g.is_land:
                raise OrderError("CST")
        elif o.loc not in g.fleet_adj:                       # inland, or no coast on a two-coast province
            raise OrderError("CST")
        return o

    # ------------------------------------------------------------ missing
    def missing_units(self, power: str) -> list:
        """Units still to order this phase (movement/retreats), or the adjustment count owed."""
        if self.phase == MOVEMENT:
            return [u for p, u in sorted(self.units.items()) if u[0] == power and p not in self.orders]
        if self.phase == RETREATS:
            return [d for p, d in sorted(self.dislodged.items()) if d[0] == power and p not in self.orders]
        return []

    def adjustments_owed(self, power: str) -> int:
        """Builds still to order (negative, DAIDE MIS sign) or removals (positive)."""
        room = self.build_room(power)
        mine = self.builds.get(power, [])
        if room > 0:
            return -max(0, room - sum(1 for x in mine if x.kind in ("BLD", "WVE")))
        if room < 0:
            return -room - sum(1 for x in mine if x.kind == "REM")
        return 0

    def complete(self, power: str) -> bool:
        if self.phase == ADJUSTMENTS:
            return self.adjustments_owed(power) == 0
        return not self.missing_units(power)

    def has_work(self, power: str) -> bool:
        """Has ``power`` anything to order in this phase at all?"""
        if self.phase == MOVEMENT:
            return any(u[0] == power for u in self.units.values())
        if self.phase == RETREATS:
            return any(d[0] == power for d in self.dislodged.values())
        return self.build_room(power) != 0

    # ----------------------------------------------------------- process
    def process(self) -> list[tuple[str, list[str]]]:
        """Adjudicate the phase with the orders given (defaults for the rest) and advance the
        turn to the next phase (skipping empty retreat/adjustment phases);
        the (order text, result tokens) pairs, in DAIDE ORD order."""
        phase = self.phase
        if phase == MOVEMENT:
            out = self._process_movement()
        elif phase == RETREATS:
            out = self._process_retreats()
        else:
            out = self._process_adjustments()
        self.orders = {}
        self.builds = {}
        self.void = set()
        self._advance()
        return out

    def _process_movement(self) -> list:
        g = self.gmap
        orders = self.orders              # only ever orders for units on the board
        void = self.void
        res = adjudicate_movement(g, self.units, {p: o for p, o in orders.items() if p not in void}
                                  if void else orders)
        old = self.units
        new: dict[str, tuple] = {}
        prov_of = g.prov_of
        for p, u in old.items():
            if p in res.moved:
                loc = res.moved[p]
                new[prov_of[loc]] = (u[0], u[1], loc)
            elif p not in res.dislodged:
                new[p] = u
        dislodged = {}
        for p, (attacker, by_convoy) in res.dislodged.items():
            power, utype, loc = old[p]
            opts = retreat_options(g, new, utype, loc, attacker, by_convoy, res.standoffs)
            dislodged[p] = (power, utype, loc, opts)
        out = []
        for p in sorted(old):
            o = orders.get(p) or Order("HLD", *old[p])
            r = res.results[p]
            if p in void:                   # accepted under AOA, adjudicated as a hold
                r = ["NSO"] + [t for t in r if t == "RET"]
            out.append((o.text(), r))
        self.units = new
        self.dislodged = dislodged
        return out

    def _process_retreats(self) -> list:
        targets: dict[str, list[str]] = {}
        for p, d in self.dislodged.items():
            o = self.orders.get(p)
            if o is not None and o.kind == "RTO":
                targets.setdefault(province(o.dest), []).append(p)
        out = []
        for p, d in sorted(self.dislodged.items()):
            power, utype, loc, _ = d
            o = self.orders.get(p) or Order("DSB", power, utype, loc)
            if o.kind == "RTO":
                dest = province(o.dest)
                if len(targets[dest]) == 1:
                    self.units[dest] = (power, utype, o.dest)
                    out.append((o.text(), ["SUC"]))
                else:
                    out.append((o.text(), ["BNC"]))
            else:
                out.append((o.text(), ["SUC"]))
        self.dislodged = {}
        return out

    def _process_adjustments(self) -> list:
        out = []
        for power in self.gmap.powers:
            room = self.build_room(power)
            mine = self.builds.get(power, [])
            if room > 0:
                made = 0
                for o in mine:
                    if o.kind == "BLD":
                        self.units[o.prov] = (power, o.utype, o.loc)
                    out.append((o.text(), ["SUC"]))
                    made += 1
                for _ in range(room - made):                 # unordered builds are waived
                    out.append((f"{power} WVE", ["SUC"]))
            elif room < 0:
                removed = []
                for o in mine:
                    if o.kind == "REM":
                        removed.append(o.prov)
                        out.append((o.text(), ["SUC"]))
                for p in self.disorder_removals(power, -room - len(removed), exclude=set(removed)):
                    u = self.units[p]
                    out.append((f"( {unit_text(*u)} ) REM", ["SUC"]))
                    removed.append(p)
                for p in removed:
                    del self.units[p]
        return out

    def disorder_removals(self, power: str, count: int, exclude: set = frozenset()) -> list[str]:
        """Provinces of the units civil disorder removes: farthest from home first, fleets
        before armies, then alphabetically by province."""
        g = self.gmap
        mine = [(p, u) for p, u in self.units.items() if u[0] == power and p not in exclude]
        mine.sort(key=lambda pu: (-g.home_distance(power, pu[0], pu[1][1]), pu[1][1] != "FLT", pu[0]))
        return [p for p, _ in mine[:max(0, count)]]

    def _advance(self) -> None:
        """Next season; after autumn, centres change hands; skip phases nobody has to act in."""
        while True:
            i = SEASONS.index(self.season)
            if self.season == "WIN":
                self.season, self.year = "SPR", self.year + 1
            else:
                self.season = SEASONS[i + 1]
            if self.season == "WIN":
                self.update_owners()
            ph = self.phase
            if ph == RETREATS and not self.dislodged:
                continue
            if ph == ADJUSTMENTS and not self._any_adjustment():
                continue
            return

    def _any_adjustment(self) -> bool:
        """Has any power a build or removal to make (``build_room`` != 0 for some power)?"""
        count: dict[str, int] = {}
        for o in self.owners.values():
            count[o] = count.get(o, 0) + 1
        for u in self.units.values():
            count[u[0]] = count.get(u[0], 0) - 1
        return any(diff < 0 or (diff > 0 and self.build_room(p) > 0) for p, diff in count.items())

    def update_owners(self) -> None:
        centres, owners = self.gmap.centres, self.owners
        for p, u in self.units.items():
            if p in centres:
                owners[p] = u[0]

    # ---------------------------------------------------------------- texts
    def now_text(self) -> str:
        parts = [f"NOW ( {self.season} {self.year} )"]
        order = {p: i for i, p in enumerate(self.gmap.powers)}
        for p in sorted(self.units, key=lambda q: (order[self.units[q][0]], q)):
            parts.append(f"( {unit_text(*self.units[p])} )")
        for p in sorted(self.dislodged, key=lambda q: (order[self.dislodged[q][0]], q)):
            power, utype, loc, opts = self.dislodged[p]
            parts.append(f"( {unit_text(power, utype, loc)} MRT ( {' '.join(loc_text(x) for x in opts)} ) )")
        return " ".join(parts)

    def sco_text(self) -> str:
        parts = ["SCO"]
        for power in self.gmap.powers:
            mine = sorted(c for c, o in self.owners.items() if o == power)
            if mine:
                parts.append(f"( {power} {' '.join(mine)} )")
        neutral = sorted(c for c in self.gmap.centres if c not in self.owners)
        if neutral:
            parts.append(f"( UNO {' '.join(neutral)} )")
        return " ".join(parts)
