"""Test helpers shared by hall and front-end tests."""
from __future__ import annotations

import sys
from pathlib import Path

from twisted.internet.task import Clock
from zope.interface import implementer

from gamehall.framing import Framer, LineFramer
from gamehall.hall import Hall
from gamehall.interfaces import IUserSink
from gamehall_acquire.windward.wire.framing import WindwardFramer
from gamehall_acquire.wire.framing import NetAcquireFramer
from gamehall_daide.wire.framing import DaideFramer
from gamehall_pimp.wire.framing import PimpFramer

EXAMPLE = Path(__file__).parent / "plugin_example"

# Every framer of the hall's protocols by name, for the tests that hold them all to one contract.
FRAMERS: dict[str, type[Framer]] = {
    "line": LineFramer,
    "netacquire": NetAcquireFramer,
    "pimp": PimpFramer,
    "windward": WindwardFramer,
    "daide": DaideFramer,
}


def install_example_plugin() -> None:
    """Put the README's example game package on sys.path and in twisted.plugins' path."""
    import twisted.plugins
    if str(EXAMPLE) not in sys.path:
        sys.path.insert(0, str(EXAMPLE))
    plugins = str(EXAMPLE / "twisted" / "plugins")
    if plugins not in twisted.plugins.__path__:
        twisted.plugins.__path__.append(plugins)


@implementer(IUserSink)
class RecordingSink:
    """Records what the hall tells a user."""

    def __init__(self) -> None:
        self.chat: list[tuple[str, str]] = []
        self.lobby: list[tuple[str, dict]] = []
        self.events: list[tuple[int, str, dict]] = []
        self.disconnected: str | None = None

    def lobby_chat(self, sender, text):
        self.chat.append((sender, text))

    def lobby_changed(self, event, detail):
        self.lobby.append((event, detail))

    def table_event(self, table, event, detail):
        self.events.append((table.id, event, detail))

    def disconnect(self, reason):
        self.disconnected = reason

    def names(self) -> list[str]:
        return [event for _, event, _ in self.events]


def make_hall(games=None, store=None, **kw) -> Hall:
    from gamehall.store import MemoryStore
    install_example_plugin()
    if games is None:
        from twisted.plugins.gamehall_nim_plugin import nim
        games = {"nim": nim}
    store = store or MemoryStore()
    # a store given may be open already (a test's real store, a restarted hall's)
    store.open().addErrback(lambda f: None if "already open" in str(f.value) else f)
    kw.setdefault("seat_hold", 30.0)
    kw.setdefault("bot_delay", 0.5)
    return Hall(Clock(), store, games, **kw)


def self_signed_pem() -> bytes:
    """A private key and a self-signed certificate for localhost, one PEM (for TLS tests)."""
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
    return (key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption())
            + cert.public_bytes(serialization.Encoding.PEM))


def iterate_until(reactor, until, steps=2000):
    """Turn the real reactor (1 ms at a time, at most ``steps`` turns) until ``until()``."""
    for _ in range(steps):
        if until():
            return True
        reactor.iterate(0.001)
    return until()


def hold_store_thread(testcase, store):
    """Keep ``store``'s thread busy until the returned release() is called (a cleanup of
    ``testcase`` releases it anyway): what is queued meanwhile runs as one group."""
    import threading

    entered, gate = threading.Event(), threading.Event()

    def hold():
        entered.set()
        gate.wait(10)

    store._call(hold)
    testcase.addCleanup(gate.set)
    testcase.assertTrue(entered.wait(10))  # nothing queued from now on joins its batch
    return gate.set
