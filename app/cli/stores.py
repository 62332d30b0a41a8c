"""Moving a store: `morale copy` carries battles from one store to another (SQLite or PostgreSQL)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from morale.core.rules import Refusal
from morale.events.locate import shown
from morale.events.store import EventStore, StoreUnavailable

from ..copying import copy_battles
from .base import Json, app, emit_json, open_store, out, refusals


@app.command("copy")
def copy_command(
    source: Annotated[
        str, typer.Option("--from", help="The store to copy from: a SQLite file or a postgresql:// URL.")
    ],
    target: Annotated[
        str, typer.Option("--to", help="The store to copy into, SQLite or PostgreSQL (created if need be).")
    ],
    battle: Annotated[
        list[str] | None, typer.Option(help="Only this battle; repeatable (default: every battle).")
    ] = None,
    as_json: Json = False,
) -> None:
    """Copy battles into another store, each checked as `morale import` checks a file: identical
    hashes, with its dice secret and its tokens' hashes. A battle the target already holds is
    skipped if it is the same log, refused if not; nothing is written unless every battle passes."""
    with refusals(as_json):
        if source == target:
            raise Refusal("the same store as --from", field="--to")
        copied = copy_battles(_opened("--from", source), _opened("--to", target, create=True), battle or ())
        if as_json:
            emit_json([{"battle": c.battle, "events": c.events, "head": c.head, "copied": c.written} for c in copied])
            return
        for c in copied:
            done = "copied" if c.written else "already there, the same log"
            out.print(Text(c.battle, style="bold") + Text(f": {c.events} events, head {c.head} ({done})"))
        out.print(f"{sum(c.written for c in copied)} of {len(copied)} battles copied to {shown(target)}.")


def _opened(option: str, location: str, create: bool = False) -> EventStore:
    """The store an option names; a place that holds none is refused naming that option."""
    try:
        return open_store(location, create=create)
    except StoreUnavailable as exc:
        raise Refusal(str(exc), field=option) from None
