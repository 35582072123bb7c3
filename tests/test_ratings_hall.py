"""Who the hall rates, through real tables of the example Nim game (a MemoryStore and a Clock):
registered humans and the hall's bots; guests in the computation but not kept; no rating
without a registered human, nor for an aborted game; a player whose seat a bot finished
places last; a failed rating write stalls the table and its retry counts once; a rebuild
gives the live ratings.

Registration itself is another part of the hall (the seat's ``registered`` flag, set when a
registered player sits down); these tests set the flag on the seat."""
from __future__ import annotations

from gamehall.ratings import rate_game, recompute
from gamehall.store import StoreError
from gamehall.table import FINISHED
from tests.helpers import RecordingSink, make_hall
from tests.test_table import play_until_over

KEY = "nim/normal"


def login(hall, name):
    return hall.login(name, "nim", RecordingSink())


def game(hall, names, registered=(), bots=(), start=True):
    """A Nim table of ``names`` (the first creates it) and ``bots`` (levels), started."""
    users = [login(hall, n) if hall.lobby.find(n) is None else hall.lobby.find(n) for n in names]
    table = hall.create_table("nim", max_seats=len(names) + len(bots), creator=users[0])
    for user in users[1:]:
        table.join(user)
    for level in bots:
        table.add_bot(level)
    for seat in table.seats:
        seat.registered = seat.name in registered
    if start:
        table.start(users[0])
    return table, users


def variant_key(table):
    return f"nim/{table.variant}"


def test_registered_human_rated_guest_in_the_computation_but_not_kept():
    hall = make_hall()
    table, users = game(hall, ["Ann", "Bob"], registered={"Ann"})
    play_until_over(hall, table, users)
    assert table.state == FINISHED
    key = variant_key(table)
    rows = hall.store.standings(key).result
    assert [r["player"] for r in rows] == ["ann"]
    places = [1 if seat == table.engine.winner else 2 for seat in range(2)]
    want = rate_game({}, ["ann", "guest"], places)["ann"]
    assert abs(rows[0]["mu"] - want.mu) < 1e-9 and rows[0]["games"] == 1
    assert hall.store.player_ratings("Bob").result == []
    assert [g["table_id"] for g in hall.store.player_games("Ann").result] == [table.store_id]


def test_guests_only_and_an_aborted_game_are_not_rated():
    hall = make_hall()
    table, users = game(hall, ["Ann", "Bob"])
    play_until_over(hall, table, users)
    assert table.state == FINISHED
    table, users = game(hall, ["Cy", "Dee"], registered={"Cy", "Dee"})
    table.act(users[table.engine.pending_seat()], {"take": 1})
    table.abort("closed by the operator")
    assert hall.store.rating_keys().result == []
    assert hall.store.load_table(table.store_id).result["state"] == "aborted"


def test_a_guest_with_bots_is_not_rated_a_registered_player_with_bots_is():
    hall = make_hall()
    table, users = game(hall, ["Ann"], bots=["perfect"])
    play_until_over(hall, table, users)
    assert hall.store.rating_keys().result == []
    table, users = game(hall, ["Bob"], registered={"Bob"}, bots=["perfect", "perfect"])
    play_until_over(hall, table, users)
    rows = hall.store.standings(variant_key(table)).result
    assert sorted(r["player"] for r in rows) == ["bob", "bot:nim:perfect"]
    # the bot level sat twice and counts one game
    assert {r["player"]: r["games"] for r in rows} == {"bob": 1, "bot:nim:perfect": 1}


def test_a_seat_finished_by_a_bot_places_its_player_last():
    hall = make_hall()
    table, users = game(hall, ["Ann", "Bob", "Cy"], registered={"Ann", "Bob", "Cy"})
    ann = users[0]
    table.act(users[table.engine.pending_seat()], {"take": 1})
    table.leave(ann, release=True)                   # Ann gives up; a bot plays her seat
    assert table.seats[0].kind == "bot"
    play_until_over(hall, table, users[1:])
    assert table.state == FINISHED
    history = {name: hall.store.rating_history(name).result[0] for name in ("Ann", "Bob", "Cy")}
    # whoever won, Ann (gone) is last; of the two who played on, the winner is first
    winner = table.engine.winner
    assert history["Ann"]["place"] == 3
    if winner in (1, 2):     # the other one of them took no stone last: second
        assert [history["Bob"]["place"], history["Cy"]["place"]] == ([1, 2] if winner == 1 else [2, 1])
    else:                    # the bot won Ann's seat: Bob and Cy share the first place left
        assert [history["Bob"]["place"], history["Cy"]["place"]] == [1, 1]
    assert not any(r["player"].startswith("bot:") for r in hall.store.standings(variant_key(table)).result)


def test_a_failed_rating_write_stalls_the_table_and_its_retry_counts_once():
    hall = make_hall()
    store = hall.store

    def fails(*args):
        raise StoreError("disk full")

    store._rated_rows = fails
    table, users = game(hall, ["Ann", "Bob"], registered={"Ann", "Bob"})
    play_until_over(hall, table, users)
    assert table.stalled
    assert store.load_table(table.store_id).result["state"] == "playing"
    assert store.rating_keys().result == []
    del store._rated_rows
    hall.clock.advance(1.0)                          # the table retries its write
    assert not table.stalled
    assert store.load_table(table.store_id).result["state"] == "finished"
    assert [r["games"] for r in store.standings(variant_key(table)).result] == [1, 1]
    hall.clock.advance(60.0)
    assert [r["games"] for r in store.standings(variant_key(table)).result] == [1, 1]


def test_rebuild_after_a_run_of_games_equals_the_live_ratings():
    hall = make_hall()
    names = ["Ann", "Bob", "Cy", "Dee"]
    played = []
    for n in range(12):
        seated = [names[(n + i) % 4] for i in range(2 + n % 2)]
        registered = {name for i, name in enumerate(seated) if (n + i) % 3}
        table, users = game(hall, seated, registered=registered, bots=["perfect"] if n % 4 == 0 else [])
        play_until_over(hall, table, users)
        assert table.state == FINISHED
        played.append(table)
    store = hall.store
    keys = [k["key"] for k in store.rating_keys().result]
    live = {k: store.standings(k, limit=100).result for k in keys}
    histories = {name: store.rating_history(name).result for name in names}
    assert sum(len(v) for v in live.values()) >= 5
    counts = store.rebuild_ratings().result
    assert counts["games"] == sum(1 for t in played if any(s.registered for s in t.seats))
    assert {k: store.standings(k, limit=100).result for k in keys} == live
    assert {name: store.rating_history(name).result for name in names} == histories
    # and the live ratings are the pure recomputation of the games in order
    games = []
    for t in played:
        if not any(s.registered for s in t.seats):
            continue
        seats = [s.name.casefold() if s.registered else
                 (f"bot:nim:{s.bot}" if s.kind == "bot" else f"guest {t.id} {i}")
                 for i, s in enumerate(t.seats)]
        places = [1 if i == t.engine.winner else 2 for i in range(len(seats))]
        games.append((variant_key(t), seats, places))
    want = recompute(games)
    for k, rows in live.items():
        for row in rows:
            assert abs(row["mu"] - want[k][row["player"]].mu) < 1e-9
            assert row["games"] == want[k][row["player"]].games
