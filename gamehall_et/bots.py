"""Euphrates & Tigris bots: ``make_bot(name, seed)`` for the hall, selfplay and tests.

Bots are pure and deterministic (all randomness from ``random.Random(seed)``)
and see only what their player may see: the board, their own hand and score,
the number of tiles in other hands and in the bag.  They act through the same
engine API as a human (``apply`` of the actions in the engine's docstring).

``random`` picks uniformly among the engine's legal actions.

``strong`` values each candidate with one look at the board (no lookahead):
a point in colour c is worth more the weaker c is among its own colours
(the final score is the weakest colour); it places tiles where they score
for its own leaders, starts wars and revolts it expects to win (its board
strength plus its hand against the other side's board strength plus a
guess at their hand), puts its leaders where their colour is plentiful,
beside monuments of their colour and away from a lone temple a catastrophe
could take, builds monuments its leaders will collect from, sends its trader
after treasures, commits in conflicts just enough to win when it can and
nothing when it cannot, and discards colours it cannot use.  It moves a
leader on the board when the new place is worth clearly more than the old
one (both valued as places for that leader, the leader lifted), so by more
than ``MOVE_COST``: a trader to two treasures, a leader to a monument of its
colour, into a revolt it expects to win, or off a temple one catastrophe
would cut it off from.

It also weighs the conflict each of its leaders may lose before its next
turn: a war (an empty cell one tile from a kingdom holding an opponent's
leader of that colour, whose tiles there plus a guess at his hand beat its
own tiles plus its hand) or a revolt (an empty cell beside its kingdom where
an opponent's leader of that colour would stand beside more temples than its
own plus its red tiles).  The loser's leader goes back to the hand either
way, but the winner scores: one red point for a revolt, the loser's tiles of
that colour plus one for a war.  So it withdraws the leader (``leadertake``)
when the points it expects to deny (the chance times the points, counted at
``DENY`` shared among the opponents) outweigh what the leader is worth where
it stands if nobody attacks, and that beats its other actions; if a place
out of that kingdom's reach exists (itself checked for such a threat), it
moves the leader there instead, which is worth the withdrawal plus the new
place.  A leader not worth withdrawing moves exactly as before; a leader is
never placed from the hand where it would at once be worth withdrawing, and
it leaves a threat at most once per draw from the bag (two bots fleeing
each other's leaders in turn would otherwise never use a tile, and the game
never end); for the same reason, with nothing worth doing it discards one
tile of the colour it holds most rather than pass.  Withdrawing is rare in
four-player games: leaving and coming back costs two actions against the few
points a lost war gives one of three opponents (bots that withdrew or fled more readily did measurably worse).
"""
from __future__ import annotations

import math
import random
from typing import Any

from zope.interface import implementer

from gamehall.interfaces import IBot

from . import actions as _actions
from . import monuments as _monuments
from .board import (BLACK, BLUE, COLOUR_CODES, COLOUR_NAMES, COLOURS, GREEN, HEIGHT, MONUMENTS, NEIGHBOURS,
                    RED, RIVER, WIDTH, xy)
from .board import cell as xy_cell
from .conflicts import revolt_strength
from .kingdoms import Groups

#: what a guess at an opponent's tiles of one colour in hand is, in conflicts
HAND_GUESS = 1.5
#: what moving a leader must gain over its place, in the values of one action
MOVE_COST = 0.5
#: how many turns' monument points a leader beside a monument of its colour is worth
MONUMENT_TURNS = 1.5
#: what standing beside a single temple without a treasure costs (a catastrophe cuts it off)
EXPOSED = 0.4
#: what the points an opponent would score off us are worth, shared among the opponents
DENY = 1.0
#: how likely an opponent is to start a war he would win before our next turn (about half
#: of such leaders lost one in four-strong-bot games), and a revolt (far fewer: a revolt needs
#: his leader, and many cells beside a kingdom could take one)
ATTACK_P = 0.6
REVOLT_P = 0.25
#: tiles of each colour expected in an opponent's hand (six from the bag; red is kept for revolts)
HAND_MEAN = {RED: 2.0, BLUE: 1.5, GREEN: 1.25, BLACK: 1.25}
#: destinations of a threatened leader checked for a threat of their own (the best few)
SAFE_CHECKS = 3


def _more_than(mean: float, n: int = 13) -> tuple[float, ...]:
    """P(X > d) for d = 0 .. n-1, X Poisson with ``mean``: an opponent holding more than d tiles."""
    out, cdf = [], 0.0
    for k in range(n):
        cdf += math.exp(-mean) * mean ** k / math.factorial(k)
        out.append(max(0.0, 1.0 - cdf))
    return tuple(out)


_MORE = {colour: _more_than(mean) for colour, mean in HAND_MEAN.items()}


def _beats(colour: str, d: int) -> float:
    """The chance an opponent commits more than ``d`` tiles of ``colour`` (d < 0: he wins anyway)."""
    if d < 0:
        return 1.0
    table = _MORE[colour]
    return table[d] if d < len(table) else 0.0


class _Lifted:
    """The engine as ``_leader_value`` reads it (position and hands), over another position."""

    def __init__(self, engine: Any, pos: Any):
        self.pos = pos
        self.hands = engine.hands
        self.catastrophes = engine.catastrophes


@implementer(IBot)
class RandomBot:
    """Uniformly random among the engine's legal actions: a baseline and a fuzzer."""

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(seed)

    def choose(self, engine: Any, seat: int) -> dict:
        return self._rng.choice(engine.legal_actions())


def _where(c: int) -> dict:
    x, y = xy(c)
    return {"x": x, "y": y}


@implementer(IBot)
class StrongBot:
    """The heuristic player described in the module docstring."""

    #: withdraw (or move) a leader from a conflict it expects to lose; False is the bot before that
    withdraws = True

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(seed)
        self._fled_at: int | None = None      # the bag's size when it last left a threat

    def choose(self, engine: Any, seat: int) -> dict:
        d = engine.pending()
        return getattr(self, "_" + d.kind)(engine, seat, d.options)

    # -------------------------------------------------------------- values
    @staticmethod
    def _weights(engine: Any, seat: int) -> dict[str, float]:
        """What one point of each colour is worth: the weakest colours most."""
        score = engine.scores[seat]
        low = min(score.values())
        return {c: 2.0 / (1 + score[c] - low) for c in COLOURS}

    # -------------------------------------------------------------- the turn
    def _action(self, engine: Any, seat: int, options: dict) -> dict:
        pos = engine.pos
        groups = Groups(pos)
        w = self._weights(engine, seat)
        hand = engine.hands[seat]
        best: tuple[float, float, dict] = (0.05, 0.0, {"pass": {}})

        def consider(value: float, action: dict) -> None:
            nonlocal best
            key = (value, self._rng.random(), action)
            if key[:2] > best[:2]:
                best = key

        for colour in COLOURS:
            if hand[colour]:
                for c in _actions.tile_cells(pos, groups, colour):
                    consider(self._tile_value(engine, seat, groups, colour, c, w),
                             {"tile": {"colour": COLOUR_NAMES[colour], **_where(c)}})
        in_hand = engine.leaders_in_hand(seat)
        if in_hand:
            spots = _actions.leader_cells(pos, groups)
            for colour in in_hand:
                for c in spots:
                    value = self._leader_value(engine, seat, groups, colour, c, w)
                    if self.withdraws and value > best[0]:
                        value = self._unless_doomed(engine, seat, groups, colour, c, value)
                    consider(value, {"leaderadd": {"colour": COLOUR_NAMES[colour], **_where(c)}})
        # leaving a threat is done once per draw from the bag at most: two bots chasing each
        # other's leaders round the board would otherwise never use a tile and never end the game
        threats = (self._threats(engine, seat, groups)
                   if self.withdraws and engine.bag_left != self._fled_at else {})
        for at, to, gain in self._leader_moves(engine, seat, w, threats):
            if to is None:
                consider(gain, {"leadertake": _where(at)})
            else:
                consider(gain - MOVE_COST, {"leadermove": {**_where(at), "to_x": xy(to)[0], "to_y": xy(to)[1]}})
        if engine.catastrophes[seat]:
            for c, value in self._catastrophes(engine, seat, groups):
                consider(value, {"catastrophe": _where(c)})
        if best[0] < 0.3:
            discard = self._discard(engine, seat)
            if discard:
                consider(0.25, {"discard": discard})
        verb, args = next(iter(best[2].items()))
        if verb == "pass" and self.withdraws and any(hand.values()):
            # two bots with nothing worth doing would pass for ever (no tile drawn, no end):
            # a new tile instead, for the colour it holds most of
            colour = max(COLOURS, key=lambda k: hand[k])
            return {"discard": {COLOUR_NAMES[k]: int(k == colour) for k in COLOURS}}
        if verb in ("leadertake", "leadermove") and xy_cell(args["x"], args["y"]) in threats:
            self._fled_at = engine.bag_left
        return best[2]

    def _unless_doomed(self, engine, seat, groups, colour, c, value) -> float:
        """A leader's place valued with the conflict it may lose there, if that would be worth
        withdrawing it from (so it is never placed only to be taken back)."""
        p, points = self._place_threat(engine.pos, engine, seat, groups, colour, c)
        lost = p * points * DENY / max(1, len(engine.hands) - 1)
        if lost > (1 - p) * max(value, 0.0):
            return (1 - p) * value - lost
        return value

    def _tile_value(self, engine, seat, groups, colour, c, w) -> float:
        pos = engine.pos
        label = groups.label
        near = {label[n] for n in NEIGHBOURS[c] if label[n] >= 0}
        kingdoms = [g for g in near if groups.leaders[g]]
        value = -0.1
        if len(kingdoms) == 2:
            return self._war_value(engine, seat, groups, kingdoms, w)
        if kingdoms:
            leaders = groups.leaders[kingdoms[0]]
            lc = leaders.get(colour, leaders.get(BLACK))
            if lc is not None:
                value = w[colour] if pos.leader[lc][0] == seat else -0.3
        # treasures brought within a trader's reach
        treasures = sum(1 for g in near for t in groups.cells[g] if pos.treasure[t])
        if treasures >= 2 and kingdoms:
            trader = groups.leaders[kingdoms[0]].get(GREEN)
            if trader is not None:
                value += 2.0 * (treasures - 1) if pos.leader[trader][0] == seat else -1.5 * (treasures - 1)
        if self._completes_square(pos, colour, c) and any(colour in m for m in _available(pos)):
            mine = kingdoms and any(pos.leader[lc][0] == seat for lc in groups.leaders[kingdoms[0]].values())
            value += 1.5 if mine else 0.2
        if colour == RED and not kingdoms:
            value += 0.05                    # a temple for a later leader
        return value

    @staticmethod
    def _completes_square(pos, colour, c) -> bool:
        tile = pos.tile
        if sum(1 for n in NEIGHBOURS[c] if tile[n] == colour) < 2:
            return False                     # a square through c holds two of its side neighbours
        x, y = xy(c)
        for tx in (x - 1, x):
            for ty in (y - 1, y):
                if 0 <= tx < WIDTH - 1 and 0 <= ty < HEIGHT - 1:
                    tl = ty * WIDTH + tx
                    cells = (tl, tl + 1, tl + WIDTH, tl + WIDTH + 1)
                    if all(k == c or tile[k] == colour for k in cells):
                        return True
        return False

    def _war_value(self, engine, seat, groups, kingdoms, w) -> float:
        pos = engine.pos
        a, b = (groups.leaders[g] for g in kingdoms)
        value = -0.1
        for colour in COLOURS:
            if colour not in a or colour not in b:
                continue
            mine_side = None
            for side, other in ((kingdoms[0], kingdoms[1]), (kingdoms[1], kingdoms[0])):
                if pos.leader[groups.leaders[side][colour]][0] == seat:
                    mine_side = (side, other)
            if mine_side is None:
                value += 0.1                 # others weaken each other
                continue
            mine = sum(1 for t in groups.cells[mine_side[0]] if pos.tile[t] == colour)
            theirs = sum(1 for t in groups.cells[mine_side[1]] if pos.tile[t] == colour)
            strength = mine + engine.hands[seat][colour]
            if strength > theirs + HAND_GUESS:
                value += (theirs + 1) * w[colour]
            else:
                value -= (mine + 1) * w[colour] * 0.6
        return value

    def _leader_value(self, engine, seat, groups, colour, c, w) -> float:
        pos = engine.pos
        label = groups.label
        near = {label[n] for n in NEIGHBOURS[c] if label[n] >= 0}
        cells = [t for g in near for t in groups.cells[g]]
        same = sum(1 for t in cells if pos.tile[t] == colour)
        temples = revolt_strength(pos, c)
        value = 0.8 + 0.12 * min(same, 10) + 0.15 * temples + (0.3 if colour == BLACK else 0.0)
        for g in near:
            other = groups.leaders[g].get(colour)
            if other is not None:
                theirs = revolt_strength(pos, other) + HAND_GUESS
                if temples + engine.hands[seat][RED] > theirs:
                    value += w[RED]
                else:
                    return -1.0
        if temples == 1 and EXPOSED and any(k for s, k in enumerate(engine.catastrophes) if s != seat):
            (temple,) = [n for n in NEIGHBOURS[c] if pos.tile[n] == RED]
            if not pos.treasure[temple]:
                value -= EXPOSED                # one catastrophe there cuts it off
        for i, (tl, _) in pos.monuments.items():
            if colour in MONUMENTS[i] and label[tl] in near:
                value += MONUMENT_TURNS * w[colour]      # a point of its colour every turn of ours
        if colour == GREEN:
            treasures = sum(1 for t in cells if pos.treasure[t])
            if treasures >= 2:
                value += 2.0 * (treasures - 1)
        if colour == BLUE and not same:
            value -= 0.3
        return value

    def _leader_moves(self, engine, seat, w, threats=None) -> list[tuple[int, int | None, float]]:
        """(from, to, gain) for moving each of its leaders: the place's value (as if placing
        it, with the leader lifted) there minus here, so a leader goes where its colour is
        plentiful, to treasures (the trader), into a revolt it expects to win, or beside more
        temples; both sides are valued on the same lifted board, so it never shuttles back.

        A leader in ``threats`` (cell -> (chance, points, its kingdom's cells)) may lose a
        conflict: staying is worth ``(1 - chance) * here`` less the points it gives away, so
        withdrawing it (``to`` None, the gain the action's whole value) is worth ``chance *
        points * deny - (1 - chance) * here``.  Only when that is positive does a move out of
        its kingdom's reach gain ``chance * (here + points * deny)`` more (less the same for a
        threat where it goes, checked for the best ``SAFE_CHECKS`` places)."""
        out: list[tuple[int, int | None, float]] = []
        on_board = engine.leaders_on_board(seat)
        if not on_board:
            return out
        threats = threats or {}
        deny = DENY / max(1, len(engine.hands) - 1)
        pos = engine.pos.copy()
        view = _Lifted(engine, pos)
        for colour, at in on_board.items():
            who = pos.leader[at]
            pos.leader[at] = None
            groups = Groups(pos)
            here = self._leader_value(view, seat, groups, colour, at, w)
            threat = threats.get(at)
            if threat is None:
                for c in _actions.leader_cells(pos, groups):
                    if c != at:
                        out.append((at, c, self._leader_value(view, seat, groups, colour, c, w) - here))
            else:
                p, points, kingdom = threat
                kept = max(here, 0.0)
                take = p * points * deny - (1 - p) * kept
                out.append((at, None, take))
                relief = p * (kept + points * deny) if take > 0 else 0.0
                safe = []
                for c in _actions.leader_cells(pos, groups):
                    if c == at:
                        continue
                    gain = self._leader_value(view, seat, groups, colour, c, w) - here
                    if not relief or any(n in kingdom for n in NEIGHBOURS[c]):
                        out.append((at, c, gain))              # as before, or within the threat's reach
                    else:
                        safe.append((gain + relief, c, gain))
                safe.sort(reverse=True)
                for k, (gain, c, plain) in enumerate(safe):
                    if k >= SAFE_CHECKS:
                        gain = plain                           # not checked: valued as before
                    else:
                        p2, points2 = self._place_threat(pos, engine, seat, groups, colour, c)
                        gain -= p2 * (plain + here + points2 * deny)
                    out.append((at, c, gain))
            pos.leader[at] = who
        return out

    def _threats(self, engine, seat, groups) -> dict[int, tuple[float, int, set[int]]]:
        """Its leaders that may lose a conflict before its next turn: cell -> (chance, points
        the winner would score, the cells of the leader's kingdom)."""
        out = {}
        label = groups.label
        for colour, at in engine.leaders_on_board(seat).items():
            g = label[at]
            members = groups.cells[g]
            p, points = self._threat(engine.pos, engine, seat, groups, {g}, members, colour, at)
            if p > 0:
                out[at] = (p, points, set(members))
        return out

    def _place_threat(self, pos, engine, seat, groups, colour, c) -> tuple[float, int]:
        """_threat for a ``colour`` leader placed on the free cell ``c``: its kingdom would be
        ``c`` and the groups beside it."""
        ours = groups.adjacent(c)
        members = [c] + [t for g in ours for t in groups.cells[g]]
        return self._threat(pos, engine, seat, groups, ours, members, colour, c)

    @staticmethod
    def _threat(pos, engine, seat, groups, ours, members, colour, at) -> tuple[float, int]:
        """(chance, points) of the likeliest-costly conflict the ``colour`` leader at ``at``, in
        the kingdom of ``members`` (the groups ``ours``), may lose: a war through one empty cell
        with a kingdom holding a ``colour`` leader, or a revolt from an empty cell beside it."""
        tile, catastrophe = pos.tile, pos.catastrophe
        label, leaders = groups.label, groups.leaders
        hand = engine.hands[seat]
        war_strength = sum(1 for t in members if tile[t] == colour) + hand[colour]
        revolt_strength_ = revolt_strength(pos, at) + hand[RED]
        war_d = revolt_d = None
        theirs: dict[int, int] = {}
        seen = set(members)
        for t in members:
            for e in NEIGHBOURS[t]:
                if e in seen:
                    continue
                seen.add(e)
                if label[e] >= 0 or catastrophe[e] or tile[e] is not None:
                    continue
                others = {label[n] for n in NEIGHBOURS[e]
                          if label[n] >= 0 and label[n] not in ours and leaders[label[n]]}
                if len(others) == 1:                       # a tile here unites the two
                    (h,) = others
                    if colour in leaders[h]:
                        if h not in theirs:
                            theirs[h] = sum(1 for k in groups.cells[h] if tile[k] == colour)
                        d = war_strength - theirs[h]
                        war_d = d if war_d is None else min(war_d, d)
                elif not others and e not in RIVER and _actions.next_to_temple(pos, e):
                    d = revolt_strength_ - revolt_strength(pos, e)   # a leader of theirs here revolts
                    revolt_d = d if revolt_d is None else min(revolt_d, d)
        best = (0.0, 0)
        if revolt_d is not None:
            best = (REVOLT_P * _beats(RED, revolt_d), 1)
        if war_d is not None:
            p = ATTACK_P * _beats(colour, war_d)
            lost = 0
            for t in members:
                if tile[t] == colour and not (colour == RED and (
                        pos.treasure[t] or any(pos.leader[n] is not None and n != at for n in NEIGHBOURS[t]))):
                    lost += 1
            if p * (lost + 1) > best[0] * best[1]:
                best = (p, lost + 1)
        return best

    @staticmethod
    def _catastrophes(engine, seat, groups) -> list[tuple[int, float]]:
        """Catastrophes that cut an opponent's leader off from its only temple, and none of ours."""
        pos = engine.pos
        out = []
        for c in range(len(pos.tile)):
            if pos.tile[c] != RED or pos.treasure[c]:
                continue
            hit = []
            for n in NEIGHBOURS[c]:
                who = pos.leader[n]
                if who is not None and revolt_strength(pos, n) == 1:
                    hit.append(who[0])
            if hit and seat not in hit:
                out.append((c, 0.6 + 0.2 * len(hit)))
        return out

    @staticmethod
    def _discard(engine, seat) -> dict | None:
        """Tiles of colours whose leader it has not placed (red kept for conflicts)."""
        hand = engine.hands[seat]
        placed = engine.leaders_on_board(seat)
        out = {COLOUR_NAMES[c]: (hand[c] if c != RED and c not in placed and c != BLACK else 0)
               for c in COLOURS}
        return out if any(out.values()) else None

    # -------------------------------------------------------------- conflicts
    def _add(self, engine, seat, options) -> dict:
        colour = COLOUR_CODES[options["colour"]]
        have = engine.hands[seat][colour]
        att, dfn = engine.strengths()
        if options["attacker_added"] is None:          # attacking: the defender answers after
            need = dfn - att + 1           # to beat the board; their hand may add more
            n = 0 if have < need else min(have, max(0, need + 2))
        else:
            need = att + options["attacker_added"] - dfn   # ties go to the defender
            n = need if 0 < need <= have else 0
        return {"add": {"colour": options["colour"], "n": n}}

    def _resolve(self, engine, seat, options) -> dict:
        pos = engine.pos
        tile = engine.war["tile"]
        best, best_margin = options["colours"][0], None
        for name in options["colours"]:
            colour = COLOUR_CODES[name]
            groups = Groups(pos, skip=tile)
            margin = 0.0
            for g in groups.adjacent_kingdoms(tile):
                lc = groups.leaders[g].get(colour)
                if lc is None:
                    continue
                n = sum(1 for t in groups.cells[g] if pos.tile[t] == colour)
                margin += n if pos.leader[lc][0] == seat else -n
            if best_margin is None or margin > best_margin:
                best, best_margin = name, margin
        return {"resolve": {"colour": best}}

    def _monument(self, engine, seat, options) -> dict:
        pos = engine.pos
        groups = Groups(pos)
        leaders = groups.leaders[groups.label[engine.monument_tile]]
        w = self._weights(engine, seat)
        best, best_value = {"decline": {}}, 0.0
        for choice in options["choices"]:
            value = 0.0
            cut = _monuments.leaders_cut_by(pos, xy_cell(choice["x"], choice["y"]))
            for lc in cut:                       # sent home by the monument: a place lost
                owner, colour = pos.leader[lc]
                value += -w[colour] if owner == seat else 0.5
            for name in choice["colours"]:
                lc = leaders.get(COLOUR_CODES[name])
                if lc is not None and lc not in cut:
                    value += w[COLOUR_CODES[name]] if pos.leader[lc][0] == seat else -0.5
            if value > best_value:
                best, best_value = {"build": dict(choice)}, value
        return best

    def _treasure(self, engine, seat, options) -> dict:
        return {"take": dict(options["cells"][0])}


def _available(pos) -> list[tuple[str, str]]:
    return [MONUMENTS[i] for i in pos.available_monuments()]


BOTS = {"strong": StrongBot, "random": RandomBot}


def make_bot(name: str, seed: int | None = None):
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})") from None
