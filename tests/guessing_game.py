"""A third-party game that uses every hook a game may provide, through the declared
interfaces only (docs/plugins.md): "Guess the number".

Each round every player guesses a secret number from 1 to 100 at once (a simultaneous
engine); whoever comes closest scores the round's stakes, which any player may double
once a round, whether or not it is waiting for them (an action out of turn).  The engine
starts empty: the players seated at the start are admitted by recorded actions of
nobody's seat (the service's ``admit_seated``), and the number of rounds is the table's
option (the service's ``new_engine_for_table``).  A finished game keeps its rounds as its
record.  The service counts what it sees (every broadcast, every restore) and gives the
operator a ``guesses`` command.
"""
from __future__ import annotations

import random

from zope.interface import implementer

from gamehall.interfaces import (IBot, IGame, IGameService, IllegalAction, IOutOfTurnEngine,
                                 IRecordingEngine, ISimultaneousEngine)

#: the seat of an action that is nobody's: the admission of a player
NOBODY = -1


@implementer(ISimultaneousEngine, IOutOfTurnEngine, IRecordingEngine)
class Guessing:
    def __init__(self, expected: int, rounds: int, seed: int) -> None:
        self.players: list[str] = []
        self.expected, self.rounds = expected, rounds
        self.secrets = [random.Random(f"{seed}:{n}").randint(1, 100) for n in range(rounds)]
        self.round, self.stakes, self.doubled = 0, 1, False
        self.guesses: dict[int, int] = {}
        self.scores: list[int] = []
        self.history: list[dict] = []

    def pending_seats(self) -> list[int]:
        if self.is_over() or len(self.players) < self.expected:
            return []
        return [seat for seat in range(len(self.players)) if seat not in self.guesses]

    def pending_seat(self) -> int | None:
        pending = self.pending_seats()
        return pending[0] if pending else None

    def may_act(self, seat: int) -> bool:
        if self.is_over():
            return False
        if seat == NOBODY:
            return len(self.players) < self.expected
        return 0 <= seat < len(self.players) == self.expected

    def apply(self, seat: int, action: dict) -> list:
        if not self.may_act(seat):
            raise IllegalAction("Not now")
        if seat == NOBODY:
            name = action.get("admit")
            if not isinstance(name, str) or not name:
                raise IllegalAction("Admit whom?")
            self.players.append(name)
            self.scores.append(0)
            return [{"type": "admitted", "seat": len(self.players) - 1, "name": name}]
        if action.get("double") is True:
            if self.doubled:
                raise IllegalAction("The stakes are doubled already this round")
            self.doubled, self.stakes = True, self.stakes * 2
            return [{"type": "doubled", "seat": seat, "stakes": self.stakes}]
        guess = action.get("guess")
        if seat in self.guesses:
            raise IllegalAction("You have guessed this round")
        if type(guess) is not int or not 1 <= guess <= 100:
            raise IllegalAction("Guess 1 to 100")
        self.guesses[seat] = guess
        events = [{"type": "guessed", "seat": seat}]
        if len(self.guesses) == len(self.players):
            secret = self.secrets[self.round]
            best = min(abs(g - secret) for g in self.guesses.values())
            winners = [s for s, g in sorted(self.guesses.items()) if abs(g - secret) == best]
            for s in winners:
                self.scores[s] += self.stakes
            self.history.append({"secret": secret, "stakes": self.stakes,
                                 "guesses": [self.guesses[s] for s in range(len(self.players))]})
            events.append({"type": "round", "secret": secret, "winners": winners})
            self.round, self.stakes, self.doubled, self.guesses = self.round + 1, 1, False, {}
        return events

    def is_over(self) -> bool:
        return self.round >= self.rounds

    def result(self) -> dict:
        best = max(self.scores)
        return {"scores": list(self.scores), "winners": [s for s, n in enumerate(self.scores) if n == best],
                "reason": "every round played"}

    def timeout_action(self, seat: int) -> dict | None:
        return {"guess": 50} if seat in self.pending_seats() else None

    def record(self) -> dict:
        return {"rounds": [dict(r) for r in self.history]}


@implementer(IBot)
class Hunch:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, engine: Guessing, seat: int) -> dict | None:
        return {"guess": self.rng.randint(1, 100)} if seat in engine.pending_seats() else None


@implementer(IGameService)
class GuessingService:
    """The game's state in one hall; written against IGameService alone (no base class)."""

    def __init__(self, hall, game) -> None:
        self.hall, self.game = hall, game
        self.seen: list[tuple[int, str]] = []      # (table id, event) of every broadcast
        self.restored: list[int] = []              # ids of the tables restored

    @property
    def admin_commands(self) -> dict:
        return {"guesses": (self.report, "guesses: what the guessing game's service has seen")}

    def report(self, hall, args: str) -> str:
        tables = sorted(t.id for t in hall.tables.values() if t.game is self.game)
        return (f"guessing tables {tables}: {len(self.seen)} events seen, "
                f"{len(self.restored)} tables restored")

    def new_engine_for_table(self, table) -> Guessing:
        return Guessing(len(table.seats), table.options.get("rounds", 3), table.seed)

    def admit_seated(self, table) -> None:
        for seat in table.seats:
            table.act_for(NOBODY, {"admit": seat.name})

    def table_event(self, table, event: str, detail: dict) -> None:
        self.seen.append((table.id, event))

    def table_restored(self, table) -> None:
        self.restored.append(table.id)


@implementer(IGame)
class GuessingGame:
    name, title = "guess", "Guess the number"
    min_seats, max_seats = 2, 4
    variants, bots = ("plain",), ("hunch",)
    turn_timeout = None            # a simultaneous game is asked without the turn timer

    def new_engine(self, variant: str, players: list[str], seed: int) -> Guessing:
        # not what the hall uses: the service makes the engine from the table's options
        return Guessing(len(players), 3, seed)

    def new_bot(self, name: str, seed: int) -> Hunch:
        return Hunch(seed)

    def attach(self, hall) -> GuessingService:
        return GuessingService(hall, self)
