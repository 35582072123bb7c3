"""Acquire, Windward code-war edition: the rules engine (variant ``"windward"``).

A subclass of the classic engine (:class:`gamehall_acquire.rules.Game`): the
same board, chain and share bookkeeping, the same IEngine surface
(``pending_seat``, ``pending``, ``apply``, ``legal_actions``, ``timeout_action``,
``is_over``, ``result``, ``record``, ``to_dict``/``from_dict``), with the
Windward turn, power-up cards, bonus arithmetic, end and score.  Sources: the
contest's rules text and ``windward-protocol.md`` (whose "rules as
implemented" sections decide where the two differ; deviations are listed at
the end of this docstring).

Use::

    game = WindwardGame.new(["a", "b", "c", "d", "e", "f"], seed=42)   # first=k rotates the start
    while not game.is_over():
        d = game.pending()                        # Decision(seat, kind, options)
        game.apply(d.seat, game.timeout_action(d.seat))
    game.result()      # {"scores": [...], "winners": [...], "winner": seat, "reason": ...}

Always 6 seats; $6000 and 6 tiles each; 108 tiles ("1A".."12I": column 1-12 =
protocol x+1, row A-I = protocol y; :func:`tile_xy` / :func:`xy_tile` convert);
7 chains of 25 shares: Amazon, Google (from $200 at 2 tiles), JetBrains,
Microsoft, salesforce.com (from $300), Hewlett-Packard, Windward (from $400),
per the rules text's price table.  Shares are bought at the current price.

Decisions and the protocol's queries
------------------------------------
Each pending decision is exactly one protocol query; each reply maps onto
exactly one action (``{kind: payload}``).  ``normalise(seat, raw)`` turns any
reply -- the engine's form, or the flat protocol attributes (``tile-x``,
``created-hotel``, ``buy="Name:n;"``...) -- into a legal action.

=================  =========================  ================================================
kind               protocol query             action (reply attributes -> payload keys)
=================  =========================  ================================================
``card``           ``query-card``             ``{"card": "NONE" | "DRAW_5_TILES" | "PLACE_4_TILES"}``
                                              (``card="0|4|5"``)
``tile``           ``query-tile``             ``{"tile": {"tile": "5D" | None,
                   (PLACE_4 placements 1-3)   "created_hotel": chain, "merge_survivor": chain}}``
``tile_purchase``  ``query-tile-purchase``    ``{"tile_purchase": {"tile", "created_hotel",
                                              "merge_survivor", "card": "NONE" | "FREE_3_STOCK" |
                                              "BUY_5_STOCK" | "TRADE_2_STOCK",
                                              "buy": [[chain, n], ...], "trade": [[give, get], ...]}}``
``merge``          ``query-merge``            ``{"merge": {"keep": k, "sell": s, "trade": t}}``
=================  =========================  ================================================

Options (``pending().options``):

* ``card``: ``{"cards": ["NONE", held pre-turn cards...]}``.  Asked at the start of
  a turn only when the player has a playable tile and still holds card 4 or 5.
* ``tile`` / ``tile_purchase``: ``{"tiles": [playable tiles, hand order],
  "found": {tile: [chains it may found]}, "survivor": {tile: [tied largest
  chains]}, "placement": i, "placements": n}`` (placement i of n this turn);
  ``tile_purchase`` adds ``"cards": ["NONE", held purchase cards...]``,
  ``"allowance": {card: shares}``, ``"max_trades"``, ``"cash"``, ``"prices"``
  and ``"available"`` (now, before this reply's tile).  ``tile`` is skipped
  when the hand has no playable tile left; ``tile_purchase`` is always asked
  (with ``"tiles": []`` and ``"tile": None`` the only choice when nothing is playable).
* ``merge``: ``{"survivor", "defunct", "shares", "survivor_available",
  "price", "merger_seat"}``; asked of each holder of each defunct chain.

Payload rules (``apply`` raises ``IllegalAction`` and changes nothing otherwise):

* ``tile``: one of the playable tiles, or None only when there is none.
  ``created_hotel`` is required, and must be a chain not on the board, when the
  tile founds a chain; ``merge_survivor`` is required, and must be one of the
  tied largest chains, when a merge has a tie; both are ignored (and not
  recorded) otherwise.
* ``card``: NONE or a card of the right group that the player still holds.
  Each card is played once per game; one pre-turn card (4, 5) and one purchase
  card (1, 2, 3) per turn.
* ``buy``: an ordered list of orders, each a chain that is on the board once
  this reply's tile is placed (and its merge resolved), n >= 0; at most 3
  shares in all (5 with BUY_5_STOCK, 3 free with FREE_3_STOCK).  The orders
  are filled *after* the merge, in order, each clipped to the shares left,
  to the remaining allowance and (unless FREE_3) to cash // current price --
  exactly as the original server did, since cash, prices and availability
  change between the reply and the purchase.  A dict ``{chain: n}`` is accepted.
* ``trade``: only with TRADE_2_STOCK; at most 3 entries [give, get], both on
  the board after the placement; executed after the purchase, each one
  skipped if the player then holds fewer than 2 of ``give`` or no share of
  ``get`` is left.  ``give == get`` is allowed (the original did not forbid it).
* ``merge``: whole numbers >= 0 with keep + sell + trade = shares held, trade
  even and trade/2 <= survivor shares left (``keep`` may be omitted).

Timeouts and illegal replies
----------------------------
``timeout_action(seat)`` is a concrete, recorded action: query-card NONE;
query-tile / query-tile-purchase a *random* playable tile (``random.Random``
seeded from the game seed and the number of actions so far, so a replay
draws the same), the default chain (first inactive chain to found, first of
the largest chains in neighbour order to survive), no card, nothing bought;
query-merge sell everything.

``normalise(seat, raw)`` follows section 7 of the protocol document: a tile not
in the hand or not playable -> the first playable tile of the hand; unknown
or active ``created_hotel`` -> the first inactive chain; invalid
``merge_survivor`` -> the first of the largest chains in neighbour order; a
card not held (or of the wrong group) -> NONE; ``buy`` entries with unknown
or absent chains dropped, counts clamped to >= 0 and to the allowance; trades
kept only with TRADE_2, known chains on the board, at most 3; merge replies
``trade := min(trade, held)``, ``keep := min(keep, held - trade)``, ``sell :=
the rest``, untradeable (odd, or beyond the survivor's shares left) traded
shares sold.  Malformed numbers are ignored, negative ones clamped to 0,
anything unparseable is an empty reply; ``normalise`` never raises for the
pending seat.

Turn (protocol 8.3), checked and played in this order
------------------------------------------------------
1. Before each turn: the game ends if a chain is on the board and either every
   chain on the board is safe (11+) or one has 41+ tiles (reasons
   ``"all_safe"``, ``"chain_41"``); or -- a documented safety end, not in the
   original, which would loop for ever -- if the draw pile holds no playable
   tile and no hand holds a playable tile, nobody can ever place a tile again
   (``"blocked"``).
2. Tidy the hand: tiles that can never be played (they would merge two safe
   chains) are set aside; refill to 6; while no tile in hand is playable, draw
   one more (the hand may exceed 6).
3. ``card`` (query-card).  DRAW_5_TILES draws 5 tiles at once (fewer if the
   pile runs out); PLACE_4_TILES gives 4 placements: 3 ``tile`` decisions,
   each merge resolved (all its ``merge`` decisions) before the next, then
   the ``tile_purchase``.
4. ``tile_purchase``: the tile; its found / grow / merge; then the purchase,
   the purchase card, the trades.
5. Refill the hand to 6 if below 6 (after DRAW_5 there is no refill until the
   hand is below 6).

Placing (8.4): neighbours are examined in protocol order x-1, y-1, x+1, y+1;
the tile and the neighbouring singles found, join or merge.  The founder
gets a free share if one is left.  Merges (8.5): the survivor is the largest
chain (the player picks among ties); the defunct chains, largest first (ties
in neighbour order), have their bonuses paid at their pre-merge prices before
any share moves (integer division, no rounding: a sole holder gets both
bonuses, holders tied for first each get first//n + second//n, holders tied
for second each get second//n); disposal goes player by player from the
current player in seat order, each player deciding on every defunct chain it
holds in turn (sell at the pre-merge price, trade 2:1 for the survivor, keep);
then the defunct tiles, the placed tile and its neighbouring singles join the
survivor.  Tiles in the pile that can never be played are set aside when they
come up, which is equivalent to the original's removing them from the pile.

Score (8.8): cash + for each chain on the board, shares x current price + the
majority bonuses the player would receive now.  The game's result is each
seat's score at the end (no pay-out step: the score already counts it);
``winners`` lists every seat with the top score, ``winner`` the earliest of
them (the original's tie-break).

Events: those of the classic engine (``turn``, ``tile_played``,
``chain_founded``, ``chain_grew``, ``merger``, ``bonus``, ``disposed``,
``merger_done``, ``tile_drawn`` (private), ``tile_dead``, ``bag_empty``,
``no_playable_tile``, ``game_over``) plus ``card_played`` {seat, card},
``purchased`` {seat, card, shares: [[chain, n]], cost, cash, free} and
``traded`` {seat, trades: [[give, get]], cash}.

Deviations from the original server (by choice, documented)
-----------------------------------------------------------
* Prices follow the rules text's tiers (Windward, Hewlett-Packard 400;
  JetBrains, Microsoft, salesforce.com 300); the 2016 source gave 400 to
  JetBrains and Windward and 300 to Hewlett-Packard (``PREMIUMS_AS_CODED``).
* Shares cost the current price; ``WindwardRules(charge_start_price=True)``
  reproduces the source's start-price charge.
* Answering card 1-3 to query-card, or 4-5 in a purchase reply, is NONE (the
  original consumed the card with no effect).
* The played tile leaves the hand by coordinates (the original's identity
  quirk kept it listed until the next turn).
* Timeouts place a random playable tile (the rules text) where the original
  placed the first; an invalid tile in a reply still becomes the first.
* The safety end ``"blocked"`` above.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from gamehall.interfaces import IllegalAction

from ..rules import DEAD, FOUND, GROW, LONE, MERGE, UNPLAYABLE, VARIANTS, Game, Rules, rules_for
from ..tiles import N_ROWS, N_TILES, NAMES, tile_index
from .. import record as _record

__all__ = ["WindwardRules", "WindwardGame", "game_from_record", "tile_xy", "xy_tile",
           "CARDS", "CARD_CODES", "CHAINS", "PREMIUMS", "PREMIUMS_AS_CODED", "normalise"]

VARIANT = "windward"

#: chains in the protocol's fixed (name) order
CHAINS = ("Amazon", "Google", "Hewlett-Packard", "JetBrains", "Microsoft", "salesforce.com", "Windward")
#: price premium in hundreds over the 200-tier: the rules text's table
PREMIUMS = (0, 0, 2, 1, 1, 1, 2)
#: the 2016 server source's assignment (JetBrains and Windward 400, Hewlett-Packard 300)
PREMIUMS_AS_CODED = (0, 0, 1, 2, 1, 1, 2)

NONE, FREE_3, BUY_5, TRADE_2, DRAW_5, PLACE_4 = (
    "NONE", "FREE_3_STOCK", "BUY_5_STOCK", "TRADE_2_STOCK", "DRAW_5_TILES", "PLACE_4_TILES")
#: card names by protocol code 0..5
CARDS = (NONE, FREE_3, BUY_5, TRADE_2, DRAW_5, PLACE_4)
CARD_CODES = {name: code for code, name in enumerate(CARDS)}
PRE_TURN_CARDS = (DRAW_5, PLACE_4)
PURCHASE_CARDS = (FREE_3, BUY_5, TRADE_2)

CARD, TILE, TILE_PURCHASE, MERGE_PHASE = "card", "tile", "tile_purchase", "merge"
KINDS = (CARD, TILE, TILE_PURCHASE, MERGE_PHASE)
#: protocol query name of each decision kind
QUERY_OF_KIND = {CARD: "query-card", TILE: "query-tile", TILE_PURCHASE: "query-tile-purchase",
                 MERGE_PHASE: "query-merge"}

STATE_FORMAT = "gamehall-acquire-windward-state/1"
PRIVATE_EVENTS = frozenset({"tile_drawn"})

_TILE_KEYS = frozenset({"tile", "created_hotel", "merge_survivor"})
_PURCHASE_KEYS = _TILE_KEYS | {"card", "buy", "trade"}


def tile_xy(name: str) -> tuple[int, int]:
    """Protocol coordinates (x 0..11, y 0..8) of a tile name ("1A" -> (0, 0))."""
    return divmod(tile_index(name), N_ROWS)


def xy_tile(x: int, y: int) -> str:
    """Tile name of protocol coordinates; ValueError outside the board."""
    if not (isinstance(x, int) and isinstance(y, int)) or not (0 <= x < 12 and 0 <= y < N_ROWS):
        raise ValueError(f"not a tile: ({x!r}, {y!r})")
    return NAMES[x * N_ROWS + y]


def _protocol_neighbours(t: int) -> tuple[int, ...]:
    x, y = divmod(t, N_ROWS)
    out = []
    if x > 0:
        out.append(t - N_ROWS)
    if y > 0:
        out.append(t - 1)
    if x < 11:
        out.append(t + N_ROWS)
    if y < N_ROWS - 1:
        out.append(t + 1)
    return tuple(out)


#: neighbours in the protocol's discovery order: x-1, y-1, x+1, y+1
PNEIGHBOURS = tuple(_protocol_neighbours(t) for t in range(N_TILES))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True)
class WindwardRules(Rules):
    """The classic rules' fields with Windward values, plus the cards' and series' knobs."""

    variant: str = VARIANT
    chains: tuple = CHAINS
    aliases: tuple = (("HP", "Hewlett-Packard"), ("salesforce", "salesforce.com"))
    premiums: tuple = PREMIUMS
    bonus_rounding: int = 1                 # unused: bonuses are split by integer division
    min_players: int = 6
    max_players: int = 6
    buy5_max: int = 5                       # shares with BUY_5_STOCK
    free3_max: int = 3                      # free shares with FREE_3_STOCK
    trade2_max: int = 3                     # trades with TRADE_2_STOCK
    draw5_count: int = 5                    # tiles drawn by DRAW_5_TILES
    place4_count: int = 4                   # placements with PLACE_4_TILES
    charge_start_price: bool = False        # True: the 2016 source's start-price charge
    first_seat: int = 0                     # who starts (a series rotates it)

    def start_price(self, c: int) -> int:
        return self.price_table[c][2]


VARIANTS[VARIANT] = WindwardRules


class WindwardGame(Game):
    """One Windward game; see the module docstring."""

    rules_class = WindwardRules
    _queue_phase = MERGE_PHASE              # merge decisions go round the holders (pending_seat)

    def __init__(self, players, rules, tile_bag, seed=None):
        super().__init__(players, rules, tile_bag, seed)
        n = len(self.players)
        self._racks = [[] for _ in range(n)]        # hands, in draw order, no empty slots
        self._cards = [list(CARDS[1:]) for _ in range(n)]
        self._placements = 1                        # placements this turn
        self._placement = 1                         # the one pending (1-based)
        self._purchase: dict | None = None          # the tile_purchase reply waiting for its merge
        self._scores: list[int] | None = None

    @classmethod
    def new(cls, players, seed=None, tile_bag=None, rules=None, first=None) -> "WindwardGame":
        """Seat the 6 ``players``, shuffle (or take ``tile_bag``), deal; ``first`` = starting seat."""
        rules = rules or cls.default_rules()
        if first is not None:
            rules = replace(rules, first_seat=first)
        if not 0 <= rules.first_seat < len(players):
            raise ValueError(f"no seat {rules.first_seat} to start")
        return super().new(players, seed=seed, tile_bag=tile_bag, rules=rules)

    def _setup(self) -> list[dict]:
        ev: list[dict] = []
        n = len(self.players)
        first = self.rules.first_seat
        self.order = [(first + i) % n for i in range(n)]
        for seat in range(n):
            for _ in range(self.rules.rack_size):
                self._draw(seat, ev)
        self._start_turn(0, ev)
        return ev

    # ------------------------------------------------------------ views
    def hand(self, seat: int) -> list[str]:
        return [NAMES[t] for t in self._racks[seat]]

    @property
    def hands(self) -> list[list[str]]:
        return [self.hand(s) for s in range(len(self.players))]

    def cards(self, seat: int) -> list[str]:
        """Cards ``seat`` has not played yet, in code order."""
        return list(self._cards[seat])

    def card_codes(self, seat: int) -> list[int]:
        return [CARD_CODES[c] for c in self._cards[seat]]

    def start_price(self, chain) -> int:
        return self.rules.start_price(self._c(chain))

    def stock_price(self, chain) -> int:
        """The protocol's stock-price: the current price, or the start price off the board."""
        c = self._c(chain)
        return self.rules.price(c, len(self._ctiles[c])) or self.rules.start_price(c)

    def pile_left(self) -> int:
        """Tiles still to draw that are not known to be dead."""
        bag = self._tile_bag
        if not self._may_have_dead():
            return len(bag) - self._bag_pos
        return sum(1 for t in bag[self._bag_pos:] if self._classify(t) != DEAD)

    def majorities(self, chain) -> tuple[list[int], list[int]]:
        """(first-majority seats, second-majority seats) as the protocol lists them."""
        c = self._c(chain)
        if not self._ctiles[c]:
            return [], []
        holders = [(h[c], s) for s, h in enumerate(self._held) if h[c] > 0]
        if not holders:
            return [], []
        top = max(k for k, _ in holders)
        firsts = [s for k, s in holders if k == top]
        if len(firsts) > 1 or len(holders) == 1:
            return firsts, list(firsts)
        runner = max(k for k, _ in holders if k != top)
        return firsts, [s for k, s in holders if k == runner]

    def score(self, seat: int) -> int:
        """cash + shares of chains on the board at their price + the bonuses due now."""
        worth = self.cash[seat]
        price = self.rules.price
        for c, ts in enumerate(self._ctiles):
            if ts:
                worth += self._held[seat][c] * price(c, len(ts))
                for s, amount, _ in self._bonus_list(c):
                    if s == seat:
                        worth += amount
        return worth

    net_worth = score

    def scores(self) -> list[int]:
        if self._scores is not None:
            return list(self._scores)
        return [self.score(s) for s in range(len(self.players))]

    def rack_statuses(self, seat: int) -> list[str | None]:
        """``tile_status`` of each slot of ``seat``'s hand, one at a time: this engine's turn
        does not keep the classic turn's rack statuses (``_tstat``) up to date."""
        return [None if t is None else self.tile_status(t) for t in self.racks[seat]]

    def cell_type(self, tile: str) -> int:
        """Protocol map code: 1 undeveloped (playable), 2 hotel, 3 single, 4 never playable,
        5 not playable now (would found an eighth chain)."""
        t = tile_index(tile)
        m = self._merge
        v = self._cells[t]
        if v >= 0 or (m is not None and t == m["tile"]):
            return 2
        if v == LONE:
            return 3
        status = self._classify(t)
        return 4 if status == DEAD else 5 if status == UNPLAYABLE else 1

    def view(self, seat: int | None = None) -> dict:
        """The protocol's map / hotels / players payload, as plain data (seats for guids).

        During a merge the placed tile shows as the survivor's while every
        chain keeps its pre-merge size, as the original sent it.  ``seat``'s
        own hand is included (``tiles``), nobody else's.
        """
        chains = self.rules.chains
        m = self._merge
        columns = []
        for x in range(12):
            col = []
            for y in range(N_ROWS):
                t = x * N_ROWS + y
                kind = self.cell_type(NAMES[t])
                v = self._cells[t]
                hotel = chains[v] if v >= 0 else (chains[m["survivor"]] if kind == 2 else "")
                col.append((kind, hotel))
            columns.append(col)
        hotels = []
        for c, name in enumerate(chains):
            n = len(self._ctiles[c])
            price = self.stock_price(c)
            firsts, seconds = self.majorities(c)
            hotels.append({
                "name": name, "start_price": self.rules.start_price(c), "num_tiles": n,
                "is_active": n >= 2, "is_safe": n >= self.rules.safe_size, "stock_price": price,
                "first_majority": price * self.rules.first_bonus if n else 0,
                "second_majority": price * self.rules.second_bonus if n else 0,
                "num_avail_shares": self._avail[c],
                "owners": [(s, h[c]) for s, h in enumerate(self._held) if h[c] > 0],
                "first_majority_owners": [(s, self._held[s][c]) for s in firsts],
                "second_majority_owners": [(s, self._held[s][c]) for s in seconds],
            })
        players = []
        for s, name in enumerate(self.players):
            p = {"seat": s, "name": name, "cash": self.cash[s], "score": self.score(s),
                 "powers": self.card_codes(s),
                 "stock": {chains[c]: k for c, k in enumerate(self._held[s]) if k > 0}}
            if s == seat:
                p["tiles"] = [tile_xy(NAMES[t]) for t in self._racks[s]]
            players.append(p)
        return {"map": {"width": 12, "height": N_ROWS, "columns": columns},
                "hotels": hotels, "players": players}

    # ------------------------------------------------------------ board helpers
    def _chains_ordered(self, t: int) -> list[int]:
        """Distinct chains around ``t`` in protocol neighbour order."""
        cells = self._cells
        out: list[int] = []
        for n in PNEIGHBOURS[t]:
            v = cells[n]
            if v >= 0 and v not in out:
                out.append(v)
        return out

    def _first_inactive(self) -> int:
        for c, ts in enumerate(self._ctiles):
            if not ts:
                return c
        return -1

    def _largest(self, cs: list[int]) -> list[int]:
        ctiles = self._ctiles
        big = max(len(ctiles[c]) for c in cs)
        return [c for c in cs if len(ctiles[c]) == big]

    def _draw(self, seat: int, ev: list) -> bool:
        """Draw one tile into ``seat``'s hand, setting aside dead ones; False if none is left."""
        bag = self._tile_bag
        maybe_dead = self._may_have_dead()
        while self._bag_pos < len(bag):
            t = bag[self._bag_pos]
            self._bag_pos += 1
            last = self._bag_pos == len(bag)
            if maybe_dead and self._classify(t) == DEAD:
                self._dead.add(t)
                ev.append({"type": "tile_dead", "seat": None, "slot": None, "tile": NAMES[t]})
                if last:
                    ev.append({"type": "bag_empty"})
                continue
            hand = self._racks[seat]
            hand.append(t)
            ev.append({"type": "tile_drawn", "seat": seat, "slot": len(hand) - 1, "tile": NAMES[t]})
            if last:
                ev.append({"type": "bag_empty"})
            return True
        return False

    def _playable_of(self, seat: int) -> list[int]:
        classify = self._classify
        return [t for t in self._racks[seat] if classify(t) < UNPLAYABLE]

    def _has_playable(self, seat: int) -> bool:
        classify = self._classify
        for t in self._racks[seat]:
            if classify(t) < UNPLAYABLE:
                return True
        return False

    # ------------------------------------------------------------ bonuses
    def _split(self, total: int, k: int) -> int:
        """Integer division, no rounding (protocol 8.5)."""
        return total // k

    def _split_first(self, first: int, second: int, k: int) -> int:
        # the original server divided each bonus on its own
        return first // k + second // k

    # ------------------------------------------------------------ turn sequencing
    def _end_check(self) -> str | None:
        safe, end = self.rules.safe_size, self.rules.end_size
        any_on, all_safe = False, True
        for ts in self._ctiles:
            n = len(ts)
            if n:
                any_on = True
                if n >= end:
                    return "chain_41"
                if n < safe:
                    all_safe = False
        if any_on and all_safe:
            return "all_safe"
        if self.pile_left() == 0 and not any(self._has_playable(s) for s in range(len(self.players))):
            return "blocked"
        return None

    def _start_turn(self, pos: int, ev: list) -> None:
        reason = self._end_check()
        if reason is not None:
            self._finish(reason, ev)
            return
        self._pos = pos
        seat = self.current = self.order[pos]
        self._tile = -1
        self._merge = None
        self._purchase = None
        self._placements = self._placement = 1
        ev.append({"type": "turn", "seat": seat})
        self._tidy(seat, ev)
        if self._has_playable(seat) and any(c in self._cards[seat] for c in PRE_TURN_CARDS):
            self._phase = CARD
        else:
            self._next_placement(ev)

    def _tidy(self, seat: int, ev: list) -> None:
        hand = self._racks[seat]
        if self._may_have_dead():
            for t in list(hand):
                if self._classify(t) == DEAD:
                    hand.remove(t)
                    self._dead.add(t)
                    ev.append({"type": "tile_dead", "seat": seat, "slot": None, "tile": NAMES[t]})
        while len(hand) < self.rules.rack_size and self._draw(seat, ev):
            pass
        while not self._has_playable(seat) and self._draw(seat, ev):
            pass

    def _next_placement(self, ev: list) -> None:
        seat = self.current
        if self._placement < self._placements:
            if self._has_playable(seat):
                self._phase = TILE
                return
            self._placement = self._placements      # nothing can change: straight to the last
        self._phase = TILE_PURCHASE
        if not self._has_playable(seat):
            ev.append({"type": "no_playable_tile", "seat": seat})

    def _after_placement(self, ev: list) -> None:
        if self._placement < self._placements:
            self._placement += 1
            self._next_placement(ev)
        else:
            self._execute_purchase(ev)
            self._end_turn(ev)

    def _end_turn(self, ev: list) -> None:
        seat = self.current
        while len(self._racks[seat]) < self.rules.rack_size and self._draw(seat, ev):
            pass
        self._start_turn((self._pos + 1) % len(self.order), ev)

    def _finish(self, reason: str, ev: list) -> None:
        self._phase = None
        self._merge = None
        self._purchase = None
        self.end_reason = reason
        self._scores = [self.score(s) for s in range(len(self.players))]
        res = self.result()
        ev.append({"type": "game_over", "reason": reason, "scores": res["scores"],
                   "winners": res["winners"]})

    def result(self) -> dict:
        if not self.is_over():
            raise IllegalAction("the game is not over")
        scores = list(self._scores)
        top = max(scores)
        winners = [s for s, v in enumerate(scores) if v == top]
        return {"scores": scores, "winners": winners, "winner": winners[0], "reason": self.end_reason}

    # ------------------------------------------------------------ decisions
    def pending_seat(self) -> int | None:
        if self._phase is None:
            return None
        if self._phase == MERGE_PHASE:
            return self._merge["queue"][0][0]
        return self.current

    def _options_card(self, seat):
        return {"cards": [NONE] + [c for c in PRE_TURN_CARDS if c in self._cards[seat]]}

    def _placement_options(self, seat) -> dict:
        chains = self.rules.chains
        tiles, found, survivor = [], {}, {}
        for t in self._racks[seat]:
            status = self._classify(t)
            if status >= UNPLAYABLE:
                continue
            name = NAMES[t]
            tiles.append(name)
            if status == FOUND:
                found[name] = [chains[c] for c, ts in enumerate(self._ctiles) if not ts]
            elif status == MERGE:
                tied = self._largest(self._chains_ordered(t))
                if len(tied) > 1:
                    survivor[name] = [chains[c] for c in tied]
        return {"tiles": tiles, "found": found, "survivor": survivor,
                "placement": self._placement, "placements": self._placements}

    def _options_tile(self, seat):
        return self._placement_options(seat)

    def _options_tile_purchase(self, seat):
        o = self._placement_options(seat)
        chains = self.rules.chains
        held = [c for c in PURCHASE_CARDS if c in self._cards[seat]]
        o["cards"] = [NONE] + held
        o["allowance"] = {c: self._allowance(c) for c in o["cards"]}
        o["max_trades"] = self.rules.trade2_max if TRADE_2 in held else 0
        o["cash"] = self.cash[seat]
        o["prices"] = {chains[c]: self.rules.price(c, len(ts)) for c, ts in enumerate(self._ctiles) if ts}
        o["available"] = {chains[c]: self._avail[c] for c, ts in enumerate(self._ctiles) if ts}
        return o

    def _options_merge(self, seat):
        m = self._merge
        c = m["queue"][0][1]
        s = m["survivor"]
        chains = self.rules.chains
        return {"survivor": chains[s], "defunct": chains[c], "shares": self._held[seat][c],
                "survivor_available": self._avail[s], "price": m["prices"][m["defunct"].index(c)],
                "merger_seat": self.current}

    def _allowance(self, card: str) -> int:
        r = self.rules
        return r.buy5_max if card == BUY_5 else r.free3_max if card == FREE_3 else r.max_buy

    def placement_variants(self, seat) -> list[dict]:
        """Every placement ``seat`` may make now, one dict per tile and hotel choice."""
        o = self._placement_options(seat)
        out = []
        for name in o["tiles"]:
            if name in o["found"]:
                out.extend({"tile": name, "created_hotel": c} for c in o["found"][name])
            elif name in o["survivor"]:
                out.extend({"tile": name, "merge_survivor": c} for c in o["survivor"][name])
            else:
                out.append({"tile": name})
        return out or [{"tile": None}]

    def legal_actions(self) -> list[dict]:
        """Every legal action, except that ``tile_purchase`` actions are listed with empty
        ``buy`` and ``trade`` (those are orders: any list within the options' limits)."""
        phase = self._phase
        if phase is None:
            return []
        seat = self.pending_seat()
        if phase == CARD:
            return [{CARD: c} for c in self._options_card(seat)["cards"]]
        if phase == TILE:
            return [{TILE: p} for p in self.placement_variants(seat)]
        if phase == TILE_PURCHASE:
            cards = [NONE] + [c for c in PURCHASE_CARDS if c in self._cards[seat]]
            return [{TILE_PURCHASE: {**p, "card": c, "buy": [], "trade": []}}
                    for p in self.placement_variants(seat) for c in cards]
        o = self._options_merge(seat)
        held = o["shares"]
        top = min(held, 2 * o["survivor_available"])
        return [{MERGE_PHASE: {"keep": held - t - s, "sell": s, "trade": t}}
                for t in range(0, top + 1, 2) for s in range(held - t + 1)]

    def timeout_action(self, seat: int) -> dict:
        """The recorded default: NONE / a random playable tile, nothing bought / sell all."""
        if self._phase is None or seat != self.pending_seat():
            raise IllegalAction(f"no decision is pending for seat {seat}")
        phase = self._phase
        if phase == CARD:
            return {CARD: NONE}
        if phase == MERGE_PHASE:
            held = self._options_merge(seat)["shares"]
            return {MERGE_PHASE: {"keep": 0, "sell": held, "trade": 0}}
        playable = self._playable_of(seat)
        tile = None
        if playable:
            rng = random.Random(f"windward-timeout:{self.seed}:{len(self._actions)}")
            tile = rng.choice(playable)
        p = self._default_placement(tile)
        if phase == TILE:
            return {TILE: p}
        return {TILE_PURCHASE: {**p, "card": NONE, "buy": [], "trade": []}}

    def _default_placement(self, t: int | None) -> dict:
        """The placement of tile index ``t`` with the protocol's default chain choices."""
        if t is None:
            return {"tile": None}
        p = {"tile": NAMES[t]}
        status = self._classify(t)
        chains = self.rules.chains
        if status == FOUND:
            p["created_hotel"] = chains[self._first_inactive()]
        elif status == MERGE:
            tied = self._largest(self._chains_ordered(t))
            if len(tied) > 1:
                p["merge_survivor"] = chains[tied[0]]
        return p

    # ------------------------------------------------------------ apply
    def _parse_tile_plan(self, seat: int, p: dict) -> dict:
        """Validate a placement payload: {"t", "status", "found", "survivor", "merging"}."""
        name = p.get("tile")
        playable = self._playable_of(seat)
        if name is None:
            if playable:
                raise IllegalAction("you must place a tile: "
                                    + ", ".join(NAMES[t] for t in playable))
            return {"t": -1, "status": None, "found": -1, "survivor": -1, "merging": []}
        try:
            t = tile_index(name)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from None
        if t not in self._racks[seat]:
            raise IllegalAction(f"{NAMES[t]} is not in your hand")
        status = self._classify(t)
        if status == UNPLAYABLE:
            raise IllegalAction(f"{NAMES[t]} would found an eighth chain: it cannot be played now")
        if status == DEAD:
            raise IllegalAction(f"{NAMES[t]} would merge safe chains: it can never be played")
        plan = {"t": t, "status": status, "found": -1, "survivor": -1, "merging": []}
        chains = self.rules.chains
        if status == FOUND:
            ch = p.get("created_hotel")
            if ch is None:
                raise IllegalAction(f"{NAMES[t]} founds a chain: name it (created_hotel)")
            c = self._parse_chain(ch)
            if self._ctiles[c]:
                raise IllegalAction(f"{chains[c]} is already on the board")
            plan["found"] = c
        elif status == MERGE:
            merging = self._chains_ordered(t)
            tied = self._largest(merging)
            if len(tied) > 1:
                ch = p.get("merge_survivor")
                if ch is None:
                    raise IllegalAction("the merging chains tie: choose the survivor (merge_survivor) among "
                                        + ", ".join(chains[c] for c in tied))
                c = self._parse_chain(ch)
                if c not in tied:
                    raise IllegalAction(f"{chains[c]} is not one of the largest chains in this merger")
                plan["survivor"] = c
            else:
                plan["survivor"] = tied[0]
            plan["merging"] = merging
        return plan

    def _canonical_placement(self, plan: dict) -> dict:
        chains = self.rules.chains
        out = {"tile": NAMES[plan["t"]] if plan["t"] >= 0 else None}
        if plan["found"] >= 0:
            out["created_hotel"] = chains[plan["found"]]
        if plan["merging"] and len(self._largest(plan["merging"])) > 1:
            out["merge_survivor"] = chains[plan["survivor"]]
        return out

    def _active_after(self, plan: dict) -> set[int]:
        active = {c for c, ts in enumerate(self._ctiles) if ts}
        if plan["found"] >= 0:
            active.add(plan["found"])
        for c in plan["merging"]:
            if c != plan["survivor"]:
                active.discard(c)
        return active

    def _payload(self, action: dict, kind: str, keys: frozenset) -> dict:
        p = action[kind]
        if not isinstance(p, dict):
            raise IllegalAction(f"a {kind} action takes a dict")
        extra = set(p) - keys
        if extra:
            raise IllegalAction(f"unexpected keys in a {kind} action: {sorted(map(str, extra))}")
        return p

    def _do_card(self, seat: int, action: dict, ev: list) -> None:
        card = action[CARD]
        if card not in self._options_card(seat)["cards"]:
            raise IllegalAction(f"you cannot play {card!r} now: choose one of "
                                + ", ".join(self._options_card(seat)["cards"]))
        self._log(seat, {CARD: card})
        if card != NONE:
            self._play_card(seat, card, ev)
        if card == DRAW_5:
            for _ in range(self.rules.draw5_count):
                if not self._draw(seat, ev):
                    break
        elif card == PLACE_4:
            self._placements = self.rules.place4_count
        self._next_placement(ev)

    def _play_card(self, seat: int, card: str, ev: list) -> None:
        self._cards[seat].remove(card)
        ev.append({"type": "card_played", "seat": seat, "card": card})

    def _do_tile(self, seat: int, action: dict, ev: list) -> None:
        plan = self._parse_tile_plan(seat, self._payload(action, TILE, _TILE_KEYS))
        self._log(seat, {TILE: self._canonical_placement(plan)})
        if not self._place_plan(seat, plan, ev):
            self._after_placement(ev)

    def _do_tile_purchase(self, seat: int, action: dict, ev: list) -> None:
        p = self._payload(action, TILE_PURCHASE, _PURCHASE_KEYS)
        plan = self._parse_tile_plan(seat, p)
        chains = self.rules.chains
        card = p.get("card", NONE)
        if card is None:
            card = NONE
        if card != NONE and (card not in PURCHASE_CARDS or card not in self._cards[seat]):
            raise IllegalAction(f"you cannot play {card!r} with a purchase: you hold "
                                + (", ".join(c for c in PURCHASE_CARDS if c in self._cards[seat]) or "none"))
        active = self._active_after(plan)
        buy = p.get("buy") or []
        if isinstance(buy, dict):
            buy = list(buy.items())
        if not isinstance(buy, (list, tuple)):
            raise IllegalAction("buy takes a list of [chain, count]")
        orders = []
        for entry in buy:
            if not isinstance(entry, (list, tuple)) or len(entry) != 2:
                raise IllegalAction("buy takes a list of [chain, count]")
            c = self._parse_chain(entry[0])
            n = entry[1]
            if not _is_int(n) or n < 0:
                raise IllegalAction(f"cannot buy {n!r} shares")
            if c not in active:
                raise IllegalAction(f"{chains[c]} is not on the board")
            if n:
                orders.append([c, n])
        allowance = self._allowance(card)
        if sum(n for _, n in orders) > allowance:
            raise IllegalAction(f"at most {allowance} shares may be bought this turn")
        trade = p.get("trade") or []
        if not isinstance(trade, (list, tuple)):
            raise IllegalAction("trade takes a list of [give, get] chains")
        trades = []
        if trade and card != TRADE_2:
            raise IllegalAction("trades need the TRADE_2_STOCK card")
        if len(trade) > self.rules.trade2_max:
            raise IllegalAction(f"at most {self.rules.trade2_max} trades")
        for entry in trade:
            if not isinstance(entry, (list, tuple)) or len(entry) != 2:
                raise IllegalAction("trade takes a list of [give, get] chains")
            give, get = self._parse_chain(entry[0]), self._parse_chain(entry[1])
            for c in (give, get):
                if c not in active:
                    raise IllegalAction(f"{chains[c]} is not on the board")
            trades.append([give, get])
        self._log(seat, {TILE_PURCHASE: {
            **self._canonical_placement(plan), "card": card,
            "buy": [[chains[c], n] for c, n in orders], "trade": [[chains[g], chains[r]] for g, r in trades]}})
        if card != NONE:
            self._play_card(seat, card, ev)
        self._purchase = {"card": card, "buy": orders, "trade": trades}
        if not self._place_plan(seat, plan, ev):
            self._after_placement(ev)

    def _place_plan(self, seat: int, plan: dict, ev: list) -> bool:
        """Place the planned tile; True when a merge now waits for disposals."""
        t = plan["t"]
        if t < 0:
            return False
        self._racks[seat].remove(t)
        self._cells[t] = LONE
        self._tile = t
        x, y = divmod(t, N_ROWS)
        ev.append({"type": "tile_played", "seat": seat, "tile": NAMES[t], "x": x, "y": y})
        status = plan["status"]
        if status == FOUND:
            self._found(seat, plan["found"], ev)
        elif status == GROW:
            self._grow(seat, t, ev)
        elif status == MERGE:
            return self._start_merge(seat, t, plan["merging"], plan["survivor"], ev)
        return False

    def _grow(self, seat: int, t: int, ev: list) -> None:
        c = self._chains_ordered(t)[0]
        added = self._flood_lone(t)
        self._join(c, added)
        ev.append({"type": "chain_grew", "seat": seat, "chain": self.rules.chains[c],
                   "tiles": [NAMES[x] for x in sorted(added)]})

    # merges
    def _start_merge(self, seat: int, t: int, merging: list[int], survivor: int, ev: list) -> bool:
        chains = self.rules.chains
        sizes = {c: len(self._ctiles[c]) for c in merging}
        defunct = sorted((c for c in merging if c != survivor), key=lambda c: -sizes[c])
        prices = [self.rules.price(c, sizes[c]) for c in defunct]
        ev.append({"type": "merger", "seat": seat, "tile": NAMES[t], "survivor": chains[survivor],
                   "defunct": [chains[c] for c in defunct],
                   "sizes": {chains[c]: sizes[c] for c in merging}})
        for c, p in zip(defunct, prices):
            self._pay_bonuses(c, p, "bonus", ev)
        n = len(self.order)
        queue = []
        for i in range(n):
            s = self.order[(self._pos + i) % n]
            queue.extend([s, c] for c in defunct if self._held[s][c] > 0)
        self._merge = {"tile": t, "chains": list(merging), "survivor": survivor, "defunct": defunct,
                       "prices": prices, "queue": queue}
        if queue:
            self._phase = MERGE_PHASE
            return True
        self._finish_merge(ev)
        return False

    def _do_merge(self, seat: int, action: dict, ev: list) -> None:
        d = self._payload(action, MERGE_PHASE, frozenset({"keep", "sell", "trade"}))
        o = self._options_merge(seat)
        held = o["shares"]
        sell, trade = d.get("sell", 0), d.get("trade", 0)
        keep = d.get("keep", held - (sell if _is_int(sell) else 0) - (trade if _is_int(trade) else 0))
        if not all(_is_int(v) and v >= 0 for v in (keep, sell, trade)):
            raise IllegalAction("keep, sell and trade must be whole numbers, 0 or more")
        if keep + sell + trade != held:
            raise IllegalAction(f"keep + sell + trade must be the {held} {o['defunct']} shares you hold")
        if trade % 2:
            raise IllegalAction("shares are traded two for one: trade an even number")
        if trade // 2 > o["survivor_available"]:
            raise IllegalAction(f"only {o['survivor_available']} {o['survivor']} shares are left to trade for")
        self._log(seat, {MERGE_PHASE: {"keep": keep, "sell": sell, "trade": trade}})
        m = self._merge
        c = m["queue"][0][1]
        self._dispose(seat, c, m["survivor"], sell, trade, o["price"], ev)
        m["queue"].pop(0)
        if not m["queue"]:
            self._finish_merge(ev)
            self._after_placement(ev)

    def _finish_merge(self, ev: list) -> None:
        m = self._merge
        s = m["survivor"]
        for c in m["defunct"]:
            ts = self._ctiles[c]
            self._ctiles[c] = []
            self._join(s, ts)
        self._join(s, self._flood_lone(m["tile"]))
        self._merge = None
        ev.append({"type": "merger_done", "survivor": self.rules.chains[s], "tiles": self.chain_tiles(s)})

    # purchase
    def _execute_purchase(self, ev: list) -> None:
        pur = self._purchase or {"card": NONE, "buy": [], "trade": []}
        self._purchase = None
        seat = self.current
        card = pur["card"]
        rules = self.rules
        chains = rules.chains
        free = card == FREE_3
        left = self._allowance(card)
        held = self._held[seat]
        bought: list[list] = []
        cost = 0
        for c, n in pur["buy"]:
            size = len(self._ctiles[c])
            if not size:
                continue
            price = rules.price(c, size)
            n = min(n, left, self._avail[c])
            if not free:
                n = min(n, self.cash[seat] // price)
            if n <= 0:
                continue
            charge = 0 if free else n * (rules.start_price(c) if rules.charge_start_price else price)
            self.cash[seat] -= charge
            cost += charge
            held[c] += n
            self._avail[c] -= n
            left -= n
            if bought and bought[-1][0] == chains[c]:
                bought[-1][1] += n
            else:
                bought.append([chains[c], n])
        ev.append({"type": "purchased", "seat": seat, "card": card, "shares": bought, "cost": cost,
                   "cash": self.cash[seat], "free": free})
        if card == TRADE_2:
            done = []
            for give, get in pur["trade"][:rules.trade2_max]:
                if not self._ctiles[give] or not self._ctiles[get]:
                    continue
                if held[give] < 2 or self._avail[get] + (2 if give == get else 0) < 1:
                    continue
                held[give] -= 2
                self._avail[give] += 2
                held[get] += 1
                self._avail[get] -= 1
                done.append([chains[give], chains[get]])
            ev.append({"type": "traded", "seat": seat, "trades": done, "cash": self.cash[seat]})

    # ------------------------------------------------------------ normalise
    def normalise(self, seat: int, raw: Any) -> dict:
        """A legal action for ``seat``'s pending decision from any reply (protocol section 7).

        ``raw`` may be the engine's action, its payload alone, or the flat
        protocol reply attributes (``card``, ``tile-x``/``tile-y``,
        ``created-hotel``, ``merge-survivor``, ``buy``, ``trade``, ``keep``,
        ``sell``); None or garbage is an empty reply.  Raises IllegalAction
        only when no decision of ``seat`` is pending.
        """
        phase = self._phase
        if phase is None or seat != self.pending_seat():
            raise IllegalAction(f"no decision is pending for seat {seat}")
        p = raw if isinstance(raw, dict) else {}
        if isinstance(p.get(phase), dict):
            p = p[phase]
        p = {str(k).replace("-", "_").lower(): v for k, v in p.items()}
        if phase == CARD:
            card = _parse_card(p.get("card"))
            return {CARD: card if card in self._options_card(seat)["cards"] else NONE}
        if phase == MERGE_PHASE:
            return {MERGE_PHASE: self._normalise_merge(seat, p)}
        placement, plan = self._normalise_placement(seat, p)
        if phase == TILE:
            return {TILE: placement}
        card = _parse_card(p.get("card"))
        if card not in PURCHASE_CARDS or card not in self._cards[seat]:
            card = NONE
        active = self._active_after(plan)
        left = self._allowance(card)
        orders = []
        for name, n in _parse_pairs(p.get("buy")):
            c = self._chain_or_none(name)
            n = _parse_int(n)
            if c is None or c not in active or n is None:
                continue
            n = min(max(n, 0), left)
            if n:
                orders.append([self.rules.chains[c], n])
                left -= n
        trades = []
        if card == TRADE_2:
            for give, get in _parse_pairs(p.get("trade")):
                g, r = self._chain_or_none(give), self._chain_or_none(get)
                if g is not None and r is not None and g in active and r in active:
                    trades.append([self.rules.chains[g], self.rules.chains[r]])
            trades = trades[:self.rules.trade2_max]
        return {TILE_PURCHASE: {**placement, "card": card, "buy": orders, "trade": trades}}

    def _chain_or_none(self, name) -> int | None:
        if not isinstance(name, str):
            return None
        try:
            return self._parse_chain(name)
        except IllegalAction:
            return None

    def _normalise_placement(self, seat: int, p: dict) -> tuple[dict, dict]:
        t = None
        name = p.get("tile")
        if isinstance(name, str):
            try:
                t = tile_index(name)
            except ValueError:
                t = None
        elif "tile_x" in p or "tile_y" in p:
            x, y = _parse_int(p.get("tile_x")), _parse_int(p.get("tile_y"))
            if x is not None and y is not None and 0 <= x < 12 and 0 <= y < N_ROWS:
                t = x * N_ROWS + y
        elif isinstance(name, (list, tuple)) and len(name) == 2:
            x, y = _parse_int(name[0]), _parse_int(name[1])
            if x is not None and y is not None and 0 <= x < 12 and 0 <= y < N_ROWS:
                t = x * N_ROWS + y
        playable = self._playable_of(seat)
        if t not in playable:
            t = playable[0] if playable else None
        placement = self._default_placement(t)
        chains = self.rules.chains
        if "created_hotel" in placement:
            c = self._chain_or_none(p.get("created_hotel"))
            if c is not None and not self._ctiles[c]:
                placement["created_hotel"] = chains[c]
        if "merge_survivor" in placement:
            c = self._chain_or_none(p.get("merge_survivor"))
            if c is not None and c in self._largest(self._chains_ordered(t)):
                placement["merge_survivor"] = chains[c]
        return placement, self._parse_tile_plan(seat, placement)

    def _normalise_merge(self, seat: int, p: dict) -> dict:
        o = self._options_merge(seat)
        held = o["shares"]
        trade = max(_parse_int(p.get("trade")) or 0, 0)
        keep = max(_parse_int(p.get("keep")) or 0, 0)
        trade = min(trade, held)
        keep = min(keep, held - trade)
        converted = min(trade // 2, o["survivor_available"])
        trade_ok = 2 * converted
        return {"keep": keep, "sell": held - keep - trade_ok, "trade": trade_ok}

    # ------------------------------------------------------------ look-ahead
    def after_placement(self, seat: int, placement: dict, dispose=None) -> "WindwardGame":
        """A clone with ``placement`` ({"tile", "created_hotel", "merge_survivor"}) made for
        ``seat`` and its merge resolved -- no purchase, the turn not ended, nothing recorded.

        ``dispose(game, seat, defunct, survivor) -> (keep, sell, trade)`` decides each
        disposal (default: sell everything); an illegal answer sells everything.
        For bots' look-ahead: only the seat's own hand is used.
        """
        g = self.clone()
        plan = g._parse_tile_plan(seat, placement)
        ev: list = []
        if not g._place_plan(seat, plan, ev):
            return g
        m = g._merge
        s = m["survivor"]
        chains = g.rules.chains
        for who, c in m["queue"]:
            held = g._held[who][c]
            sell, trade = held, 0           # (kept: the rest)
            if dispose is not None:
                k, sl, t = dispose(g, who, chains[c], chains[s])
                if (min(k, sl, t) >= 0 and k + sl + t == held and t % 2 == 0
                        and t // 2 <= g._avail[s]):
                    sell, trade = sl, t
            g._dispose(who, c, s, sell, trade, m["prices"][m["defunct"].index(c)], ev)
        m["queue"] = []
        g._finish_merge(ev)
        g._phase = self._phase
        return g

    # ------------------------------------------------------------ copies and state
    def clone(self) -> "WindwardGame":
        """An independent copy (for bots' look-ahead); cheaper than to_dict/from_dict."""
        g = object.__new__(type(self))
        g.__dict__.update(self.__dict__)
        g._cells = list(self._cells)
        g._dead = set(self._dead)
        g._racks = [list(h) for h in self._racks]
        g.cash = list(self.cash)
        g._held = [list(h) for h in self._held]
        g._avail = list(self._avail)
        g._ctiles = [list(ts) for ts in self._ctiles]
        g.order = list(self.order)
        g._cards = [list(c) for c in self._cards]
        g._actions = list(self._actions)
        g.initial_events = []
        if self._merge is not None:
            m = dict(self._merge)
            m["queue"] = [list(q) for q in m["queue"]]
            g._merge = m
        if self._purchase is not None:
            g._purchase = dict(self._purchase)
        if self._scores is not None:
            g._scores = list(self._scores)
        return g

    def record(self) -> dict:
        """The classic record (players, tile bag, actions; rules when not the default,
        e.g. another first seat); :func:`game_from_record` replays it."""
        rec = super().record()
        rec["actions"] = [_copy_action(a) for a in self._actions]
        return rec

    def to_dict(self) -> dict:
        chains = self.rules.chains
        m = self._merge
        if m is not None:
            m = {"tile": NAMES[m["tile"]], "chains": [chains[c] for c in m["chains"]],
                 "survivor": chains[m["survivor"]], "defunct": [chains[c] for c in m["defunct"]],
                 "prices": list(m["prices"]), "queue": [[s, chains[c]] for s, c in m["queue"]]}
        pur = self._purchase
        if pur is not None:
            pur = {"card": pur["card"], "buy": [[chains[c], n] for c, n in pur["buy"]],
                   "trade": [[chains[g], chains[r]] for g, r in pur["trade"]]}
        return {
            "format": STATE_FORMAT,
            "rules": self.rules.to_dict(),
            "players": list(self.players),
            "seed": self.seed,
            "tile_bag": [NAMES[t] for t in self._tile_bag],
            "bag_pos": self._bag_pos,
            "order": list(self.order),
            "turn_pos": self._pos,
            "chain_tiles": {chains[c]: [NAMES[t] for t in sorted(ts)]
                            for c, ts in enumerate(self._ctiles) if ts},
            "lone": [NAMES[t] for t, v in enumerate(self._cells) if v == LONE],
            "dead": [NAMES[t] for t in sorted(self._dead)],
            "hands": self.hands,
            "cash": list(self.cash),
            "shares": [list(h) for h in self._held],
            "cards": [list(c) for c in self._cards],
            "phase": self._phase,
            "placement": self._placement,
            "placements": self._placements,
            "tile": NAMES[self._tile] if self._tile >= 0 else None,
            "merge": m,
            "purchase": pur,
            "end_reason": self.end_reason,
            "scores": list(self._scores) if self._scores is not None else None,
            "actions": [_copy_action(a) for a in self._actions],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "WindwardGame":
        if d.get("format") != STATE_FORMAT:
            raise ValueError(f"not a Windward Acquire state: format {d.get('format')!r}")
        rules = rules_for(d["rules"].get("variant", VARIANT), d["rules"])
        ci = rules.chain_index
        game = cls(d["players"], rules, [tile_index(t) for t in d["tile_bag"]], d.get("seed"))
        game._bag_pos = d["bag_pos"]
        game.order = list(d["order"])
        game._pos = d["turn_pos"]
        game.current = game.order[game._pos]
        for name, ts in d["chain_tiles"].items():
            game._join(ci(name), [tile_index(t) for t in ts])
        for t in d["lone"]:
            game._cells[tile_index(t)] = LONE
        game._dead = {tile_index(t) for t in d["dead"]}
        game._racks = [[tile_index(t) for t in hand] for hand in d["hands"]]
        game.cash = list(d["cash"])
        game._held = [list(h) for h in d["shares"]]
        game._avail = [rules.shares_per_chain - sum(h[c] for h in game._held)
                       for c in range(len(rules.chains))]
        game._cards = [list(c) for c in d["cards"]]
        game._phase = d["phase"]
        game._placement = d["placement"]
        game._placements = d["placements"]
        game._tile = tile_index(d["tile"]) if d["tile"] is not None else -1
        m = d["merge"]
        if m is not None:
            m = {"tile": tile_index(m["tile"]), "chains": [ci(c) for c in m["chains"]],
                 "survivor": ci(m["survivor"]), "defunct": [ci(c) for c in m["defunct"]],
                 "prices": list(m["prices"]), "queue": [[s, ci(c)] for s, c in m["queue"]]}
        game._merge = m
        pur = d["purchase"]
        if pur is not None:
            pur = {"card": pur["card"], "buy": [[ci(c), n] for c, n in pur["buy"]],
                   "trade": [[ci(g), ci(r)] for g, r in pur["trade"]]}
        game._purchase = pur
        game.end_reason = d["end_reason"]
        game._scores = list(d["scores"]) if d["scores"] is not None else None
        game._actions = [_copy_action(a) for a in d["actions"]]
        return game


def _copy_nested(v):
    if isinstance(v, dict):
        return {k: _copy_nested(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy_nested(x) for x in v]
    return v


def _copy_action(a: dict) -> dict:
    """A deep copy of a logged action (Windward payloads nest lists)."""
    return {k: _copy_nested(v) for k, v in a.items()}


def _parse_int(v) -> int | None:
    """An int from an int or a numeric string; None for anything else."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            return None
    return None


def _parse_card(v) -> str:
    """A card name from a code (0..5, int or text) or a name (with or without "CARD."); else NONE."""
    code = _parse_int(v)
    if code is not None:
        return CARDS[code] if 0 <= code < len(CARDS) else NONE
    if isinstance(v, str):
        name = v.strip().upper()
        if name.startswith("CARD."):
            name = name[5:]
        if name in CARD_CODES:
            return name
    return NONE


def _parse_pairs(v) -> list[tuple]:
    """Protocol lists ("A:n;B:m;"), lists of pairs or dicts -> [(a, b)]; junk dropped."""
    if isinstance(v, str):
        out = []
        for part in v.split(";"):
            bits = [b for b in part.split(":")]
            if len(bits) == 2 and bits[0].strip() and bits[1].strip():
                out.append((bits[0].strip(), bits[1].strip()))
        return out
    if isinstance(v, dict):
        return list(v.items())
    if isinstance(v, (list, tuple)):
        return [tuple(e) for e in v if isinstance(e, (list, tuple)) and len(e) == 2]
    return []


def normalise(game: WindwardGame, seat: int, raw: Any) -> dict:
    """Module-level spelling of :meth:`WindwardGame.normalise`."""
    return game.normalise(seat, raw)


def start_from_record(record: dict) -> WindwardGame:
    return _record.start_from_record(record, WindwardGame)


def game_from_record(record: dict) -> WindwardGame:
    """Replay a Windward record (``WindwardGame.record()``); RecordError at the first bad action."""
    return _record.game_from_record(record, WindwardGame)
