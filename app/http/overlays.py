"""The stream overlays: pages for an OBS browser source, served at /overlay/{strip,banner,ticker}.

Each is a static page (`static/overlay/`) under the console's Content-Security-Policy: it runs only
this server's scripts and styles and talks only to this server. The battle and its overlay token
are in the address's fragment (`#battle=ID&token=SECRET`), which the browser never sends to a
server, and no answer names its page to another (Referrer-Policy, server.security_headers). The
query's `size`, `theme` and `delay` are checked here, so a mistyped URL is refused at once with the
parameter named, before OBS shows an empty scene; `side` is the battle's, so the page checks it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from litestar import Response, get
from litestar.params import FromPath, FromQuery
from litestar.response import File

from morale.core.words import Words

from .problems import problem

OVERLAY = Path(__file__).parent / "static" / "overlay"
Overlay = Literal["strip", "banner", "ticker"]
OVERLAYS: tuple[Overlay, ...] = ("strip", "banner", "ticker")
SIZES = ("small", "medium", "large")
THEMES = ("dark", "light")
MOST_DELAY_S = 3600  # an hour: a tournament's delay is seconds or minutes


def refusal(size: str | None, theme: str | None, delay: str | None) -> Response | None:
    """The first parameter that is not one the pages know, refused in words naming it."""
    if size is not None and size not in SIZES:
        detail = Words("size: {size!r} is not a size; the sizes are {sizes}", size=size, sizes=", ".join(SIZES))
        return problem(400, detail, field="size")
    if theme is not None and theme not in THEMES:
        detail = Words(
            "theme: {theme!r} is not a theme; the themes are {themes}", theme=theme, themes=", ".join(THEMES)
        )
        return problem(400, detail, field="theme")
    if delay is not None and not (delay.isascii() and delay.isdigit() and int(delay) <= MOST_DELAY_S):
        detail = Words(
            "delay: {delay!r} is not a delay; it is a whole number of seconds from 0 to {most}",
            delay=delay,
            most=MOST_DELAY_S,
        )
        return problem(400, detail, field="delay")
    return None


def overlay_route(policy: str) -> Any:
    """The overlays' route, under `policy` (the console's Content-Security-Policy)."""

    @get("/overlay/{name:str}", include_in_schema=False)
    async def overlay(
        name: FromPath[str],
        size: FromQuery[str | None] = None,
        theme: FromQuery[str | None] = None,
        delay: FromQuery[str | None] = None,
        side: FromQuery[str | None] = None,  # the battle's: the page checks it
        lang: FromQuery[str | None] = None,  # the page's language: checked before (speaking.py), read by the page
    ) -> Response | File:
        if name not in OVERLAYS:
            detail = Words(
                "there is no overlay {name!r}; the overlays are {overlays}", name=name, overlays=", ".join(OVERLAYS)
            )
            return problem(404, detail)
        refused = refusal(size, theme, delay)
        if refused is not None:
            return refused
        return File(
            OVERLAY / f"{name}.html",
            content_disposition_type="inline",
            media_type="text/html",
            headers={"Content-Security-Policy": policy, "Cache-Control": "no-cache"},
        )

    return overlay
