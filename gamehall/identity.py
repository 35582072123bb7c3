"""Who may take a held seat back: seat secrets (stored only as hashes) and the
operator's one-use ``allow NICK`` permissions.

The rule itself lives in ``Table.claim_refusal``; this module holds the pieces
that are not about tables.
"""
from __future__ import annotations

import hashlib
import hmac
import os

SECRET_SCHEME = "pbkdf2_sha256"
SECRET_ROUNDS = 20_000          # a seat secret is checked once per reconnect: slow enough, never noticeable
ALLOW_TTL = 600.0               # seconds an operator's ``allow NICK`` stays usable


def hash_secret(secret: str, salt: bytes | None = None, rounds: int = SECRET_ROUNDS) -> str:
    """A salted one-way hash of a front end's password, as stored with a seat."""
    salt = os.urandom(12) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha256", secret.encode("utf-8"), salt, rounds)
    return f"{SECRET_SCHEME}${rounds}${salt.hex()}${digest.hex()}"


def secret_matches(stored: str, secret: str) -> bool:
    """True when ``secret`` is the password that ``stored`` (from hash_secret) was made from."""
    try:
        scheme, rounds, salt, digest = stored.split("$")
        if scheme != SECRET_SCHEME:
            return False
        again = hash_secret(secret, bytes.fromhex(salt), int(rounds)).rsplit("$", 1)[1]
    except (ValueError, AttributeError):
        return False
    return hmac.compare_digest(again, digest)


class Allowances:
    """``allow NICK`` from the operator: the next reclaim of NICK's seat succeeds
    whoever makes it; one use, gone after ``ttl`` seconds."""

    def __init__(self, clock, ttl: float = ALLOW_TTL) -> None:
        self.clock, self.ttl = clock, ttl
        self._until: dict[str, float] = {}

    def grant(self, nickname: str) -> float:
        """Allow ``nickname``; returns the time the permission expires."""
        until = self.clock.seconds() + self.ttl
        self._until[nickname.casefold()] = until
        return until

    def take(self, nickname: str) -> bool:
        """Use up the permission of ``nickname``; False when there is none (or it expired)."""
        until = self._until.pop(nickname.casefold(), None)
        return until is not None and self.clock.seconds() <= until

    def pending(self) -> dict[str, float]:
        """Unexpired permissions (nickname key -> expiry), dropping the expired ones."""
        now = self.clock.seconds()
        self._until = {k: t for k, t in self._until.items() if t >= now}
        return dict(self._until)
