"""The engine's state and the few primitives every rule goes through.

Every change of cash, ownership, cards or the pot goes through a primitive
here that also emits the PIMP message announcing it, so what clients see and
what the engine holds cannot drift apart (the property tests replay the
messages into a client's model and compare).
"""
from __future__ import annotations

import random

from .board import HOTEL, Board
from .state import BLOCKING, Auction, Candidate, Claim, Msg, Transaction, User

LOBBY, ROLL, JAIL, BUY, AUCTION, TAX, MOVED, WAIT, OVER = (
    "lobby", "roll", "jail", "buy", "auction", "tax", "moved", "wait", "over")

DEFAULT_OPTIONS = {
    "pot": True,                 # fines and taxes to the pot, won on Free Parking
    "must_pass_go": True,        # no buying before a player's first pass of Go
    "double_go": True,           # landing exactly on Go pays double salary
    "bankrupt_to_bank": True,    # a bankrupt's estate goes to the bank, which pays the creditor
    "strict_groups": True,       # official: no building beside a mortgage, no mortgage beside buildings
    "max_turns": 0,              # 0: none; else the richest wins after this many turns (bot play)
}


class Core:
    board: Board

    def _init_state(self, board: Board, options: dict, seed: int) -> None:
        self.board = board
        self.options = dict(DEFAULT_OPTIONS)
        unknown = set(options) - set(DEFAULT_OPTIONS)
        if unknown:
            raise ValueError(f"unknown options {sorted(unknown)}")
        self.options.update(options)
        self.seed = seed
        self.rng = random.Random(seed)
        self.users: dict[int, User] = {}
        self.candidates: list[Candidate] = []
        self.next_user = 1
        self.next_candidate = 1
        self.next_id = 1                      # claims and transactions share it
        n = len(board.properties)
        self.owner = [0] * n
        self.mortgaged = [False] * n
        self.level = [0] * n
        self.decks = {}
        for deck in ("chance", "chest"):
            cards = board.deck_cards(deck)
            self.rng.shuffle(cards)
            self.decks[deck] = cards
        self.card_owner: dict[int, int] = {}
        self.pot = board.pot_reset if self.options["pot"] else 0
        self.turn = 0
        self.phase = LOBBY
        self.cont = ""                        # after MOVED/WAIT: "again" (doubles: roll again) or "next"
        self.doubles = 0
        self.rolled = False                   # the first roll (or jail choice) of this turn is done
        self.dice = (0, 0)
        self.sale = -1
        self.tax_square = -1
        self.auction: Auction | None = None
        self.claims: list[Claim] = []
        self.transactions: dict[int, Transaction] = {}
        self.kick_votes: set[int] = set()
        self.turns = 0
        self.winner = 0
        self.end_reason = ""
        self.ev: list[Msg] = []

    # -- messages ----------------------------------------------------------
    def _all(self, name: str, *args) -> None:
        self.ev.append(Msg(name, args))

    def _to(self, pid: int, name: str, *args) -> None:
        self.ev.append(Msg(name, args, (pid,)))

    # -- queries -----------------------------------------------------------
    def playing(self) -> list[int]:
        return [pid for pid, u in self.users.items() if u.playing]

    def observers(self) -> list[int]:
        return [pid for pid, u in self.users.items() if not u.playing]

    def owned_by(self, pid: int) -> list[int]:
        return [p for p, o in enumerate(self.owner) if o == pid]

    def cards_of(self, pid: int) -> list[int]:
        return sorted(c for c, o in self.card_owner.items() if o == pid)

    def liquid(self, pid: int) -> int:
        """What ``pid`` could raise at once: cash, mortgages of unmortgaged properties, half the buildings."""
        total = self.users[pid].cash
        for p, o in enumerate(self.owner):
            if o == pid:
                prop = self.board.properties[p]
                if not self.mortgaged[p]:
                    total += prop.mortgage
                lv = self.level[p]
                total += lv * prop.house_cost // 2
        return total

    def debts_of(self, pid: int) -> list[Transaction]:
        """Open debts ``pid`` owes, lowest id first."""
        return sorted((t for t in self.transactions.values() if t.is_debt and t.a == pid),
                      key=lambda t: t.id)

    def transactions_of(self, pid: int) -> list[Transaction]:
        return sorted((t for t in self.transactions.values() if pid in (t.a, t.b)), key=lambda t: t.id)

    def blocking(self) -> Transaction | None:
        ts = [t for t in self.transactions.values() if t.kind in BLOCKING]
        return min(ts, key=lambda t: t.id) if ts else None

    def _new_id(self) -> int:
        i = self.next_id
        self.next_id += 1
        return i

    def bank_supply(self) -> tuple[int, int]:
        houses = sum(lv for lv in self.level if lv < HOTEL)
        hotels = sum(1 for lv in self.level if lv == HOTEL)
        return self.board.houses - houses, self.board.hotels - hotels

    # -- primitives --------------------------------------------------------
    def _cash(self, src: int, dst: int, amount: int) -> None:
        """Move ``amount`` from user ``src`` to user ``dst`` (0 is the bank) and announce it."""
        if amount <= 0:
            return
        if src:
            u = self.users[src]
            assert u.cash >= amount, (src, u.cash, amount)
            u.cash -= amount
        if dst:
            self.users[dst].cash += amount
        self._all("DELTA_CASH", src, dst, amount)
        if src:
            self._sync_offers(src)

    def _bank_pays(self, pid: int, amount: int) -> None:
        """The bank pays ``pid``; held in escrow against their oldest debt if they have one."""
        if amount <= 0:
            return
        debts = self.debts_of(pid)
        if debts:
            tid = debts[0].id
            u = self.users[pid]
            u.escrow[tid] = u.escrow.get(tid, 0) + amount
            self._all("MONEY_BEING_HELD_IN_ESCROW", pid, tid, u.escrow[tid])
        else:
            self._cash(0, pid, amount)

    def _to_pot(self, pid: int, amount: int) -> None:
        """``pid`` pays a fine: to the pot when it is on, else to the bank."""
        self._cash(pid, 0, amount)
        if self.options["pot"]:
            self.pot += amount
            self._all("DELTA_POT", self.pot)

    def _give_property(self, prop: int, dst: int) -> None:
        src = self.owner[prop]
        self.owner[prop] = dst
        if dst == 0 and self.mortgaged[prop]:
            # back to the bank: the mortgage is cleared
            self.mortgaged[prop] = False
            self._all("DELTA_PROPERTY_UNMORTGAGED", prop)
        self._all("DELTA_PROPERTY", src, dst, prop)
        if src:
            self._sync_offers(src)

    def _give_card(self, card: int, dst: int) -> None:
        src = self.card_owner.get(card, 0)
        if dst:
            self.card_owner[card] = dst
        else:
            del self.card_owner[card]
            self.decks[self.board.cards[card].deck].append(card)    # used: to the bottom
        self._all("DELTA_CARD", src, dst, card)
        if src:
            self._sync_offers(src)

    def _sync_offers(self, pid: int) -> None:  # overridden by the transactions mixin
        pass
