"""gdb.trigger.* and gdb.note.*: when a unit tests, and the notes that excuse it."""

from __future__ import annotations

import pytest
from support.gdb import allied, charge, due, fact, french, gdb_table, gdb_unit, near, not_taken, resolved, roll
from support.table import clock_event

from morale.core import outcomes as out
from morale.events.types import ChargeDeclared, DiceRolled, PlayerDecided, RefereeRuled, TableFactRecorded, UnitChanged


def routs_when_charged(table, victim: str, by: str) -> None:
    """In the Charge phase, line infantry charged by cavalry (-2, +1 no losses) rolls 1 + 1: Rout."""
    charge(table, by, victim)
    roll(table, by, "charging", 6, 5)
    roll(table, victim, "charged", 1, 1)
    assert table.state(victim) == "broken"


def a_brigade() -> list:
    return [
        french("ligne"),
        french("legere"),
        french("far"),
        gdb_unit("hussars", unit_type="cavalry", models=12),
        allied("kaiser_chevaulegers", unit_type="cavalry", models=12),
    ]


# -- Charge phase -----------------------------------------------------------------------------------
def test_gdb_trigger_charging_the_charger_tests_in_the_charging_column():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "charge")
    caused = charge(table, "ligne", "ir4")
    assert due(table) == [("ligne", "charging", "gdb.trigger.charging")]
    assert [o.test for o in caused if isinstance(o, out.TestDue)] == ["charging"]


def test_gdb_trigger_charging_either_side_charges_in_the_charge_phase_only():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "movement")
    assert table.refuse(ChargeDeclared(charger="ir4", targets=("ligne",))).rule == "gdb.trigger.charging"
    table.go_to(1, "french", "charge")
    charge(table, "ir4", "ligne")
    assert due(table) == [("ir4", "charging", "gdb.trigger.charging")]


def test_gdb_trigger_charging_artillery_does_not_charge_and_a_unit_charges_once_a_phase():
    table = gdb_table(french("battery", unit_type="foot_artillery", models=4), french("ligne"), allied("ir4"))
    table.go_to(1, "french", "charge")
    assert table.refuse(ChargeDeclared(charger="battery", targets=("ir4",))).rule == "gdb.trigger.charging"
    charge(table, "ligne", "ir4")
    roll(table, "ligne", "charging", 1, 4)  # 6: Halt
    assert table.refuse(ChargeDeclared(charger="ligne", targets=("ir4",))).field == "charger"


def test_gdb_trigger_charging_a_cavalry_target_may_countercharge_instead():
    table = gdb_table(french("ligne"), allied("uhlans", unit_type="cavalry", models=12))
    table.go_to(1, "french", "charge")
    charge(table, "ligne", "uhlans")
    roll(table, "ligne", "charging", 5, 4)
    assert table.battle.due[0].decisions == ("countercharge",)
    table.record(PlayerDecided(unit="uhlans", decision="countercharge"))
    assert due(table) == [("uhlans", "charging", "gdb.trigger.charging")]
    test = resolved(roll(table, "uhlans", "charging", 3, 3))
    assert (test.column, test.result, test.total) == ("charging", "charge", 7)  # +1 no losses
    assert table.battle.due == []


@pytest.mark.parametrize("unit_type", ["infantry", "foot_artillery", "horse_artillery", "skirmishers"])
def test_gdb_trigger_charging_only_a_cavalry_target_may_countercharge(unit_type):
    table = gdb_table(french("ligne"), allied("target", unit_type=unit_type, models=8))
    table.go_to(1, "french", "charge")
    charge(table, "ligne", "target")
    roll(table, "ligne", "charging", 5, 4)
    assert due(table) == [("target", "charged", "gdb.trigger.charged")]
    assert table.battle.due[0].decisions == ()
    assert table.refuse(PlayerDecided(unit="target", decision="countercharge")).rule == "engine.decision"


def test_gdb_trigger_charged_targets_test_once_the_charger_passed():
    table = gdb_table(french("ligne"), allied("ir4"), allied("ir5"))
    table.go_to(1, "french", "charge")
    charge(table, "ligne", "ir4", "ir5", out_of_range=("ir5",))
    assert due(table) == [("ligne", "charging", "gdb.trigger.charging")]
    roll(table, "ligne", "charging", 4, 3)
    assert due(table) == [("ir4", "charged", "gdb.trigger.charged")]  # ir5 was out of reach


def test_gdb_trigger_charged_no_test_when_the_charger_did_not_get_a_charge_result():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "charge")
    charge(table, "ligne", "ir4")
    roll(table, "ligne", "charging", 2, 2)  # 5: Halt
    assert due(table) == [] and table.unit("ligne").restricted("halted")


# -- Morale phase: losses ---------------------------------------------------------------------------
def test_gdb_trigger_losses_three_figures_over_the_whole_turn():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "movement")
    table.casualties("ligne", 1, cause="artillery")
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 2)
    table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "morale", "gdb.trigger.losses")]


def test_gdb_trigger_losses_two_figures_are_not_enough_and_losses_do_not_carry_into_the_next_turn():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 2)
    table.go_to(1, "french", "morale")
    assert due(table) == []
    table.go_to(2, "french", "shooting")
    table.casualties("ligne", 1)
    table.go_to(2, "french", "morale")
    assert due(table) == []


def test_gdb_note_charge_fire_three_lost_to_fire_while_charging_no_second_test_for_losses():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "charge")
    charge(table, "ligne", "ir4")
    table.casualties("ligne", 3, cause="closing fire")
    roll(table, "ligne", "charging", 6, 6)
    roll(table, "ir4", "charged", 4, 4)
    caused = table.go_to(1, "french", "morale")
    assert due(table) == []
    assert ("ligne", "morale", "gdb.note.charge_fire") in not_taken(caused)


def test_gdb_note_charge_fire_unless_it_also_lost_three_in_the_shooting_phase():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "charge")
    table.casualties("ligne", 3, cause="closing fire")
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "morale", "gdb.trigger.losses")]


@pytest.mark.parametrize(
    ("in_charge", "in_shooting", "excused"),
    [(2, 1, False), (3, 2, True), (3, 3, False)],
)
def test_gdb_note_charge_fire_needs_three_in_the_charge_phase_and_fewer_than_three_shot(
    in_charge, in_shooting, excused
):
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "charge")
    table.casualties("ligne", in_charge, cause="closing fire")
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", in_shooting)
    caused = table.go_to(1, "french", "morale")
    assert due(table) == ([] if excused else [("ligne", "morale", "gdb.trigger.losses")])
    assert (("ligne", "morale", "gdb.note.charge_fire") in not_taken(caused)) is excused


def test_gdb_note_charge_fire_losses_recorded_between_phases_are_not_the_shooting_phases():
    """Casualties recorded after the Shooting phase has ended belong to no phase (as every ruleset
    counts phase losses): they count towards the turn's 3 figures, not as losses in the Shooting
    phase, so the charge-fire note still spares the unit a second test."""
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "charge")
    table.casualties("ligne", 3, cause="closing fire")
    table.go_to(1, "french", "shooting")
    table.record(clock_event(table.battle))  # the Shooting phase ends
    table.casualties("ligne", 3)
    caused = table.go_to(1, "french", "morale")
    assert due(table) == []
    assert ("ligne", "morale", "gdb.note.charge_fire") in not_taken(caused)


# -- Morale phase: routing and dispersed friends ----------------------------------------------------
def test_gdb_trigger_friend_routing_within_15cm_of_a_friend_routing_from_this_turns_charge_phase():
    table = gdb_table(*a_brigade())
    near(table, "legere", "ligne")
    table.go_to(1, "french", "charge")
    routs_when_charged(table, "ligne", by="kaiser_chevaulegers")
    table.go_to(1, "french", "morale")
    # ligne (routing) attempts to rally; legere tests for it; far is not within 15 cm.
    assert due(table) == [("ligne", "rally", "gdb.trigger.rally"), ("legere", "morale", "gdb.trigger.friend_routing")]


@pytest.mark.parametrize(
    ("router", "enemy", "charger"), [("ir4", "ligne", "hussars"), ("ligne", "ir4", "kaiser_chevaulegers")]
)
def test_gdb_trigger_friend_routing_an_enemy_routing_within_15cm_is_no_friend(router, enemy, charger):
    """A unit routs when charged by cavalry, within 15 cm of an enemy infantry battalion: only the
    router has a test due (to rally); the enemy does not test for its rout, whichever side it is."""
    table = gdb_table(*a_brigade(), allied("ir4"))
    near(table, enemy, router)
    table.go_to(1, "french", "charge")
    routs_when_charged(table, router, by=charger)
    table.go_to(1, "french", "morale")
    assert due(table) == [(router, "rally", "gdb.trigger.rally")]


def test_gdb_trigger_friend_routing_a_friend_that_routed_last_turn_in_the_charge_phase_does_not_count():
    table = gdb_table(*a_brigade())
    table.go_to(1, "french", "charge")
    routs_when_charged(table, "ligne", by="kaiser_chevaulegers")
    fact(table, "ligne", "enemy_in_charge_range", True)  # it cannot rally, and keeps routing
    table.go_to(1, "french", "morale")
    table.go_to(2, "french", "movement")
    near(table, "legere", "ligne")
    table.go_to(2, "french", "morale")
    assert due(table) == []


def test_gdb_note_ignore_infantry_ignores_routing_cavalry_and_cavalry_routing_infantry():
    table = gdb_table(
        *a_brigade(),
        french("battery", unit_type="foot_artillery", models=4),
        french("dragoons", unit_type="cavalry", models=12),
        allied("ir4"),
    )
    near(table, "legere", "hussars")  # infantry next to routing cavalry: ignores it
    near(table, "dragoons", "ligne")  # cavalry next to routing infantry: ignores it
    near(table, "battery", "hussars")  # artillery next to routing cavalry: does not
    table.go_to(1, "french", "charge")
    routs_when_charged(table, "ligne", by="kaiser_chevaulegers")
    charge(table, "ir4", "hussars", flank=("hussars",))
    roll(table, "ir4", "charging", 6, 5)
    roll(table, "hussars", "charged", 1, 1)  # 2 + 1 (no losses) - 4 (flank) = -1: Rout
    assert table.state("hussars") == "broken"
    table.go_to(1, "french", "morale")
    testing = {d.unit for d in table.battle.due if d.test == "morale"}
    assert testing == {"battery"}


def test_gdb_note_ignore_infantry_ignores_horse_artillery_and_cavalry_foot_artillery():
    """Two batteries, charged by cavalry, rout and abandon their guns in the Charge phase (1 + 1 + 1 - 2
    = 1: Rout). Infantry heeds the foot battery's dispersal but not the horse battery's; cavalry the
    other way round."""
    table = gdb_table(
        french("foot_battery", unit_type="foot_artillery", models=4, brigade="guns"),
        french("horse_battery", unit_type="horse_artillery", models=4, brigade="guns"),
        french("ligne"),
        french("legere"),
        gdb_unit("hussars", unit_type="cavalry", models=12),
        gdb_unit("dragoons", unit_type="cavalry", models=12),
        allied("uhlans", unit_type="cavalry", models=12),
        allied("kaiser_chevaulegers", unit_type="cavalry", models=12),
    )
    near(table, "foot_battery", "ligne", "hussars")
    near(table, "horse_battery", "legere", "dragoons")
    table.go_to(1, "french", "charge")
    for charger, battery in (("uhlans", "foot_battery"), ("kaiser_chevaulegers", "horse_battery")):
        charge(table, charger, battery)
        roll(table, charger, "charging", 6, 5)
        roll(table, battery, "charged", 1, 1)
        assert table.state(battery) == "dispersed"
    table.go_to(1, "french", "morale")
    assert due(table) == [
        ("ligne", "morale", "gdb.trigger.dispersal_near"),
        ("dragoons", "morale", "gdb.trigger.dispersal_near"),
    ]


def test_gdb_note_ignore_every_unit_ignores_routing_skirmishers():
    table = gdb_table(
        french("ligne"),
        french("voltigeurs", unit_type="skirmishers", models=8),
        allied("kaiser_chevaulegers", unit_type="cavalry", models=12),
    )
    near(table, "ligne", "voltigeurs")
    table.go_to(1, "french", "charge")
    charge(table, "kaiser_chevaulegers", "voltigeurs")
    roll(table, "kaiser_chevaulegers", "charging", 6, 5)
    roll(table, "voltigeurs", "charged", 1, 1)  # +1 no losses: 3, Retreat
    table.record(RefereeRuled(unit="voltigeurs", state="broken", reason="routs"))
    table.go_to(1, "french", "morale")
    assert [d.unit for d in table.battle.due if d.test == "morale"] == []


def test_gdb_rout_skirmishers_routing_skirmishers_are_ignored_even_for_friends_fleeing():
    table = gdb_table(french("ligne"), french("voltigeurs", unit_type="skirmishers", models=8), allied("ir4"))
    near(table, "ligne", "voltigeurs")
    table.record(RefereeRuled(unit="voltigeurs", state="broken", reason="routs"))
    table.go_to(1, "french", "charge")
    charge(table, "ligne", "ir4")
    assert [m.rule for m in table.battle.due[0].modifiers] == ["gdb.mod.no_losses"]


def test_gdb_trigger_dispersal_near_within_15cm_of_where_a_friend_dispersed_this_turn():
    """ligne has lost 8 of 20 (40%): routing, it is dispersed at once; legere stood within 15 cm of the spot."""
    table = gdb_table(
        french("ligne", models=12, full_strength=20),
        french("legere"),
        allied("kaiser_chevaulegers", unit_type="cavalry", models=12),
    )
    near(table, "legere", "ligne")
    table.go_to(1, "french", "charge")
    charge(table, "kaiser_chevaulegers", "ligne")
    roll(table, "kaiser_chevaulegers", "charging", 6, 5)
    roll(table, "ligne", "charged", 3, 3)  # 6 - 3 (losses) - 2 (cavalry) = 1: Rout, then dispersed
    assert table.state("ligne") == "dispersed"
    roll(table, "legere", "brigade", 5, 5)  # it dispersed within 15 cm of its brigade (gdb.rout.brigade)
    table.go_to(1, "french", "morale")
    assert due(table)[:1] == [("legere", "morale", "gdb.trigger.dispersal_near")]
    table.roll("legere", "morale", 5, 5)
    table.go_to(2, "french", "morale")
    assert due(table) == []  # only in the turn it was dispersed


@pytest.mark.parametrize(("phase", "tests"), [("shooting", False), ("melee", True)])
def test_gdb_trigger_dispersal_near_only_a_dispersal_in_the_charge_or_melee_phase(phase, tests):
    """ligne routed in turn 1's Charge phase and cannot rally; in turn 2 it is caught by the enemy
    next to legere (of another brigade: no Brigade Morale Test). Caught in the Shooting phase, its
    dispersal moves no one to test; caught in the Melee phase, legere tests."""
    table = gdb_table(
        french("ligne"),
        french("legere", brigade="second"),
        allied("kaiser_chevaulegers", unit_type="cavalry", models=12),
    )
    table.go_to(1, "french", "charge")
    routs_when_charged(table, "ligne", by="kaiser_chevaulegers")
    fact(table, "ligne", "enemy_in_charge_range", True)  # it cannot rally, and keeps routing
    table.go_to(2, "french", "movement")
    near(table, "legere", "ligne")
    table.go_to(2, "french", phase)
    fact(table, "ligne", "contact_with_enemy", True)
    assert table.state("ligne") == "dispersed"
    table.go_to(2, "french", "morale")
    assert due(table) == ([("legere", "morale", "gdb.trigger.dispersal_near")] if tests else [])


def test_gdb_trigger_dispersal_near_a_router_caught_by_a_charge_dates_its_dispersal_to_the_chargers_roll():
    """ligne routed in turn 1 and cannot rally. In turn 2 the chevaulegers charge it and read Charge:
    caught, it is dispersed by that roll (gdb.rout.contact), not by the declaration before it, and
    legere's test in the Morale phase cites the roll."""
    table = gdb_table(
        french("ligne"),
        french("legere", brigade="second"),
        allied("kaiser_chevaulegers", unit_type="cavalry", models=12),
    )
    table.go_to(1, "french", "charge")
    routs_when_charged(table, "ligne", by="kaiser_chevaulegers")
    fact(table, "ligne", "enemy_in_charge_range", True)
    table.go_to(2, "french", "movement")
    near(table, "legere", "ligne")
    table.go_to(2, "french", "charge")
    charge(table, "kaiser_chevaulegers", "ligne")
    declared = table.fold.seq
    roll(table, "kaiser_chevaulegers", "charging", 5, 5)
    charge_roll = table.fold.seq
    assert table.state("ligne") == "dispersed"
    table.go_to(2, "french", "morale")
    (test,) = table.battle.due
    assert (test.unit, test.rule, test.caused_by) == ("legere", "gdb.trigger.dispersal_near", (charge_roll,))
    assert declared not in test.caused_by


def test_gdb_trigger_friend_routing_prev_and_gdb_note_simultaneous_a_morale_phase_rout_counts_next_turn():
    table = gdb_table(french("ligne"), french("legere"), allied("ir4"))
    near(table, "legere", "ligne")
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "morale", "gdb.trigger.losses")]
    roll(table, "ligne", "morale", 1, 1)  # 2 - 1 (more than 10% lost) = 1: Rout
    assert table.state("ligne") == "broken"
    assert due(table) == []  # legere is not moved by it in this Morale phase
    fact(table, "ligne", "enemy_in_charge_range", True)
    table.go_to(2, "french", "morale")
    assert due(table) == [("legere", "morale", "gdb.trigger.friend_routing_prev")]


def test_gdb_trigger_friend_routing_prev_not_a_friend_that_routed_from_a_morale_test_two_turns_ago():
    """ligne routs from its Morale test in turn 1 and, with the enemy in charge range, keeps routing.
    legere comes within 15 cm in turn 3: that rout was not in the previous turn."""
    table = gdb_table(french("ligne"), french("legere"), allied("ir4"))
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    table.go_to(1, "french", "morale")
    roll(table, "ligne", "morale", 1, 1)  # 2 - 1 (more than 10% lost) = 1: Rout
    fact(table, "ligne", "enemy_in_charge_range", True)
    table.go_to(2, "french", "morale")
    assert table.state("ligne") == "broken" and due(table) == []
    table.go_to(3, "french", "movement")
    near(table, "legere", "ligne")
    table.go_to(3, "french", "morale")
    assert due(table) == []


def test_gdb_note_simultaneous_every_test_and_modifier_is_read_when_the_phase_begins():
    """ligne and legere both lost 3 figures and stand together. ligne routs first; legere's test still
    reads the table as it stood when the phase began: no -1 for a routing friend."""
    table = gdb_table(french("ligne"), french("legere"), allied("ir4"))
    near(table, "legere", "ligne")
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    table.casualties("legere", 3)
    table.go_to(1, "french", "morale")
    roll(table, "ligne", "morale", 1, 1)
    assert table.state("ligne") == "broken"
    test = resolved(roll(table, "legere", "morale", 3, 3))
    assert [m.rule for m in test.modifiers] == ["gdb.mod.losses"] and test.result == "halt"


def test_gdb_note_simultaneous_the_table_cannot_change_while_the_phases_tests_are_rolled():
    table = gdb_table(french("ligne"), french("legere"), allied("ir4"))
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    table.go_to(1, "french", "morale")
    for refused in (
        TableFactRecorded(unit="legere", fact="within_15cm", value="ligne"),
        TableFactRecorded(unit="ligne", fact="enemy_in_charge_range", value=True),
    ):
        assert table.refuse(refused).rule == "gdb.note.simultaneous"
    assert table.refuse(UnitChanged(unit="ligne", changes={"formation": "square"})).rule == "gdb.note.simultaneous"
    roll(table, "ligne", "morale", 4, 4)
    fact(table, "legere", "within_15cm", "ligne")  # after the tests: fine


def test_gdb_note_same_router_no_second_test_next_turn_for_the_same_routing_friend():
    """ligne routs in the Charge phase of turn 1; legere tests for it. In turn 1's Morale phase ligne,
    with the enemy in charge range, cannot rally and tests for its losses: Rout again. In turn 2 it is
    a friend routing from last turn's Morale test: grenadiers, newly within 15 cm, test; legere does not."""
    table = gdb_table(
        french("ligne"),
        french("legere"),
        french("grenadiers"),
        allied("kaiser_chevaulegers", unit_type="cavalry", models=12),
    )
    near(table, "legere", "ligne")
    table.go_to(1, "french", "charge")
    routs_when_charged(table, "ligne", by="kaiser_chevaulegers")
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    fact(table, "ligne", "enemy_in_charge_range", True)
    table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "morale", "gdb.trigger.losses"), ("legere", "morale", "gdb.trigger.friend_routing")]
    roll(table, "ligne", "morale", 1, 1)  # 2 - 1 (lost 15%) - 2 (routing) = -1: Rout again
    assert table.state("ligne") == "broken"
    roll(table, "legere", "morale", 4, 4)
    table.go_to(2, "french", "movement")
    near(table, "grenadiers", "ligne")
    caused = table.go_to(2, "french", "morale")
    assert due(table) == [("grenadiers", "morale", "gdb.trigger.friend_routing_prev")]
    assert ("legere", "morale", "gdb.note.same_router") in not_taken(caused)


def test_gdb_trigger_dispersal_point_half_its_figures_lost():
    table = gdb_table(
        french("ligne", models=10, full_strength=20), french("legere", models=11, full_strength=20), allied("ir4")
    )
    table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "morale", "gdb.trigger.dispersal_point")]


# -- Morale phase: rally --------------------------------------------------------------------------
def retreating(table, unit: str = "ligne", by: str = "kaiser_chevaulegers") -> None:
    """Charged by cavalry: 1 + 2 + 1 - 2 = 2: Retreat."""
    table.go_to(1, "french", "charge")
    charge(table, by, unit)
    roll(table, by, "charging", 6, 5)
    roll(table, unit, "charged", 1, 2)
    assert table.state(unit) == "falling_back"


def test_gdb_trigger_rally_a_retreating_unit_tests_in_the_rally_column():
    table = gdb_table(french("ligne"), allied("kaiser_chevaulegers", unit_type="cavalry", models=12))
    retreating(table)
    table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "rally", "gdb.trigger.rally")]
    test = resolved(roll(table, "ligne", "rally", 4, 4))  # 8 +1 no losses -1 retreating
    assert (test.column, test.total, test.result) == ("rally", 8, "rally")


def test_gdb_note_rally_attempt_every_retreating_or_routing_unit_allowed_to_attempts_each_morale_phase():
    table = gdb_table(french("ligne"), french("legere"), allied("kaiser_chevaulegers", unit_type="cavalry", models=12))
    retreating(table)
    table.go_to(1, "french", "morale")
    roll(table, "ligne", "rally", 1, 2)  # fails: keeps retreating
    assert table.state("ligne") == "falling_back"
    table.go_to(2, "french", "morale")
    assert due(table) == [("ligne", "rally", "gdb.trigger.rally")]


def test_gdb_note_rally_attempt_a_rally_roll_for_a_unit_in_good_order_is_refused():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "morale")
    assert table.refuse(DiceRolled(unit="ligne", test="rally", dice=(3, 3))).rule == "gdb.trigger.rally"


def test_gdb_trigger_rally_a_unit_in_good_order_with_a_morale_test_due_is_told_it_does_not_rally():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "morale", "gdb.trigger.losses")]
    refused = table.refuse(DiceRolled(unit="ligne", test="rally", dice=(3, 3)))
    assert refused.rule == "gdb.trigger.rally" and "only a retreating or routing unit rallies; ligne is steady" in str(
        refused
    )


@pytest.mark.parametrize(("dice", "state"), [((1, 2), "falling_back"), ((1, 1), "broken")])
def test_gdb_trigger_rally_out_of_the_morale_phase_a_retreating_or_routing_units_roll_waits_for_it(dice, state):
    """A routing unit that has not yet made its one attempt is told the same as a retreating one."""
    table = gdb_table(french("ligne"), allied("kaiser_chevaulegers", unit_type="cavalry", models=12))
    table.go_to(1, "french", "charge")
    charge(table, "kaiser_chevaulegers", "ligne")
    roll(table, "kaiser_chevaulegers", "charging", 6, 5)
    roll(table, "ligne", "charged", *dice)
    assert table.state("ligne") == state
    refused = table.refuse(DiceRolled(unit="ligne", test="rally", dice=(3, 3)))
    assert refused.rule == "gdb.trigger.rally" and "ligne attempts to rally in the Morale phase" in str(refused)


def test_gdb_trigger_rally_a_roll_for_a_test_the_game_does_not_have_is_refused_naming_its_tests():
    """A 40K player's habit: a regroup roll for a retreating unit. It is no rally that comes too early."""
    table = gdb_table(french("ligne"), allied("kaiser_chevaulegers", unit_type="cavalry", models=12))
    retreating(table)
    refused = table.refuse(DiceRolled(unit="ligne", test="regroup", dice=(3, 3)))
    assert (refused.rule, refused.field) == (None, "test")
    assert "gdb has no 'regroup' test (tests: charging, charged, morale, rally, brigade)" in str(refused)


def test_gdb_trigger_rally_a_roll_for_a_unit_out_of_play_or_unknown_is_the_engines_to_refuse():
    table = gdb_table(french("ligne"), allied("kaiser_chevaulegers", unit_type="cavalry", models=12))
    table.go_to(1, "french", "charge")
    routs_when_charged(table, "ligne", by="kaiser_chevaulegers")
    fact(table, "ligne", "contact_with_enemy", True)
    assert table.state("ligne") == "dispersed"
    refused = table.refuse(DiceRolled(unit="ligne", test="rally", dice=(6, 6)))
    assert (refused.field, str(refused)) == ("unit", "unit: ligne is dispersed and out of the battle")
    refused = table.refuse(DiceRolled(unit="ghost", test="rally", dice=(6, 6)))
    assert (refused.field, str(refused)) == ("unit", "unit: no unit 'ghost' in this battle")


def test_gdb_note_no_rally_near_enemy_no_attempt_within_charge_range_and_the_roll_is_refused():
    table = gdb_table(french("ligne"), allied("kaiser_chevaulegers", unit_type="cavalry", models=12))
    retreating(table)
    fact(table, "ligne", "enemy_in_charge_range", True)
    caused = table.go_to(1, "french", "morale")
    assert due(table) == []
    assert ("ligne", "rally", "gdb.note.no_rally_near_enemy") in not_taken(caused)
    refused = table.refuse(DiceRolled(unit="ligne", test="rally", dice=(6, 5)))
    assert refused.rule == "gdb.note.no_rally_near_enemy"
    table.go_to(2, "french", "movement")
    fact(table, "ligne", "enemy_in_charge_range", False)
    table.go_to(2, "french", "morale")
    assert due(table) == [("ligne", "rally", "gdb.trigger.rally")]


def test_gdb_note_no_rally_near_enemy_does_not_use_up_a_routing_units_one_attempt():
    table = gdb_table(french("ligne"), allied("kaiser_chevaulegers", unit_type="cavalry", models=12))
    table.go_to(1, "french", "charge")
    routs_when_charged(table, "ligne", by="kaiser_chevaulegers")
    fact(table, "ligne", "in_melee", True)  # in melee: no rally either
    table.go_to(1, "french", "morale")
    assert due(table) == []
    table.go_to(2, "french", "movement")
    fact(table, "ligne", "in_melee", False)
    table.go_to(2, "french", "morale")
    assert due(table) == [("ligne", "rally", "gdb.trigger.rally")]


# -- melee ----------------------------------------------------------------------------------------
def test_gdb_note_melee_a_unit_in_melee_takes_no_morale_phase_test():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 4)
    fact(table, "ligne", "in_melee", True)
    caused = table.go_to(1, "french", "morale")
    assert due(table) == [] and ("ligne", "morale", "gdb.note.melee") in not_taken(caused)


def test_gdb_note_melee_the_melee_result_stands_for_the_test():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "melee")
    table.casualties("ligne", 4, cause="melee")
    caused = fact(table, "ligne", "melee_result", "retreat")
    assert table.state("ligne") == "falling_back"
    assert any(isinstance(o, out.StateChanged) and o.rule == "gdb.result.retreat" for o in caused)
    caused = table.go_to(1, "french", "morale")
    assert due(table) == [] and ("ligne", "rally", "gdb.note.melee") in not_taken(caused)  # nor rallies
    table.go_to(2, "french", "morale")
    assert due(table) == [("ligne", "rally", "gdb.trigger.rally")]  # a new turn: out of that melee


def test_gdb_note_melee_results_are_recorded_in_the_melee_phase():
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "shooting")
    refused = table.refuse(TableFactRecorded(unit="ligne", fact="melee_result", value="rout"))
    assert refused.rule == "gdb.note.melee"
    table.go_to(1, "french", "melee")
    assert table.refuse(TableFactRecorded(unit="ligne", fact="melee_result", value="panic")).field == "value"


@pytest.mark.parametrize("phase", ["movement", "charge", "shooting", "morale"])
def test_gdb_note_melee_no_melee_result_outside_the_melee_phase(phase):
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", phase)
    refused = table.refuse(TableFactRecorded(unit="ligne", fact="melee_result", value="halt"))
    assert refused.rule == "gdb.note.melee" and "melee results are recorded in the Melee phase" in str(refused)
