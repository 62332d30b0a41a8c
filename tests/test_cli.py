"""The `morale` command as a referee at the table uses it; bad input is refused and loses nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import morale

from morale.events.store import SqliteEventStore

ROOT = Path(__file__).resolve().parent.parent
ROSTER = ROOT / "examples" / "wh40k6" / "roster.toml"
pytestmark = pytest.mark.battle(ROSTER)  # `db`: its battle, made by `morale new`


def log_of(db: Path) -> list[tuple]:
    return list(SqliteEventStore(db).raw_rows("hive-tarsis"))


def to_shooting(db: Path) -> None:
    for _ in range(5):  # movement, psychic: start and end each; then shooting starts
        assert morale(db, "next-phase", "hive-tarsis").exit_code == 0


def test_new_battle_from_roster_shows_every_unit_on_the_board(db):
    result = morale(db, "board", "hive-tarsis", "--json")
    board = json.loads(result.stdout)
    roster = {"tacticals", "kraak", "rough_riders", "servitors", "boyz", "nobz", "grots", "lootas"}
    assert {u["unit"] for u in board["units"]} == roster
    assert all(u["state"] == "steady" for u in board["units"])


def test_a_failed_test_typed_in_from_the_table_makes_the_unit_fall_back(db):
    to_shooting(db)
    assert morale(db, "append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=3").exit_code == 0
    ended = morale(db, "next-phase", "hive-tarsis")
    assert "must roll 2D6 for morale, needs 8 or less" in ended.stdout
    due = json.loads(morale(db, "due", "hive-tarsis", "--json").stdout)
    assert [(d["unit"], d["test"], d["rule"], d["target"]) for d in due] == [
        ("kraak", "morale", "wh40k6.trigger.casualties", 8)
    ]
    rolled = morale(db, "roll", "hive-tarsis", "kraak", "morale", "5", "6")
    assert rolled.exit_code == 0
    assert "[wh40k6.fall_back.start: " in rolled.stdout
    board = json.loads(morale(db, "board", "hive-tarsis", "--json").stdout)
    kraak = next(u for u in board["units"] if u["unit"] == "kraak")
    assert kraak["state"] == "falling_back" and kraak["models"] == 7


def test_json_events_and_ndjson_files_are_accepted(db, tmp_path):
    phase = '{"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}'
    result = morale(db, "append", "hive-tarsis", "-j", phase)
    assert result.exit_code == 0
    events = tmp_path / "more.ndjson"
    events.write_text(
        '{"type": "casualties_suffered", "unit": "kraak", "count": 1}\n'
        '{"type": "phase_ended", "turn": 1, "side": "imperium", "phase": "movement"}\n'
    )
    assert morale(db, "append", "hive-tarsis", "--file", str(events), "--json").exit_code == 0
    assert [row[0] for row in log_of(db)][-3:] == [10, 11, 12]


def test_a_file_of_events_is_told_event_by_event_as_the_battle_stood_after_each(db, tmp_path):
    """Kraak (10 guardsmen) loses 1, then 2: the first line says 9 left, not the 7 left at the end."""
    events = tmp_path / "losses.ndjson"
    events.write_text(
        '{"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}\n'
        '{"type": "casualties_suffered", "unit": "kraak", "count": 1, "cause": "dangerous_terrain"}\n'
        '{"type": "casualties_suffered", "unit": "kraak", "count": 2, "cause": "dangerous_terrain"}\n'
    )
    result = morale(db, "append", "hive-tarsis", "--file", str(events))
    assert result.exit_code == 0, result.stderr
    told = [line for line in result.stdout.splitlines() if "loses" in line]
    assert [line.split("(")[-1] for line in told] == ["9 left)", "7 left)"]


@pytest.fixture
def kraak_due_engine_dice(tmp_path) -> Path:
    """A battle whose dice the engine rolls, with Kraak's Guardsmen owing a Morale test."""
    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER.read_text().replace('dice = "table"', 'dice = "engine"'))
    db = tmp_path / "engine.db"
    assert morale(db, "new", str(roster)).exit_code == 0
    to_shooting(db)
    morale(db, "append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=5")
    morale(db, "next-phase", "hive-tarsis")
    return db


def test_engine_rolls_are_recorded_with_their_values(kraak_due_engine_dice):
    db = kraak_due_engine_dice
    typed = morale(db, "roll", "hive-tarsis", "kraak", "morale", "3", "4")
    assert typed.exit_code == 2 and "source: this battle's dice are rolled by the engine" in typed.stderr
    rolled = morale(db, "roll", "hive-tarsis", "kraak", "morale", "--json")
    assert rolled.exit_code == 0, rolled.output
    stored = json.loads(rolled.stdout)[0]["stored"]
    assert stored["event"]["source"] == "engine" and len(stored["event"]["dice"]) == 2
    log = json.loads(morale(db, "log", "hive-tarsis", "--json").stdout)
    assert log[-1]["event"]["dice"] == stored["event"]["dice"]  # replay reads the values, never re-rolls


def test_an_engine_roll_honours_expect_like_any_other_write(kraak_due_engine_dice):
    db = kraak_due_engine_dice
    before = log_of(db)
    stale = morale(db, "roll", "hive-tarsis", "kraak", "morale", "--expect", str(before[-1][0] - 1))
    assert stale.exit_code != 0 and "expected_seq" in stale.stderr
    assert log_of(db) == before
    current = morale(db, "roll", "hive-tarsis", "kraak", "morale", "--expect", str(before[-1][0]))
    assert current.exit_code == 0, current.output


def test_replay_narrates_the_battle_turn_by_turn(db):
    to_shooting(db)
    morale(db, "append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=3", "cause=shooting")
    text = morale(db, "replay", "hive-tarsis").stdout
    assert "Turn 1 · imperium · shooting" in text
    assert "Sergeant Kraak's Guardsmen loses 3 models to shooting (7 left)" in text


# -- bad input: refused with the field or rule ID, exit code 2, the log unchanged ------------------
REFUSED = [
    (["append", "hive-tarsis", "-j", '{"type": "phase_started", "turn": 1'], "malformed"),
    (["append", "hive-tarsis", "-j", '{"type": "unit_routed", "unit": "kraak"}'], "type: unknown type 'unit_routed'"),
    (["append", "hive-tarsis", "volley_fired", "unit=kraak"], "type"),
    (["append", "hive-tarsis", "casualties_suffered", "unit=eldar", "count=1"], "unit"),
    (
        ["append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=0"],
        "count: a whole number from 1 to 100000, not 0",
    ),
    (["append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=11"], "count"),
    (["append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=1", "colour=red"], "colour"),
    (["roll", "hive-tarsis", "kraak", "morale", "3", "7"], "dice[1]: a die shows 1 to 6, not 7"),
    (["roll", "hive-tarsis", "kraak", "morale", "0", "3"], "dice[0]: a die shows 1 to 6, not 0"),
    (["roll", "hive-tarsis", "kraak", "morale", "3", "4"], "engine.dice"),
    (["roll", "hive-tarsis", "kraak", "moral", "3", "4"], "test: wh40k6 has no 'moral' test (tests: morale, "),
    (["append", "hive-tarsis", "phase_started", "turn=1", "side=imperium", "phase=shooting"], "engine.clock.order"),
    (["append", "hive-tarsis", "phase_started", "turn=1", "side=orks", "phase=movement"], "engine.clock.order"),
    (["append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=1", "--expect", "3"], "expected_seq"),
    # An --expect the log never reached, or below zero, is a mistake and says so, not a lost race.
    (["append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=1", "--expect", "99"], "the log ends at 9"),
    (["append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=1", "--expect", "-1"], "must be 0 or more"),
    (["board", "no-such-battle"], "battle"),
]


@pytest.mark.parametrize(("args", "named"), REFUSED, ids=[" ".join(a[2:4]) + f" [{n}]" for a, n in REFUSED])
def test_bad_input_is_refused_naming_the_field_or_rule_and_nothing_is_written(db, args, named):
    before = log_of(db)
    result = morale(db, *args)
    assert result.exit_code == 2
    assert named in result.stderr
    assert result.stderr.startswith("refused: ") and result.stderr.count("\n") == 1
    assert log_of(db) == before


def test_wrong_number_of_dice_is_refused_naming_the_field(db):
    to_shooting(db)
    morale(db, "append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=3")
    morale(db, "next-phase", "hive-tarsis")
    before = log_of(db)
    result = morale(db, "roll", "hive-tarsis", "kraak", "morale", "3", "4", "5")
    assert result.exit_code == 2 and "dice: the morale roll for kraak takes 2 dice, not 3" in result.stderr
    assert log_of(db) == before


def test_a_bad_line_in_an_ndjson_file_writes_none_of_the_file(db, tmp_path):
    events = tmp_path / "bad.ndjson"
    events.write_text(
        '{"type": "phase_started", "turn": 1, "side": "imperium", "phase": "movement"}\n'
        '{"type": "casualties_suffered", "unit": "kraak", "count": 99}\n'
    )
    before = log_of(db)
    result = morale(db, "append", "hive-tarsis", "--file", str(events))
    assert result.exit_code == 2 and "event 2 of 2" in result.stderr and "count" in result.stderr
    assert log_of(db) == before


def test_a_malformed_roster_is_refused(tmp_path):
    roster = tmp_path / "bad.toml"
    roster.write_text("[battle\nid = 3")
    result = morale(tmp_path / "x.db", "new", str(roster))
    assert result.exit_code == 2 and "not valid TOML" in result.stderr


def test_a_roster_unit_without_leadership_is_refused(tmp_path):
    roster = tmp_path / "noLd.toml"
    roster.write_text(ROSTER.read_text().replace("ld = 8\ninitiative = 3", "initiative = 3", 1))
    result = morale(tmp_path / "x.db", "new", str(roster))
    assert result.exit_code == 2 and "ld" in result.stderr
    assert SqliteEventStore(tmp_path / "x.db").battles() == []


def test_creating_the_same_battle_twice_is_refused(db):
    result = morale(db, "new", str(ROSTER))
    assert result.exit_code == 2 and "already exists" in result.stderr
