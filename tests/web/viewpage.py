"""A static page that draws one game view's state with its script, without the web front end.

Used by test_browser_games.py to check each drawing script in a real browser
on its own (the game's state and decision are inlined as JSON; ``GameHall`` is
a minimal stand-in for the table page's, which records ``ctx.act`` calls and carries
the real view helpers ``h`` and ``injectCss``, cut out of gamehall.js).
"""
from __future__ import annotations

import json
from importlib.resources import files

from gamehall_web.site import view_script

_BEGIN, _END = "// view helpers (begin)", "// view helpers (end)"


def script_text(view) -> str:
    """The script as the front end serves it (with the view's ``script_data``, if any)."""
    return view_script(view).decode("utf-8")


def view_helpers() -> str:
    """The block of gamehall.js that defines the helpers ``GameHall`` gives the views."""
    core = files("gamehall_web").joinpath("static/gamehall.js").read_text("utf-8")
    start, end = core.find(_BEGIN), core.find(_END)
    assert 0 <= start < end, "gamehall.js lost its view helpers markers"
    return core[start:end]


def _inline(data) -> str:
    # JSON inside <script>: "</" must not close the element
    return json.dumps(data).replace("</", "<\\/")


def hall_css() -> str:
    return files("gamehall_web").joinpath("static/gamehall.css").read_text("utf-8")


#: the table page's frame round the board (as gamehall.js renderTablePage draws it), for
#: checking that a board fits where the hall puts it: beside the side column on a wide page
_HALL_FRAME = ("""<main id="main"><section class="table-page"><div class="board-area">""",
               """<div class="side"><section class="card decision">Waiting</section>
<section class="card"><h2>Log</h2><div class="log"></div></section></div></div></section></main>""")


def page(view, state: dict, decision: dict | None, seat: int | None, hall_layout: bool = False) -> str:
    """The page; with ``hall_layout`` the board sits in the table page's frame and stylesheet."""
    style = hall_css() if hall_layout else "body{margin:8px;background:#fff}"
    board = '<div class="board" id="board"></div>' if hall_layout else '<div id="board"></div>'
    if hall_layout:
        board = _HALL_FRAME[0] + board + _HALL_FRAME[1]
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{view.game} view</title>
<style>{style}</style></head>
<body>{board}
<script>
window.acted = [];
window.errors = [];
window.addEventListener("error", function (e) {{ window.errors.push(String(e.message)); }});
window.GameHall = (function () {{
{view_helpers()}
  return {{views: {{}}, registerView: function (name, v) {{ this.views[name] = v; }}, h: h, injectCss: injectCss}};
}})();
</script>
<script>{script_text(view)}</script>
<script>
(function () {{
  var state = {_inline(state)}, decision = {_inline(decision)};
  var ctx = {{seat: {_inline(seat)}, decision: decision,
    escape: function (t) {{ var d = document.createElement("div"); d.textContent = String(t); return d.innerHTML; }}}};
  var el = document.getElementById("board");
  ctx.act = function (a) {{ window.acted.push(a); }};
  GameHall.views[{_inline(view.game)}].render(el, state, ctx);
  window.redraw = function () {{ GameHall.views[{_inline(view.game)}].render(el, state, ctx); }};
  window.rendered = true;
}})();
</script></body></html>"""
