"""Windward framing, sans IO: a little-endian signed int32 length, then the payload.

The contract (``feed``/``encode``, errors, limits) is ``gamehall.framing.Framer``'s.
"""
from __future__ import annotations

from gamehall.framing import FrameTooLong, Framer, MalformedFrame, check_bytes


class WindwardFramer(Framer):
    """Windward: little-endian signed int32 length, then that many bytes; frames are ``bytes``.

    Zero-length frames are skipped, as the Java sample client does; a negative
    or oversized length poisons the framer.  Note the Java client's receive
    buffer is 262,144 bytes: frames sent to it must stay well below that, even
    though the default max_frame (what we accept) is 1 MiB.
    """

    DEFAULT_MAX = 1_048_576
    WIRE_MAX = 2**31 - 1

    def _decode(self, out: list) -> None:
        buf, n, mf = self._buf, len(self._buf), self.max_frame
        pos = 0
        while n - pos >= 4:
            length = int.from_bytes(buf[pos : pos + 4], "little", signed=True)
            if length < 0:
                return self._poison_with(MalformedFrame(f"Windward frame has a negative length ({length})"), out)
            if length > mf:
                return self._poison_with(FrameTooLong(f"Windward frame of {length} bytes exceeds {mf}"), out)
            if n - pos < 4 + length:
                break
            if length:
                out.append(bytes(buf[pos + 4 : pos + 4 + length]))
            pos += 4 + length
        del buf[:pos]

    def encode(self, frame: bytes) -> bytes:
        """Length + payload; ValueError for an empty payload (the Python client dies on one) or oversize."""
        payload = check_bytes(frame, "payload")
        if not payload:
            raise ValueError("never send a zero-length Windward frame")
        if len(payload) > self.max_frame:
            raise ValueError(f"Windward payload of {len(payload)} bytes exceeds {self.max_frame}")
        return len(payload).to_bytes(4, "little", signed=True) + payload
