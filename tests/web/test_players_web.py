"""Registered names over the web's JSON protocol: register, sign in with the password,
keys shown once and revoked, password changes, and the refusals (docs/players.md)."""
from __future__ import annotations

from twisted.internet.defer import maybeDeferred

from gamehall.players import PASSWORD_FAILS_PER_NAME, REGISTRATIONS_PER_ADDRESS
from tests.web.webharness import Client, make_web

PASSWORD = "correct horse"


def web_now():
    """A web hall whose Argon2 work runs on the test's thread (every reply comes at once)."""
    hall, web, _ = make_web()
    hall.players.run = lambda f, *a: maybeDeferred(f, *a)
    return hall, web


def register(web, nickname="Alice", password=PASSWORD, peer="127.0.0.1"):
    client = Client(web, peer=peer)
    client.send({"type": "register", "nickname": nickname, "password": password})
    return client


def test_register_signs_in_and_the_name_then_needs_its_password():
    hall, web = web_now()
    alice = register(web)
    assert alice.last("registered") == {"type": "registered", "nickname": "Alice"}
    welcome = alice.last("welcome")
    assert (welcome["nickname"], welcome["registered"]) == ("Alice", True)
    assert hall.lobby.find("alice").registered
    alice.lose()
    hall.clock.advance(60)                                    # past the reload grace: signed out
    other = Client(web, peer="10.0.0.2")
    other.send({"type": "hello", "nickname": "alice"})
    assert other.errors() == ["Nickname Alice is registered. Its owner types it with their key (Alice+KEY) "
                              "or signs in with the password on the web page"]
    other.send({"type": "sign_in", "nickname": "alice", "password": "not it at all"})
    assert other.errors()[-1] == "Wrong name or password"
    other.send({"type": "sign_in", "nickname": "alice", "password": PASSWORD})
    assert other.last("welcome")["nickname"] == "Alice" and other.last("welcome")["registered"]
    guest = Client(web, peer="10.0.0.3")
    assert guest.sign_in("bob")["registered"] is False


def test_keys_are_shown_once_listed_by_id_and_revoked():
    hall, web = web_now()
    alice = register(web)
    alice.send({"type": "new_key", "label": "laptop"})
    made = alice.last("account")
    key = made["key"]
    assert made["typed"] == "Alice+" + key and len(key) == 12
    assert [(k["label"], k["revoked"]) for k in made["keys"]] == [("laptop", None)]
    alice.send({"type": "account"})
    listed = alice.last("account")
    assert "key" not in listed and key not in str(alice.messages[-1])
    assert hall.players.admit("Alice", key, "10.0.0.5") is hall.players.get("alice")   # the key works
    alice.send({"type": "revoke_key", "id": listed["keys"][0]["id"]})
    assert alice.last("account")["keys"][0]["revoked"] is not None
    alice.send({"type": "revoke_key", "id": listed["keys"][0]["id"]})
    assert alice.errors()[-1] == "No such key (revoked already?)"


def test_change_password_needs_the_current_one():
    hall, web = web_now()
    alice = register(web)
    alice.send({"type": "change_password", "old": "wrong wrong", "new": "another password"})
    assert alice.errors()[-1] == "Wrong name or password"
    alice.send({"type": "change_password", "old": PASSWORD, "new": "short"})
    assert alice.errors()[-1] == "A password has at least 8 characters"
    alice.send({"type": "change_password", "old": PASSWORD, "new": "another password"})
    assert alice.last("password_changed") == {"type": "password_changed"}
    other = Client(web, peer="10.0.0.2")
    other.send({"type": "sign_in", "nickname": "Alice", "password": PASSWORD})
    assert other.errors()[-1] == "Wrong name or password"


def test_account_requests_need_a_password_sign_in():
    hall, web = web_now()
    guest = Client(web)
    guest.sign_in("bob")
    for request in ({"type": "account"}, {"type": "new_key"}, {"type": "revoke_key", "id": "x"},
                    {"type": "change_password", "old": "a", "new": "b"}):
        guest.send(request)
        assert guest.errors()[-1] == "Sign in with your registered name's password first"
    visitor = Client(web)
    visitor.send({"type": "account"})
    assert visitor.errors()[-1].startswith("Sign in first")


def test_wrong_passwords_and_registration_floods_are_limited():
    hall, web = web_now()
    register(web).lose()
    hall.clock.advance(60)
    limit, _ = PASSWORD_FAILS_PER_NAME
    guesser = Client(web, peer="10.6.6.6")
    for _ in range(limit):
        guesser.send({"type": "sign_in", "nickname": "Alice", "password": "guess guess"})
    guesser.send({"type": "sign_in", "nickname": "Alice", "password": PASSWORD})
    assert guesser.errors()[-1] == "Too many wrong passwords; try again in 15 minutes"
    limit, _ = REGISTRATIONS_PER_ADDRESS
    for i in range(limit):
        flood = register(web, f"flood{i}", peer="10.7.7.7")
        assert flood.last("welcome")["nickname"] == f"flood{i}"
    flood = register(web, "flood9", peer="10.7.7.7")
    assert flood.errors() == ["Too many registrations from your address; try again in 60 minutes"]


def test_registering_a_name_a_guest_holds_leaves_it_to_the_guest_until_they_leave():
    hall, web = web_now()
    guest = Client(web, peer="10.0.0.9")
    guest.sign_in("dora")
    owner = register(web, "Dora", peer="10.0.0.8")
    assert owner.last("registered")["nickname"] == "Dora"
    assert owner.errors() == ["Duplicate user Nickname Dora: Dora is logged in already (a registered name lets "
                              "one connection in at a time; if that is not you, revoke your keys and change "
                              "your password on the web page) (the name is registered to you now: sign in "
                              "when it is free)"]
    assert hall.lobby.find("dora").sink is guest.session and not hall.lobby.find("dora").registered
    guest.lose()
    hall.clock.advance(60)
    owner.send({"type": "sign_in", "nickname": "Dora", "password": PASSWORD})
    assert owner.last("welcome")["registered"] is True
