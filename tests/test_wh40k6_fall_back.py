"""wh40k6.fall_back.*: Falling Back (rules/wh40k6.md, "Falling Back")."""

import pytest
from support.table import Table, only, unit

from morale.core import outcomes as out
from morale.core.rulesets.wh40k import WH40K6
from morale.events.types import (
    CasualtiesSuffered,
    ChargeDeclared,
    CombatResolved,
    CombatSide,
    DiceRolled,
    PlayerDecided,
    TableFactRecorded,
)
from morale.projections.board import board as status_board


def fled_from_shooting(table: Table, unit_id: str = "marines", lost: int = 3, fall_back_dice=(3, 3)) -> list:
    """In the orks' Shooting phase of turn 1 `unit_id` loses `lost` models, fails its Morale test
    and makes its Fall Back move. Returns what the failed test caused."""
    table.go_to(1, "orks", "shooting")
    table.casualties(unit_id, lost)
    table.end_phase()
    caused = table.roll(unit_id, "morale", 6, 6)
    if fall_back_dice:
        table.roll(unit_id, "fall_back", *fall_back_dice)
    return caused


def lost_combat_and_fled(table: Table, loser: str = "guard", winner: str = "boyz") -> None:
    """The imperium `loser` loses a combat with `winner` in the orks' turn 1 and fails its Morale test."""
    table.go_to(1, "orks", "assault")
    table.record(
        CombatResolved(
            sides=[
                CombatSide(side="imperium", units=(loser,), wounds_inflicted=0),
                CombatSide(side="orks", units=(winner,), wounds_inflicted=2),
            ]
        )
    )
    table.roll(loser, "morale", 6, 6)


def fact(unit_id: str, name: str) -> TableFactRecorded:
    return TableFactRecorded(unit=unit_id, fact=name)


# -- wh40k6.fall_back.start ---------------------------------------------------------------------
def test_wh40k6_fall_back_start_failed_test_falls_back_at_once():
    table = Table(unit("marines"), unit("boyz", "orks"))

    caused = fled_from_shooting(table, fall_back_dice=None)

    change = only(caused, out.StateChanged)
    assert (change.from_state, change.to_state, change.rule) == ("steady", "falling_back", "wh40k6.fall_back.start")
    assert table.state("marines") == "falling_back"
    assert table.due() == ["marines:fall_back"]


def test_wh40k6_fall_back_start_falls_back_again_in_each_own_movement_phase():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)

    for turn in (2, 3):
        table.go_to(turn, "imperium", "movement")
        caused = table.record(PlayerDecided(unit="marines", decision="decline_regroup"))

        change = only(caused, out.StateChanged)
        assert (change.to_state, change.rule) == ("falling_back", "wh40k6.fall_back.start")
        assert table.due() == ["marines:fall_back"]
        moved = only(table.roll("marines", "fall_back", 2, 5), out.Moved)
        assert moved.inches == 7


def test_wh40k6_fall_back_start_not_in_the_enemy_movement_phase():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)

    table.go_to(2, "imperium", "movement")
    table.record(PlayerDecided(unit="marines", decision="decline_regroup"))
    table.roll("marines", "fall_back", 3, 3)
    caused = table.go_to(2, "orks", "movement")

    assert table.due() == []
    assert not any(isinstance(o, out.TestDue) for o in caused)
    assert table.state("marines") == "falling_back"


def test_wh40k6_fall_back_start_can_do_nothing_else_until_it_regroups():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)

    doing = {text for text, _ in WH40K6.implied_restrictions(table.unit("marines"))}

    assert "cannot declare a charge" in doing
    assert WH40K6.implied_restrictions(table.unit("boyz")) == []


# -- wh40k6.fall_back.distance ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("unit_type", "dice"),
    [
        ("infantry", 2),
        ("monstrous_creature", 2),
        ("artillery", 2),
        ("jump", 3),
        ("jet_bike", 3),
        ("bike", 3),
        ("cavalry", 3),
        ("beast", 3),
    ],
)
def test_wh40k6_fall_back_distance_dice_by_unit_type(unit_type, dice):
    table = Table(unit("riders", unit_type=unit_type), unit("boyz", "orks"))

    caused = fled_from_shooting(table, "riders", fall_back_dice=None)

    assert only(caused, out.TestDue).dice == dice
    moved = only(table.roll("riders", "fall_back", *[4] * dice), out.Moved)
    assert (moved.inches, moved.rule) == (4 * dice, "wh40k6.fall_back.distance")


def test_wh40k6_fall_back_distance_wrong_number_of_dice_refused():
    table = Table(unit("bikers", unit_type="bike"), unit("boyz", "orks"))
    fled_from_shooting(table, "bikers", fall_back_dice=None)

    refusal = table.refuse(DiceRolled(unit="bikers", test="fall_back", dice=(3, 3)))

    assert refusal.field == "dice"
    assert "3 dice" in refusal.message


def test_wh40k6_fall_back_distance_dangerous_terrain_losses_count_in_the_movement_phase():
    table = Table(unit("marines", models=10), unit("boyz", "orks"))
    fled_from_shooting(table)  # 7 left
    table.go_to(2, "imperium", "movement")
    table.record(PlayerDecided(unit="marines", decision="decline_regroup"))
    table.roll("marines", "fall_back", 5, 5)

    table.casualties("marines", 2, cause="dangerous terrain")  # 2 of 7
    caused = table.end_phase()

    assert only(caused, out.TestResolved).trigger == "wh40k6.trigger.casualties"


# -- wh40k6.fall_back.edge ----------------------------------------------------------------------
def test_wh40k6_fall_back_edge_whole_unit_removed():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)

    caused = table.record(fact("marines", "reached_table_edge"))

    change = only(caused, out.StateChanged)
    assert (change.to_state, change.rule) == ("dispersed", "wh40k6.fall_back.edge")
    assert table.state("marines") == "dispersed"
    assert table.refuse(CasualtiesSuffered(unit="marines", count=1)).field == "unit"


def test_wh40k6_fall_back_edge_during_the_move_drops_the_roll_still_due():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table, fall_back_dice=None)

    caused = table.record(fact("marines", "reached_table_edge"))

    assert only(caused, out.TestNotTaken).test == "fall_back"
    assert table.due() == []
    assert table.state("marines") == "dispersed"


def test_wh40k6_fall_back_edge_refused_for_a_unit_not_falling_back():
    table = Table(unit("marines"), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")

    refusal = table.refuse(fact("marines", "reached_table_edge"))

    assert refusal.rule == "wh40k6.fall_back.edge"
    assert table.state("marines") == "steady"


def test_wh40k6_fall_back_edge_refused_for_a_regrouped_unit():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")
    table.roll("marines", "regroup", 2, 2)

    refusal = table.refuse(fact("marines", "reached_table_edge"))

    assert refusal.rule == "wh40k6.fall_back.edge"


# -- wh40k6.fall_back.trapped -------------------------------------------------------------------
def test_wh40k6_fall_back_trapped_unit_is_destroyed():
    table = Table(unit("boyz", "orks"), unit("marines"))
    table.go_to(1, "imperium", "shooting")
    table.casualties("boyz", 3)
    table.end_phase()
    table.roll("boyz", "morale", 6, 6)
    table.roll("boyz", "fall_back", 4, 4)

    caused = table.record(fact("boyz", "trapped"))

    change = only(caused, out.StateChanged)
    assert (change.from_state, change.to_state, change.rule) == (
        "falling_back",
        "dispersed",
        "wh40k6.fall_back.trapped",
    )


def test_wh40k6_fall_back_trapped_refused_for_a_unit_not_falling_back():
    table = Table(unit("marines"), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")

    refusal = table.refuse(fact("marines", "trapped"))

    assert refusal.rule == "wh40k6.fall_back.trapped"


# -- wh40k6.fall_back.from_combat ---------------------------------------------------------------
def test_wh40k6_fall_back_from_combat_after_escaping_the_sweeping_advance():
    table = Table(unit("guard", initiative=3), unit("boyz", "orks", initiative=2))
    lost_combat_and_fled(table)

    caused = table.roll("guard", "sweeping_advance", 5, 1)  # 5 + I3 against 1 + I2

    due = only(caused, out.TestDue)
    assert (due.test, due.rule) == ("fall_back", "wh40k6.fall_back.from_combat")
    moved = only(table.roll("guard", "fall_back", 6, 4), out.Moved)
    assert (moved.inches, moved.rule) == (10, "wh40k6.fall_back.from_combat")


def test_wh40k6_fall_back_from_combat_when_the_winner_does_not_sweep():
    table = Table(unit("guard"), unit("boyz", "orks"))
    lost_combat_and_fled(table)

    caused = table.record(PlayerDecided(unit="guard", decision="decline_sweeping_advance"))

    assert only(caused, out.TestDue).rule == "wh40k6.fall_back.from_combat"
    assert table.due() == ["guard:fall_back"]
    assert table.state("guard") == "falling_back"


def test_wh40k6_fall_back_from_combat_not_for_casualty_tests():
    table = Table(unit("marines"), unit("boyz", "orks"))

    caused = fled_from_shooting(table, fall_back_dice=None)

    assert only(caused, out.TestDue).rule == "wh40k6.fall_back.distance"


# -- wh40k6.fall_back.shooting ------------------------------------------------------------------
def test_wh40k6_fall_back_shooting_passes_pinning_tests_automatically():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")

    caused = table.record(fact("marines", "hit_by_pinning_weapon"))

    result = only(caused, out.TestResolved)
    assert (result.rule, result.passed, result.automatic) == ("wh40k6.fall_back.shooting", True, True)
    assert table.due() == []
    assert not table.unit("marines").restricted("gone_to_ground")


def test_wh40k6_fall_back_shooting_snap_shots_only_on_the_status_board():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)

    board = dict(WH40K6.implied_restrictions(table.unit("marines")))

    assert board["Snap Shots only; cannot Go to Ground; passes Pinning tests"] == "wh40k6.fall_back.shooting"


def test_wh40k6_fall_back_shooting_a_unit_removed_while_falling_back_is_shown_with_no_snap_shots():
    """The board still lists a unit removed at its table edge, but what Falling Back forbids
    (wh40k6.fall_back.shooting) ends with its stay: its row shows no restriction."""
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.record(fact("marines", "reached_table_edge"))

    (row,) = [r for r in status_board(table.battle).units if r.unit == "marines"]

    assert (row.state, row.restrictions) == ("dispersed", [])


# -- wh40k6.fall_back.no_charge -----------------------------------------------------------------
def test_wh40k6_fall_back_no_charge_refused():
    table = Table(unit("boyz", "orks"), unit("marines"))
    table.go_to(1, "imperium", "shooting")
    table.casualties("boyz", 3)
    table.end_phase()
    table.roll("boyz", "morale", 6, 6)
    table.roll("boyz", "fall_back", 4, 4)
    table.go_to(1, "orks", "movement")
    table.record(PlayerDecided(unit="boyz", decision="decline_regroup"))
    table.roll("boyz", "fall_back", 2, 1)
    table.go_to(1, "orks", "assault")

    refusal = table.refuse(ChargeDeclared(charger="boyz", targets=("marines",), in_range=("marines",)))

    assert refusal.rule == "wh40k6.fall_back.no_charge"
    assert dict(WH40K6.implied_restrictions(table.unit("boyz")))["cannot declare a charge"] == (
        "wh40k6.fall_back.no_charge"
    )


# -- wh40k6.fall_back.auto_fail -----------------------------------------------------------------
def test_wh40k6_fall_back_auto_fail_morale_test_without_a_roll():
    table = Table(unit("marines", models=10), unit("boyz", "orks"))
    fled_from_shooting(table)  # 7 left
    table.go_to(2, "imperium", "movement")
    table.record(PlayerDecided(unit="marines", decision="decline_regroup"))
    table.roll("marines", "fall_back", 5, 5)
    table.casualties("marines", 2, cause="dangerous terrain")

    caused = table.end_phase()

    result = only(caused, out.TestResolved)
    assert (result.rule, result.passed, result.automatic, result.dice) == (
        "wh40k6.fall_back.auto_fail",
        False,
        True,
        (),
    )
    assert only(caused, out.StateChanged).rule == "wh40k6.fall_back.auto_fail"
    assert table.state("marines") == "falling_back"
    assert table.due() == ["marines:fall_back"]  # it Falls Back again


def test_wh40k6_fall_back_auto_fail_except_regroup_tests():
    table = Table(unit("marines", models=10), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")

    result = only(table.roll("marines", "regroup", 4, 4), out.TestResolved)

    assert (result.passed, result.automatic, result.target) == (True, False, 8)
    assert table.state("marines") == "regrouped"


# -- a Falling Back unit caught by a charge: it may be fought, and loses automatically ---------
def caught_while_falling_back(table: Table) -> None:
    """The marines fled in the orks' Shooting phase; the boyz charge them in the Assault phase and
    the marines fail their Regroup test: they stay until the phase ends (wh40k6.assaulted.fail)."""
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")
    table.record(ChargeDeclared(charger="boyz", targets=("marines",), in_range=("marines",)))
    table.roll("marines", "regroup", 6, 5)


def combat(marines_wounds: int, boyz_wounds: int) -> CombatResolved:
    return CombatResolved(
        sides=[
            CombatSide(side="imperium", units=("marines",), wounds_inflicted=marines_wounds),
            CombatSide(side="orks", units=("boyz",), wounds_inflicted=boyz_wounds),
        ]
    )


def test_wh40k6_fall_back_auto_fail_a_caught_unit_that_loses_the_combat_fails_its_morale_test():
    table = Table(unit("marines", initiative=4), unit("boyz", "orks", initiative=2))
    caught_while_falling_back(table)

    caused = table.record(combat(0, 2))

    failed = only(caused, out.TestResolved)
    assert (failed.test, failed.passed, failed.automatic, failed.rule) == (
        "morale",
        False,
        True,
        "wh40k6.fall_back.auto_fail",
    )
    assert table.state("marines") == "falling_back"
    assert table.due("marines") == ["marines:sweeping_advance"]  # the winners may still catch it at once


def test_wh40k6_assaulted_fail_a_caught_unit_that_escapes_is_still_removed_when_the_phase_ends():
    table = Table(unit("marines", initiative=4), unit("boyz", "orks", initiative=2))
    caught_while_falling_back(table)
    table.record(combat(0, 2))
    table.roll("marines", "sweeping_advance", 6, 1)  # 6+I4 against 1+I2: escapes, Falls Back from the combat
    table.roll("marines", "fall_back", 3, 3)

    table.end_phase()

    assert table.state("marines") == "dispersed"


def test_wh40k6_assaulted_fail_a_caught_unit_that_wins_the_combat_takes_no_test():
    table = Table(unit("marines"), unit("boyz", "orks"))
    caught_while_falling_back(table)

    caused = table.record(combat(3, 1))

    assert [o for o in caused if isinstance(o, out.TestDue | out.TestResolved) and o.unit == "marines"] == []
    assert table.due("boyz") == ["boyz:morale"]


def test_wh40k6_fall_back_start_a_falling_back_unit_not_caught_by_a_charge_is_in_no_combat():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(1, "orks", "assault")

    refusal = table.refuse(combat(0, 2))

    assert refusal.rule == "wh40k6.fall_back.start"
    assert table.state("marines") == "falling_back" and table.due() == []


# -- charges belong to the charger's own Assault phase -------------------------------------------
@pytest.mark.parametrize(
    ("charger", "target", "turn_of"), [("marines", "boyz", "orks"), ("boyz", "marines", "imperium")]
)
def test_wh40k6_a_unit_charges_only_in_its_own_sides_assault_phase(charger, target, turn_of):
    """Either side, whatever its name: a charge in the enemy's Assault phase is refused (both orders
    of the two sides' names, so no comparison of the names can pass for the right check)."""
    table = Table(unit("marines"), unit("boyz", "orks"))
    table.go_to(1, turn_of, "assault")

    refusal = table.refuse(ChargeDeclared(charger=charger, targets=(target,), in_range=(target,)))

    assert refusal.field == "charger" and "own side's Assault phase" in refusal.message


def test_wh40k6_fall_back_start_a_unit_that_regrouped_and_fell_back_again_this_turn_is_in_no_combat():
    """Regrouped in its Movement phase, then Falling Back again from that phase's losses: it is
    still to be steady again at the turn's end (a change put off that no longer applies), but that
    is no charge that caught it (`removed_after_assault`), so it fights in no combat."""
    table = Table(unit("marines", models=10), unit("boyz", "orks"))
    fled_from_shooting(table)
    table.go_to(2, "imperium", "movement")
    table.roll("marines", "regroup", 3, 3)
    table.casualties("marines", 2, cause="dangerous_terrain")  # 2 of the 7 it began the phase with
    table.end_phase()
    table.roll("marines", "morale", 6, 6)
    table.roll("marines", "fall_back", 3, 3)
    assert table.state("marines") == "falling_back" and table.unit("marines").pending
    table.go_to(2, "imperium", "assault")

    refusal = table.refuse(combat(0, 2))

    assert refusal.rule == "wh40k6.fall_back.start"
