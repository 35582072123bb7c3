"""Transactions: trades between players and the debts the server opens (rent, card, square,
bank, jail), with the three stages (set up, finished, agreed), escrow and their errors.

A side's offer is cash, properties and get-out-of-jail cards.  Editing an
offer reopens the editor (back to set up) and drops an agreed other side to
finished.  A debt starts with the debtor offering what is owed (finished) and a
player creditor agreed; one the debtor cannot pay at once starts at cash 0,
"unusual", with the debtor in set up.  The bank side of a square, bank or
jail debt agrees as soon as the debtor has finished with a suitable offer
(enough cash, or for bail a jail card).  Cash the bank owes a debtor is held
in escrow against the oldest debt and released, first, when it is settled.
"""
from __future__ import annotations

from .state import (AGREED, BANK, BANK_SIDE, CARD, FINISHED, JAIL, RENT, SETUP, SQUARE, TRADE,
                    Msg, PimpError, Transaction, invalid, unexpected)

_REQUESTED = {RENT: "TRANSACTION_RENT_REQUESTED", CARD: "TRANSACTION_CARD_REQUESTED"}


class TransactionsMixin:
    # -- opening -----------------------------------------------------------
    def _open_trade(self, a: int, b: int) -> Transaction:
        tx = Transaction(self._new_id(), TRADE, a, b)
        for s in (a, b):
            tx.cash[s], tx.props[s], tx.cards[s], tx.stage[s] = 0, set(), set(), SETUP
        self._to(a, *self._requested(tx, a))
        self._to(b, *self._requested(tx, b))
        self.transactions[tx.id] = tx
        return tx

    def _open_debt(self, kind: str, debtor: int, creditor: int, amount: int,
                   square: int = 0, subject: int = 0) -> Transaction:
        """Open a debt of ``amount`` from ``debtor`` to ``creditor`` (0: the bank or a square)."""
        b = 0 if kind in BANK_SIDE else creditor
        tx = Transaction(self._new_id(), kind, debtor, b, creditor, amount, square, subject)
        for s in (debtor, b):
            tx.cash[s], tx.props[s], tx.cards[s] = 0, set(), set()
        self.transactions[tx.id] = tx
        cash = self.users[debtor].cash
        jail_cards = self.cards_of(debtor) if kind == JAIL else []
        payable = cash >= amount or bool(jail_cards)
        tid = tx.id
        if payable:
            tx.stage[debtor], tx.stage[b] = FINISHED, AGREED
        else:
            tx.stage[debtor], tx.stage[b] = SETUP, FINISHED
            tx.unusual = True
        if b:
            self._to(b, *self._requested(tx, b))
            self._to(b, "TRANSACTION_FINISHED", tid)
            if payable:
                tx.cash[debtor] = amount
                self._to(b, "TRANSACTION_OTHER_CASH_SET", tid, amount)
                self._to(b, "TRANSACTION_OTHER_FINISHED", tid)
                self._to(b, "TRANSACTION_AGREED", tid)
            else:
                self._to(b, "TRANSACTION_OTHER_CASH_SET", tid, 0)
                self._to(b, "TRANSACTION_UNUSUAL", tid)
        self._to(debtor, *self._requested(tx, debtor))
        self._to(debtor, "TRANSACTION_OTHER_FINISHED", tid)
        if cash >= amount:
            tx.cash[debtor] = amount
            self._to(debtor, "TRANSACTION_CASH_SET", tid, amount)
        elif jail_cards:
            tx.cards[debtor].add(jail_cards[0])
            self._to(debtor, "TRANSACTION_CARD_ADDED", tid, jail_cards[0])
        else:
            self._to(debtor, "ERROR_TRANSACTION_TOO_EXPENSIVE", tid, amount)
            self._to(debtor, "TRANSACTION_CASH_SET", tid, 0)
            self._to(debtor, "TRANSACTION_UNUSUAL", tid)
        if payable:
            self._to(debtor, "TRANSACTION_FINISHED", tid)
            self._to(debtor, "TRANSACTION_OTHER_AGREED", tid)
        return tx

    def transactions_view(self, pid: int) -> list:
        """For a dump (rejoin, state request): each open transaction of ``pid`` as the
        "S=>C" messages that bring a client to its current point (opening, both offers,
        unusual, the stages), so a player who dropped mid-deal can finish it."""
        out = []
        for tx in self.transactions.values():
            if pid not in (tx.a, tx.b) or pid == 0:
                continue
            tid, other, to = tx.id, tx.other(pid), (pid,)
            name, *args = self._requested(tx, pid)
            out.append(Msg(name, tuple(args), to))
            for side, pre in ((pid, "TRANSACTION_"), (other, "TRANSACTION_OTHER_")):
                if side == 0:
                    continue
                out.append(Msg(pre + "CASH_SET", (tid, tx.cash[side]), to))
                out += [Msg(pre + "PROPERTY_ADDED", (tid, p), to) for p in sorted(tx.props[side])]
                out += [Msg(pre + "CARD_ADDED", (tid, c), to) for c in sorted(tx.cards[side])]
            if tx.unusual:
                out.append(Msg("TRANSACTION_UNUSUAL", (tid,), to))
            for stage, suffix in ((FINISHED, "FINISHED"), (AGREED, "AGREED")):
                if tx.stage[pid] >= stage:
                    out.append(Msg("TRANSACTION_" + suffix, (tid,), to))
                if tx.stage[other] >= stage:
                    out.append(Msg("TRANSACTION_OTHER_" + suffix, (tid,), to))
            if tx.id in self.users[pid].escrow:
                out.append(Msg("MONEY_BEING_HELD_IN_ESCROW", (pid, tid, self.users[pid].escrow[tid]), to))
        return out

    # -- helpers -----------------------------------------------------------
    @staticmethod
    def _requested(tx: Transaction, pid: int) -> tuple:
        """The message that opens ``tx`` for ``pid``: (name, *args)."""
        if tx.kind == TRADE:
            return ("TRANSACTION_TRADE_REQUESTED", tx.id, tx.other(pid))
        if tx.kind in _REQUESTED:
            return (_REQUESTED[tx.kind], tx.id, tx.other(pid), tx.subject, tx.creditor, tx.required)
        if tx.kind == SQUARE:
            return ("TRANSACTION_SQUARE_REQUESTED", tx.id, tx.square, tx.required)
        name = "TRANSACTION_BANK_REQUESTED" if tx.kind == BANK else "TRANSACTION_JAIL_REQUESTED"
        return (name, tx.id, tx.required)

    def _tx_for(self, pid: int, tid: int, code: str) -> Transaction:
        tx = self.transactions.get(tid)
        if tx is None or pid not in (tx.a, tx.b) or pid == 0:
            raise invalid(code, f"you are in no transaction {tid}")
        return tx

    def _tell_other(self, tx: Transaction, pid: int, name: str, *args) -> None:
        other = tx.other(pid)
        if other:
            self._to(other, name, *args)

    def _available(self, tx: Transaction, pid: int) -> int:
        """Cash ``pid`` can put into ``tx``: their cash plus what escrow holds for it."""
        return self.users[pid].cash + self.users[pid].escrow.get(tx.id, 0)

    def _suitable(self, tx: Transaction) -> bool:
        if tx.kind == JAIL and tx.cards[tx.a]:
            return True
        return tx.cash[tx.a] >= tx.required

    def _reopen(self, tx: Transaction, pid: int) -> None:
        """``pid`` is changing ``tx``: back to set up, an agreed other side down to finished."""
        if tx.stage[pid] == SETUP:
            return
        other = tx.other(pid)
        tx.stage[pid] = SETUP
        self._to(pid, "TRANSACTION_REOPENED", tx.id)
        self._tell_other(tx, pid, "TRANSACTION_OTHER_REOPENED", tx.id)
        if tx.stage[other] == AGREED:
            tx.stage[other] = FINISHED
            if other:
                self._to(other, "TRANSACTION_FINISHED", tx.id)
            self._to(pid, "TRANSACTION_OTHER_FINISHED", tx.id)

    def _mark_unusual(self, tx: Transaction) -> None:
        if tx.is_debt and not tx.unusual:
            tx.unusual = True
            for s in tx.sides():
                self._to(s, "TRANSACTION_UNUSUAL", tx.id)

    def _sync_offers(self, pid: int) -> None:
        """``pid`` lost cash, a property or a card: take it out of their offers."""
        for tx in list(self.transactions.values()):
            if pid not in (tx.a, tx.b) or pid == 0:
                continue
            gone_props = [p for p in tx.props[pid] if self.owner[p] != pid]
            gone_cards = [c for c in tx.cards[pid] if self.card_owner.get(c) != pid]
            short = tx.cash[pid] > self._available(tx, pid)
            if not (gone_props or gone_cards or short):
                continue
            covered = tx.is_debt and pid == tx.a and self._suitable(tx)
            self._reopen(tx, pid)
            for p in sorted(gone_props):
                tx.props[pid].discard(p)
                self._to(pid, "TRANSACTION_PROPERTY_REMOVED", tx.id, p)
                self._tell_other(tx, pid, "TRANSACTION_OTHER_PROPERTY_REMOVED", tx.id, p)
            for c in sorted(gone_cards):
                tx.cards[pid].discard(c)
                self._to(pid, "TRANSACTION_CARD_REMOVED", tx.id, c)
                self._tell_other(tx, pid, "TRANSACTION_OTHER_CARD_REMOVED", tx.id, c)
            if covered and not self._suitable_with(tx, self._available(tx, pid)):
                self._now_unaffordable(tx)
            elif short:
                tx.cash[pid] = self._available(tx, pid)
                self._to(pid, "TRANSACTION_CASH_SET", tx.id, tx.cash[pid])
                self._tell_other(tx, pid, "TRANSACTION_OTHER_CASH_SET", tx.id, tx.cash[pid])

    def _suitable_with(self, tx: Transaction, cash: int) -> bool:
        """Would the debtor's offer cover ``tx`` with ``cash`` put in?"""
        return cash >= tx.required or (tx.kind == JAIL and bool(tx.cards[tx.a]))

    def _now_unaffordable(self, tx: Transaction) -> None:
        """The debtor of ``tx`` can no longer pay it in cash: said exactly as for a debt that
        cannot be paid when it is opened (too expensive, cash 0, unusual), so that a client
        which raises money only on those messages does so (a debt said only to be reopened
        and cut down stalled such clients for ever)."""
        tid, debtor = tx.id, tx.a
        tx.cash[debtor] = 0
        tx.unusual = True
        self._to(debtor, "ERROR_TRANSACTION_TOO_EXPENSIVE", tid, tx.required)
        self._to(debtor, "TRANSACTION_CASH_SET", tid, 0)
        self._tell_other(tx, debtor, "TRANSACTION_OTHER_CASH_SET", tid, 0)
        for s in tx.sides():
            self._to(s, "TRANSACTION_UNUSUAL", tid)

    # -- client messages ---------------------------------------------------
    def _on_TRANSACTION_REQUEST_TRADE(self, pid: int, other: int) -> None:
        me = self.users.get(pid)
        them = self.users.get(other)
        if me is None or not me.playing or them is None or not them.playing or other == pid:
            raise invalid("TRANSACTION_REQUEST_TRADE", "trades are between two players")
        self._open_trade(pid, other)

    def _on_TRANSACTION_SET_CASH(self, pid: int, tid: int, cash: int) -> None:
        tx = self._tx_for(pid, tid, "TRANSACTION_SET_CASH")
        old = tx.cash[pid]
        if cash > self._available(tx, pid):
            raise PimpError(f"you cannot afford {cash}", ("ERROR_TRANSACTION_TOO_EXPENSIVE", tid, cash),
                            ("TRANSACTION_CASH_SET", tid, old))
        if cash == old:
            self._to(pid, "TRANSACTION_CASH_SET", tid, cash)
            return
        self._reopen(tx, pid)
        tx.cash[pid] = cash
        self._to(pid, "TRANSACTION_CASH_SET", tid, cash)
        self._tell_other(tx, pid, "TRANSACTION_OTHER_CASH_SET", tid, cash)
        if tx.is_debt and (pid != tx.a or cash != tx.required):
            self._mark_unusual(tx)

    def _on_TRANSACTION_ADD_PROPERTY(self, pid: int, tid: int, prop: int) -> None:
        tx = self._tx_for(pid, tid, "TRANSACTION_ADD_PROPERTY")
        if not 0 <= prop < len(self.owner):
            raise invalid("TRANSACTION_ADD_PROPERTY", f"no property {prop}")
        if self.owner[prop] != pid:
            raise PimpError("you do not own that property", ("ERROR_TRANSACTION_PROPERTY_NOT_OWNED", tid, prop))
        if prop in tx.props[pid]:
            return
        self._reopen(tx, pid)
        tx.props[pid].add(prop)
        self._to(pid, "TRANSACTION_PROPERTY_ADDED", tid, prop)
        self._tell_other(tx, pid, "TRANSACTION_OTHER_PROPERTY_ADDED", tid, prop)
        self._mark_unusual(tx)

    def _on_TRANSACTION_REMOVE_PROPERTY(self, pid: int, tid: int, prop: int) -> None:
        tx = self.transactions.get(tid)
        if tx is None or pid not in (tx.a, tx.b) or prop not in tx.props[pid]:
            return          # "errors from this are ignored"
        self._reopen(tx, pid)
        tx.props[pid].discard(prop)
        self._to(pid, "TRANSACTION_PROPERTY_REMOVED", tid, prop)
        self._tell_other(tx, pid, "TRANSACTION_OTHER_PROPERTY_REMOVED", tid, prop)

    def _on_TRANSACTION_ADD_CARD(self, pid: int, tid: int, card: int) -> None:
        tx = self._tx_for(pid, tid, "TRANSACTION_ADD_CARD")
        if not 0 <= card < len(self.board.cards):
            raise invalid("TRANSACTION_ADD_CARD", f"no card {card}")
        if self.card_owner.get(card) != pid:
            raise PimpError("you do not hold that card", ("ERROR_TRANSACTION_CARD_NOT_OWNED", tid, card))
        if card in tx.cards[pid]:
            return
        self._reopen(tx, pid)
        tx.cards[pid].add(card)
        self._to(pid, "TRANSACTION_CARD_ADDED", tid, card)
        self._tell_other(tx, pid, "TRANSACTION_OTHER_CARD_ADDED", tid, card)
        if tx.kind != JAIL:
            self._mark_unusual(tx)

    def _on_TRANSACTION_REMOVE_CARD(self, pid: int, tid: int, card: int) -> None:
        tx = self.transactions.get(tid)
        if tx is None or pid not in (tx.a, tx.b) or card not in tx.cards[pid]:
            return
        self._reopen(tx, pid)
        tx.cards[pid].discard(card)
        self._to(pid, "TRANSACTION_CARD_REMOVED", tid, card)
        self._tell_other(tx, pid, "TRANSACTION_OTHER_CARD_REMOVED", tid, card)

    def _on_TRANSACTION_FINISH(self, pid: int, tid: int) -> None:
        tx = self._tx_for(pid, tid, "TRANSACTION_FINISH")
        if tx.stage[pid] != SETUP:
            return
        tx.stage[pid] = FINISHED
        self._to(pid, "TRANSACTION_FINISHED", tid)
        self._tell_other(tx, pid, "TRANSACTION_OTHER_FINISHED", tid)
        if tx.b == 0:
            # the bank side agrees to a suitable offer; otherwise it says what it needs
            if self._suitable(tx):
                tx.stage[0] = AGREED
                self._to(pid, "TRANSACTION_OTHER_AGREED", tid)
            else:
                self._to(pid, "ERROR_TRANSACTION_NOT_SUITABLE", tid, tx.required)

    def _on_TRANSACTION_REOPEN(self, pid: int, tid: int) -> None:
        tx = self._tx_for(pid, tid, "TRANSACTION_REOPEN")
        self._reopen(tx, pid)
        if tx.b == 0:
            tx.stage[0] = FINISHED

    def _on_TRANSACTION_AGREE(self, pid: int, tid: int) -> None:
        tx = self._tx_for(pid, tid, "TRANSACTION_AGREE")
        other = tx.other(pid)
        if tx.stage[pid] == AGREED:
            return
        if tx.stage[pid] != FINISHED or tx.stage[other] == SETUP:
            raise unexpected("TRANSACTION_AGREE", "both sides must finish setting up first")
        for prop in sorted(tx.props[pid]):
            if self.level[prop]:
                raise PimpError("sell the buildings first", ("ERROR_TRANSACTION_PROPERTY_HAS_HOUSE", tid, prop))
        if tx.cash[pid] > self._available(tx, pid):
            raise PimpError("you cannot afford that", ("ERROR_TRANSACTION_TOO_EXPENSIVE", tid, tx.cash[pid]),
                            ("TRANSACTION_CASH_SET", tid, tx.cash[pid]))
        if tx.b == 0 and not self._suitable(tx):
            raise PimpError("the offer does not cover the debt",
                            ("ERROR_TRANSACTION_NOT_SUITABLE", tid, tx.required))
        self._check_net_worth(tx, pid)
        tx.stage[pid] = AGREED
        if tx.b == 0:
            tx.stage[0] = AGREED
        self._to(pid, "TRANSACTION_AGREED", tid)
        self._tell_other(tx, pid, "TRANSACTION_OTHER_AGREED", tid)
        if tx.stage[other] == AGREED:
            self._finalise(tx)

    def _check_net_worth(self, tx: Transaction, pid: int) -> None:
        """A player who owes an older debt may not give away more than they receive below it."""
        debts = [d for d in self.debts_of(pid) if d.id != tx.id]
        if not debts:
            return
        if tx.is_debt and tx.a == pid and tx.id < debts[0].id:
            return          # settling the oldest debt is always allowed
        other = tx.other(pid)
        give = tx.cash[pid] + sum(self._prop_value(p) for p in tx.props[pid])
        get = (tx.cash[other] + sum(self._prop_value(p) for p in tx.props[other])) if other else 0
        owed = sum(d.required for d in debts)
        # only a deal that leaves them poorer can be refused: taking money is always fine
        if give > get and self.liquid(pid) - give + get < owed:
            raise PimpError("that would leave you unable to pay your debts",
                            ("ERROR_TRANSACTION_WOULD_REDUCE_NET_WORTH", tx.id, debts[0].id))

    def _prop_value(self, prop: int) -> int:
        return 0 if self.mortgaged[prop] else self.board.properties[prop].mortgage

    def _on_TRANSACTION_CANCEL(self, pid: int, tid: int) -> None:
        tx = self._tx_for(pid, tid, "TRANSACTION_CANCEL")
        if tx.is_debt:
            raise PimpError("a debt cannot be cancelled", ("ERROR_TRANSACTION_CANNOT_BE_CANCELLED", tid))
        self._cancel(tx)

    def _cancel(self, tx: Transaction) -> None:
        del self.transactions[tx.id]
        for s in tx.sides():
            self._to(s, "TRANSACTION_CANCELLED", tx.id)
            if s:
                self.users[s].escrow.pop(tx.id, None)

    # -- settling ------------------------------------------------------------
    def _finalise(self, tx: Transaction) -> None:
        del self.transactions[tx.id]
        a, b = tx.a, tx.b
        for s in tx.sides():
            self._to(s, "TRANSACTION_FINALISED", tx.id)
        self._cash(0, a, self.users[a].escrow.pop(tx.id, 0))     # escrow first
        for src, dst in ((a, b), (b, a)):
            if src == 0:
                continue
            self._cash(src, dst, tx.cash[src])
            for prop in sorted(tx.props[src]):
                if self.owner[prop] == src:
                    self._give_property(prop, dst)
            for card in sorted(tx.cards[src]):
                if self.card_owner.get(card) == src:
                    self._give_card(card, dst)
        if tx.kind == JAIL:
            if tx.cards[a]:
                self._all("SQUARE_TAKES_CARD", a, self.board.jail_square, min(tx.cards[a]))
            else:
                self._all("SQUARE_TAKES_CASH", a, self.board.jail_square, tx.cash[a])
            self.users[a].jail = 0
            self._all("JAIL_FREE", a)
        elif tx.kind == SQUARE:
            self._all("SQUARE_TAKES_CASH", a, tx.square, tx.cash[a])
        self._settle()
