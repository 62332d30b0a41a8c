"""gdb.trigger.* and gdb.note.*: the edges of when a unit tests, found unpinned by the mutation pass
of `gdb/triggers.py` (MUTATION.md): thresholds past their exact figures, which trigger a unit with
several tests it, and what the excuses cite."""

from __future__ import annotations

import pytest
from support.gdb import allied, charge, due, fact, french, gdb_table, not_taken, roll

from morale.core import outcomes as out


@pytest.mark.parametrize(("in_charge", "in_shooting", "excused"), [(4, 0, True), (3, 4, False)])
def test_gdb_note_charge_fire_three_or_more_in_the_charge_phase_and_fewer_than_three_shot(
    in_charge, in_shooting, excused
):
    """4 figures lost to closing fire is 3 or more: no second test for losses; 4 more shot in the
    Shooting phase is not fewer than 3: the unit tests for its losses."""
    table = gdb_table(french("ligne", models=24), allied("ir4"))
    table.go_to(1, "french", "charge")
    table.casualties("ligne", in_charge, cause="closing fire")
    table.go_to(1, "french", "shooting")
    if in_shooting:
        table.casualties("ligne", in_shooting)
    caused = table.go_to(1, "french", "morale")
    assert due(table) == ([] if excused else [("ligne", "morale", "gdb.trigger.losses")])
    assert (("ligne", "morale", "gdb.note.charge_fire") in not_taken(caused)) is excused


def test_gdb_trigger_dispersal_point_more_than_half_its_figures_lost():
    """11 of 20 lost is more than half: the unit is past its dispersal point and tests."""
    table = gdb_table(french("ligne", models=9, full_strength=20), allied("ir4"))
    table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "morale", "gdb.trigger.dispersal_point")]


def half_lost_this_turn(table) -> tuple[int, int]:
    """ligne (13 of 20) loses 3 more to shooting: 3 figures this turn, and half its strength. Returns
    the casualties' event and the Morale phase's start."""
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    shot = table.fold.seq
    table.go_to(1, "french", "morale")
    return shot, table.fold.seq


def test_gdb_trigger_losses_a_unit_with_two_triggers_takes_one_test_under_the_first_citing_both():
    """Losses come before the dispersal point in the triggers' order: the one test is the losses'
    (gdb.trigger.losses), and it cites both the casualties and the phase that found it at its
    dispersal point (gdb.trigger.dispersal_point)."""
    table = gdb_table(french("ligne", models=13, full_strength=20), allied("ir4"))
    shot, started = half_lost_this_turn(table)
    assert due(table) == [("ligne", "morale", "gdb.trigger.losses")]
    assert table.battle.due[0].caused_by == (shot, started)


def test_gdb_note_melee_in_melee_the_first_trigger_is_the_test_not_taken_citing_its_own_causes():
    """The same unit, in melee: the melee result stands for its test. What it does not take is the
    losses' test (the first trigger), citing the casualties that called it."""
    table = gdb_table(french("ligne", models=13, full_strength=20), allied("ir4"))
    table.go_to(1, "french", "shooting")
    fact(table, "ligne", "in_melee", True)
    table.casualties("ligne", 3)
    shot = table.fold.seq
    caused = table.go_to(1, "french", "morale")
    assert due(table) == []
    (excused,) = [o for o in caused if isinstance(o, out.TestNotTaken)]
    assert (excused.test, excused.trigger, excused.rule) == ("morale", "gdb.trigger.losses", "gdb.note.melee")
    assert excused.caused_by == (shot,)


def test_gdb_trigger_rally_a_rally_test_cites_the_morale_phase_that_calls_it_and_excuses_nothing():
    """A retreating unit's rally attempt falls due as the Morale phase starts, citing that event;
    neither it nor the steady unit beside it is told of a test it does not take."""
    table = gdb_table(french("ligne"), french("legere"), allied("uhlans", unit_type="cavalry", models=12))
    table.go_to(1, "french", "charge")
    charge(table, "uhlans", "ligne")
    roll(table, "uhlans", "charging", 6, 5)
    roll(table, "ligne", "charged", 1, 2)  # 3 + 1 (no losses) - 2 (cavalry) = 2: Retreat
    assert table.state("ligne") == "falling_back"
    caused = table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "rally", "gdb.trigger.rally")]
    assert table.battle.due[0].caused_by == (table.fold.seq,)
    assert not_taken(caused) == []


def test_gdb_note_rally_attempt_a_steady_unit_testing_for_losses_is_excused_no_rally():
    """A unit in good order never attempts to rally, so it is not told it does not."""
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    caused = table.go_to(1, "french", "morale")
    assert due(table) == [("ligne", "morale", "gdb.trigger.losses")]
    assert not_taken(caused) == []


def test_gdb_note_same_router_the_one_excuse_is_the_test_for_last_turns_router():
    """ligne routs in turn 1's Charge phase and legere tests for it; in turn 1's Morale phase ligne,
    unable to rally, routs again from its Morale test. In turn 2 legere is excused the test for the
    same routing friend (gdb.trigger.friend_routing_prev), citing the result that made it rout; the
    only other excuse is ligne's rally, barred with the enemy in charge range."""
    table = gdb_table(french("ligne"), french("legere"), allied("kaiser_chevaulegers", unit_type="cavalry", models=12))
    fact(table, "legere", "within_15cm", "ligne")
    table.go_to(1, "french", "charge")
    charge(table, "kaiser_chevaulegers", "ligne")
    roll(table, "kaiser_chevaulegers", "charging", 6, 5)
    roll(table, "ligne", "charged", 1, 1)  # 2 + 1 (no losses) - 2 (cavalry) = 1: Rout
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    fact(table, "ligne", "enemy_in_charge_range", True)
    table.go_to(1, "french", "morale")
    roll(table, "ligne", "morale", 1, 1)  # Rout again
    routed_again = table.fold.seq
    roll(table, "legere", "morale", 4, 4)
    caused = table.go_to(2, "french", "morale")
    assert due(table) == []
    excused = [o for o in caused if isinstance(o, out.TestNotTaken)]
    assert [(o.unit, o.test, o.trigger, o.rule) for o in excused] == [
        ("ligne", "rally", "gdb.trigger.rally", "gdb.note.no_rally_near_enemy"),
        ("legere", "morale", "gdb.trigger.friend_routing_prev", "gdb.note.same_router"),
    ]
    assert excused[1].caused_by == (routed_again,)
