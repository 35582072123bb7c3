"""Acquire engine state and events -> NetAcquire client-processed directives.

Pure functions and one small class, no Twisted: everything here is tested by
feeding an engine and looking at the directives.

What deployed clients rely on (see netacquire-notes.md):

- Colours are the only chain and tile codes they accept (``CHAIN_COLOURS``,
  the ``*_TILE`` constants); an unknown one can crash a client.
- The score sheet lives in ``SV;frmScoreSheet,lblData,<index>,Caption,<value>``
  labels: 1-6 player names; 9-15 available shares; 17-23 chain sizes; 25-31
  prices in hundreds; 33-38, 40-45, ... 75-80 holdings of Luxor .. Imperial for
  players 1-6; 82-87 cash in dollars.  Score sheet rows are seats (join order),
  which is also the order of the engine's ``players``.
- The rack: ``AT;<slot 1-6>,<Tile-ID>,<colour>`` and
  ``SV;frmTileRack,cmdTile,<slot>,Visible,0|1``; a tile played from a slot is
  replaced in the same slot (the engine draws into the slot it left).
- ``*Waiting for NAME to ...`` game messages tell a client whose decision it is.

:class:`ClientView` remembers what one client has been shown (score sheet,
board, rack, row colours), so that after every batch of engine events the
protocol sends only what changed, computed from the engine's state, and a
(re)connecting client gets everything at once from the same code.
"""
from __future__ import annotations

from itertools import compress as _compress
from operator import ne as _ne
from types import MappingProxyType

from gamehall.table import PLAYING
from gamehall_acquire.rules import EMPTY, LONE, PRIVATE_EVENTS
from gamehall_acquire.tiles import N_ROWS, NAMES, tile_id

from .codec import Directive, Quoted
from .encoded import (board_wire, caption_wire, message_wire, rack_tile_wire, rack_visible_wire, status_wire,
                      wire as _wire)

# -- codes ---------------------------------------------------------------------

#: NetAcquire chain order (index 1..7) and colours (Chain-ID)
CHAIN_COLOURS: dict[str, int] = {
    "Luxor": 255, "Tower": 65535, "American": 16711680, "Festival": 65280,
    "Worldwide": 16512, "Continental": 16776960, "Imperial": 16711935,
}
CHAINS: tuple[str, ...] = tuple(CHAIN_COLOURS)

PLAIN_TILE = 12632256      # C0C0C0: a tile not in a chain / a plain rack tile
BLOCKED_TILE = 6316128     # 606060: cannot be played now (would found an eighth chain)
DEAD_TILE = 8421504        # 808080: can never be played (would merge two safe chains)
JOINING_TILE = 12648384    # would join a neighbouring tile (found, grow or merge)
WHITE = 16777215
HIGHLIGHT = 12632319       # C0C0FF: the row of the player whose turn it is
#: SB state of an empty board cell (C0FFFF, the board's own colour).  Clients mark a
#: rack tile's cell as "in my rack" on AT until an SB for that cell; 0 would show a
#: placed tile.  Sent when a rack tile leaves the rack without reaching the board.
EMPTY_CELL = 12648447

RACK_COLOURS = {
    "playable": PLAIN_TILE, "found": JOINING_TILE, "grow": JOINING_TILE, "merge": JOINING_TILE,
    "unplayable_now": BLOCKED_TILE, "dead": DEAD_TILE,
}

#: GC selection types (Game-Status-ID of the next action) by decision kind
SELECTION_TYPES = {"found_chain": 4, "choose_survivor": 6, "choose_defunct": 8}

#: the words of "*Waiting for NAME to <words>." by decision kind (dispose is built)
WAITING_WORDS = {
    "play_tile": "play tile", "purchase": "make purchase", "choose_defunct": "select chain to merge",
    "choose_survivor": "select merger survivor", "found_chain": "select new chain",
}

MAX_SEATS = 6
RACK_SLOTS = 6

# score sheet label indexes
NAME_BASE, AVAILABLE_BASE, SIZE_BASE, PRICE_BASE, HOLDING_BASE, CASH_BASE = 1, 9, 17, 25, 33, 82


def holding_index(chain_number: int, seat: int) -> int:
    """Score sheet label of ``seat``'s holding in chain ``chain_number`` (0 = Luxor)."""
    return HOLDING_BASE + 7 * chain_number + seat


def chain_colour(chain: str) -> int:
    return CHAIN_COLOURS[chain]


def chain_from_code(value: str) -> str:
    """The chain named by a CS Chain-ID: its colour (as clients send), or an index 1-7.

    Raises ValueError for anything else.  The protocol text's old Imperial
    colour (12632319) is accepted too.
    """
    code = int(str(value).strip())
    for chain, colour in CHAIN_COLOURS.items():
        if code == colour:
            return chain
    if code == 12632319:
        return "Imperial"
    if 1 <= code <= len(CHAINS):
        return CHAINS[code - 1]
    raise ValueError(f"{code} is not a hotel chain colour")


# -- directives ----------------------------------------------------------------

#: ``Directive(code, params)`` without the namedtuple's ``__new__`` (a Python function: a
#: frame and an argument tuple per directive): the same tuple subclass instance
_new = tuple.__new__


def d(code: str, *params: object) -> Directive:
    """A directive with its parameters as strings (``True`` -> ``"True"``)."""
    return _new(Directive, (code, tuple([p if isinstance(p, str) else str(p) for p in params])))


def _plain(text: str) -> str:
    """Text safe inside an ``M`` field or a status bar: no ``;`` ``"`` or line breaks."""
    return " ".join(str(text).replace(";", ",").replace('"', "'").split())


def gm(text: str) -> Directive:
    return _new(Directive, ("GM", (str(text),)))


def lm(text: str) -> Directive:
    return _new(Directive, ("LM", (str(text),)))


def message_box(kind: str, title: str, text: str) -> Directive:
    """``M;"<kind>;<title>;<text>"``: kind E (error), I (information) or W (warning)."""
    return _new(Directive, ("M", (f"{kind};{_plain(title)};{_plain(text)}",)))


def user_list(users) -> list[Directive]:
    """LU's answer: the hall's users, each in the lobby, watching or playing a game."""
    # clients parse this list: "# Users: N ...", entries ending " ...", then the end line
    lines = [f"# Users: {len(users)} ..."]
    for user in users:
        if user.table is None:
            lines.append(f"# -> {user.nickname} in lobby ...")
        elif user.watching:
            lines.append(f"# -> {user.nickname} (watching game #{user.table.id}) ...")
        else:
            lines.append(f"# -> {user.nickname} (playing in game #{user.table.id}) ...")
    lines.append("# End of user list.")
    return [lm(line) for line in lines]


def game_list(tables) -> list[Directive]:
    """LG's answer: the Acquire tables waiting or in play, their players and spectators."""
    lines = [f"# Active games: {len(tables)} ..."]
    for table in tables:
        players = len(table.seats)
        watchers = len(table.spectators)
        audience = "no spectators" if not watchers else f"{watchers} spectator{'s' if watchers != 1 else ''}"
        state = "In Progress" if table.state == PLAYING else f"Waiting for players (limit {table.max_seats})"
        lines.append(f"# ->   Game #{table.id}-> {players} player{'s' if players != 1 else ''}, "
                     f"{audience}, {state}")
    lines.append("# End of game list.")
    return [lm(line) for line in lines]


def set_state(state: int) -> Directive:
    return d("SS", state)


def caption(index: int, value: object) -> Directive:
    return d("SV", "frmScoreSheet", "lblData", index, "Caption", value)


def back_colour(index: int, colour: int) -> Directive:
    return d("SV", "frmScoreSheet", "lblData", index, "BackColor", colour)


def rack_visible(slot: int, visible: bool) -> Directive:
    """Show or hide rack slot ``slot`` (1-6)."""
    return d("SV", "frmTileRack", "cmdTile", slot, "Visible", 1 if visible else 0)


def status_bar(text: str) -> Directive:
    # Clients split non-message directives on "," and ";" whatever the quotes say.
    return _new(Directive, ("SV", ("frmNetAcquire", "status", "-1", "SimpleText",
                                   Quoted(_plain(text).replace(",", "")))))


def status_bar_wire(text: str) -> bytes | None:
    """``wire(status_bar(text))`` without the directive."""
    shown = _plain(text).replace(",", "")       # no '"', ',' or ';' left
    data = status_wire(shown)
    return data if data is not None else _wire(status_bar(text))


def rack_colour(game, tile: str) -> int:
    return RACK_COLOURS.get(game.tile_status(tile), PLAIN_TILE)


# -- the score sheet -----------------------------------------------------------

def name_captions(names: list[str]) -> dict[int, str]:
    return {NAME_BASE + i: (names[i] if i < len(names) else "") for i in range(MAX_SEATS)}


_NUMBERS = tuple(str(n) for n in range(1000))     # captions of small numbers: one str object each


def _number(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < 1000 else str(n)


def score_sheet(game, names: list[str] | None = None) -> dict[int, str]:
    """Every score sheet caption for ``game`` (names default to the engine's players)."""
    sheet = name_captions(list(game.players) if names is None else names)
    shares = game.shares
    seats = range(len(game.players))
    available, chain_size, price = game.available, game.chain_size, game.price
    for c, chain in enumerate(CHAINS):
        sheet[AVAILABLE_BASE + c] = _number(available(chain))
        sheet[SIZE_BASE + c] = _number(chain_size(chain))
        sheet[PRICE_BASE + c] = _number(price(chain) // 100)
        base = HOLDING_BASE + 7 * c
        for seat in seats:
            sheet[base + seat] = _number(shares[seat][chain])
    cash = game.cash
    for seat in seats:
        sheet[CASH_BASE + seat] = str(cash[seat])
    return sheet


def sheet_order(players: int) -> list[int]:
    """The score sheet's label indexes for ``players`` seats, in index order (see ``score_sheet``)."""
    order = _SHEET_ORDER.get(players)
    if order is None:
        order = _SHEET_ORDER[players] = sorted(score_sheet_indexes(players))
    return order


def score_sheet_indexes(players: int) -> list[int]:
    return (list(range(NAME_BASE, NAME_BASE + MAX_SEATS))
            + [base + c for base in (AVAILABLE_BASE, SIZE_BASE, PRICE_BASE) for c in range(len(CHAINS))]
            + [holding_index(c, seat) for c in range(len(CHAINS)) for seat in range(players)]
            + [CASH_BASE + seat for seat in range(players)])


def score_sheet_values(game) -> list[str]:
    """``score_sheet(game)``'s captions in ``sheet_order`` (no dict: one list per update)."""
    names = game.players
    n = len(names)
    values = [names[i] if i < n else "" for i in range(MAX_SEATS)]
    number = _number
    figures = getattr(game, "chain_figures", None)
    if figures is not None:
        chains, available, sizes, prices = figures()
        if chains == CHAINS:              # the engine's chain order is the sheet's: by index
            # _number inline: one call less per caption
            numbers = _NUMBERS
            values += [numbers[x] if 0 <= x < 1000 else str(x) for x in available]
            values += [numbers[x] if 0 <= x < 1000 else str(x) for x in sizes]
            values += [number(p // 100) for p in prices]
            for column in zip(*[game.shares_of(seat) for seat in range(n)]):     # by chain, then seat
                values += [numbers[x] if 0 <= x < 1000 else str(x) for x in column]
            cash = game.cash
            values += [str(cash[seat]) for seat in range(n)]
            return values
    available, chain_size, price = game.available, game.chain_size, game.price
    values += [number(available(chain)) for chain in CHAINS]
    values += [number(chain_size(chain)) for chain in CHAINS]
    values += [number(price(chain) // 100) for chain in CHAINS]
    shares = game.shares
    for chain in CHAINS:
        values += [number(shares[seat][chain]) for seat in range(n)]
    cash = game.cash
    values += [str(cash[seat]) for seat in range(n)]
    return values


def market_indexes() -> list[int]:
    """Labels clients read to build the purchase dialog: available shares and prices."""
    return [AVAILABLE_BASE + c for c in range(len(CHAINS))] + [PRICE_BASE + c for c in range(len(CHAINS))]


# -- whose decision ------------------------------------------------------------

def waiting_words(decision) -> str:
    if decision.kind == "dispose":
        return f"dispose of {decision.options['chain']} shares"
    return WAITING_WORDS[decision.kind]


def waiting_message(game) -> Directive | None:
    """``*Waiting for NAME to ....`` for the pending decision, or None when the game is over."""
    decision = game.pending()
    if decision is None:
        return None
    return gm(f"*Waiting for {game.players[decision.seat]} to {waiting_words(decision)}.")


def request(game, seat: int, decision=None) -> list[Directive]:
    """The request that asks ``seat`` for its pending decision (empty if it is not theirs).

    ``decision``: ``game.pending()`` if the caller has it.  The purchase request is
    preceded by nothing here: the caller refreshes the market captions first
    (``ClientView.refresh``), as clients build the purchase dialog from them.
    """
    if decision is None:
        decision = game.pending()
    if decision is None or decision.seat != seat:
        return []
    kind, options = decision.kind, decision.options
    if kind == "play_tile":
        return [status_bar("Your turn - play a tile"), d("GT")]
    if kind in SELECTION_TYPES:
        indexes = [CHAINS.index(chain) + 1 for chain in options["chains"]]
        return [status_bar(f"Your turn - {WAITING_WORDS[kind]}"), d("GC", SELECTION_TYPES[kind], *indexes)]
    if kind == "dispose":
        return [status_bar(f"Your turn - dispose of {options['chain']} shares"),
                d("GD", options["merger_seat"] != seat, options["chain"], options["shares"],
                  options["survivor_available"], chain_colour(options["chain"]),
                  chain_colour(options["survivor"]))]
    if kind == "purchase":
        return [status_bar("Your turn - buy shares"), d("GP", -1 if options["can_end"] else 0, options["cash"])]
    raise ValueError(f"unknown decision kind {kind!r}")  # pragma: no cover


_REQUEST_WIRE: dict = {}      # (kind, chains) -> the framed request of a tile or chain choice


def request_wire(game, seat: int, decision=None) -> tuple[bytes, ...]:
    """``request``'s directives framed (``wire``): the bytes that ask ``seat``, once per answer.

    A tile or chain request is the same for every table (by its kind and chains): framed
    once; a purchase request's status bar too, its ``GP`` carries the player's cash."""
    if decision is None:
        decision = game.pending()
    if decision is None or decision.seat != seat:
        return ()
    kind = decision.kind
    if kind == "play_tile" or kind in SELECTION_TYPES:
        key = (kind, tuple(decision.options["chains"]) if kind in SELECTION_TYPES else ())
        got = _REQUEST_WIRE.get(key)
        if got is None:
            got = _REQUEST_WIRE[key] = tuple(x for x in map(_wire, request(game, seat, decision)) if x is not None)
        return got
    if kind == "purchase":
        options = decision.options
        gp = _wire(d("GP", -1 if options["can_end"] else 0, options["cash"]))
        return (_PURCHASE_STATUS,) if gp is None else (_PURCHASE_STATUS, gp)
    return tuple(x for x in map(_wire, request(game, seat, decision)) if x is not None)


# -- events ----------------------------------------------------------------------

BONUS_WORDS = {
    "first": "the first majority bonus", "second": "the second majority bonus",
    "both": "both majority bonuses", "split_first": "a share of the tied first and second bonuses",
    "split_second": "a share of the tied second bonus",
}
END_WORDS = {
    "claimed": "a player ended it", "no_tiles": "no tile can be played any more",
    "no_playable_tiles": "nobody could play a tile",
}
NO_PLAYABLE_TILE = message_box("I", "No playable tile", "It is your turn and you have no playable tile.")
BAG_EMPTY = message_box("I", "Tile bag empty", "The last tile has been drawn from the tile bag.")
# NetAcquire's own text, "forpurchases" included: clients recognise these boxes by
# their exact text and show them in the game room (others go to the lobby pane).
LAST_ROUND = message_box("W", "Last round, game end forced",
                         "Nobody has a playable tile, everyone gets one more turn forpurchases.")
GAME_ENDED = message_box("I", "Game ended", "The game has ended, click OK to view final game results.")
PLAYER_LIMIT = message_box("E", "Player limit exceeded",
                           "The maximum number of players for this game has been reached, you may only kibitz.")
SPECTATING_FORCED = message_box("I", "Spectating game forced", "The game has already started, you cannot join as a player.")


def and_list(items: list[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def event_directives(event: dict, names: list[str], me: int | None) -> list[Directive]:
    """Game messages (and message boxes) for one engine event, as seen by seat ``me``.

    ``me`` is None for a spectator.  Private events (``tile_drawn``) say
    something only to their own seat.  Board, score sheet and rack changes are
    not here: :class:`ClientView` derives them from the engine's state.
    """
    kind = event.get("type")
    seat = event.get("seat")
    if kind in PRIVATE_EVENTS and seat != me:
        return []
    name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    if kind == "turn":
        return [gm(f"*** {name}'s turn.")]
    if kind == "position_tile":
        return [gm(f"{name} drew position tile {event['tile']}.")]
    if kind == "tile_played":
        return [gm(f"{name} played tile {event['tile']}.")]
    if kind == "no_playable_tile":
        out = [gm(f"{name} has no playable tile.")]
        return out + ([NO_PLAYABLE_TILE] if seat == me else [])
    if kind == "chain_founded":
        free = " and gets a free share" if event.get("free_share") else ""
        return [gm(f"{name} founded {event['chain']}{free}.")]
    if kind == "chain_grew":
        return []
    if kind == "merger":
        return [gm(f"{name}'s tile {event['tile']} merges {and_list(event['defunct'])} into {event['survivor']}.")]
    if kind in ("bonus", "final_bonus"):
        prefix = "Final bonus: " if kind == "final_bonus" else ""
        words = BONUS_WORDS.get(event.get("kind"), "a bonus")
        return [gm(f"{prefix}{name} receives ${event['amount']}, {words} for {event['chain']}.")]
    if kind == "disposed":
        return [gm(f"{name} sold {event['sold']}, traded {event['traded']} and kept {event['kept']} "
                   f"{event['chain']} shares.")]
    if kind == "merger_done":
        return [gm(f"{event['survivor']} now has {len(event['tiles'])} tiles.")]
    if kind == "purchased":
        bought = [f"{n} {chain}" for chain, n in event["shares"].items() if n]
        if not bought:
            return [gm(f"{name} bought no shares.")]
        return [gm(f"{name} bought {and_list(bought)} for ${event['cost']}.")]
    if kind == "tile_drawn":
        return [gm(f"> You drew tile {event['tile']}.")]
    if kind == "tile_dead":
        return [gm(f"{name} set aside tile {event['tile']}: it can never be played.")]
    if kind == "bag_empty":
        return [BAG_EMPTY]
    if kind == "last_round":
        return [LAST_ROUND]
    if kind == "game_over":
        if event.get("reason") == "claimed" and name != "?":     # seat: who ended it (see TableSnapshot.events)
            return [gm(f"The game is over: {name} ended it.")]
        return [gm(f"The game is over: {END_WORDS.get(event.get('reason'), event.get('reason'))}.")]
    return []


def winner_messages(result: dict, names: list[str]) -> list[Directive]:
    scores = result["scores"]
    return [gm(f"***** {names[seat]} has won with ${scores[seat]}!") for seat in result["winners"]]


_PURCHASE_STATUS = _wire(status_bar("Your turn - buy shares"))


# -- one client's view ---------------------------------------------------------

class ClientView:
    """What one client has been shown; ``sync_*`` return the directives that update it."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget everything (a new game window): the next sync sends it all."""
        self.sheet: dict[int, str] = {}
        self.rows: dict[int, int] = {}                    # name label -> BackColor
        self.board: dict[str, int] = {}                   # tile -> colour sent
        self.rack: list[tuple[str, int] | None] = [None] * RACK_SLOTS
        self.visible: list[bool | None] = [None] * RACK_SLOTS
        self.synced: TableSnapshot | None = None          # the snapshot sheet, rows and board agree with

    # score sheet
    def sync_captions(self, captions: dict[int, str]) -> list[Directive]:
        self.synced = None
        out = []
        for index in sorted(captions):
            value = captions[index]
            old = self.sheet.get(index)
            if old == value or (old is None and value == "" and index < AVAILABLE_BASE):
                continue        # a fresh sheet has no names: do not send blanks
            self.sheet[index] = value
            out.append(caption(index, value))
        return out

    def drops_names(self, captions: dict[int, str]) -> bool:
        """True if this client was sent a caption (a blank one too) for a name row that
        ``captions`` leaves empty: it counts that row as a player until ``SS;3``."""
        return any(captions.get(i, "") == "" and i in self.sheet
                   for i in range(NAME_BASE, NAME_BASE + MAX_SEATS))

    def refresh(self, game, indexes: list[int], snap: "TableSnapshot | None" = None) -> list[Directive]:
        """Send these captions again whatever was sent before (e.g. the market before GP).

        ``snap``, if given, must be a snapshot of ``game``'s current state.
        """
        if snap is not None and snap.game is game:
            sheet = snap.sheet
            if self.synced is not snap:
                self.synced = None
        else:
            sheet = score_sheet(game)
            self.synced = None
        out = []
        for index in indexes:
            self.sheet[index] = sheet[index]
            out.append(caption(index, sheet[index]))
        return out

    def refresh_wire(self, snap: "TableSnapshot", indexes: list[int]) -> tuple[list[bytes], int]:
        """``refresh(snap.game, indexes, snap)`` encoded with ``snap.wire``: (chunks, count),
        the chunks made once per snapshot (the market before every purchase request)."""
        if self.synced is not snap:
            self.synced = None
        sheet = snap.sheet
        mine = self.sheet
        for index in indexes:
            mine[index] = sheet[index]
        return snap.captions_wire(indexes)

    def sync_rows(self, game) -> list[Directive]:
        """Highlight the current player's name, the others white."""
        self.synced = None
        out = []
        current = None if game.is_over() else game.current
        for seat in range(len(game.players)):
            colour = HIGHLIGHT if seat == current else WHITE
            index = NAME_BASE + seat
            if self.rows.get(index) != colour:
                self.rows[index] = colour
                out.append(back_colour(index, colour))
        return out

    # board
    def sync_board(self, game) -> list[Directive]:
        """SB for every tile on the board whose state the client has not seen yet."""
        self.synced = None
        out = []
        for tile, chain in sorted(game.board.items(), key=lambda item: tile_id(item[0])):
            colour = PLAIN_TILE if chain is None else CHAIN_COLOURS[chain]
            if self.board.get(tile) != colour:
                self.board[tile] = colour
                out.append(d("SB", tile_id(tile), colour))
        return out

    # rack
    def sync_rack(self, game, seat: int) -> list[Directive]:
        """AT for new or recoloured tiles in ``seat``'s rack; hide empty slots."""
        return self._rack_changes(game.racks[seat], lambda tile: rack_colour(game, tile), game.board)

    def show_slot(self, game, seat: int, slot: int) -> list[Directive]:
        """Rack slot ``slot`` (1-6) of ``seat`` again, whatever was sent before.

        A client hides the button it clicked when it sends ``PT``; if that
        play is refused the button must come back (``AT`` shows it again).
        """
        if not 1 <= slot <= RACK_SLOTS:
            return []
        rack = game.racks[seat]
        tile = rack[slot - 1] if slot <= len(rack) else None
        i = slot - 1
        out: list[Directive] = []
        self._left_rack(i, tile, game.board, out)
        if tile is None:
            self.rack[i], self.visible[i] = None, False
            return out + [rack_visible(slot, False)]
        entry = (tile, rack_colour(game, tile))
        self.rack[i], self.visible[i] = entry, True
        return out + [d("AT", slot, tile_id(tile), entry[1]), rack_visible(slot, True)]

    def _left_rack(self, i: int, tile: str | None, board, out: list[Directive]) -> None:
        """Slot ``i`` now holds ``tile``: if the tile shown there left the rack without
        reaching the board (a dead tile set aside), empty its board cell."""
        old = self.rack[i]
        if old is not None and old[0] != tile and old[0] not in board:
            out.append(d("SB", tile_id(old[0]), EMPTY_CELL))

    def _rack_changes(self, rack, colour_of, board) -> list[Directive]:
        """AT / Visible (and SB for set-aside tiles) that bring this client's rack to ``rack``."""
        out = []
        for i in range(RACK_SLOTS):
            tile = rack[i] if i < len(rack) else None
            slot = i + 1
            if tile is None:
                self._left_rack(i, None, board, out)
                if self.visible[i] is not False:
                    out.append(rack_visible(slot, False))
                self.rack[i], self.visible[i] = None, False
                continue
            entry = (tile, colour_of(tile))
            if self.rack[i] != entry:
                self._left_rack(i, tile, board, out)
                out.append(d("AT", slot, tile_id(tile), entry[1]))
                self.rack[i] = entry
            if self.visible[i] is not True:
                out.append(rack_visible(slot, True))
                self.visible[i] = True
        return out

    def sync(self, game, seat: int | None) -> list[Directive]:
        """Board, then score sheet and row colours, then (for a player) the rack."""
        out = self.sync_board(game)
        out += self.sync_captions(score_sheet(game))
        out += self.sync_rows(game)
        if seat is not None:
            out += self.sync_rack(game, seat)
        return out

    def sync_shared(self, snap: TableSnapshot, seat: int | None) -> tuple[list[bytes], int]:
        """What :meth:`sync` would send for ``snap``'s game, encoded with ``snap.wire``: (chunks, count).

        A view last synced to ``snap.prev`` gets the snapshot's shared diff; any
        other view is compared with the snapshot in full.
        """
        out: list[bytes] = []
        self.sync_into(out, snap, seat)
        return out, len(out)

    def sync_into(self, out: list, snap: TableSnapshot, seat: int | None) -> None:
        """``sync_shared``, its chunks appended to ``out`` (one framed directive each): the
        protocol's write for an update is one list, not one per part joined up."""
        synced = self.synced
        if synced is snap:
            pass
        elif synced is not None and synced is snap.prev:
            out += snap.shared_diff()[0]
            # the diff's pairs are what this view now shows (dict.update: no loop in Python)
            self.board.update(snap._board_changes)
            self.sheet.update(snap._sheet_changes)
            self.rows.update(snap._row_changes)
        else:
            changed = []
            board = self.board
            for tid, tile, colour in snap.board_sorted():
                if board.get(tile) != colour:
                    board[tile] = colour
                    changed.append(d("SB", tid, colour))
            sheet = self.sheet
            for index, value in zip(snap.sheet_order, snap.sheet_values):
                old = sheet.get(index)
                if old == value or (old is None and value == "" and index < AVAILABLE_BASE):
                    continue
                sheet[index] = value
                changed.append(caption(index, value))
            rows = self.rows
            for index, colour in snap.rows:
                if rows.get(index) != colour:
                    rows[index] = colour
                    changed.append(back_colour(index, colour))
            out += snap.wire(changed)[0]
        self.synced = snap
        if seat is not None:
            if snap.fast:
                entries, visible, _ = snap.rack_entries(seat)
                if tuple(self.rack) != entries or tuple(self.visible) != visible:
                    self._rack_wire(entries, visible, snap.board, out)
                return
            changed = self._rack_changes(snap.racks[seat], snap.tile_colour, snap.board)
            if changed:
                out += snap.wire(changed)[0]

    def _rack_wire(self, entries: list, visible: list, board, out: list) -> None:
        """``_rack_changes`` for a snapshot's rack ``entries`` (see ``TableSnapshot.rack_entries``),
        framed as ``wire`` frames them, appended to ``out``."""
        rack, shown = self.rack, self.visible
        for i in range(RACK_SLOTS):
            entry, old = entries[i], rack[i]
            slot = i + 1
            if entry is None:
                if old is not None and old[0] not in board:
                    out.append(board_wire(tile_id(old[0]), EMPTY_CELL))
                if shown[i] is not False:
                    out.append(rack_visible_wire(slot, False))
                continue
            if old != entry:
                if old is not None and old[0] != entry[0] and old[0] not in board:
                    out.append(board_wire(tile_id(old[0]), EMPTY_CELL))
                out.append(rack_tile_wire(slot, tile_id(entry[0]), entry[1]))
            if shown[i] is not True:
                out.append(rack_visible_wire(slot, True))
        rack[:] = entries
        shown[:] = visible


# -- table-wide state, computed once per update and shared by every client ----

_SHEET_ORDER: dict[int, list[int]] = {}          # score sheet size -> its indexes in order
_ROWS: dict = {}                                  # (players, current seat) -> row colours
_CELL_COLOURS: dict = {}                          # engine chain names -> {cell code: colour}
_NAMES, _EMPTY = NAMES, EMPTY
_TILE_NAMES: dict = {None: None, **dict(enumerate(NAMES))}     # rack code -> tile name
_TILE_IDS: dict = {name: tile_id(name) for name in NAMES}
_ROW_WIRE: dict = {}                              # (label, colour) -> its BackColor directive, framed
_COLUMN_STARTS = range(0, len(NAMES), N_ROWS)       # Game.cells is column by column
_CHAIN_NUMBERS = range(len(CHAINS))
_NO_ENTRIES = MappingProxyType({})                # an empty cache nobody may write to
_NOT_LOOKED_UP = object()
_NOBODY = object()                                # a seat no event is about (TableSnapshot.events)


def _rows(players: int, current: int | None) -> tuple:
    """The name rows' colours, (label, colour) by seat: the current player's highlighted."""
    rows = _ROWS.get((players, current))
    if rows is None:
        rows = _ROWS[players, current] = tuple([(NAME_BASE + seat, HIGHLIGHT if seat == current else WHITE)
                                                for seat in range(players)])
    return rows


def _cell_colours(chains: tuple) -> dict:
    """``Game.cells`` code -> board colour, for an engine with these chains (in index order)."""
    colours = _CELL_COLOURS.get(chains)
    if colours is None:
        colours = {c: CHAIN_COLOURS[chain] for c, chain in enumerate(chains) if chain in CHAIN_COLOURS}
        colours[LONE] = PLAIN_TILE
        _CELL_COLOURS[chains] = colours
    return colours


def _figure_changes(figures: tuple, was: tuple) -> list[tuple[int, int]]:
    """``(position in score_sheet_values, number)`` of every caption whose number differs
    between two ``Game.sheet_figures`` of one game (prices in hundreds), in sheet order."""
    out: list = []
    add = out.append
    k = len(CHAINS)
    at = MAX_SEATS                                  # the names come first
    for part in (0, 1, 2):                          # available, sizes, prices
        new, old = figures[part], was[part]
        if new != old:
            for c in _CHAIN_NUMBERS:
                if new[c] != old[c]:
                    add((at + c, new[c] // 100 if part == 2 else new[c]))
        at += k
    held, old_held = figures[3], was[3]
    n = len(held)
    if held != old_held:
        for seat in range(n):
            new, old = held[seat], old_held[seat]
            if new != old:
                for c in _CHAIN_NUMBERS:            # by chain, then seat
                    if new[c] != old[c]:
                        add((at + c * n + seat, new[c]))
        out.sort()
    at += k * n
    new, old = figures[4], was[4]
    if new != old:
        for seat in range(n):
            if new[seat] != old[seat]:
                add((at + seat, new[seat]))
    return out


class TableSnapshot:
    """The table-wide part of the view for one engine state, shared by all its clients.

    Built once per table update (see :func:`snapshot`): the score sheet, row
    colours and board colours, the racks, and (when ``prev`` is a snapshot of
    the same game) the directives that turn ``prev``'s view into this one.  A
    :class:`ClientView` that was last synced to ``prev`` gets exactly those
    directives (they are what a per-client comparison would find); any other
    view is compared in full with this snapshot's state.  ``wire`` encodes a
    list of directives once (``encoder(directive) -> bytes``, None to skip).
    Made from the engine's compact state (``Game.cells``, ``rack_codes``,
    ``sheet_figures``): what equals the previous snapshot's is taken over, and
    only what changed is turned into tile names, colours and captions.
    """

    def __init__(self, game, seq: object = None, detail: dict | None = None, names: list[str] | None = None,
                 prev: "TableSnapshot | None" = None, encoder=None) -> None:
        self.game = game
        self.seq = seq
        self.detail = detail
        self.names = list(game.players) if names is None else names
        self.encoder = encoder
        self.fast = encoder is _wire         # board, captions and rack framed directly (encoded.py)
        if prev is not None:
            prev.prev = None                   # keep one step of history only
            if prev.game is not game:
                prev = None
        self.prev = prev
        # The engine's cells, racks and score sheet figures as tuples of ints, compared
        # with the previous update's at C speed: only what changed is turned into names,
        # colours and captions.  A snapshot is made per update and freed one update later,
        # so every object in it costs its allocation, its free and the collector's
        # attention in between (``sheet`` and the caches are made when asked for).
        self._cells = cells = game.cells()
        self._rack_codes = rack_codes = game.rack_codes()
        figures = game.sheet_figures()
        n = len(game.players)
        self.sheet_order = order = sheet_order(n)
        current = None if game.is_over() else game.current
        self.rows = rows = _rows(n, current)
        if prev is None:
            self._cell_colours = _cell_colours(tuple(game.rules.chains))
            colours = self._cell_colours
            self.board = {_NAMES[i]: colours[v] for i, v in enumerate(cells) if v != _EMPTY}
            self.racks = tuple([tuple(map(_TILE_NAMES.__getitem__, rack)) for rack in rack_codes])
            self.sheet_values = score_sheet_values(game)
            # the figures stand for the sheet's captions only in the sheet's chain order
            self._figures = figures if tuple(game.rules.chains) == CHAINS else None
            return
        self._cell_colours = prev._cell_colours
        if cells == prev._cells:
            # half the updates are purchases, which place no tile: the board's colours (and
            # its sorted list) are the previous update's, and so are the rack tiles' colours
            # (a rack tile's engine tile_status depends on the board alone)
            self.board = prev.board
            self._board_sorted = prev._board_sorted
            self._board_changes = ()
            self._colours = prev._colours
            self._same_board = True
        else:
            self.board = board = prev.board.copy()
            colours = self._cell_colours
            changes = []                        # in tile order (shared_diff sends them so)
            # by column first: a turn changes a few cells, mostly in one or two columns
            for at, new, old in zip(_COLUMN_STARTS, zip(*[iter(cells)] * N_ROWS),
                                    zip(*[iter(prev._cells)] * N_ROWS)):
                if new == old:
                    continue
                for i in _compress(range(at, at + N_ROWS), map(_ne, new, old)):
                    tile, v = _NAMES[i], cells[i]
                    if v == _EMPTY:
                        board.pop(tile, None)
                    else:
                        colour = colours[v]
                        if board.get(tile) != colour:
                            board[tile] = colour
                            changes.append((tile, colour))
            self._board_changes = tuple(changes)
        self._kept = prev._entries
        prack = prev._rack_codes
        if rack_codes == prack:
            self.racks = prev.racks
        else:
            pracks, name = prev.racks, _TILE_NAMES.__getitem__
            self.racks = tuple([old if codes == was else tuple(map(name, codes))
                                for codes, was, old in zip(rack_codes, prack, pracks)])
        pfigures = prev._figures
        if pfigures is not None:
            self._figures = figures
            if figures == pfigures:
                self.sheet_values = prev.sheet_values
                self._sheet_changes = ()
            else:
                self.sheet_values = values = list(prev.sheet_values)
                changes = []
                for j, f in _figure_changes(figures, pfigures):
                    value = _NUMBERS[f] if 0 <= f < 1000 else str(f)
                    if values[j] != value:
                        values[j] = value
                        changes.append((order[j], value))
                self._sheet_changes = tuple(changes)
        else:
            self._figures = None
            self.sheet_values = values = score_sheet_values(game)
            if prev.sheet_order is order:
                self._sheet_changes = tuple([(i, v) for i, v, pv in zip(order, values, prev.sheet_values) if pv != v])
            else:
                psget = prev.sheet.get
                self._sheet_changes = tuple([(i, v) for i, v in zip(order, values) if psget(i) != v])
        if rows is prev.rows:
            self._row_changes = ()
        else:
            prow = dict(prev.rows)
            self._row_changes = tuple([(i, c) for i, c in rows if prow.get(i) != c])
        prev._release()

    # what a snapshot has until it is asked for or compared (class defaults: no per-update objects)
    _sheet: "dict[int, str] | None" = None
    _board_sorted: "tuple | None" = None
    _board_changes: tuple = ()
    _sheet_changes: tuple = ()
    _row_changes: tuple = ()
    _colours: dict = _NO_ENTRIES
    _kept: dict = _NO_ENTRIES        # the previous update's rack entries
    _same_board = False              # the previous update's board is this one's
    _entries: dict = _NO_ENTRIES
    _events: "tuple | None" = None
    _events_all: "tuple[tuple[bytes, ...], int] | None" = None     # events(me) for a me not in _event_seats
    _event_seats: tuple = ()         # the seats of the events whose messages depend on the seat
    _announce: dict = _NO_ENTRIES
    _decision: object = _NOT_LOOKED_UP
    diff_wire: "tuple[list[bytes], int] | None" = None

    @property
    def sheet(self) -> dict[int, str]:
        """Every score sheet caption (``score_sheet(game)`` at this snapshot), by label index."""
        if self._sheet is None:
            self._sheet = dict(zip(self.sheet_order, self.sheet_values))
        return self._sheet

    def _release(self) -> None:
        """Drop what only the newest snapshot serves (its clients are all served by now; a
        newer one is built): what stays is what the next update compares with.  Freed one
        update early, the caches do not outlive a young collection into an older generation."""
        self.detail = self._events = self._events_all = self.diff_wire = self._board_sorted = None
        self._event_seats = ()
        self._announce = self._entries = self._kept = _NO_ENTRIES
        self._board_changes = self._sheet_changes = self._row_changes = ()

    def wire(self, directives) -> tuple[list[bytes], int]:
        out = []
        encoder = self.encoder
        for directive in directives:
            data = encoder(directive)
            if data is not None:
                out.append(data)
        return out, len(out)

    def board_sorted(self) -> list:
        if self._board_sorted is None:
            self._board_sorted = tuple(sorted((tile_id(t), t, c) for t, c in self.board.items()))
        return self._board_sorted

    def rack_entries(self, seat: int) -> tuple[tuple, tuple[bool, ...], tuple]:
        """``seat``'s rack as a synced ``ClientView`` holds it: ``(tile, colour)`` or None per
        slot, whether each slot is shown, and what they were made from (the rack, the
        engine's tile names, and its ``rack_statuses``).  The previous update's for the same
        rack and board (a rack tile's colour depends on the board alone) or for the same
        rack and statuses; else the colours from one engine call."""
        got = self._entries.get(seat)
        if got is None:
            rack = self.racks[seat]
            got = self._kept.get(seat)
            if got is None or got[2][0] != rack or not self._same_board:
                statuses = getattr(self.game, "rack_statuses", None)
                if statuses is not None:
                    statuses = statuses(seat)
                    if got is None or got[2] != (rack, statuses):
                        colours = RACK_COLOURS
                        entries = [None if t is None else (t, colours.get(status, PLAIN_TILE))
                                   for t, status in zip(rack[:RACK_SLOTS], statuses)]
                        got = None
                else:
                    colour = self.tile_colour
                    entries = [None if t is None else (t, colour(t)) for t in rack[:RACK_SLOTS]]
                    got = None
                if got is None:
                    entries += [None] * (RACK_SLOTS - len(entries))
                    got = (tuple(entries), tuple([e is not None for e in entries]), (rack, statuses))
            if self._entries is _NO_ENTRIES:
                self._entries = {}
            self._entries[seat] = got
        return got

    def captions_wire(self, indexes: list[int]) -> tuple[list[bytes], int]:
        """Score sheet captions ``indexes`` as they are now, encoded (made once per snapshot)."""
        key = ("captions", tuple(indexes))
        got = self._announce.get(key)
        if got is None:
            sheet = self.sheet
            if self.fast:
                out = [data for data in (caption_wire(i, sheet[i]) for i in indexes) if data is not None]
                got = (tuple(out), len(out))
            else:
                out = self.wire([caption(i, sheet[i]) for i in indexes])[0]
                got = (tuple(out), len(out))
            if self._announce is _NO_ENTRIES:
                self._announce = {}
            self._announce[key] = got
        return got

    def tile_colour(self, tile: str) -> int:
        colour = self._colours.get(tile)
        if colour is None:
            colour = rack_colour(self.game, tile)
            if self._colours is _NO_ENTRIES:
                self._colours = {}
            self._colours[tile] = colour
        return colour

    def events(self, me: int | None) -> tuple[list[bytes], int]:
        """The game messages of this update's events as seen by seat ``me``, encoded.

        Only the seats of the events that depend on the seat (``_event_seats``: a drawn
        tile, "no playable tile") get their own; everyone else the same chunks, made once."""
        if self._events is None:
            parts: list = []                    # bytes shared by everyone, or an event that depends on ``me``
            seats = []
            actor = (self.detail or {}).get("seat")         # the seat whose action brought these events
            for event in (self.detail or {}).get("events", ()):
                kind = event.get("type")
                if kind == "game_over" and "seat" not in event and actor is not None:
                    event = {**event, "seat": actor}        # a claimed end was claimed by the actor
                if kind in PRIVATE_EVENTS or kind == "no_playable_tile":
                    parts.append(event)
                    seats.append(event.get("seat"))
                else:
                    parts.append(tuple(self.wire(event_directives(event, self.names, None))[0]))
            self._events = tuple(parts)
            self._event_seats = tuple(seats)
        if me in self._event_seats:
            return self._events_for(me)
        got = self._events_all
        if got is None:
            # what a seat none of these events concerns sees (event_directives compares the
            # event's seat with ``me`` only): one seat that is nobody's stands for them all
            out = self._events_for(_NOBODY)[0]
            self._events_all = got = (tuple(out), len(out))
        return got

    def _events_for(self, me) -> tuple[list[bytes], int]:
        out: list[bytes] = []
        for part in self._events:
            if isinstance(part, dict):
                out += self.wire(event_directives(part, self.names, me))[0]
            else:
                out += part
        return out, len(out)

    def pending(self):
        """``game.pending()``, looked up once."""
        if self._decision is _NOT_LOOKED_UP:
            self._decision = self.game.pending()
        return self._decision

    def announce(self, decider: bool) -> tuple[list[bytes], int]:
        """``*Waiting for ...`` to everyone, and the status bar to everyone but the decider."""
        cached = self._announce.get(decider)
        if cached is None:
            game = self.game
            decision = self.pending()
            out = []
            if decision is not None:
                who, words = game.players[decision.seat], waiting_words(decision)
                if self.fast:               # framed directly: the same bytes as ``wire`` makes
                    data = message_wire("GM", f"*Waiting for {who} to {words}.")
                    if data is None:
                        data = _wire(gm(f"*Waiting for {who} to {words}."))    # too long: logged, None
                    if data is not None:
                        out.append(data)
                    if not decider:
                        data = status_bar_wire(f"Waiting for {who} to {words}")
                        if data is not None:
                            out.append(data)
                else:
                    out.append(gm(f"*Waiting for {who} to {words}."))
                    if not decider:
                        out.append(status_bar(f"Waiting for {who} to {words}"))
                    out = self.wire(out)[0]
            cached = (tuple(out), len(out))
            if self._announce is _NO_ENTRIES:
                self._announce = {}
            self._announce[decider] = cached
        return cached

    def shared_diff(self) -> tuple[list[bytes], int]:
        """The directives that turn ``prev``'s view into this one, encoded (made once)."""
        if self.diff_wire is None:
            ids = _TILE_IDS                     # the board changes are in tile order
            if self.fast:
                out = [board_wire(ids[t], c) for t, c in self._board_changes]
                for i, v in self._sheet_changes:
                    data = caption_wire(i, v)
                    if data is not None:
                        out.append(data)
                for row in self._row_changes:
                    data = _ROW_WIRE.get(row)
                    if data is None:
                        data = _ROW_WIRE[row] = _wire(back_colour(*row))     # plain numbers: never None
                    out.append(data)
                self.diff_wire = (tuple(out), len(out))
            else:
                diff = [Directive("SB", (str(ids[t]), str(c))) for t, c in self._board_changes]
                diff += [caption(i, v) for i, v in self._sheet_changes]
                diff += [back_colour(i, c) for i, c in self._row_changes]
                out = self.wire(diff)[0]
                self.diff_wire = (tuple(out), len(out))
        return self.diff_wire


#: the key of the last snapshot in ``Table.cache``
SNAPSHOT_KEY = "netacquire.snapshot"


def snapshot(table, detail: dict | None = None, encoder=None) -> TableSnapshot:
    """The table's current :class:`TableSnapshot`, built if the engine moved on (or for a new ``detail``).

    Cached in the table's ``cache`` (derived data, gone with the table); a table's
    engine changes only with ``table.seq`` (every action) or a new engine object.
    """
    snap = table.cache.get(SNAPSHOT_KEY)
    game = table.engine
    if (snap is None or snap.game is not game or snap.seq != table.seq
            or (detail is not None and snap.detail is not detail)):
        snap = TableSnapshot(game, table.seq, detail, table.players(), snap, encoder)
        table.cache[SNAPSHOT_KEY] = snap
    return snap
