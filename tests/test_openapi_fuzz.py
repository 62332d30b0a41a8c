"""Schemathesis drives every operation of `morale serve` from its own OpenAPI document
(`/schema/openapi.json`): no request it makes is a 500, and every answer is one the document
declares, in the media type and shape it declares (a refusal: a problem of `Problem`'s shape).

The server holds the example battle; each case asks about that battle with the referee's token (so
what is fuzzed gets past the guard), except the cases that check the guard itself. Following a feed
never ends, so the live SSE feed is left out and the NDJSON one is asked with `follow=false`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from support.cli import morale
from support.served import BATTLE, EXAMPLE_EVENTS, ROSTER

from morale.app.access import issue_tokens
from morale.app.http.server import create_app
from morale.events.store import SqliteEventStore

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


# The schema is read when the module is collected (schemathesis parametrizes a test by operation);
# the lazy way, from a fixture, relies on a pytest internal that pytest 9 removed. The battle is
# written into the store by a fixture, when the tests run.
FOLDER = tempfile.TemporaryDirectory(prefix="morale-openapi-")
DB = Path(FOLDER.name) / "battles.db"
APP = create_app(DB)


def served_schema(*, coverage: bool) -> schemathesis.BaseSchema:
    loaded = schemathesis.openapi.from_asgi("/schema/openapi.json", APP)
    # The coverage phase sends each parameter's edge cases and invalid values (most of this module's
    # time); without a token they all meet the guard first, so there it is left out.
    loaded.config.phases.coverage.enabled = coverage
    return loaded.exclude(path="/battles/{battle}/feed")  # follows the battle for ever: no answer ends


schema = served_schema(coverage=True)
tokenless = served_schema(coverage=False)


@pytest.fixture(scope="module")
def referee() -> str:
    """The example battle, in the served store; the referee's token."""
    assert morale(DB, "new", str(ROSTER)).exit_code == 0
    assert morale(DB, "append", BATTLE, "--file", str(EXAMPLE_EVENTS)).exit_code == 0
    store = SqliteEventStore(DB)
    try:
        return issue_tokens(store, BATTLE, ("imperium", "orks")).referee
    finally:
        store.close()


@schema.parametrize()
@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_no_operation_answers_500_or_outside_its_openapi(case: schemathesis.Case, referee: str):
    if "battle" in (case.path_parameters or {}):
        case.path_parameters["battle"] = BATTLE
    if case.path.endswith("feed.ndjson"):
        case.query = {**(case.query or {}), "follow": "false"}
    case.call_and_validate(headers={"Authorization": f"Bearer {referee}"}, checks=CHECKS)


@tokenless.parametrize()
@settings(max_examples=5, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_without_a_token_no_operation_answers_500_or_outside_its_openapi(case: schemathesis.Case, referee: str):
    if case.path.endswith("feed.ndjson"):
        case.query = {**(case.query or {}), "follow": "false"}
    case.call_and_validate(checks=CHECKS)
