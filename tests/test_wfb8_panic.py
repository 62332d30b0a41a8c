"""wfb8.panic.*: Panic tests, taken at once, at most once a phase, with their exemptions and in the
order the controlling player chooses (rules/wfb8.md, "Panic tests")."""

import pytest
from support.table import only
from support.wfb8 import battle, charge, combat, fact, first, fled, regiment, side

from morale.core import outcomes as out
from morale.core.state import digest
from morale.events.types import CasualtiesSuffered, DiceRolled, PhaseEnded, PlayerDecided


# -- wfb8.panic.test ----------------------------------------------------------------------------
@pytest.mark.parametrize(("dice", "passed"), [((3, 4), True), ((4, 4), False), ((1, 1), True), ((6, 6), False)])
def test_wfb8_panic_test_is_a_leadership_test_2d6_equal_or_under_ld_passes(dice, passed):
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    due = only(table.casualties("spearmen", 5), out.TestDue)
    assert (due.test, due.dice, due.target) == ("panic", 2, 7)

    result = only(table.roll("spearmen", "panic", *dice), out.TestResolved)

    assert (result.rule, result.passed, result.total, result.target) == ("wfb8.panic.test", passed, sum(dice), 7)


def test_wfb8_panic_test_passed_nothing_happens():
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)

    caused = table.roll("spearmen", "panic", 3, 4)

    assert [type(o) for o in caused] == [out.TestResolved]
    assert table.state("spearmen") == "steady" and table.due() == []


def test_wfb8_panic_test_failed_the_unit_flees():
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)

    caused = table.roll("spearmen", "panic", 4, 4)

    change = only(caused, out.StateChanged)
    assert (change.from_state, change.to_state, change.rule) == ("steady", "falling_back", "wfb8.panic.test")
    assert table.due() == ["spearmen:flee"]


# -- wfb8.panic.once_per_phase ----------------------------------------------------------------------
def spearmen_passed_in_the_orc_shooting(*others):
    """The spearmen lose 5 of 20 in the orcs' Shooting phase of turn 1 and pass their Panic test."""
    table = battle(regiment("spearmen"), *others, regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)
    table.roll("spearmen", "panic", 3, 3)
    return table


def test_wfb8_panic_once_per_phase_a_second_cause_in_the_phase_gives_no_second_test():
    table = spearmen_passed_in_the_orc_shooting(regiment("archers", models=5))
    table.casualties("archers", 5)  # destroyed, within 6 inches of the spearmen

    caused = table.record(fact("spearmen", "friend_destroyed_within_6", "archers"))

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.rule, not_taken.trigger) == ("wfb8.panic.once_per_phase", "wfb8.panic.friend_destroyed")
    assert table.due() == []


def test_wfb8_panic_once_per_phase_dice_for_a_second_test_are_refused_naming_the_rule():
    table = spearmen_passed_in_the_orc_shooting()

    refused = table.refuse(DiceRolled(unit="spearmen", test="panic", dice=(6, 6)))

    assert refused.rule == "wfb8.panic.once_per_phase"
    assert "already taken its panic test this phase" in refused.message


def test_wfb8_panic_once_per_phase_more_causes_while_the_test_is_due_add_none():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)

    caused = table.casualties("spearmen", 2)

    assert only(caused, out.TestNotTaken).rule == "wfb8.panic.once_per_phase"
    assert table.due() == ["spearmen:panic"]


def test_wfb8_panic_once_per_phase_the_next_phase_is_a_new_phase():
    table = spearmen_passed_in_the_orc_shooting(regiment("archers", models=5))
    table.go_to(1, "orcs", "close_combat")
    table.casualties("archers", 5)

    caused = table.record(fact("spearmen", "friend_destroyed_within_6", "archers"))

    assert only(caused, out.TestDue).rule == "wfb8.panic.friend_destroyed"


def test_wfb8_panic_once_per_phase_start_of_turn_is_part_of_the_movement_phase():
    table = battle(regiment("spearmen"), regiment("archers", models=5), regiment("boyz", "orcs"))
    table.go_to(1, "empire", "start_of_turn")
    table.casualties("spearmen", 5, cause="a spell remaining in play")
    table.roll("spearmen", "panic", 3, 3)
    table.go_to(1, "empire", "movement")
    table.casualties("archers", 5, cause="dangerous terrain")

    caused = table.record(fact("spearmen", "friend_destroyed_within_6", "archers"))

    assert only(caused, out.TestNotTaken).rule == "wfb8.panic.once_per_phase"


def test_wfb8_panic_once_per_phase_the_replayed_log_remembers_who_has_tested():
    table = spearmen_passed_in_the_orc_shooting()

    replayed = table.replayed()

    assert replayed.state().units["spearmen"].phase_marks == {"panic_test_taken"}


# -- wfb8.panic.exempt ------------------------------------------------------------------------------
def test_wfb8_panic_exempt_a_unit_engaged_in_close_combat():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.go_to(1, "orcs", "magic")  # the charge reaches the spearmen as the Movement phase ends

    caused = table.casualties("spearmen", 6, cause="magic")

    not_taken = only(caused, out.TestNotTaken)
    assert (not_taken.test, not_taken.rule, not_taken.trigger) == (
        "panic",
        "wfb8.panic.exempt",
        "wfb8.panic.heavy_casualties",
    )
    assert table.due() == []


def test_wfb8_panic_exempt_a_fleeing_unit():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    fled(table, "spearmen")
    table.go_to(1, "orcs", "close_combat")

    caused = table.casualties("spearmen", 4)

    assert only(caused, out.TestNotTaken).rule == "wfb8.panic.exempt"


def test_wfb8_panic_exempt_a_unit_that_breaks_before_its_panic_test_does_not_take_it():
    # Found by the property test: the trolls lose a combat their foe has left, then lose two of their
    # three models to a spell; a Break and a Panic test are due. The failed Break test makes them flee,
    # and a fleeing unit takes no Panic test: it lapses (once a crash of the state machine).
    table = battle(regiment("bearer"), regiment("trolls", "orcs", models=3, ld=4, rules=("stubborn",)))
    table.go_to(1, "orcs", "close_combat")
    table.record(combat(side("empire", "bearer", wounds=3, left_combat=("bearer",)), side("orcs", "trolls", wounds=0)))
    table.casualties("trolls", 2, cause="magic")
    assert table.due() == ["trolls:break", "trolls:panic"]

    caused = table.roll("trolls", "break", 2, 3)

    lapsed = only(caused, out.TestNotTaken)
    assert (lapsed.test, lapsed.rule, lapsed.detail) == ("panic", "wfb8.panic.exempt", "fleeing")
    assert table.state("trolls") == "falling_back" and table.due() == ["trolls:flee"]
    assert digest(table.replayed().state()) == digest(table.battle)


def test_wfb8_panic_exempt_a_unit_caught_in_combat_before_its_panic_test_does_not_take_it():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 6)
    assert table.due() == ["spearmen:panic"]

    caused = table.record(fact("spearmen", "in_close_combat", "boyz"))

    lapsed = only(caused, out.TestNotTaken)
    assert (lapsed.test, lapsed.rule) == ("panic", "wfb8.panic.exempt")
    assert table.due() == []


def test_wfb8_panic_exempt_a_unit_that_has_already_tested_this_phase():
    table = spearmen_passed_in_the_orc_shooting(regiment("archers", models=5))
    table.casualties("archers", 5)

    caused = table.record(fact("spearmen", "friend_destroyed_within_6", "archers"))

    assert only(caused, out.TestNotTaken).rule == "wfb8.panic.once_per_phase"  # the third exemption


def test_wfb8_panic_exempt_only_while_the_combat_lasts():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs", models=10))
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.go_to(1, "orcs", "close_combat")
    table.casualties("boyz", 10, cause="close combat")  # the foes are wiped out

    caused = table.casualties("spearmen", 6, cause="a miscast")

    assert only(caused, out.TestDue).rule == "wfb8.panic.heavy_casualties"


def test_wfb8_panic_exempt_the_table_says_who_is_in_base_contact():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "magic")

    caused = table.record(fact("spearmen", "in_close_combat", "boyz"))  # a pursuit into fresh enemies

    assert {(o.unit, o.engaged) for o in caused if isinstance(o, out.EngagementChanged)} == {
        ("spearmen", True),
        ("boyz", True),
    }
    assert only(table.casualties("spearmen", 5, cause="magic"), out.TestNotTaken).rule == "wfb8.panic.exempt"
    caused = table.record(fact("boyz", "in_close_combat", False))
    assert {(o.unit, o.engaged, o.rule) for o in caused if isinstance(o, out.EngagementChanged)} == {
        ("boyz", False, "wfb8.panic.exempt"),
        ("spearmen", False, "wfb8.multi.no_more_foes"),
    }
    assert only(table.casualties("boyz", 5, cause="a miscast"), out.TestDue).rule == "wfb8.panic.heavy_casualties"


def test_wfb8_panic_exempt_contact_names_a_living_enemy_neither_side_fleeing():
    table = battle(regiment("spearmen"), regiment("halberdiers"), regiment("boyz", "orcs"))
    fled(table, "halberdiers")

    for value in (True, "halberdiers", "nobody", False):  # False: the spearmen are in no combat
        assert table.refuse(fact("spearmen", "in_close_combat", value)).field == "value"
    assert table.refuse(fact("boyz", "in_close_combat", "halberdiers")).rule == "wfb8.flee.move"


# -- wfb8.panic.heavy_casualties ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("models", "lost", "tested"),
    [
        (21, 5, False),  # the rule's example: 5.25 rounds up, 6 of 21 are needed
        (21, 6, True),
        (20, 4, False),
        (20, 5, True),  # exactly 25%
        (4, 1, True),
    ],
)
def test_wfb8_panic_heavy_casualties_25_percent_or_more_of_the_phase_start_strength(models, lost, tested):
    table = battle(regiment("spearmen", models=models), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")

    table.casualties("spearmen", lost)

    assert table.due() == (["spearmen:panic"] if tested else [])


def test_wfb8_panic_heavy_casualties_the_rules_example_21_models_6_casualties_in_one_phase():
    table = battle(regiment("spearmen", models=21), regiment("boyz", "orcs"), regiment("archers", "orcs"))
    table.go_to(1, "orcs", "shooting")
    assert table.casualties("spearmen", 3) == ()  # the boyz' bows
    first_loss = table.fold.seq

    caused = table.casualties("spearmen", 3)  # the archers: 6 of 21 this phase

    due = only(caused, out.TestDue)
    assert (due.rule, due.caused_by) == ("wfb8.panic.heavy_casualties", (first_loss, first_loss + 1))


def test_wfb8_panic_heavy_casualties_tested_immediately_not_at_the_end_of_the_phase():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")

    table.casualties("spearmen", 5)

    assert table.due() == ["spearmen:panic"]
    refused = table.refuse(PhaseEnded(turn=1, side="orcs", phase="shooting"))
    assert refused.rule == "engine.clock.tests_first"


def test_wfb8_panic_heavy_casualties_measured_against_the_strength_at_the_start_of_the_phase():
    table = battle(regiment("spearmen", models=20), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "magic")
    table.casualties("spearmen", 4, cause="magic")  # 4 of 20: no test
    table.go_to(1, "orcs", "shooting")

    table.casualties("spearmen", 4)  # 4 of the 16 left: a test, though only 20% of the 20

    assert table.due() == ["spearmen:panic"]


def test_wfb8_panic_heavy_casualties_losses_in_separate_phases_do_not_add_up():
    table = battle(regiment("spearmen", models=20), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "magic")
    table.casualties("spearmen", 3, cause="magic")
    table.go_to(1, "orcs", "shooting")

    table.casualties("spearmen", 3)  # 6 of 20 this turn, but 3 of 17 in this phase

    assert table.due() == []


@pytest.mark.parametrize(
    ("phase", "cause"),
    [("shooting", "war machine misfire"), ("magic", "miscast"), ("movement", "dangerous terrain")],
)
def test_wfb8_panic_heavy_casualties_from_any_source_even_its_own_side(phase, cause):
    table = battle(regiment("crew", models=4), regiment("boyz", "orcs"))
    table.go_to(1, "empire", phase)

    caused = table.casualties("crew", 1, cause=cause)

    assert only(caused, out.TestDue).rule == "wfb8.panic.heavy_casualties"


def test_wfb8_panic_heavy_casualties_a_unit_wiped_out_takes_no_test():
    table = battle(regiment("crew", models=3), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")

    table.casualties("crew", 3)

    assert table.state("crew") == "destroyed" and table.due() == []


def test_wfb8_panic_heavy_casualties_the_threshold_is_a_house_rule():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"), house_rules={"panic_threshold_percent": 50})
    table.go_to(1, "orcs", "shooting")

    table.casualties("spearmen", 9)

    assert table.due() == []


# -- wfb8.panic.stand_and_shoot ------------------------------------------------------------------------
def knights_charge_the_archers():
    table = battle(regiment("knights", models=8, unit_type="cavalry"), regiment("archers", "orcs"))
    table.go_to(1, "empire", "movement")
    table.record(charge("knights", "archers"))
    return table


def test_wfb8_panic_stand_and_shoot_casualties_on_the_charger_test_at_once():
    table = knights_charge_the_archers()

    caused = table.casualties("knights", 2, cause="stand_and_shoot")

    assert only(caused, out.TestDue).rule == "wfb8.panic.stand_and_shoot"
    assert table.due() == ["knights:panic"]


def test_wfb8_panic_stand_and_shoot_failed_the_charger_flees_and_never_arrives():
    table = knights_charge_the_archers()
    table.casualties("knights", 2, cause="stand_and_shoot")

    caused = table.roll("knights", "panic", 5, 6)

    assert only(caused, out.StateChanged).rule == "wfb8.panic.stand_and_shoot"  # out of the shooters' range
    table.roll("knights", "flee", 4, 4)
    ended = table.end_phase()
    assert not any(isinstance(o, out.EngagementChanged) for o in ended)
    assert table.unit("archers").notes == {}


def test_wfb8_panic_stand_and_shoot_passed_the_charge_goes_in():
    table = knights_charge_the_archers()
    table.casualties("knights", 2, cause="stand_and_shoot")
    table.roll("knights", "panic", 2, 3)

    ended = table.end_phase()

    assert {(o.unit, o.engaged) for o in ended if isinstance(o, out.EngagementChanged)} == {
        ("knights", True),
        ("archers", True),
    }


def test_wfb8_panic_stand_and_shoot_adds_to_the_phases_other_losses():
    table = knights_charge_the_archers()
    table.casualties("knights", 1, cause="dangerous terrain")  # 1 of 8: no test

    caused = table.casualties("knights", 1, cause="stand_and_shoot")  # 2 of 8: 25%

    assert only(caused, out.TestDue).rule == "wfb8.panic.stand_and_shoot"


def test_wfb8_panic_stand_and_shoot_only_a_charger_is_shot_at_by_a_reaction():
    table = battle(regiment("knights", models=8, unit_type="cavalry"), regiment("archers", "orcs"))
    table.go_to(1, "empire", "movement")

    refused = table.refuse(CasualtiesSuffered(unit="knights", count=2, cause="stand_and_shoot"))

    assert refused.rule == "wfb8.panic.stand_and_shoot"


# -- wfb8.panic.order ---------------------------------------------------------------------------------
def two_regiments_must_test():
    """The archers are shot down within 6 inches of both the spearmen and the halberdiers."""
    table = battle(
        regiment("spearmen"), regiment("halberdiers"), regiment("archers", models=5), regiment("boyz", "orcs")
    )
    table.go_to(1, "orcs", "shooting")
    table.casualties("archers", 5)
    table.record(fact("spearmen", "friend_destroyed_within_6", "archers"))
    table.record(fact("halberdiers", "friend_destroyed_within_6", "archers"))
    assert table.due() == ["spearmen:panic", "halberdiers:panic"]
    return table


def test_wfb8_panic_order_the_controlling_player_chooses_before_anyone_rolls():
    table = two_regiments_must_test()

    refused = table.refuse(DiceRolled(unit="spearmen", test="panic", dice=(3, 3)))

    assert refused.rule == "wfb8.panic.order" and "test_first" in refused.message


def test_wfb8_panic_order_the_chosen_unit_tests_first_then_the_other():
    table = two_regiments_must_test()
    table.record(first("halberdiers"))

    refused = table.refuse(DiceRolled(unit="spearmen", test="panic", dice=(3, 3)))
    assert refused.rule == "wfb8.panic.order" and "chose halberdiers" in refused.message
    table.roll("halberdiers", "panic", 3, 3)
    table.roll("spearmen", "panic", 3, 3)  # the last one needs no choice

    assert table.due() == []


@pytest.mark.parametrize(("first_dice", "first_flees"), [((3, 3), False), ((6, 6), True)])
def test_wfb8_panic_order_three_units_the_player_chooses_again_for_the_two_left(first_dice, first_flees):
    """The swordsmen test first; once their Panic test is over (passed, or failed with their flee
    move still to make), the player chooses again between the other two."""
    table = battle(
        regiment("spearmen"),
        regiment("halberdiers"),
        regiment("swordsmen"),
        regiment("archers", models=5),
        regiment("boyz", "orcs"),
    )
    table.go_to(1, "orcs", "shooting")
    table.casualties("archers", 5)
    for unit_id in ("spearmen", "halberdiers", "swordsmen"):
        table.record(fact(unit_id, "friend_destroyed_within_6", "archers"))
    table.record(first("swordsmen"))
    table.roll("swordsmen", "panic", *first_dice)
    assert table.due("swordsmen") == (["swordsmen:flee"] if first_flees else [])

    assert table.refuse(DiceRolled(unit="spearmen", test="panic", dice=(3, 3))).rule == "wfb8.panic.order"
    table.record(first("spearmen"))
    table.roll("spearmen", "panic", 3, 3)
    table.roll("halberdiers", "panic", 3, 3)
    assert table.due() == (["swordsmen:flee"] if first_flees else [])


def test_wfb8_panic_order_a_choice_stands_until_its_test_is_over():
    table = two_regiments_must_test()
    table.record(first("halberdiers"))

    refused = table.refuse(first("spearmen"))

    assert refused.rule == "wfb8.panic.order" and "already chosen" in refused.message


def test_wfb8_panic_order_nothing_to_choose_for_a_single_unit():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)

    refused = table.refuse(first("spearmen"))

    assert refused.rule == "wfb8.panic.order"
    assert table.refuse(first("boyz")).field == "unit"  # no test due at all


@pytest.mark.parametrize("first_to_roll", ["boyz", "spearmen"])
def test_wfb8_panic_order_each_side_orders_only_its_own_units(first_to_roll):
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))
    table.go_to(1, "orcs", "shooting")
    table.casualties("spearmen", 5)
    table.casualties("boyz", 5, cause="a misfiring rock lobber")

    # One unit of each side: neither player has an order to choose, whoever rolls first.
    for unit_id in sorted(("boyz", "spearmen"), key=lambda u: u != first_to_roll):
        table.roll(unit_id, "panic", 3, 3)

    assert table.due() == []


def test_wfb8_panic_order_only_panic_tests_wait_for_the_choice():
    table = two_regiments_must_test()
    table.record(first("spearmen"))
    table.roll("spearmen", "panic", 6, 6)  # flees: its flee move is due, not a Panic test

    assert table.due() == ["halberdiers:panic", "spearmen:flee"]
    # The chosen unit's Panic test is over: the halberdiers, the one unit left to test, need no choice.
    table.roll("halberdiers", "panic", 2, 2)
    table.roll("spearmen", "flee", 2, 2)


def test_wfb8_panic_order_is_a_decision_other_rulesets_do_not_offer():
    from support.table import Table, unit

    table = Table(unit("guard"), unit("boyz", "orks"))
    refused = table.refuse(PlayerDecided(unit="guard", decision="test_first"))
    assert refused.rule == "engine.decision"
