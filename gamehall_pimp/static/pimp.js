/* Monopoly (PIMP) board for the gamehall web front end.
   Draws the state from gamehall_pimp/view.py: the 40 squares round an 11x11 grid
   (group colour, owner, houses and hotels, mortgages, the players' tokens), the
   dice, pot, sale and auction in the middle, the players beside it, and for a seat
   its own claims and transactions.  Clicking one of your properties offers what
   you may do with it (mortgage, build, sell) when the engine would accept it.
   No libraries; every text goes in through textContent. */
(() => {
  "use strict";

  const SEATS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324"];

  // the players' table has three columns (where a player stands goes under the name) so
  // that it fits the side column beside the board on a 1280 px page; a long name breaks
  // rather than widen it
  const CSS = `
.pm{display:flex;flex-wrap:wrap;gap:12px;font:14px/1.3 system-ui,sans-serif;color:#222}
.pm-main{flex:3 1 520px;min-width:0;max-width:min(780px,calc(100vh - 150px))}
.pm-side{flex:1 1 280px;min-width:0}
.pm-board{display:grid;grid-template-columns:1.5fr repeat(9,1fr) 1.5fr;
grid-template-rows:1.5fr repeat(9,1fr) 1.5fr;aspect-ratio:1/1;gap:1px;background:#2f4f3a;padding:2px;
border-radius:4px;width:100%}
.pm-sq{background:#d9ead3;position:relative;overflow:hidden;display:flex;flex-direction:column;
font-size:clamp(5px,.9vw,10px);line-height:1.05;text-align:center;min-width:0;min-height:0}
.pm-bar{flex:0 0 22%}
.pm-name{flex:1 1 auto;padding:1px 0;overflow:hidden;white-space:normal}
.pm-price{font-size:.9em;color:#333}
.pm-sq.mort{background:repeating-linear-gradient(45deg,#d9ead3,#d9ead3 4px,#b9c4b6 4px,#b9c4b6 8px)}
.pm-sq.mine{cursor:pointer}
.pm-sq.mine:hover{outline:2px solid #00c853;outline-offset:-2px}
.pm-owner{position:absolute;right:1px;bottom:1px;width:28%;height:14%;min-width:5px;min-height:4px;
border-radius:2px;border:1px solid #000}
.pm-bld{position:absolute;left:1px;top:1px;display:flex;gap:1px}
.pm-house{width:clamp(4px,.8vw,8px);height:clamp(4px,.8vw,8px);background:#0a8f2f;border:1px solid #043}
.pm-hotel{width:clamp(8px,1.5vw,14px);height:clamp(5px,.9vw,9px);background:#c62828;border:1px solid #500}
.pm-toks{position:absolute;left:1px;bottom:1px;display:flex;flex-wrap:wrap;gap:1px;max-width:70%}
.pm-tok{width:clamp(10px,1.4vw,14px);height:clamp(10px,1.4vw,14px);border-radius:50%;border:1px solid #000;
color:#fff;font-size:clamp(5px,.9vw,9px);display:flex;align-items:center;justify-content:center;font-weight:700}
.pm-centre{grid-column:2 / span 9;grid-row:2 / span 9;background:#eaf4e6;display:flex;flex-direction:column;
align-items:center;justify-content:center;gap:6px;padding:6px;text-align:center;font-size:clamp(10px,1.6vw,15px)}
.pm-title{font-weight:800;letter-spacing:.2em;color:#b71c1c;font-size:1.6em}
.pm-die{display:inline-block;width:1.8em;height:1.8em;line-height:1.8em;background:#fff;border:1px solid #333;
border-radius:4px;margin:0 2px;font-weight:700}
.pm table{border-collapse:collapse;width:100%;margin-bottom:10px}
.pm th,.pm td{padding:3px 5px;border-bottom:1px solid #dde3e6;text-align:left}
.pm td.n{text-align:right}
.pm-cur{background:#fff7d1}
.pm-nm{overflow-wrap:anywhere}.pm-where{font-size:12px;color:#555;margin-left:19px}
.pm-dot{display:inline-block;width:15px;height:15px;border-radius:50%;margin-right:4px;vertical-align:-2px;
border:1px solid #000;color:#fff;font-size:10px;font-weight:700;text-align:center;line-height:15px}
.pm-box{border:1px solid #c8d0d4;border-radius:6px;padding:6px 8px;margin:6px 0;background:#fafbfb}
.pm-pick button{margin:2px}
.pm-offer{margin-top:4px}.pm-offer>*{margin:2px}
.pm-info{margin:4px 0;color:#444}
@media (max-width:600px){.pm{font-size:13px}.pm-main,.pm-side{flex-basis:100%;max-width:100%}
.pm-name{display:none}.pm-bar{flex-basis:30%}}
`;

  const {h} = GameHall;     // the page's DOM helper (gamehall.js)

  const money = n => `$${Number(n).toLocaleString("en-US")}`;
  const seatColour = seat => SEATS[seat % SEATS.length];
  const given = x => x !== null && x !== undefined;

  // grid cell (row, column), 1-based, of square i: Go bottom right, then clockwise
  function place(i) {
    if (i <= 10) return [11, 11 - i];
    if (i <= 20) return [11 - (i - 10), 1];
    if (i <= 30) return [1, 1 + (i - 20)];
    return [1 + (i - 30), 11];
  }

  // square names short enough for a board cell (the full name is the cell's title)
  const shortName = n => n.replace(/ (Avenue|Place|Gardens)$/, "").replace("Railroad", "RR")
    .replace("Community Chest", "Chest").replace("Electric Company", "Electric");

  const name = (state, seat) => (state.players.find(p => p.seat === seat) || {name: "?"}).name;

  /* A button that acts. */
  const actButton = (ctx, label, action) => {
    const b = h("button", null, label);
    b.addEventListener("click", () => ctx.act(action));
    return b;
  };

  /* Square i of the board: colour bar, name and price, owner, buildings, tokens; one of
     the seat's properties offers its moves (in pick) on a click. */
  function square(state, ctx, sq, i, tokens, props, pick) {
    const cell = h("div", "pm-sq");
    const [row, column] = place(i);
    cell.style.gridRow = String(row);
    cell.style.gridColumn = String(column);
    let title = sq.name;
    if (sq.colour) {
      const bar = h("div", "pm-bar");
      bar.style.background = sq.colour;
      cell.append(bar);
    }
    const nm = h("div", "pm-name", shortName(sq.name));
    if (sq.price) nm.append(h("div", "pm-price", money(sq.price)));
    cell.append(nm);
    if (given(sq.owner)) {
      const own = h("div", "pm-owner");
      own.style.background = seatColour(sq.owner);
      cell.append(own);
      title += ` \u2014 ${name(state, sq.owner)}${sq.mortgaged ? " (mortgaged)" : ""}`;
    }
    if (sq.mortgaged) cell.classList.add("mort");
    if (sq.houses || sq.hotel) {
      const bld = h("div", "pm-bld");
      if (sq.hotel) bld.append(h("div", "pm-hotel"));
      for (let k = 0; k < (sq.houses || 0); k++) bld.append(h("div", "pm-house"));
      cell.append(bld);
      title += sq.hotel ? ", a hotel" : `, ${sq.houses} house${sq.houses > 1 ? "s" : ""}`;
    }
    if (tokens.has(i)) {
      const toks = h("div", "pm-toks");
      for (const p of tokens.get(i)) {
        const t = h("div", "pm-tok", p.seat + 1);
        t.style.background = seatColour(p.seat);
        t.title = p.name;
        toks.append(t);
      }
      cell.append(toks);
    }
    const mine = sq.prop !== undefined ? props[String(sq.prop)] : null;
    if (mine) {
      cell.classList.add("mine");
      cell.addEventListener("click", () => {
        pick.replaceChildren(h("div", "pm-info", `${sq.name}:`), ...mine.map(c => actButton(ctx, c.label, c.action)));
      });
    }
    cell.title = title;
    return cell;
  }

  /* The middle of the board: whose turn, the dice, a sale, an auction, the pot, the bank. */
  function centre(state) {
    const box = h("div", "pm-centre");
    box.append(h("div", "pm-title", "MONOPOLY"));
    if (state.over) {
      box.append(h("div", null, state.winner !== null ? `${name(state, state.winner)} wins` : "Game over"));
    } else if (given(state.turn)) {
      box.append(h("div", null, `${name(state, state.turn)}'s turn (${state.phase})`));
    } else {
      box.append(h("div", null, "Waiting for players"));
    }
    if (state.dice && (state.dice[0] || state.dice[1])) {
      const dice = h("div");
      dice.append(h("span", "pm-die", state.dice[0]), h("span", "pm-die", state.dice[1]));
      box.append(dice);
    }
    if (state.sale) box.append(h("div", null, `For sale: ${state.sale}`));
    const a = state.auction;
    if (a) {
      box.append(h("div", null, `Auction: ${a.property}, high bid ${money(a.high)}` +
        (a.leader !== null ? ` by ${name(state, a.leader)}` : "")));
    }
    if (given(state.pot)) box.append(h("div", null, `Pot: ${money(state.pot)}`));
    box.append(h("div", "pm-info", `Bank: ${state.bank.houses} houses, ${state.bank.hotels} hotels`));
    return box;
  }

  function playersTable(state) {
    const t = h("table"), head = h("tr");
    head.append(...["Player", "Cash", "Worth"].map(x => h("th", null, x)));
    t.append(head);
    for (const p of state.players) {
      const tr = h("tr", p.seat === state.pending ? "pm-cur" : null);
      const nm = h("td", "pm-nm");
      const dot = h("span", "pm-dot", p.seat + 1);
      dot.style.background = seatColour(p.seat);
      nm.append(dot, p.name + (p.seat === state.seat ? " (you)" : "") +
        (p.playing ? "" : " (not playing)") + (p.afk ? " (away)" : ""));
      let where = p.playing ? state.squares[p.square].name + (p.jail ? " (in jail)" : "") : "";
      if (p.cards.length) where += `${where ? " \u00b7 " : ""}${p.cards.length} jail card${p.cards.length > 1 ? "s" : ""}`;
      if (where) nm.append(h("div", "pm-where", where));
      tr.append(nm,
        h("td", "n", money(p.cash) + (p.escrow ? ` +${money(p.escrow)} held` : "")),
        h("td", "n", p.playing ? money(p.worth) : ""));
      t.append(tr);
    }
    return t;
  }

  /* A trade or a debt: both sides' offers, and the seat's own offer form while it is open. */
  function transaction(state, ctx, tx) {
    const box = h("div", "pm-box");
    box.append(h("b", null, `${tx.kind === "trade" ? "Trade" : `Debt (${tx.kind})`} #${tx.id}` +
      (tx.required ? `: ${money(tx.required)} owed` : "")));
    for (const [who, side] of [["You offer", tx.you], [tx.other ? `${tx.other.name} offers` : null, tx.other]]) {
      if (!who || !side) continue;
      const bits = [money(side.cash), ...side.properties, ...side.cards];
      box.append(h("div", null, `${who}: ${bits.join(", ")} (${side.stage})`));
    }
    if (tx.you.stage === "open" && (tx.kind === "trade" || tx.required)) box.append(offerForm(state, ctx, tx));
    return box;
  }

  function render(el, state, ctx) {
    GameHall.injectCss("pm-css", CSS);
    const d = ctx.decision, props = (d && d.properties) || {};
    const main = h("div", "pm-main"), side = h("div", "pm-side");
    const wrap = h("div", "pm");
    wrap.append(main, side);
    el.replaceChildren(wrap);
    const pick = h("div", "pm-pick");

    const board = h("div", "pm-board");
    const tokens = new Map();            // square -> the players (still playing) on it
    for (const p of state.players) {
      if (!p.playing) continue;
      if (!tokens.has(p.square)) tokens.set(p.square, []);
      tokens.get(p.square).push(p);
    }
    board.append(...state.squares.map((sq, i) => square(state, ctx, sq, i, tokens, props, pick)), centre(state));
    main.append(board);
    if (Object.keys(props).length) main.append(h("div", "pm-info", "Click one of your properties to mortgage, build or sell."));
    main.append(pick);

    side.append(playersTable(state));
    if (state.claims && state.claims.length) {
      const cb = h("div", "pm-box");
      cb.append(h("b", null, "Your claims"), ...state.claims.map(c => h("div", null, c)));
      side.append(cb);
    }
    side.append(...(state.transactions || []).map(tx => transaction(state, ctx, tx)));
    if (state.mine && state.mine.length) {
      side.append(h("div", "pm-info", `Your properties: ${state.mine.map(m => m.name).join(", ")}`));
    }
    if (state.candidates && state.candidates.length) {
      side.append(h("div", "pm-info", `Asking to join: ${state.candidates.map(c => c.name).join(", ")}`));
    }
  }

  // your side of an open deal: cash, and (in a trade, or to pay a debt) your properties
  function offerForm(state, ctx, tx) {
    const form = h("div", "pm-offer");
    const cash = h("input");
    Object.assign(cash, {type: "number", min: 0, value: tx.you.cash});
    cash.style.width = "6em";
    cash.setAttribute("aria-label", "cash offered");
    const set = h("button", null, "Offer cash");
    set.addEventListener("click", () => {
      const n = parseInt(cash.value, 10);
      ctx.act({msg: "TRANSACTION_SET_CASH", args: [tx.id, isNaN(n) || n < 0 ? 0 : n]});
    });
    form.append(cash, set);
    const offered = new Set(tx.you.props);
    const free = (state.mine || []).filter(m => !offered.has(m.prop));
    if (free.length) {
      const sel = h("select");
      for (const m of free) {
        const o = h("option", null, m.name);
        o.value = m.prop;
        sel.append(o);
      }
      const add = h("button", null, "Add property");
      add.addEventListener("click", () => {
        ctx.act({msg: "TRANSACTION_ADD_PROPERTY", args: [tx.id, parseInt(sel.value, 10)]});
      });
      form.append(sel, add);
    }
    tx.you.props.forEach((p, i) => {
      form.append(actButton(ctx, `Take back ${tx.you.properties[i]}`, {msg: "TRANSACTION_REMOVE_PROPERTY", args: [tx.id, p]}));
    });
    return form;
  }

  GameHall.registerView("pimp", {render});
})();
