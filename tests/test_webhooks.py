"""Webhooks, as a league organiser and a bot's author meet them: the referee registers a URL (CLI and
HTTP), every feed item is posted to it as a CloudEvent signed as Standard Webhooks says (verified
here with that project's own package), at least once and in order; a receiver that is down for a
while gets everything when it is back; one that keeps failing is paused with the reason and resumed
by the referee; a server restarted resumes after the last item delivered; and of two PostgreSQL
nodes exactly one delivers, the other taking over when the first is killed mid-delivery."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import psycopg
import pytest
from standardwebhooks import Webhook
from support.cli import morale
from support.nodes import Node, free_port
from support.receiver import WAIT_S, Receiver, once_each
from support.served import BATTLE, ROOT, LiveServer, bearer, creation_body

from morale.app.http.server import Settings, create_app
from morale.app.webhooks import deliver
from morale.app.webhooks.hooks import HOOKS_MAX
from morale.app.webhooks.settings import DeliverySettings
from morale.events.store import SqliteEventStore

MOVEMENT = {"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}
# Quick to retry, slow to give up: a test's receiver is down for a second, not for minutes.
QUICK = DeliverySettings(retry_first_s=0.05, retry_most_s=0.2, attempts=1000, lease_s=1.0, poll_s=0.1)


def casualty(unit: str = "kraak", count: int = 1) -> dict:
    return {"type": "casualties_suffered", "unit": unit, "count": count, "cause": "shooting"}


class Table:
    """A battle served in-process, with its tokens, and what the referee does over HTTP."""

    def __init__(self, url: str, tokens: dict) -> None:
        self.url, self.tokens = url, tokens
        self.referee = bearer(tokens["referee"])

    def post(self, path: str, body: dict, token: str | None = None) -> httpx.Response:
        headers = bearer(token) if token else self.referee
        return httpx.post(f"{self.url}/battles/{BATTLE}{path}", json=body, headers=headers, timeout=WAIT_S)

    def get(self, path: str, token: str | None = None) -> httpx.Response:
        headers = bearer(token) if token else self.referee
        return httpx.get(f"{self.url}/battles/{BATTLE}{path}", headers=headers, timeout=WAIT_S)

    def append(self, *events: dict) -> int:
        last = self.get("/timeline").json()["last"]
        answer = self.post("/events", {"expected_seq": last, "events": list(events)})
        assert answer.status_code == 201, answer.text
        return last + len(events)

    def hook(self, url: str, **fields) -> dict:
        answer = self.post("/hooks", {"url": url, "label": "league table", **fields})
        assert answer.status_code == 201, answer.text
        return answer.json()

    def hooks(self) -> list[dict]:
        return self.get("/hooks").json()

    def wait_for_hook(self, hook: str, done, what: str) -> dict:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            listed = next(h for h in self.hooks() if h["id"] == hook)
            if done(listed):
                return listed
            time.sleep(0.05)
        raise AssertionError(f"webhook {hook} was not {what} in {WAIT_S:.0f} s: {listed}")


@pytest.fixture
def served(tmp_path) -> Iterator[Table]:
    """The example battle on a server delivering quickly, its movement phase started (seq 10)."""
    with LiveServer(create_app(tmp_path / "hooks.db", Settings(webhooks=QUICK))) as server:
        created = httpx.post(f"{server.url}/battles", json=creation_body(), timeout=WAIT_S)
        assert created.status_code == 201, created.text
        table = Table(server.url, created.json()["tokens"])
        table.append(MOVEMENT)
        yield table


def feed_export(table: Table) -> dict[int, dict]:
    answer = table.get("/feed.ndjson?follow=false")
    return {item["seq"]: item for item in map(json.loads, answer.text.splitlines()) if item}


# -- delivery ------------------------------------------------------------------------------------------
def test_a_receiver_down_for_a_while_gets_every_item_once_in_order_signed_when_it_comes_back(served):
    with Receiver() as receiver:  # not started: connections refused
        hook = served.hook(receiver.url)
        assert hook["secret"].startswith("whsec_") and hook["delivered_through"] == 10  # from the next event
        last = served.append(casualty(), casualty("grots", 2), casualty())
        served.wait_for_hook(hook["id"], lambda h: h["failures"] >= 3, "failing")
        receiver.status = 503  # up, but not ready yet
        receiver.start()
        receiver.wait_for_answers(2)
        receiver.status = 200
        last = served.append(casualty("grots"))
        got = receiver.wait_for_seqs(set(range(11, last + 1)))

    kept = once_each(got)  # the receiver drops a repeat by its webhook-id
    assert [r.seq for r in kept] == list(range(11, last + 1))  # every item after the hook began, in order
    feed = feed_export(served)
    # As docs/webhooks.md says, for a receiver without the library: HMAC-SHA256 over ID.TIMESTAMP.BODY,
    # keyed with the base64 after whsec_, decoded.
    first = kept[0]
    signed = f"{first.id}.{first.headers['webhook-timestamp']}.".encode() + first.body
    digest = hmac.new(base64.b64decode(hook["secret"].removeprefix("whsec_")), signed, hashlib.sha256).digest()
    assert first.headers["webhook-signature"] == "v1," + base64.b64encode(digest).decode()
    for received in kept:
        event = received.verified(hook["secret"])  # raises if the signature or its timestamp is wrong
        assert received.headers["content-type"] == "application/cloudevents+json"
        assert received.id == event["id"] == f"{BATTLE}.{received.seq}"
        assert event["specversion"] == "1.0" and event["source"] == f"/battles/{BATTLE}"
        assert event["type"] == f"net.morale.feed.{event['data']['event']['type']}"
        assert event["data"] == feed[received.seq]  # the feed's own item, as a follower gets it
    listed = served.wait_for_hook(hook["id"], lambda h: h["delivered_through"] == last, "delivered")
    assert listed["failures"] == 0 and listed["state"] == "delivering"
    log = served.get(f"/hooks/{hook['id']}/attempts").json()
    answers = [(a["seq"], a["delivered"], a["status"]) for a in log]
    assert answers[0][:2] == (11, False) and answers[0][2] == 0  # refused: no answer at all
    assert (11, False, 503) in answers and answers[-1] == (last, True, 200)
    assert all(a["answer"] for a in log)


def test_a_russian_battles_deliveries_say_their_story_in_russian_with_every_machine_field_as_in_english(tmp_path):
    """A battle whose roster says `language = "ru"` (issue 31): a receiver asks for no language, so
    each delivery's words are the battle's, as a follower who asks none reads them."""
    body = creation_body()
    body["started"]["language"] = "ru"
    with LiveServer(create_app(tmp_path / "hooks.db", Settings(webhooks=QUICK))) as server, Receiver() as receiver:
        created = httpx.post(f"{server.url}/battles", json=body, timeout=WAIT_S)
        table = Table(server.url, created.json()["tokens"])
        table.append(MOVEMENT)
        receiver.start()
        hook = table.hook(receiver.url)
        last = table.append(casualty("kraak", 3))
        (got,) = once_each(receiver.wait_for_seqs({last}))
        english = table.get(f"/feed.ndjson?follow=false&after={last - 1}&lang=en").text
    data = got.verified(hook["secret"])["data"]
    item = json.loads(english)
    story, english_story = [line["text"] for line in data["story"]], [line["text"] for line in item["story"]]
    assert story != english_story and any("модел" in line for line in story)  # "3 модели", not "3 models"
    assert {k: v for k, v in data.items() if k != "story"}.keys() == {k for k in item if k != "story"}
    assert data["event"] == item["event"] and data["caused"] == item["caused"]


def test_a_hook_for_some_kinds_gets_only_items_of_those_kinds(served):
    with Receiver() as receiver:
        receiver.start()
        hook = served.hook(receiver.url, kinds=["test_due"])
        served.append(casualty(count=3))  # Kraak loses 3 of 10: a test falls due when the phase ends
        ended = served.post("/next-phase", {"expected_seq": 11})
        assert ended.status_code == 201, ended.text
        (received,) = receiver.wait_for_seqs({12})
        time.sleep(0.3)  # the casualty (11) is not of the kind: nothing else comes
        assert [r.seq for r in receiver.got] == [12]
        kinds = [outcome["kind"] for outcome in received.verified(hook["secret"])["data"]["caused"]]
        assert "test_due" in kinds


def test_a_receiver_that_keeps_failing_is_paused_with_the_reason_and_resumed_by_the_referee(tmp_path):
    settings = Settings(webhooks=DeliverySettings(retry_first_s=0.02, retry_most_s=0.05, attempts=3, lease_s=1.0))
    db = tmp_path / "hooks.db"
    with LiveServer(create_app(db, settings)) as server, Receiver() as receiver:
        created = httpx.post(f"{server.url}/battles", json=creation_body(), timeout=WAIT_S).json()
        table = Table(server.url, created["tokens"])
        receiver.status = 500
        receiver.start()
        hook = table.hook(receiver.url)
        table.append(MOVEMENT)
        paused = table.wait_for_hook(hook["id"], lambda h: h["state"] == "paused", "paused")
        assert paused["paused_because"] == "3 attempts in a row failed at event 10; the last: HTTP 500"
        assert receiver.answered == [500, 500, 500]  # never retried for ever
        listed = morale(db, "hook", "list", BATTLE)
        reason = "3 attempts in a row failed at event 10; the last: HTTP 500"
        assert f"Paused: {reason}. `morale hook resume {BATTLE} {hook['id']}` resumes it." in listed.output

        receiver.status = 200
        resumed = table.post(f"/hooks/{hook['id']}/resume", {})
        assert resumed.status_code == 200 and resumed.json()["state"] == "delivering", resumed.text
        assert [r.seq for r in receiver.wait_for_seqs({10})] == [10]  # from where it stopped
        table.wait_for_hook(hook["id"], lambda h: h["state"] == "delivering" and h["failures"] == 0, "delivering")
        again = table.post(f"/hooks/{hook['id']}/resume", {})
        assert again.status_code == 422 and again.json()["field"] == "hook"  # neither paused nor retrying


def test_a_hook_retrying_says_so_with_the_receivers_answer_and_the_referee_has_it_try_again_at_once(tmp_path):
    patient = DeliverySettings(retry_first_s=60, retry_most_s=60, attempts=10, lease_s=1.0, poll_s=0.1)
    db = tmp_path / "hooks.db"
    with LiveServer(create_app(db, Settings(webhooks=patient))) as server, Receiver() as receiver:
        created = httpx.post(f"{server.url}/battles", json=creation_body(), timeout=WAIT_S).json()
        table = Table(server.url, created["tokens"])
        receiver.status, receiver.answer = 500, b"invalid signature\n(check the secret)"
        receiver.start()
        hook = table.hook(receiver.url)
        table.append(MOVEMENT)
        retrying = table.wait_for_hook(hook["id"], lambda h: h["state"] == "retrying", "retrying")
        assert retrying["last_attempt"]["answer"] == "HTTP 500: invalid signature (check the secret)"
        listed = morale(db, "hook", "list", BATTLE).output
        said = "Retrying event 10: one attempt has failed: HTTP 500: invalid signature (check the secret)."
        assert said in listed and f"`morale hook resume {BATTLE} {hook['id']}` has it try again at once." in listed
        receiver.status = 204
        started = time.monotonic()
        assert table.post(f"/hooks/{hook['id']}/resume", {}).status_code == 200
        receiver.wait_for_seqs({10})
        assert time.monotonic() - started < 30  # not the minute's wait the failure began


def test_a_receiver_that_answers_410_gone_is_paused_at_once(served):
    with Receiver() as receiver:
        receiver.status = 410
        receiver.start()
        hook = served.hook(receiver.url)
        served.append(casualty())
        paused = served.wait_for_hook(hook["id"], lambda h: h["state"] == "paused", "paused")
        assert paused["paused_because"] == "the receiver answered 410 Gone at event 11"
        assert receiver.answered == [410]


def test_a_server_restarted_resumes_after_the_last_item_delivered(tmp_path, monkeypatch):
    monkeypatch.setattr(deliver, "READ_AT_ONCE", 4)  # the battle so far read a few items at a time
    db = tmp_path / "hooks.db"
    with Receiver() as receiver:
        receiver.start()
        with LiveServer(create_app(db, Settings(webhooks=QUICK))) as server:
            created = httpx.post(f"{server.url}/battles", json=creation_body(), timeout=WAIT_S).json()
            table = Table(server.url, created["tokens"])
            hook = table.hook(receiver.url, after=0)  # the whole battle, from its first event
            receiver.wait_for_seqs(set(range(1, 10)))
        # While no server runs, the referee goes on at the command line.
        assert morale(db, "next-phase", BATTLE).exit_code == 0
        assert morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=1").exit_code == 0
        with LiveServer(create_app(db, Settings(webhooks=QUICK))):
            got = receiver.wait_for_seqs(set(range(1, 12)))
    assert [r.seq for r in got] == list(range(1, 12))  # each once: the first server had kept how far it got
    assert all(r.verified(hook["secret"]) for r in got)


def test_appends_at_the_command_line_beside_a_running_server_are_delivered(tmp_path, served):
    # The CLI on the same SQLite file: the deliverer looks for other processes' appends as followers do.
    with Receiver() as receiver:
        receiver.start()
        served.hook(receiver.url)
        db = next(tmp_path.glob("hooks.db"))
        assert morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=1").exit_code == 0
        assert [r.seq for r in receiver.wait_for_seqs({11})] == [11]


# -- the referee's operations, and what is refused ----------------------------------------------------
def test_only_the_referee_sees_or_changes_hooks_and_the_secret_is_shown_once(served):
    hook = served.hook("https://bot.example/morale", kinds=["test_resolved"])
    listed = served.hooks()
    assert [h["id"] for h in listed] == [hook["id"]] and "secret" not in json.dumps(listed)
    assert hook["secret"] not in served.get(f"/hooks/{hook['id']}/attempts").text
    for role in ("imperium", "spectator"):
        token = served.tokens["players"][role] if role == "imperium" else served.tokens["spectator"]
        for answer in (
            served.get("/hooks", token),
            served.post("/hooks", {"url": "https://evil.example", "label": "x"}, token),
            served.post(f"/hooks/{hook['id']}/resume", {}, token),
        ):
            assert answer.status_code == 403, answer.text
    assert served.hooks() == listed


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"url": "ftp://bot.example/in"}, "url", "not an http or https URL"),
        ({"url": "https://anna:pw@bot.example/in"}, "url", "may not hold a user or password"),
        ({"url": "https://bot.example:99999/in"}, "url", "a port is 1 to 65535"),
        ({"url": "https://bot.example/in", "kinds": ["test_resolvd"]}, "kinds", "'test_resolvd' is not a kind"),
        ({"url": "https://bot.example/in#bot", "label": "bot"}, "url", "has no #fragment"),
        ({"url": "https://bot.example/in", "label": " "}, "label", "to tell this webhook from the others"),
        ({"url": "https://bot.example/in", "after": 99}, "after", "the log holds events 1 to 10"),
    ],
)
def test_a_hook_the_server_cannot_deliver_is_refused_naming_the_field_and_nothing_is_kept(served, body, field, words):
    answer = served.post("/hooks", {"label": "bot"} | body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["field"] == field and words in answer.json()["detail"]
    assert served.hooks() == []


def test_a_battle_keeps_at_most_so_many_hooks_and_an_unknown_one_is_404(served):
    for n in range(HOOKS_MAX):
        served.hook(f"https://bot.example/{n}")
    refused = served.post("/hooks", {"url": "https://bot.example/more", "label": "bot"})
    assert refused.status_code == 422 and f"at most {HOOKS_MAX} webhooks" in refused.json()["detail"]
    for answer in (
        served.get("/hooks/hknothere/attempts"),
        served.post("/hooks/hknothere/resume", {}),
        httpx.delete(f"{served.url}/battles/{BATTLE}/hooks/hknothere", headers=served.referee),
    ):
        assert answer.status_code == 404 and answer.json()["field"] == "hook", answer.text
    first = served.hooks()[0]["id"]
    removed = httpx.delete(f"{served.url}/battles/{BATTLE}/hooks/{first}", headers=served.referee)
    assert removed.status_code == 204 and len(served.hooks()) == HOOKS_MAX - 1


def test_the_cli_registers_lists_and_removes_a_hook_and_refuses_bad_input_with_exit_2(tmp_path):
    db = tmp_path / "cli.db"
    assert morale(db, "new", "examples/wh40k6/roster.toml").exit_code == 0
    added = morale(
        db, "hook", "add", BATTLE, "https://bot.example/in", "--label", "Discord bot", "--kind", "test_resolved"
    )
    assert added.exit_code == 0, added.output
    lines = added.output.splitlines()
    assert lines[0].startswith("Webhook hk") and lines[0].endswith(
        f"posts {BATTLE}'s items of these kinds to https://bot.example/in: test_resolved."
    )
    secret = lines[-1]
    assert secret.startswith("whsec_")
    hook_id = lines[0].split()[1]
    listed = morale(db, "hook", "list", BATTLE)
    assert hook_id in listed.output and "Delivered through event 9." in listed.output and secret not in listed.output
    assert morale(db, "hook", "log", BATTLE, hook_id).output == f"Webhook {hook_id} has made no attempt yet.\n"
    for args, words in [
        (("add", BATTLE, "not a url", "--label", "x"), "refused: url:"),
        (("add", BATTLE, "https://bot.example", "--label", "x", "--kind", "nope"), "refused: kinds:"),
        (("add", "nowhere", "https://bot.example", "--label", "x"), "refused: battle:"),
        (("log", BATTLE, "hkmissing"), "has no webhook with id 'hkmissing'"),
        (("resume", BATTLE, hook_id), "is delivering: it is neither paused nor retrying"),
        (("remove", BATTLE, "hkmissing"), "has no webhook with id 'hkmissing'"),
    ]:
        refused = morale(db, "hook", *args)
        assert refused.exit_code == 2 and words in refused.output, (args, refused.output)
    assert [h.hook_id for h in SqliteEventStore(db).hooks()] == [hook_id]  # nothing kept, nothing lost
    removed = morale(db, "hook", "remove", BATTLE, hook_id)
    assert removed.exit_code == 0 and "is removed" in removed.output
    assert SqliteEventStore(db).hooks() == []


# -- several PostgreSQL nodes --------------------------------------------------------------------------
def _holder(pg_url: str) -> str:
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT holder FROM leases WHERE name = 'webhooks' AND expires > now()").fetchone()
    return row[0] if row else ""


def test_of_two_nodes_one_delivers_and_the_other_takes_over_when_it_is_killed_mid_delivery(pg_url, tmp_path):
    quick = ("--webhook-lease", "2", "--webhook-retry", "0.05")
    with (
        Receiver() as receiver,
        Node(pg_url, tmp_path / "a.log", *quick) as a,
        Node(pg_url, tmp_path / "b.log", *quick) as b,
    ):
        receiver.delay_s = 0.3  # a slow receiver: a node is killed while it waits for an answer
        receiver.start()
        created = httpx.post(f"{a.url}/battles", json=creation_body(), timeout=WAIT_S)
        table = Table(a.url, created.json()["tokens"])
        hook = table.hook(receiver.url, after=0)
        receiver.wait_for_seqs({1, 2, 3})
        ids = [r.id for r in receiver.got]
        assert len(ids) == len(set(ids))  # one node delivers, not both
        holder = _holder(pg_url)
        leader, other = (a, b) if f":{a.process.pid}:" in holder else (b, a)
        assert f":{leader.process.pid}:" in holder, holder
        leader.kill()
        table = Table(other.url, created.json()["tokens"])
        last = table.append(MOVEMENT, casualty())
        got = receiver.wait_for_seqs(set(range(1, last + 1)))
        assert f":{other.process.pid}:" in _holder(pg_url)
    kept = once_each(got)
    assert [r.seq for r in kept] == list(range(1, last + 1))  # nothing lost, in order
    assert len(got) - len(kept) <= 1  # at most the item in flight when the node died came twice
    assert all(r.verified(hook["secret"]) for r in kept)


# -- the example receiver on docs/webhooks.md -------------------------------------------------------------
def test_the_example_chat_receiver_posts_each_story_once_and_refuses_a_forged_delivery(tmp_path):
    secret = "whsec_" + base64.b64encode(b"k" * 24).decode()
    port = free_port()
    with Receiver() as chat:  # stands in for a chat's incoming webhook
        chat.start()
        receiver = subprocess.Popen(
            [sys.executable, str(ROOT / "examples" / "webhooks" / "chat.py"), str(port), chat.url],
            env={**os.environ, "MORALE_HOOK_SECRET": secret},
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert receiver.stdout.readline().startswith("listening on")
            event = {
                "id": f"{BATTLE}.12",
                "data": {"seq": 12, "story": [{"kind": "event", "text": "Kraak falls back."}]},
            }
            body = json.dumps(event)
            now = datetime.now(UTC)
            signed = {"webhook-id": event["id"], "webhook-timestamp": str(int(now.timestamp()))}
            signed["webhook-signature"] = Webhook(secret).sign(event["id"], now, body)
            url = f"http://127.0.0.1:{port}/"
            chat.status = 500  # the chat fails: the item is not had, and morale will send it again
            assert httpx.post(url, content=body, headers=signed).status_code == 502
            chat.status = 204
            assert [httpx.post(url, content=body, headers=signed).status_code for _ in range(2)] == [204, 204]
            forged = signed | {"webhook-signature": Webhook("whsec_" + "A" * 32).sign(event["id"], now, body)}
            assert httpx.post(url, content=body, headers=forged).status_code == 401
            assert receiver.stdout.readline() == "Kraak falls back.\n"
        finally:
            receiver.terminate()
            receiver.wait(WAIT_S)
    assert [json.loads(r.body) for r in chat.got] == [{"content": "Kraak falls back.", "text": "Kraak falls back."}]
