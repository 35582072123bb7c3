"""In a real headless browser: create an Acquire table with three bots and play a whole
game by clicking the decision buttons (a reload half-way gets the seat back)."""
from __future__ import annotations

import time

from tests.web.browser import browser, start_web_hall  # noqa: F401  (the fixture)
from tests.web.test_browser_lobby import sign_in


def click_decisions(b, until, limit: int = 2000) -> int:
    """Click the first choice of each pending decision (or press its key) until ``until()``."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.keys import Keys
    clicks = 0
    deadline = time.monotonic() + 240
    while not until() and clicks < limit:
        assert time.monotonic() < deadline, "the game did not end in time"
        buttons = b.css("#decision button.choice")
        if not buttons:
            time.sleep(0.02)
            continue
        try:
            if clicks % 2 and buttons[0].get_attribute("data-key") == "1":
                b.css("body")[0].send_keys("1")       # the keyboard works as well as the mouse
            else:
                buttons[0].click()
            clicks += 1
        except StaleElementReferenceException:
            pass                                      # redrawn under the click: look again
    return clicks


def test_play_a_whole_acquire_game_against_bots_by_clicking(tmp_path, browser):
    hall, ports = start_web_hall(tmp_path, "--seed", "7")
    try:
        sign_in(browser, f"http://127.0.0.1:{ports['web']}/", "Walter")
        browser.wait_css("#new-game")
        browser.css("#new-bots")[0].clear()
        browser.css("#new-bots")[0].send_keys("3")
        browser.css("#create")[0].click()
        browser.wait_css("#start").click()
        browser.wait_css("#decision button.choice")
        browser.wait_text("#decision", "left")        # the turn timer is shown
        browser.shots("first-decision")

        click_decisions(browser, lambda: len(browser.css("#log .line")) > 40)
        browser.shots("midgame")
        browser.driver.refresh()                      # a reload: the token in localStorage brings the seat back
        browser.wait_text(".table-title", "you play seat 1")

        clicks = click_decisions(browser, lambda: bool(browser.css("#finished")))
        assert clicks > 10
        browser.wait_text("#finished", "Game over")
        text = browser.css("#finished")[0].text
        assert "Walter" in text and "Winner" in text
        browser.shots("finished")
        assert not [e for e in browser.console_errors() if "favicon" not in e]
    finally:
        hall.kill(15)
