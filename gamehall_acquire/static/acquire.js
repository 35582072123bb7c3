/* Acquire (classic and Windward) board for the gamehall web front end.
   Draws the state from gamehall_acquire/view.py: the 12x9 grid in chain colours,
   the chain table, the players, the seat's own rack; tiles to play are clickable,
   and the share purchase / disposal steps get a small form.  No libraries; every
   text goes in through textContent.  Registered for both "acquire" and "windward". */
(() => {
  "use strict";

  const CSS = `
.acq{display:flex;flex-wrap:wrap;gap:12px;font:14px/1.3 system-ui,sans-serif;color:#222}
.acq-main{flex:3 1 470px;min-width:0;max-width:760px}
.acq-side{flex:1 1 370px;min-width:0}
.acq-grid{display:grid;grid-template-columns:repeat(12,1fr);gap:2px;background:#5b6b73;padding:3px;border-radius:6px;
max-width:max(330px,calc((100vh - 230px) * 1.33))}
.acq-cell{aspect-ratio:1/1;display:flex;align-items:center;justify-content:center;background:#eef1f2;
border-radius:3px;font-size:clamp(8px,1.6vw,13px);color:#8a979d;user-select:none;position:relative}
.acq-cell.lone{background:#9aa4a9;color:#fff;font-weight:600}
.acq-cell.chain{color:#fff;font-weight:600;text-shadow:0 1px 1px rgba(0,0,0,.45)}
.acq-cell.dead{background:repeating-linear-gradient(45deg,#eef1f2,#eef1f2 3px,#cfd6d9 3px,#cfd6d9 6px)}
.acq-cell.last{outline:3px solid #111;outline-offset:-3px}
.acq-cell.mine{box-shadow:inset 0 0 0 2px #0a7d32;color:#0a7d32;font-weight:700}
.acq-cell.click{cursor:pointer;background:#c9f2d5}
.acq-cell.click:hover{background:#8fe0a7}
.acq-rack{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}
.acq-tile{min-width:44px;padding:6px 8px;border:1px solid #8a979d;border-radius:4px;background:#f7f3e3;
font-weight:700;text-align:center}
.acq-tile.playable,.acq-tile.found,.acq-tile.grow,.acq-tile.merge{border-color:#0a7d32}
.acq-tile.unplayable_now,.acq-tile.dead{opacity:.45}
button.acq-tile{cursor:pointer}
.acq table{border-collapse:collapse;width:100%;margin-bottom:10px;font-size:13px}
.acq th,.acq td{padding:3px 5px;border-bottom:1px solid #dde3e6;text-align:left;vertical-align:top}
.acq td.n{text-align:right;font-variant-numeric:tabular-nums}
.acq-sw{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.acq-badge{display:inline-block;padding:0 4px;margin:1px;border-radius:3px;color:#fff;font-size:12px}
.acq-cur{background:#fff7d1}
.acq-nw{white-space:nowrap}.acq-maj{font-size:12px;color:#333}
.acq-info{margin:6px 0;color:#444}
.acq-form{border:1px solid #c8d0d4;border-radius:6px;padding:8px;margin:8px 0;background:#fafbfb}
.acq-form label{display:inline-block;margin:3px 10px 3px 0}
.acq-form input[type=number]{width:4em}
.acq-pick{margin:6px 0}.acq-pick button{margin:2px}
@media (max-width:600px){.acq{font-size:13px}.acq-main,.acq-side{flex-basis:100%}
.acq th,.acq td{padding:2px 3px}}
`;

  // Windward's power-up cards, shortened for the players' table (full names in its title)
  const CARD_CODES = {FREE_3_STOCK: "F3", BUY_5_STOCK: "B5", TRADE_2_STOCK: "T2", DRAW_5_TILES: "D5",
                      PLACE_4_TILES: "P4"};

  const {h} = GameHall;     // the page's DOM helper (gamehall.js)

  const money = n => `$${Number(n).toLocaleString("en-US")}`;
  const int = x => { const n = parseInt(x, 10); return isNaN(n) || n < 0 ? 0 : n; };

  // values typed into a form survive re-renders of the same decision
  let memo = {key: null, values: {}};

  const chainColour = (state, name) => (state.chains.find(c => c.name === name) || {colour: "#777"}).colour;

  const playerName = (state, seat) => {
    const p = state.players[seat];
    return p ? p.name : "?";
  };

  /* The decision's choices that play this tile (classic: play_tile; Windward: a placement). */
  const tileChoices = (ctx, tile) => {
    const d = ctx.decision;
    if (!d) return [];
    return d.choices.filter(({action: a}) => (a.play_tile || (a.tile && a.tile.tile)) === tile);
  };

  /* The tiles the decision lets the player click, as a Set. */
  const clickable = ctx => new Set((ctx.decision && ctx.decision.tiles) || []);

  function drawBoard(state, ctx, root, onTile) {
    const grid = h("div", "acq-grid");
    const {rows, cells, columns} = state.board;
    const dead = new Set(state.board.dead);
    const mine = new Set((state.rack || []).map(r => r.tile));
    const click = clickable(ctx);
    for (const row of rows) {
      for (let c = 1; c <= columns; c++) {
        const name = `${c}${row}`;
        const cell = h("div", "acq-cell", name);
        cell.setAttribute("data-tile", name);
        if (Object.hasOwn(cells, name)) {
          const chain = cells[name];
          if (chain) {
            cell.classList.add("chain");
            cell.style.background = chainColour(state, chain);
            cell.title = `${name} ${chain}`;
          } else {
            cell.classList.add("lone");
          }
        } else if (dead.has(name)) {
          cell.classList.add("dead");
        } else if (mine.has(name)) {
          cell.classList.add("mine");
        }
        if (name === state.last_tile) cell.classList.add("last");
        if (click.has(name)) {
          cell.classList.add("click");
          cell.title = `play ${name}`;
          cell.addEventListener("click", () => onTile(name));
        }
        grid.append(cell);
      }
    }
    root.append(grid);
  }

  function drawRack(state, ctx, root, onTile) {
    if (!state.rack) return;
    const box = h("div", "acq-rack");
    box.append(h("span", "acq-info", "Your tiles:"));
    const click = clickable(ctx);
    for (const r of state.rack) {
      const b = h(click.has(r.tile) ? "button" : "span", `acq-tile ${r.status}`, r.tile);
      b.title = r.status.replace("_", " ");
      if (click.has(r.tile)) b.addEventListener("click", () => onTile(r.tile));
      box.append(b);
    }
    root.append(box);
  }

  /* A table's header row of plain column names. */
  const headRow = cols => {
    const tr = h("tr");
    tr.append(...cols.map(x => h("th", null, x)));
    return tr;
  };

  function drawChains(state, root) {
    const t = h("table");
    t.append(headRow(["Chain", "Size", "Price", "Left", "Majority"]));
    const names = seats => seats.map(s => playerName(state, s)).join(", ");
    for (const ch of state.chains) {
      const tr = h("tr");
      const name = h("td", "acq-nw");
      const sw = h("span", "acq-sw");
      sw.style.background = ch.colour;
      name.append(sw, ch.name + (ch.safe ? " (safe)" : ""));
      const maj = h("td", "acq-maj");
      if (ch.first.length) maj.append(h("div", null, `1st ${names(ch.first)}`));
      if (ch.second.length) maj.append(h("div", null, `2nd ${names(ch.second)}`));
      tr.append(name,
        h("td", "n", ch.size || "-"),
        h("td", "n", ch.size ? money(ch.price) : `(${money(ch.price_if_founded)})`),
        h("td", "n", ch.available),
        maj);
      if (!ch.size) tr.style.color = "#8a979d";
      t.append(tr);
    }
    root.append(t);
  }

  function drawPlayers(state, root) {
    const windward = state.game === "windward";
    const t = h("table");
    t.append(headRow(["Player", "Cash", "Shares", windward ? "Score" : "Worth", ...(windward ? ["Cards"] : [])]));
    for (const p of state.players) {
      const turn = p.seat === state.pending;
      const tr = h("tr", turn ? "acq-cur" : null);
      const shares = h("td");
      for (const [c, n] of Object.entries(p.shares)) {
        const b = h("span", "acq-badge", `${c.slice(0, 3)} ${n}`);
        b.style.background = chainColour(state, c);
        b.title = `${n} ${c}`;
        shares.append(b);
      }
      tr.append(
        h("td", null, `${turn ? "\u25b6 " : ""}${p.name}${p.seat === state.seat ? " (you)" : ""}`),
        h("td", "n", money(p.cash)),
        shares,
        h("td", "n", money(p.worth)));
      if (windward) {
        const cards = p.cards || [];
        const td = h("td", "acq-nw", cards.map(c => CARD_CODES[c] || c).join(" "));
        td.title = cards.join(", ") || "no card left";
        tr.append(td);
      }
      t.append(tr);
    }
    root.append(t);
  }

  function numberInput(label, key, max, box) {
    const l = h("label", null, `${label} `);
    const i = h("input");
    Object.assign(i, {type: "number", min: 0, max, step: 1});
    i.value = memo.values[key] !== undefined ? memo.values[key] : 0;
    i.addEventListener("input", () => { memo.values[key] = i.value; });
    l.append(i);
    box.append(l);
    return i;
  }

  /* An option of a select: value and text (as text). */
  const option = (value, text) => {
    const op = h("option", null, text);
    op.value = value;
    return op;
  };

  function select(label, key, options, box) {
    const l = h("label", null, `${label} `);
    const s = h("select");
    s.append(...options.map(([value, text]) => option(value, text)));
    if (memo.values[key] !== undefined) s.value = memo.values[key];
    s.addEventListener("change", () => { memo.values[key] = s.value; });
    l.append(s);
    box.append(l);
    return s;
  }

  /* Sell / trade / keep a defunct chain's shares. */
  function disposeForm(d, f, ctx, box) {
    box.append(h("div", "acq-info", `Your ${f.held} ${f.chain}: sell at ${money(f.price)}, ` +
      `trade 2 for 1 ${f.survivor} (up to ${f.max_trade}), keep the rest.`));
    const sell = numberInput("Sell", "sell", f.held, box);
    const trade = numberInput("Trade", "trade", f.max_trade, box);
    const go = h("button", null, "Dispose");
    go.addEventListener("click", () => {
      const s = int(sell.value), t = int(trade.value);
      ctx.act(d.kind === "merge" ? {merge: {keep: f.held - s - t, sell: s, trade: t}} : {dispose: {sell: s, trade: t}});
    });
    box.append(go);
  }

  /* Classic purchase: a field per chain, each held to what the server would accept. */
  function buyForm(f, ctx, box) {
    box.append(h("div", "acq-info", `Buy up to ${f.max} shares (cash ${money(f.cash)}):`));
    const names = Object.keys(f.chains);
    const inputs = {};
    for (const c of names) inputs[c] = numberInput(`${c} ${money(f.prices[c])}`, `buy:${c}`, f.chains[c], box);
    const total = h("div", "acq-info acq-total");
    // what the server would refuse cannot be typed: each field is held to the shares left
    // in the bank, the shares left this turn and the cash left after the other fields
    const room = c => {
      let n = 0, cost = 0;
      for (const o of names) {
        if (o === c) continue;
        n += int(inputs[o].value);
        cost += int(inputs[o].value) * f.prices[o];
      }
      return Math.max(0, Math.min(f.chains[c], f.max - n, Math.floor((f.cash - cost) / f.prices[c])));
    };
    const bound = changed => {
      const order = changed ? [changed, ...names.filter(c => c !== changed)] : names;
      for (const c of order) {
        const n = Math.min(int(inputs[c].value), room(c));
        if (n < int(inputs[c].value)) { inputs[c].value = n; memo.values[`buy:${c}`] = String(n); }
      }
      let count = 0, cost = 0;
      for (const c of names) {
        inputs[c].max = int(inputs[c].value) + room(c);
        count += int(inputs[c].value);
        cost += int(inputs[c].value) * f.prices[c];
      }
      total.textContent = `${count} share${count === 1 ? "" : "s"} for ${money(cost)}, cash left ${money(f.cash - cost)}`;
    };
    for (const c of names) inputs[c].addEventListener("input", () => bound(c));
    bound(null);
    box.append(total);
    let end = null;
    if (f.can_end) {
      const l = h("label", null, " end the game");
      end = h("input");
      end.type = "checkbox";
      l.prepend(end);
      box.append(l);
    }
    const buy = h("button", null, "Buy");
    buy.addEventListener("click", () => {
      const purchase = {};
      for (const [c, input] of Object.entries(inputs)) {
        const n = int(input.value);
        if (n) purchase[c] = n;
      }
      ctx.act({purchase, end_game: !!(end && end.checked)});
    });
    box.append(buy);
  }

  /* Windward's placement-and-purchase reply: tile, chain founded, survivor, card, shares,
     and with TRADE_2_STOCK up to max_trades [give, get] pairs.  Returns the tile select
     (a board click fills it in). */
  function tilePurchaseForm(state, f, ctx, box) {
    const tiles = f.tiles.length ? f.tiles.map(t => [t, t]) : [["", "(no playable tile)"]];
    const tileSel = select("Tile", "tile", tiles, box);
    const notOn = state.chains.filter(c => !c.size).map(c => [c.name, c.name]);
    const foundSel = select("found", "found", notOn.length ? notOn : [["", "-"]], box);
    const survSel = select("survivor", "survivor", [["", "-"]], box);
    const extra = () => {
      const t = tileSel.value;
      foundSel.parentNode.style.display = f.found[t] ? "" : "none";
      const surv = f.survivor[t] || [];
      survSel.parentNode.style.display = surv.length ? "" : "none";
      survSel.replaceChildren(...surv.map(c => option(c, c)));
    };
    tileSel.addEventListener("change", extra);
    extra();
    const cardSel = select("card", "card", f.cards.map(c => [c, f.card_text[c]]), box);
    box.append(h("div", "acq-info", `Buy (cash ${money(f.cash)}), filled after the tile is placed:`));
    // every chain: one this tile founds may be bought too (the engine refuses the others)
    const orders = {};
    for (const ch of state.chains) {
      const price = ch.size ? money(ch.price) : `(${money(ch.price_if_founded)})`;
      orders[ch.name] = numberInput(`${ch.name} ${price}`, `buy:${ch.name}`, 5, box);
    }
    // TRADE_2_STOCK: up to max_trades pairs (2 shares of one chain for 1 of another)
    const trades = [], tradeBox = h("div");
    const onBoard = [["", "-"], ...state.chains.map(c => [c.name, c.name])];
    for (let k = 0; k < (f.max_trades || 0); k++) {
      const row = h("div", "acq-info", "Trade 2 ");
      trades.push([select("", `give${k}`, onBoard, row), select("for 1", `get${k}`, onBoard, row)]);
      tradeBox.append(row);
    }
    box.append(tradeBox);
    const showTrades = () => { tradeBox.style.display = cardSel.value === "TRADE_2_STOCK" ? "" : "none"; };
    cardSel.addEventListener("change", showTrades);
    showTrades();
    const send = h("button", null, "Place and buy");
    send.addEventListener("click", () => {
      const t = tileSel.value || null;
      const p = {tile: t, card: cardSel.value, buy: [], trade: []};
      if (t && f.found[t]) p.created_hotel = foundSel.value;
      if (t && f.survivor[t]) p.merge_survivor = survSel.value;
      for (const [c, input] of Object.entries(orders)) {
        const n = int(input.value);
        if (n) p.buy.push([c, n]);
      }
      if (p.card === "TRADE_2_STOCK") {
        for (const [give, get] of trades) if (give.value && get.value) p.trade.push([give.value, get.value]);
      }
      ctx.act({tile_purchase: p});
    });
    box.append(send);
    return tileSel;
  }

  /* The decision's form, if it has one: {box, tileSelect} (tileSelect for Windward's reply). */
  function drawForm(state, ctx, root) {
    const d = ctx.decision;
    if (!d || !d.form) return null;
    const f = d.form, box = h("div", "acq-form");
    const key = `${d.kind}:${d.prompt}`;
    if (memo.key !== key) memo = {key, values: {}};
    let tileSelect = null;
    if (f.type === "dispose") disposeForm(d, f, ctx, box);
    else if (f.type === "buy") buyForm(f, ctx, box);
    else if (f.type === "tile_purchase") tileSelect = tilePurchaseForm(state, f, ctx, box);
    root.append(box);
    return {box, tileSelect};
  }

  function infoLines(state) {
    const info = [];
    if (state.over) {
      const best = Math.max(...state.over.scores);
      const winners = state.over.winners.map(s => playerName(state, s)).join(" and ");
      info.push(`Game over (${state.over.reason}): ${winners} wins with ${money(best)}`);
    } else if (state.pending !== null && state.pending !== undefined) {
      info.push(`Waiting for ${playerName(state, state.pending)} (${String(state.phase).replace(/_/g, " ")})`);
    }
    const m = state.merger;
    if (m) {
      info.push(`Merger: ${m.defunct.join(", ")} into ${m.survivor || "?"}` +
        (m.disposing ? `, disposing of ${m.disposing}` : ""));
    }
    info.push(`Tiles left in the bag: ${state.bag}` + (state.last_tile ? ` \u00b7 last tile ${state.last_tile}` : "") +
      (state.can_end ? " \u00b7 the game may be ended" : ""));
    return info;
  }

  function render(el, state, ctx) {
    GameHall.injectCss("acq-css", CSS);
    const main = h("div", "acq-main"), side = h("div", "acq-side");
    const wrap = h("div", "acq");
    wrap.append(main, side);
    el.replaceChildren(wrap);
    const pick = h("div", "acq-pick");
    let form = null;
    const onTile = tile => {
      if (form && form.tileSelect) {           // Windward: the tile goes into the purchase form
        form.tileSelect.value = tile;
        memo.values.tile = tile;
        form.tileSelect.dispatchEvent(new Event("change"));
        return;
      }
      const d = ctx.decision;
      if (d && d.kind === "play_tile") { ctx.act({play_tile: tile}); return; }
      const cs = tileChoices(ctx, tile);
      if (cs.length === 1) { ctx.act(cs[0].action); return; }
      pick.replaceChildren(...cs.map(c => {
        const b = h("button", null, c.label);
        b.addEventListener("click", () => ctx.act(c.action));
        return b;
      }));
    };
    main.append(...infoLines(state).map(t => h("div", "acq-info", t)));
    drawBoard(state, ctx, main, onTile);
    drawRack(state, ctx, main, onTile);
    main.append(pick);
    form = drawForm(state, ctx, main);
    drawChains(state, side);
    drawPlayers(state, side);
  }

  GameHall.registerView("acquire", {render});
  GameHall.registerView("windward", {render});
})();
