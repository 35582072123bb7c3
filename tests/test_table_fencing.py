"""A table run under a lease (a hall of many processes) stops at once when a write is
refused because another process runs it now (StoreFenced): nothing more is written,
asked or timed, nobody hears of the refused action, the players are told to reconnect,
and the hall drops the table.  Without a lease nothing changes."""
from __future__ import annotations

from twisted.internet.task import Clock

from gamehall.hall import Hall
from gamehall.store import MemoryStore
from gamehall.table import FENCED_TEXT, PLAYING
from tests.helpers import RecordingSink, install_example_plugin

OWNER, TTL = ("me", 30.0)
NOTICE = {"nickname": "*", "text": FENCED_TEXT, "notice": "moved"}


class RecordingStore(MemoryStore):
    """A MemoryStore that records its writes, keywords included."""

    WRITES = ("create_table", "update_table", "append_action", "finish_table")

    def __init__(self, clock):
        super().__init__(clock)
        self.writes: list[tuple[str, tuple, dict]] = []

    def __getattribute__(self, name):
        attr = super().__getattribute__(name)
        if name in RecordingStore.WRITES:
            def write(*args, **kw):
                self.writes.append((name, args, kw))
                return attr(*args, **kw)
            return write
        return attr


def hall_and_store():
    install_example_plugin()
    from twisted.plugins.gamehall_nim_plugin import nim
    clock = Clock()
    store = RecordingStore(clock)
    store.open()
    return Hall(clock, store, {"nim": nim}, seat_hold=30.0, bot_delay=0.5), store


def login(hall, name):
    sink = RecordingSink()
    return hall.login(name, "nim", sink, "10.0.0.1"), sink


def leased_game(bots=0):
    hall, store = hall_and_store()
    ann, a = login(hall, "Ann")
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.lease = (OWNER, TTL)
    if bots:
        table.add_bot()
    else:
        bob, b = login(hall, "Bob")
        table.join(bob)
    table.start(ann)
    return hall, store, table, ann, a


def taken_by_another(store, table):
    """Another process takes the table's lease (as after this one's lapsed)."""
    assert store.release_lease(table.store_id, OWNER, table.lease_epoch).result is True
    assert store.take_lease(table.store_id, "other", TTL).result == table.lease_epoch + 1


def mover(table):
    return table.seats[table.engine.pending_seat()].user


def test_a_started_table_holds_its_lease_and_writes_under_its_epoch():
    hall, store, table, ann, a = leased_game()
    assert table.lease_epoch == 1
    assert store.take_lease(table.store_id, "other", TTL).result is None     # held: ours
    table.act(mover(table), {"take": 1})
    assert [(name, kw) for name, _, kw in store.writes] == [
        ("create_table", {"table_id": table.id, "lease": (OWNER, TTL)}),
        ("update_table", {"state": PLAYING, "epoch": 1}),
        ("append_action", {"epoch": 1}),
    ]
    assert len(store.load_table(table.store_id).result["actions"]) == 1


def test_a_fenced_append_stops_the_table_and_nobody_hears_of_the_action():
    hall, store, table, ann, a = leased_game()
    bob = table.seats[1].user
    b = bob.sink
    first = mover(table)
    a.events.clear(), b.events.clear()
    taken_by_another(store, table)
    table.act(first, {"take": 1})

    assert table.fenced
    for sink in (a, b):
        assert "game" not in sink.names() and "decision" not in sink.names()
        assert (table.id, "chat", NOTICE) in sink.events
    assert table.id not in hall.tables and hall.stalled == {}
    assert ann.table is None and bob.table is None              # free to reconnect elsewhere
    appends = [w for w in store.writes if w[0] == "append_action"]
    hall.clock.advance(120)                                      # never retried
    assert [w for w in store.writes if w[0] == "append_action"] == appends
    assert store.load_table(table.store_id).result["actions"] == []
    assert table._timer is None and table._bot_call is None
    assert all(seat.hold is None for seat in table.seats)


def test_a_fenced_bot_table_stops_moving():
    hall, store, table, ann, a = leased_game(bots=1)
    hall.put_bot(table.id, 1)                                    # bots on both seats
    hall.clock.advance(hall.bot_delay)
    stored = len(store.load_table(table.store_id).result["actions"])
    assert stored >= 1
    taken_by_another(store, table)
    for _ in range(20):
        hall.clock.advance(hall.bot_delay)
    assert table.fenced and table.id not in hall.tables
    assert len(store.load_table(table.store_id).result["actions"]) == stored
    assert len([w for w in store.writes if w[0] == "append_action"]) == stored + 1
    assert table._bot_call is None


def test_a_fenced_write_while_stalled_stops_the_table_too():
    """A write that failed (the store unreachable) and is retried: the retry finds another
    process runs the table now; it stops instead of retrying on."""
    hall, store, table, ann, a = leased_game()
    failing = [3]
    real = store.append_action

    def flaky(*args, **kw):
        if failing[0]:
            failing[0] -= 1
            from twisted.internet.defer import fail

            from gamehall.store import StoreError
            return fail(StoreError("database error: cannot reach the store"))
        return real(*args, **kw)

    store.append_action = flaky
    table.act(mover(table), {"take": 1})
    assert table.stalled and hall.stalled == {table.id: table}
    taken_by_another(store, table)
    failing[0] = 0
    hall.clock.advance(1)                                        # the retry is refused: fenced
    assert table.fenced and not table.stalled
    assert hall.stalled == {} and table.id not in hall.tables
    assert (table.id, "chat", NOTICE) in a.events


def test_fence_called_by_the_host_stops_the_table_at_once():
    """The lease keeper reports the lease lost (no renewal in time): the host fences the
    table before any write is refused; a write in flight is let be, nobody is told of it."""
    hall, store, table, ann, a = leased_game()
    table.fence()
    table.fence()                                                # once is enough
    assert a.events.count((table.id, "chat", NOTICE)) == 1
    assert table.id not in hall.tables
    before = len(store.writes)
    table.persist_options()                                      # nothing is written any more
    assert len(store.writes) == before


def test_without_a_lease_no_write_carries_an_epoch():
    hall, store = hall_and_store()
    ann, a = login(hall, "Ann")
    bob, b = login(hall, "Bob")
    table = hall.create_table("nim", max_seats=2, creator=ann)
    table.join(bob)
    table.start(ann)
    while table.state == PLAYING:
        table.act(mover(table), {"take": 1})
    assert table.lease_epoch is None and not table.fenced
    assert store.writes and all("epoch" not in kw and "lease" not in kw for _, _, kw in store.writes)
