"""Text that one user sends and others receive, whatever protocols they speak.

Each front end checks its own input by its own rules (Euphrates & Tigris refuses
control characters, NetAcquire passes them), so a line that one protocol lets in
must not reach another protocol's clients as it came: an ``ESC[2J`` said over
NetAcquire would clear an E&T player's terminal, a right-to-left override would
reverse the rest of a line in every client.  The hall therefore cleans such text
once, where it fans out (``Lobby.chat``, ``Table.chat``, the operator's ``say``),
with ``clean_text``; nicknames are refused at login for the same characters
(``gamehall.lobby.check_nickname``), and the operator's console prints through it.
"""
from __future__ import annotations

import unicodedata

#: Controls, format characters (zero-width, bidirectional marks, overrides and
#: isolates, soft hyphen), line and paragraph separators, private use, surrogates
#: and unassigned code points: invisible or misleading, never passed on.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
_WHITESPACE = "\t\n\r\v\f\x1c\x1d\x1e\x1f\x85"


def is_hidden(char: str) -> bool:
    """True for a character that ``clean_text`` does not pass on as it is."""
    return unicodedata.category(char) in HIDDEN_CATEGORIES


def clean_text(text: str, keep: str = "") -> str:
    """``text`` fit for any receiver: line breaks and tabs become spaces (a chat line
    stays one line), other control characters become ``?`` (visibly: something was
    there), and the rest of HIDDEN_CATEGORIES is dropped.  Characters in ``keep``
    (e.g. ``"\\n"`` for a multi-line console answer) pass as they are."""
    if text.isprintable():              # the common case: nothing hidden (and no line breaks)
        return text
    out = []
    for char in text:
        if char in keep:
            out.append(char)
        elif not is_hidden(char):
            out.append(char)
        elif char in _WHITESPACE or unicodedata.category(char) in ("Zl", "Zp"):
            out.append(" ")
        elif unicodedata.category(char) == "Cc":
            out.append("?")
    return "".join(out)
