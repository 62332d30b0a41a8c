"""The 40K rule catalogue in Russian (issue 31): a Russian reader of `morale rules`, explain or the
narrative reads each clause of wh40k6, wh40k3 and the wh40k10 example in Russian, by the same rule IDs,
and an English reader reads them exactly as before."""

from __future__ import annotations

import re
import tomllib
from importlib import resources

import pytest

from morale.app import language
from morale.app.language import say
from morale.core import catalogue

# Each ruleset and the package its clause files sit in (the wh40k10 example only when it is installed).
PACKAGES = {"wh40k6": "morale.core.rulesets.wh40k", "wh40k3": "morale.core.rulesets.wh40k"}
if "wh40k10" in catalogue.rulesets():
    PACKAGES["wh40k10"] = "morale_wh40k10"
RULESETS = list(PACKAGES)

# Kept Latin on purpose: rule IDs and field names (with `_` or `.`), dice and figures (2D6, 1CP, 6+),
# and the characteristics' abbreviations.
_KEPT = re.compile(r"\S*[_\d]\S*|\bLd\b|\bCP\b|\bOC\b")


def _russian(ruleset: str) -> dict[str, catalogue.Translated]:
    return {rule: found for rule, found in catalogue.translated("ru").items() if rule.startswith(f"{ruleset}.")}


def _mostly_cyrillic(text: str) -> bool:
    letters = [ch for ch in _KEPT.sub(" ", text) if ch.isalpha()]
    cyrillic = [ch for ch in letters if "\u0400" <= ch <= "\u04ff"]
    return bool(letters) and 2 * len(cyrillic) >= len(letters)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_clause_of_the_english_catalogue_has_a_russian_title_and_words(ruleset):
    russian = _russian(ruleset)
    english = [clause.id for clause in catalogue.of_ruleset(ruleset)]
    assert english, f"{ruleset} has no clauses in the catalogue"
    missing = [rule for rule in english if rule not in russian]
    assert not missing, f"no Russian for {missing}"
    for rule in english:
        assert russian[rule].title.strip() and russian[rule].words.strip(), rule


@pytest.mark.parametrize("ruleset", RULESETS)
def test_no_russian_clause_names_an_id_the_english_catalogue_lacks(ruleset):
    english = {clause.id for clause in catalogue.of_ruleset(ruleset)}
    assert sorted(set(_russian(ruleset)) - english) == []


@pytest.mark.parametrize("ruleset", RULESETS)
def test_no_russian_title_or_words_is_left_in_english(ruleset):
    for rule, found in _russian(ruleset).items():
        clause = catalogue.clause(rule)
        assert clause is not None
        for part, text, original in (("title", found.title, clause.title), ("words", found.words, clause.words)):
            assert text != original, f"{rule} {part} is the English one"
            assert _mostly_cyrillic(text), f"{rule} {part} is not in Russian: {text!r}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_each_russian_file_names_its_ruleset_and_language(ruleset):
    data = (resources.files(PACKAGES[ruleset]) / f"{ruleset}_clauses.ru.toml").read_text(encoding="utf-8")
    parsed = tomllib.loads(data)
    assert (parsed["ruleset"], parsed["language"]) == (ruleset, "ru")
    ids = [entry["id"] for entry in parsed["clause"]]
    assert ids == [clause.id for clause in catalogue.of_ruleset(ruleset)]  # in the English file's order


def test_a_clause_title_is_said_in_russian_and_stays_english_for_an_english_reader():
    title = catalogue.title("wh40k6.test.morale")
    assert say(title, "ru") == "Тест на Мораль"
    assert say(title, "en") == title == "Morale test"
    with language.speaking("ru"):
        assert say(title) == "Тест на Мораль"
        assert say(catalogue.title("wh40k3.crossfire")) == "Под перекрёстным огнём"
        assert say(catalogue.title("wh40k6.fall_back.start")) == "Отступление"


def test_a_clause_words_are_said_in_russian_with_the_rule_texts_terms():
    with language.speaking("ru"):
        regroup = say(catalogue.words("wh40k6.regroup.fail"))
        sixth_casualties = say(catalogue.words("wh40k6.trigger.casualties"))
        third_regroup = say(catalogue.words("wh40k3.regroup.when"))
    assert regroup == "Подразделение, провалившее тест на Восстановление порядка, немедленно снова Отступает."
    assert "фазу Движения или Стрельбы" in sixth_casualties and "тест на Мораль" in sixth_casualties
    assert "фазы движения" in third_regroup and "тестом на лидерство" in third_regroup
    english = say(catalogue.words("wh40k6.regroup.fail"), "en")
    assert english == "A unit that fails its Regroup test Falls Back again at once."


@pytest.mark.skipif("wh40k10" not in PACKAGES, reason="the wh40k10 example is not installed")
def test_the_tenth_edition_example_speaks_of_battle_shock_in_russian():
    with language.speaking("ru"):
        assert say(catalogue.title("wh40k10.test.roll")) == "Тест на Боевой шок"
        assert say(catalogue.title("wh40k10.insane_bravery")) == "Безумная храбрость"
        assert "Командной фазы" in say(catalogue.words("wh40k10.step.battle_shock"))
    assert say(catalogue.title("wh40k10.test.roll"), "en") == "Battle-shock test"
