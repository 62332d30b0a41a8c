"""Join links: the URL that opens a battle in the console with a token, and its QR code, drawn by
segno for a terminal (`morale serve --table`) or as inline SVG (the console's Share screen).

The token rides in the URL's fragment (`#battle=...&token=...`), which a browser never sends: it
reaches no server's or proxy's log. The console keeps it and takes it out of the address bar.
"""

from __future__ import annotations

import io
from urllib.parse import quote, urlsplit

import segno

from morale.core.rules import Refusal
from morale.core.words import Words

VIEW = "/view"


def join_url(base: str, battle: str, token: str, *, tab: str | None = None) -> str:
    """`<base>/view#battle=ID&token=SECRET` (and `&tab=NAME` to open on that screen)."""
    fragment = f"battle={quote(battle, safe='')}&token={quote(token, safe='')}"
    if tab:
        fragment += f"&tab={quote(tab, safe='')}"
    return f"{base.rstrip('/')}{VIEW}#{fragment}"


def check_public_url(url: str) -> str:
    """A base the join links start with: http(s), a host, no query or fragment of its own."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise Refusal(Words("expected http(s)://HOST[:PORT][/PATH], not {url!r}", url=url), field="public-url")
    return url.rstrip("/")


def _code(url: str) -> segno.QRCode:
    return segno.make(url, error="m", micro=False)  # "m": still read with a glare across a phone's screen


def terminal_qr(url: str) -> str:
    """The QR code in text, two modules a character (light drawn as blocks, for a dark terminal)."""
    drawn = io.StringIO()
    _code(url).terminal(out=drawn, compact=True, border=2)
    return drawn.getvalue()


def svg_qr(url: str) -> str:
    """The QR code as an inline `<svg>` element, to put in a page as it is."""
    return _code(url).svg_inline(scale=6, border=2, dark="#000", light="#fff")
