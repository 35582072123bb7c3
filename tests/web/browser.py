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
import time
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

    def shots(self, label: str) -> list[Path]:
        """The page at desktop and at phone size (back to desktop after)."""
        paths = []
        for which in ("desktop", "phone"):
            self.size(which)
            time.sleep(0.3)              # let the layout settle (a browser, not the hall's clock)
            paths.append(self.shot(label))
        self.size("desktop")
        return paths

    def wait(self, condition, timeout: float = 20.0, message: str = ""):
        from selenium.webdriver.support.ui import WebDriverWait
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(condition, message)

    def css(self, selector: str):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def wait_css(self, selector: str, timeout: float = 20.0):
        self.wait(lambda d: self.css(selector), timeout, f"no {selector}")
        return self.css(selector)[0]

    def wait_text(self, selector: str, text: str, timeout: float = 20.0):
        self.wait(lambda d: any(text in e.text for e in self.css(selector)), timeout,
                  f"{text!r} not in {selector}: {[e.text for e in self.css(selector)][:3]}")

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
