"""wh40k3.who.*, wh40k3.test.ld, wh40k3.mod.below_half: who tests, and how (rules/wh40k3.md)."""

import pytest
from support.table import combat, only
from support.wh40k3 import charge, fact, shot_and_fled, table, unit

from morale.core import outcomes as out
from morale.events.types import DiceRolled, RefereeRuled
from morale.projections.due import due_tests


def lost_to_shooting(t, unit_id: str, count: int) -> list:
    t.go_to(1, "orks", "shooting")
    t.casualties(unit_id, count)
    return t.end_phase()


# -- wh40k3.who.infantry ------------------------------------------------------------------------
@pytest.mark.parametrize("vehicle", ["tank", "dreadnought", "vehicle"])
def test_wh40k3_who_infantry_vehicles_never_take_a_morale_test(vehicle):
    t = table(unit("walker", unit_type=vehicle, models=3, ld=None), unit("boyz", "orks"))
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", "walker"))

    caused = t.record(combat(("imperium", "walker", 0), ("orks", "boyz", 2)))

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.rule, not_taken.test, not_taken.detail) == (
        "wh40k3.who.infantry",
        "morale",
        "vehicles never test",
    )
    assert t.due() == [] and t.state("walker") == "steady"


@pytest.mark.parametrize("unit_type", ["infantry", "jump_infantry", "bike", "jet_bike", "cavalry", "beast", "monster"])
def test_wh40k3_who_infantry_every_unit_that_is_not_a_vehicle_tests(unit_type):
    t = table(unit("troops", unit_type=unit_type, models=4), unit("boyz", "orks"))

    lost_to_shooting(t, "troops", 1)

    assert t.due() == ["troops:morale"]


def test_wh40k3_who_infantry_a_vehicle_needs_no_leadership_but_infantry_does():
    t = table(unit("rhino", unit_type="tank", models=1, ld=None))
    assert t.state("rhino") == "steady"

    refusal = t.refuse(unit("guard", ld=None))

    assert refusal.field == "ld"


def test_wh40k3_who_infantry_unknown_unit_types_are_refused():
    refusal = table().refuse(unit("guard", unit_type="titan"))
    assert refusal.field == "unit_type" and "tank" in refusal.message


# -- wh40k3.who.immune --------------------------------------------------------------------------
def test_wh40k3_who_immune_a_unit_immune_by_its_profile_takes_no_morale_test():
    t = table(unit("genestealers", models=4, rules=("immune_to_morale",)), unit("boyz", "orks"))

    caused = lost_to_shooting(t, "genestealers", 3)

    assert only(caused, out.TestNotTaken).rule == "wh40k3.who.immune"
    assert t.due() == [] and t.state("genestealers") == "steady"


def test_wh40k3_who_immune_no_last_man_test_either():
    t = table(unit("carnifex", models=2, rules=("immune_to_morale",)), unit("boyz", "orks"))
    lost_to_shooting(t, "carnifex", 1)

    caused = t.go_to(2, "imperium", "movement")

    assert only(caused, out.TestNotTaken).trigger == "wh40k3.trigger.last_man"
    assert t.due() == []


# -- wh40k3.who.auto_pass -----------------------------------------------------------------------
@pytest.mark.parametrize("special_rule", ["always_passes_morale", "always_passes_leadership"])
def test_wh40k3_who_auto_pass_morale_tests_pass_without_dice(special_rule):
    t = table(unit("zealots", models=4, rules=(special_rule,)), unit("boyz", "orks"))

    caused = lost_to_shooting(t, "zealots", 3)

    result = only(caused, out.TestResolved)
    assert (result.rule, result.passed, result.automatic) == ("wh40k3.who.auto_pass", True, True)
    assert t.due() == [] and t.state("zealots") == "steady"


def test_wh40k3_who_auto_pass_immune_units_still_take_the_barrage_pinning_test():
    t = table(unit("genestealers", ld=10, rules=("immune_to_morale",)), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")

    t.record(fact("genestealers", "hit_by_barrage"))
    result = only(t.roll("genestealers", "pinning", 6, 5), out.TestResolved)

    assert (result.test, result.trigger, result.passed, result.target) == ("pinning", "wh40k3.who.auto_pass", False, 10)
    assert t.unit("genestealers").restricted("pinned")


def test_wh40k3_who_auto_pass_passing_morale_tests_is_not_passing_pinning_tests():
    t = table(unit("zealots", rules=("always_passes_morale",)), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")

    caused = t.record(fact("zealots", "hit_by_barrage"))

    assert only(caused, out.TestDue).dice == 2
    assert t.due() == ["zealots:pinning"]


def test_wh40k3_who_auto_pass_passing_every_leadership_test_passes_pinning_too():
    t = table(unit("crusaders", rules=("always_passes_leadership",)), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")

    caused = t.record(fact("crusaders", "hit_by_barrage"))

    assert only(caused, out.TestResolved).rule == "wh40k3.who.auto_pass"
    assert t.due() == [] and not t.unit("crusaders").restricted("pinned")


def test_wh40k3_who_auto_pass_a_pinned_unit_cannot_assault_in_its_next_turn():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")
    t.record(fact("guard", "hit_by_barrage"))
    t.roll("guard", "pinning", 6, 6)
    t.go_to(2, "imperium", "assault")

    refusal = t.refuse(charge("guard", "boyz"))

    assert refusal.rule == "wh40k3.who.auto_pass"
    t.go_to(3, "imperium", "assault")
    t.record(charge("guard", "boyz"))


def test_wh40k3_who_auto_pass_a_barrage_hits_in_the_enemy_shooting_phase_only():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "imperium", "shooting")

    assert t.refuse(fact("guard", "hit_by_barrage")).rule == "wh40k3.who.auto_pass"
    t.go_to(1, "orks", "movement")
    assert t.refuse(fact("guard", "hit_by_barrage")).rule == "wh40k3.who.auto_pass"


def test_wh40k3_who_auto_pass_an_imperial_barrage_pins_an_ork_unit_too():
    """Either side's barrage: "orks" sorts after "imperium", and the side that sorts last must not be
    taken for the side whose phase it is."""
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "imperium", "shooting")

    assert t.record(fact("boyz", "hit_by_barrage")) and t.due() == ["boyz:pinning"]


def test_wh40k3_who_auto_pass_regroups_need_only_the_table_to_report_the_conditions():
    t = table(unit("crusaders", rules=("always_passes_leadership",)), unit("boyz", "orks"))
    t.record(RefereeRuled(unit="crusaders", reason="fled from a Warp storm", state="falling_back"))

    caused = t.go_to(1, "imperium", "movement")

    due = only(caused, out.TestDue)
    assert (due.dice, due.facts) == (0, ("regroup_conditions_met", "enemy_within_6_inches", "out_of_coherency"))
    refusal = t.refuse(DiceRolled(unit="crusaders", test="regroup", dice=(1, 1)))
    assert refusal.field == "dice" and "regroup_conditions_met" in refusal.message
    result = only(t.record(fact("crusaders", "regroup_conditions_met")), out.TestResolved)
    assert (result.rule, result.passed, result.automatic) == ("wh40k3.who.auto_pass", True, True)
    assert t.state("crusaders") == "regrouped"


# -- wh40k3.test.ld -----------------------------------------------------------------------------
@pytest.mark.parametrize(("dice", "passed"), [((4, 4), True), ((1, 2), True), ((4, 5), False), ((6, 6), False)])
def test_wh40k3_test_ld_2d6_equal_or_under_passes(dice, passed):
    t = table(unit("guard", ld=8, models=10), unit("boyz", "orks"))
    lost_to_shooting(t, "guard", 3)

    result = only(t.roll("guard", "morale", *dice), out.TestResolved)

    assert (result.rule, result.passed, result.total, result.target) == ("wh40k3.test.ld", passed, sum(dice), 8)
    assert t.state("guard") == ("steady" if passed else "falling_back")


def test_wh40k3_test_ld_a_failed_morale_test_makes_the_unit_fall_back():
    t = table(unit("guard"), unit("boyz", "orks"))
    lost_to_shooting(t, "guard", 3)

    caused = t.roll("guard", "morale", 5, 5)

    change = only(caused, out.StateChanged)
    assert (change.rule, change.to_state) == ("wh40k3.test.ld", "falling_back")
    assert t.due() == ["guard:fall_back"]


def test_wh40k3_test_ld_no_double_one_rule_in_3rd_edition():
    t = table(unit("gretchin", ld=1, models=10), unit("boyz", "orks"))
    lost_to_shooting(t, "gretchin", 3)

    result = only(t.roll("gretchin", "morale", 1, 1), out.TestResolved)

    assert (result.passed, result.target) == (False, 1)


def test_wh40k3_test_ld_a_falling_back_unit_does_not_test_again():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t, lost=3)
    t.go_to(2, "imperium", "movement")
    t.record(fact("guard", "enemy_within_6_inches"))
    t.roll("guard", "fall_back", 1, 1)
    t.go_to(2, "orks", "shooting")
    t.casualties("guard", 2)

    caused = t.end_phase()

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.rule, not_taken.detail) == ("wh40k3.test.ld", "it is already Falling Back")


# -- wh40k3.mod.below_half ----------------------------------------------------------------------
@pytest.mark.parametrize(("lost", "target"), [(3, 8), (5, 8), (6, 7), (9, 7)])  # 7, 5 (exactly half), 4, 1 left
def test_wh40k3_mod_below_half_minus_one_under_half_of_starting_strength(lost, target):
    t = table(unit("guard", ld=8, models=10), unit("boyz", "orks"))

    due = only(lost_to_shooting(t, "guard", lost), out.TestDue)

    assert due.target == target
    assert [m.rule for m in due.modifiers] == (["wh40k3.mod.below_half"] if target == 7 else [])


def test_wh40k3_mod_below_half_counts_the_starting_strength_not_the_strength_this_phase():
    t = table(unit("guard", ld=8, models=10), unit("boyz", "orks"))
    lost_to_shooting(t, "guard", 4)
    t.roll("guard", "morale", 2, 2)
    t.go_to(2, "orks", "shooting")
    t.casualties("guard", 2)  # 2 of 6: 33%; 4 of 10 left

    due = only(t.end_phase(), out.TestDue)

    assert (due.target, due.modifiers[0].reason) == (7, "below half strength (4 of 10)")


def test_wh40k3_test_ld_the_due_list_gives_the_exact_chance():
    t = table(unit("guard", ld=8, models=10), unit("boyz", "orks"))
    lost_to_shooting(t, "guard", 6)  # below half: needs 7 or less

    [due] = due_tests(t.battle)

    assert (due.target, due.odds.pass_ways, due.odds.of, due.odds.percent()) == (7, 21, 36, "58.3%")


def test_wh40k3_who_auto_pass_a_test_the_table_settles_has_no_odds():
    t = table(unit("crusaders", rules=("always_passes_leadership",)), unit("boyz", "orks"))
    t.record(RefereeRuled(unit="crusaders", reason="fled from a Warp storm", state="falling_back"))
    t.go_to(1, "imperium", "movement")

    [due] = due_tests(t.battle)

    assert (due.dice, due.odds, due.facts[0]) == (0, None, "regroup_conditions_met")
