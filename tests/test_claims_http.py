"""Confirm and dispute over HTTP, as two phones play without a referee: each player runs their own
side's clock and enters their own side's losses, rolls and combats; the other side confirms,
disputes, withdraws, and a claimant strikes a disputed entry with what followed, the disputer's
roll included. Every refusal is a 4xx naming the rule or field, and writes nothing."""

from __future__ import annotations

import pytest
from litestar.testing import TestClient
from support.served import BATTLE, ROSTER, bearer, creation_body, example_events

from morale.app.http.server import Settings, create_app
from morale.app.roster import load_roster
from morale.core import rules

SIDE_OF = {unit.unit: unit.side for unit in load_roster(ROSTER).units}


def entered_by(event: dict) -> str:
    """Whose phone enters an event at a table without a referee: the clock is the side's whose phase
    it is, a combat the side that fought it first, a loss or a roll the side whose unit it is."""
    if "side" in event:
        return event["side"]
    if event["type"] == "combat_resolved":
        return event["sides"][0]["side"]
    return SIDE_OF[event.get("unit") or event["charger"]]


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "served.db", Settings())) as opened:
        yield opened


@pytest.fixture
def tokens(client) -> dict:
    body = creation_body()
    body["started"]["confirmation"] = True
    created = client.post("/battles", json=body)
    assert created.status_code == 201, created.text
    return created.json()["tokens"]


def seq_of(client, token: str) -> int:
    return client.get(f"/battles/{BATTLE}/board", headers=bearer(token)).json()["seq"]


def post(client, token: str, *events: dict):
    body = {"events": list(events), "expected_seq": seq_of(client, token)}
    return client.post(f"/battles/{BATTLE}/events", json=body, headers=bearer(token))


def claims(client, token: str) -> dict:
    answer = client.get(f"/battles/{BATTLE}/claims", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    return answer.json()


def play(client, tokens: dict, events: list[dict]) -> None:
    for event in events:
        written = post(client, tokens["players"][entered_by(event)], event)
        assert written.status_code == 201, (event, written.text)


def test_players_run_their_own_sides_clock_and_never_the_others(client, tokens):
    imperium, orks = tokens["players"]["imperium"], tokens["players"]["orks"]
    start = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}
    refused = post(client, orks, start)
    assert refused.status_code == 403 and refused.json()["field"] == "type"
    assert seq_of(client, orks) == 9
    assert post(client, imperium, start).status_code == 201


def test_a_claim_is_confirmed_by_the_other_phone_and_then_the_phase_ends(client, tokens):
    imperium, orks = tokens["players"]["imperium"], tokens["players"]["orks"]
    play(client, tokens, example_events(5))  # to the imperium's shooting
    assert post(client, orks, {"type": "casualties_suffered", "unit": "nobz", "count": 2}).status_code == 201
    waiting = claims(client, imperium)
    assert [(row["seq"], row["side"], row["awaits"]) for row in waiting["awaiting"]] == [(15, "orks", "imperium")]
    own = post(client, orks, {"type": "entry_confirmed", "seqs": [15]})
    assert own.status_code == 422 and own.json()["rule"] == rules.CLAIM_CONFIRM
    assert post(client, imperium, {"type": "entry_confirmed", "seqs": [15]}).status_code == 201
    assert claims(client, orks)["awaiting"] == []


def test_a_disputed_combat_is_struck_by_its_claimant_with_the_disputers_roll_that_stood_on_it(client, tokens):
    imperium, orks = tokens["players"]["imperium"], tokens["players"]["orks"]
    play(client, tokens, example_events(19))  # to the combat the imperium wins (seq 28)
    combat = seq_of(client, imperium)
    assert client.get(f"/battles/{BATTLE}/log", headers=bearer(orks)).json()[-1]["type"] == "combat_resolved"
    dispute = {"type": "entry_disputed", "seq": combat, "reason": "the nobz had a banner"}
    assert post(client, orks, dispute).status_code == 201
    play(client, tokens, example_events(20)[19:])  # play goes on: the nobz roll their Morale test
    end = {"type": "phase_ended", "turn": 1, "side": "imperium", "phase": "assault"}
    held = post(client, imperium, end)
    assert held.status_code == 422 and held.json()["rule"] == rules.DISPUTE_MEANWHILE
    preview = client.get(f"/battles/{BATTLE}/strike/{combat}", headers=bearer(imperium)).json()
    assert [s["seq"] for s in preview["strikes"]] == [combat, combat + 2]  # the nobz' roll stood on it
    assert preview["strikes"][1]["author"]["side"] == "orks"
    refused = client.post(
        f"/battles/{BATTLE}/strike/{combat}",
        json={"reason": "not mine to strike", "expected_seq": preview["expected_seq"]},
        headers=bearer(orks),
    )
    assert refused.status_code == 403  # the disputer strikes nothing of the claimant's
    struck = client.post(
        f"/battles/{BATTLE}/strike/{combat}",
        json={"reason": "agreed: the banner counts", "expected_seq": preview["expected_seq"]},
        headers=bearer(imperium),
    )
    assert struck.status_code == 201, struck.text
    [row] = claims(client, orks)["disputes"]
    assert (row["entry"], row["status"], row["ruling"]) == (combat, "struck", "agreed: the banner counts")
    assert row["ended_by"] == "imperium player (API, issued with the battle)"


def test_a_players_strike_of_an_undisputed_entry_still_takes_nothing_of_the_other_side(client, tokens):
    imperium = tokens["players"]["imperium"]
    play(client, tokens, example_events(20))
    combat = seq_of(client, imperium) - 1
    preview = client.get(f"/battles/{BATTLE}/strike/{combat}", headers=bearer(imperium))
    assert preview.status_code == 403  # the orks' roll stood on it, and the orks never disputed it
    assert f"event {combat + 1} was not" in preview.json()["detail"]
