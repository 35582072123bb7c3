"""The hall's cost of many NetAcquire games starting at once, in process: the lobby's fan-out.

--games four-player games are made, joined and started over --ramp seconds of
the hall's clock (a ``task.Clock``: no sockets, no other processes) by
4 x --games NetAcquire connections (the real protocol over StringTransport,
each user logged in first): the creator sends ``SG;4``, three others
``JG;n,-1``, the creator ``PG;``.  Every creation, join and start is a lobby
table change that each lobby user may hear of (the issue: at 1,000 games the
hall spent the start of a load run at 99% of a core telling 4,000 users of
them).  Nobody answers a request: only the ramp is measured.

Printed: the hall's CPU seconds for the ramp (thread CPU time of everything
the connections' ``dataReceived`` and the clock's calls run), calls of the
NetAcquire sinks' ``lobby_changed``, lobby lines (``LM``) written and bytes
written.  The counts do not depend on the machine; the CPU figure does a
little.  --root runs another checkout's hall (for a before/after).

    python bench/lobby_ramp.py [--games 1000] [--ramp 40] [--step 0.05] [--root DIR]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--ramp", type=float, default=40.0, help="seconds of hall clock the games start over")
    parser.add_argument("--step", type=float, default=0.05, help="hall clock step (seconds)")
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                        help="the checkout whose hall is measured (default: this one)")
    options = parser.parse_args()
    sys.path.insert(0, options.root)

    from twisted.internet.address import IPv4Address
    from twisted.internet.task import Clock
    from twisted.internet.testing import StringTransport

    from gamehall.hall import Hall
    from gamehall.store import MemoryStore
    from gamehall_acquire.wire import protocol as netacquire
    from twisted.plugins.gamehall_acquire_plugin import acquire

    store = MemoryStore()
    store.open()
    hall = Hall(Clock(), store, {"acquire": acquire}, idle_timeout=0, max_per_peer=0, seat_hold=30.0)
    factory = netacquire.build_factory(hall)
    calls = [0]
    told = netacquire.NetAcquireProtocol.lobby_changed

    def counted(self, event, detail):
        calls[0] += 1
        told(self, event, detail)
    netacquire.NetAcquireProtocol.lobby_changed = counted

    users = 4 * options.games
    conns = []
    for i in range(users):
        address = IPv4Address("TCP", "127.0.0.1", 1024 + i)
        proto = factory.buildProtocol(address)
        transport = StringTransport(peerAddress=address)
        proto.makeConnection(transport)
        proto.dataReceived(f"PL;user{i},2,0,4;:".encode())
        conns.append((proto, transport))
    hall.clock.advance(10)                       # the logins' notices are out
    for _, transport in conns:
        transport.clear()
    calls[0] = 0

    script = []                                  # (time, connection, directive)
    for g in range(options.games):
        at = g * options.ramp / options.games
        creator = 4 * g
        script.append((at, creator, "SG;4"))
        script += [(at, creator + k, f"JG;{g + 1},-1") for k in (1, 2, 3)]
        script.append((at, creator, "PG;"))
    written = lines = 0
    spent = 0.0
    now, n = 0.0, 0
    end = options.ramp + 2.0                     # the last window's notices included
    while now <= end:
        t0 = time.thread_time()
        while n < len(script) and script[n][0] <= now:
            _, who, directive = script[n]
            conns[who][0].dataReceived(f"{directive};:".encode())
            n += 1
        hall.clock.advance(options.step)
        spent += time.thread_time() - t0
        now += options.step
        for _, transport in conns:
            data = transport.value()
            if data:
                written += len(data)
                lines += data.count(b"LM;")
                transport.clear()
    started = sum(1 for t in hall.tables.values() if t.state == "playing")
    print(f"lobby_ramp: {options.games} games ({users} NetAcquire users) made, joined and started over "
          f"{options.ramp:.0f} s of hall clock; hall code from {options.root}")
    print(f"  games started: {started}; hall CPU for the ramp {spent:.2f} s "
          f"({spent / max(started, 1) * 1000:.2f} ms per game started)")
    print(f"  lobby_changed calls: {calls[0]:,} ({calls[0] / max(users, 1):.1f} per user); "
          f"lobby lines written: {lines:,}; bytes written: {written:,}")


if __name__ == "__main__":
    main()
