"""The `morale` command with a 40K 3rd edition battle: facts with values, tests the table settles
without dice, and refusals that name the rule and write nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import morale

from morale.events.store import SqliteEventStore

ROSTER = Path(__file__).resolve().parent.parent / "examples" / "wh40k3" / "roster.toml"
BATTLE = "vorns-ridge"
pytestmark = pytest.mark.battle(ROSTER)  # `db`: its battle, made by `morale new`


def append(db: Path, *args: str):
    return morale(db, "append", BATTLE, *args)


def log_length(db: Path) -> int:
    return SqliteEventStore(db).last_seq(BATTLE)


def test_a_tank_shock_is_recorded_with_the_tank_that_reached_the_unit(db):
    assert morale(db, "next-phase", BATTLE).exit_code == 0  # turn 1, imperium, movement

    shocked = append(db, "table_fact_recorded", "unit=wyches", "fact=tank_shocked", "value=russ")

    assert shocked.exit_code == 0 and "[wh40k3.trigger.tank_shock: Tank shock]" in shocked.stdout
    due = json.loads(morale(db, "due", BATTLE, "--json").stdout)
    assert [(d["unit"], d["test"], d["target"]) for d in due] == [("wyches", "morale", 8)]


def test_the_distance_in_the_corridor_is_a_number_and_shows_on_the_due_list(db):
    assert morale(db, "next-phase", BATTLE).exit_code == 0
    append(db, "table_fact_recorded", "unit=wyches", "fact=tank_shocked", "value=russ")
    morale(db, "roll", BATTLE, "wyches", "morale", "6", "6")

    stated = append(db, "table_fact_recorded", "unit=wyches", "fact=enemy_in_corridor", "value=4.5")

    assert stated.exit_code == 0
    [due] = json.loads(morale(db, "due", BATTLE, "--json").stdout)
    assert (due["test"], due["stated"]) == ("fall_back", {"enemy_in_corridor": 4.5})
    rolled = morale(db, "roll", BATTLE, "wyches", "fall_back", "3", "2")
    assert "[wh40k3.crossfire: " in rolled.stdout  # 5 inches reach the enemy 4.5 inches away


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        (("unit=wyches", "fact=tank_shocked", "value=guard"), "value"),  # not a tank
        (("unit=wyches", "fact=reached_cover"), "wh40k3.regroup.cover"),  # not Falling Back
        (("unit=wyches", "fact=enemy_in_corridor", "value=4"), "wh40k3.crossfire"),  # no Fall Back roll due
        (("unit=wyches", "fact=enemy_within_6_inches"), "wh40k3.regroup.when"),  # no Regroup waiting
        (("unit=wyches", "fact=trapped"), "fact"),  # a 6th edition fact
    ],
)
def test_refused_facts_exit_2_name_the_rule_or_field_and_write_nothing(db, fields, named):
    assert morale(db, "next-phase", BATTLE).exit_code == 0
    before = log_length(db)

    refused = append(db, "table_fact_recorded", *fields)

    assert refused.exit_code == 2 and f"{named}:" in refused.stderr
    assert log_length(db) == before


def test_a_test_the_table_settles_takes_no_dice_even_from_the_engine(tmp_path):
    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER.read_text().replace('dice = "table"', 'dice = "either"'))
    db = tmp_path / "battles.db"
    assert morale(db, "new", str(roster)).exit_code == 0
    for _ in range(9):  # to the end of the imperium's turn 1, then the dark eldar movement and shooting
        morale(db, "next-phase", BATTLE)
    append(db, "casualties_suffered", "unit=marines", "count=2")
    morale(db, "next-phase", BATTLE)
    morale(db, "roll", BATTLE, "marines", "morale", "6", "6")
    morale(db, "roll", BATTLE, "marines", "fall_back", "2", "2")
    before = log_length(db)

    refused = morale(db, "roll", BATTLE, "marines", "regroup")

    assert refused.exit_code == 2 and "regroup_conditions_met" in refused.stderr
    assert log_length(db) == before
    settled = append(db, "table_fact_recorded", "unit=marines", "fact=regroup_conditions_met")
    assert settled.exit_code == 0 and "Regroups at the end of its Fall Back move" in settled.stdout
