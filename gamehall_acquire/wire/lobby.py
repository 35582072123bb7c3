"""The lobby lines NetAcquire users are told of the hall's lobby changes (users and games
coming and going), worked out and encoded once per notice for every connection."""
from __future__ import annotations

from gamehall.table import PLAYING

from gamehall_acquire.game import AcquireGame

from .encoded import wire
from .render import lm

GAME = AcquireGame.name


class LobbyNotices:
    """The lobby lines NetAcquire users are told of the hall's lobby changes, worked out
    and encoded once per notice for every connection of a factory (the lobby hands each
    sink the same ``detail``): a user or game coming, a game started or over.

    It keeps the state of every Acquire table, from the hall's tables when the front end
    starts and then from every notice, told to it as a lobby observer whether or not any
    NetAcquire user is in the lobby: a change that is not a start (a spectator joins)
    is not announced as one."""

    def __init__(self, hall) -> None:
        self.states = {t.id: t.state for t in hall.tables.values() if t.game.name == GAME}
        self._last: tuple = (None, None, [], 0, frozenset())
        hall.lobby.observers.add(self)

    # a lobby observer (IUserSink's lobby methods): keeps ``states`` without users to tell
    def lobby_chat(self, sender: str, text: str) -> None:
        pass

    def lobby_changed(self, event: str, detail: dict) -> None:
        self.lines(event, detail)

    def lines(self, event: str, detail: dict) -> tuple[list[bytes], int, frozenset]:
        """The framed LM lines of a notice, how many, and the nicknames they name
        (such a user is told ``lines_without`` its own name)."""
        last = self._last
        if last[0] is detail and last[1] == event:
            return last[2], last[3], last[4]
        texts, names = self._texts(event, detail)
        chunks = [data for data in map(wire, map(lm, texts)) if data is not None]
        self._last = (detail, event, chunks, len(chunks), names)
        return chunks, len(chunks), names

    def lines_without(self, event: str, detail: dict, nickname: str) -> tuple[list[bytes], int]:
        """The notice's lines for ``nickname``, who is among its users (rare: a user logged in
        within a batch): the same lines, its own arrival left out."""
        chunks = [data for data in map(wire, map(lm, _user_lines(event, detail, nickname)))
                  if data is not None]
        return chunks, len(chunks)

    def _texts(self, event: str, detail: dict) -> tuple[list[str], frozenset]:
        if event in ("user_joined", "user_left", "users_changed"):
            names = (detail.get("joined", []) + detail.get("left", []) if event == "users_changed"
                     else [detail])
            return _user_lines(event, detail, None), frozenset(n.get("nickname") for n in names)
        if event == "tables_changed":
            changes = [("table_added", t) for t in detail.get("added", ())]
            changes += [("table_changed", t) for t in detail.get("changed", ())]
            changes += [("table_removed", {"id": n}) for n in detail.get("removed", ())]
        else:
            changes = [(event, detail)]
        texts = []
        for kind, table in changes:
            number = table.get("id")
            if kind == "table_removed":
                if self.states.pop(number, None) is not None:
                    texts.append(f"# Game #{number} is over.")
                continue
            if kind not in ("table_added", "table_changed") or table.get("game") != GAME:
                continue
            old, state = self.states.get(number), table.get("state")
            self.states[number] = state
            if kind == "table_added":
                texts.append(f"# Game #{number} was created by {table.get('creator') or 'the host'}.")
            if state == PLAYING and old != PLAYING and (old is not None or kind == "table_added"):
                texts.append(f"# Game #{number} has started.")
        return texts, frozenset()


def _user_lines(event: str, detail: dict, me: str | None) -> list[str]:
    """Lobby lines of users coming and going (a line per name when few, a count when many),
    ``me`` left out."""
    if event == "user_joined":
        return [] if detail.get("nickname") == me else [f"# {detail['nickname']} has entered the lobby."]
    if event == "user_left":
        return [f"# {detail['nickname']} has left."]
    texts = []
    for key, many, one in (("joined", "have entered the lobby", "has entered the lobby"),
                           ("left", "have left", "has left")):
        names = [n["nickname"] for n in detail.get(key, ()) if n.get("nickname") != me]
        if len(names) > 3:
            texts.append(f"# {len(names)} users {many}.")
        else:
            texts += [f"# {name} {one}." for name in names]
    return texts
