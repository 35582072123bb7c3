"""Jail: bail (cash or a get-out-of-jail card, through a jail transaction), doubles, the third roll.

A jailed player's turn starts with START_OF_TURN(p, false) and
JAIL_PAY_OR_ROLL(p, turns left 3/2/1, can build).  Paying bail frees the
player and ends the turn (no move).  Doubles free the player, who then rolls
again (the jail dice do not move the piece).  After the third failed roll the
server opens the bail itself; once paid the player is free and the turn ends.
"""
from __future__ import annotations

from .core import JAIL, MOVED, ROLL
from .state import JAIL as JAIL_TX


class JailMixin:
    def _on_JAIL_PAY_BAIL(self, pid: int) -> None:
        self._require_turn(pid, JAIL, "JAIL_PAY_BAIL")
        self._moratorium()
        self.phase, self.cont = MOVED, "next"
        self._open_debt(JAIL_TX, pid, 0, self.board.bail, square=self.board.jail_square)
        self._settle()

    def _on_JAIL_ROLL_DICE(self, pid: int) -> None:
        self._require_turn(pid, JAIL, "JAIL_ROLL_DICE")
        self._moratorium()
        d1, d2 = self._roll()
        self._all("DICE_ROLLED", pid, d1, d2)
        u = self.users[pid]
        if d1 == d2:
            u.jail = 0
            self._all("JAIL_FREE", pid)
            self.phase, self.doubles = ROLL, 0
            self._all("ROLL_AGAIN", pid)
            return
        self.phase, self.cont = MOVED, "next"
        if u.jail >= self.board.max_jail_turns:
            self._open_debt(JAIL_TX, pid, 0, self.board.bail, square=self.board.jail_square)
        else:
            u.jail += 1
        self._settle()
