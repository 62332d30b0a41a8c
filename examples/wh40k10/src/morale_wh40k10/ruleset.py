"""Warhammer 40,000 10th edition: Battle-shock (`wh40k10_clauses.toml`).

Tables first, then the clauses in the rulebook's order. A clause that acts is a reaction, declared
with what it reacts to (`RULES.clause(..., reacts_to=...)`): the engine walks them for each event and
for each outcome they decide, beside its own (`morale.core.engine`). A clause that only says what is
true of a unit (Below Half-strength) or what a roll gives (the test) is a plain function the
reactions and the class's queries call. The tables of facts, decisions and phrases are built from
the declarations. A Battle-shocked unit is the engine's `wavering` state, which `state_names` words
as the game does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from msgspec import Meta
from msgspec.structs import replace

from morale.core.engine import call, resolved
from morale.core.machine import StateGraph
from morale.core.outcomes import Marked, Modifier, Remembered, Rolled, Settled, TestResolved
from morale.core.reactions import Outcomes, Rulebook
from morale.core.rules import DESTROYED, Refusal, clause, declare
from morale.core.rulesets.base import Ruleset, pass_or_fail
from morale.core.state import DueTest, Unit
from morale.core.view import BattleView, UnitView
from morale.core.words import Words
from morale.events.types import FactValue, PhaseStarted, PlayerDecided, TableFactRecorded, UnitChanged, UnitJoined

# -- tables -------------------------------------------------------------------------------------
# A player turn: each side plays all five phases in its own turn.
PHASES = ("command", "movement", "shooting", "charge", "fight")

# The battlefield role keywords a roster may give a unit; the Battle-shock rules read none of them.
UNIT_TYPES = {
    "infantry": "Infantry",
    "mounted": "Mounted",
    "beast": "Beast",
    "swarm": "Swarm",
    "monster": "Monster",
    "vehicle": "Vehicle",
}
# The unit types as a person reads them (the story, the board): the machine value in English, as
# the story said it before the game named them, and the rulebook's term in Russian.
UNIT_TYPE_NAMES = {
    "infantry": Words("infantry"),
    "mounted": Words("mounted"),
    "beast": Words("beast"),
    "swarm": Words("swarm"),
    "monster": Words("monster"),
    "vehicle": Words("vehicle"),
}
FACT_NAMES = {"battle_shock_test_required": Words("battle shock test required")}
DECISION_NAMES = {"use_insane_bravery": Words("use insane bravery")}

# What removes models, in the rulebook's words (no Battle-shock rule reads the cause).
CAUSES = {
    "shooting": "shooting",
    "fight": "fighting",
    "mortal_wounds": "mortal wounds",
    "hazardous": "a Hazardous test",
    "desperate_escape": "a Desperate Escape test",
}

TESTS = {"battle_shock": "Battle-shock test"}

SHOCKED = "wavering"  # the engine's state a Battle-shocked unit is in
# The game's words for the engine's states, wherever a person reads a unit's state.
STATE_NAMES = {"steady": "in good order", SHOCKED: "battle-shocked", "destroyed": "destroyed"}
# The phase mark of a unit that failed its test in this Battle-shock step: what Insane Bravery needs.
FAILED_IN_STEP = "failed_battle_shock_step"

# A test's result as the due list, explain and the narrative show it. The engine's `target` is the
# most the dice may show, so a test passed on a total at or above Leadership says its roll here.
PASSES = "a total of {total} against Leadership {ld}+: passes"
FAILS = "a total of {total} against Leadership {ld}+: fails"
MODIFIER_REASON = "{value:+d} to the total, as the rule calling for the test says"
SINGLE_MODEL = "{left} of {wounds} wounds left"


class Profile(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What a unit carries beyond its Leadership: the Wounds characteristic, and the wounds a unit of
    one model has left (None: unhurt), which the table changes as it loses them."""

    wounds: Annotated[int, Meta(ge=1, le=100)] = 1
    wounds_left: Annotated[int, Meta(ge=0, le=100)] | None = None


@dataclass(slots=True)
class Bravery:
    """The battle's memory: the sides that have used Insane Bravery, once each per battle. Changed
    only by `Remembered`, a new tuple each time (a snapshot may share the old one)."""

    used_by: tuple[str, ...] = ()


RULES = Rulebook("wh40k10")


# -- Below Half-strength -------------------------------------------------------------------------
@clause("wh40k10.below_half.models")
def below_half_models(unit: UnitView) -> bool:
    """Fewer than half of its starting models left."""
    return unit.models * 2 < unit.starting_models


@clause("wh40k10.below_half.wounds")
def below_half_wounds(unit: UnitView) -> bool:
    """A unit of one model: fewer than half of its Wounds characteristic left."""
    left = unit.profile.get("wounds_left")
    return left is not None and int(left) * 2 < int(unit.profile.get("wounds") or 1)


def below_half_strength(unit: UnitView) -> bool:
    """A unit of one model by its wounds, any other by its models."""
    return below_half_wounds(unit) if unit.starting_models == 1 else below_half_models(unit)


# -- the test ------------------------------------------------------------------------------------
@clause("wh40k10.test.modifiers")
def modified_total(dice: tuple[int, ...], modifiers: tuple[Modifier, ...]) -> int:
    """The 2D6 total with the modifiers added: they change the roll, never Leadership."""
    return sum(dice) + sum(m.value for m in modifiers)


@clause("wh40k10.test.roll")
def battle_shock_result(unit: UnitView, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
    """2D6 (modified) against Leadership: equal or higher passes, lower fails. Changes nothing: the
    dice's reaction below and the odds (`Wh40k10.result_of`) both read it."""
    total, ld = modified_total(dice, due.modifiers), unit.ld or 0
    passed = total >= ld
    return TestResolved(
        unit=unit.id,
        rule=battle_shock_result.id,
        caused_by=due.caused_by,
        test=due.test,
        trigger=due.rule,
        passed=passed,
        dice=dice,
        total=sum(dice),
        modifiers=due.modifiers,
        detail=(PASSES if passed else FAILS).format(total=total, ld=ld),
    )


def rolls_battle_shock(battle: BattleView, rolled: Rolled) -> Outcomes:
    """The dice of a Battle-shock test: its result, which its consequences react to (both cite the
    causes of the test and the roll)."""
    caused_by = (*rolled.due.caused_by, *rolled.caused_by)
    result = battle_shock_result(battle.units[rolled.unit], rolled.due, rolled.dice)
    return resolved(rolled.due, replace(result, caused_by=caused_by), caused_by)


RULES.react(battle_shock_result.id, Rolled, rolls_battle_shock, test="battle_shock")


def odds_of_battle_shock(battle: BattleView, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool]:
    """What these dice give, as `battle_shock_result` decides: the odds try every roll through it."""
    passed = battle_shock_result(battle.units[due.unit], due, dice).passed
    return pass_or_fail(passed)


# No target on the due list: the dice must reach Leadership, not stay under it.
RULES.reads("battle_shock", result=odds_of_battle_shock)


# -- the Command phase: first the Battle-shock of the last turn ends, then the step tests --------
@RULES.clause(
    "wh40k10.shocked.recover",
    phrase="is no longer battle-shocked",
    reacts_to=PhaseStarted,
    phase="command",
)
def recovers(battle: BattleView, started: PhaseStarted) -> Outcomes:
    """At the start of its player's Command phase a Battle-shocked unit is so no longer."""
    return [
        battle.ruleset.graph.move(unit, "recover", (battle.seq,))
        for unit in battle.living.values()
        if unit.side == battle.active_side and unit.state == SHOCKED
    ]


@RULES.clause("wh40k10.step.battle_shock", reacts_to=PhaseStarted, phase="command")
def battle_shock_step(battle: BattleView, started: PhaseStarted) -> Outcomes:
    """Each of the active player's units Below Half-strength takes a Battle-shock test."""
    return [
        call(unit.id, "battle_shock", battle_shock_step.id, (battle.seq,))
        for unit in battle.living.values()
        if unit.side == battle.active_side and below_half_strength(unit)
    ]


# -- tests other rules call for --------------------------------------------------------------------
@RULES.clause("wh40k10.test.other_rules", fact={"battle_shock_test_required": "number"}, reacts_to=TableFactRecorded)
def told_to_test(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """A weapon, ability or Stratagem calls for a test now, with its modifier (the fact's value)."""
    value = int(event.value)
    reason = MODIFIER_REASON.format(value=value)
    modifiers = (Modifier(rule=modified_total.id, value=value, reason=reason),) if value else ()
    return [call(event.unit, "battle_shock", told_to_test.id, (battle.seq,), modifiers=modifiers)]


# -- a failed test ---------------------------------------------------------------------------------
def failed(battle: BattleView, settled: Settled) -> bool:
    return not settled.result.passed


@RULES.clause("wh40k10.shocked.fail", phrase="is battle-shocked", reacts_to=Settled, test="battle_shock", when=failed)
def fails(battle: BattleView, settled: Settled) -> Outcomes:
    """A failed test: Battle-shocked until the start of its player's next Command phase (or, already
    so, it stays)."""
    return [battle.ruleset.graph.move(battle.units[settled.unit], "fail_battle_shock", settled.caused_by)]


# -- Insane Bravery --------------------------------------------------------------------------------
@RULES.clause(
    "wh40k10.insane_bravery",
    free_decision="use_insane_bravery",
    phrase="shrugs off the Battle-shock with Insane Bravery",
    reacts_to=PlayerDecided,
)
def insane_bravery(battle: BattleView, event: PlayerDecided) -> Outcomes:
    """Once per battle, just after a failed test of the Battle-shock step: passed after all."""
    unit = battle.units[event.unit]
    used = (*battle.memory.used_by, unit.side)
    return [
        Remembered(unit="", rule=insane_bravery.id, caused_by=(battle.seq,), note="battle", changes={"used_by": used}),
        battle.ruleset.graph.move(unit, "insane_bravery", (battle.seq,)),
    ]


def failed_in_the_step(battle: BattleView, settled: Settled) -> bool:
    return failed(battle, settled) and settled.due.rule == battle_shock_step.id


def may_use_insane_bravery(battle: BattleView, settled: Settled) -> Outcomes:
    """A test of the Battle-shock step failed (`fails` has made the unit Battle-shocked): until the
    next phase starts, its player may still use Insane Bravery on it."""
    return [Marked(unit=settled.unit, rule=insane_bravery.id, caused_by=settled.caused_by, mark=FAILED_IN_STEP)]


RULES.react(insane_bravery.id, Settled, may_use_insane_bravery, test="battle_shock", when=failed_in_the_step)


# -- what a Battle-shocked unit cannot do (the board shows them; the table plays them) ------------
NO_OBJECTIVE_CONTROL = declare("wh40k10.shocked.objective_control")
NO_STRATAGEMS = declare("wh40k10.shocked.stratagems")
DESPERATE_ESCAPE = declare("wh40k10.shocked.desperate_escape")
# A Battle-shocked unit failing again stays so: a row of the graph, with its own words.
SHOCKED_AGAIN = declare("wh40k10.shocked.again", phrase="fails again and stays battle-shocked")

SHOCKED_CANNOT = (
    ("Objective Control 0: holds and contests no objective", NO_OBJECTIVE_CONTROL.id),
    ("its player's Stratagems cannot be used on it", NO_STRATAGEMS.id),
    ("if it Falls Back, every model takes a Desperate Escape test", DESPERATE_ESCAPE.id),
)
RULES.always_restricts(SHOCKED, SHOCKED_CANNOT)


# -- what the rules refuse -------------------------------------------------------------------------
@RULES.check(UnitJoined)
def unit_has_leadership_and_wounds(battle: BattleView, event: UnitJoined) -> None:
    if event.ld is None or not 2 <= event.ld <= 12:
        raise Refusal("a 10th edition unit needs its Leadership, 2 to 12 (ld 6 for 6+)", field="ld")
    check_wounds(battle.ruleset.read_profile(event.profile), event.models, "profile.wounds_left")


@RULES.check(UnitChanged)
def wounds_left_stay_within_the_units(battle: BattleView, event: UnitChanged) -> None:
    unit = battle.units[event.unit]
    check_wounds(battle.ruleset.read_profile({**unit.profile, **event.changes}), unit.starting_models, "changes")


def check_wounds(profile: dict[str, Any], starting_models: int, field: str) -> None:
    left = profile["wounds_left"]
    if left is None:
        return
    if starting_models != 1:
        raise Refusal("wounds_left is read for a unit of a single model only", rule=below_half_wounds.id)
    if left > profile["wounds"]:
        raise Refusal(f"wounds_left is {left}, more than the unit's {profile['wounds']} wounds", field=field)


@RULES.check(TableFactRecorded)
def fact_allowed(battle: BattleView, event: TableFactRecorded) -> None:
    if type(event.value) is not int or not -6 <= event.value <= 6:
        raise Refusal(
            f"{event.fact} is recorded with the test's modifier, a whole number from -6 to 6 (0: none)",
            field="value",
        )
    if not battle.phase_open:
        raise Refusal("a rule calls for a Battle-shock test during a phase", rule=told_to_test.id)


@RULES.check(PlayerDecided)
def insane_bravery_allowed(battle: BattleView, event: PlayerDecided) -> None:
    if battle.ruleset.free_decisions.get(event.decision) != insane_bravery.id:
        return  # the engine has refused any other decision already: no due test offers one
    unit = battle.units[event.unit]
    if not battle.phase_open or unit.state != SHOCKED or FAILED_IN_STEP not in unit.phase_marks:
        raise Refusal(f"{unit.id} has failed no Battle-shock test in this Battle-shock step", rule=insane_bravery.id)
    if unit.side in battle.memory.used_by:
        raise Refusal(f"{unit.side} has already used Insane Bravery in this battle", rule=insane_bravery.id)


class Wh40k10(Ruleset):
    id = "wh40k10"
    version = "1"
    title = "Warhammer 40,000 10th edition"
    phases = PHASES
    unit_types = UNIT_TYPES
    unit_type_names = UNIT_TYPE_NAMES
    fact_names = FACT_NAMES
    decision_names = DECISION_NAMES
    tests = TESTS
    casualty_causes = CAUSES
    profile_type = Profile
    changeable = frozenset({"wounds_left"})
    state_names = STATE_NAMES
    rulebook = RULES
    # No reaction reads a unit out of play: each reads the units in play alone.
    settles_units_out_of_play = True

    # -- what the views ask: the battle's memory, the unit's card -----------------------------------
    def first_memory(self) -> Bravery:
        return Bravery()

    def profile_values(self, unit: Unit) -> dict[str, FactValue]:
        """The Wounds of a lone model (a card of a unit of several shows none: the rules read its models)."""
        return super().profile_values(unit) if unit.starting_models == 1 else {}

    def describe_profile(self, unit: Unit) -> str:
        left = unit.profile.get("wounds_left")
        return "" if left is None else SINGLE_MODEL.format(left=left, wounds=unit.profile.get("wounds"))

    # The rows that move a unit, each citing the clause that moves it.
    graph = StateGraph(
        [
            {"trigger": "fail_battle_shock", "source": "steady", "dest": SHOCKED, "rule": fails.id},
            {"trigger": "fail_battle_shock", "source": SHOCKED, "dest": "=", "rule": SHOCKED_AGAIN.id},
            {"trigger": "recover", "source": SHOCKED, "dest": "steady", "rule": recovers.id},
            {"trigger": "insane_bravery", "source": SHOCKED, "dest": "steady", "rule": insane_bravery.id},
            {"trigger": "lose_last_model", "source": ["steady", SHOCKED], "dest": "destroyed", "rule": DESTROYED},
        ]
    )


WH40K10 = Wh40k10()
