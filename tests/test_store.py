"""Tests for gamehall.store: both IStore implementations behave alike; SQLite persists."""
from __future__ import annotations

import os
import random
import select
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

from twisted.internet import defer, reactor, task, threads
from twisted.trial.unittest import TestCase
from zope.interface.verify import verifyObject

from gamehall.ratings import rate_game, rated_game, recompute
from gamehall.store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    IPlayerStore,
    IStore,
    MemoryStore,
    SQLiteStore,
    StoreError,
)
from tests.helpers import hold_store_thread

SEATS = [
    {"name": "alice", "kind": "human", "bot": None},
    {"name": "Bot 1", "kind": "bot", "bot": "greedy"},
    {"name": "", "kind": "empty", "bot": None},
]


def _registered(name):
    return {"name": name, "kind": "human", "bot": None, "address": "10.0.0.1", "registered": True}


def _guest(name):
    return {"name": name, "kind": "human", "bot": None, "address": "10.0.0.2"}


def _bot(level):
    return {"name": f"{level.title()}Bot", "kind": "bot", "bot": level}


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class StoreBehaviour:
    """Behaviour every IStore must show.  Subclasses provide make_store/reopen."""

    def make_store(self):
        raise NotImplementedError

    def reopen(self, store):
        """Close ``store`` and fire with a store reading the same data."""
        raise NotImplementedError

    @defer.inlineCallbacks
    def setUp(self):
        self.clock = task.Clock()
        self.clock.advance(1000)
        self.store = self.make_store()
        yield self.store.open()
        self.addCleanup(lambda: self.store.close())

    def test_provides_interface(self):
        self.assertTrue(verifyObject(IStore, self.store))

    @defer.inlineCallbacks
    def test_round_trip(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 42, SEATS, {"timer": 30})
        other = yield s.create_table("et", "basic", 7, SEATS[:2], {})
        self.assertNotEqual(tid, other)
        self.clock.advance(5)
        yield s.update_table(tid, state="playing", seats=SEATS[:2])
        yield s.append_action(tid, 0, 0, {"play_tile": "2D"})
        yield s.append_action(tid, 1, 1, {"buy": ["Tower", "Tower"]})
        yield s.append_action(other, 0, 1, {"say": "hi"})

        unfinished = yield s.load_unfinished()
        self.assertEqual([t["id"] for t in unfinished], [tid, other])
        t = unfinished[0]
        self.assertEqual(
            {k: t[k] for k in ("game", "variant", "seed", "options", "seats", "state")},
            {"game": "acquire", "variant": "standard", "seed": 42,
             "options": {"timer": 30}, "seats": SEATS[:2], "state": "playing"},
        )
        self.assertEqual(
            [tuple(a) for a in t["actions"]],
            [(0, {"play_tile": "2D"}), (1, {"buy": ["Tower", "Tower"]})],
        )
        self.assertEqual((t["created"], t["updated"]), (1000, 1005))
        self.assertEqual(unfinished[1]["state"], "waiting")
        self.assertEqual([tuple(a) for a in unfinished[1]["actions"]], [(1, {"say": "hi"})])

        loaded = yield s.load_table(tid)
        self.assertEqual(loaded["actions"], t["actions"])
        self.assertIsNone(loaded["result"])
        self.assertIsNone(loaded["record"])
        self.assertIsNone((yield s.load_table(9999)))

    @defer.inlineCallbacks
    def test_stored_values_are_copies(self):
        """Mutating a dict after handing it over must not change what was stored."""
        s = self.store
        seats = [dict(seat) for seat in SEATS]
        action = {"play_tile": "1A"}
        tid = yield s.create_table("acquire", "standard", 1, seats, {})
        d = s.append_action(tid, 0, 0, action)
        action["play_tile"] = "9I"
        seats[0]["name"] = "mallory"
        yield d
        t = yield s.load_table(tid)
        self.assertEqual(t["actions"][0][1], {"play_tile": "1A"})
        self.assertEqual(t["seats"][0]["name"], "alice")

    @defer.inlineCallbacks
    def test_many_appends_fired_without_waiting_keep_order(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 3, SEATS, {})
        n = 300
        yield defer.gatherResults(
            [s.append_action(tid, i, i % 3, {"n": i}) for i in range(n)], consumeErrors=True
        )
        t = yield s.load_table(tid)
        self.assertEqual([tuple(a) for a in t["actions"]], [(i % 3, {"n": i}) for i in range(n)])
        self.assertEqual((yield s.stats())["actions"], n)

    @defer.inlineCallbacks
    def test_seq_gap_and_duplicate_refused(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 3, SEATS, {})
        yield self.assertFailure(s.append_action(tid, 1, 0, {"a": 1}), StoreError)  # gap at 0
        yield s.append_action(tid, 0, 0, {"a": 0})
        yield self.assertFailure(s.append_action(tid, 0, 0, {"a": 9}), StoreError)  # another action
        yield self.assertFailure(s.append_action(tid, 0, 1, {"a": 0}), StoreError)  # another seat
        yield s.append_action(tid, 0, 0, {"a": 0})  # the same row again: a retry, counts as done
        yield self.assertFailure(s.append_action(tid, 2, 0, {"a": 2}), StoreError)  # gap
        yield s.append_action(tid, 1, 1, {"a": 1})  # still accepts the right one
        t = yield s.load_table(tid)
        self.assertEqual([tuple(a) for a in t["actions"]], [(0, {"a": 0}), (1, {"a": 1})])

    @defer.inlineCallbacks
    def test_refusals(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 3, SEATS, {})
        bad = [
            s.append_action(12345, 0, 0, {}),  # no such table
            s.update_table(12345, state="playing"),
            s.finish_table(12345, "finished", None, None),
            s.update_table(tid, state="finished"),  # terminal states via finish_table
            s.finish_table(tid, "playing", None, None),
            s.append_action(tid, 0, 0, {"x": object()}),  # not JSON
            s.append_action(tid, 0, 0, ["not", "a", "dict"]),
            s.create_table("acquire", "standard", 1, [{"name": "x", "kind": "robot"}], {}),
            s.create_table("acquire", "standard", "seed", SEATS, {}),
        ]
        for d in bad:
            yield self.assertFailure(d, StoreError)
        self.assertEqual((yield s.load_table(tid))["actions"], [])

    @defer.inlineCallbacks
    def test_closed_store_refuses(self):
        yield self.store.close()
        yield self.assertFailure(self.store.load_unfinished(), StoreError)
        yield self.assertFailure(
            self.store.create_table("acquire", "standard", 1, SEATS, {}), StoreError
        )
        yield self.store.close()  # idempotent

    @defer.inlineCallbacks
    def test_finish_and_history(self):
        s = self.store
        a = yield s.create_table("acquire", "standard", 1, SEATS, {})
        b = yield s.create_table("acquire", "tournament", 2, SEATS, {})
        c = yield s.create_table("et", "basic", 3, SEATS, {})
        d = yield s.create_table("acquire", "standard", 4, SEATS, {})
        yield s.update_table(a, state="playing")
        yield s.append_action(a, 0, 0, {"play_tile": "5E"})
        result_a = {"scores": [6000, 5000, 0], "winners": [0], "reason": "end declared"}
        record_a = {"events": [["play", 0, "5E"]], "players": ["alice", "Bot 1", ""]}
        self.clock.advance(10)
        yield s.finish_table(a, "finished", result_a, record_a)
        self.clock.advance(10)
        yield s.finish_table(c, "finished", {"winners": [1]}, None)
        self.clock.advance(10)
        yield s.finish_table(b, "finished", {"winners": [2]}, {"r": "b"})
        yield s.finish_table(d, "aborted", None, None)

        games = yield s.finished_games()
        self.assertEqual([g["id"] for g in games], [b, c, a])  # newest first, no aborted
        self.assertEqual(games[2], {
            "id": a, "game": "acquire", "variant": "standard", "seats": SEATS,
            "result": result_a, "finished": 1010,
        })
        self.assertEqual([g["id"] for g in (yield s.finished_games("acquire"))], [b, a])
        self.assertEqual([g["id"] for g in (yield s.finished_games(limit=1))], [b])
        self.assertEqual((yield s.finished_games("chess")), [])

        self.assertEqual((yield s.get_record(a)), record_a)
        self.assertIsNone((yield s.get_record(c)))  # result but no record
        self.assertIsNone((yield s.get_record(d)))
        loaded = yield s.load_table(a)
        self.assertEqual(loaded["state"], "finished")
        self.assertEqual((loaded["result"], loaded["record"]), (result_a, record_a))
        self.assertEqual([tuple(x) for x in loaded["actions"]], [(0, {"play_tile": "5E"})])
        self.assertEqual((yield s.load_table(d))["state"], "aborted")

        self.assertEqual((yield s.load_unfinished()), [])
        self.assertEqual(
            (yield s.stats()),
            {"tables": {"waiting": 0, "playing": 0, "finished": 3, "aborted": 1}, "actions": 1},
        )
        # A finished table is immutable: its log is what a review replays.
        yield self.assertFailure(s.append_action(a, 1, 0, {}), StoreError)
        yield self.assertFailure(s.finish_table(a, "aborted", None, None), StoreError)
        yield self.assertFailure(s.update_table(a, seats=SEATS[:1]), StoreError)

    @defer.inlineCallbacks
    def test_reopen_keeps_everything(self):
        s = self.store
        live = yield s.create_table("acquire", "standard", 11, SEATS, {"o": 1})
        done = yield s.create_table("acquire", "standard", 12, SEATS, {})
        yield s.update_table(live, state="playing")
        for i in range(5):
            yield s.append_action(live, i, i % 2, {"i": i})
        yield s.append_action(done, 0, 0, {"i": 0})
        yield s.finish_table(done, "finished", {"winners": [0]}, {"log": [1, 2]})
        before = (yield s.load_unfinished()), (yield s.load_table(done)), (yield s.stats())

        self.store = yield self.reopen(s)
        s = self.store
        after = (yield s.load_unfinished()), (yield s.load_table(done)), (yield s.stats())
        self.assertEqual(after, before)
        # The sequence carries on where it stopped, and ids are not reused.
        yield s.append_action(live, 5, 0, {"i": 5})
        yield self.assertFailure(s.append_action(live, 5, 1, {"i": 5}), StoreError)
        self.assertGreater((yield s.create_table("et", "basic", 1, SEATS, {})), done)


    @defer.inlineCallbacks
    def test_close_runs_queued_writes_first(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        appends = [s.append_action(tid, i, 0, {"i": i}) for i in range(50)]
        closed = [s.close(), s.close()]
        yield self.assertFailure(s.append_action(tid, 50, 0, {}), StoreError)
        yield defer.gatherResults(appends + closed, consumeErrors=True)
        self.store = yield self.reopen(s)
        self.assertEqual(len((yield self.store.load_table(tid))["actions"]), 50)

    @defer.inlineCallbacks
    def test_settings_are_kept_replaced_and_survive_a_reopen(self):
        s = self.store
        self.assertEqual((yield s.load_settings()), {})
        value = {"games": 3, "fill_bot": "strong"}
        d = s.save_setting("windward", value)
        value["games"] = 9                      # a copy was kept
        yield d
        yield s.save_setting("hall", {"last_table": 4})
        yield s.save_setting("hall", {"last_table": 7})
        want = {"windward": {"games": 3, "fill_bot": "strong"}, "hall": {"last_table": 7}}
        self.assertEqual((yield s.load_settings()), want)
        yield self.assertFailure(s.save_setting("", {}), StoreError)
        yield self.assertFailure(s.save_setting(3, {}), StoreError)
        yield self.assertFailure(s.save_setting("x", [1]), StoreError)
        yield self.assertFailure(s.save_setting("x", {"f": object()}), StoreError)
        self.store = yield self.reopen(s)
        self.assertEqual((yield self.store.load_settings()), want)

    # -- registered players (IPlayerStore) ----------------------------------------

    @defer.inlineCallbacks
    def test_players_registered_keyed_changed_revoked_reset_and_kept(self):
        s = self.store
        self.assertTrue(verifyObject(IPlayerStore, s))
        self.assertEqual((yield s.load_players()), [])
        created = yield s.register_player("Alice", "alice", "$argon2id$one")
        self.assertEqual(created, 1000)
        yield self.assertFailure(s.register_player("ALICE", "alice", "$argon2id$two"), StoreError)
        self.clock.advance(5)
        yield s.register_player("bob", "bob", "$argon2id$bob")
        self.assertEqual((yield s.add_key("alice", "h1", "laptop")), 1005)
        self.clock.advance(1)
        yield s.add_key("alice", "h2", None)
        yield self.assertFailure(s.add_key("alice", "h1", "again"), StoreError)     # a hash is kept once
        yield self.assertFailure(s.add_key("carol", "h3", None), StoreError)       # nobody registered
        yield s.key_used("h1", 1010.5)
        self.clock.advance(4)
        yield s.set_password("alice", "$argon2id$new")
        yield self.assertFailure(s.set_password("carol", "$argon2id$x"), StoreError)
        self.assertEqual((yield s.revoke_key("alice", "h2")), 1010)
        yield self.assertFailure(s.revoke_key("alice", "h2"), StoreError)          # revoked already
        yield self.assertFailure(s.revoke_key("bob", "h1"), StoreError)            # not bob's
        yield self.assertFailure(s.register_player("", "", "x"), StoreError)
        yield self.assertFailure(s.add_key("alice", "h9", 3), StoreError)
        want = [
            {"name": "Alice", "name_key": "alice", "password_hash": "$argon2id$new", "created": 1000,
             "updated": 1010, "keys": [
                 {"key_hash": "h1", "label": "laptop", "created": 1005, "last_used": 1010.5, "revoked": None},
                 {"key_hash": "h2", "label": None, "created": 1006, "last_used": None, "revoked": 1010}]},
            {"name": "bob", "name_key": "bob", "password_hash": "$argon2id$bob", "created": 1005,
             "updated": 1005, "keys": []},
        ]
        self.assertEqual((yield s.load_players()), want)
        self.store = s = yield self.reopen(s)
        self.assertEqual((yield s.load_players()), want)
        self.assertTrue((yield s.reset_player("alice")))
        self.assertFalse((yield s.reset_player("alice")))
        self.assertEqual((yield s.load_players()), want[1:])
        # a reset name may be registered again, and its old key hashes are gone with it
        yield s.register_player("alice", "alice", "$argon2id$three")
        yield s.add_key("alice", "h1", None)
        self.assertEqual([k["key_hash"] for k in (yield s.load_players())[0]["keys"]], ["h1"])


    # -- ratings (gamehall.store.rated, rating_sql) ----------------------------

    def break_rating_write(self):
        """Make the next rating writes fail half-way (after the ratings' UPDATE)."""
        raise NotImplementedError

    def mend_rating_write(self):
        raise NotImplementedError

    @defer.inlineCallbacks
    def finish_rated(self, seats, result, game="acquire", variant="classic", humans=None):
        """A table of ``seats`` played and finished with ``result``, rated as the hall would."""
        s = self.store
        if humans is None:
            humans = [seat["name"] for seat in seats if seat["kind"] == "human"]
        tid = yield s.create_table(game, variant, 1, seats, {"humans": humans})
        yield s.update_table(tid, state="playing")
        self.clock.advance(1)
        rated = rated_game(game, variant, seats, result, humans)
        yield s.finish_table(tid, "finished", result, None, rated)
        return tid, rated

    @defer.inlineCallbacks
    def test_finish_rates_registered_players_and_bots_not_guests(self):
        s = self.store
        seats = [_registered("Alice"), _registered("Bob"), _guest("carol"), _bot("strong"), _bot("strong")]
        result = {"scores": [9000, 9000, 7000, 5000, 100], "winners": [0, 1]}
        tid, rated = yield self.finish_rated(seats, result)
        self.assertEqual(rated, {"key": "acquire/classic/4+p",
                                 "names": ["Alice", "Bob", None, "bot:acquire:strong", "bot:acquire:strong"],
                                 "places": [1, 1, 3, 4, 5]})
        want = rate_game({}, ["alice", "bob", "guest", "bot:acquire:strong", "bot:acquire:strong"],
                         [1, 1, 3, 4, 5])
        table = yield s.standings("acquire/classic/4+p")
        self.assertEqual([(r["rank"], r["player"], r["name"], r["games"], r["places"]) for r in table],
                         [(1, "alice", "Alice", 1, {"1": 1}), (2, "bob", "Bob", 1, {"1": 1}),
                          (3, "bot:acquire:strong", "bot:acquire:strong", 1, {"4": 1})])
        for row in table:
            self.assertAlmostEqual(row["mu"], want[row["player"]].mu, places=9)
            self.assertAlmostEqual(row["rating"], want[row["player"]].display, places=9)
            self.assertTrue(row["provisional"])
            self.assertEqual(row["last_played"], 1001)
        self.assertEqual((yield s.player_ratings("carol")), [])          # a guest: nothing kept
        self.assertEqual((yield s.rating_keys()), [{"key": "acquire/classic/4+p", "players": 3}])
        self.assertEqual((yield s.standings("acquire/classic/4+p", limit=1, offset=1))[0]["rank"], 2)
        self.assertEqual((yield s.standings("et")), [])
        # the store's finished game is as before: result kept, table finished
        self.assertEqual((yield s.load_table(tid))["result"], result)

    @defer.inlineCallbacks
    def test_history_games_and_head_to_head(self):
        s = self.store
        alice, bob = _registered("Alice"), _registered("Bob")
        t1, _ = yield self.finish_rated([alice, bob], {"scores": [9, 5], "winners": [0]})
        t2, _ = yield self.finish_rated([bob, alice], {"scores": [9, 5], "winners": [0]})
        t3, _ = yield self.finish_rated([alice, bob], {"scores": [7, 7], "winners": [0, 1]})
        t4, _ = yield self.finish_rated([alice, _bot("strong"), _guest("x")],
                                        {"scores": [1, 2, 3], "winners": [2]})
        t5, _ = yield self.finish_rated([_registered("ALICE"), bob], {"scores": [3, 1], "winners": [0]},
                                        game="et", variant="standard")
        want = recompute([("acquire/classic/2p", ["alice", "bob"], [1, 2]),
                          ("acquire/classic/2p", ["bob", "alice"], [1, 2]),
                          ("acquire/classic/2p", ["alice", "bob"], [1, 1])])
        history = yield s.rating_history("alice", "acquire/classic/2p")
        self.assertEqual([(h["table_id"], h["place"], h["players"], h["games"]) for h in history],
                         [(t1, 1, 2, 1), (t2, 2, 2, 2), (t3, 1, 2, 3)])
        self.assertAlmostEqual(history[-1]["mu"], want["acquire/classic/2p"]["alice"].mu, places=9)
        self.assertEqual([h["table_id"] for h in (yield s.rating_history("Alice"))], [t1, t2, t3, t4, t5])
        self.assertEqual([g["table_id"] for g in (yield s.player_games("alice"))], [t5, t4, t3, t2, t1])
        self.assertEqual([g["table_id"] for g in (yield s.player_games("alice", limit=2))], [t5, t4])
        ratings = yield s.player_ratings("aLiCe")
        self.assertEqual([(r["rating_key"], r["games"], r["places"]) for r in ratings],
                         [("acquire/classic/2p", 3, {"1": 2, "2": 1}), ("acquire/classic/3p", 1, {"3": 1}),
                          ("et/standard", 1, {"1": 1})])
        self.assertEqual(ratings[2]["name"], "ALICE")                   # as last seated
        h2h = yield s.head_to_head("Alice", "bob")
        self.assertEqual({k: h2h[k] for k in ("games", "wins", "losses", "ties")},
                         {"games": 4, "wins": 2, "losses": 1, "ties": 1})
        self.assertEqual([(g["table_id"], g["place"], g["other_place"]) for g in h2h["last"]],
                         [(t5, 1, 2), (t3, 1, 1), (t2, 2, 1), (t1, 1, 2)])
        self.assertEqual((yield s.head_to_head("bob", "bot:acquire:strong"))["games"], 0)
        self.assertEqual(len((yield s.head_to_head("alice", "bob", limit=1))["last"]), 1)

    @defer.inlineCallbacks
    def test_rated_refusals(self):
        s = self.store
        tid = yield s.create_table("acquire", "classic", 1, SEATS, {})
        yield s.update_table(tid, state="playing")
        ok = {"key": "acquire/classic/2p", "names": ["a", "b"], "places": [1, 2]}
        for bad in ({"key": "", "names": ["a", "b"], "places": [1, 2]},
                    {"key": "k", "names": ["a"], "places": [1]},
                    {"key": "k", "names": ["a", "b"], "places": [1]},
                    {"key": "k", "names": ["a", 3], "places": [1, 2]},
                    {"key": "k", "names": [None, None], "places": [1, 2]},
                    {"key": "k", "names": ["a", "b"], "places": [0, 1]},
                    {"key": "k", "names": ["a", "  "], "places": [1, 2]},
                    ["a"]):
            yield self.assertFailure(s.finish_table(tid, "finished", {}, None, bad), StoreError)
        yield self.assertFailure(s.finish_table(tid, "aborted", None, None, ok), StoreError)
        self.assertEqual((yield s.load_table(tid))["state"], "playing")
        self.assertEqual((yield s.rating_keys()), [])
        yield s.finish_table(tid, "finished", {}, None, ok)
        yield self.assertFailure(s.finish_table(tid, "finished", {}, None, ok), StoreError)
        self.assertEqual([r["games"] for r in (yield s.standings("acquire/classic/2p"))], [1, 1])

    @defer.inlineCallbacks
    def test_failed_rating_write_leaves_neither_half_and_the_retry_counts_once(self):
        s = self.store
        alice, bob = _registered("Alice"), _registered("Bob")
        yield self.finish_rated([alice, bob], {"scores": [9, 5], "winners": [0]})
        before = yield s.standings("acquire/classic/2p")
        tid = yield s.create_table("acquire", "classic", 2, [alice, bob], {"humans": ["Alice", "Bob"]})
        yield s.update_table(tid, state="playing")
        result = {"scores": [1, 5], "winners": [1]}
        rated = rated_game("acquire", "classic", [alice, bob], result)
        self.break_rating_write()
        yield self.assertFailure(s.finish_table(tid, "finished", result, {"r": 1}, rated), StoreError)
        table = yield s.load_table(tid)
        self.assertEqual((table["state"], table["result"], table["record"]), ("playing", None, None))
        self.assertEqual((yield s.standings("acquire/classic/2p")), before)
        self.assertEqual(len((yield s.rating_history("alice"))), 1)
        self.mend_rating_write()
        yield s.finish_table(tid, "finished", result, {"r": 1}, rated)   # the hall's retry
        yield self.assertFailure(s.finish_table(tid, "finished", result, {"r": 1}, rated), StoreError)
        self.assertEqual((yield s.load_table(tid))["state"], "finished")
        after = {r["player"]: r for r in (yield s.standings("acquire/classic/2p"))}
        self.assertEqual((after["alice"]["games"], after["bob"]["games"]), (2, 2))
        want = recompute([("k", ["alice", "bob"], [1, 2]), ("k", ["alice", "bob"], [2, 1])])["k"]
        self.assertAlmostEqual(after["alice"]["mu"], want["alice"].mu, places=9)
        self.assertEqual([h["table_id"] for h in (yield s.rating_history("bob"))][-1], tid)

    @defer.inlineCallbacks
    def test_rebuild_equals_live_and_survives_a_reopen(self):
        s = self.store
        names = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"]
        rng = random.Random(5)
        for n in range(30):
            count = rng.randint(2, 7)
            seats = []
            for name in rng.sample(names, count):
                kind = rng.random()
                seats.append(_registered(name) if kind < 0.6 else
                             _guest(name) if kind < 0.75 else _bot(rng.choice(["strong", "random"])))
            if rng.random() < 0.2 and seats[0].get("registered"):
                seats[0] = dict(seats[0], kind="bot", bot="strong")        # left; a bot finished
            scores = [rng.randint(0, 3) for _ in seats]
            game = rng.choice(["acquire", "et", "diplomacy"])
            if n % 5 == 0:
                self.clock.advance(0)                                       # finished at one time
            yield self.finish_rated(seats, {"scores": scores, "winners": []}, game=game, variant="v")
        aborted = yield s.create_table("acquire", "v", 1, [_registered("Ann"), _registered("Ben")], {})
        yield s.update_table(aborted, state="playing")
        yield s.finish_table(aborted, "aborted", None, None)

        @defer.inlineCallbacks
        def everything():
            keys = yield s.rating_keys()
            out = {"keys": keys}
            for k in keys:
                out[k["key"]] = yield s.standings(k["key"], limit=1000)
            for name in names + ["bot:acquire:strong"]:
                out[name] = (yield s.rating_history(name)), (yield s.head_to_head(name, "Ann"))
            return out

        live = yield everything()
        self.assertGreater(len(live["keys"]), 3)
        counts = yield s.rebuild_ratings()
        self.assertEqual(counts["ratings"], sum(k["players"] for k in live["keys"]))
        self.assertEqual(counts["skipped"], 0)
        rebuilt_once = yield everything()
        self.assertEqual(rebuilt_once, live)
        self.store = yield self.reopen(s)
        s = self.store
        self.assertEqual((yield everything()), live)
        yield s.rebuild_ratings()
        self.assertEqual((yield everything()), live)


class MemoryStoreTests(StoreBehaviour, TestCase):
    def make_store(self):
        return MemoryStore(clock=self.clock)

    def break_rating_write(self):
        def fails(*args):
            raise StoreError("injected")
        self.store._rated_rows = fails

    def mend_rating_write(self):
        del self.store._rated_rows

    @defer.inlineCallbacks
    def reopen(self, store):
        yield store.close()
        yield store.open()
        return store

    def test_deferreds_already_fired(self):
        d = self.store.create_table("acquire", "standard", 1, SEATS, {})
        self.assertEqual(self.successResultOf(d), 1)
        self.failureResultOf(self.store.append_action(1, 3, 0, {}), StoreError)


class SQLiteStoreTests(StoreBehaviour, TestCase):
    def make_store(self):
        self.path = os.path.abspath(self.mktemp())  # the child runs elsewhere
        return SQLiteStore(self.path, reactor, clock=self.clock)

    @defer.inlineCallbacks
    def reopen(self, store):
        yield store.close()
        new = SQLiteStore(self.path, reactor, clock=self.clock)
        yield new.open()
        return new

    def break_rating_write(self):
        # fails the events' INSERT, after the ratings' UPDATE in the same transaction
        with sqlite3.connect(self.path) as conn:
            conn.execute("CREATE TRIGGER fail_rating BEFORE INSERT ON rating_events"
                         " BEGIN SELECT RAISE(ABORT, 'injected'); END")

    def mend_rating_write(self):
        with sqlite3.connect(self.path) as conn:
            conn.execute("DROP TRIGGER fail_rating")

    def _pragma(self, name):
        conn = sqlite3.connect(self.path)
        try:
            return conn.execute(f"PRAGMA {name}").fetchone()[0]
        finally:
            conn.close()

    def test_schema_version_and_pragmas(self):
        self.assertEqual(self._pragma("user_version"), SCHEMA_VERSION)
        self.assertEqual(self._pragma("journal_mode"), "wal")

    @defer.inlineCallbacks
    def test_wal_is_checkpointed_by_its_own_thread_not_in_commits(self):
        store = self.store
        autocheckpoint = yield store._call(lambda: store._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0])
        self.assertEqual(autocheckpoint, 0)             # no COMMIT copies the log back
        checkpointer = store._checkpointer
        checkpointer.interval = 0.01
        table = yield store.create_table("acquire", "standard", 1, SEATS, {})
        for seq in range(20):
            yield store.append_action(table, seq, 0, {"play_tile": "1A"})

        def checkpointed():                             # in a thread: the checkpointer's pace
            deadline = time.monotonic() + 30
            while checkpointer.checkpoints == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
            return checkpointer.checkpoints
        self.assertGreater((yield threads.deferToThread(checkpointed)), 0)
        yield store.close()
        self.assertFalse(checkpointer._thread.is_alive())
        self.assertEqual(self._pragma("user_version"), SCHEMA_VERSION)

    @defer.inlineCallbacks
    def test_newer_schema_refused(self):
        yield self.store.close()
        conn = sqlite3.connect(self.path)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        conn.close()
        store = SQLiteStore(self.path, reactor, clock=self.clock)
        err = yield self.assertFailure(store.open(), StoreError)
        self.assertIn("newer", str(err))
        # A failed open leaves nothing running and can be retried/closed safely.
        self.assertIsNone(store._pool)
        yield store.close()
        self.assertEqual(self._pragma("user_version"), SCHEMA_VERSION + 1)

    @defer.inlineCallbacks
    def test_migrates_old_file(self):
        """A version-1 file (base schema, no index) is upgraded and keeps its data."""
        yield self.store.close()
        path = self.path = self.mktemp()
        conn = sqlite3.connect(path, isolation_level=None)
        MIGRATIONS[0](conn)
        conn.execute("PRAGMA user_version = 1")
        conn.execute(
            "INSERT INTO tables (game, variant, seed, options, seats, state, created, updated)"
            " VALUES ('acquire', 'standard', 5, '{}', '[]', 'playing', 1, 2)"
        )
        conn.execute("INSERT INTO actions VALUES (1, 0, 0, '{\"play_tile\": \"3C\"}')")
        conn.close()

        self.store = SQLiteStore(path, reactor, clock=self.clock)
        yield self.store.open()
        self.assertEqual(self._pragma("user_version"), SCHEMA_VERSION)
        conn = sqlite3.connect(path)
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        conn.close()
        self.assertTrue({"tables_live", "tables_finished"} <= indexes)
        (t,) = yield self.store.load_unfinished()
        self.assertEqual((t["seed"], t["actions"]), (5, [(0, {"play_tile": "3C"})]))
        yield self.store.append_action(t["id"], 1, 0, {"play_tile": "4C"})

    @defer.inlineCallbacks
    def test_committed_writes_survive_sigkill(self):
        """Everything whose Deferred fired is on disk after the process is killed."""
        yield self.store.close()
        n = 200
        child = textwrap.dedent(
            f"""
            import sys
            from twisted.internet import defer, reactor
            from gamehall.store import SQLiteStore

            store = SQLiteStore({self.path!r}, reactor)

            @defer.inlineCallbacks
            def main():
                yield store.open()
                tid = yield store.create_table("acquire", "standard", 1, [], {{}})
                yield store.update_table(tid, state="playing")
                yield defer.gatherResults(
                    [store.append_action(tid, i, 0, {{"n": i}}) for i in range({n})])
                print("ok", tid, flush=True)
                i = {n}
                while True:  # keep writing until killed, mid-transaction or not
                    yield store.append_action(tid, i, 0, {{"n": i}})
                    i += 1

            def failed(reason):
                print("failed", reason.getTraceback(), flush=True)
                reactor.stop()

            reactor.callWhenRunning(lambda: main().addErrback(failed))
            reactor.run()
            """
        )
        env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
        proc = subprocess.Popen(
            [sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, cwd=REPO,
        )
        try:
            ready, _, _ = select.select([proc.stdout], [], [], 20)
            line = proc.stdout.readline().decode() if ready else ""
            if not line.startswith("ok"):
                proc.kill()
                self.fail(f"child did not report: {line!r} {proc.stdout.read().decode()}")
            select.select([], [], [], 0.1)  # let it write some more, then kill it
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait()
            proc.stdout.close()
            proc.stderr.close()
        self.assertEqual(proc.returncode, -signal.SIGKILL)

        tid = int(line.split()[1])
        self.store = SQLiteStore(self.path, reactor, clock=self.clock)
        yield self.store.open()
        t = yield self.store.load_table(tid)
        self.assertEqual(t["state"], "playing")
        count = len(t["actions"])
        self.assertGreaterEqual(count, n)
        self.assertEqual(t["actions"], [(0, {"n": i}) for i in range(count)])
        yield self.store.append_action(tid, count, 0, {"n": count})


class GroupCommitBehaviour:
    """Writes queued while the store thread is busy share one transaction: what every
    store on the threaded base promises (gamehall.store.threaded).  A subclass provides
    ``make_store()``, ``spoil_finish(table_id)`` (a stray results row that makes
    finish_table fail after its UPDATE) and ``queue_breaking_write()`` (queues a write
    that leaves the group's transaction unusable; its Deferred)."""

    @defer.inlineCallbacks
    def setUp(self):
        self.clock = task.Clock()
        self.clock.advance(1000)
        self.store = self.make_store()
        yield self.store.open()
        self.addCleanup(lambda: self.store.close())

    def hold_thread(self):
        """Keep the store thread busy until the returned release() is called."""
        return hold_store_thread(self, self.store)

    def fired_in(self, ds):
        order = []
        for i, d in enumerate(ds):
            d.addBoth(lambda r, i=i: (order.append(i), r)[1])
        return order

    @defer.inlineCallbacks
    def test_queued_appends_share_one_commit_and_fire_in_order(self):
        s = self.store
        tids = []
        for i in range(3):
            tids.append((yield s.create_table("acquire", "standard", i, SEATS, {})))
        release = self.hold_thread()
        before = s.commits
        ds = [s.append_action(tids[k % 3], k // 3, 0, {"k": k}) for k in range(300)]
        order = self.fired_in(ds)
        release()
        yield defer.gatherResults(ds)
        self.assertEqual(s.commits - before, 1)
        self.assertEqual(order, list(range(300)))
        for j, tid in enumerate(tids):
            t = yield s.load_table(tid)
            self.assertEqual(t["actions"], [(0, {"k": k}) for k in range(j, 300, 3)])

    @defer.inlineCallbacks
    def test_failing_writes_in_a_group_fail_alone(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        other = yield s.create_table("acquire", "standard", 2, SEATS, {})
        yield s.update_table(other, state="playing")
        # A results row for a live table makes finish_table fail *after* its
        # UPDATE has run: the savepoint must undo that UPDATE only.
        self.spoil_finish(other)

        release = self.hold_thread()
        before = s.commits
        ds = [
            s.append_action(tid, 0, 0, {"a": 0}),
            s.append_action(tid, 0, 0, {"dup": 0}),        # duplicate seq
            s.append_action(tid, 1, 1, {"a": 1}),
            s.append_action(tid, 3, 1, {"gap": 3}),        # gap
            s.finish_table(other, "finished", {"w": 1}, None),  # fails mid-write
            s.update_table(tid, state="playing"),
            s.append_action(9999, 0, 0, {}),               # no such table
            s.append_action(tid, 2, 0, {"a": 2}),
        ]
        order = self.fired_in(ds)
        release()
        results = yield defer.DeferredList(ds, consumeErrors=True)
        self.assertEqual(s.commits - before, 1)
        self.assertEqual(order, list(range(len(ds))))
        self.assertEqual([ok for ok, _ in results],
                         [True, False, True, False, False, True, False, True])
        for ok, value in results:
            if not ok:
                self.assertIsInstance(value.value, StoreError)
        t = yield s.load_table(tid)
        self.assertEqual(t["actions"], [(0, {"a": 0}), (1, {"a": 1}), (0, {"a": 2})])
        self.assertEqual(t["state"], "playing")
        self.assertEqual((yield s.load_table(other))["state"], "playing")  # rolled back

    @defer.inlineCallbacks
    def test_broken_group_transaction_reruns_writes_one_by_one(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        release = self.hold_thread()
        ds = [s.append_action(tid, 0, 0, {}), self.queue_breaking_write(),
              s.append_action(tid, 1, 0, {})]
        release()
        results = yield defer.DeferredList(ds, consumeErrors=True)
        self.assertEqual([ok for ok, _ in results], [True, False, True])
        self.assertIsInstance(results[1][1].value, StoreError)
        self.assertEqual(len((yield s.load_table(tid))["actions"]), 2)


class SQLiteGroupCommitTests(GroupCommitBehaviour, TestCase):
    """The group commit on SQLite, and its SQLite-only bound on a group's size."""

    def make_store(self):
        self.path = os.path.abspath(self.mktemp())
        return SQLiteStore(self.path, reactor, clock=self.clock)

    def spoil_finish(self, table_id):
        conn = sqlite3.connect(self.path)
        conn.execute("INSERT INTO results VALUES (?, NULL, NULL, 0)", (table_id,))
        conn.commit()
        conn.close()

    def queue_breaking_write(self):
        def breaks(conn):
            conn.execute("ROLLBACK")  # as an I/O error might: the transaction is gone
            raise sqlite3.OperationalError("simulated")

        return self.store._write(breaks)

    @defer.inlineCallbacks
    def test_big_queue_is_split_into_bounded_groups(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        release = self.hold_thread()
        before = s.commits
        n = 2 * SQLiteStore.MAX_GROUP + 1
        ds = [s.append_action(tid, i, 0, {}) for i in range(n)]
        release()
        yield defer.gatherResults(ds)
        self.assertEqual(s.commits - before, 3)
        self.assertEqual((yield s.stats())["actions"], n)

    @defer.inlineCallbacks
    def test_updated_and_reads_keep_call_order_in_a_group(self):
        s = self.store
        tid = yield s.create_table("acquire", "standard", 1, SEATS, {})
        release = self.hold_thread()
        self.clock.advance(5)
        a0 = s.append_action(tid, 0, 0, {})
        read = s.load_table(tid)
        a1 = s.append_action(tid, 1, 0, {})
        self.clock.advance(5)
        done = s.finish_table(tid, "finished", {"w": 0}, None)
        self.clock.advance(5)
        late = s.append_action(tid, 2, 0, {})  # refused: finished
        release()
        yield defer.gatherResults([a0, a1, done])
        yield self.assertFailure(late, StoreError)
        seen = yield read
        self.assertEqual((len(seen["actions"]), seen["updated"]), (1, 1005))  # a0, not a1
        (game,) = yield s.finished_games()
        self.assertEqual(game["finished"], 1010)  # the group's append did not overwrite it


class StoreThreadCyclesTests(TestCase):
    """The store thread's hand-offs leave no reference cycle behind: a hall under load hands
    it a job most reactor turns, and a cycle per job is garbage that only the collector's
    full passes free (the hall makes those rare: gamehall.tap.settle_collector)."""

    @defer.inlineCallbacks
    def test_writes_leave_no_garbage_for_the_collector(self):
        import gc

        store = SQLiteStore(":memory:")
        yield store.open()
        self.addCleanup(store.close)
        tid = yield store.create_table("acquire", "standard", 1, SEATS, {})
        yield store.append_action(tid, 0, 0, {"k": 0})
        enabled = gc.isenabled()
        gc.disable()
        self.addCleanup(lambda: gc.enable() if enabled else None)
        gc.collect()
        for k in range(1, 41):
            yield store.append_action(tid, k, 0, {"k": k})     # one hand-off each
        self.assertEqual(gc.collect(), 0)
