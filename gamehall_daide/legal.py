"""Legal orders of a power in a position, as DAIDE texts (what the random bot draws from).

Generated directly from the adjacency tables (not by trying every text), so
it is cheap enough to call every phase.  Convoys are generated through one
fleet only; longer convoy chains are legal orders this list leaves out.
"""
from __future__ import annotations

from .mapdata import loc_text, province
from .position import ADJUSTMENTS, MOVEMENT, RETREATS, Position, unit_text


def _u(u: tuple) -> str:
    return f"( {unit_text(*u)} )"


def legal_orders(pos: Position, power: str) -> dict[str, list[str]]:
    """Unit text (or "builds" / "removals") -> legal order texts for ``power``."""
    g = pos.gmap
    out: dict[str, list[str]] = {}
    if pos.phase == MOVEMENT:
        units = pos.units
        fleets_at_sea = {p for p, u in units.items() if u[1] == "FLT" and p in g.is_sea}
        for prov, u in sorted(units.items()):
            if u[0] != power:
                continue
            me = _u(u)
            _, utype, loc = u
            opts = [f"{me} HLD"]
            adj = g.army_adj[loc] if utype == "AMY" else g.fleet_adj[loc]
            opts += [f"{me} MTO {loc_text(d)}" for d in sorted(adj)]
            reach = g.army_adj[loc] if utype == "AMY" else {province(d) for d in g.fleet_adj[loc]}
            for q in sorted(reach):
                other = units.get(q)
                if other is not None:
                    opts.append(f"{me} SUP {_u(other)}")
                for q2, other in units.items():          # moves into q by units next to it
                    if q2 == prov or q2 == q:
                        continue
                    oadj = g.army_adj[other[2]] if other[1] == "AMY" else g.fleet_reach_loc[other[2]]
                    if q in oadj:
                        opts.append(f"{me} SUP {_u(other)} MTO {q}")
            if utype == "FLT" and prov in g.is_sea:
                seas_adj = g.fleet_reach[prov]
                for a in sorted(seas_adj):
                    army = units.get(a)
                    if army is None or army[1] != "AMY":
                        continue
                    for d in sorted(seas_adj):
                        if d != a and d in g.is_coastal:
                            opts.append(f"{me} CVY {_u(army)} CTO {d}")
            if utype == "AMY" and prov in g.is_coastal:
                for sea in sorted(g.fleet_reach[prov]):
                    if sea in fleets_at_sea:
                        for d in sorted(g.fleet_reach[sea]):
                            if d != prov and d in g.is_coastal:
                                opts.append(f"{me} CTO {d} VIA ( {sea} )")
            out[unit_text(*u)] = opts
    elif pos.phase == RETREATS:
        for prov, d in sorted(pos.dislodged.items()):
            if d[0] != power:
                continue
            me = _u(d[:3])
            out[unit_text(*d[:3])] = [f"{me} RTO {loc_text(x)}" for x in d[3]] + [f"{me} DSB"]
    elif pos.phase == ADJUSTMENTS:
        room = pos.build_room(power)
        if room > 0:
            builds = []
            for h in g.homes[power]:
                if pos.owners.get(h) == power and h not in pos.units:
                    if h in g.is_land:
                        builds.append(f"( {power} AMY {h} ) BLD")
                    builds += [f"( {power} FLT {loc_text(x)} ) BLD" for x in g.fleet_locs[h]]
            out["builds"] = builds + [f"{power} WVE"]
        elif room < 0:
            out["removals"] = [f"{_u(u)} REM" for p, u in sorted(pos.units.items()) if u[0] == power]
    return out
