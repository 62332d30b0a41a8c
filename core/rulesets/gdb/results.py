"""General de Brigade: reading a test in the results table, and what each result does to a unit.

A result never improves a unit's state except through the rally column: a retreating unit that
reads Carry out orders in a Morale test keeps retreating, a wavering one that reads Halt keeps
wavering (the reading this engine takes; see the README).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...machine import StateGraph
from ...outcomes import (
    MarkerPlaced,
    Modifier,
    Outcome,
    ProfileChanged,
    RestrictionApplied,
    RestrictionLifted,
    TestNotTaken,
)
from ...rules import DESTROYED, rule
from ...state import Battle, Point, Restriction, Unit
from .book import Moment, battle_book, book, in_melee
from .modifiers import total
from .neighbours import friends_near, skirmishers_ignored
from .profile import ARTILLERY, INFANTRY, PHASES, SKIRMISHERS, figures_lost, formation, full_strength
from .tables import ResultsTable, read_column

ALIVE = ["steady", "regrouped", "wavering", "falling_back", "broken"]
GRAPH = StateGraph(
    [
        {"trigger": "waver", "source": ["steady", "regrouped"], "dest": "wavering", "rule": "gdb.result.waver"},
        {"trigger": "retreat", "source": ["steady", "regrouped", "wavering"], "dest": "falling_back",
         "rule": "gdb.result.retreat"},
        {"trigger": "rout", "source": ["steady", "regrouped", "wavering", "falling_back"], "dest": "broken",
         "rule": "gdb.result.rout"},
        {"trigger": "reform", "source": "wavering", "dest": "steady", "rule": "gdb.waver.reform"},
        {"trigger": "lose_melee", "source": "falling_back", "dest": "=", "rule": "gdb.retreat.melee"},
        {"trigger": "rally", "source": "falling_back", "dest": "regrouped", "rule": "gdb.retreat.rally"},
        {"trigger": "fail_rally", "source": "falling_back", "dest": "=", "rule": "gdb.retreat.rally"},
        {"trigger": "form_up", "source": "regrouped", "dest": "steady", "rule": "gdb.retreat.rally"},
        {"trigger": "rally", "source": "broken", "dest": "regrouped", "rule": "gdb.rout.rally"},
        {"trigger": "fail_rally", "source": "broken", "dest": "dispersed", "rule": "gdb.rout.rally"},
        {"trigger": "disperse_with_heavy_losses", "source": "broken", "dest": "dispersed",
         "rule": "gdb.rout.heavy_losses"},
        {"trigger": "abandon_guns", "source": "broken", "dest": "dispersed", "rule": "gdb.rout.artillery"},
        {"trigger": "disperse_on_contact", "source": "broken", "dest": "dispersed", "rule": "gdb.rout.contact"},
        {"trigger": "lose_guns_in_retreat", "source": "falling_back", "dest": "dispersed",
         "rule": "gdb.retreat.artillery"},
        {"trigger": "lose_last_model", "source": ALIVE, "dest": "destroyed", "rule": DESTROYED},
    ]
)  # fmt: skip

# How bad a result is, and how bad a state already is: a result only makes a unit worse.
SEVERITY = {"charge": 0, "carry_on": 0, "halt": 1, "waver": 2, "retreat": 3, "rout": 4}
STATE_SEVERITY = {"steady": 0, "regrouped": 0, "wavering": 2, "falling_back": 3, "broken": 4}


@dataclass(frozen=True)
class Context:
    """Where a result came from: the test's column (or "melee", "brigade"), and the events."""

    source: str
    caused_by: tuple[int, ...]
    seq: int


def end_of_turn(battle: Battle) -> Point:
    return (battle.turn, 0, len(PHASES) - 1)


def restrict(battle: Battle, unit: Unit, name: str, rule_id: str, caused_by: tuple[int, ...]) -> RestrictionApplied:
    """A restriction until the end of this game turn (the end of its Morale phase)."""
    until = end_of_turn(battle)
    unit.restrictions = [r for r in unit.restrictions if r.name != name]
    unit.restrictions.append(Restriction(name=name, rule=rule_id, until=until, caused_by=caused_by))
    return RestrictionApplied(unit=unit.id, rule=rule_id, caused_by=caused_by, restriction=name,
                              until=f"end of turn {battle.turn}")  # fmt: skip


def lift_restrictions(unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
    """A unit that wavers, retreats or routs is no longer bound by what an earlier result said."""
    lifted = [RestrictionLifted(unit=unit.id, rule=r.rule, caused_by=caused_by, restriction=r.name)
              for r in unit.restrictions]  # fmt: skip
    unit.restrictions.clear()
    return lifted  # type: ignore[return-value]


def set_profile(unit: Unit, rule_id: str, caused_by: tuple[int, ...], **changes: object) -> list[Outcome]:
    """The rules change the unit's profile; an outcome only when something actually changes."""
    changed = {k: v for k, v in changes.items() if unit.profile.get(k) != v}
    if not changed:
        return []
    unit.profile.update(changed)
    return [ProfileChanged(unit=unit.id, rule=rule_id, caused_by=caused_by, changes=changed)]  # type: ignore[arg-type]


# -- the test ---------------------------------------------------------------------------------------
@rule("gdb.test.double_six")
def natural_double_six(dice: tuple[int, ...]) -> bool:
    """A natural double six passes automatically: the best result of its column."""
    return dice == (6, 6)


@rule("gdb.test.procedure")
def take_test(
    table: ResultsTable, column: str, unit: Unit, dice: tuple[int, ...], modifiers: tuple[Modifier, ...]
) -> tuple[str, int, str]:
    """Roll 2D6, add the modifiers, read the modified total in the column that fits the test.
    Returns the result, the modified total, and the clause that decided it."""
    modified = sum(dice) + total(modifiers)
    rows = getattr(table, column)
    if natural_double_six(dice):
        return read_column(rows, unit.unit_type, None), modified, "gdb.test.double_six"
    return read_column(rows, unit.unit_type, modified), modified, "gdb.test.procedure"


def apply_result(battle: Battle, unit: Unit, result: str, ctx: Context) -> list[Outcome]:
    return RESULTS[result](battle, unit, ctx)


# -- results ----------------------------------------------------------------------------------------
@rule("gdb.result.charge")
def charges(battle: Battle, unit: Unit, ctx: Context) -> list[Outcome]:
    """The unit charges or countercharges with cold steel: it stays steady, free to do so."""
    return []


@rule("gdb.result.carry_on")
def carries_on(battle: Battle, unit: Unit, ctx: Context) -> list[Outcome]:
    """Acts as the player wishes but cannot start a melee this turn."""
    if STATE_SEVERITY[unit.state]:
        return []
    return [restrict(battle, unit, "no_melee", "gdb.result.carry_on", ctx.caused_by)]


@rule("gdb.result.halt")
def halts(battle: Battle, unit: Unit, ctx: Context, rule_id: str = "gdb.result.halt") -> list[Outcome]:
    """Stays where it is until the end of the turn, formed; may shoot but not manoeuvre; cavalry
    fights without its charge bonus."""
    if STATE_SEVERITY[unit.state]:
        return []
    return [restrict(battle, unit, "halted", rule_id, ctx.caused_by)]


@rule("gdb.result.waver")
def wavers(battle: Battle, unit: Unit, ctx: Context) -> list[Outcome]:
    """Wavering: it stops and becomes unformed, cannot move until it has reformed, and may shoot
    only if charged. Skirmishers never waver: they Halt instead."""
    if unit.unit_type == SKIRMISHERS:
        return halts(battle, unit, ctx, rule_id="gdb.result.waver")
    if STATE_SEVERITY[unit.state] >= SEVERITY["waver"]:
        return []
    memo = book(unit)
    memo.wavered_turn, memo.formation_before_waver = battle.turn, formation(unit)
    return [
        GRAPH.fire(unit, "waver", ctx.caused_by),
        *lift_restrictions(unit, ctx.caused_by),
        *set_profile(unit, "gdb.result.waver", ctx.caused_by, formed=False),
        restrict(battle, unit, "may_not_reform", "gdb.waver.reform", ctx.caused_by),
    ]


@rule("gdb.result.retreat")
def retreats(battle: Battle, unit: Unit, ctx: Context) -> list[Outcome]:
    """Retreating (falling_back): at full retreat speed, facing the enemy, away from it or towards
    its own troops."""
    if unit.state == "falling_back" and ctx.source == "melee":
        return [GRAPH.fire(unit, "lose_melee", ctx.caused_by)]
    if STATE_SEVERITY[unit.state] >= SEVERITY["retreat"]:
        return []
    caused: list[Outcome] = [GRAPH.fire(unit, "retreat", ctx.caused_by), *lift_restrictions(unit, ctx.caused_by)]
    caused += becomes_unformed(unit, ctx.caused_by)
    caused += leaves_buildings(unit, ctx)
    if unit.unit_type in ARTILLERY:
        caused += artillery_retreats(battle, unit, ctx)
    return caused


@rule("gdb.retreat.unformed")
def becomes_unformed(unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
    """A retreating unit becomes unformed (it bunches up in the second half of its retreat move)."""
    return set_profile(unit, "gdb.retreat.unformed", caused_by, formed=False)


@rule("gdb.retreat.buildings")
def leaves_buildings(unit: Unit, ctx: Context) -> list[Outcome]:
    """Infantry defending buildings that must retreat before an enemy charge retreats until it is
    out of the built-up area (the source, 002 (d), says "before an oncoming enemy charge"; other
    retreats leave the unit where the players put it)."""
    charged = ctx.source == "charged"
    if charged and unit.unit_type == INFANTRY and unit.profile["location"] in ("building", "castle", "church"):
        return set_profile(unit, "gdb.retreat.buildings", ctx.caused_by, location="open")
    return []


@rule("gdb.retreat.artillery")
def artillery_retreats(battle: Battle, unit: Unit, ctx: Context) -> list[Outcome]:
    """Artillery not charged nor in melee limbers up as a free manoeuvre; artillery retreating
    because of an enemy charge or a lost melee is dispersed (it counts as routing)."""
    charged = ctx.source in ("charged", "melee") or book(unit).charged_turn == battle.turn or in_melee(battle, unit)
    if charged:
        return disperse(battle, unit, "lose_guns_in_retreat", ctx)
    return set_profile(unit, "gdb.retreat.artillery", ctx.caused_by, formation="limbered")


@rule("gdb.result.rout")
def routs(battle: Battle, unit: Unit, ctx: Context) -> list[Outcome]:
    """Routing (broken): like retreating, but with its back to the enemy; it does not fight back in
    melee. A routing unit that reads Rout again routs afresh from this result."""
    caused: list[Outcome] = []
    if unit.state != "broken":
        caused += [GRAPH.fire(unit, "rout", ctx.caused_by), *lift_restrictions(unit, ctx.caused_by)]
        caused += becomes_unformed(unit, ctx.caused_by)
    book(unit).routed = Moment(battle.turn, battle.phase or "", ctx.seq)
    book(unit).rally_attempted = False
    if loses_too_many_to_rout(unit):
        caused += disperse(battle, unit, "disperse_with_heavy_losses", ctx)
    elif abandons_guns(unit):
        caused += disperse(battle, unit, "abandon_guns", ctx)
    return caused


@rule("gdb.rout.heavy_losses")
def loses_too_many_to_rout(unit: Unit) -> bool:
    """A unit that has lost more than 35% of its strength is dispersed at once on a Rout result."""
    return figures_lost(unit) * 100 > 35 * full_strength(unit)


@rule("gdb.rout.artillery")
def abandons_guns(unit: Unit) -> bool:
    """Routing artillery abandons its guns and leaves the field."""
    return unit.unit_type in ARTILLERY


@rule("gdb.rout.contact")
def caught_by_enemy(battle: Battle, unit: Unit, ctx: Context) -> list[Outcome]:
    """A routing unit that comes into base contact with an enemy is dispersed at once, inflicting no
    losses."""
    return disperse(battle, unit, "disperse_on_contact", ctx)


def disperse(battle: Battle, unit: Unit, trigger: str, ctx: Context) -> list[Outcome]:
    caused: list[Outcome] = []
    for due in battle.due_for(unit.id):
        battle.due.remove(due)
        caused.append(TestNotTaken(unit=unit.id, rule=GRAPH.rule_for(unit, trigger), caused_by=ctx.caused_by,
                                   test=due.test, trigger=due.rule))  # fmt: skip
    unit.restrictions.clear()
    unit.pending.clear()
    caused.append(GRAPH.fire(unit, trigger, ctx.caused_by))
    return caused + mark_dispersal_point(battle, unit, ctx)


@rule("gdb.rout.dispersal_point")
def mark_dispersal_point(battle: Battle, unit: Unit, ctx: Context) -> list[Outcome]:
    """Where a routing unit disperses is marked: friends within 15 cm of it test (gdb.trigger.
    dispersal_near), and its brigade may have to take a Brigade Morale Test (gdb.rout.brigade)."""
    moment = Moment(battle.turn, battle.phase or "", ctx.seq)
    book(unit).dispersed = moment
    detail = f"turn {moment.turn}, {moment.phase} phase"
    caused: list[Outcome] = [MarkerPlaced(unit=unit.id, rule="gdb.rout.dispersal_point", caused_by=ctx.caused_by,
                                          marker="dispersal_point", detail=detail)]  # fmt: skip
    if near_own_brigade(battle, unit) and skirmishers_ignored(unit):
        caused.append(TestNotTaken(unit=unit.id, rule="gdb.rout.skirmishers", caused_by=ctx.caused_by,
                                   test="brigade", trigger="gdb.rout.brigade"))  # fmt: skip
    elif brigade_must_test(battle, unit):
        battle_book(battle).brigade_tests.append((unit.side, str(unit.profile["brigade"]), ctx.caused_by))
    return caused


def near_own_brigade(battle: Battle, unit: Unit) -> bool:
    brigade = unit.profile["brigade"]
    return bool(brigade) and any(f.alive and f.profile["brigade"] == brigade for f in friends_near(battle, unit))


@rule("gdb.rout.brigade")
def brigade_must_test(battle: Battle, unit: Unit) -> bool:
    """Each time a routing unit disperses within 15 cm of any unit of its brigade, that brigade takes
    a Brigade Morale Test (skirmishers' routing is ignored, gdb.rout.skirmishers)."""
    return near_own_brigade(battle, unit) and not skirmishers_ignored(unit)


# -- rally ------------------------------------------------------------------------------------------
def _rallies(battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
    memo = book(unit)
    memo.rallied_turn, memo.routed = battle.turn, None
    return [GRAPH.fire(unit, "rally", caused_by), *set_profile(unit, "gdb.retreat.rally", caused_by, formed=False)]


@rule("gdb.retreat.rally")
def rally_retreating(battle: Battle, unit: Unit, rallied: bool, ctx: Context) -> list[Outcome]:
    """Passed: it stops and its Retreat marker becomes Unformed (regrouped); in the next Movement
    phase it forms up, which takes that whole phase. Failed: it keeps retreating."""
    if rallied:
        return _rallies(battle, unit, ctx.caused_by)
    return [GRAPH.fire(unit, "fail_rally", ctx.caused_by)]


@rule("gdb.rout.rally")
def rally_routing(battle: Battle, unit: Unit, rallied: bool, ctx: Context) -> list[Outcome]:
    """A routing unit gets one rally attempt only. Failed: dispersed. Passed: it stops, Routing
    becomes Unformed (regrouped), and it forms up as in gdb.retreat.rally."""
    book(unit).rally_attempted = True
    if rallied:
        return _rallies(battle, unit, ctx.caused_by)
    return disperse(battle, unit, "fail_rally", ctx)


RESULTS = {
    "charge": charges,
    "carry_on": carries_on,
    "halt": halts,
    "waver": wavers,
    "retreat": retreats,
    "rout": routs,
}
