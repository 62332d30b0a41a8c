"""Tools for General de Brigade tests: units with a Napoleonic profile, and the facts players state."""

from __future__ import annotations

from morale.core import outcomes as out
from morale.core.outcomes import Outcome
from morale.events.types import (
    ChargeDeclared,
    DiceRolled,
    PlayerDecided,
    TableFactRecorded,
    UnitChanged,
    UnitJoined,
)

from .table import Table

SIDES = ("french", "allies")


def gdb_unit(
    unit_id: str,
    side: str = "french",
    *,
    unit_type: str = "infantry",
    models: int = 20,
    tags: tuple[str, ...] = (),
    **profile: object,
) -> UnitJoined:
    """A unit; profile fields as keywords: quality="guard", brigade="ney", formation="column"...;
    tags (russian, austrian, cossack) are its special rules."""
    return UnitJoined(
        unit=unit_id,
        side=side,
        name=unit_id.replace("_", " ").title(),
        unit_type=unit_type,
        models=models,
        special_rules=tuple(tags),
        profile={"brigade": "first", **profile},  # type: ignore[dict-item]
    )


def french(unit_id: str, **profile: object) -> UnitJoined:
    """A battalion of the French side, of the default brigade."""
    return gdb_unit(unit_id, **profile)


def allied(unit_id: str, **profile: object) -> UnitJoined:
    """A battalion of the allies, of their second brigade."""
    return gdb_unit(unit_id, "allies", **{"brigade": "second", **profile})


def due(table: Table) -> list[tuple[str, str, str]]:
    """Each test due: (unit, test, rule)."""
    return [(d.unit, d.test, d.rule) for d in table.battle.due]


def gdb_table(*units: UnitJoined, tables: dict | None = None) -> Table:
    return Table(*units, ruleset="gdb", sides=SIDES, tables=tables)


def fact(table: Table, unit: str, name: str, value: object = True) -> list[Outcome]:
    return table.record(TableFactRecorded(unit=unit, fact=name, value=value))  # type: ignore[arg-type]


def near(table: Table, unit: str, *others: str) -> None:
    """The players state that `unit` is within 15 cm of each of `others`."""
    for other in others:
        fact(table, unit, "within_15cm", other)


def charge(table: Table, charger: str, *targets: str, flank: tuple[str, ...] = (), out_of_range: tuple = ()):
    in_range = tuple(t for t in targets if t not in out_of_range)
    return table.record(ChargeDeclared(charger=charger, targets=tuple(targets), in_range=in_range, flank=tuple(flank)))


def change(table: Table, unit: str, **changes: object) -> list[Outcome]:
    return table.record(UnitChanged(unit=unit, changes=changes))  # type: ignore[arg-type]


def decide(table: Table, unit: str, decision: str) -> list[Outcome]:
    return table.record(PlayerDecided(unit=unit, decision=decision))


def roll(table: Table, unit: str, test: str, *dice: int) -> list[Outcome]:
    return table.record(DiceRolled(unit=unit, test=test, dice=tuple(dice)))


def resolved(outcomes: list[Outcome]) -> out.TestResolved:
    (found,) = [o for o in outcomes if isinstance(o, out.TestResolved)]
    return found


def modifiers_of(outcomes: list[Outcome]) -> dict[str, int]:
    """rule -> value of the modifiers a resolved test counted."""
    return {m.rule: m.value for m in resolved(outcomes).modifiers if not m.ignored_by}


def due_modifiers(table: Table, unit: str) -> dict[str, int]:
    (due,) = [d for d in table.battle.due if d.unit == unit]
    return {m.rule: m.value for m in due.modifiers if not m.ignored_by}


def not_taken(outcomes: list[Outcome]) -> list[tuple[str, str, str]]:
    return [(o.unit, o.test, o.rule) for o in outcomes if isinstance(o, out.TestNotTaken)]


def profile(table: Table, unit: str) -> dict:
    return dict(table.unit(unit).profile)


def restrictions(table: Table, unit: str) -> list[str]:
    return [r.name for r in table.unit(unit).restrictions]
