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


# -- characters a nickname may not hold ---------------------------------------------------
#
# Beyond HIDDEN_CATEGORIES: code points that are letters or symbols to Unicode but show
# as nothing or as blank space, so that "alice" and "alice" + U+3164 look the same and a
# name of fillers shows as a blank user.  Unicode's Default_Ignorable_Code_Point set (the
# part of it outside the format characters, which is_hidden refuses already) and the
# blank-looking symbols beside it.  (unicodedata has no such property: listed here, from
# DerivedCoreProperties.txt.)

_BLANK_RANGES = (
    (0x034F, 0x034F),     # COMBINING GRAPHEME JOINER
    (0x115F, 0x1160),     # HANGUL CHOSEONG / JUNGSEONG FILLER
    (0x17B4, 0x17B5),     # KHMER VOWEL INHERENT AQ / AA
    (0x180B, 0x180F),     # MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
    (0x2800, 0x2800),     # BRAILLE PATTERN BLANK
    (0x3164, 0x3164),     # HANGUL FILLER
    (0xFE00, 0xFE0F),     # VARIATION SELECTORS
    (0xFFA0, 0xFFA0),     # HALFWIDTH HANGUL FILLER
    (0x1D159, 0x1D159),   # MUSICAL SYMBOL NULL NOTEHEAD
    (0x1D173, 0x1D17A),   # MUSICAL SYMBOL BEGIN/END BEAM... (format-like)
    (0xE0100, 0xE01EF),   # VARIATION SELECTORS SUPPLEMENT
)


_BLANK = frozenset(chr(code) for low, high in _BLANK_RANGES for code in range(low, high + 1))


def is_blank(char: str) -> bool:
    """True for a character that shows as nothing or as blank space although Unicode counts
    it as a letter, mark or symbol (Hangul fillers, braille blank, variation selectors)."""
    return char in _BLANK


def is_separator(char: str) -> bool:
    """Space of any width and the connector ``_``: the front ends show one as the other (E&T
    writes a name's spaces as ``_``, NetAcquire and the web collapse runs of spaces)."""
    return char.isspace() or unicodedata.category(char) in ("Zs", "Pc")


def is_visible(char: str) -> bool:
    """A character that makes a mark of its own: a letter, digit, punctuation or symbol,
    not a space, a mark on another character, hidden or blank."""
    return unicodedata.category(char)[0] in "LNPS" and not is_blank(char) and not is_hidden(char)


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
    return "".join(char for char in text if unicodedata.category(char) != "Mn" and not is_blank(char))


@functools.cache
def _small_capitals() -> dict[int, str]:
    """LATIN LETTER SMALL CAPITAL X -> "x" (``ᴀ`` U+1D00 -> ``a``): not in confusables.txt,
    yet a small capital reads as its letter.  From the characters' names, in the blocks that
    hold them (IPA and phonetic extensions, Latin Extended-D and -F)."""
    table: dict[int, str] = {}
    for low, high in ((0x0250, 0x02AF), (0x1D00, 0x1DBF), (0xA720, 0xA7FF), (0x10780, 0x107BF)):
        for code in range(low, high + 1):
            name = unicodedata.name(chr(code), "")
            for prefix in ("LATIN LETTER SMALL CAPITAL ", "MODIFIER LETTER SMALL CAPITAL "):
                letters = name[len(prefix):] if name.startswith(prefix) else ""
                if letters.isalpha() and letters.isascii() and len(letters) <= 2:   # A..Z, AE, OE
                    table[code] = letters.lower()
    return table


def _one_separator(text: str) -> str:
    """Every run of separators (``is_separator``) as one ``_``."""
    out: list[str] = []
    for char in text:
        if not is_separator(char):
            out.append(char)
        elif not out or out[-1] != "_":
            out.append("_")
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def lookalike_keys(nickname: str) -> frozenset[str]:
    """Keys such that two nicknames sharing one look alike to a reader.

    Beyond TR39: combining marks are dropped after the skeleton's NFD, so "alicé"
    (é composed, or e + U+0301) comes to "alice"; the skeleton alone keeps the accent
    (U+0301 is its own class).  And nicknames are unique regardless of case, so case
    is folded, both after the skeleton ("aIice", capital I, is "alice") and before it
    ("АLICE", Cyrillic А, is a spelling of "ALICE", the same name as "alice").  Blank
    characters (``is_blank``) are dropped, small capitals read as their letters ("ᴀlice"),
    and any run of spaces and ``_`` is one separator: "ali ce", "ali  ce" (shown so on the
    web) and "ali_ce" (how E&T shows it) are one name."""
    name = unicodedata.normalize("NFKC", nickname).translate(_small_capitals())
    return frozenset({_one_separator(_without_marks(skeleton(name)).casefold()),
                      _one_separator(_without_marks(skeleton(name.casefold())).casefold())})
