"""WFB 8th edition close combat: who fights whom, how a round is scored, who is Steadfast, and the
multiple-combat clauses (`wfb8.multi.*` in `clauses.toml`).

Who is locked in combat with whom is kept in each unit's notes (`foes`): Panic and Break tests depend
on it. It comes from charges that reach their targets, from combat reports and from the table.
A unit whose last foe the engine saw go (destroyed or fled) is marked `NO_ENEMY_LEFT` until the Close
Combat phase ends or it fights again: a combat report that still lists it, with or without it in
`left_combat`, cannot put it back in the combat or make it take a Break test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from morale.events.types import CombatSide

from ...outcomes import EngagementChanged, Noted
from ...rules import clause
from ...view import UnitView
from ...words import Words

# The note on a unit the engine freed from its combat (`no_more_foes`): every foe it had is gone.
NO_ENEMY_LEFT = "no_enemy_left"


def foes(unit: UnitView) -> tuple[str, ...]:
    return unit.notes.get("foes", ())  # type: ignore[return-value]  # as `set_foes` notes them: a tuple of ids


def engaged(unit: UnitView) -> bool:
    return bool(foes(unit))


def set_foes(
    unit: UnitView, enemies: tuple[str, ...], rule: str, caused_by: tuple[int, ...], *, was_freed: bool | None = None
) -> Noted:
    """The unit now fights `enemies` (none: the note goes), as `rule` has it. A unit given foes again
    is in a combat of its own: it is no longer one the engine freed (`was_freed`: whether it still
    was, where outcomes not yet applied have changed that; by default, as its notes say)."""
    notes: dict[str, object] = {"foes": tuple(sorted(set(enemies))) if enemies else None}
    if enemies and (freed(unit) if was_freed is None else was_freed):
        notes[NO_ENEMY_LEFT] = None
    return Noted(unit=unit.id, rule=rule, caused_by=caused_by, notes=notes)


def has_no_more_foes(unit_id: str, caused_by: tuple[int, ...]) -> EngagementChanged:
    return EngagementChanged(
        unit=unit_id,
        rule=no_more_foes.id,
        caused_by=caused_by,
        engaged=False,
        detail=Words("no enemy left: counts as having won"),
    )


def foes_gone(unit_id: str, caused_by: tuple[int, ...]) -> list[EngagementChanged | Noted]:
    """The engine saw the unit's last foe go (destroyed or fled): it counts as having won, and the
    engine remembers it for the rest of the phase, whatever a combat report then says of it."""
    return [
        Noted(unit=unit_id, rule=no_more_foes.id, caused_by=caused_by, notes={NO_ENEMY_LEFT: True}),
        has_no_more_foes(unit_id, caused_by),
    ]


def freed(unit: UnitView) -> bool:
    """The engine saw every foe of the unit go since the Close Combat phase began (`has_no_more_foes`)."""
    return bool(unit.notes.get(NO_ENEMY_LEFT))


def out_of_the_combat(side: CombatSide, units: Mapping[str, UnitView]) -> frozenset[str]:
    """The side's units out of the combat at the end of the round: those the report says lost base
    contact, and those the engine knows have no enemy left, whether or not the report says so."""
    return frozenset(side.left_combat) | {u for u in side.units if freed(units[u])}


@clause("wfb8.multi.left_combat")
def still_in_combat(side: CombatSide, units: Mapping[str, UnitView]) -> list[str]:
    """A unit that leaves the combat because it lost base contact still adds its wounds to the result
    (they are in the side's wounds_inflicted), but none of its other bonuses, and it no longer counts
    when deciding which enemy units are Steadfast. The units that still count:"""
    out = out_of_the_combat(side, units)
    return [u for u in side.units if u not in out]


def combat_score(side: CombatSide, units: Mapping[str, UnitView]) -> int:
    bonuses = sum(side.unit_bonus.get(u, 0) for u in still_in_combat(side, units))
    return side.wounds_inflicted + side.bonus + bonuses


@clause("wfb8.multi.no_more_foes")
def no_more_foes(unit: UnitView, side: CombatSide) -> bool:
    """Left with no enemy in base contact at the end of a round (its foes destroyed), a unit counts as
    having won the combat and acts normally, with no penalty: it takes no Break test. The engine's
    own record (`freed`) is enough; the report's `left_combat` adds the units that lost contact in
    ways the engine cannot see."""
    return freed(unit) or unit.id in side.left_combat


class Steadfast(NamedTuple):
    """Why a unit is Steadfast (`steadfast`): it is Stubborn, or it has `own` ranks to the `best`
    of the enemy units still in the combat."""

    stubborn: bool
    own: int = 0
    best: int = 0


def steadfast(unit: UnitView, side: CombatSide, enemy: CombatSide, units: Mapping[str, UnitView]) -> Steadfast | None:
    """For the Break test (`ruleset.break_test`): more ranks than every enemy unit still in the
    combat; Stubborn units always are. Returns why the unit is Steadfast, or None."""
    if unit.has("stubborn"):
        return Steadfast(stubborn=True)
    own = side.ranks.get(unit.id, 0)
    best = max((enemy.ranks.get(u, 0) for u in still_in_combat(enemy, units)), default=0)
    return Steadfast(stubborn=False, own=own, best=best) if own > best else None
