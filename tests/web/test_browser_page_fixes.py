"""In a real headless browser: a record opened on a fresh page draws its board, a finished
game's address shows its result and record, a seat left stays the bot's after a reload,
and an open Diplomacy table is started with bots from its page (docs/web.md)."""
from __future__ import annotations

import re

from tests.web.browser import browser, start_web_hall  # noqa: F401  (the fixture)
from tests.web.test_browser_lobby import sign_in


def path(b) -> str:
    return b.driver.execute_script("return location.pathname")


def test_a_record_and_a_finished_games_address_on_a_fresh_page(tmp_path, browser):
    hall, ports = start_web_hall(tmp_path, "--seed", "5")
    url = f"http://127.0.0.1:{ports['web']}/"
    try:
        sign_in(browser, url, "Vera")
        browser.css("#new-play")[0].click()          # a table of bots only, watched to its end
        browser.css("#create")[0].click()
        browser.wait_css("#finished", timeout=120)
        number = int(re.search(r"/table/(\d+)", path(browser)).group(1))

        # a fresh load of the record: the board script is loaded, the board drawn, not JSON
        browser.driver.get(f"{url}records/{number}")
        browser.wait_css("#chart polyline")
        browser.wait(lambda d: browser.css("#replay-board .acq-grid"),
                     message="the board was not drawn")
        assert not browser.css("#replay-board pre.plain")
        browser.shots("fresh-record")

        # a fresh load of the finished game's address: its result and a link to its record
        browser.driver.get(f"{url}table/{number}")
        browser.wait_text("#finished", "Winner")
        assert "Opening" not in browser.text("main") and "No game" not in browser.text("main")
        browser.shots("finished-address")
        browser.click("#over-record")
        browser.wait_css("#chart polyline")
        assert path(browser) == f"/records/{number}"

        # a game that never was: said so, not "Opening…" for ever
        browser.driver.get(f"{url}table/4242")
        browser.wait_text("#no-table", "No game #4242")

        # a seat left is the bot's for good: a reload does not sit the player again
        browser.driver.get(url)
        browser.wait_css("#new-table form")
        browser.type("#new-bots", "3")
        browser.css("#new-start")[0].click()
        browser.click("#create")
        browser.wait_css("#decision button.choice")
        mine = int(re.search(r"/table/(\d+)", path(browser)).group(1))
        browser.click("#leave")
        browser.wait_css("#new-table form")
        browser.driver.refresh()
        browser.wait_text("#me", "Signed in as Vera")
        # the bots play it to its end while the page stays in the lobby
        browser.wait(lambda d: not browser.css(f"[data-table='{mine}']") and browser.css("#tables"),
                     timeout=120, message="the game left did not end")
        assert path(browser) == "/"
        browser.shots("left-for-good")
        assert not [e for e in browser.console_errors() if "favicon" not in e]
    finally:
        hall.kill(15)


def test_a_diplomacy_table_short_of_players_fills_with_bots_and_starts(tmp_path, browser):
    hall, ports = start_web_hall(tmp_path, frontends=("web", "daide"))
    url = f"http://127.0.0.1:{ports['web']}/"
    try:
        sign_in(browser, url, "Dora")
        browser.driver.execute_script(
            "const s = document.getElementById('new-game'); s.value = 'diplomacy'; s.dispatchEvent(new Event('change'))")
        browser.type("#new-bots", "0")
        browser.click("#create")
        browser.wait_text("#start", "Fill with bots and start")
        browser.shots("short")
        browser.click("#start")
        browser.wait_css(".table-title .state.playing")
        seats = browser.texts("#seats .seat.bot")
        assert len(seats) == 6
        mine = int(re.search(r"/table/(\d+)", path(browser)).group(1))
        browser.shots("started")
        # the DAIDE front end opened its next table, empty: not listed until someone sits
        browser.click("nav a[href='/']")                 # (a reload would go back to the seat)
        browser.wait_css(f"[data-table='{mine}']")
        assert [int(e.get_attribute("data-table")) for e in browser.css(".table-row")] == [mine]
        browser.shots("lobby")
        assert not [e for e in browser.console_errors() if "favicon" not in e]
    finally:
        hall.kill(15)
