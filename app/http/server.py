"""`morale serve`: the battles of one store over HTTP, for other UIs and for the referee's console.

A thin shell: every handler checks who is calling, then calls the service or a projection, exactly
as the CLI does. Reads and writes need a battle's token (`Authorization: Bearer TOKEN`, or
`?token=` where a header cannot be set, as with a browser's EventSource). Refusals come back as
RFC 9457 problem details with the field or rule ID (problems.py), and nothing is written.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Annotated, Any

import msgspec
from litestar import Litestar, Request, get, post
from litestar.connection import ASGIConnection
from litestar.datastructures import MutableScopeHeaders, State
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler
from litestar.logging import LoggingConfig
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import RedocRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import File, Redirect, Response
from litestar.static_files import create_static_files_router
from litestar.types import AnyCallable, ASGIApp, Message, Receive, Scope, Send
from msgspec import Meta

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.codec import MalformedEvent
from morale.events.numbers import LAST_SEQ, whole_number
from morale.events.store import EventStore
from morale.events.types import AnyEvent, Author, BattleId, BattleStarted, Name, Slug, UnitJoined, Via
from morale.projections.board import Board, board
from morale.projections.claims import ClaimsView, claims_view
from morale.projections.due import DueView, due_tests
from morale.projections.explain import Explanation, explain
from morale.projections.feed import FeedItem, feed_item, feed_schema
from morale.projections.log import LogRow, log_rows
from morale.projections.timeline import Diff, Mark, Timeline, marks
from morale.projections.vocabulary import RulesetListed, Vocabulary, listed, vocabulary_of

from .. import language
from ..access import (
    Grant,
    IssuedTokens,
    Visible,
    check_may_append,
    check_own_unit,
    issue_tokens,
    note_use,
    opened_by,
    token_hash,
    visible_battles,
)
from ..authors import CONSOLE_HEADER, grant_author, via_of
from ..battlescribe import Answers, read_answers
from ..language import say
from ..roster import refusal_in_roster, roster_from_list_files, roster_from_text
from ..service import Recorded, battle_language, clock_event, record_on, roll_for, start_battle
from ..snapshot_cache import battle_at, fold_lock
from ..webhooks.deliver import Deliverer, delivering
from ..webhooks.settings import DELIVERY, DeliverySettings
from . import asyncapi, live, offline, streaming
from .bodies import read_body
from .corrections import correction_routes
from .cors import cors, origin_routes
from .folds import Folds, Held
from .grants import Grants
from .hooks import hook_routes
from .listen import listener
from .overlays import overlay_route
from .problems import EXCEPTION_HANDLERS, problem_responses
from .speaking import speaking
from .tokens import token_routes

STATIC = Path(__file__).parent / "static"
CHECKED_AS_WRITTEN = "checked_as_written"  # a handler's opt: its write carries its token to the store


@dataclass(frozen=True)
class Settings:
    poll_s: float = 0.5  # how often a follower looks for events other processes appended
    heartbeat_s: float = 15.0
    max_body_bytes: int = 1_000_000
    create_token: str | None = None  # when set, creating a battle needs it as a Bearer token
    allow_origins: tuple[str, ...] = ()  # web origins allowed to call about every battle (CORS, cors.py)
    pool_size: int = 10  # PostgreSQL: the most connections this node opens to the database
    public_url: str | None = None  # where join links point (a proxy, TLS); else the request's own scheme and Host
    webhooks: DeliverySettings | None = DELIVERY  # None: this node never delivers (`--no-webhooks`)


# -- request bodies ---------------------------------------------------------------------------
MAX_UNITS = 1000  # the most units a battle created over HTTP may have, by either route


class CreateBattle(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    battle: BattleId
    started: BattleStarted
    units: Annotated[list[UnitJoined], Meta(max_length=MAX_UNITS)] = []


class ListFile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A list builder's roster file (BattleScribe, New Recruit: .ros or .rosz), its bytes in base64."""

    file: Name  # its name, for refusals and questions to say
    data: bytes  # base64 in the JSON; the server's --max-body bounds it, app/battlescribe/read.py the rest


class CreateFromRoster(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A roster file's TOML text, read as `morale new` reads the file (`app/roster.py`); or list
    builders' roster files with the answers they leave open, as `morale new A.rosz --answers FILE`."""

    roster: str = ""  # the TOML text; the server's --max-body bounds it
    file: Name = "roster"  # its name (an uploaded file's), for refusals to say
    battle: BattleId | None = None  # the battle's id, instead of the roster's battle.id (as --battle)
    lists: Annotated[list[ListFile], Meta(max_length=8)] = []  # instead of `roster`: one a player, or one in all
    # With `lists`: answers files' TOML texts (what a 422 unanswered asked), each over the one before
    # (an answers file kept from the last game, then the console's form).
    answers: str | Annotated[list[str], Meta(max_length=8)] = ""


class BattleCreated(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    seq: int
    tokens: IssuedTokens


class AppendEvents(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    expected_seq: Annotated[int, Meta(ge=0)]  # the seq the log ended at when the client last read it
    events: Annotated[list[AnyEvent], Meta(min_length=1, max_length=1000)]


class NextPhase(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Move the clock on: end the phase in progress, or start the next one (as `morale next-phase`)."""

    expected_seq: Annotated[int, Meta(ge=0)]


class RollDice(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Ask the engine to roll a due test's dice (battles whose dice policy allows it)."""

    unit: Slug
    test: Slug
    expected_seq: Annotated[int, Meta(ge=0)]


At = Annotated[
    str | None,
    QueryParameter(
        name="at", description="a point: N (after event N), start, end, start:TURN[/SIDE][/PHASE], end:TURN..."
    ),
]
# No sequence number beyond what SQLite can hold: a larger one is a 400, not an overflow in the store.
After = Annotated[
    int | None, QueryParameter(name="after", ge=0, le=LAST_SEQ, description="resume after this sequence number")
]
BattlePath = FromPath[str]


# -- who is calling ------------------------------------------------------------------------------
def _stores(connection: ASGIConnection) -> live.Stores:
    return connection.app.state.stores


def _bearer(connection: ASGIConnection) -> str | None:
    scheme, _, value = connection.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return connection.query_params.get("token") or None


ASK = {"WWW-Authenticate": "Bearer"}  # RFC 6750: a 401 names the scheme that would open it
TOKEN_NEEDED = Words("a token is needed: Authorization: Bearer TOKEN (or ?token=TOKEN)")


async def battle_token(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
    """Guard: a token of this battle; a write needs a role that writes. Runs before the body is read,
    its look at the store in a worker thread (a PostgreSQL store is a round trip away). A battle
    that does not exist answers as one the token does not open: without a token of its own, no one
    learns which battles a server holds."""
    battle = connection.path_params["battle"]
    token = _bearer(connection)
    if token is None:
        raise NotAuthorizedException(detail=TOKEN_NEEDED, headers=ASK)
    digest = token_hash(token)
    grants: Grants = connection.app.state.grants
    # A write whose store checks the token as it writes may go on a grant this node remembers
    # (grants.py says why revocation still takes effect at once); everything else asks the store.
    opened = grants.opened(battle, digest) if handler.opt.get(CHECKED_AS_WRITTEN) else None
    if opened is None:
        found = await _stores(connection).run(lambda store: store.token_grant(battle, digest))
        if found is None:
            raise NotAuthorizedException(
                detail=Words("this token does not open battle {battle!r}", battle=battle), headers=ASK
            )
        grants.keep(battle, found)  # type: ignore[arg-type]
        opened = opened_by(found)  # type: ignore[arg-type]
    grant = opened.grant
    connection.state.opened = opened  # its use is noted once answered (note_token_use)
    if handler.opt.get("writes") and grant.role == "spectator":  # type: ignore[attr-defined]
        raise PermissionDeniedException(
            detail=Words("a spectator's token reads and follows the battle; it records nothing")
        )
    connection.state.grant = grant
    if not language.asked():
        language.battle_default(await _battle_language(connection, battle))


async def _battle_language(connection: ASGIConnection, battle: str) -> str:
    """The battle's own language (`battle_started`'s, never changed: a first event is never struck),
    read once a node and kept: a battle route speaks it to a caller who asked for none (`?lang=`)."""
    known: dict[str, str] = connection.app.state.battle_languages
    if battle not in known:
        known[battle] = await _stores(connection).run(lambda store: battle_language(store, battle))
    return known[battle]


def creator_token(connection: ASGIConnection, handler: BaseRouteHandler) -> None:
    """Guard: when the server was started with a creation token, only its holder creates battles."""
    required = connection.app.state.settings.create_token
    if required is None:
        return
    given = _bearer(connection)
    if given is None:
        raise NotAuthorizedException(
            detail=Words("this server needs its creation token to create a battle"), headers=ASK
        )
    if not hmac.compare_digest(given.encode(), required.encode()):
        raise PermissionDeniedException(detail=Words("this is not the server's creation token"))


def noting_token_use(app: ASGIApp) -> ASGIApp:
    """Middleware: once a request a token opened is answered well (a status below 400), note the
    token's use if due, about once a minute per token (access.LAST_USED_EVERY_S). A refused
    request writes nothing. Noted as the answer starts, not when it ends: a feed runs for hours."""

    async def noting(scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            await send(message)
            if message["type"] == "http.response.start" and message["status"] < HTTP_400:
                opened = (scope.get("state") or {}).get("opened")
                if opened is not None and opened.note_use:
                    battle = scope["path_params"]["battle"]
                    state = scope["litestar_app"].state
                    state.grants.noted(battle, opened.token_hash)
                    await state.stores.run(lambda store: _note_use(store, battle, opened.token_hash))

        await app(scope, receive, sending)

    return noting


HTTP_400 = 400


async def security_headers(message: Message, scope: Scope) -> None:
    """Every answer, refusals and static files included: never sniffed into another type, and never
    naming its page (whose address may hold a token in its fragment or query) to another site."""
    if message["type"] == "http.response.start":
        headers = MutableScopeHeaders.from_message(message)
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Referrer-Policy"] = "no-referrer"


def _note_use(store: EventStore, battle: str, digest: str) -> None:
    with fold_lock(battle):  # never while a fold of the battle reads and writes its snapshots
        note_use(store, battle, digest)


# -- what the OpenAPI document says of who may call and what may go wrong --------------------------
TOKEN: list[dict[str, list[str]]] = [{"bearer": []}, {"token": []}]  # a battle's token, either way
CREATOR: list[dict[str, list[str]]] = [{}, {"bearer": []}]  # none, or the server's --create-token
# 503: any operation that reads or writes the store, when its PostgreSQL server does not answer.
AT_A_POINT = problem_responses(400, 401, 404, 422, 503)  # a point or resume point may be refused (422)
READS = problem_responses(400, 401, 503)  # 400: Litestar's own, for a path it cannot read


# -- writes ---------------------------------------------------------------------------------------
def _fed(recorded: list[Recorded], fold: Fold) -> list[FeedItem]:
    ruleset = fold.battle.ruleset if fold.battle else None
    return [feed_item(r.stored, r.caused, ruleset, r.shown) for r in recorded]  # type: ignore[arg-type]


@post(
    "/battles",
    guards=[creator_token],
    status_code=201,
    tags=["battles"],
    security=CREATOR,
    responses=problem_responses(400, 401, 403, 409, 413, 422, 503),
)
async def create_battle(data: JSONBody[CreateBattle], request: Request, state: State) -> BattleCreated:
    """Create a battle: its first event and its units. The answer holds the battle's tokens, once."""
    if data.started.language and data.started.language not in language.LANGUAGES:
        said = Words(
            "started.language is one of {known}, not {named!r}",
            known=", ".join(language.LANGUAGES),
            named=data.started.language,
        )
        raise MalformedEvent(said, field="started.language")
    return await _started(state, data.battle, data.started, data.units, _creator(request))


@post(
    "/battles/roster",
    guards=[creator_token],
    status_code=201,
    tags=["battles"],
    security=CREATOR,
    responses=problem_responses(400, 401, 403, 409, 413, 422, 503),
)
async def create_from_roster(data: JSONBody[CreateFromRoster], request: Request, state: State) -> BattleCreated:
    """Create a battle from a roster's TOML text, exactly as `morale new ROSTER.toml` does, or from
    list builders' files (`lists`, as `morale new A.rosz --answers FILE`). A refusal names the line
    (TOML that does not read) or the field (`unit[2].models`, `battle.ruleset`); a roster sent here
    may not name table files (the server's files are not the sender's). A list builder's roster
    that leaves questions open is answered 422 (type unanswered) with the `questions`: send again
    with their `answers`."""
    if data.lists:
        if data.roster:
            raise MalformedEvent(Words("give a roster's TOML or list builders' files, not both"), field="roster")
        texts = [data.answers] if isinstance(data.answers, str) else data.answers
        answers = Answers()
        for i, text in enumerate(texts):
            named = "answers" if isinstance(data.answers, str) else f"answers[{i}]"  # as refusals name it
            answers = answers.merged(read_answers(text, named)) if text else answers
        roster = roster_from_list_files([(f.file, f.data) for f in data.lists], answers, data.battle)
    elif data.answers:
        raise MalformedEvent(Words("answers are for list builders' files (lists), not a TOML roster"), field="answers")
    else:
        roster = roster_from_text(data.roster, data.file, data.battle)
    if len(roster.units) > MAX_UNITS:
        detail = Words(
            "{file}: at most {most} units a battle, not {given}",
            file=data.file,
            most=MAX_UNITS,
            given=len(roster.units),
        )
        raise MalformedEvent(detail, field="unit")
    try:
        return await _started(state, roster.battle, roster.started, roster.units, _creator(request))
    except Refusal as refusal:
        raise refusal_in_roster(roster, refusal) from None


async def _started(
    state: State, battle: str, started: BattleStarted, units: list[UnitJoined], author: Author
) -> BattleCreated:
    """Start the battle and issue its tokens (the answer is the only time they are shown)."""

    def work(store: EventStore) -> BattleCreated:
        recorded = start_battle(store, battle, started, units, author=author)
        tokens = issue_tokens(store, battle, started.sides)
        return BattleCreated(battle=battle, seq=recorded[-1].stored.seq, tokens=tokens)

    with state.hub.writing(battle):
        created = await state.stores.run(work)
    return created  # type: ignore[no-any-return]


def _via(request: Request) -> Via:
    """How a write came in: the console's page names itself in a header; any other caller is the API."""
    return via_of(request.headers.get(CONSOLE_HEADER))


def _creator(request: Request) -> Author:
    """Whoever may create a battle sets it up as its referee: its first events are the referee's."""
    return grant_author(Grant(role="referee"), _via(request))


def _author(request: Request) -> Author:
    """Who is writing: the request's token (its role, side, id and label), and the way in."""
    return grant_author(request.state.grant, _via(request))


# A write to a battle's log: a token that may write to it, 201 with what the log now holds, and the
# refusals any write may meet. Each of these writes carries its token to the store, which writes
# nothing if the token was revoked meanwhile (`Held.precondition`): the guard may go on a grant
# this node remembers (CHECKED_AS_WRITTEN).
def writes(path: str) -> Callable[[AnyCallable], HTTPRouteHandler]:
    return post(
        path,
        guards=[battle_token],
        opt={"writes": True, CHECKED_AS_WRITTEN: True},
        status_code=201,
        tags=["battles"],
        security=TOKEN,
        responses=problem_responses(400, 401, 403, 404, 409, 413, 422, 503),
    )


async def _written(state: State, battle: str, work: Callable[[EventStore], list[FeedItem]]) -> list[FeedItem]:
    """Carry out `work` on the store's thread, then wake the battle's followers (once it is done: an
    announcement from the database meanwhile waits for it, `Hub.writing`)."""
    with state.hub.writing(battle):
        appended = await state.stores.run(work)
    return appended  # type: ignore[no-any-return]


def _held_by(request: Request) -> str:
    """The sha256 of the token a write is made with, for the store to check as it writes."""
    return request.state.opened.token_hash  # type: ignore[no-any-return]


def _recorded(held: Held, recorded: list[Recorded]) -> list[FeedItem]:
    """The feed items of what a held fold recorded; the fold's head is now its last event."""
    held.head_hash = recorded[-1].stored.hash
    return _fed(recorded, held.fold)


@writes("/battles/{battle:str}/events")
async def append_events(
    battle: BattlePath, data: JSONBody[AppendEvents], request: Request, state: State
) -> list[FeedItem]:
    """Append events, all or none, if the log still ends at `expected_seq` (409 if not)."""
    grant: Grant = request.state.grant
    author, holder = _author(request), _held_by(request)

    def work(store: EventStore) -> list[FeedItem]:
        with state.folds.to_append(store, battle, data.expected_seq, holder) as held:
            check_may_append(grant, held.fold.state(), data.events)
            recorded = record_on(
                store,
                held.fold,
                data.events,
                expected_seq=data.expected_seq,
                author=author,
                show=True,
                precondition=held.precondition,
            )
            return _recorded(held, recorded)

    return await _written(state, battle, work)


@writes("/battles/{battle:str}/roll")
async def roll_dice(battle: BattlePath, data: JSONBody[RollDice], request: Request, state: State) -> list[FeedItem]:
    """The engine rolls a due test's dice and records them (dice policy `engine` or `either`)."""
    grant: Grant = request.state.grant
    author, holder = _author(request), _held_by(request)

    def work(store: EventStore) -> list[FeedItem]:
        with state.folds.to_append(store, battle, data.expected_seq, holder) as held:
            check_own_unit(grant, held.fold.state(), data.unit)
            rolled = roll_for(
                store,
                held.fold,
                data.unit,
                data.test,
                expected_seq=data.expected_seq,
                author=author,
                show=True,
                precondition=held.precondition,
            )
            return _recorded(held, rolled)

    return await _written(state, battle, work)


@writes("/battles/{battle:str}/next-phase")
async def next_phase(battle: BattlePath, data: JSONBody[NextPhase], request: Request, state: State) -> list[FeedItem]:
    """End the phase in progress or start the next one, in the ruleset's order (the referee's)."""
    grant: Grant = request.state.grant
    author, holder = _author(request), _held_by(request)

    def work(store: EventStore) -> list[FeedItem]:
        with state.folds.to_append(store, battle, data.expected_seq, holder) as held:
            event = clock_event(held.fold)
            check_may_append(grant, held.fold.state(), [event])
            recorded = record_on(
                store,
                held.fold,
                [event],
                expected_seq=data.expected_seq,
                author=author,
                show=True,
                precondition=held.precondition,
            )
            return _recorded(held, recorded)

    return await _written(state, battle, work)


# -- reads ------------------------------------------------------------------------------------------
@get("/battles", tags=["battles"], security=TOKEN, responses=problem_responses(401, 503))
async def list_battles(request: Request, state: State) -> list[Visible]:
    """The battles this token opens, each with the token's role there (a 401 for a token that opens none)."""
    token = _bearer(request)
    if token is None:
        raise NotAuthorizedException(detail=TOKEN_NEEDED, headers=ASK)
    visible = await state.stores.run(lambda store: visible_battles(store, token))
    if not visible:
        raise NotAuthorizedException(detail=Words("this token opens no battle in this store"), headers=ASK)
    return visible  # type: ignore[return-value]


class TimelineView(msgspec.Struct, frozen=True, kw_only=True):
    last: int  # the last event's seq
    marks: list[Mark]  # where each phase starts


def _at(battle: str, events: list, at: str | None) -> int | None:
    """The seq a point names (see `morale at`), or None for now."""
    return None if at is None else Timeline(battle, events).point(at).seq


def _seq_at(store: EventStore, battle: str, at: str | None) -> int:
    """The seq a point names, the log read only where the point names a phase (`end:2/orks`)."""
    last = store.last_seq(battle)
    if at is None:
        return last
    seq = whole_number(at)
    if seq is not None:
        if not 1 <= seq <= last:  # as Timeline.point says it
            raise Refusal(
                Words("there is no event {seq} (the log runs from 1 to {last})", seq=seq, last=last), field="point"
            )
        return seq
    return Timeline(battle, store.read(battle)).point(at).seq


@get("/battles/{battle:str}/board", guards=[battle_token], tags=["battles"], security=TOKEN, responses=AT_A_POINT)
async def status_board(battle: BattlePath, state: State, at: At = None) -> Board:
    """Every unit's state, models, restrictions and tests due; `?at=POINT`: as it stood then."""

    def work(store: EventStore) -> Board:
        if at is not None or not state.folds.holds(battle):
            # From the nearest snapshot: a long battle's first board waits for no full replay.
            return board(battle_at(store, battle, _seq_at(store, battle, at)))
        with state.folds.current(store, battle) as fold:  # the view is built before a writer moves it
            return board(fold.state())

    return await state.stores.run(work)  # type: ignore[return-value]


@get("/battles/{battle:str}/due", guards=[battle_token], tags=["battles"], security=TOKEN, responses=AT_A_POINT)
async def due(battle: BattlePath, state: State, at: At = None) -> list[DueView]:
    """The tests due, the number needed, the modifiers, why, and the exact odds of each result."""

    def work(store: EventStore) -> list[DueView]:
        return due_tests(battle_at(store, battle, _seq_at(store, battle, at)))

    return await state.stores.run(work)  # type: ignore[return-value]


@get(
    "/battles/{battle:str}/explain/{unit:str}",
    guards=[battle_token],
    tags=["battles"],
    security=TOKEN,
    responses=AT_A_POINT,
)
async def explain_unit(battle: BattlePath, unit: FromPath[str], state: State, at: At = None) -> Explanation:
    """Every test the unit took and every change to it, each with its rule ID (at `?at=POINT`, or now)."""

    def work(store: EventStore) -> Explanation:
        events = list(store.read(battle))
        return explain(battle, events, unit, _at(battle, events, at))

    return await state.stores.run(work)  # type: ignore[return-value]


@get("/battles/{battle:str}/diff", guards=[battle_token], tags=["battles"], security=TOKEN, responses=AT_A_POINT)
async def diff(battle: BattlePath, state: State, before: FromQuery[str], after: FromQuery[str] = "end") -> Diff:
    """What changed between two points, unit by unit, and the steps that changed it."""

    def work(store: EventStore) -> Diff:
        timeline = Timeline(battle, store.read(battle))
        return timeline.diff(timeline.point(before), timeline.point(after))

    return await state.stores.run(work)  # type: ignore[return-value]


Limit = Annotated[int | None, QueryParameter(name="limit", ge=1, le=LAST_SEQ, description="at most this many events")]


@get("/battles/{battle:str}/log", guards=[battle_token], tags=["battles"], security=TOKEN, responses=READS)
async def log(battle: BattlePath, state: State, after: After = None, limit: Limit = None) -> list[LogRow]:
    """Every stored event with its hash link and what it says in words; `?after=SEQ&limit=N`: a page
    (read from the nearest snapshot, so the last page of a long battle comes at once)."""

    def work(store: EventStore) -> list[LogRow]:
        start = after or 0
        events = store.read(battle, after_seq=start)
        page = list(events if limit is None else islice(events, limit))
        if start:
            try:
                return log_rows(battle, page, battle_at(store, battle, start), start)
            except Refusal:  # a retraction in the page: the log is read from the start
                pass
        rows = log_rows(battle, store.read(battle))
        return [row for row in rows if row.seq > start][: limit or None]

    return await state.stores.run(work)  # type: ignore[return-value]


@get("/battles/{battle:str}/claims", guards=[battle_token], tags=["battles"], security=TOKEN, responses=READS)
async def claims(battle: BattlePath, state: State) -> ClaimsView:
    """In a battle that asks for confirmation: the entries awaiting the other side's confirmation,
    and every dispute with how it ended (`morale disputes`)."""

    def work(store: EventStore) -> ClaimsView:
        return claims_view(battle, store.read(battle))

    return await state.stores.run(work)  # type: ignore[return-value]


@get("/battles/{battle:str}/timeline", guards=[battle_token], tags=["battles"], security=TOKEN, responses=READS)
async def battle_timeline(battle: BattlePath, state: State) -> TimelineView:
    """Where each phase starts: the marks the viewer scrubs through."""

    def work(store: EventStore) -> TimelineView:
        # Only the phase starts are read and decoded, not the whole log: a quarter of the time on the
        # 100,000-event bench battle, whose every fourth event starts a phase (bench/README.md).
        return TimelineView(last=store.last_seq(battle), marks=marks(store.events_of_type(battle, "phase_started")))

    return await state.stores.run(work)  # type: ignore[return-value]


# -- the feed ---------------------------------------------------------------------------------------
def _resume_point(request: Request, after: int | None) -> int:
    return resume_after(request.headers.get("last-event-id", ""), after)


def resume_after(last_event_id: str, after: int | None) -> int:
    """Where a follower resumes. Last-Event-ID wins: a browser reconnecting sends it with the URL it
    first opened, whose `?after=` is older news. The header is any bytes a client sends (read as
    Latin-1), so only a sequence number in ASCII digits is one."""
    last_seen = last_event_id.strip()
    if not last_seen:
        return after or 0
    seq = whole_number(last_seen)
    if seq is None:
        raise MalformedEvent(Words("Last-Event-ID: not a sequence number (ASCII digits only)"), field="Last-Event-ID")
    return seq


def _resumed_by(request: Request) -> str:
    """What the client said its resume point with, for a refusal to name."""
    return "Last-Event-ID" if request.headers.get("last-event-id", "").strip() else "after"


_NO_BUFFERING = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


async def _feed(request: Request, battle: str, after: int, form: live.Format, keep_following: bool) -> ASGIApp:
    """The feed's response: the items after `after`, then (if following) each new one as it lands,
    their words said in the request's language (`?lang=`: an EventSource sets no header)."""
    state = request.app.state
    chosen = language.current()
    await state.stores.run(lambda store: live.check_resume_point(store, battle, after, _resumed_by(request)))

    async def follow(send: Send) -> None:
        await live.follow_live(
            state.stores,
            state.hub,
            battle,
            send,
            form,
            after=after,
            poll_s=state.settings.poll_s,
            heartbeat_s=state.settings.heartbeat_s,
            token_hash=request.state.opened.token_hash,  # its revocation ends the stream
            language=chosen,
        )

    async def export(send: Send) -> None:
        async for published in live.export(state.stores, battle, after):
            await send(streaming.body(form.encode(published, chosen)))

    return streaming.StreamResponse(form.media_type, follow if keep_following else export, _NO_BUFFERING)


@get(
    "/battles/{battle:str}/feed",
    guards=[battle_token],
    tags=["feed"],
    media_type="text/event-stream",
    security=TOKEN,
    responses=AT_A_POINT,
)
async def feed_sse(battle: BattlePath, request: Request, after: After = None) -> ASGIApp:
    """Server-Sent Events: one message per stored event with what it caused, `id:` = its seq,
    `event:` = its event's type; then the same again under each kind of outcome it caused
    (`/asyncapi.json` describes every message). Resumes after `Last-Event-ID` (or `?after=SEQ`);
    heartbeats are comments."""
    return await _feed(request, battle, _resume_point(request, after), live.SSE, keep_following=True)


@get(
    "/battles/{battle:str}/feed.ndjson",
    guards=[battle_token],
    tags=["feed"],
    media_type="application/x-ndjson",
    security=TOKEN,
    responses=AT_A_POINT,
)
async def feed_ndjson(
    battle: BattlePath,
    request: Request,
    after: After = None,
    follow: FromQuery[bool] = True,
) -> ASGIApp:
    """The same items as NDJSON; `?follow=false` ends after the last stored event (an export).
    Blank lines are heartbeats."""
    return await _feed(request, battle, _resume_point(request, after), live.NDJSON, keep_following=follow)


@get("/feed.schema.json", tags=["feed"])
async def schema_of_feed() -> dict[str, Any]:
    """JSON Schema of one feed item (one SSE message's data, one NDJSON line)."""
    return feed_schema()


@get("/asyncapi.json", tags=["feed"])
async def asyncapi_of_feed() -> dict[str, Any]:
    """AsyncAPI 3 document of the feed, SSE and NDJSON: each message by kind, its payload in
    `/feed.schema.json` (referenced, beside it)."""
    return asyncapi.document()


# -- the rulesets' words ----------------------------------------------------------------------------
class Caller(msgspec.Struct, frozen=True, kw_only=True):
    role: str  # referee, player or spectator
    side: str = ""  # a player's side
    token_id: str = ""  # the id of the token used (the console's Share screen never offers to revoke it)


class BattleVocabulary(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    name: str
    sides: tuple[str, ...]
    dice_policy: str
    engine_rolls: bool  # the engine may roll this battle's dice (POST .../roll)
    confirmation: bool = False  # the players confirm each other's entries (`engine.claim.open`)
    language: str = ""  # the battle's own language: the console speaks it unless its reader chose one
    caller: Caller  # what the token used may do
    vocabulary: Vocabulary


@get("/rulesets", tags=["rulesets"], responses=problem_responses(400))
async def ruleset_list() -> list[RulesetListed]:
    """The rulesets this engine knows."""
    return listed()


@get("/rulesets/{ruleset:str}/{version:str}", tags=["rulesets"], cache=3600, responses=problem_responses(400, 422))
async def ruleset_vocabulary(ruleset: FromPath[str], version: FromPath[str]) -> Vocabulary:
    """A ruleset's vocabulary: phases, states in its words, tests, facts (with the kind of value each
    takes), decisions, causes, profile fields, and the words of every clause it cites."""
    return vocabulary_of(ruleset, version)


@get("/battles/{battle:str}/vocabulary", guards=[battle_token], tags=["battles"], security=TOKEN, responses=READS)
async def battle_vocabulary(battle: BattlePath, request: Request, state: State) -> BattleVocabulary:
    """The battle's ruleset vocabulary, its sides and dice, and what the caller's token may do."""
    grant: Grant = request.state.grant

    def work(store: EventStore) -> BattleVocabulary:
        started = next(store.read(battle)).event
        if not isinstance(started, BattleStarted):
            raise Refusal(Words("battle {battle!r} does not begin with battle_started", battle=battle), field="battle")
        engine = started.dice_policy != "table" and store.dice_secret(battle) is not None
        return BattleVocabulary(
            battle=battle,
            name=started.name,
            sides=started.sides,
            dice_policy=started.dice_policy,
            engine_rolls=engine,
            confirmation=started.confirmation,
            language=started.language,
            caller=Caller(role=grant.role, side=grant.side, token_id=grant.token_id),
            vocabulary=vocabulary_of(started.ruleset, started.ruleset_version),
        )

    return await state.stores.run(work)  # type: ignore[return-value]


# -- the console (the viewer) ------------------------------------------------------------------------
@get("/", include_in_schema=False)
async def home() -> Redirect:
    return Redirect("/view")


# The console runs only the app's own scripts and styles, talks only to this server, and is framed
# by no other page: a page that injected markup into it could load nothing, send nothing, run nothing.
CONSOLE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)


@get("/view", include_in_schema=False)
async def viewer() -> File:
    return File(
        STATIC / "console.html",
        content_disposition_type="inline",
        media_type="text/html",
        headers={"Content-Security-Policy": CONSOLE_POLICY},
    )


@get("/sw.js", include_in_schema=False)
async def service_worker() -> Response[str]:
    """The console's service worker (offline.py): no-cache, so a phone looks for a new console on
    each visit; its scope is /view."""
    return Response(offline.worker_source(), media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@get("/manifest.webmanifest", include_in_schema=False)
async def web_manifest() -> File:
    """What a phone needs to put the console on its home screen."""
    return File(offline.MANIFEST, content_disposition_type="inline", media_type="application/manifest+json")


@get("/health", tags=["server"])
async def health() -> dict[str, str]:
    return {"status": "ok"}


# -- errors ----------------------------------------------------------------------------------------
logger = logging.getLogger("morale.server")
_ANSWERS = tuple(kind for kind in EXCEPTION_HANDLERS if isinstance(kind, type))  # refusals, not failures


async def log_unexpected(exc: Exception, scope: object) -> None:
    """Refusals are answers, not incidents; anything else is a bug worth a traceback in the log."""
    if isinstance(exc, _ANSWERS):
        return
    logger.error("unexpected error while serving a request", exc_info=exc)


# Who may call: a battle's token as a Bearer header, or as ?token= where no header can be set.
SECURITY_SCHEMES = {
    "bearer": SecurityScheme(
        type="http", scheme="bearer", description="A battle's token (referee, a side's player, spectator)"
    ),
    "token": SecurityScheme(
        type="apiKey",
        name="token",
        security_scheme_in="query",
        description="The same token in the query, where a header cannot be set (a browser's EventSource)",
    ),
}


# The API's description at /schema, drawn by Redoc from the copy this package ships (static/vendor):
# no page the server gives loads anything from elsewhere, so it works offline.
OPENAPI = OpenAPIConfig(
    title="morale",
    version="1",
    description=__doc__,
    path="/schema",
    components=Components(security_schemes=SECURITY_SCHEMES),  # type: ignore[arg-type]
    render_plugins=[
        RedocRenderPlugin(js_url="/static/vendor/redoc.standalone.js", google_fonts=False, favicon="", path="/"),
    ],
)


def create_app(db: str | Path, settings: Settings | None = None) -> Litestar:
    """The app over the store at `db`, a SQLite file or a `postgresql://` URL (several nodes may
    serve one PostgreSQL store: each listens for the appends the others make)."""
    settings = settings or Settings()
    stores = live.Stores(db, pool_size=settings.pool_size)
    stores.get()  # create the tables now, not inside the first request
    hub = live.Hub()
    folds = Folds(announced=stores.announced)
    hub.seqs.append(folds.told)
    deliverer = Deliverer(stores, settings.webhooks) if settings.webhooks is not None else None
    if deliverer is not None:
        hub.also.append(deliverer.poke)
    return Litestar(
        route_handlers=[
            create_battle,
            create_from_roster,
            list_battles,
            append_events,
            roll_dice,
            next_phase,
            ruleset_list,
            ruleset_vocabulary,
            battle_vocabulary,
            status_board,
            due,
            explain_unit,
            diff,
            log,
            claims,
            battle_timeline,
            feed_sse,
            feed_ndjson,
            schema_of_feed,
            asyncapi_of_feed,
            home,
            viewer,
            overlay_route(CONSOLE_POLICY),
            service_worker,
            web_manifest,
            health,
            *token_routes(battle_token, TOKEN),
            *origin_routes(battle_token, TOKEN),
            *hook_routes(battle_token, TOKEN),
            *correction_routes(battle_token, TOKEN, _author, _written, _fed),
            create_static_files_router(path="/static", directories=[STATIC], include_in_schema=False),
        ],
        state=State(
            {
                "stores": stores,
                "hub": hub,
                "folds": folds,
                "grants": Grants(),
                "battle_languages": {},  # each battle's own language, once read (`_battle_language`)
                "settings": settings,
                "deliverer": deliverer,
            }
        ),
        exception_handlers=EXCEPTION_HANDLERS,  # type: ignore[arg-type]
        request_max_body_size=settings.max_body_bytes,
        before_request=read_body,
        # CORS outermost: every answer, a refusal too, names an allowed origin; then the request's language.
        middleware=[cors, speaking, noting_token_use],
        type_encoders={Words: say},  # words in an answer are said in the request's language
        before_send=[security_headers],
        lifespan=[listener(stores.announcements(), hub), delivering(deliverer)],
        on_shutdown=[hub.close, stores.close],
        # Litestar's default raises the root logger to INFO, which would make `transitions` log every
        # state change of every replay.
        logging_config=LoggingConfig(configure_root_logger=False, log_exceptions="never"),
        after_exception=[log_unexpected],
        openapi_config=OPENAPI,
    )
