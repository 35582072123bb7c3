"""Monopoly under PIMP's house rules: the engine (``Monopoly``) and the hall's ``IGame``.

Use::

    g = Monopoly(seed=42)                                   # options: see core.DEFAULT_OPTIONS
    g.apply(None, {"msg": "JOIN", "args": [7, True, "kerz"]})   # a connection asks to join
    g.apply(1, {"msg": "ACCEPT_JOIN", "args": [2]})             # user 1 votes for candidate 2
    g.apply(2, {"msg": "THROW_DICE", "args": []})

Users are PIMP's player numbers (1-255, players and observers alike; 0 is the
bank).  An action is a client message of the protocol by name (without the
``PIMP_`` prefix) and its fields in order; ``PURCHASE_HOUSES`` takes one
argument, a list of ``[property, houses, hotels]``.  ``apply`` returns the
messages it caused (``state.Msg``: name, args, to); a refused action raises
``PimpError`` whose ``replies`` are the protocol's error messages for the
sender, and changes nothing.  Every accepted action is logged; ``record()``
and ``gamehall_pimp.record`` replay it exactly (the dice come from the seed).

The rules live by concern in mixins: moves (dice, squares, claims, cards,
buying), auction, jail, buildings, mortgages, transactions, bankruptcy
(transfers, kick, winner) and players (joining, votes, state dump).
"""
from __future__ import annotations

import random

from zope.interface import implementer

from gamehall.interfaces import IGame, IllegalAction, IOutOfTurnEngine, IRecordingEngine

from .auction import AuctionMixin
from .bankruptcy import BankruptcyMixin
from .board import board0
from .buildings import BuildingsMixin
from .core import AUCTION, LOBBY, OVER, WAIT, Core
from .jail import JailMixin
from .messages import SPECS
from .mortgages import MortgagesMixin
from .moves import MovesMixin
from .players import PlayersMixin
from .state import (AGREED, FINISHED, SETUP, Auction, Candidate, Claim, Msg, PimpError, Transaction, User,
                    unexpected)
from .transactions import TransactionsMixin

STATE_FORMAT = "gamehall-pimp-state/1"
#: client messages the engine handles (the handshake, rejoin and pong belong to the front end)
ENGINE_MESSAGES = frozenset(
    n[4:] for n in dir(MovesMixin) + dir(AuctionMixin) + dir(JailMixin) + dir(BuildingsMixin)
    + dir(MortgagesMixin) + dir(TransactionsMixin) + dir(BankruptcyMixin) + dir(PlayersMixin)
    if n.startswith("_on_"))
#: what may still be said once the game is over
AFTER_THE_END = frozenset({"JOIN", "ACCEPT_JOIN", "REFUSE_JOIN", "AFK", "REQUEST_STATE", "CANDIDATE_GONE"})
#: actions that are not protocol messages: a front end's notices (recorded and replayed like the rest)
#: CANDIDATE_GONE [candidate]: a join candidate's connection closed;
#: OPERATOR_ADMIT [name, piece, play]: the operator seats a user (a server bot) without a vote;
#: NOT_AFK [user]: an AFK user sent a message that is not recorded (PONG, REJOIN, REQUEST_STATE, a
#: refused one), which ends AFK all the same ("any other message sent from the client will cancel
#: this notice (including PIMP_PONG!)"): recorded, so a replay counts the same voters
INTERNAL = {"CANDIDATE_GONE", "OPERATOR_ADMIT", "NOT_AFK"}


def _check_args(name: str, args: list) -> tuple:
    """Arguments of the right kinds and ranges for ``name`` (as the codec would produce them)."""
    fields = SPECS[name].fields
    if not isinstance(args, (list, tuple)) or len(args) != len(fields):
        raise IllegalAction(f"{name} takes {len(fields)} arguments")
    out = []
    for f, v in zip(fields, args):
        if f == "S":
            ok = isinstance(v, str)
        elif f == "?":
            ok = isinstance(v, bool) or v in (0, 1)
            v = bool(v)
        elif f == "H":
            ok = (isinstance(v, (list, tuple)) and len(v) <= 84 and all(
                isinstance(e, (list, tuple)) and len(e) == 3 and all(isinstance(x, int) for x in e)
                and 0 <= e[0] <= 255 and -128 <= e[1] <= 127 and -128 <= e[2] <= 127 for e in v))
            v = [tuple(e) for e in v] if ok else v
        else:
            limit = {"B": 255, "I": 2 ** 32 - 1}[f]
            ok = isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= limit
        if not ok:
            raise IllegalAction(f"bad argument {v!r} for {name}")
        out.append(v)
    return tuple(out)


@implementer(IRecordingEngine)
class Monopoly(MovesMixin, AuctionMixin, JailMixin, BuildingsMixin, MortgagesMixin,
               TransactionsMixin, BankruptcyMixin, PlayersMixin, Core):
    def __init__(self, seed: int = 0, options: dict | None = None, first_id: int = 1):
        self._init_state(board0(), options or {}, seed)
        self.next_id = first_id
        self.password_rng = random.Random(f"pimp-passwords:{seed}")
        self.last_candidate = 0
        self._waiting_on = 0
        self.log: list[list] = []

    # -- IEngine ----------------------------------------------------------------
    @property
    def players(self) -> list[str]:
        return [u.name for u in self.users.values()]

    def pending_seat(self) -> int | None:
        """The user (PIMP number, not a hall seat: see HallEngine) whose turn it is, or None."""
        if self.phase == OVER:
            return None
        return self.turn or None

    def is_over(self) -> bool:
        return self.phase == OVER

    def result(self) -> dict:
        ids = list(self.users)
        return {"scores": [self.net_worth(p) if self.users[p].playing else 0 for p in ids],
                "winners": [ids.index(self.winner)] if self.winner else [],
                "reason": self.end_reason}

    def timeout_action(self, seat: int) -> dict:
        from .bots import passive_action
        return passive_action(self, seat)

    # -- actions -----------------------------------------------------------------
    def apply(self, pid: int | None, action: dict) -> list[Msg]:
        if not isinstance(action, dict) or not isinstance(action.get("msg"), str):
            raise IllegalAction("an action is {\"msg\": NAME, \"args\": [...]}")
        name = action["msg"]
        if name in INTERNAL:
            args = action.get("args", [])
            if pid is not None or not isinstance(args, list):
                raise IllegalAction(f"{name} comes from no user")
            self.ev = []
            if name == "CANDIDATE_GONE":
                if len(args) != 1 or not isinstance(args[0], int):
                    raise IllegalAction(f"{name} takes one candidate number")
                self.withdraw_candidate(args[0])
            elif name == "NOT_AFK":
                if len(args) != 1 or args[0] not in self.users:
                    raise IllegalAction(f"{name} takes one user number")
                self.users[args[0]].afk = False
            else:
                if (len(args) != 3 or not isinstance(args[0], str) or not isinstance(args[1], int)
                        or not isinstance(args[2], bool)):
                    raise IllegalAction(f"{name} takes a name, a piece and whether to play")
                if self.phase == OVER:
                    raise IllegalAction("the game is over")
                self.operator_admit(*args)
            self.log.append([None, name, list(args)])
            ev, self.ev = self.ev, []
            return ev
        if name not in ENGINE_MESSAGES:
            code = SPECS[name].code if name in SPECS else 0xFE
            raise PimpError(f"unexpected {name}", ("ERROR_UNEXPECTED_MESSAGE", code))
        args = _check_args(name, action.get("args", []))
        if pid is not None and pid not in self.users:
            raise IllegalAction(f"no user {pid}")
        if pid is None and name != "JOIN":
            raise unexpected(name, "join first")
        if self.phase == OVER and name not in AFTER_THE_END:
            raise unexpected(name, "the game is over")
        self.ev = []
        # any other accepted (so recorded) message ends AFK, before it is handled (an AFK user's
        # vote counts); a refused one changes nothing here, nor REQUEST_STATE (not recorded): a
        # front end records their ending of AFK with NOT_AFK
        back = pid is not None and name not in ("AFK", "REQUEST_STATE") and self.users[pid].afk
        if back:
            self.users[pid].afk = False
        try:
            getattr(self, "_on_" + name)(pid, *args)
        except IllegalAction:
            if back:
                self.users[pid].afk = True
            raise
        if name != "REQUEST_STATE":
            self.log.append([pid, name, [list(a) if isinstance(a, tuple) else a for a in args]
                             if name != "PURCHASE_HOUSES" else [[list(e) for e in args[0]]]])
        ev, self.ev = self.ev, []
        return ev

    def record(self) -> dict:
        return {"game": "pimp", "board": self.board.number, "seed": self.seed,
                "options": dict(self.options),
                "actions": [{"user": u, "msg": n, "args": a} for u, n, a in self.log]}

    # -- saving ------------------------------------------------------------------
    def to_dict(self) -> dict:
        def rng(r):
            v, state, g = r.getstate()
            return [v, list(state), g]
        return {
            "format": STATE_FORMAT, "seed": self.seed, "options": self.options,
            "rng": rng(self.rng), "password_rng": rng(self.password_rng),
            "users": [u.to_dict() for u in self.users.values()],
            "candidates": [c.to_dict() for c in self.candidates],
            "next_user": self.next_user, "next_candidate": self.next_candidate, "next_id": self.next_id,
            "last_candidate": self.last_candidate,
            "owner": self.owner, "mortgaged": self.mortgaged, "level": self.level,
            "decks": self.decks, "card_owner": {str(k): v for k, v in self.card_owner.items()},
            "pot": self.pot, "turn": self.turn, "phase": self.phase, "cont": self.cont,
            "doubles": self.doubles, "rolled": self.rolled, "dice": list(self.dice),
            "sale": self.sale, "tax_square": self.tax_square,
            "auction": self.auction.to_dict() if self.auction else None,
            "claims": [c.to_dict() for c in self.claims],
            "transactions": [t.to_dict() for t in self.transactions.values()],
            "kick_votes": sorted(self.kick_votes), "turns": self.turns, "winner": self.winner,
            "end_reason": self.end_reason, "waiting_on": self._waiting_on, "log": self.log,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Monopoly":
        if d.get("format") != STATE_FORMAT:
            raise ValueError(f"not a {STATE_FORMAT} state")
        g = cls(d["seed"], d["options"])
        for name in ("rng", "password_rng"):
            v, state, gauss = d[name]
            getattr(g, name).setstate((v, tuple(state), gauss))
        g.users = {u["id"]: User.from_dict(u) for u in d["users"]}
        g.candidates = [Candidate.from_dict(c) for c in d["candidates"]]
        for k in ("next_user", "next_candidate", "next_id", "last_candidate", "pot", "turn", "phase",
                  "cont", "doubles", "rolled", "sale", "tax_square", "turns", "winner", "end_reason",
                  "log"):
            setattr(g, k, d[k])
        g.owner, g.mortgaged, g.level = list(d["owner"]), list(d["mortgaged"]), list(d["level"])
        g.decks = {k: list(v) for k, v in d["decks"].items()}
        g.card_owner = {int(k): v for k, v in d["card_owner"].items()}
        g.dice = tuple(d["dice"])
        g.auction = Auction.from_dict(d["auction"]) if d["auction"] else None
        g.claims = [Claim.from_dict(c) for c in d["claims"]]
        g.transactions = {t["id"]: Transaction.from_dict(t) for t in d["transactions"]}
        g.kick_votes = set(d["kick_votes"])
        g._waiting_on = d["waiting_on"]
        return g


#: the table options, as variant flags added to "classic" (e.g. "classic+no-pot+single-go"):
#: the reference server's options, and "reference-building" for its laxer building rule
VARIANT_FLAGS = {
    "no-pot": ("pot", False),
    "buy-before-go": ("must_pass_go", False),
    "single-go": ("double_go", False),
    "bankrupt-to-creditor": ("bankrupt_to_bank", False),
    "reference-building": ("strict_groups", False),
}
#: each flag in words, for the web create form (one checkbox each) and a table's line
VARIANT_FLAG_TEXT = {
    "no-pot": "no pot: fines and taxes go to the bank",
    "buy-before-go": "buying from the first lap, before passing Go",
    "single-go": "single salary for landing on Go",
    "bankrupt-to-creditor": "a bankrupt's property goes to the creditor",
    "reference-building": "reference server's building rule: building beside a mortgage",
}


def _all_variants() -> tuple:
    flags = list(VARIANT_FLAGS)
    out = []
    for mask in range(2 ** len(flags)):
        chosen = [f for i, f in enumerate(flags) if mask >> i & 1]
        out.append("+".join(["classic"] + chosen))
    return tuple(out)


def variant_options(variant: str) -> dict:
    base, *flags = variant.split("+")
    if base != "classic" or any(f not in VARIANT_FLAGS for f in flags):
        raise ValueError(f"Monopoly has no variant {variant!r}")
    return dict(VARIANT_FLAGS[f] for f in flags)


def waits_for(g: Monopoly, pid: int) -> int:
    """Whom ``pid``'s debts wait for: ``pid`` itself, or, when its oldest transaction waits on
    the other side (a creditor to finish or agree, a debtor to pay), that side, and so on down
    older transactions (ids fall, so it ends).  The game held up by ``pid``'s debt waits for
    this user: the hall asks it (a bot) or times it out (a person), not ``pid``, who may have
    nothing to do (a seat taken over by a bot mid-game was never asked, and the game stalled)."""
    seen = set()
    while pid not in seen:
        seen.add(pid)
        txs = g.transactions_of(pid)
        if not txs or not txs[0].is_debt or txs[0].b == 0:
            return pid                   # nothing, a trade to cancel, a debt to the bank: its own move
        tx = txs[0]
        a, b = tx.a, tx.b
        stage_a, stage_b = tx.stage[a], tx.stage[b]
        if stage_b == SETUP or (stage_a == AGREED and stage_b == FINISHED):
            nxt = b                      # the creditor must finish or agree
        elif stage_a == SETUP or (stage_b == AGREED and stage_a == FINISHED):
            nxt = a                      # the debtor must pay (or raise money, or go bankrupt)
        else:
            return pid                   # both finished: either may agree
        if nxt == pid:
            return pid
        pid = nxt
    return pid


@implementer(IOutOfTurnEngine, IRecordingEngine)
class HallEngine:
    """A ``Monopoly`` as the hall's tables see it: seat ``i`` is PIMP user ``i + 1`` and seat
    -1 someone without a seat (a join request).  Anyone may act at any time (``may_act``);
    ``pending_seat`` is whom the game waits for (the player on turn, the next bidder, the
    debtor holding up the game), or None (waiting for players, or over)."""

    def __init__(self, game: Monopoly):
        self.game = game
        # called after every applied action, whoever made it (the front end stirs its server
        # bots with it: at a table of bots alone no connection hears the table's events)
        self.on_move = None

    @property
    def players(self) -> list[str]:
        return self.game.players

    def apply(self, seat: int, action: dict) -> list:
        events = self.game.apply(None if seat is None or seat < 0 else seat + 1, action)
        if self.on_move is not None:
            self.on_move()
        return events

    def may_act(self, seat: int) -> bool:
        return True          # the engine refuses what is not allowed, with the protocol's error

    def pending_seat(self) -> int | None:
        g = self.game
        if g.phase in (LOBBY, OVER) or not g.turn:
            return None
        if g.phase == AUCTION:
            a = g.auction
            for pid in g.playing():
                if pid != a.leader and pid not in a.passed:
                    return pid - 1
        if g.phase == WAIT:
            tx = g.blocking()
            if tx is not None:
                return waits_for(g, tx.a) - 1
        return g.turn - 1

    def is_over(self) -> bool:
        return self.game.is_over()

    def result(self) -> dict:
        return self.game.result()

    def timeout_action(self, seat: int) -> dict | None:
        """The cautious default, or None when the seat has nothing to do now (a request that
        changes nothing is not an action to store)."""
        from .bots import passive_action
        return passive_action(self.game, seat + 1)

    def record(self) -> dict:
        return self.game.record()


class SeatBot:
    """A bot at a hall table: seats to user numbers."""

    def __init__(self, bot):
        self.bot = bot

    def choose(self, engine: HallEngine, seat: int) -> dict | None:
        """None when the seat has nothing to do now: the table asks again after the next move
        (a REQUEST_STATE instead was stored as an action at every bot delay)."""
        from .bots import passive_action
        g = engine.game
        return self.bot.choose(g, seat + 1) or passive_action(g, seat + 1)


@implementer(IGame)
class PimpGame:
    name = "pimp"
    title = "Monopoly (PIMP)"
    # players join a running game by vote: a table starts empty
    min_seats, max_seats = 0, 255
    variants = _all_variants()
    #: the variants are "classic" plus any of these flags, in this order (a form offers each)
    variant_options = VARIANT_FLAG_TEXT
    bots = ("strong", "random")
    turn_timeout = 300

    def attach(self, hall):
        """The hall's Monopoly state: its ``PimpRooms`` (the current table, the servers, the
        operator's ``monopoly`` command, a table's start with seats taken, a restore)."""
        from .wire.protocol import PimpRooms
        return PimpRooms(hall, self)

    def new_engine(self, variant: str, players: list[str], seed: int) -> HallEngine:
        """An empty game: every user, bots too, comes in through a recorded JOIN."""
        return HallEngine(Monopoly(seed=seed, options=variant_options(variant)))

    def new_bot(self, name: str, seed: int):
        from .bots import make_bot
        return SeatBot(make_bot(name, seed))


def with_players(names: list[str], seed: int, options: dict | None = None) -> Monopoly:
    """A game where ``names`` joined in turn, each voted in by everyone already there."""
    g = Monopoly(seed=seed, options=options)
    for i, name in enumerate(names):
        g.apply(None, {"msg": "JOIN", "args": [0, True, name]})
        for voter in range(1, i + 1):
            if g.candidates:
                g.apply(voter, {"msg": "ACCEPT_JOIN", "args": [g.candidates[0].id]})
    return g
