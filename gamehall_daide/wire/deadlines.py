"""A Diplomacy table's phase deadline and its clients' alarms, on the hall clock.

``Deadline.arm(turn, seconds)`` starts the timer of a phase; when it runs out
``fire(turn)`` is called (the front end then stores ``{"deadline": turn}`` by
seat -1, so a restart replays the same outcome).  ``pause``/``resume`` serve
the DSD option (the deadline stops while a player with orders due is away).
Alarms are the clients' ``TME (s)`` requests: ``alarm(key, s)`` is called s
seconds before each deadline.
"""
from __future__ import annotations

from typing import Callable, Hashable

#: which HLO time limit applies to a phase, by its season
LIMIT_OF_SEASON = {"SPR": "MTL", "FAL": "MTL", "SUM": "RTL", "AUT": "RTL", "WIN": "BTL"}


class Deadline:
    def __init__(self, clock, fire: Callable[[str], None], alarm: Callable[[Hashable, int], None]) -> None:
        self.clock, self._fire, self._alarm = clock, fire, alarm
        self.turn: str | None = None
        self.ends_at: float | None = None        # running: when it fires
        self.paused_left: float | None = None    # paused (DSD): seconds that were left
        self._call = None
        self._alarm_calls: list = []
        self.alarms: dict[Hashable, set[int]] = {}

    @property
    def running(self) -> bool:
        return self.ends_at is not None

    def remaining(self) -> int | None:
        """Whole seconds to the deadline (paused: what is left), None without one."""
        if self.ends_at is not None:
            return max(0, round(self.ends_at - self.clock.seconds()))
        if self.paused_left is not None:
            return max(0, round(self.paused_left))
        return None

    def arm(self, turn: str, seconds: float | None) -> None:
        """A new phase: its deadline in ``seconds`` (0/None: none)."""
        self.cancel()
        self.turn = turn
        if seconds:
            self._start(float(seconds))

    def _start(self, seconds: float) -> None:
        self.ends_at, self.paused_left = self.clock.seconds() + seconds, None
        self._call = self.clock.callLater(seconds, self._fired)
        self._schedule_alarms()

    def _fired(self) -> None:
        self._call, self.ends_at = None, None
        self._cancel_alarms()
        self._fire(self.turn)

    def pause(self) -> bool:
        """Stop the clock (DSD); False when no deadline runs."""
        if self.ends_at is None:
            return False
        left = self.ends_at - self.clock.seconds()
        self._stop_calls()
        self.ends_at, self.paused_left = None, max(0.0, left)
        return True

    def resume(self) -> bool:
        if self.paused_left is None:
            return False
        self._start(self.paused_left)
        return True

    def cancel(self) -> None:
        self._stop_calls()
        self.ends_at = self.paused_left = None

    def _stop_calls(self) -> None:
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
        self._cancel_alarms()

    # -- client alarms ---------------------------------------------------
    def add_alarm(self, key: Hashable, seconds: int) -> None:
        self.alarms.setdefault(key, set()).add(seconds)
        if self.ends_at is not None:
            self._schedule(key, seconds)

    def remove_alarm(self, key: Hashable, seconds: int | None = None) -> bool:
        """Cancel one alarm (or all of ``key``'s); False when there was none."""
        mine = self.alarms.get(key)
        if not mine or (seconds is not None and seconds not in mine):
            return False
        if seconds is None:
            del self.alarms[key]
        else:
            mine.discard(seconds)
        if self.ends_at is not None:
            self._schedule_alarms()
        return True

    def _schedule_alarms(self) -> None:
        self._cancel_alarms()
        for key, secs in self.alarms.items():
            for seconds in secs:
                self._schedule(key, seconds)

    def _schedule(self, key: Hashable, seconds: int) -> None:
        delay = self.ends_at - self.clock.seconds() - seconds
        if delay >= 0:
            self._alarm_calls.append(self.clock.callLater(delay, self._alarm, key, seconds))

    def _cancel_alarms(self) -> None:
        for call in self._alarm_calls:
            if call.active():
                call.cancel()
        self._alarm_calls = []
