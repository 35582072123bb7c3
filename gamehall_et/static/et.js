/* Euphrates & Tigris board for the gamehall web front end.
   Draws the state from gamehall_et/view.py: the 16x11 board with rivers, tiles,
   temples and treasures, leaders (letter of the role, ring in the dynasty's colour),
   monuments over their 2x2 squares and catastrophes; the players; a seat's own hand
   and score.  In a turn the player picks a piece (a tile colour, a leader, a
   catastrophe, or a leader on the board to move), and the cells it may go to light
   up: a click sends the action.  No libraries; texts go in through textContent. */
(function () {
  "use strict";

  var COLOURS = {red: "#c0392b", green: "#2e8b57", blue: "#2f6fbf", black: "#2b2b2b"};
  var LETTER = {red: "P", green: "T", blue: "F", black: "K"};
  var TITLE = {red: "priest", green: "trader", blue: "farmer", black: "king"};
  var DYNASTY = ["#f1c40f", "#e67e22", "#9b59b6", "#ff6fb5"];

  var CSS = [
    ".et{display:flex;flex-wrap:wrap;gap:12px;font:14px/1.3 system-ui,sans-serif;color:#222}",
    ".et-main{flex:3 1 520px;min-width:0;max-width:860px}",
    ".et-side{flex:1 1 300px;min-width:0}",
    ".et-grid{display:grid;grid-template-columns:repeat(16,1fr);grid-template-rows:repeat(11,auto);gap:1px;",
    "background:#8d7f5a;padding:2px;border-radius:6px;max-width:max(340px,calc((100vh - 240px) * 1.45))}",
    ".et-cell{aspect-ratio:1/1;background:#eadfb8;position:relative;display:flex;align-items:center;",
    "justify-content:center;font-size:clamp(7px,1.5vw,13px);font-weight:700;color:#fff;user-select:none}",
    ".et-cell.river{background:#a9d6ee}",
    ".et-tile{position:absolute;inset:8%;border-radius:3px}",
    ".et-temple::after{content:'';position:absolute;left:30%;right:30%;top:22%;bottom:22%;",
    "border:2px solid rgba(255,255,255,.8);border-top-width:5px}",
    ".et-treasure{position:absolute;width:38%;height:38%;background:#f5c518;border:1px solid #7a5a00;",
    "transform:rotate(45deg);top:31%;left:31%;z-index:2}",
    ".et-treasure.corner{background:#ffe680;border:2px solid #7a5a00}",
    ".et-leader{position:absolute;inset:10%;border-radius:50%;display:flex;align-items:center;",
    "justify-content:center;border:3px solid;z-index:3;font-size:clamp(7px,1.4vw,13px);color:#fff}",
    ".et-cat{position:absolute;inset:6%;background:#555;color:#ffcc00;display:flex;align-items:center;",
    "justify-content:center;border-radius:3px;font-size:clamp(9px,2vw,18px)}",
    ".et-mon{position:relative;z-index:4;border:3px solid #fff;border-radius:6px;margin:14%;opacity:.9;",
    "box-shadow:0 0 0 2px #333}",
    ".et-cell.target{cursor:pointer;box-shadow:inset 0 0 0 3px #00c853;z-index:5}",
    ".et-cell.target:hover{background:#b9f6ca}",
    ".et-cell.hot{box-shadow:inset 0 0 0 3px #ff1744}",
    ".et-cell.own{cursor:pointer}",
    ".et-cell.sel{box-shadow:inset 0 0 0 3px #00c853}",
    ".et-pieces{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0;align-items:center}",
    ".et-piece{border:2px solid #555;border-radius:5px;padding:5px 8px;color:#fff;font-weight:700;cursor:pointer;",
    "min-width:44px}",
    ".et-piece[disabled]{opacity:.35;cursor:default}",
    ".et-piece.on{outline:3px solid #00c853;outline-offset:1px}",
    ".et table{border-collapse:collapse;width:100%;margin-bottom:10px;font-size:13px}",
    ".et th,.et td{padding:3px 4px;border-bottom:1px solid #e0ddd0;text-align:left}",
    ".et td.nm{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:9em}",
    ".et td.n{text-align:right}",
    ".et-dot{display:inline-block;width:12px;height:12px;border-radius:50%;margin-right:2px;vertical-align:-1px}",
    ".et-cur{background:#fff7d1}",
    ".et-discard{flex-basis:100%}.et-discard label{margin-right:8px}",
    ".et-info{margin:6px 0;color:#444}",
    "@media (max-width:600px){.et{font-size:13px}.et-main,.et-side{flex-basis:100%}",
    ".et-leader{border-width:2px}.et-piece{padding:4px 6px}}"
  ].join("\n");

  var h = GameHall.h;     // the page's DOM helper (gamehall.js)

  // the piece the player picked, kept while the same decision is pending
  var picked = {key: null, mode: null};

  function name(state, seat) {
    var p = state.players[seat];
    return p ? p.name : "?";
  }

  function at(x, y) { return x + "," + y; }

  function render(el, state, ctx) {
    GameHall.injectCss("et-css", CSS);
    while (el.firstChild) el.removeChild(el.firstChild);
    var d = ctx.decision;
    var key = d ? d.kind + ":" + d.prompt : null;
    if (picked.key !== key) picked = {key: key, mode: null};
    var targets = (d && d.targets) || {};
    if (d && d.kind === "treasure") picked.mode = "take";
    var wrap = h("div", "et"), main = h("div", "et-main"), side = h("div", "et-side");
    wrap.appendChild(main);
    wrap.appendChild(side);
    el.appendChild(wrap);

    var info = [];
    if (state.over) {
      info.push("Game over (" + state.over.reason.replace("_", " ") + "): " +
        state.over.winners.map(function (s) { return name(state, s); }).join(" and ") + " wins");
    } else if (state.pending !== null && state.pending !== undefined) {
      var what = state.phase === "action" ? "action " + state.action + " of 2" : state.phase;
      info.push("Waiting for " + name(state, state.pending) + " (" + what + ")");
    }
    if (state.conflict) {
      var k = state.conflict;
      info.push((k.kind === "revolt" ? "Revolt" : k.colour + " war") + ": " + name(state, k.attacker) +
        " (" + k.strength[0] + (k.attacker_added !== null ? " + " + k.attacker_added : "") + ") against " +
        name(state, k.defender) + " (" + k.strength[1] + "), committing " + k.commit);
    } else if (state.war) {
      info.push("Wars to fight: " + state.war.remaining.join(", "));
    }
    info.push("Tiles in the bag: " + state.bag + " \u00b7 treasures on the board: " + state.treasures.length);
    info.forEach(function (t) { main.appendChild(h("div", "et-info", t)); });

    // board
    var grid = h("div", "et-grid"), cells = {};
    var river = {};
    state.river.forEach(function (c) { river[at(c[0], c[1])] = true; });
    for (var y = 0; y < state.height; y++) {
      for (var x = 0; x < state.width; x++) {
        var c = h("div", "et-cell" + (river[at(x, y)] ? " river" : ""));
        c.style.gridColumn = String(x + 1);
        c.style.gridRow = String(y + 1);
        c.title = at(x, y);
        cells[at(x, y)] = c;
        grid.appendChild(c);
      }
    }
    var temples = {};
    state.treasures.forEach(function (t) { temples[at(t[0], t[1])] = true; });
    state.tiles.forEach(function (t) {
      var tile = h("div", "et-tile" + (t[2] === "red" ? " et-temple" : ""));
      tile.style.background = COLOURS[t[2]];
      cells[at(t[0], t[1])].appendChild(tile);
      cells[at(t[0], t[1])].title += " " + t[2] + (t[2] === "red" ? " temple" : " tile");
    });
    state.treasures.forEach(function (t) {
      cells[at(t[0], t[1])].appendChild(h("div", "et-treasure" + (t[2] ? " corner" : "")));
      cells[at(t[0], t[1])].title += " treasure";
    });
    state.catastrophes.forEach(function (t) {
      cells[at(t[0], t[1])].appendChild(h("div", "et-cat", "\u2715"));
      cells[at(t[0], t[1])].title += " catastrophe";
    });
    state.leaders.forEach(function (l) {
      var lead = h("div", "et-leader", LETTER[l[3]]);
      lead.style.background = COLOURS[l[3]];
      lead.style.borderColor = DYNASTY[l[2] % DYNASTY.length];
      var cell = cells[at(l[0], l[1])];
      cell.appendChild(lead);
      cell.title += " " + name(state, l[2]) + "'s " + TITLE[l[3]];
      if (d && d.kind === "action" && l[2] === ctx.seat && targets["move:" + at(l[0], l[1])]) {
        cell.className += " own" + (picked.mode === "move:" + at(l[0], l[1]) ? " sel" : "");
        cell.addEventListener("click", function (mode) {
          return function () { picked.mode = picked.mode === mode ? null : mode; render(el, state, ctx); };
        }("move:" + at(l[0], l[1])));
      }
    });
    state.monuments.forEach(function (m) {
      var mon = h("div", "et-mon");
      mon.style.gridColumn = (m.x + 1) + " / span 2";
      mon.style.gridRow = (m.y + 1) + " / span 2";
      mon.style.background = "linear-gradient(135deg," + COLOURS[m.colours[0]] + " 50%," + COLOURS[m.colours[1]] + " 50%)";
      mon.title = m.colours.join("-") + " monument";
      grid.appendChild(mon);
    });
    if (state.war) cells[at(state.war.tile[0], state.war.tile[1])].className += " hot";
    if (state.conflict) {
      cells[at(state.conflict.attacker_cell[0], state.conflict.attacker_cell[1])].className += " hot";
      cells[at(state.conflict.defender_cell[0], state.conflict.defender_cell[1])].className += " hot";
    }
    if (picked.mode && targets[picked.mode]) {
      targets[picked.mode].forEach(function (t) {
        var cell = cells[at(t[0], t[1])];
        cell.className += " target";
        cell.addEventListener("click", function () { ctx.act(actionFor(picked.mode, t[0], t[1])); });
      });
    }
    main.appendChild(grid);
    if (state.hand) main.appendChild(pieces(state, ctx, targets, function () { render(el, state, ctx); }));

    // side: players, own score, monuments left
    var t = h("table"), head = h("tr");
    [["Player", ""], ["Tiles", "tiles in hand"], ["Leaders", "leaders in hand"], ["Cat.", "catastrophes left"],
     ["Tr.", "treasures taken"]].forEach(function (x) { var th = h("th", null, x[0]); th.title = x[1]; head.appendChild(th); });
    t.appendChild(head);
    state.players.forEach(function (p) {
      var tr = h("tr", p.seat === state.pending ? "et-cur" : null);
      var nm = h("td", "nm");
      nm.title = p.name;
      var dyn = h("span", "et-dot");
      dyn.style.background = DYNASTY[p.seat % DYNASTY.length];
      dyn.style.border = "1px solid #555";
      nm.appendChild(dyn);
      nm.appendChild(document.createTextNode(p.name + (p.seat === state.seat ? " (you)" : "")));
      tr.appendChild(nm);
      tr.appendChild(h("td", "n", p.hand));
      var ls = h("td");
      p.leaders.forEach(function (c) {
        var dot = h("span", "et-dot");
        dot.style.background = COLOURS[c];
        dot.title = TITLE[c] + " in hand";
        ls.appendChild(dot);
      });
      tr.appendChild(ls);
      tr.appendChild(h("td", "n", p.catastrophes));
      tr.appendChild(h("td", "n", p.treasures));
      t.appendChild(tr);
    });
    side.appendChild(t);
    if (state.score) {
      var s = state.score;
      side.appendChild(h("div", "et-info", "Your points: red " + s.red + ", green " + s.green + ", blue " + s.blue +
        ", black " + s.black + ", treasures " + s.treasures));
    } else if (!state.over) {
      side.appendChild(h("div", "et-info", "Scores are secret until the end (the log shows who scores)."));
    }
    if (state.over) {
      var ft = h("table"), fh = h("tr");
      ["Place", "Player", "Score", "red", "green", "blue", "black", "treas."].forEach(function (x) { fh.appendChild(h("th", null, x)); });
      ft.appendChild(fh);
      state.over.final.slice().sort(function (a, b) { return a.position - b.position; }).forEach(function (f) {
        var tr = h("tr");
        [f.position, name(state, f.seat), f.score, f.colours.red, f.colours.green, f.colours.blue, f.colours.black, f.wild]
          .forEach(function (v, i) { tr.appendChild(h("td", i === 1 ? null : "n", v)); });
        ft.appendChild(tr);
      });
      side.appendChild(ft);
    }
    side.appendChild(h("div", "et-info", "Monuments left: " +
      (state.monuments_left.map(function (m) { return m.join("-"); }).join(", ") || "none")));
  }

  function actionFor(mode, x, y) {
    var p = mode.split(":");
    if (p[0] === "tile") return {tile: {colour: p[1], x: x, y: y}};
    if (p[0] === "leader") return {leaderadd: {colour: p[1], x: x, y: y}};
    if (p[0] === "catastrophe") return {catastrophe: {x: x, y: y}};
    if (p[0] === "take") return {take: {x: x, y: y}};
    var from = p[1].split(",");
    return {leadermove: {x: parseInt(from[0], 10), y: parseInt(from[1], 10), to_x: x, to_y: y}};
  }

  function pieces(state, ctx, targets, redraw) {
    var box = h("div", "et-pieces");
    var acting = ctx.decision && ctx.decision.kind === "action";
    box.appendChild(h("span", null, "Your hand:"));
    function button(mode, text, colour, title) {
      var b = h("button", "et-piece" + (picked.mode === mode ? " on" : ""), text);
      b.style.background = colour;
      b.title = title;
      if (!acting || !targets[mode]) b.disabled = true;
      b.addEventListener("click", function () { picked.mode = picked.mode === mode ? null : mode; redraw(); });
      box.appendChild(b);
    }
    ["red", "green", "blue", "black"].forEach(function (c) {
      if (state.hand[c]) button("tile:" + c, String(state.hand[c]), COLOURS[c], state.hand[c] + " " + c + " tiles");
    });
    var me = state.players[state.seat];
    me.leaders.forEach(function (c) {
      button("leader:" + c, LETTER[c], COLOURS[c], "your " + TITLE[c] + " (" + c + " leader)");
    });
    if (me.catastrophes) button("catastrophe", "\u2715 " + me.catastrophes, "#555", "catastrophe tiles");
    if (acting) box.appendChild(h("span", "et-info", picked.mode ? "click a green-framed cell" :
      "pick a piece, or one of your leaders on the board to move it"));
    if (acting) box.appendChild(discardForm(state, ctx));
    return box;
  }

  // discard some tiles (draw as many): one number per colour
  function discardForm(state, ctx) {
    var form = h("details", "et-discard");
    form.appendChild(h("summary", null, "Discard tiles\u2026"));
    var inputs = {};
    ["red", "green", "blue", "black"].forEach(function (c) {
      var l = h("label", null, c + " ");
      var i = h("input");
      i.type = "number"; i.min = 0; i.max = state.hand[c]; i.value = 0; i.style.width = "3.5em";
      inputs[c] = i;
      l.appendChild(i);
      form.appendChild(l);
    });
    var go = h("button", null, "Discard and draw");
    go.addEventListener("click", function () {
      var d = {};
      Object.keys(inputs).forEach(function (c) { var n = parseInt(inputs[c].value, 10); d[c] = isNaN(n) || n < 0 ? 0 : n; });
      ctx.act({discard: d});
    });
    form.appendChild(go);
    return form;
  }

  GameHall.registerView("et", {render: render});
})();
