"""In a real headless browser: the standings (/standings) and a player's page
(/players/NAME) of a hall whose store holds rated games: the ranked list per game and player
count, a player's rating chart, places, last games linked to their replays, head to head
picked on the page; every view a link; a name made of HTML shown as text."""
from __future__ import annotations

import json
import random
import sqlite3
import time
from urllib.parse import quote

from gamehall.store.rating_sql import RatingSQL
from gamehall.store.sqlite_file import migrate
from tests.web.browser import browser, start_web_hall  # noqa: F401  (the fixture)

EVIL = "<img src=x onerror=alert(1)>&amp;"
NAMES = ["Ann", "Bob", "Cy", "Dee", EVIL]


def stored_games(path, n=60, seed=7):
    """``n`` finished Acquire games (2 to 4 players: registered people, a guest, the strong
    bot) in a new store, rated by the rebuild (the hall's own rules)."""
    rng = random.Random(seed)
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn)
    now = time.time()
    conn.execute("BEGIN")
    for i in range(1, n + 1):
        seats = [{"name": name, "kind": "human", "bot": None, "registered": True}
                 for name in rng.sample(NAMES, rng.randint(1, 3))]
        seats.append({"name": "StrongBot1", "kind": "bot", "bot": "strong"} if rng.random() < .6 else
                     {"name": "guest", "kind": "human", "bot": None, "address": "10.0.0.9"})
        rng.shuffle(seats)
        scores = [rng.randrange(0, 40) * 1000 for _ in seats]
        top = max(scores)
        result = {"scores": scores, "winners": [s for s, v in enumerate(scores) if v == top], "reason": "end"}
        finished = now - (n - i) * 3600 * 7
        conn.execute("INSERT INTO tables (id, game, variant, seed, options, seats, state, created, updated)"
                     " VALUES (?, 'acquire', 'classic', ?, ?, ?, 'finished', ?, ?)",
                     (i, i, json.dumps({"humans": [s["name"] for s in seats if s["kind"] == "human"]}),
                      json.dumps(seats), finished - 600, finished))
        conn.execute("INSERT INTO results (table_id, result, record, finished) VALUES (?, ?, NULL, ?)",
                     (i, json.dumps(result), finished))
    counts = RatingSQL().rebuild(conn)
    conn.execute("COMMIT")
    conn.close()
    return counts


def fits_on_a_phone(browser):
    """At phone size no table is wider than the screen (its rows are drawn as cards)."""
    browser.size("phone")
    browser.settle()
    try:
        widths = browser.driver.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth,"
            " Math.max(...[...document.querySelectorAll('.ratings-table')].map(t => t.getBoundingClientRect().right))]")
        assert widths[0] <= widths[1] and widths[2] <= widths[1], widths
    finally:
        browser.size("desktop")


def test_standings_and_a_players_page(tmp_path, browser):
    counts = stored_games(tmp_path / "hall.sqlite")
    assert counts["games"] == 60
    hall, ports = start_web_hall(tmp_path)
    base = f"http://127.0.0.1:{ports['web']}"
    try:
        browser.driver.get(base + "/standings")
        browser.wait_css("#standings-table tbody tr")
        assert browser.css("#standings-game option")[0].text == "Acquire"
        keys = [o.get_attribute("value") for o in browser.css("#standings-key option")]
        assert keys == ["acquire/classic/2p", "acquire/classic/3p", "acquire/classic/4+p"]
        first = browser.texts("#standings-table tbody tr")
        ratings = [float(r.split("\t")[2].split()[0]) for r in first]
        assert ratings == sorted(ratings, reverse=True)
        assert "StrongBot1" not in " ".join(first) and "guest" not in " ".join(first)
        browser.shots("standings-2p")

        # filter by player count: the address says which, so the view is a link
        from selenium.webdriver.support.ui import Select
        Select(browser.css("#standings-key")[0]).select_by_value("acquire/classic/4+p")
        browser.wait(lambda d: "key=acquire%2Fclassic%2F4%2Bp" in d.current_url)
        browser.wait_text("#standings-table", "bot:acquire:strong")
        link = browser.driver.current_url
        browser.driver.get(link)                      # shared: the same list
        browser.wait_text("#standings-table", "bot:acquire:strong")
        assert browser.css("#standings-key option:checked")[0].get_attribute("value") == "acquire/classic/4+p"
        # the HTML name is text, not markup
        assert not browser.css("#standings-table img")
        browser.wait_text("#standings-table", EVIL)
        browser.shots("standings-4p")
        fits_on_a_phone(browser)

        # a player's page, from the list
        href = "/players/" + quote(EVIL, safe="!*'()")          # as encodeURIComponent
        [a for a in browser.css("#standings-table a") if a.get_attribute("href") == base + href][0].click()
        browser.wait_css("#rating-chart circle")
        assert browser.text("#player-name") == EVIL and not browser.css("main img")
        browser.driver.get(base + "/players/Ann")
        browser.wait_css("#rating-chart #rating-line")
        assert browser.text("#player-name") == "Ann"
        rows = browser.texts("#player-ratings tbody tr")
        assert len(rows) >= 2 and all("×" in r for r in rows)
        games = browser.css("#player-games tbody a")
        assert 10 < len(games) <= 100
        assert all(a.get_attribute("href").startswith(base + "/records/") for a in games)
        points = len(browser.css("#rating-chart circle"))
        Select(browser.css("#chart-key")[0]).select_by_index(1)
        browser.wait(lambda d: len(browser.css("#rating-chart circle")) != points)

        # head to head, picked on the page; the address keeps it
        browser.type("#vs-name", "Bob")
        browser.click("#vs-go")
        browser.wait_text("#h2h-summary", "Ann and Bob played")
        assert "?vs=Bob" in browser.driver.current_url
        assert browser.css("#h2h-games tbody a")[0].get_attribute("href").startswith(base + "/records/")
        browser.shots("player-ann")
        fits_on_a_phone(browser)
        browser.driver.get(browser.driver.current_url)
        browser.wait_text("#h2h-summary", "Ann and Bob played")
        browser.driver.get(base + "/players/Nobody")
        browser.wait_text("#player-unrated", "No rated game yet")
        assert not [e for e in browser.console_errors() if "favicon" not in e]
    finally:
        hall.kill(15)
