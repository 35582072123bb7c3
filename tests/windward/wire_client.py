"""A Windward Code Wars client written from windward-protocol.md alone, for end-to-end tests.

It shares no code with the server: its own framing (4-byte little-endian
length, UTF-8 XML, §1), its own XML handling (``xml.etree``), and it checks
every message it receives against what the document says the sample clients
read (§4, §5, §9): anything missing or malformed is collected in
``problems``.  It plays like the samples (random legal-looking choices, the
server normalises), in the Java style (XML declaration, avatar in 76-column
base64 lines, ``card`` always sent, the merge reply's ``cmd="query-card"``
bug) or the Python style (compact, attributes sorted, no ``card``).

Misbehaviours for robustness tests (``mode``):

* ``"garbage"``: every third query is answered with junk (random bytes,
  malformed XML, a wrong msg-id, absurd values), never with a proper reply;
* ``"silent"``: never answers anything (not even ``setup``);
* ``"drop"``: closes its socket after ``drop_after`` queries, then joins
  again under its name (a rejoin) and carries on;
* ``"vanish"``: closes its socket after ``drop_after`` queries and is gone.
"""
from __future__ import annotations

import base64
import random
import socket
import struct
import threading
import time
import xml.etree.ElementTree as ET

CHAINS = ["Amazon", "Google", "Hewlett-Packard", "JetBrains", "Microsoft", "salesforce.com", "Windward"]
HOTEL_ATTRS = ["name", "start-price", "num-tiles", "is-active", "is-safe", "stock-price", "first-majority",
               "second-majority", "num-avail-shares"]
QUERIES = ("query-card", "query-tile", "query-tile-purchase", "query-merge")

# a 32x32 PNG (one colour), built by hand so the test needs no image library
def _png32() -> bytes:
    import zlib
    raw = b"".join(b"\x00" + b"\x20\x80\xc0" * 32 for _ in range(32))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


AVATAR = _png32()


def _esc(v) -> str:
    return (str(v).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))


class WireClient:
    """One client; ``start()`` runs it in a thread, ``join()`` waits for it."""

    def __init__(self, name: str, port: int, style: str = "java", mode: str = "play", seed: int = 0,
                 school: str | None = "Test U", drop_after: int = 10, timeout: float = 30.0):
        self.name, self.port, self.style, self.mode = name, port, style, mode
        self.school, self.drop_after, self.timeout = school, drop_after, timeout
        self.rng = random.Random(f"{name}:{seed}")
        self.my_guid: str | None = None
        self.setups = 0
        self.queries: dict[str, int] = {q: 0 for q in QUERIES}
        self.answered = 0
        self.got_exit = False
        self.closed_by_server = False
        self.problems: list[str] = []
        self.scoreboards: list[str] = []     # my <scoreboard> text at each setup
        self.players_seen: list[list[str]] = []
        self.error: BaseException | None = None
        self.sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._buf = b""
        self._queries_total = 0
        self._dropped = False
        self._retries = 0
        self._frames_since_connect = 0

    # -- framing (§1) --------------------------------------------------------
    def connect(self) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.timeout)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self._buf = b""
        self._frames_since_connect = 0
        self.send(self.join_xml())

    def send(self, payload: bytes | str) -> None:
        if isinstance(payload, str):
            payload = payload.encode("utf-8")
        assert payload, "never send an empty frame"
        self.sock.sendall(struct.pack("<i", len(payload)) + payload)

    def read_frame(self) -> bytes | None:
        while True:
            if len(self._buf) >= 4:
                (n,) = struct.unpack("<i", self._buf[:4])
                if n <= 0:
                    self.problems.append(f"frame length {n}")
                    self._buf = self._buf[4:]
                    continue
                if len(self._buf) >= 4 + n:
                    frame, self._buf = self._buf[4:4 + n], self._buf[4 + n:]
                    return frame
            data = self.sock.recv(65536)
            if not data:
                return None
            self._buf += data

    # -- messages out ----------------------------------------------------------
    def _decl(self) -> str:
        return '<?xml version="1.0" encoding="UTF-8"?>\n' if self.style == "java" else ""

    def _element(self, tag: str, attrs: dict, inner: str = "") -> str:
        items = list(attrs.items())
        if self.style == "python":
            items.sort()
        a = "".join(f' {k}="{_esc(v)}"' for k, v in items if v is not None)
        return self._decl() + (f"<{tag}{a}>{inner}</{tag}>" if inner else f"<{tag}{a}/>")

    def join_xml(self) -> str:
        attrs = {"name": self.name, "language": "Java" if self.style == "java" else "Python"}
        if self.school is not None:
            attrs["school"] = self.school
        b64 = base64.b64encode(AVATAR).decode()
        if self.style == "java":        # MIME style: 76-character lines
            b64 = "\r\n".join(b64[i:i + 76] for i in range(0, len(b64), 76))
        return self._element("join", attrs, f"<avatar>{b64}</avatar>")

    # -- the game --------------------------------------------------------------
    def start(self) -> "WireClient":
        self._thread = threading.Thread(target=self._run, name=f"wire-{self.name}", daemon=True)
        self._thread.start()
        return self

    def wait(self, timeout: float = 120.0) -> None:
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise AssertionError(f"{self.name} still running")
        if self.error is not None:
            raise self.error

    def _run(self) -> None:
        try:
            self.connect()
            self.loop()
        except BaseException as exc:   # reported by wait()
            self.error = exc
        finally:
            if self.sock is not None:
                self.sock.close()

    def loop(self) -> None:
        while True:
            frame = self.read_frame()
            if frame is None:
                if self._dropped and self._frames_since_connect == 0 and self._retries < 40:
                    # the rejoin raced the server noticing the old socket's close: a
                    # "duplicate of a connected player" is refused; try again
                    self._retries += 1
                    self.sock.close()
                    time.sleep(0.05)
                    self.connect()
                    continue
                self.closed_by_server = True
                return
            self._frames_since_connect += 1
            root = self.parse(frame)
            if root is None:
                continue
            if root.tag == "exit":
                self.got_exit = True
                if frame.strip() != b"<exit/>":
                    self.problems.append(f"exit is not the bare <exit/>: {frame[:60]!r}")
                return
            if root.tag == "setup":
                self.on_setup(root)
            elif root.tag in QUERIES:
                if self.on_query(root):
                    return
            else:
                self.problems.append(f"unexpected root <{root.tag}>")

    def parse(self, frame: bytes):
        if b"<!DOCTYPE" in frame:
            self.problems.append("DOCTYPE sent")
        try:
            text = frame.decode("utf-8")
        except UnicodeDecodeError:
            self.problems.append("not UTF-8")
            return None
        if text.startswith("<?xml"):
            self.problems.append("the server sent an XML declaration (the original did not)")
        try:
            return ET.fromstring(text)
        except ET.ParseError as exc:
            self.problems.append(f"unparseable: {exc}")
            return None

    def on_setup(self, root) -> None:
        self.setups += 1
        self.check_state(root, query=False)
        self.my_guid = root.get("my-guid")
        if root.get("game-start") != "true":
            self.problems.append("setup without game-start=true")
        if root.get("msg-id") is None:
            self.problems.append("setup without msg-id")
        me = self.find_me(root)
        self.scoreboards.append(me.findtext("scoreboard", "") if me is not None else "")
        self.players_seen.append([p.get("name") for p in root.iter("player")])
        if self.mode != "silent":
            self.send(self._decl() + "<ready/>")

    def find_me(self, root):
        players = root.find("players")
        if players is None:
            return None
        for p in players.findall("player"):
            if self.my_guid is not None and p.get("guid") == self.my_guid:
                return p
        for p in players.findall("player"):       # the Python sample's fallback (§9)
            if p.get("name") == self.name:
                return p
        return None

    def on_query(self, root) -> bool:
        """Answer a query; True to stop the loop."""
        self.queries[root.tag] += 1
        self._queries_total += 1
        self.check_state(root, query=True)
        if self.my_guid is None:
            self.problems.append(f"{root.tag} before any setup")
        msg_id = root.get("msg-id")
        if self.mode in ("drop", "vanish") and self._queries_total == self.drop_after:
            self.sock.close()
            if self.mode == "vanish":
                return True
            self._dropped = True
            time.sleep(0.05)
            self.connect()                     # rejoin under the same name (§3.6)
            return False
        if self.mode == "silent":
            return False
        if self.mode == "garbage" and self._queries_total % 3 == 0:
            self.send_garbage(msg_id)
            return False
        reply = self.reply_for(root)
        cmd = root.tag
        if self.style == "java" and root.tag == "query-merge":
            cmd = "query-card"                 # the Java sample's bug (§5.5)
        self.send(self._element("reply", {"cmd": cmd, "msg-id": msg_id, **reply}))
        self.answered += 1
        return False

    def send_garbage(self, msg_id: str) -> None:
        kind = self.rng.randrange(5)
        if kind == 0:
            self.send(bytes(self.rng.randrange(256) for _ in range(40)))
        elif kind == 1:
            self.send(f'<reply cmd="x" msg-id="{msg_id}" tile-x="3"')          # not well-formed
        elif kind == 2:
            self.send('<reply cmd="query-tile-purchase" msg-id="not-the-one" tile-x="0" tile-y="0"/>')
        elif kind == 3:
            self.send('<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]><r>&b;</r>')
        else:
            self.send(self._element("nonsense", {"msg-id": msg_id}))

    # -- what the samples read (§4, §9) -------------------------------------------
    def check_state(self, root, query: bool) -> None:
        p = self.problems
        m = root.find("map")
        if m is None or m.get("width") != "12" or m.get("height") != "9":
            p.append(f"{root.tag}: map width/height")
        elif query:
            cols = m.findall("column")
            if len(cols) != 12:
                p.append(f"{root.tag}: {len(cols)} columns")
            for x, col in enumerate(cols):
                cells = (col.text or "").split(";")
                if col.get("x") != str(x) or len(cells) != 10 or cells[-1] != "":
                    p.append(f"{root.tag}: column {x} malformed: {col.text!r}")
                    continue
                for cell in cells[:9]:
                    if ":" not in cell or cell.split(":")[0] not in ("1", "2", "3", "4", "5"):
                        p.append(f"{root.tag}: cell {cell!r}")
                    elif cell.split(":")[0] == "2" and cell.split(":")[1] not in CHAINS:
                        p.append(f"{root.tag}: hotel cell {cell!r}")
        elif m.findall("column"):
            p.append("setup: the map has columns")
        hotels = root.find("hotels")
        names = [h.get("name") for h in hotels.findall("hotel")] if hotels is not None else []
        if names != CHAINS:
            p.append(f"{root.tag}: hotels {names}")
        for h in hotels.findall("hotel") if hotels is not None else []:
            for a in HOTEL_ATTRS:
                if h.get(a) is None:
                    p.append(f"{root.tag}: hotel {h.get('name')} lacks {a}")
            for a in HOTEL_ATTRS[1:]:
                if a in ("is-active", "is-safe"):
                    if h.get(a) not in ("true", "false"):
                        p.append(f"{root.tag}: {a}={h.get(a)!r}")
                elif not (h.get(a) or "x").isdigit():
                    p.append(f"{root.tag}: {a}={h.get(a)!r}")
        players = root.find("players")
        plist = players.findall("player") if players is not None else []
        if len(plist) != 6:
            p.append(f"{root.tag}: {len(plist)} players")
        for pl in plist:
            for a in ("cash", "guid", "name", "score"):
                if pl.get(a) is None:
                    p.append(f"{root.tag}: player lacks {a}")
            if pl.find("tiles") is not None and pl.get("name") != self.name:
                p.append(f"{root.tag}: {pl.get('name')}'s tiles sent to {self.name}")
        me = [pl for pl in plist if pl.get("name") == self.name]
        if len(me) != 1:
            p.append(f"{root.tag}: my name {self.name!r} is not echoed exactly once: {[x.get('name') for x in plist]}")
        if query and root.tag == "query-merge":
            if root.get("survivor") not in CHAINS or root.get("defunct") not in CHAINS:
                p.append("query-merge lacks survivor/defunct")
        if query and root.get("msg-id") is None:
            p.append(f"{root.tag} without msg-id")

    # -- a sample-like player ------------------------------------------------------
    def reply_for(self, root) -> dict:
        rng = self.rng
        me = self.find_me(root)
        powers = [int(x) for x in (me.findtext("powers") or "").split(";") if x] if me is not None else []
        if root.tag == "query-card":
            card = 0
            r = rng.randrange(15)
            if r == 0 and 4 in powers:
                card = 4
            elif r == 1 and 5 in powers:
                card = 5
            return {"card": card}
        if root.tag == "query-merge":
            stock = dict(e.split(":") for e in (me.findtext("stock") or "").split(";") if e) if me is not None else {}
            n = int(stock.get(root.get("defunct"), 0))
            trade = 2 * rng.randrange(n // 2 + 1)
            keep = rng.randrange(n - trade + 1)
            return {"keep": keep, "sell": n - trade - keep, "trade": trade}
        cells = {}
        for x, col in enumerate(root.find("map").findall("column")):
            for y, cell in enumerate((col.text or "").split(";")[:9]):
                cells[(x, y)] = cell.split(":")[0]
        tiles = [tuple(int(v) for v in t.split(":")) for t in (me.findtext("tiles") or "").split(";") if t] \
            if me is not None else []
        playable = [t for t in tiles if cells.get(t) == "1"]
        hotels = {h.get("name"): h for h in root.find("hotels").findall("hotel")}
        active = [n for n in CHAINS if hotels[n].get("is-active") == "true"]
        inactive = [n for n in CHAINS if hotels[n].get("is-active") != "true"]
        out: dict = {}
        if playable:
            x, y = rng.choice(playable)
            out.update({"tile-x": x, "tile-y": y})
        if inactive:
            out["created-hotel"] = rng.choice(inactive)
        if active:
            out["merge-survivor"] = rng.choice(active)
        if root.tag == "query-tile":
            return out
        card = 0
        held = [c for c in (1, 2, 3) if c in powers]
        if held and rng.randrange(8) == 0:
            card = rng.choice(held)
        if card or self.style == "java":
            out["card"] = card
        if active:
            out["buy"] = "".join(f"{rng.choice(active)}:{rng.randrange(1, 4)};" for _ in range(2))
            if card == 3:
                out["trade"] = f"{rng.choice(active)}:{rng.choice(active)};"
        return out


def run_clients(clients: list[WireClient], timeout: float = 120.0) -> None:
    for c in clients:
        c.start()
    for c in clients:
        c.wait(timeout)
