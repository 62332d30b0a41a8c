"""Every refusal over HTTP in one shape: RFC 9457 problem details, `application/problem+json`.

`type` says what kind of problem it is (a client tells them apart by it, never by the words),
`title` says that kind in words, `status` is the HTTP status and `detail` this occurrence, the same
line the CLI prints. Where known, `field` names the field refused ("events[0].dice[1]", "point"),
`rule` the rule ID that refused it, and a 409 gives the `expected_seq` the client sent and the
`actual_seq` the log ends at. The OpenAPI document declares this shape on every operation for each
status it can answer with (`responses`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from http import HTTPStatus
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi import ResponseSpec
from msgspec import UNSET, UnsetType

from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.codec import MalformedEvent
from morale.events.signing import SigningKeyUnusable
from morale.events.store import ConflictError, StoreUnavailable, TokenRevoked, UnknownBattle

from ..access import Forbidden, UnknownToken
from ..battlescribe import Unanswered
from ..language import refusal_line, say
from ..webhooks.unknown import UnknownHook

MEDIA_TYPE = "application/problem+json"
_PREFIX = "urn:morale:problem:"

# The kinds of problem morale answers with, by status: (type, title).
# The type is for programs and never changes with the language; the title is said in the request's.
KINDS: dict[int, tuple[str, str]] = {
    400: (f"{_PREFIX}malformed", Words("The input is malformed")),
    401: (f"{_PREFIX}token", Words("A token of this battle is needed")),
    403: (f"{_PREFIX}forbidden", Words("This token's role may not do that")),
    404: ("about:blank", Words("Not Found")),
    405: ("about:blank", Words("Method Not Allowed")),
    409: (f"{_PREFIX}conflict", Words("The log has moved on since the client read it")),
    413: (f"{_PREFIX}too-large", Words("The request body is too large")),
    422: (f"{_PREFIX}refused", Words("The rules refuse it")),
    500: ("about:blank", Words("Internal Server Error")),
    503: (f"{_PREFIX}unavailable", Words("The store does not answer now")),
}


class OpenQuestion(msgspec.Struct, frozen=True, kw_only=True):
    """What a list builder's roster leaves to answer (`app/battlescribe/mapping.py`): `key` as an
    answers file spells it, what it `asks` in words, the `kind` of value and any `choices`."""

    key: str  # unit."Ork Boyz".ld, rules."Mob Rule", force."Orks".side, battle.id
    section: str  # battle, force, unit, rules
    name: str  # the force's, unit's or rule's name; "" for the battle
    item: str  # id, ruleset, side, type, models, ld, initiative; "" for a rule
    kind: str  # int, rule (an id, or false) or text
    asks: str
    choices: list[str] = []
    units: list[str] = []  # a rule's question: the units that have it


UNANSWERED = (f"{_PREFIX}unanswered", Words("The roster leaves questions to answer"))


class Problem(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 9457 problem details, as morale sends every refusal."""

    type: str  # urn:morale:problem:malformed, token, forbidden, conflict, too-large, refused, unavailable, ...
    title: str
    status: int
    detail: str
    # Present where known, never null (UNSET: left out of the JSON and not required by the schema).
    field: str | UnsetType = UNSET  # the field refused, as a path: "events[0].dice[1]", "point", "Last-Event-ID"
    rule: str | UnsetType = UNSET  # the rule ID that refused it (engine.clock.order, wh40k6.fall_back.edge...)
    expected_seq: int | UnsetType = UNSET  # 409: the sequence number the client expected the log to end at
    actual_seq: int | UnsetType = UNSET  # 409: the one it ends at
    # 422 unanswered: what a list builder's roster leaves open, to answer and send again
    questions: list[OpenQuestion] | UnsetType = UNSET


def problem(
    status: int,
    detail: str,
    headers: Mapping[str, str] | None = None,
    kind_of: tuple[str, str] | None = None,
    **extension: Any,
) -> Response:
    kind, title = kind_of or KINDS.get(status, ("about:blank", _phrase(status)))
    found = {name: value for name, value in extension.items() if value is not None}
    body = Problem(type=kind, title=say(title), status=status, detail=say(detail), **found)
    return Response(body, status_code=status, media_type=MEDIA_TYPE, headers=dict(headers or {}))


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def _http_problem(request: Request, exc: HTTPException) -> Response:
    """Litestar's own refusals (an unknown path, a method not allowed, a body over the limit, a
    query parameter of the wrong type) and the guards' (401, 403), in the one shape."""
    if isinstance(exc, ValidationException):
        return _invalid_parameter(exc)
    if exc.status_code == HTTPStatus.REQUEST_ENTITY_TOO_LARGE:  # refused unread: say the limit, not "Too Large"
        limit = request.app.state.settings.max_body_bytes
        return problem(
            413, Words("the body is larger than the {limit:,} bytes this server reads (its --max-body)", limit=limit)
        )
    return problem(exc.status_code, exc.detail, exc.headers)


def _invalid_parameter(exc: ValidationException) -> Response:
    # Litestar's detail names the whole URL ("Validation failed for GET /battles/...?after=-1");
    # the first invalid parameter, named and in words, is what the client needs.
    found = exc.extra[0] if isinstance(exc.extra, list) and exc.extra and isinstance(exc.extra[0], dict) else {}
    name = found.get("key")
    message = re.sub(r"Expected `int(?: \| null)?`", "expected a whole number", str(found.get("message", "not valid")))
    message = re.sub(r"Expected `bool(?: \| null)?`", "expected true or false", message)
    message = re.sub(r", got `\w+`$", "", message)  # the Python type of what was sent says nothing to a client
    return problem(400, f"{name}: {message}" if name else message, field=name)


def _server_error(_: Request, exc: Exception) -> Response:
    # The traceback goes to the server's log (server.log_unexpected), never to the client.
    return problem(500, Words("the server failed on this request; its log says why"))


def _revoked(request: Request, exc: TokenRevoked) -> Response:
    """A token revoked after the node last saw it open the battle, found so by the write itself
    (`grants.py`): nothing was written, and the node forgets the grant it remembered."""
    request.app.state.grants.forget(exc.battle, request.state.opened.token_hash)
    return problem(401, _message(exc), {"WWW-Authenticate": "Bearer"})


def _unanswered(_: Request, exc: Unanswered) -> Response:
    questions = [
        OpenQuestion(
            key=q.key,
            section=q.section,
            name=q.name,
            item=q.item,
            kind=q.kind,
            asks=q.asks,
            choices=list(q.choices),
            units=list(q.units),
        )
        for q in exc.questions
    ]
    return problem(422, _message(exc), kind_of=UNANSWERED, field=exc.field, questions=questions)


def _message(exc: BaseException) -> str:
    """What an exception says: its `Words` where it was raised with them, to be said in the
    request's language (`str(exc)` would be their English), else its text."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Words) else str(exc)


def _forbidden(exc: Forbidden) -> str:
    """A role's refusal: the field it names (never translated), then its words."""
    return f"{exc.field}: {say(exc.message)}" if exc.field else exc.message


EXCEPTION_HANDLERS: dict[type[Exception] | int, Callable[[Request, Any], Response]] = {
    Unanswered: _unanswered,
    Refusal: lambda _, exc: problem(422, refusal_line(exc), rule=exc.rule, field=exc.field),
    MalformedEvent: lambda _, exc: problem(400, _message(exc), field=exc.field),
    ConflictError: lambda _, exc: problem(
        409, _message(exc), field=exc.field, expected_seq=exc.expected_seq, actual_seq=exc.actual_seq
    ),
    UnknownBattle: lambda _, exc: problem(404, _message(exc), field="battle"),
    UnknownToken: lambda _, exc: problem(404, _message(exc), field="token_id"),
    UnknownHook: lambda _, exc: problem(404, _message(exc), field="hook"),
    Forbidden: lambda _, exc: problem(403, _forbidden(exc), field=exc.field),
    TokenRevoked: _revoked,
    # The database went away mid-request (PostgreSQL restarting): the client may try again.
    StoreUnavailable: lambda _, exc: problem(503, _message(exc)),
    # The store's key file is unusable (loose permissions...): the server's to fix, not the client's.
    SigningKeyUnusable: lambda _, exc: problem(
        503,
        Words(
            "the server cannot sign: its signing key is unusable (`morale key show` there says why);"
            " nothing was written"
        ),
    ),
    HTTPException: _http_problem,
    500: _server_error,
}

# What each status means on an operation, for the OpenAPI document.
_DESCRIPTIONS = {
    400: "Malformed: not UTF-8, not JSON (the line and column), or a field beyond its limits (`field`)",
    401: "No token, or one that does not open this battle (an unknown battle answers the same)",
    403: "The token's role may not do this (`field` names what it may not touch)",
    404: "No such battle (`field`: battle), or no token (`field`: token_id) or webhook (`field`: hook) of the battle"
    " with that id",
    409: "The log no longer ends at `expected_seq` (`actual_seq` says where it ends); nothing was written",
    413: "The body is larger than the server's --max-body",
    422: "The rules refuse it: `rule` names the rule ID, or `field` the field; or (type unanswered) a list"
    " builder's roster leaves `questions` to answer",
    503: "The store (a PostgreSQL server) does not answer now; nothing was written, try again",
}


def problem_responses(*statuses: int) -> dict[int, ResponseSpec]:
    """The problems an operation can answer with, each in the one shape, for its OpenAPI entry."""
    return {
        status: ResponseSpec(
            data_container=Problem, media_type=MEDIA_TYPE, description=_DESCRIPTIONS[status], generate_examples=False
        )
        for status in statuses
    }
