"""wh40k3.regroup.*, wh40k3.special.atsknf, wh40k3.sweeping_advance: Regroup (rules/wh40k3.md, "Regroup")."""

import pytest
from support.table import combat, only
from support.wh40k3 import charge, fact, shot_and_fled, table, unit

from morale.core import outcomes as out
from morale.events.types import PhaseEnded, PhaseStarted, PlayerDecided
from morale.projections.narrative import describe_outcome


def at_its_next_movement_phase(t, unit_id: str = "guard", lost: int = 3) -> list:
    shot_and_fled(t, unit_id, lost)
    return t.go_to(2, "imperium", "movement")


# -- wh40k3.regroup.when ------------------------------------------------------------------------
def test_wh40k3_regroup_when_at_the_start_of_its_next_movement_phase_it_may_try():
    t = table(unit("guard"), unit("boyz", "orks"))

    due = only(at_its_next_movement_phase(t), out.TestDue)

    assert (due.rule, due.test, due.dice, due.target) == ("wh40k3.regroup.when", "regroup", 2, 8)
    assert (due.decisions, due.facts) == (("decline_regroup",), ("enemy_within_6_inches", "out_of_coherency"))
    assert t.refuse(PhaseEnded(turn=2, side="imperium", phase="movement")).rule == "engine.clock.tests_first"


def test_wh40k3_regroup_when_not_in_the_enemy_movement_phase():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "imperium", "assault")
    t.record(charge("guard", "boyz"))
    t.record(combat(("imperium", "guard", 0), ("orks", "boyz", 2)))
    t.roll("guard", "morale", 6, 6)
    t.roll("guard", "fall_back", 3, 3)

    caused = t.go_to(1, "orks", "movement")

    assert t.due() == [] and not any(isinstance(o, out.TestDue) for o in caused)
    assert only(t.go_to(2, "imperium", "movement"), out.TestDue).rule == "wh40k3.regroup.when"


@pytest.mark.parametrize(("lost", "allowed"), [(5, True), (6, False)])  # 50% left / 40% left
def test_wh40k3_regroup_when_only_at_50_percent_of_its_starting_strength(lost, allowed):
    t = table(unit("guard", models=10), unit("boyz", "orks"))

    caused = at_its_next_movement_phase(t, lost=lost)

    if allowed:
        assert t.due() == ["guard:regroup"]
    else:
        not_taken = only(caused, out.TestNotTaken)
        assert (not_taken.rule, not_taken.detail) == (
            "wh40k3.regroup.when",
            "4 of 10 models: under 50% of its starting strength",
        )
        assert t.due() == ["guard:fall_back"]


@pytest.mark.parametrize(
    ("reported", "why"),
    [("enemy_within_6_inches", "an enemy is within 6 inches"), ("out_of_coherency", "it is out of coherency")],
)
def test_wh40k3_regroup_when_not_with_an_enemy_within_6_inches_or_out_of_coherency(reported, why):
    t = table(unit("guard"), unit("boyz", "orks"))
    at_its_next_movement_phase(t)

    caused = t.record(fact("guard", reported))

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.rule, not_taken.trigger, not_taken.detail) == ("wh40k3.regroup.when", "wh40k3.regroup.when", why)
    assert only(caused, out.StateChanged).rule == "wh40k3.regroup.fail"
    assert t.due() == ["guard:fall_back"]


def test_wh40k3_regroup_when_the_50_percent_is_exact_for_a_large_unit():
    """50 of 101 models is 49.5%: under half, no Regroup test (no rounding to the nearest percent)."""
    t = table(unit("horde", models=101), unit("boyz", "orks"))

    caused = at_its_next_movement_phase(t, "horde", lost=51)

    assert only(caused, out.TestNotTaken).detail == "50 of 101 models: under 50% of its starting strength"
    assert t.due() == ["horde:fall_back"]


def test_wh40k3_regroup_when_conditions_are_refused_with_no_regroup_waiting():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "imperium", "movement")

    assert t.refuse(fact("guard", "enemy_within_6_inches")).rule == "wh40k3.regroup.when"
    assert t.refuse(fact("guard", "regroup_conditions_met")).rule == "wh40k3.regroup.when"
    assert t.refuse(fact("guard", "out_of_coherency", False)).field == "value"


def test_wh40k3_regroup_when_the_player_may_decline_and_it_falls_back_again():
    t = table(unit("guard"), unit("boyz", "orks"))
    at_its_next_movement_phase(t)

    caused = t.record(PlayerDecided(unit="guard", decision="decline_regroup"))

    assert only(caused, out.TestNotTaken).detail == "the player declines to try"
    assert t.due() == ["guard:fall_back"]


def test_wh40k3_regroup_when_a_unit_destroyed_with_its_regroup_test_due_leaves_nothing_due():
    """Its last model lost, the Regroup test lapses (`engine.destroyed`): that is no attempt called
    off as if failed, and no Fall Back move falls due for a destroyed unit."""
    t = table(unit("guard"), unit("boyz", "orks"))
    at_its_next_movement_phase(t)

    caused = t.casualties("guard", 7)

    lapsed = only(caused, out.TestNotTaken)
    assert (lapsed.rule, lapsed.trigger, lapsed.withdrawn) == ("engine.destroyed", "wh40k3.regroup.when", True)
    assert only(caused, out.StateChanged).to_state == "destroyed"
    assert t.state("guard") == "destroyed" and t.due() == []


# -- wh40k3.regroup.fail ------------------------------------------------------------------------
def test_wh40k3_regroup_fail_it_falls_back_another_2d6():
    t = table(unit("guard", ld=8), unit("boyz", "orks"))
    at_its_next_movement_phase(t)

    caused = t.roll("guard", "regroup", 4, 5)

    change = only(caused, out.StateChanged)
    assert (change.rule, change.from_state, change.to_state) == ("wh40k3.regroup.fail", "falling_back", "falling_back")
    assert only(caused, out.TestDue).test == "fall_back"
    assert only(t.roll("guard", "fall_back", 6, 1), out.Moved).inches == 7


# -- wh40k3.regroup.pass ------------------------------------------------------------------------
def test_wh40k3_regroup_pass_no_other_move_that_phase_but_3_inches():
    t = table(unit("guard"), unit("boyz", "orks"))
    at_its_next_movement_phase(t)

    caused = t.roll("guard", "regroup", 4, 4)

    assert only(caused, out.StateChanged).to_state == "regrouped"
    applied = only(caused, out.RestrictionApplied)
    assert (applied.rule, applied.restriction) == ("wh40k3.regroup.pass", "regrouped_this_phase")
    assert "movement phase (imperium, turn 2)" in applied.until
    lifted = only(t.end_phase(), out.RestrictionLifted)
    assert lifted.restriction == "regrouped_this_phase"


def test_wh40k3_regroup_pass_it_may_assault_that_turn_and_is_steady_at_its_end():
    t = table(unit("guard"), unit("boyz", "orks"))
    at_its_next_movement_phase(t)
    t.roll("guard", "regroup", 4, 4)
    t.go_to(2, "imperium", "assault")

    t.record(charge("guard", "boyz"))

    assert t.state("guard") == "regrouped"
    change = only(t.end_phase(), out.StateChanged)
    assert (change.rule, change.to_state) == ("wh40k3.regroup.pass", "steady")


def lost_combat_and_fled(t, unit_id: str = "guard", lost: int = 0) -> None:
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", unit_id))
    if lost:
        t.casualties(unit_id, lost)
    t.record(combat(("imperium", unit_id, 0), ("orks", "boyz", 2)))
    t.roll(unit_id, "morale", 6, 6)
    t.roll(unit_id, "fall_back", 3, 4)


# -- wh40k3.regroup.cover -----------------------------------------------------------------------
def fled_into_cover(t, unit_id: str = "guard", lost: int = 3) -> list:
    shot_and_fled(t, unit_id, lost)
    return t.record(fact(unit_id, "reached_cover"))


def test_wh40k3_regroup_cover_reaching_cover_in_its_corridor_gives_a_second_chance():
    t = table(unit("guard"), unit("boyz", "orks"))

    due = only(fled_into_cover(t), out.TestDue)

    assert (due.rule, due.test, due.target) == ("wh40k3.regroup.cover", "regroup", 8)
    assert due.decisions == ("decline_regroup",)


def test_wh40k3_regroup_cover_passed_it_stops():
    t = table(unit("guard"), unit("boyz", "orks"))
    fled_into_cover(t)

    caused = t.roll("guard", "regroup", 3, 3)

    change = only(caused, out.StateChanged)
    assert (change.rule, change.to_state) == ("wh40k3.regroup.cover", "regrouped")
    assert describe_outcome(change, t.battle) == "Guard Regroups in cover and stops"


def test_wh40k3_regroup_cover_failed_it_completes_its_move():
    t = table(unit("guard"), unit("boyz", "orks"))
    fled_into_cover(t)

    caused = t.roll("guard", "regroup", 5, 5)

    assert only(caused, out.TestResolved).detail == "it completes its Fall Back move"
    assert t.state("guard") == "falling_back" and t.due() == []


def test_wh40k3_regroup_cover_only_once_per_phase():
    t = table(unit("guard"), unit("boyz", "orks"))
    fled_into_cover(t)
    t.roll("guard", "regroup", 5, 5)

    caused = t.record(fact("guard", "reached_cover"))

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.rule, not_taken.detail) == ("wh40k3.regroup.cover", "it already tried in cover this phase")
    assert t.due() == []


def test_wh40k3_regroup_cover_again_in_its_own_movement_phase():
    t = table(unit("guard"), unit("boyz", "orks"))
    fled_into_cover(t)
    t.roll("guard", "regroup", 5, 5)
    t.go_to(2, "imperium", "movement")
    t.roll("guard", "regroup", 6, 6)
    t.roll("guard", "fall_back", 2, 2)

    assert only(t.record(fact("guard", "reached_cover")), out.TestDue).rule == "wh40k3.regroup.cover"


def test_wh40k3_regroup_cover_under_the_conditions_of_regroup_when():
    t = table(unit("guard", models=10), unit("boyz", "orks"))

    caused = fled_into_cover(t, lost=6)

    assert only(caused, out.TestNotTaken).rule == "wh40k3.regroup.when"
    assert t.state("guard") == "falling_back" and t.due() == []
    t2 = table(unit("guard"), unit("boyz", "orks"))
    fled_into_cover(t2)
    caused = t2.record(fact("guard", "enemy_within_6_inches"))
    assert only(caused, out.TestNotTaken).detail == "an enemy is within 6 inches"
    assert t2.state("guard") == "falling_back" and t2.due() == []


def test_wh40k3_regroup_cover_not_after_falling_back_out_of_a_close_combat_through_it():
    t = table(unit("guard", models=10), unit("boyz", "orks", models=10))
    lost_combat_and_fled(t)

    caused = t.record(fact("guard", "reached_cover"))

    not_taken = only(caused, out.TestNotTaken)
    assert not_taken.rule == "wh40k3.regroup.cover"
    assert not_taken.detail == "it fell back out of a close combat through cover this turn"


def test_wh40k3_regroup_cover_after_falling_back_out_of_a_combat_through_it_no_last_chance_at_the_edge():
    """The source text: no Regroup attempt that turn, and the last chance only where no such
    restriction applies."""
    t = table(unit("guard", models=10), unit("boyz", "orks", models=10))
    lost_combat_and_fled(t)
    t.record(fact("guard", "reached_cover"))

    caused = t.record(fact("guard", "reached_table_edge"))

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.rule, not_taken.trigger) == ("wh40k3.regroup.cover", "wh40k3.regroup.table_edge")
    assert only(caused, out.StateChanged).to_state == "dispersed"


def test_wh40k3_regroup_cover_falling_back_out_of_a_combat_in_the_open_keeps_the_last_chance():
    t = table(unit("guard", models=10), unit("boyz", "orks", models=10))
    lost_combat_and_fled(t)

    caused = t.record(fact("guard", "reached_table_edge"))

    assert only(caused, out.TestDue).rule == "wh40k3.regroup.table_edge"


@pytest.mark.parametrize("when", ["steady", "before_the_move", "next_phase"])
def test_wh40k3_regroup_cover_is_reached_during_a_fall_back_move(when):
    t = table(unit("guard"), unit("boyz", "orks"))
    if when != "steady":
        t.go_to(1, "orks", "shooting")
        t.casualties("guard", 3)
        t.end_phase()
        t.roll("guard", "morale", 6, 6)
    if when == "next_phase":
        t.roll("guard", "fall_back", 3, 3)
        t.go_to(1, "orks", "assault")

    refusal = t.refuse(fact("guard", "reached_cover"))

    assert refusal.rule == "wh40k3.regroup.cover"
    expected = {
        "steady": "not Falling Back",
        "before_the_move": "must first settle its fall_back",
        "next_phase": "made none this phase",
    }
    assert expected[when] in refusal.message


# -- wh40k3.regroup.table_edge ------------------------------------------------------------------
def test_wh40k3_regroup_table_edge_a_last_chance_passed_it_stays():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)

    due = only(t.record(fact("guard", "reached_table_edge")), out.TestDue)
    caused = t.roll("guard", "regroup", 4, 4)

    assert due.rule == "wh40k3.regroup.table_edge"
    change = only(caused, out.StateChanged)
    assert (change.rule, change.to_state) == ("wh40k3.regroup.table_edge", "regrouped")


def test_wh40k3_regroup_table_edge_failed_it_is_removed_from_the_battlefield():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.record(fact("guard", "reached_table_edge"))

    change = only(t.roll("guard", "regroup", 5, 5), out.StateChanged)

    assert (change.rule, change.to_state) == ("wh40k3.regroup.table_edge", "dispersed")
    assert describe_outcome(change, t.battle).endswith("is removed from the battlefield by its table edge")


@pytest.mark.parametrize("why", ["under_half", "enemy_within_6_inches", "out_of_coherency", "declined"])
def test_wh40k3_regroup_table_edge_not_allowed_it_is_removed(why):
    t = table(unit("guard", models=10), unit("boyz", "orks"))
    shot_and_fled(t, lost=6 if why == "under_half" else 3)

    caused = t.record(fact("guard", "reached_table_edge"))
    if why in ("enemy_within_6_inches", "out_of_coherency"):
        caused = t.record(fact("guard", why))
    elif why == "declined":
        caused = t.record(PlayerDecided(unit="guard", decision="decline_regroup"))

    assert only(caused, out.TestNotTaken).trigger == "wh40k3.regroup.table_edge"
    assert only(caused, out.StateChanged).to_state == "dispersed"


def test_wh40k3_regroup_table_edge_only_while_falling_back():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "orks", "movement")

    assert t.refuse(fact("guard", "reached_table_edge")).rule == "wh40k3.regroup.table_edge"


# -- wh40k3.special.atsknf ----------------------------------------------------------------------
def marines(**kwargs):
    return unit("marines", rules=("and_they_shall_know_no_fear",), **kwargs)


def test_wh40k3_special_atsknf_regroups_automatically_at_the_end_of_its_fall_back_move():
    t = table(marines(), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")
    t.casualties("marines", 3)
    t.end_phase()
    t.roll("marines", "morale", 6, 6)

    due = only(t.roll("marines", "fall_back", 3, 3), out.TestDue)

    assert (due.rule, due.dice, due.facts[0]) == ("wh40k3.special.atsknf", 0, "regroup_conditions_met")
    caused = t.record(fact("marines", "regroup_conditions_met"))
    result = only(caused, out.TestResolved)
    assert (result.rule, result.passed, result.automatic) == ("wh40k3.special.atsknf", True, True)
    assert only(caused, out.StateChanged).to_state == "regrouped"


def test_wh40k3_special_atsknf_not_with_an_enemy_within_6_inches():
    t = table(marines(), unit("boyz", "orks"))
    shot_and_fled(t, "marines")

    caused = t.record(fact("marines", "enemy_within_6_inches"))

    assert only(caused, out.TestNotTaken).trigger == "wh40k3.special.atsknf"
    assert t.state("marines") == "falling_back" and t.due() == []
    assert only(t.go_to(2, "imperium", "movement"), out.TestDue).rule == "wh40k3.regroup.when"


def test_wh40k3_special_atsknf_may_regroup_below_half_strength():
    t = table(marines(models=10), unit("boyz", "orks"))
    shot_and_fled(t, "marines", lost=7)
    t.record(fact("marines", "out_of_coherency"))

    due = only(t.go_to(2, "imperium", "movement"), out.TestDue)

    assert (due.rule, due.dice) == ("wh40k3.regroup.when", 2)


def test_wh40k3_special_atsknf_the_player_cannot_decline_it():
    """It Regroups automatically: no choice is offered, and a decline is refused."""
    t = table(marines(), unit("boyz", "orks"))
    shot_and_fled(t, "marines")

    [due] = t.battle.due_for("marines")

    assert (due.rule, due.decisions) == ("wh40k3.special.atsknf", ())
    t.refuse(PlayerDecided(unit="marines", decision="decline_regroup"))
    assert t.due() == ["marines:regroup"]


def test_wh40k3_special_atsknf_the_table_must_report_before_the_next_phase():
    t = table(marines(), unit("boyz", "orks"))
    shot_and_fled(t, "marines")

    refusal = t.refuse(PhaseStarted(turn=1, side="orks", phase="assault"))

    assert refusal.rule == "engine.clock.tests_first"


# -- wh40k3.sweeping_advance --------------------------------------------------------------------
def test_wh40k3_sweeping_advance_contacted_while_falling_back_it_must_pass_a_regroup_test():
    t = table(unit("guard", models=10, ld=8), unit("boyz", "orks"))
    lost_combat_and_fled(t, lost=7)  # 3 of 10: it could not otherwise Regroup

    due = only(t.record(fact("guard", "caught_by_sweeping_advance")), out.TestDue)

    assert (due.rule, due.test, due.target, due.modifiers) == ("wh40k3.sweeping_advance", "regroup", 8, ())
    change = only(t.roll("guard", "regroup", 4, 4), out.StateChanged)
    assert (change.rule, change.to_state) == ("wh40k3.sweeping_advance", "regrouped")


def test_wh40k3_sweeping_advance_failed_it_is_destroyed():
    t = table(unit("guard"), unit("boyz", "orks"))
    lost_combat_and_fled(t)
    t.record(fact("guard", "caught_by_sweeping_advance"))

    change = only(t.roll("guard", "regroup", 6, 5), out.StateChanged)

    assert (change.rule, change.to_state) == ("wh40k3.sweeping_advance", "dispersed")
    assert t.due() == []  # destroyed, it makes no Fall Back move (not as a failed Regroup at its Movement phase)


def test_wh40k3_sweeping_advance_not_after_a_fall_back_move_from_shooting_that_phase():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)  # it fell back this phase, but not out of a close combat

    refusal = t.refuse(fact("guard", "caught_by_sweeping_advance"))

    assert (refusal.rule, refusal.message) == (
        "wh40k3.sweeping_advance",
        "guard did not fall back out of a close combat this phase",
    )


def test_wh40k3_sweeping_advance_only_after_falling_back_out_of_a_combat():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.go_to(1, "orks", "assault")

    assert t.refuse(fact("guard", "caught_by_sweeping_advance")).rule == "wh40k3.sweeping_advance"
