"""A catalogue of hostile input, over the CLI and HTTP: malformed encodings, nesting, sizes, types,
ranges, unknown names, an out-of-order clock, stale preconditions, roles and tokens.

Each case is refused the way every refusal is: one line on stderr and exit code 2 from `morale`, a
4xx problem (RFC 9457) naming the field or rule over HTTP, and the store exactly as it was (every
table, dumped before and after). The cases run in process (CliRunner, Litestar's TestClient) on a
copy of one store holding the example battle, so the catalogue stays quick.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from support.cli import morale
from support.served import BATTLE, EXAMPLE_EVENTS, ROSTER, bearer

from morale.app.access import issue_tokens
from morale.app.http.server import Settings, create_app
from morale.events.store import SqliteEventStore

EVENTS = 9 + len([line for line in EXAMPLE_EVENTS.read_text().splitlines() if line.strip()])


# -- the store every case starts from ------------------------------------------------------------------
@dataclass(frozen=True)
class Template:
    db: Path
    tokens: dict[str, str]  # referee, spectator and each side's player


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    """The example battle played to its end, with a token for every role."""
    db = tmp_path_factory.mktemp("template") / "battles.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    assert morale(db, "append", BATTLE, "--file", str(EXAMPLE_EVENTS)).exit_code == 0
    store = SqliteEventStore(db)
    issued = issue_tokens(store, BATTLE, ("imperium", "orks"))
    store.close()
    tokens = {"referee": issued.referee, "spectator": issued.spectator, **issued.players}
    return Template(db, tokens)


@pytest.fixture
def db(template: Template, tmp_path: Path) -> Path:
    """A copy of the template store for one case (SQLite's backup: the WAL's pages included)."""
    copy = tmp_path / "battles.db"
    with closing(sqlite3.connect(template.db)) as source, closing(sqlite3.connect(copy)) as target:
        source.backup(target)
    return copy


def dump(db: Path) -> list[str]:
    """Everything the store holds, table by table: what must not change when input is refused."""
    with closing(sqlite3.connect(db)) as connection:
        return list(connection.iterdump())


# -- the CLI -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cli:
    """`morale ARGS --db DB`: `{dir}` in an argument is the case's folder, where `files` are written
    first; `stdin` is standard input. The refusal must contain `says`."""

    name: str
    args: list[str]
    says: str
    files: dict[str, bytes] = field(default_factory=dict)
    stdin: bytes | None = None


CLI_CASES = [
    # points and sequence numbers: only ASCII digits are numbers ('¹'.isdigit() is True; int('¹') fails)
    Cli("superscript point", ["at", BATTLE, "¹"], "point: '¹': write N, start, end"),
    Cli("superscript diff point", ["diff", BATTLE, "¹"], "point: '¹': write N"),
    Cli("superscript turn", ["at", BATTLE, "end:¹"], "point: 'end:¹': the turn must be a number"),
    Cli("superscript amend seq", ["what-if", BATTLE, "--amend", '¹={"count": 1}'], "--amend '¹="),
    Cli("a point of 5000 digits", ["at", BATTLE, "1" * 5000], "point: '11111"),
]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.name for c in CLI_CASES])
def test_the_cli_refuses_hostile_input_in_one_line_and_writes_nothing(case: Cli, db: Path, tmp_path: Path):
    for name, data in case.files.items():
        (tmp_path / name).write_bytes(data)
    args = [arg.replace("{dir}", str(tmp_path)) for arg in case.args]
    before = dump(db)
    result = morale(db, *args, input=case.stdin)  # type: ignore[arg-type]
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("refused: ") and result.stderr.count("\n") == 1, result.stderr
    assert case.says in result.stderr
    assert dump(db) == before


# -- HTTP ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Http:
    """A request as `role` (a token of the template battle, `None` for none, or a literal `token`).
    The answer must be `status` as a problem naming `field` or `rule` where given, and containing
    `says` in its detail."""

    name: str
    method: str
    path: str
    status: int
    role: str | None = "referee"
    body: bytes | None = None
    headers: dict[str, bytes] = field(default_factory=dict)
    says: str = ""
    field: str | None = None
    rule: str | None = None


HTTP_CASES = [
    Http("superscript at", "GET", f"/battles/{BATTLE}/board?at=%C2%B9", 422, field="point", says="write N"),
    Http("superscript due at", "GET", f"/battles/{BATTLE}/due?at=%C2%B9", 422, field="point"),
    Http("superscript explain at", "GET", f"/battles/{BATTLE}/explain/kraak?at=%C2%B9", 422, field="point"),
    Http("superscript diff before", "GET", f"/battles/{BATTLE}/diff?before=%C2%B9", 422, field="point"),
    Http("an at of 5000 digits", "GET", f"/battles/{BATTLE}/board?at={'1' * 5000}", 422, field="point"),
    Http(
        "superscript Last-Event-ID",
        "GET",
        f"/battles/{BATTLE}/feed.ndjson?follow=false",
        422,
        headers={"Last-Event-ID": "¹".encode()},
        field="Last-Event-ID",
    ),
    Http(
        "Last-Event-ID in Latin-1",
        "GET",
        f"/battles/{BATTLE}/feed.ndjson?follow=false",
        422,
        headers={"Last-Event-ID": b"\xb9"},
        field="Last-Event-ID",
    ),
    Http(
        "a Last-Event-ID of 5000 digits",
        "GET",
        f"/battles/{BATTLE}/feed.ndjson?follow=false",
        422,
        headers={"Last-Event-ID": b"7" * 5000},
        field="Last-Event-ID",
    ),
]


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db, Settings())) as opened:
        yield opened


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def send_raw(app: Litestar, method: str, target: str, headers: dict[str, bytes], body: bytes) -> Answer:
    """One request straight to the ASGI app, its header bytes exactly as given: an HTTP client
    would re-encode them (a Latin-1 '¹' reaches the server as UTF-8), and a server must take what
    any client sends."""
    path, _, query = target.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(path),
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(name.lower().encode(), value) for name, value in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    incoming = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict] = []

    async def receive() -> dict:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    start = next(m for m in sent if m["type"] == "http.response.start")
    head = {name.decode("latin-1"): value.decode("latin-1") for name, value in start["headers"]}
    return Answer(
        start["status"], head, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    )


def problem_of(answer: Answer) -> dict:
    body = answer.json()
    return body.get("extra", body) | {"detail": body["detail"]}  # the shape before RFC 9457


@pytest.mark.parametrize("case", HTTP_CASES, ids=[c.name for c in HTTP_CASES])
def test_http_refuses_hostile_input_with_a_4xx_naming_the_field_and_writes_nothing(
    case: Http, template: Template, db: Path
):
    headers = dict(case.headers)
    if case.role is not None:
        headers["Authorization"] = b"Bearer " + template.tokens.get(case.role, case.role).encode()
    if case.body is not None:
        headers["Content-Type"] = b"application/json"
    before = dump(db)
    answer = send_raw(create_app(db, Settings()), case.method, case.path, headers, case.body or b"")
    assert answer.status == case.status, answer.body
    problem = problem_of(answer)
    if case.field is not None:
        assert problem.get("field") == case.field, problem
    if case.rule is not None:
        assert problem.get("rule") == case.rule, problem
    assert case.says in problem["detail"]
    assert dump(db) == before


def test_a_refusal_over_http_is_the_same_for_every_role_that_may_read(client: TestClient, template: Template):
    # The same bad point is refused alike whoever asks: the token only decides who may ask.
    for role in ("referee", "spectator", "orks"):
        answer = client.get(f"/battles/{BATTLE}/board?at=%C2%B9", headers=bearer(template.tokens[role]))
        assert answer.status_code == 422, role
