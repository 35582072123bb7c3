"""``--workers N``: one machine's share of a hall, as N worker processes on shared ports.

The main process opens every listening port once (each front end's and the admin
console's, with the privileges it may have), never accepts on them, and starts N
workers with ``reactor.spawnProcess``, handing each the listening sockets as inherited
file descriptors (``childFDs``).  A worker is a full hall process (``twistd gamehall``
with the same options, its own process id on the bus) that adopts them with
``reactor.adoptStreamPort``; the kernel gives each incoming connection to whichever
worker accepts it first.  The main process supervises: it forwards the workers' log
lines to its own log, starts a worker that died again after a short backoff, and on
SIGTERM/SIGINT stops them all and waits for them.
"""
from __future__ import annotations

import os
import re
import signal
import socket
import sys

from twisted.application.service import Service
from twisted.internet import defer, error, protocol, task, tcp, unix
from twisted.internet.interfaces import IStreamServerEndpoint
from twisted.logger import InvalidLogLevelError, Logger, LogLevel, PredicateResult
from zope.interface import implementer

#: endpoint kinds whose listening socket a worker can adopt (TLS: a TCP socket, the
#: worker wrapping it with the endpoint's certificate as ``listenSSL`` does; and
#: ``haproxy:`` in front of any of them)
SHAREABLE = ("tcp", "tcp6", "ssl", "unix")
#: seconds before a dead worker is started again; doubled while workers die young
BACKOFF_FIRST, BACKOFF_MAX, YOUNG = 1.0, 30.0, 10.0
#: seconds the workers get to stop before they are killed
STOP_GRACE = 30.0
#: a twistd text log line: time, [namespace#level], text
_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\S+ \[([^\]]*)\] (.*)$")

log = Logger(namespace="gamehall.cluster.workers")


def strip_supervisor_args(args: list[str]) -> list[str]:
    """The gamehall options a worker gets: the main process's, without what only the main
    process does (``--workers``, and ``--move-bus``: the main process has tied the store
    to the bus already)."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--workers":
            skip = True
        elif not (arg.startswith("--workers=") or arg == "--move-bus"):
            out.append(arg)
    return out


def format_fds(fds: dict[str, tuple[int, int]]) -> str:
    return ",".join(f"{name}={fd}/{family}" for name, (fd, family) in sorted(fds.items()))


def parse_fds(text: str) -> dict[str, tuple[int, int]]:
    """``NAME=FD/FAMILY,...`` (``--worker-fds``) -> {service name: (fd, address family)};
    ValueError when malformed."""
    fds = {}
    for item in filter(None, text.split(",")):
        name, _, rest = item.partition("=")
        fd, _, family = rest.partition("/")
        fds[name] = (int(fd), int(family))
    return fds


class _SharedUnixPort(unix.Port):
    """A UNIX socket adopted from the main process: closing it in a worker must neither
    remove the socket file nor shut the socket down, which the main process and the other
    workers still serve.  (Twisted's own adoption of a UNIX socket does both: its
    ``_shouldShutdown`` is cleared for adopted TCP sockets only.)"""

    _shouldShutdown = False

    def connectionLost(self, reason):
        tcp.Port.connectionLost(self, reason)


@implementer(IStreamServerEndpoint)
class InheritedPortEndpoint:
    """An endpoint whose ``listen`` adopts the listening socket at ``fd`` (inherited from
    the main process); with ``tls`` (the ssl: endpoint's context factory) its connections
    speak TLS (``twisted.protocols.haproxy.proxyEndpoint`` may wrap it, for haproxy:)."""

    def __init__(self, reactor, fd: int, family: int, tls=None) -> None:
        self.reactor, self.fd, self.family, self.tls = reactor, fd, family, tls

    def listen(self, factory):
        if self.tls is not None:
            from twisted.protocols.tls import TLSMemoryBIOFactory
            factory = TLSMemoryBIOFactory(self.tls, False, factory)
        try:
            if self.family == socket.AF_UNIX:
                port = _SharedUnixPort._fromListeningDescriptor(self.reactor, self.fd, factory)
                port.startListening()
            else:
                port = self.reactor.adoptStreamPort(self.fd, self.family, factory)
        except Exception:
            return defer.fail()
        os.close(self.fd)                       # the port holds its own duplicate
        return defer.succeed(port)


def not_forwarded(event) -> PredicateResult:
    """A filter of the main process's --json-log: a worker's line comes as text to the main
    log, but each worker writes its own events, whole, to the JSON log."""
    return PredicateResult.no if event.get("worker_line") else PredicateResult.maybe


def watch_parent(reactor, parent: int, every: float = 1.0) -> task.LoopingCall:
    """A worker stops when its main process is gone (killed without a chance to stop it):
    it would otherwise serve on, unsupervised, on ports nobody can take back."""
    def check():
        if os.getppid() != parent:
            log.warn("the main process {pid} is gone; this worker stops", pid=parent)
            loop.stop()
            reactor.stop()

    loop = task.LoopingCall(check)
    loop.clock = reactor
    loop.start(every, now=False)
    return loop


def stop_once_on_signals(reactor) -> None:
    """SIGTERM or SIGINT while the process already stops (a second Ctrl-C, a service
    manager's SIGTERM again, Ctrl-C reaching a worker as well as its main process's
    SIGTERM): said in the log, and the stop goes on.  The reactor's own handler would call
    ``reactor.stop()`` again, which raises ``ReactorNotRunning`` (a traceback in the log).
    Called once the reactor runs (its handlers are installed then); the first signal still
    goes to the reactor's handler (twistd ends by it)."""
    stopping: list[str] = []
    reactor.addSystemEventTrigger("before", "shutdown", stopping.append, "shutdown")
    for number in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(number)
        if not callable(previous):
            continue                        # not the reactor's (ignored, or the default)

        def handler(signum, frame, previous=previous) -> None:
            if stopping:
                log.info("{signal} again: already stopping", signal=signal.Signals(signum).name)
                return
            stopping.append("signal")
            previous(signum, frame)
        signal.signal(number, handler)


class WorkerProcess(protocol.ProcessProtocol):
    """One worker, seen from the main process: its output goes to the main log."""

    def __init__(self, supervisor: "Supervisor", number: int) -> None:
        self.supervisor, self.number = supervisor, number
        self.pid = None
        self.started = supervisor.reactor.seconds()
        self.ended = defer.Deferred()
        self._partial = {1: b"", 2: b""}
        self._level = LogLevel.info

    def connectionMade(self) -> None:
        self.pid = self.transport.pid
        self.transport.closeStdin()
        log.info("worker {n} started (pid {pid})", n=self.number, pid=self.pid)

    def childDataReceived(self, fd: int, data: bytes) -> None:
        lines = (self._partial.get(fd, b"") + data).split(b"\n")
        self._partial[fd] = lines.pop()
        for raw in lines:
            self._forward(fd, raw.decode("utf-8", "replace").rstrip("\r"))

    def _forward(self, fd: int, line: str) -> None:
        if not line.strip():
            return
        match = _LINE.match(line)
        if match:                                # a log line: its level, without its time
            source, text = match.groups()
            namespace, _, level = source.partition("#")
            try:
                self._level = LogLevel.levelWithName(level or "info")
            except InvalidLogLevelError:
                self._level = LogLevel.info
            text = f"[{namespace}] {text}"
        else:                                    # a continuation (traceback) or stderr
            text = line
            if fd == 2:
                self._level = LogLevel.warn
        log.emit(self._level, "worker {n} [pid {pid}] {text}", n=self.number, pid=self.pid, text=text,
                 worker_line=True)

    def processEnded(self, reason) -> None:
        for fd, rest in self._partial.items():
            if rest:
                self._forward(fd, rest.decode("utf-8", "replace"))
        self.supervisor.ended(self, reason)
        self.ended.callback(None)


class Supervisor(Service):
    """The main process of ``--workers``: its children are the listening services (opened
    by ``ports``, never accepting); ``prepare`` (a Deferred) runs once before any worker
    starts (connecting to the bus and tying the store to it: a refusal stops everything
    here, once, instead of in every worker); ``argv(fds)`` is a worker's command line."""

    def __init__(self, reactor, count: int, argv, prepare, ports) -> None:
        self.reactor, self.count, self.argv, self.prepare = reactor, count, argv, prepare
        self.ports = ports                      # a HallService-like opener of the listening ports
        self.fds: dict[str, tuple[int, int]] = {}
        self.workers: dict[int, WorkerProcess] = {}
        self.delays: dict[int, float] = {}
        self.pending: dict[int, object] = {}    # number -> IDelayedCall of a restart
        self.stopping = False

    def privilegedStartService(self) -> None:
        Service.privilegedStartService(self)
        self.ports.privilegedStartService()
        for child in self.ports:
            child.listening.addCallback(self._record, child.name)

    def _record(self, port, name):
        self.fds[name] = (port.fileno(), port.addressFamily)
        return port

    def startService(self) -> None:
        Service.startService(self)
        d = defer.maybeDeferred(self.prepare)
        d.addCallback(lambda _: self._start_all())
        d.addErrback(self.ports._fatal)

    def _start_all(self) -> None:
        for child in self.ports:
            log.info("{name} listening on {endpoint} (served by {count} workers)",
                     name=child.name, endpoint=child.description, count=self.count)
        for number in range(1, self.count + 1):
            self._spawn(number)

    def _spawn(self, number: int) -> None:
        self.pending.pop(number, None)
        if self.stopping:
            return
        worker = WorkerProcess(self, number)
        child_fds = {0: "w", 1: "r", 2: "r"}
        for fd, _ in self.fds.values():
            child_fds[fd] = fd
        argv = self.argv(self.fds)
        self.workers[number] = worker
        self.reactor.spawnProcess(worker, argv[0], argv, env=dict(os.environ), childFDs=child_fds)

    def ended(self, worker: WorkerProcess, reason) -> None:
        if self.workers.get(worker.number) is worker:
            del self.workers[worker.number]
        how = _how_it_ended(reason)
        if self.stopping:
            log.info("worker {n} (pid {pid}) stopped: {how}", n=worker.number, pid=worker.pid, how=how)
            return
        lived = self.reactor.seconds() - worker.started
        delay = self.delays.get(worker.number, BACKOFF_FIRST)
        delay = min(delay * 2, BACKOFF_MAX) if lived < YOUNG and worker.number in self.delays else BACKOFF_FIRST
        self.delays[worker.number] = delay
        log.warn("worker {n} (pid {pid}) {how}; starting it again in {delay:g}s",
                 n=worker.number, pid=worker.pid, how=how, delay=delay)
        self.pending[worker.number] = self.reactor.callLater(delay, self._spawn, worker.number)

    def stopService(self):
        self.stopping = True
        Service.stopService(self)
        for call in self.pending.values():
            if call.active():
                call.cancel()
        self.pending.clear()
        running = list(self.workers.values())
        for worker in running:
            _signal(worker, "TERM")
        kill = self.reactor.callLater(STOP_GRACE, lambda: [_signal(w, "KILL") for w in running])
        d = defer.DeferredList([w.ended for w in running])

        def all_ended(_):
            if kill.active():
                kill.cancel()
            return defer.DeferredList([defer.maybeDeferred(c.stopService) for c in self.ports])

        return d.addCallback(all_ended)


def _signal(worker: WorkerProcess, name: str) -> None:
    try:
        worker.transport.signalProcess(name)
    except error.ProcessExitedAlready:
        pass


def _how_it_ended(reason) -> str:
    value = reason.value
    if getattr(value, "signal", None):
        return f"ended by signal {value.signal}"
    return f"exited with code {getattr(value, 'exitCode', '?')}"


def worker_command(args: list[str]) -> list[str]:
    """The command line of a worker: this Python running twistd on ``args``."""
    return [sys.executable, "-c", "from twisted.scripts.twistd import run; run()",
            "--nodaemon", "--pidfile=", "gamehall", *args]
