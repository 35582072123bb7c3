"""The legal purchases of a buy step, enumerated fast.

A buy step's legal actions are every multiset of at most ``max_buy`` shares
of the chains on the board that are available and affordable, each as
``{"purchase": {chain: n}, "end_game": False}`` and, when the game may be
ended, followed by the same combo with ``"end_game": True``.  Order:
depth-first, chains in board order (``{}``, ``{a: 1}``, ``{a: 2}``, ``{a: 3}``,
``{a: 2, b: 1}`` ... ``{a: 1, b: 1}`` ...).

This runs at every buy step of every game and once built ~40 fresh dicts,
which was most of the engine's time.  Now a list is a
:class:`~gamehall_acquire.legal.LegalActions` whose items are made as they are
read: every combo of ``k`` chains has a fixed shape (:class:`_Shapes`, one per
``k`` and ``max_buy``), and the combos that the shares left and the cash allow
are one packed integer, so the count is a ``bit_count`` and the i-th combo a
bisection.  The engine
keeps an :class:`Offer` (the chains, prices and caps of a buy step) while none
of them changes, often for several turns, and with it what does not depend on
the buyer's cash.
"""
from __future__ import annotations

from .legal import LegalActions, lazy_actions

PURCHASE = "purchase"
END_GAME = "end_game"



def combos(offer: list[tuple[str, int, int]], max_buy: int, cash: int) -> list[dict]:
    """Every multiset of at most ``max_buy`` shares from ``offer`` [(chain, price, cap)]
    costing at most ``cash``, as {chain: n} dicts (depth-first, chains in offer order).
    Freshly built; see :func:`cached_combos` for the shared, cached lists."""
    if max_buy == 3:
        return _combos_of_three(offer, cash)
    out: list[dict] = [{}]
    k = len(offer)

    def extend(start: int, left: int, spent: int, combo: dict) -> None:
        for i in range(start, k):
            name, price, cap = offer[i]
            if spent + price <= cash and combo.get(name, 0) < cap:
                bigger = dict(combo)
                bigger[name] = bigger.get(name, 0) + 1
                out.append(bigger)
                if left > 1:
                    extend(i, left - 1, spent + price, bigger)

    if max_buy > 0:
        extend(0, max_buy, 0, {})
    return out


def _combos_of_three(offer: list[tuple[str, int, int]], cash: int) -> list[dict]:
    """The classic case (at most 3 shares) of :func:`combos`, unrolled, in the same order."""
    out: list[dict] = [{}]
    app = out.append
    k = len(offer)
    for i in range(k):
        ni, pi, ci = offer[i]
        if pi > cash:
            continue
        app({ni: 1})
        left = cash - pi                    # after one share of ni
        if pi <= left and ci >= 2:          # two of ni, then maybe a third share
            app({ni: 2})
            left2 = left - pi
            if pi <= left2 and ci >= 3:
                app({ni: 3})
            for m in range(i + 1, k):
                nm, pm, _ = offer[m]
                if pm <= left2:
                    app({ni: 2, nm: 1})
        for j in range(i + 1, k):           # one of ni, one or two of nj, maybe one more
            nj, pj, cj = offer[j]
            if pj > left:
                continue
            app({ni: 1, nj: 1})
            left2 = left - pj
            if pj <= left2 and cj >= 2:
                app({ni: 1, nj: 2})
            for m in range(j + 1, k):
                nm, pm, _ = offer[m]
                if pm <= left2:
                    app({ni: 1, nj: 1, nm: 1})
    return out


class _Shapes:
    """Every combo of at most ``max_buy`` shares of ``k`` chains, as positions ((j, n), ...)
    in the canonical order, and packed integers that filter all of them at once.

    Combo ``u`` owns bits ``FIELD * u .. FIELD * u + FIELD - 1`` of each packed
    integer: ``packed[j]`` holds its count of chain ``j``, so that
    ``sum(packed[j] * price[j])`` holds every combo's cost; adding
    ``HIGH - 1 - cash`` to each field sets the field's high bit exactly when the
    cost exceeds ``cash`` (no field overflows while costs and cash stay below
    ``HIGH``).  ``over[j][cap]`` has the high bits of the combos with more than
    ``cap`` shares of chain ``j``.  A set of combos is then one integer of high
    bits: counted with ``bit_count``, its i-th member found by bisection.
    """

    FIELD = 24
    HIGH = 1 << (FIELD - 1)

    def __init__(self, k: int, max_buy: int):
        field, high = self.FIELD, self.HIGH
        every = combos([(j, 1, max_buy) for j in range(k)], max_buy, max_buy)
        self.shapes = [tuple(d.items()) for d in every]
        self.count = n = len(every)
        self.high = sum(high << (field * u) for u in range(n))
        self.ones = sum(1 << (field * u) for u in range(n))
        self.packed = [sum(d.get(j, 0) << (field * u) for u, d in enumerate(every)) for j in range(k)]
        self.over = [[sum(high << (field * u) for u, d in enumerate(every) if d.get(j, 0) > cap)
                      for cap in range(max_buy + 1)] for j in range(k)]
        self.below = [(1 << (field * u)) - 1 for u in range(n + 1)]

    def select(self, offer: list[tuple[str, int, int]], max_buy: int, cash: int, top: int) -> int:
        """The high bits of the combos allowed by the shares left and ``cash``."""
        valid = self.high
        total = 0
        over, packed = self.over, self.packed
        for j, (_, p, cap) in enumerate(offer):
            if cap < max_buy:
                valid &= ~over[j][cap]
            total += packed[j] * p
        if cash < max_buy * top:
            valid &= ~((total + self.ones * (self.HIGH - 1 - cash)) & self.high)
        return valid

    def nth(self, valid: int, i: int) -> int:
        """The index of the i-th (from 0) combo of ``valid``."""
        below = self.below
        lo, hi = 0, self.count
        while lo < hi:
            mid = (lo + hi) >> 1
            if (valid & below[mid + 1]).bit_count() > i:
                hi = mid
            else:
                lo = mid + 1
        return lo


#: (number of chains offered, max_buy) -> _Shapes: 8 of them in the classic game
_SHAPES: dict[tuple[int, int], _Shapes] = {}


def _shapes(k: int, max_buy: int) -> _Shapes:
    shapes = _SHAPES.get((k, max_buy))
    if shapes is None:
        if len(_SHAPES) >= 64:              # a bound, for odd rules
            _SHAPES.clear()
        shapes = _SHAPES[(k, max_buy)] = _Shapes(k, max_buy)
    return shapes


class Offer:
    """A buy step's offer [(chain, price, cap)], kept by the engine while no price or cap
    changes (often for several turns), with what its purchase lists need worked out
    once, when first needed: then only the player's cash changes what may be bought."""

    __slots__ = ("entries", "max_buy", "top", "low", "full", "_shapes", "_valid", "_total")

    def __init__(self, entries: list[tuple[str, int, int]], max_buy: int):
        self.entries = entries
        self.max_buy = max_buy
        top, low, full = 0, -1, True
        for _, p, cap in entries:
            if p > top:
                top = p
            if p < low or low < 0:
                low = p
            if cap < max_buy:
                full = False
        self.top, self.low, self.full = top, low, full
        self._shapes = None         # set by the first actions()
        self._valid = None          # and these when cash or caps limit the combos
        self._total = 0

    def actions(self, cash: int, can_end: bool) -> LegalActions:
        """purchase_actions(entries, max_buy, cash, can_end), from what is known already."""
        shapes = self._shapes
        max_buy = self.max_buy
        if shapes is None:
            if max_buy * self.top >= _Shapes.HIGH:      # prices beyond the packed fields
                return purchase_actions(self.entries, max_buy, cash, can_end)
            shapes = self._shapes = _shapes(len(self.entries), max_buy)
        rich = cash >= max_buy * self.top
        if rich and self.full:                          # nothing limits the combos
            return lazy_actions(2 * shapes.count if can_end else shapes.count, _action,
                                (self.entries, shapes, None, can_end))
        valid = self._valid
        if valid is None:                               # the caps' mask and the costs, once
            valid, total = shapes.high, 0
            over, packed = shapes.over, shapes.packed
            for j, (_, p, cap) in enumerate(self.entries):
                if cap < max_buy:
                    valid &= ~over[j][cap]
                total += packed[j] * p
            self._valid, self._total = valid, total
        if not rich:
            valid &= ~((self._total + shapes.ones * (_Shapes.HIGH - 1 - cash)) & shapes.high)
        count = valid.bit_count()
        return lazy_actions(2 * count if can_end else count, _action, (self.entries, shapes, valid, can_end))


def purchase_actions(offer: list[tuple[str, int, int]], max_buy: int, cash: int,
                     can_end: bool, top: int = -1, full: bool | None = None) -> LegalActions:
    """The legal purchase actions: each combo as ``{"purchase": combo, "end_game": False}``,
    followed by the same combo with ``True`` when ``can_end``; a :class:`LegalActions`
    list, whose actions are built (fresh) as they are read.

    ``top`` (the highest price) and ``full`` (max_buy shares left of every chain
    offered) may be given when known; else they are worked out from ``offer``.
    """
    if top < 0 or full is None:
        top, full = 0, True
        for _, p, cap in offer:
            if p > top:
                top = p
            if cap < max_buy:
                full = False
    if max_buy * top >= _Shapes.HIGH:       # prices beyond the packed fields: enumerate
        found = combos(offer, max_buy, cash)
        return LegalActions(2 * len(found) if can_end else len(found), _listed_action, (found, can_end))
    shapes = _shapes(len(offer), max_buy)
    if full and cash >= max_buy * top:      # nothing limits the combos: all of them
        valid = None
        count = shapes.count
    else:
        valid = shapes.select(offer, max_buy, cash, top)
        count = valid.bit_count()
    return lazy_actions(2 * count if can_end else count, _action, (offer, shapes, valid, can_end))


def _action(data: tuple, i: int) -> dict:
    """Item ``i`` of purchase_actions' list: the combo of index i (or i // 2 when the game
    may be ended, odd items ending it) among the allowed ones."""
    offer, shapes, valid, can_end = data
    if can_end:
        end = (i & 1) == 1
        i >>= 1
    else:
        end = False
    combo = {}
    for j, n in shapes.shapes[i if valid is None else shapes.nth(valid, i)]:
        combo[offer[j][0]] = n
    return {PURCHASE: combo, END_GAME: end}


def _listed_action(data: tuple, i: int) -> dict:
    found, can_end = data
    if can_end:
        return {PURCHASE: found[i >> 1].copy(), END_GAME: (i & 1) == 1}
    return {PURCHASE: found[i].copy(), END_GAME: False}
