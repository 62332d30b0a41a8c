"""wfb8.flee.move, wfb8.rally.test and wfb8.hold_your_ground: fleeing, rallying and the Battle
Standard's re-roll (rules/wfb8.md, "Standard rules")."""

import pytest
from support.table import only
from support.wfb8 import battle, charge, combat, fact, first, fled, regiment, reroll, side

from morale.core import outcomes as out
from morale.events.types import DiceRolled, PhaseEnded


def failed_to_rally():
    """The spearmen fled in the orcs' turn 1, fail to rally in their turn 2 and flee again 2 inches."""
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    fled(table, "spearmen")
    table.go_to(2, "empire", "movement")
    table.roll("spearmen", "rally", 6, 6)
    table.roll("spearmen", "flee", 1, 1)
    return table


# -- wfb8.flee.move -----------------------------------------------------------------------------------
def test_wfb8_flee_move_2d6_inches_directly_away():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)
    table.roll("spearmen", "panic", 6, 6)
    assert table.due() == ["spearmen:flee"]

    moved = only(table.roll("spearmen", "flee", 5, 3), out.Moved)

    assert (moved.inches, moved.dice, moved.rule) == (8, (5, 3), "wfb8.flee.move")
    assert table.state("spearmen") == "falling_back"


@pytest.mark.parametrize(
    "unit_type",
    [
        "infantry",
        "monstrous_infantry",
        "cavalry",
        "monstrous_cavalry",
        "war_beasts",
        "chariot",
        "monster",
        "swarm",
        "war_machine",
    ],
)
def test_wfb8_flee_move_every_unit_type_flees_2d6(unit_type):
    table = battle(regiment("spearmen", unit_type=unit_type), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)
    table.roll("spearmen", "panic", 6, 6)

    (due,) = table.battle.due
    assert (due.test, due.dice) == ("flee", 2)
    assert table.refuse(DiceRolled(unit="spearmen", test="flee", dice=(3,))).field == "dice"


def test_wfb8_flee_move_off_the_table_edge_the_unit_is_gone():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    fled(table, "spearmen")

    caused = table.record(fact("spearmen", "fled_off_table"))

    change = only(caused, out.StateChanged)
    assert (change.to_state, change.rule) == ("dispersed", "wfb8.flee.move")
    assert table.refuse(fact("spearmen", "fled_off_table")).field == "unit"  # out of the battle


def test_wfb8_flee_move_only_a_fleeing_unit_flees_off_the_table():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")

    assert table.refuse(fact("spearmen", "fled_off_table")).rule == "wfb8.flee.move"
    assert table.refuse(fact("spearmen", "fled_off_table", False)).field == "value"


def test_wfb8_flee_move_a_fleeing_unit_can_do_nothing_but_flee():
    table = failed_to_rally()

    assert table.refuse(charge("spearmen", "boyz")).rule == "wfb8.flee.move"


# -- wfb8.rally.test ----------------------------------------------------------------------------------
def test_wfb8_rally_test_in_its_own_compulsory_moves_an_ld_test():
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen")

    assert table.go_to(2, "empire", "start_of_turn") and table.due() == []
    caused = table.go_to(2, "empire", "movement")

    due = only(caused, out.TestDue)
    assert (due.test, due.rule, due.target) == ("rally", "wfb8.rally.test", 7)
    assert table.refuse(PhaseEnded(turn=2, side="empire", phase="movement")).rule == "engine.clock.tests_first"


def test_wfb8_rally_test_passed_the_unit_rallies_stands_this_turn_and_is_steady_next():
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen")
    table.go_to(2, "empire", "movement")

    caused = table.roll("spearmen", "rally", 3, 4)

    assert only(caused, out.StateChanged).to_state == "regrouped"
    assert only(caused, out.RestrictionApplied).restriction == "rallied_this_turn"
    assert table.refuse(charge("spearmen", "boyz")).rule == "wfb8.rally.test"  # cannot move this turn
    table.go_to(2, "orcs", "start_of_turn")
    assert table.state("spearmen") == "steady" and table.unit("spearmen").restrictions == []


def test_wfb8_rally_test_failed_the_unit_flees_again():
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen")
    table.go_to(2, "empire", "movement")

    caused = table.roll("spearmen", "rally", 4, 4)

    change = only(caused, out.StateChanged)
    assert (change.from_state, change.to_state, change.rule) == ("falling_back", "falling_back", "wfb8.rally.test")
    assert table.due() == ["spearmen:flee"]


@pytest.mark.parametrize(
    ("left", "dice", "rallied"),
    [
        (5, (1, 1), True),  # 5 of 20: 25% or less, only a double 1
        (5, (1, 2), False),
        (4, (1, 1), True),
        (6, (3, 4), True),  # 6 of 20: 30%, an ordinary Ld test
    ],
)
def test_wfb8_rally_test_with_25_percent_or_less_only_a_double_1(left, dice, rallied):
    table = battle(regiment("spearmen", models=20, ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen", lost=20 - left)
    table.go_to(2, "empire", "movement")

    result = only(table.roll("spearmen", "rally", *dice), out.TestResolved)

    assert result.passed is rallied
    assert result.target == (2 if left * 4 <= 20 else 7)


def test_wfb8_rally_test_not_in_the_turn_it_began_to_flee():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "empire", "start_of_turn")
    table.casualties("spearmen", 5, cause="a spell remaining in play")
    table.roll("spearmen", "panic", 6, 6)
    table.roll("spearmen", "flee", 2, 3)

    caused = table.go_to(1, "empire", "movement")

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.test, not_taken.rule) == ("rally", "wfb8.rally.test")
    assert table.due() == []
    assert only(table.go_to(2, "empire", "movement"), out.TestDue).test == "rally"  # its next turn


def test_wfb8_rally_test_not_in_the_enemy_turn():
    table = failed_to_rally()

    table.go_to(2, "orcs", "movement")

    assert table.due() == []


def test_wfb8_rally_test_the_threshold_is_a_house_rule():
    table = battle(
        regiment("spearmen", models=20), regiment("boyz", "orcs"), house_rules={"rally_threshold_percent": 50}
    )
    fled(table, "spearmen", lost=10)

    assert only(table.go_to(2, "empire", "movement"), out.TestDue).target == 2


# -- wfb8.hold_your_ground ----------------------------------------------------------------------------
def army_with_battle_standard(**extra):
    table = battle(
        regiment("spearmen", ld=7),
        regiment("general_guard", ld=8, rules=("battle_standard_bearer",)),
        regiment("boyz", "orcs", models=25),
        *extra.values(),
    )
    table.go_to(1, "orcs", "shooting")
    return table


def failed_near_the_standard(table) -> list:
    """The spearmen, within 12 inches of their Battle Standard, lose 5 of 20 and fail their Panic test."""
    table.record(fact("spearmen", "near_battle_standard", True))
    table.casualties("spearmen", 5)
    return table.roll("spearmen", "panic", 5, 5)


def test_wfb8_hold_your_ground_a_failed_test_near_the_battle_standard_is_re_rolled():
    table = army_with_battle_standard()

    caused = failed_near_the_standard(table)

    failed = only(caused, out.TestResolved)
    assert not failed.passed and "Hold Your Ground" in failed.detail
    due = only(caused, out.TestDue)
    assert (due.test, due.rule, due.reroll, due.target) == ("panic", "wfb8.hold_your_ground", True, 7)
    assert table.state("spearmen") == "steady"  # not fleeing yet
    table.record(reroll("spearmen", "panic", 3, 3))
    assert table.state("spearmen") == "steady" and table.due() == []


def test_wfb8_hold_your_ground_one_re_roll_only():
    table = army_with_battle_standard()
    failed_near_the_standard(table)

    caused = table.record(reroll("spearmen", "panic", 6, 5))

    assert only(caused, out.StateChanged).to_state == "falling_back"
    assert table.due() == ["spearmen:flee"]


def test_wfb8_hold_your_ground_the_re_roll_is_recorded_as_one_and_only_where_granted_engine_reroll():
    table = army_with_battle_standard()
    table.record(fact("spearmen", "near_battle_standard", True))
    table.casualties("spearmen", 5)
    assert table.refuse(reroll("spearmen", "panic", 3, 3)).rule == "engine.reroll"  # nothing failed yet
    table.roll("spearmen", "panic", 5, 5)

    refused = table.refuse(DiceRolled(unit="spearmen", test="panic", dice=(3, 3)))

    assert refused.field == "reroll" and "wfb8.hold_your_ground" in refused.message


def test_wfb8_hold_your_ground_a_re_roll_is_not_a_second_panic_test():
    table = army_with_battle_standard()
    failed_near_the_standard(table)

    caused = table.record(reroll("spearmen", "panic", 2, 2))

    assert not any(isinstance(o, out.TestNotTaken) for o in caused)
    assert table.unit("spearmen").phase_marks == {"panic_test_taken"}


def test_wfb8_hold_your_ground_not_beyond_12_inches():
    table = army_with_battle_standard()
    table.record(fact("spearmen", "near_battle_standard", True))
    table.record(fact("spearmen", "near_battle_standard", False))  # it has moved away
    table.casualties("spearmen", 5)

    caused = table.roll("spearmen", "panic", 5, 5)

    assert only(caused, out.StateChanged).to_state == "falling_back"


def test_wfb8_hold_your_ground_not_when_the_bearer_is_fleeing():
    table = army_with_battle_standard()
    table.record(fact("spearmen", "near_battle_standard", True))
    table.casualties("general_guard", 5)
    table.roll("general_guard", "panic", 6, 6)  # the bearer's own unit re-rolls...
    table.record(reroll("general_guard", "panic", 6, 5))  # ...and flees anyway
    table.roll("general_guard", "flee", 3, 3)
    table.casualties("spearmen", 5)

    caused = table.roll("spearmen", "panic", 5, 5)

    assert only(caused, out.StateChanged).to_state == "falling_back"


def test_wfb8_hold_your_ground_the_bearers_own_unit_is_within_12_inches_of_it():
    table = army_with_battle_standard()
    table.casualties("general_guard", 5)

    assert only(table.roll("general_guard", "panic", 6, 6), out.TestDue).reroll


def test_wfb8_hold_your_ground_break_and_rally_tests_are_ld_tests_too():
    table = battle(
        regiment("spearmen", ld=7),
        regiment("general_guard", ld=8, rules=("battle_standard_bearer",)),
        regiment("boyz", "orcs", models=25),
    )
    table.record(fact("spearmen", "near_battle_standard", True))
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.go_to(1, "orcs", "close_combat")
    table.record(combat(side("empire", "spearmen", wounds=1), side("orcs", "boyz", wounds=3)))

    assert only(table.roll("spearmen", "break", 6, 6), out.TestDue).reroll
    table.record(reroll("spearmen", "break", 6, 6))
    table.roll("spearmen", "flee", 2, 2)
    table.go_to(2, "empire", "movement")
    assert only(table.roll("spearmen", "rally", 6, 6), out.TestDue).reroll


def test_wfb8_hold_your_ground_the_order_chosen_holds_through_the_re_roll():
    table = army_with_battle_standard(halberdiers=regiment("halberdiers"), archers=regiment("archers", models=5))
    table.record(fact("spearmen", "near_battle_standard", True))
    table.casualties("archers", 5)
    table.record(fact("spearmen", "friend_destroyed_within_6", "archers"))
    table.record(fact("halberdiers", "friend_destroyed_within_6", "archers"))
    table.record(first("spearmen"))
    table.roll("spearmen", "panic", 6, 6)

    refused = table.refuse(DiceRolled(unit="halberdiers", test="panic", dice=(2, 2)))

    assert refused.rule == "wfb8.panic.order"
    table.record(reroll("spearmen", "panic", 2, 2))
    table.roll("halberdiers", "panic", 2, 2)


def test_wfb8_hold_your_ground_one_battle_standard_bearer_a_side():
    table = army_with_battle_standard()

    refused = table.refuse(regiment("captains", rules=("battle_standard_bearer",)))

    assert refused.rule == "wfb8.hold_your_ground"


def test_wfb8_hold_your_ground_distance_is_true_or_false():
    table = army_with_battle_standard()

    assert table.refuse(fact("spearmen", "near_battle_standard", "yes")).field == "value"


def test_wfb8_panic_order_a_rally_test_due_beside_one_panic_test_leaves_nothing_to_order():
    """spearmen flee and must rally in the empire's movement; the halberdiers panic there as a friend
    flees through them. Only Panic tests wait for the player's order, and only one is due."""
    table = battle(regiment("spearmen", ld=7), regiment("halberdiers", ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen")
    table.go_to(2, "empire", "movement")
    table.record(fact("halberdiers", "friend_fled_through", "spearmen"))
    assert table.due() == ["spearmen:rally", "halberdiers:panic"]
    assert only(table.roll("halberdiers", "panic", 2, 2), out.TestResolved).passed
