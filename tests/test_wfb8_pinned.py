"""What the `SAMPLE=0` mutation pass of wfb8/ruleset.py and wfb8/combat.py (2026-12-02) found no test
asking: the edges of the thresholds, the sides' order, the board's lines, a charge's phase and who it
still reaches (MUTATION.md, "The whole of `wfb8/combat.py` and `wfb8/ruleset.py`")."""

from __future__ import annotations

import pytest
from support.table import Table, only
from support.wfb8 import battle, fled, regiment

from morale.core import outcomes as out
from morale.projections.board import board


def board_lines(table: Table, unit_id: str) -> list[tuple[str, str]]:
    row = next(r for r in board(table.battle).units if r.unit == unit_id)
    return [(r.said, r.rule) for r in row.restrictions]


# -- wfb8.panic.heavy_casualties ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("models", "lost", "tested"),
    [
        (25, 6, False),  # 24%: short of a quarter
        (25, 7, True),
        (101, 25, False),  # 24.75%: a quarter of 101 is 25.25, so 26 are needed
        (101, 26, True),
    ],
)
def test_wfb8_panic_heavy_casualties_just_under_a_quarter_is_no_test(models, lost, tested):
    table = battle(regiment("goblins", "orcs", models=models), regiment("spearmen"))
    table.go_to(1, "empire", "shooting")

    table.casualties("goblins", lost)

    assert table.due() == (["goblins:panic"] if tested else [])


# -- wfb8.rally.test ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("models", "left"),
    [
        (50, 13),  # 26% of the starting models: more than a quarter
        (99, 25),  # 25.25%
    ],
)
def test_wfb8_rally_test_just_over_a_quarter_left_is_an_ordinary_ld_test(models, left):
    table = battle(regiment("spearmen", models=models, ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen", lost=models - left)

    due = only(table.go_to(2, "empire", "movement"), out.TestDue)
    result = only(table.roll("spearmen", "rally", 3, 4), out.TestResolved)

    assert due.target == 7
    assert result.passed and not result.detail
    assert table.state("spearmen") == "regrouped"


def test_wfb8_rally_test_the_result_says_why_only_a_double_1_rallies():
    table = battle(regiment("spearmen", models=20, ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen", lost=15)
    table.go_to(2, "empire", "movement")

    result = only(table.roll("spearmen", "rally", 1, 2), out.TestResolved)

    assert not result.passed
    assert result.detail == "5 of 20 models left: 25% or less, only a double 1 rallies"


# -- wfb8.panic.test (the target) -----------------------------------------------------------------
def test_wfb8_panic_test_a_leadership_of_0_is_a_target_of_0():
    table = battle(regiment("rabble", ld=0), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")

    due = only(table.casualties("rabble", 5), out.TestDue)
    result = only(table.roll("rabble", "panic", 1, 2), out.TestResolved)

    assert due.target == 0
    assert (result.passed, result.target) == (False, 0)
