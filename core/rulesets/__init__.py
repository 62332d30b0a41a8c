"""The rulesets the engine knows, by id and version. A battle pins both in its first event.

Each game is a package of its own, built on the base class in `base`, and found through its entry
point in the `morale.rulesets` group (`core/installed.py`): this repository's four (`wh40k/`,
`wfb8/`, `gdb/`) are declared in its pyproject.toml as a separately installed package declares its
own. Importing this package imports none of them: `lookup`, `latest` and `rulesets` do, as asked.
"""

from .base import BrokenGame, Ruleset, latest, lookup, rulesets

__all__ = ["BrokenGame", "Ruleset", "latest", "lookup", "rulesets"]
