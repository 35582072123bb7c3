"""The hall's garbage collector settings (gamehall.tap.settle_collector)."""
import gc
import sys

from gamehall.tap import settle_collector


def test_full_collections_are_rare_while_objects_keep_reaching_the_old_generation():
    """Objects that outlive the young generations (a table's snapshot until its next update)
    must not start a full collection every few gen1 collections: each one walks everything
    the hall tracks with the reactor stopped."""
    thresholds, switch = gc.get_threshold(), sys.getswitchinterval()
    enabled = gc.isenabled()
    gc.enable()
    try:
        settle_collector()
        stats = gc.get_stats()
        gen1, full = stats[1]["collections"], stats[2]["collections"]
        kept = [[i] for i in range(300_000)]          # all survive: about 40 gen1 collections
        stats = gc.get_stats()
        assert stats[1]["collections"] - gen1 >= 30
        assert stats[2]["collections"] == full
        del kept
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        sys.setswitchinterval(switch)
        if not enabled:
            gc.disable()


def test_the_hall_runs_a_full_collection_itself_every_full_collection_seconds_of_its_clock():
    """Cyclic garbage piles up by time, whatever the allocations: a full collection comes
    from the hall's clock every FULL_COLLECTION_SECONDS, none before."""
    from twisted.internet.task import Clock

    from gamehall.tap import FULL_COLLECTION_SECONDS, collect_regularly
    clock = Clock()
    collector = collect_regularly(clock)
    try:
        full = gc.get_stats()[2]["collections"]
        clock.advance(FULL_COLLECTION_SECONDS - 1)
        assert gc.get_stats()[2]["collections"] == full
        clock.advance(1)
        assert gc.get_stats()[2]["collections"] == full + 1
        clock.advance(FULL_COLLECTION_SECONDS)
        assert gc.get_stats()[2]["collections"] == full + 2
    finally:
        collector.stop()


def test_young_collections_are_small_and_the_store_thread_gets_the_gil_soon():
    """A young collection walks what was made since the last one, which frees of older
    objects let grow far past its threshold: the hall collects it more often, so each
    pause is short; and the store thread, which takes the GIL back after every statement,
    waits at most GIL_SWITCH_SECONDS for it (settle_collector says why)."""
    from gamehall.tap import GIL_SWITCH_SECONDS, YOUNG_COLLECTION_EVERY
    thresholds, switch = gc.get_threshold(), sys.getswitchinterval()
    try:
        settle_collector()
        assert gc.get_threshold()[0] == YOUNG_COLLECTION_EVERY < 700
        assert sys.getswitchinterval() == GIL_SWITCH_SECONDS < 0.005
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        sys.setswitchinterval(switch)
