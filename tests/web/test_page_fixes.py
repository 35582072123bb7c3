"""What the pages rely on the hall for, over the JSON protocol on a Clock: a replay names
its board script, a leave sticks, a refused move gives the decision back, a finished
game's address shows its result, a reload is not announced, an open table without a
creator is startable (docs/web.md)."""
from __future__ import annotations

from gamehall_web.session import RELOAD_GRACE
from gamehall_web.site import WebHall
from tests.helpers import RecordingSink
from tests.web.test_protocol import play_to_the_end
from tests.web.webharness import Client, Jobs, NimView, make_web, playing


class ScriptedNimView(NimView):
    """The tiny view with a drawing script, as every installed game's view has."""

    script = ("tests", "nim.js")


# -- 1. a replay names the game's board script ------------------------------------------
def test_a_replay_names_the_board_script_the_page_must_load():
    hall, _, _ = make_web()
    site = WebHall(hall, {"nim": ScriptedNimView()}, compute=Jobs())
    ann, table = playing(hall, site)
    play_to_the_end(hall, ann, table.id)
    fresh = Client(site)                     # a fresh /records/N: no board script loaded yet
    fresh.send({"type": "replay", "id": table.store_id})
    assert fresh.last("replay")["script"] == "/views/nim.js"


# -- 2. a leave sticks ----------------------------------------------------------------------
def test_a_player_who_leaves_is_not_put_back_in_the_seat_by_a_reload():
    hall, site, _ = make_web()
    ann, table = playing(hall, site)
    token = ann.last("welcome")["token"]
    ann.send({"type": "leave"})
    assert table.seats[0].kind == "bot"
    assert hall.lobby.find("Ann") is not None          # still signed in to the lobby
    ann.lose()
    hall.clock.advance(RELOAD_GRACE)
    again = Client(site)
    again.sign_in("Ann", token)
    assert not again.of("table_state") and not again.errors()
    assert table.seats[0].kind == "bot" and table.seats[0].user is None
    again.send({"type": "join", "table": table.id})     # nor by asking for it
    assert "no seat held for Ann" in again.errors()[-1]
    assert table.seats[0].kind == "bot"
    # the release is stored: a restart does not give the seat back either
    row = hall.store.load_table(table.store_id)
    stored = []
    row.addCallback(stored.append)
    assert stored[0]["options"]["humans"] == []


def test_a_seat_lost_without_leaving_still_comes_back():
    hall, site, _ = make_web()
    ann, table = playing(hall, site)
    token = ann.last("welcome")["token"]
    ann.lose()
    hall.clock.advance(RELOAD_GRACE)                    # not a reload: the seat is held
    hall.clock.advance(hall.seat_hold + 1)              # the hold ran out: a bot plays it
    assert table.seats[0].kind == "bot"
    again = Client(site)
    again.sign_in("Ann", token)
    assert again.last("table_state")["seat"] == 0 and table.seats[0].kind == "human"


# -- 3. a refused move gives the decision back ----------------------------------------------
def test_a_refused_action_is_followed_by_the_decision_again_with_its_timer():
    hall, site, _ = make_web()
    ann, table = playing(hall, site)
    hall.clock.advance(5)
    ann.new()
    ann.send({"type": "act", "action": {"take": 7}})
    after = ann.new()
    assert [m["type"] for m in after] == ["error", "decision"]
    assert after[0]["request"] == "act" and "Take 1 to 3 stones" in after[0]["message"]
    decision = after[1]
    assert decision["table"] == table.id and decision["seat"] == 0
    assert decision["decision"]["choices"][0]["action"] == {"take": 1}
    assert decision["deadline_in"] == 55.0


# -- 6. a reload is not announced -----------------------------------------------------------
def test_a_reload_within_the_grace_is_not_announced_to_anyone():
    hall, site, _ = make_web()
    sink = RecordingSink()
    hall.login("Nate", "netacquire", sink)
    ann, table = playing(hall, site)
    token = ann.last("welcome")["token"]
    hall.clock.advance(2)
    hall.lobby.flush()
    sink.lobby.clear()
    ann.lose()                                          # the page reloads
    hall.clock.advance(1)
    again = Client(site)
    again.sign_in("Ann", token)
    hall.clock.advance(RELOAD_GRACE * 2)
    hall.lobby.flush()
    users = [(e, d) for e, d in sink.lobby if e in ("user_joined", "user_left", "users_changed")]
    assert users == []
    assert hall.lobby.find("Ann").sink is again.session
    state = again.last("table_state")
    assert state["seat"] == 0 and state["decision"] is not None
    assert table.seats[0].user is again.session.user and table.seats[0].kind == "human"
    assert not [d for _, e, d in sink.events if e == "left"]


def test_not_back_within_the_grace_is_a_leave_as_before():
    hall, site, _ = make_web()
    sink = RecordingSink()
    hall.login("Nate", "netacquire", sink)
    ann = Client(site)
    ann.sign_in("Ann")
    hall.clock.advance(2)
    sink.lobby.clear()
    ann.lose()
    hall.clock.advance(RELOAD_GRACE - 0.1)
    assert hall.lobby.find("Ann") is not None
    hall.clock.advance(0.1)
    assert hall.lobby.find("Ann") is None
    assert ("user_left", {"nickname": "Ann", "frontend": "web"}) in sink.lobby


def test_another_browser_within_the_grace_ends_it_at_once():
    hall, site, _ = make_web()
    ann, table = playing(hall, site)
    ann.lose()
    thief = Client(site)
    thief.sign_in("Ann", "another-browser-token-123")
    assert "held for its player" in thief.errors()[-1]
    assert table.seats[0].user is None and table.held_seat("Ann") == 0


# -- 4. a finished game's address, and a result missed while away ------------------------
def test_a_finished_games_address_shows_its_result_and_record():
    hall, site, _ = make_web()
    ann, table = playing(hall, site)
    play_to_the_end(hall, ann, table.id)
    visitor = Client(site)                          # a reload of /table/N, or a link to it
    visitor.send({"type": "watch", "table": table.id})
    over = visitor.last("table_over")
    assert over["table"] == table.id and over["state"] == "finished"
    assert over["record"]["id"] == table.store_id and over["record"]["winners"]
    assert over["players"] == ["Ann", "PerfectBot1"]
    assert not visitor.errors()
    visitor.send({"type": "watch", "table": 999})
    assert visitor.errors() == ["No game #999"] and visitor.last("error")["request"] == "watch"


def test_after_a_restart_a_player_back_is_told_the_result_of_the_game_finished_meanwhile(hall_store):
    from tests.hallstores import advance, drain, flush, settle
    from tests.helpers import make_hall
    hall, site, _ = make_web(store=hall_store.open())
    ann, table = playing(hall, site)
    flush(table)
    token, number = ann.last("welcome")["token"], table.id
    # the hall stops here (a crash); it restarts on the same store and the game goes on
    again = make_hall(store=hall_store.restart(hall.store))
    assert settle(again.restore()) == 1
    site2 = WebHall(again, {"nim": NimView()})
    advance(again, again.seat_hold + 1, step=again.seat_hold + 1)   # Ann is not back: a bot plays her seat
    advance(again, 100, step=1)
    assert number not in again.tables                # finished, in the store only
    back = Client(site2)
    back.send({"type": "hello", "nickname": "Ann", "token": token, "table": number})
    drain(again.store)                               # (the result is read from the store)
    over = back.last("table_over")
    assert over["table"] == number and over["state"] == "finished" and over["players"][0] == "Ann"
    # another browser with Ann's name is told nothing of it (nor is an error shown)
    back.lose()
    again.clock.advance(RELOAD_GRACE)
    other = Client(site2)
    other.send({"type": "hello", "nickname": "Ann", "token": "another-browser-token-123", "table": number})
    drain(again.store)
    assert not other.of("table_over") and not other.errors()


# -- 5. the DAIDE front end's open Diplomacy table ---------------------------------------
def test_an_empty_open_table_is_hidden_and_one_who_sits_fills_it_with_bots_and_starts():
    import pytest
    pytest.importorskip("gamehall_daide.wire.protocol")
    from twisted.plugins.gamehall_daide_plugin import _DiplomacyPlugin

    from gamehall_daide.wire.protocol import rooms_of
    from tests.helpers import make_hall
    hall = make_hall(games={"diplomacy": _DiplomacyPlugin()})
    site = WebHall(hall)
    rooms = rooms_of(hall)
    ann = Client(site)
    ann.sign_in("Ann")
    ann.send({"type": "lobby"})
    ann.new()
    table = rooms.open_table()                       # no creator, nobody there
    assert table.creator is None
    assert ann.new() == [{"type": "lobby_table_removed", "id": table.id}]
    bob = Client(site)
    bob.send({"type": "lobby"})
    assert bob.last("lobby")["tables"] == []
    ann.send({"type": "join", "table": table.id})
    hall.lobby.flush()                               # (table changes are gathered for a second)
    assert ann.table_lines()[-1]["id"] == table.id   # someone there: listed
    token = ann.last("welcome")["token"]
    ann.send({"type": "start", "fill": True})
    assert not ann.errors()
    assert table.state == "playing" and [s.kind for s in table.seats] == ["human"] + ["bot"] * 6
    # the web player's seat keeps the browser's token, not a DAIDE passcode
    ann.lose()
    hall.clock.advance(RELOAD_GRACE)
    again = Client(site)
    again.sign_in("Ann", token)
    assert again.last("table_state")["seat"] == 0 and not again.errors()
    # the next open table is hidden again until someone sits
    bob.send({"type": "lobby"})
    assert [t["id"] for t in bob.last("lobby")["tables"]] == [table.id]
