"""The chance that a due test passes, counted over every result its dice can show.

The ruleset itself decides each result: the due test is resolved on a copy of the battle for each
of the 6^n equally likely rolls of its n dice, and the rolls it passes are counted. So the odds
follow every modifier, special rule and house rule exactly as the referee applies them. Rolls
that have no pass or fail (a Fall Back move) have no odds. (To be reconciled with the audit
tools' odds when they land.)
"""

from __future__ import annotations

import copy
from fractions import Fraction
from itertools import product

import msgspec

from morale.core.outcomes import TestResolved
from morale.core.referee import decide, evolve
from morale.core.state import Battle, DueTest
from morale.events.types import DiceRolled

from .due import DueView, due_tests

MAX_DICE = 4  # 1,296 rolls: more would make a status request slow, and no morale test rolls more


def pass_chance(battle: Battle, due: DueTest) -> Fraction | None:
    if due.dice > MAX_DICE:
        return None
    passed = total = 0
    for dice in product(range(1, 7), repeat=due.dice):
        event = DiceRolled(unit=due.unit, test=due.test, dice=list(dice))
        # The ruleset is shared and stateless; everything else is copied so the battle is untouched.
        trial = copy.deepcopy(battle, {id(battle.ruleset): battle.ruleset})
        decide(trial, event)
        _, caused = evolve(trial, event, battle.seq + 1)
        verdict = next((o for o in caused if isinstance(o, TestResolved) and o.unit == due.unit), None)
        if verdict is None:
            return None
        total += 1
        passed += verdict.passed
    return Fraction(passed, total)


class DueWithOdds(DueView, frozen=True, kw_only=True):
    odds: float | None  # the chance of passing, 0..1; None where the roll has no pass or fail


def due_with_odds(battle: Battle) -> list[DueWithOdds]:
    views = []
    for view, due in zip(due_tests(battle), battle.due, strict=True):
        chance = pass_chance(battle, due)
        odds = None if chance is None else round(float(chance), 4)
        views.append(DueWithOdds(**msgspec.structs.asdict(view), odds=odds))
    return views
