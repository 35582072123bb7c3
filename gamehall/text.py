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

import functools
import unicodedata

from confusable_homoglyphs.utils import load as load_confusables_data

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


# -- lookalike nicknames ------------------------------------------------------------------
#
# Unicode TR39 (Security Mechanisms) defines a name's *skeleton*: NFD, every character
# replaced by the prototype of its confusables class (confusables.txt: Cyrillic "а" and
# full-width "ａ" -> "a", "1" and "I" -> "l", "m" -> "rn"), NFD again.  Two names with
# the same skeleton look alike.  The data comes from the confusable_homoglyphs package,
# which keeps confusables.txt as a symmetric relation (each source listed with its
# prototype and each prototype with its sources): its classes are rebuilt here, and a
# class's prototype is its centre (the member related to all the others, or the one of
# several characters).  Of a class of two single characters the centre cannot be told
# from that data; the smaller code point stands for it, which changes a skeleton's text
# but not which names have equal skeletons, the only thing the hall asks of it.


@functools.cache
def _prototypes() -> dict[str, str]:
    """Character -> the string that stands for its confusables class in a skeleton.

    Built once, at the first lookalike check (``Lobby`` asks at its creation): the
    package's data (its confusables.json, some 17 MB once parsed, with the characters'
    names) is read here and let go, not kept by importing its module (~1 MB stays)."""
    confusables_data = load_confusables_data("confusables.json")
    parent: dict[str, str] = {}
    degree: dict[str, int] = {}

    def root(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for source, related in confusables_data.items():
        # (The package wraps right-to-left characters in U+200E marks for display.)
        a = source.replace("\u200e", "")
        for entry in related:
            b = entry["c"].replace("\u200e", "")
            if not a or not b or a == b:
                continue
            for node in (a, b):
                parent.setdefault(node, node)
                degree[node] = degree.get(node, 0) + 1
            parent[root(a)] = root(b)
    classes: dict[str, list[str]] = {}
    for node in parent:
        classes.setdefault(root(node), []).append(node)
    table: dict[str, str] = {}
    for members in classes.values():
        # the prototype: one of several characters if any (never a source), else the centre
        prototype = min(members, key=lambda m: (len(m) == 1, -degree[m], m))
        for member in members:
            if len(member) == 1:
                table[member] = prototype
    # A prototype of several characters is written with characters that may stand in a
    # class of two whose stand-in is the other one: fold it too, so that "m" and "rn" typed
    # out still come to the same skeleton.
    single = {char: proto for char, proto in table.items() if len(proto) == 1}
    for char, proto in table.items():
        if len(proto) > 1:
            table[char] = "".join(single.get(c, c) for c in proto)
    return table


def skeleton(text: str) -> str:
    """The TR39 skeleton of ``text`` (up to the stand-in of two-character classes, above)."""
    table = _prototypes()
    mapped = "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def _without_marks(text: str) -> str:
    return "".join(char for char in text if unicodedata.category(char) != "Mn")


@functools.lru_cache(maxsize=4096)
def lookalike_keys(nickname: str) -> frozenset[str]:
    """Keys such that two nicknames sharing one look alike to a reader.

    Beyond TR39: combining marks are dropped after the skeleton's NFD, so "alicé"
    (é composed, or e + U+0301) comes to "alice"; the skeleton alone keeps the accent
    (U+0301 is its own class).  And nicknames are unique regardless of case, so case
    is folded, both after the skeleton ("aIice", capital I, is "alice") and before it
    ("АLICE", Cyrillic А, is a spelling of "ALICE", the same name as "alice")."""
    name = unicodedata.normalize("NFKC", nickname)
    return frozenset({_without_marks(skeleton(name)).casefold(),
                      _without_marks(skeleton(name.casefold())).casefold()})
