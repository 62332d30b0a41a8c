"""Warhammer Fantasy Battle 8th edition: Panic, Break tests, fleeing and rallying, multiple combats
(each clause in its own words in `clauses.toml`).

Tables first, then one function per clause, each declared under the rule ID it carries out; the
tables of special rules, facts, decisions and phrases are built from those declarations. Who fights
whom, the scoring of a round and the multiple-combat clauses are in `combat.py`.
"""

from __future__ import annotations

from msgspec.structs import replace

from morale.events.types import (
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    FactValue,
    TableFactRecorded,
    UnitJoined,
)

from ...apply import Decided
from ...machine import StateGraph
from ...outcomes import (
    EngagementChanged,
    Modifier,
    Moved,
    Noted,
    RestrictionApplied,
    Scheduled,
    TestNotTaken,
    TestResolved,
)
from ...rules import DESTROYED, TEST_FIRST, Refusal, clause, declare
from ...state import Battle, DueTest, Unit
from ..base import Ruleset, leadership_result
from .combat import (
    NO_ENEMY_LEFT,
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

# Dice for a flee move (`Wfb8.flee_move`), by unit type (2D6 for every type in the digest).
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
    "fled_this_turn": "began to flee this turn: cannot rally this turn",
    "rallied_this_turn": "rallied: stops and reforms; cannot move or shoot this turn",
}

# The book's words for the shared states: a unit flees, rallies, and flees off the table.
STATE_NAMES = {
    "steady": "steady",
    "falling_back": "fleeing",
    "regrouped": "rallied",
    "dispersed": "fled off the table",
    "destroyed": "destroyed",
}

ALIVE = ["steady", "falling_back", "regrouped"]


# -- Leadership tests -----------------------------------------------------------------------------
@clause("wfb8.panic.test", phrase="panics and flees")
def panic_test(unit: Unit, due: DueTest, dice: tuple[int, ...], target: int) -> TestResolved:
    """A Panic test is a normal Leadership test: passed, nothing happens; failed, the unit flees."""
    return leadership_result(unit, due, dice, target, rule=panic_test.id)


@clause("wfb8.panic.exempt", fact={"in_close_combat": "enemy_or_false"})  # an enemy now in base contact, or false
def panic_exemption(unit: Unit) -> str:
    """No Panic test for a unit (1) in close combat, where Break tests govern it, or (2) fleeing. The third
    case, (3) a unit that has already tested this phase, is ONE_PANIC_TEST_A_PHASE. Returns why, or ""."""
    if engaged(unit):
        return "in close combat: Break tests govern it there"
    if unit.state == "falling_back":
        return "fleeing"
    return ""


def enters_combat(unit_id: str, caused_by: tuple[int, ...]) -> EngagementChanged:
    return EngagementChanged(
        unit=unit_id,
        rule=panic_exemption.id,
        caused_by=caused_by,
        engaged=True,
        detail="Break tests, not Panic tests, govern it",
    )


@clause("wfb8.panic.heavy_casualties")
def heavy_casualties(unit: Unit, threshold_percent: int) -> bool:
    """25% or more of the models it had at the start of the phase, lost in that phase (21 models: 6)."""
    if not unit.phase_losses or unit.models_at_phase_start == 0:
        return False
    lost = unit.models_at_phase_start - unit.models
    return lost * 100 >= threshold_percent * unit.models_at_phase_start


@clause(
    "wfb8.panic.stand_and_shoot",
    cause=STAND_AND_SHOOT,
    phrase="panics under the Stand and Shoot and flees, back out of the shooters' range",
)
def from_stand_and_shoot(event: CasualtiesSuffered) -> bool:
    """Casualties a charged unit's Stand and Shoot inflicts on its charger count too, and the test is
    taken at once: the charger may flee from out of the shooters' range."""
    return event.cause == STAND_AND_SHOOT


def unbreakable(unit: Unit) -> bool:
    """`break_test`: Unbreakable units never test and never flee (so they take no Panic test either)."""
    return unit.has("unbreakable")


@clause("wfb8.break.test", special_rule=("stubborn", "unbreakable"), phrase="breaks and flees")
def break_test(unit: Unit, due: DueTest, dice: tuple[int, ...], target: int) -> TestResolved:
    """The loser's Leadership minus the difference in combat result (unmodified when Steadfast);
    a double 1, Insane Courage, always passes. Failed: the unit flees."""
    result = leadership_result(unit, due, dice, target, rule=break_test.id)
    if dice == (1, 1):
        return replace(result, passed=True, detail="Insane Courage: a double 1 always passes")
    return result


def break_modifier(margin: int, steadfast_because: str) -> Modifier:
    """`break_test`: -1 Ld for each point the combat was lost by, ignored by a Steadfast unit."""
    reason = f"combat lost by {margin}" + (f"; {steadfast_because}" if steadfast_because else "")
    return Modifier(
        rule=break_test.id, value=-margin, reason=reason, ignored_by=break_test.id if steadfast_because else ""
    )


def rallies_only_on_double_one(unit: Unit, threshold_percent: int) -> bool:
    """`Wfb8.rally_tests_due`: with 25% or less of its starting models a unit rallies only on a double 1."""
    return unit.models * 100 <= threshold_percent * unit.starting_models


@clause(
    "wfb8.hold_your_ground",
    special_rule="battle_standard_bearer",
    fact={"near_battle_standard": "bool"},  # true or false, as measured
)
def hold_your_ground(battle: Battle, unit: Unit) -> bool:
    """Units within 12 inches of their Battle Standard Bearer re-roll failed Ld tests, unless the bearer flees."""
    bearer = next(
        (u for u in battle.units.values() if u.side == unit.side and u.alive and u.has("battle_standard_bearer")), None
    )
    if bearer is None or bearer.state == "falling_back":
        return False
    return bearer is unit or unit.notes.get("near_battle_standard") is True


# Every test a unit may have due, in the rulebook's words.
# The sources of casualties the Panic rules name (wfb8.panic.heavy_casualties: "shooting, magic, a
# war machine misfire, a miscast, Dangerous terrain"), Stand and Shoot, and close combat.
CAUSES = {
    "shooting": "shooting",
    "magic": "magic",
    "misfire": "a war machine misfire",
    "miscast": "a miscast",
    "dangerous_terrain": "Dangerous terrain",
    STAND_AND_SHOOT: "Stand and Shoot",
    "close_combat": "close combat",
}

TESTS = {"panic": "Panic test", "break": "Break test", "rally": "Rally test", "flee": "Flee roll"}


# What a unit's notes hold: foes (`set_foes`), charging (`charging`), broke_in (a `phase_window`) and
# near_battle_standard (the fact as stated).
NOTE_TYPES: dict[str, object] = {
    "foes": tuple[str, ...],
    "charging": list[str],
    "broke_in": list[int | str | None],
    "near_battle_standard": FactValue,
    NO_ENEMY_LEFT: bool,  # wfb8.multi.no_more_foes: out of the combat since its last foe went
}


class Wfb8(Ruleset):
    id = "wfb8"
    version = "1"
    listing_order = 30  # where `morale rulesets` has always listed it
    game_systems = r"fantasy.*\b8(th)?\b|\b8(th)?\b.*fantasy"  # as BSData names it
    title = "Warhammer Fantasy Battle 8th edition"
    phases = PHASES
    phase_of = PHASE_OF
    unit_types = FLEE_DICE
    parameters = PARAMETERS
    restrictions = RESTRICTIONS
    state_names = STATE_NAMES
    combat_detail = frozenset({"ranks", "unit_bonus", "left_combat"})
    tests = TESTS
    casualty_causes = CAUSES
    note_types = NOTE_TYPES

    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        super().check_unit(battle, event)
        if event.ld is None:
            raise Refusal("a WFB unit needs its Leadership (ld) for Panic, Break and Rally tests", field="ld")
        if "battle_standard_bearer" in event.special_rules and any(
            u.side == event.side and u.has("battle_standard_bearer") for u in battle.units.values()
        ):
            raise Refusal(f"{event.side} already has its Battle Standard Bearer", rule=hold_your_ground.id)

    def _threshold(self, battle: Battle, key: str) -> int:
        return int(self.param(battle, key))

    # -- which tests a unit takes ------------------------------------------------------------------
    def on_due(self, battle: Battle, due: DueTest) -> Decided | None:
        unit = battle.units[due.unit]
        why = panic_exemption(unit) if due.test == "panic" else ""
        if why:
            return [self.not_taken(due, panic_exemption.id, due.caused_by, why)]
        if due.test in ("panic", "break") and unbreakable(unit):
            return [self.not_taken(due, break_test.id, due.caused_by, "Unbreakable")]
        return None

    def panic(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...]) -> Decided:
        return self.require(battle, unit, "panic", trigger, caused_by)

    # -- casualties ---------------------------------------------------------------------------------
    def check_casualties(self, battle: Battle, unit: Unit, event: CasualtiesSuffered) -> None:
        if from_stand_and_shoot(event) and "charging" not in unit.notes:
            raise Refusal(
                f"{unit.id} declared no charge this phase: no Stand and Shoot was aimed at it",
                rule=from_stand_and_shoot.id,
            )

    def on_casualties(self, battle: Battle, unit: Unit, event: CasualtiesSuffered, seq: int) -> Decided:
        """Tested immediately after the source of the casualties is resolved (each casualty event)."""
        if not unit.alive:
            return self.leaves_combat(battle, unit, (seq,))
        if not battle.phase_open or not heavy_casualties(unit, self._threshold(battle, "panic_threshold_percent")):
            return ()
        trigger = from_stand_and_shoot.id if from_stand_and_shoot(event) else heavy_casualties.id
        return self.panic(battle, unit, trigger, tuple(unit.phase_losses))

    # -- facts from the table -----------------------------------------------------------------------
    def check_fact(self, battle: Battle, event: TableFactRecorded) -> None:
        unit = battle.units[event.unit]
        if event.fact in ("friend_destroyed_within_6", "friend_broke_within_6", "friend_fled_through"):
            self._check_friend(battle, unit, event)
        elif event.fact == "fled_off_table":
            if event.value is not True:
                raise Refusal("fled_off_table is recorded when it happens, with value true", field="value")
            if unit.state != "falling_back":
                raise Refusal(f"{unit.id} is not fleeing (it is {unit.state})", rule=self.flee_move.id)
        elif event.fact == "near_battle_standard":
            if not isinstance(event.value, bool):
                raise Refusal("near_battle_standard is true or false, as measured", field="value")
        else:
            self._check_contact(battle, unit, event.value)

    def _check_friend(self, battle: Battle, unit: Unit, event: TableFactRecorded) -> None:
        """The friend a Panic cause names: another unit of the side, in the state the cause needs."""
        friend = battle.units.get(event.value) if isinstance(event.value, str) else None
        if friend is None or friend is unit or friend.side != unit.side:
            raise Refusal(f"{event.fact} names another unit of {unit.side} (got {event.value!r})", field="value")
        cited = self.facts[event.fact]
        if event.fact == "friend_destroyed_within_6" and not (friend.state == "destroyed" and friend.phase_losses):
            raise Refusal(f"{friend.id} was not destroyed this phase", rule=cited)
        if event.fact == "friend_broke_within_6" and friend.notes.get("broke_in") != list(self.phase_window(battle)):
            raise Refusal(f"{friend.id} did not break from a combat this phase", rule=cited)
        if event.fact == "friend_fled_through":
            if friend.state != "falling_back":
                raise Refusal(f"{friend.id} is not fleeing", rule=cited)
            if any(t.test == "flee" for t in battle.due_for(friend.id)):
                raise Refusal(f"{friend.id} has not made its flee move yet: the test comes after it", rule=cited)

    def _check_contact(self, battle: Battle, unit: Unit, value: object) -> None:
        """in_close_combat: an enemy now in base contact, or false when the unit is out of its combat."""
        if value is False:
            if not engaged(unit):
                raise Refusal(f"{unit.id} is not in close combat", field="value")
            return
        enemy = battle.units.get(value) if isinstance(value, str) else None
        if enemy is None or enemy.side == unit.side or not enemy.alive:
            raise Refusal("in_close_combat names an enemy unit now in base contact, or is false", field="value")
        for fighter in (unit, enemy):
            if fighter.state == "falling_back":
                raise Refusal(f"{fighter.id} is fleeing and fights no one", rule=self.flee_move.id)

    def on_fact(self, battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
        # Not every clause that answers a fact reads it as (battle, event, seq): each is sent its way here.
        unit = battle.units[event.unit]
        match event.fact:
            case "friend_destroyed_within_6":
                return self.friend_destroyed(battle, unit, seq)
            case "friend_broke_within_6":
                return self.friend_breaks(battle, unit, seq)
            case "friend_fled_through":
                return self.fled_through(battle, unit, seq)
            case "fled_off_table":
                return self.flees_off_table(battle, unit, seq)
            case "near_battle_standard":
                return [
                    Noted(
                        unit=unit.id,
                        rule=hold_your_ground.id,
                        caused_by=(seq,),
                        notes={"near_battle_standard": event.value},
                    )
                ]
        if event.value is False:
            return self.out_of_combat(battle, unit, (seq,))
        return self.locked_in_combat(battle, unit, battle.units[str(event.value)], (seq,))

    @clause("wfb8.panic.friend_destroyed", fact={"friend_destroyed_within_6": "friend"})
    def friend_destroyed(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """A friendly unit destroyed within 6 inches: Panic test."""
        return self.panic(battle, unit, self.friend_destroyed.id, (seq,))

    @clause("wfb8.panic.friend_breaks", fact={"friend_broke_within_6": "friend"})
    def friend_breaks(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """A friendly unit breaking from combat within 6 inches (measured before it flees): Panic test."""
        return self.panic(battle, unit, self.friend_breaks.id, (seq,))

    @clause("wfb8.panic.fled_through", fact={"friend_fled_through": "friend"})
    def fled_through(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """Friends fleeing through the unit: Panic test, after the move."""
        return self.panic(battle, unit, self.fled_through.id, (seq,))

    def flees_off_table(self, battle: Battle, unit: Unit, seq: int) -> Decided:
        """`flee_move`: a fleeing unit that moves off the table edge is out of the battle."""
        return self.remove(battle, unit, "flee_off_table", (seq,))

    # -- close combat -------------------------------------------------------------------------------
    def locked_in_combat(self, battle: Battle, unit: Unit, enemy: Unit, caused_by: tuple[int, ...]) -> Decided:
        for fighter, other in ((unit, enemy), (enemy, unit)):
            if not engaged(fighter):
                yield enters_combat(fighter.id, caused_by)
            yield set_foes(fighter, (*foes(fighter), other.id), panic_exemption.id, caused_by)
            yield from self.panic_tests_lapse(battle, fighter, caused_by)

    def out_of_combat(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        """in_close_combat false: the unit is out of its combat, and takes Panic tests again."""
        yield from self.leaves_combat(battle, unit, caused_by)
        yield EngagementChanged(unit=unit.id, rule=panic_exemption.id, caused_by=caused_by, engaged=False)

    def panic_tests_lapse(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        """`panic_exemption` holds when a Panic test would be taken as well as when it falls due: a
        unit that flees (failing another test first) or is caught in a combat before rolling for a
        Panic test still due does not take it."""
        for due in battle.due_for(unit.id):
            if due.test == "panic" and (why := panic_exemption(unit)):
                yield self.withdraw(due, panic_exemption.id, caused_by, why)

    def leaves_combat(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        """A unit that flees or is gone is out of its combat; a foe with no enemy left there has no more
        foes (`no_more_foes`): it counts as having won and acts normally."""
        yield set_foes(unit, (), no_more_foes.id, caused_by)
        for other in battle.units.values():
            if unit.id in foes(other):
                yield set_foes(other, tuple(f for f in foes(other) if f != unit.id), no_more_foes.id, caused_by)
                if not engaged(other):
                    yield from foes_gone(other.id, caused_by)

    def check_charge(self, battle: Battle, event: ChargeDeclared) -> None:
        charger = battle.units[event.charger]
        if not (battle.phase_open and battle.phase == "movement" and charger.side == battle.active_side):
            raise Refusal(f"{charger.id} can charge only in its own side's Movement phase", field="charger")
        if charger.state == "falling_back":
            raise Refusal(f"{charger.id} is fleeing and can do nothing but flee", rule=self.flee_move.id)
        if charger.restricted("rallied_this_turn"):
            raise Refusal(f"{charger.id} rallied this turn and cannot move", rule=self.rally_tests_due.id)
        if engaged(charger):
            raise Refusal(f"{charger.id} is already in close combat", field="charger")

    def on_charge(self, battle: Battle, event: ChargeDeclared, seq: int) -> Decided:
        # The charge is declared now; the chargers reach their targets at the end of the Movement phase,
        # after the targets' reactions (a Stand and Shoot may make the charger flee first).
        yield self.charging(event.charger, [*event.in_range], (seq,))

    @staticmethod
    def charging(unit_id: str, targets: list[str] | None, caused_by: tuple[int, ...]) -> Noted:
        """The targets in range of the unit's charge (None: it charges no more), until the charge reaches
        them (`locked_in_combat`) or the charger flees. A Stand and Shoot (`from_stand_and_shoot`) is aimed
        only at a charger."""
        return Noted(unit=unit_id, rule=panic_exemption.id, caused_by=caused_by, notes={"charging": targets})

    def on_phase_ended(self, battle: Battle, seq: int) -> Decided:
        if battle.phase == "close_combat":
            yield from self.rounds_over(battle, seq)
        if battle.phase != "movement":
            return
        for charger in battle.units.values():
            reached = charger.notes.get("charging", [])
            if "charging" in charger.notes:
                yield self.charging(charger.id, None, (seq,))
            if charger.state == "falling_back" or not charger.alive:
                continue
            for target_id in reached:  # type: ignore[attr-defined]  # a list of unit ids, as `charging` notes it
                target = battle.units[target_id]
                if target.alive and target.state != "falling_back":
                    yield from self.locked_in_combat(battle, charger, target, (seq,))

    @staticmethod
    def rounds_over(battle: Battle, seq: int) -> Decided:
        """The Close Combat phase is over: the units the engine freed (`no_more_foes`) are no longer
        remembered as such, so a later combat report may bring them into a fight again."""
        for unit in battle.units.values():
            if freed(unit):
                yield Noted(unit=unit.id, rule=no_more_foes.id, caused_by=(seq,), notes={NO_ENEMY_LEFT: None})

    def check_combat(self, battle: Battle, event: CombatResolved) -> None:
        if not (battle.phase_open and battle.phase == "close_combat"):
            raise Refusal("close combats are resolved in a Close Combat phase", field="type")
        for side, enemy in ((event.sides[0], event.sides[1]), (event.sides[1], event.sides[0])):
            for unit_id in side.units:
                if battle.units[unit_id].state == "falling_back":
                    raise Refusal(f"{unit_id} is fleeing and can do nothing but flee", rule=self.flee_move.id)
                # Who fights whom is the engine's to know: a unit locked with other foes is in their combat.
                fighting = foes(battle.units[unit_id])
                if fighting and not set(fighting) & set(enemy.units):
                    raise Refusal(
                        f"{unit_id} is in close combat with {', '.join(fighting)}, none of whom is in this combat",
                        field="units",
                    )
                # ...and one combat is resolved whole: a foe left out would keep fighting a unit that,
                # by this report, no longer fights it.
                left_out = [f for f in fighting if f not in enemy.units]
                if left_out:
                    raise Refusal(
                        f"{left_out[0]} is in close combat with {unit_id} but is not in this combat report",
                        field="units",
                    )

    def on_combat(self, battle: Battle, event: CombatResolved, seq: int) -> Decided:
        # The round is scored, and who tests decided, from the battle as the round left it: before the
        # report's own changes to who fights whom.
        scores = [combat_score(side, battle.units) for side in event.sides]
        lost = 0 if scores[0] < scores[1] else 1
        loser, winner = event.sides[lost], event.sides[1 - lost]
        margin = abs(scores[0] - scores[1])
        tests = {
            unit_id: steadfast(battle.units[unit_id], loser, winner, battle.units)
            for unit_id in loser.units
            if not no_more_foes(battle.units[unit_id], loser)
        }
        yield from self._after_the_round(battle, event, (seq,))
        if scores[0] == scores[1]:
            return  # a draw: nobody tests
        for unit_id in loser.units:
            unit = battle.units[unit_id]
            if unit_id not in tests:
                yield TestNotTaken(
                    unit=unit_id, rule=no_more_foes.id, caused_by=(seq,), test="break", trigger=break_test.id
                )
                continue
            modifier = break_modifier(margin, tests[unit_id])
            yield from self.require(battle, unit, "break", break_test.id, (seq,), modifiers=(modifier,))

    def _after_the_round(self, battle: Battle, event: CombatResolved, caused_by: tuple[int, ...]) -> Decided:
        """Who still fights whom: the units that left the combat are out of it, the rest face the enemy
        units still in it. A unit the engine saw lose its last foe this phase (`freed`) stays out, listed
        in `left_combat` or not: the report cannot give it foes again."""
        for side, enemy in ((event.sides[0], event.sides[1]), (event.sides[1], event.sides[0])):
            enemies = tuple(still_in_combat(enemy, battle.units))
            out = out_of_the_combat(side, battle.units)
            for unit_id in side.units:
                unit = battle.units[unit_id]
                if freed(unit) and unit_id not in side.left_combat:
                    continue  # out of the combat since its last foe went (`leaves_combat` said so)
                was_engaged = engaged(unit)
                yield set_foes(unit, () if unit_id in out else enemies, still_in_combat.id, caused_by)
                if unit_id in out:
                    yield EngagementChanged(
                        unit=unit_id,
                        rule=still_in_combat.id,
                        caused_by=caused_by,
                        engaged=False,
                        detail="lost base contact: its wounds count, its other bonuses do not",
                    )
                elif not enemies and was_engaged:
                    yield has_no_more_foes(unit_id, caused_by)
                elif enemies and not was_engaged:
                    yield enters_combat(unit_id, caused_by)

    # -- rallying -----------------------------------------------------------------------------------
    def on_phase_started(self, battle: Battle, seq: int) -> Decided:
        return self.rally_tests_due(battle, seq) if battle.phase == "movement" else ()

    @clause(
        "wfb8.rally.test",
        phrase={"regrouped": "rallies", "falling_back": "fails to rally and flees again", "steady": "is steady again"},
    )
    def rally_tests_due(self, battle: Battle, seq: int) -> Decided:
        """In the Compulsory Moves, each fleeing unit of the side whose turn it is takes an Ld test to
        rally, but not in the turn it began to flee; with 25% or less of its starting models only a
        double 1 rallies it. Passed: it rallies (stops and reforms; cannot move or shoot that turn) and is
        steady from the next turn. Failed: it flees again."""
        rule = self.rally_tests_due.id
        for unit in battle.living.values():
            if unit.side != battle.active_side or unit.state != "falling_back":
                continue
            if unit.restricted("fled_this_turn"):
                yield TestNotTaken(unit=unit.id, rule=rule, caused_by=(seq,), test="rally", trigger=rule)
            else:
                yield from self.require(battle, unit, "rally", rule, (seq,))

    def rallies(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        end = self.end_of_player_turn(battle, battle.active_side or unit.side)
        yield Scheduled(unit=unit.id, rule=self.rally_tests_due.id, caused_by=caused_by, move="end_rally", when=end)
        yield self.graph.move(unit, "rally", caused_by)
        yield self._restrict(battle, unit, "rallied_this_turn", caused_by)

    def _restrict(self, battle: Battle, unit: Unit, name: str, caused_by: tuple[int, ...]) -> RestrictionApplied:
        """Until the end of this player turn."""
        end = self.end_of_player_turn(battle, battle.active_side or unit.side)
        return self.restrict(battle, unit, name, self.rally_tests_due.id, end, caused_by)

    # -- fleeing ------------------------------------------------------------------------------------
    def flees(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...], cite: str = "") -> Decided:
        """A failed Panic or Break test: the unit flees at once, out of any combat and any charge it made."""
        yield self.graph.move(unit, trigger, caused_by, cite)
        yield from self.panic_tests_lapse(battle, unit, caused_by)
        yield from self.leaves_combat(battle, unit, caused_by)
        if "charging" in unit.notes:
            yield self.charging(unit.id, None, caused_by)
        yield self._restrict(battle, unit, "fled_this_turn", caused_by)
        yield from self.flee_move_due(battle, unit, caused_by)

    def flee_move_due(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
        return self.require(battle, unit, "flee", self.flee_move.id, caused_by, dice=FLEE_DICE[unit.unit_type])

    @clause("wfb8.flee.move", fact="fled_off_table", phrase="flees off the table")
    def flee_move(self, unit: Unit, due: DueTest, dice: tuple[int, ...], caused_by: tuple[int, ...]) -> Moved:
        """A fleeing unit moves 2D6 inches directly away; off the table edge it is out of the battle
        (`fled_off_table`, `flees_off_table`)."""
        return Moved(unit=unit.id, rule=self.flee_move.id, caused_by=caused_by, inches=sum(dice), dice=dice)

    # -- dice ---------------------------------------------------------------------------------------
    def target(self, battle: Battle, due: DueTest) -> int | None:
        if due.test not in ("panic", "break", "rally"):
            return None
        unit = battle.units[due.unit]
        if due.test == "rally" and rallies_only_on_double_one(unit, self._threshold(battle, "rally_threshold_percent")):
            return 2  # 2D6 at most 2: a double 1
        return (unit.ld or 0) + sum(m.value for m in due.modifiers if not m.ignored_by)

    def result_of(self, battle: Battle, due: DueTest, dice: tuple[int, ...]) -> tuple[str, bool] | None:
        """Panic, Break and Rally tests pass or fail as `evaluate` decides them (Insane Courage and the
        double 1 to rally included); a failure the Battle Standard lets the unit re-roll is a re-roll.
        A flee move neither passes nor fails: no odds."""
        if due.test not in ("panic", "break", "rally"):
            return None
        unit = battle.units[due.unit]
        if self.evaluate(battle, unit, due, dice).passed:
            return ("pass", True)
        if not due.reroll and hold_your_ground(battle, unit):
            return ("re-roll", False)
        return ("fail", False)

    def evaluate(self, battle: Battle, unit: Unit, due: DueTest, dice: tuple[int, ...]) -> TestResolved:
        target = self.target(battle, due) or 0
        if due.test == "panic":
            return panic_test(unit, due, dice, target)
        if due.test == "break":
            return break_test(unit, due, dice, target)
        result = leadership_result(unit, due, dice, target, rule=self.rally_tests_due.id)
        if rallies_only_on_double_one(unit, self._threshold(battle, "rally_threshold_percent")):
            left = f"{unit.models} of {unit.starting_models} models left"
            return replace(result, detail=f"{left}: 25% or less, only a double 1 rallies")
        return result

    def resolve(self, battle: Battle, due: DueTest, dice: tuple[int, ...], seq: int) -> Decided:
        unit = battle.units[due.unit]
        caused_by = (*due.caused_by, seq)
        if due.test == "flee":
            yield self.flee_move(unit, due, dice, caused_by)
            return
        result = replace(self.evaluate(battle, unit, due, dice), caused_by=caused_by)
        if not result.passed and not due.reroll and hold_your_ground(battle, unit):
            detail = "; ".join(filter(None, [result.detail, "Hold Your Ground: the Battle Standard is near, re-roll"]))
            yield replace(result, detail=detail)
            yield from self.require(
                battle, unit, due.test, due.rule, caused_by, modifiers=due.modifiers, reroll=hold_your_ground.id
            )
            return
        yield result
        yield from self._consequences(battle, unit, due, result, caused_by)

    def _consequences(
        self, battle: Battle, unit: Unit, due: DueTest, result: TestResolved, caused_by: tuple[int, ...]
    ) -> Decided:
        if due.test == "rally":
            if result.passed:
                yield from self.rallies(battle, unit, caused_by)
            else:
                yield self.graph.move(unit, "fail_rally", caused_by)
                yield from self.flee_move_due(battle, unit, caused_by)
            return
        if result.passed:
            return
        if due.test == "break":
            # Noted for `friend_breaks`: the friends of a unit that broke this phase take Panic tests.
            yield Noted(
                unit=unit.id,
                rule=break_test.id,
                caused_by=caused_by,
                notes={"broke_in": list(self.phase_window(battle))},
            )
            yield from self.flees(battle, unit, "fail_break", caused_by)
            return
        cite = from_stand_and_shoot.id if due.rule == from_stand_and_shoot.id else ""
        yield from self.flees(battle, unit, "fail_panic", caused_by, cite)

    def implied_restrictions(self, unit: Unit) -> list[tuple[str, str]]:
        implied: list[tuple[str, str]] = []
        if unit.state == "falling_back":
            implied += [
                ("flees: can do nothing but flee", self.flee_move.id),
                ("takes no Panic tests while fleeing", panic_exemption.id),
            ]
        if engaged(unit):
            implied.append(
                (f"in close combat with {', '.join(foes(unit))}: Break tests, not Panic tests", panic_exemption.id)
            )
        if unit.notes.get("near_battle_standard") is True:
            implied.append(("within 12 inches of the Battle Standard: re-rolls failed Ld tests", hold_your_ground.id))
        return implied

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
