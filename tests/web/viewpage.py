"""A static page that draws one game view's state with its script, without the web front end.

Used by test_browser_games.py to check each drawing script in a real browser
on its own (the game's state and decision are inlined as JSON; ``GameHall`` is
a minimal stand-in for the table page's, which records ``ctx.act`` calls).
"""
from __future__ import annotations

import json
from importlib import resources


def script_text(view) -> str:
    package, path = view.script
    return resources.files(package).joinpath(path).read_text("utf-8")


def _inline(data) -> str:
    # JSON inside <script>: "</" must not close the element
    return json.dumps(data).replace("</", "<\\/")


def page(view, state: dict, decision: dict | None, seat: int | None) -> str:
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{view.game} view</title>
<style>body{{margin:8px;background:#fff}}</style></head>
<body><div id="board"></div>
<script>
window.acted = [];
window.errors = [];
window.addEventListener("error", function (e) {{ window.errors.push(String(e.message)); }});
window.GameHall = {{views: {{}}, registerView: function (name, v) {{ this.views[name] = v; }}}};
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
