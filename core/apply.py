"""`apply`: the one place a battle changes by what the rules decide.

The rules (the engine's reactions and each game's, `core/reactions.py`) decide outcomes; the walk
applies each here before it walks the reactions to it, and before the next outcome of the same
reaction. A cascade (a unit that falls back and must then make its move, a rout that makes its
neighbours test) is more outcomes walked in turn, each applied in its turn. So what an event is
reported to have caused is exactly what changed: they cannot disagree.

A unit moves between states only along its ruleset's graph (`StateGraph.fire` checks every move),
but for a referee's ruling, which is outside the graph by design and always recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .outcomes import (
    Chosen,
    Cleared,
    DueAmended,
    DueSettled,
    EngagementChanged,
    Marked,
    MarkerPlaced,
    Moved,
    Noted,
    Outcome,
    ProfileChanged,
    Remembered,
    RestrictionApplied,
    RestrictionLifted,
    Rolled,
    Scheduled,
    Settled,
    StateChanged,
    StateChangeScheduled,
    TestCalled,
    TestDue,
    TestNotTaken,
    TestResolved,
    Unscheduled,
)
from .rules import RULING, filed_under
from .state import Battle, DueTest, Pending, Restriction


def apply(battle: Battle, outcome: Outcome) -> None:
    """Change the battle as `outcome` says."""
    _APPLY[type(outcome)](battle, outcome)


# How each kind of outcome changes a battle: outcome type -> apply(battle, outcome), each change filed
# under its type where it is written (`@filed_under(_APPLY, StateChanged)`), as the folds are.
_APPLY: dict[type[Outcome], Callable[[Battle, Any], None]] = {}


@filed_under(_APPLY, StateChanged)
def _moved_on(battle: Battle, change: StateChanged) -> None:
    unit = battle.own(change.unit)
    if change.move:
        battle.ruleset.graph.fire(unit, change.move, change.to_state)
    else:
        if change.rule != RULING:
            raise AssertionError(f"{change.rule}: only a referee's ruling moves a unit outside its graph")
        battle.ruleset.graph.force(unit, change.to_state)


@filed_under(_APPLY, TestDue)
def _due(battle: Battle, due: TestDue) -> None:
    battle.due.append(
        DueTest(
            unit=due.unit,
            test=due.test,
            rule=due.trigger or due.rule,
            caused_by=due.caused_by,
            dice=due.dice,
            modifiers=due.modifiers,
            decisions=due.decisions,
            opponents=due.opponents,
            reroll=due.rule if due.trigger else "",
            facts=due.facts,
        )
    )


@filed_under(_APPLY, TestNotTaken)
def _not_taken(battle: Battle, skipped: TestNotTaken) -> None:
    if skipped.withdrawn:
        found = next(d for d in battle.due if (d.unit, d.test, d.rule) == (skipped.unit, skipped.test, skipped.trigger))
        battle.due.remove(found)


@filed_under(_APPLY, DueAmended)
def _amended(battle: Battle, amended: DueAmended) -> None:
    battle.due[battle.due.index(amended.before)] = amended.after


@filed_under(_APPLY, DueSettled)
@filed_under(_APPLY, Rolled)
@filed_under(_APPLY, Chosen)
def _settled(battle: Battle, settled: DueSettled | Rolled | Chosen) -> None:
    # A due test settled without dice, rolled for, or decided leaves the list of tests due.
    battle.due.remove(settled.due)


@filed_under(_APPLY, RestrictionApplied)
def _restricted(battle: Battle, applied: RestrictionApplied) -> None:
    unit = battle.own(applied.unit)
    if unit.restricted(applied.restriction):
        unit.restrictions = [r for r in unit.restrictions if r.name != applied.restriction]
    unit.restrictions.append(
        Restriction(name=applied.restriction, rule=applied.rule, until=applied.ends, caused_by=applied.caused_by)
    )


@filed_under(_APPLY, RestrictionLifted)
def _lifted(battle: Battle, lifted: RestrictionLifted) -> None:
    unit = battle.own(lifted.unit)
    lifting = unit.restricted(lifted.restriction)
    if lifting is None:  # a rule lifts only a restriction it finds on the unit
        raise ValueError(f"{lifted.unit} has no restriction {lifted.restriction!r} to lift")
    unit.restrictions.remove(lifting)


@filed_under(_APPLY, StateChangeScheduled)
@filed_under(_APPLY, Scheduled)
def _scheduled(battle: Battle, scheduled: Scheduled | StateChangeScheduled) -> None:
    pending = Pending(trigger=scheduled.move, at=scheduled.when, caused_by=scheduled.caused_by)
    battle.own(scheduled.unit).pending.append(pending)


@filed_under(_APPLY, Unscheduled)
def _unscheduled(battle: Battle, done: Unscheduled) -> None:
    pending = battle.own(done.unit).pending
    pending.remove(next(p for p in pending if (p.trigger, p.at) == (done.move, done.when)))


@filed_under(_APPLY, Cleared)
def _cleared(battle: Battle, cleared: Cleared) -> None:
    unit = battle.own(cleared.unit)
    unit.pending.clear()
    unit.restrictions.clear()


@filed_under(_APPLY, Marked)
def _marked(battle: Battle, marked: Marked) -> None:
    battle.own(marked.unit).phase_marks.add(marked.mark)


@filed_under(_APPLY, Noted)
def _noted(battle: Battle, noted: Noted) -> None:
    notes = battle.own(noted.unit).notes
    for key, value in noted.notes.items():
        if value is None:
            notes.pop(key, None)
        else:
            notes[key] = value


@filed_under(_APPLY, Remembered)
def _remembered(battle: Battle, remembered: Remembered) -> None:
    if not remembered.unit and not remembered.note:
        battle.memory = remembered.changes["memory"]
        return
    memory = battle.own(remembered.unit).notes[remembered.note] if remembered.unit else battle.memory
    for name, value in remembered.changes.items():
        setattr(memory, name, value)


@filed_under(_APPLY, ProfileChanged)
def _profile(battle: Battle, changed: ProfileChanged) -> None:
    battle.own(changed.unit).profile.update(changed.changes)


# What a rule reports and the battle keeps no trace of: a test's result, a move, a marker, a combat
# joined or left (its consequences are outcomes of their own).
# A test called for and a result that stands are triggers: the battle changes by what answers them.
CHANGES_NOTHING = (TestResolved, Moved, MarkerPlaced, EngagementChanged, TestCalled, Settled)
for _reported_only in CHANGES_NOTHING:
    _APPLY[_reported_only] = lambda battle, outcome: None
# The changes by outcome type, without those that change nothing: the reaction walk looks each
# outcome up here and calls nothing for a result, a move or a test called for.
CHANGES: dict[type[Outcome], Callable[[Battle, Any], None]] = {
    kind: change for kind, change in _APPLY.items() if kind not in CHANGES_NOTHING
}
# What the walk does with each kind of outcome, in one lookup: its change (None: it changes
# nothing) and whether it is part of the explanation.
PLAN: dict[type[Outcome], tuple[Callable[[Battle, Any], None] | None, bool]] = {
    kind: (CHANGES.get(kind), kind.reported) for kind in _APPLY
}

# The kinds of outcome that are part of the explanation (`Outcome.reported`), as a set: looked up once
# per outcome of every event replayed.
_REPORTED = frozenset(kind for kind in _APPLY if kind.reported)
