"""NetAcquire directives: frame bytes <-> ``Directive(code, params)``.

A frame is what :class:`gamehall_acquire.wire.framing.NetAcquireFramer` yields: the bytes of
one directive without its ``;:`` terminator, e.g. ``b'SS;3'``, ``b'GT;'`` or
``b'LM;"Hello, ""you"" there"'``.

Rules (protocol text, plus what deployed clients do):

- ``CODE;PARAMS``: the code is one or two letters; ``PARAMS`` is split on
  commas that are outside double quotes.  An empty parameter string means no
  parameters (``GT;``).
- A parameter enclosed in double quotes may hold any character; a doubled
  ``""`` inside it is one ``"``.  Spaces around a quoted parameter are ignored.
  Decoded quoted parameters are :class:`Quoted` strings, so that
  ``encode(decode(frame)) == frame`` for every frame :func:`encode` produces.
- The message texts of ``LM``, ``GM`` and ``M`` are always quoted (clients take
  them as everything after the code minus the first and last character).  Other
  parameters are quoted only when they must be (a ``,``, ``;`` or ``"``, a
  leading ``:`` that would end the directive, a leading or trailing space, or
  a lone empty parameter) or when they are ``Quoted`` instances.  A colon
  elsewhere stays unquoted, as in the clients' ``PI;6:08:41 PM``.  Deployed clients split non-message directives on ``,``
  and ``;`` without looking at quotes, so the renderer never puts those
  characters into them.
- The wire is ASCII: :func:`encode` replaces anything else by ``?``.

``decode`` raises :class:`CodecError` (a ``ValueError``) for a frame it cannot
read; it never raises anything else.
"""
from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["CodecError", "Directive", "Quoted", "MESSAGE_CODES", "decode", "encode", "encode_directive", "parse"]

#: directives whose single parameter is a message text, always quoted
MESSAGE_CODES = frozenset({"LM", "GM", "M"})

_CODE = re.compile(r"[A-Z]{1,2}\Z")
_NEEDS_QUOTES = re.compile(r'[,;"]|^[\s:]|\s$')


class CodecError(ValueError):
    """A frame that is not a well-formed directive; ``str(exc)`` says why."""


class Quoted(str):
    """A parameter that is (or was, on the wire) enclosed in double quotes."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Quoted({str.__repr__(self)})"


class Directive(NamedTuple):
    """One directive: ``code`` (upper case) and its parameters as strings."""

    code: str
    params: tuple[str, ...] = ()

    def __str__(self) -> str:
        return encode(self).decode("ascii")


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def encode_directive(code: str, *params: object) -> bytes:
    """``encode(Directive(code, params))`` with every parameter turned into ``str``.

    ``bool`` becomes ``True``/``False`` (as GD wants), other values ``str(value)``.
    """
    return encode(Directive(code, tuple(p if isinstance(p, str) else str(p) for p in params)))


def encode(directive: Directive) -> bytes:
    """The frame bytes (no ``;:``) of ``directive``; ValueError for a bad code."""
    code, params = directive
    if not isinstance(code, str) or not _CODE.match(code):
        raise ValueError(f"bad directive code {code!r}")
    params = tuple(params)
    parts = []
    for param in params:
        if not isinstance(param, str):
            raise TypeError(f"parameters must be str, not {type(param).__name__}")
        if (code in MESSAGE_CODES or isinstance(param, Quoted) or _NEEDS_QUOTES.search(param)
                or (param == "" and len(params) == 1)):
            parts.append(_quote(param))
        else:
            parts.append(param)
    text = code + ";" + ",".join(parts)
    return text.encode("ascii", "replace")


def decode(frame: bytes | str) -> Directive:
    """Parse one frame; raise CodecError if it is not a well-formed directive."""
    code, params = parse(frame)
    return Directive(code, tuple(params))


def parse(frame: bytes | str) -> tuple[str, list[str]]:
    """``decode``'s code and parameters, the parameters as a new list (what the protocol's
    handlers take: no tuple made on the way); raise CodecError as ``decode`` does."""
    if type(frame) is bytes:
        text = frame.decode("ascii", "replace")
    elif isinstance(frame, (bytes, bytearray, memoryview)):
        text = bytes(frame).decode("ascii", "replace")
    elif isinstance(frame, str):
        text = frame
    else:
        raise CodecError(f"a frame is bytes, not {type(frame).__name__}")
    code, sep, rest = text.partition(";")
    code = code.strip().upper()
    if not _CODE.match(code):
        shown = code if len(code) <= 20 else code[:20] + "..."
        raise CodecError(f"bad directive code {shown!r}")
    # Some clients repeat the ';' before the terminator ("GT;;:" is "GT;" + ";:")
    # and a code may come with no ';' at all ("CL").
    if rest == "":
        return code, []
    return code, _split(rest)


def _split(text: str) -> list[str]:
    if '"' not in text:           # no quoted parameter (and none with a stray quote): plain commas
        return text.split(",")
    params: list[str] = []
    i, n = 0, len(text)
    while True:
        # skip spaces before a quoted parameter only (unquoted ones keep theirs)
        j = i
        while j < n and text[j] == " ":
            j += 1
        if j < n and text[j] == '"':
            value, i = _quoted(text, j)
            while i < n and text[i] == " ":
                i += 1
            params.append(Quoted(value))
            if i == n:
                return params
            if text[i] != ",":
                raise CodecError(f"text after a quoted parameter at position {i}")
            i += 1
            continue
        comma = text.find(",", i)
        end = n if comma < 0 else comma
        value = text[i:end]
        if '"' in value:
            raise CodecError("a double quote inside an unquoted parameter")
        params.append(value)
        if comma < 0:
            return params
        i = comma + 1


def _quoted(text: str, start: int) -> tuple[str, int]:
    """Read the quoted parameter opening at ``start``; return (value, index after it)."""
    out = []
    i = start + 1
    n = len(text)
    while True:
        q = text.find('"', i)
        if q < 0:
            raise CodecError("unterminated double quote")
        out.append(text[i:q])
        if q + 1 < n and text[q + 1] == '"':
            out.append('"')
            i = q + 2
            continue
        return "".join(out), q + 1
