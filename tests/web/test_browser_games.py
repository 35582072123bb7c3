"""Each game's drawing script in a real headless browser (Debian chromium through Selenium).

Live part: a real hall (twistd) with the web front end; a browser signs in,
opens a table of bots only for each game with a view, watches it play, and
saves screenshots of the board (desktop and phone) once the game is well
under way.

Static part: a position of a seeded bot game is drawn by the view's own script
in a page of its own (tests/web/viewpage.py), at 1280x800 and at phone size
390x844: no script error, nothing wider than the window, the board's pieces
where the state puts them, a click on the board (a tile, a piece then a cell,
a property then its move) sends an action that a copy of the engine accepts,
and player names are text, never markup.  Screenshots go to
tests/web/artifacts/: look at them.
"""
from __future__ import annotations

import json
import random

import pytest

from gamehall.interfaces import IllegalAction
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
from gamehall_pimp.view import PimpView
from tests.web.browser import ARTIFACTS, SIZES, Browser, require_browser, start_web_hall
from tests.web.browser import browser  # noqa: F401  (the shared fixture, for the live tests)
from tests.web.viewpage import page

PAGE_SIZES = {"wide": SIZES["desktop"], "phone": SIZES["phone"]}
GAMES = {   # game: (variant, seats, the board's element, (a piece, how many show a game well under way))
    "acquire": (None, 4, ".acq-grid", (".acq-cell.chain", 8)),
    "windward": (None, 6, ".acq-grid", (".acq-cell.chain", 8)),
    "et": (None, 3, ".et-grid", (".et-tile", 18)),
    # buying from the first lap on, so that the board fills within the test's time
    "pimp": ("classic+buy-before-go", 4, ".pm-board", (".pm-owner", 4)),
    # the map (sent with the script) drawn, and a turn's orders on it as arrows
    "diplomacy": (None, 7, ".dip-map svg", (".dip-map line[marker-end]", 4)),
}


def count(driver, css: str) -> int:
    return driver.execute_script(f"return document.querySelectorAll({json.dumps(css)}).length")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_watch_a_bot_game_in_the_browser(browser, tmp_path, game):  # noqa: F811
    from selenium.webdriver.support.ui import Select
    variant, seats, board, (pieces, enough) = GAMES[game]
    # every game is made in the web lobby, Monopoly's too (its bots are admitted at the start);
    # Monopoly's bots act many times a turn (claims, votes, deals): slower, to catch it mid-game
    delay = "0.5" if game == "pimp" else "0.2"
    hall, ports = start_web_hall(tmp_path, "--bot-delay", delay)
    try:
        d = browser.driver
        d.get(f"http://127.0.0.1:{ports['web']}/")
        browser.type("#nickname", "watcher")
        browser.click("#signin")
        browser.wait_css(f"#new-game option[value={game}]")
        Select(browser.css("#new-game")[0]).select_by_value(game)
        if variant:         # a base variant, and house rules ticked one by one
            base, *flags = variant.split("+")
            Select(browser.css("#new-variant")[0]).select_by_value(base)
            for flag in flags:
                browser.click(f"#new-opt-{flag}")
        for field, value in (("#new-seats", seats), ("#new-bots", seats)):
            browser.type(field, str(value))
        if browser.css("#new-play")[0].is_selected():
            browser.css("#new-play")[0].click()
        browser.css("#create")[0].click()
        browser.wait_css(board, timeout=30)
        try:
            browser.wait(lambda _: count(d, pieces) >= enough, timeout=120,
                         message=f"{game}: fewer than {enough} {pieces} after two minutes")
        except Exception:
            browser.shot("timeout")
            raise
        browser.shots("board")
        # at 1280x800 the board fits beside the side column: no horizontal scroll bar,
        # neither the page's nor the board box's (which scrolls what is wider than it)
        browser.size("desktop")
        overflow = d.execute_script(
            "var e = document.documentElement, b = document.getElementById('board');"
            "return [e.scrollWidth - e.clientWidth, b.scrollWidth - b.clientWidth]")
        assert overflow[0] <= 0 and overflow[1] <= 0, f"{game}: page / board wider than the window by {overflow}px"
        assert not browser.console_errors(), browser.console_errors()
    finally:
        hall.kill(15)


@pytest.fixture(scope="module")
def page_browser():
    """One browser for all the static pages."""
    require_browser()
    made = Browser("views")
    try:
        yield made.driver
    finally:
        made.close()


def show(browser, tmp_path, view, state, decision, seat, name: str) -> None:
    """Draw the state at each size: no error, nothing wider than the window; screenshots."""
    path = tmp_path / f"{name}.html"
    path.write_text(page(view, state, decision, seat), "utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    for size, (w, h) in PAGE_SIZES.items():
        browser.set_window_size(w, h)
        browser.get(path.as_uri())
        assert browser.execute_script("return window.rendered === true && window.errors.length === 0"), \
            browser.execute_script("return window.errors")
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{name} at {size} is {overflow}px wider than the window"
        browser.save_screenshot(str(ARTIFACTS / f"static-{name}-{size}.png"))
    browser.set_window_size(*PAGE_SIZES["wide"])
    browser.get(path.as_uri())


def acted(browser) -> list:
    return browser.execute_script("return window.acted")


def click(browser, css: str, index: int = 0) -> None:
    from selenium.webdriver.common.by import By
    elements = browser.find_elements(By.CSS_SELECTOR, css)
    assert len(elements) > index, f"nothing matches {css}"
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", elements[index])
    elements[index].click()


def play_until(engine, choose, stop, limit: int = 5000):
    for _ in range(limit):
        if stop(engine):
            return engine
        s = engine.pending_seat()
        engine.apply(s, choose(engine, s))
    raise AssertionError("the position never came")


def test_acquire_board_draws_and_plays_a_tile_and_buys(page_browser, tmp_path):
    browser = page_browser
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


def test_windward_board_draws_and_places_a_tile_through_the_form(page_browser, tmp_path):
    browser = page_browser
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


def test_et_board_draws_and_a_piece_goes_where_it_is_clicked(page_browser, tmp_path):
    browser = page_browser
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


def test_monopoly_board_draws_and_offers_a_property_move(page_browser, tmp_path):
    browser = page_browser
    view = PimpView()
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


EVIL = '<img src=x onerror="window.pwned=1">&amp;'
EVIL_SHORT = "<img src=x onerror=pwned=1>"     # PIMP names are short


def _evil_positions():
    bad = [EVIL, "bob"]
    acquire = AcquireGame.new(bad + ["cy"], seed=3)
    windward = WindwardGame.new(bad + ["c", "d", "e", "f"], seed=3)
    et = EtGame.new(bad, seed=3)
    pimp = HallEngine(with_players([EVIL_SHORT, "bob"], seed=3))
    return [(AcquireView(), acquire, 0, EVIL), (WindwardView(), windward, 0, EVIL),
            (EuphratesTigrisView(), et, 0, EVIL), (PimpView(), pimp, 0, EVIL_SHORT)]


@pytest.mark.parametrize("index", range(4), ids=["acquire", "windward", "et", "pimp"])
def test_player_names_are_text_not_markup(page_browser, tmp_path, index):
    browser = page_browser
    view, engine, seat, evil = _evil_positions()[index]
    path = tmp_path / "evil.html"
    path.write_text(page(view, view.seat(engine, seat), view.decision(engine, seat), seat), "utf-8")
    browser.get(path.as_uri())
    assert browser.execute_script("return window.rendered === true && window.errors.length === 0")
    assert browser.execute_script("return document.querySelectorAll('#board img').length") == 0
    assert browser.execute_script("return window.pwned === undefined")
    assert evil in browser.execute_script("return document.getElementById('board').textContent")


def css(driver, selector: str) -> list:
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, selector)


def load(browser, tmp_path, view, engine, seat, name="form"):
    path = tmp_path / f"{name}.html"
    path.write_text(page(view, view.seat(engine, seat), view.decision(engine, seat), seat), "utf-8")
    browser.get(path.as_uri())
    assert browser.execute_script("return window.rendered === true && window.errors.length === 0")
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / f"static-{name}.png"))


def test_windward_form_plays_the_trade_card(page_browser, tmp_path):
    from selenium.webdriver.support.ui import Select
    browser = page_browser
    view = WindwardView()
    bots = [windward_bot("strong", i) for i in range(6)]
    g = WindwardGame.new([f"p{i}" for i in range(6)], seed=9)
    g = play_until(g, lambda e, s: bots[s].choose(e, s),
                   lambda e: e.pending().kind == "tile_purchase" and e.pending().options["prices"]
                   and "TRADE_2_STOCK" in e.pending().options["cards"])
    s = g.pending_seat()
    load(browser, tmp_path, view, g, s, "windward-trade-form")
    chain = sorted(g.pending().options["prices"])[0]
    selects = [Select(e) for e in css(browser, ".acq-form select")]
    card = next(sel for sel in selects if "TRADE_2_STOCK" in [o.get_attribute("value") for o in sel.options])
    card.select_by_value("TRADE_2_STOCK")
    give_get = [sel for sel in selects if chain in [o.get_attribute("value") for o in sel.options]
                and "" in [o.get_attribute("value") for o in sel.options]]
    give_get[0].select_by_value(chain)
    give_get[1].select_by_value(chain)
    click(browser, ".acq-form > button")
    (action,) = acted(browser)
    assert action["tile_purchase"]["card"] == "TRADE_2_STOCK"
    assert action["tile_purchase"]["trade"] == [[chain, chain]]
    WindwardGame.from_dict(g.to_dict()).apply(s, action)


def test_et_discards_part_of_a_hand(page_browser, tmp_path):
    browser = page_browser
    view = EuphratesTigrisView()
    g = EtGame.new(["ann", "bob"], seed=5)
    s = g.pending_seat()
    load(browser, tmp_path, view, g, s, "et-discard")
    colour = next(c for c in ("red", "green", "blue", "black") if view.seat(g, s)["hand"][c])
    click(browser, ".et-discard summary")
    browser.save_screenshot(str(ARTIFACTS / "static-et-discard-open.png"))
    index = ("red", "green", "blue", "black").index(colour)
    field = css(browser, ".et-discard input")[index]
    field.clear()
    field.send_keys("1")
    click(browser, ".et-discard button")
    (action,) = acted(browser)
    assert action == {"discard": {c: int(c == colour) for c in ("red", "green", "blue", "black")}}
    EtGame.from_dict(g.to_dict()).apply(s, action)


def test_monopoly_trade_offer_form(page_browser, tmp_path):
    browser = page_browser
    view = PimpView()
    g = with_players(["ann", "bob", "cy"], seed=8, options={"must_pass_go": False})
    e = HallEngine(g)
    bots = {pid: pimp_bot("strong", pid) for pid in g.users}
    for _ in range(3000):
        if g.turn and g.phase == "roll" and g.owned_by(g.turn) and not g.transactions_of(g.turn):
            break
        for pid in list(g.users):
            action = bots[pid].choose(g, pid)
            if action is not None:
                try:
                    g.apply(pid, action)
                except IllegalAction:
                    pass
    me = g.turn
    other = next(p for p in g.playing() if p != me)
    g.apply(me, {"msg": "TRANSACTION_REQUEST_TRADE", "args": [other]})
    (tx,) = g.transactions_of(me)
    load(browser, tmp_path, view, e, me - 1, "pimp-offer")
    field = css(browser, ".pm-offer input")[0]
    field.clear()
    field.send_keys("10")
    click(browser, ".pm-offer button")                 # Offer cash
    click(browser, ".pm-offer button", index=1)        # Add property
    cash, prop = acted(browser)
    assert cash == {"msg": "TRANSACTION_SET_CASH", "args": [tx.id, 10]}
    assert prop["msg"] == "TRANSACTION_ADD_PROPERTY" and prop["args"][1] in g.owned_by(me)
    for action in (cash, prop):
        copy = g.to_dict()
        copy["log"] = []
        HallEngine(Monopoly.from_dict(copy)).apply(me - 1, action)


def test_play_euphrates_tigris_by_clicking_the_board(browser, tmp_path):  # noqa: F811
    """A seat in the real page: pick a piece, click a lit cell; the hall applies it and says so."""
    from selenium.webdriver.support.ui import Select
    hall, ports = start_web_hall(tmp_path, "--bot-delay", "0.1")
    try:
        browser.driver.get(f"http://127.0.0.1:{ports['web']}/")
        browser.type("#nickname", "walter")
        browser.click("#signin")
        browser.wait_css("#new-game option[value=et]")
        Select(browser.css("#new-game")[0]).select_by_value("et")
        for field, value in (("#new-seats", 2), ("#new-bots", 1)):
            box = browser.css(field)[0]
            box.clear()
            box.send_keys(str(value))
        browser.css("#create")[0].click()
        browser.click("#start")
        # one action (a second could start a war, which asks something else)
        browser.wait_text(".et-info", "Waiting for walter (action ")
        browser.wait_css(".et-piece:not([disabled])").click()          # a tile: tiles come first
        targets = browser.css(".et-cell.target")
        assert targets
        targets[len(targets) // 2].click()
        browser.wait(lambda _: any("walter places" in e.text for e in browser.css("#log .line")),
                     message="the hall did not apply the clicked action")
        browser.shots("et-played")
        assert not browser.console_errors(), browser.console_errors()
    finally:
        hall.kill(15)


def test_acquire_buy_form_holds_a_purchase_to_the_cash_the_bank_and_three_a_turn(page_browser, tmp_path):
    """Typing more than one may buy (more than the cash pays for, than the bank holds, than
    three a turn) is held back in the form: what the Buy button sends the engine accepts."""
    from selenium.webdriver.common.by import By
    browser = page_browser
    view = AcquireView()
    bots = [acquire_bot("strong", i) for i in range(4)]
    g = AcquireGame.new(["ann", "bob", "cy", "dee"], seed=12)

    def tight(e):       # a buy step where the cash, not the three a turn, is the limit
        p = e.pending()
        if p.kind != "purchase":
            return False
        o = p.options
        return len([c for c, n in o["chains"].items() if n]) >= 2 and \
            any(0 < o["cash"] // o["prices"][c] < 3 for c, n in o["chains"].items() if n)
    g = play_until(g, lambda e, s: bots[s].choose(e, s), tight)
    s = g.pending_seat()
    d = view.decision(g, s)
    o = g.pending().options
    path = tmp_path / "buy-bound.html"
    path.write_text(page(view, view.seat(g, s), d, s), "utf-8")
    browser.get(path.as_uri())
    fields = browser.find_elements(By.CSS_SELECTOR, ".acq-form input[type=number]")
    chains = list(d["form"]["chains"])
    dearest = max((c for c, n in o["chains"].items() if n), key=lambda c: o["prices"][c])
    # as many as one may wish, in every field, the dearest chain first: the cash limits it
    for c, field in sorted(zip(chains, fields), key=lambda cf: -o["prices"][cf[0]]):
        field.clear()
        field.send_keys("9")
    typed = {c: int(f.get_attribute("value") or 0) for c, f in zip(chains, fields)}
    assert all(n <= o["chains"][c] for c, n in typed.items()), typed
    assert sum(typed.values()) <= 3, typed
    assert sum(n * o["prices"][c] for c, n in typed.items()) <= o["cash"], (typed, o)
    assert typed[dearest] == o["cash"] // o["prices"][dearest] < 3      # what one can buy stays buyable
    browser.save_screenshot(str(ARTIFACTS / "static-acquire-buy-bound-wide.png"))
    click(browser, ".acq-form button")
    (action,) = acted(browser)
    assert action["purchase"] == {c: n for c, n in typed.items() if n}
    AcquireGame.from_dict(g.to_dict()).apply(s, action)


def test_monopoly_board_fits_beside_the_side_column_at_1280(page_browser, tmp_path):
    """On the table page (the hall's stylesheet, the board beside the 22rem side column) at
    1280x800, the Monopoly board and its players' table fit: no horizontal scroll bar, of
    the page or of the board's box, with the longest squares' names in the table."""
    browser = page_browser
    view = PimpView()
    names = ["StrongBot1", "StrongBot2", "StrongBot3", "StrongBot4"]
    e = HallEngine(with_players(names, seed=8))
    state = view.seat(e, 0)
    longest = sorted(range(40), key=lambda i: -len(state["squares"][i]["name"]))
    for p, square in zip(state["players"], longest):
        p["square"] = square
    state["players"][1]["escrow"] = 1200
    path = tmp_path / "pimp-hall.html"
    path.write_text(page(view, state, view.decision(e, 0), 0, hall_layout=True), "utf-8")
    (w, h) = PAGE_SIZES["wide"]
    browser.set_window_size(w, h)
    inner = browser.execute_script("return [window.innerWidth, window.innerHeight]")
    browser.set_window_size(2 * w - inner[0], 2 * h - inner[1])      # the viewport, not the window
    browser.get(path.as_uri())
    assert browser.execute_script("return window.rendered === true && window.errors.length === 0")
    overflow = browser.execute_script(
        "var e = document.documentElement, b = document.getElementById('board');"
        "return [window.innerWidth, e.scrollWidth - e.clientWidth, b.scrollWidth - b.clientWidth]")
    browser.save_screenshot(str(ARTIFACTS / "static-pimp-hall-wide.png"))
    assert overflow[0] == PAGE_SIZES["wide"][0]
    assert overflow[1] <= 0 and overflow[2] <= 0, f"page / board wider than their box by {overflow[1:]}px"
