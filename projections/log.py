"""The log as a table: one row per stored event, with its hash link."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from morale.core.replay import Replay
from morale.events.types import StoredEvent

from .narrative import describe_event


class LogRow(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    recorded_at: str
    type: str
    summary: str
    hash: str
    event: dict


def log_rows(battle_id: str, events: Iterable[StoredEvent]) -> list[LogRow]:
    fold = Replay(battle_id)
    rows = []
    for stored in events:
        fold.apply(stored.seq, stored.event)
        rows.append(
            LogRow(
                seq=stored.seq,
                recorded_at=stored.recorded_at,
                type=stored.event.__struct_config__.tag,  # type: ignore[arg-type]
                summary=describe_event(stored.event, fold.state()),
                hash=stored.hash,
                event=msgspec.to_builtins(stored.event),
            )
        )
    return rows
