/* The standings (/standings) and a player's page (/players/NAME): plain JS, no library.
 * Every text from the hall (names above all) reaches the page through textContent: never
 * as HTML.  Data comes over the hall's WebSocket (docs/web.md: standings, player,
 * head_to_head); the page's state is in its address, so every view is a link to share. */
"use strict";

(() => {
  const $ = id => document.getElementById(id);
  let ws = null;
  let retry = 0;
  const P = {titles: {}, player: null, chartKey: null};

  /* el("div.card", {id: "x", onclick: f}, "text", child...): strings become text nodes. */
  function el(spec, attrs, ...children) {
    const [tag, ...classes] = spec.split(".");
    const node = document.createElement(tag || "div");
    if (classes.length) node.className = classes.join(" ");
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  /* Each cell gets its column's heading as data-label (as text): on a phone the rows are
   * drawn as cards, the "lead" cells on the first line, the others labelled below. */
  function labelled(table) {
    const heads = [...table.querySelectorAll("thead th")].map(th => th.textContent);
    for (const row of table.querySelectorAll("tbody tr"))
      [...row.children].forEach((td, i) => { if (heads[i]) td.setAttribute("data-label", heads[i]); });
    return table;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  function banner(text) {
    const b = $("banner");
    b.hidden = !text;
    b.className = "error";
    b.textContent = text || "";
  }

  function setConn(text) {
    const c = $("conn");
    c.textContent = text;
    c.className = "conn " + (text === "live" ? "live" : "down");
  }

  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }

  const fmtDate = epoch => epoch ? new Date(epoch * 1000).toLocaleDateString(undefined, {year: "numeric", month: "short", day: "numeric"}) : "";
  const fmtRating = r => (Math.round(r * 10) / 10).toFixed(1);
  const ordinal = n => n + ((n % 100 >= 11 && n % 100 <= 13) ? "th" : ({1: "st", 2: "nd", 3: "rd"}[n % 10] || "th"));
  const placesText = places => Object.entries(places || {}).sort((a, b) => a[0] - b[0])
    .map(([place, n]) => `${ordinal(+place)} ×${n}`).join(" · ");
  const playerHref = name => "/players/" + encodeURIComponent(name);
  const gameOf = key => key.split("/")[0];

  /* "acquire/classic/4+p" -> "Acquire, classic, 4 or more players" */
  function keyLabel(key, withGame) {
    const parts = key.split("/");
    const bits = [];
    if (withGame) bits.push(P.titles[parts[0]] || parts[0]);
    let count = null;
    const last = parts[parts.length - 1];
    if (parts.length > 1 && /^\d+\+?p$/.test(last)) { count = last; parts.pop(); }
    if (parts.length > 1) bits.push(parts.slice(1).join("/"));
    bits.push(count === null ? "any number of players" : count.endsWith("+p") ? `${parseInt(count, 10)} or more players` : `${parseInt(count, 10)} players`);
    return bits.join(", ");
  }

  function provisional(row) {
    return row.provisional ? [" ", el("span.provisional", {title: "fewer than 10 rated games"}, "provisional")] : null;
  }

  // ---------------------------------------------------------------- standings
  function askStandings() {
    const q = new URLSearchParams(location.search);
    const msg = {type: "standings"};
    if (q.get("key")) msg.key = q.get("key");
    else if (q.get("game")) msg.game = q.get("game");
    const offset = parseInt(q.get("offset") || "0", 10);
    if (offset > 0) msg.offset = offset;
    send(msg);
  }

  function go(query) {
    history.pushState(null, "", "/standings" + (query ? "?" + query : ""));
    askStandings();
  }

  function renderStandings(m) {
    P.titles = m.titles || {};
    document.title = m.key ? `Standings: ${keyLabel(m.key, true)}` : "gamehall standings";
    const main = $("main");
    if (!m.keys.length) {
      main.replaceChildren(el("section.card", null, el("h1", null, "Standings"),
        el("p.muted", {id: "standings-empty"}, "No game has been rated yet: a finished game with a registered player is.")));
      return;
    }
    const games = [...new Set(m.keys.map(k => gameOf(k.key)))];
    const current = m.key ? gameOf(m.key) : games[0];
    const gameSelect = el("select", {id: "standings-game", onchange: () => go("game=" + encodeURIComponent(gameSelect.value))},
      games.map(g => el("option", {value: g, selected: g === current}, P.titles[g] || g)));
    const keySelect = el("select", {id: "standings-key", onchange: () => go("key=" + encodeURIComponent(keySelect.value))},
      m.keys.filter(k => gameOf(k.key) === current).map(k =>
        el("option", {value: k.key, selected: k.key === m.key}, `${keyLabel(k.key, false)} (${k.players})`)));
    const rows = m.rows.map(r => el("tr", null,
      el("td.num.lead", null, r.rank),
      el("td.lead", null, el("a", {href: playerHref(r.name)}, r.name)),
      el("td.num.lead.push", null, fmtRating(r.rating), provisional(r)),
      el("td.num", null, r.games),
      el("td", null, placesText(r.places)),
      el("td", null, fmtDate(r.last_played))));
    const more = [];
    if (m.offset > 0) more.push(el("a", {href: "#", id: "standings-prev", onclick: ev => { ev.preventDefault(); go(`key=${encodeURIComponent(m.key)}&offset=${Math.max(0, m.offset - m.page)}`); }}, "Better ranked"));
    if (m.rows.length === m.page) more.push(el("a", {href: "#", id: "standings-next", onclick: ev => { ev.preventDefault(); go(`key=${encodeURIComponent(m.key)}&offset=${m.offset + m.page}`); }}, "Next"));
    main.replaceChildren(el("section.card.standings", null,
      el("h1", null, "Standings"),
      el("div.standings-filter", null,
        el("label", null, "Game", gameSelect),
        el("label", null, "Players", keySelect)),
      el("p.muted", null, "Rating: the mean minus three deviations of the player's openskill rating, so it rises as results confirm it; provisional for the first 10 games."),
      labelled(el("table.ratings-table", {id: "standings-table"},
        el("thead", null, el("tr", null, el("th.num", null, "#"), el("th", null, "Player"), el("th.num", null, "Rating"),
          el("th.num", null, "Games"), el("th", null, "Places"), el("th", null, "Last played"))),
        el("tbody", null, rows))),
      more.length ? el("p", null, ...more.flatMap((a, i) => i ? [" · ", a] : [a])) : null));
  }

  // ---------------------------------------------------------------- a player
  const pageName = () => decodeURIComponent(location.pathname.slice("/players/".length));

  function askPlayer() {
    send({type: "player", name: pageName()});
    const vs = new URLSearchParams(location.search).get("vs");
    if (vs) send({type: "head_to_head", name: pageName(), other: vs});
  }

  function chart(history, key) {
    const points = history.filter(h => h.rating_key === key);
    const W = 640, H = 240, L = 44, R = 12, T = 12, B = 28;
    const box = svg("svg", {id: "rating-chart", class: "rating-chart", viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": `rating over ${points.length} games`});
    if (!points.length) return box;
    const lows = points.map(p => p.rating), highs = points.map(p => p.mu);
    let lo = Math.min(0, ...lows), hi = Math.max(...highs, ...lows) + 1;
    const x = i => L + (points.length === 1 ? (W - L - R) / 2 : (W - L - R) * i / (points.length - 1));
    const y = v => T + (H - T - B) * (hi - v) / (hi - lo);
    const step = Math.max(1, Math.ceil((hi - lo) / 6 / 5) * 5);
    for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
      box.append(svg("line", {class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v)}));
      box.append(svg("text", {class: "axis", x: L - 6, y: y(v) + 4, "text-anchor": "end"}, v));
    }
    box.append(svg("text", {class: "axis", x: L, y: H - 8}, "game 1"));
    box.append(svg("text", {class: "axis", x: W - R, y: H - 8, "text-anchor": "end"}, `game ${points.length}`));
    // the band: the model's mean (top) down to the rating shown (mean - 3 deviations)
    const band = points.map((p, i) => `${x(i)},${y(p.mu)}`).concat(points.map((p, i) => `${x(i)},${y(p.rating)}`).reverse());
    box.append(svg("polygon", {class: "band", points: band.join(" ")}));
    box.append(svg("polyline", {class: "line", id: "rating-line", points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" ")}));
    points.forEach((p, i) => {
      const dot = svg("circle", {class: "point", cx: x(i), cy: y(p.rating), r: points.length > 120 ? 1.5 : 3});
      dot.append(svg("title", null, `${fmtDate(p.finished)}: ${ordinal(p.place)} of ${p.players}, rating ${fmtRating(p.rating)} (game #${p.table_id})`));
      box.append(dot);
    });
    return box;
  }

  function renderPlayer(m) {
    P.player = m;
    P.titles = m.titles || {};
    document.title = `${m.name}: gamehall player`;
    const keys = m.ratings.map(r => r.rating_key);
    if (!keys.includes(P.chartKey)) {
      P.chartKey = m.ratings.length ? m.ratings.reduce((a, b) => b.games > a.games ? b : a).rating_key : null;
    }
    const ratings = m.ratings.length ? labelled(el("table.ratings-table", {id: "player-ratings"},
      el("thead", null, el("tr", null, el("th", null, "Rating of"), el("th.num", null, "Rating"), el("th.num", null, "Games"),
        el("th", null, "Places"), el("th", null, "Last played"))),
      el("tbody", null, m.ratings.map(r => el("tr", null,
        el("td.lead", null, el("a", {href: "/standings?key=" + encodeURIComponent(r.rating_key)}, keyLabel(r.rating_key, true))),
        el("td.num.lead.push", null, fmtRating(r.rating), provisional(r)),
        el("td.num", null, r.games),
        el("td", null, placesText(r.places)),
        el("td", null, fmtDate(r.last_played)))))))
      : el("p.muted", {id: "player-unrated"}, "No rated game yet: ratings count finished games with a registered player.");
    const chartSelect = el("select", {id: "chart-key", onchange: () => { P.chartKey = chartSelect.value; $("rating-chart").replaceWith(chart(m.history, P.chartKey)); }},
      keys.map(k => el("option", {value: k, selected: k === P.chartKey}, keyLabel(k, true))));
    const games = labelled(el("table.ratings-table", {id: "player-games"},
      el("thead", null, el("tr", null, el("th", null, "Finished"), el("th", null, "Game"), el("th", null, "Place"),
        el("th.num", null, "Rating after"), el("th", null, "Replay"))),
      el("tbody", null, m.games.map(g => el("tr", null,
        el("td", null, fmtDate(g.finished)),
        el("td.lead", null, keyLabel(g.rating_key, true)),
        el("td", null, `${ordinal(g.place)} of ${g.players}`),
        el("td.num", null, fmtRating(g.rating)),
        el("td.lead.push", null, el("a", {href: `/records/${g.table_id}`}, `#${g.table_id}`)))))));
    const vs = el("input", {id: "vs-name", placeholder: "another player's name", maxlength: 48,
      value: new URLSearchParams(location.search).get("vs") || ""});
    const compare = ev => {
      ev.preventDefault();
      const other = vs.value.trim();
      if (!other) return;
      history.replaceState(null, "", location.pathname + "?vs=" + encodeURIComponent(other));
      send({type: "head_to_head", name: m.name, other});
    };
    $("main").replaceChildren(
      el("h1", {id: "player-name"}, m.name),
      el("div.player-grid", null,
        el("section.card", null, el("h2", null, "Rating over time"),
          keys.length ? el("label", null, "Rating of", chartSelect) : null,
          chart(m.history, P.chartKey),
          el("p.muted", null, "The line is the rating shown (mean − 3 deviations); the band reaches up to the mean.")),
        el("section.card", null, el("h2", null, "Ratings and places"), ratings)),
      el("section.card", null, el("h2", null, "Head to head"),
        el("form.h2h-form", {onsubmit: compare},
          el("label", null, "Against", vs), el("button", {id: "vs-go", type: "submit"}, "Compare")),
        el("div", {id: "h2h"})),
      el("section.card", null, el("h2", null, `Last ${m.games.length} rated games`), games));
  }

  function renderHeadToHead(m) {
    const box = $("h2h");
    if (!box) return;
    const summary = m.games
      ? `${m.name} and ${m.other} played ${m.games} rated game${m.games === 1 ? "" : "s"} together: ${m.name} placed better in ${m.wins}, worse in ${m.losses}, level in ${m.ties}.`
      : `${m.name} and ${m.other} have played no rated game together.`;
    box.replaceChildren(el("p.h2h-summary", {id: "h2h-summary"}, summary),
      m.last.length ? labelled(el("table.ratings-table", {id: "h2h-games"},
        el("thead", null, el("tr", null, el("th", null, "Finished"), el("th", null, "Game"),
          el("th", null, m.name), el("th", null, el("a", {href: playerHref(m.other)}, m.other)), el("th", null, "Replay"))),
        el("tbody", null, m.last.map(g => el("tr", null,
          el("td", null, fmtDate(g.finished)), el("td.lead", null, keyLabel(g.rating_key, true)),
          el("td", null, ordinal(g.place)), el("td", null, ordinal(g.other_place)),
          el("td.lead.push", null, el("a", {href: `/records/${g.table_id}`}, `#${g.table_id}`))))))) : null);
  }

  // ---------------------------------------------------------------- wiring
  const handlers = {
    hello() { location.pathname === "/standings" ? askStandings() : askPlayer(); },
    standings: renderStandings,
    player: renderPlayer,
    head_to_head: renderHeadToHead,
    error(m) { banner(m.message); },
  };

  function connect() {
    ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
    setConn("connecting…");
    ws.onopen = () => { retry = 0; setConn("live"); };
    ws.onmessage = ev => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg && handlers[msg.type]) { banner(null); handlers[msg.type](msg); }
    };
    ws.onclose = () => {
      setConn("reconnecting…");
      setTimeout(connect, Math.min(10000, 500 * 2 ** retry++));
    };
  }

  window.addEventListener("popstate", () => { if (location.pathname === "/standings") askStandings(); else askPlayer(); });
  connect();
})();
