"""Warhammer Fantasy Battle 8th edition: Panic, Break tests, fleeing and rallying, multiple combats
(each clause in its own words in `clauses.toml`).

Tables first, then one function per clause, each under the rule ID it carries out. Who fights whom,
the scoring of a round and the multiple-combat clauses are in `combat.py`.
"""

from __future__ import annotations

from msgspec.structs import replace

from morale.events.types import (
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    TableFactRecorded,
    UnitJoined,
)

from ...machine import StateGraph
from ...outcomes import (
    EngagementChanged,
    Moved,
    Outcome,
    TestNotTaken,
    TestResolved,
)
from ...rules import DESTROYED, TEST_FIRST, Refusal, rule
from ...state import Battle, DueTest, Pending, Unit
from ..base import Ruleset, leadership_result
from .combat import (
    break_modifier,
    combat_score,
    engaged,
    enters_combat,
    foes,
    has_no_more_foes,
    no_more_foes,
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

# wfb8.flee.move: dice for a flee move, by unit type (2D6 for every type in the digest).
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

SPECIAL_RULES = {
    "stubborn": "wfb8.break.test",
    "unbreakable": "wfb8.break.test",
    "battle_standard_bearer": "wfb8.hold_your_ground",
}

FACTS = {
    "friend_destroyed_within_6": "wfb8.panic.friend_destroyed",  # value: the friend destroyed
    "friend_broke_within_6": "wfb8.panic.friend_breaks",  # value: the friend that broke
    "friend_fled_through": "wfb8.panic.fled_through",  # value: the fleeing friend
    "fled_off_table": "wfb8.flee.move",
    "near_battle_standard": "wfb8.hold_your_ground",  # value: true or false, as measured
    "in_close_combat": "wfb8.panic.exempt",  # value: an enemy now in base contact, or false
}

DECISIONS = {TEST_FIRST: "wfb8.panic.order"}

# wfb8.panic.once_per_phase: the engine marks each unit that takes a Panic test and, for the rest of
# the phase, gives a second cause no test and refuses dice for one.
ONCE_PER_PHASE = {"panic": "wfb8.panic.once_per_phase"}
# wfb8.panic.order: several units of one side must test at once: their player chooses the order.
ORDERED_TESTS = {"panic": "wfb8.panic.order"}

PARAMETERS: dict[str, object] = {
    "panic_threshold_percent": 25,  # wfb8.panic.heavy_casualties
    "rally_threshold_percent": 25,  # wfb8.rally.test
}

# The `cause` of casualties that a charged unit's Stand and Shoot inflicts on its charger.
STAND_AND_SHOOT = "stand_and_shoot"

RESTRICTIONS = {
    "fled_this_turn": "began to flee this turn: cannot rally this turn",
    "rallied_this_turn": "rallied: stops and reforms; cannot move or shoot this turn",
}

PHRASES = {
    "wfb8.panic.test": "panics and flees",
    "wfb8.panic.stand_and_shoot": "panics under the Stand and Shoot and flees, back out of the shooters' range",
    "wfb8.break.test": "breaks and flees",
    "wfb8.flee.move": "flees off the table",
}
STATE_WORDS = {"falling_back": "flees", "regrouped": "rallies", "steady": "is steady again"}

ALIVE = ["steady", "falling_back", "regrouped"]
GRAPH = StateGraph(
    [
        {"trigger": "fail_panic", "source": ["steady", "regrouped"], "dest": "falling_back", "rule": "wfb8.panic.test"},
        {"trigger": "fail_break", "source": ["steady", "regrouped"], "dest": "falling_back", "rule": "wfb8.break.test"},
        {"trigger": "rally", "source": "falling_back", "dest": "regrouped", "rule": "wfb8.rally.test"},
        {"trigger": "fail_rally", "source": "falling_back", "dest": "=", "rule": "wfb8.rally.test"},
        {"trigger": "end_rally", "source": "regrouped", "dest": "steady", "rule": "wfb8.rally.test"},
        {"trigger": "flee_off_table", "source": "falling_back", "dest": "dispersed", "rule": "wfb8.flee.move"},
        {"trigger": "lose_last_model", "source": ALIVE, "dest": "destroyed", "rule": DESTROYED},
    ]
)  # fmt: skip


# -- Leadership tests -----------------------------------------------------------------------------
@rule("wfb8.panic.test")
def panic_test(unit: Unit, due: DueTest, dice: tuple[int, ...], target: int) -> TestResolved:
    """A Panic test is a normal Leadership test: passed, nothing happens; failed, the unit flees."""
    return leadership_result(unit, due, dice, target, rule="wfb8.panic.test")


@rule("wfb8.panic.exempt")
def panic_exemption(unit: Unit) -> str:
    """No Panic test for a unit (1) in close combat, where Break tests govern it, or (2) fleeing. The third
    case, (3) a unit that has already tested this phase, is wfb8.panic.once_per_phase. Returns why, or ""."""
    if engaged(unit):
        return "in close combat: Break tests govern it there"
    if unit.state == "falling_back":
        return "fleeing"
    return ""


@rule("wfb8.panic.heavy_casualties")
def heavy_casualties(unit: Unit, threshold_percent: int) -> bool:
    """25% or more of the models it had at the start of the phase, lost in that phase (21 models: 6)."""
    if not unit.phase_losses or unit.models_at_phase_start == 0:
        return False
    lost = unit.models_at_phase_start - unit.models
    return lost * 100 >= threshold_percent * unit.models_at_phase_start


@rule("wfb8.panic.stand_and_shoot")
def from_stand_and_shoot(event: CasualtiesSuffered) -> bool:
    """Casualties a charged unit's Stand and Shoot inflicts on its charger count too, and the test is
    taken at once: the charger may flee from out of the shooters' range."""
    return event.cause == STAND_AND_SHOOT


def unbreakable(unit: Unit) -> bool:
    """wfb8.break.test: Unbreakable units never test and never flee (so they take no Panic test either)."""
    return unit.has("unbreakable")


@rule("wfb8.break.test")
def break_test(unit: Unit, due: DueTest, dice: tuple[int, ...], target: int) -> TestResolved:
    """The loser's Leadership minus the difference in combat result (unmodified when Steadfast);
    a double 1, Insane Courage, always passes. Failed: the unit flees."""
    result = leadership_result(unit, due, dice, target, rule="wfb8.break.test")
    if dice == (1, 1):
        return replace(result, passed=True, detail="Insane Courage: a double 1 always passes")
    return result


def rallies_only_on_double_one(unit: Unit, threshold_percent: int) -> bool:
    """wfb8.rally.test: with 25% or less of its starting models a unit rallies only on a double 1."""
    return unit.models * 100 <= threshold_percent * unit.starting_models


@rule("wfb8.hold_your_ground")
def hold_your_ground(battle: Battle, unit: Unit) -> bool:
    """Units within 12 inches of their Battle Standard Bearer re-roll failed Ld tests, unless the bearer flees."""
    bearer = next(
        (u for u in battle.units.values() if u.side == unit.side and u.alive and u.has("battle_standard_bearer")), None
    )
    if bearer is None or bearer.state == "falling_back":
        return False
    return bearer is unit or unit.notes.get("near_battle_standard") is True


class Wfb8(Ruleset):
    id = "wfb8"
    version = "1"
    title = "Warhammer Fantasy Battle 8th edition"
    phases = PHASES
    phase_of = PHASE_OF
    graph = GRAPH
    unit_types = FLEE_DICE
    special_rules = SPECIAL_RULES
    facts = FACTS
    decisions = DECISIONS
    parameters = PARAMETERS
    restrictions = RESTRICTIONS
    phrases = PHRASES
    state_words = STATE_WORDS
    once_per_phase = ONCE_PER_PHASE
    ordered_tests = ORDERED_TESTS
    combat_detail = frozenset({"ranks", "unit_bonus", "left_combat"})

    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        super().check_unit(battle, event)
        if event.ld is None:
            raise Refusal("a WFB unit needs its Leadership (ld) for Panic, Break and Rally tests", field="ld")
        if "battle_standard_bearer" in event.special_rules and any(
            u.side == event.side and u.has("battle_standard_bearer") for u in battle.units.values()
        ):
            raise Refusal(f"{event.side} already has its Battle Standard Bearer", rule="wfb8.hold_your_ground")

    def _threshold(self, battle: Battle, key: str) -> int:
        return int(self.param(battle, key))  # type: ignore[call-overload]

    # -- which tests a unit takes ------------------------------------------------------------------
    def on_due(self, battle: Battle, due: DueTest) -> list[Outcome] | None:
        unit = battle.units[due.unit]
        why = panic_exemption(unit) if due.test == "panic" else ""
        if why:
            return [self.not_taken(due, "wfb8.panic.exempt", due.caused_by, why)]
        if due.test in ("panic", "break") and unbreakable(unit):
            return [self.not_taken(due, "wfb8.break.test", due.caused_by, "Unbreakable")]
        return None

    def panic(self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...]) -> list[Outcome]:
        return self.require(battle, unit, "panic", trigger, caused_by)

    # -- casualties ---------------------------------------------------------------------------------
    def check_casualties(self, battle: Battle, unit: Unit, event: CasualtiesSuffered) -> None:
        if from_stand_and_shoot(event) and "charging" not in unit.notes:
            raise Refusal(
                f"{unit.id} declared no charge this phase: no Stand and Shoot was aimed at it",
                rule="wfb8.panic.stand_and_shoot",
            )

    def on_casualties(self, battle: Battle, unit: Unit, event: CasualtiesSuffered, seq: int) -> list[Outcome]:
        """Tested immediately after the source of the casualties is resolved (each casualty event)."""
        if not unit.alive:
            return self.leaves_combat(battle, unit, (seq,))
        if not battle.phase_open or not heavy_casualties(unit, self._threshold(battle, "panic_threshold_percent")):
            return []
        trigger = "wfb8.panic.stand_and_shoot" if from_stand_and_shoot(event) else "wfb8.panic.heavy_casualties"
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
                raise Refusal(f"{unit.id} is not fleeing (it is {unit.state})", rule="wfb8.flee.move")
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
        cited = FACTS[event.fact]
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
                raise Refusal(f"{fighter.id} is fleeing and fights no one", rule="wfb8.flee.move")

    def on_fact(self, battle: Battle, event: TableFactRecorded, seq: int) -> list[Outcome]:
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
                unit.notes["near_battle_standard"] = event.value
                return []
        if event.value is False:
            return [
                *self.leaves_combat(battle, unit, (seq,)),
                EngagementChanged(unit=unit.id, rule="wfb8.panic.exempt", caused_by=(seq,), engaged=False),
            ]
        return self.locked_in_combat(battle, unit, battle.units[str(event.value)], (seq,))

    @rule("wfb8.panic.friend_destroyed")
    def friend_destroyed(self, battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
        """A friendly unit destroyed within 6 inches: Panic test."""
        return self.panic(battle, unit, "wfb8.panic.friend_destroyed", (seq,))

    @rule("wfb8.panic.friend_breaks")
    def friend_breaks(self, battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
        """A friendly unit breaking from combat within 6 inches (measured before it flees): Panic test."""
        return self.panic(battle, unit, "wfb8.panic.friend_breaks", (seq,))

    @rule("wfb8.panic.fled_through")
    def fled_through(self, battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
        """Friends fleeing through the unit: Panic test, after the move."""
        return self.panic(battle, unit, "wfb8.panic.fled_through", (seq,))

    def flees_off_table(self, battle: Battle, unit: Unit, seq: int) -> list[Outcome]:
        """wfb8.flee.move: a fleeing unit that moves off the table edge is out of the battle."""
        return self.remove(battle, unit, "flee_off_table", (seq,))

    # -- close combat -------------------------------------------------------------------------------
    def locked_in_combat(self, battle: Battle, unit: Unit, enemy: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
        caused: list[Outcome] = []
        for fighter, other in ((unit, enemy), (enemy, unit)):
            if not engaged(fighter):
                caused.append(enters_combat(fighter.id, caused_by))
            set_foes(fighter, (*foes(fighter), other.id))
            caused += self.panic_tests_lapse(battle, fighter, caused_by)
        return caused

    def panic_tests_lapse(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
        """wfb8.panic.exempt holds when a Panic test would be taken as well as when it falls due: a
        unit that flees (failing another test first) or is caught in a combat before rolling for a
        Panic test still due does not take it."""
        return [
            self.withdraw(battle, due, "wfb8.panic.exempt", caused_by, why)
            for due in battle.due_for(unit.id)
            if due.test == "panic" and (why := panic_exemption(unit))
        ]

    def leaves_combat(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
        """A unit that flees or is gone is out of its combat; a foe with no enemy left there has no more
        foes (wfb8.multi.no_more_foes): it counts as having won and acts normally."""
        caused: list[Outcome] = []
        set_foes(unit, ())
        for other in battle.units.values():
            if unit.id in foes(other):
                set_foes(other, tuple(f for f in foes(other) if f != unit.id))
                if not engaged(other):
                    caused.append(has_no_more_foes(other.id, caused_by))
        return caused

    def check_charge(self, battle: Battle, event: ChargeDeclared) -> None:
        charger = battle.units[event.charger]
        if not (battle.phase_open and battle.phase == "movement" and charger.side == battle.active_side):
            raise Refusal(f"{charger.id} can charge only in its own side's Movement phase", field="charger")
        if charger.state == "falling_back":
            raise Refusal(f"{charger.id} is fleeing and can do nothing but flee", rule="wfb8.flee.move")
        if charger.restricted("rallied_this_turn"):
            raise Refusal(f"{charger.id} rallied this turn and cannot move", rule="wfb8.rally.test")
        if engaged(charger):
            raise Refusal(f"{charger.id} is already in close combat", field="charger")

    def on_charge(self, battle: Battle, event: ChargeDeclared, seq: int) -> list[Outcome]:
        # The charge is declared now; the chargers reach their targets at the end of the Movement phase,
        # after the targets' reactions (a Stand and Shoot may make the charger flee first).
        battle.units[event.charger].notes["charging"] = [*event.in_range]
        return []

    def on_phase_ended(self, battle: Battle, seq: int) -> list[Outcome]:
        if battle.phase != "movement":
            return []
        caused: list[Outcome] = []
        for charger in battle.units.values():
            reached = charger.notes.pop("charging", [])
            if charger.state == "falling_back" or not charger.alive:
                continue
            for target_id in reached:  # type: ignore[attr-defined]
                target = battle.units[target_id]
                if target.alive and target.state != "falling_back":
                    caused += self.locked_in_combat(battle, charger, target, (seq,))
        return caused

    def check_combat(self, battle: Battle, event: CombatResolved) -> None:
        if not (battle.phase_open and battle.phase == "close_combat"):
            raise Refusal("close combats are resolved in a Close Combat phase", field="type")
        for side in event.sides:
            for unit_id in side.units:
                if battle.units[unit_id].state == "falling_back":
                    raise Refusal(f"{unit_id} is fleeing and can do nothing but flee", rule="wfb8.flee.move")

    def on_combat(self, battle: Battle, event: CombatResolved, seq: int) -> list[Outcome]:
        caused = self._after_the_round(battle, event, (seq,))
        scores = [combat_score(side) for side in event.sides]
        if scores[0] == scores[1]:
            return caused  # a draw: nobody tests
        lost = 0 if scores[0] < scores[1] else 1
        loser, winner = event.sides[lost], event.sides[1 - lost]
        margin = abs(scores[0] - scores[1])
        for unit_id in loser.units:
            unit = battle.units[unit_id]
            if no_more_foes(unit, loser):
                caused.append(TestNotTaken(unit=unit_id, rule="wfb8.multi.no_more_foes", caused_by=(seq,),
                                           test="break", trigger="wfb8.break.test"))  # fmt: skip
                continue
            modifier = break_modifier(margin, steadfast(unit, loser, winner))
            caused += self.require(battle, unit, "break", "wfb8.break.test", (seq,), modifiers=(modifier,))
        return caused

    def _after_the_round(self, battle: Battle, event: CombatResolved, caused_by: tuple[int, ...]) -> list[Outcome]:
        """Who still fights whom: the units that left the combat are out of it, the rest face the enemy
        units still in it."""
        caused: list[Outcome] = []
        for side, enemy in ((event.sides[0], event.sides[1]), (event.sides[1], event.sides[0])):
            enemies = tuple(still_in_combat(enemy))
            for unit_id in side.units:
                unit = battle.units[unit_id]
                was_engaged = engaged(unit)
                set_foes(unit, () if unit_id in side.left_combat else enemies)
                if unit_id in side.left_combat:
                    caused.append(EngagementChanged(unit=unit_id, rule="wfb8.multi.left_combat", caused_by=caused_by,
                                                    engaged=False, detail="lost base contact: its wounds count, "
                                                    "its other bonuses do not"))  # fmt: skip
                elif not enemies and was_engaged:
                    caused.append(has_no_more_foes(unit_id, caused_by))
                elif enemies and not was_engaged:
                    caused.append(enters_combat(unit_id, caused_by))
        return caused

    # -- rallying -----------------------------------------------------------------------------------
    def on_phase_started(self, battle: Battle, seq: int) -> list[Outcome]:
        return self.rally_tests_due(battle, seq) if battle.phase == "movement" else []

    @rule("wfb8.rally.test")
    def rally_tests_due(self, battle: Battle, seq: int) -> list[Outcome]:
        """In the Compulsory Moves, each fleeing unit of the side whose turn it is takes an Ld test to
        rally, but not in the turn it began to flee; with 25% or less of its starting models only a
        double 1 rallies it. Passed: it rallies (stops and reforms; cannot move or shoot that turn) and is
        steady from the next turn. Failed: it flees again."""
        caused: list[Outcome] = []
        for unit in battle.living.values():
            if unit.side != battle.active_side or unit.state != "falling_back":
                continue
            if unit.restricted("fled_this_turn"):
                caused.append(TestNotTaken(unit=unit.id, rule="wfb8.rally.test", caused_by=(seq,), test="rally",
                                           trigger="wfb8.rally.test"))  # fmt: skip
            else:
                caused += self.require(battle, unit, "rally", "wfb8.rally.test", (seq,))
        return caused

    def rallies(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
        end = self.end_of_player_turn(battle, battle.active_side or unit.side)
        unit.pending.append(Pending(trigger="end_rally", at=end, caused_by=caused_by))
        return [
            self.graph.fire(unit, "rally", caused_by),
            *self._restrict(battle, unit, "rallied_this_turn", caused_by),
        ]

    def _restrict(self, battle: Battle, unit: Unit, name: str, caused_by: tuple[int, ...]) -> list[Outcome]:
        """Until the end of this player turn."""
        end = self.end_of_player_turn(battle, battle.active_side or unit.side)
        return [self.restrict(battle, unit, name, "wfb8.rally.test", end, caused_by)]

    # -- fleeing ------------------------------------------------------------------------------------
    def flees(
        self, battle: Battle, unit: Unit, trigger: str, caused_by: tuple[int, ...], cite: str = ""
    ) -> list[Outcome]:
        """A failed Panic or Break test: the unit flees at once, out of any combat and any charge it made."""
        caused: list[Outcome] = [self.graph.fire(unit, trigger, caused_by, cite)]
        caused += self.panic_tests_lapse(battle, unit, caused_by)
        caused += self.leaves_combat(battle, unit, caused_by)
        unit.notes.pop("charging", None)
        caused += self._restrict(battle, unit, "fled_this_turn", caused_by)
        return caused + self.flee_move_due(battle, unit, caused_by)

    def flee_move_due(self, battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
        return self.require(battle, unit, "flee", "wfb8.flee.move", caused_by, dice=FLEE_DICE[unit.unit_type])

    @rule("wfb8.flee.move")
    def flee_move(self, unit: Unit, due: DueTest, dice: tuple[int, ...], caused_by: tuple[int, ...]) -> Moved:
        """A fleeing unit moves 2D6 inches directly away; off the table edge it is out of the battle
        (`fled_off_table`)."""
        return Moved(unit=unit.id, rule="wfb8.flee.move", caused_by=caused_by, inches=sum(dice), dice=dice)

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
        result = leadership_result(unit, due, dice, target, rule="wfb8.rally.test")
        if rallies_only_on_double_one(unit, self._threshold(battle, "rally_threshold_percent")):
            left = f"{unit.models} of {unit.starting_models} models left"
            return replace(result, detail=f"{left}: 25% or less, only a double 1 rallies")
        return result

    def resolve(self, battle: Battle, due: DueTest, dice: tuple[int, ...], seq: int) -> list[Outcome]:
        unit = battle.units[due.unit]
        caused_by = (*due.caused_by, seq)
        if due.test == "flee":
            return [self.flee_move(unit, due, dice, caused_by)]
        result = replace(self.evaluate(battle, unit, due, dice), caused_by=caused_by)
        if not result.passed and not due.reroll and hold_your_ground(battle, unit):
            detail = "; ".join(filter(None, [result.detail, "Hold Your Ground: the Battle Standard is near, re-roll"]))
            return [
                replace(result, detail=detail),
                *self.require(battle, unit, due.test, due.rule, caused_by, modifiers=due.modifiers,
                              reroll="wfb8.hold_your_ground"),
            ]  # fmt: skip
        return [result, *self._consequences(battle, unit, due, result, caused_by)]

    def _consequences(
        self, battle: Battle, unit: Unit, due: DueTest, result: TestResolved, caused_by: tuple[int, ...]
    ) -> list[Outcome]:
        if due.test == "rally":
            if result.passed:
                return self.rallies(battle, unit, caused_by)
            return [self.graph.fire(unit, "fail_rally", caused_by), *self.flee_move_due(battle, unit, caused_by)]
        if result.passed:
            return []
        if due.test == "break":
            unit.notes["broke_in"] = list(self.phase_window(battle))
            return self.flees(battle, unit, "fail_break", caused_by)
        cite = "wfb8.panic.stand_and_shoot" if due.rule == "wfb8.panic.stand_and_shoot" else ""
        return self.flees(battle, unit, "fail_panic", caused_by, cite)

    def implied_restrictions(self, unit: Unit) -> list[tuple[str, str]]:
        implied: list[tuple[str, str]] = []
        if unit.state == "falling_back":
            implied += [("flees: can do nothing but flee", "wfb8.flee.move"),
                        ("takes no Panic tests while fleeing", "wfb8.panic.exempt")]  # fmt: skip
        if engaged(unit):
            implied.append((f"in close combat with {', '.join(foes(unit))}: Break tests, not Panic tests",
                            "wfb8.panic.exempt"))  # fmt: skip
        if unit.notes.get("near_battle_standard") is True:
            implied.append(
                ("within 12 inches of the Battle Standard: re-rolls failed Ld tests", "wfb8.hold_your_ground")
            )
        return implied


WFB8 = Wfb8()
