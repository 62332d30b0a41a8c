"""What a screen shows of a feed item as it comes (issue 27): the names of the units and sides it
mentions, the narrative's lines with their rule IDs, each test's target, odds and dice; the SSE
messages named by kind; and the feed's JSON Schema held to every item the server serves."""

from __future__ import annotations

import copy
import json
from collections import defaultdict

import httpx
import jsonschema_rs
import msgspec
import pytest
from support.served import ROOT, LiveServer, bearer, example_lines, open_stream, roster_body, sse_messages

from morale.app.http.kinds import module, outcome_kinds
from morale.app.http.server import Settings, create_app
from morale.core.words import english
from morale.events.store import SqliteEventStore
from morale.events.types import EVENT_TYPES
from morale.projections.due import due_tests
from morale.projections.feed import feed_schema
from morale.projections.narrative import narrate
from morale.projections.shown import FEED_VERSION
from morale.projections.timeline import fold_at

EXAMPLES = ["wh40k6", "wh40k3", "wfb8", "gdb"]


class Served:
    """The four shipped example battles on a live server, and what it serves of each."""

    def __init__(self, url: str, db) -> None:
        self.url, self.db = url, db
        self.http = httpx.Client(base_url=url, timeout=20)
        self.battles: dict[str, str] = {}  # example -> battle id
        self.tokens: dict[str, dict] = {}
        self.posted: dict[str, list[dict]] = {}  # what the append answered
        for example in EXAMPLES:
            body = roster_body(example)
            created = self.http.post("/battles", json=body)
            assert created.status_code == 201, created.text
            battle, tokens = body["battle"], created.json()["tokens"]
            appended = self.http.post(
                f"/battles/{battle}/events",
                json={"expected_seq": created.json()["seq"], "events": example_lines(example)},
                headers=bearer(tokens["referee"]),
            )
            assert appended.status_code == 201, appended.text
            self.battles[example], self.tokens[example], self.posted[example] = battle, tokens, appended.json()

    def ndjson(self, example: str) -> list[dict]:
        battle, token = self.battles[example], self.tokens[example]["spectator"]
        answer = self.http.get(f"/battles/{battle}/feed.ndjson?follow=false", headers=bearer(token))
        assert answer.status_code == 200
        return [json.loads(line) for line in answer.text.splitlines() if line]

    def sse(self, example: str, after: int = 0) -> list:
        """Every SSE message after `after` up to the log's end (the repeats under outcome kinds too)."""
        battle, token = self.battles[example], self.tokens[example]["spectator"]
        last = self.ndjson(example)[-1]["seq"]
        got: list = []
        headers = bearer(token) | {"Last-Event-ID": str(after)}
        with open_stream(self.http, f"/battles/{battle}/feed", headers=headers) as stream:
            for message in sse_messages(stream.iter_lines()):
                if message.data is not None:
                    got.append(message)
                elif got and got[-1].data["seq"] == last:
                    break  # a heartbeat after the last item: its whole group has come (one write)
        return got


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    db = tmp_path_factory.mktemp("shown") / "battles.db"
    with LiveServer(create_app(db, Settings(poll_s=0.05, heartbeat_s=0.3))) as running:
        yield Served(running.url, db)


def _strict(schema: dict) -> dict:
    """The feed's schema with no property left undescribed: a field served but missing from the
    schema fails (the published schema lets readers meet new fields, as the feed grows)."""
    strict = copy.deepcopy(schema)
    for definition in strict["$defs"].values():
        if "properties" in definition:
            definition["additionalProperties"] = False
    return strict


def _invalid(validator, item: dict) -> list[str]:
    return [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(item)]


def test_every_item_served_is_what_the_published_feed_schema_describes(served):
    published = served.http.get("/feed.schema.json").json()
    committed = json.loads((ROOT / "schema" / "feed.schema.json").read_text())
    assert published == committed == feed_schema()
    validator = jsonschema_rs.validator_for(_strict(published))
    for example in EXAMPLES:
        items = served.ndjson(example) + [m.data for m in served.sse(example)] + served.posted[example]
        assert len(items) > 2 * len(example_lines(example))
        for item in items:
            assert _invalid(validator, item) == [], (example, item["seq"])


def test_the_schema_check_fails_an_item_with_a_field_the_schema_does_not_describe(served):
    validator = jsonschema_rs.validator_for(_strict(feed_schema()))
    item = served.ndjson("wh40k6")[18]
    assert _invalid(validator, item) == []
    assert _invalid(validator, item | {"odds_of_victory": 0.5}) != []
    item["tests"][0]["odds"]["chance"] = "58%"
    assert _invalid(validator, item) != []


def test_every_item_says_the_feed_version_and_the_schema_says_how_the_feed_evolves(served):
    schema = feed_schema()
    assert schema["x-feed-version"] == FEED_VERSION
    assert "additive" in schema["description"] and "new version" in schema["description"]
    for example in EXAMPLES:
        assert {item["feed_version"] for item in served.ndjson(example)} == {FEED_VERSION}
        assert {item["feed_version"] for item in served.posted[example]} == {FEED_VERSION}


def test_an_item_names_the_units_and_sides_it_mentions(served):
    items = {item["seq"]: item for item in served.ndjson("wh40k6")}
    charge = items[24]
    assert charge["event"]["type"] == "charge_declared"
    assert charge["units"] == {
        "tacticals": {"name": "Tactical Squad Varro", "side": "imperium"},
        "nobz": {"name": "Nobz", "side": "orks"},
        "grots": {"name": "Gretchin Mob", "side": "orks"},
    }
    assert charge["sides"] == ["imperium", "orks"]
    assert (items[15]["units"], items[15]["sides"]) == ({"nobz": {"name": "Nobz", "side": "orks"}}, ["orks"])
    board = served.http.get("/battles/hive-tarsis/board", headers=bearer(served.tokens["wh40k6"]["spectator"])).json()
    named = {u["unit"]: {"name": u["name"], "side": u["side"]} for u in board["units"]}
    for item in items.values():
        mentioned = {c["unit"] for c in item["caused"]} | (
            {item["event"]["unit"]} if "unit" in item["event"] else set()
        )
        assert mentioned <= set(item.get("units", {})), item["seq"]
        assert all(named[u] == shown for u, shown in item.get("units", {}).items())


def test_an_item_tells_its_story_as_the_narrative_does_with_its_rule_ids(served):
    store = SqliteEventStore(served.db)
    for example, battle in served.battles.items():
        told = defaultdict(list)
        for line in narrate(battle, store.read(battle)):
            told[line.seq].append({"kind": line.kind, "text": line.text, "rules": line.rules})
        for item in served.ndjson(example):
            story = [{"rules": []} | line for line in item["story"]]
            assert story == told[item["seq"]], (example, item["seq"])
            assert len(story) == 1 + len(item["caused"])
    store.close()


def test_a_test_made_due_carries_the_target_and_odds_the_due_list_gives(served):
    store = SqliteEventStore(served.db)
    checked = 0
    for example, battle in served.battles.items():
        log = list(store.read(battle))
        for item in served.ndjson(example):
            due_now = {(d.unit, d.test): d for d in due_tests(fold_at(battle, log, item["seq"]).state())}
            for shown in item.get("tests", []):
                made_due = item["caused"][shown["outcome"]]
                if made_due["kind"] != "test_due" or (shown["unit"], shown["test"]) not in due_now:
                    continue
                listed = due_now[(shown["unit"], shown["test"])]
                assert shown.get("target") == listed.target
                assert shown.get("odds") == (
                    json.loads(msgspec.json.encode(listed.odds, enc_hook=english)) if listed.odds else None
                )
                assert shown["dice"] == listed.dice and shown["name"]
                checked += 1
    store.close()
    assert checked > 20


def test_a_resolved_test_carries_its_dice_and_the_odds_it_had_when_it_was_due(served):
    items = {item["seq"]: item for item in served.ndjson("wh40k6")}
    rolled = items[19]  # Nobz roll 5 + 4 for morale, needing 7 or less
    assert rolled["event"] == {"type": "dice_rolled", "unit": "nobz", "test": "morale", "dice": [5, 4]}
    morale = rolled["tests"][0]
    assert rolled["caused"][morale["outcome"]]["kind"] == "test_resolved"
    assert {k: morale[k] for k in ("unit", "name", "dice", "rolled", "total", "target", "passed")} == {
        "unit": "nobz",
        "name": "Morale test",
        "dice": 2,
        "rolled": [5, 4],
        "total": 9,
        "target": 7,
        "passed": False,
    }
    was_due = next(t for t in items[18]["tests"] if t["unit"] == "nobz")
    assert morale["odds"] == was_due["odds"]
    assert (morale["odds"]["pass_ways"], morale["odds"]["of"]) == (21, 36)  # 7 or less on 2D6
    automatic = next(t for t in items[18]["tests"] if t["unit"] == "lootas")  # always passes morale
    assert automatic["passed"] is True and "odds" not in automatic and automatic["dice"] == 0


def test_states_are_named_in_the_rulesets_own_words(served):
    vocabulary = served.http.get("/rulesets/wfb8/1").json()
    words = {s["id"]: s["name"] for s in vocabulary["states"]}
    fled = [i for i in served.ndjson("wfb8") if any(c.get("to_state") == "falling_back" for c in i["caused"])]
    assert fled and all(i["state_names"]["falling_back"] == words["falling_back"] == "fleeing" for i in fled)


def test_sse_messages_are_named_by_event_type_then_repeated_under_each_outcome_kind(served):
    messages = served.sse("wh40k6", after=18)
    group = [m for m in messages if m.data["seq"] == 19]
    assert [m.event for m in group] == ["dice_rolled", "test_resolved", "state_changed", "test_due"]
    assert {m.id for m in group} == {"19"} and all(m.data == group[0].data for m in group)
    assert messages[0].data["seq"] == 19  # resumed after Last-Event-ID 18
    own = [m for m in messages if m.event == m.data["event"]["type"]]
    assert [m.data["seq"] for m in own] == list(range(19, own[-1].data["seq"] + 1))
    for message in messages:
        kinds = {c["kind"] for c in message.data["caused"]}
        assert message.event == message.data["event"]["type"] or message.event in kinds


def test_event_types_and_outcome_kinds_never_share_a_name_and_the_console_knows_them_all():
    assert not set(EVENT_TYPES) & set(outcome_kinds())
    assert (ROOT / "app" / "http" / "static" / "js" / "kinds.js").read_text() == module(), (
        "run: python -m morale.app.http.kinds > app/http/static/js/kinds.js"
    )


def test_resuming_by_last_event_id_starts_at_the_next_items_own_message(served):
    messages = served.sse("wh40k6", after=19)
    assert (messages[0].event, messages[0].id) == ("dice_rolled", "20")
    assert all(int(m.id) > 19 for m in messages)


def test_an_appends_answer_is_the_item_its_followers_get(tmp_path):
    """A writer's answer and a follower's item are one and the same, names, story and odds included,
    for each event of a batch against the battle just as that event left it."""
    from litestar.testing import TestClient
    from support.served import BATTLE, bearer, creation_body, example_events

    from morale.app.http.server import Settings, create_app

    with TestClient(create_app(tmp_path / "same.db", Settings())) as client:
        referee = client.post("/battles", json=creation_body()).json()["tokens"]["referee"]
        batch = {"events": example_events(20), "expected_seq": 9}
        answered = client.post(f"/battles/{BATTLE}/events", json=batch, headers=bearer(referee))
        assert answered.status_code == 201, answered.text
        followed = client.get(f"/battles/{BATTLE}/feed.ndjson?after=9&follow=false", headers=bearer(referee))
        lines = [json.loads(line) for line in followed.text.splitlines()]
    assert answered.json() == lines
    assert answered.json()[5]["story"][0]["text"] == "Nobz loses 2 models to shooting (3 left)"
