/* gamehall in a browser: lobby, tables, records.  Plain JS, no library, no build step.
 * Every user text reaches the page through textContent (el() below) or GameHall.escape:
 * never as HTML.  The JSON protocol is documented in docs/web.md. */
"use strict";

const GameHall = (() => {
  const views = {};                 // game name -> {render(el, state, ctx)}
  const S = {                       // what the page knows
    ws: null, connected: false, me: null, token: null, moved: false, retry: 0,
    games: [], users: new Map(), tables: new Map(), chat: [],
    table: null, seat: null, view: null, decision: null, deadline: null, pending: null,
    log: [], tableChat: [], finished: null, script: null, over: null,
    records: [], replay: null, replayStep: 0, replayBusy: false, replayWanted: null,
    loadedScripts: new Set(),
  };
  const MAX_LOG = 400;

  // ---------------------------------------------------------------- helpers
  function escape(text) {
    return String(text).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  }

  // view helpers (begin): for the games' board scripts, as GameHall.h and GameHall.injectCss;
  // tests/web/viewpage.py cuts this block out, to the end marker, to draw a view on its own.
  /* h("div", "cls", text): an element with an optional class and text (textContent, never HTML). */
  function h(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  /* A view's stylesheet, added to <head> once under its id. */
  function injectCss(id, cssText) {
    if (document.getElementById(id)) return;
    const s = document.createElement("style");
    s.id = id;
    s.textContent = cssText;
    document.head.appendChild(s);
  }
  // view helpers (end)

  /* el("div.card", {onclick: f}, "text", child...) — strings become text nodes. */
  function el(spec, attrs, ...children) {
    const [tag, ...classes] = spec.split(".");
    const node = document.createElement(tag || "div");
    if (classes.length) node.className = classes.join(" ");
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined || v === null || v === false) continue;
        if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
        else if (k === "text") node.textContent = v;
        else node.setAttribute(k, v === true ? "" : v);
      }
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  const $ = id => document.getElementById(id);
  const main = () => $("main");

  function svg(tag, attrs) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  }

  function fmtTime(seconds) {
    const s = Math.max(0, Math.ceil(seconds));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  function fmtDate(epoch) {
    if (!epoch) return "";
    const d = new Date(epoch * 1000);
    return d.toLocaleString(undefined, {year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"});
  }

  function banner(text, kind) {
    const b = $("banner");
    if (!text) { b.hidden = true; b.textContent = ""; return; }
    b.hidden = false;
    b.className = kind || "info";
    b.textContent = text;
  }

  let bannerTimer = null;
  function flash(text, kind) {
    banner(text, kind || "error");
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(() => banner(null), 6000);
  }

  // ---------------------------------------------------------------- connection
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws`);
    S.ws = ws;
    setConn("connecting…");
    ws.onopen = () => { S.connected = true; S.retry = 0; setConn("live"); };
    ws.onmessage = ev => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      const handler = handlers[msg.type];
      if (handler) handler(msg);
    };
    ws.onclose = () => {
      S.connected = false;
      S.me = null;
      showMe();
      if (S.moved) { setConn("signed in elsewhere"); return; }
      setConn("reconnecting…");
      const delay = Math.min(10000, 500 * 2 ** S.retry++);
      setTimeout(connect, delay);
    };
  }

  function setConn(text) {
    const c = $("conn");
    c.textContent = text;
    c.className = "conn " + (text === "live" ? "live" : "down");
  }

  function send(msg) {
    if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(msg));
  }

  // ---------------------------------------------------------------- messages
  const handlers = {
    hello() {
      const nickname = localStorage.getItem("gamehall.nickname");
      S.token = localStorage.getItem("gamehall.token");
      showMe();
      if (nickname) send({type: "hello", nickname, token: S.token || undefined, table: lastTable()});
      else route();
    },
    welcome(m) {
      // signed in: a refusal still shown from an earlier try (a wrong password) is over
      if (!S.moved && $("banner").className === "error") { clearTimeout(bannerTimer); banner(null); }
      S.me = m.nickname;
      S.registered = !!m.registered;
      S.account = null;
      if (S.registered) send({type: "account"});
      S.token = m.token;
      localStorage.setItem("gamehall.nickname", m.nickname);
      localStorage.setItem("gamehall.token", m.token);
      showMe();
      route();
    },
    registered(m) { flash(`${m.nickname} is registered to you. On other clients type ${m.nickname}+KEY (make a key below).`, "info"); },
    account(m) {
      S.account = m;
      if (m.key) S.newKey = m.typed;    // shown once: only its hash is kept
      renderAccount();
    },
    password_changed() { S.newKey = null; flash("Password changed.", "info"); renderAccount(); },
    error(m) {
      if ((m.request === "hello" || m.request === "sign_in" || m.request === "register") && !S.me) {
        S.typed = S.typed || localStorage.getItem("gamehall.nickname");
        localStorage.removeItem("gamehall.nickname");
        if (!$("nickname")) route();      // else the form stays as typed, to be corrected
      }
      if (m.request === "watch" && page() === "table" && !S.table) {
        // no such table, in play or stored: say so instead of "Opening…"
        main().replaceChildren(el("section.card", {id: "no-table"}, el("p", null, m.message),
          el("a", {href: "/", "data-nav": true}, "Back to the lobby"), " · ", el("a", {href: "/records", "data-nav": true}, "Finished games")));
        return;
      }
      flash(m.message);
    },
    closing(m) {
      if (m.reason === "moved") {
        S.moved = true;
        banner(m.message + ". ", "error");
        $("banner").append(el("button", {onclick: () => { S.moved = false; banner(null); connect(); }}, "Use this window"));
      } else if (m.reason === "idle") {
        banner("Disconnected after a long quiet spell; reconnecting…", "info");
      } else if (m.message) {
        banner(m.message, "info");
      }
    },
    pong() {},
    lobby(m) {
      S.games = m.games;
      S.users = new Map(m.users.map(u => [u.nickname.toLowerCase(), u]));
      S.tables = new Map(m.tables.map(t => [t.id, t]));
      if (page() !== "lobby") return;
      // drawn already: only what the snapshot changes (a sign-in being typed stays as it is)
      if ($("tables")) { renderTables(); renderUsers(); renderNewTable(); } else renderLobby();
    },
    users(m) {
      for (const u of m.left) S.users.delete(u.nickname.toLowerCase());
      for (const u of m.joined) S.users.set(u.nickname.toLowerCase(), u);
      if (page() === "lobby") renderUsers();
    },
    lobby_table(m) {
      S.tables.set(m.table.id, m.table);
      if (page() === "lobby") { renderTables(); renderUsers(); }
      else tableRatings([m.table]);
    },
    lobby_table_removed(m) {
      S.tables.delete(m.id);
      if (page() === "lobby") { renderTables(); renderUsers(); }
    },
    lobby_tables(m) {           // the tables changed in the last second, drawn once
      for (const t of m.tables) S.tables.set(t.id, t);
      for (const id of m.removed) S.tables.delete(id);
      if (page() === "lobby") { renderTables(); renderUsers(); }
      else tableRatings(m.tables);
    },
    chat(m) {
      S.chat.push(m);
      if (S.chat.length > 200) S.chat.shift();
      if (page() === "lobby") appendChat($("lobby-chat"), m);
    },
    created(m) { navigate(`/table/${m.table}`); },
    table_over(m) {
      // a table no longer in play: its result (a finished game's address, or the game this
      // browser sat at, finished while it was away)
      S.over = m;
      if (lastTable() === m.table) localStorage.removeItem("gamehall.table");
      if (page() !== "table" || routeTable() !== m.table) navigate(`/table/${m.table}`);
      else if (!S.table || S.table.id !== m.table) renderOver();
    },
    table_state(m) {
      S.over = null;
      if (m.seat !== null && m.seat !== undefined) localStorage.setItem("gamehall.table", String(m.table.id));
      if (routeTable() !== m.table.id) navigate(`/table/${m.table.id}`, true);
      const same = S.table && S.table.id === m.table.id;
      S.table = m.table;
      S.seat = m.seat;
      S.script = m.script;
      S.view = m.view;
      S.pending = m.pending;
      S.decision = m.decision;
      setDeadline(m.deadline_in);
      if (!same) { S.log = []; S.tableChat = []; S.finished = null; }
      else if (m.skipped) addLog(`(${m.skipped} move${m.skipped > 1 ? "s" : ""} not shown while this page caught up)`);
      renderTablePage();
    },
    table(m) {
      if (!S.table || m.table !== S.table.id) return;
      if (m.summary) S.table = m.summary;
      if (m.event === "game") {
        for (const line of m.lines || []) addLog(line);
        const titled = S.view && S.view.seat_title;
        if (m.view !== undefined) S.view = m.view;
        if (m.pending !== undefined) S.pending = m.pending;
        if ("decision" in m) { S.decision = m.decision; setDeadline(m.deadline_in); }
        if ((S.view && S.view.seat_title) !== titled) { renderTablePage(); return; }   // "you play England"
        renderBoard(); renderDecision(); renderSeats();
        return;
      }
      if ((m.event === "finished" || m.event === "aborted") && lastTable() === m.table) localStorage.removeItem("gamehall.table");
      if (m.event === "finished") {
        S.finished = m;
        S.decision = null;
        setDeadline(null);
        addLog(resultText(m.result, m.players));
      } else if (m.event === "aborted") {
        S.finished = m;
        S.decision = null;
        addLog(`The game was stopped: ${m.reason || ""}`);
      } else if (m.event === "timeout") {
        addLog("Your time ran out: the hall played the default for you.");
      } else if (m.detail) {
        const d = m.detail, who = d.nickname || "?";
        const text = {joined: d.seat === null || d.seat === undefined ? `${who} watches` : `${who} sits down${d.bot ? " (bot)" : ""}`,
                      left: `${who} left${d.held ? " (seat held for a while)" : ""}`,
                      seat_changed: `${who} is now played by ${d.kind === "bot" ? "a bot" : "its human"}`,
                      creator: `${who} may now start the game`}[m.event];
        if (text) addLog(text);
      }
      renderTablePage();
    },
    decision(m) {
      if (!S.table || m.table !== S.table.id) return;
      S.decision = m.decision;
      setDeadline(m.deadline_in);
      renderBoard();                  // the board may offer the decision's clicks (e.g. rack tiles)
      renderDecision();
    },
    table_chat(m) {
      if (!S.table || m.table !== S.table.id) return;
      S.tableChat.push(m);
      if (S.tableChat.length > 200) S.tableChat.shift();
      appendChat($("table-chat"), m);
    },
    left_table(m) {
      if (lastTable() === m.table) localStorage.removeItem("gamehall.table");
      if (m.message) flash(m.message, "info");
      if (S.table && S.table.id === m.table) { S.seat = null; S.decision = null; }
      if (page() === "table") renderTablePage();
    },
    records(m) {
      S.records = m.records;
      if (m.games) S.games = m.games;
      S.recordGame = m.game || "";
      if (page() === "records") renderRecords();
    },
    replay(m) {
      S.replay = m;
      S.replayStep = m.length;
      if (m.script) loadScript(m.game, m.script);
      renderReplay();
    },
    replay_state(m) {
      S.replayBusy = false;
      if (!S.replay || S.replay.id !== m.id) return;
      S.replay.view = m.view;
      S.replayStep = m.step;
      updateReplay();
      if (S.replayWanted !== null && S.replayWanted !== m.step) stepTo(S.replayWanted);
      else S.replayWanted = null;
    },
  };

  /* The table this browser last sat at (hello's "table": told its result if it ended meanwhile). */
  function lastTable() {
    const n = parseInt(localStorage.getItem("gamehall.table") || "", 10);
    return Number.isFinite(n) ? n : undefined;
  }

  function resultText(result, players) {
    if (!result) return "The game is over.";
    const names = players || (S.table ? S.table.seats.map(s => s.name) : []);
    const winners = (result.winners || []).map(i => names[i] || `seat ${i + 1}`);
    const scores = (result.scores || []).map((s, i) => `${names[i] || "seat " + (i + 1)} ${s}`).join(", ");
    return `Game over. ${winners.length ? "Winner: " + winners.join(" and ") + ". " : ""}${scores ? "Scores: " + scores + "." : ""}`;
  }

  // ---------------------------------------------------------------- routing
  function page() {
    const p = location.pathname;
    if (p.startsWith("/table/")) return "table";
    if (p === "/records") return "records";
    if (p.startsWith("/records/")) return "replay";
    return "lobby";
  }
  function routeTable() {
    const n = parseInt(location.pathname.split("/")[2], 10);
    return Number.isFinite(n) ? n : null;
  }
  function navigate(path, replace) {
    if (location.pathname !== path) {
      if (replace) history.replaceState(null, "", path); else history.pushState(null, "", path);
    }
    route();
  }
  let lastPage = null;
  function route() {
    const p = page();
    if (lastPage === "lobby" && p !== "lobby") send({type: "lobby", on: false});
    lastPage = p;
    document.body.dataset.page = p;
    if (p === "records") { renderRecords(); send({type: "records"}); return; }
    if (p === "replay") {
      const id = routeTable();
      if (!S.replay || S.replay.id !== id) { S.replay = null; main().replaceChildren(el("p.muted", null, "Loading the record…")); send({type: "replay", id}); }
      else renderReplay();
      return;
    }
    // no nickname needed to look: a visitor sees the lobby and watches tables
    if (p === "table") {
      const id = routeTable();
      if (!S.table || S.table.id !== id) {
        S.table = null;
        if (S.over && S.over.table === id) renderOver();
        else main().replaceChildren(el("p.muted", null, `Opening game #${id}…`));
      } else renderTablePage();
      send({type: "watch", table: id});
      return;
    }
    renderLobby();
    send({type: "lobby"});
  }
  window.addEventListener("popstate", route);
  document.addEventListener("click", ev => {
    const a = ev.target.closest("a[data-nav]");
    if (a && !ev.ctrlKey && !ev.metaKey && !ev.shiftKey && ev.button === 0) {
      ev.preventDefault();
      navigate(a.getAttribute("href"));
    }
  });

  function showMe() {
    const me = $("me");
    me.replaceChildren(S.me ? el("span", null, "Signed in as ", el("b", null, S.me))
      : el("span.muted", null, "Visitor (", el("a", {href: "/", "data-nav": true, id: "to-signin"}, "sign in"), " to play or chat)"));
  }

  // ---------------------------------------------------------------- sign in
  function signInForm() {
    const input = el("input", {id: "nickname", maxlength: "32", autocomplete: "username", placeholder: "your nickname", required: true});
    input.value = localStorage.getItem("gamehall.nickname") || S.typed || "";
    const password = el("input", {id: "password", type: "password", maxlength: "256", autocomplete: "current-password",
                                  placeholder: "only for a registered name"});
    function request(type) {
      const nickname = input.value.trim();
      if (!nickname) return;
      S.typed = nickname;
      const token = S.token || localStorage.getItem("gamehall.token") || undefined;
      if (type === "hello" && password.value) type = "sign_in";
      if (type === "register" && password.value.length < 8) { flash("Pick a password of at least 8 characters to register."); password.focus(); return; }
      send(type === "hello" ? {type, nickname, token} : {type, nickname, token, password: password.value});
      password.value = "";
    }
    return el("form.signin", {onsubmit: ev => { ev.preventDefault(); request("hello"); }},
      el("p", null, "You are looking as a visitor: pick a nickname to chat, create a table or sit. You will meet players of every client the hall speaks to (NetAcquire, Windward, PIMP, E&T…) and its bots."),
      el("label", {for: "nickname"}, "Nickname"), input,
      el("label", {for: "password"}, "Password"), password,
      el("button", {type: "submit", id: "signin"}, "Sign in"),
      el("button", {type: "button", id: "register", onclick: () => request("register")}, "Register this name"),
      el("p.muted", null, "A nickname without a password is a guest's, for as long as you are here. Register it with a password and it is yours on every protocol."));
  }

  // ---------------------------------------------------------------- account (registered names)
  function renderAccount() {
    const box = $("account");
    if (!box) return;
    const a = S.account;
    if (!S.registered || !a) { box.replaceChildren(); box.hidden = true; return; }
    box.hidden = false;
    const label = el("input", {id: "key-label", maxlength: "40", placeholder: "label, e.g. laptop NetAcquire"});
    const old = el("input", {id: "old-password", type: "password", autocomplete: "current-password", placeholder: "current password"});
    const fresh = el("input", {id: "new-password", type: "password", autocomplete: "new-password", placeholder: "new password (8 or more)"});
    const keys = a.keys.map(k => el("li", {"data-key": k.id, class: k.revoked ? "is-revoked" : null},
      el("code", null, k.id), " ", k.label ? el("b", null, k.label) : el("span.muted", null, "no label"), " ",
      el("span.muted", null, `made ${fmtDate(k.created)}`, k.last_used ? `, last used ${fmtDate(k.last_used)}` : ", never used"), " ",
      k.revoked ? el("span.muted.revoked", null, `revoked ${fmtDate(k.revoked)}`)
        : el("button", {class: "revoke", onclick: () => send({type: "revoke_key", id: k.id})}, "Revoke")));
    box.replaceChildren(el("h2", null, "Your registered name"),
      el("p", null, "Other clients (NetAcquire, Windward, PIMP, E&T, DAIDE) have no password field: type your name with a key, ",
        el("code", null, `${a.nickname}+KEY`), ". The hall strips the key before anyone sees your name."),
      S.newKey ? el("p.new-key", {id: "new-key"}, "Your new key, shown once (copy it now): type ",
        el("code", {id: "new-key-typed"}, S.newKey), " as your nickname.") : "",
      keys.length ? el("ul.keys", {id: "keys"}, ...keys) : el("p.muted", {id: "keys"}, "No keys yet."),
      el("form.inline", {id: "new-key-form", onsubmit: ev => { ev.preventDefault(); send({type: "new_key", label: label.value.trim() || undefined}); }},
        label, el("button", {type: "submit", id: "make-key"}, "New key")),
      el("form.inline", {id: "password-form", onsubmit: ev => {
        ev.preventDefault(); send({type: "change_password", old: old.value, new: fresh.value}); old.value = ""; fresh.value = ""; }},
        old, fresh, el("button", {type: "submit", id: "change-password"}, "Change password")));
  }

  // ---------------------------------------------------------------- lobby
  function renderLobby() {
    main().replaceChildren(
      el("section.lobby",
        null,
        el("div.col",
          null,
          S.me ? "" : el("section.card", {id: "signin-card"}, el("h2", null, "Sign in"), signInForm()),
          el("section.card", {id: "account", hidden: true}),
          el("section.card", null, el("h2", null, "Tables"), el("div", {id: "tables"})),
          S.me ? el("section.card", null, el("h2", null, "New table"), el("div", {id: "new-table"})) : ""),
        el("div.col",
          null,
          el("section.card", null, el("h2", null, "Who is here ", el("span.count", {id: "user-count"})), el("ul.users", {id: "users"})),
          el("section.card", null, el("h2", null, "Lobby chat"), chatBox("lobby-chat", S.me ? text => send({type: "chat", text}) : null)))));
    renderTables(); renderUsers(); renderNewTable(); renderAccount();
    for (const m of S.chat) appendChat($("lobby-chat"), m);
    if (!S.me && $("nickname") && !$("nickname").value) $("nickname").focus();
  }

  function renderNewTable() {
    // drawn again only when the games change: a form being filled in stays as it is
    const box = $("new-table"), key = JSON.stringify(S.games || []);
    if (!box || !S.me || box.dataset.games === key) return;
    box.dataset.games = key;
    box.replaceChildren(createForm());
  }

  function seatChip(seat, pending, index, rating) {
    const kind = seat.kind === "bot" ? "bot" : (seat.kind === "human" ? "human" : "empty");
    // the rating beside the name, never in it (the name is what players address each other by)
    const rated = rating ? el("span.rating", {title: `rating (mean - 3 deviations) after ${rating.games} game${rating.games === 1 ? "" : "s"}${rating.provisional ? ", provisional" : ""}`},
      ` ${rating.rating.toFixed(1)}${rating.provisional ? "?" : ""}`) : "";
    return el(`span.seat.${kind}${pending === index ? ".turn" : ""}`, {title: kind === "bot" ? `bot (${seat.bot})` : (seat.registered ? "registered player" : kind)},
      kind === "bot" ? "⚙ " : "", seat.name || "empty", rated);
  }

  function renderTables() {
    const box = $("tables");
    if (!box) return;
    const rows = [...S.tables.values()].sort((a, b) => a.id - b.id);
    if (!rows.length) { box.replaceChildren(el("p.muted", null, S.me ? "No table yet: create one below." : "No table yet: sign in above to create one.")); return; }
    box.replaceChildren(...rows.map(t => {
      const free = S.me && t.state === "waiting" && t.seats.length < t.max_seats;
      return el("div.table-row", {"data-table": t.id},
        el("div.table-head", null,
          el("a", {href: `/table/${t.id}`, "data-nav": true}, `#${t.id} ${t.title}`),
          variantText(t.game, t.variant) ? el("span.muted", null, ` ${variantText(t.game, t.variant)}`) : "",
          el(`span.state.${t.state}`, null, t.state)),
        el("div.seats", null, t.seats.map((s, i) => seatChip(s, null, i, (t.ratings || [])[i])),
          Array.from({length: Math.max(0, t.state === "waiting" ? t.max_seats - t.seats.length : 0)}, () => el("span.seat.empty", null, "free"))),
        el("div.table-foot", null,
          el("span.muted", null, watchingText(t)),
          el("span.actions", null,
            free ? el("button", {onclick: () => { send({type: "join", table: t.id}); }}, "Sit") : "",
            el("button.secondary", {onclick: () => navigate(`/table/${t.id}`)}, "Watch"))));
    }));
  }

  function watchingText(t) {
    const named = t.spectator_count ? `${t.spectator_count} watching: ${t.spectators.join(", ")}${t.spectator_count > t.spectators.length ? "…" : ""}` : "";
    const visitors = t.visitors ? `${t.visitors} visitor${t.visitors > 1 ? "s" : ""} watching` : "";
    return [named, visitors].filter(Boolean).join("; ") || "nobody watching";
  }

  function renderUsers() {
    const list = $("users");
    if (!list) return;
    const where = new Map();
    for (const t of S.tables.values()) {
      for (const s of t.seats) if (s.kind === "human") where.set(s.name.toLowerCase(), `plays at #${t.id}`);
      for (const n of t.spectators) where.set(n.toLowerCase(), `watches #${t.id}`);
    }
    const users = [...S.users.values()].sort((a, b) => a.nickname.localeCompare(b.nickname));
    $("user-count").textContent = `(${users.length})`;
    list.replaceChildren(...users.map(u => el("li", null,
      el("b", null, u.nickname), " ", el("span.proto", null, u.frontend), " ",
      el("span.muted", null, where.get(u.nickname.toLowerCase()) || "in the lobby"))));
  }

  // a table's or record's variant in words, or "" when it is the game's only or default one
  // (the game's title says it all: "Acquire (Windward code war)", not "... (windward)")
  function variantText(gameName, variant) {
    const g = (S.games || []).find(x => x.name === gameName);
    if (!variant || !g || g.variants.length < 2 || variant === g.variants[0]) return "";
    const words = new Map(g.options || []), [base, ...flags] = variant.split("+");
    return [base === g.variants[0].split("+")[0] ? null : base, ...flags.map(f => words.get(f) || f)]
      .filter(Boolean).join(", ");
  }

  function createForm() {
    const game = el("select", {id: "new-game"}, S.games.map(g => el("option", {value: g.name}, g.title)));
    const variant = el("select", {id: "new-variant"});
    const seats = el("input", {id: "new-seats", type: "number", min: "1", max: "8"});
    const bots = el("input", {id: "new-bots", type: "number", min: "0", max: "8"});
    const botKind = el("select", {id: "new-bot"});
    const play = el("input", {id: "new-play", type: "checkbox", checked: true});
    const start = el("input", {id: "new-start", type: "checkbox"});
    // a game whose variants are a base plus flags: the bases in the list, a checkbox per flag
    const options = el("fieldset.options", {id: "new-options", hidden: true});
    function sync() {
      const g = S.games.find(x => x.name === game.value);
      if (!g) return;
      const bases = g.options ? g.variants.filter(v => !v.includes("+")) : g.variants;
      variant.replaceChildren(...bases.map(v => el("option", {value: v}, v)));
      options.hidden = !g.options;
      options.replaceChildren(...(g.options ? [el("legend", null, "Options"), ...g.options.map(([flag, text]) =>
        el("label.check", null, el("input", {type: "checkbox", value: flag, id: `new-opt-${flag}`}), ` ${text}`))] : []));
      botKind.replaceChildren(...g.bots.map(b => el("option", {value: b}, b)));
      seats.min = g.min_seats; seats.max = g.max_seats;
      seats.value = Math.min(g.max_seats, Math.max(g.min_seats, 4));
      bots.max = g.max_seats;
      bots.value = Math.max(0, Number(seats.value) - 1);
    }
    game.addEventListener("change", sync);
    // a table without me: bots fill every seat and it starts at once
    play.addEventListener("change", () => {
      bots.value = Math.max(0, Number(seats.value) - (play.checked ? 1 : 0));
      if (!play.checked) start.checked = true;
    });
    sync();
    return el("form.create", {onsubmit: ev => {
      ev.preventDefault();
      const n = Math.max(0, parseInt(bots.value, 10) || 0);
      const flags = [...options.querySelectorAll("input:checked")].map(i => i.value);
      send({type: "create", game: game.value, variant: [variant.value, ...flags].join("+"), seats: parseInt(seats.value, 10) || undefined,
            bots: Array(n).fill(botKind.value), join: play.checked, start: start.checked || !play.checked});
    }},
      el("label", null, "Game", game), el("label", null, "Variant", variant),
      el("label", null, "Seats", seats), el("label", null, "Bots", bots), el("label", null, "Bot", botKind),
      el("label.check", null, play, " I play"), el("label.check", null, start, " Start at once"), options,
      el("button", {type: "submit", id: "create"}, "Create table"));
  }

  function chatBox(id, onSend) {
    if (!onSend) {         // a visitor reads along
      return el("div.chat", null, el("div.chat-log", {id, "aria-live": "polite"}),
        el("p.muted.chat-signin", null, el("a", {href: "/", "data-nav": true}, "Sign in"), " to chat."));
    }
    const input = el("input", {maxlength: "1000", placeholder: "Say something…", "aria-label": "chat message"});
    return el("div.chat", null,
      el("div.chat-log", {id, "aria-live": "polite"}),
      el("form.chat-form", {onsubmit: ev => {
        ev.preventDefault();
        const text = input.value.trim();
        if (text) { onSend(text); input.value = ""; }
      }}, input, el("button", {type: "submit"}, "Send")));
  }

  function appendChat(box, m) {
    if (!box) return;
    const line = m.from === "*" ? el("div.line.notice", null, m.text) : el("div.line", null, el("b", null, m.from), ": ", m.text);
    box.append(line);
    while (box.childElementCount > 200) box.firstElementChild.remove();
    box.scrollTop = box.scrollHeight;
  }

  // ---------------------------------------------------------------- table
  function addLog(line) {
    S.log.push(line);
    if (S.log.length > MAX_LOG) S.log.shift();
    const box = $("log");
    if (box) {
      box.append(el("div.line", null, line));
      while (box.childElementCount > MAX_LOG) box.firstElementChild.remove();
      box.scrollTop = box.scrollHeight;
    }
  }

  function loadScript(game, url) {
    if (!url || views[game] || S.loadedScripts.has(url)) return;
    S.loadedScripts.add(url);
    document.head.append(el("script", {src: url}));
  }

  function setDeadline(seconds) {
    S.deadline = (seconds === null || seconds === undefined) ? null : Date.now() + seconds * 1000;
  }
  setInterval(() => {
    const t = $("timer");
    if (!t) return;
    t.textContent = S.deadline && S.decision ? `${fmtTime((S.deadline - Date.now()) / 1000)} left` : "";
    t.classList.toggle("urgent", !!(S.deadline && S.deadline - Date.now() < 20000));
  }, 250);

  function renderTablePage() {
    if (page() !== "table" || !S.table) return;
    const t = S.table;
    if (t.game) loadScript(t.game, S.script);
    const isCreator = S.me && (!t.creator || t.creator === S.me);
    const seated = S.seat !== null && S.seat !== undefined;
    const waiting = t.state === "waiting";
    const buttons = [];
    if (waiting && !seated && t.seats.length < t.max_seats) {
      buttons.push(S.me ? el("button", {id: "sit", onclick: () => send({type: "join", table: t.id})}, "Sit here")
        : el("button", {id: "sit-signin", onclick: () => navigate("/")}, "Sign in to sit"));
    }
    if (waiting && seated && isCreator) {
      // short of the game's players: the Start button seats bots in the missing seats first
      const short = t.seats.length < (t.min_seats || 0);
      if (t.seats.length < t.max_seats) buttons.push(el("button", {id: "add-bot", onclick: () => send({type: "add_bot"})}, "Add a bot"));
      buttons.push(el("button", {id: "start", onclick: () => send({type: "start", fill: short})},
        short ? `Fill with bots and start` : "Start"));
    }
    if (!S.finished) buttons.push(el("button.secondary", {id: "leave", onclick: () => {
      send({type: "leave"});
      if (seated) localStorage.removeItem("gamehall.table");   // given up: not this browser's table any more
      navigate("/");
    }}, seated ? "Leave the table" : "Stop watching"));
    const done = S.finished ? el("div.card.finished", {id: "finished"},
      el("b", null, S.finished.event === "finished" ? resultText(S.finished.result, S.finished.players) : `Stopped: ${S.finished.reason || ""}`), " ",
      el("a", {href: "/records", "data-nav": true}, "See the records"), " · ", el("a", {href: "/", "data-nav": true}, "Back to the lobby")) : null;
    main().replaceChildren(
      el("section.table-page", null,
        el("div.table-title", null,
          el("h1", null, `Game #${t.id} · ${t.title}`),
          el(`span.state.${S.finished ? S.finished.event : t.state}`, null, S.finished ? S.finished.event : t.state),
          // a view may name the seat ("England"): its state's seat_title
          el("span.muted", null, seated ? ` you play ${(S.view && S.view.seat_title) || `seat ${S.seat + 1}`}` : S.me ? " you are watching" : " you are watching as a visitor"),
          el("span.actions", null, buttons)),
        done,
        el("div.seats", {id: "seats"}),
        el("div.board-area", null,
          el("div.board", {id: "board"}),
          el("div.side", null,
            el("section.card.decision", {id: "decision"}),
            el("section.card", null, el("h2", null, "Log"), el("div.log", {id: "log", "aria-live": "polite"})),
            el("section.card", null, el("h2", null, "Table chat"), chatBox("table-chat", S.me ? text => send({type: "say", text}) : null))))));
    renderSeats(); renderBoard(); renderDecision();
    const box = $("log");
    for (const line of S.log) box.append(el("div.line", null, line));
    box.scrollTop = box.scrollHeight;
    for (const m of S.tableChat) appendChat($("table-chat"), m);
  }

  function renderOver() {
    // a table that is no longer in play, from the store: its result and its record
    const o = S.over;
    if (!o || page() !== "table") return;
    const r = o.record;
    const finished = o.state === "finished";
    main().replaceChildren(el("section.table-page", {id: "over"},
      el("div.table-title", null,
        el("h1", null, `Game #${o.table} · ${r.title}`),
        el(`span.state.${finished ? "finished" : "aborted"}`, null, finished ? "finished" : "stopped")),
      el("div.card.finished", {id: "finished"},
        el("b", null, finished ? resultText({winners: r.winners, scores: r.scores}, o.players) : "This game was stopped before its end."), " ",
        finished ? el("a", {href: `/records/${r.id}`, "data-nav": true, id: "over-record"}, "Replay it move by move") : "",
        finished ? " · " : "", el("a", {href: "/", "data-nav": true}, "Back to the lobby")),
      el("div.seats", null, o.players.map((name, i) => el(`span.seat.${(r.seats[i] || {}).kind === "bot" ? "bot" : "human"}`, null,
        (r.seats[i] || {}).kind === "bot" ? "⚙ " : "", name, r.scores ? ` ${r.scores[i]}` : "")))));
  }

  function tableRatings(tables) {
    // the ratings of the table shown, read by the hall after the page drew it
    const t = S.table && tables.find(x => x.id === S.table.id);
    if (t && t.ratings && JSON.stringify(t.ratings) !== JSON.stringify(S.table.ratings)) {
      S.table.ratings = t.ratings;
      renderSeats();
    }
  }

  function renderSeats() {
    const box = $("seats");
    if (!box || !S.table) return;
    const watching = (S.table.spectator_count || 0) + (S.table.visitors || 0);
    box.replaceChildren(...S.table.seats.map((s, i) => seatChip(s, S.finished ? null : S.pending, i, (S.table.ratings || [])[i])),
      watching ? el("span.muted", null, ` ${watching} watching`) : "");
  }

  function ctx(seat, decision, act) {
    return {seat, decision, escape, act: act || (() => {})};
  }

  function renderBoard() {
    const box = $("board");
    if (!box || !S.table) return;
    drawView(box, S.table.game, S.view, ctx(S.seat, S.decision, action => {
      send({type: "act", action});
      S.decision = null;
      renderDecision();
    }));
  }

  function drawView(box, game, view, context) {
    if (view === null || view === undefined) {
      box.replaceChildren(el("p.muted", null, "The game has not started yet."));
      return;
    }
    const v = views[game];
    if (v) {
      try { v.render(box, view, context); return; }
      catch (e) { console.error(e); }
    }
    box.replaceChildren(el("pre.plain", null, JSON.stringify(view, null, 1)));
  }

  function renderDecision() {
    const box = $("decision");
    if (!box) return;
    const d = S.decision;
    if (!d) {
      const turn = S.pending !== null && S.pending !== undefined && S.table && S.table.seats[S.pending];
      const mine = turn && S.pending === S.seat;      // (a move just sent: its answer is on its way)
      box.replaceChildren(el("p.muted", null, S.finished ? "The game is over." : mine ? "Your move is sent…" : turn ? `Waiting for ${turn.name}…` : "No decision pending."));
      box.classList.remove("mine");
      return;
    }
    box.classList.add("mine");
    box.replaceChildren(
      el("div.prompt", null, el("b", null, d.prompt || "Your decision"), el("span.timer", {id: "timer"})),
      el("div.choices", null, (d.choices || []).map(c => el("button.choice", {
        "data-key": c.key || null,
        onclick: () => { send({type: "act", action: c.action}); S.decision = null; renderBoard(); renderDecision(); },
      }, c.key ? el("kbd", null, c.key) : "", c.label))),
      d.board ? el("p.muted", null, "…or click on the board.") : "",
      d.raw ? rawActionForm() : "");
  }

  function rawActionForm() {
    // a game without a view: its action typed as JSON (the engine says whether it is legal)
    const input = el("input", {id: "raw-action", placeholder: '{"take": 1}', "aria-label": "action as JSON"});
    return el("form.chat-form", {onsubmit: ev => {
      ev.preventDefault();
      let action;
      try { action = JSON.parse(input.value); } catch (e) { flash("That is not JSON: " + e.message); return; }
      send({type: "act", action});
    }}, input, el("button", {type: "submit"}, "Play"));
  }

  document.addEventListener("keydown", ev => {
    if (ev.target.closest("input, textarea, select") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (page() === "table" && /^[1-9]$/.test(ev.key)) {
      const b = document.querySelector(`#decision button[data-key="${ev.key}"]`);
      if (b) { ev.preventDefault(); b.click(); }
    } else if (page() === "replay" && S.replay && (ev.key === "ArrowLeft" || ev.key === "ArrowRight")) {
      ev.preventDefault();
      stepTo(Math.max(0, Math.min(S.replay.length, (S.replayWanted ?? S.replayStep) + (ev.key === "ArrowLeft" ? -1 : 1))));
    }
  });

  // ---------------------------------------------------------------- records
  function renderRecords() {
    const filter = el("select", {id: "record-game", onchange: () => send({type: "records", game: filter.value || undefined})},
      el("option", {value: ""}, "every game"), S.games.map(g => el("option", {value: g.name, selected: g.name === S.recordGame}, g.title)));
    const rows = S.records.map(r => {
      const names = r.seats.map(s => s.name);
      const winners = new Set(r.winners || []);
      return el("tr", null,
        el("td", null, el("a", {href: `/records/${r.id}`, "data-nav": true}, `#${r.id}`)),
        el("td", null, r.title, variantText(r.game, r.variant) ? el("span.muted", null, ` · ${variantText(r.game, r.variant)}`) : ""),
        el("td", null, fmtDate(r.finished)),
        el("td", null, names.map((n, i) => el(winners.has(i) ? "b" : "span", null, n, r.scores ? ` ${r.scores[i]}` : "", i < names.length - 1 ? ", " : ""))));
    });
    main().replaceChildren(el("section.card.records", null,
      el("h1", null, "Finished games"), el("label", null, "Show ", filter),
      rows.length ? el("table.records-table", null, el("thead", null, el("tr", null, el("th", null, "Game"), el("th", null, ""), el("th", null, "Finished"), el("th", null, "Players (winner in bold)"))), el("tbody", null, rows))
        : el("p.muted", null, "No finished game yet.")));
  }

  function stepTo(step) {
    S.replayWanted = step;
    const slider = $("replay-slider");
    if (slider) slider.value = step;
    const label = $("replay-step");
    if (label && S.replay) label.textContent = `move ${step} of ${S.replay.length}`;
    if (S.replayBusy) return;
    S.replayBusy = true;
    send({type: "replay_step", id: S.replay.id, step});
  }

  const COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

  function chart(scores, players, step, width) {
    // drawn at the width of its box (no scaling: text stays readable on a phone)
    const W = Math.max(300, Math.round(width || 640)), H = W < 500 ? 180 : 240, L = 56, R = 10, T = 10, B = 14;
    const n = scores.length - 1;
    let lo = Infinity, hi = -Infinity;
    for (const row of scores) for (const v of row) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    if (!isFinite(lo)) { lo = 0; hi = 1; }
    if (hi === lo) hi = lo + 1;
    const x = i => L + (W - L - R) * (n ? i / n : 0);
    const y = v => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
    const root = svg("svg", {viewBox: `0 0 ${W} ${H}`, class: "chart", id: "chart", role: "img", "aria-label": "scores over the game"});
    for (let k = 0; k <= 4; k++) {
      const v = lo + (hi - lo) * k / 4;
      root.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
      const t = svg("text", {x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "axis"});
      t.textContent = Math.round(v).toLocaleString();
      root.append(t);
    }
    players.forEach((name, p) => {
      const pts = scores.map((row, i) => `${x(i).toFixed(1)},${y(row[p] ?? 0).toFixed(1)}`).join(" ");
      root.append(svg("polyline", {points: pts, fill: "none", stroke: COLOURS[p % COLOURS.length], "stroke-width": 2, class: "series"}));
    });
    root.append(svg("line", {x1: x(step), x2: x(step), y1: T, y2: H - B, class: "cursor", id: "chart-cursor"}));
    root.addEventListener("click", ev => {
      const box = root.getBoundingClientRect();
      const fx = (ev.clientX - box.left) / box.width * W;
      stepTo(Math.max(0, Math.min(n, Math.round((fx - L) / (W - L - R) * n))));
    });
    return root;
  }

  function renderReplay() {
    const r = S.replay;
    if (!r || page() !== "replay") return;
    const slider = el("input", {id: "replay-slider", type: "range", min: "0", max: String(r.length), value: String(S.replayStep), "aria-label": "move"});
    slider.addEventListener("input", () => stepTo(parseInt(slider.value, 10)));
    const legend = el("div.legend", null, r.players.map((name, p) => el("span", null, el("i", {style: `background:${COLOURS[p % COLOURS.length]}`}), name, el("b", {class: "legend-score", "data-seat": p}))));
    main().replaceChildren(el("section.replay", null,
      el("div.table-title", null, el("h1", null, `Record #${r.id} · ${r.title}`), el("span.muted", null, resultText(r.result, r.players))),
      el("div.card.controls", null,
        el("button.secondary", {onclick: () => stepTo(0), title: "first"}, "«"),
        el("button.secondary", {onclick: () => stepTo(Math.max(0, (S.replayWanted ?? S.replayStep) - 1)), title: "previous (←)"}, "◀"),
        slider,
        el("button.secondary", {onclick: () => stepTo(Math.min(r.length, (S.replayWanted ?? S.replayStep) + 1)), title: "next (→)"}, "▶"),
        el("button.secondary", {onclick: () => stepTo(r.length), title: "last"}, "»"),
        el("span", {id: "replay-step"}, `move ${S.replayStep} of ${r.length}`)),
      el("div.card", null, el("div", {id: "chart-box"}), legend),
      el("div.board-area", null,
        el("div.board", {id: "replay-board"}),
        el("div.side", null, el("section.card", null, el("h2", null, "This move"), el("div.log", {id: "replay-log"}))))));
    updateReplay();
  }

  function updateReplay() {
    const r = S.replay;
    if (!r || !$("replay-board")) return;
    const step = S.replayStep;
    const box = $("chart-box");
    box.replaceChildren(chart(r.scores, r.players, step, box.clientWidth));
    $("replay-slider").value = step;
    $("replay-step").textContent = `move ${step} of ${r.length}`;
    for (const b of document.querySelectorAll(".legend-score")) b.textContent = ` ${(r.scores[step] || [])[b.dataset.seat] ?? ""}`;
    drawView($("replay-board"), r.game, r.view, ctx(null, null));
    const actor = step > 0 ? r.players[r.actors[step - 1]] : null;
    const lines = r.lines[step] || [];
    $("replay-log").replaceChildren(
      el("div.line.muted", null, step === 0 ? "Before the first move." : `Move ${step}, by ${actor || "?"}:`),
      ...lines.map(l => el("div.line", null, l)));
  }

  // ---------------------------------------------------------------- start
  function registerView(name, view) {
    views[name] = view;
    if (page() === "table" && S.table && S.table.game === name) renderBoard();
    if (page() === "replay" && S.replay && S.replay.game === name) updateReplay();
  }

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (page() === "replay") updateReplay(); }, 100);
  });

  document.addEventListener("DOMContentLoaded", () => { showMe(); connect(); });
  return {registerView, escape, el, h, injectCss};
})();
window.GameHall = GameHall;
