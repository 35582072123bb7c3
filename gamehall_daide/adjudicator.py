"""The movement-phase adjudicator.

Our own code after the method of L. B. Kruijswijk's "The Math of Adjudication":
every move, support and convoy order has one yes/no decision (move succeeds,
support given, convoying fleet not dislodged), resolved recursively from
attack / hold / defend / prevent strengths.  A decision reached while it is
being decided is guessed; when a guess feeds back into itself both guesses
are tried, and when both are consistent the cycle is a circular movement
(all moves in it succeed) or a convoy paradox, settled by the Szykman rule
(DATC 4.A.2 d, preferred): the convoyed armies in the paradox do not move and
cut no support.

Options (DATC section 4 preferences): a convoy is disrupted only when every
route is (4.A.1 b); an army ordered over land to an adjacent province goes
by convoy when a fleet of its own power is ordered to convoy it there
(4.A.3 d, the 1982/2000 "intent" rule; DAIDE's CTO is always by convoy);
a convoyed attack from the province a support is directed at does not cut
it (4.A.4 a); a unit dislodged by a convoyed army may retreat to where that
army came from (4.A.5 b); a unit dislodged without a head-to-head battle
still bounces others (4.A.7 b).
"""
from __future__ import annotations

from .mapdata import GameMap

UNRESOLVED, GUESSING, RESOLVED = 0, 1, 2


class MovementResult:
    """What the phase did: per unit province the DAIDE result tokens, where units went,
    which were dislodged (and from where the attacker came) and the standoff provinces."""

    __slots__ = ("results", "moved", "dislodged", "standoffs")

    def __init__(self):
        self.results: dict[str, list[str]] = {}
        self.moved: dict[str, str] = {}           # from province -> new location
        self.dislodged: dict[str, tuple[str, bool]] = {}   # province -> (attacker's province, by convoy)
        self.standoffs: set[str] = set()


class _Resolver:
    def __init__(self, gmap: GameMap, units: dict, orders: dict, order=None):
        self.gmap = gmap
        prov_of = gmap.prov_of
        provs = list(order) if order is not None else sorted(units)
        n = len(provs)
        self.provs = provs
        at = {p: i for i, p in enumerate(provs)}
        self.at = at
        us = [units[p] for p in provs]
        power = self.power = [u[0] for u in us]
        utype = self.utype = [u[1] for u in us]
        kind = ["HLD"] * n
        dest = [""] * n            # MTO/CTO: destination province; SUP-MTO/CVY: destination province
        dest_loc = [""] * n        # MTO: destination location (coast)
        target = [-1] * n          # SUP/CVY: index of the other unit
        is_move = [False] * n
        moves, sups, cvys = [], [], []
        sup_coast: dict[int, str] = {}     # SUP-MTO naming a coast: that location
        for p, o in orders.items():
            i = at.get(p)
            if i is None:
                continue
            k = o.kind
            if k == "MTO":
                kind[i], dest[i], dest_loc[i], is_move[i] = k, prov_of[o.dest], o.dest, True
                moves.append(i)
            elif k == "CTO":
                kind[i], dest[i], dest_loc[i], is_move[i] = k, o.dest, o.dest, True
                moves.append(i)
            elif k == "SUP" or k == "CVY":
                j = at.get(o.target)
                if j is None:
                    continue
                d = o.dest
                if "/" in d:
                    sup_coast[i] = d
                    d = prov_of.get(d, d)
                kind[i], dest[i], target[i] = k, d, j
                (sups if k == "SUP" else cvys).append(i)
        self.kind, self.dest, self.dest_loc, self.target = kind, dest, dest_loc, target
        self.is_move = is_move
        # convoys that match their army's order (sparse: army -> its convoying fleets)
        convoyers: dict[int, list[int]] = {}
        valid = [True] * n
        is_sea = gmap.is_sea
        for i in cvys:
            j = target[i]
            ok = (is_move[j] and dest[j] == dest[i] and utype[j] == "AMY"
                  and provs[i] in is_sea and utype[i] == "FLT")
            valid[i] = ok
            if ok:
                convoyers.setdefault(j, []).append(i)
        self.convoyers = convoyers
        # by convoy: CTO always; MTO when a fleet of its own power convoys it (4.A.3 d) and a route exists
        convoyed = [False] * n
        moves_into: dict[str, list[int]] = {}
        for i in moves:
            if kind[i] == "CTO":
                convoyed[i] = True
            elif i in convoyers and any(power[f] == power[i] for f in convoyers[i]):
                convoyed[i] = self._route(provs[i], dest[i], {provs[f] for f in convoyers[i]})
            lst = moves_into.get(dest[i])
            if lst is None:
                moves_into[dest[i]] = [i]
            else:
                lst.append(i)
        self.convoyed = convoyed
        self.moves_into = moves_into
        h2h = [-1] * n
        for i in moves:
            if not convoyed[i]:
                j = at.get(dest[i])
                if j is not None and is_move[j] and not convoyed[j] and dest[j] == provs[i]:
                    h2h[i] = j
        self.h2h = h2h
        hold_sup: dict[int, list[int]] = {}
        move_sup: dict[int, list[int]] = {}
        for i in sups:
            j = target[i]
            if dest[i]:
                # a coast named in a support must be the mover's (DATC 6.B.9 preference)
                ok = is_move[j] and dest[j] == dest[i] and (i not in sup_coast or sup_coast[i] == dest_loc[j])
                if ok:
                    move_sup.setdefault(j, []).append(i)
            else:
                ok = not is_move[j]
                if ok:
                    hold_sup.setdefault(j, []).append(i)
            valid[i] = ok
        self.valid = valid
        self.hold_sup, self.move_sup = hold_sup, move_sup
        self.ordered = sorted(moves + sups + cvys)
        self.state = [UNRESOLVED] * n
        self.res = [False] * n
        self.deps: list[int] = []
        self.level = [0] * n       # recursion depth at which a decision's guess began
        self.depth = 0
        self.szykman: set[int] = set()

    def _route(self, src: str, dest: str, seas, usable=None) -> bool:
        """Is there a chain of the sea provinces ``seas`` from ``src`` to ``dest`` (through seas
        whose ``usable(sea)`` is true, if given: it resolves the convoying fleet there)?"""
        reach = self.gmap.fleet_reach
        frontier = [s for s in seas if src in reach[s]]
        seen = set(frontier)
        while frontier:
            s = frontier.pop()
            if usable is not None and not usable(s):
                continue
            if dest in reach[s]:
                return True
            for t in reach[s]:
                if t in seas and t not in seen:
                    seen.add(t)
                    frontier.append(t)
        return False

    # ----------------------------------------------------------- decisions
    def resolve(self, i: int) -> bool:
        state = self.state
        if state[i] == RESOLVED:
            return self.res[i]
        deps = self.deps
        if state[i] == GUESSING:
            # noted every time (not once): a later sibling must see its own dependency on it
            deps.append(i)
            return self.res[i]
        self.depth += 1
        try:
            return self._guess(i)
        finally:
            self.depth -= 1

    def _guess(self, i: int) -> bool:
        state, deps, level = self.state, self.deps, self.level
        old = len(deps)
        level[i] = lvl = self.depth
        self.res[i] = False
        state[i] = GUESSING
        first = self.adjudicate(i)
        if len(deps) == old:
            if state[i] != RESOLVED:
                self.res[i] = first
                state[i] = RESOLVED
            return self.res[i]
        # a guess made further up (by a decision still being decided, below us on the stack)
        # that we depend on makes us a guess too, even when our own guess is also involved;
        # otherwise all that depends on a guess depends on ours: try the other one
        outer = min((level[x] for x in deps[old:] if state[x] == GUESSING), default=lvl)
        if outer < lvl:
            deps.append(i)
            level[i] = outer           # whoever depends on us depends on that guess too
            self.res[i] = first
            return first
        for x in deps[old:]:
            state[x] = UNRESOLVED
        del deps[old:]
        self.res[i] = True
        state[i] = GUESSING
        second = self.adjudicate(i)
        outer = min((level[x] for x in deps[old:] if state[x] == GUESSING), default=lvl)
        if outer < lvl:                # the other guess reached a guess further up after all
            deps.append(i)
            level[i] = outer
            self.res[i] = second
            return second
        if first == second:
            for x in deps[old:]:
                state[x] = UNRESOLVED
            del deps[old:]
            self.res[i] = first
            state[i] = RESOLVED
            return first
        self._backup(old)
        return self.resolve(i)

    def _backup(self, old: int) -> None:
        """Both guesses hold: circular movement or a convoy paradox."""
        cycle = self.deps[old:]
        del self.deps[old:]
        # a cycle of moves alone is circular movement; one through a support or a convoy is a
        # convoy paradox (only convoys make those): Szykman, the convoyed armies in it stay
        armies = set()
        if not all(self.is_move[x] for x in cycle):
            for x in cycle:
                if self.is_move[x] and self.convoyed[x]:
                    armies.add(x)
                elif self.kind[x] == "CVY":
                    armies.add(self.target[x])
        if armies:
            for x in cycle:
                self.state[x] = UNRESOLVED
            for a in armies:
                self.szykman.add(a)
                self.res[a] = False
                self.state[a] = RESOLVED
        else:                                        # circular movement: every move succeeds
            for x in cycle:
                if self.is_move[x]:
                    self.res[x] = True
                    self.state[x] = RESOLVED
                else:
                    self.state[x] = UNRESOLVED

    def adjudicate(self, i: int) -> bool:
        k = self.kind[i]
        if k == "SUP":
            return self._support(i)
        if k == "CVY":
            return not self._dislodged(i)
        if self.is_move[i]:
            return self._move(i)
        return not self._dislodged(i)

    # ----------------------------------------------------------- strengths
    def path(self, i: int) -> bool:
        if not self.convoyed[i]:
            return True
        if i in self.szykman:
            return False
        fleets = {self.provs[f]: f for f in self.convoyers.get(i, ())}
        resolve = self.resolve
        return self._route(self.provs[i], self.dest[i], fleets, lambda s: resolve(fleets[s]))

    def _supports(self, sups: list[int], exclude_power: str | None = None) -> int:
        n = 0
        for s in sups:
            if exclude_power is not None and self.power[s] == exclude_power:
                continue
            if self.resolve(s):
                n += 1
        return n

    def attack(self, i: int) -> int:
        if not self.path(i):
            return 0
        j = self.at.get(self.dest[i])
        if j is None or (self.is_move[j] and self.h2h[i] != j and self.resolve(j)):
            return 1 + self._supports(self.move_sup.get(i, ()))
        if self.power[j] == self.power[i]:
            return 0
        return 1 + self._supports(self.move_sup.get(i, ()), self.power[j])

    def defend(self, j: int) -> int:
        return 1 + self._supports(self.move_sup.get(j, ()))

    def prevent(self, i: int) -> int:
        if not self.path(i):
            return 0
        j = self.h2h[i]
        if j >= 0 and self.resolve(j):
            return 0
        return 1 + self._supports(self.move_sup.get(i, ()))

    def hold(self, prov: str) -> int:
        j = self.at.get(prov)
        if j is None:
            return 0
        if self.is_move[j]:
            return 0 if self.resolve(j) else 1
        return 1 + self._supports(self.hold_sup.get(j, ()))

    def _move(self, i: int) -> bool:
        a = self.attack(i)
        if a == 0:
            return False
        j = self.h2h[i]
        if j >= 0:
            if a <= self.defend(j):
                return False
        elif a <= self.hold(self.dest[i]):
            return False
        for k in self.moves_into[self.dest[i]]:
            if k != i and a <= self.prevent(k):
                return False
        return True

    def _dislodged(self, i: int) -> bool:
        for m in self.moves_into.get(self.provs[i], ()):
            if self.resolve(m):
                return True
        return False

    def _support(self, s: int) -> bool:
        if not self.valid[s]:
            return False
        p = self.provs[s]
        j = self.target[s]
        aimed = self.dest[s] or self.provs[j]
        attackers = self.moves_into.get(p, ())
        for m in attackers:
            if self.power[m] == self.power[s] or self.provs[m] == aimed:
                continue
            if self.path(m):
                return False
        for m in attackers:
            if self.provs[m] == aimed and self.resolve(m):
                return False
        return True

    # ------------------------------------------------------------- results
    def run(self) -> MovementResult:
        resolve = self.resolve
        for i in self.ordered:
            resolve(i)
        out = MovementResult()
        res, provs, kind, is_move = self.res, self.provs, self.kind, self.is_move
        moved, dislodged = out.moved, out.dislodged
        moves_into, convoyed = self.moves_into, self.convoyed
        for i in self.ordered:
            if is_move[i] and res[i]:
                moved[provs[i]] = self.dest_loc[i] if kind[i] == "MTO" else self.dest[i]
        # dislodged: a unit that did not move where a move succeeded
        for dest, ms in moves_into.items():
            j = self.at.get(dest)
            if j is None or (is_move[j] and res[j]):
                continue
            for m in ms:
                if res[m]:
                    dislodged[dest] = (provs[m], convoyed[m])
                    break
        prov_of = self.gmap.prov_of
        arrived = {prov_of[d] for d in moved.values()}
        h2h, at, path = self.h2h, self.at, self.path
        for dest, ms in moves_into.items():
            if dest in arrived:
                continue
            j = at.get(dest)
            if j is not None and provs[j] not in moved:
                continue
            # a unit beaten in a head-to-head battle contests nothing (DATC 6.H.9)
            if any(path(m) and not (h2h[m] >= 0 and res[h2h[m]]) for m in ms):
                out.standoffs.add(dest)
        results = out.results
        suc = ("SUC",)
        for i, p in enumerate(provs):
            k = kind[i]
            if k == "HLD":
                r = suc
            elif is_move[i]:
                if res[i]:
                    r = suc
                elif i in self.szykman:
                    r = ("BNC",)
                elif convoyed[i] and not path(i):
                    r = ("DSR",) if i in self.convoyers else ("NSO",)
                else:
                    r = ("BNC",)
            elif k == "SUP":
                r = suc if res[i] else (("CUT",) if self.valid[i] else ("NSO",))
            else:
                r = suc if self.valid[i] else ("NSO",)
            if p in dislodged:
                r = ("RET",) if r is suc else r + ("RET",)
            results[p] = list(r)
        return out


def adjudicate_movement(gmap: GameMap, units: dict, orders: dict, order=None) -> MovementResult:
    """Resolve one movement phase.  ``units``: province -> (power, type, location);
    ``orders``: province -> Order for the units that have one (others hold).  ``order`` (the
    provinces of ``units`` in some order; sorted by default) is the order decisions are taken
    in: the result does not depend on it, which the tests check."""
    return _Resolver(gmap, units, orders, order).run()


def retreat_options(gmap: GameMap, units_after: dict, utype: str, loc: str, attacker: str,
                    by_convoy: bool, standoffs: set[str]) -> tuple[str, ...]:
    """Where a dislodged unit may retreat: adjacent, vacant, not a standoff, not where its
    attacker came from unless the attacker came by convoy (4.A.5 b)."""
    adj = gmap.army_adj[loc] if utype == "AMY" else gmap.fleet_adj.get(loc, ())
    prov_of = gmap.prov_of
    out = []
    for t in adj:
        p = prov_of[t]
        if p in units_after or p in standoffs or (p == attacker and not by_convoy):
            continue
        out.append(t)
    return tuple(sorted(out))
