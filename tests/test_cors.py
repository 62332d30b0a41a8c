"""CORS without a restart: the origins a battle's referee allows (`morale cors`, `POST .../origins`)
are answered at once by a server already running, on SQLite and on every PostgreSQL node; an origin
not allowed gets no allow header, and its preflight a 403 problem naming it. The server's own
`--allow-origin` keeps working for every battle."""

from __future__ import annotations

import json

import pytest
from litestar.testing import TestClient
from support.cli import morale
from support.served import BATTLE, ROSTER, bearer

from morale.app.http.server import Settings, create_app

OVERLAY = "http://127.0.0.1:9000"
ORIGINS = f"/battles/{BATTLE}/origins"
EVENTS = f"/battles/{BATTLE}/events"
BOARD = f"/battles/{BATTLE}/board"


def preflight(method: str = "POST", headers: str = "authorization, content-type", origin: str = OVERLAY) -> dict:
    return {"Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers}


@pytest.fixture
def served(tmp_path):
    """A running server on a store holding the example battle, its tokens by role, and the store's path."""
    db = tmp_path / "cors.db"
    created = json.loads(morale(db, "new", str(ROSTER), "--tokens", "--json").stdout)["tokens"]
    tokens = {"referee": created["referee"], "spectator": created["spectator"], **created["players"]}
    with TestClient(create_app(db)) as client:
        yield client, tokens, db


def test_a_preflight_from_an_origin_not_allowed_is_a_403_naming_it_and_how_to_allow_it(served):
    client, _, _ = served
    refused = client.options(EVENTS, headers=preflight())
    assert refused.status_code == 403 and "access-control-allow-origin" not in refused.headers
    problem = refused.json()
    assert refused.headers["content-type"] == "application/problem+json"
    assert problem["field"] == "Origin" and problem["type"] == "urn:morale:problem:origin"
    assert problem["detail"] == (
        f"Origin: {OVERLAY} is not allowed to call this server about battle 'hive-tarsis'; its referee allows"
        f" it with `morale cors hive-tarsis --allow {OVERLAY}`"
    )


def test_a_request_from_an_origin_not_allowed_is_answered_without_an_allow_header(served):
    client, tokens, _ = served
    answer = client.get(BOARD, headers=bearer(tokens["spectator"]) | {"Origin": OVERLAY})
    assert answer.status_code == 200 and "access-control-allow-origin" not in answer.headers


def test_an_origin_the_referee_allows_from_the_cli_is_answered_by_the_running_server_at_once(served):
    client, tokens, db = served
    assert client.options(EVENTS, headers=preflight()).status_code == 403
    allowed = morale(db, "cors", BATTLE, "--allow", OVERLAY)
    assert allowed.exit_code == 0 and f"may call the server about {BATTLE}:\n  {OVERLAY}" in allowed.stdout
    answer = client.options(EVENTS, headers=preflight())
    assert answer.status_code == 204
    assert answer.headers["access-control-allow-origin"] == OVERLAY and answer.headers["vary"] == "Origin"
    assert {m.strip() for m in answer.headers["access-control-allow-methods"].split(",")} >= {"GET", "POST"}
    assert {h.strip() for h in answer.headers["access-control-allow-headers"].split(",")} >= {
        "authorization",
        "content-type",
        "last-event-id",
    }
    board = client.get(BOARD, headers=bearer(tokens["spectator"]) | {"Origin": OVERLAY})
    assert board.headers["access-control-allow-origin"] == OVERLAY


def test_a_refusal_to_an_allowed_origin_names_it_too_so_the_page_can_read_the_problem(served):
    client, tokens, db = served
    morale(db, "cors", BATTLE, "--allow", OVERLAY)
    body = {
        "expected_seq": 0,
        "events": [{"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}],
    }
    stale = client.post(EVENTS, json=body, headers=bearer(tokens["referee"]) | {"Origin": OVERLAY})
    assert stale.status_code == 409 and stale.headers["access-control-allow-origin"] == OVERLAY
    assert stale.json()["actual_seq"] == 9
    unknown = client.get(BOARD, headers={"Origin": OVERLAY})
    assert unknown.status_code == 401 and unknown.headers["access-control-allow-origin"] == OVERLAY


def test_the_feed_names_an_allowed_origin(served):
    client, tokens, db = served
    morale(db, "cors", BATTLE, "--allow", OVERLAY)
    with client.stream(
        "GET", f"/battles/{BATTLE}/feed.ndjson?follow=false", headers=bearer(tokens["spectator"]) | {"Origin": OVERLAY}
    ) as feed:
        assert feed.status_code == 200 and feed.headers["access-control-allow-origin"] == OVERLAY
        assert json.loads(next(feed.iter_lines()))["seq"] == 1


def test_an_origin_removed_is_refused_at_once(served):
    client, tokens, db = served
    morale(db, "cors", BATTLE, "--allow", OVERLAY, "--allow", "https://scores.example")
    removed = morale(db, "cors", BATTLE, "--remove", OVERLAY, "--json")
    assert json.loads(removed.stdout) == {"battle": BATTLE, "origins": ["https://scores.example"]}
    assert client.options(EVENTS, headers=preflight()).status_code == 403
    board = client.get(BOARD, headers=bearer(tokens["spectator"]) | {"Origin": OVERLAY})
    assert "access-control-allow-origin" not in board.headers
    none = morale(db, "cors", BATTLE, "--remove", "https://scores.example")
    assert none.exit_code == 0 and f"No origin is allowed to call the server about {BATTLE}" in none.stdout


def test_an_origin_is_allowed_for_its_own_battle_only(served):
    client, _, db = served
    assert morale(db, "new", str(ROSTER), "--battle", "other").exit_code == 0
    morale(db, "cors", "other", "--allow", OVERLAY)
    assert client.options(EVENTS, headers=preflight()).status_code == 403
    assert client.options("/battles/other/events", headers=preflight()).status_code == 204


def test_the_referee_allows_and_removes_origins_over_http(served):
    client, tokens, _ = served
    referee = bearer(tokens["referee"])
    assert client.get(ORIGINS, headers=referee).json() == {"battle": BATTLE, "origins": []}
    changed = client.post(ORIGINS, json={"allow": ["HTTPS://Scores.Example:443", OVERLAY]}, headers=referee)
    assert changed.status_code == 200
    assert changed.json()["origins"] == [OVERLAY, "https://scores.example"]  # as a browser sends it
    assert client.options(EVENTS, headers=preflight()).status_code == 204
    assert client.post(ORIGINS, json={"remove": [OVERLAY]}, headers=referee).json()["origins"] == [
        "https://scores.example"
    ]
    assert client.options(EVENTS, headers=preflight()).status_code == 403
    for role in ("spectator", "orks"):
        refused = client.post(ORIGINS, json={"allow": [OVERLAY]}, headers=bearer(tokens[role]))
        assert refused.status_code == 403, role
    assert client.get(ORIGINS, headers=referee).json()["origins"] == ["https://scores.example"]


def test_a_preflight_asking_for_a_header_or_method_the_api_does_not_take_is_refused_by_name(served):
    client, _, db = served
    morale(db, "cors", BATTLE, "--allow", OVERLAY)
    header = client.options(EVENTS, headers=preflight(headers="authorization, x-morale-via"))
    assert header.status_code == 403 and header.json()["field"] == "Access-Control-Request-Headers"
    assert "x-morale-via is not a header this API takes" in header.json()["detail"]
    method = client.options(EVENTS, headers=preflight(method="PUT"))
    assert method.status_code == 403 and method.json()["field"] == "Access-Control-Request-Method"


def test_the_client_library_and_the_feed_schema_are_for_any_page(served):
    client, _, _ = served
    for path in ("/static/morale-client.js", "/feed.schema.json"):
        answer = client.get(path, headers={"Origin": "https://anyone.example"})
        assert answer.status_code == 200 and answer.headers["access-control-allow-origin"] == "*", path
    # The rest of what a server holds is not: a battle's board, the token's battles, creating one.
    assert "access-control-allow-origin" not in client.get("/battles", headers={"Origin": OVERLAY}).headers


def test_the_servers_own_allowed_origins_call_about_every_battle_without_morale_cors(tmp_path):
    db = tmp_path / "wide.db"
    morale(db, "new", str(ROSTER))
    with TestClient(create_app(db, Settings(allow_origins=(OVERLAY,)))) as client:
        assert client.options(EVENTS, headers=preflight()).status_code == 204
        assert client.options("/battles", headers=preflight()).status_code == 204  # creating one, too
        assert client.get("/health", headers={"Origin": OVERLAY}).headers["access-control-allow-origin"] == OVERLAY
        refused = client.options("/battles", headers=preflight(origin="https://elsewhere.example"))
        assert refused.status_code == 403
        assert "`morale serve --allow-origin https://elsewhere.example`" in refused.json()["detail"]


def test_serve_refuses_an_allow_origin_that_is_no_origin(tmp_path):
    refused = morale(tmp_path / "x.db", "serve", "--allow-origin", "overlay.example")
    assert refused.exit_code == 2 and "--allow-origin: 'overlay.example' is not a web origin" in refused.stderr


def test_every_node_of_a_postgresql_store_answers_an_origin_allowed_on_another(pg_url):
    assert morale(pg_url, "new", str(ROSTER)).exit_code == 0  # type: ignore[arg-type]
    with TestClient(create_app(pg_url)) as one, TestClient(create_app(pg_url)) as two:
        assert two.options(EVENTS, headers=preflight()).status_code == 403
        assert morale(pg_url, "cors", BATTLE, "--allow", OVERLAY).exit_code == 0  # type: ignore[arg-type]
        assert one.options(EVENTS, headers=preflight()).status_code == 204
        assert two.options(EVENTS, headers=preflight()).status_code == 204
