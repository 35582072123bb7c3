"""Acquire bots: ``make_bot(name, seed)`` for the hall, selfplay and tests.

Bots are pure (no I/O, no reactor) and deterministic: all their randomness
comes from a ``random.Random(seed)``, so a game between bots is reproducible
from the game seed and the bot seeds.  A bot sees only what its player may
see: the board, chain sizes, prices, every player's cash and shares, the
number of tiles left in the bag and its own rack (never the bag's order or
other racks).

``strong`` scores a position with one evaluation and picks, at each decision,
the action whose (cheaply simulated) result scores best.  The evaluation of a
position for the bot's seat is

    U = own W - lam * mean(W of each opponent),
    W = cash (the first ``reserve`` dollars of the bot's own cash count
        1 + kappa each: cash on hand is what lets it buy later)
      + for each chain on the board: shares x expected share value
        + expected majority bonus
      + for each defunct chain: kept shares x chance of a refounding x a small price.

The expected share value is the price after the growth still to come, which
shrinks to nothing as the bag empties; the expected bonus weighs the first and
second bonuses at that price by smooth probabilities of ending first or second
(a logistic of the lead over the nearest rivals, sharper late in the game,
certain when the rivals cannot catch up even with every share left).  From
that single scale follow: founding the chain that gives the most (expensive
chains, chains where it kept defunct shares), growing chains it leads, merging
when it collects defunct bonuses, choosing the survivor that pays it most,
buying where one share gains or protects first or second place more than it
costs (greedy, one share at a time), and trading, selling or keeping defunct
shares, whichever is worth most.  It ends the game when it is ahead on exact
net worth after its purchase, and never when it is behind.

Simplifications that keep a decision well under a millisecond: one ply only;
a simulated merger values every defunct share as sold; the next defunct chain
among equals is the one where it holds the most shares (disposal follows that
order, and trades draw on the same survivor shares).  The defaults of
``StrongBot`` were tuned by selfplay, variants against each other over
thousands of 4-player games.
"""
from __future__ import annotations

import math
import random
from typing import Any, Callable

from zope.interface import implementer

from gamehall.interfaces import IBot

from .tiles import NAMES, NEIGHBOURS

#: tile name -> names of its orthogonal neighbours
_NEIGH: dict[str, tuple[str, ...]] = {NAMES[i]: tuple(NAMES[j] for j in NEIGHBOURS[i])
                                      for i in range(len(NAMES))}
_MISSING = object()


@implementer(IBot)
class RandomBot:
    """Uniformly random among the engine's legal actions: a baseline and a fuzzer."""

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(seed)

    def choose(self, engine: Any, seat: int) -> dict:
        """Any legal action, each with the same chance."""
        return self._rng.choice(engine.legal_actions())


def logistic(x: float) -> float:
    if x > 30:
        return 1.0
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


class _View:
    """The public state the strong bot reasons about, gathered once per decision."""

    __slots__ = ("me", "n", "k", "chains", "index", "table", "size", "avail", "held", "cash",
                 "horizon", "first_x", "second_x", "rounding", "safe", "max_size", "max_buy",
                 "spread", "growth", "board", "opp_w")

    def __init__(self, engine: Any, seat: int, growth_tiles: float, spread: tuple[float, float]):
        rules = engine.rules
        chains = rules.chains
        self.me = seat
        self.chains = chains
        self.k = k = len(chains)
        self.index = {c: i for i, c in enumerate(chains)}
        self.table = rules.price_table
        self.max_size = len(self.table[0]) - 1
        self.size = [engine.chain_size(c) for c in range(k)]
        self.avail = [engine.available(c) for c in range(k)]
        self.held = [[sh[c] for c in chains] for sh in engine.shares]
        self.cash = list(engine.cash)
        self.n = len(self.cash)
        self.first_x = rules.first_bonus
        self.second_x = rules.second_bonus
        self.rounding = rules.bonus_rounding
        self.safe = rules.safe_size
        self.max_buy = rules.max_buy
        # how much of the game is left: 1 at the start, 0 when the bag is empty or
        # anyone may end the game (a leader will)
        start = len(self.table[0]) - 1 - self.n * (rules.rack_size + 1)
        left = len(engine.bag)
        self.horizon = 0.0 if engine.can_end() else max(0.0, min(1.0, left / max(1, start)))
        self.spread = spread[0] + spread[1] * self.horizon  # uncertainty of majorities, in shares
        self.growth = growth_tiles * self.horizon        # tiles a chain may still gain
        self.board: dict | None = None
        self.opp_w: list[float] = []                     # weight of each seat's worth in U (0 for us)

    def price(self, c: int, size: int) -> int:
        return self.table[c][min(size, self.max_size)]

    def get_board(self, engine: Any) -> dict:
        if self.board is None:
            self.board = engine.board
        return self.board


def exact_bonuses(col: list[int], price: int, first_x: int, second_x: int, rounding: int) -> list[int]:
    """Majority bonuses per seat for one chain held as ``col`` (classic rules, as the engine pays)."""
    out = [0] * len(col)
    if not price:
        return out
    top = max(col)
    if top <= 0:
        return out
    first, second = price * first_x, price * second_x
    firsts = [s for s, h in enumerate(col) if h == top]
    if len(firsts) > 1:
        amount = -(-(first + second) // (rounding * len(firsts))) * rounding
        for s in firsts:
            out[s] = amount
        return out
    rest = [h for h in col if 0 < h < top]
    if not rest:
        out[firsts[0]] = first + second
        return out
    runner = max(rest)
    seconds = [s for s, h in enumerate(col) if h == runner]
    out[firsts[0]] = first
    amount = second if len(seconds) == 1 else -(-second // (rounding * len(seconds))) * rounding
    for s in seconds:
        out[s] = amount
    return out


@implementer(IBot)
class StrongBot:
    """A one-ply bot maximising the position evaluation described in the module docstring."""

    def __init__(self, seed: int | None = None, *, lam: float = 1.5, kappa: float = 1.0,
                 reserve: int = 3000, growth_tiles: float = 5.0, keep_chance: float = 0.8,
                 claim_margin: int = 0, spread: tuple[float, float] = (0.6, 2.0)):
        self._rng = random.Random(seed)
        self.lam = lam                  # weight of the opponents' gains against ours
        self.kappa = kappa              # extra worth of each dollar of the first `reserve`
        self.reserve = reserve
        self.growth_tiles = growth_tiles
        self.keep_chance = keep_chance  # chance a defunct chain is refounded, at the start
        self.claim_margin = claim_margin
        self.spread = tuple(spread)

    # ------------------------------------------------------------ evaluation
    def _cash_u(self, v: _View, cash: list[int]) -> float:
        mine = cash[v.me]
        u = mine + self.kappa * min(mine, self.reserve)
        for s, w in enumerate(v.opp_w):
            if w:
                u -= w * cash[s]
        return u

    def _chain_u(self, v: _View, c: int, size: int, col: list[int], avail: int) -> float:
        """This chain's part of U: our worth in it minus lam x the opponents' mean."""
        n, me = v.n, v.me
        if size < 2:
            # a defunct chain: kept shares pay only if it is founded again
            kv = self.keep_chance * v.horizon * v.price(c, 3)
            mine = col[me] * kv
            for s, w in enumerate(v.opp_w):
                if w:
                    mine -= w * col[s] * kv
            return mine
        # a share is worth at least today's price (chains only grow), more while
        # there is time to grow; bonuses are paid at that later price too
        proj = v.price(c, int(size + v.growth + 0.5))
        sv = proj
        first, second = proj * v.first_x, proj * v.second_x
        spread = v.spread
        # the three largest holdings, to find each seat's two nearest rivals
        order = sorted(range(n), key=col.__getitem__, reverse=True)
        total_opp = 0.0
        mine = 0.0
        for s in range(n):
            h = col[s]
            if h <= 0:
                continue
            w = h * sv
            a = b = 0
            got = 0
            for o in order:
                if o == s:
                    continue
                if got == 0:
                    a = col[o]
                    got = 1
                else:
                    b = col[o]
                    break
            # chance to finish ahead of the first rival, and of the second one
            d = h - a
            if d > avail:
                pa = 1.0
            elif -d > avail:
                pa = 0.0
            else:
                pa = logistic(d / spread)
            d = h - b
            if d > avail:
                pb = 1.0
            elif -d > avail:
                pb = 0.0
            else:
                pb = logistic(d / spread)
            if pb < pa:
                pb = pa
            w += first * pa + second * (pb - pa)
            if a == 0:                 # alone so far: may keep both bonuses
                w += second * pa * (1.0 - v.horizon if avail else 1.0)
            if s == me:
                mine = w
            else:
                total_opp += v.opp_w[s] * w
        return mine - total_opp

    def _col(self, v: _View, c: int) -> list[int]:
        return [h[c] for h in v.held]

    # ---------------------------------------------------------- board reading
    @staticmethod
    def _tile_effect(board: dict, tile: str) -> tuple[set, int]:
        """(chains next to ``tile``, number of lone tiles it would connect)."""
        chains = set()
        lone = []
        for nb in _NEIGH[tile]:
            val = board.get(nb, _MISSING)
            if val is _MISSING:
                continue
            if val is None:
                lone.append(nb)
            else:
                chains.add(val)
        if not lone:
            return chains, 0
        seen = set(lone)
        seen.add(tile)
        stack = list(lone)
        while stack:
            x = stack.pop()
            for nb in _NEIGH[x]:
                if nb not in seen and nb in board and board[nb] is None:
                    seen.add(nb)
                    stack.append(nb)
        return chains, len(seen) - 1

    @classmethod
    def _merge_tile(cls, board: dict) -> tuple[list[str], int]:
        """During a merger: (the chains being merged, lone tiles joining), from the board.

        The tile that caused it is the only lone tile next to two chains (a chain
        never touches a lone tile once a merger is done).
        """
        for tile, val in board.items():
            if val is None:
                chains, lone = cls._tile_effect(board, tile)
                if len(chains) >= 2:
                    return sorted(chains), lone
        return [], 0

    # ------------------------------------------------------------ simulation
    def _merge_delta(self, v: _View, chains: list[int], survivor: int, extra: int) -> float:
        """U after merging ``chains`` into ``survivor`` (all defunct shares sold), minus U now."""
        before = self._cash_u(v, v.cash)
        after_cash = list(v.cash)
        total = extra
        for c in chains:
            col = self._col(v, c)
            before += self._chain_u(v, c, v.size[c], col, v.avail[c])
            total += v.size[c]
        for c in chains:
            if c == survivor:
                continue
            p = v.price(c, v.size[c])
            col = self._col(v, c)
            bon = exact_bonuses(col, p, v.first_x, v.second_x, v.rounding)
            for s in range(v.n):
                after_cash[s] += bon[s] + col[s] * p
        after = self._cash_u(v, after_cash)
        after += self._chain_u(v, survivor, total, self._col(v, survivor), v.avail[survivor])
        return after - before

    def _found_delta(self, v: _View, c: int, size: int) -> float:
        col = self._col(v, c)
        before = self._chain_u(v, c, 0, col, v.avail[c])
        avail = v.avail[c]
        if avail > 0:
            col[v.me] += 1
            avail -= 1
        return self._chain_u(v, c, size, col, avail) - before

    def _grow_delta(self, v: _View, c: int, added: int) -> float:
        col = self._col(v, c)
        return (self._chain_u(v, c, v.size[c] + added, col, v.avail[c])
                - self._chain_u(v, c, v.size[c], col, v.avail[c]))

    def _tile_value(self, v: _View, board: dict, tile: str, found_options: list[int]) -> float:
        names, lone = self._tile_effect(board, tile)
        cs = [v.index[x] for x in names]
        if not cs:
            if not lone:
                return 0.0
            return max((self._found_delta(v, c, lone + 1) for c in found_options), default=0.0)
        if len(cs) == 1:
            return self._grow_delta(v, cs[0], lone + 1)
        big = max(v.size[c] for c in cs)
        tied = [c for c in cs if v.size[c] == big]
        return max(self._merge_delta(v, cs, s, lone + 1) for s in tied)

    # ------------------------------------------------------------- decisions
    def choose(self, engine: Any, seat: int) -> dict:
        """The action maximising the evaluation, for ``seat``'s pending decision."""
        d = engine.pending()
        v = _View(engine, seat, self.growth_tiles, self.spread)
        v.opp_w = self._rival_weights(engine, v)
        return getattr(self, "_" + d.kind)(engine, v, d.options)

    def _rival_weights(self, engine: Any, v: _View) -> list[float]:
        """How much each opponent's worth counts against ours: lam, shared evenly."""
        n = v.n
        if n < 2:
            return [0.0] * n
        return [0.0 if s == v.me else self.lam / (n - 1) for s in range(n)]

    def _pick(self, scored: list[tuple[float, Any]]) -> Any:
        best = max(s for s, _ in scored)
        top = [x for s, x in scored if s >= best - 1e-9]
        return top[0] if len(top) == 1 else self._rng.choice(top)

    def _play_tile(self, engine: Any, v: _View, options: dict) -> dict:
        tiles = options["tiles"]
        if len(tiles) == 1:
            return {"play_tile": tiles[0]}
        board = v.get_board(engine)
        free = [c for c in range(v.k) if v.size[c] == 0]
        scored = [(self._tile_value(v, board, t, free), t) for t in tiles]
        return {"play_tile": self._pick(scored)}

    def _found_chain(self, engine: Any, v: _View, options: dict) -> dict:
        names = options["chains"]
        if len(names) == 1:
            return {"found_chain": names[0]}
        board = v.get_board(engine)
        size = self._lone_group(board)
        scored = [(self._found_delta(v, v.index[x], size), x) for x in names]
        return {"found_chain": self._pick(scored)}

    @classmethod
    def _lone_group(cls, board: dict) -> int:
        """Size of the largest group of connected lone tiles: the chain about to be founded."""
        best, seen = 2, set()
        for tile, val in board.items():
            if val is None and tile not in seen:
                _, lone = cls._tile_effect(board, tile)
                seen.add(tile)
                best = max(best, lone + 1)
        return best

    def _choose_survivor(self, engine: Any, v: _View, options: dict) -> dict:
        names = options["chains"]
        board = v.get_board(engine)
        merging, lone = self._merge_tile(board)
        cs = sorted({v.index[x] for x in merging} | {v.index[x] for x in names})
        scored = [(self._merge_delta(v, cs, v.index[x], lone + 1), x) for x in names]
        return {"choose_survivor": self._pick(scored)}

    def _choose_defunct(self, engine: Any, v: _View, options: dict) -> dict:
        # disposal follows this order and trades draw on the same survivor shares:
        # put first the chain where we hold the most (and rivals the least)
        me = v.me
        scored = []
        for x in options["chains"]:
            c = v.index[x]
            mine = v.held[me][c]
            others = sum(h[c] for h in v.held) - mine
            scored.append((mine * 100 - others, x))
        return {"choose_defunct": self._pick(scored)}

    def _dispose(self, engine: Any, v: _View, options: dict) -> dict:
        owned = options["shares"]
        if owned <= 0:
            return {"dispose": {"sell": 0, "trade": 0}}
        c = v.index[options["chain"]]
        s = v.index[options["survivor"]]
        price = options["price"]
        board = v.get_board(engine)
        merging, lone = self._merge_tile(board)
        size_after = sum(v.size[v.index[x]] for x in merging) + lone + 1 if merging else \
            v.size[s] + v.size[c] + 1
        col_s = self._col(v, s)
        avail_s = options["survivor_available"]
        keep_each = self.keep_chance * v.horizon * v.price(c, 3)
        me = v.me
        best = None
        for trade in range(0, min(owned, 2 * avail_s) + 1, 2):
            got = trade // 2
            col = list(col_s)
            col[me] += got
            u = self._chain_u(v, s, size_after, col, avail_s - got)
            rest = owned - trade
            cash = list(v.cash)
            cash[me] += rest * price
            u_sell = self._cash_u(v, cash)
            u_keep = self._cash_u(v, v.cash) + rest * keep_each
            if u_sell >= u_keep:
                cand = (u + u_sell, trade, rest)
            else:
                cand = (u + u_keep, trade, 0)
            if best is None or cand[0] > best[0] + 1e-9:
                best = cand
        _, trade, sell = best
        return {"dispose": {"sell": sell, "trade": trade}}

    def _purchase(self, engine: Any, v: _View, options: dict) -> dict:
        offer = options["chains"]
        prices = options["prices"]
        cash = options["cash"]
        me = v.me
        buys: dict[str, int] = {}
        cols = {x: self._col(v, v.index[x]) for x in offer}
        avails = {x: v.avail[v.index[x]] for x in offer}
        current = {x: self._chain_u(v, v.index[x], v.size[v.index[x]], cols[x], avails[x]) for x in offer}
        cash_list = list(v.cash)
        for _ in range(v.max_buy):
            best, best_x, best_u = 1e-6, None, 0.0
            cash_u = self._cash_u(v, cash_list)
            for x, most in offer.items():
                p = prices[x]
                if buys.get(x, 0) >= most or p > cash:
                    continue
                c = v.index[x]
                col = cols[x]
                col[me] += 1
                u = self._chain_u(v, c, v.size[c], col, avails[x] - 1)
                col[me] -= 1
                cash_list[me] -= p
                gain = u - current[x] + self._cash_u(v, cash_list) - cash_u
                cash_list[me] += p
                if gain > best:
                    best, best_x, best_u = gain, x, u
            if best_x is None:
                break
            buys[best_x] = buys.get(best_x, 0) + 1
            cols[best_x][me] += 1
            avails[best_x] -= 1
            current[best_x] = best_u
            cash -= prices[best_x]
            cash_list[me] -= prices[best_x]
        end = bool(options.get("can_end")) and self._ahead_after(v, buys, prices)
        return {"purchase": buys, "end_game": end}

    def _ahead_after(self, v: _View, buys: dict[str, int], prices: dict[str, int]) -> bool:
        """Exact final scores if the game ended after this purchase: are we strictly ahead?"""
        worth = list(v.cash)
        me = v.me
        for x, n in buys.items():
            worth[me] -= n * prices[x]
        for c in range(v.k):
            size = v.size[c]
            if size < 2:
                continue
            col = self._col(v, c)
            x = v.chains[c]
            if x in buys:
                col[me] += buys[x]
            p = v.price(c, size)
            bon = exact_bonuses(col, p, v.first_x, v.second_x, v.rounding)
            for s in range(v.n):
                worth[s] += col[s] * p + bon[s]
        mine = worth[me]
        return all(mine > w + self.claim_margin for s, w in enumerate(worth) if s != me)


#: bot names -> factories taking a seed; the first is the hall's default
BOTS: dict[str, Callable[[int | None], Any]] = {"strong": StrongBot, "random": RandomBot}


def make_bot(name: str, seed: int | None = None) -> Any:
    """The bot called ``name`` (see ``BOTS``), seeded for reproducible play."""
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown Acquire bot {name!r}; known: {', '.join(BOTS)}") from None
    return factory(seed)
