"""wh40k6.test.* and wh40k6.special.immune / auto_pass: the Morale test itself (rules/wh40k6.md, "Tests")."""

import pytest
from support.table import Table, only, unit
from support.wh40k6 import lose_combat, shot_up

from morale.core import outcomes as out
from morale.events.types import DiceRolled, TableFactRecorded


# -- wh40k6.test.morale -------------------------------------------------------------------------
@pytest.mark.parametrize("dice", [(4, 4), (1, 2), (2, 6)])
def test_wh40k6_test_morale_total_equal_or_under_ld_passes(dice):
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    shot_up(table, "marines", 3)

    caused = table.roll("marines", "morale", *dice)

    result = only(caused, out.TestResolved)
    assert (result.passed, result.total, result.target) == (True, sum(dice), 8)
    assert result.rule == "wh40k6.test.morale"
    assert table.state("marines") == "steady"
    assert not any(isinstance(o, out.StateChanged) for o in caused)
    assert table.due() == []


@pytest.mark.parametrize("dice", [(4, 5), (6, 6)])
def test_wh40k6_test_morale_total_over_ld_fails_and_unit_falls_back(dice):
    table = Table(unit("marines", ld=8), unit("boyz", "orks"))
    shot_up(table, "marines", 3)

    caused = table.roll("marines", "morale", *dice)

    result = only(caused, out.TestResolved)
    assert (result.passed, result.total, result.target) == (False, sum(dice), 8)
    assert result.rule == "wh40k6.test.morale"
    assert result.trigger == "wh40k6.trigger.casualties"
    assert table.state("marines") == "falling_back"
    assert table.due() == ["marines:fall_back"]


def test_a_roll_is_refused_when_no_test_is_due_engine_dice():
    table = Table(unit("marines"), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")

    refusal = table.refuse(DiceRolled(unit="marines", test="morale", dice=(3, 3)))

    assert refusal.rule == "engine.dice"
    assert "no morale roll is due" in refusal.message


@pytest.mark.parametrize("dice", [(4,), (2, 2, 2)])
def test_wh40k6_test_morale_roll_takes_two_dice(dice):
    table = Table(unit("marines"), unit("boyz", "orks"))
    shot_up(table, "marines", 3)

    refusal = table.refuse(DiceRolled(unit="marines", test="morale", dice=tuple(dice)))

    assert refusal.field == "dice"
    assert table.due() == ["marines:morale"]


# -- wh40k6.test.modifiers ----------------------------------------------------------------------
def test_wh40k6_test_modifiers_reduce_ld_for_the_test():
    table = Table(unit("guard", ld=9), unit("boyz", "orks"))

    caused = lose_combat(table, "guard", "boyz", by=3)

    due = only(caused, out.TestDue)
    assert [(m.rule, m.value) for m in due.modifiers] == [("wh40k6.trigger.combat_lost", -3)]
    result = only(table.roll("guard", "morale", 3, 3), out.TestResolved)
    assert (result.target, result.passed) == (6, True)
    assert [m.value for m in result.modifiers] == [-3]


def test_wh40k6_test_modifiers_make_a_roll_under_ld_fail():
    table = Table(unit("guard", ld=9), unit("boyz", "orks"))
    lose_combat(table, "guard", "boyz", by=3)

    result = only(table.roll("guard", "morale", 4, 4), out.TestResolved)

    assert (result.total, result.target, result.passed) == (8, 6, False)
    assert table.state("guard") == "falling_back"


def test_wh40k6_test_modifiers_not_applied_to_the_unit_ld_itself():
    """The modifier lasts for that test only: the next test is against the unmodified Ld."""
    table = Table(unit("guard", ld=9), unit("boyz", "orks"))
    lose_combat(table, "guard", "boyz", by=3)
    table.roll("guard", "morale", 2, 2)
    table.go_to(2, "imperium", "movement")
    table.casualties("guard", 5)
    table.end_phase()

    result = only(table.roll("guard", "morale", 4, 5), out.TestResolved)

    assert (result.target, result.passed) == (9, True)


# -- wh40k6.test.insane_heroism -----------------------------------------------------------------
@pytest.mark.parametrize(("ld", "lost_by"), [(7, 6), (5, 5), (8, 8)])
def test_wh40k6_test_insane_heroism_double_one_passes_below_ld_2(ld, lost_by):
    table = Table(unit("guard", ld=ld), unit("boyz", "orks"))
    lose_combat(table, "guard", "boyz", by=lost_by)

    caused = table.roll("guard", "morale", 1, 1)

    result = only(caused, out.TestResolved)
    assert result.target == ld - lost_by < 2
    assert result.passed is True
    assert result.rule == "wh40k6.test.insane_heroism"
    assert table.state("guard") == "steady"
    assert table.due() == []


def test_wh40k6_test_insane_heroism_needs_both_dice_to_be_one():
    table = Table(unit("guard", ld=7), unit("boyz", "orks"))
    lose_combat(table, "guard", "boyz", by=6)

    result = only(table.roll("guard", "morale", 1, 2), out.TestResolved)

    assert (result.target, result.passed, result.rule) == (1, False, "wh40k6.test.morale")
    assert table.state("guard") == "falling_back"


# -- wh40k6.test.multiple_per_turn --------------------------------------------------------------
def test_wh40k6_test_multiple_per_turn_casualties_then_lost_combat():
    table = Table(unit("marines", models=10), unit("boyz", "orks", models=20))
    shot_up(table, "marines", 3)
    table.roll("marines", "morale", 2, 2)

    caused = lose_combat(table, "marines", "boyz", by=1)

    assert table.battle.turn == 1
    assert table.due() == ["marines:morale"]
    assert only(caused, out.TestDue).rule == "wh40k6.trigger.combat_lost"


def test_wh40k6_test_multiple_per_turn_movement_and_shooting_phase():
    table = Table(unit("marines", models=10), unit("boyz", "orks", models=20))
    table.go_to(1, "imperium", "movement")
    table.casualties("marines", 3, cause="dangerous terrain")
    table.end_phase()
    table.roll("marines", "morale", 3, 3)

    shot_up(table, "marines", 2)  # 2 of the 7 left: 25% or more

    assert table.battle.turn == 1
    assert table.due() == ["marines:morale"]
    assert only(table.roll("marines", "morale", 6, 5), out.TestResolved).passed is False


# -- wh40k6.special.immune ----------------------------------------------------------------------
def test_wh40k6_special_immune_takes_no_casualty_test():
    table = Table(unit("wraiths", models=10, rules=("immune_to_morale",)), unit("boyz", "orks"))

    caused = shot_up(table, "wraiths", 5)

    skipped = only(caused, out.TestNotTaken)
    assert (skipped.rule, skipped.trigger, skipped.test) == (
        "wh40k6.special.immune",
        "wh40k6.trigger.casualties",
        "morale",
    )
    assert table.due() == []
    assert table.state("wraiths") == "steady"


def test_wh40k6_special_immune_takes_no_test_for_a_lost_combat():
    table = Table(unit("wraiths", rules=("immune_to_morale",)), unit("boyz", "orks"))

    caused = lose_combat(table, "wraiths", "boyz", by=4)

    assert only(caused, out.TestNotTaken).rule == "wh40k6.special.immune"
    assert table.due() == []  # no Morale test, so no Sweeping Advance either
    assert table.state("wraiths") == "steady"


# -- wh40k6.special.auto_pass -------------------------------------------------------------------
def test_wh40k6_special_auto_pass_passes_without_a_roll():
    table = Table(unit("zealots", ld=6, rules=("always_passes_morale",)), unit("boyz", "orks"))

    caused = shot_up(table, "zealots", 5)

    result = only(caused, out.TestResolved)
    assert (result.rule, result.passed, result.automatic, result.dice) == (
        "wh40k6.special.auto_pass",
        True,
        True,
        (),
    )
    assert table.due() == []
    assert table.state("zealots") == "steady"


def test_wh40k6_special_auto_pass_still_takes_pinning_tests():
    table = Table(unit("zealots", ld=6, rules=("always_passes_morale",)), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")

    caused = table.record(TableFactRecorded(unit="zealots", fact="hit_by_pinning_weapon"))

    assert table.due() == ["zealots:pinning"]
    assert only(caused, out.TestDue).rule == "wh40k6.pinning.test"
    result = only(table.roll("zealots", "pinning", 4, 4), out.TestResolved)
    assert (result.passed, result.target) == (False, 6)
    assert table.unit("zealots").restricted("gone_to_ground")


def test_wh40k6_special_auto_pass_takes_the_test_immune_does_not():
    """Immune units are spared the Morale test itself; auto-pass units take it and pass it."""
    table = Table(
        unit("wraiths", rules=("immune_to_morale",)),
        unit("zealots", rules=("always_passes_morale",)),
        unit("boyz", "orks"),
    )
    table.go_to(1, "orks", "shooting")
    table.casualties("wraiths", 5)
    table.casualties("zealots", 5)

    caused = table.end_phase()

    by_unit = {o.unit: type(o).__name__ for o in caused if isinstance(o, out.TestNotTaken | out.TestResolved)}
    assert by_unit == {"wraiths": "TestNotTaken", "zealots": "TestResolved"}


def test_wh40k6_test_morale_of_a_unit_under_a_quarter_strength_is_a_plain_leadership_test():
    """Only a Regroup test needs a double 1 under 25% left (wh40k6.regroup.test): a Morale test of
    such a unit passes on any roll under its Ld."""
    table = Table(unit("marines", ld=8, models=10), unit("boyz", "orks"))
    shot_up(table, "marines", 8)  # 2 of 10 left

    result = only(table.roll("marines", "morale", 3, 3), out.TestResolved)

    assert (result.rule, result.passed) == ("wh40k6.test.morale", True)


def test_wh40k6_test_morale_a_leadership_of_0_is_a_target_of_0():
    """Ld runs from 0: a unit of Ld 0 passes only on the double 1 of Insane Heroism."""
    table = Table(unit("marines", ld=0), unit("boyz", "orks"))
    shot_up(table, "marines", 3)

    result = only(table.roll("marines", "morale", 1, 2), out.TestResolved)

    assert (result.passed, result.target) == (False, 0)
