"""The project's own catalogue of rule clauses: every rule ID the engine cites, in our own words.

Each game keeps its clauses in TOML beside its code (a `*clauses.toml` file anywhere in its package,
which its `morale.rulesets` entry point names: `installed.py`), and the engine's own bookkeeping
rules sit beside `rules.py` (`engine_clauses.toml`). This is the one place a clause's words are
written down: `morale rules`, explain, the narrative and the viewer all quote it, and the coverage
tests hold the code and the catalogue to the same set of IDs.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

import msgspec

from . import installed
from .words import Words

# seed: stated in the source text; standard: the published rules beyond our text; default: a figure
# the source text lost, shipped as data a user may replace; engine: bookkeeping every ruleset shares.
Kind = Literal["seed", "standard", "default", "engine"]


class Clause(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str
    kind: Kind
    title: str
    words: str
    ruleset: str = ""  # filled in from the file the clause is written in
    edition: str = ""


class _File(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    ruleset: str
    edition: str
    clause: list[Clause]


class Translated(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A clause in another language: `*clauses.<lang>.toml` beside the English, by the same IDs."""

    id: str
    title: str
    words: str


class _TranslatedFile(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    ruleset: str
    language: str
    clause: list[Translated]


class Quoted(Words):
    """A clause's title or words as the app quotes them: English here, and said in the reader's
    language from that language's clause file (`translated`), not from a message catalogue."""

    rule: str
    part: Literal["title", "words"]

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (quoted, (self.rule, self.part, str(self)))


def quoted(rule_id: str, part: Literal["title", "words"], english: str) -> Quoted:
    made = Quoted(english)
    made.rule, made.part = rule_id, part
    return made


def _files() -> list[tuple[str, bytes]]:
    """Every catalogue file of the games installed (each game's `*clauses.toml` files, found in its
    package's folder through its entry point: `installed.py`), by package and path, then the engine's."""
    found = sorted(
        (f"{where.name}/{name}", path.read_bytes()) for where in _game_folders() for name, path in _clause_files(where)
    )
    return [*found, _engine_file()]


def _game_folders() -> list[Path]:
    folders: dict[str, Path] = {}
    for point in installed.games():
        where = installed.folder(point)
        if where is not None:  # a game whose package cannot be found is refused when it is loaded
            folders.setdefault(str(where.resolve()), where)
    return list(folders.values())


def _engine_file() -> tuple[str, bytes]:
    engine = resources.files("morale.core") / "engine_clauses.toml"
    return (engine.name, engine.read_bytes())


def _clause_files(
    folder: Traversable, under: str = "", ending: str = "clauses.toml"
) -> Iterator[tuple[str, Traversable]]:
    """Each `*clauses.toml` in `folder` and its subpackages (a ruleset is a package of its own), by its
    path relative to the rulesets' package (`ending`: `clauses.ru.toml` for the Russian ones)."""
    for entry in folder.iterdir():
        if entry.is_dir():
            if entry.name != "__pycache__":
                yield from _clause_files(entry, f"{under}{entry.name}/", ending)
        elif entry.name.endswith(ending):
            yield f"{under}{entry.name}", entry


def _parse(name: str, data: bytes) -> list[Clause]:
    try:
        parsed = msgspec.convert(tomllib.loads(data.decode("utf-8")), _File)
    except (tomllib.TOMLDecodeError, msgspec.ValidationError) as exc:
        raise ValueError(f"{name}: {exc}") from None
    clauses = []
    for clause in parsed.clause:
        if not clause.id.startswith(f"{parsed.ruleset}."):
            raise ValueError(f"{name}: {clause.id!r} does not belong to ruleset {parsed.ruleset!r}")
        clauses.append(msgspec.structs.replace(clause, ruleset=parsed.ruleset, edition=parsed.edition))
    return clauses


@cache
def catalogue() -> dict[str, Clause]:
    """Every clause by rule ID, in the order the files write them."""
    return _read(_files())


@cache
def _engine() -> dict[str, Clause]:
    # The engine declares its own clauses as `rules.py` is imported, before the rulesets' package
    # (which finding the games' folders may import) can be: its words come from its own file alone.
    return _read([_engine_file()])


def _read(files: list[tuple[str, bytes]]) -> dict[str, Clause]:
    clauses: dict[str, Clause] = {}
    for name, data in files:
        for clause in _parse(name, data):
            if clause.id in clauses:
                raise ValueError(f"{name}: {clause.id!r} is written down twice")
            clauses[clause.id] = clause
    return clauses


@cache
def translated(language: str) -> dict[str, Translated]:
    """Every clause in `language` by rule ID: the games' `*clauses.<language>.toml` and the engine's."""
    files = [
        (f"{where.name}/{name}", path.read_bytes())
        for where in _game_folders()
        for name, path in _clause_files(where, ending=f"clauses.{language}.toml")
    ]
    engine = resources.files("morale.core") / f"engine_clauses.{language}.toml"
    if engine.is_file():
        files.append((engine.name, engine.read_bytes()))
    found: dict[str, Translated] = {}
    for name, data in sorted(files):
        try:
            parsed = msgspec.convert(tomllib.loads(data.decode("utf-8")), _TranslatedFile)
        except (tomllib.TOMLDecodeError, msgspec.ValidationError) as exc:
            raise ValueError(f"{name}: {exc}") from None
        for clause in parsed.clause:
            if clause.id in found:
                raise ValueError(f"{name}: {clause.id!r} is translated twice")
            found[clause.id] = clause
    return found


def clause(rule_id: str) -> Clause | None:
    return catalogue().get(rule_id)


def words(rule_id: str) -> str:
    """The clause's words (said in the reader's language at the edge), or "" for an ID the catalogue
    does not hold."""
    found = (_engine() if rule_id.startswith("engine.") else catalogue()).get(rule_id)
    return quoted(rule_id, "words", found.words) if found else ""


def title(rule_id: str) -> str:
    found = catalogue().get(rule_id)
    return quoted(rule_id, "title", found.title) if found else ""


def of_ruleset(ruleset: str) -> list[Clause]:
    return [c for c in catalogue().values() if c.ruleset == ruleset]


def rulesets() -> list[str]:
    """The rulesets (and `engine`) the catalogue has clauses for, in its order."""
    return list(dict.fromkeys(c.ruleset for c in catalogue().values()))
