"""DAIDE's replies and broadcasts written from the game and the hall, sans IO: the standard
map's static messages (MDF, the starting NOW and SCO), HLO, what a stored game step tells the
table (CCD, ORD, SCO, SLO/DRW, THX/MIS, the reply to NOT (SUB)), SMR, and the ADM that carries
the hall's chat.  ``protocol`` sends them; nothing here touches a connection."""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from importlib import resources

from ..text import Text, parse, render_item
from . import codec

MAP_NAME = "STANDARD"
#: HLO's order of the table options (protocol.DEFAULT_OPTIONS)
OPTION_ORDER = ("LVL", "MTL", "RTL", "BTL", "DSD", "AOA", "PDA", "NPR", "NPB", "PTL")
PRESS_ONLY = ("PDA", "NPR", "NPB", "PTL")       # announced at level 10 and up
MAX_PASSCODE = 8191                  # the largest DAIDE integer


def _data(name: str) -> str:
    return resources.files("gamehall_daide").joinpath("data", name).read_text("ascii")


_STATIC: dict[str, bytes] = {}


def static_payload(name: str) -> bytes:
    """The encoded MDF / starting NOW / starting SCO of the standard map (data files)."""
    payload = _STATIC.get(name)
    if payload is None:
        payload = _STATIC[name] = codec.encode(parse(_data(f"STANDARD.{name}")))
    return payload


def variant_text(opts: dict) -> str:
    """HLO's variant: ``( LVL 0 ) ( MTL 60 ) ...`` in the order of the syntax document."""
    parts = []
    for key in OPTION_ORDER:
        if key in PRESS_ONLY and opts["LVL"] < 10:
            continue
        value = opts[key]
        if key == "LVL":
            parts.append(f"( LVL {int(value)} )")
        elif isinstance(value, bool):
            if value:
                parts.append(f"( {key} )")
        elif value:
            parts.append(f"( {key} {int(value)} )")
    return " ".join(parts)


def turn_text(engine) -> str:
    season, year = engine.turn()
    return f"{season} {year}"


def centres_of(engine) -> dict[str, int]:
    tree = parse(engine.sco())
    return {group[0]: len(group) - 1 for group in tree[1:] if isinstance(group, list)}


def eliminated_of(engine) -> dict[str, int | None]:
    """Powers out of the game (no centres, no units): power -> year (None when unknown)."""
    known = getattr(engine, "eliminated", None)
    if known is not None:
        return dict(known())
    centres = centres_of(engine)
    units = {group[0] for group in parse(engine.now())[2:] if isinstance(group, list)}
    return {p: None for p in engine.powers if not centres.get(p) and p not in units}


def passcode(table, power: str) -> int:
    """The seat's passcode: derived from the table's (private) seed, so it survives a restart."""
    digest = hmac.new(str(table.seed).encode(), power.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big") % MAX_PASSCODE + 1


def hlo(table, power: str | None, opts: dict) -> str:
    """HLO to a power (with its passcode), or to an observer (UNO); ``opts``: the table's options."""
    if power is None:
        return f"HLO ( UNO ) ( 0 ) ( {variant_text(opts)} )"
    return f"HLO ( {power} ) ( {passcode(table, power)} ) ( {variant_text(opts)} )"


def adm(sender: str, text: str) -> bytes:
    """An ADM from ``sender`` (the hall's chat, the operator's word), its text cut to 2,000."""
    return codec.encode(["ADM", [Text(sender)], [Text(text[:2000])]])


def cancel_reply(cancelled: list[dict]) -> str:
    """The reply to NOT (SUB ...): YES, or REJ if one of the orders was not there."""
    body = "".join(f" ( {e['order']} )" for e in cancelled if e["order"])
    verdict = "YES" if all(e["ok"] for e in cancelled) else "REJ"
    return f"{verdict} ( NOT ( SUB{body} ) )"


def order_reply(event: dict) -> str:
    """THX for a submitted order, or the MIS of a power still to order."""
    return f"THX ( {event['order']} ) ( {event['note']} )" if event["type"] == "thx" else event["text"]


@dataclass
class StepTexts:
    """What a stored game step tells the whole table: CCD and ORD lines, then SCO, the end
    (SLO/DRW), and the new turn (``phase``: its text, or False) with its NOW."""
    broadcast: list[str] = field(default_factory=list)
    sco: str | None = None
    end: str | None = None
    phase: str | bool = False
    now: str | None = None


def step_texts(events: list[dict], engine, turn: str, pda: bool) -> StepTexts:
    """The broadcasts of a game step's ``events`` (``turn``: the turn the CCDs are for;
    ``pda``: the table's PDA option, under which a draw names its powers)."""
    told = StepTexts()
    for event in events:
        kind = event.get("type")
        if kind == "ccd":
            told.broadcast.append(f"CCD ( {event['power']} ) ( {turn} )")
        elif kind == "ord":
            told.broadcast.append(event["text"])
        elif kind == "phase":
            told.phase, told.now = event.get("turn") or turn_text(engine), event.get("now")
        elif kind == "sco":
            told.sco = event.get("text") or engine.sco()
        elif kind == "solo":
            told.end = f"SLO ( {event['power']} )"
        elif kind == "draw":
            powers = event.get("powers")
            named = pda and powers and set(powers) != set(_survivors(engine))
            told.end = f"DRW ( {' '.join(powers)} )" if named else "DRW"
    return told


def _survivors(engine) -> list[str]:
    out = eliminated_of(engine)
    return [p for p in engine.powers if p not in out]


def smr(table) -> str:
    """SMR: each power's player, client version, centres, and the year it was eliminated."""
    engine = table.engine
    versions = table.options.get("daide_versions") or {}
    centres = centres_of(engine)
    out = eliminated_of(engine)
    parts = []
    for index, power in enumerate(engine.powers):
        name = table.seats[index].name
        version = versions.get(name) or table.seats[index].bot or ""
        entry = f"( {power} ( {render_item(Text(name))} ) ( {render_item(Text(version))} ) {centres.get(power, 0)}"
        if not centres.get(power) and out.get(power):
            entry += f" {out[power]}"
        parts.append(entry + " )")
    return f"SMR ( {turn_text(engine)} ) " + " ".join(parts)
