"""General de Brigade (Napoleonic): the Morale Check Test read in a results table, rally, brigade tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from morale.core.lazy import names_in

if TYPE_CHECKING:
    from .ruleset import GDB

__all__ = ["GDB"]
# Not imported with the package: its `about` module (who the game is, for `morale --version`) is
# imported through it, and must not bring the rules.
__getattr__ = names_in(__name__, {"GDB": ".ruleset"})
