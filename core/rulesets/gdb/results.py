"""General de Brigade: reading a test in the results table, and what each result does to a unit.

A result never improves a unit's state except through the rally column: a retreating unit that
reads Carry out orders in a Morale test keeps retreating, a wavering one that reads Halt keeps
wavering (the reading this engine takes; see docs/rulesets/gdb.md).

Each result yields the outcomes that carry it out (`core/apply.py` applies them); the state graph,
whose rows cite the clauses below, closes the module.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...apply import Decided
from ...machine import StateGraph
from ...outcomes import (
    Cleared,
    MarkerPlaced,
    Modifier,
    Outcome,
    ProfileChanged,
    RestrictionApplied,
    RestrictionLifted,
    StateChanged,
    TestNotTaken,
)
from ...rules import DESTROYED, clause
from ...state import Battle, Point, Unit
from .book import Moment, battle_book, book, in_melee, remember, remember_battle
from .modifiers import total
from .neighbours import friends_near, skirmishers_ignored
from .profile import ARTILLERY, INFANTRY, PHASES, SKIRMISHERS, figures_lost, formation, full_strength
from .tables import ResultsTable, read_column

# How bad a state is, and how bad the results that move a unit a step down (Waver, Retreat) are: a
# result only makes a unit worse. Rout always acts; Halt and Carry on restrict only a unit in good order.
SEVERITY = {"waver": 2, "retreat": 3}
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
    """A restriction until the end of this game turn (the end of its Morale phase); it replaces one
    of the same name."""
    return RestrictionApplied(
        unit=unit.id,
        rule=rule_id,
        caused_by=caused_by,
        restriction=name,
        until=f"end of turn {battle.turn}",
        ends=end_of_turn(battle),
    )


def lift_restrictions(unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
    """A unit that wavers, retreats or routs is no longer bound by what an earlier result said.
    A list, read before any is lifted."""
    return [
        RestrictionLifted(unit=unit.id, rule=r.rule, caused_by=caused_by, restriction=r.name) for r in unit.restrictions
    ]


def set_profile(
    unit: Unit, rule_id: str, caused_by: tuple[int, ...], **changes: bool | int | float | str
) -> list[Outcome]:
    """The rules change the unit's profile; an outcome only when something actually changes."""
    changed = {k: v for k, v in changes.items() if unit.profile.get(k) != v}
    if not changed:
        return []
    return [ProfileChanged(unit=unit.id, rule=rule_id, caused_by=caused_by, changes=changed)]


# -- the test ---------------------------------------------------------------------------------------
@clause("gdb.test.double_six")
def natural_double_six(dice: tuple[int, ...]) -> bool:
    """A natural double six passes automatically: the best result of its column."""
    return dice == (6, 6)


@clause("gdb.test.procedure")
def take_test(
    table: ResultsTable, column: str, unit: Unit, dice: tuple[int, ...], modifiers: tuple[Modifier, ...]
) -> tuple[str, int, str]:
    """Roll 2D6, add the modifiers, read the modified total in the column that fits the test.
    Returns the result, the modified total, and the clause that decided it."""
    modified = sum(dice) + total(modifiers)
    rows = getattr(table, column)
    if natural_double_six(dice):
        return read_column(rows, unit.unit_type, None), modified, natural_double_six.id
    return read_column(rows, unit.unit_type, modified), modified, take_test.id


def apply_result(battle: Battle, unit: Unit, result: str, ctx: Context) -> Decided:
    return RESULTS[result](battle, unit, ctx)


# -- results ----------------------------------------------------------------------------------------
@clause("gdb.result.charge")
def charges(battle: Battle, unit: Unit, ctx: Context) -> Decided:
    """The unit charges or countercharges with cold steel: it stays steady, free to do so."""
    return ()


@clause("gdb.result.carry_on")
def carries_on(battle: Battle, unit: Unit, ctx: Context) -> Decided:
    """Acts as the player wishes but cannot start a melee this turn."""
    if STATE_SEVERITY[unit.state]:
        return ()
    return (restrict(battle, unit, "no_melee", carries_on.id, ctx.caused_by),)


@clause("gdb.result.halt")
def halts(battle: Battle, unit: Unit, ctx: Context, rule_id: str = "") -> Decided:
    """Stays where it is until the end of the turn, formed; may shoot but not manoeuvre; cavalry
    fights without its charge bonus."""
    if STATE_SEVERITY[unit.state]:
        return ()
    return (restrict(battle, unit, "halted", rule_id or halts.id, ctx.caused_by),)


@clause("gdb.result.waver", phrase="wavers: it stops where it is")
def wavers(battle: Battle, unit: Unit, ctx: Context) -> Decided:
    """Wavering: it stops and becomes unformed, cannot move until it has reformed, and may shoot
    only if charged. Skirmishers never waver: they Halt instead."""
    if unit.unit_type == SKIRMISHERS:
        yield from halts(battle, unit, ctx, rule_id=wavers.id)
        return
    if STATE_SEVERITY[unit.state] >= SEVERITY["waver"]:
        return
    yield remember(unit, wavers.id, ctx.caused_by, wavered_turn=battle.turn, formation_before_waver=formation(unit))
    yield GRAPH.move(unit, "waver", ctx.caused_by)
    yield from lift_restrictions(unit, ctx.caused_by)
    yield from set_profile(unit, wavers.id, ctx.caused_by, formed=False)
    yield restrict(battle, unit, "may_not_reform", reforms.id, ctx.caused_by)


@clause("gdb.waver.reform", free_decision="reform", phrase="has reformed: formed again")
def reforms(battle: Battle, unit: Unit, seq: int) -> Decided:
    """No test is needed to reform; not before the Movement phase of the next turn; it takes one
    whole Movement phase, into the formation it had before, and the unit can neither move, shoot
    nor change formation that turn; at the end of that Movement phase it is formed: steady
    (`reformed`)."""
    yield remember(unit, reforms.id, (seq,), reforming_turn=battle.turn)
    yield restrict(battle, unit, "reforming", reforms.id, (seq,))


def reformed(battle: Battle, unit: Unit, seq: int) -> Decided:
    """The end of the Movement phase in which a wavering unit reforms: steady, formed, in the
    formation it had before it wavered (`reforms`)."""
    yield GRAPH.move(unit, "reform", (seq,))
    yield from set_profile(unit, reforms.id, (seq,), formed=True, formation=book(unit).formation_before_waver)


@clause("gdb.result.retreat", phrase="retreats")
def retreats(battle: Battle, unit: Unit, ctx: Context) -> Decided:
    """Retreating (falling_back): at full retreat speed, facing the enemy, away from it or towards
    its own troops."""
    if unit.state == "falling_back" and ctx.source == "melee":
        yield loses_melee(unit, ctx)
        return
    if STATE_SEVERITY[unit.state] >= SEVERITY["retreat"]:
        return
    yield GRAPH.move(unit, "retreat", ctx.caused_by)
    yield from lift_restrictions(unit, ctx.caused_by)
    yield from becomes_unformed(unit, ctx.caused_by)
    yield from leaves_buildings(unit, ctx)
    if unit.unit_type in ARTILLERY:
        yield from artillery_retreats(battle, unit, ctx)


@clause("gdb.retreat.melee", phrase={"falling_back": "loses the melee automatically and goes on retreating"})
def loses_melee(unit: Unit, ctx: Context) -> StateChanged:
    """A retreating unit loses any melee automatically and goes on retreating."""
    return GRAPH.move(unit, "lose_melee", ctx.caused_by)


@clause("gdb.retreat.unformed")
def becomes_unformed(unit: Unit, caused_by: tuple[int, ...]) -> list[Outcome]:
    """A retreating unit becomes unformed (it bunches up in the second half of its retreat move)."""
    return set_profile(unit, becomes_unformed.id, caused_by, formed=False)


@clause("gdb.retreat.buildings")
def leaves_buildings(unit: Unit, ctx: Context) -> list[Outcome]:
    """Infantry defending buildings that must retreat before an enemy charge retreats until it is
    out of the built-up area (the source, 002 (d), says "before an oncoming enemy charge"; other
    retreats leave the unit where the players put it)."""
    charged = ctx.source == "charged"
    if charged and unit.unit_type == INFANTRY and unit.profile["location"] in ("building", "castle", "church"):
        return set_profile(unit, leaves_buildings.id, ctx.caused_by, location="open")
    return []


@clause("gdb.retreat.artillery", phrase="retreats before the enemy and is dispersed, its guns lost")
def artillery_retreats(battle: Battle, unit: Unit, ctx: Context) -> Decided:
    """Artillery not charged nor in melee limbers up as a free manoeuvre; artillery retreating
    because of an enemy charge or a lost melee is dispersed (it counts as routing)."""
    charged = ctx.source in ("charged", "melee") or book(unit).charged_turn == battle.turn or in_melee(battle, unit)
    if charged:
        return disperse(battle, unit, "lose_guns_in_retreat", ctx)
    return set_profile(unit, artillery_retreats.id, ctx.caused_by, formation="limbered")


@clause("gdb.result.rout", phrase="routs")
def routs(battle: Battle, unit: Unit, ctx: Context) -> Decided:
    """Routing (broken): like retreating, but with its back to the enemy; it does not fight back in
    melee. A routing unit that reads Rout again routs afresh from this result."""
    if unit.state != "broken":
        yield GRAPH.move(unit, "rout", ctx.caused_by)
        yield from lift_restrictions(unit, ctx.caused_by)
        yield from becomes_unformed(unit, ctx.caused_by)
    routed = Moment(battle.turn, battle.phase or "", ctx.seq)
    yield remember(unit, routs.id, ctx.caused_by, routed=routed, rally_attempted=False)
    if loses_too_many_to_rout(unit):
        yield from disperse(battle, unit, "disperse_with_heavy_losses", ctx)
    elif abandons_guns(unit):
        yield from disperse(battle, unit, "abandon_guns", ctx)


@clause("gdb.rout.heavy_losses", phrase="has lost more than 35% of its strength and is dispersed at once")
def loses_too_many_to_rout(unit: Unit) -> bool:
    """A unit that has lost more than 35% of its strength is dispersed at once on a Rout result."""
    return figures_lost(unit) * 100 > 35 * full_strength(unit)


@clause("gdb.rout.artillery", phrase="abandons its guns and leaves the field: dispersed")
def abandons_guns(unit: Unit) -> bool:
    """Routing artillery abandons its guns and leaves the field."""
    return unit.unit_type in ARTILLERY


@clause("gdb.rout.contact", fact="contact_with_enemy", phrase="is caught by the enemy and dispersed")
def caught_by_enemy(battle: Battle, unit: Unit, ctx: Context) -> Decided:
    """A routing unit that comes into base contact with an enemy is dispersed at once, inflicting no
    losses."""
    return disperse(battle, unit, "disperse_on_contact", ctx)


def disperse(battle: Battle, unit: Unit, trigger: str, ctx: Context) -> Decided:
    """The unit leaves the battle by `trigger`: the tests it faced are moot, nothing is left
    pending, and its dispersal point is marked."""
    rule_id = GRAPH.rule_for(unit, trigger)
    for due in battle.due_for(unit.id):
        yield TestNotTaken(
            unit=unit.id, rule=rule_id, caused_by=ctx.caused_by, test=due.test, trigger=due.rule, withdrawn=True
        )
    yield Cleared(unit=unit.id, rule=rule_id, caused_by=ctx.caused_by)
    yield GRAPH.move(unit, trigger, ctx.caused_by)
    yield from mark_dispersal_point(battle, unit, ctx)


@clause("gdb.rout.dispersal_point")
def mark_dispersal_point(battle: Battle, unit: Unit, ctx: Context) -> Decided:
    """Where a routing unit disperses is marked: friends within 15 cm of it test (gdb.trigger.
    dispersal_near), and its brigade may have to take a Brigade Morale Test (gdb.rout.brigade)."""
    moment = Moment(battle.turn, battle.phase or "", ctx.seq)
    yield remember(unit, mark_dispersal_point.id, ctx.caused_by, dispersed=moment)
    detail = f"turn {moment.turn}, {moment.phase} phase"
    yield MarkerPlaced(
        unit=unit.id, rule=mark_dispersal_point.id, caused_by=ctx.caused_by, marker="dispersal_point", detail=detail
    )
    if near_own_brigade(battle, unit) and skirmishers_ignored(unit):
        yield TestNotTaken(
            unit=unit.id,
            rule=skirmishers_ignored.id,
            caused_by=ctx.caused_by,
            test="brigade",
            trigger=brigade_must_test.id,
        )
    elif brigade_must_test(battle, unit):
        owed = (unit.side, str(unit.profile["brigade"]), ctx.caused_by)
        yield remember_battle(
            brigade_must_test.id, ctx.caused_by, brigade_tests=[*battle_book(battle).brigade_tests, owed]
        )


def near_own_brigade(battle: Battle, unit: Unit) -> bool:
    brigade = unit.profile["brigade"]
    return bool(brigade) and any(f.alive and f.profile["brigade"] == brigade for f in friends_near(battle, unit))


@clause("gdb.rout.brigade")
def brigade_must_test(battle: Battle, unit: Unit) -> bool:
    """Each time a routing unit disperses within 15 cm of any unit of its brigade, that brigade takes
    a Brigade Morale Test (skirmishers' routing is ignored, gdb.rout.skirmishers)."""
    return near_own_brigade(battle, unit) and not skirmishers_ignored(unit)


# -- rally ------------------------------------------------------------------------------------------
def _rallies(battle: Battle, unit: Unit, caused_by: tuple[int, ...]) -> Decided:
    yield remember(unit, rally_retreating.id, caused_by, rallied_turn=battle.turn, routed=None)
    yield GRAPH.move(unit, "rally", caused_by)
    yield from set_profile(unit, rally_retreating.id, caused_by, formed=False)


@clause(
    "gdb.retreat.rally",
    phrase={
        "regrouped": "rallies: it stops, unformed",
        "steady": "has formed up: formed again",
        "falling_back": "keeps retreating",
    },
)
def rally_retreating(battle: Battle, unit: Unit, rallied: bool, ctx: Context) -> Decided:
    """Passed: it stops and its Retreat marker becomes Unformed (regrouped); in the next Movement
    phase it forms up, which takes that whole phase (`formed_up`). Failed: it keeps retreating."""
    if rallied:
        return _rallies(battle, unit, ctx.caused_by)
    return (GRAPH.move(unit, "fail_rally", ctx.caused_by),)


def forms_up(battle: Battle, unit: Unit, seq: int) -> Decided:
    """A unit that rallied in an earlier turn forms up in this turn's Movement phase (`rally_retreating`)."""
    yield remember(unit, rally_retreating.id, (seq,), forming_up_turn=battle.turn)
    yield restrict(battle, unit, "forming_up", rally_retreating.id, (seq,))


def formed_up(battle: Battle, unit: Unit, seq: int) -> Decided:
    """The end of the Movement phase in which it forms up: steady and formed (`rally_retreating`)."""
    yield GRAPH.move(unit, "form_up", (seq,))
    yield from set_profile(unit, rally_retreating.id, (seq,), formed=True)


@clause(
    "gdb.rout.rally",
    phrase={"regrouped": "rallies: it stops, unformed", "dispersed": "fails its one rally attempt and is dispersed"},
)
def rally_routing(battle: Battle, unit: Unit, rallied: bool, ctx: Context) -> Decided:
    """A routing unit gets one rally attempt only. Failed: dispersed. Passed: it stops, Routing
    becomes Unformed (regrouped), and it forms up as in gdb.retreat.rally."""
    yield remember(unit, rally_routing.id, ctx.caused_by, rally_attempted=True)
    if rallied:
        yield from _rallies(battle, unit, ctx.caused_by)
    else:
        yield from disperse(battle, unit, "fail_rally", ctx)


RESULTS = {
    "charge": charges,
    "carry_on": carries_on,
    "halt": halts,
    "waver": wavers,
    "retreat": retreats,
    "rout": routs,
}

# -- the state graph: each row cites the clause above that moves a unit along it ---------------------
ALIVE = ["steady", "regrouped", "wavering", "falling_back", "broken"]
GRAPH = StateGraph(
    [
        {"trigger": "waver", "source": ["steady", "regrouped"], "dest": "wavering", "rule": wavers.id},
        {
            "trigger": "retreat",
            "source": ["steady", "regrouped", "wavering"],
            "dest": "falling_back",
            "rule": retreats.id,
        },
        {
            "trigger": "rout",
            "source": ["steady", "regrouped", "wavering", "falling_back"],
            "dest": "broken",
            "rule": routs.id,
        },
        {"trigger": "reform", "source": "wavering", "dest": "steady", "rule": reforms.id},
        {"trigger": "lose_melee", "source": "falling_back", "dest": "=", "rule": loses_melee.id},
        {"trigger": "rally", "source": "falling_back", "dest": "regrouped", "rule": rally_retreating.id},
        {"trigger": "fail_rally", "source": "falling_back", "dest": "=", "rule": rally_retreating.id},
        {"trigger": "form_up", "source": "regrouped", "dest": "steady", "rule": rally_retreating.id},
        {"trigger": "rally", "source": "broken", "dest": "regrouped", "rule": rally_routing.id},
        {"trigger": "fail_rally", "source": "broken", "dest": "dispersed", "rule": rally_routing.id},
        {
            "trigger": "disperse_with_heavy_losses",
            "source": "broken",
            "dest": "dispersed",
            "rule": loses_too_many_to_rout.id,
        },
        {"trigger": "abandon_guns", "source": "broken", "dest": "dispersed", "rule": abandons_guns.id},
        {"trigger": "disperse_on_contact", "source": "broken", "dest": "dispersed", "rule": caught_by_enemy.id},
        {
            "trigger": "lose_guns_in_retreat",
            "source": "falling_back",
            "dest": "dispersed",
            "rule": artillery_retreats.id,
        },
        {"trigger": "lose_last_model", "source": ALIVE, "dest": "destroyed", "rule": DESTROYED},
    ]
)
