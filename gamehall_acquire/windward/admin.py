"""Operator commands for Windward tables, contributed to the hall's admin console.

The original server's buttons (Lock, Play, Step, Stop, Speed, the player and
debug windows), as console commands.  TABLE is a hall table number (``#4``
or ``4``: kept across a restart, never given twice); any table of a series
names the series, so the number shown by ``tables`` or ``ww-list`` works for
the whole series.  A series is numbered after its first table.

=========================  =====================================================
``ww-list``                 live and recent Windward series
``ww-start [TABLE] [N]``    close joins (fill the empty seats with the server's
                            AIs) and start; with no waiting table, an all-AI
                            series; N: games in this series
``ww-pause TABLE``          nobody is asked to decide until resumed
``ww-resume TABLE``         play on
``ww-step TABLE``           one decision, then paused
``ww-speed TABLE N|full``   bots' turns per second (``full``: no delay)
``ww-stop TABLE``           abort the game and end the series (clients get exit)
``ww-view TABLE [GAME] [tiles]``  board, chains, and per player cash, shares,
                            majorities, unplayed cards, score, series scores;
                            GAME: an earlier game of the series (1, 2...), as
                            it ended; with ``tiles`` every player's tiles
``ww-set [KEY VALUE]``      defaults for new series: games, turn-timeout,
                            ready-grace, fill-bot
=========================  =====================================================

Commands that change something are marked ``audited``: the console logs
them with the operator who ran them.  Pause, resume, step, speed and stop on
a series that is over say so (and change nothing).
"""
from __future__ import annotations

__all__ = ["ADMIN_COMMANDS", "view_table"]

GAME = "windward"
_KIND_CHAR = {1: ".", 3: "o", 4: "x", 5: "-"}
_CARD_NAMES = {1: "FREE_3", 2: "BUY_5", 3: "TRADE_2", 4: "DRAW_5", 5: "PLACE_4"}


def _error(text: str):
    from gamehall.table import TableError
    return TableError(text)


def _service(hall):
    from .wire.service import service_for
    return service_for(hall)


def _table_number(text: str) -> int:
    try:
        return int(text.strip().lstrip("#"))
    except ValueError:
        raise _error(f"TABLE must be a table number, not {text!r}") from None


def _target(hall, args: str, usage: str):
    """(match or None, hall table) named by the first word of ``args``."""
    parts = args.split()
    if not parts:
        service = _service(hall)
        try:
            match = service.match_for(None)
        except Exception:
            raise _error(f"usage: {usage}") from None
        return match, match.table
    number = _table_number(parts[0])
    service = _service(hall)
    match = service.tables.get(number)
    if match is not None:
        return match, match.table
    table = hall.table(number)
    if table.game.name != GAME:
        raise _error(f"Table #{number} is not a Windward table")
    return None, table


def _cmd_list(hall, args: str) -> str:
    service = _service(hall)
    lines = []
    for match in list(service.matches.values()) + service.finished[-5:]:
        who = ", ".join(match.names or [s.name for s in match.table.seats]) or "nobody yet"
        lines.append(f"{match.describe()}; tables {' '.join(f'#{t}' for t in match.table_ids)}; {who}")
        if match.series is not None and match.series.played:
            lines.append("  totals: " + ", ".join(f"{n} {t}" for n, t in zip(match.names, match.series.totals)))
        kicked = [(name, n) for m, n, name in service.kicked.values() if m is match]
        if kicked:
            lines.append("  kicked: " + ", ".join(f"{name} ({n} join{'s' if n != 1 else ''} refused since)"
                                                  for name, n in kicked))
    return "\n".join(lines) if lines else "No Windward series."


def _cmd_start(hall, args: str) -> str:
    parts = args.split()
    table_id = games = None
    if len(parts) > 2:
        raise _error("usage: ww-start [TABLE] [GAMES]")
    if parts:
        table_id = _table_number(parts[0])
    if len(parts) == 2:
        try:
            games = int(parts[1])
        except ValueError:
            raise _error(f"GAMES must be a whole number, not {parts[1]!r}") from None
        if games < 1:
            raise _error("GAMES must be 1 or more")
    match = _service(hall).start(table_id, games)
    return f"Windward series {match.number} started at table #{match.table.id}: " + ", ".join(match.names) + \
        f" ({match.games} game{'s' if match.games != 1 else ''})."


def _live(match, table, verb: str):
    """``match`` (or the lone ``table``) when it can still be ``verb``-ed; TableError saying why not."""
    from gamehall.table import PLAYING
    if match is not None:
        if match.state in ("finished", "stopped", "dropped"):
            raise _error(f"Windward series {match.number} is over ({match.state}); nothing to {verb}")
        return match
    if table.state != PLAYING:
        raise _error(f"Table #{table.id} is {table.state}; nothing to {verb}")
    return table


def _cmd_pause(hall, args: str) -> str:
    match, table = _target(hall, args, "ww-pause TABLE")
    _live(match, table, "pause").pause()
    return f"Table #{table.id} paused."


def _cmd_resume(hall, args: str) -> str:
    match, table = _target(hall, args, "ww-resume TABLE")
    _live(match, table, "resume").resume()
    return f"Table #{table.id} resumed."


def _cmd_step(hall, args: str) -> str:
    match, table = _target(hall, args, "ww-step TABLE")
    _live(match, table, "step").step()
    return f"Table #{table.id}: one step."


def _cmd_speed(hall, args: str) -> str:
    parts = args.split()
    if len(parts) != 2:
        raise _error("usage: ww-speed TABLE N|full (N: bots' turns per second)")
    match, table = _target(hall, parts[0], "ww-speed TABLE N|full")
    if parts[1].lower() == "full":
        speed = None
    else:
        try:
            speed = float(parts[1])
        except ValueError:
            raise _error(f"speed must be a number of turns per second or full, not {parts[1]!r}") from None
        if not speed > 0 or speed > 1000:
            raise _error("speed must be more than 0 and at most 1000 turns per second")
    _live(match, table, "speed up or slow down").set_speed(speed)
    return f"Table #{table.id}: " + ("full speed." if speed is None else f"{speed:g} turns per second.")


def _cmd_stop(hall, args: str) -> str:
    match, table = _target(hall, args, "ww-stop TABLE")
    _live(match, table, "stop")
    if match is not None:
        match.stop()
        return f"Windward series {match.number} stopped (table #{table.id})."
    hall.close_table(table.id, "Stopped by the operator")
    return f"Table #{table.id} stopped."


_VIEW_USAGE = "usage: ww-view TABLE [GAME] [tiles]"


def _cmd_view(hall, args: str) -> str:
    parts = args.split()
    tiles = len(parts) > 1 and parts[-1].lower() == "tiles"
    if tiles:
        parts.pop()
    if not parts or len(parts) > 2:
        raise _error(_VIEW_USAGE)
    match, table = _target(hall, parts[0], _VIEW_USAGE)
    if len(parts) == 1:
        return view_table(table, match, tiles=tiles)
    try:
        k = int(parts[1]) - 1
    except ValueError:
        raise _error(f"GAME must be a game number of the series, not {parts[1]!r}") from None
    if match is None or match.series is None:
        raise _error(f"Table #{table.id} has no series of games to look back on")
    if not 0 <= k < match.games:
        raise _error(f"series {match.number} has games 1 to {match.games}")
    if k >= match.series.played:
        if k == match.game_index and match.table is not None:
            return view_table(match.table, match, tiles=tiles)
        raise _error(f"game {k + 1} of series {match.number} has not been played yet")
    return view_past_game(match, k, tiles=tiles)


def view_past_game(match, k: int, tiles: bool = False) -> str:
    """The operator's view of game ``k`` (0-based) of ``match``'s series, as it ended."""
    from types import SimpleNamespace
    from .rules import game_from_record
    record = match.series.records[k]
    if record is None:
        raise _error(f"game {k + 1} of series {match.number} was played before the hall restarted; "
                     "its record is in the store only")
    table_id = match.table_ids[k] if k < len(match.table_ids) else None
    past = SimpleNamespace(id=table_id, state="finished", paused=False, engine=game_from_record(record), seats=[])
    return view_table(past, match, tiles=tiles, number=k + 1)


_SETTINGS = {"games": ("games", int), "turn-timeout": ("turn_timeout", float),
             "ready-grace": ("ready_grace", float), "fill-bot": ("fill_bot", str)}


def _cmd_set(hall, args: str) -> str:
    st = _service(hall).settings
    parts = args.split()
    if not parts:
        return "\n".join(f"{key} {getattr(st, attr)}" for key, (attr, _) in _SETTINGS.items())
    if len(parts) != 2 or parts[0] not in _SETTINGS:
        raise _error("usage: ww-set [KEY VALUE] with KEY one of " + ", ".join(_SETTINGS))
    attr, kind = _SETTINGS[parts[0]]
    try:
        value = kind(parts[1])
    except ValueError:
        raise _error(f"{parts[0]} takes a {kind.__name__}, not {parts[1]!r}") from None
    _service(hall).set_setting(attr, value)     # checked, and kept in the store
    return f"{parts[0]} {value} (for series created from now on; running and waiting ones keep theirs)."


def view_table(table, match=None, tiles: bool = False, number: int | None = None) -> str:
    """The operator's text view of a Windward table (see the module docstring);
    ``number``: the table's game number in the series (default: the current game)."""
    engine = table.engine
    head = f"Table #{table.id} ({table.state}"
    if getattr(table, "paused", False):
        head += ", paused"
    head += ")"
    if match is not None:
        number = number or min(match.game_index + 1, match.games)
        head = f"Windward series {match.number}, game {number}/{match.games}: " + head
    if engine is None:
        seats = ", ".join(s.name for s in table.seats) or "nobody"
        return f"{head}\nWaiting for players: {seats} ({len(table.seats)}/6)."
    lines = [head]
    order = match.orders.get(table.id) if match is not None else None
    order = order or list(range(len(engine.players)))
    d = engine.pending() if not engine.is_over() else None
    if d is not None:
        from .rules import QUERY_OF_KIND
        lines.append(f"Waiting for {engine.players[d.seat]} ({QUERY_OF_KIND[d.kind]}); first player this game: "
                     f"{engine.players[engine.order[0]]}")
    else:
        res = engine.result()
        lines.append(f"Game over ({res['reason']}); winner {engine.players[res['winner']]}")
    view = engine.view(None)
    chains = [h["name"] for h in view["hotels"]]
    initials = {name: name[0].upper() for name in chains}
    lines.append("     " + " ".join(f"{x + 1:>2}" for x in range(12)))
    for y, row in enumerate("ABCDEFGHI"):
        cells = []
        for x in range(12):
            kind, hotel = view["map"]["columns"][x][y]
            cells.append(initials.get(hotel, "?") if kind == 2 else _KIND_CHAR.get(kind, "?"))
        lines.append(f"  {row}  " + " ".join(f"{c:>2}" for c in cells))
    lines.append("  (. empty  o single  - not playable now  x never playable; letters: chains)")
    for h in view["hotels"]:
        if h["num_tiles"] or h["owners"]:
            state = "safe" if h["is_safe"] else "on board" if h["is_active"] else "off board"
            lines.append(f"  {h['name']:<16}{h['num_tiles']:>3} tiles  ${h['stock_price']:<5} {state:<9}"
                         f" {h['num_avail_shares']:>2} shares left")
    names = engine.players
    lines.append("Players:")
    for series_seat in range(len(order)):
        seat = order.index(series_seat)
        p = view["players"][seat]
        shares = ", ".join(f"{c} {n}" for c, n in p["stock"].items()) or "none"
        firsts = [c for c in chains if seat in engine.majorities(c)[0]]
        seconds = [c for c in chains if seat in engine.majorities(c)[1] and seat not in engine.majorities(c)[0]]
        cards = " ".join(_CARD_NAMES[c] for c in p["powers"]) or "none"
        lines.append(f"  {names[seat]}: cash {p['cash']}, score {p['score']}, shares {shares}; "
                     f"first {', '.join(firsts) or '-'}; second {', '.join(seconds) or '-'}; cards {cards}")
        if match is not None and match.series is not None and match.series.played:
            board = match.series.scoreboard(series_seat)
            if number is not None:
                board = board[:number - 1]      # the scoreboard as it stood in that game
            if board:
                lines.append(f"      series: {';'.join(map(str, board))}; total {sum(board)}")
        if tiles:
            lines.append(f"      tiles: {' '.join(engine.hand(seat)) or 'none'}")
    return "\n".join(lines)


for _command in (_cmd_start, _cmd_pause, _cmd_resume, _cmd_step, _cmd_speed, _cmd_stop, _cmd_set):
    _command.audited = True         # the console logs them with the operator's name

ADMIN_COMMANDS = {
    "ww-list": (_cmd_list, "ww-list: live and recent Windward series"),
    "ww-start": (_cmd_start, "ww-start [TABLE] [GAMES]: close joins, fill AIs, start (all-AI if none waits)"),
    "ww-pause": (_cmd_pause, "ww-pause TABLE: pause a Windward table"),
    "ww-resume": (_cmd_resume, "ww-resume TABLE: resume a paused Windward table"),
    "ww-step": (_cmd_step, "ww-step TABLE: one decision, then paused"),
    "ww-speed": (_cmd_speed, "ww-speed TABLE N|full: bots' turns per second"),
    "ww-stop": (_cmd_stop, "ww-stop TABLE: abort the game, end the series, send exit"),
    "ww-view": (_cmd_view, "ww-view TABLE [GAME] [tiles]: board, chains, players (and their tiles); "
                           "GAME: an earlier game of the series"),
    "ww-set": (_cmd_set, "ww-set [KEY VALUE]: defaults for new Windward series"),
}
