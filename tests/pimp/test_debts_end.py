"""Issue 15: no sequence of moves leaves a game with a debt that can be neither paid nor ended
in bankruptcy.  Whole random games with players that pay late and learn whether they can pay
only from the messages (``latepayer.LatePayer``), random and strong bots, and seats taken over
by a bot mid-game (the hall's takeover of a dropped or kicked player): every game ends."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gamehall_pimp.bots import make_bot
from gamehall_pimp.game import Monopoly, with_players
from gamehall_pimp.selfplay import play_game
from tests.pimp.latepayer import LatePayer
from tests.pimp.model import check_invariants


def play_to_the_end(seed: int, lineup: list[str], options: dict, takeover_at: int = 0,
                    takeover_bot: str = "strong", cash: int = 1500) -> Monopoly:
    """Play ``lineup`` ("late", "random", "strong"), each starting with ``cash`` (less makes
    debts that cannot be paid more frequent); after ``takeover_at`` accepted actions (0: never)
    a bot takes over every late payer's seat where it stands, mid-deal or not."""
    g = with_players([f"{n}{i}" for i, n in enumerate(lineup)], seed)
    g.options.update(options)
    for u in g.users.values():
        u.cash = cash
    players = {pid: LatePayer(pid, seed + pid) if kind == "late" else make_bot(kind, seed + pid)
               for pid, kind in enumerate(lineup, start=1)}
    done = [0]

    def after(pid, action, msgs):
        for p in players.values():
            if isinstance(p, LatePayer):
                p.hear(msgs)
        check_invariants(g)
        done[0] += 1
        if done[0] == takeover_at:
            for q, p in list(players.items()):
                if isinstance(p, LatePayer):
                    players[q] = make_bot(takeover_bot, seed + 100 + q)

    play_game(g, players, max_actions=200_000, after=after)     # raises Stuck on a stall
    assert g.is_over() and g.winner
    return g


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32),
       lineup=st.lists(st.sampled_from(["late", "late", "random", "strong"]), min_size=2, max_size=4),
       to_bank=st.booleans(), strict=st.booleans(),
       takeover_at=st.sampled_from([0, 0, 50, 400, 1500]), takeover_bot=st.sampled_from(["strong", "random"]),
       cash=st.sampled_from([1500, 400, 150]))
def test_games_with_late_payers_and_bots_always_end(seed, lineup, to_bank, strict, takeover_at, takeover_bot,
                                                    cash):
    options = {"bankrupt_to_bank": to_bank, "strict_groups": strict, "max_turns": 300}
    play_to_the_end(seed, lineup, options, takeover_at, takeover_bot, cash)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2 ** 32),
       lineup=st.lists(st.sampled_from(["random", "strong"]), min_size=2, max_size=5),
       to_bank=st.booleans(), cash=st.sampled_from([1500, 300]))
def test_bot_only_games_always_end(seed, lineup, to_bank, cash):
    play_to_the_end(seed, lineup, {"bankrupt_to_bank": to_bank, "max_turns": 300}, cash=cash)


def test_late_payers_that_stalled_before_the_fix():
    """Three late payers with 400 each: 10 of these 20 games stalled before a debt that became
    unaffordable said so (REOPENED, cash cut down, and no ERROR_TRANSACTION_TOO_EXPENSIVE)."""
    for seed in range(20):
        play_to_the_end(seed, ["late", "late", "late"], {"max_turns": 300}, cash=400)
