"""Engine state -> NetAcquire directives: score sheet indexes, colours, requests, views."""
from types import SimpleNamespace

import pytest

from gamehall_acquire.rules import Decision, Game
from gamehall_acquire.tiles import NAMES
from gamehall_acquire.wire import render
from gamehall_acquire.wire.codec import Directive, encode


def bag(first: list[str]) -> list[str]:
    return first + [t for t in NAMES if t not in first]


def founded_game():
    """Ann (position 1A) plays 1B, founds Tower and buys two; Bob's position tile is 12I."""
    game = Game.new(["Ann", "Bob"], tile_bag=bag(["1A", "12I", "1B", "3A", "5A", "5B", "7A", "9A"]))
    game.apply(0, {"play_tile": "1B"})
    game.apply(0, {"found_chain": "Tower"})
    return game


def test_score_sheet_indexes():
    game = founded_game()
    game.apply(0, {"purchase": {"Tower": 2}, "end_game": False})
    sheet = render.score_sheet(game)
    assert [sheet[i] for i in range(1, 7)] == ["Ann", "Bob", "", "", "", ""]
    assert sheet[9] == "25" and sheet[10] == "22"          # available: Luxor, Tower
    assert sheet[17] == "0" and sheet[18] == "2"           # sizes
    assert sheet[25] == "0" and sheet[26] == "2"           # prices in hundreds
    assert sheet[40] == "3" and sheet[41] == "0"           # Tower holdings of Ann, Bob
    assert sheet[33] == sheet[75] == "0"
    assert sheet[82] == "5600" and sheet[83] == "6000"
    assert 84 not in sheet and 35 not in sheet             # no third player
    assert render.holding_index(6, 5) == 80


def test_sync_sends_only_changes_and_never_blank_names_to_a_fresh_sheet():
    view = render.ClientView()
    first = view.sync_captions(render.name_captions(["Ann"]))
    assert first == [render.caption(1, "Ann")]
    assert view.sync_captions(render.name_captions(["Ann", "Bob"])) == [render.caption(2, "Bob")]
    assert view.sync_captions(render.name_captions(["Bob"])) == [render.caption(1, "Bob"), render.caption(2, "")]


def test_board_and_rack_views():
    game = founded_game()
    view = render.ClientView()
    board = view.sync_board(game)
    assert sorted(board) == sorted([render.d("SB", 1, 65535), render.d("SB", 2, 65535), render.d("SB", 108, 12632256)])
    assert view.sync_board(game) == []
    rack = view.sync_rack(game, 0)
    # slot 1 was played: hidden until the draw after the purchase
    assert rack[0] == render.rack_visible(1, False)
    assert rack[1:3] == [render.d("AT", 2, 19, 12632256), render.rack_visible(2, True)]      # 3A
    assert len([x for x in rack if x.code == "AT"]) == 5
    assert view.sync_rack(game, 0) == []
    game.apply(0, {"purchase": {}, "end_game": False})
    # refilled in the same slot with 1I (the next tile of the bag), then shown again
    assert view.sync_rack(game, 0) == [render.d("AT", 1, 9, 12632256), render.rack_visible(1, True)]


@pytest.mark.parametrize("status, colour", [
    ("playable", 12632256), ("found", 12648384), ("grow", 12648384), ("merge", 12648384),
    ("unplayable_now", 6316128), ("dead", 8421504),
])
def test_rack_colours(status, colour):
    assert render.rack_colour(SimpleNamespace(tile_status=lambda tile: status), "1A") == colour


def fake(kind, options, seat=0, players=("Ann", "Bob")):
    return SimpleNamespace(pending=lambda: Decision(seat, kind, options), players=list(players))


@pytest.mark.parametrize("kind, options, expected, waiting", [
    ("play_tile", {"tiles": ["1A"]}, "GT;", "play tile"),
    ("found_chain", {"chains": ["Luxor", "Tower", "Imperial"]}, "GC;4,1,2,7", "select new chain"),
    ("choose_survivor", {"chains": ["Festival", "American"]}, "GC;6,4,3", "select merger survivor"),
    ("choose_defunct", {"chains": ["Worldwide", "Continental"]}, "GC;8,5,6", "select chain to merge"),
    ("dispose", {"chain": "Tower", "survivor": "Worldwide", "shares": 4, "survivor_available": 15,
                 "merger_seat": 1, "price": 300}, "GD;True,Tower,4,15,65535,16512", "dispose of Tower shares"),
    ("dispose", {"chain": "Tower", "survivor": "Worldwide", "shares": 4, "survivor_available": 15,
                 "merger_seat": 0, "price": 300}, "GD;False,Tower,4,15,65535,16512", "dispose of Tower shares"),
    ("purchase", {"can_end": False, "cash": 6000, "chains": {}, "prices": {}}, "GP;0,6000", "make purchase"),
    ("purchase", {"can_end": True, "cash": 123, "chains": {}, "prices": {}}, "GP;-1,123", "make purchase"),
])
def test_requests_and_waiting_messages(kind, options, expected, waiting):
    game = fake(kind, options)
    out = render.request(game, 0)
    assert out[0].code == "SV" and out[0].params[:4] == ("frmNetAcquire", "status", "-1", "SimpleText")
    assert encode(out[-1]).decode() == expected
    assert render.request(game, 1) == []
    assert render.waiting_message(game) == Directive("GM", (f"*Waiting for Ann to {waiting}.",))


def test_chain_codes():
    assert render.chain_from_code("255") == "Luxor"
    assert render.chain_from_code(" 16711935") == "Imperial"
    assert render.chain_from_code("12632319") == "Imperial"       # the protocol text's colour
    assert render.chain_from_code("3") == "American"
    for bad in ["0", "8", "12632256", "x", ""]:
        with pytest.raises(ValueError):
            render.chain_from_code(bad)


def test_texts_that_clients_split_are_made_safe():
    assert render.message_box("E", 'A;"b"', "c;d\ne").params == ("E;A,'b';c,d e",)
    assert render.status_bar('a, b; "c"').params[-1] == "a b, 'c'".replace(",", "")


def test_event_messages_keep_private_tiles_private():
    names = ["Ann", "Bob"]
    drawn = {"type": "tile_drawn", "seat": 0, "slot": 2, "tile": "5C"}
    assert render.event_directives(drawn, names, 0) == [render.gm("> You drew tile 5C.")]
    assert render.event_directives(drawn, names, 1) == []
    assert render.event_directives(drawn, names, None) == []
    none = {"type": "no_playable_tile", "seat": 1}
    assert render.NO_PLAYABLE_TILE in render.event_directives(none, names, 1)
    assert render.NO_PLAYABLE_TILE not in render.event_directives(none, names, 0)
    assert render.event_directives({"type": "turn", "seat": 1}, names, None) == [render.gm("*** Bob's turn.")]
    assert render.event_directives({"type": "future_event"}, names, None) == []
    winners = render.winner_messages({"scores": [100, 900], "winners": [1]}, names)
    assert winners == [render.gm("***** Bob has won with $900!")]


def _encoded(directives):
    return [encode(x) for x in directives]


@pytest.mark.parametrize("framing", ["encode", "wire"])
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_shared_snapshot_views_send_what_per_client_views_send(seed, framing):
    """ClientView.sync_shared (one TableSnapshot per update, shared) == ClientView.sync, per client.

    With the protocol's ``wire`` the snapshot frames board cells, captions and rack tiles
    itself (encoded.py) and colours a rack in one engine call: the bytes must be
    ``wire`` of what ``sync`` gives, at every step of whole games (the market captions
    before every purchase request too)."""
    import random

    from gamehall_acquire.wire.encoded import wire

    encoder = encode if framing == "encode" else wire

    def framed(directives):
        return [encoder(x) for x in directives]

    game = Game.new(["Ann", "Bob", "Cid", "Dee"], seed=seed)
    rng = random.Random(seed)
    table = SimpleNamespace(engine=game, seq=0, players=lambda: list(game.players), cache={})
    seats = [0, 1, 2, 3, None]
    plain = [render.ClientView() for _ in seats]
    shared = [render.ClientView() for _ in seats]
    late_plain = late_shared = None
    steps = purchases = 0
    while True:
        snap = render.snapshot(table, {"events": []}, encoder=encoder)
        for seat, a, b in zip(seats, plain, shared):
            chunks, count = b.sync_shared(snap, seat)
            assert chunks == framed(a.sync(game, seat)) and count == len(chunks)
        if late_plain is not None:
            chunks, _ = late_shared.sync_shared(snap, None)
            assert chunks == framed(late_plain.sync(game, None))
        if steps == 15:                                    # a spectator who comes in late
            late_plain, late_shared = render.ClientView(), render.ClientView()
        decision = game.pending()
        if decision is not None and decision.kind == "purchase":     # the market before the request
            purchases += 1
            seat = decision.seat
            chunks, count = shared[seat].refresh_wire(snap, render.market_indexes())
            assert list(chunks) == framed(plain[seat].refresh(game, render.market_indexes())) and count == 14
            assert _encoded(shared[seat].refresh(game, render.market_indexes(), snap)) == \
                _encoded(plain[seat].refresh(game, render.market_indexes()))
        if game.is_over() or steps > 400:
            break
        game.apply(decision.seat, rng.choice(game.legal_actions()))
        table.seq += 1
        steps += 1
    assert purchases > 20
    # the same snapshot again sends nothing
    snap = render.snapshot(table, encoder=encoder)
    assert all(v.sync_shared(snap, s) == ([], 0) for s, v in zip(seats, shared))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_request_wire_is_the_framed_request(seed):
    """render.request_wire (tile and chain requests framed once) == wire of render.request,
    for every seat at every step of whole games, every kind of decision met."""
    import random

    from gamehall_acquire.wire.encoded import wire

    game = Game.new(["Ann", "Bob", "Cid", "Dee"], seed=seed)
    rng = random.Random(seed)
    kinds = set()
    while not game.is_over():
        decision = game.pending()
        kinds.add(decision.kind)
        for seat in range(4):
            expected = tuple(wire(x) for x in render.request(game, seat, decision))
            assert render.request_wire(game, seat, decision) == expected
            assert render.request_wire(game, seat) == expected
        game.apply(decision.seat, rng.choice(game.legal_actions()))
    assert {"play_tile", "purchase", "found_chain"} <= kinds


def test_a_rack_tile_that_leaves_without_reaching_the_board_empties_its_cell():
    """Clients mark a rack tile's cell as 'in my rack' on AT until an SB for that cell."""
    racks = [["1A", "2B", None, None, None, None]]
    game = SimpleNamespace(racks=racks, board={}, tile_status=lambda tile: "playable")
    view = render.ClientView()
    view.sync_rack(game, 0)
    racks[0][0] = "3C"                               # 1A set aside (dead), 3C drawn into its slot
    racks[0][1] = None                               # 2B set aside, nothing left to draw
    assert view.sync_rack(game, 0) == [
        render.d("SB", 1, render.EMPTY_CELL), render.d("AT", 1, 21, 12632256),
        render.d("SB", 11, render.EMPTY_CELL), render.rack_visible(2, False)]
    game.board["3C"] = None                          # played: the board's own SB clears the cell
    racks[0][0] = None
    assert view.sync_rack(game, 0) == [render.rack_visible(1, False)]


def _random_game(seed: int, on_update=None):
    """A 4-player game of random bots that nobody ends early; ``on_update(game)`` after each action.

    Returns the game and the events of its last action."""
    from gamehall_acquire.bots import make_bot
    game = Game.new(["A", "B", "C", "D"], seed=seed)
    bots = [make_bot("random", seed * 10 + i) for i in range(4)]
    events = []
    while not game.is_over():
        seat = game.pending_seat()
        action = dict(bots[seat].choose(game, seat))
        if "end_game" in action:
            action["end_game"] = False
        events = game.apply(seat, action)
        if on_update is not None:
            on_update(game)
    return game, events


def test_dead_tiles_set_aside_on_the_last_turn_leave_no_cell_marked_in_a_rack():
    from gamehall_acquire.tiles import tile_id
    from tests.netacquire.naclient import PlayerLogic
    seed = next((s for s in range(300) if any(e["type"] == "tile_dead" for e in _random_game(s)[1])), None)
    assert seed is not None, "no game ended with a dead tile set aside"
    views = [render.ClientView() for _ in range(4)]
    clients = [PlayerLogic(name) for name in "ABCD"]

    def update(game):
        for seat in range(4):
            for directive in views[seat].sync(game, seat):
                clients[seat].receive(directive.code, list(directive.params))

    game, last = _random_game(seed, update)
    set_aside = {tile_id(e["tile"]) for e in last if e["type"] == "tile_dead"}
    for seat, client in enumerate(clients):
        # clients mark a rack tile's cell on AT until an SB: only tiles still in the rack stay marked
        assert client.marked == {tile_id(t) for t in game.racks[seat] if t is not None}
        assert not client.marked & set_aside


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_snapshots_score_sheet_list_is_the_score_sheet_in_index_order(players):
    import random
    rng = random.Random(players)
    game = Game.new([f"P{i}" for i in range(players)], seed=players)
    for _ in range(400):
        order = render.sheet_order(players)
        assert order == sorted(render.score_sheet(game))
        assert render.score_sheet_values(game) == [render.score_sheet(game)[i] for i in order]
        snap = render.TableSnapshot(game)
        assert snap.sheet == render.score_sheet(game)
        if game.is_over():
            break
        decision = game.pending()
        game.apply(decision.seat, rng.choice(game.legal_actions()))


@pytest.mark.parametrize("text", [
    "Waiting for Ann to play tile", 'Waiting for "Bo;b", the 2nd to make purchase',
    "Waiting for Zoë\tand  co to select chain to merge", "x" * 9000, "", " edge ;: case ",
])
def test_directives_framed_directly_are_what_wire_frames(text):
    from gamehall_acquire.wire import encoded
    assert render.status_bar_wire(text) == encoded.wire(render.status_bar(text))
    assert encoded.message_wire("GM", text) == (None if len(text) > 8000 else encoded.wire(render.gm(text)))
    assert render.d("GP", -1, 6000, True) == Directive("GP", ("-1", "6000", "True"))
    assert type(render.gm(text)) is Directive and render.gm(text) == Directive("GM", (text,))
