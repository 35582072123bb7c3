"""In a real headless browser against a real hall (twistd): register a name, make a key,
come in with it from a NetAcquire client on a socket, be refused without the password in a
second browser, revoke the key.  Screenshots: tests/web/artifacts/ (look at them)."""
from __future__ import annotations

import time

from tests.netacquire.naclient import PlayerLogic, SocketClient
from tests.web.browser import browser, second_browser, start_web_hall  # noqa: F401  (the fixtures)

PASSWORD = "correct horse"


def test_register_key_netacquire_refusal_and_revoke(tmp_path, browser, second_browser):
    hall, ports = start_web_hall(tmp_path)
    nate = None
    try:
        url = f"http://127.0.0.1:{ports['web']}/"
        browser.driver.get(url)
        browser.type("#nickname", "Alice")
        browser.type("#password", PASSWORD)
        browser.click("#register")
        browser.wait_text("#me", "Signed in as")
        browser.wait_text("#account", "Your registered name")
        assert "No keys yet." in browser.text("#account")
        browser.shots("players-registered")

        browser.type("#key-label", "old NetAcquire client")
        browser.click("#make-key")
        browser.wait_css("#new-key-typed")
        typed = browser.text("#new-key-typed")
        assert typed.startswith("Alice+") and len(typed) == len("Alice+") + 12
        browser.wait_text("#keys", "old NetAcquire client")
        browser.shots("players-new-key")

        # the key from a NetAcquire client while the owner is in on the web: a duplicate, said so
        refused = SocketClient(ports["netacquire"], PlayerLogic(typed))
        try:
            refused.pump(lambda logic: bool(logic.boxes))
        except EOFError:
            pass
        assert refused.logic.boxes[0].startswith("E;Duplicate user Nickname;Duplicate user Nickname Alice: "
                                                 "Alice is logged in already"), refused.logic.boxes
        refused.close()

        # the owner leaves the page; once the hall signs the page out, the key lets NetAcquire in
        driver = browser.driver
        page = driver.current_window_handle
        driver.switch_to.new_window("tab")
        blank = driver.current_window_handle
        driver.switch_to.window(page)
        driver.close()                       # the page's tab closed: its websocket with it
        driver.switch_to.window(blank)
        deadline = time.monotonic() + 30
        while True:
            nate = SocketClient(ports["netacquire"], PlayerLogic(typed))
            try:
                nate.pump(lambda logic: logic.states[-1:] == [3] or bool(logic.boxes))
            except EOFError:
                pass
            if nate.logic.states[-1:] == [3]:
                break
            boxes = nate.logic.boxes
            nate.close()
            nate = None
            assert time.monotonic() < deadline, f"the key never let the NetAcquire client in: {boxes}"
            time.sleep(0.5)
        assert nate.logic.lm[0] == "Welcome to gamehall, Alice!"

        # another browser sees Alice on NetAcquire (no key anywhere), and may not take the name
        # without its password, nor with a wrong one
        second_browser.driver.get(url)
        second_browser.wait_text("#users", "netacquire")
        assert "Alice" in second_browser.text("#users") and typed.split("+")[1] not in second_browser.text("#users")
        second_browser.type("#nickname", "alice")
        second_browser.click("#signin")
        second_browser.wait_text("#banner", "Alice is registered")
        second_browser.shots("players-refused")
        second_browser.type("#password", "not the password")
        second_browser.click("#signin")
        second_browser.wait_text("#banner", "Wrong name or password")
        assert "Signed in as" not in second_browser.text("#me")

        # NetAcquire leaves; the owner signs in with the password there and revokes the key
        nate.close()
        nate = None
        time.sleep(0.5)
        second_browser.type("#password", PASSWORD)
        second_browser.click("#signin")
        second_browser.wait_text("#me", "Signed in as")
        # the refusal of the wrong password is not left on the page once signed in
        assert not second_browser.css("#banner")[0].is_displayed(), second_browser.text("#banner")
        second_browser.wait_text("#keys", "old NetAcquire client")
        second_browser.click(".revoke")
        second_browser.wait_text("#keys", "revoked")
        second_browser.shots("players-revoked")

        # at a table the seat list shows each rated seat's rating beside the name (a newcomer's
        # and the strong bot's: 0.0, provisional), the names themselves unchanged
        from selenium.webdriver.support.ui import Select
        Select(second_browser.css("#new-game")[0]).select_by_value("acquire")
        second_browser.type("#new-seats", "2")
        second_browser.type("#new-bots", "1")
        second_browser.click("#new-start")
        second_browser.click("#create")
        second_browser.wait_text("#seats", "0.0?")
        chips = second_browser.texts("#seats .seat")
        assert chips[0] == "Alice 0.0?" and chips[1].endswith(" 0.0?") and "Bot" in chips[1], chips
        assert second_browser.texts("#seats .seat .rating") == [" 0.0?", " 0.0?"] or \
            [t.strip() for t in second_browser.texts("#seats .seat .rating")] == ["0.0?", "0.0?"]
        second_browser.shots("players-table-ratings")
        assert not [e for e in browser.console_errors() + second_browser.console_errors() if "favicon" not in e]
    finally:
        if nate is not None:
            nate.close()
        hall.kill(15)
