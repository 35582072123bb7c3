"""In a real headless browser: the lobby with a NetAcquire client on a socket in the same hall.

The page sees the NetAcquire user (with its protocol) and its table, chats both ways with
it, and shows a hostile nickname as text.  Screenshots: tests/web/artifacts/.
"""
from __future__ import annotations

import re

from tests.netacquire.naclient import PlayerLogic, SocketClient
from tests.web.browser import browser, second_browser, start_web_hall  # noqa: F401  (the fixtures)

HOSTILE = "<img src=x onerror=alert(1)>"


def sign_in(b, url: str, nickname: str) -> None:
    b.driver.get(url)
    b.type("#nickname", nickname)
    b.click("#signin")
    b.wait_text("#me", "Signed in as")
    b.wait_css("#new-table form")


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
        users = browser.text("#users")
        assert re.search(r"Nate\s+netacquire", users), users
        assert HOSTILE in users                         # shown as text...
        assert not browser.css("#users img, #me img")   # ...never as an element
        assert HOSTILE in browser.text("#me")
        browser.wait_text("#tables", "Acquire")
        assert "Nate" in browser.text("#tables")

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
        browser.click("#tables .table-row button")                 # Sit (found again if the list was redrawn)
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
        text = browser.text("#finished")
        assert "Nate" in text and "Wanda" in text
        assert nate.logic.names() == ["Nate", "Wanda", "StrongBot1", "StrongBot2"]
    finally:
        if nate is not None:
            nate.close()
        hall.kill(15)


def test_a_visitor_without_a_nickname_sees_the_lobby_and_watches_a_live_table(tmp_path, browser, second_browser):
    from selenium.webdriver.support.ui import Select
    hall, ports = start_web_hall(tmp_path, "--bot-delay", "0.3")
    try:
        url = f"http://127.0.0.1:{ports['web']}/"
        browser.driver.get(url)                                   # the visitor: no nickname given
        browser.wait_text("#me", "Visitor")
        browser.wait_css("#nickname")
        assert not browser.css("#new-table") and not browser.css("#lobby-chat + form input")
        assert "Sign in to chat" in browser.text("#lobby-chat + .chat-signin")

        sign_in(second_browser, url, "Ann")                       # Ann is seen come in, and heard
        browser.wait_text("#users", "Ann")
        second_browser.type("#lobby-chat + form input", "welcome, visitors")
        second_browser.click("#lobby-chat + form button")
        browser.wait_text("#lobby-chat", "welcome, visitors")
        assert hall.proc.poll() is None

        # Ann makes an Acquire table of four bots, which starts at once (she watches it)
        second_browser.wait_css("#new-game option[value=acquire]")
        Select(second_browser.css("#new-game")[0]).select_by_value("acquire")
        for field, value in (("#new-seats", 4), ("#new-bots", 4)):
            second_browser.type(field, str(value))
        if second_browser.css("#new-play")[0].is_selected():
            second_browser.click("#new-play")
        second_browser.click("#create")
        second_browser.wait_css(".acq-grid")

        browser.wait_text("#tables", "StrongBot4")
        assert not browser.texts("#tables button") or "Sit" not in browser.texts("#tables button")
        browser.click("#tables .table-row button.secondary")        # Watch
        browser.wait_text(".table-title", "watching as a visitor")
        browser.wait_css(".acq-grid")
        tiles = lambda: browser.driver.execute_script("return document.querySelectorAll('.acq-cell.chain').length")
        browser.wait(lambda _: tiles() >= 4, timeout=60, message="the game did not go on live")
        browser.wait(lambda _: len(browser.texts("#log .line")) >= 6, message="no moves in the log")
        assert not browser.css("#decision button.choice") and not browser.css("#table-chat + form input")
        assert not browser.css("#sit")
        second_browser.type("#table-chat + form input", "enjoy the game")
        second_browser.click("#table-chat + form button")
        browser.wait_text("#table-chat", "enjoy the game")
        browser.shots("visitor-watching")
        browser.click("#to-signin")                               # back in the lobby: the table, watched
        browser.wait_text("#tables", "1 visitor watching")
        browser.shots("visitor-lobby")
        assert not [e for e in browser.console_errors() if "favicon" not in e]
    finally:
        hall.kill(15)
