"""Small pure helpers the games' views share (no game knowledge, no Twisted)."""
from __future__ import annotations


def keyed(choices: list[dict]) -> list[dict]:
    """Give the first nine choices the keys "1".."9" (the rest None), in place; returns them."""
    for i, c in enumerate(choices):
        c["key"] = str(i + 1) if i < 9 else None
    return choices
