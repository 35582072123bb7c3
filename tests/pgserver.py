"""A throwaway PostgreSQL server for the store tests: one per test process (so one per
pytest-xdist worker), a fresh database per test.

The server runs from Debian's packages (/usr/lib/postgresql/*/bin), in a data directory
in a temporary folder, listening on 127.0.0.1 on a free port and on a Unix socket in that
folder; fsync is off (a test never outlives a machine crash).  PostgreSQL refuses to run
as root, so under root (as CI is) the folder belongs to the ``postgres`` user and the
server runs as that user.  It is stopped and removed when the process exits.

Without PostgreSQL the tests that need it are skipped, saying why, except under CI
(``CI=true``), where they fail: CI installs PostgreSQL and must run them.
"""
from __future__ import annotations

import atexit
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import unittest

_lock = threading.Lock()
_server: "PgServer | None" = None
_databases = 0


def find_bindir() -> str | None:
    """The newest /usr/lib/postgresql/N/bin holding initdb and pg_ctl (or PATH's)."""
    found = []
    for bindir in glob.glob("/usr/lib/postgresql/*/bin"):
        if os.access(os.path.join(bindir, "initdb"), os.X_OK) and os.access(
                os.path.join(bindir, "pg_ctl"), os.X_OK):
            version = os.path.basename(os.path.dirname(bindir))
            found.append((int(version) if version.isdigit() else 0, bindir))
    if found:
        return max(found)[1]
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return os.path.dirname(initdb)
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    """One PostgreSQL instance in a temporary folder."""

    USER = "gamehall"                           # the database superuser initdb creates

    def __init__(self, bindir: str) -> None:
        self.bindir = bindir
        # In /tmp, not $TMPDIR: the postgres user must reach it (a TMPDIR under /root would
        # not do), and the Unix socket's path must stay short (107 bytes at most).
        self.folder = tempfile.mkdtemp(prefix="gamehall-pg-", dir="/tmp" if os.path.isdir("/tmp") else None)
        self.data = os.path.join(self.folder, "data")
        self.sockets = os.path.join(self.folder, "sockets")
        os.mkdir(self.sockets)
        self.port = free_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:                   # PostgreSQL will not run as root
            import pwd
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root, and there is no 'postgres' user to run PostgreSQL as") from None
            for path in (self.folder, self.sockets):
                os.chown(path, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", self.data, "-U", self.USER, "-A", "trust", "-E", "UTF8",
                  "--no-sync", "--no-instructions" if self._has_no_instructions() else "-N")
        self.running = False

    def _has_no_instructions(self) -> bool:
        out = subprocess.run([os.path.join(self.bindir, "initdb"), "--help"], capture_output=True, text=True)
        return "--no-instructions" in out.stdout

    def _run(self, program: str, *args: str) -> str:
        out = subprocess.run(self.as_user + [os.path.join(self.bindir, program), *args],
                             capture_output=True, text=True, timeout=120, cwd=self.folder)
        if out.returncode != 0:
            raise RuntimeError(f"{program} failed ({out.returncode}): {out.stderr.strip() or out.stdout.strip()}")
        return out.stdout

    def start(self) -> None:
        self._watch()
        options = (f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c full_page_writes=off -c max_connections=200")
        self._run("pg_ctl", "-D", self.data, "-o", options, "-l", os.path.join(self.folder, "log"),
                  "-w", "-t", "60", "start")
        self.running = True

    _WATCHDOG = (
        "import os, shutil, subprocess, sys\n"
        "sys.stdin.read()\n"                 # EOF: the test process is gone, whichever way
        "cmd, folder, data = sys.argv[1], sys.argv[2], sys.argv[3]\n"
        "user = sys.argv[4:]\n"
        "if os.path.exists(os.path.join(data, 'postmaster.pid')):\n"
        "    subprocess.run(user + [cmd, '-D', data, '-m', 'immediate', '-w', 'stop'], capture_output=True)\n"
        "shutil.rmtree(folder, ignore_errors=True)\n"
    )

    def _watch(self) -> None:
        """Once: a process that stops the server and removes its folder when this one ends."""
        if getattr(self, "_watchdog", None) is None:
            import sys
            self._watchdog = subprocess.Popen(
                [sys.executable, "-c", self._WATCHDOG, os.path.join(self.bindir, "pg_ctl"),
                 self.folder, self.data, *self.as_user],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: 'fast' (clients disconnected) or 'immediate' (as if killed)."""
        if self.running:
            self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")
            self.running = False

    def remove(self) -> None:
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            watchdog, self._watchdog = getattr(self, "_watchdog", None), None
            if watchdog is not None:
                watchdog.stdin.close()
                watchdog.wait(60)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.USER}@127.0.0.1:{self.port}/{database}"

    def admin(self, sql: str) -> None:
        """Run one statement as the superuser, outside a transaction."""
        import psycopg
        with psycopg.connect(self.url(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(sql)

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        global _databases
        with _lock:
            _databases += 1
            name = f"test_{os.getpid()}_{_databases}"
        self.admin(f"CREATE DATABASE {name}")
        return self.url(name)


def unavailable() -> str | None:
    """Why PostgreSQL tests cannot run here, or None."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as e:
        return f"psycopg / psycopg-pool not installed ({e})"
    if find_bindir() is None:
        return "PostgreSQL is not installed (no initdb/pg_ctl under /usr/lib/postgresql/*/bin)"
    return None


def server() -> PgServer:
    """The process's running server, started on first use; skips (fails under CI) without one."""
    global _server
    why = unavailable()
    if why is not None:
        if os.environ.get("CI") == "true":
            raise RuntimeError(f"CI must run the PostgreSQL tests, but {why}")
        raise unittest.SkipTest(why)
    with _lock:
        if _server is None:
            srv = PgServer(find_bindir())
            atexit.register(srv.remove)
            srv.start()
            _server = srv
        elif not _server.running:               # a test stopped it and failed before restarting
            _server.start()
        return _server


def new_database_url() -> str:
    return server().new_database()


class PrivateServer(PgServer):
    """A server of a test's own (which it may stop and start); removed by ``remove()``."""

    def __init__(self) -> None:
        server()                                # the same skip / CI rules
        super().__init__(find_bindir())
