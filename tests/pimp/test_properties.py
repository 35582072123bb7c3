"""Whole random games: after every action the engine's invariants hold and a client's view,
built only from the messages, agrees with the engine (cash, properties, buildings, pot, cards);
refused actions change nothing; records replay to the same game."""
from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from gamehall.interfaces import IllegalAction
from gamehall_pimp.bots import make_bot
from gamehall_pimp.game import Monopoly, with_players
from gamehall_pimp.messages import SPECS
from gamehall_pimp.record import game_from_record
from gamehall_pimp.selfplay import play_game
from tests.pimp.model import ClientModel, check_invariants

CLIENT_MESSAGES = sorted(n for n, s in SPECS.items() if s.direction in "cx")


def random_args(rng: random.Random, name: str) -> list:
    out = []
    for f in SPECS[name].fields:
        if f == "B":
            out.append(rng.choice([0, 1, 2, 3, 5, 7, 10, 27, 28, 255, rng.randint(0, 40)]))
        elif f == "I":
            out.append(rng.choice([0, 1, 2, 50, 200, 5000, rng.randint(0, 400)]))
        elif f == "?":
            out.append(rng.random() < 0.5)
        elif f == "S":
            out.append(rng.choice(["", "x", "kerz"]))
        else:
            out.append([[rng.randint(0, 30), rng.randint(-5, 5), rng.randint(-1, 1)]])
    return out


def play_checked(seed: int, lineup: list[str], options: dict, garbage: float) -> Monopoly:
    g = with_players([f"{n}{i}" for i, n in enumerate(lineup)], seed)
    g.options.update(options)
    model = ClientModel(1)
    model.feed(g.state_dump(1))
    rng = random.Random(seed)
    bots = {i + 1: make_bot(n, seed + i) for i, n in enumerate(lineup)}

    def after(pid, action, msgs):
        model.feed(msgs)
        model.check(g)
        check_invariants(g)
        if rng.random() < garbage:
            # a random message from a random user: applied (and checked) or refused unchanged
            user = rng.choice(list(g.users))
            name = rng.choice(CLIENT_MESSAGES)
            before = json.dumps(g.to_dict(), sort_keys=True)
            try:
                msgs = g.apply(user, {"msg": name, "args": random_args(rng, name)})
            except IllegalAction:
                assert json.dumps(g.to_dict(), sort_keys=True) == before
            else:
                model.feed(msgs)
                model.check(g)
                check_invariants(g)

    stats = play_game(g, bots, after=after)
    for pid, name in enumerate(lineup, start=1):
        if name == "strong":
            assert stats["refused"][pid] == 0
    assert g.is_over() and g.winner
    return g


@settings(max_examples=12)
@given(seed=st.integers(0, 2 ** 32),
       lineup=st.lists(st.sampled_from(["strong", "random"]), min_size=2, max_size=5),
       pot=st.booleans(), must_pass_go=st.booleans(), double_go=st.booleans(),
       to_bank=st.booleans(), strict=st.booleans())
def test_random_games_keep_invariants_and_agree_with_their_messages(seed, lineup, pot, must_pass_go,
                                                                    double_go, to_bank, strict):
    options = {"pot": pot, "must_pass_go": must_pass_go, "double_go": double_go,
               "bankrupt_to_bank": to_bank, "strict_groups": strict, "max_turns": 250}
    play_checked(seed, lineup, options, garbage=0.05)


def test_a_record_replays_to_the_same_game():
    g = play_checked(7, ["strong", "random", "strong", "random"], {"max_turns": 200}, garbage=0.02)
    again = game_from_record(json.loads(json.dumps(g.record())))
    assert again.to_dict() == g.to_dict()


def test_saved_state_restores_mid_game_and_plays_on_identically():
    g = with_players(["a", "b", "c"], 11)
    bots = {i: make_bot("strong", i) for i in (1, 2, 3)}
    for _ in range(300):
        for pid in (1, 2, 3):
            a = bots[pid].choose(g, pid)
            if a:
                g.apply(pid, a)
    copy = Monopoly.from_dict(json.loads(json.dumps(g.to_dict())))
    assert copy.to_dict() == g.to_dict()
    for _ in range(50):
        a = bots[g.turn].choose(g, g.turn) if g.turn else None
        if a is None or g.is_over():
            break
        assert copy.apply(g.turn, a) == g.apply(g.turn, a)
