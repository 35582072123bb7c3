"""Shared pytest configuration."""
from hypothesis import HealthCheck, settings

# CI machines are small (2 cores); keep property tests deterministic and bounded.
settings.register_profile(
    "ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")
