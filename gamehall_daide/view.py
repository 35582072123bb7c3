"""What a browser may see of a Diplomacy game, and the script that draws it (``IGameView``).

Pure: reads the engine, writes JSON-able dicts.  Public, as DAIDE tells every
player: the turn, every unit (and the dislodged ones with their retreats), the
supply centres' owners, who is eliminated, the last processed turn's orders
with their results (ORD), the end.  Private to a power's seat: the orders it
has given this phase (DAIDE never shows them to others before the results),
what it still owes (MIS), its GOF and draw standing, and its own order
replies (THX, MIS, cancellations).

The map itself (where each province is drawn, from data/standard-layout.json,
and which provinces touch, from the MDF) never changes, so it is not in the
states: it is ``script_data``, which the web front end puts in front of the
drawing script, sent once per page and cached like the script.
"""
from __future__ import annotations

import functools
import json
import os
import re

from zope.interface import implementer

from gamehall.interfaces import IScriptDataView
from gamehall.viewtools import keyed

from .game import turn_text
from .mapdata import DATA_DIR, item_loc, load
from .position import ADJUSTMENTS, MOVEMENT, RETREATS, unit_text
from . import words
from .text import parse
from .words import POWER_NAMES
POWER_COLOURS = {"AUS": "#c0392b", "ENG": "#1f3a93", "FRA": "#3498db", "GER": "#555555", "ITA": "#27ae60",
                 "RUS": "#8e44ad", "TUR": "#d4ac0d"}
PHASE_NAMES = {MOVEMENT: "movement", RETREATS: "retreats", ADJUSTMENTS: "adjustments"}
#: engine events told only to the power they name
PRIVATE_EVENTS = frozenset({"thx", "missing", "cancelled"})


def order_data(text: str) -> dict:
    """One ORD result as data for drawing: who ordered what from where to where, and how it went.

    ``ORD ( SPR 1901 ) ( ( AUS AMY BUD ) SUP ( AUS AMY VIE ) MTO GAL ) ( NSO )`` ->
    ``{"power": "AUS", "unit": "AMY", "at": "BUD", "order": "SUP", "of": "VIE", "to": "GAL",
    "result": ["NSO"]}`` ("of": the supported or convoyed unit's location; "to": where a
    move, retreat or supported / convoyed move goes; "via": a convoyed army's sea areas).
    """
    tree = parse(text)
    order, result = tree[2], tree[3]
    if len(order) == 2 and isinstance(order[0], str):     # ( FRA WVE ): a build waived, no unit
        return {"power": order[0], "unit": None, "at": None, "order": order[1], "result": list(result)}
    (power, utype, at), verb, rest = order[0], order[1], order[2:]
    out = {"power": power, "unit": utype, "at": item_loc(at), "order": verb, "result": list(result)}
    if verb in ("MTO", "RTO", "CTO"):
        out["to"] = item_loc(rest[0])
        if verb == "CTO" and len(rest) > 2:
            out["via"] = list(rest[2])
    elif verb in ("SUP", "CVY"):
        out["of"] = item_loc(rest[0][2])
        if len(rest) > 2:
            out["to"] = item_loc(rest[2])
    return out


@functools.lru_cache(maxsize=None)
def static_map(variant: str = "standard") -> dict:
    """The drawing of a map: each province's place and kind, its coasts, the impassable
    areas and the open water beyond the board (places that shape the areas drawn), the supply centres and every pair of adjacent provinces (from the MDF)."""
    gmap = load(variant)
    with open(os.path.join(DATA_DIR, f"{variant}-layout.json"), encoding="utf-8") as f:
        layout = json.load(f)
    pairs = set()
    for adj in (gmap.army_adj, gmap.fleet_adj):
        for loc, targets in adj.items():
            for t in targets:
                a, b = gmap.prov_of[loc], gmap.prov_of[t]
                pairs.add((min(a, b), max(a, b)))
    return {"viewBox": layout["viewBox"], "provinces": layout["provinces"], "coasts": layout["coasts"],
            "impassable": layout["impassable"], "water": layout["water"], "centres": sorted(gmap.centres),
            "edges": " ".join(f"{a}-{b}" for a, b in sorted(pairs))}


def _plain(text: str) -> str:
    """A DAIDE text without its brackets: "( AUS AMY VIE ) MTO TRI" -> "AUS AMY VIE MTO TRI"."""
    return re.sub(r"\s+", " ", text.replace("(", " ").replace(")", " ")).strip()


@implementer(IScriptDataView)
class DiplomacyView:
    game = "diplomacy"
    script = ("gamehall_daide", "static/daide.js")

    @staticmethod
    def script_data() -> dict:
        """What the drawing script needs besides each state: the map (see the module text)."""
        return {"standard": static_map("standard")}

    def spectator(self, engine) -> dict:
        pos = engine.pos
        season, year = engine.turn()
        units = {p: [] for p in engine.gmap.powers}
        for _, u in sorted(pos.units.items()):
            units[u[0]].append(_plain(unit_text(*u))[4:])      # "AMY VIE" (the power is the row)
        dislodged = [{"power": d[0], "unit": _plain(unit_text(*d[:3]))[4:],
                      "retreats": sorted(d[3])} for _, d in sorted(pos.dislodged.items())]
        owners = {p: [] for p in engine.gmap.powers}
        neutral = []
        for prov in sorted(engine.gmap.centres):
            owner = pos.owners.get(prov)
            (owners[owner] if owner in owners else neutral).append(prov)
        eliminated = engine.eliminated()
        powers = []
        for seat, power in enumerate(engine.powers):
            powers.append({"seat": seat, "name": engine.players[seat], "power": power,
                           "title": POWER_NAMES.get(power, power),
                           "colour": POWER_COLOURS.get(power, "#777"), "centres": owners[power],
                           "units": units[power], "eliminated": eliminated.get(power)})
        last = engine.last_turn
        return {
            "game": self.game, "map": engine.variant.lower(), "turn": turn_text((season, year)), "phase": PHASE_NAMES[pos.phase],
            "powers": powers, "neutral": neutral, "dislodged": dislodged,
            "to_win": len(engine.gmap.centres) // 2 + 1,
            "last_turn": last, "orders": [order_data(t) for t in engine.results()] if last else [],
            "over": None if not engine.is_over() else {"reason": engine.over_reason,
                                                       "winners": engine.result()["winners"]},
        }

    def seat(self, engine, seat: int) -> dict:
        state = self.spectator(engine)
        state["seat"] = seat
        if 0 <= seat < len(engine.powers):
            power = engine.powers[seat]
            names = words.province_names(engine.variant)
            state["mine"] = {"power": power, "title": POWER_NAMES.get(power, power),
                             "orders": [_plain(t) for t in engine.orders_of(power)],
                             "orders_text": [words.order(t, names) for t in engine.orders_of(power)],
                             "missing": _plain(engine.missing(power)),
                             "missing_text": words.missing(engine.missing(power), names),
                             "gof": power not in engine.no_gof, "draw": power in engine.drw}
            # the page's header names the seat by its power ("you play England"), not "seat 1"
            state["seat_title"] = POWER_NAMES.get(power, power)
        return state

    # ------------------------------------------------------------ decisions
    def decision(self, engine, seat: int) -> dict | None:
        if engine.is_over() or not 0 <= seat < len(engine.powers):
            return None
        power = engine.powers[seat]
        if power in engine.eliminated() or not engine.pos.has_work(power):
            return None
        # in a fixed order (hold first, then by text): the engine lists supports in the order
        # its units were stored, which a restored game does not keep
        legal = {unit: sorted(orders, key=lambda t: (not t.endswith(" HLD"), t))
                 for unit, orders in engine.legal_orders(power).items()}
        given = engine.orders_of(power)
        choices = []
        defaults = engine.default_orders(power)
        if defaults:
            what = {MOVEMENT: "Hold with every unit not ordered yet", RETREATS: "Disband every unit not ordered yet",
                    ADJUSTMENTS: "Waive or remove as the rules default"}[engine.pos.phase]
            choices.append({"label": what, "action": {"submit": defaults}})
        if given:
            choices.append({"label": "Cancel the orders given", "action": {"cancel": "all"}})
        phase = engine.pos.phase
        owed = engine.pos.adjustments_owed(power) if phase == ADJUSTMENTS else 0
        prompt = {MOVEMENT: "Order your units", RETREATS: "Retreat or disband your dislodged units",
                  ADJUSTMENTS: f"{'Build' if engine.pos.build_room(power) > 0 else 'Remove'} "
                               f"{abs(engine.pos.build_room(power))} unit(s)"}[phase]
        return {"prompt": f"{words.turn(turn_text(engine.turn()))}: {prompt}", "kind": PHASE_NAMES[phase],
                "choices": keyed(choices), "board": True,
                "form": {"orders": legal, "given": given, "owed": abs(owed),
                         "units": [k for k in legal if k not in ("builds", "removals")]}}

    # ----------------------------------------------------------- event lines
    def describe(self, engine, seat: int | None, events: list) -> list[str]:
        mine = engine.powers[seat] if seat is not None and 0 <= seat < len(engine.powers) else None
        out = []
        for e in events:
            t = e.get("type")
            if t in PRIVATE_EVENTS and e.get("power") != mine:
                continue
            line = self._line(e, words.province_names(engine.variant))
            if line:
                out.append(line)
        return out

    def _line(self, e: dict, names: dict) -> str | None:
        """One event in words (DAIDE's texts made readable: "England: F London → North Sea: bounced")."""
        t = e["type"]
        name = POWER_NAMES.get(e.get("power"), e.get("power"))
        if t == "thx":
            return f"order {words.said(e['order'], names)}: {words.note(e['note'])}"
        if t == "missing":
            return f"still to order: {words.missing(e['text'], names)}"
        if t == "cancelled":
            return "orders cancelled" if e.get("order") is None else f"cancelled {words.said(e['order'], names)}"
        if t == "ccd":
            return f"{name} is in civil disorder"
        if t == "ord":
            return words.ord_line(e["text"], names)
        if t == "sco":
            return "supply centres change hands"
        if t == "eliminated":
            return f"{name} is eliminated"
        if t == "phase":
            return f"{words.turn(e['turn'])} begins"
        if t == "solo":
            return f"{name} wins outright"
        if t == "draw":
            return "draw between " + ", ".join(POWER_NAMES.get(p, p) for p in e["powers"])
        return None

    def scores(self, engine) -> list[float]:
        """Supply centres per seat."""
        return [float(engine.pos.centres(p)) for p in engine.powers]
