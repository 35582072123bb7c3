"""gamehall.cluster.workers.Supervisor on a fake reactor: restarts with backoff, stopping,
the workers' log lines in the main log."""
from __future__ import annotations

from twisted.internet.error import ProcessDone, ProcessTerminated
from twisted.internet.task import Clock
from twisted.logger import formatEvent
from twisted.python.failure import Failure

from gamehall.cluster.workers import Supervisor, format_fds, parse_fds, strip_supervisor_args
from gamehall.tap import HallService


class Transport:
    def __init__(self, pid):
        self.pid, self.signals = pid, []

    def closeStdin(self):
        pass

    def signalProcess(self, name):
        self.signals.append(name)


class Reactor(Clock):
    def __init__(self):
        super().__init__()
        self.spawned = []

    def spawnProcess(self, proto, executable, args, env, childFDs):
        self.spawned.append((proto, args, childFDs))
        proto.makeConnection(Transport(1000 + len(self.spawned)))
        return proto.transport


def started(count=2):
    reactor = Reactor()
    supervisor = Supervisor(reactor, count, lambda fds: ["python", "worker", format_fds(fds)],
                            lambda: None, HallService(None, reactor))
    supervisor.fds = {"nim": (7, 2), "admin": (8, 1)}
    supervisor.startService()
    return reactor, supervisor


def end(proto, signal=None):
    proto.processEnded(Failure(ProcessTerminated(signal=signal) if signal else ProcessDone(0)))


def test_every_worker_gets_the_listening_sockets():
    reactor, _ = started()
    assert len(reactor.spawned) == 2
    for _, args, child_fds in reactor.spawned:
        assert child_fds == {0: "w", 1: "r", 2: "r", 7: 7, 8: 8}
        assert parse_fds(args[-1]) == {"nim": (7, 2), "admin": (8, 1)}


def test_a_dead_worker_is_started_again_later_and_later_while_it_dies_young(logged):
    reactor, supervisor = started()
    first = reactor.spawned[0][0]
    end(first, signal=9)
    assert "worker 1 (pid 1001) ended by signal 9; starting it again in 1s" in [formatEvent(e) for e in logged]
    reactor.advance(0.9)
    assert len(reactor.spawned) == 2
    reactor.advance(0.1)
    assert len(reactor.spawned) == 3 and reactor.spawned[2][0].number == 1
    end(reactor.spawned[2][0], signal=9)         # died young again: twice the wait
    reactor.advance(1.9)
    assert len(reactor.spawned) == 3
    reactor.advance(0.1)
    assert len(reactor.spawned) == 4
    reactor.advance(60)                          # this one lived: back to a short wait
    end(reactor.spawned[3][0])
    reactor.advance(1)
    assert len(reactor.spawned) == 5


def test_stopping_signals_the_workers_and_waits_for_them():
    reactor, supervisor = started()
    end(reactor.spawned[0][0], signal=9)         # a restart pending when the stop comes
    stopped = supervisor.stopService()
    fired = []
    stopped.addCallback(fired.append)
    running = reactor.spawned[1][0]
    assert running.transport.signals == ["TERM"] and not fired
    end(running, signal=15)
    assert fired
    reactor.advance(60)
    assert len(reactor.spawned) == 2             # nothing started again


def test_a_worker_that_will_not_stop_is_killed():
    reactor, supervisor = started(2)
    supervisor.stopService()
    reactor.advance(30)
    assert all(p.transport.signals == ["TERM", "KILL"] for p, _, _ in reactor.spawned)


def test_worker_log_lines_reach_the_main_log_at_their_level(logged):
    reactor, _ = started(2)
    worker = reactor.spawned[0][0]
    worker.childDataReceived(1, b"2026-11-28T18:46:32+0000 [gamehall.tap.HallService#warn] nim list")
    worker.childDataReceived(1, b"ening\nTraceback (most recent call last):\n")
    worker.childDataReceived(2, b"twistd gamehall: error: cannot start: no\n")
    lines = [(e["log_level"].name, formatEvent(e)) for e in logged if e.get("worker_line")]
    assert lines == [("warn", "worker 1 [pid 1001] [gamehall.tap.HallService] nim listening"),
                     ("warn", "worker 1 [pid 1001] Traceback (most recent call last):"),
                     ("warn", "worker 1 [pid 1001] twistd gamehall: error: cannot start: no")]


def test_the_workers_options_are_the_main_process_s_but_its_own():
    assert strip_supervisor_args(["--store", "postgresql://x", "--workers", "3", "--move-bus",
                                  "--workers=4", "--bus", "redis://h/0"]) == \
        ["--store", "postgresql://x", "--bus", "redis://h/0"]
