"""Windward bots: names, legality, determinism, card use, and strength against the sample AI."""
from __future__ import annotations

import statistics

import pytest
from zope.interface.verify import verifyObject

from gamehall.interfaces import IBot
from gamehall_acquire.windward.bots import SimpleBot, StrongBot, make_bot
from gamehall_acquire.windward.rules import DRAW_5, FREE_3, PLACE_4, WindwardGame

from .scenario import NAMES6


def play(seed, layout, record_cards=False):
    g = WindwardGame.new(NAMES6, seed=seed, first=seed % 6)
    bots = [make_bot(name, seed * 6 + i) for i, name in enumerate(layout)]
    played = [set() for _ in range(6)]
    while not g.is_over():
        seat = g.pending_seat()
        action = bots[seat].choose(g, seat)
        for e in g.apply(seat, action):                 # IllegalAction would fail the test
            if e["type"] == "card_played":
                played[e["seat"]].add(e["card"])
    return g, played


def test_make_bot_names():
    assert isinstance(make_bot("strong", 1), StrongBot)
    assert isinstance(make_bot("simple", 1), SimpleBot)
    for name in ("strong", "simple"):
        verifyObject(IBot, make_bot(name, 0))
    with pytest.raises(ValueError):
        make_bot("random", 1)


def test_bots_are_deterministic():
    layout = ["strong", "simple"] * 3
    a, _ = play(3, layout)
    b, _ = play(3, layout)
    assert a.record() == b.record()


def test_simple_bot_replies_like_the_sample_and_is_normalised():
    g = WindwardGame.new(NAMES6, seed=4)
    bot = SimpleBot(1)
    seat = g.pending_seat()
    while g.pending().kind == "card":
        g.apply(seat, {"card": "NONE"})
    raw = bot.raw_reply(g, seat)
    assert set(raw) >= {"tile", "card", "buy", "trade"} and len(raw["buy"]) == 2
    g.apply(seat, g.normalise(seat, raw))


def test_strong_beats_the_sample_ai_and_plays_its_cards():
    strong, simple, cards = [], [], set()
    for seed in range(6):
        layout = ["simple"] * 6
        layout[seed % 6] = "strong"
        g, played = play(seed, layout)
        scores = g.result()["scores"]
        strong.append(scores[seed % 6])
        simple.extend(s for i, s in enumerate(scores) if i != seed % 6)
        cards |= played[seed % 6]
    assert statistics.mean(strong) > 2 * statistics.mean(simple)
    assert {PLACE_4, DRAW_5, FREE_3} <= cards
