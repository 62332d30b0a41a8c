"""gdb.mod.*: modifiers pinned where a mutation pass of gdb/modifiers.py found them unpinned
(MUTATION.md, "`gdb/ruleset.py`, `gdb/modifiers.py` and the rest of `gdb/`").

Each test reads what the due list shows of a test's modifiers (rule, value, reason) or what the
referee refuses, for a case the other gdb tests leave open.
"""

from __future__ import annotations

import pytest
from support.gdb import charge, due_modifiers, gdb_table, gdb_unit, roll

from morale.core.outcomes import Modifier
from morale.events.types import UnitJoined


def french(unit_id: str = "fusiliers", **profile) -> UnitJoined:
    return gdb_unit(unit_id, **profile)


def allied(unit_id: str = "whitecoats", **profile) -> UnitJoined:
    return gdb_unit(unit_id, "allies", **{"brigade": "second", **profile})


def charging_test_of(*units: UnitJoined, charger: str = "fusiliers", target: str = "whitecoats"):
    """The charger's test, due: the due list shows its modifiers."""
    table = gdb_table(*units)
    table.go_to(1, "french", "charge")
    charge(table, charger, target)
    return table


def charged_test_of(*units: UnitJoined, charger: str = "whitecoats", target: str = "fusiliers"):
    """The target's test, due once the charger passed with a Charge result (6 + 5)."""
    table = charging_test_of(*units, charger=charger, target=target)
    roll(table, charger, "charging", 6, 5)
    return table


def shown(table, unit: str, rule_id: str) -> Modifier | None:
    """The modifier `rule_id` as the due list shows it for `unit`'s test (None: not there)."""
    (due,) = [d for d in table.battle.due if d.unit == unit]
    found = [m for m in due.modifiers if m.rule == rule_id]
    return found[0] if found else None


# -- gdb.mod.commander -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("commander", "reason"),
    [("brigade", "brigade commander attached"), ("commander_in_chief", "Commander-in-Chief attached")],
)
def test_gdb_mod_commander_says_who_is_attached(commander, reason):
    """gdb.mod.commander: +1 for the Commander-in-Chief or a brigade commander, and the due list says
    which of them is with the unit."""
    table = charging_test_of(french(commander=commander), allied())
    mod = shown(table, "fusiliers", "gdb.mod.commander")
    assert mod is not None and (mod.value, str(mod.reason)) == (1, reason)


# -- gdb.mod.losses ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("full", "lost", "value", "reason"),
    [
        (99, 10, -1, "10 of 99 figures lost: more than 10%"),
        (99, 25, -2, "25 of 99 figures lost: more than 25%"),
        (200, 71, -3, "71 of 200 figures lost: more than 35%"),
    ],
)
def test_gdb_mod_losses_a_hair_over_the_step_counts_as_more_than_it(full, lost, value, reason):
    """gdb.mod.losses: 10 of 99 lost is 10.1% (more than 10%), 25 of 99 25.25% (more than 25%), 71
    of 200 35.5% (more than 35%): each counts for its step, however small the excess."""
    table = charging_test_of(french(models=full - lost, full_strength=full), allied())
    mod = shown(table, "fusiliers", "gdb.mod.losses")
    assert mod is not None and (mod.value, str(mod.reason)) == (value, reason)


# -- gdb.mod.charged.line ---------------------------------------------------------------------------
def test_gdb_mod_charged_line_skirmishers_charging_infantry_in_line_are_not_infantry():
    """gdb.mod.charged.line: -1 for infantry in line charged by infantry battalions; a skirmisher
    company is a type of its own, and its charge brings no such modifier."""
    table = charged_test_of(french(formation="line"), allied(unit_type="skirmishers", models=8))
    assert "gdb.mod.charged.line" not in due_modifiers(table, "fusiliers")


@pytest.mark.parametrize("shape", ["mass", "skirmish_order", "square"])
def test_gdb_mod_charged_line_only_infantry_in_line(shape):
    """gdb.mod.charged.line: -1 for infantry in line charged by infantry, and not in any other
    formation (column has gdb.mod.charged.column)."""
    table = charged_test_of(french(formation=shape), allied())
    assert "gdb.mod.charged.line" not in due_modifiers(table, "fusiliers")


# -- gdb.mod.charged.column -------------------------------------------------------------------------
def test_gdb_mod_charged_column_skirmishers_charging_infantry_in_column_are_not_infantry():
    """gdb.mod.charged.column: -2 for infantry in column charged by infantry battalions; a skirmisher
    company's charge brings no such modifier."""
    table = charged_test_of(french(formation="column"), allied(unit_type="skirmishers", models=8))
    assert "gdb.mod.charged.column" not in due_modifiers(table, "fusiliers")


def test_gdb_mod_charged_column_is_for_infantry_not_cavalry_in_column():
    """gdb.mod.charged.column is for infantry: cavalry in column charged by infantry takes none."""
    table = charged_test_of(french(unit_type="cavalry", formation="column", models=8), allied())
    assert "gdb.mod.charged.column" not in due_modifiers(table, "fusiliers")


# -- gdb.mod.charged.artillery ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("charger_type", "reason"),
    [("infantry", "artillery charged by infantry"), ("cavalry", "artillery charged by cavalry")],
)
def test_gdb_mod_charged_artillery_says_who_charged_it(charger_type, reason):
    """gdb.mod.charged.artillery: the due list says whether infantry or cavalry charged the battery."""
    table = charged_test_of(french(unit_type="foot_artillery", models=4), allied(unit_type=charger_type))
    mod = shown(table, "fusiliers", "gdb.mod.charged.artillery")
    assert mod is not None and (mod.value, str(mod.reason)) == (-2, reason)


# -- gdb.mod.charged.flank --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "tags"),
    [
        ("line", ("austrian",)),
        ("column", ("austrian",)),
        ("skirmish_order", ("austrian",)),
        ("square", ("austrian",)),
        ("mass", ()),
    ],
)
def test_gdb_mod_charged_flank_only_austrian_infantry_in_mass_is_spared_it_by_cavalry(shape, tags):
    """gdb.mod.charged.flank: -4 for a charge in the flank; only Austrian infantry in mass is spared
    it against cavalry: not Austrian infantry in another formation, nor other infantry in mass."""
    table = gdb_table(allied("ir4", formation=shape, tags=tags), gdb_unit("cuirassiers", unit_type="cavalry"))
    table.go_to(1, "french", "charge")
    charge(table, "cuirassiers", "ir4", flank=("ir4",))
    roll(table, "cuirassiers", "charging", 6, 5)
    assert due_modifiers(table, "ir4")["gdb.mod.charged.flank"] == -4


# -- the profile's full strength (gdb.mod.losses reads it) ------------------------------------------
def test_gdb_mod_losses_a_unit_may_join_at_exactly_its_full_strength():
    """gdb.mod.losses counts from full strength: a unit joining with all its figures (20 of 20) is
    accepted, with no losses; one joining with more than its full strength is refused."""
    table = gdb_table(french(models=20, full_strength=20), allied())
    assert table.unit("fusiliers").models == 20
    table.go_to(1, "french", "charge")
    charge(table, "fusiliers", "whitecoats")
    assert due_modifiers(table, "fusiliers") == {"gdb.mod.no_losses": 1}
    assert table.refuse(french("ligne", models=21, full_strength=20)).field == "profile.full_strength"


def test_gdb_mod_charged_flank_skirmishers_cannot_form_a_mass():
    """gdb.mod.charged.flank names the mass, which only infantry forms: skirmishers in mass are
    refused with that rule, as cavalry are."""
    table = gdb_table(french(), allied())
    for unit_type in ("skirmishers", "cavalry"):
        refused = table.refuse(gdb_unit("x", unit_type=unit_type, models=8, formation="mass"))
        assert str(refused) == f"gdb.mod.charged.flank: only infantry forms a mass, not {unit_type}"
