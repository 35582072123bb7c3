"""Windward series in the hall: players, series of tables, and the per-hall service.

The original server's model (§3, §7, §8.8), mapped onto the hall:

* :class:`Contestant` is a Windward player.  It logs in to the hall's shared
  lobby (front end ``"windward"``) and is the hall's ``IUserSink`` for that
  user.  It outlives its connections while its series lasts: when the socket
  drops, the seat stays in the game and every query to it fails at once, so
  the timeout default is played (§7, "Lost connection"); a ``join`` with the
  same name attaches the new socket and gets ``setup`` again (§3.6), then the
  pending query if it is its turn.  (The hall's held seats are not used: they
  wait ``seat_hold`` seconds for the player and then hand the seat to a bot,
  which would stall a contest series and change who plays the seat.)
* :class:`Match` is one series of N games with the same six players (§8.8).
  Joins go to its waiting hall table (created with ``hall.create_table``);
  when joins close -- six joined, every name of an auto-run list joined, or
  the operator's ``ww-start`` -- the empty seats get the server's AIs, named
  "Sheldon Cooper", "Leonard Hofstadter"... (the hall names bots itself, e.g.
  ``SimpleBot1``: the seat is renamed before the game starts).  Each game is
  one hall table, created when the previous one finishes, so each game is
  stored (actions, result, record) like any hall game.  The hall starts every
  engine with its seat 0, so game k is seated with the series' order rotated
  by k: the first player rotates (§8.1) while every message lists the players
  in the series' order (:mod:`.render`).  Scores, reasons and records are
  booked in a :class:`~gamehall_acquire.windward.series.Series`.
* Game 1 is started paused: ``setup`` goes to every remote player and play
  begins when every connected one has answered ``<ready/>`` or after the
  ready grace (``SECONDS_WAIT_READY`` = 2 s, §3.4).  Games 2..N start right
  after their ``setup``.  After the last game every connected player gets
  the bare ``<exit/>`` and its socket is closed (§9), and the players leave
  the lobby.
* :class:`WindwardService` is the front end's state for one hall: the known
  players by name, the series, the settings, and callbacks for the
  ``gamehall-windward`` runner.
* After a hall restart (``Match.restored``): each game table keeps in its
  options the series' state (``Match.series_state``), and the game's
  ``table_restored`` hook rebuilds the series around the restored table.
  Its players are not connected then, so here the hall's held seats are
  used: a player joining again under its name takes its seat back (the
  hall's identity rule applies), else the series' fill bot plays it after
  ``seat_hold``; later games seat that bot under the player's name until
  the player is back.

Replies are matched by msg-id only; a reply is normalised by the engine
(``WindwardGame.normalise``), so it is always legal; no reply within the
table's turn timeout (``options["turn_timeout"]``, else the game's 5 s) gets
the engine's ``timeout_action``.
"""
from __future__ import annotations

import random
import uuid
from collections import deque
from dataclasses import dataclass, replace
from typing import Callable

from zope.interface import implementer

from gamehall.connection import BAD_LOG_INTERVAL, client_text
from gamehall.interfaces import IUserSink
from gamehall.logger import SharedLogger
from gamehall.lobby import LobbyError, User
from gamehall.service import GameService
from gamehall.table import PLAYING, WAITING, TableError

from ..series import Series
from . import render
from .codec import EXIT, Join, Reply

__all__ = ["AI_NAMES", "Settings", "Contestant", "Match", "WindwardService", "service_for", "SETTINGS_KEY",
           "check_setting"]

GAME = "windward"
SEATS = 6
#: the original server's built-in AIs, in the order they fill seats (§3.3), then spares
AI_NAMES = ("Sheldon Cooper", "Leonard Hofstadter", "Rajesh Koothrappali", "Howard Wolowitz", "Penny",
            "Bernadette Rostenkowski", "Amy Farrah Fowler", "Stuart Bloom", "Leslie Winkle", "Barry Kripke",
            "Wil Wheaton", "Zack Johnson")
AI_SCHOOL, AI_LANGUAGE = "Windward Studios", "C#"
SECONDS_WAIT_READY = 2.0

# Not a plain ``Logger()`` class attribute: that descriptor makes each event's
# log_source the instance, and events kept by an observer (e.g. the buffer that
# holds events until logging begins) would keep whole series alive (see gamehall.logger).
_log = SharedLogger()
KEEP_FINISHED = 20          # finished series kept for ww-list / ww-view (with their tables)


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


@dataclass
class Pending:
    table: object
    seq: int
    msg_id: str
    kind: str
    sent: float


@implementer(IUserSink)
class Contestant:
    """A Windward player: its hall user, its series, its current connection (or None)."""

    log = _log

    def __init__(self, service: "WindwardService", join: Join) -> None:
        self.service = service
        self.name = join.name
        self.school = join.school
        self.language = join.language
        self.avatar = join.avatar
        self.user: User | None = None
        self.match: Match | None = None
        self.protocol = None
        self.pending: Pending | None = None
        self.kicked = False                 # the operator kicked it: a bot plays its seat
        self.ready = False                  # answered the last setup
        self.seating = False                # taking a restored seat: setup goes out before any query
        # stale: replies matching no pending query, of which late: to a query that timed out
        self.stats = {"queries": 0, "replies": 0, "stale": 0, "late": 0, "malformed": 0, "unexpected": 0,
                      "timeouts": 0, "defaults": 0, "joins": 1}
        self.timed_out: deque = deque(maxlen=8)     # Pending of the last queries that timed out

    # -- connection ------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self.protocol is not None and not self.protocol.closing

    @property
    def key(self) -> str:
        return self.name.casefold()

    def attach(self, protocol) -> None:
        self.protocol = protocol
        protocol.contestant = self

    def send(self, payload: bytes) -> None:
        if self.protocol is not None:
            self.protocol.send_payload(payload)

    def send_all(self, payloads: list) -> None:
        """Several messages of one event in one write: the clients' delayed ACKs
        would otherwise hold the second one back (Nagle on their side)."""
        if self.protocol is not None and payloads:
            self.protocol.send_payloads(payloads)

    def close(self) -> None:
        proto, self.protocol = self.protocol, None
        if proto is not None:
            proto.contestant = None
            proto.close()

    def connection_lost(self, protocol) -> None:
        if protocol is not self.protocol:
            return
        self.protocol = None
        self.service.notify("lost", self, None)
        m = self.match
        if m is None or m.state == "joining":
            # before joins close, a dropped player simply leaves the waiting table
            self.service.forget(self)
            if self.user is not None:
                user, self.user = self.user, None
                self.service.hall.logout(user)
            if m is not None:
                m.contestant_left(self)
            return
        # in a series: the seat stays; a pending query fails now (§7)
        if m.state == "ready-wait":
            m.contestant_ready(self)
        p = self.pending
        if p is not None:
            self.pending = None
            self._default_later(p.table, p.seq)

    def rejoined(self, protocol) -> None:
        """The same name joined again: attach, then ``setup`` (and the pending query) again."""
        self.attach(protocol)
        self.stats["joins"] += 1
        self.service.notify("rejoined", self, None)
        m = self.match
        if m is None:
            return
        table = m.table
        if table is not None and table.state == PLAYING and self.user is not None and self.user.table is table:
            out: list = []
            self.send_setup(table, out)
            if m.state == "playing" and not table.paused:
                self.ask(table, force=True, out=out)    # (a paused table asks again when it resumes)
            self.send_all(out)

    # -- messages in -----------------------------------------------------
    def on_ready(self) -> None:
        self.ready = True
        self.service.notify("ready", self, None)
        if self.match is not None:
            self.match.contestant_ready(self)

    def on_reply(self, reply: Reply) -> None:
        p = self.pending
        if p is None or reply.msg_id != p.msg_id:
            self.stats["stale"] += 1
            late = next((q for q in self.timed_out if q.msg_id == reply.msg_id), None)
            if late is not None:
                self.stats["late"] += 1
                self.service.notify("late", self, {"kind": late.kind, "reply": reply,
                                                   "after": self.service.hall.clock.seconds() - late.sent})
            else:
                self.service.notify("stale", self, reply)
            return
        self.pending = None
        self.stats["replies"] += 1
        self.service.notify("reply", self, reply)
        table = p.table
        if table.state != PLAYING or table.seq != p.seq or self.user is None:
            return
        seat = table.seat_of(self.user)
        if seat is None or table.engine.pending_seat() != seat:
            return
        try:
            action = table.engine.normalise(seat, reply.attrs)
        except Exception:
            self.log.failure("windward: normalise failed for {name}; the turn timer decides", name=self.name)
            return
        try:
            table.act(self.user, action)
        except Exception:
            self.log.failure("windward: {name}'s normalised reply was refused; default played", name=self.name)
            self._play_default(table, p.seq)

    def malformed(self, reason: str, frame: bytes) -> None:
        self.stats["malformed"] += 1
        if self.protocol is not None:          # summed up in one log line a minute (gamehall.connection)
            self.protocol.count_bad("unreadable message", reason)
        self.service.notify("malformed", self, reason)

    def unexpected(self, msg) -> None:
        self.stats["unexpected"] += 1
        if self.protocol is not None:
            self.protocol.count_bad("unexpected message", repr(msg))
        self.service.notify("unexpected", self, msg)

    # -- messages out ----------------------------------------------------
    def send_setup(self, table, out: list | None = None) -> None:
        """``setup`` for ``table`` (appended to ``out`` instead when given)."""
        if not self.connected or table is None or table.engine is None or self.user is None:
            return
        seat = table.seat_of(self.user)
        if seat is None:
            return
        self.ready = False
        msg_id = self.match.rng.randrange(2**31)
        payload = render.setup(table.engine, seat, self.match.seating(table), msg_id)
        self.send(payload) if out is None else out.append(payload)

    def ask(self, table, force: bool = False, out: list | None = None) -> None:
        """Send the query for this player's pending decision (or play the default if offline);
        with ``out`` the query is appended to it instead of sent."""
        if table.state != PLAYING or self.user is None:
            return
        seat = table.seat_of(self.user)
        if seat is None or table.engine.pending_seat() != seat:
            return
        p = self.pending
        if not force and p is not None and p.table is table and p.seq == table.seq:
            return                              # already asked (the hall may advance twice)
        if not self.connected:
            self.pending = None
            self._default_later(table, table.seq)
            return
        kind = table.engine.pending().kind
        msg_id = self.match.new_guid()
        self.pending = Pending(table, table.seq, msg_id, kind, self.service.hall.clock.seconds())
        self.stats["queries"] += 1
        payload = render.query(table.engine, seat, self.match.seating(table), msg_id)
        self.send(payload) if out is None else out.append(payload)

    def _default_later(self, table, seq: int) -> None:
        self.service.hall.clock.callLater(0, self._play_default, table, seq)

    def _play_default(self, table, seq: int) -> None:
        if table.state != PLAYING or table.seq != seq or self.user is None:
            return
        seat = table.seat_of(self.user)
        if seat is None or table.engine.pending_seat() != seat:
            return
        if self.pending is not None and self.pending.table is table and self.pending.seq == seq and self.connected:
            return                              # asked again meanwhile (a rejoin)
        self.stats["defaults"] += 1
        try:
            table.act(self.user, table.engine.timeout_action(seat))
        except Exception:
            self.log.failure("windward: default move for {name} failed", name=self.name)

    # -- IUserSink ---------------------------------------------------------
    def lobby_chat(self, sender: str, text: str) -> None:
        pass                                    # the protocol has no chat

    def lobby_changed(self, event: str, detail: dict) -> None:
        pass

    def table_event(self, table, event: str, detail: dict) -> None:
        if event == "started":
            out: list = []
            self.send_setup(table, out)
            m = self.match
            if out and m is not None and m.state == "playing" and not table.paused:
                self.ask(table, out=out)        # the first decision is ours: with the setup, one write
            self.send_all(out)
        elif event == "decision":
            if not self.seating and detail.get("seat") == table.seat_of(self.user):
                self.ask(table)
        elif event == "timeout":
            self.stats["timeouts"] += 1
            p, self.pending = self.pending, None     # a late reply is stale
            if p is not None:
                self.timed_out.append(p)
            self.service.notify("timeout", self, {"kind": p.kind if p is not None else None,
                                                  "after": self.service.hall.clock.seconds() - p.sent
                                                  if p is not None else None})
        elif event == "aborted":
            if self.match is not None:
                self.match.table_aborted(table, detail.get("reason", ""))

    def disconnect(self, reason: str) -> None:
        """The hall closes this user (kick, shutdown): no more queries; the socket closes.
        Its client may reconnect by itself: its joins are refused while the series lasts."""
        self.kicked = True
        self.pending = None
        self.service.forget(self)
        if self.match is not None:
            self.match.kicked_out(self)
        self.close()
        if self.match is not None and self.match.state == "joining":
            self.match.contestant_left(self)


@implementer(IUserSink)
class _Referee:
    """The series' eyes on its current table (seated as a spectator): start and end of each game."""

    def __init__(self, match: "Match") -> None:
        self.match = match

    def lobby_chat(self, sender, text):
        pass

    def lobby_changed(self, event, detail):
        pass

    def table_event(self, table, event, detail):
        if table is not self.match.table:
            return
        if event == "started":
            self.match.table_started(table)
        elif event == "finished":
            self.match.table_finished(table, detail["result"])
        elif event == "aborted":
            self.match.table_aborted(table, detail.get("reason", ""))

    def disconnect(self, reason):
        pass


class Match:
    """One series: six seats in join order (then the AIs), N games, one hall table per game."""

    log = _log

    def __init__(self, service: "WindwardService", number: int | None, games: int, seed: int,
                 table=None) -> None:
        self.service = service
        self.hall = service.hall
        # the settings as they were when the series was created: a later ww-set (AI, turn
        # timeout, bot delay, ready grace) is for series created after it, not this one
        self.settings: Settings = replace(service.settings)
        self.number = number
        self.games = games
        self.seed = seed
        self.rng = random.Random(f"windward-match:{seed}")
        self.state = "joining"                  # ready-wait, playing, finished, stopped, dropped
        self.seats: list = []                   # series seat -> Contestant or None (an AI)
        self.names: list[str] = []
        self.guids: list[str] = []
        self.humans: set[str] = set()           # names of the series seats its players joined for
        self.series: Series | None = None
        self.table = None                       # the current hall table
        self.table_ids: list[int] = []
        self.orders: dict[int, list[int]] = {}  # table id -> table seat -> series seat
        self.operator_paused = False
        self.speed: float | None = None         # bots' turns per second set by the operator (0: full)
        self.kicked: set[str] = set()           # names of the seats whose players were kicked
        self._started_seen = False
        self._ready_timer = None
        self.table = table if table is not None else self.hall.create_table(GAME, options=self._options(0))
        if self.number is None:
            # a series is numbered after its first table: hall numbers survive a restart and
            # are never given twice, so neither are series numbers
            self.number = self.table.id
            self.table.options["series"]["number"] = self.number
        self._referee = User(nickname=f"(windward series {self.number})", frontend=GAME, sink=_Referee(self))
        self._referee.kind = "referee"
        self.table_ids.append(self.table.id)
        service.tables[self.table.id] = self

    @classmethod
    def restored(cls, service: "WindwardService", table, info: dict) -> "Match":
        """The series of ``table``, restored by the hall after a restart (see ``series_state``):
        it goes on from that game, its players' seats held for them until they join again."""
        k = int(info["game"]) - 1
        names, guids, scores = list(info["names"]), list(info["guids"]), [list(x) for x in info["scores"]]
        order = [(j + k) % SEATS for j in range(SEATS)]
        if (len(names) != SEATS or len(guids) != SEATS or len(scores) != k or not 0 <= k < int(info["games"])
                or any(len(x) != SEATS for x in scores) or table.players() != [names[o] for o in order]):
            raise ValueError("the table's series state does not match its seats")
        match = cls(service, int(info["number"]), int(info["games"]), int(info["seed"]), table=table)
        # its own settings, kept in its table's options (not the service's of today)
        opts = table.options
        match.settings = replace(match.settings, fill_bot=opts.get("fill_bot", match.settings.fill_bot),
                                 turn_timeout=opts.get("turn_timeout"), bot_delay=opts.get("bot_delay"))
        match.rng = random.Random(f"windward-match:{match.seed}:restored:{k}:{table.seq}")
        match.names, match.guids = names, guids
        # kicked players stay out (their seats are the AI's) until the series ends
        match.kicked = set(info.get("kicked") or ()) & set(names)
        match.humans = set(info.get("humans") or ()) & set(names) - match.kicked
        for name in match.kicked:
            service.kicked[name.casefold()] = [match, 0, name]
        speed = info.get("speed")
        if isinstance(speed, (int, float)) and not isinstance(speed, bool) and 0 <= speed <= 1000:
            match.speed = speed                 # the operator's ww-speed, for its next games too
        match.seats = [None] * SEATS
        match.series = Series(names, match.games, match.seed)
        match.series.scores = scores
        match.series.reasons = list(info.get("reasons") or [""] * k)
        match.series.records = [None] * k       # earlier games' records are in the store, not here
        match.orders[table.id] = order
        # the numbers of its earlier games' tables: ww-view and the rest still know them
        earlier = [int(t) for t in info.get("tables") or () if int(t) != table.id]
        match.table_ids = earlier + match.table_ids
        for t in earlier:
            service.tables.setdefault(t, match)
        match.state, match._started_seen = "playing", True
        table.watch(match._referee)
        table.options["humans"] = sorted(set(table.options.get("humans") or ()) | match.humans)
        return match

    # -- helpers -----------------------------------------------------------
    def new_guid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def seating(self, table) -> render.Seating:
        return render.Seating(guids=self.guids, order=self.orders[table.id],
                              scoreboards=[self.series.scoreboard(s) for s in range(SEATS)])

    @property
    def game_index(self) -> int:
        """0-based index of the current (or next) game."""
        return self.series.played if self.series is not None else 0

    def contestants(self) -> list[Contestant]:
        return [c for c in self.seats if c is not None]

    def _options(self, k: int) -> dict:
        st = self.settings
        # fill_bot: a seat taken over from a player (kick, hold, operator) gets the series'
        # own AI, so no player's series total mixes bot strengths
        opts = {"series": {"number": self.number, "game": k + 1, "games": self.games}, "fill_bot": st.fill_bot}
        if st.turn_timeout is not None:
            opts["turn_timeout"] = st.turn_timeout
        if st.bot_delay is not None:
            opts["bot_delay"] = st.bot_delay
        return opts

    # -- joining -----------------------------------------------------------
    def add(self, contestant: Contestant) -> None:
        self.table.join(contestant.user)        # TableError propagates
        contestant.match = self
        self.seats.append(contestant)

    def contestant_left(self, contestant: Contestant) -> None:
        if contestant in self.seats:
            self.seats.remove(contestant)
        contestant.match = None
        if self.state == "joining" and self.table.id not in self.hall.tables:
            self.state = "dropped"              # the hall removed the emptied waiting table
            self.service.match_over(self)

    def joined_names(self) -> set:
        return {c.name for c in self.seats}

    def close_joins(self) -> None:
        """Fill the empty seats with the server's AIs and start game 1."""
        if self.state != "joining":
            raise TableError(f"Windward series {self.number} has already started")
        table = self.table
        st = self.settings
        taken = {s.name.casefold() for s in table.seats}
        spare = iter(n for n in AI_NAMES if n.casefold() not in taken)
        while len(table.seats) < SEATS:
            table.add_bot(st.fill_bot, name=next(spare))
        self.names = table.players()
        self.seats = [next((c for c in self.seats if c.user is s.user), None) if s.kind == "human" else None
                      for s in table.seats]
        self.humans = {c.name for c in self.seats if c is not None}
        self.guids = [self.new_guid() for _ in range(SEATS)]
        self.series = Series(self.names, self.games, self.seed)
        self._start_game(table)

    # -- games -------------------------------------------------------------
    def series_state(self, k: int) -> dict:
        """What a restart needs to resume the series at game ``k`` (kept in the table's options)."""
        humans = [n for n, c in zip(self.names, self.seats) if n not in self.kicked
                  and ((c is not None and not c.kicked) or (c is None and n in self.humans))]
        return {"number": self.number, "game": k + 1, "games": self.games, "seed": self.seed,
                "tables": list(self.table_ids[:-1]),     # the earlier games' (the last is game k's)
                "names": list(self.names), "guids": list(self.guids), "humans": humans,
                "kicked": sorted(self.kicked), "speed": self.speed,
                "scores": [list(x) for x in self.series.scores], "reasons": list(self.series.reasons)}

    def kicked_out(self, contestant: "Contestant") -> None:
        """The operator kicked ``contestant``: its joins are refused until the series ends,
        and its seat is the series' AI's, also after a restart (kept in the table's options)."""
        self.service.kicked[contestant.key] = [self, 0, contestant.name]
        if self.series is None:
            return                              # a waiting series: it only leaves the table
        self.kicked.add(contestant.name)
        table = self.table
        if table is not None and table.state == PLAYING and table.id == self.table_ids[-1]:
            humans = table.options.get("humans")
            if isinstance(humans, list) and contestant.name in humans:
                # else the hall's held-seat rule would give the AI's seat back to it
                table.options["humans"] = [n for n in humans if n != contestant.name]
            table.options["series"] = self.series_state(self.game_index)
            table.persist_options()

    def _start_game(self, table) -> None:
        k = self.game_index
        self.orders[table.id] = [(j + k) % SEATS for j in range(SEATS)]
        table.seed = self.series.game_seeds[k]
        table.options["series"] = self.series_state(k)
        if self.speed is not None:
            table.set_speed(self.speed or None)
        table.watch(self._referee)
        self._started_seen = False
        first = k == 0
        if first or self.operator_paused:
            table.pause()
        if first:
            self.state = "ready-wait"
            for c in self.contestants():
                c.ready = False
            grace = self.settings.ready_grace
            if grace is not None:
                self._ready_timer = self.hall.clock.callLater(grace, self._ready_grace_over)
        else:
            self.state = "playing"
        table.start()
        absent = [n for n, c in zip(self.names, self.seats) if c is None and n in self.humans]
        if absent:      # played by AIs until their players join again (after a restart)
            table.options["humans"] = list(table.options.get("humans") or ()) + absent
        self.service.game_started(self, k)

    def table_started(self, table) -> None:
        self._started_seen = True
        if self.state == "ready-wait":
            self._check_ready()

    def contestant_ready(self, contestant: Contestant) -> None:
        if self.state == "ready-wait":
            self._check_ready()

    def _check_ready(self) -> None:
        if self._started_seen and all(c.ready for c in self.contestants() if c.connected):
            self._begin_play()

    def _ready_grace_over(self) -> None:
        self._ready_timer = None
        if self.state == "ready-wait":
            if self._started_seen:
                self._begin_play()
            else:                               # the store is slow: try again shortly
                self._ready_timer = self.hall.clock.callLater(0.1, self._ready_grace_over)

    def _begin_play(self) -> None:
        if self._ready_timer is not None and self._ready_timer.active():
            self._ready_timer.cancel()
        self._ready_timer = None
        self.state = "playing"
        if not self.operator_paused:
            self.resume(operator=False)

    def table_finished(self, table, result: dict) -> None:
        order = self.orders[table.id]
        scores = [0] * SEATS
        for engine_seat, score in enumerate(result["scores"]):
            scores[order[engine_seat]] = score
        s = self.series
        s.scores.append(scores)
        s.reasons.append(result["reason"])
        s.records.append(table.engine.record())
        k = s.played - 1
        self.log.info("windward series {n}: game {k}/{games} over ({reason}): {scores}",
                      n=self.number, k=k + 1, games=self.games, reason=result["reason"], scores=scores)
        self.service.game_finished(self, k, table)
        if s.is_over():
            self.hall.clock.callLater(0, self._finish, "finished")
        else:
            self.hall.clock.callLater(0, self._next_game)

    def _next_game(self) -> None:
        if self.state in ("finished", "stopped"):
            return
        k = self.game_index
        table = self.hall.create_table(GAME, options=self._options(k))
        self.table = table
        self.table_ids.append(table.id)
        self.service.tables[table.id] = self
        order = [(j + k) % SEATS for j in range(SEATS)]
        for series_seat in order:
            c = self.seats[series_seat]
            if c is not None and not c.kicked and c.user is not None:
                table.join(c.user)
            else:
                table.add_bot(self.settings.fill_bot, name=self.names[series_seat])
        self._start_game(table)

    def table_aborted(self, table, reason: str) -> None:
        if table is not self.table or self.state in ("finished", "stopped", "dropped"):
            return
        self.log.info("windward series {n} stopped: {reason}", n=self.number, reason=reason)
        self.hall.clock.callLater(0, self._finish, "stopped")

    def _finish(self, state: str) -> None:
        if self.state in ("finished", "stopped"):
            return
        if self._ready_timer is not None and self._ready_timer.active():
            self._ready_timer.cancel()
        self._ready_timer = None
        self.state = state
        for c in self.contestants():
            c.pending = None
            if c.connected:
                c.send(EXIT)
            c.close()
            self.service.forget(c)
            if c.user is not None:
                user, c.user = c.user, None
                if user.table is not None:
                    try:
                        user.table.leave(user)
                    except Exception:   # pragma: no cover - defensive
                        self.log.failure("windward: leaving the table failed")
                self.hall.logout(user)
        self.service.match_over(self)

    # -- operator ----------------------------------------------------------
    def start(self) -> None:
        """``ww-start``: close joins now."""
        self.close_joins()

    def stop(self, reason: str = "Stopped by the operator") -> None:
        """``ww-stop``: abort the current game and end the series (every client gets ``exit``)."""
        if self.state == "joining":
            self.hall.close_table(self.table.id, reason)
            self._finish("stopped")
            return
        if self.table is not None and self.table.state == PLAYING:
            self.hall.close_table(self.table.id, reason)     # -> table_aborted -> _finish
        else:
            self._finish("stopped")

    def pause(self) -> None:
        self.operator_paused = True
        if self.table is not None and self.table.state == PLAYING:
            self.table.pause()

    def resume(self, operator: bool = True) -> None:
        if operator:
            self.operator_paused = False
        if self.state == "ready-wait":
            if operator:
                self._begin_play()
            return
        table = self.table
        if table is not None and table.state == PLAYING:
            table.resume()

    def step(self) -> None:
        self.operator_paused = True
        table = self.table
        if self.state == "ready-wait":
            self.state = "playing"
            if self._ready_timer is not None and self._ready_timer.active():
                self._ready_timer.cancel()
            self._ready_timer = None
        if table is not None and table.state == PLAYING:
            table.step()

    def set_speed(self, turns_per_second: float | None) -> None:
        self.speed = turns_per_second or 0
        table = self.table
        if table is not None:
            series = table.options.get("series")
            if isinstance(series, dict) and self.series is not None:
                series["speed"] = self.speed    # stored with the table's options (for a restart)
            table.set_speed(turns_per_second)

    def describe(self) -> str:
        where = f"table #{self.table.id}" if self.table is not None else "no table"
        game = f"game {min(self.game_index + 1, self.games)}/{self.games}"
        paused = ", paused" if self.operator_paused else ""
        return f"series {self.number}: {self.state}{paused}, {game}, {where}"


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
    """The windward front end's state for one hall (see the module docstring): the Windward
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

    def _reseat(self, protocol, msg: Join, match: Match, seat: int) -> Contestant | None:
        """A player of a restored series joins again: its seat (held, or an AI's meanwhile) back."""
        name, peer = msg.name, getattr(protocol, "peer", "")
        contestant = Contestant(self, msg)
        try:
            contestant.user = self.hall.login(name, GAME, contestant, peer)
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
            return self._reseat(protocol, msg, match, seat)
        st = self.settings
        if st.allow is not None and name not in st.allow:
            return self.refused(protocol, name, "not listed")
        match = self.waiting_match()
        if match is None:
            if st.single and (self.matches or self.finished):
                return self.refused(protocol, name, "running")
        contestant = Contestant(self, msg)
        try:
            contestant.user = self.hall.login(name, GAME, contestant, peer)
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
