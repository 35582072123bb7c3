"""``gamehall-store ratings rebuild URL`` recomputes every rating from the stored games, on
SQLite and PostgreSQL: spoiled ratings come back equal to the live ones; ``copy`` takes the
ratings along to PostgreSQL."""
from __future__ import annotations

import io
import os
import random
import shutil
import sqlite3
import tempfile

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from gamehall.ratings import rated_game
from gamehall.store import SQLiteStore
from gamehall.store.cli import main
from tests import pgserver


def _pg(url, clock):
    from gamehall.store.postgres import PostgresStore
    return PostgresStore(url, reactor, clock=clock)


@defer.inlineCallbacks
def play_rated_games(store, clock, n=25, seed=3):
    """``n`` finished games of registered players, guests and bots, rated as the hall rates."""
    rng = random.Random(seed)
    names = ["Ann", "Ben", "Cat", "Dan", "Eve"]
    for i in range(n):
        seats = []
        for name in rng.sample(names, rng.randint(2, 4)):
            r = rng.random()
            seats.append({"name": name, "kind": "human", "bot": None, "registered": True} if r < 0.7 else
                         {"name": name, "kind": "human", "bot": None, "address": "10.1.1.1"} if r < 0.85 else
                         {"name": f"B{i}", "kind": "bot", "bot": "strong"})
        humans = [s["name"] for s in seats if s["kind"] == "human"]
        tid = yield store.create_table("acquire", "classic", i, seats, {"humans": humans})
        yield store.update_table(tid, state="playing")
        clock.advance(1)
        result = {"scores": [rng.randint(0, 4) * 1000 for _ in seats], "winners": []}
        rated = rated_game("acquire", "classic", seats, result, humans)
        yield store.finish_table(tid, "finished", result, None, rated)


@defer.inlineCallbacks
def everything(store):
    out = {}
    for key in (yield store.rating_keys()):
        out[key["key"]] = yield store.standings(key["key"], limit=1000)
    for name in ("Ann", "Ben", "Cat", "Dan", "Eve", "bot:acquire:strong"):
        out[name] = yield store.rating_history(name)
    return out


class RebuildTests(TestCase):
    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehall-test-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "hall.sqlite")
        self.clock = Clock()
        self.clock.advance(1000)

    def rebuild(self, url):
        out = io.StringIO()
        code = main(["ratings", "rebuild", url], out=out)
        return code, out.getvalue()

    @defer.inlineCallbacks
    def check(self, make, url, spoil):
        store = make()
        yield store.open()
        yield play_rated_games(store, self.clock)
        live = yield everything(store)
        yield store.close()
        self.assertGreater(len(live), 8)
        spoil()
        code, out = self.rebuild(url)
        self.assertEqual(code, 0, out)
        self.assertRegex(out, r"rebuilt the ratings of .*: \d+ rated games, \d+ ratings; 0 games skipped")
        store = make()
        yield store.open()
        self.addCleanup(store.close)
        self.assertEqual((yield everything(store)), live)

    def test_sqlite(self):
        def spoil():
            with sqlite3.connect(self.path) as conn:
                conn.execute("UPDATE ratings SET mu = 0, games = 99")
                conn.execute("DELETE FROM rating_events WHERE seq % 2 = 0")
        return self.check(lambda: SQLiteStore(self.path, reactor, clock=self.clock), f"sqlite:{self.path}", spoil)

    def test_postgresql(self):
        url = pgserver.new_database_url()

        def spoil():
            import psycopg
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("UPDATE gamehall_ratings SET mu = 0, games = 99")
                conn.execute("DELETE FROM gamehall_rating_events WHERE seq % 2 = 0")
        return self.check(lambda: _pg(url, self.clock), url, spoil)

    def test_a_missing_store_is_one_line(self):
        err = io.StringIO()
        import sys
        old, sys.stderr = sys.stderr, err
        try:
            code, out = self.rebuild(f"sqlite:{self.path}.none")
        finally:
            sys.stderr = old
        self.assertEqual(code, 1)
        self.assertIn("no SQLite store", err.getvalue())

    @defer.inlineCallbacks
    def test_copy_takes_the_ratings_along(self):
        store = SQLiteStore(self.path, reactor, clock=self.clock)
        yield store.open()
        yield play_rated_games(store, self.clock, n=8)
        live = yield everything(store)
        yield store.close()
        url = pgserver.new_database_url()
        out = io.StringIO()
        self.assertEqual(main(["copy", f"sqlite:{self.path}", url], out=out), 0)
        self.assertRegex(out.getvalue(), r"ratings: [1-9]")
        pg = _pg(url, self.clock)
        yield pg.open()
        self.addCleanup(pg.close)
        self.assertEqual((yield everything(pg)), live)
