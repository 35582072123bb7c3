"""A held seat goes back only to its own player: the same address (protocols without
passwords), the same secret (protocols with), or the operator's one-use `allow NICK`."""
from __future__ import annotations

import pytest
from twisted.internet.address import IPv4Address

from gamehall.admin import Console
from gamehall.identity import ALLOW_TTL
from gamehall.table import PLAYING, TableError
from tests.hallstores import flush, settle
from tests.helpers import RecordingSink, make_hall


def login(hall, name, address):
    return hall.login(name, "nim", RecordingSink(), address)


def game(hall, secrets=(None, None)):
    ann = login(hall, "Ann", "10.0.0.1")
    bob = login(hall, "Bob", "10.0.0.2")
    table = hall.create_table("nim", max_seats=2)
    table.join(ann, secret=secrets[0])
    table.join(bob, secret=secrets[1])
    table.start()
    return ann, bob, table


HELD = "the seat of Bob at game #1 is held for its player; reconnect from the same address " \
       "or ask the operator to `allow Bob`"


def test_a_held_seat_goes_back_only_to_the_same_address():
    hall = make_hall()
    ann, bob, table = game(hall)
    hall.logout(bob)
    thief = login(hall, "bob", "10.6.6.6")     # logging in under the name still works
    assert hall.held_table("bob") is table
    with pytest.raises(TableError) as refused:
        hall.held_table("bob").reconnect(thief)
    assert str(refused.value) == HELD
    assert table.seats[1].user is None and thief.table is None
    hall.logout(thief)
    back = login(hall, "Bob", "10.0.0.2")
    table.reconnect(back)
    assert table.seats[1].user is back


def test_a_seat_a_bot_took_over_follows_the_same_rule():
    hall = make_hall()
    ann, bob, table = game(hall)
    hall.kick("Bob")
    assert table.seats[1].kind == "bot"
    with pytest.raises(TableError, match="held for its player"):
        table.reconnect(login(hall, "Bob", "10.6.6.6"))
    assert table.seats[1].kind == "bot"


def test_the_operators_allow_works_once_and_expires():
    hall = make_hall()
    ann, bob, table = game(hall)
    console = Console(hall)
    hall.logout(bob)
    out = []
    console.execute("allow Bob").addCallback(out.append)
    assert "Bob" in out[0] and "once" in out[0]
    moved = login(hall, "Bob", "10.9.9.9")
    table.reconnect(moved)                     # from a new address, allowed by the operator
    assert table.seats[1].user is moved and table.seats[1].address == "10.9.9.9"
    hall.logout(moved)
    with pytest.raises(TableError):            # used up
        table.reconnect(login(hall, "Bob", "10.0.0.2"))
    hall.logout(hall.lobby.find("Bob"))
    table.reconnect(login(hall, "Bob", "10.9.9.9"))   # the seat now belongs to the new address
    hall.logout(hall.lobby.find("Bob"))
    hall.allow("bob")
    hall.clock.advance(ALLOW_TTL + 1)
    assert table.seats[1].kind == "bot"        # (the hold ran out meanwhile)
    with pytest.raises(TableError):            # expired
        table.reconnect(login(hall, "Bob", "10.1.1.1"))


def test_secrets_are_kept_hashed_and_checked_whatever_the_address():
    hall = make_hall()
    ann, bob, table = game(hall, secrets=("ann-pw", "bob-pw"))
    stored = hall.store.load_table(table.store_id).result["seats"]
    assert all("secret" in s and "pw" not in s["secret"] for s in stored)
    assert [s["address"] for s in stored] == ["10.0.0.1", "10.0.0.2"]
    assert all("secret" not in s and "address" not in s for s in table.summary()["seats"])
    hall.logout(bob)
    with pytest.raises(TableError, match="with its password"):
        table.reconnect(login(hall, "Bob", "10.0.0.2"), secret="wrong")   # same address, bad password
    hall.logout(hall.lobby.find("Bob"))
    with pytest.raises(TableError, match="with its password"):
        table.reconnect(login(hall, "Bob", "10.0.0.2"))                   # no password at all
    hall.logout(hall.lobby.find("Bob"))
    table.reconnect(login(hall, "Bob", "172.16.0.1"), secret="bob-pw")
    assert table.seats[1].user.address == "172.16.0.1"
    # a front end may set (or change) the secret once the player is seated
    table.set_secret(0, "new")
    hall.logout(ann)
    with pytest.raises(TableError):
        table.reconnect(login(hall, "Ann", "10.0.0.1"), secret="ann-pw")
    hall.logout(hall.lobby.find("Ann"))
    table.reconnect(login(hall, "Ann", "10.0.0.1"), secret="new")


def test_who_sat_where_survives_a_restart(hall_store):
    hall = make_hall(store=hall_store.open())
    ann, bob, table = game(hall)
    flush(table)
    table.act(table.seats[table.engine.pending_seat()].user, {"take": 1})
    flush(table)
    again = make_hall(store=hall_store.restart(hall.store))
    assert settle(again.restore()) == 1
    (new,) = again.tables.values()
    with pytest.raises(TableError, match="held for its player"):
        new.reconnect(login(again, "Ann", "10.6.6.6"))
    again.logout(again.lobby.find("Ann"))
    new.reconnect(login(again, "Ann", "10.0.0.1"))
    assert new.state == PLAYING and new.seats[0].user is not None


def test_a_database_from_before_the_rule_gives_seats_back_by_name():
    hall = make_hall()
    ann, bob, table = game(hall)
    for seat in table.seats:                    # as stored before seats had an address
        seat.address = None
    hall.logout(bob)
    table.reconnect(login(hall, "Bob", "10.6.6.6"))


def test_check_return_for_front_ends_that_keep_a_user_logged_in():
    hall = make_hall()
    ann, bob, table = game(hall)
    with pytest.raises(TableError, match="held for its player"):
        hall.check_return(bob, "10.6.6.6")
    hall.check_return(bob, "10.0.0.2")
    hall.allow("Bob")
    hall.check_return(bob, "10.7.7.7")
    assert bob.address == "10.7.7.7" and table.seats[1].address == "10.7.7.7"
    loner = login(hall, "Cy", "10.0.0.3")     # not seated: its login address decides
    with pytest.raises(TableError):
        hall.check_return(loner, "10.0.0.4")
    hall.check_return(loner, "10.0.0.3")


# -- through the front ends ----------------------------------------------------

def test_netacquire_login_from_another_address_does_not_get_the_seat(monkeypatch):
    from tests.netacquire import harness
    from tests.netacquire.harness import Conn, pump_all
    from tests.netacquire.test_game import setup_game
    hall, factory, table, conns, _ = setup_game(["Ann", "Bob"], 21)
    for conn in conns:
        conn.spectator = False
    pump_all(conns, hall, until=lambda: len(table.engine.board) > 6)
    conns[1].read()
    conns[1].drop()
    assert hall.held_table("Bob") is table
    monkeypatch.setattr(harness, "IPv4Address", lambda kind, host, port: IPv4Address(kind, "192.0.2.7", port))
    thief = Conn(factory, "Bob", 78, seed=5, answer=False)
    assert thief.logic.states[-1] != 6                        # logged in, but not in the game
    assert any("held for its player" in line and "allow Bob" in line for line in thief.logic.lm)
    assert table.seats[1].user is None and hall.held_table("Bob") is table
    thief.drop()
    hall.allow("Bob")
    moved = Conn(factory, "Bob", 79, seed=6, answer=False)   # same other address, now allowed
    assert moved.logic.states[-1] == 6 and table.seats[1].user is not None


def test_windward_rejoin_from_another_address_is_refused(monkeypatch):
    from tests.windward import test_wire_protocol as ww
    h = ww.Harness(bot_delay=0.01)
    c = ww.started_one_client(h)
    ww.next_query(h, c)
    table = ww.table_of(h)
    c.drop()
    h.clock.advance(0)
    monkeypatch.setattr(ww, "IPv4Address", lambda kind, host, port: IPv4Address(kind, "192.0.2.9", port))
    thief = h.join("Ann")
    assert not [m for m in thief.messages() if m.tag == "setup"] and thief.refused()
    assert h.service.contestants["ann"].stats["joins"] == 1
    h.hall.allow("Ann")
    again = h.join("Ann")
    assert not again.closed and [m for m in again.messages() if m.tag == "setup"]
    assert table.seats[0].address == "192.0.2.9"


def test_no_return_to_a_stalled_table():
    from tests.test_store_failure import FaultyStore
    store = FaultyStore()
    hall = make_hall(store=store)
    ann, bob, table = game(hall)
    store.fail("append_action", 1)
    table.act(table.seats[table.engine.pending_seat()].user, {"take": 1})
    assert table.stalled
    with pytest.raises(TableError, match="paused; try again shortly"):
        hall.check_return(bob, "10.0.0.2")
    hall.clock.advance(1)
    hall.check_return(bob, "10.0.0.2")
