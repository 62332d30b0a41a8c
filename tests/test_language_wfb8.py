"""Warhammer Fantasy 8th edition in Russian (issue 31): its refusals, the details of its tests, the
reasons of its modifiers, the board's restrictions, its phrases, state and test names, and every
clause of its catalogue, said in the terms of the Russian rule text (тест на Панику, тест на Разгром,
отступает, базовый контакт, Воодушевление); the same in English, word for word as before."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from support.cli import morale
from support.table import only
from support.wfb8 import battle, charge, combat, fact, fled, regiment, side

from morale.app import language
from morale.app.language import refusal_line, say
from morale.core import catalogue
from morale.core import outcomes as out
from morale.core.rules import CLAUSES
from morale.core.rulesets.wfb8 import WFB8

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "core" / "rulesets" / "wfb8"
ROSTER = ROOT / "examples" / "wfb8" / "roster.toml"


def in_russian(text: str) -> str:
    with language.speaking("ru"):
        return say(text)


def russian_line(refused) -> str:
    """A refusal as the CLI prints it and a problem's detail says it, in Russian."""
    with language.speaking("ru"):
        return refusal_line(refused)


def locked_with_two():
    """The boyz and the wolves charge the spearmen in the orcs' turn 1; the close combat phase has
    begun (the trolls fight no one)."""
    table = battle(
        regiment("spearmen", ld=7),
        regiment("boyz", "orcs", models=25),
        regiment("wolves", "orcs", models=10, unit_type="cavalry"),
        regiment("trolls", "orcs", models=6, unit_type="monstrous_infantry"),
    )
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.record(charge("wolves", "spearmen"))
    table.go_to(1, "orcs", "close_combat")
    return table


# -- refusals -------------------------------------------------------------------------------------------
def test_a_refusal_is_said_in_russian_with_its_rule_id_and_its_foes_listed():
    table = locked_with_two()

    refused = table.refuse(combat(side("empire", "spearmen", wounds=1), side("orcs", "trolls", wounds=3)))
    assert russian_line(refused) == "units: spearmen в ближнем бою с boyz, wolves, но никого из них нет в этом бою"
    assert (
        refusal_line(refused) == "units: spearmen is in close combat with boyz, wolves, none of whom is in this combat"
    )

    refused = table.refuse(combat(side("empire", "spearmen", wounds=1), side("orcs", "boyz", wounds=3)))
    assert russian_line(refused) == "units: wolves в ближнем бою с spearmen, но его нет в этом отчёте о бое"
    assert refusal_line(refused) == "units: wolves is in close combat with spearmen but is not in this combat report"

    table.go_to(2, "empire", "movement")
    refused = table.refuse(charge("spearmen", "wolves"))
    assert in_russian(refused.message) == "spearmen уже в ближнем бою"
    assert refused.message == "spearmen is already in close combat"


def test_a_refusal_names_the_state_in_the_rulesets_words():
    table = battle(regiment("spearmen"), regiment("boyz", "orcs"))

    refused = table.refuse(fact("spearmen", "fled_off_table"))

    assert (refused.rule, in_russian(refused.message)) == ("wfb8.flee.move", "spearmen не отступает (оно в строю)")
    assert refused.message == "spearmen is not fleeing (it is steady)"


def test_the_command_line_says_a_wfb8_refusal_in_russian_and_in_english_as_before(tmp_path):
    db = tmp_path / "m.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    event = json.dumps({"type": "table_fact_recorded", "unit": "spearmen", "fact": "fled_off_table", "value": True})

    russian = morale(db, "--lang", "ru", "append", "grunburg-bridge", "-j", event)
    english = morale(db, "--lang", "en", "append", "grunburg-bridge", "-j", event)

    assert russian.exit_code == english.exit_code == 2
    assert "wfb8.flee.move: spearmen не отступает (оно в строю)" in russian.stderr
    assert "wfb8.flee.move: spearmen is not fleeing (it is steady)" in english.stderr


# -- the details of tests and the reasons of modifiers -----------------------------------------------
@pytest.mark.parametrize(
    ("own", "best", "russian"),
    [
        (1, 0, "бой проигран на 4; Воодушевление: 1 ряд против 0"),
        (2, 1, "бой проигран на 4; Воодушевление: 2 ряда против 1"),
        (5, 2, "бой проигран на 4; Воодушевление: 5 рядов против 2"),
    ],
)
def test_a_steadfast_units_break_test_says_its_ranks_in_whole_sentences(own, best, russian):
    table = battle(regiment("spearmen", ld=7), regiment("boyz", "orcs", models=25))
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.go_to(1, "orcs", "close_combat")

    caused = table.record(
        combat(
            side("empire", "spearmen", wounds=1, ranks={"spearmen": own}),
            side("orcs", "boyz", wounds=5, ranks={"boyz": best}),
        )
    )

    (modifier,) = only(caused, out.TestDue).modifiers
    assert in_russian(modifier.reason) == russian
    assert modifier.reason == f"combat lost by 4; Steadfast: {own} ranks to {best}"


def test_a_stubborn_or_plain_loss_and_insane_courage_are_said_in_russian():
    table = battle(regiment("spearmen", ld=7, rules=("stubborn",)), regiment("boyz", "orcs", models=25))
    table.go_to(1, "orcs", "movement")
    table.record(charge("boyz", "spearmen"))
    table.go_to(1, "orcs", "close_combat")

    caused = table.record(combat(side("empire", "spearmen", wounds=1), side("orcs", "boyz", wounds=7)))
    (modifier,) = only(caused, out.TestDue).modifiers
    assert in_russian(modifier.reason) == "бой проигран на 6; Упорство: Воодушевление всегда"
    assert modifier.reason == "combat lost by 6; Stubborn: always Steadfast"

    result = only(table.roll("spearmen", "break", 1, 1), out.TestResolved)
    assert in_russian(result.detail) == "Безумная храбрость: две единицы всегда проходят тест"
    assert result.detail == "Insane Courage: a double 1 always passes"


@pytest.mark.parametrize(
    ("left", "russian"),
    [
        (1, "осталась 1 модель из 20"),
        (2, "осталось 2 модели из 20"),
        (5, "осталось 5 моделей из 20"),
    ],
)
def test_a_rally_test_with_few_models_left_counts_them_in_russian(left, russian):
    table = battle(regiment("spearmen", models=20, ld=7), regiment("boyz", "orcs"))
    fled(table, "spearmen", lost=20 - left)
    table.go_to(2, "empire", "movement")

    result = only(table.roll("spearmen", "rally", 1, 2), out.TestResolved)

    assert in_russian(result.detail) == f"{russian}: 25% или меньше, сплотиться можно только на двух единицах"
    assert result.detail == f"{left} of 20 models left: 25% or less, only a double 1 rallies"


def test_a_rally_failed_near_the_battle_standard_says_both_in_one_sentence():
    table = battle(
        regiment("spearmen", models=20, ld=7),
        regiment("general_guard", ld=8, rules=("battle_standard_bearer",)),
        regiment("boyz", "orcs"),
    )
    fled(table, "spearmen", lost=15)
    table.record(fact("spearmen", "near_battle_standard", True))
    table.go_to(2, "empire", "movement")

    failed = only(table.roll("spearmen", "rally", 1, 2), out.TestResolved)

    assert in_russian(failed.detail) == (
        "осталось 5 моделей из 20: 25% или меньше, сплотиться можно только на двух единицах;"
        " Держать строй: Боевое Знамя рядом, переброс"
    )
    assert failed.detail == (
        "5 of 20 models left: 25% or less, only a double 1 rallies;"
        " Hold Your Ground: the Battle Standard is near, re-roll"
    )


def test_a_panic_test_not_taken_in_close_combat_says_why_in_russian():
    table = locked_with_two()

    not_taken = only(table.casualties("spearmen", 6), out.TestNotTaken)

    assert in_russian(not_taken.detail) == "в ближнем бою: там его моральный дух регулируют тесты на Разгром"
    assert not_taken.detail == "in close combat: Break tests govern it there"


# -- the board, the phrases, the names ----------------------------------------------------------------
def test_the_boards_restriction_lists_the_foes_in_russian():
    table = locked_with_two()

    said = [(in_russian(text), rule) for text, rule in WFB8.implied_restrictions(table.unit("spearmen"))]

    assert said == [("в ближнем бою с boyz, wolves: тесты на Разгром, а не на Панику", "wfb8.panic.exempt")]
    assert [text for text, _ in WFB8.implied_restrictions(table.unit("spearmen"))] == [
        "in close combat with boyz, wolves: Break tests, not Panic tests"
    ]


def test_the_phrases_states_tests_and_causes_are_said_in_the_rule_texts_terms():
    phrase = {rule_id: CLAUSES[rule_id].answers["phrase"] for rule_id in ("wfb8.panic.test", "wfb8.break.test")}
    assert {rule_id: in_russian(words) for rule_id, words in phrase.items()} == {  # type: ignore[arg-type]
        "wfb8.panic.test": "поддаётся Панике и отступает",
        "wfb8.break.test": "терпит Разгром и отступает",
    }
    assert phrase == {"wfb8.panic.test": "panics and flees", "wfb8.break.test": "breaks and flees"}
    rally = CLAUSES["wfb8.rally.test"].answers["phrase"]
    assert {state: in_russian(words) for state, words in rally.items()} == {  # type: ignore[union-attr]
        "regrouped": "сплачивается",
        "falling_back": "не сплачивается и снова отступает",
        "steady": "снова в строю",
    }
    assert {state: in_russian(WFB8.state_name(state)) for state in WFB8.state_names} == {
        "steady": "в строю",
        "falling_back": "отступает",
        "regrouped": "сплотилось",
        "dispersed": "отступило за край стола",
        "destroyed": "уничтожено",
    }
    assert {state: WFB8.state_name(state) for state in WFB8.state_names} == {
        "steady": "steady",
        "falling_back": "fleeing",
        "regrouped": "rallied",
        "dispersed": "fled off the table",
        "destroyed": "destroyed",
    }
    assert {test: in_russian(name) for test, name in WFB8.tests.items()} == {
        "panic": "тест на Панику",
        "break": "тест на Разгром",
        "rally": "тест на Сплочение",
        "flee": "бросок на отступление",
    }
    assert in_russian(WFB8.casualty_causes["stand_and_shoot"]) == "«Стоять и Стрелять»"
    assert in_russian(WFB8.casualty_causes["dangerous_terrain"]) == "Опасный ландшафт"
    assert in_russian(WFB8.title) == "Warhammer Fantasy Battle, 8-я редакция"
    assert WFB8.title == "Warhammer Fantasy Battle 8th edition"


def test_no_wfb8_message_is_left_in_english_in_russian():
    """Every Russian message of the wfb8 catalogue has Russian words in it (the ids it names, the
    game's title and the facts' machine names aside)."""
    said = {name: in_russian(WFB8.state_name(name)) for name in WFB8.state_names} | {
        name: in_russian(words) for name, words in [*WFB8.tests.items(), *WFB8.casualty_causes.items()]
    }
    said |= {name: in_russian(words) for name, words in WFB8.restrictions.items()}
    assert all(re.search("[а-яё]", text) for text in said.values()), said


# -- the clauses -----------------------------------------------------------------------------------------
def clause_file(name: str) -> dict:
    return tomllib.loads((FOLDER / name).read_text(encoding="utf-8"))


LATIN_ALLOWED = {"D6", "2D6", "Ld"}  # dice and the profile's Ld, as the Russian text writes them


def test_every_wfb8_clause_is_translated_once_by_its_id_and_none_is_left_in_english():
    english, russian = clause_file("clauses.toml"), clause_file("clauses.ru.toml")

    assert (russian["ruleset"], russian["language"]) == ("wfb8", "ru")
    assert [c["id"] for c in russian["clause"]] == [c["id"] for c in english["clause"]]
    by_id = {c["id"]: c for c in english["clause"]}
    for clause in russian["clause"]:
        for part in ("title", "words"):
            text = clause[part]
            assert text and text != by_id[clause["id"]][part], (clause["id"], part)
            assert re.search("[А-Яа-яЁё]", text), (clause["id"], part)
            latin = set(re.findall(r"[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*", text)) - LATIN_ALLOWED
            assert not latin, (clause["id"], part, latin)


def test_a_clause_is_quoted_in_russian_and_in_english_as_before():
    with language.speaking("ru"):
        assert say(catalogue.title("wfb8.multi.no_more_foes")) == "Нет больше противников"
        assert say(catalogue.title("wfb8.break.test")) == "Тест на Разгром"
        assert "Воодушевлением" in say(catalogue.words("wfb8.multi.left_combat"))
        assert {c.id: say(catalogue.title(c.id)) for c in catalogue.of_ruleset("wfb8")} == {
            c["id"]: c["title"] for c in clause_file("clauses.ru.toml")["clause"]
        }
    assert catalogue.title("wfb8.multi.no_more_foes") == "No more foes"
    assert say(catalogue.title("wfb8.break.test")) == "Break test"
