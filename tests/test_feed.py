"""The live feed as a follower sees it, over a real socket: every stored event once, in order, with
what it caused; resuming with Last-Event-ID misses nothing and repeats nothing; events written by
another process arrive too; an idle feed sends heartbeats."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from itertools import islice

import httpx
import pytest
from support.served import BATTLE, LiveServer, bearer, creation_body, example_events, open_stream, sse_messages

from morale.app.http.server import Settings, create_app
from morale.events.store import SqliteEventStore
from morale.projections.feed import encode_item, feed

EXAMPLE_LAST = len(example_events()) + 9


@pytest.fixture
def server(db):
    with LiveServer(create_app(db, Settings(poll_s=0.05, heartbeat_s=0.3))) as running:
        yield running


@pytest.fixture
def http(server):
    with httpx.Client(base_url=server.url, timeout=20) as client:
        yield client


@pytest.fixture
def tokens(http) -> dict:
    tokens = http.post("/battles", json=creation_body()).json()["tokens"]
    appended = http.post(
        f"/battles/{BATTLE}/events",
        json={"expected_seq": 9, "events": example_events()},
        headers=bearer(tokens["referee"]),
    )
    assert appended.status_code == 201
    return tokens


def events_of(messages):
    """Each item's own message (named by its event's type), not its repeats under outcome kinds."""
    return (m for m in messages if m.data is not None and m.event == m.data["event"]["type"])


def first_events(http, tokens, count: int, **headers: str) -> list:
    with open_stream(http, f"/battles/{BATTLE}/feed", headers=bearer(tokens["spectator"]) | headers) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        return list(islice(events_of(sse_messages(stream.iter_lines())), count))


def test_the_feed_sends_every_stored_event_once_in_order_with_its_seq_as_id(http, tokens, db):
    messages = first_events(http, tokens, EXAMPLE_LAST)
    assert [int(m.id) for m in messages] == list(range(1, EXAMPLE_LAST + 1))
    assert all(m.data["seq"] == int(m.id) for m in messages)
    phase_end = messages[17]
    assert phase_end.data["event"]["type"] == "phase_ended"
    assert {(c["kind"], c["unit"], c["rule"]) for c in phase_end.data["caused"]} >= {
        ("test_due", "nobz", "wh40k6.trigger.casualties"),
        ("test_due", "grots", "wh40k6.trigger.casualties"),
    }


def test_the_feed_says_what_replay_says(http, tokens, db):
    messages = first_events(http, tokens, EXAMPLE_LAST)
    store = SqliteEventStore(db)
    replayed = [json.loads(encode_item(item)) for item in feed(BATTLE, store.read(BATTLE))]
    store.close()
    assert [m.data for m in messages] == replayed


def test_a_follower_that_reconnects_with_last_event_id_misses_nothing_and_sees_nothing_twice(http, tokens):
    before = first_events(http, tokens, 40)
    after = first_events(http, tokens, EXAMPLE_LAST - 40, **{"Last-Event-ID": before[-1].id})
    assert [int(m.id) for m in before + after] == list(range(1, EXAMPLE_LAST + 1))


def test_last_event_id_wins_over_the_after_of_the_url_a_browser_reconnects_to(http, tokens):
    with open_stream(
        http, f"/battles/{BATTLE}/feed?after=10", headers=bearer(tokens["spectator"]) | {"Last-Event-ID": "50"}
    ) as stream:
        first = next(events_of(sse_messages(stream.iter_lines())))
    assert first.id == "51"


def test_a_new_event_reaches_a_follower_with_what_it_caused(http, tokens):
    retraction = {"type": "event_retracted", "seq": EXAMPLE_LAST, "reason": "the last event was typed twice"}
    with open_stream(http, f"/battles/{BATTLE}/feed?after={EXAMPLE_LAST}", headers=bearer(tokens["spectator"])) as s:
        messages = sse_messages(s.iter_lines())
        first = next(messages)
        assert first.data is None and "following" in first.comments  # connected, nothing new yet
        posted = http.post(
            f"/battles/{BATTLE}/events",
            json={"expected_seq": EXAMPLE_LAST, "events": [retraction]},
            headers=bearer(tokens["referee"]),
        )
        assert posted.status_code == 201
        arrived = next(m for m in messages if m.data is not None)
    assert int(arrived.id) == EXAMPLE_LAST + 1
    assert arrived.data["event"] == retraction
    assert arrived.data["caused"] == posted.json()[0]["caused"]
    assert arrived.data["author"]["role"] == "referee" and arrived.data["author"]["via"] == "http"


def test_each_item_of_the_feed_says_who_entered_its_event(http, tokens):
    messages = first_events(http, tokens, EXAMPLE_LAST)
    assert {(m.data["author"]["role"], m.data["author"]["via"]) for m in messages} == {("referee", "http")}
    assert all(tokens["referee"] not in json.dumps(m.data) for m in messages)  # a token's id, never its secret


def test_events_another_process_appends_reach_followers(http, tokens, db):
    ruling = '{"type": "referee_ruled", "unit": "boyz", "reason": "the Warboss rallies them", "state": "steady"}'
    with open_stream(
        http, f"/battles/{BATTLE}/feed.ndjson?after={EXAMPLE_LAST}", headers=bearer(tokens["spectator"])
    ) as stream:
        lines = stream.iter_lines()
        cli = [sys.executable, "-m", "morale.app.cli", "append", BATTLE, "-j", ruling, "--db", str(db)]
        done = subprocess.run(cli, capture_output=True, text=True, timeout=60, env=os.environ.copy())
        assert done.returncode == 0, done.stderr
        arrived = json.loads(next(line for line in lines if line.strip()))
    assert arrived["seq"] == EXAMPLE_LAST + 1
    assert arrived["event"]["type"] == "referee_ruled"
    assert [(c["kind"], c["rule"]) for c in arrived["caused"]][-1] == ("state_changed", "engine.ruling")


def test_an_idle_feed_sends_heartbeats(http, tokens):
    with open_stream(http, f"/battles/{BATTLE}/feed?after={EXAMPLE_LAST}", headers=bearer(tokens["spectator"])) as s:
        beats = [m for m in islice(sse_messages(s.iter_lines()), 3) if "heartbeat" in m.comments]
    assert len(beats) == 2  # after the opening comment: nothing but heartbeats


def test_the_ndjson_feed_follows_and_blank_lines_are_heartbeats(http, tokens):
    with open_stream(
        http, f"/battles/{BATTLE}/feed.ndjson?after={EXAMPLE_LAST - 2}", headers=bearer(tokens["spectator"])
    ) as stream:
        assert stream.headers["content-type"].startswith("application/x-ndjson")
        lines = list(islice(stream.iter_lines(), 3))
    assert [json.loads(line)["seq"] for line in lines[:2]] == [EXAMPLE_LAST - 1, EXAMPLE_LAST]
    assert lines[2] == ""


def test_a_follower_needs_a_token(http, tokens):
    assert http.get(f"/battles/{BATTLE}/feed").status_code == 401
    assert http.get(f"/battles/{BATTLE}/feed?token=wrong").status_code == 401
    with open_stream(http, f"/battles/{BATTLE}/feed?token={tokens['spectator']}") as stream:
        assert stream.status_code == 200


def test_morale_serve_starts_a_server_on_loopback_and_stops_cleanly_keeping_what_it_wrote(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    db = tmp_path / "cli.db"
    command = [sys.executable, "-m", "morale.app.cli", "serve", "--db", str(db), "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
            for _ in range(200):
                try:
                    if client.get("/health").status_code == 200:
                        break
                except httpx.TransportError:
                    if process.poll() is not None:
                        break
                    time.sleep(0.1)
            created = client.post("/battles", json=creation_body())
            assert created.status_code == 201
            assert client.get("/view").headers["content-type"].startswith("text/html")
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    # Asked to stop, it shuts down (uvicorn finishes its shutdown, then, from 0.29, re-raises the
    # SIGTERM it caught; before, it exits 0: a crash would exit 1 with a traceback, a hang would time
    # out above), having said where it served and from which store.
    assert process.returncode in (0, -signal.SIGTERM) and "Traceback" not in output, output
    assert f"Serving a new store {db} on http://127.0.0.1:{port}/" in output
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)  # the port is no longer served
    stored = SqliteEventStore(db)
    try:
        assert stored.battles() == [BATTLE]  # the battle created over HTTP outlives the server
    finally:
        stored.close()
