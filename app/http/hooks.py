"""The referee's webhooks over HTTP (`/battles/{id}/hooks`): register a URL, list the hooks, read a
hook's delivery log, resume a paused one, remove one. The referee's token alone: a hook's URL and
delivery log say where the battle is sent, and its secret is shown once, in the answer that
registers it. The node delivering (app/webhooks/deliver.py) sees a change at once when it is made
through it, and within a third of its lease otherwise."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated

import msgspec
from litestar import Request, delete, get, post
from litestar.datastructures import State
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, JSONBody
from msgspec import Meta

from morale.core.words import Words
from morale.events.numbers import LAST_SEQ
from morale.events.store import EventStore

from ..access import LABEL_MAX, Forbidden, Grant
from ..webhooks.hooks import URL_MAX, Attempt, Hook, Registered, delivery_log, hooks_of, register, remove, resume
from .problems import problem_responses


class NewHook(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A URL to post the battle's feed items to, as CloudEvents signed as Standard Webhooks says."""

    url: Annotated[str, Meta(max_length=URL_MAX)]
    label: Annotated[str, Meta(max_length=LABEL_MAX)]  # whose it is: "league table", "Discord bot"
    kinds: Annotated[list[Annotated[str, Meta(max_length=64)]], Meta(max_length=100)] = []  # none: every item
    # Deliver the items after this seq (0: the whole battle so far); by default, from the next event.
    after: Annotated[int, Meta(ge=0, le=LAST_SEQ)] | None = None


def _referee(request: Request) -> Grant:
    grant: Grant = request.state.grant
    if grant.role != "referee":
        raise Forbidden(Words("only the referee's token lists, registers, resumes or removes the battle's webhooks"))
    return grant


def hook_routes(guard: Callable, security: Sequence[dict[str, list[str]]]) -> list[HTTPRouteHandler]:
    """The five operations, behind the server's battle-token guard."""
    common = {"guards": [guard], "tags": ["webhooks"], "security": list(security)}
    reads = problem_responses(400, 401, 403, 404, 503)

    def changed(state: State) -> None:
        if state.deliverer is not None:
            state.deliverer.hooks_changed()

    @get("/battles/{battle:str}/hooks", responses=reads, **common)
    async def list_hooks(battle: FromPath[str], request: Request, state: State) -> list[Hook]:
        """The battle's webhooks: URL, kinds, how far each has delivered, and why one is paused; never a secret."""
        _referee(request)
        return await state.stores.run(lambda store: hooks_of(store, battle))  # type: ignore[no-any-return]

    @post(
        "/battles/{battle:str}/hooks",
        status_code=201,
        responses=problem_responses(400, 401, 403, 404, 413, 422, 503),
        **common,
    )
    async def new_hook(battle: FromPath[str], data: JSONBody[NewHook], request: Request, state: State) -> Registered:
        """Register a URL; the answer holds the hook's secret, once (`whsec_...`, what the receiver
        verifies each delivery's `webhook-signature` with)."""
        _referee(request)

        def work(store: EventStore) -> Registered:
            return register(store, battle, data.url, data.kinds, data.label, data.after)

        made: Registered = await state.stores.run(work)  # type: ignore[assignment]
        changed(state)
        return made

    @get("/battles/{battle:str}/hooks/{hook:str}/attempts", responses=reads, **common)
    async def hook_attempts(
        battle: FromPath[str], hook: FromPath[str], request: Request, state: State
    ) -> list[Attempt]:
        """The hook's delivery log: its last attempts, oldest first, each with its answer."""
        _referee(request)
        return await state.stores.run(lambda store: delivery_log(store, battle, hook))  # type: ignore[no-any-return]

    @post(
        "/battles/{battle:str}/hooks/{hook:str}/resume",
        status_code=200,
        responses=problem_responses(400, 401, 403, 404, 422, 503),
        **common,
    )
    async def resume_hook(battle: FromPath[str], hook: FromPath[str], request: Request, state: State) -> Hook:
        """A paused hook delivers again, from the first item it had not delivered."""
        _referee(request)
        resumed: Hook = await state.stores.run(lambda store: resume(store, battle, hook))  # type: ignore[assignment]
        changed(state)
        return resumed

    @delete("/battles/{battle:str}/hooks/{hook:str}", status_code=204, responses=reads, **common)
    async def remove_hook(battle: FromPath[str], hook: FromPath[str], request: Request, state: State) -> None:
        """Remove a hook and its delivery log; nothing more is sent to it."""
        _referee(request)
        await state.stores.run(lambda store: remove(store, battle, hook))
        changed(state)

    return [list_hooks, new_hook, hook_attempts, resume_hook, remove_hook]
