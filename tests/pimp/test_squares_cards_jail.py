"""Taxes, the pot, Free Parking, every card kind, and jail."""
import pytest

from tests.pimp.helpers import dice, do, fresh, own, place, refused, seen


def _to_square(g, pid, square, roll=None):
    """Roll ``pid`` from ``square - roll`` onto ``square``."""
    d = roll or (1, 2)
    place(g, pid, (square - sum(d)) % 40)
    dice(g, d, *([(1, 2)] * 3))
    return do(g, pid, "THROW_DICE")


def test_income_tax_ten_percent_or_200_goes_to_the_pot():
    g = fresh()
    own(g, 1, 0, 1, 27)
    g.mortgaged[27] = True
    g.level[0] = g.level[1] = 1
    msgs = _to_square(g, 1, 4)
    assert seen(msgs)[-1] == ("TAX_SELECT_OPTION", 1, 4)
    assert g.income_tax_percent(1) == (1500 + 60 + 60 + 400 + 50 + 50) // 10
    msgs = do(g, 1, "TAX_PAY_TEN_PERCENT")
    assert seen(msgs)[:3] == [("SQUARE_TAKES_CASH", 1, 4, 212), ("DELTA_CASH", 1, 0, 212), ("DELTA_POT", 312)]
    g = fresh()
    _to_square(g, 1, 4)
    assert seen(do(g, 1, "TAX_PAY_FLAT_FEE"))[:3] == [
        ("SQUARE_TAKES_CASH", 1, 4, 200), ("DELTA_CASH", 1, 0, 200), ("DELTA_POT", 300)]


def test_luxury_tax_free_parking_and_the_pot_switched_off():
    g = fresh()
    msgs = _to_square(g, 1, 38)
    assert seen(msgs)[-4:-1] == [("SQUARE_TAKES_CASH", 1, 38, 75), ("DELTA_CASH", 1, 0, 75), ("DELTA_POT", 175)]
    msgs = _to_square(g, 2, 20)
    assert seen(msgs)[-4:-1] == [("SQUARE_GIVES_CASH", 2, 20, 175), ("DELTA_CASH", 0, 2, 175), ("DELTA_POT", 100)]
    g = fresh(pot=False)
    _to_square(g, 1, 38)
    assert g.pot == 0
    msgs = _to_square(g, 2, 20)
    assert seen(msgs)[-2:] == [("PLAYER_LANDING_ON_SQUARE", 2, 20), ("START_OF_TURN", 3, True)]


def test_an_unpayable_fine_holds_up_the_game_until_paid_and_skips_the_pot():
    g = fresh()
    g.users[1].cash = 50
    own(g, 1, 27)
    tid = g.next_id
    msgs = _to_square(g, 1, 38)
    assert ("TRANSACTION_SQUARE_REQUESTED", tid, 38, 75) in seen(msgs, 1)
    assert seen(msgs)[-1] == ("WAITING_FOR_TRANSACTION", 1, tid)
    assert refused(g, 2, "THROW_DICE") == [("ERROR_UNEXPECTED_MESSAGE", 0x21)]
    do(g, 1, "MORTGAGE_PROPERTY", 27)
    do(g, 1, "TRANSACTION_SET_CASH", tid, 75)
    msgs = do(g, 1, "TRANSACTION_FINISH", tid)
    assert seen(msgs, 1)[-1] == ("TRANSACTION_OTHER_AGREED", tid)
    msgs = do(g, 1, "TRANSACTION_AGREE", tid)
    assert seen(msgs)[-3:] == [("DELTA_CASH", 1, 0, 75), ("SQUARE_TAKES_CASH", 1, 38, 75), ("START_OF_TURN", 2, True)]
    assert g.pot == 100


def _card(g, deck, card):
    g.decks[deck].remove(card)
    g.decks[deck].insert(0, card)


@pytest.mark.parametrize("card,target,salary", [(0, 0, 400), (1, 24, 200), (5, 11, 200), (12, 5, 200), (13, 39, 0)])
def test_advance_cards(card, target, salary):
    g = fresh()
    _card(g, "chance", card)
    msgs = _to_square(g, 1, 36)
    assert ("GOT_CARD", 1, 36, card) in seen(msgs)
    assert ("CARD_MOVED_PLAYER", 1, card, target) in seen(msgs)
    assert g.users[1].square == target
    assert sum(c.amount for c in g.claims if c.kind == "go") == salary
    assert g.decks["chance"][-1] == card


def test_nearest_railroad_pays_double_and_nearest_utility_ten_times_a_fresh_roll():
    g = fresh()
    own(g, 2, 10)
    _card(g, "chance", 3)
    _to_square(g, 1, 7)
    assert g.users[1].square == 15 and g.claims[-1].amount == 50
    g = fresh()
    own(g, 2, 7)
    _card(g, "chance", 2)
    place(g, 1, 4)
    dice(g, (1, 2), (6, 5))
    msgs = do(g, 1, "THROW_DICE")
    assert seen(msgs)[-3:-1] == [("PLAYER_LANDING_ON_SQUARE", 1, 12), ("DICE_ROLLED", 1, 6, 5)]
    assert g.claims[-1].amount == 110


def test_money_cards_repairs_back_three_and_go_to_jail():
    g = fresh()
    _card(g, "chest", 17)
    msgs = _to_square(g, 1, 2)
    assert ("SQUARE_GIVES_CASH", 1, 2, 200) in seen(msgs) and g.users[1].cash == 1700
    _card(g, "chest", 18)
    msgs = _to_square(g, 2, 17)
    assert ("SQUARE_TAKES_CASH", 2, 17, 50) in seen(msgs) and g.pot == 150
    own(g, 3, 0, 1)
    g.level[0], g.level[1] = 5, 4
    _card(g, "chest", 29)
    msgs = _to_square(g, 3, 33)
    assert ("SQUARE_TAKES_CASH", 3, 33, 115 + 4 * 40) in seen(msgs)
    _card(g, "chance", 10)
    msgs = _to_square(g, 1, 7)
    assert ("SQUARE_TAKES_CASH", 1, 7, 0) in seen(msgs) and ("DELTA_POT", g.pot) in seen(msgs)
    _card(g, "chance", 8)
    own(g, 2, 13)
    msgs = _to_square(g, 2, 22)
    assert seen(msgs)[-5:-1] == [("CARD_MOVED_PLAYER", 2, 8, 19), ("PLAYER_PASSING_BY_SQUARE", 2, 21),
                                 ("PLAYER_PASSING_BY_SQUARE", 2, 20), ("PLAYER_LANDING_ON_SQUARE", 2, 19)]
    _card(g, "chest", 21)
    msgs = _to_square(g, 3, 2)
    assert ("GOING_TO_JAIL", 3, 10) in seen(msgs) and g.users[3].jail == 1


def test_jail_free_card_is_kept_and_pay_each_collect_each_open_card_transactions():
    g = fresh()
    _card(g, "chance", 7)
    msgs = _to_square(g, 1, 7)
    assert seen(msgs)[-4:-1] == [("GOT_CARD", 1, 7, 7), ("SQUARE_GIVES_CARD", 1, 7, 7), ("DELTA_CARD", 0, 1, 7)]
    assert 7 not in g.decks["chance"] and g.card_owner == {7: 1}
    _card(g, "chance", 14)
    first = g.next_id
    msgs = _to_square(g, 2, 22)
    assert ("TRANSACTION_CARD_REQUESTED", first, 2, 14, 1, 50) in seen(msgs, 1)
    assert ("TRANSACTION_CARD_REQUESTED", first + 1, 2, 14, 3, 50) in seen(msgs, 3)
    _card(g, "chest", 22)
    nxt = g.next_id
    msgs = _to_square(g, 3, 33)
    assert ("TRANSACTION_CARD_REQUESTED", nxt, 3, 22, 3, 50) in seen(msgs, 1)
    assert g.transactions[nxt].a == 1 and g.transactions[nxt].creditor == 3


def _jail(g, pid):
    g.users[pid].square, g.users[pid].jail = 10, 1


def test_a_jailed_player_pays_bail_through_a_transaction_and_does_not_move():
    g = fresh()
    _jail(g, 2)
    g._start_turn(2)
    assert seen(g.ev)[-2:] == [("START_OF_TURN", 2, False), ("JAIL_PAY_OR_ROLL", 2, 3, True)]
    g.ev = []
    tid = g.next_id
    msgs = do(g, 2, "JAIL_PAY_BAIL")
    assert ("TRANSACTION_JAIL_REQUESTED", tid, 50) in seen(msgs, 2)
    msgs = do(g, 2, "TRANSACTION_AGREE", tid)
    assert seen(msgs)[-4:] == [("DELTA_CASH", 2, 0, 50), ("SQUARE_TAKES_CASH", 2, 10, 50), ("JAIL_FREE", 2),
                               ("START_OF_TURN", 3, True)]
    assert g.users[2].square == 10 and g.pot == 100


def test_a_jail_card_pays_bail_and_goes_back_under_its_deck():
    g = fresh()
    _jail(g, 2)
    g.decks["chest"].remove(20)
    g.card_owner[20] = 2
    g.users[2].cash = 10
    g._start_turn(2)
    tid = g.next_id
    msgs = do(g, 2, "JAIL_PAY_BAIL")
    assert ("TRANSACTION_CARD_ADDED", tid, 20) in seen(msgs, 2)
    msgs = do(g, 2, "TRANSACTION_AGREE", tid)
    assert seen(msgs)[-4:] == [("DELTA_CARD", 2, 0, 20), ("SQUARE_TAKES_CARD", 2, 10, 20), ("JAIL_FREE", 2),
                               ("START_OF_TURN", 3, True)]
    assert g.decks["chest"][-1] == 20


def test_doubles_free_a_prisoner_who_rolls_again_and_the_third_failure_forces_bail():
    g = fresh()
    _jail(g, 2)
    g._start_turn(2)
    dice(g, (4, 4))
    assert seen(do(g, 2, "JAIL_ROLL_DICE")) == [("DICE_ROLLED", 2, 4, 4), ("JAIL_FREE", 2), ("ROLL_AGAIN", 2)]
    assert g.users[2].square == 10 and g.phase == "roll"
    g = fresh()
    _jail(g, 2)
    for left in (3, 2, 1):
        g._start_turn(2)
        assert seen(g.ev)[-1] == ("JAIL_PAY_OR_ROLL", 2, left, True)
        dice(g, (1, 2))
        g.ev = []
        msgs = do(g, 2, "JAIL_ROLL_DICE")
    tid = g.next_id - 1
    assert ("TRANSACTION_JAIL_REQUESTED", tid, 50) in seen(msgs, 2)
    assert seen(msgs)[-1] == ("WAITING_FOR_TRANSACTION", 2, tid)
    msgs = do(g, 2, "TRANSACTION_AGREE", tid)
    assert seen(msgs)[-2:] == [("JAIL_FREE", 2), ("START_OF_TURN", 3, True)]
