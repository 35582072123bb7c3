"""In a real headless browser: watch a bots-only Acquire game to its end, find it in the
records, replay it move by move (slider, arrow keys, a click on the chart) beside its chart."""
from __future__ import annotations

import re

from tests.web.browser import browser, start_web_hall  # noqa: F401  (the fixture)
from tests.web.test_browser_lobby import sign_in


def step_label(b) -> tuple[int, int]:
    step, total = re.search(r"move (\d+) of (\d+)", b.css("#replay-step")[0].text).groups()
    return int(step), int(total)


def test_watch_a_bot_game_then_replay_its_record_with_a_chart(tmp_path, browser):
    from selenium.webdriver.common.keys import Keys
    hall, ports = start_web_hall(tmp_path, "--seed", "11")
    try:
        sign_in(browser, f"http://127.0.0.1:{ports['web']}/", "Vera")
        browser.wait_css("#new-game")
        browser.css("#new-play")[0].click()          # a table of bots only, watched
        browser.css("#create")[0].click()
        browser.wait_css("#finished", timeout=120)
        assert "you are watching" in browser.css(".table-title")[0].text

        browser.css("#finished a[href='/records']")[0].click()
        browser.wait_css(".records-table a")
        row = browser.css(".records-table tbody tr")[0].text
        assert "Acquire" in row and "StrongBot1" in row
        browser.shots("records")
        browser.css(".records-table a")[0].click()

        browser.wait_css("#chart polyline")
        assert len(browser.css("#chart polyline.series")) == 4          # one line per player
        step, total = step_label(browser)
        assert step == total > 20
        browser.css("body")[0].send_keys(Keys.ARROW_LEFT)
        browser.wait(lambda d: step_label(browser)[0] == total - 1)
        browser.css("body")[0].send_keys(Keys.ARROW_RIGHT)
        browser.wait(lambda d: step_label(browser)[0] == total)
        slider = browser.css("#replay-slider")[0]
        browser.driver.execute_script(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))", slider, total // 2)
        browser.wait(lambda d: step_label(browser)[0] == total // 2)
        browser.wait_text("#replay-log", f"Move {total // 2}, by")
        cursor = browser.css("#chart-cursor")[0]
        width = float(browser.driver.execute_script(
            "return document.getElementById('chart').getAttribute('viewBox')").split()[2])
        assert abs(float(cursor.get_attribute("x1")) - (56 + (width - 66) * (total // 2) / total)) < 1
        browser.wait(lambda d: browser.css("#replay-board table, #replay-board svg, #replay-board .board, #replay-board div"))
        browser.shots("replay")
        assert not [e for e in browser.console_errors() if "favicon" not in e]
    finally:
        hall.kill(15)
