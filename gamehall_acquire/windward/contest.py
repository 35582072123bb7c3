"""``gamehall-windward``: run a Windward contest server, as the original ``acquire.exe /a`` and ``/t``.

    gamehall-windward auto --games N --scores FILE.xml [NAME ...]
    gamehall-windward test NAME

``auto`` listens on port 1707 (``--port``), accepts only the named clients,
and as soon as all of them have joined fills the other seats with the
server's AIs and plays N games at full speed (the first player rotating).
Then it writes ``<players><player name="..." total="...">s1;s2;...</player>
...</players>`` (every seat, in seat order), sends ``<exit/>`` to every
client and exits 0.  With no NAME the six seats are AIs (a progress bar on
stderr when it is a terminal, or with ``--progress``).  ``--records DIR``
writes each game's record (``game-NN.json``, replayable with
``gamehall_acquire.windward.rules.game_from_record``).

``test`` waits for the client NAME, sends it ``setup``, waits for
``<ready/>``, sends ``<exit/>`` and exits 0; it exits 1 with one line on
stderr if the client does not join and answer within ``--timeout`` seconds,
or sends anything but ``ready``.

Both print on stderr what the clients do: joins and refused joins (with the
name sent), disconnections, late, unknown and unreadable replies, timeouts
(each kind at most 20 lines per client, then only counted), and at the end
each client's counters.  ``test`` says when a client joined under another
name than NAME.

Both run the hall's own ``windward`` front end, table and store code in this
process (an in-memory store, or ``--db FILE`` for SQLite).  Exit status 1 for
a run that failed, 2 for bad arguments.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import TextIO
from xml.sax.saxutils import escape, quoteattr

from gamehall_acquire.cli import Progress, positive_int

PROG = "gamehall-windward"


def scores_xml(names: list[str], scoreboards: list[list[int]]) -> str:
    """The results file: every seat, in seat order, with its per-game scores and total."""
    rows = "".join(f"<player name={quoteattr(n)} total=\"{sum(b)}\">{escape(''.join(f'{v};' for v in b))}</player>"
                   for n, b in zip(names, scoreboards))
    return f"<players>{rows}</players>\n"


LINES_PER_KIND = 20         # lines per client and kind of event; later ones are only counted


class ClientReport:
    """The service's ``on_client`` callback: one line on ``err`` per thing a client does."""

    def __init__(self, err: TextIO, expected: tuple = ()) -> None:
        from gamehall.connection import client_text
        self.err, self.expected, self.text = err, expected, client_text
        self.seen: dict = {}                 # name -> Contestant, in join order
        self.lines: dict = {}                # (name, kind) -> lines printed
        self.other_names: list = []          # names refused because they are not the expected ones
        self._counted = False

    def say(self, line: str) -> None:
        print(f"{PROG}: {line}", file=self.err, flush=True)

    def __call__(self, event: str, contestant, detail) -> None:
        line = self.describe(event, contestant, detail)
        if line is None:
            return
        if contestant is None:
            self.say(line)
            return
        key = (contestant.name, event)
        n = self.lines[key] = self.lines.get(key, 0) + 1
        if n <= LINES_PER_KIND:
            self.say(line)
        if n == LINES_PER_KIND:
            self.say(f"{self.text(contestant.name)}: further '{event}' events are only counted")

    def describe(self, event: str, c, detail) -> str | None:
        t = self.text
        if event == "refused":
            sent = detail.get("name")
            peer = detail.get("peer") or "?"
            if sent is None:
                return f"refused a connection from {peer}: {t(detail.get('why', ''))}"
            line = f"refused a join as {t(repr(sent))} from {peer}: {t(detail.get('why', ''))}"
            if self.expected and sent not in self.expected:
                self.other_names.append(sent)
                near = [n for n in self.expected if sent.strip().casefold() == n.casefold()]
                line += f" (waiting for {t(repr(near[0]))}: names must match exactly)" if near else \
                    f" (waiting for {', '.join(t(repr(n)) for n in self.expected)})"
            return line
        name = t(c.name)
        if event == "joined":
            self.seen.setdefault(c.name, c)
            return f"{name} joined ({t(c.language) or '?'}, {t(c.school) or 'no school'}) from " \
                   f"{getattr(c.protocol, 'peer', '?')}"
        if event == "rejoined":
            self.seen.setdefault(c.name, c)
            return f"{name} joined again from {getattr(c.protocol, 'peer', '?')}"
        if event == "lost":
            return f"{name} disconnected"
        if event == "timeout":
            return f"{name}: no reply to {self.query(detail.get('kind'))} within {detail.get('after') or 0:.2f} s; " \
                   "the default was played"
        if event == "late":
            return f"{name}: late reply to {self.query(detail['kind'])}, {detail['after']:.2f} s after it was sent (ignored)"
        if event == "stale":
            return f"{name}: reply with an unknown msg-id {t(repr(detail.msg_id), 60)} (ignored)"
        if event == "malformed":
            return f"{name}: unreadable message: {t(detail, 120)} (ignored)"
        if event == "unexpected":
            return f"{name}: unexpected <{t(getattr(detail, 'tag', type(detail).__name__.lower()), 40)}> (ignored)"
        return None                          # ready, reply: in the counters

    @staticmethod
    def query(kind) -> str:
        from .rules import QUERY_OF_KIND
        return QUERY_OF_KIND.get(kind, "a query")

    def counters(self) -> None:
        """Each client's counters, once."""
        if self._counted:
            return
        self._counted = True
        for name, c in self.seen.items():
            st = c.stats
            self.say(f"{self.text(name)}: {st['joins']} join(s), {st['queries']} queries, {st['replies']} replies, "
                     f"{st['timeouts']} timeouts, {st['late']} late, {st['stale'] - st['late']} unknown msg-id, "
                     f"{st['malformed']} unreadable, {st['unexpected']} unexpected, {st['defaults']} defaults "
                     "played while disconnected")


def _write_atomic(path: str, text: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


class Runner:
    """One run on the global reactor; ``status`` is the exit status once the reactor stops."""

    def __init__(self, args: argparse.Namespace, err: TextIO, out: TextIO):
        from twisted.internet import reactor
        from gamehall.hall import Hall
        from gamehall.store import MemoryStore, SQLiteStore
        from .game import WindwardAcquireGame
        from .wire.service import Settings
        from .wire.protocol import build_factory

        self.args, self.err, self.out, self.reactor = args, err, out, reactor
        self.status = 1
        self.store = SQLiteStore(args.db, reactor) if args.db else MemoryStore(reactor)
        self.hall = Hall(reactor, self.store, {"windward": WindwardAcquireGame()}, {},
                         seat_hold=0.0, bot_delay=0.0, idle_timeout=0.0, max_per_peer=0)
        names = tuple(args.names) if args.command == "auto" else (args.name,)
        self.settings = Settings(
            games=args.games if args.command == "auto" else 1,
            turn_timeout=args.turn_timeout, ready_grace=args.ready_grace if args.command == "auto" else None,
            fill_bot=args.fill_bot, bot_delay=0.0, allow=names or None, single=True, seed=args.seed)
        self.factory = build_factory(self.hall, self.settings)
        self.service = self.factory.service
        self.report = ClientReport(err, names if args.command == "test" else ())
        self.service.on_client = self.report
        self.port = None
        self._stopping = False

    # -- lifecycle ---------------------------------------------------------
    def run(self) -> int:
        from twisted.internet.endpoints import TCP4ServerEndpoint
        d = self.store.open()
        d.addCallback(lambda _: TCP4ServerEndpoint(self.reactor, self.args.port, interface=self.args.interface)
                      .listen(self.factory))
        d.addCallbacks(self._listening, self._cannot_listen)
        self.reactor.run()
        return self.status

    def _cannot_listen(self, failure) -> None:
        self.fail(f"cannot listen on port {self.args.port}: {failure.getErrorMessage()}")

    def _listening(self, port) -> None:
        self.port = port
        self.started()

    def fail(self, message: str) -> None:
        self.report.counters()                  # the error stays the last line
        print(f"{PROG}: error: {message}", file=self.err)
        self.stop(1)

    def stop(self, status: int) -> None:
        """Stop once every client connection has closed (so <exit/> is delivered), 3 s at most."""
        if self._stopping:
            return
        self._stopping = True
        self.status = status
        self.report.counters()
        for match in list(self.service.matches.values()):
            match.stop("The contest server is stopping")
        deadline = time.monotonic() + 3.0

        def check():
            if self.hall.stats.connections["windward"] <= 0 or time.monotonic() > deadline:
                d = self.port.stopListening() if self.port is not None else None
                self.reactor.callLater(0, self._stop_reactor)
                return d
            self.reactor.callLater(0.02, check)
        self.reactor.callLater(0, check)

    def _stop_reactor(self) -> None:
        d = self.store.close()
        d.addBoth(lambda _: self.reactor.stop())

    def started(self) -> None:
        raise NotImplementedError


class AutoRunner(Runner):
    def started(self) -> None:
        args = self.args
        self.progress = Progress(self.err, args.games, args.progress or (self.err.isatty() and not args.quiet))
        if args.records:
            os.makedirs(args.records, exist_ok=True)
        self.service.on_game_finished = self._game_finished
        self.service.on_match_over = self._match_over
        if not args.names:
            self.service.start()
        else:
            print(f"{PROG}: waiting on port {args.port} for {', '.join(args.names)}", file=self.err)
            if args.join_timeout:
                self.reactor.callLater(args.join_timeout, self._join_timeout)

    def _join_timeout(self) -> None:
        if self.service.matches or self.service.finished:
            if any(m.state != "joining" for m in list(self.service.matches.values()) + self.service.finished):
                return
        missing = [n for n in self.args.names if n.casefold() not in self.service.contestants]
        self.fail(f"not every client joined within {self.args.join_timeout:g} s (missing: {', '.join(missing)})")

    def _game_finished(self, match, k: int, table) -> None:
        if self.args.records:
            path = os.path.join(self.args.records, f"game-{k + 1:02d}.json")
            _write_atomic(path, json.dumps(table.engine.record(), indent=1) + "\n")
        self.progress.update(k + 1)

    def _match_over(self, match) -> None:
        self.progress.close()
        if match.state != "finished":
            self.fail(f"the series ended early ({match.state})")
            return
        boards = [match.series.scoreboard(s) for s in range(len(match.names))]
        try:
            _write_atomic(self.args.scores, scores_xml(match.names, boards))
        except OSError as exc:
            self.fail(f"cannot write {self.args.scores}: {exc.strerror or exc}")
            return
        width = max(len(n) for n in match.names)
        for name, board in zip(match.names, boards):
            print(f"{name:<{width}}  {sum(board):>8}  {';'.join(map(str, board))}", file=self.out)
        self.stop(0)


class TestRunner(Runner):
    def started(self) -> None:
        self.service.on_client = self._client
        self.joined = False
        print(f"{PROG}: waiting on port {self.args.port} for {self.args.name}", file=self.err)
        self._timer = self.reactor.callLater(self.args.timeout, self._timeout)

    def _timeout(self) -> None:
        what = "answer setup with ready" if self.joined else "join"
        others = self.report.other_names
        also = ""
        if others and not self.joined:
            also = f"; a client joined as {', '.join(self.report.text(repr(n), 60) for n in others[-3:])} instead"
        self.fail(f"{self.args.name} did not {what} within {self.args.timeout:g} s{also}")

    def _client(self, event: str, contestant, detail) -> None:
        if self._stopping:
            return
        self.report(event, contestant, detail)
        if contestant is None or contestant.name != self.args.name:
            return
        if event == "joined":
            self.joined = True
        elif event == "ready":
            if self._timer.active():
                self._timer.cancel()
            print(f"{PROG}: {self.args.name} answered setup with ready", file=self.err)
            self.stop(0)
        elif event in ("malformed", "unexpected", "stale", "reply"):
            if self._timer.active():
                self._timer.cancel()
            what = {"malformed": f"unreadable XML ({detail})", "unexpected": f"<{getattr(detail, 'tag', '?')}>",
                    "stale": "a reply (no query was sent)", "reply": "a reply"}[event]
            self.fail(f"{self.args.name} answered setup with {what} instead of <ready/>")
        elif event == "lost":
            if self._timer.active():
                self._timer.cancel()
            self.fail(f"{self.args.name} disconnected before answering setup")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0: {text}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p):
        p.add_argument("--port", type=_port, default=1707, help="TCP port (default 1707, the clients' own)")
        p.add_argument("--interface", default="", help="address to listen on (default: all)")
        p.add_argument("--db", metavar="FILE", help="SQLite store (default: in memory)")
        p.add_argument("--seed", type=int, help="seed of the series (default: random)")
        p.add_argument("--fill-bot", default="simple", choices=("simple", "strong"),
                       help="the server's AIs (default simple: the contest's brain-dead AI)")
        p.add_argument("--turn-timeout", type=_seconds, default=None, metavar="S",
                       help="seconds a client has to answer a query (default 5)")

    p = sub.add_parser("auto", help="play a series with the named clients; write the scores",
                       description="Wait for the named clients, then play N games at full speed with AIs "
                                   "in the empty seats, write the scores, send exit, exit 0.")
    p.add_argument("names", nargs="*", metavar="NAME", help="client names to accept (none: AIs only)")
    p.add_argument("--games", type=positive_int, default=1, help="games in the series (default 1)")
    p.add_argument("--scores", required=True, metavar="FILE.xml", help="where to write the scores")
    p.add_argument("--records", metavar="DIR", help="write each game's record to DIR/game-NN.json")
    p.add_argument("--ready-grace", type=_seconds, default=2.0, metavar="S",
                   help="seconds game 1 waits for ready from every client (default 2)")
    p.add_argument("--join-timeout", type=_seconds, default=None, metavar="S",
                   help="give up (exit 1) if the clients have not all joined by then (default: wait)")
    p.add_argument("--progress", action="store_true", help="progress bar on stderr even when not a terminal")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    common(p)

    p = sub.add_parser("test", help="check that client NAME joins and answers setup",
                       description="Wait for client NAME, send setup, wait for ready, send exit; exit 0, "
                                   "or 1 with a one-line reason.")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--timeout", type=_seconds, default=30.0, metavar="S",
                   help="seconds to wait for the join and the ready (default 30)")
    common(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``gamehall-windward``; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.command == "auto" and len(set(n.casefold() for n in args.names)) != len(args.names):
        print(f"{PROG}: error: a name is listed twice", file=sys.stderr)
        return 2
    if args.command == "auto" and len(args.names) > 6:
        print(f"{PROG}: error: at most 6 players", file=sys.stderr)
        return 2
    runner = (AutoRunner if args.command == "auto" else TestRunner)(args, sys.stderr, sys.stdout)
    try:
        return runner.run()
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
