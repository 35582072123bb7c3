/* Acquire (classic and Windward) board for the gamehall web front end.
   Draws the state from gamehall_acquire/view.py: the 12x9 grid in chain colours,
   the chain table, the players, the seat's own rack; tiles to play are clickable,
   and the share purchase / disposal steps get a small form.  No libraries; every
   text goes in through textContent. */
(function () {
  "use strict";

  var CSS = [
    ".acq{display:flex;flex-wrap:wrap;gap:12px;font:14px/1.3 system-ui,sans-serif;color:#222}",
    ".acq-main{flex:3 1 470px;min-width:0;max-width:760px}",
    ".acq-side{flex:1 1 370px;min-width:0}",
    ".acq-grid{display:grid;grid-template-columns:repeat(12,1fr);gap:2px;background:#5b6b73;padding:3px;border-radius:6px;",
    "max-width:max(330px,calc((100vh - 230px) * 1.33))}",
    ".acq-cell{aspect-ratio:1/1;display:flex;align-items:center;justify-content:center;background:#eef1f2;",
    "border-radius:3px;font-size:clamp(8px,1.6vw,13px);color:#8a979d;user-select:none;position:relative}",
    ".acq-cell.lone{background:#9aa4a9;color:#fff;font-weight:600}",
    ".acq-cell.chain{color:#fff;font-weight:600;text-shadow:0 1px 1px rgba(0,0,0,.45)}",
    ".acq-cell.dead{background:repeating-linear-gradient(45deg,#eef1f2,#eef1f2 3px,#cfd6d9 3px,#cfd6d9 6px)}",
    ".acq-cell.last{outline:3px solid #111;outline-offset:-3px}",
    ".acq-cell.mine{box-shadow:inset 0 0 0 2px #0a7d32;color:#0a7d32;font-weight:700}",
    ".acq-cell.click{cursor:pointer;background:#c9f2d5}",
    ".acq-cell.click:hover{background:#8fe0a7}",
    ".acq-rack{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}",
    ".acq-tile{min-width:44px;padding:6px 8px;border:1px solid #8a979d;border-radius:4px;background:#f7f3e3;",
    "font-weight:700;text-align:center}",
    ".acq-tile.playable,.acq-tile.found,.acq-tile.grow,.acq-tile.merge{border-color:#0a7d32}",
    ".acq-tile.unplayable_now,.acq-tile.dead{opacity:.45}",
    "button.acq-tile{cursor:pointer}",
    ".acq table{border-collapse:collapse;width:100%;margin-bottom:10px;font-size:13px}",
    ".acq th,.acq td{padding:3px 5px;border-bottom:1px solid #dde3e6;text-align:left;vertical-align:top}",
    ".acq td.n{text-align:right;font-variant-numeric:tabular-nums}",
    ".acq-sw{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}",
    ".acq-badge{display:inline-block;padding:0 4px;margin:1px;border-radius:3px;color:#fff;font-size:12px}",
    ".acq-cur{background:#fff7d1}",
    ".acq-nw{white-space:nowrap}.acq-maj{font-size:12px;color:#333}",
    ".acq-info{margin:6px 0;color:#444}",
    ".acq-form{border:1px solid #c8d0d4;border-radius:6px;padding:8px;margin:8px 0;background:#fafbfb}",
    ".acq-form label{display:inline-block;margin:3px 10px 3px 0}",
    ".acq-form input[type=number]{width:4em}",
    ".acq-pick{margin:6px 0}.acq-pick button{margin:2px}",
    "@media (max-width:600px){.acq{font-size:13px}.acq-main,.acq-side{flex-basis:100%}",
    ".acq th,.acq td{padding:2px 3px}}"
  ].join("\n");

  // Windward's power-up cards, shortened for the players' table (full names in its title)
  var CARD_CODES = {FREE_3_STOCK: "F3", BUY_5_STOCK: "B5", TRADE_2_STOCK: "T2", DRAW_5_TILES: "D5",
                    PLACE_4_TILES: "P4"};

  var h = GameHall.h;     // the page's DOM helper (gamehall.js)

  function money(n) { return "$" + Number(n).toLocaleString("en-US"); }

  // values typed into a form survive re-renders of the same decision
  var memo = {key: null, values: {}};

  function chainColour(state, name) {
    for (var i = 0; i < state.chains.length; i++)
      if (state.chains[i].name === name) return state.chains[i].colour;
    return "#777";
  }

  function playerName(state, seat) {
    var p = state.players[seat];
    return p ? p.name : "?";
  }

  function tileChoices(ctx, tile) {
    var d = ctx.decision, out = [];
    if (!d) return out;
    d.choices.forEach(function (c) {
      var a = c.action, t = a.play_tile || (a.tile && a.tile.tile);
      if (t === tile) out.push(c);
    });
    return out;
  }

  function drawBoard(state, ctx, root, onTile) {
    var grid = h("div", "acq-grid");
    var rows = state.board.rows, cells = state.board.cells;
    var dead = {}, mine = {}, click = {};
    state.board.dead.forEach(function (t) { dead[t] = true; });
    (state.rack || []).forEach(function (r) { mine[r.tile] = true; });
    var d = ctx.decision;
    if (d && d.tiles) d.tiles.forEach(function (t) { click[t] = true; });
    for (var r = 0; r < rows.length; r++) {
      for (var c = 1; c <= state.board.columns; c++) {
        var name = c + rows.charAt(r);
        var cell = h("div", "acq-cell", name);
        cell.setAttribute("data-tile", name);
        if (Object.prototype.hasOwnProperty.call(cells, name)) {
          var chain = cells[name];
          if (chain) {
            cell.className += " chain";
            cell.style.background = chainColour(state, chain);
            cell.title = name + " " + chain;
          } else {
            cell.className += " lone";
          }
        } else if (dead[name]) {
          cell.className += " dead";
        } else if (mine[name]) {
          cell.className += " mine";
        }
        if (name === state.last_tile) cell.className += " last";
        if (click[name]) {
          cell.className += " click";
          cell.title = "play " + name;
          cell.addEventListener("click", onTile.bind(null, name));
        }
        grid.appendChild(cell);
      }
    }
    root.appendChild(grid);
  }

  function drawRack(state, ctx, root, onTile) {
    if (!state.rack) return;
    var box = h("div", "acq-rack");
    box.appendChild(h("span", "acq-info", "Your tiles:"));
    var click = {};
    if (ctx.decision && ctx.decision.tiles) ctx.decision.tiles.forEach(function (t) { click[t] = true; });
    state.rack.forEach(function (r) {
      var b = h(click[r.tile] ? "button" : "span", "acq-tile " + r.status, r.tile);
      b.title = r.status.replace("_", " ");
      if (click[r.tile]) b.addEventListener("click", onTile.bind(null, r.tile));
      box.appendChild(b);
    });
    root.appendChild(box);
  }

  function drawChains(state, root) {
    var t = h("table");
    var head = h("tr");
    ["Chain", "Size", "Price", "Left", "Majority"].forEach(function (x) { head.appendChild(h("th", null, x)); });
    t.appendChild(head);
    state.chains.forEach(function (ch) {
      var tr = h("tr");
      var name = h("td", "acq-nw");
      var sw = h("span", "acq-sw");
      sw.style.background = ch.colour;
      name.appendChild(sw);
      name.appendChild(document.createTextNode(ch.name + (ch.safe ? " (safe)" : "")));
      tr.appendChild(name);
      tr.appendChild(h("td", "n", ch.size || "-"));
      tr.appendChild(h("td", "n", ch.size ? money(ch.price) : "(" + money(ch.price_if_founded) + ")"));
      tr.appendChild(h("td", "n", ch.available));
      var maj = h("td", "acq-maj");
      if (ch.first.length) maj.appendChild(h("div", null, "1st " + ch.first.map(function (s) { return playerName(state, s); }).join(", ")));
      if (ch.second.length) maj.appendChild(h("div", null, "2nd " + ch.second.map(function (s) { return playerName(state, s); }).join(", ")));
      tr.appendChild(maj);
      if (!ch.size) tr.style.color = "#8a979d";
      t.appendChild(tr);
    });
    root.appendChild(t);
  }

  function drawPlayers(state, root) {
    var t = h("table");
    var head = h("tr");
    var cols = ["Player", "Cash", "Shares", state.game === "windward" ? "Score" : "Worth"];
    if (state.game === "windward") cols.push("Cards");
    cols.forEach(function (x) { head.appendChild(h("th", null, x)); });
    t.appendChild(head);
    state.players.forEach(function (p) {
      var tr = h("tr", p.seat === state.pending ? "acq-cur" : null);
      var nm = p.name + (p.seat === state.seat ? " (you)" : "");
      tr.appendChild(h("td", null, (p.seat === state.pending ? "\u25b6 " : "") + nm));
      tr.appendChild(h("td", "n", money(p.cash)));
      var sh = h("td");
      Object.keys(p.shares).forEach(function (c) {
        var b = h("span", "acq-badge", c.slice(0, 3) + " " + p.shares[c]);
        b.style.background = chainColour(state, c);
        b.title = p.shares[c] + " " + c;
        sh.appendChild(b);
      });
      tr.appendChild(sh);
      tr.appendChild(h("td", "n", money(p.worth)));
      if (state.game === "windward") {
        var cards = h("td", "acq-nw", (p.cards || []).map(function (c) { return CARD_CODES[c] || c; }).join(" "));
        cards.title = (p.cards || []).join(", ") || "no card left";
        tr.appendChild(cards);
      }
      t.appendChild(tr);
    });
    root.appendChild(t);
  }

  function numberInput(label, key, max, box) {
    var l = h("label", null, label + " ");
    var i = h("input");
    i.type = "number"; i.min = 0; i.max = max; i.step = 1;
    i.value = memo.values[key] !== undefined ? memo.values[key] : 0;
    i.addEventListener("input", function () { memo.values[key] = i.value; });
    l.appendChild(i);
    box.appendChild(l);
    return i;
  }

  function select(label, key, options, box) {
    var l = h("label", null, label + " ");
    var s = h("select");
    options.forEach(function (o) {
      var op = h("option", null, o[1]);
      op.value = o[0];
      s.appendChild(op);
    });
    if (memo.values[key] !== undefined) s.value = memo.values[key];
    s.addEventListener("change", function () { memo.values[key] = s.value; });
    l.appendChild(s);
    box.appendChild(l);
    return s;
  }

  function int(x) { var n = parseInt(x, 10); return isNaN(n) || n < 0 ? 0 : n; }

  function drawForm(state, ctx, root) {
    var d = ctx.decision;
    if (!d || !d.form) return null;
    var f = d.form, box = h("div", "acq-form");
    var key = d.kind + ":" + d.prompt;
    if (memo.key !== key) memo = {key: key, values: {}};
    if (f.type === "dispose") {
      box.appendChild(h("div", "acq-info", "Your " + f.held + " " + f.chain + ": sell at " + money(f.price) +
        ", trade 2 for 1 " + f.survivor + " (up to " + f.max_trade + "), keep the rest."));
      var sell = numberInput("Sell", "sell", f.held, box);
      var trade = numberInput("Trade", "trade", f.max_trade, box);
      var go = h("button", null, "Dispose");
      go.addEventListener("click", function () {
        var s = int(sell.value), t = int(trade.value), a = {};
        if (d.kind === "merge") a.merge = {keep: f.held - s - t, sell: s, trade: t};
        else a.dispose = {sell: s, trade: t};
        ctx.act(a);
      });
      box.appendChild(go);
    } else if (f.type === "buy") {
      box.appendChild(h("div", "acq-info", "Buy up to " + f.max + " shares (cash " + money(f.cash) + "):"));
      var inputs = {}, names = Object.keys(f.chains);
      names.forEach(function (c) {
        inputs[c] = numberInput(c + " " + money(f.prices[c]), "buy:" + c, f.chains[c], box);
      });
      var total = h("div", "acq-info acq-total");
      // what the server would refuse cannot be typed: each field is held to the shares left
      // in the bank, the shares left this turn and the cash left after the other fields
      var bound = function (changed) {
        var order = changed ? [changed].concat(names.filter(function (c) { return c !== changed; })) : names;
        var room = function (c) {
          var n = 0, cost = 0;
          names.forEach(function (o) { if (o !== c) { n += int(inputs[o].value); cost += int(inputs[o].value) * f.prices[o]; } });
          return Math.max(0, Math.min(f.chains[c], f.max - n, Math.floor((f.cash - cost) / f.prices[c])));
        };
        order.forEach(function (c) {
          var n = Math.min(int(inputs[c].value), room(c));
          if (n < int(inputs[c].value)) { inputs[c].value = n; memo.values["buy:" + c] = String(n); }
        });
        var count = 0, cost = 0;
        names.forEach(function (c) {
          inputs[c].max = int(inputs[c].value) + room(c);
          count += int(inputs[c].value); cost += int(inputs[c].value) * f.prices[c];
        });
        total.textContent = count + " share" + (count === 1 ? "" : "s") + " for " + money(cost) +
          ", cash left " + money(f.cash - cost);
      };
      names.forEach(function (c) { inputs[c].addEventListener("input", function () { bound(c); }); });
      bound(null);
      box.appendChild(total);
      var end = null;
      if (f.can_end) {
        var l = h("label", null, " end the game");
        end = h("input");
        end.type = "checkbox";
        l.insertBefore(end, l.firstChild);
        box.appendChild(l);
      }
      var buy = h("button", null, "Buy");
      buy.addEventListener("click", function () {
        var p = {};
        Object.keys(inputs).forEach(function (c) { var n = int(inputs[c].value); if (n) p[c] = n; });
        ctx.act({purchase: p, end_game: !!(end && end.checked)});
      });
      box.appendChild(buy);
    } else if (f.type === "tile_purchase") {
      var tiles = f.tiles.length ? f.tiles.map(function (t) { return [t, t]; }) : [["", "(no playable tile)"]];
      var tileSel = select("Tile", "tile", tiles, box);
      var notOn = state.chains.filter(function (c) { return !c.size; }).map(function (c) { return [c.name, c.name]; });
      var foundSel = select("found", "found", notOn.length ? notOn : [["", "-"]], box);
      var survSel = select("survivor", "survivor", [["", "-"]], box);
      var extra = function () {
        var t = tileSel.value;
        foundSel.parentNode.style.display = f.found[t] ? "" : "none";
        var surv = f.survivor[t] || [];
        survSel.parentNode.style.display = surv.length ? "" : "none";
        while (survSel.firstChild) survSel.removeChild(survSel.firstChild);
        surv.forEach(function (c) { var op = h("option", null, c); op.value = c; survSel.appendChild(op); });
      };
      tileSel.addEventListener("change", extra);
      extra();
      var cardSel = select("card", "card", f.cards.map(function (c) { return [c, f.card_text[c]]; }), box);
      box.appendChild(h("div", "acq-info", "Buy (cash " + money(f.cash) + "), filled after the tile is placed:"));
      // every chain: one this tile founds may be bought too (the engine refuses the others)
      var orders = {};
      state.chains.forEach(function (ch) {
        var price = ch.size ? money(ch.price) : "(" + money(ch.price_if_founded) + ")";
        orders[ch.name] = numberInput(ch.name + " " + price, "buy:" + ch.name, 5, box);
      });
      // TRADE_2_STOCK: up to max_trades pairs (2 shares of one chain for 1 of another)
      var trades = [], tradeBox = h("div");
      var onBoard = [["", "-"]].concat(state.chains.map(function (c) { return [c.name, c.name]; }));
      for (var k = 0; k < (f.max_trades || 0); k++) {
        var row = h("div", "acq-info", "Trade 2 ");
        trades.push([select("", "give" + k, onBoard, row), select("for 1", "get" + k, onBoard, row)]);
        tradeBox.appendChild(row);
      }
      box.appendChild(tradeBox);
      var showTrades = function () { tradeBox.style.display = cardSel.value === "TRADE_2_STOCK" ? "" : "none"; };
      cardSel.addEventListener("change", showTrades);
      showTrades();
      var send = h("button", null, "Place and buy");
      send.addEventListener("click", function () {
        var t = tileSel.value || null, p = {tile: t, card: cardSel.value, buy: [], trade: []};
        if (t && f.found[t]) p.created_hotel = foundSel.value;
        if (t && f.survivor[t]) p.merge_survivor = survSel.value;
        Object.keys(orders).forEach(function (c) { var n = int(orders[c].value); if (n) p.buy.push([c, n]); });
        if (p.card === "TRADE_2_STOCK")
          trades.forEach(function (tr) { if (tr[0].value && tr[1].value) p.trade.push([tr[0].value, tr[1].value]); });
        ctx.act({tile_purchase: p});
      });
      box.appendChild(send);
      box.tileSelect = tileSel;
    }
    root.appendChild(box);
    return box;
  }

  function render(el, state, ctx) {
    GameHall.injectCss("acq-css", CSS);
    while (el.firstChild) el.removeChild(el.firstChild);
    var wrap = h("div", "acq");
    var main = h("div", "acq-main"), side = h("div", "acq-side");
    wrap.appendChild(main);
    wrap.appendChild(side);
    el.appendChild(wrap);
    var pick = h("div", "acq-pick");
    var form = null;
    function onTile(tile) {
      var d = ctx.decision;
      if (form && form.tileSelect) {           // Windward: the tile goes into the purchase form
        form.tileSelect.value = tile;
        memo.values.tile = tile;
        form.tileSelect.dispatchEvent(new Event("change"));
        return;
      }
      var cs = tileChoices(ctx, tile);
      if (d && d.kind === "play_tile") { ctx.act({play_tile: tile}); return; }
      if (cs.length === 1) { ctx.act(cs[0].action); return; }
      while (pick.firstChild) pick.removeChild(pick.firstChild);
      cs.forEach(function (c) {
        var b = h("button", null, c.label);
        b.addEventListener("click", function () { ctx.act(c.action); });
        pick.appendChild(b);
      });
    }
    var info = [];
    if (state.over) {
      var best = Math.max.apply(null, state.over.scores);
      info.push("Game over (" + state.over.reason + "): " +
        state.over.winners.map(function (s) { return playerName(state, s); }).join(" and ") + " wins with " + money(best));
    } else if (state.pending !== null && state.pending !== undefined) {
      info.push("Waiting for " + playerName(state, state.pending) + " (" + String(state.phase).replace(/_/g, " ") + ")");
    }
    if (state.merger) info.push("Merger: " + state.merger.defunct.join(", ") + " into " + (state.merger.survivor || "?") +
      (state.merger.disposing ? ", disposing of " + state.merger.disposing : ""));
    info.push("Tiles left in the bag: " + state.bag + (state.last_tile ? " \u00b7 last tile " + state.last_tile : "") +
      (state.can_end ? " \u00b7 the game may be ended" : ""));
    info.forEach(function (t) { main.appendChild(h("div", "acq-info", t)); });
    drawBoard(state, ctx, main, onTile);
    drawRack(state, ctx, main, onTile);
    main.appendChild(pick);
    form = drawForm(state, ctx, main);
    drawChains(state, side);
    drawPlayers(state, side);
  }

  GameHall.registerView("acquire", {render: render});
  GameHall.registerView("windward", {render: render});
})();
