"""Registered names in a hall of several processes (gamehall/cluster/registry.py): a change
made on one process holds on every other at once; a lost message or an outage of the bus is
mended from the store.  Two Halls on LocalBuses sharing one LocalHub and one MemoryStore,
users over NetAcquire's real wire."""
from __future__ import annotations

import pytest
from twisted.internet.defer import maybeDeferred
from twisted.python.failure import Failure

from gamehall.admin import Console
from gamehall.lobby import LobbyError
from gamehall.players import PlayerError
from tests.helpers import RecordingSink
from gamehall.bus.localbus import LocalBus
from tests.test_cluster_presence import HEARTBEAT, RoundTripBus, hall_of, settle


def _done(d):
    out = []
    d.addBoth(out.append)
    assert out, "not fired"
    if isinstance(out[0], Failure):
        out[0].raiseException()
    return out[0]


def _sync(*processes):
    for p in processes:
        p.hall.players.run = lambda f, *a: maybeDeferred(f, *a)      # Argon2 on the test thread


def registered(a, name="Alice", password="correct horse"):
    player = _done(a.hall.players.register(name, password, "10.0.0.1"))
    key = _done(a.hall.players.make_key(player, "old client"))
    return player, key


def test_a_name_registered_on_one_process_is_refused_without_its_key_on_the_other_at_once():
    clock, (a, b) = hall_of("A", "B")
    _sync(a, b)
    player, key = registered(a)
    settle(clock)                                  # the bus delivers; no store read on B
    assert b.cluster.registry.reloads == 0
    impostor = b.netacquire("alice")
    impostor.pump()
    assert impostor.closed and impostor.logic.boxes[0].startswith("E;Registered Nickname;Nickname Alice is registered")
    lookalike = b.netacquire("AIice")
    lookalike.pump()
    assert lookalike.closed and "looks too much like Alice" in lookalike.logic.boxes[0]
    owner = b.netacquire("alice+" + key)            # the key made on A lets its owner in on B
    owner.pump()
    assert not owner.closed
    assert b.hall.lobby.find("alice").registered is True
    settle(clock)
    assert a.hall.lobby.find("Alice").process == "B"


def test_a_password_and_a_key_work_on_any_process_and_a_revoked_key_nowhere():
    clock, (a, b) = hall_of("A", "B")
    _sync(a, b)
    player, key = registered(a)
    settle(clock)
    assert _done(b.hall.players.sign_in("alice", "correct horse", "10.0.0.2")).name == "Alice"
    _done(a.hall.players.change_password(player, "correct horse", "battery staple", "10.0.0.1"))
    settle(clock)
    with pytest.raises(PlayerError, match="Wrong name or password"):
        _done(b.hall.players.sign_in("alice", "correct horse", "10.0.0.2"))
    on_b = _done(b.hall.players.sign_in("alice", "battery staple", "10.0.0.2"))
    _done(b.hall.players.revoke_key(on_b, on_b.live_keys()[0].id))       # revoked on B ...
    settle(clock)
    with pytest.raises(PlayerError, match="Wrong or revoked key for Alice"):   # ... refused on A at once
        a.hall.login("alice+" + key, "nim", RecordingSink())
    new_key = _done(b.hall.players.make_key(on_b, "laptop"))
    settle(clock)
    assert a.hall.login("alice+" + new_key, "nim", RecordingSink()).registered


def test_a_reset_on_one_process_frees_the_name_on_the_other_and_a_new_registration_replaces_it():
    clock, (a, b) = hall_of("A", "B")
    _sync(a, b)
    player, key = registered(a)
    settle(clock)
    console = Console(b.hall)                     # the operator's console on B
    assert _done(console.execute("reset-player alice")).startswith("Forget the registration of Alice")
    assert _done(console.execute("yes")).startswith("The registration of Alice and its keys are gone")
    settle(clock)
    assert a.hall.players.get("alice") is None
    assert not a.hall.login("alice", "nim", RecordingSink()).registered     # a guest's name again
    a.hall.logout(a.hall.lobby.find("alice"))
    settle(clock, 31)                             # (the first registration's claims have lapsed)
    registered(b, "alice", "another password")
    settle(clock)
    with pytest.raises(PlayerError, match="Wrong or revoked key"):           # the old key is gone with it
        a.hall.login("alice+" + key, "nim", RecordingSink())
    with pytest.raises(LobbyError, match="registered"):
        a.hall.login("alice", "nim", RecordingSink())


def test_the_same_name_registered_on_two_processes_at_once_is_one_registration_in_the_store():
    """Behind the claims (here as if they had lapsed), the store keeps one registration of a
    name: the second is told the name is registered."""
    clock, (a, b) = hall_of("A", "B")
    _sync(a, b)
    a.hall.players.claims = b.hall.players.claims = None
    first = a.hall.players.register("Alice", "correct horse", "10.0.0.1")
    second = b.hall.players.register("alice", "other password", "10.0.0.2")   # B has not heard yet
    assert _done(first).name == "Alice"
    with pytest.raises(PlayerError, match="Alice is registered already"):
        _done(second)
    settle(clock)
    assert a.hall.players.get("alice").password_hash == b.hall.players.get("alice").password_hash


def test_a_lost_message_is_noticed_at_the_next_and_the_registry_reloaded_from_the_store():
    clock, (a, b) = hall_of("A", "B")
    _sync(a, b)
    player, key = registered(a)
    settle(clock)
    b.bus.is_up = False                         # B misses what is delivered now (at most once)
    _done(a.hall.players.revoke_key(player, player.live_keys()[0].id))
    settle(clock)
    b.bus.is_up = True
    assert b.hall.players.get("alice").live_keys()     # B has not heard
    registered(a, "Bob")                               # the next message shows the gap
    settle(clock)
    assert b.cluster.registry.reloads == 1
    assert not b.hall.players.get("alice").live_keys()
    assert b.hall.players.get("bob") is not None
    with pytest.raises(PlayerError, match="Wrong or revoked key"):
        b.hall.login("alice+" + key, "nim", RecordingSink())


def test_changes_made_while_the_bus_was_down_are_read_from_the_store_when_it_is_back():
    clock, (a, b) = hall_of("A", "B")
    _sync(a, b)
    player, key = registered(a)
    settle(clock)
    signed_in = _done(b.hall.players.sign_in("alice", "correct horse", "10.0.0.2"))
    b.bus.stop()                                       # B is cut off
    _done(a.hall.players.change_password(player, "correct horse", "battery staple", "10.0.0.1"))
    registered(a, "Bob")
    settle(clock)
    assert b.hall.players.get("bob") is None
    b.bus.start()
    b.bus.on_state(True)
    settle(clock, HEARTBEAT)
    assert b.hall.players.get("bob") is not None
    assert b.hall.players.get("alice") is signed_in     # a web session's Player is kept, updated
    assert _done(b.hall.players.sign_in("alice", "battery staple", "10.0.0.2")) is signed_in


def test_a_game_rated_on_one_process_has_its_players_ratings_read_again_on_the_others():
    from tests.test_table import play_until_over
    clock, (a, b) = hall_of("A", "B")
    ann = a.hall.login("Ann", "nim", RecordingSink())
    bob = a.hall.login("Bob", "nim", RecordingSink())
    table = a.hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    for seat in table.seats:
        seat.registered = True
    key = f"nim/{table.variant}"
    settle(clock)
    # B has read Ann's rating (a seat list drawn there): a newcomer's
    assert b.hall.seat_ratings.cache.rating("Ann", key) == {"rating": 0.0, "games": 0, "provisional": True}
    table.start(ann)
    play_until_over(a.hall, table, [ann, bob])
    settle(clock)
    row = next(r for r in a.hall.store.player_ratings("Ann").result if r["rating_key"] == key)
    assert row["games"] == 1
    assert b.hall.seat_ratings.cache.rating("Ann", key) == {
        "rating": round(row["rating"], 1), "games": 1, "provisional": True}


@pytest.mark.parametrize("bus_class", [LocalBus, RoundTripBus], ids=["answers-at-once", "round-trips"])
def test_lookalikes_registered_on_two_processes_at_once_give_one_registration(bus_class):
    """On a bus whose answers take a turn the two registrations' claims interleave."""
    clock, (a, b) = hall_of("A", "B", bus_class=bus_class)
    _sync(a, b)
    first = a.hall.players.register("Alice", "correct horse", "10.0.0.1")
    second = b.hall.players.register("AIice", "other password", "10.0.0.2")    # capital I for l
    settle(clock)
    outcomes = []
    for d in (first, second):
        d.addBoth(outcomes.append)
    assert len(outcomes) == 2
    won = [o for o in outcomes if not isinstance(o, Failure)]
    lost = [o for o in outcomes if isinstance(o, Failure)]
    assert len(won) == 1 and len(lost) == 1
    assert lost[0].check(PlayerError) and "being registered right now" in str(lost[0].value)
    settle(clock)
    assert [p.name for p in a.hall.players.by_key.values()] == [p.name for p in b.hall.players.by_key.values()] \
        == [won[0].name]
    assert len(_done(a.hall.store.load_players())) == 1
    # the claims lapse once every process knows the name: a lookalike is then refused as such
    settle(clock, 31)
    with pytest.raises(PlayerError, match="looks too much like"):
        _done(b.hall.players.register("AIice" if won[0].name == "Alice" else "Alice", "third password", "10.0.0.3"))


def test_nobody_registers_while_the_bus_is_down_and_is_told_why():
    clock, (a, b) = hall_of("A", "B")
    _sync(a, b)
    b.bus.stop()
    with pytest.raises(PlayerError, match="Registration is not possible right now"):
        _done(b.hall.players.register("Alice", "correct horse", "10.0.0.1"))
    assert _done(b.hall.store.load_players()) == []


def test_ratings_kept_for_the_seats_are_read_again_after_an_outage_of_the_bus():
    clock, (a, b) = hall_of("A", "B")
    cache = b.hall.seat_ratings.cache
    assert cache.rating("Ann", "nim/classic") == {"rating": 0.0, "games": 0, "provisional": True}
    b.bus.stop()
    from tests.test_ratings_chat import rated
    rated(a.hall.store, ["Ann", "Bob"], 0, game="nim", variant="classic")    # a game rated meanwhile
    b.bus.start()
    b.bus.on_state(True)
    settle(clock, HEARTBEAT)
    assert cache.rating("Ann", "nim/classic")["games"] == 1
