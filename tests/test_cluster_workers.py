"""End to end: ``twistd -n gamehall --bus ... --workers N`` and the refusals, as real
processes on a throwaway PostgreSQL and Redis."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess

import pytest

from gamehall.plugins import find_frontends
from tests.helpers import EXAMPLE
from tests.redisserver import fresh_redis_server, redis_server  # noqa: F401 (fixtures)
from tests.wireclient import TWISTD, ROOT, Hall, LineClient, free_port

READY = re.compile(r"worker (\d+) \[pid (\d+)\] \[gamehall\.tap\.HallService\] admin listening on")
PROCESS = re.compile(r"Process (\S+) \(pid (\d+)\)")


def run_twistd(tmp_path, *args, timeout=60):
    env = dict(os.environ, PYTHONPATH=f"{EXAMPLE}:{ROOT}")
    return subprocess.run([TWISTD, "-n", "--pidfile=", "gamehall", *args], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=timeout)


def hall_args(store, bus, admin=None, workers=None):
    """Options for a hall on loopback ports of its own; ``admin``: its endpoint (default TCP)."""
    args = ["--store", store, "--bus", bus, "--bot-delay", "0.01",
            "--admin", admin or f"tcp:{free_port()}:interface=127.0.0.1"]
    for name in [*find_frontends(), "nim"]:
        args += ["--listen", f"{name}=tcp:{free_port()}:interface=127.0.0.1"]
    if workers:
        args += ["--workers", str(workers)]
    return args


def wait_for(hall, pattern, count=1, timeout=60):
    """The first ``count`` matches of ``pattern`` in the hall's output, once there are that many."""
    found = []

    def enough():
        found[:] = [m for line in hall.output for m in [pattern.search(line)] if m]
        return len(found) >= count or hall.proc.poll() is not None

    with hall._changed:
        hall._changed.wait_for(enough, timeout)
    assert len(found) >= count, "".join(hall.output)[-4000:]
    return found[:count]


def admin_run(connect, password, command, until):
    """Log in to the admin console over a fresh connection and run ``command``: the output,
    once the regular expression ``until`` is found in it."""
    sock = connect()
    sock.settimeout(20)
    seen = b""
    for prompt, answer in [(b"sername", "admin"), (b"assword", password), (b">", command)]:
        while prompt not in seen:
            chunk = sock.recv(65536)
            assert chunk, seen
            seen += chunk
        seen = b""
        sock.sendall(answer.encode() + b"\r\n")
    while not re.search(until, seen.decode("utf-8", "replace")):
        chunk = sock.recv(65536)
        assert chunk, seen
        seen += chunk
    sock.close()
    return seen.decode("utf-8", "replace")


def admin_stats(connect, password):
    """``stats`` on a fresh console connection: the (process id, pid) that answered."""
    match = PROCESS.search(admin_run(connect, password, "stats", PROCESS.pattern))
    return match.group(1), int(match.group(2))


def answering(connect, password, wanted, tries=200):
    """Connect again and again until every pid in ``wanted`` has answered; {pid: id}."""
    seen = {}
    for _ in range(tries):
        process_id, pid = admin_stats(connect, password)
        seen[pid] = process_id
        if wanted <= set(seen):
            return seen
    raise AssertionError(f"only {seen} answered, wanted {wanted}")


def admin_password(store):
    from gamehall.store.cli import admin_lines
    from gamehall.store.url import parse
    return admin_lines(parse(store))[0].partition(":")[2]


def user_processes(admin_port, password):
    """The console's ``who``: {nickname: the id of the process it is connected to}."""
    listing = admin_run(lambda: socket.create_connection(("127.0.0.1", admin_port)), password, "who",
                        r"\d+ users? \(")
    return {m.group(1): m.group(2)
            for m in re.finditer(r"^(\S+)\s.*?(\S+:\d+)(?: \(this\))?\s*$", listing, re.M)}


def on_another_worker(admin_port, password, than, connect, clients, wait, batch=4, rounds=10):
    """Connect users (``connect(n)``: the n-th, signed in once ``wait`` returns) a few at a time
    until one is on another worker than the user ``than`` (the kernel picks a worker for each
    connection): that one, with the processes seen."""
    for first in range(0, batch * rounds, batch):
        fresh = [connect(n) for n in range(first, first + batch)]
        clients.extend(fresh)
        wait(fresh)
        where = user_processes(admin_port, password)
        for client in fresh:
            if where.get(client.name) not in (None, where.get(than)):
                return client, where
    raise AssertionError(f"every user on the worker of {than}: {where}")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def store():
    from tests import pgserver
    return pgserver.new_database_url()


def test_two_workers_serve_one_port_and_announce_themselves(tmp_path, store, fresh_redis_server):
    args = hall_args(store, fresh_redis_server.url, workers=2) + ["--json-log", str(tmp_path / "log.json")]
    port = int(args[args.index("--admin") + 1].split(":")[1])
    nim = int(next(a for a in args if a.startswith("nim=")).split(":")[1])
    hall = Hall(args, tmp_path, expect=["admin"], extra_path=[str(EXAMPLE)])
    try:
        workers = {int(m.group(2)) for m in wait_for(hall, READY, 2)}
        password = admin_password(store)
        ids = answering(lambda: socket.create_connection(("127.0.0.1", port)), password, workers)
        assert sorted(ids.values()) == sorted(f"{socket.gethostname()}:{pid}" for pid in workers)
        # each is a hall process on the bus, announced under its id
        keys = fresh_redis_server.call("KEYS", "gamehall:proc:*")
        assert sorted(keys) == sorted(f"gamehall:proc:{i}" for i in ids.values())
        # a front end's port too: a player is served
        player = LineClient(nim)
        player.until("HELLO")
        player.send("NICK Ann")
        player.until("OK welcome")
        player.close()
    finally:
        hall.kill(signal.SIGTERM)
    assert hall.proc.returncode in (0, -signal.SIGTERM)        # twistd ends by its signal
    assert not any(alive(pid) for pid in workers)                   # stopped, and waited for
    assert fresh_redis_server.call("KEYS", "gamehall:proc:*") == []  # and withdrawn from the bus
    assert any("worker 1 (pid" in line and "stopped" in line for line in hall.output)
    # the JSON log: each worker's own events (not again as the main process's text lines)
    from twisted.logger import eventsFromJSONLogFile
    with open(tmp_path / "log.json") as log:
        events = list(eventsFromJSONLogFile(log))
    assert {e["id"] for e in events if e.get("log_namespace", "").startswith("gamehall.cluster.process")} == set(ids.values())
    assert not any(e.get("worker_line") for e in events)
    assert any(e.get("log_namespace") == "gamehall.cluster.workers" for e in events)  # the main's own


def test_a_worker_that_dies_is_started_again_and_the_unix_socket_stays(tmp_path, store, fresh_redis_server):
    path = tmp_path / "admin.sock"
    args = hall_args(store, fresh_redis_server.url, admin=f"unix:{path}", workers=2)
    hall = Hall(args, tmp_path, expect=["admin"], extra_path=[str(EXAMPLE)])

    def connect():
        sock = socket.socket(socket.AF_UNIX)
        sock.connect(str(path))
        return sock

    try:
        first = {int(m.group(1)): int(m.group(2)) for m in wait_for(hall, READY, 2)}
        password = admin_password(store)
        answering(connect, password, set(first.values()))
        # a clean stop of one worker (SIGTERM) must leave the shared socket file alone...
        os.kill(first[1], signal.SIGTERM)
        wait_for(hall, re.compile(rf"worker 1 \(pid {first[1]}\) ended by signal 15; starting it again in 1s"))
        assert path.exists()
        # ... and a worker killed outright is started again too
        os.kill(first[2], signal.SIGKILL)
        wait_for(hall, re.compile(rf"worker 2 \(pid {first[2]}\) ended by signal 9; starting it again"))
        again = {int(m.group(1)): int(m.group(2)) for m in wait_for(hall, READY, 4)[2:]}
        assert set(again) == {1, 2} and not set(again.values()) & set(first.values())
        answering(connect, password, set(again.values()))
    finally:
        hall.kill(signal.SIGTERM)
    assert hall.proc.returncode in (0, -signal.SIGTERM)        # twistd ends by its signal
    assert not path.exists()                    # the main process removes it at the end


@pytest.mark.parametrize("args, message", [
    (["--bus", "redis://127.0.0.1:6379/0"],
     "--bus: a hall of several processes needs a PostgreSQL store: --store postgresql://..."),
    (["--workers", "2"],
     "--workers: a hall of several processes needs a PostgreSQL store: --store postgresql://..."),
    (["--store", "postgresql://u@127.0.0.1:1/x", "--workers", "2"],
     "--workers needs --bus redis://host:port/N"),
    (["--store", "postgresql://u@127.0.0.1:1/x", "--bus", "redis://127.0.0.1/0", "--workers", "1"],
     "--workers wants 2 or more"),
    (["--store", "postgresql://u@127.0.0.1:1/x", "--bus", "http://127.0.0.1/0"],
     "--bus 'http://127.0.0.1/0': expected redis://host:port/N"),
])
def test_options_a_hall_of_several_processes_refuses(tmp_path, args, message):
    if "--store" not in args:
        args = ["--db", str(tmp_path / "hall.sqlite"), *args]
    run = run_twistd(tmp_path, *args, "--admin", "tcp:0:interface=127.0.0.1")
    out = run.stdout + run.stderr
    assert run.returncode != 0 and message in out, out
    assert "Traceback" not in out
    assert len([line for line in run.stderr.splitlines() if line.strip()]) == 1, run.stderr


def _refused_at_start(run, message):
    out = run.stdout + run.stderr
    assert run.returncode != 0, out
    # (the log has begun by then: twistd's log takes stderr's lines, on stdout without a --logfile)
    assert f"twistd gamehall: error: cannot start: {message}" in out, out
    assert "Traceback" not in out


@pytest.mark.parametrize("workers", [None, 2])
def test_a_bus_that_cannot_be_reached_stops_the_start(tmp_path, store, workers):
    bus = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    run = run_twistd(tmp_path, *hall_args(store, bus, workers=workers))
    _refused_at_start(run, f"cannot reach the bus at {bus}")


def test_one_bus_for_two_stores_is_refused(tmp_path, store, redis_server):
    from tests import pgserver
    bus = redis_server.url[:-1] + "2"
    hall = Hall(hall_args(store, bus), tmp_path, expect=["admin"], extra_path=[str(EXAMPLE)])
    hall.kill(signal.SIGTERM)
    run = run_twistd(tmp_path, *hall_args(pgserver.new_database_url(), bus, workers=2))
    _refused_at_start(run, f"the bus at {bus} belongs to another hall (one with another store)")


def test_one_store_on_two_buses_at_once_is_refused(tmp_path, store, fresh_redis_server):
    first, second = fresh_redis_server.url, fresh_redis_server.url[:-1] + "1"
    hall = Hall(hall_args(store, first), tmp_path, expect=["admin"], extra_path=[str(EXAMPLE)])
    try:
        run = run_twistd(tmp_path, *hall_args(store, second))
    finally:
        hall.kill(signal.SIGTERM)
    _refused_at_start(run, f"this store's hall runs on another bus ({first}, where a process of it was alive")
    assert "--move-bus" in run.stdout + run.stderr


def test_an_endpoint_workers_cannot_share_is_refused():
    from twisted.python.usage import UsageError

    from gamehall.tap import _check_shareable
    with pytest.raises(UsageError, match="'systemd:domain=INET:index=0', which worker processes cannot share"):
        _check_shareable("nim", "systemd:domain=INET:index=0")
    for description in ("tcp:1", "tcp6:1", "ssl:1:privateKey=k.pem", "unix:/tmp/x.sock", "haproxy:tcp:1"):
        _check_shareable("nim", description)


def self_signed(folder):
    """A throwaway key and certificate for localhost (PEM files): their paths."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    key_path, cert_path = folder / "key.pem", folder / "cert.pem"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path


def test_workers_serve_tls_and_ipv6_endpoints(tmp_path, store, fresh_redis_server):
    import ssl
    key, cert = self_signed(tmp_path)
    tls_port, v6_port = free_port(), free_port()
    args = hall_args(store, fresh_redis_server.url, workers=2)
    args += ["--listen", f"nim=ssl:{tls_port}:privateKey={key}:certKey={cert}:interface=127.0.0.1",
             "--listen", f"nim=tcp6:{v6_port}:interface=\\:\\:1"]
    hall = Hall(args, tmp_path, expect=["nim#2", "nim#3"], extra_path=[str(EXAMPLE)])
    try:
        wait_for(hall, READY, 2)
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        for name, connect in [
                ("Ann", lambda: context.wrap_socket(socket.create_connection(("127.0.0.1", tls_port), timeout=10))),
                ("Bob", lambda: socket.create_connection(("::1", v6_port), timeout=10))]:
            client = LineClient.__new__(LineClient)
            client.sock, client.buffer = connect(), b""
            client.until("HELLO")
            client.send(f"NICK {name}")
            client.until("OK welcome")
            client.close()
    finally:
        hall.kill(signal.SIGTERM)


def test_workers_take_the_proxy_protocol_from_haproxy(tmp_path, store, fresh_redis_server):
    """haproxy:tcp:... (HAProxy's send-proxy) is wrapped in the workers as in one process:
    a connection must begin with the PROXY header, one that does not is closed."""
    port = free_port()
    args = hall_args(store, fresh_redis_server.url, workers=2)
    args += ["--listen", f"nim=haproxy:tcp:{port}:interface=127.0.0.1"]
    hall = Hall(args, tmp_path, expect=["nim#2"], extra_path=[str(EXAMPLE)])
    try:
        wait_for(hall, READY, 2)
        for n in range(4):                      # whichever worker takes it
            proxied = LineClient(port)
            proxied.sock.sendall(f"PROXY TCP4 203.0.113.7 127.0.0.1 40000 {port}\r\n".encode())
            proxied.until("HELLO")
            # a name of its own each time: the workers are one hall, and the last Ann's
            # leaving may not have reached the worker this connection lands on yet
            proxied.send(f"NICK Ann{n}")
            proxied.until("OK welcome")
            proxied.close()
            direct = LineClient(port)
            direct.until("HELLO")
            direct.send("NICK Bob")
            with pytest.raises(EOFError):
                direct.until("OK welcome")
            direct.close()
    finally:
        hall.kill(signal.SIGTERM)


def test_workers_stop_when_their_main_process_is_killed(tmp_path, store, fresh_redis_server):
    import select
    hall = Hall(hall_args(store, fresh_redis_server.url, workers=2), tmp_path, expect=["admin"],
                extra_path=[str(EXAMPLE)])
    workers = [int(m.group(2)) for m in wait_for(hall, READY, 2)]
    exits = []
    for pid in workers:
        try:
            exits.append(os.pidfd_open(pid))    # readable once the process has ended
        except ProcessLookupError:
            pass
    hall.kill(signal.SIGKILL)                   # no chance to stop its workers
    try:
        for fd in exits:
            ended, _, _ = select.select([fd], [], [], 30)
            assert ended, f"worker still running: {workers}"
    finally:
        for fd in exits:
            os.close(fd)


def test_players_on_two_workers_of_one_port_see_each_other_and_chat(tmp_path, store, fresh_redis_server):
    """A NetAcquire player and a web player, each on whichever worker the kernel gave their
    connection to: web players connect until one is on the other worker than the NetAcquire
    one (the console's `who` names each user's process); those two see each other."""
    from tests.netacquire.naclient import PlayerLogic, SocketClient
    from tests.wireclient import run_sockets_until
    from tests.wsclient import WebSocketClient
    args = hall_args(store, fresh_redis_server.url, workers=2)
    admin = int(args[args.index("--admin") + 1].split(":")[1])
    port = {a.split("=")[0]: int(a.split(":")[1]) for a in args if "=tcp:" in a}
    hall = Hall(args, tmp_path, expect=["admin"], extra_path=[str(EXAMPLE)])
    clients = []

    def run(done, timeout=20):
        run_sockets_until(clients, done, timeout,
                          lambda c: f"{getattr(c, 'name', '')}: {c.__dict__.get('messages', '')}")

    try:
        wait_for(hall, READY, 2)
        password = admin_password(store)
        ann = SocketClient(port["netacquire"], PlayerLogic("Ann", seed=1, end_game=False))
        ann.name = "Ann"
        clients.append(ann)
        run(lambda: ann.logic.states[-1:] == [3])

        def connect(n):
            web = WebSocketClient(port["web"], name=f"Web{n}")
            web.send({"type": "hello", "nickname": f"Web{n}"})
            return web
        other, _ = on_another_worker(admin, password, "Ann", connect, clients,
                                     lambda fresh: run(lambda: all(w.of("welcome") for w in fresh)))
        other.send({"type": "lobby"})
        run(lambda: any(u["nickname"] == "Ann" for m in other.of("lobby") for u in m["users"]))
        def listed():                           # NetAcquire's user list (LU) once it has come
            ann.logic.lm.clear()
            ann.send("LU;")
            run(lambda: "# End of user list." in ann.logic.lm)
            return any(line.startswith(f"# -> {other.name} ") for line in ann.logic.lm)
        run(lambda: any(other.name in line and "entered the lobby" in line for line in ann.logic.lm)
            or any("users have entered the lobby" in line for line in ann.logic.lm))
        assert listed()
        other.send({"type": "chat", "text": "from the other worker"})
        run(lambda: f"{other.name}: from the other worker" in ann.logic.lm)
        ann.send('BM;Lobby,"and back"')
        run(lambda: {"type": "chat", "from": "Ann", "text": "and back"} in other.messages)
    finally:
        for client in clients:
            client.close()
        hall.kill(signal.SIGTERM)


def test_a_second_sigterm_while_stopping_is_no_traceback(tmp_path, store, fresh_redis_server):
    """SIGTERM, then SIGTERM again while the workers stop: the main process goes on stopping
    (its log says so) and exits cleanly, with no ReactorNotRunning traceback from the second."""
    hall = Hall(hall_args(store, fresh_redis_server.url, workers=2), tmp_path, expect=["admin"],
                extra_path=[str(EXAMPLE)])
    try:
        workers = {int(m.group(2)) for m in wait_for(hall, READY, 2)}
        hall.proc.send_signal(signal.SIGTERM)
        wait_for(hall, re.compile(r"Received SIGTERM"))
        hall.proc.send_signal(signal.SIGTERM)
        for pid in workers:                     # (as Ctrl-C reaches the workers too)
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        wait_for(hall, re.compile(r"worker \d \(pid \d+\) stopped"), 2)
        hall.proc.wait(timeout=40)
    finally:
        if hall.proc.poll() is None:
            hall.kill(signal.SIGKILL)
    text = "".join(hall.output)
    assert hall.proc.returncode in (0, -signal.SIGTERM), text[-3000:]
    assert "Traceback" not in text and "ReactorNotRunning" not in text, text[-3000:]
    assert "already stopping" in text
    assert not any(alive(pid) for pid in workers)
