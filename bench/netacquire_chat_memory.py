"""How much the hall's heap grows while NetAcquire users chat unique lines.

Two NetAcquire connections in process (StringTransport, what was written is
thrown away as it comes); one sends N unique lobby lines (``BM;Lobby``) and
N unique game room lines, which the other receives.  Prints the heap growth
measured by tracemalloc and the wire cache's size.  Never asserted.

    python bench/netacquire_chat_memory.py [--lines 50000]
"""
from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from pathlib import Path

from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gamehall_acquire.wire import encoded, protocol  # noqa: E402
from tests.netacquire.harness import acquire_hall  # noqa: E402


def connect(factory, name: str, port: int):
    proto = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", port))
    transport = StringTransport()
    proto.makeConnection(transport)
    proto.dataReceived(f"PL;{name},2,0,4;:".encode())
    transport.clear()
    return proto, transport


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=50000)
    args = parser.parse_args()
    hall = acquire_hall()
    factory = protocol.build_factory(hall)
    (ann, ann_out), (bob, bob_out) = connect(factory, "Ann", 1), connect(factory, "Bob", 2)
    ann.dataReceived(b"SG;2;:")
    bob.dataReceived(b"JG;1,-1;:")
    ann_out.clear()
    bob_out.clear()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for i in range(args.lines):
        text = f"unique chat line number {i}, padded to the length of a sentence or two"
        ann.dataReceived(f'BM;Lobby,"{text}";:BM;Game Room,"{text}";:'.encode())
        if i % 100 == 0:
            ann_out.clear()
            bob_out.clear()
    ann_out.clear()
    bob_out.clear()
    gc.collect()
    after = tracemalloc.take_snapshot()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    print(f"{args.lines} unique lobby lines and {args.lines} unique game room lines: "
          f"heap grew by {grown / 1e6:.2f} MB; wire cache {len(encoded.WIRE_CACHE)} entries "
          f"(at most {encoded.WIRE_CACHE_SIZE})")


if __name__ == "__main__":
    main()
