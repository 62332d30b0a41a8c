"""Fixtures and hypothesis settings. The helpers the tests import live in support/."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# HYPOTHESIS_PROFILE=thorough digs deeper before a release; the default keeps `make test` quick.
settings.register_profile("default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
