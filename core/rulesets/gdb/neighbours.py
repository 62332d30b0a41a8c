"""Friends within 15 cm (12"), as the players state them, and whose flight a unit ignores.

Distances never reach the engine: the players record `within_15cm` (and `beyond_15cm`) facts
naming the other unit. A dispersed unit is gone; a fact naming it means its dispersal point.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...rules import clause
from ...view import BattleView, UnitView
from .book import unit_memory
from .profile import CAVALRY, FOOT_ARTILLERY, HORSE_ARTILLERY, INFANTRY, SKIRMISHERS

FLEEING = ("falling_back", "broken")


@clause("gdb.rout.skirmishers")
def skirmishers_ignored(other: UnitView) -> bool:
    """The routing of skirmishers is always ignored."""
    return other.unit_type == SKIRMISHERS


@clause("gdb.note.ignore")
def ignores(unit: UnitView, other: UnitView) -> bool:
    """Infantry ignores routing cavalry and horse artillery; cavalry ignores routing infantry and
    foot artillery; every unit ignores routing skirmishers (the triggers, and `friends_fleeing`)."""
    if skirmishers_ignored(other):
        return True
    if unit.unit_type == INFANTRY:
        return other.unit_type in (CAVALRY, HORSE_ARTILLERY)
    if unit.unit_type == CAVALRY:
        return other.unit_type in (INFANTRY, FOOT_ARTILLERY)
    return False


def friends_near(battle: BattleView, unit: UnitView) -> Iterator[UnitView]:
    """Friendly units within 15 cm of `unit` (or whose dispersal point is), as stated at the table."""
    for other_id in sorted(unit_memory(unit).near):
        other = battle.units[other_id]
        if other.side == unit.side and other is not unit:
            yield other


def heeded_friends_near(battle: BattleView, unit: UnitView, states: tuple[str, ...]) -> list[UnitView]:
    """Friends within 15 cm in one of `states` whose flight this unit does not ignore."""
    return [f for f in friends_near(battle, unit) if f.state in states and not ignores(unit, f)]
