"""`morale serve` as other UIs use it: create a battle, post what happens, read what the rules made
of it. Every refusal is a 4xx that names the field or rule ID, and the log is left as it was."""

from __future__ import annotations

import json

import pytest
from litestar.testing import TestClient
from support.served import BATTLE, ROOT, bearer, creation_body, example_events

from morale.app.http.server import Settings, create_app
from morale.events.store import SqliteEventStore
from morale.projections.feed import feed_schema


def make_client(db, **settings) -> TestClient:
    return TestClient(create_app(db, Settings(**settings)))


@pytest.fixture
def client(tmp_path):
    with make_client(tmp_path / "served.db") as opened:
        yield opened


@pytest.fixture
def tokens(client) -> dict:
    created = client.post("/battles", json=creation_body())
    assert created.status_code == 201, created.text
    return created.json()["tokens"]


def post_events(client, token: str, events: list[dict], expected_seq: int | None = None):
    if expected_seq is None:
        expected_seq = seq_of(client, token)
    return client.post(
        f"/battles/{BATTLE}/events", json={"expected_seq": expected_seq, "events": events}, headers=bearer(token)
    )


def seq_of(client, token: str) -> int:
    return client.get(f"/battles/{BATTLE}/board", headers=bearer(token)).json()["seq"]


def stored_rows(client) -> list[tuple]:
    """The log exactly as stored, read behind the server's back."""
    store = SqliteEventStore(client.app.state.stores.path)
    try:
        return list(store.raw_rows(BATTLE))
    finally:
        store.close()


@pytest.fixture
def played(client, tokens) -> dict:
    """The example battle, posted by the referee."""
    answer = post_events(client, tokens["referee"], example_events(), expected_seq=9)
    assert answer.status_code == 201, answer.text
    return tokens


def unit_row(board: dict, unit: str) -> dict:
    return next(row for row in board["units"] if row["unit"] == unit)


# -- creating a battle ------------------------------------------------------------------------
def test_creating_a_battle_returns_a_token_per_role_and_shows_the_board(client):
    created = client.post("/battles", json=creation_body())
    assert created.status_code == 201
    body = created.json()
    assert body["battle"] == BATTLE and body["seq"] == 9
    assert set(body["tokens"]) == {"referee", "spectator", "players"}
    assert set(body["tokens"]["players"]) == {"imperium", "orks"}
    board = client.get(f"/battles/{BATTLE}/board", headers=bearer(body["tokens"]["spectator"])).json()
    assert len(board["units"]) == 8 and {u["state"] for u in board["units"]} == {"steady"}


def test_only_token_hashes_are_stored(client, tokens):
    store = SqliteEventStore(client.app.state.stores.path)
    stored = [row[0] for row in store.db.conn.execute("SELECT token_hash FROM access_tokens")]
    store.close()
    assert len(stored) == 4
    assert not {tokens["referee"], tokens["spectator"], *tokens["players"].values()} & set(stored)


def test_a_battle_cannot_be_created_twice(client, tokens):
    again = client.post("/battles", json=creation_body())
    assert again.status_code == 409  # as for a writer that lost the race to create it
    assert again.json()["field"] == "battle"
    assert again.json()["detail"] == "battle: battle 'hive-tarsis' already exists in this store"
    assert len(stored_rows(client)) == 9
    assert client.get(f"/battles/{BATTLE}/board", headers=bearer(tokens["referee"])).status_code == 200


def test_a_malformed_battle_is_refused_naming_the_field(client):
    body = creation_body()
    body["units"][0]["models"] = 0
    refused = client.post("/battles", json=body)
    assert refused.status_code == 400
    assert "units[0].models" in refused.text
    body = creation_body()
    body["started"]["ruleset"] = "chess"
    refused = client.post("/battles", json=body)
    assert refused.status_code == 422 and refused.json()["field"] == "ruleset"
    assert stored_rows(client) == []  # nothing was created


def test_a_server_with_a_creation_token_creates_battles_only_for_its_holder(tmp_path):
    with make_client(tmp_path / "locked.db", create_token="let-me-in") as client:
        assert client.post("/battles", json=creation_body()).status_code == 401
        assert client.post("/battles", json=creation_body(), headers=bearer("guess")).status_code == 403
        assert stored_rows(client) == []
        assert client.post("/battles", json=creation_body(), headers=bearer("let-me-in")).status_code == 201


# -- appending --------------------------------------------------------------------------------
def test_appended_events_come_back_with_what_they_caused(client, tokens):
    answer = post_events(client, tokens["referee"], example_events(18))
    assert answer.status_code == 201
    items = answer.json()
    assert [i["seq"] for i in items] == list(range(10, 28))
    phase_end = next(i for i in items if i["seq"] == 18)
    assert phase_end["event"]["type"] == "phase_ended"
    due = [(c["kind"], c["unit"], c["rule"]) for c in phase_end["caused"]]
    assert ("test_due", "nobz", "wh40k6.trigger.casualties") in due
    assert ("test_resolved", "lootas", "wh40k6.special.auto_pass") in due


def test_a_stale_expected_seq_is_a_conflict_and_writes_nothing(client, tokens):
    first = example_events(1)
    answer = post_events(client, tokens["referee"], first, expected_seq=5)
    assert answer.status_code == 409
    problem = answer.json()
    assert (problem["expected_seq"], problem["actual_seq"], problem["field"]) == (5, 9, "expected_seq")
    assert len(stored_rows(client)) == 9


def test_an_expected_seq_beyond_the_log_says_where_the_log_ends(client, tokens):
    answer = post_events(client, tokens["referee"], example_events(1), expected_seq=99)
    assert answer.status_code == 409
    assert answer.json()["detail"] == "expected_seq: expected seq 99 but the log ends at 9"
    assert len(stored_rows(client)) == 9


def test_an_event_the_rules_refuse_is_a_422_naming_the_rule_and_writes_nothing(client, tokens):
    out_of_order = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "shooting"}
    answer = post_events(client, tokens["referee"], [out_of_order])
    assert answer.status_code == 422
    assert answer.json()["rule"] == "engine.clock.order"
    assert len(stored_rows(client)) == 9


def test_a_batch_is_all_or_nothing(client, tokens):
    good, bad = example_events(1)[0], {"type": "casualties_suffered", "unit": "nobody", "count": 1}
    answer = post_events(client, tokens["referee"], [good, bad])
    assert answer.status_code == 422 and "event 2 of 2" in answer.json()["detail"]
    assert len(stored_rows(client)) == 9


def test_a_malformed_event_is_a_400_naming_the_field(client, tokens):
    answer = post_events(
        client, tokens["referee"], [{"type": "dice_rolled", "unit": "kraak", "test": "morale", "dice": [3, 7]}]
    )
    assert answer.status_code == 400 and "events[0].dice[1]" in answer.text
    assert len(stored_rows(client)) == 9


def test_request_bodies_over_the_limit_are_refused_unread(tmp_path):
    with make_client(tmp_path / "small.db", max_body_bytes=4096) as client:
        tokens = client.post("/battles", json=creation_body()).json()["tokens"]
        note = "x" * 5000
        answer = post_events(
            client, tokens["referee"], [{"type": "unit_changed", "unit": "kraak", "changes": {"note": 1}, "note": note}]
        )
        assert answer.status_code == 413
        assert len(stored_rows(client)) == 9


# -- who may do what ----------------------------------------------------------------------------
CASUALTIES_ON = {
    "kraak": {"type": "casualties_suffered", "unit": "kraak", "count": 1},
    "boyz": {"type": "casualties_suffered", "unit": "boyz", "count": 1},
}


def test_no_token_is_a_401_and_nothing_is_written(client, tokens):
    answer = client.post(f"/battles/{BATTLE}/events", json={"expected_seq": 9, "events": example_events(1)})
    assert answer.status_code == 401
    unread = client.post(f"/battles/{BATTLE}/events", content=b"{not even json")
    assert unread.status_code == 401  # who is asking is settled before the body is read
    assert len(stored_rows(client)) == 9


def test_a_wrong_token_or_another_battles_token_is_a_401(client, tokens):
    assert post_events(client, "not-a-token", example_events(1), expected_seq=9).status_code == 401
    other = creation_body() | {"battle": "other-battle"}
    other_tokens = client.post("/battles", json=other).json()["tokens"]
    assert post_events(client, other_tokens["referee"], example_events(1), expected_seq=9).status_code == 401
    assert len(stored_rows(client)) == 9


def test_a_spectator_reads_and_follows_but_writes_nothing(client, tokens):
    spectator = tokens["spectator"]
    for path in ("board", "due", "log", "timeline", "explain/kraak", "feed.ndjson?follow=false"):
        assert client.get(f"/battles/{BATTLE}/{path}", headers=bearer(spectator)).status_code == 200, path
    answer = post_events(client, spectator, example_events(1), expected_seq=9)
    assert answer.status_code == 403 and "spectator" in answer.json()["detail"]
    roll = client.post(
        f"/battles/{BATTLE}/roll",
        json={"unit": "kraak", "test": "morale", "expected_seq": 9},
        headers=bearer(spectator),
    )
    assert roll.status_code == 403
    assert len(stored_rows(client)) == 9


def test_reads_need_a_token_too(client, tokens):
    for path in ("board", "due", "log", "timeline", "explain/kraak", "feed", "feed.ndjson"):
        assert client.get(f"/battles/{BATTLE}/{path}").status_code == 401, path
    assert client.get(f"/battles/{BATTLE}/board?token={tokens['spectator']}").status_code == 200


def to_shooting(client, tokens) -> None:
    assert post_events(client, tokens["referee"], example_events(5)).status_code == 201


def test_a_player_records_events_for_their_own_sides_units(client, tokens):
    to_shooting(client, tokens)
    imperium = tokens["players"]["imperium"]
    assert post_events(client, imperium, [CASUALTIES_ON["kraak"]]).status_code == 201


def test_a_player_may_not_record_events_for_the_other_sides_units(client, tokens):
    to_shooting(client, tokens)
    before = stored_rows(client)
    answer = post_events(client, tokens["players"]["imperium"], [CASUALTIES_ON["boyz"]])
    assert answer.status_code == 403
    assert answer.json()["field"] == "unit"
    assert "'boyz' is not a unit of imperium, the side this token plays" in answer.json()["detail"]
    charge = {"type": "charge_declared", "charger": "boyz", "targets": ["kraak"], "in_range": ["kraak"]}
    assert post_events(client, tokens["players"]["imperium"], [charge]).status_code == 403
    assert stored_rows(client) == before


@pytest.mark.parametrize(
    "event",
    [
        {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"},
        {"type": "referee_ruled", "unit": "kraak", "reason": "the sergeant holds", "state": "steady"},
        {"type": "event_retracted", "seq": 9, "reason": "typo"},
        {
            "type": "unit_joined",
            "unit": "extra",
            "side": "imperium",
            "name": "Extra",
            "unit_type": "infantry",
            "models": 5,
            "ld": 8,
        },
        {
            "type": "combat_resolved",
            "sides": [
                {"side": "imperium", "units": ["kraak"], "wounds_inflicted": 1},
                {"side": "orks", "units": ["boyz"], "wounds_inflicted": 0},
            ],
        },
    ],
    ids=["clock", "ruling", "retraction", "roster", "combat"],
)
def test_battle_level_events_rulings_and_retractions_are_for_the_referee(client, tokens, event):
    answer = post_events(client, tokens["players"]["imperium"], [event])
    assert answer.status_code == 403 and answer.json()["field"] == "type"
    assert len(stored_rows(client)) == 9


def test_a_batch_with_one_forbidden_event_writes_none(client, tokens):
    to_shooting(client, tokens)
    before = stored_rows(client)
    answer = post_events(client, tokens["players"]["imperium"], [CASUALTIES_ON["kraak"], CASUALTIES_ON["boyz"]])
    assert answer.status_code == 403 and "event 2 of 2" in answer.json()["detail"]
    assert stored_rows(client) == before


def nobz_morale_due(client, tokens) -> None:
    assert post_events(client, tokens["referee"], example_events(9)).status_code == 201  # to seq 18


def test_a_player_rolls_for_their_own_units_tests_only(client, tokens):
    nobz_morale_due(client, tokens)
    roll = {"type": "dice_rolled", "unit": "nobz", "test": "morale", "dice": [5, 4]}
    assert post_events(client, tokens["players"]["imperium"], [roll]).status_code == 403
    engine_claimed = roll | {"source": "engine"}
    refused = post_events(client, tokens["players"]["orks"], [engine_claimed])
    assert refused.status_code == 403 and refused.json()["field"] == "source"
    assert len(stored_rows(client)) == 18
    rolled = post_events(client, tokens["players"]["orks"], [roll])
    assert rolled.status_code == 201
    assert [c["to_state"] for c in rolled.json()[0]["caused"] if c["kind"] == "state_changed"] == ["falling_back"]


def test_the_referee_may_rule_and_retract(client, tokens):
    nobz_morale_due(client, tokens)
    ruling = {"type": "referee_ruled", "unit": "nobz", "reason": "the Nobz hold", "waive_tests": True}
    assert post_events(client, tokens["referee"], [ruling]).status_code == 201
    retraction = {"type": "event_retracted", "seq": 19, "reason": "ruled in error"}
    answer = post_events(client, tokens["referee"], [retraction])
    assert answer.status_code == 201
    due = client.get(f"/battles/{BATTLE}/due", headers=bearer(tokens["referee"])).json()
    assert ("nobz", "morale") in {(d["unit"], d["test"]) for d in due}


def test_engine_rolls_for_a_players_own_unit(client):
    tokens = client.post("/battles", json=creation_body(dice="engine")).json()["tokens"]
    nobz_morale_due(client, tokens)
    ask = {"unit": "nobz", "test": "morale", "expected_seq": 18}
    path = f"/battles/{BATTLE}/roll"
    assert client.post(path, json=ask, headers=bearer(tokens["players"]["imperium"])).status_code == 403
    assert client.post(path, json=ask | {"expected_seq": 3}, headers=bearer(tokens["referee"])).status_code == 409
    assert len(stored_rows(client)) == 18
    rolled = client.post(path, json=ask, headers=bearer(tokens["players"]["orks"]))
    assert rolled.status_code == 201
    item = rolled.json()[0]
    assert item["event"]["source"] == "engine" and len(item["event"]["dice"]) == 2
    assert item["caused"][0]["kind"] == "test_resolved"


def test_an_unknown_battle_answers_as_a_battle_the_token_does_not_open(client, tokens):
    # No probing which battles a server holds: without a token of its own, a battle that exists and
    # one that does not get the same answer (the same words, but for the id the client gave).
    for headers in ({}, bearer("not-a-token"), {"Authorization": "Basic x"}, bearer(tokens["referee"] + "x")):
        known = client.get(f"/battles/{BATTLE}/board", headers=headers)
        unknown = client.get("/battles/nowhere/board", headers=headers)
        assert known.status_code == unknown.status_code == 401, unknown.text
        assert known.json() == unknown.json() | {"detail": unknown.json()["detail"].replace("nowhere", BATTLE)}
    # A token of another battle opens nothing here, however it is asked.
    assert client.get("/battles/nowhere/board", headers=bearer(tokens["referee"])).status_code == 401


# -- reading ------------------------------------------------------------------------------------
def test_the_board_at_a_point_shows_the_battle_as_it_stood_then(client, played):
    spectator = bearer(played["spectator"])
    now = client.get(f"/battles/{BATTLE}/board", headers=spectator).json()
    then = client.get(f"/battles/{BATTLE}/board?at=19", headers=spectator).json()
    assert then["seq"] == 19 and (then["turn"], then["side"], then["phase"]) == (1, "imperium", "shooting")
    assert unit_row(then, "nobz")["state"] == "falling_back" and unit_row(then, "nobz")["models"] == 3
    assert unit_row(then, "grots")["due"] == ["morale (wh40k6.trigger.casualties)"]
    assert unit_row(now, "grots")["state"] == "dispersed"
    assert now["seq"] == len(example_events()) + 9
    end_of_shooting = client.get(f"/battles/{BATTLE}/board?at=end:1/imperium/shooting", headers=spectator).json()
    assert end_of_shooting["seq"] == 22 and unit_row(end_of_shooting, "grots")["state"] == "falling_back"


def test_a_point_outside_the_log_is_refused(client, played):
    spectator = bearer(played["spectator"])
    for point in ("0", "5000", "end:9", "yesterday"):
        answer = client.get(f"/battles/{BATTLE}/board?at={point}", headers=spectator)
        assert answer.status_code == 422 and answer.json()["field"] == "point", point


def test_due_tests_come_with_the_odds_of_each_result(client, played):
    due = client.get(f"/battles/{BATTLE}/due?at=18", headers=bearer(played["spectator"])).json()
    odds = {(d["unit"], d["test"]): (d["target"], d["odds"]["pass_ways"], d["odds"]["of"]) for d in due}
    assert odds == {("nobz", "morale"): (7, 21, 36), ("grots", "morale"): (5, 10, 36)}
    fall_back = client.get(f"/battles/{BATTLE}/due?at=19", headers=bearer(played["spectator"])).json()
    assert [(d["test"], d["odds"]) for d in fall_back if d["unit"] == "nobz"] == [("fall_back", None)]


def test_explain_walks_a_units_state_back_to_the_dice_and_casualties(client, played):
    why = client.get(f"/battles/{BATTLE}/explain/grots", headers=bearer(played["spectator"])).json()
    assert why["state"] == "dispersed"
    assert [(s["seq"], s["rule"]) for s in why["steps"] if s["rule"]] == [
        (18, "wh40k6.test.morale"),
        (21, "wh40k6.fall_back.start"),
        (21, "wh40k6.fall_back.distance"),
        (24, "wh40k6.test.morale"),
        (25, "wh40k6.assaulted.multi"),
    ]
    earlier = client.get(f"/battles/{BATTLE}/explain/grots?at=22", headers=bearer(played["spectator"])).json()
    assert earlier["state"] == "falling_back" and earlier["at"] == 22


def test_explaining_an_unknown_unit_is_refused(client, played):
    answer = client.get(f"/battles/{BATTLE}/explain/nobody", headers=bearer(played["spectator"]))
    assert answer.status_code == 422 and answer.json()["field"] == "unit"


def test_the_diff_between_two_points_names_the_units_that_changed(client, played):
    answer = client.get(f"/battles/{BATTLE}/diff?before=18&after=22", headers=bearer(played["spectator"])).json()
    states = {u["unit"]: u["after"]["state"] for u in answer["units"]}
    assert states == {"nobz": "falling_back", "grots": "falling_back"}


def test_the_log_has_a_row_per_event_and_the_timeline_a_mark_per_phase(client, played):
    spectator = bearer(played["spectator"])
    log = client.get(f"/battles/{BATTLE}/log", headers=spectator).json()
    timeline = client.get(f"/battles/{BATTLE}/timeline", headers=spectator).json()
    assert [r["seq"] for r in log] == list(range(1, len(example_events()) + 10))
    assert timeline["last"] == len(log)
    assert timeline["marks"][2] == {"seq": 14, "turn": 1, "side": "imperium", "phase": "shooting"}
    assert len(timeline["marks"]) == 3 * 2 * 4  # three turns, two sides, four phases


def test_the_ndjson_export_is_the_feed_and_keeps_the_hash_chain(client, played):
    answer = client.get(f"/battles/{BATTLE}/feed.ndjson?follow=false", headers=bearer(played["spectator"]))
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert [line["seq"] for line in lines] == list(range(1, len(example_events()) + 10))
    stored = stored_rows(client)
    links = [(line["seq"], line["prev_hash"], line["hash"]) for line in lines]
    assert links == [(row.seq, row.prev_hash, row.hash) for row in stored]
    after = client.get(f"/battles/{BATTLE}/feed.ndjson?follow=false&after=100", headers=bearer(played["spectator"]))
    assert [json.loads(line)["seq"] for line in after.text.splitlines()] == list(range(101, len(lines) + 1))


def test_resuming_after_a_point_the_log_does_not_hold_is_refused_naming_what_the_client_sent(client, played):
    answer = client.get(f"/battles/{BATTLE}/feed.ndjson?follow=false&after=999", headers=bearer(played["spectator"]))
    assert answer.status_code == 422 and answer.json()["field"] == "after"
    answer = client.get(
        f"/battles/{BATTLE}/feed.ndjson?follow=false", headers=bearer(played["spectator"]) | {"Last-Event-ID": "999"}
    )
    assert answer.status_code == 422 and answer.json()["field"] == "Last-Event-ID"
    assert answer.json()["detail"].startswith("Last-Event-ID: the log holds events 1 to ")


def test_a_resume_point_in_words_is_malformed_and_said_in_words(client, played):
    answer = client.get(f"/battles/{BATTLE}/feed.ndjson?follow=false&after=abc", headers=bearer(played["spectator"]))
    assert answer.status_code == 400 and answer.json()["field"] == "after"
    assert answer.json()["detail"] == "after: expected a whole number"  # not Python's "got `str`"


def test_a_last_event_id_that_is_not_a_sequence_number_is_malformed(client, played):
    answer = client.get(
        f"/battles/{BATTLE}/feed.ndjson?follow=false",
        headers=bearer(played["spectator"]) | {"Last-Event-ID": "yesterday"},
    )
    assert answer.status_code == 400 and answer.json()["field"] == "Last-Event-ID"
    assert answer.json()["type"] == "urn:morale:problem:malformed"
    assert answer.json()["detail"] == "Last-Event-ID: not a sequence number (ASCII digits only)"


def test_pages_of_allowed_origins_may_call_the_api(tmp_path):
    with make_client(tmp_path / "cors.db", allow_origins=("http://overlay.localhost",)) as client:
        allowed = client.get("/health", headers={"Origin": "http://overlay.localhost"})
        assert allowed.headers.get("access-control-allow-origin") == "http://overlay.localhost"
        other = client.get("/health", headers={"Origin": "http://elsewhere.localhost"})
        assert "access-control-allow-origin" not in other.headers


def test_the_server_publishes_openapi_and_the_feed_schema(client):
    paths = client.get("/schema/openapi.json").json()["paths"]
    assert {
        "/battles",
        "/battles/{battle}/events",
        "/battles/{battle}/board",
        "/battles/{battle}/due",
        "/battles/{battle}/explain/{unit}",
        "/battles/{battle}/log",
        "/battles/{battle}/feed",
        "/battles/{battle}/feed.ndjson",
    } <= set(paths)
    served = client.get("/feed.schema.json").json()
    assert served == feed_schema()


def test_the_openapi_declares_the_token_and_every_refusal_in_one_shape(client):
    doc = client.get("/schema/openapi.json").json()
    assert doc["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "A battle's token (referee, a side's player, spectator)",
    }
    problem = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    declared = {
        (method.upper(), path): operation
        for path, operations in doc["paths"].items()
        for method, operation in operations.items()
    }
    expected = {
        ("POST", "/battles"): {"400", "401", "403", "409", "413", "422"},
        ("POST", "/battles/{battle}/events"): {"400", "401", "403", "404", "409", "413", "422"},
        ("POST", "/battles/{battle}/roll"): {"400", "401", "403", "404", "409", "413", "422"},
        ("GET", "/battles/{battle}/board"): {"400", "401", "404", "422"},
        ("GET", "/battles/{battle}/feed"): {"400", "401", "404", "422"},
        ("GET", "/battles/{battle}/log"): {"400", "401"},
    }
    for operation, statuses in expected.items():
        responses = declared[operation]["responses"]
        assert {s for s in responses if s.startswith("4")} == statuses, operation
        assert all(responses[s]["content"] == problem for s in statuses), operation
        assert {"bearer": []} in declared[operation]["security"], operation
    assert {} in declared[("POST", "/battles")]["security"]  # no token needed, unless --create-token
    required = doc["components"]["schemas"]["Problem"]["required"]
    assert sorted(required) == ["detail", "status", "title", "type"]


def test_the_openapi_says_which_operations_a_store_that_does_not_answer_refuses_with_503(client):
    # A node on PostgreSQL answers 503 while the server is away (test_pg_cluster.py shows it):
    # every operation that reads or writes the store says so, and those that do not touch it don't.
    doc = client.get("/schema/openapi.json").json()
    problem = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            touches_the_store = path.startswith("/battles")
            declared = operation["responses"].get("503")
            if touches_the_store:
                assert declared is not None, (method, path)
                assert declared["content"] == problem, (method, path)
                assert "does not answer" in declared["description"]
            else:
                assert declared is None, (method, path)


def test_every_refusal_is_a_problem_and_a_409_says_where_the_log_is(client, tokens):
    answer = post_events(client, tokens["referee"], example_events(1), expected_seq=5)
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json() == {
        "type": "urn:morale:problem:conflict",
        "title": "The log has moved on since the client read it",
        "status": 409,
        "detail": "expected_seq: battle 'hive-tarsis' is at sequence 9, not 5; another writer got there first: "
        "read the log again and retry",
        "field": "expected_seq",
        "expected_seq": 5,
        "actual_seq": 9,
    }
    unknown_route = client.get("/nowhere")
    assert unknown_route.status_code == 404 and unknown_route.headers["content-type"] == "application/problem+json"
    no_token = client.get(f"/battles/{BATTLE}/board")
    assert no_token.json()["type"] == "urn:morale:problem:token" and no_token.headers["www-authenticate"] == "Bearer"


def test_the_committed_feed_schema_is_the_one_the_code_makes():
    committed = json.loads((ROOT / "schema" / "feed.schema.json").read_text())
    assert committed == feed_schema(), "run: python -m morale.projections.feed > schema/feed.schema.json"


def test_every_answer_is_never_sniffed_and_never_names_its_page_to_another_site(tmp_path):
    with TestClient(create_app(tmp_path / "headers.db", Settings())) as client:
        for path in ("/health", "/view", "/battles/nowhere/board", "/static/js/main.js"):
            answer = client.get(path)
            assert answer.headers["x-content-type-options"] == "nosniff", path
            assert answer.headers["referrer-policy"] == "no-referrer", path


def test_the_console_runs_only_the_apps_own_scripts_and_talks_only_to_its_server(tmp_path):
    with TestClient(create_app(tmp_path / "headers.db", Settings())) as client:
        policy = client.get("/view").headers["content-security-policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'" and directives["connect-src"] == "'self'"
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
