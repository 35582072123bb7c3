"""Joining by vote, observers, switching to play, AFK, passwords, kick, transfer, bankruptcy, the winner."""
from gamehall_pimp.game import Monopoly
from tests.pimp.helpers import do, fresh, own, refused, seen


def _join(g, name, play=True, piece=0):
    return g.apply(None, {"msg": "JOIN", "args": [piece, play, name]})


def _flow(msgs):
    return [(m.name, *m.args, m.to) for m in msgs]


def test_the_first_joiner_needs_no_vote_the_second_is_voted_in_and_moves_first():
    g = Monopoly(seed=3)
    msgs = _join(g, "kerz", piece=7)
    pw = g.users[1].password
    assert _flow(msgs)[:3] == [("_ADMITTED", 1, 1, None), ("WELCOME_DETAILS", 1, pw, (1,)), ("STATE_BOARD", 0, (1,))]
    assert ("STATE_PLAYER", 1, 7, "kerz", 0, 1500, 0, (1,)) in _flow(msgs)
    assert _flow(msgs)[-2:] == [("DELTA_BANK", 32, 12, (1,)), ("STATE_POT", 100, (1,))]
    msgs = _join(g, "pavlov", piece=4)
    assert _flow(msgs) == [("JOIN_PENDING", (-2,)), ("QUERY_JOIN_PLAY", 2, "pavlov", (1,))]
    msgs = do(g, 1, "ACCEPT_JOIN", 2)
    f = _flow(msgs)
    pw2 = g.users[2].password
    assert f[:4] == [("_ADMITTED", 2, 2, None), ("WELCOME_PLAYER", 2, 4, "pavlov", (1,)),
                     ("WELCOME_DETAILS", 2, pw2, (2,)), ("DELTA_CASH", 0, 2, 1500, (1,))]
    assert f[-1] == ("START_OF_TURN", 2, True, None)
    assert g.check_password(2, pw2) and not g.check_password(2, pw2 ^ 1)


def test_votes_thresholds_refusal_queue_and_afk():
    g = fresh(4)
    assert refused(g, None, "JOIN", 0, True, "P1") == [("ERROR_NAME_IN_USE",)]
    assert refused(g, None, "JOIN", 0, True, "") == [("ERROR_NAME_IN_USE",)]
    assert refused(g, None, "JOIN", 0, True, "x" * 33) == [("ERROR_UNPARSEABLE",)]
    _join(g, "ann")                               # candidate 4 (three joined before)
    c_ann = g.candidates[0].id
    msgs = _join(g, "bob", play=False)
    assert _flow(msgs) == [("JOIN_PENDING", (-(c_ann + 1),))]       # one query at a time
    do(g, 1, "REFUSE_JOIN", c_ann)
    do(g, 2, "REFUSE_JOIN", c_ann)
    assert g.candidates[0].id == c_ann             # 2 no of 4 voters: not more than half
    msgs = do(g, 3, "REFUSE_JOIN", c_ann)
    assert ("JOIN_REFUSED", c_ann, "ann", None) in _flow(msgs)
    assert ("ERROR_NOT_WELCOME", (-c_ann,)) in _flow(msgs)
    assert ("QUERY_JOIN_OBSERVE", c_ann + 1, "bob", (1,)) in _flow(msgs)
    do(g, 4, "AFK")
    do(g, 3, "AFK")
    msgs = do(g, 1, "ACCEPT_JOIN", c_ann + 1)     # 2 voters left: one yes is enough
    assert ("WELCOME_OBSERVER", 5, 0, "bob", (1, 2, 3, 4)) in _flow(msgs)
    assert not g.users[5].playing
    assert do(g, 1, "ACCEPT_JOIN", c_ann + 1) == []                 # votes after the decision are ignored


def test_an_observer_switches_to_play_by_vote():
    g = fresh(2)
    _join(g, "obs", play=False)
    do(g, 1, "ACCEPT_JOIN", g.candidates[0].id)
    msgs = do(g, 3, "SWITCH_PLAY")
    assert [m[0] for m in _flow(msgs)] == ["QUERY_JOIN_PLAY", "QUERY_JOIN_PLAY"]
    assert do(g, 3, "SWITCH_PLAY") == []
    msgs = do(g, 1, "ACCEPT_JOIN", g.candidates[0].id)
    assert seen(msgs) == [("OBSERVER_BECAME_PLAYER", 3), ("DELTA_CASH", 0, 3, 1500)]
    assert g.users[3].playing and g.users[3].cash == 1500


def test_kick_vote_against_the_current_player():
    g = fresh(3)
    own(g, 1, 0, 1)
    g.level[0] = g.level[1] = 1
    assert do(g, 2, "KICK", 3) == []              # not 3's turn: no effect
    do(g, 2, "KICK", 1)
    assert g.users[1].playing
    msgs = do(g, 3, "KICK", 1)
    names = [m[0] for m in seen(msgs)]
    assert names[-2:] == ["START_OF_TURN", "PLAYER_BECAME_OBSERVER_KICKED"]
    assert g.owner[0] == 0 and g.level[0] == 0 and g.users[1].cash == 0 and g.bank_supply() == (32, 12)


def test_transfer_to_the_bank_to_an_observer_and_during_a_transaction():
    g = fresh(3)
    own(g, 3, 5)
    tid = g.next_id
    do(g, 3, "TRANSACTION_REQUEST_TRADE", 2)
    assert refused(g, 3, "TRANSFER", 0) == [("ERROR_CANNOT_TRANSFER_DURING_TRANSACTION", tid)]
    do(g, 3, "TRANSACTION_CANCEL", tid)
    _join(g, "heir", play=False)
    for pid in (1, 2):
        if g.candidates:
            do(g, pid, "ACCEPT_JOIN", g.candidates[0].id)
    msgs = do(g, 3, "TRANSFER", 4)
    assert seen(msgs)[0] == ("PLAYER_TAKEOVER", 4, 3)
    assert seen(msgs)[-1] == ("PLAYER_BECAME_OBSERVER_TRANSFER", 3)
    assert g.owner[5] == 4 and g.users[4].cash == 1500 and g.users[4].playing and not g.users[3].playing
    msgs = do(g, 1, "TRANSFER", 0)               # quitting on one's own turn
    assert [m[0] for m in seen(msgs)][-3:] == ["DELTA_CASH", "START_OF_TURN", "PLAYER_BECAME_OBSERVER_TRANSFER"]
    assert g.turn == 2


def test_bankruptcy_is_refused_while_payable_or_older_transactions_then_goes_to_the_bank():
    g = fresh(3)
    own(g, 2, 27)
    g.level[27] = 0
    g.users[2].cash = 10
    older = g.next_id
    do(g, 2, "TRANSACTION_REQUEST_TRADE", 3)
    debt = g._open_debt("rent", 2, 1, 500)
    g.ev = []
    assert refused(g, 2, "BANKRUPT_TRANSACTION", debt.id) == [("ERROR_TRANSACTION_NOT_BANKRUPT", debt.id, older)]
    do(g, 2, "TRANSACTION_CANCEL", older)
    g.users[2].cash = 300
    assert refused(g, 2, "BANKRUPT_TRANSACTION", debt.id) == [("ERROR_TRANSACTION_NOT_BANKRUPT", debt.id, 0)]
    g.users[2].cash = 10
    g.mortgaged[27] = True
    msgs = do(g, 2, "BANKRUPT_TRANSACTION", debt.id)
    assert seen(msgs, 2)[:2] == [("TRANSACTION_CANCELLED", debt.id), ("PLAYER_BECAME_OBSERVER_BANKRUPT", 2)]
    assert ("DELTA_PROPERTY_UNMORTGAGED", 27) in seen(msgs)
    assert seen(msgs)[-1] == ("DELTA_CASH", 0, 1, 500)            # the bank pays the creditor
    assert g.owner[27] == 0 and not g.users[2].playing and not g.is_over()


def test_bankruptcy_to_a_player_with_interest_and_the_winner():
    g = fresh(2, bankrupt_to_bank=False)
    own(g, 2, 26, 27)
    g.mortgaged[26] = g.mortgaged[27] = True
    g.users[2].cash = 10
    debt = g._open_debt("rent", 2, 1, 500)
    g.ev = []
    msgs = do(g, 2, "BANKRUPT_TRANSACTION", debt.id)
    assert ("DELTA_CASH", 2, 1, 10) in seen(msgs)
    assert ("DELTA_PROPERTY", 2, 1, 26) in seen(msgs) and ("DELTA_PROPERTY", 2, 1, 27) in seen(msgs)
    assert ("DELTA_CASH", 1, 0, 17 + 20) in seen(msgs)             # 10% of each mortgage
    assert seen(msgs)[-1] == ("PLAYER_WON", 1)
    assert g.is_over() and g.winner == 1 and g.result()["winners"] == [0]
    assert refused(g, 1, "THROW_DICE") == [("ERROR_UNEXPECTED_MESSAGE", 0x21)]


def test_state_dump_lists_players_observers_properties_cards_bank_and_pot():
    g = fresh(2)
    own(g, 1, 0, 1)
    g.level[0], g.level[1] = 5, 4
    g.mortgaged[5] = True
    own(g, 2, 5)
    g.card_owner[7] = 2
    g.decks["chance"].remove(7)
    dump = [(m.name, *m.args) for m in g.state_dump(1)]
    assert dump[0] == ("STATE_BOARD", 0) and dump[-1] == ("STATE_POT", 100)
    assert ("STATE_PROPERTY", 0, 1, False, 0, 1) in dump and ("STATE_PROPERTY", 1, 1, False, 4, 0) in dump
    assert ("STATE_PROPERTY", 5, 2, True, 0, 0) in dump and ("STATE_CARD", 7, 2) in dump
    assert ("DELTA_BANK", 28, 11) in dump


def test_a_candidate_who_leaves_the_queue_lets_the_next_one_be_asked():
    g = fresh(2)
    _join(g, "ann")
    _join(g, "bob")
    first = g.candidates[0].id
    msgs = g.apply(None, {"msg": "CANDIDATE_GONE", "args": [first]})
    assert [m[0] for m in _flow(msgs)] == ["QUERY_JOIN_PLAY", "QUERY_JOIN_PLAY"]
    assert [c.name for c in g.candidates] == ["bob"]
    assert g.record()["actions"][-1] == {"user": None, "msg": "CANDIDATE_GONE", "args": [first]}


def test_the_operator_admits_a_server_bot_without_a_vote():
    g = fresh(2)
    msgs = g.apply(None, {"msg": "OPERATOR_ADMIT", "args": ["StrongBot1", 0, True]})
    assert ("WELCOME_PLAYER", 3, 3, "StrongBot1", (1, 2)) in _flow(msgs)
    assert g.users[3].playing and g.users[3].cash == 1500
    assert refused(g, None, "OPERATOR_ADMIT", "strongbot1", 0, True) == [("ERROR_NAME_IN_USE",)]
