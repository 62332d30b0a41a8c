"""The two 40K editions in Russian (issue 31): what their rules say to a person (refusals, why a
test was not taken, a modifier's reason, where a Fall Back move goes, the narrative's phrases, the
names of tests and states) said in the words of the Russian rule texts, with the numbers of models
agreeing (1 модель, 2 модели, 5 моделей); and the same in English as it always was."""

from __future__ import annotations

import pytest
from support.table import Table, combat, only, unit
from support.wh40k3 import charge, fact
from support.wh40k3 import table as table3

from morale.app import language
from morale.app.language import say
from morale.core import outcomes as out
from morale.core.odds import odds
from morale.core.rulesets.wh40k import WH40K3, WH40K6, about, sixth, third
from morale.core.words import Words
from morale.events.types import ChargeDeclared, PlayerDecided


def russian(text: str) -> str:
    with language.speaking("ru"):
        return say(text)


def in_its_next_assault_phase(table: Table, unit_id: str) -> None:
    """A unit that fled in the orks' turn 1 declines to Regroup in its own turn 2, Falls Back again
    and comes to its Assault phase."""
    table.go_to(2, "imperium", "movement")
    table.record(PlayerDecided(unit=unit_id, decision="decline_regroup"))
    table.roll(unit_id, "fall_back", 3, 3)
    table.go_to(2, "imperium", "assault")


def fled_from_shooting(table: Table, unit_id: str, lost: int, fall_back: tuple[int, ...] = (3, 3)) -> None:
    """Shot at in the orks' turn 1, `unit_id` loses `lost` models, fails its Morale test and Falls Back."""
    table.go_to(1, "orks", "shooting")
    table.casualties(unit_id, lost)
    table.end_phase()
    table.roll(unit_id, "morale", 6, 6)
    if fall_back:
        table.roll(unit_id, "fall_back", *fall_back)


# -- 6th edition --------------------------------------------------------------------------------
def test_wh40k6_a_charge_refused_while_falling_back_is_said_in_russian_and_in_english_as_before():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table, "marines", 3)
    in_its_next_assault_phase(table, "marines")

    refusal = table.refuse(ChargeDeclared(charger="marines", targets=("boyz",), in_range=("boyz",)))

    assert refusal.rule == "wh40k6.fall_back.no_charge"
    assert refusal.message == "marines is Falling Back and cannot declare a charge"
    assert russian(refusal.message) == "marines отступает и не может объявить нападение"
    assert language.refusal_line(refusal) == "wh40k6.fall_back.no_charge: " + refusal.message
    with language.speaking("ru"):
        assert language.refusal_line(refusal) == (
            "wh40k6.fall_back.no_charge: marines отступает и не может объявить нападение"
        )


def test_wh40k6_the_charge_refused_outside_the_assault_phase_says_whose_phase_it_must_be():
    table = Table(unit("marines"), unit("boyz", "orks"))
    table.go_to(1, "imperium", "shooting")

    refusal = table.refuse(ChargeDeclared(charger="marines", targets=("boyz",), in_range=("boyz",)))

    assert refusal.message == "marines can charge only in its own side's Assault phase"
    assert russian(refusal.message) == "marines может нападать только в Фазе атаки своей стороны"


@pytest.mark.parametrize(
    ("left", "english", "said"),
    [
        (1, "1 of 30 models left", "осталась 1 модель из 30"),
        (2, "2 of 30 models left", "осталось 2 модели из 30"),
        (5, "5 of 30 models left", "осталось 5 моделей из 30"),
    ],
)
def test_wh40k6_a_regroup_failed_under_a_quarter_left_counts_the_models_in_russian(left, english, said):
    table = Table(unit("marines", models=30), unit("boyz", "orks"))
    fled_from_shooting(table, "marines", 30 - left)
    table.go_to(2, "imperium", "movement")

    result = only(table.roll("marines", "regroup", 2, 3), out.TestResolved)

    assert (result.rule, result.passed) == ("wh40k6.regroup.test", False)
    assert result.detail == f"{english}: under 25%, only a double 1 regroups"
    assert russian(result.detail) == (
        f"{said}: меньше 25%, перегруппировка только при двух единицах (Отчаянный героизм)"
    )


@pytest.mark.parametrize(
    ("margin", "said"), [(1, "бой проигран на 1 рану"), (2, "бой проигран на 2 раны"), (5, "бой проигран на 5 ран")]
)
def test_wh40k6_the_combat_lost_modifier_says_by_how_many_wounds(margin, said):
    table = Table(unit("guard"), unit("boyz", "orks"))
    table.go_to(1, "orks", "assault")

    due = only(table.record(combat(("imperium", "guard", 0), ("orks", "boyz", margin))), out.TestDue)

    [modifier] = due.modifiers
    assert (modifier.value, modifier.reason) == (-margin, f"combat lost by {margin}")
    assert russian(modifier.reason) == said


def test_wh40k6_names_its_tests_states_and_restrictions_as_the_russian_rulebook_does():
    assert {test: russian(name) for test, name in WH40K6.tests.items()} == {
        "morale": "Тест на Мораль",
        "pinning": "Тест на Залегание",
        "regroup": "Тест на Восстановление порядка",
        "fall_back": "Движение Отступления",
        "sweeping_advance": "Всеобщее наступление",
    }
    assert dict(WH40K6.tests) == {
        "morale": "Morale test",
        "pinning": "Pinning test",
        "regroup": "Regroup test",
        "fall_back": "Fall Back move",
        "sweeping_advance": "Sweeping Advance",
    }
    assert [russian(WH40K6.state_name(s)) for s in ("steady", "falling_back", "regrouped", "dispersed")] == [
        "в строю",
        "отступает",
        "перегруппировалось",
        "удалено с поля боя",
    ]
    assert [WH40K6.state_name(s) for s in ("steady", "falling_back", "regrouped", "dispersed")] == [
        "steady",
        "falling back",
        "regrouped",
        "removed",
    ]
    assert russian(WH40K6.restrictions["gone_to_ground"]) == "без движения, Бега и нападения; стреляет только Навскидку"
    assert WH40K6.restrictions["gone_to_ground"] == "no move, Run or charge; Snap Shots only"


def test_wh40k6_what_falling_back_forbids_reads_in_russian_on_the_board():
    table = Table(unit("marines"), unit("boyz", "orks"))
    fled_from_shooting(table, "marines", 3)

    texts = [text for text, _rule in WH40K6.implied_restrictions(table.unit("marines"))]

    assert texts == [
        "Snap Shots only; cannot Go to Ground; passes Pinning tests",
        "cannot declare a charge",
        "fails every Morale test but Regroup tests",
    ]
    assert [russian(text) for text in texts] == [
        "стреляет только Навскидку; не может Окопаться; проходит тесты на Залегание",
        "не может объявить нападение",
        "проваливает все тесты на Мораль, кроме тестов на Восстановление порядка",
    ]


def test_wh40k6_phrases_word_a_state_change_in_russian():
    """The clauses' own phrases (the narrative puts the unit's name before them)."""
    phrases = {
        sixth.falls_back: ("Falls Back", "отступает"),
        sixth.regroups: ("Regroups", "перегруппировывается"),
        sixth.regroup_when_charged: ("Regroups without moving", "перегруппировывается без движения"),
        sixth.trapped: ("is trapped and removed as casualties", "оказывается в ловушке и удаляется как потеря"),
        sixth.sweeping_advance: (
            "is caught by the Sweeping Advance and removed as casualties",
            "попадает под Всеобщее наступление и удаляется как потеря",
        ),
    }
    for clause, (english, said) in phrases.items():
        phrase = clause.answers["phrase"]
        assert isinstance(phrase, Words) and (phrase, russian(phrase)) == (english, said)


def test_wh40k6_a_sweeping_advance_odds_name_their_two_results_in_russian():
    table = Table(unit("guard"), unit("boyz", "orks"))
    table.go_to(1, "orks", "assault")
    table.record(combat(("imperium", "guard", 0), ("orks", "boyz", 2)))
    table.roll("guard", "morale", 6, 6)
    [due] = table.battle.due_for("guard")

    results = {chance.result for chance in odds(table.battle, due).results}

    assert results == {"caught", "escapes"}
    assert {russian(result) for result in results} == {"настигнуто", "уходит"}


# -- 3rd edition --------------------------------------------------------------------------------
def test_wh40k3_an_assault_refused_while_falling_back_is_said_in_russian():
    t = table3(unit("guard"), unit("boyz", "orks"))
    fled_from_shooting(t, "guard", 3)
    in_its_next_assault_phase(t, "guard")

    refusal = t.refuse(charge("guard", "boyz"))

    assert refusal.message == "guard is Falling Back and cannot assault"
    assert russian(refusal.message) == "guard отступает и не может вступать в рукопашный бой"


def test_wh40k3_a_fact_stated_too_early_is_refused_in_russian_naming_the_fact_as_it_is():
    t = table3(unit("guard"), unit("boyz", "orks"))
    t.go_to(1, "orks", "shooting")
    t.casualties("guard", 3)
    t.end_phase()

    refusal = t.refuse(fact("guard", "through_difficult_terrain"))

    assert refusal.message == "state through_difficult_terrain when guard's Fall Back roll is due, before its dice"
    assert russian(refusal.message) == (
        "сообщайте `through_difficult_terrain`, когда guard предстоит бросок на Отступление, до броска кубиков"
    )


def test_wh40k3_the_fall_back_move_says_where_it_goes_and_what_halved_it_in_whole_russian_sentences():
    t = table3(unit("guard"), unit("boyz", "orks"))
    fled_from_shooting(t, "guard", 3, fall_back=())
    t.record(fact("guard", "enemy_in_corridor", 6.5))
    t.record(fact("guard", "through_difficult_terrain"))

    moved = only(t.roll("guard", "fall_back", 4, 3), out.Moved)

    assert moved.detail == (
        "towards its own table edge by the shortest path, in coherency, inside its corridor; "
        'halved: difficult terrain; short of the enemy 6.5" away in its corridor'
    )
    assert russian(moved.detail) == (
        "к своему краю стола кратчайшим путём, в боевом построении, в пределах своего коридора отступления; "
        'вдвое короче: пересечённая местность; не доходит до врага в 6,5" в коридоре отступления'
    )


@pytest.mark.parametrize(
    ("halved", "short", "english", "said"),
    [
        (False, None, "", ""),
        (True, None, "; halved: difficult terrain", "; вдвое короче: пересечённая местность"),
        (False, 9, '; short of the enemy 9" away in its corridor', '; не доходит до врага в 9" в коридоре отступления'),
    ],
)
def test_wh40k3_each_fall_back_detail_has_its_own_sentence(halved, short, english, said):
    towards = third.fall_back_direction("deployment_zone")

    detail = third.fall_back_detail(towards, halved, short)

    assert (
        detail
        == f"towards its own deployment-zone line by the shortest path, in coherency, inside its corridor{english}"
    )
    assert russian(detail) == (
        "к линии своей зоны размещения кратчайшим путём, в боевом построении, в пределах своего коридора"
        f" отступления{said}"
    )


def test_wh40k3_the_crossfire_says_the_distance_reached_in_russian():
    t = table3(unit("guard"), unit("boyz", "orks"))
    fled_from_shooting(t, "guard", 3, fall_back=())
    t.record(fact("guard", "enemy_in_corridor", 5.5))

    result = only(t.roll("guard", "fall_back", 4, 3), out.TestResolved)

    assert result.detail == '7" reaches the enemy 5.5" away in its corridor'
    assert russian(result.detail) == 'движение на 7" достаёт до врага в 5,5" в коридоре отступления'
    assert russian(third.crossfire.answers["phrase"]) == "попадает под перекрёстный огонь и удаляется с поля боя"


@pytest.mark.parametrize(
    ("left", "english", "said"),
    [
        (1, "1 of 12 models", "1 модель из 12"),
        (2, "2 of 12 models", "2 модели из 12"),
        (5, "5 of 12 models", "5 моделей из 12"),
    ],
)
def test_wh40k3_no_regroup_below_half_strength_counts_the_models_in_russian(left, english, said):
    t = table3(unit("guard", models=12), unit("boyz", "orks"))
    fled_from_shooting(t, "guard", 12 - left)

    not_taken = only(t.go_to(2, "imperium", "movement"), out.TestNotTaken)

    assert not_taken.detail == f"{english}: under 50% of its starting strength"
    assert russian(not_taken.detail) == f"{said}: меньше 50% от стартовой численности"


def test_wh40k3_the_morale_modifiers_reasons_in_russian():
    t = table3(unit("guard", models=10), unit("vets", models=5), unit("boyz", "orks", models=30))
    fled_from_shooting(t, "vets", 3)  # 2 of 5 left
    t.go_to(1, "orks", "assault")
    t.record(charge("boyz", "guard"))

    due = only(t.record(combat(("imperium", "guard", 0), ("orks", "boyz", 1))), out.TestDue)

    assert [m.reason for m in due.modifiers] == ["outnumbered 3:1 or more (30 to 10)"]
    assert [russian(m.reason) for m in due.modifiers] == ["в меньшинстве 3:1 или более (30 против 10)"]
    [below] = third.below_half(t.battle.units["vets"])
    assert (below.reason, russian(below.reason)) == (
        "below half strength (2 of 5)",
        "численность ниже 50% от стартовой (2 из 5)",
    )


def test_wh40k3_a_regroup_the_table_calls_off_says_why_in_russian():
    t = table3(unit("guard"), unit("boyz", "orks"))
    fled_from_shooting(t, "guard", 3)
    t.go_to(2, "imperium", "movement")

    not_taken = only(t.record(fact("guard", "enemy_within_6_inches")), out.TestNotTaken)

    assert (not_taken.detail, russian(not_taken.detail)) == (
        "an enemy is within 6 inches",
        "в пределах 6 дюймов есть враг",
    )


def test_wh40k3_names_its_tests_and_what_falling_back_forbids_in_russian():
    assert {test: russian(name) for test, name in WH40K3.tests.items()} == {
        "morale": "Тест на Мораль",
        "pinning": "Тест на Залегание",
        "regroup": "Тест на Восстановление порядка",
        "fall_back": "Движение Отступления",
    }
    t = table3(unit("bikers", unit_type="bike", profile={"fall_back_dice": 3}), unit("boyz", "orks"))
    fled_from_shooting(t, "bikers", 3, fall_back=(1, 1, 1))

    texts = [text for text, _rule in WH40K3.implied_restrictions(t.unit("bikers"))]

    assert texts[1] == "Falls Back 3D6 inches each turn until it Regroups"
    assert russian(texts[1]) == "отступает на 3D6 дюймов каждый ход, пока не перегруппируется"
    assert russian(WH40K3.restrictions["pinned"]) == (
        "прижато огневым валом: не может двигаться, стрелять и вступать в рукопашный бой"
    )


def test_wh40k3_phrases_by_state_word_each_end_of_a_chance_in_russian():
    phrases = third.reaches_table_edge.answers["phrase"]

    assert {state: russian(words) for state, words in phrases.items()} == {
        "regrouped": "перегруппировывается у края стола: это его последний шанс",
        "dispersed": "упускает последний шанс и удаляется с поля боя у своего края стола",
    }
    assert dict(phrases) == {
        "regrouped": "Regroups at the table edge: its last chance",
        "dispersed": "fails its last chance and is removed from the battlefield by its table edge",
    }
    assert russian(third.knows_no_fear.answers["phrase"]) == (
        "перегруппировывается в конце своего движения Отступления (И не ведают они страха)"
    )


def test_the_editions_titles_in_russian_and_english():
    assert (about.WH40K6.title, russian(about.WH40K6.title)) == (
        "Warhammer 40,000 6th edition",
        "Warhammer 40 000, 6-я редакция",
    )
    assert (WH40K3.title, russian(WH40K3.title)) == ("Warhammer 40,000 3rd edition", "Warhammer 40 000, 3-я редакция")
