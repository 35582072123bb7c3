"""Leaving play: bankruptcy, transferring everything (quit, takeover), the kick vote, the winner.

An estate goes to the bank (buildings back to the bank's supply, mortgages
cleared, jail cards back under their decks) or to a player (who gets the
cash, the properties as they are and the cards; with a bankruptcy to a player
the buildings are sold to the bank at half price for the creditor, who pays
10% interest at once on each mortgaged property received, or owes it as a bank
transaction).
"""
from __future__ import annotations

from .buildings import houses_hotels
from .core import AUCTION, LOBBY, OVER
from .state import BANK, PimpError, invalid


class BankruptcyMixin:
    # -- estates ---------------------------------------------------------------
    def _sell_buildings(self, pid: int) -> int:
        """Return every building of ``pid`` to the bank; the half-price value."""
        value = 0
        for prop in self.owned_by(pid):
            if self.level[prop]:
                value += self.level[prop] * self.board.properties[prop].house_cost // 2
                self.level[prop] = 0
                self._all("DELTA_HOUSES_PURCHASED", pid, prop, *houses_hotels(0))
        if value:
            self._all("DELTA_BANK", *self.bank_supply())
        return value

    def _estate_to(self, pid: int, heir: int, sell_buildings: bool) -> int:
        """Move ``pid``'s cash, properties and cards to ``heir`` (0: the bank); the interest due."""
        u = self.users[pid]
        u.escrow.clear()
        if heir == 0:
            self._sell_buildings(pid)
        elif sell_buildings:
            self._cash(0, pid, self._sell_buildings(pid))
        self._cash(pid, heir, u.cash)
        interest = 0
        for prop in self.owned_by(pid):
            if heir and self.mortgaged[prop]:
                interest += self.board.properties[prop].mortgage // 10
            self._give_property(prop, heir)
        for card in self.cards_of(pid):
            self._give_card(card, heir)
        return interest

    def _leave_play(self, pid: int) -> None:
        """``pid`` stops playing: their claims and transactions go, their part in an auction ends."""
        for tx in self.transactions_of(pid):
            self._cancel(tx)
        self.claims = [c for c in self.claims if pid not in (c.claimant, c.debtor)]
        self.kick_votes.discard(pid)
        u = self.users[pid]
        u.playing = False
        u.jail = 0
        u.square = 0
        u.passed_go = False
        a = self.auction
        if a is not None and a.leader == pid:
            a.leader, a.high = 0, 0

    def _after_leaving(self, pid: int, was_turn: bool) -> None:
        """Next turn if it was theirs, and the winner once one player is left."""
        players = self.playing()
        if len(players) == 1 and self.phase != LOBBY:
            return
        if was_turn:
            self._abandon_turn()
            self._next_turn()
        elif self.phase == AUCTION:
            self._close_auction_if_done()

    def _abandon_turn(self) -> None:
        if self.auction is not None:
            self.auction = None
            self._all("PROPERTY_AUCTION_VOID")
        self.sale = self.tax_square = -1

    def _check_winner(self) -> None:
        players = self.playing()
        if len(players) == 1 and self.phase not in (LOBBY, OVER):
            self._end_game(players[0], "last_player")

    def _end_game(self, pid: int, reason: str) -> None:
        self.winner, self.end_reason, self.phase = pid, reason, OVER
        self.auction = None
        self._all("PLAYER_WON", pid)

    # -- bankruptcy -----------------------------------------------------------
    def _on_BANKRUPT_TRANSACTION(self, pid: int, tid: int) -> None:
        tx = self.transactions.get(tid)
        if tx is None or not tx.is_debt or tx.a != pid:
            raise invalid("BANKRUPT_TRANSACTION", "no debt of yours")
        older = [t.id for t in self.transactions_of(pid) if t.id < tid]
        if older:
            raise PimpError("settle older transactions first", ("ERROR_TRANSACTION_NOT_BANKRUPT", tid, older[0]))
        if self.liquid(pid) + self.users[pid].escrow.get(tid, 0) >= tx.required:
            raise PimpError("you can still pay", ("ERROR_TRANSACTION_NOT_BANKRUPT", tid, 0))
        was_turn = pid == self.turn
        creditor = tx.creditor
        self._leave_play(pid)
        self._all("PLAYER_BECAME_OBSERVER_BANKRUPT", pid)
        if creditor and not self.options["bankrupt_to_bank"] and self.users[creditor].playing:
            interest = self._estate_to(pid, creditor, sell_buildings=True)
            self._charge_interest(creditor, interest)
            self._after_leaving(pid, was_turn)
        else:
            self._estate_to(pid, 0, sell_buildings=True)
            self._after_leaving(pid, was_turn)
            if creditor and self.users[creditor].playing:
                self._bank_pays(creditor, tx.required)
        self._check_winner()

    def _charge_interest(self, pid: int, interest: int) -> None:
        if interest <= 0:
            return
        if self.users[pid].cash >= interest:
            self._cash(pid, 0, interest)
        else:
            self._open_debt(BANK, pid, 0, interest)

    # -- transfer, takeover --------------------------------------------------
    def _on_TRANSFER(self, pid: int, heir: int) -> None:
        u = self.users.get(pid)
        if u is None or not u.playing or heir == pid or (heir and heir not in self.users):
            raise invalid("TRANSFER", "transfer to the bank (0) or another user")
        txs = self.transactions_of(pid)
        if txs:
            raise PimpError("finish your transaction first",
                            ("ERROR_CANNOT_TRANSFER_DURING_TRANSACTION", txs[0].id))
        if any(pid in (c.claimant, c.debtor) for c in self.claims):
            raise PimpError("a claim is pending", ("ERROR_CANNOT_TRANSFER_DURING_TRANSACTION", 0))
        was_turn = pid == self.turn
        if heir and not self.users[heir].playing:
            self._takeover(pid, heir, was_turn)
            return
        self._leave_play(pid)
        self._estate_to(pid, heir, sell_buildings=False)
        self._after_leaving(pid, was_turn)
        self._all("PLAYER_BECAME_OBSERVER_TRANSFER", pid)
        self._check_winner()

    def _takeover(self, pid: int, heir: int, was_turn: bool) -> None:
        """Observer ``heir`` takes over ``pid``'s piece, place and everything ``pid`` owns."""
        old, new = self.users[pid], self.users[heir]
        self._all("PLAYER_TAKEOVER", heir, pid)
        new.playing = True
        new.piece, new.square, new.jail, new.passed_go = old.piece, old.square, old.jail, old.passed_go
        self._estate_to(pid, heir, sell_buildings=False)
        old.playing, old.jail, old.square, old.passed_go = False, 0, 0, False
        self.kick_votes.discard(pid)
        a = self.auction
        if a is not None:
            if a.leader == pid:
                a.leader = heir
            if pid in a.passed:
                a.passed.discard(pid)
                a.passed.add(heir)
        if was_turn:
            self.turn = heir
        self._all("PLAYER_BECAME_OBSERVER_TRANSFER", pid)

    # -- kick vote -------------------------------------------------------------
    def _on_KICK(self, pid: int, target: int) -> None:
        if target not in self.users:
            raise invalid("KICK", "no such player")
        if target != self.turn or self.phase in (LOBBY, OVER) or pid == target:
            return          # "only has an effect if it is that player's turn"
        self.kick_votes.add(pid)
        voters = [q for q, u in self.users.items() if not u.afk and q != target]
        if len(self.kick_votes & set(voters)) * 2 <= len(voters):
            return
        self._leave_play(target)
        self._estate_to(target, 0, sell_buildings=True)
        self._abandon_turn()
        if len(self.playing()) > 1:
            self._next_turn()
        self._all("PLAYER_BECAME_OBSERVER_KICKED", target)
        self._check_winner()

