"""WFB 8th edition close combat: who fights whom, how a round is scored, who is Steadfast, and the
multiple-combat clauses (`wfb8.multi.*` in `clauses.toml`).

Who is locked in combat with whom is kept in each unit's marks (`foes`): Panic and Break tests depend
on it. It comes from charges that reach their targets, from combat reports and from the table.
"""

from __future__ import annotations

from morale.events.types import CombatSide

from ...outcomes import EngagementChanged, Modifier
from ...rules import rule
from ...state import Unit


def foes(unit: Unit) -> tuple[str, ...]:
    return unit.notes.get("foes", ())  # type: ignore[return-value]


def engaged(unit: Unit) -> bool:
    return bool(foes(unit))


def set_foes(unit: Unit, enemies: tuple[str, ...]) -> None:
    if enemies:
        unit.notes["foes"] = tuple(sorted(set(enemies)))
    else:
        unit.notes.pop("foes", None)


def enters_combat(unit_id: str, caused_by: tuple[int, ...]) -> EngagementChanged:
    return EngagementChanged(unit=unit_id, rule="wfb8.panic.exempt", caused_by=caused_by, engaged=True,
                             detail="Break tests, not Panic tests, govern it")  # fmt: skip


def has_no_more_foes(unit_id: str, caused_by: tuple[int, ...]) -> EngagementChanged:
    return EngagementChanged(unit=unit_id, rule="wfb8.multi.no_more_foes", caused_by=caused_by, engaged=False,
                             detail="no enemy left: counts as having won")  # fmt: skip


@rule("wfb8.multi.left_combat")
def still_in_combat(side: CombatSide) -> list[str]:
    """A unit that leaves the combat because it lost base contact still adds its wounds to the result
    (they are in the side's wounds_inflicted), but none of its other bonuses, and it no longer counts
    when deciding which enemy units are Steadfast. The units that still count:"""
    return [u for u in side.units if u not in side.left_combat]


def combat_score(side: CombatSide) -> int:
    return side.wounds_inflicted + side.bonus + sum(side.unit_bonus.get(u, 0) for u in still_in_combat(side))


@rule("wfb8.multi.no_more_foes")
def no_more_foes(unit: Unit, side: CombatSide) -> bool:
    """Left with no enemy in base contact at the end of a round (its foes destroyed), a unit counts as
    having won the combat and acts normally, with no penalty: it takes no Break test."""
    return unit.id in side.left_combat


def steadfast(unit: Unit, side: CombatSide, enemy: CombatSide) -> str:
    """wfb8.break.test: more ranks than every enemy unit still in the combat; Stubborn units always are.
    Returns why the unit is Steadfast, or ""."""
    if unit.has("stubborn"):
        return "Stubborn: always Steadfast"
    own = side.ranks.get(unit.id, 0)
    best = max((enemy.ranks.get(u, 0) for u in still_in_combat(enemy)), default=0)
    return f"Steadfast: {own} ranks to {best}" if own > best else ""


def break_modifier(margin: int, steadfast_because: str) -> Modifier:
    reason = f"combat lost by {margin}" + (f"; {steadfast_because}" if steadfast_because else "")
    return Modifier(
        rule="wfb8.break.test", value=-margin, reason=reason, ignored_by="wfb8.break.test" if steadfast_because else ""
    )
