"""DAIDE tokens: names <-> 16-bit codes (protocol chapter 4).

The table is ``data/daide-tokens.json`` (212 named tokens, the codes David
Norman's client and the ``diplomacy`` package use; Parlance's protocol text
swaps FCT/FOR/FWD, which matters only at press level 60 and up).  Besides the
named tokens a code may be an integer (categories 0x00-0x3F, 14-bit two's
complement), a bracket (0x4000, 0x4001) or one ASCII character (0x4B).
"""
from __future__ import annotations

import json
from importlib import resources

BRA, KET = 0x4000, 0x4001
TEXT_CATEGORY = 0x4B
PRIVATE_CATEGORIES = range(0x58, 0x60)      # never sent: EM 0x0E when received
INT_MIN, INT_MAX = -8192, 8191


def _load() -> dict[str, int]:
    with resources.files("gamehall_daide").joinpath("data/daide-tokens.json").open("rb") as f:
        return {name.upper(): int(code) for name, code in json.load(f).items()}


CODES: dict[str, int] = _load()
NAMES: dict[int, str] = {code: name for name, code in CODES.items()}
POWER_CATEGORY = 0x41
PROVINCE_CATEGORIES = range(0x50, 0x58)


def category(code: int) -> int:
    return code >> 8


def is_integer(code: int) -> bool:
    return code < 0x4000


def decode_integer(code: int) -> int:
    """The value of an integer token (14-bit two's complement)."""
    return code - 0x4000 if code & 0x2000 else code


def encode_integer(value: int) -> int:
    if not INT_MIN <= value <= INT_MAX:
        raise ValueError(f"DAIDE integers run {INT_MIN}..{INT_MAX}, not {value}")
    return value & 0x3FFF


def is_private(code: int) -> bool:
    return category(code) in PRIVATE_CATEGORIES


def is_power(name: str) -> bool:
    code = CODES.get(name)
    return code is not None and category(code) == POWER_CATEGORY


def is_province(name: str) -> bool:
    code = CODES.get(name)
    return code is not None and category(code) in PROVINCE_CATEGORIES


def is_coast(name: str) -> bool:
    code = CODES.get(name)
    return code is not None and category(code) == 0x46


def is_kind(name: str, cat: int) -> bool:
    code = CODES.get(name)
    return code is not None and category(code) == cat
