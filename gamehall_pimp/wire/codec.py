"""PIMP messages to and from bytes: a message is ``(name, args)``; a frame is the type byte,
the payload-length byte and the payload (``gamehall_pimp.wire.framing.PimpFramer`` cuts frames).

Decoding follows the notes: a payload longer than its fields is accepted (the
rest is ignored); one too short is ``ERROR_UNPARSEABLE``; an unassigned code,
or a code the other end is not meant to send, is ``ERROR_UNEXPECTED_MESSAGE``;
a name longer than 32 bytes is ``ERROR_UNPARSEABLE``.  ``DecodeError.reply``
is the error message to send back.
"""
from __future__ import annotations

import struct

from ..messages import BY_CODE, SPECS

MAX_PAYLOAD = 254
MAX_NAME_BYTES = 32
_U32 = struct.Struct(">I")


class DecodeError(ValueError):
    def __init__(self, reason: str, *reply):
        super().__init__(reason)
        self.reply = reply          # (name, *args) of the error message to send


def encode_payload(name: str, args) -> bytes:
    return encode(name, args)[2:]


def _general_encoder(spec):
    """Any layout (strings, the house list): field by field."""
    def encode_frame(args) -> bytes:
        out = bytearray((spec.code, 0))
        for f, v in zip(spec.fields, args, strict=True):
            if f == "B":
                out.append(v)
            elif f == "b":
                out += struct.pack(">b", v)
            elif f == "?":
                out.append(1 if v else 0)
            elif f == "I":
                out += _U32.pack(v)
            elif f == "S":
                raw = v.encode("utf-8")
                if len(raw) > 255:
                    raise ValueError(f"string of {len(raw)} bytes")
                out.append(len(raw))
                out += raw
            else:  # H: the house purchase list
                out.append(len(v))
                for prop, houses, hotels in v:
                    out += struct.pack(">Bbb", prop, houses, hotels)
        if len(out) - 2 > MAX_PAYLOAD:
            raise ValueError(f"{spec.name} payload of {len(out) - 2} bytes")
        out[1] = len(out) - 2
        return bytes(out)
    return encode_frame


def _fixed_encoder(spec):
    """Fixed-size fields only (most server messages): one struct packs the whole frame."""
    packer = struct.Struct(">BB" + spec.fields)      # B, b, ? and I mean the same to struct
    pack, code, size = packer.pack, spec.code, packer.size - 2

    def encode_frame(args) -> bytes:
        try:
            return pack(code, size, *args)
        except struct.error as exc:
            raise ValueError(f"{spec.name}{tuple(args)}: {exc}") from None
    return encode_frame


_ENCODERS = {name: (_fixed_encoder if set(spec.fields) <= set("Bb?I") else _general_encoder)(spec)
             for name, spec in SPECS.items()}


def encode(name: str, args=()) -> bytes:
    """One whole frame."""
    return _ENCODERS[name](args)


def decode(code: int, payload: bytes, sender: str = "c") -> tuple[str, tuple]:
    """The message in a frame sent by ``sender`` ('c' client, 's' server)."""
    spec = BY_CODE.get(code)
    if spec is None or spec.direction not in (sender, "x"):
        raise DecodeError(f"unexpected message type 0x{code:02X}", "ERROR_UNEXPECTED_MESSAGE", code)
    fixed = _FIXED_DECODERS.get(code)
    if fixed is not None:
        unpacker, flags = fixed
        if len(payload) < unpacker.size:
            raise DecodeError(f"{spec.name}: payload too short", "ERROR_UNPARSEABLE")
        args = unpacker.unpack_from(payload)
        if flags:
            args = tuple(v & 1 == 1 if i in flags else v for i, v in enumerate(args))
        return spec.name, args
    pos, args, n = 0, [], len(payload)
    short = DecodeError(f"{spec.name}: payload too short", "ERROR_UNPARSEABLE")
    for f in spec.fields:
        if f in "B?b":
            if pos + 1 > n:
                raise short
            v = payload[pos]
            args.append(v & 1 == 1 if f == "?" else (v - 256 if f == "b" and v > 127 else v))
            pos += 1
        elif f == "I":
            if pos + 4 > n:
                raise short
            args.append(_U32.unpack_from(payload, pos)[0])
            pos += 4
        elif f == "S":
            if pos + 1 > n or pos + 1 + payload[pos] > n:
                raise short
            size = payload[pos]
            if sender == "c" and size > MAX_NAME_BYTES:
                raise DecodeError(f"{spec.name}: string of {size} bytes", "ERROR_UNPARSEABLE")
            try:
                args.append(payload[pos + 1: pos + 1 + size].decode("utf-8"))
            except UnicodeDecodeError:
                raise DecodeError(f"{spec.name}: not UTF-8", "ERROR_INVALID_PAYLOAD", code) from None
            pos += 1 + size
        else:  # H
            if pos + 1 > n or pos + 1 + 3 * payload[pos] > n:
                raise short
            count = payload[pos]
            entries = [list(struct.unpack_from(">Bbb", payload, pos + 1 + 3 * i)) for i in range(count)]
            args.append(entries)
            pos += 1 + 3 * count
    return spec.name, tuple(args)


#: code -> (struct of the fixed-size fields, indexes of the bools: their low bit counts)
_FIXED_DECODERS = {spec.code: (struct.Struct(">" + spec.fields.replace("?", "B")),
                               frozenset(i for i, f in enumerate(spec.fields) if f == "?"))
                   for spec in SPECS.values() if set(spec.fields) <= set("Bb?I")}
