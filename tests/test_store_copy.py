"""Moving a hall: ``gamehall-store copy`` puts a SQLite store into PostgreSQL (every table,
action, result, record and the admin password), says what it copied, and a hall on the
PostgreSQL store goes on with the unfinished games.  Also: ``--store`` URLs, and the admin
console's password kept in a PostgreSQL store."""
from __future__ import annotations

import io
import os
import shutil
import tempfile

import pytest
from twisted.cred.credentials import UsernamePassword
from twisted.cred.error import UnauthorizedLogin
from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from gamehall.hall import Hall
from gamehall.store import SQLiteStore, StoreError
from gamehall.store.url import StoreURL, parse, shown
from gamehall.table import FINISHED, PLAYING
from tests import pgserver
from tests.helpers import RecordingSink, install_example_plugin
from tests.test_restore import three_games


def _pg(url, clock):
    from gamehall.store.postgres import PostgresStore
    return PostgresStore(url, reactor, clock=clock)


def play_out(table):
    """Play a Nim table to its end (its end is told once stored: flush, then look)."""
    for _ in range(200):
        if table.state != PLAYING or table.engine.pending_seat() is None:
            break
        table.act(table.seats[table.engine.pending_seat()].user, {"take": 1})


@defer.inlineCallbacks
def settle(clock, tables):
    """Every write of these tables stored, those queued by a step after a write too (a
    game's end is written after its last action is: a second flush waits for it)."""
    for _ in range(2):
        clock.advance(0)
        yield defer.gatherResults([t.flush() for t in tables])


class CopyTests(TestCase):
    def setUp(self):
        install_example_plugin()
        from twisted.plugins.gamehall_nim_plugin import nim
        self.games = {"nim": nim}
        folder = tempfile.mkdtemp(prefix="gamehall-test-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "hall.sqlite")
        self.url = pgserver.new_database_url()
        self.clock = Clock()

    @defer.inlineCallbacks
    def sqlite_hall(self):
        """A SQLite store with 3 games in play, 1 finished and 1 aborted; closed."""
        store = SQLiteStore(self.path, reactor, clock=self.clock)
        yield store.open()
        self.addCleanup(store.close)             # (idempotent)
        hall = Hall(self.clock, store, self.games)
        tables = three_games(hall)
        for n in range(3, 5):
            ann = hall.login(f"Ann{n}", "nim", RecordingSink(), "10.0.0.1")
            bob = hall.login(f"Bob{n}", "nim", RecordingSink(), "10.0.0.2")
            table = hall.create_table("nim", max_seats=2, creator=ann)
            table.join(bob)
            table.start(ann)
            tables.append(table)
        for n in range(3):
            tables[n].act(tables[n].seats[tables[n].engine.pending_seat()].user, {"take": n + 1})
        play_out(tables[3])
        tables[4].abort("gone")
        yield settle(self.clock, tables)
        self.assertEqual(tables[3].state, FINISHED)
        ids = [t.store_id for t in tables]
        # and one finished with a record (Nim keeps none), written through the store
        kept = yield store.create_table("nim", "standard", 5, [], {})
        yield store.finish_table(kept, "finished", {"winners": [0]}, {"log": [1, 2]})
        ids.append(kept)
        yield store.save_setting("windward", {"speed": 3})
        before = {}
        for i in ids:
            before[i] = yield store.load_table(i)
        seqs = {t.store_id: t.seq for t in tables[:3]}
        yield store.close()
        with open(self.path + ".admin", "w") as f:
            f.write("admin:s3cret\n")
        return ids, before, seqs

    def copy(self, *args):
        out = io.StringIO()
        from gamehall.store.cli import main
        return main(["copy", f"sqlite:{self.path}", self.url, *args], out=out), out.getvalue()

    @defer.inlineCallbacks
    def test_copy_then_the_unfinished_games_go_on(self):
        ids, before, seqs = yield self.sqlite_hall()
        code, out = self.copy()
        self.assertEqual(code, 0, out)
        actions = sum(len(t["actions"]) for t in before.values())
        self.assertIn("tables: 6 (0 waiting, 3 playing, 2 finished, 1 aborted)", out)
        self.assertIn(f"actions: {actions:,}", out)
        self.assertIn("results: 2 (1 with a record)", out)
        self.assertIn("admin passwords: 1", out)
        self.assertIn("settings: 2", out)          # the hall's last table number, and ours
        self.assertIn(f"new tables are numbered from {max(ids) + 1}", out)

        store = _pg(self.url, self.clock)
        yield store.open()
        self.addCleanup(store.close)
        for i in ids:                              # every row as it was, under its number
            self.assertEqual((yield store.load_table(i)), before[i])
        self.assertEqual((yield store.load_settings())["windward"], {"speed": 3})
        hall = Hall(self.clock, store, self.games)
        self.assertEqual((yield hall.restore()), 3)
        self.assertEqual(sorted(hall.tables), sorted(ids[:3]))
        for table in hall.tables.values():
            self.assertEqual(table.seq, seqs[table.store_id])
            for user, address in (("Ann", "10.0.0.1"), ("Bob", "10.0.0.2")):   # back to their seats
                table.reconnect(hall.login(f"{user}{ids.index(table.store_id)}", "nim",
                                           RecordingSink(), address))
        self.assertEqual(hall.create_table("nim", max_seats=2).id, max(ids) + 1)
        restored = [hall.tables[i] for i in ids[:3]]
        for table in restored:
            play_out(table)
        yield settle(self.clock, restored)
        self.assertEqual([t.state for t in restored], [FINISHED] * 3)
        states = []
        for i in ids:
            states.append((yield store.load_table(i))["state"])
        self.assertEqual(states, [FINISHED] * 4 + ["aborted", FINISHED])
        self.assertEqual((yield store.stats())["tables"], {"waiting": 0, "playing": 0, "finished": 5, "aborted": 1})

    @defer.inlineCallbacks
    def test_a_destination_holding_tables_is_refused_unless_replaced(self):
        yield self.sqlite_hall()
        self.assertEqual(self.copy()[0], 0)
        err = io.StringIO()
        self.patch(__import__("sys"), "stderr", err)
        self.assertEqual(self.copy()[0], 1)
        self.assertIn("already holds 6 tables; give --replace", err.getvalue())
        code, out = self.copy("--replace")
        self.assertEqual(code, 0)
        self.assertIn("tables: 6 ", out)

    def test_what_is_not_a_store_is_refused_in_one_line(self):
        from gamehall.store.cli import main
        err = io.StringIO()
        self.patch(__import__("sys"), "stderr", err)
        self.assertEqual(main(["copy", f"sqlite:{self.path}", self.url]), 1)
        self.assertIn("no SQLite store at", err.getvalue())
        open(self.path, "w").close()
        self.assertEqual(main(["copy", f"sqlite:{self.path}", self.url]), 1)
        self.assertIn("not a gamehall store", err.getvalue())
        self.assertEqual(main(["copy", self.url, f"sqlite:{self.path}"]), 1)
        self.assertIn("copy moves a SQLite store", err.getvalue())
        self.assertEqual(len(err.getvalue().splitlines()), 3)

    @defer.inlineCallbacks
    def test_the_admin_password_is_kept_in_the_store(self):
        from gamehall.store.admin import StoreAdminChecker
        from gamehall.store.cli import main
        store = _pg(self.url, self.clock)
        yield store.open()
        self.addCleanup(store.close)
        checker = StoreAdminChecker(store)
        yield checker.ensure_password()
        out = io.StringIO()
        self.assertEqual(main(["admin", self.url], out=out), 0)
        user, _, password = out.getvalue().strip().partition(":")
        self.assertEqual((user, len(password) >= 16), ("admin", True))
        yield checker.ensure_password()            # a second start keeps it
        out2 = io.StringIO()
        main(["admin", self.url], out=out2)
        self.assertEqual(out2.getvalue(), out.getvalue())
        self.assertEqual((yield checker.requestAvatarId(UsernamePassword("admin", password))), "admin")
        for wrong in [("admin", password + "x"), ("root", password), ("admin", "")]:
            yield self.assertFailure(checker.requestAvatarId(UsernamePassword(*wrong)), UnauthorizedLogin)


@pytest.mark.parametrize("url, parsed", [
    ("sqlite:hall.sqlite", StoreURL("sqlite", "hall.sqlite")),
    ("sqlite:///var/lib/hall.sqlite", StoreURL("sqlite", "/var/lib/hall.sqlite")),
    ("postgresql://u:p@db.example/hall", StoreURL("postgresql", "postgresql://u:p@db.example/hall")),
    ("postgres://db.example:5433/hall", StoreURL("postgresql", "postgres://db.example:5433/hall")),
])
def test_store_urls(url, parsed):
    assert parse(url) == parsed


@pytest.mark.parametrize("url, why", [
    ("hall.sqlite", "use sqlite:PATH or postgresql://"),
    ("mysql://u@h/db", "use sqlite:PATH or postgresql://"),
    ("sqlite:", "wants a file path"),
    ("postgresql://u:secret@h:99999/db", "not a port number"),
    ("postgresql://u:secret@[h/db", "IPv6"),
])
def test_bad_store_urls_are_one_line_without_the_password(url, why):
    with pytest.raises(StoreError) as exc:
        parse(url)
    assert why in str(exc.value) and "\n" not in str(exc.value) and "secret" not in str(exc.value)


def test_shown_hides_the_password():
    assert shown("postgresql://u:secret@h/db") == "postgresql://u:***@h/db"
    assert shown("postgresql://u@h/db") == "postgresql://u@h/db"


@pytest.mark.parametrize("args, store", [
    ([], "sqlite:gamehall.sqlite"),
    (["--db", "x.db"], "sqlite:x.db"),
    (["--store", "sqlite:y.db"], "sqlite:y.db"),
    (["--store", "postgresql://u:p@h/db"], "postgresql://u:***@h/db"),
])
def test_tap_store_option(args, store):
    from gamehall.tap import Options
    options = Options()
    options.parseOptions(args)
    assert str(options["store_url"]) == store


@pytest.mark.parametrize("args, message", [
    (["--store", "mysql://x"], "--store: bad store URL 'mysql://x'"),
    (["--db", "a.db", "--store", "sqlite:b.db"], "give --store or --db, not both"),
])
def test_tap_bad_store_is_one_line(args, message):
    from gamehall.tap import Options
    with pytest.raises(SystemExit) as exc:
        Options().parseOptions(args)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_twistd_on_an_unreachable_postgresql_is_one_line_and_a_non_zero_exit(tmp_path):
    import subprocess

    from tests.helpers import EXAMPLE
    from tests.wireclient import ROOT, TWISTD, free_port
    pgserver.server()                          # (skipped where PostgreSQL cannot run at all)
    env = dict(os.environ, PYTHONPATH=f"{EXAMPLE}:{ROOT}")
    run = subprocess.run([TWISTD, "-n", "--pidfile=", "gamehall", "--store",
                          f"postgresql://hall:secret@127.0.0.1:{free_port()}/hall",
                          "--admin", "tcp:0:interface=127.0.0.1",
                          *[a for name in ["nim", "netacquire", "windward", "et", "pimp", "daide", "web"]
                            for a in ("--listen", f"{name}=tcp:0:interface=127.0.0.1")]],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    output = run.stdout + run.stderr
    assert run.returncode != 0
    lines = [x for x in output.splitlines() if "cannot connect to the PostgreSQL store" in x]
    assert lines and all("Connection refused" in x for x in lines)     # (the log's and stderr's)
    assert "secret" not in output
    assert "Traceback" not in output
