"""The language a request is answered in: `?lang=`, else the browser's `Accept-Language`, else English.

Middleware, outermost but for CORS, so that everything said while answering the request (the
handler's words, a guard's refusal, a problem's title and detail, a feed's lines) is said in it:
`language.choose` sets it for the request's task alone. A `?lang=` the app does not speak is bad
input like any other: a 400 problem naming the field `lang`.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

import msgspec
from litestar.types import ASGIApp, Receive, Scope, Send

from morale.core.words import Words

from .. import language
from .problems import KINDS, MEDIA_TYPE, Problem


def speaking(app: ASGIApp) -> ASGIApp:
    """Middleware: choose the request's language before anything is said."""

    async def answering(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await app(scope, receive, send)
            return
        asked = asked_for(scope)
        try:
            chosen = language.checked(asked, "lang") if asked is not None else _accepted(scope)
        except language.UnknownLanguage as exc:
            await _refuse(send, exc)
            return
        # A `?lang=` is asked for; the browser's language gives way to a battle's own (battle_token).
        language.choose(chosen, asked=asked is not None)
        await app(scope, receive, send)

    return answering


_KNOWN = ", ".join(language.LANGUAGES)


def asked_for(scope: Scope) -> str | None:
    """The `lang` of the query string, if any (the last one given wins, as Litestar reads a query)."""
    query = scope.get("query_string", b"").decode("latin-1")
    values = [value for key, value in parse_qsl(query, keep_blank_values=True) if key == "lang"]
    return values[-1] if values else None


def chosen_for(scope: Scope) -> str:
    """The language of a request answered before this middleware runs (a CORS refusal): as it would
    choose, an unknown `?lang=` aside (that refusal is this middleware's to make)."""
    asked = asked_for(scope)
    if asked is not None and asked.strip().lower() in language.LANGUAGES:
        return asked.strip().lower()
    return _accepted(scope)


def _accepted(scope: Scope) -> str:
    for key, value in scope["headers"]:
        if key == b"accept-language":
            return language.from_accept_language(value.decode("latin-1")) or language.SOURCE
    return language.SOURCE


async def _refuse(send: Send, exc: language.UnknownLanguage) -> None:
    kind, title = KINDS[400]
    detail = language.say(Words("lang: no language {asked!r} here (known: {known})", asked=exc.asked, known=_KNOWN))
    body = msgspec.json.encode(Problem(type=kind, title=language.say(title), status=400, detail=detail, field="lang"))
    headers = [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": body})
