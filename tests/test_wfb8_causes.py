"""wfb8.panic.friend_destroyed, friend_breaks, fled_through: the other causes of Panic, measured at the
table and recorded as facts naming the friend (rules/wfb8.md, "Standard rules")."""

from support.table import only
from support.wfb8 import battle, charge, combat, fact, fled, regiment, side

from morale.core import outcomes as out


# -- wfb8.panic.friend_destroyed ---------------------------------------------------------------------
def test_wfb8_panic_friend_destroyed_within_6_inches_makes_a_panic_test_due():
    table = battle(regiment("spearmen"), regiment("archers", models=5), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("archers", 5)

    caused = table.record(fact("spearmen", "friend_destroyed_within_6", "archers"))

    due = only(caused, out.TestDue)
    assert (due.test, due.rule) == ("panic", "wfb8.panic.friend_destroyed")


def test_wfb8_panic_friend_destroyed_only_a_friend_destroyed_this_phase():
    table = battle(regiment("spearmen"), regiment("archers", models=5), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    assert table.refuse(fact("spearmen", "friend_destroyed_within_6", "archers")).rule == (
        "wfb8.panic.friend_destroyed"
    )  # still alive
    table.casualties("archers", 5)
    table.go_to(1, "orcs", "close_combat")

    refused = table.refuse(fact("spearmen", "friend_destroyed_within_6", "archers"))

    assert refused.rule == "wfb8.panic.friend_destroyed" and "this phase" in refused.message


def test_wfb8_panic_friend_destroyed_names_another_unit_of_the_same_side():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"), regiment("wolves", "orcs", models=5))
    table.go_to(1, "empire", "shooting")
    table.casualties("wolves", 5)

    for named in ("wolves", "spearmen", "nobody", 3):
        assert table.refuse(fact("spearmen", "friend_destroyed_within_6", named)).field == "value"


# -- wfb8.panic.friend_breaks ------------------------------------------------------------------------
def spearmen_broke_near_the_halberdiers():
    table = battle(regiment("spearmen"), regiment("halberdiers"), regiment("boyz", "orcs", models=25))
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.go_to(1, "orcs", "close_combat")
    table.record(combat(side("empire", "spearmen", wounds=1), side("orcs", "boyz", wounds=3)))
    table.roll("spearmen", "break", 6, 6)
    return table


def test_wfb8_panic_friend_breaks_within_6_inches_makes_a_panic_test_due():
    table = spearmen_broke_near_the_halberdiers()

    caused = table.record(fact("halberdiers", "friend_broke_within_6", "spearmen"))

    assert only(caused, out.TestDue).rule == "wfb8.panic.friend_breaks"


def test_wfb8_panic_friend_breaks_measured_before_it_flees_so_recorded_before_or_after_its_move():
    table = spearmen_broke_near_the_halberdiers()
    table.roll("spearmen", "flee", 6, 6)  # it has fled 12 inches, but was within 6 when it broke

    caused = table.record(fact("halberdiers", "friend_broke_within_6", "spearmen"))

    assert only(caused, out.TestDue).rule == "wfb8.panic.friend_breaks"


def test_wfb8_panic_friend_breaks_only_a_friend_that_broke_from_combat_this_phase():
    table = battle(regiment("spearmen"), regiment("halberdiers"), regiment("boyz", "orcs"))
    fled(table, "spearmen")  # fled from a Panic test, not a Break test

    refused = table.refuse(fact("halberdiers", "friend_broke_within_6", "spearmen"))

    assert refused.rule == "wfb8.panic.friend_breaks"


def test_wfb8_panic_friend_breaks_friends_in_the_same_combat_take_break_tests_not_panic():
    table = battle(regiment("spearmen"), regiment("halberdiers"), regiment("boyz", "orcs", models=25))
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen", "halberdiers"))
    table.go_to(1, "orcs", "close_combat")
    table.record(combat(side("empire", "spearmen", "halberdiers", wounds=1), side("orcs", "boyz", wounds=2)))
    table.roll("spearmen", "break", 6, 6)

    caused = table.record(fact("halberdiers", "friend_broke_within_6", "spearmen"))

    assert only(caused, out.TestNotTaken).rule == "wfb8.panic.exempt"


# -- wfb8.panic.fled_through --------------------------------------------------------------------------
def test_wfb8_panic_fled_through_friends_fleeing_through_the_unit_test_after_the_move():
    table = battle(regiment("spearmen"), regiment("halberdiers"), regiment("boyz", "orcs"))
    fled(table, "spearmen")  # its 7-inch flee move takes it through the halberdiers

    caused = table.record(fact("halberdiers", "friend_fled_through", "spearmen"))

    assert only(caused, out.TestDue).rule == "wfb8.panic.fled_through"


def test_wfb8_panic_fled_through_not_before_the_move_is_made():
    table = battle(regiment("spearmen"), regiment("halberdiers"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)
    table.roll("spearmen", "panic", 6, 6)

    refused = table.refuse(fact("halberdiers", "friend_fled_through", "spearmen"))

    assert refused.rule == "wfb8.panic.fled_through" and "after" in refused.message


def test_wfb8_panic_fled_through_only_by_a_fleeing_friend():
    table = battle(regiment("spearmen"), regiment("halberdiers"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")

    assert table.refuse(fact("halberdiers", "friend_fled_through", "spearmen")).rule == "wfb8.panic.fled_through"
