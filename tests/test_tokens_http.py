"""The referee's tokens over HTTP: listed without their secrets, one more issued with a join link
and its QR code while every other token keeps working, one revoked by its id; the referee's token
alone, and never the very token the request is made with."""

from __future__ import annotations

import pytest
from litestar.testing import TestClient
from support.served import BATTLE, bearer, creation_body

from morale.app.http.server import Settings, create_app

TOKENS = f"/battles/{BATTLE}/tokens"


@pytest.fixture
def served(tmp_path):
    with TestClient(create_app(tmp_path / "served.db")) as client:
        created = client.post("/battles", json=creation_body())
        assert created.status_code == 201, created.text
        yield client, created.json()["tokens"]


def opens(client, token: str) -> int:
    return client.get(f"/battles/{BATTLE}/board", headers=bearer(token)).status_code


def every_token(tokens: dict) -> dict[str, str]:
    return {"referee": tokens["referee"], "spectator": tokens["spectator"], **tokens["players"]}


def test_the_referee_lists_the_tokens_by_role_and_label_and_never_a_secret(served):
    client, tokens = served
    listed = client.get(TOKENS, headers=bearer(tokens["referee"]))
    assert listed.status_code == 200
    rows = listed.json()
    assert sorted((row["role"], row["side"]) for row in rows) == [
        ("player", "imperium"),
        ("player", "orks"),
        ("referee", ""),
        ("spectator", ""),
    ]
    assert set(rows[0]) == {"id", "role", "side", "label", "created", "last_used"}
    assert not any(secret in listed.text for secret in every_token(tokens).values())
    assert all(row["last_used"] == "" for row in rows)  # none used before this request
    again = client.get(TOKENS, headers=bearer(tokens["referee"])).json()
    used = {row["role"]: row["last_used"] for row in again}
    assert used["referee"].startswith("20") and used["spectator"] == ""  # the first request noted its use


def test_a_refused_request_notes_no_use(served):
    client, tokens = served
    bad = client.get(f"/battles/{BATTLE}/board?at=nowhere", headers=bearer(tokens["spectator"]))
    assert bad.status_code == 422
    rows = client.get(TOKENS, headers=bearer(tokens["referee"])).json()
    assert next(row for row in rows if row["role"] == "spectator")["last_used"] == ""


def test_a_spectator_token_issued_mid_game_logs_nobody_out(served):
    client, tokens = served
    made = client.post(
        TOKENS, json={"role": "spectator", "label": "the stream overlay"}, headers=bearer(tokens["referee"])
    )
    assert made.status_code == 201, made.text
    link = made.json()
    assert (link["role"], link["label"]) == ("spectator", "the stream overlay")
    assert link["join_url"] == f"http://testserver.local/view#battle={BATTLE}&token={link['token']}"
    assert link["qr_svg"].startswith("<svg")
    everyone = {**every_token(tokens), "overlay": link["token"]}
    assert {role: opens(client, token) for role, token in everyone.items()} == dict.fromkeys(everyone, 200)
    assert link["id"] in {row["id"] for row in client.get(TOKENS, headers=bearer(tokens["referee"])).json()}


def test_a_players_token_needs_one_of_the_battles_sides_and_a_label(served):
    client, tokens = served
    referee = bearer(tokens["referee"])
    no_side = client.post(TOKENS, json={"role": "player", "label": "Anna"}, headers=referee)
    assert no_side.status_code == 422 and no_side.json()["field"] == "side"
    assert "imperium, orks" in no_side.json()["detail"]
    side_for_spectator = client.post(TOKENS, json={"role": "spectator", "side": "orks", "label": "x"}, headers=referee)
    assert side_for_spectator.status_code == 422 and side_for_spectator.json()["field"] == "side"
    blank = client.post(TOKENS, json={"role": "player", "side": "orks", "label": " "}, headers=referee)
    assert blank.status_code == 422 and blank.json()["field"] == "label"
    escape = client.post(TOKENS, json={"role": "player", "side": "orks", "label": "a\x1b[31mred"}, headers=referee)
    assert escape.status_code == 422 and escape.json()["field"] == "label"
    unknown_role = client.post(TOKENS, json={"role": "judge", "label": "x"}, headers=referee)
    assert unknown_role.status_code == 400 and unknown_role.headers["content-type"] == "application/problem+json"
    assert len(client.get(TOKENS, headers=referee).json()) == 4  # nothing was issued
    made = client.post(TOKENS, json={"role": "player", "side": "orks", "label": "Anna's phone"}, headers=referee)
    assert made.status_code == 201 and opens(client, made.json()["token"]) == 200


def test_revoking_one_token_by_its_id_leaves_the_others_working(served):
    client, tokens = served
    referee = bearer(tokens["referee"])
    orks = next(row["id"] for row in client.get(TOKENS, headers=referee).json() if row["side"] == "orks")
    gone = client.delete(f"{TOKENS}/{orks}", headers=referee)
    assert gone.status_code == 204
    assert opens(client, tokens["players"]["orks"]) == 401
    others = {k: v for k, v in every_token(tokens).items() if k != "orks"}
    assert {role: opens(client, token) for role, token in others.items()} == dict.fromkeys(others, 200)
    again = client.delete(f"{TOKENS}/{orks}", headers=referee)
    assert again.status_code == 404 and again.json()["field"] == "token_id"


def test_the_referee_cannot_revoke_the_token_the_request_is_made_with(served):
    client, tokens = served
    referee = bearer(tokens["referee"])
    own = next(row["id"] for row in client.get(TOKENS, headers=referee).json() if row["role"] == "referee")
    refused = client.delete(f"{TOKENS}/{own}", headers=referee)
    assert refused.status_code == 422 and refused.json()["field"] == "token_id"
    assert "lock you out" in refused.json()["detail"]
    assert opens(client, tokens["referee"]) == 200
    # From a second referee token, the first may go.
    second = client.post(TOKENS, json={"role": "referee", "label": "the laptop"}, headers=referee).json()
    assert client.delete(f"{TOKENS}/{own}", headers=bearer(second["token"])).status_code == 204
    assert opens(client, tokens["referee"]) == 401


def test_only_the_referees_token_sees_or_changes_the_tokens(served):
    client, tokens = served
    for token in (tokens["spectator"], tokens["players"]["orks"]):
        assert client.get(TOKENS, headers=bearer(token)).status_code == 403
        made = client.post(TOKENS, json={"role": "referee", "label": "mine now"}, headers=bearer(token))
        assert made.status_code == 403 and made.json()["type"] == "urn:morale:problem:forbidden"
        assert client.delete(f"{TOKENS}/00000000", headers=bearer(token)).status_code == 403
    assert client.get(TOKENS).status_code == 401
    assert len(client.get(TOKENS, headers=bearer(tokens["referee"])).json()) == 4


def test_join_links_point_at_the_public_url_when_the_server_has_one(tmp_path):
    settings = Settings(public_url="https://club.example/morale")
    with TestClient(create_app(tmp_path / "served.db", settings)) as client:
        referee = client.post("/battles", json=creation_body()).json()["tokens"]["referee"]
        link = client.post(TOKENS, json={"role": "spectator", "label": "x"}, headers=bearer(referee)).json()
    assert link["join_url"].startswith(f"https://club.example/morale/view#battle={BATTLE}&token=")


def test_the_openapi_document_declares_each_problem_the_token_routes_answer_with(served):
    client, _ = served
    paths = client.get("/schema/openapi.json").json()["paths"]
    documented = "/battles/{battle}/tokens"  # the path as the document names it
    assert {"401", "403", "422"} <= set(paths[documented]["post"]["responses"])
    assert {"401", "403", "404", "422"} <= set(paths[documented + "/{token_id}"]["delete"]["responses"])
    assert {"401", "403"} <= set(paths[documented]["get"]["responses"])


def test_the_referee_issues_an_overlay_token_that_reads_and_records_nothing(served):
    client, tokens = served
    issued = client.post(TOKENS, json={"role": "overlay", "label": "OBS"}, headers=bearer(tokens["referee"]))
    assert issued.status_code == 201, issued.text
    assert (issued.json()["role"], issued.json()["label"]) == ("overlay", "OBS")
    overlay = issued.json()["token"]
    assert opens(client, overlay) == 200
    started = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}
    body = {"expected_seq": 1, "events": [started]}
    assert client.post(f"/battles/{BATTLE}/events", json=body, headers=bearer(overlay)).status_code == 403
    sided = client.post(
        TOKENS, json={"role": "overlay", "side": "orks", "label": "x"}, headers=bearer(tokens["referee"])
    )
    assert sided.status_code == 422 and sided.json()["field"] == "side"
