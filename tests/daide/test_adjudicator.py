"""Rule-by-rule tests of orders, notes, movement, retreats and adjustments."""
import pytest

from gamehall_daide import mapdata
from gamehall_daide.mapdata import province
from gamehall_daide.position import Position
from gamehall_daide.text import parse


def position(units, season="SPR", owners=None):
    pos = Position(mapdata.load())
    pos.season = season
    pos.units = {}
    for text in units:
        power, utype, where = parse(text)
        loc = mapdata.item_loc(where)
        pos.units[province(loc)] = (power, utype, loc)
    if owners is not None:
        pos.owners = dict(owners)
    return pos


def run(pos, orders):
    for power, text in orders:
        note, _ = pos.submit(power, text)
        assert note == "MBV", (text, note)
    return dict(pos.process())


def units(pos):
    return sorted(f"{p} {u} {l}" for p, u, l in pos.units.values())


# ---------------------------------------------------------------- notes
@pytest.mark.parametrize("power,order,note", [
    ("ENG", "( ENG FLT LON ) MTO NTH", "MBV"),
    ("ENG", "( ENG FLT LON ) MTO PIC", "FAR"),
    ("ENG", "( ENG FLT LON ) MTO XXX", "NSP"),
    ("ENG", "( ENG FLT YOR ) HLD", "NSU"),
    ("ENG", "( ENG AMY LON ) HLD", "NSU"),
    ("FRA", "( ENG FLT LON ) HLD", "NYU"),
    ("ENG", "( ENG FLT LON ) CVY ( ENG AMY LVP ) CTO BEL", "NAS"),
    ("ENG", "( ENG AMY LVP ) CVY ( ENG AMY LVP ) CTO BEL", "NSF"),
    ("ENG", "( ENG FLT LON ) CTO BEL", "NSA"),
    ("ENG", "( ENG FLT LON ) RTO NTH", "NRS"),
    ("ENG", "( ENG FLT LON ) BLD", "NRS"),
    ("ENG", "( ENG FLT LON ) SUP ( ENG FLT LON )", "FAR"),
    ("ENG", "( ENG AMY LVP ) SUP ( ENG FLT EDI ) MTO NTH", "FAR"),
])
def test_movement_notes(power, order, note):
    pos = Position(mapdata.load())
    assert pos.submit(power, order)[0] == note


def test_convoy_notes():
    pos = position(["ENG FLT NTH", "ENG AMY YOR", "ENG FLT LON"])
    assert pos.submit("ENG", "( ENG FLT NTH ) CVY ( ENG FLT LON ) CTO BEL")[0] == "NSA"
    assert pos.submit("ENG", "( ENG AMY YOR ) CTO NWY VIA ( ECH )")[0] == "NSF"
    assert pos.submit("ENG", "( ENG AMY YOR ) CTO NWY VIA ( NTH )")[0] == "MBV"
    assert pos.submit("ENG", "( ENG FLT NTH ) CVY ( ENG AMY YOR ) CTO NWY")[0] == "MBV"
    assert pos.submit("ENG", "( ENG AMY YOR ) CTO MUN VIA ( NTH )")[0] == "FAR"


def test_retreat_notes():
    pos = position(["ENG FLT NTH", "GER FLT HEL", "GER FLT SKA"])
    run(pos, [("GER", "( GER FLT HEL ) MTO NTH"), ("GER", "( GER FLT SKA ) SUP ( GER FLT HEL ) MTO NTH")])
    assert pos.season == "SUM"
    assert pos.submit("GER", "( GER FLT SKA ) HLD")[0] == "NRS"
    assert pos.submit("GER", "( GER FLT SKA ) DSB")[0] == "NRN"
    assert pos.submit("GER", "( ENG FLT NTH ) DSB")[0] == "NYU"
    assert pos.submit("ENG", "( ENG FLT NTH ) RTO HEL")[0] == "NVR"      # the attacker came from there
    assert pos.submit("ENG", "( ENG FLT NTH ) RTO EDI")[0] == "MBV"


def test_build_notes():
    g = mapdata.load()
    owners = dict(g.start_owners, BEL="FRA", SPA="FRA", POR="FRA")
    pos = position(["FRA AMY BRE", "ENG AMY PIC"], season="WIN", owners=owners)
    assert pos.build_room("FRA") == 2
    assert pos.submit("FRA", "( FRA AMY BRE ) BLD")[0] == "ESC"
    assert pos.submit("FRA", "( FRA AMY BEL ) BLD")[0] == "HSC"
    assert pos.submit("FRA", "( FRA AMY PIC ) BLD")[0] == "NSC"
    assert pos.submit("FRA", "( FRA AMY LON ) BLD")[0] == "HSC"
    assert pos.submit("FRA", "( FRA FLT PAR ) BLD")[0] == "CST"
    assert pos.submit("ENG", "( FRA AMY PAR ) BLD")[0] == "NYU"
    assert pos.submit("FRA", "( FRA AMY PAR ) BLD")[0] == "MBV"
    assert pos.submit("FRA", "( FRA FLT MAR ) BLD")[0] == "MBV"
    # 6 centres, 3 units: the three builds that cannot be placed are waived, one WVE each
    assert [pos.submit("FRA", "FRA WVE")[0] for _ in range(4)] == ["MBV", "MBV", "MBV", "NMB"]
    assert pos.submit("FRA", "( FRA AMY BRE ) REM")[0] == "NMR"
    pos.owners["PAR"] = "ENG"
    assert pos.submit("ENG", "( ENG AMY PAR ) BLD")[0] == "HSC"


def test_build_on_foreign_owned_home_centre():
    g = mapdata.load()
    owners = dict(g.start_owners, MUN="FRA", BEL="GER", HOL="GER")
    pos = position(["GER AMY KIE"], season="WIN", owners=owners)
    assert pos.submit("GER", "( GER AMY MUN ) BLD")[0] == "YSC"
    assert pos.submit("GER", "( GER AMY BER ) BLD")[0] == "MBV"


# ------------------------------------------------------------- movement
def test_bounce_and_standoff():
    pos = position(["FRA AMY PAR", "GER AMY MUN", "ENG FLT LON"])
    res = run(pos, [("FRA", "( FRA AMY PAR ) MTO BUR"), ("GER", "( GER AMY MUN ) MTO BUR")])
    assert res["( FRA AMY PAR ) MTO BUR"] == ["BNC"] and res["( GER AMY MUN ) MTO BUR"] == ["BNC"]
    assert res["( ENG FLT LON ) HLD"] == ["SUC"]
    assert units(pos) == ["ENG FLT LON", "FRA AMY PAR", "GER AMY MUN"]


def test_supported_attack_dislodges_and_retreat_excludes_standoff():
    pos = position(["FRA AMY BUR", "GER AMY MUN", "GER AMY RUH", "ITA AMY PIE", "AUS AMY TYR"])
    res = run(pos, [("GER", "( GER AMY MUN ) MTO BUR"), ("GER", "( GER AMY RUH ) SUP ( GER AMY MUN ) MTO BUR"),
                    ("ITA", "( ITA AMY PIE ) MTO MAR"), ("AUS", "( AUS AMY TYR ) MTO PIE")])
    assert res["( FRA AMY BUR ) HLD"] == ["RET"]
    assert res["( GER AMY RUH ) SUP ( GER AMY MUN ) MTO BUR"] == ["SUC"]
    power, utype, loc, options = pos.dislodged["BUR"]
    assert "MUN" not in options                    # where the attacker came from
    assert "MAR" not in options or pos.units.get("MAR")
    assert "PAR" in options and "BEL" in options
    assert pos.season == "SUM"


def test_support_cut_and_no_self_dislodgement():
    pos = position(["GER AMY MUN", "GER AMY BER", "GER AMY KIE", "RUS AMY PRU", "FRA AMY RUH"])
    res = run(pos, [("GER", "( GER AMY BER ) SUP ( GER AMY MUN ) MTO KIE"), ("GER", "( GER AMY MUN ) MTO KIE"),
                    ("RUS", "( RUS AMY PRU ) MTO BER")])
    assert res["( GER AMY BER ) SUP ( GER AMY MUN ) MTO KIE"] == ["CUT"]
    assert res["( GER AMY MUN ) MTO KIE"] == ["BNC"]
    assert units(pos) == ["FRA AMY RUH", "GER AMY BER", "GER AMY KIE", "GER AMY MUN", "RUS AMY PRU"]


def test_support_not_matching_is_nso():
    pos = position(["GER AMY MUN", "GER AMY BER"])
    res = run(pos, [("GER", "( GER AMY BER ) SUP ( GER AMY MUN ) MTO SIL")])
    assert res["( GER AMY BER ) SUP ( GER AMY MUN ) MTO SIL"] == ["NSO"]


def test_circular_movement():
    pos = position(["TUR FLT ANK", "TUR AMY CON", "TUR AMY SMY"])
    run(pos, [("TUR", "( TUR FLT ANK ) MTO CON"), ("TUR", "( TUR AMY CON ) MTO SMY"),
              ("TUR", "( TUR AMY SMY ) MTO ANK")])
    assert units(pos) == ["TUR AMY ANK", "TUR AMY SMY", "TUR FLT CON"]


def test_head_to_head_without_support_bounces():
    pos = position(["GER AMY MUN", "FRA AMY BUR"])
    run(pos, [("GER", "( GER AMY MUN ) MTO BUR"), ("FRA", "( FRA AMY BUR ) MTO MUN")])
    assert units(pos) == ["FRA AMY BUR", "GER AMY MUN"]


def test_convoy_and_disruption():
    pos = position(["ENG AMY LON", "ENG FLT NTH", "FRA FLT HEL", "FRA FLT BEL"])
    res = run(pos, [("ENG", "( ENG AMY LON ) CTO NWY VIA ( NTH )"),
                    ("ENG", "( ENG FLT NTH ) CVY ( ENG AMY LON ) CTO NWY"),
                    ("FRA", "( FRA FLT HEL ) MTO NTH"), ("FRA", "( FRA FLT BEL ) SUP ( FRA FLT HEL ) MTO NTH")])
    assert res["( ENG AMY LON ) CTO NWY VIA ( NTH )"] == ["DSR"]
    assert res["( ENG FLT NTH ) CVY ( ENG AMY LON ) CTO NWY"] == ["RET"]
    pos2 = position(["ENG AMY LON", "ENG FLT NTH"])
    run(pos2, [("ENG", "( ENG AMY LON ) CTO NWY VIA ( NTH )"), ("ENG", "( ENG FLT NTH ) CVY ( ENG AMY LON ) CTO NWY")])
    assert units(pos2) == ["ENG AMY NWY", "ENG FLT NTH"]


def test_szykman_paradox():
    # DATC 6.F.14-like: the convoy that would cut the support that dislodges its fleet fails
    pos = position(["ENG FLT LON", "ENG FLT WAL", "FRA FLT ECH", "FRA AMY BRE"])
    run(pos, [("ENG", "( ENG FLT LON ) SUP ( ENG FLT WAL ) MTO ECH"), ("ENG", "( ENG FLT WAL ) MTO ECH"),
              ("FRA", "( FRA FLT ECH ) CVY ( FRA AMY BRE ) CTO LON"), ("FRA", "( FRA AMY BRE ) CTO LON VIA ( ECH )")])
    assert pos.dislodged and "ECH" in pos.dislodged
    assert pos.units["ECH"][0] == "ENG" and pos.units["BRE"][0] == "FRA"


def test_bicoastal_moves():
    pos = position(["FRA FLT MAO", "FRA FLT GAS"])
    assert pos.submit("FRA", "( FRA FLT MAO ) MTO SPA")[0] == "FAR"       # two coasts reachable: say which
    assert pos.submit("FRA", "( FRA FLT GAS ) MTO SPA")[0] == "MBV"       # one coast: taken
    run(pos, [])
    assert pos.units["SPA"] == ("FRA", "FLT", "SPA/NCS")


# --------------------------------------------------------- retreats, builds
def test_retreats_to_same_place_both_disband():
    pos = position(["AUS FLT TRI", "TUR FLT GRE"], season="SUM")
    pos.dislodged = {"TRI": ("AUS", "FLT", "TRI", ("ALB",)), "GRE": ("TUR", "FLT", "GRE", ("ALB",))}
    pos.units = {}
    res = run(pos, [("AUS", "( AUS FLT TRI ) RTO ALB"), ("TUR", "( TUR FLT GRE ) RTO ALB")])
    assert res["( AUS FLT TRI ) RTO ALB"] == ["BNC"] and res["( TUR FLT GRE ) RTO ALB"] == ["BNC"]
    assert pos.units == {}


def test_unordered_dislodged_unit_disbands():
    pos = position([], season="AUT")
    pos.dislodged = {"TRI": ("AUS", "FLT", "TRI", ("ALB",))}
    res = dict(pos.process())
    assert res == {"( AUS FLT TRI ) DSB": ["SUC"]}
    assert pos.units == {} and pos.season == "WIN"          # Austria has builds to make


def test_autumn_changes_ownership():
    pos = position(["FRA AMY BUR"], season="FAL")
    run(pos, [("FRA", "( FRA AMY BUR ) MTO BEL")])
    assert pos.owners["BEL"] == "FRA"
    assert pos.season == "WIN" and pos.build_room("FRA") == 3


def test_spring_does_not_change_ownership():
    pos = position(["FRA AMY BUR"])
    run(pos, [("FRA", "( FRA AMY BUR ) MTO BEL")])
    assert "BEL" not in pos.owners


def test_civil_disorder_removes_farthest():
    g = mapdata.load()
    owners = {c: p for c, p in g.start_owners.items() if p != "ITA"}
    owners["VEN"] = "ITA"
    pos = position(["ITA AMY VEN", "ITA AMY SIL", "ITA FLT TYS"], season="WIN", owners=owners)
    assert pos.build_room("ITA") == -2
    pos.process()
    assert units(pos) == ["ITA AMY VEN"]


def test_removal_ordered_counts():
    g = mapdata.load()
    owners = {c: p for c, p in g.start_owners.items() if p != "ITA"}
    owners["VEN"] = "ITA"
    pos = position(["ITA AMY VEN", "ITA AMY SIL"], season="WIN", owners=owners)
    assert pos.submit("ITA", "( ITA AMY VEN ) REM")[0] == "MBV"
    assert pos.adjustments_owed("ITA") == 0
    pos.process()
    assert units(pos) == ["ITA AMY SIL"]
