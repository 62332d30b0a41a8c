"""General de Brigade from the command line: the example imports with `morale new` and `morale append
--file`, the game turn walks its five phases, and bad input is refused with the rule ID, exit code 2,
nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import morale

from morale.events.store import SqliteEventStore

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "gdb"
pytestmark = pytest.mark.battle(EXAMPLE / "roster.toml")  # `db`: its battle, made by `morale new`


def log_of(db: Path) -> list[tuple]:
    return list(SqliteEventStore(db).raw_rows("pratzen"))


def lines(*events: dict) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


def test_the_example_imports_with_new_and_append_file(db):
    result = morale(db, "append", "pratzen", "--file", str(EXAMPLE / "battle.ndjson"))
    assert result.exit_code == 0, result.output
    board = json.loads(morale(db, "board", "pratzen", "--json").stdout)
    assert (board["turn"], board["phase"], board["ruleset"]) == (4, "morale", "gdb v1")
    states = {u["unit"]: u["state"] for u in board["units"]}
    assert states["kaunitz"] == "falling_back" and states["salzburg"] == "dispersed"


def test_next_phase_walks_the_game_turn_both_sides_together(db):
    phases = []
    for _ in range(11):
        out = morale(db, "next-phase", "pratzen", "--json")
        assert out.exit_code == 0
        event = json.loads(out.stdout)[0]["stored"]["event"]
        if event["type"] == "phase_started":
            phases.append((event["turn"], event["side"], event["phase"]))
    assert phases == [
        (1, "french", "movement"),
        (1, "french", "charge"),
        (1, "french", "shooting"),
        (1, "french", "melee"),
        (1, "french", "morale"),
        (2, "french", "movement"),
    ]


def test_the_due_list_shows_the_column_test_and_its_modifiers(db, tmp_path):
    events = tmp_path / "charge.ndjson"
    events.write_text(
        lines(
            {"type": "phase_started", "turn": 1, "side": "french", "phase": "movement"},
            {"type": "phase_ended", "turn": 1, "side": "french", "phase": "movement"},
            {"type": "phase_started", "turn": 1, "side": "french", "phase": "charge"},
            {"type": "charge_declared", "charger": "ch11", "targets": ["ryazan"], "in_range": ["ryazan"]},
        )
    )
    assert morale(db, "append", "pratzen", "--file", str(events)).exit_code == 0
    [due] = json.loads(morale(db, "due", "pratzen", "--json").stdout)
    assert (due["unit"], due["test"], due["rule"], due["target"]) == ("ch11", "charging", "gdb.trigger.charging", None)
    assert [(m["rule"], m["value"]) for m in due["modifiers"]] == [("gdb.mod.quality", 1), ("gdb.mod.no_losses", 1)]
    rolled = morale(db, "roll", "pratzen", "ch11", "charging", "3", "3")
    assert rolled.exit_code == 0 and "= 8: Charge" in rolled.stdout


def the_example_until(db: Path, tmp_path: Path, last_line: int) -> None:
    events = tmp_path / "part.ndjson"
    events.write_text("".join((EXAMPLE / "battle.ndjson").read_text().splitlines(keepends=True)[:last_line]))
    assert morale(db, "append", "pratzen", "--file", str(events)).exit_code == 0


REFUSED = [
    # Turn 1, Morale phase: the Ryazan are routing within charge range of the chasseurs.
    (27, ["roll", "pratzen", "ryazan", "rally", "6", "5"], "gdb.note.no_rally_near_enemy"),
    # Turn 1, Melee phase: the 14e wavered this turn; it may reform from turn 2's Movement phase.
    (21, ["append", "pratzen", "player_decided", "unit=l14", "decision=reform"], "gdb.waver.reform"),
    # A modifier's condition for a type it cannot apply to.
    (0, ["append", "pratzen", "unit_changed", "unit=ch11", 'changes={"formation": "square"}'], "gdb.mod.square"),
    (0, ["append", "pratzen", "unit_changed", "unit=hu8", 'changes={"location": "church"}'], "gdb.mod.cover"),
    (
        0,
        ["append", "pratzen", "table_fact_recorded", "unit=l14", "fact=enemy_in_built_up_area", "value=true"],
        "gdb.mod.cover",
    ),
    (0, ["append", "pratzen", "unit_changed", "unit=l10", 'changes={"quality": "guard"}'], "changes"),
    (
        0,
        [
            "append",
            "pratzen",
            "combat_resolved",
            'sides=[{"side": "french", "units": ["l10"], "wounds_inflicted": 1},'
            ' {"side": "allies", "units": ["ryazan"], "wounds_inflicted": 0}]',
        ],
        "melee_result",
    ),
]


@pytest.mark.parametrize(("until", "args", "named"), REFUSED, ids=[r[2] + " " + r[1][3] for r in REFUSED])
def test_bad_input_is_refused_with_the_rule_id_exit_code_2_and_nothing_written(db, tmp_path, until, args, named):
    if until:
        the_example_until(db, tmp_path, until)
    before = log_of(db)
    result = morale(db, *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("refused: ") and named in result.stderr
    assert log_of(db) == before


def test_a_roster_naming_a_table_it_does_not_have_is_refused(tmp_path):
    roster = tmp_path / "roster.toml"
    roster.write_text(
        (EXAMPLE / "roster.toml")
        .read_text()
        .replace('dice = "table"', 'dice = "table"\ntables = { results = "nowhere.toml" }')
    )
    result = morale(tmp_path / "x.db", "new", str(roster))
    assert result.exit_code == 2 and "nowhere.toml" in result.stderr
    assert SqliteEventStore(tmp_path / "x.db").battles() == []
