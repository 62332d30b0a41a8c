"""Why a unit stands where it does: the chain of events and conclusions behind its state.

Every outcome carries the sequence numbers of the events that caused it, so the chain is walked
backwards from what the unit is now (its last state change, the tests it faces, its restrictions)
through the outcomes those events caused for it, down to the unit joining the battle.

A small read model for the server and the viewer; the audit tools' `explain` supersedes it when
they land (same idea, more detail).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

import msgspec

from morale.core.outcomes import Outcome, StateChanged
from morale.core.replay import Replay
from morale.core.rules import Refusal
from morale.events.types import StoredEvent, UnitJoined

from .narrative import describe_event, describe_outcome


class Conclusion(msgspec.Struct, frozen=True, kw_only=True):
    kind: str
    rule: str
    text: str
    caused_by: tuple[int, ...]


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """One event in the chain, where it happened on the clock, and what it caused for the unit."""

    seq: int
    type: str
    turn: int
    side: str | None
    phase: str | None
    summary: str
    conclusions: list[Conclusion]


class Explanation(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    unit: str
    name: str
    side: str
    state: str
    seq: int  # the point in the log the explanation is for
    steps: list[Step]


def explain(battle_id: str, events: Iterable[StoredEvent], unit_id: str) -> Explanation:
    fold = Replay(battle_id)
    steps: dict[int, Step] = {}
    caused_for_unit: dict[int, list[Outcome]] = {}
    for stored in events:
        caused = fold.apply(stored.seq, stored.event)
        battle = fold.state()
        mine = [o for o in caused if o.unit == unit_id]
        caused_for_unit[stored.seq] = mine
        steps[stored.seq] = Step(
            seq=stored.seq,
            type=stored.event.__struct_config__.tag,  # type: ignore[arg-type]
            turn=battle.turn,
            side=battle.active_side,
            phase=battle.phase,
            summary=describe_event(stored.event, battle),
            conclusions=[
                Conclusion(
                    kind=o.__struct_config__.tag,  # type: ignore[arg-type]
                    rule=o.rule,
                    text=describe_outcome(o, battle),
                    caused_by=o.caused_by,
                )
                for o in mine
            ],
        )
        if isinstance(stored.event, UnitJoined) and stored.event.unit == unit_id:
            joined = stored.seq
    battle = fold.state()
    unit = battle.units.get(unit_id)
    if unit is None:
        raise Refusal(f"no unit {unit_id!r} in this battle", field="unit")

    # Where the walk starts: what the unit is now, and why.
    roots = {joined}
    changes = [(seq, o) for seq, outs in caused_for_unit.items() for o in outs if isinstance(o, StateChanged)]
    if changes:
        seq, last = changes[-1]
        roots |= {seq, *last.caused_by}
    for due in battle.due_for(unit_id):
        roots |= set(due.caused_by)
    for held in [*unit.restrictions, *unit.pending]:
        roots |= set(held.caused_by)

    # A state change also stands on the one before it: a unit is tested to regroup because it
    # was falling back, and it fell back because it failed a test.
    previous_change = {seq: before for (before, _), (seq, _) in pairwise(changes)}
    chain: set[int] = set()
    todo = sorted(roots)
    while todo:
        seq = todo.pop()
        if seq in chain or seq not in steps:
            continue
        chain.add(seq)
        for outcome in caused_for_unit[seq]:
            todo.extend(s for s in outcome.caused_by if s not in chain)
            if isinstance(outcome, StateChanged) and seq in previous_change:
                todo.append(previous_change[seq])
    return Explanation(
        battle=battle_id,
        unit=unit.id,
        name=unit.name,
        side=unit.side,
        state=unit.state,
        seq=fold.seq,
        steps=[steps[seq] for seq in sorted(chain)],
    )
