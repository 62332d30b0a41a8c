"""The engine's own words in Russian (issue 31): the referee's refusals, the log's refusals of
malformed input, the points of the clock a restriction lasts until, and the engine's clauses; and
the same in English as before. Machine fields (rule IDs, fields, ids) stay as they are, and what is
kept or compared (a state digest, the log's bytes) never depends on the reader's language."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest
from support.table import Table, only, unit

from morale.app import language
from morale.app.language import refusal_line, say
from morale.core import catalogue, rules
from morale.core import outcomes as out
from morale.core.odds import Odds
from morale.core.state import digest
from morale.core.words import Words
from morale.events.codec import MalformedEvent, decode_event, encode
from morale.events.store import ConflictError, StoreUnavailable
from morale.events.types import CasualtiesSuffered, PhaseEnded, PhaseStarted, RefereeRuled


def russian(text: str) -> str:
    with language.speaking("ru"):
        return say(text)


def a_battle() -> Table:
    return Table(unit("guard", models=10), unit("boyz", "orks", models=20))


# -- the log's refusals of malformed input ------------------------------------------------------
def test_a_die_showing_7_is_refused_in_russian_naming_its_field():
    with pytest.raises(MalformedEvent) as refused:
        decode_event(b'{"type": "dice_rolled", "unit": "guard", "test": "morale", "dice": [7, 1]}')

    assert refused.value.field == "dice[0]"
    assert str(refused.value) == "dice[0]: a die shows 1 to 6, not 7"  # English as it was
    assert russian(refused.value.message) == "dice[0]: на кубике выпадает от 1 до 6, а не 7"


def test_malformed_json_is_refused_in_russian_by_line_and_column():
    with pytest.raises(MalformedEvent) as refused:
        decode_event(b'{"type": "phase_started",\n "turn": 1,, "side": "orks"}')

    assert str(refused.value) == "malformed JSON at line 2, column 12: object keys must be strings"
    assert russian(refused.value.message) == "ошибка в JSON (строка 2, столбец 12): ключи объекта должны быть строками"


@pytest.mark.parametrize(
    ("sides", "english", "said"),
    [
        ('["imperium"]', "sides: exactly 2 items, not 1 item", "sides: ровно 2 элемента, а не 1 элемент"),
        (
            '["a", "b", "c", "d", "e"]',
            "sides: exactly 2 items, not 5 items",
            "sides: ровно 2 элемента, а не 5 элементов",
        ),
    ],
)
def test_a_length_refused_agrees_with_its_number_in_russian(sides, english, said):
    body = f'{{"type": "battle_started", "ruleset": "wh40k6", "ruleset_version": "1", "sides": {sides}}}'
    with pytest.raises(MalformedEvent) as refused:
        decode_event(body.encode())

    assert (str(refused.value), russian(refused.value.message)) == (english, said)


def test_json_that_ends_too_soon_and_bytes_that_are_not_utf8_are_refused_in_russian():
    with pytest.raises(MalformedEvent) as ended:
        decode_event(b'{"type": "phase_started"')
    with pytest.raises(MalformedEvent) as bytes_:
        decode_event(b'{"type": "\xff"}')

    assert russian(ended.value.message) == "ошибка в JSON (строка 1, столбец 25): JSON обрывается, не закончившись"
    assert str(bytes_.value) == "not UTF-8 text: byte 10 (line 1, column 11) cannot be read"
    assert russian(bytes_.value.message) == "не текст UTF-8: байт 10 (строка 1, столбец 11) не читается"


def test_a_store_refusal_keeps_its_english_and_says_its_russian():
    conflict = ConflictError("hive", 3, 5)
    assert str(conflict).startswith("expected_seq: battle 'hive' is at sequence 5, not 3; another writer")
    assert russian(conflict.message).startswith("expected_seq: битва 'hive' на номере 5, а не 3; другой автор")
    missing = StoreUnavailable("/tmp/x.db", "not a SQLite file")
    assert str(missing) == "/tmp/x.db: not a SQLite file"


# -- the referee's refusals -----------------------------------------------------------------------
def test_a_phase_out_of_order_is_refused_in_russian_citing_the_clock_rule():
    table = a_battle()

    refused = table.refuse(PhaseStarted(turn=1, side="imperium", phase="shooting"))

    assert refused.rule == rules.CLOCK_ORDER
    assert refused.message == "cannot start turn 1, imperium, shooting: next is turn 1, imperium, movement"
    with language.speaking("ru"):
        assert refusal_line(refused) == (
            "engine.clock.order: нельзя начать ход 1, imperium, shooting: следующая — ход 1, imperium, movement"
        )
    assert refusal_line(refused) == (
        "engine.clock.order: cannot start turn 1, imperium, shooting: next is turn 1, imperium, movement"
    )


def test_tests_due_hold_the_clock_in_russian_listing_each_test():
    table = a_battle()
    table.go_to(1, "orks", "shooting")
    table.casualties("guard", 3)
    table.end_phase()

    refused = table.refuse(PhaseStarted(turn=1, side="orks", phase="assault"))

    assert refused.rule == rules.TESTS_FIRST
    assert refused.message.startswith("cannot start a phase while tests are due: morale for guard (")
    assert russian(refused.message).startswith("нельзя начать фазу, пока ждут тесты: Тест на Мораль для guard (")


@pytest.mark.parametrize(
    ("models", "english", "said"),
    [
        (1, "guard has only 1 model left, not 7", "у guard осталась всего 1 модель, а не 7"),
        (2, "guard has only 2 models left, not 7", "у guard осталось всего 2 модели, а не 7"),
        (5, "guard has only 5 models left, not 7", "у guard осталось всего 5 моделей, а не 7"),
    ],
)
def test_too_many_casualties_are_refused_with_the_plural_russian_asks(models, english, said):
    table = Table(unit("guard", models=models), unit("boyz", "orks"))
    table.go_to(1, "orks", "shooting")

    refused = table.refuse(CasualtiesSuffered(unit="guard", count=7, cause="shooting"))

    assert (refused.field, refused.message, russian(refused.message)) == ("count", english, said)


def test_a_refused_strike_quotes_the_refusal_it_meets_in_russian():
    table = a_battle()
    refused = table.refuse(PhaseEnded(turn=1, side="imperium", phase="movement"))
    line = rules.Refusal(
        Words("striking event {seq} would leave event {at} invalid ({refusal})", seq=2, at=4, refusal=refused.line)
    ).message
    assert russian(line).startswith("если вычеркнуть событие 2, событие 4 станет недопустимым (engine.clock.order: ")


# -- what the engine writes in its outcomes --------------------------------------------------------
def test_the_end_of_a_phase_is_said_in_russian():
    table = a_battle()
    battle = table.battle

    movement = battle.ruleset.describe_point(battle, (2, 0, 0))
    psychic = battle.ruleset.describe_point(battle, (2, 1, 1))

    assert (movement, psychic) == (
        "end of the movement phase (imperium, turn 2)",
        "end of the psychic phase (orks, turn 2)",
    )
    assert (russian(movement), russian(psychic)) == (
        "конец фазы Движения (imperium, ход 2)",
        "конец Психической фазы (orks, ход 2)",
    )


def test_a_referees_waiver_is_said_in_russian_with_the_reason_as_given():
    table = a_battle()
    table.go_to(1, "orks", "shooting")
    table.casualties("guard", 3)
    table.end_phase()

    caused = table.record(RefereeRuled(unit="guard", reason="the sergeant rallied them", waive_tests=True))

    waived = only(caused, out.TestResolved)
    assert waived.detail == "waived by the referee: the sergeant rallied them"
    assert russian(waived.detail) == "отменён судьёй: the sergeant rallied them"


def test_opposed_rolls_and_odds_are_said_in_russian():
    rolls = (
        out.OpposedRoll(side="loser", die=5, adds="initiative", bonus=3, total=8),
        out.OpposedRoll(side="winners", die=2, adds="initiative", bonus=2, total=4),
    )
    said = out.opposed_words(rolls)
    assert said == "loser 5 + initiative 3 = 8 against winners 2 + initiative 2 = 4"
    assert russian(said) == "проигравший 5 + инициатива 3 = 8 против победители 2 + инициатива 2 = 4"
    odds = Odds(test="morale", dice=2, results=(), pass_ways=21, of=36, chance=21 / 36)
    assert (odds.percent(), russian(odds.percent())) == ("58.3%", "58,3%")


def test_what_is_kept_never_depends_on_the_readers_language():
    table = a_battle()
    table.go_to(1, "orks", "shooting")
    table.casualties("guard", 3)
    english = digest(table.battle)
    table.battle.units["guard"].notes["said"] = Words("{unit} is shaken", unit="guard")
    with_words = digest(table.battle)
    with language.speaking("ru"):
        assert digest(table.battle) == with_words != english
        assert encode({"reason": Words("{unit} is shaken", unit="guard")}) == b'{"reason":"guard is shaken"}'


# -- the engine's clauses ---------------------------------------------------------------------------
def test_every_engine_clause_has_its_russian_title_and_words_and_no_other():
    english = tomllib.loads((resources.files("morale.core") / "engine_clauses.toml").read_text(encoding="utf-8"))
    russian_file = resources.files("morale.core") / "engine_clauses.ru.toml"
    translated = tomllib.loads(russian_file.read_text(encoding="utf-8"))

    assert (translated["ruleset"], translated["language"]) == ("engine", "ru")
    assert [c["id"] for c in translated["clause"]] == [c["id"] for c in english["clause"]]
    for clause in translated["clause"]:
        assert clause["title"] and clause["words"] and not any("a" <= ch <= "z" for ch in clause["title"])
    assert len(english["clause"]) == 21


def test_an_engine_clause_is_quoted_in_russian():
    title, words = catalogue.title(rules.CLOCK_ORDER), catalogue.words(rules.CLOCK_ORDER)

    assert title == "Phases in order"
    assert russian(title) == "Фазы по порядку"
    assert russian(words).startswith("Фазы идут по одной")
