"""Bots play whole games through the engine API; the CLI replays records and runs selfplay."""
import io
import json

import pytest

from gamehall_pimp import cli
from gamehall_pimp.bots import make_bot, passive_action
from gamehall_pimp.record import dumps
from gamehall_pimp.selfplay import new_game, play_game, run


def test_the_strong_bot_beats_random_ones_and_is_never_refused():
    res = run(12, 4, seed=3, bots=["strong", "random"])
    assert res["win_rate"]["strong"] > 0.75
    g = new_game(["s", "r1", "r2", "r3"], 99)
    stats = play_game(g, {1: make_bot("strong", 1), 2: make_bot("random", 2),
                          3: make_bot("random", 3), 4: make_bot("random", 4)})
    assert stats["refused"][1] == 0 and g.is_over()


def test_unknown_bot_name():
    with pytest.raises(ValueError):
        make_bot("clever")


def test_the_passive_action_always_moves_the_game_on():
    g = new_game(["a", "b"], 4, max_turns=60)
    while not g.is_over():
        for pid in list(g.users):
            a = passive_action(g, pid)
            if a is not None and not g.is_over():
                g.apply(pid, a)
    assert g.is_over()


def _run(*argv):
    out, err = io.StringIO(), io.StringIO()
    parser = cli.build_parser()
    args = parser.parse_args(list(argv))
    return args.func(args, out, err), out.getvalue(), err.getvalue()


def test_cli_replay_legal_illegal_and_unreadable(tmp_path):
    g = new_game(["ann", "bob"], 8, max_turns=40)
    play_game(g, {1: make_bot("strong", 1), 2: make_bot("strong", 2)})
    good = tmp_path / "good.json"
    good.write_text(dumps(g.record()))
    code, out, _ = _run("replay", str(good))
    report = json.loads(out)
    assert code == 0 and report["over"] and report["winner"] == g.users[g.winner].name
    rec = g.record()
    rec["actions"][5] = {"user": 1, "msg": "BUY_PROPERTY", "args": []}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    code, out, _ = _run("replay", str(bad))
    assert code == 1 and json.loads(out)["error"]["index"] <= 5
    junk = tmp_path / "junk.json"
    junk.write_text("{nope")
    assert _run("replay", str(junk))[0] == 2


def test_cli_selfplay_prints_win_rates(tmp_path):
    code, out, _ = _run("selfplay", "--games", "2", "--seed", "1", "--quiet", "--json",
                        "--save-records", str(tmp_path))
    res = json.loads(out)
    assert code == 0 and res["games"] == 2 and set(res["win_rate"]) == {"strong", "random"}
    assert len(list(tmp_path.iterdir())) == 2
