"""Dice, moving, Go salary claims, the moratorium, buying and auctions."""
from tests.pimp.helpers import dice, do, fresh, names, own, place, refused, seen


def test_a_roll_moves_square_by_square_and_passes_the_turn():
    g = fresh()
    dice(g, (2, 3))
    msgs = do(g, 1, "THROW_DICE")
    assert seen(msgs) == [("DICE_ROLLED", 1, 2, 3), ("DICE_MOVED_PLAYER", 1, 5, 5)] + [
        ("PLAYER_PASSING_BY_SQUARE", 1, s) for s in (1, 2, 3, 4)] + [
        ("PLAYER_LANDING_ON_SQUARE", 1, 5), ("PROPERTY_SALE", 1, 2, 200)]
    do(g, 1, "AUCTION_PROPERTY")
    for pid in (1, 2, 3):
        msgs = do(g, pid, "NO_BID")
    assert seen(msgs)[-2:] == [("PROPERTY_AUCTION_VOID",), ("START_OF_TURN", 2, True)]


def test_doubles_roll_again_and_three_doubles_go_to_jail():
    g = fresh()
    g.users[1].passed_go = False                 # no sales on the way
    dice(g, (1, 1), (2, 2), (3, 3))
    g.decks["chest"] = [17] + [c for c in g.decks["chest"] if c != 17]
    assert seen(do(g, 1, "THROW_DICE"))[-1] == ("ROLL_AGAIN", 1)      # square 2: community chest
    assert g.phase == "roll"
    do(g, 1, "THROW_DICE")
    msgs = do(g, 1, "THROW_DICE")
    assert seen(msgs) == [("DICE_ROLLED", 1, 3, 3), ("THREE_DOUBLES", 1), ("DICE_MOVED_PLAYER", 1, 10, 0),
                          ("GOING_TO_JAIL", 1, 10), ("PLAYER_LANDING_ON_SQUARE", 1, 10),
                          ("START_OF_TURN", 2, True)]
    assert g.users[1].jail == 1 and g.users[1].square == 10


def test_passing_go_is_a_claim_of_200_and_landing_on_it_400():
    g = fresh()
    place(g, 1, 36)
    dice(g, (2, 3), (1, 3))
    do(g, 1, "THROW_DICE")                       # 36 -> 1, passing Go
    msgs = do(g, 1, "CLAIM_GO", 0)
    assert seen(msgs) == [("PLAYER_CLAIMED_GO", 1, 0, 200), ("SQUARE_GIVES_CASH", 1, 0, 200),
                          ("DELTA_CASH", 0, 1, 200)]
    assert refused(g, 1, "CLAIM_GO", 0) == [("ERROR_INVALID_GO_CLAIM",)]
    g2 = fresh()
    place(g2, 1, 36)
    dice(g2, (2, 2))
    do(g2, 1, "THROW_DICE")
    assert seen(do(g2, 1, "CLAIM_GO", 0))[0] == ("PLAYER_CLAIMED_GO", 1, 0, 400)
    g3 = fresh(double_go=False)
    place(g3, 1, 36)
    dice(g3, (2, 2))
    do(g3, 1, "THROW_DICE")
    assert seen(do(g3, 1, "CLAIM_GO", 0))[0] == ("PLAYER_CLAIMED_GO", 1, 0, 200)


def test_unclaimed_salary_is_lost_at_the_next_players_first_roll_not_after_doubles():
    g = fresh()
    place(g, 1, 38)
    dice(g, (1, 2), (1, 1), (2, 1))
    do(g, 1, "THROW_DICE")                       # 38 -> 1 (Mediterranean): sale
    do(g, 1, "AUCTION_PROPERTY")
    for pid in (1, 2, 3):
        do(g, pid, "NO_BID")
    msgs = do(g, 2, "THROW_DICE")
    assert seen(msgs)[0] == ("RENT_COLLECTION_MORATORIUM",)
    assert refused(g, 1, "CLAIM_GO", 0) == [("ERROR_INVALID_GO_CLAIM",)]
    place(g, 3, 39)
    assert "RENT_COLLECTION_MORATORIUM" not in names(do(g, 2, "THROW_DICE"))


def test_buying_and_too_expensive():
    g = fresh()
    dice(g, (1, 2), (1, 2))
    do(g, 1, "THROW_DICE")                       # square 3: Baltic, 60
    g.users[1].cash = 59
    assert refused(g, 1, "BUY_PROPERTY") == [("ERROR_PROPERTY_TOO_EXPENSIVE", 1, 60)]
    g.users[1].cash = 60
    msgs = do(g, 1, "BUY_PROPERTY")
    assert seen(msgs)[:3] == [("SQUARE_TAKES_CASH", 1, 3, 60), ("DELTA_CASH", 1, 0, 60),
                              ("DELTA_PROPERTY", 0, 1, 1)]
    assert g.owner[1] == 1 and g.turn == 2


def test_must_pass_go_before_buying():
    g = fresh()
    g.users[1].passed_go = False
    dice(g, (1, 2))
    msgs = do(g, 1, "THROW_DICE")
    assert "PROPERTY_SALE" not in names(msgs) and g.turn == 2
    g = fresh(must_pass_go=False)
    g.users[1].passed_go = False
    dice(g, (1, 2))
    assert "PROPERTY_SALE" in names(do(g, 1, "THROW_DICE"))


def test_auction_bids_passes_and_winner():
    g = fresh()
    dice(g, (1, 2))
    do(g, 1, "THROW_DICE")
    assert seen(do(g, 1, "AUCTION_PROPERTY")) == [("PROPERTY_AUCTION", 1)]
    assert seen(do(g, 2, "BID", 10)) == [("PROPERTY_AUCTION_BID", 2, 10)]
    assert refused(g, 2, "BID", 20) == [("ERROR_UNEXPECTED_MESSAGE", 0x34)]
    assert refused(g, 2, "NO_BID") == [("ERROR_UNEXPECTED_MESSAGE", 0x36)]
    low = do(g, 3, "BID", 10)
    assert [(m.name, *m.args, m.to) for m in low] == [("PROPERTY_AUCTION_BID", 2, 10, (3,))]
    assert refused(g, 3, "BID", 5000) == [("ERROR_PROPERTY_TOO_EXPENSIVE", 1, 5000)]
    do(g, 1, "NO_BID")
    do(g, 1, "BID", 15)                          # a pass is taken back by bidding again
    do(g, 2, "NO_BID")
    msgs = do(g, 3, "NO_BID")
    assert seen(msgs)[:5] == [("PROPERTY_AUCTION_NO_BID", 3), ("PROPERTY_AUCTION_WON", 1),
                              ("SQUARE_TAKES_CASH", 1, 3, 15), ("DELTA_CASH", 1, 0, 15),
                              ("DELTA_PROPERTY", 0, 1, 1)]
    assert g.owner[1] == 1 and g.users[1].cash == 1485


def test_out_of_turn_and_unknown_messages_get_protocol_errors():
    g = fresh()
    assert refused(g, 2, "THROW_DICE") == [("ERROR_UNEXPECTED_MESSAGE", 0x21)]
    assert refused(g, 1, "BUY_PROPERTY") == [("ERROR_UNEXPECTED_MESSAGE", 0x31)]
    assert refused(g, 1, "PONG", 3) == [("ERROR_UNEXPECTED_MESSAGE", 0xD1)]
    assert refused(g, 1, "NOPE") == [("ERROR_UNEXPECTED_MESSAGE", 0xFE)]
    own(g, 2, 0)
    assert refused(g, 1, "MORTGAGE_PROPERTY", 0) == [("ERROR_INVALID_PAYLOAD", 0x3B)]
    assert refused(g, 1, "MORTGAGE_PROPERTY", 99) == [("ERROR_INVALID_PAYLOAD", 0x3B)]
