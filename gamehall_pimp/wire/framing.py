"""PIMP framing, sans IO: a type byte, a payload-length byte, the payload.

The contract (``feed``/``encode``, errors, limits) is ``gamehall.framing.Framer``'s.
"""
from __future__ import annotations

from gamehall.framing import FrameTooLong, Framer, MalformedFrame, check_typed_frame


class PimpFramer(Framer):
    """PIMP messages: type byte, payload-length byte, payload; frames are ``(type, payload)``.

    Length 255 is reserved: it means the peer is not speaking PIMP v1 (or we
    lost sync), and with no delimiter to look for, the framer is poisoned.
    Type 0xFF is reserved too, but a frame of that type is well formed: it is
    passed on like any unassigned code (the reference server answers it with
    ERROR_UNEXPECTED_MESSAGE and keeps the connection).
    """

    DEFAULT_MAX = 254
    WIRE_MAX = 254

    def _decode(self, out: list) -> None:
        buf, n, mf = self._buf, len(self._buf), self.max_frame
        pos = 0
        while pos < n:
            ftype = buf[pos]
            if n - pos < 2:
                break
            length = buf[pos + 1]
            if length == 255:
                return self._poison_with(MalformedFrame("PIMP payload length 255 is reserved"), out)
            if length > mf:
                return self._poison_with(
                    FrameTooLong(f"PIMP message 0x{ftype:02X} of {length} bytes exceeds {mf}"), out
                )
            if n - pos < 2 + length:
                break
            out.append((ftype, bytes(buf[pos + 2 : pos + 2 + length])))
            pos += 2 + length
        del buf[:pos]

    def encode(self, frame: tuple[int, bytes]) -> bytes:
        """Type byte + length byte + payload; ValueError for type 0xFF or an oversized payload."""
        ftype, payload = check_typed_frame(frame, 254)
        if len(payload) > self.max_frame:
            raise ValueError(f"PIMP payload of {len(payload)} bytes exceeds {self.max_frame}")
        return bytes((ftype, len(payload))) + payload
