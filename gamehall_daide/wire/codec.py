"""DM payloads <-> DAIDE messages (protocol chapter 4), and the replies that echo one.

A received DM becomes a ``Message``: the raw token codes (kept, so replies such
as ``HUH``, ``PRN``, ``YES (SND ...)`` echo exactly what the client sent), and a
flat list of items, where a run of ASCII tokens is one ``Text`` and every item
remembers the index of its first code (so ``HUH`` can put ``ERR`` before the
first bad token).  ``Message.tree()`` nests the items into the list trees of
``gamehall_daide.text``.  Codes that name no known token become ``Unknown``
items (the syntax check then answers HUH); codes of the private categories
0x58-0x5F are never valid on the wire (EM 0x0E).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..text import Text, parse
from . import tokens as T


class InvalidToken(ValueError):
    """A token that can never be sent (private category): EM 0x0E."""


class BracketError(ValueError):
    """Brackets do not balance: the server answers PRN."""


class Unknown(int):
    """A token code with no name in the table (valid on the wire, not understood)."""

    def __repr__(self) -> str:
        return f"Unknown(0x{int(self):04X})"


OPEN, CLOSE = "(", ")"


@dataclass
class Message:
    codes: list[int]
    items: list = field(default_factory=list)     # "(" ")" names, int, Text, Unknown
    starts: list[int] = field(default_factory=list)

    def tree(self) -> list:
        """The nested tree; BracketError when the brackets do not balance."""
        stack: list[list] = [[]]
        for item in self.items:
            if item is OPEN:
                group: list = []
                stack[-1].append(group)
                stack.append(group)
            elif item is CLOSE:
                if len(stack) == 1:
                    raise BracketError("unmatched ')'")
                stack.pop()
            else:
                stack[-1].append(item)
        if len(stack) != 1:
            raise BracketError("unmatched '('")
        return stack[0]

    def code_index(self, item_index: int) -> int:
        """Index in ``codes`` of item ``item_index`` (the end for one past the last)."""
        return self.starts[item_index] if item_index < len(self.starts) else len(self.codes)

    def text(self) -> str:
        """For logs: the message in DAIDE text (unknown tokens as hex)."""
        out = []
        for item in self.items:
            if isinstance(item, Unknown):
                out.append(f"0x{int(item):04X}")
            elif isinstance(item, Text):
                out.append("'" + item.replace("'", "''") + "'")
            else:
                out.append(str(item))
        return " ".join(out)


def codes_of(payload: bytes) -> list[int]:
    """The 2-byte big-endian codes of a DM payload (its length is even: the framer checks)."""
    return [int.from_bytes(payload[i:i + 2], "big") for i in range(0, len(payload) - 1, 2)]


def payload_of(codes) -> bytes:
    return b"".join(code.to_bytes(2, "big") for code in codes)


def decode(payload: bytes) -> Message:
    """A DM payload as a Message; InvalidToken for a private-category code."""
    codes = codes_of(payload)
    msg = Message(codes)
    items, starts = msg.items, msg.starts
    run: list[str] = []
    for index, code in enumerate(codes):
        if T.category(code) == T.TEXT_CATEGORY:
            if not run:
                starts.append(index)
            run.append(chr(code & 0xFF))
            continue
        if run:
            items.append(Text("".join(run)))
            run = []
        starts.append(index)
        if code == T.BRA:
            items.append(OPEN)
        elif code == T.KET:
            items.append(CLOSE)
        elif T.is_integer(code):
            items.append(T.decode_integer(code))
        elif T.is_private(code):
            raise InvalidToken(f"token 0x{code:04X} is in a private category")
        else:
            name = T.NAMES.get(code)
            items.append(name if name is not None else Unknown(code))
    if run:
        items.append(Text("".join(run)))
    return msg


def _codes(item, out: list[int]) -> None:
    if isinstance(item, (list, tuple)):
        out.append(T.BRA)
        for sub in item:
            _codes(sub, out)
        out.append(T.KET)
    elif isinstance(item, Text):
        for char in item:
            point = ord(char)
            out.append((T.TEXT_CATEGORY << 8) | (point if 32 <= point < 127 else ord("?")))
    elif isinstance(item, Unknown):
        out.append(int(item))
    elif isinstance(item, bool):
        raise TypeError(f"not a DAIDE item: {item!r}")
    elif isinstance(item, int):
        out.append(T.encode_integer(item))
    elif isinstance(item, str):
        code = T.CODES.get(item.upper())
        if code is None:
            raise ValueError(f"unknown DAIDE token {item!r}")
        out.append(code)
    else:
        raise TypeError(f"not a DAIDE item: {item!r}")


def encode_codes(tree) -> list[int]:
    out: list[int] = []
    for item in tree:
        _codes(item, out)
    return out


def encode(tree) -> bytes:
    """DM payload of a message tree; ValueError for an unknown token name."""
    return payload_of(encode_codes(tree))


def encode_text(text: str) -> bytes:
    """DM payload of a message in DAIDE text (``"NOW ( SPR 1901 ) ..."``)."""
    return encode(parse(text))


def echo(command: str, codes, err_at: int | None = None) -> bytes:
    """``command ( codes )``, with ERR inserted before ``codes[err_at]`` when given
    (HUH (... ERR ...), PRN (...), YES (...), REJ (...))."""
    body = list(codes)
    if err_at is not None:
        body.insert(err_at, T.CODES["ERR"])
    return payload_of([T.CODES[command], T.BRA, *body, T.KET])


def prefixed(prefix_tree, codes) -> bytes:
    """``prefix ( codes )``: e.g. CCD (ENG) (SND ...) or FRM (ENG) (FRA) (press) built from raw codes."""
    return payload_of(encode_codes(prefix_tree) + [T.BRA, *codes, T.KET])
