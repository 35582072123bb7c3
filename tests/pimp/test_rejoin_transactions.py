"""A dump (rejoin or state request) brings the user back into their open transactions
("S=>C" messages after the dump), so a player who dropped mid-deal can finish it: a game held
up by a jail debt went on once the rejoined client agreed (found by the e2e test, seed 3)."""
from tests.pimp.helpers import dice, do, fresh, own


def _after_dump(g, pid):
    return [(m.name, *m.args) for m in g.catch_up(pid) if m.to == (pid,)]


def test_a_rejoined_debtor_sees_the_jail_debt_holding_up_the_game_and_can_pay_it():
    g = fresh(2, turn=2)
    g.users[1].jail = 3                      # the third failed roll opens the bail
    g._start_turn(1)
    dice(g, (4, 3))
    tid = g.next_id
    do(g, 1, "JAIL_ROLL_DICE")
    assert _after_dump(g, 1) == [
        ("START_OF_TURN", 1, False), ("TRANSACTION_JAIL_REQUESTED", tid, 50),
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
