"""The NetAcquire front end: one Twisted protocol per connected NetAcquire client.

Bytes go through :class:`gamehall_acquire.wire.framing.NetAcquireFramer` and
:mod:`.codec`; host-processed directives become calls on the hall and on the
user's table; hall and table events come back through ``IUserSink`` and are
rendered by :mod:`.render`.  The protocol holds no rules: every game action is
validated by the engine (through ``Table.act``), and an answer refused is
answered with a game message saying why and the same request again (an
answer to a request that is no longer pending only gets the message).

Lobby and game-room commands
----------------------------
Typed in the lobby or in the game room chat (they are sent as ``BM`` text and
never broadcast), answered in the same window:

``/help``
    list these commands.
``/bot [strong|random]``
    add a computer player to your game before it starts (only the game's
    creator; the default is ``strong``).  Bots are named ``StrongBot1``,
    ``RandomBot1``...

Choices made where the protocol is silent
-----------------------------------------
- Lobby chat (``BM;Lobby``, and chat from users of other protocols) goes to
  every NetAcquire user as ``LM`` ``"<nick>: <text>"``, also to those in a game:
  ``LM`` is shown in the client's lobby window only, which is what the protocol
  text means by "all users connected to host".  Lobby notices (users coming
  and going, games created, started and ended) go only to users in the lobby
  (state 3), so players are not disturbed by them; under load the hall
  gathers a second's changes, each game once (``LobbyNotices``).  If a
  client puts its own ``"<nick>: "`` in front of its text, it is not doubled.
- Game room chat (``BM;Game Room``) is ``GM`` ``"<nick>: <text>"`` to everyone
  at the table, players and spectators.
- A client that sends anything but ``PL``, ``PI``, ``PR`` or ``CL`` before
  ``PL`` gets an error message box and the ``SP`` handshake again (it has no
  client state yet to re-send).
- Errors are shown where the user is: a message box (``M;"E;..."``) in the
  lobby, a game room line ``"<title>: <text>"`` at a table (clients put
  message boxes they do not know into the lobby pane).  Then the client's
  current state is sent again (``SS``), and the pending request only if the
  refused directive was its answer (``PT``, ``CS``, ``MD``, ``P``): any other
  error leaves the client's dialog open, and a second request would open a
  second one.
- A dialog (``GC``, ``GD``, ``GP``) still open when the turn timer plays for
  its user cannot be closed: the protocol has no directive for it.  Its
  answer, whenever it comes, is refused with a game room line saying so,
  instead of being taken for the answer to the next request of its kind (a
  purchase dialog showing 20 shares available was once accepted when 17
  were left).  Dialogs are answered in the order they opened, so the first
  ``P`` (``MD``, ``CS``) after such a timeout is the stale one.
- The board is sent as ``SB`` for every tile on it.  Clients mark a rack
  tile's cell as "in my rack" on ``AT`` until an ``SB`` for it, so a tile that
  leaves the rack without being played (a dead tile set aside) gets an ``SB``
  with the empty-cell state ``render.EMPTY_CELL``; otherwise empty cells are
  not sent (a new game window starts empty).
- Score sheet rows are seats in join order; zero values are sent as ``0``.
  When a player leaves a waiting room the names are changed in place (``SV``
  captions, rows compacted, the freed row blank): an ``SS;3`` round trip would
  clear everyone's game room window.  Clients count players by the name
  captions they were sent, an empty one included, until ``SS;3``: a client
  whose sheet still has a blank row when the game starts gets ``SS;3`` (which
  clears its game room window), then its room state again and the game room
  lines it had been sent in the waiting room (the last ``ROOM_TEXT_KEPT``),
  then ``SS;6``: its game room text is kept.
- The host never sends ``PI``: deployed clients do not all answer it (one
  prints "Unhandled command: PI").  Dead peers are found by TCP keepalive; a
  user seated or watching is never dropped for silence, and a lobby user
  silent for the hall's idle timeout gets an error box and is closed
  (``FramedProtocol``).  A client's own ``PI`` is answered with ``PR``.
- After the game ends the client stays in its game window (state 6) until it
  sends ``LV``; it is back in the lobby as far as the hall is concerned.
"""
from __future__ import annotations

import functools
from collections import deque

from twisted.logger import Logger
from zope.interface import implementer

from gamehall.connection import FramedProtocol, FrontEndFactory, client_text, send_now
from gamehall.interfaces import IllegalAction, IUserSink
from gamehall.lobby import LobbyError, NameTaken
from gamehall.players import RegisteredName, split_key
from gamehall.table import PLAYING, WAITING, TableError

from . import render
from .codec import CodecError, Directive, encode, parse
from .framing import NetAcquireFramer
from .encoded import LAST_CHAT, wire
from .lobby import LobbyNotices
from .render import CHAINS, d, game_list, gm, lm, message_box, user_list

GAME = "acquire"
HOST_NAME = "gamehall"
VERSION = (2, 0, 4)
LOBBY, ROOM, CREATOR, PLAYING_STATE = 3, 4, 5, 6
ROOM_TEXT_KEPT = 200            # game room lines kept per client for the start's SS;3 (see on_started)
MAX_TEXT = 1000          # longest chat text passed on (the framer's limit is 8192 bytes)

HELP = [
    "Commands (type them in the lobby or the game room):",
    "/bot [strong|random] - add a computer player to your game before it starts (creator only)",
    "/help - this list",
    "/rating [NAME] - your ratings and places, or another player's (only you see the answer)",
]


def one_write(method=None, *, now: bool = False):
    """Everything ``method`` sends goes out in one ``transport.write`` (one event, one write).

    ``now=True`` (table events, a player's own answer: a few per connection per turn)
    sends it to the socket at once when Twisted holds nothing for it (``send_now``); other
    events (lobby fan-out: one per lobby user, many per turn) leave Twisted to gather a
    turn's writes into one send."""
    if method is None:
        return functools.partial(one_write, now=now)

    # (positional arguments only: a ``**kw`` would be one more dict per event per connection)
    @functools.wraps(method)
    def wrapper(self, *args):
        if self._batch is not None:
            return method(self, *args)
        self._batch, self._batch_count = [], 0
        try:
            return method(self, *args)
        finally:
            self._flush(now)
    return wrapper


class BadDirective(ValueError):
    """Parameters that cannot be read; str() is the reason for the user."""


def _int(value: str, what: str) -> int:
    try:
        return int(str(value).strip())
    except ValueError:
        raise BadDirective(f"{what} must be a whole number, not {value!r}") from None


@implementer(IUserSink)
class NetAcquireProtocol(FramedProtocol):
    """One NetAcquire client connection."""

    framer_class = NetAcquireFramer
    host_name = HOST_NAME
    log = Logger()

    def __init__(self) -> None:
        super().__init__()
        self.user = None
        self.state: int | None = None         # client state last sent with SS (None before PL)
        self.view = render.ClientView()
        self._batch: list[bytes] | None = None   # wire bytes held back while handling one event (one_write)
        self._batch_count = 0
        self._dialog: str | None = None      # answer code (P, MD, CS) of the dialog this client has open
        self._stale: dict[str, int] = {}     # answer code -> dialogs left open when the timer played
        self._asked = None                   # the snapshot whose request went out with its update (on_game)
        # game room lines sent in the waiting room, sent again after an SS;3 at the start
        # (the client clears its game room window on it)
        # (made when the first is kept: few objects per connection for the collector)
        self._room_text: deque | None = None

    # -- sending -----------------------------------------------------------
    def send(self, directive: Directive) -> None:
        if directive.code == "GM" and self.state in (ROOM, CREATOR):
            if self._room_text is None:
                self._room_text = deque(maxlen=ROOM_TEXT_KEPT)
            self._room_text.append(directive)
        data = wire(directive)
        if data is None:
            return
        if self._batch is not None:
            self._batch.append(data)
            self._batch_count += 1
        else:
            self.send_wire([data], 1)

    def send_wire(self, chunks: list[bytes], count: int, now: bool = False) -> None:
        """Write ``count`` framed directives (``chunks``, already framed) at once; or hold them in the batch.

        ``now``: to the socket at once if Twisted holds nothing for it (see ``one_write``)."""
        if not count:
            return
        batch = self._batch
        if batch is not None:
            batch += chunks
            self._batch_count += count
            return
        self._write(chunks, count, now)

    def _write(self, chunks: list[bytes], count: int, now: bool) -> None:
        """One ``transport.write`` (or ``send_now``) of ``count`` framed directives."""
        if self.closing or self.transport is None:
            return
        factory = self.factory           # (not the hall property: this runs per connection per update)
        factory.hall.stats.messages_out[factory.name] += count
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        if not (now and send_now(self.transport, data)):
            self.transport.write(data)

    def send_all(self, directives) -> None:
        for directive in directives:
            self.send(directive)

    def _flush(self, now: bool = False) -> None:
        """Write what the current event has sent so far and stop holding output back."""
        chunks, count = self._batch, self._batch_count
        self._batch, self._batch_count = None, 0
        if count:
            self._write(chunks, count, now)

    def close(self) -> None:
        self._flush()                    # e.g. the error box that says why, before the close
        super().close()

    def set_state(self, state: int) -> None:
        self.state = state
        if state not in (ROOM, CREATOR):
            self._room_text = None
        self.send(render.set_state(state))

    def say(self, text: str) -> None:
        """A reply in the window the user is looking at: game room or lobby."""
        self.send(gm(text) if self.state in (ROOM, CREATOR, PLAYING_STATE) else lm(text))

    def error(self, title: str, text: str, answer: str | None = None) -> None:
        """An error where the user is looking, then the client state again.

        In the lobby it is a message box; at a table a game room line, since
        clients show unknown message boxes in the lobby pane.  The pending
        request is sent again only when ``answer`` (the code of the directive
        refused) is the answer to it: any other error leaves the client's
        dialog open, and a second request would open a second dialog.
        """
        if self.state in (ROOM, CREATOR, PLAYING_STATE):
            self.send(gm(f"{title}: {text}"))
        else:
            self.send(message_box("E", title, text))
        if self.state is None:
            self.send(d("SP", *VERSION, self.host_name))
            return
        self.send(render.set_state(self.state))
        if answer is not None and answer == self.pending_answer():
            self.send_request()

    # -- connection --------------------------------------------------------
    @one_write
    def idle_timed_out(self) -> None:
        """A lobby user silent for the hall's idle timeout (never one at a table): say why, close."""
        self.send(message_box("E", "Idle connection", "Nothing was heard from your client for too long."))
        super().idle_timed_out()

    def connectionMade(self) -> None:
        super().connectionMade()
        self.send(d("SP", *VERSION, self.host_name))

    def connection_gone(self) -> None:
        if self.user is not None:
            user, self.user = self.user, None
            self.hall.logout(user)

    @one_write
    def frame_error(self, error) -> None:
        self.error("Bad directive", str(error))       # counted and logged in summary by FramedProtocol

    @one_write(now=True)
    def frame_received(self, frame: bytes) -> None:
        try:
            code, params = parse(frame)
        except CodecError as exc:
            self.count_bad("malformed directive", f"{client_text(frame, 80)}: {exc}")
            code = bytes(frame).partition(b";")[0].strip().upper().decode("ascii", "replace")
            self.error("Bad directive", f"Malformed directive: {exc}", answer=code)
            return
        handler = getattr(self, "do_" + code, None)
        if handler is None:
            self.count_bad("unknown directive", code)
            self.error("Unknown directive", f"The host does not understand {code} directives.")
            return
        if self.user is None and code not in ("PL", "PI", "PR", "CL"):
            self.error("Not logged in", "Send PL with your nickname first.")
            return
        self._directive(code, handler, params)

    def _directive(self, code: str, handler, params: list) -> None:
        try:
            handler(params)
        except BadDirective as exc:
            self.log.debug("netacquire: bad {code} from {nick}: {error}", code=client_text(code), nick=self.nick,
                           error=client_text(exc))
            self.error("Bad directive", f"{code}: {exc}", answer=code)
        except (LobbyError, TableError, IllegalAction) as exc:
            self.error("Request refused", str(exc), answer=code)

    @property
    def nick(self) -> str:
        return self.user.nickname if self.user is not None else "?"

    # -- handshake and lobby ----------------------------------------------
    def do_PL(self, params) -> None:
        if self.user is not None:
            raise BadDirective(f"you are already logged in as {self.user.nickname}")
        # a registered name's key typed after it (alice+KEY) is stripped here: never logged or echoed
        nickname, key = split_key(params[0] if params else "")
        try:
            self.user = self.hall.login(nickname, "netacquire", self, getattr(self, "peer", ""), key=key)
        except RegisteredName as exc:
            self.log.info("netacquire: nickname {nick!r} refused: {reason}", nick=client_text(nickname),
                          reason=client_text(exc))
            self.send(message_box("E", "Duplicate user Nickname" if exc.duplicate else "Registered Nickname",
                                  f"{exc}."))
            self.close()
            return
        except NameTaken:
            self.log.info("netacquire: duplicate nickname {nick!r} refused", nick=client_text(nickname))
            self.send(message_box("E", "Duplicate user Nickname",
                                  f"The nickname {nickname} is already in use. Choose another one."))
            self.close()
            return
        except LobbyError as exc:
            self.log.info("netacquire: nickname {nick!r} refused: {reason}", nick=client_text(nickname),
                          reason=client_text(exc))
            self.send(message_box("E", "Invalid Nickname", f"{exc}."))
            self.close()
            return
        self.set_state(LOBBY)
        users = len(self.hall.lobby.users)
        games = len(self._acquire_tables())
        self.send_all([
            lm(f"Welcome to {self.host_name}, {self.user.nickname}!"),
            lm(f"# {users} user{'s' if users != 1 else ''} connected, "
               f"{games} game{'s' if games != 1 else ''} active. LU lists users, LG lists games."),
            lm("# Type /help for commands (computer players: /bot)."),
        ])
        table = self.hall.held_table(self.user.nickname)
        if table is not None and table.game.name == GAME:
            try:
                table.reconnect(self.user)       # seat_changed brings the whole game
            except TableError as exc:       # e.g. the seat is held for a player from elsewhere
                self.log.info("netacquire: reconnect of {nick} failed: {reason}", nick=self.nick,
                              reason=client_text(exc))
                self.send(lm(f"# Your seat was not given back: {exc}."))

    def do_PI(self, params) -> None:
        self.send(d("PR", *params))

    def do_PR(self, params) -> None:
        pass

    def do_CL(self, params) -> None:
        self.close()

    def do_LU(self, params) -> None:
        self.send_all(user_list(self.hall.who()))

    def do_LG(self, params) -> None:
        self.send_all(game_list(self._acquire_tables()))

    def _acquire_tables(self) -> list:
        return [t for _, t in sorted(self.hall.tables.items())
                if t.game.name == GAME and t.state in (WAITING, PLAYING)]

    def do_BM(self, params) -> None:
        if len(params) < 2:
            raise BadDirective("BM needs a channel and a message text")
        channel = params[0].strip().casefold()
        text = ",".join(params[1:])            # a client that forgot the quotes
        prefix = f"{self.user.nickname}: "
        if text.startswith(prefix):
            text = text[len(prefix):]
        text = text[:MAX_TEXT]
        if text.lstrip().startswith("/"):
            self.command(text.strip())
            return
        if channel == "lobby":
            self.hall.lobby.chat(self.user.nickname, text)
        elif channel == "game room":
            table = self.user.table
            if table is None:
                raise BadDirective("you are not in a game room")
            table.chat(self.user, text)
        else:
            raise BadDirective(f"unknown message channel {params[0]!r} (Lobby or Game Room)")

    def command(self, text: str) -> None:
        word, _, rest = text[1:].partition(" ")
        word, rest = word.casefold(), rest.strip()
        if word == "help":
            for line in HELP:
                self.say(line)
        elif word == "bot":
            table = self._own_waiting_table()
            seat = table.add_bot(rest.casefold() or None)
            self.say(f"{table.seats[seat].name} joined game #{table.id}.")
        elif self.hall.lobby.command(self.user.nickname, text):
            pass                    # the hall's lobby commands (/rating), answered to this user
        else:
            self.say(f"Unknown command /{word}. Type /help for the list.")

    def _own_waiting_table(self):
        table = self.user.table
        if table is None or self.user.watching:
            raise TableError("Create a game first (Start Game in the lobby)")
        if table.creator != self.user.nickname:
            raise TableError("Only the game's creator can add computer players")
        if table.state != WAITING:
            raise TableError("Computer players can be added only before the game starts")
        return table

    def do_SG(self, params) -> None:
        if not params:
            raise BadDirective("SG needs a player limit")
        limit = _int(params[0], "the player limit")
        if self.user.table is not None:
            raise TableError(f"You are already in game #{self.user.table.id}")
        game = self.hall.game(GAME)
        if not game.min_seats <= limit <= game.max_seats:
            self.error("Player limit exceeded",
                       f"A game takes {game.min_seats} to {game.max_seats} players, not {limit}.")
            return
        table = self.hall.create_table(GAME, max_seats=limit, creator=self.user)
        self.say(f"Game #{table.id} created for up to {limit} players. "
                 "Add computer players with /bot, then press Start Game.")

    def do_JG(self, params) -> None:
        if not params:
            raise BadDirective("JG needs a game number")
        number = _int(params[0], "the game number")
        flag = _int(params[1], "the player flag") if len(params) > 1 else -1
        if self.hall.awaits_table(number, lambda: self._again("JG", self.do_JG, params)):
            return                               # made on another process of the hall a moment ago?
        table = self.hall.table(number)
        if table.game.name != GAME:
            raise TableError(f"Game #{number} is not an Acquire game")
        if self.user.table is not None:
            raise TableError(f"You are already in game #{self.user.table.id}; leave it first")
        if flag == 0:
            table.watch(self.user)
        elif table.state == PLAYING:
            try:
                table.join(self.user)            # only takes back this user's own held seat
            except TableError as exc:
                # NetAcquire seats a late player as a spectator and says so (a message
                # clients know and show in the game room)
                held = table.held_seat(self.user.nickname) is not None
                table.watch(self.user)
                self.send(render.SPECTATING_FORCED)
                if held:                         # a held seat not given back: say why
                    self.say(str(exc))
        elif table.state == WAITING and len(table.seats) >= table.max_seats:
            table.watch(self.user)               # a full game: NetAcquire lets the user kibitz
            self.send(render.PLAYER_LIMIT)
        else:
            table.join(self.user)

    @one_write(now=True)
    def _again(self, code: str, handler, params: list) -> None:
        """A directive held while the hall looked for the table it names, done now."""
        if self.user is not None:
            self._directive(code, handler, params)

    def do_LV(self, params) -> None:
        table = self.user.table
        if table is not None:
            table.leave(self.user)
        self.view.clear()
        self.set_state(LOBBY)

    def do_PG(self, params) -> None:
        table = self.user.table
        if table is None or self.user.watching:
            raise TableError("You are not in a game room")
        table.start(self.user)

    def do_GS(self, params) -> None:
        table = self.user.table
        if table is None:
            self.say("You are not in a game.")
            return
        lines = [f"Game #{table.id}: {len(table.seats)} of {table.max_seats} players, "
                 f"{len(table.spectators)} watching, {table.state}."]
        game = table.engine
        for seat, occupant in enumerate(table.seats):
            who = {"bot": f" (computer: {occupant.bot})", "human": "" if occupant.user else " (disconnected)"}
            line = f"  {seat + 1}. {occupant.name}{who.get(occupant.kind, '')}"
            if game is not None:
                line += f": ${game.cash[seat]} cash, net worth ${game.net_worth(seat)}"
            lines.append(line)
        if game is not None and not game.is_over():
            lines.append(f"Tiles left in the bag: {len(game.bag)}.")
            waiting = render.waiting_message(game)
            if waiting is not None:
                lines.append(waiting.params[0])
        for line in lines:
            self.say(line)

    # -- game actions --------------------------------------------------------
    def _my_decision(self, kinds: tuple[str, ...]):
        """(table, seat, kind) if a decision of one of ``kinds`` is ours, else None (user told why)."""
        table = self.user.table
        seat = table.seat_of(self.user) if table is not None else None
        if table is None or table.state != PLAYING or seat is None:
            self.say("You are not playing a game.")
            return None
        engine = table.engine
        # the engine's phase is the pending decision's kind: no need to work out its options
        # (a purchase's offers) to check an answer the engine validates anyway
        if engine.pending_seat() != seat:
            self.say("It is not your turn.")
            return None
        if engine.phase not in kinds:
            decision = engine.pending()
            # A stale answer (e.g. to a request the turn timer already answered): the
            # current request has been sent already; sending it again could make a
            # client answer twice, and every extra answer would bring one more request.
            self.say(f"That is not what the game is waiting for: {render.waiting_words(decision)}.")
            return None
        return table, seat, engine.phase

    def _act(self, table, action: dict, slot: int | None = None) -> None:
        try:
            table.act(self.user, action)
        except (IllegalAction, TableError) as exc:
            self._refuse(str(exc), slot)

    def _refuse(self, reason: str, slot: int | None = None) -> None:
        self.say(f"Not accepted: {reason}.")
        self._show_slot(slot)
        self.send_request()

    def _show_slot(self, slot: int | None) -> None:
        """After a refused PT: the client hid the rack button it clicked; show that slot again."""
        table = self.user.table
        if slot is None or table is None or table.state != PLAYING or table.engine is None:
            return
        seat = table.seat_of(self.user)
        if seat is not None:
            self.send_all(self.view.show_slot(table.engine, seat, slot))

    def do_PT(self, params) -> None:
        try:
            slot, bad = _int(params[0] if params else "", "the rack slot"), None
        except BadDirective as exc:
            slot, bad = None, exc
        mine = self._my_decision(("play_tile",))
        if mine is None:                 # e.g. a click after the turn timer played for this user
            self._show_slot(slot)
            return
        table, seat, _ = mine
        if bad is not None:
            return self._refuse(str(bad))
        rack = table.engine.racks[seat]
        if not 1 <= slot <= len(rack):
            return self._refuse(f"there is no rack slot {slot}")
        if rack[slot - 1] is None:
            return self._refuse(f"rack slot {slot} is empty", slot)
        self._act(table, {"play_tile": rack[slot - 1]}, slot)

    def _stale_answer(self, code: str) -> bool:
        """True (and the user told why) if a ``code`` answer belongs to a dialog the turn
        timer already answered.  The protocol has no directive that closes a client's
        dialog, so such a dialog stays open; answered later, it would be taken for the
        answer to the next request of its kind, with the numbers it showed then (a
        purchase dialog offering shares that were gone).  Dialogs are answered in the
        order they were opened, so the first answers of that kind are the stale ones."""
        if self._stale.get(code):
            self._stale[code] -= 1
            self.say(f"Not accepted: that answer was to the earlier {DIALOGS[code]} request, which the "
                     "turn timer answered for you; it is not taken as the answer to a later request.")
            return True
        if self._dialog == code:
            self._dialog = None          # the client closes a dialog when it sends its answer
        return False

    def do_CS(self, params) -> None:
        if self._stale_answer("CS"):
            return
        mine = self._my_decision(tuple(render.SELECTION_TYPES))
        if mine is None:
            return
        table, _, _ = mine
        decision = table.engine.pending()
        try:
            chain = render.chain_from_code(params[0] if params else "")
        except ValueError:
            return self._refuse(f"{(params or [''])[0]!r} is not a hotel chain")
        if len(params) > 1 and params[1].strip() != str(render.SELECTION_TYPES[decision.kind]):
            self.log.debug("netacquire: CS selection type {got} for {kind}", got=params[1], kind=decision.kind)
        if chain not in decision.options["chains"]:
            choices = render.and_list(decision.options["chains"])
            return self._refuse(f"{chain} cannot be chosen now (choose {choices})")
        self._act(table, {decision.kind: chain})

    def do_MD(self, params) -> None:
        if self._stale_answer("MD"):
            return
        mine = self._my_decision(("dispose",))
        if mine is None:
            return
        table, _, _ = mine
        if len(params) < 2:
            return self._refuse("MD needs the number of shares to sell and to trade")
        try:
            sell = _int(params[0], "the number of shares sold")
            trade = _int(params[1], "the number of shares traded")
        except BadDirective as exc:
            return self._refuse(str(exc))
        self._act(table, {"dispose": {"sell": sell, "trade": trade}})

    def do_P(self, params) -> None:
        if self._stale_answer("P"):
            return
        mine = self._my_decision(("purchase",))
        if mine is None:
            return
        table, _, _ = mine
        if len(params) < len(CHAINS):
            return self._refuse("P needs seven share counts and the end-game flag")
        try:
            try:                         # int() skips the spaces _int strips: the same numbers
                counts = list(map(int, params[:len(CHAINS)]))
            except ValueError:           # _int says which and why
                counts = [_int(p, "a share count") for p in params[:len(CHAINS)]]
            end = _int(params[len(CHAINS)], "the end-game flag") if len(params) > len(CHAINS) else 0
        except BadDirective as exc:
            return self._refuse(str(exc))
        if any(n < 0 for n in counts):
            return self._refuse("share counts cannot be negative")
        shares = {chain: n for chain, n in zip(CHAINS, counts) if n}
        self._act(table, {"purchase": shares, "end_game": end != 0})

    def pending_answer(self) -> str | None:
        """The directive code that answers this user's pending decision (PT, CS, MD or P), or None."""
        table = self.user.table if self.user is not None else None
        if table is None or table.state != PLAYING or table.engine is None:
            return None
        decision = table.engine.pending()
        if decision is None or decision.seat != table.seat_of(self.user):
            return None
        return ANSWER_CODES[decision.kind]

    def send_request(self) -> None:
        """(Re-)send the request for this user's pending decision, if there is one."""
        if self.user is None:
            return
        table = self.user.table
        if table is None or table.state != PLAYING or table.engine is None:
            return
        seat = table.seat_of(self.user)
        if seat is None:
            return
        decision = table.engine.pending()
        if decision is None or decision.seat != seat:
            return
        self._request(table, seat, decision)

    def _request(self, table, seat: int, decision, snap=None) -> None:
        """The request for ``decision`` (pending, ``seat``'s, this user's); ``snap``: the
        table's current snapshot if the caller has it."""
        if decision.kind == "purchase":
            if snap is None:
                snap = render.snapshot(table, encoder=wire)
            self.send_wire(*self.view.refresh_wire(snap, MARKET))
        chunks = render.request_wire(table.engine, seat, decision)
        self.send_wire(chunks, len(chunks))
        code = ANSWER_CODES[decision.kind]
        if code in DIALOGS:
            self._dialog = code

    # -- IUserSink -------------------------------------------------------------
    def lobby_chat(self, sender: str, text: str) -> None:
        # The lobby calls every user's sink in a row with the same line: encode it once
        # (only the latest line is kept).  One directive is one write: no one_write needed.
        if self.user is None:
            return
        key = (sender, text)
        if LAST_CHAT[0] != key:
            text = str(text)[:MAX_TEXT]
            LAST_CHAT[:] = [key, wire(lm(f"*** {text}" if sender == "*" else f"{sender}: {text}"))]
        data = LAST_CHAT[1]
        if data is not None:
            self.send_wire([data], 1)

    def lobby_changed(self, event: str, detail: dict) -> None:
        # The same notice goes to every lobby user (thousands at a big hall): its lines are
        # worked out and encoded once (LobbyNotices), here they are only written.  The
        # notices are shown in the lobby window only: a client in a game is not told.
        notices = self.factory.lobby_notices
        chunks, count, names = notices.lines(event, detail)
        if self.user is None or self.state != LOBBY or not count:
            return
        if self.user.nickname in names:          # a user is not told of itself
            chunks, count = notices.lines_without(event, detail, self.user.nickname)
        self.send_wire(chunks, count)

    @one_write
    def disconnect(self, reason: str) -> None:
        self.send(message_box("E", "Disconnected", reason))
        self.close()

    @one_write(now=True)
    def table_event(self, table, event: str, detail: dict) -> None:
        handler = getattr(self, "on_" + event, None)
        if handler is not None:
            handler(table, detail)

    def _is_me(self, detail: dict) -> bool:
        return self.user is not None and str(detail.get("nickname", "")).casefold() == self.user.key

    def _seat(self, table) -> int | None:
        return table.seat_of(self.user) if self.user is not None else None

    def on_joined(self, table, detail) -> None:
        if self._is_me(detail) and not detail.get("bot"):
            self.view.clear()
            if self.state not in (None, LOBBY):
                # a finished game's window is still open: clients forget its sheet and board only on SS;3
                self.send(render.set_state(LOBBY))
            if detail.get("seat") is None:
                self.set_state(ROOM)
                if table.state == PLAYING:
                    self.enter_game(table)
                    return
            else:
                self.set_state(CREATOR if table.creator == self.user.nickname else ROOM)
        else:
            what = "is watching" if detail.get("seat") is None else "joined the game"
            self.send(gm(f"{detail.get('nickname')} {what}."))
        if table.state == WAITING:
            self._sync_names(table)

    def _sync_names(self, table) -> None:
        """The waiting room's names on the score sheet, rows compacted in seat order,
        changed in place (``SV`` captions): a row no longer used gets an empty caption.

        No ``SS;3`` here: clients clear their game room window on it (chat
        included).  They count players by the name captions they were ever
        sent, an empty one included, until ``SS;3``; so a sheet left with a
        blank row is reset when the game starts (``on_started``).
        """
        self.send_all(self.view.sync_captions(render.name_captions(table.players())))

    def on_left(self, table, detail) -> None:
        if self._is_me(detail):
            if detail.get("replaced_by_bot"):
                self.send(gm("A computer player has taken over your seat."))
                self.view.clear()
                self.set_state(LOBBY)
            return
        if table.state == WAITING:
            self._sync_names(table)
        if detail.get("seat") is None:
            self.send(gm(f"{detail.get('nickname')} stopped watching."))
        elif detail.get("held"):
            self.send(gm(f"{detail.get('nickname')} lost the connection; the seat is held for a while."))
        else:
            self.send(gm(f"{detail.get('nickname')} left the game."))

    def on_creator(self, table, detail) -> None:
        """The creator left a waiting game: its Start Game button passes on."""
        if self._is_me(detail):
            self.set_state(CREATOR)
        self.send(gm(f"{detail.get('nickname')} can now start the game."))

    def on_seat_changed(self, table, detail) -> None:
        if self._is_me(detail) and detail.get("kind") == "human" and self._seat(table) == detail.get("seat"):
            self.view.clear()
            self.enter_game(table)
        elif detail.get("kind") == "bot":
            self.send(gm(f"{detail.get('nickname')} is now played by the computer ({detail.get('bot')})."))
        else:
            self.send(gm(f"{detail.get('nickname')} is back."))

    def on_started(self, table, detail) -> None:
        if self.view.drops_names(render.name_captions(table.players())):
            # a blank row left by a player who left the waiting room: clients would count
            # it as a player for the whole game, and forget it only on SS;3, which also
            # clears their game room window: back into the room, its text sent again
            text, room = list(self._room_text or ()), self.state
            self.send(render.set_state(LOBBY))
            if room in (ROOM, CREATOR):
                self.set_state(room)
                self.send_all(text)
        self.view.clear()
        names = table.players()
        lines = []
        for event in getattr(table.engine, "initial_events", ()):
            if event.get("type") == "position_tile":
                lines += render.event_directives(event, names, self._seat(table))
        self.send_all(lines)
        self.enter_game(table)

    def enter_game(self, table) -> None:
        """SS 6 and the whole game as this user may see it; then whose turn it is."""
        self.set_state(PLAYING_STATE)
        game = table.engine
        seat = self._seat(table)
        snap = render.snapshot(table, encoder=wire)
        self.send_wire(*self.view.sync_shared(snap, seat))
        if not game.is_over():
            self.send(gm(f"*** {game.players[game.current]}'s turn."))
        self._announce(snap, seat)

    def _announce(self, snap, seat) -> None:
        """Whose decision it is, to everyone (the request itself comes with 'decision')."""
        decision = snap.pending()
        if decision is None:
            return
        self.send_wire(*snap.announce(decision.seat == seat))

    def on_game(self, table, detail) -> None:
        # The table-wide part (game messages, board, score sheet, rows, whose turn)
        # is computed and encoded once per update for all the table's clients; here its
        # chunks go straight into this connection's batch (one_write joins and sends it).
        batch = self._batch
        if batch is None:                # not inside one_write (table_event is): hold output here
            self._batch, self._batch_count = [], 0
            try:
                return self.on_game(table, detail)
            finally:
                self._flush(True)
        held = len(batch)
        snap = render.snapshot(table, detail, encoder=wire)
        seat = self._seat(table)
        batch += snap.events(seat)[0]
        self.view.sync_into(batch, snap, seat)
        decision = snap.pending()
        if decision is not None:                 # as _announce
            batch += snap.announce(decision.seat == seat)[0]
        self._batch_count += len(batch) - held
        if decision is not None and decision.seat == seat and self._asked_next(table, seat):
            # The table asks this seat right after this update (see _asked_next): the
            # request goes in the same write, one send instead of two; on_decision skips it.
            self._request(table, seat, decision, snap)
            self._asked = snap

    def _asked_next(self, table, seat: int) -> bool:
        """Whether the table's "decision" event for ``seat`` follows this "game" event at once.

        ``Table._after_apply`` emits "game", then ``_advance`` asks the pending seat
        (``_ask``: "decision" to its user) unless the table is paused or stalled or the
        seat is a bot's or empty; "game" comes from nowhere else."""
        occupant = table.seats[seat]
        return (table.state == PLAYING and not table.paused and not table.stalled
                and occupant.kind == "human" and occupant.user is self.user)

    def on_decision(self, table, detail) -> None:
        if detail.get("seat") == self._seat(table):
            asked, self._asked = self._asked, None
            if asked is not None and asked is table.cache.get(render.SNAPSHOT_KEY) and asked.seq == table.seq:
                return                   # sent with the update this decision follows (on_game)
            self.send_request()

    def on_timeout(self, table, detail) -> None:
        self.send(gm("Time is up: the host made the default move for you."))
        if self._dialog is not None:     # still open on the client: its answer will be stale
            self._stale[self._dialog] = self._stale.get(self._dialog, 0) + 1
            self._dialog = None

    def on_chat(self, table, detail) -> None:
        self.send(gm(f"{detail.get('nickname')}: {str(detail.get('text', ''))[:MAX_TEXT]}"))

    def on_finished(self, table, detail) -> None:
        result = detail["result"]
        self.send_wire(*self.view.sync_shared(render.snapshot(table, encoder=wire), None))
        self.send_all(render.winner_messages(result, table.players()))
        self.send(render.status_bar("Game over"))
        self.send(render.GAME_ENDED)

    def on_aborted(self, table, detail) -> None:
        self.send(gm(f"The game was stopped: {detail.get('reason', '')}."))
        self.send(message_box("I", "Game aborted", f"Game #{table.id} was stopped: {detail.get('reason', '')}."))
        self.view.clear()
        self.set_state(LOBBY)


MARKET = render.market_indexes()
#: the directive that answers each kind of decision
ANSWER_CODES = {"play_tile": "PT", "found_chain": "CS", "choose_survivor": "CS", "choose_defunct": "CS",
                "dispose": "MD", "purchase": "P"}
#: the answers that come from a dialog window (GC, GD, GP), and what the request was
DIALOGS = {"CS": "hotel chain choice", "MD": "share disposition", "P": "purchase"}


def build_factory(hall) -> FrontEndFactory:
    """The ``netacquire`` front end's factory, bound to ``hall``."""
    farewell = NetAcquireFramer().encode(encode(message_box(
        "E", "Too many connections", "Too many connections from your address. Close one and try again.")))
    factory = FrontEndFactory(hall, "netacquire", NetAcquireProtocol, farewell=farewell)
    factory.lobby_notices = LobbyNotices(hall)
    return factory
