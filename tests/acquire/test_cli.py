"""gamehall-acquire: replay (exit 0/1/2) and selfplay (figures, determinism, records)."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gamehall_acquire import cli
from gamehall_acquire.bots import make_bot
from gamehall_acquire.record import RecordError, game_from_record
from gamehall_acquire.rules import Game

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ["Dave", "Erin", "Fred", "Gina"]


def finished_record(seed=8) -> dict:
    """A whole bot game in the issue's format: no seed, players by name."""
    g = Game.new(PLAYERS, seed=seed)
    bots = [make_bot("strong", seed + s) if s % 2 else make_bot("random", seed + s) for s in range(4)]
    while not g.is_over():
        seat = g.pending_seat()
        g.apply(seat, bots[seat].choose(g, seat))
    rec = g.record()
    del rec["seed"]
    return rec


def write(tmp_path, rec, name="game.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rec))
    return path


def run_main(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "gamehall_acquire.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


# ------------------------------------------------------------------ replay
@pytest.mark.parametrize("seed", [0, 1])
def test_replay_of_a_legal_record_prints_final_cash_winners_and_why(tmp_path, capsys, seed):
    rec = finished_record(seed)
    assert set(rec) == {"game", "variant", "players", "tile_bag", "actions"}
    game = game_from_record(rec)
    code, out, err = run_main(["replay", str(write(tmp_path, rec))], capsys)
    assert code == 0 and err == ""
    report = json.loads(out)
    assert report["legal"] is True and report["over"] is True
    assert report["cash"] == dict(zip(PLAYERS, game.cash))
    assert list(report["cash"]) == PLAYERS
    assert report["winners"] == [PLAYERS[s] for s in game.result()["winners"]]
    assert report["reason"] == game.end_reason
    assert report["actions"] == len(rec["actions"])
    assert report["reason"] == "claimed"          # these bot games end by a claim
    big = [c for c in game.chains_on_board() if game.chain_size(c) >= 41]
    why = f"{big[0]} had {game.chain_size(big[0])} tiles (41 or more)" if big else \
        "every chain on the board was safe (11 tiles or more)"
    assert report["why"] == f"{rec['actions'][-1]['player']} ended the game in the buy step: {why}"


def test_replay_explains_each_end_reason(tmp_path, capsys):
    seen = set()
    for seed in range(40):
        g = Game.new(PLAYERS, seed=seed)
        rnd = make_bot("random", seed)
        while not g.is_over():
            seat = g.pending_seat()
            action = rnd.choose(g, seat)
            if action.get("end_game"):
                action = dict(action, end_game=False)       # let some games run out of tiles
            g.apply(seat, action)
        if g.end_reason in seen:
            continue
        seen.add(g.end_reason)
        code, out, _ = run_main(["replay", str(write(tmp_path, g.record()))], capsys)
        report = json.loads(out)
        assert code == 0 and report["reason"] == g.end_reason
        assert report["why"] == cli.END_REASONS[g.end_reason]
        assert report["cash"] == dict(zip(PLAYERS, g.cash))
    assert "no_tiles" in seen


def test_replay_runs_as_a_module_with_exit_status_0(tmp_path):
    rec = finished_record(3)
    proc = run_cli("replay", write(tmp_path, rec))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cash"] == dict(zip(PLAYERS, game_from_record(rec).cash))


def test_replay_of_an_unfinished_record_is_legal(tmp_path, capsys):
    rec = finished_record()
    rec["actions"] = rec["actions"][:20]
    code, out, _ = run_main(["replay", str(write(tmp_path, rec))], capsys)
    report = json.loads(out)
    assert code == 0 and report["legal"] is True and report["over"] is False
    assert report["winners"] == [] and report["reason"] is None
    assert report["cash"] == dict(zip(PLAYERS, game_from_record(rec).cash))


@pytest.mark.parametrize("corrupt", ["tile", "player", "chain", "purchase"])
def test_replay_reports_the_first_illegal_action_and_why_with_exit_1(tmp_path, capsys, corrupt):
    rec = finished_record()
    actions = rec["actions"]
    if corrupt == "tile":
        i = next(i for i, a in enumerate(actions) if "play_tile" in a and i > 10)
        actions[i]["play_tile"] = next(t for t in rec["tile_bag"][-5:])   # never in the rack yet
    elif corrupt == "player":
        i = 30
        actions[i]["player"] = next(p for p in PLAYERS if p != actions[i]["player"])
    elif corrupt == "chain":
        i = next(i for i, a in enumerate(actions) if "found_chain" in a)
        actions[i]["found_chain"] = "Hilton"
    else:
        i = next(i for i, a in enumerate(actions) if "purchase" in a)
        actions[i]["purchase"] = {"Tower": 4}
    with pytest.raises(RecordError) as expected:
        game_from_record(rec)
    code, out, err = run_main(["replay", str(write(tmp_path, rec))], capsys)
    assert code == 1 and err == ""
    report = json.loads(out)
    assert report["legal"] is False
    assert report["error"]["index"] == expected.value.index == i
    assert report["error"]["reason"] == expected.value.reason
    assert report["error"]["action"] == actions[i]
    assert report["message"] == f"action {i} is not legal: {expected.value.reason}"


def test_replay_of_a_bad_header_is_illegal_not_a_crash(tmp_path, capsys):
    rec = finished_record()
    for header in ({"tile_bag": rec["tile_bag"][:-1]}, {"players": ["solo"]}, {"game": "chess"},
                   {"rules": {"max_buy": "three"}}):
        code, out, err = run_main(["replay", str(write(tmp_path, {**rec, **header}))], capsys)
        report = json.loads(out)
        assert code == 1 and report["legal"] is False and report["error"]["index"] is None, header
    code, out, _ = run_main(["replay", str(write(tmp_path, [1, 2]))], capsys)
    assert code == 1 and "JSON object" in json.loads(out)["error"]["reason"]


@pytest.mark.parametrize("content", [None, b"{\"game\": \"acquire\", ", b"\xff\xfe\x00garbage", b"", b"[" * 100000])
def test_replay_of_an_unreadable_file_exits_2_without_traceback(tmp_path, content):
    path = tmp_path / "record.json"
    if content is not None:
        path.write_bytes(content)
    proc = run_cli("replay", path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"gamehall-acquire: cannot read {path}: ")
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- selfplay
SELFPLAY = ["selfplay", "--games", "6", "--players", "3", "--seed", "5", "--bot", "strong", "--bot", "random"]


def test_selfplay_json_figures(capsys):
    code, out, err = run_main(SELFPLAY + ["--json"], capsys)
    assert code == 0 and err == ""
    res = json.loads(out)
    assert res["games"] == 6 and res["players"] == 3 and res["seed"] == 5 and res["variant"] == "classic"
    assert res["lineup"] == ["strong", "random", "strong"]
    strong, rand = res["bots"]["strong"], res["bots"]["random"]
    assert strong["seats"] == 12 and rand["seats"] == 6
    assert strong["wins"] + rand["wins"] == pytest.approx(6)
    assert strong["win_rate"] == pytest.approx(strong["wins"] / 12, abs=1e-4)
    for b in (strong, rand):
        assert set(b) == {"seats", "mean", "median", "stdev", "wins", "win_rate"}
        assert b["stdev"] >= 0 and b["mean"] > 0
    assert sum(res["end_reasons"].values()) == 6
    assert res["games_per_second"] > 0 and res["actions_per_game"] > 50


def test_selfplay_is_deterministic_for_a_seed(capsys):
    runs = []
    for _ in range(2):
        _, out, _ = run_main(SELFPLAY + ["--json"], capsys)
        res = json.loads(out)
        del res["seconds"], res["games_per_second"]
        runs.append(res)
    assert runs[0] == runs[1]
    _, out, _ = run_main(SELFPLAY[:-4] + ["--seed", "6", "--bot", "strong", "--bot", "random", "--json"], capsys)
    assert json.loads(out)["bots"] != runs[0]["bots"]


def test_selfplay_text_output(capsys):
    texts = []
    for _ in range(2):
        code, out, _ = run_main(SELFPLAY, capsys)
        assert code == 0
        lines = out.splitlines()
        assert lines[0] == "selfplay: 6 games, 3 players, variant classic, seed 5, " \
                           "seats strong random strong (rotating)"
        assert " games/s (" in lines[1] and lines[1].endswith("actions per game")
        assert lines[2].split() == ["bot", "seats", "mean", "median", "stdev", "wins", "win", "rate"]
        assert lines[3].split()[:2] == ["strong", "12"] and lines[4].split()[:2] == ["random", "6"]
        assert lines[5].startswith("end reasons: ")
        texts.append([line for i, line in enumerate(lines) if i != 1])     # all but the timing
    assert texts[0] == texts[1]


def test_selfplay_rotates_seats_and_saves_replayable_records(tmp_path, capsys):
    out_dir = tmp_path / "records"
    code, out, _ = run_main(["selfplay", "--games", "4", "--players", "4", "--seed", "1", "--bot", "strong",
                             "--bot", "random", "--bot", "random", "--bot", "random", "--json",
                             "--save-records", str(out_dir)], capsys)
    assert code == 0
    res = json.loads(out)
    files = sorted(out_dir.iterdir())
    assert [f.name for f in files] == [f"game-{i:05d}.json" for i in range(1, 5)]
    strong_seats, strong_cash = [], []
    for f in files:
        rec = json.loads(f.read_text())
        seat = next(i for i, p in enumerate(rec["players"]) if p.startswith("strong"))
        strong_seats.append(seat)
        code, rep, _ = run_main(["replay", str(f)], capsys)
        assert code == 0
        strong_cash.append(json.loads(rep)["cash"][rec["players"][seat]])
    assert sorted(strong_seats) == [0, 1, 2, 3]                # every seat once in four games
    assert res["bots"]["strong"]["mean"] == pytest.approx(sum(strong_cash) / 4)


def test_selfplay_default_bot_is_strong(capsys):
    _, out, _ = run_main(["selfplay", "--games", "1", "--players", "2", "--json"], capsys)
    res = json.loads(out)
    assert res["lineup"] == ["strong", "strong"] and list(res["bots"]) == ["strong"]


@pytest.mark.parametrize("args, message", [
    (["--bot", "genius"], "unknown bot 'genius'"),
    (["--variant", "hexes"], "variant 'hexes' is not supported by selfplay (supported: classic, windward)"),
    (["--series", "2"], "--series is for --variant windward only"),
    (["--players", "7"], "--players"),
    (["--games", "0"], "--games"),
])
def test_selfplay_refuses_bad_arguments(capsys, args, message):
    with pytest.raises(SystemExit) as exc:
        cli.main(["selfplay", *args])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal_and_not_when_quiet(monkeypatch, capsys):
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert cli.main(["selfplay", "--games", "2", "--players", "2"]) == 0
    bar = tty.getvalue()
    assert bar.startswith("\r[") and "2/2 games" in bar and bar.endswith("\n")
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    assert cli.main(["selfplay", "--games", "2", "--players", "2", "--quiet"]) == 0
    assert tty.getvalue() == ""
    proc = run_cli("selfplay", "--games", "1", "--players", "2")       # stderr is a pipe: no bar
    assert proc.returncode == 0 and proc.stderr == ""
    assert "games/s" in proc.stdout


# ------------------------------------------------------- windward selfplay
WINDWARD = ["selfplay", "--variant", "windward", "--games", "4", "--series", "2", "--seed", "3",
            "--bot", "strong", "--bot", "simple", "--quiet"]


def test_windward_selfplay_json_figures_and_series(capsys):
    code, out, err = run_main(WINDWARD + ["--json"], capsys)
    assert code == 0 and err == ""
    res = json.loads(out)
    assert res["variant"] == "windward" and res["players"] == 6       # 6 seats without --players
    assert res["games"] == 4 and res["series"] == 2 and res["games_per_series"] == 2
    assert res["lineup"] == ["strong", "simple"] * 3
    strong, simple = res["bots"]["strong"], res["bots"]["simple"]
    for b in (strong, simple):
        assert set(b) == {"seats", "mean", "median", "stdev", "wins", "win_rate",
                          "series", "series_mean", "series_wins", "series_win_rate"}
        assert b["seats"] == 12 and b["series"] == 6
        assert b["series_mean"] == pytest.approx(2 * b["mean"], abs=0.2)    # 2 games a series
    assert strong["wins"] + simple["wins"] == pytest.approx(4)
    assert strong["series_wins"] + simple["series_wins"] == pytest.approx(2)
    assert sum(res["end_reasons"].values()) == 4


def test_windward_selfplay_scores_are_the_engines_and_the_first_player_rotates(tmp_path, capsys):
    from gamehall_acquire.windward.rules import game_from_record as windward_game
    out_dir = tmp_path / "ww"
    code, out, _ = run_main(WINDWARD + ["--json", "--save-records", str(out_dir)], capsys)
    assert code == 0
    res = json.loads(out)
    recs = [json.loads(f.read_text()) for f in sorted(out_dir.iterdir())]
    assert len(recs) == 4
    scores = {"strong": [], "simple": []}
    firsts = []
    for rec in recs:
        g = windward_game(rec)
        assert g.is_over()
        firsts.append(g.rules.first_seat)
        for name, v in zip(rec["players"], g.result()["scores"]):
            scores[name.rsplit("-", 1)[0]].append(v)
    assert firsts == [0, 1, 0, 1]                     # rotating within each series of 2
    for name, vals in scores.items():
        assert res["bots"][name]["mean"] == pytest.approx(sum(vals) / len(vals), abs=0.1)


def test_windward_selfplay_is_deterministic_and_text_output(capsys):
    texts = []
    for _ in range(2):
        code, out, _ = run_main(WINDWARD, capsys)
        assert code == 0
        lines = out.splitlines()
        assert lines[0] == "selfplay: 4 games (2 series of 2), 6 players, variant windward, seed 3, " \
                           "seats strong simple strong simple strong simple (rotating)"
        assert lines[2].split() == ["bot", "seats", "mean", "median", "stdev", "wins", "win", "rate",
                                    "series", "s.", "mean", "s.", "wins", "s.", "rate"]
        assert lines[3].split()[:2] == ["strong", "12"] and lines[4].split()[:2] == ["simple", "12"]
        assert lines[3].split()[7] == "6" and lines[5].startswith("end reasons: ")
        texts.append([line for i, line in enumerate(lines) if i != 1])
    assert texts[0] == texts[1]
    _, other, _ = run_main(WINDWARD + ["--seed", "4"], capsys)      # the last --seed counts
    assert other.splitlines()[3:5] != texts[0][2:4]


def test_windward_selfplay_defaults_one_game_series_and_strong(capsys):
    code, out, _ = run_main(["selfplay", "--variant", "windward", "--games", "1", "--json"], capsys)
    res = json.loads(out)
    assert code == 0 and res["games_per_series"] == 1 and res["series"] == 1
    assert res["lineup"] == ["strong"] * 6 and res["bots"]["strong"]["series_wins"] == pytest.approx(1)


@pytest.mark.parametrize("args, message", [
    (["--players", "4"], "--players: a Windward game seats exactly 6 players, not 4"),
    (["--bot", "random"], "unknown bot 'random' for variant windward (known: strong, simple)"),
    (["--games", "5", "--series", "2"], "--games 5 is not a whole number of series of 2"),
])
def test_windward_selfplay_refuses_bad_arguments(capsys, args, message):
    with pytest.raises(SystemExit) as exc:
        cli.main(["selfplay", "--variant", "windward", *args])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
