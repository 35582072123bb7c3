"""The ratings a table's seats show (gamehall/seat_ratings.py): read from the store without
waiting, drawn in the web page's seat list beside the names, told once at the start to the old
clients in their own words, and read again when a game of the players ends."""
from __future__ import annotations

from twisted.internet.defer import Deferred, maybeDeferred
from twisted.python.failure import Failure

from tests.helpers import RecordingSink, make_hall
from tests.test_ratings_chat import rated
from tests.test_table import play_until_over
from tests.web.webharness import Client, make_web

KEY = "nim/classic"


def _done(d):
    out = []
    d.addBoth(out.append)
    if isinstance(out[0], Failure):
        out[0].raiseException()
    return out[0]


def register(hall, *names):
    hall.players.run = lambda f, *a: maybeDeferred(f, *a)
    return {n: _done(hall.players.register(n, "correct horse", "10.0.0.1")) for n in names}


def store_rating(hall, name):
    row = next(r for r in hall.store.player_ratings(name).result if r["rating_key"] == KEY)
    return {"rating": round(row["rating"], 1), "games": row["games"], "provisional": row["games"] < 10}


def seed(hall):
    """Ann and Bob have played two rated Nim games already."""
    rated(hall.store, ["Ann", "Bob"], 0, game="nim", variant="classic")
    rated(hall.store, ["Ann", "Bob"], 0, game="nim", variant="classic")


def test_the_web_seat_list_shows_each_registered_players_rating_beside_the_name():
    hall, site, _ = make_web()
    seed(hall)
    players = register(hall, "Ann")
    ann = Client(site)
    ann.send({"type": "sign_in", "nickname": "Ann", "password": "correct horse", "token": "a" * 20})
    assert ann.last("welcome")["registered"] is True
    guest = Client(site)
    guest.sign_in("Gus")
    guest.send({"type": "lobby"})
    ann.send({"type": "create", "game": "nim", "seats": 3})
    table = hall.tables[ann.last("created")["table"]]
    guest.send({"type": "join", "table": table.id})
    table.add_bot("perfect")
    hall.clock.advance(2)                                  # the lobby's window
    line = guest.table_lines()[-1]
    assert [s["name"] for s in line["seats"]] == ["Ann", "Gus", table.seats[2].name]   # names unchanged
    assert line["seats"][0]["registered"] is True and "registered" not in line["seats"][1]
    assert line["ratings"] == [store_rating(hall, "Ann"), None, {"rating": 0.0, "games": 0, "provisional": True}]
    assert players["Ann"].name == "Ann"
    ann_state = ann.last("table")["summary"] if ann.of("table") else ann.last("table_state")["table"]
    assert ann_state["ratings"][0] == store_rating(hall, "Ann")


def test_ratings_are_read_without_waiting_and_the_table_redrawn_when_they_arrive():
    hall, site, _ = make_web()
    seed(hall)
    reads = []
    real = hall.store.player_ratings

    def held(name):
        d = Deferred()
        reads.append((name, d))
        return d
    hall.store.player_ratings = held
    watcher = Client(site)
    watcher.sign_in("Wes")
    watcher.send({"type": "lobby"})
    ann, bob = hall.login("Ann", "nim", RecordingSink()), hall.login("Bob", "nim", RecordingSink())
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    for seat in table.seats:
        seat.registered = True
    assert hall.seat_ratings.for_table(table) == [None, None]        # not read yet: drawn without
    assert sorted(n for n, _ in reads) == ["Ann", "Bob"]
    assert hall.seat_ratings.for_table(table) == [None, None] and len(reads) == 2   # one read each
    hall.clock.advance(2)
    before = len(watcher.table_lines())
    hall.store.player_ratings = real
    for name, d in reads:
        d.callback(real(name).result)
    hall.clock.advance(2)
    line = watcher.table_lines()[-1]
    assert len(watcher.table_lines()) > before
    assert line["ratings"] == [store_rating(hall, "Ann"), store_rating(hall, "Bob")]


def test_the_start_tells_every_player_the_ratings_once_in_a_table_notice():
    hall = make_hall()
    seed(hall)
    sinks = {n: RecordingSink() for n in ("Ann", "Bob", "Gus")}
    users = {n: hall.login(n, "nim", s) for n, s in sinks.items()}
    table = hall.create_table("nim", max_seats=4, creator=users["Ann"])
    table.join(users["Bob"])
    table.join(users["Gus"])
    table.add_bot("perfect")
    table.seats[0].registered = table.seats[1].registered = True
    table.start(users["Ann"])
    notices = [d for _, e, d in sinks["Gus"].events if e == "chat" and d.get("notice") == "ratings"]
    ann, bob = store_rating(hall, "Ann"), store_rating(hall, "Bob")
    assert [n["text"] for n in notices] == [
        f"Ratings at this table ({KEY}, mean - 3 deviations): Ann {ann['rating']:.1f} provisional, "
        f"Bob {bob['rating']:.1f} provisional, {table.seats[3].name} (bot:nim:perfect) 0.0 provisional"]
    hall.table_changed(table)
    assert len([d for _, e, d in sinks["Ann"].events if e == "chat" and d.get("notice") == "ratings"]) == 1


def test_a_game_of_guests_tells_no_ratings():
    hall = make_hall()
    sink = RecordingSink()
    ann, bob = hall.login("Ann", "nim", sink), hall.login("Bob", "nim", RecordingSink())
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    table.start(ann)
    assert not [d for _, e, d in sink.events if e == "chat" and d.get("notice") == "ratings"]


def test_a_finished_game_has_its_players_ratings_read_again_once_its_end_is_stored():
    hall = make_hall()
    seed(hall)
    ann, bob = hall.login("Ann", "nim", RecordingSink()), hall.login("Bob", "nim", RecordingSink())
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    for seat in table.seats:
        seat.registered = True
    hall.seat_ratings.for_table(table)                   # read: cached
    before = hall.seat_ratings.for_table(table)
    assert before == [store_rating(hall, "Ann"), store_rating(hall, "Bob")]
    table.start(ann)
    play_until_over(hall, table, [ann, bob])
    assert store_rating(hall, "Ann")["games"] == 3
    assert hall.seat_ratings.cache.rating("Ann", KEY) == store_rating(hall, "Ann")
    assert hall.seat_ratings.cache.rating("Bob", KEY) == store_rating(hall, "Bob")


def test_over_the_wire_the_start_line_is_a_netacquire_game_message_and_an_et_note():
    from gamehall_et.game import EuphratesTigrisGame
    from gamehall_et.wire.protocol import build_factory
    from tests.et.harness import Conn
    hall = make_hall(games={"et": EuphratesTigrisGame()})
    rated(hall.store, ["Ann", "Bob"], 0, game="et", variant="standard")
    keys = {n: _done(hall.players.make_key(p)) for n, p in register(hall, "Ann", "Bob").items()}
    factory = build_factory(hall)
    conns = {}
    for name in ("Ann", "Bob"):
        conns[name] = Conn(factory)
        conns[name].send(f"name {name}+{keys[name]}")
    table = hall.create_table("et", max_seats=2, creator=hall.lobby.find("Ann"))
    table.join(hall.lobby.find("Bob"))
    assert [s.registered for s in table.seats] == [True, True]
    table.start(hall.lobby.find("Ann"))
    rows = {r["name"]: r for r in hall.store.standings("et/standard").result}
    text = (f"Ratings at this table (et/standard, mean - 3 deviations): Ann {rows['Ann']['rating']:.1f} "
            f"provisional, Bob {rows['Bob']['rating']:.1f} provisional")
    for conn in conns.values():
        assert any(text in line for line in conn.lines()), conn.lines()[-5:]


def test_over_netacquires_wire_the_start_line_is_a_game_room_message():
    from gamehall_acquire.wire.protocol import build_factory
    from tests.netacquire.harness import Conn, acquire_hall, pump_all
    from tests.test_players_wire import register as register_with_key
    hall = acquire_hall()
    key = register_with_key(hall, "Alice")
    rated(hall.store, ["Alice", "Bob"], 0)                 # an Acquire 2-player rating
    owner = Conn(build_factory(hall), "alice+" + key, 2)
    pump_all([owner])
    alice = hall.lobby.find("alice")
    table = hall.create_table("acquire", max_seats=2, creator=alice)
    table.add_bot("strong")
    table.start(alice)
    pump_all([owner])
    row = next(r for r in hall.store.player_ratings("Alice").result if r["rating_key"] == "acquire/classic/2p")
    line = (f"*: Ratings at this table (acquire/classic/2p, mean - 3 deviations): Alice {row['rating']:.1f} "
            f"provisional, {table.seats[1].name} (bot:acquire:strong) 0.0 provisional")
    assert line in owner.logic.gm, owner.logic.gm
    assert [p for p in owner.logic.gm if "Ratings at this table" in p] == [line]   # once


def test_a_failed_read_leaves_the_seat_without_a_rating_and_is_tried_again_later_not_at_every_draw():
    from twisted.internet.defer import fail
    from gamehall.store import StoreError
    hall = make_hall()
    seed(hall)
    real, calls = hall.store.player_ratings, []

    def failing(name):
        calls.append(name)
        return fail(StoreError("the store is down"))
    hall.store.player_ratings = failing
    cache = hall.seat_ratings.cache
    assert cache.rating("Ann", KEY) is None and cache.rating("Ann", KEY) is None
    assert calls == ["Ann"]                          # not again at every draw
    hall.store.player_ratings = real
    hall.clock.advance(31)
    assert cache.rating("Ann", KEY) == store_rating(hall, "Ann")
