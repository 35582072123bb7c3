"""A client of the et protocol written from the protocol text: it keeps the board, its hand
and its player number from what the server says, and answers every ``ask`` by trying
plausible commands, another after each ``ERROR``, as a program (or a patient person) would."""
from __future__ import annotations

import random

from gamehall_et.wire.codec import Message, decode_server, encode_client, parse_cell

W, H = 16, 11


class Client:
    def __init__(self, seed: int, send):
        self.rng = random.Random(seed)
        self.send = send                      # send(line) -> None
        self.my_id: int | None = None
        self.player: int | None = None
        self.cells: dict[tuple[int, int], dict] = {}
        self.hand: dict = {}
        self.pending: Message | None = None   # the ask being answered
        self.tries = 0
        self.over = False
        self.final: list[dict] = []
        self.states: list[str] = []
        self.errors: list[str] = []
        self.notes: list[str] = []

    # -------------------------------------------------------------- input
    def feed(self, line: str) -> None:
        msg = decode_server(line)
        k, a = msg.kind, msg.args
        if k == "welcome":
            self.my_id = a["id"]
        elif k == "takeover-confirm":
            self.my_id = a["id"]
        elif k == "playorder":
            self.player = a["ids"].index(self.my_id) if self.my_id in a["ids"] else None
            self.over = False
        elif k == "board":
            cells = a["cells"]
            for y in range(a["height"]):
                for x in range(a["width"]):
                    i = 4 * (y * a["width"] + x)
                    self.cells[(x, y)] = parse_cell(cells[i:i + 4])
        elif k == "board!":
            self.cells[(a["x"], a["y"])] = parse_cell(a["cell"])
        elif k == "hand":
            self.hand = a
        elif k.startswith("state"):
            self.states.append(line)
            self.pending = None                   # a new decision: the next ask starts afresh
            if k == "state gameover":
                self.over = True
        elif k == "finalscore":
            self.final.append(a)
        elif k == "ERROR":
            self.errors.append(a["text"])
        elif k == "note":
            self.notes.append(a["text"])
        if k.startswith("ask "):
            if self.pending is None or self.pending != msg:
                self.tries = 0
            else:
                self.tries += 1
            self.pending = msg
            self.answer(msg)

    # -------------------------------------------------------------- answers
    def answer(self, msg: Message) -> None:
        k, a = msg.kind, msg.args
        if k == "ask action":
            self.send(self.action())
        elif k == "ask add":
            have = self.hand.get(a["colour"], 0)
            self.send(encode_client("add", colour=a["colour"], n=self.rng.randint(0, have)))
        elif k == "ask external":
            self.send(encode_client("resolve", colour=self.rng.choice(a["colours"])))
        elif k == "ask monument":
            self.send(self.monument(a))
        elif k == "ask treasure":
            self.send(self.treasure())

    def empty(self, river: bool) -> list[tuple[int, int]]:
        want = "b" if river else "-"
        return [xy for xy, c in self.cells.items() if c["kind"] == "empty" and c["space"] == want]

    def temple_spots(self) -> list[tuple[int, int]]:
        out = []
        for (x, y) in self.empty(False):
            for n in ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)):
                c = self.cells.get(n)
                if c and c["kind"] == "tile" and c["colour"] == "red":
                    out.append((x, y))
                    break
        return out

    def action(self) -> str:
        if self.tries > 25:
            return "pass"
        rng = self.rng
        roll = rng.random()
        leaders = [c for c in ("red", "green", "blue", "black") if self.hand.get(f"leader_{c}")]
        if leaders and roll < 0.3:
            spots = self.temple_spots()
            if spots:
                x, y = rng.choice(spots)
                return encode_client("leaderadd", colour=rng.choice(leaders), x=x, y=y)
        if roll < 0.33 and self.hand.get("catastrophe"):
            x, y = rng.choice(list(self.cells))
            return encode_client("catastrophe", x=x, y=y)
        if roll < 0.36:
            counts = {c: min(1, self.hand.get(c, 0)) for c in ("red", "green", "blue", "black")}
            if any(counts.values()):
                return encode_client("discard", **counts)
        colours = [c for c in ("red", "green", "blue", "black") if self.hand.get(c)]
        if colours:
            colour = rng.choice(colours)
            cells = self.empty(colour == "blue")
            # next to something, usually: kingdoms grow
            near = [xy for xy in cells if any(
                self.cells.get(n, {}).get("kind") in ("tile", "leader")
                for n in ((xy[0] - 1, xy[1]), (xy[0] + 1, xy[1]), (xy[0], xy[1] - 1), (xy[0], xy[1] + 1)))]
            pick = near if near and rng.random() < 0.9 else cells
            if pick:
                x, y = rng.choice(pick)
                return encode_client("tile", colour=colour, x=x, y=y)
        return "pass"

    def monument(self, a: dict) -> str:
        x, y, colour = a["x"], a["y"], a["colour"]
        for tx in (x - 1, x):
            for ty in (y - 1, y):
                square = [(tx, ty), (tx + 1, ty), (tx, ty + 1), (tx + 1, ty + 1)]
                if all(self.cells.get(s, {}).get("kind") == "tile" and self.cells[s]["colour"] == colour
                       for s in square):
                    return encode_client("build", x=tx, y=ty, colour1=colour, colour2=a["colours"][0])
        return "decline"

    def treasure(self) -> str:
        # every treasure on the board, the highest priority first: on tiles (``#r2-``) and under
        # monuments (``^rg2``: a temple built over keeps its treasure, and it may be the one asked for)
        spots = sorted(((c["treasure"], xy) for xy, c in self.cells.items() if c.get("treasure")), reverse=True)
        if self.tries >= len(spots):
            raise AssertionError(f"asked for a treasure; all {len(spots)} on the board were refused: {self.errors[-3:]}")
        x, y = spots[self.tries][1]
        return encode_client("take", x=x, y=y)


class ScriptedClient:
    """A client that answers each ``ask`` with the next line of its script, after checking that
    the ask is the one the script expects; it keeps a transcript (``> `` marks what it sent).
    Any ``ERROR`` or unexpected ask stops the test."""

    def __init__(self, send, script: list[tuple[str, str]]):
        self._send = send
        self.script = list(script)            # (expected ask line, answer line) of this seat, in order
        self.my_id: int | None = None
        self.transcript: list[str] = []
        self.over = False
        self.final: list[dict] = []

    def send(self, line: str) -> None:
        self.transcript.append("> " + line)
        self._send(line)

    def feed(self, line: str) -> None:
        self.transcript.append(line)
        msg = decode_server(line)
        k = msg.kind
        if k in ("welcome", "takeover-confirm"):
            self.my_id = msg.args["id"]
        elif k == "ERROR":
            raise AssertionError(f"the server refused a scripted command: {line}; "
                                 f"last lines {self.transcript[-6:]}")
        elif k == "state gameover":
            self.over = True
        elif k == "finalscore":
            self.final.append(msg.args)
        elif k.startswith("ask "):
            if not self.script:
                raise AssertionError(f"asked {line!r} after the script ended")
            expected, answer = self.script.pop(0)
            if line != expected:
                raise AssertionError(f"asked {line!r}, the script expected {expected!r}")
            self.send(answer)
