"""Corrections over HTTP: see what a strike would strike, then strike it (an event and the later
events that stood on it, in one append), or undo the last entry the calling token made.

The referee strikes anything; a player strikes only entries sealed with their own token's id
(`access.check_may_strike`), with, when the other side disputes the entry, that side's entries that
stood on it. Every write names the `expected_seq` it was previewed at (409 if the
log has moved since), so what was shown is what is struck.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

import msgspec
from litestar import Request, get, post
from litestar.datastructures import State
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, JSONBody, Parameter
from msgspec import Meta

from morale.core.fold import Fold
from morale.events.numbers import LAST_SEQ
from morale.events.store import EventStore
from morale.events.types import Author, Reason
from morale.projections.feed import FeedItem
from morale.projections.narrative import describe_event

from ..access import Grant, check_may_strike
from ..corrections import StrikePlan, entered_with_token, last_entry, nothing_to_undo, plan_strike
from ..service import Recorded, claims_of, record_on
from .problems import problem_responses

SeqPath = Annotated[int, Parameter(ge=1, le=LAST_SEQ, description="the event to strike (its seq in the log)")]


class Struck(msgspec.Struct, frozen=True, kw_only=True):
    """One event a strike strikes, in words, with who entered it."""

    seq: int
    type: str
    said: str
    author: Author | None = None


class StrikePreview(msgspec.Struct, frozen=True, kw_only=True):
    """What striking `seq` strikes (the event, then the later events that stood on it), and the seq
    the log ends at: send it back as `expected_seq` to strike exactly this."""

    seq: int
    strikes: list[Struck]
    expected_seq: int


class Strike(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reason: Reason
    expected_seq: Annotated[int, Meta(ge=0)]


Written = Callable[[State, str, Callable[[EventStore], list[FeedItem]]], Awaitable[list[FeedItem]]]
Fed = Callable[[list[Recorded], Fold], list[FeedItem]]


def _authors(store: EventStore, battle: str) -> dict[int, Author | None]:
    return {stored.seq: stored.author for stored in store.read(battle)}


def _preview(fold: Fold, plan: StrikePlan, authors: dict[int, Author | None]) -> StrikePreview:
    state = fold.state()
    strikes = []
    for seq in plan.seqs:
        event = fold.log.get(seq)
        assert event is not None  # the plan names only events the fold holds
        said = describe_event(event, state)
        strikes.append(Struck(seq=seq, type=event.__struct_config__.tag, said=said, author=authors.get(seq)))
    return StrikePreview(seq=plan.seq, strikes=strikes, expected_seq=fold.seq)


def _undo_target(grant: Grant, store: EventStore, battle: str, fold: Fold) -> int:
    mine = last_entry(store.read(battle), fold.struck, entered_with_token(grant.token_id))
    if mine is None:
        raise nothing_to_undo()
    return mine.seq


def correction_routes(
    guard: Callable,
    security: list[dict[str, list[str]]],
    author_of: Callable[[Request], Author],
    written: Written,
    fed: Fed,
) -> list[HTTPRouteHandler]:
    """Preview and strike, preview and undo: behind the server's battle-token guard."""
    reads = {"guards": [guard], "tags": ["corrections"], "security": security}
    writes = {**reads, "opt": {"writes": True}, "status_code": 201}
    read_problems = problem_responses(400, 401, 403, 404, 422, 503)
    write_problems = problem_responses(400, 401, 403, 404, 409, 413, 422, 503)

    def planned(store: EventStore, battle: str, grant: Grant, fold: Fold, seq: int) -> tuple[StrikePlan, dict]:
        plan = plan_strike(fold, seq)
        authors = _authors(store, battle)
        claims = claims_of(store, fold)
        disputing = (claims.disputed_by(seq) or "") if claims is not None else ""
        check_may_strike(grant, plan.seqs, authors, disputing)
        return plan, authors

    async def preview(state: State, battle: str, grant: Grant, seq_of: Callable) -> StrikePreview:
        def work(store: EventStore) -> StrikePreview:
            with state.folds.current(store, battle) as fold:
                plan, authors = planned(store, battle, grant, fold, seq_of(store, fold))
                return _preview(fold, plan, authors)

        return await state.stores.run(work)  # type: ignore[no-any-return]

    async def carry_out(state: State, battle: str, request: Request, data: Strike, seq_of: Callable) -> list[FeedItem]:
        grant: Grant = request.state.grant
        author = author_of(request)

        def work(store: EventStore) -> list[FeedItem]:
            with state.folds.current(store, battle) as fold:
                plan, _ = planned(store, battle, grant, fold, seq_of(store, fold))
                retractions = plan.retractions(data.reason)
                return fed(
                    record_on(store, fold, retractions, expected_seq=data.expected_seq, author=author, show=True), fold
                )

        return await written(state, battle, work)

    @get("/battles/{battle:str}/strike/{seq:int}", responses=read_problems, **reads)
    async def strike_preview(battle: FromPath[str], seq: SeqPath, request: Request, state: State) -> StrikePreview:
        """What striking event `seq` would strike: it, and the later events that stood on it."""
        return await preview(state, battle, request.state.grant, lambda store, fold: seq)

    @post("/battles/{battle:str}/strike/{seq:int}", responses=write_problems, **writes)
    async def strike_events(
        battle: FromPath[str], seq: SeqPath, data: JSONBody[Strike], request: Request, state: State
    ) -> list[FeedItem]:
        """Strike event `seq` and the later events that stood on it, in one append, all or none."""
        return await carry_out(state, battle, request, data, lambda store, fold: seq)

    @get("/battles/{battle:str}/undo", responses=read_problems, **reads)
    async def undo_preview(battle: FromPath[str], request: Request, state: State) -> StrikePreview:
        """What undoing this token's last entry would strike (it, and what stood on it)."""
        grant: Grant = request.state.grant
        return await preview(state, battle, grant, lambda store, fold: _undo_target(grant, store, battle, fold))

    @post("/battles/{battle:str}/undo", responses=write_problems, **writes)
    async def undo_entry(
        battle: FromPath[str], data: JSONBody[Strike], request: Request, state: State
    ) -> list[FeedItem]:
        """Strike this token's last entry still standing, with what stood on it."""
        grant: Grant = request.state.grant
        return await carry_out(
            state, battle, request, data, lambda store, fold: _undo_target(grant, store, battle, fold)
        )

    return [strike_preview, strike_events, undo_preview, undo_entry]
