"""Time travel: the battle as it stood after any event, and the marks to scrub through.

`state_at` replays only the first `seq` events, so a retraction recorded later does not reach
back: the battle is shown as the table saw it then. (To be reconciled with the audit tools' time
travel when they land.)
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import takewhile

import msgspec

from morale.core.replay import Replay, replay
from morale.core.rules import Refusal
from morale.events.types import PhaseStarted, StoredEvent

from .narrative import describe_event


class Mark(msgspec.Struct, frozen=True, kw_only=True):
    """Where the battle's clock stood after one event, and the event in words."""

    seq: int
    type: str
    turn: int
    side: str | None
    phase: str | None
    phase_open: bool
    summary: str
    phase_starts: bool = False  # true on the event that opens a phase: the timeline's ticks


def until(events: Iterable[StoredEvent], seq: int) -> list[StoredEvent]:
    """The first `seq` events of the log; refused if the log is shorter."""
    if seq < 1:
        raise Refusal("a point in the battle is a sequence number from 1 (the battle's first event)", field="at")
    first = list(takewhile(lambda stored: stored.seq <= seq, events))
    if len(first) < seq:
        raise Refusal(f"the log ends at {len(first)}; there is no event {seq} yet", field="at")
    return first


def replay_until(battle_id: str, events: Iterable[StoredEvent], seq: int) -> Replay:
    """The battle as it stood right after event `seq`."""
    return replay(battle_id, until(events, seq))


def timeline(battle_id: str, events: Iterable[StoredEvent]) -> list[Mark]:
    fold = Replay(battle_id)
    marks = []
    for stored in events:
        fold.apply(stored.seq, stored.event)
        battle = fold.state()
        marks.append(
            Mark(
                seq=stored.seq,
                type=stored.event.__struct_config__.tag,  # type: ignore[arg-type]
                turn=battle.turn,
                side=battle.active_side,
                phase=battle.phase,
                phase_open=battle.phase_open,
                summary=describe_event(stored.event, battle),
                phase_starts=isinstance(stored.event, PhaseStarted),
            )
        )
    return marks
