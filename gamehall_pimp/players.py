"""Users: joining by vote, observers, switching to play, AFK, the state dump.

The first user is admitted at once.  Later candidates queue (first in, first
out); the head of the queue is put to every user (QUERY_JOIN_PLAY/OBSERVE) and
is accepted when yes votes >= (voters + 1) // 2, refused when no votes >
voters // 2, where the voters are the users who are not AFK (observers vote).
The game starts when the second player is accepted, and that player moves
first.  A candidate who is not a user yet is addressed as ``-candidate`` in
the messages' ``to``; the internal message ``_ADMITTED(candidate, user)``
tells a front end which user the candidate became (``_REFUSED(candidate)``
that it was turned away).
"""
from __future__ import annotations

from .core import AUCTION, BUY, JAIL, LOBBY, OVER, ROLL, TAX, WAIT
from .state import Candidate, PimpError, User

MAX_USERS = 255
MAX_NAME_BYTES = 32
PIECES = range(1, 12)


class PlayersMixin:
    # -- joining -------------------------------------------------------------
    def _on_JOIN(self, pid, piece: int, play: bool, name: str) -> None:
        if pid is not None:
            from .state import unexpected
            raise unexpected("JOIN", "you have already joined")
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            raise PimpError("name too long", ("ERROR_UNPARSEABLE",))
        taken = {u.name.casefold() for u in self.users.values()} | {c.name.casefold() for c in self.candidates}
        if not name.strip() or name.casefold() in taken:
            raise PimpError("name in use", ("ERROR_NAME_IN_USE",))
        if len(self.users) + len(self.candidates) >= MAX_USERS:
            raise PimpError("too many users", ("ERROR_TOO_MANY_USERS",))
        c = Candidate(self.next_candidate, name, piece, bool(play))
        self.next_candidate += 1
        self.last_candidate = c.id
        if not self.users:
            self._admit(c)
            return
        self.candidates.append(c)
        self._to(-c.id, "JOIN_PENDING")
        if len(self.candidates) == 1:
            self._query()

    def operator_admit(self, name: str, piece: int, play: bool) -> None:
        """The operator seats a user (e.g. a server bot) at once, without a vote."""
        taken = {u.name.casefold() for u in self.users.values()} | {c.name.casefold() for c in self.candidates}
        if not name.strip() or name.casefold() in taken or len(name.encode("utf-8")) > MAX_NAME_BYTES:
            raise PimpError("name in use", ("ERROR_NAME_IN_USE",))
        if len(self.users) + len(self.candidates) >= MAX_USERS:
            raise PimpError("too many users", ("ERROR_TOO_MANY_USERS",))
        c = Candidate(self.next_candidate, name, piece, play)
        self.next_candidate += 1
        self._admit(c)

    def _on_SWITCH_PLAY(self, pid: int) -> None:
        u = self.users[pid]
        if u.playing or any(c.user == pid for c in self.candidates) or self.phase == OVER:
            return          # "more such messages are silently ignored"
        c = Candidate(self.next_candidate, u.name, u.piece, True, user=pid)
        self.next_candidate += 1
        self.candidates.append(c)
        if len(self.candidates) == 1:
            self._query()

    def _voters(self, c: Candidate) -> list[int]:
        return [q for q, u in self.users.items() if not u.afk and q != c.user]

    def _query(self) -> None:
        """Put the head of the queue to the vote (decided at once when nobody can vote)."""
        while self.candidates:
            c = self.candidates[0]
            name = "QUERY_JOIN_PLAY" if c.play else "QUERY_JOIN_OBSERVE"
            for q in self.users:
                if q != c.user:
                    self._to(q, name, c.id, c.name)
            if not self._decide(c):
                return

    def _decide(self, c: Candidate) -> bool:
        voters = set(self._voters(c))
        yes, no = len(c.yes & voters), len(c.no & voters)
        n = len(voters)
        if yes >= (n + 1) // 2:
            self.candidates.pop(0)
            self._admit(c)
            return True
        if no > n // 2:
            self.candidates.pop(0)
            self._all("JOIN_REFUSED", c.id, c.name)
            self._to(c.user or -c.id, "ERROR_NOT_WELCOME")
            if not c.user:
                self._all("_REFUSED", c.id)
            return True
        return False

    def _vote(self, pid: int, cid: int, accept: bool) -> None:
        if not self.candidates or self.candidates[0].id != cid or self.candidates[0].user == pid:
            return          # "invalid X values are ignored"; so are votes after the decision
        c = self.candidates[0]
        (c.yes if accept else c.no).add(pid)
        (c.no if accept else c.yes).discard(pid)
        if self._decide(c):
            self._query()

    def withdraw_candidate(self, cid: int) -> None:
        """The candidate's connection went away: out of the queue (the next one is put to the vote)."""
        head = bool(self.candidates) and self.candidates[0].id == cid
        self.candidates = [c for c in self.candidates if c.id != cid]
        if head:
            self._query()

    def _on_ACCEPT_JOIN(self, pid: int, cid: int) -> None:
        self._vote(pid, cid, True)

    def _on_REFUSE_JOIN(self, pid: int, cid: int) -> None:
        self._vote(pid, cid, False)

    def _free_piece(self, wanted: int) -> int:
        used = {u.piece for u in self.users.values() if u.playing}
        if wanted in PIECES and wanted not in used:
            return wanted
        free = [p for p in PIECES if p not in used]
        return free[0] if free else (wanted if wanted in PIECES else 1)

    def _admit(self, c: Candidate) -> None:
        start = self.board.start_cash
        if c.user:
            u = self.users[c.user]
            # the piece first, while u is not yet among the players: else its own preferred
            # piece counts as taken and it gets another, which OBSERVER_BECAME_PLAYER (no piece
            # field) cannot tell anyone; clients keep the piece STATE_OBSERVER said it prefers
            u.piece = self._free_piece(u.piece)
            u.playing, u.square, u.jail, u.passed_go = True, 0, 0, False
            self._all("OBSERVER_BECAME_PLAYER", u.id)
            self._cash(0, u.id, start)
        else:
            pid = self.next_user
            self.next_user += 1
            piece = self._free_piece(c.piece) if c.play else c.piece
            u = User(pid, c.name, piece, c.play, self.password_rng.getrandbits(32))
            first = not self.users
            self.users[pid] = u
            self._all("_ADMITTED", c.id, pid)
            if not first:
                others = tuple(q for q in self.users if q != pid)
                welcome = "WELCOME_PLAYER" if c.play else "WELCOME_OBSERVER"
                self.ev.append(self._msg(welcome, (pid, piece, c.name), others))
            self._to(pid, "WELCOME_DETAILS", pid, u.password)
            if c.play:
                u.cash = start
                if not first:
                    self.ev.append(self._msg("DELTA_CASH", (0, pid, start), others))
            self.ev.extend(self.state_dump(pid))
            if self.phase not in (LOBBY, OVER):
                self.ev.extend(self.catch_up(pid))
        if self.phase == LOBBY and len(self.playing()) >= 2:
            self._start_turn(u.id)

    @staticmethod
    def _msg(name, args, to):
        from .state import Msg
        return Msg(name, args, to)

    # -- presence --------------------------------------------------------------
    def _on_AFK(self, pid: int) -> None:
        self.users[pid].afk = True
        if self.candidates and self._decide(self.candidates[0]):
            self._query()

    def _on_REQUEST_STATE(self, pid: int) -> None:
        self.ev.extend(self.state_dump(pid))
        self.ev.extend(self.catch_up(pid))

    def check_password(self, pid: int, password: int) -> bool:
        u = self.users.get(pid)
        return u is not None and u.password == password

    def state_dump(self, pid: int) -> list:
        """The messages of a state dump for user ``pid`` (join, rejoin, request)."""
        m, to = self._msg, (pid,)
        out = [m("STATE_BOARD", (self.board.number,), to)]
        for q, u in self.users.items():
            if u.playing:
                out.append(m("STATE_PLAYER", (q, u.piece, u.name, u.square, u.cash, u.jail), to))
        for q, u in self.users.items():
            if not u.playing:
                out.append(m("STATE_OBSERVER", (q, u.piece, u.name), to))
        for prop, owner in enumerate(self.owner):
            if owner:
                lv = self.level[prop]
                out.append(m("STATE_PROPERTY", (prop, owner, self.mortgaged[prop],
                                                 0 if lv == 5 else lv, 1 if lv == 5 else 0), to))
        for card, owner in sorted(self.card_owner.items()):
            out.append(m("STATE_CARD", (card, owner), to))
        out.append(m("DELTA_BANK", self.bank_supply(), to))
        out.append(m("STATE_POT", (self.pot,), to))
        return out

    def catch_up(self, pid: int) -> list:
        """After a dump, the messages that bring ``pid`` to the current point of the turn."""
        m, to = self._msg, (pid,)
        out = []
        if self.candidates and self.candidates[0].user != pid:
            c = self.candidates[0]
            out.append(m("QUERY_JOIN_PLAY" if c.play else "QUERY_JOIN_OBSERVE", (c.id, c.name), to))
        if self.phase in (LOBBY, OVER):
            return out
        u = self.users[self.turn]
        # what the reference server sends for the point the turn is at: START_OF_TURN only
        # before the turn's first roll or jail choice (a client takes it as its cue to throw)
        if self.phase == JAIL or (self.phase == ROLL and not self.rolled):
            out.append(m("START_OF_TURN", (self.turn, self.phase != JAIL and not u.jail), to))
        out += self.transactions_view(pid)
        if self.phase == ROLL and self.rolled:
            out.append(m("ROLL_AGAIN", (self.turn,), to))         # doubles: the same player again
        elif self.phase == JAIL:
            out.append(m("JAIL_PAY_OR_ROLL", (self.turn, self.board.max_jail_turns - u.jail + 1, True), to))
        elif self.phase == BUY:
            out.append(m("PROPERTY_SALE", (self.turn, self.sale, self.board.properties[self.sale].price), to))
        elif self.phase == AUCTION:
            out.append(m("PROPERTY_AUCTION", (self.auction.property,), to))
            if self.auction.leader:
                out.append(m("PROPERTY_AUCTION_BID", (self.auction.leader, self.auction.high), to))
            for q in sorted(self.auction.passed):
                out.append(m("PROPERTY_AUCTION_NO_BID", (q,), to))
        elif self.phase == TAX:
            out.append(m("TAX_SELECT_OPTION", (self.turn, self.tax_square), to))
        elif self.phase == WAIT:
            tx = self.blocking()
            out.append(m("WAITING_FOR_TRANSACTION", (tx.a, tx.id), to))
        return out
