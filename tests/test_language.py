"""Words in English and Russian (issue 31): the catalogues are complete, a language is chosen where a
reader would choose it, and machine fields never change with it."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from litestar.testing import TestClient
from support.cli import morale
from support.served import BATTLE, ROSTER

from morale.app import language
from morale.app.http.server import create_app
from morale.core.words import Words, counted

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import catalogues  # noqa: E402 (tools/ is no package: the script `make catalogues` runs)


def test_every_message_has_its_russian_words_with_the_same_placeholders_and_is_compiled():
    """The catalogue check of `make catalogues --check`: a message with no Russian, a translation
    that drops a placeholder, a template extraction cannot see, a stale .mo or .json all fail."""
    assert list(catalogues.problems("ru")) == []


def test_the_app_reads_every_catalogue_make_catalogues_compiles():
    compiled = {catalogues.compiled_path(folder, "ru").resolve() for folder in catalogues.FOLDERS if not folder.script}
    installed_games = {path for path in compiled if "examples" not in path.parts}  # wh40k10: only when installed
    assert installed_games <= set(language.catalogue_files("ru"))


def test_the_catalogue_check_finds_a_missing_translation_and_a_dropped_placeholder(tmp_path, monkeypatch):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "rules.py").write_text(
        'from morale.core.words import Words\nA = Words("{unit} is Falling Back", unit="x")\nB = Words("shaken")\n'
    )
    (folder / "messages.ru.po").write_text(
        'msgid ""\nmsgstr ""\n"Language: ru\\n"\n\nmsgid "{unit} is Falling Back"\nmsgstr "Отступает"\n'
    )
    monkeypatch.setattr(catalogues, "ROOT", tmp_path)
    monkeypatch.setattr(catalogues, "FOLDERS", (catalogues.Folder("game"),))

    found = list(catalogues.problems("ru"))

    assert "game/messages.ru.po: not in step with the code (run `make catalogues`)" in found
    assert "game/messages.ru.po: no ru words for 'shaken'" in found
    assert any("'Отступает' has [], not ['unit']" in problem for problem in found)
    assert "game/messages.ru.mo: not compiled from game/messages.ru.po (run `make catalogues`)" in found


def test_a_template_that_is_not_a_literal_is_found(tmp_path, monkeypatch):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "rules.py").write_text('from morale.core.words import Words\nname = "x"\nA = Words(f"{name} flees")\n')
    monkeypatch.setattr(catalogues, "ROOT", tmp_path)
    monkeypatch.setattr(catalogues, "FOLDERS", (catalogues.Folder("game"),))

    assert list(catalogues.unextractable(catalogues.FOLDERS[0])) == [
        "game/rules.py:3: Words(...) needs a literal template"
    ]


def test_words_are_their_english_wherever_a_str_is_wanted_and_keep_their_template():
    said = Words("{unit} loses {models} models", unit="kraak", models=3)

    assert said == "kraak loses 3 models" and isinstance(said, str)
    assert (said.template, dict(said.args)) == ("{unit} loses {models} models", {"unit": "kraak", "models": 3})
    assert pickle.loads(pickle.dumps(said)).template == said.template
    assert (
        counted("{n} model", "{n} models", n=1) == "1 model" and counted("{n} model", "{n} models", n=5) == "5 models"
    )


def test_words_refuse_to_leave_as_json_in_no_language_and_leave_in_the_readers():
    said = Words("Not Found")
    with pytest.raises(TypeError):
        msgspec.json.encode({"title": said})
    with language.speaking("ru"):
        assert msgspec.json.encode({"title": said}, enc_hook=language.enc_hook) == '{"title":"Не найдено"}'.encode()
    assert msgspec.json.encode({"title": said}, enc_hook=language.enc_hook) == b'{"title":"Not Found"}'


def test_a_russian_number_has_a_decimal_comma():
    with language.speaking("ru"):
        assert language.say(Words("lang: no language {asked!r} here (known: {known})", asked="x", known=3.5)).endswith(
            "(известны: 3,5)"
        )


@pytest.mark.parametrize(
    ("environ", "chosen"),
    [
        ({"MORALE_LANG": "ru", "LANG": "en_GB.UTF-8"}, "ru"),
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LC_ALL": "C", "LANG": "ru_RU.UTF-8"}, "en"),  # the first one set decides, as gettext reads them
        ({"LC_MESSAGES": "ru_UA", "LANG": "de_DE"}, "ru"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_cli_language_comes_from_morale_lang_else_the_locale(environ, chosen):
    assert language.from_environment(environ) == chosen


def test_an_unknown_morale_lang_is_refused_naming_it():
    with pytest.raises(language.UnknownLanguage, match="MORALE_LANG: no language 'fr'"):
        language.from_environment({"MORALE_LANG": "fr"})


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        ("ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru"),
        ("en-US,en;q=0.9,ru;q=0.8", "en"),
        ("de-DE,ru;q=0.5", "ru"),
        ("ru;q=0, en;q=0.1", "en"),
        ("fr, de", None),
        ("", None),
        ("ru;q=bogus", None),
    ],
)
def test_a_browser_language_is_the_best_of_ours_it_accepts(header, chosen):
    assert language.from_accept_language(header) == chosen


def test_the_cli_says_a_refusal_in_russian_with_lang_or_morale_lang_and_keeps_its_field(tmp_path, monkeypatch):
    db = tmp_path / "m.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0

    refused = morale(db, "--lang", "ru", "board", "no-such-battle")

    assert refused.exit_code == 2 and refused.stderr.startswith("отказано: ")
    monkeypatch.setenv("MORALE_LANG", "ru")
    assert morale(db, "board", "no-such-battle").stderr.startswith("отказано: ")
    assert morale(db, "--lang", "en", "board", "no-such-battle").stderr.startswith("refused: ")


def test_the_cli_refuses_a_language_it_does_not_speak(tmp_path):
    refused = morale(tmp_path / "m.db", "--lang", "fr", "board", BATTLE)

    assert refused.exit_code == 2 and "--lang" in refused.stderr and "no language 'fr'" in refused.stderr


def test_the_cli_refuses_a_morale_lang_it_does_not_speak_in_a_process_of_its_own(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "morale.app.cli", "board", BATTLE, "--db", str(tmp_path / "m.db")],
        env={"PATH": "/usr/bin:/bin", "MORALE_LANG": "fr"},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "$MORALE_LANG: no language 'fr'" in run.stderr


def test_a_problem_is_titled_in_the_requests_language_with_its_type_unchanged(tmp_path):
    db = tmp_path / "served.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    with TestClient(create_app(db)) as client:
        english = client.get("/battles/nowhere/board")
        russian = client.get("/battles/nowhere/board", headers={"Accept-Language": "ru-RU,ru;q=0.9"})
        asked = client.get("/battles/nowhere/board", params={"lang": "ru"}, headers={"Accept-Language": "en"})

    assert english.json()["title"] == "A token of this battle is needed"
    assert russian.json()["title"] == asked.json()["title"] == "Нужен токен этой битвы"
    assert russian.json()["type"] == english.json()["type"] == "urn:morale:problem:token"
    assert russian.status_code == english.status_code == 401


def test_a_language_the_server_does_not_speak_is_a_400_naming_lang(tmp_path):
    db = tmp_path / "served.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    with TestClient(create_app(db)) as client:
        refused = client.get("/battles/nowhere/board", params={"lang": "fr"})

    assert refused.status_code == 400
    assert refused.json()["field"] == "lang" and "no language 'fr'" in refused.json()["detail"]


def test_a_game_says_its_own_state_names_where_another_game_says_the_same_english_otherwise():
    """40K's "regrouped" and General de Brigade's "regrouped" (a result: rallied, unformed) are one
    English word said two ways in Russian: each game's state name comes from its own catalogue first."""
    from morale.core.rulesets.base import lookup

    assert language.catalogue("ru").gettext("regrouped") in ("перегруппировалось", "собралось, непостроено")
    for ruleset in ("wh40k6", "wh40k3"):
        assert language.say(lookup(ruleset, "1").state_name("regrouped"), "ru") == "перегруппировалось"
