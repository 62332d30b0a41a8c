"""Test tools for `morale serve`: the example battle as HTTP bodies, and a real server on loopback."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import uvicorn
from litestar import Litestar

from morale.app.roster import load_roster
from morale.events.codec import to_builtins

ROOT = Path(__file__).resolve().parents[2]  # the repository: tests/support/served.py
ROSTER = ROOT / "examples" / "wh40k6" / "roster.toml"
EXAMPLE_EVENTS = ROOT / "examples" / "wh40k6" / "battle.ndjson"
BATTLE = "hive-tarsis"
WAIT_S = 20.0  # the most any test waits for something it expects; never a reason to pass


def creation_body(dice: str = "table") -> dict:
    roster = load_roster(ROSTER)
    started = to_builtins(roster.started) | {"dice_policy": dice}
    return {"battle": roster.battle, "started": started, "units": [to_builtins(u) for u in roster.units]}


def roster_body(example: str, dice: str | None = None) -> dict:
    """The creation body of a shipped example (`examples/EXAMPLE/roster.toml`), dice policy changed if given."""
    roster = load_roster(ROOT / "examples" / example / "roster.toml")
    started = to_builtins(roster.started) | ({"dice_policy": dice} if dice else {})
    return {"battle": roster.battle, "started": started, "units": [to_builtins(u) for u in roster.units]}


def example_lines(example: str) -> list[dict]:
    """A shipped example's events (`examples/EXAMPLE/battle.ndjson`) as JSON objects."""
    text = (ROOT / "examples" / example / "battle.ndjson").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def refusal(answer: httpx.Response) -> dict:
    """What a refusal names (detail, rule, field, expected_seq, actual_seq), read from either error
    body the server may give: RFC 9457 problem details, or {status_code, detail, extra}."""
    body = answer.json()
    extra = body.get("extra") or {}
    return {key: body.get(key, extra.get(key)) for key in ("detail", "rule", "field", "expected_seq", "actual_seq")}


def example_events(count: int | None = None) -> list[dict]:
    lines = [json.loads(line) for line in EXAMPLE_EVENTS.read_text().splitlines() if line.strip()]
    return lines if count is None else lines[:count]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class LiveServer:
    """uvicorn serving `app` on 127.0.0.1 in a thread, on a port the OS picks (or `port`: a server
    started again where its clients look for it)."""

    def __init__(self, app: Litestar, port: int = 0) -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + WAIT_S
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *_: object) -> None:
        self.server.should_exit = True
        self.thread.join(WAIT_S)


class SseMessage:
    def __init__(self, fields: dict[str, str], comments: list[str]) -> None:
        self.id = fields.get("id")
        self.event = fields.get("event", "message")  # a browser's default type for a message not named
        self.data = json.loads(fields["data"]) if "data" in fields else None
        self.comments = comments


def sse_messages(lines: Iterator[str]) -> Iterator[SseMessage]:
    """Parse a text/event-stream as a browser does: fields until a blank line; ':' starts a comment."""
    fields: dict[str, str] = {}
    comments: list[str] = []
    for line in lines:
        if line == "":
            if fields or comments:
                yield SseMessage(fields, comments)
            fields, comments = {}, []
        elif line.startswith(":"):
            comments.append(line[1:].strip())
        else:
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value


def open_stream(client: httpx.Client, url: str, **kwargs):
    return client.stream("GET", url, timeout=httpx.Timeout(WAIT_S), **kwargs)
