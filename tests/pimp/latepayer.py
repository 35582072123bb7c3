"""A player that pays late and learns whether it can pay only from the messages, as deployed
clients do (issue 15): it takes a debt the server set up as paid (cash set, finished) as
payable and just agrees to it, and raises money (sells, mortgages) only once the server says
``ERROR_TRANSACTION_TOO_EXPENSIVE`` for it.  Meanwhile it buys, builds and unmortgages
recklessly, so its cash often drops below a debt it has not paid yet.

``LatePayer.choose(g, pid)`` is a bot for ``selfplay.play_game``; ``hear(msgs)`` must be
given every message the engine sends (it keeps those addressed to it).  It reads the
engine's public state for the rest (what it owns, whose turn it is), which a client knows
from the messages too.
"""
from __future__ import annotations

import random

from gamehall_pimp.board import COLOUR
from gamehall_pimp.bots import act, my_claims, raise_money, vote
from gamehall_pimp.core import AUCTION, BUY, JAIL, ROLL, TAX
from gamehall_pimp.rent import owns_group
from gamehall_pimp.state import FINISHED, SETUP, TRADE


class LatePayer:
    name = "late"

    def __init__(self, pid: int, seed: int):
        self.pid = pid
        self.rng = random.Random(seed)
        self.too_expensive: set[int] = set()     # debts the server said I cannot afford
        self.wait: dict[int, int] = {}           # debt -> calls still to let pass before paying

    def hear(self, msgs) -> None:
        for m in msgs:
            if m.to is not None and self.pid not in m.to:
                continue
            if m.name == "ERROR_TRANSACTION_TOO_EXPENSIVE":
                self.too_expensive.add(m.args[0])
            elif m.name in ("TRANSACTION_FINALISED", "TRANSACTION_CANCELLED"):
                self.too_expensive.discard(m.args[0])

    def choose(self, g, pid: int) -> dict | None:
        r = self.rng
        ballot = vote(g, pid)
        if ballot is not None or not g.users[pid].playing:
            return ballot
        claims = my_claims(g, pid)
        if claims:
            return claims[0]
        for tx in g.transactions_of(pid):
            if tx.kind == TRADE:
                return act("TRANSACTION_CANCEL", tx.id)
            debt = self._debt(g, pid, tx)
            if debt is not None:
                return debt
        if g.phase == AUCTION and g.auction.leader != pid and pid not in g.auction.passed:
            if r.random() < 0.3 and g.users[pid].cash > g.auction.high + 10:
                return act("BID", g.auction.high + 10)
            return act("NO_BID")
        if pid != g.turn:
            return None
        if g.phase in (ROLL, JAIL) and r.random() < 0.3:
            extra = self._spend_or_raise(g, pid)
            if extra is not None:
                return extra
        if g.phase == ROLL:
            return act("THROW_DICE")
        if g.phase == JAIL:
            return act(r.choice(["JAIL_PAY_BAIL", "JAIL_ROLL_DICE"]))
        if g.phase == BUY:
            price = g.board.properties[g.sale].price
            return act("BUY_PROPERTY" if g.users[pid].cash >= price else "AUCTION_PROPERTY")
        if g.phase == TAX:
            return act(r.choice(["TAX_PAY_FLAT_FEE", "TAX_PAY_TEN_PERCENT"]))
        return None

    def _debt(self, g, pid: int, tx) -> dict | None:
        tid = tx.id
        if tx.a != pid:                          # creditor: agree once the debtor has finished
            if tx.stage[pid] == FINISHED and tx.stage[tx.a] >= FINISHED:
                return act("TRANSACTION_AGREE", tid)
            return None
        left = self.wait.setdefault(tid, self.rng.choice([0, 0, 3, 10, 40]))
        if left > 0:
            self.wait[tid] = left - 1
            return None                          # later: play on (and spend) first
        if tid not in self.too_expensive:
            # the server set it up as paid: agree (a deployed client does no more)
            return act("TRANSACTION_AGREE", tid)
        avail = g.users[pid].cash + g.users[pid].escrow.get(tid, 0)
        if avail < tx.required:
            money = raise_money(g, pid)
            if money is not None:
                return money
            return act("BANKRUPT_TRANSACTION", tid)
        if tx.cash[pid] != tx.required:
            return act("TRANSACTION_SET_CASH", tid, tx.required)
        if tx.stage[pid] == SETUP:
            return act("TRANSACTION_FINISH", tid)
        return act("TRANSACTION_AGREE", tid)

    def _spend_or_raise(self, g, pid: int) -> dict | None:
        """Before rolling: build, unmortgage, mortgage or sell, at random."""
        r = self.rng
        options = []
        for p in g.owned_by(pid):
            prop = g.board.properties[p]
            if g.mortgaged[p]:
                options.append(act("UNMORTGAGE_PROPERTY", p))
            elif not g.level[p]:
                options.append(act("MORTGAGE_PROPERTY", p))
            if prop.kind == COLOUR and owns_group(g.board, g.owner, p) and g.level[p] < 4:
                options.append(act("PURCHASE_HOUSES", [[p, 1, 0]]))
            if g.level[p] and g.level[p] < 5:
                options.append(act("PURCHASE_HOUSES", [[p, -1, 0]]))
        if r.random() < 0.2:
            money = raise_money(g, pid)
            if money is not None:
                options.append(money)
        return r.choice(options) if options else None
