"""Runs the DATC (Diplomacy Adjudicator Test Cases) files against the adjudicator.

Two files are shipped under ``data/datc``:

- ``parlance_datc_daide.json``: 256 cases in DAIDE notation; each order step
  says whether the order is legal (THX MBV) and each ``adjudicate`` step gives
  the units after the phase.  Cases with ``set_option`` steps belong to one
  choice of a DATC option: the ones of the choices in :data:`CHOSEN` are run,
  the others are "not applicable".
- ``diplomacy_datc_text.json``: 160 cases in the PyPI ``diplomacy`` package's
  order notation with expected per-unit results; :func:`convert_order` turns
  its orders into DAIDE text.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from . import mapdata
from .mapdata import province
from .position import Position, unit_text
from .text import parse

DATC_DIR = os.path.join(mapdata.DATA_DIR, "datc")
PARLANCE = "parlance_datc_daide.json"
DIPLOMACY = "diplomacy_datc_text.json"

#: Our choice for each DATC option, as Parlance's test file names the choices.
#: These are the DATC's preferred choices (see docs/diplomacy.md for each).
CHOSEN = {
    "datc_4a1": "b",    # multi-route convoy disrupted only if every route is
    "datc_4a2": "d",    # convoy paradoxes: Szykman rule
    "datc_4a3": "d",    # convoy to adjacent places: 1982/2000 "intent" rule
    "datc_4a4": "a",    # a convoyed attack from the supported-into area does not cut
    "datc_4a5": "b",    # dislodged by a convoy: may retreat to the attacker's origin
    "datc_4a7": "b",    # a dislodged unit without head-to-head still bounces
    "datc_4b1": "a",    # no coast where two are possible: the move fails
    "datc_4b2": "a",    # no coast where one is possible: that coast is taken
    "datc_4b3": "b",    # wrong coast: the move fails
    "datc_4b4": "d",    # support to a coast it cannot reach: allowed (coasts ignored in supports)
    "datc_4b5": "b",    # a coast on a one-coast province: ignored
    "datc_4b6": "b",    # a coast in a support order: ignored
    "datc_4b7": "a",    # building a fleet without a needed coast: fails
    "datc_4e1": "d",    # impossible orders are illegal
    "AOA": False,       # the game option "any orders accepted" is off: illegal orders are refused
}


@dataclass
class Outcome:
    case: str
    section: str
    status: str                 # passed / failed / skipped
    detail: str = ""
    steps: list = field(default_factory=list)


def load_cases(name: str = PARLANCE) -> list[dict]:
    with open(os.path.join(DATC_DIR, name), encoding="utf-8") as f:
        return json.load(f)["cases"]


def case_name(case: dict) -> str:
    return case.get("id") or case.get("method")


def section_of(case: dict) -> str:
    m = re.match(r"(6\.[A-Z])", case.get("id") or case.get("title") or "")
    return m.group(1) if m else (case.get("group") or "?")[:3]


def case_options(case: dict) -> dict:
    return {s["name"]: s["value"] for s in case["steps"] if s["op"] == "set_option"}


def applies(case: dict, chosen: dict = CHOSEN) -> bool:
    """Is the case for our choices (no option, or every option it sets is ours)?"""
    return all(chosen.get(k) == v for k, v in case_options(case).items())


def _unit_from_text(text: str) -> tuple[str, str, str]:
    power, utype, where = parse(text)
    return power, utype, mapdata.item_loc(where)


def unit_list(pos: Position) -> list[str]:
    units = [unit_text(*u) for u in pos.units.values()]
    units += [unit_text(*d[:3]) + " MRT" for d in pos.dislodged.values()]
    return sorted(units)


def run_parlance_case(case: dict, gmap=None) -> Outcome:
    """Run one case of the Parlance file: passed, or failed with the first difference."""
    gmap = gmap or mapdata.load()
    name = case_name(case)
    pos = Position(gmap)
    out = Outcome(name, section_of(case), "passed")
    for step in case["steps"]:
        op = step["op"]
        if op == "set_option":
            continue
        if op == "chown_sc":
            for c in step["centers"]:
                if step["power"] == "UNO":
                    pos.owners.pop(c, None)
                else:
                    pos.owners[c] = step["power"]
        elif op == "init_state":
            pos.season, pos.year = step["season"], step["year"]
            pos.units = {}
            for text in step["units"]:
                u = _unit_from_text(text)
                pos.units[province(u[2])] = u
            pos.dislodged, pos.orders, pos.builds = {}, {}, {}
        elif op == "order":
            note, _ = pos.submit(step["power"], step["order"])
            legal = note == "MBV"
            if step.get("expect") and legal != (step["expect"] == "legal"):
                out.status = "failed"
                out.detail = f"{step['order']}: {note}, expected {step['expect']}"
                return out
        elif op == "adjudicate":
            pos.process()
            got = unit_list(pos)
            want = sorted(step["expect_units"])
            if got != want:
                out.status = "failed"
                out.detail = (f"units: missing {sorted(set(want) - set(got))}, "
                              f"unexpected {sorted(set(got) - set(want))}")
                return out
        else:
            out.status = "failed"
            out.detail = f"unknown step {op}"
            return out
    return out


# ------------------------------------------------------- diplomacy package file
_POWER = {"AUSTRIA": "AUS", "ENGLAND": "ENG", "FRANCE": "FRA", "GERMANY": "GER", "ITALY": "ITA",
          "RUSSIA": "RUS", "TURKEY": "TUR"}
_ABBREV = {"ENG": "ECH", "LYO": "GOL", "BOT": "GOB", "NAF": "NAF"}     # its names that differ from DAIDE's
_COAST = {"NC": "NCS", "SC": "SCS", "EC": "ECS", "WC": "WCS"}


def _dloc(name: str) -> str:
    """A diplomacy-package location ('SPA/NC', 'ENG') as a location string ('SPA/NCS', 'ECH')."""
    if "/" in name:
        p, c = name.split("/")
        return f"{_ABBREV.get(p, p)}/{_COAST.get(c, c)}"
    return _ABBREV.get(name, name)


def _dprov(name: str) -> str:
    return province(_dloc(name))


def _loc_text(loc: str) -> str:
    return mapdata.loc_text(loc)


class Converted(ValueError):
    pass


def convert_order(power: str, text: str, units: dict) -> str:
    """A diplomacy-package order ('A PAR - BUR', 'F NTH C A LON - BEL', 'A LON - BEL VIA',
    'A MUN B', 'F TRI R ALB', 'A VIE D', 'WAIVE') as DAIDE order text.  ``units`` maps
    province -> (power, type, loc) for the units on the board (and dislodged ones)."""
    words = text.split()
    if words == ["WAIVE"]:
        return f"{power} WVE"
    kind = {"A": "AMY", "F": "FLT"}

    def unit(w_type: str, w_loc: str) -> str:
        loc = _dloc(w_loc)
        u = units.get(province(loc))
        if u is not None and u[1] == kind.get(w_type):
            return f"( {u[0]} {u[1]} {_loc_text(u[2])} )"
        return f"( {power} {kind.get(w_type, w_type)} {_loc_text(loc)} )"

    me = unit(words[0], words[1])
    rest = words[2:]
    if not rest or rest == ["H"]:
        return f"{me} HLD"
    op = rest[0]
    if op == "-":
        dest = _dloc(rest[1])
        if len(rest) > 2 and rest[2] == "VIA":
            return f"{me} CTO {province(dest)}"
        return f"{me} MTO {_loc_text(dest)}"
    if op == "S":
        other = unit(rest[1], rest[2])
        if len(rest) > 3 and rest[3] == "-":
            return f"{other and me} SUP {other} MTO {_dprov(rest[4])}"
        return f"{me} SUP {other}"
    if op == "C":
        other = unit(rest[1], rest[2])
        return f"{me} CVY {other} CTO {_dprov(rest[4])}"
    if op == "R":
        return f"{me} RTO {_loc_text(_dloc(rest[1]))}"
    if op == "D":
        if units.get(province(_dloc(words[1]))) and words[1] not in ():
            return f"{me} DSB" if rest == ["D"] else f"{me} REM"
        return f"{me} DSB"
    if op == "B":
        return f"( {power} {kind[words[0]]} {_loc_text(_dloc(words[1]))} ) BLD"
    raise Converted(f"cannot convert {text!r}")
