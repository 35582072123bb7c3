"""In a real headless browser: the lobby with a NetAcquire client on a socket in the same hall.

The page sees the NetAcquire user (with its protocol) and its table, chats both ways with
it, and shows a hostile nickname as text.  Screenshots: tests/web/artifacts/.
"""
from __future__ import annotations

import re

from tests.netacquire.naclient import PlayerLogic, SocketClient
from tests.web.browser import browser, start_web_hall  # noqa: F401  (the fixture)

HOSTILE = "<img src=x onerror=alert(1)>"


def sign_in(b, url: str, nickname: str) -> None:
    b.driver.get(url)
    b.wait_css("#nickname").send_keys(nickname)
    b.css("#signin")[0].click()
    b.wait_css("#users")


def test_lobby_users_tables_and_chat_with_netacquire(tmp_path, browser):
    hall, ports = start_web_hall(tmp_path)
    nate = None
    try:
        nate = SocketClient(ports["netacquire"], PlayerLogic("Nate"))
        nate.pump(lambda logic: logic.states[-1:] == [3])
        nate.send("SG;4")                               # Nate opens an Acquire table
        nate.pump(lambda logic: any("created for up to 4 players" in line for line in logic.gm))

        url = f"http://127.0.0.1:{ports['web']}/"
        sign_in(browser, url, HOSTILE)
        browser.wait_text("#users", "Nate")
        users = browser.css("#users")[0].text
        assert re.search(r"Nate\s+netacquire", users), users
        assert HOSTILE in users                         # shown as text...
        assert not browser.css("#users img, #me img")   # ...never as an element
        assert HOSTILE in browser.css("#me")[0].text
        browser.wait_text("#tables", "Acquire")
        assert "Nate" in browser.css("#tables")[0].text

        # chat: the page -> NetAcquire (LM "<nick>: text"), NetAcquire -> the page
        box = browser.css("#lobby-chat + form input")[0]
        box.send_keys("hello from the web <b>bold</b>")
        browser.css("#lobby-chat + form button")[0].click()
        nate.pump(lambda logic: any("hello from the web <b>bold</b>" in line for line in logic.lm))
        assert any(line.startswith(f"{HOSTILE}: hello from the web") for line in nate.logic.lm)
        nate.send('BM;Lobby,"hi from NetAcquire <i>x</i>"')
        browser.wait_text("#lobby-chat", "hi from NetAcquire <i>x</i>")
        html = browser.driver.execute_script("return document.getElementById('lobby-chat').innerHTML")
        assert "&lt;b&gt;bold&lt;/b&gt;" in html and "&lt;i&gt;x&lt;/i&gt;" in html
        assert not browser.css("#lobby-chat i")
        assert browser.driver.execute_script("return document.querySelectorAll('img').length") == 0
        browser.shots("lobby")
        assert not [e for e in browser.console_errors() if "favicon" not in e]
    finally:
        if nate is not None:
            nate.close()
        hall.kill(15)


def drain(client: SocketClient) -> None:
    """Let a NetAcquire client read and answer whatever has arrived, without waiting."""
    import socket
    client.sock.settimeout(0.005)
    try:
        while True:
            data = client.sock.recv(65536)
            if not data:
                raise EOFError("the hall closed the NetAcquire connection")
            client.feed(data)
    except (socket.timeout, BlockingIOError):
        pass


def test_a_browser_player_and_a_netacquire_player_share_an_acquire_table(tmp_path, browser):
    import time
    from selenium.common.exceptions import StaleElementReferenceException
    hall, ports = start_web_hall(tmp_path, "--seed", "3")
    nate = None
    try:
        nate = SocketClient(ports["netacquire"], PlayerLogic("Nate", seed=3, end_game=False))
        nate.pump(lambda logic: logic.states[-1:] == [3])
        nate.send("SG;4")
        nate.pump(lambda logic: any("created for up to 4 players" in line for line in logic.gm))
        sign_in(browser, f"http://127.0.0.1:{ports['web']}/", "Wanda")
        browser.wait_text("#tables", "Nate")
        browser.css("#tables .table-row button")[0].click()        # Sit
        browser.wait_text(".table-title", "you play seat 2")
        nate.send('BM;Game Room,"/bot"')
        nate.send('BM;Game Room,"/bot"')
        nate.pump(lambda logic: logic.names()[:2] == ["Nate", "Wanda"] and len(logic.names()) == 4)
        nate.send("PG;")
        deadline = time.monotonic() + 240
        clicks = 0
        while not browser.css("#finished"):
            assert time.monotonic() < deadline, "the game did not end"
            drain(nate)
            buttons = browser.css("#decision button.choice")
            if buttons:
                try:
                    buttons[0].click()
                    clicks += 1
                except StaleElementReferenceException:
                    pass
            if clicks == 8:
                browser.shots("shared-table")
        nate.pump(lambda logic: logic.ended)
        assert clicks > 5 and nate.logic.requests                  # both played
        text = browser.css("#finished")[0].text
        assert "Nate" in text and "Wanda" in text
        assert nate.logic.names() == ["Nate", "Wanda", "StrongBot1", "StrongBot2"]
    finally:
        if nate is not None:
            nate.close()
        hall.kill(15)
