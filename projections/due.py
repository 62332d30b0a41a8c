"""The tests due now: what each needs, why it is due, and what settles it."""

from __future__ import annotations

import msgspec

from morale.core.odds import Odds, odds
from morale.core.order import waiting_with
from morale.core.outcomes import Modifier
from morale.core.state import Battle, DueTest


class DueView(msgspec.Struct, frozen=True, kw_only=True):
    unit: str
    name: str
    test: str
    rule: str
    caused_by: tuple[int, ...]
    dice: int
    target: int | None
    modifiers: tuple[Modifier, ...]
    decisions: tuple[str, ...]
    reroll: str = ""  # the rule that grants re-rolling a failed result: roll these dice as a re-roll
    odds: Odds | None = None  # the exact chance of each result; None where the ruleset gives none
    facts: tuple[str, ...] = ()  # facts from the table that settle it instead of dice
    stated: dict[str, object] = {}  # what the table already stated about this roll
    # What the dice must show, in words: "8 or less"; "double 1 only" where no other roll passes,
    # whatever the target (a Regroup test under 25%); "" where the test has no number to roll under.
    needs: str = ""
    # Where several units of a side have this kind of test due at once and their player chooses the
    # order (Ruleset.ordered_tests): the rule, and the unit chosen to go first ("" while none is).
    order_rule: str = ""
    first: str = ""


def due_tests(battle: Battle) -> list[DueView]:
    views = []
    for due in battle.due:
        unit = battle.units[due.unit]
        target, chances = battle.ruleset.target(battle, due), odds(battle, due)
        views.append(
            DueView(
                unit=due.unit,
                name=unit.name,
                test=due.test,
                rule=due.rule,
                caused_by=due.caused_by,
                dice=due.dice,
                target=target,
                modifiers=due.modifiers,
                decisions=due.decisions,
                reroll=due.reroll,
                odds=chances,
                facts=due.facts,
                stated=dict(due.stated),
                needs=needs(battle, due, target, chances),
                **order(battle, due),
            )
        )
    return views


def order(battle: Battle, due: DueTest) -> dict[str, str]:
    rule = battle.ruleset.ordered_tests.get(due.test, "")
    if not rule or not waiting_with(battle, due):
        return {}
    return {"order_rule": rule, "first": battle.chosen_first.get((battle.units[due.unit].side, due.test), "")}


# Every die showing 1 is the only roll that passes: said so, for "8 or less" would be untrue.
_ONLY_ONES = {2: "double 1 only", 3: "triple 1 only"}


def needs(battle: Battle, due: DueTest, target: int | None, chances: Odds | None) -> str:
    """The target in words, corrected by the exact odds where the dice themselves decide."""
    if target is None:
        return ""
    if chances is not None and chances.pass_ways == 0:
        return "cannot pass"
    if chances is not None and chances.pass_ways == 1 and due.dice >= 2:
        ones = (1,) * due.dice
        if (battle.ruleset.result_of(battle, due, ones) or ("", False))[1]:
            return _ONLY_ONES.get(due.dice, f"{due.dice} ones only")
    return f"{target} or less"
