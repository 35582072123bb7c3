"""A player that pays late and learns whether it can pay only from the messages, as deployed
clients do (issue 15): it takes a debt the server set up as paid (cash set, finished) as
payable and just agrees to it, and raises money (sells, mortgages) only once the server says
``ERROR_TRANSACTION_TOO_EXPENSIVE`` for it.  Otherwise it plays as the random bot does (buys,
builds, mortgages and unmortgages at random), so its cash often drops below a debt it has not
paid yet.

``LatePayer(pid, seed).choose(g, pid)`` is a bot for ``selfplay.play_game``; ``hear(msgs)``
must be given every message the engine sends (it keeps those addressed to it).  It reads the
engine's public state for the rest (what it owns, the stages), which a client knows from the
messages too.
"""
from __future__ import annotations

from gamehall_pimp.bots import RandomBot, act, raise_money
from gamehall_pimp.state import FINISHED, SETUP


class LatePayer(RandomBot):
    name = "late"

    def __init__(self, pid: int, seed: int):
        super().__init__(seed)
        self.pid = pid
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

    def _debts(self, g, pid: int) -> dict | None:
        for tx in g.debts_of(pid) + [t for t in g.transactions_of(pid) if t.is_debt and t.a != pid]:
            action = self._debt(g, pid, tx)
            if action is not None:
                return action
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
