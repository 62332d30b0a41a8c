"""The judge's tools and the report in Russian (issue 31): `morale --lang ru report` renders the
whole page in Russian (its `<html lang>`, every heading, table header and caption, and each chart's
title, axes and labels), the luck statistic says the same numbers in Russian words, time travel,
verify, what-if, the disputes and the vocabulary say theirs, a count agrees with its noun (1 модель,
2 модели, 5 моделей) and the same commands in English are as they were."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path
from xml.etree import ElementTree

import msgspec
import pytest
from babel.messages.pofile import read_po
from support.cli import morale
from support.examples import EXAMPLE, ROOT, example_store

from morale.app import language
from morale.app.language import say, speaking
from morale.core.claims import Dispute
from morale.core.rules import Refusal
from morale.core.rulesets import lookup
from morale.projections.claims import dispute_words
from morale.projections.luck import PERCENTILE_NAME, PERCENTILE_WORDS, luck
from morale.projections.report import report
from morale.projections.timeline import Timeline, turn_span
from morale.projections.verify import link_problem
from morale.projections.vocabulary import vocabulary
from morale.projections.whatif import Amendment, what_if

BATTLE = "hive-tarsis"
MINE = [
    ROOT / "app" / "report" / "page.py",
    ROOT / "app" / "report" / "charts.py",
    *(ROOT / "projections" / f"{name}.py" for name in ("report", "luck", "timeline", "verify", "whatif")),
    *(ROOT / "projections" / f"{name}.py" for name in ("claims", "vocabulary", "signed")),
]


@pytest.fixture(autouse=True)
def english_after():
    """Each test leaves the language as it found it (a `--lang` in-process chooses it for the runner)."""
    with speaking("en"):
        yield


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> tuple[Path, list]:
    """The example battle in a store, and its events."""
    db = tmp_path_factory.mktemp("example") / "battles.db"
    store = example_store(db)
    events = list(store.read(BATTLE))
    store.close()
    return db, events


@pytest.fixture(scope="module")
def pages(example, tmp_path_factory) -> dict[str, str]:
    """The example battle's report, made by `morale report` in English and with `--lang ru`."""
    db, folder = example[0], tmp_path_factory.mktemp("report")
    made = {}
    for lang in ("en", "ru"):
        out = folder / f"{lang}.html"
        with speaking("en"):
            done = morale(db, "--lang", lang, "report", BATTLE, "-o", str(out))
        assert done.exit_code == 0, done.output
        made[lang] = out.read_text(encoding="utf-8")
    return made


def _msgids(path: Path) -> list[str]:
    with path.open("rb") as fp:
        book = read_po(fp, locale="ru")
    return [m for message in book if message.id for m in ([message.id] if isinstance(message.id, str) else message.id)]


def _english_words(templates: list[str]) -> set[str]:
    """The English words of these templates, without their placeholders."""
    found = set()
    for template in templates:
        literal = "".join(text for text, *_ in string.Formatter().parse(template))
        found |= {word.lower() for word in re.findall(r"[A-Za-z]{3,}", literal)}
    return found


# The words of the charts' own text: the report's catalogue, and the phase names and phase-end labels.
PHASE_WORDS = ["T{turn} {side} {phase}", "movement", "psychic", "shooting", "assault"]
CHART_WORDS = _english_words([*_msgids(ROOT / "app" / "report" / "messages.ru.po"), *PHASE_WORDS])


def _svg_texts(html: str) -> list[str]:
    """Every text node of every chart (titles, axis titles and labels, legends, the values' notes)."""
    texts = []
    for svg in re.findall(r"<svg\b.*?</svg>", html, re.S):
        for element in ElementTree.fromstring(svg).iter():
            if element.tag.rsplit("}", 1)[-1] in ("style", "script"):
                continue
            texts += [t.strip() for t in (element.text, element.tail) if t and t.strip()]
    return texts


def _data_words(events: list) -> set[str]:
    """The battle's own names on the charts (its units and sides) and the ruleset's state words:
    not the report's words, so not the report's to say."""
    data = report(BATTLE, events)
    names = [s.name for s in data.series] + list(data.sides) + [str(name) for name in data.state_names.values()]
    return {word.lower() for name in names for word in re.findall(r"[A-Za-z]{3,}", name)}


def test_the_report_in_russian_is_russian_from_its_html_lang_to_its_footer(pages):
    ru, en = pages["ru"], pages["en"]
    assert '<html lang="ru">' in ru and '<html lang="en">' in en
    assert "<title>Skirmish at the Hive Tarsis refinery: отчёт о битве</title>" in ru
    assert "imperium против orks · 104 события</p>" in ru and "imperium against orks · 104 events</p>" in en
    assert '<nav><a href="#summary">Сводка</a><a href="#charts">Графики</a><a href="#turn-1">Ход 1</a>' in ru
    assert "<h3>Удача на кубиках морали</h3>" in ru and "<h3>Табло в конце хода 1</h3>" in ru
    assert "<h3>Тесты хода 2</h3>" in ru
    assert "<th>сторона</th><th>тестов брошено</th><th>ожидалось успехов</th><th>успехи</th>" in ru
    assert "<th>назначен на</th><th>подразделение</th><th>тест</th><th>почему</th><th>порог</th>" in ru
    assert '<td class="num odds" data-label="шанс пройти">' in ru
    # The column of the rule that gave a result is "по правилу" (the command line's "by" is its author).
    assert "<th>результат</th><th>по правилу</th></tr>" in ru and "<th>result</th><th>by</th></tr>" in en
    assert '<td class="" data-label="тест">' not in ru and '<td data-label="тест">Тест на Мораль</td>' in ru
    assert '<td data-label="test">morale</td>' in en
    assert "<footer>Составлено morale " in ru and " по 104 событиям битвы hive-tarsis; хэш головы " in ru
    assert "Хэш головы <span" in ru and "печатает тот же для журнала, по которому составлен этот отчёт." in ru
    # The report's own words are nowhere in English: each heading, header and caption is said.
    for english in ("Summary", "Charts", "Luck of the morale dice", "The board at the end", "Tests in turn", "Made by"):
        assert english in en and english not in ru, english
    for header in ("tests rolled", "expected passes", "chance of passing", "due at"):
        assert f">{header}<" in en and f">{header}<" not in ru and f'"{header}"' not in ru, header


def test_every_charts_title_axis_and_label_is_said_in_russian(pages, example):
    ru, en = _svg_texts(pages["ru"]), _svg_texts(pages["en"])
    assert "imperium: состояние каждого подразделения в конце каждой фазы" in ru
    assert "Накопленная удача: успехи минус ожидаемые успехи, по событиям" in ru
    assert "событие (порядковый номер)" in ru
    assert "Ход 1, imperium, движение" in ru and "T1 imperium movement" in en
    assert any(re.fullmatch(r"-0,\d+", text) for text in ru)  # the luck axis's numbers, with a decimal comma
    ours = {word for text in en for word in re.findall(r"[A-Za-z]{3,}", text.lower())} & CHART_WORDS
    assert {"cumulative", "luck", "passes", "expected", "event", "movement", "shooting"} <= ours  # the check bites
    data = _data_words(example[1])
    left = {
        word
        for text in ru
        for word in re.findall(r"[A-Za-z]{3,}", text.lower())
        if word in CHART_WORDS and word not in data
    }
    assert left == set(), [text for text in ru if any(word in text.lower() for word in left)]


def test_the_luck_statistic_says_the_same_numbers_in_russian_words(pages, example):
    found = luck(BATTLE, example[1])
    for side in found.sides:
        rows = {lang: pages[lang].split(f'<tr data-side="{side.side}">', 1)[1].split("</tr>", 1)[0] for lang in pages}
        cells = {lang: re.findall(r"<td[^>]*>(.*?)</td>", row) for lang, row in rows.items()}
        assert [_number(c) for c in cells["ru"][:5]] == cells["en"][:5]  # the same numbers, 4,50 for 4.50
        assert cells["en"][5] == side.verdict
        with speaking("ru"):
            assert cells["ru"][5] == say(side.verdict) != side.verdict
    assert "<th>перцентиль удачи</th>" in pages["ru"] and f"<th>{PERCENTILE_NAME}</th>" in pages["en"]
    with speaking("ru"):
        words = say(PERCENTILE_WORDS)
    assert words.startswith("Перцентиль удачи — это вероятность того, что сторона")
    assert words in pages["ru"] and str(PERCENTILE_WORDS) in pages["en"]
    with speaking("ru"):
        assert [say(side.verdict) for side in found.sides] == ["примерно как ожидалось", "невезение"]


def test_morale_luck_in_russian_prints_the_same_numbers(example):
    db = example[0]
    en = morale(db, "luck", BATTLE).stdout
    ru = morale(db, "--lang", "ru", "luck", BATTLE).stdout
    assert "Перцентиль удачи — это вероятность" in ru and "невезение" in ru and "luck percentile" in en
    percents = r"\d+[.,]\d+\s?%"
    assert [_number(n) for n in re.findall(percents, ru)] == re.findall(percents, en)


def _number(said: str) -> str:
    """A number as English writes it, from the way Russian does (4,50 for 4.50; 34,7 % for 34.7%)."""
    return re.sub(r"(\d),(\d)", r"\1.\2", said).replace("\N{NO-BREAK SPACE}%", "%").replace(" %", "%")


def _losses(db: Path) -> None:
    """The example battle to the imperium's shooting phase, where three of its units are left with
    5, 2 and 1 models."""
    assert morale(db, "new", str(EXAMPLE / "roster.toml")).exit_code == 0
    for _ in range(3):
        assert morale(db, "next-phase", BATTLE).exit_code == 0
    for unit, count in (("kraak", 5), ("tacticals", 3), ("rough_riders", 4)):
        assert morale(db, "append", BATTLE, "casualties_suffered", f"unit={unit}", f"count={count}").exit_code == 0


def test_morale_diff_in_russian_counts_models_with_the_noun_agreeing(tmp_path):
    db = tmp_path / "battles.db"
    _losses(db)
    en = morale(db, "diff", BATTLE, "start", "end").stdout
    ru = morale(db, "--lang", "ru", "diff", BATTLE, "start", "end").stdout
    assert "5 models" in en and "2 models" in en and re.search(r"\b1 model\b", en)
    assert "5 моделей" in ru and "2 модели" in ru and re.search(r"\b1 модель\b", ru)
    assert "до первой фазы" in ru and "конец журнала" in ru and "before the first phase" in en


def test_a_diff_in_english_is_as_it_was(tmp_path):
    db = tmp_path / "battles.db"
    _losses(db)
    shown = morale(db, "diff", BATTLE, "start", "end")
    assert shown.exit_code == 0
    assert "hive-tarsis: from before the first phase (#" in shown.stdout and "to the end of the log (#" in shown.stdout
    assert "5 models" in shown.stdout and "2 models" in shown.stdout and re.search(r"\b1 model\b", shown.stdout)


def test_time_travel_says_its_points_and_refusals_in_russian(example):
    timeline = Timeline(BATTLE, example[1])
    points = [timeline.point(spec) for spec in ("12", "start", "end", "end:1", "start:2/orks/shooting")]
    assert [str(p.label) for p in points] == [
        "after event 12",
        "before the first phase",
        "the end of the log",
        "end of turn 1",
        "start of turn 2, orks, shooting",
    ]
    with speaking("ru"):
        assert [say(p.label) for p in points] == [
            "после события 12",
            "до первой фазы",
            "конец журнала",
            "конец хода 1",
            "начало хода 2, orks, shooting",
        ]
        with pytest.raises(Refusal) as refused:
            timeline.point("end:9")
        assert say(refused.value.message) == "'end:9': такого в этом журнале не было (в нём ходы с 1 по 3)"
        with pytest.raises(Refusal) as refused:
            timeline.diff(points[2], points[0])
        assert say(refused.value.message) == (
            "первая точка (конец журнала) идёт после второй (после события 12): сначала укажите более раннюю"
        )
        assert [say(turn_span(t)) for t in ([], [1], [1, 3])] == ["ещё ни одного хода", "только ход 1", "ходы 1, 3"]
    assert str(refused.value.message).startswith("the first point (the end of the log) comes after the second")


def test_verify_what_if_and_the_disputes_say_their_findings_in_russian(example):
    field, problem = link_problem(3, "0" * 64, 4, "0" * 64, "1" * 64, b"{}")
    assert field == "seq"
    assert problem == "sequence number 4 where 3 was expected: an event is missing or out of place"
    alternative = what_if(BATTLE, example[1], [Amendment("strike", 15), Amendment("amend", 16, {"count": 1})])
    dispute = Dispute(seq=20, entry=15, side="orks", reason="only one was hit", author=None)
    with speaking("ru"):
        assert say(problem) == ("порядковый номер 4 там, где ожидался 3: событие пропущено или стоит не на своём месте")
        assert [say(change) for change in alternative.changes] == [
            "событие 15 вычеркнуто",
            "событие 16 изменено: count 3 → 1",
        ]
        assert say(dispute_words(dispute, "")) == (
            "Событие 15 оспорено (orks): only one was hit. Фаза не закончится, пока спор не разрешён."
        )
    assert alternative.changes == ["event 15 struck", "event 16 amended: count 3 → 1"]


def test_the_vocabulary_names_the_phases_and_quotes_the_clauses_in_the_readers_language():
    words = vocabulary(lookup("wh40k6", "1"))
    english = msgspec.json.decode(msgspec.json.encode(words, enc_hook=language.enc_hook))
    with speaking("ru"):
        russian = msgspec.json.decode(msgspec.json.encode(words, enc_hook=language.enc_hook))
    assert [p["name"] for p in english["phases"]] == ["movement", "psychic", "shooting", "assault"]
    assert [p["name"] for p in russian["phases"]] == ["движение", "психическая фаза", "стрельба", "атака"]
    assert [p["id"] for p in russian["phases"]] == [p["id"] for p in english["phases"]]  # ids stay as they are
    rule = "wh40k6.trigger.casualties"
    assert russian["clauses"][rule]["title"] != english["clauses"][rule]["title"]
    assert re.search("[а-я]", russian["clauses"][rule]["words"])


def test_no_words_of_the_report_hide_inside_an_f_string():
    """A `Words("...")` inside an f-string's braces is not extracted for the catalogue (so never
    translated): none of the report's or its tools' words are written so."""
    hidden = []
    for path in MINE:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Call) and getattr(inner.func, "id", "") in ("Words", "counted"):
                        hidden.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert hidden == []
