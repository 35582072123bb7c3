"""The zope interfaces that connect the hall to games and wire front ends.

A game package provides an ``IGame`` plugin (its rules, its bots) and one or
more ``IFrontEnd`` plugins (its wire protocols); the hall finds both with
``twisted.plugin.getPlugins`` and never imports a game by name.
"""
from __future__ import annotations

from zope.interface import Attribute, Interface


class IllegalAction(ValueError):
    """An action refused by a rules engine; ``str(exc)`` is the reason, for a user."""


class IEngine(Interface):
    """A pure rules engine: a deterministic state machine for one game.

    Seats are numbered from 0 in join order.  Actions are JSON-able dicts whose
    shape the game defines (e.g. ``{"play_tile": "2D"}``); an engine rebuilt
    from the same construction arguments and fed the same ``(seat, action)``
    sequence reaches exactly the same state.
    """

    players = Attribute("list of player names, in seat order")

    def pending_seat() -> int | None:
        """The seat whose decision the game waits for, or None when it is over."""

    def apply(seat: int, action: dict) -> list:
        """Validate and apply ``action`` for ``seat``; return the events it caused.

        Raises ``IllegalAction`` (with a reason) and changes nothing when the
        action is not legal now.
        """

    def is_over() -> bool:
        """True once the game has ended."""

    def result() -> dict:
        """After the end: ``{"scores": [...per seat], "winners": [seat...], "reason": str}``."""

    def timeout_action(seat: int) -> dict:
        """A legal action to apply for ``seat`` when its turn timer runs out (None: the seat has
        nothing to do now, e.g. it waits for another's move; nothing is applied)."""


class IOutOfTurnEngine(IEngine):
    """An engine where seats may act out of turn (PIMP's Monopoly: bids, claims, deals come
    from anyone).  The table then takes a seat's action whenever ``may_act`` says so, not only
    from ``pending_seat()``, and front ends may act for a seat with ``Table.act_for``."""

    def may_act(seat: int) -> bool:
        """True when ``seat`` may act now (-1: someone without a seat, e.g. a join request
        or a deadline, as the game defines; see ``Table.act_for``)."""


class ISimultaneousEngine(IEngine):
    """An engine where several seats decide at once (Diplomacy's orders).  The table asks
    every pending seat (without its turn timer: the game's deadlines are its own) and its
    bots move one after the other."""

    def pending_seats() -> list:
        """The seats whose decisions the game waits for now, in order (empty when none)."""


class IRecordingEngine(IEngine):
    """An engine that keeps a record of the finished game (a score sheet, the last board)."""

    def record() -> dict:
        """JSON-able data the store keeps with the result when the game ends."""


class IBot(Interface):
    """A computer player.  Pure: no reactor, no I/O."""

    def choose(engine: IEngine, seat: int) -> dict:
        """Return a legal action for ``seat``, whose decision is pending (None: nothing to do
        now; the table asks again after the next move)."""


class IGame(Interface):
    """A game the hall can host: its rules (``new_engine``), its bots, and the service that
    keeps its state in one hall (``attach``)."""

    name = Attribute("short identifier, e.g. 'acquire'")
    title = Attribute("human title, e.g. 'Acquire'")
    min_seats = Attribute("fewest players a game can start with")
    max_seats = Attribute("most players a game can seat")
    variants = Attribute("tuple of variant names; the first is the default")
    # optional: ``variant_options``, an ordered mapping flag -> words, when the variants are
    # a base plus any of these flags joined by "+" in this order ("classic+no-pot+single-go"):
    # the web create form then offers one checkbox per flag instead of every combination
    bots = Attribute("tuple of bot names; the first is the default bot")
    turn_timeout = Attribute("seconds a human has for a decision, or None for no limit")

    def new_engine(variant: str, players: list[str], seed: int) -> IEngine:
        """Create an engine for a new game; all randomness comes from ``seed``."""

    def new_bot(name: str, seed: int) -> IBot:
        """Create the bot called ``name`` (one of ``bots``)."""

    def attach(hall) -> "IGameService":
        """The game's service for ``hall`` (``IGameService``), made once when the hall is
        built; the hall keeps it by the game's name (``hall.service(name)``).  A game
        without state of its own per hall returns ``gamehall.service.GameService(hall, self)``."""


class IGameService(Interface):
    """A game's state and hooks in one hall: what its front ends share (the open table,
    the waiting series), reached with ``hall.service(game.name)``, never by module globals.

    ``gamehall.service.GameService`` implements every method with the plain behaviour;
    a game's service subclasses it and overrides what it needs."""

    hall = Attribute("the hall this service belongs to")
    game = Attribute("the IGame it serves")
    admin_commands = Attribute(
        "dict: console command name -> (function(hall, args) -> str, one line of help); "
        "the admin console adds them at login (a name that clashes is ignored, logged)")

    def new_engine_for_table(table) -> IEngine:
        """The engine for ``table``, at its start and again at its restore (before its actions
        are replayed): by default ``game.new_engine(table.variant, table.players(), table.seed)``;
        a game whose engine depends on the table's options (Diplomacy's powers) makes it here."""

    def admit_seated(table) -> None:
        """Called once at the start of a table with seats taken, after the new table is
        stored: a game whose engine starts empty and admits players during play (PIMP)
        brings them in as recorded actions, seat i first.  By default nothing."""

    def table_event(table, event: str, detail: dict) -> None:
        """Every broadcast of the game's tables (``IUserSink.table_event``'s events), with or
        without anyone connected, after the sinks are told.  By default nothing."""

    def table_restored(table) -> None:
        """The hall rebuilt ``table`` from the store after a restart (its actions replayed),
        before anyone is asked to decide.  By default nothing."""


class IFrontEnd(Interface):
    """A wire protocol through which users reach the hall."""

    name = Attribute("short identifier used by --listen NAME=ENDPOINT, e.g. 'netacquire'")
    description = Attribute("one line for --help and the admin console")
    default_endpoint = Attribute("server endpoint string used when --listen does not name this front end")

    def build_factory(hall):
        """Return a ``twisted.internet.protocol.Factory`` bound to ``hall``."""


class IGreetingFrontEnd(IFrontEnd):
    """A front end with a word for the operator once it listens (the web front end: where
    to point a browser)."""

    def greeting(endpoint: str) -> str | None:
        """A line the hall logs once the front end listens on ``endpoint`` (None: nothing)."""


class IUserSink(Interface):
    """What the hall calls on a connected user; each front end renders it in its own words.

    Every method must be cheap and must not raise: the hall calls these for
    many users in a row.
    """

    def lobby_chat(sender: str, text: str) -> None:
        """A line of lobby chat (``sender`` is '*' for an announcement by the hall; no user may be called '*')."""

    def lobby_changed(event: str, detail: dict) -> None:
        """Users or tables changed: event is 'user_joined', 'user_left', 'users_changed',
        'table_added', 'table_changed', 'table_removed' or 'tables_changed'.

        'user_joined' / 'user_left': detail {"nickname", "frontend"} of one user.
        The lobby sends these only for the first change after a quiet second;
        changes right after it are gathered and come as one 'users_changed'
        with detail {"joined": [...], "left": [...]} (lists of such dicts, in
        order; either may be empty; a user who came and went in between is
        in neither).  A front end may show many names as one line ("37 users
        have entered the lobby").

        Tables likewise, in a window of their own: 'table_added' /
        'table_changed' (detail: the table's ``Table.summary()``) and
        'table_removed' (detail {"id"}) come for the first change after a quiet
        second; the changes right after it come as one 'tables_changed' with
        detail {"added": [summary...], "changed": [summary...], "removed":
        [id...]}: each table once, with its latest summary (a table made and
        started in between is in "added", state "playing"; one made and gone
        in between is in "removed", which may name a table the sink never
        heard of).  The same ``detail`` object goes to every sink:
        a front end may work out its bytes once per notice, keyed by identity.

        Unknown events are to be ignored."""

    def table_event(table, event: str, detail: dict) -> None:
        """Something happened at a table this user sits or watches at.

        ``event`` is one of 'joined', 'left', 'started', 'game' (detail["events"]
        holds the engine's events, detail["seq"] the count of actions applied
        once they are), 'decision' (a decision is pending for this
        user: detail["seat"]), 'chat', 'finished', 'aborted', 'seat_changed'.
        """

    def disconnect(reason: str) -> None:
        """Close the user's connection (kick, shutdown), telling it why if the protocol can."""


class IChatlessSink(IUserSink):
    """A user sink whose protocol has no chat (PIMP): its ``lobby_chat`` shows nothing, so
    the console's ``say`` does not count its user as reached."""


class ITableListener(Interface):
    """What a table tells the hall that hosts it (``gamehall.table.Table.hall``)."""

    def table_changed(table) -> None:
        """Seats, spectators or state changed (the lobby's table list is redrawn)."""

    def table_finished(table) -> None:
        """The game ended or was aborted; the table is done."""

    def table_stalled(table) -> None:
        """The table's store writes started (``table.stalled``) or stopped failing."""

    def table_removed(table) -> None:
        """A waiting table emptied: it is gone."""

    def table_fenced(table) -> None:
        """Another process of the hall runs the table now (its lease was lost): the table
        has stopped (``Table.fence``) and its players were told; the host drops it."""

    def action_applied(table) -> None:
        """One action was applied at the table (statistics)."""


class ITableHost(ITableListener):
    """Everything a table needs from its hall: the listener plus a few settings and services.

    ``gamehall.table`` depends on this interface alone, never on ``gamehall.hall``; the
    ``Hall`` provides it."""

    clock = Attribute("IReactorTime: turn timers, seat holds, bot moves, store retries")
    store = Attribute("IStore the table writes its seats, actions and result to")
    seat_hold = Attribute("seconds a disconnected human's seat is held before a bot plays it (0: at once)")
    bot_delay = Attribute("seconds a bot waits before it moves (the table option 'bot_delay' overrides it)")

    def new_seed() -> int:
        """A seed for a new game's engine."""

    def service(game_name: str) -> IGameService:
        """The per-hall service of the game called ``game_name`` (``IGame.attach``): the
        table calls its hooks (engine, seating at the start, events)."""

    def name_in_use(nickname: str) -> bool:
        """True when a logged-in user is called ``nickname`` (a bot's name must differ)."""

    def check_claim(table, index: int, address: str, secret: str | None = None) -> None:
        """Raise ``TableError`` unless the player at ``address`` may take seat ``index`` back."""


class IGameView(Interface):
    """What a browser may see of one game, and the script that draws it.  Pure: no I/O.

    The web front end finds views with ``getPlugins(IGameView)`` (a game's
    dropin provides ``IPlugin`` and ``IGameView``); a game without one still
    shows in the web lobby, with the plain event log.
    """

    game = Attribute("the IGame.name this view draws, e.g. 'acquire', 'windward', 'pimp', 'et'")
    script = Attribute("(package, path) of the JavaScript that draws the board, served by the web "
                       "front end at /views/<game>.js, e.g. ('gamehall_acquire', 'static/acquire.js')")

    def spectator(engine) -> dict:
        """Everything a spectator may see, as JSON-able data (no rack, hand, bag, password)."""

    def seat(engine, seat: int) -> dict:
        """What the player in ``seat`` may see: the spectator view plus that seat's own hidden
        information (e.g. its rack) and nobody else's."""

    def decision(engine, seat: int) -> dict | None:
        """The decision pending for ``seat``, or None.

        ``{"prompt": str, "choices": [{"label": str, "action": {...engine action...},
        "key": "1"|None}, ...]}`` built from the engine's own legal actions; for a
        decision too large to list, the board script may offer clicks instead and
        "choices" holds the most useful subset plus ``"board": true``."""

    def describe(engine, seat: int | None, events: list) -> list[str]:
        """Readable log lines for engine events, as ``seat`` (None: a spectator) may see them."""

    def scores(engine) -> list[float]:
        """One number per seat (score, net worth) for the replay chart."""


class IScriptDataView(IGameView):
    """A view whose board script needs data that never changes (Diplomacy's map): served
    once in front of its script as ``GameHall.viewData[game]``, so states stay small."""

    def script_data() -> dict:
        """JSON-able data for the board script."""
