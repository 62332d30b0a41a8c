"""CORS: which web pages served elsewhere may call this server, decided at each request.

Two lists allow an origin: the server's own (`morale serve --allow-origin`, for every battle and
every route, fixed while it runs) and each battle's (`morale cors BATTLE --allow`, or the referee's
`POST /battles/{id}/origins`), read from the store at each cross-origin request, so an origin the
referee allows or removes is answered so at once, on every node, without a restart. The client
library and the feed's schema (`/static/...`, `/feed.schema.json`) are public: any page may load them.

An allowed origin's requests are answered with `Access-Control-Allow-Origin` naming it (and `Vary:
Origin`), and its preflights with the methods and headers the API takes. A refused origin gets no
allow header (the browser then keeps the answer from the page), and its preflight a 403 problem
that names the origin and says how the referee allows it: a page's developer reads why in the
browser's network panel. No cookie opens anything here (tokens are sent as headers), so no answer
allows credentials.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import msgspec
from litestar import Request, get, post
from litestar.datastructures import State
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, JSONBody
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from msgspec import Meta

from morale.core.words import Words
from morale.events.store import EventStore

from .. import language
from ..access import Forbidden, Grant
from ..origins import ORIGIN_MAX, ORIGINS_MAX, allowed_origins, change_origins
from .problems import MEDIA_TYPE, Problem, problem_responses
from .speaking import chosen_for

METHODS = ("GET", "POST", "DELETE")
# What a page's request may carry: its token, a JSON body, and the feed's resume point.
HEADERS = ("authorization", "content-type", "last-event-id")
MAX_AGE_S = 600  # a browser may keep a preflight's answer this long; each request is still checked
PUBLIC = ("/static/", "/feed.schema.json")  # what any page may load: no token, nothing of a battle's

_problem = msgspec.json.Encoder()


def cors(app: ASGIApp) -> ASGIApp:
    """Middleware: answer preflights, and name an allowed origin on every answer to it."""

    async def answering(scope: Scope, receive: Receive, send: Send) -> None:
        origin = _header(scope, b"origin")
        if scope["type"] != "http" or origin is None or origin == _own_origin(scope):
            await app(scope, receive, send)
            return
        allowed = await _allowed(scope, origin)
        if scope["method"] == "OPTIONS" and _header(scope, b"access-control-request-method") is not None:
            await _preflight(scope, send, origin, allowed)
            return
        if allowed is None:
            await app(scope, receive, send)
            return

        async def naming(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_allow_headers(allowed)]
            await send(message)

        await app(scope, receive, naming)

    return answering


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


def _own_origin(scope: Scope) -> str:
    """The origin of the server's own pages (the console): their requests need no CORS."""
    return f"{scope.get('scheme', 'http')}://{_header(scope, b'host') or ''}"


async def _allowed(scope: Scope, origin: str) -> str | None:
    """What `Access-Control-Allow-Origin` answers this origin with (itself, or `*` for a public
    file), or None if it is not allowed here."""
    path: str = scope["path"]
    if scope["method"] in ("GET", "HEAD", "OPTIONS") and path.startswith(PUBLIC):
        return "*"
    app = scope["litestar_app"]
    if origin in app.state.settings.allow_origins:
        return origin
    battle = (scope.get("path_params") or {}).get("battle")
    if not isinstance(battle, str):
        return None
    kept: list[str] = await app.state.stores.run(lambda store: store.allowed_origins(battle))
    return origin if origin in kept else None


def _allow_headers(allowed: str) -> list[tuple[bytes, bytes]]:
    headers = [(b"access-control-allow-origin", allowed.encode("latin-1"))]
    return headers if allowed == "*" else [*headers, (b"vary", b"Origin")]


async def _preflight(scope: Scope, send: Send, origin: str, allowed: str | None) -> None:
    method = (_header(scope, b"access-control-request-method") or "").strip().upper()
    asked = [h.strip().lower() for h in (_header(scope, b"access-control-request-headers") or "").split(",")]
    unknown = [h for h in asked if h and h not in HEADERS]
    battle = (scope.get("path_params") or {}).get("battle")
    if allowed is None:
        await _refuse(send, _not_allowed(origin, battle), "Origin", scope)
    elif method not in METHODS:
        detail = Words(
            "Access-Control-Request-Method: {method} is not a method of this API ({methods})",
            method=method,
            methods=", ".join(METHODS),
        )
        await _refuse(send, detail, "Access-Control-Request-Method", scope)
    elif unknown:
        said = ", ".join(unknown)
        detail = Words(
            "Access-Control-Request-Headers: {said} is not a header this API takes ({headers})",
            said=said,
            headers=", ".join(HEADERS),
        )
        await _refuse(send, detail, "Access-Control-Request-Headers", scope)
    else:
        headers = [
            *_allow_headers(allowed),
            (b"access-control-allow-methods", ", ".join(METHODS).encode()),
            (b"access-control-allow-headers", ", ".join(HEADERS).encode()),
            (b"access-control-max-age", str(MAX_AGE_S).encode()),
        ]
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})


def _not_allowed(origin: str, battle: object) -> str:
    if isinstance(battle, str):
        return Words(
            "Origin: {origin} is not allowed to call this server about battle {battle!r}; its referee allows"
            " it with `morale cors {battle} --allow {origin}`",
            origin=origin,
            battle=battle,
        )
    return Words(
        "Origin: {origin} is not allowed to call this server; it allows it with `morale serve --allow-origin {origin}`",
        origin=origin,
    )


ORIGIN_REFUSED = Words("This web origin may not call the server")


async def _refuse(send: Send, detail: str, field: str, scope: Scope) -> None:
    # Outside the request's language middleware (CORS answers first): its language is chosen here.
    chosen = chosen_for(scope)
    body = Problem(
        type="urn:morale:problem:origin",
        title=language.say(ORIGIN_REFUSED, chosen),
        status=403,
        detail=language.say(detail, chosen),
        field=field,
    )
    headers = [(b"content-type", MEDIA_TYPE.encode()), (b"vary", b"Origin")]
    await send({"type": "http.response.start", "status": 403, "headers": headers})
    await send({"type": "http.response.body", "body": _problem.encode(body)})


# -- the referee's routes -----------------------------------------------------------------------------
class Origins(msgspec.Struct, frozen=True, kw_only=True):
    """The origins allowed to call the server about a battle, sorted."""

    battle: str
    origins: list[str]


class ChangeOrigins(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Allow some origins and stop allowing others, all or none."""

    allow: Annotated[list[Annotated[str, Meta(max_length=ORIGIN_MAX)]], Meta(max_length=ORIGINS_MAX)] = []
    remove: Annotated[list[Annotated[str, Meta(max_length=ORIGIN_MAX)]], Meta(max_length=ORIGINS_MAX)] = []


def _referee(request: Request) -> Grant:
    grant: Grant = request.state.grant
    if grant.role != "referee":
        raise Forbidden("only the referee's token lists or changes the origins allowed for the battle")
    return grant


def origin_routes(guard: object, security: Sequence[dict[str, list[str]]]) -> list[HTTPRouteHandler]:
    """The two operations, behind the server's battle-token guard."""
    common = {"guards": [guard], "tags": ["origins"], "security": list(security)}

    @get("/battles/{battle:str}/origins", responses=problem_responses(400, 401, 403, 503), **common)
    async def list_origins(battle: FromPath[str], request: Request, state: State) -> Origins:
        """The web origins allowed to call the server about this battle (CORS), besides the server's own."""
        _referee(request)
        kept = await state.stores.run(lambda store: allowed_origins(store, battle))
        return Origins(battle=battle, origins=kept)  # type: ignore[arg-type]

    @post(
        "/battles/{battle:str}/origins",
        status_code=200,
        responses=problem_responses(400, 401, 403, 413, 422, 503),
        **common,
    )
    async def set_origins(
        battle: FromPath[str], data: JSONBody[ChangeOrigins], request: Request, state: State
    ) -> Origins:
        """Allow origins (`allow`) and stop allowing others (`remove`), all or none; answered at once
        by every node, without a restart. A refusal names the field; nothing is changed."""
        _referee(request)

        def work(store: EventStore) -> list[str]:
            return change_origins(store, battle, data.allow, data.remove)

        return Origins(battle=battle, origins=await state.stores.run(work))  # type: ignore[arg-type]

    return [list_origins, set_origins]
