"""Registered names (gamehall.players): registration, keys, limits, seats, restore."""
from __future__ import annotations

import threading

import pytest
from twisted.internet import defer
from twisted.internet.defer import maybeDeferred
from twisted.python.failure import Failure
from twisted.trial.unittest import TestCase

from gamehall.lobby import LobbyError, NameTaken
from gamehall.players import (
    KEY_FAILS_PER_ADDRESS, PASSWORD_FAILS_PER_ADDRESS, PASSWORD_FAILS_PER_NAME, REGISTRATIONS_PER_ADDRESS,
    PlayerError, key_hash, split_key,
)
from gamehall.store import MemoryStore
from tests.helpers import RecordingSink, make_hall

PASSWORD = "correct horse"


def now(hall):
    """Argon2 on the test's thread: every Deferred fires at once (the hall uses a thread)."""
    hall.players.run = lambda f, *a: maybeDeferred(f, *a)
    return hall


def done(d):
    """The result of an already-fired Deferred (raising its failure)."""
    out = []
    d.addBoth(out.append)
    assert out, "the Deferred has not fired"
    if isinstance(out[0], Failure):
        out[0].raiseException()
    return out[0]


def registered(hall, name="Alice", address="10.0.0.1", key=True, wait=done):
    player = wait(hall.players.register(name, PASSWORD, address))
    return player, (wait(hall.players.make_key(player, "laptop")) if key else None)


def login(hall, name, address="10.0.0.9", **kw):
    return hall.login(name, "netacquire", RecordingSink(), address, **kw)


def test_split_key():
    assert split_key("alice+k3j9x0q2m7ab") == ("alice", "k3j9x0q2m7ab")
    assert split_key("Bits & Bytes+K3J9X0Q2M7AB") == ("Bits & Bytes", "k3j9x0q2m7ab")   # shouted: read as typed
    assert split_key("a+b") == ("a+b", None)                    # not key-shaped: part of the name
    assert split_key("+k3j9x0q2m7ab") == ("+k3j9x0q2m7ab", None)
    assert split_key("alice+k3j9x0q2m7ab+") == ("alice+k3j9x0q2m7ab+", None)


def test_a_registered_name_is_refused_without_its_key_and_so_are_its_lookalikes():
    hall = now(make_hall())
    player, key = registered(hall)
    row = done(hall.store.load_players())[0]
    assert row["name"] == "Alice" and row["password_hash"].startswith("$argon2id$")
    assert PASSWORD not in row["password_hash"]
    assert [k["key_hash"] for k in row["keys"]] == [key_hash(key)] and key not in str(row)
    for name in ("Alice", "alice", " ALICE "):
        with pytest.raises(NameTaken, match=r"Alice is registered.*Alice\+KEY"):
            login(hall, name)
    for name in ("\u0430lice", "AIice", "alicé"):                 # Cyrillic a, capital I, accent
        with pytest.raises(NameTaken, match="looks too much like Alice, a registered name"):
            login(hall, name)
    assert login(hall, "bob").registered is False                 # an unregistered name: a guest
    user = login(hall, "alice+" + key)
    assert (user.nickname, user.registered) == ("Alice", True)    # the key is gone; the registered spelling
    assert hall.players.get("alice").keys[key_hash(key)].last_used == hall.clock.seconds()


def test_a_key_works_only_for_its_own_name_and_until_revoked():
    hall = now(make_hall())
    alice, key = registered(hall)
    registered(hall, "bob", address="10.0.0.2", key=False)
    with pytest.raises(PlayerError, match="Wrong or revoked key for bob"):
        login(hall, "bob+" + key)
    with pytest.raises(PlayerError, match="carol is not a registered name"):
        login(hall, "carol+" + key)
    with pytest.raises(PlayerError, match="Wrong or revoked key for Alice"):
        login(hall, "\u0430lice+" + key)                          # a lookalike is not the name
    done(hall.players.revoke_key(alice, alice.live_keys()[0].id))
    with pytest.raises(PlayerError, match="Wrong or revoked key for Alice"):
        login(hall, "Alice+" + key)
    second = done(hall.players.make_key(alice))
    assert login(hall, "Alice", key=second).registered


def test_wrong_keys_are_limited_per_address():
    hall = now(make_hall())
    _, key = registered(hall)
    limit, period = KEY_FAILS_PER_ADDRESS
    for _ in range(limit):
        with pytest.raises(PlayerError, match="Wrong or revoked key"):
            login(hall, "Alice+aaaaaaaaaaaa", address="10.6.6.6")
    with pytest.raises(PlayerError, match="Too many wrong keys from your address; try again in 15 minutes"):
        login(hall, "Alice+" + key, address="10.6.6.6")          # even the right key, from there
    assert login(hall, "Alice+" + key, address="10.0.0.7").registered   # another address is not held up
    hall.logout(hall.lobby.find("Alice"))
    hall.clock.advance(period)
    assert login(hall, "Alice+" + key, address="10.6.6.6").registered


def test_a_key_used_from_elsewhere_while_its_owner_is_in_is_a_duplicate():
    hall = now(make_hall())
    _, key = registered(hall)
    login(hall, "Alice+" + key, address="10.0.0.1")
    with pytest.raises(NameTaken, match="Duplicate user Nickname Alice: Alice is logged in already"):
        login(hall, "Alice+" + key, address="10.9.9.9")


def test_a_guest_keeps_a_name_registered_meanwhile_until_they_leave():
    hall = now(make_hall())
    guest = login(hall, "dora", address="10.0.0.5")
    player, key = registered(hall, "Dora", address="10.0.0.6")
    assert hall.lobby.find("dora") is guest and not guest.registered
    with pytest.raises(NameTaken, match="Dora is logged in already"):
        login(hall, "Dora+" + key, address="10.0.0.6")
    hall.logout(guest)
    with pytest.raises(NameTaken, match="Dora is registered"):
        login(hall, "dora", address="10.0.0.5")
    assert login(hall, "Dora+" + key, address="10.0.0.6").registered


def test_registration_refusals_and_the_flood_limit():
    hall = now(make_hall())
    registered(hall, key=False)
    with pytest.raises(PlayerError, match="Alice is registered already"):
        done(hall.players.register("ALICE", PASSWORD, "10.0.0.2"))
    with pytest.raises(PlayerError, match="looks too much like Alice"):
        done(hall.players.register("\u0430lice", PASSWORD, "10.0.0.2"))
    with pytest.raises(PlayerError, match="at least 8 characters"):
        done(hall.players.register("erin", "short", "10.0.0.2"))
    with pytest.raises(LobbyError, match="may not contain"):
        done(hall.players.register("a:b", PASSWORD, "10.0.0.2"))
    limit, period = REGISTRATIONS_PER_ADDRESS
    for i in range(limit):
        done(hall.players.register(f"flood{i}", PASSWORD, "10.7.7.7"))
    with pytest.raises(PlayerError, match="Too many registrations from your address; try again in 60 minutes"):
        done(hall.players.register("flood9", PASSWORD, "10.7.7.7"))
    done(hall.players.register("flood9", PASSWORD, "10.7.7.8"))
    hall.clock.advance(period)
    done(hall.players.register("flood10", PASSWORD, "10.7.7.7"))


def test_wrong_passwords_are_limited_per_name_and_per_address():
    hall = now(make_hall())
    registered(hall, key=False)
    assert done(hall.players.sign_in("alice", PASSWORD, "10.0.0.1")).name == "Alice"
    limit, period = PASSWORD_FAILS_PER_NAME
    for i in range(limit):
        with pytest.raises(PlayerError, match="Wrong name or password"):
            done(hall.players.sign_in("Alice", "wrong password", f"10.1.0.{i}"))
    with pytest.raises(PlayerError, match="Too many wrong passwords; try again in 15 minutes"):
        done(hall.players.sign_in("Alice", PASSWORD, "10.2.0.1"))        # the name is held, from anywhere
    hall.clock.advance(period)
    assert done(hall.players.sign_in("Alice", PASSWORD, "10.2.0.1")).name == "Alice"
    limit, period = PASSWORD_FAILS_PER_ADDRESS
    for i in range(limit):                                  # guessing many names from one address
        with pytest.raises(PlayerError, match="Wrong name or password"):
            done(hall.players.sign_in(f"nobody{i}", "wrong password", "10.3.0.1"))
    with pytest.raises(PlayerError, match="Too many wrong passwords"):
        done(hall.players.sign_in("Alice", PASSWORD, "10.3.0.1"))


def test_change_password_needs_the_old_one_and_reset_frees_the_name():
    hall = now(make_hall())
    player, key = registered(hall)
    with pytest.raises(PlayerError, match="Wrong name or password"):
        done(hall.players.change_password(player, "not the password", "new password!", "10.0.0.1"))
    done(hall.players.change_password(player, PASSWORD, "new password!", "10.0.0.1"))
    with pytest.raises(PlayerError):
        done(hall.players.sign_in("Alice", PASSWORD, "10.0.0.1"))
    assert done(hall.players.sign_in("Alice", "new password!", "10.0.0.1")) is player
    user = login(hall, "Alice+" + key)
    done(hall.players.reset("alice"))
    assert hall.lobby.find("Alice") is user                  # stays until they leave
    assert done(hall.store.load_players()) == []
    hall.logout(user)
    assert login(hall, "alice").registered is False          # a guest's name again
    with pytest.raises(PlayerError, match="is not a registered name"):
        done(hall.players.reset("alice"))


def test_registrations_and_the_registered_seat_flag_survive_a_restart(hall_store):
    from tests.hallstores import flush, settle
    hall = now(make_hall(store=hall_store.open()))
    _, key = registered(hall, wait=settle)
    table = hall.create_table("nim", max_seats=2, creator=login(hall, "Alice+" + key))
    table.join(login(hall, "guest"))
    table.start()
    flush(table)
    seats = settle(hall.store.load_unfinished())[0]["seats"]
    assert [s.get("registered") for s in seats] == [True, None]
    again = now(make_hall(store=hall_store.restart(hall.store)))
    settle(again.restore())
    with pytest.raises(NameTaken, match="Alice is registered"):
        login(again, "alice")
    assert login(again, "Alice+" + key).registered
    restored = again.tables[table.id]
    assert [s.registered for s in restored.seats] == [True, False]
    assert [s.stored().get("registered") for s in restored.seats] == [True, None]


def test_the_web_sign_in_must_be_the_name_logged_in():
    hall = now(make_hall())
    alice, _ = registered(hall)
    bob, _ = registered(hall, "bob", address="10.0.0.2")
    with pytest.raises(PlayerError, match="signed in as bob, not Alice"):
        login(hall, "Alice", signed_in=bob)
    assert login(hall, "alice", signed_in=alice).registered


class ArgonOffTheReactorTests(TestCase):
    @defer.inlineCallbacks
    def test_passwords_are_hashed_and_checked_in_another_thread(self):
        hall = make_hall(store=MemoryStore())
        threads = []
        import gamehall.players as players

        real_hash, real_match = players.hash_password, players.password_matches

        def hashing(password):
            threads.append(threading.current_thread())
            return real_hash(password)

        def matching(stored, password):
            threads.append(threading.current_thread())
            return real_match(stored, password)

        self.patch(players, "hash_password", hashing)
        self.patch(players, "password_matches", matching)
        player = yield hall.players.register("Alice", PASSWORD, "10.0.0.1")
        self.assertIs((yield hall.players.sign_in("alice", PASSWORD, "10.0.0.1")), player)
        self.assertEqual(len(threads), 2)
        self.assertNotIn(threading.main_thread(), threads)


def test_the_operator_lists_and_resets_a_registration_from_the_console():
    from gamehall.admin import Console
    hall = now(make_hall())
    _, key = registered(hall)
    login(hall, "Alice+" + key)
    console = Console(hall)

    def run(line):
        return done(console.execute(line))

    assert run("players") == "name   live keys  online\nAlice  1          yes"
    assert run("reset-player bob") == "error: bob is not a registered name (see players)"
    assert run("reset-player alice") == ("Forget the registration of Alice (its password and 1 live key)? "
                                         "Type yes to confirm.")
    assert run("no") == "Reset cancelled."
    assert hall.players.get("alice") is not None
    run("reset-player alice")
    assert run("yes").startswith("The registration of Alice and its keys are gone")
    assert hall.players.get("alice") is None and done(hall.store.load_players()) == []
    assert run("players") == "No registered names."
