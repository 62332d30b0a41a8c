"""The battle notation: each shipped example exported and imported back gives the same events,
`--verify-against` compares event by event, and bad notation is refused naming its line and column,
with nothing written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.cli import morale, runner
from support.examples import ROOT, example_store

from morale.app.cli import app
from morale.app.notation.reader import read
from morale.app.notation.syntax import grammar
from morale.events.store import SqliteEventStore
from morale.events.types import DiceRolled
from morale.projections.verify import verify

EXAMPLES = ["wh40k6", "wh40k3", "wfb8", "gdb"]
PAGE = (ROOT / "docs" / "notation.md").read_text(encoding="utf-8")  # the notation's specification


@pytest.fixture(params=EXAMPLES)
def played(request, tmp_path) -> tuple[str, Path, str]:
    """(example, store file, battle) of one shipped example, played through `record`."""
    path = tmp_path / f"{request.param}.db"
    store = example_store(path, example=ROOT / "examples" / request.param)
    battle = store.battles()[0]
    store.close()
    return request.param, path, battle


def events_of(path: Path, battle: str) -> list:
    store = SqliteEventStore(path, create=False)
    try:
        return [stored.event for stored in store.read(battle)]
    finally:
        store.close()


SIGNATURE_TAGS = ("[PublicKey ", "[SignedHead ")


def test_export_then_import_gives_the_same_events_and_a_log_that_verifies(played, tmp_path):
    _, db, battle = played
    exported = morale(db, "notation", "export", battle, "-o", str(tmp_path / "battle.txt"))
    assert exported.exit_code == 0
    copy = tmp_path / "copy.db"
    imported = morale(copy, "notation", "import", str(tmp_path / "battle.txt"), "--json")
    assert imported.exit_code == 0, imported.output
    assert json.loads(imported.stdout)["battle"] == battle
    assert events_of(copy, battle) == events_of(db, battle)  # phase-end digests included
    store = SqliteEventStore(copy, create=False)
    assert verify(battle, store.raw_rows(battle)).ok


def test_the_shipped_notation_of_each_example_is_its_export(played):
    example, db, battle = played
    exported = morale(db, "notation", "export", battle)
    # Less the store's signed head and key (tests/test_signed.py), which are this store's own.
    unsigned = [line for line in exported.stdout.splitlines(keepends=True) if not line.startswith(SIGNATURE_TAGS)]
    assert "".join(unsigned) == (ROOT / "examples" / example / "battle.notation").read_text(encoding="utf-8")


def test_verify_against_the_store_the_notation_came_from_finds_every_event_the_same(played):
    example, db, battle = played
    notation = ROOT / "examples" / example / "battle.notation"
    same = morale(db, "notation", "import", str(notation), "--verify-against", str(db))
    assert same.exit_code == 0 and f"the same {len(events_of(db, battle))} events" in same.stdout


def test_verify_against_names_the_first_event_that_differs_and_its_line(tmp_path):
    db = tmp_path / "played.db"
    example_store(db).close()
    text = (ROOT / "examples" / "wh40k6" / "battle.notation").read_text(encoding="utf-8")
    changed = text.replace("grots loses 3 to shooting", "grots loses 3 to flamers", 1)
    line = changed.splitlines().index("grots loses 3 to flamers") + 1
    (tmp_path / "changed.txt").write_text(changed)
    differs = morale(
        tmp_path / "unused.db", "notation", "import", str(tmp_path / "changed.txt"), "--verify-against", str(db)
    )
    assert differs.exit_code == 1
    assert f"differs from {db} at event 16 (line {line})" in differs.stdout
    assert '"cause":"flamers"' in differs.stdout and '"cause":"shooting"' in differs.stdout
    assert not (tmp_path / "unused.db").exists()


@pytest.mark.parametrize(
    ("find", "replace", "where", "says"),
    [
        (
            "nobz rolls morale 5 4",
            "nobz rolls morale 5 x",
            "column 21",
            "unexpected 'x' (expected `(engine)`, a number",
        ),
        ("nobz rolls morale 5 4", "nobz rolls morale 5 7", "column 21", "dice[1]: a die shows 1 to 6, not 7"),
        ("nobz loses 2 to shooting", "nobz loses two", "column 12", "unexpected 'two'"),
        ('[Dice "table"]', '[Dice "sometimes"]', "column 1", "dice_policy"),
        ('[Ruleset "wh40k6"]', '[Ruleset "chess"]', "column 1", "ruleset: "),
        ('[Sides "imperium" "orks"]', '[Flags "imperium"]', "column 1", "unknown tag [Flags]"),
        ("nobz rolls morale 5 4", "nobz rolls morale 5 4 4", "column 1", "takes 2 dice, not 3"),
        ("nobz loses 2 to shooting", "nobz loses 6 to shooting", "column 1", "nobz has only 5 models left, not 6"),
    ],
)
def test_bad_notation_is_refused_naming_line_and_column_and_nothing_is_written(tmp_path, find, replace, where, says):
    text = (ROOT / "examples" / "wh40k6" / "battle.notation").read_text(encoding="utf-8")
    assert find in text
    bad = text.replace(find, replace, 1)
    line = next(n for n, row in enumerate(bad.splitlines(), start=1) if replace in row)
    (tmp_path / "bad.txt").write_text(bad)
    db = tmp_path / "never.db"
    refused = morale(db, "notation", "import", str(tmp_path / "bad.txt"))
    assert refused.exit_code == 2
    (printed,) = refused.stderr.strip().splitlines()
    assert printed.startswith("refused: ") and f"bad.txt line {line}, {where}" in printed and says in printed
    assert not db.exists()


@pytest.mark.parametrize(
    "given",
    [
        ["--battle", "../../etc/passwd"],
        ["--battle", "x'; DROP TABLE events;--"],
        ["--battle", "a/b"],
        ["--battle", "a" * 65],
        ["--battle", ""],
        [],  # the [Battle] tag itself, made a path below
    ],
)
def test_an_imported_battles_id_is_held_to_the_limits_of_every_way_in(tmp_path, given):
    text = (ROOT / "examples" / "wh40k6" / "battle.notation").read_text(encoding="utf-8")
    if not given:
        text = text.replace('[Battle "hive-tarsis"]', '[Battle "p/q"]', 1)
    (tmp_path / "b.notation").write_text(text)
    db = tmp_path / "never.db"
    refused = morale(db, "notation", "import", str(tmp_path / "b.notation"), *given)
    assert refused.exit_code == 2
    (printed,) = refused.stderr.strip().splitlines()
    assert printed.startswith("refused: battle: a battle's id")
    assert not db.exists() or SqliteEventStore(db).battles() == []


def test_an_import_into_a_store_that_has_the_battle_is_refused_and_leaves_it_as_it_was(tmp_path):
    db = tmp_path / "played.db"
    example_store(db).close()
    before = events_of(db, "hive-tarsis")
    refused = morale(db, "notation", "import", str(ROOT / "examples" / "wh40k6" / "battle.notation"))
    assert refused.exit_code == 2 and "already exists" in refused.stderr
    assert events_of(db, "hive-tarsis") == before


def test_a_roster_may_be_referenced_and_the_battle_read_from_stdin(tmp_path):
    text = (ROOT / "examples" / "wh40k6" / "battle.notation").read_text(encoding="utf-8")
    body = text[text.index("== Turn 1 ==") :]
    notation = f'[Roster "examples/wh40k6/roster.toml"]\n[Battle "rematch"]\n{body}'
    db = tmp_path / "from-stdin.db"
    done = morale(db, "notation", "import", "-", input=notation)
    assert done.exit_code == 0, done.output
    reference = tmp_path / "reference.db"
    example_store(reference).close()
    assert events_of(db, "rematch") == events_of(reference, "hive-tarsis")


def test_a_battle_written_by_hand_with_comments_and_loose_spacing_reads(tmp_path):
    notation = """; typed up after the game
[Battle "skirmish"]   ; the id
[Ruleset wh40k6]
[Sides imperium orks]
[Dice table]

unit kraak imperium infantry 10 "Sergeant Kraak's Guardsmen" ld 8 initiative 3
unit boyz orks infantry 20 "Ork Boyz" ld 7 initiative 2

== Turn 1 ==
-- imperium movement --
kraak   loses 3   to   dangerous_terrain   ; a bad roll
end
kraak rolls morale 5 6
"""
    db = tmp_path / "typed.db"
    done = morale(db, "notation", "import", "-", input=notation)
    assert done.exit_code == 0, done.output
    board = json.loads(morale(db, "board", "skirmish", "--json").stdout)
    kraak = next(row for row in board["units"] if row["unit"] == "kraak")
    assert kraak["state"] == "falling_back" and kraak["models"] == 7


def test_the_notation_page_quotes_the_grammar_file_whole():
    quoted = re.search(r"```lark\n(.*?)```", PAGE, re.S)
    assert quoted is not None and quoted.group(1) == grammar()
    assert runner.invoke(app, ["notation", "grammar"]).stdout == grammar()


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_notation_page_shows_each_examples_notation_whole(example):
    shown = re.search(rf"### `examples/{example}/battle.notation`\n\n```text\n(.*?)```", PAGE, re.S)
    assert shown is not None
    assert shown.group(1) == (ROOT / "examples" / example / "battle.notation").read_text(encoding="utf-8")


def test_verify_against_a_store_that_is_not_there_or_lacks_the_battle_is_refused_naming_it(tmp_path):
    notation = str(ROOT / "examples" / "wh40k6" / "battle.notation")
    missing = morale(
        tmp_path / "unused.db", "notation", "import", notation, "--verify-against", str(tmp_path / "no.db")
    )
    assert missing.exit_code == 2 and missing.stderr.startswith("refused: --verify-against: ")
    other = tmp_path / "other.db"
    example_store(other, example=ROOT / "examples" / "gdb").close()
    lacking = morale(tmp_path / "unused.db", "notation", "import", notation, "--verify-against", str(other))
    assert lacking.exit_code == 2 and "no battle 'hive-tarsis'" in lacking.stderr
    assert not (tmp_path / "no.db").exists() and not (tmp_path / "unused.db").exists()


def test_a_battle_typed_for_engine_dice_gets_a_secret_and_the_engine_rolls_for_it(tmp_path):
    notation = """[Battle "typed"]
[Ruleset wh40k6]
[Sides imperium orks]
[Dice engine]
unit kraak imperium infantry 10 "Guardsmen" ld 8 initiative 3
unit boyz orks infantry 20 "Ork Boyz" ld 7 initiative 2
== Turn 1 ==
-- imperium movement --
kraak loses 3 to dangerous_terrain
end
"""
    db = tmp_path / "typed.db"
    assert morale(db, "notation", "import", "-", input=notation).exit_code == 0
    rolled = morale(db, "roll", "typed", "kraak", "morale", "--json")
    assert rolled.exit_code == 0, rolled.output
    assert json.loads(rolled.stdout)[0]["stored"]["event"]["source"] == "engine"
    assert morale(db, "reveal", "typed").exit_code == 0
    exported = morale(db, "notation", "export", "typed").stdout
    assert "[Commitment " in exported and "(engine)" in exported and "reveal " in exported
    again = morale(tmp_path / "again.db", "notation", "import", "-", input=exported)
    assert again.exit_code == 0, again.output  # the revealed secret checks every engine roll on the way in
    line = next(row for row in exported.splitlines() if row.endswith("(engine)"))
    dice = line.split(" morale ")[1].removesuffix(" (engine)").split()
    other = " ".join(str(7 - int(d)) for d in dice)
    forged = exported.replace(line, line.replace(" ".join(dice), other))
    refused = morale(tmp_path / "forged.db", "notation", "import", "-", input=forged)
    assert refused.exit_code == 2 and "but the dice secret gives" in refused.stderr
    assert not (tmp_path / "forged.db").exists()


def authored(tmp_path: Path, monkeypatch) -> Path:
    """The 40K 6th example entered as at a table: created by the referee at the command line, the
    turn loaded from a file, then a loss typed in."""
    monkeypatch.setenv("LOGNAME", "anna")
    db = tmp_path / "authored.db"
    assert morale(db, "new", str(ROOT / "examples" / "wh40k6" / "roster.toml")).exit_code == 0
    turn = tmp_path / "turn.ndjson"
    turn.write_text("".join((ROOT / "examples" / "wh40k6" / "battle.ndjson").read_text().splitlines(True)[:8]))
    assert morale(db, "append", "hive-tarsis", "--file", str(turn)).exit_code == 0
    assert morale(db, "append", "hive-tarsis", "casualties_suffered", "unit=boyz", "count=1").exit_code == 0
    return db


def test_the_notation_says_who_entered_the_events_and_reads_them_back(tmp_path, monkeypatch):
    db = authored(tmp_path, monkeypatch)
    text = morale(db, "notation", "export", "hive-tarsis").stdout
    lines = text.splitlines()
    assert lines[0] == 'by referee via cli "anna"'
    assert lines[lines.index("== Turn 1 ==") + 1] == 'by referee via import "anna"'
    assert lines[-3:] == ["lootas loses 2 to shooting", 'by referee via cli "anna"', "boyz loses 1"]
    store = SqliteEventStore(db, create=False)
    assert [located.author for located in read(text).events] == [stored.author for stored in store.read("hive-tarsis")]


def test_a_notation_importer_seals_the_events_as_their_own_via_notation(tmp_path, monkeypatch):
    db = authored(tmp_path, monkeypatch)
    assert morale(db, "notation", "export", "hive-tarsis", "-o", str(tmp_path / "battle.txt")).exit_code == 0
    monkeypatch.setenv("LOGNAME", "boris")
    copy = tmp_path / "copy.db"
    assert morale(copy, "notation", "import", str(tmp_path / "battle.txt")).exit_code == 0
    rows = json.loads(morale(copy, "log", "hive-tarsis", "--json").stdout)
    assert {row["by"] for row in rows} == {"referee (notation, boris)"}


def test_the_notation_of_a_log_without_authors_has_no_by_line(played):
    _, db, battle = played
    assert not [line for line in morale(db, "notation", "export", battle).stdout.splitlines() if line.startswith("by ")]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("by orks via console", "write who entered the events as `by referee via cli`"),
        ("by referee", "write who entered the events as `by referee via cli`"),
        ("by orks player via phone", "column 20: via: one of cli, console, http, import, notation, not 'phone'"),
        ('by referee via cli "an\\u0007na"', "label: a name of at most"),
    ],
)
def test_a_by_line_that_names_no_author_is_refused_naming_line_and_column(tmp_path, line, says):
    text = (ROOT / "examples" / "wh40k6" / "battle.notation").read_text(encoding="utf-8")
    bad = text.replace("-- imperium shooting --", f"{line}\n-- imperium shooting --", 1)
    number = bad.splitlines().index(line) + 1
    (tmp_path / "bad.txt").write_text(bad)
    db = tmp_path / "never.db"
    refused = morale(db, "notation", "import", str(tmp_path / "bad.txt"))
    assert refused.exit_code == 2
    (printed,) = refused.stderr.strip().splitlines()
    assert f"bad.txt line {number}, " in printed and says in printed, printed
    assert not db.exists()


def test_a_struck_entry_is_found_by_the_line_its_retraction_names(tmp_path):
    """The notation numbers no line: a `retract N` line says which line #N is, and that line says #N."""
    db = tmp_path / "battles.db"
    example_store(db).close()
    last_roll = max(s.seq for s in SqliteEventStore(db).read("hive-tarsis") if isinstance(s.event, DiceRolled))
    assert morale(db, "strike", "hive-tarsis", str(last_roll), "--reason", "wrong dice", "-y").exit_code == 0

    lines = morale(db, "notation", "export", "hive-tarsis").stdout.splitlines()

    retract = next(line for line in lines if line.startswith(f'retract {last_roll} "wrong dice"'))
    cited = re.search(rf"; #{last_roll} is line (\d+): (.+)$", retract)
    assert cited, retract
    struck = lines[int(cited.group(1)) - 1]
    assert struck == f"{cited.group(2)}  ; #{last_roll}" and " rolls " in struck
    written = tmp_path / "battle.txt"
    written.write_text("\n".join(lines) + "\n", encoding="utf-8")
    copy = tmp_path / "copy.db"
    assert morale(copy, "notation", "import", str(written)).exit_code == 0  # the comments change nothing
    assert events_of(copy, "hive-tarsis") == events_of(db, "hive-tarsis")
