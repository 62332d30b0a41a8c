"""gdb.test.*, gdb.results_table: the Morale Check Test reads a results table that ships as data, and a
battle pins the table it is played with so its log replays the same way forever."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec
import pytest
from support.gdb import SIDES, charge, gdb_table, gdb_unit, resolved, roll

from morale.app.roster import load_roster
from morale.app.service import load, record, start_battle
from morale.app.tables import pin, pinned_tables, read_toml
from morale.core.referee import decide
from morale.core.rules import Refusal
from morale.core.rulesets import lookup
from morale.events.codec import MalformedEvent
from morale.events.store import SqliteEventStore
from morale.events.types import BattleStarted, ChargeDeclared, DiceRolled, PhaseEnded, PhaseStarted

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = ROOT / "core" / "rulesets" / "gdb"
GDB = lookup("gdb", "1")


def a_charge(table_values: dict | None = None, **charger_profile):
    """French line infantry charges Austrian infantry: the charger's test is due."""
    tables = None
    if table_values is not None:
        tables = {**pinned_tables(GDB), "results": pin(table_values, "test")}
    table = gdb_table(
        gdb_unit("fusiliers", **charger_profile), gdb_unit("whitecoats", "allies", brigade="second"), tables=tables
    )
    table.go_to(1, "french", "charge")
    charge(table, "fusiliers", "whitecoats")
    return table


def default_values(name: str = "results") -> dict:
    return read_toml((DEFAULTS / GDB.tables[name].file).read_text(), name)


# -- gdb.test.procedure ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dice", "result"),
    [((3, 3), "charge"), ((3, 2), "halt"), ((2, 2), "halt"), ((2, 1), "waver"), ((1, 1), "retreat")],
)
def test_gdb_test_procedure_2d6_plus_modifiers_read_in_the_charging_column(dice, result):
    """No losses +1: 6+1 = 7 Charge; 5+1 = 6 Halt; 4+1 = 5 Halt; 3+1 = 4 Waver; 2+1 = 3 Retreat."""
    table = a_charge()
    test = resolved(roll(table, "fusiliers", "charging", *dice))
    assert (test.column, test.total, test.result, test.rule) == (
        "charging",
        sum(dice) + 1,
        result,
        "gdb.test.procedure",
    )
    assert test.passed is (result == "charge")
    assert [m.rule for m in test.modifiers] == ["gdb.mod.no_losses"]


def test_gdb_test_procedure_the_column_fits_the_test():
    """The same total reads differently by column: 6 is Halt when charging, Waver when charged."""
    table = a_charge()
    roll(table, "fusiliers", "charging", 4, 3)  # 8: Charge
    test = resolved(roll(table, "whitecoats", "charged", 2, 3))  # 5 +1 no losses -1 line v infantry = 5
    assert (test.column, test.total, test.result) == ("charged", 5, "waver")


# -- gdb.test.double_six --------------------------------------------------------------------------
def test_gdb_test_double_six_passes_automatically_with_the_best_result_of_its_column():
    """Recruits who lost 8 of 20 (-1 recruit, -3 losses) charge and lose 6 more on the way (-6):
    12 - 10 = 2 would Retreat; a natural double six Charges."""
    table = gdb_table(
        gdb_unit("conscripts", quality="recruit", models=12, full_strength=20),
        gdb_unit("whitecoats", "allies", brigade="second"),
    )
    table.go_to(1, "french", "charge")
    charge(table, "conscripts", "whitecoats")
    table.casualties("conscripts", 6)  # -6 lost during the charge: 12 - 1 - 3 - 6 = 2
    test = resolved(roll(table, "conscripts", "charging", 6, 6))
    assert (test.total, test.result, test.passed, test.rule) == (2, "charge", True, "gdb.test.double_six")


def test_gdb_test_double_six_reads_the_best_row_for_the_units_type():
    """Charged: 9 or more gives cavalry a countercharge, everyone else Carry out orders."""
    table = gdb_table(
        gdb_unit("hussars", unit_type="cavalry", models=12),
        gdb_unit("grenzers", "allies", brigade="second"),
        gdb_unit("uhlans", "allies", unit_type="cavalry", models=12, brigade="second"),
    )
    table.go_to(1, "french", "charge")
    charge(table, "hussars", "grenzers", "uhlans")
    roll(table, "hussars", "charging", 5, 5)
    assert resolved(roll(table, "grenzers", "charged", 6, 6)).result == "carry_on"
    assert resolved(roll(table, "uhlans", "charged", 6, 6)).result == "charge"


def test_gdb_test_double_six_is_only_a_natural_double_six():
    table = a_charge()
    test = resolved(roll(table, "fusiliers", "charging", 6, 5))
    assert test.rule == "gdb.test.procedure"


# -- gdb.results_table: data, pinned ----------------------------------------------------------------
def test_gdb_results_table_ships_the_digests_stand_in_rows():
    results = GDB.read_table("results", default_values())
    assert [(r.min, r.result) for r in results.morale] == [
        (7, "carry_on"),
        (5, "halt"),
        (4, "waver"),
        (2, "retreat"),
        (None, "rout"),
    ]
    assert [(r.min, r.result, r.unit_types) for r in results.charged[:2]] == [
        (9, "charge", ["cavalry"]),
        (7, "carry_on", []),
    ]
    assert [(r.min, r.result) for r in results.rally] == [(7, "rally"), (None, "fail")]
    brigade = GDB.read_table("brigade", default_values("brigade"))
    assert (brigade.commander, brigade.per_unit_lost) == (1, -1)
    assert [(r.min, r.result) for r in brigade.rows] == [(7, "holds"), (4, "halt"), (None, "retreat")]


def test_gdb_results_table_a_battle_may_play_with_its_own_table():
    """A house rule: charging needs 9, not 7. The same 8 now Halts."""
    values = default_values()
    values["charging"][0]["min"] = 9
    values["charging"][1]["min"] = 5
    table = a_charge(values)
    test = resolved(roll(table, "fusiliers", "charging", 4, 3))
    assert (test.total, test.result, test.passed) == (8, "halt", False)


def test_gdb_trigger_charged_not_when_a_table_of_ones_own_gives_the_charger_carry_on():
    """A house table whose charging column reads Carry out orders for 7 or more: the charger passes
    (carry_on passes by default) but may not start a melee, so its target takes no charged test.
    Only a Charge result brings the charge home."""
    values = default_values()
    values["charging"][0]["result"] = "carry_on"
    table = a_charge(values)
    test = resolved(roll(table, "fusiliers", "charging", 4, 3))
    assert (test.total, test.result, test.passed) == (8, "carry_on", True)
    assert table.battle.due == [] and table.unit("fusiliers").restricted("no_melee")


def test_gdb_results_table_passing_results_are_data_too():
    values = {**default_values(), "passing": ["charge", "carry_on", "halt", "rally"]}
    table = a_charge(values)
    assert resolved(roll(table, "fusiliers", "charging", 2, 2)).passed is True  # 5: Halt, passes here


def test_gdb_results_table_is_pinned_by_value_and_hash_in_battle_started():
    started = next(e for e in a_charge().events if isinstance(e, BattleStarted))
    assert set(started.tables) == {"results", "brigade"}
    pinned = started.tables["results"]
    assert pinned.values == default_values() and pinned.source == "default: gdb_results.toml"
    assert len(pinned.sha256) == 64


def battle_started(**tables) -> BattleStarted:
    return BattleStarted(ruleset="gdb", ruleset_version="1", sides=tuple(SIDES), tables=tables)


def test_gdb_results_table_a_battle_without_its_tables_is_refused():
    refused = _refused(battle_started(results=pinned_tables(GDB)["results"]))
    assert refused.field == "tables" and "brigade" in refused.message


def test_gdb_results_table_values_that_do_not_match_their_hash_are_refused():
    tables = pinned_tables(GDB)
    forged = msgspec.structs.replace(tables["results"], values={**tables["results"].values, "name": "edited"})
    assert _refused(battle_started(results=forged, brigade=tables["brigade"])).field == "tables.results.sha256"
    # Any other digest is refused, whichever way it sorts against the right one.
    for sha256 in ("0" * 64, "f" * 64):
        wrong = msgspec.structs.replace(tables["results"], sha256=sha256)
        assert _refused(battle_started(results=wrong, brigade=tables["brigade"])).field == "tables.results.sha256"


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda v: v["morale"].pop(), "must end with a row without min"),
        (lambda v: v["morale"][0].update(result="panic"), "unknown result 'panic'"),
        (lambda v: v["charging"].reverse(), "from the highest total down"),
        (lambda v: v.pop("rally"), "rally"),
        (lambda v: v["charged"][0].update(unit_types=["elephants"]), "elephants"),
        (lambda v: v.update(passing=["charge", "win"]), "passing: unknown result 'win'"),
    ],
)
def test_gdb_results_table_a_table_that_leaves_a_total_without_result_is_refused(edit, named):
    values = default_values()
    edit(values)
    tables = {**pinned_tables(GDB), "results": pin(values, "mine.toml")}
    refused = _refused(battle_started(**tables))
    assert refused.field == "tables.results" and named in refused.message


def test_gdb_brigade_test_modifiers_a_brigade_table_that_leaves_them_out_gets_the_books():
    """A house brigade table that gives only its rows keeps the book's modifiers: +1 for a brigade
    commander, -1 for each unit dispersed or routing."""
    values = default_values("brigade")
    values.pop("commander", None)
    values.pop("per_unit_lost", None)
    tables = {**pinned_tables(GDB), "brigade": pin(values, "rows-only.toml")}
    brigade = GDB.read_tables(tables)["brigade"]
    assert (brigade.commander, brigade.per_unit_lost) == (1, -1)


def test_gdb_results_table_an_unknown_table_is_refused():
    tables = {**pinned_tables(GDB), "panic": pin({"rows": []}, "x")}
    assert _refused(battle_started(**tables)).field == "tables"


def _refused(event: BattleStarted) -> Refusal:
    with pytest.raises(Refusal) as refused:
        decide(None, event)
    return refused.value


# -- the roster names a table; the log keeps it ---------------------------------------------------
ROSTER = """
[battle]
id = "house-rules"
ruleset = "gdb"
sides = ["french", "allies"]
dice = "table"
tables = { results = "tables/strict.toml" }

[[unit]]
id = "fusiliers"
side = "french"
name = "1st Battalion, 4th Line"
type = "infantry"
models = 20
[unit.profile]
brigade = "first"

[[unit]]
id = "whitecoats"
side = "allies"
name = "IR 4 Hoch- und Deutschmeister"
type = "infantry"
models = 20
[unit.profile]
brigade = "second"
"""


@pytest.fixture
def house_rules(tmp_path) -> Path:
    (tmp_path / "tables").mkdir()
    strict = (
        (DEFAULTS / "gdb_results.toml")
        .read_text()
        .replace('min = 7\nresult = "charge"', 'min = 9\nresult = "charge"', 1)
    )
    (tmp_path / "tables" / "strict.toml").write_text(strict)
    (tmp_path / "roster.toml").write_text(ROSTER)
    return tmp_path


def test_gdb_results_table_named_in_the_roster_replays_the_same_after_the_file_changes(house_rules):
    roster = load_roster(house_rules / "roster.toml")
    assert roster.started.tables["results"].source.endswith("tables/strict.toml")
    assert roster.started.tables["brigade"].source == "default: gdb_brigade.toml"
    store = SqliteEventStore(house_rules / "battles.db")
    start_battle(store, roster.battle, roster.started, roster.units)
    events = [
        PhaseStarted(turn=1, side="french", phase="movement"),
        PhaseEnded(turn=1, side="french", phase="movement"),
        PhaseStarted(turn=1, side="french", phase="charge"),
    ]
    record(store, "house-rules", events)
    record(
        store, "house-rules", [ChargeDeclared(charger="fusiliers", targets=("whitecoats",), in_range=("whitecoats",))]
    )
    [rolled] = record(store, "house-rules", [DiceRolled(unit="fusiliers", test="charging", dice=(4, 3))])
    assert resolved(rolled.caused).result == "halt"  # 8 does not reach this table's 9

    shutil.rmtree(house_rules / "tables")  # the file is gone; the log still holds its values
    replayed = load(store, "house-rules").state()
    assert replayed.tables["results"].charging[0].min == 9
    assert replayed.units["fusiliers"].restricted("halted")


def test_gdb_results_table_a_missing_or_malformed_table_file_is_refused(house_rules):
    (house_rules / "tables" / "strict.toml").write_text("[[charging]\nmin = ")
    with pytest.raises(MalformedEvent, match="not valid TOML"):
        load_roster(house_rules / "roster.toml")
    (house_rules / "tables" / "strict.toml").unlink()
    with pytest.raises(MalformedEvent, match=r"strict\.toml"):
        load_roster(house_rules / "roster.toml")


def test_gdb_results_table_its_page_says_the_numbers_are_a_stand_in_and_how_to_use_your_own():
    section = (ROOT / "docs" / "rulesets" / "gdb.md").read_text(encoding="utf-8")
    assert "stand-in" in section and "tables = {" in section and "sha256" in section
    for name in ("gdb_results.toml", "gdb_brigade.toml"):
        assert "STAND-IN" in (DEFAULTS / name).read_text()
