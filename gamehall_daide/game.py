"""DiplomacyEngine: the rules engine the hall and the DAIDE front end drive; DiplomacyGame: its IGame.

Seven seats; seat i plays ``engine.powers[i]``.  Orders are DAIDE text; every
power may submit during a phase, and the phase is processed as soon as every
power with something to order has a complete set and none holds NOT (GOF), or
when the deadline action comes (seat -1), which fills the gaps with default
orders (hold, disband, waive, civil-disorder removals).  A game ends in a solo
(18 of the 34 centres: more than half), a draw (declared at once, by the
action that leaves every surviving power's DRW standing, as DAIDE says; a
partial draw when they all name the same powers, ``{"draw": ["FRA", "GER"]}``), or at the year limit option ``max_year``
(a draw among the survivors, reason "year limit").  The option ``AOA`` (DAIDE's
"any orders accepted") accepts movement orders that are impossible in the
position and adjudicates them as holds (result NSO).
"""
from __future__ import annotations

import random
from typing import Any

from zope.interface import implementer

from gamehall.interfaces import IGame, IllegalAction, IOutOfTurnEngine, ISimultaneousEngine
from gamehall.service import GameService

from . import mapdata
from .position import ADJUSTMENTS, MOVEMENT, RETREATS, Position, unit_text
from .text import TextError, canonical

POWERS = ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")
DEADLINE_SEAT = -1
#: the engine option ``rules``: 2 (the default) declares a draw at once and takes a WVE for every
#: unused build; 1, for a game stored before, draws as a phase is processed and waives only
#: placeable builds (its stored actions must replay as they were played)
RULES = 2


def turn_text(turn: tuple[str, int]) -> str:
    return f"{turn[0]} {turn[1]}"


@implementer(ISimultaneousEngine, IOutOfTurnEngine)
class DiplomacyEngine:
    def __init__(self, variant: str, players: list[str], seed: int, *, powers: list[str] | None = None,
                 options: dict | None = None):
        self.variant = variant
        self.gmap = mapdata.load(variant)
        if len(players) != len(self.gmap.powers):
            raise ValueError(f"Diplomacy needs {len(self.gmap.powers)} players, not {len(players)}")
        self.players = list(players)
        self.seed = seed
        if powers is None:
            powers = list(self.gmap.powers)
            random.Random(seed).shuffle(powers)
        if sorted(powers) != sorted(self.gmap.powers):
            raise ValueError(f"powers must be a permutation of {self.gmap.powers}")
        self.powers = list(powers)
        self.options = dict(options or {})
        max_year = self.options.get("max_year")
        if max_year is not None and (not isinstance(max_year, int) or isinstance(max_year, bool)):
            raise ValueError("max_year must be a whole number")
        aoa = self.options.get("AOA", False)
        if not isinstance(aoa, bool):
            raise ValueError("AOA must be true or false")
        self.rules = self.options.get("rules", RULES)
        if self.rules not in (1, 2):
            raise ValueError("rules must be 1 or 2")
        self.pos = Position(self.gmap)
        self.pos.aoa = aoa
        self.pos.waive_unplaceable = self.rules >= 2
        self.no_gof: set[str] = set()          # powers holding NOT (GOF)
        # powers with DRW standing: None for DRW, the powers named for a partial draw DRW (powers)
        self.drw: dict[str, tuple[str, ...] | None] = {}
        self.history: dict[str, list[str]] = {}   # "SPR 1901" -> ORD texts
        self.after: dict[str, list[str]] = {}     # "SPR 1901" -> [SCO, NOW] once that phase was processed
        self.last_turn: str | None = None
        self.eliminated_in: dict[str, int] = {}
        self.over_reason: str | None = None
        self.winners: list[str] = []

    # ------------------------------------------------------------ basics
    def seat_of(self, power: str) -> int:
        return self.powers.index(power)

    def turn(self) -> tuple[str, int]:
        return self.pos.season, self.pos.year

    def alive(self) -> list[str]:
        return [p for p in self.gmap.powers if p not in self.eliminated_in]

    def _needs(self, power: str) -> bool:
        return power not in self.eliminated_in and self.pos.has_work(power)

    def pending_seats(self) -> list[int]:
        if self.over_reason is not None:
            return []
        return [i for i, p in enumerate(self.powers) if self._needs(p) and not self.pos.complete(p)]

    def pending_seat(self) -> int | None:
        seats = self.pending_seats()
        return seats[0] if seats else None

    def may_act(self, seat: int) -> bool:
        if self.over_reason is not None:
            return False
        if seat == DEADLINE_SEAT:
            return True
        return 0 <= seat < len(self.powers) and self.powers[seat] not in self.eliminated_in

    def is_over(self) -> bool:
        return self.over_reason is not None

    def result(self) -> dict:
        winners = [self.seat_of(p) for p in self.winners]
        return {"scores": [self.pos.centres(p) for p in self.powers], "winners": sorted(winners),
                "reason": self.over_reason or "not over"}

    def eliminated(self) -> dict[str, int]:
        """Power -> year of elimination."""
        return dict(self.eliminated_in)

    # ----------------------------------------------------------- actions
    def apply(self, seat: int, action: dict) -> list[dict]:
        if not isinstance(action, dict) or len(action) != 1:
            raise IllegalAction("an action is an object with one key: submit, cancel, gof, draw or deadline")
        if not self.may_act(seat):
            raise IllegalAction("the game is over" if self.is_over() else f"seat {seat} may not act")
        (key, value), = action.items()
        if key == "deadline":
            if seat != DEADLINE_SEAT:
                raise IllegalAction("only the deadline (seat -1) may end a phase")
            if value != turn_text(self.turn()):
                raise IllegalAction(f"the deadline is for {value!r}, the turn is {turn_text(self.turn())}")
            return self._process(forced=True)
        if seat == DEADLINE_SEAT:
            raise IllegalAction("seat -1 may only send the deadline")
        power = self.powers[seat]
        if key == "submit":
            if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
                raise IllegalAction("submit takes a list of order texts")
            events = [self._submit_one(power, t) for t in value]
        elif key == "cancel":
            if value == "all":
                self.pos.cancel(power)
                events = [{"type": "cancelled", "power": power, "order": None, "ok": True}]
            elif isinstance(value, list) and all(isinstance(t, str) for t in value):
                events = [{"type": "cancelled", "power": power, "order": t, "ok": self.pos.cancel(power, t)}
                          for t in value]
            else:
                raise IllegalAction("cancel takes a list of order texts or \"all\"")
        elif key == "gof":
            if not isinstance(value, bool):
                raise IllegalAction("gof takes true or false")
            (self.no_gof.discard if value else self.no_gof.add)(power)
            events = []
        elif key == "draw":
            if value is True:
                self.drw[power] = None
            elif value is False:
                self.drw.pop(power, None)
            elif isinstance(value, list) and value and all(p in self.gmap.powers for p in value) \
                    and len(set(value)) == len(value):
                self.drw[power] = tuple(sorted(value))
            else:
                raise IllegalAction("draw takes true, false or a list of powers (a partial draw)")
            # declared as soon as every surviving power has it standing, not at the next processing
            agreed = self._agreed_draw() if self.rules >= 2 else None
            if agreed is not None:
                return [self._declare_draw(agreed)]
            events = []
        else:
            raise IllegalAction(f"unknown action {key!r}")
        if self._ready():
            events += self._process(forced=False)
        elif key in ("submit", "cancel"):
            mis = self.missing(power)
            if mis != "MIS":
                events.append({"type": "missing", "power": power, "text": mis})
        return events

    def _submit_one(self, power: str, text: str) -> dict:
        try:
            shown = canonical(text)
        except TextError:
            shown = text
        note, _ = self.pos.submit(power, text)
        return {"type": "thx", "power": power, "order": shown, "note": note}

    def _ready(self) -> bool:
        for p in self.alive():
            if self._needs(p) and (not self.pos.complete(p) or p in self.no_gof):
                return False
        return True

    def _process(self, forced: bool) -> list[dict]:
        events: list[dict] = []
        pos = self.pos
        for p in self.gmap.powers:
            if self._needs(p) and not pos.complete(p):
                events.append({"type": "ccd", "power": p})
                if pos.phase == ADJUSTMENTS:
                    for text in self.default_orders(p):
                        pos.submit(p, text)
        done = turn_text(self.turn())
        was_owners = dict(pos.owners)
        draw = self._agreed_draw()
        results = pos.process()
        ords = [f"ORD ( {done} ) ( {o} ) ( {' '.join(r)} )" for o, r in results]
        self.history[done] = ords
        self.after[done] = [pos.sco_text(), pos.now_text()]
        self.last_turn = done
        events += [{"type": "ord", "text": t} for t in ords]
        self.no_gof.clear()
        self.drw.clear()
        changed = pos.owners != was_owners
        if changed:
            events.append({"type": "sco", "text": pos.sco_text()})
        for p in self.gmap.powers:
            if p not in self.eliminated_in and not pos.centres(p) and not pos.unit_count(p) \
                    and not any(d[0] == p for d in pos.dislodged.values()):
                self.eliminated_in[p] = pos.year if pos.season != "SPR" else pos.year - 1
                events.append({"type": "eliminated", "power": p})
        events.append({"type": "phase", "turn": turn_text(self.turn()), "now": pos.now_text()})
        solo = [p for p in self.gmap.powers if pos.centres(p) * 2 > len(self.gmap.centres)]
        max_year = self.options.get("max_year")
        if solo:
            self.over_reason, self.winners = f"solo {solo[0]}", solo[:1]
            events.append({"type": "solo", "power": solo[0]})
        elif draw is not None:
            events.append(self._declare_draw(draw))
        elif max_year is not None and pos.year > max_year:
            self.over_reason, self.winners = "year limit", self.alive()
            events.append({"type": "draw", "powers": self.alive()})
        return events

    def _declare_draw(self, draw: tuple[str, ...]) -> dict:
        powers = [p for p in self.alive() if p in draw] if draw else self.alive()
        self.over_reason, self.winners = "draw", powers
        return {"type": "draw", "powers": powers}

    def _agreed_draw(self) -> tuple[str, ...] | None:
        """The draw every surviving power has standing: () for a draw of all survivors, the
        powers of a partial draw all of them name alike, or None when they do not agree."""
        alive = self.alive()
        if not alive or any(p not in self.drw for p in alive):
            return None
        named = {self.drw[p] for p in alive}
        if len(named) != 1:
            return None
        (powers,) = named
        if powers is None or set(powers) >= set(alive):
            return ()
        return powers

    def timeout_action(self, seat: int) -> dict:
        return {"submit": self.default_orders(self.powers[seat])}

    def default_orders(self, power: str) -> list[str]:
        """The orders DAIDE's defaults give ``power``'s missing units: hold, disband, waive,
        civil-disorder removals."""
        pos = self.pos
        if pos.phase == MOVEMENT:
            return [f"( {unit_text(*u)} ) HLD" for u in pos.missing_units(power)]
        if pos.phase == RETREATS:
            return [f"( {unit_text(*d[:3])} ) DSB" for d in pos.missing_units(power)]
        owed = pos.adjustments_owed(power)
        if owed < 0:
            return [f"{power} WVE"] * -owed
        if owed > 0:
            removed = {o.prov for o in pos.builds.get(power, []) if o.kind == "REM"}
            return [f"( {unit_text(*pos.units[p])} ) REM" for p in pos.disorder_removals(power, owed, removed)]
        return []

    # ----------------------------------------------------------- queries
    def now(self) -> str:
        return self.pos.now_text()

    def sco(self) -> str:
        return self.pos.sco_text()

    def missing(self, power: str) -> str:
        pos = self.pos
        if self.is_over() or power in self.eliminated_in:
            return "MIS"
        if pos.phase == MOVEMENT:
            units = pos.missing_units(power)
            return "MIS" + "".join(f" ( {unit_text(*u)} )" for u in units)
        if pos.phase == RETREATS:
            units = pos.missing_units(power)
            return "MIS" + "".join(
                f" ( {unit_text(*d[:3])} MRT ( {' '.join(mapdata.loc_text(x) for x in d[3])} ) )" for d in units)
        owed = pos.adjustments_owed(power)
        return f"MIS ( {owed} )" if owed else "MIS"

    def orders_of(self, power: str) -> list[str]:
        pos = self.pos
        out = [o.text() for _, o in sorted(pos.orders.items()) if o.power == power]
        out += [o.text() for o in pos.builds.get(power, [])]
        return out

    def results(self, turn: tuple[str, int] | None = None) -> list[str]:
        key = turn_text(turn) if turn is not None else self.last_turn
        return list(self.history.get(key, [])) if key else []

    def position_after(self, turn: tuple[str, int]) -> list[str] | None:
        """[SCO, NOW] of the position right after ``turn`` was processed (for HST), or None."""
        texts = self.after.get(turn_text(turn))
        return list(texts) if texts else None

    def legal_orders(self, power: str) -> dict[str, list[str]]:
        from .legal import legal_orders
        return legal_orders(self.pos, power)

    # ------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        return {"variant": self.variant, "players": list(self.players), "seed": self.seed,
                "powers": list(self.powers), "options": dict(self.options), "position": self.pos.to_dict(),
                "no_gof": sorted(self.no_gof),
                "drw": {p: (list(v) if v is not None else None) for p, v in sorted(self.drw.items())}, "history": dict(self.history),
                "after": dict(self.after),
                "last_turn": self.last_turn, "eliminated": dict(self.eliminated_in),
                "over_reason": self.over_reason, "winners": list(self.winners)}

    @classmethod
    def from_dict(cls, d: dict) -> "DiplomacyEngine":
        e = cls(d["variant"], d["players"], d["seed"], powers=d["powers"], options=d["options"])
        e.pos = Position.from_dict(e.gmap, d["position"])
        e.pos.waive_unplaceable = e.rules >= 2
        e.no_gof = set(d["no_gof"])
        e.drw = {p: (tuple(v) if v is not None else None) for p, v in d["drw"].items()}
        e.history = {k: list(v) for k, v in d["history"].items()}
        e.after = {k: list(v) for k, v in d.get("after", {}).items()}
        e.last_turn = d["last_turn"]
        e.eliminated_in = dict(d["eliminated"])
        e.over_reason, e.winners = d["over_reason"], list(d["winners"])
        return e


@implementer(IGame)
class DiplomacyGame:
    name = "diplomacy"
    title = "Diplomacy"
    min_seats = 7
    max_seats = 7
    variants = ("standard",)
    bots = ("strong", "random", "hold")
    turn_timeout = None                   # deadlines are the DAIDE front end's (MTL/RTL/BTL)

    def new_engine(self, variant: str, players: list[str], seed: int) -> DiplomacyEngine:
        return DiplomacyEngine(variant, players, seed)

    def new_bot(self, name: str, seed: int) -> Any:
        from .bots import make_bot
        return make_bot(name, seed)

    def attach(self, hall) -> GameService:
        """The rules alone: the plain service (the dropin's game attaches the front end's)."""
        return GameService(hall, self)
