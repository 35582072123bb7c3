"""The ``et`` line protocol: lines <-> ``Message(kind, args)``, both directions.

Every message of ``shared/protocols/euphrates-tigris-protocol.txt`` is one
template below, with its exact spelling and field order.  A line is words
separated by single spaces (CRLF framing is the transport's business).  The
kind of a message is its leading literal words (``ask action``,
``state internaldef``, ``board!``).  Fields:

- ``{n}`` a whole number (player numbers, counts, coordinates, connection ids);
- ``{c:colour}`` ``red``, ``green``, ``blue`` or ``black``;
- ``{w:word}`` one word; ``{w:id}`` a connection id or ``-`` (the ``ask``
  invitation's missing players, decoded as None);
- ``{t:rest}`` the rest of the line, spaces and all (names, chat, passwords);
- ``{c:colours}`` / ``{n:ints}`` the remaining words, any number of them;
- ``{u:users}`` a count then that many ``id name`` pairs (``who``, ``state asked``);
- ``{name:speaker}`` a name followed by ``:`` (``say id name: text``).

Where the protocol text is loose, this server reads it so: ``finalscore``
carries the literal word ``player`` before the player number (``finalscore
player 2 wild 1 red 4 ... position 1``); ``state playeraction`` numbers the
actions of a turn 1 and 2; names on this wire are single words (spaces in a
hall nickname are sent as ``_``).

``decode_client`` / ``decode_server`` raise :class:`CodecError` (a
``ValueError`` whose text suits an ``ERROR`` reply) and nothing else.

Board cells are four characters (``board``, ``board!``): see :func:`cell_code`.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..board import COLOUR_NAMES, MONUMENTS, N_CELLS, RIVER

COLOUR_WORDS = ("red", "green", "blue", "black")

SERVER_TEMPLATES = (
    "welcome {id}",
    "newconn {id}",
    "name {id} {name:rest}",
    "who {users:users}",
    "say {id} {name:speaker} {text:rest}",
    "note {text:rest}",
    "ERROR {text:rest}",
    "outconn {id}",
    "password-confirm {pwd:rest}",
    "takeover-confirm {id}",
    "state asked {users:users}",
    "state connected",
    "state accepted",
    "accepts {id} {name:rest}",
    "declines {id} {name:rest}",
    "state commence",
    "playorder {ids:ints}",
    "board {width} {height} {cells:word}",
    "board! {x} {y} {cell:word}",
    "hand tile red {red} green {green} blue {blue} black {black} "
    "leader red {leader_red} green {leader_green} blue {leader_blue} black {leader_black} "
    "catastrophe {catastrophe}",
    "score wild {wild} red {red} green {green} blue {blue} black {black}",
    "otherhand {player} tile {tiles} leader red {red} green {green} blue {blue} black {black} "
    "catastrophe {catastrophes}",
    "otherscore+ {player} wild {wild} red {red} green {green} blue {blue} black {black}",
    "state playeraction {player} {action}",
    "ask action",
    "state internal {attacker} {defender} {colour:colour}",
    "ask add {colour:colour}",
    "state internaldef {attacker} {defender} {colour:colour} {added}",
    "ask external {colours:colours}",
    "state external {attacker} {defender} {colour:colour}",
    "state externaldef {attacker} {defender} {colour:colour} {added}",
    "ask monument {colour:colour} {x} {y} {colours:colours}",
    "state treasureask {player}",
    "ask treasure",
    "state gameover",
    "finalscore player {player} wild {wild} red {red} green {green} blue {blue} black {black} "
    "position {position}",
)

CLIENT_TEMPLATES = (
    "name {name:rest}",
    "who",
    "say {text:rest}",
    "quit",
    "password {pwd:rest}",
    "takeover {id} {pwd:rest}",
    "ask {a:id} {b:id} {c:id} e+t restore {game:word}",
    "ask {a:id} {b:id} {c:id} e+t",
    "accept",
    "decline",
    "board",
    "ansiboard",
    "hand",
    "score",
    "abort",
    "pass",
    "discard red {red} green {green} blue {blue} black {black}",
    "leaderadd {colour:colour} {x} {y}",
    "leadermove {x} {y} {to_x} {to_y}",
    "leadertake {x} {y}",
    "catastrophe {x} {y}",
    "tile {colour:colour} {x} {y}",
    "add {colour:colour} {n}",
    "resolve {colour:colour}",
    "build {x} {y} {colour1:colour} {colour2:colour}",
    "take {x} {y}",
)

_FIELD = re.compile(r"\{(\w+)(?::(\w+))?\}\Z")
_INT = re.compile(r"\d{1,9}\Z")
#: the longest line a client may send, in characters (chat included)
MAX_LINE = 512


class CodecError(ValueError):
    """A line that is not a well-formed message; ``str(exc)`` says why."""


class Message(NamedTuple):
    kind: str
    args: dict = {}


class _Template:
    __slots__ = ("kind", "lead", "tokens", "fields")

    def __init__(self, text: str):
        self.tokens: list[tuple[str, str | None]] = []      # (literal, None) or (field, type)
        for word in text.split(" "):
            m = _FIELD.match(word)
            self.tokens.append((m.group(1), m.group(2) or "int") if m else (word, None))
        # the kind: the first word, or two for "state X" / "ask X" (not the client's "ask ID ...")
        first = self.tokens[0][0]
        two = first in ("state", "ask") and len(self.tokens) > 1 and self.tokens[1][1] is None
        self.kind = f"{first} {self.tokens[1][0]}" if two else first
        self.lead = 2 if two else 1
        self.fields = [w for w, k in self.tokens if k is not None]

    # -------------------------------------------------------------- encoding
    def encode(self, args: dict) -> str:
        out = []
        for word, kind in self.tokens:
            if kind is None:
                out.append(word)
                continue
            try:
                value = args[word]
            except KeyError:
                raise CodecError(f"{self.kind}: missing {word}") from None
            out.append(_encode_field(self.kind, word, kind, value))
        return " ".join(s for s in out if s != "")       # an empty list or text adds no word

    # -------------------------------------------------------------- decoding
    def match(self, line: str) -> dict | None:
        """The fields of ``line`` if it has this template's literals, else None; CodecError if the
        literals match but a field is bad."""
        words = line.split(" ")
        args: dict = {}
        i = 0
        for t, (word, kind) in enumerate(self.tokens):
            if kind is None:
                if i >= len(words) or words[i] != word:
                    if t < self.lead:
                        return None
                    raise CodecError(f"{self.kind}: expected {word!r} in {self.usage()}")
                i += 1
                continue
            if kind == "rest":
                args[word] = " ".join(words[i:])
                i = len(words)
                continue
            if kind in ("colours", "ints", "users"):
                rest = words[i:] if words[i:] != [""] else []
                args[word] = _decode_list(self.kind, kind, rest, self.usage())
                i = len(words)
                continue
            if i >= len(words) or words[i] == "":
                raise CodecError(f"{self.kind}: missing {word} in {self.usage()}")
            args[word] = _decode_field(self.kind, word, kind, words[i])
            i += 1
        if i != len(words):
            raise CodecError(f"{self.kind}: too many words (expected {self.usage()})")
        return args

    def usage(self) -> str:
        return " ".join(w if k is None else f"<{w}>" for w, k in self.tokens)


def _encode_field(kind_name: str, name: str, kind: str, value) -> str:
    if kind == "int":
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise CodecError(f"{kind_name}: {name} must be a whole number, not {value!r}")
        return str(value)
    if kind == "colour":
        if value not in COLOUR_WORDS:
            raise CodecError(f"{kind_name}: {name} must be a colour, not {value!r}")
        return value
    if kind == "id":
        return "-" if value is None else _encode_field(kind_name, name, "int", value)
    if kind in ("word", "speaker"):
        value = str(value)
        if not value or " " in value or "\r" in value or "\n" in value:
            raise CodecError(f"{kind_name}: {name} must be one word, not {value!r}")
        return value + ":" if kind == "speaker" else value
    if kind == "rest":
        value = str(value)
        if "\r" in value or "\n" in value:
            raise CodecError(f"{kind_name}: {name} may not hold a line break")
        return value
    if kind == "colours":
        return " ".join(_encode_field(kind_name, name, "colour", v) for v in value)
    if kind == "ints":
        return " ".join(_encode_field(kind_name, name, "int", v) for v in value)
    if kind == "users":
        parts = [str(len(value))]
        for uid, uname in value:
            parts.append(_encode_field(kind_name, "id", "int", uid))
            parts.append(_encode_field(kind_name, "name", "word", uname))
        return " ".join(parts)
    raise AssertionError(kind)


def _decode_field(kind_name: str, name: str, kind: str, word: str):
    if kind == "int":
        if not _INT.match(word):
            raise CodecError(f"{kind_name}: {name} must be a whole number, not {word!r}")
        return int(word)
    if kind == "colour":
        if word not in COLOUR_WORDS:
            raise CodecError(f"{kind_name}: {name} must be red, green, blue or black, not {word!r}")
        return word
    if kind == "id":
        if word == "-":
            return None
        if not _INT.match(word):
            raise CodecError(f"{kind_name}: {name} must be a connection id or '-', not {word!r}")
        return int(word)
    if kind == "word":
        return word
    if kind == "speaker":
        if not word.endswith(":") or len(word) < 2:
            raise CodecError(f"{kind_name}: expected a name followed by ':'")
        return word[:-1]
    raise AssertionError(kind)


def _decode_list(kind_name: str, kind: str, words: list[str], usage: str):
    if kind == "colours":
        return [_decode_field(kind_name, "colour", "colour", w) for w in words]
    if kind == "ints":
        return [_decode_field(kind_name, "id", "int", w) for w in words]
    if not words:
        raise CodecError(f"{kind_name}: missing the count in {usage}")
    n = _decode_field(kind_name, "count", "int", words[0])
    pairs = words[1:]
    if len(pairs) != 2 * n:
        raise CodecError(f"{kind_name}: {n} users announced, {len(pairs) / 2:g} given")
    return [(_decode_field(kind_name, "id", "int", pairs[2 * i]), pairs[2 * i + 1]) for i in range(n)]


def _table(templates) -> dict[str, list[_Template]]:
    out: dict[str, list[_Template]] = {}
    for text in templates:
        t = _Template(text)
        out.setdefault(t.kind, []).append(t)
    return out


SERVER = _table(SERVER_TEMPLATES)
CLIENT = _table(CLIENT_TEMPLATES)


def _decode(table: dict[str, list[_Template]], line: str, who: str, limit: int | None) -> Message:
    if not isinstance(line, str):
        raise CodecError("not a text line")
    if limit is not None and len(line) > limit:
        raise CodecError(f"line too long (at most {MAX_LINE} characters)")
    if not line.strip():
        raise CodecError("empty line")
    if any(ord(ch) < 32 and ch != "\t" or ord(ch) == 127 for ch in line):
        raise CodecError("control characters are not allowed")
    line = line.rstrip(" \t")
    words = line.split(" ")
    # the longest kind that prefixes the line: "state internaldef" before "state ..."
    for size in (2, 1):
        kind = " ".join(words[:size])
        error = None
        for t in table.get(kind, ()):
            try:
                args = t.match(line)
            except CodecError as exc:
                error = exc                     # the last form's usage is the plainest
                continue
            if args is not None:
                return Message(kind, args)
        if error is not None:
            try:
                raise error
            finally:
                error = None                    # (held here, it and its traceback are a cycle)
    raise CodecError(f"unknown {who} command {words[0]!r}")


def decode_client(line: str) -> Message:
    """A line a client sent; CodecError (reason for ``ERROR``) if it is not a command."""
    return _decode(CLIENT, line, "client", MAX_LINE)


def decode_server(line: str) -> Message:
    """A line the server sent (for clients and tests)."""
    return _decode(SERVER, line, "server", None)


def _encode(table: dict[str, list[_Template]], kind: str, args: dict) -> str:
    templates = table.get(kind)
    if not templates:
        raise CodecError(f"no message {kind!r}")
    for t in templates:
        if set(t.fields) == set(args):
            return t.encode(args)
    raise CodecError(f"{kind}: fields {sorted(args)} match no form of it")


def encode_server(kind: str, **args) -> str:
    """One server line (without CRLF): ``encode_server("ask add", colour="red")``."""
    return _encode(SERVER, kind, args)


def encode_client(kind: str, **args) -> str:
    """One client line (without CRLF): ``encode_client("tile", colour="red", x=4, y=4)``."""
    return _encode(CLIENT, kind, args)


# ------------------------------------------------------------------ board cells
def cell_code(pos, c: int, conflict_cell: int | None = None) -> str:
    """The four-character description of cell ``c`` of a Position.

    ``.c..`` empty (c: ``b`` river, ``-`` land); ``&cp.`` a leader of colour c
    and player p; ``#ctu`` a tile of colour c with treasure priority t (0: none)
    on a space of colour u; ``^abt`` a monument of colours a (its square's) and
    b, t the priority of a treasure under it (0: none); ``!...`` a catastrophe;
    ``=c..`` the uniting tile of a war being fought, colour c.
    """
    under = "b" if c in RIVER else "-"
    if pos.catastrophe[c]:
        return "!..."
    who = pos.leader[c]
    if who is not None:
        return f"&{who[1]}{who[0]}."
    m = pos.monument[c]
    if m is not None:
        main = pos.monuments[m][1]
        a, b = MONUMENTS[m]
        return f"^{main}{b if a == main else a}{pos.treasure[c]}"
    colour = pos.tile[c]
    if colour is None:
        return f".{under}.."
    if c == conflict_cell:
        return f"={colour}.."
    return f"#{colour}{pos.treasure[c]}{under}"


def board_cells(pos, conflict_cell: int | None = None) -> str:
    """The ``board`` description: every cell, left to right then row by row."""
    return "".join(cell_code(pos, c, conflict_cell) for c in range(N_CELLS))


_CELL = re.compile(r"(?:\.[b\-rgk]\.\.|&[rgbk]\d\.|#[rgbk]\d[b\-rgk]|\^[rgbk][rgbk]\d|!\.\.\.|=[rgbk]\.\.)\Z")


def parse_cell(code: str) -> dict:
    """A cell description as a dict: {"kind": empty|leader|tile|monument|catastrophe|conflict, ...}."""
    if len(code) != 4 or not _CELL.match(code):
        raise CodecError(f"not a board cell: {code!r}")
    k = code[0]
    if k == ".":
        return {"kind": "empty", "space": code[1]}
    if k == "&":
        return {"kind": "leader", "colour": COLOUR_NAMES[code[1]], "player": int(code[2])}
    if k == "#":
        return {"kind": "tile", "colour": COLOUR_NAMES[code[1]], "treasure": int(code[2]), "space": code[3]}
    if k == "^":
        return {"kind": "monument", "colours": [COLOUR_NAMES[code[1]], COLOUR_NAMES[code[2]]],
                "treasure": int(code[3])}
    if k == "!":
        return {"kind": "catastrophe"}
    return {"kind": "conflict", "colour": COLOUR_NAMES[code[1]]}


def parse_board(width: int, height: int, cells: str) -> list[list[dict]]:
    """A ``board`` message's description as rows of parsed cells."""
    if len(cells) != 4 * width * height:
        raise CodecError(f"a {width}x{height} board needs {4 * width * height} characters, not {len(cells)}")
    return [[parse_cell(cells[4 * (y * width + x):4 * (y * width + x) + 4]) for x in range(width)]
            for y in range(height)]
