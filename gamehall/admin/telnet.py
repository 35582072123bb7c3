"""The operator's console on telnet: login, terminal and transport.

The wiring is conch's manhole-over-telnet:

    TelnetTransport(_OperatorLogin, portal)         username / password prompts
      -> portal -> _ConsoleRealm -> TelnetBootstrapProtocol
           -> insults.ServerProtocol -> AdminShell   line editing, history (arrows)
                                          -> Console  parses and runs commands
                                             (gamehall.admin.commands)

The protections (``AdminFactory``) are described in ``gamehall.admin``.
"""
from __future__ import annotations

import codecs
import ipaddress
from collections.abc import Mapping
from typing import Any

from twisted.conch.insults import insults
from twisted.conch.recvline import HistoricRecvLine
from twisted.conch.telnet import (
    ECHO,
    LINEMODE,
    NAWS,
    SGA,
    AuthenticatingTelnetProtocol,
    ITelnetProtocol,
    TelnetBootstrapProtocol,
    TelnetTransport,
)
from twisted.cred.checkers import ICredentialsChecker
from twisted.cred.credentials import IUsernamePassword, UsernamePassword
from twisted.cred.error import UnauthorizedLogin
from twisted.cred.portal import IRealm, Portal
from twisted.internet.defer import Deferred, fail, maybeDeferred
from twisted.internet.protocol import Protocol, ServerFactory
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from gamehall.admin.commands import Console, printable
from gamehall.connection import (
    DEFAULT_MAX_OUTPUT,
    GuardedTransport,
    Pacer,
    RepeatLog,
    client_text,
    hall_setting,
    quickack,
    release_limits,
    tune_tcp,
)

log = Logger()

MAX_LOGIN_ATTEMPTS = 3        # per connection
MAX_CONNECTIONS = 8           # consoles logged in at once
MAX_WAITING = 8               # consoles not logged in yet (an older one makes room for a new one)
MAX_WAITING_PER_HOST = 3      # of those, from one address
LOGIN_TIMEOUT = 60.0          # seconds from the connection to log in
SESSION_TIMEOUT = 1800.0      # idle seconds once logged in
FAIL_DELAY = 1.0              # seconds the answer to a failed login waits, per failure in a row
LOCKOUT_AFTER = 5             # failures in a row from one peer address...
LOCKOUT = 300.0               # ...lock it out this long


def _address(peer: Any) -> str:
    return f"{peer.host}:{peer.port}" if hasattr(peer, "host") else str(peer)



# ---------------------------------------------------------------------------
# The terminal side.

CTRL_C, CTRL_D = b"\x03", b"\x04"


class AdminShell(HistoricRecvLine):
    """Line editing and history (conch's recvline) in front of a Console."""

    ps = (b"gamehall> ", b"... ")
    log = Logger()

    def __init__(self, hall: Any, operator: str = "admin",
                 installed_frontends: Mapping[str, Any] | None = None) -> None:
        self.hall = hall
        self.operator = operator
        self.installed_frontends = installed_frontends
        self.console: Console | None = None

    def connectionMade(self) -> None:
        self.console = Console(self.hall, self.operator, self._peer(), self.installed_frontends)
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        super().connectionMade()
        self.keyHandlers[CTRL_C] = self.handle_INT
        self.keyHandlers[CTRL_D] = self.handle_EOF

    def _peer(self) -> str:
        # insults.ServerProtocol does not implement getPeer: ask the telnet layer below it.
        try:
            return _address(self.terminal.transport.getPeer())
        except Exception:
            return "?"

    def initializeScreen(self) -> None:
        # Unlike RecvLine, do not reset (clear) the operator's screen.
        self._show(f"gamehall admin console. Logged in as {self.operator}; type help for the commands.")
        self.terminal.write(self.ps[self.pn])
        self.setInsertMode()

    def terminalSize(self, width: int, height: int) -> None:
        # RecvLine erases the display on every NAWS report, wiping the banner
        # and any output: only remember the size.
        self.width, self.height = width, height

    def keystrokeReceived(self, keyID: Any, modifier: Any) -> None:
        # RecvLine accepts only ASCII: assemble UTF-8 so that non-ASCII
        # nicknames can be kicked and announcements can be in any language.
        if isinstance(keyID, bytes) and len(keyID) == 1 and keyID[0] >= 0x80:
            char = self._utf8.decode(keyID)
            if char:
                self.characterReceived(char.encode("utf-8"), False)
            return
        super().keystrokeReceived(keyID, modifier)

    def _deliverBuffer(self, buf: bytes) -> None:
        # History recall: one buffer element per character, not per byte.
        for char in buf.decode("utf-8", "replace"):
            self.characterReceived(char.encode("utf-8"), False)

    def handle_INT(self) -> None:
        self.lineBuffer, self.lineBufferIndex = [], 0
        self.terminal.write(b"^C")
        self.terminal.nextLine()
        self.terminal.write(self.ps[self.pn])

    def handle_EOF(self) -> None:
        if self.lineBuffer:
            self.handle_DELETE()
        else:
            self.terminal.nextLine()
            self.lineReceived(b"quit")

    def connectionLost(self, reason: Any) -> None:
        # recvline's key table holds this shell's bound methods: a cycle per closed console
        # that only the collector's full passes (rare in the hall) would free
        self.keyHandlers = {}
        super().connectionLost(reason)

    def lineReceived(self, line: bytes) -> None:
        d = self.console.execute(line.decode("utf-8", "replace"))
        d.addCallback(self._reply)
        d.addErrback(lambda f: self.log.failure("admin console reply failed", f))

    def _reply(self, text: str) -> None:
        if text:
            self._show(text)
        if self.console.finished:
            # Not terminal.loseConnection(): it resets, i.e. clears, the operator's screen.
            self.terminal.transport.loseConnection()
        else:
            self.terminal.write(self.ps[self.pn])

    def _show(self, text: str) -> None:
        for line in text.splitlines():
            self.terminal.write(printable(line).encode("utf-8", "replace"))
            self.terminal.nextLine()


# ---------------------------------------------------------------------------
# Authentication.


def _other_encoding(value: Any) -> Any:
    """``value`` as str if it is bytes and the reverse; None when there is no such form."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if isinstance(value, str):
        return value.encode("utf-8")
    return None


@implementer(ICredentialsChecker)
class OperatorChecker:
    """Accepts credentials that any of ``checkers`` accepts, as bytes or as str.

    The telnet login hands over bytes; FilePasswordDB compares bytes, other
    checkers str.  A Portal also keeps only one checker per interface, so
    several ``--auth`` options would silently shadow each other: this one
    tries them all, in order.
    """

    credentialInterfaces = (IUsernamePassword,)
    log = Logger()

    def __init__(self, checkers: list) -> None:
        self.checkers = []
        for checker in checkers:
            if IUsernamePassword in getattr(checker, "credentialInterfaces", ()):
                self.checkers.append(checker)
            else:
                # e.g. --auth anonymous: letting it in would open the console to anyone.
                self.log.warn("admin console: checker {checker!r} does not check passwords; ignored",
                              checker=checker)
        if not self.checkers:
            self.log.warn("admin console: no password checker; every login will be refused")

    def requestAvatarId(self, credentials: IUsernamePassword) -> Deferred:
        # Every mix of the two forms: checkers disagree even within one
        # (InMemoryUsernamePasswordDatabaseDontUse keys bytes, may hold str).
        forms = [credentials]
        usernames = [credentials.username, _other_encoding(credentials.username)]
        passwords = [credentials.password, _other_encoding(credentials.password)]
        for username in usernames:
            for password in passwords:
                if None not in (username, password) and \
                        (username, password) != (credentials.username, credentials.password):
                    forms.append(UsernamePassword(username, password))
        attempts = [(checker, form) for checker in self.checkers for form in forms]
        return self._try(attempts, 0)

    def _try(self, attempts: list, index: int) -> Deferred:
        if index >= len(attempts):
            return fail(UnauthorizedLogin())
        checker, form = attempts[index]
        d = maybeDeferred(checker.requestAvatarId, form)

        def refused(failure: Failure) -> Deferred:
            if not failure.check(UnauthorizedLogin):
                self.log.failure("admin console: checker {checker!r} failed", failure, checker=checker)
            return self._try(attempts, index + 1)

        d.addCallbacks(_avatar_name, refused)
        return d


def _avatar_name(avatar_id: Any) -> str:
    if isinstance(avatar_id, bytes):
        return avatar_id.decode("utf-8", "replace")
    return str(avatar_id)


class _Bootstrap(TelnetBootstrapProtocol):
    """conch's telnet-to-terminal bridge, with two rough edges filed off."""

    log = Logger()

    def connectionMade(self) -> None:
        # As conch's, except that a client refusing or ignoring an option
        # (netcat, a script) is normal, not an error with a traceback.
        self.transport.negotiationMap[NAWS] = self.telnet_NAWS
        self.transport.negotiationMap[LINEMODE] = self.telnet_LINEMODE
        for option in (LINEMODE, NAWS, SGA):
            self.transport.do(option).addErrback(self._refused, option)
        self.transport.will(ECHO).addErrback(self._refused, ECHO)
        self.protocol = self.protocolFactory(*self.protocolArgs, **self.protocolKwArgs)
        factory = getattr(self, "factory", None)
        if factory is not None:
            self.protocol.factory = factory
        self.protocol.makeConnection(self)

    def _refused(self, failure: Failure, option: bytes) -> None:
        self.log.debug("telnet option {option!r} not enabled: {why}", option=option,
                       why=failure.getErrorMessage())

    def write(self, data: bytes) -> None:
        # conch turns \n into \r\n here and again in TelnetTransport: the
        # client got \r\r\r\n.  Translate once, below.
        self.transport.write(data.replace(b"\r\n", b"\n"))


@implementer(IRealm)
class _ConsoleRealm:
    """The avatar of a logged-in operator is a telnet protocol running the shell."""

    log = Logger()

    def __init__(self, hall: Any, installed_frontends: Mapping[str, Any]) -> None:
        self.hall = hall
        self.installed_frontends = installed_frontends

    def requestAvatar(self, avatar_id: Any, mind: Any, *interfaces: Any) -> tuple:
        if ITelnetProtocol not in interfaces:
            raise NotImplementedError("the admin console offers only a telnet shell")
        operator = _avatar_name(avatar_id)
        protocol = _Bootstrap(insults.ServerProtocol, AdminShell, self.hall, operator,
                                           self.installed_frontends)
        protocol.operator = operator      # for the login log line
        return ITelnetProtocol, protocol, lambda: self.log.info("admin {operator} logged out", operator=operator)


class _OperatorLogin(AuthenticatingTelnetProtocol):
    """conch's login prompt, made robust: attempt limit, any client, type-ahead."""

    log = Logger()
    attempts = 0

    def _peer(self) -> str:
        return _address(self.transport.getPeer())

    def telnet_User(self, line: bytes) -> str | None:
        line = line.rstrip(b"\r").strip()
        if not line:
            self.transport.write(b"Username: ")
            return None
        self.username = line
        factory = getattr(self.transport, "factory", None)
        if isinstance(factory, AdminFactory):        # see AdminTelnet.login_progress
            self.transport.named_at = factory.hall.clock.seconds()
        # A client that refuses to let us echo is fine: the password is just visible.
        self.transport.will(ECHO).addErrback(lambda f: None)
        self.transport.write(b"Password: ")
        return "Password"

    def telnet_Password(self, line: bytes) -> None:
        username, password = self.username, line.rstrip(b"\r")
        del self.username

        def login(_: object) -> None:
            d = self.portal.login(UsernamePassword(username, password), None, ITelnetProtocol)
            d.addCallbacks(self._cbLogin, self._ebLogin, errbackArgs=(username,))

        # conch waits for the client to acknowledge WONT ECHO and never logs in
        # a client that ignored or refused WILL ECHO (netcat, some scripts):
        # log in whatever the negotiation's outcome.  The state is set here,
        # not returned: a login that completes at once has moved it on already
        # (returning it made conch warn "state changed and new state returned").
        self.state = "Discard"
        self.transport.wont(ECHO).addBoth(login)
        return None

    def _host(self) -> str:
        peer = self.transport.getPeer()
        return getattr(peer, "host", str(peer))

    def _cbLogin(self, ial: tuple) -> None:
        self.log.info("admin {operator} logged in from {peer}",
                      operator=getattr(ial[1], "operator", "?"), peer=self._peer())
        factory = getattr(self.transport, "factory", None)
        if isinstance(factory, AdminFactory):
            factory.login_succeeded(self._host())
        logged_in = getattr(self.transport, "logged_in", None)
        if logged_in is not None:
            logged_in()
        super()._cbLogin(ial)
        # Lines typed ahead in the same packet belong to the shell now, and
        # so does a partial line; conch would look for a "telnet_Command" state.
        rest = self.clearLineBuffer()
        if rest:
            self.protocol.dataReceived(rest)

    def _ebLogin(self, failure: Failure, username: bytes = b"") -> None:
        self.attempts += 1
        user = client_text(_avatar_name(username), 64)
        if failure.check(UnauthorizedLogin):
            # one log line per lockout (AdminFactory), none per guess
            self.log.debug("admin login refused for {user!r} from {peer} ({n}/{max})",
                           user=user, peer=self._peer(), n=self.attempts, max=MAX_LOGIN_ATTEMPTS)
        else:
            self.log.failure("admin login failed for {user!r}", failure, user=user)
        factory = getattr(self.transport, "factory", None)
        locked, delay = False, 0.0
        if isinstance(factory, AdminFactory):
            locked, delay = factory.login_failed(self._host())
        self.state = "Discard"            # what is typed while the answer waits is dropped
        if locked:
            self.transport.write(b"\nAuthentication failed; too many failures from your address. "
                                 b"Try again later.\n")
            self._hang_up()
        elif delay > 0:
            self._answer_call = factory.hall.clock.callLater(delay, self._answer, failure)
        else:
            self._answer(failure)

    def _answer(self, failure: Failure) -> None:
        self._answer_call = None
        if self.attempts >= MAX_LOGIN_ATTEMPTS:
            self.transport.write(b"\nAuthentication failed; goodbye.\n")
            self._hang_up()
            return
        self.clearLineBuffer()
        super()._ebLogin(failure)

    def _hang_up(self) -> None:
        self.state = "Discard"
        self.clearLineBuffer()
        self.transport.loseConnection()

    def connectionLost(self, reason: Any) -> None:
        call = getattr(self, "_answer_call", None)
        if call is not None and call.active():
            call.cancel()
        super().connectionLost(reason)


class AdminTelnet(TelnetTransport):
    """One console connection: conch's telnet, with the hall's limits around it."""

    log = Logger()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._idle = None
        self._pacer: Pacer | None = None
        self._held = b""
        self._socket = None
        self._logged_in = False
        self.closed = False

    def makeConnection(self, transport: Any) -> None:
        limit = hall_setting(self.factory.hall, "max_output", DEFAULT_MAX_OUTPUT)
        super().makeConnection(GuardedTransport(transport, limit, self._overflow))

    def connectionMade(self) -> None:
        hall = self.factory.hall
        self._socket = tune_tcp(self.transport)
        self._pacer = Pacer.for_hall(hall, self.transport, self._drain, self._flooded)
        self._reset_idle()
        super().connectionMade()

    def logged_in(self) -> None:
        self._logged_in = True
        self.factory.login_done(self)
        self._reset_idle()

    def login_progress(self) -> tuple[int, float]:
        """(0, connected at) at the Username prompt; (1, named at) once a name is given and
        the password is being typed (or its answer pending).  The smallest goes first."""
        if getattr(self.protocol, "state", "User") == "User":
            return 0, self.since
        return 1, getattr(self, "named_at", self.since)

    def make_room(self) -> None:
        """This console waited for a login while newer ones came: it goes (AdminFactory)."""
        if self.closed:
            return
        self.write(b"\r\nClosed to make room for a newer console connection; try again.\r\n")
        self.closed = True
        if self._pacer is not None:
            self._pacer.stop()
        self.transport.loseConnection()

    # -- input: rate limited per line, never a traceback --------------------------
    def dataReceived(self, data: bytes) -> None:
        if self._logged_in:               # before login the time counts from the connection
            self._reset_idle()
        quickack(self._socket)
        if self.closed:
            return
        if self._pacer is None:
            self._parse(data)
            return
        self._held += data
        if len(self._held) > 64 * 1024:
            self._flooded()
            return
        self._drain()

    def _drain(self) -> None:
        """Pass held input on, one line (and its end) per token."""
        while self._held and not self.closed:
            cut = min((i for i in (self._held.find(b"\r"), self._held.find(b"\n")) if i >= 0), default=-1)
            if cut < 0:                                   # no line end: a partial line costs nothing
                chunk, self._held = self._held, b""
                self._parse(chunk)
                return
            if cut + 1 < len(self._held) and self._held[cut:cut + 2] in (b"\r\n", b"\r\x00"):
                cut += 1
            if not self._pacer.allow(cut + 1 < len(self._held)):
                return
            chunk, self._held = self._held[:cut + 1], self._held[cut + 1:]
            self._parse(chunk)

    def _parse(self, data: bytes) -> None:
        try:
            super().dataReceived(data)
        except Exception as exc:
            # conch raises on telnet commands it cannot parse (e.g. IAC and an
            # unknown byte): drop the rest of this chunk and go on reading.
            self.state = "data"
            self.log.debug("admin console: telnet input from {peer} not understood: {error}",
                           peer=_address(self.transport.getPeer()), error=client_text(exc, 80))

    def _flooded(self) -> None:
        self.log.info("admin console: {peer} sent too fast for too long; disconnected",
                      peer=_address(self.transport.getPeer()))
        self._abort()

    def _overflow(self) -> None:
        self.log.info("admin console: {peer} left too much output unread; disconnected",
                      peer=_address(self.transport.getPeer()))
        self._abort()

    def _abort(self) -> None:
        if not self.closed:
            self.closed = True
            if self._pacer is not None:
                self._pacer.stop()
            self.transport.abortConnection()

    # -- idleness --------------------------------------------------------------------
    def _reset_idle(self) -> None:
        factory = self.factory
        timeout = factory.session_timeout if self._logged_in else factory.login_timeout
        if self._idle is not None and self._idle.active():
            self._idle.cancel()
        self._idle = factory.hall.clock.callLater(timeout, self._idle_out) if timeout else None

    def _idle_out(self) -> None:
        self._idle = None
        if self.closed:
            return
        self.log.info("admin console: {peer} idle {what}; closed", peer=_address(self.transport.getPeer()),
                      what="too long" if self._logged_in else "without logging in")
        self.write(b"\r\nIdle for too long; goodbye.\r\n")
        self.closed = True
        if self._pacer is not None:
            self._pacer.stop()
        self.transport.loseConnection()

    def connectionLost(self, reason: Any) -> None:
        self.closed = True
        release_limits(self._idle, self._pacer, self.transport)
        self._idle = None
        self._held = b""
        self.factory.connection_closed(self)
        super().connectionLost(reason)
        # conch's telnet keeps its own bound methods (and the bootstrap's, which holds this
        # transport) in these tables: cycles that only the collector's full passes (rare in
        # the hall, gamehall.tap.settle_collector) would free
        self.commandMap = {}
        self.negotiationMap = {}


class _RefuseConsole(Protocol):
    """A console over the cap or from a locked-out peer: one line, then close."""

    def __init__(self, text: bytes) -> None:
        self.text = text

    def connectionMade(self) -> None:
        self.transport.write(self.text)
        self.transport.loseConnection()


class AdminFactory(ServerFactory):
    """Builds one telnet login (then shell) per connection, within the console's limits.

    A new connection always gets a prompt: when consoles waiting for a login are at
    their caps (``MAX_WAITING_PER_HOST`` from its address, ``MAX_WAITING`` in all), an
    older waiting one makes room (``_make_room``), never the newcomer and never a
    logged-in session.  So connections that do not know the password cannot hold the
    operator's out by being there first; they can only take each other's places.
    """

    log = Logger()

    def __init__(self, hall: Any, portal: Portal, max_connections: int = MAX_CONNECTIONS,
                 login_timeout: float = LOGIN_TIMEOUT, session_timeout: float = SESSION_TIMEOUT,
                 max_waiting: int = MAX_WAITING, max_waiting_per_host: int = MAX_WAITING_PER_HOST) -> None:
        self.hall = hall
        self.portal = portal
        self.max_connections = max_connections
        self.max_waiting = max_waiting
        self.max_waiting_per_host = max_waiting_per_host
        self.login_timeout = login_timeout
        self.session_timeout = session_timeout
        self.sessions = 0                            # consoles logged in
        self.waiting: dict[str, list[AdminTelnet]] = {}   # peer host -> consoles not logged in, oldest first
        self.waiting_count = 0
        self.evicted = 0                             # waiting consoles that made room, in all
        self.failures: dict[str, int] = {}          # peer host -> failed logins in a row
        self.locked: dict[str, float] = {}          # peer host -> locked out until
        # One log line now and then, not one per refused connection.
        self.refusals = RepeatLog(hall.clock, 60.0, self._log_refused)

    @property
    def open(self) -> int:
        """Consoles open: logged in and waiting for a login."""
        return self.sessions + self.waiting_count

    def buildProtocol(self, addr: Any) -> Protocol:
        host = getattr(addr, "host", str(addr))
        if self.locked_out(host):
            return _RefuseConsole(b"Too many failed logins from your address; try again later.\r\n")
        if self.max_connections and self.sessions >= self.max_connections:
            # only the password's holders can fill these
            self.refusals.note(f"{self.max_connections} consoles are logged in")
            return _RefuseConsole(b"Too many admin consoles are open; try again later.\r\n")
        self._make_room(host)
        protocol = AdminTelnet(_OperatorLogin, self.portal)
        protocol.factory = self
        protocol.host = host
        protocol.since = self.hall.clock.seconds()
        self.waiting.setdefault(host, []).append(protocol)
        self.waiting_count += 1
        return protocol

    def _make_room(self, host: str) -> None:
        """Close waiting consoles until one from ``host`` fits under both caps.

        Which one goes: from ``host`` itself when it is at its own cap (an address that
        reconnects takes its own places), else from the address that would hold the most
        waiting consoles, the newcomer counted (``host`` on a tie); of those, one still at the Username prompt before one whose
        user has given a name and is typing the password, then the oldest.  An operator
        on an address of their own is never the one to go while another address holds
        two; one typing the password goes after every connection that has typed nothing."""
        while True:
            mine = self.waiting.get(host, ())
            if self.max_waiting_per_host and len(mine) >= self.max_waiting_per_host:
                candidates = list(mine)
            elif self.max_waiting and self.waiting_count >= self.max_waiting:
                # each address's share, the newcomer counted: the one that would hold the most gives
                loads = {h: len(held) + (h == host) for h, held in self.waiting.items()}
                most = max(max(loads.values()), loads.get(host, 1))
                if mine and loads[host] == most:
                    candidates = list(mine)
                else:
                    candidates = [p for h, held in self.waiting.items() if loads[h] == most for p in held]
            else:
                return
            victim = min(candidates, key=AdminTelnet.login_progress)
            self._stop_waiting(victim)
            self.evicted += 1
            self.refusals.note("waiting consoles closed to make room for newer ones (caps: "
                               f"{self.max_waiting_per_host} per address, {self.max_waiting} in all)")
            victim.make_room()

    def login_done(self, protocol: AdminTelnet) -> None:
        self._stop_waiting(protocol)
        self.sessions += 1
        protocol.session = True

    def connection_closed(self, protocol: AdminTelnet) -> None:
        if getattr(protocol, "session", False):
            protocol.session = False
            self.sessions -= 1
        else:
            self._stop_waiting(protocol)

    def _stop_waiting(self, protocol: AdminTelnet) -> None:
        held = self.waiting.get(protocol.host)
        if held is None or protocol not in held:
            return                                   # made room already, or never counted
        held.remove(protocol)
        self.waiting_count -= 1
        if not held:
            del self.waiting[protocol.host]

    def _log_refused(self, why: str, count: int, first: bool) -> None:
        self.log.warn("admin console: {n} connection(s) refused{when}: {why}", n=count, why=why,
                      when="" if first else " in the last minute")

    def stopFactory(self) -> None:
        self.refusals.stop()

    # -- failed logins, per peer address ------------------------------------------------
    def locked_out(self, host: str) -> bool:
        until = self.locked.get(host)
        if until is None:
            return False
        if self.hall.clock.seconds() >= until:
            del self.locked[host]
            return False
        return True

    def login_failed(self, host: str) -> tuple[bool, float]:
        """Count a failure; (locked out now, seconds to wait before answering)."""
        if len(self.failures) > 10000:         # many addresses guessing: forget the old counts
            self.failures.clear()
        count = self.failures.get(host, 0) + 1
        if _local(host):
            # No lockout for this machine's own addresses: anyone on it has all of 127/8 to
            # guess from, so locking one address out stops no guessing; it would only let a
            # local user who guesses wrong on purpose lock the operator out.  The delay grows
            # to its cap and stays there.
            self.failures[host] = min(count, LOCKOUT_AFTER)
            return False, FAIL_DELAY * min(count, LOCKOUT_AFTER)
        if count >= LOCKOUT_AFTER:
            self.failures.pop(host, None)
            self.locked[host] = self.hall.clock.seconds() + LOCKOUT
            self.log.warn("admin console: {host} locked out for {s:g} s after {n} failed logins in a row",
                          host=host, s=LOCKOUT, n=count)
            return True, 0.0
        self.failures[host] = count
        return False, FAIL_DELAY * count

    def login_succeeded(self, host: str) -> None:
        self.failures.pop(host, None)


def _local(host: str) -> bool:
    """A loopback address, or no IP address at all (a UNIX socket): a peer on this machine."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


def admin_factory(hall: Any, checkers: list,
                  installed_frontends: Mapping[str, Any] | None = None) -> ServerFactory:
    """The telnet admin console for ``hall``; ``checkers`` check IUsernamePassword.

    ``installed_frontends`` (name -> IFrontEnd) lets ``plugins`` show front ends
    that are installed but not listening; by default they are discovered now,
    before the reactor runs, rather than on the reactor at each command.
    """
    if installed_frontends is None:
        try:
            from gamehall.plugins import find_frontends
            installed_frontends = find_frontends()
        except Exception:
            log.failure("admin console: cannot list installed front ends")
            installed_frontends = {}
    portal = Portal(_ConsoleRealm(hall, dict(installed_frontends)), [OperatorChecker(list(checkers))])
    return AdminFactory(hall, portal)
