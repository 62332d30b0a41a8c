"""General de Brigade (Napoleonic): the Morale Check Test, its results, rally and brigade tests
(each clause in its own words in `clauses.toml`).

The clauses live beside this module, one function per rule ID: `modifiers` (the modifiers),
`triggers` (when a unit tests in the Morale phase, and the notes that excuse it), `results` (the
test procedure, each result and the state graph), `brigade` (the Brigade Morale Test). This class
wires them to the referee's hooks and refuses what the rules forbid.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from morale.events.types import (
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    DiceRolled,
    PlayerDecided,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

from ...apply import Decided
from ...outcomes import DueAmended, Remembered, TestNotTaken, TestResolved
from ...rules import Refusal, clause
from ...state import Battle, DueTest, Point, Unit
from ...view import BattleView
from ..base import Ruleset, TableSpec
from .book import BattleBook, Charge, UnitBook, battle_book, book, remember, remember_battle
from .brigade import brigade_modifiers, lead_unit, resolve_brigade_test
from .modifiers import charged_modifiers, charging_modifiers, check_profile, cover, lost_during_charge
from .neighbours import FLEEING
from .profile import (
    ARTILLERY,
    BUILT_UP,
    CAVALRY,
    CHANGEABLE,
    PHASES,
    UNIT_TYPES,
    GdbProfile,
    formation,
)
from .results import (
    GRAPH,
    Context,
    apply_result,
    becomes_unformed,
    brigade_must_test,
    carries_on,
    caught_by_enemy,
    formed_up,
    forms_up,
    halts,
    loses_melee,
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
from .tables import BrigadeTable, ResultsTable, read_column
from .triggers import (
    MELEE_RESULTS,
    friend_routing,
    lost_three_figures,
    may_not_rally,
    melee_result_stands,
    plan_morale_phase,
    rally_call,
    tested_for_it_last_turn,
)

# The facts a clause reads (each declared with it): within_15cm and beyond_15cm name the other unit
# (a dispersed one: its dispersal point); enemy_in_charge_range, in_melee, enemy_in_built_up_area
# are true or false; melee_result is the result of its melee, from the rulebook's melee table;
# contact_with_enemy: a routing unit touches an enemy; interpenetrated names the retreating friend
# that passed through.
# Facts that feed triggers or modifiers: they stand until changed, and cannot change while the
# Morale phase's tests are being rolled (`plan_morale_phase`).
STANDING_FACTS = ("within_15cm", "beyond_15cm", "enemy_in_charge_range", "in_melee", "enemy_in_built_up_area")
BOOL_FACTS = ("enemy_in_charge_range", "in_melee", "enemy_in_built_up_area", "contact_with_enemy")

RESTRICTIONS = {
    "no_melee": "acts as the player wishes but may not start a melee",
    "halted": "stays where it is, formed; may shoot but not manoeuvre; cavalry fights without its charge bonus",
    "may_not_reform": "may not reform before the next turn's Movement phase",
    "reforming": "reforms this turn: neither moves nor shoots nor changes formation; formed at the end of the "
    "Movement phase",
    "forming_up": "forms up this turn: neither moves nor shoots; formed at the end of the Movement phase",
}

# How the narrative words a result read in the table and a column (not clauses: the clauses declare
# their phrases with them).
RESULT_WORDS = {
    "result:charge": "Charge",
    "result:carry_on": "Carry out orders",
    "result:halt": "Halt",
    "result:waver": "Waver",
    "result:retreat": "Retreat",
    "result:rout": "Rout",
    "result:rally": "Rally",
    "result:fail": "fails to rally",
    "result:holds": "the brigade holds",
    "column:brigade": "Brigade Morale Test",
}

# The book's result states (Отступает, Бежит, Собирается, Колеблется, Рассеяно) for the shared ones.
STATE_NAMES = {
    "steady": "steady",
    "falling_back": "retreating",
    "broken": "routing",
    "regrouped": "rallied, unformed",
    "wavering": "wavering",
    "dispersed": "dispersed",
    "destroyed": "destroyed",
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
    "musketry": "musketry",
    "artillery_fire": "artillery fire",
    "skirmishers": "skirmishers' fire",
    "closing_fire": "closing fire",
    "melee": "melee",
}

TESTS = {
    "charging": "charging test",
    "charged": "charged test",
    "morale": "Morale Check Test",
    "rally": "rally test",
    "brigade": "Brigade Morale Test",
}


NOTE_TYPES: dict[str, object] = {"gdb": UnitBook}  # what a unit's notes hold: its book (`first_notes`)


class Gdb(Ruleset):
    id = "gdb"
    version = "1"
    listing_order = 40  # where `morale rulesets` has always listed it
    title = "General de Brigade"
    phases = PHASES
    shared_turn = True
    graph = GRAPH
    unit_types = UNIT_TYPES
    restrictions = RESTRICTIONS
    profile_type = GdbProfile
    note_types = NOTE_TYPES
    changeable = CHANGEABLE
    tables = TABLES
    state_names = STATE_NAMES
    tests = TESTS
    casualty_causes = CAUSES
    combat_reports = False  # melees are read unit by unit (melee_result)

    def __init__(self) -> None:
        super().__init__()
        self.phrases = {**self.phrases, **RESULT_WORDS}

    def battle_bookkeeping(self) -> BattleBook:
        return BattleBook()

    def first_notes(self, unit: Unit) -> dict[str, object]:
        return {"gdb": UnitBook()}

    def describe_point(self, battle: BattleView, point: Point) -> str:
        turn, _, phase_index = point
        return f"end of the {self.phases[phase_index]} phase of turn {turn}"

    # -- units ------------------------------------------------------------------------------------
    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        super().check_unit(battle, event)
        if event.ld is not None or event.initiative is not None:
            raise Refusal(
                "General de Brigade has no Leadership or Initiative: its tests read a results table",
                field="ld" if event.ld is not None else "initiative",
            )
        check_profile(event.unit_type, event.models, self.read_profile(event.profile), frozenset(event.special_rules))

    def check_unit_change(self, battle: Battle, unit: Unit, event: UnitChanged) -> None:
        super().check_unit_change(battle, unit, event)
        changes = event.changes
        check_profile(unit.unit_type, unit.models, self.read_profile({**unit.profile, **changes}), unit.special_rules)
        self._check_simultaneous(battle, "the unit's profile")
        new_formation = "formation" in changes and changes["formation"] != formation(unit)
        if unit.state == "wavering" and (new_formation or changes.get("formed") is True):
            raise Refusal(
                f"{unit.id} is wavering: it cannot move or change formation until it has reformed "
                "(player_decided reform, from the next turn's Movement phase)",
                rule=reforms.id,
            )
        if unit.restricted("reforming") and new_formation:
            raise Refusal(
                f"{unit.id} reforms into the formation it had before and cannot change it this turn", rule=reforms.id
            )
        if changes.get("formed") is True:
            if unit.state in FLEEING:
                raise Refusal(
                    f"{unit.id} is {'routing' if unit.state == 'broken' else 'retreating'} and unformed "
                    "until it rallies",
                    rule=becomes_unformed.id,
                )
            if unit.state == "regrouped":
                raise Refusal(
                    f"{unit.id} rallied unformed and forms up in the next Movement phase", rule=rally_retreating.id
                )

    def _check_simultaneous(self, battle: Battle, what: str) -> None:
        if battle.phase == "morale" and battle.phase_open and any(d.test in UNIT_TESTS for d in battle.due):
            raise Refusal(
                f"the Morale phase's tests read the table as it stood when the phase began: change {what} "
                "after they are rolled",
                rule=plan_morale_phase.id,
            )

    # -- the clock --------------------------------------------------------------------------------
    def on_phase_started(self, battle: Battle, seq: int) -> Decided:
        if battle.phase == "movement":
            yield from self.new_turn(battle, seq)
        elif battle.phase == "charge":
            # A new Charge phase: its charges, and who tested for them, start afresh.
            fresh = BattleBook(brigade_tests=list(battle_book(battle).brigade_tests))
            yield Remembered(unit="", rule=self.on_charge.id, caused_by=(seq,), book="", changes={"memory": fresh})
        elif battle.phase == "morale":
            yield from self.morale_tests_due(battle, seq)

    def new_turn(self, battle: Battle, seq: int) -> Decided:
        """Losses count over a game turn; a unit that rallied in an earlier turn forms up now."""
        for unit in battle.units.values():
            memo = book(unit)
            if memo.losses or memo.loss_events or memo.charge_losses:
                yield remember(unit, lost_three_figures.id, (seq,), losses={}, loss_events=[], charge_losses=0)
            if unit.state == "regrouped" and memo.rallied_turn < battle.turn:
                yield from forms_up(battle, unit, seq)

    def on_phase_ended(self, battle: Battle, seq: int) -> Decided:
        if battle.phase != "movement":
            return
        for unit in battle.units.values():
            memo = book(unit)
            if unit.state == "wavering" and memo.reforming_turn == battle.turn:
                yield from reformed(battle, unit, seq)
            if unit.state == "regrouped" and memo.forming_up_turn == battle.turn:
                yield from formed_up(battle, unit, seq)

    def morale_tests_due(self, battle: Battle, seq: int) -> Decided:
        plans = plan_morale_phase(battle, seq)  # every trigger and modifier, before any roll
        for plan in plans:
            for skip in plan.not_taken:
                yield TestNotTaken(
                    unit=plan.unit, rule=skip.rule, caused_by=skip.caused_by, test=skip.test, trigger=skip.trigger
                )
        for plan in plans:
            if not plan.test:
                continue
            unit = battle.units[plan.unit]
            if plan.routers:
                tested_for = {**book(unit).tested_for, **dict.fromkeys(plan.routers, battle.turn)}
                yield remember(unit, tested_for_it_last_turn.id, plan.caused_by, tested_for=tested_for)
            yield from self.require(battle, unit, plan.test, plan.rule, plan.caused_by, modifiers=plan.modifiers)

    # -- casualties -------------------------------------------------------------------------------
    def on_casualties(self, battle: Battle, unit: Unit, event: CasualtiesSuffered, seq: int) -> Decided:
        memo = book(unit)
        phase = battle.phase if battle.phase_open and battle.phase else "between_phases"
        losses = {**memo.losses, phase: memo.losses.get(phase, 0) + event.count}
        yield remember(unit, lost_three_figures.id, (seq,), losses=losses, loss_events=[*memo.loss_events, seq])
        charge = battle_book(battle).charges.get(unit.id)
        due = next((d for d in battle.due_for(unit.id) if d.test == "charging"), None)
        if charge is not None and due is not None and unit.id not in battle_book(battle).countercharges:
            # Figures lost during the charge count against the charger's test (`lost_during_charge`).
            yield remember(unit, lost_during_charge.id, (seq,), charge_losses=memo.charge_losses + event.count)
            modifiers = charging_modifiers(battle, unit, charge)
            restated = replace(due, modifiers=modifiers)
            yield DueAmended(unit=unit.id, rule=lost_during_charge.id, caused_by=(seq,), before=due, after=restated)

    # -- charges ----------------------------------------------------------------------------------
    def check_charge(self, battle: Battle, event: ChargeDeclared) -> None:
        charger = battle.units[event.charger]
        if not (battle.phase_open and battle.phase == "charge"):
            raise Refusal("charges are declared in the Charge phase", rule=self.on_charge.id)
        if charger.unit_type in ARTILLERY:
            raise Refusal(f"{charger.id} is artillery and does not charge", rule=self.on_charge.id)
        if charger.id in battle_book(battle).charges:
            raise Refusal(f"{charger.id} has already charged this phase", field="charger")
        forbidden = {
            "wavering": ("is wavering and cannot move until it has reformed", wavers.id),
            "falling_back": ("is retreating", retreats.id),
            "broken": ("is routing", routs.id),
            "regrouped": ("rallied unformed and must form up first", rally_retreating.id),
        }
        if charger.state in forbidden:
            why, rule_id = forbidden[charger.state]
            raise Refusal(f"{charger.id} {why}: it cannot charge", rule=rule_id)
        for name, rule_id in (
            ("halted", halts.id),
            ("no_melee", carries_on.id),
            ("reforming", reforms.id),
            ("forming_up", rally_retreating.id),
        ):
            if charger.restricted(name):
                raise Refusal(f"{charger.id} {RESTRICTIONS[name]} this turn: it cannot charge", rule=rule_id)

    @clause("gdb.trigger.charging", decision="countercharge")
    def on_charge(self, battle: Battle, event: ChargeDeclared, seq: int) -> Decided:
        """The unit charges (or countercharges: the `countercharge` decision on a charged test): it
        tests in the charging column."""
        charge = Charge(event.charger, tuple(event.targets), tuple(event.in_range), tuple(event.flank), seq)
        yield remember_battle(
            self.on_charge.id, (seq,), charges={**battle_book(battle).charges, charge.charger: charge}
        )
        charger = battle.units[event.charger]
        yield remember(charger, lost_during_charge.id, (seq,), charge_losses=0)
        modifiers = charging_modifiers(battle, charger, charge)
        yield from self.require(
            battle, charger, "charging", self.on_charge.id, (seq,), modifiers=modifiers, opponents=charge.targets
        )

    @clause("gdb.trigger.charged")
    def targets_test(self, battle: Battle, charge: Charge, caused_by: tuple[int, ...]) -> Decided:
        """A unit charged by an enemy that passed its charge test tests in the charged column (once a
        Charge phase). A retreating target loses the melee anyway; a routing one is caught."""
        charger = battle.units[charge.charger]
        for target_id in charge.in_range:
            target = battle.units[target_id]
            if not target.alive:
                continue
            if target.state == "falling_back":
                yield TestNotTaken(
                    unit=target_id,
                    rule=loses_melee.id,
                    caused_by=caused_by,
                    test="charged",
                    trigger=self.targets_test.id,
                )
                continue
            if target.state == "broken":
                yield from caught_by_enemy(battle, target, Context("charged", caused_by, caused_by[-1]))
                continue
            if target_id in battle_book(battle).charged_by:
                continue
            yield remember(target, self.targets_test.id, caused_by, charged_turn=battle.turn)
            charged_by = {**battle_book(battle).charged_by, target_id: charger.id}
            yield remember_battle(self.targets_test.id, caused_by, charged_by=charged_by)
            modifiers = charged_modifiers(battle, target, charger, target_id in charge.flank)
            decisions = ("countercharge",) if target.unit_type == CAVALRY else ()
            yield from self.require(
                battle,
                target,
                "charged",
                self.targets_test.id,
                caused_by,
                modifiers=modifiers,
                decisions=decisions,
                opponents=(charger.id,),
            )

    def on_decision(self, battle: Battle, due: DueTest, decision: str, seq: int) -> Decided:
        """countercharge: a charged cavalry unit meets the charge: it tests in the charging column with
        the modifiers of a charged or countercharging unit."""
        unit = battle.units[due.unit]
        charger_id = due.opponents[0]
        caused_by = (*due.caused_by, seq)
        countercharges = {**battle_book(battle).countercharges, unit.id: charger_id}
        yield remember_battle(self.on_charge.id, caused_by, countercharges=countercharges)
        charge = battle_book(battle).charges[charger_id]
        modifiers = charged_modifiers(battle, unit, battle.units[charger_id], unit.id in charge.flank)
        yield from self.require(
            battle, unit, "charging", self.on_charge.id, caused_by, modifiers=modifiers, opponents=(charger_id,)
        )

    def check_combat(self, battle: Battle, event: CombatResolved) -> None:
        raise Refusal(
            "General de Brigade melees are read from the rulebook's melee table: record each unit's melee_result fact",
            field="type",
        )

    # -- facts from the table ---------------------------------------------------------------------
    def check_fact(self, battle: Battle, event: TableFactRecorded) -> None:
        unit, fact, value = battle.units[event.unit], event.fact, event.value
        if fact in BOOL_FACTS and not isinstance(value, bool):
            raise Refusal(f"{fact} is true or false", field="value")
        if fact in STANDING_FACTS:
            self._check_simultaneous(battle, f"{fact}")
        if fact in ("within_15cm", "beyond_15cm", "interpenetrated"):
            other = battle.units.get(value) if isinstance(value, str) else None
            if other is None or other is unit:
                raise Refusal(f"{fact} names another unit of this battle, not {value!r}", field="value")
        if fact == "enemy_in_built_up_area" and value and unit.profile["location"] not in BUILT_UP:
            raise Refusal(f"{unit.id} is in the open: there is no built-up area to share", rule=cover.id)
        if fact == "contact_with_enemy" and (unit.state != "broken" or value is not True):
            raise Refusal(
                f"only a routing unit is dispersed by contact; {unit.id} is {unit.state}", rule=caught_by_enemy.id
            )
        if fact == "melee_result":
            self._check_melee_result(battle, unit, value)
        if fact == "interpenetrated":
            self._check_interpenetration(unit, battle.units[str(value)])

    def _check_melee_result(self, battle: Battle, unit: Unit, value: Any) -> None:
        if value not in MELEE_RESULTS:
            raise Refusal(f"melee_result is one of {', '.join(MELEE_RESULTS)}", field="value")
        if not (battle.phase_open and battle.phase == "melee"):
            raise Refusal("melee results are recorded in the Melee phase", rule=melee_result_stands.id)
        if unit.state == "falling_back" and value not in ("retreat", "rout"):
            raise Refusal(f"{unit.id} is retreating and loses any melee automatically", rule=loses_melee.id)
        if unit.state == "broken":
            raise Refusal(
                f"{unit.id} is routing and does not fight back: record contact_with_enemy", rule=caught_by_enemy.id
            )

    def _check_interpenetration(self, unit: Unit, retreating: Unit) -> None:
        if retreating.side != unit.side or retreating.state not in FLEEING:
            raise Refusal(
                f"{retreating.id} is not a retreating or routing friend of {unit.id}", rule=self.interpenetrated.id
            )
        if formation(unit) == "square" or unit.profile["location"] in ("redoubt", "building", "castle", "church"):
            raise Refusal(
                f"a retreating unit goes round squares and units in redoubts or buildings, not through {unit.id}",
                rule=self.interpenetrated.id,
            )

    def on_fact(self, battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
        """The facts stand in the units' books until stated otherwise; a melee result, a routing
        unit's contact and an interpenetration are carried out at once."""
        unit, fact, value = battle.units[event.unit], event.fact, event.value
        if fact in ("within_15cm", "beyond_15cm"):
            other = battle.units[str(value)]
            for a, b in ((unit, other), (other, unit)):
                near = book(a).near | {b.id} if fact == "within_15cm" else book(a).near - {b.id}
                yield remember(a, friend_routing.id, (seq,), near=near)
            return
        if fact in ("enemy_in_charge_range", "in_melee", "enemy_in_built_up_area"):
            yield remember(unit, self.facts[fact], (seq,), **{fact: bool(value)})
            return
        ctx = Context("melee", (seq,), seq)
        if fact == "melee_result":
            yield remember(unit, melee_result_stands.id, (seq,), melee_turn=battle.turn)
            yield from apply_result(battle, unit, str(value), ctx)
            yield from self.brigade_tests_due(battle, seq)
        elif fact == "contact_with_enemy":
            yield from caught_by_enemy(battle, unit, ctx)
            yield from self.brigade_tests_due(battle, seq)
        else:
            yield from self.interpenetrated(battle, event, seq)

    @clause("gdb.retreat.interpenetrate", fact={"interpenetrated": "friend"})
    def interpenetrated(self, battle: Battle, event: TableFactRecorded, seq: int) -> Decided:
        """A friendly unit a retreating unit passes through in the first half of its first retreat
        move becomes unformed (squares and units in redoubts or buildings it goes round)."""
        return set_profile(battle.units[event.unit], self.interpenetrated.id, (seq,), formed=False)

    # -- decisions a player takes -----------------------------------------------------------------
    def check_free_decision(self, battle: Battle, unit: Unit, event: PlayerDecided) -> None:
        if unit.state != "wavering":
            raise Refusal(f"only a wavering unit reforms; {unit.id} is {unit.state}", rule=reforms.id)
        if not (battle.phase_open and battle.phase == "movement") or battle.turn <= book(unit).wavered_turn:
            raise Refusal(
                f"{unit.id} began to waver in turn {book(unit).wavered_turn}: it may reform only from the "
                "Movement phase of the next turn",
                rule=reforms.id,
            )
        if unit.restricted("reforming"):
            raise Refusal(f"{unit.id} is already reforming", rule=reforms.id)

    def on_free_decision(self, battle: Battle, unit: Unit, event: PlayerDecided, seq: int) -> Decided:
        """reform: a wavering unit reforms (`reforms`)."""
        return reforms(battle, unit, seq)

    # -- dice -------------------------------------------------------------------------------------
    def check_roll(self, battle: Battle, event: DiceRolled) -> None:
        """A rally roll with no rally due: say which rule keeps the unit from attempting it."""
        unit = battle.units[event.unit]
        if event.test != "rally" or any(d.test == "rally" for d in battle.due_for(unit.id)):
            return
        if unit.state not in FLEEING:
            raise Refusal(f"only a retreating or routing unit rallies; {unit.id} is {unit.state}", rule=rally_call.id)
        if may_not_rally(battle, unit):
            raise Refusal(
                f"{unit.id} is within charge range of an enemy or in melee and cannot attempt to rally",
                rule=may_not_rally.id,
            )
        if unit.state == "broken" and book(unit).rally_attempted:
            raise Refusal(f"{unit.id} has had its one rally attempt", rule=rally_routing.id)
        raise Refusal(f"{unit.id} attempts to rally in the Morale phase", rule=rally_call.id)

    def resolve(self, battle: Battle, due: DueTest, dice: tuple[int, ...], seq: int) -> Decided:
        caused_by = (*due.caused_by, seq)
        if due.test == "brigade":
            yield from resolve_brigade_test(battle, battle.tables["brigade"], due, dice, caused_by)
        else:
            yield from self.unit_test(battle, due, dice, caused_by, seq)
        yield from self.brigade_tests_due(battle, seq)

    def unit_test(
        self, battle: Battle, due: DueTest, dice: tuple[int, ...], caused_by: tuple[int, ...], seq: int
    ) -> Decided:
        unit = battle.units[due.unit]
        table: ResultsTable = battle.tables["results"]
        result, modified, decided_by = take_test(table, due.test, unit, dice, due.modifiers)
        yield TestResolved(
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
        ctx = Context(due.test, caused_by, seq)
        if due.test == "rally":
            rally = rally_routing if unit.state == "broken" else rally_retreating
            yield from rally(battle, unit, result == "rally", ctx)
            return
        yield from apply_result(battle, unit, result, ctx)
        charge = battle_book(battle).charges.get(unit.id)
        is_charger = due.test == "charging" and unit.id not in battle_book(battle).countercharges
        if is_charger and charge is not None and result == "charge":
            yield from self.targets_test(battle, charge, caused_by)

    def brigade_tests_due(self, battle: Battle, seq: int) -> Decided:
        """Brigade tests owed by dispersals (`brigade_must_test`); in the Morale phase they wait for
        every unit's test, whose results feed them (`plan_morale_phase`)."""
        owed = battle_book(battle).brigade_tests
        if not owed or (battle.phase == "morale" and any(d.test in UNIT_TESTS for d in battle.due)):
            return
        table: BrigadeTable = battle.tables["brigade"]
        for side, brigade, caused_by in owed:
            lead = lead_unit(battle, side, brigade)
            if lead is not None:
                modifiers = brigade_modifiers(battle, table, side, brigade)
                yield from self.require(battle, lead, "brigade", brigade_must_test.id, caused_by, modifiers=modifiers)
        yield remember_battle(brigade_must_test.id, (seq,), brigade_tests=[])

    def profile_values(self, unit: Unit) -> dict[str, Any]:
        return {**super().profile_values(unit), "formation": formation(unit)}

    def describe_profile(self, unit: Unit) -> str:
        words = [formation(unit).replace("_", " "), "formed" if unit.profile["formed"] else "unformed"]
        if unit.profile["location"] != "open":
            words.append(f"in a {unit.profile['location']}")
        if unit.profile["commander"] != "none":
            words.append(f"{str(unit.profile['commander']).replace('_', ' ')} attached")
        return ", ".join(words)

    def implied_restrictions(self, unit: Unit) -> list[tuple[str, str]]:
        if unit.state == "falling_back":
            return retreating_unit_restrictions(unit)
        return IMPLIED.get(unit.state, [])


@clause("gdb.retreat.no_fire")
def retreating_unit_restrictions(unit: Unit) -> list[tuple[str, str]]:
    """A retreating unit does not shoot (and loses any melee, `loses_melee`)."""
    return [
        ("does not shoot", retreating_unit_restrictions.id),
        ("loses any melee automatically and goes on retreating", loses_melee.id),
    ]


IMPLIED = {
    "wavering": [("cannot move until it has reformed; may shoot only if charged", wavers.id)],
    "broken": [
        ("back to the enemy; does not shoot or fight back in melee", routs.id),
        ("dispersed on contact with an enemy", caught_by_enemy.id),
    ],
    "regrouped": [("stopped and unformed; forms up in the next Movement phase", rally_retreating.id)],
}

GDB = Gdb()
