"""The admin console's protections: connection cap, idle timeouts, failed-login delay and
lockout, rate limit, output cap, garbage telnet negotiation, a quiet log on a normal login."""
from __future__ import annotations

import random

import pytest
from twisted.conch.telnet import IAC, SB, SE
from twisted.cred.checkers import FilePasswordDB
from twisted.internet.address import IPv4Address
from twisted.internet.error import ConnectionDone
from twisted.python.failure import Failure
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.logger import LogLevel, formatEvent, globalLogPublisher

from gamehall.admin import (
    FAIL_DELAY,
    LOCKOUT,
    LOCKOUT_AFTER,
    LOGIN_TIMEOUT,
    MAX_WAITING_PER_HOST,
    MAX_CONNECTIONS,
    SESSION_TIMEOUT,
    admin_factory,
)
from gamehall.hall import Hall
from tests.test_admin import LINE, PASSWORD, CountGame, Operator, _store, screen_text
from tests.test_wire_limits import SlowTransport


def make_hall(games=None, **kw) -> Hall:
    clock = Clock()
    clock.advance(1000)
    games = {"count": CountGame()} if games is None else games
    return Hall(clock, _store(clock), games, {"line": LINE}, **kw)


@pytest.fixture
def passwd(tmp_path):
    path = tmp_path / "admin.passwd"
    path.write_text(f"admin:{PASSWORD}\n", encoding="utf-8")
    return str(path)


def console(hall, passwd):
    return admin_factory(hall, [FilePasswordDB(passwd, cache=False)], installed_frontends={"line": LINE})


@pytest.fixture
def logged():
    events: list = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


def at_least(events, level):
    return [e for e in events if e.get("log_level", LogLevel.info) >= level]


class Peer(Operator):
    """An operator at a chosen address and over a chosen transport."""

    def __init__(self, factory, host="127.0.0.1", port=40000, transport=None):
        address = IPv4Address("TCP", host, port)
        self.transport = transport or StringTransport(peerAddress=address)
        self.transport.peerAddr = address
        self.protocol = factory.buildProtocol(address)
        self.protocol.makeConnection(self.transport)

    def lose(self):
        self.transport.loseConnection()
        self.protocol.connectionLost(Failure(ConnectionDone()))


# -- connections ---------------------------------------------------------------------
def test_at_most_eight_consoles_and_many_idle_ones_are_refused(passwd, logged):
    hall = make_hall()
    factory = console(hall, passwd)
    open_ = [Peer(factory, host=f"192.0.2.{i}") for i in range(MAX_CONNECTIONS)]   # one address may not
    assert all(not p.closed for p in open_)
    refused = [Peer(factory, port=41000 + i) for i in range(520)]       # the fd exhaustion of old
    assert all(p.closed for p in refused) and factory.open == MAX_CONNECTIONS
    assert "Too many admin consoles" in refused[0].read()
    assert len([e for e in logged if "refused" in formatEvent(e)]) == 1
    open_[0].lose()
    late = Peer(factory, port=42000)
    assert not late.closed and "logged in as admin" in late.login().lower()


def test_a_console_that_does_not_log_in_is_closed(passwd):
    hall = make_hall()
    peer = Peer(console(hall, passwd))
    peer.send(b"adm")
    hall.clock.advance(LOGIN_TIMEOUT - 1)
    assert not peer.closed
    hall.clock.advance(1)
    assert peer.closed and "Idle" in peer.read()


def test_a_logged_in_console_idle_for_long_is_closed(passwd):
    hall = make_hall()
    peer = Peer(console(hall, passwd))
    assert "Logged in as admin" in peer.login()
    hall.clock.advance(LOGIN_TIMEOUT * 2)
    assert "help" in peer.run("help")
    hall.clock.advance(SESSION_TIMEOUT - 1)
    assert not peer.closed
    hall.clock.advance(1)
    assert peer.closed


# -- failed logins ------------------------------------------------------------------
def test_each_failure_delays_the_answer_more(passwd):
    hall = make_hall()
    peer = Peer(console(hall, passwd))
    peer.login(password="wrong")
    hall.clock.advance(FAIL_DELAY * 0.9)
    assert "Authentication failed" not in peer.read()
    hall.clock.advance(FAIL_DELAY * 0.2)
    assert peer.read().endswith("Username: ")
    peer.login(password="wrong again")
    hall.clock.advance(FAIL_DELAY * 1.5)
    assert "Authentication failed" not in peer.read()      # the second waits twice as long
    hall.clock.advance(FAIL_DELAY)
    assert "Authentication failed" in peer.read()


def test_a_peer_guessing_is_locked_out_with_one_log_line(passwd, logged):
    hall = make_hall()
    factory = console(hall, passwd)
    guesses, peer = 0, None
    while guesses < LOCKOUT_AFTER:
        if peer is not None:
            peer.lose()                       # (its address may hold only a few waiting consoles)
        peer = Peer(factory, port=43000 + guesses)
        for _ in range(2):
            if guesses == LOCKOUT_AFTER or peer.closed:
                break
            peer.login(password=f"guess{guesses}")
            guesses += 1
            hall.clock.advance(FAIL_DELAY * LOCKOUT_AFTER)
    assert peer.closed
    locked = Peer(factory, port=44000)
    assert locked.closed and "Too many failed logins" in locked.read()
    other = Peer(factory, host="10.1.2.3", port=44001)                 # other addresses are not locked
    assert "Logged in as admin" in other.login()
    lockouts = [formatEvent(e) for e in logged if "locked out" in formatEvent(e)]
    assert len(lockouts) == 1 and "127.0.0.1" in lockouts[0]
    assert not [e for e in at_least(logged, LogLevel.warn) if "refused for" in formatEvent(e)]  # no line per guess
    hall.clock.advance(LOCKOUT)
    again = Peer(factory, port=44002)
    assert "Logged in as admin" in again.login()


def test_a_success_resets_the_count(passwd):
    hall = make_hall()
    factory = console(hall, passwd)
    for round_ in range(3):
        peer = Peer(factory, port=45000 + round_)
        for _ in range(LOCKOUT_AFTER - 2):         # 3 failures: the connection's own limit
            peer.login(password="typo")
            hall.clock.advance(FAIL_DELAY * LOCKOUT_AFTER)
        assert peer.closed
        peer.lose()
        good = Peer(factory, port=45200 + round_)
        assert "Logged in as admin" in good.login()
        good.lose()
    assert not factory.locked and not factory.failures


# -- rate and output ----------------------------------------------------------------
def test_lines_are_rate_limited_after_login(passwd):
    hall = make_hall(rate=5, burst=5)
    peer = Peer(console(hall, passwd))
    assert "Logged in as admin" in peer.login()          # 2 lines of the burst
    peer.read()
    peer.send(b"tables\r\n" * 10)
    assert peer.read().count("No tables.") == 3
    assert peer.transport.producerState == "paused"
    for _ in range(30):
        hall.clock.advance(0.1)
    assert peer.read().count("No tables.") == 7
    assert peer.transport.producerState == "producing" and not peer.closed


def test_an_operator_who_stops_reading_is_dropped(passwd, logged):
    hall = make_hall(max_output=5000)
    peer = Peer(console(hall, passwd), transport=SlowTransport(2000))
    peer.send(f"admin\r\n{PASSWORD}\r\n".encode())
    for _ in range(100):
        if peer.transport.disconnected:
            break
        peer.send(b"help\r\n")
    assert peer.transport.disconnected
    assert len(peer.transport.value()) <= 2000 + 5000 + 4000
    assert len([e for e in logged if "unread" in formatEvent(e)]) == 1


# -- garbage before login -------------------------------------------------------------
GARBAGE = [
    IAC + b"\x00",                               # IAC and a byte that is no command
    IAC + b"\x01\x02\x03",
    IAC + SB + b"\x1f" + b"x" * 5000,            # subnegotiation without end
    IAC + SB + IAC + b"\x41",
    IAC + SE,
    IAC + b"\xfb",                               # WILL without an option, then more
    IAC + b"\xfd\x01" * 50 + IAC + b"\xfe\x01" * 50 + IAC + b"\xfc\x01" * 50,
    b"\r\x00\r\r\n\n\x00\xff",
]


def test_garbage_telnet_before_login_leaves_no_traceback(passwd, logged):
    hall = make_hall(rate=1000, burst=1000)
    factory = console(hall, passwd)
    rng = random.Random(9)
    for i in range(60):
        peer = Peer(factory, port=46000 + i)
        chunks = list(GARBAGE) if i == 0 else [
            bytes(rng.choice((0xff, 0xfa, 0xf0, 0xfb, 0xfd, rng.randrange(256))) for _ in range(rng.randrange(1, 400)))
            for _ in range(5)]
        for chunk in chunks:
            if peer.closed:
                break
            peer.send(chunk)
        if not peer.closed:
            peer.lose()
        hall.clock.advance(10)
    bad = [e for e in logged if e.get("log_failure") is not None or e.get("log_level") in (LogLevel.error,
                                                                                              LogLevel.critical)]
    assert bad == [], [formatEvent(e) for e in bad]
    # the console still works, after garbage on the same connection too
    peer = Peer(factory, port=47000)
    peer.send(IAC + b"\x00" + IAC + b"\x07")
    peer.read()
    assert "Logged in as admin" in peer.login()
    assert "No users connected." == peer.run("who")


def test_a_normal_login_logs_no_warning(passwd, logged):
    hall = make_hall(games={}, rate=50, burst=200)      # (CountGame's clashing command warns, on purpose)
    peer = Peer(console(hall, passwd))
    assert "Logged in as admin" in peer.login()
    assert peer.run("who") == "No users connected."
    peer.run("quit")
    assert at_least(logged, LogLevel.warn) == [], [formatEvent(e) for e in at_least(logged, LogLevel.warn)]
    assert screen_text(b"") == ""


# -- issue 15: pre-login connections cannot keep the operator out ------------------------
def test_the_login_time_counts_from_the_connection_not_the_last_byte(passwd):
    hall = make_hall()
    peer = Peer(console(hall, passwd))
    for _ in range(2):
        hall.clock.advance(20)
        peer.send(b"a")                               # a byte every 20 s used to restart the timer
    hall.clock.advance(LOGIN_TIMEOUT - 40 - 1)
    assert not peer.closed
    hall.clock.advance(1)
    assert peer.closed and "Idle" in peer.read()


def test_an_operator_logs_in_while_trickling_consoles_try_to_hold_every_slot(passwd, logged):
    hall = make_hall()
    factory = console(hall, passwd)
    trickling = [Peer(factory, host="192.0.2.66", port=40000 + i) for i in range(MAX_CONNECTIONS)]
    waiting = [p for p in trickling if not p.closed]
    assert len(waiting) == MAX_WAITING_PER_HOST
    assert "waiting for a login" in trickling[-1].read()
    for _ in range(2):
        hall.clock.advance(20)
        for p in waiting:
            p.send(b"x")
    operator = Peer(factory, host="198.51.100.7")
    assert "logged in as admin" in operator.login().lower()
    hall.clock.advance(LOGIN_TIMEOUT - 40)
    assert all(p.closed for p in waiting)
    for p in waiting:
        p.lose()
    # The same address may try again once its consoles have gone, and a login frees its slot.
    again = [Peer(factory, host="192.0.2.66", port=43000 + i) for i in range(MAX_WAITING_PER_HOST)]
    assert not any(p.closed for p in again)
    assert "logged in as admin" in again[0].login().lower()
    assert not Peer(factory, host="192.0.2.66", port=44000).closed
    assert not any(e.get("log_failure") for e in logged)
