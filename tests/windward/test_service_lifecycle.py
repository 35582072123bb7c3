"""The windward service over time: no series outlives its games and clients, takeover bots,
refusals counted, and the operator's commands on finished series."""
from __future__ import annotations

import gc
import weakref

from gamehall_acquire.windward.wire.match import KEEP_FINISHED, Contestant, Match
from tests.windward.test_wire_protocol import Harness, started_one_client, table_of


def live(cls) -> int:
    gc.collect()
    return sum(isinstance(o, cls) for o in gc.get_objects())


# -- no leak ---------------------------------------------------------------------------
def test_join_and_close_cycles_leave_no_live_series():
    h = Harness()
    before = live(Match)
    refs = []
    for i in range(200):
        c = h.join(f"P{i}")
        refs.append(weakref.ref(h.service.contestants[f"p{i}"].match))
        c.drop()
    gc.collect()
    assert [r for r in refs if r() is not None] == []
    assert live(Match) == before and live(Contestant) == 0
    assert h.service.tables == {} and h.service.matches == {} and h.hall.tables == {}


def test_finished_series_are_kept_only_up_to_the_limit():
    h = Harness(turn_timeout=0.05)
    refs = []
    for i in range(KEEP_FINISHED + 5):
        c = h.join(f"P{i}")
        refs.append(weakref.ref(h.service.contestants[f"p{i}"].match))
        h.admin("ww-start")
        c.drop()                                # gone: its queries get the default at once
        h.run([])
    gc.collect()
    kept = [r() for r in refs if r() is not None]
    assert kept == h.service.finished and len(kept) == KEEP_FINISHED
    assert set(h.service.tables) == {t for m in kept for t in m.table_ids}
    assert live(Contestant) == KEEP_FINISHED     # each kept series' player, for ww-view


def test_a_refused_join_opens_no_series():
    h = Harness()
    for i in range(20):
        assert h.join("Bad,name").closed
    assert h.service.matches == {} and h.hall.tables == {}
