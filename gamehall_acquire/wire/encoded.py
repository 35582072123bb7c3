"""NetAcquire directives as framed bytes, with the recurring ones remembered: every
connection of the front end sends the same board cells, captions and rack tiles, so each
is encoded once (a bounded cache, no chat text)."""
from __future__ import annotations

from collections import OrderedDict

from twisted.logger import Logger

from .codec import MESSAGE_CODES, Directive, encode
from .framing import NetAcquireFramer

_log = Logger(namespace="gamehall_acquire.wire.protocol.NetAcquireProtocol")
_FRAMER = NetAcquireFramer()

#: framed bytes of recent directives, least recently used first.  Bounded, and no
#: message texts (LM, GM, M): chat lines are unique, and kept they would grow the
#: hall by whatever users type (the table-wide game messages are encoded once per
#: update by ``render.TableSnapshot`` anyway).
LAST_CHAT: list = [None, None]          # ((sender, text), wire bytes) of the latest lobby chat line
WIRE_CACHE: OrderedDict = OrderedDict()
WIRE_CACHE_SIZE = 1024


def wire(directive: Directive) -> bytes | None:
    """The framed bytes of ``directive`` (``;:`` included), or None (logged) if it cannot be sent.

    Recurring directives (board cells, captions, rack tiles) are remembered;
    the key includes the parameters' types, as a ``Quoted`` parameter equals
    its plain ``str`` but is encoded differently.
    """
    code, params = directive
    key = None
    if code in MESSAGE_CODES:
        if len(params) == 1 and isinstance(params[0], str):
            data = message_wire(code, params[0])
            if data is not None:
                return data
    else:
        try:
            key = (code, params, tuple(map(type, params)))
            data = WIRE_CACHE.get(key)
        except TypeError:                # unhashable parameters: encode() says what is wrong
            key = data = None
        if data is not None:
            WIRE_CACHE.move_to_end(key)
            return data
    try:
        data = _FRAMER.encode(encode(directive))
    except ValueError as exc:
        _log.warn("netacquire: cannot send {code}: {reason}", code=directive.code,
                                    reason=str(exc))
        return None
    if key is not None:
        WIRE_CACHE[key] = data
        if len(WIRE_CACHE) > WIRE_CACHE_SIZE:
            WIRE_CACHE.popitem(last=False)
    return data


def message_wire(code: str, text: str) -> bytes | None:
    """``wire(Directive(code, (text,)))`` for a message code (LM, GM, M) without the
    directive, or None if it is too long for a frame (``wire`` then says why)."""
    # encode()'s quoting and replacement and the framer's checks, without re-scanning:
    # every '"' doubled inside the quotes, so no ';:' can be outside them
    data = b'%s;"%s";:' % (code.encode("ascii"), text.replace('"', '""').encode("ascii", "replace"))
    return data if len(data) - 2 <= _FRAMER.max_frame else None


def status_wire(shown: str) -> bytes | None:
    """``wire`` of the status bar directive ``SV;frmNetAcquire,status,-1,SimpleText,"<shown>"``
    for a ``shown`` text with no ``"``, ``,`` or ``;`` (``render.status_bar`` makes it so),
    or None if it is too long for a frame."""
    data = b'SV;frmNetAcquire,status,-1,SimpleText,"%s";:' % shown.encode("ascii", "replace")
    return data if len(data) - 2 <= _FRAMER.max_frame else None


# -- the directives every update repeats, framed without Directive objects or the cache:
# the same bytes as ``wire(Directive(...))`` (tests/netacquire/test_render.py compares
# them over whole games); numbers are plain digits, which the codec never quotes

_CAPTION = [b"SV;frmScoreSheet,lblData,%d,Caption," % i for i in range(100)]
_VISIBLE = {(slot, shown): b"SV;frmTileRack,cmdTile,%d,Visible,%d;:" % (slot, shown)
            for slot in range(1, 7) for shown in (0, 1)}


def caption_wire(index: int, value: str) -> bytes | None:
    """``wire`` of the score sheet caption ``index`` set to ``value``."""
    if 0 <= index < 100 and value.isdigit() and value.isascii():
        return _CAPTION[index] + value.encode("ascii") + b";:"
    return wire(Directive("SV", ("frmScoreSheet", "lblData", str(index), "Caption", value)))


def board_wire(tile_id: int, colour: int) -> bytes:
    """``wire`` of ``SB;<Tile-ID>,<state>``."""
    return b"SB;%d,%d;:" % (tile_id, colour)


def rack_tile_wire(slot: int, tile_id: int, colour: int) -> bytes:
    """``wire`` of ``AT;<slot>,<Tile-ID>,<colour>``."""
    return b"AT;%d,%d,%d;:" % (slot, tile_id, colour)


def rack_visible_wire(slot: int, visible: bool) -> bytes:
    """``wire`` of ``SV;frmTileRack,cmdTile,<slot>,Visible,0|1``."""
    return _VISIBLE[slot, 1 if visible else 0]
