"""The shape the rules code keeps, read from its source with `ast`: a ruleset never changes a battle
itself (it decides outcomes, and `core/apply.py` carries them out), and each rule ID is written
once in the code, in the declaration of the clause that carries it out."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from morale.core import catalogue

ROOT = Path(__file__).resolve().parents[1]
RULESETS = sorted((ROOT / "core" / "rulesets").rglob("*.py"))
CODE = [path for layer in ("core", "events", "projections", "app") for path in sorted((ROOT / layer).rglob("*.py"))]

# What a battle is made of, as the rules code names it: a parameter annotated Battle or Unit, and
# the ruleset memory it reads through `book(...)` / `battle_book(...)`.
STATE_TYPES = {"Battle", "Unit"}
MEMORY_READERS = {"book", "battle_book"}
MUTATORS = {"append", "extend", "insert", "remove", "pop", "clear", "add", "discard", "update", "setdefault"}


def _state_names(function: ast.FunctionDef) -> set[str]:
    params = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
    return {
        p.arg
        for p in params
        if p.annotation is not None and ast.unparse(p.annotation).split(".")[-1].strip("'\"") in STATE_TYPES
    }


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node


def _is_state(node: ast.expr, names: set[str]) -> bool:
    """An attribute or item of the battle, a unit or a ruleset memory (not a local value)."""
    if not isinstance(node, ast.Attribute | ast.Subscript):
        return False
    root = _root(node)
    if isinstance(root, ast.Name):
        return root.id in names
    return isinstance(root, ast.Call) and isinstance(root.func, ast.Name) and root.func.id in MEMORY_READERS


def changes_of_state(path: Path) -> list[str]:
    found = []
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        names = _state_names(function)  # type: ignore[arg-type]
        for node in ast.walk(function):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATORS
                and _is_state(node.func.value, names)
            ):
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
            flat = [t for target in targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
            changed = [t for t in flat if _is_state(t, names)]
            found += [f"{where}:{node.lineno}: {ast.unparse(t)} changed" for t in changed]
    return found


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: str(p.relative_to(ROOT / "core" / "rulesets")))
def test_a_ruleset_changes_the_battle_only_through_the_outcomes_it_decides(path):
    assert changes_of_state(path) == []


def test_the_check_sees_a_ruleset_that_changes_the_battle(tmp_path):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text(
        "def on_fact(self, battle: Battle, unit: Unit, seq: int):\n"
        "    unit.restrictions.append(seq)\n"
        "    battle.due[0] = None\n"
        "    book(unit).charged_turn = 3\n"
        "    found = [seq]\n"
        "    found.append(seq)\n"
    )
    assert sorted(line.split(": ", 1)[1] for line in changes_of_state(sneaky)) == [
        "battle.due[0] changed",
        "book(unit).charged_turn changed",
        "unit.restrictions.append(seq)",
    ]


@functools.cache
def literal_counts() -> dict[str, int]:
    text = "".join(path.read_text(encoding="utf-8") for path in CODE)
    return {rule_id: len(re.findall(rf"""["']{re.escape(rule_id)}["']""", text)) for rule_id in catalogue.catalogue()}


@pytest.mark.parametrize("rule_id", list(catalogue.catalogue()))
def test_each_rule_id_is_written_once_in_the_code_where_its_clause_is_declared(rule_id):
    assert literal_counts()[rule_id] == 1
