"""A Warhammer Fantasy 8th edition battle at the table, for the wfb8 tests: the Empire against the Orcs."""

from __future__ import annotations

from morale.events.types import (
    ChargeDeclared,
    CombatResolved,
    CombatSide,
    DiceRolled,
    PlayerDecided,
    TableFactRecorded,
    UnitJoined,
)

from .table import Table, unit

SIDES = ("empire", "orcs")


def regiment(unit_id: str, side: str = "empire", *, models: int = 20, ld: int = 7, **profile) -> UnitJoined:
    """A unit of the Empire (or of `side`), 20 strong with Ld 7 unless told; unit_type and rules as for
    `support.table.unit`."""
    return unit(unit_id, side, models=models, ld=ld, **profile)


def battle(*units: UnitJoined, house_rules: dict | None = None) -> Table:
    return Table(*units, sides=SIDES, ruleset="wfb8", house_rules=house_rules)


def fact(unit_id: str, name: str, value: object = True) -> TableFactRecorded:
    return TableFactRecorded(unit=unit_id, fact=name, value=value)  # type: ignore[arg-type]


def reroll(unit_id: str, test: str, *dice: int) -> DiceRolled:
    return DiceRolled(unit=unit_id, test=test, dice=tuple(dice), reroll=True)


def first(unit_id: str) -> PlayerDecided:
    return PlayerDecided(unit=unit_id, decision="test_first")


def charge(charger: str, *targets: str, in_range: tuple[str, ...] | None = None) -> ChargeDeclared:
    reached = targets if in_range is None else in_range
    return ChargeDeclared(charger=charger, targets=tuple(targets), in_range=tuple(reached))


def side(name: str, *units: str, wounds: int, bonus: int = 0, **detail) -> CombatSide:
    """side("empire", "halberds", wounds=3, ranks={"halberds": 3}, left_combat=("knights",))"""
    return CombatSide(side=name, units=tuple(units), wounds_inflicted=wounds, bonus=bonus, **detail)


def combat(*sides: CombatSide) -> CombatResolved:
    return CombatResolved(sides=tuple(sides))


def fled(table: Table, unit_id: str, *, lost: int = 5) -> None:
    """In the orcs' Shooting phase of turn 1 `unit_id` (of the empire) loses `lost` models, fails its
    Panic test and flees 7 inches."""
    table.go_to(1, "orcs", "shooting")
    table.casualties(unit_id, lost)
    table.roll(unit_id, "panic", 6, 6)
    table.roll(unit_id, "flee", 3, 4)


def locked(table: Table, charger: str, target: str) -> None:
    """`charger` charges `target` in the current Movement phase and reaches it when the phase ends."""
    table.record(charge(charger, target))


def two_charges() -> Table:
    """Spearmen and knights against boyz and wolf riders: the boyz charged the spearmen and the wolves
    the knights; the close combat phase has begun (wfb8.multi.*)."""
    table = battle(
        regiment("spearmen"),
        regiment("knights", models=6, unit_type="cavalry"),
        regiment("boyz", "orcs", models=25),
        regiment("wolves", "orcs", models=5, unit_type="cavalry"),
    )
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.record(charge("wolves", "knights"))
    table.go_to(1, "orcs", "close_combat")
    return table


def knights_wiped_out_the_wolves() -> Table:
    """A multiple combat: spearmen and knights against boyz and wolf riders; the knights have just
    killed the last wolf rider, so no enemy is left in base contact with them."""
    table = two_charges()
    table.casualties("wolves", 5, cause="close combat")
    return table
