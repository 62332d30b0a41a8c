"""Warhammer 40,000 10th edition: Battle-shock (`wh40k10_clauses.toml`).

Tables first, then one function per clause, each declared under the rule ID it carries out; the
tables of facts, decisions and phrases are built from those declarations. A Battle-shocked unit is
the engine's `wavering` state, which `state_names` words as the game does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import msgspec
from msgspec import Meta
from msgspec.structs import replace

from morale.core.apply import Decided
from morale.core.machine import StateGraph
from morale.core.outcomes import Marked, Modifier, Remembered, TestResolved
from morale.core.rules import DESTROYED, Refusal, clause, declare
from morale.core.rulesets.base import Ruleset
from morale.core.state import Battle, DueTest, Unit
from morale.events.types import FactValue, PlayerDecided, TableFactRecorded, UnitChanged, UnitJoined

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


# -- Below Half-strength -------------------------------------------------------------------------
@clause("wh40k10.below_half.models")
def below_half_models(unit: Unit) -> bool:
    """Fewer than half of its starting models left."""
    return unit.models * 2 < unit.starting_models


@clause("wh40k10.below_half.wounds")
def below_half_wounds(unit: Unit) -> bool:
    """A unit of one model: fewer than half of its Wounds characteristic left."""
    left = unit.profile.get("wounds_left")
    return left is not None and int(left) * 2 < int(unit.profile.get("wounds") or 1)


def below_half_strength(unit: Unit) -> bool:
    """A unit of one model by its wounds, any other by its models."""
    return below_half_wounds(unit) if unit.starting_models == 1 else below_half_models(unit)


# -- the test ------------------------------------------------------------------------------------
@clause("wh40k10.test.modifiers")
def modified_total(dice: tuple[int, ...], modifiers: tuple[Modifier, ...]) -> int:
    """The 2D6 total with the modifiers added: they change the roll, never Leadership."""
    return sum(dice) + sum(m.value for m in modifiers)


@clause("wh40k10.test.roll")
def battle_shock_result(unit: Unit, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
    """2D6 (modified) against Leadership: equal or higher passes, lower fails."""
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


class Wh40k10(Ruleset):
    id = "wh40k10"
    version = "1"
    title = "Warhammer 40,000 10th edition"
    phases = PHASES
    unit_types = UNIT_TYPES
    tests = TESTS
    casualty_causes = CAUSES
    profile_type = Profile
    changeable = frozenset({"wounds_left"})
    state_names = STATE_NAMES
    # No hook walks a unit out of play: each reads the units in play alone.
    settles_units_out_of_play = True

    def battle_bookkeeping(self) -> Bravery:
        return Bravery()

    # -- set-up -------------------------------------------------------------------------------------
    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        super().check_unit(battle, event)
        if event.ld is None or not 2 <= event.ld <= 12:
            raise Refusal("a 10th edition unit needs its Leadership, 2 to 12 (ld 6 for 6+)", field="ld")
        self.check_wounds(self.read_profile(event.profile), event.models, "profile.wounds_left")

    def check_unit_change(self, battle: Battle, unit: Unit, event: UnitChanged) -> None:
        super().check_unit_change(battle, unit, event)
        self.check_wounds(self.read_profile({**unit.profile, **event.changes}), unit.starting_models, "changes")

    @staticmethod
    def check_wounds(profile: dict[str, Any], starting_models: int, field: str) -> None:
        left = profile["wounds_left"]
        if left is None:
            return
        if starting_models != 1:
            raise Refusal("wounds_left is read for a unit of a single model only", rule=below_half_wounds.id)
        if left > profile["wounds"]:
            raise Refusal(f"wounds_left is {left}, more than the unit's {profile['wounds']} wounds", field=field)

    def profile_values(self, unit: Unit) -> dict[str, FactValue]:
        """The Wounds of a lone model (a card of a unit of several shows none: the rules read its models)."""
        return super().profile_values(unit) if unit.starting_models == 1 else {}

    def describe_profile(self, unit: Unit) -> str:
        left = unit.profile.get("wounds_left")
        return "" if left is None else SINGLE_MODEL.format(left=left, wounds=unit.profile.get("wounds"))

    # -- the Command phase ------------------------------------------------------------------------
    def on_phase_started(self, battle: Battle, seq: int) -> Decided:
        if battle.phase != "command":
            return ()
        return self.command_phase(battle, seq)

    def command_phase(self, battle: Battle, seq: int) -> Decided:
        """First the Battle-shock of the last turn ends, then the Battle-shock step tests."""
        yield from self.recovers(battle, seq)
        yield from self.battle_shock_step(battle, seq)

    @clause("wh40k10.shocked.recover", phrase="is no longer battle-shocked")
    def recovers(self, battle: Battle, seq: int) -> Decided:
        """At the start of its player's Command phase a Battle-shocked unit is so no longer."""
        for unit in [u for u in battle.living.values() if u.side == battle.active_side and u.state == SHOCKED]:
            yield self.graph.move(unit, "recover", (seq,))

    @clause("wh40k10.step.battle_shock")
    def battle_shock_step(self, battle: Battle, seq: int) -> Decided:
        """Each of the active player's units Below Half-strength takes a Battle-shock test."""
        for unit in [u for u in battle.living.values() if u.side == battle.active_side and below_half_strength(u)]:
            yield from self.require(battle, unit, "battle_shock", self.battle_shock_step.id, (seq,))

    # -- tests other rules call for --------------------------------------------------------------
    def check_fact(self, battle: Battle, event: TableFactRecorded) -> None:
        if type(event.value) is not int or not -6 <= event.value <= 6:
            raise Refusal(
                f"{event.fact} is recorded with the test's modifier, a whole number from -6 to 6 (0: none)",
                field="value",
            )
        if not battle.phase_open:
            raise Refusal("a rule calls for a Battle-shock test during a phase", rule=self.told_to_test.id)

    @clause("wh40k10.test.other_rules", fact={"battle_shock_test_required": "number"})
    def told_to_test(self, battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
        """A weapon, ability or Stratagem calls for a test now, with its modifier (the fact's value)."""
        value = int(event.value)
        reason = MODIFIER_REASON.format(value=value)
        modifiers = (Modifier(rule=modified_total.id, value=value, reason=reason),) if value else ()
        return self.require(
            battle, battle.units[event.unit], "battle_shock", self.told_to_test.id, (seq,), modifiers=modifiers
        )

    # -- dice -------------------------------------------------------------------------------------
    def resolve(self, battle: Battle, due: DueTest, dice: tuple[int, ...], seq: int) -> Decided:
        caused_by = (*due.caused_by, seq)
        result = replace(battle_shock_result(battle.units[due.unit], due, dice), caused_by=caused_by)
        yield result
        yield from self.consequences(battle, due, result, caused_by)

    def consequences(self, battle: Battle, due: DueTest, result: TestResolved, caused_by: tuple[int, ...]) -> Decided:
        return () if result.passed else self.fails(battle, battle.units[due.unit], due, caused_by)

    @clause("wh40k10.shocked.fail", phrase="is battle-shocked")
    def fails(self, battle: Battle, unit: Unit, due: DueTest, caused_by: tuple[int, ...]) -> Decided:
        """A failed test: Battle-shocked until the start of its player's next Command phase (or, already
        so, it stays). Failed in the Battle-shock step, Insane Bravery may still save it."""
        yield self.graph.move(unit, "fail_battle_shock", caused_by)
        if due.rule == self.battle_shock_step.id:
            yield Marked(unit=unit.id, rule=self.insane_bravery.id, caused_by=caused_by, mark=FAILED_IN_STEP)

    def result_of(self, battle: Battle, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool] | None:
        passed = battle_shock_result(battle.units[due.unit], due, dice).passed
        return ("pass", True) if passed else ("fail", False)

    # -- Insane Bravery ---------------------------------------------------------------------------
    def check_free_decision(self, battle: Battle, unit: Unit, event: PlayerDecided) -> None:
        if not battle.phase_open or unit.state != SHOCKED or FAILED_IN_STEP not in unit.phase_marks:
            raise Refusal(
                f"{unit.id} has failed no Battle-shock test in this Battle-shock step", rule=self.insane_bravery.id
            )
        if unit.side in battle.bookkeeping.used_by:
            raise Refusal(f"{unit.side} has already used Insane Bravery in this battle", rule=self.insane_bravery.id)

    def on_free_decision(self, battle: Battle, unit: Unit, event: PlayerDecided, seq: int) -> Decided:
        return self.insane_bravery(battle, unit, seq)

    @clause(
        "wh40k10.insane_bravery",
        free_decision="use_insane_bravery",
        phrase="shrugs off the Battle-shock with Insane Bravery",
    )
    def insane_bravery(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """Once per battle, just after a failed test of the Battle-shock step: passed after all."""
        used = (*battle.bookkeeping.used_by, unit.side)
        yield Remembered(
            unit="", rule=self.insane_bravery.id, caused_by=(seq,), book="battle", changes={"used_by": used}
        )
        yield self.graph.move(unit, "insane_bravery", (seq,))

    def implied_restrictions(self, unit: Unit) -> list[tuple[str, str]]:
        return list(SHOCKED_CANNOT) if unit.state == SHOCKED else []

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
