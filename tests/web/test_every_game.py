"""Every installed game created from the web lobby with bots: it starts and runs to its end
(the protocol on a Clock, bots only at bot delay 0); a Monopoly table made in the web lobby
admits its bots and its creator, who plays at it."""
from __future__ import annotations

import random

import pytest

from gamehall.plugins import find_games
from gamehall.table import FINISHED, PLAYING
from gamehall_pimp.wire.protocol import rooms_of
from gamehall_web.site import WebHall
from gamehall_web.views import find_views
from tests.helpers import make_hall
from tests.web.webharness import Client

GAMES = find_games()
STEPS = 400_000         # clock steps at most (a bounded loop; a game ends far sooner)


#: the hall's seed for these tests (make_hall's default RNG is the system's: a flaky test)
SEED = 0
#: hall seeds whose PIMP bots-only table stalled: a bot asked at one action was called after a
#: server bot's out-of-turn action, no longer pending, and returned without asking the seat
#: pending now (whom _ask had skipped while that call was set)
PIMP_STALLED_SEEDS = (2, 4, 14, 15, 26)
#: hall seeds whose bots-only game (no turn limit) goes on for thousands of turns, two bots
#: circling the board, neither going broke nor building (seed 27: 1,644 turns, $36,547 against
#: $5,829, every trade refused): with bot delay 0 it runs inside one Clock.advance, so left out
PIMP_ENDLESS_SEEDS = (27, 36)
PIMP_SWEEP = [seed for seed in range(42) if seed not in PIMP_ENDLESS_SEEDS]      # 40 seeds


def web_hall(seed: int = SEED):
    hall = make_hall(games=dict(GAMES), bot_delay=0.0, rng=random.Random(seed))
    return hall, WebHall(hall, find_views())


def run_until(hall, done, steps: int = STEPS) -> None:
    for _ in range(steps):
        if done():
            return
        hall.clock.advance(0.5)


def bots_for(game) -> list[str]:
    count = max(game.min_seats, min(3, game.max_seats))
    return [game.bots[i % len(game.bots)] for i in range(count)]


def play_bots_only(name: str, seed: int = SEED):
    hall, web = web_hall(seed)
    game = GAMES[name]
    ann = Client(web)
    ann.sign_in("Ann")
    ann.send({"type": "create", "game": name, "bots": bots_for(game), "join": False, "start": True})
    assert not ann.errors()
    table = hall.tables[ann.last("created")["table"]]
    assert table.state == PLAYING
    run_until(hall, lambda: table.state != PLAYING)
    assert table.state == FINISHED, f"{name}: {table.state} after {table.seq} actions"
    finished = [m for m in ann.of("table") if m.get("event") == "finished"]
    assert finished and finished[-1]["table"] == table.id
    assert table.seq > 0 and table.engine.is_over()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_bots_only_table_made_in_the_web_lobby_plays_to_its_end(name):
    play_bots_only(name)


@pytest.mark.parametrize("seed", PIMP_STALLED_SEEDS)
def test_a_bots_only_monopoly_table_does_not_stall_on_a_bot_asked_before_an_out_of_turn_move(seed):
    play_bots_only("pimp", seed)


def test_bots_only_monopoly_tables_finish_for_every_hall_seed_of_a_sweep():
    for seed in PIMP_SWEEP:
        play_bots_only("pimp", seed)


def test_a_monopoly_table_made_in_the_web_lobby_admits_its_players_and_plays():
    hall, web = web_hall()
    ann = Client(web)
    ann.sign_in("Ann")
    ann.send({"type": "create", "game": "pimp", "bots": ["strong", "strong"]})
    table = hall.tables[ann.last("created")["table"]]
    bob = Client(web)
    bob.sign_in("Bob")
    bob.send({"type": "join", "table": table.id})        # sits before the start
    ann.send({"type": "start"})
    assert not ann.errors() and not bob.errors()
    game = table.engine.game
    # everyone seated is a player of the game, in seat order: seat i is PIMP user i + 1
    assert [u.name for u in game.users.values()] == ["Ann", "StrongBot1", "StrongBot2", "Bob"]
    assert list(game.users) == [1, 2, 3, 4] and all(u.playing for u in game.users.values())
    assert [s.name for s in table.seats] == ["Ann", "StrongBot1", "StrongBot2", "Bob"]
    assert table.seat_of(bob.session.user) == 3 and bob.last("table_state")["seat"] == 3
    assert table.seat_of(ann.session.user) == 0
    assert rooms_of(hall).current() is table          # PIMP clients who connect join this game
    state = ann.last("table_state")
    assert state["seat"] == 0 and state["view"] is not None
    # Ann plays: the page's decisions are her moves, until she has made a few
    played = 0
    for _ in range(20_000):
        if table.state != PLAYING or played >= 5:
            break
        decision = ann.session.web.decision_message(table, 0)["decision"]
        if decision and decision.get("choices"):
            before = table.seq
            ann.send({"type": "act", "action": decision["choices"][0]["action"]})
            if table.seq > before:
                played += 1
        hall.clock.advance(0.5)
    assert played >= 5, ann.errors()[-5:]
    assert game.turns > 1


def test_a_pimp_client_joins_a_monopoly_table_made_in_the_web_lobby():
    from gamehall_pimp.wire.protocol import build_factory
    from tests.pimp.test_frontend import Conn, run
    from tests.pimp.wireclient import WireClient
    hall, web = web_hall()
    hall.bot_delay = 0.5
    older = rooms_of(hall).open_table()             # the operator's, current until then
    ann = Client(web)
    ann.sign_in("Ann")
    ann.send({"type": "create", "game": "pimp", "bots": ["strong", "strong"], "join": False, "start": True})
    table = hall.tables[ann.last("created")["table"]]
    kerz = WireClient("kerz")
    conn = Conn(build_factory(hall), kerz, 6000)
    game = table.engine.game
    run(hall, [conn], until=lambda: "kerz" in [u.name for u in game.users.values()])
    assert [u.name for u in game.users.values()] == ["StrongBot1", "StrongBot2", "kerz"]   # voted in by the bots
    assert [s.name for s in table.seats][2] == "kerz" and table.seats[2].user is not None
    assert not older.engine.game.users
    joined = [m for m in ann.of("table") if m.get("event") in ("seat_changed", "joined")]
    assert any((m.get("detail") or {}).get("nickname") == "kerz" for m in joined)


def test_a_monopoly_bot_asked_before_an_out_of_turn_move_is_asked_again():
    # a full-suite run of the test above stopped at 1,562 actions: a bot's turn call was made
    # stale by another bot's move out of turn, and nobody asked the bot again (this seed)
    hall, _ = web_hall()
    table = hall.create_table("pimp")
    for bot in ("strong", "random", "strong"):
        table.add_bot(bot)
    table.seed = 6889987024881961185
    table.start()
    run_until(hall, lambda: table.state != PLAYING, steps=20_000)
    assert table.state == FINISHED and table.seq > 528
