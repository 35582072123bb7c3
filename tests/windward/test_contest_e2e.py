"""``gamehall-windward`` end to end: real processes, real sockets, wire clients written from the document.

Scores are checked against scores recomputed here from the game records
(``--records``) by replaying them with the engine.
"""
from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gamehall_acquire.windward.rules import game_from_record
from gamehall_acquire.windward.wire.match import AI_NAMES
from tests.windward.wire_client import WireClient, run_clients
from tests.wireclient import free_port

CLI = str(Path(sys.executable).parent / "gamehall-windward")


def start(args, **kw):
    return subprocess.Popen([CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def read_scores(path: Path) -> list[tuple[str, int, list[int]]]:
    root = ET.parse(path).getroot()
    assert root.tag == "players"
    out = []
    for p in root.findall("player"):
        scores = [int(v) for v in (p.text or "").split(";") if v]
        out.append((p.get("name"), int(p.get("total")), scores))
    return out


def recomputed(records_dir: Path, games: int) -> dict[str, list[int]]:
    """Each player's per-game scores, replayed from the records."""
    files = sorted(records_dir.glob("game-*.json"))
    assert len(files) == games
    per_player: dict[str, list[int]] = {}
    for f in files:
        rec = json.loads(f.read_text())
        game = game_from_record(rec)
        assert game.is_over()
        for name, score in zip(rec["players"], game.result()["scores"]):
            per_player.setdefault(name, []).append(score)
    return per_player, [json.loads(f.read_text())["players"] for f in files]


def check_series(tmp_path, clients, games, proc, names=None):
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    rows = read_scores(tmp_path / "scores.xml")
    assert len(rows) == 6
    seat_names = [r[0] for r in rows]
    expected = names if names is not None else [c.name for c in clients]
    assert sorted(seat_names[:len(expected)]) == sorted(expected)        # join order, then the AIs
    assert seat_names[len(expected):] == list(AI_NAMES[:6 - len(expected)])
    by_name, players = recomputed(tmp_path / "records", games)
    for name, total, scores in rows:
        assert scores == by_name[name] and total == sum(scores)
    for k, order in enumerate(players):                 # game k is started by seat k
        assert order[0] == seat_names[k % 6]
        assert sorted(order) == sorted(seat_names)
    check_series.last_err = err
    return rows, out, err


def test_auto_plays_a_series_with_named_clients_and_writes_the_scores(tmp_path):
    port = free_port()
    names = ["Zoë O'Brien", "JavaBot1", "Anders Hejlsberg"]
    proc = start(["auto", "--games", "2", "--port", str(port), "--interface", "127.0.0.1", "--seed", "7",
                  "--scores", str(tmp_path / "scores.xml"), "--records", str(tmp_path / "records"), *names])
    clients = [WireClient(n, port, style=s) for n, s in zip(names, ["python", "java", "python"])]
    # a client that is not on the list is refused
    intruder = WireClient("Intruder", port)
    run_clients(clients + [intruder])
    assert intruder.closed_by_server and intruder.setups == 0
    rows, out, err = check_series(tmp_path, clients, 2, proc, names)
    for c in clients:
        assert c.problems == [] and c.got_exit and c.setups == 2
        assert sum(c.queries.values()) > 10
        assert c.scoreboards[0] == ""
        assert c.scoreboards[1] == f"{dict((r[0], r[2]) for r in rows)[c.name][0]};"
        assert c.players_seen[0] == c.players_seen[1] == [r[0] for r in rows]
    assert "Zoë O'Brien" in out
    # what happened, on stderr: joins, the refused intruder (with the name it sent), counters
    assert "gamehall-windward: JavaBot1 joined (Java, Test U) from 127.0.0.1" in err
    assert "gamehall-windward: refused a join as 'Intruder' from 127.0.0.1: not listed" in err
    counters = [line for line in err.splitlines() if " join(s), " in line]
    assert len(counters) == 3 and all(" 0 timeouts, 0 late, " in line for line in counters)


def test_a_series_completes_despite_garbage_silence_and_lost_connections(tmp_path):
    port = free_port()
    modes = {"Garbage": "garbage", "Silent": "silent", "Dropper": "drop", "Vanisher": "vanish", "Good": "play"}
    proc = start(["auto", "--games", "2", "--port", str(port), "--interface", "127.0.0.1", "--seed", "3",
                  "--turn-timeout", "0.05", "--ready-grace", "0.3",
                  "--scores", str(tmp_path / "scores.xml"), "--records", str(tmp_path / "records"), *modes])
    clients = [WireClient(n, port, mode=m, drop_after=7) for n, m in modes.items()]
    run_clients(clients)
    check_series(tmp_path, clients, 2, proc, list(modes))
    by = {c.name: c for c in clients}
    assert by["Good"].got_exit and by["Good"].problems == []
    assert by["Garbage"].got_exit and by["Silent"].got_exit
    assert by["Dropper"].got_exit and by["Dropper"].setups == 3       # a rejoin gets setup again
    assert not by["Vanisher"].got_exit
    err = check_series.last_err
    assert "Garbage: unreadable message" in err and "Silent: no reply to query-" in err
    assert "Vanisher disconnected" in err and "Dropper joined again from 127.0.0.1" in err
    silent = next(line for line in err.splitlines() if line.startswith("gamehall-windward: Silent: 1 join(s)"))
    assert ", 0 replies, " in silent and " 0 timeouts," not in silent
    assert "Silent: further 'timeout' events are only counted" in err


def test_auto_with_no_names_plays_ais_with_a_progress_bar(tmp_path):
    proc = start(["auto", "--games", "3", "--port", "0", "--interface", "127.0.0.1", "--progress",
                  "--scores", str(tmp_path / "scores.xml"), "--records", str(tmp_path / "records")])
    rows, out, err = check_series(tmp_path, [], 3, proc, names=[])
    assert "3/3 games" in err
    assert [r[0] for r in rows] == list(AI_NAMES[:6])


def test_test_mode_passes_a_client_that_answers_ready(tmp_path):
    port = free_port()
    proc = start(["test", "Anders Hejlsberg", "--port", str(port), "--interface", "127.0.0.1", "--timeout", "30"])
    c = WireClient("Anders Hejlsberg", port, style="python")
    run_clients([c])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert c.setups == 1 and c.got_exit and c.problems == [] and sum(c.queries.values()) == 0


def test_test_mode_fails_in_one_line_on_timeout_and_on_a_bad_reply(tmp_path):
    port = free_port()
    proc = start(["test", "Nobody", "--port", str(port), "--interface", "127.0.0.1", "--timeout", "0.5"])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert err.strip().splitlines()[-1] == "gamehall-windward: error: Nobody did not join within 0.5 s"

    port = free_port()
    proc = start(["test", "Rude", "--port", str(port), "--interface", "127.0.0.1", "--timeout", "30"])

    class Rude(WireClient):
        def on_setup(self, root):
            self.setups += 1
            self.send("<reply cmd='query-card' msg-id='1' card='0'/>")

    c = Rude("Rude", port)
    run_clients([c])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "Rude answered setup with a reply (no query was sent) instead of <ready/>" in err
    assert "Traceback" not in err and c.setups == 1


def test_test_mode_says_when_a_client_joins_under_another_name(tmp_path):
    port = free_port()
    proc = start(["test", "Anders Hejlsberg", "--port", str(port), "--interface", "127.0.0.1", "--timeout", "3"])
    c = WireClient("anders hejlsberg", port, style="python")
    run_clients([c])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and c.closed_by_server and c.setups == 0
    assert ("refused a join as 'anders hejlsberg' from 127.0.0.1: not listed "
            "(waiting for 'Anders Hejlsberg': names must match exactly)") in err
    assert err.strip().splitlines()[-1] == ("gamehall-windward: error: Anders Hejlsberg did not join within 3 s; "
                                            "a client joined as 'anders hejlsberg' instead")


def test_a_busy_port_is_a_one_line_error(tmp_path):
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = start(["auto", "--port", str(port), "--interface", "127.0.0.1", "--scores", str(tmp_path / "s.xml")])
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert f"cannot listen on port {port}" in err and "Traceback" not in err


@pytest.mark.parametrize("args, message", [
    (["auto", "a", "b", "A", "--scores", "x"], "listed twice"),
    (["auto", "1", "2", "3", "4", "5", "6", "7", "--scores", "x"], "at most 6"),
    (["auto", "--games", "0", "--scores", "x"], "must be 1 or more"),
    (["auto", "a"], "--scores"),
])
def test_bad_arguments_exit_2(args, message):
    run = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and message in run.stderr
