"""The operator's console: a telnet shell onto a running hall.

``admin_factory(hall, checkers)`` returns the ``ServerFactory`` that ``tap.py``
puts on the ``--admin`` endpoint.  Two modules: ``commands`` (the commands and
``Console``, their interpreter: strings in, text out) and ``telnet`` (login,
terminal, transport and their limits).  The wiring is conch's manhole-over-telnet:

    TelnetTransport(_OperatorLogin, portal)         username / password prompts
      -> portal -> _ConsoleRealm -> TelnetBootstrapProtocol
           -> insults.ServerProtocol -> AdminShell   line editing, history (arrows)
                                          -> Console  parses and runs commands

Nothing is reachable before a login succeeds; three failed logins close the
connection.  ``Console`` knows nothing about terminals, so another transport
(SSH, a test) can drive it with plain strings.

Protections (``AdminFactory``; times on the hall's clock): a new connection
always gets a prompt.  At most ``MAX_WAITING`` consoles wait for a login, at
most ``MAX_WAITING_PER_HOST`` of them from one address; one more does not wait
outside but takes the place of an older waiting one (its own address's when
that is at its cap, else one of the address that would hold the most; one at
the Username prompt before one typing the password; the oldest), so consoles
that never log in, however quickly they come back, cannot keep an operator
from another address out.  ``MAX_CONNECTIONS`` consoles may be logged in at
once (one more is told so and closed: only the password's holders fill them).
A console is closed ``LOGIN_TIMEOUT`` seconds after it connected unless it has
logged in by then (input does not extend that time), and after
``SESSION_TIMEOUT`` idle seconds once logged in; each failed login delays the
answer by ``FAIL_DELAY`` seconds per failure of that peer in a row, and after
``LOCKOUT_AFTER`` failures in a row a remote peer is locked out for
``LOCKOUT`` seconds (one log line per lockout, none per guess; never a
loopback or UNIX-socket peer: see ``AdminFactory.login_failed``); output is
capped and input lines rate limited as for the front ends (``gamehall.connection``);
telnet negotiation that conch cannot parse is dropped without a traceback.

Commands
--------
``help``, ``who``, ``tables``, ``plugins``, ``stats``, ``say TEXT``,
``kick USER``, ``close TABLE``, ``bot TABLE SEAT [BOTNAME]``, ``shutdown``
(asks for ``yes`` first), ``quit`` / ``exit``.  Every error is one line
starting with ``error:``; unexpected exceptions are logged, never shown as a
traceback.  In a hall of several processes (``hall.cluster``) ``who``, ``kick``,
``say`` and ``stats`` cover every process, and ``close``/``bot`` on a table another
process runs are asked of it (gamehall.cluster.presence and .operator); a command
whose answer comes from another process replies once it has come (a Deferred).

Extending the console
---------------------
``BUILTIN_COMMANDS`` maps a command name to ``(handler, help)`` where
``handler(console, args) -> str | None``; a new built-in is one entry.

A game may contribute commands through its service in the hall (the
``IGameService`` its ``IGame.attach`` returns, in ``hall.services``)::

    admin_commands = {
        "windward": (windward_view, "windward TABLE: show a Windward table"),
    }

where ``windward_view(hall, args: str) -> str`` (or a Deferred firing with a
str).  Raise ``ValueError`` (``TableError``, ``LobbyError``...) with a
one-line reason for an operator mistake.  Names are case-insensitive; a name
that clashes with a built-in or an earlier game's command is ignored with a
warning in the log.
"""
from gamehall.admin.commands import (
    BUILTIN_COMMANDS,
    TABLE_STATES,
    CommandError,
    Console,
    Handler,
    _cmd_say,  # noqa: F401 (tests/pimp/test_hall_bots.py imports it from here)
    format_duration,
    game_commands,
    printable,
)
from gamehall.admin.telnet import (
    FAIL_DELAY,
    LOCKOUT,
    LOCKOUT_AFTER,
    LOGIN_TIMEOUT,
    MAX_CONNECTIONS,
    MAX_LOGIN_ATTEMPTS,
    MAX_WAITING,
    MAX_WAITING_PER_HOST,
    SESSION_TIMEOUT,
    AdminFactory,
    AdminShell,
    AdminTelnet,
    OperatorChecker,
    admin_factory,
)

__all__ = [
    "BUILTIN_COMMANDS", "TABLE_STATES", "CommandError", "Console", "Handler", "format_duration",
    "game_commands", "printable", "FAIL_DELAY", "LOCKOUT", "LOCKOUT_AFTER", "LOGIN_TIMEOUT",
    "MAX_CONNECTIONS", "MAX_LOGIN_ATTEMPTS", "MAX_WAITING", "MAX_WAITING_PER_HOST",
    "SESSION_TIMEOUT", "AdminFactory", "AdminShell", "AdminTelnet", "OperatorChecker",
    "admin_factory",
]
