"""The rough edges of `morale` a user meets first: help, version, completion, list fields typed as
`a,b`, a --db that is not a store, points and turns that do not exist, errors as JSON, a busy port,
and the due list's rule IDs. Bad input prints one line (one JSON object with --json), exits 2 and
leaves the store as it was."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
from contextlib import closing
from importlib.metadata import version
from pathlib import Path
from typing import Annotated

import msgspec
import pytest
import typer
from rich.console import Console
from support.cli import morale
from support.nodes import free_port
from typer.testing import CliRunner

from morale.app.cli import app
from morale.app.cli.battle import _takes_sequence
from morale.app.cli.render import print_due
from morale.core.outcomes import Modifier
from morale.core.rulesets import rulesets
from morale.projections.due import DueView

runner = CliRunner()
ROSTER = Path(__file__).resolve().parent.parent / "examples" / "wh40k6" / "roster.toml"
BATTLE = "hive-tarsis"
pytestmark = pytest.mark.battle(ROSTER)  # `db`: the example 40K battle, created and nothing recorded yet
MORALE = str(Path(sys.executable).parent / "morale")  # the installed command, as a shell runs it


def command_names() -> list[str]:
    """Every registered command, read from the command tree, so a new command is covered at once."""
    group = typer.main.get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


def first_doc_line(name: str) -> str:
    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    return (command.callback.__doc__ or "").strip().splitlines()[0]


def words(text: str) -> str:
    """Help is re-wrapped to the terminal: compare the words, not the line breaks."""
    return re.sub(r"\s+", " ", text).strip()


# -- help ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("name", command_names())
def test_every_command_prints_its_help(name, flag):
    result = runner.invoke(app, [name, flag])
    assert result.exit_code == 0, result.output
    assert words(first_doc_line(name)) in words(result.stdout)


def test_the_commands_are_found():
    assert {"new", "append", "at", "serve", "explain", "import"} <= set(command_names())


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_morale_prints_its_help(flag):
    result = runner.invoke(app, [flag])
    assert result.exit_code == 0
    assert "An event-sourced referee" in result.stdout and "replay" in result.stdout


def test_help_shows_brackets_as_written():
    assert "A roster file (TOML): [battle] and [[unit]] tables." in words(runner.invoke(app, ["new", "-h"]).stdout)
    assert "start:TURN[/SIDE][/PHASE]" in runner.invoke(app, ["at", "-h"]).stdout


# -- version and shell completion ----------------------------------------------------------------
def test_version_prints_the_installed_version_and_each_rulesets():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    # morale's own four, then any game installed beside them (make test installs the fifth).
    assert result.stdout.splitlines()[:5] == [
        f"morale {version('morale')}",
        "ruleset wh40k6 version 1: Warhammer 40,000 6th edition",
        "ruleset wh40k3 version 1: Warhammer 40,000 3rd edition",
        "ruleset wfb8 version 1: Warhammer Fantasy Battle 8th edition",
        "ruleset gdb version 1: General de Brigade",
    ]
    assert len(result.stdout.splitlines()) == 1 + len(rulesets())


def test_completion_script_is_shown_for_bash(monkeypatch):
    # Typer's own switch for tests: the shell is given, not detected (and nothing is installed).
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    result = runner.invoke(app, ["--show-completion", "bash"], prog_name="morale")
    assert result.exit_code == 0, result.output
    assert "complete -o default -F _morale_completion morale" in result.stdout
    assert "_MORALE_COMPLETE=complete_bash" in result.stdout


def test_completion_completes_command_names():
    env = {**os.environ, "_MORALE_COMPLETE": "complete_bash", "COMP_WORDS": "morale bo", "COMP_CWORD": "1"}
    done = subprocess.run([MORALE], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["board"]


# -- list fields typed as a,b --------------------------------------------------------------------
def next_phases(db: Path, count: int) -> None:
    for _ in range(count):
        assert morale(db, "next-phase", BATTLE).exit_code == 0


def logged(db: Path) -> list[dict]:
    return json.loads(morale(db, "log", BATTLE, "--json").stdout)


def test_a_charge_typed_with_comma_separated_targets_names_them_all(db):
    next_phases(db, 7)  # turn 1, imperium: movement, psychic and shooting done; assault started
    result = morale(db, "append", BATTLE, "charge_declared", "charger=tacticals", "targets=boyz,nobz", "in_range=boyz")
    assert result.exit_code == 0, result.output
    charge = logged(db)[-1]["event"]
    assert (charge["type"], charge["targets"], charge["in_range"]) == ("charge_declared", ["boyz", "nobz"], ["boyz"])


def test_dice_typed_as_comma_separated_numbers_are_rolled(db):
    next_phases(db, 5)  # the imperium's shooting phase
    morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=3")
    next_phases(db, 1)  # the phase ends: Kraak's Guardsmen owe a Morale test
    result = morale(db, "append", BATTLE, "dice_rolled", "unit=kraak", "test=morale", "dice=4,5")
    assert result.exit_code == 0, result.output
    rolled = logged(db)[-1]["event"]
    assert (rolled["type"], rolled["dice"]) == ("dice_rolled", [4, 5])


@pytest.mark.parametrize(
    "declared",
    [list[str], tuple[str, ...], tuple[str, str], set[str], frozenset[str], tuple[str, ...] | None, list[int] | None],
)
def test_every_kind_of_sequence_field_takes_comma_separated_text(declared):
    assert _takes_sequence(msgspec.inspect.type_info(Annotated[declared, msgspec.Meta(description="x")]))
    assert _takes_sequence(msgspec.inspect.type_info(declared))


@pytest.mark.parametrize("declared", [str, int, dict[str, int], str | None])
def test_a_field_that_takes_one_value_is_not_split(declared):
    assert not _takes_sequence(msgspec.inspect.type_info(declared))


# -- --db that holds no store ----------------------------------------------------------------------
# The commands that create battles, and so may create the store; every other one only reads or adds.
CREATORS = {"new", "import", "serve"}
# What each command needs besides --db to get as far as opening the store (default: the battle).
ARGS = {
    "new": [str(ROSTER)],
    "import": [str(ROSTER)],
    "append": [BATTLE, "phase_started", "turn=1", "side=imperium", "phase=movement"],
    "roll": [BATTLE, "kraak", "morale", "3", "4"],
    "explain": [BATTLE, "kraak"],
    "diff": [BATTLE, "1"],
    "battles": [],
    "revoke": [BATTLE, "orks"],
    "seed": [BATTLE, "orks"],
    "strike": [BATTLE, "5", "--reason", "x"],
    "confirm": [BATTLE, "5"],
    "dispute": [BATTLE, "5", "--reason", "x"],
    "resolve": [BATTLE, "5", "--ruling", "x"],
    "cors": [BATTLE, "--allow", "https://overlay.example"],
}


def db_commands() -> list[str]:
    group = typer.main.get_command(app)
    return [n for n in command_names() if any(p.name == "db" for p in group.commands[n].params)]  # type: ignore[attr-defined]


def one_refusal(result, start: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(start) and result.stderr.count("\n") == 1, result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("name", sorted(set(db_commands()) - CREATORS - {"serve"}))
def test_a_reader_given_a_missing_store_refuses_and_creates_nothing(tmp_path, name):
    path = tmp_path / "typo.db"
    result = morale(path, name, *ARGS.get(name, [BATTLE]))
    one_refusal(result, f"refused: --db {path}: no store at {path}")
    assert list(tmp_path.iterdir()) == []


def not_a_store(tmp_path: Path, kind: str) -> Path:
    if kind == "missing folder":
        return tmp_path / "nowhere" / "battles.db"
    if kind == "folder":
        return tmp_path
    path = tmp_path / f"{kind.replace(' ', '-')}.db"
    if kind == "text file":
        path.write_text("[battle]\nid = 'not a database'\n")
    elif kind == "empty file":
        path.touch()
    else:  # an SQLite file some other program keeps
        connection = sqlite3.connect(path)
        connection.execute("CREATE TABLE notes (text TEXT)")
        connection.commit()
        connection.close()
    return path


@pytest.mark.parametrize("kind", ["missing folder", "folder", "text file", "other SQLite file", "empty file"])
@pytest.mark.parametrize("name", sorted(set(db_commands()) - {"serve"}))
def test_a_db_that_is_not_a_store_is_refused_in_one_line(tmp_path, name, kind):
    path = not_a_store(tmp_path, kind)
    if kind in ("other SQLite file", "empty file") and name in CREATORS:
        pytest.skip("a command that creates battles may add the store's tables to an SQLite file")
    before = path.read_bytes() if path.is_file() else None
    result = morale(path, name, *ARGS.get(name, [BATTLE]))
    one_refusal(result, f"refused: --db {path}: ")
    assert (path.read_bytes() if path.is_file() else None) == before
    assert not (tmp_path / "nowhere").exists()


def test_the_db_refusals_say_what_is_wrong(tmp_path):
    reasons = {kind: morale(not_a_store(tmp_path, kind), "board", BATTLE).stderr for kind in ("folder", "text file")}
    assert "is a folder" in reasons["folder"] and "not a SQLite file" in reasons["text file"]
    missing = morale(tmp_path / "nowhere" / "b.db", "new", str(ROSTER)).stderr
    assert f"no folder {tmp_path / 'nowhere'}" in missing
    other = morale(not_a_store(tmp_path, "other SQLite file"), "battles").stderr
    assert "not a morale store" in other
    assert "an empty file, not a store" in morale(not_a_store(tmp_path, "empty file"), "log", BATTLE).stderr


def test_new_creates_the_store_where_none_was(tmp_path):
    path = tmp_path / "fresh.db"
    assert morale(path, "new", str(ROSTER)).exit_code == 0
    assert json.loads(morale(path, "battles", "--json").stdout) == [{"battle": BATTLE, "events": 9}]


def serve_once(path: Path, *args: str) -> subprocess.CompletedProcess:
    """`morale serve` as a shell runs it; one that fails to refuse would be stopped by the timeout."""
    command = [MORALE, "serve", "--db", str(path), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("kind", ["missing folder", "folder", "text file"])
def test_serve_refuses_a_db_that_cannot_be_a_store(tmp_path, kind):
    path = not_a_store(tmp_path, kind)
    done = serve_once(path, "--port", str(free_port()))  # not the default: a server there would be refused first
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"refused: --db {path}: ") and done.stderr.count("\n") == 1


# -- turns, points and battles that do not exist ---------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """The whole example battle (three turns, events 1 to 104). Tests that use it only read, or are refused."""
    path = tmp_path_factory.mktemp("played") / "battles.db"
    assert morale(path, "new", str(ROSTER)).exit_code == 0
    assert morale(path, "append", BATTLE, "--file", str(ROSTER.parent / "battle.ndjson")).exit_code == 0
    return path


def contents(db: Path) -> list[str]:
    """Everything the store holds, table by table (file bytes may move as SQLite checkpoints its WAL)."""
    with closing(sqlite3.connect(db)) as connection:
        return list(connection.iterdump())


def test_replay_of_a_turn_the_battle_never_reached_is_refused_naming_its_turns(played):
    before = contents(played)
    result = morale(played, "replay", BATTLE, "--turn", "9")
    one_refusal(result, "refused: turn: battle 'hive-tarsis' has no turn 9: it has turns 1 to 3")
    assert contents(played) == before


def test_replay_of_a_turn_it_has_shows_that_turn_only(played):
    result = morale(played, "replay", BATTLE, "--turn", "2", "--json")
    assert result.exit_code == 0 and {line["turn"] for line in json.loads(result.stdout)} == {2}


POINTS_THAT_DO_NOT_EXIST = [
    (["at", BATTLE, "999"], "there is no event 999 (the log runs from 1 to 104)"),
    (["at", BATTLE, "end:4"], "it has turns 1 to 3"),
    (["at", BATTLE, "start:1/eldar"], "turn 1: sides imperium, orks"),
    (["at", BATTLE, "end:2/orks/fishing"], "phases movement, psychic, shooting, assault"),
    (["explain", BATTLE, "kraak", "--at", "999"], "there is no event 999"),
    (["explain", BATTLE, "kraak", "--at", "0"], "there is no event 0"),
    (["diff", BATTLE, "999"], "there is no event 999"),
    (["diff", BATTLE, "start:5", "end"], "it has turns 1 to 3"),
    (["diff", BATTLE, "end:2", "end:1"], "give the earlier point first"),
]


@pytest.mark.parametrize(
    ("args", "words"), POINTS_THAT_DO_NOT_EXIST, ids=[" ".join(a) for a, _ in POINTS_THAT_DO_NOT_EXIST]
)
def test_a_point_that_does_not_exist_is_refused_in_one_line(played, args, words):
    before = contents(played)
    result = morale(played, *args)
    one_refusal(result, "refused: ")
    assert words in result.stderr
    assert contents(played) == before


def battle_commands() -> list[str]:
    """The commands whose first argument is a battle's id (`new` takes --battle, which names a new one)."""
    group = typer.main.get_command(app)
    return [
        name
        for name in command_names()
        if any(p.name == "battle" and p.param_type_name == "argument" for p in group.commands[name].params)  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize("name", battle_commands())
def test_an_unknown_battle_is_refused_by_every_command_that_names_one(played, name):
    args = ["no-such-battle" if arg == BATTLE else arg for arg in ARGS.get(name, [BATTLE])]
    before = contents(played)
    result = morale(played, name, *args)
    one_refusal(result, "refused: battle: no battle 'no-such-battle' in this store")
    assert contents(played) == before


# -- errors as JSON with --json --------------------------------------------------------------------
def json_refusal(result) -> dict:
    """Exit code 2, nothing on stdout, and one JSON object on one line of stderr: its error."""
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    error = json.loads(result.stderr)["error"]
    assert set(error) == {"message", "rule", "field"}
    return error


def test_a_die_showing_7_is_refused_as_json(db):
    next_phases(db, 5)
    morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=3")
    next_phases(db, 1)
    before = contents(db)
    error = json_refusal(morale(db, "roll", BATTLE, "kraak", "morale", "3", "7", "--json"))
    assert error == {"message": "dice[1]: a die shows 1 to 6, not 7", "rule": None, "field": "dice[1]"}
    assert contents(db) == before


def test_a_rule_that_refuses_is_named_in_the_json(db):
    before = contents(db)
    result = morale(db, "append", BATTLE, "phase_started", "turn=1", "side=orks", "phase=movement", "--json")
    error = json_refusal(result)
    assert error["rule"] == "engine.clock.order" and error["message"]
    assert contents(db) == before


@pytest.mark.parametrize("name", battle_commands())
def test_an_unknown_battle_is_refused_as_json(played, name):
    if name == "export":
        pytest.skip("export prints the log itself, NDJSON, and has no --json")
    args = ["no-such-battle" if arg == BATTLE else arg for arg in ARGS.get(name, [BATTLE])]
    before = contents(played)
    error = json_refusal(morale(played, name, *args, "--json"))
    assert error == {"message": "no battle 'no-such-battle' in this store", "rule": None, "field": "battle"}
    assert contents(played) == before


@pytest.mark.parametrize("name", ["board", "battles", "new", "at", "import"])
def test_a_bad_db_is_refused_as_json(tmp_path, name):
    path = not_a_store(tmp_path, "text file")
    before = path.read_bytes()
    error = json_refusal(morale(path, name, *ARGS.get(name, [BATTLE]), "--json"))
    assert error == {"message": f"{path}: not a SQLite file", "rule": None, "field": "--db"}
    assert path.read_bytes() == before


def test_a_missing_store_is_refused_as_json(tmp_path):
    path = tmp_path / "typo.db"
    error = json_refusal(morale(path, "due", BATTLE, "--json"))
    assert error["field"] == "--db" and error["message"].startswith(f"{path}: no store at {path}")
    assert not path.exists()


def test_a_point_that_does_not_exist_is_refused_as_json(played):
    error = json_refusal(morale(played, "at", BATTLE, "end:9", "--json"))
    assert error == {
        "message": "'end:9': that never happened in this log (it has turns 1 to 3)",
        "rule": None,
        "field": "point",
    }


# -- serve: a busy port, a new store ---------------------------------------------------------------
def test_serve_on_a_busy_port_refuses_before_saying_it_serves(db, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = serve_once(db, "--port", str(port))
        fresh = serve_once(tmp_path / "new.db", "--port", str(port))
    assert busy.returncode == 2 and busy.stdout == ""
    assert busy.stderr == f"refused: port {port} on 127.0.0.1 is taken\n"
    assert fresh.returncode == 2 and not (tmp_path / "new.db").exists()  # a store only once it serves


def test_serve_on_an_address_it_cannot_resolve_is_refused(db):
    done = serve_once(db, "--host", "no-such-host.invalid")
    assert done.returncode == 2 and done.stderr.startswith("refused: --host no-such-host.invalid: ")


def test_serve_says_when_it_creates_the_store(tmp_path):
    """Clients create battles over the API, so `serve` may start on an empty store; it says so."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = tmp_path / "served.db"
    process = subprocess.Popen(
        [MORALE, "serve", "--db", str(path), "--port", str(port)], stdout=subprocess.PIPE, text=True
    )
    try:
        first_line = process.stdout.readline()  # type: ignore[union-attr]
    finally:
        process.terminate()
        process.wait(20)
    assert first_line.startswith(f"Serving a new store {path} on http://127.0.0.1:{port}/")
    assert contents(path)  # a store, with its tables


# -- the due list: whole rule IDs at any width, and a double 1 said as such ------------------------
def due_shown(db: Path, columns: int) -> str:
    """`morale due` in a terminal this wide (rich reads COLUMNS), as a shell runs it."""
    env = {**os.environ, "COLUMNS": str(columns)}
    done = subprocess.run([MORALE, "due", BATTLE, "--db", str(db)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def kraak_must_regroup(db) -> Path:
    """Kraak's Guardsmen, 2 of 10 left (under 25%), Fell Back and owe a Regroup test: only a double 1 passes."""
    next_phases(db, 5)  # the imperium's shooting phase, turn 1
    assert morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=8").exit_code == 0
    next_phases(db, 1)
    assert morale(db, "roll", BATTLE, "kraak", "morale", "6", "6").exit_code == 0
    assert morale(db, "roll", BATTLE, "kraak", "fall_back", "3", "3").exit_code == 0
    next_phases(db, 11)  # through the orks' turn to the imperium's Movement phase of turn 2
    return db


@pytest.mark.parametrize("columns", [80, 120])
def test_due_shows_whole_rule_ids_however_narrow_the_terminal(db, columns):
    next_phases(db, 5)
    morale(db, "append", BATTLE, "casualties_suffered", "unit=kraak", "count=3")
    next_phases(db, 1)
    shown = due_shown(db, columns)
    assert "[wh40k6.trigger.casualties]" in shown and "Sergeant Kraak's Guardsmen (kraak)" in shown
    assert "needs 8 or less" in shown and "72.2% (26/36)" in shown and "…" not in shown


@pytest.mark.parametrize("columns", [80, 120])
def test_a_test_only_a_double_1_passes_says_so(kraak_must_regroup, columns):
    shown = due_shown(kraak_must_regroup, columns)
    assert "regroup, 2D6, double 1 only, chance 2.8% (1/36)" in shown
    assert "[wh40k6.regroup.when]" in shown and "or less" not in shown


def test_due_json_keeps_its_fields_and_adds_what_the_dice_need(kraak_must_regroup):
    (due,) = json.loads(morale(kraak_must_regroup, "due", BATTLE, "--json").stdout)
    assert (due["test"], due["rule"], due["target"], due["needs"]) == (
        "regroup",
        "wh40k6.regroup.when",
        8,
        "double 1 only",
    )
    assert (due["odds"]["pass_ways"], due["odds"]["of"]) == (1, 36)


def test_due_shows_each_modifier_with_its_whole_rule_id():
    view = DueView(
        unit="nobz",
        name="Nobz [Mob]",
        test="morale",
        rule="wh40k6.trigger.combat_lost",
        caused_by=(61, 62),
        dice=2,
        target=5,
        decisions=("decline_regroup",),
        needs="5 or less",
        modifiers=(
            Modifier(rule="wh40k6.trigger.combat_lost", value=-2, reason="combat lost by 2"),
            Modifier(rule="wfb8.panic.modifiers", value=-1, reason="fear", ignored_by="wfb8.stubborn"),
        ),
    )
    console = Console(file=io.StringIO(), width=80, highlight=False, soft_wrap=True)
    print_due(console, [view])
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "Nobz [Mob] (nobz): morale, 2D6, needs 5 or less" in shown
    assert "why: [wh40k6.trigger.combat_lost], caused by #61, #62" in shown
    assert "-2 combat lost by 2  [wh40k6.trigger.combat_lost]" in shown
    assert "-1 fear (ignored: wfb8.stubborn)  [wfb8.panic.modifiers]" in shown
    assert "or decide: decline_regroup" in shown


# -- files that are not what they should be --------------------------------------------------------
NOT_UTF8 = b"\xff\xfe\x00 not text"


def test_a_roster_that_is_not_utf8_is_refused_and_creates_no_store(tmp_path):
    roster = tmp_path / "roster.toml"
    roster.write_bytes(NOT_UTF8)
    result = morale(tmp_path / "new.db", "new", str(roster))
    one_refusal(result, f"refused: {roster}: not UTF-8 text")
    assert not (tmp_path / "new.db").exists()


def test_an_events_file_that_is_not_utf8_is_refused_and_writes_nothing(db, tmp_path):
    events = tmp_path / "events.ndjson"
    events.write_bytes(NOT_UTF8)
    before = contents(db)
    one_refusal(morale(db, "append", BATTLE, "--file", str(events)), f"refused: {events}: not UTF-8 text")
    piped = runner.invoke(app, ["append", BATTLE, "--file", "-", "--db", str(db)], input=NOT_UTF8)
    one_refusal(piped, "refused: -: not UTF-8 text")
    assert contents(db) == before


@pytest.mark.parametrize("where", ["missing folder", "folder"])
def test_export_to_a_path_it_cannot_write_is_refused(played, tmp_path, where):
    out = tmp_path / "nowhere" / "battle.ndjson" if where == "missing folder" else tmp_path
    result = morale(played, "export", BATTLE, "--out", str(out))
    one_refusal(result, f"refused: --out {out}: ")


# -- names, reasons and rule IDs are printed as written, brackets and all ---------------------------
def test_the_board_shows_the_rule_id_of_each_restriction(played):
    shown = subprocess.run(
        [MORALE, "at", BATTLE, "22", "--db", str(played)],
        env={**os.environ, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "cannot declare a charge [wh40k6.fall_back.no_charge]" in shown


def test_a_name_or_reason_with_brackets_is_shown_as_written(tmp_path):
    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER.read_text().replace('name = "Nobz"', 'name = "Nobz [/mob]"', 1))
    path = tmp_path / "odd[names].db"
    assert "Battle hive-tarsis created with 8 units in " in morale(path, "new", str(roster)).stdout
    ruling = ["referee_ruled", "unit=nobz", "reason=[/ruling] the Nobz stay", "state=falling_back"]
    assert morale(path, "append", BATTLE, *ruling).exit_code == 0
    for args in (["board", BATTLE], ["log", BATTLE], ["diff", BATTLE, "9"], ["explain", BATTLE, "nobz"]):
        result = morale(path, *args)
        assert result.exit_code == 0, result.output
        assert "Nobz [/mob]" in result.stdout or "[/ruling]" in result.stdout, args


def test_a_refused_import_creates_no_store(tmp_path):
    exported = tmp_path / "battle.ndjson"
    exported.write_text('{"battle": "hive-tarsis", "seq": 1}\n')
    path = tmp_path / "new.db"
    result = morale(path, "import", str(exported))
    one_refusal(result, f"refused: {exported} line 1: ")
    assert not path.exists()


# -- a command line that cannot be parsed is bad input like any other ------------------------------
UNPARSABLE = [
    (["board"], "Missing argument 'battle'", "battle"),
    (["roll", BATTLE, "kraak", "morale", "3", "x"], "Invalid value for 'dice'", "dice"),
    (["replay", BATTLE, "--turn", "two"], "Invalid value for '--turn'", "turn"),
    (["board", BATTLE, "--colour", "red"], "No such option: --colour", None),
    (["boardd", BATTLE], "No such command 'boardd'. Did you mean 'board'?", None),
]


@pytest.mark.parametrize(("args", "words", "field"), UNPARSABLE, ids=[" ".join(a) for a, _, _ in UNPARSABLE])
def test_a_command_line_that_cannot_be_parsed_is_refused_in_one_line(played, args, words, field):
    before = contents(played)
    result = morale(played, *args)
    one_refusal(result, f"refused: {words}")
    assert "-h`)" in result.stderr  # where to read how
    error = json_refusal(morale(played, *args, "--json"))
    assert words in error["message"] and error["field"] == field
    assert contents(played) == before
