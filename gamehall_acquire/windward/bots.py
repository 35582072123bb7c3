"""Windward Acquire bots: ``make_bot(name, seed)`` with names "strong" and "simple".

Both are pure and deterministic (all randomness from ``random.Random(seed)``)
and see only what their player may see (board, chains, every player's cash,
shares and unplayed cards, the pile's size, their own hand).

``simple`` is the contest's "brain-dead" sample AI, answering through the
engine's ``normalise`` exactly as the original server treated it: a random
playable tile, the first free chain to found, the first active chain as the
merge survivor (corrected by the server when wrong), two random buy orders of
1-3 shares in any chain (most are clipped or dropped), a random purchase card
on about 5 % of turns and a pre-turn card on 1 turn in 15, merges answered
n//3 sold, n//3 kept, the rest traded.

``strong`` maximises one evaluation of its own position,

    U = cash (the first ``reserve`` dollars count 1 + kappa each)
      + for each chain on the board: shares x projected price
        + first bonus x P(first) + second bonus x P(second)
      + kept shares of defunct chains x a small refounding value,

where the projected price is the price after the growth still to come
(``growth`` tiles, shrinking as the pile empties) and P(first), P(second)
are logistic in the lead over the nearest rivals (certain when the shares
left cannot close the gap).  Since the Windward score is the same mark-to-
market sum at today's price, U is the score plus what growth and
uncertainty are expected to change.  It places the tile (and founds, and
chooses the survivor) whose simulated result (``after_placement``, merge
resolved) plus best purchase is worth most; buys greedily one share at a
time where a share raises U most; trades defunct shares 2:1 when the
survivor share is worth more than two sales.  Cards: PLACE_4_TILES when the
best four placements gain clearly more than the best one, DRAW_5_TILES early
(more choice for the rest of the game), FREE_3_STOCK when three free shares
are worth a lot (expensive chains or majorities), BUY_5_STOCK when the two
extra shares gain clearly, TRADE_2_STOCK when trades gain; every card still
held is spent as soon as it gains anything once the end is near (an
unplayed card is worth nothing at the end).
"""
from __future__ import annotations

import random

from zope.interface import implementer

from gamehall.interfaces import IBot
from gamehall_acquire.bots import logistic  # one squashing function for both bots

from .rules import (BUY_5, CARD, DRAW_5, FREE_3, MERGE_PHASE, NONE, PLACE_4, TILE, TILE_PURCHASE,
                    TRADE_2, WindwardGame)

__all__ = ["SimpleBot", "StrongBot", "make_bot", "BOTS"]


@implementer(IBot)
class SimpleBot:
    """The contest's brain-dead sample AI, normalised by the engine as the server would."""

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(seed)

    def choose(self, engine: WindwardGame, seat: int) -> dict:
        return engine.normalise(seat, self.raw_reply(engine, seat))

    def raw_reply(self, engine: WindwardGame, seat: int) -> dict:
        """The reply the sample client would send (before the server's normalisation)."""
        rng = self._rng
        d = engine.pending()
        chains = engine.rules.chains
        if d.kind == CARD:
            r = rng.randrange(30)
            return {"card": 4 if r == 0 else 5 if r == 1 else 0}
        if d.kind == MERGE_PHASE:
            n = d.options["shares"]
            return {"sell": n // 3, "keep": n // 3, "trade": (n + 2) // 3}
        tiles = d.options["tiles"]
        raw: dict = {"tile": rng.choice(tiles) if tiles else None}
        on = engine.chains_on_board()
        off = [c for c in chains if c not in on]
        if off:
            raw["created_hotel"] = off[0]
        if on:
            raw["merge_survivor"] = on[0]
        if d.kind == TILE:
            return raw
        raw["card"] = rng.randrange(1, 4) if rng.random() < 0.05 else 0
        raw["buy"] = [[rng.choice(chains), rng.randint(1, 3)] for _ in range(2)]
        raw["trade"] = [[rng.choice(chains), rng.choice(chains)] for _ in range(rng.randint(1, 3))]
        return raw


class _Model:
    """The public numbers U is computed from; cheap to copy and to change."""

    __slots__ = ("me", "n", "k", "size", "held", "avail", "cash", "table", "top", "horizon",
                 "growth", "spread", "safe")

    def __init__(self, g: WindwardGame, me: int, growth: float):
        rules = g.rules
        self.me = me
        self.n = len(g.players)
        self.k = k = len(rules.chains)
        self.size = [g.chain_size(c) for c in range(k)]
        holdings = [g.shares_of(seat) for seat in range(self.n)]
        self.held = [[sh[c] for sh in holdings] for c in range(k)]     # per chain, per seat
        self.avail = [g.available(c) for c in range(k)]
        self.cash = g.cash[me]
        self.table = rules.price_table
        self.top = len(self.table[0]) - 1
        self.safe = rules.safe_size
        self.horizon = h = max(0.0, min(1.0, g.pile_left() / 72.0))
        self.growth = growth * h
        self.spread = 0.6 + 2.0 * h

    def copy(self) -> "_Model":
        m = object.__new__(_Model)
        for name in _Model.__slots__:
            setattr(m, name, getattr(self, name))
        m.size = list(self.size)
        m.held = [list(col) for col in self.held]
        m.avail = list(self.avail)
        return m

    def price(self, c: int, size: int | None = None) -> int:
        s = self.size[c] if size is None else size
        return self.table[c][min(s, self.top)]


@implementer(IBot)
class StrongBot:
    """See the module docstring."""

    def __init__(self, seed: int | None = None, *, growth: float = 8.0, kappa: float = 0.1,
                 reserve: int = 1500, keep_value: float = 0.3, place4_gain: float = 1200.0,
                 free3_gain: float = 2400.0, buy5_gain: float = 600.0, trade2_gain: float = 500.0,
                 draw5_turn: int = 1):
        self._rng = random.Random(seed)
        self.growth = growth
        self.kappa = kappa
        self.reserve = reserve
        self.keep_value = keep_value
        self.place4_gain = place4_gain
        self.free3_gain = free3_gain
        self.buy5_gain = buy5_gain
        self.trade2_gain = trade2_gain
        self.draw5_turn = draw5_turn
        self._turns = 0

    # ------------------------------------------------------------ evaluation
    def _cash_u(self, cash: int) -> float:
        return cash + self.kappa * min(cash, self.reserve)

    def _chain_u(self, m: _Model, c: int) -> float:
        col = m.held[c]
        mine = col[m.me]
        if mine <= 0:
            return 0.0
        size = m.size[c]
        if size < 2:
            return mine * self.keep_value * m.horizon * m.price(c, 3)
        proj = m.price(c, int(size + (m.growth if size < 41 else 0) + 0.5))
        first, second = proj * 10, proj * 5
        a = b = 0
        for s, h in enumerate(col):
            if s != m.me:
                if h > a:
                    a, b = h, a
                elif h > b:
                    b = h
        avail = m.avail[c]
        spread = m.spread
        d = mine - a
        pa = 1.0 if d > avail else 0.0 if -d > avail else logistic(d / spread)
        d = mine - b
        pb = 1.0 if d > avail else 0.0 if -d > avail else logistic(d / spread)
        if pb < pa:
            pb = pa
        w = mine * proj + first * pa + second * (pb - pa)
        if a == 0:
            w += second * pa * ((1.0 - m.horizon) if avail else 1.0)
        return w

    def _u(self, m: _Model) -> float:
        u = self._cash_u(m.cash)
        for c in range(m.k):
            u += self._chain_u(m, c)
        return u

    def _u_game(self, g: WindwardGame, me: int) -> float:
        if g.is_over():
            return float(g.scores()[me])
        return self._u(_Model(g, me, self.growth))

    # ------------------------------------------------------------ purchases
    def _best_buys(self, m: _Model, allowance: int, free: bool) -> tuple[float, list]:
        """Greedy: one share at a time where U gains most. (gain, [[c, n]...]); m is changed."""
        gain = 0.0
        orders: list[list[int]] = []
        for _ in range(allowance):
            best, best_c = 0.0, -1
            base_cash = self._cash_u(m.cash)
            for c in range(m.k):
                if m.size[c] < 2 or m.avail[c] <= 0:
                    continue
                p = m.price(c)
                if not free and p > m.cash:
                    continue
                before = self._chain_u(m, c)
                m.held[c][m.me] += 1
                m.avail[c] -= 1
                after = self._chain_u(m, c)
                m.held[c][m.me] -= 1
                m.avail[c] += 1
                delta = after - before
                if not free:
                    delta += self._cash_u(m.cash - p) - base_cash
                if delta > best + 1e-9:
                    best, best_c = delta, c
            if best_c < 0:
                break
            m.held[best_c][m.me] += 1
            m.avail[best_c] -= 1
            if not free:
                m.cash -= m.price(best_c)
            gain += best
            if orders and orders[-1][0] == best_c:
                orders[-1][1] += 1
            else:
                orders.append([best_c, 1])
        return gain, orders

    def _best_trades(self, m: _Model, most: int) -> tuple[float, list]:
        gain = 0.0
        trades: list[list[int]] = []
        me = m.me
        for _ in range(most):
            best, pair = 0.0, None
            for g in range(m.k):
                if m.size[g] < 2 or m.held[g][me] < 2:
                    continue
                for r in range(m.k):
                    if r == g or m.size[r] < 2 or m.avail[r] <= 0:
                        continue
                    before = self._chain_u(m, g) + self._chain_u(m, r)
                    m.held[g][me] -= 2
                    m.avail[g] += 2
                    m.held[r][me] += 1
                    m.avail[r] -= 1
                    after = self._chain_u(m, g) + self._chain_u(m, r)
                    m.held[g][me] += 2
                    m.avail[g] -= 2
                    m.held[r][me] -= 1
                    m.avail[r] += 1
                    if after - before > best + 1e-9:
                        best, pair = after - before, (g, r)
            if pair is None:
                break
            g, r = pair
            m.held[g][me] -= 2
            m.avail[g] += 2
            m.held[r][me] += 1
            m.avail[r] -= 1
            gain += best
            trades.append([g, r])
        return gain, trades

    def _end_near(self, g: WindwardGame) -> bool:
        sizes = [g.chain_size(c) for c in range(len(g.rules.chains))]
        on = [s for s in sizes if s]
        if not on:
            return g.pile_left() <= 12
        return (g.pile_left() <= 12 or max(on) >= 33 or min(on) >= 8)

    def _purchase_plan(self, g: WindwardGame, me: int, cards: list[str], near: bool
                       ) -> tuple[float, str, list, list]:
        """Best (value, card, buy orders, trades) on the placed-tile state ``g``."""
        base = _Model(g, me, self.growth)
        u0 = self._u(base)
        m = base.copy()
        gain, orders = self._best_buys(m, g.rules.max_buy, False)
        best = (u0 + gain, NONE, orders, [])
        plain = gain
        for card in cards:
            m = base.copy()
            trades: list = []
            if card == FREE_3:
                gain, orders = self._best_buys(m, g.rules.free3_max, True)
                need = self.free3_gain
            elif card == BUY_5:
                gain, orders = self._best_buys(m, g.rules.buy5_max, False)
                need = self.buy5_gain
            elif card == TRADE_2:
                gain, orders = self._best_buys(m, g.rules.max_buy, False)
                tg, trades = self._best_trades(m, g.rules.trade2_max)
                gain += tg
                need = self.trade2_gain
            else:
                continue
            if near:
                need = 0.0
            if gain - plain > 1e-9 and u0 + gain - need > best[0]:
                best = (u0 + gain - need, card, orders, trades)
        return best

    # ------------------------------------------------------------ placements
    def _dispose_policy(self, me: int):
        bot = self

        def dispose(g: WindwardGame, seat: int, defunct: str, survivor: str):
            held = g.shares_of(seat)[g.rules.chain_index(defunct)]
            if seat != me:
                return 0, held, 0
            t = bot._trade_count(g, seat, defunct, survivor, held)
            return 0, held - t, t
        return dispose

    def _trade_count(self, g: WindwardGame, seat: int, defunct: str, survivor: str, held: int) -> int:
        """Shares of ``defunct`` to trade 2:1 (the rest sold), by the value of one survivor
        share after the merge against two sales."""
        d, s = g.rules.chain_index(defunct), g.rules.chain_index(survivor)
        m = _Model(g, seat, self.growth)
        merge = g.merger
        if merge is not None:
            m.size[s] = sum(m.size[c] for c in merge["chains"]) + 1
            sale = merge["prices"][merge["defunct"].index(d)]
        else:
            sale = m.price(d)
        pairs = 0
        avail = m.avail[s]
        while pairs < held // 2 and pairs < avail:
            before = self._chain_u(m, s)
            m.held[s][seat] += 1
            m.avail[s] -= 1
            after = self._chain_u(m, s)
            if after - before <= 2 * sale:
                m.held[s][seat] -= 1
                m.avail[s] += 1
                break
            pairs += 1
        return 2 * pairs

    def _variants(self, g: WindwardGame, seat: int) -> list[dict]:
        return g.placement_variants(seat)

    def _best_placement(self, g: WindwardGame, seat: int) -> tuple[float, dict, WindwardGame]:
        policy = self._dispose_policy(seat)
        best = None
        for p in self._variants(g, seat):
            h = g.after_placement(seat, p, policy) if p["tile"] is not None else g
            u = self._u_game(h, seat)
            if best is None or u > best[0]:
                best = (u, p, h)
        return best

    # ------------------------------------------------------------- decisions
    def choose(self, engine: WindwardGame, seat: int) -> dict:
        d = engine.pending()
        if d.kind == CARD:
            return {CARD: self._card(engine, seat, d.options["cards"])}
        if d.kind == MERGE_PHASE:
            o = d.options
            t = self._trade_count(engine, seat, o["defunct"], o["survivor"], o["shares"])
            return {MERGE_PHASE: {"keep": 0, "sell": o["shares"] - t, "trade": t}}
        if d.kind == TILE:
            return {TILE: self._best_placement(engine, seat)[1]}
        return {TILE_PURCHASE: self._tile_purchase(engine, seat, d.options)}

    def _card(self, g: WindwardGame, seat: int, cards: list[str]) -> str:
        self._turns += 1
        near = self._end_near(g)
        if PLACE_4 in cards:
            u1, _, h = self._best_placement(g, seat)
            u4 = u1
            for _ in range(g.rules.place4_count - 1):
                if not h.playable_tiles(seat):
                    break
                u4, _, h = self._best_placement(h, seat)
            if u4 - u1 > (0.0 if near else self.place4_gain):
                return PLACE_4
        if DRAW_5 in cards and (self._turns > self.draw5_turn or near):
            return DRAW_5
        return NONE

    def _tile_purchase(self, g: WindwardGame, seat: int, o: dict) -> dict:
        near = self._end_near(g)
        cards = [c for c in o["cards"] if c != NONE]
        policy = self._dispose_policy(seat)
        best = None
        for p in self._variants(g, seat):
            h = g.after_placement(seat, p, policy) if p["tile"] is not None else g
            value, card, orders, trades = self._purchase_plan(h, seat, cards, near)
            if best is None or value > best[0]:
                best = (value, p, card, orders, trades)
        value, p, card, orders, trades = best
        chains = g.rules.chains
        return {**p, "card": card, "buy": [[chains[c], n] for c, n in orders],
                "trade": [[chains[a], chains[b]] for a, b in trades]}


BOTS = {"strong": StrongBot, "simple": SimpleBot}


def make_bot(name: str, seed: int | None = None):
    """The Windward bot called ``name`` ("strong" or "simple")."""
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"no Windward bot {name!r}: choose one of {', '.join(BOTS)}") from None
