"""End to end: ``twistd -n gamehall`` with the daide front end on TCP; seven wire clients (written
from the protocol text) and an observer play; the hall is killed (SIGKILL) mid-game and restarted
on the same database; the clients come back with IAM and their passcodes, nothing is lost, and
the game is played to a draw, with SMR and OFF."""
import pytest

from gamehall.plugins import find_frontends
from tests.daide.client import Client, Net, text_of
from tests.helpers import EXAMPLE, install_example_plugin
from tests.test_twistd_e2e import admin_command
from tests.wireclient import Hall, free_port


def start(tmp_path, port, admin):
    install_example_plugin()          # the child has the example on its path too
    others = [arg for name in find_frontends() if name != "daide" for arg in ("--disable", name)]
    return Hall(["--db", str(tmp_path / "hall.sqlite"), "--admin", f"tcp:{admin}:interface=127.0.0.1",
                 "--listen", f"daide=tcp:{port}:interface=127.0.0.1", "--rate", "0", "--seat-hold", "600",
                 "--seed", "16", *others], tmp_path, expect=["daide"], extra_path=[str(EXAMPLE)], timeout=60)


def turn_of(client):
    now = client.last("NOW")
    return tuple(now[1]) if now else None


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_seven_clients_play_through_a_kill_and_restart_to_a_draw(tmp_path):
    port, admin = free_port(), free_port()
    hall = start(tmp_path, port, admin)
    try:
        assert "daide" in admin_command(admin, tmp_path / "hall.sqlite.admin", "plugins", "DAIDE clients")
        net = Net(port)
        obs = net.connect(Client("watcher", observer=True))
        net.run(lambda: obs.names()[:2] == ["YES", "MAP"])
        players = [net.connect(Client(f"bot{i}", seed=i, draw_year=1903)) for i in range(7)]
        for c in players:
            c.pause_at = ("SPR", 1902)
        net.run(lambda: all(turn_of(c) == ("SPR", 1902) for c in players) and turn_of(obs) == ("SPR", 1902))
        # the spring 1902 orders of three powers are in (THX), then the hall is killed
        for c in players[:3]:
            c.order(c.last("NOW"))
        net.run(lambda: all(c.received[-1][0] in ("THX", "MIS") for c in players[:3]))
        before = {c.power: c.last("NOW") for c in players}
        orders = [m for c in players[:3] for m in c.all("THX") if m[2] == ["MBV"]]
        assert orders
        status = admin_command(admin, tmp_path / "hall.sqlite.admin", "daide", "SPR 1902")
        assert "playing SPR 1902" in status
    finally:
        hall.kill(9)
    net.close()

    hall = start(tmp_path, port, admin)
    try:
        net = Net(port)
        back = [net.connect(Client(f"bot{i}", seed=100 + i, draw_year=1903, rejoin=(c.power, c.passcode),
                                   play=False))
                for i, c in enumerate(players)]
        watcher = net.connect(Client("watcher2", observer=True))
        net.run(lambda: all(c.last("NOW") for c in back) and watcher.last("NOW"))
        for c, old in zip(back, players):
            assert c.received[0] == ["YES", ["IAM", [old.power], [old.passcode]]]
            assert c.last("NOW") == before[c.power]             # the same position
        for c in back[:3]:
            c.send("MIS")
        net.run(lambda: all(c.received[-1][0] == "MIS" for c in back[:3]))
        assert all(c.received[-1] == ["MIS"] for c in back[:3])  # their orders survived the kill
        for c in back:
            c.play = True
            c.order(c.last("NOW"))
        net.run(lambda: all(c.closed_by_server for c in back) and watcher.closed_by_server, seconds=120)
        for c in back:
            names = c.names()
            assert "DRW" in names and "SMR" in names and names[-1] == "OFF", (
                [text_of(m)[:80] for m in c.received[-6:]])
        assert "SMR" in watcher.names() and watcher.names()[-1] == "OFF"
        smr = back[0].last("SMR")
        assert sorted(entry[0] for entry in smr[2:]) == sorted(c.power for c in players)
        assert {entry[1][0] for entry in smr[2:]} == {f"'bot{i}'" for i in range(7)}
    finally:
        hall.kill(15)
    net.close()
