/* Diplomacy for the gamehall web front end.
   Draws the state from gamehall_daide/view.py on a map: GameHall.viewData.diplomacy
   (put in front of this script by the front end, from the view's script_data) holds
   each province's place and kind and the adjacent pairs; the areas are the Voronoi
   cells of those places (and of a few places of rock or open water off the board that
   shape the coasts), computed once here.  On it: supply centres in their owner's
   colour, units (army: circle, fleet: diamond; on a coast's own place), dislodged
   units, and the last turn's orders with their results (moves solid, supports and
   convoys dashed, failed ones crossed).  Beside it: each power's centres and units,
   a seat's own orders, and a form with one list of legal orders per unit (or the
   builds / removals owed) sent together as one submission.
   No libraries; every text goes in through textContent. */
(function () {
  "use strict";

  var SVG = "http://www.w3.org/2000/svg";
  var CSS = [
    ".dip{display:flex;flex-wrap:wrap;gap:12px;font:14px/1.35 system-ui,sans-serif;color:#222}",
    ".dip-main{flex:3 1 640px;min-width:0}.dip-side{flex:1 1 280px;min-width:0}",
    ".dip-map{border:1px solid #b9c6cf;border-radius:6px;overflow:auto;background:#a9cbe6;line-height:0}",
    ".dip-map svg{display:block;width:100%;height:auto}.dip-map.zoom svg{width:220%}",
    ".dip-map text{font:600 15px system-ui,sans-serif;paint-order:stroke;stroke:#fff;stroke-width:3px;",
    "stroke-linejoin:round;fill:#2b2b2b;pointer-events:none}",
    ".dip-map text.sea{font-style:italic;font-weight:500;fill:#1d4f7a;stroke:#cfe2f1}",
    ".dip-map text.unit{fill:#fff;stroke:none;font-size:11px;font-weight:800}",
    ".dip-powers{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:6px;margin:8px 0}",
    ".dip-power{border:1px solid #d5dbe0;border-left:8px solid;border-radius:6px;padding:4px 8px}",
    ".dip-power.out{opacity:.5}",
    ".dip-head{display:flex;justify-content:space-between;gap:8px;font-weight:700}",
    ".dip-sc{display:inline-block;min-width:30px;text-align:center;padding:0 3px;margin:1px;border-radius:3px;",
    "color:#fff;font-size:11px;font-weight:700}",
    ".dip-units{font-size:12px;color:#444}",
    ".dip-info{margin:4px 0;color:#444}",
    ".dip-form{border:1px solid #c8d0d4;border-radius:6px;padding:8px;margin:8px 0;background:#fafbfb}",
    ".dip-form label{display:block;margin:4px 0}.dip-form select{max-width:100%}",
    ".dip-results{font-size:12px;max-height:300px;overflow:auto;border:1px solid #e0e4e7;padding:4px}",
    ".dip-results .bad{color:#a61b1b}",
    "@media (max-width:600px){.dip{font-size:13px}.dip-main,.dip-side{flex-basis:100%}",
    ".dip-map:not(.zoom) text:not(.unit){font-size:21px;stroke-width:4px}",
    ".dip-map:not(.zoom) .dip-u{transform:scale(1.4)}.dip-map:not(.zoom) .dip-centre{r:7px}}"
  ].join("\n");
  var LAND = "#efe4c8", SEA = "#a9cbe6", ROCK = "#c9c2b3";
  var RESULT = {SUC: "succeeds", BNC: "bounced", CUT: "support cut", DSR: "convoy disrupted", NSO: "no such order",
                FLD: "fails", RET: "dislodged"};
  var COASTS = {NCS: "north coast", NEC: "north-east coast", ECS: "east coast", SEC: "south-east coast",
                SCS: "south coast", SWC: "south-west coast", WCS: "west coast", NWC: "north-west coast"};
  var POWERS = {AUS: "Austria", ENG: "England", FRA: "France", GER: "Germany", ITA: "Italy", RUS: "Russia",
                TUR: "Turkey"};
  var zoomed = false;     // the phone's enlarged map stays enlarged across states

  var h = GameHall.h;     // the page's DOM helper (gamehall.js)

  function s(tag, attrs, parent) {
    var e = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(e);
    return e;
  }

  function chip(text, colour) {
    var c = h("span", "dip-sc", text);
    c.style.background = colour;
    return c;
  }

  // ------------------------------------------------------------------ the map's areas
  // The Voronoi cell of each place inside the viewBox: the box clipped by the half-plane
  // nearer to the place than to each other place (Sutherland-Hodgman, n is under 100).
  function clip(poly, px, py, qx, qy) {
    var mx = (px + qx) / 2, my = (py + qy) / 2, dx = qx - px, dy = qy - py, out = [];
    function side(p) { return (p[0] - mx) * dx + (p[1] - my) * dy; }
    for (var i = 0; i < poly.length; i++) {
      var a = poly[i], b = poly[(i + 1) % poly.length], sa = side(a), sb = side(b);
      if (sa <= 0) out.push(a);
      if ((sa < 0 && sb > 0) || (sa > 0 && sb < 0)) {
        var t = sa / (sa - sb);
        out.push([a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]);
      }
    }
    return out;
  }

  function cells(map) {
    if (map.cells) return map.cells;
    var vb = map.viewBox, sites = [];
    Object.keys(map.provinces).forEach(function (p) {
      var v = map.provinces[p];
      sites.push({name: p, kind: v.kind, x: v.x, y: v.y});
    });
    map.impassable.forEach(function (xy) { sites.push({name: null, kind: "rock", x: xy[0], y: xy[1]}); });
    map.water.forEach(function (xy) { sites.push({name: null, kind: "sea", x: xy[0], y: xy[1]}); });
    sites.forEach(function (a) {
      var poly = [[vb[0], vb[1]], [vb[0] + vb[2], vb[1]], [vb[0] + vb[2], vb[1] + vb[3]], [vb[0], vb[1] + vb[3]]];
      sites.forEach(function (b) { if (b !== a && poly.length) poly = clip(poly, a.x, a.y, b.x, b.y); });
      a.points = poly.map(function (p) { return p[0].toFixed(1) + "," + p[1].toFixed(1); }).join(" ");
    });
    map.cells = sites;
    return sites;
  }

  function where(map, loc) {
    return map.coasts[loc] || map.provinces[loc.split("/")[0]];
  }

  function unitLoc(text) {            // "FLT STP SCS" -> {type: "FLT", loc: "STP/SCS"}
    var p = text.split(" ");
    return {type: p[0], loc: p[1] + (p[2] ? "/" + p[2] : "")};
  }

  // a unit drawn around its place (a group moved there, so that CSS can enlarge it on a phone)
  function unitShape(parent, type, x, y, colour, extra) {
    var g = s("g", {transform: "translate(" + x + " " + y + ")"}, parent);
    g = s("g", {"class": "dip-u"}, g);
    var shape = type === "FLT"
      ? s("polygon", {points: "0,-11 11,0 0,11 -11,0"}, g)
      : s("circle", {cx: 0, cy: 0, r: 9}, g);
    shape.setAttribute("fill", colour);
    shape.setAttribute("stroke", "#111");
    shape.setAttribute("stroke-width", "1.5");
    Object.keys(extra || {}).forEach(function (k) { shape.setAttribute(k, extra[k]); });
    var t = s("text", {x: 0, y: 4, "text-anchor": "middle", "class": "unit"}, g);
    t.textContent = type === "FLT" ? "F" : "A";
    return shape;
  }

  // an arrow from a to b stopping short of the unit drawn at b
  function arrow(g, a, b, colour, dashed, ok, marker) {
    var dx = b.x - a.x, dy = b.y - a.y, len = Math.sqrt(dx * dx + dy * dy) || 1;
    var start = 10 / len, stop = (len - 13) / len;
    var x1 = a.x + dx * start, y1 = a.y + dy * start, x2 = a.x + dx * stop, y2 = a.y + dy * stop;
    var line = s("line", {x1: x1, y1: y1, x2: x2, y2: y2, stroke: colour, "stroke-width": dashed ? 2.5 : 3.5,
                          "stroke-linecap": "round", opacity: ok ? 0.95 : 0.6}, g);
    if (dashed) line.setAttribute("stroke-dasharray", "6 5");
    if (marker) line.setAttribute("marker-end", "url(#" + marker + ")");
    if (!ok) cross(g, (x1 + x2) / 2, (y1 + y2) / 2);
    return {x: (a.x + b.x) / 2, y: (a.y + b.y) / 2};
  }

  function cross(g, x, y) {
    var d = 6;
    s("path", {d: "M" + (x - d) + " " + (y - d) + "L" + (x + d) + " " + (y + d) + "M" + (x + d) + " " + (y - d) +
               "L" + (x - d) + " " + (y + d), stroke: "#c0161b", "stroke-width": 3.5, "stroke-linecap": "round"}, g);
  }

  function drawMap(box, map, state) {
    var vb = map.viewBox, colours = {}, owner = {};
    state.powers.forEach(function (p) {
      colours[p.power] = p.colour;
      p.centres.forEach(function (c) { owner[c] = p.colour; });
    });
    var svg = s("svg", {viewBox: vb.join(" "), role: "img"});
    s("title", {}, svg).textContent = "Map of " + state.turn;
    var defs = s("defs", {}, svg);
    Object.keys(colours).forEach(function (p) {
      var m = s("marker", {id: "dip-ah-" + p, viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 4.5,
                          markerHeight: 4.5, orient: "auto-start-reverse"}, defs);
      s("path", {d: "M0 0L10 5L0 10z", fill: colours[p]}, m);
    });
    // areas: sea, land (a centre's land tinted with its owner's colour), impassable
    var areas = s("g", {stroke: "#fff", "stroke-width": 1.2}, svg);
    cells(map).forEach(function (c) {
      var fill = c.kind === "sea" ? SEA : c.kind === "rock" ? ROCK : LAND;
      s("polygon", {points: c.points, fill: fill}, areas);
      if (c.name && owner[c.name]) s("polygon", {points: c.points, fill: owner[c.name], opacity: 0.28}, areas);
    });
    // adjacency, faintly
    var edges = s("g", {stroke: "#000", "stroke-opacity": 0.12, "stroke-width": 1}, svg);
    map.edges.split(" ").forEach(function (pair) {
      var ab = pair.split("-"), a = map.provinces[ab[0]], b = map.provinces[ab[1]];
      s("line", {x1: a.x, y1: a.y, x2: b.x, y2: b.y}, edges);
    });
    // labels, coasts, supply centres
    var marks = s("g", {}, svg);
    Object.keys(map.provinces).forEach(function (p) {
      var v = map.provinces[p];
      var t = s("text", {x: v.x, y: v.y - 14, "text-anchor": "middle", "class": v.kind === "sea" ? "sea" : ""}, marks);
      t.textContent = p;
    });
    Object.keys(map.coasts).forEach(function (c) {
      var v = map.coasts[c];
      s("circle", {cx: v.x, cy: v.y, r: 3, fill: "#1d4f7a", opacity: 0.5}, marks);
    });
    map.centres.forEach(function (c) {
      var v = map.provinces[c];
      s("circle", {cx: v.x + 18, cy: v.y + 2, r: 5.5, fill: owner[c] || "#fff", stroke: "#222",
                   "stroke-width": 1.5, "class": "dip-centre"}, marks);
    });
    // the last turn's orders, under the units
    var orders = s("g", {}, svg);
    (state.orders || []).forEach(function (o) { drawOrder(orders, map, o, colours[o.power] || "#555"); });
    var units = s("g", {"class": "dip-units-layer"}, svg);
    state.powers.forEach(function (p) {
      p.units.forEach(function (text) {
        var u = unitLoc(text), v = where(map, u.loc);
        unitShape(units, u.type, v.x, v.y, p.colour).setAttribute("class", "dip-unit-mark");
      });
    });
    state.dislodged.forEach(function (d) {
      var u = unitLoc(d.unit), v = where(map, u.loc), g = s("g", {"class": "dip-dislodged"}, units);
      unitShape(g, u.type, v.x - 14, v.y + 14, colours[d.power] || "#555", {"stroke-dasharray": "3 2",
                "stroke": "#c0161b", "stroke-width": 2.5, opacity: 0.85});
    });
    box.appendChild(svg);
  }

  function drawOrder(g, map, o, colour) {
    if (!o.at) return;                 // a build waived: nowhere on the map
    var ok = o.result.indexOf("SUC") >= 0, at = where(map, o.at);
    var marker = "dip-ah-" + o.power;
    if (o.order === "MTO" || o.order === "RTO" || o.order === "CTO") {
      arrow(g, at, where(map, o.to), colour, false, ok, marker);
    } else if (o.order === "SUP" || o.order === "CVY") {
      var of = map.provinces[o.of.split("/")[0]];
      var target = of;
      if (o.to) {
        var to = map.provinces[o.to.split("/")[0]];
        target = {x: (of.x + to.x) / 2, y: (of.y + to.y) / 2};
        // the supported move drawn faintly, when its own unit's order is not a move there
        s("line", {x1: of.x, y1: of.y, x2: to.x, y2: to.y, stroke: colour, "stroke-width": 1,
                   "stroke-dasharray": "2 4", opacity: 0.7}, g);
      }
      arrow(g, at, target, colour, true, ok, o.order === "CVY" ? null : marker);
    } else if (o.order === "BLD" || o.order === "HLD") {
      s("circle", {cx: at.x, cy: at.y, r: 15, fill: "none", stroke: colour, "stroke-width": o.order === "BLD" ? 3 : 1.5,
                   "stroke-dasharray": o.order === "HLD" ? "3 3" : ""}, g);
      if (!ok) cross(g, at.x + 12, at.y + 12);
    } else if (o.order === "REM" || o.order === "DSB") {
      cross(g, at.x, at.y);
    }
  }

  // DAIDE in words, as gamehall_daide/words.py says it: "England: F London \u2192 North Sea"
  function tree(text) {          // "( ENG FLT ( STP NCS ) ) MTO NTH" -> [["ENG", "FLT", ["STP", "NCS"]], "MTO", "NTH"]
    var stack = [[]];
    String(text).replace(/[()]|[^\s()]+/g, function (t) {
      var top = stack[stack.length - 1];
      if (t === "(") { var a = []; top.push(a); stack.push(a); }
      else if (t === ")") { if (stack.length > 1) stack.pop(); }
      else top.push(t);
      return t;
    });
    return stack[0];
  }

  function placeName(map, loc) {
    if (Array.isArray(loc)) return placeName(map, loc[0]) + (loc[1] ? " (" + (COASTS[loc[1]] || loc[1]) + ")" : "");
    var parts = String(loc).split("/");
    if (parts.length > 1) return placeName(map, parts);
    var p = map && map.provinces[loc];
    return p && p.name ? p.name : String(loc);
  }

  function unitName(map, u) {     // ["ENG", "FLT", "LON"] (or "ENG FLT STP NCS" flat) -> "F London"
    return (u[1] === "FLT" ? "F " : "A ") + placeName(map, u.length > 3 ? [u[2], u[3]] : u[2]);
  }

  function powerName(p) { return POWERS[p] || p; }

  var SEASONS = {SPR: "Spring", SUM: "Summer", FAL: "Autumn", AUT: "Autumn", WIN: "Winter"};
  function turnWords(t) { var p = String(t).split(" "); return (SEASONS[p[0]] || p[0]) + (p[1] ? " " + p[1] : ""); }

  // an order in words; without its unit ("\u2192 North Sea") for the form's lists
  function orderWords(map, text, withUnit) {
    var t = tree(text);
    if (t.length === 2 && typeof t[0] === "string") return (withUnit ? powerName(t[0]) + " " : "") + "waives a build";
    var who = t[0], verb = t[1], rest = t.slice(2), head = withUnit ? powerName(who[0]) + ": " + unitName(map, who) + " " : "";
    if (verb === "HLD") return head + "holds";
    if (verb === "MTO") return head + "\u2192 " + placeName(map, rest[0]);
    if (verb === "RTO") return head + "retreats \u2192 " + placeName(map, rest[0]);
    if (verb === "CTO") return head + "\u2192 " + placeName(map, rest[0]) + " (convoyed" +
      (rest[2] ? " via " + rest[2].map(function (x) { return placeName(map, x); }).join(", ") : "") + ")";
    if (verb === "SUP" || verb === "CVY") {
      var helped = (rest[0][0] !== who[0] ? powerName(rest[0][0]) + " " : "") + unitName(map, rest[0]);
      return head + (verb === "SUP" ? "supports " : "convoys ") + helped + (rest[2] ? " \u2192 " + placeName(map, rest[2]) : "");
    }
    return head + ({DSB: "disbands", BLD: "is built", REM: "is removed"}[verb] || verb);
  }

  function said(map, text, withUnit) {   // an order, or the text as sent when it is not one
    try { return orderWords(map, text, withUnit); }
    catch (e) { return String(text).replace(/[()]/g, " ").replace(/\s+/g, " ").trim(); }
  }

  function orderText(map, o) {
    var line;
    if (!o.at) line = powerName(o.power) + " waives a build";
    else {
      line = powerName(o.power) + ": " + (o.unit === "FLT" ? "F " : "A ") + placeName(map, o.at) + " ";
      line += {HLD: "holds", MTO: "\u2192 ", RTO: "retreats \u2192 ", CTO: "\u2192 ", SUP: "supports ", CVY: "convoys ",
               DSB: "disbands", BLD: "is built", REM: "is removed"}[o.order] || o.order;
      if (o.of) line += placeName(map, o.of) + (o.to ? " \u2192 " + placeName(map, o.to) : "");
      else if (o.to) line += placeName(map, o.to) + (o.order === "CTO" ? " (convoyed)" : "");
    }
    return line + ": " + o.result.map(function (r) { return RESULT[r] || r; }).join(", ");
  }

  // one select per unit (or per build / removal owed): the orders sent together
  function ordersForm(ctx, map) {
    var d = ctx.decision, f = d.form, box = h("div", "dip-form"), selects = [];
    box.appendChild(h("div", "dip-info", d.prompt));
    function add(label, options, chosen) {
      var l = h("label", null, label + " ");
      var sel = h("select");
      options.forEach(function (o) { var op = h("option", null, said(map, o, label === "build" || label === "remove")); op.value = o; sel.appendChild(op); });
      if (chosen !== null) sel.value = chosen;
      l.appendChild(sel);
      box.appendChild(l);
      selects.push(sel);
    }
    f.units.forEach(function (unit) {
      var opts = f.orders[unit];
      var chosen = null;
      f.given.forEach(function (g) { if (opts.indexOf(g) >= 0) chosen = g; });
      add(unitName(map, tree(unit).flat()), opts, chosen);
    });
    var adj = f.orders.builds || f.orders.removals;
    if (adj) for (var i = 0; i < f.owed; i++) add(f.orders.builds ? "build" : "remove", adj, adj[Math.min(i, adj.length - 1)]);
    var send = h("button", null, "Submit these orders");
    send.addEventListener("click", function () {
      ctx.act({submit: selects.map(function (sel) { return sel.value; })});
    });
    box.appendChild(send);
    return box;
  }

  function powerList(state) {
    var list = h("div", "dip-powers");
    state.powers.slice().sort(function (a, b) { return b.centres.length - a.centres.length; }).forEach(function (p) {
      var out = p.eliminated !== null && p.eliminated !== undefined;
      var box = h("div", "dip-power" + (out ? " out" : ""));
      box.style.borderLeftColor = p.colour;
      var top = h("div", "dip-head");
      top.appendChild(h("span", null, p.title + " \u2014 " + p.name + (p.seat === state.seat ? " (you)" : "")));
      top.appendChild(h("span", null, p.centres.length + " SC, " + p.units.length + " units"));
      box.appendChild(top);
      var scs = h("div");
      p.centres.forEach(function (c) { scs.appendChild(chip(c, p.colour)); });
      box.appendChild(scs);
      box.appendChild(h("div", "dip-units", p.units.map(function (u) {
        return u.replace("AMY ", "A ").replace("FLT ", "F "); }).join(", ")));
      if (out) box.appendChild(h("div", "dip-info", "eliminated in " + p.eliminated));
      list.appendChild(box);
    });
    if (state.neutral.length) {
      var n = h("div", "dip-power");
      n.style.borderLeftColor = "#aaa";
      n.appendChild(h("div", "dip-head", "Neutral centres"));
      state.neutral.forEach(function (c) { n.appendChild(chip(c, "#999")); });
      list.appendChild(n);
    }
    return list;
  }

  function render(el, state, ctx) {
    GameHall.injectCss("dip-css", CSS);
    while (el.firstChild) el.removeChild(el.firstChild);
    var wrap = h("div", "dip"), main = h("div", "dip-main"), side = h("div", "dip-side");
    wrap.appendChild(main);
    wrap.appendChild(side);
    el.appendChild(wrap);
    var head = turnWords(state.turn) + " (" + state.phase + ") \u00b7 " + state.to_win + " centres win";
    if (state.over) {
      head = "Game over (" + state.over.reason + "): " + state.over.winners.map(function (s) {
        return state.powers[s].title; }).join(", ");
    }
    main.appendChild(h("div", "dip-info", head));
    var map = ((window.GameHall || {}).viewData || {}).diplomacy;
    map = map && map[state.map];
    if (map) {
      var box = h("div", "dip-map" + (zoomed ? " zoom" : ""));
      box.title = "Tap to enlarge or fit";
      box.addEventListener("click", function () { zoomed = !zoomed; box.classList.toggle("zoom", zoomed); });
      drawMap(box, map, state);
      main.appendChild(box);
    } else {
      main.appendChild(h("div", "dip-info", "(no map drawing for " + state.map + ")"));
    }
    main.appendChild(powerList(state));
    if (state.dislodged.length) {
      side.appendChild(h("b", null, "Dislodged"));
      state.dislodged.forEach(function (d) {
        side.appendChild(h("div", "dip-info", powerName(d.power) + ": " + unitName(map, [d.power].concat(d.unit.split(" "))) +
          " \u2192 " + (d.retreats.map(function (r) { return placeName(map, r); }).join(", ") || "no retreat")));
      });
    }
    if (state.mine) {
      side.appendChild(h("b", null, "Your orders (" + (state.mine.title || state.mine.power) + ")"));
      if (!state.mine.orders.length) side.appendChild(h("div", "dip-info", "none yet"));
      (state.mine.orders_text || state.mine.orders).forEach(function (o) { side.appendChild(h("div", "dip-info", o)); });
      if (state.mine.missing !== "MIS") side.appendChild(h("div", "dip-info", "Still to order: " +
        (state.mine.missing_text || state.mine.missing.slice(3))));
    }
    if (ctx.decision && ctx.decision.form) side.appendChild(ordersForm(ctx, map));
    if (state.orders && state.orders.length) {
      side.appendChild(h("b", null, "Results of " + turnWords(state.last_turn)));
      var r = h("div", "dip-results");
      state.orders.forEach(function (o) {
        r.appendChild(h("div", o.result.indexOf("SUC") >= 0 ? null : "bad", orderText(map, o)));
      });
      side.appendChild(r);
    }
  }

  GameHall.registerView("diplomacy", {render: render});
})();
