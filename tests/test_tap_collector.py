"""The hall's garbage collector settings (gamehall.tap.settle_collector)."""
import gc

from gamehall.tap import settle_collector


def test_full_collections_are_rare_while_objects_keep_reaching_the_old_generation():
    """Objects that outlive the young generations (a table's snapshot until its next update)
    must not start a full collection every few gen1 collections: each one walks everything
    the hall tracks with the reactor stopped."""
    thresholds = gc.get_threshold()
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
