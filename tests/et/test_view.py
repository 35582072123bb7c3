"""The web view of Euphrates & Tigris: hidden hands and scores, legal choices, board targets.

Over positions of seeded random games (uniform legal actions, half of them
strong-bot moves so that conflicts, monuments and treasures happen): changing
what a seat may not see (other hands, other scores, the bag) never changes
what that seat or a spectator is shown; each choice and each board target
applies to a copy of the engine; everything serialises.
"""
from __future__ import annotations

import json
import random

from gamehall.interfaces import IGameView
from gamehall_et.board import COLOURS
from gamehall_et.bots import make_bot
from gamehall_et.engine import Game
from gamehall_et.view import EuphratesTigrisView

VIEW = EuphratesTigrisView()


def positions(players: int, games: int, every: int, seed: int = 0):
    for i in range(games):
        rng = random.Random(seed * 1000 + i)
        g = Game.new([f"p{k}" for k in range(players)], seed=rng.randrange(2 ** 32))
        bot = make_bot("strong", i)
        n = 0
        events = list(g.initial_events)
        while not g.is_over() and n < 400:
            if n % every == 0:
                yield g, events
            s = g.pending_seat()
            action = bot.choose(g, s) if rng.random() < 0.6 else rng.choice(g.legal_actions())
            events = g.apply(s, action)
            n += 1
        yield g, events


def perturbed(g: Game, keep: int | None, rng: random.Random) -> Game:
    """A copy where every hand and score but ``keep``'s, and the bag's order, are changed."""
    d = g.to_dict()
    for s in range(len(d["players"])):
        if s == keep:
            continue
        size = sum(d["hands"][s].values())
        hand = dict.fromkeys(COLOURS, 0)
        for _ in range(size):
            hand[rng.choice(COLOURS)] += 1
        d["hands"][s] = hand
        d["scores"][s] = {c: rng.randrange(20) for c in COLOURS}
    rest = list(d["tile_bag"][d["bag_pos"]:])
    rng.shuffle(rest)
    d["tile_bag"] = d["tile_bag"][:d["bag_pos"]] + "".join(rest)
    return Game.from_dict(d)


def test_view_provides_the_interface():
    assert IGameView.providedBy(VIEW) and VIEW.game == "et"
    assert VIEW.script == ("gamehall_et", "static/et.js")


def test_hands_and_scores_stay_hidden():
    rng = random.Random(3)
    checked = 0
    for g, events in positions(3, games=3, every=7):
        if g.is_over():
            continue          # at the end the final scores are public
        n = len(g.players)
        spectator = VIEW.spectator(g)
        assert "hand" not in spectator and "score" not in spectator
        assert VIEW.spectator(perturbed(g, None, rng)) == spectator
        for s in range(n):
            mine = VIEW.seat(g, s)
            assert mine["hand"] == {"red": g.hands[s]["r"], "green": g.hands[s]["g"],
                                    "blue": g.hands[s]["b"], "black": g.hands[s]["k"]}
            assert mine["score"]["treasures"] == g.wild[s]
            other = perturbed(g, s, rng)
            assert VIEW.seat(other, s) == mine
            assert VIEW.describe(other, s, events) == VIEW.describe(g, s, events)
        checked += 1
    assert checked > 30


def test_the_decision_of_a_seat_depends_only_on_what_it_sees():
    rng = random.Random(4)
    for g, _ in positions(2, games=2, every=11, seed=5):
        if g.is_over():
            continue
        s = g.pending_seat()
        assert VIEW.decision(perturbed(g, s, rng), s) == VIEW.decision(g, s)


def test_every_choice_and_board_target_is_legal():
    kinds = set()
    targets_tried = 0
    rng = random.Random(9)
    for g, _ in positions(4, games=3, every=3, seed=2):
        json.dumps(VIEW.spectator(g))
        assert len(VIEW.scores(g)) == len(g.players)
        if g.is_over():
            assert VIEW.spectator(g)["over"]["winners"] == g.result()["winners"]
            assert VIEW.scores(g) == [float(x) for x in g.result()["scores"]]
            continue
        s = g.pending_seat()
        assert all(VIEW.decision(g, o) is None for o in range(len(g.players)) if o != s)
        before = g.to_dict()
        d = VIEW.decision(g, s)
        VIEW.seat(g, s), VIEW.spectator(g), VIEW.scores(g)
        assert g.to_dict() == before, "a view changed the game"
        json.dumps(d)
        kinds.add(d["kind"])
        assert d["choices"] or d.get("targets")
        for c in d["choices"]:
            Game.from_dict(g.to_dict()).apply(s, c["action"])
        for mode, cells in d.get("targets", {}).items():
            for x, y in rng.sample(cells, min(3, len(cells))):
                Game.from_dict(g.to_dict()).apply(s, _board_action(mode, x, y))
                targets_tried += 1
    assert {"action", "add", "treasure"} <= kinds, kinds
    assert targets_tried > 100


def _board_action(mode: str, x: int, y: int) -> dict:
    """The action et.js sends for a click on (x, y) with the piece ``mode`` picked."""
    kind, _, arg = mode.partition(":")
    if kind == "tile":
        return {"tile": {"colour": arg, "x": x, "y": y}}
    if kind == "leader":
        return {"leaderadd": {"colour": arg, "x": x, "y": y}}
    if kind == "catastrophe":
        return {"catastrophe": {"x": x, "y": y}}
    if kind == "take":
        return {"take": {"x": x, "y": y}}
    fx, fy = map(int, arg.split(","))
    return {"leadermove": {"x": fx, "y": fy, "to_x": x, "to_y": y}}


def test_event_lines_tell_who_scored():
    g = Game.new(["ann", "bob"], seed=1)
    bot = make_bot("strong", 1)
    lines = []
    while not g.is_over() and len(lines) < 60:
        s = g.pending_seat()
        lines += VIEW.describe(g, None, g.apply(s, bot.choose(g, s)))
    assert any(" scores " in ln for ln in lines)
    assert all(isinstance(ln, str) and ln for ln in lines)
