"""The shape the rules code keeps, read from its source with `ast`: a ruleset never changes a battle
itself (it decides outcomes, and `core/apply.py` carries them out), and each rule ID is written
once in the code, in the declaration of the clause that carries it out."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from support.own_games import own_clauses

from morale.testing.shape import changes_of_state

ROOT = Path(__file__).resolve().parents[1]
RULESETS = sorted((ROOT / "core" / "rulesets").rglob("*.py"))
CODE = [path for layer in ("core", "events", "projections", "app") for path in sorted((ROOT / layer).rglob("*.py"))]


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: str(p.relative_to(ROOT / "core" / "rulesets")))
def test_a_ruleset_changes_the_battle_only_through_the_outcomes_it_decides(path):
    assert changes_of_state(path, ROOT) == []


SNEAKY = {
    "unit.restrictions.append(seq)": "unit.restrictions.append(seq)",
    "battle.due[0] = None": "battle.due[0] changed",
    "unit_memory(unit).charged_turn = 3": "unit_memory(unit).charged_turn changed",
    "u = battle.units['x']; u.models = 0": "u.models changed",
    "memo = unit_memory(unit); memo.charged_turn = 3": "memo.charged_turn changed",
    "for u in battle.living.values(): u.state = 'broken'": "u.state changed",
    "setattr(unit, 'state', 'broken')": "setattr(unit, 'state', 'broken')",
    "battle.due.sort()": "battle.due.sort()",
    "unit.phase_marks.difference_update({'x'})": "unit.phase_marks.difference_update({'x'})",
    "self.graph.fire(unit, 'rout', 'broken')": "self.graph.fire(unit, 'rout', 'broken')",
    "maybe.state = 'broken'": "maybe.state changed",
    "for u in hit: u.models -= 1": "u.models changed",
}


@pytest.mark.parametrize(("line", "seen"), SNEAKY.items(), ids=list(SNEAKY))
def test_the_check_sees_a_ruleset_that_changes_the_battle(tmp_path, line, seen):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text(
        "def on_fact(self, battle: Battle, unit: Unit, maybe: Unit | None, hit: list[Unit], seq: int):\n"
        "    found = [seq]\n"
        "    found.append(seq)  # a local list: no change of state\n"
        f"    {line}\n"
    )
    assert [found.split(": ", 1)[1] for found in changes_of_state(sneaky)] == [seen]


@functools.cache
def literal_counts() -> dict[str, int]:
    text = "".join(path.read_text(encoding="utf-8") for path in CODE)
    return {rule_id: len(re.findall(rf"""["']{re.escape(rule_id)}["']""", text)) for rule_id in own_clauses()}


# morale's own clauses: an installed game's IDs are written in its own package (its tests say so).
@pytest.mark.parametrize("rule_id", list(own_clauses()))
def test_each_rule_id_is_written_once_in_the_code_where_its_clause_is_declared(rule_id):
    assert literal_counts()[rule_id] == 1
