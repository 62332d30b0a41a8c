"""wh40k6.regroup.* and wh40k6.assaulted.*: Regroup, and charged while Falling Back
(rules/wh40k6.md, "Regroup" and "Charged while Falling Back")."""

import pytest
from support.table import Table, only, rules_cited, unit

from morale.core import outcomes as out
from morale.events.types import ChargeDeclared, DiceRolled, PhaseEnded, PlayerDecided
from morale.projections.board import board
from morale.projections.narrative import describe_outcome


def fled_from_shooting(table: Table, unit_id: str = "marines", lost: int = 3) -> None:
    """In the orks' Shooting phase of turn 1 `unit_id` loses `lost` models, fails its Morale test
    and Falls Back 6 inches."""
    table.go_to(1, "orks", "shooting")
    table.casualties(unit_id, lost)
    table.end_phase()
    table.roll(unit_id, "morale", 6, 6)
    table.roll(unit_id, "fall_back", 3, 3)


def charge(charger: str, *targets: str, in_range: tuple[str, ...] | None = None) -> ChargeDeclared:
    return ChargeDeclared(
        charger=charger, targets=tuple(targets), in_range=tuple(targets if in_range is None else in_range)
    )


# -- wh40k6.regroup.when ------------------------------------------------------------------------
def test_wh40k6_regroup_when_own_movement_phase_before_any_model_moves():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)

    caused = table.go_to(2, "imperium", "movement")

    due = only(caused, out.TestDue)
    assert (due.test, due.rule, due.decisions) == ("regroup", "wh40k6.regroup.when", ("decline_regroup",))
    assert table.due() == ["marines:regroup"]
    ended = PhaseEnded(turn=2, side="imperium", phase="movement")
    assert table.refuse(ended).rule == "engine.clock.tests_first"


def test_wh40k6_regroup_when_not_in_the_enemy_movement_phase():
    table = Table(unit("boyz", "orks"), unit("marines"))
    table.go_to(1, "imperium", "shooting")
    table.casualties("marines", 3)  # the imperium's own unit, to a Gets Hot
    table.end_phase()
    table.roll("marines", "morale", 6, 6)
    table.roll("marines", "fall_back", 3, 3)

    caused = table.go_to(1, "orks", "movement")

    assert table.due() == []
    assert not any(isinstance(o, out.TestDue) for o in caused)


def test_wh40k6_regroup_when_not_for_units_that_are_not_falling_back():
    table = Table(unit("marines"), unit("scouts"), unit("boyz", "orks"))
    fled_from_shooting(table)

    table.go_to(2, "imperium", "movement")

    assert table.due() == ["marines:regroup"]


def test_wh40k6_regroup_when_the_player_may_decline():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")

    caused = table.record(PlayerDecided(unit="marines", decision="decline_regroup"))

    assert not any(isinstance(o, out.TestResolved) for o in caused)
    assert table.state("marines") == "falling_back"
    assert table.due() == ["marines:fall_back"]


def test_wh40k6_regroup_when_decline_refused_with_no_regroup_due():
    table = Table(unit("marines"), unit("boyz", "orks"))
    table.go_to(1, "imperium", "movement")

    refusal = table.refuse(PlayerDecided(unit="marines", decision="decline_regroup"))

    assert refusal.rule == "engine.decision"


# -- wh40k6.regroup.test ------------------------------------------------------------------------
@pytest.mark.parametrize(("models", "lost"), [(10, 7), (8, 6), (4, 3)])  # 30%, exactly 25%, exactly 25%
def test_wh40k6_regroup_test_normal_ld_test_with_25_percent_left(models, lost):
    table = Table(unit("marines", models=models), unit("boyz", "orks"))
    fled_from_shooting(table, lost=lost)
    table.go_to(2, "imperium", "movement")

    result = only(table.roll("marines", "regroup", 4, 4), out.TestResolved)

    assert (result.rule, result.passed, result.target) == ("wh40k6.test.morale", True, 8)
    assert table.state("marines") == "regrouped"


def test_wh40k6_regroup_test_normal_ld_test_can_fail():
    table = Table(unit("marines", models=10), unit("boyz", "orks"))
    fled_from_shooting(table, lost=7)
    table.go_to(2, "imperium", "movement")

    result = only(table.roll("marines", "regroup", 4, 5), out.TestResolved)

    assert (result.rule, result.passed) == ("wh40k6.test.morale", False)


@pytest.mark.parametrize(("models", "lost"), [(10, 8), (25, 19)])  # 20%; 24%, just under a quarter
def test_wh40k6_regroup_test_under_25_percent_fails_a_roll_under_ld(models, lost):
    table = Table(unit("marines", ld=9, models=models), unit("boyz", "orks"))
    fled_from_shooting(table, lost=lost)
    table.go_to(2, "imperium", "movement")

    caused = table.roll("marines", "regroup", 1, 2)

    result = only(caused, out.TestResolved)
    assert (result.rule, result.passed, result.total) == ("wh40k6.regroup.test", False, 3)
    assert table.state("marines") == "falling_back"


def test_wh40k6_regroup_test_under_25_percent_passes_on_double_one():
    table = Table(unit("marines", models=10), unit("boyz", "orks"))
    fled_from_shooting(table, lost=8)
    table.go_to(2, "imperium", "movement")

    result = only(table.roll("marines", "regroup", 1, 1), out.TestResolved)

    assert (result.rule, result.passed) == ("wh40k6.test.insane_heroism", True)
    assert table.state("marines") == "regrouped"


def test_wh40k6_regroup_test_independent_character_counts_as_25_percent():
    table = Table(unit("command", models=10, rules=("independent_character",)), unit("boyz", "orks"))
    fled_from_shooting(table, "command", lost=9)  # 1 of 10 left
    table.go_to(2, "imperium", "movement")

    result = only(table.roll("command", "regroup", 4, 4), out.TestResolved)

    assert (result.rule, result.passed) == ("wh40k6.test.morale", True)
    assert table.state("command") == "regrouped"


# -- wh40k6.regroup.fail ------------------------------------------------------------------------
def test_wh40k6_regroup_fail_falls_back_again_at_once():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")

    caused = table.roll("marines", "regroup", 5, 6)

    change = only(caused, out.StateChanged)
    assert (change.to_state, change.rule) == ("falling_back", "wh40k6.regroup.fail")
    assert table.due() == ["marines:fall_back"]
    assert only(table.roll("marines", "fall_back", 1, 2), out.Moved).inches == 3


# -- wh40k6.regroup.pass ------------------------------------------------------------------------
def test_wh40k6_regroup_pass_stops_falling_back():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")

    caused = table.roll("marines", "regroup", 3, 3)

    change = only(caused, out.StateChanged)
    assert (change.from_state, change.to_state, change.rule) == ("falling_back", "regrouped", "wh40k6.regroup.pass")
    assert table.due() == []  # no Fall Back move this Movement phase
    assert not any(isinstance(o, out.Moved) for o in caused)


def test_wh40k6_regroup_pass_no_more_regroup_tests_next_turn():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")
    table.roll("marines", "regroup", 3, 3)

    table.go_to(3, "imperium", "movement")

    assert table.due() == []
    assert table.state("marines") == "steady"


# -- wh40k6.regroup.after -----------------------------------------------------------------------
def test_wh40k6_regroup_after_no_charge_that_turn():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")

    caused = table.roll("marines", "regroup", 3, 3)

    applied = only(caused, out.RestrictionApplied)
    assert (applied.restriction, applied.rule) == ("regrouped_this_turn", "wh40k6.regroup.after")
    assert "imperium" in applied.until and "assault" in applied.until and "turn 2" in applied.until
    table.go_to(2, "imperium", "assault")
    assert table.refuse(charge("marines", "boyz")).rule == "wh40k6.regroup.after"


def test_wh40k6_regroup_after_steady_at_the_end_of_the_turn():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")
    table.roll("marines", "regroup", 3, 3)
    table.go_to(2, "imperium", "assault")

    caused = table.end_phase()

    change = only(caused, out.StateChanged)
    assert (change.from_state, change.to_state, change.rule) == ("regrouped", "steady", "wh40k6.regroup.after")
    assert only(caused, out.RestrictionLifted).restriction == "regrouped_this_turn"
    assert table.state("marines") == "steady"


def test_wh40k6_regroup_after_may_charge_again_next_turn():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")
    table.roll("marines", "regroup", 3, 3)

    table.go_to(3, "imperium", "assault")
    table.record(charge("marines", "boyz"))

    assert table.unit("marines").restricted("regrouped_this_turn") is None


# -- wh40k6.assaulted.test ----------------------------------------------------------------------
def test_wh40k6_assaulted_test_regroup_test_when_charged_in_range():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")

    caused = table.record(charge("boyz", "marines"))

    due = only(caused, out.TestDue)
    assert (due.test, due.rule, due.decisions) == ("regroup", "wh40k6.assaulted.test", ())
    assert table.due() == ["marines:regroup"]


def test_wh40k6_assaulted_test_cannot_be_declined():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "marines"))

    refusal = table.refuse(PlayerDecided(unit="marines", decision="decline_regroup"))

    assert refusal.rule == "engine.decision"
    assert table.due() == ["marines:regroup"]


def test_wh40k6_assaulted_test_not_until_the_enemy_is_in_charge_range():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")

    caused = table.record(charge("boyz", "marines", in_range=()))

    assert caused == ()
    assert table.due() == []


def test_wh40k6_assaulted_test_not_for_a_steady_target():
    table = Table(unit("marines"), unit("boyz", "orks"))
    table.go_to(1, "orks", "assault")

    table.record(charge("boyz", "marines"))

    assert table.due() == []


def test_wh40k6_assaulted_test_never_needs_insane_heroism_even_with_one_model_left():
    table = Table(unit("marines", ld=8, models=10), unit("boyz", "orks"))
    fled_from_shooting(table, lost=9)  # 1 of 10 left
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "marines"))

    result = only(table.roll("marines", "regroup", 4, 4), out.TestResolved)

    assert (result.rule, result.passed, result.target) == ("wh40k6.test.morale", True, 8)
    assert table.state("marines") == "regrouped"


# -- wh40k6.assaulted.fail ----------------------------------------------------------------------
def test_wh40k6_assaulted_fail_removed_at_the_end_of_the_assault_phase():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "marines"))

    caused = table.roll("marines", "regroup", 6, 5)

    assert "wh40k6.assaulted.fail" in rules_cited(caused)
    assert table.state("marines") == "falling_back"  # still there while the combat is fought
    assert table.due() == []  # no Fall Back move

    caused = table.end_phase()

    change = only(caused, out.StateChanged)
    assert (change.to_state, change.rule) == ("dispersed", "wh40k6.assaulted.fail")


def test_wh40k6_assaulted_fail_the_judge_reads_the_end_of_the_assault_phase_not_another():
    """What a person reads of the removal (wh40k6.assaulted.fail) names the phase it happens in: the
    scheduled change, its line in the narrative and the board's line all say the end of the Assault
    phase, never the Shooting phase that came before it."""
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "marines"))

    scheduled = only(table.roll("marines", "regroup", 6, 5), out.StateChangeScheduled)

    assert scheduled.rule == "wh40k6.assaulted.fail"
    assert scheduled.when == (1, 1, 3)  # turn 1, the orks' (second) side, the fourth phase: Assault
    assert scheduled.at == "end of the assault phase (orks, turn 1)"
    assert describe_outcome(scheduled, table.battle).endswith("at the end of the assault phase (orks, turn 1)")
    marines = next(u for u in board(table.battle).units if u.unit == "marines")
    (line,) = [r for r in marines.restrictions if r.rule == "wh40k6.assaulted.fail"]
    assert line.at == "end of the assault phase (orks, turn 1)"
    assert line.said.endswith("at the end of the assault phase (orks, turn 1)"), line.said


def test_wh40k6_assaulted_fail_not_undone_by_a_second_charge():
    table = Table(unit("marines"), unit("boyz", "orks"), unit("nobz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "marines"))
    table.roll("marines", "regroup", 6, 6)  # failed: removed at the end of this Assault phase

    caused = table.record(charge("nobz", "marines"))

    # Already doomed by the failed test: not tested again, so no passed test can undo the removal.
    assert not any(isinstance(o, out.TestDue) for o in caused)
    assert table.due() == [] and table.state("marines") == "falling_back"
    refused = table.refuse(DiceRolled(unit="marines", test="regroup", dice=(2, 2)))
    assert refused.rule == "engine.dice"

    change = only(table.end_phase(), out.StateChanged)
    assert (change.unit, change.to_state, change.rule) == ("marines", "dispersed", "wh40k6.assaulted.fail")


# -- wh40k6.assaulted.pass ----------------------------------------------------------------------
def test_wh40k6_assaulted_pass_regroups_without_moving():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "marines"))

    caused = table.roll("marines", "regroup", 4, 3)

    change = only(caused, out.StateChanged)
    assert (change.from_state, change.to_state, change.rule) == ("falling_back", "regrouped", "wh40k6.assaulted.pass")
    assert table.due() == []
    assert not any(isinstance(o, out.Moved) for o in caused)


def test_wh40k6_assaulted_pass_fights_on_and_is_steady_after_the_turn():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "marines"))
    table.roll("marines", "regroup", 4, 3)

    caused = table.end_phase()

    assert table.state("marines") == "steady"
    assert only(caused, out.StateChanged).to_state == "steady"
    assert table.go_to(2, "imperium", "movement") == ()  # no Regroup test: it is not Falling Back


def test_wh40k6_assaulted_pass_in_the_enemys_turn_steady_when_that_turn_ends_not_its_own():
    """The orks Fall Back in turn 1 and are charged in the imperium's turn 2: passing, they Regroup,
    and are steady when the imperium's turn ends, before their own turn 2 begins."""
    table = Table(unit("marines"), unit("boyz", "orks", models=10))
    table.go_to(1, "imperium", "shooting")
    table.casualties("boyz", 3)
    table.end_phase()
    table.roll("boyz", "morale", 6, 6)
    table.roll("boyz", "fall_back", 3, 3)
    table.go_to(1, "orks", "movement")
    table.roll("boyz", "regroup", 6, 6)  # failed: Falls Back again
    table.roll("boyz", "fall_back", 3, 3)
    table.go_to(2, "imperium", "assault")
    table.record(charge("marines", "boyz"))
    table.roll("boyz", "regroup", 3, 3)
    assert table.state("boyz") == "regrouped"

    table.end_phase()

    assert table.state("boyz") == "steady"


# -- wh40k6.assaulted.multi ---------------------------------------------------------------------
def test_wh40k6_assaulted_multi_every_falling_back_target_in_range_tests():
    table = Table(unit("marines"), unit("scouts"), unit("guard"), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", 3)
    table.casualties("guard", 3)
    table.end_phase()
    for fled in ("marines", "guard"):
        table.roll(fled, "morale", 6, 6)
        table.roll(fled, "fall_back", 2, 2)
    table.go_to(1, "orks", "assault")

    caused = table.record(charge("boyz", "scouts", "marines", "guard"))

    assert sorted(table.due()) == ["guard:regroup", "marines:regroup"]
    assert {o.rule for o in caused if isinstance(o, out.TestDue)} == {"wh40k6.assaulted.multi"}


def test_wh40k6_assaulted_multi_no_test_for_a_target_out_of_range():
    table = Table(unit("marines"), unit("scouts"), unit("boyz", "orks"))
    fled_from_shooting(table, "marines")
    table.go_to(1, "orks", "assault")

    table.record(charge("boyz", "scouts", "marines", in_range=("scouts",)))

    assert table.due() == []


def test_wh40k6_assaulted_multi_pass_regroups_and_combat_goes_on():
    table = Table(unit("marines", models=10), unit("scouts"), unit("boyz", "orks"))
    fled_from_shooting(table, "marines", lost=9)  # 1 of 10: still a normal Ld test
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "scouts", "marines"))

    caused = table.roll("marines", "regroup", 5, 3)

    assert only(caused, out.TestResolved).passed is True
    assert only(caused, out.StateChanged).to_state == "regrouped"


def test_wh40k6_assaulted_multi_fail_destroyed_at_once():
    table = Table(unit("marines"), unit("scouts"), unit("boyz", "orks"))
    fled_from_shooting(table, "marines")
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "scouts", "marines"))

    caused = table.roll("marines", "regroup", 6, 6)

    assert table.state("marines") == "dispersed"
    assert only(caused, out.StateChanged).rule == "wh40k6.assaulted.multi"


def test_wh40k6_assaulted_multi_fail_is_all_that_happens_nothing_put_off_to_the_phase_end():
    """Destroyed at once in a multiple charge, the unit is not also scheduled for removal at the end
    of the Assault phase, as a single charge's failed test would have it (wh40k6.assaulted.fail)."""
    table = Table(unit("marines"), unit("scouts"), unit("boyz", "orks"))
    fled_from_shooting(table, "marines")
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "scouts", "marines"))

    caused = table.roll("marines", "regroup", 6, 6)

    assert not [o for o in caused if isinstance(o, out.StateChangeScheduled)]
    assert table.unit("marines").pending == []


def test_wh40k6_assaulted_multi_fail_gone_by_the_end_of_the_assault_phase():
    table = Table(unit("marines"), unit("scouts"), unit("boyz", "orks"))
    fled_from_shooting(table, "marines")
    table.go_to(1, "orks", "assault")
    table.record(charge("boyz", "scouts", "marines"))
    table.roll("marines", "regroup", 6, 6)

    table.end_phase()

    assert table.state("marines") == "dispersed"
    assert table.state("scouts") == "steady"
