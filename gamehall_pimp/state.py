"""The engine's plain records: users, claims, transactions, auctions; messages and errors.

Everything here is JSON-able through ``to_dict``/``from_dict`` so that a game
can be saved and restored mid-play.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import NamedTuple

from gamehall.interfaces import IllegalAction

#: transaction stages of each side
SETUP, FINISHED, AGREED = 0, 1, 2
#: kinds that a side may cancel; all others are debts ("uncancellable")
TRADE = "trade"
RENT, CARD, SQUARE, BANK, JAIL = "rent", "card", "square", "bank", "jail"
#: debts owed to the bank side: the bank agrees as soon as the offer suffices
BANK_SIDE = frozenset({SQUARE, BANK, JAIL})
#: debts that hold up the game until settled
BLOCKING = frozenset({SQUARE, JAIL})


class Msg(NamedTuple):
    """One PIMP message the engine sends: ``to`` is None for every user, else a tuple
    of user ids; a join candidate who is not a user yet is addressed as ``-candidate``."""
    name: str
    args: tuple
    to: tuple | None = None


class PimpError(IllegalAction):
    """An action refused with the protocol's own reply (``replies``: Msgs for the sender).

    Raised before anything changed, so the game is exactly as it was.
    """

    def __init__(self, reason: str, *replies: tuple):
        super().__init__(reason)
        self.replies = [Msg(name, tuple(args)) for name, *args in replies]


def unexpected(code_name: str, reason: str) -> PimpError:
    from .messages import SPECS
    return PimpError(reason, ("ERROR_UNEXPECTED_MESSAGE", SPECS[code_name].code))


def invalid(code_name: str, reason: str) -> PimpError:
    from .messages import SPECS
    return PimpError(reason, ("ERROR_INVALID_PAYLOAD", SPECS[code_name].code))


class _Record:
    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict):
        kw = {}
        for f in fields(cls):
            v = d[f.name]
            if f.name in cls._sets:
                v = set(v) if not isinstance(v, dict) else {int(k): set(x) for k, x in v.items()}
            elif f.name in cls._int_keys:
                v = {int(k): x for k, x in v.items()}
            kw[f.name] = v
        return cls(**kw)

    _sets: tuple = ()
    _int_keys: tuple = ()


@dataclass
class User(_Record):
    id: int
    name: str
    piece: int
    playing: bool
    password: int
    square: int = 0
    cash: int = 0
    jail: int = 0                  # 0 not in jail, else the turn in jail (1..3) the player is on
    passed_go: bool = False
    afk: bool = False
    escrow: dict = field(default_factory=dict)     # debt tid -> cash the bank holds back

    _int_keys = ("escrow",)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["escrow"] = {str(k): v for k, v in self.escrow.items()}
        return d


@dataclass
class Candidate(_Record):
    id: int
    name: str
    piece: int
    play: bool
    user: int = 0                  # the observer switching to play, else 0
    yes: set = field(default_factory=set)
    no: set = field(default_factory=set)
    _sets = ("yes", "no")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["yes"], d["no"] = sorted(self.yes), sorted(self.no)
        return d


@dataclass
class Claim(_Record):
    id: int
    kind: str                      # "rent" | "go"
    claimant: int
    debtor: int                    # 0 for salary
    property: int                  # the property, or the square (0) for salary
    amount: int


@dataclass
class Transaction(_Record):
    """A deal between ``a`` and ``b`` (b = 0 for the bank or a square).

    For debts ``a`` is the debtor and ``required`` what is owed to ``creditor``.
    ``cash``/``props``/``cards`` are what each side offers, keyed by side (a, b).
    """
    id: int
    kind: str
    a: int
    b: int
    creditor: int = 0
    required: int = 0
    square: int = 0
    subject: int = 0               # rent: the property; card: the card
    cash: dict = field(default_factory=dict)
    props: dict = field(default_factory=dict)
    cards: dict = field(default_factory=dict)
    stage: dict = field(default_factory=dict)
    unusual: bool = False

    _int_keys = ("cash", "stage")
    _sets = ("props", "cards")

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("cash", "stage"):
            d[k] = {str(s): v for s, v in d[k].items()}
        for k in ("props", "cards"):
            d[k] = {str(s): sorted(v) for s, v in d[k].items()}
        return d

    @property
    def is_debt(self) -> bool:
        return self.kind != TRADE

    def other(self, pid: int) -> int:
        return self.b if pid == self.a else self.a

    def sides(self) -> tuple:
        return (self.a, self.b) if self.b else (self.a,)


@dataclass
class Auction(_Record):
    property: int
    high: int = 0
    leader: int = 0
    passed: set = field(default_factory=set)
    _sets = ("passed",)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["passed"] = sorted(self.passed)
        return d
