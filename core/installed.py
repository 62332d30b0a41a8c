"""The games installed: every entry point of the `morale.rulesets` group, and the folder of each.

A game is one package: its clauses (`*clauses.toml`), its code (the `Ruleset` and its state graph),
its data tables and whatever else it ships. It joins the engine by declaring an entry point in its
own pyproject.toml, and morale declares its four games the same way:

    [project.entry-points."morale.rulesets"]
    wh40k6 = "morale.core.rulesets.wh40k.sixth:WH40K6"

The value names a `Ruleset` instance (module:attribute). Name the entry point by the ruleset's id:
`lookup` imports the entry point of that name first and the others only if it is not there.

This module reads the installed metadata and nothing of the games themselves: the catalogue finds a
game's clauses from here before its code is imported (a clause declared in the code reads its words
from the catalogue as the module is imported), and the registry (`rulesets/base.py`) imports each
game when it is first asked for.

A game may also say who it is (`About`: id, version, title, listing order) under an entry point of
the same name in the `morale.rulesets.about` group, naming an `About` in a module that imports none
of its rules:

    [project.entry-points."morale.rulesets.about"]
    wh40k6 = "morale.core.rulesets.wh40k.about:WH40K6"

`morale --version` names every game from these alone (`rulesets/listing.py`); importing the games
would cost it several times what the rest of it does. The registry refuses a game whose `About`
does not say what its `Ruleset` does, so the two cannot drift apart.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from .words import Words

GROUP = "morale.rulesets"
ABOUT_GROUP = "morale.rulesets.about"
# The distribution that ships the four games of this repository: its entry points come first, any
# other package's after them by distribution and entry point name, so what is loaded first does not
# depend on the order of site-packages. (`morale rulesets` lists them by `Ruleset.listing_order`.)
HOME = "morale"


def named(point: EntryPoint) -> str:
    """How a refusal names an entry point: `fifth = morale_fifth.ruleset:FIFTH` (from morale-fifth)."""
    dist = point.dist.name if point.dist is not None else ""
    return Words(
        "entry point {name!r} = {value!r} of group {group} (from {dist})",
        name=point.name,
        value=point.value,
        group=GROUP,
        dist=Words("an unknown distribution") if point.dist is None else dist,
    )


@cache
def games() -> tuple[EntryPoint, ...]:
    """Every entry point of the group, morale's own first."""
    found = list(entry_points(group=GROUP))

    def home_first(point: EntryPoint) -> tuple[int, str, int]:
        dist = _dist(point)
        return (0, "", found.index(point)) if dist == HOME else (1, f"{dist}/{point.name}", 0)

    return tuple(sorted(found, key=home_first))


@dataclass(frozen=True)
class About:
    """Who a game is, as its `Ruleset` says it (`id`, `version`, `title`, `listing_order`), read
    without importing the game's rules."""

    id: str
    version: str
    title: str
    listing_order: int = 100

    @classmethod
    def of(cls, ruleset: Any) -> About:
        """What a loaded `Ruleset` says of itself."""
        return cls(ruleset.id, ruleset.version, ruleset.title, ruleset.listing_order)


@cache
def _about_points() -> dict[tuple[str, str], EntryPoint]:
    return {(_dist(point), point.name): point for point in entry_points(group=ABOUT_GROUP)}


def about_of(point: EntryPoint) -> About | None:
    """The `About` the game of `point` declares: the `morale.rulesets.about` entry point of the same
    name, from the same distribution. None where it declares none (it is imported to learn who it
    is); `UnusableAbout` where that entry point cannot be loaded or names no `About`."""
    declared = _about_points().get((_dist(point), point.name))
    if declared is None:
        return None
    try:
        about = declared.load()
    except Exception as exc:  # whatever the package raised on import: named, on one line
        reason = str(exc).splitlines()[0] if str(exc) else ""
        raise UnusableAbout(
            Words(
                "its about entry point {value!r} cannot be loaded ({error}: {reason})",
                value=declared.value,
                error=type(exc).__name__,
                reason=reason,
            )
        ) from exc
    if not isinstance(about, About):
        raise UnusableAbout(
            Words(
                "its about entry point {value!r} names a {kind}, not an About",
                value=declared.value,
                kind=type(about).__name__,
            )
        )
    return about


class UnusableAbout(Exception):
    """A game's `morale.rulesets.about` entry point gives no `About` (the registry refuses the game).
    `problem` is its words (`str(exc)` their English)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _dist(point: EntryPoint) -> str:
    return point.dist.name if point.dist is not None else ""


def folder(point: EntryPoint) -> Path | None:
    """The folder of the package that holds the entry point's module, found without importing that
    package (its parents are imported, as Python does to find a submodule): a dotted module's parent
    package (`morale.core.rulesets.wh40k` for `...wh40k.sixth`), or the module itself where it is a
    top-level package. None where there is no such package; the registry refuses the entry point."""
    module = point.module
    try:
        spec = importlib.util.find_spec(module.rpartition(".")[0] or module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None  # a top-level plain module: a game is a package
    # Read from the spec, not `resources.files`, which would import the package (and so the game).
    return Path(next(iter(spec.submodule_search_locations)))
