"""Sans-IO framing for the hall's wire protocols: feed bytes in, get whole frames out.

This module holds what every protocol shares: the ``Framer`` base class, its
errors and the ``LineFramer`` (the admin console and telnet-style protocols).
Each game's own framer lives in its package, ``<game>/wire/framing.py``.

No Twisted here on purpose: a framer is a pure state machine, so it can be
tested byte by byte and reused by any transport.  ``feed()`` never raises on
bad input; it returns frames and ``FrameError`` instances in stream order, so
the protocol decides what to tell the user and whether to hang up.

Text framers (lines, NetAcquire directives) resynchronise after an error.  Binary
length-prefixed framers cannot know where the next frame starts once a header
is bad, so they become *poisoned*: from then on every ``feed()`` returns the
same error and keeps nothing.

Every framer holds at most about ``max_frame`` bytes (plus a header or a
terminator byte), whatever a peer sends.
"""
from __future__ import annotations

from typing import Any

__all__ = [
    "FrameError",
    "FrameTooLong",
    "MalformedFrame",
    "Framer",
    "LineFramer",
    "check_bytes",
    "check_typed_frame",
]


class FrameError(Exception):
    """Base class of framing errors; ``str(exc)`` is a one-line message for a user or a log."""


class FrameTooLong(FrameError):
    """A frame is longer than the framer's ``max_frame``."""


class MalformedFrame(FrameError):
    """A frame (or a header) breaks the protocol's framing rules."""


def check_bytes(value: Any, what: str) -> bytes:
    """Accept any bytes-like object; anything else is a programming error (TypeError)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes, not {type(value).__name__}")


def check_typed_frame(frame: Any, limit: int) -> tuple[int, bytes]:
    """Unpack a ``(type, payload)`` frame; ValueError if type is outside 0..limit."""
    if not isinstance(frame, tuple) or len(frame) != 2:
        raise TypeError("frame must be a (type, payload) tuple")
    ftype, payload = frame
    if not isinstance(ftype, int) or isinstance(ftype, bool):
        raise TypeError(f"message type must be an int, not {type(ftype).__name__}")
    if not 0 <= ftype <= limit:
        raise ValueError(f"message type {ftype} is outside 0..{limit}")
    return ftype, check_bytes(payload, "payload")


class Framer:
    """Common behaviour: buffering, poisoning, the ``feed()`` contract.

    Subclasses set ``DEFAULT_MAX``/``WIRE_MAX`` and implement ``_decode`` (consume
    from ``self._buf``, append frames/errors to ``out``) and ``encode``.
    """

    DEFAULT_MAX: int = 4096
    WIRE_MAX: int | None = None  # largest max_frame the wire format can express

    def __init__(self, max_frame: int | None = None) -> None:
        if max_frame is None:
            max_frame = self.DEFAULT_MAX
        if not isinstance(max_frame, int) or isinstance(max_frame, bool) or max_frame < 1:
            raise ValueError(f"max_frame must be a positive int, got {max_frame!r}")
        if self.WIRE_MAX is not None and max_frame > self.WIRE_MAX:
            raise ValueError(
                f"max_frame {max_frame} exceeds what {type(self).__name__} can express ({self.WIRE_MAX})"
            )
        self.max_frame: int = max_frame
        self._buf = bytearray()
        self._poison: FrameError | None = None

    @property
    def poisoned(self) -> bool:
        """True once the stream cannot be resynchronised."""
        return self._poison is not None

    @property
    def buffered(self) -> int:
        """Bytes currently held while waiting for the rest of a frame."""
        return len(self._buf)

    def feed(self, data: bytes) -> list:
        """Add received bytes; return whole frames and FrameError instances, in stream order."""
        if self._poison is not None:
            return [self._poison]
        out: list = []
        if data:
            self._buf += data
            self._decode(out)
        return out

    def encode(self, frame: Any) -> bytes:
        """Return the wire bytes of ``frame``; ValueError if it cannot be sent faithfully."""
        raise NotImplementedError

    def _decode(self, out: list) -> None:
        raise NotImplementedError

    def _poison_with(self, error: FrameError, out: list) -> None:
        """Give up on the stream: report ``error`` now and on every later feed."""
        self._poison = error
        self._buf.clear()
        out.append(error)


class LineFramer(Framer):
    """CRLF or bare-LF terminated lines (telnet-style clients); frames are ``bytes`` without terminator."""

    DEFAULT_MAX = 4096

    def __init__(self, max_frame: int | None = None) -> None:
        super().__init__(max_frame)
        self._scanned = 0  # bytes at the start of _buf already known to hold no b"\n"
        self._discarding = False  # after FrameTooLong: drop everything up to the next b"\n"

    def _too_long(self) -> FrameTooLong:
        return FrameTooLong(f"line longer than {self.max_frame} bytes; discarded up to the next newline")

    def _decode(self, out: list) -> None:
        buf, n, mf = self._buf, len(self._buf), self.max_frame
        pos = 0
        while pos < n:
            if self._discarding:
                nl = buf.find(b"\n", pos)
                if nl < 0:
                    pos = n
                    break
                pos = nl + 1
                self._discarding = False
                continue
            # A valid raw line is at most mf bytes plus an optional "\r", so the
            # "\n" must lie within mf + 2 bytes; never scan (or hold) further.
            end = min(n, pos + mf + 2)
            nl = buf.find(b"\n", pos + self._scanned, end)
            if nl >= 0:
                stop = nl - 1 if nl > pos and buf[nl - 1] == 0x0D else nl
                if stop - pos > mf:
                    out.append(self._too_long())
                else:
                    out.append(bytes(buf[pos:stop]))
                pos = nl + 1
                self._scanned = 0
                continue
            self._scanned = end - pos
            # Known too long: mf + 2 bytes without "\n", or mf + 1 whose last is not "\r".
            if self._scanned > mf + 1 or (self._scanned == mf + 1 and buf[pos + mf] != 0x0D):
                out.append(self._too_long())
                pos += self._scanned
                self._scanned = 0
                self._discarding = True
                continue
            break
        del buf[:pos]

    def encode(self, frame: bytes) -> bytes:
        """``line + b"\\r\\n"``; ValueError if it contains CR/LF or exceeds max_frame."""
        line = frame if type(frame) is bytes else check_bytes(frame, "line")
        if b"\r" in line or b"\n" in line:
            raise ValueError("a line cannot contain CR or LF")
        if len(line) > self.max_frame:
            raise ValueError(f"line of {len(line)} bytes exceeds max_frame {self.max_frame}")
        return line + b"\r\n"
