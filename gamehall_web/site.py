"""The web front end's HTTP side: pages and assets from package data, the WebSocket,
and ``WebHall``, the state its sessions share (who is signed in, the messages made
once for every spectator of a table, what the lobby and table messages say).

Routes: ``/`` (lobby), ``/table/N``, ``/records``, ``/records/N`` all serve the one
page shell (``static/index.html``; the script shows the page the path names),
``/standings`` and ``/players/NAME`` the ratings' page (``static/players.html``),
``/static/...`` its assets, ``/views/GAME.js`` each game view's drawing script,
``/ws`` the WebSocket (docs/web.md).  Nothing else is served: no directory
listings, nothing of the admin console.
"""
from __future__ import annotations

import importlib.resources
import json
import weakref
from collections import Counter, OrderedDict
from urllib.parse import urlsplit

from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger
from twisted.python.threadpool import ThreadPool
from twisted.web.http import HTTPChannel, _GenericHTTPChannelProtocol
from twisted.web.resource import Resource
from twisted.web.server import Site
from twisted.web.websocket import WebSocketResource

from gamehall.connection import REFUSED_LOG_INTERVAL, RepeatLog, Refuse
from gamehall.interfaces import IScriptDataView

from gamehall_web.records import ReplayCursor, ReplayError, record_summary
from gamehall_web.session import MAX_REPLAY, RequestError, WebSession, dumps
from gamehall_web.views import find_views, view_for

HTTP_IDLE = 15.0                # seconds an HTTP connection may wait for a request (Twisted's: 60)
TOO_MANY = (b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: 39\r\nConnection: close\r\n\r\ntoo many connections from your address\n")
REPLAY_THREADS = 2              # threads computing replays (engines are pure Python: off the reactor)
REPLAYS_AT_ONCE = 4             # replay requests in flight hall-wide (store read, computing or waiting)
REPLAY_CACHE = 8                # computed records kept, by record id (a finished record never changes)
SPECTATOR_NAMES = 20            # spectators named in a lobby table line (the rest are counted)
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png",
                 ".txt": "text/plain; charset=utf-8", ".json": "application/json"}
# The page runs only the hall's own scripts: an injected <script> or onerror= does nothing.
SECURITY_HEADERS = {
    b"content-security-policy": b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                                b"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
                                b"base-uri 'none'; form-action 'none'",
    b"x-content-type-options": b"nosniff",
    b"referrer-policy": b"no-referrer",
    b"x-frame-options": b"DENY",
}
_log = Logger(namespace="gamehall_web.site")


def _content_type(name: str) -> str:
    for ext, kind in CONTENT_TYPES.items():
        if name.endswith(ext):
            return kind
    return "application/octet-stream"


def package_files(package: str, folder: str) -> dict[str, bytes]:
    """Every file under ``folder`` of ``package`` (package data), by path relative to it."""
    files: dict[str, bytes] = {}

    def walk(node, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir():
                if child.name != "__pycache__":
                    walk(child, prefix + child.name + "/")
            else:
                files[prefix + child.name] = child.read_bytes()

    root = importlib.resources.files(package).joinpath(folder)
    if root.is_dir():
        walk(root, "")
    return files


def read_script(script) -> bytes | None:
    """A view's drawing script from its package, or None (logged) when it cannot be read."""
    try:
        package, path = script
        return importlib.resources.files(package).joinpath(path).read_bytes()
    except Exception as exc:
        _log.error("view script {script!r} cannot be read: {exc}", script=script, exc=exc)
        return None


def view_script(view) -> bytes | None:
    """The drawing script served for ``view``: its file, after its ``script_data()`` (if the
    view has that) as ``GameHall.viewData[game]``, for what never changes (a game's map),
    sent once with the script rather than in every state."""
    script = getattr(view, "script", None)
    body = read_script(script) if script else None
    if body is None or not IScriptDataView.providedBy(view):
        return body
    try:
        # JSON inside a script: "</" must not end an inline <script> (the test page inlines it)
        text = json.dumps(view.script_data(), separators=(",", ":")).replace("</", "<\\/")
    except Exception as exc:
        _log.error("view data of {game!r} cannot be made: {exc}", game=view.game, exc=exc)
        return None
    head = f"(GameHall.viewData = GameHall.viewData || {{}})[{json.dumps(view.game)}] = {text};\n"
    return head.encode("utf-8") + body


class WebHall:
    """What every web session shares: the hall, the views, who is signed in, and the
    messages made once for many recipients."""

    name = "web"

    def __init__(self, hall, views: dict | None = None, compute=None) -> None:
        self.hall = hall
        # compute(fn, *args) -> Deferred: fn run off the reactor (default: a small thread pool)
        self._compute = compute
        self._pool = None
        self.replays_busy = 0
        self._replays: OrderedDict = OrderedDict()         # record id -> computed ReplayCursor
        self.views = find_views() if views is None else dict(views)
        self.sessions: dict[str, WebSession] = {}        # nickname key -> signed-in session
        self.per_peer: Counter = Counter()
        self._shared = weakref.WeakKeyDictionary()         # table -> (detail, text)
        self._lobby_last: tuple = (None, None)
        self._chat_last: tuple = (None, None, None)
        # thousands of refused or idle connections from one address: a line a minute, not each
        self.refusals = RepeatLog(hall.clock, REFUSED_LOG_INTERVAL, self._log_refused)
        self.idle_closed = RepeatLog(hall.clock, REFUSED_LOG_INTERVAL, self._log_idle)

    def _log_refused(self, host: str, count: int, first: bool) -> None:
        _log.info("web: refused {count} connection(s) from {host}{when}: over the per-peer cap of {cap}",
                  count=count, host=host, cap=self.hall.max_per_peer,
                  when="" if first else f" in the last {REFUSED_LOG_INTERVAL:g} s")

    def _log_idle(self, host: str, count: int, first: bool) -> None:
        _log.info("web: closed {count} HTTP connection(s) from {host}{when}: no request for {idle:g} s",
                  count=count, host=host, idle=HTTP_IDLE,
                  when="" if first else f" in the last {REFUSED_LOG_INTERVAL:g} s")

    def refused(self, host: str) -> None:
        self.hall.stats.refused["web"] += 1
        self.refusals.note(host)

    # -- views -----------------------------------------------------------------
    def view(self, game):
        return view_for(game, self.views)

    def script_url(self, game) -> str | None:
        view = self.views.get(game.name)
        return f"/views/{game.name}.js" if view is not None and getattr(view, "script", None) else None

    # -- sessions ----------------------------------------------------------------
    def session_opened(self, session: WebSession) -> None:
        self.per_peer[session.peer] += 1

    def session_closed(self, session: WebSession) -> None:
        if getattr(session, "peer_counted", True):
            session.peer_counted = False
            self.per_peer[session.peer] -= 1
            if self.per_peer[session.peer] <= 0:
                del self.per_peer[session.peer]

    def shared(self, table, detail, make) -> str | None:
        """The text ``make()`` returns for this table event, made once however many
        spectators receive it (the table passes the same ``detail`` to each)."""
        entry = self._shared.get(table)
        if entry is not None and entry[0] is detail:
            return entry[1]
        text = make()
        self._shared[table] = (detail, text)
        return text

    # -- the lobby -----------------------------------------------------------------
    def game_info(self, game) -> dict:
        info = {"name": game.name, "title": game.title, "variants": list(game.variants),
                "bots": list(game.bots), "min_seats": game.min_seats, "max_seats": game.max_seats,
                "view": game.name in self.views}
        # a game whose variants are a base plus flags ("classic+no-pot") names its flags,
        # in their order, with their words: the create form offers one checkbox each
        options = getattr(game, "variant_options", None)
        if options:
            info["options"] = [[flag, str(text)] for flag, text in options.items()]
        return info

    def table_summary(self, summary: dict) -> dict:
        """A table line for the browser (from ``Table.summary()``): spectators counted, the seats'
        ratings (gamehall.seat_ratings)."""
        line = dict(summary)
        spectators = summary.get("spectators") or []
        line["spectators"] = spectators[:SPECTATOR_NAMES]
        line["spectator_count"] = len(spectators)
        game = self.hall.games.get(summary.get("game"))
        line["title"] = game.title if game is not None else summary.get("game")
        line["min_seats"] = game.min_seats if game is not None else None
        # each seat's rating (None: a guest, or not read yet: the table is redrawn once it is)
        table = self.hall.tables.get(summary.get("id"))
        if table is not None:
            line["ratings"] = self.hall.seat_ratings.for_table(table)
        return line

    @staticmethod
    def nobody_at(summary: dict) -> bool:
        """A waiting table nobody sits at or watches (the DAIDE front end's open Diplomacy
        table, always there): not in the web lobby until someone is (docs/web.md)."""
        return (summary.get("state") == "waiting" and not summary.get("seats")
                and not summary.get("spectators") and not summary.get("visitors"))

    def lobby_snapshot(self) -> dict:
        summaries = (t.summary() for t in self.hall.tables.values())
        return {"type": "lobby",
                "users": [{"nickname": u.nickname, "frontend": u.frontend, "where": u.where()}
                          for u in self.hall.who()],
                "tables": [self.table_summary(t) for t in summaries if not self.nobody_at(t)],
                "games": [self.game_info(g) for _, g in sorted(self.hall.games.items())]}

    def lobby_change_text(self, event: str, detail: dict) -> str | None:
        if self._lobby_last[0] is detail:
            return self._lobby_last[1]
        if event == "user_joined":
            message = {"type": "users", "joined": [detail], "left": []}
        elif event == "user_left":
            message = {"type": "users", "joined": [], "left": [detail]}
        elif event == "users_changed":
            message = {"type": "users", "joined": detail.get("joined", []), "left": detail.get("left", [])}
        elif event in ("table_added", "table_changed") and self.nobody_at(detail):
            message = {"type": "lobby_table_removed", "id": detail.get("id")}   # hidden while empty
        elif event in ("table_added", "table_changed"):
            message = {"type": "lobby_table", "table": self.table_summary(detail)}
        elif event == "table_removed":
            message = {"type": "lobby_table_removed", "id": detail.get("id")}
        elif event == "tables_changed":      # the lobby's batch: one message for the lot
            tables = detail.get("added", []) + detail.get("changed", [])
            message = {"type": "lobby_tables",
                       "tables": [self.table_summary(t) for t in tables if not self.nobody_at(t)],
                       "removed": [t.get("id") for t in tables if self.nobody_at(t)] + detail.get("removed", [])}
        else:
            return None
        text = dumps(message)
        self._lobby_last = (detail, text)
        return text

    def lobby_chat_text(self, sender: str, text: str) -> str:
        last_sender, last_text, encoded = self._chat_last
        if sender is last_sender and text is last_text:
            return encoded
        encoded = dumps({"type": "chat", "from": sender, "text": text})
        self._chat_last = (sender, text, encoded)
        return encoded

    # -- tables ----------------------------------------------------------------------
    def deadline_in(self, table, seat: int | None) -> float | None:
        if seat is None or table.engine is None or table.engine.pending_seat() != seat:
            return None
        deadline = table.turn_deadline()
        return None if deadline is None else round(max(0.0, deadline - self.hall.clock.seconds()), 1)

    def table_state(self, table, seat: int | None) -> dict:
        """Everything the page needs to draw a table, as ``seat`` (None: a spectator) sees it."""
        view = self.view(table.game)
        engine = table.engine
        state = {"type": "table_state", "table": self.table_summary(table.summary()), "seat": seat,
                 "script": self.script_url(table.game), "seq": table.seq, "view": None,
                 "decision": None, "deadline_in": None}
        if engine is not None:
            state["pending"] = engine.pending_seat()
            state["view"] = view.spectator(engine) if seat is None else view.seat(engine, seat)
            if seat is not None:
                state["decision"] = view.decision(engine, seat)
                state["deadline_in"] = self.deadline_in(table, seat)
        return state

    def decision_message(self, table, seat: int) -> dict:
        view = self.view(table.game)
        return {"type": "decision", "table": table.id, "seat": seat,
                "decision": view.decision(table.engine, seat) if table.engine is not None else None,
                "deadline_in": self.deadline_in(table, seat)}

    def table_message(self, table, event: str, detail: dict, seat: int | None) -> str | None:
        """The message for one table event, as ``seat`` (None: a spectator) sees it."""
        if event == "game":
            view = self.view(table.game)
            engine = table.engine
            message = {"type": "table", "event": "game", "table": table.id, "seq": detail.get("seq"),
                       "actor": detail.get("seat"),
                       "lines": view.describe(engine, seat, detail.get("events") or [])}
            # the engine may be ahead of this event (an action applied, not yet stored):
            # then its state waits for the event that catches up
            if detail.get("seq") == table.seq:
                message["view"] = view.spectator(engine) if seat is None else view.seat(engine, seat)
                message["pending"] = engine.pending_seat()
                if seat is not None:
                    message["decision"] = view.decision(engine, seat)
                    message["deadline_in"] = self.deadline_in(table, seat)
            return dumps(message)
        if event == "started":
            return dumps(self.table_state(table, seat))
        if event == "chat":
            return dumps({"type": "table_chat", "table": table.id, "from": detail.get("nickname"),
                          "text": detail.get("text"), "notice": detail.get("notice")})
        if event == "finished":
            return dumps({"type": "table", "event": "finished", "table": table.id,
                          "result": detail.get("result"), "players": table.players()})
        if event == "aborted":
            return dumps({"type": "table", "event": "aborted", "table": table.id, "reason": detail.get("reason")})
        public = {k: detail.get(k) for k in ("seat", "nickname", "bot", "kind", "held") if k in detail}
        return dumps({"type": "table", "event": event, "table": table.id, "detail": public,
                      "summary": self.table_summary(table.summary())})

    # -- records -------------------------------------------------------------------------
    def compute(self, fn, *args):
        """``fn(*args)`` off the reactor, on the hall's replay threads: a Deferred of its result."""
        if self._compute is not None:
            return self._compute(fn, *args)
        from twisted.internet import reactor
        if self._pool is None:
            self._pool = ThreadPool(0, REPLAY_THREADS, "gamehall-web-replay")
            self._pool.start()
            reactor.addSystemEventTrigger("during", "shutdown", self._pool.stop)
        return deferToThreadPool(reactor, self._pool, fn, *args)

    def replay_slot(self) -> bool:
        """Take one of the hall's REPLAYS_AT_ONCE places for a replay request, or False."""
        if self.replays_busy >= REPLAYS_AT_ONCE:
            return False
        self.replays_busy += 1
        return True

    def replay_done(self) -> None:
        self.replays_busy -= 1

    def cached_replay(self, record_id: int):
        """A cursor of its own over a record computed lately, or None."""
        cursor = self._replays.get(record_id)
        if cursor is None:
            return None
        self._replays.move_to_end(record_id)
        return cursor.fork()

    def keep_replay(self, cursor) -> None:
        self._replays[cursor.id] = cursor.fork()
        self._replays.move_to_end(cursor.id)
        while len(self._replays) > REPLAY_CACHE:
            self._replays.popitem(last=False)

    def record_summary(self, row: dict) -> dict:
        return record_summary(row, self.hall.games)

    def replay_cursor(self, row, record_id: int) -> ReplayCursor:
        game = self.hall.games.get((row or {}).get("game"))
        if row is not None and game is None:
            raise RequestError(f"Record #{record_id} is a game of {row.get('game')!r}, not installed here")
        try:
            cursor = ReplayCursor(record_id, row, game, self.view(game) if game else None, MAX_REPLAY)
        except ReplayError as exc:
            raise RequestError(str(exc)) from None
        cursor.script = self.script_url(game)
        return cursor


class Page(Resource):
    """Fixed bytes with a content type and the security headers."""

    isLeaf = True

    def __init__(self, body: bytes, content_type: str, cache: bool = False) -> None:
        super().__init__()
        self.body, self.content_type, self.cache = body, content_type, cache

    def render_GET(self, request) -> bytes:
        request.setHeader(b"content-type", self.content_type.encode())
        request.setHeader(b"cache-control", b"max-age=300" if self.cache else b"no-cache")
        for name, value in SECURITY_HEADERS.items():
            request.setHeader(name, value)
        return self.body

    render_HEAD = render_GET


class NotFound(Resource):
    isLeaf = True

    def render(self, request) -> bytes:
        request.setResponseCode(404)
        request.setHeader(b"content-type", b"text/plain; charset=utf-8")
        for name, value in SECURITY_HEADERS.items():
            request.setHeader(name, value)
        return b"Not found\n"


class Folder(Resource):
    """Named pages only (``name -> Page``): anything else is 404, nothing is listed."""

    def __init__(self, pages: dict[str, Page]) -> None:
        super().__init__()
        self.pages = pages

    def getChild(self, name: bytes, request):
        rest = b"/".join([name, *request.postpath])
        page = self.pages.get(rest.decode("utf-8", "replace"))
        if page is None:
            return NotFound()
        request.postpath = []
        return page

    def render(self, request) -> bytes:
        return NotFound().render(request)


class CheckedWebSocket(WebSocketResource):
    """The WebSocket: refused from another site's page (Origin must be this hall's own,
    as the Host header names it) and over the per-address connection cap."""

    def __init__(self, web: WebHall) -> None:
        super().__init__(self)
        self.web = web

    def render_GET(self, request):
        origin = request.getHeader(b"origin")
        host = (request.getHeader(b"host") or b"").decode("latin-1").lower()
        if origin is not None:
            parts = urlsplit(origin.decode("latin-1"))
            if parts.scheme not in ("http", "https") or parts.netloc.lower() != host:
                _log.info("web: WebSocket from origin {origin} refused (host {host})",
                          origin=origin.decode("latin-1")[:100], host=host[:100])
                return self._refuse(request, 403, b"cross-origin WebSocket refused")
        peer = request.getClientAddress()
        peer = getattr(peer, "host", str(peer))
        cap = self.web.hall.max_per_peer
        if cap and self.web.per_peer[peer] >= cap:
            self.web.refused(peer)
            return self._refuse(request, 429, b"too many connections from your address")
        return super().render_GET(request)

    @staticmethod
    def _refuse(request, code: int, text: bytes) -> bytes:
        request.setResponseCode(code)
        request.setHeader(b"content-type", b"text/plain; charset=utf-8")
        return text + b"\n"

    def buildProtocol(self, request) -> WebSession:
        """(the WebSocketServerFactory of this resource)"""
        request.channel.setTimeout(None)     # the session has its own idle timeout
        peer = request.getClientAddress()
        session = WebSession(self.web, getattr(peer, "host", str(peer)))
        session.channel = request.channel
        self.web.session_opened(session)
        return session


class Root(Resource):
    def __init__(self, web: WebHall) -> None:
        super().__init__()
        files = package_files("gamehall_web", "static")
        shell = Page(files.pop("index.html"), CONTENT_TYPES[".html"])
        self.shell = shell
        # /standings and /players/NAME: their own page (static/players.js draws it)
        self.players = Page(files.pop("players.html"), CONTENT_TYPES[".html"])
        self.static = Folder({name: Page(body, _content_type(name)) for name, body in files.items()})
        scripts = {}
        for game, view in web.views.items():
            body = view_script(view)
            if body is not None:
                scripts[f"{game}.js"] = Page(body, CONTENT_TYPES[".js"])
        self.views = Folder(scripts)
        self.ws = CheckedWebSocket(web)

    def getChild(self, name: bytes, request):
        if name == b"" and not request.postpath:
            return self.shell
        if name in (b"table", b"records") and len(request.postpath) <= 1:
            request.postpath = []
            return self.shell
        if (name == b"standings" and not request.postpath) or (
                name == b"players" and len(request.postpath) == 1 and request.postpath[0]):
            request.postpath = []
            return self.players
        if name == b"static":
            return self.static
        if name == b"views":
            return self.views
        if name == b"ws" and not request.postpath:
            return self.ws
        return NotFound()


class _HallChannel(HTTPChannel):
    """An HTTP connection whose idle timeout is not logged one line per connection."""

    def timeoutConnection(self) -> None:
        peer = self.transport.getPeer() if self.transport is not None else None
        self.site.web.idle_closed.note(getattr(peer, "host", str(peer)))
        if self.abortTimeout is not None:
            self._abortingCall = self.callLater(self.abortTimeout, self.forceAbortClient)
        self.loseConnection()


class _CountedConnection(_GenericHTTPChannelProtocol):
    """One TCP connection of the site (pages, assets, or a WebSocket once upgraded), counted
    against its address's cap until it is lost, whatever protocol it speaks by then."""

    peer_host = None
    counted_by = None

    def connectionLost(self, reason):
        site, self.counted_by = self.counted_by, None
        if site is not None:
            site.connection_closed(self.peer_host)
        return super().connectionLost(reason)


class WebSite(Site):
    """The hall's web site; requests are not access-logged (the hall logs what matters).
    Every connection counts against ``--max-per-peer`` (as on every front end); over it,
    a 429 and the connection closed (logged as a count per address, a line a minute)."""

    def __init__(self, resource, web: WebHall) -> None:
        super().__init__(resource, timeout=HTTP_IDLE, reactor=web.hall.clock)
        self.web = web
        self.per_peer: Counter = Counter()

    def protocol(self):
        return _CountedConnection(_HallChannel())

    def buildProtocol(self, addr):
        host = getattr(addr, "host", str(addr))
        cap = self.web.hall.max_per_peer
        if cap and self.per_peer[host] >= cap:
            self.web.refused(host)
            return Refuse(TOO_MANY)
        connection = super().buildProtocol(addr)
        self.per_peer[host] += 1
        connection.peer_host, connection.counted_by = host, self
        return connection

    def connection_closed(self, host: str) -> None:
        self.per_peer[host] -= 1
        if self.per_peer[host] <= 0:
            del self.per_peer[host]

    def stopFactory(self) -> None:
        super().stopFactory()
        self.web.refusals.stop()
        self.web.idle_closed.stop()

    def log(self, request) -> None:
        pass


def build_site(hall, views: dict | None = None) -> WebSite:
    web = WebHall(hall, views)
    return WebSite(Root(web), web)


def address_for_people(endpoint: str) -> str | None:
    """``tcp:8080`` -> ``http://localhost:8080/``; ``ssl:8443:...`` -> https; the interface
    named when there is one; None for an endpoint a browser cannot be sent to (unix:, port 0)."""
    scheme = {"tcp": "http", "ssl": "https"}.get(endpoint.split(":", 1)[0])
    parts = endpoint.split(":")
    if scheme is None or len(parts) < 2 or not parts[1].isdigit() or parts[1] == "0":
        return None
    host = next((p.split("=", 1)[1] for p in parts[2:] if p.startswith("interface=")), "")
    host = "localhost" if host in ("", "0.0.0.0", "::", "127.0.0.1") else host
    return f"{scheme}://{host}:{parts[1]}/"
