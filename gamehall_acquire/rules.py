"""Classic Acquire: a pure, deterministic rules engine (no Twisted, no I/O).

Use::

    game = Game.new(["ann", "bob", "cy"], seed=42)       # or tile_bag=[...108 names]
    while not game.is_over():
        d = game.pending()                               # Decision(seat, kind, options)
        events = game.apply(d.seat, game.timeout_action(d.seat))
    game.result()   # {"scores": [...], "winners": [...], "reason": "claimed"}

Seats are 0-based in join order; rack slots are 0-based (0..5).  Chain names
in actions may be aliases in any case; events, options and records use the
canonical names.  An illegal action raises ``IllegalAction(reason)`` and
changes nothing.

Decisions (``pending().kind`` and its options):
  play_tile        {"tiles": [playable rack tiles, slot order]}
  found_chain      {"chains": [chains not on the board]}
  choose_survivor  {"chains": [tied largest chains]}
  choose_defunct   {"chains": [chains tied for the next defunct slot]}
  dispose          {"chain", "survivor", "shares", "survivor_available", "merger_seat", "price"}
  purchase         {"can_end", "cash", "chains": {chain: max count}, "prices": {chain: price}}

``legal_actions()`` lists every legal action of the pending decision, in a
fixed order; for the long lists (buy and disposal steps) it is a
:class:`~gamehall_acquire.legal.LegalActions`, a list whose actions are built
as they are read (``random.choice`` builds one).

Actions (the record's format without "player"):
  {"play_tile": "2D"}  {"found_chain": "Tower"}  {"choose_survivor": "Tower"}
  {"choose_defunct": "Tower"}  {"dispose": {"sell": 1, "trade": 2}}
  {"purchase": {"Tower": 2}, "end_game": false}

Events (plain dicts with "type"), in the order they happen:
  position_tile    {seat, tile}                 setup only (Game.initial_events)
  turn             {seat}                       a player's turn begins
  tile_played      {seat, tile, slot}
  no_playable_tile {seat}                       the player has no playable tile: straight to buying
  chain_founded    {seat, chain, tiles, free_share}
  chain_grew       {seat, chain, tiles}         tiles = the tiles added
  merger           {seat, tile, survivor, defunct: [in disposal order], sizes: {chain: size before}}
  bonus            {chain, seat, amount, kind}  kind: first|second|both|split_first|split_second
  disposed         {seat, chain, sold, traded, kept, received, cash}   traded = defunct shares given,
                                                received = survivor shares got, cash = cash after
  merger_done      {survivor, tiles: [all tiles now in the survivor]}
  purchased        {seat, shares: {chain: n}, cost, cash}   (also for an empty purchase)
  tile_drawn       {seat, slot, tile}           PRIVATE to that seat
  tile_dead        {seat, slot, tile}           a tile that can never be played is set aside
  bag_empty        {}                           the last tile was drawn
  last_round       {}                           a full round passed without a tile played:
                                                every player gets one more turn, purchases only
  final_bonus      {chain, seat, amount, kind}  end of game bonuses for chains on the board
  game_over        {reason, scores, winners, final: [{seat, cash, bonuses, sales}]}

A turn: play a tile (skipped, with no_playable_tile, when the player has
none), found / grow / merge as it demands, buy (skipped when nothing on the
board is both available and affordable and the game cannot be ended), then,
unless the game ended, refill the rack (a drawn tile fills the first empty
slot) and set aside every tile of that rack that can never be played, in slot
order, drawing a replacement for each while the bag lasts.  During a merger the
defunct chains keep their tiles on the board until merger_done.

End reasons: "claimed" (a player ended the game in the buy step), "no_tiles"
(checked after each turn: every tile is on the board or set aside, i.e. the bag
and every rack are empty; a rack holding only dead tiles keeps the game going,
since its owner still has the turn in which they are set aside and may buy),
"no_playable_tiles" (as many turns in a row as there are
players went by without a tile played: last_round, then every player has one
more turn for purchases only, then the end).  At the end the bonuses of the
chains on the board are paid and every share is sold at its current price
(shares of chains not on the board for nothing); ``cash`` is then the final
score.
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field, fields
from operator import getitem as _getitem
from typing import Any

from zope.interface import implementer

from gamehall.interfaces import IllegalAction, IRecordingEngine

from . import chains as _chains
from .legal import LegalActions, lazy_actions
from .purchases import Offer
from .tiles import INDEX as _TILE_INDEX
from .tiles import N_TILES, NAMES, NEIGHBOURS, shuffled_tiles, tile_index

#: events a front end must show only to their "seat"
PRIVATE_EVENTS = frozenset({"tile_drawn"})

EMPTY = -1
LONE = -2

# tile status codes; the first four are playable
SIMPLE, FOUND, GROW, MERGE, UNPLAYABLE, DEAD = range(6)
UNKNOWN = -1                    # not classified yet (Game._tstat)
STATUS_NAMES = ("playable", "found", "grow", "merge", "unplayable_now", "dead")

PLAY_TILE = "play_tile"
FOUND_CHAIN = "found_chain"
CHOOSE_SURVIVOR = "choose_survivor"
CHOOSE_DEFUNCT = "choose_defunct"
DISPOSE = "dispose"
PURCHASE = "purchase"
PHASES = (PLAY_TILE, FOUND_CHAIN, CHOOSE_SURVIVOR, CHOOSE_DEFUNCT, DISPOSE, PURCHASE)

STATE_FORMAT = "gamehall-acquire-state/1"


@functools.lru_cache(maxsize=32)
def _price_table(premiums: tuple, tiers: tuple, unit: int) -> tuple:
    """price_table[chain][size] in dollars, for sizes 0..108."""
    bases = [_chains.base_price(size, tiers) for size in range(N_TILES + 1)]
    return tuple(tuple((b + p) * unit if b else 0 for b in bases) for p in premiums)


@dataclass(frozen=True)
class Rules:
    """Everything a variant may change.  JSON-able through to_dict/from_dict."""

    variant: str = "classic"
    chains: tuple = _chains.CHAINS
    aliases: tuple = tuple(sorted(_chains.ALIASES.items()))     # (alias, chain) pairs
    premiums: tuple = _chains.PREMIUMS                          # hundreds, per chain
    price_tiers: tuple = _chains.PRICE_TIERS                    # (smallest size, hundreds)
    price_unit: int = 100
    first_bonus: int = 10                                       # times the price
    second_bonus: int = 5
    bonus_rounding: int = 100                                   # split bonuses rounded up to this
    start_cash: int = 6000
    rack_size: int = 6
    shares_per_chain: int = 25
    safe_size: int = 11
    end_size: int = 41
    max_buy: int = 3
    min_players: int = 2
    max_players: int = 6

    # (field, smallest sensible value): a record's "rules" header comes from a
    # file, so nonsense must be refused here, not crash a replay halfway.
    _LIMITS = (("price_unit", 1), ("first_bonus", 0), ("second_bonus", 0), ("bonus_rounding", 1),
               ("start_cash", 0), ("rack_size", 1), ("shares_per_chain", 1), ("safe_size", 2),
               ("end_size", 2), ("max_buy", 0), ("min_players", 1), ("max_players", 1))

    def __post_init__(self):
        for name, least in self._LIMITS:
            value = getattr(self, name)
            if not _is_int(value) or value < least:
                raise ValueError(f"rules: {name} must be a whole number of at least {least}, not {value!r}")
        if self.min_players > self.max_players:
            raise ValueError("rules: min_players is above max_players")
        setattr_ = object.__setattr__
        setattr_(self, "chains", tuple(self.chains))
        aliases = self.aliases.items() if isinstance(self.aliases, dict) else self.aliases
        setattr_(self, "aliases", tuple(sorted((str(a), str(c)) for a, c in aliases)))
        setattr_(self, "premiums", tuple(self.premiums))
        setattr_(self, "price_tiers", tuple(tuple(t) for t in self.price_tiers))
        if len(self.premiums) != len(self.chains):
            raise ValueError("one premium per chain")
        setattr_(self, "_lookup", _chains.lookup_table(self.chains, self.aliases))
        setattr_(self, "_index", {c: i for i, c in enumerate(self.chains)})
        # Actions mostly spell chains exactly as the engine wrote them; this
        # skips strip()/lower()/alias lookup for those spellings.  Built through
        # the full lookup, so it can never disagree with it.
        exact = {}
        for c in self.chains:
            canon = self._lookup.get(c.strip().lower())
            if canon is not None:
                exact[c] = self._index[canon]
        setattr_(self, "_exact_index", exact)
        setattr_(self, "price_table", _price_table(self.premiums, self.price_tiers, self.price_unit))

    def canonical(self, name: str) -> str:
        return _chains.canonical(name, self._lookup)

    def chain_index(self, name: str) -> int:
        """0-based index of a chain name or alias; raises UnknownChain (an IllegalAction)."""
        if type(name) is str:
            c = self._exact_index.get(name)
            if c is not None:
                return c
        elif not isinstance(name, str):
            raise _chains.UnknownChain(f"unknown chain {name!r}")
        return self._index[_chains.canonical(name, self._lookup)]

    def price(self, chain: int, size: int) -> int:
        """Share price in dollars of chain index ``chain`` at ``size`` (0..108) tiles."""
        return self.price_table[chain][size]

    def to_dict(self) -> dict:
        d = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "aliases":
                v = dict(v)
            elif f.name == "price_tiers":
                v = [list(t) for t in v]
            elif isinstance(v, tuple):
                v = list(v)
            d[f.name] = v
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Rules":
        return cls(**d)


#: rules by variant name; variants built on this engine register themselves here
VARIANTS: dict[str, Any] = {"classic": Rules}


def rules_for(variant: str, d: dict | None = None) -> Rules:
    try:
        rules_class = VARIANTS[variant]
    except KeyError:
        raise ValueError(f"unknown Acquire variant {variant!r}") from None
    return rules_class.from_dict(d) if d else rules_class()


@dataclass(frozen=True)
class Decision:
    seat: int
    kind: str
    options: dict = field(default_factory=dict)


_DISPOSE_KEYS = frozenset({"sell", "trade"})
_NO_OFFER = Offer([], 0)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@implementer(IRecordingEngine)
class Game:
    """The state machine of one classic Acquire game; see the module docstring."""

    rules_class = Rules
    #: phase -> the function applying its action (``_do_<phase>``), filled as phases occur;
    #: one table per class, so that a subclass's overrides are found
    _handlers: dict = {}
    #: the one phase whose decision is not the current player's (pending_seat() says
    #: whose); None: ask pending_seat() at every action
    _queue_phase: str | None = DISPOSE
    # set when the game ends (class defaults until then: an instance keeps at most 30
    # attributes in CPython's compact, fast-to-read layout)
    end_reason: str | None = None
    _final: list | None = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._handlers = {}
        if "pending_seat" in cls.__dict__ and "_queue_phase" not in cls.__dict__:
            cls._queue_phase = None         # another pending_seat(): no shortcut

    # ------------------------------------------------------------------ setup
    def __init__(self, players: list[str], rules: Rules, tile_bag: list[int], seed: int | None = None):
        """A blank game (nothing placed or drawn); use :meth:`new` or :meth:`from_dict`."""
        n_chains = len(rules.chains)
        self.rules = rules
        self.players = list(players)
        self.seed = seed
        self._tile_bag = list(tile_bag)
        self._bag_pos = 0
        self._cells = [EMPTY] * N_TILES
        self._dead: set[int] = set()
        self._racks: list[list[int | None]] = [[None] * rules.rack_size for _ in self.players]
        self.cash = [rules.start_cash] * len(self.players)
        self._held = [[0] * n_chains for _ in self.players]
        self._avail = [rules.shares_per_chain] * n_chains
        self._ctiles: list[list[int]] = [[] for _ in range(n_chains)]
        self.order = list(range(len(self.players)))
        self._pos = 0
        self.current = 0
        self._phase: str | None = None
        self._tile = -1                 # tile played this turn, or -1
        self._playable: list[int] = []  # the current player's playable tiles, in the play_tile phase
        # in the purchase phase: the Offer [(chain, price, shares to buy at most)]
        self._offer: Offer = _NO_OFFER
        # per chain: its offer entry (chain, price, at most max_buy), or None when not
        # offered; _stale has a bit per chain whose entry may be out of date
        self._entries: list = [None] * n_chains
        self._stale = (1 << n_chains) - 1
        # Tile playability, kept up to date as the board changes (see _chain_facts):
        self._tstat = [UNKNOWN] * N_TILES   # per tile: its _classify status, or UNKNOWN
        self._tstat_facts: tuple | None = None  # the chain facts _tstat was made with
        self._facts: tuple | None = None    # _chain_facts(), None to recompute
        self._merge: dict | None = None
        self._no_play = 0               # consecutive turns without a tile played
        self._last_round_left = -1      # turns left in the final purchase round, -1 if none
        self._actions: list[dict] = []
        self.initial_events: list[dict] = []

    @classmethod
    def default_rules(cls) -> Rules:
        """The (shared, immutable) default rules of this game class."""
        rules = cls.__dict__.get("_default_rules")
        if rules is None:
            rules = cls.rules_class()
            setattr(cls, "_default_rules", rules)
        return rules

    @classmethod
    def new(cls, players: list[str], seed: int | None = None, tile_bag: list[str] | None = None,
            rules: Rules | None = None) -> "Game":
        """Seat ``players`` (join order), shuffle (or take ``tile_bag``), place position tiles, deal."""
        rules = rules or cls.default_rules()
        players = [str(p) for p in players]
        if not rules.min_players <= len(players) <= rules.max_players:
            raise ValueError(f"Acquire needs {rules.min_players} to {rules.max_players} players, "
                             f"not {len(players)}")
        if len(set(players)) != len(players):
            raise ValueError("player names must be unique")
        if tile_bag is None:
            if seed is None:
                seed = random.SystemRandom().randrange(2 ** 63)
            bag = shuffled_tiles(seed)
        else:
            bag = [tile_index(t) for t in tile_bag]
            if sorted(bag) != list(range(N_TILES)):
                raise ValueError("tile_bag must hold each of the 108 tiles exactly once")
        game = cls(players, rules, bag, seed)
        game.initial_events = game._setup()
        return game

    def _setup(self) -> list[dict]:
        ev: list[dict] = []
        n = len(self.players)
        bag = self._tile_bag
        positions = bag[:n]
        for seat, t in enumerate(positions):
            self._cells[t] = LONE
            ev.append({"type": "position_tile", "seat": seat, "tile": NAMES[t]})
        first = positions.index(min(positions))
        self.order = [(first + i) % n for i in range(n)]
        # deal: what _draw does for each empty slot, in one loop
        pos, size, app = n, len(bag), ev.append
        for seat in self.order:
            rack = self._racks[seat]
            for slot in range(len(rack)):
                if pos >= size:
                    break
                t = rack[slot] = bag[pos]
                pos += 1
                app({"type": "tile_drawn", "seat": seat, "slot": slot, "tile": NAMES[t]})
                if pos == size:
                    app({"type": "bag_empty"})
        self._bag_pos = pos
        self._start_turn(0, ev)
        return ev

    # ------------------------------------------------------------ read-only views
    @property
    def board(self) -> dict[str, str | None]:
        chains = self.rules.chains
        return {NAMES[t]: (chains[v] if v >= 0 else None)
                for t, v in enumerate(self._cells) if v != EMPTY}

    @property
    def dead(self) -> set[str]:
        return {NAMES[t] for t in self._dead}

    @property
    def racks(self) -> list[list[str | None]]:
        return [[None if t is None else NAMES[t] for t in rack] for rack in self._racks]

    @property
    def shares(self) -> list[dict[str, int]]:
        chains = self.rules.chains
        return [dict(zip(chains, held)) for held in self._held]

    @property
    def bag(self) -> list[str]:
        return [NAMES[t] for t in self._tile_bag[self._bag_pos:]]

    @property
    def tiles_left(self) -> int:
        """Tiles still in the bag (``len(bag)`` without building the list)."""
        return len(self._tile_bag) - self._bag_pos

    @property
    def phase(self) -> str | None:
        """The step the game is in (None before the start and after the end)."""
        return self._phase

    @property
    def merger(self) -> dict | None:
        """The merger being resolved (chains, survivor, defunct...; chains by index), or
        None.  The engine's own state: read it, never change it."""
        return self._merge

    @property
    def actions(self) -> list[dict]:
        """The actions applied so far, in order, each with its player's name.  The
        engine's own list: read it, never change it."""
        return self._actions

    def rack_size(self, seat: int) -> int:
        """How many tiles ``seat`` holds."""
        return sum(1 for t in self._racks[seat] if t is not None)

    def shares_of(self, seat: int) -> list[int]:
        """The shares ``seat`` holds, by chain index."""
        return list(self._held[seat])

    def bonus_holders(self, chain) -> list[tuple[int, int, str]]:
        """``[(seat, amount, kind)]``: who would get the majority bonuses of ``chain`` now,
        how much, and as what (``first``, ``second``, ``both``, ``split_first``...); empty
        for a chain not on the board."""
        c = self._c(chain)
        return self._bonus_list(c) if self._ctiles[c] else []

    def _c(self, chain) -> int:
        if _is_int(chain) and 0 <= chain < len(self.rules.chains):
            return chain
        return self.rules.chain_index(chain)

    def available(self, chain) -> int:
        return self._avail[self._c(chain)]

    def chain_size(self, chain) -> int:
        return len(self._ctiles[self._c(chain)])

    def price(self, chain) -> int:
        c = self._c(chain)
        return self.rules.price(c, len(self._ctiles[c]))

    def chains_on_board(self) -> list[str]:
        chains = self.rules.chains
        return [chains[c] for c, ts in enumerate(self._ctiles) if ts]

    def chain_tiles(self, chain) -> list[str]:
        return [NAMES[t] for t in sorted(self._ctiles[self._c(chain)])]

    def is_safe(self, chain) -> bool:
        return len(self._ctiles[self._c(chain)]) >= self.rules.safe_size

    def tile_status(self, tile: str) -> str:
        """For a tile not on the board: playable, found, grow, merge, unplayable_now or dead.

        (A tile on the board gives "on_board"; a tile set aside gives "dead".)
        """
        try:
            t = tile_index(tile)
        except ValueError as exc:
            raise IllegalAction(str(exc)) from None
        if self._cells[t] != EMPTY:
            return "on_board"
        if t in self._dead:
            return "dead"
        return STATUS_NAMES[self._classify(t)]

    def rack_statuses(self, seat: int) -> list[str | None]:
        """``tile_status`` of each slot of ``seat``'s rack (None: an empty slot), in one call.

        Read from the statuses the turn keeps for rack tiles (``_tstat``, see
        ``_chain_facts``), classified now if not known: a view colours every rack
        after every action, and most rack tiles keep their status."""
        self._facts or self._chain_facts()          # first: may drop _tstat
        stat, cells, dead, classify = self._tstat, self._cells, self._dead, self._classify
        out = []
        for t in self._racks[seat]:
            if t is None:
                out.append(None)
            elif cells[t] != EMPTY:
                out.append("on_board")
            elif t in dead:
                out.append("dead")
            else:
                status = stat[t]
                if status < 0:
                    status = stat[t] = classify(t)
                out.append(STATUS_NAMES[status])
        return out

    def chain_figures(self) -> tuple[tuple[str, ...], list[int], list[int], list[int]]:
        """``(chains, available, sizes, prices)``, by chain index: the chain names, and
        ``available``, ``chain_size`` and ``price`` of each, in one call (a score sheet)."""
        prices = self.rules.price_table           # price(c, size) is prices[c][size]
        sizes = [len(ts) for ts in self._ctiles]
        return self.rules.chains, list(self._avail), sizes, [prices[c][n] for c, n in enumerate(sizes)]

    def cells(self) -> tuple[int, ...]:
        """The board by tile index, one int per cell: the index of the cell's chain,
        ``LONE`` (a tile in no chain) or ``EMPTY``.  ``board`` without the names: a view
        keeps it and compares it with the next update's in one step."""
        return tuple(self._cells)

    def rack_codes(self) -> tuple[tuple[int | None, ...], ...]:
        """Every seat's rack as tile indexes (None: an empty slot): ``racks`` without the names."""
        return tuple(map(tuple, self._racks))

    def sheet_figures(self) -> tuple[tuple[int, ...], ...]:
        """A score sheet's numbers as tuples, for a view to compare with the next update's
        (one tuple per part, so that the parts that did not change are passed over at
        once): ``(available, sizes, prices, holdings, cash)``, the first three by chain
        index (``available``, ``chain_size``, ``price``), ``holdings`` one tuple per seat
        (``shares_of``), ``cash`` by seat."""
        sizes = tuple(map(len, self._ctiles))
        return (tuple(self._avail), sizes, tuple(map(_getitem, self.rules.price_table, sizes)),
                tuple(map(tuple, self._held)), tuple(self.cash))

    def playable_tiles(self, seat: int) -> list[str]:
        return [NAMES[t] for t in self._racks[seat] if t is not None and self._classify(t) < UNPLAYABLE]

    def bonuses(self, chain) -> dict[int, int]:
        c = self._c(chain)
        if not self._ctiles[c]:
            return {}
        return {seat: amount for seat, amount, _ in self._bonus_list(c)}

    def net_worth(self, seat: int) -> int:
        if self._phase is None and self.end_reason is not None:
            return self.cash[seat]
        worth = self.cash[seat]
        for c, ts in enumerate(self._ctiles):
            if ts:
                worth += self._held[seat][c] * self.rules.price(c, len(ts))
                for s, amount, _ in self._bonus_list(c):
                    if s == seat:
                        worth += amount
        return worth

    def can_end(self) -> bool:
        """Whether the game may be ended (claimed) in a buy step now: a chain of
        ``end_size`` tiles or more, or chains on the board and all of them safe."""
        safe, end = self.rules.safe_size, self.rules.end_size
        any_on, all_safe = False, True
        for ts in self._ctiles:
            n = len(ts)
            if n:
                any_on = True
                if n >= end:
                    return True
                if n < safe:
                    all_safe = False
        return any_on and all_safe

    # --------------------------------------------------------------- the board
    def _classify(self, t: int) -> int:
        cells = self._cells
        first = -1
        others = None
        lone = False
        for n in NEIGHBOURS[t]:
            v = cells[n]
            if v == EMPTY:
                continue
            if v == LONE:
                lone = True
            elif first < 0:
                first = v
            elif v != first:
                if others is None:
                    others = {first, v}
                else:
                    others.add(v)
        if first < 0:
            if not lone:
                return SIMPLE
            return FOUND if self._can_found() else UNPLAYABLE
        if others is None:
            return GROW
        safe = self.rules.safe_size
        ctiles = self._ctiles
        n_safe = 0
        for c in others:
            if len(ctiles[c]) >= safe:
                n_safe += 1
        return DEAD if n_safe >= 2 else MERGE

    def _can_found(self) -> bool:
        for ts in self._ctiles:
            if not ts:
                return True
        return False

    def _neighbour_chains(self, t: int) -> list[int]:
        cells = self._cells
        return sorted({cells[n] for n in NEIGHBOURS[t] if cells[n] >= 0})

    def _flood_lone(self, t: int) -> list[int]:
        """``t`` and every lone tile connected to it through lone tiles."""
        cells = self._cells
        out = [t]
        seen = {t}
        stack = [t]
        while stack:
            x = stack.pop()
            for n in NEIGHBOURS[x]:
                if cells[n] == LONE and n not in seen:
                    seen.add(n)
                    out.append(n)
                    stack.append(n)
        return out

    def _join(self, c: int, ts: list[int]) -> None:
        """Tiles ``ts`` (lone tiles, or in a subclass a defunct chain's) join chain ``c``."""
        cells, stale = self._cells, self._tstat
        for t in ts:
            cells[t] = c
            for n in NEIGHBOURS[t]:
                stale[n] = UNKNOWN
        members = self._ctiles[c]
        before = len(members)
        members.extend(ts)
        after = len(members)
        rules = self.rules
        prices = rules.price_table[c]
        if prices[before] != prices[after] or not before:     # its offer entry changes
            self._stale |= 1 << c
        if self._facts is not None:
            if not before or before < rules.safe_size <= after or before < rules.end_size <= after:
                self._facts = None

    # Playability without re-reading the board for every rack tile at every
    # turn.  A tile's status (_classify) depends on its neighbours and on two
    # facts about the chains: whether one can still be founded, which are safe.
    # _tstat keeps the status of tiles already classified; _do_play_tile and _join,
    # through which the classic turn changes cells, mark the neighbours of a
    # changed cell UNKNOWN (only those whose status may change; _finish_merger
    # marks the rack tiles a renamed chain may change), and when those
    # facts change, the rack tiles whose status they decide are marked UNKNOWN
    # too.  Only the classic turn (_start_turn, _set_playable, _do_play_tile,
    # _replace_dead) reads it, and only for rack tiles; views and subclasses
    # use _classify.
    def _chain_facts(self) -> tuple:
        """(a chain can be founded, bitmask of safe chains, the game may be ended,
        the chains on the board in index order); kept until a chain appears or
        disappears or a chain's size passes safe_size or end_size."""
        facts = self._facts
        if facts is None:
            safe, end = self.rules.safe_size, self.rules.end_size
            can_found = big = False
            all_safe = True
            safe_mask = 0
            onboard = []
            for c, ts in enumerate(self._ctiles):
                n = len(ts)
                if not n:
                    can_found = True
                    continue
                onboard.append(c)
                if n >= safe:
                    safe_mask |= 1 << c
                else:
                    all_safe = False
                if n >= end:
                    big = True
            facts = self._facts = (can_found, safe_mask, big or (bool(onboard) and all_safe),
                                   tuple(onboard))
            was = self._tstat_facts
            if was != (can_found, safe_mask):
                self._tstat_facts = (can_found, safe_mask)
                if was is None or was[1] & ~safe_mask:
                    self._tstat = [UNKNOWN] * N_TILES
                else:
                    # only what these facts decide: MERGE or DEAD (a chain became
                    # safe), FOUND or UNPLAYABLE (whether a chain can be founded);
                    # and only rack tiles are ever looked up
                    drop = (MERGE,) if was[1] != safe_mask else ()
                    if was[0] != can_found:
                        drop += (FOUND, UNPLAYABLE)
                    stat = self._tstat
                    for rack in self._racks:
                        for t in rack:
                            if t is not None and stat[t] in drop:
                                stat[t] = UNKNOWN
        return facts

    def _playable_of(self, seat: int) -> list[int]:
        classify = self._classify
        return [t for t in self._racks[seat] if t is not None and classify(t) < UNPLAYABLE]

    def _draw(self, seat: int, ev: list) -> bool:
        """Draw one tile into the first empty slot; False if the bag is empty."""
        bag = self._tile_bag
        if self._bag_pos >= len(bag):
            return False
        t = bag[self._bag_pos]
        self._bag_pos += 1
        rack = self._racks[seat]
        slot = rack.index(None)
        rack[slot] = t
        ev.append({"type": "tile_drawn", "seat": seat, "slot": slot, "tile": NAMES[t]})
        if self._bag_pos == len(bag):
            ev.append({"type": "bag_empty"})
        return True

    # ------------------------------------------------------------- bonuses
    def _bonus_list(self, c: int, price: int | None = None) -> list[tuple[int, int, str]]:
        """[(seat, amount, kind)] for majority bonuses of chain ``c`` at ``price``."""
        rules = self.rules
        if price is None:
            price = rules.price(c, len(self._ctiles[c]))
        # one pass over the seats: the top holders and the runners-up, each in seat order
        top = runner = 0
        firsts = seconds = None
        for seat, held in enumerate(self._held):
            h = held[c]
            if h:
                if h > top:
                    runner, seconds = top, firsts
                    top, firsts = h, [seat]
                elif h == top:
                    firsts.append(seat)
                elif h > runner:
                    runner, seconds = h, [seat]
                elif h == runner:
                    seconds.append(seat)
        if firsts is None or not price:
            return []
        first = price * rules.first_bonus
        second = price * rules.second_bonus
        if len(firsts) > 1:
            amount = self._split_first(first, second, len(firsts))
            return [(s, amount, "split_first") for s in firsts]
        if seconds is None:             # the only holder
            return [(firsts[0], first + second, "both")]
        out = [(firsts[0], first, "first")]
        if len(seconds) == 1:
            out.append((seconds[0], second, "second"))
        else:
            amount = self._split(second, len(seconds))
            out.extend((s, amount, "split_second") for s in seconds)
        return out

    def _split(self, total: int, k: int) -> int:
        """One share of a bonus split k ways: rounded up to the rules' unit ($100)."""
        unit = self.rules.bonus_rounding
        return -(-total // (unit * k)) * unit

    def _split_first(self, first: int, second: int, k: int) -> int:
        """One share of first + second bonuses split among k tied for first."""
        return self._split(first + second, k)

    # ---------------------------------------------------------- decisions
    def pending(self) -> Decision | None:
        phase = self._phase
        if phase is None:
            return None
        seat = self.pending_seat()
        return Decision(seat, phase, getattr(self, "_options_" + phase)(seat))

    def pending_seat(self) -> int | None:
        phase = self._phase
        if phase is None:
            return None
        if phase == DISPOSE:
            return self._merge["queue"][0]
        return self.current

    def is_over(self) -> bool:
        return self._phase is None and self.end_reason is not None

    def _options_play_tile(self, seat):
        return {"tiles": [NAMES[t] for t in self._playable]}

    def _options_found_chain(self, seat):
        chains = self.rules.chains
        return {"chains": [chains[c] for c, ts in enumerate(self._ctiles) if not ts]}

    def _options_choose_survivor(self, seat):
        chains = self.rules.chains
        return {"chains": [chains[c] for c in self._tied(self._merge["chains"])]}

    def _options_choose_defunct(self, seat):
        chains = self.rules.chains
        return {"chains": [chains[c] for c in self._tied(self._merge["remaining"])]}

    def _options_dispose(self, seat):
        m = self._merge
        c = m["defunct"][m["ci"]]
        s = m["survivor"]
        chains = self.rules.chains
        return {"chain": chains[c], "survivor": chains[s], "shares": self._held[seat][c],
                "survivor_available": self._avail[s], "merger_seat": self.current,
                "price": m["prices"][m["ci"]]}

    def _options_purchase(self, seat):
        chains = self.rules.chains
        cash = self.cash[seat]
        counts, prices = {}, {}
        for c, ts in enumerate(self._ctiles):
            if ts and self._avail[c] > 0:
                p = self.rules.price(c, len(ts))
                counts[chains[c]] = min(self._avail[c], cash // p, self.rules.max_buy)
                prices[chains[c]] = p
        return {"can_end": self.can_end(), "cash": cash, "chains": counts, "prices": prices}

    def _tied(self, cs: list[int]) -> list[int]:
        ctiles = self._ctiles
        sizes = [len(ctiles[c]) for c in cs]
        big = max(sizes)
        return [c for c, n in zip(cs, sizes) if n == big]

    def timeout_action(self, seat: int) -> dict:
        """A legal, passive default for ``seat``'s pending decision."""
        if self._phase is None or seat != self.pending_seat():
            raise IllegalAction(f"no decision is pending for seat {seat}")
        phase = self._phase
        if phase == PLAY_TILE:
            return {PLAY_TILE: NAMES[self._playable[0]]}
        if phase == DISPOSE:
            return {DISPOSE: {"sell": 0, "trade": 0}}
        if phase == PURCHASE:
            return {PURCHASE: {}, "end_game": False}
        return {phase: getattr(self, "_options_" + phase)(seat)["chains"][0]}

    def legal_actions(self) -> list[dict]:
        """Every legal action for the pending decision (see the module docstring)."""
        phase = self._phase
        if phase is None:
            return []
        if phase == PLAY_TILE:
            # a plain list: as cheap to build as a lazy one for six tiles at most
            return [{PLAY_TILE: NAMES[t]} for t in self._playable]
        if phase == PURCHASE:
            return self._offer.actions(self.cash[self.current], (self._facts or self._chain_facts())[2])
        if phase == FOUND_CHAIN:
            chains = self.rules.chains
            return [{FOUND_CHAIN: chains[c]} for c, ts in enumerate(self._ctiles) if not ts]
        if phase == DISPOSE:
            m = self._merge
            # whose disposal: the queue's first, unless a subclass has its own pending_seat()
            seat = m["queue"][0] if self._queue_phase == DISPOSE else self.pending_seat()
            owned = self._held[seat][m["defunct"][m["ci"]]]
            top = min(owned, 2 * self._avail[m["survivor"]])
            return _dispose_actions(owned, top)
        seat = self.pending_seat()
        return [{phase: c} for c in getattr(self, "_options_" + phase)(seat)["chains"]]

    # -------------------------------------------------------------- apply
    def apply(self, seat: int, action: dict) -> list[dict]:
        """Validate and apply ``action`` for ``seat``; return the events it caused."""
        phase = self._phase
        if phase is None:
            raise IllegalAction("the game is over")
        queued = self._queue_phase
        expected = self.current if queued is not None and phase != queued else self.pending_seat()
        if seat != expected:
            raise IllegalAction(f"it is not your decision: waiting for "
                                f"{self.players[expected]} to {phase.replace('_', ' ')}")
        if type(action) is not dict and not isinstance(action, dict):
            raise IllegalAction(f"an action must be a dict, not {type(action).__name__}")
        if phase not in action:
            raise IllegalAction(f"expected a {phase} action, got {sorted(map(str, action))}")
        if len(action) != 1 and not (phase == PURCHASE and len(action) == 2 and "end_game" in action):
            extra = set(action) - {phase, "end_game"} if phase == PURCHASE else set(action) - {phase}
            if extra:
                raise IllegalAction(f"unexpected keys in a {phase} action: {sorted(map(str, extra))}")
        handlers = self._handlers
        handler = handlers.get(phase)
        if handler is None:             # first action of this phase for this class
            handler = handlers[phase] = getattr(type(self), "_do_" + phase)
        ev: list[dict] = []
        handler(self, seat, action, ev)
        return ev

    def _log(self, seat: int, action: dict) -> None:
        self._actions.append({"player": self.players[seat], **action})

    def _parse_chain(self, name) -> int:
        return self.rules.chain_index(name)

    def _chain_arg(self, name) -> int:
        """_parse_chain, without a call for a chain spelled as the engine spells it."""
        if type(name) is str:
            c = self.rules._exact_index.get(name)
            if c is not None:
                return c
        return self._parse_chain(name)

    # play_tile
    def _do_play_tile(self, seat: int, action: dict, ev: list) -> None:
        name = action[PLAY_TILE]
        t = _TILE_INDEX.get(name) if type(name) is str else None
        if t is None:
            try:
                t = tile_index(name)
            except ValueError as exc:
                raise IllegalAction(str(exc)) from None
        if t in self._playable:         # classified at the start of the turn (_set_playable)
            status = self._tstat[t]
        else:
            if t not in self._racks[seat]:
                raise IllegalAction(f"{NAMES[t]} is not in your rack")
            status = self._classify(t)
            if status == UNPLAYABLE:
                raise IllegalAction(f"{NAMES[t]} would found an eighth chain: it cannot be played now")
            if status == DEAD:
                raise IllegalAction(f"{NAMES[t]} would merge safe chains: it can never be played")
        name = NAMES[t]
        self._actions.append({"player": self.players[seat], PLAY_TILE: name})
        rack = self._racks[seat]
        slot = rack.index(t)
        rack[slot] = None
        self._cells[t] = LONE
        stat = self._tstat
        if status == GROW:              # t joins a chain: its neighbours may change
            for n in NEIGHBOURS[t]:
                stat[n] = UNKNOWN
        else:
            # a lone tile changes only the status of a neighbour that had nothing
            # around it (SIMPLE: it may now found a chain); should t join a chain
            # later (found, merger), _join marks its neighbours then
            for n in NEIGHBOURS[t]:
                if stat[n] == SIMPLE:
                    stat[n] = UNKNOWN
        self._tile = t
        ev.append({"type": "tile_played", "seat": seat, "tile": name, "slot": slot})
        if status == GROW:
            self._grow(seat, t, ev)
            self._enter_purchase(ev)
        elif status == SIMPLE:
            self._enter_purchase(ev)
        elif status == FOUND:
            self._phase = FOUND_CHAIN
        else:
            self._start_merger(t, ev)

    def _grow(self, seat: int, t: int, ev: list) -> None:
        cells = self._cells
        c = -1
        lone = False
        for n in NEIGHBOURS[t]:
            v = cells[n]
            if v >= 0:
                c = v                   # the one chain next to t
            elif v == LONE:
                lone = True
        if lone:
            added = self._flood_lone(t)
            self._join(c, added)
            names = [NAMES[x] for x in sorted(added)]
        else:
            # the usual case: _join of t alone, whose neighbours were marked when it was played
            cells[t] = c
            members = self._ctiles[c]
            before = len(members)
            members.append(t)
            rules = self.rules
            prices = rules.price_table[c]
            if prices[before] != prices[before + 1]:
                self._stale |= 1 << c
            if self._facts is not None and (before + 1 == rules.safe_size or before + 1 == rules.end_size):
                self._facts = None
            names = [NAMES[t]]
        ev.append({"type": "chain_grew", "seat": seat, "chain": self.rules.chains[c], "tiles": names})

    # found_chain
    def _do_found_chain(self, seat: int, action: dict, ev: list) -> None:
        c = self._chain_arg(action[FOUND_CHAIN])
        name = self.rules.chains[c]
        if self._ctiles[c]:
            raise IllegalAction(f"{name} is already on the board")
        self._actions.append({"player": self.players[seat], FOUND_CHAIN: name})
        self._found(seat, c, ev)
        self._enter_purchase(ev)

    def _found(self, seat: int, c: int, ev: list) -> None:
        ts = self._flood_lone(self._tile)
        self._join(c, ts)
        avail = self._avail
        free = avail[c] > 0
        if free:
            avail[c] -= 1
            self._held[seat][c] += 1
        ts.sort()
        ev.append({"type": "chain_founded", "seat": seat, "chain": self.rules.chains[c],
                   "tiles": [NAMES[x] for x in ts], "free_share": free})

    # mergers
    def _start_merger(self, t: int, ev: list) -> None:
        cs = self._neighbour_chains(t)
        self._merge = {"tile": t, "chains": cs, "survivor": -1, "remaining": [],
                       "defunct": [], "prices": [], "ci": 0, "queue": []}
        tied = self._tied(cs)
        if len(tied) > 1:
            self._phase = CHOOSE_SURVIVOR
        else:
            self._set_survivor(tied[0], ev)

    def _do_choose_survivor(self, seat: int, action: dict, ev: list) -> None:
        c = self._chain_arg(action[CHOOSE_SURVIVOR])
        if c not in self._tied(self._merge["chains"]):
            raise IllegalAction(f"{self.rules.chains[c]} is not one of the largest chains in this merger")
        self._log(seat, {CHOOSE_SURVIVOR: self.rules.chains[c]})
        self._set_survivor(c, ev)

    def _set_survivor(self, c: int, ev: list) -> None:
        m = self._merge
        m["survivor"] = c
        m["remaining"] = [x for x in m["chains"] if x != c]
        self._order_defunct(ev)

    def _do_choose_defunct(self, seat: int, action: dict, ev: list) -> None:
        c = self._chain_arg(action[CHOOSE_DEFUNCT])
        m = self._merge
        if c not in self._tied(m["remaining"]):
            raise IllegalAction(f"{self.rules.chains[c]} is not one of the chains to be disposed of next")
        self._log(seat, {CHOOSE_DEFUNCT: self.rules.chains[c]})
        m["remaining"].remove(c)
        m["defunct"].append(c)
        self._order_defunct(ev)

    def _order_defunct(self, ev: list) -> None:
        m = self._merge
        remaining = m["remaining"]
        while remaining:
            if len(remaining) == 1:     # the usual two-chain merger: nothing to order
                m["defunct"].append(remaining.pop())
                break
            tied = self._tied(remaining)
            if len(tied) > 1:
                self._phase = CHOOSE_DEFUNCT
                return
            remaining.remove(tied[0])
            m["defunct"].append(tied[0])
        self._merger_ordered(ev)

    def _merger_ordered(self, ev: list) -> None:
        """Survivor and defunct order known: announce, pay all bonuses, start disposal."""
        m = self._merge
        rules = self.rules
        chains, table, ctiles = rules.chains, rules.price_table, self._ctiles
        defunct = m["defunct"]
        prices = m["prices"] = [table[c][len(ctiles[c])] for c in defunct]
        ev.append({"type": "merger", "seat": self.current, "tile": NAMES[m["tile"]],
                   "survivor": chains[m["survivor"]],
                   "defunct": [chains[c] for c in defunct],
                   "sizes": {chains[c]: len(ctiles[c]) for c in m["chains"]}})
        for c, p in zip(defunct, prices):
            self._pay_bonuses(c, p, "bonus", ev)
        m["ci"] = 0
        m["queue"] = self._disposal_queue(defunct[0])
        self._next_disposal(ev)

    def _pay_bonuses(self, c: int, price: int | None, kind: str, ev: list) -> list:
        paid = self._bonus_list(c, price)
        name = self.rules.chains[c]
        for seat, amount, k in paid:
            self.cash[seat] += amount
            ev.append({"type": kind, "chain": name, "seat": seat, "amount": amount, "kind": k})
        return paid

    def _disposal_queue(self, c: int) -> list[int]:
        """The holders of ``c`` in turn order, from the current player."""
        order, pos, held = self.order, self._pos, self._held
        return [s for s in order[pos:] + order[:pos] if held[s][c] > 0]

    def _next_disposal(self, ev: list) -> None:
        m = self._merge
        while not m["queue"]:
            m["ci"] += 1
            if m["ci"] >= len(m["defunct"]):
                self._finish_merger(ev)
                return
            m["queue"] = self._disposal_queue(m["defunct"][m["ci"]])
        self._phase = DISPOSE

    def _do_dispose(self, seat: int, action: dict, ev: list) -> None:
        d = action[DISPOSE]
        if type(d) is dict and len(d) == 2:
            # as legal_actions() spells it: both keys, whole numbers
            sell, trade = d.get("sell"), d.get("trade")
            if type(sell) is int and type(trade) is int and sell >= 0 and trade >= 0:
                m = self._merge
                ci = m["ci"]
                c, s = m["defunct"][ci], m["survivor"]
                if not trade % 2 and sell + trade <= self._held[seat][c] and trade // 2 <= self._avail[s]:
                    self._actions.append({"player": self.players[seat], DISPOSE: {"sell": sell, "trade": trade}})
                    self._dispose(seat, c, s, sell, trade, m["prices"][ci], ev)
                    queue = m["queue"]
                    del queue[0]
                    if not queue:
                        self._next_disposal(ev)
                    return
        self._check_dispose(seat, d)        # raises IllegalAction, or it is legal:
        sell, trade = d.get("sell", 0), d.get("trade", 0)
        m = self._merge
        self._log(seat, {DISPOSE: {"sell": sell, "trade": trade}})
        self._dispose(seat, m["defunct"][m["ci"]], m["survivor"], sell, trade, m["prices"][m["ci"]], ev)
        m["queue"].pop(0)
        self._next_disposal(ev)

    def _check_dispose(self, seat: int, d) -> None:
        """Raise the IllegalAction of a disposal that is not legal."""
        if not isinstance(d, dict):
            raise IllegalAction("dispose takes {\"sell\": n, \"trade\": n}")
        if not _DISPOSE_KEYS.issuperset(d):
            raise IllegalAction(f"unexpected keys in dispose: {sorted(set(d) - _DISPOSE_KEYS)}")
        sell, trade = d.get("sell", 0), d.get("trade", 0)
        if not (_is_int(sell) and _is_int(trade)) or sell < 0 or trade < 0:
            raise IllegalAction("sell and trade must be whole numbers, 0 or more")
        m = self._merge
        c, s = m["defunct"][m["ci"]], m["survivor"]
        owned = self._held[seat][c]
        if trade % 2:
            raise IllegalAction("shares are traded two for one: trade an even number")
        if sell + trade > owned:
            raise IllegalAction(f"you own only {owned} {self.rules.chains[c]} shares")
        if trade // 2 > self._avail[s]:
            raise IllegalAction(f"only {self._avail[s]} {self.rules.chains[s]} shares are left to trade for")

    def _dispose(self, seat, c, s, sell, trade, price, ev) -> None:
        held, avail, cash = self._held[seat], self._avail, self.cash
        got = trade // 2
        kept = held[c] = held[c] - sell - trade
        avail[c] += sell + trade
        money = cash[seat] = cash[seat] + sell * price
        if got:
            held[s] += got
            avail[s] -= got
            self._stale |= 1 << c | 1 << s
        else:
            self._stale |= 1 << c
        ev.append({"type": "disposed", "seat": seat, "chain": self.rules.chains[c], "sold": sell,
                   "traded": trade, "kept": kept, "received": got, "cash": money})

    def _finish_merger(self, ev: list) -> None:
        m = self._merge
        s = m["survivor"]
        cells, ctiles = self._cells, self._ctiles
        members = ctiles[s]
        stale = self._stale | 1 << s
        for c in m["defunct"]:
            ts = ctiles[c]
            ctiles[c] = []
            stale |= 1 << c
            for t in ts:
                cells[t] = s
            members.extend(ts)
        self._stale = stale
        # A tile next to a renamed tile and no other chain still grows one chain;
        # one next to others (MERGE, DEAD) may now grow, merge fewer or more safely.
        # Only rack tiles are ever looked up (see _chain_facts): marking those is
        # cheaper than the neighbours of every defunct tile.
        stat = self._tstat
        for rack in self._racks:
            for t in rack:
                if t is not None and stat[t] >= MERGE:
                    stat[t] = UNKNOWN
        self._join(s, self._flood_lone(m["tile"]))
        self._facts = None                  # the defunct chains left the board
        self._merge = None
        ev.append({"type": "merger_done", "survivor": self.rules.chains[s],
                   "tiles": [NAMES[t] for t in sorted(self._ctiles[s])]})
        self._enter_purchase(ev)

    # purchase
    def _enter_purchase(self, ev: list) -> None:
        """The buy step, unless nothing can be bought and the game cannot be ended.

        The offer (chains on the board with shares left, their price and how
        many may be bought) and whether the game may be ended are worked out
        here, once per buy step: nothing changes them until the purchase is applied.
        """
        if self._stale:
            self._refresh_offer()
        # the chain facts, kept until the purchase is applied: whether the game may be ended
        can_end = (self._facts or self._chain_facts())[2]
        if can_end or 0 <= self._offer.low <= self.cash[self.current]:
            self._phase = PURCHASE
        else:
            self._end_turn(ev)

    def _refresh_offer(self) -> None:
        """Refresh the offer entries of the chains whose size or shares left changed."""
        entries = self._entries
        stale = self._stale
        if stale:
            # refresh the entries of the chains whose size or shares left changed
            rules = self.rules
            max_buy = rules.max_buy
            table, chains, avail, ctiles = rules.price_table, rules.chains, self._avail, self._ctiles
            self._stale = 0
            changed = False
            while stale:
                c = (stale & -stale).bit_length() - 1
                stale &= stale - 1
                ts, a = ctiles[c], avail[c]
                entry = (chains[c], table[c][len(ts)], a if a < max_buy else max_buy) if ts and a > 0 else None
                if entry != entries[c]:
                    entries[c] = entry
                    changed = True
            if changed:
                # the offer changes only with its entries: kept from one buy step to the next
                self._offer = Offer(list(filter(None, entries)), max_buy)

    def _do_purchase(self, seat: int, action: dict, ev: list) -> None:
        buy = action[PURCHASE]
        end = action.get("end_game", False)
        if type(buy) is not dict and not isinstance(buy, dict):
            raise IllegalAction("purchase takes {chain: count}")
        if end is not False and end is not True:
            raise IllegalAction("end_game must be true or false")
        cash = self.cash
        if buy:
            # as legal_actions() spells a purchase (canonical names, counts of 1 or more):
            # checked and bought in one pass, undone if it is not legal after all (then
            # _check_purchase says why, or takes it in any other spelling)
            rules = self.rules
            exact, ctiles, table, avail = rules._exact_index, self._ctiles, rules.price_table, self._avail
            chains, max_buy, held = rules.chains, rules.max_buy, self._held[seat]
            stale = self._stale
            logged = {}
            bought = None
            total = cost = 0
            for name, n in buy.items():
                c = exact.get(name) if type(name) is str else None
                if c is None or type(n) is not int or n <= 0:
                    break
                size = len(ctiles[c])
                left = avail[c] - n
                if not size or left < 0:
                    break
                held[c] += n
                avail[c] = left
                logged[chains[c]] = n
                if left < max_buy:          # its offer entry changes
                    stale |= 1 << c
                total += n
                cost += n * table[c][size]
            else:
                if total <= max_buy and cost <= cash[seat] and (not end or (self._facts or self._chain_facts())[2]):
                    self._stale = stale
                    bought = logged.copy()
            if bought is None:              # undo what this pass bought, then the general way
                for name, n in logged.items():
                    c = exact[name]
                    held[c] -= n
                    avail[c] += n
                checked, cost = self._check_purchase(seat, buy)
                if end and not (self._facts or self._chain_facts())[2]:
                    raise IllegalAction("the game cannot be ended yet")
                stale = self._stale         # (this pass's changes were not stored)
                logged = {}
                for c, n in checked.items():
                    held[c] += n
                    left = avail[c] = avail[c] - n
                    logged[chains[c]] = n
                    if left < max_buy:
                        stale |= 1 << c
                self._stale = stale
                bought = logged.copy()
        else:
            if end and not (self._facts or self._chain_facts())[2]:
                raise IllegalAction("the game cannot be ended yet")
            cost = 0
            logged, bought = {}, {}
        left = cash[seat] = cash[seat] - cost
        self._actions.append({"player": self.players[seat], PURCHASE: logged, "end_game": end})
        ev.append({"type": "purchased", "seat": seat, "shares": bought, "cost": cost, "cash": left})
        if end:
            self._finish("claimed", ev)
        else:
            self._end_turn(ev)

    def _check_purchase(self, seat: int, buy: dict) -> tuple[dict[int, int], int]:
        """Validate a non-empty purchase: ({chain index: count}, total cost)."""
        counts: dict[int, int] = {}
        parse = self._parse_chain
        for name, n in buy.items():
            c = parse(name)
            if not _is_int(n) or n < 0:
                raise IllegalAction(f"cannot buy {n!r} shares")
            counts[c] = counts.get(c, 0) + n
        if 0 in counts.values():            # drop chains bought 0 times, e.g. {"Tower": 0}
            counts = {c: n for c, n in counts.items() if n}
        rules = self.rules
        if sum(counts.values()) > rules.max_buy:
            raise IllegalAction(f"at most {rules.max_buy} shares may be bought in a turn")
        cost = 0
        chains, ctiles, avail, price = rules.chains, self._ctiles, self._avail, rules.price
        for c, n in counts.items():
            size = len(ctiles[c])
            if not size:
                raise IllegalAction(f"{chains[c]} is not on the board")
            if n > avail[c]:
                raise IllegalAction(f"only {avail[c]} {chains[c]} shares are available")
            cost += n * price(c, size)
        if cost > self.cash[seat]:
            raise IllegalAction(f"those shares cost ${cost}, you have ${self.cash[seat]}")
        return counts, cost

    # ------------------------------------------------------- turn sequencing
    def _start_turn(self, pos: int, ev: list) -> None:
        self._pos = pos
        seat = self.current = self.order[pos]
        self._tile = -1
        self._merge = None
        ev.append({"type": "turn", "seat": seat})
        if self._last_round_left >= 0:
            self._enter_purchase(ev)
            return
        if self._set_playable(seat):
            self._phase = PLAY_TILE
        else:
            ev.append({"type": "no_playable_tile", "seat": seat})
            self._enter_purchase(ev)

    def _set_playable(self, seat: int) -> bool:
        """The playable tiles of ``seat``'s rack, for the play_tile phase."""
        self._facts or self._chain_facts()          # first: may drop _tstat
        stat = self._tstat
        playable = self._playable = []
        for t in self._racks[seat]:
            if t is not None:
                status = stat[t]
                if status < 0:
                    status = stat[t] = self._classify(t)
                if status < UNPLAYABLE:
                    playable.append(t)
        return bool(playable)

    def _end_turn(self, ev: list) -> None:
        seat = self.current
        bag = self._tile_bag
        pos, size = self._bag_pos, len(bag)
        if pos < size:
            # refill: _draw for each empty slot, first empty slot first, while the bag lasts
            rack = self._racks[seat]
            while None in rack:
                slot = rack.index(None)
                t = rack[slot] = bag[pos]
                pos += 1
                ev.append({"type": "tile_drawn", "seat": seat, "slot": slot, "tile": NAMES[t]})
                if pos == size:
                    ev.append({"type": "bag_empty"})
                    break
            self._bag_pos = pos
        safe_mask = (self._facts or self._chain_facts())[1]
        if safe_mask & (safe_mask - 1):     # two safe chains: maybe dead tiles
            self._replace_dead(seat, ev)
        if pos >= size and self._no_tiles_left():
            self._finish("no_tiles", ev)
            return
        if self._last_round_left >= 0:
            self._last_round_left -= 1
            if self._last_round_left == 0:
                self._finish("no_playable_tiles", ev)
                return
        elif self._tile >= 0:
            self._no_play = 0
        else:
            self._no_play += 1
            if self._no_play >= len(self.players):
                self._last_round_left = len(self.players)
                ev.append({"type": "last_round"})
        self._start_turn((self._pos + 1) % len(self.order), ev)

    def _refill(self, seat: int, ev: list) -> None:
        rack = self._racks[seat]
        while None in rack and self._draw(seat, ev):
            pass

    def _replace_dead(self, seat: int, ev: list) -> None:
        """Set aside each tile that can never be played, in slot order, drawing a replacement."""
        safe_mask = (self._facts or self._chain_facts())[1]     # first: may drop _tstat
        if not safe_mask & (safe_mask - 1):     # fewer than two safe chains: no dead tile
            return
        stat = self._tstat
        rack = self._racks[seat]
        i = 0
        while i < len(rack):
            t = rack[i]
            if t is not None and stat[t] < 0:
                stat[t] = self._classify(t)
            if t is not None and stat[t] == DEAD:
                rack[i] = None
                self._dead.add(t)
                ev.append({"type": "tile_dead", "seat": seat, "slot": i, "tile": NAMES[t]})
                if self._draw(seat, ev) and rack[i] is not None:
                    continue            # check the replacement too
            i += 1

    def _may_have_dead(self) -> bool:
        """False when no tile can be dead (fewer than two safe chains): skips the scan."""
        safe = self.rules.safe_size
        n = 0
        for ts in self._ctiles:
            if len(ts) >= safe:
                if n:
                    return True
                n = 1
        return False

    def _no_tiles_left(self) -> bool:
        """Every tile is on the board or set aside: nothing is left to play.

        A dead tile still in a rack does not count as set aside: it is set
        aside only at the end of its owner's turn, and that turn (a purchase)
        must still be played.
        """
        if self._bag_pos < len(self._tile_bag):
            return False
        for rack in self._racks:
            for t in rack:
                if t is not None:
                    return False
        return True

    def _finish(self, reason: str, ev: list) -> None:
        """End the game: pay bonuses for chains on the board, sell every share."""
        self._phase = None
        self._merge = None
        self.end_reason = reason
        n = len(self.players)
        final = [{"seat": s, "cash": 0, "bonuses": 0, "sales": 0} for s in range(n)]
        for c, ts in enumerate(self._ctiles):
            if ts:
                for seat, amount, _ in self._pay_bonuses(c, None, "final_bonus", ev):
                    final[seat]["bonuses"] += amount
        for seat in range(n):
            held = self._held[seat]
            for c, k in enumerate(held):
                if k:
                    sale = k * self.rules.price(c, len(self._ctiles[c]))
                    self.cash[seat] += sale
                    final[seat]["sales"] += sale
                    self._avail[c] += k
                    held[c] = 0
            final[seat]["cash"] = self.cash[seat]
        self._final = final
        res = self.result()
        ev.append({"type": "game_over", "reason": reason, "scores": res["scores"],
                   "winners": res["winners"], "final": [dict(f) for f in final]})

    def result(self) -> dict:
        if not self.is_over():
            raise IllegalAction("the game is not over")
        top = max(self.cash)
        return {"scores": list(self.cash), "winners": [s for s, c in enumerate(self.cash) if c == top],
                "reason": self.end_reason}

    # ------------------------------------------------------ serialisation
    def record(self) -> dict:
        """The game record: players, the full tile bag and every action applied."""
        rec = {"game": "acquire", "variant": self.rules.variant, "players": list(self.players),
               "tile_bag": [NAMES[t] for t in self._tile_bag],
               "actions": [_copy_action(a) for a in self._actions]}
        if self.seed is not None:
            rec["seed"] = self.seed
        if self.rules != rules_for(self.rules.variant):
            rec["rules"] = self.rules.to_dict()
        return rec

    def to_dict(self) -> dict:
        chains = self.rules.chains
        m = self._merge
        if m is not None:
            m = {"tile": NAMES[m["tile"]], "chains": [chains[c] for c in m["chains"]],
                 "survivor": chains[m["survivor"]] if m["survivor"] >= 0 else None,
                 "remaining": [chains[c] for c in m["remaining"]],
                 "defunct": [chains[c] for c in m["defunct"]], "prices": list(m["prices"]),
                 "ci": m["ci"], "queue": list(m["queue"])}
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
            "racks": self.racks,
            "cash": list(self.cash),
            "shares": [list(h) for h in self._held],
            "phase": self._phase,
            "tile": NAMES[self._tile] if self._tile >= 0 else None,
            "merge": m,
            "no_play_turns": self._no_play,
            "last_round_left": self._last_round_left if self._last_round_left >= 0 else None,
            "end_reason": self.end_reason,
            "final": [dict(f) for f in self._final] if self._final is not None else None,
            "actions": [_copy_action(a) for a in self._actions],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Game":
        if d.get("format") != STATE_FORMAT:
            raise ValueError(f"not an Acquire state: format {d.get('format')!r}")
        rules = rules_for(d["rules"].get("variant", "classic"), d["rules"])
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
        game._racks = [[None if t is None else tile_index(t) for t in rack] for rack in d["racks"]]
        game.cash = list(d["cash"])
        game._held = [list(h) for h in d["shares"]]
        game._avail = [rules.shares_per_chain - sum(h[c] for h in game._held)
                       for c in range(len(rules.chains))]
        game._phase = d["phase"]
        game._tile = tile_index(d["tile"]) if d["tile"] is not None else -1
        m = d["merge"]
        if m is not None:
            m = {"tile": tile_index(m["tile"]), "chains": [ci(c) for c in m["chains"]],
                 "survivor": ci(m["survivor"]) if m["survivor"] is not None else -1,
                 "remaining": [ci(c) for c in m["remaining"]],
                 "defunct": [ci(c) for c in m["defunct"]], "prices": list(m["prices"]),
                 "ci": m["ci"], "queue": list(m["queue"])}
        game._merge = m
        if game._phase == PLAY_TILE:
            game._set_playable(game.current)
        elif game._phase == PURCHASE:
            game._refresh_offer()
        game._no_play = d["no_play_turns"]
        lr = d["last_round_left"]
        game._last_round_left = -1 if lr is None else lr
        game.end_reason = d["end_reason"]
        game._final = [dict(f) for f in d["final"]] if d["final"] is not None else None
        game._actions = [_copy_action(a) for a in d["actions"]]
        return game


def _dispose_actions(owned: int, top: int) -> LegalActions:
    """Every (sell s, trade t) with t even, t <= top and s + t <= owned, t then s ascending:
    ``[{"dispose": {"sell": s, "trade": t}} for t in range(0, top + 1, 2)
    for s in range(owned - t + 1)]``, built as it is read."""
    trades = top // 2 + 1
    return lazy_actions(trades * (owned + 1) - trades * (trades - 1), _dispose_action, owned)


def _dispose_action(owned: int, i: int) -> dict:
    t = 0
    while i > owned - t:                # owned - t + 1 sales for each trade t
        i -= owned - t + 1
        t += 2
    return {DISPOSE: {"sell": i, "trade": t}}


def _copy_action(a: dict) -> dict:
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in a.items()}
