"""The rulesets the engine knows, by id and version. A battle pins both in its first event.

Each game is a package of its own, built on the base class in `base`, and found through its entry
point in the `morale.rulesets` group (`core/installed.py`): this repository's four (`wh40k/`,
`wfb8/`, `gdb/`) are declared in its pyproject.toml as a separately installed package declares its
own. Importing this package imports none of them: `lookup`, `latest` and `rulesets` do, as asked.
Nor does it import the registry (`base`) until one of its names is first read: a game's `about`
module is imported through this package, and `morale --version` reads those alone (`listing.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import names_in

if TYPE_CHECKING:
    from .base import BrokenGame, Ruleset, latest, lookup, rulesets

__all__ = ["BrokenGame", "Ruleset", "latest", "lookup", "rulesets"]


__getattr__ = names_in(__name__, dict.fromkeys(__all__, ".base"))
