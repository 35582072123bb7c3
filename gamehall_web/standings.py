"""The web front end's requests for ratings (docs/web.md, docs/players.md): the standings of
a rating, a player's page, and head to head.  Anyone may ask (no sign-in), as for records.

Mixed into ``WebSession``: uses its ``hall``, ``send``, ``error``; every answer is read from
the store (``IStore.standings``, ``player_ratings``, ``rating_history``, ``player_games``,
``head_to_head``).
"""
from __future__ import annotations

from twisted.internet.defer import gatherResults
from twisted.logger import Logger

from gamehall.lobby import MAX_NAME, normal_name
from gamehall.lobby import LobbyError as RequestError   # (answered as an error, as the session's are)

MAX_STANDINGS = 200             # rows of standings sent at once
PLAYER_GAMES = 100              # a player's last games listed
HISTORY = 1000                  # a player's rated games charted (the last ones)
_log = Logger(namespace="gamehall_web.standings")


def _text(message: dict, name: str, required: bool = False, limit: int = 200) -> str | None:
    value = message.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise RequestError(f"'{name}' must be a non-empty string")
    return value.strip()[:limit]


def _name(message: dict, field: str) -> str:
    name = normal_name(_text(message, field, True, 4 * MAX_NAME))
    if len(name) > MAX_NAME + 16:       # a name, or a bot's rating name (bot:game:level)
        raise RequestError(f"'{field}' is too long for a name")
    return name


class StandingsRequests:
    """``standings``, ``player`` and ``head_to_head`` requests."""

    def do_standings(self, message: dict) -> None:
        """``{"type": "standings", "key"?: rating key, "game"?: name, "offset"?: n}``: every
        rating key (with its number of players), and the ranked list of one: ``key``, else the
        first of ``game``'s keys, else the first key."""
        key, game = _text(message, "key"), _text(message, "game", limit=40)
        offset = message.get("offset", 0)
        if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
            raise RequestError("'offset' must be a whole number of 0 or more")

        def listed(keys: list[dict]):
            names = [k["key"] for k in keys]
            chosen = key if key is not None else next(
                (k for k in names if game is None or k.split("/")[0] == game), None)
            if chosen is None:
                return keys, chosen, []
            d = self.hall.store.standings(chosen, MAX_STANDINGS, offset)
            return d.addCallback(lambda rows: (keys, chosen, rows))

        d = self.hall.store.rating_keys()
        d.addCallback(listed)
        d.addCallback(lambda answer: self.send({
            "type": "standings", "keys": answer[0], "key": answer[1], "offset": offset,
            "rows": answer[2], "page": MAX_STANDINGS,
            "titles": self._titles()}))
        d.addErrback(self._ratings_failed, "standings")

    def do_player(self, message: dict) -> None:
        """``{"type": "player", "name": NAME}``: their ratings, rating history (charted) and
        last games."""
        name = _name(message, "name")
        store = self.hall.store
        d = gatherResults([store.player_ratings(name), store.rating_history(name, None, HISTORY),
                           store.player_games(name, PLAYER_GAMES)], consumeErrors=True)
        d.addCallback(lambda got: self.send({
            "type": "player", "name": got[0][0]["name"] if got[0] else name,
            "ratings": got[0], "history": got[1], "games": got[2], "titles": self._titles()}))
        d.addErrback(self._ratings_failed, "player")

    def do_head_to_head(self, message: dict) -> None:
        """``{"type": "head_to_head", "name": NAME, "other": NAME}``: their rated games together."""
        name, other = _name(message, "name"), _name(message, "other")
        if name.casefold() == other.casefold():
            raise RequestError("Pick another player to compare with")
        d = self.hall.store.head_to_head(name, other, PLAYER_GAMES)
        d.addCallback(lambda h2h: self.send(dict(h2h, type="head_to_head", name=name, other=other)))
        d.addErrback(self._ratings_failed, "head_to_head")

    def _titles(self) -> dict[str, str]:
        return {name: game.title for name, game in sorted(self.hall.games.items())}

    def _ratings_failed(self, failure, request: str) -> None:
        _log.failure("web: store read for {request} failed", failure, request=request)
        self.error("The hall could not read its ratings right now", request)
