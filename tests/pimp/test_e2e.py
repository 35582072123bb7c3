"""End to end: ``twistd -n gamehall`` with the pimp front end on TCP, then on TLS (a self-signed
certificate made here); wire clients from the protocol text play a game to a winner: a join vote
with a refusal, an observer, a trade, a rejoin with the password, a quit, the winner."""
import pytest

from tests.pimp.net import Net, start_hall
from tests.pimp.wireclient import WireClient, frame, u32


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("use_tls", [False, True], ids=["tcp", "tls"])
def test_a_game_against_twistd(tmp_path, use_tls):
    hall, tcp, tls = start_hall(tmp_path, tcp=not use_tls, tls=use_tls, seed=3)
    port = tls if use_tls else tcp
    try:
        net = Net(hall)
        kerz = net.connect(WireClient("kerz", piece=7), port, tls=use_tls)
        net.run(lambda: kerz.me)
        pavlov = net.connect(WireClient("pavlov", piece=4), port, tls=use_tls)
        net.run(lambda: pavlov.me and "START_OF_TURN" in kerz.names())
        kerz.vote = pavlov.vote = False
        nobody = net.connect(WireClient("nobody"), port, tls=use_tls)
        net.run(lambda: "ERROR_NOT_WELCOME" in nobody.names() and "JOIN_REFUSED" in kerz.names())
        assert any(m[0] == "JOIN_REFUSED" and m[2] == "nobody" for m in kerz.received)
        kerz.vote = pavlov.vote = True
        obs = net.connect(WireClient("obs", play=False), port, tls=use_tls)
        net.run(lambda: obs.me)
        net.run(lambda: kerz.names().count("DICE_ROLLED") > 40)
        # a trade: kerz offers pavlov $1, both finish and agree
        kerz.offer_trade(pavlov.me)
        net.run(lambda: any(m[0] == "TRANSACTION_TRADE_REQUESTED" for m in pavlov.received)
                and not kerz.trades and not pavlov.trades)
        assert "TRANSACTION_FINALISED" in pavlov.names()
        # pavlov drops and comes back over TLS with the password
        net.drop(pavlov)
        back = WireClient("pavlov-again")
        back.me = -1
        back.outbox = [frame("HANDSHAKE", b"\x01"), frame("REJOIN", bytes([pavlov.me]) + u32(pavlov.password))]
        net.connect(back, port, tls=use_tls)
        net.run(lambda: "WELCOME_BACK" in back.names())
        welcome = next(m for m in back.received if m[0] == "WELCOME_BACK")
        assert welcome[1] == pavlov.me and welcome[3] == "pavlov" and welcome[4] is True
        back.me = pavlov.me
        back.owner = dict(pavlov.owner)
        net.run(lambda: kerz.names().count("DICE_ROLLED") > 60)
        kerz.quit = True
        net.run(lambda: kerz.winner and back.winner and obs.winner, seconds=300)
        assert kerz.winner == back.winner == obs.winner == pavlov.me
        assert "PLAYER_BECAME_OBSERVER_TRANSFER" in obs.names()
        assert "DICE_ROLLED" in obs.names()         # observers see the game
    finally:
        hall.kill()
