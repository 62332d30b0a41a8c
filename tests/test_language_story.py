"""The story in Russian as well as English (issue 31): the narrative, explain's lines, the board's rows
and the due list are Words, said in the reader's language, with the English as it always was.

The rulesets' own words (state names, test names, phrases) are theirs to translate; where a sentence
here names a test, the test stands in the ruleset's words for it, so these tests give the ruleset
Russian names of their own (`russian_tests`) and check that each sentence uses them."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from support.cli import morale
from support.examples import example_store
from support.table import Table, unit

from morale.app import language
from morale.app.cli import render, render_explain
from morale.app.language import say
from morale.core.rulesets import lookup
from morale.events.store import seal
from morale.events.types import Author, EventRetracted, PhaseStarted
from morale.projections import explain as explained
from morale.projections.authorship import author_words
from morale.projections.board import board
from morale.projections.due import due_tests
from morale.projections.explain import explain
from morale.projections.log import log_rows
from morale.projections.narrative import describe_event, narrate

BATTLE = "test-battle"


@pytest.fixture
def russian_tests(monkeypatch):
    """The 40K 6th edition's tests in Russian, as its catalogue will name them: plain strings stand
    in for the ruleset's Words (a plain string is said as it is, in any language)."""
    ruleset = lookup("wh40k6", "1")
    names = {"morale": "тест на Мораль", "fall_back": "ход Отступления", "regroup": "тест на Перегруппировку"}
    monkeypatch.setattr(ruleset, "tests", {**ruleset.tests, **names})
    return ruleset


def stored(table: Table):
    return [s for s, _ in seal(BATTLE, table.events, 0, "0" * 64, "2026-01-01T00:00:00Z")]


def marines_lose(count: int) -> Table:
    """In the orks' Shooting phase of turn 1 the Marines (10 models) lose `count` to shooting."""
    table = Table(unit("marines"), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")
    table.casualties("marines", count)
    return table


def fled() -> Table:
    """The Marines lose 3, fail their Morale test on a 6 + 6 and Fall Back 6 inches."""
    table = marines_lose(3)
    table.end_phase()
    table.roll("marines", "morale", 6, 6)
    table.roll("marines", "fall_back", 3, 3)
    return table


def story(table: Table) -> list[str]:
    return [say(line.text) for line in narrate(BATTLE, stored(table))]


# -- the narrative ---------------------------------------------------------------------------------
def test_the_story_of_a_40k_battle_reads_in_russian(russian_tests):
    table = fled()
    with language.speaking("ru"):
        lines = story(table)
    assert lines[3] == "Ход 1 · imperium · фаза Движения"
    assert lines[4] == "Конец фазы Движения (imperium, ход 1)"
    assert "Ход 1 · imperium · Психическая фаза" in lines
    assert "Конец фазы Атаки (imperium, ход 1)" in lines
    assert "Marines: потеряны 3 модели — стрельба (осталось: 7)" in lines
    assert "Marines: предстоит тест на Мораль, бросок 2D6, нужно 8 или меньше" in lines
    assert "Marines: бросок — тест на Мораль: 6 + 6 (за столом)" in lines
    assert "Marines: тест на Мораль — провал: 6 + 6 = 12 против 8" in lines
    assert "Marines: предстоит ход Отступления, бросок 2D6" in lines
    assert "Marines: бросок — ход Отступления: 3 + 3 (за столом)" in lines
    assert lines[1] == "Marines входит в войско imperium: 10 моделей, пехота, Ld 8"


def test_the_same_story_in_english_is_as_it_always_was(russian_tests):
    lines = story(fled())
    assert lines[3:5] == ["Turn 1 · imperium · movement", "End of the movement phase (imperium, turn 1)"]
    assert "Marines loses 3 models to shooting (7 left)" in lines
    assert "Marines must roll 2D6 for morale, needs 8 or less" in lines
    assert "Marines rolls for morale: 6 + 6 (table)" in lines
    assert "Marines fails the morale test: 6 + 6 = 12 against 8" in lines
    assert "Marines must roll 2D6 for fall back" in lines
    assert lines[1] == "Marines joins imperium: 10 models, infantry, Ld 8"
    with language.speaking("ru"):  # the English of a Words is its str, whoever is reading
        assert [str(line.text) for line in narrate(BATTLE, stored(fled()))] == lines


@pytest.mark.parametrize(
    ("count", "russian", "english"),
    [
        (1, "Marines: потеряна 1 модель — стрельба (осталось: 9)", "Marines loses 1 model to shooting (9 left)"),
        (2, "Marines: потеряны 2 модели — стрельба (осталось: 8)", "Marines loses 2 models to shooting (8 left)"),
        (5, "Marines: потеряно 5 моделей — стрельба (осталось: 5)", "Marines loses 5 models to shooting (5 left)"),
    ],
)
def test_models_lost_agree_with_their_number_in_russian(count, russian, english):
    table = marines_lose(count)
    lost = describe_event(table.events[-1], table.battle)
    with language.speaking("ru"):
        assert say(lost) == russian
    assert say(lost) == english == str(lost)


@pytest.mark.parametrize(
    ("models", "russian"),
    [(1, "1 модель"), (2, "2 модели"), (5, "5 моделей"), (21, "21 модель"), (12, "12 моделей")],
)
def test_a_unit_joins_with_its_models_counted_in_russian(models, russian):
    table = Table(unit("marines", models=models), unit("boyz", "orks"))
    with language.speaking("ru"):
        assert say(story(table)[1]) == f"Marines входит в войско imperium: {russian}, пехота, Ld 8"


def test_a_phase_of_another_game_is_declined_as_its_sentence_needs():
    table = Table(unit("spearmen", "empire"), unit("orcs", "orcs"), ruleset="wfb8", sides=("empire", "orcs"))
    table.go_to(1, "empire", "close_combat")
    with language.speaking("ru"):
        lines = story(table)
    assert "Ход 1 · empire · фаза Ближнего боя" in lines
    assert "Конец фазы Магии (empire, ход 1)" in lines
    assert "Конец этапа «Начало хода» (empire, ход 1)" in lines


def test_a_phase_no_sentence_names_reads_its_machine_name():
    table = Table(unit("marines"), unit("boyz", "orks"))
    said = describe_event(PhaseStarted(turn=2, side="orks", phase="end_phase"), table.battle)
    assert said == "Start of the end phase phase (orks, turn 2)"
    with language.speaking("ru"):
        assert say(said) == "Начало фазы «end phase» (orks, ход 2)"


# -- explain ---------------------------------------------------------------------------------------
def test_explain_says_its_steps_and_labels_in_russian(russian_tests):
    view = explain(BATTLE, stored(fled()), "marines")
    (test,) = [s for s in view.steps if s.kind == "test" and s.test == "morale"]
    with language.speaking("ru"):
        assert say(test.text) == "Marines: тест на Мораль — провал: 6 + 6 = 12 против 8"
        assert say(explained.why_words(test, settled_elsewhere=True)) == f"тест на Мораль: предстоит с #{test.seq}"
        assert say(explained.needs_words(8)) == "нужно: 8 или меньше"
        assert say(explained.chance_words(0.7222, "26/36")) == "шанс пройти: 72,2% (26/36)"
        assert say(explained.rolled_by_words(test.roll)) == f"бросок в #{test.roll.seq}: 6 + 6 = 12"
        assert say(explained.status_words(test)) == "провален"
        assert say(explained.because_words(test.caused_by[0])).startswith(f"из-за #{test.caused_by[0].seq}: ")
        out = io.StringIO()
        render_explain.print_explanation(Console(file=out, width=200), view)
    printed = out.getvalue()
    assert "Marines (marines, imperium): " in printed and ", 7 из 10 моделей, Ld 8, после события" in printed
    for label in ("почему: тест на Мораль: предстоит", "нужно: 8 или меньше", "итог: провален", "шанс пройти: "):
        assert label in printed
    for english in ("why:", "needs:", "result:", "chance of passing", "because of"):
        assert english not in printed


def test_explain_in_english_is_as_it_always_was():
    view = explain(BATTLE, stored(fled()), "marines")
    out = io.StringIO()
    render_explain.print_explanation(Console(file=out, width=200), view)
    printed = out.getvalue()
    assert "Marines (marines, imperium): falling back, 7 of 10 models, Ld 8, after event" in printed
    assert "why: morale test due at #" in printed and "result: failed" in printed
    assert "needs: 8 or less" in printed


def test_a_refusal_of_explain_is_said_in_russian():
    with pytest.raises(Exception) as refused:
        explain(BATTLE, stored(fled()), "marines", at=0)
    with language.speaking("ru"):
        assert say(refused.value.message) == "события 0 нет: события журнала нумеруются с 1"
    assert refused.value.message == "there is no event 0: a log's events are numbered from 1"


# -- the board and the due list --------------------------------------------------------------------
def test_a_board_row_says_its_tests_due_in_the_rulesets_russian(russian_tests):
    table = marines_lose(3)
    table.end_phase()
    (row,) = [r for r in board(table.battle).units if r.unit == "marines"]
    with language.speaking("ru"):
        assert [say(d) for d in row.due] == ["тест на Мораль (wh40k6.trigger.casualties)"]
    assert row.due == ["morale (wh40k6.trigger.casualties)"]


def test_a_scheduled_change_and_a_restriction_on_the_board_read_in_russian():
    table = fled()
    table.go_to(2, "imperium", "movement")
    table.roll("marines", "regroup", 1, 1)
    rows = {r.unit: r for r in board(table.battle).units}
    said = [r.said for r in rows["marines"].restrictions]
    scheduled = next(s for s in said if s.startswith("will be "))
    with language.speaking("ru"):
        assert say(scheduled).startswith("будет «") and ", когда наступит " in say(scheduled)
    assert " at the end of the " in scheduled


def test_the_due_list_says_what_a_roll_needs_and_brings_in_russian(russian_tests):
    table = marines_lose(3)
    table.end_phase()
    (due,) = due_tests(table.battle)
    follows = [f for r in due.results for f in r.follows]
    with language.speaking("ru"):
        assert say(due.needs) == "8 или меньше" and say(due.test_name) == "тест на Мораль"
        assert "Marines: предстоит ход Отступления, бросок 2D6" in [say(f) for f in follows]
        out = io.StringIO()
        render.print_due(Console(file=out, width=200), [due])
    assert due.needs == "8 or less" and "Marines must roll 2D6 for fall back" in follows
    assert "тест на Мораль, 2D6, " in out.getvalue() and "8 или меньше" in out.getvalue()
    assert (due.test, due.test_name) == ("morale", "morale")


# -- who entered it, and the log ------------------------------------------------------------------
def test_who_entered_an_event_is_said_in_russian():
    player = Author(role="player", side="orks", via="console", label="Anna's phone")
    referee = Author(role="referee", via="cli", token="t0k3n")
    with language.speaking("ru"):
        assert say(author_words(player)) == "игрок orks (консоль, Anna's phone)"
        assert say(author_words(referee)) == "судья (командная строка, токен t0k3n)"
        assert say(author_words(None)) == "не записано"
    assert author_words(player) == "orks player (console, Anna's phone)"
    assert author_words(referee) == "referee (command line, token t0k3n)"


def test_a_struck_event_is_said_struck_in_russian():
    table = marines_lose(3)
    table.record(EventRetracted(seq=len(table.events), reason="wrong unit"))
    rows = log_rows(BATTLE, stored(table))
    struck = rows[-2].struck_by
    with language.speaking("ru"):
        assert say(struck.said) == f"Вычеркнуто в #{struck.seq}: wrong unit"
        assert say(rows[-1].summary) == f"Событие {rows[-2].seq} вычеркнуто из журнала; причина: wrong unit"


# -- the command line ------------------------------------------------------------------------------
def test_the_cli_tells_the_story_and_explains_in_russian_with_lang(tmp_path):
    db = tmp_path / "m.db"
    example_store(db).close()
    replay = morale(db, "--lang", "ru", "replay", "hive-tarsis")
    assert replay.exit_code == 0, replay.output
    assert "Ход 1 · imperium · фаза Движения" in replay.stdout and "Turn 1 ·" not in replay.stdout
    explained_ru = morale(db, "--lang", "ru", "explain", "hive-tarsis", "nobz")
    assert explained_ru.exit_code == 0, explained_ru.output
    assert "почему: " in explained_ru.stdout and "итог: " in explained_ru.stdout
    assert "why: " not in explained_ru.stdout
    english = morale(db, "--lang", "en", "explain", "hive-tarsis", "nobz")
    assert "why: " in english.stdout and "почему" not in english.stdout
