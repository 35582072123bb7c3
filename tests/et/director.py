"""A director for one four-player Euphrates & Tigris game that makes every kind of event happen.

The director plays all four seats of an engine in process (so a wire test can
replay its commands and expect exactly its asks).  Until its script is done it
builds, by fixed placements on the standard board:

- a revolt: seat 0's priest next to the temple at (8,6), then seat 1's on the
  other side of it;
- a war over two colours: kingdom A round the temple at (5,9) with seat 2's
  priest, king and trader, kingdom B round the temple at (10,10) with seat 3's
  priest and king, joined by green tiles along row 9 and one last tile at
  (9,9); both temples hold treasures, so after the wars (green is not
  contested) seat 2's trader takes one of them: a treasure take;
- a monument: four red tiles at (1,4)-(2,5), the last one answered ``build``;
- a catastrophe at (15,10).

A seat with nothing to do for the script discards the colours the script does
not need (and so draws others), else passes.  Conflicts: each side commits
one red (or war colour) tile if it has one; the order of a war is the *last*
colour offered, so the wire shows a choice other than the default.  Once the
script is done and settled, strong bots (in process, seeded) choose every
seat's actions to the end.
"""
from __future__ import annotations

from dataclasses import dataclass

from gamehall.interfaces import IllegalAction
from gamehall_et.board import COLOUR_CODES, COLOURS
from gamehall_et.bots import make_bot
from gamehall_et.engine import Game
from gamehall_et.wire import render
from gamehall_et.wire.codec import encode_client

ANY = "any"          # a tile of any land colour


@dataclass(frozen=True)
class Step:
    name: str
    verb: str                 # leaderadd | tile | catastrophe
    x: int
    y: int
    colour: str | None = None
    seat: int | None = None   # leaders belong to a seat; tiles and catastrophes: anyone's
    after: tuple[str, ...] = ()


WAR_SETUP = ("a_red", "a_black", "a_green", "b_red", "b_black", "path1", "path2", "path3", "b_tile")
SCRIPT = (
    Step("priest0", "leaderadd", 8, 5, "red", seat=0),
    Step("revolt", "leaderadd", 8, 7, "red", seat=1, after=("priest0",)),
    Step("a_red", "leaderadd", 5, 10, "red", seat=2),
    Step("a_black", "leaderadd", 4, 9, "black", seat=2),
    Step("a_green", "leaderadd", 5, 8, "green", seat=2),
    Step("b_red", "leaderadd", 11, 10, "red", seat=3),
    Step("b_black", "leaderadd", 9, 10, "black", seat=3),
    Step("path1", "tile", 6, 9, "green"),
    Step("path2", "tile", 7, 9, "green"),
    Step("path3", "tile", 8, 9, "green"),
    Step("b_tile", "tile", 10, 9, "green"),
    Step("unite", "tile", 9, 9, ANY, after=WAR_SETUP),
    Step("m1", "tile", 1, 4, "red"),
    Step("m2", "tile", 2, 4, "red"),
    Step("m3", "tile", 1, 5, "red"),
    Step("m4", "tile", 2, 5, "red"),
    Step("catastrophe", "catastrophe", 15, 10),
)


def command(action: dict) -> str:
    """An engine action as the client's protocol line."""
    (verb, args), = action.items()
    if verb == "build":
        a, b = args["colours"]
        return encode_client("build", x=args["x"], y=args["y"], colour1=a, colour2=b)
    if verb == "discard":
        return encode_client("discard", **{c: args.get(c, 0) for c in ("red", "green", "blue", "black")})
    return encode_client(verb, **args)


@dataclass
class Move:
    seat: int
    ask: str                  # the ask line the seat is sent
    action: dict
    line: str                 # the command it answers with
    events: list


class Director:
    def __init__(self, game: Game, bot_seed: int = 1):
        self.game = game
        self.done: set[str] = set()
        self.bots = [make_bot("strong", bot_seed + seat) for seat in range(len(game.players))]
        self.moves: list[Move] = []
        self.bots_play = False

    # ------------------------------------------------------------ the script
    def _tile_colours(self, step: Step, hand: dict) -> list[str]:
        if step.colour != ANY:
            return [step.colour]
        return [n for n in ("green", "black", "red") if hand[COLOUR_CODES[n]]]

    def _script_actions(self, seat: int):
        """(step, action) for each script step ``seat`` could do now, in script order."""
        g = self.game
        hand = g.hands[seat]
        for step in SCRIPT:
            if step.name in self.done or not set(step.after) <= self.done:
                continue
            if step.verb == "leaderadd":
                if step.seat != seat:
                    continue
                yield step, {"leaderadd": {"colour": step.colour, "x": step.x, "y": step.y}}
            elif step.verb == "tile":
                for colour in self._tile_colours(step, hand):
                    if hand[COLOUR_CODES[colour]]:
                        yield step, {"tile": {"colour": colour, "x": step.x, "y": step.y}}
            elif g.catastrophes[seat]:
                yield step, {"catastrophe": {"x": step.x, "y": step.y}}

    def _needed(self) -> dict[str, int]:
        need = dict.fromkeys(COLOURS, 0)
        for step in SCRIPT:
            if step.name not in self.done and step.verb == "tile":
                need[COLOUR_CODES["green" if step.colour == ANY else step.colour]] += 1
        return need

    def _scripted(self, seat: int, d) -> dict:
        g = self.game
        if d.kind == "add":
            return {"add": {"colour": d.options["colour"], "n": min(1, d.options["max"])}}
        if d.kind == "resolve":
            return {"resolve": {"colour": d.options["colours"][-1]}}
        if d.kind == "monument":
            c = d.options["choices"][0]
            return {"build": {"x": c["x"], "y": c["y"], "colours": c["colours"]}}
        if d.kind == "treasure":
            return {"take": dict(d.options["cells"][0])}
        for step, action in self._script_actions(seat):
            try:
                g.copy().apply(seat, action)
            except IllegalAction:
                continue
            self.done.add(step.name)
            return action
        need, hand = self._needed(), g.hands[seat]
        spare = {n: max(0, hand[c] - need[c]) for c, n in zip(COLOURS, ("red", "green", "blue", "black"))}
        if any(spare.values()):
            return {"discard": spare}
        return {"pass": {}}

    # ------------------------------------------------------------ the game
    def script_done(self) -> bool:
        return self.done == {s.name for s in SCRIPT}

    def play(self, max_moves: int = 5000) -> list[Move]:
        g = self.game
        while not g.is_over():
            if len(self.moves) >= max_moves:
                raise RuntimeError("the directed game did not end")
            d = g.pending()
            ask = render.ask_line(g, d)
            # the bots take over at the first action after the script's last step has settled
            self.bots_play = self.bots_play or (self.script_done() and d.kind == "action")
            if self.bots_play:
                action = self.bots[d.seat].choose(g, d.seat)
            else:
                action = self._scripted(d.seat, d)
            events = g.apply(d.seat, action)
            self.moves.append(Move(d.seat, ask, action, command(action), events))
        return self.moves


def directed_game(players: list[str], seed: int) -> tuple[Game, list[Move]]:
    """A game on the table seed ``seed`` played by the director to its end."""
    game = Game.new(players, seed=seed)
    director = Director(game)
    moves = director.play()
    if not director.script_done():
        raise RuntimeError(f"the script did not finish: missing {sorted({s.name for s in SCRIPT} - director.done)}")
    return game, moves
