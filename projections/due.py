"""The tests due now: what each needs, why it is due, and what settles it."""

from __future__ import annotations

import msgspec

from morale.core.odds import Odds, odds
from morale.core.outcomes import Modifier
from morale.core.state import Battle


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


def due_tests(battle: Battle) -> list[DueView]:
    views = []
    for due in battle.due:
        unit = battle.units[due.unit]
        views.append(
            DueView(
                unit=due.unit,
                name=unit.name,
                test=due.test,
                rule=due.rule,
                caused_by=due.caused_by,
                dice=due.dice,
                target=battle.ruleset.target(battle, due),
                modifiers=due.modifiers,
                decisions=due.decisions,
                reroll=due.reroll,
                odds=odds(battle, due),
                facts=due.facts,
                stated=dict(due.stated),
            )
        )
    return views
