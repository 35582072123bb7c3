"""Whole random games: every legal action is applicable, invariants hold after every action."""
from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gamehall.interfaces import IllegalAction
from gamehall_et import board as B
from gamehall_et.engine import Game
from gamehall_et.kingdoms import Groups, duplicate_leaders
from gamehall_et.record import game_from_record


def check_invariants(g: Game) -> None:
    pos = g.pos
    # tile conservation, colour by colour
    for colour in B.COLOURS:
        on_board = sum(1 for c in range(B.N_CELLS) if pos.tile[c] == colour)
        flipped = 4 * sum(1 for _, main in pos.monuments.values() if main == colour)
        in_hands = sum(h[colour] for h in g.hands)
        in_bag = g._bag[g._bag_pos:].count(colour)
        assert on_board + flipped + in_hands + in_bag + g.out[colour] == B.TILE_COUNTS[colour], colour
    # hands: never more than six, never negative; catastrophes 0-2
    for seat in range(len(g.players)):
        assert all(v >= 0 for v in g.hands[seat].values())
        assert g.hand_size(seat) <= B.HAND_SIZE
        assert 0 <= g.catastrophes[seat] <= 2
        assert all(v >= 0 for v in g.scores[seat].values())
    if g.phase == "action" and g.action_no == 1:
        assert all(g.hand_size(s) == B.HAND_SIZE for s in range(len(g.players)))
    # every piece where it may be
    for c in range(B.N_CELLS):
        if pos.tile[c] == "b":
            assert c in B.RIVER
        elif pos.tile[c] is not None:
            assert c not in B.RIVER
        if pos.leader[c] is not None:
            assert c not in B.RIVER and pos.tile[c] is None and pos.monument[c] is None
            # never on the board without a red temple next to it (a monument's flipped tiles are none)
            assert any(pos.tile[n] == "r" for n in B.NEIGHBOURS[c]), ("leader without a temple", B.xy(c))
        if pos.catastrophe[c]:
            assert not pos.occupied(c) and not pos.treasure[c]
        if pos.treasure[c]:
            assert pos.tile[c] == "r" or pos.monument[c] is not None
            assert c in B.START_TEMPLES
    # one leader of each colour per player at most; kingdoms at rest hold one of each colour
    seen = [who for who in pos.leader if who is not None]
    assert len(seen) == len(set(seen))
    if g.phase in ("action", "monument", "treasure") or g.is_over():
        assert duplicate_leaders(pos) == []
    # treasures: all accounted for; none owed at rest
    assert pos.treasures_left() + sum(g.wild) == 10
    if g.phase == "action":
        groups = Groups(pos)
        for k in groups.kingdoms():
            if "g" in groups.leaders[k]:
                assert sum(1 for c in groups.cells[k] if pos.treasure[c]) < 2
    # monuments: six at most, each 2x2
    for i, (tl, main) in pos.monuments.items():
        cells = (tl, tl + 1, tl + B.WIDTH, tl + B.WIDTH + 1)
        assert all(pos.monument[c] == i for c in cells) and main in B.MONUMENTS[i]
    assert sum(1 for m in pos.monument if m is not None) == 4 * len(pos.monuments)


def play(seed: int, n: int, choice_seed: int, deep_every: int = 25) -> Game:
    g = Game.new([f"p{i}" for i in range(n)], seed=seed)
    rnd = random.Random(choice_seed)
    check_invariants(g)
    steps = 0
    while not g.is_over():
        seat = g.pending_seat()
        legal = g.legal_actions()
        assert legal
        assert g.timeout_action(seat) in legal
        # another seat may never act, and nonsense is refused without a change
        other = (seat + 1) % n
        before = g.to_dict()
        for bad_seat, bad in ((other, legal[0]), (seat, {"tile": {"colour": "red", "x": -1, "y": 0}}),
                              (seat, {"fly": {}}), (seat, "pass")):
            try:
                g.apply(bad_seat, bad)
            except IllegalAction:
                pass
            else:
                raise AssertionError(f"accepted {bad!r} from seat {bad_seat}")
        assert g.to_dict() == before
        if steps % deep_every == 0:
            # every listed action really is legal
            for action in rnd.sample(legal, min(8, len(legal))):
                g.copy().apply(seat, action)
            d = json.loads(json.dumps(g.to_dict()))
            assert Game.from_dict(d).to_dict() == d
        g.apply(seat, rnd.choice(legal))
        steps += 1
        check_invariants(g)
    assert g.end_reason in ("treasures", "bag_empty")
    res = g.result()
    assert len(res["scores"]) == n and res["winners"]
    return g


@settings(max_examples=12)
@given(st.integers(0, 2 ** 32), st.integers(2, 4), st.integers(0, 2 ** 16))
def test_random_games_keep_every_invariant(seed, n, choice_seed):
    g = play(seed, n, choice_seed)
    replayed = game_from_record(json.loads(json.dumps(g.record())))
    assert replayed.to_dict() == g.to_dict()
