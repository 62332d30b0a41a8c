"""Simultaneous tests: when several units of one side have the same kind of test due at once, their
controlling player chooses the order.

Which tests this applies to is data on the ruleset (`Ruleset.ordered_tests`: test -> rule ID). The
choice is recorded in the log as a `player_decided` event with the decision `test_first` on the unit
that goes first; until it is made, none of those units may roll, and once made, only the chosen one
may, until its test (re-roll included) is over. With one unit left there is nothing to choose.
A unit's own tests are still taken oldest first (see `referee.due_test`).
"""

from __future__ import annotations

from .rules import TEST_FIRST, Refusal
from .state import Battle, DueTest
from .words import Words, listed


def waiting_with(battle: Battle, due: DueTest) -> list[str]:
    """The other units of `due`'s side that have a test of the same kind due now."""
    side = battle.units[due.unit].side
    return sorted(
        {t.unit for t in battle.due if t.test == due.test and t.unit != due.unit and battle.units[t.unit].side == side}
    )


def check_turn(battle: Battle, due: DueTest) -> None:
    """Refuse dice for `due` if its player must first choose who tests first, or chose another unit."""
    rule = battle.ruleset.ordered_tests.get(due.test)
    others = waiting_with(battle, due) if rule else []
    if not others:
        return
    side = battle.units[due.unit].side
    chosen = battle.chosen_first.get((side, due.test))
    if chosen == due.unit:
        return
    if chosen is None:
        raise Refusal(
            Words(
                "{units} must all take a {test} test: {side}'s player first chooses which goes first"
                " (player_decided {decision})",
                units=listed([due.unit, *others]),
                test=due.test,
                side=side,
                decision=TEST_FIRST,
            ),
            rule=rule,
        )
    raise Refusal(
        Words(
            "{side}'s player chose {unit} to take its {test} test first",
            side=side,
            unit=chosen,
            test=battle.ruleset.test_said(due.test),
        ),
        rule=rule,
    )


def check_choice(battle: Battle, unit_id: str) -> DueTest:
    """The due test a `test_first` decision puts first; refused when there is nothing to choose."""
    ordered = [t for t in battle.due_for(unit_id) if t.test in battle.ruleset.ordered_tests]
    if not ordered:
        raise Refusal(Words("{unit} has no test due whose order its player chooses", unit=unit_id), field="unit")
    due = ordered[0]
    rule = battle.ruleset.ordered_tests[due.test]
    if not waiting_with(battle, due):
        raise Refusal(
            Words(
                "{unit} is the only unit of its side with a {test} test due: nothing to order",
                unit=unit_id,
                test=due.test,
            ),
            rule=rule,
        )
    chosen = battle.chosen_first.get((battle.units[unit_id].side, due.test))
    if chosen is not None:
        raise Refusal(
            Words(
                "{unit} was already chosen to take its {test} test first",
                unit=chosen,
                test=battle.ruleset.test_said(due.test),
            ),
            rule=rule,
        )
    return due


def choose_first(battle: Battle, unit_id: str) -> None:
    due = check_choice(battle, unit_id)
    battle.chosen_first[(battle.units[unit_id].side, due.test)] = unit_id


def forget_finished(battle: Battle) -> None:
    """A choice lasts until the chosen unit's test is over (its re-roll included)."""
    if not battle.chosen_first:
        return
    for (side, test), unit_id in list(battle.chosen_first.items()):
        if not any(t.test == test for t in battle.due_for(unit_id)):
            del battle.chosen_first[(side, test)]
