"""The status board and the due list: what a referee at the table reads off the screen."""

from __future__ import annotations

from support.table import Table, combat, unit

from morale.events.types import ChargeDeclared
from morale.projections.board import board
from morale.projections.due import due_tests


def routed_marines() -> Table:
    table = Table(unit("marines", models=5), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 2)
    table.end_phase()
    table.roll("marines", "morale", 6, 6)
    return table


def test_a_falling_back_unit_shows_what_it_may_not_do_wh40k6_fall_back_no_charge():
    row = next(r for r in board(routed_marines().battle).units if r.unit == "marines")
    assert row.state == "falling_back" and row.models == 3
    cited = {r.rule for r in row.restrictions}
    assert {"wh40k6.fall_back.no_charge", "wh40k6.fall_back.shooting", "wh40k6.fall_back.auto_fail"} <= cited
    assert row.due == ["fall_back (wh40k6.fall_back.distance)"]


def test_the_due_list_gives_the_number_to_roll_and_why():
    table = Table(unit("guard", ld=8), unit("boyz", "orks"))
    table.go_to(1, "orks", "assault")
    table.record(ChargeDeclared(charger="boyz", targets=("guard",), in_range=("guard",)))
    table.record(combat(("imperium", "guard", 1), ("orks", "boyz", 3)))
    [due] = due_tests(table.battle)
    assert (due.unit, due.test, due.dice, due.target, due.rule) == (
        "guard",
        "morale",
        2,
        6,
        "wh40k6.trigger.combat_lost",
    )
    assert [m.value for m in due.modifiers] == [-2]


def test_regrouped_restriction_is_listed_until_the_end_of_the_turn():
    table = routed_marines()
    table.roll("marines", "fall_back", 3, 3)
    table.go_to(2, "imperium", "movement")
    table.roll("marines", "regroup", 2, 2)
    row = next(r for r in board(table.battle).units if r.unit == "marines")
    assert (row.restrictions[0].text, row.restrictions[0].rule) == (
        "no other move, no Run, no charge; counts as moved, Snap Shots only",
        "wh40k6.regroup.after",
    )
    assert "turn 2" in row.restrictions[0].until
