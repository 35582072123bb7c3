"""The web view of Diplomacy: orders stay their power's until the results; legal choices; drawing.

Skipped where the Diplomacy package (gamehall_daide) is not installed.  Over
positions of seeded random-bot games with orders half given: cancelling every
other power's orders changes nothing a seat (or a spectator) is shown, nor
its decision; a power's order replies reach only its seat; every choice, and
the form's first legal order for each unit, applies to a copy of the engine.
"""
from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("gamehall_daide.game", reason="the Diplomacy package is not installed here")

from gamehall_daide.bots import make_bot  # noqa: E402
from gamehall_daide.game import DiplomacyEngine  # noqa: E402
from gamehall_daide.view import DiplomacyView  # noqa: E402
from tests.web.browser import ARTIFACTS, Browser, require_browser  # noqa: E402
from tests.web.viewpage import page  # noqa: E402

VIEW = DiplomacyView()


def copy(e: DiplomacyEngine) -> DiplomacyEngine:
    return DiplomacyEngine.from_dict(json.loads(json.dumps(e.to_dict())))


def positions(games: int, seed: int = 0):
    """Positions with some powers' orders given and others' not, along seeded random games."""
    for i in range(games):
        rng = random.Random(seed * 100 + i)
        e = DiplomacyEngine("standard", [f"p{k}" for k in range(7)], seed=rng.randrange(2 ** 32),
                            options={"max_year": 1904})
        bots = [make_bot("random", seed + k) for k in range(7)]
        events: list = []
        while not e.is_over():
            seats = list(range(7))
            rng.shuffle(seats)
            for s in seats:
                if e.is_over() or VIEW.decision(e, s) is None:
                    continue
                action = bots[s].choose(e, s)
                if action is None:
                    continue
                events = e.apply(s, action)
                yield e, s, events


def others_cancelled(e: DiplomacyEngine, keep: int | None) -> DiplomacyEngine:
    other = copy(e)
    for s, power in enumerate(other.powers):
        if s != keep and power not in other.eliminated():
            other.pos.cancel(power)
    return other


def test_orders_stay_with_their_power_until_the_results():
    checked = 0
    for e, actor, events in positions(games=2):
        if e.is_over():
            continue
        assert VIEW.spectator(others_cancelled(e, None)) == VIEW.spectator(e)
        for s in range(7):
            assert VIEW.seat(others_cancelled(e, s), s) == VIEW.seat(e, s)
            assert VIEW.decision(others_cancelled(e, s), s) == VIEW.decision(e, s)
            if s != actor:
                assert not any(line.startswith(("order ", "still to order", "cancelled", "orders cancelled"))
                               for line in VIEW.describe(e, s, events))
        assert all(not line.startswith("order ") for line in VIEW.describe(e, None, events))
        checked += 1
    assert checked > 30


def test_every_choice_and_the_form_are_legal():
    kinds = set()
    rng = random.Random(5)
    for e, _, _ in positions(games=2, seed=3):
        json.dumps(VIEW.spectator(e))
        assert VIEW.scores(e) == [float(e.pos.centres(p)) for p in e.powers]
        for s in range(7):
            d = VIEW.decision(e, s)
            if d is None:
                continue
            json.dumps(d)
            kinds.add(d["kind"])
            for c in d["choices"]:
                copy(e).apply(s, c["action"])
            form = d["form"]
            picks = [rng.choice(form["orders"][u]) for u in form["units"]]
            adj = form["orders"].get("builds") or form["orders"].get("removals") or []
            picks += [adj[min(i, len(adj) - 1)] for i in range(form["owed"])]
            if picks:
                events = copy(e).apply(s, {"submit": picks})
                notes = [ev["note"] for ev in events if ev["type"] == "thx"]
                assert notes and all(n == "MBV" for n in notes[:len(form["units"])]), (picks, notes)
    assert {"movement", "adjustments"} <= kinds, kinds


def test_the_board_draws_and_the_form_submits(tmp_path):
    require_browser()
    e = DiplomacyEngine("standard", [f"<b>p{k}</b>" for k in range(7)], seed=4)
    state, d = VIEW.seat(e, 2), VIEW.decision(e, 2)
    path = tmp_path / "diplomacy.html"
    path.write_text(page(VIEW, state, d, 2), "utf-8")
    browser = Browser("diplomacy-view")
    try:
        driver = browser.driver
        for size in ("desktop", "phone"):
            browser.size(size)
            driver.get(path.as_uri())
            assert driver.execute_script("return window.rendered === true && window.errors.length === 0")
            assert driver.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
            # names are text: their tags show as characters, none became an element
            assert "<b>p2</b>" in driver.execute_script("return document.getElementById('board').textContent")
            assert not driver.execute_script(
                "return [...document.querySelectorAll('#board b')].some(b => /^p\\d$/.test(b.textContent))")
            ARTIFACTS.mkdir(exist_ok=True)
            driver.save_screenshot(str(ARTIFACTS / f"static-diplomacy-{size}.png"))
        browser.size("desktop")
        driver.get(path.as_uri())
        assert driver.execute_script("return document.querySelectorAll('.dip-sc').length") == len(e.gmap.centres)
        driver.execute_script("document.querySelector('.dip-form button').click()")
        (action,) = driver.execute_script("return window.acted")
        assert len(action["submit"]) == len(d["form"]["units"])
        events = copy(e).apply(2, action)
        assert [ev["note"] for ev in events if ev["type"] == "thx"] == ["MBV"] * len(d["form"]["units"])
    finally:
        browser.close()
