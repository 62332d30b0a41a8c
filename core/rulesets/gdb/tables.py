"""General de Brigade's two data tables: the Morale Check Test results and the Brigade Morale Test.

Our source text lost both tables' numbers, so the engine ships stand-in values (the catalogue's
`gdb.results_table` and `gdb.brigade.test`) as TOML (`gdb_results.toml`, `gdb_brigade.toml` in
`core/rulesets/`, where the app reads every ruleset's shipped tables by the file name it records)
and a battle pins the values it is played with (battle_started.tables). These Structs say what a
valid table looks like, so a user's own table is refused naming the field if it would leave a total
without a result (in the reader's language: each problem is `Words`, which the refusal keeps).
"""

from __future__ import annotations

import msgspec

from ...rules import clause
from ...words import Words, listed
from .profile import UNIT_TYPES

UNIT_RESULTS = ("charge", "carry_on", "halt", "waver", "retreat", "rout")
RALLY_RESULTS = ("rally", "fail")
BRIGADE_RESULTS = ("holds", "halt", "retreat")


class Row(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One row of a column: it gives `result` to a modified total of `min` or more (a row without
    `min` takes every lower total); with `unit_types`, only to those types of unit."""

    result: str
    min: int | None = None
    unit_types: list[str] = []

    def applies(self, total: int | None, unit_type: str) -> bool:
        fits_type = not self.unit_types or unit_type in self.unit_types
        return fits_type and (self.min is None or total is None or total >= self.min)


def _check_column(name: str, rows: list[Row], results: tuple[str, ...]) -> None:
    if not rows:
        raise ValueError(Words("column {name!r} has no rows", name=name))
    for row in rows:
        if row.result not in results:
            raise ValueError(
                Words(
                    "column {name!r}: unknown result {result!r} (known: {known})",
                    name=name,
                    result=row.result,
                    known=listed(results),
                )
            )
        unknown = [t for t in row.unit_types if t not in UNIT_TYPES]
        if unknown:
            raise ValueError(Words("column {name!r}: unknown unit type {unit_type!r}", name=name, unit_type=unknown[0]))
    mins = [row.min for row in rows if row.min is not None]
    if mins != sorted(mins, reverse=True):
        raise ValueError(Words("column {name!r}: rows must go from the highest total down", name=name))
    last = rows[-1]
    if last.min is not None or last.unit_types:
        raise ValueError(
            Words("column {name!r} must end with a row without min or unit_types, for every lower total", name=name)
        )


class ResultsTable(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    charging: list[Row]
    charged: list[Row]
    morale: list[Row]
    rally: list[Row]
    # Results that count as passing the test (TestResolved.passed).
    passing: list[str] = msgspec.field(default_factory=lambda: ["charge", "carry_on", "rally"])
    name: str = ""

    def __post_init__(self) -> None:
        for column in ("charging", "charged", "morale"):
            _check_column(column, getattr(self, column), UNIT_RESULTS)
        _check_column("rally", self.rally, RALLY_RESULTS)
        unknown = [r for r in self.passing if r not in UNIT_RESULTS + RALLY_RESULTS]
        if unknown:
            raise ValueError(Words("passing: unknown result {result!r}", result=unknown[0]))


class BrigadeTable(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    rows: list[Row]
    commander: int = 1  # a brigade commander with the brigade
    per_unit_lost: int = -1  # each unit of the brigade dispersed or routing
    name: str = ""

    def __post_init__(self) -> None:
        _check_column("rows", self.rows, BRIGADE_RESULTS)


@clause("gdb.results_table")
def read_column(rows: list[Row], unit_type: str, total: int | None) -> str:
    """The first row of the column that fits the unit and the modified total. `None` as the total
    reads the best row the unit can get (a natural double six)."""
    return next(row.result for row in rows if row.applies(total, unit_type))
