"""Real sockets for the PIMP end-to-end tests: a ``twistd -n gamehall`` with the pimp front end
(TCP and/or TLS with a self-signed certificate made here) and a loop that drives wire clients."""
from __future__ import annotations

import select
import socket
import ssl
import time
from pathlib import Path

from gamehall.plugins import find_frontends
from tests.helpers import EXAMPLE, install_example_plugin, self_signed_pem
from tests.pimp.wireclient import WireClient
from tests.wireclient import Hall, free_port

_AGAIN = (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError)


def self_signed(path: Path) -> None:
    path.write_bytes(self_signed_pem())


def start_hall(tmp_path: Path, tcp: bool = True, tls: bool = False, seed: int | None = None,
               rate: float = 0) -> tuple:
    """A hall with the pimp front end on a TCP and/or a TLS port; returns (hall, tcp port, tls port).

    The wire clients answer at machine speed, for minutes: under the hall's input limit for
    people (``--rate``, 50 frames/s by default) a client is slowed, and after 30 s of it dropped
    as a flooder (its seat then waits for a rejoin); so no limit unless ``rate`` is given.
    """
    listen, ports = [], {}
    if tcp:
        ports["tcp"] = free_port()
        listen += ["--listen", f"pimp=tcp:{ports['tcp']}:interface=127.0.0.1"]
    if tls:
        pem = tmp_path / "hall.pem"
        self_signed(pem)
        ports["tls"] = free_port()
        listen += ["--listen", f"pimp=ssl:{ports['tls']}:privateKey={pem}:interface=127.0.0.1"]
    install_example_plugin()          # the child has the example on its path too
    others = [arg for name in find_frontends() if name != "pimp" for arg in ("--disable", name)]
    extra = ["--seed", str(seed)] if seed is not None else []
    hall = Hall(["--db", str(tmp_path / "hall.sqlite"), "--admin", f"tcp:{free_port()}:interface=127.0.0.1",
                 *listen, "--bot-delay", "0.01", "--rate", str(rate), *extra, *others], tmp_path, expect=["pimp"],
                extra_path=[str(EXAMPLE)], timeout=90)
    return hall, ports.get("tcp"), ports.get("tls")


class Net:
    """Wire clients on real sockets (plain or TLS), driven from one loop.

    The sockets are non-blocking once connected: a readable socket is drained
    until it would block, TLS data already decrypted (``pending``) included, so
    one socket can never hold up the others (a blocking TLS ``recv`` waits for
    a whole record, or for application data after a record without any).  A
    connection the hall closes fails the run at once, with the last messages
    of every client and the hall's log.
    """

    def __init__(self, hall: Hall | None = None):
        self.hall = hall                          # its log ends a timeout's report
        self.socks: dict[WireClient, socket.socket] = {}
        self.closed: set[WireClient] = set()
        self.why: dict[WireClient, str] = {}      # why a connection closed, if not by EOF

    def connect(self, client: WireClient, port: int, tls: bool = False) -> WireClient:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
            sock = ctx.wrap_socket(sock)          # the handshake, still blocking
        sock.setblocking(False)
        self.socks[client] = sock
        return client

    def drop(self, client: WireClient) -> None:
        self.closed.discard(client)
        self.socks.pop(client).close()

    @staticmethod
    def _send(sock: socket.socket, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[sock.send(view):]
            except _AGAIN:
                if time.monotonic() > deadline:
                    raise AssertionError("timed out sending") from None
                select.select([], [sock], [], 0.05)

    def _drain(self, client: WireClient, sock: socket.socket) -> None:
        while True:
            try:
                data = sock.recv(65536)
            except _AGAIN:
                return
            except OSError as exc:                # reset by the hall
                data, self.why[client] = b"", repr(exc)
            if not data:
                self.closed.add(client)
                return
            client.feed(data)

    def flush(self, deadline: float) -> None:
        for client, sock in self.socks.items():
            data = client.take()
            if data:
                self._send(sock, data, deadline)

    def run(self, until, seconds: float = 180.0) -> None:
        deadline = time.monotonic() + seconds
        while True:
            if self.closed:                       # fail now, not at the deadline
                raise AssertionError("the hall closed a connection; last messages:\n" + self.tails())
            self.flush(deadline)                  # replies to what was read last round go out first
            if until():
                return
            if time.monotonic() > deadline:
                raise AssertionError("timed out; last messages:\n" + self.tails())
            ready, _, _ = select.select(list(self.socks.values()), [], [], 0.05)
            for client, sock in list(self.socks.items()):
                if sock in ready or (isinstance(sock, ssl.SSLSocket) and sock.pending()):
                    self._drain(client, sock)

    def tails(self, n: int = 12) -> str:
        lines = ["".join(self.hall.output[-n:])] if self.hall else []
        for c in self.socks:
            closed = f", closed {self.why.get(c, 'by EOF')}" if c in self.closed else ""
            lines.append(f"{c.name} (player {c.me}{closed}): {c.received[-n:]}")
        return "\n".join(lines)
