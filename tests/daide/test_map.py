import pytest

from gamehall_daide import mapdata
from gamehall_daide.mapdata import GameMap, item_loc, loc_text


@pytest.fixture(scope="module")
def g():
    return mapdata.load()


def test_counts(g):
    assert len(g.provinces) == 75
    assert len(g.centres) == 34
    assert len(g.is_sea) == 19
    assert g.bicoastal == {"STP", "SPA", "BUL"}
    assert g.powers == ("AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR")


def test_homes_and_start(g):
    assert g.homes["RUS"] == ("MOS", "SEV", "STP", "WAR")
    assert sum(len(h) for h in g.homes.values()) == 22
    assert len(g.start_units) == 22
    assert ("RUS", "FLT", "STP/SCS") in g.start_units
    assert g.start_turn == ("SPR", 1901)
    assert g.start_owners["STP"] == "RUS" and "BEL" not in g.start_owners


def test_adjacency_is_symmetric(g):
    for a, targets in g.army_adj.items():
        for b in targets:
            assert a in g.army_adj[b]
    for a, targets in g.fleet_adj.items():
        for b in targets:
            assert a in g.fleet_adj[b]


def test_unit_types(g):
    assert "MUN" not in g.fleet_locs or g.fleet_locs["MUN"] == ()
    assert g.army_adj["NTH"] == frozenset()           # no army at sea
    assert g.can_stand("FLT", "STP/NCS") and not g.can_stand("FLT", "STP")
    assert not g.can_stand("FLT", "MUN") and not g.can_stand("AMY", "NTH")
    assert g.adjacent("FLT", "BAR", "STP/NCS") and not g.adjacent("FLT", "BAR", "STP/SCS")
    assert g.adjacent("AMY", "PAR", "BUR") and not g.adjacent("AMY", "PAR", "MAR")


def test_coast_helpers():
    assert loc_text("STP/NCS") == "( STP NCS )"
    assert loc_text("LON") == "LON"
    assert item_loc(["STP", "NCS"]) == "STP/NCS"
    assert item_loc(["STP"]) is None


def test_distances(g):
    # DATC 6.J.6: both Russian fleets are three moves from a home centre
    assert g.home_distance("RUS", "BER", "FLT") == 3
    assert g.home_distance("RUS", "HEL", "FLT") == 3
    # DATC 6.J.11: an army counts a sea area as one step
    assert g.home_distance("ITA", "GRE", "AMY") == 2
    assert g.home_distance("ITA", "SIL", "AMY") == 3


def test_not_mdf_rejected():
    with pytest.raises(ValueError):
        GameMap("NOW (SPR 1901)", "", "")
    with pytest.raises(ValueError):
        mapdata.load("nosuchmap")
