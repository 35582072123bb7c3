import io
import json

from gamehall_daide import cli


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    args = cli.build_parser().parse_args(argv)
    code = args.func(args, out, err)
    return code, out.getvalue(), err.getvalue()


def test_datc_parlance_all_pass():
    code, out, _ = run(["datc", "--set", "parlance"])
    assert code == 0
    assert "total  passed 170  failed   0  differs   0  not applicable  86" in out
    assert "\n  ?" not in out
    assert "6.F" in out


def test_datc_diplomacy_lists_its_two_differences():
    code, out, _ = run(["datc", "--set", "diplomacy"])
    assert code == 0
    assert "total  passed 158  failed   0  differs   2" in out
    assert "DIFFERS 6.G.8: DAIDE's CTO" in out and "DIFFERS 6.J.2" in out


def test_selfplay_and_replay(tmp_path):
    code, out, _ = run(["selfplay", "--games", "2", "--seed", "4", "--max-year", "1903", "--json", "--quiet",
                        "--save-records", str(tmp_path)])
    assert code == 0
    res = json.loads(out)
    assert res["games"] == 2 and res["reasons"] == {"year": 2}
    files = sorted(tmp_path.iterdir())
    assert len(files) == 2
    code, out, _ = run(["replay", str(files[0])])
    assert code == 0
    rep = json.loads(out)
    assert rep["over"] and rep["reason"] == "year limit" and rep["turn"] == "SPR 1904"
    assert sum(p["centres"] for p in rep["powers"].values()) <= 34


def test_selfplay_text(tmp_path):
    code, out, _ = run(["selfplay", "--games", "1", "--max-year", "1902", "--quiet", "--bot", "hold"])
    assert code == 0 and "hold" in out and "games/s" in out


def test_replay_reports_illegal_action_and_unreadable_file(tmp_path):
    rec = {"game": "daide", "seed": 1, "players": [f"p{i}" for i in range(7)], "powers": None,
           "actions": [{"seat": 0, "submit": []}, {"seat": 0, "jump": 1}]}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rec))
    code, out, _ = run(["replay", str(path)])
    assert code == 1 and json.loads(out)["error"]["index"] == 1
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, _, err = run(["replay", str(bad)])
    assert code == 2 and "cannot read" in err
    wrong = tmp_path / "w.json"
    wrong.write_text(json.dumps({"game": "pimp"}))
    code, out, _ = run(["replay", str(wrong)])
    assert code == 1 and "not a Diplomacy" in json.loads(out)["error"]["reason"]
