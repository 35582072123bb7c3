"""Registered names: who owns a nickname on every protocol, and how they prove it.

A player registers a nickname in the web page with a password (kept as an Argon2id
hash, computed off the reactor thread).  From then on the name and its lookalikes
(``gamehall.text.lookalike_keys``) are theirs everywhere: the web lets the name in
with its password, the old clients (which have no password field) with a *key* the
owner gets once in the web page and types after the name: ``alice+k3j9x0q2m7ab``.
The hall strips the key before anyone sees the name.  Keys are random (62 bits,
lowercase letters and digits, so no client's case folding or character rules spoil
them) and kept as SHA-256 hashes: checking one is fast and synchronous, which
``Hall.login`` needs.

``Players`` is the in-memory registry (loaded from the store by ``Hall.restore``) with
the limits on wrong passwords, wrong keys and registrations.  Each stored change is told to
``on_change`` (the name key): in a hall of several processes gamehall.cluster.registry
carries the player's row (``row``) to the others, which ``apply`` it.
"""
from __future__ import annotations

import hashlib
import re
import secrets
import string
from collections import deque
from dataclasses import dataclass, field

from twisted.internet.defer import Deferred, inlineCallbacks, maybeDeferred
from twisted.internet.threads import deferToThread

from gamehall.lobby import LobbyError, NameTaken, check_nickname, normal_name
from gamehall.logger import SharedLogger
from gamehall.store.interface import StoreError
from gamehall.text import lookalike_keys

_log = SharedLogger(namespace="gamehall.players")

KEY_SEPARATOR = "+"
KEY_LENGTH = 12
KEY_ALPHABET = string.ascii_lowercase + string.digits
_KEY = re.compile(rf"[{KEY_ALPHABET}]{{{KEY_LENGTH}}}")
MIN_PASSWORD = 8
MAX_PASSWORD = 256
MAX_LABEL = 40
MAX_KEYS = 10                       # live keys per name

# Limits: (attempts, seconds).  Wrong passwords per name and per address, wrong keys per
# address, registrations per address.
PASSWORD_FAILS_PER_NAME = (5, 900.0)
PASSWORD_FAILS_PER_ADDRESS = (20, 900.0)
KEY_FAILS_PER_ADDRESS = (10, 900.0)
REGISTRATIONS_PER_ADDRESS = (3, 3600.0)


class PlayerError(LobbyError):
    """A registration request refused; ``str(exc)`` is the reason for the user."""


class RegisteredName(NameTaken):
    """A login refused because the name (or one like it) is registered to someone else,
    or its owner is logged in already (``duplicate``); ``str(exc)`` says which and what to do."""

    def __init__(self, text: str, duplicate: bool = False) -> None:
        super().__init__(text)
        self.duplicate = duplicate


def name_key(name: str) -> str:
    """The key a registration is kept under: one per name, whatever its case."""
    return normal_name(name).casefold()


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def new_key() -> str:
    return "".join(secrets.choice(KEY_ALPHABET) for _ in range(KEY_LENGTH))


def split_key(typed: str) -> tuple[str, str | None]:
    """``"alice+k3j9x0q2m7ab"`` -> ``("alice", "k3j9x0q2m7ab")``; a name without a key
    (or whose tail after the last ``+`` is not key-shaped) -> ``(typed, None)``.
    Upper case in the key is read as lower case (a client that shouts it)."""
    head, sep, tail = typed.strip().rpartition(KEY_SEPARATOR)
    if sep and head.strip() and _KEY.fullmatch(tail.lower()):
        return head.strip(), tail.lower()
    return typed, None


def _hasher():
    from argon2 import PasswordHasher      # the argon2-cffi defaults: Argon2id, RFC 9106's low-memory profile
    return PasswordHasher()


def hash_password(password: str) -> str:
    """Argon2id hash (slow on purpose: call it off the reactor thread)."""
    return _hasher().hash(password)


def password_matches(stored: str, password: str) -> bool:
    """True when ``password`` is the one ``stored`` was made from (slow: off the reactor)."""
    from argon2.exceptions import InvalidHashError, VerificationError
    try:
        return _hasher().verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


class Limiter:
    """At most ``limit`` hits per key within ``period`` seconds (a sliding window)."""

    def __init__(self, clock, limit: int, period: float) -> None:
        self.clock, self.limit, self.period = clock, limit, period
        self._hits: dict[str, deque] = {}

    def _recent(self, key: str) -> deque:
        hits = self._hits.get(key)
        if hits is None:
            return deque()
        since = self.clock.seconds() - self.period
        while hits and hits[0] <= since:
            hits.popleft()
        if not hits:
            del self._hits[key]
        return hits

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        hits = self._recent(key)
        if len(hits) < self.limit:
            return 0.0
        return max(1.0, hits[0] + self.period - self.clock.seconds())

    def hit(self, key: str) -> None:
        self._recent(key)
        self._hits.setdefault(key, deque()).append(self.clock.seconds())

    def clear(self, key: str) -> None:
        self._hits.pop(key, None)


def _minutes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


@dataclass
class Key:
    key_hash: str
    label: str | None
    created: float
    last_used: float | None = None
    revoked: float | None = None

    @property
    def id(self) -> str:
        """What the web page shows and revokes a key by (not enough to log in with)."""
        return self.key_hash[:10]

    def public(self) -> dict:
        return {"id": self.id, "label": self.label, "created": self.created,
                "last_used": self.last_used, "revoked": self.revoked}


@dataclass
class Player:
    name: str
    name_key: str
    password_hash: str
    created: float
    keys: dict[str, Key] = field(default_factory=dict)       # key_hash -> Key

    @property
    def lookalikes(self) -> frozenset[str]:
        return lookalike_keys(self.name)

    def live_keys(self) -> list[Key]:
        return [k for k in self.keys.values() if k.revoked is None]


class Players:
    """The registered names, in memory (``load`` from the store); the store is written
    before the registry changes (nothing is told to a player before it is stored)."""

    log = _log

    def __init__(self, clock, store, *, run=deferToThread) -> None:
        self.clock, self.store = clock, store
        #: runs the slow Argon2 work: a thread (deferToThread) in the hall, never the reactor
        self.run = run
        self.by_key: dict[str, Player] = {}                  # name_key -> Player
        self._lookalikes: dict[str, Player] = {}             # lookalike key -> Player
        self._pending: set[str] = set()                      # lookalike keys of registrations under way
        self.password_fails_name = Limiter(clock, *PASSWORD_FAILS_PER_NAME)
        self.password_fails_address = Limiter(clock, *PASSWORD_FAILS_PER_ADDRESS)
        self.key_fails = Limiter(clock, *KEY_FAILS_PER_ADDRESS)
        self.registrations = Limiter(clock, *REGISTRATIONS_PER_ADDRESS)
        #: called with a name key after each stored change of its registration (registered,
        #: password changed, key made or revoked, reset)
        self.on_change: list = []
        #: in a hall of several processes, what keeps two of them from registering lookalikes
        #: at the same moment: ``claim(lookalike keys)`` -> Deferred[bool], ``release(keys)``
        #: (gamehall.cluster.registry); None in a hall of one process
        self.claims = None

    # -- the registry ----------------------------------------------------------
    @inlineCallbacks
    def load(self):
        """(Re)load every registration from the store: a registration still the same (same
        name, made at the same time) is updated in place, so a web session holding its
        Player keeps it; the others are added or dropped."""
        rows = yield self.store.load_players()
        seen = set()
        for row in rows:
            seen.add(row["name_key"])
            self.apply(row["name_key"], row)
        for gone in [k for k in self.by_key if k not in seen]:
            self.apply(gone, None)
        return len(self.by_key)

    @staticmethod
    def row(player: Player) -> dict:
        """The registration as the store's ``load_players`` gives it (what ``apply`` takes)."""
        return {"name": player.name, "name_key": player.name_key, "password_hash": player.password_hash,
                "created": player.created,
                "keys": [{"key_hash": k.key_hash, "label": k.label, "created": k.created,
                          "last_used": k.last_used, "revoked": k.revoked} for k in player.keys.values()]}

    def apply(self, key: str, row: dict | None) -> None:
        """Make the registration under name key ``key`` what ``row`` says (None: none)."""
        current = self.by_key.get(key)
        if row is None:
            if current is not None:
                self._drop(current)
                self.password_fails_name.clear(key)
            return
        if current is not None and (current.name != row["name"] or current.created != row["created"]):
            self._drop(current)                 # reset and registered again meanwhile: another one
            current = None
        player = current or Player(name=row["name"], name_key=row["name_key"],
                                   password_hash=row["password_hash"], created=row["created"])
        player.password_hash = row["password_hash"]
        keys = {}
        for k in row.get("keys") or ():
            keys[k["key_hash"]] = Key(k["key_hash"], k["label"], k["created"], k["last_used"], k["revoked"])
        player.keys = keys
        if current is None:
            self._add(player)

    def _changed(self, key: str) -> None:
        for callback in list(self.on_change):
            try:
                callback(key)
            except Exception:
                self.log.failure("a registry change of {key} was not passed on", key=key)

    def _add(self, player: Player) -> None:
        self.by_key[player.name_key] = player
        for key in player.lookalikes:
            self._lookalikes[key] = player

    def _drop(self, player: Player) -> None:
        self.by_key.pop(player.name_key, None)
        for key in player.lookalikes:
            if self._lookalikes.get(key) is player:
                del self._lookalikes[key]

    def owner(self, nickname: str) -> Player | None:
        """The registration ``nickname`` is, or looks like; None for a guest's name."""
        player = self.by_key.get(name_key(nickname))
        if player is not None:
            return player
        for key in lookalike_keys(normal_name(nickname)):
            player = self._lookalikes.get(key)
            if player is not None:
                return player
        return None

    def get(self, nickname: str) -> Player | None:
        """The registration of exactly this name (any case), not of a lookalike."""
        return self.by_key.get(name_key(nickname))

    # -- logging in (synchronous: Hall.login) -----------------------------------
    def admit(self, nickname: str, key: str | None, address: str, signed_in: Player | None = None) -> Player | None:
        """Who logs in as ``nickname`` (already checked by check_nickname): the Player when it
        is a registered name and ``key`` (or the web's ``signed_in``) proves it; None for a
        guest's name.  Raises NameTaken / PlayerError saying why not."""
        player = self.owner(nickname)
        if signed_in is not None:
            if player is not signed_in or player.name_key != name_key(nickname):
                raise PlayerError(f"You are signed in as {signed_in.name}, not {nickname}")
            return player
        if key is None:
            if player is None:
                return None
            if player.name_key == name_key(nickname):
                raise RegisteredName(f"Nickname {player.name} is registered. Its owner types it with their key "
                                f"({player.name}{KEY_SEPARATOR}KEY) or signs in with the password on the web page")
            raise RegisteredName(f"Nickname {nickname} looks too much like {player.name}, a registered name")
        wait = self.key_fails.wait(address)
        if wait:
            raise PlayerError(f"Too many wrong keys from your address; try again in {_minutes(wait)}")
        found = None
        if player is not None and player.name_key == name_key(nickname):
            found = player.keys.get(key_hash(key))
        if found is None or found.revoked is not None:
            self.key_fails.hit(address)
            self.log.info("wrong or revoked key for {name} from {address}", name=nickname, address=address or "?")
            if player is None:
                raise PlayerError(f"{nickname} is not a registered name, so a key after it means nothing; "
                                  f"log in without {KEY_SEPARATOR}KEY as a guest")
            raise PlayerError(f"Wrong or revoked key for {player.name}; make a new one on the web page")
        return player

    def used(self, player: Player, key: str) -> None:
        """A key let its owner in: note when (a failed write is only logged)."""
        found = player.keys.get(key_hash(key))
        if found is None:
            return
        found.last_used = now = self.clock.seconds()
        self.store.key_used(found.key_hash, now).addErrback(
            lambda f: self.log.failure("the store could not note a key's use", failure=f))

    # -- the web page's requests (asynchronous: Argon2 runs in a thread) --------
    @staticmethod
    def _check_password(password) -> str:
        if not isinstance(password, str) or len(password) < MIN_PASSWORD:
            raise PlayerError(f"A password has at least {MIN_PASSWORD} characters")
        if len(password) > MAX_PASSWORD:
            raise PlayerError(f"A password has at most {MAX_PASSWORD} characters")
        return password

    def register(self, nickname: str, password: str, address: str) -> Deferred:
        """Register ``nickname``: fires with the Player, or fails with PlayerError (a bad name
        or password, a name registered or like one, too many registrations from ``address``)."""
        return maybeDeferred(self._register, nickname, password, address)

    @inlineCallbacks
    def _register(self, nickname, password, address):
        name = check_nickname(nickname)
        self._check_password(password)
        taken = self.owner(name)
        if taken is not None:
            raise PlayerError(f"{taken.name} is registered already" if taken.name_key == name_key(name)
                              else f"{name} looks too much like {taken.name}, a registered name")
        keys = lookalike_keys(name)
        if not keys.isdisjoint(self._pending):
            raise PlayerError(f"{name} (or a name like it) is being registered right now")
        wait = self.registrations.wait(address)
        if wait:
            raise PlayerError(f"Too many registrations from your address; try again in {_minutes(wait)}")
        self.registrations.hit(address)
        self._pending |= keys
        claimed = False
        try:
            if self.claims is not None:
                claimed = yield self.claims.claim(sorted(keys))
                if not claimed:
                    raise PlayerError(f"{name} (or a name like it) is being registered right now, or was "
                                      f"a moment ago")
                taken = self.owner(name)             # registered elsewhere just before the claim
                if taken is not None:
                    raise PlayerError(f"{taken.name} is registered already" if taken.name_key == name_key(name)
                                      else f"{name} looks too much like {taken.name}, a registered name")
            hashed = yield self.run(hash_password, password)
            try:
                created = yield self.store.register_player(name, name_key(name), hashed)
            except StoreError:
                # registered at the same moment by another process of the hall (the store
                # keeps one per name): say so if the store has it now
                yield self.load()
                taken = self.get(name)
                if taken is not None:
                    raise PlayerError(f"{taken.name} is registered already")
                raise
        except BaseException:
            if claimed:
                self.claims.release(sorted(keys))
            raise
        finally:
            self._pending -= keys
        player = Player(name=name, name_key=name_key(name), password_hash=hashed, created=created)
        self._add(player)
        self.log.info("{name} registered from {address}", name=name, address=address or "?")
        self._changed(player.name_key)
        return player

    def sign_in(self, nickname: str, password: str, address: str) -> Deferred:
        """Fires with the Player whose password this is, or fails with PlayerError (wrong,
        or too many wrong passwords for the name or from the address lately)."""
        return maybeDeferred(self._sign_in, nickname, password, address)

    @inlineCallbacks
    def _sign_in(self, nickname, password, address):
        player = self.get(nickname)
        wait = max(self.password_fails_address.wait(address),
                   self.password_fails_name.wait(player.name_key) if player is not None else 0.0)
        if wait:
            raise PlayerError(f"Too many wrong passwords; try again in {_minutes(wait)}")
        ok = False
        if player is not None and isinstance(password, str) and len(password) <= MAX_PASSWORD:
            ok = yield self.run(password_matches, player.password_hash, password)
        if not ok or self.by_key.get(player.name_key) is not player:     # (reset meanwhile)
            self.password_fails_address.hit(address)
            if player is not None:
                self.password_fails_name.hit(player.name_key)
            self.log.info("wrong password for {name} from {address}", name=nickname, address=address or "?")
            raise PlayerError("Wrong name or password")
        self.password_fails_name.clear(player.name_key)
        return player

    @inlineCallbacks
    def change_password(self, player: Player, old: str, new: str, address: str):
        """Needs the current password (a session left open is not enough)."""
        self._check_password(new)
        yield self._sign_in(player.name, old, address)
        hashed = yield self.run(hash_password, new)
        yield self.store.set_password(player.name_key, hashed)
        player.password_hash = hashed
        self.log.info("{name} changed their password", name=player.name)
        self._changed(player.name_key)

    @inlineCallbacks
    def make_key(self, player: Player, label: str | None = None):
        """A new key for ``player``: fires with the key itself (shown once, kept only hashed)."""
        label = (label or "").strip()[:MAX_LABEL] or None
        if len(player.live_keys()) >= MAX_KEYS:
            raise PlayerError(f"At most {MAX_KEYS} keys at once; revoke one first")
        key = new_key()
        hashed = key_hash(key)
        created = yield self.store.add_key(player.name_key, hashed, label)
        player.keys[hashed] = Key(hashed, label, created)
        self._changed(player.name_key)
        return key

    @inlineCallbacks
    def revoke_key(self, player: Player, key_id: str):
        """Revoke the live key whose ``Key.id`` is ``key_id``."""
        found = next((k for k in player.live_keys() if k.id == key_id), None)
        if found is None:
            raise PlayerError("No such key (revoked already?)")
        found.revoked = yield self.store.revoke_key(player.name_key, found.key_hash)
        self.log.info("{name} revoked key {id}", name=player.name, id=found.id)
        self._changed(player.name_key)

    @inlineCallbacks
    def reset(self, nickname: str):
        """The operator's reset: the registration and its keys are forgotten (the name is a
        guest's again; whoever is logged in under it stays until they leave)."""
        player = self.get(nickname)
        if player is None:
            raise PlayerError(f"{nickname} is not a registered name")
        yield self.store.reset_player(player.name_key)
        self._drop(player)
        self.password_fails_name.clear(player.name_key)
        self._changed(player.name_key)
        return player
