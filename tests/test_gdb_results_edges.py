"""gdb.result.*, gdb.retreat.*, gdb.rout.*: the edges of what each result does, found unpinned by the
mutation pass of `gdb/results.py` (MUTATION.md): a result read by a unit in each state, a melee
result read as itself only, and the thresholds taken at their exact figures."""

from __future__ import annotations

import pytest
from support.gdb import allied, charge, fact, french, gdb_table, gdb_unit, profile, resolved, restrictions, roll

from morale.core import outcomes as out
from morale.core.outcomes import Outcome
from morale.events.types import RefereeRuled
from morale.projections.board import board


def cavalry(unit_id: str = "chevaulegers", **profile_):
    return gdb_unit(unit_id, "allies", unit_type="cavalry", models=12, brigade="second", **profile_)


def state_changes(outcomes: list[Outcome]) -> list[tuple[str, str, str]]:
    return [(o.unit, o.to_state, o.rule) for o in outcomes if isinstance(o, out.StateChanged)]


def charged_by_cavalry(table, unit: str, *dice: int, flank: bool = False) -> list[Outcome]:
    """The chevaulegers charge `unit` in turn 1 (11: Charge) and it rolls its charged test."""
    table.go_to(1, "french", "charge")
    charge(table, "chevaulegers", unit, flank=(unit,) if flank else ())
    roll(table, "chevaulegers", "charging", 6, 5)
    return roll(table, unit, "charged", *dice)


def board_restrictions(table, unit: str) -> list[tuple[str, str]]:
    row = next(r for r in board(table.battle).units if r.unit == unit)
    return [(r.text, r.rule) for r in row.restrictions]


# -- a regrouped unit is in good order: Halt and Carry on bind it --------------------------------------
@pytest.mark.parametrize(
    ("dice", "result", "bound"),
    [((4, 3), "halt", ["halted"]), ((5, 4), "carry_on", ["no_melee"])],
)
def test_gdb_result_halt_and_carry_on_bind_a_regrouped_unit_as_a_steady_one(dice, result, bound):
    """ligne retreats in turn 1 and the referee rules it rallied (regrouped, still unformed) in turn
    2's Movement phase. It loses 3 figures to shooting and tests in the Morale phase: 2D6 - 1 (15%
    lost) - 1 (unformed). A rallied unit is in good order again, so Halt halts it and Carry out orders
    bars it from starting a melee, as for a steady unit."""
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", 1, 2)  # 3 + 1 (no losses) - 2 (cavalry) = 2: Retreat
    fact(table, "ligne", "enemy_in_charge_range", True)  # no rally in turn 1
    table.go_to(2, "french", "movement")
    table.record(RefereeRuled(unit="ligne", state="regrouped", reason="it stopped behind the wood"))
    fact(table, "ligne", "enemy_in_charge_range", False)
    table.go_to(2, "french", "shooting")
    table.casualties("ligne", 3)
    table.go_to(2, "french", "morale")
    assert table.state("ligne") == "regrouped"
    test = resolved(roll(table, "ligne", "morale", *dice))
    assert (test.result, test.total) == (result, sum(dice) - 2)
    assert restrictions(table, "ligne") == bound
    assert f"gdb.result.{result}" in [rule for _, rule in board_restrictions(table, "ligne")]


# -- a melee result is read as itself -----------------------------------------------------------------
@pytest.mark.parametrize(("result", "bound"), [("halt", ["halted"]), ("carry_on", ["no_melee"])])
def test_gdb_result_halt_a_melee_result_does_only_what_it_says(result, bound):
    """A melee result of Halt halts the unit; it does not also carry out the results the table lists
    before it (Carry out orders' no-melee restriction)."""
    table = gdb_table(french("ligne"), allied("ir4"))
    table.go_to(1, "french", "melee")
    caused = fact(table, "ligne", "melee_result", result)
    assert table.state("ligne") == "steady"
    assert restrictions(table, "ligne") == bound
    assert [o.rule for o in caused if isinstance(o, out.RestrictionApplied)] == [f"gdb.result.{result}"]


# -- a unit in worse order than Waver ------------------------------------------------------------------
@pytest.mark.parametrize(("charged_dice", "state"), [((1, 2), "falling_back"), ((1, 1), "broken")])
def test_gdb_result_waver_a_retreating_or_routing_unit_that_reads_waver_is_not_made_to_waver(charged_dice, state):
    """A retreating (or routing) unit with the enemy in charge range cannot rally; it tests for the 3
    figures it lost to shooting and reads Waver. A result only ever makes a unit worse: it goes on
    retreating (or routing), with no restriction of a wavering unit."""
    table = gdb_table(french("ligne"), cavalry())
    charged_by_cavalry(table, "ligne", *charged_dice)
    assert table.state("ligne") == state
    fact(table, "ligne", "enemy_in_charge_range", True)
    table.go_to(1, "french", "shooting")
    table.casualties("ligne", 3)
    table.go_to(1, "french", "morale")
    # 6 - 1 (losses) - 1 (retreating), or 7 - 1 (losses) - 2 (routing): 4, Waver
    dice = (3, 3) if state == "falling_back" else (3, 4)
    caused = roll(table, "ligne", "morale", *dice)
    assert resolved(caused).result == "waver"
    assert state_changes(caused) == [] and table.state("ligne") == state
    assert "may_not_reform" not in restrictions(table, "ligne")


# -- gdb.retreat.buildings: infantry led out only when the charge makes it retreat -----------------------
@pytest.mark.parametrize(("dice", "result"), [((4, 4), "carry_on"), ((1, 1), "waver")])
def test_gdb_retreat_buildings_infantry_charged_in_a_building_that_does_not_retreat_stays_in_it(dice, result):
    """Line infantry in a church charged by cavalry: 2D6 + 1 (no losses) + 3 (church) - 2 (cavalry).
    Carrying out orders or wavering, it stays in the church; only a retreat leads it out."""
    table = gdb_table(french("ligne", location="church"), cavalry())
    caused = charged_by_cavalry(table, "ligne", *dice)
    assert resolved(caused).result == result
    assert profile(table, "ligne")["location"] == "church"
    assert "gdb.retreat.buildings" not in {o.rule for o in caused}


def test_gdb_retreat_buildings_a_battery_in_a_building_retreating_when_charged_is_not_led_out():
    """A foot battery in a building, charged in the flank by cavalry, reads Retreat (6 + 1 (no losses)
    + 2 (building) - 2 (artillery charged) - 4 (flank) = 3) and is dispersed with its guns
    (gdb.retreat.artillery); the building clause, for infantry, says nothing of it."""
    table = gdb_table(french("battery", unit_type="foot_artillery", models=4, location="building"), cavalry())
    caused = charged_by_cavalry(table, "battery", 3, 3, flank=True)
    assert resolved(caused).result == "retreat"
    assert state_changes(caused) == [
        ("battery", "falling_back", "gdb.result.retreat"),
        ("battery", "dispersed", "gdb.retreat.artillery"),
    ]
    assert "gdb.retreat.buildings" not in {o.rule for o in caused}
    assert profile(table, "battery")["location"] == "building"


# -- gdb.rout.heavy_losses and gdb.rout.artillery -----------------------------------------------------
def test_gdb_rout_heavy_losses_6_of_17_is_more_than_35_percent():
    """35% of 17 figures is 5.95: a unit of 17 that has lost 6 has lost more than 35%, and is dispersed
    at once when it routs."""
    table = gdb_table(french("ligne", models=11, full_strength=17), cavalry())
    caused = charged_by_cavalry(table, "ligne", 1, 1)
    assert resolved(caused).result == "rout"
    assert state_changes(caused) == [
        ("ligne", "broken", "gdb.result.rout"),
        ("ligne", "dispersed", "gdb.rout.heavy_losses"),
    ]


def test_gdb_rout_heavy_losses_a_battery_dispersed_by_its_losses_is_not_dispersed_again_by_gdb_rout_artillery():
    """A horse battery that has lost 2 of its 4 guns routs when charged: it is dispersed for its
    losses, once; gdb.rout.artillery has no routing battery left to act on."""
    table = gdb_table(french("battery", unit_type="horse_artillery", models=2, full_strength=4), cavalry())
    caused = charged_by_cavalry(table, "battery", 1, 1)
    assert resolved(caused).result == "rout"
    assert state_changes(caused) == [
        ("battery", "broken", "gdb.result.rout"),
        ("battery", "dispersed", "gdb.rout.heavy_losses"),
    ]
    assert [o.marker for o in caused if isinstance(o, out.MarkerPlaced)] == ["dispersal_point"]
