"""NetAcquire framing, sans IO: directives end in ``;:`` outside double quotes.

The contract (``feed``/``encode``, errors, limits) is ``gamehall.framing.Framer``'s.
"""
from __future__ import annotations

from gamehall.framing import FrameTooLong, Framer, MalformedFrame, check_bytes


_NA_SPACE = frozenset(b" \t\r\n\x0b\x0c")
_NA_SPACE_BYTES = bytes(sorted(_NA_SPACE))


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

    def feed(self, data: bytes) -> list:
        """``Framer.feed``; whole directives read at once (the usual case: a client's answer
        in one segment, nothing held) are split without copying them into the buffer."""
        if (not self._buf and type(data) is bytes and data[-2:] == b";:" and len(data) <= self.max_frame + 2
                and b'"' not in data and data.isascii() and self._poison is None and not self._discarding):
            # _decode's result for such bytes: no quotes, nothing held (so no partial scan
            # or quote state), no directive over max_frame, every one ASCII and terminated;
            # whitespace before a directive is skipped, ";:" are found left to right
            space = _NA_SPACE_BYTES
            return [part.lstrip(space) for part in data[:-2].split(b";:")]
        return super().feed(data)

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
        d = check_bytes(frame, "directive")
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
