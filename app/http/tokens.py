"""The referee's tokens over HTTP: list a battle's credentials, issue one more with a join link and
its QR code, revoke one. The referee's token alone; revoking the very token a request is made
with is refused (it would lock the referee out of the battle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

import msgspec
from litestar import Request, delete, get, post
from litestar.datastructures import State
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, JSONBody
from msgspec import Meta

from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.store import EventStore
from morale.events.types import BattleStarted

from ..access import LABEL_MAX, Credential, Forbidden, Grant, check_role, credentials, issue_token, revoke_token_id
from ..join import join_url, svg_qr
from .problems import problem_responses


class NewToken(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One more token for a role, beside the battle's others."""

    role: Literal["referee", "player", "spectator", "overlay"]  # an overlay: a spectator that outlives rotations
    side: Annotated[str, Meta(max_length=64)] = ""  # a player's side; none for the other roles
    label: Annotated[str, Meta(max_length=LABEL_MAX)]  # whose it is: "Anna's phone"


class JoinLink(msgspec.Struct, frozen=True, kw_only=True):
    """A token just issued, shown once: its secret, the link that opens the console with it, and
    that link's QR code."""

    id: str
    role: str
    side: str = ""
    label: str
    created: str
    token: str
    join_url: str  # <base>/view#battle=ID&token=SECRET: the fragment reaches no server's log
    qr_svg: str  # the join URL's QR code, an inline <svg> element


def _referee(request: Request) -> Grant:
    grant: Grant = request.state.grant
    if grant.role != "referee":
        raise Forbidden(Words("only the referee's token lists, issues or revokes the battle's tokens"))
    return grant


def _sides(store: EventStore, battle: str) -> tuple[str, ...]:
    started = next(store.read(battle)).event
    if not isinstance(started, BattleStarted):
        raise Refusal(Words("battle {battle!r} does not begin with battle_started", battle=battle), field="battle")
    return started.sides


def base_url(request: Request, public_url: str | None) -> str:
    """Where the join links point: the server's --public-url, else the scheme and Host the request came by."""
    if public_url:
        return public_url
    return f"{request.url.scheme}://{request.headers.get('host') or request.url.netloc}"


def token_routes(guard: Callable, security: list[dict[str, list[str]]]) -> list[HTTPRouteHandler]:
    """The three operations, behind the server's battle-token guard."""
    common = {"guards": [guard], "tags": ["tokens"], "security": security}

    @get("/battles/{battle:str}/tokens", responses=problem_responses(400, 401, 403, 503), **common)
    async def list_tokens(battle: FromPath[str], request: Request, state: State) -> list[Credential]:
        """The battle's tokens: id, role, side, label, when issued and when last used; never a secret."""
        _referee(request)
        return await state.stores.run(lambda store: credentials(store, battle))  # type: ignore[no-any-return]

    @post(
        "/battles/{battle:str}/tokens",
        status_code=201,
        responses=problem_responses(400, 401, 403, 413, 422, 503),
        **common,
    )
    async def new_token(battle: FromPath[str], data: JSONBody[NewToken], request: Request, state: State) -> JoinLink:
        """One more token for a role, labelled; every other token keeps working. The answer holds its
        secret once, with the join link and its QR code."""
        _referee(request)

        def work(store: EventStore) -> JoinLink:
            check_role(data.role, data.side, _sides(store, battle))
            issued = issue_token(store, battle, data.role, data.side, data.label)
            url = join_url(base_url(request, state.settings.public_url), battle, issued.token)
            fields = msgspec.structs.asdict(issued)
            return JoinLink(**fields, join_url=url, qr_svg=svg_qr(url))

        return await state.stores.run(work)  # type: ignore[no-any-return]

    @delete(
        "/battles/{battle:str}/tokens/{token_id:str}",
        status_code=204,
        responses=problem_responses(400, 401, 403, 404, 422, 503),
        **common,
    )
    async def revoke(battle: FromPath[str], token_id: FromPath[str], request: Request, state: State) -> None:
        """Revoke one token by its id; every other keeps working. Not the token this request is made
        with (422): the referee would be locked out."""
        grant = _referee(request)
        if token_id == grant.token_id:
            raise Refusal(
                Words(
                    "this is the token this request is made with: revoking it would lock you out"
                    " (revoke it from another referee token)"
                ),
                field="token_id",
            )
        await state.stores.run(lambda store: revoke_token_id(store, battle, token_id))
        state.hub.revoked(battle)  # its open feeds end here at once (other nodes hear it from the database)

    return [list_tokens, new_token, revoke]
