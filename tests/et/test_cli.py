"""gamehall-et replay and selfplay."""
from __future__ import annotations

import io
import json

from gamehall_et import cli
from gamehall_et.engine import Game
from gamehall_et.record import dumps


def run(argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    args = cli.build_parser().parse_args(argv)
    code = args.func(args, out, err)
    return code, out.getvalue(), err.getvalue()


def finished_record(tmp_path):
    g = Game.new(["ann", "bob"], seed=4)
    while not g.is_over():
        s = g.pending_seat()
        g.apply(s, g.legal_actions()[-1])
    path = tmp_path / "game.json"
    path.write_text(dumps(g.record()))
    return g, path


def test_replay_a_finished_game(tmp_path):
    g, path = finished_record(tmp_path)
    code, out, _ = run(["replay", str(path)])
    report = json.loads(out)
    assert code == 0 and report["legal"] and report["over"]
    assert report["final"] == dict(zip(g.players, g.result()["scores"]))
    assert report["winners"] == [g.players[s] for s in g.result()["winners"]]
    assert report["reason"] == g.end_reason and report["why"]


def test_replay_reports_the_first_illegal_action(tmp_path):
    g, path = finished_record(tmp_path)
    rec = json.loads(path.read_text())
    rec["actions"][3] = {"player": rec["actions"][3]["player"], "tile": {"colour": "blue", "x": 0, "y": 0}}
    path.write_text(json.dumps(rec))
    code, out, _ = run(["replay", str(path)])
    report = json.loads(out)
    assert code == 1 and not report["legal"] and report["error"]["index"] == 3


def test_replay_unreadable_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{nope")
    code, _, err = run(["replay", str(path)])
    assert code == 2 and "not JSON" in err
    code, _, err = run(["replay", str(tmp_path / "missing.json")])
    assert code == 2


def test_replay_bad_header(tmp_path):
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"game": "et", "players": ["a", "b"], "tile_bag": "rrr", "actions": []}))
    code, out, _ = run(["replay", str(path)])
    assert code == 1 and "143 tiles" in json.loads(out)["message"]


def test_selfplay_prints_figures_and_saves_records(tmp_path):
    code, out, _ = run(["selfplay", "--games", "2", "--players", "3", "--bot", "strong", "--bot", "random",
                        "--json", "--save-records", str(tmp_path)])
    res = json.loads(out)
    assert code == 0 and res["games"] == 2 and set(res["bots"]) == {"strong", "random"}
    saved = sorted(p.name for p in tmp_path.iterdir())
    assert saved == ["game-00001.json", "game-00002.json"]
    code, out, _ = run(["replay", str(tmp_path / saved[0])])
    assert code == 0 and json.loads(out)["over"]
    code, out, _ = run(["selfplay", "--games", "1", "--players", "2"])
    assert code == 0 and "win rate" in out
