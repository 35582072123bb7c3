"""Finding each game's ``IGameView``, and the plain view used for a game without one.

A view is looked up by game name among the ``IGameView`` plugins.  A game that
ships none is still playable and watchable in the browser through
``PlainView``: its log shows the engine's events as they are, and a pending
decision offers the engine's ``legal_actions()`` (when it has that method) as
buttons.  A game with hidden information must ship a view: the plain view
cannot know what to hide (see docs/web.md).
"""
from __future__ import annotations

import json

from twisted.logger import Logger

from gamehall.interfaces import IGameView, IOutOfTurnEngine

MAX_PLAIN_CHOICES = 60          # buttons offered by the plain view (a decision may have thousands)
_log = Logger(namespace="gamehall_web.views")


def find_views() -> dict:
    """Every installed game view, by game name."""
    from twisted.plugin import getPlugins
    import twisted.plugins
    return {view.game: view for view in getPlugins(IGameView, twisted.plugins)}


def plain_action_label(action) -> str:
    """A short readable label for an engine action dict: ``play_tile 2D``, ``purchase {...}``."""
    if isinstance(action, dict) and len(action) == 1:
        ((key, value),) = action.items()
        value = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        return f"{key.replace('_', ' ')} {value}".strip()
    return json.dumps(action, separators=(",", ":"), sort_keys=True)


def plain_event_line(event) -> str:
    """One log line for an engine event of a game without a view."""
    if isinstance(event, dict):
        kind = event.get("type") or event.get("event") or event.get("kind")
        rest = {k: v for k, v in event.items() if k not in ("type", "event", "kind")}
        text = json.dumps(rest, separators=(", ", ": "), sort_keys=True, default=str)
        return f"{kind}: {text}" if kind else text
    return str(event)


class PlainView:
    """The view of a game that has none: its players' names and scores, its raw events."""

    script = None

    def __init__(self, game) -> None:
        self.game = game.name

    def spectator(self, engine) -> dict:
        return {"players": list(getattr(engine, "players", []))}

    def seat(self, engine, seat: int) -> dict:
        return self.spectator(engine)

    def decision(self, engine, seat: int) -> dict | None:
        if engine.is_over():
            return None
        if not (engine.may_act(seat) if IOutOfTurnEngine.providedBy(engine) else engine.pending_seat() == seat):
            return None
        legal = getattr(engine, "legal_actions", None)
        actions = list(legal()[:MAX_PLAIN_CHOICES]) if legal is not None else []
        choices = [{"label": plain_action_label(a), "action": a, "key": str(i + 1) if i < 9 else None}
                   for i, a in enumerate(actions)]
        # "raw": the page also offers a box for the action as JSON (the engine says if it is legal)
        return {"prompt": "Your decision", "choices": choices, "raw": True}

    def describe(self, engine, seat: int | None, events: list) -> list[str]:
        return [plain_event_line(e) for e in events]

    def scores(self, engine) -> list[float]:
        score = getattr(engine, "score", None)
        if callable(score):
            return [float(score(i)) for i in range(len(engine.players))]
        return [0.0] * len(getattr(engine, "players", []))


class SafeView:
    """A game's view with every call guarded: a view that raises costs that one
    message part (logged once per call site), never the table or the connection."""

    def __init__(self, view, plain: PlainView) -> None:
        self.view, self.plain = view, plain
        self.game = plain.game
        self.script = getattr(view, "script", None)

    def _call(self, name: str, fallback, *args):
        try:
            return getattr(self.view, name)(*args)
        except Exception:
            _log.failure("view of {game}: {name}() failed", game=self.game, name=name)
            return fallback

    def spectator(self, engine) -> dict:
        return self._call("spectator", {}, engine)

    def seat(self, engine, seat: int) -> dict:
        return self._call("seat", {}, engine, seat)

    def decision(self, engine, seat: int) -> dict | None:
        return self._call("decision", None, engine, seat)

    def describe(self, engine, seat, events: list) -> list[str]:
        return self._call("describe", [], engine, seat, events)

    def scores(self, engine) -> list[float]:
        return self._call("scores", [], engine)


def view_for(game, views: dict):
    """The (guarded) view for ``game`` (an IGame), or the plain view when it has none."""
    plain = PlainView(game)
    view = views.get(game.name)
    return plain if view is None else SafeView(view, plain)
