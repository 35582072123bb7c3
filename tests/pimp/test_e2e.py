"""End to end: ``twistd -n gamehall`` with the pimp front end on TCP, then on TLS (a self-signed
certificate made here); wire clients from the protocol text play a game to a winner: a join vote
with a refusal, an observer, a trade, a rejoin with the password, a quit, the winner."""
import select
import socket
import ssl

import pytest

from gamehall.plugins import find_frontends
from tests.helpers import EXAMPLE, install_example_plugin
from tests.pimp.wireclient import WireClient, frame, u32
from tests.wireclient import Hall, free_port


def _self_signed(path):
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption())
                     + cert.public_bytes(serialization.Encoding.PEM))


class Net:
    """Wire clients on real sockets (plain or TLS), driven from one loop."""

    def __init__(self):
        self.socks = {}

    def connect(self, client: WireClient, port: int, tls: bool = False) -> WireClient:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
            sock = ctx.wrap_socket(sock)
        self.socks[client] = sock
        return client

    def drop(self, client: WireClient) -> None:
        self.socks.pop(client).close()

    def run(self, until, seconds: float = 180.0) -> None:
        import time
        deadline = time.monotonic() + seconds
        while not until():
            if time.monotonic() > deadline:
                raise AssertionError("timed out")
            for client, sock in self.socks.items():
                data = client.take()
                if data:
                    sock.sendall(data)
            ready, _, _ = select.select(list(self.socks.values()), [], [], 0.05)
            for client, sock in list(self.socks.items()):
                if sock in ready or (isinstance(sock, ssl.SSLSocket) and sock.pending()):
                    try:
                        data = sock.recv(65536)
                    except (ssl.SSLWantReadError, BlockingIOError):
                        continue
                    if data:
                        client.feed(data)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("use_tls", [False, True], ids=["tcp", "tls"])
def test_a_game_against_twistd(tmp_path, use_tls):
    port = free_port()
    if use_tls:
        pem = tmp_path / "hall.pem"
        _self_signed(pem)
        endpoint = f"pimp=ssl:{port}:privateKey={pem}:interface=127.0.0.1"
    else:
        endpoint = f"pimp=tcp:{port}:interface=127.0.0.1"
    tcp = tls = port
    install_example_plugin()          # the child has the example on its path too
    others = [arg for name in find_frontends() if name != "pimp" for arg in ("--disable", name)]
    hall = Hall(["--db", str(tmp_path / "hall.sqlite"), "--admin", f"tcp:{free_port()}:interface=127.0.0.1",
                 "--listen", endpoint, "--bot-delay", "0.01", *others], tmp_path, expect=["pimp"],
                extra_path=[str(EXAMPLE)], timeout=90)
    try:
        net = Net()
        kerz = net.connect(WireClient("kerz", piece=7), tcp, tls=use_tls)
        net.run(lambda: kerz.me)
        pavlov = net.connect(WireClient("pavlov", piece=4), tls, tls=use_tls)
        net.run(lambda: pavlov.me and "START_OF_TURN" in kerz.names())
        kerz.vote = pavlov.vote = False
        nobody = net.connect(WireClient("nobody"), tls, tls=use_tls)
        net.run(lambda: "ERROR_NOT_WELCOME" in nobody.names() and "JOIN_REFUSED" in kerz.names())
        assert any(m[0] == "JOIN_REFUSED" and m[2] == "nobody" for m in kerz.received)
        kerz.vote = pavlov.vote = True
        obs = net.connect(WireClient("obs", play=False), tcp, tls=use_tls)
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
        net.connect(back, tls, tls=use_tls)
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
