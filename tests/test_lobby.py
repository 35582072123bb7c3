"""The shared lobby: nicknames, user notices batched on the hall clock, who is where."""
from __future__ import annotations

import pytest
from twisted.internet.task import Clock
from zope.interface import implementer

from gamehall.interfaces import IUserSink
from gamehall.lobby import Lobby, LobbyError, User, check_nickname
from tests.helpers import RecordingSink, make_hall


# -- nicknames ---------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    "*", "a*b", "**Admin**",                     # '*' is how the operator's announcements look
    "a\x07b", "tab\there", "del\x7f", "c1\x85c1",  # controls (Cc)
    "zero\u200bwidth", "joiner\u200d", "bom\ufeff", "soft\u00adhyphen",           # format (Cf)
    "evil\u202egnp.exe", "lre\u202a", "isolate\u2066x\u2069", "mark\u200f", "alm\u061c",
    "line\u2028sep", "para\u2029sep",            # Zl, Zp
    "private\ue000", "surrogate\ud800",          # Co, Cs
    "unassigned\U000e0fff",                      # Cn
    "a,b", "a;b", "a:b", 'a"b',
])
def test_nicknames_refused(name):
    with pytest.raises(LobbyError) as refused:
        check_nickname(name)
    assert str(refused.value).startswith("Nickname may not contain")


@pytest.mark.parametrize("name", ["Zoë", "Bits & Bytes", "李雷", "O'Neil", "x<y>", "Ünïcödé", "a-b_c.d"])
def test_nicknames_accepted(name):
    assert check_nickname(f"  {name} ") == name


def test_the_reason_names_the_character():
    with pytest.raises(LobbyError, match="U\\+202E"):
        check_nickname("a\u202eb")


# -- batched user notices ---------------------------------------------------------
@implementer(IUserSink)
class CountingSink(RecordingSink):
    calls = 0

    def lobby_changed(self, event, detail):
        CountingSink.calls += 1
        super().lobby_changed(event, detail)


def login_many(lobby: Lobby, n: int, clock: Clock | None = None, step: float = 0.0) -> list[User]:
    users = []
    for i in range(n):
        users.append(lobby.add(User(nickname=f"user{i}", frontend="test", sink=CountingSink())))
        if clock is not None and step:
            clock.advance(step)
    return users


def test_logins_cost_linear_not_quadratic_notices():
    clock = Clock()
    lobby = Lobby(clock=clock)
    CountingSink.calls = 0
    users = login_many(lobby, 2000)
    clock.advance(lobby.window)
    # the first login is told at once (to itself), the other 1,999 in one batch to each user
    assert CountingSink.calls == 1 + 2000
    last = users[-1].sink.lobby
    assert last == [("users_changed", {"joined": [{"nickname": f"user{i}", "frontend": "test"}
                                                  for i in range(1, 2000)], "left": []})]
    assert users[0].sink.lobby[0] == ("user_joined", {"nickname": "user0", "frontend": "test"})


def test_without_a_clock_every_login_is_told_to_everyone():
    lobby = Lobby()
    CountingSink.calls = 0
    login_many(lobby, 200)
    assert CountingSink.calls == 200 * 201 // 2


def test_logins_spread_over_time_cost_one_notice_per_user_per_window():
    clock = Clock()
    lobby = Lobby(clock=clock)
    CountingSink.calls = 0
    login_many(lobby, 1000, clock, step=0.01)          # 1,000 logins over 10 seconds
    clock.advance(lobby.window)
    windows = 10 / lobby.window + 2
    assert CountingSink.calls <= 1000 * windows       # against 500,500 one by one
    assert sum(len(u.sink.lobby) for u in lobby.users.values()) == CountingSink.calls


def test_a_quiet_lobby_tells_a_single_arrival_at_once():
    clock = Clock()
    hall = make_hall()
    hall.clock.advance(100)
    ann = hall.login("Ann", "nim", RecordingSink())
    hall.clock.advance(5)
    hall.login("Bob", "nim", RecordingSink())
    assert ann.sink.lobby[-1] == ("user_joined", {"nickname": "Bob", "frontend": "nim"})
    del clock


def test_came_and_went_within_the_window_is_not_told_and_order_is_kept():
    hall = make_hall()
    ann = hall.login("Ann", "nim", RecordingSink())        # told at once, opens the window
    bob = hall.login("Bob", "nim", RecordingSink())
    ghost = hall.login("Ghost", "nim", RecordingSink())
    hall.logout(ghost)
    hall.logout(bob)
    cy = hall.login("Cy", "nim", RecordingSink())
    hall.clock.advance(1)
    assert ann.sink.lobby[-1] == ("users_changed", {"joined": [{"nickname": "Cy", "frontend": "nim"}],
                                                    "left": []})
    assert cy.sink.lobby[-1] == ann.sink.lobby[-1]
    # after the batch, the next change waits for the window again, then goes out
    hall.logout(cy)
    assert ann.sink.lobby[-1][0] == "users_changed"
    hall.clock.advance(1)
    assert ann.sink.lobby[-1] == ("users_changed", {"joined": [], "left": [{"nickname": "Cy", "frontend": "nim"}]})


def test_netacquire_renders_a_batch_as_names_or_a_count():
    from tests.netacquire.harness import acquire_hall, connect, pump_all
    hall = acquire_hall()
    hall.clock.advance(10)
    _, (ann,) = connect(hall, ["Ann"])
    hall.clock.advance(10)
    for name in ("Bob", "Cy"):
        hall.login(name, "nim", RecordingSink())            # Bob at once, Cy in a batch
    hall.clock.advance(1)
    pump_all([ann])
    assert ann.logic.lm[-2:] == ["# Bob has entered the lobby.", "# Cy has entered the lobby."]
    for i in range(37):
        hall.login(f"Guest{i}", "nim", RecordingSink())
    hall.clock.advance(1)
    pump_all([ann])
    assert ann.logic.lm[-1] == "# 37 users have entered the lobby."
    for i in range(5):
        hall.logout(hall.lobby.find(f"Guest{i}"))
    hall.clock.advance(1)
    pump_all([ann])
    assert ann.logic.lm[-1] == "# 5 users have left."


# -- batched table notices --------------------------------------------------------
def table_notices(sink) -> list[tuple[str, dict]]:
    return [(event, detail) for event, detail in sink.lobby if event.startswith("table")]


def busy_lobby(users: int):
    hall = make_hall()
    people = [hall.login(f"user{i}", "nim", CountingSink()) for i in range(users)]
    hall.clock.advance(10)
    return hall, people


def test_a_burst_of_table_changes_is_one_notice_per_user_not_one_per_change():
    hall, people = busy_lobby(200)
    CountingSink.calls = 0
    tables = []
    for i in range(0, 200, 2):     # 100 games made, joined and started at once: 400 changes
        table = hall.create_table("nim", creator=people[i])
        table.join(people[i + 1])
        table.start()
        tables.append(table)
    assert all(t.state == "playing" for t in tables)
    # the first change (game 1 made) is told at once, the rest wait for the window's end
    assert CountingSink.calls == 200
    hall.clock.advance(hall.lobby.window)
    assert CountingSink.calls == 2 * 200            # one pass each: 400 x 200 = 80,000 before
    watcher = people[-1].sink
    assert table_notices(watcher)[0] == ("table_added", {**tables[0].summary(), "state": "waiting",
                                                         "seats": [], "creator": "user0"})
    assert watcher.lobby[-1][0] == "tables_changed"
    batch = watcher.lobby[-1][1]
    assert batch["changed"] == [tables[0].summary()]      # told before the window: changed since
    assert batch["added"] == [t.summary() for t in tables[1:]]   # each once, latest state: playing
    assert batch["removed"] == []
    assert all(p.sink.lobby[-1][1] is batch for p in people)      # one detail for every sink


def test_tables_gone_within_the_window_are_told_gone_once():
    hall, people = busy_lobby(3)
    ann, bob, cy = people
    first = hall.create_table("nim", creator=ann)        # told at once: the window opens
    brief = hall.create_table("nim", creator=bob)        # made and gone within it
    brief.leave(bob)
    assert brief.id not in hall.tables
    first.leave(ann)                                     # told before, gone now
    hall.clock.advance(hall.lobby.window)
    # the one made and gone is told gone (a user who came in between saw it in a snapshot)
    assert table_notices(cy.sink) == [("table_added", {**first.summary(), "seats": []}),
                                      ("tables_changed", {"added": [], "changed": [],
                                                          "removed": [first.id, brief.id]})]
    # quiet for a window: the next change goes out at once again
    hall.clock.advance(hall.lobby.window)
    third = hall.create_table("nim", creator=cy)
    assert ann.sink.lobby[-1] == ("table_added", {**third.summary(), "seats": []})
    hall.lobby.flush()                                   # the join, gathered, sent now
    assert ann.sink.lobby[-1] == ("tables_changed", {"added": [], "changed": [third.summary()], "removed": []})


def test_without_a_clock_every_table_change_is_told_at_once():
    lobby = Lobby()
    lobby.add(User(nickname="ann", frontend="test", sink=RecordingSink()))

    class Table:
        id = 7

        def summary(self):
            return {"id": 7, "state": "waiting"}
    lobby.table_notice("table_added", Table())
    lobby.table_notice("table_changed", Table())
    lobby.table_notice("table_removed", Table())
    assert [e for e, _ in lobby.users["ann"].sink.lobby[1:]] == ["table_added", "table_changed", "table_removed"]


# -- who is where -------------------------------------------------------------------
def test_where_says_waiting_playing_or_watching():
    hall = make_hall()
    ann = hall.login("Ann", "nim", RecordingSink())
    bob = hall.login("Bob", "nim", RecordingSink())
    cy = hall.login("Cy", "nim", RecordingSink())
    assert ann.where() == "in lobby"
    table = hall.create_table("nim", creator=ann)
    table.join(bob)
    table.watch(cy)
    assert ann.where() == f"waiting at game #{table.id}"
    assert cy.where() == f"watching game #{table.id}"
    table.start(ann)
    assert ann.where() == bob.where().replace("Bob", "Ann") == f"playing in game #{table.id}"
