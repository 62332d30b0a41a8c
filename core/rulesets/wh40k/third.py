"""Warhammer 40,000 3rd edition: Morale, Fall Back, Regroup, Crossfire (`wh40k3_clauses.toml`).

Tables first, then one function per clause, each declared under the rule ID it carries out; the
tables of special rules, facts, decisions and phrases are built from those declarations. What the
engine cannot see arrives from the table as facts: a tank reaching a unit, a barrage hit, the
distance to an enemy in the Fall Back corridor, difficult terrain on the way, cover, the table edge,
and the Regroup conditions it measures (an enemy within 6 inches, coherency). A Regroup test is
rolled when the table has nothing against it; a fact against it settles it without dice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, ClassVar, NamedTuple

import msgspec
from msgspec import Meta
from msgspec.structs import replace

from morale.events.types import ChargeDeclared, CombatResolved, FactValue, TableFactRecorded, UnitJoined

from ...apply import Decided
from ...outcomes import DueSettled, Marked, Modifier, Moved, RestrictionApplied, TestResolved
from ...rules import Refusal, clause
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

# Which unit types take Morale tests (`takes_morale_tests`). Every unit that is not a vehicle is
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


# The losing side's outnumbering modifiers (`outnumbered`); only the largest applies.
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
    conditional: bool  # the conditions of `regroup_tests_due` apply
    optional: bool  # the player may decline to try
    if_not: str = ""  # what happens when it does not Regroup, where no state changes


# The Regroup conditions (2) and (3) of `regroup_tests_due`: what the table reports against a
# Regroup attempt.
AGAINST_REGROUPING = {
    "enemy_within_6_inches": "an enemy is within 6 inches",
    "out_of_coherency": "it is out of coherency",
}
CONDITIONS_MET = "regroup_conditions_met"  # settles a Regroup the unit passes without dice


class Wh40k3Profile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    # Fast units fall back further, as their profile says (`fall_back_move`).
    fall_back_dice: Annotated[int, Meta(ge=1, le=4)] = 2


PARAMETERS: dict[str, FactValue] = {
    "casualty_threshold_percent": 25,  # heavy_casualties
    "regroup_threshold_percent": 50,  # regroup_tests_due (1)
    "fall_back_towards": "table_edge",  # fall_back_direction: table_edge or deployment_zone
}

# Where the scenario sends Falling Back units (`fall_back_direction`).
FALL_BACK_TOWARDS = {
    "table_edge": "towards its own table edge",
    "deployment_zone": "towards its own deployment-zone line",
}

RESTRICTIONS = {
    "regrouped_this_phase": "no other move this phase but up to 3 inches to restore its formation",
    "pinned": "pinned by a barrage: may not move, shoot or assault",
}

# What the rules remember within a phase (Unit.phase_marks).
FELL_BACK = "fell_back"  # made a Fall Back move this phase
FELL_BACK_FROM_COMBAT = "fell_back_from_combat"  # ...out of a close combat
TRIED_IN_COVER = "tried_to_regroup_in_cover"
THROUGH_COVER_FROM_COMBAT = "fell_back_from_combat_through_cover"  # no Regroup attempt this turn


# -- who tests ----------------------------------------------------------------------------------
@clause("wh40k3.who.infantry")
def takes_morale_tests(unit: Unit) -> bool:
    """Only infantry units take Morale tests; tanks, dreadnoughts and other vehicles never do."""
    return TAKES_MORALE_TESTS[unit.unit_type]


@clause("wh40k3.who.immune", special_rule="immune_to_morale")
def immune(unit: Unit) -> bool:
    """Monsters and some fanatical units are immune to Morale tests when their profile says so."""
    return unit.has("immune_to_morale")


@clause(
    "wh40k3.who.auto_pass",
    special_rule=("always_passes_morale", "always_passes_leadership"),
    fact="hit_by_barrage",  # the barrage Pinning test
)
def passes_automatically(unit: Unit, test: str) -> bool:
    """Some units automatically pass Morale tests, others every Leadership test (Pinning and Regroup
    tests too). A unit immune to all Morale tests still takes the barrage Pinning test."""
    if unit.has("always_passes_leadership"):
        return test in ("morale", "pinning", "regroup")
    return test == "morale" and unit.has("always_passes_morale")


@clause(
    "wh40k3.special.atsknf",
    special_rule="and_they_shall_know_no_fear",
    phrase="Regroups at the end of its Fall Back move (They Shall Know No Fear)",
)
def knows_no_fear(unit: Unit) -> bool:
    """And They Shall Know No Fear: may Regroup below half strength, and Regroups automatically at
    the end of its Fall Back move if in coherency with no enemy within 6 inches."""
    return unit.has("and_they_shall_know_no_fear")


# -- tests --------------------------------------------------------------------------------------
@clause("wh40k3.test.ld", phrase="Falls Back")
def leadership_test(unit: Unit, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
    """2D6 against the modified Ld: equal or under passes, over fails (a failed Morale test: Fall Back)."""
    return against_leadership(unit, due, dice, rule=leadership_test.id)


@clause("wh40k3.mod.below_half")
def below_half(unit: Unit) -> tuple[Modifier, ...]:
    """-1 Ld when the unit is below 50% of its starting strength."""
    if unit.models * 2 >= unit.starting_models:
        return ()
    reason = f"below half strength ({unit.models} of {unit.starting_models})"
    return (Modifier(rule=below_half.id, value=-1, reason=reason),)


# -- when a test is taken ------------------------------------------------------------------------
@clause("wh40k3.trigger.shooting")
def heavy_casualties(battle: Battle, unit: Unit, threshold_percent: int) -> bool:
    """25% or more of its current strength (the models it had when the phase began) lost to enemy
    shooting in a single Shooting phase."""
    enemy_shooting = battle.phase == "shooting" and unit.side != battle.active_side
    return enemy_shooting and unit.lost_this_phase(threshold_percent)


@clause("wh40k3.trigger.combat_lost")
def outnumbered(losers: int, winners: int) -> tuple[Modifier, ...]:
    """A unit that loses a close combat (lost more men than the enemy) tests right after the combat
    result; its side outnumbered: -1, -2 at 2:1 or more, -3 at 3:1, -4 at 4:1, only the largest."""
    for row in OUTNUMBERED:
        if winners > row.ratio * losers or (not row.strictly and winners == row.ratio * losers):
            reason = f"{row.reason} ({winners} to {losers})"
            return (Modifier(rule=outnumbered.id, value=row.value, reason=reason),)
    return ()


@clause("wh40k3.trigger.last_man")
def last_man_standing(unit: Unit) -> bool:
    """Reduced to one model: it tests at the start of each of its own turns."""
    return unit.starting_models > 1 and unit.models == 1


# -- falling back --------------------------------------------------------------------------------
@clause("wh40k3.fall_back.direction")
def fall_back_direction(towards: str) -> str:
    """Towards its own table edge or deployment-zone line (the scenario says which), by the shortest
    path, in coherency, within the corridor between its two outermost models."""
    return f"{FALL_BACK_TOWARDS[towards]} by the shortest path, in coherency, inside its corridor"


@clause("wh40k3.fall_back.shooting")
def cannot_assault(unit: Unit) -> bool:
    """A Falling Back unit may shoot as if it moved (no heavy weapons, rapid fire only within 12
    inches) but cannot assault."""
    return unit.state == "falling_back"


def _inches(value: float) -> int | float:
    return int(value) if value == int(value) else value


# Every test a unit may have due, in the rulebook's words.
# What removes models, in the rulebook's words (its triggers read enemy shooting and close combat).
CAUSES = {"shooting": "shooting", "close_combat": "close combat"}

TESTS = {"morale": "Morale test", "pinning": "Pinning test", "regroup": "Regroup test", "fall_back": "Fall Back move"}


class Wh40k3(FortyK):
    id = "wh40k3"
    version = "1"
    listing_order = 20  # where `morale rulesets` has always listed it
    game_systems = r"(40,?000|40k).*\b3(rd)?\b|\b3(rd)?\b.*(40,?000|40k)"  # as BSData names it
    title = "Warhammer 40,000 3rd edition"
    phases = PHASES
    unit_types = TAKES_MORALE_TESTS
    parameters = PARAMETERS
    restrictions = RESTRICTIONS
    profile_type = Wh40k3Profile
    tests = TESTS
    casualty_causes = CAUSES

    def check_house_rules(self, house_rules: Mapping[str, object]) -> None:
        super().check_house_rules(house_rules)
        towards = house_rules.get("fall_back_towards", "table_edge")
        if towards not in FALL_BACK_TOWARDS:
            raise Refusal(
                f"fall_back_towards is one of {', '.join(FALL_BACK_TOWARDS)}, not {towards!r}", field="house_rules"
            )

    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        super().check_unit(battle, event)
        if event.ld is None and TAKES_MORALE_TESTS[event.unit_type]:
            raise Refusal("a 40K unit that is not a vehicle needs its Leadership (ld)", field="ld")

    # -- which tests a unit takes, and which settle themselves --------------------------------------
    def on_due(self, battle: Battle, due: DueTest) -> Decided | None:
        unit = battle.units[due.unit]
        if not takes_morale_tests(unit):
            return [self.not_taken(due, takes_morale_tests.id, due.caused_by, "vehicles never test")]
        if due.test == "morale" and immune(unit):
            return [self.not_taken(due, immune.id, due.caused_by)]
        if due.test == "morale" and unit.state == "falling_back":
            return [self.not_taken(due, leadership_test.id, due.caused_by, "it is already Falling Back")]
        if due.dice and passes_automatically(unit, due.test):
            return self.settle(battle, due, passed=True, rule=passes_automatically.id)
        return None

    def _morale_test_due(
        self,
        battle: Battle,
        unit: Unit,
        trigger: str,
        caused_by: tuple[int, ...],
        modifiers: tuple[Modifier, ...] = (),
    ) -> Decided:
        return self.require(battle, unit, "morale", trigger, caused_by, modifiers=(*below_half(unit), *modifiers))

    # -- phases ---------------------------------------------------------------------------------
    def on_phase_started(self, battle: Battle, seq: int) -> Decided:
        if battle.phase != "movement":
            return
        for unit in battle.living.values():
            if unit.side != battle.active_side:
                continue
            if unit.state == "falling_back":
                yield from self.regroup_tests_due(battle, unit, seq)
            elif last_man_standing(unit):
                yield from self._morale_test_due(battle, unit, last_man_standing.id, (seq,))

    @clause(
        "wh40k3.regroup.when",
        decision="decline_regroup",
        fact=("enemy_within_6_inches", "out_of_coherency", CONDITIONS_MET),
    )
    def regroup_tests_due(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """At the start of its next Movement phase a Falling Back unit may try to Regroup with an Ld
        test, only if (1) at least 50% of its starting strength, (2) no enemy within 6 inches,
        (3) in coherency. The engine counts the models; the table reports (2) and (3)."""
        return self.offer_regroup(battle, unit, self.regroup_tests_due.id, (seq,))

    def on_phase_ended(self, battle: Battle, seq: int) -> Decided:
        threshold = int(self.param(battle, "casualty_threshold_percent"))
        for unit in battle.hit_this_phase():
            if heavy_casualties(battle, unit, threshold):
                yield from self._morale_test_due(battle, unit, heavy_casualties.id, tuple(unit.phase_losses))

    # -- close combat -----------------------------------------------------------------------------
    def check_combat(self, battle: Battle, event: CombatResolved) -> None:
        check_in_assault_phase(battle)
        if any(side.bonus for side in event.sides):
            raise Refusal("a 3rd edition combat is lost by losing more men: no bonus counts", rule=outnumbered.id)
        for side in event.sides:
            for unit_id in side.units:
                if cannot_assault(battle.units[unit_id]):
                    raise Refusal(
                        f"{unit_id} is Falling Back and cannot fight in a close combat", rule=cannot_assault.id
                    )

    def on_combat(self, battle: Battle, event: CombatResolved, seq: int) -> Decided:
        """The side that lost more men tests at once, each unit of it (`outnumbered`)."""
        first, second = event.sides
        if first.wounds_inflicted == second.wounds_inflicted:
            return  # a draw: nobody tests
        loser, winner = (first, second) if first.wounds_inflicted < second.wounds_inflicted else (second, first)
        losers = sum(battle.units[u].models for u in loser.units)
        winners = sum(battle.units[u].models for u in winner.units)
        for unit_id in loser.units:
            unit = battle.units[unit_id]
            if unit.alive:
                yield from self._morale_test_due(battle, unit, outnumbered.id, (seq,), outnumbered(losers, winners))

    # -- charges ----------------------------------------------------------------------------------
    def check_charge(self, battle: Battle, event: ChargeDeclared) -> None:
        charger = battle.units[event.charger]
        check_in_assault_phase(battle, charger)
        if cannot_assault(charger):
            raise Refusal(f"{charger.id} is Falling Back and cannot assault", rule=cannot_assault.id)
        if charger.restricted("pinned"):
            raise Refusal(f"{charger.id} is pinned and cannot assault", rule=passes_automatically.id)

    @clause(
        "wh40k3.assaulted",
        phrase={
            "regrouped": "Regroups as the enemy charges and fights normally",
            "dispersed": "is charged while Falling Back and removed from the battlefield",
        },
    )
    def on_charge(self, battle: Battle, event: ChargeDeclared, seq: int) -> Decided:
        """A Falling Back unit charged by the enemy at once takes an unmodified Ld test, even if it
        could not otherwise Regroup. Passed: it fights normally. Failed: it is destroyed."""
        for target_id in event.in_range:
            target = battle.units[target_id]
            if target.state == "falling_back":
                yield from self.offer_regroup(battle, target, self.on_charge.id, (seq,))

    # -- facts from the table ---------------------------------------------------------------------
    def check_fact(self, battle: Battle, event: TableFactRecorded) -> None:
        unit, fact, value = battle.units[event.unit], event.fact, event.value
        cited = self.facts[fact]
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
            raise Refusal(f"tank_shocked takes the id of the tank that reached the unit, not {value!r}", field="value")
        if not (battle.phase_open and battle.phase == "movement" and tank.side == battle.active_side):
            raise Refusal(f"{tank.id} can tank shock only in its own Movement phase", rule=self.tank_shock.id)
        if tank.side == unit.side:
            raise Refusal(f"{tank.id} is on {unit.id}'s own side", rule=self.tank_shock.id)

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

    def on_fact(self, battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
        unit, fact = battle.units[event.unit], event.fact
        if fact == "tank_shocked":
            yield from self.tank_shock(battle, unit, seq)
        elif fact == "hit_by_barrage":
            yield from self.require(battle, unit, "pinning", passes_automatically.id, (seq,))
        elif fact == "reached_cover":
            yield from self.reaches_cover(battle, unit, seq)
        elif fact == "reached_table_edge":
            yield from self.reaches_table_edge(battle, unit, seq)
        elif fact == "caught_by_sweeping_advance":
            yield from self.caught_by_sweeping_advance(battle, unit, seq)
        else:
            yield from self._regroup_or_fall_back_fact(battle, unit, event, seq)

    def _regroup_or_fall_back_fact(self, battle: Battle, unit: Unit, event: TableFactRecorded, seq: int) -> Decided:
        """A fact about the unit's first due test: the conditions of a Regroup attempt, or the Fall
        Back roll to come."""
        fact = event.fact
        due = next(due for due in battle.due if due.unit == unit.id)
        if fact in AGAINST_REGROUPING:
            caused_by = (*due.caused_by, seq)
            yield self.withdraw(due, self.regroup_tests_due.id, caused_by, AGAINST_REGROUPING[fact])
            yield from self.does_not_regroup(battle, unit, due.rule, caused_by)
        elif fact == CONDITIONS_MET:
            auto = knows_no_fear.id if due.rule == knows_no_fear.id else passes_automatically.id
            yield DueSettled(unit=unit.id, rule=auto, caused_by=(*due.caused_by, seq), due=due)
            yield from self.settle(
                battle, msgspec.structs.replace(due, caused_by=(*due.caused_by, seq)), passed=True, rule=auto
            )
        else:
            yield self.restate(due, fact, event.value, (seq,))  # a fact about the Fall Back roll to come

    @clause("wh40k3.trigger.tank_shock", fact={"tank_shocked": "enemy"})  # value: the enemy tank's unit id
    def tank_shock(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """A unit reached by an enemy tank in that tank's Movement phase tests after the tank's move."""
        return self._morale_test_due(battle, unit, self.tank_shock.id, (seq,))

    @clause("wh40k3.regroup.cover", fact="reached_cover", phrase="Regroups in cover and stops")
    def reaches_cover(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """The whole unit in cover inside its corridor: a second chance to Regroup, once per phase,
        under the conditions of `regroup_tests_due`. A unit that fell back out of a close combat
        through cover may not try to Regroup that turn (nor at the table edge). Passed: it stops.
        Failed: it completes its move."""
        rule = self.reaches_cover.id
        if TRIED_IN_COVER in unit.phase_marks:
            trying = DueTest(unit=unit.id, test="regroup", rule=rule, caused_by=(seq,))
            yield self.not_taken(trying, rule, (seq,), "it already tried in cover this phase")
            return
        if FELL_BACK_FROM_COMBAT in unit.phase_marks:
            yield Marked(unit=unit.id, rule=rule, caused_by=(seq,), mark=THROUGH_COVER_FROM_COMBAT)
        yield Marked(unit=unit.id, rule=rule, caused_by=(seq,), mark=TRIED_IN_COVER)
        yield from self.offer_regroup(battle, unit, rule, (seq,))

    @clause(
        "wh40k3.regroup.table_edge",
        fact="reached_table_edge",
        phrase={
            "regrouped": "Regroups at the table edge: its last chance",
            "dispersed": "fails its last chance and is removed from the battlefield by its table edge",
        },
    )
    def reaches_table_edge(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """At the table edge a last chance to Regroup, under the conditions of `regroup_tests_due`;
        failed or not allowed: removed from the battlefield."""
        return self.offer_regroup(battle, unit, self.reaches_table_edge.id, (seq,))

    @clause(
        "wh40k3.sweeping_advance",
        fact="caught_by_sweeping_advance",
        phrase={
            "regrouped": "Regroups as the Sweeping Advance reaches it",
            "dispersed": "is caught by the Sweeping Advance and removed from the battlefield",
        },
    )
    def caught_by_sweeping_advance(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """Contacted by a Sweeping Advance while Falling Back: pass a Regroup test or be destroyed
        (taken like `on_charge`: unmodified, even if it could not otherwise Regroup)."""
        return self.offer_regroup(battle, unit, self.caught_by_sweeping_advance.id, (seq,))

    # -- regrouping -------------------------------------------------------------------------------
    def offer_regroup(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...]) -> Decided:
        """A chance to Regroup (`regroup_chances`). The engine checks the strength condition; the table
        may report an enemy within 6 inches or broken coherency against it before the dice."""
        chance = self.regroup_chances[trigger]
        if not chance.conditional:
            yield from self.require(battle, unit, "regroup", trigger, caused_by)
            return
        if THROUGH_COVER_FROM_COMBAT in unit.phase_marks:
            detail = "it fell back out of a close combat through cover this turn"
            yield from self._may_not_regroup(battle, unit, trigger, caused_by, self.reaches_cover.id, detail)
            return
        threshold = int(self.param(battle, "regroup_threshold_percent"))
        if unit.models * 100 < threshold * unit.starting_models and not knows_no_fear(unit):
            detail = f"{unit.models} of {unit.starting_models} models: under {threshold}% of its starting strength"
            yield from self._may_not_regroup(battle, unit, trigger, caused_by, self.regroup_tests_due.id, detail)
            return
        automatic = trigger == knows_no_fear.id or passes_automatically(unit, "regroup")
        yield from self.require(
            battle,
            unit,
            "regroup",
            trigger,
            caused_by,
            dice=0 if automatic else 2,
            decisions=("decline_regroup",) if chance.optional else (),
            facts=(*([CONDITIONS_MET] if automatic else []), *AGAINST_REGROUPING),
        )

    def _may_not_regroup(
        self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...], rule: str, detail: str
    ) -> Decided:
        trying = DueTest(unit=unit.id, test="regroup", rule=trigger, caused_by=caused_by)
        yield self.not_taken(trying, rule, caused_by, detail)
        yield from self.does_not_regroup(battle, unit, trigger, caused_by)

    @clause("wh40k3.regroup.pass", phrase={"regrouped": "Regroups", "steady": "is steady again"})
    def regroups(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...]) -> Decided:
        """No other move that phase but up to 3 inches to restore its formation; it fights normally
        that turn (shoots counting as having moved, may assault) and is steady at the end of it."""
        chance = self.regroup_chances[trigger]
        yield self.graph.move(unit, chance.regroups, caused_by)
        yield self.steady_again(unit, self.end_of_this_turn(battle, unit), self.regroups.id, caused_by)
        if chance.conditional and battle.phase_open:
            yield self.restrict(battle, unit, "regrouped_this_phase", self.regroups.id, battle.point, caused_by)

    @clause("wh40k3.regroup.fail")
    def does_not_regroup(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...]) -> Decided:
        """Failed or not allowed: at the start of a Movement phase it Falls Back another 2D6; in cover
        it completes its move; at the table edge it is removed."""
        otherwise = self.regroup_chances[trigger].otherwise
        if otherwise is None:
            return ()
        if otherwise == "fail_regroup":
            return self.falls_back_by(battle, unit, otherwise, caused_by)
        return self.remove(battle, unit, otherwise, caused_by)

    # -- dice -------------------------------------------------------------------------------------
    def resolve(self, battle: Battle, due: DueTest, dice: tuple[int, ...], seq: int) -> Decided:
        unit = battle.units[due.unit]
        if due.test == "fall_back":
            yield from self.fall_back_move(battle, unit, due, dice, (*due.caused_by, seq))
            return
        result = replace(leadership_test(unit, due, dice), caused_by=(*due.caused_by, seq))
        if not result.passed and due.rule in self.regroup_chances:
            result = replace(result, detail=self.regroup_chances[due.rule].if_not)
        yield result
        yield from self.consequences(battle, due, result, (seq,))

    def consequences(self, battle: Battle, due: DueTest, result: TestResolved, caused_by: tuple[int, ...]) -> Decided:
        unit = battle.units[due.unit]
        if due.test == "morale":
            return () if result.passed else self.falls_back(battle, unit, due, caused_by)
        if due.test == "pinning":
            return () if result.passed else [self.pinned(battle, unit, caused_by)]
        if result.passed:
            return self.regroups(battle, unit, due.rule, caused_by)
        return self.does_not_regroup(battle, unit, due.rule, caused_by)

    def falls_back(self, battle: Battle, unit: Unit, due: DueTest, caused_by: tuple[int, ...]) -> Decided:
        """A failed Morale test makes the unit Fall Back at once (`leadership_test`)."""
        if due.rule == outnumbered.id:
            yield Marked(unit=unit.id, rule=leadership_test.id, caused_by=caused_by, mark=FELL_BACK_FROM_COMBAT)
        yield from self.falls_back_by(battle, unit, "fail_morale", caused_by)

    def fall_back_move_due(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        dice = int(unit.profile.get("fall_back_dice") or 2)
        return self.require(battle, unit, "fall_back", self.fall_back_move.id, caused_by, dice=dice)

    @clause("wh40k3.fall_back.distance", fact="through_difficult_terrain")  # stated before the Fall Back roll
    def fall_back_move(
        self, battle: Battle, unit: Unit, due: DueTest, dice: tuple[int, ...], caused_by: tuple[int, ...]
    ) -> Decided:
        """2D6 inches each turn until it Regroups (fast units as their profile says), halved when
        moving into, out of or through difficult terrain."""
        inches: int | float = sum(dice)
        notes = []
        if due.statement("through_difficult_terrain"):
            inches = _inches(inches / 2)
            notes.append("halved: difficult terrain")
        corridor = due.statement("enemy_in_corridor")
        if isinstance(corridor, int | float) and inches >= corridor:
            yield from self.crossfire(battle, unit, due, dice, inches, corridor, caused_by)
            return
        if corridor is not None:
            notes.append(f'short of the enemy {corridor:g}" away in its corridor')
        yield Marked(unit=unit.id, rule=self.fall_back_move.id, caused_by=caused_by, mark=FELL_BACK)
        towards = fall_back_direction(str(self.param(battle, "fall_back_towards")))
        detail = towards + "".join(f"; {note}" for note in notes)
        yield Moved(unit=unit.id, rule=due.rule, caused_by=caused_by, inches=inches, dice=dice, detail=detail)
        if knows_no_fear(unit):
            yield from self.offer_regroup(battle, unit, knows_no_fear.id, caused_by)

    @clause(
        "wh40k3.crossfire",
        fact={"enemy_in_corridor": "number"},  # value: inches to the nearest such enemy model
        phrase="is caught in the crossfire and removed from the battlefield",
    )
    def crossfire(
        self,
        battle: Battle,
        unit: Unit,
        due: DueTest,
        dice: tuple[int, ...],
        inches: float,
        corridor: float,
        caused_by: tuple[int, ...],
    ) -> Decided:
        """An enemy model not in close combat inside the Fall Back corridor: if the Fall Back roll is
        equal to or greater than the distance to it, the unit is destroyed."""
        yield TestResolved(
            unit=unit.id,
            rule=self.crossfire.id,
            caused_by=caused_by,
            test=due.test,
            trigger=due.rule,
            passed=False,
            dice=dice,
            total=sum(dice),
            detail=f'{inches:g}" reaches the enemy {corridor:g}" away in its corridor',
        )
        yield from self.remove(battle, unit, "be_caught_in_crossfire", caused_by)

    def pinned(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> RestrictionApplied:
        """A failed barrage Pinning test (`passes_automatically`): pinned until the end of its next turn."""
        return self.until_end_of_next_turn(battle, unit, "pinned", passes_automatically.id, caused_by)

    # -- decisions ---------------------------------------------------------------------------------
    def on_decision(self, battle: Battle, due: DueTest, decision: str, seq: int) -> Decided:
        """decline_regroup: the unit does not try; as if it failed (`does_not_regroup`: Falls Back
        again at the start of the Movement phase, the rest of its move in cover, removal at the table
        edge)."""
        caused_by = (*due.caused_by, seq)
        yield self.not_taken(due, self.regroup_tests_due.id, caused_by, "the player declines to try")
        yield from self.does_not_regroup(battle, battle.units[due.unit], due.rule, caused_by)

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
                (
                    "shoots as if it moved: no heavy weapons, rapid fire only within 12 inches; cannot assault",
                    cannot_assault.id,
                ),
                (
                    f"Falls Back {unit.profile.get('fall_back_dice', 2)}D6 inches each turn until it Regroups",
                    self.fall_back_move.id,
                ),
            ]
        if unit.state == "regrouped":
            return [("fights normally this turn; shoots as having moved", self.regroups.id)]
        return []

    # Each way a Falling Back unit gets to Regroup, by the clause that gives it the chance.
    regroup_chances: ClassVar[Mapping[str, Chance]] = {
        regroup_tests_due.id: Chance("regroup", "fail_regroup", True, True),
        reaches_cover.id: Chance("regroup_in_cover", None, True, True, "it completes its Fall Back move"),
        reaches_table_edge.id: Chance("regroup_at_table_edge", "leave_by_table_edge", True, True),
        knows_no_fear.id: Chance("regroup_knowing_no_fear", None, True, False, "it keeps Falling Back"),
        on_charge.id: Chance("regroup_when_charged", "be_destroyed_when_charged", False, False),
        caught_by_sweeping_advance.id: Chance("regroup_when_swept", "be_swept", False, False),
    }

    # The rows that move a unit, each citing the clause above that moves it.
    graph = state_graph(
        to_falling_back("fail_morale", leadership_test.id),
        falling_back_again("fail_regroup", does_not_regroup.id),
        to_regrouped("regroup", regroups.id),
        to_regrouped("regroup_in_cover", reaches_cover.id),
        to_regrouped("regroup_at_table_edge", reaches_table_edge.id),
        to_regrouped("regroup_knowing_no_fear", knows_no_fear.id),
        to_regrouped("regroup_when_charged", on_charge.id),
        to_regrouped("regroup_when_swept", caught_by_sweeping_advance.id),
        back_to_steady(regroups.id),
        to_dispersed("leave_by_table_edge", reaches_table_edge.id),
        to_dispersed("be_caught_in_crossfire", crossfire.id),
        to_dispersed("be_destroyed_when_charged", on_charge.id),
        to_dispersed("be_swept", caught_by_sweeping_advance.id),
    )


WH40K3 = Wh40k3()
