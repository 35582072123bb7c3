"""The test suite's own setup: parallel workers (pytest-xdist) must not share ports, and
property tests stay deterministic in every worker."""
from hypothesis import settings

from tests.wireclient import _ephemeral_start, port_slice


def test_each_xdist_worker_draws_ports_from_its_own_slice_below_the_ephemeral_range():
    for count in (1, 2, 3, 8):
        slices = [port_slice(f"gw{i}", str(count)) for i in range(count)]
        taken = [port for s in slices for port in s]
        assert len(taken) == len(set(taken)), f"{count} workers share ports"
        assert all(len(s) >= 100 for s in slices)
        assert min(taken) >= 1024 and max(taken) < _ephemeral_start()


def test_property_tests_are_derandomized_in_this_worker():
    # conftest.py loads the "ci" profile in every process, xdist workers included
    assert settings.default.derandomize is True
    assert settings.default.database is None
