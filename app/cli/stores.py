"""Moving a store: `morale copy` carries battles from one store to another (SQLite or PostgreSQL)."""

from __future__ import annotations

from typing import Annotated

import typer

from morale.core.rules import Refusal
from morale.core.words import Words, counted
from morale.events.locate import shown
from morale.events.store import EventStore, StoreUnavailable

from .. import language
from ..copying import copy_battles
from .base import Json, app, emit_json, open_store, out, refusals
from .render import styled


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
            raise Refusal(Words("the same store as --from"), field="--to")
        copied = copy_battles(_opened("--from", source), _opened("--to", target, create=True), battle or ())
        if as_json:
            emit_json([{"battle": c.battle, "events": c.events, "head": c.head, "copied": c.written} for c in copied])
            return
        say = language.say
        for c in copied:
            if c.written:
                done = counted(
                    "{battle}: {n} event, head {head} (copied)",
                    "{battle}: {n} events, head {head} (copied)",
                    n=c.events,
                    battle=c.battle,
                    head=c.head,
                )
            else:
                done = counted(
                    "{battle}: {n} event, head {head} (already there, the same log)",
                    "{battle}: {n} events, head {head} (already there, the same log)",
                    n=c.events,
                    battle=c.battle,
                    head=c.head,
                )
            out.print(styled(done, "battle", c.battle, "bold"))
        # "battles" as English has always said it ("1 of 1 battles copied"); Russian agrees it with the number.
        total = counted(
            "{copied} of {n} battles copied to {store}.",
            "{copied} of {n} battles copied to {store}.",
            n=len(copied),
            copied=sum(c.written for c in copied),
            store=shown(target),
        )
        out.print(say(total))


def _opened(option: str, location: str, create: bool = False) -> EventStore:
    """The store an option names; a place that holds none is refused naming that option."""
    try:
        return open_store(location, create=create)
    except StoreUnavailable as exc:
        raise Refusal(Words("{path}: {reason}", path=exc.path, reason=exc.reason), field=option) from None
