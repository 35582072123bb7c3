"""A Windward series survives a restart of a real ``twistd -n gamehall`` (SQLite store): the
restored table resumes as its series, and its player, joining again, gets the seat back."""
from __future__ import annotations

import time

from gamehall.plugins import find_frontends
from tests.helpers import EXAMPLE
from tests.test_twistd_e2e import admin_command
from tests.windward.wire_client import WireClient
from tests.wireclient import Hall, free_port


def test_a_series_resumes_after_a_restart_and_its_player_rejoins(tmp_path):
    ports = {name: free_port() for name in [*find_frontends(), "nim", "windward"]}
    admin = free_port()
    args = ["--db", str(tmp_path / "hall.sqlite"), "--admin", f"tcp:{admin}:interface=127.0.0.1",
            "--bot-delay", "0.01", "--seat-hold", "60"]
    for name, port in ports.items():
        args += ["--listen", f"{name}=tcp:{port}:interface=127.0.0.1"]
    password = tmp_path / "hall.sqlite.admin"

    hall = Hall(args, tmp_path, expect=[*ports, "admin"], extra_path=[str(EXAMPLE)])
    try:
        first = WireClient("Ann", ports["windward"], style="java").start()
        for _ in range(100):
            listing = admin_command(admin, password, "ww-list", "gamehall>")
            if "Ann" in listing:
                break
            time.sleep(0.05)
        table = listing.split("tables #")[1].split()[0].rstrip(";")
        assert "(2 games)" in admin_command(admin, password, f"ww-start {table} 2", "started")
        for _ in range(400):
            if sum(first.queries.values()) >= 3:
                break
            time.sleep(0.01)
        assert sum(first.queries.values()) >= 3 and first.setups == 1
    finally:
        hall.kill(15)                                   # a clean stop: the game is left in the store
    first.wait(30)
    assert not first.got_exit

    hall = Hall(args, tmp_path, expect=[*ports, "admin"], extra_path=[str(EXAMPLE)])
    try:
        listing = admin_command(admin, password, "ww-list", "gamehall>")
        assert "series 1: playing" in listing and "game 1/2" in listing, listing
        again = WireClient("Ann", ports["windward"], style="java").start()
        again.wait(120)
        assert again.problems == [] and again.got_exit
        assert again.setups == 2 and again.my_guid == first.my_guid      # game 1 again, then game 2
        assert again.scoreboards[0] == "" and again.scoreboards[1].count(";") == 1
        assert "finished" in admin_command(admin, password, "ww-list", "gamehall>")
    finally:
        hall.kill(15)
    assert "series 1 resumes at game 1/2" in "".join(hall.output)
