"""A PIMP client written from the protocol text (its own byte layouts, not the server's codec).

``WireClient`` parses the frames it receives, keeps what a simple player needs
(its number, cash, owners) and answers like a plain player: rolls, buys when it
has the cash, passes in auctions, claims rent and salary, pays its debts or
goes bankrupt.  ``outbox`` holds the frames it wants to send.
"""
from __future__ import annotations

import struct

# property id -> square (pimp-notes.md, board 0)
PROPERTY_SQUARES = [1, 3, 5, 6, 8, 9, 11, 12, 13, 14, 15, 16, 18, 19, 21, 23, 24, 25, 26, 27, 28, 29,
                    31, 32, 34, 35, 37, 39]
SQUARE_PROPERTY = {s: p for p, s in enumerate(PROPERTY_SQUARES)}

# the server messages this client reads: code -> (name, layout); B byte, ? bool, I uint32, S string
LAYOUTS = {
    0x01: ("HANDSHAKE_ACKNOWLEDGE", "I"), 0x03: ("WELCOME_DETAILS", "BI"), 0x04: ("WELCOME_PLAYER", "BBS"),
    0x05: ("WELCOME_OBSERVER", "BBS"), 0x06: ("QUERY_JOIN_PLAY", "IS"), 0x07: ("QUERY_JOIN_OBSERVE", "IS"),
    0x0B: ("WELCOME_BACK", "BBS?"), 0x0F: ("JOIN_REFUSED", "IS"), 0x10: ("JOIN_PENDING", ""),
    0x13: ("STATE_PLAYER", "BBSBIB"), 0x15: ("STATE_PROPERTY", "BB?BB"), 0x1F: ("STATE_POT", "I"),
    0x20: ("START_OF_TURN", "B?"), 0x22: ("DICE_ROLLED", "BBB"), 0x27: ("PLAYER_PASSING_BY_SQUARE", "BB"),
    0x28: ("PLAYER_LANDING_ON_SQUARE", "BB"), 0x2F: ("ROLL_AGAIN", "B"), 0x30: ("PROPERTY_SALE", "BBI"),
    0x33: ("PROPERTY_AUCTION", "B"), 0x35: ("PROPERTY_AUCTION_BID", "BI"), 0x38: ("PROPERTY_AUCTION_WON", "B"),
    0x39: ("PROPERTY_AUCTION_VOID", ""), 0x40: ("GOT_CARD", "BBB"), 0x45: ("TAX_SELECT_OPTION", "BB"),
    0x4A: ("JAIL_PAY_OR_ROLL", "BB?"), 0x4D: ("JAIL_FREE", "B"), 0x51: ("TRANSACTION_TRADE_REQUESTED", "IB"),
    0x52: ("TRANSACTION_RENT_REQUESTED", "IBBBI"), 0x53: ("TRANSACTION_CARD_REQUESTED", "IBBBI"),
    0x54: ("TRANSACTION_SQUARE_REQUESTED", "IBI"), 0x55: ("TRANSACTION_BANK_REQUESTED", "II"),
    0x56: ("TRANSACTION_JAIL_REQUESTED", "II"), 0x72: ("TRANSACTION_OTHER_FINISHED", "I"),
    0x71: ("TRANSACTION_FINISHED", "I"),
    0x78: ("TRANSACTION_OTHER_AGREED", "I"), 0x79: ("TRANSACTION_FINALISED", "I"),
    0x7F: ("TRANSACTION_CANCELLED", "I"), 0xC0: ("DELTA_CASH", "BBI"), 0xC1: ("DELTA_PROPERTY", "BBB"),
    0xC5: ("DELTA_PROPERTY_MORTGAGED", "B"), 0xDB: ("PLAYER_BECAME_OBSERVER_BANKRUPT", "B"),
    0xDF: ("PLAYER_WON", "B"), 0xE4: ("ERROR_TRANSACTION_TOO_EXPENSIVE", "II"),
    0xEA: ("ERROR_TRANSACTION_NOT_BANKRUPT", "II"), 0xF3: ("ERROR_NOT_WELCOME", ""),
    0xF4: ("ERROR_WRONG_PASSWORD", ""), 0xFC: ("ERROR_INVALID_PAYLOAD", "B"), 0xFD: ("ERROR_UNPARSEABLE", ""),
    0xFE: ("ERROR_UNEXPECTED_MESSAGE", "B"), 0xF0: ("ERROR_UNKNOWN_PROTOCOL", ""),
    0xD0: ("PING", "I"), 0xD2: ("LINK_DEAD", "B"), 0xEC: ("ERROR_CANNOT_TRANSFER_DURING_TRANSACTION", "I"),
    0xDA: ("PLAYER_BECAME_OBSERVER_TRANSFER", "B"),
    0x12: ("STATE_BOARD", "B"), 0x14: ("STATE_OBSERVER", "BBS"), 0x16: ("STATE_CARD", "BB"),
    0x23: ("THREE_DOUBLES", "B"), 0x24: ("DICE_MOVED_PLAYER", "BBB"), 0x25: ("CARD_MOVED_PLAYER", "BBB"),
    0x26: ("SQUARE_MOVED_PLAYER", "BBB"), 0x29: ("GOING_TO_JAIL", "BB"), 0x2A: ("WAITING_FOR_TRANSACTION", "BI"),
    0x2E: ("RENT_COLLECTION_MORATORIUM", ""), 0x37: ("PROPERTY_AUCTION_NO_BID", "B"),
    0x61: ("TRANSACTION_CASH_SET", "II"), 0x62: ("TRANSACTION_OTHER_CASH_SET", "II"),
    0x65: ("TRANSACTION_PROPERTY_ADDED", "IB"), 0x66: ("TRANSACTION_PROPERTY_REMOVED", "IB"),
    0x67: ("TRANSACTION_OTHER_PROPERTY_ADDED", "IB"), 0x68: ("TRANSACTION_OTHER_PROPERTY_REMOVED", "IB"),
    0x6B: ("TRANSACTION_CARD_ADDED", "IB"), 0x6C: ("TRANSACTION_CARD_REMOVED", "IB"),
    0x6D: ("TRANSACTION_OTHER_CARD_ADDED", "IB"), 0x6E: ("TRANSACTION_OTHER_CARD_REMOVED", "IB"),
    0x74: ("TRANSACTION_REOPENED", "I"), 0x75: ("TRANSACTION_OTHER_REOPENED", "I"),
    0x77: ("TRANSACTION_AGREED", "I"), 0x7D: ("TRANSACTION_UNUSUAL", "I"),
    0x80: ("SQUARE_GIVES_CASH", "BBI"), 0x81: ("SQUARE_TAKES_CASH", "BBI"), 0x82: ("SQUARE_GIVES_CARD", "BBB"),
    0x83: ("SQUARE_TAKES_CARD", "BBB"), 0x84: ("CONSTRUCTION_TAKES_CASH", "BI"),
    0x85: ("DESTRUCTION_GIVES_CASH", "BI"), 0x86: ("PLAYER_CLAIMED_RENT", "BBBI"),
    0x87: ("PLAYER_CLAIMED_GO", "BBI"), 0xC2: ("DELTA_CARD", "BBB"), 0xC3: ("DELTA_HOUSES_PURCHASED", "BBBB"),
    0xC4: ("DELTA_BANK", "BB"), 0xC6: ("DELTA_PROPERTY_UNMORTGAGED", "B"), 0xCF: ("DELTA_POT", "I"),
    0xE0: ("ERROR_INVALID_RENT_CLAIM", ""), 0xE1: ("ERROR_INVALID_GO_CLAIM", ""),
    0xE2: ("ERROR_PROPERTY_TOO_EXPENSIVE", "BI"), 0xE3: ("ERROR_MORTGAGE_TOO_EXPENSIVE", "BI"),
    0xE5: ("ERROR_TRANSACTION_PROPERTY_NOT_OWNED", "IB"), 0xE6: ("ERROR_TRANSACTION_CARD_NOT_OWNED", "IB"),
    0xE7: ("ERROR_TRANSACTION_NOT_SUITABLE", "II"), 0xE8: ("ERROR_TRANSACTION_PROPERTY_HAS_HOUSE", "IB"),
    0xE9: ("ERROR_TRANSACTION_WOULD_REDUCE_NET_WORTH", "II"), 0xED: ("MONEY_BEING_HELD_IN_ESCROW", "BII"),
    0xEE: ("ERROR_PROPERTY_WOULD_REDUCE_NET_WORTH", "BI"), 0x91: ("ERROR_HOUSES_NOT_OWNED", "B"),
    0x92: ("ERROR_HOUSES_NEED_MONOPOLY", "B"), 0x93: ("ERROR_HOUSES_MORTGAGED", "B"),
    0x94: ("ERROR_HOUSES_NOT_COLOUR_GROUP", "B"), 0x95: ("ERROR_HOUSES_NOT_YOUR_TURN", ""),
    0x96: ("ERROR_HOUSES_TOO_EXPENSIVE", "I"), 0x97: ("ERROR_HOUSES_NO_HOUSE_PIECES_LEFT", "BB"),
    0x98: ("ERROR_HOUSES_CANNOT_BUILD_THAT_NUMBER", "B"), 0x99: ("ERROR_HOUSES_UNBALANCED", "B"),
    0x9A: ("ERROR_HOUSES_WOULD_REDUCE_NET_WORTH", "I"),
}

CODES = {"HANDSHAKE": 0x00, "JOIN": 0x02, "ACCEPT_JOIN": 0x08, "REFUSE_JOIN": 0x09, "REJOIN": 0x0A,
         "THROW_DICE": 0x21, "CLAIM_RENT": 0x2B, "CLAIM_GO": 0x2C, "BUY_PROPERTY": 0x31,
         "AUCTION_PROPERTY": 0x32, "BID": 0x34, "NO_BID": 0x36, "MORTGAGE_PROPERTY": 0x3B,
         "TAX_PAY_FLAT_FEE": 0x47, "JAIL_ROLL_DICE": 0x4C, "TRANSACTION_SET_CASH": 0x60,
         "TRANSACTION_FINISH": 0x70, "TRANSACTION_AGREE": 0x76, "BANKRUPT_TRANSACTION": 0x7A,
         "REQUEST_STATE": 0x11, "PONG": 0xD1, "TRANSFER": 0xD4, "TRANSACTION_REQUEST_TRADE": 0x50,
         "UNMORTGAGE_PROPERTY": 0x3C, "JAIL_PAY_BAIL": 0x4B, "TRANSACTION_ADD_PROPERTY": 0x63,
         "TRANSACTION_ADD_CARD": 0x69, "PURCHASE_HOUSES": 0x90, "TRANSACTION_CANCEL": 0x7E}


def frame(name: str, payload: bytes = b"") -> bytes:
    return bytes((CODES[name], len(payload))) + payload


def u32(v: int) -> bytes:
    return struct.pack(">I", v)


def parse(layout: str, payload: bytes) -> tuple:
    return _fields(layout, payload)[0]


def parse_exact(layout: str, payload: bytes, name: str) -> tuple:
    """parse(), failing unless the payload is exactly as long as the layout's fields."""
    out, end = _fields(layout, payload)
    assert end == len(payload), f"{name}: payload {payload.hex()} is not exactly {layout}"
    return out


def _fields(layout: str, payload: bytes) -> tuple[tuple, int]:
    """The fields of ``layout`` read from ``payload``, and where they end."""
    out, pos = [], 0
    for f in layout:
        if f == "I":
            out.append(struct.unpack_from(">I", payload, pos)[0])
            pos += 4
        elif f == "S":
            n = payload[pos]
            out.append(payload[pos + 1:pos + 1 + n].decode("utf-8"))
            pos += 1 + n
        else:
            out.append(payload[pos] & 1 == 1 if f == "?" else payload[pos])
            pos += 1
    return tuple(out), pos


class WireClient:
    def __init__(self, name: str, piece: int = 0, play: bool = True, vote: bool = True):
        self.name, self.piece, self.play, self.vote = name, piece, play, vote
        self.buf = b""
        self.outbox: list[bytes] = [frame("HANDSHAKE", b"\x01")]
        self.received: list[tuple] = []
        self.me = self.password = 0
        self.cash: dict[int, int] = {}
        self.owner: dict[int, int] = {}
        self.debts: dict[int, int] = {}          # tid -> amount I owe
        self.credits: set[int] = set()           # tids where I am owed
        self.winner = 0
        self.bid_once = False                    # bid 10 in the next auction (to see one won)
        self.quit = False                        # give everything to the bank on the next turn
        self.trades: set[int] = set()            # open trades (this client agrees to any)
        self.finished: set[int] = set()          # trades where I have finished setting up
        self.other_finished: set[int] = set()    # ... and where the other side has
        self.trading_with = 0                    # set to a player number to offer them $1
        self.level: dict[int, int] = {}          # property -> houses, 5 for a hotel
        self.bankrupt_later: set[int] = set()    # debts whose bankruptcy waits for an older transaction
        self.mortgaged: set[int] = set()
        self.agree_later: set[int] = set()       # debts whose agreement waits for an older one
        self.auction_open = False

    def send(self, name: str, payload: bytes = b"") -> None:
        self.outbox.append(frame(name, payload))

    def take(self) -> bytes:
        data, self.outbox = b"".join(self.outbox), []
        return data

    def feed(self, data: bytes) -> None:
        self.buf += data
        while len(self.buf) >= 2 and len(self.buf) >= 2 + self.buf[1]:
            code, n = self.buf[0], self.buf[1]
            payload, self.buf = self.buf[2:2 + n], self.buf[2 + n:]
            name, *args = self.decode(code, payload)
            self.received.append((name, *args))
            getattr(self, "on_" + name, lambda *a: None)(*args)

    def decode(self, code: int, payload: bytes) -> tuple:
        """(name, *fields) of one frame; an unknown code gives its hex and the raw payload."""
        if code not in LAYOUTS:
            return (f"0x{code:02X}", payload)
        name, layout = LAYOUTS[code]
        return (name, *parse(layout, payload))

    def names(self) -> list[str]:
        return [m[0] for m in self.received]

    # -- joining -----------------------------------------------------------
    def on_HANDSHAKE_ACKNOWLEDGE(self, game):
        if not self.me:
            raw = self.name.encode()
            self.send("JOIN", bytes((self.piece, int(self.play), len(raw))) + raw)

    def on_PING(self, number):
        self.send("PONG", u32(number))

    def on_WELCOME_DETAILS(self, me, password):
        self.me, self.password = me, password

    def on_WELCOME_BACK(self, me, piece, name, playing):
        self.me = me

    def on_QUERY_JOIN_PLAY(self, cid, name):
        self.send("ACCEPT_JOIN" if self.vote else "REFUSE_JOIN", u32(cid))

    on_QUERY_JOIN_OBSERVE = on_QUERY_JOIN_PLAY

    # -- state -------------------------------------------------------------
    def on_STATE_PLAYER(self, pid, piece, name, square, cash, jail):
        self.cash[pid] = cash

    def on_STATE_PROPERTY(self, prop, owner, mortgaged, houses, hotels):
        self.owner[prop] = owner
        self.level[prop] = 5 if hotels else houses
        (self.mortgaged.add if mortgaged else self.mortgaged.discard)(prop)

    def on_DELTA_CASH(self, src, dst, amount):
        if src:
            self.cash[src] = self.cash.get(src, 0) - amount
        if dst:
            self.cash[dst] = self.cash.get(dst, 0) + amount

    def on_DELTA_PROPERTY(self, src, dst, prop):
        self.owner[prop] = dst

    def on_PLAYER_WON(self, pid):
        self.winner = pid

    # -- playing -----------------------------------------------------------
    def on_START_OF_TURN(self, pid, throw):
        if pid == self.me and self.quit:
            self.send("TRANSFER", b"\x00")
        elif pid == self.me and throw:
            self.send("THROW_DICE")

    def on_ERROR_CANNOT_TRANSFER_DURING_TRANSACTION(self, tid):
        self.send("THROW_DICE")          # a claim or deal is pending: play on, quit next turn

    def on_ROLL_AGAIN(self, pid):
        if pid == self.me:
            self.send("THROW_DICE")

    def on_JAIL_PAY_OR_ROLL(self, pid, left, can_build):
        if pid == self.me:
            self.send("JAIL_ROLL_DICE")

    def on_PROPERTY_SALE(self, pid, prop, price):
        if pid == self.me:
            self.send("BUY_PROPERTY" if self.cash.get(self.me, 0) >= price + 300 else "AUCTION_PROPERTY")

    def on_ERROR_PROPERTY_TOO_EXPENSIVE(self, prop, price):
        # my cash went meanwhile: out of the bidding, or the sale goes to auction
        self.send("NO_BID" if self.auction_open else "AUCTION_PROPERTY")

    on_ERROR_PROPERTY_WOULD_REDUCE_NET_WORTH = on_ERROR_PROPERTY_TOO_EXPENSIVE

    def on_PROPERTY_AUCTION_WON(self, pid):
        self.auction_open = False

    def on_PROPERTY_AUCTION_VOID(self):
        self.auction_open = False

    def on_PROPERTY_AUCTION(self, prop):
        self.auction_open = True
        if self.bid_once and self.cash.get(self.me, 0) > 10:
            self.bid_once = False
            self.send("BID", u32(10))
        else:
            self.send("NO_BID")

    def on_PROPERTY_AUCTION_BID(self, leader, amount):
        if leader != self.me:
            self.send("NO_BID")

    def on_TAX_SELECT_OPTION(self, pid, square):
        if pid == self.me:
            self.send("TAX_PAY_FLAT_FEE")

    def on_PLAYER_PASSING_BY_SQUARE(self, pid, square):
        if pid == self.me and square == 0:
            self.send("CLAIM_GO", b"\x00")

    def on_PLAYER_LANDING_ON_SQUARE(self, pid, square):
        if pid == self.me and square == 0:
            self.send("CLAIM_GO", b"\x00")
        prop = SQUARE_PROPERTY.get(square)
        if pid != self.me and prop is not None and self.owner.get(prop) == self.me:
            self.send("CLAIM_RENT", bytes((pid, prop)))

    # -- debts -------------------------------------------------------------
    def _debt(self, tid, creditor, amount):
        if creditor == self.me:
            self.credits.add(tid)
        else:
            self.debts[tid] = amount

    def on_TRANSACTION_RENT_REQUESTED(self, tid, other, prop, creditor, amount):
        self._debt(tid, creditor, amount)

    on_TRANSACTION_CARD_REQUESTED = on_TRANSACTION_RENT_REQUESTED

    def on_TRANSACTION_SQUARE_REQUESTED(self, tid, square, amount):
        self.debts[tid] = amount

    def on_TRANSACTION_BANK_REQUESTED(self, tid, amount):
        self.debts[tid] = amount

    on_TRANSACTION_JAIL_REQUESTED = on_TRANSACTION_BANK_REQUESTED

    def on_TRANSACTION_OTHER_AGREED(self, tid):
        if tid in self.debts:
            self.send("TRANSACTION_AGREE", u32(tid))

    def on_TRANSACTION_OTHER_FINISHED(self, tid):
        self.other_finished.add(tid)
        if tid in self.credits or (tid in self.trades and tid in self.finished):
            self.send("TRANSACTION_AGREE", u32(tid))

    def on_TRANSACTION_FINISHED(self, tid):
        self.finished.add(tid)
        if tid in self.trades and tid in self.other_finished:
            self.send("TRANSACTION_AGREE", u32(tid))

    # -- trades: offer $1 to ``trading_with``, accept any offer ----------------
    def offer_trade(self, other: int) -> None:
        self.trading_with = other
        self.send("TRANSACTION_REQUEST_TRADE", bytes((other,)))

    def on_TRANSACTION_TRADE_REQUESTED(self, tid, other):
        self.trades.add(tid)
        if other == self.trading_with:
            self.trading_with = 0
            self.send("TRANSACTION_SET_CASH", u32(tid) + u32(1))
        self.send("TRANSACTION_FINISH", u32(tid))

    def on_DELTA_HOUSES_PURCHASED(self, pid, prop, houses, hotels):
        self.level[prop] = 5 if hotels else houses

    def on_ERROR_TRANSACTION_TOO_EXPENSIVE(self, tid, amount):
        if tid not in self.debts:
            return
        # raise what can be raised (buildings first: a built group cannot be mortgaged), then
        # claim bankruptcy; the server answers "not bankrupt" when the debt can now be paid
        mine = [p for p, owner in sorted(self.owner.items()) if owner == self.me]
        built = [(p, self.level[p]) for p in mine if self.level.get(p)]
        if built:
            self.send("PURCHASE_HOUSES", bytes([len(built)]) + b"".join(
                bytes((p, 256 - 4, 255)) if lv == 5 else bytes((p, 256 - lv, 0)) for p, lv in built))
        for prop in mine:
            if prop not in self.mortgaged:
                self.send("MORTGAGE_PROPERTY", bytes((prop,)))
        self.send("BANKRUPT_TRANSACTION", u32(tid))

    def on_TRANSACTION_REOPENED(self, tid):
        if tid in self.debts:           # my cash went below my offer: raise money and pay again
            self.on_ERROR_TRANSACTION_TOO_EXPENSIVE(tid, self.debts[tid])

    def on_DELTA_PROPERTY_MORTGAGED(self, prop):
        self.mortgaged.add(prop)

    def on_DELTA_PROPERTY_UNMORTGAGED(self, prop):
        self.mortgaged.discard(prop)

    def on_ERROR_TRANSACTION_NOT_BANKRUPT(self, tid, older):
        if older == 0 and tid in self.debts:
            self.send("TRANSACTION_SET_CASH", u32(tid) + u32(self.debts[tid]))
            self.send("TRANSACTION_FINISH", u32(tid))
            self.send("TRANSACTION_AGREE", u32(tid))
        elif tid in self.debts:
            self.bankrupt_later.add(tid)      # asked again once an older transaction is over
            if older in self.debts:           # my older debt first: pay it, or go bankrupt on it
                self.on_ERROR_TRANSACTION_TOO_EXPENSIVE(older, self.debts[older])

    def on_ERROR_TRANSACTION_WOULD_REDUCE_NET_WORTH(self, tid, older):
        if tid in self.debts:
            self.agree_later.add(tid)         # agreed again once the older debt is over

    def _done(self, tid):
        self.debts.pop(tid, None)
        self.credits.discard(tid)
        self.trades.discard(tid)
        self.bankrupt_later.discard(tid)
        self.agree_later.discard(tid)
        for later in sorted(self.bankrupt_later):
            self.bankrupt_later.discard(later)
            self.send("BANKRUPT_TRANSACTION", u32(later))
        for later in sorted(self.agree_later):
            self.agree_later.discard(later)
            self.send("TRANSACTION_AGREE", u32(later))

    on_TRANSACTION_FINALISED = on_TRANSACTION_CANCELLED = _done
