"""Sans-IO framers for the hall's wire protocols: feed bytes in, get whole frames out.

No Twisted here on purpose: a framer is a pure state machine, so it can be
tested byte by byte and reused by any transport.  ``feed()`` never raises on
bad input; it returns frames and ``FrameError`` instances in stream order, so
the protocol decides what to tell the user and whether to hang up.

Text framers (line, NetAcquire) resynchronise after an error.  Binary
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
    "NetAcquireFramer",
    "PimpFramer",
    "WindwardFramer",
    "DaideFramer",
    "FRAMERS",
]


class FrameError(Exception):
    """Base class of framing errors; ``str(exc)`` is a one-line message for a user or a log."""


class FrameTooLong(FrameError):
    """A frame is longer than the framer's ``max_frame``."""


class MalformedFrame(FrameError):
    """A frame (or a header) breaks the protocol's framing rules."""


def _check_bytes(value: Any, what: str) -> bytes:
    """Accept any bytes-like object; anything else is a programming error (TypeError)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes, not {type(value).__name__}")


def _check_typed_frame(frame: Any, limit: int) -> tuple[int, bytes]:
    """Unpack a ``(type, payload)`` frame; ValueError if type is outside 0..limit."""
    if not isinstance(frame, tuple) or len(frame) != 2:
        raise TypeError("frame must be a (type, payload) tuple")
    ftype, payload = frame
    if not isinstance(ftype, int) or isinstance(ftype, bool):
        raise TypeError(f"message type must be an int, not {type(ftype).__name__}")
    if not 0 <= ftype <= limit:
        raise ValueError(f"message type {ftype} is outside 0..{limit}")
    return ftype, _check_bytes(payload, "payload")


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
        line = frame if type(frame) is bytes else _check_bytes(frame, "line")
        if b"\r" in line or b"\n" in line:
            raise ValueError("a line cannot contain CR or LF")
        if len(line) > self.max_frame:
            raise ValueError(f"line of {len(line)} bytes exceeds max_frame {self.max_frame}")
        return line + b"\r\n"


_NA_SPACE = frozenset(b" \t\r\n\x0b\x0c")


def _na_scan(data: bytes | bytearray, start: int, limit: int, inq: bool) -> tuple[int, int, bool]:
    """Scan ``data[start:limit]`` for a NetAcquire ``;:`` outside double quotes.

    Returns ``(terminator index or -1, resume index, quote state at resume)``.
    Quote state toggles on every ``"`` (so ``""`` inside quotes is an escaped
    quote).  A ``;`` at ``limit - 1`` outside quotes may begin a terminator
    whose ``:`` has not been seen yet, so the resume index stops before it.
    Uses ``find`` rather than a per-byte loop: big chunks are scanned at C speed.
    """
    i = start
    while i < limit:
        q = data.find(b'"', i, limit)
        if inq:
            if q < 0:
                return -1, limit, True
            inq, i = False, q + 1
            continue
        t = data.find(b";:", i, q if q >= 0 else limit)
        if t >= 0:
            return t, t, False
        if q < 0:
            return -1, (limit - 1 if data[limit - 1] == 0x3B else limit), False
        inq, i = True, q + 1
    return -1, i, inq


class NetAcquireFramer(Framer):
    """NetAcquire directives ending in ``;:`` outside double quotes; frames are the ``bytes`` before it.

    Whitespace between directives (some clients send newlines) is skipped.  The
    scan is incremental (position and quote state are kept between feeds), so
    feeding a big directive byte by byte costs O(n).
    """

    DEFAULT_MAX = 8192

    def __init__(self, max_frame: int | None = None) -> None:
        super().__init__(max_frame)
        self._scanned = 0  # bytes of the current directive scanned without finding a terminator
        self._inq = False  # quote state at _scanned
        self._discarding = False  # after FrameTooLong: drop up to the next plain ";:"
        self._semi = False  # while discarding: the last dropped byte was ";"

    def _decode(self, out: list) -> None:
        buf, n, mf = self._buf, len(self._buf), self.max_frame
        pos = 0
        while pos < n:
            if self._discarding:
                # Quotes are ignored here: an unterminated quote in an oversized
                # directive must not swallow the rest of the session.
                if self._semi and buf[pos] == 0x3A:
                    pos += 1
                else:
                    t = buf.find(b";:", pos)
                    if t < 0:
                        self._semi = buf[n - 1] == 0x3B
                        pos = n
                        break
                    pos = t + 2
                self._discarding = self._semi = False
                continue
            if self._scanned == 0:
                while pos < n and buf[pos] in _NA_SPACE:
                    pos += 1
                if pos == n:
                    break
            # A valid directive is at most mf bytes, so its ";:" ends within mf + 2.
            limit = min(n, pos + mf + 2)
            t, i, self._inq = _na_scan(buf, pos + self._scanned, limit, self._inq)
            if t >= 0:
                directive = bytes(buf[pos:t])
                if directive.isascii():
                    out.append(directive)
                else:
                    out.append(MalformedFrame("NetAcquire directive contains non-ASCII bytes; ignored"))
                pos = t + 2
                self._scanned = 0
                continue
            self._scanned = i - pos
            if self._scanned > mf:
                out.append(
                    FrameTooLong(f"NetAcquire directive longer than {mf} bytes; discarded up to the next ';:'")
                )
                # The error point is fixed (byte mf of the directive) so the
                # outcome does not depend on how the stream was chunked.
                pos += mf
                self._scanned = 0
                self._inq = False
                self._discarding = True
                self._semi = False
                continue
            break
        del buf[:pos]

    def encode(self, frame: bytes) -> bytes:
        """``directive + b";:"``; ValueError unless it would decode back to exactly itself."""
        d = _check_bytes(frame, "directive")
        if len(d) > self.max_frame:
            raise ValueError(f"directive of {len(d)} bytes exceeds max_frame {self.max_frame}")
        if not d.isascii():
            raise ValueError("NetAcquire directives must be ASCII")
        if d and d[0] in _NA_SPACE:
            raise ValueError("a directive cannot start with whitespace (the receiver skips it)")
        wire = d + b";:"
        t, _, _ = _na_scan(wire, 0, len(wire), False)
        if t != len(d):
            if t < 0:
                raise ValueError("directive has an unbalanced double quote")
            raise ValueError("directive contains ';:' outside double quotes")
        return wire


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
        ftype, payload = _check_typed_frame(frame, 254)
        if len(payload) > self.max_frame:
            raise ValueError(f"PIMP payload of {len(payload)} bytes exceeds {self.max_frame}")
        return bytes((ftype, len(payload))) + payload


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
        payload = _check_bytes(frame, "payload")
        if not payload:
            raise ValueError("never send a zero-length Windward frame")
        if len(payload) > self.max_frame:
            raise ValueError(f"Windward payload of {len(payload)} bytes exceeds {self.max_frame}")
        return len(payload).to_bytes(4, "little", signed=True) + payload


# DAIDE message types (values from the DAIDE standard; the Parlance text omits
# them) and the payload lengths chapter 3 allows for each.  Other types pass
# through: answering them (EM 0x08, unknown message) is the protocol's job.
DAIDE_IM, DAIDE_RM, DAIDE_DM, DAIDE_FM, DAIDE_EM = 0, 1, 2, 3, 4
_DAIDE_RULES: dict[int, tuple[str, Any, str]] = {
    DAIDE_IM: ("IM", lambda n: n == 4, "exactly 4 bytes"),
    DAIDE_RM: ("RM", lambda n: n % 6 == 0, "a multiple of 6 bytes"),
    DAIDE_DM: ("DM", lambda n: n % 2 == 0, "an even number of bytes (2-byte tokens)"),
    DAIDE_FM: ("FM", lambda n: n == 0, "empty"),
    DAIDE_EM: ("EM", lambda n: n == 2, "exactly 2 bytes"),
}


class DaideFramer(Framer):
    """DAIDE (Parlance) messages: type, pad, big-endian 16-bit length, payload; frames are ``(type, payload)``.

    The pad byte is sent as 0 and ignored.  A length that is wrong for a known
    type (the spec's "invalid message structure", after which the connection is
    dropped) or above max_frame poisons the framer; it is checked on the
    header, so a little-endian IM is refused at once instead of awaiting 1 KiB.
    """

    DEFAULT_MAX = 65535
    WIRE_MAX = 65535

    @staticmethod
    def _length_problem(ftype: int, length: int) -> str | None:
        rule = _DAIDE_RULES.get(ftype)
        if rule is None or rule[1](length):
            return None
        name, _, need = rule
        hint = " (wrong byte order?)" if ftype == DAIDE_IM and length == 0x0400 else ""
        return f"DAIDE {name} payload must be {need}, got {length}{hint}"

    def _decode(self, out: list) -> None:
        buf, n, mf = self._buf, len(self._buf), self.max_frame
        pos = 0
        while n - pos >= 4:
            ftype = buf[pos]
            length = int.from_bytes(buf[pos + 2 : pos + 4], "big")
            problem = self._length_problem(ftype, length)
            if length > mf or problem:
                # the header rides along: the protocol picks its EM code from it
                error = FrameTooLong(f"DAIDE message of {length} bytes exceeds {mf}") if length > mf \
                    else MalformedFrame(problem)
                error.header = (ftype, length)
                return self._poison_with(error, out)
            if n - pos < 4 + length:
                break
            out.append((ftype, bytes(buf[pos + 4 : pos + 4 + length])))
            pos += 4 + length
        del buf[:pos]

    def encode(self, frame: tuple[int, bytes]) -> bytes:
        """Header (pad 0) + payload; ValueError for oversize or a length wrong for the type."""
        ftype, payload = _check_typed_frame(frame, 255)
        if len(payload) > self.max_frame:
            raise ValueError(f"DAIDE payload of {len(payload)} bytes exceeds {self.max_frame}")
        problem = self._length_problem(ftype, len(payload))
        if problem:
            raise ValueError(problem)
        return bytes((ftype, 0)) + len(payload).to_bytes(2, "big") + payload


FRAMERS: dict[str, type[Framer]] = {
    "line": LineFramer,
    "netacquire": NetAcquireFramer,
    "pimp": PimpFramer,
    "windward": WindwardFramer,
    "daide": DaideFramer,
}
