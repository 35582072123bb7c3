"""Wire clients that make the rules happen on purpose, and a witness of what the wire showed.

Written from the protocol text and the notes (board 0 data, card ids), like ``WireClient``.
A ``Team`` of ``RulesClient`` players shares a plan: one *builder* completes a colour
group by trading for the missing properties and builds evenly up to a hotel, then sells;
one *decliner* turns down a sale so the builder wins an auction, and mortgages then
unmortgages a property; a jailed player leaves jail by bail, then with a get-out-of-jail
card (which a holder gives them by trade if need be), then rolls for doubles.  Until then
nobody claims rent a player cannot pay (the game must not end early).  Once the ``Witness``
of some client has seen everything the team plays to finish: the builder trades for every
group it can get and builds all it can, the others stop collecting salary, until
bankruptcies leave a winner.  Every client pays its debts, raising money and going
bankrupt when it must, and takes up again what the server refused for the moment.
"""
from __future__ import annotations

from tests.pimp.wireclient import SQUARE_PROPERTY, WireClient, u32

# board 0 (pimp-notes.md): price by property id; house cost by group; groups of property ids
PRICE = [60, 60, 200, 100, 100, 120, 140, 150, 140, 160, 200, 180, 180, 200, 220, 220, 240, 200, 260, 260,
         150, 280, 300, 300, 320, 200, 350, 400]
GROUPS = {"brown": (0, 1), "light blue": (3, 4, 5), "pink": (6, 8, 9), "orange": (11, 12, 13),
          "red": (14, 15, 16), "yellow": (18, 19, 21), "green": (22, 23, 24), "dark blue": (26, 27)}
HOUSE_COST = {"brown": 50, "light blue": 50, "pink": 100, "orange": 100, "red": 150, "yellow": 150,
              "green": 200, "dark blue": 200}
GROUP_OF = {p: g for g, props in GROUPS.items() for p in props}
JAIL, BAIL = 10, 50
RAILROAD_SQUARES, UTILITY_SQUARES = (5, 15, 25, 35), (12, 28)

# card ids (pimp-notes.md) -> kind
CARD_KIND = {0: "advance", 1: "advance", 2: "nearest utility", 3: "nearest railroad", 4: "nearest railroad",
             5: "advance", 6: "money in", 7: "jail card", 8: "back", 9: "go to jail", 10: "repairs",
             11: "money out", 12: "advance", 13: "advance", 14: "pay each", 15: "money in", 16: "advance",
             17: "money in", 18: "money out", 19: "money in", 20: "jail card", 21: "go to jail",
             22: "collect each", 23: "money in", 24: "money in", 25: "money out", 26: "money out",
             27: "money in", 28: "money in", 29: "repairs", 30: "money in", 31: "money in"}
ADVANCE_TO = {0: 0, 1: 24, 5: 11, 12: 5, 13: 39, 16: 0}
CARD_KINDS = sorted(set(CARD_KIND.values()))

GOALS = ["auction won", "trade of properties", "mortgage", "unmortgage", "houses", "hotel", "buildings sold",
         "jail", "bail paid", "jail card used", "doubles out of jail", *(f"card: {k}" for k in CARD_KINDS)]
ENDINGS = ["bankruptcy", "winner"]


class Witness:
    """What one client saw on the wire, by the protocol's message sequences.

    ``seen`` maps a goal to the first evidence (the messages that prove it).
    """

    def __init__(self):
        self.seen: dict[str, tuple] = {}
        self.new: set[str] = set()  # goals seen since the team last looked
        self.card = None            # (player, square, card, kind) drawn, waiting for its effect
        self.jailed: set[int] = set()
        self.last: tuple = ()
        self.exit = None            # how the next JAIL_FREE came: (how, player, message)
        self.trades: set[int] = set()
        self.finalised = None       # a trade just finalised (its id)
        self.mortgaged: set[int] = set()
        self.auction = 0            # 1: open, 2: a bid made
        self.bankrupt: list[int] = []
        self.built = None           # a building bought, waiting for what it cost

    def _saw(self, goal: str, *evidence) -> None:
        if goal not in self.seen:
            self.seen[goal] = evidence
            self.new.add(goal)

    def feed(self, m: tuple) -> None:
        name, args = m[0], m[1:]
        self._card(name, args)
        if name == "GOING_TO_JAIL" and args[1] == JAIL:
            self.jailed.add(args[0])
            self._saw("jail", self.last, m)
        elif name == "JAIL_PAY_OR_ROLL":
            self.jailed.add(args[0])
        elif name == "SQUARE_TAKES_CASH" and args[1] == JAIL and args[2] == BAIL and args[0] in self.jailed:
            self.exit = ("bail paid", args[0], m)
        elif name == "SQUARE_TAKES_CARD" and args[1] == JAIL and args[0] in self.jailed:
            self.exit = ("jail card used", args[0], m)
        elif name == "DICE_ROLLED" and args[0] in self.jailed and args[1] == args[2]:
            self.exit = ("doubles out of jail", args[0], m)
        elif name == "JAIL_FREE":
            if self.exit and self.exit[1] == args[0]:
                self._saw(self.exit[0], self.exit[2], m)
            self.jailed.discard(args[0])
            self.exit = None
        elif name == "PROPERTY_AUCTION":
            self.auction = 1
        elif name == "PROPERTY_AUCTION_BID" and self.auction:
            self.auction = 2
        elif name == "PROPERTY_AUCTION_WON" and self.auction == 2:
            self.auction = ("won", args[0], m)
        elif name == "DELTA_PROPERTY" and isinstance(self.auction, tuple) and args[:2] == (0, self.auction[1]):
            self._saw("auction won", self.auction[2], m)
            self.auction = 0
        elif name == "TRANSACTION_TRADE_REQUESTED":
            self.trades.add(args[0])
        elif name == "TRANSACTION_FINALISED":
            self.finalised = args[0] if args[0] in self.trades else None
        elif name == "DELTA_PROPERTY" and self.finalised and args[0] and args[1]:
            self._saw("trade of properties", ("TRANSACTION_FINALISED", self.finalised), m)
        elif name == "DELTA_PROPERTY_MORTGAGED":
            self.mortgaged.add(args[0])
            self._saw("mortgage", m)
        elif name == "DELTA_PROPERTY_UNMORTGAGED" and args[0] in self.mortgaged:
            self._saw("unmortgage", m)
        elif name == "DELTA_HOUSES_PURCHASED":
            if args[3]:
                self._saw("hotel", m)
            self.built = self.built or (m if args[2] else None)
        elif name == "CONSTRUCTION_TAKES_CASH" and self.built:
            self._saw("houses", self.built, m)
        elif name == "DESTRUCTION_GIVES_CASH":
            self._saw("buildings sold", m)
        elif name == "PLAYER_BECAME_OBSERVER_BANKRUPT":
            self.bankrupt.append(args[0])
            self._saw("bankruptcy", m)
        elif name == "PLAYER_WON" and self.bankrupt:
            self._saw("winner", m)
        if name not in ("TRANSACTION_FINALISED", "DELTA_CASH", "DELTA_PROPERTY", "DELTA_CARD"):
            self.finalised = None
        if name not in ("DELTA_HOUSES_PURCHASED", "DELTA_BANK"):
            self.built = None
        self.last = m

    def _card(self, name: str, args: tuple) -> None:
        """A card's effect follows its GOT_CARD (pimp-server-behaviour.md, "Squares and cards")."""
        if name == "GOT_CARD":
            self.card = (*args, CARD_KIND[args[2]])
            return
        if self.card is None:
            return
        p, square, cid, kind = self.card
        m = (name, *args)
        ok = False
        if kind == "money in":
            ok = name == "SQUARE_GIVES_CASH" and args[:2] == (p, square)
        elif kind in ("money out", "repairs"):
            ok = (name == "SQUARE_TAKES_CASH" and args[:2] == (p, square)) or \
                 (name == "TRANSACTION_SQUARE_REQUESTED" and args[1] == square)
        elif kind == "jail card":
            ok = name == "DELTA_CARD" and args == (0, p, cid)
        elif kind in ("pay each", "collect each"):
            ok = name == "TRANSACTION_CARD_REQUESTED" and args[2] == cid and \
                (args[3] != p if kind == "pay each" else args[3] == p)
        elif name == "CARD_MOVED_PLAYER" and args[:2] == (p, cid):
            dest = args[2]
            ok = {"advance": dest == ADVANCE_TO.get(cid), "back": dest == (square - 3) % 40,
                  "nearest railroad": dest in RAILROAD_SQUARES, "nearest utility": dest in UTILITY_SQUARES,
                  "go to jail": dest == JAIL}[kind]
            if kind == "go to jail":
                return              # proven by the GOING_TO_JAIL that follows
        elif kind == "go to jail" and name == "GOING_TO_JAIL":
            ok = args == (p, JAIL)
        if ok:
            self._saw("card: " + kind, ("GOT_CARD", p, square, cid), m)
        if ok or name in ("START_OF_TURN", "ROLL_AGAIN"):
            self.card = None


class Team:
    """The shared plan of the players (who builds, who declines) and what they have seen."""

    def __init__(self):
        self.clients: list[RulesClient] = []
        self.builder = self.decliner = 0
        self.target = ""                # the colour group the builder is completing
        self.goals: set[str] = set()    # seen by any client
        self.out: set[int] = set()      # players gone bankrupt

    def seen(self, goal: str) -> bool:
        for c in self.clients:
            if c.witness.new:
                self.goals |= c.witness.new
                c.witness.new.clear()
        return goal in self.goals

    def missing(self) -> list[str]:
        return [g for g in GOALS if not self.seen(g)]

    def finishing(self) -> bool:
        return not self.missing()


class RulesClient(WireClient):
    def __init__(self, name: str, team: Team, piece: int = 0):
        super().__init__(name, piece=piece)
        self.team = team
        team.clients.append(self)
        self.witness = Witness()
        self.cards: set[int] = set()            # get-out-of-jail cards I hold
        self.card_owner: dict[int, int] = {}    # get-out-of-jail card -> holder (0: the deck)
        self.selling: dict[int, int] = {}       # trade id -> cash I pay (builder)
        self.asked: set[int] = set()            # players the builder asked for their properties
        self.gift: dict[int, int] = {}          # player -> the jail card I am giving them
        self.card_bail: set[int] = set()        # jail debts I settle with a card
        self.jail_wait = False                  # my jail choice waits for a card to come by trade
        self.partner: dict[int, int] = {}       # trade id -> the other player
        self.opened: dict[int, int] = {}        # trade id -> my turn count when it opened
        self.turns = 0

    def feed(self, data: bytes) -> None:
        start = len(self.received)
        super().feed(data)
        for m in self.received[start:]:
            self.witness.feed(m)

    # -- helpers -----------------------------------------------------------
    def mine(self) -> list[int]:
        return [p for p, o in sorted(self.owner.items()) if o == self.me]

    def my_cash(self) -> int:
        return self.cash.get(self.me, 0)

    @property
    def is_builder(self) -> bool:
        return self.me == self.team.builder

    # -- state -------------------------------------------------------------
    def on_STATE_CARD(self, card, owner):
        self.card_owner[card] = owner
        if owner == self.me:
            self.cards.add(card)

    def on_DELTA_CARD(self, src, dst, card):
        self.card_owner[card] = dst
        if dst == self.me:
            self.cards.add(card)
        elif src == self.me:
            self.cards.discard(card)

    def on_DELTA_PROPERTY(self, src, dst, prop):
        super().on_DELTA_PROPERTY(src, dst, prop)
        if dst == 0:
            self.level[prop] = 0
            self.mortgaged.discard(prop)

    def on_PLAYER_BECAME_OBSERVER_BANKRUPT(self, pid):
        team = self.team
        team.out.add(pid)
        if pid == team.builder:         # the next player in the team builds instead
            left = [c.me for c in team.clients if c.me not in team.out]
            team.builder, team.target = (min(left) if left else 0), ""

    # -- my turn -----------------------------------------------------------
    def on_START_OF_TURN(self, pid, throw):
        if pid != self.me:
            return
        self.turns += 1
        for tid in sorted(self.trades):
            if self.turns - self.opened.get(tid, self.turns) >= 3:
                self.send("TRANSACTION_CANCEL", u32(tid))      # a deal that went nowhere
        if self.is_builder:
            self._plan_group()
            self._build()
        elif self.me == self.team.decliner:
            self._mortgage_demo()
        if throw:
            self.send("THROW_DICE")

    def on_PROPERTY_SALE(self, pid, prop, price):
        if pid != self.me:
            return
        if self.me == self.team.decliner and not self.team.seen("auction won"):
            self.send("AUCTION_PROPERTY")
        elif self.team.finishing() and not self.is_builder:
            self.send("AUCTION_PROPERTY")
        else:
            reserve = 50 if self.is_builder else 150
            self.send("BUY_PROPERTY" if self.my_cash() >= price + reserve else "AUCTION_PROPERTY")

    def on_PROPERTY_AUCTION(self, prop):
        self.auction_open = True
        if self.is_builder and not self.team.finishing() and self.my_cash() > PRICE[prop] // 2 + 100:
            self.send("BID", u32(max(10, PRICE[prop] // 2)))
        else:
            self.send("NO_BID")

    def on_PLAYER_PASSING_BY_SQUARE(self, pid, square):
        if self.team.finishing() and not self.is_builder:
            return                      # the losing side stops collecting salary
        super().on_PLAYER_PASSING_BY_SQUARE(pid, square)

    def on_PLAYER_LANDING_ON_SQUARE(self, pid, square):
        finishing = self.team.finishing()
        if finishing and not self.is_builder and pid == self.me:
            return
        prop = SQUARE_PROPERTY.get(square)
        if not finishing and pid != self.me and prop is not None and \
                self.cash.get(pid, 0) < (1500 if self.level.get(prop) else 300):
            return                      # until everything was seen, nobody is pressed into bankruptcy
        super().on_PLAYER_LANDING_ON_SQUARE(pid, square)

    # -- the builder: complete a group by trade, build evenly ------------------
    def _complete_groups(self) -> list[str]:
        """My complete colour groups, the cheapest to build first."""
        mine = [g for g, props in GROUPS.items() if all(self.owner.get(p) == self.me for p in props)]
        return sorted(mine, key=lambda g: (HOUSE_COST[g] * len(GROUPS[g]), g))

    def _plan_group(self) -> None:
        """Ask the other owners for the properties of a group owned by players only: until a
        trade was seen and I have a group to build on, and at the end every group I can get."""
        team = self.team
        if self.trades or (self._complete_groups() and team.seen("trade of properties")
                           and not team.finishing()):
            return
        candidates = [g for g, props in GROUPS.items()
                      if all(self.owner.get(p) for p in props) and any(self.owner[p] != self.me for p in props)]
        if not candidates:
            return
        group = min(candidates, key=lambda g: (HOUSE_COST[g] * len(GROUPS[g]), g))
        team.target = group
        for other in sorted({self.owner[p] for p in GROUPS[group]} - {self.me}):
            self.asked.add(other)
            self.send("TRANSACTION_REQUEST_TRADE", bytes((other,)))

    def _levels(self, group: str) -> dict[int, int]:
        return {p: self.level.get(p, 0) for p in GROUPS[group]}

    def _purchase(self, old: dict, new: dict) -> None:
        entries = []
        for p in sorted(old):
            a, b = old[p], new[p]
            if a == b:
                continue
            if b == 5:
                entries.append((p, 4 - a, 1))
            elif a == 5:
                entries.append((p, b - 4, -1))
            else:
                entries.append((p, b - a, 0))
        if entries:
            self.send("PURCHASE_HOUSES", bytes([len(entries)]) + b"".join(
                bytes((p, h & 0xFF, H & 0xFF)) for p, h, H in entries))

    def _build(self) -> None:
        """Until the end, one group one level a turn up to a hotel, then sold back; at the end,
        hotels everywhere the cash reaches."""
        team, groups = self.team, self._complete_groups()
        if self.debts or not groups:
            return
        finishing = team.finishing()
        if not finishing:
            groups = groups[:1]
            if team.seen("hotel"):      # shown: sell back, high rents would end the game early
                old = self._levels(groups[0])
                self._purchase(old, {p: 0 for p in old})
                return
        cash = self.my_cash()
        for group in groups:
            for p in GROUPS[group]:
                if p in self.mortgaged and cash > PRICE[p] // 2 * 11 // 10 + 100:
                    self.send("UNMORTGAGE_PROPERTY", bytes((p,)))
                    cash -= PRICE[p] // 2 * 11 // 10
            if any(p in self.mortgaged for p in GROUPS[group]):
                continue
            old = self._levels(group)
            new, cost = dict(old), HOUSE_COST[group]
            reserve = 0 if finishing else 300
            top = 5 if finishing else min(old.values()) + 1
            # raise the lowest property one level at a time while the cash lasts (even building)
            while True:
                p = min(new, key=lambda q: (new[q], q))
                if new[p] >= top or cash - cost < reserve:
                    break
                new[p] += 1
                cash -= cost
            self._purchase(old, new)

    # -- the decliner mortgages, then unmortgages --------------------------------
    def _mortgage_demo(self) -> None:
        """Mortgage a property on one turn, unmortgage one on a later turn."""
        if self.team.seen("unmortgage"):
            return
        mine = self.mine()
        for p in mine:
            if p in self.mortgaged and self.my_cash() > PRICE[p] // 2 * 11 // 10 + 200:
                self.send("UNMORTGAGE_PROPERTY", bytes((p,)))
                return
        if any(p in self.mortgaged for p in mine):
            return                      # waiting for the cash to unmortgage
        for p in mine:
            group = GROUP_OF.get(p)
            if group != self.team.target and not (group and any(self.level.get(q) for q in GROUPS[group])):
                self.send("MORTGAGE_PROPERTY", bytes((p,)))
                return

    # -- trades: the builder's purchase, a jail card given away ------------------
    def on_TRANSACTION_TRADE_REQUESTED(self, tid, other):
        self.trades.add(tid)
        self.partner[tid] = other
        self.opened[tid] = self.turns
        if self.is_builder and other in self.asked:
            self.asked.discard(other)
            theirs = [p for p in GROUPS.get(self.team.target, ()) if self.owner.get(p) == other]
            pay = min(sum(PRICE[p] for p in theirs), max(0, self.my_cash() - 300))
            self.selling[tid] = pay
            if pay:
                self.send("TRANSACTION_SET_CASH", u32(tid) + u32(pay))
        elif other == self.team.builder and self.team.target:
            for p in GROUPS[self.team.target]:
                if self.owner.get(p) == self.me:
                    self.send("TRANSACTION_ADD_PROPERTY", u32(tid) + bytes((p,)))
        elif other in self.gift:
            self.send("TRANSACTION_ADD_CARD", u32(tid) + bytes((self.gift.pop(other),)))
        self.send("TRANSACTION_FINISH", u32(tid))

    def on_ERROR_TRANSACTION_TOO_EXPENSIVE(self, tid, amount):
        if tid in self.selling:                 # the builder's cash went meanwhile: offer nothing
            self.selling[tid] = 0
            self.send("TRANSACTION_SET_CASH", u32(tid) + u32(0))
            self.send("TRANSACTION_FINISH", u32(tid))
        else:
            super().on_ERROR_TRANSACTION_TOO_EXPENSIVE(tid, amount)

    def on_TRANSACTION_REOPENED(self, tid):
        if tid in self.trades:          # my cash fell below my offer: the server lowered it; go on
            self.send("TRANSACTION_FINISH", u32(tid))
        else:
            super().on_TRANSACTION_REOPENED(tid)

    def on_ERROR_TRANSACTION_WOULD_REDUCE_NET_WORTH(self, tid, older):
        if tid in self.trades:
            self.send("TRANSACTION_CANCEL", u32(tid))
        else:
            super().on_ERROR_TRANSACTION_WOULD_REDUCE_NET_WORTH(tid, older)

    def on_ERROR_TRANSACTION_PROPERTY_HAS_HOUSE(self, tid, prop):
        if tid in self.trades:
            self.send("TRANSACTION_CANCEL", u32(tid))

    def on_GOING_TO_JAIL(self, pid, square):
        # a jailed player with no card gets mine, so a card is used to leave jail
        if pid != self.me and self.cards and not self.team.seen("jail card used") and pid not in self.gift \
                and pid not in self.card_owner.values():
            self.gift[pid] = min(self.cards)
            self.send("TRANSACTION_REQUEST_TRADE", bytes((pid,)))

    # -- jail: bail, a card, then doubles --------------------------------------
    def on_JAIL_PAY_OR_ROLL(self, pid, left, can_build):
        if pid != self.me:
            return
        if not self.cards and any(self.partner.get(t) in self.card_owner.values() for t in self.trades):
            self.jail_wait = True       # a card may be on its way
            return
        self._jail_choice()

    def _jail_choice(self) -> None:
        self.jail_wait = False
        if self.cards and not self.team.seen("jail card used"):
            self.send("JAIL_PAY_BAIL")
        elif not self.team.seen("bail paid") and self.my_cash() >= BAIL:
            self.send("JAIL_PAY_BAIL")
        else:
            self.send("JAIL_ROLL_DICE")

    def on_TRANSACTION_JAIL_REQUESTED(self, tid, amount):
        self.debts[tid] = amount
        if self.cards and not self.team.seen("jail card used"):
            self.card_bail.add(tid)
            self.send("TRANSACTION_ADD_CARD", u32(tid) + bytes((min(self.cards),)))
            self.send("TRANSACTION_SET_CASH", u32(tid) + u32(0))
            self.send("TRANSACTION_FINISH", u32(tid))

    def on_TRANSACTION_CARD_ADDED(self, tid, card):
        self.card_bail.discard(tid)

    def on_TRANSACTION_OTHER_AGREED(self, tid):
        if tid not in self.card_bail:           # with a card: agree once the card is in
            super().on_TRANSACTION_OTHER_AGREED(tid)

    def _done(self, tid):
        super()._done(tid)
        self.selling.pop(tid, None)
        self.card_bail.discard(tid)
        self.partner.pop(tid, None)
        self.opened.pop(tid, None)
        if self.jail_wait and not any(self.partner.get(t) in self.card_owner.values() for t in self.trades):
            self._jail_choice()

    on_TRANSACTION_FINALISED = on_TRANSACTION_CANCELLED = _done

