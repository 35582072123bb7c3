"""Test helpers shared by hall and front-end tests."""
from __future__ import annotations

import sys
from pathlib import Path

from twisted.internet.task import Clock
from zope.interface import implementer

from gamehall.hall import Hall
from gamehall.interfaces import IUserSink

EXAMPLE = Path(__file__).parent / "plugin_example"


def install_example_plugin() -> None:
    """Put the README's example game package on sys.path and in twisted.plugins' path."""
    import twisted.plugins
    if str(EXAMPLE) not in sys.path:
        sys.path.insert(0, str(EXAMPLE))
    plugins = str(EXAMPLE / "twisted" / "plugins")
    if plugins not in twisted.plugins.__path__:
        twisted.plugins.__path__.append(plugins)


@implementer(IUserSink)
class RecordingSink:
    """Records what the hall tells a user."""

    def __init__(self) -> None:
        self.chat: list[tuple[str, str]] = []
        self.lobby: list[tuple[str, dict]] = []
        self.events: list[tuple[int, str, dict]] = []
        self.disconnected: str | None = None

    def lobby_chat(self, sender, text):
        self.chat.append((sender, text))

    def lobby_changed(self, event, detail):
        self.lobby.append((event, detail))

    def table_event(self, table, event, detail):
        self.events.append((table.id, event, detail))

    def disconnect(self, reason):
        self.disconnected = reason

    def names(self) -> list[str]:
        return [event for _, event, _ in self.events]


def make_hall(games=None, store=None, **kw) -> Hall:
    from gamehall.store import MemoryStore
    install_example_plugin()
    if games is None:
        from twisted.plugins.gamehall_nim_plugin import nim
        games = {"nim": nim}
    store = store or MemoryStore()
    store.open()
    kw.setdefault("seat_hold", 30.0)
    kw.setdefault("bot_delay", 0.5)
    return Hall(Clock(), store, games, **kw)
