"""What a client may send (syntax levels 0 and 10, press checked against the game's level).

``check(msg, level)`` walks the flat items of a ``codec.Message`` and raises
``Fault(index)`` at the first item that breaks the syntax (the server answers
``HUH`` with ``ERR`` before that token), or returns the command name.  Press
inside ``SND`` is checked for balanced brackets and against the level: its
first token whose level is above the game's is the fault (the server routes
press, it does not need to understand it).  Brackets are checked first, by
``Message.tree`` (PRN).
"""
from __future__ import annotations

from ..text import Text
from . import tokens as T
from .codec import CLOSE, OPEN, Unknown

SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")

#: the press level at which each press token becomes legal (syntax document, levels 10-130)
PRESS_LEVEL = {
    "PRP": 10, "PCE": 10, "ALY": 10, "VSS": 10, "DRW": 10, "SLO": 10, "NOT": 10, "YES": 10,
    "REJ": 10, "BWX": 10, "HUH": 10, "TRY": 10, "ERR": 10,
    "XDO": 20, "DMZ": 20, "AND": 30, "ORR": 30, "SCD": 40, "OCC": 40, "CHO": 50,
    "INS": 60, "QRY": 60, "THK": 60, "FCT": 60, "IDK": 60, "SUG": 60, "WHT": 70, "HOW": 70,
    "EXP": 80, "SRY": 80, "FOR": 90, "IFF": 100, "THN": 100, "ELS": 100, "XOY": 110,
    "YDO": 110, "SND": 120, "FWD": 120, "BCC": 120, "FRM": 120, "WHY": 130, "POB": 130,
    "UHY": 130, "HPY": 130, "ANG": 130,
}
#: tokens a press message may start with, by level
PRESS_START = {"PRP": 10, "YES": 10, "REJ": 10, "BWX": 10, "HUH": 10, "TRY": 10, "CCL": 10,
               "INS": 60, "QRY": 60, "THK": 60, "FCT": 60, "IDK": 60, "SUG": 60, "WHT": 70,
               "HOW": 70, "EXP": 80, "SRY": 80, "IFF": 100, "FRM": 120, "WHY": 130, "POB": 130,
               "UHY": 130, "HPY": 130, "ANG": 130}
TEXT_LEVEL = 8000


class Fault(Exception):
    """The item at ``index`` is the first that breaks the syntax."""

    def __init__(self, index: int, why: str = "") -> None:
        super().__init__(why or f"syntax error at item {index}")
        self.index, self.why = index, why


class _Cursor:
    def __init__(self, items: list) -> None:
        self.items, self.i = items, 0

    def peek(self):
        return self.items[self.i] if self.i < len(self.items) else None

    def fail(self, why: str = ""):
        raise Fault(self.i, why)

    def take(self):
        item = self.peek()
        if item is None:
            self.fail("message ends too early")
        self.i += 1
        return item

    def token(self, *names: str) -> str:
        item = self.peek()
        if not (isinstance(item, str) and not isinstance(item, Text) and item in names):
            self.fail(f"expected {'/'.join(names)}")
        self.i += 1
        return item

    def kind(self, test, what: str) -> str:
        item = self.peek()
        if not (type(item) is str and test(item)):
            self.fail(f"expected {what}")
        self.i += 1
        return item

    def opened(self) -> None:
        if self.peek() is not OPEN:
            self.fail("expected (")
        self.i += 1

    def closed(self) -> None:
        if self.peek() is not CLOSE:
            self.fail("expected )")
        self.i += 1

    def integer(self) -> int:
        item = self.peek()
        if type(item) is not int:
            self.fail("expected a number")
        self.i += 1
        return item

    def text(self) -> str:
        item = self.peek()
        if not isinstance(item, Text):
            self.fail("expected text")
        self.i += 1
        return item

    def at_end(self) -> bool:
        return self.i >= len(self.items)

    def end(self) -> None:
        if not self.at_end():
            self.fail("unexpected token after the message")

    def skip_group(self) -> None:
        """Past a bracketed group (balanced: Message.tree checked it)."""
        self.opened()
        depth = 1
        while depth:
            item = self.take()
            depth += (item is OPEN) - (item is CLOSE)


def _is_power(name: str) -> bool:
    return T.is_power(name)


def _turn(c: _Cursor) -> None:
    c.opened()
    c.token(*SEASONS)
    c.integer()
    c.closed()


def _location(c: _Cursor) -> None:
    if c.peek() is OPEN:
        c.opened()
        c.kind(T.is_province, "a province")
        c.kind(T.is_coast, "a coast")
        c.closed()
    else:
        c.kind(T.is_province, "a province")


def _unit(c: _Cursor) -> None:
    c.opened()
    c.kind(_is_power, "a power")
    c.token("AMY", "FLT")
    _location(c)
    c.closed()


def _order(c: _Cursor) -> None:
    c.opened()
    if type(c.peek()) is str and _is_power(c.peek()):
        c.take()
        c.token("WVE")
        c.closed()
        return
    _unit(c)
    verb = c.token("HLD", "MTO", "SUP", "CVY", "CTO", "RTO", "DSB", "BLD", "REM")
    if verb in ("MTO", "RTO"):
        _location(c)
    elif verb == "SUP":
        _unit(c)
        if c.peek() == "MTO":
            c.take()
            c.kind(T.is_province, "a province")
    elif verb == "CVY":
        _unit(c)
        c.token("CTO")
        c.kind(T.is_province, "a province")
    elif verb == "CTO":
        c.kind(T.is_province, "a province")
        if c.peek() == "VIA":
            c.take()
            c.opened()
            c.kind(T.is_province, "a sea")
            while c.peek() is not CLOSE:
                c.kind(T.is_province, "a sea")
            c.closed()
    c.closed()


def _powers(c: _Cursor) -> list[str]:
    c.opened()
    out = [c.kind(_is_power, "a power")]
    while c.peek() is not CLOSE:
        out.append(c.kind(_is_power, "a power"))
    c.closed()
    return out


def check_press(items: list, start: int, level: int) -> None:
    """The press group starting at ``items[start]`` (an OPEN): its first token is a
    press message at this level, and no token in it is above the level."""
    c = _Cursor(items)
    c.i = start
    c.opened()
    first = c.peek()
    if not (type(first) is str and PRESS_START.get(first, 10**6) <= level):
        c.fail("not a press message at this level")
    depth, in_try = 1, None
    while depth:
        item = c.peek()
        if item is None:
            c.fail("message ends too early")
        if item is OPEN:
            depth += 1
        elif item is CLOSE:
            depth -= 1
            if in_try is not None and depth < in_try:
                in_try = None
        elif isinstance(item, Text):
            if level < TEXT_LEVEL:
                c.fail("free text needs level 8000")
        elif isinstance(item, Unknown):
            c.fail("unknown token")
        elif type(item) is str and in_try is None:
            if PRESS_LEVEL.get(item, 0) > level:
                c.fail(f"{item} needs level {PRESS_LEVEL[item]}")
            if item == "TRY":            # TRY (tokens) lists tokens, whatever their level
                in_try = depth + 1
        c.i += 1


def check(msg, level: int = 0) -> str:
    """The command of a well-formed client message, or Fault at the first bad item."""
    c = _Cursor(msg.items)
    if c.at_end():
        c.fail("empty message")
    command = c.peek()
    if not isinstance(command, str) or isinstance(command, Text):
        c.fail("a message starts with a command")
    c.take()
    if command in ("MAP", "MDF", "HLO", "NOW", "SCO", "MIS", "ORD", "GOF", "OFF", "SMR"):
        pass
    elif command == "OBS":
        if not c.at_end():
            c.opened(), c.text(), c.closed()
            c.opened(), c.text(), c.closed()
    elif command == "NME":
        c.opened(), c.text(), c.closed()
        c.opened(), c.text(), c.closed()
    elif command == "IAM":
        c.opened(), c.kind(_is_power, "a power"), c.closed()
        c.opened(), c.integer(), c.closed()
    elif command == "TME":
        if not c.at_end():
            c.opened(), c.integer(), c.closed()
    elif command == "HST":
        _turn(c)
    elif command == "DRW":
        if not c.at_end():
            if level < 10:
                c.fail("partial draws need level 10")
            _powers(c)
    elif command in ("YES", "REJ"):
        c.opened()
        c.token("MAP", "SVE", "LOD", "OFF")
        while c.peek() is not CLOSE and not c.at_end():
            if c.peek() is OPEN:
                c.skip_group()
            else:
                c.take()
        c.closed()
    elif command == "NOT":
        c.opened()
        sub = c.token("SUB", "GOF", "DRW", "TME")
        if sub == "SUB":
            while c.peek() is OPEN:
                _order(c)
        elif sub == "DRW":
            if c.peek() is OPEN:
                if level < 10:
                    c.fail("partial draws need level 10")
                _powers(c)
        elif sub == "TME":
            if c.peek() is OPEN:
                c.opened(), c.integer(), c.closed()
        c.closed()
    elif command == "SUB":
        if c.peek() is OPEN and c.i + 1 < len(c.items) and c.items[c.i + 1] in SEASONS:
            _turn(c)
        _order(c)
        while not c.at_end():
            _order(c)
    elif command == "SND":
        if level < 10:
            c.i -= 1
            c.fail("press needs level 10")
        if c.peek() is OPEN and c.i + 1 < len(c.items) and c.items[c.i + 1] in SEASONS:
            _turn(c)
        _powers(c)
        check_press(c.items, c.i, level)
        c.skip_group()
    elif command == "ADM":
        c.opened(), c.text(), c.closed()
        c.opened(), c.text(), c.closed()
    elif command in ("HUH", "PRN"):
        return command          # never answered
    else:
        c.i -= 1
        c.fail("not a command a client sends")
    c.end()
    return command
