"""The engine's own reactions: what holds under every ruleset, walked with each game's.

Dice become the roll of the unit's oldest due test (`Rolled`), a decision the settling of one
(`Chosen`); a unit that loses its last model is destroyed before the game reads its casualties; a
test a rule calls for is not taken twice in a phase where the game limits it, and otherwise falls
due unless a rule of the game settles it at once; a referee's ruling waives tests and sets a state;
at a phase's end what was put off to it happens. Each is a reaction (`core/reactions.py`) under the
engine's rule ID, filed in `ENGINE`, and a game's `Rulebook` adds its own to these.

The helpers at the end are how a game's rules say the usual things: call for a test, resolve one
(its result, then `Settled`, which its consequences react to), take one off the list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from morale.events.types import CasualtiesSuffered, DiceRolled, FactValue, PhaseEnded, PlayerDecided, RefereeRuled

from . import rules
from .outcomes import (
    Chosen,
    Cleared,
    DueAmended,
    DueSettled,
    Marked,
    Modifier,
    Outcome,
    RestrictionApplied,
    RestrictionLifted,
    Rolled,
    Settled,
    TestCalled,
    TestDue,
    TestNotTaken,
    TestResolved,
    Unscheduled,
)
from .reactions import FIRST, LAST, Outcomes, Rulebook
from .referee import due_test, first_due
from .rules import declare, taken_mark
from .state import DueTest, Point
from .view import BattleView, UnitView
from .words import Words

if TYPE_CHECKING:
    from .rulesets.base import Ruleset

ENGINE = Rulebook("engine")

DUE = declare("engine.due").id
CARRY_OVER = declare("engine.carry_over").id


# -- dice and decisions ---------------------------------------------------------------------------
def rolled(battle: BattleView, event: DiceRolled) -> Outcomes:
    """The dice are for the unit's oldest due test (`decide` has checked it is the one named)."""
    due = due_test(battle, event.unit, event.test)
    return [
        Rolled(
            unit=event.unit, rule=rules.DICE, caused_by=(battle.seq,), test=due.test, due=due, dice=tuple(event.dice)
        )
    ]


ENGINE.react(rules.DICE, DiceRolled, rolled, stage=FIRST)


def settles_a_due_test(battle: BattleView, event: PlayerDecided) -> bool:
    ruleset = battle.ruleset
    return event.decision not in ruleset.free_decisions and not (
        event.decision == rules.TEST_FIRST and ruleset.ordered_tests
    )


def chosen(battle: BattleView, event: PlayerDecided) -> Outcomes:
    """A decision settles the unit's oldest due test, which offers it (`decide` has checked)."""
    due = first_due(battle, event.unit, event.decision)
    caused_by = (*due.caused_by, battle.seq)
    return [
        Chosen(
            unit=event.unit, rule=rules.DECISION, caused_by=caused_by, test=due.test, decision=event.decision, due=due
        )
    ]


ENGINE.react(rules.DECISION, PlayerDecided, chosen, when=settles_a_due_test, stage=FIRST)


# -- a unit destroyed -----------------------------------------------------------------------------
def destroyed(battle: BattleView, event: CasualtiesSuffered) -> Outcomes:
    """Its last model lost: the tests it had due lapse, it carries nothing on, and it is destroyed.
    Only then does the game read the casualties (a friend destroyed makes others test)."""
    unit = battle.units[event.unit]
    caused_by = (battle.seq,)
    lapsed: list[Outcome] = [withdraw(due, rules.DESTROYED, caused_by) for due in battle.due_for(unit.id)]
    move = battle.ruleset.graph.move(unit, "lose_last_model", caused_by, rules.DESTROYED)
    return [*lapsed, Cleared(unit=unit.id, rule=rules.DESTROYED, caused_by=caused_by), move]


ENGINE.react(rules.DESTROYED, CasualtiesSuffered, destroyed, when=lambda b, e: b.units[e.unit].models == 0, stage=FIRST)


# -- a test called for ----------------------------------------------------------------------------
def taken_already(battle: BattleView, call: TestCalled) -> bool:
    return limited(battle, call) and taken_mark(call.test) in battle.units[call.unit].phase_marks


def not_again(battle: BattleView, call: TestCalled) -> Outcomes:
    """A test limited to once a phase that the unit has taken already is not taken again."""
    limit = battle.ruleset.once_per_phase[call.test]
    return [not_taken(call, limit, call.caused_by)]


def limits_a_test(ruleset: Ruleset) -> bool:
    return bool(ruleset.once_per_phase)


ENGINE.react(DUE, TestCalled, not_again, when=taken_already, stage=FIRST, needed=limits_a_test)


def falls_due(battle: BattleView, call: TestCalled) -> Outcomes:
    """No rule settles the test at once: it is due, and waits for its dice or a decision. A test
    limited to once a phase marks the unit as having taken it."""
    if call.test not in battle.ruleset.tests:  # a rules bug: nothing could ever roll for it
        raise ValueError(
            f"{call.rule} makes a {call.test!r} test due but {battle.ruleset.id} does not name it in Ruleset.tests"
        )
    due = due_of(call)
    decided: list[Outcome] = []
    if limited(battle, call):
        decided.append(
            Marked(
                unit=call.unit,
                rule=battle.ruleset.once_per_phase[call.test],
                caused_by=call.caused_by,
                mark=taken_mark(call.test),
            )
        )
    decided.append(
        TestDue(
            unit=call.unit,
            rule=call.reroll or call.rule,
            caused_by=call.caused_by,
            test=call.test,
            dice=call.dice,
            target=battle.ruleset.target(battle, due),
            modifiers=call.modifiers,
            decisions=call.decisions,
            reroll=bool(call.reroll),
            facts=call.facts,
            trigger=call.rule if call.reroll else "",
            opponents=call.opponents,
        )
    )
    return decided


ENGINE.react(DUE, TestCalled, falls_due, stage=LAST)


def marks_the_test_taken(battle: BattleView, settled: Settled) -> Outcomes:
    """A test limited to once a phase that the rules settled at once counts as taken too."""
    mark = taken_mark(settled.test)
    return [
        Marked(
            unit=settled.unit,
            rule=battle.ruleset.once_per_phase[settled.test],
            caused_by=settled.due.caused_by,
            mark=mark,
        )
    ]


def settled_at_once(battle: BattleView, settled: Settled) -> bool:
    return (
        settled.result.automatic
        and not settled.due.reroll
        and settled.test in battle.ruleset.once_per_phase
        and taken_mark(settled.test) not in battle.units[settled.unit].phase_marks
    )


ENGINE.react(DUE, Settled, marks_the_test_taken, when=settled_at_once, stage=FIRST, needed=limits_a_test)


def limited(battle: BattleView, call: TestCalled) -> bool:
    return not call.reroll and call.test in battle.ruleset.once_per_phase


def due_of(call: TestCalled) -> DueTest:
    """The test a call makes due, as it stands on the list (what a rule settling it at once reads)."""
    return DueTest(
        unit=call.unit,
        test=call.test,
        rule=call.rule,
        caused_by=call.caused_by,
        dice=call.dice,
        modifiers=call.modifiers,
        decisions=call.decisions,
        opponents=call.opponents,
        facts=call.facts,
        reroll=call.reroll,
    )


# -- a referee's ruling ---------------------------------------------------------------------------
def ruled(battle: BattleView, event: RefereeRuled) -> Outcomes:
    """A ruling on a unit's state makes the tests it was facing moot: they are waived with it, and
    its scheduled changes are cancelled. A ruling may bring back a unit that left play."""
    unit = battle.units[event.unit]
    decided: list[Outcome] = []
    if event.waive_tests or event.state is not None:
        for due in battle.due_for(unit.id):
            decided.append(DueSettled(unit=unit.id, rule=rules.RULING, caused_by=(battle.seq,), due=due))
            decided.append(
                TestResolved(
                    unit=unit.id,
                    rule=rules.RULING,
                    caused_by=(*due.caused_by, battle.seq),
                    test=due.test,
                    trigger=due.rule,
                    passed=True,
                    automatic=True,
                    detail=Words("waived by the referee: {reason}", reason=event.reason),
                )
            )
    if event.state is not None:
        decided += [
            Unscheduled(unit=unit.id, rule=rules.RULING, caused_by=(battle.seq,), move=p.trigger, when=p.at)
            for p in unit.pending
        ]
        decided.append(battle.ruleset.graph.ruling(unit, event.state, rules.RULING, (battle.seq,)))
    return decided


ENGINE.react(rules.RULING, RefereeRuled, ruled, stage=FIRST)


# -- what carries over a phase's end --------------------------------------------------------------
def carries_over(battle: BattleView, event: PhaseEnded) -> bool:
    # Most units carry nothing over a phase's end, and at most phase ends none does. A loop, not
    # any() over a generator: this is asked at every phase's end of every battle replayed.
    for unit in battle.living.values():  # noqa: SIM110
        if unit.pending or unit.restrictions:
            return True
    return False


def carry_over(battle: BattleView, event: PhaseEnded) -> Outcomes:
    """At a phase's end, once its own tests are decided: the restrictions that last until then are
    lifted and the state changes scheduled for it happen."""
    now, graph, caused_by = battle.point, battle.ruleset.graph, (battle.seq,)
    decided: list[Outcome] = []
    for unit in [u for u in battle.living.values() if u.pending or u.restrictions]:
        for pending in [p for p in unit.pending if p.at <= now]:
            decided.append(
                Unscheduled(unit=unit.id, rule="", caused_by=caused_by, move=pending.trigger, when=pending.at)
            )
            # An earlier change of this phase's end may have moved the unit on: only what it can still make.
            if unit.alive and graph.can(unit, pending.trigger):
                decided.append(graph.move(unit, pending.trigger, (*pending.caused_by, battle.seq)))
        for restriction in [r for r in unit.restrictions if r.until <= now]:
            decided.append(
                RestrictionLifted(
                    unit=unit.id, rule=restriction.rule, caused_by=caused_by, restriction=restriction.name
                )
            )
    return decided


ENGINE.react(CARRY_OVER, PhaseEnded, carry_over, when=carries_over, stage=LAST)


# -- how a game's rules say the usual things ----------------------------------------------------
def call(
    unit: str,
    test: str,
    rule: str,
    caused_by: tuple[int, ...],
    *,
    dice: int = 2,
    modifiers: tuple[Modifier, ...] = (),
    decisions: tuple[str, ...] = (),
    opponents: tuple[str, ...] = (),
    facts: tuple[str, ...] = (),
    reroll: str = "",
) -> TestCalled:
    """`rule` calls for the unit's `test`: it falls due, unless a rule settles it at once."""
    return TestCalled(
        unit=unit,
        rule=rule,
        caused_by=caused_by,
        test=test,
        dice=dice,
        modifiers=modifiers,
        decisions=decisions,
        opponents=opponents,
        facts=facts,
        reroll=reroll,
    )


def resolved(due: DueTest, result: TestResolved, caused_by: tuple[int, ...]) -> list[Outcome]:
    """A due test's result, and the test it settles for its consequences to react to (they cite
    `caused_by`: the roll, or what made the test due where the rules settled it without dice)."""
    settled = Settled(unit=due.unit, rule=result.rule, caused_by=caused_by, test=due.test, due=due, result=result)
    return [result, settled]


def automatically(due: DueTest, *, passed: bool, rule: str, detail: str = "") -> list[Outcome]:
    """Resolve a test without dice (passed or failed automatically), with its consequences."""
    result = TestResolved(
        unit=due.unit,
        rule=rule,
        caused_by=due.caused_by,
        test=due.test,
        trigger=due.rule,
        passed=passed,
        automatic=True,
        detail=detail,
    )
    return resolved(due, result, due.caused_by)


def withdraw(due: DueTest, rule: str, caused_by: tuple[int, ...], detail: str = "") -> TestNotTaken:
    """Take a due test off the list without a result: the rule cited makes it moot."""
    return TestNotTaken(
        unit=due.unit, rule=rule, caused_by=caused_by, test=due.test, trigger=due.rule, detail=detail, withdrawn=True
    )


def not_taken(due: DueTest | TestCalled, rule: str, caused_by: tuple[int, ...], detail: str = "") -> TestNotTaken:
    """A test the trigger called for that the unit does not take; `rule` says why."""
    return TestNotTaken(unit=due.unit, rule=rule, caused_by=caused_by, test=due.test, trigger=due.rule, detail=detail)


def restate(due: DueTest, fact: str, value: FactValue, caused_by: tuple[int, ...]) -> DueAmended:
    """Attach what the table stated about a due roll before its dice; it keeps its place in the list."""
    stated = msgspec.structs.replace(due, stated=(*due.stated, (fact, value)))
    return DueAmended(unit=due.unit, rule=due.rule, caused_by=caused_by, before=due, after=stated)


def remove(battle: BattleView, unit: UnitView, trigger: str, caused_by: tuple[int, ...]) -> list[Outcome]:
    """Take a unit out of the battle by a morale result (`trigger` leads to `dispersed`): the tests
    it was facing are moot, and nothing is pending for it any more."""
    graph = battle.ruleset.graph
    rule = graph.rule_for(unit, trigger)
    lapsed: list[Outcome] = [withdraw(due, rule, caused_by) for due in battle.due_for(unit.id)]
    return [*lapsed, Cleared(unit=unit.id, rule=rule, caused_by=caused_by), graph.move(unit, trigger, caused_by)]


def restrict(
    battle: BattleView, unit: UnitView, name: str, rule: str, until: Point, caused_by: tuple[int, ...]
) -> RestrictionApplied:
    """Put a restriction on a unit until the end of the phase at `until`."""
    return RestrictionApplied(
        unit=unit.id,
        rule=rule,
        caused_by=caused_by,
        restriction=name,
        until=battle.ruleset.describe_point(battle, until),
        ends=until,
    )
