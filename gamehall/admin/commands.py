"""The operator console's commands and their interpreter, ``Console``: plain strings in,
text out, no terminal and no network (``gamehall.admin.telnet`` puts them on telnet).

``BUILTIN_COMMANDS`` maps a command name to ``(handler, help)`` where
``handler(console, args) -> str | None``; a new built-in is one entry.  Games
add theirs through their services' ``admin_commands`` (``game_commands``).
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Callable

from twisted.internet.defer import Deferred, maybeDeferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from gamehall.interfaces import IChatlessSink, IllegalAction
from gamehall.lobby import LobbyError
from gamehall.table import TableError
from gamehall.text import clean_text

log = Logger()

TABLE_STATES = ("waiting", "playing", "finished", "aborted")


class CommandError(ValueError):
    """An operator mistake; ``str(exc)`` is the one-line reason shown."""


# Exceptions whose message is meant for a person: shown as is, not logged as failures.
_EXPECTED = (CommandError, LobbyError, TableError, IllegalAction)

Handler = Callable[["Console", str], Any]


# ---------------------------------------------------------------------------
# Commands.  Each takes the Console and the rest of the line, returns text.


def _cmd_help(console: "Console", args: str) -> str:
    width = max(len(name) for name in console.commands)
    lines = ["Commands:"]
    for name, (_, text) in sorted(console.commands.items()):
        lines.append(f"  {name.ljust(width)}  {text}")
    return "\n".join(lines)


def _cmd_who(console: "Console", args: str) -> str:
    hall = console.hall
    users = hall.who()
    if not users:
        return "No users connected."
    if hall.cluster is None:
        rows = [(u.nickname, u.frontend, u.address or "-", u.where()) for u in users]
        return _columns(("NICKNAME", "FRONT END", "ADDRESS", "WHERE"), rows) + f"\n{_plural(len(users), 'user')}"
    # a hall of several processes: every user of it, with the process it is connected to
    here = hall.cluster.process_id
    rows = [(u.nickname, u.frontend, u.address or "-", u.where(), u.process or f"{here} (this)")
            for u in users]
    local = sum(1 for u in users if u.process is None)
    return _columns(("NICKNAME", "FRONT END", "ADDRESS", "WHERE", "PROCESS"), rows) + \
        f"\n{_plural(len(users), 'user')} ({local} on this process)"


def _seat_text(table: Any, seat: Any) -> str:
    kind = seat.kind
    if kind == "bot":
        return f"{seat.name} (bot {seat.bot})" if seat.bot else f"{seat.name} (bot)"
    if kind == "human":
        # A human seat without a connection is being held for a reconnect.
        return f"{seat.name} ({'human' if seat.user is not None else 'held'})"
    return f"{seat.name or '-'} (empty)"


def _cmd_tables(console: "Console", args: str) -> str:
    tables = sorted(console.hall.tables.values(), key=lambda t: t.id)
    if not tables:
        return "No tables."
    rows = []
    for table in tables:
        seats = ", ".join(_seat_text(table, s) for s in table.seats) or "none"
        watchers = ", ".join(u.nickname for u in table.spectators) or "none"
        state = f"{table.state} (stalled)" if table.stalled else table.state
        rows.append((f"#{table.id}", table.game.name, table.variant, state,
                     f"{len(table.seats)}/{table.max_seats}: {seats}", watchers))
    return _columns(("TABLE", "GAME", "VARIANT", "STATE", "SEATS", "SPECTATORS"), rows) + \
        f"\n{_plural(len(tables), 'table')}"


def _cmd_plugins(console: "Console", args: str) -> str:
    hall = console.hall
    lines = ["Games:"]
    games = [(name, hall.games[name]) for name in sorted(hall.games)]
    if games:
        rows = []
        for name, game in games:
            timeout = game.turn_timeout
            rows.append((name, game.title, f"{game.min_seats}-{game.max_seats} seats",
                         "variants: " + ", ".join(game.variants),
                         "bots: " + (", ".join(game.bots) or "none"),
                         f"turn {timeout:g}s" if timeout else "no turn limit"))
        lines.append(_indent(_columns(None, rows)))
    else:
        lines.append("  none")
    lines.append("Front ends:")
    fronts = dict(console.installed_frontends)
    fronts.update(hall.frontends)
    if fronts:
        rows = [(name, front.description, f"default {front.default_endpoint}",
                 "listening" if name in hall.frontends else "not listening")
                for name, front in sorted(fronts.items())]
        lines.append(_indent(_columns(None, rows)))
    else:
        lines.append("  none")
    return "\n".join(lines)


def _cmd_stats(console: "Console", args: str) -> Any:
    hall = console.hall
    text = stats_text(hall)
    if hall.cluster is None:
        return text

    def every_process(answers) -> str:
        lines = [f"This process ({hall.cluster.process_id}):", _indent(text)]
        for pid, theirs in answers:
            if theirs is None:
                lines.append(f"Process {pid}: no answer")
            else:
                lines += [f"Process {pid}:", _indent(printable(theirs))]
        return "\n".join(lines)
    return hall.cluster.peer_stats().addCallback(every_process)


def stats_text(hall: Any) -> str:
    """This process's figures, as ``stats`` shows them (also asked by the other processes
    of a hall of several)."""
    stats = hall.stats
    names = sorted(set(hall.frontends) | set(stats.connections) | set(stats.connections_total)
                   | set(stats.messages_in) | set(stats.messages_out))
    lines = [f"Uptime {format_duration(hall.uptime())}"]
    if names:
        rows = [(name, stats.connections[name], stats.connections_total[name],
                 stats.messages_in[name], stats.messages_out[name]) for name in names]
        lines.append(_columns(("FRONT END", "OPEN", "TOTAL", "MSGS IN", "MSGS OUT"), rows))
    else:
        lines.append("No front end connections yet.")
    by_state = {state: 0 for state in TABLE_STATES[:2]}
    for table in hall.tables.values():
        by_state[table.state] = by_state.get(table.state, 0) + 1
    lines.append("Tables: " + ", ".join(f"{state} {n}" for state, n in by_state.items()))
    stalled = hall.stalled
    lines.append(f"Stalled (store writes failing): {len(stalled)}")
    for table in sorted(stalled.values(), key=lambda t: t.id):
        since = format_duration(hall.clock.seconds() - table.stalled_since)
        lines.append(f"  #{table.id} {table.game.name} for {since}: {table.stall_reason}")
    for store_id, why in sorted(hall.set_aside.items()):
        lines.append(f"  stored table {store_id} not restored: {why}")
    refused = stats.refused
    if isinstance(refused, Mapping):
        detail = ", ".join(f"{k} {v}" for k, v in sorted(refused.items()) if v)
        lines.append(f"Refused: {sum(refused.values())}" + (f" ({detail})" if detail else ""))
    else:
        lines.append(f"Refused: {refused}")
    lines.append(f"Actions applied: {stats.actions}")
    if hall.cluster is not None:
        here = sum(1 for user in hall.lobby.users.values() if user.process is None)
        lines.append(f"Users: {here} on this process, {len(hall.lobby.users) - here} on the others")
    # which process of the hall answered (with --workers, any one of them may)
    lines.append(f"Process {hall.process_id} (pid {os.getpid()})")
    return "\n".join(lines)


def _cmd_say(console: "Console", args: str) -> str:
    if not args:
        raise CommandError("usage: say TEXT")
    if console.hall.cluster is not None:
        return _say_hall_wide(console, args)
    count = console.hall.say(args)
    # a front end without chat (PIMP: an IChatlessSink) takes the line to nobody: not reached
    count -= sum(1 for user in console.hall.who() if IChatlessSink.providedBy(user.sink))
    console.audit("say {text!r}", text=args)
    return f"Announcement sent to {_plural(count, 'user')}."


def _say_hall_wide(console: "Console", text: str) -> Deferred:
    console.audit("say {text!r}", text=text)

    def counted(result) -> str:
        here, there = result
        total = here + sum(n for n in there.values() if n is not None)
        silent = sorted(pid for pid, n in there.items() if n is None)
        line = f"Announcement sent to {_plural(total, 'user')} ({here} on this process, {total - here} on the others)."
        if silent:
            line += f" No count from {', '.join(silent)} (their users may have it)."
        return line
    return console.hall.cluster.say(text).addCallback(counted)


def _cmd_kick(console: "Console", args: str) -> Any:
    # The whole rest of the line is the nickname: nicknames may contain spaces.
    if not args:
        raise CommandError("usage: kick USER")

    def kicked(user) -> str:
        console.audit("kick {nick}", nick=user.nickname)
        where = f" on process {user.process}" if user.process is not None else ""
        return f"Kicked {user.nickname} ({user.frontend}){where}."
    # a user of another process of the hall is kicked there: a Deferred (Hall.kick)
    return maybeDeferred(console.hall.kick, args).addCallback(kicked)


def _cmd_close(console: "Console", args: str) -> Any:
    parts = args.split()
    if len(parts) != 1:
        raise CommandError("usage: close TABLE (a table number, see tables)")
    table_id = _table_number(parts[0])
    return console.hall.when_listed(table_id, lambda: _close(console, table_id))


def _close(console: "Console", table_id: int) -> Any:
    owner = _owner_elsewhere(console.hall, table_id)
    if owner is not None:                  # run by another process of the hall: it closes it
        def closed(number: int) -> str:
            console.audit("close table {id} (on process {owner})", id=number, owner=owner)
            return f"Closed game #{number} on process {owner}."
        return console.hall.cluster.operator.close_table(owner, table_id, "Closed by the operator") \
            .addCallback(closed)
    table = console.hall.close_table(table_id)
    console.audit("close table {id}", id=table.id)
    return f"Closed game #{table.id}."


def _owner_elsewhere(hall: Any, table_id: int) -> str | None:
    """The process running table ``table_id`` when it is not this one (a hall of several)."""
    return None if hall.cluster is None else hall.cluster.operator.owner_elsewhere(table_id)


def _cmd_bot(console: "Console", args: str) -> Any:
    parts = args.split()
    if len(parts) not in (2, 3):
        raise CommandError("usage: bot TABLE SEAT [BOTNAME] (SEAT counts from 1)")
    table_id = _table_number(parts[0])
    try:
        seat = int(parts[1])
    except ValueError:
        raise CommandError(f"SEAT must be a number from 1, not {parts[1]!r}") from None
    if seat < 1:
        raise CommandError("SEAT counts from 1")
    bot = parts[2] if len(parts) == 3 else None
    return console.hall.when_listed(table_id, lambda: _put_bot(console, table_id, seat, bot))


def _put_bot(console: "Console", table_id: int, seat: int, bot: str | None) -> Any:
    owner = _owner_elsewhere(console.hall, table_id)
    if owner is not None:                  # run by another process of the hall: it does it
        def put(taken: dict) -> str:
            console.audit("bot takes seat {seat} of table {id} (on process {owner})", seat=seat,
                          id=table_id, owner=owner)
            return (f"Game #{table_id} seat {seat} ({printable(str(taken.get('name')))}) is now played "
                    f"by bot {printable(str(taken.get('bot')))} on process {owner}.")
        return console.hall.cluster.operator.put_bot(owner, table_id, seat, bot).addCallback(put)
    table = console.hall.put_bot(table_id, seat, bot)
    taken = table.seats[seat - 1]
    console.audit("bot takes seat {seat} of table {id}", seat=seat, id=table.id)
    return f"Game #{table.id} seat {seat} ({taken.name}) is now played by bot {taken.bot}."


def _cmd_allow(console: "Console", args: str) -> str:
    # The whole rest of the line is the nickname: nicknames may contain spaces.
    if not args:
        raise CommandError("usage: allow NICK")
    until = console.hall.allow(args)
    console.audit("allow {nick}", nick=args)
    minutes = max(1, round((until - console.hall.clock.seconds()) / 60))
    return (f"The next reconnect of {args} gets the held seat back from any address "
            f"(once, within {minutes} minutes).")


def _cmd_players(console: "Console", args: str) -> str:
    players = sorted(console.hall.players.by_key.values(), key=lambda p: p.name_key)
    if not players:
        return "No registered names."
    online = {u.key for u in console.hall.who() if u.registered}
    return _columns(("name", "live keys", "online"),
                    [(printable(p.name), str(len(p.live_keys())), "yes" if p.name_key in online else "")
                     for p in players])


def _cmd_reset_player(console: "Console", args: str) -> str:
    # The whole rest of the line is the nickname: nicknames may contain spaces.
    if not args:
        raise CommandError("usage: reset-player NICK")
    player = console.hall.players.get(args)
    if player is None:
        raise CommandError(f"{printable(args)} is not a registered name (see players)")

    def confirmed(console: "Console", answer: str):
        if answer.strip().lower() != "yes":
            return "Reset cancelled."
        d = console.hall.players.reset(player.name)

        def done(_):
            console.audit("reset the registration of {nick}", nick=player.name)
            return (f"The registration of {printable(player.name)} and its keys are gone: the name is a "
                    f"guest's again (whoever is logged in under it stays until they leave).")
        return d.addCallback(done)

    console.confirm(confirmed)
    return (f"Forget the registration of {printable(player.name)} (its password and "
            f"{_plural(len(player.live_keys()), 'live key')})? Type yes to confirm.")


def _cmd_shutdown(console: "Console", args: str) -> str:
    count = sum(1 for user in console.hall.who() if user.process is None)   # this process's
    console.confirm(_confirmed_shutdown)
    return f"Shut the hall down and disconnect {_plural(count, 'user')}? Type yes to confirm."


def _confirmed_shutdown(console: "Console", answer: str) -> str:
    if answer.strip().lower() != "yes":
        return "Shutdown cancelled."
    console.audit("shutdown")
    console.hall.shutdown()
    return "Shutting down."


def _cmd_quit(console: "Console", args: str) -> str:
    console.finished = True
    return "Bye."


BUILTIN_COMMANDS: dict[str, tuple[Handler, str]] = {
    "help": (_cmd_help, "list the commands"),
    "who": (_cmd_who, "every user: nickname, front end, address, where (and process, with several)"),
    "tables": (_cmd_tables, "every table: game, variant, state, seats, spectators"),
    "plugins": (_cmd_plugins, "installed games and front ends (listening or not)"),
    "stats": (_cmd_stats, "connections, messages, tables, refusals, actions, uptime (of every process)"),
    "say": (_cmd_say, "say TEXT: announce TEXT in every lobby of every protocol"),
    "kick": (_cmd_kick, "kick USER: disconnect a user (on whichever process)"),
    "close": (_cmd_close, "close TABLE: abort a table and tell its players"),
    "bot": (_cmd_bot, "bot TABLE SEAT [BOTNAME]: a bot plays that seat (from 1) from now on"),
    "allow": (_cmd_allow, "allow NICK: NICK's next reconnect gets the held seat back from anywhere"),
    "players": (_cmd_players, "registered names: live keys, online"),
    "reset-player": (_cmd_reset_player, "reset-player NICK: forget NICK's registration and keys (asks)"),
    "shutdown": (_cmd_shutdown, "stop the hall (asks for confirmation)"),
    "quit": (_cmd_quit, "close this console session"),
    "exit": (_cmd_quit, "close this console session"),
}


def game_commands(services: Mapping[str, Any], taken: Any = ()) -> dict[str, tuple[Handler, str]]:
    """Commands contributed by games through their services' ``admin_commands``
    (IGameService), by game name."""
    found: dict[str, tuple[Handler, str]] = {}
    for game_name in sorted(services):
        extra = services[game_name].admin_commands or {}
        try:
            items = list(extra.items())
        except Exception:
            log.failure("game {game}: admin_commands is not a dict; ignored", game=game_name)
            continue
        for name, entry in items:
            key = str(name).strip().lower()
            try:
                function, text = entry
            except (TypeError, ValueError):
                log.warn("game {game}: admin command {name!r} is not (callable, help); ignored",
                         game=game_name, name=name)
                continue
            if not key or key in taken or key in found or not callable(function):
                log.warn("game {game}: admin command {name!r} clashes or is invalid; ignored",
                         game=game_name, name=name)
                continue
            found[key] = (_hall_command(function, key), str(text))
    return found


def _hall_command(function: Callable[[Any, str], Any], name: str = "") -> Handler:
    # Plugins see the hall, not the console: the console is ours to change.
    # A command marked ``audited = True`` (it changes the hall) is logged with
    # who ran it, once it has succeeded, like the built-in commands.
    if not getattr(function, "audited", False):
        return lambda console, args: function(console.hall, args)

    def run(console: "Console", args: str) -> Any:
        result = function(console.hall, args)
        if isinstance(result, Deferred):   # (a table looked for first: Hall.when_listed)
            def done(text):
                console.audit("{command} {args}", command=name, args=printable(args))
                return text
            return result.addCallback(done)
        console.audit("{command} {args}", command=name, args=printable(args))
        return result
    return run


# ---------------------------------------------------------------------------
# Formatting helpers.


def format_duration(seconds: float) -> str:
    """``h:mm:ss``; hours keep counting past 24."""
    total = max(0, int(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _columns(headers: tuple[str, ...] | None, rows: list[tuple]) -> str:
    table = [tuple(str(cell) for cell in row) for row in rows]
    if headers is not None:
        table.insert(0, headers)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table)


def _table_number(text: str) -> int:
    try:
        return int(text.lstrip("#"))
    except ValueError:
        raise CommandError(f"TABLE must be a table number, not {text!r} (see tables)") from None


def printable(text: str) -> str:
    """A nickname, a game plugin's text or a peer address must never drive the
    operator's terminal: the hall's one sanitiser, keeping line breaks and tabs."""
    return clean_text(text, keep="\n\t")




# ---------------------------------------------------------------------------
# The interpreter.


class Console:
    """Runs one operator's command lines against the hall; no terminal involved."""

    log = Logger()

    def __init__(self, hall: Any, operator: str = "admin", peer: str = "",
                 installed_frontends: Mapping[str, Any] | None = None) -> None:
        self.hall = hall
        self.operator = operator
        self.peer = peer
        self.installed_frontends = dict(installed_frontends or {})
        self.commands: dict[str, tuple[Handler, str]] = dict(BUILTIN_COMMANDS)
        self.commands.update(game_commands(hall.services, self.commands))
        self.finished = False             # the session should close after this reply
        self._pending: Callable[[Console, str], str] | None = None

    def confirm(self, then: Callable[["Console", str], str]) -> None:
        """The next line answers a question instead of being a command."""
        self._pending = then

    def audit(self, what: str, **kw: Any) -> None:
        """Changes to the hall are logged with who made them."""
        self.log.info("admin {operator} ({peer}): " + what, operator=self.operator, peer=self.peer, **kw)

    def execute(self, line: str) -> Deferred:
        """Run one line; fires with the text to show (possibly empty), never fails."""
        line = line.strip()
        pending, self._pending = self._pending, None
        if pending is not None:
            return self._run("confirmation", pending, line)
        if not line:
            return succeed("")
        name, _, args = line.partition(" ")
        name = name.lower()
        entry = self.commands.get(name)
        if entry is None:
            return succeed(f"error: unknown command {printable(name)!r}; type help for the list")
        return self._run(name, entry[0], args.strip())

    def _run(self, name: str, handler: Callable[["Console", str], Any], args: str) -> Deferred:
        d = maybeDeferred(handler, self, args)
        d.addCallbacks(lambda text: "" if text is None else str(text), lambda f: self._failed(name, f))
        return d

    def _failed(self, name: str, failure: Failure) -> str:
        if failure.check(*_EXPECTED):
            return "error: " + " ".join(str(failure.value).split())
        self.log.failure("admin command {name!r} failed", failure, name=name)
        reason = " ".join(str(failure.value).split())[:200]
        return f"error: {name} failed: {failure.type.__name__}" + (f": {reason}" if reason else "") + \
            " (details in the log)"

