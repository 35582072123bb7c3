"""The shared lobby and tables, driven with the example Nim game and a Clock."""
import pytest

from gamehall.interfaces import IllegalAction
from gamehall.lobby import LobbyError, NameTaken
from gamehall.table import ABORTED, FINISHED, PLAYING, WAITING, TableError
from tests.hallstores import flush, settle
from tests.helpers import RecordingSink, make_hall


def login(hall, name, frontend="nim"):
    sink = RecordingSink()
    return hall.login(name, frontend, sink), sink


def started_game(hall):
    """Ann and Bob playing Nim at a new table."""
    ann, _ = login(hall, "Ann")
    bob, _ = login(hall, "Bob")
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    table.start(ann)
    return ann, bob, table


def play_until_over(hall, table, humans):
    """Humans always take one stone; bots move when the clock advances."""
    for _ in range(200):
        if table.state != PLAYING:
            return
        seat = table.engine.pending_seat()
        user = table.seats[seat].user
        if user is not None and user in humans:
            table.act(user, {"take": 1})
        else:
            hall.clock.advance(hall.bot_delay)
        flush(table)                        # (a real store's write: stored before the next)
    raise AssertionError("game did not end")


def test_nicknames_are_unique_across_protocols_case_insensitively():
    hall = make_hall()
    login(hall, "Frank", "netacquire")
    with pytest.raises(NameTaken):
        login(hall, "fRANK", "nim")
    for bad in ["", "a,b", 'q"q', "x;y", "c:d", "n" * 40]:
        with pytest.raises(LobbyError):
            login(hall, bad)


def test_lobby_chat_reaches_every_protocol():
    hall = make_hall()
    _, a = login(hall, "Ann", "netacquire")
    _, b = login(hall, "Bob", "nim")
    hall.lobby.chat("Ann", "hello")
    hall.say("maintenance at noon")
    assert a.chat == b.chat == [("Ann", "hello"), ("*", "maintenance at noon")]


def test_a_failing_sink_does_not_stop_the_fan_out():
    hall = make_hall()
    bad, _ = login(hall, "Bad")
    bad.sink.lobby_chat = lambda *a: 1 / 0
    _, good = login(hall, "Good")
    hall.lobby.chat("Good", "still here")
    assert good.chat == [("Good", "still here")]


def test_join_watch_start_play_finish_and_store_result(hall_store):
    hall = make_hall(store=hall_store.open())
    ann, a = login(hall, "Ann")
    bob, b = login(hall, "Bob")
    eve, e = login(hall, "Eve")
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    with pytest.raises(TableError, match="Player limit"):
        table.join(eve)
    table.watch(eve)
    with pytest.raises(TableError, match="creator"):
        table.start(bob)
    table.start(ann)
    assert table.state == PLAYING
    flush(table)                            # told once stored
    first = table.seats[table.engine.pending_seat()].user
    assert ("decision" in (a if first is ann else b).names())
    with pytest.raises(TableError, match="not your turn"):
        table.act(bob if first is ann else ann, {"take": 1})
    pile = table.engine.pile
    with pytest.raises(IllegalAction):
        table.act(first, {"take": 4})
    assert table.engine.pile == pile and table.seq == 0
    play_until_over(hall, table, {ann, bob})
    assert table.state == FINISHED
    flush(table)
    assert "finished" in e.names()
    assert table.id not in hall.tables
    assert ann.table is None and eve.table is None
    stored = settle(hall.store.load_table(table.store_id))
    assert stored["state"] == FINISHED and len(stored["actions"]) == table.seq


def test_bots_fill_seats_and_move_on_the_clock():
    hall = make_hall()
    ann, a = login(hall, "Ann")
    table = hall.create_table("nim", max_seats=3, creator=ann)
    table.add_bot()
    table.add_bot("perfect")
    with pytest.raises(TableError, match="Unknown bot"):
        hall.create_table("nim", creator=login(hall, "Zed")[0]).add_bot("genius")
    assert [s.kind for s in table.seats] == ["human", "bot", "bot"]
    table.start(ann)
    play_until_over(hall, table, {ann})
    assert table.state == FINISHED


def test_turn_timer_plays_the_default_action():
    hall = make_hall()
    ann, bob, table = started_game(hall)
    pile = table.engine.pile
    hall.clock.advance(59)
    assert table.engine.pile == pile
    hall.clock.advance(1)
    assert table.engine.pile == pile - 1


def test_each_turn_has_its_full_time_and_the_timer_is_one_call_moved_from_turn_to_turn():
    """An answer does not leave a cancelled call per turn in the reactor's heap (where it
    would outlive the collector's young generations): the timer's one call is moved."""
    hall = make_hall()
    made = []
    call_later = hall.clock.callLater
    hall.clock.callLater = lambda *a, **kw: made.append(a[1]) or call_later(*a, **kw)
    ann, bob, table = started_game(hall)
    pile = table.engine.pile
    for turn in range(4):                    # each answered after 50 of its 60 s
        hall.clock.advance(50)
        user = table.seats[table.engine.pending_seat()].user
        table.act(user, {"take": 1})
        flush(table)
    assert table.engine.pile == pile - 4      # no timer fired: each turn had 60 s again
    assert table.turn_deadline() == hall.clock.seconds() + 60
    timer_calls = [f for f in made if getattr(f, "__self__", None) is table and f.__name__ != "_bot_move"]
    assert len(timer_calls) == 1, timer_calls       # five turns asked, one call
    assert [c for c in hall.clock.getDelayedCalls() if c.cancelled] == []
    pending = table.engine.pending_seat()
    hall.clock.advance(59)
    assert table.engine.pile == pile - 4 and table.engine.pending_seat() == pending
    hall.clock.advance(1)                     # the fifth turn's own timeout
    assert table.engine.pile == pile - 5


def test_a_turn_timer_left_over_from_an_answered_turn_does_nothing():
    """Ann answers, then nobody is asked with a timer (Bob's seat is a bot's): the answered
    turn's call still comes due and must not play for anyone."""
    hall = make_hall()
    ann, bob, table = started_game(hall)
    hall.put_bot(table.id, 2)
    assert table.engine.pending_seat() == 0
    hall.clock.advance(10)
    table.act(ann, {"take": 1})
    flush(table)
    assert table.turn_deadline() is None
    moves = table.seq
    hall.clock.advance(hall.bot_delay)        # the bot moves; Ann is asked again (a new 60 s)
    flush(table)
    assert table.seq == moves + 1 and table.engine.pending_seat() == 0
    asked_at = hall.clock.seconds()
    hall.clock.advance(60.5 - hall.clock.seconds())   # past the answered turn's old deadline
    assert table.seq == moves + 1
    hall.clock.advance(asked_at + 60 - hall.clock.seconds())
    flush(table)
    assert table.seq == moves + 2            # Ann's own turn timed out, once


def test_disconnected_seat_is_held_then_played_by_a_bot():
    hall = make_hall(seat_hold=30)
    ann, bob, table = started_game(hall)
    hall.logout(bob)
    assert hall.held_table("BOB") is table
    # Bob comes back under the same name (another protocol, even) and has his seat.
    bob2, b2 = login(hall, "bob", "netacquire")
    hall.held_table("bob").reconnect(bob2)
    assert table.seats[1].user is bob2 and bob2.table is table
    hall.logout(bob2)
    hall.clock.advance(30)
    assert table.seats[1].kind == "bot"
    play_until_over(hall, table, {ann})
    assert table.state == FINISHED


def test_leaving_a_game_in_play_hands_the_seat_to_a_bot_and_a_waiting_seat_is_freed():
    hall = make_hall()
    ann, _ = login(hall, "Ann")
    bob, _ = login(hall, "Bob")
    table = hall.create_table("nim", max_seats=3, creator=ann)
    table.join(bob)
    table.leave(bob)
    assert [s.name for s in table.seats] == ["Ann"]
    table.join(bob)
    table.start(ann)
    table.leave(bob)
    assert table.seats[1].kind == "bot" and bob.table is None


def test_operator_close_and_bot_takeover():
    hall = make_hall()
    ann, bob, table = started_game(hall)
    a = ann.sink
    hall.put_bot(table.id, 2)
    assert table.seats[1].kind == "bot"
    hall.close_table(table.id)
    assert table.state == ABORTED and "aborted" in a.names()
    assert ann.table is None and not hall.tables


def test_empty_waiting_table_disappears():
    hall = make_hall()
    ann, _ = login(hall, "Ann")
    table = hall.create_table("nim", creator=ann)
    assert table.state == WAITING
    hall.logout(ann)
    assert table.id not in hall.tables


def test_restore_replays_actions_and_holds_seats(hall_store):
    hall = make_hall(store=hall_store.open())
    ann, bob, table = started_game(hall)
    for _ in range(3):
        seat = table.engine.pending_seat()
        table.act(table.seats[seat].user, {"take": 2})
        flush(table)
    pile, turn = table.engine.pile, table.engine.turn
    # A new hall on the same store, as after a restart.
    again = make_hall(store=hall_store.restart(hall.store))
    restored = settle(again.restore())
    assert restored == 1
    (new,) = again.tables.values()
    assert (new.engine.pile, new.engine.turn) == (pile, turn)
    ann2, _ = login(again, "Ann")
    again.held_table("Ann").reconnect(ann2)
    assert new.seats[0].user is ann2


def test_a_kicked_player_loses_the_seat_to_a_bot():
    hall = make_hall()
    ann, bob, table = started_game(hall)
    b = bob.sink
    hall.kick("bob")
    assert b.disconnected and hall.lobby.find("Bob") is None
    assert table.seats[1].kind == "bot"


def test_chat_counts_only_the_users_it_reached():
    hall = make_hall()
    bad, _ = login(hall, "Bad")
    bad.sink.lobby_chat = lambda *a: 1 / 0
    login(hall, "Good")
    assert hall.say("hello") == 1


def test_the_next_human_inherits_a_waiting_table_from_its_creator():
    hall = make_hall()
    ann, _ = login(hall, "Ann")
    bob, b = login(hall, "Bob")
    table = hall.create_table("nim", max_seats=3, creator=ann)
    table.join(bob)
    table.add_bot()
    table.leave(ann)
    assert table.creator == "Bob" and "creator" in b.names()
    table.remove_bot(1)
    with pytest.raises(TableError):
        table.remove_bot(0)
    table.add_bot()
    table.start(bob)
    assert table.state == PLAYING


def test_table_chat_reaches_players_and_spectators():
    hall = make_hall()
    ann, a = login(hall, "Ann")
    eve, e = login(hall, "Eve")
    table = hall.create_table("nim", creator=ann)
    table.watch(eve)
    table.chat(ann, "hi")
    assert (table.id, "chat", {"nickname": "Ann", "text": "hi"}) in e.events


def test_operator_pause_single_step_resume_and_speed():
    hall = make_hall()
    ann, _ = login(hall, "Ann")
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.add_bot()
    table.leave(ann)            # the bot is alone: the table goes away
    assert table.id not in hall.tables
    ann2, _ = login(hall, "Ann2")
    table = hall.create_table("nim", max_seats=2, creator=ann2)
    table.add_bot()
    table.start(ann2)
    hall.put_bot(table.id, 1)   # now two bots play
    table.pause()
    seq = table.seq
    hall.clock.advance(10)
    assert table.seq == seq
    table.step()
    hall.clock.advance(hall.bot_delay)
    assert table.seq == seq + 1
    hall.clock.advance(10)
    assert table.seq == seq + 1
    table.set_speed(None)       # full speed: no delay at all
    table.resume()
    for _ in range(100):
        hall.clock.advance(0)
    assert table.state == FINISHED


def test_quiesce_pauses_tables_and_waits_for_their_writes():
    hall = make_hall()
    ann, bob, table = started_game(hall)
    hall.put_bot(table.id, 1)
    hall.put_bot(table.id, 2)
    done = hall.quiesce()
    assert done.called and table.paused
    seq = table.seq
    hall.clock.advance(60)
    assert table.seq == seq


def test_bots_get_given_names_and_their_own_seeds():
    hall = make_hall()
    ann, _ = login(hall, "Bits & Bytes <ok>")
    table = hall.create_table("nim", max_seats=3, creator=ann)
    table.add_bot(name="Sheldon Cooper")
    with pytest.raises(TableError, match="already seated"):
        table.add_bot(name="sheldon cooper")
    table.add_bot()
    assert table.players() == ["Bits & Bytes <ok>", "Sheldon Cooper", "PerfectBot1"]


def test_turn_timeout_option_per_game_and_for_all_games():
    from gamehall.tap import Options
    options = Options()
    options.parseOptions(["--turn-timeout", "7", "--turn-timeout", "acquire=0", "--admin", "tcp:0:interface=127.0.0.1"])
    assert options["turn-timeout"] == {None: 7.0, "acquire": 0.0}
    for bad in ["x", "=5", "acquire=-1", "nosuchgame=5"]:
        with pytest.raises(SystemExit, match="turn-timeout"):
            Options().parseOptions(["--turn-timeout", bad])
    # the game's own timer (Nim: 60 s) unless the operator set one; 0: no timer at all
    for timeouts, fires_after in [({}, 60), ({None: 7.0}, 7), ({"nim": 3.0, None: 7.0}, 3), ({"nim": 0}, None)]:
        hall = make_hall(turn_timeouts=timeouts)
        ann, bob, table = started_game(hall)
        hall.clock.advance((fires_after or 1000) - 0.5)
        assert table.seq == 0
        hall.clock.advance(0.5)
        assert table.seq == (1 if fires_after else 0)
    # a table created with its own turn_timeout keeps it
    hall = make_hall(turn_timeouts={None: 7.0})
    assert hall.create_table("nim", options={"turn_timeout": 2}).options["turn_timeout"] == 2


def test_a_takeover_without_a_bot_name_uses_the_tables_fill_bot():
    from twisted.plugins.gamehall_nim_plugin import nim

    class TwoBots:                   # Nim with a second bot, so the choice shows
        def __getattr__(self, name):
            return getattr(nim, name)
        bots = ("perfect", "lazy")

    hall = make_hall(games={"nim": TwoBots()})
    ann, bob, table = started_game(hall)
    hall.kick("Bob")                              # no fill_bot: the game's first bot
    assert table.seats[1].bot == "perfect"
    hall = make_hall(games={"nim": TwoBots()})
    ann, _ = login(hall, "Ann")
    bob, _ = login(hall, "Bob")
    cy, _ = login(hall, "Cy")
    table = hall.create_table("nim", max_seats=3, creator=ann, options={"fill_bot": "lazy"})
    table.join(bob), table.join(cy)
    table.start(ann)
    hall.kick("Bob")                              # kicked
    hall.put_bot(table.id, 1)                     # the operator's `bot TABLE SEAT`
    hall.logout(cy)
    hall.clock.advance(hall.seat_hold)            # the hold runs out
    assert [s.bot for s in table.seats] == ["lazy", "lazy", "lazy"]
    hall.put_bot(table.id, 1, "perfect")          # a name given still wins
    assert table.seats[0].bot == "perfect"


def test_seed_option_makes_a_hall_give_the_same_table_seeds():
    from gamehall.tap import Options, seed_source
    free = Options()
    free.parseOptions(["--admin", "tcp:0:interface=127.0.0.1"])
    assert seed_source(free) is None
    seeds = []
    for _ in range(2):
        options = Options()
        options.parseOptions(["--seed", "42", "--admin", "tcp:0:interface=127.0.0.1"])
        hall = make_hall(rng=seed_source(options))
        ann, bob, table = started_game(hall)
        seeds.append((table.seed, hall.new_seed()))
    assert seeds[0] == seeds[1]
    with pytest.raises(SystemExit, match="invalid literal"):
        Options().parseOptions(["--seed", "x"])


def test_replay_applies_earlier_actions_as_the_tables_own_and_stops_at_a_refused_one(hall_store):
    hall = make_hall(store=hall_store.open())
    _, _, first = started_game(hall)
    played = []
    for _ in range(2):
        seat = first.engine.pending_seat()
        first.act(first.seats[seat].user, {"take": 2})
        played.append((seat, {"take": 2}))
    ann, bob = login(hall, "Ann2")[0], login(hall, "Bob2")[0]
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    with pytest.raises(TableError, match="not being played"):
        table.replay(played)
    table.start(ann)
    pile = table.engine.pile
    table.replay(played)
    assert (table.engine.pile, table.seq) == (pile - 4, 2)
    hall.clock.advance(1)                   # the writes of the reactor turn
    flush(table)
    stored = settle(hall.store.load_table(table.store_id))
    assert stored["actions"] == played
    with pytest.raises(IllegalAction):
        table.replay([(table.engine.pending_seat(), {"take": 9}), (0, {"take": 1})])
    assert table.seq == 2                   # nothing after the refused one


def test_a_finished_table_is_freed_without_the_collector():
    """Once the hall has let a finished table go, reference counting frees it with its
    game: no table <-> write queue cycle left for the collector's (rare) full passes."""
    import gc
    import weakref

    hall = make_hall()
    ann, bob, table = started_game(hall)
    play_until_over(hall, table, {ann, bob})
    assert table.state == FINISHED
    flush(table)
    hall.clock.advance(5)                    # the lobby's window of table notices
    gone = weakref.ref(table)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del table
        assert gone() is None
    finally:
        if enabled:
            gc.enable()
