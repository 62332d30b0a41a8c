"""General de Brigade (Napoleonic): the Morale Check Test, its results, rally and brigade tests
(each clause in its own words in `clauses.toml`).

The clauses live beside this module, one function per rule ID: `modifiers` (the modifiers),
`triggers` (when a unit tests in the Morale phase, and the notes that excuse it), `results` (the
test procedure, each result and the state graph), `brigade` (the Brigade Morale Test). Each clause
that acts is a reaction (`rulebook.RULES`, see core/reactions.py), filed as its module is imported;
this module files the rest (the clock, casualties, charges, the facts the players state, a
wavering unit's reform, the brigade tests owed) and what the rules refuse. The class answers the
views' questions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from morale.events.types import (
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    DiceRolled,
    PhaseEnded,
    PhaseStarted,
    PlayerDecided,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

from ...engine import call, falls_due, not_taken, resolved
from ...outcomes import Chosen, DueAmended, Outcome, Remembered, Rolled, Settled, TestCalled, TestResolved
from ...reactions import Outcomes
from ...rules import Refusal, clause
from ...state import DueTest, Point, Unit
from ...view import BattleView, UnitView
from ...words import Words, listed
from ..base import Ruleset, TableSpec
from .book import BattleMemory, Charge, UnitMemory, battle_memory, remember, remember_battle, unit_memory
from .brigade import brigade_modifiers, lead_unit
from .modifiers import QUALITY_WORDS, charged_modifiers, charging_modifiers, check_profile, cover, lost_during_charge
from .neighbours import FLEEING
from .profile import (
    ARTILLERY,
    ATTACHED,
    BUILT_UP,
    CAVALRY,
    CHANGEABLE,
    FORMATION_WORDS,
    IN_LOCATION,
    LOCATIONS,
    PHASES,
    TYPE_NAMES,
    UNIT_TYPES,
    GdbProfile,
    formation,
)
from .results import (
    GRAPH,
    MELEE_RESULTS,
    RESULT_COLUMNS,
    Context,
    becomes_unformed,
    brigade_must_test,
    carries_on,
    caught_by_enemy,
    formed_up,
    forms_up,
    halts,
    in_melee_result,
    loses_melee,
    melee_result_stands,
    rally_retreating,
    rally_routing,
    reformed,
    reforms,
    retreats,
    routs,
    set_profile,
    take_test,
    wavers,
)
from .rulebook import RULES
from .tables import BrigadeTable, ResultsTable, read_column
from .triggers import (
    friend_routing,
    lost_three_figures,
    may_not_rally,
    morale_tests_due,
    rally_call,
)

# The facts a clause reads (each declared with it): within_15cm and beyond_15cm name the other unit
# (a dispersed one: its dispersal point); enemy_in_charge_range, in_melee, enemy_in_built_up_area
# are true or false; melee_result is the result of its melee, from the rulebook's melee table;
# contact_with_enemy: a routing unit touches an enemy; interpenetrated names the retreating friend
# that passed through.
# Facts that feed triggers or modifiers: they stand until changed, and cannot change while the
# Morale phase's tests are being rolled (`morale_tests_due`).
STANDING_FACTS = ("within_15cm", "beyond_15cm", "enemy_in_charge_range", "in_melee", "enemy_in_built_up_area")
BOOL_FACTS = ("enemy_in_charge_range", "in_melee", "enemy_in_built_up_area", "contact_with_enemy")

RESTRICTIONS = {
    "no_melee": Words("acts as the player wishes but may not start a melee"),
    "halted": Words("stays where it is, formed; may shoot but not manoeuvre; cavalry fights without its charge bonus"),
    "may_not_reform": Words("may not reform before the next turn's Movement phase"),
    "reforming": Words(
        "reforms this turn: neither moves nor shoots nor changes formation; formed at the end of the Movement phase"
    ),
    "forming_up": Words("forms up this turn: neither moves nor shoots; formed at the end of the Movement phase"),
}

# How the narrative words a result read in the table and a column (not clauses: the clauses declare
# their phrases with them).
RESULT_WORDS = {
    "result:charge": Words("Charge"),
    "result:carry_on": Words("Carry out orders"),
    "result:halt": Words("Halt"),
    "result:waver": Words("Waver"),
    "result:retreat": Words("Retreat"),
    "result:rout": Words("Rout"),
    "result:rally": Words("Rally"),
    "result:fail": Words("fails to rally"),
    "result:holds": Words("the brigade holds"),
    "column:brigade": Words("Brigade Morale Test"),
    # The results table's columns, in English as the story has always named them ("morale column").
    "column:charging": Words("charging column"),
    "column:charged": Words("charged column"),
    "column:morale": Words("morale column"),
    "column:rally": Words("rally column"),
}

# The book's result states (Отступает, Бежит, Собирается, Колеблется, Рассеяно) for the shared ones.
STATE_NAMES = {
    "steady": Words("steady"),
    "falling_back": Words("retreating"),
    "broken": Words("routing"),
    "regrouped": Words("rallied, unformed"),
    "wavering": Words("wavering"),
    "dispersed": Words("dispersed"),
    "destroyed": Words("destroyed"),
}
# The facts the table states and the decisions a player takes, in the book's words where the story
# names them: English as the story has always said them.
FACT_NAMES = {
    "enemy_in_built_up_area": Words("enemy in built up area"),
    "contact_with_enemy": Words("contact with enemy"),
    "in_melee": Words("in melee"),
    "melee_result": Words("melee result"),
    "within_15cm": Words("within 15cm"),
    "beyond_15cm": Words("beyond 15cm"),
    "enemy_in_charge_range": Words("enemy in charge range"),
    "interpenetrated": Words("interpenetrated"),
}
DECISION_NAMES = {"countercharge": Words("countercharge"), "reform": Words("reform")}
# The profile's fields and values, a melee's result as the table reports it, and the marker the
# rules place, where the story names them: English as the story has always said them.
FIELD_NAMES = {
    "quality": Words("quality"),
    "full_strength": Words("full strength"),
    "brigade": Words("brigade"),
    "formation": Words("formation"),
    "formed": Words("formed"),
    "location": Words("location"),
    "commander": Words("commander"),
}
VALUE_NAMES = {
    # A quality's "line" is not the formation's (линия): the catalogue has one "line", so it reads
    # as its machine value until it has words of its own.
    "quality": {q: name for q, name in QUALITY_WORDS.items() if q != "line"},
    "formation": FORMATION_WORDS,
    "location": {"open": Words("open"), **LOCATIONS},
    "commander": {
        "none": Words("none"),
        "brigade": Words("brigade"),
        "commander_in_chief": Words("commander in chief"),
    },
    "melee_result": {
        "carry_on": Words("carry on"),
        "halt": Words("halt"),
        "waver": Words("waver"),
        "retreat": Words("retreat"),
        "rout": Words("rout"),
    },
}
MARKER_NAMES = {"dispersal_point": Words("dispersal point")}
# A state as a refusal names it: its machine value in English (as it always has), the book's word
# in Russian.
STATE_VALUES = {
    "steady": Words("steady"),
    "falling_back": Words("falling_back"),
    "broken": Words("broken"),
    "regrouped": Words("regrouped"),
    "wavering": Words("wavering"),
    "dispersed": Words("dispersed"),
    "destroyed": Words("destroyed"),
}

UNIT_TESTS = ("charging", "charged", "morale", "rally")
TABLES = {
    "results": TableSpec("gdb_results.toml", ResultsTable, read_column.id),
    "brigade": TableSpec("gdb_brigade.toml", BrigadeTable, brigade_modifiers.id),
}


# Every test a unit may have due, in the rulebook's words.
# What removes figures, in the book's words: enemy fire (in the Shooting phase, or closing fire in
# the Charge phase, which gdb.note.charge_fire counts apart) and melee.
CAUSES = {
    "musketry": Words("musketry"),
    "artillery_fire": Words("artillery fire"),
    "skirmishers": Words("skirmishers' fire"),
    "closing_fire": Words("closing fire"),
    "melee": Words("melee"),
}

TESTS = {
    "charging": Words("charging test"),
    "charged": Words("charged test"),
    "morale": Words("Morale Check Test"),
    "rally": Words("rally test"),
    "brigade": Words("Brigade Morale Test"),
}

# The end of each phase of a game turn, as a restriction or a scheduled change lasts until it.
PHASE_ENDS: dict[str, Callable[[int], str]] = {
    "movement": lambda turn: Words("end of the movement phase of turn {turn}", turn=turn),
    "charge": lambda turn: Words("end of the charge phase of turn {turn}", turn=turn),
    "shooting": lambda turn: Words("end of the shooting phase of turn {turn}", turn=turn),
    "melee": lambda turn: Words("end of the melee phase of turn {turn}", turn=turn),
    "morale": lambda turn: Words("end of the morale phase of turn {turn}", turn=turn),
}


NOTE_TYPES: dict[str, object] = {"gdb": UnitMemory}  # what a unit's notes hold: its book (`first_notes`)


# -- the clock ----------------------------------------------------------------------------------------
def turn_losses_reset(battle: BattleView, started: PhaseStarted) -> Outcomes:
    """Losses count over a game turn: a new turn's Movement phase starts them afresh."""
    return [
        remember(unit, lost_three_figures.id, (battle.seq,), losses={}, loss_events=[], charge_losses=0)
        for unit in battle.units.values()
        if (memo := unit_memory(unit)).losses or memo.loss_events or memo.charge_losses
    ]


RULES.react(lost_three_figures.id, PhaseStarted, turn_losses_reset, phase="movement")


def forming_up(battle: BattleView, started: PhaseStarted) -> Outcomes:
    """A unit that rallied in an earlier turn forms up in this turn's Movement phase."""
    return [
        outcome
        for unit in battle.units.values()
        if unit.state == "regrouped" and unit_memory(unit).rallied_turn < battle.turn
        for outcome in forms_up(battle, unit, battle.seq)
    ]


RULES.react(rally_retreating.id, PhaseStarted, forming_up, phase="movement")


def movement_phase_ends(battle: BattleView, ended: PhaseEnded) -> Outcomes:
    """At the end of the Movement phase a wavering unit that reformed in it is steady and formed
    again (`reforms`), and a rallied unit that formed up in it is steady (`rally_retreating`)."""
    decided: list[Outcome] = []
    for unit in battle.units.values():
        memo = unit_memory(unit)
        if unit.state == "wavering" and memo.reforming_turn == battle.turn:
            decided += reformed(battle, unit, battle.seq)
        elif unit.state == "regrouped" and memo.forming_up_turn == battle.turn:
            decided += formed_up(battle, unit, battle.seq)
    return decided


RULES.react(reforms.id, PhaseEnded, movement_phase_ends, phase="movement")


# -- casualties -----------------------------------------------------------------------------------
def figures_lost(battle: BattleView, event: CasualtiesSuffered) -> Outcomes:
    """Figures lost count for the turn, by phase (`lost_three_figures`, `tested_for_charge_fire`)."""
    unit = battle.units[event.unit]
    memo = unit_memory(unit)
    phase = battle.phase if battle.phase_open and battle.phase else "between_phases"
    losses = {**memo.losses, phase: memo.losses.get(phase, 0) + event.count}
    return [
        remember(unit, lost_three_figures.id, (battle.seq,), losses=losses, loss_events=[*memo.loss_events, battle.seq])
    ]


RULES.react(lost_three_figures.id, CasualtiesSuffered, figures_lost)


def charging_due(battle: BattleView, unit: UnitView) -> DueTest | None:
    return next((d for d in battle.due_for(unit.id) if d.test == "charging"), None)


def losing_figures_in_its_charge(battle: BattleView, event: CasualtiesSuffered) -> bool:
    """A charger whose charging test is still to roll (not a countercharger)."""
    unit = battle.units[event.unit]
    book_of_battle = battle_memory(battle)
    return (
        unit.id in book_of_battle.charges
        and charging_due(battle, unit) is not None
        and unit.id not in book_of_battle.countercharges
    )


def lost_in_the_charge(battle: BattleView, event: CasualtiesSuffered) -> Outcomes:
    unit = battle.units[event.unit]
    return [
        remember(
            unit, lost_during_charge.id, (battle.seq,), charge_losses=unit_memory(unit).charge_losses + event.count
        )
    ]


def charge_test_restated(battle: BattleView, event: CasualtiesSuffered) -> Outcomes:
    """Figures lost during the charge count against the charger's test (`lost_during_charge`),
    as they stand once counted."""
    unit = battle.units[event.unit]
    due = charging_due(battle, unit)
    assert due is not None  # `losing_figures_in_its_charge` holds
    modifiers = charging_modifiers(battle, unit, battle_memory(battle).charges[unit.id])
    restated = replace(due, modifiers=modifiers)
    return [DueAmended(unit=unit.id, rule=lost_during_charge.id, caused_by=(battle.seq,), before=due, after=restated)]


RULES.react(lost_during_charge.id, CasualtiesSuffered, lost_in_the_charge, when=losing_figures_in_its_charge)
RULES.react(lost_during_charge.id, CasualtiesSuffered, charge_test_restated, when=losing_figures_in_its_charge)


# -- charges ----------------------------------------------------------------------------------------
def charge_phase_starts(battle: BattleView, started: PhaseStarted) -> Outcomes:
    """A new Charge phase: its charges, and who tested for them, start afresh (the brigade tests
    still owed stay owed)."""
    fresh = BattleMemory(brigade_tests=list(battle_memory(battle).brigade_tests))
    return [Remembered(unit="", rule=charging_test.id, caused_by=(battle.seq,), note="", changes={"memory": fresh})]


def charge_losses_from_now(battle: BattleView, event: ChargeDeclared) -> Outcomes:
    """The figures a charger loses during its charge count from its declaration."""
    return [remember(battle.units[event.charger], lost_during_charge.id, (battle.seq,), charge_losses=0)]


RULES.react(lost_during_charge.id, ChargeDeclared, charge_losses_from_now)


@RULES.clause("gdb.trigger.charging", decision="countercharge", reacts_to=ChargeDeclared)
def charging_test(battle: BattleView, event: ChargeDeclared) -> Outcomes:
    """The unit charges (or countercharges: the `countercharge` decision on a charged test): it
    tests in the charging column."""
    charge = Charge(event.charger, tuple(event.targets), tuple(event.in_range), tuple(event.flank), battle.seq)
    charger = battle.units[event.charger]
    modifiers = charging_modifiers(battle, charger, charge)
    return [
        remember_battle(
            charging_test.id, (battle.seq,), charges={**battle_memory(battle).charges, charge.charger: charge}
        ),
        call(charger.id, "charging", charging_test.id, (battle.seq,), modifiers=modifiers, opponents=charge.targets),
    ]


RULES.react(charging_test.id, PhaseStarted, charge_phase_starts, phase="charge")


def countercharges(battle: BattleView, chosen: Chosen) -> Outcomes:
    """countercharge: a charged cavalry unit meets the charge: it tests in the charging column with
    the modifiers of a charged or countercharging unit."""
    unit = battle.units[chosen.unit]
    charger_id = chosen.due.opponents[0]
    charge = battle_memory(battle).charges[charger_id]
    modifiers = charged_modifiers(battle, unit, battle.units[charger_id], unit.id in charge.flank)
    return [
        remember_battle(
            charging_test.id,
            chosen.caused_by,
            countercharges={**battle_memory(battle).countercharges, unit.id: charger_id},
        ),
        call(unit.id, "charging", charging_test.id, chosen.caused_by, modifiers=modifiers, opponents=(charger_id,)),
    ]


RULES.react(charging_test.id, Chosen, countercharges, decision="countercharge")


def rolls_in_the_table(battle: BattleView, rolled: Rolled) -> Outcomes:
    """The dice of a unit's test, read in its column of the results table: its result, which the
    result's clause reacts to (`results.file_result`, the rally clauses)."""
    due, dice = rolled.due, rolled.dice
    unit = battle.units[due.unit]
    table: ResultsTable = battle.tables["results"]
    result, modified, decided_by = take_test(table, due.test, unit, dice, due.modifiers)
    caused_by = (*due.caused_by, *rolled.caused_by)
    tested_result = TestResolved(
        unit=unit.id,
        rule=decided_by,
        caused_by=caused_by,
        test=due.test,
        trigger=due.rule,
        passed=result in table.passing,
        dice=dice,
        total=modified,
        modifiers=due.modifiers,
        result=result,
        column=due.test,
    )
    return resolved(due, tested_result, caused_by)


RULES.react(take_test.id, Rolled, rolls_in_the_table, test=(*RESULT_COLUMNS, "rally"))


def charger_passed(battle: BattleView, settled: Settled) -> bool:
    """The charger itself (not a countercharger) read Charge."""
    charges_now = battle_memory(battle).charges
    return (
        settled.result.result == "charge"
        and settled.unit in charges_now
        and settled.unit not in battle_memory(battle).countercharges
    )


@RULES.clause("gdb.trigger.charged", reacts_to=Settled, test="charging", when=charger_passed)
def targets_test(battle: BattleView, settled: Settled) -> Outcomes:
    """A unit charged by an enemy that passed its charge test tests in the charged column (once a
    Charge phase). A retreating target loses the melee anyway; a routing one is caught. Each target
    is dealt with in turn, as the ones before it have left the table (`charged_test`)."""
    charge = battle_memory(battle).charges[settled.unit]
    return [
        call(
            target_id,
            "charged",
            targets_test.id,
            settled.caused_by,
            decisions=("countercharge",) if battle.units[target_id].unit_type == CAVALRY else (),
            opponents=(charge.charger,),
        )
        for target_id in charge.in_range
    ]


def target_state(*states: str) -> Callable[[BattleView, TestCalled], bool]:
    return lambda battle, called: battle.units[called.unit].state in states


def tested_already(battle: BattleView, called: TestCalled) -> bool:
    return called.unit in battle_memory(battle).charged_by


def caught_charged(battle: BattleView, called: TestCalled) -> Outcomes:
    unit = battle.units[called.unit]
    return caught_by_enemy(battle, unit, Context("charged", called.caused_by, called.caused_by[-1]))


def charged_test(battle: BattleView, called: TestCalled) -> Outcomes:
    """The target tests, its modifiers read as it stands once the targets before it are dealt with
    (a routing friend caught by the same charge is no longer fleeing near it)."""
    target = battle.units[called.unit]
    charger = battle.units[called.opponents[0]]
    charge = battle_memory(battle).charges[charger.id]
    charged_by = {**battle_memory(battle).charged_by, target.id: charger.id}
    modifiers = charged_modifiers(battle, target, charger, target.id in charge.flank)
    return [
        remember(target, targets_test.id, called.caused_by, charged_turn=battle.turn),
        remember_battle(targets_test.id, called.caused_by, charged_by=charged_by),
        *falls_due(battle, replace(called, modifiers=modifiers)),
    ]


# A charged test called for is answered by the first row that holds for the target, in this order.
RULES.react(
    targets_test.id, TestCalled, lambda battle, called: [], test="charged", when=target_state("dispersed", "destroyed")
)
RULES.react(
    loses_melee.id,
    TestCalled,
    lambda battle, called: [not_taken(called, loses_melee.id, called.caused_by)],
    test="charged",
    when=target_state("falling_back"),
)
RULES.react(caught_by_enemy.id, TestCalled, caught_charged, test="charged", when=target_state("broken"))
RULES.react(targets_test.id, TestCalled, lambda battle, called: [], test="charged", when=tested_already)
RULES.react(targets_test.id, TestCalled, charged_test, test="charged")


# -- facts from the table -------------------------------------------------------------------------
def stands_near(within: bool) -> Callable[[BattleView, TableFactRecorded], Outcomes]:
    def stated(battle: BattleView, event: TableFactRecorded) -> Outcomes:
        """Who is within 15 cm of whom stands in both units' books until stated otherwise."""
        unit, other = battle.units[event.unit], battle.units[str(event.value)]
        return [
            remember(
                a,
                friend_routing.id,
                (battle.seq,),
                near=unit_memory(a).near | {b.id} if within else unit_memory(a).near - {b.id},
            )
            for a, b in ((unit, other), (other, unit))
        ]

    return stated


RULES.react(friend_routing.id, TableFactRecorded, stands_near(True), fact="within_15cm")
RULES.react(friend_routing.id, TableFactRecorded, stands_near(False), fact="beyond_15cm")


def stands(fact: str, rule: str) -> None:
    """A true-or-false fact stands in the unit's book until stated otherwise."""
    RULES.react(
        rule,
        TableFactRecorded,
        lambda battle, event: [remember(battle.units[event.unit], rule, (battle.seq,), **{fact: bool(event.value)})],
        fact=fact,
    )


stands("enemy_in_charge_range", may_not_rally.id)
stands("in_melee", melee_result_stands.id)
stands("enemy_in_built_up_area", cover.id)


def caught_in_contact(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    return caught_by_enemy(battle, battle.units[event.unit], in_melee_result(battle, event))


RULES.react(caught_by_enemy.id, TableFactRecorded, caught_in_contact, fact="contact_with_enemy")


@RULES.clause("gdb.retreat.interpenetrate", fact={"interpenetrated": "friend"}, reacts_to=TableFactRecorded)
def interpenetrated(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """A friendly unit a retreating unit passes through in the first half of its first retreat
    move becomes unformed (squares and units in redoubts or buildings it goes round)."""
    return set_profile(battle.units[event.unit], interpenetrated.id, (battle.seq,), formed=False)


# -- decisions a player takes ---------------------------------------------------------------------
RULES.react(
    reforms.id,
    PlayerDecided,
    lambda battle, event: reforms(battle, battle.units[event.unit], battle.seq),
    decision="reform",
)


# -- the brigade tests owed -----------------------------------------------------------------------
def waiting(battle: BattleView) -> bool:
    """In the Morale phase the brigade tests wait for every unit's test, whose results feed them."""
    return battle.phase == "morale" and any(d.test in UNIT_TESTS for d in battle.due)


def owed(battle: BattleView, trigger: object) -> bool:
    return bool(battle_memory(battle).brigade_tests) and not waiting(battle)


def brigade_tests_due(battle: BattleView, trigger: object) -> Outcomes:
    """Brigade tests owed by dispersals (`brigade_must_test`) are called once the result that
    dispersed the units is carried out; in the Morale phase they wait for every unit's test
    (`morale_tests_due`)."""
    table: BrigadeTable = battle.tables["brigade"]
    called: list[Outcome] = [
        call(
            lead.id,
            "brigade",
            brigade_must_test.id,
            caused_by,
            modifiers=brigade_modifiers(battle, table, side, brigade),
        )
        for side, brigade, caused_by in battle_memory(battle).brigade_tests
        if (lead := lead_unit(battle, side, brigade)) is not None
    ]
    return [*called, remember_battle(brigade_must_test.id, (battle.seq,), brigade_tests=[])]


# Filed last: after every other reaction to a result or to the two facts that disperse a unit.
RULES.react(brigade_must_test.id, Settled, brigade_tests_due, when=owed)
RULES.react(brigade_must_test.id, TableFactRecorded, brigade_tests_due, fact="melee_result", when=owed)
RULES.react(brigade_must_test.id, TableFactRecorded, brigade_tests_due, fact="contact_with_enemy", when=owed)


# -- what the rules refuse ------------------------------------------------------------------------
@RULES.check(UnitJoined)
def has_no_leadership(battle: BattleView, event: UnitJoined) -> None:
    if event.ld is not None or event.initiative is not None:
        raise Refusal(
            Words("General de Brigade has no Leadership or Initiative: its tests read a results table"),
            field="ld" if event.ld is not None else "initiative",
        )
    check_profile(
        event.unit_type, event.models, battle.ruleset.read_profile(event.profile), frozenset(event.special_rules)
    )


@RULES.check(UnitChanged)
def unit_change_allowed(battle: BattleView, event: UnitChanged) -> None:
    unit = battle.units[event.unit]
    changes = event.changes
    check_profile(
        unit.unit_type, unit.models, battle.ruleset.read_profile({**unit.profile, **changes}), unit.special_rules
    )
    check_simultaneous(battle)
    new_formation = "formation" in changes and changes["formation"] != formation(unit)
    if unit.state == "wavering" and (new_formation or changes.get("formed") is True):
        raise Refusal(
            Words(
                "{unit} is wavering: it cannot move or change formation until it has reformed "
                "(player_decided reform, from the next turn's Movement phase)",
                unit=unit.id,
            ),
            rule=reforms.id,
        )
    if unit.restricted("reforming") and new_formation:
        raise Refusal(
            Words("{unit} reforms into the formation it had before and cannot change it this turn", unit=unit.id),
            rule=reforms.id,
        )
    if changes.get("formed") is True:
        if unit.state in FLEEING:
            if unit.state == "broken":
                said = Words("{unit} is routing and unformed until it rallies", unit=unit.id)
            else:
                said = Words("{unit} is retreating and unformed until it rallies", unit=unit.id)
            raise Refusal(said, rule=becomes_unformed.id)
        if unit.state == "regrouped":
            raise Refusal(
                Words("{unit} rallied unformed and forms up in the next Movement phase", unit=unit.id),
                rule=rally_retreating.id,
            )


def check_simultaneous(battle: BattleView, fact: str = "") -> None:
    """No change to what the Morale phase's tests read (a fact, or the unit's profile when `fact` is
    empty) while they are being rolled."""
    if battle.phase == "morale" and battle.phase_open and any(d.test in UNIT_TESTS for d in battle.due):
        if fact:
            said = Words(
                "the Morale phase's tests read the table as it stood when the phase began: change {fact} "
                "after they are rolled",
                fact=fact,
            )
        else:
            said = Words(
                "the Morale phase's tests read the table as it stood when the phase began: change the unit's "
                "profile after they are rolled"
            )
        raise Refusal(said, rule=morale_tests_due.id)


# Why a unit may not charge: its state, or what a result restricts it to this turn (in this order),
# each one sentence naming the unit, with the clause that says so.
Barred = tuple[Callable[[str], str], str]
CHARGE_BARRED_BY_STATE: dict[str, Barred] = {
    "wavering": (
        lambda unit: Words("{unit} is wavering and cannot move until it has reformed: it cannot charge", unit=unit),
        wavers.id,
    ),
    "falling_back": (lambda unit: Words("{unit} is retreating: it cannot charge", unit=unit), retreats.id),
    "broken": (lambda unit: Words("{unit} is routing: it cannot charge", unit=unit), routs.id),
    "regrouped": (
        lambda unit: Words("{unit} rallied unformed and must form up first: it cannot charge", unit=unit),
        rally_retreating.id,
    ),
}
CHARGE_BARRED_BY_RESTRICTION: dict[str, Barred] = {
    "halted": (
        lambda unit: Words(
            "{unit} stays where it is, formed; may shoot but not manoeuvre; cavalry fights without its charge "
            "bonus this turn: it cannot charge",
            unit=unit,
        ),
        halts.id,
    ),
    "no_melee": (
        lambda unit: Words(
            "{unit} acts as the player wishes but may not start a melee this turn: it cannot charge", unit=unit
        ),
        carries_on.id,
    ),
    "reforming": (
        lambda unit: Words(
            "{unit} reforms this turn: neither moves nor shoots nor changes formation; formed at the end of the "
            "Movement phase this turn: it cannot charge",
            unit=unit,
        ),
        reforms.id,
    ),
    "forming_up": (
        lambda unit: Words(
            "{unit} forms up this turn: neither moves nor shoots; formed at the end of the Movement phase this "
            "turn: it cannot charge",
            unit=unit,
        ),
        rally_retreating.id,
    ),
}


@RULES.check(ChargeDeclared)
def charge_allowed(battle: BattleView, event: ChargeDeclared) -> None:
    charger = battle.units[event.charger]
    if not (battle.phase_open and battle.phase == "charge"):
        raise Refusal(Words("charges are declared in the Charge phase"), rule=charging_test.id)
    if charger.unit_type in ARTILLERY:
        raise Refusal(Words("{unit} is artillery and does not charge", unit=charger.id), rule=charging_test.id)
    if charger.id in battle_memory(battle).charges:
        raise Refusal(Words("{unit} has already charged this phase", unit=charger.id), field="charger")
    barred = CHARGE_BARRED_BY_STATE.get(charger.state)
    if barred is not None:
        why, rule_id = barred
        raise Refusal(why(charger.id), rule=rule_id)
    for name, (why, rule_id) in CHARGE_BARRED_BY_RESTRICTION.items():
        if charger.restricted(name):
            raise Refusal(why(charger.id), rule=rule_id)


@RULES.check(CombatResolved)
def melees_are_read_unit_by_unit(battle: BattleView, event: CombatResolved) -> None:
    raise Refusal(
        Words(
            "General de Brigade melees are read from the rulebook's melee table: record each unit's melee_result fact"
        ),
        field="type",
    )


@RULES.check(TableFactRecorded, fact=BOOL_FACTS)
def true_or_false(battle: BattleView, event: TableFactRecorded) -> None:
    if not isinstance(event.value, bool):
        raise Refusal(Words("{fact} is true or false", fact=event.fact), field="value")


@RULES.check(TableFactRecorded, fact=STANDING_FACTS)
def not_while_the_morale_tests_read_the_table(battle: BattleView, event: TableFactRecorded) -> None:
    check_simultaneous(battle, event.fact)


@RULES.check(TableFactRecorded, fact=("within_15cm", "beyond_15cm", "interpenetrated"))
def names_another_unit(battle: BattleView, event: TableFactRecorded) -> None:
    other = battle.units.get(event.value) if isinstance(event.value, str) else None
    if other is None or other is battle.units[event.unit]:
        raise Refusal(
            Words("{fact} names another unit of this battle, not {value!r}", fact=event.fact, value=event.value),
            field="value",
        )


@RULES.check(TableFactRecorded, fact="enemy_in_built_up_area")
def in_a_built_up_area(battle: BattleView, event: TableFactRecorded) -> None:
    unit = battle.units[event.unit]
    if event.value and unit.profile["location"] not in BUILT_UP:
        raise Refusal(Words("{unit} is in the open: there is no built-up area to share", unit=unit.id), rule=cover.id)


@RULES.check(TableFactRecorded, fact="contact_with_enemy")
def a_routing_unit_reached(battle: BattleView, event: TableFactRecorded) -> None:
    unit = battle.units[event.unit]
    if unit.state != "broken" or event.value is not True:
        raise Refusal(
            Words(
                "only a routing unit is dispersed by contact; {unit} is {state}",
                unit=unit.id,
                state=STATE_VALUES.get(unit.state, unit.state),
            ),
            rule=caught_by_enemy.id,
        )


@RULES.check(TableFactRecorded, fact="melee_result")
def a_melee_result(battle: BattleView, event: TableFactRecorded) -> None:
    check_melee_result(battle, battle.units[event.unit], event.value)


@RULES.check(TableFactRecorded, fact="interpenetrated")
def through_a_fleeing_friend(battle: BattleView, event: TableFactRecorded) -> None:
    check_interpenetration(battle.units[event.unit], battle.units[str(event.value)])


def check_melee_result(battle: BattleView, unit: UnitView, value: Any) -> None:
    if value not in MELEE_RESULTS:
        raise Refusal(Words("melee_result is one of {results}", results=listed(MELEE_RESULTS)), field="value")
    if not (battle.phase_open and battle.phase == "melee"):
        raise Refusal(Words("melee results are recorded in the Melee phase"), rule=melee_result_stands.id)
    if unit.state == "falling_back" and value not in ("retreat", "rout"):
        raise Refusal(
            Words("{unit} is retreating and loses any melee automatically", unit=unit.id), rule=loses_melee.id
        )
    if unit.state == "broken":
        raise Refusal(
            Words("{unit} is routing and does not fight back: record contact_with_enemy", unit=unit.id),
            rule=caught_by_enemy.id,
        )


def check_interpenetration(unit: UnitView, retreating: UnitView) -> None:
    if retreating.side != unit.side or retreating.state not in FLEEING:
        raise Refusal(
            Words(
                "{retreating} is not a retreating or routing friend of {unit}", retreating=retreating.id, unit=unit.id
            ),
            rule=interpenetrated.id,
        )
    if formation(unit) == "square" or unit.profile["location"] in ("redoubt", "building", "castle", "church"):
        raise Refusal(
            Words(
                "a retreating unit goes round squares and units in redoubts or buildings, not through {unit}",
                unit=unit.id,
            ),
            rule=interpenetrated.id,
        )


@RULES.check(PlayerDecided)
def reform_allowed(battle: BattleView, event: PlayerDecided) -> None:
    if event.decision != "reform":
        return
    unit = battle.units[event.unit]
    if unit.state != "wavering":
        raise Refusal(
            Words(
                "only a wavering unit reforms; {unit} is {state}",
                unit=unit.id,
                state=STATE_VALUES.get(unit.state, unit.state),
            ),
            rule=reforms.id,
        )
    if not (battle.phase_open and battle.phase == "movement") or battle.turn <= unit_memory(unit).wavered_turn:
        raise Refusal(
            Words(
                "{unit} began to waver in turn {turn}: it may reform only from the Movement phase of the next turn",
                unit=unit.id,
                turn=unit_memory(unit).wavered_turn,
            ),
            rule=reforms.id,
        )
    if unit.restricted("reforming"):
        raise Refusal(Words("{unit} is already reforming", unit=unit.id), rule=reforms.id)


@RULES.check(DiceRolled, first=True)
def rally_roll_allowed(battle: BattleView, event: DiceRolled) -> None:
    """A rally roll with no rally due: say which rule keeps the unit from attempting it (before the
    engine says no rally is due; a unit not in play is the engine's to refuse)."""
    unit = battle.units.get(event.unit)
    if (
        unit is None
        or not unit.alive
        or event.test != "rally"
        or any(d.test == "rally" for d in battle.due_for(unit.id))
    ):
        return
    if unit.state not in FLEEING:
        raise Refusal(
            Words(
                "only a retreating or routing unit rallies; {unit} is {state}",
                unit=unit.id,
                state=STATE_VALUES.get(unit.state, unit.state),
            ),
            rule=rally_call.id,
        )
    if may_not_rally(battle, unit):
        raise Refusal(
            Words("{unit} is within charge range of an enemy or in melee and cannot attempt to rally", unit=unit.id),
            rule=may_not_rally.id,
        )
    if unit.state == "broken" and unit_memory(unit).rally_attempted:
        raise Refusal(Words("{unit} has had its one rally attempt", unit=unit.id), rule=rally_routing.id)
    raise Refusal(Words("{unit} attempts to rally in the Morale phase", unit=unit.id), rule=rally_call.id)


class Gdb(Ruleset):
    id = "gdb"
    version = "1"
    listing_order = 40  # where `morale rulesets` has always listed it
    title = "General de Brigade"
    phases = PHASES
    shared_turn = True
    graph = GRAPH
    unit_types = UNIT_TYPES
    unit_type_names = TYPE_NAMES
    fact_names = FACT_NAMES
    decision_names = DECISION_NAMES
    field_names = FIELD_NAMES
    value_names = VALUE_NAMES
    marker_names = MARKER_NAMES
    restrictions = RESTRICTIONS
    profile_type = GdbProfile
    note_types = NOTE_TYPES
    changeable = CHANGEABLE
    tables = TABLES
    state_names = STATE_NAMES
    tests = TESTS
    casualty_causes = CAUSES
    combat_reports = False  # melees are read unit by unit (melee_result)
    rulebook = RULES

    def __init__(self) -> None:
        super().__init__()
        self.phrases = {**self.phrases, **RESULT_WORDS}

    # -- what the views ask: the battle's memory, a unit's first notes, its profile, its board -------
    def first_memory(self) -> BattleMemory:
        return BattleMemory()

    def first_notes(self, unit: Unit) -> dict[str, object]:
        return {"gdb": UnitMemory()}

    def describe_point(self, battle: BattleView, point: Point) -> str:
        turn, _, phase_index = point
        return PHASE_ENDS[self.phases[phase_index]](turn)

    def profile_values(self, unit: Unit) -> dict[str, Any]:
        return {**super().profile_values(unit), "formation": formation(unit)}

    def describe_profile(self, unit: Unit) -> str:
        """The unit's formation and order ("line, formed"), where it stands if not in the open ("in a
        church"), and who is attached to it: one sentence for each set of these a unit can have."""
        shape = FORMATION_WORDS[formation(unit)]
        formed = Words("formed") if unit.profile["formed"] else Words("unformed")
        location, commander = str(unit.profile["location"]), str(unit.profile["commander"])
        where = IN_LOCATION.get(location) if location != "open" else None
        attached = ATTACHED.get(commander) if commander != "none" else None
        if where is not None and attached is not None:
            return Words(
                "{formation}, {formed}, {where}, {attached}",
                formation=shape,
                formed=formed,
                where=where,
                attached=attached,
            )
        if where is not None:
            return Words("{formation}, {formed}, {where}", formation=shape, formed=formed, where=where)
        if attached is not None:
            return Words("{formation}, {formed}, {attached}", formation=shape, formed=formed, attached=attached)
        return Words("{formation}, {formed}", formation=shape, formed=formed)


@RULES.restricts("falling_back")
@clause("gdb.retreat.no_fire")
def retreating_unit_restrictions(unit: UnitView) -> list[tuple[str, str]]:
    """A retreating unit does not shoot (and loses any melee, `loses_melee`)."""
    return [
        (Words("does not shoot"), retreating_unit_restrictions.id),
        (Words("loses any melee automatically and goes on retreating"), loses_melee.id),
    ]


IMPLIED: dict[str, list[tuple[str, str]]] = {
    "wavering": [(Words("cannot move until it has reformed; may shoot only if charged"), wavers.id)],
    "broken": [
        (Words("back to the enemy; does not shoot or fight back in melee"), routs.id),
        (Words("dispersed on contact with an enemy"), caught_by_enemy.id),
    ],
    "regrouped": [(Words("stopped and unformed; forms up in the next Movement phase"), rally_retreating.id)],
}
for _state, _rows in IMPLIED.items():
    RULES.always_restricts(_state, _rows)

GDB = Gdb()
