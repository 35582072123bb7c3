"""The ``et`` front end: Euphrates & Tigris over its CRLF line protocol.

One :class:`EtProtocol` per connection (framing by :class:`.framing.TelnetLineFramer`, lines
ending in CR LF, LF, CR or CR NUL; limits by ``gamehall.connection.FramedProtocol``, lines by
:mod:`.codec`).  The protocol holds no rules: every game command becomes an engine action applied
through the hall's ``Table``, and a refused one gets ``ERROR <reason>`` and the
same ``ask`` again.

Connections and the shared lobby
--------------------------------
- A connection gets an id (``welcome id``) and is in the hall's lobby at once
  as ``guest<id>`` until it sends ``name``.  Users of the hall's other front
  ends get ids too, the first time an ``et`` client hears of them, so ``who``
  lists every hall user and their chat arrives as ``say id name: text``.
  Names on this wire are single words: a space in another protocol's
  nickname is sent as ``_``.  The hall's own announcements come as
  ``note *** text``.
- ``newconn``, ``outconn`` and ``name`` of other ``et`` connections go out at
  once when the front end is quiet; those that follow within a second are
  gathered and sent together (one write per connection), and a connection
  that came and went within that second is not announced at all, so a crowd
  connecting or dropping costs each connection one write, not one per
  change.  Nothing is announced once the front end stops (at shutdown).
- Id ``0`` stands for a computer player: ``ask 0 0 - e+t`` invites two of the
  hall's strong bots; ``ask 7 0 - e+t`` one person and one bot.
- ``password pwd`` sets the connection's takeover password (and the password
  of its seat, if it plays).  ``takeover id pwd`` makes this connection the
  session ``id``: the old connection (if still there) is closed, and a seat
  held for that player comes back to this one.  A player who drops without a
  takeover keeps the seat for the hall's hold time, then a bot plays it.
- ``abort`` (or ``quit``) by a player stops the game for everyone; it is kept
  in the store and ``ask ... e+t restore <game-id>`` (the id the abort notice
  gives) starts it again where it stood, with the same players (by name; id
  ``0`` for its bots) once they all accept.
- ``ansiboard`` draws the board in ANSI colours as ``note`` lines, for a
  person playing from a plain telnet.
- In a hall of several processes, ``ask`` also invites users of the other
  processes (by the id ``who`` gives them here): see :mod:`.across`.
"""
from __future__ import annotations

from twisted.logger import Logger
from zope.interface import implementer

from gamehall.connection import FramedProtocol, FrontEndFactory, client_text
from gamehall.identity import hash_secret, secret_matches
from gamehall.interfaces import IllegalAction, IUserSink
from gamehall.lobby import NOTICE_WINDOW, LobbyError
from gamehall.table import PLAYING, TableError

from . import render
from .across import EtAcross, RemoteInvitation, RemoteMember
from .codec import CodecError, decode_client, encode_server
from .framing import TelnetLineFramer

GAME = "et"
FRONTEND = "et"
BOT_ID = 0
MAX_SAY = 400

#: client commands that are answers to the game's decisions -> engine verb
GAME_COMMANDS = ("pass", "discard", "leaderadd", "leadermove", "leadertake", "catastrophe", "tile",
                 "add", "resolve", "build", "take")


_ENCODER = TelnetLineFramer()       # framing is stateless on the way out: one for the gathered notices


def wire_name(name: str) -> str:
    return "_".join(str(name).split()) or "_"


class Invitation:
    """``ask ... e+t``: the inviter, the people asked (in order), bots, and who accepted."""

    def __init__(self, inviter, invitees: list, bots: int, restore: dict | None = None):
        self.inviter = inviter
        self.invitees = invitees
        self.bots = bots
        self.accepted = {inviter}
        self.restore = restore
        self.key: str | None = None     # with invitees of other processes: EtAcross's key for it
        self.told = False               # its members were asked (with invitees elsewhere: once
                                        # their processes asked them)

    @property
    def members(self) -> list:
        return [self.inviter] + self.invitees

    def listing(self) -> list[tuple[int, str]]:
        out = [(m.conn_id, wire_name(m.nick)) for m in self.members]
        out += [(BOT_ID, f"StrongBot{i + 1}") for i in range(self.bots)]
        return out


@implementer(IUserSink)
class EtProtocol(FramedProtocol):
    framer_class = TelnetLineFramer
    log = Logger()

    def __init__(self) -> None:
        super().__init__()
        self.conn_id: int | None = None
        self.user = None
        self.password: str | None = None
        self.invitation: Invitation | None = None
        self.view: render.ClientView | None = None
        self.replaying = None       # the restored table whose stored actions are being replayed
        self.replayed: dict | None = None   # (another process restored it) {"id", "actions"}
        self.hint: str | None = None        # how to restore a game stopped, told after its end

    # ------------------------------------------------------------ sending
    def send(self, line: str) -> None:
        try:
            self.send_frame(line.encode("utf-8"))
        except ValueError:
            self.log.warn("et: unsendable line dropped: {line}", line=client_text(line, 80))

    def send_encoded(self, data: bytes, count: int) -> None:
        """Write ``count`` lines already framed (the factory's gathered notices)."""
        if self.closing or self.transport is None or not data:
            return
        self.factory.hall.stats.messages_out[self.factory.name] += count
        self.transport.write(data)

    def send_lines(self, lines) -> None:
        for line in lines:
            self.send(line)

    def note(self, text: str) -> None:
        self.send(encode_server("note", text=" ".join(str(text).splitlines())))

    def error(self, text: str) -> None:
        self.send(encode_server("ERROR", text=self._lowercase_start(" ".join(str(text).splitlines()))))

    def _lowercase_start(self, text: str) -> str:
        """This protocol's errors start in lower case, the hall's (shared with other front ends)
        in upper case: the hall's first word is lowered unless it is a name (a user's, a game's)."""
        word = text.split(" ", 1)[0]
        if not word[:1].isupper() or word[1:] != word[1:].lower() or self.hall.lobby.find(word):
            return text
        if any(g.title.split(" ", 1)[0] == word for g in self.hall.games.values()):
            return text
        return text[0].lower() + text[1:]

    @property
    def nick(self) -> str:
        return self.user.nickname if self.user is not None else "?"

    @property
    def table(self):
        return self.user.table if self.user is not None else None

    # ------------------------------------------------------------ connection
    def connectionMade(self) -> None:
        super().connectionMade()
        self.conn_id = self.factory.register(self)
        self.user = self._login(f"guest{self.conn_id}")
        self.send(encode_server("welcome", id=self.conn_id))
        self.factory.notice("newconn", self.conn_id, encode_server("newconn", id=self.conn_id), exclude=self,
                            joining=True)

    def _login(self, nickname: str, signed_in=None):
        base, n = nickname, 1
        while True:
            try:
                return self.hall.login(nickname, FRONTEND, self, getattr(self, "peer", ""), signed_in=signed_in)
            except LobbyError:
                n += 1
                nickname, signed_in = f"{base}_{n}", None
                if n > 50:
                    raise

    def connection_gone(self) -> None:
        self._cancel_invitation()
        if self.user is not None:
            user, self.user = self.user, None
            self.hall.logout(user)
        if self.factory.unregister(self):
            self.factory.notice("outconn", self.conn_id, encode_server("outconn", id=self.conn_id))

    def frame_error(self, error) -> None:
        self.error(str(error))

    def frame_received(self, frame: bytes) -> None:
        try:
            line = bytes(frame).decode("utf-8")
        except UnicodeDecodeError:
            self.count_bad("not UTF-8")
            self.error("lines must be UTF-8 text")
            return
        if not line.strip():
            return
        try:
            msg = decode_client(line)
        except CodecError as exc:
            self.count_bad("bad command", line)
            self.error(str(exc))
            self._ask_again_if_playing()
            return
        handler = getattr(self, "do_" + msg.kind)
        try:
            handler(msg.args)
        except (LobbyError, TableError, IllegalAction) as exc:
            self.error(str(exc))
            if msg.kind in GAME_COMMANDS:
                self._ask_again_if_playing()

    # ------------------------------------------------------------ lobby commands
    def do_name(self, args) -> None:
        new = args["name"].strip()
        if " " in new:
            raise LobbyError("a name is one word")
        if self.table is not None:
            raise LobbyError("you cannot change your name during a game")
        if self.invitation is not None:
            raise LobbyError("you cannot change your name while invited")
        old = self.user
        self.hall.logout(old)
        try:
            self.user = self.hall.login(new, FRONTEND, self, getattr(self, "peer", ""))
        except LobbyError:
            self.user = self.hall.login(old.nickname, FRONTEND, self, old.address)
            raise
        line = encode_server("name", id=self.conn_id, name=wire_name(self.nick))
        self.send(line)                 # this connection's answer, at once; the others may wait
        self.factory.notice("name", self.conn_id, line, exclude=self)
        held = self.hall.held_table(self.nick)
        if held is not None and held.game.name == GAME:
            try:
                held.reconnect(self.user, secret=self.password)
            except TableError as exc:
                self.note(f"your seat at game {held.id} was not given back: {exc} (use takeover)")

    def do_who(self, args) -> None:
        users = [(self.factory.id_of(u), wire_name(u.nickname)) for u in self.hall.who()]
        self.send(encode_server("who", users=users))

    def do_say(self, args) -> None:
        text = args["text"][:MAX_SAY]
        self.hall.lobby.chat(self.nick, text)

    def do_quit(self, args) -> None:
        table = self.table
        if table is not None and table.state == PLAYING:
            self._abort(table, f"{self.nick} quit")
        self.close()

    def do_password(self, args) -> None:
        pwd = args["pwd"]
        if not pwd or " " in pwd:
            raise LobbyError("a password is one word")
        self.password = pwd
        self.factory.sessions[self.conn_id] = {"nickname": self.nick, "secret": hash_secret(pwd),
                                               # a registered name's takeover needs no key again
                                               "player": self.hall.players.get(self.nick)
                                               if self.user.registered else None}
        table = self.table
        if table is not None and table.seat_of(self.user) is not None:
            table.set_secret(table.seat_of(self.user), pwd)
        self.send(encode_server("password-confirm", pwd=pwd))

    def do_takeover(self, args) -> None:
        old_id, pwd = args["id"], args["pwd"]
        session = self.factory.sessions.get(old_id)
        if session is None or not secret_matches(session["secret"], pwd):
            raise LobbyError(f"no session {old_id} with that password")
        if self.table is not None or self.invitation is not None:
            raise LobbyError("finish what you are doing here first")
        old = self.factory.conns.get(old_id)
        if old is not None and old is not self:
            old.note(f"connection {self.conn_id} took this session over")
            old._cancel_invitation()
            if old.user is not None:
                user, old.user = old.user, None
                self.hall.logout(user)           # a playing seat is held, for us
            self.factory.unregister(old)
            old.close()
        # this connection becomes the session
        self.hall.logout(self.user)
        self.factory.unregister(self)
        self.factory.notice("outconn", self.conn_id, encode_server("outconn", id=self.conn_id), exclude=self)
        self.conn_id = old_id
        self.factory.conns[old_id] = self
        self.password = pwd
        player = session.get("player")
        if player is not None and self.hall.players.get(player.name) is not player:
            player = None                       # reset by the operator meanwhile
        self.user = self._login(session["nickname"], signed_in=player)
        self.factory.sessions[old_id]["nickname"] = self.nick
        self.send(encode_server("takeover-confirm", id=old_id))
        if old is None:
            # the others were told `outconn old_id` when it dropped: it is back, under its name
            self.factory.notice("newconn", old_id, encode_server("newconn", id=old_id), exclude=self)
            self.factory.notice("name", old_id, encode_server("name", id=old_id, name=wire_name(self.nick)),
                                exclude=self)
        held = self.hall.held_table(self.nick)
        if held is not None and held.game.name == GAME:
            held.reconnect(self.user, secret=pwd)     # seat_changed sends the game

    # ------------------------------------------------------------ invitations
    def do_ask(self, args) -> None:
        if self.table is not None:
            raise TableError("you are in a game already")
        if self.invitation is not None:
            raise TableError("you are already in an invitation: decline it first")
        ids = [i for i in (args["a"], args["b"], args["c"]) if i is not None]
        if not ids:
            raise TableError("invite at least one player (id 0 for a computer player)")
        people, bots = [], 0
        for i in ids:
            if i == BOT_ID:
                bots += 1
                continue
            conn = self.factory.conns.get(i)
            if conn is None:
                elsewhere = self.factory.elsewhere(i)
                if elsewhere is not None and self.factory.across is not None and elsewhere.frontend == FRONTEND:
                    # a user of another process of the hall: its process asks it (EtAcross)
                    member = self.factory.across.member(elsewhere)
                    if any(isinstance(p, RemoteMember) and p.same(member) for p in people):
                        raise TableError(f"connection {i} is asked twice")
                    people.append(member)
                    continue
            if conn is None or conn.user is None:
                raise TableError(f"there is no E&T connection {i}")
            if conn is self:
                raise TableError("you cannot invite yourself")
            if conn in people:
                raise TableError(f"connection {i} is asked twice")
            if conn.table is not None or conn.invitation is not None:
                raise TableError(f"{conn.nick} is busy")
            people.append(conn)
        if "game" in args:
            self._ask_restore(people, bots, args["game"])
            return
        self._invite(Invitation(self, people, bots))

    def _ask_restore(self, people, bots, game_id) -> None:
        try:
            store_id = int(game_id)
        except ValueError:
            raise TableError(f"no stored game {game_id!r}") from None
        d = self.hall.store.load_table(store_id)

        def loaded(row) -> None:
            try:
                self._check_restore(row, people, bots, store_id)
            except TableError as exc:
                self.error(str(exc))
                return
            if self.table is not None or self.invitation is not None or any(
                    p.table is not None or p.invitation is not None or p.user is None for p in people):
                self.error("someone asked is busy now")
                return
            self._invite(Invitation(self, people, bots, restore=row))

        def failed(failure) -> None:
            self.error(f"stored game {store_id} cannot be read: {failure.getErrorMessage()}")

        d.addCallbacks(loaded, failed)

    def _check_restore(self, row, people, bots, store_id) -> None:
        if row is None or row.get("game") != GAME:
            raise TableError(f"there is no stored E&T game {store_id}")
        if row.get("state") != "aborted":
            raise TableError(f"game {store_id} was not aborted (it is {row.get('state')})")
        seats = row.get("seats") or []
        humans = sorted(s["name"].casefold() for s in seats if s.get("kind") == "human")
        names = sorted(p.nick.casefold() for p in [self] + people)
        if humans != names or bots != sum(1 for s in seats if s.get("kind") == "bot"):
            listed = ", ".join(s["name"] if s.get("kind") == "human" else "a bot (id 0)" for s in seats)
            raise TableError(f"game {store_id} is restored with its own players: {listed}")

    def _invite(self, inv: Invitation) -> None:
        for m in inv.members:
            m.invitation = inv
        if any(isinstance(m, RemoteMember) for m in inv.invitees):
            # invitees of other processes: asked there first (each may be busy there)

            def failed(reason: str) -> None:
                for m in inv.members:
                    m.invitation = None
                self.error(reason)
            self.factory.across.reserve(inv, lambda: self._invited(inv), failed)
            return
        self._invited(inv)

    def _invited(self, inv: Invitation) -> None:
        inv.told = True
        asked = encode_server("state asked", users=inv.listing())
        for m in inv.members:
            if not isinstance(m, RemoteMember):      # (asked by their process already)
                m.send(asked)
        self.send(encode_server("state accepted"))
        if not inv.invitees:
            self._commence(inv)

    def do_accept(self, args) -> None:
        inv = self.invitation
        if inv is None:
            raise TableError("nobody has invited you")
        if isinstance(inv, RemoteInvitation):        # a user of another process invited us
            if inv.accepted:
                raise TableError("you have accepted already")
            inv.accepted = True
            self.send(encode_server("state accepted"))
            self.factory.across.answer(self, "accept")
            return
        if self in inv.accepted:
            raise TableError("you have accepted already")
        self.send(encode_server("state accepted"))
        inv.inviter.accepted_by(inv, self)

    def accepted_by(self, inv: Invitation, member) -> None:
        """(The inviter's.)  ``member`` accepted ``inv``: the others are told; all in, the game."""
        inv.accepted.add(member)
        for m in inv.members:
            if m is not member:
                self._tell_member(m, "accepts", member)
        if len(inv.accepted) == len(inv.members):
            self._commence(inv)

    def do_decline(self, args) -> None:
        table = self.table
        if table is not None and table.state == PLAYING:
            self._act({"decline": {}})
            return
        inv = self.invitation
        if inv is None:
            raise TableError("there is nothing to decline")
        self.send(encode_server("declines", id=self.conn_id, name=wire_name(self.nick)))
        if isinstance(inv, RemoteInvitation):
            self.factory.across.answer(self, "decline")
            self.invitation = None
            self.send(encode_server("state connected"))
            return
        inv.inviter.declined_by(inv, self)

    def declined_by(self, inv: Invitation, member) -> None:
        """(The inviter's.)  ``member`` declined: everyone is told, and the invitation is over
        (a member of another process told itself already)."""
        for m in inv.members:
            if m is not member:
                self._tell_member(m, "declines", member)
        self._end_invitation(inv, skip=member if isinstance(member, RemoteMember) else None)

    def gone_from(self, inv: Invitation, member) -> None:
        """(The inviter's.)  ``member``'s connection (or its process) is gone: it is over."""
        self._end_invitation(inv, skip=member)

    def _tell_member(self, m, kind: str, who) -> None:
        if isinstance(m, RemoteMember):
            m.told(kind, who)
        else:
            m.send(encode_server(kind, id=who.conn_id, name=wire_name(who.nick)))

    def _end_invitation(self, inv: Invitation, skip=None) -> None:
        """``state connected`` to its members (but ``skip``, and connections closing)."""
        if self.factory.across is not None:
            self.factory.across.forget(inv)
        for m in inv.members:
            if m is not skip and not m.closing:
                if isinstance(m, RemoteMember):
                    m.told("connected")
                elif inv.told or m is inv.inviter:
                    m.send(encode_server("state connected"))
            m.invitation = None

    def _cancel_invitation(self) -> None:
        """This connection leaves (or is taken over) while invited."""
        inv = self.invitation
        if inv is None:
            return
        if isinstance(inv, RemoteInvitation):
            self.factory.across.answer(self, "gone")
            self.invitation = None
            if not self.closing:
                self.send(encode_server("state connected"))
            return
        inv.inviter._end_invitation(inv)

    def _commence(self, inv: Invitation) -> None:
        for m in inv.members:
            m.invitation = None
        hall = self.hall
        row = inv.restore
        players = len(inv.members) + inv.bots
        table = hall.create_table(GAME, max_seats=max(players, 2))
        by_name = {m.nick.casefold(): m for m in inv.members}
        try:
            if row is None:
                for m in inv.members:
                    table.join(m.user, secret=m.password)
                for _ in range(inv.bots):
                    table.add_bot("strong")
            else:
                for s in row["seats"]:
                    if s.get("kind") == "human":
                        m = by_name[s["name"].casefold()]
                        table.join(m.user, secret=m.password)
                    else:
                        table.add_bot(s.get("bot") or "strong", name=s["name"])
                table.seed = row["seed"]
            for m in inv.members:
                if isinstance(m, RemoteMember):
                    continue                # (its process seats it: EtAcross.commenced)
                m.view = render.ClientView(table.seat_of(m.user))
                m.send(encode_server("state commence"))
                if row is not None:
                    m.replaying = table
            table.start()
            if row is not None:
                # the stored actions again, through the table, so the new game's store row has
                # them; the players are told where it stands once, when they are all stored
                table.replay(row["actions"])
                table.after_stored(lambda: self._replayed(table, inv.members, row))
            if inv.key is not None:
                self.factory.across.commenced(inv, table)
        except (TableError, IllegalAction, KeyError, ValueError) as exc:
            self.log.info("et: game could not start: {why}", why=client_text(exc))
            for m in inv.members:
                m.replaying = None
            if table.state == PLAYING:
                table.abort(f"the game could not be started: {exc}")
            else:
                for m in inv.members:
                    if m.user is not None and m.user.table is table:
                        table.leave(m.user)
                hall.remove_table(table)
            if self.factory.across is not None:
                self.factory.across.forget(inv)
            for m in inv.members:
                if isinstance(m, RemoteMember):
                    m.told("connected")
                    continue
                m.error(f"the game could not be started: {exc}")
                m.send(encode_server("state connected"))

    @staticmethod
    def _replayed(table, members, row: dict) -> None:
        """A restored game's stored actions are replayed and stored: each player gets the
        game as it stands, then the pending ask (not one note and ask per replayed action,
        which arrived interleaved with the store's writes)."""
        for m in members:
            if m.replaying is not table:
                continue
            m.replaying = None
            if m.user is not None and m.user.table is table and table.state == PLAYING:
                m.note(f"game {row.get('id')} restored as game {table.store_id}: "
                       f"{len(row['actions'])} stored actions replayed")
                m.view = None
                m._refresh(table)

    def caught_up(self, table) -> None:
        """A game another process restored: told as it stands once this process's replica has
        every replayed action (not one note and ask per replayed action)."""
        done = self.replayed or {}
        if table.engine is None or table.loading or table.seq < done.get("actions", 0):
            return
        self.replaying, self.replayed = None, None
        if self.user is not None and self.user.table is table and table.state == PLAYING:
            self.note(f"game {done.get('id')} restored as game {table.store_id}: "
                      f"{done.get('actions')} stored actions replayed")
            self.view = None
            self._refresh(table)

    # ------------------------------------------------------------ game commands
    def do_board(self, args) -> None:
        engine = self._engine()
        self.send(render.board_line(engine) if engine is not None else
                  encode_server("board", width=16, height=11, cells=self._empty_board()))

    @staticmethod
    def _empty_board() -> str:
        from ..position import Position
        from .codec import board_cells
        return board_cells(Position.standard())

    def do_ansiboard(self, args) -> None:
        from ..position import Position
        engine = self._engine()
        pos = engine.pos if engine is not None else Position.standard()
        conflict = render.conflict_cell(engine) if engine is not None else None
        for text in render.ansiboard(pos, conflict):
            self.note(text)

    def do_hand(self, args) -> None:
        engine, seat = self._engine(), self._seat()
        if engine is None or seat is None:
            raise TableError("you are not playing")
        self.send(render.hand_line(engine, seat))

    def do_score(self, args) -> None:
        engine, seat = self._engine(), self._seat()
        if engine is None or seat is None:
            raise TableError("you are not playing")
        self.send(render.score_line(engine, seat))

    def do_abort(self, args) -> None:
        table = self.table
        if table is None or table.state != PLAYING or table.seat_of(self.user) is None:
            raise TableError("you are not playing a game")
        self._abort(table, f"{self.nick} aborted the game")

    def _abort(self, table, why: str) -> None:
        store_id = table.store_id
        # the seats' ids as they are now, id 0 for a bot (a player who reconnects gets a new id)
        users = [seat.user for seat in table.seats]
        seats = [{"name": seat.name, "bot": seat.kind == "bot"} for seat in table.seats]
        ids = [str(i) for i in self._order_ids(table)]
        table.abort(why)
        for n, user in enumerate(users):
            sink = user.sink if user is not None else None
            if isinstance(sink, EtProtocol):
                others = ids[:n] + ids[n + 1:]
                others += ["-"] * (3 - len(others))
                sink.stopped_hint(table, f"game {store_id} is stopped; to go on later: ask {' '.join(others)} "
                                         f"e+t restore {store_id}")
            elif user is not None and not seats[n]["bot"] and self.factory.across is not None:
                # a player connected to another process: told there, with that process's ids
                self.factory.across.stopped(seats[n]["name"], store_id, seats)

    def stopped_hint(self, table, text: str) -> None:
        """How to go on with a game stopped: after its end is told (a table another process
        runs tells it later), as for a local table."""
        if table is not None and self.user is not None and self.user.table is table and table.remote \
                and table.state == PLAYING:
            self.hint = text
        else:
            self.note(text)

    def _engine(self):
        table = self.table
        return table.engine if table is not None and table.engine is not None else None

    def _seat(self):
        table = self.table
        return table.seat_of(self.user) if table is not None else None

    def _act(self, action: dict) -> None:
        table = self.table
        if table is None or table.state != PLAYING:
            raise TableError("you are not playing a game")
        table.act(self.user, action)

    def _ask_again_if_playing(self) -> None:
        engine = self._engine()
        if engine is not None and self.view is not None and not engine.is_over():
            self.send_lines(self.view.ask_again(engine))

    def do_pass(self, args) -> None:
        self._act({"pass": {}})

    def do_discard(self, args) -> None:
        self._act({"discard": dict(args)})

    def do_leaderadd(self, args) -> None:
        self._act({"leaderadd": dict(args)})

    def do_leadermove(self, args) -> None:
        self._act({"leadermove": dict(args)})

    def do_leadertake(self, args) -> None:
        self._act({"leadertake": dict(args)})

    def do_catastrophe(self, args) -> None:
        self._act({"catastrophe": dict(args)})

    def do_tile(self, args) -> None:
        self._act({"tile": dict(args)})

    def do_add(self, args) -> None:
        self._act({"add": {"colour": args["colour"], "n": args["n"]}})

    def do_resolve(self, args) -> None:
        self._act({"resolve": {"colour": args["colour"]}})

    def do_build(self, args) -> None:
        self._act({"build": {"x": args["x"], "y": args["y"], "colours": [args["colour1"], args["colour2"]]}})

    def do_take(self, args) -> None:
        self._act({"take": dict(args)})

    # ------------------------------------------------------------ IUserSink
    def lobby_chat(self, sender: str, text: str) -> None:
        if sender == "*":
            self.note(f"*** {text}")
            return
        user = self.hall.lobby.find(sender)
        uid = self.factory.id_of(user) if user is not None else BOT_ID
        self.send(encode_server("say", id=uid, name=wire_name(sender),
                                text=" ".join(str(text).splitlines())))

    def lobby_changed(self, event: str, detail: dict) -> None:
        # every et connection is told the same lines: the factory works them out once
        data, count = self.factory.lobby_lines(event, detail)
        self.send_encoded(data, count)

    def disconnect(self, reason: str) -> None:
        self.note(reason)
        self.close()

    def table_event(self, table, event: str, detail: dict) -> None:
        if table.game.name != GAME:
            return
        if self.replaying is table and event in ("started", "game", "decision", "timeout"):
            if table.remote:
                self.caught_up(table)
            return                  # told once the replay is stored (_replayed)
        handler = getattr(self, "on_" + event, None)
        if handler is not None:
            handler(table, detail)

    def _order_ids(self, table) -> list[int]:
        out = []
        for seat in table.seats:
            user = seat.user
            if seat.kind == "bot":
                out.append(BOT_ID)
            elif user is not None:
                out.append(self.factory.id_of(user))
            else:
                out.append(self.factory.id_for_name(seat.name))
        return out

    def _decision_key(self, table):
        engine = table.engine
        k = engine.conflict
        return (table.id, table.seq, engine.phase, engine.pending_seat(),
                None if k is None else k["att_add"])

    def _refresh(self, table) -> None:
        engine = table.engine
        if self.view is None:
            self.view = render.ClientView(table.seat_of(self.user))
            self.send_lines(self.view.full(engine, self._order_ids(table)))
        else:
            self.send_lines(self.view.sync(engine))
        if engine.is_over():
            return
        self.send_lines(self.view.decision(engine, self._decision_key(table)))

    def on_started(self, table, detail) -> None:
        if table.remote and self.view is not None:
            self._refresh(table)            # shown already, from the store (EtAcross)
            return
        self.view = render.ClientView(table.seat_of(self.user))
        self.send_lines(self.view.full(table.engine, self._order_ids(table)))
        self.send_lines(self.view.decision(table.engine, self._decision_key(table)))

    def on_game(self, table, detail) -> None:
        for text in render.event_notes(detail.get("events", []), table.players()):
            self.note(text)
        self._refresh(table)

    def on_decision(self, table, detail) -> None:
        self._refresh(table)

    def on_chat(self, table, detail) -> None:
        """The players' ratings at the start (gamehall.seat_ratings): a ``note`` line."""
        if detail.get("nickname") == "*" and detail.get("notice") == "ratings":
            self.note(str(detail.get("text", "")))

    def on_finished(self, table, detail) -> None:
        engine = table.engine
        if self.view is not None:
            self.send_lines(self.view.sync(engine))
        self.send_lines(render.final_lines(engine))
        self.send(encode_server("state connected"))
        self.view = None

    def on_aborted(self, table, detail) -> None:
        self.note(f"the game is stopped: {detail.get('reason', '')}")
        self.send(encode_server("state connected"))
        self.view = None
        if self.hint is not None:
            hint, self.hint = self.hint, None
            self.note(hint)

    def on_seat_changed(self, table, detail) -> None:
        if self.user is not None and table.seat_of(self.user) == detail.get("seat") \
                and detail.get("kind") == "human":
            self.view = None                 # back in the game: everything again
            self._refresh(table)
        elif detail.get("kind") == "bot":
            self.note(f"a {detail.get('bot')} bot now plays for {detail.get('nickname')}")
        else:
            self.note(f"{detail.get('nickname')} is back")

    def on_left(self, table, detail) -> None:
        if self.user is not None and str(detail.get("nickname", "")).casefold() == self.user.key:
            if detail.get("replaced_by_bot"):
                self.note("a bot plays your seat now")
                self.send(encode_server("state connected"))
                self.view = None
            return
        if detail.get("held"):
            self.note(f"{detail.get('nickname')} dropped; the seat is held for a while")

    def on_timeout(self, table, detail) -> None:
        self.note("you took too long: the passive choice was made for you")


class EtFactory(FrontEndFactory):
    """The front end's shared state: connection ids, sessions for takeover, every connection."""

    def __init__(self, hall) -> None:
        super().__init__(hall, FRONTEND, EtProtocol,
                         farewell=b"ERROR too many connections from your address\r\n")
        self.conns: dict[int, EtProtocol] = {}
        self.sessions: dict[int, dict] = {}        # id -> {"nickname", "secret"} (hashed)
        self._names: dict[str, int] = {}           # other front ends' users: nickname key -> id
        self._next = 1
        self.window = NOTICE_WINDOW
        self._lobby_cache: tuple | None = None     # (detail, event, lines, count): see lobby_lines
        self._gathered: list[tuple] = []           # (kind, conn id, line, joining proto)
        self._flush_call = None                    # the gathering window's end
        self.stopped = False
        # a hall of several processes: invitations with users of the others
        self.across = EtAcross(self, hall.cluster) if getattr(hall, "cluster", None) is not None else None

    def _new_id(self) -> int:
        i, self._next = self._next, self._next + 1
        return i

    def register(self, proto: EtProtocol) -> int:
        i = self._new_id()
        self.conns[i] = proto
        return i

    def unregister(self, proto: EtProtocol) -> bool:
        if self.conns.get(proto.conn_id) is proto:
            del self.conns[proto.conn_id]
            return True
        return False

    # -- newconn / outconn / name, gathered (see the module docstring) -------------------
    def notice(self, kind: str, conn_id: int, line: str, exclude: EtProtocol | None = None,
               joining: bool = False) -> None:
        """Tell every connection but ``exclude`` ``line`` about connection ``conn_id``:
        at once when the front end is quiet, else gathered until the window ends.  With
        ``joining`` (its own ``newconn``), ``exclude`` also misses what was gathered
        before it joined, as it would have."""
        if self.stopped:
            return                      # shutting down: everyone is about to go
        self._gathered.append((kind, conn_id, line, exclude, joining))
        if self._flush_call is None:
            self.flush_notices()
            self._flush_call = self.hall.clock.callLater(self.window, self._window_over)

    def _window_over(self) -> None:
        self._flush_call = None
        if self._gathered:
            self.flush_notices()
            # more may follow: keep gathering for another window
            self._flush_call = self.hall.clock.callLater(self.window, self._window_over)

    def flush_notices(self) -> None:
        """Send what was gathered: the lines framed once, one write per connection, the
        same bytes for all but the few connections that miss some of them."""
        gathered, self._gathered = self._gathered, []
        if not gathered:
            return
        first: dict[int, str] = {}
        last: dict[int, str] = {}
        for kind, cid, _, _, _ in gathered:
            first.setdefault(cid, kind)
            last[cid] = kind
        # came and went within the window: nobody needs to know
        fleeting = {cid for cid, kind in first.items() if kind == "newconn" and last[cid] == "outconn"}
        chunks: list[bytes] = []
        skips: dict[EtProtocol, list[tuple[int, int, int]]] = {}   # proto -> (from, to, lines) not for it
        offset = 0
        for kind, cid, line, exclude, joining in gathered:
            if cid in fleeting:
                continue
            try:
                chunk = _ENCODER.encode(line.encode("utf-8"))
            except ValueError:
                continue
            chunks.append(chunk)
            if exclude is not None:
                if joining:               # it was not there before: nothing up to here is for it
                    skips[exclude] = [(0, offset + len(chunk), len(chunks))]
                else:
                    skips.setdefault(exclude, []).append((offset, offset + len(chunk), 1))
            offset += len(chunk)
        if not chunks:
            return
        data, count = b"".join(chunks), len(chunks)
        for proto in list(self.conns.values()):
            if proto.user is None:
                continue
            skip = skips.get(proto)
            if skip is None:
                proto.send_encoded(data, count)
                continue
            parts, at, lines = [], 0, count
            for begin, end, n in skip:
                parts.append(data[at:begin])
                at, lines = max(at, end), lines - n
            parts.append(data[at:])
            proto.send_encoded(b"".join(parts), lines)

    def stopFactory(self) -> None:
        # the port has stopped listening: every connection is about to be dropped, and
        # telling each of the others of each (n x n lines) only delays the stop
        self.stopped = True
        self._gathered = []
        if self._flush_call is not None and self._flush_call.active():
            self._flush_call.cancel()
        self._flush_call = None
        super().stopFactory()

    def startFactory(self) -> None:
        self.stopped = False
        super().startFactory()

    def id_of(self, user) -> int:
        sink = user.sink
        if isinstance(sink, EtProtocol) and sink.conn_id is not None:
            return sink.conn_id
        return self.id_for_name(user.nickname)

    def lobby_lines(self, event: str, detail: dict) -> tuple[bytes, int]:
        """The framed lines (and how many) that tell an et connection of the hall's
        ``event``: users of other front ends coming (``newconn`` and ``name``) and going
        (``outconn``); et connections announce themselves.  Worked out once per notice
        (the lobby hands every user the same ``detail``), not once per connection: a
        notice of k users to n connections cost n x k before, and only the first
        connection told of a user leaving got its ``outconn`` (the id was forgotten then)."""
        cached = self._lobby_cache
        if cached is not None and cached[0] is detail and cached[1] == event:
            return cached[2], cached[3]
        if event == "users_changed":
            changes = [("user_joined", d) for d in detail.get("joined", ())]
            changes += [("user_left", d) for d in detail.get("left", ())]
        else:
            changes = [(event, detail)]
        lines = []
        for kind, d in changes:
            if kind not in ("user_joined", "user_left"):
                continue
            nick = d.get("nickname", "")
            if d.get("frontend") == FRONTEND and (kind == "user_left" or not self._elsewhere_now(nick)):
                # this process's et connections announce themselves; those of another process
                # are announced here (their ids here are this process's), and leave as others
                if kind == "user_joined" or nick.casefold() not in self._names:
                    continue
            if kind == "user_joined":
                uid = self.id_for_name(nick)
                lines += [encode_server("newconn", id=uid), encode_server("name", id=uid, name=wire_name(nick))]
            else:
                uid = self.forget_name(nick)
                if uid is not None:
                    lines.append(encode_server("outconn", id=uid))
        chunks = []
        for line in lines:
            try:
                chunks.append(_ENCODER.encode(line.encode("utf-8")))
            except ValueError:
                pass
        self._lobby_cache = (detail, event, b"".join(chunks), len(chunks))
        return self._lobby_cache[2], self._lobby_cache[3]

    def id_for_name(self, nickname: str) -> int:
        key = nickname.casefold()
        user = self.hall.lobby.find(nickname)
        if user is not None and isinstance(user.sink, EtProtocol) and user.sink.conn_id is not None:
            return user.sink.conn_id
        if key not in self._names:
            self._names[key] = self._new_id()
        return self._names[key]

    def _elsewhere_now(self, nickname: str) -> bool:
        user = self.hall.lobby.find(nickname)
        return user is not None and getattr(user, "process", None) is not None

    def elsewhere(self, conn_id: int):
        """The user of another process of the hall that ``conn_id`` names here, or None."""
        for key, i in self._names.items():
            if i == conn_id:
                user = self.hall.lobby.find(key)
                if user is not None and getattr(user, "process", None) is not None:
                    return user
        return None

    def forget_name(self, nickname: str) -> int | None:
        return self._names.pop(nickname.casefold(), None)


def build_factory(hall) -> EtFactory:
    """The ``et`` front end's factory, bound to ``hall``."""
    return EtFactory(hall)

