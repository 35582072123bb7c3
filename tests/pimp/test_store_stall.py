"""A failing store stalls a PIMP table: no PIMP client hears a byte about an unsaved action
(not its moves, not a join's candidates, not an error reply queued behind it) until the write
succeeds; then the messages arrive in order and the game goes on."""
from gamehall_pimp.wire.protocol import rooms_of
from tests.pimp.test_frontend import Conn, run, setup
from tests.pimp.wireclient import WireClient
from tests.test_store_failure import FaultyStore


def two_players():
    """kerz and pavlov at a table whose store can fail; the game waits at pavlov's first turn."""
    store = FaultyStore()
    hall, factory = setup(store=store)
    a, b = WireClient("kerz"), WireClient("pavlov")
    b.on_START_OF_TURN = lambda *args: None
    ca, cb = Conn(factory, a, 4001), Conn(factory, b, 4002)
    run(hall, [ca, cb])
    table = rooms_of(hall).current()
    assert (a.me, b.me) == (1, 2) and table.engine.game.phase == "roll"
    return store, hall, factory, table, (a, ca), (b, cb)


def stored_actions(store, table) -> int:
    return len(store.load_table(table.store_id).result["actions"])


def nothing_written(conns) -> bool:
    return all(c.transport.writes == [] and c.transport.value() == b"" for c in conns)


def play_to_the_end(hall, table, clients, conns):
    for client in clients:
        client.on_START_OF_TURN = WireClient.on_START_OF_TURN.__get__(client)
    g = table.engine.game
    g.options["max_turns"] = g.turns + 30
    if g.phase == "roll":                       # whose START_OF_TURN was ignored: throw now
        {c.me: c for c in clients}[g.turn].send("THROW_DICE")
    run(hall, conns, until=g.is_over)
    run(hall, conns)
    assert g.is_over() and g.winner and all(c.winner == g.winner for c in clients)
    assert not table.stalled and stored_actions(hall.store, table) == table.seq


def test_a_throw_is_told_to_nobody_until_it_is_stored_then_play_goes_on():
    store, hall, factory, table, (a, ca), (b, cb) = two_players()
    seq, seen_a, seen_b = table.seq, len(a.received), len(b.received)
    ca.transport.writes.clear(), cb.transport.writes.clear()
    store.fail("append_action", 2)              # the throw's write fails twice
    b.send("THROW_DICE")
    cb.pump()
    assert table.stalled and table.seq == seq + 1 and stored_actions(store, table) == seq
    assert nothing_written([ca, cb])            # the dice are thrown but unsaved: not told
    b.send("THROW_DICE")                        # refused while stalled ...
    cb.pump()
    assert nothing_written([ca, cb])            # ... and the refusal waits behind the write
    hall.clock.advance(1)                       # the first retry fails too
    assert table.stalled and nothing_written([ca, cb])
    hall.clock.advance(2)                       # the second retry succeeds
    assert not table.stalled and stored_actions(store, table) == seq + 1
    assert table.seq == seq + 1                 # the refused throw was not applied
    assert not nothing_written([ca, cb])
    ca.pump(), cb.pump()
    assert "DICE_ROLLED" in a.names()[seen_a:]
    told_b = b.names()[seen_b:]
    assert "DICE_ROLLED" in told_b and "ERROR_UNEXPECTED_MESSAGE" in told_b
    assert told_b.index("DICE_ROLLED") < told_b.index("ERROR_UNEXPECTED_MESSAGE")   # in order
    play_to_the_end(hall, table, [a, b], [ca, cb])


def test_a_join_whose_write_fails_reaches_nobody_until_it_is_stored():
    store, hall, factory, table, (a, ca), (b, cb) = two_players()
    c = WireClient("ann", piece=3)
    cc = Conn(factory, c, 4003)
    cc.pump()                                   # HANDSHAKE sent, acknowledged
    assert cc.transport.value() and c.me == 0
    seq = table.seq
    for conn in (ca, cb, cc):
        conn.transport.writes.clear()
    store.fail("append_action", 2)              # the join request's write fails twice
    cc.pump()                                   # reads the acknowledgement, sends JOIN
    assert "HANDSHAKE_ACKNOWLEDGE" in c.names()
    assert table.stalled and table.seq == seq + 1 and stored_actions(store, table) == seq
    assert nothing_written([ca, cb, cc])        # no QUERY_JOIN_PLAY for an unsaved candidate
    hall.clock.advance(1)
    assert table.stalled and nothing_written([ca, cb, cc])
    hall.clock.advance(2)
    assert not table.stalled and not nothing_written([ca, cb])
    run(hall, [ca, cb, cc])                     # the players vote ann in
    assert "QUERY_JOIN_PLAY" in a.names() and "QUERY_JOIN_PLAY" in b.names()
    assert c.me == 3 and "ann" in {u.nickname for u in hall.who()}
    assert table.seats[2].user is not None and table.seats[2].user.nickname == "ann"
    play_to_the_end(hall, table, [a, b, c], [ca, cb, cc])
