/* Euphrates & Tigris board for the gamehall web front end.
   Draws the state from gamehall_et/view.py: the 16x11 board with rivers, tiles,
   temples and treasures, leaders (letter of the role, ring in the dynasty's colour),
   monuments over their 2x2 squares and catastrophes; the players; a seat's own hand
   and score.  In a turn the player picks a piece (a tile colour, a leader, a
   catastrophe, or a leader on the board to move), and the cells it may go to light
   up: a click sends the action.  No libraries; texts go in through textContent. */
(() => {
  "use strict";

  const COLOURS = {red: "#c0392b", green: "#2e8b57", blue: "#2f6fbf", black: "#2b2b2b"};
  const LETTER = {red: "P", green: "T", blue: "F", black: "K"};
  const TITLE = {red: "priest", green: "trader", blue: "farmer", black: "king"};
  const DYNASTY = ["#f1c40f", "#e67e22", "#9b59b6", "#ff6fb5"];
  const COLOUR_NAMES = ["red", "green", "blue", "black"];

  const CSS = `
.et{display:flex;flex-wrap:wrap;gap:12px;font:14px/1.3 system-ui,sans-serif;color:#222}
.et-main{flex:3 1 520px;min-width:0;max-width:860px}
.et-side{flex:1 1 300px;min-width:0}
.et-grid{display:grid;grid-template-columns:repeat(16,1fr);grid-template-rows:repeat(11,auto);gap:1px;
background:#8d7f5a;padding:2px;border-radius:6px;max-width:max(340px,calc((100vh - 240px) * 1.45))}
.et-cell{aspect-ratio:1/1;background:#eadfb8;position:relative;display:flex;align-items:center;
justify-content:center;font-size:clamp(7px,1.5vw,13px);font-weight:700;color:#fff;user-select:none}
.et-cell.river{background:#a9d6ee}
.et-tile{position:absolute;inset:8%;border-radius:3px}
.et-temple::after{content:'';position:absolute;left:30%;right:30%;top:22%;bottom:22%;
border:2px solid rgba(255,255,255,.8);border-top-width:5px}
.et-treasure{position:absolute;width:38%;height:38%;background:#f5c518;border:1px solid #7a5a00;
transform:rotate(45deg);top:31%;left:31%;z-index:2}
.et-treasure.corner{background:#ffe680;border:2px solid #7a5a00}
.et-leader{position:absolute;inset:10%;border-radius:50%;display:flex;align-items:center;
justify-content:center;border:3px solid;z-index:3;font-size:clamp(7px,1.4vw,13px);color:#fff}
.et-cat{position:absolute;inset:6%;background:#555;color:#ffcc00;display:flex;align-items:center;
justify-content:center;border-radius:3px;font-size:clamp(9px,2vw,18px)}
.et-mon{position:relative;z-index:4;border:3px solid #fff;border-radius:6px;margin:14%;opacity:.9;
box-shadow:0 0 0 2px #333}
.et-cell.target{cursor:pointer;box-shadow:inset 0 0 0 3px #00c853;z-index:5}
.et-cell.target:hover{background:#b9f6ca}
.et-cell.hot{box-shadow:inset 0 0 0 3px #ff1744}
.et-cell.own{cursor:pointer}
.et-cell.sel{box-shadow:inset 0 0 0 3px #00c853}
.et-pieces{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0;align-items:center}
.et-piece{border:2px solid #555;border-radius:5px;padding:5px 8px;color:#fff;font-weight:700;cursor:pointer;
min-width:44px}
.et-piece[disabled]{opacity:.35;cursor:default}
.et-piece.on{outline:3px solid #00c853;outline-offset:1px}
.et table{border-collapse:collapse;width:100%;margin-bottom:10px;font-size:13px}
.et th,.et td{padding:3px 4px;border-bottom:1px solid #e0ddd0;text-align:left}
.et td.nm{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:9em}
.et td.n{text-align:right}
.et-dot{display:inline-block;width:12px;height:12px;border-radius:50%;margin-right:2px;vertical-align:-1px}
.et-cur{background:#fff7d1}
.et-discard{flex-basis:100%}.et-discard label{margin-right:8px}
.et-info{margin:6px 0;color:#444}
@media (max-width:600px){.et{font-size:13px}.et-main,.et-side{flex-basis:100%}
.et-leader{border-width:2px}.et-piece{padding:4px 6px}}
`;

  const {h} = GameHall;     // the page's DOM helper (gamehall.js)

  // the piece the player picked, kept while the same decision is pending
  let picked = {key: null, mode: null};

  const name = (state, seat) => {
    const p = state.players[seat];
    return p ? p.name : "?";
  };

  const at = (x, y) => `${x},${y}`;
  const given = x => x !== null && x !== undefined;

  /* A small round swatch (dynasty or leader colour). */
  const dot = (colour, title) => {
    const d = h("span", "et-dot");
    d.style.background = colour;
    if (title) d.title = title;
    return d;
  };

  function infoLines(state) {
    const info = [];
    if (state.over) {
      const winners = state.over.winners.map(s => name(state, s)).join(" and ");
      info.push(`Game over (${state.over.reason.replace("_", " ")}): ${winners} wins`);
    } else if (given(state.pending)) {
      const what = state.phase === "action" ? `action ${state.action} of 2` : state.phase;
      info.push(`Waiting for ${name(state, state.pending)} (${what})`);
    }
    const k = state.conflict;
    if (k) {
      const added = k.attacker_added !== null ? ` + ${k.attacker_added}` : "";
      info.push(`${k.kind === "revolt" ? "Revolt" : `${k.colour} war`}: ${name(state, k.attacker)} ` +
        `(${k.strength[0]}${added}) against ${name(state, k.defender)} (${k.strength[1]}), committing ${k.commit}`);
    } else if (state.war) {
      info.push(`Wars to fight: ${state.war.remaining.join(", ")}`);
    }
    info.push(`Tiles in the bag: ${state.bag} \u00b7 treasures on the board: ${state.treasures.length}`);
    return info;
  }

  /* The board; its cells light up for the picked piece and send the action on a click. */
  function drawBoard(state, ctx, targets, redraw) {
    const d = ctx.decision;
    const grid = h("div", "et-grid"), cells = {};
    const river = new Set(state.river.map(([x, y]) => at(x, y)));
    for (let y = 0; y < state.height; y++) {
      for (let x = 0; x < state.width; x++) {
        const c = h("div", `et-cell${river.has(at(x, y)) ? " river" : ""}`);
        c.style.gridColumn = String(x + 1);
        c.style.gridRow = String(y + 1);
        c.title = at(x, y);
        cells[at(x, y)] = c;
        grid.append(c);
      }
    }
    const cell = (x, y) => cells[at(x, y)];
    for (const [x, y, colour] of state.tiles) {
      const tile = h("div", `et-tile${colour === "red" ? " et-temple" : ""}`);
      tile.style.background = COLOURS[colour];
      cell(x, y).append(tile);
      cell(x, y).title += ` ${colour}${colour === "red" ? " temple" : " tile"}`;
    }
    for (const [x, y, corner] of state.treasures) {
      cell(x, y).append(h("div", `et-treasure${corner ? " corner" : ""}`));
      cell(x, y).title += " treasure";
    }
    for (const [x, y] of state.catastrophes) {
      cell(x, y).append(h("div", "et-cat", "\u2715"));
      cell(x, y).title += " catastrophe";
    }
    for (const [x, y, seat, colour] of state.leaders) {
      const lead = h("div", "et-leader", LETTER[colour]);
      lead.style.background = COLOURS[colour];
      lead.style.borderColor = DYNASTY[seat % DYNASTY.length];
      const c = cell(x, y);
      c.append(lead);
      c.title += ` ${name(state, seat)}'s ${TITLE[colour]}`;
      const mode = `move:${at(x, y)}`;
      if (d && d.kind === "action" && seat === ctx.seat && targets[mode]) {
        c.classList.add("own");
        if (picked.mode === mode) c.classList.add("sel");
        c.addEventListener("click", () => { picked.mode = picked.mode === mode ? null : mode; redraw(); });
      }
    }
    for (const m of state.monuments) {
      const mon = h("div", "et-mon");
      mon.style.gridColumn = `${m.x + 1} / span 2`;
      mon.style.gridRow = `${m.y + 1} / span 2`;
      mon.style.background = `linear-gradient(135deg,${COLOURS[m.colours[0]]} 50%,${COLOURS[m.colours[1]]} 50%)`;
      mon.title = `${m.colours.join("-")} monument`;
      grid.append(mon);
    }
    if (state.war) cell(...state.war.tile).classList.add("hot");
    if (state.conflict) {
      cell(...state.conflict.attacker_cell).classList.add("hot");
      cell(...state.conflict.defender_cell).classList.add("hot");
    }
    if (picked.mode && targets[picked.mode]) {
      for (const [x, y] of targets[picked.mode]) {
        const c = cell(x, y);
        c.classList.add("target");
        c.addEventListener("click", () => ctx.act(actionFor(picked.mode, x, y)));
      }
    }
    return grid;
  }

  function playersTable(state) {
    const t = h("table"), head = h("tr");
    for (const [text, title] of [["Player", ""], ["Tiles", "tiles in hand"], ["Leaders", "leaders in hand"],
                                 ["Cat.", "catastrophes left"], ["Tr.", "treasures taken"]]) {
      const th = h("th", null, text);
      th.title = title;
      head.append(th);
    }
    t.append(head);
    for (const p of state.players) {
      const tr = h("tr", p.seat === state.pending ? "et-cur" : null);
      const nm = h("td", "nm");
      nm.title = p.name;
      const dyn = dot(DYNASTY[p.seat % DYNASTY.length]);
      dyn.style.border = "1px solid #555";
      nm.append(dyn, p.name + (p.seat === state.seat ? " (you)" : ""));
      const leaders = h("td");
      leaders.append(...p.leaders.map(c => dot(COLOURS[c], `${TITLE[c]} in hand`)));
      tr.append(nm, h("td", "n", p.hand), leaders, h("td", "n", p.catastrophes), h("td", "n", p.treasures));
      t.append(tr);
    }
    return t;
  }

  /* At the end: the ranking with every player's colours. */
  function finalTable(state) {
    const ft = h("table"), fh = h("tr");
    fh.append(...["Place", "Player", "Score", "red", "green", "blue", "black", "treas."].map(x => h("th", null, x)));
    ft.append(fh);
    for (const f of [...state.over.final].sort((a, b) => a.position - b.position)) {
      const tr = h("tr");
      const cols = [f.position, name(state, f.seat), f.score, f.colours.red, f.colours.green, f.colours.blue,
                    f.colours.black, f.wild];
      tr.append(...cols.map((v, i) => h("td", i === 1 ? null : "n", v)));
      ft.append(tr);
    }
    return ft;
  }

  function render(el, state, ctx) {
    GameHall.injectCss("et-css", CSS);
    const d = ctx.decision;
    const key = d ? `${d.kind}:${d.prompt}` : null;
    if (picked.key !== key) picked = {key, mode: null};
    const targets = (d && d.targets) || {};
    if (d && d.kind === "treasure") picked.mode = "take";
    const redraw = () => render(el, state, ctx);
    const main = h("div", "et-main"), side = h("div", "et-side");
    const wrap = h("div", "et");
    wrap.append(main, side);
    el.replaceChildren(wrap);

    main.append(...infoLines(state).map(t => h("div", "et-info", t)));
    main.append(drawBoard(state, ctx, targets, redraw));
    if (state.hand) main.append(pieces(state, ctx, targets, redraw));

    // side: players, own score, monuments left
    side.append(playersTable(state));
    if (state.score) {
      const s = state.score;
      side.append(h("div", "et-info",
        `Your points: red ${s.red}, green ${s.green}, blue ${s.blue}, black ${s.black}, treasures ${s.treasures}`));
    } else if (!state.over) {
      side.append(h("div", "et-info", "Scores are secret until the end (the log shows who scores)."));
    }
    if (state.over) side.append(finalTable(state));
    side.append(h("div", "et-info", `Monuments left: ${state.monuments_left.map(m => m.join("-")).join(", ") || "none"}`));
  }

  function actionFor(mode, x, y) {
    const [kind, what] = mode.split(":");
    if (kind === "tile") return {tile: {colour: what, x, y}};
    if (kind === "leader") return {leaderadd: {colour: what, x, y}};
    if (kind === "catastrophe") return {catastrophe: {x, y}};
    if (kind === "take") return {take: {x, y}};
    const [fromX, fromY] = what.split(",").map(n => parseInt(n, 10));
    return {leadermove: {x: fromX, y: fromY, to_x: x, to_y: y}};
  }

  function pieces(state, ctx, targets, redraw) {
    const box = h("div", "et-pieces");
    const acting = ctx.decision && ctx.decision.kind === "action";
    box.append(h("span", null, "Your hand:"));
    const button = (mode, text, colour, title) => {
      const b = h("button", `et-piece${picked.mode === mode ? " on" : ""}`, text);
      b.style.background = colour;
      b.title = title;
      if (!acting || !targets[mode]) b.disabled = true;
      b.addEventListener("click", () => { picked.mode = picked.mode === mode ? null : mode; redraw(); });
      box.append(b);
    };
    for (const c of COLOUR_NAMES) {
      if (state.hand[c]) button(`tile:${c}`, String(state.hand[c]), COLOURS[c], `${state.hand[c]} ${c} tiles`);
    }
    const me = state.players[state.seat];
    for (const c of me.leaders) button(`leader:${c}`, LETTER[c], COLOURS[c], `your ${TITLE[c]} (${c} leader)`);
    if (me.catastrophes) button("catastrophe", `\u2715 ${me.catastrophes}`, "#555", "catastrophe tiles");
    if (acting) {
      box.append(h("span", "et-info", picked.mode ? "click a green-framed cell" :
        "pick a piece, or one of your leaders on the board to move it"));
      box.append(discardForm(state, ctx));
    }
    return box;
  }

  // discard some tiles (draw as many): one number per colour
  function discardForm(state, ctx) {
    const form = h("details", "et-discard");
    form.append(h("summary", null, "Discard tiles\u2026"));
    const inputs = {};
    for (const c of COLOUR_NAMES) {
      const l = h("label", null, `${c} `);
      const i = h("input");
      Object.assign(i, {type: "number", min: 0, max: state.hand[c], value: 0});
      i.style.width = "3.5em";
      inputs[c] = i;
      l.append(i);
      form.append(l);
    }
    const go = h("button", null, "Discard and draw");
    go.addEventListener("click", () => {
      const discard = {};
      for (const [c, input] of Object.entries(inputs)) {
        const n = parseInt(input.value, 10);
        discard[c] = isNaN(n) || n < 0 ? 0 : n;
      }
      ctx.act({discard});
    });
    form.append(go);
    return form;
  }

  GameHall.registerView("et", {render});
})();
