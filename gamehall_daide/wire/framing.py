"""DAIDE framing, sans IO (protocol chapter 3): type, pad, big-endian 16-bit length, payload.

The contract (``feed``/``encode``, errors, limits) is ``gamehall.framing.Framer``'s.
"""
from __future__ import annotations

from typing import Any

from gamehall.framing import FrameTooLong, Framer, MalformedFrame, check_typed_frame

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

# the EM codes of chapter 3's table
EM_IM_TIMER, EM_IM_NOT_FIRST, EM_ENDIAN, EM_MAGIC, EM_VERSION, EM_SECOND_IM = 1, 2, 3, 4, 5, 6
EM_UNKNOWN, EM_SHORT, EM_RM_FROM_CLIENT, EM_BAD_TOKEN = 8, 9, 0x0D, 0x0E


def em_code(ftype: int, length: int | None, im_done: bool, too_long: bool = False) -> int:
    """The EM code for a frame of type ``ftype`` that cannot be accepted (a bad header when
    ``length`` is given, else an unexpected whole message)."""
    if ftype == DAIDE_RM:
        return EM_RM_FROM_CLIENT
    if ftype not in (DAIDE_IM, DAIDE_DM, DAIDE_FM, DAIDE_EM) or too_long:
        return EM_UNKNOWN
    if not im_done and ftype != DAIDE_IM:
        return EM_IM_NOT_FIRST
    if im_done and ftype == DAIDE_IM:
        return EM_SECOND_IM
    if ftype == DAIDE_IM and length == 0x0400:
        return EM_ENDIAN                 # a little-endian length of 4
    return EM_SHORT


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
        ftype, payload = check_typed_frame(frame, 255)
        if len(payload) > self.max_frame:
            raise ValueError(f"DAIDE payload of {len(payload)} bytes exceeds {self.max_frame}")
        problem = self._length_problem(ftype, len(payload))
        if problem:
            raise ValueError(problem)
        return bytes((ftype, 0)) + len(payload).to_bytes(2, "big") + payload
