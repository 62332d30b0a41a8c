"""wfb8.break.test and wfb8.multi.*: Break tests and multiple combats (rules/wfb8.md, "Multiple combats"
and "Standard rules")."""

import pytest
from support.table import Table, only, unit
from support.wfb8 import battle, charge, combat, knights_wiped_out_the_wolves, regiment, side, two_charges

from morale.core import outcomes as out
from morale.events.types import CombatResolved, CombatSide


def boyz_charge(*targets: str, **regiments) -> Table:
    """The boyz charge the empire's `targets` in the orcs' turn 1; the close combat phase has begun."""
    table = battle(
        regiment("spearmen", ld=7),
        regiment("halberdiers", ld=7),
        regiment("boyz", "orcs", models=25),
        *regiments.values(),
    )
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", *targets))
    table.go_to(1, "orcs", "close_combat")
    return table


def lost_by(margin: int, **detail) -> CombatResolved:
    return combat(side("empire", "spearmen", wounds=1, **detail), side("orcs", "boyz", wounds=1 + margin))


# -- wfb8.break.test ---------------------------------------------------------------------------------
def test_wfb8_break_test_the_loser_tests_on_ld_minus_the_difference():
    table = boyz_charge("spearmen")

    caused = table.record(lost_by(2))

    due = only(caused, out.TestDue)
    assert (due.unit, due.test, due.rule, due.target) == ("spearmen", "break", "wfb8.break.test", 5)
    assert [(m.value, m.reason) for m in due.modifiers] == [(-2, "combat lost by 2")]
    assert table.due() == ["spearmen:break"]  # the winners take none


def test_wfb8_break_test_passed_the_unit_fights_on():
    table = boyz_charge("spearmen")
    table.record(lost_by(2))

    caused = table.roll("spearmen", "break", 2, 3)

    assert only(caused, out.TestResolved).passed and table.state("spearmen") == "steady"
    assert table.unit("spearmen").notes["foes"] == ("boyz",)


def test_wfb8_break_test_failed_the_unit_flees_and_its_foes_are_free():
    table = boyz_charge("spearmen")
    table.record(lost_by(2))

    caused = table.roll("spearmen", "break", 3, 3)

    change = only(caused, out.StateChanged)
    assert (change.to_state, change.rule) == ("falling_back", "wfb8.break.test")
    freed = only(caused, out.EngagementChanged)
    assert (freed.unit, freed.engaged, freed.rule) == ("boyz", False, "wfb8.multi.no_more_foes")
    assert table.due() == ["spearmen:flee"]


def test_wfb8_break_test_insane_courage_a_double_1_always_passes():
    table = boyz_charge("spearmen")
    table.record(lost_by(6))  # Ld 7 - 6: only a 1 would do

    result = only(table.roll("spearmen", "break", 1, 1), out.TestResolved)

    assert result.passed and result.target == 1 and "Insane Courage" in result.detail


def test_wfb8_break_test_steadfast_more_ranks_than_the_enemy_tests_on_unmodified_ld():
    table = boyz_charge("spearmen")

    caused = table.record(
        combat(
            side("empire", "spearmen", wounds=1, ranks={"spearmen": 4}),
            side("orcs", "boyz", wounds=5, ranks={"boyz": 3}),
        )
    )

    due = only(caused, out.TestDue)
    assert due.target == 7
    [modifier] = due.modifiers
    assert modifier.ignored_by == "wfb8.break.test" and "Steadfast: 4 ranks to 3" in modifier.reason


@pytest.mark.parametrize(("own", "enemy"), [(3, 3), (2, 3), (0, 0)])
def test_wfb8_break_test_not_steadfast_without_more_ranks(own, enemy):
    table = boyz_charge("spearmen")

    caused = table.record(
        combat(
            side("empire", "spearmen", wounds=1, ranks={"spearmen": own}),
            side("orcs", "boyz", wounds=3, ranks={"boyz": enemy}),
        )
    )

    assert only(caused, out.TestDue).target == 5


def test_wfb8_break_test_steadfast_against_an_enemy_whose_ranks_are_not_reported():
    """An enemy unit the combat report gives no ranks for has none: one rank of ours is more."""
    table = boyz_charge("spearmen")

    caused = table.record(
        combat(side("empire", "spearmen", wounds=1, ranks={"spearmen": 1}), side("orcs", "boyz", wounds=3))
    )

    assert only(caused, out.TestDue).target == 7  # Steadfast: the -2 is ignored


@pytest.mark.parametrize(("own", "target"), [(0, 5), (1, 7)])
def test_wfb8_break_test_steadfast_when_every_enemy_unit_has_left_the_combat(own, target):
    """The boyz won the round but lost base contact: no enemy unit still counts for Steadfast, so
    any rank at all is more than the enemy's, and none is not."""
    table = boyz_charge("spearmen")

    caused = table.record(
        combat(
            side("empire", "spearmen", wounds=1, ranks={"spearmen": own}),
            side("orcs", "boyz", wounds=3, ranks={"boyz": 4}, left_combat=("boyz",)),
        )
    )

    assert only(caused, out.TestDue).target == target


def test_wfb8_break_test_stubborn_units_are_always_steadfast():
    table = boyz_charge("guard", guard=regiment("guard", ld=8, rules=("stubborn",)))

    caused = table.record(
        combat(side("empire", "guard", wounds=0, ranks={"guard": 1}), side("orcs", "boyz", wounds=4, ranks={"boyz": 4}))
    )

    due = only(caused, out.TestDue)
    assert due.target == 8 and "Stubborn" in due.modifiers[0].reason


def test_wfb8_break_test_unbreakable_units_never_test_and_never_flee():
    table = boyz_charge("slayers", slayers=regiment("slayers", ld=10, rules=("unbreakable",)))

    caused = table.record(combat(side("empire", "slayers", wounds=0), side("orcs", "boyz", wounds=6)))

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.test, not_taken.rule) == ("break", "wfb8.break.test")
    assert table.due() == [] and table.state("slayers") == "steady"
    assert only(table.casualties("slayers", 9, cause="magic"), out.TestNotTaken).rule in {
        "wfb8.panic.exempt",  # in combat still
        "wfb8.break.test",
    }


def test_wfb8_break_test_unbreakable_units_take_no_panic_tests_either():
    table = battle(regiment("slayers", ld=10, rules=("unbreakable",)), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")

    caused = table.casualties("slayers", 10)

    assert only(caused, out.TestNotTaken).rule == "wfb8.break.test" and table.due() == []


def test_wfb8_break_test_a_draw_sends_nobody_testing():
    table = boyz_charge("spearmen")

    assert not any(isinstance(o, out.TestDue) for o in table.record(lost_by(0)))


def test_wfb8_break_test_combats_are_fought_in_the_close_combat_phase_by_units_not_fleeing():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    assert table.refuse(lost_by(1)).field == "type"
    table.casualties("spearmen", 5)
    table.roll("spearmen", "panic", 6, 6)
    table.roll("spearmen", "flee", 2, 2)
    table.go_to(1, "orcs", "close_combat")
    assert table.refuse(lost_by(1)).rule == "wfb8.flee.move"


def test_wfb8_break_test_combat_detail_is_checked_and_only_for_rulesets_that_read_it():
    table = boyz_charge("spearmen")
    stray = combat(side("empire", "spearmen", wounds=1, ranks={"boyz": 3}), side("orcs", "boyz", wounds=2))
    assert table.refuse(stray).field == "ranks"
    wh40k6 = Table(unit("guard"), unit("boyz", "orks"))
    wh40k6.go_to(1, "orks", "assault")
    report = CombatResolved(
        sides=(
            CombatSide(side="imperium", units=("guard",), wounds_inflicted=1, ranks={"guard": 2}),
            CombatSide(side="orks", units=("boyz",), wounds_inflicted=2),
        )
    )
    assert wh40k6.refuse(report).field == "ranks"


# -- wfb8.multi.no_more_foes ---------------------------------------------------------------------------
def test_wfb8_multi_no_more_foes_counts_as_having_won_and_takes_no_break_test():
    table = knights_wiped_out_the_wolves()

    caused = table.record(
        combat(
            side("empire", "spearmen", "knights", wounds=5, left_combat=("knights",)), side("orcs", "boyz", wounds=8)
        )
    )

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.unit, not_taken.test, not_taken.rule) == ("knights", "break", "wfb8.multi.no_more_foes")
    assert table.due() == ["spearmen:break"]


def test_wfb8_multi_no_more_foes_holds_when_the_report_does_not_say_the_unit_left():
    """The engine saw the last wolf rider die: a combat report that lists the knights on their side but
    not in left_combat cannot give them the boyz as foes again, nor a Break test."""
    table = knights_wiped_out_the_wolves()

    caused = table.record(combat(side("empire", "spearmen", "knights", wounds=5), side("orcs", "boyz", wounds=8)))

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.unit, not_taken.test, not_taken.rule) == ("knights", "break", "wfb8.multi.no_more_foes")
    assert table.due() == ["spearmen:break"]
    assert "foes" not in table.unit("knights").notes
    assert table.unit("boyz").notes["foes"] == ("spearmen",)


def test_wfb8_multi_no_more_foes_the_freed_unit_adds_its_wounds_but_not_its_bonuses():
    """Out of the combat as a unit that left it (`wfb8.multi.left_combat`): the knights' standard no longer
    counts though the report gives it, so the empire loses 5 + 1 to 7 and not 5 + 4 to 7."""
    table = knights_wiped_out_the_wolves()

    caused = table.record(
        combat(
            side("empire", "spearmen", "knights", wounds=5, unit_bonus={"spearmen": 1, "knights": 3}),
            side("orcs", "boyz", wounds=7),
        )
    )

    due = only(caused, out.TestDue)
    assert (due.unit, due.modifiers[0].value) == ("spearmen", -1)


def test_wfb8_multi_no_more_foes_lasts_until_the_close_combat_phase_ends():
    """Freed in one Close Combat phase, the knights may be brought into a fight by a later report."""
    table = knights_wiped_out_the_wolves()
    table.record(combat(side("empire", "spearmen", "knights", wounds=8), side("orcs", "boyz", wounds=5)))
    table.roll("boyz", "break", 1, 2)  # the boyz hold
    table.go_to(2, "empire", "close_combat")

    caused = table.record(combat(side("empire", "spearmen", "knights", wounds=1), side("orcs", "boyz", wounds=4)))

    assert sorted(table.due()) == ["knights:break", "spearmen:break"]
    assert table.unit("knights").notes["foes"] == ("boyz",)
    assert not any(isinstance(o, out.TestNotTaken) for o in caused)


def test_wfb8_multi_a_report_cannot_move_a_unit_into_another_combat():
    """Two combats: the spearmen fight the boyz, the knights the wolves. A report of spearmen against the
    wolves would hand the spearmen new foes the engine never saw them meet: refused, nothing changed."""
    table = two_charges()

    refused = table.refuse(combat(side("empire", "spearmen", wounds=1), side("orcs", "wolves", wounds=3)))

    assert refused.field == "units"
    assert "spearmen is in close combat with boyz, none of whom is in this combat" in str(refused)


def test_wfb8_multi_a_report_cannot_leave_out_a_unit_still_in_the_combat():
    """The boyz charged the spearmen and the halberdiers: a report of the spearmen alone against the
    boyz would leave the halberdiers fighting boyz who, by the report, no longer fight them."""
    table = boyz_charge("spearmen", "halberdiers")

    refused = table.refuse(combat(side("empire", "spearmen", wounds=1), side("orcs", "boyz", wounds=3)))

    assert refused.field == "units"
    assert "halberdiers is in close combat with boyz but is not in this combat report" in str(refused)


def test_wfb8_multi_no_more_foes_the_unit_acts_normally_out_of_the_combat():
    table = knights_wiped_out_the_wolves()
    table.record(
        combat(
            side("empire", "spearmen", "knights", wounds=5, left_combat=("knights",)), side("orcs", "boyz", wounds=8)
        )
    )
    table.roll("spearmen", "break", 1, 2)

    assert "foes" not in table.unit("knights").notes
    assert only(table.casualties("knights", 2, cause="a miscast"), out.TestDue).test == "panic"


def test_wfb8_multi_no_more_foes_when_every_foe_has_fled():
    table = boyz_charge("spearmen", "halberdiers")
    table.record(combat(side("empire", "spearmen", "halberdiers", wounds=6), side("orcs", "boyz", wounds=1)))

    caused = table.roll("boyz", "break", 6, 5)

    freed = [o for o in caused if isinstance(o, out.EngagementChanged)]
    assert {(o.unit, o.engaged, o.rule) for o in freed} == {
        ("spearmen", False, "wfb8.multi.no_more_foes"),
        ("halberdiers", False, "wfb8.multi.no_more_foes"),
    }


def test_wfb8_multi_no_more_foes_a_winner_still_fighting_another_foe_stays_in():
    table = boyz_charge("spearmen", wolves=regiment("wolves", "orcs", models=5, unit_type="cavalry"))
    table.record(combat(side("empire", "spearmen", wounds=3), side("orcs", "boyz", "wolves", wounds=1)))
    table.roll("wolves", "break", 1, 2)  # Ld 7 - 2: the wolves hold

    caused = table.roll("boyz", "break", 6, 5)  # the boyz break

    assert not any(isinstance(o, out.EngagementChanged) for o in caused)
    assert table.unit("spearmen").notes["foes"] == ("wolves",)


# -- wfb8.multi.left_combat ----------------------------------------------------------------------------
def test_wfb8_multi_left_combat_its_wounds_count_but_not_its_other_bonuses():
    table = knights_wiped_out_the_wolves()

    caused = table.record(
        combat(
            # 4 wounds, the knights' among them; the spearmen's ranks +1; the knights' standard +3 is lost
            side(
                "empire",
                "spearmen",
                "knights",
                wounds=4,
                unit_bonus={"spearmen": 1, "knights": 3},
                left_combat=("knights",),
            ),
            side("orcs", "boyz", wounds=3, bonus=3),
        )
    )

    due = only(caused, out.TestDue)  # 5 against 6: the empire loses by 1 (with the knights' bonus: 8 to 6)
    assert (due.unit, due.modifiers[0].value) == ("spearmen", -1)
    left = only(caused, out.EngagementChanged)
    assert (left.unit, left.engaged, left.rule) == ("knights", False, "wfb8.multi.left_combat")


def test_wfb8_multi_left_combat_does_not_count_when_deciding_whether_enemies_are_steadfast():
    table = knights_wiped_out_the_wolves()

    caused = table.record(
        combat(
            side(
                "empire", "spearmen", "knights", wounds=6, ranks={"spearmen": 2, "knights": 4}, left_combat=("knights",)
            ),
            side("orcs", "boyz", wounds=2, ranks={"boyz": 3}),
        )
    )

    due = only(caused, out.TestDue)  # the boyz: 3 ranks to the spearmen's 2, the knights' 4 do not count
    assert due.unit == "boyz" and due.target == 7 and "Steadfast: 3 ranks to 2" in due.modifiers[0].reason


def test_wfb8_multi_left_combat_names_units_of_that_side():
    table = knights_wiped_out_the_wolves()

    stray = combat(side("empire", "spearmen", wounds=1, left_combat=("knights",)), side("orcs", "boyz", wounds=2))

    assert table.refuse(stray).field == "left_combat"


@pytest.mark.parametrize("name", ["ranks", "unit_bonus", "left_combat"])
def test_wfb8_combat_detail_names_only_the_sides_own_units(name):
    """Ranks, a unit's bonus and who left are reported per unit of the side, never of the enemy's."""
    table = boyz_charge("spearmen")
    detail = {"left_combat": ("boyz",)} if name == "left_combat" else {name: {"boyz": 1}}
    refused = table.refuse(combat(side("empire", "spearmen", wounds=1, **detail), side("orcs", "boyz", wounds=2)))
    assert (refused.field, str(refused)) == (name, f"{name}: 'boyz' is not among empire's units in this combat")
