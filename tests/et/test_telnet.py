"""A person at a real ``telnet`` (under tmux) plays from the screen: ``ansiboard`` is drawn in
colour, moves are typed, and the answers appear.  Skipped where telnet or tmux is missing."""
from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from .test_e2e import start_hall

pytestmark = pytest.mark.skipif(not (shutil.which("telnet") and shutil.which("tmux")),
                                reason="needs telnet and tmux")


class Screen:
    def __init__(self, name: str, command: list[str]):
        self.tmux = ["tmux", "-L", name]          # a private tmux server, only ours
        subprocess.run(self.tmux + ["new-session", "-d", "-s", name, "-x", "120", "-y", "50", *command],
                       check=True)
        self.name = name

    def type(self, text: str) -> None:
        subprocess.run(self.tmux + ["send-keys", "-t", self.name, text, "Enter"], check=True)

    def text(self, escapes: bool = False) -> str:
        args = ["capture-pane", "-p", "-t", self.name, "-S", "-200"] + (["-e"] if escapes else [])
        return subprocess.run(self.tmux + args, check=True, capture_output=True, text=True).stdout

    def wait_for(self, what: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.text()
            if what in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{what!r} never appeared on the screen:\n{self.text()}")

    def close(self) -> None:
        subprocess.run(self.tmux + ["kill-server"], check=False)


def test_a_person_plays_from_telnet_with_ansiboard(tmp_path):
    hall, ports = start_hall(tmp_path)
    screen = None
    try:
        # the shell keeps the pane (and what telnet printed) after telnet exits
        screen = Screen(f"et{ports['et']}",
                        ["sh", "-c", f"TERM=xterm telnet 127.0.0.1 {ports['et']}; sleep 60"])
        screen.wait_for("welcome ")
        screen.type("name ann")
        screen.wait_for("name 1 ann")
        screen.type("ask 0 - - e+t")
        screen.wait_for("ask action")
        screen.type("ansiboard")
        text = screen.wait_for("leaders P T F K")
        # the header row of coordinates and a drawn row, not raw escapes
        assert "      0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15" in text
        assert "\\x1b" not in text and "[41m" not in text
        coloured = screen.text(escapes=True)
        assert "41m" in coloured                   # red temples drawn on red
        hand = [line for line in text.splitlines() if line.startswith("hand tile")][-1].split()
        held = {colour: int(hand[hand.index(colour) + 1]) for colour in ("red", "green", "blue", "black")}
        # an illegal tile gets ERROR with the reason: blue on land, or (no blue in this hand) another on a river
        if held["blue"]:
            screen.type("tile blue 5 5")
            screen.wait_for("ERROR blue tiles go on the rivers only")
        else:
            colour = next(c for c in ("red", "green", "black") if held[c])
            screen.type(f"tile {colour} 4 0")
            screen.wait_for(f"ERROR only blue tiles go on the rivers, not {colour}")
        red = held["red"]
        if red:
            screen.type("tile red 5 3")
            screen.wait_for("board! 5 3 #r0-")
        else:
            screen.type("pass")
        screen.wait_for("state playeraction 0 2")
        screen.type("quit")
        screen.wait_for("Connection closed")
    finally:
        if screen is not None:
            screen.close()
        hall.kill(15)
