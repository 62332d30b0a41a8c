"""Fixtures and hypothesis settings. The helpers the tests import live in support/.

A module says which battle its `db` or `store` holds with a mark, e.g.
`pytestmark = pytest.mark.battle(ROSTER)` or `pytestmark = pytest.mark.example(EXAMPLE)`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from support import pg
from support.cli import morale
from support.examples import example_store

from morale.app.roster import load_roster
from morale.events.locate import open_store
from morale.events.store import EventStore

# The suite reads morale's English: a shell whose locale is Russian (or that sets $MORALE_LANG) would
# otherwise switch every command's words. tests/test_language.py sets the language where it tests it.
os.environ["MORALE_LANG"] = "en"

# HYPOTHESIS_PROFILE=thorough digs deeper before a release; the default keeps `make test` quick.
settings.register_profile("default", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "battle(roster, events=None): `db` holds this roster's battle, made by `morale new` (and "
        "`morale append --file events`)",
    )
    config.addinivalue_line(
        "markers", "example(folder): `store` holds this example battle (a folder of examples/), played"
    )


@pytest.fixture
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A store file for the CLI and server tests. In a module marked `battle(ROSTER)` the roster's
    battle is created in it by `morale new`, and with `events=NDJSON` those events are recorded by
    `morale append --file`; elsewhere the file does not exist yet."""
    path = tmp_path / "battles.db"
    marked = request.node.get_closest_marker("battle")
    if marked is not None:
        (roster,) = marked.args
        assert morale(path, "new", str(roster)).exit_code == 0
        events = marked.kwargs.get("events")
        if events is not None:
            battle = load_roster(roster).battle
            assert morale(path, "append", battle, "--file", str(events)).exit_code == 0
    return path


@pytest.fixture(scope="session")
def pg_server() -> Iterator[pg.Server]:
    """The PostgreSQL server the tests use (see support/pg.py: $MORALE_TEST_PG, 127.0.0.1:5432, or a
    throwaway cluster), with a database of this run's own, dropped at the end."""
    server = pg.server()
    yield server
    server.close()


@pytest.fixture(scope="session")
def pg_database(pg_server: pg.Server) -> str:
    return pg_server.database()


@pytest.fixture
def pg_url(pg_database: str) -> str:
    """The URL of a PostgreSQL store of each test's own: a fresh schema in this run's database."""
    return pg.fresh_schema(pg_database)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's store lives: a SQLite file, then a PostgreSQL schema. Every test of the store
    contract (and every test handed `store`) runs against both."""
    if request.param == "sqlite":
        return str(tmp_path / "log.db")
    return request.getfixturevalue("pg_url")


@pytest.fixture
def store(request: pytest.FixtureRequest, store_location: str) -> Iterator[EventStore]:
    """A store of each test's own, SQLite or PostgreSQL (`store_location`). In a module marked
    `example(FOLDER)` it holds that example battle, written as the CLI writes it; elsewhere it is empty."""
    marked = request.node.get_closest_marker("example")
    if marked is not None:
        (example,) = marked.args
        opened = example_store(store_location, example=example)
    else:
        opened = open_store(store_location)
    yield opened
    opened.close()


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium under Playwright, one per test module (support/browser.py). Not one per
    worker: Playwright's sync API keeps its event loop running, and a later module's asyncio.run()
    then refuses to start."""
    from support.browser import chromium  # only the browser tests need Playwright

    with chromium() as launched:
        yield launched
