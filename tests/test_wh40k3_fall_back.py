"""wh40k3.fall_back.*, wh40k3.assaulted, wh40k3.crossfire: Falling Back (rules/wh40k3.md, "Falling Back")."""

import msgspec
import pytest
from support.table import combat, only
from support.wh40k3 import charge, fact, shot_and_fled, table, unit

from morale.core import outcomes as out
from morale.core.rules import Refusal
from morale.events.types import ChargeDeclared, DiceRolled
from morale.projections.board import board
from morale.projections.due import due_tests


def failed_morale(t, unit_id: str = "guard", lost: int = 3) -> None:
    """Shot at in the orks' turn 1, fails its Morale test: its Fall Back roll is due."""
    t.go_to(1, "orks", "shooting")
    t.casualties(unit_id, lost)
    t.end_phase()
    t.roll(unit_id, "morale", 6, 6)


# -- wh40k3.fall_back.direction -----------------------------------------------------------------
def test_wh40k3_fall_back_direction_towards_its_own_table_edge_by_default():
    t = table(unit("guard"), unit("boyz", "orks"))
    failed_morale(t)

    moved = only(t.roll("guard", "fall_back", 4, 3), out.Moved)

    assert moved.detail == "towards its own table edge by the shortest path, in coherency, inside its corridor"


def test_wh40k3_fall_back_direction_the_scenario_may_say_its_deployment_zone_line():
    t = table(unit("guard"), unit("boyz", "orks"), house_rules={"fall_back_towards": "deployment_zone"})
    failed_morale(t)

    moved = only(t.roll("guard", "fall_back", 4, 3), out.Moved)

    assert moved.detail.startswith("towards its own deployment-zone line")


@pytest.mark.parametrize("towards", ["the nearest pub", 3])
def test_wh40k3_fall_back_direction_an_unknown_direction_is_refused(towards):
    with pytest.raises(Refusal) as refused:
        table(house_rules={"fall_back_towards": towards})
    assert refused.value.field == "house_rules"


# -- wh40k3.fall_back.distance ------------------------------------------------------------------
def test_wh40k3_fall_back_distance_2d6_inches():
    t = table(unit("guard"), unit("boyz", "orks"))
    failed_morale(t)

    moved = only(t.roll("guard", "fall_back", 5, 2), out.Moved)

    assert (moved.rule, moved.inches, moved.dice) == ("wh40k3.fall_back.distance", 7, (5, 2))


def test_wh40k3_fall_back_distance_fast_units_as_their_profile_says():
    t = table(unit("bikers", unit_type="bike", profile={"fall_back_dice": 3}), unit("boyz", "orks"))
    failed_morale(t, "bikers")

    assert t.refuse(DiceRolled(unit="bikers", test="fall_back", dice=(5, 2))).field == "dice"
    assert only(t.roll("bikers", "fall_back", 5, 2, 6), out.Moved).inches == 13


@pytest.mark.parametrize("dice", [1, 4])
def test_wh40k3_fall_back_distance_a_profile_may_give_from_1_to_4_dice(dice):
    t = table(unit("riders", unit_type="cavalry", profile={"fall_back_dice": dice}), unit("boyz", "orks"))
    failed_morale(t, "riders")

    [due] = t.battle.due_for("riders")

    assert (due.test, due.dice) == ("fall_back", dice)
    assert only(t.roll("riders", "fall_back", *[3] * dice), out.Moved).inches == 3 * dice


@pytest.mark.parametrize("dice", [0, 5, 7])
def test_wh40k3_fall_back_distance_a_profile_field_out_of_range_is_refused(dice):
    refusal = table().refuse(unit("bikers", profile={"fall_back_dice": dice}))
    assert refusal.field == "profile" and "fall_back_dice" in refusal.message


def test_wh40k3_fall_back_distance_a_misspelt_profile_field_is_refused_naming_it():
    """Not dropped: a bike's fall_back_dice spelt wrong would leave it Falling Back 2D6."""
    refusal = table().refuse(unit("bikers", unit_type="bike", profile={"fallback_dice": 3}))
    assert refusal.field == "profile" and "unknown field `fallback_dice`" in refusal.message


def test_wh40k3_fall_back_distance_difficult_terrain_is_refused_while_a_morale_test_is_due():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")
    t.casualties("guard", 3)
    t.end_phase()

    refusal = t.refuse(fact("guard", "through_difficult_terrain"))

    assert (refusal.rule, refusal.message) == (
        "wh40k3.fall_back.distance",
        "state through_difficult_terrain when guard's Fall Back roll is due, before its dice",
    )
    assert t.due() == ["guard:morale"]


@pytest.mark.parametrize(("dice", "inches"), [((4, 3), 3.5), ((4, 4), 4), ((1, 1), 1)])
def test_wh40k3_fall_back_distance_halved_through_difficult_terrain(dice, inches):
    t = table(unit("guard"), unit("boyz", "orks"))
    failed_morale(t)

    assert t.record(fact("guard", "through_difficult_terrain")) == ()
    moved = only(t.roll("guard", "fall_back", *dice), out.Moved)

    assert moved.inches == inches and "halved: difficult terrain" in moved.detail
    assert msgspec.json.encode(moved.inches) == str(inches).encode()  # the feed says 4, not 4.0


def test_wh40k3_fall_back_distance_difficult_terrain_is_stated_before_the_roll_and_once():
    t = table(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")
    assert t.refuse(fact("guard", "through_difficult_terrain")).rule == "wh40k3.fall_back.distance"
    t.casualties("guard", 3)
    t.end_phase()
    t.roll("guard", "morale", 6, 6)
    t.record(fact("guard", "through_difficult_terrain"))

    assert t.refuse(fact("guard", "through_difficult_terrain")).rule == "wh40k3.fall_back.distance"
    assert t.refuse(fact("guard", "through_difficult_terrain", 2)).field == "value"


def test_wh40k3_fall_back_distance_each_turn_until_it_regroups():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)

    t.go_to(2, "imperium", "movement")
    t.roll("guard", "regroup", 5, 5)

    assert t.state("guard") == "falling_back" and t.due() == ["guard:fall_back"]
    t.roll("guard", "fall_back", 2, 3)
    t.go_to(3, "imperium", "movement")
    assert t.due() == ["guard:regroup"]


# -- wh40k3.fall_back.shooting ------------------------------------------------------------------
def test_wh40k3_fall_back_shooting_a_falling_back_unit_cannot_assault():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.go_to(2, "imperium", "movement")
    t.record(fact("guard", "enemy_within_6_inches"))
    t.roll("guard", "fall_back", 1, 1)
    t.go_to(2, "imperium", "assault")

    refusal = t.refuse(charge("guard", "boyz"))

    assert refusal.rule == "wh40k3.fall_back.shooting"


def test_wh40k3_fall_back_shooting_the_board_says_it_shoots_as_if_it_moved():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)

    row = next(r for r in board(t.battle).units if r.unit == "guard")

    texts = {r.rule: r.text for r in row.restrictions}
    assert "no heavy weapons, rapid fire only within 12 inches; cannot assault" in texts["wh40k3.fall_back.shooting"]
    assert texts["wh40k3.fall_back.distance"] == "Falls Back 2D6 inches each turn until it Regroups"


def test_wh40k3_fall_back_shooting_a_falling_back_unit_fights_in_no_combat():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.go_to(1, "orks", "assault")

    refusal = t.refuse(combat(("imperium", "guard", 0), ("orks", "boyz", 2)))

    assert refusal.rule == "wh40k3.fall_back.shooting"


# -- wh40k3.assaulted ---------------------------------------------------------------------------
def test_wh40k3_assaulted_an_unmodified_ld_test_at_once_even_when_it_could_not_regroup():
    t = table(unit("guard", ld=8, models=10), unit("boyz", "orks"))
    shot_and_fled(t, lost=7)  # 3 of 10 left: below half, could not Regroup
    t.go_to(1, "orks", "assault")

    due = only(t.record(charge("boyz", "guard")), out.TestDue)

    assert (due.rule, due.test, due.target, due.modifiers, due.facts) == ("wh40k3.assaulted", "regroup", 8, (), ())
    assert only(t.roll("guard", "regroup", 4, 4), out.StateChanged).to_state == "regrouped"


def test_wh40k3_assaulted_passed_it_fights_normally():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", "guard"))

    change = only(t.roll("guard", "regroup", 2, 3), out.StateChanged)

    assert (change.rule, change.to_state) == ("wh40k3.assaulted", "regrouped")
    t.record(combat(("imperium", "guard", 2), ("orks", "boyz", 1)))  # it fights, and wins
    t.roll("boyz", "morale", 1, 1)
    t.go_to(2, "imperium", "movement")
    assert t.state("guard") == "steady"


def test_wh40k3_assaulted_passed_it_fights_normally_with_no_restriction_on_its_moves():
    """Regrouping as it is charged, it is not held to 3 inches the rest of the phase
    (`wh40k3.regroup.pass`'s restriction belongs to the chances under `wh40k3.regroup.when`)."""
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", "guard"))

    caused = t.roll("guard", "regroup", 2, 3)

    assert not any(isinstance(o, out.RestrictionApplied) for o in caused)
    assert not t.unit("guard").restricted("regrouped_this_phase")
    row = next(r for r in board(t.battle).units if r.unit == "guard")
    assert [r.text for r in row.restrictions] == ["will be steady", "fights normally this turn; shoots as having moved"]


def test_wh40k3_assaulted_failed_it_is_destroyed():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", "guard"))

    change = only(t.roll("guard", "regroup", 5, 5), out.StateChanged)

    assert (change.rule, change.to_state) == ("wh40k3.assaulted", "dispersed")
    assert t.due() == []  # destroyed, it makes no Fall Back move (not as a failed Regroup at its Movement phase)


def test_wh40k3_assaulted_only_targets_the_chargers_reach():
    t = table(unit("guard"), unit("vets"), unit("boyz", "orks"))
    shot_and_fled(t, "guard")
    t.go_to(1, "orks", "assault")

    t.record(ChargeDeclared(charger="boyz", targets=("guard", "vets"), in_range=("vets",)))

    assert t.due() == []


def test_wh40k3_assaulted_the_table_cannot_report_regroup_conditions_against_it():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", "guard"))

    assert t.refuse(fact("guard", "enemy_within_6_inches")).rule == "wh40k3.regroup.when"


# -- wh40k3.crossfire ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("distance", "dice", "destroyed"), [(6, (3, 3), True), (6, (4, 3), True), (6.5, (3, 3), False), (9, (1, 2), False)]
)
def test_wh40k3_crossfire_a_roll_equal_to_or_over_the_distance_destroys_the_unit(distance, dice, destroyed):
    t = table(unit("guard"), unit("boyz", "orks"))
    failed_morale(t)
    t.record(fact("guard", "enemy_in_corridor", distance))

    caused = t.roll("guard", "fall_back", *dice)

    if destroyed:
        change = only(caused, out.StateChanged)
        assert (change.rule, change.to_state) == ("wh40k3.crossfire", "dispersed")
        result = only(caused, out.TestResolved)
        assert (result.rule, result.passed) == ("wh40k3.crossfire", False)
        assert result.detail == f'{sum(dice)}" reaches the enemy {distance:g}" away in its corridor'
        assert not any(isinstance(o, out.Moved) for o in caused)
    else:
        moved = only(caused, out.Moved)
        assert t.state("guard") == "falling_back" and f'short of the enemy {distance:g}" away' in moved.detail


def test_wh40k3_crossfire_compares_the_halved_distance_through_difficult_terrain():
    t = table(unit("guard"), unit("boyz", "orks"))
    failed_morale(t)
    t.record(fact("guard", "enemy_in_corridor", 4))
    t.record(fact("guard", "through_difficult_terrain"))

    caused = t.roll("guard", "fall_back", 4, 3)  # 7, halved: 3.5

    assert only(caused, out.Moved).inches == 3.5 and t.state("guard") == "falling_back"


@pytest.mark.parametrize("value", [0, -2, True, "near"])
def test_wh40k3_crossfire_the_distance_is_a_positive_number_of_inches(value):
    t = table(unit("guard"), unit("boyz", "orks"))
    failed_morale(t)

    assert t.refuse(fact("guard", "enemy_in_corridor", value)).field == "value"


@pytest.mark.parametrize("distance", [1, 0.5])
def test_wh40k3_crossfire_an_enemy_an_inch_away_or_less_is_a_distance_too(distance):
    t = table(unit("guard"), unit("boyz", "orks"))
    failed_morale(t)
    t.record(fact("guard", "enemy_in_corridor", distance))

    caused = t.roll("guard", "fall_back", 1, 1)

    assert only(caused, out.TestResolved).detail == f'2" reaches the enemy {distance:g}" away in its corridor'
    assert t.state("guard") == "dispersed"


def test_wh40k3_crossfire_the_distance_is_stated_while_the_fall_back_roll_is_due():
    t = table(unit("guard"), unit("boyz", "orks"))
    failed_morale(t)
    t.roll("guard", "fall_back", 3, 3)

    assert t.refuse(fact("guard", "enemy_in_corridor", 5)).rule == "wh40k3.crossfire"


def test_wh40k3_crossfire_the_distance_is_refused_while_a_regroup_test_is_due():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.go_to(2, "imperium", "movement")

    refusal = t.refuse(fact("guard", "enemy_in_corridor", 5))

    assert (refusal.rule, refusal.message) == (
        "wh40k3.crossfire",
        "state enemy_in_corridor when guard's Fall Back roll is due, before its dice",
    )
    assert t.due() == ["guard:regroup"]


def test_wh40k3_crossfire_after_a_failed_regroup_too():
    t = table(unit("guard"), unit("boyz", "orks"))
    shot_and_fled(t)
    t.go_to(2, "imperium", "movement")
    t.roll("guard", "regroup", 6, 6)
    t.record(fact("guard", "enemy_in_corridor", 3))

    caused = t.roll("guard", "fall_back", 2, 1)

    assert only(caused, out.StateChanged).rule == "wh40k3.crossfire"
    assert t.state("guard") == "dispersed"


def test_wh40k3_crossfire_the_due_list_gives_the_chance_of_escaping_it():
    t = table(unit("guard"), unit("boyz", "orks"))
    failed_morale(t)
    assert due_tests(t.battle)[0].odds is None  # a plain Fall Back move has no pass or fail

    t.record(fact("guard", "enemy_in_corridor", 5))
    [due] = due_tests(t.battle)

    assert (due.odds.pass_ways, due.odds.of) == (6, 36)  # only 2, 3 or 4 stop short of 5 inches
    t.record(fact("guard", "through_difficult_terrain"))
    assert due_tests(t.battle)[0].odds.pass_ways == 30  # halved: a roll of 9 or less stops short
