"""The page's scripts, read without a browser: every script parses (``node --check``, where
node is installed; skipped otherwise), as a file and as the front end serves it (a view's
``script_data`` put in front), and the board scripts keep to gamehall.js's style: strict
mode, no ``var``, elements made with ``GameHall.h`` and texts never put in as HTML
(docs/web-views.md)."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gamehall_web.views import find_views
from tests.web.viewpage import script_text

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(ROOT.glob("gamehall*/static/*.js"))
BOARDS = [p for p in SCRIPTS if p.parent.parent.name != "gamehall_web"]
NODE = shutil.which("node")


def _ids(paths):
    return [str(p.relative_to(ROOT)) for p in paths]


def test_the_scripts_are_found():
    assert {p.name for p in BOARDS} >= {"acquire.js", "pimp.js", "et.js", "daide.js"}
    assert ROOT / "gamehall_web" / "static" / "gamehall.js" in SCRIPTS


def _node_check(path: Path) -> None:
    if NODE is None:
        pytest.skip("node is not installed")
    done = subprocess.run([NODE, "--check", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("path", SCRIPTS, ids=_ids(SCRIPTS))
def test_every_static_script_parses(path):
    _node_check(path)


def test_every_script_parses_as_served(tmp_path):
    """With its view data in front (Diplomacy's map), as /views/<game>.js sends it."""
    served = {game: view for game, view in find_views().items() if getattr(view, "script", None)}
    assert {"acquire", "windward", "pimp", "et"} <= set(served)
    for game, view in served.items():
        path = tmp_path / f"{game}.js"
        path.write_text(script_text(view), encoding="utf-8")
        _node_check(path)


def _code(path: Path) -> str:
    """The script without its comments (a comment may say "var")."""
    text = path.read_text("utf-8")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(^|\s)//[^\n]*", r"\1", text)


@pytest.mark.parametrize("path", BOARDS, ids=_ids(BOARDS))
def test_board_scripts_are_written_as_gamehall_js(path):
    code = _code(path)
    assert not re.search(r"\bvar\s", code), "a board script declares with const/let, not var"
    assert '"use strict";' in code
    # each keeps its names to itself: a second board script on the same page must not clash
    assert code.lstrip().startswith("(() => {") and code.rstrip().endswith("})();")
    assert "document.createElement(" not in code, "HTML elements come from GameHall.h"
    assert not re.search(r"\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write", code), \
        "texts go in as text, never as HTML"
