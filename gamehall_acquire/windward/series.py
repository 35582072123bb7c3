"""A Windward series ("auto-run", ``/a N``): N games with the same 6 seats.

Game k (0-based) starts with seat ``k mod 6`` (the protocol's rotation: game 1
starts with seat 0, game 2 with seat 1, ...); everything else (cash, hands,
shares, cards, board) starts afresh.  Each game's seed comes from the series
seed, so a series is deterministic: the same seed and the same actions give
the same games.  After each game every seat's score is appended to its
scoreboard; the series winner is the highest total (ties to the earlier
seat, as the original orders a game's players).  How the original combined
a series (sum, wins, mean) is not in its code; the contest rules text says
"the total score across all games", which is what ``totals`` is.

Use::

    series = Series(names, games=10, seed=7)
    series.play([make_bot("strong", 1), ...6 bots])      # or, driving it yourself:
    game = series.new_game(); ...apply actions...; series.finish_game()
    series.totals, series.winner, series.scoreboard(seat), series.results_xml()
"""
from __future__ import annotations

import random
from typing import Callable, Sequence
from xml.sax.saxutils import escape, quoteattr

from .rules import WindwardGame, WindwardRules, game_from_record

SERIES_FORMAT = "gamehall-acquire-windward-series/1"


class SeriesError(ValueError):
    """A series used out of order (a game started twice, finished before its end...)."""


class Series:
    def __init__(self, players: Sequence[str], games: int, seed: int, rules: WindwardRules | None = None):
        if games < 1:
            raise ValueError("a series has at least one game")
        self.players = [str(p) for p in players]
        if len(self.players) != 6:
            raise ValueError("a Windward series seats exactly 6 players")
        self.games = games
        self.seed = seed
        self.rules = rules or WindwardRules()
        rng = random.Random(f"windward-series:{seed}")
        self.game_seeds = [rng.getrandbits(63) for _ in range(games)]
        self.scores: list[list[int]] = []          # per finished game, per seat
        self.reasons: list[str] = []
        self.records: list[dict] = []
        self.game: WindwardGame | None = None      # the game being played

    # ------------------------------------------------------------ progress
    @property
    def played(self) -> int:
        return len(self.scores)

    def is_over(self) -> bool:
        return self.played >= self.games

    def first_seat(self, k: int) -> int:
        """The seat that starts game ``k`` (0-based)."""
        return k % len(self.players)

    def new_game(self) -> WindwardGame:
        """Start the next game (``self.game``)."""
        if self.is_over():
            raise SeriesError("the series is over")
        if self.game is not None:
            raise SeriesError("the current game is not finished")
        k = self.played
        self.game = WindwardGame.new(self.players, seed=self.game_seeds[k], rules=self.rules,
                                     first=self.first_seat(k))
        return self.game

    def finish_game(self) -> list[int]:
        """Book the finished current game; its scores per seat."""
        g = self.game
        if g is None or not g.is_over():
            raise SeriesError("no finished game to book")
        res = g.result()
        self.scores.append(list(res["scores"]))
        self.reasons.append(res["reason"])
        self.records.append(g.record())
        self.game = None
        return list(res["scores"])

    def play(self, bots: Sequence, on_events: Callable[[int, list], None] | None = None) -> None:
        """Play every remaining game with one IBot per seat (``bots[seat]``)."""
        if len(bots) != len(self.players):
            raise ValueError("one bot per seat")
        while not self.is_over():
            g = self.game or self.new_game()
            while not g.is_over():
                seat = g.pending_seat()
                ev = g.apply(seat, bots[seat].choose(g, seat))
                if on_events is not None:
                    on_events(self.played, ev)
            self.finish_game()

    # ------------------------------------------------------------ results
    def scoreboard(self, seat: int) -> list[int]:
        """``seat``'s scores in the games played so far (the protocol's <scoreboard>)."""
        return [s[seat] for s in self.scores]

    @property
    def totals(self) -> list[int]:
        return [sum(s[seat] for s in self.scores) for seat in range(len(self.players))]

    def standings(self) -> list[int]:
        """Seats by total, best first; ties keep seat order."""
        totals = self.totals
        return sorted(range(len(self.players)), key=lambda s: (-totals[s], s))

    @property
    def winner(self) -> int:
        return self.standings()[0]

    @property
    def winners(self) -> list[int]:
        totals = self.totals
        return [s for s in range(len(totals)) if totals[s] == max(totals)]

    def results_xml(self) -> str:
        """The original's results file: ``<players><player name="...">s1;s2;...</player>...</players>``."""
        rows = "".join(f"<player name={quoteattr(name)}>{escape(''.join(f'{v};' for v in self.scoreboard(s)))}</player>"
                       for s, name in enumerate(self.players))
        return f"<players>{rows}</players>"

    # ------------------------------------------------------------ state
    def to_dict(self) -> dict:
        return {"format": SERIES_FORMAT, "players": list(self.players), "games": self.games,
                "seed": self.seed, "rules": self.rules.to_dict(),
                "scores": [list(s) for s in self.scores], "reasons": list(self.reasons),
                "records": list(self.records),
                "game": self.game.to_dict() if self.game is not None else None}

    @classmethod
    def from_dict(cls, d: dict) -> "Series":
        if d.get("format") != SERIES_FORMAT:
            raise ValueError(f"not a Windward series: format {d.get('format')!r}")
        s = cls(d["players"], d["games"], d["seed"], WindwardRules.from_dict(d["rules"]))
        s.scores = [list(x) for x in d["scores"]]
        s.reasons = list(d["reasons"])
        s.records = list(d["records"])
        s.game = WindwardGame.from_dict(d["game"]) if d["game"] is not None else None
        return s

    def replay(self) -> list[WindwardGame]:
        """Every finished game rebuilt from its record (a check that the series replays)."""
        return [game_from_record(r) for r in self.records]
