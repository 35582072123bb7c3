"""Shared pytest configuration."""
import pytest
from hypothesis import HealthCheck, settings
from twisted.logger import globalLogPublisher

# CI machines are small (2 cores); keep property tests deterministic and bounded.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


@pytest.fixture
def logged():
    """Every log event emitted during the test, in order."""
    events: list = []
    globalLogPublisher.addObserver(events.append)
    yield events
    globalLogPublisher.removeObserver(events.append)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def hall_store(request, tmp_path):
    """A fresh database of each store kind in turn (tests/hallstores.py)."""
    from tests.hallstores import HallStore
    db = HallStore(request.param, tmp_path)
    yield db
    db.close_all()
