"""Warhammer 40,000 3rd edition: Morale, Fall Back, Regroup, Crossfire (`wh40k3_clauses.toml`).

Tables first, then the clauses in the rulebook's order. A clause that acts is a reaction, declared
with what it reacts to (`RULES.clause(..., reacts_to=...)`, see core/reactions.py): the engine walks
them for each event and for each outcome they decide. A clause that only says what is true of a unit
(immune, They Shall Know No Fear) is a plain function the reactions call. The tables of special
rules, facts, decisions and phrases are built from the declarations. What the engine cannot see
arrives from the table as facts: a tank reaching a unit, a barrage hit, the distance to an enemy in
the Fall Back corridor, difficult terrain on the way, cover, the table edge, and the Regroup
conditions it measures (an enemy within 6 inches, coherency). A Regroup test is rolled when the
table has nothing against it; a fact against it settles it without dice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Set
from typing import Annotated, NamedTuple

import msgspec
from msgspec import Meta
from msgspec.structs import replace

from morale.events.types import (
    ChargeDeclared,
    CombatResolved,
    FactValue,
    PhaseEnded,
    PhaseStarted,
    TableFactRecorded,
    UnitJoined,
)

from ...engine import automatically, call, due_of, not_taken, remove, resolved, restate, restrict, withdraw
from ...outcomes import (
    Chosen,
    DueSettled,
    Marked,
    Modifier,
    Moved,
    Outcome,
    Rolled,
    Settled,
    TestCalled,
    TestNotTaken,
    TestResolved,
)
from ...reactions import Outcomes, Rulebook
from ...referee import oldest_due
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
# The books' words for this edition's unit types, as a person reads them.
TYPE_NAMES = {t: UNIT_TYPE_NAMES[t] for t in TAKES_MORALE_TESTS}


class Outnumbered(NamedTuple):
    ratio: int  # the winners have at least this many models for each of the losers'...
    strictly: bool  # ...or strictly more, for plain "outnumbered"
    value: int


# The losing side's outnumbering modifiers (`outnumbered`); only the largest applies.
OUTNUMBERED = (
    Outnumbered(4, False, -4),
    Outnumbered(3, False, -3),
    Outnumbered(2, False, -2),
    Outnumbered(1, True, -1),
)


def outnumbered_words(row: Outnumbered, winners: int, losers: int) -> Words:
    """Why an `OUTNUMBERED` row applies: "outnumbered 2:1 or more (7 to 3)"."""
    said = {"winners": winners, "losers": losers}
    if row.ratio == 4:
        return Words("outnumbered 4:1 or more ({winners} to {losers})", **said)
    if row.ratio == 3:
        return Words("outnumbered 3:1 or more ({winners} to {losers})", **said)
    if row.ratio == 2:
        return Words("outnumbered 2:1 or more ({winners} to {losers})", **said)
    return Words("outnumbered ({winners} to {losers})", **said)


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
    "enemy_within_6_inches": Words("an enemy is within 6 inches"),
    "out_of_coherency": Words("it is out of coherency"),
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
FALL_BACK_TOWARDS: dict[str, Words] = {
    "table_edge": Words("towards its own table edge"),
    "deployment_zone": Words("towards its own deployment-zone line"),
}
# The words a house rule of this edition may take (`Ruleset.parameter_choices`).
CHOICES = {"fall_back_towards": tuple(FALL_BACK_TOWARDS)}

RESTRICTIONS = {
    "regrouped_this_phase": Words("no other move this phase but up to 3 inches to restore its formation"),
    "pinned": Words("pinned by a barrage: may not move, shoot or assault"),
}

# What the rules remember within a phase (Unit.phase_marks).
FELL_BACK = "fell_back"  # made a Fall Back move this phase
FELL_BACK_FROM_COMBAT = "fell_back_from_combat"  # ...out of a close combat
TRIED_IN_COVER = "tried_to_regroup_in_cover"
THROUGH_COVER_FROM_COMBAT = "fell_back_from_combat_through_cover"  # no Regroup attempt this turn


# Every test a unit may have due, in the rulebook's words.
TESTS = {
    "morale": Words("Morale test"),
    "pinning": Words("Pinning test"),
    "regroup": Words("Regroup test"),
    "fall_back": Words("Fall Back move"),
}
LEADERSHIP_TESTS = ("morale", "pinning", "regroup")

# What removes models, in the rulebook's words (its triggers read enemy shooting and close combat).
CAUSES = {"shooting": Words("shooting"), "close_combat": Words("close combat")}

RULES = Rulebook("wh40k3")


def unit_of(battle: BattleView, trigger: Outcome | TableFactRecorded) -> UnitView:
    return battle.units[trigger.unit]


def passed(battle: BattleView, settled: Settled) -> bool:
    return settled.result.passed


def failed(battle: BattleView, settled: Settled) -> bool:
    return not settled.result.passed


# -- who tests ----------------------------------------------------------------------------------
@clause("wh40k3.who.infantry")
def takes_morale_tests(unit: UnitView) -> bool:
    """Only infantry units take Morale tests; tanks, dreadnoughts and other vehicles never do."""
    return TAKES_MORALE_TESTS[unit.unit_type]


@clause("wh40k3.who.immune", special_rule="immune_to_morale")
def immune(unit: UnitView) -> bool:
    """Monsters and some fanatical units are immune to Morale tests when their profile says so."""
    return unit.has("immune_to_morale")


@clause(
    "wh40k3.who.auto_pass",
    special_rule=("always_passes_morale", "always_passes_leadership"),
    fact="hit_by_barrage",  # the barrage Pinning test
)
def passes_automatically(unit: UnitView, test: str) -> bool:
    """Some units automatically pass Morale tests, others every Leadership test (Pinning and Regroup
    tests too). A unit immune to all Morale tests still takes the barrage Pinning test."""
    if unit.has("always_passes_leadership"):
        return test in LEADERSHIP_TESTS
    return test == "morale" and unit.has("always_passes_morale")


@clause(
    "wh40k3.special.atsknf",
    special_rule="and_they_shall_know_no_fear",
    phrase=Words("Regroups at the end of its Fall Back move (They Shall Know No Fear)"),
)
def knows_no_fear(unit: UnitView) -> bool:
    """And They Shall Know No Fear: may Regroup below half strength, and Regroups automatically at
    the end of its Fall Back move if in coherency with no enemy within 6 inches."""
    return unit.has("and_they_shall_know_no_fear")


# -- tests --------------------------------------------------------------------------------------
@clause("wh40k3.test.ld", phrase=Words("Falls Back"))
def leadership_test(unit: UnitView, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
    """2D6 against the modified Ld: equal or under passes, over fails (a failed Morale test: Fall Back)."""
    return against_leadership(unit, due, dice, rule=leadership_test.id)


def rolls_leadership(battle: BattleView, rolled: Rolled) -> Outcomes:
    """The dice of a Leadership test (Morale, Pinning, Regroup): its result, which its consequences
    react to. A Regroup chance that fails says what the unit does instead, where its state stays."""
    due = rolled.due
    result = replace(
        leadership_test(unit_of(battle, rolled), due, rolled.dice), caused_by=(*due.caused_by, *rolled.caused_by)
    )
    if not result.passed and due.rule in REGROUP_CHANCES:
        result = replace(result, detail=REGROUP_CHANCES[due.rule].if_not)
    return resolved(due, result, rolled.caused_by)


RULES.react(leadership_test.id, Rolled, rolls_leadership, test=LEADERSHIP_TESTS)


def leadership_target(battle: BattleView, due: DueTest) -> int | None:
    """The modified Ld a test's dice must not exceed (none for a test the table settles without dice)."""
    return modified_ld(battle.units[due.unit], due.modifiers) if due.dice else None


def leadership_odds(battle: BattleView, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool] | None:
    """These dice pass or fail as `leadership_test` decides them."""
    if not due.dice:
        return None
    passed = leadership_test(battle.units[due.unit], due, dice).passed
    return pass_or_fail(passed)


RULES.reads(*LEADERSHIP_TESTS, target=leadership_target, result=leadership_odds)


@clause("wh40k3.mod.below_half")
def below_half(unit: UnitView) -> tuple[Modifier, ...]:
    """-1 Ld when the unit is below 50% of its starting strength."""
    if unit.models * 2 >= unit.starting_models:
        return ()
    reason = Words("below half strength ({models} of {starting})", models=unit.models, starting=unit.starting_models)
    return (Modifier(rule=below_half.id, value=-1, reason=reason),)


def morale_test(
    unit: UnitView, trigger: str, caused_by: tuple[int, ...], modifiers: tuple[Modifier, ...] = ()
) -> TestCalled:
    """`trigger` calls for the unit's Morale test, at -1 Ld below half strength (`below_half`)."""
    return call(unit.id, "morale", trigger, caused_by, modifiers=(*below_half(unit), *modifiers))


# -- when a test is taken ------------------------------------------------------------------------
@clause("wh40k3.trigger.shooting")
def heavy_casualties(battle: BattleView, unit: UnitView, threshold_percent: int) -> bool:
    """25% or more of its current strength (the models it had when the phase began) lost to enemy
    shooting in a single Shooting phase."""
    enemy_shooting = battle.phase == "shooting" and unit.side != battle.active_side
    return enemy_shooting and unit.lost_this_phase(threshold_percent)


def tests_for_heavy_casualties(battle: BattleView, ended: PhaseEnded) -> Outcomes:
    """At the end of the phase, each unit its losses make test (`heavy_casualties`)."""
    threshold = int(battle.ruleset.param(battle, "casualty_threshold_percent"))
    return [
        morale_test(unit, heavy_casualties.id, tuple(unit.phase_losses))
        for unit in battle.hit_this_phase()
        if heavy_casualties(battle, unit, threshold)
    ]


RULES.react(heavy_casualties.id, PhaseEnded, tests_for_heavy_casualties, when=lambda b, e: bool(b.hit_this_phase()))


@clause("wh40k3.trigger.combat_lost")
def outnumbered(losers: int, winners: int) -> tuple[Modifier, ...]:
    """A unit that loses a close combat (lost more men than the enemy) tests right after the combat
    result; its side outnumbered: -1, -2 at 2:1 or more, -3 at 3:1, -4 at 4:1, only the largest."""
    for row in OUTNUMBERED:
        if winners > row.ratio * losers or (not row.strictly and winners == row.ratio * losers):
            return (Modifier(rule=outnumbered.id, value=row.value, reason=outnumbered_words(row, winners, losers)),)
    return ()


def combat_lost(battle: BattleView, event: CombatResolved) -> Outcomes:
    """The side that lost more men tests at once, each unit of it (`outnumbered`); a draw: nobody tests."""
    first, second = event.sides
    if first.wounds_inflicted == second.wounds_inflicted:
        return []
    loser, winner = (first, second) if first.wounds_inflicted < second.wounds_inflicted else (second, first)
    losers = sum(battle.units[u].models for u in loser.units)
    winners = sum(battle.units[u].models for u in winner.units)
    return [
        morale_test(battle.units[unit_id], outnumbered.id, (battle.seq,), outnumbered(losers, winners))
        for unit_id in loser.units
        if battle.units[unit_id].alive
    ]


RULES.react(outnumbered.id, CombatResolved, combat_lost)


@clause("wh40k3.trigger.last_man")
def last_man_standing(unit: UnitView) -> bool:
    """Reduced to one model: it tests at the start of each of its own turns."""
    return unit.starting_models > 1 and unit.models == 1


# -- falling back --------------------------------------------------------------------------------
@clause("wh40k3.fall_back.direction")
def fall_back_direction(towards: str) -> Words:
    """Towards its own table edge or deployment-zone line (the scenario says which), by the shortest
    path, in coherency, within the corridor between its two outermost models."""
    where = FALL_BACK_TOWARDS[towards]
    return Words("{towards} by the shortest path, in coherency, inside its corridor", towards=where)


@clause("wh40k3.fall_back.shooting")
def cannot_assault(unit: UnitView) -> bool:
    """A Falling Back unit may shoot as if it moved (no heavy weapons, rapid fire only within 12
    inches) but cannot assault."""
    return unit.state == "falling_back"


@RULES.restricts("falling_back")
def falling_back_restrictions(unit: UnitView) -> list[tuple[str, str]]:
    """What Falling Back forbids by itself, for the board: no assault, and its move each turn."""
    return [
        (
            Words("shoots as if it moved: no heavy weapons, rapid fire only within 12 inches; cannot assault"),
            cannot_assault.id,
        ),
        (
            Words("Falls Back {dice}D6 inches each turn until it Regroups", dice=unit.profile.get("fall_back_dice", 2)),
            fall_back_move.id,  # declared below: read when the board asks
        ),
    ]


# -- regrouping ---------------------------------------------------------------------------------
@clause(
    "wh40k3.regroup.when",
    decision="decline_regroup",
    fact=("enemy_within_6_inches", "out_of_coherency", CONDITIONS_MET),
)
def regroup_tests_due(battle: BattleView, unit: UnitView, caused_by: tuple[int, ...]) -> list[Outcome]:
    """At the start of its next Movement phase a Falling Back unit may try to Regroup with an Ld
    test, only if (1) at least 50% of its starting strength, (2) no enemy within 6 inches,
    (3) in coherency. The engine counts the models; the table reports (2) and (3)."""
    return offer_regroup(battle, unit, regroup_tests_due.id, caused_by)


def movement_phase_starts(battle: BattleView, started: PhaseStarted) -> Outcomes:
    """At the start of its side's Movement phase, unit by unit: a Falling Back unit may try to
    Regroup (`regroup_tests_due`), a last man standing tests (`last_man_standing`)."""
    decided: list[Outcome] = []
    for unit in battle.living.values():
        if unit.side != battle.active_side:
            continue
        if unit.state == "falling_back":
            decided += regroup_tests_due(battle, unit, (battle.seq,))
        elif last_man_standing(unit):
            decided.append(morale_test(unit, last_man_standing.id, (battle.seq,)))
    return decided


RULES.react(regroup_tests_due.id, PhaseStarted, movement_phase_starts, phase="movement")


def against_regrouping(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """The table reports a condition of `regroup_tests_due` broken: the attempt is called off."""
    due = battle.due_for(event.unit)[0]
    return [withdraw(due, regroup_tests_due.id, (*due.caused_by, battle.seq), AGAINST_REGROUPING[event.fact])]


def called_off(battle: BattleView, withdrawn: TestNotTaken) -> bool:
    return withdrawn.withdrawn and withdrawn.rule == regroup_tests_due.id


def regroup_called_off(battle: BattleView, withdrawn: TestNotTaken) -> Outcomes:
    """A Regroup attempt called off (`against_regrouping`) is as if failed (`does_not_regroup`),
    read once it is off the list: a unit removed then does not have it withdrawn twice."""
    return does_not_regroup(battle, unit_of(battle, withdrawn), withdrawn.trigger, withdrawn.caused_by)


def conditions_met(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """The table reports the conditions met for a Regroup that passes without dice (They Shall Know
    No Fear at the end of its move, a unit that passes every Leadership test)."""
    due = battle.due_for(event.unit)[0]
    auto = knows_no_fear.id if due.rule == knows_no_fear.id else passes_automatically.id
    caused_by = (*due.caused_by, battle.seq)
    settled = DueSettled(unit=due.unit, rule=auto, caused_by=caused_by, due=due)
    return [settled, *automatically(replace(due, caused_by=caused_by), passed=True, rule=auto)]


for _fact in AGAINST_REGROUPING:
    RULES.react(regroup_tests_due.id, TableFactRecorded, against_regrouping, fact=_fact)
RULES.react(regroup_tests_due.id, TableFactRecorded, conditions_met, fact=CONDITIONS_MET)
RULES.react(regroup_tests_due.id, TestNotTaken, regroup_called_off, test="regroup", when=called_off)


def declines_to_regroup(battle: BattleView, chosen: Chosen) -> Outcomes:
    """decline_regroup: the unit does not try; as if it failed (`does_not_regroup`: Falls Back
    again at the start of the Movement phase, the rest of its move in cover, removal at the table
    edge)."""
    declined = not_taken(chosen.due, regroup_tests_due.id, chosen.caused_by, Words("the player declines to try"))
    return [declined, *does_not_regroup(battle, unit_of(battle, chosen), chosen.due.rule, chosen.caused_by)]


RULES.react(regroup_tests_due.id, Chosen, declines_to_regroup, decision="decline_regroup")


@RULES.clause(
    "wh40k3.assaulted",
    phrase={
        "regrouped": Words("Regroups as the enemy charges and fights normally"),
        "dispersed": Words("is charged while Falling Back and removed from the battlefield"),
    },
    reacts_to=ChargeDeclared,
)
def charged_while_falling_back(battle: BattleView, event: ChargeDeclared) -> Outcomes:
    """A Falling Back unit charged by the enemy at once takes an unmodified Ld test, even if it
    could not otherwise Regroup. Passed: it fights normally. Failed: it is destroyed."""
    return [
        outcome
        for target_id in event.in_range
        if battle.units[target_id].state == "falling_back"
        for outcome in offer_regroup(battle, battle.units[target_id], charged_while_falling_back.id, (battle.seq,))
    ]


@RULES.clause("wh40k3.trigger.tank_shock", fact={"tank_shocked": "enemy"}, reacts_to=TableFactRecorded)
def tank_shock(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """A unit reached by an enemy tank in that tank's Movement phase tests after the tank's move."""
    return [morale_test(unit_of(battle, event), tank_shock.id, (battle.seq,))]


@RULES.clause(
    "wh40k3.regroup.cover",
    fact="reached_cover",
    phrase=Words("Regroups in cover and stops"),
    reacts_to=TableFactRecorded,
)
def reaches_cover(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """The whole unit in cover inside its corridor: a second chance to Regroup, once per phase,
    under the conditions of `regroup_tests_due`. A unit that fell back out of a close combat
    through cover may not try to Regroup that turn (nor at the table edge). Passed: it stops.
    Failed: it completes its move."""
    unit, rule, caused_by = unit_of(battle, event), reaches_cover.id, (battle.seq,)
    if TRIED_IN_COVER in unit.phase_marks:
        trying = DueTest(unit=unit.id, test="regroup", rule=rule, caused_by=caused_by)
        return [not_taken(trying, rule, caused_by, Words("it already tried in cover this phase"))]
    marks = [TRIED_IN_COVER]
    if FELL_BACK_FROM_COMBAT in unit.phase_marks:
        marks.insert(0, THROUGH_COVER_FROM_COMBAT)
    marked = [Marked(unit=unit.id, rule=rule, caused_by=caused_by, mark=mark) for mark in marks]
    # The chance reads the marks as they stand once these are made.
    return [*marked, *offer_regroup(battle, unit, rule, caused_by, marks=unit.phase_marks | set(marks))]


@RULES.clause(
    "wh40k3.regroup.table_edge",
    fact="reached_table_edge",
    phrase={
        "regrouped": Words("Regroups at the table edge: its last chance"),
        "dispersed": Words("fails its last chance and is removed from the battlefield by its table edge"),
    },
    reacts_to=TableFactRecorded,
)
def reaches_table_edge(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """At the table edge a last chance to Regroup, under the conditions of `regroup_tests_due`;
    failed or not allowed: removed from the battlefield."""
    return offer_regroup(battle, unit_of(battle, event), reaches_table_edge.id, (battle.seq,))


@RULES.clause(
    "wh40k3.sweeping_advance",
    fact="caught_by_sweeping_advance",
    phrase={
        "regrouped": Words("Regroups as the Sweeping Advance reaches it"),
        "dispersed": Words("is caught by the Sweeping Advance and removed from the battlefield"),
    },
    reacts_to=TableFactRecorded,
)
def caught_by_sweeping_advance(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """Contacted by a Sweeping Advance while Falling Back: pass a Regroup test or be destroyed
    (taken like `charged_while_falling_back`: unmodified, even if it could not otherwise Regroup)."""
    return offer_regroup(battle, unit_of(battle, event), caught_by_sweeping_advance.id, (battle.seq,))


def offer_regroup(
    battle: BattleView,
    unit: UnitView,
    trigger: str,
    caused_by: tuple[int, ...],
    *,
    marks: Set[str] | None = None,
) -> list[Outcome]:
    """A chance to Regroup (`REGROUP_CHANCES`). The engine checks the strength condition; the table
    may report an enemy within 6 inches or broken coherency against it before the dice. `marks`:
    the unit's phase marks as the chance reads them (as they stand, by default)."""
    chance = REGROUP_CHANCES[trigger]
    if not chance.conditional:
        return [call(unit.id, "regroup", trigger, caused_by)]
    if THROUGH_COVER_FROM_COMBAT in (unit.phase_marks if marks is None else marks):
        detail = Words("it fell back out of a close combat through cover this turn")
        return _may_not_regroup(battle, unit, trigger, caused_by, reaches_cover.id, detail)
    threshold = int(battle.ruleset.param(battle, "regroup_threshold_percent"))
    if unit.models * 100 < threshold * unit.starting_models and not knows_no_fear(unit):
        detail = counted(
            "{n} of {starting} models: under {threshold}% of its starting strength",
            "{n} of {starting} models: under {threshold}% of its starting strength",
            n=unit.models,
            starting=unit.starting_models,
            threshold=threshold,
        )
        return _may_not_regroup(battle, unit, trigger, caused_by, regroup_tests_due.id, detail)
    automatic = trigger == knows_no_fear.id or passes_automatically(unit, "regroup")
    return [
        call(
            unit.id,
            "regroup",
            trigger,
            caused_by,
            dice=0 if automatic else 2,
            decisions=("decline_regroup",) if chance.optional else (),
            facts=(*([CONDITIONS_MET] if automatic else []), *AGAINST_REGROUPING),
        )
    ]


def _may_not_regroup(
    battle: BattleView, unit: UnitView, trigger: str, caused_by: tuple[int, ...], rule: str, detail: str
) -> list[Outcome]:
    trying = DueTest(unit=unit.id, test="regroup", rule=trigger, caused_by=caused_by)
    return [not_taken(trying, rule, caused_by, detail), *does_not_regroup(battle, unit, trigger, caused_by)]


@RULES.clause(
    "wh40k3.regroup.pass",
    phrase={"regrouped": Words("Regroups"), "steady": Words("is steady again")},
    reacts_to=Settled,
    test="regroup",
    when=passed,
)
def regroups(battle: BattleView, settled: Settled) -> Outcomes:
    """No other move that phase but up to 3 inches to restore its formation; it fights normally
    that turn (shoots counting as having moved, may assault) and is steady at the end of it."""
    unit, caused_by = unit_of(battle, settled), settled.caused_by
    chance = REGROUP_CHANCES[settled.due.rule]
    decided: list[Outcome] = [
        battle.ruleset.graph.move(unit, chance.regroups, caused_by),
        steady_again(unit, end_of_this_turn(battle, unit), regroups.id, caused_by),
    ]
    if chance.conditional and battle.phase_open:
        decided.append(restrict(battle, unit, "regrouped_this_phase", regroups.id, battle.point, caused_by))
    return decided


@RULES.restricts("regrouped")
def regrouped_restrictions(unit: UnitView) -> list[tuple[str, str]]:
    """What having Regrouped means for the rest of the turn, for the board."""
    return [(Words("fights normally this turn; shoots as having moved"), regroups.id)]


@clause("wh40k3.regroup.fail")
def does_not_regroup(battle: BattleView, unit: UnitView, trigger: str, caused_by: tuple[int, ...]) -> list[Outcome]:
    """Failed or not allowed: at the start of a Movement phase it Falls Back another 2D6; in cover
    it completes its move; at the table edge it is removed."""
    otherwise = REGROUP_CHANCES[trigger].otherwise
    if otherwise is None:
        return []
    if otherwise == "fail_regroup":
        return falls_back_by(battle, unit, otherwise, caused_by)
    return remove(battle, unit, otherwise, caused_by)


def fails_to_regroup(battle: BattleView, settled: Settled) -> Outcomes:
    return does_not_regroup(battle, unit_of(battle, settled), settled.due.rule, settled.caused_by)


RULES.react(does_not_regroup.id, Settled, fails_to_regroup, test="regroup", when=failed)


# -- falling back: the move, the crossfire ------------------------------------------------------
def falls_back(battle: BattleView, settled: Settled) -> Outcomes:
    """A failed Morale test makes the unit Fall Back at once (`leadership_test`); out of a close
    combat, it remembers so for the rest of the phase (`reaches_cover`, `caught_by_sweeping_advance`)."""
    unit, caused_by = unit_of(battle, settled), settled.caused_by
    decided: list[Outcome] = []
    if settled.due.rule == outnumbered.id:
        decided.append(Marked(unit=unit.id, rule=leadership_test.id, caused_by=caused_by, mark=FELL_BACK_FROM_COMBAT))
    return [*decided, *falls_back_by(battle, unit, "fail_morale", caused_by)]


RULES.react(leadership_test.id, Settled, falls_back, test="morale", when=failed)


def falls_back_by(battle: BattleView, unit: UnitView, trigger: str, caused_by: tuple[int, ...]) -> list[Outcome]:
    """`trigger` leaves the unit Falling Back (a failed Morale or Regroup test, a Regroup declined)
    and it makes its Fall Back move at once: its dice as its profile says (`fall_back_move`)."""
    dice = int(unit.profile.get("fall_back_dice") or 2)
    return [
        battle.ruleset.graph.move(unit, trigger, caused_by),
        call(unit.id, "fall_back", fall_back_move.id, caused_by, dice=dice),
    ]


@RULES.clause(
    "wh40k3.fall_back.distance",
    fact="through_difficult_terrain",  # stated before the Fall Back roll
    reacts_to=Rolled,
    test="fall_back",
)
def fall_back_move(battle: BattleView, rolled: Rolled) -> Outcomes:
    """2D6 inches each turn until it Regroups (fast units as their profile says), halved when
    moving into, out of or through difficult terrain."""
    unit, due, dice = unit_of(battle, rolled), rolled.due, rolled.dice
    caused_by = (*due.caused_by, *rolled.caused_by)
    inches: int | float = sum(dice)
    halved = bool(due.statement("through_difficult_terrain"))
    if halved:
        inches = _inches(inches / 2)
    corridor = due.statement("enemy_in_corridor")
    if isinstance(corridor, int | float) and inches >= corridor:
        return crossfire(battle, unit, due, dice, inches, corridor, caused_by)
    towards = fall_back_direction(str(battle.ruleset.param(battle, "fall_back_towards")))
    detail = fall_back_detail(towards, halved, corridor)
    decided: list[Outcome] = [
        Marked(unit=unit.id, rule=fall_back_move.id, caused_by=caused_by, mark=FELL_BACK),
        Moved(unit=unit.id, rule=due.rule, caused_by=caused_by, inches=inches, dice=dice, detail=detail),
    ]
    if knows_no_fear(unit):
        decided += offer_regroup(battle, unit, knows_no_fear.id, caused_by)
    return decided


def fall_back_detail(towards: Words, halved: bool, corridor: FactValue | None) -> Words:
    """Where the Fall Back move goes, and what changed its distance: halved by difficult terrain,
    short of the enemy stated in its corridor (a distance the move did not reach)."""
    if corridor is not None and halved:
        return Words(
            '{towards}; halved: difficult terrain; short of the enemy {corridor:g}" away in its corridor',
            towards=towards,
            corridor=corridor,
        )
    if corridor is not None:
        return Words(
            '{towards}; short of the enemy {corridor:g}" away in its corridor', towards=towards, corridor=corridor
        )
    if halved:
        return Words("{towards}; halved: difficult terrain", towards=towards)
    return towards


def _inches(value: float) -> int | float:
    return int(value) if value == int(value) else value


def crossfire_odds(battle: BattleView, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool] | None:
    """A Fall Back roll with an enemy stated in its corridor is caught in the crossfire or not, as
    `fall_back_move` decides; a plain Fall Back move neither passes nor fails: no odds."""
    corridor = due.statement("enemy_in_corridor")
    if not due.dice or not isinstance(corridor, int | float):
        return None
    halved = bool(due.statement("through_difficult_terrain"))
    caught = (sum(dice) / 2 if halved else sum(dice)) >= corridor
    return (Words("caught in the crossfire"), False) if caught else (Words("falls back"), True)


RULES.reads("fall_back", result=crossfire_odds)


@clause(
    "wh40k3.crossfire",
    fact={"enemy_in_corridor": "number"},  # value: inches to the nearest such enemy model
    phrase=Words("is caught in the crossfire and removed from the battlefield"),
)
def crossfire(
    battle: BattleView,
    unit: UnitView,
    due: DueTest,
    dice: tuple[int, ...],
    inches: float,
    corridor: float,
    caused_by: tuple[int, ...],
) -> list[Outcome]:
    """An enemy model not in close combat inside the Fall Back corridor: if the Fall Back roll is
    equal to or greater than the distance to it, the unit is destroyed."""
    result = TestResolved(
        unit=unit.id,
        rule=crossfire.id,
        caused_by=caused_by,
        test=due.test,
        trigger=due.rule,
        passed=False,
        dice=dice,
        total=sum(dice),
        detail=Words(
            '{inches:g}" reaches the enemy {corridor:g}" away in its corridor', inches=inches, corridor=corridor
        ),
    )
    return [result, *remove(battle, unit, "be_caught_in_crossfire", caused_by)]


def states_for_the_roll(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """What the table states about the Fall Back roll to come (difficult terrain on the way, the
    enemy in the corridor) is kept with the roll, for its dice to read."""
    return [restate(battle.due_for(event.unit)[0], event.fact, event.value, (battle.seq,))]


RULES.react(fall_back_move.id, TableFactRecorded, states_for_the_roll, fact="through_difficult_terrain")
RULES.react(crossfire.id, TableFactRecorded, states_for_the_roll, fact="enemy_in_corridor")


# -- pinning ------------------------------------------------------------------------------------
def barrage_pinning_test(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """Hit by a barrage: a Pinning test (`passes_automatically`)."""
    return [call(event.unit, "pinning", passes_automatically.id, (battle.seq,))]


RULES.react(passes_automatically.id, TableFactRecorded, barrage_pinning_test, fact="hit_by_barrage")


def pinned(battle: BattleView, settled: Settled) -> Outcomes:
    """A failed barrage Pinning test (`passes_automatically`): pinned until the end of its next turn."""
    unit = unit_of(battle, settled)
    return [until_end_of_next_turn(battle, unit, "pinned", passes_automatically.id, settled.caused_by)]


RULES.react(passes_automatically.id, Settled, pinned, test="pinning", when=failed)


# Each way a Falling Back unit gets to Regroup, by the clause that gives it the chance.
REGROUP_CHANCES: Mapping[str, Chance] = {
    regroup_tests_due.id: Chance("regroup", "fail_regroup", True, True),
    reaches_cover.id: Chance("regroup_in_cover", None, True, True, Words("it completes its Fall Back move")),
    reaches_table_edge.id: Chance("regroup_at_table_edge", "leave_by_table_edge", True, True),
    knows_no_fear.id: Chance("regroup_knowing_no_fear", None, True, False, Words("it keeps Falling Back")),
    charged_while_falling_back.id: Chance("regroup_when_charged", "be_destroyed_when_charged", False, False),
    caught_by_sweeping_advance.id: Chance("regroup_when_swept", "be_swept", False, False),
}


# -- tests a unit does not take, or that the rules settle at once --------------------------------
# A test called for is answered by the first row that holds for the unit, in this order; a test no
# row settles falls due (`engine.due`). A Regroup the table settles (no dice) waits for its facts.
def holds(predicate: Callable[[UnitView], bool]) -> Callable[[BattleView, TestCalled], bool]:
    return lambda battle, call: predicate(battle.units[call.unit])


def untaken(rule: str, detail: str = "") -> Callable[[BattleView, TestCalled], Outcomes]:
    return lambda battle, call: [not_taken(call, rule, call.caused_by, detail)]


def settles_itself(battle: BattleView, call: TestCalled) -> bool:
    return bool(call.dice) and passes_automatically(battle.units[call.unit], call.test)


def passes_at_once(battle: BattleView, call: TestCalled) -> Outcomes:
    return automatically(due_of(call), passed=True, rule=passes_automatically.id)


RULES.react(
    takes_morale_tests.id,
    TestCalled,
    untaken(takes_morale_tests.id, Words("vehicles never test")),
    when=holds(lambda unit: not takes_morale_tests(unit)),
)
RULES.react(immune.id, TestCalled, untaken(immune.id), test="morale", when=holds(immune))
RULES.react(
    leadership_test.id,
    TestCalled,
    untaken(leadership_test.id, Words("it is already Falling Back")),
    test="morale",
    when=holds(lambda unit: unit.state == "falling_back"),
)
RULES.react(passes_automatically.id, TestCalled, passes_at_once, test=LEADERSHIP_TESTS, when=settles_itself)


# -- what the rules refuse -----------------------------------------------------------------------
@RULES.check(UnitJoined)
def unit_needs_its_leadership(battle: BattleView, event: UnitJoined) -> None:
    if event.ld is None and TAKES_MORALE_TESTS[event.unit_type]:
        raise Refusal(Words("a 40K unit that is not a vehicle needs its Leadership (ld)"), field="ld")


@RULES.check(CombatResolved)
def combat_allowed(battle: BattleView, event: CombatResolved) -> None:
    check_in_assault_phase(battle)
    if any(side.bonus for side in event.sides):
        raise Refusal(Words("a 3rd edition combat is lost by losing more men: no bonus counts"), rule=outnumbered.id)
    for side in event.sides:
        for unit_id in side.units:
            if cannot_assault(battle.units[unit_id]):
                raise Refusal(
                    Words("{unit} is Falling Back and cannot fight in a close combat", unit=unit_id),
                    rule=cannot_assault.id,
                )


@RULES.check(ChargeDeclared)
def charge_allowed(battle: BattleView, event: ChargeDeclared) -> None:
    charger = battle.units[event.charger]
    check_in_assault_phase(battle, charger)
    if cannot_assault(charger):
        raise Refusal(Words("{unit} is Falling Back and cannot assault", unit=charger.id), rule=cannot_assault.id)
    if charger.restricted("pinned"):
        raise Refusal(Words("{unit} is pinned and cannot assault", unit=charger.id), rule=passes_automatically.id)


@RULES.check(TableFactRecorded, fact="tank_shocked")
def by_a_tank(battle: BattleView, event: TableFactRecorded) -> None:
    _check_tank_shock(battle, battle.units[event.unit], event.value)


@RULES.check(TableFactRecorded, fact="enemy_in_corridor")
def at_a_distance(battle: BattleView, event: TableFactRecorded) -> None:
    value = event.value
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise Refusal(Words("give the distance to the enemy model in inches, e.g. 4.5"), field="value")


# The facts recorded when they happen, with value true (all but a tank's id and a distance).
AS_THEY_HAPPEN = (
    "hit_by_barrage",
    *AGAINST_REGROUPING,
    CONDITIONS_MET,
    "reached_cover",
    "reached_table_edge",
    "caught_by_sweeping_advance",
    "through_difficult_terrain",
)


@RULES.check(TableFactRecorded, fact=AS_THEY_HAPPEN)
def stated_as_it_happens(battle: BattleView, event: TableFactRecorded) -> None:
    if event.value is not True:
        raise Refusal(Words("{fact} is recorded when it happens, with value true", fact=event.fact), field="value")


@RULES.check(TableFactRecorded, fact=("enemy_in_corridor", "through_difficult_terrain"))
def before_the_fall_back_dice(battle: BattleView, event: TableFactRecorded) -> None:
    unit, fact, cited = battle.units[event.unit], event.fact, battle.ruleset.facts[event.fact]
    first = oldest_due(battle, unit.id)
    if first is None or first.test != "fall_back":
        raise Refusal(
            Words("state {fact} when {unit}'s Fall Back roll is due, before its dice", fact=fact, unit=unit.id),
            rule=cited,
        )
    if first.statement(fact) is not None:
        raise Refusal(Words("{fact} is already stated for this roll (retract it to correct it)", fact=fact), rule=cited)


@RULES.check(TableFactRecorded, fact=(*AGAINST_REGROUPING, CONDITIONS_MET))
def with_a_regroup_waiting(battle: BattleView, event: TableFactRecorded) -> None:
    unit, fact = battle.units[event.unit], event.fact
    first = oldest_due(battle, unit.id)
    if first is None or fact not in first.facts:
        raise Refusal(
            Words("{unit} has no Regroup attempt waiting for {fact}", unit=unit.id, fact=fact),
            rule=battle.ruleset.facts[fact],
        )


@RULES.check(TableFactRecorded, fact="hit_by_barrage")
def in_the_enemy_shooting_phase(battle: BattleView, event: TableFactRecorded) -> None:
    unit = battle.units[event.unit]
    if not (battle.phase_open and battle.phase == "shooting" and unit.side != battle.active_side):
        raise Refusal(Words("a barrage hits in the enemy's Shooting phase"), rule=battle.ruleset.facts[event.fact])


@RULES.check(TableFactRecorded, fact=("reached_cover", "reached_table_edge", "caught_by_sweeping_advance"))
def during_the_fall_back_move(battle: BattleView, event: TableFactRecorded) -> None:
    _check_during_fall_back_move(battle, battle.units[event.unit], event.fact, battle.ruleset.facts[event.fact])


def _check_tank_shock(battle: BattleView, unit: UnitView, value: FactValue) -> None:
    tank = battle.units.get(value) if isinstance(value, str) else None
    if tank is None or not tank.alive or tank.unit_type != "tank":
        raise Refusal(
            Words("tank_shocked takes the id of the tank that reached the unit, not {value!r}", value=value),
            field="value",
        )
    if not (battle.phase_open and battle.phase == "movement" and tank.side == battle.active_side):
        raise Refusal(Words("{tank} can tank shock only in its own Movement phase", tank=tank.id), rule=tank_shock.id)
    if tank.side == unit.side:
        raise Refusal(Words("{tank} is on {unit}'s own side", tank=tank.id, unit=unit.id), rule=tank_shock.id)


def _check_during_fall_back_move(battle: BattleView, unit: UnitView, fact: str, cited: str) -> None:
    if unit.state != "falling_back":
        state = battle.ruleset.state_name(unit.state)  # a living unit's: its word is its value (`STATE_NAMES`)
        raise Refusal(Words("{unit} is not Falling Back (it is {state})", unit=unit.id, state=state), rule=cited)
    waiting = battle.due_for(unit.id)
    if waiting:
        first = waiting[0]
        raise Refusal(
            Words(
                "{unit} must first settle its {test} ({rule})",
                unit=unit.id,
                test=battle.ruleset.test_said(first.test),
                rule=first.rule,
            ),
            rule=cited,
        )
    if FELL_BACK not in unit.phase_marks:
        raise Refusal(
            Words("{fact} happens during a Fall Back move, and {unit} made none this phase", fact=fact, unit=unit.id),
            rule=cited,
        )
    if fact == "caught_by_sweeping_advance" and FELL_BACK_FROM_COMBAT not in unit.phase_marks:
        raise Refusal(Words("{unit} did not fall back out of a close combat this phase", unit=unit.id), rule=cited)


class Wh40k3(FortyK):
    id = "wh40k3"
    version = "1"
    listing_order = 20  # where `morale rulesets` has always listed it
    game_systems = r"(40,?000|40k).*\b3(rd)?\b|\b3(rd)?\b.*(40,?000|40k)"  # as BSData names it
    title = Words("Warhammer 40,000 3rd edition")
    phases = PHASES
    unit_types = TAKES_MORALE_TESTS
    unit_type_names = TYPE_NAMES
    parameters = PARAMETERS
    restrictions = RESTRICTIONS
    profile_type = Wh40k3Profile
    tests = TESTS
    casualty_causes = CAUSES
    rulebook = RULES
    parameter_choices = CHOICES

    # The rows that move a unit, each citing the clause above that moves it.
    graph = state_graph(
        to_falling_back("fail_morale", leadership_test.id),
        falling_back_again("fail_regroup", does_not_regroup.id),
        to_regrouped("regroup", regroups.id),
        to_regrouped("regroup_in_cover", reaches_cover.id),
        to_regrouped("regroup_at_table_edge", reaches_table_edge.id),
        to_regrouped("regroup_knowing_no_fear", knows_no_fear.id),
        to_regrouped("regroup_when_charged", charged_while_falling_back.id),
        to_regrouped("regroup_when_swept", caught_by_sweeping_advance.id),
        back_to_steady(regroups.id),
        to_dispersed("leave_by_table_edge", reaches_table_edge.id),
        to_dispersed("be_caught_in_crossfire", crossfire.id),
        to_dispersed("be_destroyed_when_charged", charged_while_falling_back.id),
        to_dispersed("be_swept", caught_by_sweeping_advance.id),
    )


WH40K3 = Wh40k3()
