"""The bus in memory: one process's hall, and unit tests of several "processes" in one.

Buses made on one ``LocalHub`` see each other as processes of one hall would on Redis.
Messages are delivered on the next turn of the clock (``callLater(0)``), never inside
``publish``, as they would be over the network: a subscriber that publishes from its
callback gets no re-entrant call.  TTLs run on the hub's clock (an IReactorTime, e.g.
``task.Clock`` in tests).
"""
from __future__ import annotations

import json
from fnmatch import fnmatchcase

from twisted.internet import defer
from twisted.logger import Logger
from zope.interface import implementer

from . import BusUnavailable, IBus, decode_message, encode_message


class LocalHub:
    """The shared memory of buses that are one hall: keys with expiry, subscribers."""

    def __init__(self, clock):
        self.clock = clock
        self._keys: dict[str, tuple[str, float | None]] = {}
        self.buses: list[LocalBus] = []

    def get(self, key: str) -> str | None:
        entry = self._keys.get(key)
        if entry is None:
            return None
        value, expires = entry
        if expires is not None and self.clock.seconds() >= expires:
            del self._keys[key]
            return None
        return value

    def set(self, key: str, value: str, ttl: float | None) -> None:
        expires = None if ttl is None else self.clock.seconds() + ttl
        self._keys[key] = (value, expires)

    def delete(self, key: str) -> None:
        self._keys.pop(key, None)

    def keys(self, prefix: str) -> list[str]:
        return [k for k in list(self._keys) if k.startswith(prefix) and self.get(k) is not None]


@implementer(IBus)
class LocalBus:
    log = Logger()

    def __init__(self, clock, hub: LocalHub | None = None):
        self.hub = hub if hub is not None else LocalHub(clock)
        self.clock = clock
        self.on_state = None
        self.is_up = False
        self._channels: dict[str, list] = {}
        self._patterns: dict[str, list] = {}

    # -- life --
    def start(self):
        self.is_up = True
        if self not in self.hub.buses:
            self.hub.buses.append(self)
        return defer.succeed(None)

    def stop(self):
        self.is_up = False
        if self in self.hub.buses:
            self.hub.buses.remove(self)
        return defer.succeed(None)

    def _check(self):
        if not self.is_up:
            raise BusUnavailable("the bus is stopped")

    # -- messages --
    def publish(self, channel, message):
        try:
            self._check()
            data = encode_message(message)
        except (BusUnavailable, TypeError, ValueError) as e:
            return defer.fail(e)
        receivers = 0
        for bus in self.hub.buses:
            receivers += bus._deliver_later(channel, data)
        return defer.succeed(receivers)

    def _deliver_later(self, channel: str, data: str) -> int:
        """Schedule delivery to this bus's matching subscriptions; their count, as Redis
        counts them (one per subscribed channel or pattern, however many callbacks)."""
        matched = 0
        if channel in self._channels:
            matched += 1
            self.clock.callLater(0, self._deliver, self._channels, channel, channel, data)
        for pattern in list(self._patterns):
            if fnmatchcase(channel, pattern):
                matched += 1
                self.clock.callLater(0, self._deliver, self._patterns, pattern, channel, data)
        return matched

    def _deliver(self, table, name, channel, data):
        if not self.is_up:
            return
        for callback in list(table.get(name, ())):
            message = decode_message(data)  # a fresh copy for each callback, as over the wire
            try:
                callback(channel, message)
            except Exception:
                self.log.failure("bus: a subscriber of {channel} failed", channel=channel)

    def subscribe(self, channel, callback):
        self._channels.setdefault(channel, []).append(callback)
        return defer.succeed(None)

    def unsubscribe(self, channel, callback):
        _remove(self._channels, channel, callback)
        return defer.succeed(None)

    def psubscribe(self, pattern, callback):
        self._patterns.setdefault(pattern, []).append(callback)
        return defer.succeed(None)

    def punsubscribe(self, pattern, callback):
        _remove(self._patterns, pattern, callback)
        return defer.succeed(None)

    # -- claims --
    def claim(self, key, owner, ttl):
        return self._op(self._claim, key, owner, ttl)

    def _claim(self, key, owner, ttl):
        k = "claim:" + key
        if self.hub.get(k) is not None:
            return False
        self.hub.set(k, owner, ttl)
        return True

    def renew(self, keys, owner, ttl):
        return self._op(self._renew, list(keys), owner, ttl)

    def _renew(self, keys, owner, ttl):
        kept = []
        for key in keys:
            if self.hub.get("claim:" + key) == owner:
                self.hub.set("claim:" + key, owner, ttl)
                kept.append(key)
        return kept

    def release(self, key, owner):
        return self._op(self._release, key, owner)

    def _release(self, key, owner):
        if self.hub.get("claim:" + key) != owner:
            return False
        self.hub.delete("claim:" + key)
        return True

    def owner(self, key):
        return self._op(self.hub.get, "claim:" + key)

    # -- processes --
    def process_alive(self, process_id, info, ttl):
        return self._op(lambda: self.hub.set("proc:" + process_id, encode_message(info), ttl))

    def process_gone(self, process_id):
        return self._op(self.hub.delete, "proc:" + process_id)

    def processes(self):
        def collect():
            return {k[len("proc:"):]: json.loads(self.hub.get(k)) for k in self.hub.keys("proc:")}
        return self._op(collect)

    def hall_id(self, proposed):
        def get_or_set():
            current = self.hub.get("hall-id")
            if current is None:
                self.hub.set("hall-id", proposed, None)
                current = proposed
            return current
        return self._op(get_or_set)

    def _op(self, f, *args):
        try:
            self._check()
            return defer.succeed(f(*args))
        except Exception as e:
            return defer.fail(e)


def _remove(table: dict, name: str, callback) -> None:
    callbacks = table.get(name, [])
    if callback in callbacks:
        callbacks.remove(callback)
    if not callbacks:
        table.pop(name, None)
