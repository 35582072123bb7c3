"""DiplomacyEngine: the contract API (actions, events, queries, serialisation)."""
import json

import pytest

from gamehall.interfaces import IEngine, IGame, IllegalAction
from gamehall_daide.game import DiplomacyEngine, DiplomacyGame, POWERS

PLAYERS = [f"p{i}" for i in range(7)]


def engine(**kw):
    return DiplomacyEngine("standard", PLAYERS, 1, powers=list(POWERS), **kw)


def hold_all(e, skip=()):
    events = []
    for seat, power in enumerate(e.powers):
        if power not in skip and seat in e.pending_seats():
            events += e.apply(seat, {"submit": e.default_orders(power)})
    return events


def test_interfaces():
    assert IEngine.providedBy(engine())
    g = DiplomacyGame()
    assert IGame.providedBy(g)
    assert g.min_seats == g.max_seats == 7 and g.turn_timeout is None
    assert g.name == "diplomacy" and g.variants == ("standard",)
    e = g.new_engine("standard", PLAYERS, 5)
    assert sorted(e.powers) == list(POWERS)
    assert g.new_bot("strong", 1) is not None


def test_powers_shuffled_by_seed():
    a = DiplomacyEngine("standard", PLAYERS, 7)
    b = DiplomacyEngine("standard", PLAYERS, 7)
    assert a.powers == b.powers and sorted(a.powers) == list(POWERS)
    with pytest.raises(ValueError):
        DiplomacyEngine("standard", PLAYERS[:3], 1)


def test_start_texts():
    e = engine()
    assert e.turn() == ("SPR", 1901)
    assert e.now().startswith("NOW ( SPR 1901 ) ( AUS AMY BUD ) ")
    assert "( RUS FLT ( STP SCS ) )" in e.now()
    assert e.sco().startswith("SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP )")
    assert e.sco().endswith("( UNO BEL BUL DEN GRE HOL NWY POR RUM SER SPA SWE TUN )")
    assert e.missing("ENG") == "MIS ( ENG FLT EDI ) ( ENG FLT LON ) ( ENG AMY LVP )"
    assert e.pending_seats() == list(range(7)) and e.pending_seat() == 0


def test_submit_thx_and_missing():
    e = engine()
    ev = e.apply(1, {"submit": ["(ENG FLT LON) MTO NTH", "( ENG FLT LON ) MTO PIC", "( FRA AMY PAR ) HLD"]})
    assert ev[0] == {"type": "thx", "power": "ENG", "order": "( ENG FLT LON ) MTO NTH", "note": "MBV"}
    assert ev[1]["note"] == "FAR" and ev[2]["note"] == "NYU"
    assert ev[3] == {"type": "missing", "power": "ENG", "text": "MIS ( ENG FLT EDI ) ( ENG AMY LVP )"}
    assert e.orders_of("ENG") == ["( ENG FLT LON ) MTO NTH"]
    ev = e.apply(1, {"cancel": ["( ENG FLT LON ) MTO NTH", "( ENG FLT EDI ) HLD"]})
    assert [x["ok"] for x in ev if x["type"] == "cancelled"] == [True, False]
    assert e.orders_of("ENG") == []


def test_bad_actions_raise():
    e = engine()
    for action in ({}, {"submit": "x"}, {"fly": 1}, {"gof": 1}, {"submit": [], "gof": True}, {"cancel": 3}):
        with pytest.raises(IllegalAction):
            e.apply(0, action)
    with pytest.raises(IllegalAction):
        e.apply(-1, {"submit": []})
    with pytest.raises(IllegalAction):
        e.apply(0, {"deadline": "SPR 1901"})
    with pytest.raises(IllegalAction):
        e.apply(-1, {"deadline": "FAL 1901"})
    with pytest.raises(IllegalAction):
        e.apply(9, {"gof": True})
    # garbage text is an order with a note, not an exception
    ev = e.apply(0, {"submit": ["((("]})
    assert ev[0]["note"] == "NSU"


def test_phase_processes_when_complete():
    e = engine()
    e.apply(1, {"submit": ["( ENG FLT LON ) MTO NTH"]})
    events = hold_all(e)
    types = [x["type"] for x in events]
    assert "ord" in types and types[-1] == "phase"
    phase = events[-1]
    assert phase["turn"] == "FAL 1901" and phase["now"] == e.now()
    assert "ORD ( SPR 1901 ) ( ( ENG FLT LON ) MTO NTH ) ( SUC )" in e.results()
    assert e.results(("SPR", 1901)) == e.results()
    assert len(e.results()) == 22
    assert e.position_after(("SPR", 1901)) == [e.sco(), e.now()]
    assert e.position_after(("FAL", 1901)) is None


def test_not_gof_holds_processing_until_gof_or_deadline():
    e = engine()
    e.apply(3, {"gof": False})
    hold_all(e)
    assert e.turn() == ("SPR", 1901) and e.pending_seats() == []
    ev = e.apply(3, {"gof": True})
    assert ev[-1]["type"] == "phase" and e.turn() == ("FAL", 1901)
    e.apply(3, {"gof": False})
    hold_all(e)
    ev = e.apply(-1, {"deadline": "FAL 1901"})
    assert e.turn() == ("SPR", 1902)


def test_deadline_defaults_and_ccd():
    e = engine()
    e.apply(0, {"submit": e.default_orders("AUS")})
    ev = e.apply(-1, {"deadline": "SPR 1901"})
    assert sorted(x["power"] for x in ev if x["type"] == "ccd") == sorted(set(POWERS) - {"AUS"})
    assert e.turn() == ("FAL", 1901)


def test_autumn_sco_and_build_phase():
    e = engine()
    hold_all(e, skip=("FRA",))
    e.apply(2, {"submit": ["( FRA AMY PAR ) MTO BUR", "( FRA AMY MAR ) MTO SPA", "( FRA FLT BRE ) MTO MAO"]})
    assert e.turn() == ("FAL", 1901)
    hold_all(e, skip=("FRA",))
    ev = e.apply(2, {"submit": ["( FRA AMY BUR ) MTO BEL", "( FRA AMY SPA ) HLD", "( FRA FLT MAO ) MTO POR"]})
    sco = [x for x in ev if x["type"] == "sco"]
    assert sco and "( FRA BEL BRE MAR PAR POR SPA )" in sco[0]["text"]
    assert e.turn() == ("WIN", 1901)
    assert e.missing("FRA") == "MIS ( -3 )"
    assert e.pending_seats() == [2]
    ev = e.apply(2, {"submit": ["( FRA AMY PAR ) BLD", "FRA WVE"]})
    assert e.missing("FRA") == "MIS ( -1 )"
    ev = e.apply(2, {"submit": ["FRA WVE"]})
    assert "ORD ( WIN 1901 ) ( FRA WVE ) ( SUC )" in [x["text"] for x in ev if x["type"] == "ord"]
    assert e.turn() == ("SPR", 1902)


def fra_owes_three_builds():
    """WIN 1901: France took BEL, SPA and POR (three builds owed, its three homes free)."""
    e = engine()
    hold_all(e, skip=("FRA",))
    e.apply(2, {"submit": ["( FRA AMY PAR ) MTO BUR", "( FRA AMY MAR ) MTO SPA", "( FRA FLT BRE ) MTO MAO"]})
    hold_all(e, skip=("FRA",))
    e.apply(2, {"submit": ["( FRA AMY BUR ) MTO BEL", "( FRA AMY SPA ) HLD", "( FRA FLT MAO ) MTO POR"]})
    assert e.turn() == ("WIN", 1901)
    return e


def test_unusable_builds_are_waived_one_wve_each():
    # "All unused builds must be waived, even if they are unusable": France owes three
    # builds but only Brest is free, and an AiServer-era bot sends one WVE per owed build
    e = fra_owes_three_builds()
    e.pos.units["PAR"] = ("GER", "AMY", "PAR")
    e.pos.units["MAR"] = ("ITA", "AMY", "MAR")
    ev = e.apply(2, {"submit": ["( FRA AMY BRE ) BLD", "FRA WVE", "FRA WVE"]})
    assert [x["note"] for x in ev if x["type"] == "thx"] == ["MBV", "MBV", "MBV"]
    assert e.missing("FRA") == "MIS"
    ev = e.apply(-1, {"deadline": "WIN 1901"})     # (the intruders' removals are defaulted)
    ords = [x["text"] for x in ev if x["type"] == "ord"]
    assert ords.count("ORD ( WIN 1901 ) ( FRA WVE ) ( SUC )") == 2 and e.turn() == ("SPR", 1902)


def test_more_waives_than_builds_owed_are_nmb():
    e = fra_owes_three_builds()
    e.pos.units["PAR"] = ("GER", "AMY", "PAR")
    e.apply(0, {"gof": False})                  # Austria holds the phase open
    ev = e.apply(2, {"submit": ["FRA WVE", "( FRA AMY BRE ) BLD", "FRA WVE", "FRA WVE",
                                "( FRA AMY MAR ) BLD"]})
    assert [x["note"] for x in ev if x["type"] == "thx"] == ["MBV", "MBV", "MBV", "NMB", "NMB"]
    assert e.missing("FRA") == "MIS" and e.turn() == ("WIN", 1901)


def test_draw_when_all_survivors_agree():
    # declared by the last DRW, at once: no phase needs to be processed first
    e = engine()
    for seat in range(6):
        assert e.apply(seat, {"draw": True}) == []
    ev = e.apply(6, {"draw": True})
    assert ev == [{"type": "draw", "powers": list(POWERS)}]
    assert e.turn() == ("SPR", 1901)
    assert e.is_over() and e.result()["reason"] == "draw"
    assert e.result()["winners"] == list(range(7))
    assert e.pending_seat() is None and not e.may_act(0)


def test_a_game_stored_under_the_first_rules_replays_as_it_was_played():
    # rules 1 (tables stored before draws were declared at once): seven DRW wait for the
    # phase, and a WVE past the placeable builds is NMB, so its stored actions replay alike
    e = engine(options={"rules": 1})
    for seat in range(7):
        assert e.apply(seat, {"draw": True}) == []
    e.apply(4, {"draw": False})
    hold_all(e)
    assert not e.is_over()
    assert DiplomacyEngine.from_dict(e.to_dict()).rules == 1
    old = fra_owes_three_builds()
    old.rules = 1
    old.pos.waive_unplaceable = False
    old.pos.units["PAR"] = ("GER", "AMY", "PAR")
    old.pos.units["MAR"] = ("ITA", "AMY", "MAR")
    ev = old.apply(2, {"submit": ["( FRA AMY BRE ) BLD", "FRA WVE"]})
    assert [x["note"] for x in ev if x["type"] == "thx"] == ["MBV", "NMB"]
    with pytest.raises(ValueError):
        engine(options={"rules": 3})


def test_draw_withdrawn():
    e = engine()
    for seat in range(6):
        e.apply(seat, {"draw": True})
    e.apply(4, {"draw": False})
    e.apply(6, {"draw": True})
    assert not e.is_over()
    hold_all(e)
    assert not e.is_over()
    for seat in range(6):                       # forgotten once the phase was processed
        e.apply(seat, {"draw": True})
    assert not e.is_over()


def test_year_limit():
    e = engine(options={"max_year": 1901})
    while not e.is_over():
        hold_all(e)
    assert e.result()["reason"] == "year limit" and e.turn() == ("SPR", 1902)


def test_solo_ends_game():
    e = engine()
    pos = e.pos
    pos.units = {"BUR": ("TUR", "AMY", "BUR"), "LON": ("ENG", "FLT", "LON")}
    others = sorted(c for c in pos.gmap.centres if c not in ("BEL", "LON"))
    pos.owners = {c: "TUR" for c in others[:17]}
    pos.owners["LON"] = "ENG"
    pos.season = "FAL"
    e.apply(6, {"submit": ["( TUR AMY BUR ) MTO BEL"]})
    ev = hold_all(e)
    assert pos.centres("TUR") == 18
    assert ev[-1] == {"type": "solo", "power": "TUR"}
    assert e.result()["reason"] == "solo TUR" and e.result()["winners"] == [6]
    assert e.is_over() and e.pending_seats() == []


def test_elimination_reported():
    e = engine()
    pos = e.pos
    pos.units = {p: u for p, u in pos.units.items() if u[0] != "ITA"}
    for c in ("NAP", "ROM", "VEN"):
        pos.owners[c] = "AUS"
    ev = hold_all(e)
    assert {"type": "eliminated", "power": "ITA"} in ev
    assert e.eliminated() == {"ITA": 1901}
    assert 4 not in e.pending_seats() and not e.may_act(4)


def test_timeout_action_completes_a_seat():
    e = engine()
    e.apply(5, e.timeout_action(5))
    assert 5 not in e.pending_seats()


def test_to_dict_round_trip_mid_phase():
    e = engine()
    hold_all(e)
    e.apply(1, {"submit": ["( ENG FLT LON ) MTO NTH"]})
    e.apply(3, {"gof": False})
    d = e.to_dict()
    json.dumps(d)
    e2 = DiplomacyEngine.from_dict(d)
    assert e2.to_dict() == d
    assert e2.now() == e.now() and e2.orders_of("ENG") == e.orders_of("ENG")
    hold_all(e)
    hold_all(e2)
    e.apply(3, {"gof": True})
    e2.apply(3, {"gof": True})
    assert e.to_dict() == e2.to_dict()


def test_legal_orders_are_legal():
    e = engine()
    for power in POWERS:
        for unit, orders in e.legal_orders(power).items():
            assert orders
            for text in orders:
                note, _ = e.pos.submit(power, text)
                assert note == "MBV", (text, note)
        e.pos.cancel(power)


def test_aoa_accepts_impossible_orders_and_holds_them():
    e = engine(options={"AOA": True})
    ev = e.apply(1, {"submit": ["( ENG FLT LON ) MTO PIC", "( ENG AMY LVP ) MTO XXX"]})
    assert [x["note"] for x in ev if x["type"] == "thx"] == ["MBV", "NSP"]   # a bad province stays refused
    assert e.orders_of("ENG") == ["( ENG FLT LON ) MTO PIC"]
    assert DiplomacyEngine.from_dict(e.to_dict()).to_dict() == e.to_dict()
    hold_all(e)
    assert "ORD ( SPR 1901 ) ( ( ENG FLT LON ) MTO PIC ) ( NSO )" in e.results()
    assert e.pos.units["LON"] == ("ENG", "FLT", "LON")
    with pytest.raises(ValueError):
        engine(options={"AOA": "yes"})


def test_cancel_matches_the_stored_form():
    e = engine()
    e.pos.units["GAS"] = ("FRA", "FLT", "GAS")
    e.apply(2, {"submit": ["( FRA FLT GAS ) MTO SPA"]})
    assert e.orders_of("FRA") == ["( FRA FLT GAS ) MTO ( SPA NCS )"]
    ev = e.apply(2, {"cancel": ["( FRA FLT GAS ) MTO SPA"]})
    assert ev[0]["ok"] is True and e.orders_of("FRA") == []


def test_partial_draw_when_all_name_the_same_powers():
    e = engine()
    for seat in range(1, 7):
        e.apply(seat, {"draw": ["GER", "FRA"]})
    e.apply(0, {"draw": ["FRA", "ITA"]})            # one disagrees: no draw
    hold_all(e)
    assert not e.is_over()
    for seat in range(6):
        e.apply(seat, {"draw": ["GER", "FRA"]})
    d = e.to_dict()
    assert DiplomacyEngine.from_dict(d).to_dict() == d
    ev = e.apply(6, {"draw": ["GER", "FRA"]})
    assert ev == [{"type": "draw", "powers": ["FRA", "GER"]}]
    assert e.result()["winners"] == [2, 3] and e.result()["reason"] == "draw"
    with pytest.raises(IllegalAction):
        engine().apply(0, {"draw": ["XXX"]})
    with pytest.raises(IllegalAction):
        engine().apply(0, {"draw": []})
