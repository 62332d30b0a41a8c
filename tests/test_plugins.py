"""`make test` loads the pytest plugins it uses by name, with entry-point autoloading off (the
Makefile's PYTEST_PLUGINS says why): a plugin installed later must be named there or below, or the
suite would run without it and say nothing."""

from __future__ import annotations

import re
from importlib.metadata import entry_points
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Installed as other packages' dependencies, their plugins never asked for by a test.
UNUSED = {
    "faker.contrib.pytest.plugin": "schemathesis's Faker: no test asks for its `faker` fixture",
    "anyio.pytest_plugin": "httpx's AnyIO: no test is marked anyio; the async tests run their own loop",
    "platformdirs.pytest_plugin": "a dependency's: no test asks for its fixtures",
    "xdist.looponfail": "pytest-xdist's --looponfail, which neither make test nor make check runs",
}


def installed() -> set[str]:
    return {plugin.value for plugin in entry_points(group="pytest11")}


def loaded_by_name() -> list[str]:
    (line,) = re.findall(r"^PYTEST_PLUGINS = (.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    return line.split()


def test_every_installed_pytest_plugin_is_loaded_by_name_or_named_unused():
    assert installed() - set(loaded_by_name()) - set(UNUSED) == set()


def test_every_plugin_loaded_by_name_is_installed_and_none_is_also_called_unused():
    assert set(loaded_by_name()) <= installed()
    assert set(loaded_by_name()).isdisjoint(UNUSED)


def test_this_run_has_every_plugin_it_loads_by_name(pytestconfig):
    modules = {getattr(plugin, "__name__", None) for plugin in pytestconfig.pluginmanager.get_plugins()}
    assert set(loaded_by_name()) <= modules
