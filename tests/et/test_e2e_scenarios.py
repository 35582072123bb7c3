"""End to end: four et clients over TCP play one whole game against ``twistd -n gamehall --seed N``
that is sure to hold a revolt, a war over two colours with the order chosen, a catastrophe, a
monument and a treasure take; the test reads each of them off the protocol lines the clients got.

With ``--seed N`` the hall's first table plays on the seed ``random.Random(N).randrange(2**63)``,
so the tile bag is known: the director (tests/et/director.py) plays the same game in process,
steering toward those events, and each client answers every ``ask`` with the director's command
for its seat, after checking the ask is the one the director saw.  Seats follow the invitation:
the inviter p0 is player 0, then p1, p2, p3 in the order asked.
"""
from __future__ import annotations

import json
import random
import re
import sqlite3

from gamehall_et.board import COLOUR_CODES
from gamehall_et.record import game_from_record

from .director import directed_game
from .etclient import ScriptedClient
from .tcp import SocketPlayer, named, run_until, start_game, start_hall

HALL_SEED = 8
NAMES = ["p0", "p1", "p2", "p3"]


def in_order(lines: list[str], *wanted: str) -> int:
    """Each of ``wanted`` (regular expressions, whole line) occurs in ``lines`` after the one
    before it; the index of the last."""
    i = -1
    for pattern in wanted:
        rx = re.compile(pattern)
        i = next((j for j in range(i + 1, len(lines)) if rx.fullmatch(lines[j])), None)
        assert i is not None, f"no line {pattern!r} in order among {len(lines)} lines"
    return i


def first(moves, kind: str, test=lambda e: True):
    """(move index, event) of the first event of type ``kind`` passing ``test``."""
    return next((i, e) for i, m in enumerate(moves) for e in m.events if e["type"] == kind and test(e))


def test_a_directed_game_shows_every_conflict_monument_treasure_and_catastrophe_over_tcp(tmp_path):
    seed = random.Random(HALL_SEED).randrange(2 ** 63)
    planned, moves = directed_game(NAMES, seed)
    scripts = [[(m.ask, m.line) for m in moves if m.seat == seat] for seat in range(4)]
    hall, ports = start_hall(tmp_path, "--seed", str(HALL_SEED))
    players = []
    try:
        players = [SocketPlayer(ports["et"], lambda send, s=s: ScriptedClient(send, s)) for s in scripts]
        named(players)
        start_game(players)
        run_until(players, lambda: all(p.client.over for p in players), timeout=120)
    finally:
        for p in players:
            p.close()
        hall.kill(15)
    assert all(not p.client.script for p in players)          # every planned command was asked for
    told = [p.client.transcript for p in players]
    seen = [p.lines for p in players]

    # a revolt: the attacker commits red first, then the defender; the loser's leader goes
    i, revolt = first(moves, "revolt")
    a, d = revolt["attacker"], revolt["defender"]
    lost = next(e for e in moves[i + 2].events if e["type"] == "leader_withdrawn")
    for lines in seen:
        in_order(lines, rf"state internal {a} {d} {revolt['colour']}",
                 rf"state internaldef {a} {d} {revolt['colour']} \d", r"note .* wins the revolt .*",
                 rf"board! {lost['x']} {lost['y']} \.-\.\.")
    in_order(told[a], rf"state internal {a} {d} \w+", "ask add red", r"> add red \d")
    in_order(told[d], rf"state internaldef {a} {d} \w+ \d", "ask add red", r"> add red \d")

    # a war over two colours: the active player is asked the order and picks the second colour
    i, pending = first(moves, "war_pending", lambda e: len(e["colours"]) == 2)
    s, (c1, c2) = pending["seat"], pending["colours"]
    wars = [e for m in moves[i:] for e in m.events if e["type"] == "war"][:2]
    assert [w["colour"] for w in wars] == [c2, c1]
    unites = next(e for e in moves[i].events if e["type"] == "tile_placed")
    in_order(told[s], f"> tile {unites['colour']} {unites['x']} {unites['y']}",
             rf"board! {unites['x']} {unites['y']} ={COLOUR_CODES[unites['colour']]}\.\.",
             f"ask external {c1} {c2}", f"> resolve {c2}",
             f"state external {wars[0]['attacker']} {wars[0]['defender']} {c2}",
             f"ask external {c1}", f"> resolve {c1}",
             f"state external {wars[1]['attacker']} {wars[1]['defender']} {c1}")
    for war in wars:                          # the attacker is asked first, then the defender
        wa, wd, c = war["attacker"], war["defender"], war["colour"]
        in_order(told[wa], f"state external {wa} {wd} {c}", f"ask add {c}", rf"> add {c} \d")
        in_order(told[wd], rf"state externaldef {wa} {wd} {c} \d", f"ask add {c}", rf"> add {c} \d")
    for lines in seen:
        in_order(lines, f"state external {wars[0]['attacker']} {wars[0]['defender']} {c2}",
                 rf"state externaldef {wars[0]['attacker']} {wars[0]['defender']} {c2} \d",
                 rf"note .* wins the war over {c2} .*",
                 f"state external {wars[1]['attacker']} {wars[1]['defender']} {c1}",
                 rf"state externaldef {wars[1]['attacker']} {wars[1]['defender']} {c1} \d",
                 rf"note .* wins the war over {c1} .*")

    # the treasure take after those wars: the trader's owner is asked and takes one
    _, taken = first(moves, "treasure_taken")
    t, x, y = taken["seat"], taken["x"], taken["y"]
    in_order(told[t], f"state treasureask {t}", "ask treasure", f"> take {x} {y}", rf"board! {x} {y} #r0-",
             r"score wild 1 .*")
    for other in set(range(4)) - {t}:
        in_order(seen[other], f"state treasureask {t}", rf"board! {x} {y} #r0-", rf"otherscore\+ {t} wild 1 .*")

    # a monument: the active player is asked, builds, and everyone sees its four cells
    i, built = first(moves, "monument_built")
    s, (main, other) = built["seat"], built["colours"]
    mx, my = built["x"], built["y"]
    in_order(told[s], rf"ask monument {main} \d+ \d+ .*\b{other}\b.*", f"> build {mx} {my} {main} {other}")
    cell = rf"\^{COLOUR_CODES[main]}{COLOUR_CODES[other]}0"
    for lines in seen:
        for cx, cy in ((mx, my), (mx + 1, my), (mx, my + 1), (mx + 1, my + 1)):
            in_order(lines, rf"note .* builds the {main}-{other} monument .*", rf"board! {cx} {cy} {cell}")

    # a catastrophe
    _, cat = first(moves, "catastrophe")
    for lines in seen:
        in_order(lines, rf"note .* plays a catastrophe at {cat['x']},{cat['y']}.*",
                 rf"board! {cat['x']} {cat['y']} !\.\.\.")

    # the end: every client was told the same final scores, those of the planned game and the store's
    finals = [p.client.final for p in players]
    assert all(f == finals[0] for f in finals) and len(finals[0]) == 4
    with sqlite3.connect(tmp_path / "hall.sqlite") as db:
        (text,) = db.execute("SELECT record FROM results").fetchone()
    stored = game_from_record(json.loads(text))
    assert stored.is_over() and stored.players == NAMES and stored.seed == seed
    for game in (stored, planned):
        assert finals[0] == [{"player": f["seat"], "wild": f["wild"], **f["colours"], "position": f["position"]}
                             for f in game.final]
