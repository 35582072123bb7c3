"""DAIDE messages as text and as trees.

A tree is a Python list.  Its items are token names (``str``, upper case:
``"SUB"``, ``"ENG"``, ``"NCS"``), integers (``int``), text literals
(:class:`Text`, a ``str`` subclass, written ``'like this'`` with ``''`` for a
quote inside) and nested lists for bracketed groups.

``parse("SUB ((ENG FLT LON) MTO NTH)")`` gives
``["SUB", [["ENG", "FLT", "LON"], "MTO", "NTH"]]`` and ``render`` gives back the
canonical spacing ``"SUB ( ( ENG FLT LON ) MTO NTH )"``.  Token names are
read case-insensitively (map files write provinces in lower case).
"""
from __future__ import annotations

from typing import Any


class Text(str):
    """A DAIDE text literal (the ASCII tokens between quotes)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Text({str.__repr__(self)})"


class TextError(ValueError):
    """The text is not a well-formed DAIDE message; ``position`` is the index of the first bad character."""

    def __init__(self, position: int, reason: str):
        super().__init__(f"{reason} at position {position}")
        self.position = position
        self.reason = reason


_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_DIGITS = frozenset("0123456789")
_SPACE = frozenset(" \t\r\n")


def parse(text: str) -> list:
    """The message tree of ``text``; TextError at the first bad token or bracket."""
    stack: list[list] = [[]]
    opened: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _SPACE:
            i += 1
        elif c == "(":
            group: list = []
            stack[-1].append(group)
            stack.append(group)
            opened.append(i)
            i += 1
        elif c == ")":
            if len(stack) == 1:
                raise TextError(i, "unmatched ')'")
            stack.pop()
            opened.pop()
            i += 1
        elif c == "'":
            chars = []
            j = i + 1
            while True:
                if j >= n:
                    raise TextError(i, "unterminated text")
                if text[j] == "'":
                    if j + 1 < n and text[j + 1] == "'":
                        chars.append("'")
                        j += 2
                        continue
                    break
                chars.append(text[j])
                j += 1
            stack[-1].append(Text("".join(chars)))
            i = j + 1
        elif c in _DIGITS or (c == "-" and i + 1 < n and text[i + 1] in _DIGITS):
            j = i + 1
            while j < n and text[j] in _DIGITS:
                j += 1
            if j < n and text[j] in _NAME_CHARS:
                raise TextError(i, "bad number")
            stack[-1].append(int(text[i:j]))
            i = j
        elif c in _NAME_CHARS:
            j = i + 1
            while j < n and text[j] in _NAME_CHARS:
                j += 1
            stack[-1].append(text[i:j].upper())
            i = j
        else:
            raise TextError(i, f"unexpected character {c!r}")
    if opened:
        raise TextError(opened[-1], "unmatched '('")
    return stack[0]


def _render_item(item: Any, out: list[str]) -> None:
    if isinstance(item, list):
        out.append("(")
        for sub in item:
            _render_item(sub, out)
        out.append(")")
    elif isinstance(item, Text):
        out.append("'" + item.replace("'", "''") + "'")
    elif isinstance(item, bool):
        raise TypeError(f"not a DAIDE item: {item!r}")
    elif isinstance(item, int):
        out.append(str(item))
    elif isinstance(item, str):
        out.append(item)
    else:
        raise TypeError(f"not a DAIDE item: {item!r}")


def render(tree: list | tuple) -> str:
    """Canonical text of a message tree: items separated by one space, brackets spaced."""
    out: list[str] = []
    for item in tree:
        _render_item(item, out)
    return " ".join(out)


def render_item(item: Any) -> str:
    """Canonical text of one item (a token, number, Text or bracketed group)."""
    out: list[str] = []
    _render_item(item, out)
    return " ".join(out)


def canonical(text: str) -> str:
    """``text`` re-rendered with canonical spacing and upper-case tokens."""
    return render(parse(text))
