"""The log as a table: one row per stored event, with its hash link."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from morale.core.fold import Fold
from morale.core.rules import Refusal
from morale.core.state import Battle
from morale.core.words import Words
from morale.events.types import Author, EventRetracted, StoredEvent

from .authorship import author_words
from .narrative import describe_event


class StruckBy(msgspec.Struct, frozen=True, kw_only=True):
    """The retraction that struck an event: where it is in the log, who entered it, and why."""

    seq: int
    author: Author | None
    by: str  # the author in words
    reason: str
    said: str  # all of it in one sentence, for people


def struck_words(seq: int, author: Author | None, by: str, reason: str) -> str:
    if author is None:  # a retraction written before authors were recorded
        return Words("Struck at #{seq}: {reason}", seq=seq, reason=reason)
    return Words("Struck by {by} at #{seq}: {reason}", by=by, seq=seq, reason=reason)


class LogRow(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    recorded_at: str
    type: str
    summary: str
    hash: str
    event: dict
    author: Author | None  # who appended it; None: written before authors were recorded
    by: str  # the author in words: "referee (command line, anna)", "not recorded"
    struck_by: StruckBy | None = None  # the retraction that struck it, if one has


def log_rows(
    battle_id: str, events: Iterable[StoredEvent], start: Battle | None = None, start_seq: int = 0
) -> list[LogRow]:
    """A row for each event; from `start` (the battle right after event `start_seq`, say from a
    snapshot) when the events given begin later than the first. A retraction needs the whole log to
    be read: a page from a snapshot that holds one is refused (read it from the start)."""
    fold = Fold(battle_id, battle=start, start_seq=start_seq)
    rows = []
    for stored in events:
        if start_seq and isinstance(stored.event, EventRetracted):
            raise Refusal(Words("a page of the log holding a retraction is read from the start"), field="after")
        fold.advance(stored.seq, stored.event)
        rows.append(
            LogRow(
                seq=stored.seq,
                recorded_at=stored.recorded_at,
                type=stored.event.__struct_config__.tag,  # type: ignore[arg-type]
                summary=describe_event(stored.event, fold.state()),
                hash=stored.hash,
                event=msgspec.to_builtins(stored.event),
                author=stored.author,
                by=author_words(stored.author),
            )
        )
    return _marked_struck(rows)


def _marked_struck(rows: list[LogRow]) -> list[LogRow]:
    """Each struck row names the retraction that struck it (which comes later in the log)."""
    strikes: dict[int, StruckBy] = {}
    for row in rows:
        if row.type == "event_retracted":
            by, reason = row.by, row.event["reason"]
            strikes[row.event["seq"]] = StruckBy(
                seq=row.seq, author=row.author, by=by, reason=reason, said=struck_words(row.seq, row.author, by, reason)
            )
    if not strikes:
        return rows
    return [msgspec.structs.replace(row, struck_by=strikes[row.seq]) if row.seq in strikes else row for row in rows]
