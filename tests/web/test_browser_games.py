"""Each game's drawing script in a real headless browser (Debian chromium through Selenium).

Static part: a position of a seeded bot game is drawn by the view's own script
in a page of its own (tests/web/viewpage.py), at 1280x800 and at phone size
390x844: no script error, nothing wider than the window, the board's pieces
where the state puts them, and a click on the board (a tile, a piece then a
cell, a property then its move) sends an action that a copy of the engine
accepts.  Screenshots go to tests/web/artifacts/.
"""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from gamehall_acquire.bots import make_bot as acquire_bot
from gamehall_acquire.rules import Game as AcquireGame
from gamehall_acquire.view import AcquireView
from gamehall_acquire.windward.bots import make_bot as windward_bot
from gamehall_acquire.windward.rules import WindwardGame
from gamehall_acquire.windward.view import WindwardView
from gamehall_et.bots import make_bot as et_bot
from gamehall_et.engine import Game as EtGame
from gamehall_et.view import EuphratesTigrisView
from gamehall_pimp.bots import make_bot as pimp_bot
from gamehall_pimp.game import HallEngine, Monopoly, with_players
from gamehall.interfaces import IllegalAction
from tests.web.viewpage import page

ARTIFACTS = Path(__file__).parent / "artifacts"
SIZES = {"wide": (1280, 800), "phone": (390, 844)}

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None or shutil.which("chromedriver") is None,
    reason="needs Debian chromium and chromium-driver (.ci/run installs them)")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.binary_location = shutil.which("chromium")
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def show(browser, tmp_path, view, state, decision, seat, name: str) -> None:
    """Draw the state at each size: no error, nothing wider than the window; screenshots."""
    path = tmp_path / f"{name}.html"
    path.write_text(page(view, state, decision, seat), "utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    for size, (w, h) in SIZES.items():
        browser.set_window_size(w, h)
        browser.get(path.as_uri())
        assert browser.execute_script("return window.rendered === true && window.errors.length === 0"), \
            browser.execute_script("return window.errors")
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{name} at {size} is {overflow}px wider than the window"
        browser.save_screenshot(str(ARTIFACTS / f"{name}-{size}.png"))
    browser.set_window_size(*SIZES["wide"])
    browser.get(path.as_uri())


def acted(browser) -> list:
    return browser.execute_script("return window.acted")


def click(browser, css: str, index: int = 0) -> None:
    from selenium.webdriver.common.by import By
    elements = browser.find_elements(By.CSS_SELECTOR, css)
    assert len(elements) > index, f"nothing matches {css}"
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", elements[index])
    elements[index].click()


def count(browser, css: str) -> int:
    return browser.execute_script(f"return document.querySelectorAll({json.dumps(css)}).length")


def play_until(engine, choose, stop, limit: int = 5000):
    for _ in range(limit):
        if stop(engine):
            return engine
        s = engine.pending_seat()
        engine.apply(s, choose(engine, s))
    raise AssertionError("the position never came")


def test_acquire_board_draws_and_plays_a_tile_and_buys(browser, tmp_path):
    view = AcquireView()
    bots = [acquire_bot("strong", i) for i in range(4)]
    g = AcquireGame.new(["ann", "bob", "cy", "dee"], seed=12)
    g = play_until(g, lambda e, s: bots[s].choose(e, s),
                   lambda e: len(e.board) > 30 and e.pending().kind == "play_tile")
    s = g.pending_seat()
    state, d = view.seat(g, s), view.decision(g, s)
    show(browser, tmp_path, view, state, d, s, "acquire")
    assert count(browser, ".acq-cell") == 108
    assert count(browser, ".acq-cell.chain") + count(browser, ".acq-cell.lone") == len(g.board)
    click(browser, ".acq-cell.click")
    (action,) = acted(browser)
    AcquireGame.from_dict(g.to_dict()).apply(s, action)
    # the buy form: two shares of the first chain it offers
    g = play_until(g, lambda e, s: bots[s].choose(e, s),
                   lambda e: e.pending().kind == "purchase" and any(e.pending().options["chains"].values()))
    s = g.pending_seat()
    path = tmp_path / "buy.html"
    d = view.decision(g, s)
    path.write_text(page(view, view.seat(g, s), d, s), "utf-8")
    browser.get(path.as_uri())
    chain = next(c for c, n in d["form"]["chains"].items() if n)
    from selenium.webdriver.common.by import By
    field = browser.find_elements(By.CSS_SELECTOR, ".acq-form input[type=number]")[list(d["form"]["chains"]).index(chain)]
    field.clear()
    field.send_keys("1")
    click(browser, ".acq-form button")
    (action,) = acted(browser)
    assert action == {"purchase": {chain: 1}, "end_game": False}
    AcquireGame.from_dict(g.to_dict()).apply(s, action)


def test_windward_board_draws_and_places_a_tile_through_the_form(browser, tmp_path):
    view = WindwardView()
    bots = [windward_bot("strong", i) for i in range(6)]
    g = WindwardGame.new([f"p{i}" for i in range(6)], seed=4)
    g = play_until(g, lambda e, s: bots[s].choose(e, s),
                   lambda e: len(e.board) > 25 and e.pending().kind == "tile_purchase"
                   and e.pending().options["tiles"])
    s = g.pending_seat()
    show(browser, tmp_path, view, view.seat(g, s), view.decision(g, s), s, "windward")
    click(browser, ".acq-cell.click")
    click(browser, ".acq-form button")
    (action,) = acted(browser)
    WindwardGame.from_dict(g.to_dict()).apply(s, action)


def test_et_board_draws_and_a_piece_goes_where_it_is_clicked(browser, tmp_path):
    view = EuphratesTigrisView()
    bots = [et_bot("strong", i) for i in range(4)]
    g = EtGame.new(["ann", "bob", "cy", "dee"], seed=11)
    g = play_until(g, lambda e, s: bots[s].choose(e, s),
                   lambda e: len(e.pos.monuments) >= 1 and e.pending().kind == "action")
    s = g.pending_seat()
    state = view.seat(g, s)
    show(browser, tmp_path, view, state, view.decision(g, s), s, "et")
    assert count(browser, ".et-cell") == 16 * 11
    assert count(browser, ".et-leader") == len(state["leaders"])
    assert count(browser, ".et-mon") == len(state["monuments"])
    assert count(browser, ".et-treasure") == len(state["treasures"])
    click(browser, ".et-piece:not([disabled])")
    assert count(browser, ".et-cell.target") > 0
    click(browser, ".et-cell.target", index=count(browser, ".et-cell.target") // 2)
    (action,) = acted(browser)
    EtGame.from_dict(g.to_dict()).apply(s, action)


def test_monopoly_board_draws_and_offers_a_property_move(browser, tmp_path):
    view = __import__("gamehall_pimp.view", fromlist=["PimpView"]).PimpView()
    g = with_players(["ann", "bob", "cy", "dee"], seed=8)
    e = HallEngine(g)
    bots = {pid: pimp_bot("strong", pid) for pid in g.users}
    rng = random.Random(1)
    for _ in range(1500):
        pids = list(g.users)
        rng.shuffle(pids)
        for pid in pids:
            action = bots[pid].choose(g, pid)
            if action is not None:
                try:
                    g.apply(pid, action)
                except IllegalAction:
                    pass
        s = e.pending_seat()
        if s is not None and g.phase == "roll" and (view.decision(e, s) or {}).get("properties"):
            break
    s = e.pending_seat()
    d = view.decision(e, s)
    assert d and d["properties"]
    state = view.seat(e, s)
    show(browser, tmp_path, view, state, d, s, "pimp")
    assert count(browser, ".pm-sq") == 40
    assert count(browser, ".pm-tok") == sum(1 for p in state["players"] if p["playing"])
    click(browser, ".pm-sq.mine")
    click(browser, ".pm-pick button")
    (action,) = acted(browser)
    copy = g.to_dict()
    copy["log"] = []
    HallEngine(Monopoly.from_dict(copy)).apply(s, action)
