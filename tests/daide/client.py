"""A DAIDE client written from the protocol text, for the tests (not from the server's code).

``Client`` is sans-IO: ``feed(bytes)`` takes what the server sent, ``take()``
returns the bytes to send.  Messages are kept as token-name lists in
``received`` (text runs joined as ``'text'`` items).  It plays: it answers MAP
with MDF then YES (MAP), and after each NOW orders its units (random legal moves
from the map's adjacencies when ``moves`` is set, else holds; retreats at
random or disbands; builds waived, removals of its last units); it sends DRW
once the year reaches ``draw_year``.
"""
from __future__ import annotations

import json
import random
import select
import socket
import struct
import time
from pathlib import Path

TOKENS = json.loads((Path(__file__).resolve().parents[2] / "gamehall_daide" / "data"
                     / "daide-tokens.json").read_text())
NAMES = {code: name for name, code in TOKENS.items()}
BRA, KET = 0x4000, 0x4001
IM, RM, DM, FM, EM = 0, 1, 2, 3, 4


def header(kind: int, length: int) -> bytes:
    return struct.pack(">BBH", kind, 0, length)


def initial(version: int = 1, magic: int = 0xDA10) -> bytes:
    return header(IM, 4) + struct.pack(">HH", version, magic)


def tokenize(text: str) -> list:
    """'NME ( 'ann' ) ( 'v1' )' -> codes: the protocol's token table, brackets, integers, text."""
    codes, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "()":
            codes.append(BRA if c == "(" else KET)
            i += 1
        elif c == "'":
            j = text.index("'", i + 1)
            codes += [0x4B00 | ord(ch) for ch in text[i + 1:j]]
            i = j + 1
        else:
            j = i
            while j < len(text) and not text[j].isspace() and text[j] not in "()'":
                j += 1
            word = text[i:j]
            codes.append(int(word) & 0x3FFF if word.lstrip("-").isdigit() else TOKENS[word.upper()])
            i = j
    return codes


def dm(text: str) -> bytes:
    body = b"".join(struct.pack(">H", code) for code in tokenize(text))
    return header(DM, len(body)) + body


def words(payload: bytes) -> list:
    """A DM payload as a flat list: names, '(' ')', ints, and "'text'" for runs of ASCII."""
    out, run = [], ""
    for (code,) in struct.iter_unpack(">H", payload):
        if code >> 8 == 0x4B:
            run += chr(code & 0xFF)
            continue
        if run:
            out.append(f"'{run}'")
            run = ""
        if code == BRA:
            out.append("(")
        elif code == KET:
            out.append(")")
        elif code < 0x4000:
            out.append(code - 0x4000 if code & 0x2000 else code)
        else:
            out.append(NAMES.get(code, f"0x{code:04X}"))
    if run:
        out.append(f"'{run}'")
    return out


def nest(flat: list) -> list:
    stack = [[]]
    for item in flat:
        if item == "(":
            stack[-1].append([])
            stack.append(stack[-1][-1])
        elif item == ")":
            stack.pop()
        else:
            stack[-1].append(item)
    return stack[0]


def text_of(tree) -> str:
    if isinstance(tree, list):
        return "( " + " ".join(text_of(t) for t in tree) + " )"
    return str(tree)


class Client:
    def __init__(self, name: str, seed: int = 0, moves: bool = True, draw_year: int | None = None,
                 play: bool = True, observer: bool = False, rejoin: tuple | None = None) -> None:
        self.name, self.moves, self.draw_year, self.play, self.observer = name, moves, draw_year, play, observer
        self.rejoin = rejoin                  # (power, passcode): IAM instead of NME
        self.pause_at = None                  # (season, year): stop ordering at that turn
        self.rng = random.Random(seed)
        self.inbox = b""
        self.outbox = [initial()]
        self.received: list[list] = []        # DMs, as nested trees
        self.frames: list[tuple[int, bytes]] = []
        self.power = self.passcode = None
        self.adjacent: dict = {}              # (unit type, location) -> [locations]
        self.homes: dict = {}
        self.closed_by_server = False
        self.last_turn = None
        self.answered = None

    # -- bytes ---------------------------------------------------------
    def take(self) -> bytes:
        out, self.outbox = b"".join(self.outbox), []
        return out

    def send(self, text: str) -> None:
        self.outbox.append(dm(text))

    def feed(self, data: bytes) -> None:
        self.inbox += data
        while len(self.inbox) >= 4:
            kind, _, length = struct.unpack(">BBH", self.inbox[:4])
            if len(self.inbox) < 4 + length:
                return
            body, self.inbox = self.inbox[4:4 + length], self.inbox[4 + length:]
            self.frames.append((kind, body))
            if kind == RM:
                if self.rejoin:
                    self.power, self.passcode = self.rejoin
                    self.send(f"IAM ( {self.power} ) ( {self.passcode} )")
                    self.send("MDF")
                    self.send("NOW")
                elif not self.observer:
                    self.send(f"NME ( '{self.name}' ) ( 'testclient_1' )")
                else:
                    self.send("OBS")
            elif kind == DM:
                tree = nest(words(body))
                self.received.append(tree)
                self.on_message(tree)
            elif kind in (FM, EM):
                self.closed_by_server = True

    # -- what was said -----------------------------------------------------
    def names(self) -> list[str]:
        return [m[0] for m in self.received]

    def last(self, name: str):
        for m in reversed(self.received):
            if m[0] == name:
                return m
        return None

    def all(self, name: str) -> list:
        return [m for m in self.received if m[0] == name]

    def ems(self) -> list[int]:
        return [struct.unpack(">H", body)[0] for kind, body in self.frames if kind == EM]

    # -- playing ---------------------------------------------------------------
    def on_message(self, m: list) -> None:
        head = m[0]
        if head == "MAP":
            self.send("MDF")
        elif head == "MDF":
            self.learn_map(m)
            self.send(f"YES ( MAP ( {self.map_name()} ) )")
        elif head == "HLO":
            self.power, self.passcode = m[1][0], m[2][0]
        elif head == "NOW" and self.play and self.power not in (None, "UNO"):
            if self.pause_at is not None and tuple(m[1]) == self.pause_at:
                self.play = False             # the test takes over from here
                return
            self.order(m)
        elif head == "MIS" and self.play:
            self.answer_builds(m)

    def map_name(self) -> str:
        found = self.last("MAP")
        return found[1][0] if found else "'STANDARD'"

    def learn_map(self, m: list) -> None:
        centres = m[2][0]
        for group in centres:
            self.homes[group[0]] = group[1:]
        for entry in m[3]:
            province = entry[0]
            for part in entry[1:]:
                kind = part[0]
                if isinstance(kind, list):            # (FLT coast)
                    key = ("FLT", (province, kind[1]))
                else:
                    key = (kind, province)
                self.adjacent[key] = [tuple(p) if isinstance(p, list) else p for p in part[1:]]

    def loc_text(self, loc) -> str:
        return f"( {loc[0]} {loc[1]} )" if isinstance(loc, tuple) else loc

    def order(self, now: list) -> None:
        season, year = now[1]
        self.last_turn = (season, year)
        mine = [u for u in now[2:] if u[0] == self.power]
        orders = []
        if season in ("SPR", "FAL"):
            for unit in mine:
                kind, loc = unit[1], unit[2]
                loc = tuple(loc) if isinstance(loc, list) else loc
                unit_text = f"( {self.power} {kind} {self.loc_text(loc)} )"
                options = self.adjacent.get((kind, loc), [])
                if self.moves and options and self.rng.random() < 0.7:
                    orders.append(f"( {unit_text} MTO {self.loc_text(self.rng.choice(options))} )")
                else:
                    orders.append(f"( {unit_text} HLD )")
        elif season in ("SUM", "AUT"):
            for unit in mine:
                if len(unit) > 3 and unit[3] == "MRT":
                    loc = tuple(unit[2]) if isinstance(unit[2], list) else unit[2]
                    unit_text = f"( {self.power} {unit[1]} {self.loc_text(loc)} )"
                    places = unit[4]
                    if places and self.moves:
                        target = self.rng.choice(places)
                        target = tuple(target) if isinstance(target, list) else target
                        orders.append(f"( {unit_text} RTO {self.loc_text(target)} )")
                    else:
                        orders.append(f"( {unit_text} DSB )")
        else:
            self.send("MIS")
        if orders:
            self.send("SUB " + " ".join(orders))
        if self.draw_year is not None and year >= self.draw_year:
            self.send("DRW")

    def answer_builds(self, mis: list) -> None:
        """In a build phase (after asking MIS): waive builds, remove the last units."""
        now = self.last("NOW")
        if now is None or now[1][0] != "WIN" or len(mis) != 2 or not isinstance(mis[1], list) \
                or len(mis[1]) != 1 or not isinstance(mis[1][0], int) or self.answered == now[1]:
            return
        self.answered = now[1]
        (count,) = mis[1]
        mine = [u for u in now[2:] if u[0] == self.power]
        if count < 0:
            self.send("SUB " + " ".join(f"( {self.power} WVE )" for _ in range(-count)))
        elif count > 0:
            orders = []
            for unit in mine[-count:]:
                loc = tuple(unit[2]) if isinstance(unit[2], list) else unit[2]
                orders.append(f"( ( {self.power} {unit[1]} {self.loc_text(loc)} ) REM )")
            self.send("SUB " + " ".join(orders))


class Net:
    """Clients on real loopback sockets, driven from one select loop (bounded in time)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.socks: dict[Client, socket.socket] = {}

    def connect(self, client: Client) -> Client:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        self.socks[client] = sock
        return client

    def drop(self, client: Client) -> None:
        self.socks.pop(client).close()

    def step(self, timeout: float = 0.05) -> None:
        for client, sock in list(self.socks.items()):
            data = client.take()
            if data:
                sock.setblocking(True)
                sock.sendall(data)
                sock.setblocking(False)
        ready, _, _ = select.select(list(self.socks.values()), [], [], timeout)
        for client, sock in list(self.socks.items()):
            if sock in ready:
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    data = b""
                if not data:
                    client.closed_by_server = True
                    self.socks.pop(client).close()
                    continue
                client.feed(data)

    def run(self, until, seconds: float = 60.0) -> None:
        deadline = time.monotonic() + seconds
        while not until():
            if time.monotonic() > deadline:
                raise AssertionError("timed out; last messages: " + "; ".join(
                    f"{c.name}: {[text_of(m) for m in c.received[-3:]]}" for c in self.socks))
            self.step()

    def close(self) -> None:
        for sock in self.socks.values():
            sock.close()
        self.socks.clear()
