"""A NetAcquire client written from the protocol text and the notes, for tests.

It does not use ``gamehall_acquire.wire``: it has its own directive
parser, keeps its own rack (from AT/SB/SV Visible) and score sheet (from SV
captions), and answers GT/GC/GD/GP from what it was sent, the way a deployed
client would.  ``PlayerLogic`` is transport-free; the protocol tests drive it
over a StringTransport and the end-to-end test over a blocking socket.
"""
from __future__ import annotations

import random
import socket
import time

from tests.wireclient import run_sockets_until

COLOURS = [255, 65535, 16711680, 65280, 16512, 16776960, 16711935]   # Luxor .. Imperial
NAMES = ["Luxor", "Tower", "American", "Festival", "Worldwide", "Continental", "Imperial"]
PLAYABLE = {12632256, 12648384}
EMPTY_CELL = 12648447          # SB state of an empty board cell


def split_directives(buffer: bytes) -> tuple[list[str], bytes]:
    """Complete directives (without ';:') and the unconsumed rest."""
    out, start, inq, i = [], 0, False, 0
    while i < len(buffer):
        c = buffer[i:i + 1]
        if c == b'"':
            inq = not inq
        elif not inq and buffer[i:i + 2] == b";:":
            out.append(buffer[start:i].decode("ascii").strip())
            i += 2
            start = i
            continue
        i += 1
    return out, buffer[start:]


def parse(directive: str) -> tuple[str, list[str]]:
    """(code, params); message texts keep no quotes; "" inside quotes is one quote."""
    code, _, rest = directive.partition(";")
    if code in ("LM", "GM", "M"):
        return code, [rest[1:-1].replace('""', '"')]
    params, cur, inq, i = [], "", False, 0
    if rest == "":
        return code, []
    while i < len(rest):
        c = rest[i]
        if inq:
            if c == '"' and rest[i + 1:i + 2] == '"':
                cur += '"'
                i += 1
            elif c == '"':
                inq = False
            else:
                cur += c
        elif c == '"':
            inq = True
        elif c == ",":
            params.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    params.append(cur)
    return code, params


class PlayerLogic:
    """State of one client and its answers to the host's requests."""

    def __init__(self, name: str, seed: int = 0, end_game: bool = True) -> None:
        self.name = name
        self.rng = random.Random(seed)
        self.end_game = end_game
        self.rack: dict[int, tuple[int, int]] = {}        # slot -> (tile id, colour)
        self.visible: dict[int, bool] = {}
        self.board: dict[int, int] = {}                   # tile id -> state
        self.marked: set[int] = set()                     # cells shown as "in my rack" (AT until an SB)
        self.sheet: dict[int, str] = {}
        self.colours: dict[int, int] = {}
        self.states: list[int] = []
        self.gm: list[str] = []
        self.room: list[str] = []                         # the game room window: cleared on SS;3 (Java client)
        self.lm: list[str] = []
        self.boxes: list[str] = []
        self.requests: list[tuple[str, list[str]]] = []
        self.log: list[tuple[str, list[str]]] = []
        self.ended = False
        self.status = ""
        self.auto_login = True

    # what the client knows
    def value(self, index: int) -> int:
        text = self.sheet.get(index, "").strip()
        return 0 if text in ("", "-") else int(text)

    def names(self) -> list[str]:
        """Players as deployed clients count them: name captions 1.. until one never sent ("" counts)."""
        names = []
        for i in range(1, 7):
            if i not in self.sheet:
                break
            names.append(self.sheet[i])
        return names

    def cash(self) -> list[int]:
        return [self.value(82 + i) for i in range(len(self.names()))]

    def tiles(self) -> list[int]:
        return sorted(tile for slot, (tile, _) in self.rack.items() if self.visible.get(slot, True))

    # receiving
    def receive(self, code: str, params: list[str]) -> list[str]:
        """Update the state; return the directives to send back (without ';:')."""
        self.log.append((code, params))
        if code == "AT":
            slot, tile, colour = (int(p) for p in params[:3])
            self.rack[slot] = (tile, colour)
            self.visible[slot] = True            # AT shows the button (as the Java client does)
            self.marked.add(tile)                # and marks the tile's board cell as in my rack
        elif code == "SB":
            tile, state = int(params[0]), int(params[1])
            if state == EMPTY_CELL:
                self.board.pop(tile, None)
            else:
                self.board[tile] = state
            self.marked.discard(tile)
            for slot, (t, _) in list(self.rack.items()):
                if t == tile:
                    del self.rack[slot]
        elif code == "SV":
            form, control, index, prop, value = params[:5]
            if form == "frmScoreSheet" and prop == "Caption":
                self.sheet[int(index)] = value
            elif form == "frmScoreSheet" and prop == "BackColor":
                self.colours[int(index)] = int(value)
            elif form == "frmTileRack" and prop == "Visible":
                self.visible[int(index)] = value == "1"
                if value == "0":
                    self.rack.pop(int(index), None)
            elif form == "frmNetAcquire":
                self.status = value
        elif code == "SS":
            self.states.append(int(params[0]))
            if int(params[0]) <= 3:             # the lobby: the client forgets the game window
                self.sheet.clear()
                self.colours.clear()
                self.board.clear()
                self.marked.clear()
                self.rack.clear()
                self.visible.clear()
                self.room.clear()
        elif code == "GM":
            self.gm.append(params[0])
            self.room.append(params[0])
        elif code == "LM":
            self.lm.append(params[0])
        elif code == "M":
            self.boxes.append(params[0])
            if params[0].startswith("I;Game ended;"):
                self.ended = True
        elif code == "SP":
            return [f"PL;{self.name},2,0,x"] if self.auto_login else []
        elif code == "PI":
            return [f"PR;{params[0] if params else ''}"]
        elif code in ("GT", "GC", "GD", "GP"):
            self.requests.append((code, params))
            return [self.answer(code, params)]
        return []

    def sent(self, directive: str) -> None:
        """What the client does with its own screen when it sends ``directive``.

        Like deployed clients, it hides the rack button it clicked (``PT;n``);
        only the host can show it again.
        """
        code, _, rest = directive.partition(";")
        if code.strip() == "PT" and rest.strip() in {"1", "2", "3", "4", "5", "6"}:
            self.visible[int(rest)] = False

    def answer(self, code: str, params: list[str]) -> str:
        if code == "GT":
            slots = [s for s, (_, colour) in sorted(self.rack.items())
                     if colour in PLAYABLE and self.visible.get(s, True)]
            return f"PT;{self.rng.choice(slots)}"
        if code == "GC":
            kind, indexes = params[0], [int(p) for p in params[1:]]
            return f"CS;{COLOURS[self.rng.choice(indexes) - 1]},{kind}"
        if code == "GD":
            holding, available = int(params[2]), int(params[3])
            trade = 2 * self.rng.randint(0, min(holding // 2, available))
            sell = self.rng.randint(0, holding - trade)
            return f"MD;{sell},{trade}"
        if code == "GP":
            can_end, cash = params[0] == "-1", int(params[1])
            counts = [0] * 7
            for _ in range(self.rng.randint(0, 3)):
                options = [c for c in range(7) if self.value(25 + c) and self.value(9 + c) > counts[c]
                           and self.value(25 + c) * 100 <= cash]
                if not options:
                    break
                c = self.rng.choice(options)
                counts[c] += 1
                cash -= self.value(25 + c) * 100
            end = 1 if can_end and self.end_game and self.rng.random() < 0.5 else 0
            return "P;" + ",".join(map(str, counts)) + f",{end}"
        raise AssertionError(code)


class SocketClient:
    """PlayerLogic over a blocking socket (end-to-end tests)."""

    def __init__(self, port: int, logic: PlayerLogic, timeout: float = 10.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.logic = logic
        self.buffer = b""
        self.answer = True

    def send(self, directive: str) -> None:
        self.logic.sent(directive)
        self.sock.sendall(directive.encode("ascii") + b";:")

    def pump(self, until, timeout: float = 20.0) -> None:
        """Read and react until ``until(logic)`` is true."""
        deadline = time.monotonic() + timeout
        while not until(self.logic):
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.logic.name}: timed out; last: {self.logic.log[-5:]}")
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            data = self.sock.recv(65536)
            if not data:
                raise EOFError(f"{self.logic.name}: connection closed")
            self.feed(data)

    def feed(self, data: bytes) -> None:
        directives, self.buffer = split_directives(self.buffer + data)
        for text in directives:
            replies = self.logic.receive(*parse(text))
            if self.answer:
                for reply in replies:
                    self.send(reply)

    def close(self) -> None:
        self.sock.close()


def run_until(clients: list[SocketClient], done, timeout: float = 30.0) -> None:
    """Let every client read and react until ``done()``; AssertionError after ``timeout`` seconds."""
    run_sockets_until(clients, done, timeout, lambda c: f"{c.logic.name}: {c.logic.log[-3:]}")
