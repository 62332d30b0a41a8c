"""Machine names inside Russian sentences (issue 31): where the story, the due list, the board or the
console's vocabulary name a unit type, a fact, a decision, a profile field or value, a marker or a
results column for a person, a Russian reader reads the game's own term (пехота, танк, "достигло
края стола"), said from the game's own catalogue; where a sentence names what a user types
(`decision=`, `fact=`), the machine name stays, as code. The English reads exactly as before, and
JSON keeps its machine values."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from support.cli import morale
from support.examples import example_events, example_store

from morale.app import language
from morale.app.language import say
from morale.app.roster import load_roster
from morale.app.service import record, start_battle
from morale.core.rulesets import rulesets
from morale.events.locate import open_store
from morale.projections.vocabulary import vocabulary

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("wh40k6", "wh40k3", "wfb8", "gdb")


def battle_of(game: str) -> str:
    return tomllib.loads((ROOT / "examples" / game / "roster.toml").read_text())["battle"]["id"]


@pytest.fixture(scope="module")
def replays(tmp_path_factory) -> dict[tuple[str, str], str]:
    """Each example battle's `morale replay`, by (game, language)."""
    said = {}
    for game in GAMES:
        db = tmp_path_factory.mktemp(game) / "m.db"
        example_store(db, example=ROOT / "examples" / game)
        for lang in ("en", "ru"):
            replayed = morale(db, "--lang", lang, "replay", battle_of(game))
            assert replayed.exit_code == 0, replayed.output
            said[(game, lang)] = replayed.stdout
    return said


def line(replay: str, seq: int) -> str:
    """The story's line of event `seq`, without its number."""
    found = re.search(rf"^\s*{seq}  (.*)$", replay, re.MULTILINE)
    assert found, f"no line for event {seq}"
    return found.group(1)


# -- unit types --------------------------------------------------------------------------------
def test_wh40k3_who_infantry_a_tank_and_jump_infantry_join_in_the_books_russian(replays):
    """wh40k3.who.infantry: the type that decides who tests reads as the book names it."""
    ru, en = replays[("wh40k3", "ru")], replays[("wh40k3", "en")]
    assert line(ru, 6) == "Leman Russ Iron Vow входит в войско imperium: 1 модель, танк"
    assert line(ru, 9) == "Scourges входит в войско dark_eldar: 5 моделей, прыжковая пехота, Ld 8"
    assert line(en, 6) == "Leman Russ Iron Vow joins imperium: 1 model, tank"
    assert line(en, 9) == "Scourges joins dark_eldar: 5 models, jump infantry, Ld 8"


def test_gdb_test_procedure_horse_artillery_joins_as_konnaya_artilleriya(replays):
    """gdb.test.procedure reads a unit's column by its type: the story names the type in the book's words."""
    assert line(replays[("gdb", "ru")], 7).endswith("входит в войско french: 4 модели, конная артиллерия")
    assert line(replays[("gdb", "en")], 7).endswith("joins french: 4 models, horse artillery")


def test_wh40k6_fall_back_distance_board_and_vocabulary_carry_the_type_in_words_beside_its_value(tmp_path):
    """wh40k6.fall_back.distance goes by unit type: the board's JSON and the vocabulary keep the
    machine value and add the game's word for it, in the reader's language."""
    db = tmp_path / "m.db"
    example_store(db)
    russian = json.loads(morale(db, "--lang", "ru", "board", "hive-tarsis", "--json").stdout)
    english = json.loads(morale(db, "board", "hive-tarsis", "--json").stdout)
    rough = {row["unit"]: row for row in russian["units"]}["rough_riders"]
    assert (rough["unit_type"], rough["unit_type_name"]) == ("cavalry", "кавалерия")
    rough = {row["unit"]: row for row in english["units"]}["rough_riders"]
    assert (rough["unit_type"], rough["unit_type_name"]) == ("cavalry", "cavalry")
    words = vocabulary(rulesets()[("wh40k6", "1")])
    assert "monstrous_creature" in words.unit_types
    with language.speaking("ru"):
        assert say(words.unit_type_names["monstrous_creature"]) == "монструозное существо"
    assert words.unit_type_names["monstrous_creature"] == "monstrous creature"


# -- facts, decisions, values, markers, columns -----------------------------------------------------
def test_wh40k3_trigger_tank_shock_the_table_reports_a_tank_shock_in_russian(replays):
    """wh40k3.trigger.tank_shock: the fact the table states reads in the book's words."""
    assert line(replays[("wh40k3", "ru")], 12) == "За столом: Wych Cult Strife — танковый шок: Leman Russ Iron Vow"
    assert line(replays[("wh40k3", "en")], 12) == "At the table: Wych Cult Strife tank shocked: Leman Russ Iron Vow"


def test_wh40k3_regroup_when_the_facts_that_stop_a_regroup_read_in_russian(replays):
    """wh40k3.regroup.when: the due line names the facts that would settle it in the book's words."""
    assert (
        "если только со стола не сообщат: враг в пределах 6 дюймов или нарушено боевое построение"
        in replays[("wh40k3", "ru")]
    )
    assert "unless the table reports enemy within 6 inches or out of coherency" in replays[("wh40k3", "en")]
    assert "enemy within 6 inches" not in replays[("wh40k3", "ru")]


def test_wfb8_panic_order_the_player_decides_who_tests_first_in_russian(replays):
    """wfb8.panic.order: the decision reads as words, not as `test_first`."""
    assert line(replays[("wfb8", "ru")], 65).startswith("Spearmen of the Reik: игрок выбирает — пройти тест первым")
    assert line(replays[("wfb8", "en")], 65).startswith("Spearmen of the Reik: the player chooses to test first")


def test_gdb_waver_reform_melee_result_and_formation_read_in_the_books_russian(replays):
    """gdb.waver.reform, gdb.note.melee, gdb.mod.square: the decision, the melee's result the table
    states, and a change of formation are each in the book's words; the English as before."""
    ru, en = replays[("gdb", "ru")], replays[("gdb", "en")]
    assert line(ru, 45).startswith("14e Ligne, 1st battalion: игрок выбирает — построиться")
    assert line(ru, 35) == "За столом: Isayev's Cossacks — итог рукопашной схватки: отступает"
    assert line(ru, 102) == "Fanagoria Grenadiers — изменения: построение: каре (square against the hussars)"
    assert line(en, 45).startswith("14e Ligne, 1st battalion: the player chooses to reform")
    assert line(en, 35) == "At the table: Isayev's Cossacks melee result: retreat"
    assert line(en, 102) == "Fanagoria Grenadiers changes: formation square (square against the hussars)"


def test_gdb_rout_dispersal_point_marker_unformed_and_column_read_in_russian(replays):
    """gdb.rout.dispersal_point, gdb.retreat.unformed, gdb.test.procedure: the marker, the profile
    change and the results table's column are in the book's words."""
    ru, en = replays[("gdb", "ru")], replays[("gdb", "en")]
    assert "Austrian position battery: отмечено — точка Рассеивания (ход 2, фаза Атак)" in ru
    assert "Ryazan Musketeers: больше не построено" in ru
    assert "10e Léger, 1st battalion: проверка (колонка «Проверка Морали»): 4 + 4" in ru
    assert "Austrian position battery: dispersal point marked (turn 2, charge phase)" in en
    assert "Ryazan Musketeers: no longer formed" in en
    assert "10e Léger, 1st battalion tests (morale column): 4 + 4" in en


def regroup_due(tmp_path: Path) -> Path:
    """The wh40k3 example battle up to event 34, where the Wyches' Regroup test falls due."""
    db = tmp_path / "m.db"
    store = open_store(db)
    roster = load_roster(ROOT / "examples" / "wh40k3" / "roster.toml")
    start_battle(store, roster.battle, roster.started, roster.units)
    record(store, roster.battle, example_events(ROOT / "examples" / "wh40k3")[:24])
    return db


def test_wh40k3_regroup_when_the_due_list_names_what_to_type_as_code_beside_its_words(tmp_path):
    """wh40k3.regroup.when: `morale due` in Russian names each decision and fact in the book's
    words, then the name `player_decided`/`table_fact_recorded` take, as code; in English as before.
    Its JSON keeps the machine names and adds the words."""
    db = regroup_due(tmp_path)
    russian = morale(db, "--lang", "ru", "due", "vorns-ridge").stdout
    english = morale(db, "due", "vorns-ridge").stdout
    assert "или решение: отказаться от перегруппировки (`decline_regroup`)" in russian
    assert (
        "или сообщите: враг в пределах 6 дюймов (`enemy_within_6_inches`),"
        " нарушено боевое построение (`out_of_coherency`)" in russian
    )
    assert "or decide: decline_regroup\n" in english
    assert "or report: enemy_within_6_inches, out_of_coherency\n" in english
    [due] = json.loads(morale(db, "--lang", "ru", "due", "vorns-ridge", "--json").stdout)
    assert due["decisions"] == ["decline_regroup"]
    assert due["decision_names"] == {"decline_regroup": "отказаться от перегруппировки"}
    assert due["fact_names"]["out_of_coherency"] == "нарушено боевое построение"


# -- every game names what it plays ------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(rulesets()), ids=lambda key: key[0])
def test_engine_every_unit_type_fact_and_decision_has_its_games_russian_and_its_english_as_before(key):
    """Each game installed (the four and the wh40k10 example) names every unit type, fact and
    decision it plays; in English each reads as its machine value did in the story, in Russian as
    something else (translated)."""
    ruleset = rulesets()[key]
    named = [
        *((t, ruleset.unit_type_name(t)) for t in ruleset.unit_types),
        *((f, ruleset.fact_name(f)) for f in ruleset.facts),
        *((d, ruleset.decision_name(d)) for d in (*ruleset.decisions, *ruleset.free_decisions)),
    ]
    assert named
    for machine, name in named:
        assert say(name) == machine.replace("_", " ")
        with language.speaking("ru"):
            assert say(name) != machine.replace("_", " "), f"{ruleset.id}: no Russian for {machine}"


# -- the scan ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_engine_a_russian_replay_names_no_unit_type_fact_or_decision_by_its_machine_name(replays, game):
    """The whole Russian story of each example battle (every rule cited: wh40k6.*, wh40k3.*, wfb8.*,
    gdb.*): no unit type, fact or decision appears as its machine name, nor in English words, outside
    the roster's own names and ids, the rule IDs, and the notes and causes the table typed."""
    roster = tomllib.loads((ROOT / "examples" / game / "roster.toml").read_text())
    text = replays[(game, "ru")]
    ruleset = next(r for (i, _), r in rulesets().items() if i == roster["battle"]["ruleset"])
    events = example_events(ROOT / "examples" / game)
    # What the table typed as free text: notes, and causes of losses it words itself ("horse
    # artillery": no cause of the ruleset's), which the story repeats as typed.
    causes = {c.replace("_", " ") for c in ruleset.casualty_causes}
    typed = [e.note for e in events if getattr(e, "note", "")]
    typed += [e.cause for e in events if getattr(e, "cause", "") and e.cause.replace("_", " ") not in causes]
    names = [u["name"] for u in roster["unit"]] + [u["id"] for u in roster["unit"]] + roster["battle"]["sides"]
    for name in sorted({*names, *typed}, key=len, reverse=True):
        text = text.replace(name, " ")
    text = re.sub(r"\b[a-z0-9_]+(\.[a-z0-9_]+)+\b", " ", text)  # rule IDs
    machine = {*ruleset.unit_types, *ruleset.facts, *ruleset.decisions, *ruleset.free_decisions}
    for name in sorted(machine):
        for form in {name, name.replace("_", " ")}:
            assert not re.search(rf"\b{re.escape(form)}\b", text, re.IGNORECASE), f"{game}: {form!r} in Russian"


# -- refusals --------------------------------------------------------------------------------------
def refused(db: Path, *args: str) -> tuple[str, str]:
    """The refusal of `morale ARGS` in Russian, then in English."""
    said = []
    for lang in ("ru", "en"):
        result = morale(db, "--lang", lang, *args)
        assert result.exit_code != 0, result.output
        said.append(result.output.strip())
    return said[0], said[1]


def test_engine_dice_a_roll_for_another_test_names_the_test_due_in_the_books_words(tmp_path):
    """engine.dice: the test a unit must roll first is named as the ruleset names it in Russian;
    the test the user typed, and the tests due to type instead, stay machine names, as code."""
    db = regroup_due(tmp_path)
    russian, english = refused(db, "roll", "vorns-ridge", "wyches", "morale", "3", "3")
    assert (
        russian
        == "отказано: engine.dice: wyches сначала бросает кубики: Тест на Восстановление порядка (wh40k3.regroup.when)"
    )
    assert english == "refused: engine.dice: wyches must first roll for regroup (wh40k3.regroup.when)"
    russian, english = refused(db, "roll", "vorns-ridge", "guard", "morale", "3", "3")
    assert russian == "отказано: engine.dice: для guard не ожидается броска `morale` (сейчас ждут: `regroup` (wyches))"
    assert english == "refused: engine.dice: no morale roll is due for guard (due now: regroup (wyches))"


def test_engine_clock_tests_first_the_phase_waits_for_tests_named_in_the_books_words(tmp_path):
    """engine.clock.tests_first: the tests the phase waits for, in the ruleset's words in Russian."""
    russian, english = refused(regroup_due(tmp_path), "next-phase", "vorns-ridge")
    assert russian.endswith("пока ждут тесты: Тест на Восстановление порядка для wyches (wh40k3.regroup.when)")
    assert english.endswith("while tests are due: regroup for wyches (wh40k3.regroup.when)")


def test_wh40k3_who_auto_pass_a_fact_to_type_is_named_as_code_in_russian(tmp_path):
    """wh40k3.who.auto_pass (a barrage hit): a refusal naming the fact the user typed, and the value
    to type, names them as code in Russian; the English as before."""
    args = ("append", "vorns-ridge", "table_fact_recorded", "unit=guard", "fact=hit_by_barrage", "value=false")
    russian, english = refused(regroup_due(tmp_path), *args)
    assert russian == "отказано: value: `hit_by_barrage` записывается, когда это происходит, со значением `true`"
    assert english == "refused: value: hit_by_barrage is recorded when it happens, with value true"


def test_wh40k3_crossfire_a_fact_already_stated_reads_in_the_books_words_on_the_due_list(tmp_path):
    """wh40k3.crossfire: the distance to the enemy in the corridor, stated before the Fall Back
    roll, is named on the due list in the book's words in Russian, by its machine name in English."""
    db = tmp_path / "m.db"
    assert morale(db, "new", str(ROOT / "examples" / "wh40k3" / "roster.toml")).exit_code == 0
    assert morale(db, "next-phase", "vorns-ridge").exit_code == 0
    fact = ("append", "vorns-ridge", "table_fact_recorded", "unit=wyches")
    assert morale(db, *fact, "fact=tank_shocked", "value=russ").exit_code == 0
    assert morale(db, "roll", "vorns-ridge", "wyches", "morale", "6", "6").exit_code == 0
    assert morale(db, *fact, "fact=enemy_in_corridor", "value=4.5").exit_code == 0
    assert "заявлено: враг в коридоре отступления: 4,5\n" in morale(db, "--lang", "ru", "due", "vorns-ridge").stdout
    assert "stated: enemy_in_corridor: 4.5\n" in morale(db, "due", "vorns-ridge").stdout


def test_gdb_note_melee_the_vocabulary_names_facts_decisions_fields_and_choices_for_the_console():
    """gdb.note.melee, gdb.waver.reform, gdb.mod.square: the vocabulary the console builds its forms
    from keeps each machine value (`id`, `choices`) and gives the book's words beside it."""
    words = vocabulary(rulesets()[("gdb", "1")])
    melee = next(f for f in words.facts if f.id == "melee_result")
    reform = next(d for d in words.free_decisions if d.id == "reform")
    formation = next(f for f in words.profile if f.id == "formation")
    assert "retreat" in melee.choices and "square" in formation.choices
    with language.speaking("ru"):
        assert say(melee.name) == "итог рукопашной схватки"
        assert say(melee.choice_names["retreat"]) == "отступает"
        assert say(reform.name) == "построиться"
        assert (say(formation.name), say(formation.choice_names["square"])) == ("построение", "каре")
    assert (melee.name, melee.choice_names["carry_on"], reform.name) == ("melee result", "carry on", "reform")
    assert (formation.name, formation.choice_names["skirmish_order"]) == ("formation", "skirmish order")
