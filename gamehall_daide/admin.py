"""The operator's ``daide`` console command (contributed through the game's ``admin_commands``).

    daide                          the Diplomacy tables: state, turn, powers and who plays them,
                                   options, time to the deadline
    daide new [OPTION...]          open a new Diplomacy table with these options
    daide set TABLE OPTION...      change a table's options (a waiting table: any option;
                                   a game in play: the time limits, from the next phase)
    daide defaults [OPTION...]     the options of the tables opened from now on (show them
                                   without OPTION)
    daide bot TABLE [POWER] [BOT]  a bot takes the next seat of a waiting table (the seventh
                                   starts the game), or POWER's seat in a game in play

OPTION is ``humans`` (MTL=1800 RTL=600 BTL=600 DSD: deadlines for people; bot games have none),
``LVL=n``, ``MTL=s``, ``RTL=s``, ``BTL=s``, ``PTL=s``, ``max_year=YYYY`` (a draw after
that year), a flag ``DSD``, ``AOA``, ``PDA``, ``NPR``, ``NPB``, ``fixed`` (seat i plays the i-th
power in AUS ENG FRA GER ITA RUS TUR order, for bots that rejoin by power) or its negation
``-DSD``...  Kicking is the hall's ``kick USER`` (the client gets OFF; its seat goes to a bot).
"""
from __future__ import annotations

from gamehall.table import PLAYING, WAITING, TableError

from .wire.protocol import GAME, options_of, rooms_of
from .wire.render import turn_text

NUMBERS = {"LVL": (0, 8000), "MTL": (0, 86400 * 7), "RTL": (0, 86400 * 7), "BTL": (0, 86400 * 7),
           "PTL": (0, 86400 * 7), "max_year": (1901, 9999)}
FLAGS = {"DSD", "AOA", "PDA", "NPR", "NPB", "fixed"}
TIME_LIMITS = {"MTL", "RTL", "BTL", "PTL"}


#: ``humans``: deadlines for people (30 minutes to move, 10 to retreat or build), stopped on disconnect
PRESETS = {"humans": {"MTL": 1800, "RTL": 600, "BTL": 600, "DSD": True}}


def parse_options(words: list[str]) -> dict:
    """``["LVL=10", "DSD", "-NPB"]`` -> {"LVL": 10, "DSD": True, "NPB": False}; ValueError saying why."""
    out: dict = {}
    for word in words:
        if word.lower() in PRESETS:
            out.update(PRESETS[word.lower()])
            continue
        key, eq, value = word.partition("=")
        canon = next((k for k in [*NUMBERS, *FLAGS] if k.lower() == key.lstrip("-").lower()), None)
        if canon is None:
            raise ValueError(f"unknown option {word!r}; options: {' '.join([*NUMBERS, *sorted(FLAGS)])}")
        if canon in FLAGS:
            if eq:
                raise ValueError(f"{canon} is a flag: write {canon} or -{canon}")
            out[canon] = not key.startswith("-")
            continue
        low, high = NUMBERS[canon]
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"{canon} takes a whole number: {canon}=N") from None
        if not low <= number <= high and not (canon == "max_year" and number == 0):
            raise ValueError(f"{canon} must be {low}..{high}")
        out[canon] = number
    return out


def show_options(opts: dict) -> str:
    parts = []
    for key in ["LVL", "MTL", "RTL", "BTL", "PTL", "max_year"]:
        if opts.get(key) or key == "LVL":
            parts.append(f"{key}={opts.get(key, 0)}")
    parts += [k for k in sorted(FLAGS) if opts.get(k)]
    return " ".join(parts)


def _table(hall, word: str):
    table = hall.table(word)
    if table.game.name != GAME:
        raise TableError(f"game #{table.id} is not a Diplomacy table")
    return table


def _list(hall, rooms) -> str:
    lines = []
    for table in rooms.tables():
        opts = options_of(table)
        head = f"#{table.id} {table.state}"
        if table.state == PLAYING and table.engine is not None:
            head += f" {turn_text(table.engine)}"
            left = rooms.room(table).deadline.remaining()
            if left is not None:
                head += f", deadline in {left} s"
        lines.append(f"{head}  [{show_options(opts)}]")
        for index, seat in enumerate(table.seats):
            power = table.engine.powers[index] if table.engine is not None else "---"
            who = f"bot {seat.bot}" if seat.kind == "bot" else ("connected" if seat.user else "away")
            lines.append(f"   {power} {seat.name} ({who})")
    return "\n".join(lines) or "no Diplomacy tables"


def daide_command(hall, args: str):
    words = args.split()
    rooms = rooms_of(hall)
    verb = words[0].lower() if words else "list"
    rest = words[1:]
    if verb == "list":
        return _list(hall, rooms)
    if verb == "new":
        table = rooms.new_table(parse_options(rest))
        return f"opened Diplomacy table #{table.id} [{show_options(options_of(table))}]"
    if verb == "defaults":
        rooms.default_options.update(parse_options(rest))
        return f"new Diplomacy tables: [{show_options(rooms.default_options)}]"
    if verb in ("set", "bot") and rest and rest[0].lstrip("#").isdigit():
        # (a table made on another process a moment ago, not listed here yet: looked for)
        return hall.when_listed(rest[0].lstrip("#"), lambda: _on_table(hall, rooms, verb, rest))
    return _on_table(hall, rooms, verb, rest)


def _on_table(hall, rooms, verb: str, rest: list) -> str:
    """``daide set TABLE ...`` and ``daide bot TABLE ...``."""
    if verb == "set":
        if not rest:
            raise ValueError("daide set TABLE OPTION...")
        table = _table(hall, rest[0])
        changes = parse_options(rest[1:])
        if table.state == PLAYING and set(changes) - TIME_LIMITS:
            raise ValueError("during play only MTL, RTL, BTL and PTL can change")
        if table.state not in (WAITING, PLAYING):
            raise TableError(f"game #{table.id} is over")
        table.options.setdefault("daide", {}).update(changes)
        if table.remote:                   # (shown here at once; kept where the table runs)
            table.merge_options({"daide": changes})
        return f"#{table.id}: [{show_options(options_of(table))}]"
    if verb == "bot":
        if not rest:
            raise ValueError("daide bot TABLE [POWER] [BOT]")
        table = _table(hall, rest[0])
        more = rest[1:]
        if table.state == WAITING:
            if table.remote:               # its seats and its start are the owner's
                raise TableError(f"game #{table.id} is run by process {table.owner}: seat its bots there")
            index = table.add_bot(more[0] if more else None)
            if len(table.seats) >= table.max_seats:
                if rooms.maybe_start(table):
                    return f"#{table.id}: {table.seats[index].name} took the last seat; the game starts"
                return (f"#{table.id}: {table.seats[index].name} took the last seat; the game starts "
                        f"once every player has accepted the map")
            return f"#{table.id}: {table.seats[index].name} seated ({len(table.seats)} of {table.max_seats})"
        if not more:
            raise ValueError("a game in play: daide bot TABLE POWER [BOT]")
        power = more[0].upper()
        if table.engine is None or power not in table.engine.powers:
            raise ValueError(f"no power {more[0]!r} at game #{table.id}")
        index = table.engine.powers.index(power)
        table.bot_takeover(index, more[1] if len(more) > 1 else None)
        return f"#{table.id}: a bot plays {power} now"
    raise ValueError("daide [list | new OPTION... | set TABLE OPTION... | defaults OPTION... | bot TABLE ...]")


daide_command.audited = True

COMMANDS = {"daide": (daide_command, "daide [new|set|defaults|bot ...]: Diplomacy tables and their options")}
