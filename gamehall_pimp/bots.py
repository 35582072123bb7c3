"""Computer players: ``random`` (any legal move) and ``strong`` (plays by value).

A bot is asked ``choose(engine, user)`` and returns an action for that user,
or None when it has nothing to do now.  PIMP lets many users act at once
(bids, claims, transactions), so a driver (``selfplay.play_game``, the hall)
asks every bot in turn until the game is over.  Bots see the engine's public
state only and act through ``engine.apply`` like a human.
"""
from __future__ import annotations

import random
from typing import Any

from .board import COLOUR, HOTEL
from .core import AUCTION, BUY, JAIL, ROLL, TAX
from .rent import owns_group
from .state import FINISHED, JAIL as JAIL_TX, SETUP, TRADE

BOTS = ("strong", "random")


def act(msg: str, *args) -> dict:
    return {"msg": msg, "args": list(args)}


# -- what every bot must be able to do ------------------------------------------
def my_claims(g: Any, pid: int) -> list[dict]:
    out = []
    for c in g.claims:
        if c.claimant == pid:
            out.append(act("CLAIM_GO", c.property) if c.kind == "go" else act("CLAIM_RENT", c.debtor, c.property))
    return out


def vote(g: Any, pid: int) -> dict | None:
    """Bots let everyone in (a vote nobody casts would hold the candidate up)."""
    if g.candidates:
        c = g.candidates[0]
        if c.user != pid and pid not in c.yes and pid not in c.no:
            return act("ACCEPT_JOIN", c.id)
    return None


def sell_group_buildings(g: Any, pid: int) -> dict | None:
    """Sell every building of the group with the most built (balanced, needs no bank pieces)."""
    best = None
    for group, props in g.board.groups.items():
        if g.owner[props[0]] == pid and any(g.level[q] for q in props):
            total = sum(g.level[q] for q in props)
            if best is None or total > best[0]:
                best = (total, props)
    if best is None:
        return None
    return act("PURCHASE_HOUSES", [[q, -g.level[q] if g.level[q] < HOTEL else -4, -1 if g.level[q] == HOTEL else 0]
                                   for q in best[1] if g.level[q]])


def mortgageable(g: Any, pid: int) -> list[int]:
    return [p for p in g.owned_by(pid) if not g.mortgaged[p]
            and not any(g.level[q] for q in g.board.groups[g.board.properties[p].group])]


def raise_money(g: Any, pid: int) -> dict | None:
    sell = sell_group_buildings(g, pid)
    if sell is not None:
        return sell
    props = mortgageable(g, pid)
    if props:
        return act("MORTGAGE_PROPERTY", min(props, key=lambda p: g.board.properties[p].mortgage))
    return None


def debt_action(g: Any, pid: int) -> dict | None:
    """Work on the user's transactions that are debts: pay, raise money, or go bankrupt; as
    creditor, finish and agree.  Oldest first; a debt that waits for the other side is passed
    over (not a reason to do nothing: two players waiting on each other's older debt would
    stall the game), and a debt is paid only once the older ones are settled."""
    owes_older = False
    for tx in g.transactions_of(pid):
        if not tx.is_debt:
            continue
        tid = tx.id
        if tx.a != pid:      # creditor: offer nothing, finish, agree once the debtor has finished
            if tx.props[pid]:
                return act("TRANSACTION_REMOVE_PROPERTY", tid, min(tx.props[pid]))
            if tx.cards[pid]:
                return act("TRANSACTION_REMOVE_CARD", tid, min(tx.cards[pid]))
            if tx.cash[pid]:
                return act("TRANSACTION_SET_CASH", tid, 0)
            if tx.stage[pid] == SETUP:
                return act("TRANSACTION_FINISH", tid)
            if tx.stage[pid] == FINISHED and tx.stage[tx.a] >= FINISHED:
                return act("TRANSACTION_AGREE", tid)
            continue
        if owes_older:
            continue         # the older debt first (paying this one could be refused)
        owes_older = True
        # a seat taken over mid-deal may have offered more than the debt: just the cash
        if tx.props[pid]:
            return act("TRANSACTION_REMOVE_PROPERTY", tid, min(tx.props[pid]))
        if tx.cards[pid] and (tx.kind != JAIL_TX or len(tx.cards[pid]) > 1):
            return act("TRANSACTION_REMOVE_CARD", tid, max(tx.cards[pid]))
        stage = tx.stage[pid]
        avail = g.users[pid].cash + g.users[pid].escrow.get(tid, 0)
        suitable = tx.cash[pid] >= tx.required or (tx.kind == JAIL_TX and tx.cards[pid])
        if suitable and tx.cash[pid] <= avail:
            if stage == SETUP:
                return act("TRANSACTION_FINISH", tid)
            if stage == FINISHED and tx.stage[tx.b] >= FINISHED:
                return act("TRANSACTION_AGREE", tid)
            continue         # agreed: the creditor's turn
        if avail >= tx.required:
            return act("TRANSACTION_SET_CASH", tid, tx.required)
        money = raise_money(g, pid)
        if money is not None:
            return money
        older = [t for t in g.transactions_of(pid) if t.id < tid]
        for t in older:
            if t.kind == TRADE:
                return act("TRANSACTION_CANCEL", t.id)
        if not older:
            return act("BANKRUPT_TRANSACTION", tid)
        # an older debt owed to us holds the bankruptcy up: its debtor acts on it
    return None


def passive_action(g: Any, pid: int) -> dict | None:
    """The cautious default for a user whose time ran out (or a bot with nothing better)."""
    if pid == g.turn:
        if g.phase == ROLL:
            return act("THROW_DICE")
        if g.phase == JAIL:
            return act("JAIL_ROLL_DICE")
        if g.phase == BUY:
            return act("AUCTION_PROPERTY")
        if g.phase == TAX:
            return act("TAX_PAY_FLAT_FEE")
    if g.phase == AUCTION and _bidding(g, pid):
        return act("NO_BID")
    return debt_action(g, pid)


def _bidding(g: Any, pid: int) -> bool:
    a = g.auction
    return a is not None and g.users[pid].playing and pid != a.leader and pid not in a.passed


class RandomBot:
    """Any legal move, chosen at random (it always pays its debts when it can)."""
    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, g: Any, pid: int) -> dict | None:
        r = self.rng
        u = g.users[pid]
        ballot = vote(g, pid)
        if ballot is not None or not u.playing:
            return ballot
        claims = my_claims(g, pid)
        if claims and r.random() < 0.7:
            return r.choice(claims)
        trade = self._trade(g, pid)
        if trade is not None:
            return trade
        debt = self._debts(g, pid)
        if debt is not None:
            return debt
        if g.phase == AUCTION and _bidding(g, pid):
            high = g.auction.high
            if r.random() < 0.4 and u.cash > high:
                return act("BID", r.randint(high + 1, min(u.cash, high + 100)))
            return act("NO_BID")
        if pid != g.turn:
            return None
        if g.phase in (ROLL, JAIL) and r.random() < 0.15:
            extra = self._optional(g, pid)
            if extra is not None:
                return extra
        if g.phase == ROLL:
            return act("THROW_DICE")
        if g.phase == JAIL:
            return act(r.choice(["JAIL_PAY_BAIL", "JAIL_ROLL_DICE"]))
        if g.phase == BUY:
            price = g.board.properties[g.sale].price
            if u.cash >= price and r.random() < 0.5:
                return act("BUY_PROPERTY")
            return act("AUCTION_PROPERTY")
        if g.phase == TAX:
            return act(r.choice(["TAX_PAY_FLAT_FEE", "TAX_PAY_TEN_PERCENT"]))
        return None

    def _debts(self, g: Any, pid: int) -> dict | None:
        return debt_action(g, pid)

    def _optional(self, g: Any, pid: int) -> dict | None:
        r = self.rng
        options = []
        for p in g.owned_by(pid):
            options.append(act("UNMORTGAGE_PROPERTY" if g.mortgaged[p] else "MORTGAGE_PROPERTY", p))
            prop = g.board.properties[p]
            if prop.kind == COLOUR and owns_group(g.board, g.owner, p):
                options.append(act("PURCHASE_HOUSES", [[p, 1, 0]]))
        others = [q for q in g.playing() if q != pid]
        if others and not g.transactions_of(pid):
            options.append(act("TRANSACTION_REQUEST_TRADE", r.choice(others)))
        if not options:
            return None
        return r.choice(options)      # may be refused (e.g. uneven building): the driver goes on

    def _trade(self, g: Any, pid: int) -> dict | None:
        r = self.rng
        for tx in g.transactions_of(pid):
            if tx.kind != TRADE:
                continue
            other = tx.other(pid)
            if r.random() < 0.15:
                return act("TRANSACTION_CANCEL", tx.id)
            stage = tx.stage[pid]
            if stage == SETUP:
                roll = r.random()
                mine = g.owned_by(pid)
                if roll < 0.3 and mine:
                    return act("TRANSACTION_ADD_PROPERTY", tx.id, r.choice(mine))
                if roll < 0.5:
                    return act("TRANSACTION_SET_CASH", tx.id, r.randint(0, max(0, g.users[pid].cash // 4)))
                return act("TRANSACTION_FINISH", tx.id)
            if stage == FINISHED and tx.stage[other] >= FINISHED:
                if any(g.level[p] for p in tx.props[pid]):
                    return act("TRANSACTION_CANCEL", tx.id)
                return act("TRANSACTION_AGREE", tx.id)
        return None


class StrongBot:
    """Buys, bids and builds by value, trades to complete groups, keeps cash against rent,
    mortgages and sells before going bankrupt."""
    name = "strong"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.trade_turn: dict[int, int] = {}      # partner -> turn number of the last proposal
        self.patience: dict[int, int] = {}        # trade id -> calls left
        self.wanted: dict[int, int] = {}          # trade id -> the property we asked for

    # -- valuation --------------------------------------------------------------
    def reserve(self, g: Any, pid: int) -> int:
        """Cash to keep: a share of the worst rent an opponent could charge now."""
        worst = 0
        for p, o in enumerate(g.owner):
            if o and o != pid and not g.mortgaged[p]:
                prop = g.board.properties[p]
                if prop.kind == COLOUR:
                    lv = g.level[p]
                    r = prop.rents[lv] if lv else prop.rents[0] * (2 if owns_group(g.board, g.owner, p) else 1)
                else:
                    r = 200 if prop.kind == "railroad" else 100
                worst = max(worst, r)
        return min(max(100, worst * 2 // 3), 700)

    def _group_state(self, g: Any, pid: int, prop: int) -> tuple[int, int, int]:
        """(mine, theirs_max, size) of ``prop``'s group, not counting ``prop`` itself."""
        group = g.board.groups[g.board.properties[prop].group]
        mine = sum(1 for q in group if q != prop and g.owner[q] == pid)
        counts: dict[int, int] = {}
        for q in group:
            if q != prop and g.owner[q] and g.owner[q] != pid:
                counts[g.owner[q]] = counts.get(g.owner[q], 0) + 1
        return mine, max(counts.values(), default=0), len(group)

    def value(self, g: Any, pid: int, prop: int) -> float:
        p = g.board.properties[prop]
        mine, theirs, size = self._group_state(g, pid, prop)
        v = float(p.price)
        if mine == size - 1:
            v *= 1.7 if p.kind == COLOUR else 1.3
        elif theirs == size - 1:
            v *= 1.4
        elif mine:
            v *= 1.15
        return v

    # -- choosing ---------------------------------------------------------------
    def choose(self, g: Any, pid: int) -> dict | None:
        u = g.users[pid]
        ballot = vote(g, pid)
        if ballot is not None or not u.playing:
            return ballot
        claims = my_claims(g, pid)
        if claims:
            return claims[0]
        trade = self._trade(g, pid)
        if trade is not None:
            return trade
        debt = debt_action(g, pid)
        if debt is not None:
            return debt
        if g.phase == AUCTION and _bidding(g, pid):
            return self._bid(g, pid)
        if pid != g.turn:
            return None
        if g.phase in (ROLL, JAIL):
            extra = self._improve(g, pid)
            if extra is not None:
                return extra
        if g.phase == ROLL:
            return act("THROW_DICE")
        if g.phase == JAIL:
            unowned = sum(1 for o in g.owner if o == 0)
            if unowned > 6 and (u.cash > 300 or g.cards_of(pid)):
                return act("JAIL_PAY_BAIL")
            return act("JAIL_ROLL_DICE")
        if g.phase == BUY:
            return self._buy(g, pid)
        if g.phase == TAX:
            return act("TAX_PAY_TEN_PERCENT" if g.income_tax_percent(pid) < g.board.income_tax_flat
                       else "TAX_PAY_FLAT_FEE")
        return None

    def _buy(self, g: Any, pid: int) -> dict:
        prop = g.board.properties[g.sale]
        cash = g.users[pid].cash
        mine, theirs, size = self._group_state(g, pid, prop.id)
        if cash >= prop.price:
            left = cash - prop.price
            if mine == size - 1 or left >= self.reserve(g, pid) // 2 or (theirs == size - 1 and left >= 50):
                return act("BUY_PROPERTY")
        return act("AUCTION_PROPERTY")

    def _bid(self, g: Any, pid: int) -> dict:
        a = g.auction
        cash = g.users[pid].cash
        limit = min(self.value(g, pid, a.property), cash - self.reserve(g, pid) // 2)
        step = max(5, g.board.properties[a.property].price // 20)
        if a.high + 1 <= limit:
            return act("BID", int(min(limit, a.high + step)))
        return act("NO_BID")

    def _improve(self, g: Any, pid: int) -> dict | None:
        """Before rolling: build evenly on complete groups, unmortgage with spare cash, trade."""
        cash = g.users[pid].cash
        if g.debts_of(pid):
            return None               # pay first (building would be refused anyway)
        reserve = self.reserve(g, pid)
        houses, hotels = g.bank_supply()
        best = None
        for group, props in g.board.groups.items():
            first = g.board.properties[props[0]]
            if first.kind != COLOUR or not owns_group(g.board, g.owner, props[0]) or g.owner[props[0]] != pid:
                continue
            if any(g.mortgaged[q] for q in props):
                continue
            low = min(props, key=lambda q: (g.level[q], -q))
            lv = g.level[low]
            if lv >= HOTEL or first.house_cost > cash - reserve:
                continue
            if lv == 4 and hotels == 0 or lv < 4 and houses == 0:
                continue
            prop = g.board.properties[low]
            gain = (prop.rents[lv + 1] - (prop.rents[lv] if lv else 2 * prop.rents[0])) / prop.house_cost
            if best is None or gain > best[0]:
                best = (gain, low, lv)
        if best is not None:
            _, low, lv = best
            return act("PURCHASE_HOUSES", [[low, -4, 1] if lv == 4 else [low, 1, 0]])
        for p in g.owned_by(pid):
            if g.mortgaged[p] and cash - g.board.properties[p].unmortgage_cost > reserve + 300:
                return act("UNMORTGAGE_PROPERTY", p)
        return self._propose(g, pid)

    # -- trading -----------------------------------------------------------------
    def _propose(self, g: Any, pid: int) -> dict | None:
        """Offer cash for the one property missing from a colour group."""
        if g.transactions_of(pid):
            return None
        cash = g.users[pid].cash
        for group, props in g.board.groups.items():
            if g.board.properties[props[0]].kind != COLOUR:
                continue
            missing = [q for q in props if g.owner[q] != pid]
            if len(missing) != 1 or len(missing) == len(props):
                continue
            q = missing[0]
            holder = g.owner[q]
            if not holder or g.level[q] or g.turns - self.trade_turn.get(holder, -99) < 12:
                continue
            if cash - self.reserve(g, pid) < g.board.properties[q].price:
                continue
            self.trade_turn[holder] = g.turns
            return act("TRANSACTION_REQUEST_TRADE", holder)
        return None

    def _trade(self, g: Any, pid: int) -> dict | None:
        for tx in g.transactions_of(pid):
            if tx.kind != TRADE:
                continue
            left = self.patience.setdefault(tx.id, 12)
            self.patience[tx.id] = left - 1
            if left <= 0:
                return act("TRANSACTION_CANCEL", tx.id)
            other = tx.other(pid)
            return (self._as_buyer(g, pid, tx, other) if tx.a == pid else self._as_seller(g, pid, tx, other))
        return None

    def _as_buyer(self, g: Any, pid: int, tx, other: int) -> dict | None:
        want = self.wanted.get(tx.id)
        if want is None:
            for props in g.board.groups.values():
                missing = [q for q in props if g.owner[q] != pid]
                if len(missing) == 1 and g.owner[missing[0]] == other and len(props) > 1:
                    want = self.wanted[tx.id] = missing[0]
                    break
            else:
                return act("TRANSACTION_CANCEL", tx.id)
        price = g.board.properties[want].price
        offer = min(price * 2, g.users[pid].cash - self.reserve(g, pid) // 2)
        if offer < price:
            return act("TRANSACTION_CANCEL", tx.id)
        if tx.stage[pid] == SETUP:
            if tx.cash[pid] != offer:
                return act("TRANSACTION_SET_CASH", tx.id, offer)
            return act("TRANSACTION_FINISH", tx.id)
        if tx.stage[other] >= FINISHED:
            if want in tx.props[other] and not tx.cards[other] and tx.cash[other] == 0 and tx.stage[pid] == FINISHED:
                return act("TRANSACTION_AGREE", tx.id)
            if want not in tx.props[other]:
                return act("TRANSACTION_CANCEL", tx.id)
        return None

    def _as_seller(self, g: Any, pid: int, tx, other: int) -> dict | None:
        give = set(tx.props[pid])
        offered = tx.cash[other] + sum(g.board.properties[p].price for p in tx.props[other])
        if tx.stage[pid] == SETUP:
            if not give:
                for p in g.owned_by(pid):
                    mine, theirs, size = self._group_state(g, other, p)
                    if mine == size - 1 and not g.level[p] and offered >= 2 * g.board.properties[p].price:
                        return act("TRANSACTION_ADD_PROPERTY", tx.id, p)
            if tx.stage[other] >= FINISHED and self._fair(g, pid, tx, other):
                return act("TRANSACTION_FINISH", tx.id)
            if tx.stage[other] >= FINISHED:
                return act("TRANSACTION_CANCEL", tx.id)
            return None
        if tx.stage[pid] == FINISHED and tx.stage[other] >= FINISHED:
            if self._fair(g, pid, tx, other):
                return act("TRANSACTION_AGREE", tx.id)
            return act("TRANSACTION_CANCEL", tx.id)
        return None

    def _fair(self, g: Any, pid: int, tx, other: int) -> bool:
        if any(g.level[p] for p in tx.props[pid]):
            return False
        get = tx.cash[other] + sum(self.value(g, pid, p) for p in tx.props[other]) + 30 * len(tx.cards[other])
        give = tx.cash[pid] + sum(self.value(g, other, p) for p in tx.props[pid]) + 30 * len(tx.cards[pid])
        return get >= 1.25 * give and (get > 0 or give == 0) and give + get > 0


def make_bot(name: str, seed: int | None = None) -> Any:
    if name == "strong":
        return StrongBot(seed)
    if name == "random":
        return RandomBot(seed)
    raise ValueError(f"no bot {name!r}; bots: {', '.join(BOTS)}")
