"""General de Brigade: reading a test in the results table, and what each result does to a unit.

A result never improves a unit's state except through the rally column: a retreating unit that
reads Carry out orders in a Morale test keeps retreating, a wavering one that reads Halt keeps
wavering (the reading this engine takes; see docs/rulesets/gdb.md).

Each result is a list of the outcomes that carry it out (`core/apply.py` applies them), filed as a
reaction to what reads it: a test's result (`Settled`) or a melee result the players state (the fact
`melee_result`); the Brigade Morale Test (`brigade.py`) reads Halt and Retreat for each unit of its
brigade. What follows a unit's retreat (it becomes unformed; artillery limbers up or is lost) reacts
to the retreat itself, once the unit is retreating. The state graph, whose rows cite the clauses
below, closes the module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from morale.events.types import TableFactRecorded

from ...machine import StateGraph
from ...outcomes import (
    Cleared,
    MarkerPlaced,
    Modifier,
    Outcome,
    ProfileChanged,
    RestrictionApplied,
    RestrictionLifted,
    Settled,
    StateChanged,
    TestNotTaken,
)
from ...reactions import Outcomes
from ...rules import DESTROYED, clause
from ...state import Point
from ...view import BattleView, UnitView
from ...words import Words
from .book import Moment, battle_memory, in_melee, remember, remember_battle, unit_memory
from .modifiers import total
from .neighbours import friends_near, skirmishers_ignored
from .profile import ARTILLERY, INFANTRY, PHASES, SKIRMISHERS, figures_lost, formation, full_strength
from .rulebook import RULES
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


def end_of_turn(battle: BattleView) -> Point:
    return (battle.turn, 0, len(PHASES) - 1)


def restrict(
    battle: BattleView, unit: UnitView, name: str, rule_id: str, caused_by: tuple[int, ...]
) -> RestrictionApplied:
    """A restriction until the end of this game turn (the end of its Morale phase); it replaces one
    of the same name."""
    return RestrictionApplied(
        unit=unit.id,
        rule=rule_id,
        caused_by=caused_by,
        restriction=name,
        until=Words("end of turn {turn}", turn=battle.turn),
        ends=end_of_turn(battle),
    )


def lift_restrictions(unit: UnitView, caused_by: tuple[int, ...]) -> list[Outcome]:
    """A unit that wavers, retreats or routs is no longer bound by what an earlier result said.
    A list, read before any is lifted."""
    return [
        RestrictionLifted(unit=unit.id, rule=r.rule, caused_by=caused_by, restriction=r.name) for r in unit.restrictions
    ]


def set_profile(
    unit: UnitView, rule_id: str, caused_by: tuple[int, ...], **changes: bool | int | float | str
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
    table: ResultsTable, column: str, unit: UnitView, dice: tuple[int, ...], modifiers: tuple[Modifier, ...]
) -> tuple[str, int, str]:
    """Roll 2D6, add the modifiers, read the modified total in the column that fits the test.
    Returns the result, the modified total, and the clause that decided it."""
    modified = sum(dice) + total(modifiers)
    rows = getattr(table, column)
    if natural_double_six(dice):
        return read_column(rows, unit.unit_type, None), modified, natural_double_six.id
    return read_column(rows, unit.unit_type, modified), modified, take_test.id


# The columns a unit's own test is read in that give the results below (the rally column gives
# rally or fail, `rally_retreating` and `rally_routing`).
RESULT_COLUMNS = ("charging", "charged", "morale")

# What a result does to a unit, where it came from (`Context`): its outcomes.
Result = Callable[[BattleView, UnitView, Context], list[Outcome]]


def tested(battle: BattleView, settled: Settled) -> Context:
    """The context of a result read in a test's column: the roll and what made the test due."""
    return Context(settled.test, settled.caused_by, battle.seq)


def in_melee_result(battle: BattleView, event: TableFactRecorded) -> Context:
    return Context("melee", (battle.seq,), battle.seq)


def file_result(rule: str, result: str, does: Result, when: Callable[[UnitView], bool] | None = None) -> None:
    """File `does` as the reaction to `result` read in a test's column or stated as a melee result
    (where `when` holds for the unit as it stands then)."""

    def holds(battle: BattleView, unit_id: str) -> bool:
        return when is None or when(battle.units[unit_id])

    RULES.react(
        rule,
        Settled,
        lambda battle, settled: does(battle, battle.units[settled.unit], tested(battle, settled)),
        test=RESULT_COLUMNS,
        when=lambda battle, settled: settled.result.result == result and holds(battle, settled.unit),
    )
    RULES.react(
        rule,
        TableFactRecorded,
        lambda battle, event: does(battle, battle.units[event.unit], in_melee_result(battle, event)),
        fact="melee_result",
        when=lambda battle, event: event.value == result and holds(battle, event.unit),
    )


# -- results ----------------------------------------------------------------------------------------
@clause("gdb.result.charge")
def charges(battle: BattleView, unit: UnitView, ctx: Context) -> list[Outcome]:
    """The unit charges or countercharges with cold steel: it stays steady, free to do so."""
    return []


@clause("gdb.result.carry_on")
def carries_on(battle: BattleView, unit: UnitView, ctx: Context) -> list[Outcome]:
    """Acts as the player wishes but cannot start a melee this turn."""
    if STATE_SEVERITY[unit.state]:
        return []
    return [restrict(battle, unit, "no_melee", carries_on.id, ctx.caused_by)]


@clause("gdb.result.halt")
def halts(battle: BattleView, unit: UnitView, ctx: Context, rule_id: str = "") -> list[Outcome]:
    """Stays where it is until the end of the turn, formed; may shoot but not manoeuvre; cavalry
    fights without its charge bonus."""
    if STATE_SEVERITY[unit.state]:
        return []
    return [restrict(battle, unit, "halted", rule_id or halts.id, ctx.caused_by)]


@clause("gdb.result.waver", phrase=Words("wavers: it stops where it is"))
def wavers(battle: BattleView, unit: UnitView, ctx: Context) -> list[Outcome]:
    """Wavering: it stops and becomes unformed, cannot move until it has reformed, and may shoot
    only if charged. Skirmishers never waver: they Halt instead."""
    if unit.unit_type == SKIRMISHERS:
        return halts(battle, unit, ctx, rule_id=wavers.id)
    if STATE_SEVERITY[unit.state] >= SEVERITY["waver"]:
        return []
    return [
        remember(unit, wavers.id, ctx.caused_by, wavered_turn=battle.turn, formation_before_waver=formation(unit)),
        GRAPH.move(unit, "waver", ctx.caused_by),
        *lift_restrictions(unit, ctx.caused_by),
        *set_profile(unit, wavers.id, ctx.caused_by, formed=False),
        restrict(battle, unit, "may_not_reform", reforms.id, ctx.caused_by),
    ]


@clause("gdb.waver.reform", free_decision="reform", phrase=Words("has reformed: formed again"))
def reforms(battle: BattleView, unit: UnitView, seq: int) -> list[Outcome]:
    """No test is needed to reform; not before the Movement phase of the next turn; it takes one
    whole Movement phase, into the formation it had before, and the unit can neither move, shoot
    nor change formation that turn; at the end of that Movement phase it is formed: steady
    (`reformed`)."""
    return [
        remember(unit, reforms.id, (seq,), reforming_turn=battle.turn),
        restrict(battle, unit, "reforming", reforms.id, (seq,)),
    ]


def reformed(battle: BattleView, unit: UnitView, seq: int) -> list[Outcome]:
    """The end of the Movement phase in which a wavering unit reforms: steady, formed, in the
    formation it had before it wavered (`reforms`)."""
    return [
        GRAPH.move(unit, "reform", (seq,)),
        *set_profile(unit, reforms.id, (seq,), formed=True, formation=unit_memory(unit).formation_before_waver),
    ]


@clause("gdb.result.retreat", phrase=Words("retreats"))
def retreats(battle: BattleView, unit: UnitView, ctx: Context) -> list[Outcome]:
    """Retreating (falling_back): at full retreat speed, facing the enemy, away from it or towards
    its own troops. What the retreat does to the unit follows it (`becomes_unformed`,
    `leaves_buildings`, `artillery_retreats`)."""
    if unit.state == "falling_back" and ctx.source == "melee":
        return [loses_melee(unit, ctx)]
    if STATE_SEVERITY[unit.state] >= SEVERITY["retreat"]:
        return []
    return [GRAPH.move(unit, "retreat", ctx.caused_by)]


@clause("gdb.retreat.melee", phrase={"falling_back": Words("loses the melee automatically and goes on retreating")})
def loses_melee(unit: UnitView, ctx: Context) -> StateChanged:
    """A retreating unit loses any melee automatically and goes on retreating."""
    return GRAPH.move(unit, "lose_melee", ctx.caused_by)


@clause("gdb.retreat.unformed")
def becomes_unformed(unit: UnitView, caused_by: tuple[int, ...]) -> list[Outcome]:
    """A retreating unit becomes unformed (it bunches up in the second half of its retreat move)."""
    return set_profile(unit, becomes_unformed.id, caused_by, formed=False)


def moved_by(trigger: str) -> Callable[[BattleView, StateChanged], bool]:
    return lambda battle, moved: moved.move == trigger


def retreating(battle: BattleView, moved: StateChanged) -> Outcomes:
    """A unit that has begun to retreat is no longer bound by what an earlier result said, and
    becomes unformed."""
    unit = battle.units[moved.unit]
    return [*lift_restrictions(unit, moved.caused_by), *becomes_unformed(unit, moved.caused_by)]


RULES.react(becomes_unformed.id, StateChanged, retreating, when=moved_by("retreat"))


@clause("gdb.retreat.buildings")
def leaves_buildings(battle: BattleView, settled: Settled) -> Outcomes:
    """Infantry defending buildings that must retreat before an enemy charge retreats until it is
    out of the built-up area (the source, 002 (d), says "before an oncoming enemy charge"; other
    retreats leave the unit where the players put it)."""
    unit = battle.units[settled.unit]
    if unit.unit_type == INFANTRY and unit.profile["location"] in ("building", "castle", "church"):
        return set_profile(unit, leaves_buildings.id, settled.caused_by, location="open")
    return []


@clause("gdb.retreat.artillery", phrase=Words("retreats before the enemy and is dispersed, its guns lost"))
def artillery_retreats(battle: BattleView, moved: StateChanged) -> Outcomes:
    """Artillery not charged nor in melee limbers up as a free manoeuvre; artillery retreating
    because of an enemy charge or a lost melee is dispersed (it counts as routing). A unit charged
    this turn was remembered as such before its charged test, and a melee result stands for the
    unit before it is carried out (`in_melee`)."""
    unit = battle.units[moved.unit]
    if unit_memory(unit).charged_turn == battle.turn or in_melee(battle, unit):
        return disperse(battle, unit, "lose_guns_in_retreat", Context("retreat", moved.caused_by, battle.seq))
    return set_profile(unit, artillery_retreats.id, moved.caused_by, formation="limbered")


RULES.react(
    artillery_retreats.id,
    StateChanged,
    artillery_retreats,
    when=lambda battle, moved: moved.move == "retreat" and battle.units[moved.unit].unit_type in ARTILLERY,
)


@clause("gdb.result.rout", phrase=Words("routs"))
def routs(battle: BattleView, unit: UnitView, ctx: Context) -> list[Outcome]:
    """Routing (broken): like retreating, but with its back to the enemy; it does not fight back in
    melee. A routing unit that reads Rout again routs afresh from this result."""
    decided: list[Outcome] = []
    if unit.state != "broken":
        decided += [
            GRAPH.move(unit, "rout", ctx.caused_by),
            *lift_restrictions(unit, ctx.caused_by),
            *becomes_unformed(unit, ctx.caused_by),
        ]
    routed = Moment(battle.turn, battle.phase or "", ctx.seq)
    decided.append(remember(unit, routs.id, ctx.caused_by, routed=routed, rally_attempted=False))
    return decided


@clause("gdb.rout.heavy_losses", phrase=Words("has lost more than 35% of its strength and is dispersed at once"))
def loses_too_many_to_rout(unit: UnitView) -> bool:
    """A unit that has lost more than 35% of its strength is dispersed at once on a Rout result."""
    return figures_lost(unit) * 100 > 35 * full_strength(unit)


@clause("gdb.rout.artillery", phrase=Words("abandons its guns and leaves the field: dispersed"))
def abandons_guns(unit: UnitView) -> bool:
    """Routing artillery abandons its guns and leaves the field."""
    return unit.unit_type in ARTILLERY


def dispersed_by(trigger: str) -> Result:
    return lambda battle, unit, ctx: disperse(battle, unit, trigger, ctx)


def routing(unit: UnitView) -> bool:
    """Still routing once the Rout result is read (not yet dispersed by the clause before)."""
    return unit.state == "broken"


@clause("gdb.rout.contact", fact="contact_with_enemy", phrase=Words("is caught by the enemy and dispersed"))
def caught_by_enemy(battle: BattleView, unit: UnitView, ctx: Context) -> list[Outcome]:
    """A routing unit that comes into base contact with an enemy is dispersed at once, inflicting no
    losses."""
    return disperse(battle, unit, "disperse_on_contact", ctx)


def disperse(battle: BattleView, unit: UnitView, trigger: str, ctx: Context) -> list[Outcome]:
    """The unit leaves the battle by `trigger`: the tests it faced are moot, nothing is left
    pending, and its dispersal point is marked."""
    rule_id = GRAPH.rule_for(unit, trigger)
    lapsed: list[Outcome] = [
        TestNotTaken(
            unit=unit.id, rule=rule_id, caused_by=ctx.caused_by, test=due.test, trigger=due.rule, withdrawn=True
        )
        for due in battle.due_for(unit.id)
    ]
    return [
        *lapsed,
        Cleared(unit=unit.id, rule=rule_id, caused_by=ctx.caused_by),
        GRAPH.move(unit, trigger, ctx.caused_by),
        *mark_dispersal_point(battle, unit, ctx),
    ]


# Where a dispersal point was marked, as its marker says: one sentence a phase (a dispersal is read
# only in a phase: the players state the facts and roll the tests inside one).
DISPERSED_IN: dict[str, Callable[[int], str]] = {
    "movement": lambda turn: Words("turn {turn}, movement phase", turn=turn),
    "charge": lambda turn: Words("turn {turn}, charge phase", turn=turn),
    "shooting": lambda turn: Words("turn {turn}, shooting phase", turn=turn),
    "melee": lambda turn: Words("turn {turn}, melee phase", turn=turn),
    "morale": lambda turn: Words("turn {turn}, morale phase", turn=turn),
    "": lambda turn: Words("turn {turn},  phase", turn=turn),
}


@clause("gdb.rout.dispersal_point")
def mark_dispersal_point(battle: BattleView, unit: UnitView, ctx: Context) -> list[Outcome]:
    """Where a routing unit disperses is marked: friends within 15 cm of it test (gdb.trigger.
    dispersal_near), and its brigade may have to take a Brigade Morale Test (gdb.rout.brigade: the
    test is owed until the result that dispersed the unit is carried out, `brigade_tests_due`)."""
    moment = Moment(battle.turn, battle.phase or "", ctx.seq)
    detail = DISPERSED_IN[moment.phase](moment.turn)
    decided: list[Outcome] = [
        remember(unit, mark_dispersal_point.id, ctx.caused_by, dispersed=moment),
        MarkerPlaced(
            unit=unit.id, rule=mark_dispersal_point.id, caused_by=ctx.caused_by, marker="dispersal_point", detail=detail
        ),
    ]
    if near_own_brigade(battle, unit) and skirmishers_ignored(unit):
        decided.append(
            TestNotTaken(
                unit=unit.id,
                rule=skirmishers_ignored.id,
                caused_by=ctx.caused_by,
                test="brigade",
                trigger=brigade_must_test.id,
            )
        )
    elif brigade_must_test(battle, unit):
        owed = (unit.side, str(unit.profile["brigade"]), ctx.caused_by)
        decided.append(
            remember_battle(
                brigade_must_test.id, ctx.caused_by, brigade_tests=[*battle_memory(battle).brigade_tests, owed]
            )
        )
    return decided


def near_own_brigade(battle: BattleView, unit: UnitView) -> bool:
    brigade = unit.profile["brigade"]
    return bool(brigade) and any(f.alive and f.profile["brigade"] == brigade for f in friends_near(battle, unit))


@clause("gdb.rout.brigade")
def brigade_must_test(battle: BattleView, unit: UnitView) -> bool:
    """Each time a routing unit disperses within 15 cm of any unit of its brigade, that brigade takes
    a Brigade Morale Test (skirmishers' routing is ignored, gdb.rout.skirmishers)."""
    return near_own_brigade(battle, unit) and not skirmishers_ignored(unit)


# -- rally ------------------------------------------------------------------------------------------
def _rallies(battle: BattleView, unit: UnitView, caused_by: tuple[int, ...]) -> list[Outcome]:
    return [
        remember(unit, rally_retreating.id, caused_by, rallied_turn=battle.turn, routed=None),
        GRAPH.move(unit, "rally", caused_by),
        *set_profile(unit, rally_retreating.id, caused_by, formed=False),
    ]


def rallied(settled: Settled) -> bool:
    return settled.result.result == "rally"


@RULES.clause(
    "gdb.retreat.rally",
    phrase={
        "regrouped": Words("rallies: it stops, unformed"),
        "steady": Words("has formed up: formed again"),
        "falling_back": Words("keeps retreating"),
    },
    reacts_to=Settled,
    test="rally",
    when=lambda battle, settled: battle.units[settled.unit].state == "falling_back",
)
def rally_retreating(battle: BattleView, settled: Settled) -> Outcomes:
    """Passed: it stops and its Retreat marker becomes Unformed (regrouped); in the next Movement
    phase it forms up, which takes that whole phase (`formed_up`). Failed: it keeps retreating."""
    unit = battle.units[settled.unit]
    if rallied(settled):
        return _rallies(battle, unit, settled.caused_by)
    return [GRAPH.move(unit, "fail_rally", settled.caused_by)]


def forms_up(battle: BattleView, unit: UnitView, seq: int) -> list[Outcome]:
    """A unit that rallied in an earlier turn forms up in this turn's Movement phase (`rally_retreating`)."""
    return [
        remember(unit, rally_retreating.id, (seq,), forming_up_turn=battle.turn),
        restrict(battle, unit, "forming_up", rally_retreating.id, (seq,)),
    ]


def formed_up(battle: BattleView, unit: UnitView, seq: int) -> list[Outcome]:
    """The end of the Movement phase in which it forms up: steady and formed (`rally_retreating`)."""
    return [GRAPH.move(unit, "form_up", (seq,)), *set_profile(unit, rally_retreating.id, (seq,), formed=True)]


@RULES.clause(
    "gdb.rout.rally",
    phrase={
        "regrouped": Words("rallies: it stops, unformed"),
        "dispersed": Words("fails its one rally attempt and is dispersed"),
    },
    reacts_to=Settled,
    test="rally",
    when=lambda battle, settled: battle.units[settled.unit].state == "broken",
)
def rally_routing(battle: BattleView, settled: Settled) -> Outcomes:
    """A routing unit gets one rally attempt only. Failed: dispersed. Passed: it stops, Routing
    becomes Unformed (regrouped), and it forms up as in gdb.retreat.rally."""
    unit = battle.units[settled.unit]
    attempt = remember(unit, rally_routing.id, settled.caused_by, rally_attempted=True)
    if rallied(settled):
        return [attempt, *_rallies(battle, unit, settled.caused_by)]
    return [attempt, *disperse(battle, unit, "fail_rally", tested(battle, settled))]


# What the rulebook's melee table may give a unit (the fact melee_result).
MELEE_RESULTS = ("carry_on", "halt", "waver", "retreat", "rout")


@clause("gdb.note.melee", fact={"in_melee": "bool", "melee_result": MELEE_RESULTS})
def melee_result_stands(battle: BattleView, unit: UnitView) -> bool:
    """A unit in melee, or overrun as a result of melee, takes no Morale-phase test."""
    return in_melee(battle, unit)


def melee_remembered(battle: BattleView, event: TableFactRecorded) -> Outcomes:
    """A melee result stands for the unit this turn (`melee_result_stands`) before it is carried out."""
    return [remember(battle.units[event.unit], melee_result_stands.id, (battle.seq,), melee_turn=battle.turn)]


RULES.react(melee_result_stands.id, TableFactRecorded, melee_remembered, fact="melee_result")

# Each result a test's column or a melee gives, in the table's order, and then what a Rout brings at
# once; Charge does nothing of itself (the charger's targets test, `targets_test`).
file_result(carries_on.id, "carry_on", carries_on)
file_result(halts.id, "halt", halts)
file_result(wavers.id, "waver", wavers)
file_result(retreats.id, "retreat", retreats)
file_result(routs.id, "rout", routs)
file_result(
    loses_too_many_to_rout.id,
    "rout",
    dispersed_by("disperse_with_heavy_losses"),
    when=lambda unit: routing(unit) and loses_too_many_to_rout(unit),
)
file_result(
    abandons_guns.id, "rout", dispersed_by("abandon_guns"), when=lambda unit: routing(unit) and abandons_guns(unit)
)
RULES.react(
    leaves_buildings.id,
    Settled,
    leaves_buildings,
    test="charged",
    when=lambda battle, settled: settled.result.result == "retreat",
)

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
