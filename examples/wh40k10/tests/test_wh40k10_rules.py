"""Each Battle-shock clause at the table: a test named after each rule ID, and each refusal."""

from __future__ import annotations

import pytest
from wh40k10_table import Table, only, unit

from morale.core import outcomes as out
from morale.events.types import PhaseEnded, UnitJoined
from morale.projections.board import board
from morale.projections.due import due_tests


def shot_up(table: Table, unit_id: str, lost: int) -> None:
    """In the necrons' Shooting phase of turn 1 `unit_id` (an ultramarines unit) loses `lost` models."""
    table.go_to(1, "necrons", "shooting")
    table.casualties(unit_id, lost)


def at_next_command_phase(table: Table) -> out.Caused:
    """The ultramarines' Command phase of turn 2 starts: what its start caused."""
    return table.go_to(2, "ultramarines", "command")


def rolled_in_the_step(table: Table, *dice: int, unit_id: str = "intercessors") -> out.Caused:
    """`unit_id` is shot to 4 of 10, then rolls `dice` in the ultramarines' next Battle-shock step."""
    shot_up(table, unit_id, 6)
    at_next_command_phase(table)
    return table.roll(unit_id, *dice)


# -- wh40k10.step.battle_shock --------------------------------------------------------------------
def test_wh40k10_step_battle_shock_tests_the_active_players_units_below_half_strength():
    table = Table(unit("intercessors"), unit("hellblasters", models=5), unit("warriors", "necrons", models=20))
    shot_up(table, "intercessors", 6)
    table.casualties("hellblasters", 1)

    caused = at_next_command_phase(table)

    assert table.due() == ["intercessors:battle_shock"]
    assert only(caused, out.TestDue).rule == "wh40k10.step.battle_shock"


def test_wh40k10_step_battle_shock_tests_no_unit_of_the_other_player():
    table = Table(unit("intercessors"), unit("warriors", "necrons", models=20))
    table.go_to(1, "ultramarines", "shooting")
    table.casualties("warriors", 11)
    table.go_to(1, "necrons", "command")
    table.roll("warriors", 6, 6)  # their own Battle-shock step

    assert table.go_to(2, "ultramarines", "command") == ()
    assert table.due() == []


def test_wh40k10_step_battle_shock_tests_come_before_the_command_phase_ends():
    table = Table(unit("intercessors"))
    shot_up(table, "intercessors", 6)
    at_next_command_phase(table)

    refused = table.refuse(PhaseEnded(turn=2, side="ultramarines", phase="command"))

    assert refused.rule == "engine.clock.tests_first"


# -- wh40k10.below_half.models / .wounds -----------------------------------------------------------
@pytest.mark.parametrize(
    ("models", "lost", "tested"),
    [(10, 5, False), (10, 6, True), (5, 2, False), (5, 3, True), (2, 1, False)],
)
def test_wh40k10_below_half_models_fewer_than_half_of_the_starting_models(models, lost, tested):
    table = Table(unit("intercessors", models=models))
    shot_up(table, "intercessors", lost)

    at_next_command_phase(table)

    assert table.due() == (["intercessors:battle_shock"] if tested else [])


@pytest.mark.parametrize(("left", "tested"), [(12, False), (6, False), (5, True), (1, True)])
def test_wh40k10_below_half_wounds_a_lone_model_by_its_wounds_left(left, tested):
    table = Table(unit("redemptor", models=1, profile={"wounds": 12}))
    table.go_to(1, "necrons", "shooting")
    table.record(table.wounds_left("redemptor", left))

    at_next_command_phase(table)

    assert table.due() == (["redemptor:battle_shock"] if tested else [])
    assert board(table.battle).units[0].profile == f"{left} of 12 wounds left"


def test_wh40k10_below_half_wounds_are_read_for_a_lone_model_only():
    table = Table(unit("intercessors"))

    refused = table.refuse(table.wounds_left("intercessors", 1))

    assert refused.rule == "wh40k10.below_half.wounds"


@pytest.mark.parametrize(
    ("joined", "field"),
    [
        (unit("redemptor", models=1, profile={"wounds": 12, "wounds_left": 13}), "profile.wounds_left"),
        (unit("redemptor", models=1, profile={"wounds": 0}), "profile"),
        (unit("redemptor", models=1, profile={"toughness": 10}), "profile"),
        (unit("intercessors", ld=None), "ld"),
        (unit("intercessors", ld=13), "ld"),
    ],
    ids=["more-wounds-left-than-wounds", "no-wounds", "unknown-field", "no-leadership", "leadership-13"],
)
def test_a_unit_the_battle_shock_rules_cannot_read_is_refused_naming_its_field(joined: UnitJoined, field):
    table = Table()

    assert table.refuse(joined).field == field


def test_wounds_left_beyond_the_units_wounds_are_refused_during_the_battle():
    table = Table(unit("redemptor", models=1, profile={"wounds": 12}))

    assert table.refuse(table.wounds_left("redemptor", 13)).field == "changes"


# -- wh40k10.test.roll -----------------------------------------------------------------------------
@pytest.mark.parametrize(("dice", "passed"), [((3, 3), True), ((6, 6), True), ((4, 1), False), ((1, 1), False)])
def test_wh40k10_test_roll_passes_at_or_above_leadership(dice, passed):
    table = Table(unit("intercessors", ld=6))

    result = only(rolled_in_the_step(table, *dice), out.TestResolved)

    assert (result.rule, result.passed, result.total) == ("wh40k10.test.roll", passed, sum(dice))
    assert result.target is None  # the engine's target is a most: a roll-over test says its roll in words
    verdict = "passes" if passed else "fails"
    assert result.detail == f"a total of {sum(dice)} against Leadership 6+: {verdict}"
    assert table.state("intercessors") == ("steady" if passed else "wavering")


def test_wh40k10_test_roll_odds_on_the_due_list_count_the_rolls_at_or_above_leadership():
    table = Table(unit("intercessors", ld=8))
    shot_up(table, "intercessors", 6)
    at_next_command_phase(table)

    (due,) = due_tests(table.battle)

    # 2D6 of 8 or more: 15 rolls of 36. No target, and so no words for it: the engine's read "8 or less".
    assert (due.odds.pass_ways, due.odds.of) == (15, 36)
    assert (due.target, due.needs) == (None, "")


# -- wh40k10.test.modifiers / wh40k10.test.other_rules ---------------------------------------------
def test_wh40k10_test_modifiers_change_the_total_not_leadership():
    table = Table(unit("hellblasters", models=5, ld=6))
    table.go_to(1, "necrons", "shooting")
    table.record(table.fact("hellblasters", -1))

    result = only(table.roll("hellblasters", 4, 2), out.TestResolved)

    (modifier,) = result.modifiers
    assert (modifier.rule, modifier.value) == ("wh40k10.test.modifiers", -1)
    assert (result.passed, result.total) == (False, 6)
    assert result.detail == "a total of 5 against Leadership 6+: fails"


def test_wh40k10_test_other_rules_call_for_a_test_in_any_phase_at_full_strength():
    table = Table(unit("hellblasters", models=5), unit("warriors", "necrons", models=20))
    table.go_to(1, "necrons", "fight")

    caused = table.record(table.fact("hellblasters"))

    assert table.due() == ["hellblasters:battle_shock"]
    due = only(caused, out.TestDue)
    assert (due.rule, due.modifiers) == ("wh40k10.test.other_rules", ())
    table.roll("hellblasters", 1, 2)
    assert table.state("hellblasters") == "wavering"


@pytest.mark.parametrize("value", [True, 1.5, 7, -7, "minus_one"], ids=repr)
def test_wh40k10_test_other_rules_are_recorded_with_a_whole_modifier(value):
    table = Table(unit("hellblasters", models=5))
    table.go_to(1, "necrons", "shooting")

    assert table.refuse(table.fact("hellblasters", value)).field == "value"


def test_wh40k10_test_other_rules_are_refused_between_phases():
    table = Table(unit("hellblasters", models=5))
    table.go_to(1, "necrons", "shooting")
    table.step()  # the Shooting phase ends

    assert table.refuse(table.fact("hellblasters")).rule == "wh40k10.test.other_rules"


# -- wh40k10.shocked.* -----------------------------------------------------------------------------
def test_wh40k10_shocked_fail_until_the_start_of_its_players_next_command_phase():
    table = Table(unit("hellblasters", models=5), unit("warriors", "necrons", models=20))
    table.go_to(1, "necrons", "shooting")
    table.record(table.fact("hellblasters"))

    caused = table.roll("hellblasters", 1, 2)

    change = only(caused, out.StateChanged)
    assert (change.rule, change.to_state) == ("wh40k10.shocked.fail", "wavering")
    # Through the rest of the necrons' turn, then the ultramarines' own turn begins.
    table.go_to(1, "necrons", "fight")
    table.step()
    assert table.state("hellblasters") == "wavering"
    at_next_command_phase(table)
    assert table.state("hellblasters") == "steady"


def test_wh40k10_shocked_again_stays_battle_shocked_to_the_same_end():
    table = Table(unit("hellblasters", models=5))
    table.go_to(1, "necrons", "shooting")
    table.record(table.fact("hellblasters"))
    table.roll("hellblasters", 1, 2)
    table.record(table.fact("hellblasters"))

    change = only(table.roll("hellblasters", 2, 2), out.StateChanged)

    assert (change.rule, change.from_state, change.to_state) == ("wh40k10.shocked.again", "wavering", "wavering")
    at_next_command_phase(table)
    assert table.state("hellblasters") == "steady"


def test_wh40k10_shocked_recover_before_the_battle_shock_step_tests_again():
    table = Table(unit("intercessors"))
    rolled_in_the_step(table, 2, 2)
    assert table.state("intercessors") == "wavering"

    caused = table.go_to(3, "ultramarines", "command")

    recovered, due = caused
    assert isinstance(recovered, out.StateChanged) and recovered.rule == "wh40k10.shocked.recover"
    assert recovered.to_state == "steady"
    assert isinstance(due, out.TestDue) and due.rule == "wh40k10.step.battle_shock"


def test_wh40k10_shocked_recover_waits_for_its_own_players_command_phase():
    table = Table(unit("intercessors"))
    rolled_in_the_step(table, 2, 2)

    table.go_to(2, "necrons", "command")

    assert table.state("intercessors") == "wavering"


@pytest.mark.parametrize(
    ("rule_id", "words"),
    [
        ("wh40k10.shocked.objective_control", "Objective Control 0: holds and contests no objective"),
        ("wh40k10.shocked.stratagems", "its player's Stratagems cannot be used on it"),
        ("wh40k10.shocked.desperate_escape", "if it Falls Back, every model takes a Desperate Escape test"),
    ],
)
def test_wh40k10_shocked_what_the_board_shows_a_battle_shocked_unit_cannot_do(rule_id, words):
    # wh40k10_shocked_objective_control, wh40k10_shocked_stratagems, wh40k10_shocked_desperate_escape
    table = Table(unit("intercessors"))
    assert board(table.battle).units[0].restrictions == []

    rolled_in_the_step(table, 2, 2)

    shown = {(r.text, r.rule) for r in board(table.battle).units[0].restrictions}
    assert (words, rule_id) in shown


def test_wh40k10_shocked_objective_control_shown_while_battle_shocked():
    table = Table(unit("intercessors"))
    rolled_in_the_step(table, 2, 2)
    assert "wh40k10.shocked.objective_control" in {r.rule for r in board(table.battle).units[0].restrictions}
    table.go_to(3, "ultramarines", "command")
    assert board(table.battle).units[0].restrictions == []


def test_wh40k10_shocked_stratagems_and_wh40k10_shocked_desperate_escape_end_with_the_battle_shock():
    table = Table(unit("intercessors"))
    rolled_in_the_step(table, 2, 2)
    table.record(table.bravery("intercessors"))
    assert board(table.battle).units[0].restrictions == []


# -- wh40k10.insane_bravery ------------------------------------------------------------------------
def test_wh40k10_insane_bravery_counts_the_failed_test_as_passed():
    table = Table(unit("intercessors"))
    rolled_in_the_step(table, 2, 2)

    change = only(table.record(table.bravery("intercessors")), out.StateChanged)

    assert (change.rule, change.from_state, change.to_state) == ("wh40k10.insane_bravery", "wavering", "steady")
    assert table.battle.memory.used_by == ("ultramarines",)


def test_wh40k10_insane_bravery_once_per_battle_for_each_army():
    table = Table(unit("intercessors"), unit("assault", models=10), unit("warriors", "necrons", models=20))
    shot_up(table, "intercessors", 6)
    table.casualties("assault", 6)
    at_next_command_phase(table)
    table.roll("intercessors", 1, 2)
    table.roll("assault", 1, 3)
    table.record(table.bravery("intercessors"))

    refused = table.refuse(table.bravery("assault"))

    assert refused.rule == "wh40k10.insane_bravery"
    assert "already used Insane Bravery" in refused.message


@pytest.mark.parametrize(
    "when", ["test passed", "failed outside the step", "the phase ended", "a later phase", "never tested"]
)
def test_wh40k10_insane_bravery_only_just_after_a_failed_test_of_the_step(when):
    table = Table(unit("intercessors"), unit("hellblasters", models=5))
    if when == "test passed":
        rolled_in_the_step(table, 5, 5)
    elif when == "failed outside the step":
        table.go_to(1, "necrons", "shooting")
        table.record(table.fact("intercessors"))
        table.roll("intercessors", 1, 1)
    elif when == "the phase ended":
        rolled_in_the_step(table, 2, 2)
        table.step()
    elif when == "a later phase":
        rolled_in_the_step(table, 2, 2)
        table.go_to(2, "ultramarines", "movement")

    refused = table.refuse(table.bravery("intercessors"))

    assert refused.rule == "wh40k10.insane_bravery"
    assert refused.message == "intercessors has failed no Battle-shock test in this Battle-shock step"
