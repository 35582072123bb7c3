"""The size cap on a browser's messages, applied at each WebSocket frame header.

wsproto hands Twisted's websocket every frame's payload as it arrives, and Twisted
buffers a message whole before the session sees it: a cap applied to the finished
message comes after the memory and time are spent (one 100 MB frame took 100 MB
and a minute).  ``FrameGuard`` sits in front of the websocket's ``dataReceived``,
reads each frame header (RFC 6455 section 5.2) as the bytes go by and skips over the
payloads by count, so a data frame whose declared length would take its message
(the sum of a fragmented message's frames) past the cap is refused as soon as its
header is known: nothing of it, nor anything after it, reaches wsproto.
"""
from __future__ import annotations

_CONTROL = 0x8            # opcodes 8-15: close, ping, pong (never part of a message)
_CONTINUATION = 0x0


def header_size(head: bytes) -> int:
    """Bytes of a frame header, from its first two bytes."""
    short = head[1] & 0x7F
    extended = 2 if short == 126 else 8 if short == 127 else 0
    return 2 + extended + (4 if head[1] & 0x80 else 0)


def payload_length(head: bytes) -> int:
    short = head[1] & 0x7F
    if short == 126:
        return int.from_bytes(head[2:4], "big")
    if short == 127:
        return int.from_bytes(head[2:10], "big")
    return short


class FrameGuard:
    """Passes bytes on to ``deliver`` until a data frame's header declares a message
    over ``limit`` bytes; then calls ``refuse(size)`` once and drops everything after."""

    def __init__(self, deliver, limit: int, refuse) -> None:
        self.deliver, self.limit, self.refuse = deliver, limit, refuse
        self.refused = False
        self._head = bytearray()       # the header being read
        self._skip = 0                 # payload bytes of the current frame still to pass
        self._message = 0              # payload bytes of the unfinished data message so far

    def __call__(self, data: bytes) -> None:
        if self.refused:
            return
        i, n = 0, len(data)
        start = 0                      # where the header being read began in this chunk
        while i < n:
            if self._skip:
                step = min(self._skip, n - i)
                self._skip -= step
                i += step
                continue
            if not self._head:
                start = i
            need = 2 if len(self._head) < 2 else header_size(self._head)
            take = min(need - len(self._head), n - i)
            self._head += data[i:i + take]
            i += take
            if len(self._head) < 2 or len(self._head) < header_size(self._head):
                continue
            head, self._head = bytes(self._head), bytearray()
            length = payload_length(head)
            opcode, fin = head[0] & 0x0F, head[0] & 0x80
            if opcode < _CONTROL:
                size = (self._message if opcode == _CONTINUATION else 0) + length
                if size > self.limit:
                    self.refused = True
                    if start:
                        self.deliver(data[:start])
                    self.refuse(size)
                    return
                self._message = 0 if fin else size
            self._skip = length
        self.deliver(data)
