"""Message flows of the real C++ DAIDE clients (DumbBot, RandBot, HoldBot) in-process: the
game starts only once every player has accepted the map, HLO comes once, a SUB for a
phase already processed is refused, seven DRWs end the game at once, the daide-client's
rejoin (NME, REJ (NME), IAM) after a crash and after a hall restart, and ADM notices when
the store stalls the game."""
from twisted.internet.defer import Deferred

from gamehall.store import MemoryStore
from gamehall.table import PLAYING, RESUMED_TEXT, STALLED_TEXT, WAITING
from tests.daide.client import Client
from tests.daide.test_server_game import seven, unit_orders
from tests.daide.wire import Link, daide_hall, factory_of, pump
from tests.test_store_failure import FaultyStore


class MapLater(Client):
    """Asks for MDF and leaves the map unanswered until the test says YES (MAP)."""

    def on_message(self, m: list) -> None:
        if m[0] == "MDF":
            self.learn_map(m)
            return
        super().on_message(m)


class NmeFirstRejoin(Client):
    """The daide-client's ``-rPOW:passcode``: NME first, IAM only after REJ (NME)."""

    def __init__(self, name: str, power: str, code: int, **kw) -> None:
        super().__init__(name, **kw)
        self.power, self.passcode = power, code

    def on_message(self, m: list) -> None:
        if m[0] == "REJ" and m[1][0] == "NME":
            self.send(f"IAM ( {self.power} ) ( {self.passcode} )")
            return
        if m[0] == "YES" and m[1][0] == "IAM":
            self.send("NOW")
            return
        super().on_message(m)


def playing(hall):
    return next(t for t in hall.tables.values() if t.state == PLAYING)


def test_the_game_starts_when_the_seventh_player_accepts_the_map_and_hlo_comes_once():
    hall = daide_hall()
    factory = factory_of(hall)
    six = [Link(factory, Client(f"bot{i}", seed=i)) for i in range(6)]
    pump(six)
    last = Link(factory, MapLater("late", seed=6))
    everyone = six + [last]
    pump(everyone)
    assert [m[0] for m in last.client.received[:3]] == ["YES", "MAP", "MDF"]
    assert not any("HLO" in link.client.names() for link in everyone)     # its map is pending
    table = next(t for t in hall.tables.values() if t.game.name == "diplomacy")
    assert table.state == WAITING and len(table.seats) == 7
    last.client.send("YES ( MAP ( 'STANDARD' ) )")
    pump(everyone)
    assert table.state == PLAYING
    for link in everyone:
        names = link.client.names()
        assert names.count("HLO") == 1
        assert names.index("HLO") < names.index("SCO") < names.index("NOW")
    assert table.engine.turn() != ("SPR", 1901)              # and they all order


class HeldStore(MemoryStore):
    """A store whose table creation completes only when the test says (a slow disk)."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list = []

    def create_table(self, *args, **kw):
        done = Deferred()
        self.held.append((done, super().create_table(*args, **kw)))
        return done

    def release(self) -> None:
        held, self.held = self.held, []
        for done, real in held:
            real.addCallback(done.callback)


def test_hlo_is_sent_once_when_the_start_is_stored_after_the_map_is_accepted():
    store = HeldStore()
    hall = daide_hall(store=store)
    links = seven(hall, factory_of(hall), quiet=range(7))
    assert store.held and not any("HLO" in link.client.names() for link in links)   # not stored yet
    store.release()
    pump(links)
    assert all(link.client.names().count("HLO") == 1 for link in links)
    assert all(link.client.names().count("NOW") == 1 for link in links)


def test_a_sub_for_a_phase_already_processed_is_refused_not_taken_for_the_next():
    hall = daide_hall()
    links = seven(hall, factory_of(hall), quiet=range(7))
    table = playing(hall)
    for link in links[1:]:
        link.client.send("SUB " + " ".join(unit_orders(link.client)))
    pump(links)
    first = links[0].client
    spring = "SUB " + " ".join(unit_orders(first))
    first.send(spring)             # completes SPR 1901 ...
    first.send(spring)             # ... and this one, sent before its FAL NOW came, is stale
    pump(links)
    assert table.engine.turn() == ("FAL", 1901)
    assert first.received[-1][0] == "REJ" and first.received[-1][1][0] == "SUB"
    assert table.engine.orders_of(first.power) == []           # nothing ordered for FAL
    assert first.last("NOW")[1] == ["FAL", 1901]
    first.send("SUB " + " ".join(unit_orders(first)))        # after the NOW: for FAL, accepted
    pump(links)
    assert first.received[-1][0] in ("THX", "MIS") and table.engine.orders_of(first.power)


def test_seven_drw_without_orders_end_the_game_at_once():
    hall = daide_hall()
    links = seven(hall, factory_of(hall), quiet=range(7))
    table = playing(hall)
    for link in links:
        link.client.send("DRW")
    pump(links)
    assert table.engine.is_over() and table.engine.result()["reason"] == "draw"
    for link in links:
        names = link.client.names()
        assert names[-3:] == ["DRW", "SMR", "OFF"] and "ORD" not in names
    assert links[0].client.last("SMR")[1] == ["SPR", 1901]


def test_the_real_clients_rejoin_after_a_crash_nme_rej_iam():
    hall = daide_hall(seat_hold=3600.0)
    factory = factory_of(hall)
    links = seven(hall, factory, quiet=(3,))
    table = playing(hall)
    crashed = links[3].client
    power, code = crashed.power, crashed.passcode
    links[3].lose()
    rest = links[:3] + links[4:]
    pump(rest)
    assert ["CCD", [power]] in links[0].client.received
    back = Link(factory, NmeFirstRejoin("bot3", power, code, seed=3))
    pump(rest + [back])
    got = back.client.received
    assert got[0] == ["REJ", ["NME", ["'bot3'"], ["'testclient_1'"]]]
    assert got[1] == ["YES", ["IAM", [power], [code]]]
    assert "HLO" not in back.client.names() and "MAP" not in back.client.names()
    assert ["NOT", ["CCD", [power]]] in links[0].client.received
    assert table.seats[table.engine.powers.index(power)].user is not None
    assert table.engine.turn() != ("SPR", 1901)              # it ordered after its NOW
    waiting = [t for t in hall.tables.values() if t.state == WAITING]
    assert all(not t.seats for t in waiting)                 # it sits in no new table
    # a new player is not mistaken for it: another name, or the same name from elsewhere
    for newcomer in (Link(factory, Client("newbie")), Link(factory, Client("bot3"), host="10.0.0.9")):
        pump([newcomer])
        assert newcomer.client.received[0][0] == "YES" and newcomer.client.received[0][1][0] == "NME"


def test_the_real_clients_rejoin_after_a_hall_restart():
    store = MemoryStore()
    hall = daide_hall(store=store, seat_hold=3600.0)
    links = seven(hall, factory_of(hall), quiet=range(7))
    who = {link.client.name: (link.client.power, link.client.passcode) for link in links}
    for link in links:
        link.lose()
    again = daide_hall(store=store, seat_hold=3600.0)
    again.restore()
    table = playing(again)
    assert table.options["daide_rules"] == 2 and table.engine.rules == 2     # as it was started
    factory = factory_of(again)
    back = []
    for name, (power, code) in who.items():
        link = Link(factory, NmeFirstRejoin(name, power, code, seed=len(back)))
        back.append(link)
        pump(back)
        got = link.client.received
        assert got[0][0] == "REJ" and got[0][1][0] == "NME"
        assert got[1] == ["YES", ["IAM", [power], [code]]]
    pump(back)
    assert all(seat.user is not None for seat in table.seats)
    assert table.engine.turn() != ("SPR", 1901)              # all seven back and ordering


def test_the_players_are_told_in_adm_when_the_store_stalls_and_when_it_resumes():
    store = FaultyStore()
    hall = daide_hall(store=store)
    links = seven(hall, factory_of(hall), quiet=range(7))
    store.fail("append_action", 2)
    links[0].client.send("SUB " + " ".join(unit_orders(links[0].client)))
    pump(links)
    stalled = ["ADM", ["'Server'"], [f"'{STALLED_TEXT}'"]]
    resumed = ["ADM", ["'Server'"], [f"'{RESUMED_TEXT}'"]]
    for link in links:
        assert link.client.all("ADM") == [stalled]
        assert "THX" not in link.client.names()              # the unsaved orders: not told
    hall.clock.advance(1)                                     # the retry fails again
    pump(links)
    assert all(link.client.all("ADM") == [stalled] for link in links)
    hall.clock.advance(2)                                     # and then succeeds
    pump(links)
    for link in links:
        assert link.client.all("ADM") == [stalled, resumed]
    assert "THX" in links[0].client.names()
