"""The referee: `decide` accepts or refuses a proposed event; `evolve` folds an accepted one in.

`decide` only reads. `evolve` is only called on events `decide` accepted (or that were accepted
when they were written), and returns what the event caused, each outcome citing its rule ID.
Bookkeeping every ruleset shares lives here; the rules themselves live in the rulesets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from morale.events.types import (
    AnyEvent,
    BattleStarted,
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    CombatSide,
    DiceRevealed,
    DiceRolled,
    EventRetracted,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    RefereeRuled,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

from . import order, rules
from .dice import commitment
from .outcomes import Caused, Outcome, RestrictionLifted, StateChanged, TestNotTaken, TestResolved
from .rules import Refusal
from .rulesets import lookup
from .state import Battle, DueTest, Unit


def decide(battle: Battle | None, event: AnyEvent) -> None:
    """Raise `Refusal` if `event` may not follow the log that built `battle`; otherwise return."""
    if isinstance(event, BattleStarted):
        if battle is not None:
            raise Refusal("this battle has already started", field="type")
        ruleset = lookup(event.ruleset, event.ruleset_version)
        if event.sides[0] == event.sides[1]:
            raise Refusal("the two sides must have different names", field="sides")
        ruleset.check_house_rules(event.house_rules)
        ruleset.check_tables(event.tables)
        return
    if battle is None:
        raise Refusal("the first event of a battle must be battle_started", field="type")
    match event:
        case UnitJoined():
            if event.unit in battle.units:
                raise Refusal(f"unit {event.unit!r} has already joined this battle", field="unit")
            _check_side(battle, event.side)
            battle.ruleset.check_unit(battle, event)
        case UnitChanged():
            unit = living_unit(battle, event.unit)
            battle.ruleset.check_unit_change(battle, unit, event)
        case PhaseStarted():
            _check_no_tests_due(battle, "start a phase")
            expected = next_phase(battle)
            if battle.phase_open or (event.turn, event.side, event.phase) != expected:
                raise Refusal(_clock_message(battle, event, expected), rule=rules.CLOCK_ORDER)
        case PhaseEnded():
            _check_no_tests_due(battle, "end the phase")
            current = (battle.turn, battle.active_side, battle.phase)
            if not battle.phase_open or (event.turn, event.side, event.phase) != current:
                raise Refusal(_clock_message(battle, event, current), rule=rules.CLOCK_ORDER)
        case CasualtiesSuffered():
            unit = living_unit(battle, event.unit)
            if event.count > unit.models:
                raise Refusal(f"{unit.id} has only {unit.models} models left, not {event.count}", field="count")
            battle.ruleset.check_casualties(battle, unit, event)
        case CombatResolved():
            _check_no_tests_due(battle, "resolve a combat")
            seen: set[str] = set()
            if event.sides[0].side == event.sides[1].side:
                raise Refusal("a combat is fought between two different sides", field="sides")
            for side in event.sides:
                _check_side(battle, side.side)
                for unit_id in side.units:
                    unit = living_unit(battle, unit_id, field="units")
                    if unit.side != side.side or unit_id in seen:
                        raise Refusal(f"unit {unit_id!r} cannot fight for {side.side!r} here", field="units")
                    seen.add(unit_id)
                _check_combat_detail(battle, side)
            battle.ruleset.check_combat(battle, event)
        case ChargeDeclared():
            _check_no_tests_due(battle, "declare a charge")
            charger = living_unit(battle, event.charger, field="charger")
            for target_id in event.targets:
                target = living_unit(battle, target_id, field="targets")
                if target.side == charger.side:
                    raise Refusal(f"{target_id!r} is on the charger's own side", field="targets")
            stray = [t for t in event.in_range if t not in event.targets]
            if stray:
                raise Refusal(f"{stray[0]!r} is in range but was not declared a target", field="in_range")
            stray = [t for t in event.flank if t not in event.targets]
            if stray:
                raise Refusal(f"{stray[0]!r} is charged in the flank but was not declared a target", field="flank")
            battle.ruleset.check_charge(battle, event)
        case TableFactRecorded():
            living_unit(battle, event.unit)
            if event.fact not in battle.ruleset.facts:
                known = ", ".join(battle.ruleset.facts)
                raise Refusal(f"{battle.ruleset.id} knows no fact {event.fact!r} (known: {known})", field="fact")
            battle.ruleset.check_fact(battle, event)
        case DiceRolled():
            unit = living_unit(battle, event.unit)
            battle.ruleset.check_roll(battle, event)
            _check_once_per_phase(battle, unit, event.test)
            due = due_test(battle, event.unit, event.test)
            if due.dice == 0:
                raise Refusal(
                    f"the {event.test} of {event.unit} takes no dice: the table reports {' or '.join(due.facts)}",
                    field="dice",
                )
            if event.reroll and not due.reroll:
                raise Refusal(f"no rule grants {unit.id} a re-roll of its {event.test} test", rule=rules.REROLL)
            if due.reroll and not event.reroll:
                raise Refusal(
                    f"these dice re-roll {unit.id}'s failed {event.test} test ({due.reroll}): record them as a "
                    "re-roll (reroll: true; `morale roll ... --reroll`)",
                    field="reroll",
                )
            order.check_turn(battle, due)
            if len(event.dice) != due.dice:
                raise Refusal(
                    f"the {event.test} roll for {event.unit} takes {due.dice} dice, not {len(event.dice)}",
                    field="dice",
                )
            if battle.dice_policy != "either" and event.source != battle.dice_policy:
                raise Refusal(
                    f"this battle's dice are rolled by the {battle.dice_policy}, not the {event.source}",
                    field="source",
                )
            if event.source == "engine" and battle.dice_secret:
                raise Refusal("the dice secret is public: the engine rolls no more", rule=rules.DICE_REVEAL)
        case DiceRevealed():
            if not battle.dice_commitment:
                raise Refusal("this battle committed to no dice secret: the engine never rolled", field="secret")
            if battle.dice_secret:
                raise Refusal("the dice secret is already revealed", rule=rules.DICE_REVEAL)
            if commitment(event.secret) != battle.dice_commitment:
                raise Refusal("this secret does not hash to the battle's dice commitment", field="secret")
        case PlayerDecided():
            unit = living_unit(battle, event.unit)
            if event.decision in battle.ruleset.free_decisions:
                battle.ruleset.check_free_decision(battle, unit, event)
            elif event.decision == rules.TEST_FIRST and battle.ruleset.ordered_tests:
                order.check_choice(battle, event.unit)
            else:
                order.check_turn(battle, first_due(battle, event.unit, event.decision))
        case RefereeRuled():
            unit = known_unit(battle, event.unit)
            if event.state is None and not event.waive_tests:
                raise Refusal("a ruling must set a state or waive the unit's tests", field="state")
            if event.state is not None and event.state not in battle.ruleset.graph.states:
                raise Refusal(f"{battle.ruleset.id} has no state {event.state!r}", field="state")
            if event.waive_tests and not battle.due_for(unit.id):
                raise Refusal(f"{unit.id} has no tests due to waive", field="waive_tests")
        case EventRetracted():
            if event.seq > battle.seq:
                raise Refusal(f"there is no event {event.seq} yet (last is {battle.seq})", field="seq")
            if event.seq == 1:
                raise Refusal("battle_started cannot be struck: start a new battle instead", field="seq")


def evolve(battle: Battle | None, event: AnyEvent, seq: int) -> tuple[Battle, Caused]:
    """Fold an accepted event into the battle. Returns the battle and what the event caused."""
    if type(event) is BattleStarted:
        return _started(event, seq), ()
    assert battle is not None
    battle.seq = seq
    # One function an event type, found by the event's exact type: a `match` on the union tested the
    # classes one by one (~100 ns each on this VM, ~5% of a replay), a dict lookup does not.
    caused = _FOLDS[type(event)](battle, event, seq)
    if battle.chosen_first:
        order.forget_finished(battle)
    if caused:  # most events change no unit's state: nothing to track
        battle.track(caused)
    return battle, tuple(caused)


def _started(event: BattleStarted, seq: int) -> Battle:
    fresh = Battle(
        id="",
        ruleset=lookup(event.ruleset, event.ruleset_version),
        sides=tuple(event.sides),
        dice_policy=event.dice_policy,
        dice_commitment=event.dice_commitment,
        house_rules=dict(event.house_rules),
        seq=seq,
    )
    fresh.tables = fresh.ruleset.read_tables(event.tables)
    fresh.bookkeeping = fresh.ruleset.battle_bookkeeping()
    return fresh


# How each type of event is folded in: event type -> fold(battle, event, seq) -> what it caused.
_Fold = Callable[[Battle, Any, int], list[Outcome]]
_FOLDS: dict[type, _Fold] = {}


def _folds(event_type: type) -> Callable[[_Fold], _Fold]:
    def register(fold: _Fold) -> _Fold:
        _FOLDS[event_type] = fold
        return fold

    return register


@_folds(UnitJoined)
def _unit_joined(battle: Battle, event: UnitJoined, seq: int) -> list[Outcome]:
    ruleset = battle.ruleset
    unit = battle.units[event.unit] = battle.living[event.unit] = Unit(
        id=event.unit,
        side=event.side,
        name=event.name,
        unit_type=event.unit_type,
        starting_models=event.models,
        models=event.models,
        models_at_phase_start=event.models,
        ld=event.ld,
        initiative=event.initiative,
        special_rules=frozenset(event.special_rules),
        profile=ruleset.read_profile(event.profile),
    )
    unit.notes.update(ruleset.first_notes(unit))
    return []


@_folds(UnitChanged)
def _unit_changed(battle: Battle, event: UnitChanged, seq: int) -> list[Outcome]:
    return battle.ruleset.on_unit_change(battle, battle.units[event.unit], event, seq)


@_folds(PhaseStarted)
def _phase_started(battle: Battle, event: PhaseStarted, seq: int) -> list[Outcome]:
    ruleset = battle.ruleset
    window = ruleset.phase_window(battle)
    battle.turn, battle.side_index = event.turn, battle.sides.index(event.side)
    battle.phase_index, battle.phase_open = ruleset.phases.index(event.phase), True
    # Losses and phase marks count from the start of the rulebook phase, which may span several
    # clock phases.
    if ruleset.phase_window(battle) != window:
        for unit in (*battle.living.values(), *battle.left_play):
            unit.models_at_phase_start = unit.models
            if unit.phase_losses:  # most units lost nothing and were marked with nothing
                unit.phase_losses = []
            if unit.phase_marks:
                unit.phase_marks.clear()
        battle.left_play.clear()
    return ruleset.on_phase_started(battle, seq)


@_folds(PhaseEnded)
def _phase_ended(battle: Battle, event: PhaseEnded, seq: int) -> list[Outcome]:
    battle.phase_open = False
    return battle.ruleset.on_phase_ended(battle, seq) + _expire(battle, seq)


@_folds(CasualtiesSuffered)
def _casualties(battle: Battle, event: CasualtiesSuffered, seq: int) -> list[Outcome]:
    unit = battle.units[event.unit]
    unit.models -= event.count
    if battle.phase_open:
        unit.phase_losses.append(seq)
    caused = _destroy(battle, unit, seq) if unit.models == 0 else []
    return caused + battle.ruleset.on_casualties(battle, unit, event, seq)


@_folds(CombatResolved)
def _combat(battle: Battle, event: CombatResolved, seq: int) -> list[Outcome]:
    return battle.ruleset.on_combat(battle, event, seq)


@_folds(ChargeDeclared)
def _charge(battle: Battle, event: ChargeDeclared, seq: int) -> list[Outcome]:
    return battle.ruleset.on_charge(battle, event, seq)


@_folds(TableFactRecorded)
def _fact(battle: Battle, event: TableFactRecorded, seq: int) -> list[Outcome]:
    return battle.ruleset.on_fact(battle, event, seq)


@_folds(DiceRolled)
def _dice(battle: Battle, event: DiceRolled, seq: int) -> list[Outcome]:
    due = due_test(battle, event.unit, event.test)
    battle.due.remove(due)
    return battle.ruleset.resolve(battle, due, tuple(event.dice), seq)


@_folds(DiceRevealed)
def _revealed(battle: Battle, event: DiceRevealed, seq: int) -> list[Outcome]:
    battle.dice_secret = event.secret
    return []


@_folds(PlayerDecided)
def _decided(battle: Battle, event: PlayerDecided, seq: int) -> list[Outcome]:
    ruleset = battle.ruleset
    if event.decision in ruleset.free_decisions:
        return ruleset.on_free_decision(battle, battle.units[event.unit], event, seq)
    if event.decision == rules.TEST_FIRST and ruleset.ordered_tests:
        order.choose_first(battle, event.unit)
        return []
    due = first_due(battle, event.unit, event.decision)
    battle.due.remove(due)
    return ruleset.on_decision(battle, due, event.decision, seq)


@_folds(RefereeRuled)
def _ruled(battle: Battle, event: RefereeRuled, seq: int) -> list[Outcome]:
    caused: list[Outcome] = []
    unit = battle.own(event.unit)  # a ruling may bring back a unit that left play
    # A ruling on the unit's state makes the tests it was facing moot: they are waived with it.
    if event.waive_tests or event.state is not None:
        for due in battle.due_for(unit.id):
            battle.due.remove(due)
            caused.append(
                TestResolved(
                    unit=unit.id,
                    rule=rules.RULING,
                    caused_by=(*due.caused_by, seq),
                    test=due.test,
                    trigger=due.rule,
                    passed=True,
                    automatic=True,
                    detail=f"waived by the referee: {event.reason}",
                )
            )
    if event.state is not None:
        unit.pending.clear()
        caused.append(battle.ruleset.graph.force(unit, event.state, rules.RULING, (seq,)))
    return caused


@_folds(EventRetracted)
def _retracted(battle: Battle, event: EventRetracted, seq: int) -> list[Outcome]:
    raise AssertionError("retractions are folded by replay, which holds the log")


# -- lookups that refuse with a message naming the field -----------------------------------------
def known_unit(battle: Battle, unit_id: str, field: str = "unit") -> Unit:
    unit = battle.units.get(unit_id)
    if unit is None:
        raise Refusal(f"no unit {unit_id!r} in this battle", field=field)
    return unit


def living_unit(battle: Battle, unit_id: str, field: str = "unit") -> Unit:
    unit = known_unit(battle, unit_id, field)
    if not unit.alive:
        raise Refusal(f"{unit_id} is {unit.state.replace('_', ' ')} and out of the battle", field=field)
    return unit


def due_test(battle: Battle, unit_id: str, test: str) -> DueTest:
    """The test these dice are for: the unit's oldest due test, which must be the one named.
    A unit takes its tests in the order they fell due (a Sweeping Advance before anything else)."""
    first = next((due for due in battle.due if due.unit == unit_id), None)
    if first is None:
        waiting = [f"{t.test} ({t.unit})" for t in battle.due]
        raise Refusal(
            f"no {test} roll is due for {unit_id} (due now: {', '.join(waiting) or 'nothing'})", rule=rules.DICE
        )
    if first.test != test:
        raise Refusal(f"{unit_id} must first roll for {first.test} ({first.rule})", rule=rules.DICE)
    return first


def first_due(battle: Battle, unit_id: str, decision: str) -> DueTest:
    """The due test a decision settles: the unit's oldest, and it must offer that decision."""
    first = next((due for due in battle.due if due.unit == unit_id), None)
    if first is None or decision not in first.decisions:
        offered = ", ".join(first.decisions) if first else ""
        raise Refusal(
            f"{unit_id}'s next due test is not settled by {decision!r} (open decisions: {offered or 'none'})",
            rule=rules.DECISION,
        )
    return first


def next_phase(battle: Battle) -> tuple[int, str, str]:
    """The (turn, side, phase) that must start next, in the ruleset's order."""
    phases = battle.ruleset.phases
    if battle.turn == 0:
        return (1, battle.sides[0], phases[0])
    turn, side_index, phase_index = battle.point
    if phase_index + 1 < len(phases):
        return (turn, battle.sides[side_index], phases[phase_index + 1])
    if side_index + 1 < len(battle.sides) and not battle.ruleset.shared_turn:
        return (turn, battle.sides[side_index + 1], phases[0])
    return (turn + 1, battle.sides[0], phases[0])


def _clock_message(battle: Battle, event: PhaseStarted | PhaseEnded, expected: tuple) -> str:
    got = f"turn {event.turn}, {event.side}, {event.phase}"
    if isinstance(event, PhaseEnded):
        if not battle.phase_open:
            return f"cannot end {got}: no phase is in progress"
        return f"cannot end {got}: the phase in progress is turn {expected[0]}, {expected[1]}, {expected[2]}"
    if battle.phase_open:
        return f"cannot start {got}: {battle.phase} has not ended"
    return f"cannot start {got}: next is turn {expected[0]}, {expected[1]}, {expected[2]}"


def _check_side(battle: Battle, side: str) -> None:
    if side not in battle.sides:
        raise Refusal(f"no side {side!r} in this battle (sides: {', '.join(battle.sides)})", field="side")


def _check_once_per_phase(battle: Battle, unit: Unit, test: str) -> None:
    """Dice for a test the unit may take once a phase, and has taken, with none of that kind due."""
    limit = battle.ruleset.once_per_phase.get(test)
    due_now = any(t.test == test for t in battle.due_for(unit.id))
    if limit and not due_now and battle.ruleset.taken_this_phase(unit, test):
        raise Refusal(f"{unit.id} has already taken its {test} test this phase", rule=limit)


def _check_combat_detail(battle: Battle, side: CombatSide) -> None:
    """Per-unit detail of a combat report: only what the ruleset reads, and only about the side's units."""
    for name, value in (("ranks", side.ranks), ("unit_bonus", side.unit_bonus), ("left_combat", side.left_combat)):
        if not value:
            continue
        if name not in battle.ruleset.combat_detail:
            raise Refusal(f"{battle.ruleset.id} reads no {name} in a combat report", field=name)
        stray = [u for u in value if u not in side.units]
        if stray:
            raise Refusal(f"{stray[0]!r} is not among {side.side}'s units in this combat", field=name)


def _check_no_tests_due(battle: Battle, action: str) -> None:
    if battle.due:
        waiting = ", ".join(f"{t.test} for {t.unit} ({t.rule})" for t in battle.due)
        raise Refusal(f"cannot {action} while tests are due: {waiting}", rule=rules.TESTS_FIRST)


def _destroy(battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
    caused: list[Outcome] = []
    for due in battle.due_for(unit.id):
        battle.due.remove(due)
        caused.append(
            TestNotTaken(unit=unit.id, rule=rules.DESTROYED, caused_by=(seq,), test=due.test, trigger=due.rule)
        )
    unit.pending.clear()
    unit.restrictions.clear()
    caused.append(battle.ruleset.graph.fire(unit, "lose_last_model", (seq,), rules.DESTROYED))
    return caused


def _expire(battle: Battle, seq: int) -> list[Outcome]:
    """At a phase's end: lift the restrictions and carry out the state changes scheduled for it."""
    caused: list[Outcome] = []
    now = battle.point
    for unit in battle.living.values():
        # Most units carry nothing over a phase's end: skip them without building lists.
        if not (unit.pending or unit.restrictions):
            continue
        for pending in [p for p in unit.pending if p.at <= now]:
            unit.pending.remove(pending)
            if unit.alive and battle.ruleset.graph.can(unit, pending.trigger):
                change: StateChanged = battle.ruleset.graph.fire(unit, pending.trigger, (*pending.caused_by, seq))
                caused.append(change)
        for restriction in [r for r in unit.restrictions if r.until <= now]:
            unit.restrictions.remove(restriction)
            caused.append(
                RestrictionLifted(unit=unit.id, rule=restriction.rule, caused_by=(seq,), restriction=restriction.name)
            )
    return caused
