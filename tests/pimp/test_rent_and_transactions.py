"""Rent (every kind), rent claims and their transactions, escrow, trades."""
from gamehall_pimp.rent import NEAREST_RAILROAD, NEAREST_UTILITY, rent
from tests.pimp.helpers import dice, do, fresh, own, place, refused, seen


def _rent(g, prop, total=7, rule=None):
    return rent(g.board, g.owner, g.level, prop, total, rule)


def test_rent_by_group_houses_railroads_and_utilities():
    g = fresh()
    own(g, 2, 0)
    assert _rent(g, 0) == 2
    own(g, 2, 1)
    assert _rent(g, 0) == 4                      # complete unimproved group: double
    g.level[0], g.level[1] = 1, 1
    assert _rent(g, 0) == 10
    g.level[0] = 5
    assert _rent(g, 0) == 250
    own(g, 2, 2)
    assert _rent(g, 2) == 25
    own(g, 2, 10, 17)
    assert _rent(g, 2) == 100
    own(g, 2, 25)
    assert _rent(g, 2) == 200
    assert _rent(g, 2, rule=NEAREST_RAILROAD) == 400
    own(g, 2, 7)
    assert _rent(g, 7, total=9) == 36
    own(g, 2, 20)
    assert _rent(g, 7, total=9) == 90
    own(g, 3, 20)
    assert _rent(g, 7, total=5, rule=NEAREST_UTILITY) == 50


def _land_on_baltic(g, owner=2):
    own(g, owner, 1)
    dice(g, (1, 2))
    return do(g, 1, "THROW_DICE")


def test_rent_is_claimed_then_paid_through_a_rent_transaction():
    g = fresh()
    msgs = _land_on_baltic(g)
    assert [m for m in seen(msgs) if "RENT" in m[0]] == []            # the claim is silent
    tid = g.next_id
    msgs = do(g, 2, "CLAIM_RENT", 1, 1)
    assert seen(msgs) == [("PLAYER_CLAIMED_RENT", 2, 1, 1, 4)]
    assert [(m.name, *m.args) for m in msgs if m.to == (2,)] == [
        ("TRANSACTION_RENT_REQUESTED", tid, 1, 1, 2, 4), ("TRANSACTION_FINISHED", tid),
        ("TRANSACTION_OTHER_CASH_SET", tid, 4), ("TRANSACTION_OTHER_FINISHED", tid),
        ("TRANSACTION_AGREED", tid)]
    assert [(m.name, *m.args) for m in msgs if m.to == (1,)] == [
        ("TRANSACTION_RENT_REQUESTED", tid, 2, 1, 2, 4), ("TRANSACTION_OTHER_FINISHED", tid),
        ("TRANSACTION_CASH_SET", tid, 4), ("TRANSACTION_FINISHED", tid), ("TRANSACTION_OTHER_AGREED", tid)]
    assert refused(g, 2, "CLAIM_RENT", 1, 1) == [("ERROR_INVALID_RENT_CLAIM",)]
    assert refused(g, 1, "TRANSACTION_CANCEL", tid) == [("ERROR_TRANSACTION_CANNOT_BE_CANCELLED", tid)]
    msgs = do(g, 1, "TRANSACTION_AGREE", tid)
    assert seen(msgs, 1) == [("TRANSACTION_AGREED", tid), ("TRANSACTION_FINALISED", tid), ("DELTA_CASH", 1, 2, 4)]
    assert g.users[1].cash == 1496 and g.users[2].cash == 1504


def test_no_claim_on_a_mortgaged_property_and_claims_expire():
    g = fresh()
    g.mortgaged[1] = True
    _land_on_baltic(g)
    assert g.claims == []
    g = fresh()
    _land_on_baltic(g)
    dice(g, (1, 2))
    do(g, 2, "THROW_DICE")
    assert refused(g, 2, "CLAIM_RENT", 1, 1) == [("ERROR_INVALID_RENT_CLAIM",)]


def test_a_debt_too_big_is_unusual_and_paid_after_raising_money():
    g = fresh()
    own(g, 2, 0, 1)
    g.level[0] = g.level[1] = 5
    own(g, 1, 26, 27)
    g.users[1].cash = 100
    dice(g, (1, 2))
    do(g, 1, "THROW_DICE")
    tid = g.next_id
    msgs = do(g, 2, "CLAIM_RENT", 1, 1)
    assert [(m.name, *m.args) for m in msgs if m.to == (1,)][2:] == [
        ("ERROR_TRANSACTION_TOO_EXPENSIVE", tid, 450), ("TRANSACTION_CASH_SET", tid, 0),
        ("TRANSACTION_UNUSUAL", tid)]
    assert refused(g, 1, "TRANSACTION_SET_CASH", tid, 450) == [
        ("ERROR_TRANSACTION_TOO_EXPENSIVE", tid, 450), ("TRANSACTION_CASH_SET", tid, 0)]
    assert refused(g, 1, "BANKRUPT_TRANSACTION", tid) == [("ERROR_TRANSACTION_NOT_BANKRUPT", tid, 0)]
    do(g, 1, "MORTGAGE_PROPERTY", 27)            # +200
    do(g, 1, "MORTGAGE_PROPERTY", 26)            # +175
    do(g, 1, "TRANSACTION_SET_CASH", tid, 450)
    do(g, 1, "TRANSACTION_FINISH", tid)
    do(g, 1, "TRANSACTION_AGREE", tid)
    msgs = do(g, 2, "TRANSACTION_AGREE", tid)
    assert ("DELTA_CASH", 1, 2, 450) in seen(msgs) and g.users[1].cash == 25


def test_escrow_holds_bank_money_for_a_debtor_until_the_debt_is_settled():
    g = fresh()
    own(g, 2, 1)
    g.users[1].cash = 0
    place(g, 1, 36)
    dice(g, (3, 4))                              # 36 -> 3 (Baltic), passing Go
    do(g, 1, "THROW_DICE")
    tid = g.next_id
    do(g, 2, "CLAIM_RENT", 1, 1)
    msgs = do(g, 1, "CLAIM_GO", 0)
    assert seen(msgs)[-1] == ("MONEY_BEING_HELD_IN_ESCROW", 1, tid, 200) and g.users[1].cash == 0
    do(g, 1, "TRANSACTION_SET_CASH", tid, 4)     # escrow counts towards the debt
    do(g, 1, "TRANSACTION_FINISH", tid)
    do(g, 1, "TRANSACTION_AGREE", tid)
    msgs = do(g, 2, "TRANSACTION_AGREE", tid)
    flows = [m for m in seen(msgs) if m[0] == "DELTA_CASH"]
    assert flows == [("DELTA_CASH", 0, 1, 200), ("DELTA_CASH", 1, 2, 4)]
    assert g.users[1].cash == 196


def test_a_trade_of_cash_property_and_card_with_reopening():
    g = fresh()
    own(g, 1, 3)
    own(g, 2, 4)
    g.card_owner[7] = 2
    g.decks["chance"].remove(7)
    assert refused(g, 1, "TRANSACTION_REQUEST_TRADE", 1) == [("ERROR_INVALID_PAYLOAD", 0x50)]
    tid = g.next_id
    msgs = do(g, 1, "TRANSACTION_REQUEST_TRADE", 2)
    assert [(m.name, *m.args, m.to) for m in msgs] == [
        ("TRANSACTION_TRADE_REQUESTED", tid, 2, (1,)), ("TRANSACTION_TRADE_REQUESTED", tid, 1, (2,))]
    assert refused(g, 1, "TRANSACTION_ADD_PROPERTY", tid, 4) == [("ERROR_TRANSACTION_PROPERTY_NOT_OWNED", tid, 4)]
    assert refused(g, 1, "TRANSACTION_FINISH", tid + 5) == [("ERROR_INVALID_PAYLOAD", 0x70)]
    do(g, 1, "TRANSACTION_SET_CASH", tid, 100)
    do(g, 1, "TRANSACTION_ADD_PROPERTY", tid, 3)
    do(g, 2, "TRANSACTION_ADD_PROPERTY", tid, 4)
    msgs = do(g, 2, "TRANSACTION_ADD_CARD", tid, 7)
    assert [(m.name, m.to) for m in msgs] == [("TRANSACTION_CARD_ADDED", (2,)), ("TRANSACTION_OTHER_CARD_ADDED", (1,))]
    do(g, 1, "TRANSACTION_FINISH", tid)
    assert refused(g, 1, "TRANSACTION_AGREE", tid) == [("ERROR_UNEXPECTED_MESSAGE", 0x76)]
    do(g, 2, "TRANSACTION_FINISH", tid)
    do(g, 1, "TRANSACTION_AGREE", tid)
    msgs = do(g, 2, "TRANSACTION_REMOVE_CARD", tid, 7)          # a change reopens
    assert [(m.name, m.to) for m in msgs] == [
        ("TRANSACTION_REOPENED", (2,)), ("TRANSACTION_OTHER_REOPENED", (1,)),
        ("TRANSACTION_FINISHED", (1,)), ("TRANSACTION_OTHER_FINISHED", (2,)),
        ("TRANSACTION_CARD_REMOVED", (2,)), ("TRANSACTION_OTHER_CARD_REMOVED", (1,))]
    assert g.transactions[tid].stage == {1: 1, 2: 0}
    do(g, 2, "TRANSACTION_ADD_CARD", tid, 7)
    do(g, 2, "TRANSACTION_FINISH", tid)
    do(g, 2, "TRANSACTION_AGREE", tid)
    msgs = do(g, 1, "TRANSACTION_AGREE", tid)
    assert seen(msgs) == [("DELTA_CASH", 1, 2, 100), ("DELTA_PROPERTY", 1, 2, 3), ("DELTA_PROPERTY", 2, 1, 4),
                          ("DELTA_CARD", 2, 1, 7)]
    assert g.owner[3] == 2 and g.owner[4] == 1 and g.card_owner[7] == 1


def test_trades_refuse_built_properties_and_can_be_cancelled():
    g = fresh()
    own(g, 1, 0, 1)
    g.level[0] = g.level[1] = 1
    tid = g.next_id
    do(g, 1, "TRANSACTION_REQUEST_TRADE", 2)
    do(g, 1, "TRANSACTION_ADD_PROPERTY", tid, 0)
    do(g, 1, "TRANSACTION_FINISH", tid)
    do(g, 2, "TRANSACTION_FINISH", tid)
    assert refused(g, 1, "TRANSACTION_AGREE", tid) == [("ERROR_TRANSACTION_PROPERTY_HAS_HOUSE", tid, 0)]
    msgs = do(g, 2, "TRANSACTION_CANCEL", tid)
    assert [(m.name, *m.args, m.to) for m in msgs] == [
        ("TRANSACTION_CANCELLED", tid, (1,)), ("TRANSACTION_CANCELLED", tid, (2,))]


def test_a_property_lost_elsewhere_leaves_the_offer():
    g = fresh()
    own(g, 1, 3)
    t1 = g.next_id
    do(g, 1, "TRANSACTION_REQUEST_TRADE", 2)
    do(g, 1, "TRANSACTION_ADD_PROPERTY", t1, 3)
    t2 = g.next_id
    do(g, 1, "TRANSACTION_REQUEST_TRADE", 3)
    do(g, 1, "TRANSACTION_ADD_PROPERTY", t2, 3)
    for pid in (1, 3):
        do(g, pid, "TRANSACTION_FINISH", t2)
    do(g, 1, "TRANSACTION_AGREE", t2)
    msgs = do(g, 3, "TRANSACTION_AGREE", t2)
    assert ("TRANSACTION_PROPERTY_REMOVED", t1, 3) in [(m.name, *m.args) for m in msgs if m.to == (1,)]
    assert g.transactions[t1].props[1] == set()


def test_a_player_in_debt_may_still_be_paid_but_not_give_away_what_they_owe():
    g = fresh()
    g.users[2].cash = 10
    debt = g._open_debt("rent", 2, 3, 900)              # 2 cannot pay 3
    card = g._open_debt("card", 1, 2, 50)               # 1 owes 2: 2 must be able to accept it
    g.ev = []
    do(g, 1, "TRANSACTION_AGREE", card.id)
    assert card.id not in g.transactions and g.users[2].cash == 60
    own(g, 2, 26)
    tid = g.next_id
    do(g, 2, "TRANSACTION_REQUEST_TRADE", 1)
    do(g, 2, "TRANSACTION_ADD_PROPERTY", tid, 26)
    do(g, 1, "TRANSACTION_FINISH", tid)
    do(g, 2, "TRANSACTION_FINISH", tid)
    assert refused(g, 2, "TRANSACTION_AGREE", tid) == [("ERROR_TRANSACTION_WOULD_REDUCE_NET_WORTH", tid, debt.id)]


def _to(msgs, pid):
    return [(m.name, *m.args) for m in msgs if m.to == (pid,)]


def test_a_debt_that_becomes_unaffordable_says_so_as_one_that_starts_unaffordable():
    """Issue 15: a debt payable when opened, then the debtor's cash drops below it.  The
    debtor hears "too expensive", cash 0, "unusual" (what a debt unpayable from the start
    says), so a client that raises money on those messages does; then it pays."""
    g = fresh()
    g.users[1].cash = 300
    own(g, 1, 26)
    g.mortgaged[26] = True
    debt = g._open_debt("rent", 1, 2, 250)
    tid = debt.id
    g.ev = []
    msgs = do(g, 1, "UNMORTGAGE_PROPERTY", 26)          # 192: 108 left, the rent is 250
    assert g.users[1].cash == 108
    assert _to(msgs, 1) == [("TRANSACTION_REOPENED", tid), ("TRANSACTION_OTHER_FINISHED", tid),
                            ("ERROR_TRANSACTION_TOO_EXPENSIVE", tid, 250), ("TRANSACTION_CASH_SET", tid, 0),
                            ("TRANSACTION_UNUSUAL", tid)]
    assert _to(msgs, 2) == [("TRANSACTION_OTHER_REOPENED", tid), ("TRANSACTION_FINISHED", tid),
                            ("TRANSACTION_OTHER_CASH_SET", tid, 0), ("TRANSACTION_UNUSUAL", tid)]
    # the same words as a debt that cannot be paid when it is opened
    g.users[3].cash = 10
    fresh_debt = g._open_debt("rent", 3, 2, 250)
    opened = [m[0] for m in _to(g.ev, 3)]
    assert opened[-3:] == ["ERROR_TRANSACTION_TOO_EXPENSIVE", "TRANSACTION_CASH_SET", "TRANSACTION_UNUSUAL"]
    for t in (g.transactions[tid], fresh_debt):         # debtor set up, creditor finished, unusual
        assert (t.stage[t.a], t.stage[t.b], t.cash[t.a], t.unusual) == (0, 1, 0, True)
    # the debtor can still raise the money, so is not bankrupt; it raises it and pays
    assert refused(g, 1, "BANKRUPT_TRANSACTION", tid) == [("ERROR_TRANSACTION_NOT_BANKRUPT", tid, 0)]
    do(g, 1, "MORTGAGE_PROPERTY", 26)
    do(g, 1, "TRANSACTION_SET_CASH", tid, 250)
    do(g, 1, "TRANSACTION_FINISH", tid)
    do(g, 1, "TRANSACTION_AGREE", tid)
    do(g, 2, "TRANSACTION_AGREE", tid)
    assert tid not in g.transactions and g.users[2].cash == 1750


def test_a_debt_still_covered_after_a_cash_drop_is_left_alone():
    g = fresh()
    debt = g._open_debt("rent", 1, 2, 100)
    g.ev = []
    own(g, 1, 3)
    g.mortgaged[3] = True
    msgs = do(g, 1, "UNMORTGAGE_PROPERTY", 3)           # 1500 -> 1445: still covers 100
    assert _to(msgs, 1) == [] and g.transactions[debt.id].stage == {1: 1, 2: 2}
