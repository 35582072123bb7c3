"""The engine's state -> the PIMP messages a connection is sent, sans IO.

A PIMP engine speaks PIMP already: its events are the protocol's messages
(``gamehall_pimp.messages``), routed by ``conversation`` and written by ``codec``.
What is left to write here is what a connection is told from the state rather
than from an event: the state dump (and the catch-up to the current point of the
turn) that answers REQUEST_STATE and follows WELCOME_BACK after a REJOIN.
"""
from __future__ import annotations

from .codec import encode


def state_reply(engine, pid: int) -> bytes:
    """REQUEST_STATE's answer for user ``pid``: the state dump, then the catch-up."""
    return b"".join(encode(m.name, m.args) for m in engine.state_dump(pid) + engine.catch_up(pid))


def welcome_back(engine, pid: int) -> bytes:
    """REJOIN's answer for user ``pid``: WELCOME_BACK, then the state dump and the catch-up."""
    u = engine.users[pid]
    frames = [encode("WELCOME_BACK", (pid, u.piece, u.name, u.playing))]
    frames += [encode(m.name, m.args) for m in engine.state_dump(pid) + engine.catch_up(pid)]
    return b"".join(frames)
