"""Warhammer 40,000 6th edition: Morale, Fall Back, Regroup (`wh40k6_clauses.toml`).

Tables first, then the clauses in the rulebook's order. A clause that acts is a reaction, declared
with what it reacts to (`RULES.clause(..., reacts_to=...)`, see core/reactions.py): the engine walks
them for each event and for each outcome they decide. A clause that only says what is true of a
unit (Stubborn, Insane Heroism) is a plain function the reactions call. The tables of special
rules, facts, decisions and phrases are built from the declarations.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec.structs import replace

from morale.events.types import ChargeDeclared, CombatResolved, PhaseEnded, PhaseStarted, TableFactRecorded, UnitJoined

from ...engine import automatically, call, due_of, not_taken, remove, resolved, restrict
from ...outcomes import (
    Chosen,
    Modifier,
    Moved,
    OpposedRoll,
    Outcome,
    Rolled,
    Settled,
    StateChangeScheduled,
    TestCalled,
    TestResolved,
    opposed_words,
)
from ...reactions import Outcomes, Rulebook
from ...rules import Refusal, clause
from ...state import DueTest
from ...view import BattleView, UnitView
from ...words import Words, counted
from ..base import pass_or_fail
from .shared import (
    UNIT_TYPE_NAMES,
    FortyK,
    against_leadership,
    back_to_steady,
    check_in_assault_phase,
    end_of_this_turn,
    falling_back_again,
    modified_ld,
    state_graph,
    steady_again,
    to_dispersed,
    to_falling_back,
    to_regrouped,
    until_end_of_next_turn,
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
# The books' words for this edition's unit types, as a person reads them.
TYPE_NAMES = {t: UNIT_TYPE_NAMES[t] for t in FALL_BACK_DICE}

PARAMETERS = {
    "casualty_threshold_percent": 25,  # heavy_casualties
    "regroup_threshold_percent": 25,  # regroup_needs_insane_heroism
}

RESTRICTIONS = {
    "regrouped_this_turn": Words("no other move, no Run, no charge; counts as moved, Snap Shots only"),
    "gone_to_ground": Words("no move, Run or charge; Snap Shots only"),
}

# What removes models, in the rulebook's words (the casualties trigger counts them all, by phase).
CAUSES = {
    "shooting": Words("shooting"),
    "close_combat": Words("close combat"),
    "dangerous_terrain": Words("Dangerous terrain"),
}

# Every test a unit may have due, in the rulebook's words.
TESTS = {
    "morale": Words("Morale test"),
    "pinning": Words("Pinning test"),
    "regroup": Words("Regroup test"),
    "fall_back": Words("Fall Back move"),
    "sweeping_advance": Words("Sweeping Advance"),
}
LEADERSHIP_TESTS = ("morale", "regroup", "pinning")

RULES = Rulebook("wh40k6")


def unit_of(battle: BattleView, trigger: Outcome | TableFactRecorded) -> UnitView:
    return battle.units[trigger.unit]


def failed(battle: BattleView, settled: Settled) -> bool:
    return not settled.result.passed


def charged_while_falling_back(due: DueTest) -> bool:
    """A Regroup test a charge called for (`on_charge`, `destroyed_in_multiple_charge`)."""
    return due.rule in (on_charge.id, destroyed_in_multiple_charge.id)


def in_a_multiple_charge(due: DueTest) -> bool:
    return due.rule == destroyed_in_multiple_charge.id


# -- tests --------------------------------------------------------------------------------------
@clause("wh40k6.special.stubborn", special_rule="stubborn")
def stubborn(unit: UnitView) -> bool:
    return unit.has("stubborn")


@clause("wh40k6.test.modifiers")
def counted_modifiers(unit: UnitView, modifiers: tuple[Modifier, ...]) -> tuple[Modifier, ...]:
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
def leadership_test(unit: UnitView, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
    """2D6 against modified Ld: equal or under passes, over fails; double 1 always passes."""
    modifiers = counted_modifiers(unit, due.modifiers)
    if insane_heroism(dice):
        return against_leadership(unit, due, dice, rule=insane_heroism.id, modifiers=modifiers, passed=True)
    return against_leadership(unit, due, dice, rule=leadership_test.id, modifiers=modifiers)


@clause("wh40k6.test.multiple_per_turn")
def may_test_again(unit: UnitView, test: str) -> bool:
    """A unit can take more than one Morale test in a turn: earlier tests never excuse a later one."""
    return True


@clause("wh40k6.regroup.test", special_rule="independent_character")
def regroup_needs_insane_heroism(unit: UnitView, threshold_percent: int) -> bool:
    """Under 25% of its starting models a unit regroups only on a double 1 (an Independent Character
    with the unit counts as 25% left)."""
    if unit.has("independent_character"):
        return False
    return unit.models * 100 < threshold_percent * unit.starting_models


def evaluate(battle: BattleView, unit: UnitView, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
    """A Leadership test's result for these dice (Morale, Regroup, Pinning); changes nothing."""
    result = leadership_test(unit, due, dice)
    if due.rule == regroup_tests_due.id:
        threshold = int(battle.ruleset.param(battle, "regroup_threshold_percent"))
        if regroup_needs_insane_heroism(unit, threshold) and not insane_heroism(dice):
            detail = counted(
                "{n} of {starting} models left: under 25%, only a double 1 regroups",
                "{n} of {starting} models left: under 25%, only a double 1 regroups",
                n=unit.models,
                starting=unit.starting_models,
            )
            return replace(result, passed=False, rule=regroup_needs_insane_heroism.id, detail=detail)
    return result


def rolls_leadership(battle: BattleView, rolled: Rolled) -> Outcomes:
    """The dice of a Leadership test: its result, which its consequences react to."""
    result = evaluate(battle, unit_of(battle, rolled), rolled.due, rolled.dice)
    return resolved(rolled.due, replace(result, caused_by=(*rolled.due.caused_by, *rolled.caused_by)), rolled.caused_by)


RULES.react(leadership_test.id, Rolled, rolls_leadership, test=LEADERSHIP_TESTS)


def leadership_target(battle: BattleView, due: DueTest) -> int:
    """The Leadership a test's dice must not exceed, its modifiers counted as the test counts them."""
    unit = battle.units[due.unit]
    return modified_ld(unit, counted_modifiers(unit, due.modifiers))


def leadership_odds(battle: BattleView, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool]:
    """These dice pass or fail exactly as `evaluate` would decide them (double 1 included)."""
    passed = evaluate(battle, battle.units[due.unit], due, dice).passed
    return pass_or_fail(passed)


RULES.reads(*LEADERSHIP_TESTS, target=leadership_target, result=leadership_odds)


@clause("wh40k6.special.immune", special_rule="immune_to_morale")
def immune(unit: UnitView) -> bool:
    return unit.has("immune_to_morale")


@clause("wh40k6.special.auto_pass", special_rule="always_passes_morale")
def always_passes_morale(unit: UnitView) -> bool:
    return unit.has("always_passes_morale")


@clause("wh40k6.special.fearless", special_rule="fearless")
def fearless(unit: UnitView) -> bool:
    return unit.has("fearless")


@clause("wh40k6.special.atsknf", special_rule="and_they_shall_know_no_fear")
def knows_no_fear(unit: UnitView) -> bool:
    return unit.has("and_they_shall_know_no_fear")


@clause("wh40k6.fall_back.auto_fail")
def fails_morale_automatically(unit: UnitView) -> bool:
    """A Falling Back unit automatically fails every Morale test except Regroup tests."""
    return unit.state == "falling_back"


@clause("wh40k6.fall_back.shooting")
def passes_pinning_automatically(unit: UnitView) -> bool:
    """A Falling Back unit shoots only Snap Shots, cannot Go to Ground and automatically passes Pinning tests."""
    return unit.state == "falling_back"


@clause("wh40k6.fall_back.no_charge")
def cannot_charge_while_falling_back(unit: UnitView) -> bool:
    return unit.state == "falling_back"


@RULES.restricts("falling_back")
def falling_back_restrictions(unit: UnitView) -> list[tuple[str, str]]:
    """What Falling Back forbids by itself, for the board, each beside the clause that forbids it."""
    return [
        (Words("Snap Shots only; cannot Go to Ground; passes Pinning tests"), passes_pinning_automatically.id),
        (Words("cannot declare a charge"), cannot_charge_while_falling_back.id),
        (Words("fails every Morale test but Regroup tests"), fails_morale_automatically.id),
    ]


# -- when a test is taken ------------------------------------------------------------------------
@RULES.clause(
    "wh40k6.trigger.casualties",
    reacts_to=PhaseEnded,
    phase=("movement", "shooting"),
)
def heavy_casualties(battle: BattleView, ended: PhaseEnded) -> Outcomes:
    """25% or more of the models it had when a Movement or Shooting phase began, lost in that phase:
    a Morale test at the end of the phase."""
    threshold = int(battle.ruleset.param(battle, "casualty_threshold_percent"))
    return [
        call(unit.id, "morale", heavy_casualties.id, tuple(unit.phase_losses))
        for unit in battle.hit_this_phase()
        if unit.lost_this_phase(threshold) and may_test_again(unit, "morale")
    ]


def combat_lost_modifier(margin: int) -> Modifier:
    """-1 Ld for each wound by which the unit's side lost the combat (`combat_lost`)."""
    reason = counted("combat lost by {n}", "combat lost by {n}", n=margin)  # by so many wounds
    return Modifier(rule=combat_lost.id, value=-margin, reason=reason)


@RULES.clause("wh40k6.trigger.combat_lost", reacts_to=CombatResolved)
def combat_lost(battle: BattleView, event: CombatResolved) -> Outcomes:
    """The losers of a close combat take a Morale test at -1 Ld for each wound by which they lost;
    a draw: nobody tests."""
    scores = [side.wounds_inflicted + side.bonus for side in event.sides]
    if scores[0] == scores[1]:
        return []
    loser, winner = (event.sides[0], event.sides[1]) if scores[0] < scores[1] else (event.sides[1], event.sides[0])
    margin = abs(scores[0] - scores[1])
    return [
        call(
            unit_id,
            "morale",
            combat_lost.id,
            (battle.seq,),
            # Marked as the test will count them, so the test due says why its target is what it is.
            modifiers=counted_modifiers(battle.units[unit_id], (combat_lost_modifier(margin),)),
            opponents=tuple(winner.units),
        )
        for unit_id in loser.units
    ]


# -- regroup -------------------------------------------------------------------------------------
@RULES.clause(
    "wh40k6.regroup.when",
    decision="decline_regroup",
    reacts_to=PhaseStarted,
    phase="movement",
)
def regroup_tests_due(battle: BattleView, started: PhaseStarted) -> Outcomes:
    """In its own Movement phase, before any model moves, a Falling Back unit may test to Regroup."""
    side = battle.active_side
    return [
        call(unit.id, "regroup", regroup_tests_due.id, (battle.seq,), decisions=("decline_regroup",))
        for unit in battle.living.values()
        if unit.side == side and unit.state == "falling_back" and not unit.pending
    ]


def declines_to_regroup(battle: BattleView, chosen: Chosen) -> Outcomes:
    """A Regroup declined: in each following Movement phase it Falls Back again (`falls_back`)."""
    return falls_back_by(battle, unit_of(battle, chosen), "fall_back_again", chosen.caused_by)


RULES.react(regroup_tests_due.id, Chosen, declines_to_regroup, decision="decline_regroup")


@clause("wh40k6.regroup.after", phrase=Words("is steady again"))
def regrouped_restrictions(battle: BattleView, unit: UnitView, caused_by: tuple[int, ...]) -> list[Outcome]:
    """Until the end of the turn no other move and Snap Shots only; then it is steady again.
    And They Shall Know No Fear: the unit acts normally in the turn it regroups."""
    end = end_of_this_turn(battle, unit)
    decided: list[Outcome] = [steady_again(unit, end, regrouped_restrictions.id, caused_by)]
    if not knows_no_fear(unit):
        decided.append(restrict(battle, unit, "regrouped_this_turn", regrouped_restrictions.id, end, caused_by))
    return decided


@RULES.clause(
    "wh40k6.regroup.pass",
    phrase=Words("Regroups"),
    reacts_to=Settled,
    test="regroup",
    when=lambda battle, settled: settled.result.passed and not charged_while_falling_back(settled.due),
)
def regroups(battle: BattleView, settled: Settled) -> Outcomes:
    """Stops Falling Back and may at once move up to 3 inches (to restore coherency if broken)."""
    unit = unit_of(battle, settled)
    move = battle.ruleset.graph.move(unit, "regroup", settled.caused_by)
    return [move, *regrouped_restrictions(battle, unit, settled.caused_by)]


@RULES.clause(
    "wh40k6.regroup.fail",
    reacts_to=Settled,
    test="regroup",
    when=lambda battle, settled: not settled.result.passed and not charged_while_falling_back(settled.due),
)
def fails_to_regroup(battle: BattleView, settled: Settled) -> Outcomes:
    """A failed Regroup test: the unit immediately Falls Back again."""
    return falls_back_by(battle, unit_of(battle, settled), "fail_regroup", settled.caused_by)


# -- falling back --------------------------------------------------------------------------------
@RULES.clause("wh40k6.fall_back.start", phrase=Words("Falls Back"), reacts_to=Settled, test="morale", when=failed)
def falls_back(battle: BattleView, settled: Settled) -> Outcomes:
    """A failed Morale test: the unit Falls Back at once. Losers of a close combat may first be
    caught by a Sweeping Advance."""
    unit, due, caused_by = unit_of(battle, settled), settled.due, settled.caused_by
    move = battle.ruleset.graph.move(unit, "fail_morale", caused_by)
    if due.rule == combat_lost.id and due.opponents:
        sweep = call(
            unit.id,
            "sweeping_advance",
            sweeping_advance.id,
            caused_by,
            decisions=("decline_sweeping_advance",),
            opponents=due.opponents,
        )
        return [move, sweep]
    return [move, fall_back_move_due(unit, caused_by)]


def falls_back_by(battle: BattleView, unit: UnitView, trigger: str, caused_by: tuple[int, ...]) -> list[Outcome]:
    """`trigger` leaves the unit Falling Back (a failed Regroup test, a Regroup declined) and it
    makes its Fall Back move at once."""
    return [battle.ruleset.graph.move(unit, trigger, caused_by), fall_back_move_due(unit, caused_by)]


def fall_back_move_due(unit: UnitView, caused_by: tuple[int, ...], rule: str = "") -> TestCalled:
    return call(unit.id, "fall_back", rule or fall_back_move.id, caused_by, dice=FALL_BACK_DICE[unit.unit_type])


@clause("wh40k6.fall_back.from_combat")
def falls_back_from_combat(unit: UnitView, caused_by: tuple[int, ...]) -> TestCalled:
    """Falling Back out of a close combat, models may move through the enemy models of that
    combat; a model ending within 1 inch of an enemy keeps moving."""
    return fall_back_move_due(unit, caused_by, falls_back_from_combat.id)


@RULES.clause("wh40k6.fall_back.distance", reacts_to=Rolled, test="fall_back")
def fall_back_move(battle: BattleView, rolled: Rolled) -> Outcomes:
    """2D6 inches (3D6 for fast unit types), at the slowest model's speed, through difficult terrain.
    From a close combat the models may move through the enemy they fought."""
    due = rolled.due
    caused_by = (*due.caused_by, *rolled.caused_by)
    return [Moved(unit=rolled.unit, rule=due.rule, caused_by=caused_by, inches=sum(rolled.dice), dice=rolled.dice)]


@RULES.clause(
    "wh40k6.sweeping_advance",
    decision="decline_sweeping_advance",
    phrase=Words("is caught by the Sweeping Advance and removed as casualties"),
    reacts_to=Rolled,
    test="sweeping_advance",
)
def sweeping_advance(battle: BattleView, rolled: Rolled) -> Outcomes:
    """Both sides roll D6 + Initiative (the loser's die first); if the winners' total is equal or
    higher the loser is caught and destroyed, else it Falls Back."""
    unit, due, dice = unit_of(battle, rolled), rolled.due, rolled.dice
    caused_by = (*due.caused_by, *rolled.caused_by)
    loser_total, winner_total, winner_initiative, caught = sweep(battle, unit, due, dice)
    # Two opposed rolls, not one sum: each side's die and Initiative, and no target of its own.
    rolls = (
        OpposedRoll(side="loser", die=dice[0], adds="initiative", bonus=unit.initiative or 0, total=loser_total),
        OpposedRoll(side="winners", die=dice[1], adds="initiative", bonus=winner_initiative, total=winner_total),
    )
    result = TestResolved(
        unit=unit.id,
        rule=sweeping_advance.id,
        caused_by=caused_by,
        test=due.test,
        trigger=due.rule,
        passed=not caught,
        dice=dice,
        opposed=rolls,
        detail=opposed_words(rolls),
    )
    if caught:
        return [result, *remove(battle, unit, "be_swept", caused_by)]
    return [result, falls_back_from_combat(unit, caused_by)]


def declines_sweeping_advance(battle: BattleView, chosen: Chosen) -> Outcomes:
    """The winners do not sweep: they consolidate, and the loser Falls Back from the combat."""
    return [falls_back_from_combat(unit_of(battle, chosen), chosen.caused_by)]


RULES.react(sweeping_advance.id, Chosen, declines_sweeping_advance, decision="decline_sweeping_advance")


def escapes_or_not(battle: BattleView, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool]:
    """These dice catch the loser or not, as `sweeping_advance` decides (two opposed rolls: no target)."""
    caught = sweep(battle, battle.units[due.unit], due, dice)[3]
    return (Words("caught"), False) if caught else (Words("escapes"), True)


RULES.reads("sweeping_advance", result=escapes_or_not)  # a Fall Back move neither passes nor fails: no odds


def sweep(battle: BattleView, unit: UnitView, due: DueTest, dice: tuple[int, ...]) -> tuple[int, int, int, bool]:
    """(loser's total, winners' total, winners' Initiative, caught) for these dice; changes nothing."""
    winners = [battle.units[u] for u in due.opponents if battle.units[u].alive]
    winner_initiative = max((u.initiative or 0) for u in winners) if winners else 0
    loser_total = dice[0] + (unit.initiative or 0)
    winner_total = dice[1] + winner_initiative
    return loser_total, winner_total, winner_initiative, bool(winners) and winner_total >= loser_total


# -- charges -------------------------------------------------------------------------------------
@RULES.clause("wh40k6.assaulted.test", reacts_to=ChargeDeclared)
def on_charge(battle: BattleView, event: ChargeDeclared) -> Outcomes:
    """A Falling Back target takes a Regroup test as soon as the enemy is within charge range;
    in a multiple charge every Falling Back target with a charging model in range does. A target
    already doomed by a failed test is not tested again."""
    trigger = destroyed_in_multiple_charge.id if len(event.targets) > 1 else on_charge.id
    return [
        call(target_id, "regroup", trigger, (battle.seq,))
        for target_id in event.in_range
        if battle.units[target_id].state == "falling_back" and not battle.units[target_id].pending
    ]


@RULES.clause(
    "wh40k6.assaulted.pass",
    phrase=Words("Regroups without moving"),
    reacts_to=Settled,
    test="regroup",
    when=lambda battle, settled: settled.result.passed and charged_while_falling_back(settled.due),
)
def regroup_when_charged(battle: BattleView, settled: Settled) -> Outcomes:
    """Passed: Regroups without moving and fights on. Failed: removed as casualties at the end of
    the Assault phase (`removed_after_assault`), or at once in a multiple charge
    (`destroyed_in_multiple_charge`)."""
    unit, caused_by = unit_of(battle, settled), settled.caused_by
    steady = steady_again(unit, end_of_this_turn(battle, unit), regrouped_restrictions.id, caused_by)
    return [steady, battle.ruleset.graph.move(unit, "regroup_when_charged", caused_by)]


@RULES.clause(
    "wh40k6.assaulted.multi",
    phrase=Words("is caught while Falling Back and removed as casualties; the chargers go on as if it was never there"),
    reacts_to=Settled,
    test="regroup",
    when=lambda battle, settled: failed(battle, settled) and in_a_multiple_charge(settled.due),
)
def destroyed_in_multiple_charge(battle: BattleView, settled: Settled) -> Outcomes:
    """A target of a multiple charge that fails is destroyed at once; the chargers go on as if
    it had never been there."""
    return remove(battle, unit_of(battle, settled), "be_destroyed_in_multiple_charge", settled.caused_by)


@RULES.clause(
    "wh40k6.assaulted.fail",
    phrase=Words("is caught while Falling Back and removed as casualties"),
    reacts_to=Settled,
    test="regroup",
    when=lambda battle, settled: failed(battle, settled) and settled.due.rule == on_charge.id,
)
def removed_after_assault(battle: BattleView, settled: Settled) -> Outcomes:
    """A target that fails its Regroup test against a single charge is removed as casualties when
    the Assault phase ends; the chargers may fight it until then."""
    end_of_assault = (battle.turn, battle.side_index, PHASES.index("assault"))
    return [
        StateChangeScheduled(
            unit=settled.unit,
            rule=removed_after_assault.id,
            caused_by=settled.caused_by,
            to_state="dispersed",
            at=battle.ruleset.describe_point(battle, end_of_assault),
            move="be_removed_after_assault",
            when=end_of_assault,
        )
    ]


def caught_while_falling_back(unit: UnitView) -> bool:
    """Charged while Falling Back and failed its Regroup test: removed when the Assault phase ends."""
    return any(p.trigger == "be_removed_after_assault" for p in unit.pending)


# -- facts from the table ------------------------------------------------------------------------
@RULES.clause(
    "wh40k6.fall_back.edge",
    fact="reached_table_edge",
    phrase=Words("reaches its table edge and is removed as casualties"),
    reacts_to=TableFactRecorded,
)
def leaves_by_table_edge(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """Any model reaching its table edge while Falling Back: the whole unit is removed."""
    return remove(battle, unit_of(battle, event), "reach_table_edge", (battle.seq,))


@RULES.clause(
    "wh40k6.fall_back.trapped",
    fact="trapped",
    phrase=Words("is trapped and removed as casualties"),
    reacts_to=TableFactRecorded,
)
def trapped(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """Cannot complete the Fall Back move in coherency: destroyed."""
    return remove(battle, unit_of(battle, event), "be_trapped", (battle.seq,))


@RULES.clause("wh40k6.pinning.test", fact="hit_by_pinning_weapon", reacts_to=TableFactRecorded)
def pinning_test_due(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """Hit by a Pinning weapon: a Pinning test; failed, the unit Goes to Ground until the end of
    its next turn."""
    return [call(event.unit, "pinning", pinning_test_due.id, (battle.seq,))]


def goes_to_ground(battle: BattleView, settled: Settled) -> Outcomes:
    """A failed Pinning test (`pinning_test_due`): Gone to Ground until the end of the unit's next turn."""
    unit = unit_of(battle, settled)
    return [until_end_of_next_turn(battle, unit, "gone_to_ground", pinning_test_due.id, settled.caused_by)]


RULES.react(pinning_test_due.id, Settled, goes_to_ground, test="pinning", when=failed)


# -- tests a unit does not take, or that the rules settle at once --------------------------------
# A test called for is answered by the first row that holds for the unit, in this order; a test no
# row settles falls due (`engine.due`).
def holds(predicate: Callable[[UnitView], bool]) -> Callable[[BattleView, TestCalled], bool]:
    return lambda battle, call: predicate(battle.units[call.unit])


def untaken(rule: str) -> Callable[[BattleView, TestCalled], Outcomes]:
    return lambda battle, call: [not_taken(call, rule, call.caused_by)]


def settled_as(rule: str, *, passed: bool) -> Callable[[BattleView, TestCalled], Outcomes]:
    return lambda battle, call: automatically(due_of(call), passed=passed, rule=rule)


def gone_to_ground(unit: UnitView) -> bool:
    """A unit Gone to Ground takes no further Pinning test (`pinning_test_due`)."""
    return unit.restricted("gone_to_ground") is not None


for rule, test, predicate, answer in (
    (immune.id, "morale", immune, untaken(immune.id)),
    (
        fails_morale_automatically.id,
        "morale",
        fails_morale_automatically,
        settled_as(fails_morale_automatically.id, passed=False),
    ),
    (fearless.id, "morale", fearless, settled_as(fearless.id, passed=True)),
    (always_passes_morale.id, "morale", always_passes_morale, settled_as(always_passes_morale.id, passed=True)),
    (knows_no_fear.id, "regroup", knows_no_fear, settled_as(knows_no_fear.id, passed=True)),
    (fearless.id, "regroup", fearless, settled_as(fearless.id, passed=True)),
    (
        passes_pinning_automatically.id,
        "pinning",
        passes_pinning_automatically,
        settled_as(passes_pinning_automatically.id, passed=True),
    ),
    (fearless.id, "pinning", fearless, settled_as(fearless.id, passed=True)),
    (pinning_test_due.id, "pinning", gone_to_ground, untaken(pinning_test_due.id)),
):
    RULES.react(rule, TestCalled, answer, test=test, when=holds(predicate))


# -- what the rules refuse -----------------------------------------------------------------------
@RULES.check(UnitJoined)
def unit_needs_its_characteristics(battle: BattleView, event: UnitJoined) -> None:
    if event.ld is None:
        raise Refusal(Words("a 40K unit needs its Leadership (ld) for Morale tests"), field="ld")
    if event.initiative is None:
        raise Refusal(Words("a 40K unit needs its Initiative for Sweeping Advances"), field="initiative")


@RULES.check(CombatResolved)
def combat_allowed(battle: BattleView, event: CombatResolved) -> None:
    """A Falling Back unit does nothing of its own (`falls_back`), but one caught by a charge that
    failed its Regroup test stays until the Assault phase ends (`removed_after_assault`), and the
    chargers may fight it: it is in a combat only then."""
    check_in_assault_phase(battle)
    for side in event.sides:
        for unit_id in side.units:
            unit = battle.units[unit_id]
            if unit.state == "falling_back" and not caught_while_falling_back(unit):
                raise Refusal(
                    Words(
                        "{unit} is Falling Back and can do nothing else: it is in a combat only when a "
                        "charge catches it and it fails its Regroup test",
                        unit=unit_id,
                    ),
                    rule=falls_back.id,
                )


@RULES.check(ChargeDeclared)
def charge_allowed(battle: BattleView, event: ChargeDeclared) -> None:
    charger = battle.units[event.charger]
    check_in_assault_phase(battle, charger)
    if cannot_charge_while_falling_back(charger):
        raise Refusal(
            Words("{unit} is Falling Back and cannot declare a charge", unit=charger.id),
            rule=cannot_charge_while_falling_back.id,
        )
    if charger.restricted("regrouped_this_turn"):
        raise Refusal(
            Words("{unit} Regrouped this turn and cannot charge", unit=charger.id), rule=regrouped_restrictions.id
        )
    if charger.restricted("gone_to_ground"):
        raise Refusal(Words("{unit} has Gone to Ground and cannot charge", unit=charger.id), rule=pinning_test_due.id)


@RULES.check(TableFactRecorded)
def stated_as_it_happens(battle: BattleView, event: TableFactRecorded) -> None:
    if event.value is not True:
        raise Refusal(Words("{fact} is recorded when it happens, with value true", fact=event.fact), field="value")


@RULES.check(TableFactRecorded, fact=("reached_table_edge", "trapped"))
def during_a_fall_back(battle: BattleView, event: TableFactRecorded) -> None:
    unit = battle.units[event.unit]
    if unit.state != "falling_back":
        state = battle.ruleset.state_name(unit.state)  # a living unit's: its word is its value (`STATE_NAMES`)
        raise Refusal(
            Words("{unit} is not Falling Back (it is {state})", unit=unit.id, state=state),
            rule=battle.ruleset.facts[event.fact],
        )


@RULES.check(TableFactRecorded, fact="hit_by_pinning_weapon")
def during_a_phase(battle: BattleView, event: TableFactRecorded) -> None:
    if not battle.phase_open:
        raise Refusal(Words("Pinning hits happen during a phase"), rule=pinning_test_due.id)


class Wh40k6(FortyK):
    id = "wh40k6"
    version = "1"
    listing_order = 10  # where `morale rulesets` has always listed it
    game_systems = r"(40,?000|40k).*\b6(th)?\b|\b6(th)?\b.*(40,?000|40k)"  # as BSData names it
    title = Words("Warhammer 40,000 6th edition")
    phases = PHASES
    unit_types = FALL_BACK_DICE
    unit_type_names = TYPE_NAMES
    parameters = PARAMETERS
    restrictions = RESTRICTIONS
    tests = TESTS
    casualty_causes = CAUSES
    rulebook = RULES

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
