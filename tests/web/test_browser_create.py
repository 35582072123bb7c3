"""In a real headless browser: the create form's variant choices, and how a table's or a
record's game and variant are named in the lobby and the records.

Monopoly's variants are "classic" plus any of five house-rule flags (32 combinations):
the form lists the one base and offers each flag as a checkbox, and the table is created
with the variant they make.  A game's only variant ("windward", "standard") is not shown
after its title.  Screenshots: tests/web/artifacts/.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

from gamehall_pimp.game import VARIANT_FLAG_TEXT
from tests.web.browser import browser, start_web_hall  # noqa: F401  (the fixture)
from tests.web.test_browser_lobby import sign_in


def test_monopoly_house_rules_are_checkboxes_combined_into_the_variant(tmp_path, browser):
    from selenium.webdriver.support.ui import Select
    hall, ports = start_web_hall(tmp_path, "--bot-delay", "1")     # the game lasts while we look
    try:
        sign_in(browser, f"http://127.0.0.1:{ports['web']}/", "Rita")
        Select(browser.css("#new-game")[0]).select_by_value("pimp")
        assert [o.get_attribute("value") for o in browser.css("#new-variant option")] == ["classic"]
        boxes = browser.css("#new-options input[type=checkbox]")
        assert [b.get_attribute("value") for b in boxes] == list(VARIANT_FLAG_TEXT)
        assert all(VARIANT_FLAG_TEXT[f] in browser.text("#new-options") for f in VARIANT_FLAG_TEXT)
        browser.click("#new-opt-single-go")
        browser.click("#new-opt-no-pot")
        browser.shot("form")
        browser.type("#new-seats", "2")
        browser.type("#new-bots", "2")
        browser.click("#new-play")                  # bots only, started at once
        browser.click("#create")
        browser.wait_css(".pm-board", timeout=30)
        browser.click("header#top nav a[href='/']")
        # the lobby line names the rules in words, in the engine's order
        browser.wait_text(".table-row .table-head",
                          f"{VARIANT_FLAG_TEXT['no-pot']}, {VARIANT_FLAG_TEXT['single-go']}")
        browser.shot("lobby")
        # other games keep their list and show no options
        Select(browser.css("#new-game")[0]).select_by_value("acquire")
        assert not browser.css("#new-options")[0].is_displayed()
        assert [o.get_attribute("value") for o in browser.css("#new-variant option")] == ["classic"]
        assert not browser.console_errors(), browser.console_errors()
    finally:
        hall.kill(15)


FINISHED = [   # game, variant, what the records' game column must say
    ("windward", "windward", "Acquire (Windward code war)"),
    ("pimp", "classic+buy-before-go+reference-building",
     f"Monopoly (PIMP) · {VARIANT_FLAG_TEXT['buy-before-go']}, {VARIANT_FLAG_TEXT['reference-building']}"),
    ("pimp", "classic", "Monopoly (PIMP)"),
    ("acquire", "classic", "Acquire"),
]


def store_finished(path) -> None:
    """Finished games in a new hall database, written by the hall's own store (in a child
    process: it needs a running reactor)."""
    script = textwrap.dedent(f"""
        from twisted.internet import task, defer
        from gamehall.store import SQLiteStore

        @defer.inlineCallbacks
        def main(reactor):
            store = SQLiteStore({str(path)!r}, reactor)
            yield store.open()
            for game, variant in {[(g, v) for g, v, _ in FINISHED]!r}:
                seats = [{{"name": "Ann", "kind": "human"}}, {{"name": "Bob", "kind": "human"}}]
                tid = yield store.create_table(game, variant, 1, seats, {{}})
                yield store.finish_table(tid, "finished", {{"winners": [0], "scores": [2, 1]}}, None)
            yield store.close()
        task.react(main)
        """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)


def test_records_name_the_game_once_and_a_variant_in_words(tmp_path, browser):
    store_finished(tmp_path / "hall.sqlite")
    hall, ports = start_web_hall(tmp_path)
    try:
        browser.driver.get(f"http://127.0.0.1:{ports['web']}/records")
        browser.wait(lambda d: len(browser.texts(".records-table tbody tr")) == len(FINISHED))
        shown = browser.texts(".records-table tbody td:nth-child(2)")
        assert sorted(shown) == sorted(text for _, _, text in FINISHED), shown
        browser.shot("records")
    finally:
        hall.kill(15)
