"""The ``pimp`` front end: PIMP clients (default ``tcp:13220``; ``ssl:`` endpoints work).

PIMP has one game per connection.  A new connection joins the hall's current
Monopoly table (``PimpRooms.current``; one is opened when there is none or it
is over, in a hall of several processes by one process only: ``PimpRooms.open_for``);
the handshake's acknowledgement carries that table's game number
(derived from its stored seed, so it survives a restart).  A
``REJOIN`` finds its game among all the hall's Monopoly tables by player number
and password, so it works after a restart too (tables are restored from the
store) and whatever game number the handshake gave.

The conversation (handshake, join candidates, rejoin, error replies) is
``PimpServer``'s; every game action goes through ``Table.act_for`` and so is
stored before anyone hears of it: users get the engine's messages from the
table's ``game`` events (one write per event), candidates and error replies
once the table's queued writes have succeeded (``Table.after_stored``).  Admitted users log
into the shared lobby (they show in ``who`` and the admin console) and sit in
the table's seat for their PIMP number; a user who disconnects keeps the seat
(rejoin with the password), and after the hall's seat hold a server bot plays
it.  Server bots at a table also act out of turn (claims, bids, votes, deals)
after every event.  Every connection is pinged each ``PING_EVERY`` seconds; a
ping unanswered for ``LINK_DEAD_AFTER`` seconds is announced as LINK_DEAD, unless the
client sent anything else meanwhile (a player busy with moves is alive).
"""
from __future__ import annotations

import weakref

from twisted.logger import Logger
from zope.interface import implementer

from gamehall.connection import FramedProtocol, FrontEndFactory, send_now
from gamehall.identity import hash_secret
from gamehall.interfaces import IChatlessSink, IllegalAction
from gamehall.lobby import LobbyError, check_nickname
from gamehall.players import split_key
from gamehall.service import GameService
from gamehall.table import PLAYING, TableError

from ..messages import SPECS
from ..state import PimpError
from .codec import encode
from .conversation import PimpServer
from .framing import PimpFramer

PING_EVERY = 60.0
LINK_DEAD_AFTER = 30.0
#: seconds a Monopoly table nobody has joined stays open (then it is closed, like a waiting table
#: of another game that its last player leaves)
EMPTY_TABLE_AFTER = 600.0
#: (a hall of several processes) the table option that says since when a Monopoly table is the
#: hall's current one: every process picks the table with the latest, so the current table is
#: one for the whole hall
CURRENT_SINCE = "pimp_current"


def game_number(table) -> int:
    """The game number the handshake acknowledges: from the table's stored seed, so the
    same game has the same number after a restart (hall table ids are handed out anew)."""
    return table.seed % (2 ** 32 - 1) + 1

def rooms_of(hall) -> "PimpRooms":
    """The hall's PimpRooms: the Monopoly game's service (``PimpGame.attach``)."""
    return hall.service("pimp")


class PimpRooms(GameService):
    """The hall's Monopoly tables as PIMP sees them: one PimpServer each, and the current one
    (the Monopoly game's IGameService in the hall)."""

    log = Logger()

    def __init__(self, hall, game):
        super().__init__(hall, game)
        self.servers: dict[int, PimpServer] = {}
        self.current_id: int | None = None
        self._bots_call = {}
        self._next_bot: dict[int, int] = {}  # table id -> the seat to ask first next time (round robin)
        self._mine: dict[int, list] = {}     # event lists our own connections caused (id -> list)
        self._last = None                    # the last table "game" event seen (one per emit)
        self._applying = self._told_at_once = False
        self._followers: dict[int, "Follower"] = {}   # replica id -> what shows it here

    # -- IGameService ---------------------------------------------------------------------
    @property
    def admin_commands(self) -> dict:
        return {"monopoly": (monopoly_command, ADMIN_HELP)}

    def table_restored(self, table) -> None:
        """After a restart: look after the table's server bots again.  (A hall of several
        processes: a table taken over from a process that died, whose replica connections
        here showed: they are closed, and come back with REJOIN to the table run here now.)"""
        self.attach(table)
        follower = self._followers.pop(table.id, None)
        if follower is not None and follower.table is not table:
            server = self.servers.pop(table.id, None)
            for conn in list(server.conns if server is not None else ()) + list(follower.waiting):
                conn.server = conn.table = None
                conn.close_for(f"game #{table.id} is run by this process now: rejoin")

    def admit_seated(self, table) -> None:
        admit_seated(table)

    def tables(self) -> list:
        # (those other processes of the hall run too: their replicas here, ``table.remote``)
        return [t for t in self.hall.tables.values() if t.game.name == "pimp" and t.state == PLAYING]

    def current(self):
        self.sweep()
        if self.hall.cluster is not None:
            return self.live_current() or self.open_table()
        if self.current_id is None:
            # after a restart: the newest restored game still in play
            live = [t for t in self.tables() if not t.engine.is_over()]
            if live:
                self.current_id = live[-1].id
        table = self.hall.tables.get(self.current_id) if self.current_id is not None else None
        if table is None or table.state != PLAYING or table.engine.is_over():
            table = self.open_table()
        return table

    def live_current(self):
        """(A hall of several processes.)  The hall's current table: the live one made current
        last, whichever process runs it; None when there is none."""
        live = [t for t in self.tables() if t.engine is None or not t.engine.is_over()]
        if not live:
            return None
        table = max(live, key=lambda t: (t.options.get(CURRENT_SINCE, 0), t.id))
        self.current_id = table.id
        return table

    def open_for(self, conn) -> None:
        """(A hall of several processes, no live table.)  ``conn``'s first frames wait while
        the hall decides which process opens the current table (``FirstJoin``: the one that
        claims it on the bus; the others wait for it to be listed), then go to it."""
        from gamehall.cluster.firstjoin import FirstJoin
        wait = FirstJoin(self.hall, "pimp", self.live_current,
                         alive=lambda: not conn.closing and conn.transport is not None)

        def settled(table):
            if conn.closing or conn.transport is None:
                wait.release()
                return
            if table is None:
                try:
                    table = self.current()      # (one listed meanwhile, or ours to open)
                except TableError as exc:
                    wait.release()
                    conn.close_for(f"no Monopoly table could be opened: {exc}")
                    return
            conn.table = table
            conn.release_held()
        wait.wait().addCallback(settled).addErrback(
            lambda f: self.log.failure("pimp: a first connection's table not settled", f))

    def open_table(self, variant: str | None = None):
        """A new Monopoly table, made the current one (the operator may call this)."""
        table = self.hall.create_table("pimp", variant)
        if self.hall.cluster is not None:
            table.options[CURRENT_SINCE] = self.hall.clock.seconds()
        table.start()
        self.attach(table)
        self.current_id = table.id
        self.hall.clock.callLater(EMPTY_TABLE_AFTER, self._expire_if_empty, weakref.ref(table))
        return table

    def attach(self, table) -> None:
        """Stir the table's server bots after every move, whoever made it, and drop its server
        once it is over (a weak reference: the engine must not keep its table alive)."""
        ref = weakref.ref(table)

        def moved():
            t = ref()
            if t is not None:
                if t.engine.is_over():
                    self.hall.clock.callLater(0, self.reap, t)     # once the table has finished
                else:
                    self.stir_bots(t)
        table.engine.on_move = moved

    def _expire_if_empty(self, ref) -> None:
        """Nobody joined the table (not even a server bot): close it, as a waiting table of another
        game goes when its last player leaves; a connection that only shook hands is closed too."""
        table = ref()
        if table is not None and table.state == PLAYING and not table.engine.game.users and self.hall.tables.get(table.id) is table:
            self.hall.close_table(table.id, "Nobody joined")
            self.table_closed(table)

    def table_closed(self, table) -> None:
        """The table is over or closed: a connection still at it is closed once the game is
        closed (PIMP has no message for that: the connection ends, which clients show), and
        the game's server is dropped once nobody is connected to it."""
        if self.current_id == table.id:
            self.current_id = None
        server = self.servers.get(table.id)
        if server is not None and table.state != PLAYING and not table.engine.is_over():
            for conn in list(server.conns):
                conn.close_for(f"game #{table.id} was closed")
        self.reap(table)

    def sweep(self) -> None:
        """Reap the servers of tables the hall no longer has (closed by the operator, finished)."""
        for table_id in [t for t in self.servers if t not in self.hall.tables]:
            server = self.servers[table_id]
            if not server.conns:
                self.servers.pop(table_id, None)
                self._next_bot.pop(table_id, None)

    def make_current(self, table) -> None:
        """``table`` is the current one (the operator, a table started with seats taken);
        in a hall of several processes, for every process (``CURRENT_SINCE``)."""
        self.current_id = table.id
        if self.hall.cluster is not None:
            stamp = {CURRENT_SINCE: self.hall.clock.seconds()}
            if table.remote:
                table.merge_options(stamp)
            else:
                table.options.update(stamp)
                table.persist_options()
                table._changed()

    def follow(self, table, conn) -> bool:
        """(A replica.)  Show the table here while connections of ours are at it (its
        engine built from the store, its moves heard): whether its engine is ready; if not
        ``conn`` is told (``released``) once it is."""
        follower = self._followers.get(table.id)
        if follower is None or follower.table is not table:
            follower = self._followers[table.id] = Follower(self, table)
            table.add_viewer(follower)
        ready = table.engine is not None and not table.loading
        if not ready:
            follower.waiting.add(conn)
            table.on_loaded.append(follower.loaded)
        return ready

    def unfollow(self, table) -> None:
        """No connection of ours is at the replica any more."""
        follower = self._followers.get(table.id)
        if follower is None or follower.table is not table or follower.waiting:
            return
        server = self.servers.get(table.id)
        if server is not None and server.conns:
            return
        del self._followers[table.id]
        self.servers.pop(table.id, None)
        table.remove_viewer(follower)

    def cluster_request(self, table, user, body: dict):
        """(Where the table runs.)  What a PIMP connection of another process needs done here:
        ``seat``: its user, admitted or back with the password there, on its seat."""
        if body.get("op") != "seat" or user is None:
            raise TableError("unknown PIMP request")
        take_seat(table, int(body.get("seat", -1)), user)

    def reap(self, table) -> None:
        """Forget a finished or closed table's server once no connection is left at it (each
        kept one held its whole game, ~80 KB, for the life of the hall)."""
        if table.state == PLAYING and self.hall.tables.get(table.id) is table:
            return
        server = self.servers.get(table.id)
        if server is not None and server.conns:
            return
        self.servers.pop(table.id, None)
        self._next_bot.pop(table.id, None)
        call = self._bots_call.pop(table.id, None)
        if call is not None and call.active():
            call.cancel()

    def server(self, table) -> PimpServer:
        server = self.servers.get(table.id)
        if table.remote:
            if server is None or server.engine is not table.engine.game:
                server = self._remote_server(table, server)
            return server
        if server is None:
            if table.engine.on_move is None:
                self.attach(table)
            def apply(pid, action, table=table):
                self._applying, self._told_at_once = True, False
                try:
                    events = table.act_for(pid - 1 if pid else -1, action)
                except TableError as exc:       # e.g. the game is over: name the refused message
                    code = SPECS[action["msg"]].code if action.get("msg") in SPECS else 0xFE
                    raise PimpError(str(exc), ("ERROR_UNEXPECTED_MESSAGE", code)) from None
                finally:
                    self._applying = False
                if not self._told_at_once:     # the store answers later: the event comes later
                    key = id(events)
                    self._mine[key] = events
                    # gone once stored, whether or not a connection of ours heard the event
                    table.after_stored(lambda: self._mine.pop(key, None))
                return events
            server = self.servers[table.id] = PimpServer(table.engine.game, game_number(table), apply,
                                                         check_name=self.joining_name)
        return server

    def _remote_server(self, table, old: PimpServer | None) -> PimpServer:
        """The PimpServer of another process's table: actions are asked of the owner, and
        every message is routed from the replica's engine as the owner's moves reach it."""
        def apply(pid, action, table=table):
            server = self.servers[table.id]
            conn = server.acting             # (None: a bot's or the operator's, not ours here)

            def refused(reason):
                if conn is not None:
                    self.deliver(server, table, server.refused(conn, pid, action, reason), stored=True)
            try:
                table.forward_act(pid - 1 if pid else -1, action, refused)
            except TableError as exc:
                code = SPECS[action["msg"]].code if action.get("msg") in SPECS else 0xFE
                raise PimpError(str(exc), ("ERROR_UNEXPECTED_MESSAGE", code)) from None
            return []
        server = PimpServer(table.engine.game, game_number(table), apply, check_name=self.joining_name)
        server.deferred = True
        if old is not None:      # the replica's engine was built again: the same connections
            for name in ("conns", "by_user", "by_candidate", "joins", "to_close", "admitted"):
                setattr(server, name, getattr(old, name))
        self.servers[table.id] = server
        return server

    def joining_name(self, typed: str, conn) -> str:
        """A JOIN's name as the game shows it (ValueError: ERROR_NAME_IN_USE): checked as
        every nickname, a registered name only with its key (``alice+KEY``), which is
        stripped here, before the engine or anyone sees the name, and kept by the
        connection for its lobby login (``PimpProtocol.seat``)."""
        name, key = split_key(typed)
        name = check_nickname(name)
        player = self.hall.players.admit(name, key, getattr(conn, "peer", ""))
        conn.login_key = key if player is not None else None
        return player.name if player is not None else name

    def table_game(self, table, events: list) -> None:
        """A table's ``game`` event (the action is stored): route what a bot or a timer did;
        what our connections did was routed when they did it (and sent once stored)."""
        if events is self._last:
            return
        self._last = events
        if table.remote:                # every move comes from the owner, ours too
            server = self.servers.get(table.id)
            if server is not None and table.engine is not None:
                server = self.server(table)
                self.deliver(server, table, server.route(events), stored=True)
            return
        if self._applying:              # our own action, told at once by a synchronous store
            self._told_at_once = True
            return
        if self._mine.pop(id(events), None) is events:
            return
        server = self.servers.get(table.id)
        if server is not None:
            self.deliver(server, table, server.route(events), stored=True)
        self.stir_bots(table)

    def deliver(self, server: PimpServer, table, out: dict, stored: bool = False) -> None:
        """Seat whoever was admitted or came back, close replaced connections, and send
        ``out`` once everything queued for the table is stored."""
        if server.admitted:
            for conn, pid in server.admitted:
                conn.seat(table, pid)
            server.admitted.clear()
        if server.to_close:
            closing, server.to_close = server.to_close, []
            for old in closing:
                old.pid = 0
                old.close()

        def send(_=None):
            for conn, data in out.items():
                conn.write_bytes(data)
        if stored:
            send()
        else:
            table.after_stored(send)       # not flush(): that fires on a stall too

    def act(self, table, index: int, action: dict) -> list:
        """Apply an action for seat ``index`` (-1: nobody's) that no connection sent (a server
        bot, the operator) and route its messages like a connection's."""
        server = self.server(table)
        events = server.apply(index + 1 if index >= 0 else None, action)
        self.deliver(server, table, server.route(events))
        return events

    def find_rejoin(self, pid: int, password: int):
        for table in self.tables():
            # (another process's table nobody here shows has no engine here to ask)
            if table.engine is not None and table.engine.game.check_password(pid, password):
                return table
        return None

    # -- server bots acting out of turn ------------------------------------------------
    def stir_bots(self, table) -> None:
        if table.remote:
            return          # its server bots move where the table runs
        if not any(seat.kind == "bot" and seat.brain is not None for seat in table.seats):
            return          # nobody to stir: no timer per frame at a table of people
        call = self._bots_call.get(table.id)
        if call is None or not call.active():
            self._bots_call[table.id] = self.hall.clock.callLater(table.bot_delay, self._bots_act, table)

    def _bots_act(self, table) -> None:
        """One server bot's move out of turn (claims, bids, votes, deals), then the next after
        the table's bot delay: bots move at that pace one move at a time (a burst of moves at
        once let two bots finish a game in a fraction of a second, before anyone could join)."""
        self._bots_call.pop(table.id, None)
        if table.state != PLAYING:
            self.reap(table)
            return
        if table.stalled or table.paused or table.engine.is_over():
            return
        seats = table.seats
        start = self._next_bot.get(table.id, 0)
        for k in range(len(seats)):
            index = (start + k) % len(seats)
            seat = seats[index]
            if seat.kind != "bot" or seat.brain is None:
                continue
            action = seat.brain.bot.choose(table.engine.game, index + 1)
            if action is None:
                continue
            try:
                self.act(table, index, action)
            except (IllegalAction, TableError):
                continue
            self._next_bot[table.id] = index + 1
            self.stir_bots(table)       # the next move, after the bot delay
            return


class Follower:
    """(A hall of several processes.)  A viewer of another process's Monopoly table while PIMP
    connections here are at it: it keeps the replica shown (its engine built and fed the
    owner's moves) and routes each move to those connections."""

    def __init__(self, rooms: PimpRooms, table) -> None:
        self.rooms, self.table = rooms, table
        self.waiting: set = set()            # connections whose first frames wait for the engine

    def loaded(self) -> None:
        waiting, self.waiting = self.waiting, set()
        for conn in waiting:
            conn.release_held()

    def table_event(self, table, event: str, detail: dict) -> None:
        if event == "game":
            self.rooms.table_game(table, detail["events"])
        elif event == "aborted":
            server = self.rooms.servers.get(table.id)
            for conn in list(server.conns if server is not None else ()) + list(self.waiting):
                conn.close_for(f"game #{table.id} was closed: {detail.get('reason', '')}")

    def lobby_chat(self, sender, text) -> None:
        pass

    def lobby_changed(self, event, detail) -> None:
        pass

    def disconnect(self, reason) -> None:
        pass


def take_seat(table, index: int, user) -> None:
    """(Where the table runs.)  Put ``user``, admitted by the game or back with its password,
    on seat ``index`` (user ``index + 1``)."""
    if not 0 <= index < len(table.seats):
        raise TableError(f"Seat {index + 1} of game #{table.id} is not there")
    engine_user = table.engine.game.users[index + 1]
    seat = table.seats[index]
    if seat.user is not None and seat.user is not user:
        old = seat.user
        old.table = None
        seat.user = None
        if table.hall.cluster is not None and old.sink is not None:
            # (a hall of several processes: its connection, on any process, no longer plays it)
            if isinstance(old.sink, PimpProtocol):
                old.sink.close_for(f"user {index + 1} of game #{table.id} came back elsewhere")
            elif getattr(old, "process", None) is not None:
                old.sink.disconnect(f"user {index + 1} of game #{table.id} came back elsewhere")
    if seat.kind == "bot":
        # the player is back (the password was checked by the engine): no more bot
        seat.kind, seat.bot, seat.brain = "human", None, None
    if seat.secret is None:
        # The hall keeps a seat's secret as a slow salted hash, so that a stolen database
        # does not give passwords away; a PIMP password is drawn from the table's seed,
        # which the database holds anyway, so the slow rounds (10 ms of the reactor, four
        # times a game) would protect nothing here: one round.
        seat.secret = hash_secret(str(engine_user.password), rounds=1)
    if seat.user is None and user.table is None:
        try:
            table.seat_user(index, user)
        except TableError as exc:
            PimpProtocol.log.info("pimp: cannot seat {name}: {why}", name=engine_user.name, why=exc)


@implementer(IChatlessSink)
class PimpProtocol(FramedProtocol):
    framer_class = PimpFramer
    log = Logger()

    def connectionMade(self) -> None:
        super().connectionMade()
        self.rooms = rooms_of(self.hall)
        self.table = None
        self.server: PimpServer | None = None
        self.user = None            # the lobby user, once admitted or back
        self.pid = 0
        self._ping_number = 0
        self._heard = False         # a frame came since the last ping: alive, PONG or not
        self._ping_call = self.hall.clock.callLater(PING_EVERY, self._ping)
        self._dead_call = None
        self._waiting_frames: list | None = None  # frames waiting for another process's table to load here

    # -- input -------------------------------------------------------------------------
    def frame_received(self, frame) -> None:
        code, payload = frame
        self._heard = True          # any message is a sign of life (not only PONG)
        if self._waiting_frames is not None:
            self._waiting_frames.append(frame)
            return
        if self.table is not None and self.table.state != PLAYING and (
                self.table.engine is None or not self.table.engine.is_over()):
            self.close_for(f"game #{self.table.id} was closed")
            return
        if self.server is None:
            if self.table is None:      # (set already when its first frames waited)
                if self.hall.cluster is not None and self.rooms.live_current() is None:
                    self._waiting_frames = [frame]    # which process opens the hall's table: see open_for
                    self.rooms.open_for(self)
                    return
                self.table = self.rooms.current()
            if self.table.remote and not self.rooms.follow(self.table, self):
                self._waiting_frames = [frame]    # its engine is being built here from the store
                return
            self.server = self.rooms.server(self.table)
            self.server.connect(self)
        if code == 0x0A and len(payload) >= 5 and self.server.conns.get(self) is not None \
                and self.server.conns[self].state == "greeted":
            self._move_for_rejoin(payload[0], int.from_bytes(payload[1:5], "big"))
        server, table = self.server, self.table
        out = server.receive(self, code, payload)
        me = server.user_of(self)
        if me and me != self.pid:                       # back with the password
            self.seat(table, me)
        self.rooms.deliver(server, table, out)
        self.rooms.stir_bots(table)

    def release_held(self) -> None:
        """The table's engine is here now: the frames that waited for it."""
        held, self._waiting_frames = self._waiting_frames, None
        for frame in held or ():
            if self.closing or self.transport is None:
                return
            self.frame_received(frame)

    def _move_for_rejoin(self, pid: int, password: int) -> None:
        table = self.rooms.find_rejoin(pid, password)
        if table is None or table is self.table:
            return
        old = self.table
        self.server.forget(self)
        if table.remote:
            self.rooms.follow(table, self)   # (it has an engine here: find_rejoin asked it)
        self.table, self.server = table, self.rooms.server(table)
        self.server.adopt(self)
        if old.remote:
            self.rooms.unfollow(old)

    def seat(self, table, pid: int) -> None:
        """Log the PIMP user into the hall's lobby and put them on their seat."""
        self.pid = pid
        engine_user = table.engine.game.users[pid]
        if self.user is None:
            key = getattr(self, "login_key", None)
            for name in (engine_user.name, f"{engine_user.name[:20]}.{table.id}.{pid}", f"pimp{table.id}.{pid}"):
                try:
                    self.user = self.hall.login(name, "pimp", self, self.peer, key=key)
                    break
                except LobbyError:
                    continue
            else:
                self.log.info("pimp: no lobby name for {name}", name=engine_user.name)
                return
        if table.remote:
            self._seat_elsewhere(table, pid - 1, engine_user.name)
            return
        take_seat(table, pid - 1, self.user)

    def _seat_elsewhere(self, table, index: int, name: str) -> None:
        """Another process runs the table: it seats us (``PimpRooms.cluster_request``); the
        seat is ours here once its word comes back (the replica's ``pending``)."""
        user = self.user
        if index < len(table.seats) and table.seats[index].user is user:
            return
        if user.table is not None and user.table is not table:
            return
        key = name.casefold()
        table.pending[key] = user

        def refused(reason):
            if table.pending.get(key) is user:
                del table.pending[key]
            self.log.info("pimp: {name} not seated at game #{id}: {why}", name=name, id=table.id, why=reason)
        table.ask_service(user, {"op": "seat", "seat": index}, refused)

    # -- output ------------------------------------------------------------------------
    def write_bytes(self, data: bytes) -> None:
        if data and not self.closing and self.transport is not None:
            self.hall.stats.messages_out[self.frontend] += 1
            if not send_now(self.transport, data):
                self.transport.write(data)

    def frame_error(self, error) -> None:
        self.write_bytes(encode("ERROR_UNPARSEABLE"))
        self.close()

    # -- IUserSink (IChatlessSink: the console's `say` does not count us as reached) -------

    def lobby_chat(self, sender: str, text: str) -> None:
        pass            # PIMP has no chat

    def lobby_changed(self, event: str, detail: dict) -> None:
        pass

    def table_event(self, table, event: str, detail: dict) -> None:
        if event == "game":
            self.rooms.table_game(table, detail["events"])
        elif event == "aborted":
            # the operator closed the game: PIMP has no word for it, the connection ends
            self.close_for(f"game #{table.id} was closed: {detail.get('reason', '')}")
        elif event == "left" and detail.get("replaced_by_bot"):
            # the operator gave the seat to a server bot: this connection no longer plays it
            # (PIMP has no message for that; the password still brings the player back)
            self.close_for(f"a server bot plays seat {detail.get('seat', 0) + 1} of game #{table.id} now")

    def close_for(self, reason: str) -> None:
        """Close the connection for ``reason`` (logged: PIMP has no message to carry it)."""
        if not self.closing:
            self.log.info("pimp: closing {peer} ({name}): {reason}", peer=self.peer,
                          name=self.user.nickname if self.user is not None else "-", reason=reason)
            self.close()

    def disconnect(self, reason: str) -> None:
        self.close()

    # -- link dead -------------------------------------------------------------------------
    def _ping(self) -> None:
        self._ping_call = None
        if self.closing or self.server is None:
            return
        self._ping_number += 1
        self._heard = False
        self.write_bytes(self.server.ping(self, self._ping_number).get(self, b""))
        self._dead_call = self.hall.clock.callLater(LINK_DEAD_AFTER, self._check_pong)
        self._ping_call = self.hall.clock.callLater(PING_EVERY, self._ping)

    def _check_pong(self) -> None:
        self._dead_call = None
        if self.server is not None and self.server.ping_outstanding(self) and self.pid and not self._heard:
            data = encode("LINK_DEAD", (self.pid,))
            for conn in list(self.server.by_user.values()):
                conn.write_bytes(data)

    # -- closing ---------------------------------------------------------------------------
    def connection_gone(self) -> None:
        for call in (self._ping_call, self._dead_call):
            if call is not None and call.active():
                call.cancel()
        if self.table is not None and self.table.remote:
            follower = self.rooms._followers.get(self.table.id)
            if follower is not None:
                follower.waiting.discard(self)
        if self.server is not None:
            server, table = self.server, self.table
            out = server.disconnect(self)
            if out:
                self.rooms.deliver(server, table, out)
            self.server = self.table = None
            self.rooms.reap(table)
            if table.remote:
                self.rooms.unfollow(table)
        elif self.table is not None and self.table.remote:
            self.rooms.unfollow(self.table)
        if self.user is not None:
            user, self.user = self.user, None
            self.hall.logout(user)


def build_factory(hall) -> FrontEndFactory:
    """The ``pimp`` front end's factory, bound to ``hall``."""
    return FrontEndFactory(hall, "pimp", PimpProtocol, farewell=encode("ERROR_TOO_MANY_USERS"))


# -- the operator's console (``monopoly`` command, contributed through PimpGame.admin_commands) --------
ADMIN_HELP = ("monopoly [new [VARIANT] [BOTS] | current TABLE | bot TABLE [strong|random]]: list the "
              "Monopoly tables; open a new one (the current one for new PIMP connections), with BOTS "
              "strong server bots; make TABLE current; add a server bot to TABLE")


def monopoly_command(hall, args: str):
    rooms = rooms_of(hall)
    words = args.split()
    if not words:
        lines = []
        for t in rooms.tables():
            mark = "*" if t.id == rooms.current_id else " "
            if t.engine is None:             # another process's, nobody here at it
                lines.append(f"{mark} #{t.id} {t.variant}: run by process {t.owner}")
                continue
            g = t.engine.game
            players = ", ".join(f"{u.name}{'' if u.playing else ' (observer)'}" for u in g.users.values())
            lines.append(f"{mark} #{t.id} {t.variant}: {g.phase}, turn {g.turns}; {players or 'nobody yet'}")
        return "\n".join(lines) or "no Monopoly tables"
    verb = words[0].lower()
    if verb == "new":
        rest = words[1:]
        bots = int(rest.pop()) if rest and rest[-1].isdigit() else 0
        if not 0 <= bots <= 8:
            raise ValueError("at most 8 server bots at a new table")
        table = rooms.open_table(rest[0] if rest else None)
        names = [add_bot(table) for _ in range(bots)]
        with_bots = f" with {', '.join(names)}" if names else ""
        return f"Monopoly table #{table.id} ({table.variant}) is open and current{with_bots}"
    if verb in ("current", "bot") and len(words) >= 2:
        number = words[1].lstrip("#")
        if number.isdigit():               # (a table made on another process a moment ago: looked for)
            return hall.when_listed(number, lambda: _monopoly_table_command(hall, rooms, verb, words))
        return _monopoly_table_command(hall, rooms, verb, words)
    raise ValueError("usage: " + ADMIN_HELP)


def _monopoly_table_command(hall, rooms, verb: str, words: list) -> str:
    """``monopoly current N`` or ``monopoly bot N [BOT]``."""
    table = hall.table(words[1].lstrip("#"))
    if table.game.name != "pimp" or table.state != PLAYING:
        raise ValueError(f"game #{table.id} is not a Monopoly table in play")
    if verb == "current":
        rooms.make_current(table)
        return f"Monopoly table #{table.id} is current"
    if table.remote:
        raise ValueError(f"game #{table.id} is run by process {table.owner}: add its bots there")
    return f"{add_bot(table, words[2] if len(words) > 2 else None)} joins game #{table.id}"


def add_bot(table, bot: str | None = None) -> str:
    """Seat a server bot at a Monopoly table at once (the operator needs no vote)."""
    bot = bot or table.game.bots[0]
    if bot not in table.game.bots:
        raise ValueError(f"no bot {bot!r}; bots: {', '.join(table.game.bots)}")
    taken = {u.name.casefold() for u in table.engine.game.users.values()}
    number = 1
    while f"{bot.title()}Bot{number}".casefold() in taken:
        number += 1
    name = f"{bot.title()}Bot{number}"
    events = rooms_of(table.hall).act(table, -1, {"msg": "OPERATOR_ADMIT", "args": [name, 0, True]})
    pid = next(m.args[1] for m in events if m.name == "_ADMITTED")
    table.bot_takeover(pid - 1, bot)
    rooms_of(table.hall).stir_bots(table)
    return name


def admit_seated(table) -> None:
    """Admit the players seated at a table before its start (``PimpGame.admit_seated``),
    and make it the current table, where PIMP clients join by their usual vote."""
    rooms = rooms_of(table.hall)
    users = table.engine.game.users
    for index, seat in enumerate(table.seats):
        known = users.get(index + 1)
        if known is not None and known.name.casefold() == seat.name.casefold():
            # already admitted: this step runs once the new table is stored, and with a store
            # that writes later (SQLite) `monopoly new ... BOTS` has seated its bots by then
            continue
        events = rooms.act(table, -1, {"msg": "OPERATOR_ADMIT", "args": [seat.name, 0, True]})
        pid = next(m.args[1] for m in events if m.name == "_ADMITTED")
        if pid != index + 1:          # seats are user numbers less one: never admit out of order
            raise RuntimeError(f"game #{table.id}: seat {index} admitted as user {pid}")
    rooms.stir_bots(table)
    rooms.make_current(table)        # new PIMP connections come to it (as to `monopoly new`'s)
