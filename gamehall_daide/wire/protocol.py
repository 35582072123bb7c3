"""The ``daide`` front end: DAIDE clients (bots and humans' programs) play Diplomacy in the hall.

Wire (protocol chapter 3, ``gamehall_daide.wire.framing.DaideFramer`` plus the hall's
limits of ``gamehall.connection``): the client's IM within ``IM_TIMEOUT`` seconds
(EM 0x01), version 1 and magic 0xDA10 (EM 0x05 / 0x03 byte-swapped / 0x04),
then an empty RM (the standard map), then DMs both ways; FM before every close
that is not an EM; every other EM case of the table (``framing.em_code``).  A DM is
decoded (``codec``: EM 0x0E for a private token), bracket-checked (PRN) and
syntax-checked against the game's level (``syntax``: HUH with ERR at the
first bad token) before it is acted on.  A message left incomplete for
``PARTIAL_TIMEOUT`` seconds is EM 0x09.  ``MAX_MESSAGE`` caps what a client
sends; replies may use the whole 16-bit length.

Conversation (syntax level 0, press at 10+): ``NME`` takes a seat at the open
Diplomacy table (one is always open; ``DaideRooms.open_table``), unless it
looks like the rejoin of a missing player (``DaideRooms.missing_player``: REJ,
after which the daide-client sends IAM).  A full table starts once every
player has said ``YES (MAP)`` (HLO to each, once, then SCO and NOW).  ``OBS``
watches the newest game in play (else the open table); ``IAM (power)
(passcode)`` takes a held seat back.  A SUB without a turn is for the turn of
the last NOW the client has had (``turn_seen``); a stale one is REJ.  Orders, GOF, DRW are table actions
(``Table.act``): the engine's events reach the clients only once stored (THX,
MIS, CCD, ORD, SCO, SLO/DRW, NOW, TME) through the table's ``emit``, which
the game plugin forwards to ``DaideRooms.table_event`` (so deadlines keep
running with nobody connected).  Deadlines fire a stored ``{"deadline":
turn}`` action by seat -1 (``Table.act_for``); see ``deadlines``.  Press
(``SND``) is routed as ``FRM`` without being stored (it changes no game state).
"""
from __future__ import annotations

import weakref

from twisted.logger import Logger
from zope.interface import implementer

from gamehall.connection import FramedProtocol, FrontEndFactory, client_text
from gamehall.framing import FrameTooLong
from gamehall.interfaces import IllegalAction, IUserSink
from gamehall.lobby import LobbyError, check_nickname
from gamehall.players import split_key
from gamehall.service import GameService
from gamehall.table import PLAYING, WAITING, TableError
from gamehall_daide.game import DEADLINE_SEAT

from ..text import render
from . import codec, syntax
from .deadlines import LIMIT_OF_SEASON, Deadline
from .framing import (DAIDE_DM, DAIDE_EM, DAIDE_FM, DAIDE_IM, DAIDE_RM, EM_BAD_TOKEN, EM_ENDIAN, EM_IM_TIMER, EM_MAGIC,
                      EM_SHORT, EM_VERSION, DaideFramer, em_code)
from ..game import POWERS
from .render import (MAP_NAME, adm, cancel_reply, eliminated_of, hlo, order_reply, passcode, smr,
                     static_payload, step_texts, turn_text)

GAME = "diplomacy"
SEATS = 7
IM_TIMEOUT = 30.0
PARTIAL_TIMEOUT = 30.0               # seconds a message may stay incomplete (EM 0x09 after)
MAX_MESSAGE = 16384                  # bytes of a DM payload from a client (8,192 tokens)
VERSION, MAGIC = 1, 0xDA10
ADMIN_NAME = "Server"                # ADM sender of the operator's `say`
#: the table options of a Diplomacy game (table.options["daide"]); HLO order in render.OPTION_ORDER
DEFAULT_OPTIONS = {"LVL": 0, "MTL": 0, "RTL": 0, "BTL": 0, "DSD": False, "AOA": False,
                   "PDA": False, "NPR": False, "NPB": False, "PTL": 0,
                   "fixed": False, "max_year": 0}      # (not HLO's: seat i plays POWERS[i]; a year limit)

_log = Logger(namespace="gamehall_daide.wire.protocol")
GATHER_EVERY = 1.0
IAM_LOAD_TIMEOUT = 30.0  # seconds an IAM waits for another process's game to be loaded here     # seconds between looks for a second open table (a hall of several processes)


def options_of(table) -> dict:
    opts = dict(DEFAULT_OPTIONS)
    opts.update(table.options.get("daide") or {})
    return opts


def engine_for(table):
    """The table's engine: its options say whether powers are fixed by seat and the year limit."""
    from ..game import POWERS, DiplomacyEngine
    from ..game import RULES
    opts = options_of(table)
    options = {"max_year": opts["max_year"]} if opts["max_year"] else {}
    if table.store_id is None:           # a new game (a restored one has its store id): today's rules
        table.options["daide_rules"] = RULES
    options["rules"] = table.options.get("daide_rules", 1)
    if opts["AOA"]:
        options["AOA"] = True
    return DiplomacyEngine(table.variant, table.players(), table.seed,
                           powers=list(POWERS) if opts["fixed"] else None, options=options)


class TableRoom:
    """What the front end keeps about one Diplomacy table: deadline, CCDs, last SMR."""

    def __init__(self, rooms: "DaideRooms", table) -> None:
        self.table_ref = weakref.ref(table)
        self.deadline = Deadline(rooms.hall.clock, lambda turn: rooms.deadline_passed(table.id, turn),
                                 lambda conn, s: conn.alarm(s))
        self.ccd: set[str] = set()           # powers announced in civil disorder
        self.turn: str | None = None
        self.smr: list[bytes] = []           # SLO/DRW + SMR, for a later SMR request
        self.started = False                 # the start was told (stored): HLO may be sent


def rooms_of(hall) -> "DaideRooms":
    """The hall's DaideRooms: the Diplomacy game's service (its dropin's ``attach``)."""
    return hall.service(GAME)


class DaideRooms(GameService):
    """The hall's Diplomacy tables as the ``daide`` front end sees them (the Diplomacy
    game's IGameService in the hall: engines from the table's options, the deadlines run
    from its tables' events, the operator's ``daide`` command)."""

    def __init__(self, hall, game) -> None:
        super().__init__(hall, game)
        self.rooms: dict[int, TableRoom] = {}
        self.default_options: dict = {}      # the operator's options for the next open tables
        self._gather_call = None

    # -- tables ----------------------------------------------------------
    def tables(self, state: str | None = None) -> list:
        # (those other processes of the hall run too: their replicas here, ``table.remote``)
        return [t for t in self.hall.tables.values()
                if t.game.name == GAME and (state is None or t.state == state)]

    def open_table(self):
        """The waiting table new players join (the one with the most players already, e.g.
        one a web user made and sits at); one is made when there is none."""
        waiting = [t for t in self.tables(WAITING) if len(t.seats) < t.max_seats]
        if waiting:
            # the fullest, then the oldest: every process of the hall picks the same one
            return max(waiting, key=lambda t: (len(t.seats), -t.id))
        return self.new_table()

    def gather(self) -> None:
        """(A hall of several processes.)  Two processes that opened a table at the same
        moment made two open tables: this process's DAIDE clients waiting at any but the
        oldest move to an older one with room (before the start a seat is only a place in
        the queue: the client sees nothing of it), so that one game fills.  Looked at again
        every GATHER_EVERY seconds while any of them waits elsewhere than the oldest."""
        self._gather_call = None
        waiting = sorted(self.tables(WAITING), key=lambda t: t.id)
        if len(waiting) < 2:
            return
        again = False
        for table in waiting[1:]:
            for seat in list(table.seats):
                conn = seat.user.sink if seat.user is not None else None
                if not isinstance(conn, DaideProtocol) or conn.user is not seat.user:
                    continue                 # only this process's DAIDE clients
                target = next((t for t in waiting if t.id < table.id and len(t.seats) < t.max_seats), None)
                if target is None:
                    break
                again = True
                user, clients = seat.user, table.options.get("daide_clients") or {}
                table.leave(user)
                try:
                    target.join(user)
                except TableError:
                    table.join(user)         # back where it was
                    continue
                sent = clients.get(user.nickname)
                if sent is not None:
                    target.options.setdefault("daide_versions", {})[user.nickname] = sent[1]
                    target.options.setdefault("daide_clients", {})[user.nickname] = list(sent)
                    if target.remote:
                        target.merge_options({"daide_versions": {user.nickname: sent[1]},
                                              "daide_clients": {user.nickname: list(sent)}})
                _log.info("daide: {nick} moved from open game #{old} to #{new}", nick=user.nickname,
                          old=table.id, new=target.id)
                if conn.map_ok:
                    self.maybe_start(target)
        if again:
            self.schedule_gather()

    def schedule_gather(self) -> None:
        if self.hall.cluster is not None and self._gather_call is None:
            self._gather_call = self.hall.clock.callLater(GATHER_EVERY, self.gather)

    def new_table(self, options: dict | None = None):
        daide = dict(self.default_options)
        daide.update(options or {})
        return self.hall.create_table(GAME, options={"daide": daide, "turn_timeout": 0})

    def maybe_start(self, table) -> bool:
        """Start a full waiting table once every DAIDE player at it has accepted the map
        (``YES (MAP ...)``): a client asking for MDF first would otherwise get HLO, SCO and
        NOW while its map is pending (real DumbBot never orders after that)."""
        if table.state != WAITING or len(table.seats) < SEATS:
            return False
        for seat in table.seats:
            sink = seat.user.sink if seat.kind == "human" and seat.user is not None else None
            if isinstance(sink, DaideProtocol) and not sink.map_ok:
                return False
        table.start()
        return True

    def missing_player(self, name: str, version: str, peer: str | None):
        """The (table, seat index) of a running game whose missing player this NME may be.

        The daide-client's rejoin (``-rPOW:passcode``) sends NME first and IAM only once the
        NME is refused; since the hall always has an open table, an NME is refused when it
        looks like a player gone from a running game: a seat held for it or played by a bot
        since it left, whose client sent this very name and version, from the same address
        (when the seat's is known).  Any other NME joins the open table."""
        for table in self.tables(PLAYING):
            if table.engine is None or table.engine.is_over():
                continue
            clients = table.options.get("daide_clients") or {}
            versions = table.options.get("daide_versions") or {}
            for index, seat in enumerate(table.seats):
                if seat.user is not None or table.held_seat(seat.name) != index:
                    continue
                sent = clients.get(seat.name)
                if sent is not None:
                    same = list(sent) == [name, version]
                else:                        # a game stored before names were kept
                    same = versions.get(seat.name) == version and seat.name.rstrip("0123456789") == name
                if same and seat.address in (None, peer):
                    return table, index
        return None

    def watch_table(self):
        playing = self.tables(PLAYING)
        return playing[-1] if playing else self.open_table()

    def room(self, table) -> TableRoom:
        room = self.rooms.get(table.id)
        if room is None:
            room = self.rooms[table.id] = TableRoom(self, table)
        return room

    def connections(self, table) -> list["DaideProtocol"]:
        return [u.sink for u in table.audience() if isinstance(u.sink, DaideProtocol)]

    def send_all(self, table, payload: bytes, players_only: bool = False) -> None:
        for conn in self.connections(table):
            # not before its HLO: an observer that has not accepted the map yet gets no results
            if conn.helloed and (not players_only or conn.power is not None):
                conn.send_dm(payload)

    def connected_power(self, table, power: str) -> "DaideProtocol | None":
        for conn in self.connections(table):
            if conn.power == power:
                return conn
        return None

    # -- deadlines ---------------------------------------------------------
    def arm(self, table) -> None:
        """The deadline of the table's current phase (none when its limit is 0)."""
        room = self.room(table)
        room.turn = turn_text(table.engine)
        # (another process's table: its deadline fires there; the one here, armed as its
        # owner's move arrives, tells this process's clients the time left, TME, and rings
        # their alarms)
        limit = options_of(table)[LIMIT_OF_SEASON[room.turn.split()[0]]]
        room.deadline.arm(room.turn, limit)

    def deadline_passed(self, table_id: int, turn: str) -> None:
        table = self.hall.tables.get(table_id)
        if table is None or table.remote or table.state != PLAYING or turn_text(table.engine) != turn:
            return                           # (another process's: its owner stores the deadline)
        try:
            table.act_for(DEADLINE_SEAT, {"deadline": turn})
        except (TableError, IllegalAction) as exc:
            # e.g. the store is failing: try again shortly, the players are waiting for it
            _log.info("game #{id}: deadline of {turn} not applied ({why}); retrying", id=table_id,
                      turn=turn, why=str(exc))
            self.hall.clock.callLater(5.0, self.deadline_passed, table_id, turn)

    @property
    def admin_commands(self) -> dict:
        from ..admin import COMMANDS
        return COMMANDS

    def new_engine_for_table(self, table):
        return engine_for(table)

    def table_restored(self, table) -> None:
        """After a restart: the phase's deadline runs again (in full: the time spent before
        the crash is not stored)."""
        if table.state == PLAYING and not table.engine.is_over():
            self.room(table).started = True
            self.arm(table)

    # -- table events (every broadcast of a Diplomacy table: IGameService.table_event) ----
    def table_event(self, table, event: str, detail: dict) -> None:
        handler = getattr(self, "_on_" + event, None)
        if handler is not None:
            handler(table, detail)

    def _on_joined(self, table, detail) -> None:
        """The last seat taken by a player who is not a DAIDE client (a web player): the
        DAIDE clients waiting there start as when a seventh client joins (a DAIDE client's
        own join starts it in its own steps, once its map is accepted)."""
        index = detail.get("seat")
        if table.remote or index is None or index >= len(table.seats) or not self.connections(table):
            return
        if not isinstance(getattr(table.seats[index].user, "sink", None), DaideProtocol):
            # after the join is done (this is told from inside it)
            self.hall.clock.callLater(0, self.maybe_start, table)

    def _on_started(self, table, detail) -> None:
        for index, power in enumerate(table.engine.powers if not table.remote else ()):
            # a web player's seat keeps its browser's token (its reload takes the seat back)
            if table.seats[index].kind == "human" and table.seats[index].secret is None:
                table.set_secret(index, str(passcode(table, power)))
        self.room(table).started = True
        self.arm(table)
        for conn in self.connections(table):
            if conn.map_ok:                  # the others get HLO when they accept the map
                conn.hello()
        if not table.remote:
            self.open_table()                # the next game's table (one, by the table's owner)

    def _on_game(self, table, detail) -> None:
        room = self.room(table)
        engine = table.engine
        events = detail["events"]
        cancelled = [e for e in events if e.get("type") == "cancelled"]
        if cancelled:
            conn = self.connected_power(table, cancelled[0]["power"])
            if conn is not None:
                conn.send_text(cancel_reply(cancelled))
        for event in events:
            if event.get("type") in ("thx", "missing"):
                conn = self.connected_power(table, event["power"])
                if conn is not None:
                    conn.send_text(order_reply(event))
            elif event.get("type") == "ccd":
                room.ccd.add(event["power"])
        told = step_texts(events, engine, room.turn, options_of(table)["PDA"])
        broadcast, sco, end, phase, now = told.broadcast, told.sco, told.end, told.phase, told.now
        for text in broadcast:
            self.send_all(table, codec.encode_text(text))
        if sco is not None:
            self.send_all(table, codec.encode_text(sco))
        if end is not None:
            room.smr = [codec.encode_text(end), codec.encode_text(smr(table))]
            for payload in room.smr:
                self.send_all(table, payload)
        if phase:
            if engine.is_over():
                room.deadline.cancel()
            else:
                self.arm(table)
            self.send_all(table, codec.encode_text(now or engine.now()))
            for conn in self.connections(table):
                if conn.helloed:
                    conn.told_turn(phase)
            left = room.deadline.remaining()
            if left is not None:
                self.send_all(table, codec.encode_text(f"TME ( {left} )"))

    def _on_chat(self, table, detail) -> None:
        """The store stalls the game, or works again, or the powers' ratings at the start
        (gamehall.seat_ratings): every DAIDE client at the table is told in an ADM from the
        server (DAIDE has no word of its own for it)."""
        if detail.get("nickname") != "*" or detail.get("notice") not in ("stalled", "resumed", "ratings"):
            return
        payload = adm(ADMIN_NAME, str(detail.get("text", "")))
        for conn in self.connections(table):
            conn.send_dm(payload)

    def _on_left(self, table, detail) -> None:
        if table.state != PLAYING or detail.get("seat") is None or not detail.get("held", True):
            return
        power = table.engine.powers[detail["seat"]]
        room = self.room(table)
        room.ccd.add(power)
        self.send_all(table, codec.encode_text(f"CCD ( {power} )"))
        if options_of(table)["DSD"] and not table.remote and detail["seat"] in table.engine.pending_seats() \
                and room.deadline.pause():
            self.send_all(table, codec.encode_text(f"NOT ( TME ( {room.deadline.remaining()} ) )"))

    def _on_seat_changed(self, table, detail) -> None:
        if table.state != PLAYING:
            return
        power = table.engine.powers[detail["seat"]]
        room = self.room(table)
        if power in room.ccd:
            room.ccd.discard(power)
            self.send_all(table, codec.encode_text(f"NOT ( CCD ( {power} ) )"))
        if room.deadline.paused_left is not None and not any(
                s.kind == "human" and s.user is None for s in table.seats):
            room.deadline.resume()
            self.send_all(table, codec.encode_text(f"TME ( {room.deadline.remaining()} )"))

    def cleared(self, table, power: str) -> None:
        """A connected power that missed a deadline submits again: out of civil disorder."""
        room = self.room(table)
        if power in room.ccd:
            room.ccd.discard(power)
            self.send_all(table, codec.encode_text(f"NOT ( CCD ( {power} ) )"))

    def _on_finished(self, table, detail) -> None:
        self._closing(table)

    def _on_aborted(self, table, detail) -> None:
        self._closing(table)

    def _closing(self, table) -> None:
        room = self.rooms.pop(table.id, None)
        if room is not None:
            room.deadline.cancel()
        for conn in self.connections(table):
            conn.game_over(room.smr if room is not None else [])


@implementer(IUserSink)
class DaideProtocol(FramedProtocol):
    """One DAIDE connection."""

    framer_class = type("DaideMessageFramer", (DaideFramer,), {"DEFAULT_MAX": MAX_MESSAGE})
    user = None
    power: str | None = None         # the power this client plays (None: observer / not seated)

    def __init__(self) -> None:
        super().__init__()
        self.im_done = False
        self.em_sent = False
        self.observer = False
        self.helloed = False
        self.map_ok = False                  # the client said YES (MAP ...)
        self.turn_seen: str | None = None    # the turn of the last NOW of its game it has had
        self._told_turn: str | None = None   # ... sent during the current read: seen from the next
        self.smr_after_end: list[bytes] = []
        self._im_timer = None
        self._partial_timer = None
        self._completed = False              # a whole message came in the current read
        self._iam_waiting = None             # (a hall of several processes) the IAM's wait for a game
        self._out_framer = DaideFramer(DaideFramer.WIRE_MAX)   # replies: as long as the wire allows

    @property
    def rooms(self) -> DaideRooms:
        return rooms_of(self.hall)

    @property
    def table(self):
        return self.user.table if self.user is not None else None

    # -- wire ------------------------------------------------------------
    def connectionMade(self) -> None:
        super().connectionMade()
        self._im_timer = self.hall.clock.callLater(IM_TIMEOUT, self._im_timed_out)

    def dataReceived(self, data: bytes) -> None:
        if self._im_timer is not None and self._im_timer.active():
            self._im_timer.cancel()              # "hasn't received any data": any data will do
        self._im_timer = None
        if self._told_turn is not None:
            # a NOW written before this read may have been seen by now; what came in the
            # read during which it was written was sent before the client could see it
            self.turn_seen, self._told_turn = self._told_turn, None
        self._completed = False
        super().dataReceived(data)
        self._watch_partial()

    def _watch_partial(self) -> None:
        """A message left incomplete gets PARTIAL_TIMEOUT seconds from its first byte (not
        the half-hour idle timeout), then EM 0x09 (shorter than expected)."""
        timer = self._partial_timer
        if self.closing or not self.framer.buffered:
            if timer is not None and timer.active():
                timer.cancel()
            self._partial_timer = None
        elif timer is None or not timer.active() or self._completed:
            if timer is not None and timer.active():
                timer.cancel()
            self._partial_timer = self.hall.clock.callLater(PARTIAL_TIMEOUT, self._partial_timed_out)

    def _partial_timed_out(self) -> None:
        self._partial_timer = None
        if self.framer.buffered and not self.closing:
            _log.info("daide: {peer} left a message incomplete for {s:g} s; closed (EM 0x09)",
                      peer=client_text(self.peer), s=PARTIAL_TIMEOUT)
            self.send_em(EM_SHORT)

    def _im_timed_out(self) -> None:
        self._im_timer = None
        self.send_em(EM_IM_TIMER)

    def send_em(self, code: int) -> None:
        if self.closing:
            return
        self.send_frame((DAIDE_EM, code.to_bytes(2, "big")))
        self.em_sent = True
        self.close()

    def send_frame(self, frame) -> None:
        # (the input framer's MAX_MESSAGE caps what a client may send; a reply, e.g. a long
        # history, may take all a DAIDE length field can say: 65,535 bytes)
        if self.closing or self.transport is None:
            return
        data = self._out_framer.encode(frame)
        self.hall.stats.messages_out[self.frontend] += 1
        self.transport.write(data)

    def send_dm(self, payload: bytes) -> None:
        if self.im_done and not self.closing:
            try:
                self.send_frame((DAIDE_DM, payload))
            except ValueError:       # over the 16-bit length of the DAIDE header: cannot be framed
                _log.warn("daide: a message of {n} bytes cannot be framed (the DAIDE limit is {max}); "
                          "not sent to {peer}", n=len(payload), max=DaideFramer.WIRE_MAX,
                          peer=client_text(self.peer))

    def send_text(self, text: str) -> None:
        self.send_dm(codec.encode_text(text))

    def close(self) -> None:
        """Every close says FM first, except after an EM (chapter 3.5)."""
        if not self.closing and self.im_done and not self.em_sent and self.transport is not None:
            self.send_frame((DAIDE_FM, b""))
        super().close()

    def frame_error(self, error) -> None:
        ftype, length = getattr(error, "header", (None, None))
        if ftype is None:
            self.send_em(EM_SHORT)
        else:
            self.send_em(em_code(ftype, length, self.im_done, isinstance(error, FrameTooLong)))

    def frame_received(self, frame) -> None:
        ftype, payload = frame
        if ftype == DAIDE_FM or ftype == DAIDE_EM:
            self.em_sent = True              # close at once, without FM or EM (3.5, 3.6)
            self.close()
        elif ftype == DAIDE_IM and not self.im_done:
            self._completed = True
            self._initial(payload)
        elif ftype == DAIDE_DM and self.im_done:
            self._completed = True
            if not payload:
                self.send_em(EM_SHORT)       # a DM holds at least one token
            else:
                self._message(payload)
        else:
            self.send_em(em_code(ftype, None, self.im_done))

    def _initial(self, payload: bytes) -> None:
        version, magic = int.from_bytes(payload[:2], "big"), int.from_bytes(payload[2:], "big")
        if magic != MAGIC:
            self.send_em(EM_ENDIAN if magic == 0x10DA else EM_MAGIC)
        elif version != VERSION:
            self.send_em(EM_ENDIAN if version == 0x0100 else EM_VERSION)
        else:
            self.im_done = True
            self.send_frame((DAIDE_RM, b""))     # the standard map: no extra tokens

    # -- messages ----------------------------------------------------------
    def level(self) -> int:
        table = self.table
        if table is None:
            return int(self.rooms.default_options.get("LVL", 0))
        return int(options_of(table)["LVL"])

    def _message(self, payload: bytes) -> None:
        try:
            msg = codec.decode(payload)
        except codec.InvalidToken:
            self.count_bad("invalid token", payload.hex())
            return self.send_em(EM_BAD_TOKEN)
        answerable = msg.items[:1] not in (["HUH"], ["PRN"])
        try:
            tree = msg.tree()
        except codec.BracketError:
            self.count_bad("unbalanced brackets", msg.text())
            if answerable:
                self.send_dm(codec.echo("PRN", msg.codes))
            return
        try:
            command = syntax.check(msg, self.level())
        except syntax.Fault as fault:
            self.count_bad("syntax error", msg.text())
            if answerable:
                self.send_dm(codec.echo("HUH", msg.codes, msg.code_index(fault.index)))
            return
        if command in ("HUH", "PRN"):
            self.count_bad(f"{command} from the client", msg.text())
            return
        if self.user is None and command not in ("NME", "OBS", "IAM", "MAP", "MDF", "NOW", "SCO",
                                                 "HLO", "TME", "ADM", "OFF", "SMR"):
            return self.reject(msg)
        try:
            getattr(self, "do_" + command)(msg, tree)
        except (TableError, IllegalAction, LobbyError) as exc:
            _log.debug("daide: {cmd} refused: {why}", cmd=command, why=str(exc))
            self.reject(msg)

    def reject(self, msg) -> None:
        self.send_dm(codec.echo("REJ", msg.codes))

    def accept(self, msg) -> None:
        self.send_dm(codec.echo("YES", msg.codes))

    def _playing_table(self):
        table = self.table
        if table is None or table.state != PLAYING or table.engine is None:
            raise TableError("the game has not started")
        return table

    def _player_table(self):
        table = self._playing_table()
        if self.power is None:
            raise TableError("not a player")
        return table

    # joining
    def _login(self, wanted: str, key: str | None = None):
        if key is not None:                  # a registered name with its key: that name or nothing
            return self.hall.login(wanted, "daide", self, self.peer, key=key)
        try:
            base = check_nickname(wanted)
        except LobbyError:
            base = "Player"
        base = base[:24]
        for n in range(1, 1000):
            name = base if n == 1 else f"{base}{n}"
            if self.hall.lobby.find(name) is None:
                try:
                    return self.hall.login(name, "daide", self, self.peer)
                except LobbyError:
                    continue
        raise LobbyError("no free nickname")

    def _enter(self, name: str, sit, key: str | None = None) -> None:
        """Log in as ``name`` (made unique, unless it comes with a registered name's key) and
        ``sit(user)`` at a table; undone if refused."""
        self.user = self._login(name, key)
        try:
            sit(self.user)
        except TableError:
            self.hall.logout(self.user)
            self.user = None
            raise

    def do_NME(self, msg, tree) -> None:
        if self.user is not None:
            return self.reject(msg)
        # a registered name's key (alice+KEY) is stripped first: nobody sees it, nothing keeps it
        (name, key), version = split_key(str(tree[1][0])), str(tree[2][0])
        gone = self.rooms.missing_player(name, version, self.peer)
        if gone is not None:                 # the daide-client's rejoin: REJ, then it sends IAM
            table, index = gone
            _log.info("daide: NME {name} from {peer} refused: taken for the rejoin of {seat} "
                      "(game #{id})", name=client_text(name), peer=client_text(self.peer),
                      seat=table.seats[index].name, id=table.id)
            return self.reject(msg)
        table = self.rooms.open_table()
        self._enter(name, table.join, key)
        table.options.setdefault("daide_versions", {})[self.user.nickname] = version
        table.options.setdefault("daide_clients", {})[self.user.nickname] = [name, version]
        if table.remote:                     # kept where the table runs (for a rejoin)
            table.merge_options({"daide_versions": {self.user.nickname: version},
                                 "daide_clients": {self.user.nickname: [name, version]}})
        self.rooms.schedule_gather()         # (several processes: one open table may be two)
        self.accept(msg)
        self.send_text(f"MAP ( '{MAP_NAME}' )")
        # the game starts once the seventh player (every player) has accepted the map: do_YES

    def do_OBS(self, msg, tree) -> None:
        if self.user is not None:
            return self.reject(msg)
        name, key = split_key(str(tree[1][0])) if len(tree) > 1 else ("Observer", None)
        self._enter(name, self.rooms.watch_table().watch, key)
        self.observer = True
        self.accept(msg)
        self.send_text(f"MAP ( '{MAP_NAME}' )")

    def do_IAM(self, msg, tree) -> None:
        if self.user is not None:
            return self.reject(msg)
        power, code = tree[1][0], tree[2][0]
        if self._iam_waiting is not None:
            raise TableError("an IAM is being looked up already")
        for table in self.rooms.tables(PLAYING):
            if table.engine is None or (table.remote and table.loading):
                # another process's table nobody here shows: its passcodes come from its seed;
                # the IAM is answered once its engine is built here
                if table.remote and power in POWERS and passcode(table, power) == code:
                    return self._iam_when_loaded(table, msg, tree)
                continue
            if power in table.engine.powers and passcode(table, power) == code:
                break
        else:
            raise TableError("no game waits for that power with that passcode")
        index = table.engine.powers.index(power)
        seat = table.seats[index]
        # its old connection is not known dead yet: replace it (if it is here: one on another
        # process is that process's to drop; the seat is then "logged in elsewhere")
        if seat.user is not None and (not table.remote or seat.user in table.audience()):
            old = seat.user
            sink = old.sink
            self.hall.logout(old)
            if isinstance(sink, DaideProtocol):
                sink.user, sink.power = None, None
                sink.close()
        if self.hall.lobby.find(seat.name) is not None:
            raise TableError(f"{seat.name} is logged in elsewhere")
        if table.stalled:
            raise TableError("the game cannot save moves right now")
        # the passcode proves the seat: a registered player's seat comes back registered
        owner = self.hall.players.get(seat.name) if seat.registered else None
        self.user = self.hall.login(seat.name, "daide", self, self.peer, signed_in=owner)
        self.power, self.helloed = power, True
        self.accept(msg)                     # before the NOT (CCD) that the reconnect announces
        try:
            table.reconnect(self.user, secret=str(code))
        except TableError:
            self.hall.logout(self.user)
            self.user, self.power, self.helloed = None, None, False
            raise

    def _iam_when_loaded(self, table, msg, tree) -> None:
        tables = self.hall.cluster.tables

        def answer(timed_out: bool = False):
            if self._iam_waiting is None:
                return
            call, self._iam_waiting = self._iam_waiting, None
            if call.active():
                call.cancel()
            if not self.closing and self.transport is not None:
                try:
                    if timed_out:
                        raise TableError(f"game #{table.id} could not be loaded here")
                    room = self.rooms.room(table)
                    if room.turn is None and table.engine is not None:
                        # (its deadline here runs from its next phase: the owner's time left
                        # in this one is not known here)
                        room.turn, room.started = turn_text(table.engine), True
                    self.do_IAM(msg, tree)
                except (TableError, IllegalAction, LobbyError) as exc:
                    _log.debug("daide: IAM refused: {why}", why=str(exc))
                    self.reject(msg)
            tables.unshow_if_unseen(table)
        self._iam_waiting = self.hall.clock.callLater(IAM_LOAD_TIMEOUT, answer, True)
        table.on_loaded.append(answer)
        tables.show(table)

    def hello(self) -> None:
        """The game started (or an observer accepted the map of a running game): HLO, SCO,
        NOW, once."""
        table = self.table
        if self.helloed or table is None or table.engine is None:
            return
        self.helloed = True
        index = table.seat_of(self.user)
        self.power = table.engine.powers[index] if index is not None else None
        self.send_text(hlo(table, self.power, options_of(table)))
        self.send_text(table.engine.sco())
        self.send_text(table.engine.now())
        self.told_turn(turn_text(table.engine))
        left = self.rooms.room(table).deadline.remaining()
        if left is not None:
            self.send_text(f"TME ( {left} )")

    def told_turn(self, turn: str) -> None:
        """A NOW of ``turn`` was sent: SUBs the client sends once it has it are for that turn."""
        self._told_turn = turn

    def do_YES(self, msg, tree) -> None:
        if tree[1][0] != "MAP" or self.map_ok:
            return
        self.map_ok = True
        table = self.table
        if table is None:
            return
        if table.state == WAITING:
            self.rooms.maybe_start(table)
        elif table.state == PLAYING and self.rooms.room(table).started:
            self.hello()                     # (before the start is told: the start's HLO)

    def do_REJ(self, msg, tree) -> None:
        if tree[1][0] == "MAP":              # the client cannot play this map
            self.close()

    # information, at any time
    def do_MAP(self, msg, tree) -> None:
        self.send_text(f"MAP ( '{MAP_NAME}' )")

    def do_MDF(self, msg, tree) -> None:
        self.send_dm(static_payload("MDF"))

    def do_HLO(self, msg, tree) -> None:
        table = self.table
        if table is None or table.state != PLAYING or not self.helloed:
            return self.reject(msg)
        self.send_text(hlo(table, self.power, options_of(table)))

    def do_NOW(self, msg, tree) -> None:
        self._position("NOW")

    def do_SCO(self, msg, tree) -> None:
        self._position("SCO")

    def _position(self, name: str) -> None:
        """The game's NOW or SCO; the starting one before the game starts."""
        table = self.table
        if table is not None and table.state == PLAYING:
            self.send_text(table.engine.now() if name == "NOW" else table.engine.sco())
            if name == "NOW":
                self.told_turn(turn_text(table.engine))
        else:
            self.send_dm(static_payload(name))

    def do_MIS(self, msg, tree) -> None:
        table = self._player_table()
        self.send_text(table.engine.missing(self.power))

    def do_ORD(self, msg, tree) -> None:
        results = self._playing_table().engine.results()
        if not results:
            return self.reject(msg)
        for text in results:
            self.send_text(text)

    def do_HST(self, msg, tree) -> None:
        table = self._playing_table()
        season, year = tree[1]
        results = table.engine.results((season, year))
        if not results:
            return self.reject(msg)
        for text in results:
            self.send_text(text)
        after = getattr(table.engine, "position_after", None)     # SCO and NOW after that phase
        position = after((season, year)) if after is not None else None
        if position:
            for text in position:
                self.send_text(text)

    def do_SMR(self, msg, tree) -> None:
        if not self.smr_after_end:
            return self.reject(msg)
        for payload in self.smr_after_end:
            self.send_dm(payload)

    def do_TME(self, msg, tree) -> None:
        table = self.table
        deadline = self.rooms.room(table).deadline if table is not None and table.state == PLAYING else None
        if len(tree) == 1:
            left = deadline.remaining() if deadline is not None else None
            return self.send_text(f"TME ( {left} )") if left is not None else self.reject(msg)
        seconds = tree[1][0]
        opts = options_of(table) if table is not None else DEFAULT_OPTIONS
        longest = max(opts["MTL"], opts["RTL"], opts["BTL"])
        if deadline is None or seconds < 0 or not longest or seconds > longest:
            return self.reject(msg)
        deadline.add_alarm(self, seconds)
        self.accept(msg)

    def alarm(self, seconds: int) -> None:
        self.send_text(f"TME ( {seconds} )")

    # playing
    def _act(self, msg, action: dict, reply=None) -> None:
        table = self._player_table()
        table.act(self.user, action)
        if reply is not None:
            table.after_stored(reply)

    def do_SUB(self, msg, tree) -> None:
        table = self._player_table()
        orders = tree[1:]
        if orders and orders[0] and orders[0][0] in syntax.SEASONS:
            meant = " ".join(map(str, orders[0]))
            orders = orders[1:]
        else:
            meant = self.turn_seen           # orders are for the turn of the last NOW it was sent
        if meant is not None and meant != turn_text(table.engine):
            # a SUB for a phase already processed (its NOW may still be on its way) is not
            # taken as the next phase's orders: REJ, as for a SUB naming another turn
            return self.reject(msg)
        self.rooms.cleared(table, self.power)
        self._act(msg, {"submit": [render(order) for order in orders]})

    def do_NOT(self, msg, tree) -> None:
        what = tree[1]
        if what[0] == "TME":
            table = self.table
            room = self.rooms.rooms.get(table.id) if table is not None else None
            seconds = what[1][0] if len(what) > 1 else None
            ok = room is not None and room.deadline.remove_alarm(self, seconds)
            return self.accept(msg) if ok else self.reject(msg)
        if what[0] == "SUB":                    # answered with the stored events (_on_game)
            return self._act(msg, {"cancel": [render(order) for order in what[1:]] if len(what) > 1 else "all"})
        if what[0] == "GOF":
            action = {"gof": False}
        else:                                   # DRW, DRW (powers): the power's draw request goes
            action = {"draw": False}
        self._act(msg, action, lambda: self.accept(msg))

    def do_GOF(self, msg, tree) -> None:
        def reply() -> None:
            self.accept(msg)
            table = self.table
            if table is not None and table.state == PLAYING and not table.engine.is_over():
                missing = table.engine.missing(self.power)
                if missing != "MIS":
                    self.send_text(missing)
        self._act(msg, {"gof": True}, reply)

    def do_DRW(self, msg, tree) -> None:
        if len(tree) == 1:
            return self._act(msg, {"draw": True}, lambda: self.accept(msg))
        table = self._player_table()
        powers = tree[1]
        out = eliminated_of(table.engine)
        if not options_of(table)["PDA"] or len(set(powers)) != len(powers) or len(powers) < 2 \
                or any(p in out or p not in table.engine.powers for p in powers):
            return self.reject(msg)
        self._act(msg, {"draw": list(powers)}, lambda: self.accept(msg))

    def do_SND(self, msg, tree) -> None:
        table = self._player_table()
        engine = table.engine
        body = tree[1:]
        if body[0] and body[0][0] in syntax.SEASONS:
            body = body[1:]
        recipients, press = body[0], body[1]
        opts = options_of(table)
        season = engine.turn()[0]
        out = eliminated_of(engine)
        deadline = self.rooms.room(table).deadline
        left = deadline.remaining()
        if (self.power in out or (opts["NPR"] and season in ("SUM", "AUT"))
                or (opts["NPB"] and season == "WIN")
                or (opts["PTL"] and season in ("SPR", "FAL") and left is not None and left < opts["PTL"])):
            return self.reject(msg)
        conns = []
        for power in recipients:
            if power in out:
                return self.send_dm(codec.prefixed(["OUT", [power]], msg.codes))
            conn = self.rooms.connected_power(table, power)
            if conn is None:
                return self.send_dm(codec.prefixed(["CCD", [power]], msg.codes))
            conns.append(conn)
        frm = codec.encode(["FRM", [self.power], list(recipients), press])
        for conn in conns:
            conn.send_dm(frm)
        self.accept(msg)

    # chat and leaving
    def do_ADM(self, msg, tree) -> None:
        if self.user is None:
            return self.reject(msg)
        self.hall.lobby.chat(self.user.nickname, str(tree[2][0]))

    def do_OFF(self, msg, tree) -> None:
        self.close()

    # -- IUserSink ----------------------------------------------------------
    def lobby_chat(self, sender: str, text: str) -> None:
        if self.user is None:
            return
        name = ADMIN_NAME if sender == "*" else sender
        self.send_dm(adm(name, text))

    def lobby_changed(self, event: str, detail: dict) -> None:
        pass

    def table_event(self, table, event: str, detail: dict) -> None:
        # broadcasts are rendered once per table by DaideRooms (through the game plugin);
        # here only what is said to this connection alone
        if event == "left" and detail.get("replaced_by_bot") and detail.get("nickname") == getattr(
                self.user, "nickname", None):
            self.power = None
            self.send_text("OFF")
            self.close()

    def game_over(self, smr: list[bytes]) -> None:
        """The game ended (SLO/DRW and SMR were sent with the results) or was closed: OFF."""
        self.smr_after_end = smr
        self.send_text("OFF")
        self.close()

    def disconnect(self, reason: str) -> None:
        self.send_dm(adm(ADMIN_NAME, reason))
        self.send_text("OFF")
        self.close()

    def connection_gone(self) -> None:
        for timer in (self._im_timer, self._partial_timer):
            if timer is not None and timer.active():
                timer.cancel()
        self._im_timer = self._partial_timer = None
        if self._iam_waiting is not None and self._iam_waiting.active():
            self._iam_waiting.cancel()       # (its table's on_loaded step finds it gone: nothing)
        self._iam_waiting = None
        table = self.table
        if table is not None:
            room = self.rooms.rooms.get(table.id)
            if room is not None:
                room.deadline.remove_alarm(self)
        if self.user is not None:
            user, self.user = self.user, None
            self.hall.logout(user)

    def idle_timed_out(self) -> None:
        _log.info("daide: idle connection from {peer} closed", peer=client_text(self.peer))
        self.close()


def build_factory(hall):
    # (no table is opened here: the first NME opens one, so a hall whose DAIDE port is unused
    # hands its table numbers to the other games as before)
    return FrontEndFactory(hall, "daide", DaideProtocol)
