"""A Windward series in the hall (:class:`Match`); its players are in :mod:`.contestant`, the
per-hall service in :mod:`.service`.

The original server's model (§3, §7, §8.8), mapped onto the hall:

* :class:`~.contestant.Contestant` is a Windward player.  It logs in to the hall's shared
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
* :class:`~.service.WindwardService` is the front end's state for one hall: the known
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
import weakref
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING

from zope.interface import implementer

from gamehall.interfaces import IUserSink
from gamehall.logger import SharedLogger
from gamehall.lobby import User
from gamehall.table import PLAYING, TableError

from ..series import Series
from . import render
from .codec import EXIT

if TYPE_CHECKING:
    from .contestant import Contestant
    from .service import Settings, WindwardService

__all__ = ["AI_NAMES", "Match", "GAME", "SEATS"]

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


@implementer(IUserSink)
class _Referee:
    """The series' eyes on its current table (seated as a spectator): start and end of each game."""

    def __init__(self, match: "Match") -> None:
        # weakly: the series holds its referee (a User seated at its tables), and a series
        # the service no longer keeps is then freed by reference counting, not left to the
        # collector's full passes (rare in the hall) as a cycle
        self._match = weakref.ref(match)

    @property
    def match(self) -> "Match | None":
        return self._match()

    def lobby_chat(self, sender, text):
        pass

    def lobby_changed(self, event, detail):
        pass

    def table_event(self, table, event, detail):
        match = self._match()
        if match is None or table is not match.table:
            return
        if event == "started":
            match.table_started(table)
        elif event == "finished":
            match.table_finished(table, detail["result"])
        elif event == "aborted":
            match.table_aborted(table, detail.get("reason", ""))

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

    def release(self) -> None:
        """The service keeps this finished series no longer: its contestants (long gone
        from it) let go of it, so it is freed by reference counting with its records, not
        left as a cycle to the collector's full passes (rare in the hall)."""
        for c in self.contestants():
            if c.match is self:
                c.match = None

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
