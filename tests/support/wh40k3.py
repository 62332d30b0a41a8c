"""Helpers for the wh40k3 rules tests: a 3rd edition table and the usual ways a unit comes to fall back."""

from __future__ import annotations

from morale.events.types import ChargeDeclared, TableFactRecorded, UnitJoined

from .table import Table
from .table import unit as joined


def table(*units: UnitJoined, house_rules: dict | None = None, sides: tuple[str, str] = ("imperium", "orks")) -> Table:
    return Table(*units, ruleset="wh40k3", house_rules=house_rules, sides=sides)


def unit(unit_id: str, side: str = "imperium", **kwargs) -> UnitJoined:
    return joined(unit_id, side, **kwargs)


def fact(unit_id: str, name: str, value: object = True) -> TableFactRecorded:
    return TableFactRecorded(unit=unit_id, fact=name, value=value)


def charge(charger: str, *targets: str) -> ChargeDeclared:
    return ChargeDeclared(charger=charger, targets=tuple(targets), in_range=tuple(targets))


def shot_and_fled(t: Table, unit_id: str = "guard", lost: int = 3, move: tuple[int, ...] = (3, 3)) -> None:
    """In the orks' Shooting phase of turn 1 `unit_id` loses `lost` models, fails its Morale test
    and Falls Back (6 inches unless `move` says otherwise)."""
    t.go_to(1, "orks", "shooting")
    t.casualties(unit_id, lost)
    t.end_phase()
    t.roll(unit_id, "morale", 6, 6)
    t.roll(unit_id, "fall_back", *move)
