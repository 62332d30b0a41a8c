"""The games this repository ships, which the suite's own tests hold to their rules.

A game installed beside them (`make test` installs the fifth, examples/wh40k10, as a user would
install any) is found by the engine like the four, so `rulesets()` and the catalogue list it too;
its rules are checked by its own package's tests and morale's conformance kit, not by this suite,
which names only the clauses and states of its own games."""

from __future__ import annotations

from morale.core import catalogue, installed
from morale.core.catalogue import Clause
from morale.core.rulesets import Ruleset, rulesets

# morale's own entry points, named by ruleset id as every game's are (core/installed.py).
OWN = frozenset(p.name for p in installed.games() if p.dist is not None and p.dist.name == installed.HOME)


def own_rulesets() -> dict[tuple[str, str], Ruleset]:
    return {key: ruleset for key, ruleset in rulesets().items() if ruleset.id in OWN}


def own_clauses() -> dict[str, Clause]:
    """The catalogue's clauses of morale's own games and of the engine."""
    return {i: c for i, c in catalogue.catalogue().items() if c.ruleset in OWN or c.ruleset == "engine"}
