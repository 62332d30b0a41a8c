"""The command line's own words in Russian (issue 31): what `morale --lang ru` prints and refuses, its
tables' headers, the rule catalogue said from its Russian clause files, and the same commands in
English exactly as they were. (The narrative, the board's cells and the rulesets' words are said by
their own modules: their tests are theirs.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import morale, morale_command

from morale.app import language
from morale.app.cli import render
from morale.app.cli.base import usage_words
from morale.core import catalogue
from morale.core.catalogue import Translated
from morale.core.words import Words, counted

ROOT = Path(__file__).resolve().parent.parent
ROSTER = ROOT / "examples" / "wh40k6" / "roster.toml"

UNIT = """
[[unit]]
id = "squad{n}"
side = "{side}"
name = "Squad {n}"
type = "infantry"
models = 5
ld = 8
initiative = 4
"""


def roster(tmp_path: Path, units: int) -> Path:
    """A wh40k6 battle of `units` units, alternating between the two sides."""
    sides = ("imperium", "orks")
    text = '[battle]\nid = "small"\nruleset = "wh40k6"\nsides = ["imperium", "orks"]\ndice = "table"\n'
    text += "".join(UNIT.format(n=n, side=sides[n % 2]) for n in range(units))
    path = tmp_path / f"roster{units}.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("units", "said"),
    [
        (1, "Битва small создана: 1 подразделение в "),
        (2, "Битва small создана: 2 подразделения в "),
        (5, "Битва small создана: 5 подразделений в "),
        (21, "Битва small создана: 21 подразделение в "),
    ],
)
def test_new_says_the_battle_is_created_with_its_units_counted_in_russian(tmp_path, units, said):
    created = morale(tmp_path / "m.db", "--lang", "ru", "new", str(roster(tmp_path, units)))
    assert created.exit_code == 0, created.output
    assert created.stdout.startswith(said) and created.stdout.rstrip().endswith("m.db.")


def test_new_in_english_is_as_it_was(tmp_path):
    assert morale(tmp_path / "m.db", "new", str(ROSTER)).stdout.startswith(
        "Battle hive-tarsis created with 8 units in "
    )
    assert morale(tmp_path / "o.db", "new", str(roster(tmp_path, 1))).stdout.startswith(
        "Battle small created with 1 unit in "  # was "1 units": English agrees with the number too now
    )


def test_the_board_has_its_headers_and_title_in_russian(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # a terminal wide enough for every header whole, in either language
    db = tmp_path / "m.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    shown = morale(db, "--lang", "ru", "board", "hive-tarsis").stdout
    first = shown.splitlines()[0]
    assert first == "hive-tarsis · wh40k6 v1 · до первого хода · событие 9"
    for header in ("сторона", "подразделение", "состояние", "модели", "Ld", "ограничения", "предстоит"):
        assert f" {header} " in shown
    english = morale(db, "board", "hive-tarsis").stdout
    assert english.splitlines()[0] == "hive-tarsis · wh40k6 v1 · before the first turn · event 9"
    assert all(f" {h} " in english for h in ("side", "unit", "state", "models", "restrictions", "due"))


def test_a_turn_in_progress_is_said_on_the_board_title(tmp_path):
    db = tmp_path / "m.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    assert morale(db, "next-phase", "hive-tarsis").exit_code == 0
    title = morale(db, "--lang", "ru", "board", "hive-tarsis").stdout.splitlines()[0]
    assert title == "hive-tarsis · wh40k6 v1 · ход 1, imperium, фаза Движения (идёт) · событие 10"
    title = morale(db, "board", "hive-tarsis").stdout.splitlines()[0]
    assert title == "hive-tarsis · wh40k6 v1 · turn 1, imperium, movement (in progress) · event 10"


def test_the_battles_and_due_lists_in_russian(tmp_path):
    db = tmp_path / "m.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    assert morale(db, "--lang", "ru", "battles").stdout == "hive-tarsis  (9 событий)\n"
    assert morale(db, "--lang", "ru", "due", "hive-tarsis").stdout == "Тестов не ожидается.\n"
    assert morale(db, "battles").stdout == "hive-tarsis  (9 events)\n"
    assert morale(db, "due", "hive-tarsis").stdout == "No tests are due.\n"


def test_a_refusal_of_the_command_line_is_said_in_russian_and_json_keeps_its_keys(tmp_path):
    db = tmp_path / "m.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    refused = morale(db, "--lang", "ru", "replay", "hive-tarsis", "--turn", "9")
    assert refused.exit_code == 2
    assert refused.stderr.startswith("отказано: turn: у битвы 'hive-tarsis' нет хода 9: в ней ")
    english = morale(db, "replay", "hive-tarsis", "--turn", "9")
    assert english.stderr.startswith("refused: turn: battle 'hive-tarsis' has no turn 9: it has ")
    as_json = json.loads(morale(db, "--lang", "ru", "tokens", "hive-tarsis", "--label", "x", "--json").stderr)
    assert as_json == {
        "error": {
            "message": "--label называет выдаваемый токен: укажите его вместе с --issue РОЛЬ",
            "rule": None,
            "field": "label",
        }
    }


def test_a_command_line_click_cannot_parse_is_refused_in_russian(tmp_path):
    db = tmp_path / "m.db"
    # (The runner names the program `root`, where a terminal names it `morale`.)
    missing = morale(db, "--lang", "ru", "board")
    assert missing.stderr == "отказано: Не указан аргумент 'battle' (см. `root board -h`)\n"
    unknown = morale(db, "--lang", "ru", "board", "x", "--bogus")
    assert unknown.stderr == "отказано: Нет параметра: --bogus (см. `root board -h`)\n"
    negative = morale(db, "--lang", "ru", "append", "x", "--expect", "-1")
    assert negative.stderr == (
        "отказано: Неверное значение '--expect': должно быть 0 или больше, а не -1 (см. `root append -h`)\n"
    )
    assert morale(db, "board").stderr == "refused: Missing argument 'battle' (see `root board -h`)\n"
    assert morale(db, "append", "x", "--expect", "-1").stderr == (
        "refused: Invalid value for '--expect': must be 0 or more, not -1 (see `root append -h`)\n"
    )


def test_click_words_we_do_not_know_are_left_as_click_wrote_them():
    class Strange(Exception):
        message = "Something Click said"

        def format_message(self) -> str:
            return self.message

    assert usage_words(Strange()) == "Something Click said"


def test_a_store_that_is_not_there_is_refused_in_russian(tmp_path):
    refused = morale(tmp_path / "none.db", "--lang", "ru", "board", "x")
    assert refused.stderr.startswith("отказано: --db ")
    assert refused.stderr.rstrip().endswith("(`morale new` или `morale import` создаёт его)")


def test_the_rule_catalogue_lists_its_headers_and_kinds_in_russian():
    listed = morale_command("--lang", "ru", "rules", "engine").stdout
    assert listed.split()[:3] == ["ID", "правила", "вид"]
    assert "движок" in listed
    english = morale_command("rules", "engine").stdout
    assert english.split()[:4] == ["rule", "ID", "kind", "clause"]


def test_a_clause_is_said_from_its_russian_clause_file(monkeypatch):
    """`morale rules ID` quotes the clause's Russian title and words where its language's clause file
    has them, and --json says them too (its keys and its id as they are)."""
    rule = "wh40k6.fall_back.edge"
    russian = Translated(id=rule, title="Отступление за край стола", words="Модели отступают к своему краю стола.")
    monkeypatch.setattr(catalogue, "translated", lambda lang: {rule: russian} if lang == "ru" else {})
    shown = morale_command("--lang", "ru", "rules", rule).stdout.splitlines()
    assert shown[0] == f"{rule}  Отступление за край стола"
    assert shown[1].endswith(" · текст правил")
    assert shown[2] == "Модели отступают к своему краю стола."
    as_json = json.loads(morale_command("--lang", "ru", "rules", rule, "--json").stdout)
    assert as_json["id"] == rule and as_json["kind"] == "seed"
    assert as_json["title"] == "Отступление за край стола"
    english = morale_command("rules", rule).stdout.splitlines()
    assert english[0] == f"{rule}  Falling back off the table edge"
    assert json.loads(morale_command("rules", rule, "--json").stdout)["title"] == ("Falling back off the table edge")


@pytest.mark.skipif(not catalogue.translated("ru"), reason="no Russian clause file has landed yet")
def test_every_clause_of_a_translated_ruleset_is_listed_with_its_russian_title():
    translated = catalogue.translated("ru")
    rule, clause = next(iter(translated.items()))
    ruleset = catalogue.clause(rule).ruleset  # type: ignore[union-attr]
    listed = morale_command("--lang", "ru", "rules", ruleset).stdout
    assert clause.title.split()[0] in listed


def test_a_command_in_russian_leaves_the_language_it_found():
    assert morale_command("--lang", "ru", "rules", "engine").exit_code == 0
    assert language.current() == "en"


def test_render_words_in_russian():
    with language.speaking("ru"):
        assert language.say(counted(", {n} model", ", {n} models", n=1)) == ", 1 модель"
        assert language.say(counted(", {n} model", ", {n} models", n=3)) == ", 3 модели"
        assert language.say(counted(", {n} model", ", {n} models", n=5)) == ", 5 моделей"
        said = render.styled(Words("The {side} player joins with this code.", side="orks"), "side", "orks", "bold")
        assert said.plain == "Игрок стороны orks подключается по этому коду."
        assert [said.plain[span.start : span.end] for span in said.spans] == ["orks"]
    said = render.styled(Words("The {side} player joins with this code.", side="orks"), "side", "orks", "bold")
    assert said.plain == "The orks player joins with this code."


def test_a_refusal_raised_in_the_app_keeps_its_words_for_the_edge():
    from morale.app.access import check_label, role_of
    from morale.core.rules import Refusal

    with pytest.raises(Refusal) as refused:
        check_label("x" * 101)
    assert str(refused.value) == "label: a label is at most 100 characters, not 101"
    with language.speaking("ru"):
        assert language.refusal_line(refused.value) == "label: метка не длиннее 100 символов, а не 101"
    with pytest.raises(Refusal) as refused:
        role_of("judge", ["orks", "imperium"])
    with language.speaking("ru"):
        assert language.refusal_line(refused.value) == (
            "role: в этой битве нет роли 'judge' (роли: referee, spectator, overlay, orks, imperium)"
        )
