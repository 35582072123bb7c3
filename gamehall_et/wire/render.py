"""What an ``et`` client is told about a game: engine state and events -> protocol lines.

Rendering is by difference: a :class:`ClientView` remembers what one
connection was last sent (every board cell, its hand, its score, each
opponent's hand and score), and :func:`sync` sends only what changed since
(``board!``, ``hand``, ``score``, ``otherhand``, ``otherscore+``).  So a burst of
actions (a restored game replayed, a client reconnecting) costs one set of
lines, and opponents' scores go out as deltas only, never totals.

Decisions are announced from the engine's pending decision, once each
(:func:`decision_lines`): ``state playeraction``, ``state internal`` /
``internaldef``, ``state external`` / ``externaldef``, ``state treasureask``
to everyone, and the matching ``ask`` to the player who must answer.
"""
from __future__ import annotations

from ..board import COLOUR_NAMES, COLOURS, HEIGHT, N_CELLS, RIVER, WIDTH, xy
from .codec import board_cells, cell_code, encode_server

NAMES = ("red", "green", "blue", "black")


def _counts(d: dict) -> dict:
    return {COLOUR_NAMES[c]: d[c] for c in COLOURS}


def conflict_cell(engine) -> int | None:
    return engine.war["tile"] if engine.war is not None else None


def board_line(engine) -> str:
    return encode_server("board", width=WIDTH, height=HEIGHT, cells=board_cells(engine.pos, conflict_cell(engine)))


def hand_line(engine, seat: int) -> str:
    in_hand = engine.leaders_in_hand(seat)
    leaders = {f"leader_{COLOUR_NAMES[c]}": int(c in in_hand) for c in COLOURS}
    return encode_server("hand", **_counts(engine.hands[seat]), **leaders,
                         catastrophe=engine.catastrophes[seat])


def score_line(engine, seat: int) -> str:
    return encode_server("score", wild=engine.wild[seat], **_counts(engine.scores[seat]))


def otherhand_line(engine, seat: int) -> str:
    in_hand = engine.leaders_in_hand(seat)
    return encode_server("otherhand", player=seat, tiles=engine.hand_size(seat),
                         **{COLOUR_NAMES[c]: int(c in in_hand) for c in COLOURS},
                         catastrophes=engine.catastrophes[seat])


def _score_vector(engine, seat: int) -> tuple:
    return (engine.wild[seat],) + tuple(engine.scores[seat][c] for c in COLOURS)


class ClientView:
    """What one connection has been sent of one game."""

    def __init__(self, seat: int | None):
        self.seat = seat                      # None: a spectator
        self.cells: list[str] | None = None
        self.hand: str | None = None
        self.score: str | None = None
        self.others: dict[int, str] = {}
        self.other_scores: dict[int, tuple] = {}
        self.announced = None                 # key of the last decision announced
        self.asked = None                     # key of the last ask sent to this connection

    def full(self, engine, order_ids: list[int]) -> list[str]:
        """Everything from scratch: play order, board, hand, score, the opponents."""
        self.cells = None
        self.hand = self.score = None
        self.others, self.other_scores = {}, {}
        self.announced = self.asked = None
        return [encode_server("playorder", ids=order_ids)] + self.sync(engine)

    def sync(self, engine) -> list[str]:
        out: list[str] = []
        pos = engine.pos
        conflict = conflict_cell(engine)
        if self.cells is None:
            self.cells = [cell_code(pos, c, conflict) for c in range(N_CELLS)]
            out.append(encode_server("board", width=WIDTH, height=HEIGHT, cells="".join(self.cells)))
        else:
            for c in range(N_CELLS):
                code = cell_code(pos, c, conflict)
                if code != self.cells[c]:
                    self.cells[c] = code
                    x, y = xy(c)
                    out.append(encode_server("board!", x=x, y=y, cell=code))
        seat = self.seat
        if seat is not None:
            for line, attr in ((hand_line(engine, seat), "hand"), (score_line(engine, seat), "score")):
                if getattr(self, attr) != line:
                    setattr(self, attr, line)
                    out.append(line)
        for other in range(len(engine.players)):
            if other == seat:
                continue
            line = otherhand_line(engine, other)
            if self.others.get(other) != line:
                self.others[other] = line
                out.append(line)
            vector = _score_vector(engine, other)
            before = self.other_scores.get(other)
            self.other_scores[other] = vector
            if before is None:
                before = (0,) * 5
            if vector != before:
                delta = [a - b for a, b in zip(vector, before)]
                if all(d >= 0 for d in delta):
                    out.append(encode_server("otherscore+", player=other, wild=delta[0],
                                             **dict(zip(NAMES, delta[1:]))))
        return out

    def decision(self, engine, key) -> list[str]:
        """The pending decision's announcement (once) and, for its player, the ask (once)."""
        d = engine.pending()
        if d is None:
            return []
        out = []
        if self.announced != key:
            self.announced = key
            out.extend(announce_lines(engine, d))
        if d.seat == self.seat and self.asked != key:
            self.asked = key
            out.append(ask_line(engine, d))
        return out

    def ask_again(self, engine) -> list[str]:
        """After a refused answer: the same ask."""
        d = engine.pending()
        return [ask_line(engine, d)] if d is not None and d.seat == self.seat else []


def announce_lines(engine, d) -> list[str]:
    if d.kind == "action":
        return [encode_server("state playeraction", player=d.seat, action=d.options["number"])]
    if d.kind == "add":
        o = d.options
        colour = o["war_colour"]
        internal = o["conflict"] == "revolt"
        if o["attacker_added"] is None:
            return [encode_server("state internal" if internal else "state external",
                                  attacker=o["attacker"], defender=o["defender"], colour=colour)]
        return [encode_server("state internaldef" if internal else "state externaldef",
                              attacker=o["attacker"], defender=o["defender"], colour=colour,
                              added=o["attacker_added"])]
    if d.kind == "treasure":
        return [encode_server("state treasureask", player=d.seat)]
    return []                                  # resolve and monument: asked of the active player only


def ask_line(engine, d) -> str:
    o = d.options
    if d.kind == "action":
        return encode_server("ask action")
    if d.kind == "add":
        return encode_server("ask add", colour=o["colour"])
    if d.kind == "resolve":
        return encode_server("ask external", colours=o["colours"])
    if d.kind == "monument":
        others = []
        for choice in o["choices"]:
            other = choice["colours"][1]
            if other not in others:
                others.append(other)
        return encode_server("ask monument", colour=o["colour"], x=o["x"], y=o["y"], colours=others)
    return encode_server("ask treasure")


def final_lines(engine) -> list[str]:
    out = [encode_server("state gameover")]
    for f in engine.final:
        out.append(encode_server("finalscore", player=f["seat"], wild=f["wild"], **f["colours"],
                                 position=f["position"]))
    return out


# ------------------------------------------------------------------ notes
def _at(e) -> str:
    return f"{e['x']},{e['y']}"


def event_notes(events: list[dict], names: list[str]) -> list[str]:
    """Human-readable ``note`` texts for a batch of engine events (private details left out)."""
    out = []
    for e in events:
        t = e["type"]
        who = names[e["seat"]] if "seat" in e and e["seat"] is not None else None
        if t == "tile_placed":
            out.append(f"{who} places a {e['colour']} tile at {_at(e)}"
                       + (", uniting two kingdoms" if e["unites"] else ""))
        elif t == "leader_placed":
            out.append(f"{who} places the {e['colour']} leader at {_at(e)}")
        elif t == "leader_moved":
            out.append(f"{who} moves the {e['colour']} leader from {_at(e)} to {e['to_x']},{e['to_y']}")
        elif t == "leader_withdrawn":
            why = {"taken": "withdraws", "revolt": "loses a revolt: withdraws",
                   "war": "loses a war: withdraws", "catastrophe": "is cut off: withdraws",
                   "monument": "is cut off by the monument: withdraws"}[e["why"]]
            out.append(f"{who} {why} the {e['colour']} leader from {_at(e)}")
        elif t == "catastrophe":
            what = f" destroying a {e['removed']} tile" if e["removed"] else ""
            out.append(f"{who} plays a catastrophe at {_at(e)}{what}")
        elif t == "discarded":
            out.append(f"{who} discards {e['count']} tile{'s' if e['count'] != 1 else ''}")
        elif t == "revolt":
            out.append(f"revolt: {names[e['attacker']]} attacks {names[e['defender']]}'s {e['colour']} leader")
        elif t == "war_pending":
            out.append(f"war over {', '.join(e['colours'])}: {who} chooses the order")
        elif t == "war":
            out.append(f"war over {e['colour']}: {names[e['attacker']]} attacks {names[e['defender']]}")
        elif t == "committed":
            out.append(f"{who} commits {e['n']} {e['colour']} tile{'s' if e['n'] != 1 else ''}")
        elif t == "conflict_won":
            a, d = e["strength"]
            out.append(f"{names[e['winner']]} wins the {e['kind']} over {e['colour']} ({a} against {d})")
        elif t == "tile_removed":
            out.append(f"the {e['colour']} tile at {_at(e)} is removed")
        elif t == "monument_built":
            out.append(f"{who} builds the {'-'.join(e['colours'])} monument at {_at(e)}")
        elif t == "treasure_taken":
            out.append(f"{who} takes the treasure at {_at(e)}")
        elif t == "scored" and e["why"] != "tile":
            out.append(f"{who} scores {e['points']} {e['colour']} ({e['why']})")
        elif t == "game_over":
            reason = {"treasures": "at most two treasures are left",
                      "bag_empty": "the bag ran out of tiles"}.get(e["reason"], e["reason"])
            out.append(f"game over: {reason}")
    return out


# ------------------------------------------------------------------ ansiboard
_BG = {"r": 41, "g": 42, "b": 44, "k": 40}
_RESET = "\x1b[0m"


def ansiboard(pos, conflict: int | None = None) -> list[str]:
    """The board drawn with ANSI colours, one text per row (sent as ``note`` lines).

    Three characters a cell: tiles on their colour (``*`` a treasure, ``**`` a
    corner one), leaders as the initial of their title and the player number
    (P priest, T trader, F farmer, K king), monuments ``^^``, catastrophes
    ``XX``, empty river cells blue, empty land plain dots.
    """
    lines = ["    " + "".join(f"{x:>3}" for x in range(WIDTH))]
    initials = {"r": "P", "g": "T", "b": "F", "k": "K"}
    for y in range(HEIGHT):
        row = [f"{y:>3} "]
        for x in range(WIDTH):
            c = y * WIDTH + x
            if pos.catastrophe[c]:
                row.append("\x1b[1;37;45m XX" + _RESET)
                continue
            who = pos.leader[c]
            if who is not None:
                fg = 30 + {"r": 1, "g": 2, "b": 4, "k": 0}[who[1]]
                back = 44 if c in RIVER else 47
                row.append(f"\x1b[1;{fg};{back}m {initials[who[1]]}{who[0]}" + _RESET)
                continue
            m = pos.monument[c]
            if m is not None:
                main = pos.monuments[m][1]
                row.append(f"\x1b[1;37;{_BG[main]}m ^^" + _RESET)
                continue
            colour = pos.tile[c]
            if colour is not None:
                mark = {0: "  ", 1: " *", 2: "**"}[pos.treasure[c]]
                if c == conflict:
                    mark = "=="
                row.append(f"\x1b[1;37;{_BG[colour]}m {mark}" + _RESET)
                continue
            row.append("\x1b[44m . " + _RESET if c in RIVER else " . ")
        lines.append("".join(row))
    lines.append("tiles: red, green, blue, black backgrounds; * treasure, ** corner treasure; "
                 "leaders P T F K + player; ^^ monument; XX catastrophe")
    return lines
