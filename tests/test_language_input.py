"""What the input readers say in Russian (issue 31): a notation's refusals, naming its line and
column; a roster's, naming its field; the questions a list builder's roster leaves, over the CLI
and HTTP; a webhook's refusals and why one is paused. The same in English is what it always was.

The notation a battle is written in is a file format, not words: `morale notation export` writes
the same bytes in every language (its one comment, which line an entry cites, too), so that a
battle's notation is the same whoever exported it; the last test holds it to that.
"""

from __future__ import annotations

import base64
import json
import tomllib
from pathlib import Path

import pytest
from litestar.testing import TestClient
from support.cli import morale

from morale.app import language
from morale.app.battlescribe import Question, Unanswered, read_answers, read_list_file, roster_data
from morale.app.http.server import Settings, create_app
from morale.app.notation.reader import NotationError, read
from morale.app.webhooks.hooks import failed, kept_words, timed_out
from morale.events.store import SqliteEventStore

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
ROSTER = EXAMPLES / "wh40k6" / "roster.toml"
BATTLE = "hive-tarsis"
HEAD = '[Battle "n"]\n[Ruleset "wh40k6"]\n[Sides "imperium" "orks"]\n'
NS = "http://www.battlescribe.net/schema/rosterSchema"


def said(text: str, lang: str) -> str:
    with language.speaking(lang):
        return language.say(text)


def refusal_of(text: str) -> str:
    """The words a notation is refused with (its exception's one argument, Words)."""
    with pytest.raises(NotationError) as refused:
        read(text)
    return refused.value.args[0]


def one_line(result) -> str:  # rich wraps a long refusal at the runner's width
    return " ".join(result.stderr.split())


# -- the notation -------------------------------------------------------------------------------------
def test_a_notation_with_an_unknown_escape_is_refused_in_russian_naming_its_line_and_column(tmp_path):
    path = tmp_path / "n.txt"
    path.write_text(HEAD + 'unit kraak imperium infantry 10 "Kr\\qk" ld 8\n', encoding="utf-8")
    db = tmp_path / "m.db"
    ru = morale(db, "--lang", "ru", "notation", "import", str(path), "--battle", "n2")
    assert ru.exit_code == 2
    assert one_line(ru) == (
        f"отказано: {path}, строка 4, столбец 36: текст в кавычках не читается: недопустимая escape-последовательность"
    )
    as_json = morale(db, "--lang", "ru", "notation", "import", str(path), "--battle", "n2", "--json")
    error = json.loads(as_json.stderr)["error"]
    assert error["message"].endswith(
        ", строка 4, столбец 36: текст в кавычках не читается: недопустимая escape-последовательность"
    )
    en = morale(db, "notation", "import", str(path), "--battle", "n2")
    assert one_line(en) == f"refused: {path} line 4, column 36: quoted text that does not read: Invalid \\escape"
    assert not db.exists() or SqliteEventStore(db).battles() == []  # nothing written in either


@pytest.mark.parametrize(
    ("lines", "ru", "en"),
    [
        (
            'unit kraak imperium infantry x "Kraak"',
            "input, строка 4, столбец 30: не ожидалось: 'x' (ожидается: число)",
            "input line 4, column 30: unexpected 'x' (expected a number)",
        ),
        (
            "kraak rolls morale 3 4 x",
            "input, строка 4, столбец 24: не ожидалось: 'x' (ожидается: `(engine)`, число, конец строки)",
            "input line 4, column 24: unexpected 'x' (expected `(engine)`, a number, the end of the line)",
        ),
        (
            'unit kraak imperium infantry 10 "Kr\\ud800k"',
            "input, строка 4, столбец 33: текст в кавычках с одиночным суррогатом (от \\ud800 до \\udfff без пары)",
            "input line 4, column 33: quoted text with a lone surrogate (\\ud800 to \\udfff alone)",
        ),
        (
            "-- imperium shooting --",
            "input, строка 4, столбец 1: перед заголовком фазы нужен заголовок хода `== Turn N ==`",
            "input line 4, column 1: a phase heading needs a `== Turn N ==` heading before it",
        ),
        (
            "== Turn 1 ==\nend",
            "input, строка 5, столбец 1: `end` закрывает фазу под последним заголовком `-- SIDE PHASE --`,"
            " а открытой фазы нет",
            "input line 5, column 1: `end` closes the phase under the last `-- SIDE PHASE --` heading,"
            " and none is open",
        ),
        (
            'unit kraak imperium infantry 10 "Kraak" profile wounds=1, wounds=2',
            "input, строка 4, столбец 59: wounds указано дважды",
            "input line 4, column 59: wounds is given twice",
        ),
        (
            '[Confirmation "maybe"]',
            'input, строка 4, столбец 1: [Confirmation] — это "on" или "off", а не \'maybe\'',
            'input line 4, column 1: [Confirmation] is "on" or "off", not \'maybe\'',
        ),
        (
            "[HouseRule x 1]\n[HouseRule x 2]",
            "input, строка 5, столбец 1: [HouseRule x] указан дважды (впервые в строке 4)",
            "input line 5, column 1: [HouseRule x] is given twice (first on line 4)",
        ),
    ],
)
def test_the_notations_refusals_are_said_in_russian_with_their_line_and_column(lines, ru, en):
    refused = refusal_of(HEAD + lines + "\n")
    assert said(refused, "ru") == ru
    assert said(refused, "en") == en == str(refused)


def test_the_referees_refusal_of_a_notations_line_is_said_in_russian_with_its_place(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text(HEAD + "ghost loses 2\n", encoding="utf-8")
    ru = morale(tmp_path / "m.db", "--lang", "ru", "notation", "import", str(path))
    assert one_line(ru) == f"отказано: unit: {path}, строка 4, столбец 1: в этой битве нет подразделения 'ghost'"
    en = morale(tmp_path / "m.db", "notation", "import", str(path))
    assert one_line(en) == f"refused: unit: {path} line 4, column 1: no unit 'ghost' in this battle"


@pytest.mark.parametrize(
    ("tag", "ru", "en"),
    [
        ('[Battle "a" "b"]', "[Battle] принимает 1 значение, а не 2", "[Battle] takes 1 value, not 2"),
        ('[PublicKey "k"]', "[PublicKey] принимает 2 значения, а не 1", "[PublicKey] takes 2 values, not 1"),
        ('[SignedHead 1 "h"]', "[SignedHead] принимает 4 значения, а не 2", "[SignedHead] takes 4 values, not 2"),
        ("[Sides]", "[Sides] принимает от 1 до 8 значений, а не 0", "[Sides] takes 1 to 8 values, not 0"),
    ],
)
def test_a_tag_given_the_wrong_number_of_values_says_how_many_it_takes_in_the_right_form(tag, ru, en):
    refused = refusal_of(tag + "\n" + HEAD)
    assert said(refused, "ru") == f"input, строка 1, столбец 1: {ru}"
    assert str(refused) == f"input line 1, column 1: {en}"


def test_the_notations_own_text_is_the_same_in_every_language(tmp_path):
    """Tags, keywords and the comment that says which line an entry cites are the file's format."""
    db = tmp_path / "m.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    assert morale(db, "append", BATTLE, "casualties_suffered", "unit=boyz", "count=3").exit_code == 0
    assert morale(db, "strike", BATTLE, "10", "--reason", "wrong unit", "--yes").exit_code == 0
    en = morale(db, "notation", "export", BATTLE)
    ru = morale(db, "--lang", "ru", "notation", "export", BATTLE)
    assert en.exit_code == ru.exit_code == 0 and ru.stdout == en.stdout
    assert "; #10 is line" in ru.stdout and "[Battle " in ru.stdout


# -- a roster's refusals --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("roster", "field", "ru", "en"),
    [
        (
            '[battle]\nid = "x"\nruleset = "wh40k6"\nsides = ["a", "b"]\ntables = "results.toml"\n',
            "battle.tables",
            'battle.tables сопоставляет таблице файл: tables = {results = "my.toml"}',
            'battle.tables maps a table to a file: tables = {results = "my.toml"}',
        ),
        (
            '[battle]\nruleset = "wh40k6"\nsides = ["a", "b"]\n',
            "battle.id",
            "дайте битве id (battle.id в ростере или --battle)",
            "give the battle an id (battle.id in the roster, or --battle)",
        ),
        (
            'unit = "boyz"\n[battle]\nid = "x"\nruleset = "wh40k6"\nsides = ["a", "b"]\n',
            "unit",
            "подразделения записываются таблицами [[unit]]",
            "units are written as [[unit]] tables",
        ),
        ('ruleset = "wh40k6"\n', "battle", "ростеру нужна таблица [battle]", "a roster needs a [battle] table"),
        (
            '[battle]\nid = "x"\nruleset = "wh40k6"\nsides = ["a", "b"]\n[[unit]]\nid = "boyz"\nside = "a"\n'
            'name = "Boyz"\ntype = "infantry"\nmodels = 10\nld = 99\n',
            "unit[0].ld",
            "unit[0]: ld: целое число от 0 до 10, а не 99",
            "unit[0]: ld: a whole number from 0 to 10, not 99",
        ),
    ],
)
def test_a_roster_is_refused_in_russian_naming_its_field(tmp_path, roster, field, ru, en):
    path = tmp_path / "r.toml"
    path.write_text(roster, encoding="utf-8")
    db = tmp_path / "m.db"
    refused = morale(db, "--lang", "ru", "new", str(path), "--json")
    assert refused.exit_code == 2
    error = json.loads(refused.stderr)["error"]
    assert error == {"message": f"{path}: {ru}", "rule": None, "field": field}
    assert one_line(morale(db, "--lang", "ru", "new", str(path))) == f"отказано: {path}: {ru}"
    assert one_line(morale(db, "new", str(path))) == f"refused: {path}: {en}"


def test_the_rules_refusal_of_a_rosters_unit_names_the_rosters_field_in_russian(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text(
        '[battle]\nid = "x"\nruleset = "wh40k6"\nsides = ["a", "b"]\n[[unit]]\nid = "boyz"\nside = "a"\n'
        'name = "Boyz"\ntype = "infantry"\nmodels = 10\ninitiative = 2\n',
        encoding="utf-8",
    )
    ru = morale(tmp_path / "m.db", "--lang", "ru", "new", str(path))
    assert one_line(ru) == "отказано: unit[0].ld: подразделению 40K нужно Лидерство (ld) для тестов на Мораль"
    en = morale(tmp_path / "m.db", "new", str(path))
    assert one_line(en) == "refused: unit[0].ld: a 40K unit needs its Leadership (ld) for Morale tests"


def test_a_roster_sent_to_the_server_is_refused_in_the_requests_language_naming_its_field(tmp_path):
    roster = '[battle]\nid = "x"\nruleset = "wh40k6"\nsides = ["a", "b"]\ntables = "r.toml"\n'
    with TestClient(create_app(tmp_path / "served.db", Settings())) as client:
        ru = client.post("/battles/roster?lang=ru", json={"roster": roster})
        en = client.post("/battles/roster", json={"roster": roster})
    assert ru.status_code == en.status_code == 400
    assert ru.json()["field"] == en.json()["field"] == "battle.tables"
    assert ru.json()["detail"] == 'roster: battle.tables сопоставляет таблице файл: tables = {results = "my.toml"}'
    assert en.json()["detail"] == 'roster: battle.tables maps a table to a file: tables = {results = "my.toml"}'


def test_a_roster_that_is_not_toml_says_so_in_russian_with_tomllibs_own_words(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text("[battle\n", encoding="utf-8")
    ru = one_line(morale(tmp_path / "m.db", "--lang", "ru", "new", str(path)))
    en = one_line(morale(tmp_path / "m.db", "new", str(path)))
    assert ru.startswith(f"отказано: {path}: это не корректный TOML: ")
    assert en.startswith(f"refused: {path}: not valid TOML: ")
    assert ru.partition("TOML: ")[2] == en.partition("TOML: ")[2]  # tomllib's words are its own


# -- a list builder's questions -------------------------------------------------------------------------
def listed(*paths: Path) -> list[dict]:
    return [{"file": path.name, "data": base64.b64encode(path.read_bytes()).decode()} for path in paths]


def test_a_list_builders_open_questions_are_asked_in_russian_at_the_command_line(tmp_path):
    rosz = EXAMPLES / "wh40k6" / "roster.rosz"
    db = tmp_path / "m.db"
    ru = morale(db, "--lang", "ru", "new", str(rosz), "--json")
    error = json.loads(ru.stderr)["error"]
    side = "За какую сторону играет армия 'Space Marines'? Армии образуют 3 стороны, а в битве их две"
    assert error["questions"][0] == {"key": 'force."Space Marines".side', "asks": side, "choices": []}
    assert error["message"] == f'{rosz}: до начала битвы нужно 9 ответов: force."Space Marines".side: {side}'
    rule = next(q for q in error["questions"] if q["key"] == 'rules."Mob Rule"')
    assert rule["asks"] == (
        "Что значит правило 'Mob Rule' в wh40k6? Одно из особых правил wh40k6 или false, если оно не влияет на мораль"
    )
    # The answers file to fill in: its comments in Russian, its tables and keys those of the English one.
    template_ru = morale(db, "--lang", "ru", "new", str(rosz)).stdout
    template_en = morale(db, "new", str(rosz)).stdout
    assert f"# {side}." in template_ru
    assert "# Подразделения с этим правилом: Ork Boyz, Nobz, Lootas." in template_ru
    assert "# Units with it: Ork Boyz, Nobz, Lootas." in template_en
    assert "# Which side does the force 'Space Marines' play? The forces make 3 sides and a battle has two." in (
        template_en
    )
    assert tomllib.loads(template_ru) == tomllib.loads(template_en)


def test_a_list_builders_open_questions_are_asked_in_the_requests_language_over_http(tmp_path):
    with TestClient(create_app(tmp_path / "served.db", Settings())) as client:
        body = {"lists": listed(EXAMPLES / "wh40k6" / "roster.rosz")}
        ru = client.post("/battles/roster?lang=ru", json=body)
        en = client.post("/battles/roster", json=body)
    assert ru.status_code == en.status_code == 422
    assert ru.json()["detail"].startswith("roster.rosz: до начала битвы нужно 9 ответов: force.")
    assert en.json()["detail"].startswith("roster.rosz: 9 answers are needed before the battle can start: force.")
    asked_ru = {q["key"]: q["asks"] for q in ru.json()["questions"]}
    asked_en = {q["key"]: q["asks"] for q in en.json()["questions"]}
    assert asked_ru.keys() == asked_en.keys()  # the keys are the answers file's, in every language
    assert asked_ru['force."Orks".side'] == (
        "За какую сторону играет армия 'Orks'? Армии образуют 3 стороны, а в битве их две"
    )
    assert (
        asked_en['force."Orks".side']
        == "Which side does the force 'Orks' play? The forces make 3 sides and a battle has two"
    )


def ros(selections: str, system: str) -> bytes:
    """A roster of one force with `selections`, and a second force of ten Ork Boyz."""
    boyz = model_unit("Boyz", "Ork Boy", 10, {"Ld": "7", "I": "2", "Unit Type": "Infantry"})
    forces = "".join(
        f'<force id="f{i}" name="Standard" entryId="e" catalogueId="c{i}" catalogueName="{name}"><selections>'
        f"{units}</selections></force>"
        for i, (name, units) in enumerate((("Empire", selections), ("Orcs", boyz)))
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><roster xmlns="{NS}" id="r" name="Test" gameSystemId="g" '
        f'gameSystemName="{system}"><forces>{forces}</forces></roster>'
    ).encode()


def model_unit(name: str, model: str, count: int, stats: dict[str, str]) -> str:
    characteristics = "".join(f'<characteristic name="{k}" typeId="t">{v}</characteristic>' for k, v in stats.items())
    return (
        f'<selection id="{name}" name="{name}" entryId="e" number="1" type="unit"><selections>'
        f'<selection id="{model}" name="{model}" entryId="e" number="{count}" type="model"><profiles>'
        f'<profile id="p" name="{model}" typeId="t" typeName="Unit"><characteristics>{characteristics}'
        "</characteristics></profile></profiles></selection></selections></selection>"
    )


def open_questions(data: bytes) -> list[Question]:
    with pytest.raises(Unanswered) as open_ones:
        roster_data([read_list_file(data, "t.ros")], read_answers("", "a.toml"))
    return open_ones.value.questions


def test_a_leadership_the_rules_need_and_the_roster_lacks_is_asked_in_russian_in_the_rules_words():
    halberdiers = model_unit("Halberdiers", "Halberdier", 20, {"I": "3", "Unit Type": "Infantry"})
    [asked] = open_questions(ros(halberdiers, "Warhammer Fantasy Battle 8th Edition"))
    assert asked.key == 'unit."Halberdiers".ld'
    assert said(asked.asks, "ru") == (
        "Правила требуют: подразделению WFB нужно Лидерство (ld) для тестов на Панику, Разгром и Сплочение,"
        " а в ростере для 'Halberdiers' этого нет"
    )
    assert asked.asks == (  # the English opens with a capital, as it did
        "A WFB unit needs its Leadership (ld) for Panic, Break and Rally tests, and the roster gives none for"
        " 'Halberdiers'"
    )


def test_a_unit_whose_leadership_is_no_number_is_asked_in_russian():
    odd = model_unit("Odd", "Odd", 5, {"Ld": "x", "I": "3", "Unit Type": "Infantry"})
    [asked] = open_questions(ros(odd, "Warhammer 40,000 6th Edition"))
    assert said(asked.asks, "ru") == "Каково Лидерство подразделения 'Odd'? В ростере указано 'x', а это не число"
    assert asked.asks == "What is 'Odd''s leadership? The roster gives 'x', which is no number"


@pytest.mark.parametrize(
    ("count", "ru", "en"),
    [
        (1, "нужен 1 ответ", "1 answer is needed"),
        (2, "нужны 2 ответа", "2 answers are needed"),
        (5, "нужно 5 ответов", "5 answers are needed"),
        (21, "нужен 21 ответ", "21 answers are needed"),
    ],
)
def test_the_answers_still_needed_are_counted_in_russian(count, ru, en):
    question = Question("battle", "", "id", open_questions_id_asks())
    unanswered = Unanswered("t.ros", [question] * count)
    asks = "Какой у битвы id? Он называет битву в каждой ссылке: буквы, цифры, '_', '.' или '-'"
    assert said(unanswered.args[0], "ru") == f"t.ros: до начала битвы {ru}: battle.id: {asks}"
    assert str(unanswered).startswith(f"t.ros: {en} before the battle can start: battle.id: What is the battle's id?")


def open_questions_id_asks():
    """The question a roster without a name leaves: the battle's id."""
    nameless = ros("", "Warhammer 40,000 6th Edition").replace(b'name="Test" ', b"")
    return next(q for q in open_questions(nameless) if q.key == "battle.id").asks


def test_an_answers_file_is_refused_in_russian_naming_its_key():
    with pytest.raises(Exception) as refused:
        read_answers('[rules]\n"Mob Rule" = 3\n', "a.toml")
    assert refused.value.field == 'rules."Mob Rule"'
    assert said(refused.value.args[0], "ru") == (
        'a.toml: rules."Mob Rule": укажите id правила в наборе правил или false, если оно не влияет на мораль'
    )
    assert str(refused.value) == (
        'a.toml: rules."Mob Rule": give the ruleset\'s id for the rule, or false if it does not change morale'
    )


# -- webhooks --------------------------------------------------------------------------------------------
def test_a_webhook_is_refused_and_its_pause_said_in_russian(tmp_path):
    db = tmp_path / "m.db"
    assert morale(db, "new", str(ROSTER)).exit_code == 0
    refused = morale(db, "--lang", "ru", "hook", "add", BATTLE, "ftp://bot.example", "--label", "bot")
    assert one_line(refused) == (
        "отказано: url: 'ftp://bot.example' — не URL http или https, на котором слушает получатель"
        " (https://bot.example/morale)"
    )
    added = morale(db, "hook", "add", BATTLE, "https://bot.example/in", "--label", "bot")
    hook_id = added.stdout.split()[1]
    store = SqliteEventStore(db)
    store.update_hook(BATTLE, hook_id, paused=str(failed(3, 10, 10, "HTTP 500")), failures=3)  # as deliver.py keeps it
    store.close()
    ru = " ".join(morale(db, "--lang", "ru", "hook", "list", BATTLE).stdout.split())
    en = " ".join(morale(db, "hook", "list", BATTLE).stdout.split())
    assert "Приостановлен: 3 попытки подряд не удались на событии 10; последняя: HTTP 500." in ru
    assert "Paused: 3 attempts in a row failed at event 10; the last: HTTP 500." in en
    as_json = json.loads(morale(db, "--lang", "ru", "hook", "list", BATTLE, "--json").stdout)
    assert as_json[0]["paused_because"] == "3 попытки подряд не удались на событии 10; последняя: HTTP 500"
    assert as_json[0]["state"] == "paused"  # a machine field, the same in every language


@pytest.mark.parametrize(
    ("failures", "ru"),
    [
        (1, "1 попытка подряд не удалась"),
        (2, "2 попытки подряд не удались"),
        (5, "5 попыток подряд не удались"),
    ],
)
def test_the_attempts_that_paused_a_hook_are_counted_in_russian_from_what_the_store_keeps(failures, ru):
    kept = str(failed(failures, 0, 12, str(timed_out(0.5))))  # the store keeps English
    again = kept_words(kept)
    assert said(again, "ru") == f"{ru} на событии 12; последняя: нет ответа за 0,5 с"
    assert again == kept  # its English is what was kept, byte for byte


def test_a_receivers_own_answer_is_kept_as_it_said_it():
    assert said(kept_words("HTTP 500: invalid signature"), "ru") == "HTTP 500: invalid signature"
    assert said(kept_words("the receiver answered 410 Gone at event 7"), "ru") == (
        "получатель ответил 410 Gone на событии 7"
    )
