"""What a type checker sees of a clause: `clause` gives back a `Clause` (core/rules.py), so a rule's
`fn.id` and `fn.words` are known, and a call with the wrong arguments is still an error, in a
function or in a ruleset's method (`self.tank_shock(...)`). mypy checks a rules module written for
the test against the real `morale.core` (`make test` checks the package itself the same way)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOUND_S = 240  # a cold mypy run reads morale.core and what it imports

RULES = """
from morale.core.rules import clause
from morale.core.state import Battle, Unit


@clause("example.immune")
def immune(unit: Unit) -> bool:
    return unit.alive


class Example:
    @clause("example.regroup")
    def regroups(self, battle: Battle, seq: int) -> bool:
        return seq > 0

    def rule_of(self, battle: Battle) -> str:
        self.regroups(battle, "one")  # line 17: a seq is a number
        return self.regroups.id + self.regroups.words


rule_id: str = immune.id + immune.words
immune("a unit")  # line 22: a unit, not its name
"""


def test_a_clause_carries_its_id_and_words_and_its_calls_stay_checked(tmp_path):
    # The folders as the package they install as (the Makefile's typecheck does the same).
    (tmp_path / "morale").mkdir()
    for layer in ("core", "events"):
        (tmp_path / "morale" / layer).symlink_to(ROOT / layer)
    (tmp_path / "example_rules.py").write_text(RULES)
    # No config file (pyproject.toml's [tool.mypy] checks the package), and a cache of the test's own.
    flags = ["--strict", "--no-error-summary", "--config-file", "", "--cache-dir", str(tmp_path / ".cache")]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *flags, "example_rules.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    errors = re.findall(r"^example_rules\.py:(\d+): error: .*\[([a-z-]+)\]$", done.stdout, re.MULTILINE)
    assert errors == [("17", "arg-type"), ("22", "arg-type")], done.stdout + done.stderr
