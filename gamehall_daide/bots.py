"""Computer players (gamehall.interfaces.IBot): ``hold``, ``random`` and ``strong``.

Each ``choose(engine, seat)`` returns ``{"submit": [order texts]}`` completing
that seat's orders for the phase.  Pure: all randomness from the bot's seed.

``strong`` is DumbBot-like: every province gets a value (centres it does not
own are worth taking, its own centres worth guarding in proportion to the
enemies next to them), the values are spread to neighbours by proximity, and
each unit goes to the best-valued place nobody of its own has claimed; units
that stay put support the moves and holds next to them.
"""
from __future__ import annotations

import functools
import random

from zope.interface import implementer

from gamehall.interfaces import IBot

from .mapdata import loc_text, province
from .position import MOVEMENT, RETREATS, unit_text


def _u(u) -> str:
    return f"( {unit_text(*u)} )"


@functools.lru_cache(maxsize=None)
def _sorted_adjacency(gmap, utype: str) -> dict[str, tuple[str, ...]]:
    """Province -> neighbours (by unit type) in a fixed order: sums over sets would otherwise
    depend on the interpreter's hash seed, and so would the bot's choices."""
    adj = gmap.army_adj if utype == "AMY" else gmap.fleet_reach
    return {p: tuple(sorted(ns)) for p, ns in adj.items()}


@implementer(IBot)
class HoldBot:
    """Holds, disbands, waives (and lets civil disorder pick removals)."""

    def __init__(self, seed: int = 0):
        self.seed = seed

    def choose(self, engine, seat: int) -> dict:
        return {"submit": engine.default_orders(engine.powers[seat])}


@implementer(IBot)
class RandomBot:
    """A random legal order for each unit; random builds and removals."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, engine, seat: int) -> dict:
        power = engine.powers[seat]
        pos = engine.pos
        rng = self.rng
        done = {unit_text(o.power, o.utype, o.loc) for o in pos.orders.values() if o.power == power}
        orders = []
        for key, opts in engine.legal_orders(power).items():
            if key == "builds":
                owed = -pos.adjustments_owed(power)
                builds = opts[:-1]
                rng.shuffle(builds)
                used: set[str] = set()
                for b in builds:
                    p = b.split()[3] if b.split()[3] != "(" else b.split()[4]
                    if len(orders) < owed and p not in used:
                        used.add(p)
                        orders.append(b)
                orders += [opts[-1]] * (owed - len(orders))
            elif key == "removals":
                orders += rng.sample(opts, pos.adjustments_owed(power))
            elif key not in done:
                orders.append(rng.choice(opts))
        return {"submit": orders}


class StrongBot:
    """Province values by centre worth and proximity; greedy moves with supports."""

    WEIGHTS = (1000, 300, 120, 50, 20, 8)

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    # ------------------------------------------------------------ values
    def _base(self, engine, power: str) -> dict[str, float]:
        pos, g = engine.pos, engine.gmap
        sizes = {p: pos.centres(p) for p in g.powers}
        enemy_near: dict[str, int] = {}
        for prov, u in pos.units.items():
            if u[0] != power:
                adj = g.army_adj[u[2]] if u[1] == "AMY" else g.fleet_reach_loc[u[2]]
                for q in adj:
                    enemy_near[q] = enemy_near.get(q, 0) + 1
        base = {}
        can_build = pos.centres(power) > pos.unit_count(power)
        homes = set(g.homes[power])
        for p in g.provinces:
            if p in g.centres:
                owner = pos.owners.get(p)
                if owner == power:
                    base[p] = 4.0 * enemy_near.get(p, 0)      # worth guarding only when threatened
                    if can_build and p in homes and not enemy_near.get(p):
                        base[p] = -3.0                          # leave it free to build there
                elif owner is None:
                    base[p] = 10.0
                else:
                    base[p] = 6.0 + sizes[owner] * 0.5
            else:
                base[p] = 0.0
        return base

    def _spread(self, engine, base: dict[str, float], utype: str) -> dict[str, float]:
        g = engine.gmap
        adj = _sorted_adjacency(g, utype)
        total = {p: base[p] * self.WEIGHTS[0] for p in base}
        cur = base
        for w in self.WEIGHTS[1:]:
            nxt = {}
            for p in cur:
                ns = adj.get(p, ())
                nxt[p] = (cur[p] + sum(cur[q] for q in ns)) / (1 + len(ns)) if ns else 0.0
            for p in nxt:
                total[p] += nxt[p] * w
            cur = nxt
        if utype == "FLT":
            for p in g.provinces:
                if not g.fleet_locs[p]:
                    total[p] = -1e9
        else:
            for p in g.is_sea:
                total[p] = -1e9
        return total

    # ------------------------------------------------------------ orders
    def choose(self, engine, seat: int) -> dict:
        power = engine.powers[seat]
        pos = engine.pos
        if pos.phase == MOVEMENT:
            return {"submit": self._moves(engine, power)}
        base = self._base(engine, power)
        values = {t: self._spread(engine, base, t) for t in ("AMY", "FLT")}
        if pos.phase == RETREATS:
            orders = []
            taken: set[str] = set()
            for d in pos.missing_units(power):
                opts = [x for x in d[3] if province(x) not in taken]
                if opts:
                    best = max(opts, key=lambda x: (values[d[1]][province(x)], x))
                    taken.add(province(best))
                    orders.append(f"{_u(d[:3])} RTO {loc_text(best)}")
                else:
                    orders.append(f"{_u(d[:3])} DSB")
            return {"submit": orders}
        owed = pos.adjustments_owed(power)
        g = engine.gmap
        if owed < 0:
            orders = []
            homes = [h for h in g.homes[power] if pos.owners.get(h) == power and h not in pos.units
                     and not any(o.kind == "BLD" and o.prov == h for o in pos.builds.get(power, []))]
            homes.sort(key=lambda h: -max(values["AMY"].get(h, 0), values["FLT"].get(h, 0)))
            for h in homes[:-owed]:
                fleet_locs = g.fleet_locs[h]
                fleets = self._fleets(engine, power) + sum(1 for o in orders if " FLT " in o)
                armies = self._armies(engine, power) + sum(1 for o in orders if " AMY " in o)
                # armies take the inland centres: a fleet only where the sea pays, at most a third
                if fleet_locs and (h not in g.is_land or not self._land_targets(engine, power, h)
                                   or (values["FLT"][h] > values["AMY"][h] and fleets * 2 < armies + 1)):
                    loc = max(fleet_locs, key=lambda c: (len(g.fleet_adj[c]), c))
                    orders.append(f"( {power} FLT {loc_text(loc)} ) BLD")
                else:
                    orders.append(f"( {power} AMY {h} ) BLD")
            orders += [f"{power} WVE"] * (-owed - len(orders))
            return {"submit": orders}
        if owed > 0:
            removed = {o.prov for o in pos.builds.get(power, []) if o.kind == "REM"}
            mine = [(p, u) for p, u in pos.units.items() if u[0] == power and p not in removed]
            mine.sort(key=lambda pu: (values[pu[1][1]][pu[0]], pu[0]))
            return {"submit": [f"{_u(u)} REM" for _, u in mine[:owed]]}
        return {"submit": []}

    @staticmethod
    def _land_targets(engine, power: str, home: str, depth: int = 3) -> int:
        """Centres not ours an army from ``home`` reaches over land within ``depth`` moves."""
        g, pos = engine.gmap, engine.pos
        seen, frontier = {home}, [home]
        for _ in range(depth):
            frontier = [q for p in frontier for q in g.army_adj[p] if q not in seen]
            seen.update(frontier)
        return sum(1 for p in seen if p in g.centres and pos.owners.get(p) != power)

    @staticmethod
    def _fleets(engine, power):
        return sum(1 for u in engine.pos.units.values() if u[0] == power and u[1] == "FLT")

    @staticmethod
    def _armies(engine, power):
        return sum(1 for u in engine.pos.units.values() if u[0] == power and u[1] == "AMY")

    def _moves(self, engine, power: str) -> list[str]:
        pos, g = engine.pos, engine.gmap
        rng = self.rng
        base = self._base(engine, power)
        autumn = pos.season == "FAL"
        values = {t: self._spread(engine, base, t) for t in ("AMY", "FLT")}
        mine = [(p, u) for p, u in sorted(pos.units.items()) if u[0] == power and p not in pos.orders]
        strength: dict[str, int] = {}            # enemy units able to enter a province
        for prov, u in pos.units.items():
            if u[0] != power:
                adj = g.army_adj[u[2]] if u[1] == "AMY" else g.fleet_reach_loc[u[2]]
                for q in adj:
                    strength[q] = strength.get(q, 0) + 1
        # free provinces next to an enemy-held centre we touch are where supporters stand
        flank: dict[str, float] = {}
        touching = set()
        for p, u in mine:
            adj = g.army_adj[u[2]] if u[1] == "AMY" else g.fleet_reach_loc[u[2]]
            touching |= adj
        for t in sorted(touching):            # float sums: a fixed order, whatever the hash seed
            occ = pos.units.get(t)
            if occ is not None and occ[0] != power and t in g.centres:
                for f in sorted(g.army_adj[t] | g.fleet_reach[t]):
                    if f not in pos.units:
                        flank[f] = flank.get(f, 0.0) + base[t] * self.WEIGHTS[1]
        choices = []
        for p, u in mine:
            vals = values[u[1]]
            adj = g.army_adj[u[2]] if u[1] == "AMY" else g.fleet_adj[u[2]]
            opts = [(p, u[2])] + [(province(d), d) for d in sorted(adj)]
            scored = []
            for dp, dloc in opts:
                v = (vals[dp] + flank.get(dp, 0.0)) * (1.0 + 0.3 * rng.random())
                occ = pos.units.get(dp)
                if dp != p and occ is not None and occ[0] == power:
                    v *= 0.5                                      # queueing behind our own unit
                if dp == p and autumn and dp in g.centres and pos.owners.get(dp) != power:
                    v *= 3                                        # sit on it to take it
                if strength.get(dp, 0) >= 2 and dp != p:
                    v *= 0.6
                scored.append((v, dp, dloc))
            scored.sort(reverse=True)
            choices.append((scored[0][0], p, u, scored))
        choices.sort(key=lambda c: (-c[0], c[1]))
        claimed: set[str] = set()
        chosen: dict[str, float] = {}            # province -> value of the planned move
        plan: dict[str, str] = {}                # province -> destination location (own province = hold)
        staying = set()
        for _, p, u, scored in choices:
            for v, dp, dloc in scored:
                if dp in claimed:
                    continue
                occupant = pos.units.get(dp)
                if dp != p and occupant is not None and occupant[0] == power and occupant != u:
                    # an own unit there: only if it has already planned to leave
                    if plan.get(dp, dp) == dp or dp in staying:
                        continue
                claimed.add(dp)
                plan[p] = dloc
                chosen[p] = v
                if dp == p:
                    staying.add(p)
                break
            else:
                plan[p] = u[2]
                chosen[p] = 0.0
                staying.add(p)
        # a unit idling where nothing threatens it wanders to a free neighbour half the time:
        # that breaks the stalemates a greedy plan falls into
        for p, u in mine:
            if p in staying and not strength.get(p, 0) and rng.random() < 0.5 and not (
                    autumn and p in g.centres and pos.owners.get(p) != power):
                adj = g.army_adj[u[2]] if u[1] == "AMY" else g.fleet_adj[u[2]]
                free = [d for d in sorted(adj) if province(d) not in claimed and province(d) not in pos.units]
                if free:
                    d = max(free, key=lambda x: (values[u[1]][province(x)], x))
                    claimed.discard(p)
                    claimed.add(province(d))
                    plan[p] = d
                    staying.discard(p)
        # armies with little to do on land go by sea, one fleet of ours carrying each
        convoy: dict[str, tuple[str, str]] = {}     # army province -> (destination, sea)
        carrying: dict[str, str] = {}               # sea -> army province
        for p, u in sorted(mine, key=lambda pu: (chosen[pu[0]], pu[0])):
            if u[1] != "AMY" or p not in g.is_coastal:
                continue
            best = None
            for sea in sorted(g.fleet_reach[p]):
                f = pos.units.get(sea)
                if f is None or f[0] != power or sea not in g.is_sea or sea in carrying or sea in pos.orders:
                    continue
                for d in sorted(g.fleet_reach[sea]):
                    if d == p or d not in g.is_coastal or d in claimed or d in pos.units:
                        continue
                    v = values["AMY"][d] + flank.get(d, 0.0)
                    if best is None or v > best[0]:
                        best = (v, d, sea)
            if best is not None and best[0] > chosen[p] * 1.5 and best[0] > chosen.get(best[2], 0.0) * 0.5:
                v, d, sea = best
                claimed.discard(province(plan[p]))
                claimed.discard(province(plan[sea]))
                claimed.update((d, sea))
                plan[p] = d
                plan[sea] = pos.units[sea][2]
                staying.add(sea)
                staying.discard(p)
                convoy[p] = (d, sea)
                carrying[sea] = p
        # attacks on occupied provinces get supporters: units that can reach the target and
        # whose own plan is worth less than the attack (a lone attack on a holder only bounces)
        sup_orders: dict[str, str] = {}
        value_of = {p: sc[0][0] for _, p, _, sc in choices}
        attacks = []
        for p, u in mine:
            dp = province(plan[p])
            if dp != p and (pos.units.get(dp) is not None and pos.units[dp][0] != power
                            or strength.get(dp, 0) >= 1):
                attacks.append((value_of[p], p, u, dp))
        attacks.sort(key=lambda a: (-a[0], a[1]))
        committed: set[str] = set()
        supports_move: dict[str, tuple[str, str]] = {}     # supporter -> (mover, destination)
        for v, p, u, dp in attacks:
            if p in sup_orders:
                continue
            occupied = pos.units.get(dp) is not None and pos.units[dp][0] != power
            need = 1 + min(strength.get(dp, 0), 2)
            helpers = []
            for q, w in mine:
                if q == p or q in sup_orders or q in committed or q in carrying or province(plan[q]) == dp:
                    continue
                reach = g.army_adj[w[2]] if w[1] == "AMY" else g.fleet_reach_loc[w[2]]
                qd = province(plan[q])
                queued = qd in pos.units and pos.units[qd][0] == power
                if dp in reach and (qd == q or queued or value_of[q] < v):
                    helpers.append(q)
            if not helpers and occupied:
                # a lone attack on a holder only bounces: stay, and help someone else
                claimed.discard(dp)
                plan[p] = u[2]
                staying.add(p)
                continue
            committed.add(p)
            helpers.sort(key=lambda q: (province(plan[q]) != q, value_of[q], q))
            for q in helpers[:need]:
                sup_orders[q] = f"{_u(pos.units[q])} SUP {_u(u)} MTO {dp}"
                supports_move[q] = (p, dp)
                plan[q] = pos.units[q][2]
        # units that gave up a lone attack support another attack they can reach
        for v, p, u, dp in attacks:
            if p in committed:
                for q in sorted(staying):
                    if q in sup_orders or q in carrying or q == p or pos.units[q][0] != power or q not in dict(mine):
                        continue
                    w = pos.units[q]
                    reach = g.army_adj[w[2]] if w[1] == "AMY" else g.fleet_reach_loc[w[2]]
                    if dp in reach:
                        sup_orders[q] = f"{_u(w)} SUP {_u(u)} MTO {dp}"
                        supports_move[q] = (p, dp)
        # units left holding support a threatened neighbour that holds
        supported: set[str] = set()
        for p, u in mine:
            if p in sup_orders or p in carrying or province(plan[p]) != p:
                continue
            reach = g.army_adj[u[2]] if u[1] == "AMY" else g.fleet_reach_loc[u[2]]
            for q in sorted(reach):
                if (q in pos.units and pos.units[q][0] == power and q != p and province(plan.get(q, "")) == q
                        and q not in sup_orders and strength.get(q, 0) >= 1 and q not in supported):
                    supported.add(q)
                    sup_orders[p] = f"{_u(u)} SUP {_u(pos.units[q])}"
                    break
        # a move into our own unit that stays (holds or supports) only bounces: hold instead
        changed = True
        while changed:
            changed = False
            for p, u in mine:
                dp = province(plan[p])
                if dp != p and dp in pos.units and pos.units[dp][0] == power and \
                        (dp in sup_orders or province(plan.get(dp, dp)) == dp):
                    # go to a free neighbour nobody of ours is going to, else stay
                    claimed.discard(dp)
                    adj = g.army_adj[u[2]] if u[1] == "AMY" else g.fleet_adj[u[2]]
                    free = [d for d in sorted(adj) if province(d) not in claimed and province(d) not in pos.units]
                    if free and p not in convoy:
                        d = max(free, key=lambda x: (values[u[1]][province(x)], x))
                        plan[p] = d
                        claimed.add(province(d))
                    else:
                        plan[p] = u[2]
                        claimed.add(p)
                    changed = True
            for q, (mover, dp) in list(supports_move.items()):
                if province(plan[mover]) != dp:          # the move it supported was called off
                    del supports_move[q]
                    del sup_orders[q]
                    changed = True
        orders = []
        for p, u in mine:
            if p in carrying:
                army = carrying[p]
                if army in convoy:
                    orders.append(f"{_u(u)} CVY {_u(pos.units[army])} CTO {convoy[army][0]}")
                else:
                    orders.append(f"{_u(u)} HLD")
            elif p in convoy:
                orders.append(f"{_u(u)} CTO {convoy[p][0]} VIA ( {convoy[p][1]} )")
            elif p in sup_orders:
                orders.append(sup_orders[p])
            elif province(plan[p]) == p:
                orders.append(f"{_u(u)} HLD")
            else:
                orders.append(f"{_u(u)} MTO {loc_text(plan[p])}")
        return orders


StrongBot = implementer(IBot)(StrongBot)

BOTS = ("strong", "random", "hold")
_CLASSES = {"strong": StrongBot, "random": RandomBot, "hold": HoldBot}


def make_bot(name: str, seed: int = 0):
    try:
        return _CLASSES[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; bots: {', '.join(BOTS)}") from None
