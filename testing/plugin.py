"""morale's pytest plugin, loaded by pytest in any environment where morale is installed (entry point
group `pytest11`): it registers the conformance kit's marker and names the games installed in the
header of the run, so a ruleset package's tests show at once whether its entry point is found.

It imports no game (the entry points are read from the installed metadata), so it costs a test run
nothing; the kit itself is `morale.testing.kit`.
"""

from __future__ import annotations

import pytest

from morale.core import installed


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "morale_conformance: a check of morale's conformance kit (morale.testing)")


def pytest_report_header(config: pytest.Config) -> str:
    names = ", ".join(point.name for point in installed.games()) or "none"
    return f"morale games installed ({installed.GROUP}): {names}"
