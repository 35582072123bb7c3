"""The Windward front end's state for one hall (:class:`WindwardService`, the game's
IGameService): the known players by name, the series, the settings (and the operator's
``ww-set`` of them), refused joins, and callbacks for the ``gamehall-windward`` runner.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable

from gamehall.connection import BAD_LOG_INTERVAL, client_text
from gamehall.logger import SharedLogger
from gamehall.lobby import LobbyError
from gamehall.players import split_key
from gamehall.service import GameService
from gamehall.table import PLAYING, WAITING, TableError

from .codec import EXIT, Join
from .contestant import Contestant
from .match import GAME, SEATS, SECONDS_WAIT_READY, Match

__all__ = ["Settings", "WindwardService", "service_for", "SETTINGS_KEY", "check_setting", "KEEP_FINISHED"]

KEEP_FINISHED = 20          # finished series kept for ww-list / ww-view (with their tables)
# a SharedLogger, not a plain Logger class attribute: see match._log
_log = SharedLogger()


@dataclass
class Settings:
    """How the service runs series (the hall's defaults; ``gamehall-windward`` sets its own)."""

    games: int = 1                      # games per series
    turn_timeout: float | None = None   # seconds per query; None: the game's (5 s)
    ready_grace: float | None = SECONDS_WAIT_READY   # None: wait for every ready
    fill_bot: str = "simple"            # the server's AIs: the contest's "brain-dead" AI
    bot_delay: float | None = None      # seconds per bot move; None: the hall's
    allow: tuple | None = None          # auto-run: only these names; joins close when all have joined
    single: bool = False                # auto-run: one series only, later joins refused
    autostart: bool = True              # close joins when 6 have joined
    seed: int | None = None             # series seed (None: from the hall)


#: the hall setting (IStore.save_setting) that keeps the operator's ww-set values
SETTINGS_KEY = "windward"
#: what ww-set may change: attribute -> its type
OPERATOR_SETTINGS = {"games": int, "turn_timeout": float, "ready_grace": float, "fill_bot": str}


def check_setting(attr: str, value) -> str | None:
    """Why ``value`` is no good for the operator's setting ``attr``, or None."""
    kind = OPERATOR_SETTINGS.get(attr)
    if kind is None:
        return f"no setting {attr!r}"
    if kind is str and not isinstance(value, str) or kind is not str and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or kind is int and value != int(value)):
        return f"{attr} takes a {kind.__name__}, not {value!r}"
    if attr == "fill_bot" and value not in ("strong", "simple"):
        return "fill-bot is strong or simple"
    if attr == "games" and value < 1:
        return "games must be 1 or more"
    if attr in ("turn_timeout", "ready_grace") and not 0 < value < float("inf"):
        return f"{attr.replace('_', '-')} must be more than 0 seconds"
    return None


class RefusalLog:
    """Refused joins logged as bad input is (``gamehall.connection``): a summary line at most every
    ``BAD_LOG_INTERVAL`` seconds (the first refusal at once), counts by reason with a sample,
    not a line per refusal: a client refused at each of its reconnects wrote 146 lines in 8 s."""

    def __init__(self, clock) -> None:
        self.clock = clock
        self.counts: dict[str, int] = {}
        self.samples: dict[str, str] = {}
        self._logged_at: float | None = None
        self._call = None

    def add(self, why: str, sample: str) -> None:
        self.counts[why] = self.counts.get(why, 0) + 1
        self.samples.setdefault(why, sample)
        now = self.clock.seconds()
        if self._logged_at is None or now - self._logged_at >= BAD_LOG_INTERVAL:
            self.flush()
        elif self._call is None:            # the rest of this interval: one line at its end
            self._call = self.clock.callLater(self._logged_at + BAD_LOG_INTERVAL - now, self.flush)

    def flush(self) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
        if not self.counts:
            return
        self._logged_at = self.clock.seconds()
        summary = "; ".join(f"{n} x {why} (e.g. {self.samples[why]})" for why, n in sorted(self.counts.items()))
        self.counts.clear()
        self.samples.clear()
        _log.info("windward: joins refused: {summary}", summary=summary)


class WindwardService(GameService):
    """The windward front end's state for one hall (see the model in :mod:`.match`): the Windward
    game's IGameService, made by ``WindwardAcquireGame.attach``."""

    log = _log

    def __init__(self, hall, game, settings: Settings | None = None) -> None:
        super().__init__(hall, game)
        self._settings = settings or Settings()
        self._stored: dict | None = None        # the operator's ww-set values applied last
        self.contestants: dict[str, Contestant] = {}     # name key -> player (joined, series not over)
        self.matches: dict[int, Match] = {}              # live series by number
        self.tables: dict[int, Match] = {}               # hall table id -> its series (live and kept ones)
        self.finished: list[Match] = []
        self._numbers = 0
        self.refusals = RefusalLog(hall.clock)
        self.kicked: dict[str, list] = {}       # name key -> [series kicked from, joins refused since, name]
        # callbacks for runners and tests: fn(match, ...) / fn(event, contestant, detail)
        self.on_game_started: Callable | None = None
        self.on_game_finished: Callable | None = None
        self.on_match_over: Callable | None = None
        self.on_client: Callable | None = None
        self._relay = None

    @property
    def relay(self):
        """(A hall of several processes.)  The relay that makes this one series for the hall
        (``relay.WindwardRelay``); None in a one-process hall."""
        if self._relay is None and self.hall.cluster is not None:
            from .relay import WindwardRelay
            self._relay = WindwardRelay(self, self.hall.cluster.node)
        return self._relay

    # -- settings ------------------------------------------------------------
    @property
    def settings(self) -> Settings:
        """The settings for new series: the runner's, with the operator's ``ww-set`` values
        (kept in the store, ``hall.settings[SETTINGS_KEY]``, loaded by the hall's restore)."""
        stored = self.hall.settings.get(SETTINGS_KEY)
        if stored is not self._stored:
            self._stored = stored
            for attr, value in (stored or {}).items():
                if check_setting(attr, value) is None:
                    setattr(self._settings, attr, value)
                else:
                    self.log.warn("windward: stored setting {attr}={value!r} ignored: {why}",
                                  attr=attr, value=value, why=check_setting(attr, value))
        return self._settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._settings = value
        self._stored = None                     # the operator's stored values apply over these too

    def set_setting(self, attr: str, value) -> None:
        """``ww-set``: a default for new series, kept in the store for after a restart."""
        why = check_setting(attr, value)
        if why is not None:
            raise TableError(why)
        setattr(self.settings, attr, value)
        stored = dict(self.hall.settings.get(SETTINGS_KEY) or {})
        stored[attr] = value
        self.hall.save_setting(SETTINGS_KEY, stored)

    # -- hooks -------------------------------------------------------------
    def notify(self, event: str, contestant, detail) -> None:
        if self.on_client is not None:
            self.on_client(event, contestant, detail)

    def game_started(self, match: Match, k: int) -> None:
        if self.on_game_started is not None:
            self.on_game_started(match, k)

    def game_finished(self, match: Match, k: int, table) -> None:
        if self.on_game_finished is not None:
            self.on_game_finished(match, k, table)

    def match_over(self, match: Match) -> None:
        self.matches.pop(match.number, None)
        for key in [k for k, entry in self.kicked.items() if entry[0] is match]:
            del self.kicked[key]                        # its kicked players may join a new series
        if match.state == "dropped":
            self._forget_tables(match)
        else:
            self.finished.append(match)
            for old in self.finished[:-KEEP_FINISHED]:
                self._forget_tables(old)
                old.release()
            del self.finished[:-KEEP_FINISHED]
        if self.on_match_over is not None:
            self.on_match_over(match)

    def _forget_tables(self, match: Match) -> None:
        # ``tables`` maps every game of the live and kept series to its series;
        # without this each join (a waiting table) left its series here for good.
        for table_id in match.table_ids:
            if self.tables.get(table_id) is match:
                del self.tables[table_id]

    def forget(self, contestant: Contestant) -> None:
        if self.contestants.get(contestant.key) is contestant:
            del self.contestants[contestant.key]

    # -- series --------------------------------------------------------------
    def new_match(self, games: int | None = None) -> Match:
        self._numbers += 1
        seed = self.settings.seed if self.settings.seed is not None else self.hall.new_seed()
        if self.settings.seed is not None and self._numbers > 1:
            seed = random.Random(f"{self.settings.seed}:{self._numbers}").randrange(2**63)
        match = Match(self, None, games or self.settings.games, seed)
        self.matches[match.number] = match
        return match

    # -- IGameService --------------------------------------------------------------
    @property
    def admin_commands(self) -> dict:
        from ..admin import ADMIN_COMMANDS
        return ADMIN_COMMANDS

    def table_restored(self, table) -> None:
        """The hall restored ``table`` after a restart: its series resumes (players may rejoin)."""
        self.restore_table(table)

    def restore_table(self, table) -> Match | None:
        """A Windward table the hall restored after a restart: rebuild its series from
        ``options["series"]`` (see ``Match.series_state``); None when it has none."""
        info = table.options.get("series")
        if not isinstance(info, dict) or "names" not in info:
            return None                             # a lone game, or stored before series were kept
        try:
            match = Match.restored(self, table, info)
        except (KeyError, TypeError, ValueError) as exc:
            self.log.warn("windward: table #{id} restored without its series: {why}", id=table.id, why=exc)
            return None
        if match.number in self.matches:        # (stored before series were numbered by table)
            match.number = table.id
        self.matches[match.number] = match
        self.log.info("windward: series {n} resumes at game {k}/{games} (table #{id}); its players may join again",
                      n=match.number, k=match.game_index + 1, games=match.games, id=table.id)
        return match

    def vacant_seat(self, name: str) -> tuple:
        """(series, seat) of a restored series held for ``name``, or (None, None)."""
        for match in self.matches.values():
            if match.series is None or name not in match.humans:
                continue
            for seat, (n, c) in enumerate(zip(match.names, match.seats)):
                if n == name and c is None:
                    return match, seat
        return None, None

    def _reseat(self, protocol, msg: Join, match: Match, seat: int, key: str | None = None) -> Contestant | None:
        """A player of a restored series joins again: its seat (held, or an AI's meanwhile) back."""
        name, peer = msg.name, getattr(protocol, "peer", "")
        contestant = Contestant(self, msg)
        try:
            contestant.user = self.hall.login(name, GAME, contestant, peer, key=key)
        except LobbyError as exc:
            return self.refused(protocol, name, str(exc))
        table = match.table
        contestant.match, contestant.seating = match, True
        try:
            if table is not None and table.state == PLAYING:
                table.join(contestant.user)     # the hall's rule: held seats go back to their player
        except TableError as exc:
            contestant.match = None
            self.hall.logout(contestant.user)
            return self.refused(protocol, name, str(exc))
        finally:
            contestant.seating = False
        match.seats[seat] = contestant
        self.contestants[contestant.key] = contestant
        self.log.info("windward: {name} is back in series {n}", name=client_text(name), n=match.number)
        contestant.stats["joins"] = 0
        contestant.rejoined(protocol)           # setup, then the pending query
        return contestant

    def waiting_match(self) -> Match | None:
        for match in self.matches.values():
            if match.state == "joining" and match.table.state == WAITING and match.table.id in self.hall.tables:
                return match
        return None

    def match_for(self, table_id: int | None) -> Match:
        """The series of a table id (any of its games), or the only live one when None."""
        if table_id is None:
            live = list(self.matches.values())
            if len(live) == 1:
                return live[0]
            raise TableError("say which table: " + (", ".join(f"#{m.table.id}" for m in live)
                                                    or "no Windward series is running"))
        match = self.tables.get(table_id)
        if match is None:
            raise TableError(f"Table #{table_id} is not a Windward series table")
        return match

    # -- joins ---------------------------------------------------------------
    def join(self, protocol, msg: Join) -> Contestant | None:
        """Seat a ``join`` (or attach a rejoin); None when it is refused (the caller closes)."""
        # a registered name's key (alice+KEY) is stripped first: nobody sees it, nothing keeps it
        name, key = split_key(msg.name)
        if key is not None:
            owner = self.hall.players.get(name)
            msg = replace(msg, name=owner.name if owner is not None else name)
            name = msg.name
        peer = getattr(protocol, "peer", "")
        if not name or not name.strip():
            return self.refused(protocol, name, "no name")
        kicked = self.kicked.get(name.casefold())
        if kicked is not None:
            match = kicked[0]
            if match.state not in ("finished", "stopped", "dropped"):
                # told to both: the client gets <exit/> (the Java sample then exits instead of
                # reconnecting), the operator a log line and ww-list
                kicked[1] += 1
                self.log.info("windward: {name}, kicked from series {n}, joined again from {peer}; refused "
                              "with <exit/> until that series ends", name=client_text(name), n=match.number,
                              peer=peer or "?")
                protocol.send_payload(EXIT)
                return self.refused(protocol, name, f"kicked from series {match.number}")
            del self.kicked[name.casefold()]
        known = self.contestants.get(name.casefold())
        if known is not None:
            if known.connected:
                return self.refused(protocol, name, "duplicate")
            if known.name != name:
                return self.refused(protocol, name, "duplicate")
            if known.user is not None and known.user.registered:
                try:                            # a registered name comes back with its key only
                    self.hall.players.admit(name, key, peer)
                except LobbyError as exc:
                    return self.refused(protocol, name, str(exc))
            if known.user is not None:
                try:                            # the hall's rule: same address, or the operator's allow
                    self.hall.check_return(known.user, peer)
                except TableError as exc:
                    return self.refused(protocol, name, str(exc))
            known.rejoined(protocol)
            self.log.info("windward: {name} rejoined", name=name)
            return known
        match, seat = self.vacant_seat(name)
        if match is not None:
            return self._reseat(protocol, msg, match, seat, key)
        st = self.settings
        if st.allow is not None and name not in st.allow:
            return self.refused(protocol, name, "not listed")
        match = self.waiting_match()
        if match is None:
            if st.single and (self.matches or self.finished):
                return self.refused(protocol, name, "running")
        contestant = Contestant(self, msg)
        try:
            contestant.user = self.hall.login(name, GAME, contestant, peer, key=key)
        except LobbyError as exc:
            return self.refused(protocol, name, str(exc))
        if contestant.user.nickname != name:
            self.hall.logout(contestant.user)
            return self.refused(protocol, name, "name with surrounding spaces")
        if match is None:               # only now: a refused join must not open a series
            match = self.new_match()
        try:
            match.add(contestant)
        except TableError as exc:
            self.hall.logout(contestant.user)
            return self.refused(protocol, name, str(exc))
        contestant.attach(protocol)
        self.contestants[contestant.key] = contestant
        self.log.info("windward: {name} ({language}, {school}) joined series {n}", name=client_text(name),
                      language=client_text(msg.language), school=client_text(msg.school), n=match.number)
        if msg.avatar_note:
            self.log.info("windward: {name}: {note}", name=client_text(name), note=client_text(msg.avatar_note))
        self.notify("joined", contestant, msg)
        if self._joins_complete(match):
            match.close_joins()
        return contestant

    def refused(self, protocol, name, why: str) -> None:
        """A join (or a first message that is no join) refused: counted in the hall's
        ``stats``, logged in summary and told to the runner; the caller closes the
        connection (after ``REFUSAL_DELAY``: see ``WindwardProtocol.refuse``)."""
        self.hall.stats.refused[GAME] += 1
        peer = getattr(protocol, "peer", "")
        self.refusals.add(why, f"{client_text(name) if name is not None else 'no join'} from {peer or '?'}")
        self.notify("refused", None, {"name": name, "why": why, "peer": peer})
        return None

    def _joins_complete(self, match: Match) -> bool:
        st = self.settings
        if st.allow is not None:
            return set(st.allow) <= match.joined_names() or len(match.table.seats) >= SEATS
        return st.autostart and len(match.table.seats) >= SEATS

    def start(self, table_id: int | None = None, games: int | None = None) -> Match:
        """Operator: close joins of a waiting series (or start an all-AI one if none waits)."""
        if table_id is None:
            match = self.waiting_match() or self.new_match(games)
        else:
            match = self.match_for(table_id)
        if games is not None:
            if match.state != "joining":
                raise TableError(f"series {match.number} has already started")
            match.games = games
        match.close_joins()
        return match


def service_for(hall) -> WindwardService:
    """The hall's one WindwardService (the front end's factory and the admin commands share
    it): the Windward game's service in the hall."""
    return hall.service(GAME)
