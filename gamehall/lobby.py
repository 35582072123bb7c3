"""The shared lobby: one namespace of users and one chat across every wire protocol."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from twisted.logger import Logger

from gamehall.interfaces import IUserSink

# Characters some wire protocol of the hall cannot carry inside a name
# (NetAcquire clients split on , ; : and quotes; nobody can show controls).
# XML protocols escape the rest, so "Bits & Bytes" is fine.
_BAD_NAME = re.compile(r'[,;:"\x00-\x1f\x7f]')
MAX_NAME = 32


class LobbyError(ValueError):
    """A lobby request refused; ``str(exc)`` is the reason for the user."""


class NameTaken(LobbyError):
    pass


def check_nickname(nickname: str) -> str:
    """Return the nickname stripped, or raise LobbyError saying why it is refused."""
    name = nickname.strip()
    if not name:
        raise LobbyError("Nickname is empty")
    if len(name) > MAX_NAME:
        raise LobbyError(f"Nickname is longer than {MAX_NAME} characters")
    if _BAD_NAME.search(name):
        raise LobbyError('Nickname may not contain , ; : " or control characters')
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
        verb = "watching" if self.watching else "playing in"
        return f"{verb} game #{self.table.id}"


@dataclass
class Lobby:
    """Users keyed case-insensitively; chat and change notices fan out to every sink."""

    users: dict[str, User] = field(default_factory=dict)
    log = Logger()

    def find(self, nickname: str) -> User | None:
        return self.users.get(nickname.strip().casefold())

    def add(self, user: User) -> User:
        user.nickname = check_nickname(user.nickname)
        if user.key in self.users:
            raise NameTaken(f"Duplicate user Nickname {user.nickname}")
        self.users[user.key] = user
        self.notify("user_joined", {"nickname": user.nickname, "frontend": user.frontend})
        return user

    def remove(self, user: User) -> None:
        if self.users.get(user.key) is user:
            del self.users[user.key]
            self.notify("user_left", {"nickname": user.nickname, "frontend": user.frontend})

    def chat(self, sender: str, text: str) -> int:
        """Send a chat line to every user in every protocol; return how many got it."""
        return sum(self._call(user, "lobby_chat", sender, text) for user in list(self.users.values()))

    def notify(self, event: str, detail: dict) -> None:
        for user in list(self.users.values()):
            self._call(user, "lobby_changed", event, detail)

    def _call(self, user: User, method: str, *args) -> bool:
        # One misbehaving front end must not stop the fan-out to everyone else.
        try:
            getattr(user.sink, method)(*args)
            return True
        except Exception:
            self.log.failure("sink {method} failed for {nick}", method=method, nick=user.nickname)
            return False
