"""Games that are not morale's own, for the tests of how the engine finds games (tests/test_games.py).

`FIFTH` is a whole game in a package of its own, written out where a test says (a folder it puts on
the path, with the metadata of an installed distribution beside it), so a subprocess finds it as
it would a game installed with pip. `GDB_AGAIN` is a second instance of General de Brigade, the
same id and version as morale's own: two entry points giving it must be refused.
"""

from __future__ import annotations

from pathlib import Path

from morale.core.rulesets.base import Ruleset
from morale.core.rulesets.gdb.ruleset import Gdb

GDB_AGAIN = Gdb()


class Rulebookless(Ruleset):
    """A game written for the engine before rules were reactions: its class names no rulebook."""

    id = "rulebookless"
    version = "1"


RULEBOOKLESS = Rulebookless()

FIFTH_CODE = '''\
"""A fifth game, installed apart from morale."""

from morale.core.machine import StateGraph
from morale.core.outcomes import Settled
from morale.core.reactions import Rulebook
from morale.core.rules import DESTROYED as LAST
from morale.core.rulesets.base import Ruleset

RULES = Rulebook("fifth")


def failed(battle, settled):
    return not settled.result.passed


@RULES.clause("fifth.morale.run", reacts_to=Settled, test="morale", when=failed)
def run(battle, settled):
    """A unit that fails its test runs."""
    return [battle.ruleset.graph.move(battle.units[settled.unit], "run", settled.caused_by)]


class Fifth(Ruleset):
    id = "fifth"
    version = "1"
    title = "A fifth game"
    phases = ("movement", "morale")
    unit_types = {"infantry": None}
    tests = {"morale": "Morale test"}
    state_names = {"steady": "steady", "falling_back": "running", "destroyed": "destroyed"}
    graph = StateGraph(
        [
            {"trigger": "run", "source": "steady", "dest": "falling_back", "rule": run.id},
            {"trigger": "lose_last_model", "source": ["steady", "falling_back"], "dest": "destroyed", "rule": LAST},
        ]
    )
    rulebook = RULES


FIFTH = Fifth()
'''

FIFTH_CLAUSES = """\
ruleset = "fifth"
edition = "A fifth game"

[[clause]]
id = "fifth.morale.run"
kind = "seed"
title = "Running"
words = "A unit that fails its Morale test runs."
"""


FIFTH_ROSTER = """\
[battle]
id = "first-clash"
ruleset = "fifth"
sides = ["red", "blue"]

[[unit]]
id = "spears"
side = "red"
name = "Spearmen"
type = "infantry"
models = 10
ld = 7

[[unit]]
id = "bows"
side = "blue"
name = "Bowmen"
type = "infantry"
models = 8
ld = 6
"""

FIFTH_BATTLE = """\
{"type": "phase_started", "turn": 1, "side": "red", "phase": "movement"}
{"type": "casualties_suffered", "unit": "bows", "count": 2}
{"type": "phase_ended", "turn": 1, "side": "red", "phase": "movement"}
{"type": "phase_started", "turn": 1, "side": "red", "phase": "morale"}
{"type": "casualties_suffered", "unit": "spears", "count": 1}
{"type": "phase_ended", "turn": 1, "side": "red", "phase": "morale"}
"""

# The fifth game's own tests, as its package would keep them: one names its clause, one runs the kit.
FIFTH_TESTS = {
    "tests/test_run.py": "def test_fifth_morale_run_is_the_clause_a_failed_test_cites():\n    pass\n",
    "tests/test_conformance.py": (
        "from pathlib import Path\n\n"
        "from morale.testing import conformance\n\n"
        'test_conformance = conformance("fifth", examples=[Path(__file__).parent / "example"])\n'
    ),
    "tests/example/roster.toml": FIFTH_ROSTER,
    "tests/example/battle.ndjson": FIFTH_BATTLE,
}


def installed(folder: Path, distribution: str, entry_points: str, package: dict[str, str] | None = None) -> Path:
    """Write a distribution into `folder` as pip would install it: its metadata, its
    `morale.rulesets` entry points (lines `name = module:attribute`), and its package's files."""
    info = folder / f"{distribution.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[morale.rulesets]\n{entry_points}\n")
    for path, text in (package or {}).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    return folder


def fifth_game(folder: Path) -> Path:
    return installed(
        folder,
        "fifth-game",
        "fifth = fifth_game:FIFTH",
        {"fifth_game/__init__.py": FIFTH_CODE, "fifth_game/clauses.toml": FIFTH_CLAUSES},
    )
