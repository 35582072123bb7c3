"""End to end: a real ``twistd -n gamehall`` process, real sockets, the example plugin."""
import re
import subprocess

import pytest

from gamehall.plugins import find_frontends
from tests.helpers import EXAMPLE
from tests.wireclient import TWISTD, Hall, LineClient, ROOT, free_port


def start_hall(tmp_path, db="hall.sqlite", store=None):
    ports = {name: free_port() for name in [*find_frontends(), "nim", "admin"]}
    where = ["--store", store] if store else ["--db", str(tmp_path / db)]
    args = [*where, "--admin", f"tcp:{ports.pop('admin')}:interface=127.0.0.1",
            "--bot-delay", "0.01"]
    for name, port in ports.items():
        args += ["--listen", f"{name}=tcp:{port}:interface=127.0.0.1"]
    hall = Hall(args, tmp_path, expect=[*ports, "admin"], extra_path=[str(EXAMPLE)])
    ports["admin"] = int(args[3].split(":")[1])
    return hall, ports


def admin_command(port, password_file, command, expect):
    """Log in to the telnet admin console with a raw socket and run one command."""
    import socket
    user, _, password = password_file.read_text().strip().partition(":")
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    seen = b""
    for prompt, answer in [(b"sername", user), (b"assword", password), (b">", command)]:
        while prompt not in seen:
            seen += sock.recv(65536)
        seen = b""
        sock.sendall(answer.encode() + b"\r\n")
    while expect.encode() not in seen:
        chunk = sock.recv(65536)
        assert chunk, seen
        seen += chunk
    sock.close()
    return seen.decode("utf-8", "replace")


def test_twistd_lists_the_plugin_and_documents_options():
    out = subprocess.run([TWISTD, "--help"], capture_output=True, text=True, cwd=ROOT).stdout
    assert "gamehall" in out
    out = subprocess.run([TWISTD, "-n", "gamehall", "--help"], capture_output=True, text=True, cwd=ROOT).stdout
    for option in ["--listen", "--admin", "--auth", "--db", "--disable", "--turn-timeout"]:
        assert option in out


@pytest.mark.parametrize("args, message", [
    (["--listen", "nosuch=tcp:1234"], "unknown front end 'nosuch'"),
    (["--listen", "nim"], "NAME=ENDPOINT"),
    (["--admin", "tcp:notaport"], "bad endpoint"),
    (["--admin", "tcp:8023"], "only with --auth"),
])
def test_bad_options_are_one_clear_line_and_a_non_zero_exit(tmp_path, args, message):
    import os
    env = dict(os.environ, PYTHONPATH=f"{EXAMPLE}:{ROOT}")
    run = subprocess.run([TWISTD, "-n", "--pidfile=", "gamehall", "--db", str(tmp_path / "x.db"), *args],
                         capture_output=True, text=True, cwd=tmp_path, env=env)
    assert run.returncode != 0
    assert message in run.stderr + run.stdout
    assert "Traceback" not in run.stderr + run.stdout


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """The hall's --store (None: --db hall.sqlite) and the file that will hold its admin password."""
    if request.param == "sqlite":
        return None, tmp_path / "hall.sqlite.admin"
    from tests import pgserver
    return pgserver.new_database_url(), tmp_path / "admin"


def test_example_plugin_played_through_sockets_and_survives_sigkill(tmp_path, store):
    store, password_file = store
    hall, ports = start_hall(tmp_path, store=store)
    try:
        if store:                               # kept in the store: gamehall-store admin shows it
            from gamehall.store.cli import admin_lines
            from gamehall.store.url import parse
            password_file.write_text(admin_lines(parse(store))[0] + "\n")
        listing = admin_command(ports["admin"], password_file, "plugins", "Nim over CRLF")
        assert "nim" in listing
        ann, bob = LineClient(ports["nim"]), LineClient(ports["nim"])
        for client, name in [(ann, "Ann"), (bob, "Bob")]:
            client.until("HELLO")
            client.send(f"NICK {name}")
            client.until("OK welcome")
        ann.send("NEW 2")
        table = ann.until("OK table").split()[-1]
        bob.send(f"JOIN {table}")
        ann.send("SAY hi bob")
        assert bob.until("CHAT") == "CHAT Ann hi bob"
        ann.send("START")
        clients = {"Ann": ann, "Bob": bob}
        # Two moves each, then the process is killed without warning.
        last = None
        for move in range(4):
            turn = next(c for c in clients.values() if c is ann) if move % 2 == 0 else bob
            line = turn.until("YOURTURN")
            turn.send("TAKE 1")
            last = turn.until("TOOK")
        pile = int(last.split()[-1])
    finally:
        hall.kill(9)
    ann.close(), bob.close()

    hall, ports = start_hall(tmp_path, store=store)
    try:
        ann, bob = LineClient(ports["nim"]), LineClient(ports["nim"])
        for client, name in [(ann, "Ann"), (bob, "Bob")]:
            client.until("HELLO")
            client.send(f"NICK {name}")
            client.until("OK welcome")
        line = ann.until("YOURTURN")
        assert int(line.split()[-1]) == pile       # nothing applied was lost
        while True:
            ann.send("TAKE 1")
            line = ann.until("TOOK")
            if line.endswith(" 0"):
                break
            bob.until("YOURTURN")
            bob.send("TAKE 1")
            if bob.until("TOOK").endswith(" 0"):
                break
            ann.until("YOURTURN")
        assert re.match(r"OVER (Ann|Bob)", ann.until("OVER"))
    finally:
        hall.kill(15)


def test_a_busy_port_is_one_line_and_a_non_zero_exit(tmp_path):
    import os
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = dict(os.environ, PYTHONPATH=f"{EXAMPLE}:{ROOT}")
        run = subprocess.run([TWISTD, "-n", "--pidfile=", "gamehall", "--db", str(tmp_path / "x.db"),
                              "--admin", "tcp:0:interface=127.0.0.1",
                              "--listen", f"nim=tcp:{port}:interface=127.0.0.1",
                              *[a for name in find_frontends() if name != "nim" for a in ("--disable", name)]],
                             capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert run.returncode != 0
    assert f"cannot listen on tcp:{port}" in run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr


def _db_in_missing_directory(tmp_path):
    return str(tmp_path / "missing" / "hall.sqlite"), "does not exist", None


def _db_is_a_directory(tmp_path):
    (tmp_path / "adir").mkdir()
    return str(tmp_path / "adir"), "is a directory", None


def _db_locked_by_another_connection(tmp_path):
    import sqlite3
    path = str(tmp_path / "locked.sqlite")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("CREATE TABLE t (x)")
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO t VALUES (1)")
    return path, "database is locked", holder


def _empty_db_beside_its_log(tmp_path):
    path = tmp_path / "hall.sqlite"
    path.write_bytes(b"")
    (tmp_path / "hall.sqlite-wal").write_bytes(b"\0" * 4096)
    return str(path), "is empty (0 bytes) but", None


@pytest.mark.parametrize("make", [_db_in_missing_directory, _db_is_a_directory,
                                  _db_locked_by_another_connection, _empty_db_beside_its_log])
def test_a_database_that_cannot_be_written_is_one_line_on_stderr_and_a_non_zero_exit(tmp_path, make):
    import os
    path, message, holder = make(tmp_path)
    env = dict(os.environ, PYTHONPATH=f"{EXAMPLE}:{ROOT}")
    try:
        run = subprocess.run([TWISTD, "-n", "--pidfile=", "gamehall", "--db", path,
                              "--admin", "tcp:0:interface=127.0.0.1",
                              *[a for name in {*find_frontends(), "nim"} for a in ("--disable", name)]],
                             capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    finally:
        if holder is not None:
            holder.close()
    assert run.returncode != 0
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("twistd gamehall: error:"), run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    assert not os.path.exists(path + ".admin")        # nothing was written beside it


def test_one_front_end_listens_on_several_endpoints(tmp_path):
    """Two --listen for one front end (e.g. PIMP on TCP and on TLS) is one hall, both ports open."""
    import os
    second = free_port()
    env_ports = {name: free_port() for name in [*find_frontends(), "nim", "admin"]}
    args = ["--db", str(tmp_path / "hall.sqlite"), "--admin", f"tcp:{env_ports.pop('admin')}:interface=127.0.0.1"]
    for name, port in env_ports.items():
        args += ["--listen", f"{name}=tcp:{port}:interface=127.0.0.1"]
    args += ["--listen", f"nim=tcp:{second}:interface=127.0.0.1"]
    hall = Hall(args, tmp_path, expect=[*env_ports, "nim#2", "admin"], extra_path=[str(EXAMPLE)])
    try:
        for port, name in [(env_ports["nim"], "Ann"), (second, "Bob")]:
            client = LineClient(port)
            client.until("HELLO")
            client.send(f"NICK {name}")
            client.until("OK welcome")
            client.close()
        assert os.path.exists(tmp_path / "hall.sqlite")
        # the log tells a newcomer where to point a browser
        assert any(f"web: open http://localhost:{env_ports['web']}/ in a browser" in line for line in hall.output)
    finally:
        hall.kill(15)
