"""The windward front end in a real ``twistd -n gamehall``: clients join the shared lobby's Windward
table, the operator starts the series from the admin console, the AIs fill the seats, and the game
is played to ``<exit/>`` over real sockets."""
from __future__ import annotations

import time

from gamehall.plugins import find_frontends
from tests.helpers import EXAMPLE
from tests.test_twistd_e2e import admin_command
from tests.windward.wire_client import WireClient
from tests.wireclient import Hall, free_port


def test_windward_clients_play_in_twistd_gamehall_started_by_the_operator(tmp_path):
    ports = {name: free_port() for name in [*find_frontends(), "nim", "windward"]}
    admin = free_port()
    args = ["--db", str(tmp_path / "hall.sqlite"), "--admin", f"tcp:{admin}:interface=127.0.0.1",
            "--bot-delay", "0.002"]
    for name, port in ports.items():
        args += ["--listen", f"{name}=tcp:{port}:interface=127.0.0.1"]
    hall = Hall(args, tmp_path, expect=[*ports, "admin"], extra_path=[str(EXAMPLE)])
    password = tmp_path / "hall.sqlite.admin"
    try:
        listing = admin_command(admin, password, "plugins", "Windward Code Wars")
        assert "Acquire (Windward code war)" in listing
        clients = [WireClient("Ann", ports["windward"], style="java"),
                   WireClient("Bob", ports["windward"], style="python")]
        for c in clients:
            c.start()
        for _ in range(100):
            text = admin_command(admin, password, "ww-list", "gamehall>")
            if "Ann" in text and "Bob" in text:
                break
            time.sleep(0.05)
        else:
            raise AssertionError(text)
        who = admin_command(admin, password, "who", "gamehall>")
        assert "Ann" in who and "windward" in who
        started = admin_command(admin, password, "ww-start", "started")
        assert "Sheldon Cooper" in started
        for c in clients:
            c.wait(120)
            assert c.problems == [] and c.got_exit and c.setups == 1
            assert sum(c.queries.values()) > 5
        assert "finished" in admin_command(admin, password, "ww-list", "gamehall>")
    finally:
        hall.kill(15)
