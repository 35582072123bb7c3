/* Monopoly (PIMP) board for the gamehall web front end.
   Draws the state from gamehall_pimp/view.py: the 40 squares round an 11x11 grid
   (group colour, owner, houses and hotels, mortgages, the players' tokens), the
   dice, pot, sale and auction in the middle, the players beside it, and for a seat
   its own claims and transactions.  Clicking one of your properties offers what
   you may do with it (mortgage, build, sell) when the engine would accept it.
   No libraries; every text goes in through textContent. */
(function () {
  "use strict";

  var SEATS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324"];

  var CSS = [
    ".pm{display:flex;flex-wrap:wrap;gap:12px;font:14px/1.3 system-ui,sans-serif;color:#222}",
    ".pm-main{flex:3 1 520px;min-width:0;max-width:min(780px,calc(100vh - 150px))}",
    ".pm-side{flex:1 1 280px;min-width:0}",
    ".pm-board{display:grid;grid-template-columns:1.5fr repeat(9,1fr) 1.5fr;",
    "grid-template-rows:1.5fr repeat(9,1fr) 1.5fr;aspect-ratio:1/1;gap:1px;background:#2f4f3a;padding:2px;",
    "border-radius:4px;width:100%}",
    ".pm-sq{background:#d9ead3;position:relative;overflow:hidden;display:flex;flex-direction:column;",
    "font-size:clamp(5px,.9vw,10px);line-height:1.05;text-align:center;min-width:0;min-height:0}",
    ".pm-bar{flex:0 0 22%}",
    ".pm-name{flex:1 1 auto;padding:1px 0;overflow:hidden;white-space:normal}",
    ".pm-price{font-size:.9em;color:#333}",
    ".pm-sq.mort{background:repeating-linear-gradient(45deg,#d9ead3,#d9ead3 4px,#b9c4b6 4px,#b9c4b6 8px)}",
    ".pm-sq.mine{cursor:pointer}",
    ".pm-sq.mine:hover{outline:2px solid #00c853;outline-offset:-2px}",
    ".pm-owner{position:absolute;right:1px;bottom:1px;width:28%;height:14%;min-width:5px;min-height:4px;",
    "border-radius:2px;border:1px solid #000}",
    ".pm-bld{position:absolute;left:1px;top:1px;display:flex;gap:1px}",
    ".pm-house{width:clamp(4px,.8vw,8px);height:clamp(4px,.8vw,8px);background:#0a8f2f;border:1px solid #043}",
    ".pm-hotel{width:clamp(8px,1.5vw,14px);height:clamp(5px,.9vw,9px);background:#c62828;border:1px solid #500}",
    ".pm-toks{position:absolute;left:1px;bottom:1px;display:flex;flex-wrap:wrap;gap:1px;max-width:70%}",
    ".pm-tok{width:clamp(10px,1.4vw,14px);height:clamp(10px,1.4vw,14px);border-radius:50%;border:1px solid #000;",
    "color:#fff;font-size:clamp(5px,.9vw,9px);display:flex;align-items:center;justify-content:center;font-weight:700}",
    ".pm-centre{grid-column:2 / span 9;grid-row:2 / span 9;background:#eaf4e6;display:flex;flex-direction:column;",
    "align-items:center;justify-content:center;gap:6px;padding:6px;text-align:center;font-size:clamp(10px,1.6vw,15px)}",
    ".pm-title{font-weight:800;letter-spacing:.2em;color:#b71c1c;font-size:1.6em}",
    ".pm-die{display:inline-block;width:1.8em;height:1.8em;line-height:1.8em;background:#fff;border:1px solid #333;",
    "border-radius:4px;margin:0 2px;font-weight:700}",
    ".pm table{border-collapse:collapse;width:100%;margin-bottom:10px}",
    ".pm th,.pm td{padding:3px 5px;border-bottom:1px solid #dde3e6;text-align:left}",
    ".pm td.n{text-align:right}",
    ".pm-cur{background:#fff7d1}",
    // three columns (where a player stands goes under the name) so that the table fits the
    // side column beside the board on a 1280 px page; a long name breaks rather than widen it
    ".pm-nm{overflow-wrap:anywhere}.pm-where{font-size:12px;color:#555;margin-left:19px}",
    ".pm-dot{display:inline-block;width:15px;height:15px;border-radius:50%;margin-right:4px;vertical-align:-2px;",
    "border:1px solid #000;color:#fff;font-size:10px;font-weight:700;text-align:center;line-height:15px}",
    ".pm-box{border:1px solid #c8d0d4;border-radius:6px;padding:6px 8px;margin:6px 0;background:#fafbfb}",
    ".pm-pick button{margin:2px}",
    ".pm-offer{margin-top:4px}.pm-offer>*{margin:2px}",
    ".pm-info{margin:4px 0;color:#444}",
    "@media (max-width:600px){.pm{font-size:13px}.pm-main,.pm-side{flex-basis:100%;max-width:100%}",
    ".pm-name{display:none}.pm-bar{flex-basis:30%}}"
  ].join("\n");

  var h = GameHall.h;     // the page's DOM helper (gamehall.js)

  function money(n) { return "$" + Number(n).toLocaleString("en-US"); }

  function seatColour(seat) { return SEATS[seat % SEATS.length]; }

  // grid cell (row, column), 1-based, of square i: Go bottom right, then clockwise
  function place(i) {
    if (i <= 10) return [11, 11 - i];
    if (i <= 20) return [11 - (i - 10), 1];
    if (i <= 30) return [1, 1 + (i - 20)];
    return [1 + (i - 30), 11];
  }

  // square names short enough for a board cell (the full name is the cell's title)
  function shortName(n) {
    return n.replace(/ (Avenue|Place|Gardens)$/, "").replace("Railroad", "RR")
      .replace("Community Chest", "Chest").replace("Electric Company", "Electric");
  }

  function name(state, seat) {
    for (var i = 0; i < state.players.length; i++) if (state.players[i].seat === seat) return state.players[i].name;
    return "?";
  }

  function render(el, state, ctx) {
    GameHall.injectCss("pm-css", CSS);
    while (el.firstChild) el.removeChild(el.firstChild);
    var d = ctx.decision, props = (d && d.properties) || {};
    var wrap = h("div", "pm"), main = h("div", "pm-main"), side = h("div", "pm-side");
    wrap.appendChild(main);
    wrap.appendChild(side);
    el.appendChild(wrap);
    var pick = h("div", "pm-pick");

    var board = h("div", "pm-board");
    var tokens = {};
    state.players.forEach(function (p) {
      if (!p.playing) return;
      (tokens[p.square] = tokens[p.square] || []).push(p);
    });
    state.squares.forEach(function (sq, i) {
      var cell = h("div", "pm-sq");
      var at = place(i);
      cell.style.gridRow = String(at[0]);
      cell.style.gridColumn = String(at[1]);
      var title = sq.name;
      if (sq.colour) {
        var bar = h("div", "pm-bar");
        bar.style.background = sq.colour;
        cell.appendChild(bar);
      }
      var nm = h("div", "pm-name", shortName(sq.name));
      if (sq.price) nm.appendChild(h("div", "pm-price", money(sq.price)));
      cell.appendChild(nm);
      if (sq.owner !== undefined && sq.owner !== null) {
        var own = h("div", "pm-owner");
        own.style.background = seatColour(sq.owner);
        cell.appendChild(own);
        title += " \u2014 " + name(state, sq.owner) + (sq.mortgaged ? " (mortgaged)" : "");
      }
      if (sq.mortgaged) cell.className += " mort";
      if (sq.houses || sq.hotel) {
        var bld = h("div", "pm-bld");
        if (sq.hotel) bld.appendChild(h("div", "pm-hotel"));
        for (var k = 0; k < (sq.houses || 0); k++) bld.appendChild(h("div", "pm-house"));
        cell.appendChild(bld);
        title += sq.hotel ? ", a hotel" : ", " + sq.houses + " house" + (sq.houses > 1 ? "s" : "");
      }
      if (tokens[i]) {
        var toks = h("div", "pm-toks");
        tokens[i].forEach(function (p) {
          var t = h("div", "pm-tok", p.seat + 1);
          t.style.background = seatColour(p.seat);
          t.title = p.name;
          toks.appendChild(t);
        });
        cell.appendChild(toks);
      }
      var mine = sq.prop !== undefined ? props[String(sq.prop)] : null;
      if (mine) {
        cell.className += " mine";
        cell.addEventListener("click", function () {
          while (pick.firstChild) pick.removeChild(pick.firstChild);
          pick.appendChild(h("div", "pm-info", sq.name + ":"));
          mine.forEach(function (c) {
            var b = h("button", null, c.label);
            b.addEventListener("click", function () { ctx.act(c.action); });
            pick.appendChild(b);
          });
        });
      }
      cell.title = title;
      board.appendChild(cell);
    });

    var centre = h("div", "pm-centre");
    centre.appendChild(h("div", "pm-title", "MONOPOLY"));
    if (state.over) {
      centre.appendChild(h("div", null, state.winner !== null ? name(state, state.winner) + " wins" : "Game over"));
    } else if (state.turn !== null && state.turn !== undefined) {
      centre.appendChild(h("div", null, name(state, state.turn) + "'s turn (" + state.phase + ")"));
    } else {
      centre.appendChild(h("div", null, "Waiting for players"));
    }
    if (state.dice && (state.dice[0] || state.dice[1])) {
      var dice = h("div");
      dice.appendChild(h("span", "pm-die", state.dice[0]));
      dice.appendChild(h("span", "pm-die", state.dice[1]));
      centre.appendChild(dice);
    }
    if (state.sale) centre.appendChild(h("div", null, "For sale: " + state.sale));
    if (state.auction) {
      var a = state.auction;
      centre.appendChild(h("div", null, "Auction: " + a.property + ", high bid " + money(a.high) +
        (a.leader !== null ? " by " + name(state, a.leader) : "")));
    }
    if (state.pot !== null && state.pot !== undefined) centre.appendChild(h("div", null, "Pot: " + money(state.pot)));
    centre.appendChild(h("div", "pm-info", "Bank: " + state.bank.houses + " houses, " + state.bank.hotels + " hotels"));
    board.appendChild(centre);
    main.appendChild(board);
    if (Object.keys(props).length) main.appendChild(h("div", "pm-info", "Click one of your properties to mortgage, build or sell."));
    main.appendChild(pick);

    var t = h("table"), head = h("tr");
    ["Player", "Cash", "Worth"].forEach(function (x) { head.appendChild(h("th", null, x)); });
    t.appendChild(head);
    state.players.forEach(function (p) {
      var tr = h("tr", p.seat === state.pending ? "pm-cur" : null);
      var nm = h("td", "pm-nm");
      var dot = h("span", "pm-dot", p.seat + 1);
      dot.style.background = seatColour(p.seat);
      nm.appendChild(dot);
      nm.appendChild(document.createTextNode(p.name + (p.seat === state.seat ? " (you)" : "") +
        (p.playing ? "" : " (not playing)") + (p.afk ? " (away)" : "")));
      var where = p.playing ? state.squares[p.square].name + (p.jail ? " (in jail)" : "") : "";
      if (p.cards.length) where += (where ? " \u00b7 " : "") + p.cards.length + " jail card" + (p.cards.length > 1 ? "s" : "");
      if (where) nm.appendChild(h("div", "pm-where", where));
      tr.appendChild(nm);
      tr.appendChild(h("td", "n", money(p.cash) + (p.escrow ? " +" + money(p.escrow) + " held" : "")));
      tr.appendChild(h("td", "n", p.playing ? money(p.worth) : ""));
      t.appendChild(tr);
    });
    side.appendChild(t);
    if (state.claims && state.claims.length) {
      var cb = h("div", "pm-box");
      cb.appendChild(h("b", null, "Your claims"));
      state.claims.forEach(function (c) { cb.appendChild(h("div", null, c)); });
      side.appendChild(cb);
    }
    (state.transactions || []).forEach(function (tx) {
      var box = h("div", "pm-box");
      box.appendChild(h("b", null, (tx.kind === "trade" ? "Trade" : "Debt (" + tx.kind + ")") + " #" + tx.id +
        (tx.required ? ": " + money(tx.required) + " owed" : "")));
      [["You offer", tx.you], [tx.other ? tx.other.name + " offers" : null, tx.other]].forEach(function (s) {
        if (!s[0] || !s[1]) return;
        var bits = [money(s[1].cash)].concat(s[1].properties).concat(s[1].cards);
        box.appendChild(h("div", null, s[0] + ": " + bits.join(", ") + " (" + s[1].stage + ")"));
      });
      if (tx.you.stage === "open" && (tx.kind === "trade" || tx.required)) box.appendChild(offerForm(state, ctx, tx));
      side.appendChild(box);
    });
    if (state.mine && state.mine.length)
      side.appendChild(h("div", "pm-info", "Your properties: " + state.mine.map(function (m) { return m.name; }).join(", ")));
    if (state.candidates && state.candidates.length)
      side.appendChild(h("div", "pm-info", "Asking to join: " + state.candidates.map(function (c) { return c.name; }).join(", ")));
  }

  // your side of an open deal: cash, and (in a trade, or to pay a debt) your properties
  function offerForm(state, ctx, tx) {
    var form = h("div", "pm-offer");
    var cash = h("input");
    cash.type = "number"; cash.min = 0; cash.value = tx.you.cash; cash.style.width = "6em";
    cash.setAttribute("aria-label", "cash offered");
    var set = h("button", null, "Offer cash");
    set.addEventListener("click", function () {
      var n = parseInt(cash.value, 10);
      ctx.act({msg: "TRANSACTION_SET_CASH", args: [tx.id, isNaN(n) || n < 0 ? 0 : n]});
    });
    form.appendChild(cash);
    form.appendChild(set);
    var offered = {};
    tx.you.props.forEach(function (p) { offered[p] = true; });
    var free = (state.mine || []).filter(function (m) { return !offered[m.prop]; });
    if (free.length) {
      var sel = h("select");
      free.forEach(function (m) { var o = h("option", null, m.name); o.value = m.prop; sel.appendChild(o); });
      var add = h("button", null, "Add property");
      add.addEventListener("click", function () {
        ctx.act({msg: "TRANSACTION_ADD_PROPERTY", args: [tx.id, parseInt(sel.value, 10)]});
      });
      form.appendChild(sel);
      form.appendChild(add);
    }
    tx.you.props.forEach(function (p, i) {
      var rm = h("button", null, "Take back " + tx.you.properties[i]);
      rm.addEventListener("click", function () { ctx.act({msg: "TRANSACTION_REMOVE_PROPERTY", args: [tx.id, p]}); });
      form.appendChild(rm);
    });
    return form;
  }

  GameHall.registerView("pimp", {render: render});
})();
