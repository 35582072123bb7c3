"""Euphrates & Tigris: the turn machine of one game (pure Python, no Twisted, no I/O).

Use::

    game = Game.new(["ann", "bob", "cy"], seed=42)       # or tile_bag="rrgbk..." (143 colours)
    while not game.is_over():
        d = game.pending()                               # Decision(seat, kind, options)
        game.apply(d.seat, game.timeout_action(d.seat))
    game.result()   # {"scores": [...], "winners": [...], "reason": "treasures", "positions": [...]}

Seats are 0-based; play order is seat order.  Coordinates are x (column
0-15) and y (row 0-10) as on the wire.  Colours in actions are the names
``red``, ``green``, ``blue``, ``black``.  An illegal action raises
``IllegalAction(reason)`` and changes nothing.

Decisions (``pending().kind``) and the actions that answer them (one key, the verb):
  action     the active player's action ``number`` (1 or 2) of the turn:
             {"tile": {"colour", "x", "y"}}  {"leaderadd": {"colour", "x", "y"}}
             {"leadermove": {"x", "y", "to_x", "to_y"}}  {"leadertake": {"x", "y"}}
             {"catastrophe": {"x", "y"}}  {"discard": {"red", "green", "blue", "black"}}
             {"pass": {}}
  add        a player in a conflict commits tiles: {"add": {"colour", "n"}}
             (attacker first, then defender; a revolt commits red)
  resolve    the active player picks the next war colour: {"resolve": {"colour"}}
  monument   the active player may build: {"build": {"x", "y", "colours": [main, other]}}
             (x, y: the square's top-left) or {"decline": {}}
  treasure   a trader's owner takes a treasure: {"take": {"x", "y"}}

Events (dicts with "type"), in order:
  turn {seat}  action {seat, number}  tile_placed {seat, colour, x, y, unites}
  scored {seat, colour, points, why}   why: tile | revolt | war | monument
  leader_placed {seat, colour, x, y}  leader_moved {seat, colour, x, y, to_x, to_y}
  leader_withdrawn {seat, colour, x, y, why}   why: taken | revolt | war | catastrophe | monument
  catastrophe {seat, x, y, removed}   removed: colour name of the tile destroyed, or None
  tile_removed {colour, x, y}   a loser's tile in a war
  discarded {seat, count}  drew {seat, count}  (which colours is private: read the hand)
  revolt {attacker, defender, colour, x, y}   war_pending {seat, colours}
  war {attacker, defender, colour}  committed {seat, colour, n, attacker: bool}
  conflict_won {kind, colour, winner, loser, strength: [attacker, defender]}
  monument_built {seat, x, y, colours}  treasure_taken {seat, x, y}
  turn_end {seat}  game_over {reason, final: [{seat, score, wild, vector, position}], winners}

End reasons: "treasures" (a turn ended with at most two treasures on the
board), "bag_empty" (a draw needed more tiles than the bag held).

Rule choices where published rules differ follow
``shared/protocols/euphrates-tigris-notes.md``.  As the rules say, a leader
is never left on the board without a red temple next to it: a catastrophe or a
monument that covers its last temple withdraws it at once (the red-temple
protection keeps wars from doing it).
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

from zope.interface import implementer

from gamehall.interfaces import IllegalAction, IRecordingEngine

from . import actions as _actions
from . import conflicts as _conflicts
from . import monuments as _monuments
from . import scoring as _scoring
from . import treasures as _treasures
from .board import (ACTIONS_PER_TURN, CATASTROPHES, COLOUR_CODES, COLOUR_NAMES, COLOURS,
                    END_TREASURES, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, RED, START_TEMPLES,
                    TILE_COUNTS, cell, on_board, xy)
from .kingdoms import Groups
from .position import Position

ACTION, ADD, RESOLVE, MONUMENT, TREASURE = "action", "add", "resolve", "monument", "treasure"
VERBS = {
    ACTION: ("tile", "leaderadd", "leadermove", "leadertake", "catastrophe", "discard", "pass"),
    ADD: ("add",), RESOLVE: ("resolve",), MONUMENT: ("build", "decline"), TREASURE: ("take",),
}
STATE_FORMAT = "gamehall-et-state/1"


@dataclass(frozen=True)
class Decision:
    seat: int
    kind: str
    options: dict = field(default_factory=dict)


def standard_bag() -> list[str]:
    """The 143 tiles of the bag, unshuffled (the starting temples are already on the board)."""
    bag = []
    for colour in COLOURS:
        n = TILE_COUNTS[colour] - (len(START_TEMPLES) if colour == RED else 0)
        bag.extend(colour * n)
    return bag


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _fields(args, names: tuple[str, ...], verb: str) -> dict:
    if not isinstance(args, dict):
        raise IllegalAction(f"{verb} takes an object with {', '.join(names) or 'no fields'}")
    extra = set(args) - set(names)
    if extra:
        raise IllegalAction(f"unexpected fields in {verb}: {sorted(map(str, extra))}")
    missing = [n for n in names if n not in args]
    if missing:
        raise IllegalAction(f"{verb} needs {', '.join(missing)}")
    return args


def _cell_of(args: dict, kx: str = "x", ky: str = "y") -> int:
    x, y = args[kx], args[ky]
    if not on_board(x, y):
        raise IllegalAction(f"({x}, {y}) is not on the board (x 0-15, y 0-10)")
    return cell(x, y)


def _colour_of(name) -> str:
    code = COLOUR_CODES.get(name.lower()) if isinstance(name, str) else None
    if code is None:
        raise IllegalAction(f"unknown colour {name!r}: red, green, blue or black")
    return code


def _where(c: int) -> dict:
    x, y = xy(c)
    return {"x": x, "y": y}


@implementer(IRecordingEngine)
class Game:
    """One game's state machine; see the module docstring."""

    def __init__(self, players: list[str], bag: list[str], seed: int | None = None):
        """A game before the deal; use :meth:`new` or :meth:`from_dict`."""
        n = len(players)
        self.players = list(players)
        self.seed = seed
        self.pos = Position.standard()
        self._bag = list(bag)
        self._bag_pos = 0
        self.hands = [dict.fromkeys(COLOURS, 0) for _ in range(n)]
        self.catastrophes = [CATASTROPHES] * n
        self.scores = [dict.fromkeys(COLOURS, 0) for _ in range(n)]
        self.wild = [0] * n                     # treasures taken
        self.out = dict.fromkeys(COLOURS, 0)    # tiles out of the game (discarded, committed, destroyed)
        self.order = list(range(n))
        self.turn_pos = 0
        self.action_no = 1
        self.phase: str | None = None
        self.conflict: dict | None = None       # the revolt or war being fought
        self.war: dict | None = None            # {"tile": cell, "remaining": [colours]} while wars remain
        self.monument_tile: int | None = None   # the tile whose monument question is pending
        self.claim: tuple[int, list[int]] | None = None   # (seat, treasure cells) being taken
        self.end_reason: str | None = None
        self.final: list[dict] | None = None
        self._actions: list[dict] = []
        self.initial_events: list[dict] = []

    @classmethod
    def new(cls, players: list[str], seed: int | None = None, tile_bag: str | list[str] | None = None) -> "Game":
        players = [str(p) for p in players]
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise ValueError(f"Euphrates & Tigris needs {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                             f"not {len(players)}")
        if len(set(players)) != len(players):
            raise ValueError("player names must be unique")
        if tile_bag is None:
            if seed is None:
                seed = random.SystemRandom().randrange(2 ** 63)
            bag = standard_bag()
            random.Random(seed).shuffle(bag)
        else:
            bag = list(tile_bag)
            if sorted(bag) != sorted(standard_bag()):
                raise ValueError("tile_bag must hold exactly the 143 tiles of the bag "
                                 "(47 r, 30 g, 36 b, 30 k)")
        game = cls(players, bag, seed)
        ev: list[dict] = []
        for seat in game.order:
            game._draw(seat, HAND_SIZE, ev)
        game._start_turn(0, ev)
        game.initial_events = ev
        return game

    # ------------------------------------------------------------ read-only views
    @property
    def active(self) -> int:
        return self.order[self.turn_pos]

    @property
    def bag_left(self) -> int:
        return len(self._bag) - self._bag_pos

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat].values())

    def leaders_in_hand(self, seat: int) -> list[str]:
        on_board = {who[1] for who in self.pos.leader if who is not None and who[0] == seat}
        return [c for c in COLOURS if c not in on_board]

    def leaders_on_board(self, seat: int) -> dict[str, int]:
        """Colour -> cell of ``seat``'s leaders on the board."""
        return {who[1]: c for c, who in enumerate(self.pos.leader) if who is not None and who[0] == seat}

    def pending_seat(self) -> int | None:
        phase = self.phase
        if phase is None:
            return None
        if phase == ADD:
            k = self.conflict
            return k["attacker"] if k["att_add"] is None else k["defender"]
        if phase == TREASURE:
            return self.claim[0]
        return self.active

    def pending(self) -> Decision | None:
        seat = self.pending_seat()
        if seat is None:
            return None
        return Decision(seat, self.phase, self._options(seat))

    def _options(self, seat: int) -> dict:
        phase = self.phase
        if phase == ACTION:
            return {"number": self.action_no}
        if phase == ADD:
            k = self.conflict
            colour = self.commit_colour()
            return {"conflict": k["kind"], "colour": COLOUR_NAMES[colour], "attacker": k["attacker"],
                    "defender": k["defender"], "war_colour": COLOUR_NAMES[k["colour"]],
                    "max": self.hands[seat][colour], "attacker_added": k["att_add"]}
        if phase == RESOLVE:
            return {"colours": [COLOUR_NAMES[c] for c in self.war["remaining"]]}
        if phase == MONUMENT:
            x, y = xy(self.monument_tile)
            return {"x": x, "y": y, "colour": COLOUR_NAMES[self.pos.tile[self.monument_tile]],
                    "choices": [{**_where(tl), "colours": [COLOUR_NAMES[a], COLOUR_NAMES[b]]}
                                for tl, a, b in _monuments.choices(self.pos, self.monument_tile)]}
        return {"cells": [_where(c) for c in _treasures.takeable(self.pos, self.claim[1])]}

    def commit_colour(self) -> str:
        """The colour of the tiles committed to the conflict being fought."""
        k = self.conflict
        return RED if k["kind"] == "revolt" else k["colour"]

    def is_over(self) -> bool:
        return self.phase is None and self.end_reason is not None

    def result(self) -> dict:
        if not self.is_over():
            raise IllegalAction("the game is not over")
        return {"scores": [f["score"] for f in self.final],
                "winners": [f["seat"] for f in self.final if f["position"] == 1],
                "positions": [f["position"] for f in self.final], "reason": self.end_reason}

    # ------------------------------------------------------------ legal actions
    def timeout_action(self, seat: int) -> dict:
        """A legal, passive default for ``seat``'s pending decision."""
        if self.phase is None or seat != self.pending_seat():
            raise IllegalAction(f"no decision is pending for seat {seat}")
        phase = self.phase
        if phase == ACTION:
            return {"pass": {}}
        if phase == ADD:
            return {"add": {"colour": COLOUR_NAMES[self.commit_colour()], "n": 0}}
        if phase == RESOLVE:
            return {"resolve": {"colour": COLOUR_NAMES[self.war["remaining"][0]]}}
        if phase == MONUMENT:
            return {"decline": {}}
        return {"take": _where(_treasures.takeable(self.pos, self.claim[1])[0])}

    def legal_actions(self) -> list[dict]:
        """Every legal action for the pending decision."""
        phase = self.phase
        if phase is None:
            return []
        seat = self.pending_seat()
        if phase == ADD:
            colour = self.commit_colour()
            return [{"add": {"colour": COLOUR_NAMES[colour], "n": n}}
                    for n in range(self.hands[seat][colour] + 1)]
        if phase == RESOLVE:
            return [{"resolve": {"colour": COLOUR_NAMES[c]}} for c in self.war["remaining"]]
        if phase == MONUMENT:
            return [{"decline": {}}] + [
                {"build": {**_where(tl), "colours": [COLOUR_NAMES[a], COLOUR_NAMES[b]]}}
                for tl, a, b in _monuments.choices(self.pos, self.monument_tile)]
        if phase == TREASURE:
            return [{"take": _where(c)} for c in _treasures.takeable(self.pos, self.claim[1])]
        return self._legal_turn_actions(seat)

    def _legal_turn_actions(self, seat: int) -> list[dict]:
        pos = self.pos
        out: list[dict] = [{"pass": {}}]
        groups = Groups(pos)
        hand = self.hands[seat]
        for colour in COLOURS:
            if hand[colour]:
                name = COLOUR_NAMES[colour]
                out.extend({"tile": {"colour": name, **_where(c)}}
                           for c in _actions.tile_cells(pos, groups, colour))
        in_hand = self.leaders_in_hand(seat)
        if in_hand:
            spots = _actions.leader_cells(pos, groups)
            for colour in in_hand:
                name = COLOUR_NAMES[colour]
                out.extend({"leaderadd": {"colour": name, **_where(c)}} for c in spots)
        for colour, at in self.leaders_on_board(seat).items():
            out.append({"leadertake": _where(at)})
            who = pos.leader[at]
            pos.leader[at] = None               # lifted while its new places are found
            try:
                spots = _actions.leader_cells(pos, Groups(pos))
            finally:
                pos.leader[at] = who
            x, y = xy(at)
            out.extend({"leadermove": {"x": x, "y": y, "to_x": tx, "to_y": ty}}
                       for c in spots if c != at for tx, ty in [xy(c)])
        if self.catastrophes[seat]:
            out.extend({"catastrophe": _where(c)} for c in _actions.catastrophe_cells(pos))
        counts = [range(hand[c] + 1) for c in COLOURS]
        for combo in itertools.product(*counts):
            if any(combo):
                out.append({"discard": {COLOUR_NAMES[c]: n for c, n in zip(COLOURS, combo)}})
        return out

    # -------------------------------------------------------------------- apply
    def apply(self, seat: int, action: dict) -> list[dict]:
        """Validate and apply ``action`` for ``seat``; return the events it caused."""
        phase = self.phase
        if phase is None:
            raise IllegalAction("the game is over")
        expected = self.pending_seat()
        if seat != expected:
            raise IllegalAction(f"it is not your decision: waiting for {self.players[expected]}")
        if not isinstance(action, dict) or len(action) != 1:
            raise IllegalAction("an action is an object with one key, the verb")
        (verb, args), = action.items()
        if verb not in VERBS[phase]:
            raise IllegalAction(f"expected {' or '.join(VERBS[phase])}, not {verb!r}")
        ev: list[dict] = []
        getattr(self, "_do_" + verb)(seat, args, ev)
        return ev

    def _log(self, seat: int, verb: str, args: dict) -> None:
        self._actions.append({"player": self.players[seat], verb: args})

    # -- the turn's actions
    def _do_pass(self, seat: int, args, ev: list) -> None:
        _fields(args, (), "pass")
        self._log(seat, "pass", {})
        self._after_action(ev)

    def _do_discard(self, seat: int, args, ev: list) -> None:
        names = tuple(COLOUR_NAMES[c] for c in COLOURS)
        _fields(args, names, "discard")
        hand = self.hands[seat]
        counts = {}
        for c in COLOURS:
            n = args[COLOUR_NAMES[c]]
            if not _is_int(n) or n < 0:
                raise IllegalAction(f"cannot discard {n!r} {COLOUR_NAMES[c]} tiles")
            if n > hand[c]:
                raise IllegalAction(f"you hold only {hand[c]} {COLOUR_NAMES[c]} tiles")
            counts[c] = n
        total = sum(counts.values())
        if total == 0:
            raise IllegalAction("discard at least one tile (or pass)")
        self._log(seat, "discard", {COLOUR_NAMES[c]: n for c, n in counts.items()})
        for c, n in counts.items():
            hand[c] -= n
            self.out[c] += n
        ev.append({"type": "discarded", "seat": seat, "count": total})
        # a bag too short for the replacements: the tiles left are drawn, then the game ends
        if not self._draw(seat, total, ev, short_draws_rest=True):
            return
        self._after_action(ev)

    def _do_tile(self, seat: int, args, ev: list) -> None:
        _fields(args, ("colour", "x", "y"), "tile")
        colour = _colour_of(args["colour"])
        c = _cell_of(args)
        if not self.hands[seat][colour]:
            raise IllegalAction(f"you have no {COLOUR_NAMES[colour]} tile")
        pos = self.pos
        before = Groups(pos)
        why = _actions.tile_refusal(pos, before, colour, c)
        if why:
            raise IllegalAction(why)
        self._log(seat, "tile", {"colour": COLOUR_NAMES[colour], **_where(c)})
        self.hands[seat][colour] -= 1
        pos.tile[c] = colour
        unites = len(before.adjacent_kingdoms(c)) == 2
        ev.append({"type": "tile_placed", "seat": seat, "colour": COLOUR_NAMES[colour], **_where(c),
                   "unites": unites})
        if unites:
            wars = _conflicts.war_colours(pos, c)
            if wars:
                self.war = {"tile": c, "remaining": [w for w in COLOURS if w in wars]}
                self._ask_resolve(ev)
                return
        else:
            scorer = _scoring.tile_scorer(pos, Groups(pos), c, colour)
            if scorer is not None:
                self._score(scorer, colour, 1, "tile", ev)
        self._after_tile(c, ev)

    def _do_leaderadd(self, seat: int, args, ev: list) -> None:
        _fields(args, ("colour", "x", "y"), "leaderadd")
        colour = _colour_of(args["colour"])
        c = _cell_of(args)
        if colour not in self.leaders_in_hand(seat):
            raise IllegalAction(f"your {COLOUR_NAMES[colour]} leader is already on the board")
        groups = Groups(self.pos)
        why = _actions.leader_refusal(self.pos, groups, c)
        if why:
            raise IllegalAction(why)
        self._log(seat, "leaderadd", {"colour": COLOUR_NAMES[colour], **_where(c)})
        self.pos.leader[c] = (seat, colour)
        ev.append({"type": "leader_placed", "seat": seat, "colour": COLOUR_NAMES[colour], **_where(c)})
        self._leader_arrived(seat, colour, c, groups, ev)

    def _do_leadermove(self, seat: int, args, ev: list) -> None:
        _fields(args, ("x", "y", "to_x", "to_y"), "leadermove")
        src, dst = _cell_of(args), _cell_of(args, "to_x", "to_y")
        pos = self.pos
        who = pos.leader[src]
        if who is None or who[0] != seat:
            raise IllegalAction("you have no leader there")
        if src == dst:
            raise IllegalAction("the leader is already there")
        pos.leader[src] = None
        try:
            groups = Groups(pos)
            why = _actions.leader_refusal(pos, groups, dst)
        finally:
            pos.leader[src] = who
        if why:
            raise IllegalAction(why)
        self._log(seat, "leadermove", {**_where(src), "to_x": xy(dst)[0], "to_y": xy(dst)[1]})
        pos.leader[src] = None
        pos.leader[dst] = who
        ev.append({"type": "leader_moved", "seat": seat, "colour": COLOUR_NAMES[who[1]], **_where(src),
                   "to_x": xy(dst)[0], "to_y": xy(dst)[1]})
        self._leader_arrived(seat, who[1], dst, groups, ev)

    def _leader_arrived(self, seat: int, colour: str, c: int, groups: Groups, ev: list) -> None:
        defender_cell = _conflicts.revolt_defender(self.pos, groups, c, colour)
        if defender_cell is None:
            self._after_action(ev)
            return
        defender = self.pos.leader[defender_cell][0]
        self.conflict = {"kind": "revolt", "colour": colour, "attacker": seat, "defender": defender,
                         "att_cell": c, "def_cell": defender_cell, "att_add": None, "def_add": None}
        ev.append({"type": "revolt", "attacker": seat, "defender": defender,
                   "colour": COLOUR_NAMES[colour], **_where(c)})
        self.phase = ADD

    def _do_leadertake(self, seat: int, args, ev: list) -> None:
        _fields(args, ("x", "y"), "leadertake")
        c = _cell_of(args)
        who = self.pos.leader[c]
        if who is None or who[0] != seat:
            raise IllegalAction("you have no leader there")
        self._log(seat, "leadertake", _where(c))
        self._withdraw(c, "taken", ev)
        self._after_action(ev)

    def _do_catastrophe(self, seat: int, args, ev: list) -> None:
        _fields(args, ("x", "y"), "catastrophe")
        c = _cell_of(args)
        if not self.catastrophes[seat]:
            raise IllegalAction("you have no catastrophe tile left")
        pos = self.pos
        why = _actions.catastrophe_refusal(pos, c)
        if why:
            raise IllegalAction(why)
        self._log(seat, "catastrophe", _where(c))
        self.catastrophes[seat] -= 1
        removed = pos.tile[c]
        if removed is not None:
            self.out[removed] += 1
            pos.tile[c] = None
        pos.catastrophe[c] = True
        ev.append({"type": "catastrophe", "seat": seat, **_where(c),
                   "removed": COLOUR_NAMES[removed] if removed else None})
        for lc in _actions.leaders_cut_off(pos):
            self._withdraw(lc, "catastrophe", ev)
        self._after_action(ev)

    # -- conflicts
    def _do_add(self, seat: int, args, ev: list) -> None:
        _fields(args, ("colour", "n"), "add")
        colour = _colour_of(args["colour"])
        want = self.commit_colour()
        if colour != want:
            raise IllegalAction(f"this conflict takes {COLOUR_NAMES[want]} tiles")
        n = args["n"]
        have = self.hands[seat][colour]
        if not _is_int(n) or n < 0:
            raise IllegalAction(f"cannot add {n!r} tiles")
        if n > have:
            raise IllegalAction(f"you hold only {have} {COLOUR_NAMES[colour]} tiles")
        self._log(seat, "add", {"colour": COLOUR_NAMES[colour], "n": n})
        self.hands[seat][colour] -= n
        self.out[colour] += n
        k = self.conflict
        attacking = k["att_add"] is None
        ev.append({"type": "committed", "seat": seat, "colour": COLOUR_NAMES[colour], "n": n,
                   "attacker": attacking})
        if attacking:
            k["att_add"] = n
            return
        k["def_add"] = n
        if k["kind"] == "revolt":
            self._end_revolt(ev)
        else:
            self._end_war(ev)

    def strengths(self) -> tuple[int, int]:
        """(attacker, defender) strength of the conflict being fought, before commitments."""
        k = self.conflict
        pos = self.pos
        if k["kind"] == "revolt":
            return (_conflicts.revolt_strength(pos, k["att_cell"]),
                    _conflicts.revolt_strength(pos, k["def_cell"]))
        tile = self.war["tile"]
        return (_conflicts.war_strength(pos, tile, k["att_cell"], k["colour"]),
                _conflicts.war_strength(pos, tile, k["def_cell"], k["colour"]))

    def _fight(self, ev: list) -> tuple[int, int, int]:
        """Decide the conflict: (winner seat, loser seat, loser's leader cell)."""
        k = self.conflict
        a, d = self.strengths()
        a += k["att_add"]
        d += k["def_add"]
        if a > d:
            winner, loser, loser_cell = k["attacker"], k["defender"], k["def_cell"]
        else:
            winner, loser, loser_cell = k["defender"], k["attacker"], k["att_cell"]
        ev.append({"type": "conflict_won", "kind": k["kind"], "colour": COLOUR_NAMES[k["colour"]],
                   "winner": winner, "loser": loser, "strength": [a, d]})
        return winner, loser, loser_cell

    def _end_revolt(self, ev: list) -> None:
        winner, _, loser_cell = self._fight(ev)
        self._withdraw(loser_cell, "revolt", ev)
        self._score(winner, RED, 1, "revolt", ev)
        self.conflict = None
        self._after_action(ev)

    def _ask_resolve(self, ev: list) -> None:
        self.phase = RESOLVE
        ev.append({"type": "war_pending", "seat": self.active,
                   "colours": [COLOUR_NAMES[c] for c in self.war["remaining"]]})

    def _do_resolve(self, seat: int, args, ev: list) -> None:
        _fields(args, ("colour",), "resolve")
        colour = _colour_of(args["colour"])
        if colour not in self.war["remaining"]:
            raise IllegalAction(f"{COLOUR_NAMES[colour]} is not in conflict")
        self._log(seat, "resolve", {"colour": COLOUR_NAMES[colour]})
        cells = _conflicts.war_colours(self.pos, self.war["tile"])[colour]
        owner = {self.pos.leader[c][0]: c for c in cells}
        attacker, defender = _conflicts.attacker_first(tuple(owner), self.order, self.active)
        self.conflict = {"kind": "war", "colour": colour, "attacker": attacker, "defender": defender,
                         "att_cell": owner[attacker], "def_cell": owner[defender],
                         "att_add": None, "def_add": None}
        ev.append({"type": "war", "attacker": attacker, "defender": defender,
                   "colour": COLOUR_NAMES[colour]})
        self.phase = ADD

    def _end_war(self, ev: list) -> None:
        k = self.conflict
        colour, tile = k["colour"], self.war["tile"]
        winner, _, loser_cell = self._fight(ev)
        lost = _conflicts.war_losses(self.pos, tile, loser_cell, colour)
        for c in lost:
            self.pos.tile[c] = None
            self.out[colour] += 1
            ev.append({"type": "tile_removed", "colour": COLOUR_NAMES[colour], **_where(c)})
        self._withdraw(loser_cell, "war", ev)
        self._score(winner, colour, len(lost) + 1, "war", ev)
        self.conflict = None
        still = _conflicts.war_colours(self.pos, tile)
        self.war["remaining"] = [c for c in self.war["remaining"] if c != colour and c in still]
        if self.war["remaining"]:
            self._ask_resolve(ev)
            return
        self.war = None
        self._after_tile(tile, ev)

    # -- monuments and treasures
    def _after_tile(self, c: int, ev: list) -> None:
        if _monuments.choices(self.pos, c):
            self.monument_tile = c
            self.phase = MONUMENT
        else:
            self._after_action(ev)

    def _do_decline(self, seat: int, args, ev: list) -> None:
        _fields(args, (), "decline")
        self._log(seat, "decline", {})
        self.monument_tile = None
        self._after_action(ev)

    def _do_build(self, seat: int, args, ev: list) -> None:
        _fields(args, ("x", "y", "colours"), "build")
        tl = _cell_of(args)
        pair = args["colours"]
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise IllegalAction("a monument has two colours")
        a, b = (_colour_of(p) for p in pair)
        main = self.pos.tile[self.monument_tile]
        if main not in (a, b):
            raise IllegalAction(f"the square is {COLOUR_NAMES[main]}: the monument must be of that colour")
        other = b if a == main else a
        if tl not in _monuments.squares(self.pos, self.monument_tile):
            raise IllegalAction(f"there is no square of four {COLOUR_NAMES[main]} tiles with its "
                                f"top-left corner at ({args['x']}, {args['y']}) holding the new tile")
        index = _monuments.monument_index(main, other)
        if index is None or index in self.pos.monuments:
            raise IllegalAction(f"the {COLOUR_NAMES[main]}-{COLOUR_NAMES[other]} monument is not available")
        colours = [COLOUR_NAMES[main], COLOUR_NAMES[other]]
        self._log(seat, "build", {**_where(tl), "colours": colours})
        cut = _monuments.leaders_cut_by(self.pos, tl)
        self.pos.place_monument(index, tl, main)
        self.monument_tile = None
        ev.append({"type": "monument_built", "seat": seat, **_where(tl), "colours": colours})
        for lc in cut:                                    # its flipped temples were their last
            self._withdraw(lc, "monument", ev)
        self._after_action(ev)

    def _do_take(self, seat: int, args, ev: list) -> None:
        _fields(args, ("x", "y"), "take")
        c = _cell_of(args)
        cells = self.claim[1]
        if c not in cells:
            raise IllegalAction("there is no treasure of your trader's kingdom there")
        if c not in _treasures.takeable(self.pos, cells):
            raise IllegalAction("corner treasures must be taken first")
        self._log(seat, "take", _where(c))
        self.pos.treasure[c] = 0
        self.wild[seat] += 1
        ev.append({"type": "treasure_taken", "seat": seat, **_where(c)})
        self._after_action(ev)

    def _after_action(self, ev: list) -> None:
        """The action and its conflicts are settled: treasures, then the next action or turn."""
        claims = _treasures.claims(self.pos, self.order, self.active)
        if claims:
            self.claim = claims[0]
            self.phase = TREASURE
            return
        self.claim = None
        if self.action_no < ACTIONS_PER_TURN:
            self.action_no += 1
            self.phase = ACTION
            ev.append({"type": "action", "seat": self.active, "number": self.action_no})
        else:
            self._end_turn(ev)

    # -------------------------------------------------------- pieces and points
    def _score(self, seat: int, colour: str, points: int, why: str, ev: list) -> None:
        self.scores[seat][colour] += points
        ev.append({"type": "scored", "seat": seat, "colour": COLOUR_NAMES[colour], "points": points,
                   "why": why})

    def _withdraw(self, c: int, why: str, ev: list) -> None:
        seat, colour = self.pos.leader[c]
        self.pos.leader[c] = None
        ev.append({"type": "leader_withdrawn", "seat": seat, "colour": COLOUR_NAMES[colour],
                   **_where(c), "why": why})

    def _draw(self, seat: int, n: int, ev: list, short_draws_rest: bool = False) -> bool:
        """Draw ``n`` tiles; if the bag holds fewer, the game ends at once (False), after
        drawing the tiles that are left when ``short_draws_rest`` (a discard's replacements)."""
        if n > self.bag_left:
            if short_draws_rest:
                self._draw(seat, self.bag_left, ev)
            self._finish("bag_empty", ev)
            return False
        hand = self.hands[seat]
        for colour in self._bag[self._bag_pos:self._bag_pos + n]:
            hand[colour] += 1
        self._bag_pos += n
        if n:
            ev.append({"type": "drew", "seat": seat, "count": n})
        return True

    # ------------------------------------------------------------------ turns
    def _start_turn(self, turn_pos: int, ev: list) -> None:
        self.turn_pos = turn_pos
        self.action_no = 1
        self.phase = ACTION
        ev.append({"type": "turn", "seat": self.active})
        ev.append({"type": "action", "seat": self.active, "number": 1})

    def _end_turn(self, ev: list) -> None:
        seat = self.active
        for index, colour in _monuments.monument_points(self.pos, seat):
            self._score(seat, colour, 1, "monument", ev)
        ev.append({"type": "turn_end", "seat": seat})
        if self.pos.treasures_left() <= END_TREASURES:
            self._finish("treasures", ev)
            return
        n = len(self.order)
        for i in range(n):
            s = self.order[(self.turn_pos + i) % n]
            if not self._draw(s, HAND_SIZE - self.hand_size(s), ev):
                return
        self._start_turn((self.turn_pos + 1) % n, ev)

    def _finish(self, reason: str, ev: list) -> None:
        self.phase = None
        self.conflict = self.war = self.claim = self.monument_tile = None
        self.end_reason = reason
        vectors, positions = _scoring.final_ranking(self.scores, self.wild)
        self.final = [{"seat": s, "score": vectors[s][0], "wild": self.wild[s], "vector": vectors[s],
                       "colours": {COLOUR_NAMES[c]: self.scores[s][c] for c in COLOURS},
                       "position": positions[s]} for s in range(len(self.players))]
        ev.append({"type": "game_over", "reason": reason, "final": [dict(f) for f in self.final],
                   "winners": [f["seat"] for f in self.final if f["position"] == 1]})

    # ---------------------------------------------------------- serialisation
    def record(self) -> dict:
        """The game record: players, the bag in draw order and every action applied."""
        rec = {"game": "et", "players": list(self.players), "tile_bag": "".join(self._bag),
               "actions": [_copy(a) for a in self._actions]}
        if self.seed is not None:
            rec["seed"] = self.seed
        return rec

    def to_dict(self) -> dict:
        k = self.conflict
        if k is not None:
            k = {**k, "att_cell": list(xy(k["att_cell"])), "def_cell": list(xy(k["def_cell"]))}
        w = self.war
        if w is not None:
            w = {"tile": list(xy(w["tile"])), "remaining": list(w["remaining"])}
        return {
            "format": STATE_FORMAT, "players": list(self.players), "seed": self.seed,
            "tile_bag": "".join(self._bag), "bag_pos": self._bag_pos, "position": self.pos.to_dict(),
            "hands": [dict(h) for h in self.hands], "catastrophes": list(self.catastrophes),
            "scores": [dict(s) for s in self.scores], "wild": list(self.wild), "out": dict(self.out),
            "order": list(self.order), "turn_pos": self.turn_pos, "action_no": self.action_no,
            "phase": self.phase, "conflict": k, "war": w,
            "monument_tile": list(xy(self.monument_tile)) if self.monument_tile is not None else None,
            "end_reason": self.end_reason, "final": _copy(self.final),
            "actions": [_copy(a) for a in self._actions],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Game":
        if d.get("format") != STATE_FORMAT:
            raise ValueError(f"not a Euphrates & Tigris state: format {d.get('format')!r}")
        game = cls(d["players"], list(d["tile_bag"]), d.get("seed"))
        game._bag_pos = d["bag_pos"]
        game.pos = Position.from_dict(d["position"])
        game.hands = [dict(h) for h in d["hands"]]
        game.catastrophes = list(d["catastrophes"])
        game.scores = [dict(s) for s in d["scores"]]
        game.wild = list(d["wild"])
        game.out = dict(d["out"])
        game.order = list(d["order"])
        game.turn_pos = d["turn_pos"]
        game.action_no = d["action_no"]
        game.phase = d["phase"]
        k = d["conflict"]
        if k is not None:
            k = {**k, "att_cell": cell(*k["att_cell"]), "def_cell": cell(*k["def_cell"])}
        game.conflict = k
        w = d["war"]
        game.war = None if w is None else {"tile": cell(*w["tile"]), "remaining": list(w["remaining"])}
        mt = d["monument_tile"]
        game.monument_tile = None if mt is None else cell(*mt)
        game.end_reason = d["end_reason"]
        game.final = _copy(d["final"])
        game._actions = [_copy(a) for a in d["actions"]]
        if game.phase == TREASURE:
            game.claim = _treasures.claims(game.pos, game.order, game.active)[0]
        return game

    def copy(self) -> "Game":
        """An independent copy (for bots that look ahead)."""
        new = Game.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.pos = self.pos.copy()
        new.hands = [dict(h) for h in self.hands]
        new.catastrophes = list(self.catastrophes)
        new.scores = [dict(s) for s in self.scores]
        new.wild = list(self.wild)
        new.out = dict(self.out)
        new.conflict = dict(self.conflict) if self.conflict else None
        new.war = {"tile": self.war["tile"], "remaining": list(self.war["remaining"])} if self.war else None
        new._actions = list(self._actions)
        new.final = _copy(self.final)
        return new


def _copy(v):
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v
