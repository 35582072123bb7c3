"""CPU time for closing many Euphrates & Tigris connections, in process (no sockets).

    .venv/bin/python bench/et_closes.py [--connections 1000] [--spread 0]

A hall on a Clock with only the ``et`` front end; twice ``--connections``
clients connect over StringTransport (what they are sent piles up in their
transports), then half of them are closed one by one, ``--spread`` seconds
apart on the hall clock (0: all at once, as a crowd dropping does), while the
other half stay and are told.  Then the front end is stopped with the rest
still connected (as at a SIGTERM: the port stops listening, then every
connection is dropped).  Printed: CPU seconds, the lines written to the
connections that stayed and the writes they took, for the closes and for the
stop.  Figures only; nothing is asserted.

With ``--twistd`` the same against a real ``twistd -n gamehall`` (only the
``et`` front end, a temporary --db): 2N sockets connect, N close (the hall's
CPU for them, from /proc), then SIGTERM with N still connected: the seconds
until the process has exited.

    .venv/bin/python bench/et_closes.py --twistd [--connections 1000]
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from twisted.internet.address import IPv4Address  # noqa: E402
from twisted.internet.testing import StringTransport  # noqa: E402

from gamehall_et.game import EuphratesTigrisGame  # noqa: E402
from gamehall_et.wire.protocol import build_factory  # noqa: E402
from tests.helpers import make_hall  # noqa: E402


def connect(factory, n: int, first_port: int) -> list:
    conns = []
    for i in range(n):
        address = IPv4Address("TCP", f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}", first_port + i)
        proto = factory.buildProtocol(address)
        proto.makeConnection(StringTransport(peerAddress=address))
        conns.append(proto)
    return conns


def lines_out(hall) -> int:
    return hall.stats.messages_out["et"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--spread", type=float, default=0.0, help="seconds between closes")
    parser.add_argument("--twistd", action="store_true", help="against a real twistd, over sockets")
    args = parser.parse_args()
    n = args.connections
    if args.twistd:
        against_twistd(n)
        return
    hall = make_hall(games={"et": EuphratesTigrisGame()}, idle_timeout=0, max_per_peer=0)
    factory = build_factory(hall)
    factory.doStart()
    conns = connect(factory, 2 * n, 20000)
    staying = conns[n:]
    hall.clock.advance(5)
    for proto in staying:
        proto.transport.clear()
    before, cpu = lines_out(hall), time.process_time()
    writes = count_writes(staying)
    for proto in conns[:n]:
        proto.transport.loseConnection()
        proto.connectionLost(None)
        if args.spread:
            hall.clock.advance(args.spread)
    hall.clock.advance(5)
    closes_cpu, closes_lines = time.process_time() - cpu, lines_out(hall) - before
    print(f"{n} closes{f' {args.spread:g} s apart' if args.spread else ''} with {n} staying: "
          f"{closes_cpu:.3f} s CPU ({closes_cpu / n * 1e6:.0f} us each), {closes_lines} lines "
          f"in {sum(writes.values())} writes to those staying")

    before, cpu = lines_out(hall), time.process_time()
    factory.doStop()                            # the port stops listening (stopService)...
    for proto in staying:                        # ...then the reactor drops every connection
        proto.connectionLost(None)
    hall.clock.advance(5)
    stop_cpu, stop_lines = time.process_time() - cpu, lines_out(hall) - before
    print(f"stop with {n} connections: {stop_cpu:.3f} s CPU, {stop_lines} lines to the others")


def against_twistd(n: int) -> None:
    from tests.wireclient import Hall, free_port
    port, tmp = free_port(), Path(tempfile.mkdtemp())
    hall = Hall(["--db", str(tmp / "g.sqlite"), "--listen", f"et=tcp:{port}:interface=127.0.0.1",
                 "--admin", f"tcp:{free_port()}:interface=127.0.0.1", "--max-per-peer", "0",
                 "--idle-timeout", "0", "--rate", "0"], tmp, ["et"])

    def cpu() -> float:
        with open(f"/proc/{hall.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(2 * n)]
    time.sleep(3)                                  # every connection welcomed, the notices sent
    before = cpu()
    for sock in socks[:n]:
        sock.close()
    time.sleep(3)
    print(f"twistd: {n} closes with {n} staying: {cpu() - before:.2f} s of the hall's CPU")
    start = time.perf_counter()
    hall.proc.send_signal(signal.SIGTERM)
    hall.proc.wait(300)
    print(f"twistd: SIGTERM with {n} connections: exited after {time.perf_counter() - start:.2f} s")
    for sock in socks[n:]:
        sock.close()


def count_writes(protos) -> dict:
    counts = {}
    for proto in protos:
        write = proto.transport.write

        def counted(data, proto=proto, write=write):
            counts[proto] = counts.get(proto, 0) + 1
            write(data)
        proto.transport.write = counted
    return counts


if __name__ == "__main__":
    main()
