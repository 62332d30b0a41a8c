"""General de Brigade (Napoleonic): the Morale Check Test, its results, rally and brigade tests
(each clause in its own words in `clauses.toml`).

The clauses live beside this module, one function per rule ID: `modifiers` (the modifiers),
`triggers` (when a unit tests in the Morale phase, and the notes that excuse it), `results` (the
test procedure, each result and the state graph), `brigade` (the Brigade Morale Test). This class
wires them to the referee's hooks and refuses what the rules forbid.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

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

from ...outcomes import Outcome, TestNotTaken, TestResolved
from ...rules import Refusal, rule
from ...state import Battle, DueTest, Point, Unit
from ..base import Ruleset, TableSpec
from .book import BattleBook, Charge, UnitBook, battle_book, book
from .brigade import brigade_modifiers, lead_unit, resolve_brigade_test
from .modifiers import charged_modifiers, charging_modifiers
from .neighbours import FLEEING
from .profile import (
    ARTILLERY,
    BUILT_UP,
    CAVALRY,
    CHANGEABLE,
    PHASES,
    TAGS,
    UNIT_TYPES,
    GdbProfile,
    check_profile,
    formation,
)
from .results import (
    GRAPH,
    Context,
    apply_result,
    caught_by_enemy,
    rally_retreating,
    rally_routing,
    restrict,
    set_profile,
    take_test,
)
from .tables import BrigadeTable, ResultsTable
from .triggers import may_not_rally, plan_morale_phase

FACTS = {
    "within_15cm": "gdb.trigger.friend_routing",  # value: the other unit (a dispersed one: its dispersal point)
    "beyond_15cm": "gdb.trigger.friend_routing",  # value: the other unit, no longer within 15 cm
    "enemy_in_charge_range": "gdb.note.no_rally_near_enemy",  # true / false
    "in_melee": "gdb.note.melee",  # true / false
    "melee_result": "gdb.note.melee",  # the result of its melee, from the rulebook's melee table
    "contact_with_enemy": "gdb.rout.contact",  # a routing unit touches an enemy
    "interpenetrated": "gdb.retreat.interpenetrate",  # value: the retreating friend that passed through
    "enemy_in_built_up_area": "gdb.mod.cover",  # true / false
}
# Facts that feed triggers or modifiers: they stand until changed, and cannot change while the
# Morale phase's tests are being rolled (gdb.note.simultaneous).
STANDING_FACTS = ("within_15cm", "beyond_15cm", "enemy_in_charge_range", "in_melee", "enemy_in_built_up_area")
BOOL_FACTS = ("enemy_in_charge_range", "in_melee", "enemy_in_built_up_area", "contact_with_enemy")
MELEE_RESULTS = ("carry_on", "halt", "waver", "retreat", "rout")

RESTRICTIONS = {
    "no_melee": "acts as the player wishes but may not start a melee",
    "halted": "stays where it is, formed; may shoot but not manoeuvre; cavalry fights without its charge bonus",
    "may_not_reform": "may not reform before the next turn's Movement phase",
    "reforming": "reforms this turn: neither moves nor shoots nor changes formation; formed at the end of the "
    "Movement phase",
    "forming_up": "forms up this turn: neither moves nor shoots; formed at the end of the Movement phase",
}

# How the narrative words a state change, by rule (or "rule:state" where one rule has several).
PHRASES = {
    "gdb.result.waver": "wavers: it stops where it is",
    "gdb.result.retreat": "retreats",
    "gdb.result.rout": "routs",
    "gdb.retreat.rally:regrouped": "rallies: it stops, unformed",
    "gdb.retreat.rally:steady": "has formed up: formed again",
    "gdb.retreat.rally:falling_back": "keeps retreating",
    "gdb.rout.rally:regrouped": "rallies: it stops, unformed",
    "gdb.rout.rally:dispersed": "fails its one rally attempt and is dispersed",
    "gdb.waver.reform": "has reformed: formed again",
    "gdb.rout.heavy_losses": "has lost more than 35% of its strength and is dispersed at once",
    "gdb.rout.artillery": "abandons its guns and leaves the field",
    "gdb.retreat.artillery": "retreats before the enemy and is dispersed, its guns lost",
    "gdb.rout.contact": "is caught by the enemy and dispersed",
    "gdb.retreat.melee:falling_back": "loses the melee automatically and goes on retreating",
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

UNIT_TESTS = ("charging", "charged", "morale", "rally")
DECISIONS = {"countercharge": "gdb.trigger.charging"}  # settles a charged cavalry unit's test
FREE_DECISIONS = {"reform": "gdb.waver.reform"}
TABLES = {
    "results": TableSpec("gdb_results.toml", ResultsTable, "gdb.results_table"),
    "brigade": TableSpec("gdb_brigade.toml", BrigadeTable, "gdb.brigade.test"),
}


class Gdb(Ruleset):
    id = "gdb"
    version = "1"
    title = "General de Brigade"
    phases = PHASES
    shared_turn = True
    graph = GRAPH
    unit_types = UNIT_TYPES
    facts = FACTS
    special_rules = TAGS
    decisions = DECISIONS
    free_decisions = FREE_DECISIONS
    restrictions = RESTRICTIONS
    phrases = PHRASES
    profile_type = GdbProfile
    changeable = CHANGEABLE
    tables = TABLES

    def battle_bookkeeping(self) -> BattleBook:
        return BattleBook()

    def first_notes(self, unit: Unit) -> dict[str, object]:
        return {"gdb": UnitBook()}

    def describe_point(self, battle: Battle, point: Point) -> str:
        turn, _, phase_index = point
        return f"end of the {self.phases[phase_index]} phase of turn {turn}"

    # -- units ------------------------------------------------------------------------------------
    def check_unit(self, battle: Battle, event: UnitJoined) -> None:
        super().check_unit(battle, event)
        if event.ld is not None or event.initiative is not None:
            raise Refusal("General de Brigade has no Leadership or Initiative: its tests read a results table",
                          field="ld" if event.ld is not None else "initiative")  # fmt: skip
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
                rule="gdb.waver.reform",
            )
        if unit.restricted("reforming") and new_formation:
            raise Refusal(f"{unit.id} reforms into the formation it had before and cannot change it this turn",
                          rule="gdb.waver.reform")  # fmt: skip
        if changes.get("formed") is True:
            if unit.state in FLEEING:
                raise Refusal(f"{unit.id} is {'routing' if unit.state == 'broken' else 'retreating'} and unformed "
                              "until it rallies", rule="gdb.retreat.unformed")  # fmt: skip
            if unit.state == "regrouped":
                raise Refusal(f"{unit.id} rallied unformed and forms up in the next Movement phase",
                              rule="gdb.retreat.rally")  # fmt: skip

    def _check_simultaneous(self, battle: Battle, what: str) -> None:
        if battle.phase == "morale" and battle.phase_open and any(d.test in UNIT_TESTS for d in battle.due):
            raise Refusal(f"the Morale phase's tests read the table as it stood when the phase began: change {what} "
                          "after they are rolled", rule="gdb.note.simultaneous")  # fmt: skip

    # -- the clock --------------------------------------------------------------------------------
    def on_phase_started(self, battle: Battle, seq: int) -> list[Outcome]:
        if battle.phase == "movement":
            return self.new_turn(battle, seq)
        if battle.phase == "charge":
            fresh = BattleBook(brigade_tests=battle_book(battle).brigade_tests)
            battle.bookkeeping = fresh
        if battle.phase == "morale":
            return self.morale_tests_due(battle, seq)
        return []

    def new_turn(self, battle: Battle, seq: int) -> list[Outcome]:
        """Losses count over a game turn; a unit that rallied in an earlier turn forms up now."""
        caused: list[Outcome] = []
        for unit in battle.units.values():
            memo = book(unit)
            memo.losses, memo.loss_events, memo.charge_losses = {}, [], 0
            if unit.state == "regrouped" and memo.rallied_turn < battle.turn:
                memo.forming_up_turn = battle.turn
                caused.append(restrict(battle, unit, "forming_up", "gdb.retreat.rally", (seq,)))
        return caused

    def on_phase_ended(self, battle: Battle, seq: int) -> list[Outcome]:
        if battle.phase != "movement":
            return []
        caused: list[Outcome] = []
        for unit in battle.units.values():
            memo = book(unit)
            if unit.state == "wavering" and memo.reforming_turn == battle.turn:
                caused.append(self.graph.fire(unit, "reform", (seq,)))
                caused += set_profile(unit, "gdb.waver.reform", (seq,), formed=True,
                                      formation=memo.formation_before_waver)  # fmt: skip
            if unit.state == "regrouped" and memo.forming_up_turn == battle.turn:
                caused.append(self.graph.fire(unit, "form_up", (seq,)))
                caused += set_profile(unit, "gdb.retreat.rally", (seq,), formed=True)
        return caused

    def morale_tests_due(self, battle: Battle, seq: int) -> list[Outcome]:
        plans = plan_morale_phase(battle, seq)  # every trigger and modifier, before any roll
        caused: list[Outcome] = []
        for plan in plans:
            caused += [TestNotTaken(unit=plan.unit, rule=skip.rule, caused_by=skip.caused_by, test=skip.test,
                                    trigger=skip.trigger) for skip in plan.not_taken]  # fmt: skip
        for plan in plans:
            if not plan.test:
                continue
            unit = battle.units[plan.unit]
            for router in plan.routers:
                book(unit).tested_for[router] = battle.turn
            caused += self.require(battle, unit, plan.test, plan.rule, plan.caused_by, modifiers=plan.modifiers)
        return caused

    # -- casualties -------------------------------------------------------------------------------
    def on_casualties(self, battle: Battle, unit: Unit, event: CasualtiesSuffered, seq: int) -> list[Outcome]:
        memo = book(unit)
        phase = battle.phase if battle.phase_open and battle.phase else "between_phases"
        memo.losses[phase] = memo.losses.get(phase, 0) + event.count
        memo.loss_events.append(seq)
        charge = battle_book(battle).charges.get(unit.id)
        due = next((d for d in battle.due_for(unit.id) if d.test == "charging"), None)
        if charge is not None and due is not None and unit.id not in battle_book(battle).countercharges:
            # gdb.mod.charge.losses: figures lost during the charge count against the charger's test.
            memo.charge_losses += event.count
            battle.due[battle.due.index(due)] = replace(due, modifiers=charging_modifiers(battle, unit, charge))
        return []

    # -- charges ----------------------------------------------------------------------------------
    def check_charge(self, battle: Battle, event: ChargeDeclared) -> None:
        charger = battle.units[event.charger]
        if not (battle.phase_open and battle.phase == "charge"):
            raise Refusal("charges are declared in the Charge phase", rule="gdb.trigger.charging")
        if charger.unit_type in ARTILLERY:
            raise Refusal(f"{charger.id} is artillery and does not charge", rule="gdb.trigger.charging")
        if charger.id in battle_book(battle).charges:
            raise Refusal(f"{charger.id} has already charged this phase", field="charger")
        forbidden = {
            "wavering": ("is wavering and cannot move until it has reformed", "gdb.result.waver"),
            "falling_back": ("is retreating", "gdb.result.retreat"),
            "broken": ("is routing", "gdb.result.rout"),
            "regrouped": ("rallied unformed and must form up first", "gdb.retreat.rally"),
        }
        if charger.state in forbidden:
            why, rule_id = forbidden[charger.state]
            raise Refusal(f"{charger.id} {why}: it cannot charge", rule=rule_id)
        for name, rule_id in (("halted", "gdb.result.halt"), ("no_melee", "gdb.result.carry_on"),
                              ("reforming", "gdb.waver.reform"), ("forming_up", "gdb.retreat.rally")):  # fmt: skip
            if charger.restricted(name):
                raise Refusal(f"{charger.id} {RESTRICTIONS[name]} this turn: it cannot charge", rule=rule_id)

    @rule("gdb.trigger.charging")
    def on_charge(self, battle: Battle, event: ChargeDeclared, seq: int) -> list[Outcome]:
        """The unit charges (or countercharges: the `countercharge` decision on a charged test): it
        tests in the charging column."""
        charge = Charge(event.charger, tuple(event.targets), tuple(event.in_range), tuple(event.flank), seq)
        battle_book(battle).charges[charge.charger] = charge
        charger = battle.units[event.charger]
        book(charger).charge_losses = 0
        modifiers = charging_modifiers(battle, charger, charge)
        return self.require(battle, charger, "charging", "gdb.trigger.charging", (seq,), modifiers=modifiers,
                            opponents=charge.targets)  # fmt: skip

    @rule("gdb.trigger.charged")
    def targets_test(self, battle: Battle, charge: Charge, caused_by: tuple[int, ...]) -> list[Outcome]:
        """A unit charged by an enemy that passed its charge test tests in the charged column (once a
        Charge phase). A retreating target loses the melee anyway; a routing one is caught."""
        charger = battle.units[charge.charger]
        caused: list[Outcome] = []
        for target_id in charge.in_range:
            target = battle.units[target_id]
            if not target.alive:
                continue
            if target.state == "falling_back":
                caused.append(TestNotTaken(unit=target_id, rule="gdb.retreat.melee", caused_by=caused_by,
                                           test="charged", trigger="gdb.trigger.charged"))  # fmt: skip
                continue
            if target.state == "broken":
                caused += caught_by_enemy(battle, target, Context("charged", caused_by, caused_by[-1]))
                continue
            if target_id in battle_book(battle).charged_by:
                continue
            book(target).charged_turn = battle.turn
            battle_book(battle).charged_by[target_id] = charger.id
            modifiers = charged_modifiers(battle, target, charger, target_id in charge.flank)
            decisions = ("countercharge",) if target.unit_type == CAVALRY else ()
            caused += self.require(battle, target, "charged", "gdb.trigger.charged", caused_by, modifiers=modifiers,
                                   decisions=decisions, opponents=(charger.id,))  # fmt: skip
        return caused

    def on_decision(self, battle: Battle, due: DueTest, decision: str, seq: int) -> list[Outcome]:
        """countercharge: a charged cavalry unit meets the charge: it tests in the charging column with
        the modifiers of a charged or countercharging unit."""
        unit = battle.units[due.unit]
        charger_id = due.opponents[0]
        battle_book(battle).countercharges[unit.id] = charger_id
        charge = battle_book(battle).charges[charger_id]
        modifiers = charged_modifiers(battle, unit, battle.units[charger_id], unit.id in charge.flank)
        return self.require(battle, unit, "charging", "gdb.trigger.charging", (*due.caused_by, seq),
                            modifiers=modifiers, opponents=(charger_id,))  # fmt: skip

    def check_combat(self, battle: Battle, event: CombatResolved) -> None:
        raise Refusal("General de Brigade melees are read from the rulebook's melee table: record each unit's "
                      "melee_result fact", field="type")  # fmt: skip

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
            raise Refusal(f"{unit.id} is in the open: there is no built-up area to share", rule="gdb.mod.cover")
        if fact == "contact_with_enemy" and (unit.state != "broken" or value is not True):
            raise Refusal(f"only a routing unit is dispersed by contact; {unit.id} is {unit.state}",
                          rule="gdb.rout.contact")  # fmt: skip
        if fact == "melee_result":
            self._check_melee_result(battle, unit, value)
        if fact == "interpenetrated":
            self._check_interpenetration(unit, battle.units[str(value)])

    def _check_melee_result(self, battle: Battle, unit: Unit, value: Any) -> None:
        if value not in MELEE_RESULTS:
            raise Refusal(f"melee_result is one of {', '.join(MELEE_RESULTS)}", field="value")
        if not (battle.phase_open and battle.phase == "melee"):
            raise Refusal("melee results are recorded in the Melee phase", rule="gdb.note.melee")
        if unit.state == "falling_back" and value not in ("retreat", "rout"):
            raise Refusal(f"{unit.id} is retreating and loses any melee automatically", rule="gdb.retreat.melee")
        if unit.state == "broken":
            raise Refusal(f"{unit.id} is routing and does not fight back: record contact_with_enemy",
                          rule="gdb.rout.contact")  # fmt: skip

    def _check_interpenetration(self, unit: Unit, retreating: Unit) -> None:
        if retreating.side != unit.side or retreating.state not in FLEEING:
            raise Refusal(f"{retreating.id} is not a retreating or routing friend of {unit.id}",
                          rule="gdb.retreat.interpenetrate")  # fmt: skip
        if formation(unit) == "square" or unit.profile["location"] in ("redoubt", "building", "castle", "church"):
            raise Refusal(f"a retreating unit goes round squares and units in redoubts or buildings, not through "
                          f"{unit.id}", rule="gdb.retreat.interpenetrate")  # fmt: skip

    def on_fact(self, battle: Battle, event: TableFactRecorded, seq: int) -> list[Outcome]:
        unit, fact, value = battle.units[event.unit], event.fact, event.value
        memo = book(unit)
        if fact in ("within_15cm", "beyond_15cm"):
            other = battle.units[str(value)]
            for a, b in ((unit, other), (other, unit)):
                (book(a).near.add if fact == "within_15cm" else book(a).near.discard)(b.id)
            return []
        if fact in ("enemy_in_charge_range", "in_melee", "enemy_in_built_up_area"):
            setattr(memo, fact, bool(value))
            return []
        ctx = Context("melee", (seq,), seq)
        if fact == "melee_result":
            memo.melee_turn = battle.turn
            return apply_result(battle, unit, str(value), ctx) + self.brigade_tests_due(battle, seq)
        if fact == "contact_with_enemy":
            return caught_by_enemy(battle, unit, ctx) + self.brigade_tests_due(battle, seq)
        return self.interpenetrated(unit, seq)

    @rule("gdb.retreat.interpenetrate")
    def interpenetrated(self, unit: Unit, seq: int) -> list[Outcome]:
        """A friendly unit a retreating unit passes through in the first half of its first retreat
        move becomes unformed (squares and units in redoubts or buildings it goes round)."""
        return set_profile(unit, "gdb.retreat.interpenetrate", (seq,), formed=False)

    # -- decisions a player takes -----------------------------------------------------------------
    def check_free_decision(self, battle: Battle, unit: Unit, event: PlayerDecided) -> None:
        if unit.state != "wavering":
            raise Refusal(f"only a wavering unit reforms; {unit.id} is {unit.state}", rule="gdb.waver.reform")
        if not (battle.phase_open and battle.phase == "movement") or battle.turn <= book(unit).wavered_turn:
            raise Refusal(f"{unit.id} began to waver in turn {book(unit).wavered_turn}: it may reform only from the "
                          "Movement phase of the next turn", rule="gdb.waver.reform")  # fmt: skip
        if unit.restricted("reforming"):
            raise Refusal(f"{unit.id} is already reforming", rule="gdb.waver.reform")

    @rule("gdb.waver.reform")
    def on_free_decision(self, battle: Battle, unit: Unit, event: PlayerDecided, seq: int) -> list[Outcome]:
        """No test is needed to reform; not before the Movement phase of the next turn; it takes one
        whole Movement phase, into the formation it had before, and the unit can neither move, shoot
        nor change formation that turn; at the end of that Movement phase it is formed: steady."""
        book(unit).reforming_turn = battle.turn
        return [restrict(battle, unit, "reforming", "gdb.waver.reform", (seq,))]

    # -- dice -------------------------------------------------------------------------------------
    def check_roll(self, battle: Battle, event: DiceRolled) -> None:
        """A rally roll with no rally due: say which rule keeps the unit from attempting it."""
        unit = battle.units[event.unit]
        if event.test != "rally" or any(d.test == "rally" for d in battle.due_for(unit.id)):
            return
        if unit.state not in FLEEING:
            raise Refusal(f"only a retreating or routing unit rallies; {unit.id} is {unit.state}",
                          rule="gdb.trigger.rally")  # fmt: skip
        if may_not_rally(battle, unit):
            raise Refusal(f"{unit.id} is within charge range of an enemy or in melee and cannot attempt to rally",
                          rule="gdb.note.no_rally_near_enemy")  # fmt: skip
        if unit.state == "broken" and book(unit).rally_attempted:
            raise Refusal(f"{unit.id} has had its one rally attempt", rule="gdb.rout.rally")
        raise Refusal(f"{unit.id} attempts to rally in the Morale phase", rule="gdb.trigger.rally")

    def resolve(self, battle: Battle, due: DueTest, dice: tuple[int, ...], seq: int) -> list[Outcome]:
        caused_by = (*due.caused_by, seq)
        if due.test == "brigade":
            caused = resolve_brigade_test(battle, battle.tables["brigade"], due, dice, caused_by)
        else:
            caused = self.unit_test(battle, due, dice, caused_by, seq)
        return caused + self.brigade_tests_due(battle, seq)

    def unit_test(
        self, battle: Battle, due: DueTest, dice: tuple[int, ...], caused_by: tuple[int, ...], seq: int
    ) -> list[Outcome]:
        unit = battle.units[due.unit]
        table: ResultsTable = battle.tables["results"]
        result, modified, decided_by = take_test(table, due.test, unit, dice, due.modifiers)
        resolved = TestResolved(unit=unit.id, rule=decided_by, caused_by=caused_by, test=due.test, trigger=due.rule,
                                passed=result in table.passing, dice=dice, total=modified, modifiers=due.modifiers,
                                result=result, column=due.test)  # fmt: skip
        ctx = Context(due.test, caused_by, seq)
        if due.test == "rally":
            rally = rally_routing if unit.state == "broken" else rally_retreating
            return [resolved, *rally(battle, unit, result == "rally", ctx)]
        caused: list[Outcome] = [resolved, *apply_result(battle, unit, result, ctx)]
        charge = battle_book(battle).charges.get(unit.id)
        is_charger = due.test == "charging" and unit.id not in battle_book(battle).countercharges
        if is_charger and charge is not None and result == "charge":
            caused += self.targets_test(battle, charge, caused_by)
        return caused

    def brigade_tests_due(self, battle: Battle, seq: int) -> list[Outcome]:
        """Brigade tests owed by dispersals; in the Morale phase they wait for every unit's test,
        whose results feed them (gdb.note.simultaneous)."""
        owed = battle_book(battle).brigade_tests
        if not owed or (battle.phase == "morale" and any(d.test in UNIT_TESTS for d in battle.due)):
            return []
        caused: list[Outcome] = []
        table: BrigadeTable = battle.tables["brigade"]
        for side, brigade, caused_by in owed:
            lead = lead_unit(battle, side, brigade)
            if lead is not None:
                modifiers = brigade_modifiers(battle, table, side, brigade)
                caused += self.require(battle, lead, "brigade", "gdb.rout.brigade", caused_by, modifiers=modifiers)
        owed.clear()
        return caused

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


@rule("gdb.retreat.no_fire")
def retreating_unit_restrictions(unit: Unit) -> list[tuple[str, str]]:
    """A retreating unit does not shoot (and loses any melee, gdb.retreat.melee)."""
    return [
        ("does not shoot", "gdb.retreat.no_fire"),
        ("loses any melee automatically and goes on retreating", "gdb.retreat.melee"),
    ]


IMPLIED = {
    "wavering": [("cannot move until it has reformed; may shoot only if charged", "gdb.result.waver")],
    "broken": [
        ("back to the enemy; does not shoot or fight back in melee", "gdb.result.rout"),
        ("dispersed on contact with an enemy", "gdb.rout.contact"),
    ],
    "regrouped": [("stopped and unformed; forms up in the next Movement phase", "gdb.retreat.rally")],
}

GDB = Gdb()
