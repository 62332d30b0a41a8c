"""gdb.results_table, gdb.brigade.test, gdb.mod.losses: what a house table or a unit's profile may say,
pinned where the `SAMPLE=0` mutation pass of `gdb/tables.py` and `gdb/profile.py` (2026-12-03) found
the refusals unpinned (MUTATION.md)."""

from __future__ import annotations

import pytest
from support.gdb import gdb_table, gdb_unit
from test_gdb_tables import GDB, _refused, battle_started, default_values

from morale.app.tables import pin, pinned_tables
from morale.core.rules import Refusal


def refused_table(name: str, values: dict) -> Refusal:
    return _refused(battle_started(**{**pinned_tables(GDB), name: pin(values, "house.toml")}))


# -- a misspelt field is refused, not dropped ------------------------------------------------------
def test_gdb_results_table_a_rows_misspelt_field_is_refused_naming_it():
    """`unit_type` for `unit_types`: dropped, the cavalry-only Charge row would give every charged
    unit a countercharge. The battle is refused naming the field and the row."""
    values = default_values()
    values["charged"][0]["unit_type"] = values["charged"][0].pop("unit_types")
    refused = refused_table("results", values)
    assert refused.field == "tables.results"
    assert "unknown field `unit_type`" in refused.message and "charged[0]" in refused.message


def test_gdb_results_table_a_misspelt_passing_is_refused_naming_it():
    """`pasing` dropped would leave the book's passing results in play without a word."""
    values = default_values()
    values["pasing"] = ["charge", "carry_on", "halt", "rally"]
    refused = refused_table("results", values)
    assert refused.field == "tables.results" and "unknown field `pasing`" in refused.message


def test_gdb_brigade_test_a_misspelt_modifier_in_the_brigade_table_is_refused_naming_it():
    """`comander = 2` dropped would give the brigade commander the default +1."""
    values = {**default_values("brigade"), "comander": 2}
    refused = refused_table("brigade", values)
    assert refused.field == "tables.brigade" and "unknown field `comander`" in refused.message


# -- a refusal names the first thing wrong ---------------------------------------------------------
def test_gdb_results_table_a_row_with_two_unknown_unit_types_is_refused_naming_the_first():
    values = default_values()
    values["charged"][0]["unit_types"] = ["elephants", "camels"]
    refused = refused_table("results", values)
    assert "unknown unit type 'elephants'" in refused.message and "camels" not in refused.message


def test_gdb_results_table_two_unknown_passing_results_are_refused_naming_the_first():
    values = {**default_values(), "passing": ["charge", "win", "draw"]}
    refused = refused_table("results", values)
    assert "passing: unknown result 'win'" in refused.message and "draw" not in refused.message


# -- gdb.mod.losses: full strength ------------------------------------------------------------------
@pytest.mark.parametrize("models", [1, 20])
def test_gdb_mod_losses_a_negative_full_strength_is_refused_as_below_zero_whatever_the_figures(models):
    """Full strength is what the losses are counted against; 0 means "as many as it joined with". A
    negative one is refused as below 0, not as fewer than the figures (which would tell the player
    -1 were wrong only for being less than the unit)."""
    table = gdb_table(gdb_unit("ligne"), gdb_unit("ir4", "allies"))
    refused = table.refuse(gdb_unit("x", models=models, full_strength=-1))
    assert ">= 0" in refused.message and "profile.full_strength" in refused.message
    assert "less than" not in refused.message
