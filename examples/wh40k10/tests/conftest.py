"""The game's tests, run by `make test` in the suite's own session (testpaths, after `tests`).

Until entry points land, the engine neither registers this ruleset nor reads its catalogue, and the
suite's own tests walk every registered ruleset and every catalogued clause against the built-in
four. So the game is put into the engine only while its own test modules run: the package's import
(when pytest collects these modules) adds its clauses to the catalogue; once collection is done they
are taken out again, and each test module here puts them back and registers the ruleset for itself.
Once the engine registers the game itself, all of this stands aside.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources

import pytest

from morale.core import catalogue
from morale.core.rulesets import base

KEY = ("wh40k10", "1")
FILE = "wh40k10_clauses.toml"


def _our_clauses() -> list[catalogue.Clause]:
    return catalogue._parse(FILE, (resources.files("morale_wh40k10") / FILE).read_bytes())


def _engine_knows_the_game() -> bool:
    return KEY in base.rulesets()


def pytest_collection_finish(session: pytest.Session) -> None:
    # until entry points land: the catalogue as the rest of the suite expects it, the built-in four's.
    if not _engine_knows_the_game():
        held = catalogue.catalogue()
        for entry in _our_clauses():
            held.pop(entry.id, None)


@pytest.fixture(autouse=True, scope="module")
def wh40k10_in_the_engine() -> Iterator[None]:
    """The game's clauses in the catalogue and its ruleset in the registry, for one module's tests."""
    if _engine_knows_the_game():
        yield
        return
    # until entry points land
    from morale_wh40k10 import WH40K10

    held = catalogue.catalogue()
    ours = _our_clauses()
    for entry in ours:
        held[entry.id] = entry
    base.register(WH40K10)
    try:
        yield
    finally:
        del base._REGISTERED[KEY]
        for entry in ours:
            held.pop(entry.id, None)
