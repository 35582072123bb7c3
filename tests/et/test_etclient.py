"""The protocol-text test client (tests/et/etclient.py) answers ``ask treasure`` from what the
board lines told it, treasures under monuments included."""
from __future__ import annotations

import pytest

from .etclient import Client


def asked_for_a_treasure(*cells: str) -> tuple[Client, list[str]]:
    sent: list[str] = []
    client = Client(1, sent.append)
    for line in ("welcome 1", *(f"board! {cell}" for cell in cells), "state treasureask 0", "ask treasure"):
        client.feed(line)
    return client, sent


def test_a_treasure_under_a_monument_is_offered_by_priority_like_any_other():
    # a corner temple built over (^rg2) and a plain temple (#r1-): the corner one is taken first
    client, sent = asked_for_a_treasure("1 7 ^rg2", "5 2 #r1-")
    assert sent == ["take 1 7"]


def test_each_refusal_tries_the_next_treasure_and_none_is_asked_twice():
    client, sent = asked_for_a_treasure("5 2 #r1-", "1 7 ^rg2", "15 1 #r2-")
    for _ in range(2):
        client.feed("ERROR there is no treasure of your trader's kingdom there")
        client.feed("ask treasure")
    assert sent == ["take 15 1", "take 1 7", "take 5 2"]
    client.feed("ERROR corner treasures must be taken first")
    with pytest.raises(AssertionError, match="all 3 on the board were refused"):
        client.feed("ask treasure")            # a stuck game shows up at once, not as a timeout
