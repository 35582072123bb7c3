"""Which bus a store's hall uses, and which hall a bus belongs to.

Every process started with the same store and the same bus is one hall, so two
mismatches must be refused at start-up, before a process serves anyone:

- one bus, two stores: two halls would mix their lobbies and nicknames;
- one store, two buses at once: one hall split in two, each half blind to the other's
  players and tables (split brain).

The bus keeps ``HALL/TOKEN`` (``IBus.hall_id``, get-or-set, atomic): HALL names the
store's hall, TOKEN this bus (made by the first process that found it empty).  The
store keeps the same pair in its ``cluster`` setting, plus when a process of the hall
last said it was alive on that bus (``seen``, refreshed by every running process).

A bus that holds another HALL is refused.  A bus that holds this hall with another
token, or none (it is another Redis, or the same one emptied by a restart), is taken
over only when no process of the hall has been seen on the old bus within
``LIVE_WINDOW`` seconds, or with ``--move-bus``; otherwise it is refused: the hall is
running on its bus right now.
"""
from __future__ import annotations

import secrets

from twisted.internet import defer, task
from twisted.logger import Logger

#: the store setting holding the binding
SETTING = "cluster"
#: seconds between refreshes of ``seen`` by a running process
REFRESH = 10.0
#: a process of the hall seen on its bus this recently means the hall may be running
LIVE_WINDOW = 3 * REFRESH
#: seconds to wait for a process that bound a fresh store and bus a moment ago to write it
SETTLE = 3.0

log = Logger(namespace="gamehall.cluster.binding")


class BindingRefused(Exception):
    """This process's store and bus are not one hall; ``str(exc)`` says why and what to do."""


def new_token() -> str:
    return secrets.token_hex(8)


@defer.inlineCallbacks
def bind(store, bus, clock, bus_url: str, *, move: bool = False):
    """Tie ``store`` (open) and ``bus`` (started) together, or raise BindingRefused.
    Fires with the binding kept: ``{"hall", "bus", "bus_url", "seen"}``."""
    settings = yield store.load_settings()
    kept = settings.get(SETTING)
    hall = kept["hall"] if kept else new_token()
    proposed = f"{hall}/{new_token()}"
    value = yield bus.hall_id(proposed)
    bus_hall, _, bus_token = str(value).partition("/")
    if kept is None and value != proposed:
        # a fresh store, a bus already taken: by another hall, or by a process of this
        # one that started at the same moment and is about to write the store
        kept = yield _settled(store, clock)
        if kept is None:
            raise BindingRefused(_other_hall(bus_url))
    if kept is not None and bus_hall != kept["hall"]:
        raise BindingRefused(_other_hall(bus_url))
    if kept is not None and bus_token != kept["bus"]:
        ago = clock.seconds() - float(kept.get("seen", 0))
        if ago < LIVE_WINDOW and not move:
            raise BindingRefused(
                f"this store's hall runs on another bus ({kept.get('bus_url', '?')}, where a process "
                f"of it was alive {max(ago, 0):.0f}s ago), not on {bus_url}: start this process "
                f"with --bus {kept.get('bus_url', 'URL')}; to move the hall to {bus_url} on purpose, "
                f"stop every process of it and start again after {LIVE_WINDOW:.0f}s, "
                f"or at once with --move-bus")
        log.warn("the hall moves from the bus at {old} to the bus at {new}",
                 old=kept.get("bus_url", "?"), new=bus_url)
    binding = {"hall": bus_hall, "bus": bus_token, "bus_url": bus_url, "seen": clock.seconds()}
    yield store.save_setting(SETTING, binding)
    return binding


@defer.inlineCallbacks
def _settled(store, clock):
    waited = 0.0
    while waited < SETTLE:
        yield task.deferLater(clock, 0.25, lambda: None)
        waited += 0.25
        kept = (yield store.load_settings()).get(SETTING)
        if kept is not None:
            return kept
    return None


def _other_hall(bus_url: str) -> str:
    return (f"the bus at {bus_url} belongs to another hall (one with another store): give this "
            f"hall a bus of its own (another database number, redis://host:port/N, or another "
            f"server); to hand that bus to this hall on purpose, stop the hall that uses it and "
            f"empty its database (redis-cli -n N flushdb)")


def still_bound(binding: dict):
    """The ``HALL/TOKEN`` value the bus must keep for ``binding`` (restored after Redis
    restarts empty while the hall runs)."""
    return f"{binding['hall']}/{binding['bus']}"
