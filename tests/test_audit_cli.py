"""The audit commands as a judge uses them: human output, --json, and refusals with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import morale, runner
from support.examples import EXAMPLE, V1_FIXTURE

from morale.app.cli import app
from morale.events.store import SqliteEventStore

# `db`: the example battle, made by `morale new` and played by `morale append --file`
pytestmark = pytest.mark.battle(EXAMPLE / "roster.toml", events=EXAMPLE / "battle.ndjson")


def log_of(db: Path) -> list[tuple]:
    return list(SqliteEventStore(db).raw_rows("hive-tarsis"))


def test_explain_prints_each_test_with_its_rules_and_chance(db):
    result = morale(db, "explain", "hive-tarsis", "kraak")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "Sergeant Kraak's Guardsmen (kraak, imperium): steady" in text
    assert "why: morale test due at #48  [wh40k6.trigger.combat_lost]" in text
    assert "-2 combat lost by 2  [wh40k6.trigger.combat_lost]" in text
    assert "chance of passing: 41.7% (15/36)" in text and "result: failed  [wh40k6.test.morale]" in text
    data = json.loads(morale(db, "explain", "hive-tarsis", "kraak", "--at", "50", "--json").stdout)
    assert data["state"] == "falling_back" and data["at"] == 50


def test_explain_numbers_each_result_by_the_event_that_settled_it(db):
    """The combat report (#48) made the Morale test due and the dice (#49) failed it: the line that
    says it failed is #49; the Fall Back move due at #50 was moved by the dice at #51."""
    lines = morale(db, "explain", "hive-tarsis", "kraak").stdout.splitlines()
    failed = next(line for line in lines if "fails the morale test" in line)
    moved = next(line for line in lines if 'moves 6"' in line)
    assert failed.split()[0] == "49" and moved.split()[0] == "51"
    assert lines[lines.index(failed) + 1].strip().startswith("why: morale test due at #48")
    assert lines[lines.index(moved) + 1].strip().startswith("why: fall back move due at #50")


def test_at_and_diff_show_the_board_then_and_what_changed(db):
    at = json.loads(morale(db, "at", "hive-tarsis", "end:1/imperium/shooting", "--json").stdout)
    assert at["point"]["seq"] == 22 and {u["unit"]: u["state"] for u in at["board"]["units"]}["nobz"] == "falling_back"
    assert (
        "end of turn 1, imperium, shooting (event 22)"
        in morale(db, "at", "hive-tarsis", "end:1/imperium/shooting").stdout
    )
    diff = morale(db, "diff", "hive-tarsis", "end:1", "end:2")
    assert diff.exit_code == 0 and "why Sergeant Kraak's Guardsmen changed:" in diff.stdout
    assert [u["unit"] for u in json.loads(morale(db, "diff", "hive-tarsis", "22", "--json").stdout)["units"]]


def test_the_board_says_a_scheduled_change_as_the_change_it_is(db):
    """Kraak's Guardsmen have just Regrouped (#54): steady again when the Assault phase ends, said so
    (`said`, what every view prints), and not as the graph's trigger ("end regroup until the ...")."""
    units = json.loads(morale(db, "at", "hive-tarsis", "55", "--json").stdout)["board"]["units"]
    [kraak] = [u for u in units if u["unit"] == "kraak"]
    said = [r["said"] for r in kraak["restrictions"]]
    assert "will be steady at the end of the assault phase (imperium, turn 2)" in said
    assert not any("end regroup" in r for r in said)
    change = next(r for r in kraak["restrictions"] if r["at"])
    assert (change["text"], change["until"]) == ("will be steady", "")


def test_explain_shows_a_sweeping_advance_as_two_opposed_rolls(db):
    """Each side rolls D6 + Initiative (wh40k6.sweeping_advance): 5 + 3 against 2 + 2, not 5 + 2 = 8."""
    said = morale(db, "explain", "hive-tarsis", "kraak").stdout
    rolled = next(line for line in said.split("\n") if "rolled at #50" in line)
    assert rolled.endswith(": loser 5 + initiative 3 = 8 against winners 2 + initiative 2 = 4")
    assert "5 + 2 = 8" not in said


def test_diff_counts_one_model_as_one_model(db):
    said = morale(db, "diff", "hive-tarsis", "start", "end:1").stdout
    assert "steady, 1 model " in said and "1 models" not in said  # the Nobz, 5 down to 1


def test_what_if_shows_the_first_divergence_and_the_final_board(db):
    before = log_of(db)
    result = morale(db, "what-if", "hive-tarsis", "--amend", '61={"count": 4}')
    assert result.exit_code == 0, result.output
    assert "event 61 amended: count 5 → 4" in result.stdout and "First divergence at event 62" in result.stdout
    assert "Final board: where the alternative differs" in result.stdout
    data = json.loads(morale(db, "what-if", "hive-tarsis", "--strike", "46", "--json").stdout)
    assert data["changes"] == ["event 46 struck"]
    assert log_of(db) == before


def test_verify_passes_a_clean_log_and_names_the_first_bad_event_of_a_tampered_one(db):
    clean = morale(db, "verify", "hive-tarsis")
    assert clean.exit_code == 0 and "OK" in clean.stdout and "phase-end digests: 24 match" in clean.stdout
    store = SqliteEventStore(db)
    store.db.conn.execute("UPDATE events SET body = replace(body, '\"count\":5', '\"count\":4') WHERE seq = 61")
    tampered = morale(db, "verify", "hive-tarsis")
    assert tampered.exit_code == 1 and "chain: first bad event #61" in tampered.stdout
    assert json.loads(morale(db, "verify", "hive-tarsis", "--json").stdout)["findings"][0]["seq"] == 61


def test_a_forged_time_or_schema_version_beside_the_hashed_bytes_fails_verify_at_its_seq(db):
    conn = SqliteEventStore(db).db.conn
    conn.execute("UPDATE events SET recorded_at = '2020-01-01T00:00:00.000000Z' WHERE seq = 30")
    assert json.loads(morale(db, "log", "hive-tarsis", "--json").stdout)[29]["recorded_at"].startswith("2020-")
    forged_time = morale(db, "verify", "hive-tarsis")
    assert forged_time.exit_code == 1
    assert "chain: first bad event #30: the stored recorded_at '2020-01-01T00:00:00.000000Z'" in forged_time.stdout
    conn.execute("UPDATE events SET schema_version = 7 WHERE seq = 12")
    assert morale(db, "board", "hive-tarsis").exit_code == 2  # "written by a newer engine"
    forged_version = json.loads(morale(db, "verify", "hive-tarsis", "--json").stdout)
    assert [(f["check"], f["seq"]) for f in forged_version["findings"]] == [("chain", 12)]
    assert "schema_version 7" in forged_version["findings"][0]["message"]


def test_engine_dice_reveal_then_verify(tmp_path):
    roster = tmp_path / "roster.toml"
    roster.write_text((EXAMPLE / "roster.toml").read_text().replace('dice = "table"', 'dice = "engine"'))
    db = tmp_path / "engine.db"
    assert morale(db, "new", str(roster)).exit_code == 0
    for _ in range(5):
        morale(db, "next-phase", "hive-tarsis")
    morale(db, "append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=5")
    morale(db, "next-phase", "hive-tarsis")
    assert morale(db, "roll", "hive-tarsis", "kraak", "morale").exit_code == 0
    revealed = morale(db, "reveal", "hive-tarsis")
    assert revealed.exit_code == 0 and "dice secret of hive-tarsis:" in revealed.stdout
    checked = morale(db, "verify", "hive-tarsis")
    assert checked.exit_code == 0 and "all 1 recomputed from the revealed secret" in checked.stdout
    again = morale(db, "reveal", "hive-tarsis")  # the fresh secret the first reveal committed to
    assert again.exit_code == 0 and again.stdout.split()[4] != revealed.stdout.split()[4]
    assert morale(db, "verify", "hive-tarsis").exit_code == 0


def test_luck_prints_each_sides_expected_and_actual_passes(db):
    human = morale(db, "luck", "hive-tarsis")
    assert human.exit_code == 0 and "luck of the morale dice" in human.stdout
    data = json.loads(morale(db, "luck", "hive-tarsis", "--json").stdout)
    assert {s["side"] for s in data["sides"]} == {"imperium", "orks"}


def test_export_then_import_into_a_fresh_store_keeps_every_hash(db, tmp_path):
    file = tmp_path / "battle.ndjson"
    assert morale(db, "export", "hive-tarsis", "--out", str(file)).exit_code == 0
    fresh = tmp_path / "fresh.db"
    imported = morale(fresh, "import", str(file))
    assert imported.exit_code == 0 and "Imported battle hive-tarsis: 104 events" in imported.stdout
    assert log_of(fresh) == log_of(db)
    assert morale(db, "export", "hive-tarsis").stdout.encode() == file.read_bytes()


def test_importing_a_broken_file_is_refused_naming_the_line_and_writes_nothing(tmp_path):
    lines = V1_FIXTURE.read_text().splitlines()
    edited = next(i for i, line in enumerate(lines) if '"count":2' in line)
    lines[edited] = lines[edited].replace('"count":2', '"count":1')
    file = tmp_path / "broken.ndjson"
    file.write_text("\n".join(lines) + "\n")
    db = tmp_path / "fresh.db"
    result = morale(db, "import", str(file))
    assert result.exit_code == 2 and result.stderr.startswith("refused: hash: ")
    assert f"line {edited + 1} (seq {edited + 1})" in result.stderr and SqliteEventStore(db).battles() == []


def test_schema_prints_the_json_schema_of_every_event():
    data = json.loads(runner.invoke(app, ["schema", "--json"]).stdout)
    assert data["$defs"]["PhaseEnded"]["x-schema-version"] == 2
    assert "phase_ended" in runner.invoke(app, ["schema"]).stdout


def test_the_due_list_shows_the_chance_of_passing(db, tmp_path):
    db = tmp_path / "due.db"
    morale(db, "new", str(EXAMPLE / "roster.toml"))
    for _ in range(5):
        morale(db, "next-phase", "hive-tarsis")
    morale(db, "append", "hive-tarsis", "casualties_suffered", "unit=kraak", "count=3")
    morale(db, "next-phase", "hive-tarsis")
    (due,) = json.loads(morale(db, "due", "hive-tarsis", "--json").stdout)
    assert (due["odds"]["pass_ways"], due["odds"]["of"]) == (26, 36)
    assert "Tests due" in morale(db, "due", "hive-tarsis").stdout


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["explain", "hive-tarsis", "eldar"], "unit"),
        (["explain", "hive-tarsis", "kraak", "--at", "999"], "at"),
        (["at", "hive-tarsis", "start:7"], "point"),
        (["diff", "hive-tarsis", "end", "start"], "point"),
        (["what-if", "hive-tarsis", "--strike", "999"], "seq"),
        (["what-if", "hive-tarsis", "--amend", "61:{}"], "--amend"),
        (["what-if", "hive-tarsis", "--amend", '61={"count": 99}'], "count"),
        (["verify", "hive-tarsis", "--secret", "nothex"], "secret: 64 lowercase hex digits, not 'nothex'"),
        (["verify", "no-such-battle"], "battle"),
        (["reveal", "hive-tarsis"], "secret"),
        (["luck", "no-such-battle"], "battle"),
        (["export", "no-such-battle"], "battle"),
    ],
)
def test_bad_input_to_the_audit_commands_is_refused_and_nothing_is_written(db, args, named):
    before = log_of(db)
    result = morale(db, *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("refused: ") and named in result.stderr
    assert log_of(db) == before
