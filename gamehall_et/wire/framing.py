"""Lines as telnet and the E&T clients end them: CR LF, LF, a bare CR, or CR NUL.

The hall's ``LineFramer`` ends lines at LF only (a CR before it is dropped), so
a client that sends a bare CR (or CR NUL, as a telnet in its default mode
does) was never heard.  Here a CR ends the line at once, and an LF or NUL
right after it (in the same read or the next) is the rest of that line end,
not an empty line.  Limits and errors are ``LineFramer``'s.
"""
from __future__ import annotations

import re

from gamehall.framing import LineFramer

_LINE_END = re.compile(rb"[\r\n]")


class TelnetLineFramer(LineFramer):
    """``LineFramer`` whose lines may also end in a bare CR or CR NUL."""

    def __init__(self, max_frame: int | None = None) -> None:
        super().__init__(max_frame)
        self._after_cr = False      # the last line ended in CR: an LF or NUL next belongs to it

    def _decode(self, out: list) -> None:
        buf, n, mf = self._buf, len(self._buf), self.max_frame
        pos = 0
        while pos < n:
            if self._after_cr:
                self._after_cr = False
                if buf[pos] in (0x0A, 0x00):
                    pos += 1
                    continue
            # a line of mf bytes has its end at pos + mf at the latest: never scan (or hold) further
            limit = n if self._discarding else min(n, pos + mf + 1)
            found = _LINE_END.search(buf, pos + self._scanned, limit)
            if found is None:
                if self._discarding:
                    pos = n
                    break
                self._scanned = limit - pos
                if self._scanned > mf:
                    out.append(self._too_long())
                    pos, self._scanned, self._discarding = limit, 0, True
                    continue
                break
            end = found.start()
            if self._discarding:
                self._discarding = False
            else:
                out.append(bytes(buf[pos:end]))
            self._after_cr = buf[end] == 0x0D
            pos, self._scanned = end + 1, 0
        del buf[:pos]
