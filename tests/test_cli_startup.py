"""`morale --version` alone answers before the commands are imported, in the same words: the engine's
version and each ruleset's."""

from __future__ import annotations

import subprocess
import sys

from support.cli import morale_command

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
