"""The bus on a Redis server (``--bus redis://host:port/N``), over txredisapi.

Two connections: one for commands (claims, presence, publish) and one in subscriber mode.
Each is kept up by a ``ClientService`` that reconnects with exponential backoff on the
injected clock.  The bus is up while both are ready (AUTH and SELECT done, subscriptions
restored); ``on_state(False)`` is told when either is lost and ``on_state(True)`` once both
are back.  While down, every operation fails at once with ``BusUnavailable`` instead of
waiting; a command with no answer within ``command_timeout`` drops the connection (so a
silent network cut is noticed too) and fails the same way.

Keys live in database N under ``gamehall:``.  Redis's pub/sub ignores the database
number, so channels carry it (``gamehall:N:<channel>``): halls on one server with
different databases do not hear each other.
"""
from __future__ import annotations

import txredisapi
from twisted.application.internet import ClientService, backoffPolicy
from twisted.internet import defer, protocol, task
from twisted.internet.abstract import isIPAddress, isIPv6Address
from twisted.internet.endpoints import HostnameEndpoint, TCP4ClientEndpoint, TCP6ClientEndpoint
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from . import BusAddress, BusUnavailable, IBus, decode_message, encode_message, parse_bus_url

# Compare-and-extend: only keys still held by ARGV[1]; returns the keys renewed.
RENEW = """
local kept = {}
for _, k in ipairs(KEYS) do
  if redis.call('GET', k) == ARGV[1] then
    redis.call('PEXPIRE', k, ARGV[2])
    kept[#kept + 1] = k
  end
end
return kept
"""
# Compare-and-delete.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
# Get, or set when absent, atomically (SET NX GET needs Redis 7; this works on any).
GET_OR_SET = """
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
"""

_LOST = (txredisapi.ConnectionError, defer.CancelledError)


class _Command(txredisapi.RedisProtocol):
    def connectionLost(self, why):
        super().connectionLost(why)
        self.factory.bus._lost("command", self)


class _Subscriber(txredisapi.SubscriberProtocol):
    def messageReceived(self, pattern, channel, message):
        self.factory.bus._message(pattern, channel, message)

    def connectionLost(self, why):
        super().connectionLost(why)
        self.factory.bus._lost("subscriber", self)


class _Factory(protocol.Factory):
    """Builds txredisapi protocols for the bus and hears their fatal errors (bad password,
    bad database), which txredisapi reports to its factory."""

    noisy = False
    isLazy = True  # txredisapi: log the fatal error instead of firing a pool Deferred

    def __init__(self, bus: RedisBus, kind: str, proto):
        self.bus, self.kind, self.protocol = bus, kind, proto

    def buildProtocol(self, addr):
        a = self.bus.address
        p = self.protocol(charset="utf-8", password=a.password, username=a.username,
                          dbid=a.db if self.kind == "command" else None,
                          convertNumbers=False)
        p.factory = self
        # A server that takes the connection but never answers AUTH/SELECT: drop it.
        deadline = self.bus.clock.callLater(
            self.bus.connect_timeout + self.bus.command_timeout, _abort, p)
        p.whenConnected().addCallback(_cancel, deadline).addCallback(self.bus._connected, self.kind)
        lost = p.connectionLost

        def connection_lost(reason, lost=lost):
            # refused before it was ready (a wrong password or database): no deadline left behind
            _cancel(None, deadline)
            return lost(reason)

        p.connectionLost = connection_lost
        return p

    def stopTrying(self):
        self.bus._give_up()

    def connectionError(self, why):
        self.bus._fatal(f"the bus at {self.bus.address}: {why}")


def _abort(proto):
    if proto.transport is not None:
        proto.transport.abortConnection()


def _cancel(proto, call):
    if call.active():
        call.cancel()
    return proto


@implementer(IBus)
class RedisBus:
    log = Logger()

    def __init__(self, url: str | BusAddress, reactor, clock=None, *, retry=None,
                 command_timeout: float = 5.0, connect_timeout: float = 5.0,
                 heartbeat: float = 5.0):
        self.address = url if isinstance(url, BusAddress) else parse_bus_url(url)
        self.reactor = reactor
        self.clock = clock if clock is not None else reactor
        self.retry = retry or backoffPolicy(initialDelay=0.5, maxDelay=10.0, factor=2.0)
        self.command_timeout = command_timeout
        self.heartbeat = heartbeat
        self._pinger = None
        self.connect_timeout = connect_timeout
        self.on_state = None
        self.is_up = False
        self._keys = "gamehall:"
        self._chan = f"gamehall:{self.address.db}:"
        self._ready: dict[str, object] = {}  # kind -> protocol, once usable
        self._channels: dict[str, list] = {}
        self._patterns: dict[str, list] = {}
        self._live_waiters: list[defer.Deferred] = []
        self._services: list[ClientService] = []
        self._starting: defer.Deferred | None = None
        self._was_up = False
        self._ups = 0  # times it came up: a late announcement of an older one is dropped
        self._stopped = False
        self._down_reason = f"the bus at {self.address} is not connected"

    # -- life --
    def start(self):
        self._stopped = False
        self._starting = defer.Deferred()
        endpoint = self._endpoint()
        for kind, proto in (("command", _Command), ("subscriber", _Subscriber)):
            service = ClientService(endpoint, _Factory(self, kind, proto),
                                    retryPolicy=self.retry, clock=self.clock)
            self._services.append(service)
            service.whenConnected(failAfterFailures=1).addErrback(self._first_failure)
            service.startService()
        deadline = self.clock.callLater(self.connect_timeout + self.command_timeout,
                                        self._start_timed_out)
        return self._starting.addBoth(_cancel, deadline)

    def _endpoint(self):
        host, port, timeout = self.address.host, self.address.port, self.connect_timeout
        # An address needs no resolver (whose thread pool runs only once the reactor does).
        if isIPAddress(host):
            return TCP4ClientEndpoint(self.reactor, host, port, timeout=timeout)
        if isIPv6Address(host):
            return TCP6ClientEndpoint(self.reactor, host, port, timeout=timeout)
        return HostnameEndpoint(self.reactor, host, port, timeout=timeout)

    def _start_timed_out(self):
        if self._starting is not None:
            self._fatal(f"the bus at {self.address} did not answer within "
                        f"{self.connect_timeout + self.command_timeout:g}s")

    def stop(self):
        self._stopped = True
        self.is_up = False
        self._stop_heartbeat()
        self._ready.clear()  # their connections close below; none is reused
        services, self._services = self._services, []
        self._fail_start(f"the bus at {self.address} was stopped")
        self._fail_waiters()
        return defer.gatherResults([s.stopService() for s in services], consumeErrors=True) \
            .addCallback(lambda _: None)

    def _first_failure(self, failure):
        if failure.check(defer.CancelledError):  # stopped meanwhile
            return
        # told from inside the ClientService's state change, which cannot stop reentrantly
        self.reactor.callLater(0, self._fatal,
                               f"cannot reach the bus at {self.address}: {failure.getErrorMessage()}")

    def _fatal(self, why: str):
        """The first connection failed, or Redis refused the password or database: give up."""
        self._down_reason = why
        if self._starting is None:
            self.log.error("bus: {why}; giving up", why=why)
        self.stop()

    def _give_up(self):
        pass  # _fatal (told right after by txredisapi) stops the services

    def _fail_start(self, why: str):
        starting, self._starting = self._starting, None
        if starting is not None:
            starting.errback(BusUnavailable(self._down_reason if self._down_reason else why))

    def _connected(self, proto, kind):
        if self._stopped:
            proto.transport.loseConnection()
            return
        if kind == "subscriber":
            proto.bus_subscribed = set()  # (command, name) sent on this connection
        self._mark_ready(kind, proto)

    def _mark_ready(self, kind, proto):
        if proto.connected:
            self._ready[kind] = proto
            self._set_state()

    def _lost(self, kind, proto):
        if self._ready.get(kind) is proto:
            del self._ready[kind]
            self._down_reason = f"lost the connection to the bus at {self.address}"
            self._set_state()

    def _set_state(self):
        up = not self._stopped and len(self._ready) == 2
        if up == self.is_up:
            return
        self.is_up = up
        if up:
            self._down_reason = ""
            # announced once the subscriptions are back (a fresh subscriber connection has none)
            self._ups += 1
            self._sync().addBoth(self._announce_up, self._ups)
            return
        self._stop_heartbeat()
        if self._was_up and not self._stopped:
            self.log.warn("bus: {why}; reconnecting", why=self._down_reason)
            self._notify(False)

    def _announce_up(self, result, ups):
        if not self.is_up or ups != self._ups:
            return  # lost again meanwhile: announced on the next connection
        if isinstance(result, Failure):
            self.log.warn("bus: restoring subscriptions failed: {e}", e=result.getErrorMessage())
        self._start_heartbeat()
        if self._starting is not None:
            starting, self._starting = self._starting, None
            self._was_up = True
            starting.callback(None)
        else:
            self.log.info("bus: connected again to {address}", address=str(self.address))
            self._notify(True)
        waiters, self._live_waiters = self._live_waiters, []
        for d in waiters:
            d.callback(None)

    def _start_heartbeat(self):
        """PING both connections now and then: a connection cut without a word (a dead
        host, a dropped NAT entry) then fails its PING within command_timeout and is
        dropped; the idle subscriber connection would otherwise miss messages unawares."""
        self._stop_heartbeat()
        self._pinger = task.LoopingCall(self._ping)
        self._pinger.clock = self.clock
        self._pinger.start(self.heartbeat, now=False)

    def _stop_heartbeat(self):
        if self._pinger is not None and self._pinger.running:
            self._pinger.stop()
        self._pinger = None

    def _ping(self):
        for proto in list(self._ready.values()):
            self._send(proto, "PING").addErrback(lambda f: None)  # a failure drops it

    def _notify(self, up: bool):
        if self.on_state is not None:
            try:
                self.on_state(up)
            except Exception:
                self.log.failure("bus: on_state({up}) failed", up=up)

    def _fail_waiters(self):
        waiters, self._live_waiters = self._live_waiters, []
        for d in waiters:
            d.errback(BusUnavailable(f"the bus at {self.address} was stopped"))

    def _when_live(self):
        d = defer.Deferred()
        self._live_waiters.append(d)
        return d

    # -- running commands --
    def _run(self, kind: str, command: str, *args):
        """Run one command on the ``kind`` connection; BusUnavailable when it cannot."""
        proto = self._ready.get(kind)
        if proto is None or not self.is_up:
            return defer.fail(BusUnavailable(self._down_reason or f"the bus at {self.address} is down"))
        return self._send(proto, command, *args)

    def _send(self, proto, command: str, *args):
        """Run one command on ``proto``, failing with BusUnavailable if it is lost or if
        no answer comes within ``command_timeout`` (then the connection is dropped)."""
        try:
            d = proto.execute_command(command, *args)
        except txredisapi.ConnectionError:
            return defer.fail(BusUnavailable(f"lost the connection to the bus at {self.address}"))
        timed_out = []

        def expire():
            timed_out.append(True)
            proto.transport.abortConnection()  # replies would be out of step: start afresh

        call = self.clock.callLater(self.command_timeout, expire)

        def done(result):
            if call.active():
                call.cancel()
            return result

        def failed(failure):
            failure.trap(*_LOST)
            if timed_out:
                raise BusUnavailable(f"the bus at {self.address} did not answer within "
                                     f"{self.command_timeout:g}s")
            raise BusUnavailable(f"lost the connection to the bus at {self.address}")

        return d.addBoth(done).addErrback(failed)

    def _eval(self, script: str, keys, args):
        return self._run("command", "EVAL", script, len(keys), *keys, *args)

    # -- messages --
    def publish(self, channel, message):
        try:
            data = encode_message(message)
        except (TypeError, ValueError) as e:
            return defer.fail(e)
        return self._run("command", "PUBLISH", self._chan + channel, data).addCallback(int)

    def _message(self, pattern, channel, data):
        if not isinstance(channel, str) or not channel.startswith(self._chan):
            return
        name = channel[len(self._chan):]
        message = decode_message(data)
        if message is None:
            self.log.warn("bus: dropped a message on {channel} that is not a JSON object",
                          channel=name)
            return
        if pattern is None:
            callbacks = self._channels.get(name, ())
        else:
            callbacks = self._patterns.get(pattern[len(self._chan):], ())
        for callback in list(callbacks):
            try:
                callback(name, decode_message(data) if len(callbacks) > 1 else message)
            except Exception:
                self.log.failure("bus: a subscriber of {channel} failed", channel=name)

    def subscribe(self, channel, callback):
        return self._add(self._channels, "SUBSCRIBE", channel, callback)

    def psubscribe(self, pattern, callback):
        return self._add(self._patterns, "PSUBSCRIBE", pattern, callback)

    def unsubscribe(self, channel, callback):
        return self._remove(self._channels, "UNSUBSCRIBE", channel, callback)

    def punsubscribe(self, pattern, callback):
        return self._remove(self._patterns, "PUNSUBSCRIBE", pattern, callback)

    def _add(self, table, command, name, callback):
        table.setdefault(name, []).append(callback)
        if not self.is_up:
            if self._stopped and self._was_up:
                return defer.fail(BusUnavailable(f"the bus at {self.address} was stopped"))
            return self._when_live()  # subscribed with the others once connected

        def lost(failure):
            if self.is_up:
                return failure
            return self._when_live()  # the new connection subscribes it

        return self._sync().addCallbacks(lambda _: None, lost)

    def _sync(self):
        """Send the subscriptions the subscriber connection lacks."""
        proto = self._ready.get("subscriber")
        if proto is None:
            return defer.fail(BusUnavailable(self._down_reason))
        sends = []
        for table, command in ((self._channels, "SUBSCRIBE"), (self._patterns, "PSUBSCRIBE")):
            for name in list(table):
                if (command, name) not in proto.bus_subscribed:
                    proto.bus_subscribed.add((command, name))
                    sends.append(self._send(proto, command, self._chan + name))
        return defer.gatherResults(sends, consumeErrors=True).addErrback(
            lambda f: f.value.subFailure if isinstance(f.value, defer.FirstError) else f)

    def _remove(self, table, command, name, callback):
        callbacks = table.get(name, [])
        if callback in callbacks:
            callbacks.remove(callback)
        if callbacks or name not in table:
            return defer.succeed(None)
        del table[name]
        proto = self._ready.get("subscriber")
        subscribe = "PSUBSCRIBE" if command == "PUNSUBSCRIBE" else "SUBSCRIBE"
        if proto is None or (subscribe, name) not in proto.bus_subscribed:
            return defer.succeed(None)  # a new connection will not subscribe it
        proto.bus_subscribed.discard((subscribe, name))
        # Failing to unsubscribe is harmless: the connection is gone with its subscriptions.
        return self._send(proto, command, self._chan + name).addCallbacks(
            lambda _: None, lambda f: f.trap(BusUnavailable) and None)

    # -- claims --
    def claim(self, key, owner, ttl):
        return self._run("command", "SET", self._keys + "claim:" + key, owner,
                         "PX", _ms(ttl), "NX").addCallback(lambda r: r == "OK")

    def renew(self, keys, owner, ttl):
        full = [self._keys + "claim:" + k for k in keys]
        if not full:
            return defer.succeed([])
        strip = len(self._keys + "claim:")
        return self._eval(RENEW, full, [owner, _ms(ttl)]).addCallback(
            lambda kept: [k[strip:] for k in kept or ()])

    def release(self, key, owner):
        return self._eval(RELEASE, [self._keys + "claim:" + key], [owner]).addCallback(
            lambda n: int(n) == 1)

    def owner(self, key):
        return self._run("command", "GET", self._keys + "claim:" + key)

    # -- processes --
    def process_alive(self, process_id, info, ttl):
        try:
            data = encode_message(info)
        except (TypeError, ValueError) as e:
            return defer.fail(e)
        return self._run("command", "SET", self._keys + "proc:" + process_id, data,
                         "PX", _ms(ttl)).addCallback(lambda _: None)

    def process_gone(self, process_id):
        return self._run("command", "DEL", self._keys + "proc:" + process_id) \
            .addCallback(lambda _: None)

    @defer.inlineCallbacks
    def processes(self):
        prefix = self._keys + "proc:"
        keys, cursor = [], "0"
        while True:
            cursor, batch = yield self._run("command", "SCAN", cursor, "MATCH", prefix + "*",
                                            "COUNT", 200)
            keys.extend(batch)
            if str(cursor) == "0":
                break
        if not keys:
            return {}
        values = yield self._run("command", "MGET", *keys)
        found = {}
        for key, value in zip(keys, values):
            info = decode_message(value) if value is not None else None
            if info is not None:  # expired between SCAN and MGET, or not ours
                found[key[len(prefix):]] = info
        return found

    def hall_id(self, proposed):
        return self._eval(GET_OR_SET, [self._keys + "hall-id"], [proposed])


def _ms(ttl: float) -> int:
    return max(1, int(round(ttl * 1000)))
