"""Random and malformed lines from several connections at once: never a crash, never a stall."""
from __future__ import annotations

import random

from twisted.logger import globalLogPublisher

from gamehall_et.wire.protocol import build_factory

from .harness import Conn, et_hall

WORDS = ["name", "who", "say", "ask", "accept", "decline", "board", "ansiboard", "hand", "score", "pass",
         "discard", "leaderadd", "leadermove", "leadertake", "catastrophe", "tile", "add", "resolve",
         "build", "take", "password", "takeover", "abort", "e+t", "restore", "red", "green", "blue",
         "black", "-", "0", "1", "2", "3", "15", "10", "99", "-1", "x", "\u00e9t\u00e9", ""]


def test_random_lines_never_crash_a_connection_or_the_hall():
    failures = []

    def observer(event):
        if event.get("log_failure") is not None:
            failures.append(event)
    globalLogPublisher.addObserver(observer)
    try:
        rng = random.Random(3)
        hall = et_hall()
        factory = build_factory(hall)
        conns = [Conn(factory) for _ in range(4)]
        for i, c in enumerate(conns):
            c.send(f"name f{i}")
        ids = [c.id for c in conns]
        conns[0].send(f"ask {ids[1]} {ids[2]} 0 e+t")
        conns[1].send("accept")
        conns[2].send("accept")
        for step in range(3000):
            c = rng.choice(conns)
            if rng.random() < 0.5:
                line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
            else:
                verb = rng.choice(["tile red", "tile blue", "leaderadd green", "catastrophe", "take",
                                   "add red", "resolve red", "build", "discard red 1 green 0 blue 0 black"])
                line = f"{verb} {rng.randint(0, 15)} {rng.randint(0, 10)}"
            c.proto.dataReceived(line.encode("utf-8", "replace") + rng.choice([b"\r\n", b"\n"]))
            c.lines()
            if step % 50 == 0:
                hall.clock.advance(1)
            assert not c.proto.closing or "quit" in line, line
        assert not failures
    finally:
        globalLogPublisher.removeObserver(observer)
