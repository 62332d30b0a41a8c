"""What the `SAMPLE=0` mutation pass of wfb8/ruleset.py and wfb8/combat.py (2026-12-02) found no test
asking: the edges of the thresholds, the sides' order, the board's lines, a charge's phase and who it
still reaches (MUTATION.md, "The whole of `wfb8/combat.py` and `wfb8/ruleset.py`")."""

from __future__ import annotations

import pytest
from support.table import Table, only
from support.wfb8 import battle, charge, combat, fact, fled, knights_wiped_out_the_wolves, regiment, reroll, side

from morale.core import outcomes as out
from morale.core.odds import odds
from morale.events.types import CasualtiesSuffered
from morale.projections.board import board


def board_lines(table: Table, unit_id: str) -> list[tuple[str, str]]:
    row = next(r for r in board(table.battle).units if r.unit == unit_id)
    return [(r.said, r.rule) for r in row.restrictions]


# -- wfb8.panic.heavy_casualties ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("models", "lost", "tested"),
    [
        (25, 6, False),  # 24%: short of a quarter
        (25, 7, True),
        (101, 25, False),  # 24.75%: a quarter of 101 is 25.25, so 26 are needed
        (101, 26, True),
    ],
)
def test_wfb8_panic_heavy_casualties_just_under_a_quarter_is_no_test(models, lost, tested):
    table = battle(regiment("goblins", "orcs", models=models), regiment("spearmen"))
    table.go_to(1, "empire", "shooting")

    table.casualties("goblins", lost)

    assert table.due() == (["goblins:panic"] if tested else [])


# -- wfb8.rally.test ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("models", "left"),
    [
        (50, 13),  # 26% of the starting models: more than a quarter
        (99, 25),  # 25.25%
    ],
)
def test_wfb8_rally_test_just_over_a_quarter_left_is_an_ordinary_ld_test(models, left):
    table = battle(regiment("spearmen", models=models, ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen", lost=models - left)

    due = only(table.go_to(2, "empire", "movement"), out.TestDue)
    result = only(table.roll("spearmen", "rally", 3, 4), out.TestResolved)

    assert due.target == 7
    assert result.passed and not result.detail
    assert table.state("spearmen") == "regrouped"


def test_wfb8_rally_test_the_result_says_why_only_a_double_1_rallies():
    table = battle(regiment("spearmen", models=20, ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen", lost=15)
    table.go_to(2, "empire", "movement")

    result = only(table.roll("spearmen", "rally", 1, 2), out.TestResolved)

    assert not result.passed
    assert result.detail == "5 of 20 models left: 25% or less, only a double 1 rallies"


# -- wfb8.panic.test (the target) -----------------------------------------------------------------
def test_wfb8_panic_test_a_leadership_of_0_is_a_target_of_0():
    table = battle(regiment("rabble", ld=0), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")

    due = only(table.casualties("rabble", 5), out.TestDue)
    result = only(table.roll("rabble", "panic", 1, 2), out.TestResolved)

    assert due.target == 0
    assert (result.passed, result.target) == (False, 0)


# -- wfb8.panic.exempt ----------------------------------------------------------------------------
def test_wfb8_panic_exempt_the_board_says_a_unit_in_close_combat_takes_break_tests_not_panic_tests():
    table = battle(regiment("spearmen"), regiment("halberdiers"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.end_phase()

    assert board_lines(table, "spearmen") == [
        ("in close combat with boyz: Break tests, not Panic tests", "wfb8.panic.exempt")
    ]
    assert board_lines(table, "halberdiers") == []


# -- wfb8.hold_your_ground ------------------------------------------------------------------------
def test_wfb8_hold_your_ground_the_board_says_who_is_within_12_inches_of_the_standard():
    table = battle(
        regiment("spearmen"),
        regiment("halberdiers"),
        regiment("archers"),
        regiment("general_guard", rules=("battle_standard_bearer",)),
        regiment("boyz", "orcs"),
    )
    table.record(fact("spearmen", "near_battle_standard", True))
    table.record(fact("halberdiers", "near_battle_standard", False))

    near = ("within 12 inches of the Battle Standard: re-rolls failed Ld tests", "wfb8.hold_your_ground")
    assert board_lines(table, "spearmen") == [near]
    assert board_lines(table, "halberdiers") == []
    assert board_lines(table, "archers") == []  # never measured


@pytest.mark.parametrize(
    ("testing", "own_bearer", "enemy_bearer"),
    [("spearmen", "general_guard", "warboss"), ("boyz", "warboss", "general_guard")],
)
def test_wfb8_hold_your_ground_only_the_sides_own_battle_standard_counts(testing, own_bearer, enemy_bearer):
    """The side's Battle Standard Bearer flees, the enemy's does not (and joined first): a unit near
    its own side's standard re-rolls nothing, whichever side it is on."""
    units = {
        "spearmen": regiment("spearmen"),
        "boyz": regiment("boyz", "orcs"),
        "general_guard": regiment("general_guard", rules=("battle_standard_bearer",)),
        "warboss": regiment("warboss", "orcs", rules=("battle_standard_bearer",)),
    }
    table = battle(units[enemy_bearer], units[own_bearer], units["spearmen"], units["boyz"])
    enemy_side = table.unit(enemy_bearer).side
    table.go_to(1, enemy_side, "shooting")
    table.casualties(own_bearer, 5)
    table.roll(own_bearer, "panic", 6, 6)  # the bearer's own unit re-rolls...
    table.record(reroll(own_bearer, "panic", 6, 5))  # ...and flees anyway
    table.roll(own_bearer, "flee", 3, 3)
    table.record(fact(testing, "near_battle_standard", True))
    table.casualties(testing, 5)

    caused = table.roll(testing, "panic", 5, 5)

    assert only(caused, out.StateChanged).to_state == "falling_back"
    assert table.due() == [f"{testing}:flee"]


@pytest.mark.parametrize("order", [("general_guard", "warboss"), ("warboss", "general_guard")])
def test_wfb8_hold_your_ground_each_side_may_have_its_battle_standard_bearer(order):
    bearers = {
        "general_guard": regiment("general_guard", rules=("battle_standard_bearer",)),
        "warboss": regiment("warboss", "orcs", rules=("battle_standard_bearer",)),
    }
    table = battle(bearers[order[0]])

    table.record(bearers[order[1]])

    assert {u.id for u in table.battle.units.values() if u.has("battle_standard_bearer")} == set(order)


def test_wfb8_hold_your_ground_the_odds_count_a_failure_to_re_roll_as_no_pass():
    table = battle(
        regiment("spearmen", ld=7),
        regiment("general_guard", rules=("battle_standard_bearer",)),
        regiment("boyz", "orcs"),
    )
    table.go_to(1, "orcs", "shooting")
    table.record(fact("spearmen", "near_battle_standard", True))
    table.casualties("spearmen", 5)

    found = odds(table.battle, table.battle.due[0])

    assert (found.pass_ways, found.of) == (21, 36)
    assert {(c.result, c.passed, c.ways) for c in found.results} == {("pass", True, 21), ("re-roll", False, 15)}


# -- wfb8.panic.friend_destroyed, friend_breaks, fled_through --------------------------------------
def test_wfb8_panic_friend_destroyed_names_a_unit_of_its_own_side_whichever_side_it_is():
    table = battle(regiment("spearmen", models=5), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)

    refused = table.refuse(fact("boyz", "friend_destroyed_within_6", "spearmen"))

    assert refused.field == "value"
    assert "friend_destroyed_within_6 names another unit of orcs (got 'spearmen')" in refused.message


def test_wfb8_panic_friend_destroyed_a_friend_that_lost_models_but_lives_is_refused():
    table = battle(regiment("spearmen"), regiment("archers", models=10), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("archers", 2)  # 2 of 10: no Panic test, and still there

    refused = table.refuse(fact("spearmen", "friend_destroyed_within_6", "archers"))

    assert refused.rule == "wfb8.panic.friend_destroyed"
    assert "archers was not destroyed this phase" in refused.message


def test_wfb8_panic_fled_through_a_friend_destroyed_while_fleeing_is_refused():
    """Shot down as it fled, the archers are gone: no one can say they flee through a unit now. (A friend
    that fled off the table is refused the same way: the table states the friends it fled through
    before it states that it left, an order this test leaves open.)"""
    table = battle(regiment("spearmen"), regiment("archers", models=10), regiment("boyz", "orcs"))
    fled(table, "archers", lost=3)
    table.casualties("archers", 7)

    refused = table.refuse(fact("spearmen", "friend_fled_through", "archers"))

    assert refused.rule == "wfb8.panic.fled_through"
    assert "archers is not fleeing" in refused.message


# -- wfb8.panic.exempt: charges -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("turn_of", "phase", "charger", "target"),
    [
        ("orcs", "movement", "spearmen", "boyz"),  # the enemy's Movement phase
        ("empire", "movement", "boyz", "spearmen"),
        ("empire", "start_of_turn", "spearmen", "boyz"),
        ("empire", "magic", "spearmen", "boyz"),
        ("empire", "shooting", "spearmen", "boyz"),
        ("empire", "close_combat", "spearmen", "boyz"),
    ],
)
def test_wfb8_panic_exempt_a_charge_only_in_the_chargers_own_movement_phase(turn_of, phase, charger, target):
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, turn_of, phase)

    refused = table.refuse(charge(charger, target))

    assert refused.field == "charger"
    assert f"{charger} can charge only in its own side's Movement phase" in refused.message


def test_wfb8_panic_exempt_a_charge_only_while_the_movement_phase_is_open():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "empire", "movement")
    table.end_phase()

    refused = table.refuse(charge("spearmen", "boyz"))

    assert "spearmen can charge only in its own side's Movement phase" in refused.message


def knights_charge(*targets: str, **regiments) -> Table:
    table = battle(regiment("knights", models=8, unit_type="cavalry"), *regiments.values())
    table.go_to(1, "empire", "movement")
    table.record(charge("knights", *targets))
    return table


def nobody_engaged(caused) -> bool:
    return not any(isinstance(o, out.EngagementChanged) for o in caused)


def test_wfb8_panic_exempt_a_charger_destroyed_before_it_arrives_fights_no_one():
    table = knights_charge("archers", archers=regiment("archers", "orcs"))
    table.casualties("knights", 8, cause="stand_and_shoot")

    ended = table.end_phase()

    assert nobody_engaged(ended)
    assert board_lines(table, "archers") == []


@pytest.mark.parametrize("fate", ["fled", "destroyed"])
def test_wfb8_panic_exempt_a_charge_does_not_reach_a_target_that_fled_or_is_gone(fate):
    table = knights_charge("archers", archers=regiment("archers", "orcs"))
    if fate == "fled":
        table.casualties("archers", 5, cause="a spell remaining in play")
        table.roll("archers", "panic", 6, 6)
        table.roll("archers", "flee", 3, 4)
    else:
        table.casualties("archers", 20, cause="a spell remaining in play")

    ended = table.end_phase()

    assert nobody_engaged(ended)
    assert board_lines(table, "knights") == []


def test_wfb8_panic_stand_and_shoot_a_charger_that_fled_draws_no_more_stand_and_shoot():
    """The knights charged two units; the first one's Stand and Shoot sent them fleeing: their charge
    is over, and the second unit has no charger to shoot at."""
    table = knights_charge(
        "archers", "arrer_boyz", archers=regiment("archers", "orcs"), arrer_boyz=regiment("arrer_boyz", "orcs")
    )
    table.casualties("knights", 2, cause="stand_and_shoot")
    table.roll("knights", "panic", 5, 6)
    table.roll("knights", "flee", 4, 4)

    refused = table.refuse(CasualtiesSuffered(unit="knights", count=1, cause="stand_and_shoot"))

    assert refused.rule == "wfb8.panic.stand_and_shoot"
    assert "knights declared no charge this phase" in refused.message


# -- wfb8.multi.* ----------------------------------------------------------------------------------
def boyz_charge(*targets: str, **regiments) -> Table:
    table = battle(regiment("spearmen"), regiment("boyz", "orcs", models=25), *regiments.values())
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", *targets))
    table.go_to(1, "orcs", "close_combat")
    return table


def test_wfb8_multi_no_more_foes_a_winner_still_fighting_one_foe_stays_in_whichever_foe_broke():
    """The spearmen fight the boyz and the wolves; the wolves (whose id sorts after the boyz') break,
    the boyz hold: the spearmen still fight the boyz."""
    table = boyz_charge("spearmen", wolves=regiment("wolves", "orcs", models=5, unit_type="cavalry"))
    table.record(combat(side("empire", "spearmen", wounds=3), side("orcs", "boyz", "wolves", wounds=1)))
    table.roll("boyz", "break", 1, 2)  # Ld 7 - 2: the boyz hold

    caused = table.roll("wolves", "break", 6, 5)  # the wolves break

    assert nobody_engaged(caused)
    assert table.unit("spearmen").notes["foes"] == ("boyz",)
    assert board_lines(table, "spearmen") == [
        ("in close combat with boyz: Break tests, not Panic tests", "wfb8.panic.exempt")
    ]


def test_wfb8_multi_a_report_leaving_out_two_foes_names_the_first():
    table = boyz_charge(
        "spearmen", "halberdiers", "knights", halberdiers=regiment("halberdiers"), knights=regiment("knights")
    )

    refused = table.refuse(combat(side("empire", "spearmen", wounds=1), side("orcs", "boyz", wounds=3)))

    assert "halberdiers is in close combat with boyz but is not in this combat report" in refused.message


def test_wfb8_multi_no_more_foes_a_freed_unit_brought_into_contact_again_fights_and_tests():
    """Freed, the knights pursue into the boyz' flank (the table says so): they fight the boyz now, and
    losing the round they take a Break test like the spearmen."""
    table = knights_wiped_out_the_wolves()
    table.record(fact("knights", "in_close_combat", "boyz"))

    caused = table.record(combat(side("empire", "spearmen", "knights", wounds=1), side("orcs", "boyz", wounds=4)))

    assert sorted(table.due()) == ["knights:break", "spearmen:break"]
    assert not any(isinstance(o, out.TestNotTaken) for o in caused)


def test_wfb8_multi_no_more_foes_still_holds_after_a_report_that_listed_it_as_out():
    """A report that lists the freed knights in left_combat does not undo what the engine saw: a
    later report in the phase that lists them without it cannot give them foes or a Break test."""
    table = knights_wiped_out_the_wolves()
    table.record(
        combat(
            side("empire", "spearmen", "knights", wounds=5, left_combat=("knights",)), side("orcs", "boyz", wounds=5)
        )
    )

    caused = table.record(combat(side("empire", "spearmen", "knights", wounds=1), side("orcs", "boyz", wounds=4)))

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.unit, not_taken.rule) == ("knights", "wfb8.multi.no_more_foes")
    assert table.due() == ["spearmen:break"]
    assert "foes" not in table.unit("knights").notes


def test_wfb8_panic_exempt_a_break_test_due_stays_due_when_another_enemy_comes_into_contact():
    """Only a Panic test lapses as a unit is caught in a combat: a Break test it has due is still due."""
    table = boyz_charge("spearmen", wolves=regiment("wolves", "orcs", models=5, unit_type="cavalry"))
    table.record(combat(side("empire", "spearmen", wounds=1), side("orcs", "boyz", wounds=3)))

    caused = table.record(fact("spearmen", "in_close_combat", "wolves"))

    assert not any(isinstance(o, out.TestNotTaken) for o in caused)
    assert table.due() == ["spearmen:break"]
    assert table.unit("spearmen").notes["foes"] == ("boyz", "wolves")
