"""The shared browser fixture for the web tests: headless Debian chromium through Selenium,
and a real ``twistd -n gamehall`` with the web front end on a loopback port.

Nothing downloads a browser: the Debian packages ``chromium`` and ``chromium-driver`` are
used (``.ci/run`` installs them).  Without them a browser test is skipped, except under CI
(``CI=true``), where it fails.  Every test saves screenshots under ``tests/web/artifacts/``
(desktop 1280x800 and phone 390x844): look at them.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.helpers import EXAMPLE
from tests.wireclient import Hall, free_port

ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(path):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


def require_browser() -> None:
    why = browser_missing()
    if why is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"browser tests must run under CI: {why}")
    pytest.skip(why)


def start_web_hall(tmp_path, *extra: str, frontends=("web", "netacquire")):
    """A real hall (twistd) with the web front end (and NetAcquire) on free loopback ports."""
    from gamehall.plugins import find_frontends
    # the child finds the example plugin too (its path is given), so "nim" is always disabled,
    # whether or not an earlier test put it on this process's path
    ports = {name: free_port() for name in {*find_frontends(), "nim"}}
    args = ["--db", str(tmp_path / "hall.sqlite"), "--admin", f"tcp:{free_port()}:interface=127.0.0.1",
            "--bot-delay", "0", *extra]
    for name, port in ports.items():
        if name in frontends:
            args += ["--listen", f"{name}=tcp:{port}:interface=127.0.0.1"]
        else:
            args += ["--disable", name]
    hall = Hall(args, tmp_path, expect=list(frontends), extra_path=[str(EXAMPLE)])
    return hall, ports


class Browser:
    """A headless chromium, sized as a laptop or a phone, that saves screenshots."""

    def __init__(self, test_name: str) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        self.profile = tempfile.mkdtemp(prefix="gamehall-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--no-first-run", "--disable-extensions", "--hide-scrollbars",
                     f"--user-data-dir={self.profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(30)
        self.name = test_name
        self.size("desktop")

    def size(self, which: str) -> None:
        width, height = SIZES[which]
        self.driver.set_window_rect(0, 0, width, height)
        # the viewport, not the window, must have that size (headless windows have no frame, but be sure)
        inner = self.driver.execute_script("return [window.innerWidth, window.innerHeight]")
        self.driver.set_window_rect(0, 0, width + width - inner[0], height + height - inner[1])
        self.which = which

    def shot(self, label: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{self.name}-{label}-{self.which}.png"
        self.driver.save_screenshot(str(path))
        return path

    def settle(self) -> None:
        """Until the page has laid out and painted at its new size: two animation frames
        (the first runs before the next paint, the second after it), at most 0.3 s, which was
        the fixed wait before."""
        self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "requestAnimationFrame(() => requestAnimationFrame(() => done()));"
            "setTimeout(done, 300);")

    def shots(self, label: str) -> list[Path]:
        """The page at desktop and at phone size (back to desktop after)."""
        paths = []
        for which in ("desktop", "phone"):
            self.size(which)
            self.settle()
            paths.append(self.shot(label))
        self.size("desktop")
        return paths

    def wait(self, condition, timeout: float = 20.0, message: str = ""):
        """Until ``condition(driver)`` is true; an element the page drew again meanwhile
        (stale) is looked for again at the next poll, not an error."""
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                             ignored_exceptions=(StaleElementReferenceException,)).until(condition, message)

    def css(self, selector: str):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def texts(self, selector: str) -> list[str]:
        """The text of every element matching ``selector``, read in one go in the page
        (never stale, however often the page redraws them)."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText)", selector)

    def text(self, selector: str) -> str:
        found = self.texts(selector)
        assert found, f"no {selector}"
        return found[0]

    def wait_css(self, selector: str, timeout: float = 20.0):
        """The first element matching ``selector`` once there is one (use it at once, or
        ``click``/``type``, which find it again after a redraw)."""
        return self.wait(lambda d: (self.css(selector) or [None])[0], timeout, f"no {selector}")

    def wait_text(self, selector: str, text: str, timeout: float = 20.0):
        from selenium.common.exceptions import TimeoutException
        try:
            self.wait(lambda d: any(text in t for t in self.texts(selector)), timeout)
        except TimeoutException:
            raise TimeoutException(f"{text!r} not in {selector}: {self.texts(selector)[:3]}") from None

    def _retry(self, selector: str, act, index: int, timeout: float):
        """``act(element)`` on the ``index``-th match, found again when the page redrew it."""
        def attempt(_):
            found = self.css(selector)
            if len(found) <= index:
                return False
            act(found[index])          # a stale element raises: the wait tries again
            return True
        self.wait(attempt, timeout, f"no {selector} [{index}] to act on")

    def click(self, selector: str, index: int = 0, timeout: float = 20.0) -> None:
        self._retry(selector, lambda e: e.click(), index, timeout)

    def type(self, selector: str, text: str, timeout: float = 20.0) -> None:
        self._retry(selector, lambda e: (e.clear(), e.send_keys(text)), 0, timeout)

    def console_errors(self) -> list[str]:
        return [entry["message"] for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture
def browser(request):
    require_browser()
    made = Browser(request.node.name.replace("/", "_").replace("[", "-").replace("]", ""))
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def second_browser(request):
    require_browser()
    made = Browser(request.node.name.replace("/", "_").replace("[", "-").replace("]", "") + "-2")
    try:
        yield made
    finally:
        made.close()
