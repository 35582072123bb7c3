"""The web view of Monopoly over PIMP: no password, deck or other's deal is shown; legal choices.

Positions come from seeded bot games at a hall engine (seat i = PIMP user
i + 1), joins included (their WELCOME_DETAILS carry the password).  Changing
what a seat may not see (passwords, the decks' order, the dice's random state,
other players' transactions and claims) never changes what that seat or a
spectator is shown; every choice the view offers applies to a copy.
"""
from __future__ import annotations

import json
import random

from gamehall.interfaces import IGameView, IllegalAction
from gamehall_pimp.bots import make_bot
from gamehall_pimp.game import HallEngine, Monopoly, with_players
from gamehall_pimp.view import PimpView

VIEW = PimpView()


def positions(games: int, every: int, seed: int = 0, players: int = 4, max_actions: int = 1500):
    """(hall engine, the messages of the last action) along seeded bot games."""
    for i in range(games):
        rng = random.Random(seed * 1000 + i)
        g = Monopoly(seed=rng.randrange(2 ** 32), options={"max_turns": 80})
        e = HallEngine(g)
        messages: list = []
        for k in range(players):           # joins: each voted in by those already there
            messages = g.apply(None, {"msg": "JOIN", "args": [k + 1, True, f"p{k}"]})
            yield e, messages
            for voter in range(1, k + 1):
                if g.candidates:
                    messages = g.apply(voter, {"msg": "ACCEPT_JOIN", "args": [g.candidates[0].id]})
        yield e, messages
        bots = {pid: make_bot("strong" if pid % 2 else "random", seed + pid) for pid in g.users}
        n = 0
        while not g.is_over() and n < max_actions:
            acted = False
            for pid in list(g.users):
                if g.is_over():
                    break
                action = bots[pid].choose(g, pid)
                if action is None:
                    continue
                try:
                    messages = g.apply(pid, action)
                except IllegalAction:
                    continue
                acted = True
                n += 1
                if n % every == 0:
                    yield e, messages
            if not acted:
                break
        yield e, messages


def perturbed(g: Monopoly, keep: int | None, rng: random.Random) -> HallEngine:
    """A copy where passwords, decks, the random state and others' deals and claims differ."""
    d = g.to_dict()
    d["log"] = []
    for u in d["users"]:
        u["password"] = rng.getrandbits(32)
    for deck in d["decks"].values():
        rng.shuffle(deck)
    d["rng"] = [d["rng"][0], [rng.getrandbits(32) for _ in d["rng"][1][:-1]] + [d["rng"][1][-1]], None]
    for tx in d["transactions"]:
        if keep not in (tx["a"], tx["b"]):
            for side in tx["cash"]:
                tx["cash"][side] += rng.randrange(1, 50)
    for c in d["claims"]:
        if c["claimant"] != keep:
            c["amount"] += rng.randrange(1, 50)
    return HallEngine(Monopoly.from_dict(d))


def test_view_provides_the_interface():
    assert IGameView.providedBy(VIEW) and VIEW.game == "pimp"


def test_no_password_deck_or_others_deal_is_shown():
    rng = random.Random(11)
    checked = welcomes = 0
    for e, messages in positions(games=3, every=25):
        g = e.game
        passwords = [str(u.password) for u in g.users.values()]
        welcomes += sum(1 for m in messages if m.name == "WELCOME_DETAILS")
        spectator = VIEW.spectator(e)
        texts = [json.dumps(spectator), json.dumps(VIEW.describe(e, None, messages))]
        assert VIEW.spectator(perturbed(g, None, rng)) == spectator
        assert VIEW.describe(perturbed(g, None, rng), None, messages) == VIEW.describe(e, None, messages)
        for seat in range(len(g.users)):
            pid = seat + 1
            mine = VIEW.seat(e, seat)
            other = perturbed(g, pid, rng)
            assert VIEW.seat(other, seat) == mine
            assert VIEW.decision(other, seat) == VIEW.decision(e, seat)
            for tx in mine.get("transactions", []):
                assert tx["id"] in {t.id for t in g.transactions_of(pid)}
            texts += [json.dumps(mine), json.dumps(VIEW.decision(e, seat)),
                      json.dumps(VIEW.describe(e, seat, messages))]
        for text in texts:
            assert "password" not in text
            assert not any(p in text for p in passwords if len(p) >= 5)
        checked += 1
    assert checked > 30 and welcomes >= 3


def test_a_deal_is_told_to_its_two_sides_only():
    g = with_players(["ann", "bob", "cy"], seed=2)
    e = HallEngine(g)
    messages = g.apply(1, {"msg": "TRANSACTION_REQUEST_TRADE", "args": [2]})
    assert messages and all(m.to is not None for m in messages)
    assert VIEW.describe(e, 0, messages) and VIEW.describe(e, 1, messages)
    assert VIEW.describe(e, 2, messages) == [] and VIEW.describe(e, None, messages) == []
    assert [t["other"]["name"] for t in VIEW.seat(e, 0)["transactions"]] == ["bob"]
    assert VIEW.seat(e, 2)["transactions"] == [] and "transactions" not in VIEW.spectator(e)


def test_every_choice_is_legal_and_the_main_moves_are_offered():
    labels: set[str] = set()
    for e, _ in positions(games=3, every=3, seed=4):
        g = e.game
        json.dumps(VIEW.spectator(e))
        assert len(VIEW.scores(e)) == len(g.users)
        before = g.to_dict()
        for seat in range(len(g.users)):
            d = VIEW.decision(e, seat)
            assert g.to_dict() == before, "a view changed the game"
            if d is None:
                continue
            json.dumps(d)
            offered = d["choices"] + [c for cs in d.get("properties", {}).values() for c in cs]
            for c in offered:
                labels.add(c["label"].split(" ")[0])
                copy = g.to_dict()
                copy["log"] = []
                HallEngine(Monopoly.from_dict(copy)).apply(seat, c["action"])
        if not g.is_over() and e.pending_seat() is not None and g.phase in ("roll", "buy", "jail", "tax"):
            assert VIEW.decision(e, e.pending_seat())["choices"]
    assert {"Roll", "Buy", "Put", "Bid", "No", "Mortgage"} <= labels, labels


def test_a_finished_game_offers_nothing():
    for e, _ in positions(games=1, every=10 ** 6, seed=6, players=2, max_actions=100_000):
        pass
    assert e.game.is_over()
    assert all(VIEW.decision(e, s) is None for s in range(len(e.game.users)))
    assert VIEW.spectator(e)["over"] is True
    assert VIEW.scores(e) == [float(x) for x in e.result()["scores"]]
