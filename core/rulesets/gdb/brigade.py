"""General de Brigade: the Brigade Morale Test (its numbers are data: `gdb_brigade.toml`).

A brigade is every unit of a side whose profile names the same brigade. The test has no unit of
its own, so it is rolled as the `brigade` test of the brigade's first unit still in the field
(in the order the units joined the battle); the narrative names the brigade.
"""

from __future__ import annotations

from ...engine import resolved
from ...outcomes import Modifier, Outcome, Rolled, Settled, TestResolved
from ...reactions import Outcomes
from ...rules import clause
from ...view import BattleView, UnitView
from ...words import Words, counted, listed
from .book import in_melee
from .modifiers import total
from .neighbours import skirmishers_ignored
from .results import Context, halts, retreats
from .rulebook import RULES
from .tables import BrigadeTable, read_column


def brigade_of(unit: UnitView) -> str:
    return str(unit.profile["brigade"])


def members(battle: BattleView, side: str, brigade: str) -> list[UnitView]:
    return [u for u in battle.units.values() if u.side == side and brigade_of(u) == brigade]


def lead_unit(battle: BattleView, side: str, brigade: str) -> UnitView | None:
    """The unit that rolls for the brigade: its first still in the field."""
    return next((u for u in members(battle, side, brigade) if u.alive), None)


@clause("gdb.brigade.test")
def brigade_modifiers(battle: BattleView, table: BrigadeTable, side: str, brigade: str) -> tuple[Modifier, ...]:
    """2D6 + the brigade commander with the brigade, and for each unit of the brigade dispersed or
    routing (the table's numbers: +1 and -1 by default). Routing skirmishers are ignored."""
    units = members(battle, side, brigade)
    modifiers = []
    if any(u.alive and u.profile["commander"] == "brigade" for u in units):
        modifiers.append(
            Modifier(rule=brigade_modifiers.id, value=table.commander, reason=Words("brigade commander present"))
        )
    lost = [u.id for u in units if u.state in ("dispersed", "broken") and not skirmishers_ignored(u)]
    if lost:
        reason = counted(
            "dispersed or routing: {units}", "dispersed or routing: {units}", n=len(lost), units=listed(lost)
        )
        modifiers.append(Modifier(rule=brigade_modifiers.id, value=table.per_unit_lost * len(lost), reason=reason))
    return tuple(modifiers)


def rolls_for_the_brigade(battle: BattleView, rolled: Rolled) -> Outcomes:
    """The dice of a Brigade Morale Test, read in the brigade table: its result, which the units of
    the brigade react to (`brigade_result`)."""
    due, dice = rolled.due, rolled.dice
    table: BrigadeTable = battle.tables["brigade"]
    lead = battle.units[due.unit]
    modified = sum(dice) + total(due.modifiers)
    result = read_column(table.rows, lead.unit_type, modified)
    caused_by = (*due.caused_by, *rolled.caused_by)
    return resolved(
        due,
        TestResolved(
            unit=lead.id,
            rule=brigade_modifiers.id,
            caused_by=caused_by,
            test=due.test,
            trigger=due.rule,
            passed=result == "holds",
            dice=dice,
            total=modified,
            modifiers=due.modifiers,
            result=result,
            column="brigade",
            detail=Words("for brigade {brigade}", brigade=brigade_of(lead)),
        ),
        caused_by,
    )


RULES.react(brigade_modifiers.id, Rolled, rolls_for_the_brigade, test="brigade")


def brigade_result(battle: BattleView, settled: Settled) -> Outcomes:
    """7 or more: the brigade holds; 4-6: every unit of the brigade not in melee Halts this turn;
    3 or less: every unit not in melee Retreats (the default table)."""
    lead = battle.units[settled.unit]
    ctx = Context("brigade", settled.caused_by, battle.seq)
    decided: list[Outcome] = []
    for unit in members(battle, lead.side, brigade_of(lead)):
        if unit.alive and not in_melee(battle, unit):
            if settled.result.result == "halt":
                decided += halts(battle, unit, ctx, brigade_modifiers.id)
            else:
                decided += retreats(battle, unit, ctx)
    return decided


RULES.react(
    brigade_modifiers.id,
    Settled,
    brigade_result,
    test="brigade",
    when=lambda battle, settled: settled.result.result != "holds",
)
