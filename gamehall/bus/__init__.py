"""The bus: what the processes of one hall say to each other.

Every process started with the same store and the same bus is one hall.  The bus carries
what is shared but not stored: presence (which process is alive, who is signed in where),
the one namespace of nicknames (claimed by key, with expiry, so a dead process's names
come free), lobby chat, table-list changes, actions forwarded to a table's owner process
and the owner's applied actions to replicas.

Two implementations of ``IBus``:

- ``LocalBus`` (gamehall.bus.localbus): in memory, one process (or several buses sharing
  one ``LocalHub`` in a test); TTLs on an injected clock.
- ``RedisBus`` (gamehall.bus.redisbus): a Redis server (``--bus redis://host:port/N``).

Guarantees (both implementations):

- Messages published by one bus on one channel reach each subscriber in the order they
  were published; a subscriber gets its own process's messages too.
- Delivery is at most once: a subscriber that is cut off (Redis restarted, network cut)
  misses what was published meanwhile; nothing is queued for it.  The hall fills the gap
  itself: table actions from the store (which is the truth), presence by announcing again
  after ``on_state(True)``.
- Claims are atomic: of two owners racing for one key exactly one gets it; a claim lives
  until released by its owner or until its TTL runs out without a renewal.
- Every operation's Deferred errbacks with ``BusUnavailable`` (a one-line reason) when the
  bus cannot be reached; it never hangs waiting for a reconnection.  Subscriptions are
  the exception: they are kept, and restored after a reconnection.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from zope.interface import Attribute, Interface


class BusUnavailable(Exception):
    """The bus cannot be reached now; ``str(exc)`` says why, in one line."""


class IBus(Interface):
    """What the hall needs from the bus.  All times are in seconds (floats allowed)."""

    on_state = Attribute(
        "None, or a callable(up: bool) told each time the bus goes down or comes back "
        "(not for the first connection, which start() reports)")
    is_up = Attribute("bool: the bus can be used now")

    def start():
        """Connect; a Deferred fired when usable, errback ``BusUnavailable`` if it cannot be
        reached (then nothing is retried: the caller decides)."""

    def stop():
        """Disconnect for good; a Deferred fired once closed."""

    def publish(channel: str, message: dict):
        """Send ``message`` (JSON-able dict) to the subscribers of ``channel``; a Deferred
        firing with how many subscriptions (channel or pattern, one per process) got it."""

    def subscribe(channel: str, callback):
        """Call ``callback(channel, message)`` for each message on ``channel``.  The Deferred
        fires once the subscription is live (after a reconnection if the bus is down)."""

    def unsubscribe(channel: str, callback):
        """Stop calling ``callback`` for ``channel``; a Deferred."""

    def psubscribe(pattern: str, callback):
        """Like subscribe, for every channel matching the glob ``pattern`` (``*``, ``?``)."""

    def punsubscribe(pattern: str, callback):
        """Undo ``psubscribe``; a Deferred."""

    def claim(key: str, owner: str, ttl: float):
        """Take ``key`` for ``owner`` if nobody holds it: a Deferred[bool], True if taken.
        Atomic across processes.  A key already held by ``owner`` itself is refused too
        (use renew)."""

    def renew(keys, owner: str, ttl: float):
        """Extend to ``ttl`` each of ``keys`` still held by ``owner``; a Deferred[list] of
        the keys renewed (a key missing from it was lost: expired or taken)."""

    def release(key: str, owner: str):
        """Free ``key`` if ``owner`` holds it; a Deferred[bool], False when not held by it."""

    def owner(key: str):
        """A Deferred[str | None]: who holds ``key`` now."""

    def process_alive(process_id: str, info: dict, ttl: float):
        """Announce (or renew) this process with ``info`` (JSON-able), for ``ttl``."""

    def process_gone(process_id: str):
        """Withdraw a process at a clean shutdown; a Deferred."""

    def processes():
        """A Deferred[dict]: process id -> info, for every process alive now."""

    def hall_id(proposed: str):
        """A Deferred[str]: the hall id this bus belongs to, ``proposed`` if it had none.
        Two halls (stores) pointed at one bus are told apart by comparing it."""


def encode_message(message: dict) -> str:
    """The wire form of a bus message; TypeError for what is not a JSON-able dict."""
    if not isinstance(message, dict):
        raise TypeError(f"a bus message is a dict, not {type(message).__name__}")
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def decode_message(data) -> dict | None:
    """The dict in ``data``, or None when it is not a JSON object (a foreign publisher)."""
    try:
        message = json.loads(data)
    except (TypeError, ValueError):
        return None
    return message if isinstance(message, dict) else None


@dataclass(frozen=True)
class BusAddress:
    host: str
    port: int
    db: int
    password: str | None = None
    username: str | None = None

    def __str__(self) -> str:  # never shows the password
        return f"redis://{self.host}:{self.port}/{self.db}"


def parse_bus_url(url: str) -> BusAddress:
    """``redis://[[user]:password@]host[:port][/N]`` -> BusAddress; ValueError, with a
    reason for the command line, for anything else."""
    parts = urlsplit(url)
    if parts.scheme != "redis":
        raise ValueError(f"--bus {url!r}: expected redis://host:port/N")
    try:
        port = parts.port or 6379
    except ValueError:
        raise ValueError(f"--bus {url!r}: the port is not a number from 1 to 65535") from None
    host = parts.hostname
    if not host:
        raise ValueError(f"--bus {url!r}: no host")
    path = parts.path.strip("/")
    if path and not path.isdigit():
        raise ValueError(f"--bus {url!r}: the database after the '/' is a number (0-15 by default)")
    if parts.query or parts.fragment:
        raise ValueError(f"--bus {url!r}: no ?options or #fragment are understood")
    password = unquote(parts.password) if parts.password is not None else None
    username = unquote(parts.username) if parts.username else None
    return BusAddress(host, port, int(path or 0), password, username)
