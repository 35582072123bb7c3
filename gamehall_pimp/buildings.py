"""Houses and hotels: checking a PURCHASE_HOUSES batch and working out what it costs.

A property's building level is 0-4 houses or 5 for a hotel.  A batch entry
``(property, houses, hotels)`` changes the level so:
  hotels  0: level + houses (a property with a hotel cannot change houses alone);
  hotels +1: level + houses must reach 4, then the 4 houses become a hotel
             (so (0, +1) on 4 houses, (+4, +1) on none, (-4, +1) on 4 houses);
  hotels -1: only on a hotel, which turns back into 4 houses, then + houses
             ((0, -1) leaves 4 houses, (-4, -1) leaves none).
Every level step up costs the house price, every step down refunds half.
The group must stay even (levels within one of each other) once the whole batch
is applied.  The bank must have the pieces: 32 houses and 12 hotels in all.
Official rule, not enforced by the reference server but enforced here: no
building in a group with a mortgaged property (the error names it).
"""
from __future__ import annotations

from dataclasses import dataclass

from .board import COLOUR, HOTEL, Board
from .state import PimpError


@dataclass
class Plan:
    levels: dict          # property -> new level, for every property changed
    cost: int             # cash paid for building up
    refund: int           # cash received for selling down
    bank_houses: int      # the bank's supply afterwards
    bank_hotels: int


def houses_hotels(level: int) -> tuple[int, int]:
    return (0, 1) if level == HOTEL else (level, 0)


def bank_supply(board: Board, level: list) -> tuple[int, int]:
    houses = sum(lv for lv in level if lv < HOTEL)
    hotels = sum(1 for lv in level if lv == HOTEL)
    return board.houses - houses, board.hotels - hotels


def _new_level(level: int, dh: int, dH: int) -> int | None:
    if dH == 0:
        if level == HOTEL:
            return None if dh else level
        new = level + dh
        return new if 0 <= new <= 4 else None     # a hotel only with hotels +1
    elif dH == 1:
        ok = level != HOTEL and (level + dh == 4 or (level == 4 and dh == -4))
        new = HOTEL if ok else None
    elif dH == -1:
        new = 4 + dh if level == HOTEL else None
    else:
        return None
    return new if new is not None and 0 <= new <= HOTEL else None


def plan_purchase(board: Board, owner: list, level: list, mortgaged: list, pid: int,
                  changes: list, strict_groups: bool = True) -> Plan:
    """Check ``changes`` [(property, houses, hotels)] for user ``pid``; PimpError if refused."""
    new = {}
    for prop, dh, dH in changes:
        if not 0 <= prop < len(board.properties):
            from .messages import SPECS
            raise PimpError(f"no property {prop}", ("ERROR_INVALID_PAYLOAD", SPECS["PURCHASE_HOUSES"].code))
        p = board.properties[prop]
        if p.kind != COLOUR:
            raise PimpError(f"{p.name} is not in a colour group", ("ERROR_HOUSES_NOT_COLOUR_GROUP", prop))
        if owner[prop] != pid:
            raise PimpError(f"you do not own {p.name}", ("ERROR_HOUSES_NOT_OWNED", prop))
        for q in board.groups[p.group]:
            if owner[q] != pid:
                raise PimpError(f"you do not own {board.properties[q].name}",
                                ("ERROR_HOUSES_NEED_MONOPOLY", q))
        if mortgaged[prop]:
            raise PimpError(f"{p.name} is mortgaged", ("ERROR_HOUSES_MORTGAGED", prop))
        lv = _new_level(new.get(prop, level[prop]), dh, dH)
        if lv is None:
            raise PimpError(f"cannot build that number on {p.name}",
                            ("ERROR_HOUSES_CANNOT_BUILD_THAT_NUMBER", prop))
        if strict_groups and lv > level[prop]:
            for q in board.groups[p.group]:
                if mortgaged[q]:
                    raise PimpError(f"{board.properties[q].name} in the group is mortgaged",
                                    ("ERROR_HOUSES_MORTGAGED", q))
        new[prop] = lv
    after = list(level)
    for prop, lv in new.items():
        after[prop] = lv
    for prop in new:
        group = board.groups[board.properties[prop].group]
        levels = [after[q] for q in group]
        if max(levels) - min(levels) > 1:
            raise PimpError("houses would be unbalanced", ("ERROR_HOUSES_UNBALANCED", prop))
    houses, hotels = bank_supply(board, after)
    if houses < 0 or hotels < 0:
        bh, bH = bank_supply(board, level)
        raise PimpError("not enough pieces in the bank", ("ERROR_HOUSES_NO_HOUSE_PIECES_LEFT", bh, bH))
    cost = refund = 0
    for prop, lv in new.items():
        price = board.properties[prop].house_cost
        step = lv - level[prop]
        if step > 0:
            cost += step * price
        else:
            refund += -step * price // 2
    return Plan(new, cost, refund, houses, hotels)


class BuildingsMixin:
    def _on_PURCHASE_HOUSES(self, pid: int, changes: list) -> None:
        from .core import JAIL, ROLL
        building = any(dh > 0 or dH > 0 for _, dh, dH in changes)
        own_turn = pid == self.turn and self.phase in (ROLL, JAIL)
        # selling to raise money for a debt is allowed at any time (the reference
        # server only allowed it on one's own turn, which can leave a debt unpayable)
        if not own_turn and (building or not self.debts_of(pid)):
            raise PimpError("not your turn to build", ("ERROR_HOUSES_NOT_YOUR_TURN",))
        plan = plan_purchase(self.board, self.owner, self.level, self.mortgaged, pid,
                             [tuple(c) for c in changes], self.options["strict_groups"])
        u = self.users[pid]
        if plan.cost - plan.refund > u.cash:
            raise PimpError("too expensive", ("ERROR_HOUSES_TOO_EXPENSIVE", plan.cost))
        debts = self.debts_of(pid)
        if debts and plan.cost and self.liquid(pid) - plan.cost // 2 < sum(d.required for d in debts):
            raise PimpError("you owe more than that would leave you",
                            ("ERROR_HOUSES_WOULD_REDUCE_NET_WORTH", debts[0].id))
        for prop in sorted(plan.levels):
            self.level[prop] = plan.levels[prop]
            self._all("DELTA_HOUSES_PURCHASED", pid, prop, *houses_hotels(plan.levels[prop]))
        self._all("DELTA_BANK", plan.bank_houses, plan.bank_hotels)
        if plan.refund:
            self._all("DESTRUCTION_GIVES_CASH", pid, plan.refund)
            self._cash(0, pid, plan.refund)
        if plan.cost:
            self._all("CONSTRUCTION_TAKES_CASH", pid, plan.cost)
            self._cash(pid, 0, plan.cost)
