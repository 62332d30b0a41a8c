"""General de Brigade's game turn (its phases are data) and the unit profile, checked as it arrives."""

from __future__ import annotations

import pytest
from support.gdb import change, fact, gdb_table, gdb_unit, near, not_taken, roll
from support.table import combat

from morale.core.referee import next_phase
from morale.core.rulesets.gdb.profile import PHASES, formation
from morale.events.types import PhaseStarted, TableFactRecorded, UnitChanged, UnitJoined
from morale.projections.board import board
from morale.projections.vocabulary import vocabulary_of


def test_a_game_turn_is_movement_charge_shooting_melee_morale_for_both_sides():
    assert PHASES == ("movement", "charge", "shooting", "melee", "morale")
    table = gdb_table(gdb_unit("ligne"), gdb_unit("ir4", "allies"))
    seen = []
    while table.battle.turn < 2 or table.battle.phase != "charge":
        table.start_next_phase()
        seen.append((table.battle.turn, table.battle.active_side, table.battle.phase))
    assert seen == [(1, "french", p) for p in PHASES] + [(2, "french", "movement"), (2, "french", "charge")]
    assert next_phase(table.battle) == (2, "french", "shooting")


def test_the_clock_refuses_a_second_sides_turn():
    table = gdb_table(gdb_unit("ligne"), gdb_unit("ir4", "allies"))
    table.go_to(1, "french", "morale")
    table.end_phase()
    assert table.refuse(PhaseStarted(turn=1, side="allies", phase="movement")).rule == "engine.clock.order"


def test_a_profile_gets_its_defaults_and_a_formation_from_its_type():
    table = gdb_table(gdb_unit("battery", unit_type="foot_artillery", models=4), gdb_unit("ir4", "allies"))
    assert table.unit("battery").profile == {
        "quality": "line",
        "full_strength": 0,
        "brigade": "first",
        "formation": None,
        "formed": True,
        "location": "open",
        "commander": "none",
    }
    assert formation(table.unit("battery")) == "unlimbered"


@pytest.mark.parametrize(
    ("joined", "named"),
    [
        (gdb_unit("x", quality="legendary"), "profile.quality"),
        (gdb_unit("x", formation="phalanx"), "profile.formation"),
        (gdb_unit("x", unit_type="cavalry", formation="mass"), "gdb.mod.charged.flank"),
        (gdb_unit("x", unit_type="skirmishers", formation="line"), "profile.formation"),
        (gdb_unit("x", models=20, full_strength=18), "profile.full_strength"),
        (gdb_unit("x", full_strength=-1), "profile.full_strength"),
        (gdb_unit("x", brigade="b" * 65), "profile.brigade"),
        (gdb_unit("x", colour="blue"), "profile"),
        (gdb_unit("x", tags=("prussian",)), "special_rules"),
        (gdb_unit("x", unit_type="dragoons"), "unit_type"),
        (UnitJoined(unit="x", side="french", name="X", unit_type="infantry", models=20, ld=8), "ld"),
    ],
)
def test_a_bad_profile_is_refused_naming_the_field_or_rule(joined, named):
    table = gdb_table(gdb_unit("ligne"), gdb_unit("ir4", "allies"))
    refused = table.refuse(joined)
    assert named in (refused.rule or "") + (refused.field or "") + refused.message


def test_the_profiles_bounds_admit_zero_strength_and_a_64_character_brigade():
    """full_strength 0 means "as many as it joined with"; a brigade's name may use all 64 characters."""
    table = gdb_table(gdb_unit("ligne", models=20, full_strength=0, brigade="b" * 64), gdb_unit("ir4", "allies"))
    assert (table.unit("ligne").profile["full_strength"], len(table.unit("ligne").profile["brigade"])) == (0, 64)


def test_formation_location_formed_and_commander_change_as_events_the_rest_is_fixed():
    table = gdb_table(gdb_unit("ligne"), gdb_unit("ir4", "allies"))
    change(table, "ligne", formation="column", location="building", commander="commander_in_chief", formed=False)
    assert {k: table.unit("ligne").profile[k] for k in ("formation", "location", "commander", "formed")} == {
        "formation": "column",
        "location": "building",
        "commander": "commander_in_chief",
        "formed": False,
    }
    for fixed in ({"quality": "guard"}, {"brigade": "other"}, {"full_strength": 30}):
        assert table.refuse(UnitChanged(unit="ligne", changes=fixed)).field == "changes"


def test_facts_name_another_unit_and_bools_are_bools():
    table = gdb_table(gdb_unit("ligne"), gdb_unit("ir4", "allies"))
    assert table.refuse(TableFactRecorded(unit="ligne", fact="within_15cm", value="nobody")).field == "value"
    assert table.refuse(TableFactRecorded(unit="ligne", fact="within_15cm", value="ligne")).field == "value"
    assert table.refuse(TableFactRecorded(unit="ligne", fact="in_melee", value="yes")).field == "value"
    assert table.refuse(TableFactRecorded(unit="ligne", fact="morale_high")).field == "fact"


def test_gdb_rout_skirmishers_a_skirmisher_dispersing_by_its_brigade_brings_no_brigade_test():
    table = gdb_table(
        gdb_unit("voltigeurs", unit_type="skirmishers", models=8), gdb_unit("ligne"), gdb_unit("ir4", "allies")
    )
    near(table, "voltigeurs", "ligne")
    table.go_to(1, "french", "shooting")
    table.casualties("voltigeurs", 3)
    table.go_to(1, "french", "morale")
    caused = roll(table, "voltigeurs", "morale", 1, 1)  # 2 - 3 = -1: Rout, more than 35% lost: dispersed
    assert table.state("voltigeurs") == "dispersed" and table.battle.due == []
    assert ("voltigeurs", "brigade", "gdb.rout.skirmishers") in not_taken(caused)
    fact(table, "ligne", "within_15cm", "ir4")  # the phase's tests are done: the table may change again


def test_the_board_shows_formation_formed_location_and_commander():
    table = gdb_table(
        gdb_unit("ligne", formation="column", location="church", commander="brigade"),
        gdb_unit("ir4", "allies", formed=False),
    )
    rows = {r.unit: r.profile for r in board(table.battle).units}
    assert rows == {"ligne": "column, formed, in a church, brigade attached", "ir4": "line, unformed"}


@pytest.mark.parametrize(
    ("location", "words"),
    [
        ("open", "line, formed"),
        ("building", "line, formed, in a building"),
        ("redoubt", "line, formed, in a redoubt"),
        ("castle", "line, formed, in a castle"),
        ("church", "line, formed, in a church"),
    ],
)
def test_gdb_mod_cover_the_board_says_which_built_up_area_a_unit_defends(location, words):
    table = gdb_table(gdb_unit("ligne", location=location))
    (row,) = board(table.battle).units
    assert row.profile == words


def test_gdb_note_melee_a_combat_report_is_refused_and_the_console_offers_no_form_for_one():
    """Melees are read unit by unit (melee_result): the vocabulary the console builds its forms from
    says so, and a combat_resolved is refused."""
    assert vocabulary_of("gdb", "1").combat_reports is False
    table = gdb_table(gdb_unit("ligne"), gdb_unit("ir4", "allies"))
    table.go_to(1, "french", "melee")
    refused = table.refuse(combat(("french", "ligne", 2), ("allies", "ir4", 1)))
    assert refused.field == "type" and "record each unit's melee_result fact" in str(refused)
