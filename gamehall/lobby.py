"""The shared lobby: one namespace of users and one chat across every wire protocol."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from twisted.logger import Logger

from gamehall.interfaces import IUserSink
from gamehall.text import clean_text, is_blank, is_hidden, is_visible, lookalike_keys

# Characters some wire protocol of the hall cannot carry inside a name
# (NetAcquire clients split on , ; : and quotes; nobody can show controls).
# XML protocols escape the rest, so "Bits & Bytes" is fine.  "*" is the name
# the hall's own announcements are shown under.
_BAD_NAME = re.compile(r'[,;:"*]')
MAX_NAME = 32
NOTICE_WINDOW = 1.0      # seconds: user and table notices after the first are batched this long


class LobbyError(ValueError):
    """A lobby request refused; ``str(exc)`` is the reason for the user."""


class NameTaken(LobbyError):
    pass


def normal_name(nickname: str) -> str:
    """A nickname as the hall keeps it: stripped, NFKC (full-width "ａ" is "a")."""
    return unicodedata.normalize("NFKC", nickname).strip()


def check_nickname(nickname: str) -> str:
    """Return the nickname stripped and NFKC-normalised, or raise LobbyError saying why
    it is refused."""
    name = normal_name(nickname)
    if not name:
        raise LobbyError("Nickname is empty")
    if len(name) > MAX_NAME:
        raise LobbyError(f"Nickname is longer than {MAX_NAME} characters")
    if _BAD_NAME.search(name):
        raise LobbyError('Nickname may not contain , ; : " or *')
    for char in name:
        if is_hidden(char) or is_blank(char):   # invisible or misleading in a name: refused outright
            raise LobbyError(f"Nickname may not contain invisible, control or direction characters "
                             f"(U+{ord(char):04X})")
    if not any(is_visible(char) for char in name):
        raise LobbyError("Nickname must have a visible character (a letter, digit or symbol)")
    return name


@dataclass
class _Window:
    """One kind of notice's batching window (see ``Lobby``)."""

    start: float | None = None      # when the current window opened
    call: object | None = None      # the pending flush at its end


@dataclass(eq=False)
class User:
    """A connected user, whatever protocol it speaks."""

    nickname: str
    frontend: str
    sink: IUserSink
    address: str = ""
    connected_at: float = 0.0
    table: object | None = None        # the Table the user sits or watches at
    watching: bool = False
    kind: str = "human"
    registered: bool = False           # logged in as a registered name (password or key)
    #: None for a user connected to this process; with a cluster, the id of the process a
    #: user of another process is connected to (its sink shows nothing: that process tells it)
    process: str | None = None

    @property
    def key(self) -> str:
        return self.nickname.casefold()

    def where(self) -> str:
        """A short description for user lists."""
        if self.table is None:
            return "in lobby"
        if self.watching:
            return f"watching game #{self.table.id}"
        if getattr(self.table, "state", None) == "waiting":
            return f"waiting at game #{self.table.id}"
        return f"playing in game #{self.table.id}"


@dataclass
class Lobby:
    """Users keyed case-insensitively; chat and change notices fan out to every sink.

    With a ``clock``, users coming and going and tables being added, changed or
    removed are not announced one by one to everyone (which costs N x N calls
    when N users log in, or when they make N/4 games): the first such change
    after a quiet ``window`` goes out at once (``user_joined``, ``table_added``...);
    later ones are gathered and go out when the window ends, as one
    ``users_changed`` or ``tables_changed`` notice per user carrying each
    user's or table's latest state (see ``IUserSink.lobby_changed``).  Users
    and tables have a window each.
    """

    users: dict[str, User] = field(default_factory=dict)
    clock: object | None = None
    window: float = NOTICE_WINDOW
    #: sinks that hear the lobby's chat and changes without being users in it (the web front
    #: end's visitors without a nickname: they see, they do not speak or count)
    observers: set = field(default_factory=set)
    #: lobby commands: a chat line ``/WORD ARGUMENT`` from a user runs ``commands[word](user,
    #: argument)`` instead of going to everyone (the hall's ``/rating``); one place for every
    #: protocol whose lobby has chat
    commands: dict = field(default_factory=dict)
    #: None, or (with a cluster, gamehall.cluster.presence) a callable(sender, text) that takes
    #: each chat line said here to the hall's other processes
    relay: object | None = None
    log = Logger()

    def __post_init__(self) -> None:
        self._lookalikes: dict[str, User] = {}         # lookalike key -> logged-in user
        lookalike_keys("")                             # the confusables table: now, not at a login
        # gathered notices: joined by nickname key (a leave within the window cancels its join
        # in O(1): a crowd dropping cost k x k before), and left, each in order
        self._joined: dict[str, dict] = {}
        self._left: list[dict] = []
        self._users_window = _Window()
        # gathered table changes: table id -> (the first event of the window, the table), in
        # order; a table's summary is taken when they go out (its latest state, made once)
        self._tables: dict[int, tuple[str, object]] = {}
        self._tables_window = _Window()

    def find(self, nickname: str) -> User | None:
        return self.users.get(normal_name(nickname).casefold())

    def add(self, user: User) -> User:
        """Log ``user`` in; refused: a bad nickname, one taken (in any case), or one that
        looks like a logged-in user's (``gamehall.text.lookalike_keys``)."""
        user.nickname = check_nickname(user.nickname)
        if user.key in self.users:
            raise NameTaken(f"Duplicate user Nickname {user.nickname}")
        keys = lookalike_keys(user.nickname)
        for key in keys:
            other = self._lookalikes.get(key)
            if other is not None:
                raise NameTaken(f"Nickname {user.nickname} looks too much like {other.nickname}, "
                                f"who is logged in")
        self.users[user.key] = user
        for key in keys:
            self._lookalikes[key] = user
        self._user_notice("joined", user)
        return user

    def remove(self, user: User) -> None:
        if self.users.get(user.key) is user:
            del self.users[user.key]
            for key in lookalike_keys(user.nickname):
                if self._lookalikes.get(key) is user:
                    del self._lookalikes[key]
            self._user_notice("left", user)

    def command(self, sender: str, text: str) -> bool:
        """Run ``text`` as a lobby command of user ``sender`` if it is one (``/rating Ann``);
        True when it was."""
        line = text.strip()
        if not line.startswith("/"):
            return False
        word, _, argument = line[1:].partition(" ")
        handler = self.commands.get(word.casefold())
        user = self.find(sender) if handler is not None else None
        if user is None:
            return False
        handler(user, argument.strip())
        return True

    def tell(self, user: User, lines: list[str]) -> None:
        """Lines for one user only, as lobby chat from the hall ("*"): a command's answer."""
        if self.users.get(user.key) is user:
            for line in lines:
                self._call(user, "lobby_chat", "*", clean_text(line))

    def chat(self, sender: str, text: str) -> int:
        """Send a chat line to every user in every protocol; return how many got it (on this
        process: the ``relay``, if any, takes it to the others).
        A lobby command (``commands``) is run instead, and told to nobody else (0).

        The line is cleaned for every receiver first (``gamehall.text.clean_text``)."""
        if self.command(sender, text):
            return 0
        sender, text = clean_text(sender), clean_text(text)
        told = self._chat_cleaned(sender, text)
        if self.relay is not None:
            self.relay(sender, text)
        return told

    def chat_here(self, sender: str, text: str) -> int:
        """``chat`` for this process's users and observers only (a line from another process)."""
        return self._chat_cleaned(clean_text(sender), clean_text(text))

    def _chat_cleaned(self, sender: str, text: str) -> int:
        told = sum(self._call(user, "lobby_chat", sender, text)
                   for user in list(self.users.values()) if user.process is None)
        self._tell_observers("lobby_chat", sender, text)
        return told

    def notify(self, event: str, detail: dict) -> None:
        for user in list(self.users.values()):
            if user.process is None:            # other processes' users hear it from their own
                self._call(user, "lobby_changed", event, detail)
        self._tell_observers("lobby_changed", event, detail)

    def _tell_observers(self, method: str, *args) -> None:
        for sink in list(self.observers):
            try:
                getattr(sink, method)(*args)
            except Exception:
                self.log.failure("observer {method} failed", method=method)

    # -- user and table notices, batched -------------------------------------
    def _at_once(self, window: _Window, flush) -> bool:
        """True: tell this change now (quiet for a window until now: a window opens).
        False: gather it; ``flush`` sends what is gathered when the window ends."""
        if self.clock is None or not self.window:
            return True
        now = self.clock.seconds()
        if window.call is None and (window.start is None or now - window.start >= self.window):
            window.start = now
            return True
        if window.call is None:
            window.call = self.clock.callLater(max(0.0, window.start + self.window - now), flush)
        return False

    def _window_over(self, window: _Window, sending: bool) -> None:
        if window.call is not None and window.call.active():
            window.call.cancel()
        window.call = None
        if sending and self.clock is not None:
            window.start = self.clock.seconds()         # the next change waits for this window

    def _user_notice(self, kind: str, user: User) -> None:
        detail = {"nickname": user.nickname, "frontend": user.frontend}
        if self._at_once(self._users_window, self.flush_users):
            self.notify("user_" + kind, detail)
            return
        if kind == "left":
            if self._joined.pop(user.key, None) is None:   # came and went within the window:
                self._left.append(detail)                   # nothing to tell
        else:
            self._joined[user.key] = detail

    def table_notice(self, event: str, table) -> None:
        """Tell every user that ``table`` (its ``id`` and ``summary()``) was added, changed or
        removed (``event``: 'table_added', 'table_changed', 'table_removed'), at once or
        gathered into the window's ``tables_changed``."""
        if self._at_once(self._tables_window, self.flush_tables):
            self.notify(event, {"id": table.id} if event == "table_removed" else table.summary())
            return
        if event == "table_removed":
            # also a table made and gone within the window: a user who came in between
            # saw it in the lobby's snapshot (the web's, NetAcquire's LG)
            self._tables[table.id] = (event, table)
        elif table.id not in self._tables:                  # "added" stays added; the summary
            self._tables[table.id] = (event, table)         # is taken when the window ends

    def flush(self) -> None:
        """Send every gathered notice now: users, then tables."""
        self.flush_users()
        self.flush_tables()

    def flush_users(self) -> None:
        """Send the gathered user notices now (one ``users_changed`` per user)."""
        joined, left, self._joined, self._left = self._joined, self._left, {}, []
        self._window_over(self._users_window, bool(joined or left))
        if not joined and not left:
            return
        detail = {"joined": list(joined.values()), "left": left}
        self.notify("users_changed", detail)

    def flush_tables(self) -> None:
        """Send the gathered table changes now (one ``tables_changed`` per user)."""
        changes, self._tables = self._tables, {}
        self._window_over(self._tables_window, bool(changes))
        if not changes:
            return
        detail = {"added": [], "changed": [], "removed": []}
        for event, table in changes.values():
            if event == "table_removed":
                detail["removed"].append(table.id)
            else:
                detail["added" if event == "table_added" else "changed"].append(table.summary())
        self.notify("tables_changed", detail)

    def _call(self, user: User, method: str, *args) -> bool:
        # One misbehaving front end must not stop the fan-out to everyone else.
        try:
            getattr(user.sink, method)(*args)
            return True
        except Exception:
            self.log.failure("sink {method} failed for {nick}", method=method, nick=user.nickname)
            return False
