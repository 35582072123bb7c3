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
