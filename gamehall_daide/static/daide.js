/* Diplomacy for the gamehall web front end.
   Draws the state from gamehall_daide/view.py: the turn, each power's supply centres
   (chips in its colour) and units, the neutral centres, dislodged units, the last
   turn's results; a seat's own orders, and a form with one list of legal orders per
   unit (or the builds / removals owed) sent together as one submission.
   No libraries; every text goes in through textContent. */
(function () {
  "use strict";

  var CSS = [
    ".dip{display:flex;flex-wrap:wrap;gap:12px;font:14px/1.35 system-ui,sans-serif;color:#222}",
    ".dip-main{flex:3 1 460px;min-width:0}.dip-side{flex:1 1 300px;min-width:0}",
    ".dip-power{border:1px solid #d5dbe0;border-left:8px solid;border-radius:6px;padding:6px 8px;margin:0 0 8px}",
    ".dip-power.out{opacity:.5}",
    ".dip-head{display:flex;justify-content:space-between;gap:8px;font-weight:700}",
    ".dip-sc{display:inline-block;min-width:34px;text-align:center;padding:1px 4px;margin:2px;border-radius:3px;",
    "color:#fff;font-size:12px;font-weight:700}",
    ".dip-unit{display:inline-block;padding:1px 5px;margin:2px;border:1px solid #888;border-radius:10px;font-size:12px}",
    ".dip-info{margin:4px 0;color:#444}",
    ".dip-form{border:1px solid #c8d0d4;border-radius:6px;padding:8px;margin:8px 0;background:#fafbfb}",
    ".dip-form label{display:block;margin:4px 0}.dip-form select{max-width:100%}",
    ".dip-results{font-size:12px;max-height:260px;overflow:auto;border:1px solid #e0e4e7;padding:4px}",
    "@media (max-width:600px){.dip{font-size:13px}.dip-main,.dip-side{flex-basis:100%}}"
  ].join("\n");

  function injectCss() {
    if (document.getElementById("dip-css")) return;
    var s = document.createElement("style");
    s.id = "dip-css";
    s.textContent = CSS;
    document.head.appendChild(s);
  }

  function h(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function chip(text, colour) {
    var c = h("span", "dip-sc", text);
    c.style.background = colour;
    return c;
  }

  // one select per unit (or per build / removal owed): the orders sent together
  function ordersForm(ctx) {
    var d = ctx.decision, f = d.form, box = h("div", "dip-form"), selects = [];
    box.appendChild(h("div", "dip-info", d.prompt));
    function add(label, options, chosen) {
      var l = h("label", null, label + " ");
      var s = h("select");
      options.forEach(function (o) { var op = h("option", null, o.replace(/[()]/g, "").replace(/\s+/g, " ").trim()); op.value = o; s.appendChild(op); });
      if (chosen !== null) s.value = chosen;
      l.appendChild(s);
      box.appendChild(l);
      selects.push(s);
    }
    f.units.forEach(function (unit) {
      var opts = f.orders[unit];
      var chosen = null;
      f.given.forEach(function (g) { if (opts.indexOf(g) >= 0) chosen = g; });
      add(unit.slice(4).replace(/[()]/g, "").replace(/\s+/g, " ").trim(), opts, chosen);
    });
    var adj = f.orders.builds || f.orders.removals;
    if (adj) for (var i = 0; i < f.owed; i++) add(f.orders.builds ? "build" : "remove", adj, adj[Math.min(i, adj.length - 1)]);
    var send = h("button", null, "Submit these orders");
    send.addEventListener("click", function () {
      ctx.act({submit: selects.map(function (s) { return s.value; })});
    });
    box.appendChild(send);
    return box;
  }

  function render(el, state, ctx) {
    injectCss();
    while (el.firstChild) el.removeChild(el.firstChild);
    var wrap = h("div", "dip"), main = h("div", "dip-main"), side = h("div", "dip-side");
    wrap.appendChild(main);
    wrap.appendChild(side);
    el.appendChild(wrap);
    var head = state.turn + " (" + state.phase + ") \u00b7 " + state.to_win + " centres win";
    if (state.over) {
      head = "Game over (" + state.over.reason + "): " + state.over.winners.map(function (s) {
        return state.powers[s].title; }).join(", ");
    }
    main.appendChild(h("div", "dip-info", head));
    state.powers.slice().sort(function (a, b) { return b.centres.length - a.centres.length; }).forEach(function (p) {
      var box = h("div", "dip-power" + (p.eliminated !== null && p.eliminated !== undefined ? " out" : ""));
      box.style.borderLeftColor = p.colour;
      var top = h("div", "dip-head");
      top.appendChild(h("span", null, p.title + " \u2014 " + p.name + (p.seat === state.seat ? " (you)" : "")));
      top.appendChild(h("span", null, p.centres.length + " centres, " + p.units.length + " units"));
      box.appendChild(top);
      var scs = h("div");
      p.centres.forEach(function (c) { scs.appendChild(chip(c, p.colour)); });
      box.appendChild(scs);
      var us = h("div");
      p.units.forEach(function (u) { us.appendChild(h("span", "dip-unit", u.replace("AMY", "A").replace("FLT", "F"))); });
      box.appendChild(us);
      if (p.eliminated !== null && p.eliminated !== undefined) box.appendChild(h("div", "dip-info", "eliminated in " + p.eliminated));
      main.appendChild(box);
    });
    if (state.neutral.length) {
      var n = h("div", "dip-power");
      n.style.borderLeftColor = "#aaa";
      n.appendChild(h("div", "dip-head", "Neutral centres"));
      state.neutral.forEach(function (c) { n.appendChild(chip(c, "#999")); });
      main.appendChild(n);
    }
    if (state.dislodged.length) {
      side.appendChild(h("b", null, "Dislodged"));
      state.dislodged.forEach(function (d) {
        side.appendChild(h("div", "dip-info", d.power + " " + d.unit + " \u2192 " + (d.retreats.join(", ") || "no retreat")));
      });
    }
    if (state.mine) {
      side.appendChild(h("b", null, "Your orders (" + state.mine.power + ")"));
      if (!state.mine.orders.length) side.appendChild(h("div", "dip-info", "none yet"));
      state.mine.orders.forEach(function (o) { side.appendChild(h("div", "dip-info", o)); });
      if (state.mine.missing !== "MIS") side.appendChild(h("div", "dip-info", "Still to order: " + state.mine.missing.slice(3)));
    }
    if (ctx.decision && ctx.decision.form) side.appendChild(ordersForm(ctx));
    if (state.results.length) {
      side.appendChild(h("b", null, "Results of " + state.last_turn));
      var r = h("div", "dip-results");
      state.results.forEach(function (t) { r.appendChild(h("div", null, t)); });
      side.appendChild(r);
    }
  }

  GameHall.registerView("diplomacy", {render: render});
})();
