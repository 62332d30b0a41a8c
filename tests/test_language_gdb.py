"""General de Brigade in Russian as well as English (issue 31): its refusals, the reasons of its
modifiers (the figures agreeing with their number: 1 фигурка, 2 фигурки, 5 фигурок), its results and
states in the words of the Russian rule text, and every clause in `clauses.ru.toml`; in English all of
it is as it always was."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from support.gdb import charge, gdb_table, gdb_unit, roll

from morale.app import language
from morale.app.language import say
from morale.core import catalogue
from morale.core.rules import CLAUSES, Refusal
from morale.core.rulesets.gdb.ruleset import GDB, RESULT_WORDS, TESTS
from morale.core.words import Words
from morale.events.types import ChargeDeclared

GDB_FOLDER = Path(__file__).resolve().parents[1] / "core" / "rulesets" / "gdb"


def russian(text: str) -> str:
    with language.speaking("ru"):
        return say(text)


def reasons(table, unit: str) -> dict[str, str]:
    """rule -> the reason of each modifier of the unit's test due."""
    (due,) = [d for d in table.battle.due if d.unit == unit]
    return {m.rule: m.reason for m in due.modifiers}


def charging(*units, charger: str = "fusiliers", target: str = "whitecoats"):
    table = gdb_table(*units)
    table.go_to(1, "french", "charge")
    charge(table, charger, target)
    return table


def allied(unit_id: str = "whitecoats", **profile):
    return gdb_unit(unit_id, "allies", **{"brigade": "second", **profile})


# -- refusals ---------------------------------------------------------------------------------------
def test_a_charge_out_of_the_charge_phase_is_refused_in_russian_and_in_english_as_before():
    table = gdb_table(gdb_unit("fusiliers"), allied())
    table.go_to(1, "french", "movement")

    refused = table.refuse(ChargeDeclared(charger="fusiliers", targets=("whitecoats",), in_range=("whitecoats",)))

    assert isinstance(refused.message, Words)
    assert russian(refused.message) == "Атаки объявляются в фазе Атак"
    assert str(refused) == "gdb.trigger.charging: charges are declared in the Charge phase"


def test_a_retreating_charger_is_refused_naming_the_unit_in_russian():
    table = gdb_table(gdb_unit("fusiliers"), allied())
    table.go_to(1, "french", "charge")
    charge(table, "fusiliers", "whitecoats")
    roll(table, "fusiliers", "charging", 1, 1)  # 2: Retreat
    table.go_to(1, "french", "morale")
    roll(table, "fusiliers", "rally", 1, 1)  # fails: it keeps retreating
    table.go_to(2, "french", "charge")

    refused = table.refuse(ChargeDeclared(charger="fusiliers", targets=("whitecoats",), in_range=("whitecoats",)))

    assert russian(refused.message) == "fusiliers отступает: атаковать нельзя"
    assert refused.message == "fusiliers is retreating: it cannot charge"


def test_artillery_that_would_charge_is_refused_in_russian():
    table = gdb_table(gdb_unit("guns", unit_type="foot_artillery"), allied())
    table.go_to(1, "french", "charge")

    refused = table.refuse(ChargeDeclared(charger="guns", targets=("whitecoats",), in_range=("whitecoats",)))

    assert russian(refused.message) == "guns — артиллерия и не атакует"
    assert refused.message == "guns is artillery and does not charge"


def test_a_profile_the_rules_forbid_is_refused_in_the_books_words():
    table = gdb_table(allied())

    square = table.refuse(gdb_unit("hussars", unit_type="cavalry", formation="square"))
    line = table.refuse(gdb_unit("battery", unit_type="foot_artillery", formation="line"))

    assert russian(square.message) == "в каре строится только пехота, а не «кавалерия»"
    assert square.message == "only infantry forms square, not cavalry"
    assert russian(line.message) == (
        "построение «линия» недоступно для типа «пешая артиллерия» (допустимо: снято с передков, на передках)"
    )
    assert line.message == "foot_artillery cannot be in line (allowed: unlimbered, limbered)"


@pytest.mark.parametrize(
    ("models", "said"),
    [
        (21, "полная численность 20 меньше, чем есть в подразделении: 21 фигурка"),
        (22, "полная численность 20 меньше, чем есть в подразделении: 22 фигурки"),
        (25, "полная численность 20 меньше, чем есть в подразделении: 25 фигурок"),
    ],
)
def test_more_figures_than_full_strength_is_refused_the_figures_agreeing_with_their_number(models, said):
    table = gdb_table(allied())

    refused = table.refuse(gdb_unit("fusiliers", models=models, full_strength=20))

    assert russian(refused.message) == said
    assert refused.message == f"full strength 20 is less than the {models} figures it has"


def test_a_results_table_that_leaves_a_column_empty_is_refused_in_russian():
    values = {"charging": [{"result": "charge"}], "charged": [{"result": "charge"}]}
    values |= {"morale": [{"result": "carry_on"}], "rally": []}

    with pytest.raises(Refusal) as refused:
        GDB.read_table("results", values)

    assert refused.value.field == "tables.results"
    assert russian(refused.value.message) == "в колонке 'rally' нет строк"
    assert refused.value.message == "column 'rally' has no rows"


# -- modifiers --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("models", "full", "english", "said"),
    [
        (8, 9, "1 of 9 figures lost: more than 10%", "потеряна 1 фигурка из 9: более 10%"),
        (17, 20, "3 of 20 figures lost: more than 10%", "потеряны 3 фигурки из 20: более 10%"),
        (15, 20, "5 of 20 figures lost: more than 10%", "потеряно 5 фигурок из 20: более 10%"),
        (12, 20, "8 of 20 figures lost: more than 35%", "потеряно 8 фигурок из 20: более 35%"),
    ],
)
def test_the_losses_modifier_says_the_figures_lost_agreeing_with_their_number(models, full, english, said):
    table = charging(gdb_unit("fusiliers", models=models, full_strength=full), allied())

    reason = reasons(table, "fusiliers")["gdb.mod.losses"]

    assert reason == english
    assert russian(reason) == said


def test_the_general_modifiers_are_said_in_the_books_words():
    unit = gdb_unit("fusiliers", quality="guard", commander="brigade", formation="square")
    said = {rule: russian(reason) for rule, reason in reasons(charging(unit, allied()), "fusiliers").items()}

    assert said == {
        "gdb.mod.commander": "к подразделению присоединён Командующий Бригадой",
        "gdb.mod.quality": "гвардия",
        "gdb.mod.no_losses": "нет потерь",
        "gdb.mod.square": "в каре",
    }


def test_a_charged_unit_says_what_charged_it_and_in_english_as_before():
    table = charging(allied(formation="column"), gdb_unit("fusiliers"), charger="fusiliers", target="whitecoats")
    roll(table, "fusiliers", "charging", 6, 5)

    reason = reasons(table, "whitecoats")["gdb.mod.charged.column"]

    assert russian(reason) == "пехота в колонне атакована пехотой"
    assert reason == "infantry in column charged by infantry"


# -- results, states, tests ---------------------------------------------------------------------------
def test_the_results_are_named_as_the_russian_results_table_names_them():
    said = {key: russian(words) for key, words in RESULT_WORDS.items()}

    assert said["result:charge"] == "Атака"
    assert said["result:carry_on"] == "Выполняет приказ или стоит на месте"
    assert said["result:halt"] == "Останавливается"
    assert said["result:waver"] == "Колеблется"
    assert said["result:retreat"] == "Отступает"
    assert said["result:rout"] == "Бежит"
    assert said["result:rally"] == "Собирается"
    assert said["column:brigade"] == "Тест на Проверку Морали Бригады"
    assert RESULT_WORDS["result:carry_on"] == "Carry out orders"


def test_the_states_and_tests_are_named_in_russian_and_in_english_as_before():
    states = {state: russian(GDB.state_name(state)) for state in ("falling_back", "broken", "wavering", "dispersed")}

    assert states == {"falling_back": "отступает", "broken": "бежит", "wavering": "колеблется", "dispersed": "рассеяно"}
    assert GDB.state_name("falling_back") == "retreating" and GDB.state_name("broken") == "routing"
    assert russian(TESTS["morale"]) == "Тест на Проверку Морали"
    assert russian(TESTS["rally"]) == "тест на Сбор"
    assert TESTS["morale"] == "Morale Check Test"


def test_a_clauses_phrase_is_said_in_russian():
    assert russian(CLAUSES["gdb.result.waver"].answers["phrase"]) == "колеблется: останавливается на месте"
    rally = CLAUSES["gdb.rout.rally"].answers["phrase"]
    assert russian(rally["dispersed"]) == "проваливает свою единственную попытку Сбора и рассеивается"
    assert rally["dispersed"] == "fails its one rally attempt and is dispersed"


def test_a_restriction_lasts_until_the_end_of_a_phase_said_in_russian():
    table = gdb_table(gdb_unit("fusiliers"), allied())

    until = GDB.describe_point(table.battle, (2, 0, 1))

    assert russian(until) == "конец фазы Атак хода 2"
    assert until == "end of the charge phase of turn 2"


@pytest.mark.parametrize(
    ("profile", "english", "said"),
    [
        ({}, "line, formed", "линия, построено"),
        (
            {"formation": "column", "formed": False, "location": "church", "commander": "brigade"},
            "column, unformed, in a church, brigade attached",
            "колонна, непостроено, в церкви, присоединён Командующий Бригадой",
        ),
        ({"location": "redoubt"}, "line, formed, in a redoubt", "линия, построено, в редуте"),
        (
            {"formation": "skirmish_order", "commander": "commander_in_chief"},
            "skirmish order, formed, commander in chief attached",
            "рассыпной строй, построено, присоединён Главнокомандующий",
        ),
    ],
)
def test_the_board_describes_a_units_profile_in_whole_sentences(profile, english, said):
    table = gdb_table(gdb_unit("fusiliers", **profile), allied())

    described = GDB.describe_profile(table.unit("fusiliers"))

    assert described == english
    assert russian(described) == said


# -- the catalogue and the clauses ----------------------------------------------------------------
def test_every_clause_is_written_in_russian_by_the_same_ids_and_none_is_left_in_english():
    english = tomllib.loads((GDB_FOLDER / "clauses.toml").read_text(encoding="utf-8"))
    russian_file = tomllib.loads((GDB_FOLDER / "clauses.ru.toml").read_text(encoding="utf-8"))
    by_id = {c["id"]: c for c in russian_file["clause"]}

    assert (russian_file["ruleset"], russian_file["language"]) == ("gdb", "ru")
    assert [c["id"] for c in russian_file["clause"]] == [c["id"] for c in english["clause"]]
    assert len(by_id) == len(english["clause"]) == 57
    for clause in english["clause"]:
        translated = by_id[clause["id"]]
        assert translated["title"] != clause["title"] and translated["words"] != clause["words"]
        for text in (translated["title"], translated["words"]):
            letters = [ch for ch in text if ch.isalpha()]
            latin = [ch for ch in letters if ch.isascii()]
            assert len(latin) * 10 < len(letters), f"{clause['id']}: {text!r} reads as English"


def test_a_clause_is_quoted_in_russian_and_in_english_as_before():
    title, words = catalogue.title("gdb.result.carry_on"), catalogue.words("gdb.test.procedure")

    assert russian(title) == "Выполняет приказ или стоит на месте"
    assert russian(words).startswith("Бросьте 2D6, прибавьте модификаторы")
    assert title == "Carry out orders" and words.startswith("Roll 2D6, add the modifiers")


def test_no_message_of_the_catalogue_is_left_in_english():
    """Every Russian message says something other than its English (a template of placeholders and
    commas alone aside)."""
    from babel.messages.pofile import read_po

    with (GDB_FOLDER / "messages.ru.po").open("rb") as fp:
        book = read_po(fp, locale="ru")
    for message in book:
        if not message.id:
            continue
        ids = list(message.id) if isinstance(message.id, tuple | list) else [message.id]
        strings = list(message.string) if isinstance(message.string, tuple | list) else [message.string]
        if not any(ch.isalpha() for ch in ids[0].replace("{", " {").split("}")[-1]) and "{" in ids[0]:
            continue  # "{formation}, {formed}": nothing but the words it is given
        assert all(s and s not in ids for s in strings), ids[0]
