"""A battle's own language (`battle.language` in its roster, issue 31 item 3): what is said about the
battle speaks it to a reader who asked for no language. `--lang`, `$MORALE_LANG`, `?lang=` and the
console's switch are asked for and win; the locale's and the browser's language give way to it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from litestar.testing import TestClient
from support.cli import runner

from morale.app.cli import app
from morale.app.http.server import Settings, create_app
from morale.events.locate import open_store

ROOT = Path(__file__).resolve().parent.parent
ROSTER = (ROOT / "examples" / "wh40k6" / "roster.toml").read_text(encoding="utf-8")
EVENTS = ROOT / "examples" / "wh40k6" / "battle.ndjson"
# Nobody asked: no $MORALE_LANG (the suite's conftest sets it to en), an English locale.
UNASKED = {"MORALE_LANG": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": "en_US.UTF-8"}


def russian_roster(tmp_path: Path, language: str = "ru") -> Path:
    path = tmp_path / "roster.toml"
    path.write_text(ROSTER.replace("[battle]\n", f'[battle]\nlanguage = "{language}"\n', 1), encoding="utf-8")
    return path


def morale(db: Path, *args: str, env: dict[str, str | None] = UNASKED):
    return runner.invoke(app, [*args, "--db", str(db)], env=env)


def played(tmp_path: Path) -> Path:
    db = tmp_path / "m.db"
    assert morale(db, "new", str(russian_roster(tmp_path))).exit_code == 0
    assert morale(db, "append", "hive-tarsis", "--file", str(EVENTS)).exit_code == 0
    return db


def test_a_russian_battle_reads_in_russian_where_the_reader_asked_for_no_language(tmp_path):
    db = played(tmp_path)
    board = morale(db, "board", "hive-tarsis")
    assert board.exit_code == 0, board.output
    assert "ход 3, orks, фаза Атаки (завершена) · событие 104" in board.stdout
    assert "в строю" in board.stdout and "steady" not in board.stdout
    explained = morale(db, "explain", "hive-tarsis", "kraak")
    assert "тест" in explained.stdout.lower() and "Morale test" not in explained.stdout


def test_a_battle_created_from_a_russian_roster_says_so_in_russian(tmp_path):
    created = morale(tmp_path / "m.db", "new", str(russian_roster(tmp_path)))
    assert created.stdout.startswith("Битва hive-tarsis создана: 8 подразделений в ")


def test_the_readers_own_choice_wins_over_the_battles_language(tmp_path):
    db = played(tmp_path)
    for english in (
        morale(db, "--lang", "en", "board", "hive-tarsis"),
        morale(db, "board", "hive-tarsis", env={**UNASKED, "MORALE_LANG": "en"}),
    ):
        assert english.exit_code == 0, english.output
        assert "turn 3, orks, assault (ended) · event 104" in english.stdout
    # JSON keeps its machine fields in every language; only its words follow the battle.
    as_json = json.loads(morale(db, "board", "hive-tarsis", "--json").stdout)
    assert all(re.fullmatch(r"[a-z_]+", unit["state"]) for unit in as_json["units"])


def test_a_battle_with_no_language_of_its_own_reads_in_the_readers(tmp_path):
    db = tmp_path / "m.db"
    roster = tmp_path / "plain.toml"
    roster.write_text(ROSTER, encoding="utf-8")
    assert morale(db, "new", str(roster)).exit_code == 0
    assert "· event 9" in morale(db, "board", "hive-tarsis").stdout
    russian_locale = {**UNASKED, "LANG": "ru_RU.UTF-8"}
    assert "событие 9" in morale(db, "board", "hive-tarsis", env=russian_locale).stdout


def test_a_roster_language_this_app_does_not_speak_is_refused_naming_battle_language(tmp_path):
    db = tmp_path / "m.db"
    refused = morale(db, "new", str(russian_roster(tmp_path, "de")))
    assert refused.exit_code == 2
    assert refused.stderr.strip().endswith("battle.language is one of en, ru, not 'de'")
    assert not db.exists()  # nothing written


def test_the_battles_language_is_kept_in_its_first_event_and_a_battle_without_one_keeps_its_bytes(tmp_path):
    db = played(tmp_path)
    first = next(open_store(db, create=False).raw_rows("hive-tarsis"))
    assert json.loads(first.body)["event"]["language"] == "ru"
    plain = tmp_path / "plain.db"
    roster = tmp_path / "plain.toml"
    roster.write_text(ROSTER, encoding="utf-8")
    assert morale(plain, "new", str(roster)).exit_code == 0
    assert "language" not in json.loads(next(open_store(plain, create=False).raw_rows("hive-tarsis")).body)["event"]


# -- over HTTP --------------------------------------------------------------------------------------
def test_the_server_speaks_the_battles_language_unless_the_caller_asks_with_lang(tmp_path):
    with TestClient(create_app(tmp_path / "served.db", Settings())) as client:
        created = client.post("/battles/roster", json={"roster": russian_roster(tmp_path).read_text()})
        assert created.status_code == 201, created.text
        token = {"Authorization": f"Bearer {created.json()['tokens']['referee']}"}
        browser = client.get("/battles/hive-tarsis/due", headers={**token, "Accept-Language": "en-US,en"})
        asked = client.get("/battles/hive-tarsis/board?lang=en", headers=token)
        board = client.get("/battles/hive-tarsis/board", headers={**token, "Accept-Language": "en-US"})
        vocabulary = client.get("/battles/hive-tarsis/vocabulary", headers=token).json()
        feed = client.get("/battles/hive-tarsis/feed.ndjson?follow=false", headers=token)

    assert browser.status_code == asked.status_code == board.status_code == 200
    assert vocabulary["language"] == "ru"  # the console speaks it unless its reader chose on the device
    units = {unit["unit"]: unit for unit in board.json()["units"]}
    assert units["kraak"]["state"] == "steady"  # a machine field, in every language
    assert units["kraak"]["state_name"] == "в строю"
    assert {unit["unit"]: unit for unit in asked.json()["units"]}["kraak"]["state_name"] == "steady"
    story = [line for item in feed.text.splitlines() if item for line in json.loads(item).get("story", [])]
    story = [line["text"] for line in story]
    assert story and any("битв" in str(line).lower() for line in story)


def test_a_battle_sent_in_a_language_the_server_does_not_speak_is_a_400_naming_the_field(tmp_path):
    with TestClient(create_app(tmp_path / "served.db", Settings())) as client:
        by_roster = client.post("/battles/roster", json={"roster": russian_roster(tmp_path, "de").read_text()})
        by_events = client.post(
            "/battles",
            json={
                "battle": "b",
                "started": {
                    "type": "battle_started",
                    "ruleset": "wh40k6",
                    "ruleset_version": "1",
                    "sides": ["a", "b"],
                    "language": "de",
                },
            },
        )
    assert by_roster.status_code == by_events.status_code == 400
    assert by_roster.json()["field"] == "battle.language"
    assert by_events.json()["field"] == "started.language"
    assert "de" in by_events.json()["detail"]
    assert open_store(tmp_path / "served.db", create=False).battles() == []  # nothing written


def test_a_battles_language_is_written_in_the_notation_and_read_back(tmp_path):
    db = played(tmp_path)
    text = tmp_path / "battle.txt"
    assert morale(db, "notation", "export", "hive-tarsis", "-o", str(text)).exit_code == 0
    assert '[Language "ru"]' in text.read_text(encoding="utf-8").splitlines()[:12]
    copy = tmp_path / "copy.db"
    assert morale(copy, "notation", "import", str(text)).exit_code == 0
    first = next(open_store(copy, create=False).raw_rows("hive-tarsis"))
    assert json.loads(first.body)["event"]["language"] == "ru"
    assert "событие 104" in morale(copy, "board", "hive-tarsis").stdout


def test_a_command_line_click_cannot_parse_is_refused_in_the_named_battles_language(tmp_path):
    db = played(tmp_path)
    refused = morale(db, "roll", "hive-tarsis", "kraak", "morale", "шесть", "3")
    assert refused.exit_code == 2
    assert refused.stderr.startswith("отказано: Неверное значение 'dice': нужно целое число")
    asked = morale(db, "--lang", "en", "roll", "hive-tarsis", "kraak", "morale", "шесть", "3")
    assert asked.stderr.startswith("refused: Invalid value for 'dice'")
