"""Mortgaging (the mortgage value at once) and unmortgaging (the value plus 10% interest).

A player may mortgage or unmortgage their own properties at any time.  The
official rule that no property of a group with buildings may be mortgaged is
enforced here (option ``strict_groups``; the reference server did not).
"""
from __future__ import annotations

from .state import PimpError, invalid


class MortgagesMixin:
    def _own_property(self, pid: int, prop: int, code: str):
        if not 0 <= prop < len(self.owner) or self.owner[prop] != pid or pid == 0:
            raise invalid(code, "not your property")
        return self.board.properties[prop]

    def _on_MORTGAGE_PROPERTY(self, pid: int, prop: int) -> None:
        p = self._own_property(pid, prop, "MORTGAGE_PROPERTY")
        if self.mortgaged[prop]:
            raise invalid("MORTGAGE_PROPERTY", "already mortgaged")
        group = self.board.groups[p.group] if self.options["strict_groups"] else (prop,)
        if any(self.level[q] for q in group):
            raise invalid("MORTGAGE_PROPERTY", "sell the group's buildings first")
        self.mortgaged[prop] = True
        self._all("SQUARE_GIVES_CASH", pid, p.square, p.mortgage)
        self._all("DELTA_PROPERTY_MORTGAGED", prop)
        self._cash(0, pid, p.mortgage)

    def _on_UNMORTGAGE_PROPERTY(self, pid: int, prop: int) -> None:
        p = self._own_property(pid, prop, "UNMORTGAGE_PROPERTY")
        if not self.mortgaged[prop]:
            raise invalid("UNMORTGAGE_PROPERTY", "not mortgaged")
        cost = p.unmortgage_cost
        if self.users[pid].cash < cost:
            raise PimpError("too expensive", ("ERROR_MORTGAGE_TOO_EXPENSIVE", prop, cost))
        self.mortgaged[prop] = False
        self._all("DELTA_PROPERTY_UNMORTGAGED", prop)
        self._all("SQUARE_TAKES_CASH", pid, p.square, cost)
        self._cash(pid, 0, cost)
