"""``twistd gamehall``: options and the service tree."""
from __future__ import annotations

import errno
import gc
import ipaddress
import os
import random
import secrets
import socket
import sys

from twisted.application.service import MultiService, Service
from twisted.cred.checkers import FilePasswordDB
from twisted.cred.credentials import IUsernamePassword
from twisted.cred.strcred import AuthOptionMixin
from twisted.internet.defer import CancelledError, inlineCallbacks, succeed
from twisted.internet.endpoints import serverFromString
from twisted.internet.task import LoopingCall
from twisted.logger import FilteringLogObserver, Logger, globalLogPublisher, jsonFileLogObserver
from twisted.python import usage

from gamehall.hall import Hall
from gamehall.interfaces import IGreetingFrontEnd
from gamehall.plugins import find_frontends, find_games

DEFAULT_ADMIN = "tcp:8023:interface=127.0.0.1"
DEFAULT_DB = "gamehall.sqlite"


#: The listen queue of every port the hall opens, unless its endpoint string sets one
#: (``backlog=``): Twisted's default, 50, is overrun when a process of the hall dies and its
#: players all connect again at once; a connection the kernel cannot queue is left
#: unanswered, and a client that waits for the server to speak first (NetAcquire) waits
#: for good.  The kernel caps it (net.core.somaxconn).
LISTEN_BACKLOG = socket.SOMAXCONN
#: where each kind of stream server endpoint takes its backlog among positional arguments
_BACKLOG_ARGUMENT = {"tcp": 2, "tcp6": 1, "unix": 2, "ssl": 5}


def with_backlog(description: str) -> str:
    """``description`` with ``backlog=LISTEN_BACKLOG`` when it sets none (haproxy: its inner
    endpoint's)."""
    kind, args, kwargs = endpoint_arguments(description)
    if kind == "haproxy":
        return "haproxy:" + with_backlog(description.partition(":")[2])
    position = _BACKLOG_ARGUMENT.get(kind)
    if position is None or "backlog" in kwargs or len(args) > position:
        return description
    return f"{description}:backlog={LISTEN_BACKLOG}"


def parse_endpoint(description: str):
    """Parse a server endpoint string, or raise UsageError with a one-line reason."""
    from twisted.internet import reactor
    try:
        return serverFromString(reactor, with_backlog(description))
    except Exception as exc:  # the parsers raise ValueError, KeyError, OpenSSL errors...
        raise usage.UsageError(f"bad endpoint {description!r}: {exc}") from None


#: Where each kind of stream server endpoint takes its interface among positional arguments
#: (twisted.internet.endpoints: tcp:PORT:INTERFACE:BACKLOG, tcp6:PORT:BACKLOG:INTERFACE,
#: ssl:PORT:PRIVATEKEY:CERTKEY:SSLMETHOD:INTERFACE), and its default.
_INTERFACE_ARGUMENT = {"tcp": (1, ""), "tcp6": (2, "::"), "ssl": (4, "")}


def endpoint_arguments(description: str) -> tuple[str, list[str], dict[str, str]]:
    """A server endpoint string split as ``serverFromString`` reads it: its kind, positional
    and keyword arguments (``:`` separates, ``=`` names, a backslash escapes either)."""
    parts, current, escaped = [[]], [], False
    for char in description:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ":":
            parts[-1].append("".join(current))
            parts.append([])
            current = []
        elif char == "=" and not parts[-1]:
            parts[-1].append("".join(current))       # the key; the value follows
            current = []
        else:
            current.append(char)
    parts[-1].append("".join(current))
    kind, args, kwargs = parts[0][0].lower(), [], {}
    for part in parts[1:]:
        if len(part) == 2:
            kwargs[part[0]] = part[1]
        else:
            args.append(part[0])
    return kind, args, kwargs


def is_loopback(description: str) -> bool:
    """True when the server endpoint ``description`` can only be reached from this machine:
    a UNIX socket, or TCP/TLS on a loopback interface."""
    kind, args, kwargs = endpoint_arguments(description)
    if kind == "unix":
        return True
    if kind not in _INTERFACE_ARGUMENT:
        return False
    index, default = _INTERFACE_ARGUMENT[kind]
    interface = kwargs.get("interface", args[index] if len(args) > index else default)
    if interface in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(interface).is_loopback
    except ValueError:
        return False


class Options(usage.Options, AuthOptionMixin):
    synopsis = "[options]"
    longdesc = (
        "Start a gamehall: every installed game front end listens on its endpoint "
        "(see --listen), with one shared lobby, an admin console and a store (SQLite or PostgreSQL, see --store). "
        "Front ends and their default endpoints: "
        + "; ".join(f"{name}={front.default_endpoint}" for name, front in sorted(find_frontends().items()))
        + "."
    )
    supportedInterfaces = (IUsernamePassword,)
    optParameters = [
        ["admin", None, DEFAULT_ADMIN,
         "Endpoint of the admin console (telnet). It must be a loopback address unless --auth is given."],
        ["db", None, DEFAULT_DB, "SQLite file holding tables, actions and results (short for --store sqlite:PATH)."],
        ["store", None, None, "Where the hall keeps tables, actions and results: sqlite:PATH (default "
                              f"sqlite:{DEFAULT_DB}) or postgresql://user:pass@host/db."],
        ["seat-hold", None, 120.0, "Seconds a disconnected player's seat is held before a bot takes it.", float],
        ["idle-timeout", None, 1800.0, "Seconds of silence before a connection is closed (0: never).", float],
        ["max-per-peer", None, 20, "Simultaneous connections allowed from one address (0: no cap).", int],
        ["max-output", None, 1 << 20, "Bytes of output a connection may leave unread before it is dropped.", int],
        ["rate", None, 50.0, "Frames (lines) a second a connection may send; faster ones are read more slowly, "
                             "persistent flooders dropped (0: no limit).", float],
        ["burst", None, 200, "Frames a connection may send at once above --rate.", int],
        ["bot-delay", None, 0.5, "Seconds a bot waits before it moves (so humans can follow).", float],
        ["json-log", None, None, "Also write the log as JSON lines to this file."],
        ["seed", None, None, "Seed of the hall's table seeds, for a reproducible run (tests, a replayed "
                             "tournament); default: a fresh random seed each table.", int],
        ["bus", None, None, "redis://[:password@]host:port/N: the Redis bus of a hall run by several processes "
                            "(each started with the same --store and --bus); needs a PostgreSQL store."],
        ["workers", None, None, "Run the hall as N worker processes (2 or more) sharing the ports, which this "
                                "process opens and supervises; needs --bus and a PostgreSQL store.", int],
        ["worker-fds", None, None, "Internal (set by --workers for its workers): the inherited listening "
                                   "sockets, NAME=FD/FAMILY,..."],
    ]
    optFlags = [
        ["move-bus", None, "Take the --bus even though a process of this store's hall was alive on another "
                           "bus moments ago (see docs/cluster.md)."],
    ]

    def __init__(self) -> None:
        super().__init__()
        self["listen"] = {}
        self["disable"] = set()
        self["turn-timeout"] = {}

    def parseOptions(self, options=None) -> None:
        # twistd would print its whole usage text before the reason; one line is clearer.
        # --workers starts its workers with these same options
        self.raw_args = list(sys.argv[1:] if options is None else options)
        try:
            super().parseOptions(options)
        except usage.UsageError as exc:
            raise SystemExit(f"twistd gamehall: error: {exc} (see: twistd gamehall --help)") from None

    def opt_listen(self, value: str) -> None:
        """NAME=ENDPOINT: where front end NAME listens (repeatable), e.g. netacquire=tcp:1001 or
        netacquire=ssl:1002:privateKey=key.pem:certKey=cert.pem"""
        name, sep, endpoint = value.partition("=")
        if not sep or not name or not endpoint:
            raise usage.UsageError(f"--listen wants NAME=ENDPOINT, not {value!r}")
        self["listen"].setdefault(name, []).append(endpoint)

    def opt_disable(self, name: str) -> None:
        """Do not start front end NAME (repeatable)."""
        self["disable"].add(name)

    def opt_turn_timeout(self, value: str) -> None:
        """SECONDS or GAME=SECONDS: a human's time per decision at new tables, for every game
        or for GAME (repeatable; 0: no timer; default: each game's own, e.g. acquire 300)."""
        game, sep, seconds = value.rpartition("=")
        if sep and not game:
            raise usage.UsageError(f"--turn-timeout wants SECONDS or GAME=SECONDS, not {value!r}")
        try:
            number = float(seconds)
        except ValueError:
            raise usage.UsageError(f"--turn-timeout wants SECONDS or GAME=SECONDS, not {value!r}") from None
        if not number >= 0 or number == float("inf"):
            raise usage.UsageError(f"--turn-timeout seconds must be 0 or more, not {seconds!r}")
        self["turn-timeout"][game or None] = number

    def opt_db(self, path: str) -> None:
        self["db"] = path
        self["db-given"] = True

    def postOptions(self) -> None:
        from gamehall.store import StoreError
        from gamehall.store.url import parse
        if self["store"] is not None and self.get("db-given"):
            raise usage.UsageError("give --store or --db, not both (--db PATH is short for --store sqlite:PATH)")
        try:
            self["store_url"] = parse(self["store"] if self["store"] is not None else f"sqlite:{self['db']}")
        except StoreError as exc:
            raise usage.UsageError(f"--store: {exc}") from None
        self._check_cluster()
        for name in ("max-output", "rate", "burst"):
            if self[name] < 0:
                raise usage.UsageError(f"--{name} cannot be negative")
        games = find_games()
        for game in self["turn-timeout"]:
            if game is not None and game not in games:
                raise usage.UsageError(f"--turn-timeout: unknown game {game!r}; installed: "
                                       f"{', '.join(sorted(games)) or 'none'}")
        known = find_frontends()
        for name in list(self["listen"]) + sorted(self["disable"]):
            if name not in known:
                raise usage.UsageError(f"unknown front end {name!r}; installed: {', '.join(sorted(known)) or 'none'}")
        self["frontends"] = {}
        self["defaulted"] = set()               # front ends on their default endpoint (not --listen)
        for name, front in sorted(known.items()):
            if name in self["disable"]:
                continue
            descriptions = self["listen"].get(name, [front.default_endpoint])
            self["frontends"][name] = (front, [(d, parse_endpoint(d)) for d in descriptions])
            if name not in self["listen"]:
                self["defaulted"].add(name)
        self["admin_endpoint"] = parse_endpoint(self["admin"])
        if self["workers"] is not None:
            for name, (_, endpoints) in sorted(self["frontends"].items()):
                for description, _ in endpoints:
                    _check_shareable(name, description)
            _check_shareable("admin", self["admin"])
        if not self.get("credCheckers") and not is_loopback(self["admin"]):
            raise usage.UsageError(
                f"the admin console may listen on {self['admin']!r} only with --auth (it is not a loopback address)")

    def _check_cluster(self) -> None:
        """--bus, --workers: a hall of several processes, which needs a shared store."""
        from gamehall.bus import parse_bus_url
        self["bus_address"] = None
        if self["bus"] is not None:
            try:
                self["bus_address"] = parse_bus_url(self["bus"])
            except ValueError as exc:
                raise usage.UsageError(str(exc)) from None
        for name in ("bus", "workers"):
            if self[name] is not None and self["store_url"].kind != "postgresql":
                raise usage.UsageError(f"--{name}: a hall of several processes needs a PostgreSQL store: "
                                       f"--store postgresql://... (not {self['store_url']})")
        if self["workers"] is not None:
            if self["workers"] < 2:
                raise usage.UsageError(f"--workers wants 2 or more, not {self['workers']} "
                                       "(without --workers the hall is one process)")
            if self["bus"] is None:
                raise usage.UsageError("--workers needs --bus redis://host:port/N: the workers are one hall "
                                       "through the bus")
            if self["worker-fds"] is not None:
                raise usage.UsageError("--worker-fds is set by --workers for its workers, not with it")
        self["worker_fds"] = None
        if self["worker-fds"] is not None:
            from gamehall.cluster.workers import parse_fds
            try:
                self["worker_fds"] = parse_fds(self["worker-fds"])
            except ValueError:
                raise usage.UsageError(f"--worker-fds: malformed {self['worker-fds']!r}") from None


def _check_shareable(name: str, description: str) -> None:
    from gamehall.cluster.workers import SHAREABLE
    kind = endpoint_arguments(description)[0]
    if kind == "haproxy":                       # the PROXY protocol over one of them
        kind = endpoint_arguments(description.partition(":")[2])[0]
    if kind not in SHAREABLE:
        raise usage.UsageError(f"--workers: {name} listens on {description!r}, which worker processes cannot "
                               f"share; use a {', '.join(k + ':' for k in SHAREABLE)} endpoint")


def default_admin_checker(db_path: str):
    """Without --auth, the console takes 'admin' with a password kept beside the database."""
    path = db_path + ".admin"
    if not os.path.exists(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(f"admin:{secrets.token_urlsafe(12)}\n")
    return path, FilePasswordDB(path, cache=False)


class ListeningService(Service):
    """Listens on ``endpoint`` with ``factory`` (``description`` is the endpoint string, for
    messages; ``defaulted``: the front end's default endpoint, not one chosen with --listen).

    Unlike ``StreamServerEndpointService``, it listens in ``privilegedStartService`` and a
    failure to listen there is raised, not logged: a busy port stops the start-up.  What
    the endpoint listens on comes in ``listening`` (a Deferred firing with the port)."""

    log = Logger()

    def __init__(self, endpoint, factory, description: str, defaulted: bool = False) -> None:
        self.endpoint, self.factory = endpoint, factory
        self.description, self.defaulted = description, defaulted
        self.listening = None

    def privilegedStartService(self) -> None:
        Service.privilegedStartService(self)
        self.listening = self.endpoint.listen(self.factory)
        raised_now: list = []
        starting = True

        def failed(failure) -> None:
            if starting:
                raised_now.append(failure)
            elif not failure.check(CancelledError):
                self.log.failure("cannot listen on {endpoint}", failure, endpoint=self.description)

        self.listening.addErrback(failed)
        starting = False
        if raised_now:
            raised_now[0].raiseException()

    def startService(self) -> None:
        Service.startService(self)
        if self.listening is None:
            self.privilegedStartService()

    def stopService(self):
        self.listening.cancel()
        d = self.listening.addCallback(lambda port: port.stopListening() if port is not None else None)
        return d.addBoth(self._stopped)

    def _stopped(self, passthrough):
        self.running = False
        return passthrough


#: Gen1 collections between two full ones at most (Python's default is 10); see settle_collector.
FULL_COLLECTION_EVERY = 10_000
#: Seconds between two full collections the hall runs itself (see settle_collector).
FULL_COLLECTION_SECONDS = 600.0
#: Net allocations between two young collections (Python's default is 700); see settle_collector.
YOUNG_COLLECTION_EVERY = 100
#: Seconds a thread may hold the GIL while another waits for it (Python's default is 0.005).
GIL_SWITCH_SECONDS = 0.0005


def settle_collector() -> None:
    """Set the garbage collector up for a long-running hall, once everything is loaded.

    What is loaded by now (modules, plugins, the service tree) lives as long as the
    process: ``gc.freeze`` keeps it out of the collector's passes, which would otherwise
    walk it all again at every full collection.

    A full collection walks every object the hall tracks, and stops the reactor meanwhile:
    about 150-200 ms at 1,000 NetAcquire games (about 175,000 objects: a few dozen per
    connection, a hundred or more per table, which live as long as they do).  Python has
    no smaller full collection, so the hall makes them rare.  With Python's thresholds one
    comes every 10th gen1 collection once a quarter of the old generation is new, which at
    that load is every few seconds: every table's latest snapshot and pending decision live
    until its next update (a player's think time), longer than the young generations, so
    they reach the old one.  But hardly any of the hall's objects die in reference cycles
    (at 300 NetAcquire games none: ``bench/netacquire_load.py --probe`` with
    ``PROBE_GC_GARBAGE=1``), which is all a full collection frees that reference counting
    does not; closed connections and finished tables are freed by reference counting
    (their cycles are broken where they are made, see docs/measurements.md).  So one
    comes at most every ``FULL_COLLECTION_EVERY`` gen1 collections (about an hour at
    1,000 games, about 3 gen1 collections a second), and the hall runs one itself every
    ``FULL_COLLECTION_SECONDS`` of its clock (``collect_regularly``), since what cycles are
    left pile up by time, not by allocations: one pause of that size every 10 minutes,
    the garbage of at most 10 minutes (RSS in docs/measurements.md).

    The young generation is collected after ``YOUNG_COLLECTION_EVERY`` net allocations,
    not 700: its counter goes down whenever an older object is freed (a table's previous
    snapshot, at every update), so at 1,000 NetAcquire games 700 meant some 8,000 young
    objects walked per collection (4-5 ms) and gen1 collections of ~28 ms; at 100, 0.5
    and 3.4 ms, no pause over 10 ms, and less collector time in all (docs/measurements.md).

    The GIL is handed over after ``GIL_SWITCH_SECONDS`` instead of 5 ms: the store's
    thread takes it back after every SQLite statement, and with the reactor busy each
    took up to 5 ms, so a group of writes waited tens of milliseconds (store p99 56 ms,
    36 ms at 0.5 ms; answer p99 69 ms, 46 ms; docs/measurements.md).
    """
    gc.collect()
    gc.freeze()
    _, middle, _ = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_EVERY, middle, FULL_COLLECTION_EVERY)
    sys.setswitchinterval(GIL_SWITCH_SECONDS)


def collect_regularly(clock, seconds: float = FULL_COLLECTION_SECONDS) -> LoopingCall:
    """A full collection every ``seconds`` of ``clock`` (settle_collector says why)."""
    collector = LoopingCall(gc.collect)
    collector.clock = clock
    collector.start(seconds, now=False)
    return collector


class HallService(MultiService):
    """Binds every port up front, but accepts nobody until the store is open and
    unfinished tables are restored (so a returning player always finds the seat)."""

    log = Logger()

    def __init__(self, hall: Hall | None, reactor, cluster=None) -> None:
        super().__init__()
        self.hall, self.reactor = hall, reactor
        #: with --bus: the process's ClusterProcess (connected before the store opens)
        self.cluster = cluster
        self.ports: list = []
        #: Called (each may return a Deferred) once the store is open, before restore.
        self.when_open: list = []

    def privilegedStartService(self) -> None:
        Service.privilegedStartService(self)
        for child in list(self):
            try:
                child.privilegedStartService()
            except Exception as exc:
                if getattr(child, "defaulted", False) and _permission_denied(exc):
                    self._skip(child)
                    continue
                raise SystemExit(f"twistd gamehall: error: cannot listen on {child.description}: {exc}") from None
            child.listening.addCallback(self._pause)

    def _skip(self, child) -> None:
        """A front end left on its default endpoint that needs privileges this user lacks
        (NetAcquire's port 1001 is below 1024): the hall starts without it, saying how to
        move it, so that a newcomer's plain ``twistd -n gamehall`` still opens the web page.
        An endpoint the operator chose with --listen stays fatal."""
        child.disownServiceParent()
        port = child.description.split(":")[1] if child.description.count(":") else ""
        # 10000 above a privileged port is above 1024 and keeps the port recognisable (1001 -> 11001)
        other = f"tcp:{int(port) + 10000}" if port.isdigit() else "tcp:PORT"
        text = (f"{child.name} not started: {child.description} needs root (ports below 1024); "
                f"pass e.g. --listen {child.name}={other}")
        sys.stderr.write(f"twistd gamehall: warning: {text}\n")
        self.log.warn("{text}", text=text)

    def _pause(self, port):
        port.stopReading()                      # connections wait in the backlog
        self.ports.append(port)
        return port

    def startService(self) -> None:
        Service.startService(self)
        settle_collector()
        self.collector = collect_regularly(self.reactor)
        d = self.cluster.connect() if self.cluster is not None else succeed(None)
        d.addCallback(lambda _: self.hall.store.open())
        if self.cluster is not None:
            d.addCallback(lambda _: self.cluster.bind())
        for prepare in self.when_open:
            d.addCallback(lambda _, prepare=prepare: prepare())
        if self.hall.cluster is not None:
            # in the hall before the restore, which then takes only the tables nobody runs
            d.addCallback(lambda _: self.hall.cluster.start())
        d.addCallback(lambda _: self.hall.restore())
        d.addCallback(lambda _: self._accept())
        if self.cluster is not None:
            d.addCallback(lambda _: self.cluster.announce())
        d.addErrback(self._fatal)

    def _accept(self) -> None:
        for child in self:
            child.startService()               # already listening: marks it running
            self.log.info("{name} listening on {endpoint}", name=child.name, endpoint=child.description)
            front = self.hall.frontends.get(child.name)
            line = front.greeting(child.description) if IGreetingFrontEnd.providedBy(front) else None
            if line:
                self.log.info("{name}: {line}", name=child.name, line=line)
        for port in self.ports:
            port.startReading()

    def _fatal(self, failure) -> None:
        self.log.critical("gamehall cannot start: {reason}", reason=failure.getErrorMessage())
        sys.stderr.write(f"twistd gamehall: error: cannot start: {failure.getErrorMessage()}\n")
        self.reactor.callLater(0.1, os._exit, 1)   # twistd has no other way to exit non-zero here

    def stopService(self):
        collector, self.collector = getattr(self, "collector", None), None
        if collector is not None and collector.running:
            collector.stop()
        d = super().stopService()
        d.addBoth(lambda _: self.hall.quiesce())
        if self.hall is not None and self.hall.cluster is not None:
            d.addBoth(lambda _: self.hall.cluster.stop())
        if self.cluster is not None:
            d.addBoth(lambda _: self.cluster.stop())
        d.addBoth(lambda _: self.hall.store.close())
        return d


def _permission_denied(exc: BaseException) -> bool:
    """True for a listen refused for want of privileges (EACCES), as CannotListenError wraps it."""
    cause = getattr(exc, "socketError", exc)
    return isinstance(cause, PermissionError) or getattr(cause, "errno", None) == errno.EACCES


def seed_source(options: Options) -> random.Random | None:
    """The hall's source of table seeds: fixed by ``--seed``, else None (the hall's system RNG)."""
    return None if options["seed"] is None else random.Random(options["seed"])


def makeService(options: Options):
    from twisted.internet import reactor

    from gamehall.admin import admin_factory
    from gamehall.store import StoreError, check_database
    from gamehall.store.url import make_store

    url = options["store_url"]
    if url.kind == "sqlite":
        try:
            check_database(url.target)          # before anything is written beside it
        except StoreError as exc:
            raise SystemExit(f"twistd gamehall: error: {exc}") from None
    if options["json-log"]:
        observer = jsonFileLogObserver(open(options["json-log"], "a"))
        if options["workers"] is not None:      # each worker writes its own events there
            from gamehall.cluster.workers import not_forwarded
            observer = FilteringLogObserver(observer, [not_forwarded])
        globalLogPublisher.addObserver(observer)
    if options["workers"] is not None:
        return supervisor_service(options, reactor)
    store = make_store(url, reactor)
    hall = Hall(reactor, store, find_games(), {n: f for n, (f, _) in options["frontends"].items()},
                seat_hold=options["seat-hold"], idle_timeout=options["idle-timeout"],
                max_per_peer=options["max-per-peer"], bot_delay=options["bot-delay"],
                max_output=options["max-output"], rate=options["rate"], burst=options["burst"],
                turn_timeouts=options["turn-timeout"],
                rng=seed_source(options))
    hall.shutdown_hook = lambda: reactor.callLater(0, reactor.stop)
    cluster = None
    if options["bus_address"] is not None:
        from gamehall.bus.redisbus import RedisBus
        from gamehall.cluster.process import ClusterProcess
        hall.bus = RedisBus(options["bus_address"], reactor)
        from gamehall.cluster.hallwide import join_hall
        cluster = ClusterProcess(hall, hall.bus, reactor, str(options["bus_address"]),
                                 {n: [d for d, _ in e] for n, (_, e) in options["frontends"].items()},
                                 move_bus=options["move-bus"])
        join_hall(hall, hall.bus, hall.process_id)       # hall.cluster: one hall with the others
    top = HallService(hall, reactor, cluster)
    inherited = options["worker_fds"]
    if inherited is not None:                   # a worker of --workers: adopt the main process's ports
        from gamehall.cluster.workers import stop_once_on_signals, watch_parent
        reactor.callWhenRunning(watch_parent, reactor, os.getppid())
        reactor.callWhenRunning(stop_once_on_signals, reactor)   # Ctrl-C and its main's SIGTERM
    for name, (front, endpoints) in options["frontends"].items():
        factory = front.build_factory(hall)     # one per front end: its per-peer cap spans its endpoints
        for number, (description, endpoint) in enumerate(endpoints, 1):
            service_name = name if number == 1 else f"{name}#{number}"   # service names are unique
            if inherited is not None:
                if service_name not in inherited:
                    continue                    # the main process could not open it (see _skip)
                endpoint = _inherited(reactor, inherited[service_name], description, endpoint)
            service = ListeningService(endpoint, factory, description, name in options["defaulted"])
            service.setName(service_name)
            service.setServiceParent(top)
    checkers = _admin_checkers(options, store, top)
    endpoint = options["admin_endpoint"]
    if inherited is not None:
        endpoint = _inherited(reactor, inherited["admin"], options["admin"], endpoint)
    admin = ListeningService(endpoint, admin_factory(hall, checkers), options["admin"])
    admin.setName("admin")
    admin.setServiceParent(top)
    return top


def _admin_checkers(options: Options, store, top: HallService) -> list:
    url = options["store_url"]
    checkers = options.get("credCheckers") or []
    if not checkers and url.kind == "sqlite":
        path, checker = default_admin_checker(url.target)
        Logger().info("admin console: no --auth given; credentials are in {path}", path=path)
        checkers = [checker]
    elif not checkers:
        from gamehall.store.admin import StoreAdminChecker
        checker = StoreAdminChecker(store)
        top.when_open.append(checker.ensure_password)
        Logger().info("admin console: no --auth given; credentials are kept in the store "
                      "(gamehall-store admin {url} shows them)", url=str(url))
        checkers = [checker]
    return checkers


def _inherited(reactor, fd_family: tuple[int, int], description: str, endpoint):
    """The endpoint adopting a listening socket the main process of --workers opened,
    speaking what the endpoint string says over it: TLS (ssl:) with its certificate, the
    PROXY protocol (haproxy:), as the endpoint itself would."""
    from gamehall.cluster.workers import InheritedPortEndpoint
    proxied = endpoint_arguments(description)[0] == "haproxy"
    if proxied:                                 # haproxy:INNER: the PROXY protocol over INNER
        description, endpoint = description.partition(":")[2], endpoint._wrappedEndpoint
    tls = endpoint._sslContextFactory if endpoint_arguments(description)[0] == "ssl" else None
    inherited = InheritedPortEndpoint(reactor, *fd_family, tls=tls)
    if proxied:
        from twisted.protocols.haproxy import proxyEndpoint
        return proxyEndpoint(inherited)
    return inherited


def supervisor_service(options: Options, reactor):
    """--workers N: this process opens the ports, ties the store to the bus once, then
    starts and supervises N workers (gamehall.cluster.workers)."""
    from twisted.internet.protocol import Factory, Protocol

    from gamehall.bus.redisbus import RedisBus
    from gamehall.cluster.binding import bind
    from gamehall.cluster.workers import (Supervisor, format_fds, stop_once_on_signals, strip_supervisor_args,
                                          worker_command)
    from gamehall.store.url import make_store

    opener = HallService(None, reactor)         # opens and pauses the ports; accepts on none
    never = Factory.forProtocol(Protocol)       # the workers accept, this process never does
    for name, (_, endpoints) in options["frontends"].items():
        for number, (description, endpoint) in enumerate(endpoints, 1):
            service = ListeningService(endpoint, never, description, name in options["defaulted"])
            service.setName(name if number == 1 else f"{name}#{number}")
            service.setServiceParent(opener)
    admin = ListeningService(options["admin_endpoint"], never, options["admin"])
    admin.setName("admin")
    admin.setServiceParent(opener)

    @inlineCallbacks
    def prepare():
        bus = RedisBus(options["bus_address"], reactor)
        store = make_store(options["store_url"], reactor)
        yield bus.start()
        try:
            yield store.open()
            yield bind(store, bus, reactor, str(options["bus_address"]), move=options["move-bus"])
            if not options.get("credCheckers"):  # the admin password, made once, not by each worker
                from gamehall.store.admin import StoreAdminChecker
                yield StoreAdminChecker(store).ensure_password()
        finally:
            yield store.close()
            yield bus.stop()

    args = strip_supervisor_args(options.raw_args)
    reactor.callWhenRunning(stop_once_on_signals, reactor)      # SIGTERM twice: one stop
    return Supervisor(reactor, options["workers"],
                      lambda fds: worker_command([*args, "--worker-fds", format_fds(fds)]),
                      prepare, opener)
