"""The layers import only downwards (events, core, projections, app, then testing: the conformance
kit), morale.core's modules import one another without a cycle, and the projections never write to
the store.

Read from the source with `ast`: every import statement counts, those inside functions included (a
lazy import ties modules together as much as one at the top). An import under `if TYPE_CHECKING:`
never runs: it counts for the layers, not for cycles. Python imports a module's parent packages
before it, but a package's own imports are its own edges: `from .rulesets import lookup` is an edge
to the package `morale.core.rulesets`, and `from . import fold` one to the module `morale.core.fold`.
"""

from __future__ import annotations

import ast
import pickle
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from morale.core.rulesets import rulesets
from morale.events.store import EventStore

ROOT = Path(__file__).resolve().parents[1]
# Lowest first: a layer may import from the layers before it, never from those after it.
LAYERS = ("events", "core", "projections", "app", "testing")


class Import(NamedTuple):
    target: str  # the module (or package) imported
    line: int
    type_only: bool  # under `if TYPE_CHECKING:`


def module_files() -> dict[str, Path]:
    """Every module of the four layers by its dotted name (a package by its own name)."""
    found = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            parts = path.relative_to(ROOT / layer).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(("morale", layer, *parts))] = path
    return found


MODULES = module_files()


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST, package: str, type_only: bool) -> list[Import]:
    found: list[Import] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import):
            found += [Import(alias.name, child.lineno, type_only) for alias in child.names]
        elif isinstance(child, ast.ImportFrom):
            if child.level:
                base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                source = ".".join([*base, *([child.module] if child.module else [])])
            else:
                source = child.module or ""
            for alias in child.names:
                submodule = f"{source}.{alias.name}"
                found.append(Import(submodule if submodule in MODULES else source, child.lineno, type_only))
        elif isinstance(child, ast.If) and _type_checking(child.test):
            for statement in child.body:
                found += _imports(ast.Module(body=[statement], type_ignores=[]), package, True)
            for statement in child.orelse:
                found += _imports(ast.Module(body=[statement], type_ignores=[]), package, type_only)
        else:
            found += _imports(child, package, type_only)
    return found


def imports_of(module: str) -> list[Import]:
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return _imports(ast.parse(path.read_text(encoding="utf-8")), package, False)


IMPORTS = {module: imports_of(module) for module in MODULES}


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "morale" and len(parts) > 1 and parts[1] in LAYERS else None


def test_the_walk_sees_every_kind_of_import():
    """The reading itself: a relative import of a module, of a name from a package, a lazy one inside
    a function and a type-only one are each seen, resolved to the module they name."""
    evolve = {i.target for i in IMPORTS["morale.core.evolve"]}
    assert {"morale.core.order", "morale.core.rules", "morale.core.rulesets", "morale.events.types"} <= evolve
    snapshots = IMPORTS["morale.projections.snapshots"]
    assert any(i.target == "morale.core" for i in snapshots)  # `import morale.core`, inside engine_version()
    state = IMPORTS["morale.core.state"]
    assert any(i.target == "morale.core.rulesets.base" and i.type_only for i in state)  # Battle.ruleset's type


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_imports_only_the_layers_below_it(layer):
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    upward = [
        f"{module}:{found.line} imports {found.target}"
        for module, found_imports in IMPORTS.items()
        if layer_of(module) == layer
        for found in found_imports
        if layer_of(found.target) not in (None, *allowed)
    ]
    assert upward == []


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components of a directed graph."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def core_graph() -> dict[str, set[str]]:
    """morale.core's modules and which of them each imports when it runs."""
    core = [m for m in MODULES if layer_of(m) == "core"]
    return {m: {i.target for i in IMPORTS[m] if not i.type_only and i.target in core and i.target != m} for m in core}


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert sorted(map(sorted, strongly_connected(graph))) == [["a", "b", "c"], ["d"]]


def test_no_import_cycle_among_the_cores_modules():
    cycles = [sorted(c) for c in strongly_connected(core_graph()) if len(c) > 1]
    assert cycles == []


# -- projections only read ---------------------------------------------------------------------------
# Every method of the EventStore protocol, as one that writes or one that does not: a method added to
# the protocol fails the test below until it is named in one or the other.
STORE_WRITES = frozenset(
    {"append", "append_sealed", "save_snapshot", "drop_snapshots", "save_snapshot_units"}
    | {"replace_tokens", "change_tokens", "touch_token", "change_origins"}
    | {"signing_key"}  # a SQLite store makes its key file when it has none
    | {"add_hook", "drop_hook", "update_hook", "record_attempt", "take_lease", "release_lease"}
)
STORE_READS = frozenset(
    {"read", "events", "events_of_type", "raw_rows", "hash_at", "last_seq", "battles", "snapshot_before"}
    | {"snapshot_units"}
    | {"dice_secret", "token_grant", "tokens", "token_battles", "allowed_origins"}
    | {"signed_heads", "public_keys"}
    | {"hooks", "attempts"}
    | {"close"}  # close lets go of the store, and writes nothing
)
LIST_METHODS = frozenset(name for name in dir(list) if not name.startswith("_"))  # `append`: rows.append(...)
STORE_TYPES = {"EventStore", "SqliteEventStore", "PostgresEventStore"}
STORE_OPENERS = {"SqliteEventStore", "PostgresEventStore", "open_store"}


def _name_of(node: ast.AST) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _names_a_store(annotation: ast.expr | None) -> bool:
    """Whether an annotation names a store type: `EventStore`, `EventStore | None`, `"EventStore"`..."""
    if annotation is None:
        return False
    for node in ast.walk(annotation):
        if _name_of(node) in STORE_TYPES:
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a quoted annotation
            try:
                if _names_a_store(ast.parse(node.value, mode="eval").body):
                    return True
            except SyntaxError:
                pass
    return False


def store_names(tree: ast.AST) -> set[str]:
    """The parameters, variables and fields a module annotates as a store (`store: EventStore`)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and _names_a_store(node.annotation):
            found.add(node.arg)
        elif isinstance(node, ast.AnnAssign) and _names_a_store(node.annotation):
            found.add(_name_of(node.target) or "")
    return found


DATABASE_DRIVERS = {"sqlite3", "sqlite_utils", "psycopg", "apsw"}


def store_writes(source: str) -> list[tuple[int, str]]:
    """Where a module names a store method that writes, by line: as an attribute of anything (called,
    or a bound method handed on), or as a string (`getattr`); a writer's name that a list's method
    shares (`append`) only on a name annotated as a store (`store.append`, `self.store.append`).
    Opening a store of its own (`SqliteEventStore(...)`, `open_store(...)`) counts too: it could write through that; so
    does reaching past the protocol on a store (`store.db`, `store._write`) or importing a database
    driver (sqlite3, sqlite_utils)."""
    tree = ast.parse(source)
    stores = store_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in STORE_WRITES:
            if node.attr not in LIST_METHODS or _name_of(node.value) in stores:
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Constant) and node.value in STORE_WRITES - LIST_METHODS:
            found.append((node.lineno, repr(node.value)))
        elif isinstance(node, ast.Attribute) and _name_of(node.value) in stores and node.attr not in STORE_READS:
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Call) and _name_of(node.func) in STORE_OPENERS:
            found.append((node.lineno, f"{ast.unparse(node.func)}(...)"))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [(node.lineno, f"import {m}") for m in modules if m.split(".")[0] in DATABASE_DRIVERS]
    return sorted(found)


def test_every_store_method_is_named_as_writing_or_not():
    methods = {name for name, value in vars(EventStore).items() if callable(value) and not name.startswith("_")}
    assert STORE_WRITES.isdisjoint(STORE_READS)
    assert methods == STORE_WRITES | STORE_READS


def test_the_write_finder_finds_each_way_of_writing():
    source = """
def fold(store: EventStore, rows: list, keeper: "EventStore | None" = None):
    rows.append(1)
    store.append("b", [], expected_seq=0)
    keeper.append_sealed("b", [])
    keep = store.save_snapshot_units
    getattr(store, "drop_snapshots")("b")
    SqliteEventStore(":memory:").events("b")
    return store.read("b")

class Kept:
    store: EventStore
    def write(self, blob):
        self.store.append("b", [], expected_seq=0)
        self.rows.append(blob)

def around(store: EventStore):
    store.db.execute("DELETE FROM events")
    import sqlite3
"""
    assert [line for line, _ in store_writes(source)] == [4, 5, 6, 7, 8, 14, 18, 19]


def test_no_projection_writes_to_the_store():
    """Projections compute; the app writes (the snapshots a fold takes go through a keeper, and the
    app's snapshot cache is the one that writes them)."""
    writes = {
        module: found
        for module, path in MODULES.items()
        if layer_of(module) == "projections" and (found := store_writes(path.read_text(encoding="utf-8")))
    }
    assert writes == {}


def test_a_pickled_ruleset_is_found_again_by_id_and_version_in_a_fresh_process():
    """A snapshot names its ruleset, never copies it: a process that has imported nothing of morale
    unpickles it into the very ruleset its registry holds (unpickling imports the rulesets' package,
    which registers them all)."""
    script = (
        "import pickle, sys; data = sys.stdin.buffer.read(); "
        "assert not any(m.startswith('morale') for m in sys.modules); "
        "found = pickle.loads(data); "
        "from morale.core.rulesets import lookup; "
        "print(all(r is lookup(r.id, r.version) for r in found), [type(r).__name__ for r in found])"
    )
    pickled = list(rulesets().values())  # morale's four, and any game installed beside them
    data = pickle.dumps(pickled)
    out = subprocess.run([sys.executable, "-c", script], input=data, capture_output=True, check=True).stdout
    assert out.decode().strip() == f"True {[type(r).__name__ for r in pickled]}"
    assert [type(r).__name__ for r in pickled][:4] == ["Wh40k6", "Wh40k3", "Wfb8", "Gdb"]
