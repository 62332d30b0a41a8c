"""The web origins a referee allows to call the server about a battle (CORS), kept in the store.

A page served elsewhere (a stream overlay on a streamer's own site, a league's scoreboard) may read
a battle's feed and board, and with a token that writes, append, once its origin is allowed for the
battle: `morale cors BATTLE --allow ORIGIN` or `POST /battles/{id}/origins`. Kept in the store, so
every node serving it answers the change at its next request, without a restart. An origin is a
scheme, a host and a port as a browser sends it in `Origin`: `https://overlay.example`,
`http://127.0.0.1:9000`; never a path, a wildcard or `null` (what a file:// page or a sandbox
sends, which any page can claim).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.store import EventStore, UnknownBattle

ORIGIN_MAX = 200  # characters: a scheme, a host name and a port
ORIGINS_MAX = 50  # a battle's allowed origins: a few overlays and sites, not a list of the web
_HOST = r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*"
_ORIGIN = re.compile(rf"(?P<scheme>https?)://(?P<host>{_HOST}|\[[0-9a-f:.]+\])(?::(?P<port>[0-9]{{1,5}}))?")
_DEFAULT_PORT = {"http": 80, "https": 443}


def check_origin(origin: str, field: str = "origin") -> str:
    """The origin as a browser sends it (lower case, no default port), or a refusal naming `field`."""
    given = origin.strip()
    if len(given) > ORIGIN_MAX:
        said = Words("an origin is at most {most} characters, not {length}", most=ORIGIN_MAX, length=len(given))
        raise Refusal(said, field=field)
    if given in ("*", "null"):
        said = Words(
            "{origin!r} is not an origin one page alone sends: name the page's origin, e.g. https://overlay.example",
            origin=given,
        )
        raise Refusal(said, field=field)
    found = _ORIGIN.fullmatch(given.lower())
    if found is None:
        said = Words(
            "{origin!r} is not a web origin: a scheme, a host and maybe a port, with no path"
            " (https://overlay.example, http://127.0.0.1:9000)",
            origin=given,
        )
        raise Refusal(said, field=field)
    port = found["port"]
    if port is not None and not 0 < int(port) < 65536:
        raise Refusal(Words("{origin!r}: a port is 1 to 65535, not {port}", origin=given, port=port), field=field)
    scheme, host = found["scheme"], found["host"]
    shown_port = "" if port is None or int(port) == _DEFAULT_PORT[scheme] else f":{int(port)}"
    return f"{scheme}://{host}{shown_port}"


def allowed_origins(store: EventStore, battle: str) -> list[str]:
    """The battle's allowed origins, sorted; a battle the store does not hold is refused."""
    if not store.last_seq(battle):
        raise UnknownBattle(battle)
    return store.allowed_origins(battle)


def change_origins(store: EventStore, battle: str, allow: Sequence[str] = (), remove: Sequence[str] = ()) -> list[str]:
    """Allow some origins and stop allowing others, all or none: the battle's origins afterwards.
    Removing an origin that is not allowed is refused (a typo would otherwise leave the one meant
    allowed); so is one named both ways."""
    kept = allowed_origins(store, battle)
    added = [check_origin(origin, "allow") for origin in allow]
    removed = [check_origin(origin, "remove") for origin in remove]
    for origin in removed:
        if origin in added:
            raise Refusal(Words("{origin} is both allowed and removed: give it once", origin=origin), field="remove")
        if origin not in kept:
            if kept:
                said = Words(
                    "{origin} is not allowed for battle {battle!r} (allowed: {allowed})",
                    origin=origin,
                    battle=battle,
                    allowed=", ".join(kept),
                )
            else:
                said = Words(
                    "{origin} is not allowed for battle {battle!r} (allowed: none)", origin=origin, battle=battle
                )
            raise Refusal(said, field="remove")
    after = sorted((set(kept) | set(added)) - set(removed))
    if len(after) > ORIGINS_MAX:
        said = Words("a battle allows at most {most} origins, not {count}", most=ORIGINS_MAX, count=len(after))
        raise Refusal(said, field="allow")
    store.change_origins(battle, add=added, drop=removed)
    return after
