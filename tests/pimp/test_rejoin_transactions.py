"""A dump (rejoin or state request) brings the user back into their open transactions
("S=>C" messages after the dump), so a player who dropped mid-deal can finish it: a game held
up by a jail debt went on once the rejoined client agreed (found by the e2e test, seed 3)."""
from tests.pimp.helpers import dice, do, fresh, own, place


def _after_dump(g, pid):
    return [(m.name, *m.args) for m in g.catch_up(pid) if m.to == (pid,)]


def test_a_rejoined_debtor_sees_the_jail_debt_holding_up_the_game_and_can_pay_it():
    g = fresh(2, turn=2)
    g.users[1].jail = 3                      # the third failed roll opens the bail
    g._start_turn(1)
    dice(g, (4, 3))
    tid = g.next_id
    do(g, 1, "JAIL_ROLL_DICE")
    assert _after_dump(g, 1) == [     # (no START_OF_TURN: the turn is held up by the debt)
        ("TRANSACTION_JAIL_REQUESTED", tid, 50),
        ("TRANSACTION_CASH_SET", tid, 50), ("TRANSACTION_FINISHED", tid), ("TRANSACTION_OTHER_FINISHED", tid),
        ("TRANSACTION_OTHER_AGREED", tid), ("WAITING_FOR_TRANSACTION", 1, tid)]
    assert not any(name.startswith("TRANSACTION") for name, *_ in _after_dump(g, 2))
    msgs = do(g, 1, "TRANSACTION_AGREE", tid)
    assert ("JAIL_FREE", 1) in [(m.name, *m.args) for m in msgs]
    assert g.turn == 2 and not g.transactions


def test_a_dump_replays_a_trade_in_progress_and_a_rent_debt_from_each_side():
    g = fresh(2)
    own(g, 2, 3)
    tid = g.next_id
    do(g, 1, "TRANSACTION_REQUEST_TRADE", 2)
    do(g, 1, "TRANSACTION_SET_CASH", tid, 100)
    do(g, 2, "TRANSACTION_ADD_PROPERTY", tid, 3)
    do(g, 1, "TRANSACTION_FINISH", tid)
    assert _after_dump(g, 2)[1:] == [
        ("TRANSACTION_TRADE_REQUESTED", tid, 1), ("TRANSACTION_CASH_SET", tid, 0),
        ("TRANSACTION_PROPERTY_ADDED", tid, 3), ("TRANSACTION_OTHER_CASH_SET", tid, 100),
        ("TRANSACTION_OTHER_FINISHED", tid)]
    do(g, 2, "TRANSACTION_FINISH", tid)
    do(g, 2, "TRANSACTION_AGREE", tid)
    assert _after_dump(g, 1)[1:] == [
        ("TRANSACTION_TRADE_REQUESTED", tid, 2), ("TRANSACTION_CASH_SET", tid, 100),
        ("TRANSACTION_OTHER_CASH_SET", tid, 0), ("TRANSACTION_OTHER_PROPERTY_ADDED", tid, 3),
        ("TRANSACTION_FINISHED", tid), ("TRANSACTION_OTHER_FINISHED", tid), ("TRANSACTION_OTHER_AGREED", tid)]
    do(g, 1, "TRANSACTION_AGREE", tid)
    assert g.owner[3] == 1 and not g.transactions
    # a rent debt the debtor cannot pay yet: cash 0, unusual, the debtor still setting up
    g.users[1].cash = 3
    rent = g._open_debt("rent", 1, 2, 4, subject=3)
    g.ev = []
    assert _after_dump(g, 1)[1:] == [
        ("TRANSACTION_RENT_REQUESTED", rent.id, 2, 3, 2, 4), ("TRANSACTION_CASH_SET", rent.id, 0),
        ("TRANSACTION_OTHER_CASH_SET", rent.id, 0), ("TRANSACTION_UNUSUAL", rent.id),
        ("TRANSACTION_OTHER_FINISHED", rent.id)]
    assert _after_dump(g, 2)[1:] == [
        ("TRANSACTION_RENT_REQUESTED", rent.id, 1, 3, 2, 4), ("TRANSACTION_CASH_SET", rent.id, 0),
        ("TRANSACTION_OTHER_CASH_SET", rent.id, 0), ("TRANSACTION_UNUSUAL", rent.id),
        ("TRANSACTION_FINISHED", rent.id)]


def _state_request(g, pid):
    """What ``pid`` gets after the dump for REQUEST_STATE (over the engine's API)."""
    msgs = do(g, pid, "REQUEST_STATE")
    names = [m.name for m in msgs]
    return [(m.name, *m.args) for m in msgs[names.index("STATE_POT") + 1:] if m.to == (pid,)]


def test_a_dump_says_where_the_turn_is_not_always_start_of_turn():
    # after REQUEST_STATE or a rejoin the catch-up always began with START_OF_TURN, which a
    # client takes as its cue to throw the dice: out of turn after doubles, during a sale,
    # an auction, a tax choice or a transaction holding up the game
    g = fresh(3)
    assert _state_request(g, 2) == [("START_OF_TURN", 1, True)]          # before the first roll
    dice(g, (3, 3), (1, 2), (2, 2))
    do(g, 1, "THROW_DICE")                                                # doubles: onto 6, for sale
    price = g.board.properties[g.sale].price
    assert _state_request(g, 2) == [("PROPERTY_SALE", 1, g.sale, price)]
    assert _state_request(g, 1) == [("PROPERTY_SALE", 1, g.sale, price)]
    do(g, 1, "BUY_PROPERTY")
    assert _state_request(g, 3) == [("ROLL_AGAIN", 1)]                    # doubles: 1 rolls again
    do(g, 1, "THROW_DICE")                                                # onto 9, for sale
    prop = g.sale
    do(g, 1, "AUCTION_PROPERTY")
    do(g, 2, "BID", 10)
    do(g, 3, "NO_BID")
    assert _state_request(g, 1) == [("PROPERTY_AUCTION", prop), ("PROPERTY_AUCTION_BID", 2, 10),
                                    ("PROPERTY_AUCTION_NO_BID", 3)]
    do(g, 1, "NO_BID")                                                    # 2 buys; 2's turn
    assert g.turn == 2 and _state_request(g, 1) == [("START_OF_TURN", 2, True)]
    place(g, 2, 0)
    dice(g, (2, 2))
    do(g, 2, "THROW_DICE")                                                # income tax: a choice
    assert g.phase == "tax" and _state_request(g, 3) == [("TAX_SELECT_OPTION", 2, 4)]
