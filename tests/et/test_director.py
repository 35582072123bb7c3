"""The e2e director (tests/et/director.py) makes its events happen whatever the tile bag."""
from __future__ import annotations

import pytest

from .director import SCRIPT, directed_game


@pytest.mark.parametrize("seed", [1, 2, 3, 7919])
def test_every_script_event_happens_and_the_game_ends(seed):
    game, moves = directed_game(["p0", "p1", "p2", "p3"], seed)
    assert game.is_over()
    events = [e for m in moves for e in m.events]
    kinds = {e["type"] for e in events}
    assert {"revolt", "catastrophe", "monument_built", "treasure_taken"} <= kinds
    pending = [e for e in events if e["type"] == "war_pending"]
    assert any(len(e["colours"]) == 2 for e in pending)
    # the director replays: the same seed gives the same commands
    assert [m.line for m in directed_game(["p0", "p1", "p2", "p3"], seed)[1]] == [m.line for m in moves]
    assert len(SCRIPT) == len({s.name for s in SCRIPT})
