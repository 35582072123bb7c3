"""Houses and hotels (even building, the 32/12 supply, shortages, half price back) and mortgages."""
from tests.pimp.helpers import do, fresh, own, refused, seen

H = "PURCHASE_HOUSES"


def test_building_needs_the_whole_colour_group_owned_on_ones_turn():
    g = fresh()
    own(g, 1, 0)
    assert refused(g, 1, H, [[0, 1, 0]]) == [("ERROR_HOUSES_NEED_MONOPOLY", 1)]
    assert refused(g, 1, H, [[3, 1, 0]]) == [("ERROR_HOUSES_NOT_OWNED", 3)]
    own(g, 1, 2)
    assert refused(g, 1, H, [[2, 1, 0]]) == [("ERROR_HOUSES_NOT_COLOUR_GROUP", 2)]
    assert refused(g, 1, H, [[99, 1, 0]]) == [("ERROR_INVALID_PAYLOAD", 0x90)]
    own(g, 2, 3, 4, 5)
    assert refused(g, 2, H, [[3, 1, 0]]) == [("ERROR_HOUSES_NOT_YOUR_TURN",)]


def test_building_evenly_its_messages_and_the_bank():
    g = fresh()
    own(g, 1, 0, 1)
    assert refused(g, 1, H, [[0, 2, 0]]) == [("ERROR_HOUSES_UNBALANCED", 0)]
    msgs = do(g, 1, H, [[0, 1, 0], [1, 1, 0]])
    assert seen(msgs) == [("DELTA_HOUSES_PURCHASED", 1, 0, 1, 0), ("DELTA_HOUSES_PURCHASED", 1, 1, 1, 0),
                          ("DELTA_BANK", 30, 12), ("CONSTRUCTION_TAKES_CASH", 1, 100), ("DELTA_CASH", 1, 0, 100)]
    do(g, 1, H, [[0, 3, 0], [1, 3, 0]])
    assert refused(g, 1, H, [[0, 0, 1], [1, 1, 0]]) == [("ERROR_HOUSES_CANNOT_BUILD_THAT_NUMBER", 1)]
    msgs = do(g, 1, H, [[0, 0, 1]])              # 4 houses become a hotel: the houses go back
    assert seen(msgs)[:2] == [("DELTA_HOUSES_PURCHASED", 1, 0, 0, 1), ("DELTA_BANK", 28, 11)]
    assert seen(msgs)[-1] == ("DELTA_CASH", 1, 0, 50)
    do(g, 1, H, [[1, -4, 1]])                    # the explicit form works too
    msgs = do(g, 1, H, [[0, 0, -1]])             # a hotel sold: back to 4 houses, half the price
    assert seen(msgs) == [("DELTA_HOUSES_PURCHASED", 1, 0, 4, 0), ("DELTA_BANK", 28, 11),
                          ("DESTRUCTION_GIVES_CASH", 1, 25), ("DELTA_CASH", 0, 1, 25)]


def test_hotel_needs_four_houses_and_the_supply_runs_out():
    g = fresh()
    own(g, 1, 0, 1)
    assert refused(g, 1, H, [[0, 0, 1]]) == [("ERROR_HOUSES_CANNOT_BUILD_THAT_NUMBER", 0)]
    # 30 houses elsewhere: only 2 left
    own(g, 2, 3, 4, 5, 6, 8, 9, 11, 12, 13)
    for p in (3, 4, 5, 6, 8, 9):
        g.level[p] = 4
    for p in (11, 12, 13):
        g.level[p] = 2
    assert g.bank_supply() == (32 - 30, 12)
    assert refused(g, 1, H, [[0, 2, 0], [1, 1, 0]]) == [("ERROR_HOUSES_NO_HOUSE_PIECES_LEFT", 2, 12)]
    g.users[1].cash = 90
    assert refused(g, 1, H, [[0, 1, 0], [1, 1, 0]]) == [("ERROR_HOUSES_TOO_EXPENSIVE", 100)]


def test_no_building_beside_a_mortgage_unless_the_reference_servers_rules():
    g = fresh()
    own(g, 1, 3, 4, 5)
    g.mortgaged[5] = True
    assert refused(g, 1, H, [[3, 1, 0]]) == [("ERROR_HOUSES_MORTGAGED", 5)]
    assert refused(g, 1, H, [[5, 1, 0]]) == [("ERROR_HOUSES_MORTGAGED", 5)]
    g = fresh(strict_groups=False)
    own(g, 1, 3, 4, 5)
    g.mortgaged[5] = True
    do(g, 1, H, [[3, 1, 0], [4, 1, 0]])
    assert g.level[3] == g.level[4] == 1


def test_mortgage_and_unmortgage_with_interest():
    g = fresh()
    own(g, 1, 26)
    msgs = do(g, 1, "MORTGAGE_PROPERTY", 26)
    assert seen(msgs) == [("SQUARE_GIVES_CASH", 1, 37, 175), ("DELTA_PROPERTY_MORTGAGED", 26), ("DELTA_CASH", 0, 1, 175)]
    assert refused(g, 1, "MORTGAGE_PROPERTY", 26) == [("ERROR_INVALID_PAYLOAD", 0x3B)]
    g.users[1].cash = 191
    assert refused(g, 1, "UNMORTGAGE_PROPERTY", 26) == [("ERROR_MORTGAGE_TOO_EXPENSIVE", 26, 192)]
    g.users[1].cash = 192
    msgs = do(g, 1, "UNMORTGAGE_PROPERTY", 26)
    assert seen(msgs) == [("DELTA_PROPERTY_UNMORTGAGED", 26), ("SQUARE_TAKES_CASH", 1, 37, 192), ("DELTA_CASH", 1, 0, 192)]
    assert g.users[1].cash == 0


def test_no_mortgage_in_a_group_with_buildings_unless_reference_rules():
    g = fresh()
    own(g, 2, 0, 1)
    g.level[1] = 1
    assert refused(g, 2, "MORTGAGE_PROPERTY", 0) == [("ERROR_INVALID_PAYLOAD", 0x3B)]
    g.options["strict_groups"] = False
    do(g, 2, "MORTGAGE_PROPERTY", 0)
    assert refused(g, 2, "MORTGAGE_PROPERTY", 1) == [("ERROR_INVALID_PAYLOAD", 0x3B)]


def test_selling_to_pay_a_debt_is_allowed_off_turn():
    g = fresh()
    own(g, 2, 0, 1)
    g.level[0] = g.level[1] = 1
    g._open_debt("rent", 2, 3, 5000)
    g.ev = []
    msgs = do(g, 2, H, [[0, -1, 0], [1, -1, 0]])
    assert ("DESTRUCTION_GIVES_CASH", 2, 50) in seen(msgs)
    assert refused(g, 2, H, [[0, 1, 0]]) == [("ERROR_HOUSES_NOT_YOUR_TURN",)]
