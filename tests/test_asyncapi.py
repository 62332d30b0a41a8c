"""The feed's AsyncAPI 3 document: current in schema/, served beside /schema, valid to the AsyncAPI
project's own parser (@asyncapi/parser, on Node, in tests/asyncapi), and held to what the server
sends: every SSE message's name is one of its messages and its data that message's payload, as the
parser understood it; every NDJSON line the payload of the NDJSON channel's message."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from functools import cache
from pathlib import Path

import httpx
import jsonschema_rs
import msgspec
import pytest
from support.served import ROOT, WAIT_S, LiveServer, bearer, example_lines, open_stream, roster_body, sse_messages

from morale.app.http.asyncapi import SCHEMA_FORMAT, document
from morale.app.http.kinds import outcome_kinds
from morale.app.http.server import Settings, create_app
from morale.app.webhooks.message import signed_delivery
from morale.events.types import EVENT_TYPES
from morale.projections.feed import FeedItem

PARSER = ROOT / "tests" / "asyncapi"
KEPT = ROOT / "schema" / "asyncapi.json"


def parsed(where: str | Path) -> dict:
    """What the AsyncAPI parser makes of the document at `where` (a file or a URL)."""
    node = shutil.which("node")
    if node is None or not (PARSER / "node_modules" / "@asyncapi" / "parser").is_dir():
        raise RuntimeError("the AsyncAPI parser is missing: `make test` installs Node and it (tests/asyncapi)")
    done = subprocess.run(
        [node, str(PARSER / "parse.mjs"), str(where)], capture_output=True, text=True, timeout=120, cwd=PARSER
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@cache
def _kept() -> dict:
    return parsed(KEPT)


def parsed_kept() -> dict:
    """What the parser makes of the kept document: parsed once for the module (each parse is a
    Node process, ~2 s of CPU), a copy for each test."""
    return copy.deepcopy(_kept())


def problems(result: dict) -> list[dict]:
    """Errors and warnings (severity 0 and 1); hints, such as a newer AsyncAPI 3 minor, aside."""
    return [d for d in result["diagnostics"] if d["severity"] <= 1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("asyncapi") / "battles.db"
    with LiveServer(create_app(db, Settings(poll_s=0.05, heartbeat_s=0.3))) as running:
        yield running


@pytest.fixture(scope="module")
def battles(server) -> dict[str, str]:
    """The four example battles, appended: battle id -> its spectator token."""
    spectators = {}
    with httpx.Client(base_url=server.url, timeout=WAIT_S) as http:
        for example in ("wh40k6", "wh40k3", "wfb8", "gdb"):
            body = roster_body(example)
            created = http.post("/battles", json=body).json()
            appended = http.post(
                f"/battles/{body['battle']}/events",
                json={"expected_seq": created["seq"], "events": example_lines(example)},
                headers=bearer(created["tokens"]["referee"]),
            )
            assert appended.status_code == 201, appended.text
            spectators[body["battle"]] = created["tokens"]["spectator"]
    return spectators


def test_the_kept_document_is_the_one_the_code_makes():
    assert json.loads(KEPT.read_text()) == document(), "run: python -m morale.app.http.asyncapi > schema/asyncapi.json"


def test_the_asyncapi_parser_finds_the_kept_document_valid_with_every_message_by_kind():
    result = parsed_kept()
    assert problems(result) == []
    understood = result["document"]
    assert understood["version"].startswith("3.")
    sse = understood["channels"]["sse"]
    assert sse["address"] == "/battles/{battle}/feed"
    assert [m["name"] for m in sse["messages"]] == [*EVENT_TYPES, *outcome_kinds()]
    assert all(m["sse_event"] == m["name"] and m["schema_format"] == SCHEMA_FORMAT for m in sse["messages"])
    assert "x-sse" in sse["extensions"] and "Last-Event-ID" in sse["extensions"]["x-sse"]["resume"]
    assert [m["name"] for m in understood["channels"]["ndjson"]["messages"]] == ["item"]
    assert {op: o["channels"] for op, o in understood["operations"].items()} == {
        "followSse": ["sse"],
        "followNdjson": ["ndjson"],
        "deliverWebhook": ["webhook"],
    }
    assert [m["name"] for m in understood["channels"]["webhook"]["messages"]] == ["delivery"]


def test_the_parser_reports_a_broken_document(tmp_path):
    """The check can fail: a payload that is no schema and a message the channel lacks are found."""
    broken = document()
    broken["components"]["messages"]["dice_rolled"]["payload"]["schema"] = {"type": 5}
    broken["operations"]["followSse"]["messages"].append({"$ref": "#/channels/sse/messages/no_such_kind"})
    shutil.copy(KEPT.parent / "feed.schema.json", tmp_path)  # beside it, as it references it
    (tmp_path / "asyncapi.json").write_text(json.dumps(broken))
    found = problems(parsed(tmp_path / "asyncapi.json"))
    assert {d["path"].split("/")[:3] == ["components", "messages", "dice_rolled"] for d in found} == {True, False}


def test_the_server_serves_the_document_beside_its_api_description_and_the_parser_reads_it_there(server):
    served = httpx.get(f"{server.url}/asyncapi.json", timeout=WAIT_S)
    assert served.status_code == 200 and served.headers["content-type"].startswith("application/json")
    assert served.json() == document()
    assert httpx.get(f"{server.url}/schema", timeout=WAIT_S).status_code == 200
    result = parsed(f"{server.url}/asyncapi.json")  # its payloads read from the server's /feed.schema.json
    assert problems(result) == []
    assert result["document"] == parsed_kept()["document"]


def _validators(channel: dict) -> dict[str, jsonschema_rs.Validator]:
    return {m["name"]: jsonschema_rs.Draft7Validator(m["payload"]) for m in channel["messages"]}


def test_what_the_server_sends_is_what_the_document_says(server, battles):
    understood = parsed_kept()["document"]
    by_name = _validators(understood["channels"]["sse"])
    line = _validators(understood["channels"]["ndjson"])["item"]
    names_sent: set[str] = set()
    with httpx.Client(base_url=server.url, timeout=WAIT_S) as http:
        for battle, token in battles.items():
            lines = http.get(f"/battles/{battle}/feed.ndjson?follow=false", headers=bearer(token)).text.splitlines()
            items = [json.loads(text) for text in lines if text]
            assert all(line.is_valid(item) for item in items)
            with open_stream(http, f"/battles/{battle}/feed", headers=bearer(token)) as stream:
                got = []
                for message in sse_messages(stream.iter_lines()):
                    if message.data is not None:
                        got.append(message)
                    elif got and got[-1].data["seq"] == items[-1]["seq"]:
                        break
            for message in got:
                assert message.event in by_name, message.event
                errors = [e.message for e in by_name[message.event].iter_errors(message.data)]
                assert errors == [], (battle, message.id, message.event)
                names_sent.add(message.event)
    assert {"dice_rolled", "test_resolved", "test_due", "state_changed", "phase_ended"} <= names_sent


def test_a_message_is_held_to_its_own_kind(server, battles):
    """A message's payload says which event, or which outcome, it is sent for."""
    understood = parsed_kept()["document"]
    by_name = _validators(understood["channels"]["sse"])
    answer = httpx.get(
        f"{server.url}/battles/hive-tarsis/feed.ndjson?after=18&follow=false",
        headers=bearer(battles["hive-tarsis"]),
        timeout=WAIT_S,
    )
    item = json.loads(answer.text.splitlines()[0])  # Nobz fail their morale test and Fall Back
    assert item["event"]["type"] == "dice_rolled"
    assert by_name["dice_rolled"].is_valid(item) and by_name["test_resolved"].is_valid(item)
    assert not by_name["phase_ended"].is_valid(item)
    assert not by_name["marker_placed"].is_valid(item)


def test_a_webhook_delivery_is_what_the_document_says(server, battles):
    delivery = _validators(parsed_kept()["document"]["channels"]["webhook"])["delivery"]
    answer = httpx.get(
        f"{server.url}/battles/hive-tarsis/feed.ndjson?follow=false", headers=bearer(battles["hive-tarsis"])
    )
    lines = [line.encode() for line in answer.text.splitlines() if line]
    for line in lines:
        sent = signed_delivery("whsec_" + "A" * 32, "hive-tarsis", msgspec.json.decode(line, type=FeedItem), line)
        body = json.loads(sent.body)
        assert delivery.is_valid(body), [e.message for e in delivery.iter_errors(body)]
    assert not delivery.is_valid(body | {"data": {"seq": "not an item"}})
    assert not delivery.is_valid({k: v for k, v in body.items() if k != "specversion"})
