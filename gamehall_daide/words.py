"""Diplomacy orders, results and order replies in words, for people reading the web page.

DAIDE says ``( ENG FLT LON ) MTO NTH`` and ``ORD ( SPR 1901 ) ( ( ENG FLT LON ) MTO NTH ) ( BNC )``;
a player reads "England: F London → North Sea" and "... : bounced".  The provinces' names
are in the map's layout file (``data/<variant>-layout.json``, the names of DAIDE's token
list); a province the file does not name keeps its code.  Pure: no Twisted, no engine.
"""
from __future__ import annotations

import functools
import json
import os

from .mapdata import DATA_DIR
from .text import parse

POWER_NAMES = {"AUS": "Austria", "ENG": "England", "FRA": "France", "GER": "Germany", "ITA": "Italy",
               "RUS": "Russia", "TUR": "Turkey"}
COASTS = {"NCS": "north coast", "NEC": "north-east coast", "ECS": "east coast", "SEC": "south-east coast",
          "SCS": "south coast", "SWC": "south-west coast", "WCS": "west coast", "NWC": "north-west coast"}
UNITS = {"AMY": "A", "FLT": "F"}
#: ORD results
RESULTS = {"SUC": "succeeds", "BNC": "bounced", "CUT": "support cut", "DSR": "convoy disrupted",
           "NSO": "no such order", "FLD": "fails", "RET": "dislodged"}
#: THX notes (an order refused, and why)
NOTES = {"MBV": "accepted", "FAR": "refused: not adjacent", "NSP": "refused: no such province",
         "NSU": "refused: no such unit", "NAS": "refused: not at sea", "NSF": "refused: no such fleet",
         "NSA": "refused: no such army", "NYU": "refused: not your unit", "NRN": "refused: no retreat needed",
         "NVR": "refused: not a valid retreat", "YSC": "refused: not your supply centre",
         "ESC": "refused: not an empty supply centre", "HSC": "refused: not a home supply centre",
         "NSC": "refused: not a supply centre", "CST": "refused: no coast specified",
         "NMB": "refused: no more builds allowed", "NMR": "refused: no more removals allowed",
         "NRS": "refused: not the right season"}


SEASONS = {"SPR": "Spring", "SUM": "Summer", "FAL": "Autumn", "AUT": "Autumn", "WIN": "Winter"}


def turn(text: str) -> str:
    """``FAL 1901`` -> "Autumn 1901"."""
    season, _, year = text.partition(" ")
    return f"{SEASONS.get(season, season)} {year}".strip()


@functools.lru_cache(maxsize=None)
def province_names(variant: str = "standard") -> dict[str, str]:
    path = os.path.join(DATA_DIR, f"{variant.lower()}-layout.json")
    try:
        with open(path, encoding="utf-8") as f:
            provinces = json.load(f)["provinces"]
    except OSError:
        return {}
    return {code: p["name"] for code, p in provinces.items() if "name" in p}


def power_name(power: str) -> str:
    return POWER_NAMES.get(power, power)


def place(loc, names: dict[str, str]) -> str:
    """``LON`` -> "London"; ``[STP, NCS]`` (or "STP/NCS") -> "St Petersburg (north coast)"."""
    if isinstance(loc, str) and "/" in loc:
        loc = loc.split("/", 1)
    if isinstance(loc, list) and len(loc) == 2:
        return f"{names.get(loc[0], loc[0])} ({COASTS.get(loc[1], loc[1])})"
    return names.get(loc, loc) if isinstance(loc, str) else str(loc)


def unit(tree, names: dict[str, str]) -> str:
    """``[ENG, FLT, LON]`` -> "F London" (the power is said once, in front of the order)."""
    return f"{UNITS.get(tree[1], tree[1])} {place(tree[2], names)}"


def order(tree, names: dict[str, str]) -> str:
    """An order (parsed or text) in words: "England: A Paris supports A Burgundy → Picardy"."""
    if isinstance(tree, str):
        tree = parse(tree)
    if len(tree) == 2 and isinstance(tree[0], str):          # ( ENG WVE )
        return f"{power_name(tree[0])} waives a build"
    who, verb, rest = tree[0], tree[1], tree[2:]
    head = f"{power_name(who[0])}: {unit(who, names)}"
    if verb == "HLD":
        return f"{head} holds"
    if verb == "MTO":
        return f"{head} → {place(rest[0], names)}"
    if verb == "CTO":
        via = f" via {', '.join(place(s, names) for s in rest[2])}" if len(rest) > 2 else ""
        return f"{head} → {place(rest[0], names)} (convoyed{via})"
    if verb == "RTO":
        return f"{head} retreats → {place(rest[0], names)}"
    if verb in ("SUP", "CVY"):
        helped = f"{unit(rest[0], names)}"
        if rest[0][0] != who[0]:
            helped = f"{power_name(rest[0][0])} {helped}"
        to = f" → {place(rest[2], names)}" if len(rest) > 2 else ""
        return f"{head} {'supports' if verb == 'SUP' else 'convoys'} {helped}{to}"
    words = {"DSB": "disbands", "BLD": "is built", "REM": "is removed"}
    return f"{head} {words.get(verb, verb)}"


def said(text: str, names: dict[str, str]) -> str:
    """An order a player sent, in words; one that is not an order (refused as such) as sent,
    without its brackets."""
    try:
        return order(text, names)
    except (ValueError, IndexError, TypeError, KeyError):
        return " ".join(text.replace("(", " ").replace(")", " ").split())


def results(tokens: list) -> str:
    return ", ".join(RESULTS.get(r, str(r)) for r in tokens) or "no result"


def ord_line(text: str, names: dict[str, str]) -> str:
    """``ORD ( SPR 1901 ) ( ( ENG FLT LON ) MTO NTH ) ( BNC )`` -> "England: F London → North Sea: bounced"."""
    tree = parse(text)
    return f"{order(tree[2], names)}: {results(tree[3])}"


def note(code: str) -> str:
    return NOTES.get(code, f"refused ({code})")


def missing(text: str, names: dict[str, str]) -> str:
    """``MIS ( ENG FLT LON ) ( ENG AMY LVP )`` -> "F London, A Liverpool"; ``MIS ( -2 )`` ->
    "2 builds" (DAIDE: builds negative, removals positive); ``MIS`` -> "nothing"."""
    tree = parse(text)[1:]
    if not tree:
        return "nothing"
    if len(tree) == 1 and len(tree[0]) == 1 and isinstance(tree[0][0], int):
        n = tree[0][0]
        what = "build" if n < 0 else "removal"
        return f"{abs(n)} {what}{'s' if abs(n) != 1 else ''}"
    out = []
    for item in tree:
        text = unit(item[:3], names)
        if len(item) > 4 and item[3] == "MRT":            # a dislodged unit and where it may go
            text += f" (retreat to {', '.join(place(p, names) for p in item[4]) or 'nowhere'})"
        out.append(text)
    return ", ".join(out)
