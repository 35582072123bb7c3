"""Dice, moving round the board, what each square does, and the Go and rent claims.

Salary and rent are not paid by themselves: passing or landing on Go and
landing on another player's unmortgaged property create a claim (with an id
from the shared transaction counter), which the player or owner claims with
CLAIM_GO / CLAIM_RENT.  The first roll (or jail choice) of the next turn
declares the moratorium: every unclaimed claim is lost.
"""
from __future__ import annotations

from .core import BUY, JAIL, MOVED, ROLL, TAX, WAIT
from .rent import NEAREST_RAILROAD, NEAREST_UTILITY, rent
from .state import RENT, SQUARE, Claim, PimpError, unexpected


class MovesMixin:
    def _roll(self) -> tuple[int, int]:
        d = (self.rng.randint(1, 6), self.rng.randint(1, 6))
        self.dice = d
        return d

    def _moratorium(self) -> None:
        """The first roll or jail choice of a turn: unclaimed salary and rent are lost."""
        if not self.rolled:
            self.rolled = True
            if self.claims:
                self.claims.clear()
                self._all("RENT_COLLECTION_MORATORIUM")

    def _require_turn(self, pid: int, phase: str, code: str) -> None:
        if pid != self.turn or self.phase != phase:
            raise unexpected(code, "not now")

    # -- turns ---------------------------------------------------------------
    def _start_turn(self, pid: int) -> None:
        self.turn = pid
        self.turns += 1
        self.doubles = 0
        self.rolled = False
        self.kick_votes.clear()
        u = self.users[pid]
        self._all("START_OF_TURN", pid, not u.jail)
        if u.jail:
            self.phase = JAIL
            self._all("JAIL_PAY_OR_ROLL", pid, self.board.max_jail_turns - u.jail + 1, True)
        else:
            self.phase = ROLL

    def _next_turn(self) -> None:
        players = self.playing()
        if not players:
            return
        limit = self.options["max_turns"]
        if limit and self.turns >= limit:
            self._end_game(max(players, key=lambda p: (self.net_worth(p), -p)), "turn_limit")
            return
        later = [p for p in players if p > self.turn]
        self._start_turn(later[0] if later else players[0])

    def _settle(self) -> None:
        """Finish the move once nothing holds it up: roll again after doubles or pass the turn."""
        if self.phase not in (MOVED, WAIT):
            return
        tx = self.blocking()
        if tx is not None:
            if self.phase != WAIT or self._waiting_on != tx.id:
                self.phase = WAIT
                self._waiting_on = tx.id
                self._all("WAITING_FOR_TRANSACTION", tx.a, tx.id)
            return
        self._waiting_on = 0
        pid = self.turn
        if self.cont == "again" and not self.users[pid].jail:
            self.phase = ROLL
            self._all("ROLL_AGAIN", pid)
        else:
            self._next_turn()

    # -- dice ----------------------------------------------------------------
    def _on_THROW_DICE(self, pid: int) -> None:
        self._require_turn(pid, ROLL, "THROW_DICE")
        self._moratorium()
        d1, d2 = self._roll()
        self._all("DICE_ROLLED", pid, d1, d2)
        self.phase, self.cont = MOVED, "again" if d1 == d2 else "next"
        if d1 == d2:
            self.doubles += 1
            if self.doubles == 3:
                self._all("THREE_DOUBLES", pid)
                self._all("DICE_MOVED_PLAYER", pid, self.board.jail_square, 0)
                self._go_to_jail(pid)
                self._settle()
                return
        target = (self.users[pid].square + d1 + d2) % self.board.n_squares
        self._all("DICE_MOVED_PLAYER", pid, target, d1 + d2)
        self._walk(pid, target)
        self._land(pid, target, None)
        self._settle()

    def _walk(self, pid: int, target: int, step: int = 1) -> None:
        """Move square by square to ``target``: passing messages (and Go claims), then the landing."""
        u = self.users[pid]
        n = self.board.n_squares
        s = (u.square + step) % n
        while s != target:
            self._all("PLAYER_PASSING_BY_SQUARE", pid, s)
            if s == 0 and step > 0:
                self._claim_salary(pid, landing=False)
            s = (s + step) % n
        u.square = target
        self._all("PLAYER_LANDING_ON_SQUARE", pid, target)
        if target == 0:
            self._claim_salary(pid, landing=True)

    def _go_to_jail(self, pid: int) -> None:
        jail = self.board.jail_square
        self._all("GOING_TO_JAIL", pid, jail)
        self._all("PLAYER_LANDING_ON_SQUARE", pid, jail)
        u = self.users[pid]
        u.square = jail
        u.jail = 1

    # -- squares -------------------------------------------------------------
    def _land(self, pid: int, square: int, card_rule: str | None) -> None:
        kind, prop = self.board.squares[square]
        if kind == "property":
            self._land_property(pid, prop, card_rule)
        elif kind in ("chance", "chest"):
            self._draw_card(pid, kind, square)
        elif kind == "income_tax":
            self.phase, self.tax_square = TAX, square
            self._all("TAX_SELECT_OPTION", pid, square)
        elif kind == "luxury_tax":
            self._fine(pid, square, self.board.luxury_tax)
        elif kind == "free_parking":
            if self.options["pot"]:
                won = self.pot
                self._all("SQUARE_GIVES_CASH", pid, square, won)
                self._bank_pays(pid, won)
                self.pot = self.board.pot_reset
                self._all("DELTA_POT", self.pot)
        elif kind == "go_to_jail":
            self._all("SQUARE_MOVED_PLAYER", pid, square, self.board.jail_square)
            self._go_to_jail(pid)

    def _land_property(self, pid: int, prop: int, card_rule: str | None) -> None:
        owner = self.owner[prop]
        if owner == 0:
            if self.options["must_pass_go"] and not self.users[pid].passed_go:
                return
            self.phase, self.sale = BUY, prop
            self._all("PROPERTY_SALE", pid, prop, self.board.properties[prop].price)
        elif owner != pid and not self.mortgaged[prop]:
            total = sum(self.dice)
            if card_rule == NEAREST_UTILITY:
                d1, d2 = self._roll()
                self._all("DICE_ROLLED", pid, d1, d2)
                total = d1 + d2
            amount = rent(self.board, self.owner, self.level, prop, total, card_rule)
            self.claims.append(Claim(self._new_id(), "rent", owner, pid, prop, amount))

    def _fine(self, pid: int, square: int, amount: int) -> None:
        """A tax or card fine: paid at once to the pot, or a square debt that holds up the game."""
        if self.users[pid].cash >= amount:
            self._all("SQUARE_TAKES_CASH", pid, square, amount)
            self._to_pot(pid, amount)
        else:
            self._open_debt(SQUARE, pid, 0, amount, square=square)

    def _on_TAX_PAY_TEN_PERCENT(self, pid: int) -> None:
        self._require_turn(pid, TAX, "TAX_PAY_TEN_PERCENT")
        self.phase = MOVED
        self._fine(pid, self.tax_square, self.income_tax_percent(pid))
        self._settle()

    def _on_TAX_PAY_FLAT_FEE(self, pid: int) -> None:
        self._require_turn(pid, TAX, "TAX_PAY_FLAT_FEE")
        self.phase = MOVED
        self._fine(pid, self.tax_square, self.board.income_tax_flat)
        self._settle()

    def income_tax_percent(self, pid: int) -> int:
        """10% of cash + the full price of every owned property + house cost per house and hotel."""
        total = self.users[pid].cash
        for p in self.owned_by(pid):
            prop = self.board.properties[p]
            lv = self.level[p]
            total += prop.price + prop.house_cost * (1 if lv == 5 else lv)
        return total // 10

    # -- buying --------------------------------------------------------------
    def _on_BUY_PROPERTY(self, pid: int) -> None:
        self._require_turn(pid, BUY, "BUY_PROPERTY")
        prop = self.board.properties[self.sale]
        if self.users[pid].cash < prop.price:
            raise PimpError("too expensive", ("ERROR_PROPERTY_TOO_EXPENSIVE", prop.id, prop.price))
        debts = self.debts_of(pid)
        if debts and self.liquid(pid) - prop.price + prop.mortgage < sum(d.required for d in debts):
            raise PimpError("you owe more than that would leave you",
                            ("ERROR_PROPERTY_WOULD_REDUCE_NET_WORTH", prop.id, debts[0].id))
        self.sale = -1
        self.phase = MOVED
        self._all("SQUARE_TAKES_CASH", pid, prop.square, prop.price)
        self._cash(pid, 0, prop.price)
        self._give_property(prop.id, pid)
        self._settle()

    # -- claims --------------------------------------------------------------
    def _claim_salary(self, pid: int, landing: bool) -> None:
        u = self.users[pid]
        u.passed_go = True
        amount = self.board.salary * (2 if landing and self.options["double_go"] else 1)
        self.claims.append(Claim(self._new_id(), "go", pid, 0, 0, amount))

    def _on_CLAIM_GO(self, pid: int, square: int) -> None:
        for c in self.claims:
            if c.kind == "go" and c.claimant == pid and c.property == square:
                break
        else:
            raise PimpError("you are not owed salary", ("ERROR_INVALID_GO_CLAIM",))
        self.claims.remove(c)
        self._all("PLAYER_CLAIMED_GO", pid, square, c.amount)
        self._all("SQUARE_GIVES_CASH", pid, square, c.amount)
        self._bank_pays(pid, c.amount)

    def _on_CLAIM_RENT(self, pid: int, debtor: int, prop: int) -> None:
        for c in self.claims:
            if c.kind == "rent" and c.claimant == pid and c.debtor == debtor and c.property == prop:
                break
        else:
            raise PimpError("you are not owed rent", ("ERROR_INVALID_RENT_CLAIM",))
        self.claims.remove(c)
        self._all("PLAYER_CLAIMED_RENT", pid, debtor, prop, c.amount)
        self._open_debt(RENT, debtor, pid, c.amount, square=self.board.properties[prop].square, subject=prop)

    # -- cards ---------------------------------------------------------------
    def _draw_card(self, pid: int, deck: str, square: int) -> None:
        cid = self.decks[deck].pop(0)
        card = self.board.cards[cid]
        self._all("GOT_CARD", pid, square, cid)
        if card.kind == "jail_free":
            self.card_owner[cid] = pid
            self._all("SQUARE_GIVES_CARD", pid, square, cid)
            self._all("DELTA_CARD", 0, pid, cid)
            return
        self.decks[deck].append(cid)
        kind, arg = card.kind, card.arg
        if kind == "cash":
            if arg >= 0:
                self._all("SQUARE_GIVES_CASH", pid, square, arg)
                self._bank_pays(pid, arg)
            else:
                self._fine(pid, square, -arg)
        elif kind == "repairs":
            houses = hotels = 0
            for p in self.owned_by(pid):
                lv = self.level[p]
                hotels += lv == 5
                houses += lv if lv < 5 else 0
            self._fine(pid, square, houses * arg[0] + hotels * arg[1])
        elif kind == "advance":
            self._card_move(pid, cid, arg, None)
        elif kind in (NEAREST_RAILROAD, NEAREST_UTILITY):
            target = self.board.nearest(square, "railroad" if kind == NEAREST_RAILROAD else "utility")
            self._card_move(pid, cid, target, kind)
        elif kind == "back":
            target = (square - arg) % self.board.n_squares
            self._all("CARD_MOVED_PLAYER", pid, cid, target)
            self._walk(pid, target, step=-1)
            self._land(pid, target, None)
        elif kind == "go_to_jail":
            self._all("CARD_MOVED_PLAYER", pid, cid, self.board.jail_square)
            self._go_to_jail(pid)
        elif kind == "pay_each":
            for other in self.playing():
                if other != pid:
                    self._open_debt("card", pid, other, arg, square=square, subject=cid)
        elif kind == "collect_each":
            for other in self.playing():
                if other != pid:
                    self._open_debt("card", other, pid, arg, square=square, subject=cid)
        else:  # pragma: no cover - the data file is checked by the tests
            raise ValueError(f"unknown card kind {kind}")

    def _card_move(self, pid: int, cid: int, target: int, rule: str | None) -> None:
        self._all("CARD_MOVED_PLAYER", pid, cid, target)
        self._walk(pid, target)
        self._land(pid, target, rule)

    def net_worth(self, pid: int) -> int:
        """Cash plus property prices (half for mortgaged ones) plus what the buildings cost."""
        u = self.users[pid]
        total = u.cash + sum(u.escrow.values())
        for p in self.owned_by(pid):
            prop = self.board.properties[p]
            total += prop.price - (prop.mortgage if self.mortgaged[p] else 0) + self.level[p] * prop.house_cost
        return total

