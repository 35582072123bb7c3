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
(() => {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const CSS = `
.dip{display:flex;flex-wrap:wrap;gap:12px;font:14px/1.35 system-ui,sans-serif;color:#222}
.dip-main{flex:3 1 640px;min-width:0}.dip-side{flex:1 1 280px;min-width:0}
.dip-map{border:1px solid #b9c6cf;border-radius:6px;overflow:auto;background:#a9cbe6;line-height:0}
.dip-map svg{display:block;width:100%;height:auto}.dip-map.zoom svg{width:220%}
.dip-map text{font:600 15px system-ui,sans-serif;paint-order:stroke;stroke:#fff;stroke-width:3px;
stroke-linejoin:round;fill:#2b2b2b;pointer-events:none}
.dip-map text.sea{font-style:italic;font-weight:500;fill:#1d4f7a;stroke:#cfe2f1}
.dip-map text.unit{fill:#fff;stroke:none;font-size:11px;font-weight:800}
.dip-powers{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:6px;margin:8px 0}
.dip-power{border:1px solid #d5dbe0;border-left:8px solid;border-radius:6px;padding:4px 8px}
.dip-power.out{opacity:.5}
.dip-head{display:flex;justify-content:space-between;gap:8px;font-weight:700}
.dip-sc{display:inline-block;min-width:30px;text-align:center;padding:0 3px;margin:1px;border-radius:3px;
color:#fff;font-size:11px;font-weight:700}
.dip-units{font-size:12px;color:#444}
.dip-info{margin:4px 0;color:#444}
.dip-form{border:1px solid #c8d0d4;border-radius:6px;padding:8px;margin:8px 0;background:#fafbfb}
.dip-form label{display:block;margin:4px 0}.dip-form select{max-width:100%}
.dip-results{font-size:12px;max-height:300px;overflow:auto;border:1px solid #e0e4e7;padding:4px}
.dip-results .bad{color:#a61b1b}
@media (max-width:600px){.dip{font-size:13px}.dip-main,.dip-side{flex-basis:100%}
.dip-map:not(.zoom) text:not(.unit){font-size:21px;stroke-width:4px}
.dip-map:not(.zoom) .dip-u{transform:scale(1.4)}.dip-map:not(.zoom) .dip-centre{r:7px}}
`;
  const LAND = "#efe4c8", SEA = "#a9cbe6", ROCK = "#c9c2b3";
  const RESULT = {SUC: "succeeds", BNC: "bounced", CUT: "support cut", DSR: "convoy disrupted", NSO: "no such order",
                  FLD: "fails", RET: "dislodged"};
  const COASTS = {NCS: "north coast", NEC: "north-east coast", ECS: "east coast", SEC: "south-east coast",
                  SCS: "south coast", SWC: "south-west coast", WCS: "west coast", NWC: "north-west coast"};
  const POWERS = {AUS: "Austria", ENG: "England", FRA: "France", GER: "Germany", ITA: "Italy", RUS: "Russia",
                  TUR: "Turkey"};
  const SEASONS = {SPR: "Spring", SUM: "Summer", FAL: "Autumn", AUT: "Autumn", WIN: "Winter"};
  let zoomed = false;     // the phone's enlarged map stays enlarged across states

  const {h} = GameHall;   // the page's DOM helper (gamehall.js)

  /* svg("circle", {r: 3}, parent): an SVG element with its attributes, appended to parent. */
  function svg(tag, attrs, parent) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (parent) parent.append(e);
    return e;
  }

  const chip = (text, colour) => {
    const c = h("span", "dip-sc", text);
    c.style.background = colour;
    return c;
  };

  const succeeded = o => o.result.includes("SUC");

  // ------------------------------------------------------------------ the map's areas
  // The Voronoi cell of each place inside the viewBox: the box clipped by the half-plane
  // nearer to the place than to each other place (Sutherland-Hodgman, n is under 100).
  function clip(poly, px, py, qx, qy) {
    const mx = (px + qx) / 2, my = (py + qy) / 2, dx = qx - px, dy = qy - py, out = [];
    const side = p => (p[0] - mx) * dx + (p[1] - my) * dy;
    poly.forEach((a, i) => {
      const b = poly[(i + 1) % poly.length], sa = side(a), sb = side(b);
      if (sa <= 0) out.push(a);
      if ((sa < 0 && sb > 0) || (sa > 0 && sb < 0)) {
        const t = sa / (sa - sb);
        out.push([a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]);
      }
    });
    return out;
  }

  function cells(map) {
    if (map.cells) return map.cells;
    const [x0, y0, w, ht] = map.viewBox;
    const sites = [
      ...Object.entries(map.provinces).map(([name, v]) => ({name, kind: v.kind, x: v.x, y: v.y})),
      ...map.impassable.map(([x, y]) => ({name: null, kind: "rock", x, y})),
      ...map.water.map(([x, y]) => ({name: null, kind: "sea", x, y})),
    ];
    for (const a of sites) {
      let poly = [[x0, y0], [x0 + w, y0], [x0 + w, y0 + ht], [x0, y0 + ht]];
      for (const b of sites) if (b !== a && poly.length) poly = clip(poly, a.x, a.y, b.x, b.y);
      a.points = poly.map(p => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(" ");
    }
    map.cells = sites;
    return sites;
  }

  const where = (map, loc) => map.coasts[loc] || map.provinces[loc.split("/")[0]];

  function unitLoc(text) {            // "FLT STP SCS" -> {type: "FLT", loc: "STP/SCS"}
    const [type, province, coast] = text.split(" ");
    return {type, loc: province + (coast ? `/${coast}` : "")};
  }

  // a unit drawn around its place (a group moved there, so that CSS can enlarge it on a phone)
  function unitShape(parent, type, x, y, colour, extra = {}) {
    const g = svg("g", {class: "dip-u"}, svg("g", {transform: `translate(${x} ${y})`}, parent));
    const shape = type === "FLT"
      ? svg("polygon", {points: "0,-11 11,0 0,11 -11,0"}, g)
      : svg("circle", {cx: 0, cy: 0, r: 9}, g);
    shape.setAttribute("fill", colour);
    shape.setAttribute("stroke", "#111");
    shape.setAttribute("stroke-width", "1.5");
    for (const [k, v] of Object.entries(extra)) shape.setAttribute(k, v);
    svg("text", {x: 0, y: 4, "text-anchor": "middle", class: "unit"}, g).textContent = type === "FLT" ? "F" : "A";
    return shape;
  }

  // an arrow from a to b stopping short of the unit drawn at b
  function arrow(g, a, b, colour, dashed, ok, marker) {
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.sqrt(dx * dx + dy * dy) || 1;
    const start = 10 / len, stop = (len - 13) / len;
    const x1 = a.x + dx * start, y1 = a.y + dy * start, x2 = a.x + dx * stop, y2 = a.y + dy * stop;
    const line = svg("line", {x1, y1, x2, y2, stroke: colour, "stroke-width": dashed ? 2.5 : 3.5,
                              "stroke-linecap": "round", opacity: ok ? 0.95 : 0.6}, g);
    if (dashed) line.setAttribute("stroke-dasharray", "6 5");
    if (marker) line.setAttribute("marker-end", `url(#${marker})`);
    if (!ok) cross(g, (x1 + x2) / 2, (y1 + y2) / 2);
    return {x: (a.x + b.x) / 2, y: (a.y + b.y) / 2};
  }

  function cross(g, x, y) {
    const d = 6;
    svg("path", {d: `M${x - d} ${y - d}L${x + d} ${y + d}M${x + d} ${y - d}L${x - d} ${y + d}`,
                 stroke: "#c0161b", "stroke-width": 3.5, "stroke-linecap": "round"}, g);
  }

  function drawMap(box, map, state) {
    const colours = {}, owner = {};
    for (const p of state.powers) {
      colours[p.power] = p.colour;
      for (const c of p.centres) owner[c] = p.colour;
    }
    const root = svg("svg", {viewBox: map.viewBox.join(" "), role: "img"});
    svg("title", {}, root).textContent = `Map of ${state.turn}`;
    const defs = svg("defs", {}, root);
    for (const [p, colour] of Object.entries(colours)) {
      const m = svg("marker", {id: `dip-ah-${p}`, viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 4.5,
                               markerHeight: 4.5, orient: "auto-start-reverse"}, defs);
      svg("path", {d: "M0 0L10 5L0 10z", fill: colour}, m);
    }
    // areas: sea, land (a centre's land tinted with its owner's colour), impassable
    const areas = svg("g", {stroke: "#fff", "stroke-width": 1.2}, root);
    for (const c of cells(map)) {
      const fill = c.kind === "sea" ? SEA : c.kind === "rock" ? ROCK : LAND;
      svg("polygon", {points: c.points, fill}, areas);
      if (c.name && owner[c.name]) svg("polygon", {points: c.points, fill: owner[c.name], opacity: 0.28}, areas);
    }
    // adjacency, faintly
    const edges = svg("g", {stroke: "#000", "stroke-opacity": 0.12, "stroke-width": 1}, root);
    for (const pair of map.edges.split(" ")) {
      const [a, b] = pair.split("-").map(p => map.provinces[p]);
      svg("line", {x1: a.x, y1: a.y, x2: b.x, y2: b.y}, edges);
    }
    // labels, coasts, supply centres
    const marks = svg("g", {}, root);
    for (const [p, v] of Object.entries(map.provinces)) {
      svg("text", {x: v.x, y: v.y - 14, "text-anchor": "middle", class: v.kind === "sea" ? "sea" : ""}, marks).textContent = p;
    }
    for (const v of Object.values(map.coasts)) svg("circle", {cx: v.x, cy: v.y, r: 3, fill: "#1d4f7a", opacity: 0.5}, marks);
    for (const c of map.centres) {
      const v = map.provinces[c];
      svg("circle", {cx: v.x + 18, cy: v.y + 2, r: 5.5, fill: owner[c] || "#fff", stroke: "#222",
                     "stroke-width": 1.5, class: "dip-centre"}, marks);
    }
    // the last turn's orders, under the units
    const orders = svg("g", {}, root);
    for (const o of state.orders || []) drawOrder(orders, map, o, colours[o.power] || "#555");
    const units = svg("g", {class: "dip-units-layer"}, root);
    for (const p of state.powers) {
      for (const text of p.units) {
        const u = unitLoc(text), v = where(map, u.loc);
        unitShape(units, u.type, v.x, v.y, p.colour).setAttribute("class", "dip-unit-mark");
      }
    }
    for (const d of state.dislodged) {
      const u = unitLoc(d.unit), v = where(map, u.loc), g = svg("g", {class: "dip-dislodged"}, units);
      unitShape(g, u.type, v.x - 14, v.y + 14, colours[d.power] || "#555", {"stroke-dasharray": "3 2",
                stroke: "#c0161b", "stroke-width": 2.5, opacity: 0.85});
    }
    box.append(root);
  }

  function drawOrder(g, map, o, colour) {
    if (!o.at) return;                 // a build waived: nowhere on the map
    const ok = succeeded(o), at = where(map, o.at);
    const marker = `dip-ah-${o.power}`;
    if (o.order === "MTO" || o.order === "RTO" || o.order === "CTO") {
      arrow(g, at, where(map, o.to), colour, false, ok, marker);
    } else if (o.order === "SUP" || o.order === "CVY") {
      const of = map.provinces[o.of.split("/")[0]];
      let target = of;
      if (o.to) {
        const to = map.provinces[o.to.split("/")[0]];
        target = {x: (of.x + to.x) / 2, y: (of.y + to.y) / 2};
        // the supported move drawn faintly, when its own unit's order is not a move there
        svg("line", {x1: of.x, y1: of.y, x2: to.x, y2: to.y, stroke: colour, "stroke-width": 1,
                     "stroke-dasharray": "2 4", opacity: 0.7}, g);
      }
      arrow(g, at, target, colour, true, ok, o.order === "CVY" ? null : marker);
    } else if (o.order === "BLD" || o.order === "HLD") {
      svg("circle", {cx: at.x, cy: at.y, r: 15, fill: "none", stroke: colour, "stroke-width": o.order === "BLD" ? 3 : 1.5,
                     "stroke-dasharray": o.order === "HLD" ? "3 3" : ""}, g);
      if (!ok) cross(g, at.x + 12, at.y + 12);
    } else if (o.order === "REM" || o.order === "DSB") {
      cross(g, at.x, at.y);
    }
  }

  // DAIDE in words, as gamehall_daide/words.py says it: "England: F London \u2192 North Sea"
  function tree(text) {          // "( ENG FLT ( STP NCS ) ) MTO NTH" -> [["ENG", "FLT", ["STP", "NCS"]], "MTO", "NTH"]
    const stack = [[]];
    for (const t of String(text).match(/[()]|[^\s()]+/g) || []) {
      const top = stack[stack.length - 1];
      if (t === "(") { const a = []; top.push(a); stack.push(a); }
      else if (t === ")") { if (stack.length > 1) stack.pop(); }
      else top.push(t);
    }
    return stack[0];
  }

  function placeName(map, loc) {
    if (Array.isArray(loc)) return placeName(map, loc[0]) + (loc[1] ? ` (${COASTS[loc[1]] || loc[1]})` : "");
    const parts = String(loc).split("/");
    if (parts.length > 1) return placeName(map, parts);
    const p = map && map.provinces[loc];
    return p && p.name ? p.name : String(loc);
  }

  // ["ENG", "FLT", "LON"] (or "ENG FLT STP NCS" flat) -> "F London"
  const unitName = (map, u) => (u[1] === "FLT" ? "F " : "A ") + placeName(map, u.length > 3 ? [u[2], u[3]] : u[2]);

  const powerName = p => POWERS[p] || p;

  const turnWords = t => {
    const [season, year] = String(t).split(" ");
    return (SEASONS[season] || season) + (year ? ` ${year}` : "");
  };

  // an order in words; without its unit ("\u2192 North Sea") for the form's lists
  function orderWords(map, text, withUnit) {
    const t = tree(text);
    if (t.length === 2 && typeof t[0] === "string") return `${withUnit ? `${powerName(t[0])} ` : ""}waives a build`;
    const [who, verb, ...rest] = t;
    const head = withUnit ? `${powerName(who[0])}: ${unitName(map, who)} ` : "";
    if (verb === "HLD") return `${head}holds`;
    if (verb === "MTO") return `${head}\u2192 ${placeName(map, rest[0])}`;
    if (verb === "RTO") return `${head}retreats \u2192 ${placeName(map, rest[0])}`;
    if (verb === "CTO") {
      return `${head}\u2192 ${placeName(map, rest[0])} (convoyed` +
        (rest[2] ? ` via ${rest[2].map(x => placeName(map, x)).join(", ")}` : "") + ")";
    }
    if (verb === "SUP" || verb === "CVY") {
      const helped = (rest[0][0] !== who[0] ? `${powerName(rest[0][0])} ` : "") + unitName(map, rest[0]);
      return head + (verb === "SUP" ? "supports " : "convoys ") + helped + (rest[2] ? ` \u2192 ${placeName(map, rest[2])}` : "");
    }
    return head + ({DSB: "disbands", BLD: "is built", REM: "is removed"}[verb] || verb);
  }

  function said(map, text, withUnit) {   // an order, or the text as sent when it is not one
    try { return orderWords(map, text, withUnit); }
    catch (e) { return String(text).replace(/[()]/g, " ").replace(/\s+/g, " ").trim(); }
  }

  const VERBS = {HLD: "holds", MTO: "\u2192 ", RTO: "retreats \u2192 ", CTO: "\u2192 ", SUP: "supports ", CVY: "convoys ",
                 DSB: "disbands", BLD: "is built", REM: "is removed"};

  function orderText(map, o) {
    let line;
    if (!o.at) line = `${powerName(o.power)} waives a build`;
    else {
      line = `${powerName(o.power)}: ${o.unit === "FLT" ? "F " : "A "}${placeName(map, o.at)} `;
      line += VERBS[o.order] || o.order;
      if (o.of) line += placeName(map, o.of) + (o.to ? ` \u2192 ${placeName(map, o.to)}` : "");
      else if (o.to) line += placeName(map, o.to) + (o.order === "CTO" ? " (convoyed)" : "");
    }
    return `${line}: ${o.result.map(r => RESULT[r] || r).join(", ")}`;
  }

  // one select per unit (or per build / removal owed): the orders sent together
  function ordersForm(ctx, map) {
    const d = ctx.decision, f = d.form, box = h("div", "dip-form"), selects = [];
    box.append(h("div", "dip-info", d.prompt));
    const add = (label, options, chosen) => {
      const l = h("label", null, `${label} `);
      const sel = h("select");
      const withUnit = label === "build" || label === "remove";
      for (const o of options) {
        const op = h("option", null, said(map, o, withUnit));
        op.value = o;
        sel.append(op);
      }
      if (chosen !== null) sel.value = chosen;
      l.append(sel);
      box.append(l);
      selects.push(sel);
    };
    for (const unit of f.units) {
      const opts = f.orders[unit];
      let chosen = null;
      for (const g of f.given) if (opts.includes(g)) chosen = g;
      add(unitName(map, tree(unit).flat()), opts, chosen);
    }
    const adj = f.orders.builds || f.orders.removals;
    if (adj) {
      for (let i = 0; i < f.owed; i++) add(f.orders.builds ? "build" : "remove", adj, adj[Math.min(i, adj.length - 1)]);
    }
    const send = h("button", null, "Submit these orders");
    send.addEventListener("click", () => ctx.act({submit: selects.map(sel => sel.value)}));
    box.append(send);
    return box;
  }

  function powerList(state) {
    const list = h("div", "dip-powers");
    for (const p of [...state.powers].sort((a, b) => b.centres.length - a.centres.length)) {
      const out = p.eliminated !== null && p.eliminated !== undefined;
      const box = h("div", `dip-power${out ? " out" : ""}`);
      box.style.borderLeftColor = p.colour;
      const top = h("div", "dip-head");
      top.append(h("span", null, `${p.title} \u2014 ${p.name}${p.seat === state.seat ? " (you)" : ""}`),
                 h("span", null, `${p.centres.length} SC, ${p.units.length} units`));
      const scs = h("div");
      scs.append(...p.centres.map(c => chip(c, p.colour)));
      box.append(top, scs, h("div", "dip-units", p.units.map(u => u.replace("AMY ", "A ").replace("FLT ", "F ")).join(", ")));
      if (out) box.append(h("div", "dip-info", `eliminated in ${p.eliminated}`));
      list.append(box);
    }
    if (state.neutral.length) {
      const n = h("div", "dip-power");
      n.style.borderLeftColor = "#aaa";
      n.append(h("div", "dip-head", "Neutral centres"), ...state.neutral.map(c => chip(c, "#999")));
      list.append(n);
    }
    return list;
  }

  function render(el, state, ctx) {
    GameHall.injectCss("dip-css", CSS);
    const main = h("div", "dip-main"), side = h("div", "dip-side");
    const wrap = h("div", "dip");
    wrap.append(main, side);
    el.replaceChildren(wrap);
    let head = `${turnWords(state.turn)} (${state.phase}) \u00b7 ${state.to_win} centres win`;
    if (state.over) {
      head = `Game over (${state.over.reason}): ${state.over.winners.map(s => state.powers[s].title).join(", ")}`;
    }
    main.append(h("div", "dip-info", head));
    const maps = ((window.GameHall || {}).viewData || {}).diplomacy;
    const map = maps && maps[state.map];
    if (map) {
      const box = h("div", `dip-map${zoomed ? " zoom" : ""}`);
      box.title = "Tap to enlarge or fit";
      box.addEventListener("click", () => { zoomed = !zoomed; box.classList.toggle("zoom", zoomed); });
      drawMap(box, map, state);
      main.append(box);
    } else {
      main.append(h("div", "dip-info", `(no map drawing for ${state.map})`));
    }
    main.append(powerList(state));
    if (state.dislodged.length) {
      side.append(h("b", null, "Dislodged"));
      for (const d of state.dislodged) {
        const retreats = d.retreats.map(r => placeName(map, r)).join(", ") || "no retreat";
        side.append(h("div", "dip-info", `${powerName(d.power)}: ${unitName(map, [d.power, ...d.unit.split(" ")])} \u2192 ${retreats}`));
      }
    }
    const mine = state.mine;
    if (mine) {
      side.append(h("b", null, `Your orders (${mine.title || mine.power})`));
      if (!mine.orders.length) side.append(h("div", "dip-info", "none yet"));
      side.append(...(mine.orders_text || mine.orders).map(o => h("div", "dip-info", o)));
      if (mine.missing !== "MIS") side.append(h("div", "dip-info", `Still to order: ${mine.missing_text || mine.missing.slice(3)}`));
    }
    if (ctx.decision && ctx.decision.form) side.append(ordersForm(ctx, map));
    if (state.orders && state.orders.length) {
      side.append(h("b", null, `Results of ${turnWords(state.last_turn)}`));
      const r = h("div", "dip-results");
      r.append(...state.orders.map(o => h("div", succeeded(o) ? null : "bad", orderText(map, o))));
      side.append(r);
    }
  }

  GameHall.registerView("diplomacy", {render});
})();
