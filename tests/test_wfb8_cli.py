"""The `morale` command on a WFB 8th edition battle: re-rolls, the order of simultaneous tests and the
once-a-phase Panic test, refused with the rule ID and exit code 2 where the rules say no."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import morale

from morale.events.store import SqliteEventStore

ROOT = Path(__file__).resolve().parent.parent
ROSTER = ROOT / "examples" / "wfb8" / "roster.toml"
BATTLE = "grunburg-bridge"
pytestmark = pytest.mark.battle(ROSTER)  # `db`: its battle, made by `morale new`


def append(db: Path, *events: dict) -> None:
    for event in events:
        result = morale(db, "append", BATTLE, "-j", json.dumps(event))
        assert result.exit_code == 0, result.output


def to_orc_magic(db: Path) -> None:
    for _ in range(13):  # the empire's five phases, then the orcs' start of turn and movement; magic starts
        assert morale(db, "next-phase", BATTLE).exit_code == 0


def spearmen_fail_near_the_standard(db: Path) -> None:
    to_orc_magic(db)
    append(
        db,
        {"type": "table_fact_recorded", "unit": "spearmen", "fact": "near_battle_standard", "value": True},
        {"type": "casualties_suffered", "unit": "spearmen", "count": 5, "cause": "magic"},
    )
    failed = morale(db, "roll", BATTLE, "spearmen", "panic", "5", "4")
    assert "must re-roll 2D6 for panic, needs 7 or less" in failed.stdout


def log_of(db: Path) -> list[tuple]:
    return list(SqliteEventStore(db).raw_rows(BATTLE))


def test_the_wfb8_example_replays_from_the_command_line(db):
    assert morale(db, "append", BATTLE, "--file", str(ROOT / "examples" / "wfb8" / "battle.ndjson")).exit_code == 0
    text = morale(db, "replay", BATTLE, "--turn", "1").stdout
    assert "Turn 1 · orcs · close combat" in text and "[wfb8.panic.stand_and_shoot: " in text


def test_wfb8_hold_your_ground_a_re_roll_is_typed_in_with_reroll(db):
    spearmen_fail_near_the_standard(db)
    due = json.loads(morale(db, "due", BATTLE, "--json").stdout)
    assert [(d["unit"], d["test"], d["reroll"]) for d in due] == [("spearmen", "panic", "wfb8.hold_your_ground")]
    before = log_of(db)

    plain = morale(db, "roll", BATTLE, "spearmen", "panic", "3", "3")

    assert plain.exit_code == 2 and "reroll" in plain.stderr and log_of(db) == before
    rerolled = morale(db, "roll", BATTLE, "spearmen", "panic", "3", "3", "--reroll")
    assert rerolled.exit_code == 0 and "re-rolls for panic: 3 + 3" in rerolled.stdout


def test_wfb8_hold_your_ground_engine_dice_are_recorded_as_the_re_roll(tmp_path):
    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER.read_text().replace('dice = "table"', 'dice = "either"'))
    db = tmp_path / "either.db"
    assert morale(db, "new", str(roster)).exit_code == 0
    spearmen_fail_near_the_standard(db)  # the failed roll typed in from the table

    rolled = json.loads(morale(db, "roll", BATTLE, "spearmen", "panic", "--json").stdout)  # the engine re-rolls

    event = rolled[0]["stored"]["event"]
    assert (event["source"], event["reroll"], len(event["dice"])) == ("engine", True, 2)


def test_wfb8_panic_once_per_phase_refused_from_the_command_line(db):
    to_orc_magic(db)
    append(db, {"type": "casualties_suffered", "unit": "spearmen", "count": 5, "cause": "magic"})
    assert morale(db, "roll", BATTLE, "spearmen", "panic", "2", "2").exit_code == 0
    before = log_of(db)

    again = morale(db, "roll", BATTLE, "spearmen", "panic", "2", "2")

    assert again.exit_code == 2 and "wfb8.panic.once_per_phase" in again.stderr and log_of(db) == before


def test_wfb8_panic_order_refused_until_the_player_chooses(db):
    to_orc_magic(db)
    append(
        db,
        {"type": "casualties_suffered", "unit": "spearmen", "count": 5, "cause": "magic"},
        {"type": "casualties_suffered", "unit": "handgunners", "count": 3, "cause": "magic"},
    )
    before = log_of(db)

    refused = morale(db, "roll", BATTLE, "handgunners", "panic", "2", "2")

    assert refused.exit_code == 2 and "wfb8.panic.order" in refused.stderr and log_of(db) == before
    assert morale(db, "append", BATTLE, "player_decided", "unit=handgunners", "decision=test_first").exit_code == 0
    assert morale(db, "roll", BATTLE, "handgunners", "panic", "2", "2").exit_code == 0


def test_wfb8_the_board_shows_who_is_in_combat_and_near_the_battle_standard(db):
    spearmen_fail_near_the_standard(db)
    board = json.loads(morale(db, "board", BATTLE, "--json").stdout)
    spearmen = next(u for u in board["units"] if u["unit"] == "spearmen")
    assert {r["rule"] for r in spearmen["restrictions"]} == {"wfb8.hold_your_ground"}
    assert spearmen["due"] == ["panic (wfb8.panic.heavy_casualties)"]
