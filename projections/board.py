"""The status board: every unit, its morale state, models left, restrictions and tests due."""

from __future__ import annotations

import msgspec

from morale.core.referee import next_phase
from morale.core.state import Battle, Unit
from morale.core.words import Words
from morale.events.types import FactValue

from .naming import known_as


class RestrictionView(msgspec.Struct, frozen=True, kw_only=True):
    """What holds a unit back, or a change the rules have scheduled for it. `said` is the whole entry
    in words, as every view shows it; the other fields are its parts, for machines."""

    text: str
    rule: str
    until: str = ""  # a restriction: the point it lasts until
    at: str = ""  # a scheduled change: the point it happens at
    said: str = ""


class UnitRow(msgspec.Struct, frozen=True, kw_only=True):
    unit: str
    name: str
    side: str
    unit_type: str  # the ruleset's machine value ("jump_infantry")
    state: str  # the shared model's machine value ("falling_back")
    state_name: str  # the ruleset's word for it ("fleeing", "retreating"): what a person reads
    models: int
    starting_models: int
    ld: int | None
    special_rules: list[str]
    restrictions: list[RestrictionView]
    due: list[str]
    profile: str = ""  # the ruleset's words for the unit's profile (formation, formed...)
    fields: dict[str, FactValue] = {}  # the ruleset's profile fields as they stand (formation, quality...)
    unit_type_name: str = ""  # the ruleset's word for `unit_type` ("jump infantry", прыжковая пехота)


class ClockStep(msgspec.Struct, frozen=True, kw_only=True):
    """The clock event that would come next: the phase in progress ends, or the next one starts."""

    type: str  # phase_ended or phase_started
    turn: int
    side: str
    phase: str


class Board(msgspec.Struct, frozen=True, kw_only=True):
    battle: str
    ruleset: str
    seq: int
    turn: int
    side: str | None
    phase: str | None
    phase_open: bool
    units: list[UnitRow]
    next_clock: ClockStep | None = None  # what `morale next-phase` would record now


def restricted(battle: Battle, name: str, rule: str, until: str) -> RestrictionView:
    text = battle.ruleset.restrictions.get(name, name.replace("_", " "))
    said = Words("{restriction} until the {until}", restriction=text, until=until) if until else text
    return RestrictionView(text=text, rule=rule, until=until, said=said)


def scheduled(battle: Battle, unit: Unit, trigger: str, at: str) -> RestrictionView:
    """A change the rules put off (`Pending`), said as the narrative says it was scheduled: "will be
    steady at the end of the assault phase", not the graph's trigger ("end regroup")."""
    graph = battle.ruleset.graph
    dest = graph.destination(unit, trigger)
    text = Words("will be {state}", state=battle.ruleset.state_name(dest)) if dest else trigger.replace("_", " ")
    rule = graph.rule_for(unit, trigger) if dest else ""
    said = Words("{change} at the {at}", change=text, at=at) if at else text
    return RestrictionView(text=text, rule=rule, at=at, said=said)


def due_words(battle: Battle, test: str, rule: str) -> Words:
    """A test due, as the board lists it: "morale (wh40k6.trigger.casualties)" (the test's machine
    name in English, the ruleset's name for it elsewhere), with the rule that made it due."""
    return Words("{test} ({rule})", test=known_as(test, battle.ruleset.tests.get(test, test)), rule=rule)


def board(battle: Battle) -> Board:
    ruleset = battle.ruleset
    rows = []
    for unit in battle.units.values():
        restrictions = [
            restricted(battle, r.name, r.rule, ruleset.describe_point(battle, r.until)) for r in unit.restrictions
        ]
        restrictions += [scheduled(battle, unit, p.trigger, ruleset.describe_point(battle, p.at)) for p in unit.pending]
        restrictions += [
            RestrictionView(text=text, rule=rule, said=text) for text, rule in ruleset.implied_restrictions(unit)
        ]
        rows.append(
            UnitRow(
                unit=unit.id,
                name=unit.name,
                side=unit.side,
                unit_type=unit.unit_type,
                state=unit.state,
                state_name=ruleset.state_name(unit.state),
                models=unit.models,
                starting_models=unit.starting_models,
                ld=unit.ld,
                special_rules=sorted(unit.special_rules),
                restrictions=restrictions,
                due=[due_words(battle, t.test, t.rule) for t in battle.due_for(unit.id)],
                profile=ruleset.describe_profile(unit),
                fields=ruleset.profile_values(unit),
                unit_type_name=ruleset.unit_type_name(unit.unit_type),
            )
        )
    return Board(
        battle=battle.id,
        ruleset=f"{ruleset.id} v{ruleset.version}",
        seq=battle.seq,
        turn=battle.turn,
        side=battle.active_side,
        phase=battle.phase,
        phase_open=battle.phase_open,
        units=rows,
        next_clock=next_clock(battle),
    )


def next_clock(battle: Battle) -> ClockStep:
    if battle.phase_open:
        return ClockStep(type="phase_ended", turn=battle.turn, side=battle.active_side or "", phase=battle.phase or "")
    turn, side, phase = next_phase(battle)
    return ClockStep(type="phase_started", turn=turn, side=side, phase=phase)
