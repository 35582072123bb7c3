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
import re

import pytest

pytest.importorskip("gamehall_daide.game", reason="the Diplomacy package is not installed here")

from gamehall_daide.bots import make_bot  # noqa: E402
from gamehall_daide.game import DiplomacyEngine  # noqa: E402
from gamehall_daide.mapdata import DATA_DIR, load  # noqa: E402
from gamehall_daide.view import DiplomacyView, order_data, static_map  # noqa: E402
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


def draw_at(browser, path, size: str):
    """Load the page at a window size: drawn, no script error, nothing wider than the window."""
    driver = browser.driver
    browser.size(size)
    driver.get(path.as_uri())
    assert driver.execute_script("return window.rendered === true && window.errors.length === 0")
    assert driver.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
    return driver


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
            draw_at(browser, path, size)
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


# ------------------------------------------------------------------------------------ the map
def test_the_layout_covers_exactly_the_mdf_provinces_and_coasts():
    gmap = load("standard")
    with open(f"{DATA_DIR}/standard-layout.json", encoding="utf-8") as f:
        layout = json.load(f)
    assert set(layout["provinces"]) == set(gmap.provinces)
    coasts = {loc for locs in gmap.fleet_locs.values() for loc in locs if "/" in loc}
    assert set(layout["coasts"]) == coasts == {"STP/NCS", "STP/SCS", "SPA/NCS", "SPA/SCS", "BUL/ECS", "BUL/SCS"}
    kinds = {p: "sea" if p in gmap.is_sea else "coast" if p in gmap.is_coastal else "land" for p in gmap.provinces}
    assert {p: v["kind"] for p, v in layout["provinces"].items()} == kinds
    x0, y0, w, h = layout["viewBox"]
    places = [(v["x"], v["y"]) for v in [*layout["provinces"].values(), *layout["coasts"].values()]]
    places += [tuple(xy) for xy in layout["impassable"] + layout["water"]]
    assert all(x0 < x < x0 + w and y0 < y < y0 + h for x, y in places)
    assert len(set(places)) == len(places)
    # a coast is drawn near its own province
    for loc, v in layout["coasts"].items():
        p = layout["provinces"][loc.split("/")[0]]
        assert abs(v["x"] - p["x"]) + abs(v["y"] - p["y"]) < 120, loc


def test_every_adjacency_has_both_ends_on_the_map_and_stays_short():
    gmap, drawn = load("standard"), static_map("standard")
    pairs = {tuple(e.split("-")) for e in drawn["edges"].split()}
    for adj in (gmap.army_adj, gmap.fleet_adj):
        for loc, targets in adj.items():
            for t in targets:
                a, b = gmap.prov_of[loc], gmap.prov_of[t]
                assert (min(a, b), max(a, b)) in pairs
    provinces = drawn["provinces"]
    for a, b in pairs:
        assert a in provinces and b in provinces
        # neighbours are drawn near each other: the map resembles its topology
        dist = ((provinces[a]["x"] - provinces[b]["x"]) ** 2 + (provinces[a]["y"] - provinces[b]["y"]) ** 2) ** .5
        assert dist < 310, (a, b, dist)
    assert drawn["centres"] == sorted(gmap.centres)


def test_orders_as_data():
    assert order_data("ORD ( SPR 1901 ) ( ( AUS AMY BUD ) SUP ( AUS AMY VIE ) MTO GAL ) ( NSO )") == {
        "power": "AUS", "unit": "AMY", "at": "BUD", "order": "SUP", "of": "VIE", "to": "GAL", "result": ["NSO"]}
    assert order_data("ORD ( FAL 1902 ) ( ( ITA FLT GOL ) MTO ( SPA SCS ) ) ( BNC RET )") == {
        "power": "ITA", "unit": "FLT", "at": "GOL", "order": "MTO", "to": "SPA/SCS", "result": ["BNC", "RET"]}
    assert order_data("ORD ( SPR 1902 ) ( ( RUS AMY LVN ) CTO DEN VIA ( BAL ) ) ( NSO )")["via"] == ["BAL"]
    assert order_data("ORD ( FAL 1901 ) ( ( RUS FLT ( STP SCS ) ) HLD ) ( SUC )")["at"] == "STP/SCS"
    assert order_data("ORD ( FAL 1901 ) ( ( ITA FLT TYS ) CVY ( ITA AMY ROM ) CTO TUN ) ( NSO )") == {
        "power": "ITA", "unit": "FLT", "at": "TYS", "order": "CVY", "of": "ROM", "to": "TUN", "result": ["NSO"]}


def mid_game(dislodged: bool) -> DiplomacyEngine:
    """A seeded random-bot game played up to a turn with many orders given (and, if asked,
    a unit dislodged)."""
    for seed in range(40):
        for e, _, _ in positions(games=1, seed=seed):
            moves = [o for o in map(order_data, e.results()) if o["order"] in ("MTO", "CTO")]
            if (e.last_turn or "").startswith(("SPR 1902", "FAL 1902", "SPR 1903")) and len(moves) >= 6 \
                    and bool(e.pos.dislodged) == dislodged and not e.orders_of(e.powers[0]):
                return copy(e)
    raise AssertionError("no such position in 40 games")


def test_a_mid_game_map_draws_units_centres_and_orders(tmp_path):
    require_browser()
    browser = Browser("diplomacy-map")
    try:
        for dislodged in (False, True):
            e = mid_game(dislodged)
            state = VIEW.seat(e, 0)
            path = tmp_path / f"diplomacy-map-{dislodged}.html"
            path.write_text(page(VIEW, state, VIEW.decision(e, 0), 0), "utf-8")
            for size in ("desktop", "phone"):
                driver = draw_at(browser, path, size)
                units = sum(len(p["units"]) for p in state["powers"])
                assert driver.execute_script("return document.querySelectorAll('.dip-unit-mark').length") == units
                assert driver.execute_script("return document.querySelectorAll('.dip-dislodged').length") == \
                    len(state["dislodged"])
                assert driver.execute_script("return document.querySelectorAll('.dip-centre').length") == 34
                # every centre's marker has its owner's colour (white when neutral)
                fills = driver.execute_script(
                    "return [...document.querySelectorAll('.dip-centre')].map(c => c.getAttribute('fill'))")
                owners = {c: p["colour"] for p in state["powers"] for c in p["centres"]}
                assert fills == [owners.get(c, "#fff") for c in static_map()["centres"]]
                # a move arrow per move order, from its unit's place towards its destination
                arrows = driver.execute_script(
                    "return [...document.querySelectorAll('line[marker-end]')].filter(l => !l.getAttribute"
                    "('stroke-dasharray')).map(l => [+l.getAttribute('x1'), +l.getAttribute('y1'),"
                    " +l.getAttribute('x2'), +l.getAttribute('y2')])")
                moves = [o for o in state["orders"] if o["order"] in ("MTO", "CTO", "RTO")]
                assert len(arrows) == len(moves)
                drawn = static_map()
                for o, (x1, y1, x2, y2) in zip(moves, arrows):
                    a = drawn["coasts"].get(o["at"]) or drawn["provinces"][o["at"].split("/")[0]]
                    b = drawn["coasts"].get(o["to"]) or drawn["provinces"][o["to"].split("/")[0]]
                    assert abs(x1 - a["x"]) + abs(y1 - a["y"]) < 20 and abs(x2 - b["x"]) + abs(y2 - b["y"]) < 20
                failed = sum(1 for o in state["orders"] if "SUC" not in o["result"]
                             and o["order"] not in ("WVE",))
                assert failed and len(driver.find_elements("css selector", ".dip-results .bad")) == failed
                # labels are text, and none of them overlaps another
                boxes = driver.execute_script(
                    "return [...document.querySelectorAll('.dip-map text:not(.unit)')].map(t => "
                    "{const r = t.getBoundingClientRect(); return [t.textContent, r.left, r.top, r.right, r.bottom]})")
                assert len(boxes) == 75
                for i, (n1, l1, t1, r1, b1) in enumerate(boxes):
                    for n2, l2, t2, r2, b2 in boxes[i + 1:]:
                        assert min(r1, r2) - max(l1, l2) <= 0.5 or min(b1, b2) - max(t1, t2) <= 0.5, (n1, n2)
                ARTIFACTS.mkdir(exist_ok=True)
                name = "retreats" if dislodged else "movement"
                driver.save_screenshot(str(ARTIFACTS / f"static-diplomacy-map-{name}-{size}.png"))
                if size == "phone" and not dislodged:
                    # a tap enlarges the map inside its box (the page itself stays as wide as the window)
                    driver.execute_script("document.querySelector('.dip-map').click()")
                    assert driver.execute_script(
                        "const m = document.querySelector('.dip-map'); return m.scrollWidth > 2 * m.clientWidth")
                    assert driver.execute_script(
                        "return document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
                    driver.execute_script("const m = document.querySelector('.dip-map'); m.scrollLeft = m.scrollWidth / 3")
                    driver.save_screenshot(str(ARTIFACTS / "static-diplomacy-map-phone-enlarged.png"))
                    driver.execute_script("document.querySelector('.dip-map').click()")
    finally:
        browser.close()


# ------------------------------------------------------------------------------ in words
DAIDE_WORD = re.compile(r"\( | \)|\b(AMY|FLT|MTO|SUP|CVY|CTO|RTO|HLD|DSB|BLD|REM|WVE|SUC|BNC|NSO|MBV|MIS|[A-Z]{3})\b")


def test_the_log_says_orders_and_results_in_words():
    """The event lines read as English: "England: F London → North Sea: bounced", with no
    DAIDE token or bracket left (over seeded random games, every line a seat or a
    spectator gets)."""
    e = DiplomacyEngine("standard", [f"p{k}" for k in range(7)], seed=4)
    eng, fra = e.powers.index("ENG"), e.powers.index("FRA")
    lines = VIEW.describe(e, eng, e.apply(eng, {"submit": ["( ENG FLT LON ) MTO NTH", "( ENG FLT EDI ) MTO NTH",
                                                           "( ENG AMY LVP ) MTO YOR", "( ENG FLT NTH ) HLD"]}))
    assert lines[:4] == ["order England: F London → North Sea: accepted",
                         "order England: F Edinburgh → North Sea: accepted",
                         "order England: A Liverpool → Yorkshire: accepted",
                         "order England: F North Sea holds: refused: no such unit"]
    lines = VIEW.describe(e, fra, e.apply(fra, {"submit": ["( FRA AMY PAR ) SUP ( FRA AMY MAR ) MTO BUR"]}))
    assert lines[0] == "order France: A Paris supports A Marseilles → Burgundy: accepted"
    assert lines[1] == "still to order: F Brest, A Marseilles"
    for s in range(7):
        if s not in (eng, fra):
            e.apply(s, {"submit": e.default_orders(e.powers[s])})
    last = e.apply(fra, {"submit": ["( FRA FLT BRE ) HLD", "( FRA AMY MAR ) MTO BUR"]})
    said = VIEW.describe(e, None, last)
    assert "England: F London → North Sea: bounced" in said
    assert "England: F Edinburgh → North Sea: bounced" in said
    assert "England: A Liverpool → Yorkshire: succeeds" in said
    assert "France: A Paris supports A Marseilles → Burgundy: succeeds" in said
    assert "Russia: F St Petersburg (south coast) holds: succeeds" in said
    seen = 0
    for e, s, events in positions(games=2, seed=7):
        for who in (s, None):
            for line in VIEW.describe(e, who, events):
                assert not DAIDE_WORD.search(line), line
                seen += 1
    assert seen > 500


def test_a_seat_is_named_by_its_power():
    e = DiplomacyEngine("standard", [f"p{k}" for k in range(7)], seed=4)
    for s, power in enumerate(e.powers):
        state = VIEW.seat(e, s)
        assert state["seat_title"] == {"AUS": "Austria", "ENG": "England", "FRA": "France", "GER": "Germany",
                                       "ITA": "Italy", "RUS": "Russia", "TUR": "Turkey"}[power]
    assert VIEW.seat(e, e.powers.index("ENG"))["mine"]["missing_text"] == "F Edinburgh, F London, A Liverpool"
    assert VIEW.seat(e, e.powers.index("RUS"))["mine"]["orders_text"] == []
    assert "seat_title" not in VIEW.spectator(e)


def test_the_results_and_the_form_read_in_words(tmp_path):
    require_browser()
    e = mid_game(True)
    s = next(i for i, p in enumerate(e.powers) if VIEW.decision(e, i))
    state, d = VIEW.seat(e, s), VIEW.decision(e, s)
    path = tmp_path / "diplomacy-words.html"
    path.write_text(page(VIEW, state, d, s), "utf-8")
    browser = Browser("diplomacy-words")
    try:
        driver = draw_at(browser, path, "desktop")
        results = driver.execute_script("return [...document.querySelectorAll('.dip-results div')].map(x => x.textContent)")
        assert len(results) == len(state["orders"])
        names = {p["power"]: p["title"] for p in state["powers"]}
        for o, line in zip(state["orders"], results):
            assert line.startswith(names[o["power"]]), line
            assert not DAIDE_WORD.search(line), line
        side = driver.execute_script("return document.querySelector('.dip-side').innerText")
        assert not DAIDE_WORD.search(side.replace(state["mine"]["power"], "")), side
        labels = driver.execute_script(
            "return [...document.querySelectorAll('.dip-form label, .dip-form option')].map(x => x.firstChild.textContent)")
        assert labels and not any(DAIDE_WORD.search(t) for t in labels), labels
        ARTIFACTS.mkdir(exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "static-diplomacy-words-desktop.png"))
        driver.execute_script("document.querySelector('.dip-form button').click()")
        (action,) = driver.execute_script("return window.acted")
        assert all(n == "MBV" for n in (ev["note"] for ev in copy(e).apply(s, action) if ev["type"] == "thx"))
    finally:
        browser.close()


def test_the_table_page_says_which_power_one_plays(tmp_path):
    """Live, through a hall: the table's header says "you play England", not "you play seat 7"."""
    from selenium.webdriver.support.ui import Select

    from tests.web.browser import start_web_hall
    from tests.web.test_browser_lobby import sign_in
    require_browser()
    hall, ports = start_web_hall(tmp_path, "--bot-delay", "1")
    browser = Browser("diplomacy-seat-title")
    try:
        sign_in(browser, f"http://127.0.0.1:{ports['web']}/", "Vera")
        Select(browser.css("#new-game")[0]).select_by_value("diplomacy")
        browser.type("#new-seats", "7")
        browser.type("#new-bots", "6")
        browser.click("#new-start")
        browser.click("#create")
        browser.wait_css(".dip-map svg", timeout=30)
        browser.wait_text(".table-title", "you play ")
        title = browser.text(".table-title")
        assert re.search(r"you play (Austria|England|France|Germany|Italy|Russia|Turkey)\b", title), title
        power = re.search(r"you play (\w+)", title)[1]
        browser.wait_text(".dip-side", f"Your orders ({power})")
        browser.shot("table")
        assert not browser.console_errors(), browser.console_errors()
    finally:
        browser.close()
        hall.kill(15)
