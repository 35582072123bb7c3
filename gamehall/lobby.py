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
NOTICE_WINDOW = 1.0      # seconds: user join/leave notices after the first are batched this long


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

    With a ``clock``, users coming and going are not announced one by one to
    everyone (which costs N x N calls when N users log in): the first such
    change after a quiet ``window`` goes out at once as ``user_joined`` /
    ``user_left``; later ones are gathered and go out when the window ends,
    as one ``users_changed`` notice per user (see ``IUserSink.lobby_changed``).
    """

    users: dict[str, User] = field(default_factory=dict)
    clock: object | None = None
    window: float = NOTICE_WINDOW
    #: sinks that hear the lobby's chat and changes without being users in it (the web front
    #: end's visitors without a nickname: they see, they do not speak or count)
    observers: set = field(default_factory=set)
    log = Logger()

    def __post_init__(self) -> None:
        self._lookalikes: dict[str, User] = {}         # lookalike key -> logged-in user
        lookalike_keys("")                             # the confusables table: now, not at a login
        # gathered notices: joined by nickname key (a leave within the window cancels its join
        # in O(1): a crowd dropping cost k x k before), and left, each in order
        self._joined: dict[str, dict] = {}
        self._left: list[dict] = []
        self._window_start: float | None = None
        self._flush_call = None

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

    def chat(self, sender: str, text: str) -> int:
        """Send a chat line to every user in every protocol; return how many got it.

        The line is cleaned for every receiver first (``gamehall.text.clean_text``)."""
        sender, text = clean_text(sender), clean_text(text)
        told = sum(self._call(user, "lobby_chat", sender, text) for user in list(self.users.values()))
        self._tell_observers("lobby_chat", sender, text)
        return told

    def notify(self, event: str, detail: dict) -> None:
        for user in list(self.users.values()):
            self._call(user, "lobby_changed", event, detail)
        self._tell_observers("lobby_changed", event, detail)

    def _tell_observers(self, method: str, *args) -> None:
        for sink in list(self.observers):
            try:
                getattr(sink, method)(*args)
            except Exception:
                self.log.failure("observer {method} failed", method=method)

    # -- user notices, batched ----------------------------------------------
    def _user_notice(self, kind: str, user: User) -> None:
        detail = {"nickname": user.nickname, "frontend": user.frontend}
        if self.clock is None or not self.window:
            self.notify("user_" + kind, detail)
            return
        now = self.clock.seconds()
        if self._flush_call is None and (self._window_start is None or now - self._window_start >= self.window):
            self._window_start = now          # quiet until now: this one at once, a window opens
            self.notify("user_" + kind, detail)
            return
        if kind == "left":
            if self._joined.pop(user.key, None) is None:   # came and went within the window:
                self._left.append(detail)                   # nothing to tell
        else:
            self._joined[user.key] = detail
        if self._flush_call is None:
            delay = max(0.0, self._window_start + self.window - now)
            self._flush_call = self.clock.callLater(delay, self.flush)

    def flush(self) -> None:
        """Send the gathered user notices now (one ``users_changed`` per user)."""
        if self._flush_call is not None and self._flush_call.active():
            self._flush_call.cancel()
        self._flush_call = None
        joined, left, self._joined, self._left = self._joined, self._left, {}, []
        if self.clock is not None:
            self._window_start = self.clock.seconds()     # the next change waits for this window
        if not joined and not left:
            return
        detail = {"joined": list(joined.values()), "left": left}
        self.notify("users_changed", detail)

    def _call(self, user: User, method: str, *args) -> bool:
        # One misbehaving front end must not stop the fan-out to everyone else.
        try:
            getattr(user.sink, method)(*args)
            return True
        except Exception:
            self.log.failure("sink {method} failed for {nick}", method=method, nick=user.nickname)
            return False
