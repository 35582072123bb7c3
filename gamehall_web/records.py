"""Finished games for the records page: their list, and a replay cursor over one.

A record is replayed as ``Table.restore`` rebuilds a game: a fresh engine
from the stored seed, variant and players (through the ``IGame``), then the
stored actions in order.  The cursor computes every step's scores (the
chart) and log lines once, and moves one engine to any step on request
(forward by applying, backward by rebuilding from the seed).
"""
from __future__ import annotations

import copy


class ReplayError(ValueError):
    """A record that cannot be shown; ``str(exc)`` says why, for the browser."""


def seat_names(seats) -> list[str]:
    return [s.get("name", "?") if isinstance(s, dict) else "?" for s in seats or ()]


def public_seats(seats) -> list[dict]:
    """Seats as anyone may see them: no address, no secret hash."""
    return [{"name": s.get("name"), "kind": s.get("kind"), "bot": s.get("bot")}
            for s in seats or () if isinstance(s, dict)]


def record_summary(row: dict, games: dict) -> dict:
    """One line of the records list (from ``IStore.finished_games``)."""
    result = row.get("result") or {}
    game = games.get(row.get("game"))
    return {"id": row.get("id"), "game": row.get("game"),
            "title": game.title if game is not None else row.get("game"),
            "variant": row.get("variant"), "seats": public_seats(row.get("seats")),
            "scores": result.get("scores"), "winners": result.get("winners"),
            "reason": result.get("reason"), "finished": row.get("finished")}


class ReplayCursor:
    """One finished game, replayable step by step (step 0: before the first action)."""

    def __init__(self, record_id: int, row: dict, game, view, max_steps: int) -> None:
        if row is None:
            raise ReplayError(f"No record #{record_id}")
        if row.get("state") != "finished":
            raise ReplayError(f"Game #{record_id} has not finished ({row.get('state')})")
        actions = row.get("actions") or []
        if len(actions) > max_steps:
            raise ReplayError(f"Record #{record_id} has {len(actions)} actions; at most {max_steps} are replayed")
        self.id, self.row, self.game, self.view = record_id, row, game, view
        self.script = None           # the game's board script (/views/<game>.js), set by the site
        self.players = seat_names(row.get("seats"))
        self.actions = actions
        self.length = len(actions)
        engine = self._fresh()
        self.scores = [view.scores(engine)]
        self.lines: list[list[str]] = [[]]
        for n, (seat, action) in enumerate(actions):
            events = self._apply(engine, n, seat, action)
            self.scores.append(view.scores(engine))
            self.lines.append(view.describe(engine, None, events))
        self._engine, self._at = engine, self.length

    def _fresh(self):
        try:
            return self.game.new_engine(self.row["variant"], list(self.players), self.row["seed"])
        except Exception as exc:
            raise ReplayError(f"Record #{self.id} cannot be rebuilt: {exc}") from None

    def _apply(self, engine, n: int, seat, action) -> list:
        try:
            return engine.apply(seat, action)
        except Exception as exc:
            raise ReplayError(f"Record #{self.id} does not replay: action {n} refused ({exc})") from None

    def summary(self) -> dict:
        return {"type": "replay", "id": self.id, "game": self.game.name, "title": self.game.title,
                "variant": self.row.get("variant"), "players": self.players,
                "seats": public_seats(self.row.get("seats")), "length": self.length,
                "scores": self.scores, "lines": self.lines, "result": self.row.get("result"),
                "actors": [seat for seat, _ in self.actions],
                # the page loads it: a fresh /records/N has no board script yet
                "script": self.script}

    def state(self, step: int) -> dict:
        """The spectator's view after ``step`` actions."""
        if self._engine is None or step < self._at:
            self._engine, self._at = self._fresh(), 0
        while self._at < step:
            seat, action = self.actions[self._at]
            self._apply(self._engine, self._at, seat, action)
            self._at += 1
        return {"type": "replay_state", "id": self.id, "step": step,
                "view": self.view.spectator(self._engine), "lines": self.lines[step]}

    def fork(self) -> "ReplayCursor":
        """A cursor over the same computed record (scores, lines: never changed once made) with
        an engine of its own, made on its first ``state()``: one per session, so two sessions
        stepping through one cached record on two threads never share an engine."""
        other = copy.copy(self)
        other._engine, other._at = None, 0
        return other
