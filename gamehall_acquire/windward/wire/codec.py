"""Windward XML, sans IO: a safe parser, the server's encoder and the client messages.

Parsing
-------
:func:`parse` is a real XML parser (expat) that refuses what a game message
never needs and an attacker would use: a DOCTYPE (so no internal or external
entity can be declared, hence no "billion laughs" and no external fetches),
more than :data:`MAX_ELEMENTS` elements or deeper nesting than
:data:`MAX_DEPTH`.  It is lenient where the sample clients differ (§2): an
optional ``<?xml ...?>`` declaration (Java), leading whitespace or a BOM,
trailing whitespace or NULs.  Anything else that is not well-formed raises
:class:`XmlError`.

Client messages (§3, §6)
------------------------
:func:`decode_client` turns a frame into :class:`Join`, :class:`Ready`,
:class:`Reply` or :class:`Unknown`.  ``join``'s avatar is base64 whose line
breaks (Java's MIME style) and other whitespace are stripped before decoding;
a bad avatar is dropped with a note, never fatal.  ``school`` is optional and
cut to 18 characters, as the original kept.

Server messages (§4, §5)
------------------------
Trees are :class:`E` (tag, ordered attributes, text or children) and
:func:`serialise` writes them as .NET's ``XDocument.ToString()`` did: no XML
declaration, 2-space indentation, CRLF line ends, ``<tag a="1" />`` for empty
elements.  :data:`EXIT` is the bare ``<exit/>`` the original sent.
"""
from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Union
from xml.etree import ElementTree as ET
from xml.parsers import expat

__all__ = ["XmlError", "parse", "E", "serialise", "encode", "EXIT", "Join", "Ready", "Reply", "Unknown",
           "decode_client", "encode_join", "encode_ready", "encode_reply", "MAX_ELEMENTS", "MAX_DEPTH"]

MAX_ELEMENTS = 5000
MAX_DEPTH = 32
MAX_SCHOOL = 18
EXIT = b"<exit/>"


class XmlError(ValueError):
    """A frame that is not acceptable XML; ``str(exc)`` is one line for a log."""


class _Refused(Exception):
    pass


def _refuse(what: str):
    def handler(*_args):
        raise _Refused(f"{what} is not allowed")
    return handler


def parse(data: Union[bytes, str]) -> ET.Element:
    """The root element of one XML document; XmlError for anything unsafe or malformed."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    data = bytes(data)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    data = data.strip(b" \t\r\n\x00")
    if not data:
        raise XmlError("empty message")
    parser = expat.ParserCreate("UTF-8")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    builder = ET.TreeBuilder()
    depth = [0, 0]                       # current depth, elements seen

    def start(tag, attrs):
        depth[0] += 1
        depth[1] += 1
        if depth[0] > MAX_DEPTH:
            raise _Refused(f"nesting deeper than {MAX_DEPTH}")
        if depth[1] > MAX_ELEMENTS:
            raise _Refused(f"more than {MAX_ELEMENTS} elements")
        builder.start(tag, attrs)

    def end(tag):
        depth[0] -= 1
        builder.end(tag)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = _refuse("a DOCTYPE")
    parser.EntityDeclHandler = _refuse("an ENTITY declaration")
    parser.UnparsedEntityDeclHandler = _refuse("an ENTITY declaration")
    parser.NotationDeclHandler = _refuse("a NOTATION declaration")
    parser.ExternalEntityRefHandler = _refuse("an external entity")
    parser.buffer_text = True
    try:
        parser.Parse(data, True)
    except _Refused as exc:
        raise XmlError(str(exc)) from None
    except expat.ExpatError as exc:
        raise XmlError(f"malformed XML: {expat.ErrorString(exc.code)} at line {exc.lineno} "
                       f"column {exc.offset}") from None
    except (ValueError, RecursionError) as exc:       # pragma: no cover - defensive
        raise XmlError(f"unreadable XML: {exc}") from None
    return builder.close()


# ---------------------------------------------------------------- writing
@dataclass
class E:
    """An element to write: attributes in the order given; ``text`` or ``children``."""

    tag: str
    attrs: list = field(default_factory=list)           # [(name, value)]
    children: list = field(default_factory=list)
    text: str | None = None


_ATTR_ESC = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#xD;", "\n": "&#xA;", "\t": "&#x9;"}
_TEXT_ESC = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_ATTR_RE = re.compile(r'[&<>"\r\n\t]')
_TEXT_RE = re.compile(r"[&<>]")
# XML 1.0 cannot carry most control characters, even escaped: replace them.
_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def attr(value) -> str:
    if isinstance(value, bool):
        value = "true" if value else "false"
    value = _INVALID.sub("?", str(value))
    return _ATTR_RE.sub(lambda m: _ATTR_ESC[m.group()], value)


def _text(value: str) -> str:
    return _TEXT_RE.sub(lambda m: _TEXT_ESC[m.group()], _INVALID.sub("?", value))


def _write(el: E, indent: str, out: list) -> None:
    attrs = "".join(f' {k}="{attr(v)}"' for k, v in el.attrs)
    if el.children:
        out.append(f"{indent}<{el.tag}{attrs}>")
        inner = indent + "  "
        for child in el.children:
            _write(child, inner, out)
        out.append(f"{indent}</{el.tag}>")
    elif el.text:
        out.append(f"{indent}<{el.tag}{attrs}>{_text(el.text)}</{el.tag}>")
    else:
        out.append(f"{indent}<{el.tag}{attrs} />")


def serialise(el: E) -> str:
    """The element as .NET's XDocument.ToString() wrote it (CRLF, 2-space indent)."""
    out: list = []
    _write(el, "", out)
    return "\r\n".join(out)


def encode(el: E) -> bytes:
    """UTF-8 bytes of :func:`serialise`: one frame's payload (never empty)."""
    return serialise(el).encode("utf-8")


# ---------------------------------------------------------------- client messages
@dataclass
class Join:
    name: str
    school: str = ""
    language: str = ""
    avatar: bytes | None = None
    avatar_note: str | None = None      # why an avatar was dropped, or a warning about it


@dataclass
class Ready:
    pass


@dataclass
class Reply:
    cmd: str
    msg_id: str | None
    attrs: dict                         # every attribute, as sent (msg-id and cmd included)


@dataclass
class Unknown:
    tag: str


def _png_size(data: bytes) -> tuple[int, int] | None:
    if len(data) >= 24 and data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    return None


def decode_avatar(text: str | None) -> tuple[bytes | None, str | None]:
    """(PNG bytes or None, a note): whitespace (Java's line breaks) stripped, then base64."""
    if text is None:
        return None, None
    compact = "".join(text.split())
    if not compact:
        return None, None
    try:
        data = base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None, "avatar is not base64; ignored"
    size = _png_size(data)
    if size is None:
        return data, "avatar is not a PNG"
    if size != (32, 32):
        return data, f"avatar is {size[0]}x{size[1]}, not 32x32"
    return data, None


def decode_client(payload: Union[bytes, str]) -> Union[Join, Ready, Reply, Unknown]:
    """A client frame as a typed message; XmlError if it is not acceptable XML."""
    root = parse(payload)
    tag = root.tag
    a = root.attrib
    if tag == "join":
        avatar_el = root.find("avatar")
        avatar, note = decode_avatar(avatar_el.text if avatar_el is not None else None)
        return Join(name=a.get("name", ""), school=a.get("school", "")[:MAX_SCHOOL],
                    language=a.get("language", ""), avatar=avatar, avatar_note=note)
    if tag == "ready":
        return Ready()
    if tag == "reply":
        return Reply(cmd=a.get("cmd", ""), msg_id=a.get("msg-id"), attrs=dict(a))
    return Unknown(tag)


def encode_join(name: str, school: str = "", language: str = "Python", avatar: bytes | None = None,
                line_length: int | None = None) -> bytes:
    """A client's ``join`` (compact XML, as Python writes it); ``line_length`` breaks the
    avatar's base64 into lines, as Java does (76)."""
    el = E("join", [("language", language), ("name", name), ("school", school)])
    if avatar is not None:
        b64 = base64.b64encode(avatar).decode("ascii")
        if line_length:
            b64 = "\n".join(b64[i:i + line_length] for i in range(0, len(b64), line_length))
        el.children.append(E("avatar", text=b64))
    return _compact(el).encode("utf-8")


def encode_ready() -> bytes:
    return b"<ready/>"


def encode_reply(cmd: str, msg_id: str, **attrs) -> bytes:
    """A client's ``reply``: ``encode_reply("query-card", mid, card=0)``; keyword names
    use ``_`` for ``-`` (``tile_x`` -> ``tile-x``)."""
    el = E("reply", [("cmd", cmd), ("msg-id", msg_id)]
           + [(k.replace("_", "-"), v) for k, v in attrs.items() if v is not None])
    return _compact(el).encode("utf-8")


def _compact(el: E) -> str:
    attrs = "".join(f' {k}="{attr(v)}"' for k, v in el.attrs)
    if el.children:
        return f"<{el.tag}{attrs}>" + "".join(_compact(c) for c in el.children) + f"</{el.tag}>"
    if el.text:
        return f"<{el.tag}{attrs}>{_text(el.text)}</{el.tag}>"
    return f"<{el.tag}{attrs}/>"
