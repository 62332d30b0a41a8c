"""`morale --version` alone answers before the commands are imported, in the same words: the engine's
version and each ruleset's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import morale, morale_command

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "wh40k6"

# The version line as `main` prints it, and what a fresh process had imported by then.
SCRIPT = """
import sys
sys.argv = ["morale", "--version"]
from morale.app.cli import main
main()
heavy = ("typer", "rich", "sqlite_utils", "morale.projections", "morale.app.http", "morale.app.cli.battle",
         "morale.core.rulesets.base", "morale.core.engine", "morale.core.rulesets.wh40k.sixth")
print(sorted(m for m in sys.modules if m.split(".")[0] in heavy or m.startswith(heavy)))
"""


def test_version_alone_imports_no_command_and_prints_what_the_option_prints():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    *lines, imported = done.stdout.splitlines()
    assert imported == "[]"  # each game's About (morale.rulesets.about), and nothing heavier: no game, no registry
    assert "\n".join(lines) == morale_command("--version").output.strip()
    assert lines[0].startswith("morale ") and "ruleset wh40k6 version 1: Warhammer 40,000 6th edition" in lines


def test_a_store_opened_imports_no_sqlite_utils():
    # With numpy installed, sqlite-utils imports it: a fifth of a second of every command that opens a store.
    script = (
        "import sys; from morale.events.store import SqliteEventStore; SqliteEventStore(sys.argv[1]).last_seq('x'); "
        "print('sqlite_utils' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script, ":memory:"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# What a read of a battle (`board`, `due`, `explain`) imported, in a fresh process: none of these.
READ_SCRIPT = """
import sys
sys.argv = ["morale", *sys.argv[1:]]
from morale.app.cli import main
try:
    main()
except SystemExit:
    pass
unwanted = ("cryptography", "morale.app.http", "morale.app.webhooks.hooks", "morale.app.cli.render_audit",
            "morale.projections.verify", "morale.projections.whatif")
print(sorted(m for m in sys.modules if m.startswith(unwanted)), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "words", [["board", "hive-tarsis", "--json"], ["due", "hive-tarsis"], ["explain", "hive-tarsis", "nobz"]]
)
def test_a_read_imports_no_signing_library_nor_the_server_nor_the_audits_other_reports(tmp_path, words):
    # A read signs nothing and verifies nothing; cryptography alone took 20-50 ms of every read.
    db = tmp_path / "battle.db"
    assert morale(db, "new", str(EXAMPLES / "roster.toml")).exit_code == 0
    assert morale(db, "append", "hive-tarsis", "--file", str(EXAMPLES / "battle.ndjson")).exit_code == 0
    assert (tmp_path / "battle.db.key").exists()  # the store signs: the read still imports no key's library
    done = subprocess.run(
        [sys.executable, "-c", READ_SCRIPT, *words, "--db", str(db)], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip()  # it printed its read
    assert done.stderr.strip().splitlines()[-1] == "[]"
