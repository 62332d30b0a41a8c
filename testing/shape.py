"""What the rules code may not do, read from its source with `ast`: change a battle itself. A
ruleset decides outcomes and `core/apply.py` carries them out (ARCHITECTURE.md), so a unit's state
never differs between two lines of a rule. morale's suite runs this on its own games
(tests/test_rules_shape.py) and the conformance kit on any game's package (`kit.py`)."""

from __future__ import annotations

import ast
from pathlib import Path

# What a battle is made of, as the rules code names it: a parameter whose annotation names Battle or
# Unit (`Unit | None`, `list[Unit]`...), the ruleset memory read through `unit_memory(...)` /
# `battle_memory(...)`, and any local name bound to a part of those (`unit = battle.units[x]`,
# `for unit in battle.living.values()`, `memo = unit_memory(unit)`).
STATE_TYPES = {"Battle", "Unit", "BattleView", "UnitView"}  # the views a reaction reads too
MEMORY_READERS = {"unit_memory", "battle_memory"}
MUTATORS = {
    *("append", "extend", "insert", "remove", "pop", "popitem", "clear", "sort", "reverse"),
    *("add", "discard", "update", "setdefault", "difference_update", "intersection_update"),
    "symmetric_difference_update",
}
# Calls that change a battle whatever they are handed: the graph's own moves and `apply`'s machinery.
BYPASSES = {"fire", "force", "set_state", "carry_out", "apply", "own", "track", "setattr", "delattr"}


def _names_a_state_type(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        annotation = ast.parse(annotation.value, mode="eval").body
    return any(
        (isinstance(node, ast.Name) and node.id in STATE_TYPES)
        or (isinstance(node, ast.Attribute) and node.attr in STATE_TYPES)
        for node in ast.walk(annotation)
    )


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("values", "items"):
        return _root(node.func.value)  # iterating a dict of units yields units
    return node


def _reads_state(node: ast.expr, names: set[str]) -> bool:
    """The battle, a unit or a ruleset memory, or a part of one (not a value computed from them)."""
    root = _root(node)
    if isinstance(root, ast.Name):
        return root.id in names
    return isinstance(root, ast.Call) and isinstance(root.func, ast.Name) and root.func.id in MEMORY_READERS


def _is_state(node: ast.expr, names: set[str]) -> bool:
    """An attribute or item of the battle, a unit or a ruleset memory: what an assignment would change."""
    return isinstance(node, ast.Attribute | ast.Subscript) and _reads_state(node, names)


def _targets(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, ast.Tuple | ast.List):
        return [t for element in target.elts for t in _targets(element)]
    return [target]


def _state_names(function: ast.FunctionDef) -> set[str]:
    """The parameters typed as the battle or a unit, and every local bound to a part of them."""
    args = function.args
    names = {p.arg for p in [*args.posonlyargs, *args.args, *args.kwonlyargs] if _names_a_state_type(p.annotation)}
    while True:
        bound = set(names)
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and _reads_state(node.value, names):
                bound |= {t.id for target in node.targets for t in _targets(target) if isinstance(t, ast.Name)}
            elif isinstance(node, ast.For | ast.comprehension) and _reads_state(node.iter, names):
                bound |= {t.id for t in _targets(node.target) if isinstance(t, ast.Name)}
            elif isinstance(node, ast.NamedExpr) and _reads_state(node.value, names):
                bound.add(node.target.id)
        if bound == names:
            return names
        names = bound


def changes_of_state(path: Path, root: Path | None = None) -> list[str]:
    """Every place in the file at `path` where a function changes the battle, a unit or a ruleset
    memory it was handed or reached (`file:line: what`); `root`: what the file is named relative to."""
    found = []
    where = path.relative_to(root) if root is not None and path.is_relative_to(root) else path.name
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
            elif isinstance(node, ast.Call):
                called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                mutates = (
                    called in MUTATORS and isinstance(node.func, ast.Attribute) and _reads_state(node.func.value, names)
                )
                if mutates or called in BYPASSES:
                    found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
            changed = [t for target in targets for t in _targets(target) if _is_state(t, names)]
            found += [f"{where}:{node.lineno}: {ast.unparse(t)} changed" for t in changed]
    return found
