"""Rosters from list builders: a BattleScribe or New Recruit roster (`.rosz`, `.ros`) becomes the
battle its hand-written TOML roster makes, with `morale new` and over `POST /battles/roster`; what
the file cannot say is asked (a template to fill in, a prompt, a 422 with the questions), never
guessed, and nothing is written until every answer is in."""

from __future__ import annotations

import base64
import json
import os
import pty
import re
import select
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from litestar.testing import TestClient
from support.cli import morale
from support.served import ROOT, WAIT_S

from morale.app.battlescribe import Unanswered, read_answers, read_list_file, roster_data
from morale.app.cli.list_answers import prompt
from morale.app.http.server import Settings, create_app
from morale.events.codec import MalformedEvent
from morale.events.store import SqliteEventStore

EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures" / "battlescribe"
RULESETS = ["wh40k6", "wh40k3", "wfb8"]
NS = "http://www.battlescribe.net/schema/rosterSchema"


def board_of(db: Path, battle: str) -> dict:
    """The board as `morale board --json` shows it, its units by id (a list builder lists a force's
    units together, a hand-written roster in any order)."""
    shown = morale(db, "board", battle, "--json")
    assert shown.exit_code == 0, shown.output
    board = json.loads(shown.stdout)
    board["units"] = {row["unit"]: row for row in board["units"]}
    return board


def battles_in(db: Path) -> list[str]:
    if not db.exists():
        return []
    store = SqliteEventStore(db)
    try:
        return store.battles()
    finally:
        store.close()


def battle_id(example: str) -> str:
    return tomllib.loads((EXAMPLES / example / "roster.toml").read_text(encoding="utf-8"))["battle"]["id"]


@pytest.mark.parametrize("example", RULESETS)
def test_a_list_builders_rosz_becomes_the_battle_of_the_hand_written_roster(example, tmp_path):
    listed = morale(
        tmp_path / "listed.db",
        "new",
        str(EXAMPLES / example / "roster.rosz"),
        "--answers",
        str(EXAMPLES / example / "answers.toml"),
    )
    assert listed.exit_code == 0, listed.output
    assert morale(tmp_path / "typed.db", "new", str(EXAMPLES / example / "roster.toml")).exit_code == 0
    battle = battle_id(example)
    assert board_of(tmp_path / "listed.db", battle) == board_of(tmp_path / "typed.db", battle)


def test_the_same_roster_unzipped_makes_the_same_battle(tmp_path):
    args = ["--answers", str(EXAMPLES / "wh40k6" / "answers.toml")]
    assert morale(tmp_path / "a.db", "new", str(EXAMPLES / "wh40k6" / "roster.rosz"), *args).exit_code == 0
    assert morale(tmp_path / "b.db", "new", str(FIXTURES / "wh40k6.ros"), *args).exit_code == 0
    assert board_of(tmp_path / "a.db", "hive-tarsis") == board_of(tmp_path / "b.db", "hive-tarsis")


def test_one_list_a_player_makes_the_battle_of_one_list_with_both_forces(tmp_path):
    """Each player brings their own list; two files make one battle, which then needs an id."""
    files = [str(FIXTURES / "wfb8-empire.ros"), str(FIXTURES / "wfb8-orcs.ros")]
    answers = str(EXAMPLES / "wfb8" / "answers.toml")
    assert morale(tmp_path / "a.db", "new", *files, "--answers", answers).exit_code == 0
    assert morale(tmp_path / "b.db", "new", str(EXAMPLES / "wfb8" / "roster.rosz"), "--answers", answers).exit_code == 0
    # The battle id comes from the answers (two lists, two roster names: none is the battle's).
    assert (
        board_of(tmp_path / "a.db", "grunburg-bridge")["units"]
        == board_of(tmp_path / "b.db", "grunburg-bridge")["units"]
    )


def test_a_roster_left_unanswered_is_refused_with_the_answers_file_to_fill_in_and_nothing_written(tmp_path):
    db = tmp_path / "battles.db"
    result = morale(db, "new", str(EXAMPLES / "wh40k6" / "roster.rosz"))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("refused: ")
    assert "9 answers are needed before the battle can start" in result.stderr
    assert battles_in(db) == []
    template = result.stdout  # to redirect to a file
    asked = tomllib.loads(template)  # the template is an answers file, every key in place
    assert set(asked["force"]) == {"Space Marines", "Imperial Guard", "Orks"}
    assert set(asked["rules"]) == {
        "Combat Squads",
        "Combined Squad",
        "Hammer of Wrath",
        "Mindlock",
        "Mob Rule",
        "Furious Charge",
    }
    assert "# Units with it: Ork Boyz, Nobz, Lootas." in template
    # Filled in, it starts the battle (ids made from the names, where nobody gave one).
    filled = template.replace('side = ""', 'side = "imperium"', 2).replace('side = ""', 'side = "orks"')
    filled = filled.replace('"Mindlock" = ""', '"Mindlock" = "immune_to_morale"').replace('= ""', "= false")
    (tmp_path / "answers.toml").write_text(filled, encoding="utf-8")
    started = morale(db, "new", str(EXAMPLES / "wh40k6" / "roster.rosz"), "--answers", str(tmp_path / "answers.toml"))
    assert started.exit_code == 0, started.output
    units = board_of(db, "skirmish-at-the-hive-tarsis-refinery")["units"]  # the id made from the roster's name
    assert units["combat_servitors"]["special_rules"] == ["immune_to_morale"]
    assert units["ork_boyz"]["special_rules"] == []  # Mob Rule and Furious Charge answered false
    assert {u["side"] for u in units.values()} == {"imperium", "orks"}


def test_the_questions_come_as_json_for_a_program(tmp_path):
    result = morale(tmp_path / "battles.db", "new", str(EXAMPLES / "wfb8" / "roster.rosz"), "--json")
    assert result.exit_code == 2
    error = json.loads(result.stderr)["error"]
    keys = [q["key"] for q in error["questions"]]
    assert keys == [
        'rules."Frenzy"',
        'rules."Hatred"',
        'rules."Animosity"',
        'rules."Fast Cavalry"',
        'rules."Quell Animosity"',
    ]
    assert error["field"] == 'rules."Frenzy"'
    assert "stubborn" in error["questions"][0]["choices"]


# -- what a file does not say is asked, one question each -------------------------------------------
def ros(
    units: str, system: str = "Warhammer 40,000 6th Edition", forces: tuple[str, str] = ("Space Marines", "Orks")
) -> bytes:
    """A small roster: `units` (selections) in the first force, one unit of Ork Boyz in the second."""
    boyz = unit("Boyz", [("Ork Boy", 10, {"Ld": "7", "I": "2", "Unit Type": "Infantry"})])
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><roster xmlns="{NS}" id="r" name="Test" gameSystemId="g" '
        f'gameSystemName="{system}"><forces>'
        f'<force id="f1" name="Standard" entryId="e" catalogueId="c1" catalogueName="{forces[0]}"><selections>{units}'
        f'</selections></force><force id="f2" name="Standard" entryId="e" catalogueId="c2" '
        f'catalogueName="{forces[1]}"><selections>{boyz}</selections></force></forces></roster>'
    ).encode()


def unit(
    name: str, models: list[tuple[str, int, dict[str, str]]], rules: tuple[str, ...] = (), kind: str = "unit"
) -> str:
    inner = "".join(
        f'<selection id="{m}" name="{m}" entryId="e" number="{n}" type="model"><profiles><profile id="p" '
        f'name="{m}" typeId="t" typeName="Unit"><characteristics>'
        + "".join(f'<characteristic name="{k}" typeId="t">{v}</characteristic>' for k, v in stats.items())
        + "</characteristics></profile></profiles></selection>"
        for m, n, stats in models
    )
    rule_xml = "".join(f'<rule id="r" name="{r}"/>' for r in rules)
    return (
        f'<selection id="{name}" name="{name}" entryId="e" number="1" type="{kind}">'
        f"<rules>{rule_xml}</rules><selections>{inner}</selections></selection>"
    )


def questions(data: bytes, answers: str = "") -> list[str]:
    try:
        roster_data([read_list_file(data, "t.ros")], read_answers(answers, "a.toml"))
    except Unanswered as exc:
        return [q.key for q in exc.questions]
    return []


MARINES = {"Ld": "8", "I": "4", "Unit Type": "Infantry"}


def test_a_unit_without_a_leadership_is_asked_for_it_and_the_answer_is_used():
    squad = unit("Scouts", [("Scout", 5, {"I": "4", "Unit Type": "Infantry"})])
    assert questions(ros(squad)) == ['unit."Scouts".ld']
    data = roster_data([read_list_file(ros(squad), "t.ros")], read_answers('[unit."Scouts"]\nld = 8\n', "a.toml"))
    assert data["unit"][0]["ld"] == 8


def test_a_vehicle_without_leadership_in_a_ruleset_that_gives_it_none_is_not_asked():
    russ = unit("Leman Russ", [("Hull", 1, {"Ld": "-", "Type": "Tank"})])
    assert questions(ros(russ, "Warhammer 40,000 3rd Edition")) == []
    data = roster_data([read_list_file(ros(russ, "Warhammer 40,000 3rd Edition"), "t.ros")], read_answers("", "a"))
    assert data["unit"][0] == {
        "id": "leman_russ",
        "side": "space_marines",
        "name": "Leman Russ",
        "type": "tank",
        "models": 1,
        "rules": [],
    }
    # A 6th edition infantry unit without Leadership is refused by the rules: asked, never guessed.
    squad = unit("Scouts", [("Scout", 5, {"Ld": "-", "I": "4", "Unit Type": "Infantry"})])
    assert questions(ros(squad)) == ['unit."Scouts".ld']


def test_a_model_standing_alone_is_a_unit_of_its_number():
    captain = (
        '<selection id="c" name="Captain" entryId="e" number="1" type="model"><profiles><profile id="p" '
        'name="Captain" typeId="t" typeName="Unit"><characteristics><characteristic name="Ld" typeId="t">10'
        '</characteristic><characteristic name="I" typeId="t">5</characteristic><characteristic name="Unit Type" '
        'typeId="t">Infantry (Character)</characteristic></characteristics></profile></profiles>'
        '<rules><rule id="r" name="Independent Character"/></rules></selection>'
    )
    data = roster_data([read_list_file(ros(captain), "t.ros")], read_answers("", "a"))
    assert {k: data["unit"][0][k] for k in ("models", "ld", "initiative", "type", "rules")} == {
        "models": 1,
        "ld": 10,
        "initiative": 5,
        "type": "infantry",
        "rules": ["independent_character"],
    }


def test_a_unit_type_the_ruleset_lacks_is_asked_with_its_choices():
    flyer = unit("Stormtalon", [("Stormtalon", 1, {"Ld": "8", "I": "4", "Unit Type": "Flyer"})])
    try:
        roster_data([read_list_file(ros(flyer), "t.ros")], read_answers("", "a.toml"))
    except Unanswered as exc:
        (question,) = exc.questions
    assert question.key == 'unit."Stormtalon".type'
    assert "'Flyer'" in question.asks and "jump" in question.choices
    assert questions(ros(flyer), '[unit."Stormtalon"]\ntype = "jump"\n') == []


def test_the_highest_leadership_of_a_units_models_is_the_units():
    squad = unit("Guardsmen", [("Sergeant", 1, {**MARINES, "Ld": "8"}), ("Guardsman", 9, {**MARINES, "Ld": "7"})])
    data = roster_data([read_list_file(ros(squad), "t.ros")], read_answers("", "a.toml"))
    assert (data["unit"][0]["models"], data["unit"][0]["ld"]) == (10, 8)


def test_a_leadership_that_is_no_number_is_asked():
    squad = unit("Odd", [("Odd", 5, {**MARINES, "Ld": "*"})])
    assert questions(ros(squad)) == ['unit."Odd".ld']


def test_two_units_of_one_name_are_told_apart():
    squads = unit("Tactical Squad", [("Marine", 5, MARINES)]) * 2
    data = roster_data(
        [read_list_file(ros(squads), "t.ros")], read_answers('[unit."Tactical Squad (2)"]\nid = "second"\n', "a")
    )
    assert [u["id"] for u in data["unit"]] == ["tactical_squad", "second", "boyz"]


def test_a_rule_is_asked_once_naming_every_unit_with_it_and_answered_once():
    squads = unit("A", [("Marine", 5, MARINES)], ("Bolter Drill",)) + unit(
        "B", [("Marine", 5, MARINES)], ("Bolter Drill",)
    )
    try:
        roster_data([read_list_file(ros(squads), "t.ros")], read_answers("", "a"))
    except Unanswered as exc:
        (question,) = exc.questions
    assert (question.key, question.units) == ('rules."Bolter Drill"', ("A", "B"))
    data = roster_data(
        [read_list_file(ros(squads), "t.ros")], read_answers('[rules]\n"Bolter Drill" = "fearless"\n', "a")
    )
    assert [u["rules"] for u in data["unit"]] == [["fearless"], ["fearless"], []]


def test_a_known_rule_is_mapped_by_its_name():
    squad = unit("Tactical Squad", [("Marine", 5, MARINES)], ("And They Shall Know No Fear",))
    data = roster_data([read_list_file(ros(squad), "t.ros")], read_answers("", "a"))
    assert data["unit"][0]["rules"] == ["and_they_shall_know_no_fear"]


def test_a_game_system_morale_does_not_play_is_asked_which_rules_to_use():
    squad = unit("Squad", [("Marine", 5, MARINES)])
    assert questions(ros(squad, "Warhammer 40,000 10th Edition")) == ["battle.ruleset"]
    assert questions(ros(squad, "Warhammer 40,000 10th Edition"), '[battle]\nruleset = "wh40k6"\n') == []


def test_forces_that_do_not_make_two_sides_are_asked_which_side_each_plays():
    squad = unit("Squad", [("Marine", 5, MARINES)])
    assert questions(ros(squad, forces=("Orks", "Orks"))) == ['force."Orks".side', 'force."Orks (2)".side']


def test_an_answers_file_with_a_key_morale_does_not_read_is_refused_naming_it():
    with pytest.raises(MalformedEvent, match=r'unit."Boyz".leadership: not an answer morale reads') as refused:
        read_answers('[unit."Boyz"]\nleadership = 7\n', "a.toml")
    assert refused.value.field == 'unit."Boyz".leadership'
    with pytest.raises(MalformedEvent, match=r'rules."Mob Rule": give the ruleset'):
        read_answers('[rules]\n"Mob Rule" = ""\n', "a.toml")  # a blank left in the template is no answer


def test_the_prompt_asks_again_until_an_answer_is_of_its_kind():
    squad = unit("Scouts", [("Scout", 5, {"I": "4", "Unit Type": "Infantry"})], ("Infiltrate",))
    try:
        roster_data([read_list_file(ros(squad), "t.ros")], read_answers("", "a"))
    except Unanswered as exc:
        asked = exc.questions
    assert [q.key for q in asked] == ['rules."Infiltrate"', 'unit."Scouts".ld']
    typed = iter(["sometimes", "none", "seven", "7"])
    shown: list[str] = []
    answers = prompt(asked, lambda text: (shown.append(text), next(typed))[1])
    assert answers.units == {"Scouts": {"ld": 7}} and answers.rules == {"Infiltrate": False}
    assert len(shown) == 4 and shown[2].startswith('unit."Scouts".ld: ')


# -- over HTTP, as the console sends it ---------------------------------------------------------------
@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path / "served.db", Settings())) as opened:
        yield opened


def listed(*names: Path) -> list[dict]:
    return [{"file": path.name, "data": base64.b64encode(path.read_bytes()).decode()} for path in names]


@pytest.mark.parametrize("example", RULESETS)
def test_a_rosz_sent_to_the_server_starts_the_battle_morale_new_starts(client, tmp_path, example):
    answers = (EXAMPLES / example / "answers.toml").read_text(encoding="utf-8")
    answer = client.post(
        "/battles/roster", json={"lists": listed(EXAMPLES / example / "roster.rosz"), "answers": answers}
    )
    assert answer.status_code == 201, answer.text
    battle = answer.json()["battle"]
    assert morale(tmp_path / "typed.db", "new", str(EXAMPLES / example / "roster.toml")).exit_code == 0
    served = client.get(
        f"/battles/{battle}/board", headers={"Authorization": f"Bearer {answer.json()['tokens']['referee']}"}
    )
    typed = board_of(tmp_path / "typed.db", battle)
    assert {row["unit"]: row for row in served.json()["units"]} == typed["units"]


def test_a_rosz_left_unanswered_is_a_422_with_the_questions_and_nothing_written(client):
    answer = client.post("/battles/roster", json={"lists": listed(EXAMPLES / "wh40k3" / "roster.rosz")})
    assert answer.status_code == 422
    problem = answer.json()
    assert problem["type"] == "urn:morale:problem:unanswered"
    keys = [q["key"] for q in problem["questions"]]
    assert keys[:4] == [
        'force."Imperial Guard".side',
        'force."Space Marines".side',
        'force."Witch Hunters".side',
        'force."Dark Eldar".side',
    ]
    rule = next(q for q in problem["questions"] if q["key"] == 'rules."Fearless"')
    assert rule["kind"] == "rule" and rule["units"] == ["Grotesques"] and "immune_to_morale" in rule["choices"]
    store = SqliteEventStore(client.app.state.stores.path)
    try:
        assert store.battles() == []
    finally:
        store.close()


def test_a_toml_roster_and_list_files_together_are_refused_naming_the_field(client):
    both = {"roster": "[battle]\n", "lists": listed(EXAMPLES / "wfb8" / "roster.rosz")}
    answer = client.post("/battles/roster", json=both)
    assert (answer.status_code, answer.json()["field"]) == (400, "roster")
    answers_alone = client.post("/battles/roster", json={"roster": "[battle]\n", "answers": "[rules]\n"})
    assert (answers_alone.status_code, answers_alone.json()["field"]) == (400, "answers")


def test_models_a_catalogue_enters_as_upgrades_are_counted_and_a_mount_is_not():
    """Catalogues often enter a squad's troopers as an upgrade with a profile ("Guardsman", number
    9); a character's mount is an upgrade within the character's own model."""
    profile = '<profiles><profile id="p" name="{0}" typeId="t" typeName="Unit"><characteristics>' + (
        '<characteristic name="Ld" typeId="t">{1}</characteristic><characteristic name="I" typeId="t">3'
        '</characteristic><characteristic name="Unit Type" typeId="t">Infantry</characteristic>'
        "</characteristics></profile></profiles>"
    )
    squad = (
        '<selection id="s" name="Infantry Squad" entryId="e" number="1" type="unit"><selections>'
        f'<selection id="a" name="Sergeant" entryId="e" number="1" type="model">{profile.format("Sergeant", 8)}'
        "</selection>"
        f'<selection id="b" name="Guardsman" entryId="e" number="9" type="upgrade">{profile.format("Guardsman", 7)}'
        '<selections><selection id="w" name="Lasgun" entryId="e" number="9" type="upgrade"/></selections>'
        "</selection></selections></selection>"
        f'<selection id="c" name="Lord Castellan" entryId="e" number="1" type="model">{profile.format("Lord", 9)}'
        '<selections><selection id="h" name="Warhorse" entryId="e" number="1" type="upgrade">'
        f"{profile.format('Horse', 5)}"
        "</selection></selections></selection>"
    )
    data = roster_data([read_list_file(ros(squad), "t.ros")], read_answers("", "a"))
    assert [(u["name"], u["models"], u["ld"]) for u in data["unit"]][:2] == [
        ("Infantry Squad", 10, 8),
        ("Lord Castellan", 1, 9),
    ]


def test_at_a_terminal_morale_new_asks_each_question_and_starts_the_battle(tmp_path):
    """`morale new` run on a terminal (a pseudo-terminal here), answered as a referee types."""
    main, side = pty.openpty()
    morale_bin = Path(sys.executable).with_name("morale")
    db = tmp_path / "typed.db"
    process = subprocess.Popen(
        [str(morale_bin), "new", str(EXAMPLES / "wfb8" / "roster.rosz"), "--db", str(db)],
        stdin=side,
        stdout=side,
        stderr=side,
        env={**os.environ, "COLUMNS": "200"},
        cwd=tmp_path,
    )
    os.close(side)
    seen = b""
    answers = iter([b"sometimes\n", b"false\n", b"false\n", b"false\n", b"false\n", b"false\n"])
    # poll(), not select(): in a long run of the suite this process may hold more than 1,024 files
    # open, and select() refuses a descriptor past that.
    waiting = select.poll()
    waiting.register(main, select.POLLIN)
    try:
        while process.poll() is None or waiting.poll(0):
            ready = waiting.poll(WAIT_S * 1000)
            assert ready, seen.decode(errors="replace")
            try:
                chunk = os.read(main, 4096)
            except OSError:  # the terminal closed: the command is done
                break
            seen += chunk
            if chunk.rstrip().endswith(b":") or b"]:" in chunk[-4:]:
                os.write(main, next(answers))
    finally:
        os.close(main)
        process.wait(timeout=WAIT_S)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", seen.decode(errors="replace"))  # the terminal's colours
    assert process.returncode == 0, shown
    assert 'rules."Frenzy": What is the rule' in shown and "Flagellant Warband" in shown
    assert shown.count('rules."Frenzy"') == 2  # "sometimes" is no answer: asked again
    assert "Battle the-fight-at-the-grunburg-bridge created with 11 units" in shown


def test_the_kept_roster_files_are_the_ones_their_script_writes(tmp_path):
    from support import list_rosters

    list_rosters.main(tmp_path)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert written and all((ROOT / p).read_bytes() == (tmp_path / p).read_bytes() for p in written), written


def test_an_answer_for_a_unit_the_roster_lacks_is_refused_naming_it():
    squad = unit("Tactical Squad", [("Marine", 5, MARINES)])
    with pytest.raises(MalformedEvent, match=r'a.toml: unit."Tactical Sqaud": the rosters have no unit of that name'):
        roster_data(
            [read_list_file(ros(squad), "t.ros")], read_answers('[unit."Tactical Sqaud"]\nid = "t"\n', "a.toml")
        )


def test_a_value_the_rules_refuse_names_the_unit_as_the_answers_file_does(tmp_path):
    (tmp_path / "a.toml").write_text('[unit."Tactical Squad"]\nld = 12\n', encoding="utf-8")
    (tmp_path / "t.ros").write_bytes(ros(unit("Tactical Squad", [("Marine", 5, MARINES)])))
    result = morale(tmp_path / "b.db", "new", str(tmp_path / "t.ros"), "--answers", str(tmp_path / "a.toml"))
    assert result.exit_code == 2
    assert 'unit."Tactical Squad": ld: ' in result.stderr and result.stderr.count("\n") == 1
    assert battles_in(tmp_path / "b.db") == []
