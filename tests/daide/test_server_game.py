"""The level-0 conversation in-process (hall on a Clock, connections on StringTransports):
a whole game, observers, reconnects, deadlines with a vanished client, press."""
import pytest

from gamehall.table import FINISHED, PLAYING
from gamehall_daide.server import rooms_of
from tests.daide.client import Client, text_of
from tests.daide.wire import Link, daide_hall, factory_of, pump


def seven(hall, factory, **kw):
    links = [Link(factory, Client(f"bot{i}", seed=i, **kw)) for i in range(7)]
    pump(links)
    return links


def test_a_whole_game_to_a_draw():
    hall = daide_hall()
    factory = factory_of(hall)
    obs = Link(factory, Client("watcher", observer=True))
    pump([obs])
    links = seven(hall, factory, draw_year=1903)
    everyone = links + [obs]
    pump(everyone)
    for _ in range(200):
        pump(everyone)
        if all(l.client.closed_by_server for l in links):
            break
    first = links[0].client
    names = first.names()
    assert names[:2] == ["YES", "MAP"] and "HLO" in names
    assert names.index("HLO") < names.index("SCO") < names.index("NOW")
    assert "THX" in names and "ORD" in names
    assert all(m[2] == ["MBV"] for m in first.all("THX")), [text_of(m) for m in first.all("THX") if m[2] != ["MBV"]][:3]
    assert names[-3:] == ["DRW", "SMR", "OFF"] or names[-4:-1] == ["DRW", "SMR", "NOW"] or "SMR" in names
    assert "OFF" in names and first.closed_by_server
    powers = {l.client.power for l in links}
    assert len(powers) == 7
    smr = first.last("SMR")
    assert len(smr) == 9 and {entry[0] for entry in smr[2:]} == powers
    # every power saw every ORD: the same ORD lists everywhere
    assert all(l.client.all("ORD") == first.all("ORD") for l in links)
    assert obs.client.all("ORD") == first.all("ORD") and obs.client.last("HLO")[1] == ["UNO"]
    table = next(iter(hall.store.tables.values())) if hasattr(hall.store, "tables") else None
    assert not [t for t in hall.tables.values() if t.state == PLAYING]
