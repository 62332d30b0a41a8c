"""WFB 8th edition close combat: who fights whom, how a round is scored, who is Steadfast, and the
multiple-combat clauses (`wfb8.multi.*` in `clauses.toml`).

Who is locked in combat with whom is kept in each unit's notes (`foes`): Panic and Break tests depend
on it. It comes from charges that reach their targets, from combat reports and from the table.
"""

from __future__ import annotations

from morale.events.types import CombatSide

from ...outcomes import EngagementChanged, Noted
from ...rules import clause
from ...state import Unit


def foes(unit: Unit) -> tuple[str, ...]:
    return unit.notes.get("foes", ())  # type: ignore[return-value]  # as `set_foes` notes them: a tuple of ids


def engaged(unit: Unit) -> bool:
    return bool(foes(unit))


def set_foes(unit: Unit, enemies: tuple[str, ...], rule: str, caused_by: tuple[int, ...]) -> Noted:
    """The unit now fights `enemies` (none: the note goes), as `rule` has it."""
    return Noted(
        unit=unit.id, rule=rule, caused_by=caused_by, notes={"foes": tuple(sorted(set(enemies))) if enemies else None}
    )


def has_no_more_foes(unit_id: str, caused_by: tuple[int, ...]) -> EngagementChanged:
    return EngagementChanged(
        unit=unit_id,
        rule=no_more_foes.id,
        caused_by=caused_by,
        engaged=False,
        detail="no enemy left: counts as having won",
    )


@clause("wfb8.multi.left_combat")
def still_in_combat(side: CombatSide) -> list[str]:
    """A unit that leaves the combat because it lost base contact still adds its wounds to the result
    (they are in the side's wounds_inflicted), but none of its other bonuses, and it no longer counts
    when deciding which enemy units are Steadfast. The units that still count:"""
    return [u for u in side.units if u not in side.left_combat]


def combat_score(side: CombatSide) -> int:
    return side.wounds_inflicted + side.bonus + sum(side.unit_bonus.get(u, 0) for u in still_in_combat(side))


@clause("wfb8.multi.no_more_foes")
def no_more_foes(unit: Unit, side: CombatSide) -> bool:
    """Left with no enemy in base contact at the end of a round (its foes destroyed), a unit counts as
    having won the combat and acts normally, with no penalty: it takes no Break test."""
    return unit.id in side.left_combat


def steadfast(unit: Unit, side: CombatSide, enemy: CombatSide) -> str:
    """For the Break test (`ruleset.break_test`): more ranks than every enemy unit still in the
    combat; Stubborn units always are. Returns why the unit is Steadfast, or ""."""
    if unit.has("stubborn"):
        return "Stubborn: always Steadfast"
    own = side.ranks.get(unit.id, 0)
    best = max((enemy.ranks.get(u, 0) for u in still_in_combat(enemy)), default=0)
    return f"Steadfast: {own} ranks to {best}" if own > best else ""
