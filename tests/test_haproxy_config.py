"""docs/haproxy.cfg, as documented, in front of a real ``--workers`` hall: HAProxy takes it,
finds the hall up by its health check, and carries a game protocol's connection and the
web front end's page and WebSocket upgrade."""
from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess

import pytest

from tests.helpers import EXAMPLE
from tests.redisserver import fresh_redis_server  # noqa: F401 (fixture)
from tests.test_cluster_workers import READY, hall_args, wait_for
from tests.wireclient import ROOT, Hall

CONFIG = ROOT / "docs" / "haproxy.cfg"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def require_haproxy():
    if os.path.exists(HAPROXY):
        return
    why = "haproxy is not installed (apt-get install haproxy)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"the HAProxy configuration test must run under CI: {why}")
    pytest.skip(why)


def localised(text: str, public: dict[str, int], hall: dict[str, int]) -> str:
    """The documented configuration with its addresses moved to this machine: each front
    end listens on the socket the test opened for it (``fd@N``: listening before HAProxy
    even starts), both "machines" are this hall's ports."""
    out, section = [], None
    for line in text.splitlines():
        heading = re.match(r"(frontend|backend) (\S+)", line)
        if heading:
            section = heading.group(2)
        if re.match(r"\s+log /dev/log", line):
            continue                            # no syslog here
        line = re.sub(r"^(\s+maxconn) \d+", r"\1 1000", line)   # within a test machine's file limit
        line = re.sub(r"^(\s+bind) :\d+", lambda m: f"{m.group(1)} fd@{public[section]}", line)
        line = re.sub(r"^(\s+server hall\d) 10\.0\.0\.\d+:\d+",
                      lambda m: f"{m.group(1)} 127.0.0.1:{hall[section]}", line)
        out.append(line)
    return "\n".join(out) + "\n"


def test_the_documented_haproxy_configuration_serves_a_workers_hall(tmp_path, fresh_redis_server):
    require_haproxy()
    from tests import pgserver
    store = pgserver.new_database_url()
    args = hall_args(store, fresh_redis_server.url, workers=2)
    hall_ports = {a.split("=")[0]: int(a.split(":")[1]) for a in args if re.match(r"\w+=tcp:", a)}
    text = CONFIG.read_text()
    names = re.findall(r"^frontend (\S+)", text, re.M)
    assert set(names) == {"netacquire", "windward", "pimp", "et", "daide", "web"}
    listening = {}
    for name in names:
        listening[name] = socket.socket()
        listening[name].bind(("127.0.0.1", 0))
        listening[name].listen(64)
    public = {name: sock.fileno() for name, sock in listening.items()}
    address = {name: sock.getsockname()[1] for name, sock in listening.items()}
    config = tmp_path / "haproxy.cfg"
    config.write_text(localised(text, public, hall_ports))
    check = subprocess.run([HAPROXY, "-c", "-f", str(config)], capture_output=True, text=True,
                           pass_fds=list(public.values()))
    assert check.returncode == 0, check.stdout + check.stderr

    hall = Hall(args, tmp_path, expect=["web"], extra_path=[str(EXAMPLE)])
    try:
        wait_for(hall, READY, 2)                # (a hall still starting fails the checks: down)
        carry_through_haproxy(config, listening, address)
    finally:
        hall.kill(signal.SIGTERM)


def carry_through_haproxy(config, listening, address):
    public = {name: sock.fileno() for name, sock in listening.items()}
    proxy = subprocess.Popen([HAPROXY, "-db", "-f", str(config)], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, pass_fds=list(public.values()))
    for sock in listening.values():
        sock.close()                            # HAProxy has them
    try:
        page = http.client.HTTPConnection("127.0.0.1", address["web"], timeout=30)
        page.request("GET", "/")
        assert page.getresponse().status == 200
        page.close()

        # the WebSocket upgrade passes through, with the hall's answer
        ws = socket.create_connection(("127.0.0.1", address["web"]), timeout=10)
        ws.sendall(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        answer = b""
        while b'"type":"hello"' not in answer:   # the upgrade, then the hall's first message
            chunk = ws.recv(4096)
            assert chunk, answer
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 101"), answer
        assert b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in answer     # RFC 6455's example key, accepted
        ws.close()

        # a game protocol: E&T greets a new connection first
        et = socket.create_connection(("127.0.0.1", address["et"]), timeout=10)
        greeting = b""
        while b"welcome" not in greeting:
            chunk = et.recv(4096)
            assert chunk, greeting
            greeting += chunk
        et.close()
    finally:
        proxy.send_signal(signal.SIGTERM)
        proxy.wait(timeout=30)
