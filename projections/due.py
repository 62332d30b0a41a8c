"""The tests due now: what each needs, why it is due, what settles it, and what each result of its
dice would bring about (the preview a page shows as the dice are typed in)."""

from __future__ import annotations

import copy
from itertools import product

import msgspec

from morale.core.evolve import evolve
from morale.core.odds import MAX_DICE, Odds, odds
from morale.core.order import waiting_with
from morale.core.outcomes import Modifier, TestResolved
from morale.core.referee import decide
from morale.core.rules import Refusal
from morale.core.state import Battle, DueTest
from morale.core.words import Words
from morale.events.types import DiceRolled

from .naming import test_named
from .narrative import describe_outcome


class ResultView(msgspec.Struct, frozen=True, kw_only=True):
    """One result a due test's dice can give, and what it brings about."""

    result: str  # the ruleset's result: "pass", "fail", a results table's row
    passed: bool
    # Every ordered roll that gives it, each as its dice's faces in order ("54": a 5, then a 4).
    rolls: tuple[str, ...]
    # What follows in the battle, each in the story's words ("Nobz Falls Back"): the dice folded
    # into a copy of the battle, which is then thrown away. Empty where nothing follows.
    follows: tuple[str, ...]


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
    # Each result its dice can give, with the rolls that give it and what follows: a page previews
    # "6 + 5 = 11 against 8: fails, Falls Back" from these. Empty where the ruleset gives no odds.
    results: tuple[ResultView, ...] = ()
    # The test in words, as the story names it: "morale" in English, the ruleset's name elsewhere.
    test_name: str = ""
    # Each decision's and fact's words in the ruleset's language, by machine name ("decline_regroup"
    # -> "decline regroup", Russian "отказаться от перегруппировки"), for a person to read; the names
    # in `decisions` and `facts` stay what a user types.
    decision_names: dict[str, str] = {}
    fact_names: dict[str, str] = {}


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
                test_name=test_named(battle.ruleset, due.test),
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
                results=results(battle, due) if chances is not None else (),
                decision_names={d: battle.ruleset.decision_name(d) for d in due.decisions},
                fact_names={f: battle.ruleset.fact_name(f) for f in (*due.facts, *dict(due.stated))},
            )
        )
    return views


def order(battle: Battle, due: DueTest) -> dict[str, str]:
    rule = battle.ruleset.ordered_tests.get(due.test, "")
    if not rule or not waiting_with(battle, due):
        return {}
    return {"order_rule": rule, "first": battle.chosen_first.get((battle.units[due.unit].side, due.test), "")}


def needs(battle: Battle, due: DueTest, target: int | None, chances: Odds | None) -> str:
    """The target in words, corrected by the exact odds where the dice themselves decide."""
    if target is None:
        return ""
    if chances is not None and chances.pass_ways == 0:
        return Words("cannot pass")
    if chances is not None and chances.pass_ways == 1 and due.dice >= 2:
        ones = (1,) * due.dice
        if (battle.ruleset.result_of(battle, due, ones) or ("", False))[1]:
            # Every die showing 1 is the only roll that passes: said so, for "8 or less" would be untrue.
            if due.dice == 2:
                return Words("double 1 only")
            if due.dice == 3:
                return Words("triple 1 only")
            return Words("{dice} ones only", dice=due.dice)
    return Words("{target} or less", target=target)


def results(battle: Battle, due: DueTest) -> tuple[ResultView, ...]:
    """Each result of the due test's dice (as `odds` counts them), its rolls, and what it brings
    about: the first roll that gives it, folded into a copy of the battle (the rules say what
    follows, never this module). A roll the referee would refuse now (another unit tests first)
    brings about nothing that can be said yet."""
    if not 0 < due.dice <= MAX_DICE:
        return ()
    rolls: dict[tuple[str, bool], list[tuple[int, ...]]] = {}
    for dice in product(range(1, 7), repeat=due.dice):
        result = battle.ruleset.result_of(battle, due, dice)
        if result is None:
            return ()
        rolls.setdefault(result, []).append(dice)
    return tuple(
        ResultView(
            result=result,
            passed=passed,
            rolls=tuple("".join(map(str, dice)) for dice in found),
            follows=_follows(battle, due, found[0]),
        )
        for (result, passed), found in rolls.items()
    )


def _follows(battle: Battle, due: DueTest, dice: tuple[int, ...]) -> tuple[str, ...]:
    event = DiceRolled(unit=due.unit, test=due.test, dice=dice, reroll=bool(due.reroll))
    try:
        decide(battle, event)
    except Refusal:
        return ()
    trial, caused = evolve(_trial_copy(battle), event, battle.seq + 1)
    said = [o for o in caused if not (type(o) is TestResolved and o.unit == due.unit and o.test == due.test)]
    return tuple(describe_outcome(o, trial) for o in said)


def _trial_copy(battle: Battle) -> Battle:
    """A copy of the battle to try a roll on. Units out of play for good are shared, not copied (a
    long battle holds thousands): the rules change one only through `Battle.own`, which copies it
    first, as it does for the battles restored from one snapshot."""
    shared = {id(unit): unit for unit in battle.units.values() if battle.departed(unit)}
    return copy.deepcopy(battle, shared)
