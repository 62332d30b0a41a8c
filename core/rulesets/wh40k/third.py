"""Warhammer 40,000 3rd edition: Morale, Fall Back, Regroup, Crossfire (`wh40k3_clauses.toml`).

Tables first, then one function per clause, each under the rule ID it carries out. What the
engine cannot see arrives from the table as facts: a tank reaching a unit, a barrage hit, the
distance to an enemy in the Fall Back corridor, difficult terrain on the way, cover, the table edge,
and the Regroup conditions it measures (an enemy within 6 inches, coherency). A Regroup test is
rolled when the table has nothing against it; a fact against it settles it without dice.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Annotated, NamedTuple

import msgspec
from msgspec import Meta
from msgspec.structs import replace

from morale.events.types import ChargeDeclared, CombatResolved, FactValue, TableFactRecorded, UnitJoined

from ...outcomes import Modifier, Moved, Outcome, TestResolved
from ...rules import Refusal, rule
from ...state import Battle, DueTest, Unit
from .shared import (
    FortyK,
    against_leadership,
    back_to_steady,
    check_in_assault_phase,
    falling_back_again,
    modified_ld,
    state_graph,
    to_dispersed,
    to_falling_back,
    to_regrouped,
)

# -- tables -------------------------------------------------------------------------------------
PHASES = ("movement", "shooting", "assault")

# wh40k3.who.infantry: which unit types take Morale tests. Every unit that is not a vehicle is
# infantry in the rule's sense (jump troops, bikes, cavalry, beasts, monsters); vehicles never test.
TAKES_MORALE_TESTS = {
    "infantry": True,
    "jump_infantry": True,
    "bike": True,
    "jet_bike": True,
    "cavalry": True,
    "beast": True,
    "monster": True,
    "tank": False,
    "dreadnought": False,
    "vehicle": False,
}


class Outnumbered(NamedTuple):
    ratio: int  # the winners have at least this many models for each of the losers'...
    strictly: bool  # ...or strictly more, for plain "outnumbered"
    value: int
    reason: str


# wh40k3.trigger.combat_lost: the losing side's outnumbering modifiers; only the largest applies.
OUTNUMBERED = (
    Outnumbered(4, False, -4, "outnumbered 4:1 or more"),
    Outnumbered(3, False, -3, "outnumbered 3:1 or more"),
    Outnumbered(2, False, -2, "outnumbered 2:1 or more"),
    Outnumbered(1, True, -1, "outnumbered"),
)


class Chance(NamedTuple):
    """One way a Falling Back unit gets to Regroup, and what each result does."""

    regroups: str  # the trigger fired when it Regroups
    otherwise: str | None  # the trigger fired when it fails or may not try (None: it keeps Falling Back)
    conditional: bool  # the conditions of wh40k3.regroup.when apply
    optional: bool  # the player may decline to try
    if_not: str = ""  # what happens when it does not Regroup, where no state changes


REGROUP_CHANCES = {
    "wh40k3.regroup.when": Chance("regroup", "fail_regroup", True, True),
    "wh40k3.regroup.cover": Chance("regroup_in_cover", None, True, True, "it completes its Fall Back move"),
    "wh40k3.regroup.table_edge": Chance("regroup_at_table_edge", "leave_by_table_edge", True, True),
    "wh40k3.special.atsknf": Chance("regroup_knowing_no_fear", None, True, False, "it keeps Falling Back"),
    "wh40k3.assaulted": Chance("regroup_when_charged", "be_destroyed_when_charged", False, False),
    "wh40k3.sweeping_advance": Chance("regroup_when_swept", "be_swept", False, False),
}

# wh40k3.regroup.when (2) and (3): what the table reports against a Regroup attempt.
AGAINST_REGROUPING = {
    "enemy_within_6_inches": "an enemy is within 6 inches",
    "out_of_coherency": "it is out of coherency",
}
CONDITIONS_MET = "regroup_conditions_met"  # settles a Regroup the unit passes without dice


class Wh40k3Profile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    # wh40k3.fall_back.distance: fast units fall back further, as their profile says.
    fall_back_dice: Annotated[int, Meta(ge=1, le=4)] = 2


SPECIAL_RULES = {
    "immune_to_morale": "wh40k3.who.immune",
    "always_passes_morale": "wh40k3.who.auto_pass",
    "always_passes_leadership": "wh40k3.who.auto_pass",
    "and_they_shall_know_no_fear": "wh40k3.special.atsknf",
}

FACTS = {
    "tank_shocked": "wh40k3.trigger.tank_shock",  # value: the enemy tank's unit id
    "hit_by_barrage": "wh40k3.who.auto_pass",  # the barrage Pinning test
    "through_difficult_terrain": "wh40k3.fall_back.distance",  # stated before the Fall Back roll
    "enemy_in_corridor": "wh40k3.crossfire",  # value: inches to the nearest such enemy model
    "enemy_within_6_inches": "wh40k3.regroup.when",
    "out_of_coherency": "wh40k3.regroup.when",
    CONDITIONS_MET: "wh40k3.regroup.when",
    "reached_cover": "wh40k3.regroup.cover",
    "reached_table_edge": "wh40k3.regroup.table_edge",
    "caught_by_sweeping_advance": "wh40k3.sweeping_advance",
}

DECISIONS = {"decline_regroup": "wh40k3.regroup.when"}

PARAMETERS: dict[str, object] = {
    "casualty_threshold_percent": 25,  # wh40k3.trigger.shooting
    "regroup_threshold_percent": 50,  # wh40k3.regroup.when (1)
    "fall_back_towards": "table_edge",  # wh40k3.fall_back.direction: table_edge or deployment_zone
}

# wh40k3.fall_back.direction: where the scenario sends Falling Back units.
FALL_BACK_TOWARDS = {
    "table_edge": "towards its own table edge",
    "deployment_zone": "towards its own deployment-zone line",
}

# How the narrative words a state change, by the rule that caused it (and the state it led to).
PHRASES = {
    "wh40k3.regroup.cover": "Regroups in cover and stops",
    "wh40k3.regroup.table_edge:regrouped": "Regroups at the table edge: its last chance",
    "wh40k3.regroup.table_edge:dispersed": "fails its last chance and leaves the battlefield by its table edge",
    "wh40k3.crossfire": "is caught in the crossfire and destroyed",
    "wh40k3.assaulted:regrouped": "Regroups as the enemy charges and fights normally",
    "wh40k3.assaulted:dispersed": "is charged while Falling Back and destroyed",
    "wh40k3.sweeping_advance:regrouped": "Regroups as the Sweeping Advance reaches it",
    "wh40k3.sweeping_advance:dispersed": "is caught by the Sweeping Advance and destroyed",
    "wh40k3.special.atsknf": "Regroups at the end of its Fall Back move (They Shall Know No Fear)",
}

RESTRICTIONS = {
    "regrouped_this_phase": "no other move this phase but up to 3 inches to restore its formation",
    "pinned": "pinned by a barrage: may not move, shoot or assault",
}

GRAPH = state_graph(
    to_falling_back("fail_morale", "wh40k3.test.ld"),
    falling_back_again("fail_regroup", "wh40k3.regroup.fail"),
    to_regrouped("regroup", "wh40k3.regroup.pass"),
    to_regrouped("regroup_in_cover", "wh40k3.regroup.cover"),
    to_regrouped("regroup_at_table_edge", "wh40k3.regroup.table_edge"),
    to_regrouped("regroup_knowing_no_fear", "wh40k3.special.atsknf"),
    to_regrouped("regroup_when_charged", "wh40k3.assaulted"),
    to_regrouped("regroup_when_swept", "wh40k3.sweeping_advance"),
    back_to_steady("wh40k3.regroup.pass"),
    to_dispersed("leave_by_table_edge", "wh40k3.regroup.table_edge"),
    to_dispersed("be_caught_in_crossfire", "wh40k3.crossfire"),
    to_dispersed("be_destroyed_when_charged", "wh40k3.assaulted"),
    to_dispersed("be_swept", "wh40k3.sweeping_advance"),
)

# What the rules remember within a phase (Unit.phase_marks).
FELL_BACK = "fell_back"  # made a Fall Back move this phase
FELL_BACK_FROM_COMBAT = "fell_back_from_combat"  # ...out of a close combat
TRIED_IN_COVER = "tried_to_regroup_in_cover"
THROUGH_COVER_FROM_COMBAT = "fell_back_from_combat_through_cover"  # no Regroup attempt this turn


# -- who tests ----------------------------------------------------------------------------------
@rule("wh40k3.who.infantry")
def takes_morale_tests(unit: Unit) -> bool:
    """Only infantry units take Morale tests; tanks, dreadnoughts and other vehicles never do."""
    return TAKES_MORALE_TESTS[unit.unit_type]


@rule("wh40k3.who.immune")
def immune(unit: Unit) -> bool:
    """Monsters and some fanatical units are immune to Morale tests when their profile says so."""
    return unit.has("immune_to_morale")


@rule("wh40k3.who.auto_pass")
def passes_automatically(unit: Unit, test: str) -> bool:
    """Some units automatically pass Morale tests, others every Leadership test (Pinning and Regroup
    tests too). A unit immune to all Morale tests still takes the barrage Pinning test."""
    if unit.has("always_passes_leadership"):
        return test in ("morale", "pinning", "regroup")
    return test == "morale" and unit.has("always_passes_morale")


@rule("wh40k3.special.atsknf")
def knows_no_fear(unit: Unit) -> bool:
    """And They Shall Know No Fear: may Regroup below half strength, and Regroups automatically at
    the end of its Fall Back move if in coherency with no enemy within 6 inches."""
    return unit.has("and_they_shall_know_no_fear")


# -- tests --------------------------------------------------------------------------------------
@rule("wh40k3.test.ld")
def leadership_test(unit: Unit, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
    """2D6 against the modified Ld: equal or under passes, over fails (a failed Morale test: Fall Back)."""
    return against_leadership(unit, due, dice, rule="wh40k3.test.ld")


@rule("wh40k3.mod.below_half")
def below_half(unit: Unit) -> tuple[Modifier, ...]:
    """-1 Ld when the unit is below 50% of its starting strength."""
    if unit.models * 2 >= unit.starting_models:
        return ()
    reason = f"below half strength ({unit.models} of {unit.starting_models})"
    return (Modifier(rule="wh40k3.mod.below_half", value=-1, reason=reason),)


# -- when a test is taken ------------------------------------------------------------------------
@rule("wh40k3.trigger.shooting")
def heavy_casualties(battle: Battle, unit: Unit, threshold_percent: int) -> bool:
    """25% or more of its current strength (the models it had when the phase began) lost to enemy
    shooting in a single Shooting phase."""
    enemy_shooting = battle.phase == "shooting" and unit.side != battle.active_side
    return enemy_shooting and unit.lost_this_phase(threshold_percent)


@rule("wh40k3.trigger.combat_lost")
def outnumbered(losers: int, winners: int) -> tuple[Modifier, ...]:
    """A unit that loses a close combat (lost more men than the enemy) tests right after the combat
    result; its side outnumbered: -1, -2 at 2:1 or more, -3 at 3:1, -4 at 4:1, only the largest."""
    for row in OUTNUMBERED:
        if winners > row.ratio * losers or (not row.strictly and winners == row.ratio * losers):
            reason = f"{row.reason} ({winners} to {losers})"
            return (Modifier(rule="wh40k3.trigger.combat_lost", value=row.value, reason=reason),)
    return ()


@rule("wh40k3.trigger.last_man")
def last_man_standing(unit: Unit) -> bool:
    """Reduced to one model: it tests at the start of each of its own turns."""
    return unit.starting_models > 1 and unit.models == 1


# -- falling back --------------------------------------------------------------------------------
@rule("wh40k3.fall_back.direction")
def fall_back_direction(towards: str) -> str:
    """Towards its own table edge or deployment-zone line (the scenario says which), by the shortest
    path, in coherency, within the corridor between its two outermost models."""
    return f"{FALL_BACK_TOWARDS[towards]} by the shortest path, in coherency, inside its corridor"


@rule("wh40k3.fall_back.shooting")
def cannot_assault(unit: Unit) -> bool:
    """A Falling Back unit may shoot as if it moved (no heavy weapons, rapid fire only within 12
    inches) but cannot assault."""
    return unit.state == "falling_back"


def _inches(value: float) -> int | float:
    return int(value) if value == int(value) else value


class Wh40k3(FortyK):
    id = "wh40k3"
    version = "1"
    title = "Warhammer 40,000 3rd edition"
    phases = PHASES
    graph = GRAPH
    unit_types = TAKES_MORALE_TESTS
    special_rules = SPECIAL_RULES
    facts = FACTS
    decisions = DECISIONS
    parameters = PARAMETERS
    phrases = PHRASES
    restrictions = RESTRICTIONS
    profile_type = Wh40k3Profile

    def check_house_rules(self, house_rules: Mapping[str, object]) -> None:
        super().check_house_rules(house_rules)
        towards = house_rules.get("fall_back_towards", "table_edge")
        if towards not in FALL_BACK_TOWARDS:
            raise Refusal(f"fall_back_towards is one of {', '.join(FALL_BACK_TOWARDS)}, not {towards!r}",
                          field="house_rules")  # fmt: skip

    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        super().check_unit(battle, event)
        if event.ld is None and TAKES_MORALE_TESTS[event.unit_type]:
            raise Refusal("a 40K unit that is not a vehicle needs its Leadership (ld)", field="ld")

    # -- which tests a unit takes, and which settle themselves --------------------------------------
    def on_due(self, battle: Battle, due: DueTest) -> list[Outcome] | None:
        unit = battle.units[due.unit]
        if not takes_morale_tests(unit):
            return [self.not_taken(due, "wh40k3.who.infantry", due.caused_by, "vehicles never test")]
        if due.test == "morale" and immune(unit):
            return [self.not_taken(due, "wh40k3.who.immune", due.caused_by)]
        if due.test == "morale" and unit.state == "falling_back":
            return [self.not_taken(due, "wh40k3.test.ld", due.caused_by, "it is already Falling Back")]
        if due.dice and passes_automatically(unit, due.test):
            return self.settle(battle, due, passed=True, rule="wh40k3.who.auto_pass")
        return None

    def _morale_test_due(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...],
                         modifiers: tuple[Modifier, ...] = ()) -> list[Outcome]:  # fmt: skip
        return self.require(battle, unit, "morale", trigger, caused_by, modifiers=(*below_half(unit), *modifiers))

    # -- phases ---------------------------------------------------------------------------------
    def on_phase_started(self, battle: Battle, seq: int) -> list[Outcome]:
        if battle.phase != "movement":
            return []
        caused: list[Outcome] = []
        for unit in battle.living.values():
            if unit.side != battle.active_side:
                continue
            if unit.state == "falling_back":
                caused += self.regroup_tests_due(battle, unit, seq)
            elif last_man_standing(unit):
                caused += self._morale_test_due(battle, unit, "wh40k3.trigger.last_man", (seq,))
        return caused

    @rule("wh40k3.regroup.when")
    def regroup_tests_due(self, battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
        """At the start of its next Movement phase a Falling Back unit may try to Regroup with an Ld
        test, only if (1) at least 50% of its starting strength, (2) no enemy within 6 inches,
        (3) in coherency. The engine counts the models; the table reports (2) and (3)."""
        return self.offer_regroup(battle, unit, "wh40k3.regroup.when", (seq,))

    def on_phase_ended(self, battle: Battle, seq: int) -> list[Outcome]:
        caused: list[Outcome] = []
        threshold = int(self.param(battle, "casualty_threshold_percent"))  # type: ignore[call-overload]
        for unit in battle.hit_this_phase():
            if heavy_casualties(battle, unit, threshold):
                caused += self._morale_test_due(battle, unit, "wh40k3.trigger.shooting", tuple(unit.phase_losses))
        return caused

    # -- close combat -----------------------------------------------------------------------------
    def check_combat(self, battle: Battle, event: CombatResolved) -> None:
        check_in_assault_phase(battle)
        if any(side.bonus for side in event.sides):
            raise Refusal("a 3rd edition combat is lost by losing more men: no bonus counts",
                          rule="wh40k3.trigger.combat_lost")  # fmt: skip
        for side in event.sides:
            for unit_id in side.units:
                if cannot_assault(battle.units[unit_id]):
                    raise Refusal(f"{unit_id} is Falling Back and cannot fight in a close combat",
                                  rule="wh40k3.fall_back.shooting")  # fmt: skip

    def on_combat(self, battle: Battle, event: CombatResolved, seq: int) -> list[Outcome]:
        """wh40k3.trigger.combat_lost: the side that lost more men tests at once, each unit of it."""
        first, second = event.sides
        if first.wounds_inflicted == second.wounds_inflicted:
            return []  # a draw: nobody tests
        loser, winner = (first, second) if first.wounds_inflicted < second.wounds_inflicted else (second, first)
        losers = sum(battle.units[u].models for u in loser.units)
        winners = sum(battle.units[u].models for u in winner.units)
        caused: list[Outcome] = []
        for unit_id in loser.units:
            unit = battle.units[unit_id]
            if unit.alive:
                caused += self._morale_test_due(battle, unit, "wh40k3.trigger.combat_lost", (seq,),
                                                outnumbered(losers, winners))  # fmt: skip
        return caused

    # -- charges ----------------------------------------------------------------------------------
    def check_charge(self, battle: Battle, event: ChargeDeclared) -> None:
        charger = battle.units[event.charger]
        check_in_assault_phase(battle, charger)
        if cannot_assault(charger):
            raise Refusal(f"{charger.id} is Falling Back and cannot assault", rule="wh40k3.fall_back.shooting")
        if charger.restricted("pinned"):
            raise Refusal(f"{charger.id} is pinned and cannot assault", rule="wh40k3.who.auto_pass")

    @rule("wh40k3.assaulted")
    def on_charge(self, battle: Battle, event: ChargeDeclared, seq: int) -> list[Outcome]:
        """A Falling Back unit charged by the enemy at once takes an unmodified Ld test, even if it
        could not otherwise Regroup. Passed: it fights normally. Failed: it is destroyed."""
        caused: list[Outcome] = []
        for target_id in event.in_range:
            target = battle.units[target_id]
            if target.state == "falling_back":
                caused += self.offer_regroup(battle, target, "wh40k3.assaulted", (seq,))
        return caused

    # -- facts from the table ---------------------------------------------------------------------
    def check_fact(self, battle: Battle, event: TableFactRecorded) -> None:
        unit, fact, value = battle.units[event.unit], event.fact, event.value
        cited = FACTS[fact]
        if fact == "tank_shocked":
            return self._check_tank_shock(battle, unit, value)
        if fact == "enemy_in_corridor":
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise Refusal("give the distance to the enemy model in inches, e.g. 4.5", field="value")
        elif value is not True:
            raise Refusal(f"{fact} is recorded when it happens, with value true", field="value")
        first = next((due for due in battle.due if due.unit == unit.id), None)
        if fact in ("enemy_in_corridor", "through_difficult_terrain"):
            if first is None or first.test != "fall_back":
                raise Refusal(f"state {fact} when {unit.id}'s Fall Back roll is due, before its dice", rule=cited)
            if first.statement(fact) is not None:
                raise Refusal(f"{fact} is already stated for this roll (retract it to correct it)", rule=cited)
        elif fact in (*AGAINST_REGROUPING, CONDITIONS_MET):
            if first is None or fact not in first.facts:
                raise Refusal(f"{unit.id} has no Regroup attempt waiting for {fact}", rule=cited)
        elif fact == "hit_by_barrage":
            if not (battle.phase_open and battle.phase == "shooting" and unit.side != battle.active_side):
                raise Refusal("a barrage hits in the enemy's Shooting phase", rule=cited)
        else:  # reached cover or the table edge, caught by a Sweeping Advance: during a Fall Back move
            self._check_during_fall_back_move(battle, unit, fact, cited)
        return None

    def _check_tank_shock(self, battle: Battle, unit: Unit, value: FactValue) -> None:
        tank = battle.units.get(value) if isinstance(value, str) else None
        if tank is None or not tank.alive or tank.unit_type != "tank":
            raise Refusal(f"tank_shocked takes the id of the tank that reached the unit, not {value!r}",
                          field="value")  # fmt: skip
        if not (battle.phase_open and battle.phase == "movement" and tank.side == battle.active_side):
            raise Refusal(f"{tank.id} can tank shock only in its own Movement phase", rule="wh40k3.trigger.tank_shock")
        if tank.side == unit.side:
            raise Refusal(f"{tank.id} is on {unit.id}'s own side", rule="wh40k3.trigger.tank_shock")

    def _check_during_fall_back_move(self, battle: Battle, unit: Unit, fact: str, cited: str) -> None:
        if unit.state != "falling_back":
            raise Refusal(f"{unit.id} is not Falling Back (it is {unit.state.replace('_', ' ')})", rule=cited)
        waiting = battle.due_for(unit.id)
        if waiting:
            raise Refusal(f"{unit.id} must first settle its {waiting[0].test} ({waiting[0].rule})", rule=cited)
        if FELL_BACK not in unit.phase_marks:
            raise Refusal(f"{fact} happens during a Fall Back move, and {unit.id} made none this phase", rule=cited)
        if fact == "caught_by_sweeping_advance" and FELL_BACK_FROM_COMBAT not in unit.phase_marks:
            raise Refusal(f"{unit.id} did not fall back out of a close combat this phase", rule=cited)

    def on_fact(self, battle: Battle, event: TableFactRecorded, seq: int) -> list[Outcome]:
        unit, fact = battle.units[event.unit], event.fact
        if fact == "tank_shocked":
            return self.tank_shock(battle, unit, seq)
        if fact == "hit_by_barrage":
            return self.require(battle, unit, "pinning", "wh40k3.who.auto_pass", (seq,))
        if fact == "reached_cover":
            return self.reaches_cover(battle, unit, seq)
        if fact == "reached_table_edge":
            return self.reaches_table_edge(battle, unit, seq)
        if fact == "caught_by_sweeping_advance":
            return self.caught_by_sweeping_advance(battle, unit, seq)
        due = next(due for due in battle.due if due.unit == unit.id)
        if fact in AGAINST_REGROUPING:
            caused_by = (*due.caused_by, seq)
            not_taken = self.withdraw(battle, due, "wh40k3.regroup.when", caused_by, AGAINST_REGROUPING[fact])
            return [not_taken, *self.does_not_regroup(battle, unit, due.rule, caused_by)]
        if fact == CONDITIONS_MET:
            battle.due.remove(due)
            auto = "wh40k3.special.atsknf" if due.rule == "wh40k3.special.atsknf" else "wh40k3.who.auto_pass"
            return self.settle(battle, dataclasses.replace(due, caused_by=(*due.caused_by, seq)), passed=True,
                               rule=auto)  # fmt: skip
        self.restate(battle, due, fact, event.value)  # a fact about the Fall Back roll to come
        return []

    @rule("wh40k3.trigger.tank_shock")
    def tank_shock(self, battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
        """A unit reached by an enemy tank in that tank's Movement phase tests after the tank's move."""
        return self._morale_test_due(battle, unit, "wh40k3.trigger.tank_shock", (seq,))

    @rule("wh40k3.regroup.cover")
    def reaches_cover(self, battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
        """The whole unit in cover inside its corridor: a second chance to Regroup, once per phase,
        under the conditions of wh40k3.regroup.when. A unit that fell back out of a close combat
        through cover may not try to Regroup that turn (nor at the table edge). Passed: it stops.
        Failed: it completes its move."""
        if TRIED_IN_COVER in unit.phase_marks:
            trying = DueTest(unit=unit.id, test="regroup", rule="wh40k3.regroup.cover", caused_by=(seq,))
            return [self.not_taken(trying, "wh40k3.regroup.cover", (seq,), "it already tried in cover this phase")]
        if FELL_BACK_FROM_COMBAT in unit.phase_marks:
            unit.phase_marks.add(THROUGH_COVER_FROM_COMBAT)
        unit.phase_marks.add(TRIED_IN_COVER)
        return self.offer_regroup(battle, unit, "wh40k3.regroup.cover", (seq,))

    @rule("wh40k3.regroup.table_edge")
    def reaches_table_edge(self, battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
        """At the table edge a last chance to Regroup, under the conditions of wh40k3.regroup.when;
        failed or not allowed: removed from the battlefield."""
        return self.offer_regroup(battle, unit, "wh40k3.regroup.table_edge", (seq,))

    @rule("wh40k3.sweeping_advance")
    def caught_by_sweeping_advance(self, battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
        """Contacted by a Sweeping Advance while Falling Back: pass a Regroup test or be destroyed
        (taken like wh40k3.assaulted: unmodified, even if it could not otherwise Regroup)."""
        return self.offer_regroup(battle, unit, "wh40k3.sweeping_advance", (seq,))

    # -- regrouping -------------------------------------------------------------------------------
    def offer_regroup(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...]) -> list[Outcome]:
        """A chance to Regroup (REGROUP_CHANCES). The engine checks the strength condition; the table
        may report an enemy within 6 inches or broken coherency against it before the dice."""
        chance = REGROUP_CHANCES[trigger]
        if not chance.conditional:
            return self.require(battle, unit, "regroup", trigger, caused_by)
        if THROUGH_COVER_FROM_COMBAT in unit.phase_marks:
            detail = "it fell back out of a close combat through cover this turn"
            return self._may_not_regroup(battle, unit, trigger, caused_by, "wh40k3.regroup.cover", detail)
        threshold = int(self.param(battle, "regroup_threshold_percent"))  # type: ignore[call-overload]
        if unit.models * 100 < threshold * unit.starting_models and not knows_no_fear(unit):
            detail = f"{unit.models} of {unit.starting_models} models: under {threshold}% of its starting strength"
            return self._may_not_regroup(battle, unit, trigger, caused_by, "wh40k3.regroup.when", detail)
        automatic = trigger == "wh40k3.special.atsknf" or passes_automatically(unit, "regroup")
        return self.require(battle, unit, "regroup", trigger, caused_by, dice=0 if automatic else 2,
                            decisions=("decline_regroup",) if chance.optional else (),
                            facts=(*([CONDITIONS_MET] if automatic else []), *AGAINST_REGROUPING))  # fmt: skip

    def _may_not_regroup(
        self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...], rule: str, detail: str
    ) -> list[Outcome]:
        trying = DueTest(unit=unit.id, test="regroup", rule=trigger, caused_by=caused_by)
        return [
            self.not_taken(trying, rule, caused_by, detail),
            *self.does_not_regroup(battle, unit, trigger, caused_by),
        ]

    @rule("wh40k3.regroup.pass")
    def regroups(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...]) -> list[Outcome]:
        """No other move that phase but up to 3 inches to restore its formation; it fights normally
        that turn (shoots counting as having moved, may assault) and is steady at the end of it."""
        caused: list[Outcome] = [self.graph.fire(unit, REGROUP_CHANCES[trigger].regroups, caused_by)]
        self.steady_at_end_of_turn(battle, unit, caused_by)
        if REGROUP_CHANCES[trigger].conditional and battle.phase_open:
            caused.append(self.restrict(battle, unit, "regrouped_this_phase", "wh40k3.regroup.pass", battle.point,
                                        caused_by))  # fmt: skip
        return caused

    def does_not_regroup(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...]) -> list[Outcome]:
        """Failed or not allowed: at the start of a Movement phase it Falls Back another 2D6
        (wh40k3.regroup.fail); in cover it completes its move; at the table edge it is removed."""
        otherwise = REGROUP_CHANCES[trigger].otherwise
        if otherwise is None:
            return []
        if otherwise == "fail_regroup":
            return self.falls_back_by(battle, unit, otherwise, caused_by)
        return self.remove(battle, unit, otherwise, caused_by)

    # -- dice -------------------------------------------------------------------------------------
    def resolve(self, battle: Battle, due: DueTest, dice: tuple[int, ...], seq: int) -> list[Outcome]:
        unit = battle.units[due.unit]
        if due.test == "fall_back":
            return self.fall_back_move(battle, unit, due, dice, (*due.caused_by, seq))
        result = replace(leadership_test(unit, due, dice), caused_by=(*due.caused_by, seq))
        if not result.passed and due.rule in REGROUP_CHANCES:
            result = replace(result, detail=REGROUP_CHANCES[due.rule].if_not)
        return [result, *self.consequences(battle, due, result, (seq,))]

    def consequences(
        self, battle: Battle, due: DueTest, result: TestResolved, caused_by: tuple[int, ...]
    ) -> list[Outcome]:
        unit = battle.units[due.unit]
        if due.test == "morale":
            return [] if result.passed else self.falls_back(battle, unit, due, caused_by)
        if due.test == "pinning":
            return [] if result.passed else self.pinned(battle, unit, caused_by)
        if result.passed:
            return self.regroups(battle, unit, due.rule, caused_by)
        return self.does_not_regroup(battle, unit, due.rule, caused_by)

    def falls_back(self, battle: Battle, unit: Unit, due: DueTest, caused_by: tuple[int, ...]) -> list[Outcome]:
        """wh40k3.test.ld: a failed Morale test makes the unit Fall Back at once."""
        if due.rule == "wh40k3.trigger.combat_lost":
            unit.phase_marks.add(FELL_BACK_FROM_COMBAT)
        return self.falls_back_by(battle, unit, "fail_morale", caused_by)

    def fall_back_move_due(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
        dice = int(unit.profile.get("fall_back_dice", 2))  # type: ignore[call-overload]
        return self.require(battle, unit, "fall_back", "wh40k3.fall_back.distance", caused_by, dice=dice)

    @rule("wh40k3.fall_back.distance")
    def fall_back_move(
        self, battle: Battle, unit: Unit, due: DueTest, dice: tuple[int, ...], caused_by: tuple[int, ...]
    ) -> list[Outcome]:
        """2D6 inches each turn until it Regroups (fast units as their profile says), halved when
        moving into, out of or through difficult terrain."""
        inches: int | float = sum(dice)
        notes = []
        if due.statement("through_difficult_terrain"):
            inches = _inches(inches / 2)
            notes.append("halved: difficult terrain")
        corridor = due.statement("enemy_in_corridor")
        if isinstance(corridor, int | float) and inches >= corridor:
            return self.crossfire(battle, unit, due, dice, inches, corridor, caused_by)
        if corridor is not None:
            notes.append(f'short of the enemy {corridor:g}" away in its corridor')
        unit.phase_marks.add(FELL_BACK)
        towards = fall_back_direction(str(self.param(battle, "fall_back_towards")))
        detail = towards + "".join(f"; {note}" for note in notes)
        caused: list[Outcome] = [Moved(unit=unit.id, rule=due.rule, caused_by=caused_by, inches=inches, dice=dice,
                                       detail=detail)]  # fmt: skip
        if knows_no_fear(unit):
            caused += self.offer_regroup(battle, unit, "wh40k3.special.atsknf", caused_by)
        return caused

    @rule("wh40k3.crossfire")
    def crossfire(self, battle: Battle, unit: Unit, due: DueTest, dice: tuple[int, ...], inches: float,
                  corridor: float, caused_by: tuple[int, ...]) -> list[Outcome]:  # fmt: skip
        """An enemy model not in close combat inside the Fall Back corridor: if the Fall Back roll is
        equal to or greater than the distance to it, the unit is destroyed."""
        caught = TestResolved(unit=unit.id, rule="wh40k3.crossfire", caused_by=caused_by, test=due.test,
                              trigger=due.rule, passed=False, dice=dice, total=sum(dice),
                              detail=f'{inches:g}" reaches the enemy {corridor:g}" away in its corridor')  # fmt: skip
        return [caught, *self.remove(battle, unit, "be_caught_in_crossfire", caused_by)]

    def pinned(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
        """A failed barrage Pinning test (wh40k3.who.auto_pass): pinned until the end of its next turn."""
        return [self.until_end_of_next_turn(battle, unit, "pinned", "wh40k3.who.auto_pass", caused_by)]

    # -- decisions ---------------------------------------------------------------------------------
    def on_decision(self, battle: Battle, due: DueTest, decision: str, seq: int) -> list[Outcome]:
        """decline_regroup: the unit does not try; as if it failed (wh40k3.regroup.fail at the start of
        the Movement phase, the rest of its move in cover, removal at the table edge)."""
        caused_by = (*due.caused_by, seq)
        not_taken = self.not_taken(due, "wh40k3.regroup.when", caused_by, "the player declines to try")
        return [not_taken, *self.does_not_regroup(battle, battle.units[due.unit], due.rule, caused_by)]

    def result_of(self, battle: Battle, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool] | None:
        """Leadership tests pass or fail as `leadership_test` decides them; a Fall Back roll with an
        enemy stated in its corridor is caught in the crossfire or not. A test the table settles
        without dice, or a plain Fall Back move, has no odds."""
        if not due.dice:
            return None
        if due.test == "fall_back":
            corridor = due.statement("enemy_in_corridor")
            if not isinstance(corridor, int | float):
                return None
            halved = bool(due.statement("through_difficult_terrain"))
            caught = (sum(dice) / 2 if halved else sum(dice)) >= corridor
            return ("caught in the crossfire", False) if caught else ("falls back", True)
        passed = leadership_test(battle.units[due.unit], due, dice).passed
        return ("pass", True) if passed else ("fail", False)

    def target(self, battle: Battle, due: DueTest) -> int | None:
        if due.test == "fall_back" or not due.dice:
            return None
        return modified_ld(battle.units[due.unit], due.modifiers)

    def implied_restrictions(self, unit: Unit) -> list[tuple[str, str]]:
        if unit.state == "falling_back":
            return [
                ("shoots as if it moved: no heavy weapons, rapid fire only within 12 inches; cannot assault",
                 "wh40k3.fall_back.shooting"),
                (f"Falls Back {unit.profile.get('fall_back_dice', 2)}D6 inches each turn until it Regroups",
                 "wh40k3.fall_back.distance"),
            ]  # fmt: skip
        if unit.state == "regrouped":
            return [("fights normally this turn; shoots as having moved", "wh40k3.regroup.pass")]
        return []


WH40K3 = Wh40k3()
