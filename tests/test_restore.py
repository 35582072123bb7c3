"""Restore is robust: one table that cannot be rebuilt is set aside (one log line, left in
the store as it is) and every other unfinished table comes back."""
from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile

import pytest
from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import TestCase

from gamehall.hall import Hall
from gamehall.store import SQLiteStore
from gamehall.table import PLAYING
from tests.hallstores import flush, settle
from tests.helpers import RecordingSink, install_example_plugin, make_hall


@pytest.fixture
def logged():
    events = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


def three_games(hall):
    """Three Nim tables in play, one action each."""
    tables = []
    for n in range(3):
        ann = hall.login(f"Ann{n}", "nim", RecordingSink(), "10.0.0.1")
        bob = hall.login(f"Bob{n}", "nim", RecordingSink(), "10.0.0.2")
        table = hall.create_table("nim", max_seats=2, creator=ann)
        table.join(bob)
        table.start(ann)
        table.act(table.seats[table.engine.pending_seat()].user, {"take": 1})
        tables.append(table)
    return tables


def set_aside_lines(events):
    return [e for e in events if "set aside" in e.get("log_format", "")]


@pytest.mark.parametrize("spoil, why", [
    (lambda row, acts: row.update(seats='[{"name": "Ann", "kind": "human"}'), "cannot be decoded"),
    (lambda row, acts: row.update(options="[1, 2]"), "options"),
    (lambda row, acts: row.update(seats='[{"name": "Ann", "kind": "robot"}, {"name": "B", "kind": "human"}]'),
     "kind 'robot'"),
    (lambda row, acts: row.update(seats='[{"name": "Ann", "kind": "human"}]'), "1 seats"),
    (lambda row, acts: row.update(seats='[{"name": "A", "kind": "bot", "bot": "genius"}, '
                                        '{"name": "B", "kind": "human"}]'), "unknown bot"),
    (lambda row, acts: acts.append((0, '{"take": 9}')), "action 1"),
    (lambda row, acts: acts.append((1, '{"take"')), "cannot be decoded"),
    (lambda row, acts: row.update(game="chess"), "not installed"),
])
def test_one_bad_table_is_set_aside_and_the_others_come_back(logged, spoil, why):
    hall = make_hall()
    tables = three_games(hall)
    store = hall.store
    middle = tables[1].store_id
    spoil(store._tables[middle], store._actions[middle])
    again = make_hall(store=store)
    assert again.restore().result == 2
    assert sorted(t.store_id for t in again.tables.values()) == [tables[0].store_id, tables[2].store_id]
    lines = set_aside_lines(logged)
    assert len(lines) == 1 and lines[0]["id"] == middle and why in lines[0]["why"]
    assert middle in again.set_aside
    # left as it was: still unfinished in the store, tried again at the next start
    assert store._tables[middle]["state"] == PLAYING
    again.clock.advance(1000)                  # nothing of the bad table was left scheduled


class SQLiteRestoreTests(TestCase):
    # (tests/test_store_postgres.py runs these tests on PostgreSQL through these two hooks)
    def new_store(self, path, clock):
        """A store on ``path`` (one per test: the PostgreSQL subclass ignores the path)."""
        return SQLiteStore(path, reactor, clock=clock)

    def spoil(self, path, table, column, value, table_id):
        """Set ``column`` of the rows of ``table`` ('tables' or 'actions') for a table id."""
        key = "id" if table == "tables" else "table_id"
        conn = sqlite3.connect(path)
        conn.execute(f"UPDATE {table} SET {column} = ? WHERE {key} = ?", (value, table_id))
        conn.commit()
        conn.close()

    def nim_and_file(self):
        """The Nim game, a fresh SQLite file's path (removed after the test) and a clock."""
        install_example_plugin()
        from twisted.plugins.gamehall_nim_plugin import nim
        folder = tempfile.mkdtemp(prefix="gamehall-test-")
        self.addCleanup(shutil.rmtree, folder, True)
        return nim, os.path.join(folder, "hall.sqlite"), Clock()

    @defer.inlineCallbacks
    def test_bad_json_in_one_row_of_the_file(self):
        nim, path, clock = self.nim_and_file()
        store = self.new_store(path, clock)
        yield store.open()
        hall = Hall(clock, store, {"nim": nim})
        tables = three_games(hall)
        yield defer.gatherResults([t.flush() for t in tables])
        yield store.close()
        self.spoil(path, "tables", "seats", "{oops", tables[0].store_id)
        self.spoil(path, "actions", "action", "nope", tables[2].store_id)
        store = self.new_store(path, clock)
        yield store.open()
        self.addCleanup(store.close)
        rows = yield store.load_unfinished()
        self.assertEqual([("error" in r) for r in rows], [True, False, True])
        again = Hall(clock, store, {"nim": nim})
        restored = yield again.restore()
        self.assertEqual(restored, 1)
        self.assertEqual(sorted(again.set_aside), [tables[0].store_id, tables[2].store_id])
        (table,) = again.tables.values()
        self.assertEqual(table.store_id, tables[1].store_id)

    @defer.inlineCallbacks
    def test_numbers_in_a_file_survive_a_restart(self):
        nim, path, clock = self.nim_and_file()
        store = self.new_store(path, clock)
        yield store.open()
        self.addCleanup(store.close)             # (idempotent)
        hall = Hall(clock, store, {"nim": nim})
        hall.create_table("nim", max_seats=2)
        hall.create_table("nim", max_seats=2)
        tables = three_games(hall)                           # #3, #4, #5
        yield defer.gatherResults([t.flush() for t in tables])
        self.assertEqual([t.store_id for t in tables], [3, 4, 5])
        self.assertEqual((yield store.last_table_id()), 5)
        yield store.close()
        store = self.new_store(path, clock)
        yield store.open()
        self.addCleanup(store.close)
        again = Hall(clock, store, {"nim": nim})
        yield again.restore()
        self.assertEqual(sorted(again.tables), [3, 4, 5])
        self.assertEqual(again.create_table("nim", max_seats=2).id, 6)


def test_table_numbers_survive_a_restart_and_are_never_given_twice(hall_store):
    # a restored table came back under a new number (#6 became #2), and new tables took
    # numbers that earlier ones had had
    hall = make_hall(store=hall_store.open())
    waiting = hall.create_table("nim", max_seats=2)          # #1: never started, never stored
    tables = three_games(hall)                               # #2, #3, #4
    flush(*tables)
    assert [t.id for t in tables] == [2, 3, 4] and waiting.id == 1
    assert [t.store_id for t in tables] == [2, 3, 4]         # stored under their numbers
    tables[2].abort("gone")                                  # #4: aborted, stays in the store
    flush(tables[2])
    again = make_hall(store=hall_store.restart(hall.store))
    assert settle(again.restore()) == 2
    assert sorted(again.tables) == [2, 3]                    # the same numbers as before
    assert all(t.id == t.store_id for t in again.tables.values())
    assert again.create_table("nim", max_seats=2).id == 5   # above every number ever used


def test_a_waiting_tables_number_is_not_given_again_after_a_restart(hall_store):
    # a waiting table has no store row: after a restart its number went to the next new
    # table (a waiting Windward series' number to another series)
    hall = make_hall(store=hall_store.open())
    tables = three_games(hall)                               # #1, #2, #3
    waiting = hall.create_table("nim", max_seats=2)          # #4: never started, never stored
    flush(*tables)
    assert waiting.id == 4 and all(t.store_id == t.id for t in tables)
    again = make_hall(store=hall_store.restart(hall.store))
    settle(again.restore())
    assert again.create_table("nim", max_seats=2).id == 5
