"""The telnet admin console, driven in process over StringTransport."""
from __future__ import annotations

import os
import re
import socket

import pytest
from twisted.conch.telnet import DO, DONT, ECHO, IAC, LINEMODE, NAWS, NOP, SB, SE, SGA, WILL, WONT
from twisted.cred.checkers import AllowAnonymousAccess, FilePasswordDB, InMemoryUsernamePasswordDatabaseDontUse
from twisted.cred.credentials import UsernamePassword
from twisted.cred.error import UnauthorizedLogin
from twisted.cred.strcred import makeChecker
from twisted.internet import defer
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.logger import globalLogPublisher
from zope.interface import implementer

from gamehall.admin import OperatorChecker, admin_factory, format_duration
from gamehall.hall import Hall
from gamehall.interfaces import IGame, IUserSink, IllegalAction
from gamehall.service import GameService

PASSWORD = "s3cret-pässword"


# -- a tiny game, front ends and users ----------------------------------------
class CountEngine:
    """Players take turns saying a number; the game ends after ten moves."""

    def __init__(self, players, seed):
        self.players, self.moves = list(players), 0

    def pending_seat(self):
        return None if self.is_over() else self.moves % len(self.players)

    def apply(self, seat, action):
        if seat != self.pending_seat() or action.get("n") != 1:
            raise IllegalAction("say 1, in turn")
        self.moves += 1
        return [{"seat": seat, "n": 1}]

    def is_over(self):
        return self.moves >= 10

    def result(self):
        return {"scores": [0] * len(self.players), "winners": [], "reason": "counted"}

    def timeout_action(self, seat):
        return {"n": 1}


class CountBot:
    def choose(self, engine, seat):
        return {"n": 1}


def _broken(hall, args):
    raise RuntimeError("boom\nsecond line")


class CountService(GameService):
    admin_commands = {
        "countinfo": (lambda hall, args: f"count tables: {len(hall.tables)} {args}".strip(), "countinfo: count's view"),
        "WHO": (lambda hall, args: "hijacked", "clashes with a built-in, so ignored"),
        "countbroken": (_broken, "always fails"),
        "countlater": (lambda hall, args: defer.succeed("later " + args), "answers with a Deferred"),
    }


@implementer(IGame)
class CountGame:
    name, title = "count", "Count"
    min_seats, max_seats = 2, 3
    variants, bots = ("plain", "long"), ("dumb", "smart")
    turn_timeout = 30

    def new_engine(self, variant, players, seed):
        return CountEngine(players, seed)

    def new_bot(self, name, seed):
        return CountBot()

    def attach(self, hall):
        return CountService(hall, self)


class FrontEnd:
    def __init__(self, name, description, endpoint):
        self.name, self.description, self.default_endpoint = name, description, endpoint

    def build_factory(self, hall):  # pragma: no cover - never listens here
        raise NotImplementedError


LINE = FrontEnd("line", "Count over lines", "tcp:7000")
XML = FrontEnd("xml", "Count over XML", "tcp:7001")


@implementer(IUserSink)
class Sink:
    def __init__(self):
        self.chat, self.events, self.disconnected = [], [], None

    def lobby_chat(self, sender, text):
        self.chat.append((sender, text))

    def lobby_changed(self, event, detail):
        pass

    def table_event(self, table, event, detail):
        self.events.append((table.id, event))

    def disconnect(self, reason):
        self.disconnected = reason


def _store(clock):
    from gamehall.store import MemoryStore
    store = MemoryStore(clock)
    store.open()
    return store


@pytest.fixture
def hall():
    clock = Clock()
    clock.advance(1000)
    hall = Hall(clock, _store(clock), {"count": CountGame()}, {"line": LINE},
                seat_hold=60.0, bot_delay=0.5)
    hall.shutdown_calls = []
    hall.shutdown_hook = lambda: hall.shutdown_calls.append(True)
    return hall


@pytest.fixture
def passwd(tmp_path):
    path = tmp_path / "admin.passwd"
    path.write_text(f"admin:{PASSWORD}\nother:other\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def factory(hall, passwd):
    return admin_factory(hall, [FilePasswordDB(passwd, cache=False)],
                         installed_frontends={"line": LINE, "xml": XML})


def add_user(hall, nickname, frontend="line", address="10.0.0.7:5123"):
    sink = Sink()
    return hall.login(nickname, frontend, sink, address), sink


# -- a telnet client over StringTransport --------------------------------------
_TELNET = re.compile(rb"\xff[\xfb-\xfe].|\xff\xfa.*?\xff\xf0|\xff[\xf0-\xfa]", re.S)
_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\x1b[0-9A-Za-z=>]")


def screen_text(data: bytes) -> str:
    """What an operator would read: no telnet commands, no terminal escapes, no CRs."""
    data = _TELNET.sub(b"", data.replace(b"\xff\xff", b"\x00")).replace(b"\x00", b"\xff")
    return _ANSI.sub(b"", data).replace(b"\r", b"").decode("utf-8", "replace")


class Operator:
    def __init__(self, factory, port=40000):
        self.transport = StringTransport(peerAddress=IPv4Address("TCP", "127.0.0.1", port))
        self.protocol = factory.buildProtocol(self.transport.getPeer())
        self.protocol.makeConnection(self.transport)

    def send(self, data: bytes) -> None:
        self.protocol.dataReceived(data)

    def wait(self, seconds: float) -> None:
        """Let the hall's clock run (answers to failed logins wait)."""
        self.protocol.factory.hall.clock.advance(seconds)

    def read(self) -> str:
        text = screen_text(self.transport.value())
        self.transport.clear()
        return text

    def login(self, user="admin", password=PASSWORD) -> str:
        self.send(user.encode() + b"\r\n")
        self.send(password.encode() + b"\r\n")
        return self.read()

    def run(self, command: str) -> str:
        """The command's output: without its echo and the next prompt."""
        self.read()
        self.send(command.encode() + b"\r\n")
        text = self.read()
        assert text.endswith("gamehall> ") or self.closed, text
        lines = text.removesuffix("gamehall> ").split("\n")
        return "\n".join(lines[1:]).strip("\n")

    @property
    def closed(self) -> bool:
        return self.transport.disconnecting


@pytest.fixture
def op(factory):
    operator = Operator(factory)
    assert "logged in as admin" in operator.login().lower()
    return operator


# -- login ---------------------------------------------------------------------
def test_prompts_for_username_then_password(factory):
    operator = Operator(factory)
    assert operator.read() == "Username: "
    operator.send(b"admin\r\n")
    raw = operator.transport.value()
    assert IAC + WILL + ECHO in raw        # the password is not echoed by a telnet client
    assert screen_text(raw) == "Password: "


def test_login_with_file_password_db(factory):
    operator = Operator(factory)
    text = operator.login()
    assert "gamehall admin console. Logged in as admin" in text
    assert text.endswith("gamehall> ")
    assert "No users connected." == operator.run("who")


def test_wrong_password_is_refused_and_asked_again(factory):
    operator = Operator(factory)
    text = operator.login(password="wrong")
    assert "Authentication failed" not in text          # the answer to a failure waits a second
    operator.wait(1)
    text = operator.read()
    assert "Authentication failed" in text and text.endswith("Username: ")
    assert "Logged in" not in text and not operator.closed
    assert "Logged in as admin" in operator.login()


def test_three_failures_disconnect(factory):
    operator = Operator(factory)
    operator.login(password="a")
    operator.wait(1)
    operator.login(password="b")
    operator.wait(2)
    assert not operator.closed
    operator.login(password="c")
    operator.wait(3)
    assert "goodbye" in operator.read() and operator.closed


def test_commands_before_login_do_nothing(factory, hall):
    add_user(hall, "alice")
    operator = Operator(factory)
    operator.read()
    operator.send(b"who\r\n")           # taken as a username
    operator.send(b"shutdown\r\n")      # taken as its password
    operator.send(b"yes\r\n")
    operator.wait(1)
    text = operator.read()
    assert "alice" not in text and "Authentication failed" in text
    assert hall.shutdown_calls == [] and hall.lobby.find("alice") is not None


def test_type_ahead_after_the_password_reaches_the_shell(factory, hall):
    add_user(hall, "alice")
    operator = Operator(factory)
    operator.send(f"admin\r\n{PASSWORD}\r\nwho\r\n".encode())
    assert "alice" in operator.read()


def test_checker_accepts_bytes_and_str_credentials(passwd):
    checker = OperatorChecker([FilePasswordDB(passwd)])
    for user, password in (("admin", PASSWORD), (b"admin", PASSWORD.encode())):
        assert checker.requestAvatarId(UsernamePassword(user, password)).result == "admin"
    failures = []
    checker.requestAvatarId(UsernamePassword(b"admin", b"nope")).addErrback(failures.append)
    assert len(failures) == 1 and failures[0].check(UnauthorizedLogin)


def test_strcred_file_checker_over_telnet(hall, passwd):
    # What `twistd gamehall --auth file:PATH` hands over.
    operator = Operator(admin_factory(hall, [makeChecker(f"file:{passwd}")], installed_frontends={}))
    assert "Logged in as admin" in operator.login()


def test_every_checker_is_tried_and_str_checkers_work(hall, passwd):
    memory = InMemoryUsernamePasswordDatabaseDontUse(root="rootpw")   # str keys, str passwords
    factory = admin_factory(hall, [FilePasswordDB(passwd), memory], installed_frontends={})
    assert "Logged in as root" in Operator(factory).login("root", "rootpw")
    assert "Logged in as admin" in Operator(factory).login("admin", PASSWORD)


def test_anonymous_checker_lets_nobody_in(hall):
    operator = Operator(admin_factory(hall, [AllowAnonymousAccess()], installed_frontends={}))
    operator.login("anyone", "")
    operator.wait(1)
    assert "Authentication failed" in operator.read()


def test_telnet_negotiation_does_not_break_login_or_shell(factory, hall):
    add_user(hall, "alice")
    operator = Operator(factory)
    operator.read()
    operator.send(IAC + DO + SGA + IAC + WILL + b"\x18")          # unsolicited client offers
    operator.send(b"adm" + IAC + NOP + b"in\r\n")
    operator.send(IAC + DO + ECHO)                                 # accepts our WILL ECHO
    operator.send(PASSWORD.encode() + b"\r\n")
    raw = operator.transport.value()
    assert IAC + WONT + ECHO in raw
    operator.send(IAC + DONT + ECHO)                               # acknowledges WONT ECHO
    assert "Logged in as admin" in operator.read()
    # what a real client answers to the shell's DO LINEMODE / NAWS / SGA, WILL ECHO
    operator.send(IAC + WONT + LINEMODE + IAC + WILL + NAWS + IAC + WILL + SGA + IAC + DO + ECHO)
    operator.send(IAC + SB + NAWS + b"\x00\x50\x00\x18" + IAC + SE)
    output = operator.run("who")
    assert "alice" in output


def test_line_editing_history_and_control_keys(op, hall):
    add_user(hall, "alice")
    op.read()
    op.send(b"whx\x7fo\r\x00")                 # backspace, then Enter as a character-mode client sends it
    assert "alice" in op.read()
    op.send(b"\x1b[A\r\x00")                   # up arrow recalls "who"
    assert "alice" in op.read()
    op.send(b"tabl\x03")                       # ctrl-C drops the line
    op.send(b"\r\x00")
    assert "TABLE" not in op.read()
    op.send(b"\x04")                           # ctrl-D on an empty line quits
    assert op.closed


# -- commands ------------------------------------------------------------------
def test_help_lists_builtins_and_game_commands(op):
    text = op.run("help")
    for name in ("help", "who", "tables", "plugins", "say", "kick", "close", "bot", "stats",
                 "shutdown", "quit", "exit", "countinfo"):
        assert re.search(rf"^\s+{name}\s", text, re.M), name
    assert "clashes" not in text


def test_unknown_command(op):
    assert op.run("frobnicate now") == "error: unknown command 'frobnicate'; type help for the list"
    assert op.run("") == ""


def test_who(op, hall):
    add_user(hall, "alice", "line", "10.0.0.7:5123")
    add_user(hall, "Zoë", "xml", "10.0.0.8:6000")
    bob, _ = add_user(hall, "bob")
    carol, _ = add_user(hall, "carol")
    table = hall.create_table("count", creator=bob)
    table.watch(carol)
    lines = op.run("who").splitlines()
    assert lines[0].split() == ["NICKNAME", "FRONT", "END", "ADDRESS", "WHERE"]
    assert lines[1].split() == ["alice", "line", "10.0.0.7:5123", "in", "lobby"]
    assert "waiting at game #1" in lines[2] and lines[2].startswith("bob")    # not started: not "playing"
    assert "watching game #1" in lines[3]
    assert lines[4].split()[:2] == ["Zoë", "xml"]
    assert lines[-1] == "4 users"


def test_tables(op, hall):
    assert op.run("tables") == "No tables."
    alice, _ = add_user(hall, "alice")
    bob, _ = add_user(hall, "bob")
    carol, _ = add_user(hall, "carol")
    waiting = hall.create_table("count", variant="long", creator=alice)
    waiting.add_bot("smart")
    playing = hall.create_table("count", creator=bob)
    playing.watch(carol)
    dave, _ = add_user(hall, "dave")
    playing.join(dave)
    playing.start(bob)
    hall.logout(dave)                           # dave's seat is held for a reconnect
    lines = op.run("tables").splitlines()
    assert lines[0].split() == ["TABLE", "GAME", "VARIANT", "STATE", "SEATS", "SPECTATORS"]
    assert lines[1].split()[:4] == ["#1", "count", "long", "waiting"]
    assert "2/3: alice (human), SmartBot1 (bot smart)" in lines[1] and lines[1].endswith("none")
    assert lines[2].split()[:4] == ["#2", "count", "plain", "playing"]
    assert "bob (human), dave (held)" in lines[2] and lines[2].endswith("carol")
    assert lines[-1] == "2 tables"


def test_plugins(op):
    text = op.run("plugins")
    games, fronts = text.split("Front ends:")
    assert re.search(r"count\s+Count\s+2-3 seats\s+variants: plain, long\s+bots: dumb, smart\s+turn 30s", games)
    assert re.search(r"line\s+Count over lines\s+default tcp:7000\s+listening", fronts)
    assert re.search(r"xml\s+Count over XML\s+default tcp:7001\s+not listening", fronts)


def test_stats(op, hall):
    hall.stats.connections.update({"line": 2})
    hall.stats.connections_total.update({"line": 5, "xml": 1})
    hall.stats.messages_in.update({"line": 40})
    hall.stats.messages_out.update({"line": 90, "xml": 3})
    hall.stats.refused.update({"per-peer cap": 2, "bad frame": 1})
    hall.stats.actions = 12
    alice, _ = add_user(hall, "alice")
    hall.create_table("count", creator=alice)
    for _ in range(2):
        hall.clock.advance(1800 - 1)        # an operator idle for 30 minutes is logged out
        op.send(b"\x1b[A\x1b[B")             # arrow keys: activity, not a command
    hall.clock.advance(3600 + 2 * 60 + 5 - 2 * (1800 - 1))
    lines = op.run("stats").splitlines()
    assert lines[0] == "Uptime 1:02:05"
    assert lines[1].split() == ["FRONT", "END", "OPEN", "TOTAL", "MSGS", "IN", "MSGS", "OUT"]
    assert lines[2].split() == ["line", "2", "5", "40", "90"]
    assert lines[3].split() == ["xml", "0", "1", "0", "3"]
    assert "Tables: waiting 1, playing 0" in lines
    assert "Refused: 3 (bad frame 1, per-peer cap 2)" in lines
    assert "Actions applied: 12" in lines
    assert lines[-1] == f"Process {socket.gethostname()}:{os.getpid()} (pid {os.getpid()})"


def test_format_duration():
    assert format_duration(0) == "0:00:00"
    assert format_duration(59.9) == "0:00:59"
    assert format_duration(27 * 3600 + 61) == "27:01:01"


def test_say_reaches_every_lobby(op, hall):
    _, alice = add_user(hall, "alice")
    _, zoe = add_user(hall, "Zoë", "xml")
    assert op.run("say Server restarts at 22:00 — sorry") == "Announcement sent to 2 users."
    assert alice.chat == zoe.chat == [("*", "Server restarts at 22:00 — sorry")]
    assert op.run("say") == "error: usage: say TEXT"


def test_kick(op, hall):
    _, alice = add_user(hall, "alice")
    _, zoe = add_user(hall, "Zoë")
    assert op.run("kick ALICE") == "Kicked alice (line)."
    assert alice.disconnected and hall.lobby.find("alice") is None
    assert op.run("kick Zoë") == "Kicked Zoë (line)."
    assert zoe.disconnected
    assert op.run("kick nobody") == "error: No user called nobody"
    assert op.run("kick") == "error: usage: kick USER"


def test_close(op, hall):
    alice, sink = add_user(hall, "alice")
    table = hall.create_table("count", creator=alice)
    assert op.run(f"close #{table.id}") == f"Closed game #{table.id}."
    assert hall.tables == {} and (table.id, "aborted") in sink.events and alice.table is None
    assert op.run("close 99") == "error: No game #99"
    assert op.run("close x").startswith("error: TABLE must be a table number")


def test_bot(op, hall):
    alice, _ = add_user(hall, "alice")
    bob, bob_sink = add_user(hall, "bob")
    table = hall.create_table("count", creator=alice)
    assert op.run(f"bot {table.id} 1") == f"error: Game #{table.id} is not being played"
    table.join(bob)
    table.start(alice)
    assert op.run(f"bot {table.id} 2 smart") == f"Game #{table.id} seat 2 (bob) is now played by bot smart."
    assert table.seats[1].kind == "bot" and bob.table is None
    assert "bob (bot smart)" in op.run("tables")
    assert op.run(f"bot {table.id} 5") == f"error: Game #{table.id} has no seat 5"
    assert op.run(f"bot {table.id} 1 genius").startswith("error: Unknown bot 'genius'")
    assert op.run(f"bot {table.id} 0") == "error: SEAT counts from 1"
    assert op.run("bot 1").startswith("error: usage: bot TABLE SEAT [BOTNAME]")


def test_shutdown_asks_first(op, hall):
    _, alice = add_user(hall, "alice")
    assert op.run("shutdown") == "Shut the hall down and disconnect 1 user? Type yes to confirm."
    assert op.run("no") == "Shutdown cancelled."
    assert hall.shutdown_calls == [] and alice.disconnected is None
    op.run("shutdown")
    assert op.run("yes") == "Shutting down."
    assert hall.shutdown_calls == [True] and alice.disconnected


@pytest.mark.parametrize("command", ["quit", "exit", "QUIT"])
def test_quit(op, command):
    op.read()
    op.send(command.encode() + b"\r\n")
    raw = op.transport.value()
    assert raw.endswith(b"\r\nBye.\r\n")         # one CR per line, and no screen reset (ESC c)
    assert b"\r\r" not in raw and b"\x1bc" not in raw
    assert op.closed


def test_game_plugin_commands(op, hall):
    assert op.run("countinfo x") == "count tables: 0 x"
    assert op.run("who") == "No users connected."       # a clashing game command is ignored
    assert op.run("countlater now") == "later now"


def test_unexpected_failure_is_one_line_and_logged(op):
    logged = []
    globalLogPublisher.addObserver(logged.append)
    try:
        text = op.run("countbroken")
    finally:
        globalLogPublisher.removeObserver(logged.append)
    assert text == "error: countbroken failed: RuntimeError: boom second line (details in the log)"
    assert "Traceback" not in text
    assert any(e.get("log_failure") is not None and e.get("name") == "countbroken" for e in logged)


def test_control_characters_never_reach_the_terminal(op, hall):
    add_user(hall, "alice", address="1.2.3.4:5\x1b[2J")
    op.read()
    op.send(b"who\r\n")
    raw = op.transport.value()
    assert b"\x1b[2J" not in raw and "1.2.3.4:5?[2J" in screen_text(raw)
