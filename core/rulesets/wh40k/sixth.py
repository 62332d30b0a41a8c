"""Warhammer 40,000 6th edition: Morale, Fall Back, Regroup (`wh40k6_clauses.toml`).

Tables first, then one function per clause, each declared under the rule ID it carries out; the
tables of special rules, facts, decisions and phrases are built from those declarations.
"""

from __future__ import annotations

from msgspec.structs import replace

from morale.events.types import ChargeDeclared, CombatResolved, TableFactRecorded, UnitJoined

from ...apply import Decided
from ...outcomes import (
    Modifier,
    Moved,
    OpposedRoll,
    RestrictionApplied,
    StateChangeScheduled,
    TestResolved,
    opposed_words,
)
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
PHASES = ("movement", "psychic", "shooting", "assault")

# Dice rolled for the Fall Back move, by unit type (`fall_back_move`).
FALL_BACK_DICE = {
    "infantry": 2,
    "monstrous_creature": 2,
    "artillery": 2,
    "jump": 3,
    "jet_bike": 3,
    "bike": 3,
    "cavalry": 3,
    "beast": 3,
}

PARAMETERS = {
    "casualty_threshold_percent": 25,  # heavy_casualties
    "regroup_threshold_percent": 25,  # regroup_needs_insane_heroism
}

RESTRICTIONS = {
    "regrouped_this_turn": "no other move, no Run, no charge; counts as moved, Snap Shots only",
    "gone_to_ground": "no move, Run or charge; Snap Shots only",
}


# -- tests --------------------------------------------------------------------------------------
@clause("wh40k6.test.modifiers")
def apply_modifiers(unit: Unit, modifiers: tuple[Modifier, ...]) -> tuple[Modifier, ...]:
    """Modifiers reduce Ld for the test; Stubborn units ignore the negative ones."""
    applied = []
    for modifier in modifiers:
        if modifier.value < 0 and stubborn(unit):
            modifier = Modifier(
                rule=modifier.rule, value=modifier.value, reason=modifier.reason, ignored_by=stubborn.id
            )
        applied.append(modifier)
    return tuple(applied)


@clause("wh40k6.test.insane_heroism")
def insane_heroism(dice: tuple[int, ...]) -> bool:
    return dice == (1, 1)


@clause("wh40k6.test.morale")
def leadership_test(unit: Unit, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
    """2D6 against modified Ld: equal or under passes, over fails; double 1 always passes."""
    modifiers = apply_modifiers(unit, due.modifiers)
    if insane_heroism(dice):
        return against_leadership(unit, due, dice, rule=insane_heroism.id, modifiers=modifiers, passed=True)
    return against_leadership(unit, due, dice, rule=leadership_test.id, modifiers=modifiers)


@clause("wh40k6.test.multiple_per_turn")
def may_test_again(unit: Unit, test: str) -> bool:
    """A unit can take more than one Morale test in a turn: earlier tests never excuse a later one."""
    return True


@clause("wh40k6.special.immune", special_rule="immune_to_morale")
def immune(unit: Unit) -> bool:
    return unit.has("immune_to_morale")


@clause("wh40k6.special.auto_pass", special_rule="always_passes_morale")
def always_passes_morale(unit: Unit) -> bool:
    return unit.has("always_passes_morale")


@clause("wh40k6.special.fearless", special_rule="fearless")
def fearless(unit: Unit) -> bool:
    return unit.has("fearless")


@clause("wh40k6.special.stubborn", special_rule="stubborn")
def stubborn(unit: Unit) -> bool:
    return unit.has("stubborn")


@clause("wh40k6.special.atsknf", special_rule="and_they_shall_know_no_fear")
def knows_no_fear(unit: Unit) -> bool:
    return unit.has("and_they_shall_know_no_fear")


@clause("wh40k6.fall_back.auto_fail")
def fails_morale_automatically(unit: Unit) -> bool:
    """A Falling Back unit automatically fails every Morale test except Regroup tests."""
    return unit.state == "falling_back"


@clause("wh40k6.fall_back.shooting")
def passes_pinning_automatically(unit: Unit) -> bool:
    """A Falling Back unit shoots only Snap Shots, cannot Go to Ground and automatically passes Pinning tests."""
    return unit.state == "falling_back"


@clause("wh40k6.fall_back.no_charge")
def cannot_charge_while_falling_back(unit: Unit) -> bool:
    return unit.state == "falling_back"


# -- when a test is taken ------------------------------------------------------------------------
@clause("wh40k6.trigger.casualties")
def heavy_casualties(unit: Unit, phase: str | None, threshold_percent: int) -> bool:
    """25% or more of the models it had when a Movement or Shooting phase began, lost in that phase."""
    return phase in ("movement", "shooting") and unit.lost_this_phase(threshold_percent)


@clause("wh40k6.trigger.combat_lost")
def combat_lost_modifier(margin: int) -> Modifier:
    """-1 Ld for each wound by which the unit's side lost the combat."""
    return Modifier(rule=combat_lost_modifier.id, value=-margin, reason=f"combat lost by {margin}")


# -- regroup -------------------------------------------------------------------------------------
@clause("wh40k6.regroup.test", special_rule="independent_character")
def regroup_needs_insane_heroism(unit: Unit, threshold_percent: int) -> bool:
    """Under 25% of its starting models a unit regroups only on a double 1 (an Independent Character
    with the unit counts as 25% left)."""
    if unit.has("independent_character"):
        return False
    return unit.models * 100 < threshold_percent * unit.starting_models


@clause("wh40k6.regroup.after", phrase="is steady again")
def regrouped_restrictions(battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
    """Until the end of the turn no other move and Snap Shots only; then it is steady again.
    And They Shall Know No Fear: the unit acts normally in the turn it regroups."""
    end = WH40K6.end_of_this_turn(battle, unit)
    yield WH40K6.steady_again(unit, end, regrouped_restrictions.id, caused_by)
    if not knows_no_fear(unit):
        yield WH40K6.restrict(battle, unit, "regrouped_this_turn", regrouped_restrictions.id, end, caused_by)


# Every test a unit may have due, in the rulebook's words.
# What removes models, in the rulebook's words (the casualties trigger counts them all, by phase).
CAUSES = {"shooting": "shooting", "close_combat": "close combat", "dangerous_terrain": "Dangerous terrain"}

TESTS = {
    "morale": "Morale test",
    "pinning": "Pinning test",
    "regroup": "Regroup test",
    "fall_back": "Fall Back move",
    "sweeping_advance": "Sweeping Advance",
}


class Wh40k6(FortyK):
    id = "wh40k6"
    version = "1"
    listing_order = 10  # where `morale rulesets` has always listed it
    game_systems = r"(40,?000|40k).*\b6(th)?\b|\b6(th)?\b.*(40,?000|40k)"  # as BSData names it
    title = "Warhammer 40,000 6th edition"
    phases = PHASES
    unit_types = FALL_BACK_DICE
    parameters = PARAMETERS
    restrictions = RESTRICTIONS
    tests = TESTS
    casualty_causes = CAUSES

    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        super().check_unit(battle, event)
        if event.ld is None:
            raise Refusal("a 40K unit needs its Leadership (ld) for Morale tests", field="ld")
        if event.initiative is None:
            raise Refusal("a 40K unit needs its Initiative for Sweeping Advances", field="initiative")

    # -- which tests a unit takes, and which settle themselves --------------------------------------
    def on_due(self, battle: Battle, due: DueTest) -> Decided | None:
        unit = battle.units[due.unit]
        if due.test == "morale":
            if immune(unit):
                return [self.not_taken(due, immune.id, due.caused_by)]
            if fails_morale_automatically(unit):
                return self.settle(battle, due, passed=False, rule=fails_morale_automatically.id)
            if fearless(unit):
                return self.settle(battle, due, passed=True, rule=fearless.id)
            if always_passes_morale(unit):
                return self.settle(battle, due, passed=True, rule=always_passes_morale.id)
        if due.test == "regroup":
            if knows_no_fear(unit):
                return self.settle(battle, due, passed=True, rule=knows_no_fear.id)
            if fearless(unit):
                return self.settle(battle, due, passed=True, rule=fearless.id)
        if due.test == "pinning":
            if passes_pinning_automatically(unit):
                return self.settle(battle, due, passed=True, rule=passes_pinning_automatically.id)
            if fearless(unit):
                return self.settle(battle, due, passed=True, rule=fearless.id)
            if unit.restricted("gone_to_ground"):
                return [self.not_taken(due, self.pinning_test_due.id, due.caused_by)]
        return None

    # -- phases ---------------------------------------------------------------------------------
    def on_phase_started(self, battle: Battle, seq: int) -> Decided:
        if battle.phase == "movement":
            return self.regroup_tests_due(battle, seq)
        return ()

    @clause("wh40k6.regroup.when", decision="decline_regroup")
    def regroup_tests_due(self, battle: Battle, seq: int) -> Decided:
        """In its own Movement phase, before any model moves, a Falling Back unit may test to Regroup."""
        for unit in battle.living.values():
            if unit.side == battle.active_side and unit.state == "falling_back" and not unit.pending:
                yield from self.require(
                    battle, unit, "regroup", self.regroup_tests_due.id, (seq,), decisions=("decline_regroup",)
                )

    def on_phase_ended(self, battle: Battle, seq: int) -> Decided:
        hit = battle.hit_this_phase()
        return self.casualty_tests(battle, hit, seq) if hit else ()  # most phases end with no unit hit

    def casualty_tests(self, battle: Battle, hit: list[Unit], seq: int) -> Decided:
        threshold = int(self.param(battle, "casualty_threshold_percent"))
        phase = battle.phase
        for unit in hit:
            if heavy_casualties(unit, phase, threshold) and may_test_again(unit, "morale"):
                yield from self.require(battle, unit, "morale", heavy_casualties.id, tuple(unit.phase_losses))

    # -- close combat -----------------------------------------------------------------------------
    def on_combat(self, battle: Battle, event: CombatResolved, seq: int) -> Decided:
        scores = [side.wounds_inflicted + side.bonus for side in event.sides]
        if scores[0] == scores[1]:
            return  # a draw: nobody tests
        loser, winner = (event.sides[0], event.sides[1]) if scores[0] < scores[1] else (event.sides[1], event.sides[0])
        margin = abs(scores[0] - scores[1])
        for unit_id in loser.units:
            unit = battle.units[unit_id]
            yield from self.require(
                battle,
                unit,
                "morale",
                combat_lost_modifier.id,
                (seq,),
                # Marked as the test will count them, so the test due says why its target is what it is.
                modifiers=apply_modifiers(unit, (combat_lost_modifier(margin),)),
                opponents=tuple(winner.units),
            )

    # -- charges ----------------------------------------------------------------------------------
    def check_combat(self, battle: Battle, event: CombatResolved) -> None:
        """A Falling Back unit does nothing of its own (`falls_back`), but one caught by a charge that
        failed its Regroup test stays until the Assault phase ends (`removed_after_assault`), and the
        chargers may fight it: it is in a combat only then."""
        check_in_assault_phase(battle)
        for side in event.sides:
            for unit_id in side.units:
                unit = battle.units[unit_id]
                if unit.state == "falling_back" and not self.caught_while_falling_back(unit):
                    raise Refusal(
                        f"{unit_id} is Falling Back and can do nothing else: it is in a combat only when a "
                        "charge catches it and it fails its Regroup test",
                        rule=self.falls_back.id,
                    )

    @staticmethod
    def caught_while_falling_back(unit: Unit) -> bool:
        """Charged while Falling Back and failed its Regroup test: removed when the Assault phase ends."""
        return any(p.trigger == "be_removed_after_assault" for p in unit.pending)

    def check_charge(self, battle: Battle, event: ChargeDeclared) -> None:
        charger = battle.units[event.charger]
        check_in_assault_phase(battle, charger)
        if cannot_charge_while_falling_back(charger):
            raise Refusal(
                f"{charger.id} is Falling Back and cannot declare a charge", rule=cannot_charge_while_falling_back.id
            )
        if charger.restricted("regrouped_this_turn"):
            raise Refusal(f"{charger.id} Regrouped this turn and cannot charge", rule=regrouped_restrictions.id)
        if charger.restricted("gone_to_ground"):
            raise Refusal(f"{charger.id} has Gone to Ground and cannot charge", rule=self.pinning_test_due.id)

    @clause("wh40k6.assaulted.test")
    def on_charge(self, battle: Battle, event: ChargeDeclared, seq: int) -> Decided:
        """A Falling Back target takes a Regroup test as soon as the enemy is within charge range;
        in a multiple charge every Falling Back target with a charging model in range does. A target
        already doomed by a failed test is not tested again."""
        trigger = self.destroyed_in_multiple_charge.id if len(event.targets) > 1 else self.on_charge.id
        for target_id in event.in_range:
            target = battle.units[target_id]
            if target.state == "falling_back" and not target.pending:
                yield from self.require(battle, target, "regroup", trigger, (seq,))

    # -- facts from the table ---------------------------------------------------------------------
    def check_fact(self, battle: Battle, event: TableFactRecorded) -> None:
        unit = battle.units[event.unit]
        if event.value is not True:
            raise Refusal(f"{event.fact} is recorded when it happens, with value true", field="value")
        if event.fact in ("reached_table_edge", "trapped") and unit.state != "falling_back":
            raise Refusal(f"{unit.id} is not Falling Back (it is {unit.state})", rule=self.facts[event.fact])
        if event.fact == "hit_by_pinning_weapon" and not battle.phase_open:
            raise Refusal("Pinning hits happen during a phase", rule=self.facts[event.fact])

    @clause(
        "wh40k6.fall_back.edge", fact="reached_table_edge", phrase="reaches its table edge and is removed as casualties"
    )
    def leaves_by_table_edge(self, battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
        """Any model reaching its table edge while Falling Back: the whole unit is removed."""
        return self.remove(battle, battle.units[event.unit], "reach_table_edge", (seq,))

    @clause("wh40k6.fall_back.trapped", fact="trapped", phrase="is trapped and removed as casualties")
    def trapped(self, battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
        """Cannot complete the Fall Back move in coherency: destroyed."""
        return self.remove(battle, battle.units[event.unit], "be_trapped", (seq,))

    @clause("wh40k6.pinning.test", fact="hit_by_pinning_weapon")
    def pinning_test_due(self, battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
        return self.require(battle, battle.units[event.unit], "pinning", self.pinning_test_due.id, (seq,))

    # -- dice -------------------------------------------------------------------------------------
    def resolve(self, battle: Battle, due: DueTest, dice: tuple[int, ...], seq: int) -> Decided:
        unit = battle.units[due.unit]
        caused_by = (*due.caused_by, seq)
        if due.test == "fall_back":
            yield self.fall_back_move(unit, due, dice, caused_by)
        elif due.test == "sweeping_advance":
            yield from self.sweeping_advance(battle, unit, due, dice, caused_by)
        else:
            result = replace(self.evaluate(battle, unit, due, dice), caused_by=caused_by)
            yield result
            yield from self.consequences(battle, due, result, (seq,))

    def evaluate(self, battle: Battle, unit: Unit, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
        result = leadership_test(unit, due, dice)
        if due.rule == self.regroup_tests_due.id:
            threshold = int(self.param(battle, "regroup_threshold_percent"))
            if regroup_needs_insane_heroism(unit, threshold) and not insane_heroism(dice):
                detail = f"{unit.models} of {unit.starting_models} models left: under 25%, only a double 1 regroups"
                return replace(result, passed=False, rule=regroup_needs_insane_heroism.id, detail=detail)
        return result

    def consequences(self, battle: Battle, due: DueTest, result: TestResolved, caused_by: tuple[int, ...]) -> Decided:
        unit = battle.units[due.unit]
        if due.test == "morale":
            return () if result.passed else self.falls_back(battle, unit, due, caused_by)
        if due.test == "pinning":
            return () if result.passed else [self.goes_to_ground(battle, unit, caused_by)]
        if due.rule in (self.on_charge.id, self.destroyed_in_multiple_charge.id):
            return self.regroup_when_charged(battle, unit, due, result.passed, caused_by)
        if result.passed:
            return self.regroups(battle, unit, caused_by)
        return self.fails_to_regroup(battle, unit, caused_by)

    @clause("wh40k6.fall_back.start", phrase="Falls Back")
    def falls_back(self, battle: Battle, unit: Unit, due: DueTest, caused_by: tuple[int, ...]) -> Decided:
        """A failed Morale test: the unit Falls Back at once. Losers of a close combat may first be
        caught by a Sweeping Advance."""
        yield self.graph.move(unit, "fail_morale", caused_by)
        if due.rule == combat_lost_modifier.id and due.opponents:
            yield from self.require(
                battle,
                unit,
                "sweeping_advance",
                self.sweeping_advance.id,
                caused_by,
                decisions=("decline_sweeping_advance",),
                opponents=due.opponents,
            )
        else:
            yield from self.fall_back_move_due(battle, unit, caused_by)

    def fall_back_move_due(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...], rule: str = "") -> Decided:
        return self.require(
            battle, unit, "fall_back", rule or self.fall_back_move.id, caused_by, dice=FALL_BACK_DICE[unit.unit_type]
        )

    @clause("wh40k6.fall_back.from_combat")
    def falls_back_from_combat(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        """Falling Back out of a close combat, models may move through the enemy models of that
        combat; a model ending within 1 inch of an enemy keeps moving."""
        return self.fall_back_move_due(battle, unit, caused_by, self.falls_back_from_combat.id)

    @clause("wh40k6.fall_back.distance")
    def fall_back_move(self, unit: Unit, due: DueTest, dice: tuple[int, ...], caused_by: tuple[int, ...]) -> Moved:
        """2D6 inches (3D6 for fast unit types), at the slowest model's speed, through difficult terrain.
        From a close combat the models may move through the enemy they fought."""
        return Moved(unit=unit.id, rule=due.rule, caused_by=caused_by, inches=sum(dice), dice=dice)

    @clause(
        "wh40k6.sweeping_advance",
        decision="decline_sweeping_advance",
        phrase="is caught by the Sweeping Advance and removed as casualties",
    )
    def sweeping_advance(
        self, battle: Battle, unit: Unit, due: DueTest, dice: tuple[int, ...], caused_by: tuple[int, ...]
    ) -> Decided:
        """Both sides roll D6 + Initiative (the loser's die first); if the winners' total is equal or
        higher the loser is caught and destroyed, else it Falls Back."""
        loser_total, winner_total, winner_initiative, caught = self.sweep(battle, unit, due, dice)
        # Two opposed rolls, not one sum: each side's die and Initiative, and no target of its own.
        rolls = (
            OpposedRoll(side="loser", die=dice[0], adds="initiative", bonus=unit.initiative or 0, total=loser_total),
            OpposedRoll(side="winners", die=dice[1], adds="initiative", bonus=winner_initiative, total=winner_total),
        )
        yield TestResolved(
            unit=unit.id,
            rule=self.sweeping_advance.id,
            caused_by=caused_by,
            test=due.test,
            trigger=due.rule,
            passed=not caught,
            dice=dice,
            opposed=rolls,
            detail=opposed_words(rolls),
        )
        if caught:
            yield from self.remove(battle, unit, "be_swept", caused_by)
        else:
            yield from self.falls_back_from_combat(battle, unit, caused_by)

    def sweep(self, battle: Battle, unit: Unit, due: DueTest, dice: tuple[int, ...]) -> tuple[int, int, int, bool]:
        """(loser's total, winners' total, winners' Initiative, caught) for these dice; changes nothing."""
        winners = [battle.units[u] for u in due.opponents if battle.units[u].alive]
        winner_initiative = max((u.initiative or 0) for u in winners) if winners else 0
        loser_total = dice[0] + (unit.initiative or 0)
        winner_total = dice[1] + winner_initiative
        return loser_total, winner_total, winner_initiative, bool(winners) and winner_total >= loser_total

    @clause("wh40k6.regroup.pass", phrase="Regroups")
    def regroups(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        """Stops Falling Back and may at once move up to 3 inches (to restore coherency if broken)."""
        yield self.graph.move(unit, "regroup", caused_by)
        yield from regrouped_restrictions(battle, unit, caused_by)

    @clause("wh40k6.regroup.fail")
    def fails_to_regroup(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        """A failed Regroup test: the unit immediately Falls Back again."""
        return self.falls_back_by(battle, unit, "fail_regroup", caused_by)

    @clause("wh40k6.assaulted.pass", phrase="Regroups without moving")
    def regroup_when_charged(
        self, battle: Battle, unit: Unit, due: DueTest, passed: bool, caused_by: tuple[int, ...]
    ) -> Decided:
        """Passed: Regroups without moving and fights on. Failed: removed as casualties at the end of
        the Assault phase (`removed_after_assault`), or at once in a multiple charge
        (`destroyed_in_multiple_charge`)."""
        if passed:
            yield self.steady_again(unit, self.end_of_this_turn(battle, unit), regrouped_restrictions.id, caused_by)
            yield self.graph.move(unit, "regroup_when_charged", caused_by)
        elif due.rule == self.destroyed_in_multiple_charge.id:
            yield from self.destroyed_in_multiple_charge(battle, unit, caused_by)
        else:
            yield self.removed_after_assault(battle, unit, caused_by)

    @clause(
        "wh40k6.assaulted.multi",
        phrase="is caught while Falling Back and removed as casualties; the chargers go on as if it was never there",
    )
    def destroyed_in_multiple_charge(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        """A target of a multiple charge that fails is destroyed at once; the chargers go on as if
        it had never been there."""
        return self.remove(battle, unit, "be_destroyed_in_multiple_charge", caused_by)

    @clause("wh40k6.assaulted.fail", phrase="is caught while Falling Back and removed as casualties")
    def removed_after_assault(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> StateChangeScheduled:
        end_of_assault = (battle.turn, battle.side_index, PHASES.index("assault"))
        return StateChangeScheduled(
            unit=unit.id,
            rule=self.removed_after_assault.id,
            caused_by=caused_by,
            to_state="dispersed",
            at=self.describe_point(battle, end_of_assault),
            move="be_removed_after_assault",
            when=end_of_assault,
        )

    def goes_to_ground(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> RestrictionApplied:
        """A failed Pinning test (`pinning_test_due`): Gone to Ground until the end of the unit's next turn."""
        return self.until_end_of_next_turn(battle, unit, "gone_to_ground", self.pinning_test_due.id, caused_by)

    # -- decisions ---------------------------------------------------------------------------------
    def on_decision(self, battle: Battle, due: DueTest, decision: str, seq: int) -> Decided:
        unit = battle.units[due.unit]
        caused_by = (*due.caused_by, seq)
        if decision == "decline_regroup":
            # A Regroup declined: in each following Movement phase it Falls Back again (`falls_back`).
            return self.falls_back_by(battle, unit, "fall_back_again", caused_by)
        # decline_sweeping_advance: the winners consolidate; the loser Falls Back from the combat.
        return self.falls_back_from_combat(battle, unit, caused_by)

    def result_of(self, battle: Battle, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool] | None:
        """Leadership tests pass or fail exactly as `evaluate` would decide them (double 1 included);
        a Sweeping Advance is escaped or not. A Fall Back move has no pass or fail: no odds."""
        unit = battle.units[due.unit]
        if due.test == "sweeping_advance":
            caught = self.sweep(battle, unit, due, dice)[3]
            return ("caught", False) if caught else ("escapes", True)
        if due.test not in ("morale", "regroup", "pinning"):
            return None
        passed = self.evaluate(battle, unit, due, dice).passed
        return ("pass", True) if passed else ("fail", False)

    def target(self, battle: Battle, due: DueTest) -> int | None:
        if due.test not in ("morale", "regroup", "pinning"):
            return None
        unit = battle.units[due.unit]
        return modified_ld(unit, apply_modifiers(unit, due.modifiers))

    def implied_restrictions(self, unit: Unit) -> list[tuple[str, str]]:
        if unit.state != "falling_back":
            return []
        return [
            ("Snap Shots only; cannot Go to Ground; passes Pinning tests", passes_pinning_automatically.id),
            ("cannot declare a charge", cannot_charge_while_falling_back.id),
            ("fails every Morale test but Regroup tests", fails_morale_automatically.id),
        ]

    # The rows that move a unit, each citing the clause above that moves it.
    graph = state_graph(
        to_falling_back("fail_morale", falls_back.id),
        falling_back_again("fail_morale", fails_morale_automatically.id),
        falling_back_again("fall_back_again", falls_back.id),
        falling_back_again("fail_regroup", fails_to_regroup.id),
        to_regrouped("regroup", regroups.id),
        to_regrouped("regroup_when_charged", regroup_when_charged.id),
        back_to_steady(regrouped_restrictions.id),
        to_dispersed("reach_table_edge", leaves_by_table_edge.id),
        to_dispersed("be_trapped", trapped.id),
        to_dispersed("be_removed_after_assault", removed_after_assault.id),
        to_dispersed("be_destroyed_in_multiple_charge", destroyed_in_multiple_charge.id),
        to_dispersed("be_swept", sweeping_advance.id),
    )


WH40K6 = Wh40k6()
