"""Who is appending: the `Author` sealed with each event, built at the edge where the write came in.

A command typed at the machine that holds the store writes as the referee, labelled with the login
name of who typed it; a call over HTTP writes as its token's role, side, id and label. Every author
is held to `Author`'s limits before it is sealed: a login name or a label beyond them is left out
rather than sealed into bytes that a reader would then refuse.
"""

from __future__ import annotations

import getpass
from collections.abc import Sequence

import msgspec

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.words import Words
from morale.events.types import AnyEvent, Author, Via

from .access import Forbidden, Grant, check_may_append

CONSOLE_HEADER = "X-Morale-Via"  # the console's page says so on every call: `X-Morale-Via: console`


def _held_to_limits(role: str, via: Via, side: str = "", token: str = "", label: str = "") -> Author:
    fields = {"role": role, "via": via, "side": side, "token": token, "label": label}
    try:
        return msgspec.convert(fields, Author)
    except msgspec.ValidationError:
        # Only a label comes from outside what morale itself names (a login name, a credential's
        # label): the rest are the grant's and the store's own.
        return msgspec.convert({**fields, "label": ""}, Author)


def login_name() -> str:
    """The name of who is logged in at this machine, or "" where the system cannot say."""
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):  # no LOGNAME and no passwd entry (a bare container)
        return ""


def cli_author(via: Via = "cli") -> Author:
    """A command typed at the machine that holds the store: the referee, by their login name."""
    return _held_to_limits("referee", via, label=login_name())


def cli_side_author(side: str, via: Via = "cli") -> Author:
    """A side's player at the machine that holds the store (a hot-seat game without a referee, where
    both players take turns at one keyboard), by the login name of who typed it."""
    return _held_to_limits("player", via, side=side, label=login_name())


def grant_author(grant: Grant, via: Via) -> Author:
    """A write over HTTP, as its token's grant: a spectator records nothing, so it is never one."""
    if grant.role == "spectator":
        raise ValueError(Words("role: a spectator records nothing"))
    side = grant.side if grant.role == "player" else ""
    return _held_to_limits(grant.role, via, side=side, token=grant.token_id, label=grant.label)


def via_of(header: str | None) -> Via:
    """The way in of an HTTP write: the console's page says it is the console; anything else is the API."""
    return "console" if header == "console" else "http"


def side_player_author(fold: Fold, side: str, events: Sequence[AnyEvent], via: Via = "cli") -> Author:
    """The author of events a side's player types at this machine, held to what a player's token may
    enter (their own side's units; in a battle without a referee, their own phases too)."""
    sides = fold.state().sides
    if side not in sides:
        said = Words("{side!r} is not a side of this battle ({sides})", side=side, sides=", ".join(sides))
        raise Refusal(said, field="side")
    try:
        check_may_append(Grant(role="player", side=side), fold.state(), events)
    except Forbidden as forbidden:
        raise Refusal(forbidden.message, field=forbidden.field or "side") from None
    return cli_side_author(side, via)
