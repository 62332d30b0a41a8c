"""Corrections over HTTP: the referee previews a strike and strikes an event with what stood on it;
a player undoes their own last entry and nothing else. Each refusal is a 4xx and writes nothing."""

from __future__ import annotations

import pytest
from litestar.testing import TestClient
from support.served import BATTLE, bearer, creation_body

from morale.app.http.server import Settings, create_app


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "served.db", Settings())) as opened:
        yield opened


def seq_of(client, token: str) -> int:
    return client.get(f"/battles/{BATTLE}/board", headers=bearer(token)).json()["seq"]


def post(client, token: str, path: str, body: dict):
    return client.post(
        f"/battles/{BATTLE}/{path}", json={"expected_seq": seq_of(client, token), **body}, headers=bearer(token)
    )


@pytest.fixture
def fell_back(client) -> dict:
    """Imperium's player enters Kraak's casualties (15); the referee ends the phase (16); the player
    types the failed Morale roll (17)."""
    tokens = client.post("/battles", json=creation_body()).json()["tokens"]
    referee, imperium = tokens["referee"], tokens["players"]["imperium"]
    for _ in range(5):
        assert post(client, referee, "next-phase", {}).status_code == 201
    casualties = {"type": "casualties_suffered", "unit": "kraak", "count": 3}
    assert post(client, imperium, "events", {"events": [casualties]}).status_code == 201
    assert post(client, referee, "next-phase", {}).status_code == 201
    roll = {"type": "dice_rolled", "unit": "kraak", "test": "morale", "dice": [5, 6]}
    assert post(client, imperium, "events", {"events": [roll]}).status_code == 201
    assert seq_of(client, referee) == 17
    return tokens


def kraak(client, token: str) -> dict:
    board = client.get(f"/battles/{BATTLE}/board", headers=bearer(token)).json()
    return next(u for u in board["units"] if u["unit"] == "kraak")


def test_the_referee_previews_a_strike_then_strikes_it_with_its_followers(client, fell_back):
    referee = fell_back["referee"]
    preview = client.get(f"/battles/{BATTLE}/strike/15", headers=bearer(referee))
    assert preview.status_code == 200, preview.text
    body = preview.json()
    assert body["expected_seq"] == 17
    assert [(s["seq"], s["type"]) for s in body["strikes"]] == [(15, "casualties_suffered"), (17, "dice_rolled")]
    assert body["strikes"][0]["said"] == "Sergeant Kraak's Guardsmen loses 3 models (7 left)"
    assert body["strikes"][0]["author"]["side"] == "imperium"
    struck = client.post(
        f"/battles/{BATTLE}/strike/15",
        json={"reason": "the shots were at the boyz", "expected_seq": body["expected_seq"]},
        headers=bearer(referee),
    )
    assert struck.status_code == 201, struck.text
    assert [(item["seq"], item["event"]["seq"]) for item in struck.json()] == [(18, 17), (19, 15)]
    assert kraak(client, referee)["state"] == "steady" and kraak(client, referee)["models"] == 10


def test_a_strike_previewed_at_an_older_log_is_refused_with_409(client, fell_back):
    referee = fell_back["referee"]
    stale = client.post(
        f"/battles/{BATTLE}/strike/15", json={"reason": "x", "expected_seq": 16}, headers=bearer(referee)
    )
    assert stale.status_code == 409
    assert seq_of(client, referee) == 17


@pytest.mark.parametrize(("seq", "status", "named"), [(1, 422, "seq"), (40, 422, "seq")])
def test_a_strike_the_referee_refuses_is_a_problem_naming_the_field(client, fell_back, seq, status, named):
    refused = client.get(f"/battles/{BATTLE}/strike/{seq}", headers=bearer(fell_back["referee"]))
    assert refused.status_code == status and refused.json()["field"] == named


def test_a_player_undoes_their_own_last_entry(client, fell_back):
    imperium = fell_back["players"]["imperium"]
    preview = client.get(f"/battles/{BATTLE}/undo", headers=bearer(imperium))
    assert preview.status_code == 200, preview.text
    assert [s["seq"] for s in preview.json()["strikes"]] == [17]
    undone = post(client, imperium, "undo", {"reason": "mistyped the dice"})
    assert undone.status_code == 201, undone.text
    assert [item["event"] for item in undone.json()] == [
        {"type": "event_retracted", "seq": 17, "reason": "mistyped the dice"}
    ]
    again = client.get(f"/battles/{BATTLE}/undo", headers=bearer(imperium)).json()
    assert [s["seq"] for s in again["strikes"]] == [15]  # the referee's phase end in between is not theirs


def test_a_player_may_not_strike_what_another_entered(client, fell_back):
    imperium = fell_back["players"]["imperium"]
    refused = post(client, imperium, "strike/16", {"reason": "not mine"})
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        "seq: a player strikes only entries made with their own token, and event 16 was not: the referee strikes it"
    )
    assert seq_of(client, imperium) == 17


def test_a_player_with_nothing_of_theirs_standing_has_nothing_to_undo(client, fell_back):
    orks = fell_back["players"]["orks"]
    refused = post(client, orks, "undo", {"reason": "oops"})
    assert refused.status_code == 422
    assert refused.json()["field"] == "seq"
    assert "you have entered nothing in this battle that still stands to undo" in refused.json()["detail"]
    assert seq_of(client, orks) == 17


def test_a_spectator_strikes_nothing(client, fell_back):
    spectator = fell_back["spectator"]
    refused = post(client, spectator, "undo", {"reason": "oops"})
    assert refused.status_code == 403
    assert seq_of(client, spectator) == 17


def test_a_players_undo_that_would_strike_anothers_entry_is_refused(client, fell_back):
    """The referee types a roll that stood on the player's casualties: undoing those would strike it."""
    referee, imperium = fell_back["referee"], fell_back["players"]["imperium"]
    assert post(client, imperium, "undo", {"reason": "mistyped"}).status_code == 201  # their roll, 17
    roll = {"type": "dice_rolled", "unit": "kraak", "test": "morale", "dice": [5, 6]}
    assert post(client, referee, "events", {"events": [roll]}).status_code == 201  # 19, on their casualties
    refused = post(client, imperium, "undo", {"reason": "wrong unit"})
    assert refused.status_code == 403
    assert "event 19 was not: the referee strikes it" in refused.json()["detail"]
    assert seq_of(client, imperium) == 19
