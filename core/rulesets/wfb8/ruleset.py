"""Warhammer Fantasy Battle 8th edition: Panic, Break tests, fleeing and rallying, multiple combats
(each clause in its own words in `clauses.toml`).

Tables first, then the clauses in the rulebook's order. A clause that acts is a reaction, declared
with what it reacts to (`RULES.clause(..., reacts_to=...)`, or `RULES.react` for a clause that only
says what is true of a unit and is read by a reaction too; see core/reactions.py): the engine walks
them for each event and for each outcome they decide. The tables of special rules, facts, decisions
and phrases are built from the declarations. Who fights whom, the scoring of a round and the
multiple-combat clauses are in `combat.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from msgspec.structs import replace

from morale.events.types import (
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    FactValue,
    PhaseEnded,
    PhaseStarted,
    TableFactRecorded,
    UnitJoined,
)

from ...engine import call, not_taken, remove, resolved, restrict, withdraw
from ...machine import StateGraph
from ...outcomes import (
    EngagementChanged,
    Modifier,
    Moved,
    Noted,
    Outcome,
    RestrictionApplied,
    Rolled,
    Scheduled,
    Settled,
    TestCalled,
    TestNotTaken,
    TestResolved,
)
from ...reactions import Outcomes, Rulebook
from ...rules import DESTROYED, TEST_FIRST, Refusal, clause, declare
from ...state import DueTest
from ...view import BattleView, UnitView
from ...words import Words, counted, listed
from ..base import Ruleset, leadership_result
from .combat import (
    NO_ENEMY_LEFT,
    Steadfast,
    combat_score,
    engaged,
    foes,
    foes_gone,
    freed,
    has_no_more_foes,
    no_more_foes,
    out_of_the_combat,
    set_foes,
    steadfast,
    still_in_combat,
)

# -- tables -------------------------------------------------------------------------------------
# A player turn on the clock. The rulebook's Movement phase opens with Start of Turn, then the
# Compulsory Moves (Rally tests first), then charges and the remaining moves: `start_of_turn` is its
# own step so that a unit which begins to flee there cannot rally in the Compulsory Moves that follow.
PHASES = ("start_of_turn", "movement", "magic", "shooting", "close_combat")
# ...but it is still the Movement phase for Panic tests and for the strength at the start of the phase.
PHASE_OF = {"start_of_turn": "movement"}

# Dice for a flee move (`flee_move`), by unit type (2D6 for every type in the digest).
FLEE_DICE = {
    "infantry": 2,
    "monstrous_infantry": 2,
    "cavalry": 2,
    "monstrous_cavalry": 2,
    "war_beasts": 2,
    "chariot": 2,
    "monster": 2,
    "swarm": 2,
    "war_machine": 2,
}

# The engine marks each unit that takes a Panic test and, for the rest of the phase, gives a second
# cause no test and refuses dice for one.
ONE_PANIC_TEST_A_PHASE = declare("wfb8.panic.once_per_phase", once_per_phase="panic")
# Several units of one side must take Panic tests at once: their player chooses the order.
PANIC_ORDER = declare("wfb8.panic.order", decision=TEST_FIRST, ordered_test="panic")

PARAMETERS = {
    "panic_threshold_percent": 25,  # heavy_casualties
    "rally_threshold_percent": 25,  # rallies_only_on_double_one
}

# The `cause` of casualties that a charged unit's Stand and Shoot inflicts on its charger.
STAND_AND_SHOOT = "stand_and_shoot"

RESTRICTIONS = {
    "fled_this_turn": Words("began to flee this turn: cannot rally this turn"),
    "rallied_this_turn": Words("rallied: stops and reforms; cannot move or shoot this turn"),
}

# The book's words for the shared states: a unit flees, rallies, and flees off the table.
# The book's words for its unit types: in English the machine value as the story has always said
# it, in Russian the book's terms ("боевые машины").
UNIT_TYPE_NAMES = {
    "infantry": Words("infantry"),
    "monstrous_infantry": Words("monstrous infantry"),
    "cavalry": Words("cavalry"),
    "monstrous_cavalry": Words("monstrous cavalry"),
    "war_beasts": Words("war beasts"),
    "chariot": Words("chariot"),
    "monster": Words("monster"),
    "swarm": Words("swarm"),
    "war_machine": Words("war machine"),
}

# The facts the table states and the decision a player takes, in the book's words where the story
# names them: English as the story has always said them.
FACT_NAMES = {
    "in_close_combat": Words("in close combat"),
    "near_battle_standard": Words("near battle standard"),
    "friend_destroyed_within_6": Words("friend destroyed within 6"),
    "friend_broke_within_6": Words("friend broke within 6"),
    "friend_fled_through": Words("friend fled through"),
    "fled_off_table": Words("fled off table"),
}
DECISION_NAMES = {"test_first": Words("test first")}

STATE_NAMES = {
    "steady": Words("steady"),
    "falling_back": Words("fleeing"),
    "regrouped": Words("rallied"),
    "dispersed": Words("fled off the table"),
    "destroyed": Words("destroyed"),
}

ALIVE = ["steady", "falling_back", "regrouped"]

RULES = Rulebook("wfb8")


# -- Leadership tests -----------------------------------------------------------------------------
@clause("wfb8.panic.test", phrase=Words("panics and flees"))
def panic_test(unit: UnitView, due: DueTest, dice: tuple[int, ...], target: int) -> TestResolved:
    """A Panic test is a normal Leadership test: passed, nothing happens; failed, the unit flees."""
    return leadership_result(unit, due, dice, target, rule=panic_test.id)


# Why a unit takes no Panic test (`panic_exemption`).
IN_COMBAT = Words("in close combat: Break tests govern it there")
FLEEING = Words("fleeing")


@clause("wfb8.panic.exempt", fact={"in_close_combat": "enemy_or_false"})  # an enemy now in base contact, or false
def panic_exemption(unit: UnitView) -> str:
    """No Panic test for a unit (1) in close combat, where Break tests govern it, or (2) fleeing. The third
    case, (3) a unit that has already tested this phase, is ONE_PANIC_TEST_A_PHASE. Returns why, or ""."""
    if engaged(unit):
        return IN_COMBAT
    if unit.state == "falling_back":
        return FLEEING
    return ""


@RULES.restricts("falling_back")
def fleeing_restrictions(unit: UnitView) -> list[tuple[str, str]]:
    """What fleeing forbids by itself, for the board."""
    return [
        (Words("flees: can do nothing but flee"), flee_move.id),  # declared below: read when the board asks
        (Words("takes no Panic tests while fleeing"), panic_exemption.id),
    ]


@RULES.restricts()
def in_combat_restrictions(unit: UnitView) -> list[tuple[str, str]]:
    """A unit in close combat, in any state, takes Break tests there, not Panic tests."""
    if not engaged(unit):
        return []
    said = Words("in close combat with {foes}: Break tests, not Panic tests", foes=listed(foes(unit)))
    return [(said, panic_exemption.id)]


def enters_combat(unit_id: str, caused_by: tuple[int, ...]) -> EngagementChanged:
    return EngagementChanged(
        unit=unit_id,
        rule=panic_exemption.id,
        caused_by=caused_by,
        engaged=True,
        detail=Words("Break tests, not Panic tests, govern it"),
    )


@clause("wfb8.panic.heavy_casualties")
def heavy_casualties(unit: UnitView, threshold_percent: int) -> bool:
    """25% or more of the models it had at the start of the phase, lost in that phase (21 models: 6)."""
    if not unit.phase_losses or unit.models_at_phase_start == 0:
        return False
    lost = unit.models_at_phase_start - unit.models
    return lost * 100 >= threshold_percent * unit.models_at_phase_start


@clause(
    "wfb8.panic.stand_and_shoot",
    cause=STAND_AND_SHOOT,
    phrase=Words("panics under the Stand and Shoot and flees, back out of the shooters' range"),
)
def from_stand_and_shoot(event: CasualtiesSuffered) -> bool:
    """Casualties a charged unit's Stand and Shoot inflicts on its charger count too, and the test is
    taken at once: the charger may flee from out of the shooters' range."""
    return event.cause == STAND_AND_SHOOT


def unbreakable(unit: UnitView) -> bool:
    """`break_test`: Unbreakable units never test and never flee (so they take no Panic test either)."""
    return unit.has("unbreakable")


@clause("wfb8.break.test", special_rule=("stubborn", "unbreakable"), phrase=Words("breaks and flees"))
def break_test(unit: UnitView, due: DueTest, dice: tuple[int, ...], target: int) -> TestResolved:
    """The loser's Leadership minus the difference in combat result (unmodified when Steadfast);
    a double 1, Insane Courage, always passes. Failed: the unit flees."""
    result = leadership_result(unit, due, dice, target, rule=break_test.id)
    if dice == (1, 1):
        return replace(result, passed=True, detail=Words("Insane Courage: a double 1 always passes"))
    return result


def break_modifier(margin: int, steadfast_because: Steadfast | None) -> Modifier:
    """`break_test`: -1 Ld for each point the combat was lost by, ignored by a Steadfast unit."""
    if steadfast_because is None:
        reason = Words("combat lost by {margin}", margin=margin)
    elif steadfast_because.stubborn:
        reason = Words("combat lost by {margin}; Stubborn: always Steadfast", margin=margin)
    else:  # the ranks agree with the first number (1 ряд, 2 ряда, 5 рядов); English says "ranks" for any
        reason = counted(
            "combat lost by {margin}; Steadfast: {n} ranks to {best}",
            "combat lost by {margin}; Steadfast: {n} ranks to {best}",
            n=steadfast_because.own,
            margin=margin,
            best=steadfast_because.best,
        )
    return Modifier(
        rule=break_test.id, value=-margin, reason=reason, ignored_by=break_test.id if steadfast_because else ""
    )


def rallies_only_on_double_one(unit: UnitView, threshold_percent: int) -> bool:
    """`rally_tests_due`: with 25% or less of its starting models a unit rallies only on a double 1."""
    return unit.models * 100 <= threshold_percent * unit.starting_models


@clause(
    "wfb8.hold_your_ground",
    special_rule="battle_standard_bearer",
    fact={"near_battle_standard": "bool"},  # true or false, as measured
)
def hold_your_ground(battle: BattleView, unit: UnitView) -> bool:
    """Units within 12 inches of their Battle Standard Bearer re-roll failed Ld tests, unless the bearer flees."""
    bearer = next(
        (u for u in battle.units.values() if u.side == unit.side and u.alive and u.has("battle_standard_bearer")), None
    )
    if bearer is None or bearer.state == "falling_back":
        return False
    return bearer is unit or unit.notes.get("near_battle_standard") is True


@RULES.restricts()
def near_the_battle_standard(unit: UnitView) -> list[tuple[str, str]]:
    """A unit stated within 12 inches of its Battle Standard re-rolls failed Ld tests (the board says so)."""
    if unit.notes.get("near_battle_standard") is not True:
        return []
    return [(Words("within 12 inches of the Battle Standard: re-rolls failed Ld tests"), hold_your_ground.id)]


# Every test a unit may have due, in the rulebook's words.
# The sources of casualties the Panic rules name (wfb8.panic.heavy_casualties: "shooting, magic, a
# war machine misfire, a miscast, Dangerous terrain"), Stand and Shoot, and close combat.
CAUSES = {
    "shooting": Words("shooting"),
    "magic": Words("magic"),
    "misfire": Words("a war machine misfire"),
    "miscast": Words("a miscast"),
    "dangerous_terrain": Words("Dangerous terrain"),
    STAND_AND_SHOOT: Words("Stand and Shoot"),
    "close_combat": Words("close combat"),
}

TESTS = {
    "panic": Words("Panic test"),
    "break": Words("Break test"),
    "rally": Words("Rally test"),
    "flee": Words("Flee roll"),
}


# What a unit's notes hold: foes (`set_foes`), charging (`charging`), broke_in (a `phase_window`) and
# near_battle_standard (the fact as stated).
NOTE_TYPES: dict[str, object] = {
    "foes": tuple[str, ...],
    "charging": list[str],
    "broke_in": list[int | str | None],
    "near_battle_standard": FactValue,
    NO_ENEMY_LEFT: bool,  # wfb8.multi.no_more_foes: out of the combat since its last foe went
}


def threshold(battle: BattleView, key: str) -> int:
    return int(battle.ruleset.param(battle, key))


def this_phase(battle: BattleView) -> list[int | str | None]:
    """The rulebook phase in progress, as the `broke_in` note holds it."""
    return list(battle.ruleset.phase_window(battle))


def passed(battle: BattleView, settled: Settled) -> bool:
    return settled.result.passed


def failed(battle: BattleView, settled: Settled) -> bool:
    return not settled.result.passed


# -- tests a unit does not take ------------------------------------------------------------------
# A test called for is answered by the first of these that holds, in this order (after the engine's
# once-a-phase limit, `ONE_PANIC_TEST_A_PHASE`); a test neither answers falls due (`engine.due`).
def exempt_from_panic(battle: BattleView, called: TestCalled) -> bool:
    return bool(panic_exemption(battle.units[called.unit]))


def takes_no_panic_test(battle: BattleView, called: TestCalled) -> Outcomes:
    why = panic_exemption(battle.units[called.unit])
    return [not_taken(called, panic_exemption.id, called.caused_by, why)]


RULES.react(panic_exemption.id, TestCalled, takes_no_panic_test, test="panic", when=exempt_from_panic)


def never_tests(battle: BattleView, called: TestCalled) -> Outcomes:
    return [not_taken(called, break_test.id, called.caused_by, Words("Unbreakable"))]


RULES.react(
    break_test.id,
    TestCalled,
    never_tests,
    test=("panic", "break"),
    when=lambda battle, called: unbreakable(battle.units[called.unit]),
)


# -- what the rules refuse -----------------------------------------------------------------------
@RULES.check(UnitJoined)
def unit_needs_its_leadership(battle: BattleView, event: UnitJoined) -> None:
    if event.ld is None:
        raise Refusal(Words("a WFB unit needs its Leadership (ld) for Panic, Break and Rally tests"), field="ld")
    if "battle_standard_bearer" in event.special_rules and any(
        u.side == event.side and u.has("battle_standard_bearer") for u in battle.units.values()
    ):
        raise Refusal(Words("{side} already has its Battle Standard Bearer", side=event.side), rule=hold_your_ground.id)


# -- casualties -----------------------------------------------------------------------------------
@RULES.check(CasualtiesSuffered)
def stand_and_shoot_aimed_at_a_charger(battle: BattleView, event: CasualtiesSuffered) -> None:
    unit = battle.units[event.unit]
    if from_stand_and_shoot(event) and "charging" not in unit.notes:
        raise Refusal(
            Words("{unit} declared no charge this phase: no Stand and Shoot was aimed at it", unit=unit.id),
            rule=from_stand_and_shoot.id,
        )


def destroyed_in_its_combat(battle: BattleView, event: CasualtiesSuffered) -> Outcomes:
    """A unit destroyed (the engine has destroyed it by now) is out of its combat."""
    return leaves_combat(battle, battle.units[event.unit], (battle.seq,))


RULES.react(
    no_more_foes.id,
    CasualtiesSuffered,
    destroyed_in_its_combat,
    when=lambda battle, event: not battle.units[event.unit].alive,
)


def hit_hard(battle: BattleView, event: CasualtiesSuffered) -> bool:
    unit = battle.units[event.unit]
    return unit.alive and battle.phase_open and heavy_casualties(unit, threshold(battle, "panic_threshold_percent"))


def panics_at_casualties(battle: BattleView, event: CasualtiesSuffered) -> Outcomes:
    """Tested immediately after the source of the casualties is resolved (each casualty event)."""
    unit = battle.units[event.unit]
    trigger = from_stand_and_shoot.id if from_stand_and_shoot(event) else heavy_casualties.id
    return [call(unit.id, "panic", trigger, tuple(unit.phase_losses))]


RULES.react(heavy_casualties.id, CasualtiesSuffered, panics_at_casualties, when=hit_hard)


# -- facts from the table -----------------------------------------------------------------------
FRIENDS = ("friend_destroyed_within_6", "friend_broke_within_6", "friend_fled_through")


@RULES.check(TableFactRecorded, fact=FRIENDS)
def names_a_friend(battle: BattleView, event: TableFactRecorded) -> None:
    """The friend a Panic cause names: another unit of the side."""
    unit = battle.units[event.unit]
    friend = battle.units.get(event.value) if isinstance(event.value, str) else None
    if friend is None or friend is unit or friend.side != unit.side:
        raise Refusal(
            Words(
                "{fact} names another unit of {side} (got {value!r})",
                fact=event.fact,
                side=unit.side,
                value=event.value,
            ),
            field="value",
        )


@RULES.check(TableFactRecorded, fact="friend_destroyed_within_6")
def destroyed_this_phase(battle: BattleView, event: TableFactRecorded) -> None:
    friend = battle.units[str(event.value)]
    if not (friend.state == "destroyed" and friend.phase_losses):
        raise Refusal(
            Words("{unit} was not destroyed this phase", unit=friend.id), rule=battle.ruleset.facts[event.fact]
        )


@RULES.check(TableFactRecorded, fact="friend_broke_within_6")
def broke_this_phase(battle: BattleView, event: TableFactRecorded) -> None:
    friend = battle.units[str(event.value)]
    if friend.notes.get("broke_in") != this_phase(battle):
        raise Refusal(
            Words("{unit} did not break from a combat this phase", unit=friend.id),
            rule=battle.ruleset.facts[event.fact],
        )


@RULES.check(TableFactRecorded, fact="friend_fled_through")
def fled_past_already(battle: BattleView, event: TableFactRecorded) -> None:
    friend, cited = battle.units[str(event.value)], battle.ruleset.facts[event.fact]
    if friend.state != "falling_back":
        raise Refusal(Words("{unit} is not fleeing", unit=friend.id), rule=cited)
    if any(t.test == "flee" for t in battle.due_for(friend.id)):
        raise Refusal(
            Words("{unit} has not made its flee move yet: the test comes after it", unit=friend.id), rule=cited
        )


@RULES.check(TableFactRecorded, fact="fled_off_table")
def off_the_table_while_fleeing(battle: BattleView, event: TableFactRecorded) -> None:
    unit = battle.units[event.unit]
    if event.value is not True:
        raise Refusal(Words("fled_off_table is recorded when it happens, with value true"), field="value")
    if unit.state != "falling_back":
        raise Refusal(not_fleeing(unit), rule=flee_move.id)


def not_fleeing(unit: UnitView) -> Words:
    """Why a unit that is not fleeing cannot flee off the table: one sentence for each state it may be
    in (the English names the state's machine value, the other languages the ruleset's name for it)."""
    said = {
        "steady": Words("{unit} is not fleeing (it is steady)", unit=unit.id),
        "regrouped": Words("{unit} is not fleeing (it is regrouped)", unit=unit.id),
        "dispersed": Words("{unit} is not fleeing (it is dispersed)", unit=unit.id),
        "destroyed": Words("{unit} is not fleeing (it is destroyed)", unit=unit.id),
    }
    return said.get(unit.state) or Words("{unit} is not fleeing (it is {state})", unit=unit.id, state=unit.state)


@RULES.check(TableFactRecorded, fact="near_battle_standard")
def measured_to_the_standard(battle: BattleView, event: TableFactRecorded) -> None:
    if not isinstance(event.value, bool):
        raise Refusal(Words("near_battle_standard is true or false, as measured"), field="value")


@RULES.check(TableFactRecorded, fact="in_close_combat")
def in_base_contact(battle: BattleView, event: TableFactRecorded) -> None:
    """in_close_combat: an enemy now in base contact, or false when the unit is out of its combat."""
    unit, value = battle.units[event.unit], event.value
    if value is False:
        if not engaged(unit):
            raise Refusal(Words("{unit} is not in close combat", unit=unit.id), field="value")
        return
    enemy = battle.units.get(value) if isinstance(value, str) else None
    if enemy is None or enemy.side == unit.side or not enemy.alive:
        raise Refusal(Words("in_close_combat names an enemy unit now in base contact, or is false"), field="value")
    for fighter in (unit, enemy):
        if fighter.state == "falling_back":
            raise Refusal(Words("{unit} is fleeing and fights no one", unit=fighter.id), rule=flee_move.id)


def contact_stated(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """in_close_combat: the unit is now in base contact with the enemy named, or out of its combat."""
    unit = battle.units[event.unit]
    if event.value is False:
        return out_of_combat(battle, unit, (battle.seq,))
    return locked_in_combat(battle, unit, battle.units[str(event.value)], (battle.seq,))


RULES.react(panic_exemption.id, TableFactRecorded, contact_stated, fact="in_close_combat")


def notes_the_standard(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """near_battle_standard: whether the unit is within 12 inches of its Battle Standard, as measured."""
    notes = {"near_battle_standard": event.value}
    return [Noted(unit=event.unit, rule=hold_your_ground.id, caused_by=(battle.seq,), notes=notes)]


RULES.react(hold_your_ground.id, TableFactRecorded, notes_the_standard, fact="near_battle_standard")


@RULES.clause("wfb8.panic.friend_destroyed", fact={"friend_destroyed_within_6": "friend"}, reacts_to=TableFactRecorded)
def friend_destroyed(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """A friendly unit destroyed within 6 inches: Panic test."""
    return [call(event.unit, "panic", friend_destroyed.id, (battle.seq,))]


@RULES.clause("wfb8.panic.friend_breaks", fact={"friend_broke_within_6": "friend"}, reacts_to=TableFactRecorded)
def friend_breaks(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """A friendly unit breaking from combat within 6 inches (measured before it flees): Panic test."""
    return [call(event.unit, "panic", friend_breaks.id, (battle.seq,))]


@RULES.clause("wfb8.panic.fled_through", fact={"friend_fled_through": "friend"}, reacts_to=TableFactRecorded)
def fled_through(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """Friends fleeing through the unit: Panic test, after the move."""
    return [call(event.unit, "panic", fled_through.id, (battle.seq,))]


# -- close combat -------------------------------------------------------------------------------
class Contacts:
    """Who fights whom as the outcomes a reaction has decided so far leave it. A reaction decides its
    whole list from the battle as it stands (core/reactions.py); where it brings units into contact
    one pair after another (every charge that reaches its targets), each pair reads here the foes
    the earlier pairs gave."""

    def __init__(self) -> None:
        self.given: dict[str, tuple[str, ...]] = {}

    def engage(
        self, battle: BattleView, fighter: UnitView, other: UnitView, caused_by: tuple[int, ...]
    ) -> list[Outcome]:
        """`fighter` fights `other` as well as its foes: it enters the combat if it was in none, is no
        longer a unit the engine freed, and a Panic test it still has due lapses (`panic_tests_lapse`)."""
        first = fighter.id not in self.given
        now = foes(fighter) if first else self.given[fighter.id]
        decided: list[Outcome] = []
        if not now:
            decided.append(enters_combat(fighter.id, caused_by))
        decided.append(
            set_foes(fighter, (*now, other.id), panic_exemption.id, caused_by, was_freed=first and freed(fighter))
        )
        self.given[fighter.id] = tuple(sorted({*now, other.id}))
        if first:  # after that, none of its Panic tests is left due to lapse
            decided += panic_tests_lapse(battle, fighter, IN_COMBAT, caused_by)
        return decided


def locked_in_combat(
    battle: BattleView, unit: UnitView, enemy: UnitView, caused_by: tuple[int, ...], contacts: Contacts | None = None
) -> list[Outcome]:
    """The unit and the enemy are in base contact: each fights the other."""
    contacts = Contacts() if contacts is None else contacts
    return [*contacts.engage(battle, unit, enemy, caused_by), *contacts.engage(battle, enemy, unit, caused_by)]


def out_of_combat(battle: BattleView, unit: UnitView, caused_by: tuple[int, ...]) -> list[Outcome]:
    """in_close_combat false: the unit is out of its combat, and takes Panic tests again."""
    left = EngagementChanged(unit=unit.id, rule=panic_exemption.id, caused_by=caused_by, engaged=False)
    return [*leaves_combat(battle, unit, caused_by), left]


def panic_tests_lapse(battle: BattleView, unit: UnitView, why: str, caused_by: tuple[int, ...]) -> list[Outcome]:
    """`panic_exemption` holds when a Panic test would be taken as well as when it falls due: a
    unit that flees (failing another test first) or is caught in a combat before rolling for a
    Panic test still due does not take it (`why`: the exemption, as it holds for the unit then)."""
    return [withdraw(due, panic_exemption.id, caused_by, why) for due in battle.due_for(unit.id) if due.test == "panic"]


def leaves_combat(battle: BattleView, unit: UnitView, caused_by: tuple[int, ...]) -> list[Outcome]:
    """A unit that flees or is gone is out of its combat; a foe with no enemy left there has no more
    foes (`no_more_foes`): it counts as having won and acts normally."""
    decided: list[Outcome] = [set_foes(unit, (), no_more_foes.id, caused_by)]
    for other in battle.units.values():
        if unit.id in foes(other):
            left = tuple(f for f in foes(other) if f != unit.id)
            decided.append(set_foes(other, left, no_more_foes.id, caused_by))
            if not left:
                decided += foes_gone(other.id, caused_by)
    return decided


@RULES.check(ChargeDeclared)
def charge_allowed(battle: BattleView, event: ChargeDeclared) -> None:
    charger = battle.units[event.charger]
    if not (battle.phase_open and battle.phase == "movement" and charger.side == battle.active_side):
        raise Refusal(
            Words("{unit} can charge only in its own side's Movement phase", unit=charger.id), field="charger"
        )
    if charger.state == "falling_back":
        raise Refusal(Words("{unit} is fleeing and can do nothing but flee", unit=charger.id), rule=flee_move.id)
    if charger.restricted("rallied_this_turn"):
        raise Refusal(Words("{unit} rallied this turn and cannot move", unit=charger.id), rule=rally_tests_due.id)
    if engaged(charger):
        raise Refusal(Words("{unit} is already in close combat", unit=charger.id), field="charger")


def charge_declared(battle: BattleView, event: ChargeDeclared) -> Outcomes:
    """The charge is declared now; the chargers reach their targets at the end of the Movement phase,
    after the targets' reactions (a Stand and Shoot may make the charger flee first)."""
    return [charging(event.charger, [*event.in_range], (battle.seq,))]


RULES.react(panic_exemption.id, ChargeDeclared, charge_declared)


def charging(unit_id: str, targets: list[str] | None, caused_by: tuple[int, ...]) -> Noted:
    """The targets in range of the unit's charge (None: it charges no more), until the charge reaches
    them (`locked_in_combat`) or the charger flees. A Stand and Shoot (`from_stand_and_shoot`) is aimed
    only at a charger."""
    return Noted(unit=unit_id, rule=panic_exemption.id, caused_by=caused_by, notes={"charging": targets})


def charges_reach(battle: BattleView, ended: PhaseEnded) -> Outcomes:
    """The Movement phase is over: each charger that is still there and not fleeing reaches the targets
    in range that are still there and not fleeing, and they fight."""
    caused_by, contacts = (battle.seq,), Contacts()
    decided: list[Outcome] = []
    for charger in battle.units.values():
        if "charging" not in charger.notes:
            continue
        reached = cast(list[str], charger.notes["charging"])  # unit ids, as `charging` notes them
        decided.append(charging(charger.id, None, caused_by))
        if charger.state == "falling_back" or not charger.alive:
            continue
        for target_id in reached:
            target = battle.units[target_id]
            if target.alive and target.state != "falling_back":
                decided += locked_in_combat(battle, charger, target, caused_by, contacts)
    return decided


RULES.react(panic_exemption.id, PhaseEnded, charges_reach, phase="movement")


def rounds_over(battle: BattleView, ended: PhaseEnded) -> Outcomes:
    """The Close Combat phase is over: the units the engine freed (`no_more_foes`) are no longer
    remembered as such, so a later combat report may bring them into a fight again."""
    forget = {NO_ENEMY_LEFT: None}
    return [
        Noted(unit=unit.id, rule=no_more_foes.id, caused_by=(battle.seq,), notes=forget)
        for unit in battle.units.values()
        if freed(unit)
    ]


RULES.react(no_more_foes.id, PhaseEnded, rounds_over, phase="close_combat")


@RULES.check(CombatResolved)
def combat_allowed(battle: BattleView, event: CombatResolved) -> None:
    if not (battle.phase_open and battle.phase == "close_combat"):
        raise Refusal(Words("close combats are resolved in a Close Combat phase"), field="type")
    for side, enemy in ((event.sides[0], event.sides[1]), (event.sides[1], event.sides[0])):
        for unit_id in side.units:
            if battle.units[unit_id].state == "falling_back":
                raise Refusal(Words("{unit} is fleeing and can do nothing but flee", unit=unit_id), rule=flee_move.id)
            # Who fights whom is the engine's to know: a unit locked with other foes is in their combat.
            fighting = foes(battle.units[unit_id])
            if fighting and not set(fighting) & set(enemy.units):
                raise Refusal(
                    Words(
                        "{unit} is in close combat with {foes}, none of whom is in this combat",
                        unit=unit_id,
                        foes=listed(fighting),
                    ),
                    field="units",
                )
            # ...and one combat is resolved whole: a foe left out would keep fighting a unit that,
            # by this report, no longer fights it.
            left_out = [f for f in fighting if f not in enemy.units]
            if left_out:
                raise Refusal(
                    Words(
                        "{foe} is in close combat with {unit} but is not in this combat report",
                        foe=left_out[0],
                        unit=unit_id,
                    ),
                    field="units",
                )


def combat_resolved(battle: BattleView, event: CombatResolved) -> Outcomes:
    """The losers of a round take Break tests (a draw: nobody tests), but not those with no enemy
    left (`no_more_foes`). The round is scored, and who tests decided, from the battle as the round
    left it: before the report's own changes to who fights whom."""
    scores = [combat_score(side, battle.units) for side in event.sides]
    lost = 0 if scores[0] < scores[1] else 1
    loser, winner = event.sides[lost], event.sides[1 - lost]
    margin = abs(scores[0] - scores[1])
    tests = {
        unit_id: steadfast(battle.units[unit_id], loser, winner, battle.units)
        for unit_id in loser.units
        if not no_more_foes(battle.units[unit_id], loser)
    }
    caused_by = (battle.seq,)
    decided = after_the_round(battle, event, caused_by)
    if scores[0] == scores[1]:
        return decided
    for unit_id in loser.units:
        if unit_id not in tests:
            decided.append(
                TestNotTaken(
                    unit=unit_id, rule=no_more_foes.id, caused_by=caused_by, test="break", trigger=break_test.id
                )
            )
            continue
        modifier = break_modifier(margin, tests[unit_id])
        decided.append(call(unit_id, "break", break_test.id, caused_by, modifiers=(modifier,)))
    return decided


RULES.react(break_test.id, CombatResolved, combat_resolved)


def after_the_round(battle: BattleView, event: CombatResolved, caused_by: tuple[int, ...]) -> list[Outcome]:
    """Who still fights whom: the units that left the combat are out of it, the rest face the enemy
    units still in it. A unit the engine saw lose its last foe this phase (`freed`) stays out, listed
    in `left_combat` or not: the report cannot give it foes again. (Each unit is given foes once, and
    what it is given changes nothing another unit's line reads.)"""
    decided: list[Outcome] = []
    for side, enemy in ((event.sides[0], event.sides[1]), (event.sides[1], event.sides[0])):
        enemies = tuple(still_in_combat(enemy, battle.units))
        out = out_of_the_combat(side, battle.units)
        for unit_id in side.units:
            unit = battle.units[unit_id]
            if freed(unit) and unit_id not in side.left_combat:
                continue  # out of the combat since its last foe went (`leaves_combat` said so)
            was_engaged = engaged(unit)
            decided.append(set_foes(unit, () if unit_id in out else enemies, still_in_combat.id, caused_by))
            if unit_id in out:
                decided.append(
                    EngagementChanged(
                        unit=unit_id,
                        rule=still_in_combat.id,
                        caused_by=caused_by,
                        engaged=False,
                        detail=Words("lost base contact: its wounds count, its other bonuses do not"),
                    )
                )
            elif not enemies and was_engaged:
                decided.append(has_no_more_foes(unit_id, caused_by))
            elif enemies and not was_engaged:
                decided.append(enters_combat(unit_id, caused_by))
    return decided


# -- rallying -----------------------------------------------------------------------------------
@RULES.clause(
    "wfb8.rally.test",
    phrase={
        "regrouped": Words("rallies"),
        "falling_back": Words("fails to rally and flees again"),
        "steady": Words("is steady again"),
    },
    reacts_to=PhaseStarted,
    phase="movement",
)
def rally_tests_due(battle: BattleView, started: PhaseStarted) -> Outcomes:
    """In the Compulsory Moves, each fleeing unit of the side whose turn it is takes an Ld test to
    rally, but not in the turn it began to flee; with 25% or less of its starting models only a
    double 1 rallies it. Passed: it rallies (stops and reforms; cannot move or shoot that turn) and is
    steady from the next turn. Failed: it flees again."""
    rule, caused_by = rally_tests_due.id, (battle.seq,)
    decided: list[Outcome] = []
    for unit in battle.living.values():
        if unit.side != battle.active_side or unit.state != "falling_back":
            continue
        if unit.restricted("fled_this_turn"):
            decided.append(TestNotTaken(unit=unit.id, rule=rule, caused_by=caused_by, test="rally", trigger=rule))
        else:
            decided.append(call(unit.id, "rally", rule, caused_by))
    return decided


def rallies(battle: BattleView, settled: Settled) -> Outcomes:
    unit, caused_by = battle.units[settled.unit], settled.caused_by
    end = battle.ruleset.end_of_player_turn(battle, battle.active_side or unit.side)
    return [
        Scheduled(unit=unit.id, rule=rally_tests_due.id, caused_by=caused_by, move="end_rally", when=end),
        battle.ruleset.graph.move(unit, "rally", caused_by),
        for_this_turn(battle, unit, "rallied_this_turn", caused_by),
    ]


RULES.react(rally_tests_due.id, Settled, rallies, test="rally", when=passed)


def flees_again(battle: BattleView, settled: Settled) -> Outcomes:
    unit, caused_by = battle.units[settled.unit], settled.caused_by
    return [battle.ruleset.graph.move(unit, "fail_rally", caused_by), flee_move_due(unit, caused_by)]


RULES.react(rally_tests_due.id, Settled, flees_again, test="rally", when=failed)


def for_this_turn(battle: BattleView, unit: UnitView, name: str, caused_by: tuple[int, ...]) -> RestrictionApplied:
    """A restriction until the end of this player turn."""
    end = battle.ruleset.end_of_player_turn(battle, battle.active_side or unit.side)
    return restrict(battle, unit, name, rally_tests_due.id, end, caused_by)


# -- fleeing ------------------------------------------------------------------------------------
def flees(
    battle: BattleView, unit: UnitView, trigger: str, caused_by: tuple[int, ...], cite: str = ""
) -> list[Outcome]:
    """A failed Panic or Break test: the unit flees at once, out of any combat and any charge it made."""
    # A Panic test it still has due lapses, for the exemption that holds once it flees: in close
    # combat still as it starts to flee, or else fleeing.
    why = panic_exemption(unit) or FLEEING
    decided: list[Outcome] = [battle.ruleset.graph.move(unit, trigger, caused_by, cite)]
    decided += panic_tests_lapse(battle, unit, why, caused_by)
    decided += leaves_combat(battle, unit, caused_by)
    if "charging" in unit.notes:
        decided.append(charging(unit.id, None, caused_by))
    decided.append(for_this_turn(battle, unit, "fled_this_turn", caused_by))
    decided.append(flee_move_due(unit, caused_by))
    return decided


def flee_move_due(unit: UnitView, caused_by: tuple[int, ...]) -> TestCalled:
    return call(unit.id, "flee", flee_move.id, caused_by, dice=FLEE_DICE[unit.unit_type])


@RULES.clause(
    "wfb8.flee.move", fact="fled_off_table", phrase=Words("flees off the table"), reacts_to=Rolled, test="flee"
)
def flee_move(battle: BattleView, rolled: Rolled) -> Outcomes:
    """A fleeing unit moves 2D6 inches directly away; off the table edge it is out of the battle
    (`fled_off_table`, `flees_off_table`)."""
    caused_by = (*rolled.due.caused_by, *rolled.caused_by)
    return [Moved(unit=rolled.unit, rule=flee_move.id, caused_by=caused_by, inches=sum(rolled.dice), dice=rolled.dice)]


def flees_off_table(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """`flee_move`: a fleeing unit that moves off the table edge is out of the battle."""
    return remove(battle, battle.units[event.unit], "flee_off_table", (battle.seq,))


RULES.react(flee_move.id, TableFactRecorded, flees_off_table, fact="fled_off_table")


# -- the dice of a Leadership test --------------------------------------------------------------
def leadership_target(battle: BattleView, due: DueTest) -> int:
    """The Leadership a Panic or Break test's dice must not exceed: Ld and the modifiers that count."""
    unit = battle.units[due.unit]
    return (unit.ld or 0) + sum(m.value for m in due.modifiers if not m.ignored_by)


def rally_target(battle: BattleView, due: DueTest) -> int:
    """A Rally test's: Ld, but with 25% or less of its starting models only a double 1 (2D6 at most 2)."""
    if rallies_only_on_double_one(battle.units[due.unit], threshold(battle, "rally_threshold_percent")):
        return 2
    return leadership_target(battle, due)


def rally_result(battle: BattleView, unit: UnitView, due: DueTest, dice: tuple[int, ...], target: int) -> TestResolved:
    """`rally_tests_due`: an Ld test; with 25% or less of its starting models only a double 1 (`rally_target`)."""
    result = leadership_result(unit, due, dice, target, rule=rally_tests_due.id)
    if rallies_only_on_double_one(unit, threshold(battle, "rally_threshold_percent")):
        return replace(result, detail=only_a_double_one(unit))
    return result


def only_a_double_one(unit: UnitView, *, standard_near: bool = False) -> Words:
    """`rally_result`'s detail: how many models are left (1 модель, 2 модели, 5 моделей; English
    says "models" for any number, "1 of 20 models"), and, where the Battle Standard lets the unit
    re-roll the failure (`hold_your_ground`), that too."""
    if standard_near:
        return counted(
            "{n} of {starting} models left: 25% or less, only a double 1 rallies;"
            " Hold Your Ground: the Battle Standard is near, re-roll",
            "{n} of {starting} models left: 25% or less, only a double 1 rallies;"
            " Hold Your Ground: the Battle Standard is near, re-roll",
            n=unit.models,
            starting=unit.starting_models,
        )
    return counted(
        "{n} of {starting} models left: 25% or less, only a double 1 rallies",
        "{n} of {starting} models left: 25% or less, only a double 1 rallies",
        n=unit.models,
        starting=unit.starting_models,
    )


def rerolled_because(battle: BattleView, unit: UnitView, result: TestResolved) -> Words:
    """A failed test's detail where the Battle Standard lets the unit re-roll it: the failure's own
    detail (a Rally test with 25% or less of the models left: `only_a_double_one`) and the re-roll."""
    if result.rule == rally_tests_due.id and rallies_only_on_double_one(
        unit, threshold(battle, "rally_threshold_percent")
    ):
        return only_a_double_one(unit, standard_near=True)
    return Words("Hold Your Ground: the Battle Standard is near, re-roll")


# How a Leadership test's dice are judged against its target: (battle, unit, due, dice, target) -> result.
Judge = Callable[[BattleView, UnitView, DueTest, tuple[int, ...], int], TestResolved]
# The number its dice must not exceed.
Target = Callable[[BattleView, DueTest], int]


def rolled_against(judge: Judge, target: Target) -> Callable[[BattleView, Rolled], Outcomes]:
    """The reaction to the dice of a Leadership test that `judge` decides against `target`."""

    def rolls(battle: BattleView, rolled: Rolled) -> Outcomes:
        """Its result, which its consequences react to; a failure the Battle Standard lets the unit
        re-roll is re-rolled first (`hold_your_ground`)."""
        unit, due = battle.units[rolled.unit], rolled.due
        caused_by = (*due.caused_by, *rolled.caused_by)
        result = replace(judge(battle, unit, due, rolled.dice, target(battle, due)), caused_by=caused_by)
        if not result.passed and not due.reroll and hold_your_ground(battle, unit):
            detail = rerolled_because(battle, unit, result)
            again = call(unit.id, due.test, due.rule, caused_by, modifiers=due.modifiers, reroll=hold_your_ground.id)
            return [replace(result, detail=detail), again]
        # Its consequences cite the test's causes and the roll, as the result does.
        return resolved(due, result, caused_by)

    return rolls


def odds_against(judge: Judge, target: Target) -> Callable[[BattleView, DueTest, tuple[int, ...]], tuple[str, bool]]:
    """What these dice give a Leadership test, as `rolled_against` decides it (Insane Courage and the
    double 1 to rally included); a failure the Battle Standard lets the unit re-roll is a re-roll."""

    def odds(battle: BattleView, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool]:
        unit = battle.units[due.unit]
        if judge(battle, unit, due, dice, target(battle, due)).passed:
            return ("pass", True)
        if not due.reroll and hold_your_ground(battle, unit):
            return ("re-roll", False)
        return ("fail", False)

    return odds


# Each Leadership test, the clause that decides it, how its dice are judged and against what. The
# flee roll is a move: no target, no odds.
JUDGES: dict[str, tuple[str, Judge, Target]] = {
    "panic": (
        panic_test.id,
        lambda battle, unit, due, dice, target: panic_test(unit, due, dice, target),
        leadership_target,
    ),
    "break": (
        break_test.id,
        lambda battle, unit, due, dice, target: break_test(unit, due, dice, target),
        leadership_target,
    ),
    "rally": (rally_tests_due.id, rally_result, rally_target),
}
for _test, (_rule, _judge, _target) in JUDGES.items():
    RULES.react(_rule, Rolled, rolled_against(_judge, _target), test=_test)
    RULES.reads(_test, target=_target, result=odds_against(_judge, _target))


# -- a failed Panic or Break test --------------------------------------------------------------
def breaks(battle: BattleView, settled: Settled) -> Outcomes:
    """A failed Break test: the unit flees; noted for `friend_breaks`, as its friends take Panic tests."""
    unit, caused_by = battle.units[settled.unit], settled.caused_by
    broke = Noted(unit=unit.id, rule=break_test.id, caused_by=caused_by, notes={"broke_in": this_phase(battle)})
    return [broke, *flees(battle, unit, "fail_break", caused_by)]


RULES.react(break_test.id, Settled, breaks, test="break", when=failed)


def panics(battle: BattleView, settled: Settled) -> Outcomes:
    """A failed Panic test: the unit flees (under a Stand and Shoot, back out of the shooters' range)."""
    cite = from_stand_and_shoot.id if settled.due.rule == from_stand_and_shoot.id else ""
    return flees(battle, battle.units[settled.unit], "fail_panic", settled.caused_by, cite)


RULES.react(panic_test.id, Settled, panics, test="panic", when=failed)


class Wfb8(Ruleset):
    id = "wfb8"
    version = "1"
    listing_order = 30  # where `morale rulesets` has always listed it
    game_systems = r"fantasy.*\b8(th)?\b|\b8(th)?\b.*fantasy"  # as BSData names it
    title = Words("Warhammer Fantasy Battle 8th edition")
    phases = PHASES
    phase_of = PHASE_OF
    unit_types = FLEE_DICE
    unit_type_names = UNIT_TYPE_NAMES
    fact_names = FACT_NAMES
    decision_names = DECISION_NAMES
    parameters = PARAMETERS
    restrictions = RESTRICTIONS
    state_names = STATE_NAMES
    combat_detail = frozenset({"ranks", "unit_bonus", "left_combat"})
    tests = TESTS
    casualty_causes = CAUSES
    note_types = NOTE_TYPES
    rulebook = RULES

    # The rows that move a unit, each citing the clause above that moves it.
    graph = StateGraph(
        [
            {"trigger": "fail_panic", "source": ["steady", "regrouped"], "dest": "falling_back", "rule": panic_test.id},
            {"trigger": "fail_break", "source": ["steady", "regrouped"], "dest": "falling_back", "rule": break_test.id},
            {"trigger": "rally", "source": "falling_back", "dest": "regrouped", "rule": rally_tests_due.id},
            {"trigger": "fail_rally", "source": "falling_back", "dest": "=", "rule": rally_tests_due.id},
            {"trigger": "end_rally", "source": "regrouped", "dest": "steady", "rule": rally_tests_due.id},
            {"trigger": "flee_off_table", "source": "falling_back", "dest": "dispersed", "rule": flee_move.id},
            {"trigger": "lose_last_model", "source": ALIVE, "dest": "destroyed", "rule": DESTROYED},
        ]
    )


WFB8 = Wfb8()
